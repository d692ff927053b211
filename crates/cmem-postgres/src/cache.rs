//! The in-process candidate index of the PostgreSQL store: core's lazy
//! [`CandidateIndex`], loaded from `tm_variants` per source locale on first use, kept in
//! step with this store's own writes, and caught up from the change log when another
//! connection, process or machine has written.
//!
//! How it learns of other writers: every write transaction bumps the change counter in
//! the meta table (see [`META_CHANGES`](crate::migrate::META_CHANGES)); a lookup reads it
//! with its entries (see [`crate::scope`]) and brings the index up to date when it
//! differs from the value the index was loaded at. The new entries (ids past the highest
//! the index saw) and the deleted or re-keyed ones (`tm_changes`, filled by triggers)
//! are read and applied; more than [`CATCH_UP_MOST`] of them, and the index is loaded
//! again whole. Either read happens in one repeatable-read transaction with the counter,
//! so the index is exactly the memory at that counter. A lookup therefore sees every
//! write committed before it began.

use cmem_core::schema::CHANGES_TABLE;
use cmem_core::store::{CandidateQuery, CandidateSink};
use cmem_core::{CandidateIndex, EntryId, GramIndex, Keys, Locale, Result};
use postgres::Client;

use crate::error::{corrupt, Context};

/// The three keys of a `tm_variants` row `v`, NULLs resolved.
pub(crate) const KEYS_OF_V: &str =
    "v.plain, COALESCE(v.struct_key, v.plain), COALESCE(v.general_key, v.struct_key, v.plain)";

/// The keys of a written entry's variants, for [`Cache::add`].
pub(crate) type CachedKeys = Vec<(Locale, Keys)>;

/// Where the change log stood when the cache was loaded or last caught up: the last
/// log number and the highest entry id (writers take turns, so both grow in commit
/// order).
#[derive(Debug, Clone, Copy)]
struct Mark {
    seq: i64,
    eid: i64,
}

/// The most changes a stale cache takes from the log; past it, it is reloaded whole.
const CATCH_UP_MOST: i64 = 20_000;

/// The candidate index and the change counter it reflects.
#[derive(Debug)]
pub(crate) struct Cache {
    /// The change counter when the cache was loaded; `None` = not loaded.
    changes: Option<i64>,
    mark: Option<Mark>,
    index: CandidateIndex,
    /// How many times the cache was loaded whole.
    loads: u64,
}

impl Default for Cache {
    fn default() -> Self {
        Cache { changes: None, mark: None, index: CandidateIndex::lazy(), loads: 0 }
    }
}

impl Cache {
    /// True when the cache reflects `changes` and holds the index of every locale
    /// matching `source`.
    pub(crate) fn is_current(&self, changes: i64, source: &Locale) -> bool {
        self.changes == Some(changes) && self.index.missing(source).is_empty()
    }

    /// True when the cache is loaded and holds the index of every locale matching
    /// `source`, at whatever change counter.
    pub(crate) fn has(&self, source: &Locale) -> bool {
        self.changes.is_some() && self.index.missing(source).is_empty()
    }

    /// The change counter the cache was loaded at; `None` = not loaded.
    pub(crate) fn changes(&self) -> Option<i64> {
        self.changes
    }

    /// True when the cache was loaded at change counter `changes`.
    pub(crate) fn is_at(&self, changes: i64) -> bool {
        self.changes == Some(changes)
    }

    /// Marks the cache stale: the next lookup reloads it.
    pub(crate) fn forget(&mut self) {
        self.changes = None;
        self.mark = None;
        self.index.clear();
    }

    /// How many times the cache was loaded whole.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn loads(&self) -> u64 {
        self.loads
    }

    /// Forgets the entries a write transaction that moved the counter from `before` to
    /// `after` deleted or replaced, then files the ones it inserted (a replaced entry's
    /// new keys among them), when the cache was at `before`;
    /// otherwise another writer came between, and the cache stays stale (reloaded on
    /// the next lookup).
    pub(crate) fn apply(
        &mut self,
        before: i64,
        after: i64,
        added: &[(EntryId, CachedKeys)],
        removed: &[EntryId],
    ) {
        if self.changes != Some(before) {
            return;
        }
        // Forgotten first: a replaced entry is in both lists, its new keys in `added`.
        for id in removed {
            self.index.remove(*id);
        }
        for (id, keys) in added {
            self.index.add(*id, keys);
        }
        self.index.settle();
        self.changes = Some(after);
    }

    /// Offers the candidates of `q` (see [`CandidateIndex::offer`]).
    pub(crate) fn offer(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) {
        self.index.offer(q, sink);
    }

    /// The entries of an exact-key hit (see [`CandidateIndex::exact`]).
    pub(crate) fn exact(&self, q: &cmem_core::store::ExactQuery<'_>) -> Vec<EntryId> {
        self.index.exact(q)
    }

    /// Loads, in one repeatable-read transaction on `client`, the locales of every entry
    /// when the cache is stale, and the index of every locale matching `source` that is
    /// not loaded yet.
    ///
    /// # Errors
    /// A store failure, or a stored locale that does not parse.
    pub(crate) fn load(&mut self, client: &mut Client, name: &str, source: &Locale) -> Result<()> {
        let mut tx = crate::store::snapshot(client, name, "loading keys")?;
        let changes = crate::store::read_changes(&mut tx, name)?;
        if self.changes != Some(changes) {
            let caught_up = match (self.changes, self.mark) {
                (Some(_), Some(mark)) => self.catch_up(&mut tx, name, mark)?,
                _ => false,
            };
            if !caught_up {
                self.index.clear();
                self.changes = None;
                load_locales(&mut self.index, &mut tx, name)?;
                self.loads += 1;
            }
            self.mark = Some(read_mark(&mut tx, name)?);
            self.changes = Some(changes);
        }
        for li in self.index.missing(source) {
            let Some(tag) = self.index.locale(li).map(|l| l.as_str().to_owned()) else { continue };
            let rows = tx
                .query(
                    &format!(
                        "SELECT v.entry_id, {KEYS_OF_V} FROM tm_variants v WHERE v.locale = $1 ORDER BY v.id"
                    ),
                    &[&tag],
                )
                .ctx(name, "loading keys")?;
            let mut variants = Vec::with_capacity(rows.len());
            for r in rows {
                let keys = keys_at(&r, 1).ctx(name, "loading keys")?;
                let id = EntryId(r.try_get(0).ctx(name, "loading keys")?);
                // Every variant's entry had its locales loaded first.
                let set = self.index.set_of(id).unwrap_or(u32::MAX);
                variants.push((id, set, keys));
            }
            self.index.insert_index(li, GramIndex::build(&variants));
        }
        tx.commit().ctx(name, "loading keys")?;
        Ok(())
    }
}

