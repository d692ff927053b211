//! The count scan: counting the grams a query shares with each key, and filing the keys
//! that can reach the cut-off by (length, count) cell.

use std::cell::RefCell;

use super::filing::{Cells, Round, Takes};
use super::GramIndex;

/// The counting state of a scan, on slices so its loop keeps pointers and positions in
/// registers.
pub(super) struct Tally<'a> {
    /// Shared grams per key.
    pub(super) counts: &'a mut [u8],
    /// `touched[..seen]`: every key counted, once each.
    pub(super) touched: &'a mut [(u32, u16)],
    pub(super) seen: usize,
}

impl Tally<'_> {
    /// Counts one gram for each of `ids` (whose lengths are `lens`; only those inside
    /// `window` when given).
    ///
    /// Every key is written into the next free slot of `touched`, and the slot advances
    /// only past a first sighting: no branch to mispredict.
    #[inline(never)]
    pub(super) fn count(&mut self, ids: &[u32], lens: &[u16], window: Option<(usize, usize)>) {
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
    pub(super) fn most_shared(&self, ix: &GramIndex, how_many: usize) -> Vec<u32> {
        let seen = &self.touched[..self.seen];
        // Four histograms in turn, summed after: most keys share one count or two, and
        // the increments of one histogram's count would each wait for the last
        // (DESIGN.md §4.7).
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
        if ix.chained() > 0 {
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

/// Where pass 1 files keys: per cell the first key's position, per key the next key's
/// position.
///
/// No count of keys per cell is kept while filing: most keys of a query fall into a few
/// cells (a count or two at lengths near the query's), so incrementing a per-cell count
/// made each key wait for the last key's store to the same cell; the walk counts the
/// keys of the cells it takes instead (DESIGN.md §4.7).
pub(super) struct CellLists<'a> {
    pub(super) head: &'a mut [u32],
    pub(super) links: &'a mut [u32],
}

/// Files each of `candidates` whose count (from `counts`, saturated as every one of
/// `grams`) reaches its length's least count into its cell's list, and returns how many
/// were filed. Clears the counts it reads (the line is in cache now; a pass of its own
/// would miss again). `rows`, from length `lo` on: the least count, and the cell of count 0
/// (wrapping; only counts from the least on are used).
#[inline(never)]
pub(super) fn file_in_cells(
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

/// Per-thread scratch of a scan.
///
/// Counts are bytes, so the array stays in cache at a million keys. A count saturates at
/// 255, which is read as "every gram of the query" (see `file_in_cells`): exact for
/// queries of up to 255 grams, an upper bound — hence still a sound filter — for longer
/// ones, whose saturated keys rank first.
pub(super) struct Scratch {
    /// Shared grams per key.
    pub(super) counts: Vec<u8>,
    /// The keys counted, with their lengths (one slot per key and a spare).
    pub(super) touched: Vec<(u32, u16)>,
    /// Per key: offered already.
    pub(super) offered: Vec<bool>,
    /// Per key ranked: the next key of its (length, count) cell.
    pub(super) links: Vec<u32>,
    /// The cells of a ranking, kept between queries with their capacity.
    pub(super) cells: Cells,
    /// The keys of one round of the walk's cells, to order.
    pub(super) round: Round,
    /// The keys offered by one walk.
    pub(super) marked: Vec<u32>,
    /// The keys filed, with their lengths, when the walk reads more grams to rank them
    /// again (see [`Cells::refile`]).
    pub(super) filed: Vec<(u32, u16)>,
    /// The locale sets the walk's filter takes, by set hint.
    pub(super) takes: Takes,
}

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch {
            counts: Vec::new(),
            touched: Vec::new(),
            offered: Vec::new(),
            links: Vec::new(),
            cells: Cells { head: Vec::new(), by_bound: Vec::new(), rows: Vec::new(), reaching: 0 },
            round: Round { keys: Vec::new(), bounds: Vec::new(), bits: Vec::new() },
            marked: Vec::new(),
            filed: Vec::new(),
            takes: Takes { base: Vec::new(), added: Vec::new(), any_refused: false },
        })
    };
}
