//! The one migration runner of the database stores: the numbered, append-only
//! migrations of [`schema::MIGRATIONS`](crate::store::schema::MIGRATIONS), each in its own
//! transaction under the store's writers' lock, then the key version — a database whose
//! keys were derived by another [`KEY_VERSION`] is re-keyed from its runs.
//!
//! Two programs opening a new or old memory at once migrate it once: each step looks at
//! the recorded version again under the lock. A failed step is rolled back: the database
//! stays at the last completed version. A store implements [`SchemaStore`] with its
//! driver; a new migration is one entry in `MIGRATIONS`.

use crate::error::{Error, ErrorKind, Result};
use crate::model::key::{Keys, KEY_VERSION};
use crate::model::run::runs_from_json;
use crate::store::schema::{
    Dialect, META_KEY_VERSION, META_SCHEMA_VERSION, META_TABLE, MIGRATIONS, SCHEMA_VERSION,
};

/// A database store's schema operations, by its driver.
pub trait SchemaStore {
    /// The store as messages name it (`sqlite store PATH`).
    fn label(&self) -> String;
    /// The SQL dialect of the store.
    fn dialect(&self) -> Dialect;
    /// Whether the meta table exists, and how many tables there are, in one snapshot.
    fn tables(&mut self) -> Result<(bool, i64)>;
    /// The meta value of `key`.
    fn meta(&mut self, key: &str) -> Result<Option<String>>;
    /// Sets the meta value of `key`.
    fn set_meta(&mut self, key: &str, value: &str) -> Result<()>;
    /// Runs the statements `sql` (of migration `what`).
    fn batch(&mut self, sql: &str, what: &str) -> Result<()>;
    /// Runs `step` in one write transaction holding the writers' (or migrations') lock,
    /// committed when it succeeds and rolled back when not.
    fn locked(&mut self, step: &mut dyn FnMut(&mut dyn SchemaStore) -> Result<()>) -> Result<()>;
    /// Inside [`locked`](Self::locked): gives every variant the keys `keys` derives
    /// from its id and stored runs, and whatever indexes the store keeps of them.
    fn rekey(&mut self, keys: &dyn Fn(i64, &str) -> Result<Keys>) -> Result<()>;
}

/// What an open may do to the schema.
#[derive(Debug, Clone, Copy)]
pub struct Allowed {
    /// The schema version to reach (≤ [`SCHEMA_VERSION`]; below it for test fixtures,
    /// then the keys are left as they are).
    pub target: u32,
    /// Nothing may be written: a database that needs changing is refused.
    pub read_only: bool,
    /// An empty database may become a memory.
    pub create: bool,
}

fn error(kind: ErrorKind, s: &dyn SchemaStore, what: String) -> Error {
    Error::new(kind, format!("{}: {what}", s.label()))
}

/// The schema version recorded in the database; 0 for one without the meta table and
/// without any other table.
///
/// # Errors
/// [`ErrorKind::Schema`] for a database that holds other tables but not cmem's;
/// [`ErrorKind::Corrupt`] for an unreadable version.
pub fn schema_version(s: &mut dyn SchemaStore) -> Result<u32> {
    let (has_meta, tables) = s.tables()?;
    if !has_meta {
        if tables > 0 {
            let what = format!("not a cmem database ({tables} tables but no {META_TABLE} table)");
            return Err(error(ErrorKind::Schema, s, what));
        }
        return Ok(0);
    }
    let what = format!("{META_TABLE} has no {META_SCHEMA_VERSION}");
    meta_u32(s, META_SCHEMA_VERSION)?.ok_or_else(|| error(ErrorKind::Corrupt, s, what))
}

/// Refuses a database of a schema `version` newer than this program's.
///
/// # Errors
/// [`ErrorKind::Schema`] naming both versions.
pub fn refuse_newer(s: &dyn SchemaStore, version: u32) -> Result<()> {
    if version > SCHEMA_VERSION {
        let what = format!(
            "schema version {version} is newer than this program supports ({SCHEMA_VERSION}); use a newer cmem"
        );
        return Err(error(ErrorKind::Schema, s, what));
    }
    Ok(())
}

