//! Differences between two texts at the grain of the change: what a client shows to say
//! how a fuzzy match's stored source differs from the query (or how an adapted target
//! differs from the stored one).
//!
//! Words and runs of white space are compared first, as `git diff --word-diff` does, with
//! a markup tag (`<span class="x">`) one unit however many spaces it holds. Where words
//! differ, the changed stretch is compared again in finer pieces — letters and digits,
//! each punctuation mark, each code (a tag, `%s`, `{0}`, `&amp;`) — so a colon added after
//! a word shows as the colon alone, and a tag put around a word as the tag. A changed
//! word that keeps most of its letters with the word it replaces (a plural, a changed
//! case, the other half of a compound) shows the characters that changed.
//!
//! ```
//! use cmem_core::model::diff::{word_diff, DiffOp};
//!
//! let ops = word_diff("Open the file", "Open the files");
//! assert_eq!(ops, vec![DiffOp::equal("Open the file"), DiffOp::insert("s")]);
//! let ops = word_diff("Save the file:", "Save the file");
//! assert_eq!(ops, vec![DiffOp::equal("Save the file"), DiffOp::delete(":")]);
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

/// The length of the markup tag (`<b>`, `</span>`, `<br/>`, `<!-- … -->`) at the start
/// of `text`, if one starts there: `<` then a letter, `/`, `!` or `?`, up to the first
/// `>` with no `<` before it.
fn tag_len(text: &str) -> Option<usize> {
    let rest = text.strip_prefix('<')?;
    let first = rest.chars().next()?;
    if !(first.is_ascii_alphabetic() || matches!(first, '/' | '!' | '?')) {
        return None;
    }
    let end = rest.find(['>', '<'])?;
    (rest.as_bytes()[end] == b'>').then_some(end + 2)
}

/// The length of the code that is one unit inside a word at the start of `text`: a tag,
/// a printf placeholder (`%s`, `%1$d`, `%%`), a brace placeholder without spaces (`{0}`,
/// `{name}`) or a character reference (`&amp;`, `&#160;`).
fn code_len(text: &str) -> Option<usize> {
    if let Some(n) = tag_len(text) {
        return Some(n);
    }
    let bytes = text.as_bytes();
    match bytes.first()? {
        b'%' => {
            let body = bytes[1..].iter().take_while(|b| b.is_ascii_digit() || b"$.#+-lh".contains(b)).count();
            let last = *bytes.get(1 + body)?;
            (last.is_ascii_alphabetic() || (body == 0 && last == b'%')).then_some(body + 2)
        }
        b'{' => {
            let end = text.find('}')?;
            let inner = &text[1..end];
            (!inner.is_empty()
                && inner.len() <= 40
                && !inner.contains(char::is_whitespace)
                && !inner.contains('{'))
            .then_some(end + 1)
        }
        b'&' => {
            let end = text.find(';')?;
            let inner = &text[1..end];
            let name = inner.strip_prefix('#').unwrap_or(inner);
            (!name.is_empty() && name.len() <= 10 && name.bytes().all(|b| b.is_ascii_alphanumeric()))
                .then_some(end + 1)
        }
        _ => None,
    }
}

/// The words of `text` in order: runs of white space, markup tags, and runs of anything
/// else (a tag's own spaces do not split it).
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        let tag = tag_len(rest);
        if tag.is_some() || c.is_whitespace() {
            if i > start {
                out.push(&text[start..i]);
            }
            let n = tag.unwrap_or_else(|| rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len()));
            out.push(&rest[..n]);
            i += n;
            start = i;
        } else {
            i += c.len_utf8();
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The pieces of `text` inside a changed stretch: runs of white space, codes
/// ([`code_len`]), runs of letters and digits, and every other character alone.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        let n = if let Some(n) = code_len(rest) {
            n
        } else if c.is_whitespace() {
            rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len())
        } else if is_letter(c) {
            rest.find(|c: char| !is_letter(c)).unwrap_or(rest.len())
        } else {
            c.len_utf8()
        };
        out.push(&rest[..n]);
        i += n;
    }
    out
}

