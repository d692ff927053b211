//! The word index of a [`GramIndex`]: for each word of its plain keys (in lower case, as
//! [`crate::align::words`] and [`crate::align::fold`] read a text), the keys holding it,
//! with how many live keys do and how many words each key has. A producer's context
//! draws its examples from it (see [`crate::lookup::producer`]).
//!
//! It is derived from the gram index alone, never stored: built on the first word search
//! from the keys the index holds (persisted or added), caught up on each later search
//! with the keys added since (key numbers only grow), and told by
//! [`GramIndex::remove`] of the keys that die, so its counts are those of the live keys.
//! Whatever keeps the gram index current (a store's change log, its own writes) keeps it
//! current too; a gram index built anew starts a new one.

use std::sync::{PoisonError, RwLockReadGuard};

use rustc_hash::FxHashMap;

use crate::align::{fold, words};
use crate::index::query::WordHit;
use crate::model::key::KeyKind;

use super::GramIndex;

/// BM25's saturation of a word's occurrences; with one posting per distinct word, only
/// its share in the length normalization is left.
const K1: f64 = 1.2;
/// BM25's length normalization.
const B: f64 = 0.75;

/// See the [module docs](self).
#[derive(Debug, Default)]
pub(crate) struct Words {
    /// Keys numbered below this were looked at.
    upto: u32,
    vocab: FxHashMap<Box<str>, u32>,
    /// Per word: the keys holding it, ascending (dead ones included: see `lens`).
    postings: Vec<Vec<u32>>,
    /// Per word: the live keys holding it.
    df: Vec<u32>,
    /// Per key: its number of words; 0 for a key not indexed (not a plain key, no word,
    /// or dead).
    lens: Vec<u16>,
    /// Live keys indexed.
    live: u64,
    /// Their words, summed.
    total: u64,
}

/// The distinct folded words of `text`, in order, and how many words it has.
fn distinct_words(text: &str) -> (Vec<String>, usize) {
    let spans = words(text);
    let mut out: Vec<String> = Vec::with_capacity(spans.len());
    for (a, b) in &spans {
        let w = fold(&text[*a..*b]);
        if !out.contains(&w) {
            out.push(w);
        }
    }
    (out, spans.len())
}

impl Words {
    /// Indexes the keys of `ix` numbered from `upto` on.
    fn catch_up(&mut self, ix: &GramIndex) {
        let count = ix.doc_count() as u32;
        if self.upto >= count {
            return;
        }
        self.lens.resize(count as usize, 0);
        for d in self.upto..count {
            let Some(doc) = ix.doc(d) else { continue };
            if !doc.kinds.contains(KeyKind::Plain) {
                continue;
            }
            let Some(key) = doc.key.get() else { continue };
            let (distinct, n) = distinct_words(key);
            if distinct.is_empty() {
                continue;
            }
            let n = u16::try_from(n).unwrap_or(u16::MAX);
            self.lens[d as usize] = n;
            self.live += 1;
            self.total += u64::from(n);
            for w in distinct {
                let next = self.postings.len() as u32;
                let id = *self.vocab.entry(w.into_boxed_str()).or_insert(next);
                if id == next {
                    self.postings.push(Vec::new());
                    self.df.push(0);
                }
                self.postings[id as usize].push(d);
                self.df[id as usize] += 1;
            }
        }
        self.upto = count;
    }

    /// Key `d`, whose text is `key`, dies: its words count it no more.
    pub(super) fn forget(&mut self, d: u32, key: &str) {
        let Some(len) = self.lens.get_mut(d as usize).filter(|l| **l > 0) else { return };
        self.live -= 1;
        self.total -= u64::from(*len);
        *len = 0;
        for w in distinct_words(key).0 {
            if let Some(&id) = self.vocab.get(w.as_str()) {
                self.df[id as usize] = self.df[id as usize].saturating_sub(1);
            }
        }
    }

    /// Whether the index was built (a key dying before that needs no telling).
    pub(super) fn built(&self) -> bool {
        self.upto > 0
    }

    /// The bytes it holds on the heap, about.
    fn heap_bytes(&self) -> usize {
        let vocab: usize = self.vocab.keys().map(|k| k.len() + 16 + 8).sum();
        let postings: usize = self.postings.iter().map(|p| p.capacity() * 4 + 24).sum();
        vocab + postings + self.df.capacity() * 4 + self.lens.capacity() * 2
    }
}

/// One word search over one gram index: its word index read-locked, caught up first.
pub(crate) struct WordSearch<'a> {
    ix: &'a GramIndex,
    words: RwLockReadGuard<'a, Words>,
    /// The query's words' numbers in the index (`None`: no key holds it).
    ids: Vec<Option<u32>>,
    /// Per key: the summed rarity of the query's words it holds (a buffer of the
    /// index's, zeroed again and given back when the search ends).
    acc: Vec<f32>,
    /// The keys with a non-zero `acc` (a buffer given back with it).
    touched: Vec<u32>,
}

impl GramIndex {
    /// Begins a word search for `query` (folded words), catching the word index up with
    /// the keys added since it was last read.
    pub(crate) fn word_search(&self, query: &[String]) -> WordSearch<'_> {
        let current = {
            let w = self.words.read().unwrap_or_else(PoisonError::into_inner);
            w.upto as usize == self.doc_count()
        };
        if !current {
            self.words.write().unwrap_or_else(PoisonError::into_inner).catch_up(self);
        }
        let words = self.words.read().unwrap_or_else(PoisonError::into_inner);
        let ids = query.iter().map(|w| words.vocab.get(w.as_str()).copied()).collect();
        WordSearch { ix: self, words, ids, acc: Vec::new(), touched: Vec::new() }
    }

    /// The heap bytes of the word index (0 before the first word search).
    pub fn word_index_bytes(&self) -> usize {
        self.words.read().unwrap_or_else(PoisonError::into_inner).heap_bytes()
    }
}

