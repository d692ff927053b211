//! Learning a memory's word model: the pairs of a store's entries between two locales,
//! read a page at a time, trained by [`align`](crate::align), which knows no store.

use crate::align::{text_of, AlignOptions, TrainReport, WordModel};
use crate::error::Result;
use crate::model::locale::Locale;
use crate::store::ContentMemory;

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