/// A character of a word: a letter or digit, or a mark that combines with one.
fn is_letter(c: char) -> bool {
    c.is_alphanumeric() || ('\u{300}'..='\u{36f}').contains(&c) || c == '\u{ad}'
}

/// The differences, adjacent pieces of one kind joined.
#[derive(Default)]
struct Ops(Vec<DiffOp>);

impl Ops {
    fn push(&mut self, op: DiffKind, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(last) if last.op == op => last.text.push_str(text),
            _ => self.0.push(DiffOp { op, text: text.to_owned() }),
        }
    }
}

/// The differences that turn `old` into `new`, at the grain of the change (see the
/// [module docs](self)): equal pieces, and between them what `old` has (delete) before
/// what `new` has (insert); adjacent pieces of one kind joined, so the deleted pieces
/// rebuild `old` and the inserted ones `new`. Longest common subsequences of words, then
/// of the pieces of changed words: quadratic, meant for segments.
pub fn word_diff(old: &str, new: &str) -> Vec<DiffOp> {
    let mut out = Ops::default();
    let (a, b) = (words(old), words(new));
    stretches(&a, &b, &mut out, |a, b, out| {
        let (a, b) = (a.concat(), b.concat());
        let (a, b) = (pieces(&a), pieces(&b));
        stretches(&a, &b, out, pair_words);
    });
    out.0
}

/// The equal runs of `a` and `b` pushed as they are, each changed stretch handed to
/// `changed`.
fn stretches<'t>(
    a: &[&'t str],
    b: &[&'t str],
    out: &mut Ops,
    changed: impl Fn(&[&'t str], &[&'t str], &mut Ops),
) {
    let mut i = 0;
    for (a1, a2, b1, b2) in lcs_hunks(a, b).into_iter().chain([(a.len(), a.len(), b.len(), b.len())]) {
        for piece in &a[i..a1] {
            out.push(DiffKind::Equal, piece);
        }
        if a2 == a1 || b2 == b1 {
            a[a1..a2].iter().for_each(|p| out.push(DiffKind::Delete, p));
            b[b1..b2].iter().for_each(|p| out.push(DiffKind::Insert, p));
        } else {
            changed(&a[a1..a2], &b[b1..b2], out);
        }
        i = a2;
    }
}

/// A changed stretch of pieces: its first pair of related words ([`related`]) compared
/// character by character, what stands before them deleted and inserted, the rest
/// likewise; without such a pair, all deleted then all inserted.
fn pair_words(a: &[&str], b: &[&str], out: &mut Ops) {
    let pair = a.iter().enumerate().find_map(|(i, x)| b.iter().position(|y| related(x, y)).map(|j| (i, j)));
    let Some((i, j)) = pair else {
        a.iter().for_each(|p| out.push(DiffKind::Delete, p));
        b.iter().for_each(|p| out.push(DiffKind::Insert, p));
        return;
    };
    a[..i].iter().for_each(|p| out.push(DiffKind::Delete, p));
    b[..j].iter().for_each(|p| out.push(DiffKind::Insert, p));
    characters(a[i], b[j], out);
    pair_words(&a[i + 1..], &b[j + 1..], out);
}

/// The characters `x` and `y` share at their start and at their end.
fn affixes(x: &str, y: &str) -> (usize, usize) {
    let prefix: usize = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).map(|(p, _)| p.len_utf8()).sum();
    let (xs, ys) = (&x[prefix..], &y[prefix..]);
    let suffix: usize =
        xs.chars().rev().zip(ys.chars().rev()).take_while(|(p, q)| p == q).map(|(p, _)| p.len_utf8()).sum();
    (prefix, suffix)
}

