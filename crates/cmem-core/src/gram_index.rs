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

use std::cell::RefCell;
use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::distance::CharSketch;
use crate::entry::EntryId;
use crate::key::{Keys, KindSet};
use crate::store::{CandidateQuery, CandidateSink, KeyText};
use crate::trigram::{length_bounds, padded_grams, similarity_bound};

mod file;

pub use file::{write_file_with, Bytes, FileMeta, FrozenGrams, CATCH_UP_MOST};

/// One indexed key: everything an offer reads, on one cache line (64 bytes, aligned).
#[derive(Debug)]
#[repr(align(64))]
struct Doc {
    entry: EntryId,
    /// The caller's number for the entry's locale set (see [`LocaleSets`](crate::LocaleSets)).
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
}

/// Keys whose text another key added before has: only the first key of a text (its
/// *first*) is in the posting lists, and the others follow it in a chain.
///
/// Why: a multilingual memory holds the same source once per language pair (nearly every
/// source of the benchmark's en-de memory is an en-fr source too), and every repeat cost
/// a posting in each of its grams' lists, a count and a filing per query (DESIGN.md §82;
/// what it saves is in docs/performance.md). Keys of one text have the same
/// grams, so at every step of a scan they have the same count and bound: the walk files
/// the first and, when it ranks its cell, puts the whole chain in, each key under its
/// own number. The order of the offers
/// is therefore the one the full lists gave, and a persisted index, whose lists hold
/// every key, offers the same.
#[derive(Debug, Default)]
struct SameText {
    /// Hash of a key's text → its first key and the last of its chain. A hash shared
    /// by two texts keeps the first; the other text's keys then stay in the lists.
    by_hash: FxHashMap<u64, (u32, u32)>,
    /// Per added key: the next key of its text ([`END`]: none).
    next: Vec<u32>,
    /// Per added key: the first of its chain when it is in one, else [`END`].
    first: Vec<u32>,
    /// Per added key that is in the lists: the keys of its chain, itself included
    /// (0 for keys in a chain).
    weight: Vec<u32>,
    /// One bit per added key: a key follows it in its chain (for a key in the lists: it
    /// heads a chain, its weight is over 1). A query tests this for every key it ranks
    /// and every key of a chain; at a million keys the bits fit a core's cache where the
    /// chains do not, so only a link that exists costs a load.
    more: Vec<u64>,
    /// Keys in chains (not in the lists).
    chained: usize,
}

impl SameText {
    /// Whether a key follows added key `i` in its chain.
    fn more(&self, i: usize) -> bool {
        self.more.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Links added key `i` to key `d`, the next of its chain.
    fn link(&mut self, i: usize, d: u32) {
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
fn text_hash(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    key.hash(&mut h);
    h.finish()
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

/// One gram's keys as a query reads them: a sorted prefix (with its length directory)
/// and an unsorted tail.
#[derive(Debug, Clone, Copy)]
struct List<'a> {
    ids: &'a [u32],
    lens: &'a [u16],
    sorted: usize,
    starts: &'a [u32],
}

/// The keys holding one gram, each with its length beside it (a scan then reads the
/// list alone, never the lengths of keys outside its window). A prefix is kept sorted by
/// (key length, key number), so a query reads only the keys inside its length window;
/// keys added since the last merge sit unsorted after it, and a query reads all of them.
/// While keys are added they are merged in once they grow past a quarter of the list
/// (amortized constant work per key); after a batch of writes,
/// [`settle`](GramIndex::settle) leaves at most a 64th of the list (or 32 keys) there.
#[derive(Debug, Default)]
struct Posting {
    ids: Vec<u32>,
    lens: Vec<u16>,
    sorted: usize,
    /// For long lists, indexed by length: where the keys of at least that length start
    /// in the sorted part, for lengths up to [`DIRECTORY_LENGTHS`] (a window is two reads
    /// instead of a binary search that misses the cache at every step of a long list).
    starts: Vec<u32>,
    /// The keys holding the gram: those listed and the keys chained to them (see
    /// [`SameText`]). A query reads its grams in this order, rarest first, as it would
    /// read lists holding every key.
    keys: usize,
}

/// Lists at least this long get a directory of length starts.
const DIRECTORY_FROM: usize = 1024;

/// The longest length a directory covers; windows reaching past it search the rest.
const DIRECTORY_LENGTHS: usize = 512;

/// The longest unsorted tail a settled list of `sorted` keys keeps.
fn settled_tail(sorted: usize) -> usize {
    (sorted / 64).max(32)
}

impl Posting {
    /// Adds a key; true when its tail has just outgrown what a settled list keeps.
    fn push(&mut self, d: u32, len: u16) -> bool {
        self.ids.push(d);
        self.lens.push(len);
        self.keys += 1;
        let outgrown = self.ids.len() - self.sorted == settled_tail(self.sorted) + 1;
        self.merge_if_long();
        outgrown && self.ids.len() > self.sorted
    }

    /// Merges the unsorted tail when it is longer than a settled list keeps.
    fn settle(&mut self) {
        self.merge_past(settled_tail(self.sorted));
    }

    /// Merges the unsorted tail once it is longer than a quarter of the sorted part.
    fn merge_if_long(&mut self) {
        self.merge_past((self.sorted / 4).max(32));
    }

    /// Merges the unsorted tail when it holds more than `most` keys.
    fn merge_past(&mut self, most: usize) {
        if self.ids.len() - self.sorted > most {
            self.merge();
        }
    }

    fn merge(&mut self) {
        let mut tail: Vec<(u16, u32)> =
            self.lens[self.sorted..].iter().copied().zip(self.ids[self.sorted..].iter().copied()).collect();
        tail.sort_unstable();
        let (mut i, mut j) = (0, 0);
        let (mut ids, mut lens) = (Vec::with_capacity(self.ids.len()), Vec::with_capacity(self.ids.len()));
        while i < self.sorted || j < tail.len() {
            let head = (i < self.sorted).then(|| (self.lens[i], self.ids[i]));
            let next = match head {
                Some(h) if j == tail.len() || h <= tail[j] => {
                    i += 1;
                    h
                }
                _ => {
                    j += 1;
                    tail[j - 1]
                }
            };
            lens.push(next.0);
            ids.push(next.1);
        }
        self.sorted = ids.len();
        self.starts.clear();
        if lens.len() >= DIRECTORY_FROM {
            let top = lens.last().map_or(0, |&l| usize::from(l) + 1).min(DIRECTORY_LENGTHS);
            let mut i = 0;
            for len in 0..=top {
                while i < lens.len() && usize::from(lens[i]) < len {
                    i += 1;
                }
                self.starts.push(i as u32);
            }
        }
        self.ids = ids;
        self.lens = lens;
    }

    fn view(&self) -> List<'_> {
        List { ids: &self.ids, lens: &self.lens, sorted: self.sorted, starts: &self.starts }
    }

    #[cfg(test)]
    fn window(&self, lo: usize, hi: usize) -> (&[u32], &[u16], &[u32], &[u16]) {
        self.view().window(lo, hi)
    }
}

impl<'a> List<'a> {
    /// The position of the first sorted key of length `len` or more.
    fn first_at_least(&self, len: usize) -> usize {
        match self.starts.get(len) {
            Some(&i) => i as usize,
            None => {
                // Past the directory (or none): search the lengths after its end.
                let from = self.starts.last().map_or(0, |&i| i as usize);
                let lens = self.lens.get(from..self.sorted).unwrap_or(&[]);
                from + lens.partition_point(|&l| usize::from(l) < len)
            }
        }
    }

    /// The sorted keys with lengths in `lo..=hi` and the unsorted tail, each with their
    /// lengths.
    fn window(&self, lo: usize, hi: usize) -> (&'a [u32], &'a [u16], &'a [u32], &'a [u16]) {
        let start = self.first_at_least(lo);
        let end = self.first_at_least(hi.saturating_add(1)).max(start);
        // A persisted list is read as found: a damaged one reads as empty, never a panic.
        let part = |r: std::ops::Range<usize>| {
            (self.ids.get(r.clone()).unwrap_or(&[]), self.lens.get(r).unwrap_or(&[]))
        };
        let (inside, inside_lens) = part(start..end);
        let (tail, tail_lens) = part(self.sorted..self.ids.len());
        (inside, inside_lens, tail, tail_lens)
    }
}

/// The counting state of a scan, on slices so its loop keeps pointers and positions in
/// registers.
struct Tally<'a> {
    /// Shared grams per key.
    counts: &'a mut [u8],
    /// `touched[..seen]`: every key counted, once each.
    touched: &'a mut [(u32, u16)],
    seen: usize,
}

impl Tally<'_> {
    /// Counts one gram for each of `ids` (whose lengths are `lens`; only those inside
    /// `window` when given).
    ///
    /// Every key is written into the next free slot of `touched`, and the slot advances
    /// only past a first sighting: no branch to mispredict.
    #[inline(never)]
    fn count(&mut self, ids: &[u32], lens: &[u16], window: Option<(usize, usize)>) {
        let mut seen = self.seen;
        let mut one = |d: u32, len: u16| {
            // Key numbers of a persisted list are not trusted to be in range.
            let Some(c) = self.counts.get_mut(d as usize) else { return };
            self.touched[seen] = (d, len);
            seen += usize::from(*c == 0);
            *c = c.saturating_add(1);
        };
        match window {
            None => ids.iter().zip(lens).for_each(|(&d, &len)| one(d, len)),
            Some((lo, hi)) => {
                for (&d, &len) in ids.iter().zip(lens) {
                    if (lo..=hi).contains(&usize::from(len)) {
                        one(d, len);
                    }
                }
            }
        }
        self.seen = seen;
    }

