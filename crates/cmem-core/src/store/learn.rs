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
    parse_given(store.meta(&given_terms_key(source, target))?.as_deref(), source, target)
}

/// A kept term list's text read (`None`: none kept).
fn parse_given(text: Option<&str>, source: &Locale, target: &Locale) -> Result<Vec<Term>> {
    match text {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            Error::new(
                ErrorKind::Corrupt,
                format!("the memory's term list of {}: {e}", pair_key(source, target)),
            )
        }),
    }
}

/// The term list a user gave for `source` → `target` as a [`Glossary`]: the one the
/// store keeps ([`WordModels::given_glossary`](crate::store::WordModels::given_glossary)),
/// else read from its metadata and parsed now.
///
/// # Errors
/// A store failure, or a kept list that does not read.
pub fn given_glossary(store: &dyn ContentMemory, source: &Locale, target: &Locale) -> Result<Arc<Glossary>> {
    if let Some(models) = store.capabilities().word_models {
        if let Some(glossary) = models.given_glossary(source, target)? {
            return Ok(glossary);
        }
    }
    Ok(Arc::new(Glossary::new(given_terms(store, source, target)?)))
}

/// The given term lists of locale pairs, parsed into glossaries once per memory and
/// process: what a store keeps beside its [`ModelCache`](crate::align::ModelCache), so
/// that a lookup with terms neither reads nor parses the list while nothing changed.
/// A list is kept with the store's [change mark](crate::store::IndexControl::change_mark)
/// it was read under, and used while the mark stays; when the mark moved, or the store
/// cannot tell (`None`), the list's text is read again and parsed again only when it
/// differs from the kept one. The mark must move with every change to the metadata, by
/// this process or another.
#[derive(Debug, Default)]
pub struct GivenCache {
    lists: std::sync::RwLock<rustc_hash::FxHashMap<String, KeptList>>,
}

/// A pair's list as read: its text, the glossary parsed from it, and the change mark it
/// was read under.
#[derive(Debug)]
struct KeptList {
    text: Option<String>,
    glossary: Arc<Glossary>,
    mark: Option<u64>,
}

impl GivenCache {
    /// The glossary of the list `source` → `target` gave, kept while the store's change
    /// mark is `mark`; else the list is read with `meta` (given the metadata key, it
    /// answers the store's [`meta`](crate::store::MetaStore::meta)) and parsed when its
    /// text is not the kept one.
    ///
    /// # Errors
    /// What `meta` returns, or a kept list that does not read.
    pub fn get_or_read(
        &self,
        source: &Locale,
        target: &Locale,
        mark: Option<u64>,
        meta: impl FnOnce(&str) -> Result<Option<String>>,
    ) -> Result<Arc<Glossary>> {
        let key = given_terms_key(source, target);
        let lists = || self.lists.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(k) = lists().get(&key) {
            if mark.is_some() && k.mark == mark {
                return Ok(Arc::clone(&k.glossary));
            }
        }
        // The mark before the text (the caller read it first): a change between the two
        // moves the mark, and the list is read again next time.
        let text = meta(&key)?;
        let same =
            lists().get(&key).filter(|k| k.text == text).map(|k| (Arc::clone(&k.glossary), k.mark == mark));
        let glossary = match same {
            Some((glossary, true)) => return Ok(glossary),
            Some((glossary, false)) => glossary,
            None => Arc::new(Glossary::new(parse_given(text.as_deref(), source, target)?)),
        };
        self.lists
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, KeptList { text, glossary: Arc::clone(&glossary), mark });
        Ok(glossary)
    }

    /// Forgets the list kept under the metadata key `key`, when one is: what a store's
    /// [`set_meta`](crate::store::MetaStore::set_meta) calls.
    pub fn forget(&self, key: &str) {
        self.lists.write().unwrap_or_else(std::sync::PoisonError::into_inner).remove(key);
    }
}

