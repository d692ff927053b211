//! [`Reopening`]: a store whose candidate queries are each answered by a store opened
//! for the query, as another process (a restarted server, a one-shot `cmem lookup`)
//! opens the memory: through whatever index the first left behind, caught up with the
//! writes since. Run through [`conformance_suite!`](crate::conformance_suite), it holds
//! a persisted index to the same rules as one built in the process.

use cmem_core::store::learn::given_glossary;
use cmem_core::store::{CandidateQuery, CandidateSink, ExactQuery, ReadScope, ScopedReads, WriteSession};
use cmem_core::{Capabilities, ContentMemoryExt, IndexControl, WordAnswer, WordIndex, WordModels, WordQuery};
use cmem_core::{
    ContentMemory, Entry, EntryId, Locale, NewEntry, Result, SearchHit, SearchQuery, Stats, WriteOutcome,
};

/// Opens another store on the same memory.
pub type Reopen = Box<dyn Fn() -> Result<Box<dyn ContentMemory>> + Send + Sync>;

/// A store under test, what it needs kept alive (a temporary directory, say) and,
/// optionally, how candidate queries open a store of their own. Every other call goes
/// to the store.
pub struct Reopening {
    store: Box<dyn ContentMemory>,
    reopen: Option<Reopen>,
    _keep: Box<dyn std::any::Any + Send + Sync>,
}

impl Reopening {
    /// `store`, whose candidate queries are each answered by a store `reopen` opens;
    /// `keep` lives as long as it does.
    pub fn new(
        store: impl ContentMemory + 'static,
        reopen: impl Fn() -> Result<Box<dyn ContentMemory>> + Send + Sync + 'static,
        keep: impl std::any::Any + Send + Sync,
    ) -> Reopening {
        Reopening { store: Box::new(store), reopen: Some(Box::new(reopen)), _keep: Box::new(keep) }
    }

    /// `store` answering everything itself, with `keep` living as long as it does.
    pub fn keeping(store: impl ContentMemory + 'static, keep: impl std::any::Any + Send + Sync) -> Reopening {
        Reopening { store: Box::new(store), reopen: None, _keep: Box::new(keep) }
    }
}

impl std::fmt::Debug for Reopening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reopening").field("reopens", &self.reopen.is_some()).finish_non_exhaustive()
    }
}

impl ContentMemory for Reopening {
    fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        self.store.write(entries)
    }
    fn begin(&self) -> Result<Box<dyn WriteSession + '_>> {
        self.store.begin()
    }
    fn replace(&self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        self.store.replace(id, entry)
    }
    fn get(&self, id: EntryId) -> Result<Option<Entry>> {
        self.store.get(id)
    }
    fn get_many(&self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.store.get_many(ids)
    }
    fn delete(&self, id: EntryId) -> Result<bool> {
        self.store.delete(id)
    }
    fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>> {
        self.store.entries(after, limit)
    }
    fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.store.exact(q)
    }
    fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        match &self.reopen {
            Some(reopen) => reopen()?.candidates(q, sink),
            None => self.store.candidates(q, sink),
        }
    }
    fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        self.store.search(q)
    }
    fn stats(&self) -> Result<Stats> {
        self.store.stats()
    }
    // The store's capabilities, with the index, word models and word index answered
    // here: a lookup's candidates, a word model and a word search come from a store
    // opened for each.
    fn capabilities(&self) -> Capabilities<'_> {
        let inner = self.store.capabilities();
        let mut caps = inner;
        if inner.index.is_some() {
            caps = caps.index(self);
        }
        if inner.word_models.is_some() {
            caps = caps.word_models(self);
        }
        if inner.words.is_some() {
            caps = caps.words(self);
        }
        caps
    }
}

impl WordIndex for Reopening {
    fn words(&self, q: &WordQuery<'_>) -> Result<Option<WordAnswer>> {
        match &self.reopen {
            Some(reopen) => reopen()?.word_search(q),
            None => self.store.word_search(q),
        }
    }
}

impl IndexControl for Reopening {
    fn warm(&self, source: &Locale) -> Result<()> {
        self.store.warm(source)
    }
    fn index_persists(&self) -> bool {
        self.store.index_persists()
    }
    // The store's own scope, so its lookups check their index once as they do unwrapped,
    // with the candidate queries still answered by a store opened for each.
    fn read_scope(&self, source: &Locale) -> Result<ReadScope<'_>> {
        Ok(ReadScope::new(ReopeningReads {
            scope: self.store.read_scope(source)?,
            reopen: self.reopen.as_ref(),
        }))
    }
    fn change_mark(&self) -> Result<Option<u64>> {
        self.store.change_mark()
    }
    fn source_locales(&self) -> Result<Option<Vec<Locale>>> {
        self.store.source_locales().map(Some)
    }
}

impl WordModels for Reopening {
    fn word_model(
        &self,
        source: &cmem_core::Locale,
        target: &cmem_core::Locale,
    ) -> Result<Option<std::sync::Arc<cmem_core::align::WordModel>>> {
        // Through another store, like candidates: a model must be kept, not only cached.
        match &self.reopen {
            Some(reopen) => reopen()?.word_model(source, target),
            None => self.store.word_model(source, target),
        }
    }
    fn save_word_model(
        &self,
        source: &cmem_core::Locale,
        target: &cmem_core::Locale,
        model: std::sync::Arc<cmem_core::align::WordModel>,
    ) -> Result<()> {
        self.store.save_word_model(source, target, model)
    }
    fn given_glossary(
        &self,
        source: &cmem_core::Locale,
        target: &cmem_core::Locale,
    ) -> Result<Option<std::sync::Arc<cmem_core::align::Glossary>>> {
        // As the word model: what a store opened for the read keeps.
        let glossary = match &self.reopen {
            Some(reopen) => given_glossary(&*reopen()?, source, target)?,
            None => given_glossary(&*self.store, source, target)?,
        };
        Ok(Some(glossary))
    }
}

/// A lookup's reads in a [`Reopening`]: through the store's scope, but for candidates
/// when a store is opened for each query.
struct ReopeningReads<'a> {
    scope: ReadScope<'a>,
    reopen: Option<&'a Reopen>,
}

impl ScopedReads for ReopeningReads<'_> {
    fn exact(&mut self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.scope.exact(q)
    }
    fn candidates(&mut self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        match self.reopen {
            Some(reopen) => reopen()?.candidates(q, sink),
            None => self.scope.candidates(q, sink),
        }
    }
    fn get_many(&mut self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.scope.get_many(ids)
    }
    fn confirm(&mut self) -> Result<bool> {
        self.scope.confirm()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use cmem_core::{lookup, LookupRequest, MemStore, Run, Variant};

    #[test]
    fn a_lookups_candidates_come_from_the_reopened_store() {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let store = MemStore::new();
        store
            .write(&[NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text("Open the file")]),
                Variant::new(de.clone(), vec![Run::text("Datei öffnen")]),
            )])
            .unwrap();
        let req = LookupRequest::new(vec![Run::text("Open the files")], en, de);
        assert_eq!(lookup(&store, &req).unwrap().len(), 1, "a fuzzy match in the store itself");
        // Reopened as an empty memory: a lookup that reads through the scope the wrapper
        // gives still asks the reopened store for its candidates, and finds none.
        let reopening = Reopening::new(store, || Ok(Box::new(MemStore::new()) as Box<dyn ContentMemory>), ());
        assert!(lookup(&reopening, &req).unwrap().is_empty());
    }
}
