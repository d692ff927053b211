//! Write transactions that take SQLite's write lock up front and wait, bounded, for
//! another writer ([`WaitHook`] is told while they wait).
//!
//! Why `BEGIN IMMEDIATE`: a deferred transaction reads first and asks for the write lock
//! only at its first write; when another connection committed in between, SQLite cannot
//! upgrade it and answers `SQLITE_BUSY` at once, whatever the busy timeout. Taking the
//! lock up front makes a second writer wait instead, and lets it say so.

use std::ops::Deref;
use std::thread;
use std::time::{Duration, Instant};

use cmem_core::{Error, ErrorKind, Result};
use rusqlite::{Connection, ErrorCode};

use crate::error::Context;
use crate::options::SqliteOptions;

/// How long one attempt at the write lock waits inside SQLite before the hook is asked.
const SLICE: Duration = Duration::from_millis(250);

pub(crate) fn busy(e: &rusqlite::Error) -> bool {
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
    wait_for_writer(conn, path, options, "starting a write", |c| c.execute_batch("BEGIN IMMEDIATE"))
}

/// Waits, as [`begin_immediate`] does, until `conn` can read the file: an import that
/// holds a new memory alone (see [`SqliteOptions::first_import_alone`]) keeps every
/// other connection out until it ends. A file that is no database passes: opening it
/// says so.
///
/// # Errors
/// As [`begin_immediate`].
pub(crate) fn wait_until_readable(conn: &Connection, path: &str, options: &SqliteOptions) -> Result<()> {
    let read = |c: &Connection| match c.query_row("PRAGMA schema_version", [], |_| Ok(())) {
        Err(e) if busy(&e) => Err(e),
        _ => Ok(()),
    };
    wait_for_writer(conn, path, options, "reading the database", read)
}

/// Runs `attempt` until it is not refused as busy, for up to
/// [`SqliteOptions::write_wait`], asking the hook as it waits.
fn wait_for_writer(
    conn: &Connection,
    path: &str,
    options: &SqliteOptions,
    what: &str,
    attempt: impl Fn(&Connection) -> rusqlite::Result<()>,
) -> Result<()> {
    let started = Instant::now();
    let result = loop {
        let left = options.write_wait.saturating_sub(started.elapsed());
        conn.busy_timeout(left.min(SLICE)).ctx(path, "setting the busy timeout")?;
        match attempt(conn) {
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
            Err(e) => break Err(crate::error::sql_error(path, what, e)),
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
