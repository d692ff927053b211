//! The SQLite store's side of core's [`IndexCache`]: its change log read in one
//! transaction ([`ChangeLog`]) and its index files beside the database ([`IndexFiles`]),
//! `<db>-gix-<locale>`, mapped (DESIGN.md §7.1, §7.2).
//!
//! Why an in-process index beside the FTS5 tables: the design note's FTS5 recipe
//! (`build_trigram_query`, `ORDER BY rank LIMIT 200`) misses the best match of many real
//! queries and is slower than a scan; counting shared trigrams per key gives a similarity
//! bound, so the index offers exactly the keys that can reach the scorer's cut-off, best
//! first (the same index as [`MemStore`](cmem_core::MemStore)'s, hence the same
//! ranking). Another connection's commit changes `PRAGMA data_version`, this store's
//! change counter: the next lookup then applies the entries written, deleted or re-keyed
//! since.

use std::path::{Path, PathBuf};

use cmem_core::imp::Keys;
use cmem_core::index::gram_index::Bytes;
use cmem_core::index::index_cache::{Arg, ChangeLog, Identity, IndexFiles, VariantRow};
use cmem_core::store::schema::{META_MEMORY_TOKEN, META_TABLE};
use cmem_core::{Error, Locale, Result};
use rusqlite::{params_from_iter, Connection, OptionalExtension, Transaction};

use crate::error::{corrupt, Context};

pub(crate) use cmem_core::index::index_cache::sql::KEYS_OF_V;

/// Where a store keeps its persisted indexes.
#[derive(Debug, Clone)]
pub(crate) struct Persist {
    /// The database file; an index file is `<db>-gix-<locale>` beside it.
    pub(crate) db: PathBuf,
    /// Whether this process may write index files (not when read-only).
    pub(crate) write: bool,
}

impl IndexFiles for Persist {
    fn path(&self, _: &Identity, tag: &str) -> PathBuf {
        let mut name = self.db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(format!("-gix-{tag}"));
        self.db.with_file_name(name)
    }

    fn read(&self, path: &Path) -> Option<Bytes> {
        crate::mapped::map(path).ok().flatten()
    }

    fn writable(&self) -> bool {
        self.write
    }
}

/// The change log of the database file `p`, read in one transaction.
pub(crate) struct Log<'c> {
    tx: Transaction<'c>,
    p: &'c str,
    data_version: i64,
}

impl<'c> Log<'c> {
    /// Begins the snapshot on `conn`, whose `PRAGMA data_version` is `data_version`.
    pub(crate) fn begin(conn: &'c Connection, p: &'c str, data_version: i64) -> Result<Log<'c>> {
        let tx = conn.unchecked_transaction().ctx(p, "reading the candidate index")?;
        Ok(Log { tx, p, data_version })
    }
}

fn bind(args: &[Arg<'_>]) -> Vec<rusqlite::types::Value> {
    let value = |a: &Arg<'_>| match *a {
        Arg::Int(i) => rusqlite::types::Value::Integer(i),
        Arg::Text(t) => rusqlite::types::Value::Text(t.to_owned()),
    };
    args.iter().map(value).collect()
}

impl ChangeLog for Log<'_> {
    fn counter(&mut self) -> Result<i64> {
        Ok(self.data_version)
    }

    fn integers(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<i64>> {
        let mut stmt = self.tx.prepare_cached(sql).ctx(self.p, "reading the change log")?;
        let n = stmt.column_count();
        let row = stmt.query_row(params_from_iter(bind(args)), |r| (0..n).map(|i| r.get(i)).collect());
        row.ctx(self.p, "reading the change log")
    }

    fn variants(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
        row: &mut dyn FnMut(VariantRow<'_>) -> Result<()>,
    ) -> Result<()> {
        let (p, what) = (self.p, "reading the change log");
        let mut stmt = self.tx.prepare_cached(sql).ctx(p, what)?;
        let with_keys = stmt.column_count() >= 5;
        let mut rows = stmt.query(params_from_iter(bind(args))).ctx(p, what)?;
        while let Some(r) = rows.next().ctx(p, what)? {
            let tag = r.get_ref(1).ctx(p, what)?.as_str_or_null();
            let tag = tag.map_err(|e| corrupt(p, "a stored locale".to_owned(), e))?;
            let plain = if with_keys { r.get::<_, Option<String>>(2).ctx(p, what)? } else { None };
            let keys = match plain {
                Some(plain) => Some(Keys {
                    plain,
                    structural: r.get(3).ctx(p, what)?,
                    generalized: r.get(4).ctx(p, what)?,
                }),
                None => None,
            };
            row(VariantRow { id: r.get(0).ctx(p, what)?, tag, keys })?;
        }
        Ok(())
    }

    fn identity(&mut self) -> Result<Option<Identity>> {
        let sql = format!("SELECT value FROM {META_TABLE} WHERE key = ?1");
        let token: Option<String> = self
            .tx
            .query_row(&sql, [META_MEMORY_TOKEN], |r| r.get(0))
            .optional()
            .ctx(self.p, "reading the memory token")?;
        Ok(token.map(|token| Identity { name: token.clone(), header: token }))
    }

    fn corrupt(&self, what: String, e: Error) -> Error {
        corrupt(self.p, what, e)
    }

    fn finish(self) -> Result<()> {
        self.tx.finish().ctx(self.p, "reading the candidate index")
    }
}

/// The locales of the memory's first variants (see
/// [`cmem_core::IndexControl::source_locales`](cmem_core::IndexControl::source_locales)), sorted:
/// one index probe per locale (a loose scan of the locale index), not a read of every row.
pub(crate) fn source_locales(conn: &Connection, p: &str) -> Result<Vec<Locale>> {
    let what = "listing variant locales";
    let sql = "WITH RECURSIVE l(tag) AS (SELECT MIN(locale) FROM tm_variants WHERE ord = 0 UNION ALL \
               SELECT (SELECT MIN(locale) FROM tm_variants WHERE locale > l.tag AND ord = 0) FROM l \
               WHERE l.tag IS NOT NULL) SELECT tag FROM l WHERE tag IS NOT NULL";
    let mut stmt = conn.prepare_cached(sql).ctx(p, what)?;
    let tags = stmt.query_map([], |r| r.get::<_, String>(0)).ctx(p, what)?;
    let mut out = tags
        .map(|tag| {
            let tag = tag.ctx(p, what)?;
            Locale::parse(&tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))
        })
        .collect::<Result<Vec<_>>>()?;
    out.sort();
    Ok(out)
}
