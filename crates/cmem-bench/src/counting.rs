//! A store wrapper that counts the candidates a lookup scores.

use std::sync::atomic::{AtomicU64, Ordering};

use cmem_core::imp::KindSet;
use cmem_core::index::distance::CharSketch;
use cmem_core::store::{
    CandidateQuery, CandidateSink, ExactQuery, ReadScope, ScopedReads, SearchHit, SearchQuery, Stats,
};
use cmem_core::{
    Capabilities, ContentMemory, ContentMemoryExt, Entry, EntryId, IndexControl, Locale, NewEntry, Result,
    WriteOutcome,
};

/// Forwards to `inner`, counting the keys offered to the scorer.
pub struct Counting<'a> {
    /// The measured store.
    pub inner: &'a dyn ContentMemory,
    /// Keys offered since the last reset.
    pub offered: AtomicU64,
    /// Nanoseconds spent in `candidates`.
    pub candidates_ns: AtomicU64,
    /// Nanoseconds spent in `exact`.
    pub exact_ns: AtomicU64,
}

struct CountingSink<'a> {
    inner: &'a mut dyn CandidateSink,
    offered: u64,
}

impl CandidateSink for CountingSink<'_> {
    fn offer(&mut self, id: EntryId, kinds: KindSet, key: &str) -> f64 {
        self.offered += 1;
        self.inner.offer(id, kinds, key)
    }
    fn offer_sketched(
        &mut self,
        id: EntryId,
        kinds: KindSet,
        key: cmem_core::store::KeyText<'_>,
        len: usize,
        sketch: &CharSketch,
    ) -> f64 {
        self.offered += 1;
        self.inner.offer_sketched(id, kinds, key, len, sketch)
    }
    fn cutoff(&self) -> f64 {
        self.inner.cutoff()
    }
    fn scan_limit(&self) -> usize {
        self.inner.scan_limit()
    }
    fn max_candidates(&self) -> usize {
        self.inner.max_candidates()
    }
    fn found(&self) -> bool {
        self.inner.found()
    }
    fn tie_cutoff(&self) -> f64 {
        self.inner.tie_cutoff()
    }
}

impl Counting<'_> {
    /// Runs `exact`, adding its time to [`exact_ns`](Self::exact_ns).
    fn timed_exact(&self, exact: impl FnOnce() -> Result<Vec<Entry>>) -> Result<Vec<Entry>> {
        let t = std::time::Instant::now();
        let r = exact();
        self.exact_ns.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        r
    }

    /// Runs `candidates` with `sink` wrapped to count its offers, adding its time to
    /// [`candidates_ns`](Self::candidates_ns).
    fn counted_candidates(
        &self,
        sink: &mut dyn CandidateSink,
        candidates: impl FnOnce(&mut dyn CandidateSink) -> Result<()>,
    ) -> Result<()> {
        let mut counting = CountingSink { inner: sink, offered: 0 };
        let t = std::time::Instant::now();
        let r = candidates(&mut counting);
        self.candidates_ns.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.offered.fetch_add(counting.offered, Ordering::Relaxed);
        r
    }
}

/// A lookup's reads in a [`Counting`] store: through the inner store's scope, counted.
struct CountingReads<'a> {
    scope: ReadScope<'a>,
    counting: &'a Counting<'a>,
}

impl ScopedReads for CountingReads<'_> {
    fn exact(&mut self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        let scope = &mut self.scope;
        self.counting.timed_exact(|| scope.exact(q))
    }
    fn candidates(&mut self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        let scope = &mut self.scope;
        self.counting.counted_candidates(sink, |sink| scope.candidates(q, sink))
    }
    fn get_many(&mut self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.scope.get_many(ids)
    }
    fn confirm(&mut self) -> Result<bool> {
        self.scope.confirm()
    }
}

impl ContentMemory for Counting<'_> {
    fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        self.inner.write(entries)
    }
    fn begin(&self) -> Result<Box<dyn cmem_core::imp::WriteSession + '_>> {
        self.inner.begin()
    }
    fn get(&self, id: EntryId) -> Result<Option<Entry>> {
        self.inner.get(id)
    }
    // Forwarded, not left to the default (one `get` each): a store across a network
    // reads a lookup's entries in one round trip, and the benchmark measures that.
    fn get_many(&self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.inner.get_many(ids)
    }
    fn delete(&self, id: EntryId) -> Result<bool> {
        self.inner.delete(id)
    }
    fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>> {
        self.inner.entries(after, limit)
    }
    fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.timed_exact(|| self.inner.exact(q))
    }
    fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        self.counted_candidates(sink, |sink| self.inner.candidates(q, sink))
    }
    fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        self.inner.search(q)
    }
    fn stats(&self) -> Result<Stats> {
        self.inner.stats()
    }
    // Every capability of the measured store, with the index's read scope wrapped here.
    fn capabilities(&self) -> Capabilities<'_> {
        self.inner.capabilities().index(self)
    }
}

impl IndexControl for Counting<'_> {
    fn warm(&self, source: &Locale) -> Result<()> {
        self.inner.warm(source)
    }
    fn index_persists(&self) -> bool {
        self.inner.index_persists()
    }
    // The inner store's scope, wrapped so that a lookup's reads are counted too: a store
    // across a network checks its index is current once per lookup in it, not once per
    // call, and the benchmark measures that.
    fn read_scope(&self, source: &Locale) -> Result<ReadScope<'_>> {
        Ok(ReadScope::new(CountingReads { scope: self.inner.read_scope(source)?, counting: self }))
    }
    fn change_mark(&self) -> Result<Option<u64>> {
        self.inner.change_mark()
    }
    fn source_locales(&self) -> Result<Option<Vec<Locale>>> {
        self.inner.source_locales().map(Some)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use cmem_core::{lookup, Locale, LookupRequest, MemStore, Run, Variant};

    #[test]
    fn a_lookup_through_the_wrapper_has_its_candidates_counted() {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let store = MemStore::new();
        store
            .write(&[NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text("Open the file")]),
                Variant::new(de.clone(), vec![Run::text("Datei öffnen")]),
            )])
            .unwrap();
        let counting =
            Counting { inner: &store, offered: 0.into(), candidates_ns: 0.into(), exact_ns: 0.into() };
        // The lookup reads through the scope the wrapper gives, not through its methods:
        // that scope must count as they do.
        let matches =
            lookup(&counting, &LookupRequest::new(vec![Run::text("Open the files")], en, de)).unwrap();
        assert_eq!(matches.len(), 1);
        assert!(counting.offered.load(Ordering::Relaxed) >= 1);
    }

    #[test]
    fn the_wrapper_keeps_every_capability_of_the_store() {
        let store = MemStore::new();
        let counting =
            Counting { inner: &store, offered: 0.into(), candidates_ns: 0.into(), exact_ns: 0.into() };
        assert_eq!(counting.capabilities().names(), store.capabilities().names());
        assert_eq!(counting.capabilities().names(), ["versions", "index", "meta", "word_models", "words"]);
    }
}
