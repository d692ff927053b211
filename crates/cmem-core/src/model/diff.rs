//! Word differences between two texts: what a client shows to say how a fuzzy match's
//! stored source differs from the query (or how an adapted target differs from the
//! stored one). Words and runs of white space are the units, as `git diff --word-diff`.
//!
//! ```
//! use cmem_core::model::diff::{word_diff, DiffOp};
//!
//! let ops = word_diff("Open the file", "Open the files");
//! assert_eq!(ops, vec![DiffOp::equal("Open the "), DiffOp::delete("file"), DiffOp::insert("files")]);
//! ```

use serde::{Deserialize, Serialize};

/// What one piece of a difference is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    /// In both texts.
    Equal,
    /// Only in the old text.
    Delete,
    /// Only in the new text.
    Insert,
}

/// One piece of a difference: `{"op":"insert","text":"files"}` in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DiffOp {
    /// What it is.
    pub op: DiffKind,
    /// Its text.
    pub text: String,
}

impl DiffOp {
    /// Text in both.
    pub fn equal(text: impl Into<String>) -> Self {
        DiffOp { op: DiffKind::Equal, text: text.into() }
    }
    /// Text only in the old.
    pub fn delete(text: impl Into<String>) -> Self {
        DiffOp { op: DiffKind::Delete, text: text.into() }
    }
    /// Text only in the new.
    pub fn insert(text: impl Into<String>) -> Self {
        DiffOp { op: DiffKind::Insert, text: text.into() }
    }
}

/// Words and runs of white space of `text`, in order.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let s = c.is_whitespace();
        if space != Some(s) {
            if i > start {
                out.push(&text[start..i]);
            }
            start = i;
            space = Some(s);
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The word differences that turn `old` into `new`: equal pieces, and between them what
/// `old` has (delete) before what `new` has (insert); adjacent pieces of one kind joined.
/// Longest common subsequence of words: quadratic, meant for segments.
pub fn word_diff(old: &str, new: &str) -> Vec<DiffOp> {
    let a = tokens(old);
    let b = tokens(new);
    let mut out: Vec<DiffOp> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let hunks = lcs_hunks(&a, &b);
    for (a1, a2, b1, b2) in hunks.into_iter().chain([(a.len(), a.len(), b.len(), b.len())]) {
        if a1 > i {
            out.push(DiffOp::equal(a[i..a1].concat()));
        }
        if a2 > a1 {
            out.push(DiffOp::delete(a[a1..a2].concat()));
        }
        if b2 > b1 {
            out.push(DiffOp::insert(b[b1..b2].concat()));
        }
        (i, j) = (a2, b2);
    }
    debug_assert_eq!(j, b.len());
    out
}

/// The changed stretches between `a` and `b`: `(a1, a2, b1, b2)`, half open, in order,
/// between the runs of a longest common subsequence (where two choices are as long, the
/// walk takes `b`'s item first, so a stretch lists what `a` loses before what `b` gains).
/// Quadratic, meant for the words of segments.
pub(crate) fn lcs_hunks<T: PartialEq>(a: &[T], b: &[T]) -> Vec<(usize, usize, usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[at(i, j)] =
                if a[i] == b[j] { dp[at(i + 1, j + 1)] + 1 } else { dp[at(i + 1, j)].max(dp[at(i, j + 1)]) };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open: Option<(usize, usize)> = None;
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            if let Some((a1, b1)) = open.take() {
                out.push((a1, i, b1, j));
            }
            i += 1;
            j += 1;
            continue;
        }
        open.get_or_insert((i, j));
        if j < m && (i == n || dp[at(i, j + 1)] >= dp[at(i + 1, j)]) {
            j += 1;
        } else {
            i += 1;
        }
    }
    if let Some((a1, b1)) = open {
        out.push((a1, n, b1, m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces() {
        assert_eq!(
            word_diff("Hallo John, du", "Hallo Alice, du"),
            vec![
                DiffOp::equal("Hallo "),
                DiffOp::delete("John,"),
                DiffOp::insert("Alice,"),
                DiffOp::equal(" du")
            ]
        );
        assert_eq!(word_diff("same", "same"), vec![DiffOp::equal("same")]);
        assert_eq!(word_diff("", "neu"), vec![DiffOp::insert("neu")]);
        assert_eq!(word_diff("alt", ""), vec![DiffOp::delete("alt")]);
        assert!(word_diff("", "").is_empty());
        // Rebuilding both sides from the pieces gives the texts back.
        let ops = word_diff("a b  c\nd", "a x c d e");
        let old: String = ops.iter().filter(|o| o.op != DiffKind::Insert).map(|o| o.text.as_str()).collect();
        let new: String = ops.iter().filter(|o| o.op != DiffKind::Delete).map(|o| o.text.as_str()).collect();
        assert_eq!((old.as_str(), new.as_str()), ("a b  c\nd", "a x c d e"));
    }
}
