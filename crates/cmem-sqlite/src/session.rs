//! [`SqliteSession`], the store's [`WriteSession`]: one write transaction per session.
//!
//! Why one transaction per session: in WAL mode, readers keep the snapshot they began
//! with, so they see the old state until the commit and the whole session after it;
//! uncommitted frames in the WAL are ignored by recovery, so a killed process or a power
//! loss leaves nothing; a rollback only forgets those frames, in about the same time at
//! any size.

use std::ops::Deref;
use std::sync::MutexGuard;

use cmem_core::imp::{replace_conflict, replaced_entry, WriteSession};
use cmem_core::{EntryId, Error, ErrorKind, NewEntry, Result, WriteOutcome};
use rusqlite::{params, Connection, OpenFlags};

use crate::error::Context;
use crate::lock::{begin_immediate, roll_back, Immediate};
use crate::store::SqliteStore;
use cmem_core::index::index_cache::ChangedKeys as CachedKeys;

impl SqliteStore {
    /// A new write session: on a connection of its own for a file, on the store's one
    /// connection for an in-memory database.
    pub(crate) fn begin_session(&self) -> Result<Box<dyn WriteSession + '_>> {
        self.refuse_read_only()?;
        let conn =
            if self.path() == ":memory:" { Held::Main(self.conn()?) } else { Held::Own(self.open_writer()?) };
        Ok(Box::new(SqliteSession::begin(self, conn)?))
    }
}

/// The connection a session writes on: its own for a file, so the store's other work
/// goes on meanwhile; the store's one connection for an in-memory database.
pub(crate) enum Held<'a> {
    Own(Connection),
    Main(MutexGuard<'a, Connection>),
}

impl Deref for Held<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        match self {
            Held::Own(c) => c,
            Held::Main(c) => c,
        }
    }
}

/// The [`WriteSession`] of a [`SqliteStore`]: one `BEGIN IMMEDIATE` transaction, each
/// batch in a savepoint (so a failed batch leaves the session as it was before it),
/// unless the caller gives up at the first failure ([`WriteSession::all_or_nothing`]).
pub(crate) struct SqliteSession<'a> {
    store: &'a SqliteStore,
    conn: Held<'a>,
    /// Keys of the inserted entries, for the candidate index, which learns of them only
    /// at commit. Kept for the main connection only: a commit on another connection
    /// changes `PRAGMA data_version`, and the index is then reloaded from the table.
    added: Vec<(EntryId, CachedKeys)>,
    /// Entries the session replaced, whose old keys the index forgets at commit (before
    /// it learns `added`); kept for the main connection only, as `added` is.
    removed: Vec<EntryId>,
    /// The page cache of the session's own connection, in KiB (see [`session_cache_kib`]);
    /// 0 on the main connection, whose cache a session leaves alone.
    cache_kib: u32,
    /// Batches are not undoable one by one (see [`WriteSession::all_or_nothing`]).
    whole: bool,
    /// A batch failed in a session of `whole` batches: it only rolls back.
    failed: bool,
    /// The full-text tables' merges were set for an import (see [`Self::merge_fts`]).
    fts_merge: bool,
    /// Whether the variants' key indexes are filled as rows come or built at the commit
    /// (see [`Bulk`]).
    bulk: Bulk,
    /// The session holds the file alone with a rollback journal, and puts it back in WAL
    /// mode when it ends (see [`SqliteSession::hold_alone`]).
    alone: bool,
}

/// Whether a session fills the variants' key indexes row by row or builds them at its
/// end.
///
/// Why: a first import inserts every variant's keys into B-trees at random places, where
/// a `CREATE INDEX` over the loaded table sorts them and writes each page once. A session
/// whose first batch carries at least [`BULK_FROM`] variants into a memory without any
/// drops the indexes of `tm_variants` it does not read itself (all but those leading
/// with `entry_id`, which deduplication reads) inside its transaction, and creates them
/// again from their recorded SQL just before it commits: a failed session gets them back
/// with its rollback, and no reader sees the memory without them (DESIGN.md §6.2).
#[derive(Debug)]
enum Bulk {
    /// Not decided yet: no batch written.
    Undecided,
    /// Filled row by row.
    No,
    /// Dropped; created again at the commit from these statements.
    Deferred(Vec<String>),
}

