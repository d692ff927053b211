//! Opening a database file: what may be opened at all, read-only opens that create and
//! change nothing, the damage check before writes, and whether FTS5's trigram tokenizer
//! is there.

use std::path::{Path, PathBuf};

use cmem_core::{Error, ErrorKind, Result};
use rusqlite::{Connection, OpenFlags};

use crate::error::Context;
use crate::options::SqliteOptions;

/// Refuses, before SQLite sees it, what an open may not turn into a database: a missing
/// file unless created, a directory, and an empty file unless created (SQLite would take
/// it for an empty database and write into it). An open that may create takes an empty
/// file as a memory being created: it holds nothing to lose, and a program creating a
/// memory leaves one for a moment, which a second program opening it at once must not
/// refuse.
pub(crate) fn check_file(path: &Path, name: &str, options: &SqliteOptions) -> Result<()> {
    let refuse = |what: &str| Err(Error::new(ErrorKind::Store, format!("sqlite store {name}: {what}")));
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if options.read_only || !options.create {
                return refuse("no such file");
            }
            Ok(())
        }
        Err(e) => Err(Error::with_source(ErrorKind::Store, format!("sqlite store {name}: cannot open"), e)),
        Ok(m) if m.is_dir() => refuse("is a directory"),
        Ok(m) if m.is_file() && m.len() == 0 && (options.read_only || !options.create) => Err(Error::new(
            ErrorKind::Schema,
            format!("sqlite store {name}: not a cmem memory (an empty file); left as it is"),
        )),
        Ok(_) => Ok(()),
    }
}

/// `file:` URI of `path` (percent-encoded) with `query`.
pub(crate) fn file_uri(path: &Path, query: &str) -> String {
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(b) {
            uri.push(char::from(*b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push('?');
    uri.push_str(query);
    uri
}

/// Opens `path` read-only. A WAL database needs its `-shm` file, which a read-only
/// connection cannot create in a directory it may not write; then, when no `-wal` file
/// exists (every write was checkpointed into the database file), the file is opened
/// `immutable=1`, read as it stands. Returns the connection and, in that case, the URI
/// the store's other read connections open.
///
/// An import killed while it held a new memory alone (see
/// [`SqliteOptions::first_import_alone`]) leaves a hot rollback journal, which a
/// read-only connection may not roll back: the journal is rolled back first on a
/// connection that may write, as any write open would (it restores the last commit and
/// changes nothing committed), or, where nothing may be written, the error says how.
pub(crate) fn open_read_only(path: &Path, name: &str) -> Result<(Connection, Option<String>)> {
    let flags =
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags).ctx(name, "cannot open the database")?;
    let probe =
        |conn: &Connection| conn.query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0));
    let mut result = probe(&conn);
    // A hot journal a read-only connection cannot roll back.
    if matches!(&result, Err(rusqlite::Error::SqliteFailure(f, _)) if f.extended_code == rusqlite::ffi::SQLITE_READONLY_ROLLBACK)
    {
        roll_back_journal(path, name)?;
        result = probe(&conn);
    }
    let Err(first) = result else { return Ok((conn, None)) };
    if crate::lock::busy(&first) {
        return Err(Error::with_source(
            ErrorKind::Store,
            format!(
                "sqlite store {name}: another program holds the memory locked (an import that \
                 creates a memory holds it alone until it ends); try again when it ends"
            ),
            first,
        ));
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let cannot_share = matches!(&first, rusqlite::Error::SqliteFailure(f, _)
        if f.code == rusqlite::ErrorCode::ReadOnly || f.code == rusqlite::ErrorCode::CannotOpen);
    if !cannot_share || PathBuf::from(wal).exists() {
        return Err(crate::error::sql_error(name, "cannot read the database", first));
    }
    drop(conn);
    let uri = file_uri(path, "immutable=1");
    let conn = Connection::open_with_flags(&uri, flags).ctx(name, "cannot open the database")?;
    Ok((conn, Some(uri)))
}

/// Rolls back the hot journal an interrupted write left beside `path`, on a connection
/// of its own that may write (SQLite does so at its first read).
fn roll_back_journal(path: &Path, name: &str) -> Result<()> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(path, flags)
        .and_then(|conn| conn.query_row("PRAGMA schema_version", [], |_| Ok(())))
        .map_err(|e| {
            Error::with_source(
                ErrorKind::Store,
                format!(
                    "sqlite store {name}: an interrupted import left its journal ({name}-journal), which \
                     only a program that may write here can roll back; open the memory once for \
                     writing (a `cmem import`), then read it"
                ),
                e,
            )
        })
}

/// Refuses a damaged database (`PRAGMA quick_check`), naming the first damage found.
///
/// Table by table, over every b-tree table (the FTS5 tables' storage included): a
/// whole-database `quick_check` also runs FTS5's own consistency check of its indexes
/// against the text, most of the check's time on a large memory, and every write open
/// would pay it (DESIGN.md §6.3). Damaged pages are found either way.
pub(crate) fn quick_check(conn: &Connection, path: &str) -> Result<()> {
    let what = "checking the database";
    let tables: Vec<String> = {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")
            .ctx(path, what)?;
        let rows = stmt.query_map([], |r| r.get(0)).ctx(path, what)?;
        rows.collect::<rusqlite::Result<_>>().ctx(path, what)?
    };
    let mut found: Vec<String> = Vec::new();
    for table in tables {
        let sql = format!("PRAGMA quick_check(\"{}\")", table.replace('"', "\"\""));
        let rows: rusqlite::Result<Vec<String>> =
            conn.prepare(&sql).and_then(|mut stmt| stmt.query_map([], |r| r.get(0))?.collect());
        match rows {
            Ok(rows) => found.extend(rows.into_iter().filter(|r| r != "ok")),
            // Damage bad enough to stop the check itself.
            Err(e) if crate::error::kind_of(&e) == ErrorKind::Corrupt => found.push(format!("{table}: {e}")),
            Err(e) => return Err(crate::error::sql_error(path, what, e)),
        }
        if found.len() >= 3 {
            found.truncate(3);
            break;
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Corrupt,
        format!(
            "sqlite store {path}: the database is damaged ({}); writes refused, nothing was changed",
            found.join("; ")
        ),
    ))
}

pub(crate) fn trigram_available(conn: &Connection) -> bool {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE temp.cmem_trigram_probe USING fts5(x, tokenize='trigram'); \
         DROP TABLE temp.cmem_trigram_probe;",
    )
    .is_ok()
}

/// Switches `conn` to WAL. Two programs creating one memory at once both ask: SQLite
/// answers the second `SQLITE_BUSY` at once, without its busy handler, while the first
/// holds its lock, so the switch is retried for as long as a writer waits
/// ([`SqliteOptions::write_wait`]).
pub(crate) fn enable_wal(conn: &Connection, path: &str, options: &SqliteOptions) -> Result<String> {
    let started = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Ok(mode) => return Ok(mode),
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::DatabaseBusy && started.elapsed() < options.write_wait =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(crate::error::sql_error(path, "enabling WAL", e)),
        }
    }
}
