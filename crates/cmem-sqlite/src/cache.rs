//! The in-process candidate index of the SQLite store: core's lazy [`CandidateIndex`],
//! opened from its file beside the database or built from `tm_variants` per source
//! locale on first use, kept in sync by this store's writes, and caught up from the
//! change log when another connection has committed (DESIGN.md §70, §71).
//!
//! Why beside the FTS5 tables: the design note's FTS5 recipe (`build_trigram_query`,
//! `ORDER BY rank LIMIT 200`) misses the best match of many real queries and is slower
//! than a scan; counting shared trigrams per key gives a similarity bound, so the
//! index offers exactly the keys that can reach the scorer's cut-off, best first (the
//! same index as [`MemStore`](cmem_core::MemStore)'s, hence the same ranking). Another
//! connection's commit changes `PRAGMA data_version`; the next lookup then applies the
//! entries written, deleted or re-keyed since, or rebuilds the index when they are too
//! many.

use std::path::{Path, PathBuf};

use cmem_core::gram_index::{FileMeta, FrozenGrams};
use cmem_core::imp::{CandidateIndex, GramIndex, Keys, KEY_VERSION};
use cmem_core::schema::{CHANGES_TABLE, META_MEMORY_TOKEN, META_TABLE};
use cmem_core::store::{CandidateQuery, CandidateSink};
use cmem_core::{EntryId, Locale, Result};
use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{corrupt, Context};

/// The three keys of a `tm_variants` row `v`, NULLs resolved.
pub(crate) const KEYS_OF_V: &str =
    "v.plain, COALESCE(v.struct_key, v.plain), COALESCE(v.general_key, v.struct_key, v.plain)";

/// The keys of a written entry's variants, for [`Cache::add`].
pub(crate) type CachedKeys = Vec<(Locale, Keys)>;

/// Where a store keeps its persisted indexes, and the token they must carry.
#[derive(Debug, Clone)]
pub(crate) struct Persist {
    /// The database file; an index file is `<db>-gix-<locale>` beside it.
    pub(crate) db: PathBuf,
    /// Whether this process may write index files (not when read-only).
    pub(crate) write: bool,
}

impl Persist {
    fn file(&self, tag: &str) -> PathBuf {
        let mut name = self.db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(format!("-gix-{tag}"));
        self.db.with_file_name(name)
    }
}

/// A loaded in-process index, as [`SqliteStore::index_info`](crate::SqliteStore::index_info)
/// reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IndexInfo {
    /// The variant locale indexed.
    pub locale: Locale,
    /// Keys read in place from the persisted file (0: built from the tables).
    pub persisted: usize,
    /// Keys added since (built from the tables, written, or caught up with).
    pub added: usize,
}

/// The state of the memory an index reflects: the last change logged and the highest
/// entry number (entries are numbered upwards and never reused, so newer ones are found
/// by number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    seq: i64,
    eid: i64,
}

/// The candidate index and the database state it reflects.
#[derive(Debug)]
pub(crate) struct Cache {
    /// `PRAGMA data_version` when the cache was last brought up to date; `None` = never.
    data_version: Option<i64>,
    /// The state the loaded indexes reflect.
    mark: Option<Mark>,
    /// Whether the locale set of every entry was read (needed to build an index from
    /// the tables).
    locales_loaded: bool,
    index: CandidateIndex,
}

impl Default for Cache {
    fn default() -> Self {
        Cache { data_version: None, mark: None, locales_loaded: false, index: CandidateIndex::lazy() }
    }
}

