//! The fuzzy tier's candidate sink: scores what a store offers against the query,
//! keeps the best score per entry, and raises the cut-off as the list fills.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::index::distance::{CharSketch, Pattern};
use crate::model::entry::EntryId;
use crate::model::key::{KeyKind, KindSet};
use crate::store::{CandidateSink, KeyText};

use super::{LookupOptions, Match, SCORE_NEAR_EXACT};

/// Scores candidates and keeps the cut-off at the `limit`-th best score seen (once a
/// verification budget is spent, at the best score seen). A candidate equal to the
/// cut-off is always scored, so a tie is never lost to a risen cut-off.
pub(super) struct Sink<'a> {
    threshold: f64,
    limit: usize,
    budget: usize,
    max_candidates: usize,
    scan_limit: usize,
    scored: usize,
    best_score: f64,
    exclude: &'a HashSet<EntryId>,
    pattern: Pattern,
    kinds: KindSet,
    /// Best similarity per entry and the tier that gave it.
    pub(super) best: HashMap<EntryId, (f64, KeyKind)>,
    /// The `limit` best first-seen scores (a lower bound of each entry's final score,
    /// so the cut-off never overshoots).
    top: BinaryHeap<Reverse<OrdF64>>,
    cutoff: f64,
    /// The most attribute penalties can take off a candidate: its score less this is
    /// what it is sure to keep, and only that may raise the cut-off.
    slack: f64,
    /// [`LookupOptions::score_floors`], as whole percentages.
    floors: Vec<f64>,
}

struct OrdF64(f64);
impl PartialEq for OrdF64 {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl<'a> Sink<'a> {
    pub(super) fn new(opts: &LookupOptions, exclude: &'a HashSet<EntryId>, exact: &[Match]) -> Self {
        let threshold = opts.threshold;
        let mut sink = Sink {
            threshold,
            limit: opts.limit,
            budget: opts.verify_budget,
            max_candidates: opts.max_candidates,
            scan_limit: opts.scan_limit,
            scored: 0,
            best_score: 0.0,
            exclude,
            pattern: Pattern::new(""),
            kinds: KindSet::default(),
            best: HashMap::new(),
            top: BinaryHeap::new(),
            cutoff: threshold,
            slack: 0.0,
            floors: opts.score_floors.iter().map(|f| (f * 100.0).round()).collect(),
        };
        for m in exact {
            sink.push_top(m.score);
        }
        sink.slack = f64::from(opts.penalties.iter().map(|p| u32::from(p.points)).sum::<u32>()) / 100.0;
        sink
    }

    pub(super) fn set_query(&mut self, key: &str, kinds: KindSet) {
        self.pattern = Pattern::new(key);
        self.kinds = kinds;
    }

    /// Once the verification budget is spent, only what can beat the best score matters.
    fn narrow_after_budget(&mut self) {
        if self.scored >= self.budget {
            self.cutoff = self.cutoff.max(self.best_score);
        }
    }

    /// Scores an offered key with `similarity` (the pattern's similarity at least the
    /// cut-off, or `None`) and returns the new cut-off.
    fn score(
        &mut self,
        id: EntryId,
        kinds: KindSet,
        similarity: impl FnOnce(&Pattern, f64) -> Option<f64>,
    ) -> f64 {
        let both = kinds.intersect(self.kinds);
        let Some(kind) = both.first() else { return self.cutoff };
        if !self.exclude.is_empty() && self.exclude.contains(&id) {
            return self.cutoff;
        }
        self.scored += 1;
        self.narrow_after_budget();
        let Some(sim) = similarity(&self.pattern, self.cutoff) else {
            return self.cutoff;
        };
        match self.best.get_mut(&id) {
            Some(best) => {
                if sim > best.0 || (sim == best.0 && kind < best.1) {
                    *best = (sim, kind);
                }
            }
            None => {
                self.best.insert(id, (sim, kind));
                self.push_top(sim.min(SCORE_NEAR_EXACT) - self.slack);
            }
        }
        self.cutoff
    }

    fn push_top(&mut self, score: f64) {
        self.best_score = self.best_score.max(score);
        self.narrow_after_budget();
        self.top.push(Reverse(OrdF64(score)));
        if self.top.len() > self.limit {
            self.top.pop();
        }
        if self.top.len() == self.limit {
            if let Some(Reverse(OrdF64(kth))) = self.top.peek() {
                self.cutoff = self.cutoff.max(*kth).max(self.threshold);
                // Within the band of the `limit`-th best, a better match changes no
                // band: only one reaching the next floor does. (Bands count whole
                // percentages, as `floor(score × 100)`.)
                let band = (kth * 100.0 + 1e-9).floor();
                let next = self.floors.iter().copied().filter(|&f| f > band).fold(f64::INFINITY, f64::min);
                if next.is_finite() {
                    self.cutoff = self.cutoff.max(next / 100.0 - 1e-9);
                }
            }
        }
    }
}

impl CandidateSink for Sink<'_> {
    fn offer(&mut self, id: EntryId, kinds: KindSet, key: &str) -> f64 {
        let len = key.chars().count();
        self.score(id, kinds, |pattern, cutoff| pattern.similarity_at_least(key, len, cutoff))
    }

    fn offer_sketched(
        &mut self,
        id: EntryId,
        kinds: KindSet,
        key: KeyText<'_>,
        len: usize,
        sketch: &CharSketch,
    ) -> f64 {
        self.score(id, kinds, |pattern, cutoff| {
            // Ruled out by the sketch, the key's text is never read.
            if pattern.sketch_rules_out(len, sketch, cutoff) {
                return None;
            }
            // The index's path: the diagonal cut-off gives a far key up early (DESIGN.md
            // §4.9); the sketch test it repeats costs a few instructions.
            pattern.similarity_at_least_sketched(key.get()?, len, sketch, cutoff)
        })
    }

    fn cutoff(&self) -> f64 {
        self.cutoff
    }

    fn scan_limit(&self) -> usize {
        self.scan_limit
    }

    fn max_candidates(&self) -> usize {
        self.max_candidates
    }

    fn found(&self) -> bool {
        !(self.best.is_empty() && self.top.is_empty())
    }

    fn tie_cutoff(&self) -> f64 {
        if !self.found() {
            f64::INFINITY
        } else {
            self.cutoff.max(self.best_score)
        }
    }
}
