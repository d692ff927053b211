//! Lists, not only their first line: how a lookup's returned scores compare with the
//! exhaustive top list position by position, whether every entry tied with the best is
//! returned, and whether two candidate paths of one store give the same list.

use std::time::Instant;

use anyhow::Result;
use cmem_core::{lookup, ContentMemory, Locale, LookupOptions, LookupRequest, Match, Run};

/// Two capped scores are equal within this much (they are recomputed floats).
const SAME: f64 = 1e-9;

/// How the returned lists compare with the exhaustive ones, over many queries.
#[derive(Debug, Default)]
pub struct ListTally {
    queries: usize,
    /// Queries whose returned best is as good as the exhaustive best.
    pub top1: usize,
    /// Queries whose first five returned scores equal the exhaustive first five.
    pub top5: usize,
    /// Queries whose whole returned list of scores equals the exhaustive list.
    pub whole: usize,
    /// Of the queries whose best match was found, those returning every entry tied with
    /// the exhaustive best, up to the limit (a missed best is counted by `top1`).
    pub ties: usize,
}

impl ListTally {
    /// Adds one query: `returned`, the capped scores of the lookup's list in order;
    /// `exhaustive`, the capped scores of the exhaustive top list, best first. Returns
    /// whether the ties at the top are complete.
    pub fn add(&mut self, returned: &[f64], exhaustive: &[f64]) -> bool {
        self.queries += 1;
        let same_head = |n: usize| {
            let (a, b) = (&returned[..n.min(returned.len())], &exhaustive[..n.min(exhaustive.len())]);
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < SAME)
        };
        let top1 = match (exhaustive.first(), returned.first()) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(b), Some(t)) => *t >= b - SAME,
        };
        self.top1 += usize::from(top1);
        self.top5 += usize::from(same_head(5));
        self.whole += usize::from(same_head(usize::MAX));
        let tied = |scores: &[f64], best: f64| scores.iter().filter(|s| (*s - best).abs() < SAME).count();
        let ties =
            !top1 || exhaustive.first().is_none_or(|&best| tied(returned, best) >= tied(exhaustive, best));
        self.ties += usize::from(ties);
        ties
    }

    /// `count` as a share of the queries added (1.0 when none were).
    pub fn share(&self, count: usize) -> f64 {
        if self.queries == 0 {
            1.0
        } else {
            count as f64 / self.queries as f64
        }
    }

    /// Queries whose best match fell short of the exhaustive best.
    pub fn misses(&self) -> usize {
        self.queries - self.top1
    }
}

/// What one query's list is made of, for comparing two paths: entry, score, tier, in
/// order.
fn signature(matches: &[Match]) -> Vec<(i64, u64, u8)> {
    matches.iter().map(|m| (m.entry.id.0, m.score.to_bits(), m.match_type.number())).collect()
}

/// How two paths compared over the same queries.
#[derive(Debug)]
pub struct PathComparison {
    /// The queries whose lists differ, each with both lists (entry:score) in text.
    pub differing: Vec<String>,
    /// Median lookup latency of each path, in microseconds.
    pub p50_us: (f64, f64),
}

/// Runs every query through `one` and `other` (the same memory served two ways) and
/// compares their lists: entries, scores and tiers, in order.
pub fn compare_paths(
    one: &dyn ContentMemory,
    other: &dyn ContentMemory,
    queries: &[String],
    (from, to): (&Locale, &Locale),
    options: &LookupOptions,
) -> Result<PathComparison> {
    let mut differing = Vec::new();
    let (mut lat_one, mut lat_other) = (Vec::new(), Vec::new());
    let timed = |store: &dyn ContentMemory, req: &LookupRequest, lat: &mut Vec<f64>| -> Result<_> {
        let t = Instant::now();
        let matches = lookup(store, req)?;
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        Ok(signature(&matches))
    };
    for q in queries {
        let req = LookupRequest::new(vec![Run::text(q)], from.clone(), to.clone()).options(options.clone());
        let a = timed(one, &req, &mut lat_one)?;
        let b = timed(other, &req, &mut lat_other)?;
        if a != b {
            let show = |s: &[(i64, u64, u8)]| {
                s.iter()
                    .map(|&(id, bits, _)| format!("{id}:{:.4}", f64::from_bits(bits)))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            differing.push(format!("{q:?}: [{}] vs [{}]", show(&a), show(&b)));
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    Ok(PathComparison { differing, p50_us: (median(lat_one), median(lat_other)) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_short_of_a_tie_or_a_position_is_counted() {
        let mut t = ListTally::default();
        // Exact in every position.
        t.add(&[0.9, 0.8, 0.8], &[0.9, 0.8, 0.8]);
        // The best, but a tie at the top is missing.
        t.add(&[0.9, 0.7], &[0.9, 0.9, 0.7]);
        // The top five right, the sixth wrong.
        t.add(&[0.9, 0.9, 0.9, 0.9, 0.9, 0.7], &[0.9, 0.9, 0.9, 0.9, 0.9, 0.8]);
        // Nothing returned where the exhaustive scan found a match: a miss, not a tie.
        t.add(&[], &[0.75]);
        // Nothing to find.
        t.add(&[], &[]);
        assert_eq!((t.top1, t.top5, t.whole, t.ties), (4, 3, 2, 4));
        assert_eq!(t.misses(), 1);
        assert!((t.share(t.top5) - 0.6).abs() < 1e-12);
    }
}