    /// The `how_many` keys seen that share the most grams (ties: lower key number first),
    /// best first; at least that many must have been seen. A histogram of the counts
    /// gives the least count among them, so only keys at or above it are ordered.
    /// Keys of the same text as a key seen (see [`SameText`]) rank each under its own
    /// number.
    #[inline(never)]
    fn most_shared(&self, ix: &GramIndex, how_many: usize) -> Vec<u32> {
        let seen = &self.touched[..self.seen];
        // Four histograms in turn, summed after: most keys share one count or two, and
        // the increments of one histogram's count would each wait for the last
        // (DESIGN.md §90).
        let mut parts = [[0u32; 256]; 4];
        let mut quads = seen.chunks_exact(4);
        for quad in &mut quads {
            for (part, &(d, _)) in parts.iter_mut().zip(quad) {
                part[usize::from(self.counts[d as usize])] += 1;
            }
        }
        for &(d, _) in quads.remainder() {
            parts[0][usize::from(self.counts[d as usize])] += 1;
        }
        let mut histogram = [0usize; 256];
        for (c, total) in histogram.iter_mut().enumerate() {
            *total = parts.iter().map(|part| part[c] as usize).sum();
        }
        let mut above = 0;
        let mut least = 0u8;
        for c in (0..=u8::MAX).rev() {
            above += histogram[usize::from(c)];
            if above >= how_many {
                least = c;
                break;
            }
        }
        // Counts order as shared grams do (a saturated count is the most).
        let mut best: Vec<(u8, u32)> =
            seen.iter().map(|&(d, _)| (self.counts[d as usize], d)).filter(|&(c, _)| c >= least).collect();
        // Chains only add keys at their first's count, so the least count over the keys
        // listed is at most the least among every key's best: expanding these is enough.
        if ix.same.chained > 0 {
            for i in 0..best.len() {
                let (c, d) = best[i];
                best.extend(ix.chain(d).map(|m| (c, m)));
            }
        }
        let order = |a: &(u8, u32), b: &(u8, u32)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        best.select_nth_unstable_by(how_many - 1, order);
        best.truncate(how_many);
        best.sort_unstable_by(order);
        best.into_iter().map(|(_, d)| d).collect()
    }
}

/// The end of a cell's list of keys.
const END: u32 = u32::MAX;

/// Where pass 1 files keys: per cell the first key's position, per key the next key's
/// position.
///
/// No count of keys per cell is kept while filing: most keys of a query fall into a few
/// cells (a count or two at lengths near the query's), so incrementing a per-cell count
/// made each key wait for the last key's store to the same cell; the walk counts the
/// keys of the cells it takes instead (DESIGN.md §89).
struct CellLists<'a> {
    head: &'a mut [u32],
    links: &'a mut [u32],
}

