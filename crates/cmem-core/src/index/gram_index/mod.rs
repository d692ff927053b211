//! An exact fuzzy-candidate index of padded character trigrams (docs/matching.md §7), shared by the
//! in-memory store and by stores that cache it beside their tables (SQLite).
//!
//! A query counts the grams it shares with every key in the length window (ScanCount),
//! turns each count into an upper bound of the similarity (q-gram count filter and
//! length bound), and offers keys best bound first, stopping when the bound falls under
//! the scorer's cut-off. Keys that share no gram are reached through a by-length list
//! only when their bound can still reach the cut-off. Without a candidate limit the
//! result is exact: the same matches as scoring every entry. With one, the walk offers
//! the most promising keys up to the limit, and the scan may leave the query's most
//! common grams unread once a key sharing none of the others could reach the cut-off
//! only narrowly (see [`GramIndex::offer`]); every key that could tie with the best
//! match found is still offered.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::index::distance::CharSketch;
use crate::index::trigram::padded_grams;
use crate::model::entry::EntryId;
use crate::model::key::{Keys, KindSet};

mod file;
mod filing;
mod posting;
mod reads;
mod same_text;
mod scan;
mod stream;
mod walk;
mod words;

use posting::{Posting, END};
use same_text::{text_hash, SameText};

pub use file::{Bytes, FileMeta, FrozenGrams, CATCH_UP_MOST};
pub use stream::StreamBuild;
pub(crate) use words::{TopHits, WordSearch};

/// One indexed key: everything an offer reads, on one cache line (64 bytes, aligned).
#[derive(Debug)]
#[repr(align(64))]
struct Doc {
    entry: EntryId,
    /// The caller's number for the entry's locale set (see [`LocaleSets`](crate::index::locale_set::LocaleSets)).
    group: u32,
    kinds: KindSet,
    alive: bool,
    /// The key's length in characters, saturating at `u16::MAX`.
    len: u16,
    key: Box<str>,
    /// Beside the key, so the sink can rule it out on the cache line it reads anyway.
    sketch: CharSketch,
}

/// The trigram index of the keys of one locale's variants.
///
/// Removal marks keys dead rather than rewriting posting lists, so a long-lived index
/// with many deletions keeps their space until it is rebuilt.
#[derive(Debug, Default)]
pub struct GramIndex {
    /// The persisted keys this index was opened on, numbered first; `docs` are numbered
    /// after them.
    base: Option<Base>,
    docs: Vec<Doc>,
    /// Gram → keys. Grams are packed scalar values, not attacker-chosen strings, and the
    /// map is hashed for every gram of every key written: a fast non-keyed hash.
    postings: FxHashMap<u64, Posting>,
    by_len: Vec<Vec<u32>>,
    of_entry: HashMap<EntryId, Vec<u32>>,
    /// Grams whose unsorted tail outgrew what [`settle`](GramIndex::settle) leaves.
    unsettled: Vec<u64>,
    /// Keys of the same text (see [`SameText`]).
    same: SameText,
    /// Per added key: its locale set number as a hint (255: 255 or more), so a walk
    /// passes over keys of refused sets without reading their `Doc`s.
    set_hints: Vec<u8>,
    /// One more than the highest locale set number among the added keys.
    added_sets: u32,
    /// The word index derived from the keys, built on the first word search (see
    /// [`words`]).
    words: std::sync::RwLock<words::Words>,
    /// The word searches' buffers (scores per key, zeroed between searches, and the
    /// keys scored), kept for the next search.
    scratch: std::sync::Mutex<Vec<(Vec<f32>, Vec<u32>)>>,
}

/// The persisted part of an index and what changed since it was written.
#[derive(Debug)]
struct Base {
    grams: FrozenGrams,
    /// Per persisted key: forgotten since.
    dead: Vec<bool>,
    dead_count: usize,
    /// The file's locale-set numbers → the caller's.
    group_map: Vec<u32>,
}

impl GramIndex {
    /// An empty index.
    pub fn new() -> Self {
        GramIndex::default()
    }

    /// An index opened on a persisted one (read in place), with no key added yet;
    /// `group_map` turns the file's locale-set numbers into the caller's. Keys added
    /// afterwards are numbered after the file's, as if added to the index it was
    /// written from.
    pub fn with_base(grams: FrozenGrams, group_map: Vec<u32>) -> GramIndex {
        let dead = vec![false; grams.docs()];
        GramIndex { base: Some(Base { grams, dead, dead_count: 0, group_map }), ..GramIndex::default() }
    }

    /// The persisted index this one was opened on, if any.
    pub fn base(&self) -> Option<&FrozenGrams> {
        self.base.as_ref().map(|b| &b.grams)
    }

