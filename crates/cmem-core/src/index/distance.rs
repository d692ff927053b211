//! Character Levenshtein distance and the similarity of docs/matching.md §4.
//!
//! [`Pattern`] is the fast path: the bit-parallel algorithm of Myers (1999) in the
//! block form of Hyyrö (2003), 64 pattern characters per machine word, with a cut-off
//! that stops as soon as the distance can no longer come under the limit.
//! [`levenshtein_reference`] is the plain dynamic program it is checked against
//! (property tests below and in `tests/`).

use std::collections::HashMap;

/// The plain O(n·m) dynamic program over Unicode scalar values: the reference.
pub fn levenshtein_reference(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// docs/matching.md §4 similarity from a distance and the two lengths: `1 − d / max(la, lb)`,
/// 1.0 when both are empty.
pub fn similarity_from(distance: usize, la: usize, lb: usize) -> f64 {
    let max = la.max(lb);
    if max == 0 {
        1.0
    } else {
        1.0 - distance as f64 / max as f64
    }
}

/// The largest distance that still gives a similarity ≥ `min_similarity` between
/// strings of lengths `la` and `lb`.
pub fn max_distance_for(min_similarity: f64, la: usize, lb: usize) -> usize {
    let max = la.max(lb) as f64;
    // A small epsilon so that exactly-on-threshold scores are kept despite rounding.
    let k = ((1.0 - min_similarity) * max + 1e-9).floor();
    if k <= 0.0 {
        0
    } else {
        k as usize
    }
}

/// How many characters of a text fall in each of 32 classes — ASCII letters (either
/// case), space, ASCII digits, other ASCII, and other characters hashed over all 32 —
/// saturating at 255: 32 bytes from which a lower bound of the Levenshtein distance of
/// two texts is read without comparing them.
///
/// An edit adds one character, removes one, or both, so it changes the counts by at
/// most one up and one down: turning `a` into `b` takes at least as many edits as the
/// counts `a` has in excess of `b`, and as `b` has in excess of `a`. Classes and
/// saturation only ever lower the excess, so the bound stays sound. It rules out most of
/// the candidates the trigram count lets through before any distance is computed
/// (DESIGN.md §4.8 has the share and the class counts tried).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharSketch([u8; 32]);

impl CharSketch {
    /// A sketch from its stored counts (a persisted index).
    pub(crate) fn from_counts(counts: [u8; 32]) -> CharSketch {
        CharSketch(counts)
    }

    /// Its counts, to store.
    pub(crate) fn counts(&self) -> &[u8; 32] {
        &self.0
    }

    /// The sketch of `text`.
    pub fn of(text: &str) -> CharSketch {
        let mut counts = [0u8; 32];
        for c in text.chars() {
            let class = match c {
                'a'..='z' => c as usize - 'a' as usize,
                'A'..='Z' => c as usize - 'A' as usize,
                ' ' => 26,
                '0'..='9' => 27,
                _ if c.is_ascii() => 28,
                // A multiplicative hash spreads the scalar values of a script over all
                // classes (the top five bits of the product).
                _ => ((c as u32).wrapping_mul(0x9E37_79B1) >> 27) as usize,
            };
            counts[class] = counts[class].saturating_add(1);
        }
        CharSketch(counts)
    }

    /// A lower bound of the Levenshtein distance between the texts of two sketches.
    pub fn min_distance(&self, other: &CharSketch) -> usize {
        let (mut excess, mut lack) = (0u32, 0u32);
        for (&a, &b) in self.0.iter().zip(&other.0) {
            excess += u32::from(a.saturating_sub(b));
            lack += u32::from(b.saturating_sub(a));
        }
        excess.max(lack) as usize
    }
}

/// A query string prepared for repeated bit-parallel distance computations.
#[derive(Debug, Clone)]
pub struct Pattern {
    len: usize,
    words: usize,
    sketch: CharSketch,
    /// Match masks of ASCII characters: `ascii[c * words + w]`.
    ascii: Vec<u64>,
    /// Match masks of other characters.
    other: HashMap<char, Vec<u64>>,
}

/// One text column's step through one block of 64 pattern rows (Myers's algorithm in
/// Hyyrö's block form): `x` is the column character's match mask for the block, `vp` and
/// `vn` the block's vertical deltas (updated), `carry` the horizontal deltas of the row
/// above the block (`(1, 0)` for the first block: row 0 grows by one a column). Returns
/// the block's horizontal deltas, row `r` at bit `r`; bit 63 is the carry of the next
/// block, the rest shifted up by one and the carry in is that of the first row.
#[inline(always)]
fn advance(x: u64, vp: &mut u64, vn: &mut u64, carry: (u64, u64)) -> (u64, u64) {
    let x = x | carry.1;
    let d0 = (((x & *vp).wrapping_add(*vp)) ^ *vp) | x | *vn;
    let hp = *vn | !(d0 | *vp);
    let hn = d0 & *vp;
    let (up, down) = ((hp << 1) | carry.0, (hn << 1) | carry.1);
    *vp = down | !(d0 | up);
    *vn = up & d0;
    (hp, hn)
}

impl Pattern {
    /// Prepares `pattern`.
    pub fn new(pattern: &str) -> Pattern {
        let chars: Vec<char> = pattern.chars().collect();
        let len = chars.len();
        let words = len.div_ceil(64).max(1);
        let mut ascii = vec![0u64; 128 * words];
        let mut other: HashMap<char, Vec<u64>> = HashMap::new();
        for (i, c) in chars.iter().enumerate() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            if c.is_ascii() {
                ascii[*c as usize * words + w] |= bit;
            } else {
                other.entry(*c).or_insert_with(|| vec![0; words])[w] |= bit;
            }
        }
        Pattern { len, words, ascii, other, sketch: CharSketch::of(pattern) }
    }

    /// Length in characters.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for the empty pattern.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The match masks of `c`, one word per block; `None` for a character the pattern
    /// lacks outside ASCII.
    #[inline]
    fn masks(&self, c: char) -> Option<&[u64]> {
        if c.is_ascii() {
            self.ascii_masks(c as u8)
        } else {
            self.other.get(&c).map(Vec::as_slice)
        }
    }

    /// [`masks`](Pattern::masks) of an ASCII byte (`None` for any other byte).
    #[inline]
    fn ascii_masks(&self, b: u8) -> Option<&[u64]> {
        let at = usize::from(b) * self.words;
        self.ascii.get(at..at + self.words)
    }

    /// The distance to `text`.
    pub fn distance(&self, text: &str) -> usize {
        let n = text.chars().count();
        self.distance_within(text, n, usize::MAX).unwrap_or(usize::MAX)
    }

    /// The distance to `text` (of `text_len` characters) when it is at most `max`, else
    /// `None`, stopping as soon as that is certain.
    pub fn distance_within(&self, text: &str, text_len: usize, max: usize) -> Option<usize> {
        self.distance_bounded::<false>(text, text_len, max)
    }

    /// [`distance_within`](Pattern::distance_within), stopping also once the diagonal
    /// that ends in the last cell exceeds `max`.
    ///
    /// Along a diagonal of the distance table the values never fall (each step adds 0
    /// or 1), so a cell on the last cell's diagonal whose value exceeds `max` proves the
    /// distance does too. A text far from the pattern is given up about halfway instead
    /// of at its end; the result is the same. The diagonal's cell is followed a bit a
    /// column, and a long pattern's lower blocks are computed only once they can matter
    /// (see `banded`).
    pub fn distance_within_diagonal(&self, text: &str, text_len: usize, max: usize) -> Option<usize> {
        self.distance_bounded::<true>(text, text_len, max)
    }

    fn distance_bounded<const DIAGONAL: bool>(
        &self,
        text: &str,
        text_len: usize,
        max: usize,
    ) -> Option<usize> {
        let m = self.len;
        if m.abs_diff(text_len) > max {
            return None;
        }
        if m == 0 {
            return Some(text_len);
        }
        if text_len == 0 {
            return Some(m);
        }
        // Patterns of up to 256 characters (most) keep their state in registers or on the
        // stack, in a loop the compiler unrolls.
        match self.words {
            1 => self.kernel::<1, DIAGONAL>(text, text_len, max, &mut [!0; 1], &mut [0; 1]),
            2 => self.kernel::<2, DIAGONAL>(text, text_len, max, &mut [!0; 2], &mut [0; 2]),
            3 => self.kernel::<3, DIAGONAL>(text, text_len, max, &mut [!0; 3], &mut [0; 3]),
            4 => self.kernel::<4, DIAGONAL>(text, text_len, max, &mut [!0; 4], &mut [0; 4]),
            words => {
                self.kernel::<0, DIAGONAL>(text, text_len, max, &mut vec![!0; words], &mut vec![0; words])
            }
        }
    }

    /// The bit-parallel distance with its vertical deltas, one word per block, in `vp`
    /// (all ones) and `vn` (all zeros); `WORDS` is their number when known at compile
    /// time, else 0. With `DIAGONAL`, the banded kernel of the index's path.
    #[inline]
    fn kernel<const WORDS: usize, const DIAGONAL: bool>(
        &self,
        text: &str,
        n: usize,
        max: usize,
        vp: &mut [u64],
        vn: &mut [u64],
    ) -> Option<usize> {
        if DIAGONAL {
            self.banded::<WORDS>(text, n, max, vp, vn)
        } else {
            self.blocks_in::<WORDS>(text, n, max, vp, vn)
        }
    }

    /// [`distance_within_diagonal`](Pattern::distance_within_diagonal) a block of 64
    /// pattern characters at a time, computing a block only from the first text column
    /// where one of its rows can hold a value within `max` (Ukkonen's cut-off by block).
    ///
    /// A cell at row `i` and column `j` is at least `i − j`, so a block whose first row
    /// is below `j + max` holds no value within `max` at column `j`, and neither does any
    /// path through it to such a value. Until then the block keeps its first state (each
    /// row one more than the row above): too high where it is not computed, never too
    /// low, and exact wherever a value is within `max` — which is all the diagonal test
    /// and the result read. Long patterns skip their lower blocks for the first columns,
    /// where most far texts are given up.
    fn banded<const WORDS: usize>(
        &self,
        text: &str,
        n: usize,
        max: usize,
        vp: &mut [u64],
        vn: &mut [u64],
    ) -> Option<usize> {
        // A text of as many bytes as characters is ASCII: its masks are read by byte,
        // without decoding.
        if text.len() == n {
            self.banded_masks::<WORDS>(text.bytes().map(|b| self.ascii_masks(b)), n, max, vp, vn)
        } else {
            self.banded_masks::<WORDS>(text.chars().map(|c| self.masks(c)), n, max, vp, vn)
        }
    }

    /// [`banded`](Pattern::banded) over the match masks of the text's characters.
    fn banded_masks<'a, const WORDS: usize>(
        &self,
        text: impl Iterator<Item = Option<&'a [u64]>>,
        n: usize,
        max: usize,
        vp: &mut [u64],
        vn: &mut [u64],
    ) -> Option<usize> {
        let m = self.len;
        let words = if WORDS == 0 { self.words } else { WORDS };
        let shift = m as isize - n as isize;
        // Blocks `0..active` are computed: those whose first row, 64·w + 1, is at most
        // the column plus `max`.
        let mut active = (max / 64 + 1).min(words);
        // The value of the last cell's diagonal at the text column: it enters the table
        // at row 0 or column 0, at `|m − n|`, and each column adds the horizontal delta
        // of the row above it and the vertical delta of its row, one bit each.
        let mut diagonal = shift.unsigned_abs();
        for (j, masks) in text.enumerate() {
            let col = j + 1;
            while active < words && 64 * active < col + max {
                active += 1;
            }
            // The diagonal's row in this column, from 0; its deltas are at bit `row − 1`.
            let row = col as isize + shift;
            let (word, bit) =
                if row >= 1 { ((row - 1) as usize / 64, (row - 1) as u32 % 64) } else { (usize::MAX, 0) };
            let mut carry = (1, 0);
            for w in 0..active {
                let (hp, hn) = advance(masks.map_or(0, |m| m[w]), &mut vp[w], &mut vn[w], carry);
                if w == word {
                    // The horizontal delta of the row above the diagonal's cell (the
                    // deltas shifted up by one, the carry in below them) and the
                    // vertical delta of its own.
                    let (hp, hn) = ((hp << 1) | carry.0, (hn << 1) | carry.1);
                    let up = ((hp >> bit) & 1) + ((vp[w] >> bit) & 1);
                    let down = ((hn >> bit) & 1) + ((vn[w] >> bit) & 1);
                    diagonal = (diagonal + up as usize) - down as usize;
                }
                carry = (hp >> 63, hn >> 63);
            }
            if row >= 1 && diagonal > max {
                return None;
            }
        }
        // The diagonal ends in the last cell.
        (diagonal <= max).then_some(diagonal)
    }

    /// [`distance_within`](Pattern::distance_within) a block of 64 pattern characters at a
    /// time, following the last row's value to the end (see [`kernel`](Pattern::kernel)).
    fn blocks_in<const WORDS: usize>(
        &self,
        text: &str,
        n: usize,
        max: usize,
        vp: &mut [u64],
        vn: &mut [u64],
    ) -> Option<usize> {
        let m = self.len;
        let words = if WORDS == 0 { self.words } else { WORDS };
        let last = 1u64 << ((m - 1) % 64);
        let mut dist = m;
        for (j, c) in text.chars().enumerate() {
            let masks = self.masks(c);
            let mut carry = (1, 0);
            for w in 0..words {
                let (hp, hn) = advance(masks.map_or(0, |m| m[w]), &mut vp[w], &mut vn[w], carry);
                if w == words - 1 {
                    if hp & last != 0 {
                        dist += 1;
                    } else if hn & last != 0 {
                        dist -= 1;
                    }
                }
                carry = (hp >> 63, hn >> 63);
            }
            let remaining = n - j - 1;
            if dist > max.saturating_add(remaining) {
                return None;
            }
        }
        (dist <= max).then_some(dist)
    }

    /// docs/matching.md §4 similarity with `text` when it is at least `min_similarity`, else `None`.
    pub fn similarity_at_least(&self, text: &str, text_len: usize, min_similarity: f64) -> Option<f64> {
        self.similarity_with(text, text_len, None, min_similarity)
    }

    /// [`similarity_at_least`](Pattern::similarity_at_least) for a text whose
    /// [`CharSketch`] is known: texts the sketches rule out are not compared.
    pub fn similarity_at_least_sketched(
        &self,
        text: &str,
        text_len: usize,
        sketch: &CharSketch,
        min_similarity: f64,
    ) -> Option<f64> {
        self.similarity_with(text, text_len, Some(sketch), min_similarity)
    }

    /// True when a text of `text_len` characters with `sketch` cannot reach
    /// `min_similarity`: its sketch is further from this pattern's than the similarity
    /// allows (see [`CharSketch`]).
    pub fn sketch_rules_out(&self, text_len: usize, sketch: &CharSketch, min_similarity: f64) -> bool {
        self.sketch.min_distance(sketch) > max_distance_for(min_similarity, self.len, text_len)
    }

    /// The similarity with `text` when at least `min_similarity`, ruled out first by its
    /// sketch when one is given.
    fn similarity_with(
        &self,
        text: &str,
        text_len: usize,
        sketch: Option<&CharSketch>,
        min_similarity: f64,
    ) -> Option<f64> {
        let max = max_distance_for(min_similarity, self.len, text_len);
        let distance = match sketch {
            Some(s) if self.sketch.min_distance(s) > max => return None,
            // The index's path (DESIGN.md §4.9); the benchmark's exhaustive reference
            // takes the other, as it defines the comparison.
            Some(_) => self.distance_within_diagonal(text, text_len, max),
            None => self.distance_within(text, text_len, max),
        };
        distance.map(|d| similarity_from(d, self.len, text_len)).filter(|s| reaches(*s, min_similarity))
    }
}