/// Files each of `candidates` whose count (from `counts`, saturated as every one of
/// `grams`) reaches its length's least count into its cell's list, and returns how many
/// were filed. Clears the counts it reads (the line is in cache now; a pass of its own
/// would miss again). `rows`, from length `lo` on: the least count, and the cell of count 0
/// (wrapping; only counts from the least on are used).
#[inline(never)]
fn file_in_cells(
    candidates: &[(u32, u16)],
    counts: &mut [u8],
    grams: usize,
    (lo, rows): (usize, &[(usize, usize)]),
    lists: CellLists<'_>,
) -> usize {
    let CellLists { head, links } = lists;
    let mut filed = 0;
    for (i, &(d, len)) in candidates.iter().enumerate() {
        let count = std::mem::take(&mut counts[d as usize]);
        let Some(&(need, base)) = usize::from(len).checked_sub(lo).and_then(|k| rows.get(k)) else {
            continue;
        };
        let c = match count {
            u8::MAX => grams,
            c => usize::from(c),
        };
        if c < need {
            continue;
        }
        let cell = base.wrapping_add(c);
        links[i] = head[cell];
        head[cell] = i as u32;
        filed += 1;
    }
    filed
}

/// A key by its similarity bound: higher bound first, then lower key number.
struct Ranked(f64, u32);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// Per-thread scratch of a scan.
///
/// Counts are bytes, so the array stays in cache at a million keys. A count saturates at
/// 255, which is read as "every gram of the query" (see `file_in_cells`): exact for
/// queries of up to 255 grams, an upper bound — hence still a sound filter — for longer
/// ones, whose saturated keys rank first.
struct Scratch {
    /// Shared grams per key.
    counts: Vec<u8>,
    /// The keys counted, with their lengths (one slot per key and a spare).
    touched: Vec<(u32, u16)>,
    /// Per key: offered already.
    offered: Vec<bool>,
    /// Per key ranked: the next key of its (length, count) cell.
    links: Vec<u32>,
    /// The cells of a ranking, kept between queries with their capacity.
    cells: Cells,
    /// The keys of one round of the walk's cells, to sort.
    ranked: Vec<Ranked>,
    /// The keys offered by one walk.
    marked: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch {
            counts: Vec::new(),
            touched: Vec::new(),
            offered: Vec::new(),
            links: Vec::new(),
            cells: Cells { head: Vec::new(), by_bound: Vec::new(), rows: Vec::new(), reaching: 0 },
            ranked: Vec::new(),
            marked: Vec::new(),
        })
    };
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
    pub fn to_file(&self, sets: &crate::LocaleSets, meta: &FileMeta) -> std::result::Result<Vec<u8>, String> {
        file::write(self, sets, meta)
    }

    /// Writes the persisted form of this index as the file at `path`, streamed (beside
    /// the index, the process holds a fraction of the file, not the file; DESIGN.md §97)
    /// and replaced whole ([`write_file_with`]).
    ///
    /// # Errors
    /// When the index has a persisted part itself, outgrows the format, or the file
    /// cannot be written.
    pub fn persist(
        &self,
        path: &std::path::Path,
        sets: &crate::LocaleSets,
        meta: &FileMeta,
    ) -> std::io::Result<()> {
        write_file_with(path, |file| file::write_to(self, sets, meta, file))
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
        self.same.next.push(END);
        self.same.first.push(first.map_or(END, |(f, _)| f));
        match first {
            Some((first, last)) => {
                // Same grams as `first`: chained to it, not listed.
                if let Some(i) = (last as usize).checked_sub(base_len) {
                    self.same.link(i, d);
                }
                if let Some(w) =
                    (first as usize).checked_sub(base_len).and_then(|i| self.same.weight.get_mut(i))
                {
                    *w += 1;
                }
                self.same.by_hash.insert(hash, (first, d));
                self.same.weight.push(0);
                self.same.chained += 1;
                for g in padded_grams(key) {
                    if let Some(posting) = self.postings.get_mut(&g) {
                        posting.keys += 1;
                    }
                }
            }
            None => {
                self.same.by_hash.entry(hash).or_insert((d, d));
                self.same.weight.push(1);
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
    }

    /// Forgets every key of `entry`.
    pub fn remove(&mut self, entry: EntryId) {
        let base_len = self.base_len();
        for d in self.of_entry.remove(&entry).unwrap_or_default() {
            if let Some(doc) = (d as usize).checked_sub(base_len).and_then(|i| self.docs.get_mut(i)) {
                doc.alive = false;
            }
        }
        if let Some(base) = &mut self.base {
            for &d in base.grams.keys_of(entry) {
                if let Some(dead) = base.dead.get_mut(d as usize) {
                    base.dead_count += usize::from(!*dead);
                    *dead = true;
                }
            }
        }
    }

    /// The lists of `gram`: the persisted one and the one of keys added since.
    fn lists(&self, gram: u64) -> Lists<'_> {
        let base = self.base.as_ref().and_then(|b| b.grams.list(gram));
        let posting = self.postings.get(&gram);
        let added = posting.map(Posting::view);
        let size = base.map_or(0, |l| l.ids.len()) + posting.map_or(0, |p| p.keys);
        Lists { base, added, size }
    }

    /// The longest key length indexed.
    fn max_len(&self) -> usize {
        let base = self.base.as_ref().map_or(0, |b| b.grams.max_len());
        base.max(self.by_len.len().saturating_sub(1))
    }

    /// The keys of `len` characters, persisted ones first (lower numbers).
    fn by_len(&self, len: usize) -> impl Iterator<Item = u32> + '_ {
        let base = self.base.as_ref().map_or(&[][..], |b| b.grams.by_len(len));
        let added = self.by_len.get(len).map_or(&[][..], Vec::as_slice);
        base.iter().chain(added).copied()
    }

    /// Key `d` as an offer reads it: entry, locale set, kinds, text, length in
    /// characters and sketch; `None` when dead or unknown.
    fn doc(&self, d: u32) -> Option<DocView<'_>> {
        let base_len = self.base_len();
        match (d as usize).checked_sub(base_len) {
            Some(i) => {
                let doc = self.docs.get(i).filter(|doc| doc.alive)?;
                // `len` saturates at u16::MAX; count such giant keys.
                let len = match doc.len {
                    u16::MAX => doc.key.chars().count(),
                    l => usize::from(l),
                };
                Some(DocView {
                    entry: doc.entry,
                    group: doc.group,
                    kinds: doc.kinds,
                    key: KeyText::Text(&doc.key),
                    len,
                    sketch: doc.sketch,
                })
            }
            None => {
                let base = self.base.as_ref()?;
                if base.dead.get(d as usize).copied().unwrap_or(true) {
                    return None;
                }
                let doc = base.grams.doc(d as usize)?;
                let group = base.group_map.get(doc.group as usize).copied().unwrap_or(u32::MAX);
                // A length saturated at u16::MAX is counted (giant keys only).
                let len = match doc.len {
                    u16::MAX => std::str::from_utf8(doc.key).ok()?.chars().count(),
                    l => usize::from(l),
                };
                Some(DocView {
                    entry: doc.entry,
                    group,
                    kinds: doc.kinds,
                    key: KeyText::Utf8(doc.key),
                    len,
                    sketch: doc.sketch,
                })
            }
        }
    }

    /// Reads the records of keys `ds` and the first byte of their texts ahead of their
    /// offers: the loads of different keys do not wait for each other, so their cache
    /// misses overlap instead of coming one after another as the offers come.
    fn touch(&self, ds: impl Iterator<Item = u32>) {
        let base_len = self.base_len();
        let mut sum = 0usize;
        for d in ds {
            sum = sum.wrapping_add(match (d as usize).checked_sub(base_len) {
                Some(i) => self
                    .docs
                    .get(i)
                    .map_or(0, |doc| doc.key.as_bytes().first().map_or(0, |&b| usize::from(b))),
                None => self.base.as_ref().map_or(0, |b| b.grams.touch(d as usize)),
            });
        }
        std::hint::black_box(sum);
    }

    /// The keys key `d` stands for in the lists: itself and its chain of keys of the same
    /// text (1 for a key of the persisted part, whose lists hold every key).
    fn weight(&self, d: u32) -> usize {
        match (d as usize).checked_sub(self.base_len()) {
            Some(i) if self.same.more(i) => self.same.weight.get(i).map_or(1, |&w| w as usize),
            _ => 1,
        }
    }

    /// The keys after listed key `d` in its chain of keys of the same text, in order.
    fn chain(&self, d: u32) -> impl Iterator<Item = u32> + '_ {
        let base_len = self.base_len();
        // The bit first: a key with no next costs no load of the chains.
        let next = move |d: u32| {
            let i = (d as usize).checked_sub(base_len).filter(|&i| self.same.more(i))?;
            self.same.next.get(i).copied().filter(|&n| n != END)
        };
        std::iter::successors(next(d), move |&n| next(n))
    }

    /// The key standing for `d` in the lists: the first of its chain, or itself.
    fn listed(&self, d: u32) -> u32 {
        (d as usize)
            .checked_sub(self.base_len())
            .and_then(|i| self.same.first.get(i))
            .copied()
            .filter(|&f| f != END)
            .unwrap_or(d)
    }

    /// Offers `sink` every live key whose similarity with `q.key` can reach the sink's
    /// cut-off, for entries whose locale set `accept` takes (the contract of
    /// [`ContentMemory::candidates`](crate::ContentMemory::candidates)).
    ///
    /// The query's grams are scanned rarest first, counting shared grams per key
    /// (ScanCount) inside the length window. After `i` of them, a key not seen yet shares
    /// at most the grams left, which bounds its similarity; once that bound falls under
    /// the cut-off the scan stops, and the frequent grams — most of the work — are never
    /// read. Halfway, the keys sharing the most grams are offered early, so the cut-off
    /// rises before the rest is decided. Seen keys are then offered best bound first
    /// until the bound falls under the cut-off; keys sharing no gram at all are reached
    /// through the by-length lists only when their bound still allows it.
    ///
    /// Under a candidate limit ([`CandidateSink::max_candidates`]), once more keys were
    /// seen than may be offered, the scan stops already when that bound is within 0.03 of
    /// the cut-off (queries of 20 characters or more): such keys would rank under the
    /// ones the limit offers; should the walk run out of keys before the limit, the
    /// grams left unread are read after all. Past the limit, the walk goes on with the
    /// keys that can
    /// reach the sink's [`tie_cutoff`](CandidateSink::tie_cutoff) (they could tie with the
    /// best match found), and the margin never leaves such a key unread, so the ties at
    /// the top are complete.
    pub fn offer(&self, q: &CandidateQuery<'_>, accept: &dyn Fn(u32) -> bool, sink: &mut dyn CandidateSink) {
        let grams = padded_grams(q.key);
        let mut lists: Vec<Lists<'_>> =
            grams.iter().map(|&gram| self.lists(gram)).filter(|l| l.size > 0).collect();
        lists.sort_by_key(|l| l.size);
        let docs = self.doc_count();
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch { counts, touched, offered, links, cells, ranked, marked } = &mut *scratch;
            if counts.len() < docs {
                counts.resize(docs, 0);
                offered.resize(docs, false);
            }
            if touched.len() <= docs {
                touched.resize(docs + 1, (0, 0));
            }
            let mut walk = Walk {
                ix: self,
                kinds: q.kinds,
                accept,
                qlen: q.key.chars().count(),
                grams: grams.len(),
                max_candidates: sink.max_candidates(),
                offered,
                marked: std::mem::take(marked),
                margin: true,
                margin_stopped: false,
            };
            loop {
                let mut tally = Tally { counts: &mut counts[..], touched: &mut touched[..], seen: 0 };
                let left = lists.len() - walk.scan(&lists, &mut tally, sink);
                let seen = tally.seen;
                let candidates = &touched[..seen];
                walk.rank(candidates, counts, left, links, sink.cutoff(), cells);
                walk.offer_ranked(cells, candidates, links, ranked, sink);
                if left == 0 {
                    walk.offer_unshared(candidates, counts, sink);
                }
                if !walk.margin_stopped || walk.full() {
                    break;
                }
                // The walk ran out of keys before the limit, so it would have reached the
                // keys the margin left unread: scan again without it (keys offered
                // already are passed over).
                walk.margin = false;
                walk.margin_stopped = false;
            }
            *marked = walk.finish();
        });
    }
}

