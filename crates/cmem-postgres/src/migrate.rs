//! The PostgreSQL side of core's migration runner ([`cmem_core::store::migrate`]): the catalog,
//! the meta table, a transaction-scoped advisory lock per step (PostgreSQL's DDL is
//! transactional, so a failed step leaves the database at the last completed version),
//! re-keying, and the change counter.

use cmem_core::imp::Keys;
use cmem_core::store::migrate::{Allowed, SchemaStore};
use cmem_core::store::schema::{stored_keys, Dialect, META_TABLE, SCHEMA_VERSION};
use cmem_core::Result;
use postgres::Client;

use crate::error::Context;
use crate::options::PgOptions;

/// The key of the advisory lock migrations take (an arbitrary constant: "cmem" in ASCII).
const MIGRATION_LOCK: i64 = 0x636d_656d;

/// The meta key of the change counter: bumped by every write transaction, which holds
/// its row locked until it ends (so writers take turns), and read before a lookup to
/// tell whether the in-process candidate index is still current.
pub(crate) const META_CHANGES: &str = "changes";

/// The schema of the memory `name` on `client`.
struct Schema<'c> {
    client: &'c mut Client,
    name: &'c str,
}

impl SchemaStore for Schema<'_> {
    fn label(&self) -> String {
        format!("postgres store {}", self.name)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn tables(&mut self) -> Result<(bool, i64)> {
        // One statement, so one snapshot of the catalog: two (`to_regclass` for the meta
        // table, then a count of tables) can fall on either side of another program's
        // committing migration and judge its schema foreign. `to_regclass` is not used
        // at all: it answers from the session's catalog cache, which may still remember
        // the meta table as missing after that program committed it (an advisory lock
        // does not refresh the cache; locking a table does).
        self.client
            .query_one(
                "SELECT COUNT(*) FILTER (WHERE table_name = $1) > 0, COUNT(*) \
                 FROM information_schema.tables WHERE table_schema = current_schema()",
                &[&META_TABLE],
            )
            .and_then(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .ctx(self.name, "reading the schema")
    }

    fn meta(&mut self, key: &str) -> Result<Option<String>> {
        let sql = format!("SELECT value FROM {META_TABLE} WHERE key = $1");
        let row = self.client.query_opt(&sql, &[&key]).ctx_with(self.name, || format!("reading {key}"))?;
        row.map(|r| r.try_get(0)).transpose().ctx_with(self.name, || format!("reading {key}"))
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<()> {
        let sql = format!(
            "INSERT INTO {META_TABLE} (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        );
        self.client.execute(&sql, &[&key, &value]).ctx_with(self.name, || format!("writing {key}")).map(drop)
    }

    fn batch(&mut self, sql: &str, what: &str) -> Result<()> {
        self.client.batch_execute(sql).ctx(self.name, what)
    }

    fn locked(&mut self, step: &mut dyn FnMut(&mut dyn SchemaStore) -> Result<()>) -> Result<()> {
        let name = self.name;
        self.client.batch_execute("BEGIN").ctx(name, "starting a migration")?;
        let out = self
            .client
            .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .ctx(name, "waiting for another program's migration")
            .and_then(|_| step(&mut Schema { client: self.client, name }));
        match out {
            Ok(()) => self.client.batch_execute("COMMIT").ctx(name, "committing a migration"),
            Err(e) => {
                let _ = self.client.batch_execute("ROLLBACK");
                Err(e)
            }
        }
    }

    /// The trigram and word indexes follow the columns by themselves.
    fn rekey(&mut self, keys: &dyn Fn(i64, &str) -> Result<Keys>) -> Result<()> {
        let name = self.name;
        let rows = self.client.query("SELECT id, runs::text FROM tm_variants", &[]).ctx(name, "re-keying")?;
        let update = self
            .client
            .prepare("UPDATE tm_variants SET plain = $2, struct_key = $3, general_key = $4, text = $2 WHERE id = $1")
            .ctx(name, "re-keying")?;
        for row in rows {
            let id: i64 = row.try_get(0).ctx(name, "re-keying")?;
            let k = keys(id, row.try_get(1).ctx(name, "re-keying")?)?;
            let (s, g) = stored_keys(&k);
            self.client.execute(&update, &[&id, &k.plain, &s, &g]).ctx(name, "re-keying a variant")?;
        }
        Ok(())
    }
}

/// Brings the schema to [`SCHEMA_VERSION`] (see [`cmem_core::store::migrate::migrate`]), then
/// records the change counter.
///
/// # Errors
/// As [`cmem_core::store::migrate::migrate`].
pub(crate) fn migrate(client: &mut Client, name: &str, options: &PgOptions) -> Result<()> {
    let allowed = Allowed { target: SCHEMA_VERSION, read_only: options.read_only, create: options.create };
    cmem_core::store::migrate::migrate(&mut Schema { client, name }, allowed)?;
    if options.read_only {
        return Ok(());
    }
    // Read first: an insert that meets the counter's row waits for the writer that has
    // it locked, so an open during an import waited for the import to commit.
    let has_counter = client
        .query_opt(&format!("SELECT 1 FROM {META_TABLE} WHERE key = $1"), &[&META_CHANGES])
        .ctx(name, "reading the change counter")?
        .is_some();
    if !has_counter {
        client
            .execute(
                &format!(
                    "INSERT INTO {META_TABLE} (key, value) VALUES ($1, '0') ON CONFLICT (key) DO NOTHING"
                ),
                &[&META_CHANGES],
            )
            .ctx(name, "recording the change counter")?;
    }
    Ok(())
}
