//! Reading rows back: entries from their rows (variants and origins aggregated or read
//! in three queries), one-snapshot transactions, and the change counter.

use std::collections::HashMap;

use cmem_core::store::schema::META_TABLE;
use cmem_core::store::stored;
use cmem_core::{Entry, EntryId, Origin, Result};
use postgres::types::Type;
use postgres::GenericClient;

use crate::conn::Conn;
use crate::error::{corrupt, store_error, Context};
use crate::migrate::META_CHANGES;

/// How this store names itself in the errors of a damaged row (see [`stored`]).
pub(crate) const STORE: &str = "postgres";

/// The entries of ids `$1`, each with its variants and origins aggregated as JSON, and
/// the change counter of the same snapshot (see [`crate::scope`]): what a lookup reads
/// (see [`PgStore::get_many`](crate::PgStore)).
pub(crate) const GET_MANY: &str =
    "SELECT e.id, e.project_id, e.metadata::text, e.point, e.unit, e.approvals, \
     COALESCE((SELECT json_agg(json_build_array(v.locale, v.runs::text) ORDER BY v.ord) \
     FROM tm_variants v WHERE v.entry_id = e.id), '[]')::text, \
     COALESCE((SELECT json_agg(json_build_array(o.project_id, o.context_fingerprint, o.created_at) \
     ORDER BY o.seq) FROM tm_origins o WHERE o.entry_id = e.id), '[]')::text, \
     (SELECT value::bigint FROM tm_meta WHERE key = 'changes') \
     FROM tm_entries e WHERE e.id = ANY($1)";

/// The entries of [`GET_MANY`]'s rows, by id.
///
/// # Errors
/// A row that does not read, or a stored value that does not parse.
pub(crate) fn entries_of_rows(rows: Vec<postgres::Row>, p: &str) -> Result<HashMap<EntryId, Entry>> {
    let reading = || "reading entries".to_owned();
    let mut by_id = HashMap::with_capacity(rows.len());
    for r in rows {
        let id = EntryId(r.try_get(0).ctx_with(p, reading)?);
        let metadata: &str = r.try_get(2).ctx_with(p, reading)?;
        let point: &str = r.try_get(3).ctx_with(p, reading)?;
        let variants: Vec<(String, String)> = serde_json::from_str(r.try_get(6).ctx_with(p, reading)?)
            .map_err(|e| corrupt(p, format!("entry {id}: stored variants"), e))?;
        let origins: Vec<(String, String, String)> = serde_json::from_str(r.try_get(7).ctx_with(p, reading)?)
            .map_err(|e| corrupt(p, format!("entry {id}: stored origins"), e))?;
        let entry = Entry {
            id,
            variants: variants
                .iter()
                .map(|(tag, runs)| stored::variant(STORE, p, id, tag, runs))
                .collect::<Result<_>>()?,
            point: stored::point(STORE, p, id, point)?,
            unit: r.try_get(4).ctx_with(p, reading)?,
            project_id: r.try_get(1).ctx_with(p, reading)?,
            origins: origins
                .into_iter()
                .map(|(project_id, context_fingerprint, created_at)| Origin {
                    project_id,
                    context_fingerprint,
                    created_at,
                })
                .collect(),
            metadata: stored::metadata(STORE, p, id, metadata)?,
            approvals: stored::approvals(r.try_get(5).ctx_with(p, reading)?),
        };
        by_id.insert(id, entry);
    }
    Ok(by_id)
}

/// A read-only transaction that sees one snapshot throughout (repeatable read): for
/// reads of several statements that must agree.
pub(crate) fn snapshot<'c>(
    client: &'c mut postgres::Client,
    name: &str,
    what: &str,
) -> Result<postgres::Transaction<'c>> {
    client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .ctx(name, what)
}

/// The statement that reads the change counter (see [`META_CHANGES`]).
const READ_CHANGES: &str = "SELECT value::bigint FROM tm_meta WHERE key = $1";

/// The change counter (see [`META_CHANGES`]), inside a transaction (a candidate index
/// load reads it with the keys).
pub(crate) fn read_changes<C: GenericClient>(client: &mut C, name: &str) -> Result<i64> {
    let row = client
        .query_typed_opt(READ_CHANGES, &[(&META_CHANGES, Type::TEXT)])
        .ctx(name, "reading the change counter")?;
    changes_of(row, name)
}

