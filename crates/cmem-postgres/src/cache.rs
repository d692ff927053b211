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
//!
//! With [`PgOptions::index_dir`](crate::PgOptions::index_dir), an index built from the
//! tables is also written to a file there (core's persisted form, named after the
//! memory's token and the locale), and the next process opens that file and catches it
//! up from the change log instead of building it: a restart takes a read of the file
//! and the changes since, not a read of every key. A file of another memory or key
//! version, a torn one, or one more changes behind than it is worth catching up, is
//! built again and replaced.

use std::path::{Path, PathBuf};

use cmem_core::gram_index::{FileMeta, FrozenGrams, CATCH_UP_MOST};
use cmem_core::imp::{CandidateIndex, GramIndex, Keys, KEY_VERSION};
use cmem_core::schema::{CHANGES_TABLE, META_MEMORY_TOKEN, META_TABLE};
use cmem_core::store::{CandidateQuery, CandidateSink};
use cmem_core::{EntryId, Locale, Result};
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

/// The candidate index and the change counter it reflects.
#[derive(Debug)]
pub(crate) struct Cache {
    /// The change counter when the cache was loaded; `None` = not loaded.
    changes: Option<i64>,
    mark: Option<Mark>,
    index: CandidateIndex,
    /// Whether the locale set of every entry was read (needed to build an index from
    /// the tables, not to open a persisted one).
    locales_loaded: bool,
    /// How many times the cache was loaded whole from the tables.
    loads: u64,
    /// How many locale indexes were opened from persisted files.
    opened: u64,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            changes: None,
            mark: None,
            index: CandidateIndex::lazy(),
            locales_loaded: false,
            loads: 0,
            opened: 0,
        }
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
        self.locales_loaded = false;
        self.index.clear();
    }

    /// How many times the cache was loaded whole from the tables.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn loads(&self) -> u64 {
        self.loads
    }

    /// How many locale indexes were opened from persisted files.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn opened(&self) -> u64 {
        self.opened
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

    /// Loads, in one repeatable-read transaction on `client`, the index of every locale
    /// matching `source` that is not loaded yet, after catching the loaded ones up (or
    /// dropping them, when too far behind).
    ///
    /// A locale's index is opened from its file in `persist` when there is a usable one
    /// (this memory's, these keys', not too far behind) and caught up from the change
    /// log; otherwise it is built from the tables, and written there for the next
    /// process.
    ///
    /// # Errors
    /// A store failure, or a stored locale that does not parse.
    pub(crate) fn load(
        &mut self,
        client: &mut Client,
        name: &str,
        source: &Locale,
        persist: Option<&Path>,
    ) -> Result<()> {
        let loaded = self.load_in(client, name, source, persist);
        if loaded.is_err() {
            // Half done (an index opened but not caught up, another caught up only in
            // part): never answer from it; the next lookup loads again.
            self.forget();
        }
        loaded
    }

    fn load_in(
        &mut self,
        client: &mut Client,
        name: &str,
        source: &Locale,
        persist: Option<&Path>,
    ) -> Result<()> {
        let mut tx = crate::rows::snapshot(client, name, "loading keys")?;
        let changes = crate::rows::read_changes(&mut tx, name)?;
        // Where the log stands in this snapshot, when read.
        let mut at = None;
        if self.changes != Some(changes) {
            let caught_up = match (self.changes, self.mark) {
                (Some(_), Some(mark)) => self.catch_up(&mut tx, name, mark)?,
                _ => false,
            };
            if !caught_up {
                self.index.clear();
                self.changes = None;
                self.locales_loaded = false;
                // Caught-up indexes learn new locales from the entries they add.
                load_locale_names(&mut self.index, &mut tx, name)?;
            }
            at = Some(read_mark(&mut tx, name)?);
            self.mark = at;
            self.changes = Some(changes);
        }
        let missing = self.index.missing(source);
        let identity = match persist {
            Some(_) if !missing.is_empty() => identity(&mut tx, name)?,
            _ => None,
        };
        // Files are checked against this snapshot and written at it (`self.mark` may be
        // older when the counter did not move: this store's own writes do not move it).
        let snapshot = match (&identity, at) {
            (None, _) => None,
            (Some(_), Some(at)) => Some(at),
            (Some(_), None) => Some(read_mark(&mut tx, name)?),
        };
        let mut pending = Vec::new();
        for li in missing {
            let Some(tag) = self.index.locale(li).map(|l| l.as_str().to_owned()) else { continue };
            let file = persist
                .zip(identity.as_ref())
                .zip(snapshot)
                .map(|((dir, id), snapshot)| (index_file(dir, &id.name, &tag), id, snapshot));
            if let Some((path, id, snapshot)) = &file {
                if self.open_file(&mut tx, name, (li, &tag), (path, id, *snapshot))? {
                    self.opened += 1;
                    continue;
                }
            }
            if !self.locales_loaded {
                load_locales(&mut self.index, &mut tx, name)?;
                self.locales_loaded = true;
                self.loads += 1;
            }
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
            if let Some((path, id, snapshot)) = file {
                let newest = entry_identity(&mut tx, name, snapshot.eid)?;
                let meta = FileMeta {
                    seq: snapshot.seq,
                    eid: snapshot.eid,
                    key_version: KEY_VERSION,
                    locale: tag.clone(),
                    token: FileMeta::token_of(&id.header(), newest),
                };
                pending.push((path, li, meta));
            }
        }
        tx.commit().ctx(name, "loading keys")?;
        for (path, li, meta) in pending {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            // Written once the snapshot is released, streamed from the index. An index
            // that cannot be written (a read-only directory, a full disk) is built again
            // by the next process: not an error of the lookup.
            if let Some(ix) = self.index.index(li) {
                let _ = ix.persist(&path, self.index.sets(), &meta);
            }
        }
        Ok(())
    }

    /// Opens the persisted index of locale `li` at `path` and catches it up from the
    /// change log to `tx`'s snapshot; false when there is none, it does not belong to
    /// this memory or these keys, it is damaged, or it is too far behind (then it is
    /// built again).
    fn open_file(
        &mut self,
        tx: &mut postgres::Transaction<'_>,
        name: &str,
        (li, tag): (u16, &str),
        (path, id, snapshot): (&Path, &Identity, Mark),
    ) -> Result<bool> {
        // Read whole rather than mapped: this crate has no `unsafe`, and a process that
        // keeps an index keeps it resident anyway.
        let Ok(bytes) = std::fs::read(path) else { return Ok(false) };
        let Ok(frozen) = FrozenGrams::open(std::sync::Arc::new(bytes)) else { return Ok(false) };
        let meta = frozen.meta();
        if !meta.memory().is_some_and(|memory| id.owns(memory)) || !meta.indexes(tag) {
            return Ok(false);
        }
        let mark = Mark { seq: meta.seq, eid: meta.eid };
        // A file of a later state, or of one the database no longer has, cannot be
        // caught up from this snapshot (see `FileMeta::follows`).
        let newest = entry_identity(tx, name, mark.eid)?;
        let logged = logged_since(tx, name, mark.eid, mark.seq)?;
        if !meta.follows((snapshot.seq, snapshot.eid), newest, logged) {
            return Ok(false);
        }
        if !frozen.worth_catching_up(behind(tx, name, mark)?) {
            return Ok(false);
        }
        if self.index.insert_frozen(li, frozen).is_err() {
            return Ok(false);
        }
        self.index.apply_changes(Some(li), changed_since(tx, name, mark)?);
        Ok(true)
    }
}

