//! [`PgSession`], the store's [`WriteSession`]: one transaction per session.
//!
//! Why it holds the change counter's row lock from its first statement to its end: the
//! store contract wants one writer at a time, so that deduplication never races another
//! writer's uncommitted entries; the lock makes a second writer wait (bounded by
//! `lock_timeout`, [`PgOptions::write_wait`](crate::PgOptions::write_wait)), and the
//! counter it bumps tells every process's candidate index that the memory changed.
//! Readers meanwhile see the memory as it was before the session (PostgreSQL's
//! snapshots), and all of it once it commits; a dropped session, a failed commit or a
//! dead connection rolls back on the server.

use std::collections::{BTreeMap, HashMap};

use cmem_core::imp::{replace_conflict, replaced_entry, WriteSession};
use cmem_core::model::run::runs_to_json;
use cmem_core::store::schema::{counted_rows, stored_keys, COUNTS_TABLE, META_TABLE, SEARCH_TABLE};
use cmem_core::{merge_origins, Entry, EntryId, Error, ErrorKind, NewEntry, Origin, Result, WriteOutcome};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{Json, Type};
use postgres::{Client, Statement};

use crate::conn::Pooled;
use crate::db::Db;
use crate::error::Context;
use crate::migrate::META_CHANGES;
use cmem_core::index::index_cache::ChangedKeys as CachedKeys;

/// How long one attempt at the writer's turn waits before the hook is told.
const WAIT_STEP: std::time::Duration = std::time::Duration::from_millis(250);

/// Bumps the change counter, waiting for another writer's transaction to end: in steps
/// of [`WAIT_STEP`] (each in a savepoint, so a timed-out attempt leaves the transaction
/// usable), telling [`PgOptions::on_wait`](crate::PgOptions::on_wait) after each, up to
/// [`PgOptions::write_wait`](crate::PgOptions::write_wait). Returns the new counter.
fn take_turn(store: &Db, conn: &mut Pooled) -> Result<i64> {
    let p = store.name.as_str();
    let started = std::time::Instant::now();
    let bump = format!(
        "UPDATE {META_TABLE} SET value = (value::bigint + 1)::text WHERE key = $1 RETURNING value::bigint"
    );
    loop {
        conn.batch_execute("SAVEPOINT cmem_turn").ctx(p, "waiting for another writer")?;
        match conn.query_one(&bump, &[&META_CHANGES]).and_then(|r| r.try_get(0)) {
            Ok(after) => {
                // The session's own statements take no lock another writer holds (writers
                // take turns here); a wait on one is a fault, bounded as the turn was.
                let wait_ms = store.options.write_wait.as_millis().clamp(1, i32::MAX as u128);
                conn.batch_execute(&format!(
                    "RELEASE SAVEPOINT cmem_turn; SET LOCAL lock_timeout = {wait_ms}"
                ))
                .ctx(p, "waiting for another writer")?;
                return Ok(after);
            }
            Err(e) if e.code() == Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE) => {
                conn.batch_execute("ROLLBACK TO SAVEPOINT cmem_turn").ctx(p, "waiting for another writer")?;
                let waited = started.elapsed();
                let go_on = store.options.on_wait.as_ref().is_none_or(|hook| hook.call(waited));
                if waited >= store.options.write_wait || !go_on {
                    return Err(crate::error::pg_error(p, "waiting for another writer", e));
                }
            }
            Err(e) => return Err(crate::error::pg_error(p, "waiting for another writer", e)),
        }
    }
}

