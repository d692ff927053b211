//! Word models ([`cmem_core::align`]) in `tm_word_models`: one row per locale pair,
//! replaced whole by one statement, read once per store and kept in its
//! [`ModelCache`](cmem_core::align::ModelCache).

use std::sync::Arc;

use cmem_core::align::{pair_key, WordModel};
use cmem_core::schema::WORD_MODELS_TABLE;
use cmem_core::{Locale, Result};

use crate::error::Context;
use crate::store::PgStore;

impl PgStore {
    pub(crate) fn load_word_model(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<WordModel>>> {
        let key = pair_key(source, target);
        self.word_models.get_or_load(&key, || {
            let mut client = self.db.reader()?;
            let what = || format!("reading the word model of {key}");
            let row = client
                .query_opt(&format!("SELECT model FROM {WORD_MODELS_TABLE} WHERE pair = $1"), &[&key])
                .ctx_with(self.name(), what)?;
            row.map(|r| r.try_get(0)).transpose().ctx_with(self.name(), what)
        })
    }

    pub(crate) fn store_word_model(
        &self,
        source: &Locale,
        target: &Locale,
        model: Arc<WordModel>,
    ) -> Result<()> {
        self.db.refuse_read_only()?;
        let key = pair_key(source, target);
        let text = model.to_saved();
        let mut client = self.db.client()?;
        client
            .execute(
                &format!(
                    "INSERT INTO {WORD_MODELS_TABLE} (pair, model) VALUES ($1, $2) \
                     ON CONFLICT (pair) DO UPDATE SET model = excluded.model"
                ),
                &[&key, &text],
            )
            .ctx_with(self.name(), || format!("saving the word model of {key}"))?;
        self.word_models.put(&key, model);
        Ok(())
    }
}
