//! Fuzzy candidate retrieval helpers (docs/matching.md §7): the design note's FTS5 trigram query,
//! length bounds, and the padded q-grams and count bound the in-memory index uses.

/// The design note's `BuildTrigramQuery`: the FTS5 `MATCH` expression for a key.
///
/// - Several words (Latin and similar scripts): `OR` of the words of ≥ 3 characters,
///   each a quoted substring.
/// - A single word, or CJK text: overlapping 4-character windows sampled at even
///   intervals, at most 6, OR-ed.
///
/// `None` when nothing of three or more characters remains (the caller then falls back
/// to the length pre-filter). Double quotes inside a term are doubled (FTS5 strings).
pub fn build_trigram_query(text: &str) -> Option<String> {
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() >= 2 && !text.chars().any(is_cjk) {
        let terms: Vec<String> = words.iter().filter(|w| w.chars().count() >= 3).map(|w| quote(w)).collect();
        return (!terms.is_empty()).then(|| terms.join(" OR "));
    }
    let chars: Vec<char> = text.trim().chars().collect();
    let n = chars.len();
    if n < 3 {
        return None;
    }
    if n <= 4 {
        return Some(quote(&chars.iter().collect::<String>()));
    }
    let count = (n - 3).min(6);
    let mut terms: Vec<String> = Vec::with_capacity(count);
    for i in 0..count {
        let start = if count == 1 { 0 } else { i * (n - 4) / (count - 1) };
        let term = quote(&chars[start..start + 4].iter().collect::<String>());
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    Some(terms.join(" OR "))
}

/// True for Han, Hiragana, Katakana and Hangul characters: scripts written without
/// spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x1100..=0x11FF    // Hangul jamo
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FFFF) // CJK Extensions B–F
}

/// The lengths (in characters) a stored key may have to reach `min_similarity` with a
/// query key of `len` characters: similarity ≤ min(len)/max(len).
pub fn length_bounds(len: usize, min_similarity: f64) -> (usize, usize) {
    if min_similarity <= 0.0 {
        return (0, usize::MAX);
    }
    let lo = (len as f64 * min_similarity - 1e-9).ceil().max(0.0) as usize;
    let hi = (len as f64 / min_similarity + 1e-9).floor() as usize;
    (lo, hi)
}

/// q for the in-memory index.
pub const Q: usize = 3;

const PAD_START: char = '\u{2}';
const PAD_END: char = '\u{3}';

/// The distinct padded trigrams of a key, sorted: the key framed by two start and two
/// end markers, so every character — even of a one-character key — lies in three
/// grams. Each is three scalar values packed into 63 bits.
pub fn padded_grams(key: &str) -> Vec<u64> {
    let mut grams = padded_windows(key);
    grams.sort_unstable();
    grams.dedup();
    grams
}

/// [`padded_grams`] with how often each occurs in the key: a key of `n` characters has
/// `n + 2` gram positions in all.
pub fn padded_gram_counts(key: &str) -> Vec<(u64, usize)> {
    let mut grams = padded_windows(key);
    grams.sort_unstable();
    let mut counted: Vec<(u64, usize)> = Vec::with_capacity(grams.len());
    for g in grams {
        match counted.last_mut() {
            Some((last, n)) if *last == g => *n += 1,
            _ => counted.push((g, 1)),
        }
    }
    counted
}

/// The padded grams of a key in order, repeats and all.
fn padded_windows(key: &str) -> Vec<u64> {
    let mut chars: Vec<char> = Vec::with_capacity(key.len() + 4);
    chars.extend([PAD_START, PAD_START]);
    chars.extend(key.chars());
    chars.extend([PAD_END, PAD_END]);
    chars
        .windows(Q)
        .map(|w| (u64::from(w[0] as u32) << 42) | (u64::from(w[1] as u32) << 21) | u64::from(w[2] as u32))
        .collect()
}

/// The least edit distance between a query of `query_len` characters with `query_grams`
/// distinct padded grams and a key of `len` characters sharing `shared` of them: each
/// gram the key lacks takes at least one of the query's gram positions with it (see
/// [`min_distance_missing`]).
#[inline]
pub fn min_distance(query_len: usize, query_grams: usize, len: usize, shared: usize) -> usize {
    min_distance_missing(query_len, query_grams.saturating_sub(shared), len)
}

/// The least edit distance between a query of `query_len` characters and a key of `len`
/// characters when `missing` of the query's `query_len + 2` gram positions hold a gram
/// the key lacks (a gram repeated in the query counts at each of its positions).
///
/// An edit changes the grams at the positions it touches and leaves the others in the
/// key: a substitution or a deletion of a query character destroys at most `Q`
/// positions, an insertion at most `Q − 1` (only the grams spanning the gap). A key
/// longer by `Δ` needs `Δ` insertions (destroying at most `2Δ` positions) and
/// substitutions for the rest; a key shorter by `Δ` needs `Δ` deletions (at most `3Δ`)
/// and the rest likewise.
#[inline]
pub fn min_distance_missing(query_len: usize, missing: usize, len: usize) -> usize {
    let delta = query_len.abs_diff(len);
    let per_length_edit = if len >= query_len { Q - 1 } else { Q };
    delta + missing.saturating_sub(per_length_edit * delta).div_ceil(Q)
}