/// One gram's lists: the persisted one and the one of keys added since.
#[derive(Clone, Copy)]
struct Lists<'a> {
    base: Option<List<'a>>,
    added: Option<List<'a>>,
    /// Keys in both.
    size: usize,
}

/// A key as an offer reads it (see [`GramIndex::doc`]).
struct DocView<'a> {
    entry: EntryId,
    group: u32,
    kinds: KindSet,
    key: KeyText<'a>,
    len: usize,
    sketch: CharSketch,
}

/// Slack for float rounding when a bound is compared with a cut-off: a key whose bound
/// equals the cut-off is always offered.
const EPS: f64 = 1e-9;

/// How many keys the walk reads ahead of their offers (see [`GramIndex::touch`]).
const TOUCH_AHEAD: usize = 8;

/// How many keys sharing the most grams are offered halfway through the scan.
const EARLY: usize = 48;

/// The scan margin under a candidate limit (see [`GramIndex::offer`]): the walk stops at
/// bounds a few hundredths above the cut-off anyway, so keys that could barely reach it
/// are not offered and need not be ruled in. Shorter queries move in similarity steps
/// wider than the margin, and a gram is a large share of their count, so the unread grams
/// would decide their ranking (DESIGN.md §19 has the measurements that chose 0.03 and 20).
const MARGIN: f64 = 0.03;

