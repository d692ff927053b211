//! The store trait every backend implements, and the queries it answers.
//!
//! Stores retrieve; they do not score. Exact-key hits and fuzzy *candidates* come from
//! the store; tiers, scores, ambiguity, points, ordering and adaptation live once in
//! [`lookup`](crate::lookup()), so every store ranks identically (SPEC §8).

use crate::entry::{Entry, EntryId, NewEntry, WriteOutcome};
use crate::error::Result;
use crate::key::{KeyKind, KindSet};
use crate::locale::Locale;
use crate::version::VersionReader;

/// Entries whose source variant has one key equal to a given key.
#[derive(Debug, Clone, Copy)]
pub struct ExactQuery<'a> {
    /// Which key.
    pub kind: KeyKind,
    /// The normalized key text.
    pub key: &'a str,
    /// The source locale (prefix rule).
    pub source: &'a Locale,
    /// The target locale (prefix rule); the entry must have such a variant.
    pub target: &'a Locale,
}

/// A request for fuzzy candidates of one query key.
#[derive(Debug, Clone, Copy)]
pub struct CandidateQuery<'a> {
    /// The normalized query key.
    pub key: &'a str,
    /// The kinds of stored keys to compare it with.
    pub kinds: KindSet,
    /// The source locale (prefix rule).
    pub source: &'a Locale,
    /// The target locale (prefix rule); only entries with such a variant are offered.
    pub target: &'a Locale,
}

/// Receives fuzzy candidates from a store and scores them.
pub trait CandidateSink {
    /// Offers the stored key `key`, which stands for the `kinds` of a source variant of
    /// entry `id`. Returns the new cut-off.
    fn offer(&mut self, id: EntryId, kinds: KindSet, key: &str) -> f64;

    /// [`offer`](CandidateSink::offer) with what a store's index keeps beside the key:
    /// its length in characters (the sink need not count it) and its
    /// [`CharSketch`](crate::distance::CharSketch) (the sink may rule the key out by it
    /// without comparing the texts).
    fn offer_sketched(
        &mut self,
        id: EntryId,
        kinds: KindSet,
        key: &str,
        len: usize,
        sketch: &crate::distance::CharSketch,
    ) -> f64 {
        let _ = (len, sketch);
        self.offer(id, kinds, key)
    }

    /// The cut-off: the lowest similarity that can still change the result. It only
    /// rises while candidates are offered.
    fn cutoff(&self) -> f64;

    /// How much index a store may read for one query (posting entries, rows) before it
    /// ranks what it has seen and offers that, best first, leaving out keys it has not
    /// seen at all. `usize::MAX` (the default): read whatever exactness needs.
    fn scan_limit(&self) -> usize {
        usize::MAX
    }

    /// How many keys a store offers at most from one index for one query key, most
    /// promising first; past it, it stops. Once it has seen more keys than that, it may
    /// also leave out unseen keys that could reach the cut-off only narrowly.
    /// `usize::MAX` (the default): no limit.
    fn max_candidates(&self) -> usize {
        usize::MAX
    }

    /// The cut-off past [`max_candidates`](CandidateSink::max_candidates): once that many
    /// keys were offered, a store still offers, best first, the keys that can reach it —
    /// they can tie with or beat the best match found, so the ties at the top are all
    /// scored. Above 1 (the default, and a sink's answer while nothing was found): none.
    fn tie_cutoff(&self) -> f64 {
        f64::INFINITY
    }
}

/// One concordance-search hit.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The entry.
    pub entry: Entry,
    /// Relevance; higher is better (BM25 or the store's equivalent).
    pub score: f64,
    /// The matching variant's text with each hit wrapped in `[` `]`.
    pub snippet: String,
}

/// A concordance search: words in one locale's text.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SearchQuery {
    /// The words to find (all of them, case-insensitively).
    pub words: String,
    /// The locale searched (prefix rule).
    pub locale: Locale,
    /// At most this many hits.
    pub limit: usize,
}

impl SearchQuery {
    /// A search for `words` in `locale`, 20 hits at most.
    pub fn new(words: impl Into<String>, locale: Locale) -> Self {
        SearchQuery { words: words.into(), locale, limit: 20 }
    }
}

