//! What a SQLite memory offers beyond the reads and writes: its index (warmed, scoped,
//! marked by `PRAGMA data_version`), named values, word models and version chains.

use cmem_core::imp::ReadScope;
use cmem_core::model::version::{select_versions, Version, VersionQuery, VersionReader};
use cmem_core::{
    EntryId, IndexControl, Locale, MetaStore, Result, WordAnswer, WordIndex, WordModels, WordQuery,
};
use rusqlite::{params, OptionalExtension};

use cmem_core::store::schema::META_TABLE;

use super::SqliteStore;
use crate::error::Context;
use crate::lock::Immediate;

impl IndexControl for SqliteStore {
    /// Builds the in-process candidate index for every source locale matching `source`
    /// now, instead of on the first lookup (nothing when the index is off).
    fn warm(&self, source: &Locale) -> Result<()> {
        if self.options.gram_index {
            self.ensure_cache(source)?;
        }
        Ok(())
    }

    fn index_persists(&self) -> bool {
        self.options.gram_index && self.options.persist_index && !self.options.read_only
    }

    fn read_scope(&self, _source: &Locale) -> Result<ReadScope<'_>> {
        Ok(ReadScope::direct(self))
    }

    fn change_mark(&self) -> Result<Option<u64>> {
        if self.path == ":memory:" {
            // One connection sees its own writes only through data it reads.
            return Ok(None);
        }
        let mut marker = self.marker.lock().map_err(|_| self.poisoned("marker"))?;
        if marker.is_none() {
            *marker = self.open_reader();
        }
        let Some(conn) = marker.as_ref() else { return Ok(None) };
        let version: i64 = conn
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut statement| statement.query_row([], |r| r.get(0)))
            .ctx(&self.path, "reading data_version")?;
        Ok(Some(version as u64))
    }

    fn source_locales(&self) -> Result<Option<Vec<Locale>>> {
        self.with_reader(|conn| crate::cache::source_locales(conn, &self.path)).map(Some)
    }
}

/// The word index is the candidate index's (see [`cmem_core::imp::CandidateIndex::words`]),
/// brought up to date with other connections' writes as for a lookup.
impl WordIndex for SqliteStore {
    fn words(&self, q: &WordQuery<'_>) -> Result<Option<WordAnswer>> {
        if !self.options.gram_index || !self.ensure_cache(q.source)? {
            return Ok(None);
        }
        Ok(Some(self.cache_read()?.words(q)))
    }
}

impl MetaStore for SqliteStore {
    fn meta(&self, key: &str) -> Result<Option<String>> {
        let sql = format!("SELECT value FROM {META_TABLE} WHERE key = ?1");
        self.with_reader(|conn| {
            conn.query_row(&sql, [key], |r| r.get(0))
                .optional()
                .ctx_with(&self.path, || format!("reading {key}"))
        })
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        let conn = self.conn()?;
        // A write like any other: it waits for another writer (an import's long
        // transaction) as long as the options say, not only the busy timeout.
        let tx = Immediate::begin(&conn, &self.path, &self.options)?;
        tx.execute(
            &format!(
                "INSERT INTO {META_TABLE} (key, value) VALUES (?1, ?2) \
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            ),
            params![key, value],
        )
        .ctx_with(&self.path, || format!("setting {key}"))?;
        tx.commit(&self.path, || format!("setting {key}"))?;
        self.given.forget(key);
        Ok(())
    }
}

impl WordModels for SqliteStore {
    fn word_model(
        &self,
        source: &Locale,
        target: &Locale,
    ) -> Result<Option<std::sync::Arc<cmem_core::align::WordModel>>> {
        self.load_word_model(source, target)
    }

    fn save_word_model(
        &self,
        source: &Locale,
        target: &Locale,
        model: std::sync::Arc<cmem_core::align::WordModel>,
    ) -> Result<()> {
        self.store_word_model(source, target, model)
    }

    /// Kept while `data_version` stays (every commit of another connection, this
    /// store's writer included, moves it); read on each call in an in-memory database,
    /// whose mark is `None`.
    fn given_glossary(
        &self,
        source: &Locale,
        target: &Locale,
    ) -> Result<Option<std::sync::Arc<cmem_core::align::Glossary>>> {
        self.given
            .get_or_read(source, target, self.change_mark()?, |key| MetaStore::meta(self, key))
            .map(Some)
    }
}

impl VersionReader for SqliteStore {
    fn versions(&self, q: &VersionQuery, exclude: Option<EntryId>) -> Result<Vec<Version>> {
        q.validate()?;
        let conn = self.conn()?;
        let ids: Vec<i64> = {
            let mut stmt = conn
                .prepare_cached("SELECT id FROM tm_entries WHERE unit = ?1 ORDER BY id")
                .ctx(&self.path, "reading versions")?;
            let rows = stmt.query_map([&q.unit], |r| r.get(0)).ctx(&self.path, "reading versions")?;
            rows.collect::<rusqlite::Result<_>>()
                .ctx_with(&self.path, || format!("reading versions of unit {:?}", q.unit))?
        };
        let mut entries = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(e) = self.load_entry(&conn, EntryId(id))? {
                entries.push(e);
            }
        }
        Ok(select_versions(entries, q, exclude))
    }
}