/// The shortest query (in characters) the scan margin applies to.
const MARGIN_FROM: usize = 20;

/// One query key's walk over an index, in its phases: [`scan`](Walk::scan) counts
/// shared grams, [`rank`](Walk::rank) files the keys that can reach the cut-off by
/// bound, [`offer_ranked`](Walk::offer_ranked) offers them best bound first, and
/// [`offer_unshared`](Walk::offer_unshared) reaches the keys that share no gram.
struct Walk<'a> {
    ix: &'a GramIndex,
    kinds: KindSet,
    accept: &'a dyn Fn(u32) -> bool,
    /// The query key's length in characters.
    qlen: usize,
    /// Its number of distinct padded grams.
    grams: usize,
    max_candidates: usize,
    /// Per key: offered already (scratch; [`finish`](Walk::finish) clears what it set).
    offered: &'a mut [bool],
    /// Keys offered, in order; its length is the count against `max_candidates`.
    marked: Vec<u32>,
    /// Whether the scan may stop at the margin.
    margin: bool,
    /// Whether the last scan stopped at the margin (earlier than exactness needs).
    margin_stopped: bool,
}

/// The keys that can reach the cut-off after a scan, filed by (length, count) cell.
/// Kept in the per-thread scratch, so a query allocates none of it.
struct Cells {
    /// Per cell: the position in the candidates of its first key ([`END`]: none).
    head: Vec<u32>,
    /// The occupied cells, best bound first.
    by_bound: Vec<(f64, usize)>,
    /// Per length from the window's start: the least count that can reach, and the
    /// cell of count 0 (see [`Walk::rank`]).
    rows: Vec<(usize, usize)>,
    /// How many keys were filed.
    reaching: usize,
}

impl Cells {
    /// Appends to `keys` the keys of `cells`, each with its cell's bound, in no
    /// particular order.
    /// A key filed stands for its chain of keys of the same text too (see [`SameText`]).
    fn keys(
        &self,
        ix: &GramIndex,
        cells: &[(f64, usize)],
        candidates: &[(u32, u16)],
        links: &[u32],
        keys: &mut Vec<Ranked>,
    ) {
        let chains = ix.same.chained > 0;
        for &(bound, cell) in cells {
            let mut i = self.head[cell];
            while i != END {
                let d = candidates[i as usize].0;
                keys.push(Ranked(bound, d));
                if chains {
                    keys.extend(ix.chain(d).map(|m| Ranked(bound, m)));
                }
                i = links[i as usize];
            }
        }
    }
}