/// The variants a session's first batch must carry to build the key indexes at its end.
const BULK_FROM: usize = 1_000;

/// The indexes of `tm_variants` a session does not read itself, with their SQL.
const DEFERRABLE_INDEXES: &str = "SELECT name, sql FROM sqlite_schema WHERE type = 'index' \
     AND tbl_name = 'tm_variants' AND sql IS NOT NULL AND sql NOT LIKE '%(entry_id%' ORDER BY name";

/// How many segments of a level an import's full-text tables merge at once (see
/// [`SqliteSession::merge_fts`]).
const IMPORT_FTS_MERGE: u32 = 16;

impl<'a> SqliteSession<'a> {
    pub(crate) fn begin(store: &'a SqliteStore, conn: Held<'a>) -> Result<SqliteSession<'a>> {
        begin_immediate(&conn, store.path(), store.options())?;
        let mut session = SqliteSession {
            store,
            conn,
            added: Vec::new(),
            removed: Vec::new(),
            cache_kib: 0,
            whole: false,
            failed: false,
            fts_merge: false,
            bulk: Bulk::Undecided,
            alone: false,
        };
        session.size_cache()?;
        Ok(session)
    }

    /// Grows the page cache of the session's own connection with the database (see
    /// [`session_cache_kib`]); never shrinks it, so pages it holds stay.
    fn size_cache(&mut self) -> Result<()> {
        if matches!(self.conn, Held::Main(_)) {
            return Ok(());
        }
        let p = self.store.path();
        // Counts the pages this transaction added: the database as the session sees it.
        let (pages, page_size): (i64, i64) = self
            .conn
            .query_row("SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .ctx(p, "reading the database's size")?;
        let db_kib = u64::try_from(pages.saturating_mul(page_size) / 1024).unwrap_or(0);
        let options = self.store.options();
        let kib = session_cache_kib(db_kib, options.cache_kib, options.session_cache_kib);
        if kib > self.cache_kib {
            self.conn.pragma_update(None, "cache_size", -i64::from(kib)).ctx(p, "setting the cache size")?;
            self.cache_kib = kib;
        }
        Ok(())
    }
}

/// The page cache, in KiB, of a write session's own connection on a database of
/// `db_kib`: a quarter of the database, at least `floor` (the connection's ordinary
/// cache) and at most `cap` (unless `cap` is below `floor`).
///
/// Why: a session is one transaction, so SQLite cannot write its changed pages to the
/// database before the commit; those the cache cannot hold go to the WAL and, when they
/// change again, are written there again. Table rows arrive in id order and fill each
/// page once, but the key and identity indexes take every entry at a random place, and a
/// page of theirs is changed again and again; they are about a sixth of a SQLite memory.
/// A cache of a quarter holds them, so a large import writes most pages once, while a
/// small import into a large memory touches few pages and takes little of it (SQLite
/// allocates cache pages as they are used). The cap bounds what an import takes as the
/// input grows (DESIGN.md §6.2).
pub(crate) fn session_cache_kib(db_kib: u64, floor: u32, cap: u32) -> u32 {
    let quarter = u32::try_from(db_kib / 4).unwrap_or(u32::MAX);
    quarter.min(cap).max(floor)
}