impl Cache {
    /// Takes the entries written, deleted or re-keyed since `mark` from the change log;
    /// false (nothing done) when they are too many, and the cache is reloaded instead.
    fn catch_up(&mut self, tx: &mut postgres::Transaction<'_>, name: &str, mark: Mark) -> Result<bool> {
        let what = "reading the change log";
        let behind: i64 = tx
            .query_one(
                &format!(
                    "SELECT (SELECT count(*) FROM tm_entries WHERE id > $1) + \
                     (SELECT count(*) FROM {CHANGES_TABLE} WHERE seq > $2)"
                ),
                &[&mark.eid, &mark.seq],
            )
            .and_then(|r| r.try_get(0))
            .ctx(name, what)?;
        if behind > CATCH_UP_MOST {
            return Ok(false);
        }
        let rows = tx
            .query(
                &format!(
                    "SELECT c.id, v.locale, {KEYS_OF_V} FROM \
                     (SELECT id FROM tm_entries WHERE id > $1 UNION SELECT entry_id FROM {CHANGES_TABLE} \
                     WHERE seq > $2) AS c LEFT JOIN tm_variants v ON v.entry_id = c.id ORDER BY c.id, v.ord"
                ),
                &[&mark.eid, &mark.seq],
            )
            .ctx(name, what)?;
        // Each changed entry with its variants now (none: deleted), by entry number.
        let mut changed: Vec<(EntryId, CachedKeys)> = Vec::new();
        for r in rows {
            let id = EntryId(r.try_get(0).ctx(name, what)?);
            if changed.last().is_none_or(|(last, _)| *last != id) {
                changed.push((id, Vec::new()));
            }
            let Some(tag) = r.try_get::<_, Option<&str>>(1).ctx(name, what)? else { continue };
            let locale =
                Locale::parse(tag).map_err(|e| corrupt(name, format!("stored locale {tag:?}"), e))?;
            let keys = keys_at(&r, 2).ctx(name, what)?;
            if let Some((_, variants)) = changed.last_mut() {
                variants.push((locale, keys));
            }
        }
        for (id, variants) in &changed {
            self.index.remove(*id);
            if !variants.is_empty() {
                self.index.add(*id, variants);
            }
        }
        self.index.settle();
        Ok(true)
    }
}

/// The three keys of [`KEYS_OF_V`] in a row, from column `first` on.
fn keys_at(r: &postgres::Row, first: usize) -> std::result::Result<Keys, postgres::Error> {
    Ok(Keys {
        plain: r.try_get(first)?,
        structural: r.try_get(first + 1)?,
        generalized: r.try_get(first + 2)?,
    })
}

/// Where the change log stands in `tx`'s snapshot.
fn read_mark(tx: &mut postgres::Transaction<'_>, name: &str) -> Result<Mark> {
    tx.query_one(
        &format!(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM {CHANGES_TABLE}), \
             (SELECT COALESCE(MAX(id), 0) FROM tm_entries)"
        ),
        &[],
    )
    .and_then(|r| Ok(Mark { seq: r.try_get(0)?, eid: r.try_get(1)? }))
    .ctx(name, "reading the change log")
}

/// Reads the variant locales of every entry.
fn load_locales(index: &mut CandidateIndex, tx: &mut postgres::Transaction<'_>, name: &str) -> Result<()> {
    let what = "loading variant locales";
    let rows =
        tx.query("SELECT entry_id, locale FROM tm_variants ORDER BY entry_id, ord", &[]).ctx(name, what)?;
    let mut current: Option<(EntryId, Vec<u16>)> = None;
    // Rows alternate between a memory's few locales: each tag is parsed once.
    let mut tags: Vec<(String, u16)> = Vec::new();
    for r in rows {
        let id = EntryId(r.try_get(0).ctx(name, what)?);
        let tag: &str = r.try_get(1).ctx(name, what)?;
        let li = match tags.iter().find(|(t, _)| t == tag) {
            Some((_, li)) => *li,
            None => {
                let loc =
                    Locale::parse(tag).map_err(|e| corrupt(name, format!("stored locale {tag:?}"), e))?;
                let li = index.locale_id(&loc);
                tags.push((tag.to_owned(), li));
                li
            }
        };
        match &mut current {
            Some((cid, locs)) if *cid == id => locs.push(li),
            _ => {
                if let Some((cid, locs)) = current.take() {
                    index.set_locales(cid, &locs);
                }
                current = Some((id, vec![li]));
            }
        }
    }
    if let Some((cid, locs)) = current {
        index.set_locales(cid, &locs);
    }
    Ok(())
}
