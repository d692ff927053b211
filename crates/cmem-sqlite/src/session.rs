//! Write transactions: the write lock taken up front, a bounded wait for another
//! writer, and [`SqliteSession`], the store's [`WriteSession`].
//!
//! Why `BEGIN IMMEDIATE`: a deferred transaction reads first and asks for the write lock
//! only at its first write; when another connection committed in between, SQLite cannot
//! upgrade it and answers `SQLITE_BUSY` at once, whatever the busy timeout. Taking the
//! lock up front makes a second writer wait instead, and lets it say so.
//!
//! Why one transaction per session: in WAL mode, readers keep the snapshot they began
//! with, so they see the old state until the commit and the whole session after it;
//! uncommitted frames in the WAL are ignored by recovery, so a killed process or a power
//! loss leaves nothing; a rollback only forgets those frames, in about the same time at
//! any size.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use cmem_core::{EntryId, Error, ErrorKind, NewEntry, Result, WriteOutcome, WriteSession};
use rusqlite::{Connection, ErrorCode};

use crate::error::Context;
use crate::store::{CachedKeys, SqliteOptions, SqliteStore};

/// Told about a long wait for another writer: called about every quarter second while
/// a write waits, with the time waited so far; returning false gives up waiting.
///
/// ```
/// use cmem_sqlite::{SqliteOptions, WaitHook};
///
/// let options = SqliteOptions::default().on_wait(WaitHook::new(|waited| {
///     if waited.as_secs() == 1 {
///         eprintln!("waiting for another writer…");
///     }
///     true
/// }));
/// # let _ = options;
/// ```
#[derive(Clone)]
pub struct WaitHook(Arc<dyn Fn(Duration) -> bool + Send + Sync>);

impl WaitHook {
    /// A hook calling `f`.
    pub fn new(f: impl Fn(Duration) -> bool + Send + Sync + 'static) -> WaitHook {
        WaitHook(Arc::new(f))
    }

    fn call(&self, waited: Duration) -> bool {
        (self.0)(waited)
    }
}

impl fmt::Debug for WaitHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WaitHook(..)")
    }
}

impl PartialEq for WaitHook {
    fn eq(&self, other: &WaitHook) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// How long one attempt at the write lock waits inside SQLite before the hook is asked.
const SLICE: Duration = Duration::from_millis(250);

fn busy(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.code == ErrorCode::DatabaseBusy || f.code == ErrorCode::DatabaseLocked)
}

/// Starts a write transaction on `conn` holding the write lock (`BEGIN IMMEDIATE`),
/// waiting up to [`SqliteOptions::write_wait`] for another writer to finish.
///
/// # Errors
/// The wait ran out or the hook gave up (both [`ErrorKind::Store`], saying how long it
/// waited), or a SQLite failure.
pub(crate) fn begin_immediate(conn: &Connection, path: &str, options: &SqliteOptions) -> Result<()> {
    let started = Instant::now();
    let result = loop {
        let left = options.write_wait.saturating_sub(started.elapsed());
        conn.busy_timeout(left.min(SLICE)).ctx(path, "setting the busy timeout")?;
        match conn.execute_batch("BEGIN IMMEDIATE") {
            Ok(()) => break Ok(()),
            Err(e) if busy(&e) => {
                let waited = started.elapsed();
                let give_up = waited >= options.write_wait
                    || options.on_wait.as_ref().is_some_and(|hook| !hook.call(waited));
                if give_up {
                    break Err(Error::with_source(
                        ErrorKind::Store,
                        format!(
                            "sqlite store {path}: another writer held the database (locked) for {:.1} s; \
                             gave up waiting",
                            waited.as_secs_f64()
                        ),
                        e,
                    ));
                }
                if left.is_zero() {
                    thread::sleep(Duration::from_millis(10));
                }
            }
            Err(e) => break Err(crate::error::sql_error(path, "starting a write", e)),
        }
    };
    conn.busy_timeout(options.busy_timeout).ctx(path, "setting the busy timeout")?;
    result
}

/// Ends the transaction open on `conn`, if any, forgetting its writes.
pub(crate) fn roll_back(conn: &Connection) {
    if !conn.is_autocommit() {
        // Failing here leaves the transaction to be rolled back when the connection
        // closes, or by recovery: uncommitted writes are never kept.
        let _ = conn.execute_batch("ROLLBACK");
    }
}

/// A write transaction on a borrowed connection, rolled back when dropped uncommitted.
pub(crate) struct Immediate<'c> {
    conn: &'c Connection,
}

impl<'c> Immediate<'c> {
    /// Begins it; see [`begin_immediate`].
    pub(crate) fn begin(conn: &'c Connection, path: &str, options: &SqliteOptions) -> Result<Immediate<'c>> {
        begin_immediate(conn, path, options)?;
        Ok(Immediate { conn })
    }

    /// Commits it.
    pub(crate) fn commit(self, path: &str, what: impl FnOnce() -> String) -> Result<()> {
        // On failure the drop rolls back what is left of the transaction.
        self.conn.execute_batch("COMMIT").ctx_with(path, what)
    }
}

impl Deref for Immediate<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for Immediate<'_> {
    fn drop(&mut self) {
        roll_back(self.conn);
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
/// batch in a savepoint (so a failed batch leaves the session as it was before it).
pub(crate) struct SqliteSession<'a> {
    store: &'a SqliteStore,
    conn: Held<'a>,
    /// Keys of the inserted entries, for the candidate index, which learns of them only
    /// at commit. Kept for the main connection only: a commit on another connection
    /// changes `PRAGMA data_version`, and the index is then reloaded from the table.
    added: Vec<(EntryId, CachedKeys)>,
}

impl<'a> SqliteSession<'a> {
    pub(crate) fn begin(store: &'a SqliteStore, conn: Held<'a>) -> Result<SqliteSession<'a>> {
        begin_immediate(&conn, store.path(), store.options())?;
        Ok(SqliteSession { store, conn, added: Vec::new() })
    }
}

impl WriteSession for SqliteSession<'_> {
    fn write(&mut self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        let p = self.store.path();
        crate::store::validate_batch(entries)?;
        self.conn.execute_batch("SAVEPOINT cmem_batch").ctx(p, "starting a batch")?;
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
                    let _ = self.conn.execute_batch("ROLLBACK TO cmem_batch; RELEASE cmem_batch");
                    return Err(Error::new(err.kind(), format!("entry {} of the batch: {err}", i + 1)));
                }
            }
        }
        self.conn.execute_batch("RELEASE cmem_batch").ctx(p, "ending a batch")?;
        self.added.append(&mut added);
        Ok(outcomes)
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let p = self.store.path();
        self.conn.execute_batch("COMMIT").ctx(p, "committing the session")?;
        if !self.added.is_empty() {
            self.store.learn(&self.added)?;
        }
        Ok(())
    }
}

impl Drop for SqliteSession<'_> {
    fn drop(&mut self) {
        roll_back(&self.conn);
    }
}