/// Two words shown as one changed word: they differ in case only, or share at their
/// ends at least three characters and half of the longer one (`Saves`/`Save`,
/// `Dateiformat`/`Bildformat`), never codes.
fn related(x: &str, y: &str) -> bool {
    let word = |w: &str| w.chars().next().is_some_and(is_letter);
    if !word(x) || !word(y) {
        return false;
    }
    if x.to_lowercase() == y.to_lowercase() {
        return true;
    }
    let (p, s) = affixes(x, y);
    let shared = x[..p].chars().count() + x[x.len() - s..].chars().count();
    shared >= 3 && 2 * shared >= x.chars().count().max(y.chars().count())
}

/// Related words `x` → `y`: the characters they share at their ends equal, the middle
/// of each deleted and inserted.
fn characters(x: &str, y: &str, out: &mut Ops) {
    let (p, s) = affixes(x, y);
    out.push(DiffKind::Equal, &x[..p]);
    out.push(DiffKind::Delete, &x[p..x.len() - s]);
    out.push(DiffKind::Insert, &y[p..y.len() - s]);
    out.push(DiffKind::Equal, &x[x.len() - s..]);
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

    fn shown(old: &str, new: &str) -> String {
        let mut out = String::new();
        for o in word_diff(old, new) {
            match o.op {
                DiffKind::Equal => out.push_str(&o.text),
                DiffKind::Delete => out.push_str(&format!("[-{}-]", o.text)),
                DiffKind::Insert => out.push_str(&format!("{{+{}+}}", o.text)),
            }
        }
        out
    }

    /// Each change shown at its grain: (stored, query, shown).
    #[test]
    fn at_the_grain_of_the_change() {
        let cases = [
            // punctuation only
            ("Save the file:", "Save the file", "Save the file[-:-]"),
            ("Open the file.", "Open the file!", "Open the file[-.-]{+!+}"),
            ("Hallo John, du", "Hallo Alice, du", "Hallo [-John-]{+Alice+}, du"),
            // case only
            ("save the file", "Save the file", "[-s-]{+S+}ave the file"),
            ("SAVE", "save", "[-SAVE-]{+save+}"),
            // a code added around a word, and codes changed around words
            ("Save the file", "<b>Save</b> the file", "{+<b>+}Save{+</b>+} the file"),
            (
                "<span class=\"avis\">Saves the file.</span>",
                "<b>Save</b> the file",
                "[-<span class=\"avis\">-]{+<b>+}Save[-s-]{+</b>+} the file[-.</span>-]",
            ),
            // a word changed inside a compound, a plural
            ("Dateiformat wählen", "Bildformat wählen", "[-Datei-]{+Bild+}format wählen"),
            ("Open the file", "Open the files", "Open the file{+s+}"),
            // unrelated words and placeholders stay whole
            ("%s öffnen", "%d öffnen", "[-%s-]{+%d+} öffnen"),
            ("the cat", "the car", "the [-cat-]{+car+}"),
            ("{0} files", "{1} files", "[-{0}-]{+{1}+} files"),
            ("same", "same", "same"),
            ("", "neu", "{+neu+}"),
            ("alt", "", "[-alt-]"),
        ];
        for (old, new, want) in cases {
            assert_eq!(shown(old, new), want, "{old:?} → {new:?}");
        }
    }

    #[test]
    fn pieces_rebuild_both_texts() {
        assert!(word_diff("", "").is_empty());
        for (a, b) in [
            ("a b  c\nd", "a x c d e"),
            ("<a href=\"x y\">Zé</a>, ok?", "Zé: <i>ok</i>"),
            ("Ünïcode façade", "unicode Façade!"),
            ("%1$s und %%", "%2$s oder %"),
        ] {
            let ops = word_diff(a, b);
            let old: String =
                ops.iter().filter(|o| o.op != DiffKind::Insert).map(|o| o.text.as_str()).collect();
            let new: String =
                ops.iter().filter(|o| o.op != DiffKind::Delete).map(|o| o.text.as_str()).collect();
            assert_eq!((old.as_str(), new.as_str()), (a, b));
            assert!(ops.windows(2).all(|w| w[0].op != w[1].op), "{ops:?}");
        }
    }
}
