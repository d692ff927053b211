//! Word models ([`cmem_core::align`]) in `tm_word_models`: one row per locale pair,
//! replaced whole in one transaction that also counts the pair's saves in the meta table
//! (its stamp) and raises the change counter, so that every process's answers and
//! cached model follow: a store keeps the model in its
//! [`ModelCache`](cmem_core::align::ModelCache) and reads it again only when the counter
//! and the stamp both moved.

use std::sync::Arc;

use cmem_core::align::{pair_key, stamp_key, WordModel};
use cmem_core::store::schema::{META_TABLE, WORD_MODELS_TABLE};
use cmem_core::{IndexControl, Locale, Result};

use crate::error::Context;
use crate::migrate::META_CHANGES;
use crate::store::PgStore;

impl PgStore {
    pub(crate) fn load_word_model(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<WordModel>>> {
        let key = pair_key(source, target);
        let name = &self.db.name;
        let read = |sql: String, param: String, what: String| -> Result<Option<String>> {
            let mut client = self.db.reader()?;
            let row = client.query_opt(&sql, &[&param]).ctx_with(name, || what.clone())?;
            row.map(|r| r.try_get(0)).transpose().ctx_with(name, || what)
        };
        let stamp = || {
            read(
                format!("SELECT value FROM {META_TABLE} WHERE key = $1"),
                stamp_key(&key),
                format!("reading the stamp of the word model of {key}"),
            )
        };
        let load = || {
            read(
                format!("SELECT model FROM {WORD_MODELS_TABLE} WHERE pair = $1"),
                key.clone(),
                format!("reading the word model of {key}"),
            )
        };
        self.word_models.get_or_load_checked(&key, self.change_mark()?, stamp, load)
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
        let name = &self.db.name;
        let what = || format!("saving the word model of {key}");
        let mut client = self.db.client()?;
        let mut tx = client.transaction().ctx_with(name, what)?;
        tx.execute(
            &format!(
                "INSERT INTO {WORD_MODELS_TABLE} (pair, model) VALUES ($1, $2) \
                 ON CONFLICT (pair) DO UPDATE SET model = excluded.model"
            ),
            &[&key, &text],
        )
        .ctx_with(name, what)?;
        // The stamp other processes compare: this pair's saves, counted.
        let stamp: String = tx
            .query_one(
                &format!(
                    "INSERT INTO {META_TABLE} (key, value) VALUES ($1, '1') \
                     ON CONFLICT (key) DO UPDATE SET value = ({META_TABLE}.value::bigint + 1)::text \
                     RETURNING value"
                ),
                &[&stamp_key(&key)],
            )
            .and_then(|r| r.try_get(0))
            .ctx_with(name, what)?;
        // A new model changes answers: the counter every cache of answers and models reads.
        tx.execute(
            &format!("UPDATE {META_TABLE} SET value = (value::bigint + 1)::text WHERE key = $1"),
            &[&META_CHANGES],
        )
        .ctx_with(name, what)?;
        tx.commit().ctx_with(name, what)?;
        self.word_models.put_stamped(&key, model, Some(stamp));
        Ok(())
    }
}