/// The highest similarity a key of `len` characters can reach with a query of
/// `query_len` characters when `missing` of the query's gram positions hold a gram the
/// key lacks (see [`min_distance_missing`]).
#[inline]
pub fn similarity_bound(query_len: usize, missing: usize, len: usize) -> f64 {
    let max = query_len.max(len);
    if max == 0 {
        return 1.0;
    }
    let d = min_distance_missing(query_len, missing, len);
    1.0 - d as f64 / max as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(
            build_trigram_query("Open the file in a new window").as_deref(),
            Some(r#""Open" OR "the" OR "file" OR "new" OR "window""#)
        );
        assert_eq!(build_trigram_query("a b").as_deref(), None);
        assert_eq!(build_trigram_query(r#"say "hi" now"#).as_deref(), Some(r#""say" OR """hi""" OR "now""#));
    }

    #[test]
    fn single_word_and_cjk() {
        assert_eq!(build_trigram_query("ab"), None);
        assert_eq!(build_trigram_query("abc").as_deref(), Some(r#""abc""#));
        assert_eq!(build_trigram_query("abcde").as_deref(), Some(r#""abcd" OR "bcde""#));
        assert_eq!(
            build_trigram_query("internationalization").as_deref(),
            Some(r#""inte" OR "erna" OR "atio" OR "onal" OR "liza" OR "tion""#)
        );
        let q = build_trigram_query("ファイルを開けませんでした").unwrap_or_default();
        assert_eq!(q.matches(" OR ").count(), 5);
        assert!(q.starts_with("\"ファイル\""));
        assert!(q.ends_with("\"でした\"") || q.ends_with("した\""));
        // CJK text with spaces still takes the window path.
        assert!(build_trigram_query("ファイル を開く").unwrap_or_default().contains("ファイ"));
    }

    #[test]
    fn bounds() {
        assert_eq!(length_bounds(10, 0.7), (7, 14));
        assert_eq!(length_bounds(0, 0.7), (0, 0));
        assert_eq!(padded_grams("a").len(), 3);
        assert!((similarity_bound(10, 0, 10) - 1.0).abs() < 1e-12);
        // A key 8 longer that shares nothing: 8 insertions destroy at most 16 of 28
        // grams, the other 12 need 4 more edits.
        assert_eq!(min_distance(26, 28, 34, 0), 12);
        assert_eq!(min_distance(26, 28, 20, 0), 6 + 4);
    }

    proptest::proptest! {
        #[test]
        fn bound_never_exceeds_the_distance(
            a in "[abc é]{0,40}",
            b in "[abc é]{0,40}",
        ) {
            let ga = padded_grams(&a);
            let gb = padded_grams(&b);
            let shared = ga.iter().filter(|g| gb.binary_search(g).is_ok()).count();
            let (la, lb) = (a.chars().count(), b.chars().count());
            proptest::prop_assert!(min_distance(la, ga.len(), lb, shared) <= crate::index::distance::levenshtein(&a, &b));
        }

        #[test]
        fn positions_bound_the_distance_too(
            a in "[ab é]{0,12}",
            b in "[ab é]{0,40}",
            repeats in 1usize..4,
        ) {
            // Repeated grams in the query count at each position they hold.
            let a = a.repeat(repeats);
            let gb = padded_grams(&b);
            let counted = padded_gram_counts(&a);
            let missing: usize = counted.iter().filter(|(g, _)| gb.binary_search(g).is_err()).map(|(_, n)| n).sum();
            let (la, lb) = (a.chars().count(), b.chars().count());
            proptest::prop_assert_eq!(counted.iter().map(|(_, n)| n).sum::<usize>(), la + 2);
            proptest::prop_assert!(missing >= counted.iter().filter(|(g, _)| gb.binary_search(g).is_err()).count());
            proptest::prop_assert!(min_distance_missing(la, missing, lb) <= crate::index::distance::levenshtein(&a, &b));
        }
    }

    #[test]
    fn bound_is_sound() {
        use crate::index::distance::levenshtein;
        let words =
            ["Open the file", "Open a file", "the file opens", "x", "", "files", "Öffnen", "aaaa", "abab"];
        for a in words {
            for b in words {
                let ga = padded_grams(a);
                let gb = padded_grams(b);
                let shared = ga.iter().filter(|g| gb.binary_search(g).is_ok()).count();
                let (la, lb) = (a.chars().count(), b.chars().count());
                assert!(min_distance(la, ga.len(), lb, shared) <= levenshtein(a, b), "{a:?} {b:?}");
            }
        }
    }
}
