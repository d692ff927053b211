//! What an index is asked and what it answers to: exact-key queries, fuzzy candidate
//! queries, a stored key as the index hands it over, and the sink that scores candidates.
//! The store trait ([`crate::store::ContentMemory`]) answers the same queries; they live
//! here, beneath it, because the index is their one implementation of the offer order.

use crate::index::distance::CharSketch;
use crate::model::entry::EntryId;
use crate::model::key::{KeyKind, KindSet};
use crate::model::locale::Locale;

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

/// A stored key as an index hands it to a [`CandidateSink`]: its text, or its bytes
/// (a persisted index) checked as UTF-8 only when the sink reads them. A sink that rules
/// the key out by its sketch and length never touches the text.
#[derive(Debug, Clone, Copy)]
pub enum KeyText<'a> {
    /// Text.
    Text(&'a str),
    /// UTF-8 bytes, not yet checked.
    Utf8(&'a [u8]),
}

impl<'a> KeyText<'a> {
    /// The text; `None` when the bytes are not UTF-8 (a damaged index).
    pub fn get(self) -> Option<&'a str> {
        match self {
            KeyText::Text(t) => Some(t),
            KeyText::Utf8(b) => std::str::from_utf8(b).ok(),
        }
    }
}

impl<'a> From<&'a str> for KeyText<'a> {
    fn from(text: &'a str) -> Self {
        KeyText::Text(text)
    }
}

/// Receives fuzzy candidates from a store and scores them.
pub trait CandidateSink {
    /// Offers the stored key `key`, which stands for the `kinds` of a source variant of
    /// entry `id`. Returns the new cut-off.
    fn offer(&mut self, id: EntryId, kinds: KindSet, key: &str) -> f64;

    /// [`offer`](CandidateSink::offer) with what a store's index keeps beside the key:
    /// its length in characters (the sink need not count it) and its
    /// [`CharSketch`](crate::index::distance::CharSketch) (the sink may rule the key out by it
    /// without reading the text at all). A key whose text does not read (a damaged
    /// index) is passed over.
    fn offer_sketched(
        &mut self,
        id: EntryId,
        kinds: KindSet,
        key: KeyText<'_>,
        len: usize,
        sketch: &CharSketch,
    ) -> f64 {
        let _ = (len, sketch);
        match key.get() {
            Some(key) => self.offer(id, kinds, key),
            None => self.cutoff(),
        }
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

    /// Whether the sink holds a match yet. While it holds none, a store may offer more
    /// than [`max_candidates`](CandidateSink::max_candidates) (a gram index of more than
    /// a million keys offers twice as many): the keys offered first may all be
    /// near-copies of a few texts that fall short together, with the match behind
    /// them. True by default: the limit as given.
    fn found(&self) -> bool {
        true
    }

    /// The cut-off past [`max_candidates`](CandidateSink::max_candidates): once that many
    /// keys were offered, a store still offers, best first, the keys that can reach it —
    /// they can tie with or beat the best match found, so the ties at the top are all
    /// scored. Above 1 (the default, and a sink's answer while nothing was found): none.
    fn tie_cutoff(&self) -> f64 {
        f64::INFINITY
    }
}

/// A word search over the source texts a store's candidate index holds: what a
/// producer's context draws its examples from ([`crate::lookup::producer`]). The store
/// retrieves; the ranking is the index's, the same in every store holding the same keys.
#[derive(Debug, Clone)]
pub struct WordQuery<'a> {
    /// The words, each as [`crate::align::fold`] reads a word of
    /// [`crate::align::words`]: lower case, NFC.
    pub words: &'a [String],
    /// The source locale (prefix rule).
    pub source: &'a Locale,
    /// The target locale (prefix rule); only entries with such a variant are answered.
    pub target: &'a Locale,
    /// How many texts holding any of the words to answer, the best first: BM25 over the
    /// plain keys, each word counted once (more of the words, rarer ones, in shorter
    /// texts first), ties by entry.
    pub best: usize,
    /// The words (by position in `words`) the caller holds texts for already: never
    /// searched alone. Missing positions count as false.
    pub covered: Vec<bool>,
    /// How many of the words neither `covered` nor held by a best text get texts of
    /// their own, the rarest first (a word no text holds gets none).
    pub alone: usize,
    /// How many texts each of those words gets, ranked as the best ones are.
    pub alone_hits: usize,
}

/// A text a word search answers: a source variant's plain key and its entry.
#[derive(Debug, Clone, PartialEq)]
pub struct WordHit {
    /// The entry.
    pub entry: EntryId,
    /// The source variant's plain key.
    pub key: String,
    /// Its BM25 score over the query's words.
    pub score: f64,
    /// The word (by position in the query) it was searched for alone; `None`: one of
    /// the best texts.
    pub alone: Option<usize>,
}

/// What a word search answers: how common each word is, and the texts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordAnswer {
    /// The source texts searched (live plain keys with a word, in the source locales).
    pub documents: u64,
    /// Per query word, how many of them hold it.
    pub frequencies: Vec<u64>,
    /// The best texts, best first, each text once; then each word searched alone's
    /// texts, rarest word first.
    pub hits: Vec<WordHit>,
}
