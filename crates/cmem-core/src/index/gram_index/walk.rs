//! The offer walk: offering a query's candidate keys best bound first.

use crate::index::query::{CandidateQuery, CandidateSink};
use crate::index::trigram::{length_bounds, padded_gram_counts, similarity_bound};
use crate::model::key::KindSet;

use super::filing::{Cells, Round, Takes};
use super::posting::Lists;
use super::posting::END;
use super::reads::window_size;
use super::scan::{file_in_cells, CellLists, Scratch, Tally, SCRATCH};
use super::GramIndex;

impl GramIndex {
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
    /// the top are complete. When more such keys are left than the grams the scan left
    /// unread cost to count, it reads those grams first and offers only the keys whose
    /// tighter bound still reaches.
    pub fn offer(&self, q: &CandidateQuery<'_>, accept: &dyn Fn(u32) -> bool, sink: &mut dyn CandidateSink) {
        let grams = padded_gram_counts(q.key);
        let qlen = q.key.chars().count();
        // The lists of the grams some key holds, and how often each gram is in the query.
        let (mut lists, mut repeats): (Vec<Lists<'_>>, Vec<usize>) =
            grams.iter().map(|&(gram, n)| (self.lists(gram), n)).filter(|(l, _)| l.size > 0).unzip();
        lists.sort_by_key(|l| l.size);
        repeats.sort_unstable_by(|a, b| b.cmp(a));
        // A key sharing `c` of the grams lacks at least the positions of all but the `c`
        // most repeated.
        let missing: Vec<usize> = std::iter::once(qlen + 2)
            .chain(repeats.iter().scan(qlen + 2, |left, &n| {
                *left -= n;
                Some(*left)
            }))
            .collect();
        let docs = self.doc_count();
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch { counts, touched, offered, links, cells, round, marked, filed, takes } =
                &mut *scratch;
            takes.fill(self, accept);
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
                takes,
                qlen,
                grams: grams.len(),
                missing: &missing,
                max_candidates: candidate_limit(sink.max_candidates(), docs),
                empty_candidates: empty_limit(sink.max_candidates(), docs),
                offered,
                marked: std::mem::take(marked),
                margin: true,
                margin_stopped: false,
            };
            loop {
                let mut tally = Tally { counts: &mut counts[..], touched: &mut touched[..], seen: 0 };
                let mut scanned = walk.scan(&lists, &mut tally, sink);
                let mut seen = tally.seen;
                loop {
                    let left = lists.len() - scanned;
                    let candidates = &touched[..seen];
                    walk.rank(candidates, counts, left, links, walk.reach_cutoff(sink), cells);
                    // The size of the next list unread, when reading it may pay (see
                    // [`Walk::offer_ranked`]).
                    let next = lists
                        .get(scanned)
                        .filter(|_| sink.scan_limit() == usize::MAX)
                        .map(|l| window_size(l, walk.window(sink.cutoff())));
                    if walk.offer_ranked(cells, candidates, links, round, next, sink) == Ranked::Done {
                        if left == 0 {
                            walk.offer_unshared(candidates, counts, sink);
                        }
                        break;
                    }
                    // Too many keys could still tie for the bounds the grams read give:
                    // read the next grams too, for the keys filed (only they can reach),
                    // and rank them again on tighter bounds.
                    seen = cells.refile(walk.grams, candidates, links, counts, filed);
                    touched[..seen].copy_from_slice(filed);
                    let mut tally = Tally { counts: &mut counts[..], touched: &mut touched[..], seen };
                    // Lists are read until they cost what filing again does, so ranking
                    // again is not most of the work.
                    let (window, worth) = (walk.window(sink.cutoff()), seen.saturating_mul(REFILE_COST));
                    let mut read = 0;
                    while let Some(list) = lists.get(scanned).filter(|_| read == 0 || read < worth) {
                        read += walk.count_list(list, &mut tally, window);
                        scanned += 1;
                    }
                    seen = tally.seen;
                }
                if !walk.margin_stopped || walk.full(sink) {
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
/// Slack for float rounding when a bound is compared with a cut-off: a key whose bound
/// equals the cut-off is always offered. Looser than the score tolerance
/// ([`SCORE_TOLERANCE`](crate::index::distance::SCORE_TOLERANCE)) on purpose: a bound only
/// decides what is offered, and offering a key too many costs a verification, never a
/// wrong answer.
pub(super) const BOUND_SLACK: f64 = 1e-9;

/// How many keys the walk reads ahead of their offers (see [`GramIndex::touch`]).
pub(super) const TOUCH_AHEAD: usize = 8;

/// How many times the candidate limit a walk over an index past [`LIMIT_GROWS_FROM`]
/// keys offers while the sink has found nothing (see [`empty_limit`]).
pub(super) const EMPTY_GROWTH: usize = 2;

/// The index size, in keys, from which the candidate limit grows with it.
pub(super) const LIMIT_GROWS_FROM: usize = 1_000_000;

/// The candidate limit of a walk over an index of `keys` keys, for the sink's `limit`:
/// the limit itself up to [`LIMIT_GROWS_FROM`] keys, then that times the square root of
/// how many times larger the index is. A larger memory holds more near-copies of each
/// text (its versions, its variants): with a fixed limit the keys offered first, those
/// sharing the most grams, become copies of a few texts that fall short together, and
/// a query whose match ranks behind them finds nothing (DESIGN.md §4.4).
pub(super) fn candidate_limit(limit: usize, keys: usize) -> usize {
    if limit == usize::MAX || keys <= LIMIT_GROWS_FROM {
        return limit;
    }
    let grown = limit as f64 * (keys as f64 / LIMIT_GROWS_FROM as f64).sqrt();
    // Within usize: the factor is at most 2^16 (keys are numbered by u32).
    grown.ceil() as usize
}

/// The candidate limit of a walk over an index of `keys` keys while the sink has found
/// nothing: [`candidate_limit`], times [`EMPTY_GROWTH`] past [`LIMIT_GROWS_FROM`] keys.
///
/// Why: in a large memory the keys sharing the most grams with a query are often
/// near-copies of a few texts (versions, variants, edited copies) that all fall short
/// together, and a match ranked behind them is lost if the walk gives up at the limit
/// (DESIGN.md §4.4). A query that found something stops at the limit itself; a smaller
/// index keeps it too, where the plain limit already finds nearly every best match and
/// twice the offers cost its median a tenth.
pub(super) fn empty_limit(limit: usize, keys: usize) -> usize {
    let limit = candidate_limit(limit, keys);
    if keys <= LIMIT_GROWS_FROM {
        return limit;
    }
    limit.saturating_mul(EMPTY_GROWTH)
}

/// The most keys of one bound the walk sorts; more, when dense among the key numbers,
/// are ordered through a bitmap (see [`Walk::offer_bound`]).
pub(super) const BITMAP_FROM: usize = 256;

/// What offering a key costs, in postings counted (see [`Walk::tighter_pays`]): it reads
/// the key's record and often its text, out of cache.
pub(super) const OFFER_COST: usize = 16;

/// What filing a key again costs, in postings counted.
pub(super) const REFILE_COST: usize = 2;

/// What [`Walk::offer_ranked`] ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ranked {
    /// The walk stopped, or offered every key filed.
    Done,
    /// Reading the next gram pays before more keys are offered.
    Tighten,
}

/// How many keys sharing the most grams are offered halfway through the scan.
pub(super) const EARLY: usize = 48;

/// The scan margin under a candidate limit (see [`GramIndex::offer`]): the walk stops at
/// bounds a few hundredths above the cut-off anyway, so keys that could barely reach it
/// are not offered and need not be ruled in. Shorter queries move in similarity steps
/// wider than the margin, and a gram is a large share of their count, so the unread grams
/// would decide their ranking (DESIGN.md §4.6 has the measurements that chose 0.03 and 20).
pub(super) const MARGIN: f64 = 0.03;

/// The shortest query (in characters) the scan margin applies to.
pub(super) const MARGIN_FROM: usize = 20;

/// One query key's walk over an index, in its phases: [`scan`](Walk::scan) counts
/// shared grams, [`rank`](Walk::rank) files the keys that can reach the cut-off by
/// bound, [`offer_ranked`](Walk::offer_ranked) offers them best bound first, and
/// [`offer_unshared`](Walk::offer_unshared) reaches the keys that share no gram.
pub(super) struct Walk<'a> {
    pub(super) ix: &'a GramIndex,
    pub(super) kinds: KindSet,
    pub(super) accept: &'a dyn Fn(u32) -> bool,
    /// Whether `accept` takes each locale set a set hint can name (see [`Takes`]).
    pub(super) takes: &'a Takes,
    /// The query key's length in characters.
    pub(super) qlen: usize,
    /// Its number of distinct padded grams.
    pub(super) grams: usize,
    /// Per number of distinct grams shared, up to the number that any key holds: the
    /// fewest of the query's gram positions a key sharing them lacks (its grams in
    /// order of repeats, most first; see [`min_distance_missing`](crate::index::trigram::min_distance_missing)).
    pub(super) missing: &'a [usize],
    pub(super) max_candidates: usize,
    /// The candidate limit while the sink has found nothing (see [`empty_limit`]).
    pub(super) empty_candidates: usize,
    /// Per key: offered already (scratch; [`finish`](Walk::finish) clears what it set).
    pub(super) offered: &'a mut [bool],
    /// Keys offered, in order; its length is the count against `max_candidates`.
    pub(super) marked: Vec<u32>,
    /// Whether the scan may stop at the margin.
    pub(super) margin: bool,
    /// Whether the last scan stopped at the margin (earlier than exactness needs).
    pub(super) margin_stopped: bool,
}

impl Walk<'_> {
    /// The length window at a cut-off, capped at the longest key stored (a cut-off of 0
    /// leaves the window unbounded above).
    pub(super) fn window(&self, cutoff: f64) -> (usize, usize) {
        let (lo, hi) = length_bounds(self.qlen, cutoff);
        (lo, hi.min(self.ix.max_len()))
    }

    /// The similarity bound of a key of `len` characters sharing `shared` grams, from the
    /// query's gram positions it lacks at the least: a gram repeated in the query counts
    /// at each of its positions (DESIGN.md §4.2). It decides which keys can reach.
    pub(super) fn bound(&self, len: usize, shared: usize) -> f64 {
        let missing = self.missing.get(shared).or(self.missing.last()).copied().unwrap_or(0);
        similarity_bound(self.qlen, missing, len)
    }

    /// The bound that orders the keys and decides how many grams the scan reads: from
    /// the distinct grams a key lacks, a looser bound than [`bound`](Walk::bound).
    ///
    /// Under the candidate limit the order is what is offered, and ordering or stopping
    /// the scan by the tighter bound read fewer grams and ranked on coarser counts: it
    /// lost best matches (DESIGN.md §4.2). With the tighter bound only ruling keys out,
    /// the keys offered are those of this order that can reach.
    pub(super) fn order_bound(&self, len: usize, shared: usize) -> f64 {
        similarity_bound(self.qlen, self.grams.saturating_sub(shared), len)
    }

    /// Whether a key sharing at most `shared` grams can reach `cutoff` at some length of
    /// the window `lo..=hi` by [`order_bound`](Walk::order_bound); lengths nearest the
    /// query's first, where it usually can.
    pub(super) fn can_reach(&self, shared: usize, lo: usize, hi: usize, cutoff: f64) -> bool {
        let reaches = |len: usize| self.order_bound(len, shared) + BOUND_SLACK >= cutoff;
        let mid = self.qlen.clamp(lo, hi.max(lo));
        lo <= hi && ((mid..=hi).any(reaches) || (lo..mid).rev().any(reaches))
    }

    /// True once as many keys were offered as the sink takes: the candidate limit, or
    /// while the sink has found nothing, [`empty_limit`].
    pub(super) fn full(&self, sink: &dyn CandidateSink) -> bool {
        // The sink is asked only at the limit, where the answer matters.
        let n = self.marked.len();
        n >= self.max_candidates && (n >= self.empty_candidates || sink.found())
    }

    /// The least similarity a key must be able to reach to be offered now: the sink's
    /// cut-off, and past the candidate limit its tie cut-off too (see
    /// [`may_offer`](Walk::may_offer)). Both only rise.
    pub(super) fn reach_cutoff(&self, sink: &dyn CandidateSink) -> f64 {
        if self.full(sink) {
            sink.cutoff().max(sink.tie_cutoff())
        } else {
            sink.cutoff()
        }
    }

    /// Whether a key whose similarity bound is `bound` is still offered: it must reach
    /// the cut-off and, past the candidate limit, the sink's tie cut-off (it could tie
    /// with the best match found). Equal is enough, so no tie is skipped.
    pub(super) fn may_offer(&self, bound: f64, sink: &dyn CandidateSink) -> bool {
        bound + BOUND_SLACK >= sink.cutoff() && (!self.full(sink) || bound + BOUND_SLACK >= sink.tie_cutoff())
    }

    /// Offers key `d` unless it was offered already, is dead, holds none of the query's
    /// kinds, or its locale set is refused (the limit is the caller's to check).
    pub(super) fn offer(&mut self, d: u32, sink: &mut dyn CandidateSink) {
        if self.offered.get(d as usize).is_none_or(|&offered| offered) {
            return;
        }
        // A refused set's key by its hint, before its record is read.
        if self.refused(d) {
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
    pub(super) fn scan(
        &mut self,
        lists: &[Lists<'_>],
        tally: &mut Tally<'_>,
        sink: &mut dyn CandidateSink,
    ) -> usize {
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
            // The windows are looked up again for the limit only when there is one.
            if i > 0
                && scan_limit != usize::MAX
                && read.saturating_add(window_size(list, (lo, hi))) > scan_limit
            {
                // Past the scan limit: keys sharing none of the grams read so far are
                // left out (the sink allowed it).
                break;
            }
            read += self.count_list(list, tally, (lo, hi));
            scanned = i + 1;
            if self.ix.chained() == 0 {
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
                    if self.full(sink) {
                        break;
                    }
                    self.offer(d, sink);
                }
            }
        }
        scanned
    }

    /// Counts the keys of `list` inside the length window `lo..=hi`; returns how many
    /// keys of the list it read (see [`window_size`]).
    pub(super) fn count_list(
        &self,
        list: &Lists<'_>,
        tally: &mut Tally<'_>,
        (lo, hi): (usize, usize),
    ) -> usize {
        let mut read = 0;
        for l in [list.base, list.added].into_iter().flatten() {
            let (inside, inside_lens, tail, tail_lens) = l.window(lo, hi);
            tally.count(inside, inside_lens, None);
            tally.count(tail, tail_lens, Some((lo, hi)));
            read += inside.len() + tail.len();
        }
        read
    }

    /// The least count a key of `len` characters needs to reach `cutoff` when `left`
    /// grams were not read (a key may share every one of them), or `None` when no count
    /// does; the bound grows with the count.
    pub(super) fn least_count(&self, len: usize, left: usize, cutoff: f64) -> Option<usize> {
        let g = self.grams;
        let reaches = |c: usize| self.bound(len, (c + left).min(g)) + BOUND_SLACK >= cutoff;
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
    /// cells by [`order_bound`](Walk::order_bound). Clears the counts of `candidates`.
    pub(super) fn rank(
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
                    by_bound.push((self.order_bound(len, (c + left).min(g)), cell));
                }
            }
        }
        by_bound.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
    }