/// What [`Cache::load`] did for a locale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Loaded {
    /// Every index is current.
    Ready,
    /// A locale has no usable index file and building was not allowed.
    Unavailable,
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

    /// Per loaded locale: the keys read from its persisted file and the keys added since.
    pub(crate) fn info(&self) -> Vec<IndexInfo> {
        self.index
            .loaded()
            .into_iter()
            .filter_map(|li| {
                let ix = self.index.index(li)?;
                Some(IndexInfo {
                    locale: self.index.locale(li)?.clone(),
                    persisted: ix.base().map_or(0, FrozenGrams::docs),
                    added: ix.added(),
                })
            })
            .collect()
    }

    /// Offers the candidates of `q` (see [`CandidateIndex::offer`]).
    pub(crate) fn offer(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) {
        self.index.offer(q, sink);
    }

    /// Brings the cache up to the state of `conn` (whose `PRAGMA data_version` is
    /// `data_version`): indexes already loaded catch up with the entries written,
    /// deleted or re-keyed since (from the change log), and the index of every locale
    /// matching `source` that is not loaded yet is opened from its persisted file
    /// (caught up the same way) or, failing that, built from the tables (when `build`)
    /// and persisted.
    /// Everything is read in one transaction, so the indexes reflect one state.
    ///
    /// # Errors
    /// A store failure, or a stored locale that does not parse.
    pub(crate) fn load(
        &mut self,
        conn: &Connection,
        p: &str,
        data_version: i64,
        source: &Locale,
        persist: Option<&Persist>,
        build: bool,
    ) -> Result<Loaded> {
        let loaded = self.load_in(conn, p, data_version, source, persist, build);
        if loaded.is_err() {
            // Half done (an index opened but not caught up, another caught up only in
            // part): never answer from it; the next lookup loads again.
            *self = Cache::default();
        }
        loaded
    }

    fn load_in(
        &mut self,
        conn: &Connection,
        p: &str,
        data_version: i64,
        source: &Locale,
        persist: Option<&Persist>,
        build: bool,
    ) -> Result<Loaded> {
        let tx = conn.unchecked_transaction().ctx(p, "reading the candidate index")?;
        let now = read_mark(&tx, p)?;
        if let Some(mark) = self.mark.filter(|m| *m != now) {
            self.index.apply_changes(None, changes(&tx, p, mark)?);
        }
        self.mark = Some(now);
        self.data_version = Some(data_version);
        load_locale_names(&tx, p, &mut self.index)?;
        let token: Option<String> = tx
            .query_row(&format!("SELECT value FROM {META_TABLE} WHERE key = ?1"), [META_MEMORY_TOKEN], |r| {
                r.get(0)
            })
            .optional()
            .ctx(p, "reading the memory token")?;
        let mut loaded = Loaded::Ready;
        for li in self.index.missing(source) {
            let Some(tag) = self.index.locale(li).map(|l| l.as_str().to_owned()) else { continue };
            let file = persist.zip(token.as_deref()).map(|(persist, token)| (persist.file(&tag), token));
            if let Some((path, token)) = &file {
                if self.open_file(&tx, p, (li, &tag), (path, token, now))? {
                    continue;
                }
            }
            if !build {
                loaded = Loaded::Unavailable;
                continue;
            }
            self.build(&tx, p, li, &tag)?;
            if let Some(((path, token), persist)) = file.zip(persist) {
                if persist.write {
                    let newest = entry_identity(&tx, p, now.eid)?;
                    let meta = FileMeta {
                        seq: now.seq,
                        eid: now.eid,
                        key_version: KEY_VERSION,
                        locale: tag.clone(),
                        token: FileMeta::token_of(token, newest),
                    };
                    if let Some(ix) = self.index.index(li) {
                        // An index that cannot be written (a read-only directory, a full
                        // disk) is rebuilt by the next process: not an error of the lookup.
                        let _ = ix.persist(&path, self.index.sets(), &meta);
                    }
                }
            }
        }
        tx.finish().ctx(p, "reading the candidate index")?;
        Ok(loaded)
    }

    /// Opens the persisted index of locale `li` at `path` and catches it up; false when
    /// there is none, it does not belong to this memory or these keys, it is damaged, or
    /// it is too far behind (then it is rebuilt).
    fn open_file(
        &mut self,
        tx: &Connection,
        p: &str,
        (li, tag): (u16, &str),
        (path, token, now): (&Path, &str, Mark),
    ) -> Result<bool> {
        let Ok(Some(bytes)) = crate::mapped::map(path) else { return Ok(false) };
        let Ok(frozen) = FrozenGrams::open(bytes) else { return Ok(false) };
        let meta = frozen.meta();
        if meta.memory() != Some(token) || !meta.indexes(tag) {
            return Ok(false);
        }
        let mark = Mark { seq: meta.seq, eid: meta.eid };
        // A file of a state the database no longer has (a copy of an older database put
        // in its place) cannot be caught up from it (see `FileMeta::follows`).
        let newest = entry_identity(tx, p, mark.eid)?;
        let logged: bool = tx
            .query_row(
                &format!("SELECT EXISTS (SELECT 1 FROM {CHANGES_TABLE} WHERE seq > ?2 AND entry_id = ?1)"),
                params![mark.eid, mark.seq],
                |r| r.get(0),
            )
            .ctx(p, "reading the change log")?;
        if !meta.follows((now.seq, now.eid), newest, logged) {
            return Ok(false);
        }
        let behind: i64 = tx
            .query_row(
                &format!(
                    "SELECT (SELECT count(*) FROM tm_entries WHERE id > ?1) + \
                     (SELECT count(*) FROM {CHANGES_TABLE} WHERE seq > ?2)"
                ),
                params![mark.eid, mark.seq],
                |r| r.get(0),
            )
            .ctx(p, "reading the change log")?;
        if !frozen.worth_catching_up(behind) {
            return Ok(false);
        }
        if self.index.insert_frozen(li, frozen).is_err() {
            return Ok(false);
        }
        self.index.apply_changes(Some(li), changes(tx, p, mark)?);
        Ok(true)
    }

    /// Builds the index of locale `li` from the tables.
    fn build(&mut self, conn: &Connection, p: &str, li: u16, tag: &str) -> Result<()> {
        if !self.locales_loaded {
            self.load_locales(conn, p)?;
            self.locales_loaded = true;
        }
        let mut variants = Vec::new();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT v.entry_id, {KEYS_OF_V} FROM tm_variants v WHERE v.locale = ?1 ORDER BY v.id"
            ))
            .ctx(p, "loading keys")?;
        let mut rows = stmt.query([tag]).ctx(p, "loading keys")?;
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

