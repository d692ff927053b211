//! Marks between the words: stretches of marks or white space changed between the same words
//! and codes, each placed in the target by the fewest neighbours that make it occur once.

use crate::model::run::Run;

use super::{texts, Repair, RepairKind};

/// The longest window, in characters, [`repair_inner`] looks at around a changed gap.
pub(super) const WINDOW: usize = 24;

/// Marks or white space changed inside the text, words and codes left alone
/// (`Center\nHeidelberg` → `Center, Heidelberg`, `FALSE;TRUE` → `FALSE();TRUE()`,
/// `macro:///` → `macro://./`): each changed gap between letters, digits and codes is
/// found in the target by its text together with the fewest neighbouring characters that
/// make it occur exactly once in the stored source and exactly once in the target's text,
/// and is changed there alike. A window grows over marks, digits and white space, never
/// letters: a word the target copied (a name) may stand elsewhere in its word order. All or nothing: when one gap cannot be placed nothing is
/// changed and the repairs say so; a gap that is new (a word split, which the translator
/// judges) is no repair at all.
pub(super) fn repair_inner(q: &str, s: &str, target: &mut [Run]) -> Vec<Repair> {
    let kept = |c: char| c.is_alphanumeric() || c == '\u{FFFC}';
    // The gaps between consecutive kept characters (and before the first, after the
    // last), as byte ranges.
    let gaps = |t: &str| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, c) in t.char_indices() {
            if kept(c) {
                out.push((start, i));
                start = i + c.len_utf8();
            }
        }
        out.push((start, t.len()));
        out
    };
    let skeleton_of = |t: &str| t.chars().filter(|c| kept(*c)).collect::<String>();
    if skeleton_of(q) != skeleton_of(s) {
        return Vec::new();
    }
    // The gaps that changed: (source start, source end, what the query has there).
    let (qg, sg) = (gaps(q), gaps(s));
    let changed: Vec<(usize, usize, &str)> = sg
        .iter()
        .zip(&qg)
        .filter(|((sa, sb), (qa, qb))| s[*sa..*sb] != q[*qa..*qb])
        .map(|((sa, sb), (qa, qb))| (*sa, *sb, &q[*qa..*qb]))
        .collect();
    // A hyphen or apostrophe that comes or goes between two letters is spelling
    // (`E-mail` → `Email`, `re-usable` → `reusable`): the target spells its own word.
    let joiner = |t: &str| t.chars().all(|c| matches!(c, '-' | '\u{2010}' | '\'' | '\u{2019}'));
    let between_letters = |a: usize, b: usize| {
        s[..a].chars().next_back().is_some_and(char::is_alphabetic)
            && s[b..].chars().next().is_some_and(char::is_alphabetic)
    };
    // A mark new where the source had none has nothing to be placed by: between two
    // letters it splits a word (`Strikethrough` → `Strike-through`, `Operators` →
    // `Operator(s)`), a change of wording; at the ends the rules above apply.
    if changed.iter().any(|&(a, b, to)| a == b || (between_letters(a, b) && (joiner(&s[a..b]) || joiner(to))))
    {
        return Vec::new();
    }
    let report = |applied: bool| -> Vec<Repair> {
        changed
            .iter()
            .map(|&(a, b, to)| {
                let from = &s[a..b];
                let space = from.chars().chain(to.chars()).all(char::is_whitespace);
                Repair {
                    kind: if space { RepairKind::Whitespace } else { RepairKind::Punctuation },
                    from: from.to_owned(),
                    to: to.to_owned(),
                    applied,
                    words: None,
                }
            })
            .collect()
    };
    // Where each change goes: (run, byte start, byte end in that run, replacement). A
    // window must be unique among every text of the target, plural and select forms too.
    let mut edits: Vec<(usize, usize, usize, &str)> = Vec::new();
    {
        let runs: Vec<&str> = target
            .iter()
            .filter_map(|r| if let Run::Text(t) = r { Some(t.as_str()) } else { None })
            .collect();
        let mut all: Vec<&str> = Vec::new();
        crate::model::run::walk_runs(target, &mut |r| {
            if let Run::Text(t) = r {
                all.push(t);
            }
        });
        for &(a, b, to) in &changed {
            let Some((r, at, end)) = place_gap(s, a, b, &runs, &all) else {
                return report(false);
            };
            edits.push((r, at, end, to));
        }
    }
    // Windows may not overlap in the target.
    edits.sort_by_key(|e| (e.0, e.1));
    if edits.windows(2).any(|w| w[0].0 == w[1].0 && w[0].2 > w[1].1) {
        return report(false);
    }
    let mut texts = texts(target);
    for (r, a, b, to) in edits.into_iter().rev() {
        if let Some(t) = texts.get_mut(r) {
            t.replace_range(a..b, to);
        }
    }
    report(true)
}

/// The place in the target's text runs of the gap `a..b` of the stored source `s`
/// (changed to `to`): the narrowest window around it that occurs once in `s` and once in
/// the target, grown a character at a time on the left, then the right. Returns the run
/// and the byte range of the gap inside it.
pub(super) fn place_gap(
    s: &str,
    a: usize,
    b: usize,
    runs: &[&str],
    all: &[&str],
) -> Option<(usize, usize, usize)> {
    let before: Vec<(usize, char)> = s[..a].char_indices().rev().take(WINDOW).collect();
    let after: Vec<(usize, char)> = s[b..].char_indices().take(WINDOW).map(|(i, c)| (b + i, c)).collect();
    let (mut left, mut right) = (0, 0);
    loop {
        let start = if left == 0 { a } else { before[left - 1].0 };
        let end = if right == 0 { b } else { after[right - 1].0 + after[right - 1].1.len_utf8() };
        let window = &s[start..end];
        // A space (or tab) between two words says nothing about where it is in the
        // target: any two of its words have one, and which of them stand for the
        // source's pair is the translator's word order (`Open File` → `Datei öffnen`
        // has its one space, but `Open/File` is not `Datei/öffnen`). A window of such
        // white space alone places nothing; a line break, a mark or a digit does.
        let anchored = !window.chars().all(|c| c.is_whitespace() && !matches!(c, '\n' | '\r'));
        if anchored && !window.contains('\u{FFFC}') && occurrences(s, window).count() == 1 {
            match all.iter().map(|t| occurrences(t, window).count()).sum::<usize>() {
                0 => return None,
                // Once in the whole target: placed if that once is a top-level run (a
                // choice form's text is not changed).
                1 => {
                    let (r, i) = runs
                        .iter()
                        .enumerate()
                        .find_map(|(r, t)| occurrences(t, window).next().map(|i| (r, i)))?;
                    let at = i + (a - start);
                    return Some((r, at, at + (b - a)));
                }
                _ => {}
            }
        }
        // Grow on the side that has room, alternately, over marks, digits and white space
        // only: a letter could belong to a word the target copied (a name) but placed
        // elsewhere in its own word order.
        let grows = |c: char| c != '\u{FFFC}' && !c.is_alphabetic();
        let can_left = left < before.len() && grows(before[left].1);
        let can_right = right < after.len() && grows(after[right].1);
        match (can_left, can_right) {
            (true, true) if left <= right => left += 1,
            (_, true) => right += 1,
            (true, false) => left += 1,
            (false, false) => return None,
        }
    }
}

/// The byte offsets where `needle` starts in `hay`, overlapping ones too (`//` is twice
/// in `///`).
pub(super) fn occurrences<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    hay.char_indices().map(|(i, _)| i).filter(move |&i| hay[i..].starts_with(needle))
}