    /// Offers the filed keys best bound first (ties: lower key number first) until the
    /// bound falls under the sink's cut-off or, past the limit, under its tie cut-off.
    pub(super) fn offer_ranked(
        &mut self,
        cells: &Cells,
        candidates: &[(u32, u16)],
        links: &[u32],
        round: &mut Round,
        next: Option<usize>,
        sink: &mut dyn CandidateSink,
    ) -> Ranked {
        // The walk usually stops long before the end: only the keys whose bound is among
        // the best few (what may still be offered, and 64 more) are ordered; the cells
        // after them are taken a growing round at a time, only if the walk gets there.
        // Rounds end between bounds, so this is the order of one sort of every key.
        let mut take = self.max_candidates.saturating_sub(self.marked.len()).saturating_add(64);
        let mut from = 0;
        while from < cells.by_bound.len() {
            // A round takes cells best bound first until it holds `take` keys, and then
            // the cells of the same bound as its last.
            let rest = &cells.by_bound[from..];
            let mut least = f64::NEG_INFINITY;
            let mut split = 0;
            round.clear();
            for (k, &(bound, _)) in rest.iter().enumerate() {
                if round.keys.len() >= take && bound < least {
                    break;
                }
                cells.keys(self.ix, &rest[k..=k], candidates, links, round);
                least = bound;
                split = k + 1;
            }
            // The round's keys come a bound at a time, best first (cells were added in
            // order of bound), so ordering each bound's keys by number is the order of
            // sorting them all.
            let mut keys = std::mem::take(&mut round.keys);
            let mut bits = std::mem::take(&mut round.bits);
            let mut start = 0;
            let mut stopped = false;
            let mut judged = false;
            while start < keys.len() && !stopped {
                if !judged && self.full(sink) {
                    judged = true;
                    let later = &cells.by_bound[from + split..];
                    if next.is_some_and(|size| {
                        self.tighter_pays(size, (cells, links), round, &keys[start..], later, sink)
                    }) {
                        round.keys = keys;
                        round.bits = bits;
                        return Ranked::Tighten;
                    }
                }
                let rank = keys[start] >> 32;
                let end =
                    keys[start..].iter().position(|&k| k >> 32 != rank).map_or(keys.len(), |n| start + n);
                stopped = !self.offer_bound(round, &mut keys[start..end], &mut bits, take, sink);
                start = end;
            }
            round.keys = keys;
            round.bits = bits;
            if stopped {
                return Ranked::Done;
            }
            from += split.max(1);
            take = take.saturating_mul(4);
        }
        Ranked::Done
    }

