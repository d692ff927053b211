//! Numbered, append-only migrations (declared in [`cmem_core::schema`]), each in its
//! own transaction, and the key version: a database whose keys were derived by another
//! [`KEY_VERSION`] is re-keyed from its runs when it opens.

use cmem_core::imp::{Keys, KEY_VERSION};
use cmem_core::run::runs_from_json;
use cmem_core::schema::{
    stored_keys, Dialect, META_KEY_VERSION, META_SCHEMA_VERSION, META_TABLE, MIGRATIONS, SCHEMA_VERSION,
};
use cmem_core::{Error, ErrorKind, Result};
use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{corrupt, Context};
use crate::lock::Immediate;
use crate::options::SqliteOptions;

/// Indexes variant `?1`'s keys `?2`–`?4` (as [`stored_keys`]) in the trigram table: on
/// write and on re-keying.
pub(crate) const INSERT_TRIGRAM: &str =
    "INSERT INTO tm_variant_trigram (rowid, plain, struct_key, general_key) VALUES (?1, ?2, ?3, ?4)";

/// The schema version recorded in the database; 0 for an empty database.
///
/// # Errors
/// A database with tables but no meta table (not a cmem database), an unreadable
/// version, or a SQLite failure (a file that is not a database is
/// [`ErrorKind::Corrupt`]).
pub(crate) fn schema_version(conn: &Connection, path: &str) -> Result<u32> {
    // Both counts in one statement, so one snapshot: read apart, a program creating the
    // memory at the same time could commit its first migration between them, and its
    // tables would be seen without the meta table they came with.
    let (has_meta, tables): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1), \
             (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%')",
            [META_TABLE],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ctx(path, "reading the schema")?;
    if has_meta == 0 {
        if tables > 0 {
            return Err(Error::new(
                ErrorKind::Schema,
                format!(
                    "sqlite store {path}: not a cmem database ({tables} tables but no {META_TABLE} table)"
                ),
            ));
        }
        return Ok(0);
    }
    meta_u32(conn, path, META_SCHEMA_VERSION)?.ok_or_else(|| {
        Error::new(
            ErrorKind::Corrupt,
            format!("sqlite store {path}: {META_TABLE} has no {META_SCHEMA_VERSION}"),
        )
    })
}

/// Refuses a database of a schema `version` newer than this program's.
///
/// # Errors
/// [`ErrorKind::Schema`] naming both versions.
pub(crate) fn refuse_newer(path: &str, version: u32) -> Result<()> {
    if version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorKind::Schema,
            format!(
                "sqlite store {path}: schema version {version} is newer than this program supports \
                 ({SCHEMA_VERSION}); use a newer cmem"
            ),
        ));
    }
    Ok(())
}

fn meta_u32(conn: &Connection, path: &str, key: &str) -> Result<Option<u32>> {
    let value: Option<String> = conn
        .query_row(&format!("SELECT value FROM {META_TABLE} WHERE key = ?1"), [key], |r| r.get(0))
        .optional()
        .ctx(path, &format!("reading {key}"))?;
    value
        .map(|v| {
            v.trim()
                .parse::<u32>()
                .map_err(|e| corrupt(path, format!("{META_TABLE}.{key} is not a number: {v:?}"), e))
        })
        .transpose()
}

fn set_meta(conn: &Connection, path: &str, key: &str, value: u32) -> Result<()> {
    conn.execute(
        &format!("INSERT INTO {META_TABLE} (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2"),
        params![key, value.to_string()],
    )
    .ctx(path, &format!("writing {key}"))?;
    Ok(())
}

/// Brings the schema to `target` (≤ [`SCHEMA_VERSION`]), one transaction per migration,
/// then re-keys when the recorded key version differs from [`KEY_VERSION`]. Each step
/// holds the write lock and looks again at the version under it, so two programs
/// opening a new or old database at once migrate it once.
///
/// # Errors
/// A database newer than this program ([`ErrorKind::Schema`]), a read-only database
/// that needs upgrading or re-keying, or a failed migration (whose transaction is
/// rolled back: the database stays at the last completed version).
pub(crate) fn migrate(conn: &mut Connection, path: &str, target: u32, options: &SqliteOptions) -> Result<()> {
    let current = schema_version(conn, path)?;
    refuse_newer(path, current)?;
    if options.read_only {
        return check_read_only(conn, path, current, target);
    }
    for m in MIGRATIONS.iter().filter(|m| m.version > current && m.version <= target) {
        let tx = Immediate::begin(conn, path, options)?;
        if schema_version(&tx, path)? >= m.version {
            continue;
        }
        for sql in m.sql(Dialect::Sqlite) {
            tx.execute_batch(&sql).ctx(path, &format!("migration {} ({})", m.version, m.description))?;
        }
        set_meta(&tx, path, META_SCHEMA_VERSION, m.version)?;
        if m.version == 1 {
            set_meta(&tx, path, META_KEY_VERSION, KEY_VERSION)?;
        }
        tx.commit(path, || format!("committing migration {}", m.version))?;
    }
    if target < SCHEMA_VERSION {
        return Ok(());
    }
    let keys = meta_u32(conn, path, META_KEY_VERSION)?;
    if keys != Some(KEY_VERSION) {
        rekey(conn, path, options)?;
    }
    Ok(())
}

