//! Learning a memory's word model: the pairs of a store's entries between two locales,
//! read a page at a time, trained by [`align`](crate::align), which knows no store.

use std::sync::Arc;

use crate::align::{pair_key, text_of, AlignOptions, FoundTerm, Glossary, Term, TrainReport, WordModel};
use crate::error::{Error, ErrorKind, Result};
use crate::model::locale::Locale;
use crate::store::{ContentMemory, ContentMemoryExt};

/// Trains the word model of `source` → `target` over every entry of `store` that has both
/// (the variants a lookup between them would use), reading the entries a page at a time.
///
/// # Errors
/// A store failure.
pub fn train_store(
    store: &dyn ContentMemory,
    source: &Locale,
    target: &Locale,
    opts: &AlignOptions,
) -> Result<(WordModel, TrainReport)> {
    let mut pairs = Vec::new();
    let mut after = None;
    loop {
        let page = store.entries(after, 10_000)?;
        let Some(last) = page.last() else { break };
        after = Some(last.id);
        for entry in &page {
            // The pair a lookup between the two locales would use.
            let Some((si, ti, _)) = entry.lookup_pair(source, target) else { continue };
            pairs.push((entry.id.0, text_of(&entry.variants[si].runs), text_of(&entry.variants[ti].runs)));
        }
    }
    Ok(WordModel::train_identified(pairs, opts))
}

/// The metadata key under which the term list a user gave for `source` → `target` is kept.
pub fn given_terms_key(source: &Locale, target: &Locale) -> String {
    format!("terms {}", pair_key(source, target))
}

/// The term list a user gave for `source` → `target` (kept in the store's metadata),
/// empty when none or when the store keeps no metadata.
///
/// # Errors
/// A store failure, or a kept list that does not read.
pub fn given_terms(store: &dyn ContentMemory, source: &Locale, target: &Locale) -> Result<Vec<Term>> {
    match store.meta(&given_terms_key(source, target))? {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            Error::new(
                ErrorKind::Corrupt,
                format!("the memory's term list of {}: {e}", pair_key(source, target)),
            )
        }),
    }
}

/// A pair's glossary as lookups, recycle and analyze read it: the list a user gave,
/// taking precedence, and the terms mined from the pair's word model.
#[derive(Debug, Clone, Default)]
pub struct PairGlossary {
    given: Glossary,
    mined: Arc<Glossary>,
}

impl PairGlossary {
    /// The glossary of `source` → `target` in `store`: empty without a given list or a
    /// word model.
    ///
    /// # Errors
    /// A store failure, or a kept list or word model that does not read.
    pub fn load(store: &dyn ContentMemory, source: &Locale, target: &Locale) -> Result<PairGlossary> {
        let model = store.word_model(source, target)?;
        PairGlossary::with_model(store, source, target, model.as_deref())
    }

    /// As [`load`](Self::load), with the pair's word model already read (`None`: none).
    ///
    /// # Errors
    /// A store failure, or a kept list that does not read.
    pub fn with_model(
        store: &dyn ContentMemory,
        source: &Locale,
        target: &Locale,
        model: Option<&WordModel>,
    ) -> Result<PairGlossary> {
        let given = Glossary::new(given_terms(store, source, target)?);
        let mined = model.map(WordModel::glossary).unwrap_or_default();
        Ok(PairGlossary { given, mined })
    }

    /// True when it holds no term.
    pub fn is_empty(&self) -> bool {
        self.given.terms().is_empty() && self.mined.terms().is_empty()
    }

    /// The terms `text` holds as whole words, in its order (see [`Glossary::find`]).
    pub fn find(&self, text: &str) -> Vec<FoundTerm> {
        self.mined.find(text, &[&self.given])
    }
}