    /// Whether reading the next gram (`size` keys in the window) and ranking the keys
    /// filed again costs less than offering the keys that may still tie at the bounds
    /// known: `pending`, the rest of a round, and the keys of the `later` cells.
    ///
    /// Past the candidate limit every key whose bound reaches the best match found is
    /// offered, and with the query's commoner grams unread a bound counts each of them as
    /// shared: near the threshold tens of thousands of keys pass. Each offer reads the
    /// key's record and often its text, many times the work of counting a posting; one
    /// more gram read lowers the bound of every key that lacks it.
    fn tighter_pays(
        &self,
        size: usize,
        (cells, links): (&Cells, &[u32]),
        round: &Round,
        pending: &[u64],
        later: &[(f64, usize)],
        sink: &dyn CandidateSink,
    ) -> bool {
        let cost = size.saturating_add(cells.reaching.saturating_mul(REFILE_COST));
        let tie = sink.tie_cutoff();
        let mut ties = pending
            .iter()
            .take_while(|&&k| round.unpack(k).0 + BOUND_SLACK >= tie)
            .count()
            .saturating_mul(OFFER_COST);
        for &(bound, cell) in later {
            if ties > cost || bound + BOUND_SLACK < tie {
                break;
            }
            let mut i = cells.head[cell];
            while i != END && ties <= cost {
                ties += OFFER_COST;
                i = links[i as usize];
            }
        }
        ties > cost
    }