impl Cache {
    /// Takes the entries written, deleted or re-keyed since `mark` from the change log;
    /// false (nothing done) when they are too many, and the cache is reloaded instead.
    fn catch_up(&mut self, tx: &mut postgres::Transaction<'_>, name: &str, mark: Mark) -> Result<bool> {
        if behind(tx, name, mark)? > CATCH_UP_MOST {
            return Ok(false);
        }
        self.index.apply_changes(None, changed_since(tx, name, mark)?);
        Ok(true)
    }
}

/// How many entries were written, deleted or re-keyed since `mark` (an entry may count
/// twice).
fn behind(tx: &mut postgres::Transaction<'_>, name: &str, mark: Mark) -> Result<i64> {
    tx.query_one(
        &format!(
            "SELECT (SELECT count(*) FROM tm_entries WHERE id > $1) + \
             (SELECT count(*) FROM {CHANGES_TABLE} WHERE seq > $2)"
        ),
        &[&mark.eid, &mark.seq],
    )
    .and_then(|r| r.try_get(0))
    .ctx(name, "reading the change log")
}

/// The entries written, deleted or re-keyed since `mark`, each with its variants now
/// (none: deleted), by entry number.
fn changed_since(
    tx: &mut postgres::Transaction<'_>,
    name: &str,
    mark: Mark,
) -> Result<Vec<(EntryId, CachedKeys)>> {
    let what = "reading the change log";
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
    let mut changed: Vec<(EntryId, CachedKeys)> = Vec::new();
    for r in rows {
        let id = EntryId(r.try_get(0).ctx(name, what)?);
        if changed.last().is_none_or(|(last, _)| *last != id) {
            changed.push((id, Vec::new()));
        }
        let Some(tag) = r.try_get::<_, Option<&str>>(1).ctx(name, what)? else { continue };
        let locale = Locale::parse(tag).map_err(|e| corrupt(name, format!("stored locale {tag:?}"), e))?;
        let keys = keys_at(&r, 2).ctx(name, what)?;
        if let Some((_, variants)) = changed.last_mut() {
            variants.push((locale, keys));
        }
    }
    Ok(changed)
}

