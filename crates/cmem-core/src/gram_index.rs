//! An exact fuzzy-candidate index of padded character trigrams (SPEC §7), shared by the
//! in-memory store and by stores that cache it beside their tables (SQLite).
//!
//! A query counts the grams it shares with every key in the length window (ScanCount),
//! turns each count into an upper bound of the similarity (q-gram count filter and
//! length bound), and offers keys best bound first, stopping when the bound falls under
//! the scorer's cut-off. Keys that share no gram are reached through a by-length list
//! only when their bound can still reach the cut-off. The result is exact: the same
//! matches as scoring every entry.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::entry::EntryId;
use crate::key::{Keys, KindSet};
use crate::store::{CandidateQuery, CandidateSink};
use crate::trigram::{length_bounds, padded_grams, similarity_bound};

#[derive(Debug)]
struct Doc {
    entry: EntryId,
    kinds: KindSet,
    len: u32,
    alive: bool,
    key: Box<str>,
}

/// The trigram index of the keys of one locale's variants.
///
/// Removal marks keys dead rather than rewriting posting lists, so a long-lived index
/// with many deletions keeps their space until it is rebuilt.
#[derive(Debug, Default)]
pub struct GramIndex {
    docs: Vec<Doc>,
    postings: HashMap<u64, Vec<u32>>,
    by_len: Vec<Vec<u32>>,
    of_entry: HashMap<EntryId, Vec<u32>>,
}

thread_local! {
    static SCRATCH: RefCell<(Vec<u16>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

impl GramIndex {
    /// An empty index.
    pub fn new() -> Self {
        GramIndex::default()
    }

    /// Number of live keys.
    pub fn len(&self) -> usize {
        self.docs.iter().filter(|d| d.alive).count()
    }

    /// True when no key is live.
    pub fn is_empty(&self) -> bool {
        self.docs.iter().all(|d| !d.alive)
    }

    /// Indexes the distinct keys of one variant of `entry`.
    pub fn add(&mut self, entry: EntryId, keys: &Keys) {
        for (key, kinds) in keys.distinct() {
            self.add_key(entry, kinds, key);
        }
    }

    /// Indexes one key standing for `kinds` of a variant of `entry`.
    pub fn add_key(&mut self, entry: EntryId, kinds: KindSet, key: &str) {
        let d = self.docs.len() as u32;
        let len = key.chars().count();
        for g in padded_grams(key) {
            self.postings.entry(g).or_default().push(d);
        }
        if self.by_len.len() <= len {
            self.by_len.resize_with(len + 1, Vec::new);
        }
        self.by_len[len].push(d);
        self.of_entry.entry(entry).or_default().push(d);
        self.docs.push(Doc { entry, kinds, len: len as u32, alive: true, key: key.into() });
    }

    /// Forgets every key of `entry`.
    pub fn remove(&mut self, entry: EntryId) {
        for d in self.of_entry.remove(&entry).unwrap_or_default() {
            if let Some(doc) = self.docs.get_mut(d as usize) {
                doc.alive = false;
            }
        }
    }

    /// Offers `sink` every live key whose similarity with `q.key` can reach the sink's
    /// cut-off, best bound first, for entries that `has_target` accepts (the contract of
    /// [`ContentMemory::candidates`](crate::ContentMemory::candidates)).
    pub fn offer(
        &self,
        q: &CandidateQuery<'_>,
        has_target: &dyn Fn(EntryId) -> bool,
        sink: &mut dyn CandidateSink,
    ) {
        let qlen = q.key.chars().count();
        let grams = padded_grams(q.key);
        let g = grams.len();
        let (lo, hi) = length_bounds(qlen, sink.cutoff());
        let usable = |doc: &Doc| doc.alive && !doc.kinds.intersect(q.kinds).is_empty();
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let (counts, touched) = &mut *scratch;
            if counts.len() < self.docs.len() {
                counts.resize(self.docs.len(), 0);
            }
            touched.clear();
            for gram in &grams {
                let Some(list) = self.postings.get(gram) else { continue };
                for &d in list {
                    let doc = &self.docs[d as usize];
                    let len = doc.len as usize;
                    if len < lo || len > hi {
                        continue;
                    }
                    let c = &mut counts[d as usize];
                    if *c == 0 {
                        touched.push(d);
                    }
                    *c = c.saturating_add(1);
                }
            }
            let cutoff = sink.cutoff();
            let mut ranked: Vec<(f64, u32)> = touched
                .iter()
                .filter_map(|&d| {
                    let doc = &self.docs[d as usize];
                    let b = similarity_bound(qlen, g, doc.len as usize, usize::from(counts[d as usize]));
                    (b + 1e-9 >= cutoff && usable(doc)).then_some((b, d))
                })
                .collect();
            ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            for (bound, d) in ranked {
                if bound + 1e-9 < sink.cutoff() {
                    break;
                }
                let doc = &self.docs[d as usize];
                if has_target(doc.entry) {
                    sink.offer(doc.entry, doc.kinds, &doc.key);
                }
            }
            // Keys that share no gram at all, where their lengths still allow it.
            let hi = hi.min(self.by_len.len().saturating_sub(1));
            for len in lo..=hi {
                if similarity_bound(qlen, g, len, 0) + 1e-9 < sink.cutoff() {
                    continue;
                }
                for &d in &self.by_len[len] {
                    let doc = &self.docs[d as usize];
                    if counts[d as usize] == 0 && usable(doc) && has_target(doc.entry) {
                        sink.offer(doc.entry, doc.kinds, &doc.key);
                    }
                }
            }
            for &d in touched.iter() {
                counts[d as usize] = 0;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::similarity;
    use crate::key::normalize_text;
    use crate::locale::Locale;
    use crate::run::Run;

    struct Collect {
        cutoff: f64,
        seen: Vec<(EntryId, String)>,
    }

    impl CandidateSink for Collect {
        fn offer(&mut self, id: EntryId, _kinds: KindSet, key: &str) -> f64 {
            self.seen.push((id, key.to_owned()));
            self.cutoff
        }
        fn cutoff(&self) -> f64 {
            self.cutoff
        }
    }

    #[test]
    fn offers_every_key_above_the_cutoff_and_forgets_removed_ones() {
        let texts = ["Open the file", "Open the files", "Close the file", "x", "Save all", "Open file"];
        let mut ix = GramIndex::new();
        for (i, t) in texts.iter().enumerate() {
            ix.add(EntryId(i as i64 + 1), &Keys::of(&[Run::text(*t)]));
        }
        assert_eq!(ix.len(), texts.len());
        let en = Locale::parse("en").unwrap();
        let key = normalize_text("Open the file");
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        let mut sink = Collect { cutoff: 0.6, seen: Vec::new() };
        ix.offer(&q, &|_| true, &mut sink);
        for (i, t) in texts.iter().enumerate() {
            let offered = sink.seen.iter().any(|(id, _)| id.0 == i as i64 + 1);
            if similarity(&key, t) >= 0.6 {
                assert!(offered, "{t} was not offered");
            }
        }
        ix.remove(EntryId(2));
        assert_eq!(ix.len(), texts.len() - 1);
        let mut sink = Collect { cutoff: 0.6, seen: Vec::new() };
        ix.offer(&q, &|_| true, &mut sink);
        assert!(sink.seen.iter().all(|(id, _)| id.0 != 2));
        let mut sink = Collect { cutoff: 0.6, seen: Vec::new() };
        ix.offer(&q, &|id| id.0 != 1, &mut sink);
        assert!(sink.seen.iter().all(|(id, _)| id.0 != 1));
    }
}