/// Sets the named value `key` to `value` in a transaction of its own that takes the
/// writer's turn as a session does (waiting for another writer as long as a session
/// would) and so raises the change counter: what every process keeps while the counter
/// stays (a server's answers, a store's parsed term lists) follows the new value.
pub(crate) fn set_meta(store: &Db, key: &str, value: &str) -> Result<()> {
    store.refuse_read_only()?;
    let p = store.name.as_str();
    let what = || format!("setting {key}");
    let mut conn = store.client()?;
    conn.batch_execute(&format!("BEGIN; SET LOCAL lock_timeout = {}", WAIT_STEP.as_millis()))
        .ctx_with(p, what)?;
    let done = (|| {
        let after = take_turn(store, &mut conn)?;
        conn.execute(
            &format!(
                "INSERT INTO {META_TABLE} (key, value) VALUES ($1, $2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ),
            &[&key, &value],
        )
        .ctx_with(p, what)?;
        conn.batch_execute("COMMIT").ctx_with(p, what)?;
        Ok(after)
    })();
    match done {
        Ok(after) => {
            // No entry changed: this store's candidate index, when it was current, still is.
            store.cache_write()?.apply(after - 1, after, &[], &[]);
            Ok(())
        }
        Err(e) => {
            let _ = conn.batch_execute("ROLLBACK");
            Err(e)
        }
    }
}

/// An inserted entry and its keys, for the candidate index.
type Added = (EntryId, CachedKeys);

/// The variants a session's first batch must carry for the session to build the
/// variants' search indexes at its end instead of filling them row by row, when the
/// memory has no variant yet (see [`Bulk`]).
const BULK_FROM: usize = 1_000;

/// The indexes of `tm_variants` a write session does not read itself: all but the
/// primary key, unique and constraint indexes, and those leading with `entry_id` (which
/// deduplication and deletes read). Name (as the search path resolves it) and
/// definition.
const DEFERRABLE_INDEXES: &str = "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) \
     FROM pg_index i WHERE i.indrelid = 'tm_variants'::regclass AND NOT i.indisunique \
     AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid) \
     AND i.indkey[0] <> (SELECT a.attnum FROM pg_attribute a \
     WHERE a.attrelid = i.indrelid AND a.attname = 'entry_id') ORDER BY i.indexrelid";

/// Gives the deferred index build (see [`Bulk`]) at least 256 MB of working memory, for
/// its transaction only. PostgreSQL's default of 64 MB makes a GIN build over a large
/// loaded table spill to disk again and again; a server set higher keeps its own value.
const BUILD_MEMORY: &str = "SELECT set_config('maintenance_work_mem', \
     CASE WHEN pg_size_bytes(current_setting('maintenance_work_mem')) < 256 * 1024 * 1024 \
     THEN '256MB' ELSE current_setting('maintenance_work_mem') END, true)";

/// The indexes of `tm_entries` a loading session (see [`Bulk::Loading`]) builds at its
/// end: all but the primary key and unique indexes. The session finds its duplicates in
/// its own map of identities instead of the identity index.
const DEFERRABLE_ENTRY_INDEXES: &str = "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) \
     FROM pg_index i WHERE i.indrelid = 'tm_entries'::regclass AND NOT i.indisunique \
     AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid) ORDER BY i.indexrelid";

/// The constraints a loading session (see [`Bulk::Loading`]) drops and adds back at its
/// end, as the statements that drop and add each: the foreign keys that point at
/// `tm_entries`, checked by one join each instead of a row lock per variant and origin
/// written, and the primary and unique keys of `tm_variants` and `tm_origins` that do not
/// lead with `entry_id` (the session reads neither table by them), built from the
/// loaded table instead of an index entry and WAL record per row. Keys first, so the
/// foreign keys are added after them.
const DEFERRABLE_CONSTRAINTS: &str = "SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', c.conrelid::regclass, c.conname), \
     format('ALTER TABLE %s ADD CONSTRAINT %I %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) \
     FROM pg_constraint c WHERE (c.confrelid = 'tm_entries'::regclass AND c.contype = 'f') \
     OR (c.conrelid IN ('tm_variants'::regclass, 'tm_origins'::regclass) AND c.contype IN ('p', 'u') \
     AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
     AND a.attname = 'entry_id')) ORDER BY c.contype = 'f', c.oid";

/// The tables a loading session empties and fills by `COPY … FREEZE`.
const LOADED_TABLES: &str = "tm_entries, tm_variants, tm_origins";

/// Whether a session fills the search indexes as it goes or builds them at its end, and
/// how it writes rows.
///
/// Why: PostgreSQL builds these indexes over a loaded table in a fraction of the time
/// that inserting the rows into them costs (its own advice for loading a database:
/// create indexes after the data; DESIGN.md §8.7 has the figures). A session whose
/// first batch is large and finds the memory without variants drops those indexes
/// inside its transaction and creates them again before it commits. Everything stays
/// in the one transaction: a session that rolls back or dies gets its indexes back with
/// the rollback, and other readers never see the memory without them. They wait instead: dropping an index locks its table,
/// so a reader of this (empty) memory waits for the first import to commit, and then
/// sees it whole. A writer that may not drop them (not the tables' owner) keeps them.
#[derive(Debug)]
enum Bulk {
    /// No large batch yet.
    Undecided,
    /// The indexes are filled as rows come.
    No,
    /// These index definitions are created again at commit.
    Deferred(Vec<String>),
    /// A session of whole batches found the memory empty: it emptied the entry tables in
    /// its own transaction and writes them by `COPY … FREEZE`, and builds their indexes
    /// and keys at its end.
    Loading(Box<Load>),
}

/// What a loading session (see [`Bulk::Loading`]) keeps.
///
/// Why: rows copied into a table emptied in the same transaction are written once,
/// frozen and visible to all: no WAL record and index entry per row while loading, no
/// second write of every page when the rows' hint bits are set and a vacuum marks them
/// visible (DESIGN.md §8.7 has the figures). The truncation holds the tables locked
/// until the session ends, so no reader sees them before its commit, and a rollback
/// gives back the empty tables.
#[derive(Debug)]
struct Load {
    /// Run at commit: the dropped indexes, then the dropped keys, foreign keys last.
    rebuild: Vec<String>,
    /// The entries written so far by identity hash: the memory was empty, so these are
    /// all the entries a batch may duplicate.
    known: Known,
}

/// Entry ids by identity hash, in id order: most hashes have one entry, so a second is
/// kept apart.
#[derive(Debug, Default)]
struct Known {
    first: HashMap<i64, EntryId>,
    more: HashMap<i64, Vec<EntryId>>,
}

impl Known {
    fn add(&mut self, hash: i64, id: EntryId) {
        match self.first.entry(hash) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(id);
            }
            std::collections::hash_map::Entry::Occupied(_) => self.more.entry(hash).or_default().push(id),
        }
    }

    fn ids(&self, hash: i64) -> impl Iterator<Item = EntryId> + '_ {
        self.first.get(&hash).copied().into_iter().chain(self.more.get(&hash).into_iter().flatten().copied())
    }
}

/// Starts a binary `COPY … FREEZE` of `table_columns` (a table and its column list).
fn copy_frozen<'c>(
    conn: &'c mut Client,
    table_columns: &str,
    types: &[Type],
) -> std::result::Result<BinaryCopyInWriter<'c>, postgres::Error> {
    let sink = conn.copy_in(&format!("COPY {table_columns} FROM STDIN (FORMAT binary, FREEZE)"))?;
    Ok(BinaryCopyInWriter::new(sink, types))
}