/// Which memory a persisted index belongs to.
#[derive(Debug)]
struct Identity {
    /// For the file's name: the memory's token, the cluster's system identifier and the
    /// database's number. A copy of the database (`CREATE DATABASE … TEMPLATE`, a dump
    /// restored elsewhere) carries the token but gets another number or cluster, so its
    /// files are its own.
    name: String,
    /// For the file's header, beside the name: the cluster's timeline (`None`: the
    /// server does not tell it). A database restored to an earlier point in time
    /// continues on a new timeline, so files written before the restore (which may know
    /// entries it no longer has, under numbers it will hand out again) are refused.
    /// Compared only when both the file and this process know it, so processes whose
    /// roles see different things share a file rather than replace each other's.
    timeline: Option<String>,
}

impl Identity {
    /// The header's token up to the newest entry: `NAME@TIMELINE` (`any`: unknown).
    fn header(&self) -> String {
        format!("{}@{}", self.name, self.timeline.as_deref().unwrap_or("any"))
    }

    /// Whether a header's token up to the newest entry is this memory's.
    fn owns(&self, header: &str) -> bool {
        let Some((name, timeline)) = header.rsplit_once('@') else { return false };
        name == self.name
            && match self.timeline.as_deref() {
                Some(ours) => timeline == ours || timeline == "any",
                None => true,
            }
    }
}

/// The identity of the memory in `tx`; `None` when it has no token, or when the
/// server does not tell its system identifier or the database's number (a role or a
/// managed service that withholds them): then no file is read or written, and every
/// process builds its index, as without a directory. A server that withholds only the
/// timeline (`pg_control_checkpoint` needs `wal_level=logical` on some managed
/// services) gets files without that check.
///
/// Each of those reads runs in a savepoint of its own, so that its failure leaves the
/// snapshot usable.
fn identity(tx: &mut postgres::Transaction<'_>, name: &str) -> Result<Option<Identity>> {
    let what = "reading the memory's identity";
    let token: Option<String> = tx
        .query_opt(&format!("SELECT value FROM {META_TABLE} WHERE key = $1"), &[&META_MEMORY_TOKEN])
        .ctx(name, what)?
        .map(|r| r.try_get(0))
        .transpose()
        .ctx(name, what)?;
    let Some(token) = token else { return Ok(None) };
    let where_ = "SELECT s.system_identifier::text || '-' || d.oid::text FROM pg_control_system() s, \
                  pg_database d WHERE d.datname = current_database()";
    let Some(place) = optional_text(tx, where_) else { return Ok(None) };
    let timeline = optional_text(tx, "SELECT timeline_id::text FROM pg_control_checkpoint()");
    let name = format!("{token}-{place}");
    Ok(Some(Identity { name, timeline }))
}

