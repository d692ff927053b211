//! The posting lists: per gram, the keys holding it, sorted by length with a tail of new keys.

/// One gram's keys as a query reads them: a sorted prefix (with its length directory)
/// and an unsorted tail.
#[derive(Debug, Clone, Copy)]
pub(super) struct List<'a> {
    pub(super) ids: &'a [u32],
    pub(super) lens: &'a [u16],
    pub(super) sorted: usize,
    pub(super) starts: &'a [u32],
}

/// The keys holding one gram, each with its length beside it (a scan then reads the
/// list alone, never the lengths of keys outside its window). A prefix is kept sorted by
/// (key length, key number), so a query reads only the keys inside its length window;
/// keys added since the last merge sit unsorted after it, and a query reads all of them.
/// While keys are added they are merged in once they grow past a quarter of the list
/// (amortized constant work per key); after a batch of writes,
/// [`settle`](GramIndex::settle) leaves at most a 64th of the list (or 32 keys) there.
#[derive(Debug, Default)]
pub(super) struct Posting {
    pub(super) ids: Vec<u32>,
    pub(super) lens: Vec<u16>,
    pub(super) sorted: usize,
    /// For long lists, indexed by length: where the keys of at least that length start
    /// in the sorted part, for lengths up to [`DIRECTORY_LENGTHS`] (a window is two reads
    /// instead of a binary search that misses the cache at every step of a long list).
    pub(super) starts: Vec<u32>,
    /// The keys holding the gram: those listed and the keys chained to them (see
    /// [`SameText`]). A query reads its grams in this order, rarest first, as it would
    /// read lists holding every key.
    pub(super) keys: usize,
}

/// Lists at least this long get a directory of length starts.
pub(super) const DIRECTORY_FROM: usize = 1024;

/// The longest length a directory covers; windows reaching past it search the rest.
pub(super) const DIRECTORY_LENGTHS: usize = 512;

/// The longest unsorted tail a settled list of `sorted` keys keeps.
pub(super) fn settled_tail(sorted: usize) -> usize {
    (sorted / 64).max(32)
}

impl Posting {
    /// Adds a key; true when its tail has just outgrown what a settled list keeps.
    pub(super) fn push(&mut self, d: u32, len: u16) -> bool {
        self.ids.push(d);
        self.lens.push(len);
        self.keys += 1;
        let outgrown = self.ids.len() - self.sorted == settled_tail(self.sorted) + 1;
        self.merge_if_long();
        outgrown && self.ids.len() > self.sorted
    }

    /// Merges the unsorted tail when it is longer than a settled list keeps.
    pub(super) fn settle(&mut self) {
        self.merge_past(settled_tail(self.sorted));
    }

    /// Merges the unsorted tail once it is longer than a quarter of the sorted part.
    pub(super) fn merge_if_long(&mut self) {
        self.merge_past((self.sorted / 4).max(32));
    }

    /// Merges the unsorted tail when it holds more than `most` keys.
    pub(super) fn merge_past(&mut self, most: usize) {
        if self.ids.len() - self.sorted > most {
            self.merge();
        }
    }

    pub(super) fn merge(&mut self) {
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
        directory(&lens, &mut self.starts);
        self.ids = ids;
        self.lens = lens;
    }

    pub(super) fn view(&self) -> List<'_> {
        List { ids: &self.ids, lens: &self.lens, sorted: self.sorted, starts: &self.starts }
    }

    #[cfg(test)]
    pub(super) fn window(&self, lo: usize, hi: usize) -> (&[u32], &[u16], &[u32], &[u16]) {
        self.view().window(lo, hi)
    }
}

/// Appends to `starts` the length directory of a list whose keys have lengths `lens`
/// (sorted): none for a list shorter than [`DIRECTORY_FROM`].
pub(super) fn directory(lens: &[u16], starts: &mut Vec<u32>) {
    if lens.len() >= DIRECTORY_FROM {
        let top = lens.last().map_or(0, |&l| usize::from(l) + 1).min(DIRECTORY_LENGTHS);
        let mut i = 0;
        for len in 0..=top {
            while i < lens.len() && usize::from(lens[i]) < len {
                i += 1;
            }
            starts.push(i as u32);
        }
    }
}

impl<'a> List<'a> {
    /// The position of the first sorted key of length `len` or more.
    pub(super) fn first_at_least(&self, len: usize) -> usize {
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
    pub(super) fn window(&self, lo: usize, hi: usize) -> (&'a [u32], &'a [u16], &'a [u32], &'a [u16]) {
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

/// One gram's lists: the persisted one and the one of keys added since.
#[derive(Clone, Copy)]
pub(super) struct Lists<'a> {
    pub(super) base: Option<List<'a>>,
    pub(super) added: Option<List<'a>>,
    /// Keys in both.
    pub(super) size: usize,
}

/// The end of a list of keys (a cell's, a chain's): no key.
pub(super) const END: u32 = u32::MAX;