/// Levenshtein distance over Unicode scalar values (the fast path).
pub fn levenshtein(a: &str, b: &str) -> usize {
    Pattern::new(a).distance(b)
}

/// How far under a threshold a score may fall and still reach it: scores are ratios of
/// whole numbers computed in floating point, so one that equals a threshold in exact
/// arithmetic may come out a rounding error under it. The one tolerance every score
/// comparison of the workspace uses, through [`reaches`].
pub const SCORE_TOLERANCE: f64 = 1e-12;

/// Whether `score` reaches `threshold` (is at least it, up to [`SCORE_TOLERANCE`]).
///
/// ```
/// use cmem_core::reaches;
///
/// assert!(reaches(0.7, 0.7));
/// assert!(reaches(7.0 / 10.0, 0.1 * 7.0)); // equal but for rounding
/// assert!(!reaches(0.69, 0.7));
/// ```
pub fn reaches(score: f64, threshold: f64) -> bool {
    score + SCORE_TOLERANCE >= threshold
}

/// docs/matching.md §4 similarity: `1 − lev(a, b) / max(len a, len b)`; both empty: 1.0.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (la, lb) = (a.chars().count(), b.chars().count());
    similarity_from(levenshtein(a, b), la, lb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_values() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("abc", ""), 3);
        assert_eq!(levenshtein("", ""), 0);
        assert_eq!(levenshtein("äöü", "aöu"), 2);
        assert_eq!(levenshtein("日本語", "日本"), 1);
        assert_eq!(similarity("", ""), 1.0);
        assert!((similarity("abcd", "abce") - 0.75).abs() < 1e-12);
    }

    #[test]
    fn long_patterns_cross_word_boundaries() {
        let a: String = "abcdefghij".repeat(20);
        let mut b = a.clone();
        b.insert(63, 'X');
        b.insert(130, 'Y');
        b.remove(190);
        assert_eq!(levenshtein(&a, &b), levenshtein_reference(&a, &b));
    }

    #[test]
    fn sketch_bounds() {
        let s = CharSketch::of;
        assert_eq!(s("kitten").min_distance(&s("sitting")), 3);
        assert_eq!(s("abc").min_distance(&s("ABC")), 0);
        assert_eq!(s("").min_distance(&s("abc")), 3);
        // Saturation: 300 counts as 255, so the bound is 155 where the distance is 200.
        assert_eq!(s(&"a".repeat(300)).min_distance(&s(&"a".repeat(100))), 155);
        assert_eq!(s("日本語").min_distance(&s("日本")), 1);
    }

    #[test]
    fn the_diagonal_gives_up_on_far_texts_early_and_agrees_on_near_ones() {
        // Far apart from the first characters on: the diagonal exceeds 2 long before the
        // end, where the last row's count alone could not tell.
        let p = Pattern::new("abcdefghijklmnopqrst");
        assert_eq!(p.distance_within_diagonal("zyxwvutsrqponmlkjihg", 20, 2), None);
        assert_eq!(p.distance_within_diagonal("abcdefghijklmnopqrsX", 20, 2), Some(1));
        assert_eq!(p.distance_within_diagonal("abcdefghijklmnopqrs", 19, 1), Some(1));
        assert_eq!(p.distance_within_diagonal("Xabcdefghijklmnopqrst", 21, 1), Some(1));
        let long: String = "abcdefghij".repeat(20);
        let p = Pattern::new(&long);
        let mut near = long.clone();
        near.insert(100, 'X');
        assert_eq!(p.distance_within_diagonal(&near, 201, 3), Some(1));
        let far: String = "zyxwvutsrq".repeat(20);
        assert_eq!(p.distance_within_diagonal(&far, 200, 50), None);
    }

    #[test]
    fn a_long_pattern_reads_its_lower_blocks_only_once_they_can_matter() {
        // Three blocks; the text's first 70 characters are new, so the lower blocks start
        // late and the distance is still exact at every limit around it.
        let pattern: String = "the quick brown fox jumps over the lazy dog, ".repeat(4);
        let p = Pattern::new(&pattern);
        let text = format!("{}{}", "x".repeat(70), &pattern[70..]);
        let d = levenshtein_reference(&pattern, &text);
        assert_eq!(d, 70 - pattern[..70].matches('x').count());
        let n = text.chars().count();
        for max in [0, 1, d - 1, d, d + 1, 63, 64, 65, 180] {
            assert_eq!(p.distance_within_diagonal(&text, n, max), (d <= max).then_some(d), "max {max}");
        }
        // A near text under a small limit, edited at the second block's top rows: a block
        // started late misses the diagonal's step there (starting 8 columns late fails).
        let mut near: Vec<char> = pattern.chars().collect();
        near[66] = 'Z';
        near.remove(150);
        let near: String = near.into_iter().collect();
        for max in [2, 3, 5] {
            assert_eq!(p.distance_within_diagonal(&near, near.chars().count(), max), Some(2), "max {max}");
        }
        // Longer and shorter texts: the diagonal enters the table at row or column |m − n|.
        for text in [format!("ab{pattern}"), pattern[5..].to_string(), format!("{}zz", &pattern[..150])] {
            let d = levenshtein_reference(&pattern, &text);
            let n = text.chars().count();
            for max in [d.saturating_sub(1), d, d + 3] {
                assert_eq!(
                    p.distance_within_diagonal(&text, n, max),
                    (d <= max).then_some(d),
                    "{text:?} max {max}"
                );
            }
        }
    }

    #[test]
    fn cutoff() {
        let p = Pattern::new("kitten");
        assert_eq!(p.distance_within("sitting", 7, 3), Some(3));
        assert_eq!(p.distance_within("sitting", 7, 2), None);
        assert_eq!(p.distance_within("k", 1, 2), None);
    }

    fn small_alphabet() -> impl Strategy<Value = String> {
        proptest::collection::vec(prop::sample::select(vec!['a', 'b', 'c', 'é', '日', ' ']), 0..150)
            .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #[test]
        fn equals_reference(a in small_alphabet(), b in small_alphabet()) {
            prop_assert_eq!(levenshtein(&a, &b), levenshtein_reference(&a, &b));
        }

        #[test]
        fn symmetric_and_bounded(a in "\\PC{0,80}", b in "\\PC{0,80}") {
            let d = levenshtein(&a, &b);
            prop_assert_eq!(d, levenshtein(&b, &a));
            prop_assert!(d <= a.chars().count().max(b.chars().count()));
            let s = similarity(&a, &b);
            prop_assert!((0.0..=1.0).contains(&s));
        }

        #[test]
        fn sketches_bound_the_distance(a in small_alphabet(), b in "\\PC{0,80}", c in "[a-zA-Z0-9 .,]{0,300}") {
            for (x, y) in [(&a, &b), (&a, &c), (&b, &c)] {
                let bound = CharSketch::of(x).min_distance(&CharSketch::of(y));
                prop_assert!(bound <= levenshtein_reference(x, y), "{x:?} {y:?}");
                let p = Pattern::new(x);
                let n = y.chars().count();
                for min in [0.0, 0.5, 0.7, 0.9] {
                    prop_assert_eq!(
                        p.similarity_at_least_sketched(y, n, &CharSketch::of(y), min),
                        p.similarity_at_least(y, n, min)
                    );
                }
            }
        }

        #[test]
        fn cutoff_agrees_on_long_near_texts(
            base in proptest::collection::vec(prop::sample::select(vec!['a', 'b', 'c', 'd', ' ', 'é']), 60..420),
            edits in proptest::collection::vec((0usize..1000, 0u8..3, prop::sample::select(vec!['a', 'x', 'é'])), 0..80),
            slack in 0usize..30,
        ) {
            // A text a few edits from the pattern, of many blocks (past the stack state
            // too), with limits on both sides of the distance.
            let a: String = base.iter().collect();
            let mut b = base.clone();
            for (at, op, c) in edits {
                let at = at % (b.len() + 1);
                match op {
                    0 => b.insert(at, c),
                    1 if at < b.len() => { b.remove(at); }
                    _ if at < b.len() => b[at] = c,
                    _ => {}
                }
            }
            let b: String = b.into_iter().collect();
            let d = levenshtein_reference(&a, &b);
            let p = Pattern::new(&a);
            let n = b.chars().count();
            for max in [d.saturating_sub(slack), d.saturating_sub(1), d, d + slack] {
                prop_assert_eq!(p.distance_within(&b, n, max), (d <= max).then_some(d), "max {}", max);
                prop_assert_eq!(p.distance_within_diagonal(&b, n, max), (d <= max).then_some(d), "max {}", max);
            }
        }

        #[test]
        fn cutoff_agrees(a in small_alphabet(), b in small_alphabet(), max in 0usize..40) {
            let d = levenshtein_reference(&a, &b);
            let p = Pattern::new(&a);
            let got = p.distance_within(&b, b.chars().count(), max);
            prop_assert_eq!(got, (d <= max).then_some(d));
            let got = p.distance_within_diagonal(&b, b.chars().count(), max);
            prop_assert_eq!(got, (d <= max).then_some(d), "diagonal, max {}", max);
        }
    }
}
