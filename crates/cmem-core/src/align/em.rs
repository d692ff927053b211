//! Expectation–maximization of one direction's translation table, `t(f | e)`: IBM
//! Model 1, or with fast_align's diagonal prior when a tension is given.

use super::{AlignOptions, Table};

/// One direction's training data: sentence pairs of word ids, `e` the conditioning side
/// (id 0 is the empty word, never in a sentence), `f` the generated side.
pub(super) struct Bitext<'a> {
    pub(super) pairs: &'a [(Vec<u32>, Vec<u32>)],
    /// Whether `f` is the pair's first member (else the second).
    pub(super) f_first: bool,
}

impl Bitext<'_> {
    fn get(&self, k: usize) -> (&[u32], &[u32]) {
        let (a, b) = &self.pairs[k];
        if self.f_first {
            (b, a)
        } else {
            (a, b)
        }
    }
}

/// The prior of source position `i` (1-based; 0 is the empty word) for target position
/// `j` (1-based) of a pair of lengths `l` and `m`, or `None` for Model 1's uniform one.
/// `z` is the sum of the unnormalized diagonal terms over `i` for this `j`.
pub(super) fn prior(opts: &AlignOptions, i: usize, j: usize, l: usize, m: usize, z: f64) -> f64 {
    match opts.tension {
        None => 1.0 / (l + 1) as f64,
        Some(_) if i == 0 => opts.null_prob,
        Some(_) => (1.0 - opts.null_prob) * diagonal(opts, i, j, l, m) / z,
    }
}

/// fast_align's unnormalized diagonal term `exp(-λ |i/l - j/m|)`.
pub(super) fn diagonal(opts: &AlignOptions, i: usize, j: usize, l: usize, m: usize) -> f64 {
    let lambda = opts.tension.unwrap_or(0.0);
    (-lambda * (i as f64 / l as f64 - j as f64 / m as f64).abs()).exp()
}

/// The normalizer of [`diagonal`] for target position `j`.
pub(super) fn diagonal_z(opts: &AlignOptions, j: usize, l: usize, m: usize) -> f64 {
    (1..=l).map(|i| diagonal(opts, i, j, l, m)).sum()
}

/// Trains `t(f | e)` over `text` for `opts.iterations` rounds, from a constant start
/// (after the first E-step every start gives the same counts).
pub(super) fn train(text: &Bitext<'_>, e_vocab: usize, opts: &AlignOptions) -> Table {
    // The table's cells: every (e, f) that co-occur, the empty word with every f.
    let mut cells: Vec<u64> = Vec::new();
    for k in 0..text.pairs.len() {
        let (e, f) = text.get(k);
        for &fw in f {
            cells.push(u64::from(fw));
            for &ew in e {
                cells.push((u64::from(ew) << 32) | u64::from(fw));
            }
        }
        // Sorting as we go keeps the peak at the distinct cells, not every occurrence.
        if cells.len() > 1 << 24 {
            cells.sort_unstable();
            cells.dedup();
        }
    }
    cells.sort_unstable();
    cells.dedup();
    let mut table = Table::from_cells(e_vocab, &cells, 1.0);
    drop(cells);
    let mut counts = vec![0f64; table.cols.len()];
    let mut totals = vec![0f64; e_vocab];
    let mut cell_of: Vec<usize> = Vec::new();
    let mut post: Vec<f64> = Vec::new();
    for _ in 0..opts.iterations {
        counts.iter_mut().for_each(|c| *c = 0.0);
        totals.iter_mut().for_each(|c| *c = 0.0);
        for k in 0..text.pairs.len() {
            let (e, f) = text.get(k);
            let (l, m) = (e.len(), f.len());
            for (j, &fw) in f.iter().enumerate() {
                let z = if opts.tension.is_some() { diagonal_z(opts, j + 1, l, m) } else { 0.0 };
                cell_of.clear();
                post.clear();
                let mut sum = 0.0;
                for i in 0..=l {
                    let ew = if i == 0 { 0 } else { e[i - 1] };
                    let at = table.find(ew, fw).unwrap_or(usize::MAX);
                    let p = if at == usize::MAX { 0.0 } else { f64::from(table.prob[at]) };
                    let v = prior(opts, i, j + 1, l, m, z) * p;
                    cell_of.push(at);
                    post.push(v);
                    sum += v;
                }
                if sum <= 0.0 {
                    continue;
                }
                for i in 0..=l {
                    if cell_of[i] == usize::MAX {
                        continue;
                    }
                    let v = post[i] / sum;
                    counts[cell_of[i]] += v;
                    let ew = if i == 0 { 0 } else { e[i - 1] };
                    totals[ew as usize] += v;
                }
            }
        }
        for (ew, &total) in totals.iter().enumerate() {
            let cells = table.rows[ew]..table.rows[ew + 1];
            for (p, &c) in table.prob[cells.clone()].iter_mut().zip(&counts[cells]) {
                *p = if total > 0.0 { (c / total) as f32 } else { 0.0 };
            }
        }
    }
    table
}