    /// Offers the keys of one bound of `round` (`keys`, packed, of one rank, in no
    /// order) by key number; false once the walk stops.
    ///
    /// The last bound of a round may hold far more keys than the walk offers, and past
    /// the candidate limit a query near the threshold offers tens of thousands of one
    /// bound. Where the keys are dense enough among the key numbers they span (at least
    /// one per 64), they are set in a bitmap and read back in order as the walk goes:
    /// linear work, where sorting them took the most of such a walk's own instructions.
    /// Sparser or fewer keys are put in order a growing chunk at a time (the least
    /// first, by selection). Either is the order of sorting them all.
    fn offer_bound(
        &mut self,
        round: &Round,
        keys: &mut [u64],
        bits: &mut Vec<u64>,
        chunk: usize,
        sink: &mut dyn CandidateSink,
    ) -> bool {
        let (least, most) = keys.iter().fold((u64::MAX, 0), |(lo, hi), &k| (lo.min(k), hi.max(k)));
        // One rank: the packed keys differ in their key numbers alone.
        let words = most.saturating_sub(least) as usize / 64 + 1;
        if keys.len() <= BITMAP_FROM || words > keys.len() {
            return self.offer_sorted(round, keys, chunk, sink);
        }
        if bits.len() < words {
            bits.resize(words, 0);
        }
        for &k in keys.iter() {
            let i = (k - least) as usize;
            bits[i / 64] |= 1 << (i % 64);
        }
        let mut batch = [0u64; 64];
        let mut n = 0;
        for w in 0..words {
            let mut word = std::mem::take(&mut bits[w]);
            while word != 0 {
                batch[n] = least + (w * 64) as u64 + u64::from(word.trailing_zeros());
                word &= word - 1;
                n += 1;
                if n == batch.len() {
                    n = 0;
                    if !self.offer_in_order(round, &batch, sink) {
                        bits[w + 1..words].fill(0);
                        return false;
                    }
                }
            }
        }
        self.offer_in_order(round, &batch[..n], sink)
    }

