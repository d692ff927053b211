//! The in-process candidate index of the SQLite store: core's lazy [`CandidateIndex`],
//! loaded from `tm_variants` per source locale on first use, kept in sync by this store's
//! writes, and dropped when another connection has committed.
//!
//! Why beside the FTS5 tables: the design note's FTS5 recipe (`build_trigram_query`,
//! `ORDER BY rank LIMIT 200`) misses the best match in about 8 % of real queries and is
//! slower than a scan; counting shared trigrams per key gives a similarity bound, so the
//! index offers exactly the keys that can reach the scorer's cut-off, best first (the
//! same index as [`MemStore`](cmem_core::MemStore)'s, hence the same ranking). Another
//! connection's commit changes `PRAGMA data_version`; the cache is then dropped and
//! rebuilt on the next lookup.

use cmem_core::store::{CandidateQuery, CandidateSink};
use cmem_core::{CandidateIndex, EntryId, GramIndex, Keys, Locale, Result};
use rusqlite::Connection;

use crate::error::{corrupt, Context};

/// The three keys of a `tm_variants` row `v`, NULLs resolved.
pub(crate) const KEYS_OF_V: &str =
    "v.plain, COALESCE(v.struct_key, v.plain), COALESCE(v.general_key, v.struct_key, v.plain)";

/// The keys of a written entry's variants, for [`Cache::add`].
pub(crate) type CachedKeys = Vec<(Locale, Keys)>;

/// The candidate index and the database state it reflects.
#[derive(Debug)]
pub(crate) struct Cache {
    /// `PRAGMA data_version` when the cache was loaded; `None` = not loaded.
    data_version: Option<i64>,
    index: CandidateIndex,
}

impl Default for Cache {
    fn default() -> Self {
        Cache { data_version: None, index: CandidateIndex::lazy() }
    }
}

impl Cache {
    /// True when the cache reflects `data_version` and holds the index of every locale
    /// matching `source`.
    pub(crate) fn is_current(&self, data_version: i64, source: &Locale) -> bool {
        self.data_version == Some(data_version) && self.index.missing(source).is_empty()
    }

    /// Records a written entry: its locales, and its keys in every loaded index. Nothing
    /// before the cache is loaded (the load reads it from the table).
    pub(crate) fn add(&mut self, id: EntryId, variants: &[(Locale, Keys)]) {
        if self.data_version.is_some() {
            self.index.add(id, variants);
        }
    }

    /// Settles the indexes after a batch of [`add`](Self::add)s.
    pub(crate) fn settle(&mut self) {
        self.index.settle();
    }

    /// Forgets a deleted entry.
    pub(crate) fn remove(&mut self, id: EntryId) {
        self.index.remove(id);
    }

    /// Offers the candidates of `q` (see [`CandidateIndex::offer`]).
    pub(crate) fn offer(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) {
        self.index.offer(q, sink);
    }

    /// Loads, from `conn` at `data_version`, the locales of every entry when the cache is
    /// stale, and the index of every locale matching `source` that is not loaded yet.
    ///
    /// # Errors
    /// A store failure, or a stored locale that does not parse.
    pub(crate) fn load(
        &mut self,
        conn: &Connection,
        p: &str,
        data_version: i64,
        source: &Locale,
    ) -> Result<()> {
        if self.data_version != Some(data_version) {
            self.index.clear();
            self.load_locales(conn, p)?;
            self.data_version = Some(data_version);
        }
        for li in self.index.missing(source) {
            let Some(tag) = self.index.locale(li).map(|l| l.as_str().to_owned()) else { continue };
            let mut variants = Vec::new();
            let mut stmt = conn
                .prepare(&format!(
                    "SELECT v.entry_id, {KEYS_OF_V} FROM tm_variants v WHERE v.locale = ?1 ORDER BY v.id"
                ))
                .ctx(p, "loading keys")?;
            let mut rows = stmt.query([&tag]).ctx(p, "loading keys")?;
            while let Some(r) = rows.next().ctx(p, "loading keys")? {
                let keys = Keys {
                    plain: r.get(1).ctx(p, "loading keys")?,
                    structural: r.get(2).ctx(p, "loading keys")?,
                    generalized: r.get(3).ctx(p, "loading keys")?,
                };
                let id = EntryId(r.get(0).ctx(p, "loading keys")?);
                // Every variant's entry had its locales loaded first.
                let set = self.index.set_of(id).unwrap_or(u32::MAX);
                variants.push((id, set, keys));
            }
            self.index.insert_index(li, GramIndex::build(&variants));
        }
        Ok(())
    }

    /// Reads the variant locales of every entry.
    fn load_locales(&mut self, conn: &Connection, p: &str) -> Result<()> {
        let mut stmt = conn
            .prepare("SELECT entry_id, locale FROM tm_variants ORDER BY entry_id, ord")
            .ctx(p, "loading variant locales")?;
        let mut rows = stmt.query([]).ctx(p, "loading variant locales")?;
        let mut current: Option<(EntryId, Vec<u16>)> = None;
        // Rows alternate between a memory's few locales: each tag is parsed once.
        let mut tags: Vec<(String, u16)> = Vec::new();
        while let Some(r) = rows.next().ctx(p, "loading variant locales")? {
            let id = EntryId(r.get(0).ctx(p, "loading variant locales")?);
            let tag = r
                .get_ref(1)
                .ctx(p, "loading variant locales")?
                .as_str()
                .map_err(|e| corrupt(p, "a stored locale".to_owned(), e))?;
            let li = match tags.iter().find(|(t, _)| t == tag) {
                Some((_, li)) => *li,
                None => {
                    let loc =
                        Locale::parse(tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))?;
                    let li = self.index.locale_id(&loc);
                    tags.push((tag.to_owned(), li));
                    li
                }
            };
            match &mut current {
                Some((cid, locs)) if *cid == id => locs.push(li),
                _ => {
                    if let Some((cid, locs)) = current.take() {
                        self.index.set_locales(cid, &locs);
                    }
                    current = Some((id, vec![li]));
                }
            }
        }
        if let Some((cid, locs)) = current {
            self.index.set_locales(cid, &locs);
        }
        Ok(())
    }
}
