//! Where a walk files keys between its phases: the round of keys to offer in order,
//! the (length, count) cells of keys that can reach the cut-off, and the locale-set
//! filter. All kept in the per-thread scratch, so a query allocates none of it.

use super::posting::END;
use super::GramIndex;

/// The keys of one round of the walk, to offer in order: each packed as its bound's rank
/// among the round's bounds (best first) above its key number, so that sorting the
/// integers orders them best bound first, then lower key number first.
#[derive(Default)]
pub(super) struct Round {
    pub(super) keys: Vec<u64>,
    /// Per rank: the bound.
    pub(super) bounds: Vec<f64>,
    /// A bitmap over key numbers, all clear between uses: puts the many keys of one
    /// bound in order (see [`Walk::offer_bound`]).
    pub(super) bits: Vec<u64>,
}

impl Round {
    pub(super) fn clear(&mut self) {
        self.keys.clear();
        self.bounds.clear();
    }

    /// Adds the keys of a cell of `bound`, which is at most the bound of the cells
    /// added before it; returns the rank bits its keys are packed with.
    pub(super) fn push_cell(&mut self, bound: f64, keys: impl Iterator<Item = u32>) -> u64 {
        if self.bounds.last() != Some(&bound) {
            self.bounds.push(bound);
        }
        let rank = (self.bounds.len() as u64 - 1) << 32;
        self.keys.extend(keys.map(|d| rank | u64::from(d)));
        rank
    }

    /// The bound and the key number of a packed key.
    pub(super) fn unpack(&self, key: u64) -> (f64, u32) {
        (self.bounds[(key >> 32) as usize], key as u32)
    }
}

/// Whether a walk's filter takes each locale set number under 255: of the persisted keys
/// (the file's numbers) and of the added ones. A key whose set hint is refused is passed
/// over without reading its record: in a multilingual memory most keys offered for one
/// pair are another pair's.
/// Kept in the per-thread scratch, filled for each walk.
#[derive(Debug, Default)]
pub(super) struct Takes {
    pub(super) base: Vec<bool>,
    pub(super) added: Vec<bool>,
    /// Whether a hint refuses any set (a memory of one pair: none, and no key's hint is
    /// read).
    pub(super) any_refused: bool,
}

impl Takes {
    /// Asks `accept` about each set number a hint of `ix` can name.
    pub(super) fn fill(&mut self, ix: &GramIndex, accept: &dyn Fn(u32) -> bool) {
        let hinted = |n: usize| n.min(usize::from(u8::MAX));
        let base = ix.base.as_ref().map_or(&[][..], |b| &b.group_map[..hinted(b.group_map.len())]);
        self.base.clear();
        self.base.extend(base.iter().map(|&g| accept(g)));
        self.added.clear();
        self.added.extend((0..hinted(ix.added_sets as usize) as u32).map(accept));
        self.any_refused = self.base.iter().chain(&self.added).any(|&taken| !taken);
    }
}

/// The keys that can reach the cut-off after a scan, filed by (length, count) cell.
/// Kept in the per-thread scratch, so a query allocates none of it.
pub(super) struct Cells {
    /// Per cell: the position in the candidates of its first key ([`END`]: none).
    pub(super) head: Vec<u32>,
    /// The occupied cells, best bound first.
    pub(super) by_bound: Vec<(f64, usize)>,
    /// Per length from the window's start: the least count that can reach, and the
    /// cell of count 0 (see [`Walk::rank`]).
    pub(super) rows: Vec<(usize, usize)>,
    /// How many keys were filed.
    pub(super) reaching: usize,
}

impl Cells {
    /// Puts back the count of every key filed (filing cleared them) and lists those keys,
    /// with their lengths, in `filed`, for a query of `grams` grams; returns how many.
    pub(super) fn refile(
        &self,
        grams: usize,
        candidates: &[(u32, u16)],
        links: &[u32],
        counts: &mut [u8],
        filed: &mut Vec<(u32, u16)>,
    ) -> usize {
        filed.clear();
        for &(need, base) in &self.rows {
            if need == usize::MAX {
                continue;
            }
            for c in need..=grams {
                let mut i = self.head[base.wrapping_add(c)];
                while i != END {
                    let (d, len) = candidates[i as usize];
                    // Counts saturate: 255 reads as every gram, as the count it was.
                    counts[d as usize] = u8::try_from(c).unwrap_or(u8::MAX);
                    filed.push((d, len));
                    i = links[i as usize];
                }
            }
        }
        filed.len()
    }

    /// Adds to `round` the keys of `cells` (in order of bound, best first), each at its
    /// cell's bound. A key filed stands for its chain of keys of the same text too (see
    /// [`SameText`]).
    pub(super) fn keys(
        &self,
        ix: &GramIndex,
        cells: &[(f64, usize)],
        candidates: &[(u32, u16)],
        links: &[u32],
        round: &mut Round,
    ) {
        let chains = ix.chained() > 0;
        for &(bound, cell) in cells {
            let filed = std::iter::successors(Some(self.head[cell]).filter(|&i| i != END), |&i| {
                Some(links[i as usize]).filter(|&n| n != END)
            })
            .map(|i| candidates[i as usize].0);
            let from = round.keys.len();
            let rank = round.push_cell(bound, filed);
            if chains {
                // The chains a step at a time over the cell's keys: the loads of different
                // chains do not wait for each other (a persisted key's next is in its
                // record, which the offer reads next).
                let mut at = from;
                while at < round.keys.len() {
                    let end = round.keys.len();
                    for k in at..end {
                        if let Some(n) = ix.next_in_chain(round.keys[k] as u32) {
                            round.keys.push(rank | u64::from(n));
                        }
                    }
                    at = end;
                }
            }
        }
    }
}