/// Counts for one locale pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairCount {
    /// The source locale (the entry's first variant).
    pub source: Locale,
    /// Another variant's locale.
    pub target: Locale,
    /// Entries with both.
    pub entries: u64,
}

/// What a store holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stats {
    /// Entries in all.
    pub entries: u64,
    /// Variants in all.
    pub variants: u64,
    /// Entries per locale pair (first variant → each other variant).
    pub pairs: Vec<PairCount>,
    /// Bytes on disk, where the store has a disk.
    pub size_bytes: Option<u64>,
}

/// A content memory backend.
///
/// # Implementer contract
/// - `write` is atomic: all entries of a batch are stored, or none (and the error says
///   why). An entry equal to a stored one in locales, runs, point and unit is not
///   duplicated: its new origins are appended ([`WriteOutcome::Deduplicated`]).
/// - `candidates` offers the sink **every** stored key whose similarity with the query
///   key could reach the sink's current [`cutoff`](CandidateSink::cutoff) (a superset
///   is fine, duplicates are harmless), and may stop once no unseen key can reach it.
///   Better-first order lets it stop sooner. It never scans every entry when an index
///   can narrow the search. The one exception is the sink's
///   [`scan_limit`](CandidateSink::scan_limit): past it, a store offers the keys it has
///   seen, most promising first, and may leave out keys it has not seen; and the sink's
///   [`max_candidates`](CandidateSink::max_candidates), after which it stops offering
///   (and, once it has seen more keys than that, it may leave out unseen keys that could
///   reach the cut-off only narrowly).
/// - Nothing panics on input the model accepts; failures are [`Error`](crate::Error)s.
/// - Locales match by the prefix rule of SPEC §3.
pub trait ContentMemory: Send + Sync {
    /// Writes a batch of entries in one transaction.
    ///
    /// # Errors
    /// An invalid entry (see [`NewEntry::validate`]) or a store failure; nothing of the
    /// batch is then stored.
    fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>>;

    /// One entry by id.
    ///
    /// # Errors
    /// A store failure.
    fn get(&self, id: EntryId) -> Result<Option<Entry>>;

    /// Deletes an entry; false when there was none.
    ///
    /// # Errors
    /// A store failure.
    fn delete(&self, id: EntryId) -> Result<bool>;

    /// Entries in id order after `after` (all when `None`), at most `limit`: for export.
    ///
    /// # Errors
    /// A store failure.
    fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>>;

    /// Entries whose source variant's key of `q.kind` equals `q.key`, in id order.
    ///
    /// # Errors
    /// A store failure.
    fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>>;

    /// Offers fuzzy candidates to `sink`; see the trait's contract.
    ///
    /// # Errors
    /// A store failure.
    fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()>;

    /// Concordance search, best first.
    ///
    /// # Errors
    /// A store failure.
    fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>>;

    /// Counts and size.
    ///
    /// # Errors
    /// A store failure.
    fn stats(&self) -> Result<Stats>;

    /// The version-chain capability, when the store has it.
    fn version_reader(&self) -> Option<&dyn VersionReader> {
        None
    }
}

macro_rules! forward_store {
    ($($ty:ty),*) => {$(
        impl<T: ContentMemory + ?Sized> ContentMemory for $ty {
            fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
                (**self).write(entries)
            }
            fn get(&self, id: EntryId) -> Result<Option<Entry>> {
                (**self).get(id)
            }
            fn delete(&self, id: EntryId) -> Result<bool> {
                (**self).delete(id)
            }
            fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>> {
                (**self).entries(after, limit)
            }
            fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
                (**self).exact(q)
            }
            fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
                (**self).candidates(q, sink)
            }
            fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
                (**self).search(q)
            }
            fn stats(&self) -> Result<Stats> {
                (**self).stats()
            }
            fn version_reader(&self) -> Option<&dyn VersionReader> {
                (**self).version_reader()
            }
        }
    )*};
}

forward_store!(&T, Box<T>, std::sync::Arc<T>);