/// What a read-only open accepts: a database at `target` whose keys are of
/// [`KEY_VERSION`]. Anything else needs writing, which it may not do: refused, saying
/// what would fix it.
fn check_read_only(conn: &Connection, path: &str, current: u32, target: u32) -> Result<()> {
    if current == 0 {
        return Err(Error::new(
            ErrorKind::Schema,
            format!(
                "sqlite store {path}: not a cmem memory (an empty database); opened read-only, left as it is"
            ),
        ));
    }
    if current < target {
        return Err(Error::new(
            ErrorKind::Schema,
            format!(
                "sqlite store {path}: opened read-only at schema version {current}, needs upgrading to \
                 {target}; open it once for writing to upgrade it"
            ),
        ));
    }
    let keys = meta_u32(conn, path, META_KEY_VERSION)?;
    if target == SCHEMA_VERSION && keys != Some(KEY_VERSION) {
        let found = keys.map_or_else(|| "none".to_owned(), |k| k.to_string());
        return Err(Error::new(
            ErrorKind::Schema,
            format!(
                "sqlite store {path}: its matching keys are of version {found}, this program derives version \
                 {KEY_VERSION}; opened read-only, it cannot be re-keyed: open it once for writing to re-key it"
            ),
        ));
    }
    Ok(())
}

/// Creates the schema of an older `version` in an empty database: for compatibility
/// fixtures and tests.
#[cfg(feature = "testing")]
pub(crate) fn create_at(conn: &mut Connection, path: &str, version: u32) -> Result<()> {
    if version == 0 || version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorKind::InvalidQuery,
            format!("sqlite store {path}: no schema version {version} (1–{SCHEMA_VERSION})"),
        ));
    }
    if schema_version(conn, path)? != 0 {
        return Err(Error::new(ErrorKind::Schema, format!("sqlite store {path}: the database is not empty")));
    }
    migrate(conn, path, version, &SqliteOptions::default())
}

/// Re-derives every variant's keys from its runs and rebuilds both FTS5 tables, in one
/// transaction; records [`KEY_VERSION`].
fn rekey(conn: &mut Connection, path: &str, options: &SqliteOptions) -> Result<()> {
    let tx = Immediate::begin(conn, path, options)?;
    if meta_u32(&tx, path, META_KEY_VERSION)? == Some(KEY_VERSION) {
        // Another program re-keyed it while this one waited for the lock.
        return Ok(());
    }
    let rows: Vec<(i64, String)> = {
        let mut stmt = tx.prepare("SELECT id, runs FROM tm_variants").ctx(path, "re-keying")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).ctx(path, "re-keying")?;
        rows.collect::<rusqlite::Result<_>>().ctx(path, "re-keying")?
    };
    tx.execute("INSERT INTO tm_variant_trigram (tm_variant_trigram) VALUES ('delete-all')", [])
        .ctx(path, "re-keying: clearing the trigram index")?;
    {
        let mut update = tx
            .prepare(
                "UPDATE tm_variants SET plain = ?2, struct_key = ?3, general_key = ?4, text = ?2 WHERE id = ?1",
            )
            .ctx(path, "re-keying")?;
        let mut gram = tx.prepare(INSERT_TRIGRAM).ctx(path, "re-keying")?;
        for (id, json) in rows {
            let runs = runs_from_json(&json)
                .map_err(|e| corrupt(path, format!("re-keying: variant {id} has unreadable runs"), e))?;
            let k = Keys::of(&runs);
            let (s, g) = stored_keys(&k);
            update.execute(params![id, k.plain, s, g]).ctx(path, "re-keying a variant")?;
            gram.execute(params![id, k.plain, s, g]).ctx(path, "re-keying the trigram index")?;
        }
    }
    tx.execute("INSERT INTO tm_variant_search (tm_variant_search) VALUES ('rebuild')", [])
        .ctx(path, "re-keying: rebuilding the search index")?;
    set_meta(&tx, path, META_KEY_VERSION, KEY_VERSION)?;
    tx.commit(path, || "committing the re-keying".to_owned())
}