impl SqliteSession<'_> {
    /// For a session of whole batches (an import), has each full-text table merge its
    /// segments [`IMPORT_FTS_MERGE`] at a time instead of FTS5's four.
    ///
    /// Why: FTS5 writes a segment of the terms gathered every megabyte or so and merges
    /// the segments of a level once that many pile up, writing every term again at each
    /// level. Sixteen at a time takes half the levels; a million entries imported with a
    /// fifth less processor time (docs/performance.md). The setting is stored with the
    /// table and stays: a later search reads up to fifteen segments a level instead of
    /// three, a small cost beside a search's.
    fn merge_fts(&mut self) -> Result<()> {
        if !self.whole || self.fts_merge {
            return Ok(());
        }
        let p = self.store.path();
        for table in [cmem_core::store::schema::TRIGRAM_TABLE, cmem_core::store::schema::SEARCH_TABLE] {
            let sql = format!("INSERT INTO {table} ({table}, rank) VALUES ('automerge', {IMPORT_FTS_MERGE})");
            self.conn.execute_batch(&sql).ctx(p, "setting the full-text tables' merges")?;
        }
        self.fts_merge = true;
        Ok(())
    }

    /// Decides [`Bulk`] at the first batch: drops the deferrable indexes when the batch
    /// is large and the memory has no variant yet, and for an import when
    /// [`first_import_alone`](crate::SqliteOptions::first_import_alone) lets it, holds the
    /// file alone first (see [`Self::hold_alone`]).
    fn defer_indexes(&mut self, entries: &[NewEntry]) -> Result<()> {
        if !matches!(self.bulk, Bulk::Undecided) {
            return Ok(());
        }
        self.bulk = Bulk::No;
        if entries.iter().map(|e| e.variants.len()).sum::<usize>() < BULK_FROM || !self.no_variants()? {
            return Ok(());
        }
        if self.whole
            && self.store.options().first_import_alone
            && self.hold_alone()?
            && !self.no_variants()?
        {
            // Another writer came between the two transactions: not a first import now.
            return Ok(());
        }
        let p = self.store.path();
        let what = "starting an import";
        let indexes: Vec<(String, String)> = {
            let mut stmt = self.conn.prepare(DEFERRABLE_INDEXES).ctx(p, what)?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).ctx(p, what)?;
            rows.collect::<rusqlite::Result<_>>().ctx(p, what)?
        };
        for (name, _) in &indexes {
            self.conn.execute_batch(&format!("DROP INDEX \"{name}\"")).ctx(p, what)?;
        }
        self.bulk = Bulk::Deferred(indexes.into_iter().map(|(_, sql)| sql).collect());
        Ok(())
    }

    /// True when the memory holds no variant, as the session sees it.
    fn no_variants(&self) -> Result<bool> {
        self.conn
            .query_row("SELECT NOT EXISTS (SELECT 1 FROM tm_variants)", [], |r| r.get(0))
            .ctx(self.store.path(), "starting an import")
    }

    /// Has the file leave WAL for a rollback journal while this session writes, when
    /// nothing else has it open; true when it did. The session's transaction (nothing
    /// written yet) and connection end, the store's own connection makes the switch, and
    /// the session begins again on a new connection.
    ///
    /// Why: in WAL mode every page of a first import is written twice, to the WAL and
    /// again by the checkpoint; with a rollback journal a page the database did not hold
    /// before the transaction is written once, straight into the file, and needs no
    /// journal (rolling back cuts the file to its old size). Other connections cannot
    /// read meanwhile, so the switch is made only when none has the file open (SQLite
    /// refuses to leave WAL otherwise) and only for a memory being created: a
    /// connection opened later waits for the import as for a writer (DESIGN.md §6.2).
    fn hold_alone(&mut self) -> Result<bool> {
        if !matches!(self.conn, Held::Own(_)) {
            return Ok(false);
        }
        let p = self.store.path();
        roll_back(&self.conn);
        // Every connection in WAL mode holds the file: this one closes before the switch.
        let placeholder = Connection::open_in_memory().ctx(p, "opening a write connection")?;
        drop(std::mem::replace(&mut self.conn, Held::Own(placeholder)));
        let switched = self.store.leave_wal()?;
        // From here on the session puts the file back in WAL mode when it ends.
        self.alone = switched;
        let conn = self.store.open_writer()?;
        if switched {
            // A rollback journal at NORMAL may lose the file to a power cut at the wrong
            // moment; at FULL it may not.
            conn.pragma_update(None, "synchronous", "FULL").ctx(p, "setting synchronous")?;
        }
        self.conn = Held::Own(conn);
        self.cache_kib = 0;
        begin_immediate(&self.conn, p, self.store.options())?;
        self.size_cache()?;
        Ok(switched)
    }

    /// Refuses a call once a batch of a session of whole batches failed.
    fn refuse_failed(&self) -> Result<()> {
        cmem_core::imp::refuse_failed_session(self.failed)
    }

    /// Begins a call (refused before, see [`Self::refuse_failed`]): a savepoint, unless
    /// batches are not undoable one by one.
    fn begin_call(&mut self, what: &str) -> Result<()> {
        if !self.whole {
            self.conn.execute_batch("SAVEPOINT cmem_batch").ctx(self.store.path(), what)?;
        }
        Ok(())
    }

    /// Ends a call that failed: back to its savepoint, or the session spoiled.
    fn undo_call(&mut self) {
        if self.whole {
            self.failed = true;
        } else {
            let _ = self.conn.execute_batch("ROLLBACK TO cmem_batch; RELEASE cmem_batch");
        }
    }

    /// Ends a call that succeeded.
    fn end_call(&mut self, what: &str) -> Result<()> {
        if !self.whole {
            let released = self.conn.execute_batch("RELEASE cmem_batch").ctx(self.store.path(), what);
            if released.is_err() {
                self.undo_call();
            }
            released?;
        }
        Ok(())
    }
}