/// The statements a session runs per entry, prepared once per session.
struct Statements {
    same: Statement,
    reserve: Statement,
    entries: Statement,
    variants: Statement,
    approve: Statement,
    origins: Statement,
    get_many: Statement,
}

/// The [`WriteSession`] of a [`Db`]: one transaction, each batch in a savepoint
/// (so a failed batch leaves the session as it was before it).
pub(crate) struct PgSession<'a> {
    store: &'a Db,
    conn: Pooled,
    stmts: Statements,
    /// The change counter before and after this session.
    before: i64,
    after: i64,
    added: Vec<Added>,
    /// Whether to keep `added`: only when this store's candidate index was loaded at the
    /// counter this session began from, so the index can take the session's entries at
    /// commit instead of reloading; otherwise it loads them from the table anyway, and
    /// keeping an import's keys would only cost memory.
    keep_added: bool,
    removed: Vec<EntryId>,
    /// Whether the session wrote variants (so the word index has pending entries).
    wrote_variants: bool,
    bulk: Bulk,
    open: bool,
    /// Batches are not undoable one by one (see [`WriteSession::all_or_nothing`]): no
    /// savepoint each.
    whole: bool,
    /// A step of a session of `whole` batches failed: the transaction is aborted, and the
    /// session only rolls back.
    failed: bool,
}

