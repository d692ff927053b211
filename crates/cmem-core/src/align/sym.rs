//! Word alignment of one sentence pair: the best link of each word in each direction,
//! symmetrized by grow-diag (the intersection, grown into the union by neighbours).

use super::em::{diagonal, prior};
use super::{AlignOptions, Table};

/// The unseen pair's probability: small, so the diagonal decides between unknown words.
const FLOOR: f64 = 1e-7;

/// For each word of `f`, the position (0-based) of its best word in `e`, or `None` when
/// the empty word explains it better.
pub(super) fn viterbi(table: &Table, opts: &AlignOptions, e: &[u32], f: &[u32]) -> Vec<Option<usize>> {
    let (l, m) = (e.len(), f.len());
    let mut out = Vec::with_capacity(m);
    // The diagonal terms of one target position, computed once for its normalizer and
    // its priors.
    let mut h = vec![1.0f64; l];
    for (j, &fw) in f.iter().enumerate() {
        let (null, scale) = match opts.tension {
            Some(_) => {
                for (i, v) in h.iter_mut().enumerate() {
                    *v = diagonal(opts, i + 1, j + 1, l, m);
                }
                (opts.null_prob, (1.0 - opts.null_prob) / h.iter().sum::<f64>())
            }
            None => {
                let u = prior(opts, 0, j + 1, l, m, 0.0);
                (u, u)
            }
        };
        let mut best = (null * table.prob_of(0, fw).max(FLOOR), None);
        for (i, &ew) in e.iter().enumerate() {
            let p = scale * h[i] * table.prob_of(ew, fw).max(FLOOR);
            if p > best.0 {
                best = (p, Some(i));
            }
        }
        out.push(best.1);
    }
    out
}

/// Grow-diag: the links both directions agree on, then, while any is added, each link
/// of either direction next to (or diagonal to) a kept one whose source or target word
/// is still unaligned. Links are `(source, target)` positions, sorted.
pub(super) fn grow_diag(
    to_source: &[Option<usize>],
    to_target: &[Option<usize>],
    n_source: usize,
    n_target: usize,
) -> Vec<(usize, usize)> {
    let fwd: Vec<(usize, usize)> =
        to_source.iter().enumerate().filter_map(|(t, s)| s.map(|s| (s, t))).collect();
    let bwd: Vec<(usize, usize)> =
        to_target.iter().enumerate().filter_map(|(s, t)| t.map(|t| (s, t))).collect();
    let mut union: Vec<(usize, usize)> = fwd.iter().chain(&bwd).copied().collect();
    union.sort_unstable();
    union.dedup();
    let mut in_bwd = vec![false; n_source * n_target];
    for &(s, t) in &bwd {
        in_bwd[s * n_target + t] = true;
    }
    let mut linked = vec![false; n_source * n_target];
    let mut links: Vec<(usize, usize)> = Vec::new();
    let mut s_aligned = vec![false; n_source];
    let mut t_aligned = vec![false; n_target];
    for &(s, t) in fwd.iter().filter(|&&(s, t)| in_bwd[s * n_target + t]) {
        linked[s * n_target + t] = true;
        links.push((s, t));
        s_aligned[s] = true;
        t_aligned[t] = true;
    }
    loop {
        let mut added = false;
        for &(s, t) in &union {
            if linked[s * n_target + t] || (s_aligned[s] && t_aligned[t]) {
                continue;
            }
            let near = (s.saturating_sub(1)..=(s + 1).min(n_source - 1)).any(|ls| {
                (t.saturating_sub(1)..=(t + 1).min(n_target - 1)).any(|lt| linked[ls * n_target + lt])
            });
            if near {
                linked[s * n_target + t] = true;
                links.push((s, t));
                s_aligned[s] = true;
                t_aligned[t] = true;
                added = true;
            }
        }
        if !added {
            break;
        }
    }
    links.sort_unstable();
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grow_diag_starts_from_the_agreement_and_grows_next_to_it() {
        // Source 0 1 2, target 0 1 2: both agree on 0–0 and 2–2; only forward links 1–1,
        // which lies next to a kept link: added.
        let links = grow_diag(&[Some(0), Some(1), Some(2)], &[Some(0), None, Some(2)], 3, 3);
        assert_eq!(links, vec![(0, 0), (1, 1), (2, 2)]);
        // A link far from every agreed one is not added.
        let links = grow_diag(&[Some(0), None, None, Some(3)], &[Some(0), None, None, None], 4, 4);
        assert_eq!(links, vec![(0, 0)]);
    }
}