    /// The number of keys added since the persisted part was written (all of them
    /// without one), dead or alive.
    pub fn added(&self) -> usize {
        self.docs.len()
    }

    /// The persisted form of this index (see [`FrozenGrams`]), whose set numbers are
    /// those of `sets`.
    ///
    /// # Errors
    /// When the index has a persisted part itself, or outgrows the format.
    pub fn to_file(
        &self,
        sets: &crate::index::locale_set::LocaleSets,
        meta: &FileMeta,
    ) -> std::result::Result<Vec<u8>, String> {
        file::write(self, sets, meta)
    }

    /// Writes the persisted form of this index as the file at `path`, streamed (beside
    /// the index, the process holds a fraction of the file, not the file; DESIGN.md §7.4)
    /// and replaced whole ([`replace_with`](crate::atomic_file::replace_with)).
    ///
    /// # Errors
    /// When the index has a persisted part itself, outgrows the format, or the file
    /// cannot be written.
    pub fn persist(
        &self,
        path: &std::path::Path,
        sets: &crate::index::locale_set::LocaleSets,
        meta: &FileMeta,
    ) -> std::io::Result<()> {
        crate::atomic_file::replace_with(path, |file| file::write_to(self, sets, meta, file))
    }

    /// Number of persisted keys (dead ones included).
    fn base_len(&self) -> usize {
        self.base.as_ref().map_or(0, |b| b.dead.len())
    }

    /// Number of keys (dead ones included): one more than the highest key number.
    fn doc_count(&self) -> usize {
        self.base_len() + self.docs.len()
    }

    /// Number of live keys.
    pub fn len(&self) -> usize {
        let base =
            self.base.as_ref().map_or(0, |b| b.dead.len().saturating_sub(b.dead_count + b.grams.dead()));
        base + self.docs.iter().filter(|d| d.alive).count()
    }

    /// True when no key is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Indexes the distinct keys of one variant of `entry`, whose locale set is number
    /// `group` (what [`offer`](GramIndex::offer)'s filter is asked about).
    pub fn add(&mut self, entry: EntryId, group: u32, keys: &Keys) {
        for (key, kinds) in keys.distinct() {
            self.add_key(entry, group, kinds, key);
        }
    }

    /// Indexes one key standing for `kinds` of a variant of `entry` (locale set `group`).
    pub fn add_key(&mut self, entry: EntryId, group: u32, kinds: KindSet, key: &str) {
        let d = self.doc_count() as u32;
        let len = key.chars().count();
        let short = u16::try_from(len).unwrap_or(u16::MAX);
        let base_len = self.base_len();
        let hash = text_hash(key);
        let first = self.same.by_hash.get(&hash).copied().filter(|&(first, _)| {
            (first as usize)
                .checked_sub(base_len)
                .and_then(|i| self.docs.get(i))
                .is_some_and(|doc| &*doc.key == key)
        });
        self.same.file(hash, d, first, base_len);
        match first {
            Some(_) => {
                // Same grams as `first`: chained to it, not listed.
                for g in padded_grams(key) {
                    if let Some(posting) = self.postings.get_mut(&g) {
                        posting.keys += 1;
                    }
                }
            }
            None => {
                for g in padded_grams(key) {
                    if self.postings.entry(g).or_default().push(d, short) {
                        self.unsettled.push(g);
                    }
                }
            }
        }
        if self.by_len.len() <= len {
            self.by_len.resize_with(len + 1, Vec::new);
        }
        self.by_len[len].push(d);
        self.of_entry.entry(entry).or_default().push(d);
        self.set_hints.push(file::set_hint(group));
        self.added_sets = self.added_sets.max(group.saturating_add(1));
        self.docs.push(Doc {
            entry,
            group,
            kinds,
            alive: true,
            len: short,
            key: key.into(),
            sketch: CharSketch::of(key),
        });
    }

    /// The index of many variants at once (entry, locale set, keys), built in parts on
    /// the available cores and joined: the same index as adding them one by one in order.
    pub fn build(variants: &[(EntryId, u32, Keys)]) -> GramIndex {
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        GramIndex::build_in_parts(variants, variants.len().div_ceil(threads.clamp(1, 8)).max(16_384))
    }

