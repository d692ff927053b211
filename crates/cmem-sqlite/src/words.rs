//! Word models ([`cmem_core::align`]) in `tm_word_models`: one row per locale pair,
//! replaced whole in one transaction, read once per store and kept in its
//! [`ModelCache`](cmem_core::align::ModelCache).

use std::sync::Arc;

use cmem_core::align::{pair_key, WordModel};
use cmem_core::schema::WORD_MODELS_TABLE;
use cmem_core::{Locale, Result};
use rusqlite::{params, OptionalExtension};

use crate::error::Context;
use crate::lock::Immediate;
use crate::store::SqliteStore;

impl SqliteStore {
    pub(crate) fn load_word_model(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<WordModel>>> {
        let key = pair_key(source, target);
        self.word_models.get_or_load(&key, || {
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
        tx.commit(p, || format!("committing the word model of {key}"))?;
        self.word_models.put(&key, model);
        Ok(())
    }
}