fn meta_u32(s: &mut dyn SchemaStore, key: &str) -> Result<Option<u32>> {
    let Some(v) = s.meta(key)? else { return Ok(None) };
    let parsed = v.trim().parse::<u32>();
    let what = || format!("{}: {META_TABLE}.{key} is not a number: {v:?}", s.label());
    parsed.map(Some).map_err(|e| Error::with_source(ErrorKind::Corrupt, what(), e))
}

/// Brings the schema to `allowed.target`, one locked transaction per migration, then,
/// at [`SCHEMA_VERSION`], re-keys when the recorded key version is not [`KEY_VERSION`].
///
/// # Errors
/// A database newer than this program or not a cmem one, an empty one that may not be
/// created, a read-only open of a database that needs changing (saying what would fix
/// it), or a failed migration.
pub fn migrate(s: &mut dyn SchemaStore, allowed: Allowed) -> Result<()> {
    let current = schema_version(s)?;
    refuse_newer(s, current)?;
    if current == 0 && (allowed.read_only || !allowed.create) {
        let how = if allowed.read_only { "opened read-only, left as it is" } else { "left as it is" };
        return Err(error(ErrorKind::Schema, s, format!("not a cmem memory (an empty database); {how}")));
    }
    if allowed.read_only {
        return check_read_only(s, current, allowed.target);
    }
    for m in MIGRATIONS.iter().filter(|m| m.version > current && m.version <= allowed.target) {
        s.locked(&mut |s| {
            if schema_version(s)? >= m.version {
                return Ok(());
            }
            for sql in m.sql(s.dialect()) {
                s.batch(&sql, &format!("migration {} ({})", m.version, m.description))?;
            }
            s.set_meta(META_SCHEMA_VERSION, &m.version.to_string())?;
            if m.version == 1 {
                s.set_meta(META_KEY_VERSION, &KEY_VERSION.to_string())?;
            }
            Ok(())
        })?;
    }
    if allowed.target < SCHEMA_VERSION || meta_u32(s, META_KEY_VERSION)? == Some(KEY_VERSION) {
        return Ok(());
    }
    s.locked(&mut |s| {
        if meta_u32(s, META_KEY_VERSION)? == Some(KEY_VERSION) {
            // Another program re-keyed it while this one waited for the lock.
            return Ok(());
        }
        let label = s.label();
        s.rekey(&|id, json| {
            let runs = runs_from_json(json).map_err(|e| {
                let what = format!("{label}: re-keying: variant {id} has unreadable runs");
                Error::with_source(ErrorKind::Corrupt, what, e)
            })?;
            Ok(Keys::of(&runs))
        })?;
        s.set_meta(META_KEY_VERSION, &KEY_VERSION.to_string())
    })
}

/// What a read-only open accepts: a database at `target` whose keys, at
/// [`SCHEMA_VERSION`], are of [`KEY_VERSION`]. Anything else needs writing, which it
/// may not do: refused, saying what would fix it.
fn check_read_only(s: &mut dyn SchemaStore, current: u32, target: u32) -> Result<()> {
    if current < target {
        let what = format!(
            "opened read-only at schema version {current}, needs upgrading to {target}; open it once for \
             writing to upgrade it"
        );
        return Err(error(ErrorKind::Schema, s, what));
    }
    let keys = meta_u32(s, META_KEY_VERSION)?;
    if target == SCHEMA_VERSION && keys != Some(KEY_VERSION) {
        let found = keys.map_or_else(|| "none".to_owned(), |k| k.to_string());
        let what = format!(
            "its matching keys are of version {found}, this program derives version {KEY_VERSION}; opened \
             read-only, it cannot be re-keyed: open it once for writing to re-key it"
        );
        return Err(error(ErrorKind::Schema, s, what));
    }
    Ok(())
}
