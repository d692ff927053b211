//! Numbered migrations on PostgreSQL: the statements of [`cmem_core::schema`]'s
//! PostgreSQL dialect, one transaction per migration, and re-keying when the key
//! derivation changed.
//!
//! Two programs opening a new or old memory at once must migrate it once: each
//! migration takes a transaction-scoped advisory lock and looks at the recorded version
//! again under it. PostgreSQL's DDL is transactional, so a failed migration leaves the
//! database at the last completed version.

use cmem_core::imp::{Keys, KEY_VERSION};
use cmem_core::run::runs_from_json;
use cmem_core::schema::{
    stored_keys, Dialect, META_KEY_VERSION, META_SCHEMA_VERSION, META_TABLE, MIGRATIONS, SCHEMA_VERSION,
};
use cmem_core::{Error, ErrorKind, Result};
use postgres::Client;

use crate::error::{corrupt, Context};
use crate::options::PgOptions;

/// The key of the advisory lock migrations take (an arbitrary constant: "cmem" in ASCII).
const MIGRATION_LOCK: i64 = 0x636d_656d;

/// The meta key of the change counter: bumped by every write transaction, which holds
/// its row locked until it ends (so writers take turns), and read before a lookup to
/// tell whether the in-process candidate index is still current.
pub(crate) const META_CHANGES: &str = "changes";

/// The schema version recorded in the database; 0 for a database without cmem's meta
/// table and without any other table.
///
/// # Errors
/// [`ErrorKind::Schema`] for a database that holds other tables but not cmem's.
pub(crate) fn schema_version(client: &mut Client, name: &str) -> Result<u32> {
    // One statement, so one snapshot of the catalog: two (`to_regclass` for the meta
    // table, then a count of tables) can fall on either side of another program's
    // committing migration and judge its schema foreign. `to_regclass` is not used at
    // all: it answers from the session's catalog cache, which may still remember the
    // meta table as missing after that program committed it (an advisory lock does not
    // refresh the cache; locking a table does).
    let (has_meta, tables): (bool, i64) = client
        .query_one(
            "SELECT COUNT(*) FILTER (WHERE table_name = $1) > 0, COUNT(*) \
             FROM information_schema.tables WHERE table_schema = current_schema()",
            &[&META_TABLE],
        )
        .and_then(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .ctx(name, "reading the schema")?;
    if !has_meta {
        if tables > 0 {
            return Err(Error::new(
                ErrorKind::Schema,
                format!(
                    "postgres store {name}: not a cmem database ({tables} tables but no {META_TABLE} table)"
                ),
            ));
        }
        return Ok(0);
    }
    meta_u32(client, name, META_SCHEMA_VERSION)?.ok_or_else(|| {
        Error::new(
            ErrorKind::Corrupt,
            format!("postgres store {name}: {META_TABLE} has no {META_SCHEMA_VERSION}"),
        )
    })
}

fn meta_u32(client: &mut Client, name: &str, key: &str) -> Result<Option<u32>> {
    let row = client
        .query_opt(&format!("SELECT value FROM {META_TABLE} WHERE key = $1"), &[&key])
        .ctx_with(name, || format!("reading {key}"))?;
    let Some(row) = row else { return Ok(None) };
    let v: String = row.try_get(0).ctx_with(name, || format!("reading {key}"))?;
    v.trim()
        .parse::<u32>()
        .map(Some)
        .map_err(|e| corrupt(name, format!("{META_TABLE}.{key} is not a number: {v:?}"), e))
}

fn set_meta(client: &mut Client, name: &str, key: &str, value: u32) -> Result<()> {
    client
        .execute(
            &format!(
                "INSERT INTO {META_TABLE} (key, value) VALUES ($1, $2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ),
            &[&key, &value.to_string()],
        )
        .ctx_with(name, || format!("writing {key}"))?;
    Ok(())
}

/// Refuses a database of a schema `version` newer than this program's.
fn refuse_newer(name: &str, version: u32) -> Result<()> {
    if version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorKind::Schema,
            format!(
                "postgres store {name}: schema version {version} is newer than this program supports \
                 ({SCHEMA_VERSION}); use a newer cmem"
            ),
        ));
    }
    Ok(())
}