impl Walk<'_> {
    /// The length window at a cut-off, capped at the longest key stored (a cut-off of 0
    /// leaves the window unbounded above).
    fn window(&self, cutoff: f64) -> (usize, usize) {
        let (lo, hi) = length_bounds(self.qlen, cutoff);
        (lo, hi.min(self.ix.max_len()))
    }

    /// The similarity bound of a key of `len` characters sharing `shared` grams.
    fn bound(&self, len: usize, shared: usize) -> f64 {
        similarity_bound(self.qlen, self.grams, len, shared)
    }

    /// Whether a key sharing at most `shared` grams can reach `cutoff` at some length of
    /// the window `lo..=hi`; lengths nearest the query's first, where it usually can.
    fn can_reach(&self, shared: usize, lo: usize, hi: usize, cutoff: f64) -> bool {
        let reaches = |len: usize| self.bound(len, shared) + EPS >= cutoff;
        let mid = self.qlen.clamp(lo, hi.max(lo));
        lo <= hi && ((mid..=hi).any(reaches) || (lo..mid).rev().any(reaches))
    }

    /// True once as many keys were offered as the sink takes.
    fn full(&self) -> bool {
        self.marked.len() >= self.max_candidates
    }

    /// Whether a key whose similarity bound is `bound` is still offered: it must reach
    /// the cut-off and, past the candidate limit, the sink's tie cut-off (it could tie
    /// with the best match found). Equal is enough, so no tie is skipped.
    fn may_offer(&self, bound: f64, sink: &dyn CandidateSink) -> bool {
        bound + EPS >= sink.cutoff() && (!self.full() || bound + EPS >= sink.tie_cutoff())
    }

    /// Offers key `d` unless it was offered already, is dead, holds none of the query's
    /// kinds, or its locale set is refused (the limit is the caller's to check).
    fn offer(&mut self, d: u32, sink: &mut dyn CandidateSink) {
        if self.offered.get(d as usize).is_none_or(|&offered| offered) {
            return;
        }
        let Some(doc) = self.ix.doc(d) else { return };
        if doc.kinds.intersect(self.kinds).is_empty() || !(self.accept)(doc.group) {
            return;
        }
        self.offered[d as usize] = true;
        self.marked.push(d);
        sink.offer_sketched(doc.entry, doc.kinds, doc.key, doc.len, &doc.sketch);
    }

    /// Counts the grams of `lists` (rarest first) while a key sharing none of them could
    /// still reach the cut-off, offering the keys sharing the most halfway; returns how
    /// many lists were read.
    fn scan(&mut self, lists: &[Lists<'_>], tally: &mut Tally<'_>, sink: &mut dyn CandidateSink) -> usize {
        let mut scanned = 0;
        let mut read = 0usize;
        let scan_limit = sink.scan_limit();
        // Keys seen, a chain of keys of the same text counting each of its keys (see
        // [`SameText`]); summed only as far as the tests below need.
        let mut keys_seen = 0usize;
        let mut weighed = 0usize;
        let enough = self.max_candidates.max(EARLY + 1);
        for (i, list) in lists.iter().enumerate() {
            let left = lists.len() - i;
            let (lo, hi) = self.window(sink.cutoff());
            let cutoff = sink.cutoff();
            if !self.can_reach(left, lo, hi, cutoff) {
                break;
            }
            if self.margin && keys_seen >= self.max_candidates && self.qlen >= MARGIN_FROM {
                // The margin never passes over a key that could tie with the best found.
                let stop_under = (cutoff + MARGIN).min(sink.tie_cutoff().max(cutoff));
                if !self.can_reach(left, lo, hi, stop_under) {
                    self.margin_stopped = true;
                    break;
                }
            }
            let parts = [list.base, list.added].map(|l| l.map(|l| l.window(lo, hi)));
            let size: usize =
                parts.iter().flatten().map(|(inside, _, tail, _)| inside.len() + tail.len()).sum();
            if i > 0 && read.saturating_add(size) > scan_limit {
                // Past the scan limit: keys sharing none of the grams read so far are
                // left out (the sink allowed it).
                break;
            }
            read += size;
            for (inside, inside_lens, tail, tail_lens) in parts.into_iter().flatten() {
                tally.count(inside, inside_lens, None);
                tally.count(tail, tail_lens, Some((lo, hi)));
            }
            scanned = i + 1;
            if self.ix.same.chained == 0 {
                keys_seen = tally.seen;
            } else {
                while weighed < tally.seen && keys_seen < enough {
                    keys_seen += self.ix.weight(tally.touched[weighed].0);
                    weighed += 1;
                }
            }
            if scanned == lists.len().div_ceil(2) && keys_seen > EARLY {
                // Halfway: offer the keys that share the most grams so far.
                for d in tally.most_shared(self.ix, EARLY) {
                    if self.full() {
                        break;
                    }
                    self.offer(d, sink);
                }
            }
        }
        scanned
    }

    /// The least count a key of `len` characters needs to reach `cutoff` when `left`
    /// grams were not read (a key may share every one of them), or `None` when no count
    /// does; the bound grows with the count.
    fn least_count(&self, len: usize, left: usize, cutoff: f64) -> Option<usize> {
        let g = self.grams;
        let reaches = |c: usize| self.bound(len, (c + left).min(g)) + EPS >= cutoff;
        if !reaches(g) {
            return None;
        }
        let (mut below, mut at) = (0, g);
        while below < at {
            let mid = (below + at) / 2;
            if reaches(mid) {
                at = mid;
            } else {
                below = mid + 1;
            }
        }
        Some(below)
    }

    /// Files the keys of `candidates` that can reach `cutoff` into cells, one per key
    /// length and count from the least count that can (an integer test per key instead
    /// of a bound: the keys to rank far outnumber the cells), and orders the occupied
    /// cells by bound. Clears the counts of `candidates`.
    fn rank(
        &self,
        candidates: &[(u32, u16)],
        counts: &mut [u8],
        left: usize,
        links: &mut Vec<u32>,
        cutoff: f64,
        cells: &mut Cells,
    ) {
        let g = self.grams;
        let (lo, hi) = self.window(cutoff);
        let Cells { head, by_bound, rows, reaching } = cells;
        // Per length from `lo`: the least count (`usize::MAX`: none reaches), and the
        // cell of count 0 (wrapping), so a count `c` from the least on is cell `base + c`.
        rows.clear();
        let mut cell_count = 0usize;
        for len in lo..=hi {
            let least = self.least_count(len, left, cutoff);
            let need = least.unwrap_or(usize::MAX);
            rows.push((need, cell_count.wrapping_sub(need)));
            cell_count += least.map_or(0, |c| g + 1 - c);
        }
        // Each key that can reach joins its cell's list (`links`, by position in
        // `candidates`, newest first).
        head.clear();
        head.resize(cell_count, END);
        links.clear();
        links.resize(candidates.len(), END);
        *reaching = file_in_cells(candidates, counts, g, (lo, rows), CellLists { head, links });
        by_bound.clear();
        for (&(need, base), len) in rows.iter().zip(lo..=hi) {
            if need == usize::MAX {
                continue;
            }
            for c in need..=g {
                let cell = base.wrapping_add(c);
                if head[cell] != END {
                    by_bound.push((self.bound(len, (c + left).min(g)), cell));
                }
            }
        }
        by_bound.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
    }

    /// Offers the filed keys best bound first (ties: lower key number first) until the
    /// bound falls under the sink's cut-off or, past the limit, under its tie cut-off.
    fn offer_ranked(
        &mut self,
        cells: &Cells,
        candidates: &[(u32, u16)],
        links: &[u32],
        ranked: &mut Vec<Ranked>,
        sink: &mut dyn CandidateSink,
    ) {
        // The walk usually stops long before the end: only the keys whose bound is among
        // the best few (what may still be offered, and 64 more) are sorted; the cells
        // after them are ordered a growing round at a time, only if the walk gets there.
        // Rounds end between bounds, so this is the order of one sort of every key.
        let mut take = self.max_candidates.saturating_sub(self.marked.len()).saturating_add(64);
        let mut from = 0;
        while from < cells.by_bound.len() {
            // A round takes cells best bound first until it holds `take` keys, and then
            // the cells of the same bound as its last.
            let rest = &cells.by_bound[from..];
            let mut least = f64::NEG_INFINITY;
            let mut split = 0;
            ranked.clear();
            for (k, &(bound, _)) in rest.iter().enumerate() {
                if ranked.len() >= take && bound < least {
                    break;
                }
                cells.keys(self.ix, &rest[k..=k], candidates, links, ranked);
                least = bound;
                split = k + 1;
            }
            ranked.sort_unstable_by(|a, b| b.cmp(a));
            for (i, &Ranked(bound, d)) in ranked.iter().enumerate() {
                if i % TOUCH_AHEAD == 0 {
                    let next = ranked.get(i..).unwrap_or(&[]).iter().take(TOUCH_AHEAD);
                    self.ix.touch(next.map(|r| r.1));
                }
                if !self.may_offer(bound, sink) {
                    return;
                }
                self.offer(d, sink);
            }
            from += split.max(1);
            take = take.saturating_mul(4);
        }
    }

    /// Offers the keys that share no gram with the query and whose bound can still reach
    /// the cut-off (only reachable when every gram was scanned), through the by-length
    /// lists. Filing cleared the counts, so the keys seen are marked again for the while.
    fn offer_unshared(&mut self, candidates: &[(u32, u16)], counts: &mut [u8], sink: &mut dyn CandidateSink) {
        if self.full() && sink.tie_cutoff() > 1.0 {
            return;
        }
        // A key chained to one seen was seen: its first's mark is read.
        for &(d, _) in candidates {
            counts[d as usize] = 1;
        }
        let (lo, hi) = self.window(sink.cutoff());
        for len in lo..=hi {
            let bound = self.bound(len, 0);
            for d in self.ix.by_len(len) {
                if !self.may_offer(bound, sink) {
                    break;
                }
                if counts.get(self.ix.listed(d) as usize) == Some(&0) {
                    self.offer(d, sink);
                }
            }
        }
        for &(d, _) in candidates {
            counts[d as usize] = 0;
        }
    }

    /// Clears the marks of the keys offered; returns the emptied list of them, to keep
    /// its capacity for the next walk.
    fn finish(self) -> Vec<u32> {
        let mut marked = self.marked;
        for &d in &marked {
            self.offered[d as usize] = false;
        }
        marked.clear();
        marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::similarity;
    use crate::key::normalize_text;
    use crate::locale::Locale;
    use crate::run::Run;

    #[test]
    fn a_key_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Doc>(), 64);
        assert_eq!(std::mem::align_of::<Doc>(), 64);
    }

    struct Collect {
        cutoff: f64,
        seen: Vec<(EntryId, String)>,
        max: usize,
        tie: f64,
    }

    impl Collect {
        fn new(cutoff: f64) -> Self {
            Collect { cutoff, seen: Vec::new(), max: usize::MAX, tie: f64::INFINITY }
        }
    }

    impl CandidateSink for Collect {
        fn offer(&mut self, id: EntryId, _kinds: KindSet, key: &str) -> f64 {
            self.seen.push((id, key.to_owned()));
            self.cutoff
        }
        fn cutoff(&self) -> f64 {
            self.cutoff
        }
        fn max_candidates(&self) -> usize {
            self.max
        }
        fn tie_cutoff(&self) -> f64 {
            self.tie
        }
    }

    #[test]
    fn past_the_limit_every_key_that_can_reach_the_tie_cutoff_is_offered() {
        // Twelve keys a substitution from the query (similarity 1 - 1/20 = 0.95, bound
        // 0.95) and a hundred sharing about half its grams.
        let query = "abcdefghijklmnopqrst";
        let mut ix = GramIndex::new();
        for i in 0..12usize {
            let mut near: Vec<char> = query.chars().collect();
            near[4 + i] = 'Z';
            ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(near.into_iter().collect::<String>())]));
        }
        for i in 0..100usize {
            let far = format!(
                "{}{}",
                &query[..10],
                "0123456789".chars().cycle().skip(i).take(10).collect::<String>()
            );
            ix.add(EntryId(100 + i as i64), 0, &Keys::of(&[Run::text(far)]));
        }
        let en = Locale::parse("en").unwrap();
        let key = normalize_text(query);
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        let near_offered = |tie: f64| {
            let mut sink = Collect::new(0.3);
            sink.max = 5;
            sink.tie = tie;
            ix.offer(&q, &|_| true, &mut sink);
            (sink.seen.iter().filter(|(id, _)| id.0 < 100).count(), sink.seen.len())
        };
        // No tie cut-off: the limit stops the walk.
        assert_eq!(near_offered(f64::INFINITY), (5, 5));
        // A tie cut-off equal to their score: every one of them, and nothing below it.
        assert_eq!(near_offered(0.95), (12, 12));
    }

    #[test]
    fn offers_every_key_above_the_cutoff_and_forgets_removed_ones() {
        let texts = ["Open the file", "Open the files", "Close the file", "x", "Save all", "Open file"];
        let mut ix = GramIndex::new();
        for (i, t) in texts.iter().enumerate() {
            ix.add(EntryId(i as i64 + 1), (i % 2) as u32, &Keys::of(&[Run::text(*t)]));
        }
        assert_eq!(ix.len(), texts.len());
        let en = Locale::parse("en").unwrap();
        let key = normalize_text("Open the file");
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        let mut sink = Collect::new(0.6);
        ix.offer(&q, &|_| true, &mut sink);
        for (i, t) in texts.iter().enumerate() {
            let offered = sink.seen.iter().any(|(id, _)| id.0 == i as i64 + 1);
            if similarity(&key, t) >= 0.6 {
                assert!(offered, "{t} was not offered");
            }
        }
        ix.remove(EntryId(2));
        assert_eq!(ix.len(), texts.len() - 1);
        let mut sink = Collect::new(0.6);
        ix.offer(&q, &|_| true, &mut sink);
        assert!(sink.seen.iter().all(|(id, _)| id.0 != 2));
        let mut sink = Collect::new(0.6);
        ix.offer(&q, &|group| group != 0, &mut sink);
        assert!(!sink.seen.is_empty() && sink.seen.iter().all(|(id, _)| id.0 % 2 == 0));
    }

    #[test]
    fn built_in_parts_equals_added_one_by_one() {
        let words = ["open", "the", "file", "save", "all", "close", "window", "new", "tab", "print"];
        let variants: Vec<(EntryId, u32, Keys)> = (0..60)
            .map(|i| {
                let text: Vec<&str> = (0..1 + i % 5).map(|k| words[(i * 7 + k * 3) % words.len()]).collect();
                (EntryId(i as i64 + 1), (i % 3) as u32, Keys::of(&[Run::text(text.join(" "))]))
            })
            .collect();
        let mut one_by_one = GramIndex::new();
        for (entry, group, keys) in &variants {
            one_by_one.add(*entry, *group, keys);
        }
        let en = Locale::parse("en").unwrap();
        for chunk in [1, 7, 25, 60] {
            let built = GramIndex::build_in_parts(&variants, chunk);
            assert_eq!(built.len(), one_by_one.len());
            for query in ["open the file", "save all tab", "print", "new window close"] {
                let key = normalize_text(query);
                let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
                let offers = |ix: &GramIndex| {
                    let mut sink = Collect::new(0.5);
                    ix.offer(&q, &|group| group != 1, &mut sink);
                    sink.seen
                };
                assert_eq!(offers(&built), offers(&one_by_one), "chunk {chunk}, query {query}");
            }
        }
        assert_eq!(GramIndex::build(&variants).len(), variants.len());
    }

    #[test]
    fn a_candidate_limit_offers_the_head_of_the_unlimited_order() {
        let words = ["open", "the", "file", "save", "all", "close", "window", "new", "tab", "print", "page"];
        let mut ix = GramIndex::new();
        for i in 0..1500usize {
            let text: Vec<&str> =
                (0..3 + i % 4).map(|k| words[(i * 5 + k * 7 + i / 11) % words.len()]).collect();
            ix.add(EntryId(i as i64 + 1), u32::from(i % 3 != 0), &Keys::of(&[Run::text(text.join(" "))]));
        }
        let en = Locale::parse("en").unwrap();
        for query in ["open the file tab", "save all new page print", "close window"] {
            let key = normalize_text(query);
            let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
            // Group 1, two keys in three, is refused: the walk passes over those keys
            // without counting them, so a limited walk must reach past what it picked.
            let mut all = Collect::new(0.3);
            ix.offer(&q, &|group| group == 0, &mut all);
            for max in [1, 5, 40, 150] {
                let mut limited = Collect::new(0.3);
                limited.max = max;
                ix.offer(&q, &|group| group == 0, &mut limited);
                let expected = &all.seen[..max.min(all.seen.len())];
                assert_eq!(limited.seen, expected, "max {max}, query {query}");
            }
        }
    }

    #[test]
    fn a_limit_outnumbered_reads_the_common_grams_only_when_the_walk_needs_them() {
        // The query's last six grams are its most common: forty keys share those alone,
        // which bounds them at 1 - 7/24 ≈ 0.708, just over the 0.70 cut-off. Thirty keys
        // a substitution away share nearly every gram; their locale set may be refused.
        let query = "abcdefghijklmnopqrstuvwx";
        let mut ix = GramIndex::new();
        for i in 0..30usize {
            let mut near: Vec<char> = query.chars().collect();
            near[i % 12] = char::from(b'0' + (i % 10) as u8);
            let near: String = near.into_iter().collect();
            ix.add(EntryId(i as i64 + 1), 1, &Keys::of(&[Run::text(near)]));
        }
        for i in 0..40usize {
            let common = format!("{}stuvwx", "Y".repeat(18));
            ix.add(EntryId(100 + i as i64), 0, &Keys::of(&[Run::text(common)]));
        }
        let en = Locale::parse("en").unwrap();
        let key = normalize_text(query);
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        let offered = |max: usize, near_too: bool| {
            let mut sink = Collect::new(0.70);
            sink.max = max;
            ix.offer(&q, &|group| group == 0 || near_too, &mut sink);
            let common = sink.seen.iter().filter(|(id, _)| id.0 >= 100).count();
            (sink.seen.len() - common, common)
        };
        // Unlimited: exact, so every key whose bound reaches the cut-off is offered.
        assert_eq!(offered(usize::MAX, false), (0, 40));
        // More keys seen than 5 may be offered, and the near keys fill the walk: the
        // common grams are left unread.
        assert_eq!(offered(5, true), (5, 0));
        // The near keys refused, the walk runs out before the limit: the common grams
        // are read after all, and the keys sharing only them offered up to it.
        assert_eq!(offered(5, false), (0, 5));
        // A limit the keys seen never outnumber reads them, and the walk offers to it.
        assert_eq!(offered(1000, false), (0, 40));
    }

    #[test]
    fn queries_of_more_than_255_grams_still_find_their_keys() {
        // Counts saturate at 255: a query of 400 distinct grams must still reach a key
        // sharing nearly all of them, at a low cut-off (every list read) and a high one.
        let mut x = 12345u32;
        let long: String = (0..400)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                char::from(b'a' + ((x >> 16) % 26) as u8)
            })
            .collect();
        let edited = format!("{}XY{}", &long[..200], &long[202..]);
        let mut ix = GramIndex::new();
        ix.add(EntryId(1), 0, &Keys::of(&[Run::text(edited.as_str())]));
        ix.add(EntryId(2), 0, &Keys::of(&[Run::text("something else entirely")]));
        let en = Locale::parse("en").unwrap();
        let key = normalize_text(&long);
        assert!(padded_grams(&key).len() > 255);
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        for cutoff in [0.3, 0.95] {
            let mut sink = Collect::new(cutoff);
            ix.offer(&q, &|_| true, &mut sink);
            assert_eq!(sink.seen.first().map(|(id, _)| id.0), Some(1), "cut-off {cutoff}");
        }
    }

    #[test]
    fn settling_shortens_tails_and_changes_no_answer() {
        let words = ["open", "the", "file", "save", "all", "close", "window", "new", "tab", "print"];
        let mut ix = GramIndex::new();
        for i in 0..3000usize {
            let text: Vec<&str> =
                (0..2 + i % 5).map(|k| words[(i * 3 + k * 7 + i / 13) % words.len()]).collect();
            // Numbered, so every key has a text of its own and is listed.
            ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(format!("{} {i}", text.join(" ")))]));
        }
        let en = Locale::parse("en").unwrap();
        let offers = |ix: &GramIndex| {
            ["open the file", "save all tab", "close new window print"]
                .iter()
                .map(|query| {
                    let key = normalize_text(query);
                    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
                    let mut sink = Collect::new(0.5);
                    ix.offer(&q, &|_| true, &mut sink);
                    sink.seen
                })
                .collect::<Vec<_>>()
        };
        let tail = |p: &Posting| p.ids.len() - p.sorted;
        assert!(ix.postings.values().any(|p| tail(p) > settled_tail(p.sorted)), "unsettled before");
        let before = offers(&ix);
        ix.settle();
        assert!(ix.postings.values().all(|p| tail(p) <= settled_tail(p.sorted)));
        assert!(ix.unsettled.is_empty());
        assert_eq!(offers(&ix), before);
    }

    #[test]
    fn posting_windows_hold_exactly_the_keys_in_range() {
        let mut p = Posting::default();
        let mut all: Vec<(u32, u16)> = Vec::new();
        let mut x = 7u32;
        for d in 0..5000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            // Lengths past the directory's end too.
            let len = ((x >> 16) % 900) as u16;
            p.push(d, len);
            all.push((d, len));
        }
        assert!(!p.starts.is_empty(), "a long list has a directory");
        for (lo, hi) in [
            (0, 0),
            (0, 299),
            (10, 20),
            (150, 150),
            (299, 400),
            (301, 500),
            (20, 10),
            (500, 700),
            (511, 513),
            (700, 5000),
            (899, 899),
            (900, 1000),
        ] {
            let (ids, lens, tail, tail_lens) = p.window(lo, hi);
            assert!(lens.iter().all(|&l| (lo..=hi).contains(&usize::from(l))));
            let mut got: Vec<u32> = ids.to_vec();
            got.extend(
                tail.iter()
                    .zip(tail_lens)
                    .filter(|&(_, &l)| (lo..=hi).contains(&usize::from(l)))
                    .map(|(&d, _)| d),
            );
            got.sort_unstable();
            let want: Vec<u32> =
                all.iter().filter(|&&(_, l)| (lo..=hi).contains(&usize::from(l))).map(|&(d, _)| d).collect();
            assert_eq!(got, want, "window {lo}..={hi}");
        }
    }
}