/// The change counter on a pooled connection, by the statement it keeps prepared: one
/// round trip, planned once per connection.
pub(crate) fn read_changes_prepared(conn: &mut Conn, name: &str) -> Result<i64> {
    let stmt = conn.prepared(READ_CHANGES, &[Type::TEXT]).ctx(name, "reading the change counter")?;
    let row = conn.query_opt(&stmt, &[&META_CHANGES]).ctx(name, "reading the change counter")?;
    changes_of(row, name)
}

fn changes_of(row: Option<postgres::Row>, name: &str) -> Result<i64> {
    match row {
        Some(r) => r.try_get(0).ctx(name, "reading the change counter"),
        None => Err(store_error(name, format!("{META_TABLE} has no {META_CHANGES} counter"))),
    }
}

/// The entries whose heads `filter` (a `WHERE …` clause over `tm_entries`, with `params`)
/// selects, in the order it gives, with their variants and origins: three queries in all,
/// on `tx` (one snapshot, so a concurrent delete cannot split an entry).
pub(crate) fn read_entries(
    tx: &mut postgres::Transaction<'_>,
    p: &str,
    filter: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> Result<Vec<Entry>> {
    let mut out: Vec<Entry> = Vec::new();
    for r in tx
        .query(
            &format!(
                "SELECT id, project_id, metadata::text, point, unit, approvals FROM tm_entries {filter}"
            ),
            params,
        )
        .ctx(p, "listing entries")?
    {
        let id = EntryId(r.try_get(0).ctx(p, "listing entries")?);
        let metadata: &str = r.try_get(2).ctx(p, "listing entries")?;
        let point: &str = r.try_get(3).ctx(p, "listing entries")?;
        out.push(Entry {
            id,
            variants: Vec::new(),
            point: stored::point(STORE, p, id, point)?,
            unit: r.try_get(4).ctx(p, "listing entries")?,
            project_id: r.try_get(1).ctx(p, "listing entries")?,
            origins: Vec::new(),
            metadata: stored::metadata(STORE, p, id, metadata)?,
            approvals: stored::approvals(r.try_get(5).ctx(p, "listing entries")?),
        });
    }
    if out.is_empty() {
        return Ok(out);
    }
    let ids: Vec<i64> = out.iter().map(|e| e.id.0).collect();
    let index: std::collections::HashMap<i64, usize> =
        ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    for r in tx
        .query(
            "SELECT entry_id, locale, runs::text FROM tm_variants WHERE entry_id = ANY($1) ORDER BY entry_id, ord",
            &[&ids],
        )
        .ctx(p, "listing variants")?
    {
        let id: i64 = r.try_get(0).ctx(p, "listing variants")?;
        let Some(&i) = index.get(&id) else { continue };
        let tag: &str = r.try_get(1).ctx(p, "listing variants")?;
        let json: &str = r.try_get(2).ctx(p, "listing variants")?;
        out[i].variants.push(stored::variant(STORE, p, EntryId(id), tag, json)?);
    }
    for r in tx
        .query(
            "SELECT entry_id, project_id, context_fingerprint, created_at FROM tm_origins \
             WHERE entry_id = ANY($1) ORDER BY entry_id, seq",
            &[&ids],
        )
        .ctx(p, "listing origins")?
    {
        let id: i64 = r.try_get(0).ctx(p, "listing origins")?;
        let Some(&i) = index.get(&id) else { continue };
        out[i].origins.push(Origin {
            project_id: r.try_get(1).ctx(p, "listing origins")?,
            context_fingerprint: r.try_get(2).ctx(p, "listing origins")?,
            created_at: r.try_get(3).ctx(p, "listing origins")?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prepared_statements_name_the_schemas_tables() {
        // Written out, not formatted, so they can be prepared by their text.
        assert!(READ_CHANGES.contains(&format!("FROM {META_TABLE} ")), "{READ_CHANGES}");
        assert!(GET_MANY.contains(&format!("FROM {META_TABLE} WHERE key = '{META_CHANGES}'")), "{GET_MANY}");
    }
}
