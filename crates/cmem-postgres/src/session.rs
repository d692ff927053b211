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

use cmem_core::run::runs_to_json;
use cmem_core::schema::{stored_keys, META_TABLE};
use cmem_core::{
    merge_origins, EntryId, Error, ErrorKind, NewEntry, Origin, Result, WriteOutcome, WriteSession,
};
use postgres::Statement;

use crate::cache::CachedKeys;
use crate::error::Context;
use crate::migrate::META_CHANGES;
use crate::store::{PgStore, Pooled};

/// The statements a session runs per entry, prepared once per session.
struct Statements {
    same: Statement,
    entry: Statement,
    variant: Statement,
    origin: Statement,
}

/// The [`WriteSession`] of a [`PgStore`]: one transaction, each batch in a savepoint
/// (so a failed batch leaves the session as it was before it).
pub(crate) struct PgSession<'a> {
    store: &'a PgStore,
    conn: Pooled,
    stmts: Statements,
    /// The change counter before and after this session.
    before: i64,
    after: i64,
    added: Vec<(EntryId, CachedKeys)>,
    removed: Vec<EntryId>,
    open: bool,
}

impl<'a> PgSession<'a> {
    /// Begins the transaction and takes the writer's turn.
    pub(crate) fn begin(store: &'a PgStore) -> Result<PgSession<'a>> {
        store.refuse_read_only()?;
        let p = store.name();
        let mut conn = store.client()?;
        let wait_ms = store.options().write_wait.as_millis().max(1);
        conn.batch_execute(&format!("BEGIN; SET LOCAL lock_timeout = {wait_ms}"))
            .ctx(p, "starting a write")?;
        let turn = (|| {
            let after: i64 = conn
                .query_one(
                    &format!(
                        "UPDATE {META_TABLE} SET value = (value::bigint + 1)::text WHERE key = $1 \
                         RETURNING value::bigint"
                    ),
                    &[&META_CHANGES],
                )
                .and_then(|r| r.try_get(0))
                .ctx(p, "waiting for another writer")?;
            let stmts = Statements {
                same: conn.prepare("SELECT id FROM tm_entries WHERE identity = $1").ctx(p, "preparing")?,
                entry: conn
                    .prepare(
                        "INSERT INTO tm_entries (project_id, identity, metadata, point, unit) \
                         VALUES ($1, $2, $3::text::jsonb, $4, $5) RETURNING id",
                    )
                    .ctx(p, "preparing")?,
                variant: conn
                    .prepare(
                        "INSERT INTO tm_variants (entry_id, ord, locale, runs, plain, struct_key, general_key, text) \
                         VALUES ($1, $2, $3, $4::text::jsonb, $5, $6, $7, $5)",
                    )
                    .ctx(p, "preparing")?,
                origin: conn
                    .prepare(
                        "INSERT INTO tm_origins (entry_id, seq, project_id, context_fingerprint, created_at) \
                         VALUES ($1, $2, $3, $4, $5)",
                    )
                    .ctx(p, "preparing")?,
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
                removed: Vec::new(),
                open: true,
            }),
            Err(e) => {
                let _ = conn.batch_execute("ROLLBACK");
                Err(e)
            }
        }
    }

    fn insert_origins(&mut self, id: EntryId, first_seq: usize, origins: &[Origin]) -> Result<()> {
        for (i, o) in origins.iter().enumerate() {
            self.conn
                .execute(
                    &self.stmts.origin,
                    &[&id.0, &((first_seq + i) as i64), &o.project_id, &o.context_fingerprint, &o.created_at],
                )
                .ctx_with(self.store.name(), || format!("writing an origin of entry {id}"))?;
        }
        Ok(())
    }

    /// Writes one entry; returns the outcome and, for an insert, the keys for the cache.
    fn insert(&mut self, new: &NewEntry) -> Result<(WriteOutcome, Option<CachedKeys>)> {
        let p = self.store.name().to_owned();
        let hash = new.identity_hash() as i64;
        let same = self.conn.query(&self.stmts.same, &[&hash]).ctx(&p, "finding duplicates")?;
        for r in same {
            let id = EntryId(r.try_get(0).ctx(&p, "finding duplicates")?);
            if let Some(existing) = self.store.load_entry(&mut *self.conn, id)? {
                if new.same_identity(&existing) {
                    let stored = existing.origins.len();
                    let mut origins = existing.origins;
                    merge_origins(&mut origins, &new.origins);
                    self.insert_origins(id, stored, &origins[stored..])?;
                    return Ok((WriteOutcome::Deduplicated(id), None));
                }
            }
        }
        let metadata = serde_json::to_string(&new.metadata).map_err(|e| {
            Error::with_source(ErrorKind::InvalidEntry, "entry metadata cannot be serialized", e)
        })?;
        let id: i64 = self
            .conn
            .query_one(
                &self.stmts.entry,
                &[&new.project_id, &hash, &metadata, &new.point.as_str(), &new.unit],
            )
            .and_then(|r| r.try_get(0))
            .ctx(&p, "writing an entry")?;
        let id = EntryId(id);
        let mut cached: CachedKeys = Vec::with_capacity(new.variants.len());
        for (ord, v) in new.variants.iter().enumerate() {
            let k = v.keys();
            let (s, g) = stored_keys(&k);
            self.conn
                .execute(
                    &self.stmts.variant,
                    &[&id.0, &(ord as i64), &v.locale.as_str(), &runs_to_json(&v.runs), &k.plain, &s, &g],
                )
                .ctx_with(&p, || format!("writing variant {} of entry {id}", v.locale))?;
            cached.push((v.locale.clone(), k));
        }
        self.insert_origins(id, 0, &new.origins)?;
        Ok((WriteOutcome::Inserted(id), Some(cached)))
    }

    /// Deletes an entry (its variants and origins go with it); false when there was none.
    pub(crate) fn delete(&mut self, id: EntryId) -> Result<bool> {
        let n = self
            .conn
            .execute("DELETE FROM tm_entries WHERE id = $1", &[&id.0])
            .ctx_with(self.store.name(), || format!("deleting entry {id}"))?;
        if n > 0 {
            self.removed.push(id);
        }
        Ok(n > 0)
    }
}

impl WriteSession for PgSession<'_> {
    fn write(&mut self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        for (i, e) in entries.iter().enumerate() {
            e.validate().map_err(|err| {
                Error::new(err.kind(), format!("entry {} of the batch: {}", i + 1, err.message()))
            })?;
        }
        let p = self.store.name().to_owned();
        self.conn.batch_execute("SAVEPOINT cmem_batch").ctx(&p, "starting a batch")?;
        let mut outcomes = Vec::with_capacity(entries.len());
        let mut added = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            match self.insert(e) {
                Ok((outcome, keys)) => {
                    if let Some(keys) = keys {
                        added.push((outcome.id(), keys));
                    }
                    outcomes.push(outcome);
                }
                Err(err) => {
                    let _ = self
                        .conn
                        .batch_execute("ROLLBACK TO SAVEPOINT cmem_batch; RELEASE SAVEPOINT cmem_batch");
                    return Err(Error::new(err.kind(), format!("entry {} of the batch: {err}", i + 1)));
                }
            }
        }
        self.conn.batch_execute("RELEASE SAVEPOINT cmem_batch").ctx(&p, "ending a batch")?;
        self.added.append(&mut added);
        Ok(outcomes)
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        let p = self.store.name().to_owned();
        self.open = false;
        self.conn.batch_execute("COMMIT").ctx(&p, "committing")?;
        self.store.cache_write()?.apply(self.before, self.after, &self.added, &self.removed);
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