impl WriteSession for SqliteSession<'_> {
    fn write(&mut self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        self.refuse_failed()?;
        crate::store::validate_batch(entries)?;
        // Before the batch: a failure here leaves nothing of it in the session.
        self.size_cache()?;
        // Outside the batch's savepoint: a batch that fails must not bring back the
        // indexes this session creates at its end. First: it may begin the transaction
        // again (see [`Self::hold_alone`]).
        self.defer_indexes(entries)?;
        self.merge_fts()?;
        self.begin_call("starting a batch")?;
        let mut outcomes = Vec::with_capacity(entries.len());
        let mut added = Vec::new();
        let main = matches!(self.conn, Held::Main(_));
        for (i, e) in entries.iter().enumerate() {
            match self.store.insert(&self.conn, e) {
                Ok((outcome, keys)) => {
                    if let (true, Some(keys)) = (main, keys) {
                        added.push((outcome.id(), keys));
                    }
                    outcomes.push(outcome);
                }
                Err(err) => {
                    self.undo_call();
                    return Err(err.prefixed(format_args!("entry {} of the batch", i + 1)));
                }
            }
        }
        self.end_call("ending a batch")?;
        self.added.append(&mut added);
        Ok(outcomes)
    }

    fn replace(&mut self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        self.refuse_failed()?;
        entry.validate()?;
        self.begin_call("starting a replace")?;
        let keys = match self.store.replace_on(&self.conn, id, entry) {
            Ok(keys) => keys,
            Err(err) => {
                self.undo_call();
                return Err(err);
            }
        };
        self.end_call("ending a replace")?;
        let Some(keys) = keys else { return Ok(false) };
        if matches!(self.conn, Held::Main(_)) {
            // The index learns the new keys after forgetting the old: any keys of `id`
            // this session added before are stale too.
            self.added.retain(|(x, _)| *x != id);
            self.removed.push(id);
            self.added.push((id, keys));
        }
        Ok(true)
    }

    fn all_or_nothing(&mut self) {
        self.whole = true;
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let p = self.store.path();
        self.refuse_failed()?;
        if let Bulk::Deferred(statements) = &self.bulk {
            // Still in the transaction: a failure here rolls the whole session back.
            for sql in statements {
                self.conn.execute_batch(sql).ctx(p, "building the variants' key indexes")?;
            }
        }
        self.conn.execute_batch("COMMIT").ctx(p, "committing the session")?;
        if !self.added.is_empty() || !self.removed.is_empty() {
            self.store.learn(&self.removed, &self.added)?;
        }
        Ok(())
    }
}