/// A pair's glossary as lookups, recycle and analyze read it: the list a user gave,
/// taking precedence, and the terms mined from the pair's word model.
#[derive(Debug, Clone, Default)]
pub struct PairGlossary {
    given: Arc<Glossary>,
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
    /// The given list is the one the store keeps, when it keeps one (see
    /// [`given_glossary`]).
    ///
    /// # Errors
    /// A store failure, or a kept list that does not read.
    pub fn with_model(
        store: &dyn ContentMemory,
        source: &Locale,
        target: &Locale,
        model: Option<&WordModel>,
    ) -> Result<PairGlossary> {
        let given = given_glossary(store, source, target)?;
        let mined = model.map(WordModel::glossary).unwrap_or_default();
        Ok(PairGlossary { given, mined })
    }

    /// True when it holds no term.
    pub fn is_empty(&self) -> bool {
        self.given.terms().is_empty() && self.mined.terms().is_empty()
    }

    /// The terms `text` holds as whole words, in its order (see [`Glossary::find`]).
    pub fn find(&self, text: &str) -> Vec<FoundTerm> {
        self.mined.find(text, &[&*self.given])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::store::mem::MemStore;
    use std::cell::Cell;

    fn pair() -> (Locale, Locale) {
        (Locale::parse("en").unwrap(), Locale::parse("de").unwrap())
    }

    fn list(target: &str) -> Option<String> {
        Some(serde_json::to_string(&[Term::given("file manager", target)]).unwrap())
    }

    /// While the mark stays the kept glossary is used unread; a moved mark reads the
    /// text, and parses it again only when it changed; no mark reads it every time.
    #[test]
    fn a_given_list_is_read_again_only_when_the_mark_moved() {
        let (en, de) = pair();
        let cache = GivenCache::default();
        let reads = Cell::new(0);
        let key = given_terms_key(&en, &de);
        let read = |text: Option<String>| {
            let (reads, key) = (&reads, &key);
            move |asked: &str| {
                assert_eq!(asked, key);
                reads.set(reads.get() + 1);
                Ok(text)
            }
        };
        let first = cache.get_or_read(&en, &de, Some(1), read(list("Dateimanager"))).unwrap();
        assert_eq!(first.terms()[0].target, "Dateimanager");
        let again = cache.get_or_read(&en, &de, Some(1), read(list("not read"))).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(reads.get(), 1, "the mark stayed: no read");
        let same = cache.get_or_read(&en, &de, Some(2), read(list("Dateimanager"))).unwrap();
        assert!(Arc::ptr_eq(&first, &same), "the text stayed: not parsed again");
        assert_eq!(reads.get(), 2);
        let newer = cache.get_or_read(&en, &de, Some(3), read(list("Dateiverwaltung"))).unwrap();
        assert_eq!(newer.terms()[0].target, "Dateiverwaltung");
        for _ in 0..2 {
            let unmarked = cache.get_or_read(&en, &de, None, read(list("Dateiverwaltung"))).unwrap();
            assert!(Arc::ptr_eq(&newer, &unmarked));
        }
        assert_eq!(reads.get(), 5, "no mark: read each time");
        let gone = cache.get_or_read(&en, &de, None, read(None)).unwrap();
        assert!(gone.terms().is_empty());
        let err = cache.get_or_read(&en, &de, None, read(Some("{broken".into()))).unwrap_err();
        assert!(err.to_string().contains("term list of en de"), "{err}");
        cache.forget(&given_terms_key(&en, &de));
        let back = cache.get_or_read(&en, &de, Some(3), read(list("Dateimanager"))).unwrap();
        assert_eq!(back.terms()[0].target, "Dateimanager", "forgotten: read again under a kept mark");
    }

    /// The in-memory store keeps the parsed list and follows its own `set_meta`.
    #[test]
    fn the_in_memory_store_keeps_its_given_list_parsed() {
        let (en, de) = pair();
        let store = MemStore::new();
        assert!(given_glossary(&store, &en, &de).unwrap().terms().is_empty());
        store.set_meta(&given_terms_key(&en, &de), &list("Dateimanager").unwrap()).unwrap();
        let first = given_glossary(&store, &en, &de).unwrap();
        assert_eq!(first.terms()[0].target, "Dateimanager");
        assert!(Arc::ptr_eq(&first, &given_glossary(&store, &en, &de).unwrap()));
        store.set_meta(&given_terms_key(&en, &de), &list("Dateiverwaltung").unwrap()).unwrap();
        assert_eq!(given_glossary(&store, &en, &de).unwrap().terms()[0].target, "Dateiverwaltung");
    }
}