/// The one text `sql` selects, read in a savepoint of `tx`; `None` when the statement
/// fails (and is rolled back to the savepoint) or selects nothing.
fn optional_text(tx: &mut postgres::Transaction<'_>, sql: &str) -> Option<String> {
    let mut savepoint = tx.transaction().ok()?;
    match savepoint.query_opt(sql, &[]) {
        Ok(row) => {
            let text = row.and_then(|r| r.try_get(0).ok());
            savepoint.commit().ok()?;
            text
        }
        Err(_) => {
            let _ = savepoint.rollback();
            None
        }
    }
}

/// The identity hash of entry `id` (0: no such entry), as a persisted index records the
/// newest entry it knows.
fn entry_identity(tx: &mut postgres::Transaction<'_>, name: &str, id: i64) -> Result<i64> {
    let what = "reading the memory's identity";
    let row = tx.query_opt("SELECT identity FROM tm_entries WHERE id = $1", &[&id]).ctx(name, what)?;
    row.map_or(Ok(0), |r| r.try_get(0)).ctx(name, what)
}

/// Whether the change log has a deletion or re-keying of entry `id` after log number
/// `seq`.
fn logged_since(tx: &mut postgres::Transaction<'_>, name: &str, id: i64, seq: i64) -> Result<bool> {
    tx.query_one(
        &format!("SELECT EXISTS (SELECT 1 FROM {CHANGES_TABLE} WHERE seq > $2 AND entry_id = $1)"),
        &[&id, &seq],
    )
    .and_then(|r| r.try_get(0))
    .ctx(name, "reading the change log")
}

/// The file of the persisted index of `locale` of the memory `identity` names, in `dir`.
fn index_file(dir: &Path, identity: &str, locale: &str) -> PathBuf {
    // Tokens are hexadecimal, numbers digits and tags letters, digits and hyphens;
    // anything else is left out of the name rather than trusted as a path.
    let safe = |s: &str| s.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>();
    dir.join(format!("cmem-{}-gix-{}", safe(identity), safe(locale)))
}

/// Interns every variant locale of the memory, through the locale index (one probe per
/// locale, not a read of every variant).
fn load_locale_names(
    index: &mut CandidateIndex,
    tx: &mut postgres::Transaction<'_>,
    name: &str,
) -> Result<()> {
    let what = "reading variant locales";
    let rows = tx
        .query(
            "WITH RECURSIVE l(locale) AS (SELECT min(locale) FROM tm_variants UNION ALL \
             SELECT (SELECT min(v.locale) FROM tm_variants v WHERE v.locale > l.locale) FROM l \
             WHERE l.locale IS NOT NULL) SELECT locale FROM l WHERE locale IS NOT NULL",
            &[],
        )
        .ctx(name, what)?;
    for r in rows {
        let tag: &str = r.try_get(0).ctx(name, what)?;
        let locale = Locale::parse(tag).map_err(|e| corrupt(name, format!("stored locale {tag:?}"), e))?;
        index.locale_id(&locale);
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::Identity;

    #[test]
    fn a_header_is_this_memorys_on_its_timeline_or_where_one_side_does_not_know_it() {
        let known = Identity { name: "tok-71-16384".into(), timeline: Some("3".into()) };
        let unknown = Identity { name: "tok-71-16384".into(), timeline: None };
        assert!(known.owns(&known.header()));
        assert!(known.owns(&unknown.header()));
        assert!(unknown.owns(&known.header()));
        assert!(unknown.owns(&unknown.header()));
        assert!(!known.owns("tok-71-16384@4"), "another timeline");
        assert!(!known.owns("tok-71-16385@3"), "another database");
        assert!(!unknown.owns("tok-72-16384@3"), "another cluster");
        assert!(!known.owns("tok-71-16384"), "no timeline part");
    }
}
