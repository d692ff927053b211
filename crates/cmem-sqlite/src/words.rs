//! Word models ([`cmem_core::align`]) in `tm_word_models`: one row per locale pair,
//! replaced whole in one transaction that also counts the pair's saves in the meta
//! table (its stamp), kept in the store's [`ModelCache`](cmem_core::align::ModelCache)
//! and read again when another process saved a new one: the database's
//! `data_version` moved and so did the stamp.

use std::sync::Arc;

use cmem_core::align::{pair_key, stamp_key, WordModel};
use cmem_core::store::schema::{META_TABLE, WORD_MODELS_TABLE};
use cmem_core::{IndexControl, Locale, Result};
use rusqlite::{params, OptionalExtension};

use crate::error::Context;
use crate::lock::Immediate;
use crate::store::SqliteStore;

impl SqliteStore {
    pub(crate) fn load_word_model(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<WordModel>>> {
        let key = pair_key(source, target);
        let stamp = || {
            let sql = format!("SELECT value FROM {META_TABLE} WHERE key = ?1");
            self.with_reader(|conn| {
                conn.query_row(&sql, [stamp_key(&key)], |r| r.get(0))
                    .optional()
                    .ctx_with(&self.path, || format!("reading the stamp of the word model of {key}"))
            })
        };
        self.word_models.get_or_load_checked(&key, self.change_mark()?, stamp, || {
            let sql = format!("SELECT model FROM {WORD_MODELS_TABLE} WHERE pair = ?1");
            self.with_reader(|conn| {
                conn.query_row(&sql, [&key], |r| r.get(0))
                    .optional()
                    .ctx_with(&self.path, || format!("reading the word model of {key}"))
            })
        })
    }

    pub(crate) fn store_word_model(
        &self,
        source: &Locale,
        target: &Locale,
        model: Arc<WordModel>,
    ) -> Result<()> {
        self.refuse_read_only()?;
        let key = pair_key(source, target);
        let text = model.to_saved();
        let p = &self.path;
        let conn = self.conn()?;
        let tx = Immediate::begin(&conn, p, &self.options)?;
        tx.execute(
            &format!(
                "INSERT INTO {WORD_MODELS_TABLE} (pair, model) VALUES (?1, ?2) \
                 ON CONFLICT(pair) DO UPDATE SET model = excluded.model"
            ),
            params![key, text],
        )
        .ctx_with(p, || format!("saving the word model of {key}"))?;
        // The stamp other processes compare: this pair's saves, counted.
        let stamp: String = tx
            .query_row(
                &format!(
                    "INSERT INTO {META_TABLE} (key, value) VALUES (?1, '1') \
                     ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) \
                     RETURNING value"
                ),
                [stamp_key(&key)],
                |r| r.get(0),
            )
            .ctx_with(p, || format!("stamping the word model of {key}"))?;
        tx.commit(p, || format!("committing the word model of {key}"))?;
        self.word_models.put_stamped(&key, model, Some(stamp));
        Ok(())
    }
}