impl WordSearch<'_> {
    /// Live keys indexed, their words summed, and per query word the live keys holding
    /// it.
    pub(crate) fn counts(&self) -> (u64, u64, Vec<u64>) {
        let df = self.ids.iter().map(|id| id.map_or(0, |id| u64::from(self.words.df[id as usize]))).collect();
        (self.words.live, self.words.total, df)
    }

    /// Adds up, per key, the rarity `idf` of each query word it holds, in the query's
    /// order (the same sum in every index holding the same keys).
    pub(crate) fn score(&mut self, idf: &[f64]) {
        (self.acc, self.touched) = {
            let mut spare = self.ix.scratch.lock().unwrap_or_else(PoisonError::into_inner);
            spare.pop().unwrap_or_default()
        };
        // A kept buffer is all zeros: only its length may need to grow.
        self.acc.resize(self.words.upto as usize, 0.0);
        for (id, w) in self.ids.iter().zip(idf) {
            let Some(id) = id else { continue };
            let w = *w as f32;
            for &d in &self.words.postings[*id as usize] {
                let d = d as usize;
                if self.words.lens[d] == 0 {
                    continue;
                }
                if self.acc[d] == 0.0 {
                    self.touched.push(d as u32);
                }
                self.acc[d] += w;
            }
        }
    }

    /// Key `d`'s score: BM25 with each word once, over the mean length `avg`.
    fn score_of(&self, d: u32, avg: f64) -> f64 {
        let len = f64::from(self.words.lens.get(d as usize).copied().unwrap_or(0));
        let norm = (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * len / avg.max(1.0)));
        f64::from(self.acc.get(d as usize).copied().unwrap_or(0.0)) * norm
    }

    /// Offers every scored key to `top`.
    pub(crate) fn best(&self, avg: f64, accept: &dyn Fn(u32) -> bool, top: &mut TopHits) {
        for &d in &self.touched {
            self.offer(d, avg, accept, top);
        }
    }

    /// Offers the keys holding query word `w` to `top`.
    pub(crate) fn holding(&self, w: usize, avg: f64, accept: &dyn Fn(u32) -> bool, top: &mut TopHits) {
        let Some(Some(id)) = self.ids.get(w) else { return };
        for &d in &self.words.postings[*id as usize] {
            if self.words.lens[d as usize] > 0 {
                self.offer(d, avg, accept, top);
            }
        }
    }

    /// Offers key `d` to `top` when it can enter and its entry has the pair (`accept`).
    fn offer(&self, d: u32, avg: f64, accept: &dyn Fn(u32) -> bool, top: &mut TopHits) {
        let score = self.score_of(d, avg);
        if !top.may_take(score) {
            return;
        }
        let Some(doc) = self.ix.doc(d) else { return };
        if !accept(doc.group) {
            return;
        }
        let Some(key) = doc.key.get() else { return };
        top.take(WordHit { entry: doc.entry, key: key.to_owned(), score, alone: None });
    }
}

impl Drop for WordSearch<'_> {
    /// Zeroes what the search wrote into its buffer and gives it back: the next search
    /// neither allocates nor touches fresh pages for it.
    fn drop(&mut self) {
        if self.acc.is_empty() {
            return;
        }
        for &d in &self.touched {
            if let Some(a) = self.acc.get_mut(d as usize) {
                *a = 0.0;
            }
        }
        self.touched.clear();
        let mut spare = self.ix.scratch.lock().unwrap_or_else(PoisonError::into_inner);
        // One pair of buffers per search running at once, a few at most.
        if spare.len() < 4 {
            spare.push((std::mem::take(&mut self.acc), std::mem::take(&mut self.touched)));
        }
    }
}

/// The best hits, each text once: by score, ties by entry.
#[derive(Debug)]
pub(crate) struct TopHits {
    limit: usize,
    hits: Vec<WordHit>,
}

impl TopHits {
    pub(crate) fn new(limit: usize) -> TopHits {
        TopHits { limit, hits: Vec::with_capacity(limit + 1) }
    }

    /// Whether a hit of `score` could enter.
    fn may_take(&self, score: f64) -> bool {
        self.limit > 0 && (self.hits.len() < self.limit || self.hits.last().is_some_and(|l| score >= l.score))
    }

    fn before(a: &WordHit, b: &WordHit) -> bool {
        a.score > b.score || (a.score == b.score && a.entry < b.entry)
    }

    /// Takes `hit` when it is among the best, keeping one hit of each text (the better).
    pub(crate) fn take(&mut self, hit: WordHit) {
        if let Some(i) = self.hits.iter().position(|h| h.key == hit.key) {
            if !Self::before(&hit, &self.hits[i]) {
                return;
            }
            self.hits.remove(i);
        } else if self.hits.len() >= self.limit && self.hits.last().is_some_and(|l| !Self::before(&hit, l)) {
            return;
        }
        let at = self.hits.iter().position(|h| Self::before(&hit, h)).unwrap_or(self.hits.len());
        self.hits.insert(at, hit);
        self.hits.truncate(self.limit);
    }

    pub(crate) fn into_hits(self) -> Vec<WordHit> {
        self.hits
    }
}