impl<'a> PgSession<'a> {
    /// Begins the transaction and takes the writer's turn.
    pub(crate) fn begin(store: &'a Db) -> Result<PgSession<'a>> {
        store.refuse_read_only()?;
        let p = store.name.as_str();
        let mut conn = store.client()?;
        conn.batch_execute(&format!(
            "BEGIN; SET LOCAL lock_timeout = {}; SET LOCAL work_mem = '64MB'; \
             SET LOCAL gin_pending_list_limit = '64MB'",
            WAIT_STEP.as_millis()
        ))
        .ctx(p, "starting a write")?;
        let turn = (|| {
            let after = take_turn(store, &mut conn)?;
            let stmts = Statements {
                same: conn
                    .prepare("SELECT identity, id FROM tm_entries WHERE identity = ANY($1) ORDER BY id")
                    .ctx(p, "preparing")?,
                reserve: conn
                    .prepare(
                        "SELECT nextval(pg_get_serial_sequence('tm_entries', 'id')) FROM generate_series(1, $1::bigint)",
                    )
                    .ctx(p, "preparing")?,
                entries: conn
                    .prepare(
                        "INSERT INTO tm_entries (id, project_id, identity, metadata, point, unit, approvals) \
                         SELECT i, pr, h, m::jsonb, pt, u, a FROM unnest($1::bigint[], $2::text[], $3::bigint[], \
                         $4::text[], $5::text[], $6::text[], $7::bigint[]) AS t(i, pr, h, m, pt, u, a)",
                    )
                    .ctx(p, "preparing")?,
                variants: conn
                    .prepare(
                        "INSERT INTO tm_variants (entry_id, ord, locale, runs, plain, struct_key, general_key, text) \
                         SELECT e, o, l, r::jsonb, pl, sk, gk, pl FROM unnest($1::bigint[], $2::bigint[], \
                         $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t(e, o, l, r, pl, sk, gk)",
                    )
                    .ctx(p, "preparing")?,
                origins: conn
                    .prepare(
                        "INSERT INTO tm_origins (entry_id, seq, project_id, context_fingerprint, created_at) \
                         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])",
                    )
                    .ctx(p, "preparing")?,
                approve: conn
                    .prepare(
                        "UPDATE tm_entries e SET approvals = e.approvals + t.a \
                         FROM unnest($1::bigint[], $2::bigint[]) AS t(i, a) WHERE e.id = t.i",
                    )
                    .ctx(p, "preparing")?,
                get_many: conn.prepare(crate::rows::GET_MANY).ctx(p, "preparing")?,
            };
            Ok::<_, Error>((after, stmts))
        })();
        match turn {
            Ok((after, stmts)) => Ok(PgSession {
                store,
                conn,
                stmts,
                before: after - 1,
                after,
                added: Vec::new(),
                keep_added: store.cache_write().map(|c| c.counter() == Some(after - 1)).unwrap_or(false),
                removed: Vec::new(),
                wrote_variants: false,
                bulk: Bulk::Undecided,
                open: true,
                whole: false,
                failed: false,
            }),
            Err(e) => {
                let _ = conn.batch_execute("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Writes a batch (validated) in the open savepoint; returns the outcomes and the
    /// keys of the inserted entries for the cache.
    ///
    /// Why not a statement per entry: that is five round trips per entry, millions for a
    /// large memory (DESIGN.md §8.1). Here a batch costs one query for the ids of the stored
    /// entries sharing an identity hash with it, one reading those entries back (only
    /// they are compared), one for its ids, one multi-row insert per table, and one
    /// statement each for the approvals and origins it adds to stored entries
    /// (deduplication sees the stored entries and the batch's own, in id order, as a
    /// statement per entry would). Real memories repeat many of their pairs in later
    /// batches, and reading and updating those one at a time cost four round trips each.
    fn write_batch(&mut self, batch: &[NewEntry]) -> Result<(Vec<WriteOutcome>, Vec<Added>)> {
        let p = self.store.name.clone();
        let hashes: Vec<i64> = batch.iter().map(|e| e.identity_hash() as i64).collect();
        let stored = self.stored_ids(&hashes)?;
        // Entry `k` of `fresh` gets the `k`-th id reserved below; outcomes name it by `k`
        // until then.
        enum Outcome {
            Stored(EntryId),
            Fresh(usize, bool),
        }
        // The stored entries sharing a hash with the batch, read at once; an entry the
        // batch deduplicates against gains its origins and approvals here first, so a
        // later entry of the batch sees them, and the table once at the end.
        let wanted: Vec<i64> = {
            let mut ids: Vec<i64> = stored.values().flatten().map(|id| id.0).collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let mut loaded = if wanted.is_empty() {
            HashMap::new()
        } else {
            let rows = self.conn.query(&self.stmts.get_many, &[&wanted]).ctx(&p, "finding duplicates")?;
            crate::rows::entries_of_rows(rows, &p)?
        };
        let mut approved: BTreeMap<EntryId, i64> = BTreeMap::new();
        let mut new_origins: Vec<(EntryId, usize, Origin)> = Vec::new();
        let mut fresh: Vec<Entry> = Vec::new();
        let mut fresh_by_hash: HashMap<i64, Vec<usize>> = HashMap::new();
        let mut pending = Vec::with_capacity(batch.len());
        'entries: for (new, h) in batch.iter().zip(&hashes) {
            for id in stored.get(h).map(Vec::as_slice).unwrap_or(&[]) {
                let Some(existing) = loaded.get_mut(id) else { continue };
                if new.same_identity(existing) {
                    let before = existing.origins.len();
                    merge_origins(&mut existing.origins, &new.origins);
                    new_origins.extend(
                        existing.origins[before..]
                            .iter()
                            .enumerate()
                            .map(|(k, o)| (*id, before + k, o.clone())),
                    );
                    *approved.entry(*id).or_default() += i64::from(new.approvals.max(1));
                    pending.push(Outcome::Stored(*id));
                    continue 'entries;
                }
            }
            for &k in fresh_by_hash.get(h).map(Vec::as_slice).unwrap_or(&[]) {
                if new.same_identity(&fresh[k]) {
                    fresh[k].reapprove(new);
                    pending.push(Outcome::Fresh(k, false));
                    continue 'entries;
                }
            }
            fresh_by_hash.entry(*h).or_default().push(fresh.len());
            pending.push(Outcome::Fresh(fresh.len(), true));
            fresh.push(new.clone().into_entry(EntryId(0)));
        }
        self.update_stored(&approved, &new_origins)?;
        // Ids for the new entries only, in batch order, so ids run on without gaps as in
        // the other stores.
        let n = fresh.len() as i64;
        let mut ids: Vec<i64> = Vec::with_capacity(fresh.len());
        if n > 0 {
            for r in self.conn.query(&self.stmts.reserve, &[&n]).ctx(&p, "reserving ids")? {
                ids.push(r.try_get(0).ctx(&p, "reserving ids")?);
            }
        }
        ids.sort_unstable();
        if ids.len() != fresh.len() {
            return Err(Error::new(ErrorKind::Store, format!("postgres store {p}: too few ids reserved")));
        }
        for (e, id) in fresh.iter_mut().zip(&ids) {
            e.id = EntryId(*id);
        }
        let outcomes = pending
            .into_iter()
            .map(|o| match o {
                Outcome::Stored(id) => WriteOutcome::Deduplicated(id),
                Outcome::Fresh(k, true) => WriteOutcome::Inserted(fresh[k].id),
                Outcome::Fresh(k, false) => WriteOutcome::Deduplicated(fresh[k].id),
            })
            .collect();
        let added = self.insert_fresh(&fresh)?;
        if let Bulk::Loading(load) = &mut self.bulk {
            for e in &fresh {
                load.known.add(e.identity_hash() as i64, e.id);
            }
        }
        Ok((outcomes, added))
    }

    /// The ids of the stored entries of each identity hash of `hashes`, in id order.
    fn stored_ids(&mut self, hashes: &[i64]) -> Result<HashMap<i64, Vec<EntryId>>> {
        let mut stored: HashMap<i64, Vec<EntryId>> = HashMap::new();
        if let Bulk::Loading(load) = &self.bulk {
            for h in hashes {
                if !stored.contains_key(h) {
                    let ids: Vec<EntryId> = load.known.ids(*h).collect();
                    if !ids.is_empty() {
                        stored.insert(*h, ids);
                    }
                }
            }
            return Ok(stored);
        }
        let p = self.store.name.as_str();
        for r in self.conn.query(&self.stmts.same, &[&hashes]).ctx(p, "finding duplicates")? {
            let h: i64 = r.try_get(0).ctx(p, "finding duplicates")?;
            stored.entry(h).or_default().push(EntryId(r.try_get(1).ctx(p, "finding duplicates")?));
        }
        Ok(stored)
    }

    /// Adds the approvals and origins a batch gave stored entries: one statement each.
    fn update_stored(
        &mut self,
        approved: &BTreeMap<EntryId, i64>,
        origins: &[(EntryId, usize, Origin)],
    ) -> Result<()> {
        let p = self.store.name.clone();
        if !approved.is_empty() {
            let ids: Vec<i64> = approved.keys().map(|id| id.0).collect();
            let counts: Vec<i64> = approved.values().copied().collect();
            self.conn.execute(&self.stmts.approve, &[&ids, &counts]).ctx(&p, "counting approvals")?;
        }
        let rows: Vec<(EntryId, usize, &Origin)> =
            origins.iter().map(|(id, seq, o)| (*id, *seq, o)).collect();
        self.write_origins(&rows)
    }

    /// Inserts new entries with their reserved ids: one statement per table.
    fn insert_fresh(&mut self, fresh: &[Entry]) -> Result<Vec<Added>> {
        let p = self.store.name.clone();
        let hashes: Vec<i64> = fresh.iter().map(|e| e.identity_hash() as i64).collect();
        let approvals: Vec<i64> = fresh.iter().map(|e| i64::from(e.approvals())).collect();
        if self.loading() {
            (|| {
                let mut w = copy_frozen(
                    &mut self.conn,
                    "tm_entries (id, project_id, identity, metadata, point, unit, approvals)",
                    &[Type::INT8, Type::TEXT, Type::INT8, Type::JSONB, Type::TEXT, Type::TEXT, Type::INT8],
                )?;
                for (k, e) in fresh.iter().enumerate() {
                    w.write(&[
                        &e.id.0,
                        &e.project_id,
                        &hashes[k],
                        &Json(&e.metadata),
                        &e.point.as_str(),
                        &e.unit,
                        &approvals[k],
                    ])?;
                }
                w.finish()
            })()
            .ctx(&p, "writing entries")?;
        } else {
            let mut metadata = Vec::with_capacity(fresh.len());
            for e in fresh {
                metadata.push(serde_json::to_string(&e.metadata).map_err(|err| {
                    Error::with_source(
                        ErrorKind::InvalidEntry,
                        format!("entry {}: metadata cannot be serialized", e.id),
                        err,
                    )
                })?);
            }
            let ids: Vec<i64> = fresh.iter().map(|e| e.id.0).collect();
            let projects: Vec<&str> = fresh.iter().map(|e| e.project_id.as_str()).collect();
            let points: Vec<&str> = fresh.iter().map(|e| e.point.as_str()).collect();
            let units: Vec<&str> = fresh.iter().map(|e| e.unit.as_str()).collect();
            self.conn
                .execute(
                    &self.stmts.entries,
                    &[&ids, &projects, &hashes, &metadata, &points, &units, &approvals],
                )
                .ctx(&p, "writing entries")?;
        }
        self.count(&[("", "")], fresh.len() as i64)?;
        let added = self.insert_variants(fresh)?;
        self.insert_fresh_origins(fresh)?;
        Ok(added)
    }

    /// Replaces entry `id` in the open savepoint (see [`WriteSession::replace`]); `None`
    /// when there is no entry `id`, else the new keys for the cache.
    fn replace_in(&mut self, id: EntryId, new: &NewEntry) -> Result<Option<CachedKeys>> {
        let p = self.store.name.clone();
        let Some(existing) = self.store.load_entry(self.conn.client(), id)? else { return Ok(None) };
        let hash = new.identity_hash() as i64;
        let others = self.stored_ids(&[hash])?.remove(&hash).unwrap_or_default();
        for other in others.into_iter().filter(|o| *o != id) {
            if let Some(e) = self.store.load_entry(self.conn.client(), other)? {
                if new.same_identity(&e) {
                    return Err(replace_conflict(id, e.id));
                }
            }
        }
        let entry = replaced_entry(&existing, new);
        let metadata = serde_json::to_string(&entry.metadata).map_err(|err| {
            Error::with_source(
                ErrorKind::InvalidEntry,
                format!("entry {id}: metadata cannot be serialized"),
                err,
            )
        })?;
        self.conn
            .execute(
                "UPDATE tm_entries SET project_id = $2, identity = $3::bigint, metadata = $4::text::jsonb, \
                 point = $5, unit = $6, approvals = $7::bigint WHERE id = $1",
                &[
                    &id.0,
                    &entry.project_id,
                    &hash,
                    &metadata,
                    &entry.point.as_str(),
                    &entry.unit,
                    &i64::from(entry.approvals()),
                ],
            )
            .ctx_with(&p, || format!("replacing entry {id}"))?;
        let locales: Vec<&str> = existing.variants.iter().map(|v| v.locale.as_str()).collect();
        self.count(&counted_rows(&locales), -1)?;
        self.conn
            .execute("DELETE FROM tm_variants WHERE entry_id = $1", &[&id.0])
            .ctx_with(&p, || format!("replacing the variants of entry {id}"))?;
        let keys = self.insert_variants(std::slice::from_ref(&entry))?.pop().map(|(_, keys)| keys);
        if let Bulk::Loading(load) = &mut self.bulk {
            load.known.add(hash, id);
        }
        let kept = existing.origins.len();
        let added: Vec<(EntryId, usize, &Origin)> =
            entry.origins[kept..].iter().enumerate().map(|(k, o)| (id, kept + k, o)).collect();
        self.write_origins(&added)?;
        Ok(Some(keys.unwrap_or_default()))
    }

    /// Adds `n` to each of `rows` of the counts (`tm_counts`), in this session's
    /// transaction: what stats read, kept where the rows they count are written.
    fn count(&mut self, rows: &[(&str, &str)], n: i64) -> Result<()> {
        let mut sums: BTreeMap<(&str, &str), i64> = BTreeMap::new();
        for row in rows {
            *sums.entry(*row).or_default() += n;
        }
        self.add_counts(&sums)
    }

    /// Adds each of `sums` to its row of the counts: one statement.
    fn add_counts(&mut self, sums: &BTreeMap<(&str, &str), i64>) -> Result<()> {
        if sums.values().all(|n| *n == 0) {
            return Ok(());
        }
        let sources: Vec<&str> = sums.keys().map(|k| k.0).collect();
        let targets: Vec<&str> = sums.keys().map(|k| k.1).collect();
        let ns: Vec<i64> = sums.values().copied().collect();
        self.conn
            .execute(
                &format!(
                    "INSERT INTO {COUNTS_TABLE} (source, target, n) \
                     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) \
                     ON CONFLICT (source, target) DO UPDATE SET n = {COUNTS_TABLE}.n + excluded.n"
                ),
                &[&sources, &targets, &ns],
            )
            .ctx(self.store.name.as_str(), "counting")?;
        Ok(())
    }

    /// Inserts the variants of `entries` (their ids final) and counts them: one
    /// statement each; returns their keys for the cache.
    fn insert_variants(&mut self, entries: &[Entry]) -> Result<Vec<Added>> {
        self.wrote_variants |= !entries.is_empty();
        let p = self.store.name.clone();
        let added: Vec<Added> = entries
            .iter()
            .map(|e| (e.id, e.variants.iter().map(|v| (v.locale.clone(), v.keys())).collect::<CachedKeys>()))
            .collect();
        if self.loading() {
            (|| {
                let mut w = copy_frozen(
                    &mut self.conn,
                    "tm_variants (entry_id, ord, locale, runs, plain, struct_key, general_key, text)",
                    &[
                        Type::INT8,
                        Type::INT8,
                        Type::TEXT,
                        Type::JSONB,
                        Type::TEXT,
                        Type::TEXT,
                        Type::TEXT,
                        Type::TEXT,
                    ],
                )?;
                for (e, (_, keys)) in entries.iter().zip(&added) {
                    for (ord, (v, (_, k))) in e.variants.iter().zip(keys).enumerate() {
                        let (s, g) = stored_keys(k);
                        let ord = ord as i64;
                        w.write(&[
                            &e.id.0,
                            &ord,
                            &v.locale.as_str(),
                            &Json(&v.runs),
                            &k.plain,
                            &s,
                            &g,
                            &k.plain,
                        ])?;
                    }
                }
                w.finish()
            })()
            .ctx(&p, "writing variants")?;
        } else {
            let (mut v_entry, mut v_ord, mut v_locale, mut v_runs) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let (mut v_plain, mut v_struct, mut v_general) = (Vec::new(), Vec::new(), Vec::new());
            for (e, (_, keys)) in entries.iter().zip(&added) {
                for (ord, (v, (_, k))) in e.variants.iter().zip(keys).enumerate() {
                    let (s, g) = stored_keys(k);
                    v_entry.push(e.id.0);
                    v_ord.push(ord as i64);
                    v_locale.push(v.locale.as_str());
                    v_runs.push(runs_to_json(&v.runs));
                    v_struct.push(s);
                    v_general.push(g);
                    v_plain.push(k.plain.as_str());
                }
            }
            self.conn
                .execute(
                    &self.stmts.variants,
                    &[&v_entry, &v_ord, &v_locale, &v_runs, &v_plain, &v_struct, &v_general],
                )
                .ctx(&p, "writing variants")?;
        }
        let mut sums: BTreeMap<(&str, &str), i64> = BTreeMap::new();
        for e in entries {
            let locales: Vec<&str> = e.variants.iter().map(|v| v.locale.as_str()).collect();
            for row in counted_rows(&locales) {
                *sums.entry(row).or_default() += 1;
            }
        }
        self.add_counts(&sums)?;
        Ok(added)
    }

    /// Inserts the origins of new entries (their ids final): one statement.
    fn insert_fresh_origins(&mut self, fresh: &[Entry]) -> Result<()> {
        let rows: Vec<(EntryId, usize, &Origin)> =
            fresh.iter().flat_map(|e| e.origins.iter().enumerate().map(|(seq, o)| (e.id, seq, o))).collect();
        self.write_origins(&rows)
    }

    /// Inserts origin rows (entry, sequence number, origin): one statement.
    fn write_origins(&mut self, rows: &[(EntryId, usize, &Origin)]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        if self.loading() {
            return (|| {
                let mut w = copy_frozen(
                    &mut self.conn,
                    "tm_origins (entry_id, seq, project_id, context_fingerprint, created_at)",
                    &[Type::INT8, Type::INT8, Type::TEXT, Type::TEXT, Type::TEXT],
                )?;
                for (id, seq, o) in rows {
                    let seq = *seq as i64;
                    w.write(&[&id.0, &seq, &o.project_id, &o.context_fingerprint, &o.created_at])?;
                }
                w.finish().map(drop)
            })()
            .ctx(self.store.name.as_str(), "writing origins");
        }
        let ids: Vec<i64> = rows.iter().map(|(id, _, _)| id.0).collect();
        let seqs: Vec<i64> = rows.iter().map(|(_, seq, _)| *seq as i64).collect();
        let projects: Vec<&str> = rows.iter().map(|(_, _, o)| o.project_id.as_str()).collect();
        let contexts: Vec<&str> = rows.iter().map(|(_, _, o)| o.context_fingerprint.as_str()).collect();
        let created: Vec<&str> = rows.iter().map(|(_, _, o)| o.created_at.as_str()).collect();
        self.conn
            .execute(&self.stmts.origins, &[&ids, &seqs, &projects, &contexts, &created])
            .ctx(self.store.name.as_str(), "writing origins")?;
        Ok(())
    }

    /// Runs `step` (`what`, for messages) in a savepoint: a step that fails leaves the
    /// session as it was before it. In a session of whole batches there is no savepoint:
    /// a failed step aborts the transaction, and every later call and the commit are
    /// refused ([`Self::refuse_failed`]).
    ///
    /// Why not a savepoint per batch there: each is a subtransaction with an id of its
    /// own once it writes, and past 64 of them in one transaction every other session's
    /// snapshot overflows its cache of them and reads `pg_subtrans` to tell whether a row
    /// is visible, slowing the lookups of every server while a large import runs.
    fn in_savepoint<T>(&mut self, what: &str, step: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.refuse_failed()?;
        if self.whole {
            let done = step(self);
            self.failed = done.is_err();
            return done;
        }
        let p = self.store.name.clone();
        self.conn.batch_execute("SAVEPOINT cmem_batch").ctx_with(&p, || format!("starting {what}"))?;
        match step(self) {
            Ok(done) => {
                self.conn
                    .batch_execute("RELEASE SAVEPOINT cmem_batch")
                    .ctx_with(&p, || format!("ending {what}"))?;
                Ok(done)
            }
            Err(err) => {
                let _ =
                    self.conn.batch_execute("ROLLBACK TO SAVEPOINT cmem_batch; RELEASE SAVEPOINT cmem_batch");
                Err(err)
            }
        }
    }

    /// Refuses a call once a step of a session of whole batches failed: PostgreSQL would
    /// refuse its statements, and a `COMMIT` would roll back while answering success.
    fn refuse_failed(&self) -> Result<()> {
        cmem_core::imp::refuse_failed_session(self.failed)
    }

    /// Whether rows are written by `COPY … FREEZE` (see [`Bulk::Loading`]).
    fn loading(&self) -> bool {
        matches!(self.bulk, Bulk::Loading(_))
    }

    /// Decides how a session whose first batch is large writes, when the memory has no
    /// variant yet (see [`Bulk`]): a session of whole batches that finds all three entry
    /// tables empty loads them ([`Bulk::Loading`]); otherwise, or when it may not (not
    /// the tables' owner), the variants' search indexes are dropped and built at the end;
    /// a writer that may not drop them keeps them.
    fn defer_indexes(&mut self) -> Result<Bulk> {
        let p = self.store.name.clone();
        let empty: bool = self
            .conn
            .query_one("SELECT NOT EXISTS (SELECT 1 FROM tm_variants)", &[])
            .and_then(|r| r.try_get(0))
            .ctx(&p, "starting an import")?;
        if !empty {
            return Ok(Bulk::No);
        }
        if self.whole {
            if let Some(load) = self.in_bulk_savepoint(empty_for_loading)? {
                return Ok(Bulk::Loading(Box::new(load)));
            }
        }
        let deferred = self.in_bulk_savepoint(|conn| {
            let defs = drop_indexes(conn, DEFERRABLE_INDEXES)?;
            Ok(Some(defs))
        })?;
        Ok(deferred.map_or(Bulk::No, Bulk::Deferred))
    }

    /// Runs `step` in a savepoint, kept when it gives `Some`, rolled back when it gives
    /// `None` or fails (a writer that may not change the schema).
    fn in_bulk_savepoint<T>(
        &mut self,
        step: impl FnOnce(&mut Client) -> std::result::Result<Option<T>, postgres::Error>,
    ) -> Result<Option<T>> {
        let p = self.store.name.clone();
        self.conn.batch_execute("SAVEPOINT cmem_bulk").ctx(&p, "starting an import")?;
        let done = step(self.conn.client()).ok().flatten();
        let end = if done.is_some() {
            "RELEASE SAVEPOINT cmem_bulk"
        } else {
            "ROLLBACK TO SAVEPOINT cmem_bulk; RELEASE SAVEPOINT cmem_bulk"
        };
        self.conn.batch_execute(end).ctx(&p, "starting an import")?;
        Ok(done)
    }

    /// Deletes an entry (its variants and origins go with it); false when there was none.
    pub(crate) fn delete(&mut self, id: EntryId) -> Result<bool> {
        let p = self.store.name.clone();
        // Its counts go first, read in this transaction: the variant of `ord` 0 with the
        // later ones, as the counts' pairs join them.
        let variants: Vec<(i64, String)> = self
            .conn
            .query("SELECT ord, locale FROM tm_variants WHERE entry_id = $1 ORDER BY ord", &[&id.0])
            .ctx_with(&p, || format!("deleting entry {id}"))?
            .iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<std::result::Result<_, postgres::Error>>()
            .ctx_with(&p, || format!("deleting entry {id}"))?;
        // Never in a loading session (only `PgStore::delete` calls this, in a session of
        // its own): there the foreign keys that take the variants and origins along are
        // dropped, and the orphans would fail the keys' check at commit.
        let n = self
            .conn
            .execute("DELETE FROM tm_entries WHERE id = $1", &[&id.0])
            .ctx_with(&p, || format!("deleting entry {id}"))?;
        if n > 0 {
            let mut rows: Vec<(&str, &str)> = vec![("", "")];
            rows.extend(variants.iter().map(|v| (v.1.as_str(), "")));
            if let Some(first) = variants.iter().find(|v| v.0 == 0) {
                rows.extend(variants.iter().filter(|v| v.0 > 0).map(|v| (first.1.as_str(), v.1.as_str())));
            }
            self.count(&rows, -1)?;
            self.added.retain(|(x, _)| *x != id);
            self.removed.push(id);
        }
        Ok(n > 0)
    }
}

/// Drops the indexes `query` names (name, definition); returns their definitions.
fn drop_indexes(conn: &mut Client, query: &str) -> std::result::Result<Vec<String>, postgres::Error> {
    let mut names = Vec::new();
    let mut defs = Vec::new();
    for r in conn.query(query, &[])? {
        names.push(r.try_get::<_, String>(0)?);
        defs.push(r.try_get::<_, String>(1)?);
    }
    if !names.is_empty() {
        conn.batch_execute(&format!("DROP INDEX {}", names.join(", ")))?;
    }
    Ok(defs)
}

/// Readies the entry tables for loading (see [`Bulk::Loading`]) when all three are empty:
/// locks them, drops their deferrable indexes and constraints, and empties them in this
/// transaction. `None` when one holds a row.
fn empty_for_loading(conn: &mut Client) -> std::result::Result<Option<Load>, postgres::Error> {
    // Locked before they are read: a row another program commits after the check would
    // go with the truncation.
    conn.batch_execute(&format!("LOCK TABLE {LOADED_TABLES} IN ACCESS EXCLUSIVE MODE"))?;
    let empty: bool = conn
        .query_one(
            "SELECT NOT EXISTS (SELECT 1 FROM tm_entries) AND NOT EXISTS (SELECT 1 FROM tm_variants) \
             AND NOT EXISTS (SELECT 1 FROM tm_origins)",
            &[],
        )?
        .try_get(0)?;
    if !empty {
        return Ok(None);
    }
    let mut rebuild = drop_indexes(conn, DEFERRABLE_ENTRY_INDEXES)?;
    rebuild.extend(drop_indexes(conn, DEFERRABLE_INDEXES)?);
    // Foreign keys first: a key may not go while one points at it.
    let constraints = conn.query(DEFERRABLE_CONSTRAINTS, &[])?;
    for r in constraints.iter().rev() {
        conn.batch_execute(&r.try_get::<_, String>(0)?)?;
    }
    for r in &constraints {
        rebuild.push(r.try_get(1)?);
    }
    conn.batch_execute(&format!("TRUNCATE {LOADED_TABLES}"))?;
    Ok(Some(Load { rebuild, known: Known::default() }))
}

impl WriteSession for PgSession<'_> {
    fn write(&mut self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        self.refuse_failed()?;
        for (i, e) in entries.iter().enumerate() {
            e.validate().map_err(|err| {
                Error::new(err.kind(), format!("entry {} of the batch: {}", i + 1, err.message()))
            })?;
        }
        if matches!(self.bulk, Bulk::Undecided) {
            // Decided outside the batch's savepoint: a batch that fails must not bring
            // back the indexes this session will create at its end.
            if entries.iter().map(|e| e.variants.len()).sum::<usize>() >= BULK_FROM {
                self.bulk = self.defer_indexes()?;
            }
        }
        let (outcomes, mut added) = self.in_savepoint("a batch", |s| s.write_batch(entries))?;
        if self.keep_added {
            self.added.append(&mut added);
        } else {
            drop(added);
        }
        Ok(outcomes)
    }

    fn replace(&mut self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        entry.validate()?;
        let Some(keys) = self.in_savepoint("a replace", |s| s.replace_in(id, entry))? else {
            return Ok(false);
        };
        // The index forgets the old keys before it learns the new (see `IndexCache::apply`),
        // and keys of `id` this session added before are stale too.
        self.added.retain(|(x, _)| *x != id);
        self.removed.push(id);
        if self.keep_added {
            self.added.push((id, keys));
        }
        Ok(true)
    }

    fn all_or_nothing(&mut self) {
        self.whole = true;
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        self.refuse_failed()?;
        let p = self.store.name.clone();
        let rebuild = match &self.bulk {
            Bulk::Deferred(defs) => Some(defs.as_slice()),
            Bulk::Loading(load) => Some(load.rebuild.as_slice()),
            Bulk::Undecided | Bulk::No => None,
        };
        let rebuilt = match rebuild {
            Some(defs) if !defs.is_empty() => {
                // The session is still open: a failure here rolls the whole import back.
                self.conn
                    .batch_execute(&format!("{BUILD_MEMORY}; {}", defs.join("; ")))
                    .ctx(&p, "building the indexes and keys")?;
                true
            }
            _ => false,
        };
        self.open = false;
        self.conn.batch_execute("COMMIT").ctx(&p, "committing")?;
        if self.wrote_variants && !rebuilt {
            // New words wait in the word index's pending list (up to 64 MB of it, see
            // `begin`), which every query of that index reads whole, slowing each
            // database-side lookup many times over (DESIGN.md §8.6). Merged now, not
            // when autovacuum comes by.
            // Best effort: the commit stands, and a writer that does not own the index
            // leaves the merge to autovacuum.
            let _ = self.conn.batch_execute(&format!("SELECT gin_clean_pending_list('{SEARCH_TABLE}_tsv')"));
        }
        let mut cache = self.store.cache_write()?;
        if self.keep_added {
            cache.apply(self.before, self.after, &self.added, &self.removed);
        } else {
            cache.forget();
        }
        Ok(())
    }
}

impl Drop for PgSession<'_> {
    fn drop(&mut self) {
        if self.open {
            // A connection that cannot roll back is broken; the server rolls back when it
            // closes, and the pool drops it.
            let _ = self.conn.batch_execute("ROLLBACK");
        }
    }
}