impl Drop for SqliteSession<'_> {
    fn drop(&mut self) {
        roll_back(&self.conn);
        if self.alone {
            // Best effort: a memory left with a rollback journal is put back in WAL mode
            // by the next open for writing.
            let _ = crate::open::enable_wal(&self.conn, self.store.path(), self.store.options());
        }
    }
}

impl SqliteStore {
    /// A connection of its own for a write session on a file.
    pub(crate) fn open_writer(&self) -> Result<Connection> {
        let p = &self.path;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(p, flags).ctx(p, "opening a write connection")?;
        conn.busy_timeout(self.options.busy_timeout).ctx(p, "setting the busy timeout")?;
        conn.set_prepared_statement_cache_capacity(64);
        conn.pragma_update(None, "cache_size", -i64::from(self.options.cache_kib))
            .ctx(p, "setting the cache size")?;
        conn.pragma_update(None, "synchronous", "NORMAL").ctx(p, "setting synchronous")?;
        conn.pragma_update(None, "foreign_keys", "ON").ctx(p, "enabling foreign keys")?;
        let cap = self.max_pages.load(std::sync::atomic::Ordering::Relaxed);
        if cap > 0 {
            conn.query_row(&format!("PRAGMA max_page_count = {cap}"), [], |_| Ok(()))
                .ctx(p, "setting max_page_count")?;
        }
        Ok(conn)
    }

    /// Tells the candidate cache of committed changes: the entries `removed` forgotten
    /// first, then the entries `added` filed.
    pub(crate) fn learn(&self, removed: &[EntryId], added: &[(EntryId, CachedKeys)]) -> Result<()> {
        self.cache_write()?.learn(removed, added);
        Ok(())
    }

    /// [`ContentMemory::replace`](cmem_core::ContentMemory::replace) on the store's own
    /// connection, in one transaction: the candidate index then learns the change
    /// in place, where a session on a connection of its own would have it reloaded.
    pub(crate) fn replace_now(&self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        entry.validate()?;
        self.refuse_read_only()?;
        let conn = self.conn()?;
        let tx = Immediate::begin(&conn, &self.path, &self.options)?;
        let Some(keys) = self.replace_on(&tx, id, entry)? else { return Ok(false) };
        tx.commit(&self.path, || format!("committing the replace of entry {id}"))?;
        self.learn(&[id], &[(id, keys)])?;
        Ok(true)
    }

    /// Replaces entry `id` inside the transaction open on `tx` (see
    /// [`WriteSession::replace`]); `None` when there is no entry `id`, else the new keys
    /// for the cache.
    pub(crate) fn replace_on(
        &self,
        tx: &Connection,
        id: EntryId,
        new: &NewEntry,
    ) -> Result<Option<CachedKeys>> {
        let p = &self.path;
        let Some(existing) = self.load_entry(tx, id)? else { return Ok(None) };
        let hash = new.identity_hash() as i64;
        let same: Vec<i64> = {
            let mut stmt = tx
                .prepare_cached("SELECT id FROM tm_entries WHERE identity = ?1 AND id <> ?2")
                .ctx(p, "finding duplicates")?;
            let rows = stmt.query_map([hash, id.0], |r| r.get(0)).ctx(p, "finding duplicates")?;
            rows.collect::<rusqlite::Result<_>>().ctx(p, "finding duplicates")?
        };
        for other in same {
            if let Some(e) = self.load_entry(tx, EntryId(other))? {
                if new.same_identity(&e) {
                    return Err(replace_conflict(id, e.id));
                }
            }
        }
        let entry = replaced_entry(&existing, new);
        let metadata = serde_json::to_string(&entry.metadata).map_err(|e| {
            Error::with_source(ErrorKind::InvalidEntry, "entry metadata cannot be serialized", e)
        })?;
        tx.prepare_cached(
            "UPDATE tm_entries SET project_id = ?2, identity = ?3, metadata = ?4, point = ?5, unit = ?6, \
             approvals = ?7 WHERE id = ?1",
        )
        .and_then(|mut s| {
            s.execute(params![
                id.0,
                entry.project_id,
                hash,
                metadata,
                entry.point.as_str(),
                entry.unit,
                i64::from(entry.approvals())
            ])
        })
        .ctx_with(p, || format!("replacing entry {id}"))?;
        self.delete_variants(tx, id)?;
        let keys = self.insert_variants(tx, id, &entry.variants)?;
        let kept = existing.origins.len();
        self.insert_origins(tx, id, kept, &entry.origins[kept..])?;
        Ok(Some(keys))
    }