/// Runs `body` in a transaction holding the migration lock; rolls back on failure.
fn locked<T>(client: &mut Client, name: &str, body: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
    client.batch_execute("BEGIN").ctx(name, "starting a migration")?;
    let out = client
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .ctx(name, "waiting for another program's migration")
        .and_then(|_| body(client));
    match out {
        Ok(v) => {
            client.batch_execute("COMMIT").ctx(name, "committing a migration")?;
            Ok(v)
        }
        Err(e) => {
            let _ = client.batch_execute("ROLLBACK");
            Err(e)
        }
    }
}

/// Brings the schema to [`SCHEMA_VERSION`], one transaction per migration, records the
/// change counter, then re-keys when the recorded key version differs from
/// [`KEY_VERSION`].
///
/// # Errors
/// A database newer than this program, not a cmem database, an empty one that may not
/// be created, a read-only open of a database that needs changing, or a failed
/// migration (rolled back: the database stays at the last completed version).
pub(crate) fn migrate(client: &mut Client, name: &str, options: &PgOptions) -> Result<()> {
    let current = schema_version(client, name)?;
    refuse_newer(name, current)?;
    if current == 0 && (options.read_only || !options.create) {
        return Err(Error::new(
            ErrorKind::Schema,
            format!("postgres store {name}: not a cmem memory (an empty database); left as it is"),
        ));
    }
    if options.read_only {
        return check_read_only(client, name, current);
    }
    for m in MIGRATIONS.iter().filter(|m| m.version > current) {
        locked(client, name, |client| {
            if schema_version(client, name)? >= m.version {
                return Ok(());
            }
            for sql in m.sql(Dialect::Postgres) {
                client
                    .batch_execute(&sql)
                    .ctx_with(name, || format!("migration {} ({})", m.version, m.description))?;
            }
            set_meta(client, name, META_SCHEMA_VERSION, m.version)?;
            if m.version == 1 {
                set_meta(client, name, META_KEY_VERSION, KEY_VERSION)?;
            }
            Ok(())
        })?;
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
    if meta_u32(client, name, META_KEY_VERSION)? != Some(KEY_VERSION) {
        locked(client, name, |client| rekey(client, name))?;
    }
    Ok(())
}

/// What a read-only open accepts: a memory at [`SCHEMA_VERSION`] with keys of
/// [`KEY_VERSION`]; anything else needs writing, which it may not do.
fn check_read_only(client: &mut Client, name: &str, current: u32) -> Result<()> {
    if current < SCHEMA_VERSION {
        return Err(Error::new(
            ErrorKind::Schema,
            format!(
                "postgres store {name}: opened read-only at schema version {current}, needs upgrading to \
                 {SCHEMA_VERSION}; open it once for writing to upgrade it"
            ),
        ));
    }
    let keys = meta_u32(client, name, META_KEY_VERSION)?;
    if keys != Some(KEY_VERSION) {
        let found = keys.map_or_else(|| "none".to_owned(), |k| k.to_string());
        return Err(Error::new(
            ErrorKind::Schema,
            format!(
                "postgres store {name}: its matching keys are of version {found}, this program derives version \
                 {KEY_VERSION}; opened read-only, it cannot be re-keyed: open it once for writing to re-key it"
            ),
        ));
    }
    Ok(())
}

/// Re-derives every variant's keys from its runs (the trigram and word indexes follow
/// the columns by themselves); records [`KEY_VERSION`]. Runs inside [`locked`].
fn rekey(client: &mut Client, name: &str) -> Result<()> {
    if meta_u32(client, name, META_KEY_VERSION)? == Some(KEY_VERSION) {
        // Another program re-keyed it while this one waited for the lock.
        return Ok(());
    }
    let rows = client.query("SELECT id, runs::text FROM tm_variants", &[]).ctx(name, "re-keying")?;
    let update = client
        .prepare(
            "UPDATE tm_variants SET plain = $2, struct_key = $3, general_key = $4, text = $2 WHERE id = $1",
        )
        .ctx(name, "re-keying")?;
    for row in rows {
        let id: i64 = row.try_get(0).ctx(name, "re-keying")?;
        let json: String = row.try_get(1).ctx(name, "re-keying")?;
        let runs = runs_from_json(&json)
            .map_err(|e| corrupt(name, format!("re-keying: variant {id} has unreadable runs"), e))?;
        let k = Keys::of(&runs);
        let (s, g) = stored_keys(&k);
        client.execute(&update, &[&id, &k.plain, &s, &g]).ctx(name, "re-keying a variant")?;
    }
    set_meta(client, name, META_KEY_VERSION, KEY_VERSION)
}
