//! The SQLite side of core's migration runner ([`cmem_core::store::migrate`]): the catalog, the
//! meta table, the writers' lock (`BEGIN IMMEDIATE`) and re-keying, which rebuilds both
//! FTS5 tables.

use cmem_core::imp::Keys;
use cmem_core::store::migrate::{Allowed, SchemaStore};
use cmem_core::store::schema::{stored_keys, Dialect, META_TABLE};
use cmem_core::Result;
use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Context;
use crate::lock::Immediate;
use crate::options::SqliteOptions;

/// Indexes variant `?1`'s keys `?2`–`?4` (as [`stored_keys`]) in the trigram table: on
/// write and on re-keying.
pub(crate) const INSERT_TRIGRAM: &str =
    "INSERT INTO tm_variant_trigram (rowid, plain, struct_key, general_key) VALUES (?1, ?2, ?3, ?4)";

/// The schema of the database file `path` on `conn`.
pub(crate) struct Schema<'c> {
    pub(crate) conn: &'c Connection,
    pub(crate) path: &'c str,
    pub(crate) options: &'c SqliteOptions,
}

impl SchemaStore for Schema<'_> {
    fn label(&self) -> String {
        format!("sqlite store {}", self.path)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn tables(&mut self) -> Result<(bool, i64)> {
        // Both counts in one statement, so one snapshot: read apart, a program creating
        // the memory at the same time could commit its first migration between them, and
        // its tables would be seen without the meta table they came with.
        self.conn
            .query_row(
                "SELECT (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1), \
                 (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%')",
                [META_TABLE],
                |r| Ok((r.get::<_, i64>(0)? > 0, r.get(1)?)),
            )
            .ctx(self.path, "reading the schema")
    }

    fn meta(&mut self, key: &str) -> Result<Option<String>> {
        let sql = format!("SELECT value FROM {META_TABLE} WHERE key = ?1");
        self.conn.query_row(&sql, [key], |r| r.get(0)).optional().ctx(self.path, &format!("reading {key}"))
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<()> {
        let sql = format!(
            "INSERT INTO {META_TABLE} (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2"
        );
        self.conn.execute(&sql, params![key, value]).ctx(self.path, &format!("writing {key}")).map(drop)
    }

    fn batch(&mut self, sql: &str, what: &str) -> Result<()> {
        self.conn.execute_batch(sql).ctx(self.path, what)
    }

    fn locked(&mut self, step: &mut dyn FnMut(&mut dyn SchemaStore) -> Result<()>) -> Result<()> {
        let tx = Immediate::begin(self.conn, self.path, self.options)?;
        step(&mut Schema { conn: &tx, path: self.path, options: self.options })?;
        tx.commit(self.path, || "committing a migration".to_owned())
    }

    fn rekey(&mut self, keys: &dyn Fn(i64, &str) -> Result<Keys>) -> Result<()> {
        let (tx, path) = (self.conn, self.path);
        let rows: Vec<(i64, String)> = {
            let mut stmt = tx.prepare("SELECT id, runs FROM tm_variants").ctx(path, "re-keying")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).ctx(path, "re-keying")?;
            rows.collect::<rusqlite::Result<_>>().ctx(path, "re-keying")?
        };
        tx.execute("INSERT INTO tm_variant_trigram (tm_variant_trigram) VALUES ('delete-all')", [])
            .ctx(path, "re-keying: clearing the trigram index")?;
        let mut update = tx
            .prepare(
                "UPDATE tm_variants SET plain = ?2, struct_key = ?3, general_key = ?4, text = ?2 WHERE id = ?1",
            )
            .ctx(path, "re-keying")?;
        let mut gram = tx.prepare(INSERT_TRIGRAM).ctx(path, "re-keying")?;
        for (id, json) in rows {
            let k = keys(id, &json)?;
            let (s, g) = stored_keys(&k);
            update.execute(params![id, k.plain, s, g]).ctx(path, "re-keying a variant")?;
            gram.execute(params![id, k.plain, s, g]).ctx(path, "re-keying the trigram index")?;
        }
        tx.execute("INSERT INTO tm_variant_search (tm_variant_search) VALUES ('rebuild')", [])
            .ctx(path, "re-keying: rebuilding the search index")
            .map(drop)
    }
}

/// Brings the schema of `path` to `target` (see [`cmem_core::store::migrate::migrate`]).
///
/// # Errors
/// As [`cmem_core::store::migrate::migrate`].
pub(crate) fn migrate(conn: &Connection, path: &str, target: u32, options: &SqliteOptions) -> Result<()> {
    let allowed = Allowed { target, read_only: options.read_only, create: true };
    cmem_core::store::migrate::migrate(&mut Schema { conn, path, options }, allowed)
}

/// Creates the schema of an older `version` in an empty database: for compatibility
/// fixtures and tests.
#[cfg(feature = "testing")]
pub(crate) fn create_at(conn: &Connection, path: &str, version: u32) -> Result<()> {
    use cmem_core::store::schema::SCHEMA_VERSION;
    use cmem_core::{Error, ErrorKind};
    if version == 0 || version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorKind::InvalidQuery,
            format!("sqlite store {path}: no schema version {version} (1–{SCHEMA_VERSION})"),
        ));
    }
    let options = SqliteOptions::default();
    if cmem_core::store::migrate::schema_version(&mut Schema { conn, path, options: &options })? != 0 {
        return Err(Error::new(ErrorKind::Schema, format!("sqlite store {path}: the database is not empty")));
    }
    migrate(conn, path, version, &options)
}

/// Refuses a database that is not a cmem one, or of a newer schema than this program's,
/// before anything touches the file.
///
/// # Errors
/// As [`cmem_core::store::migrate::schema_version`] and [`cmem_core::store::migrate::refuse_newer`].
pub(crate) fn refuse_foreign_or_newer(conn: &Connection, path: &str) -> Result<()> {
    let options = SqliteOptions::default();
    let mut schema = Schema { conn, path, options: &options };
    let version = cmem_core::store::migrate::schema_version(&mut schema)?;
    cmem_core::store::migrate::refuse_newer(&schema, version)
}