    pub(crate) fn refuse_read_only(&self) -> Result<()> {
        if self.options.read_only {
            return Err(Error::new(
                ErrorKind::Store,
                format!("sqlite store {}: opened read-only; writes are refused", self.path),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SqliteOptions;
    use cmem_core::{Locale, Run, Variant};

    #[test]
    fn the_session_cache_is_a_quarter_of_the_database_within_its_bounds() {
        assert_eq!(session_cache_kib(0, 64, 1024), 64, "never below the ordinary cache");
        assert_eq!(session_cache_kib(1000, 64, 1024), 250);
        assert_eq!(session_cache_kib(4096, 64, 1024), 1024);
        assert_eq!(session_cache_kib(1 << 40, 64, 1024), 1024, "the cap holds however large");
        assert_eq!(session_cache_kib(u64::MAX, 64, u32::MAX), u32::MAX);
        assert_eq!(session_cache_kib(1000, 64, 16), 64, "a cap below the ordinary cache leaves it");
    }

    fn entry(n: usize) -> NewEntry {
        let en = Locale::parse("en").unwrap();
        let de = Locale::parse("de").unwrap();
        let source = format!("Entry number {n} of the cache test, with some words to fill its pages");
        let target = format!("Eintrag Nummer {n} des Tests, mit einigen Wörtern");
        NewEntry::pair(Variant::new(en, vec![Run::text(source)]), Variant::new(de, vec![Run::text(target)]))
    }

    fn cache_size(conn: &Connection) -> i64 {
        conn.query_row("PRAGMA cache_size", [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn a_session_cache_grows_with_the_database_up_to_its_cap() {
        let dir = std::env::temp_dir().join(format!("cmem-sqlite-session-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.db");
        let options = SqliteOptions::default().cache_kib(32).session_cache_kib(256);
        let store = SqliteStore::open_with(&path, options).unwrap();
        let conn = Held::Own(store.open_writer().unwrap());
        let mut session = SqliteSession::begin(&store, conn).unwrap();
        // A new memory is smaller than four times the ordinary cache.
        assert_eq!(session.cache_kib, 32);
        let mut seen = vec![session.cache_kib];
        for batch in 0..40 {
            let entries: Vec<NewEntry> = (batch * 100..(batch + 1) * 100).map(entry).collect();
            session.write(&entries).unwrap();
            // Sized before each batch from the database as the session sees it.
            session.size_cache().unwrap();
            assert_eq!(cache_size(&session.conn), -i64::from(session.cache_kib), "the connection's cache");
            seen.push(session.cache_kib);
        }
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "the cache shrank: {seen:?}");
        assert!(seen.iter().any(|&k| k > 32 && k < 256), "it never followed the database: {seen:?}");
        assert_eq!(seen.last(), Some(&256), "the database outgrew four times the cap: {seen:?}");
        Box::new(session).commit().unwrap();
        // The store's own connection keeps the ordinary cache.
        assert_eq!(cache_size(&store.conn().unwrap()), -32);
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