/// The state of the memory as `conn` sees it.
fn read_mark(conn: &Connection, p: &str) -> Result<Mark> {
    conn.query_row(
        &format!(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM {CHANGES_TABLE}), (SELECT COALESCE(MAX(id), 0) FROM tm_entries)"
        ),
        [],
        |r| Ok(Mark { seq: r.get(0)?, eid: r.get(1)? }),
    )
    .ctx(p, "reading the change log")
}

/// The entries written, deleted or re-keyed since `mark`, each with its variants now
/// (none: deleted), by entry number.
fn changes(conn: &Connection, p: &str, mark: Mark) -> Result<Vec<(EntryId, CachedKeys)>> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT c.id, v.locale, {KEYS_OF_V} FROM \
             (SELECT id FROM tm_entries WHERE id > ?1 UNION SELECT entry_id FROM {CHANGES_TABLE} WHERE seq > ?2) AS c \
             LEFT JOIN tm_variants v ON v.entry_id = c.id ORDER BY c.id, v.ord"
        ))
        .ctx(p, "reading the change log")?;
    let mut rows = stmt.query(params![mark.eid, mark.seq]).ctx(p, "reading the change log")?;
    let mut out: Vec<(EntryId, CachedKeys)> = Vec::new();
    while let Some(r) = rows.next().ctx(p, "reading the change log")? {
        let id = EntryId(r.get(0).ctx(p, "reading the change log")?);
        if out.last().is_none_or(|(last, _)| *last != id) {
            out.push((id, Vec::new()));
        }
        let tag: Option<String> = r.get(1).ctx(p, "reading the change log")?;
        let Some(tag) = tag else { continue };
        let locale = Locale::parse(&tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))?;
        let keys = Keys {
            plain: r.get(2).ctx(p, "reading the change log")?,
            structural: r.get(3).ctx(p, "reading the change log")?,
            generalized: r.get(4).ctx(p, "reading the change log")?,
        };
        if let Some((_, variants)) = out.last_mut() {
            variants.push((locale, keys));
        }
    }
    Ok(out)
}

/// The distinct variant locales (of first variants only, with `sources`), sorted: one
/// index probe per locale (a loose scan of the locale index), not a read of every row.
fn distinct_locales(conn: &Connection, p: &str, sources: bool) -> Result<Vec<Locale>> {
    let only = if sources { " AND ord = 0" } else { "" };
    let mut stmt = conn
        .prepare_cached(&format!(
            "WITH RECURSIVE l(tag) AS (SELECT MIN(locale) FROM tm_variants WHERE locale IS NOT NULL{only} \
             UNION ALL SELECT (SELECT MIN(locale) FROM tm_variants WHERE locale > l.tag{only}) \
             FROM l WHERE l.tag IS NOT NULL) SELECT tag FROM l WHERE tag IS NOT NULL"
        ))
        .ctx(p, "listing variant locales")?;
    let mut rows = stmt.query([]).ctx(p, "listing variant locales")?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().ctx(p, "listing variant locales")? {
        let tag: String = r.get(0).ctx(p, "listing variant locales")?;
        out.push(Locale::parse(&tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))?);
    }
    Ok(out)
}

/// The locales of the memory's first variants (see
/// [`ContentMemory::source_locales`](cmem_core::ContentMemory::source_locales)), sorted.
pub(crate) fn source_locales(conn: &Connection, p: &str) -> Result<Vec<Locale>> {
    let mut out = distinct_locales(conn, p, true)?;
    out.sort();
    Ok(out)
}

/// The identity hash of entry `id` (0: no such entry), as a persisted index records the
/// newest entry it knows.
fn entry_identity(conn: &Connection, p: &str, id: i64) -> Result<i64> {
    conn.query_row("SELECT identity FROM tm_entries WHERE id = ?1", [id], |r| r.get(0))
        .optional()
        .map(Option::unwrap_or_default)
        .ctx(p, "reading the newest entry")
}

/// Interns every variant locale of the memory.
fn load_locale_names(conn: &Connection, p: &str, index: &mut CandidateIndex) -> Result<()> {
    for locale in distinct_locales(conn, p, false)? {
        index.locale_id(&locale);
    }
    Ok(())
}