    /// Offers `keys` of `round` in order, putting them in order a growing chunk at a
    /// time from `chunk` keys on (the least first, by selection); false once the walk
    /// stops.
    fn offer_sorted(
        &mut self,
        round: &Round,
        keys: &mut [u64],
        mut chunk: usize,
        sink: &mut dyn CandidateSink,
    ) -> bool {
        let mut done = 0;
        while done < keys.len() {
            let open = &mut keys[done..];
            if open.len() > chunk {
                open.select_nth_unstable(chunk - 1);
                open[..chunk].sort_unstable();
            } else {
                open.sort_unstable();
            }
            let end = done + chunk.min(open.len());
            if !self.offer_in_order(round, &keys[done..end], sink) {
                return false;
            }
            done = end;
            chunk = chunk.saturating_mul(4);
        }
        true
    }

    /// Offers `keys` of `round` in their order, reading ahead; false once a bound falls
    /// under what may still be offered. Keys of a refused locale set are not read ahead
    /// (see [`refused`](Walk::refused)).
    fn offer_in_order(&mut self, round: &Round, keys: &[u64], sink: &mut dyn CandidateSink) -> bool {
        for (i, &key) in keys.iter().enumerate() {
            if i % TOUCH_AHEAD == 0 {
                let next = keys[i..].iter().take(TOUCH_AHEAD).map(|&k| k as u32);
                self.ix.touch(next.filter(|&d| !self.refused(d)));
            }
            let (bound, d) = round.unpack(key);
            if !self.may_offer(bound, sink) {
                return false;
            }
            self.offer(d, sink);
        }
        true
    }

