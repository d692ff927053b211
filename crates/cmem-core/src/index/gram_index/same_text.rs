//! Keys of the same text: one first key in the posting lists, the others in its chain.

use rustc_hash::FxHashMap;

use super::posting::END;

/// Keys whose text another key added before has: only the first key of a text (its
/// *first*) is in the posting lists, and the others follow it in a chain.
///
/// Why: a multilingual memory holds the same source once per language pair (nearly every
/// source of the benchmark's en-de memory is an en-fr source too), and every repeat cost
/// a posting in each of its grams' lists, a count and a filing per query (DESIGN.md §4.10;
/// what it saves is in docs/performance.md). Keys of one text have the same
/// grams, so at every step of a scan they have the same count and bound: the walk files
/// the first and, when it ranks its cell, puts the whole chain in, each key under its
/// own number. The order of the offers
/// is therefore the one lists holding every key would give. A persisted index keeps the
/// chains (a key's next in its record, a bit per key, a chain's weight), so it offers
/// the same.
#[derive(Debug, Default)]
pub(super) struct SameText {
    /// Hash of a key's text → its first key and the last of its chain. A hash shared
    /// by two texts keeps the first; the other text's keys then stay in the lists.
    pub(super) by_hash: FxHashMap<u64, (u32, u32)>,
    /// Per added key: the next key of its text ([`END`]: none).
    pub(super) next: Vec<u32>,
    /// Per added key: the first of its chain when it is in one, else [`END`].
    pub(super) first: Vec<u32>,
    /// Per added key that is in the lists: the keys of its chain, itself included
    /// (0 for keys in a chain).
    pub(super) weight: Vec<u32>,
    /// One bit per added key: a key follows it in its chain (for a key in the lists: it
    /// heads a chain, its weight is over 1). A query tests this for every key it ranks
    /// and every key of a chain; at a million keys the bits fit a core's cache where the
    /// chains do not, so only a link that exists costs a load.
    pub(super) more: Vec<u64>,
    /// Keys in chains (not in the lists).
    pub(super) chained: usize,
}

impl SameText {
    /// Whether a key follows added key `i` in its chain.
    pub(super) fn more(&self, i: usize) -> bool {
        self.more.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Files key `d` (the added key `d - base`) of text hash `hash`: after the chain
    /// `found` (its first and last key) when a key of its text came before, else as the
    /// first of its text. Its grams are listed only in the second case.
    pub(super) fn file(&mut self, hash: u64, d: u32, found: Option<(u32, u32)>, base: usize) {
        self.next.push(END);
        self.first.push(found.map_or(END, |(f, _)| f));
        match found {
            Some((first, last)) => {
                if let Some(i) = (last as usize).checked_sub(base) {
                    self.link(i, d);
                }
                if let Some(w) = (first as usize).checked_sub(base).and_then(|i| self.weight.get_mut(i)) {
                    *w += 1;
                }
                self.by_hash.insert(hash, (first, d));
                self.weight.push(0);
                self.chained += 1;
            }
            None => {
                self.by_hash.entry(hash).or_insert((d, d));
                self.weight.push(1);
            }
        }
    }

    /// Links added key `i` to key `d`, the next of its chain.
    pub(super) fn link(&mut self, i: usize, d: u32) {
        if let Some(next) = self.next.get_mut(i) {
            *next = d;
            if self.more.len() <= i / 64 {
                self.more.resize(i / 64 + 1, 0);
            }
            self.more[i / 64] |= 1 << (i % 64);
        }
    }
}

/// The hash [`SameText`] files a key's text under.
pub(super) fn text_hash(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    key.hash(&mut h);
    h.finish()
}