    /// [`build`](GramIndex::build) with parts of `chunk` variants.
    fn build_in_parts(variants: &[(EntryId, u32, Keys)], chunk: usize) -> GramIndex {
        let sequential = |part: &[(EntryId, u32, Keys)]| {
            let mut ix = GramIndex::new();
            for (entry, group, keys) in part {
                ix.add(*entry, *group, keys);
            }
            ix
        };
        if chunk == 0 || chunk >= variants.len() {
            let mut ix = sequential(variants);
            ix.settle();
            return ix;
        }
        let parts: Vec<GramIndex> = std::thread::scope(|scope| {
            let handles: Vec<_> =
                variants.chunks(chunk).map(|part| (part, scope.spawn(move || sequential(part)))).collect();
            // A part whose thread failed is built again here.
            handles.into_iter().map(|(part, h)| h.join().unwrap_or_else(|_| sequential(part))).collect()
        });
        let mut parts = parts.into_iter();
        let mut ix = parts.next().unwrap_or_default();
        for part in parts {
            ix.append(part);
        }
        for posting in ix.postings.values_mut() {
            posting.settle();
        }
        ix.unsettled.clear();
        ix
    }

    /// Sorts the keys added since the last merge into the lists where they have grown
    /// past a 64th of the list (or 32 keys), so a query reads little beyond its length
    /// window. Writers call it after each batch; the work is proportional to the lists
    /// merged, and each list is merged again only after a 64th of it was added.
    pub fn settle(&mut self) {
        for gram in std::mem::take(&mut self.unsettled) {
            if let Some(posting) = self.postings.get_mut(&gram) {
                posting.settle();
            }
        }
    }

    /// Adds the keys of `other` after this index's own, numbered on from them.
    fn append(&mut self, mut other: GramIndex) {
        let offset = self.docs.len() as u32;
        // A text both parts hold: `other`'s chain goes on after this one's, and its first
        // key leaves the lists.
        let mut joined = vec![false; other.docs.len()];
        for f in &mut other.same.first {
            if *f != END {
                *f += offset;
            }
        }
        for (hash, (first2, last2)) in std::mem::take(&mut other.same.by_hash) {
            let f2 = first2 as usize;
            match self.same.by_hash.get(&hash).copied() {
                Some((first, last)) if self.docs[first as usize].key == other.docs[f2].key => {
                    self.same.link(last as usize, first2 + offset);
                    self.same.weight[first as usize] += std::mem::take(&mut other.same.weight[f2]);
                    let mut m = f2;
                    while m != END as usize {
                        other.same.first[m] = first;
                        m = other.same.next[m] as usize;
                    }
                    self.same.by_hash.insert(hash, (first, last2 + offset));
                    self.same.chained += 1;
                    joined[f2] = true;
                }
                Some(_) => {}
                None => {
                    self.same.by_hash.insert(hash, (first2 + offset, last2 + offset));
                }
            }
        }
        self.same.next.extend(other.same.next.iter().map(|&n| if n == END { END } else { n + offset }));
        for (i, &n) in other.same.next.iter().enumerate() {
            if n != END {
                self.same.link(offset as usize + i, n + offset);
            }
        }
        self.same.weight.extend_from_slice(&other.same.weight);
        self.same.first.extend_from_slice(&other.same.first);
        self.same.chained += other.same.chained;
        for (gram, posting) in other.postings {
            let target = self.postings.entry(gram).or_default();
            target.keys += posting.keys;
            for (&d, &len) in posting.ids.iter().zip(&posting.lens) {
                if !joined[d as usize] {
                    target.ids.push(d + offset);
                    target.lens.push(len);
                }
            }
            target.merge_if_long();
        }
        if self.by_len.len() < other.by_len.len() {
            self.by_len.resize_with(other.by_len.len(), Vec::new);
        }
        for (mine, theirs) in self.by_len.iter_mut().zip(other.by_len) {
            mine.extend(theirs.into_iter().map(|d| d + offset));
        }
        for (entry, ds) in other.of_entry {
            self.of_entry.entry(entry).or_default().extend(ds.into_iter().map(|d| d + offset));
        }
        self.docs.extend(other.docs);
        self.set_hints.extend(other.set_hints);
        self.added_sets = self.added_sets.max(other.added_sets);
    }

    /// Forgets every key of `entry`.
    pub fn remove(&mut self, entry: EntryId) {
        let base_len = self.base_len();
        let words = self.words.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        for d in self.of_entry.remove(&entry).unwrap_or_default() {
            if let Some(doc) = (d as usize).checked_sub(base_len).and_then(|i| self.docs.get_mut(i)) {
                if doc.alive && words.built() {
                    words.forget(d, &doc.key);
                }
                doc.alive = false;
            }
        }
        if let Some(base) = &mut self.base {
            for &d in base.grams.keys_of(entry) {
                if words.built() && !base.dead.get(d as usize).copied().unwrap_or(true) {
                    if let Some(key) =
                        base.grams.doc(d as usize).and_then(|doc| std::str::from_utf8(doc.key).ok())
                    {
                        words.forget(d, key);
                    }
                }
                if let Some(dead) = base.dead.get_mut(d as usize) {
                    base.dead_count += usize::from(!*dead);
                    *dead = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