    /// Whether key `d`'s set hint names a locale set the filter refuses (false when the
    /// hint does not say: the offer reads the record).
    fn refused(&self, d: u32) -> bool {
        if !self.takes.any_refused {
            return false;
        }
        let ix = self.ix;
        let taken = match (d as usize).checked_sub(ix.base_len()) {
            Some(i) => ix.set_hints.get(i).and_then(|&g| self.takes.added.get(usize::from(g))),
            None => ix
                .base
                .as_ref()
                .and_then(|b| b.grams.set_hint(d as usize))
                .and_then(|g| self.takes.base.get(usize::from(g))),
        };
        taken == Some(&false)
    }

    /// Offers the keys that share no gram with the query and whose bound can still reach
    /// the cut-off (only reachable when every gram was scanned), through the by-length
    /// lists. Filing cleared the counts, so the keys seen are marked again for the while.
    pub(super) fn offer_unshared(
        &mut self,
        candidates: &[(u32, u16)],
        counts: &mut [u8],
        sink: &mut dyn CandidateSink,
    ) {
        let (lo, hi) = self.window(sink.cutoff());
        // Usually no length can reach without a shared gram: then there is nothing to
        // mark, which costs two passes over every key seen.
        if !(lo..=hi).any(|len| self.may_offer(self.bound(len, 0), sink)) {
            return;
        }
        // A key chained to one seen was seen: its first's mark is read.
        for &(d, _) in candidates {
            counts[d as usize] = 1;
        }
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
    pub(super) fn finish(self) -> Vec<u32> {
        let mut marked = self.marked;
        for &d in &marked {
            self.offered[d as usize] = false;
        }
        marked.clear();
        marked
    }
}
