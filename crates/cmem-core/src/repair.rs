//! Mechanical repairs: when a query differs from a stored source only in white space at
//! its ends, its final punctuation or its numbers, the same change is made in the target,
//! as a translator would make it without thinking. The score is not changed (the
//! repair is shown with the match, not hidden in its score).
//!
//! What counts as mechanical: with the white space at both ends trimmed, the final
//! punctuation (`.` `:` `…` `?` `!` `;` and their full-width forms) removed, every number
//! replaced by one placeholder and inner white space collapsed, the query and the stored
//! source are equal. Three more changes leave the words alone: brackets of another kind,
//! a pair of brackets or quotes put around the whole text or one code, and marks or white
//! space changed between the same words and codes (below). Anything else is an edit a
//! translator must judge, and nothing is repaired.
//!
//! - **White space**: the query's leading and trailing white space (a final newline, say)
//!   replaces the stored source's where the target has the source's, or is added where
//!   the source had none.
//! - **Punctuation**: the query's final punctuation replaces the target's where the
//!   target ends with the stored source's (French targets take a no-break space before
//!   `:` and a narrow one before `;` `!` `?`, unless the stored target spaced its own
//!   mark otherwise); where neither the source nor the target had any, it is added.
//!   `...` and `…` are one mark written two ways: between them the target keeps its own.
//! - **Brackets**: when every `(` of the stored source became `[` in the query (and so
//!   for `)` `{` `}` `<` `>`), the target's are changed alike where it has as many.
//! - **A pair around**: brackets or quotes the query puts around the whole text
//!   (`<no change>`) go around the whole target; around one code (`Copy '%s'`), around
//!   the target's one copy of that code. Around a word or a few words nothing is placed:
//!   which words of the target correspond is the translator's choice.
//! - **Marks between the words**: when the query has the stored source's letters, digits
//!   and codes in the same order and only the marks or white space between some of them
//!   changed (`Center\nHeidelberg` → `Center, Heidelberg`, `(FALSE;TRUE)` →
//!   `(FALSE();TRUE())`, `macro:///` → `macro://./`), each changed stretch is looked for in
//!   the target together with the fewest neighbouring characters that make it occur
//!   exactly once in the source and exactly once in the target, and changed there alike.
//!   The neighbours taken are marks, digits and white space, never letters (a name the
//!   target copied may stand elsewhere in its word order), and a stretch found by spaces
//!   alone is not placed: every two words of the target have a space between them
//!   (`Open File` → `Datei öffnen` does not make `Open/File` `Datei/öffnen`). All or nothing: if one
//!   stretch cannot be placed, nothing is changed. A mark new between two letters
//!   (`Strikethrough` → `Strike-through`) or a hyphen or apostrophe that comes or goes
//!   there (`E-mail` → `Email`) is spelling, which the target does its own way.
//! - **Mnemonics**: keyboard mnemonics (`&Open`, `_Save`, `~Heading`) do not count as
//!   differences. A query without one takes the target's one mark out; a query whose
//!   mnemonic is written with another mark (`~` became `_`) has the target's rewritten
//!   so; one the query adds is not placed (which letter takes it is the translator's
//!   choice).
//! - **Line breaks**: a line break of the stored source that the query has as a space
//!   becomes that space in the target, where the target breaks its lines at as many
//!   places.
//! - **Numbers**: a number of the stored source that changed in the query is replaced in
//!   the target when it occurs there exactly once, as written (`4.2`) or with the other
//!   decimal sign (`4,2`, in which case the new number takes that sign too).
//!
//! ```
//! use cmem_core::repair::{repair, RepairKind};
//! use cmem_core::{Locale, Run};
//!
//! let mut target = vec![Run::text("Zugriff auf Projekt {project} wurde blockiert")];
//! let repairs = repair(
//!     &[Run::text("Access to project {project} was blocked.")],
//!     &[Run::text("Access to project {project} was blocked")],
//!     &mut target,
//!     &Locale::parse("de")?,
//! );
//! assert_eq!(target, vec![Run::text("Zugriff auf Projekt {project} wurde blockiert.")]);
//! assert_eq!(repairs[0].kind, RepairKind::Punctuation);
//! # Ok::<(), cmem_core::Error>(())
//! ```

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use crate::locale::Locale;
use crate::run::Run;

/// What a repair changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairKind {
    /// White space at the start or the end.
    Whitespace,
    /// The final punctuation mark.
    Punctuation,
    /// A number.
    Number,
    /// A keyboard mnemonic mark (`&`, `_`, `~` before the accelerator letter).
    Mnemonic,
}

/// One mechanical change of the target, or one that could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repair {
    /// What kind of change.
    pub kind: RepairKind,
    /// What the stored source had (empty: nothing).
    pub from: String,
    /// What the query has (empty: nothing).
    pub to: String,
    /// False when the target had nothing corresponding to change.
    pub applied: bool,
}

/// Final punctuation marks a repair may carry over.
const MARKS: &[char] = &['.', ':', '…', '?', '!', ';', '。', '：', '？', '！', '；'];

/// The numbers of `text` (ASCII digits with inner `.` or `,` groups: `4.2`, `1,000`), as
/// byte ranges.
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        while i + 1 < b.len() && (b[i] == b'.' || b[i] == b',') && b[i + 1].is_ascii_digit() {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        out.push((start, i));
    }
    out
}

/// `text` with every number replaced by `#`.
fn without_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in numbers(text) {
        out.push_str(&text[at..start]);
        out.push('#');
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// The text of `runs` with each code as U+FFFC, NFC.
fn skeleton(runs: &[Run]) -> String {
    let mut out = String::new();
    crate::run::walk_runs(runs, &mut |run| match run {
        Run::Text(t) => out.push_str(t),
        _ if run.code().is_some() => out.push('\u{FFFC}'),
        _ => {}
    });
    out.nfc().collect()
}

/// `text` without its white space at both ends and its final punctuation, numbers as
/// `#`, inner white space collapsed: what must be equal for a repair to be mechanical.
fn core_of(text: &str) -> String {
    let t = without_mnemonics(text);
    let t = t.trim().trim_end_matches(|c: char| MARKS.contains(&c) || c.is_whitespace());
    let t = t.trim_end_matches("...");
    let t = without_numbers(t);
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The byte offsets of the keyboard mnemonics of `text`: a `&`, `_` or `~` directly before
/// a letter or digit (`&Open`, `_Save`, `~Heading`), as GUI toolkits mark accelerator
/// keys. `&&` is a literal ampersand.
fn mnemonics(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '&' | '_' | '~') {
            match chars.peek() {
                Some((_, n)) if *n == c => {
                    chars.next();
                }
                Some((_, n)) if n.is_alphanumeric() => out.push(i),
                _ => {}
            }
        }
    }
    out
}

/// `text` without its mnemonic marks.
fn without_mnemonics(text: &str) -> String {
    let marks = mnemonics(text);
    text.char_indices().filter(|(i, _)| !marks.contains(i)).map(|(_, c)| c).collect()
}

/// Takes the mnemonic mark out of the target: the one mark of its text runs. False when
/// it has none or several.
fn drop_mnemonic(target: &mut [Run]) -> bool {
    let mut found: Vec<(usize, usize)> = Vec::new();
    for (r, t) in texts(target).into_iter().enumerate() {
        found.extend(mnemonics(t).into_iter().map(|i| (r, i)));
    }
    let [(r, i)] = found[..] else { return false };
    if let Some(t) = texts(target).into_iter().nth(r) {
        t.remove(i);
        return true;
    }
    false
}

/// Writes the target's one mnemonic mark as `mark`.
fn swap_mnemonic(target: &mut [Run], mark: &str) -> bool {
    let mut found: Vec<(usize, usize)> = Vec::new();
    for (r, t) in texts(target).into_iter().enumerate() {
        found.extend(mnemonics(t).into_iter().map(|i| (r, i)));
    }
    let [(r, i)] = found[..] else { return false };
    if let Some(t) = texts(target).into_iter().nth(r) {
        t.replace_range(i..i + 1, mark);
        return true;
    }
    false
}

/// Replaces the `k`-th run of white space holding a line break in the target by `to`,
/// when the target has exactly `count` such runs.
fn replace_break(target: &mut [Run], k: usize, count: usize, to: &str) -> bool {
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (r, t) in texts(target).into_iter().enumerate() {
        let mut start: Option<usize> = None;
        for (i, c) in t.char_indices().chain(std::iter::once((t.len(), 'x'))) {
            match (c.is_whitespace(), start) {
                (true, None) => start = Some(i),
                (false, Some(b)) => {
                    if t[b..i].contains('\n') {
                        found.push((r, b, i));
                    }
                    start = None;
                }
                _ => {}
            }
        }
    }
    if found.len() != count {
        return false;
    }
    let Some(&(r, b, e)) = found.get(k) else { return false };
    if let Some(t) = texts(target).into_iter().nth(r) {
        t.replace_range(b..e, to);
        return true;
    }
    false
}

/// The runs of white space of `text` strictly inside it (not at its ends).
fn inner_spaces(text: &str) -> Vec<&str> {
    let t = text.trim();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in t.char_indices() {
        match (c.is_whitespace(), start) {
            (true, None) => start = Some(i),
            (false, Some(b)) => {
                out.push(&t[b..i]);
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The final punctuation of `text` (its white space at the end trimmed first).
fn final_marks(text: &str) -> &str {
    let t = text.trim_end();
    let core = t.trim_end_matches(|c: char| MARKS.contains(&c));
    &t[core.len()..]
}

fn leading_space(text: &str) -> &str {
    &text[..text.len() - text.trim_start().len()]
}

fn trailing_space(text: &str) -> &str {
    &text[text.trim_end().len()..]
}

/// Makes in `target` (the adapted target) the mechanical changes that turn `source` (the
/// stored source) into `query`, if every difference between them is mechanical; see the
/// [module docs](self). Returns what was changed, or could not be.
pub fn repair(query: &[Run], source: &[Run], target: &mut Vec<Run>, target_locale: &Locale) -> Vec<Repair> {
    let (q, s) = (skeleton(query), skeleton(source));
    if q == s {
        return Vec::new();
    }
    if core_of(&q) != core_of(&s) {
        // Two changes that leave the words alone but not the core: brackets of another
        // kind, and a pair of brackets or quotes put around the text or a code.
        if let Some(r) = repair_brackets(&q, &s, target) {
            return r;
        }
        if let Some(r) = repair_wrap(&q, &s, query, target) {
            return vec![r];
        }
        return repair_inner(&q, &s, target);
    }
    let mut out = Vec::new();
    // Numbers first: they sit inside the text, the ends are changed after.
    let qn: Vec<&str> = numbers(&q).into_iter().map(|(a, b)| &q[a..b]).collect();
    let sn: Vec<&str> = numbers(&s).into_iter().map(|(a, b)| &s[a..b]).collect();
    if qn.len() == sn.len() {
        for (to, from) in qn.iter().zip(&sn) {
            if to != from {
                let applied = replace_number(target, from, to);
                out.push(Repair {
                    kind: RepairKind::Number,
                    from: (*from).to_owned(),
                    to: (*to).to_owned(),
                    applied,
                });
            }
        }
    }
    // A mnemonic the query does not have is taken out of the target; one the query adds
    // cannot be placed mechanically (which letter is the translator's choice).
    let (qm, sm) = (mnemonics(&q), mnemonics(&s));
    let marks_of = |text: &str, at: &[usize]| -> String {
        at.iter().filter_map(|&i| text[i..].chars().next()).collect()
    };
    let target_marks = texts(target).iter().map(|t| mnemonics(t).len()).sum::<usize>();
    if qm.is_empty() && target_marks > 0 {
        // The query has none: neither has the target (a mark only the target had is gone
        // from the new source too).
        let applied = drop_mnemonic(target);
        out.push(Repair { kind: RepairKind::Mnemonic, from: marks_of(&s, &sm), to: String::new(), applied });
    } else if let ([qi], [si]) = (&qm[..], &sm[..]) {
        // Both have one, written with another mark (`~` became `_`): the target's too.
        let (to, from) = (marks_of(&q, &[*qi]), marks_of(&s, &[*si]));
        if to != from {
            let applied = swap_mnemonic(target, &to);
            out.push(Repair { kind: RepairKind::Mnemonic, from, to, applied });
        }
    }
    // Line breaks inside: the query's white space where the source broke the line and the
    // target breaks it at as many places.
    let (qs, ss) = (inner_spaces(&q), inner_spaces(&s));
    if qs.len() == ss.len() {
        let breaks = ss.iter().filter(|w| w.contains('\n')).count();
        let mut k = 0;
        for (qw, sw) in qs.iter().zip(&ss) {
            if sw.contains('\n') {
                if qw != sw && !qw.contains('\n') {
                    let applied = replace_break(target, k, breaks, qw);
                    out.push(Repair {
                        kind: RepairKind::Whitespace,
                        from: (*sw).to_owned(),
                        to: (*qw).to_owned(),
                        applied,
                    });
                }
                k += 1;
            }
        }
    }
    let (qp, sp) = (final_marks(&q), final_marks(&s));
    // `...` and `…` are one mark written two ways: the target keeps its own.
    if qp.replace("...", "…") != sp.replace("...", "…") {
        let applied = repair_final_mark(target, sp, qp, target_locale);
        out.push(Repair { kind: RepairKind::Punctuation, from: sp.to_owned(), to: qp.to_owned(), applied });
    }
    for (lead, (qw, sw)) in
        [(true, (leading_space(&q), leading_space(&s))), (false, (trailing_space(&q), trailing_space(&s)))]
    {
        if qw != sw {
            let applied = repair_space(target, lead, sw, qw);
            out.push(Repair {
                kind: RepairKind::Whitespace,
                from: sw.to_owned(),
                to: qw.to_owned(),
                applied,
            });
        }
    }
    out
}

/// Brackets a repair may change into one another.
const BRACKETS: &[char] = &['(', ')', '[', ']', '{', '}', '<', '>'];

/// Pairs of marks a repair may put around the text or a code.
const PAIRS: &[(char, char)] = &[
    ('(', ')'),
    ('[', ']'),
    ('{', '}'),
    ('<', '>'),
    ('"', '"'),
    ('\'', '\''),
    ('“', '”'),
    ('‘', '’'),
    ('„', '“'),
    ('«', '»'),
    ('»', '«'),
];

/// Brackets of another kind: the query is the stored source with some bracket characters
/// replaced one for one, every occurrence of each (`(Page %3)` → `[Page %3]`). The
/// target's are replaced where it has exactly as many of each as the source. `None`
/// when the difference is anything else.
fn repair_brackets(q: &str, s: &str, target: &mut [Run]) -> Option<Vec<Repair>> {
    let (qc, sc): (Vec<char>, Vec<char>) = (q.chars().collect(), s.chars().collect());
    if qc.len() != sc.len() {
        return None;
    }
    let mut swaps: Vec<(char, char)> = Vec::new();
    for (a, b) in sc.iter().zip(&qc) {
        if a == b {
            continue;
        }
        if !BRACKETS.contains(a) || !BRACKETS.contains(b) {
            return None;
        }
        match swaps.iter().find(|(from, _)| from == a) {
            Some((_, to)) if to != b => return None,
            Some(_) => {}
            None => swaps.push((*a, *b)),
        }
    }
    // Every occurrence of a replaced bracket is replaced, so the change is the kind of
    // bracket, not a choice among several.
    if swaps.iter().any(|(from, to)| sc.iter().zip(&qc).any(|(a, b)| a == from && b != to)) {
        return None;
    }
    let count = |t: &[Run], c: char| -> usize {
        t.iter().map(|r| if let Run::Text(x) = r { x.matches(c).count() } else { 0 }).sum()
    };
    let applied =
        swaps.iter().all(|(from, _)| count(target, *from) == sc.iter().filter(|c| *c == from).count());
    if applied {
        for t in texts(target) {
            *t = t.chars().map(|c| swaps.iter().find(|(f, _)| *f == c).map_or(c, |(_, to)| *to)).collect();
        }
    }
    Some(
        swaps
            .iter()
            .map(|(from, to)| Repair {
                kind: RepairKind::Punctuation,
                from: from.to_string(),
                to: to.to_string(),
                applied,
            })
            .collect(),
    )
}

/// A pair of brackets or quotes put around the whole text (`no change` → `<no change>`)
/// or around one code (`Copy %s` → `Copy '%s'`): the same pair goes around the whole
/// target, or around the target's one copy of the query's code. `None` when the query
/// differs from the stored source in any other way.
fn repair_wrap(q: &str, s: &str, query: &[Run], target: &mut Vec<Run>) -> Option<Repair> {
    let (qc, sc): (Vec<char>, Vec<char>) = (q.chars().collect(), s.chars().collect());
    if qc.len() != sc.len() + 2 {
        return None;
    }
    let i = (0..sc.len()).find(|&k| qc[k] != sc[k]).unwrap_or(sc.len());
    let j = (i..sc.len()).find(|&k| qc[k + 1] != sc[k]).unwrap_or(sc.len());
    let (open, close) = (qc[i], qc[j + 1]);
    if !PAIRS.contains(&(open, close)) || qc[j + 2..] != sc[j..] {
        return None;
    }
    let inner = &sc[i..j];
    let lead = sc.iter().take_while(|c| c.is_whitespace()).count();
    let trail = sc.iter().rev().take_while(|c| c.is_whitespace()).count();
    let whole = i == lead && j == sc.len() - trail && !inner.is_empty();
    let code = inner == ['\u{FFFC}'];
    if !whole && !code {
        return None;
    }
    let applied = if whole {
        wrap_whole(target, open, close)
    } else {
        // The query's code at that place: the k-th code of its runs.
        let k = sc[..i].iter().filter(|c| **c == '\u{FFFC}').count();
        let mut codes = Vec::new();
        crate::run::walk_runs(query, &mut |r| {
            if r.code().is_some() {
                codes.push(r);
            }
        });
        codes.get(k).is_some_and(|c| wrap_code(target, c, open, close))
    };
    Some(Repair { kind: RepairKind::Punctuation, from: String::new(), to: format!("{open}{close}"), applied })
}

/// The longest window, in characters, [`repair_inner`] looks at around a changed gap.
const WINDOW: usize = 24;

/// Marks or white space changed inside the text, words and codes left alone
/// (`Center\nHeidelberg` → `Center, Heidelberg`, `FALSE;TRUE` → `FALSE();TRUE()`,
/// `macro:///` → `macro://./`): each changed gap between letters, digits and codes is
/// found in the target by its text together with the fewest neighbouring characters that
/// make it occur exactly once in the stored source and exactly once in the target's text,
/// and is changed there alike. A window grows over marks, digits and white space, never
/// letters: a word the target copied (a name) may stand elsewhere in its word order. All or nothing: when one gap cannot be placed nothing is
/// changed and the repairs say so; a gap that is new (a word split, which the translator
/// judges) is no repair at all.
fn repair_inner(q: &str, s: &str, target: &mut [Run]) -> Vec<Repair> {
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
        crate::run::walk_runs(target, &mut |r| {
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
fn place_gap(s: &str, a: usize, b: usize, runs: &[&str], all: &[&str]) -> Option<(usize, usize, usize)> {
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
fn occurrences<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    hay.char_indices().map(|(i, _)| i).filter(move |&i| hay[i..].starts_with(needle))
}

/// Puts `open` and `close` around the target, inside its white space at the ends.
fn wrap_whole(target: &mut Vec<Run>, open: char, close: char) -> bool {
    match target.first_mut() {
        Some(Run::Text(t)) => {
            let at = leading_space(t).len();
            t.insert(at, open);
        }
        Some(_) => target.insert(0, Run::text(open.to_string())),
        None => return false,
    }
    match target.last_mut() {
        Some(Run::Text(t)) => {
            let at = t.trim_end().len();
            t.insert(at, close);
        }
        _ => target.push(Run::text(close.to_string())),
    }
    true
}

/// Puts `open` and `close` around the target's one copy of `code` (among its top-level
/// runs; none inside choices). False when it has none or several.
fn wrap_code(target: &mut Vec<Run>, code: &Run, open: char, close: char) -> bool {
    let mut found = 0;
    crate::run::walk_runs(target, &mut |r| found += usize::from(r == code));
    let Some(at) = target.iter().position(|r| r == code) else { return false };
    if found != 1 {
        return false;
    }
    target.insert(at + 1, Run::text(close.to_string()));
    target.insert(at, Run::text(open.to_string()));
    crate::adapt::merge_text(target);
    true
}

/// The text runs of `target`, in order, as mutable strings.
fn texts(target: &mut [Run]) -> Vec<&mut String> {
    target.iter_mut().filter_map(|r| if let Run::Text(t) = r { Some(t) } else { None }).collect()
}

/// Replaces the one occurrence of number `from` (as written, or with the other decimal
/// sign) by `to`; false when there is not exactly one.
fn replace_number(target: &mut [Run], from: &str, to: &str) -> bool {
    let swap = |n: &str| {
        n.chars()
            .map(|c| match c {
                '.' => ',',
                ',' => '.',
                c => c,
            })
            .collect::<String>()
    };
    for (needle, with) in [(from.to_owned(), to.to_owned()), (swap(from), swap(to))] {
        let mut hits = Vec::new();
        for (i, t) in texts(target).into_iter().enumerate() {
            for (start, end) in numbers(t) {
                if t[start..end] == needle {
                    hits.push((i, start, end));
                }
            }
        }
        if let [(i, start, end)] = hits[..] {
            if let Some(t) = texts(target).into_iter().nth(i) {
                t.replace_range(start..end, &with);
                return true;
            }
        }
        if !hits.is_empty() {
            return false;
        }
    }
    false
}

/// The space a French target puts before `mark`.
fn french_space(mark: &str) -> &'static str {
    match mark.chars().next() {
        Some(':') => "\u{00A0}",
        Some(';' | '!' | '?') => "\u{202F}",
        _ => "",
    }
}

/// `mark` in the target's script: full-width forms for Chinese and Japanese targets,
/// ASCII ones for others (`。` of a Chinese source becomes `.` in an English target).
fn localized(mark: &str, locale: &Locale) -> String {
    const PAIRS: [(char, char); 5] = [('.', '。'), (':', '：'), ('?', '？'), ('!', '！'), (';', '；')];
    let wide = matches!(locale.language(), "zh" | "ja");
    mark.chars()
        .map(|c| {
            PAIRS.iter().find(|(ascii, full)| c == *ascii || c == *full).map_or(c, |(ascii, full)| {
                if wide {
                    *full
                } else {
                    *ascii
                }
            })
        })
        .collect()
}

/// Replaces the target's final mark `from` (the stored source's) by `to`.
fn repair_final_mark(target: &mut Vec<Run>, from: &str, to: &str, locale: &Locale) -> bool {
    let french = locale.language() == "fr";
    let to = &localized(to, locale);
    let Some(Run::Text(last)) = target.last_mut() else {
        // The target ends with a code: a mark is added after it only where the source
        // had none and the query adds one.
        if from.is_empty() && !to.is_empty() {
            let space = if french { french_space(to) } else { "" };
            target.push(Run::text(format!("{space}{to}")));
            return true;
        }
        return false;
    };
    let end = last.trim_end().len();
    let tail = last[end..].to_owned();
    let body = &last[..end];
    let tp = final_marks(body);
    let core_len = body.len() - tp.len();
    // The space the target put before its mark (French), kept when it has one.
    let before = &body[..core_len];
    let space_len = before.len() - before.trim_end_matches(['\u{00A0}', '\u{202F}', ' ']).len();
    let (core, old_space) = (&before[..core_len - space_len], &before[core_len - space_len..]);
    let corresponds = (tp.is_empty() && from.is_empty()) || (!tp.is_empty() && !from.is_empty());
    if !corresponds {
        return false;
    }
    let space = if to.is_empty() {
        ""
    } else if !old_space.is_empty() {
        old_space
    } else if french {
        french_space(to)
    } else {
        ""
    };
    *last = format!("{core}{space}{to}{tail}");
    true
}

/// Carries white space at one end: `from` (the source's) becomes `to` (the query's).
fn repair_space(target: &mut Vec<Run>, lead: bool, from: &str, to: &str) -> bool {
    let at = if lead { target.first_mut() } else { target.last_mut() };
    match at {
        Some(Run::Text(t)) => {
            let current = if lead { leading_space(t) } else { trailing_space(t) };
            if current != from {
                return false;
            }
            *t = if lead {
                format!("{to}{}", &t[current.len()..])
            } else {
                format!("{}{to}", &t[..t.len() - current.len()])
            };
            true
        }
        _ if from.is_empty() => {
            if lead {
                target.insert(0, Run::text(to));
            } else {
                target.push(Run::text(to));
            }
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Code;

    fn de() -> Locale {
        Locale::parse("de").unwrap()
    }

    fn run(q: &str, s: &str, t: &str, loc: &Locale) -> (String, Vec<Repair>) {
        let mut target = vec![Run::text(t)];
        let r = repair(&[Run::text(q)], &[Run::text(s)], &mut target, loc);
        (crate::run::surface_text(&target), r)
    }

    #[test]
    fn final_marks_change_add_and_go() {
        assert_eq!(run("Blocked.", "Blocked", "Blockiert", &de()).0, "Blockiert.");
        assert_eq!(run("Blocked", "Blocked.", "Blockiert.", &de()).0, "Blockiert");
        assert_eq!(run("Save as:", "Save as", "Speichern unter", &de()).0, "Speichern unter:");
        let fr = Locale::parse("fr").unwrap();
        assert_eq!(run("Name:", "Name", "Nom", &fr).0, "Nom\u{00A0}:");
        assert_eq!(run("Sure?", "Sure.", "Sûr.", &fr).0, "Sûr\u{202F}?");
        // The stored target spaced its mark with a plain space: kept.
        assert_eq!(run("Name?", "Name:", "Nom :", &fr).0, "Nom ?");
        // The source had a mark, the target none: no corresponding place.
        let (text, r) = run("Open!", "Open.", "Öffnen", &de());
        assert_eq!(text, "Öffnen");
        assert!(!r[0].applied);
    }

    #[test]
    fn numbers_as_written_or_with_the_other_sign() {
        assert_eq!(
            run("LibreOffice 24.2", "LibreOffice 4.2", "LibreOffice 4.2", &de()).0,
            "LibreOffice 24.2"
        );
        assert_eq!(run("Scale 1.5", "Scale 2.5", "Maßstab 2,5", &de()).0, "Maßstab 1,5");
        // Twice in the target: which one is meant is not mechanical.
        let (text, r) = run("Page 3 of 9", "Page 2 of 9", "Seite 2 von 2", &de());
        assert_eq!(text, "Seite 2 von 2");
        assert!(!r[0].applied);
    }

    #[test]
    fn white_space_at_the_ends() {
        assert_eq!(run("Failed:\n", "Failed:", "Fehlgeschlagen:", &de()).0, "Fehlgeschlagen:\n");
        assert_eq!(run("  Done", "Done", "Fertig", &de()).0, "  Fertig");
        assert_eq!(run("Done", "Done\n", "Fertig\n", &de()).0, "Fertig");
    }

    #[test]
    fn marks_between_the_words() {
        // A line break that became a comma, where the target broke the line alike.
        assert_eq!(
            run(
                "Sample Conference Center, Heidelberg, Germany",
                "Sample Conference Center\nHeidelberg, Germany",
                "Beispiel-Konferenzzentrum\nHeidelberg, Deutschland",
                &de()
            )
            .0,
            "Beispiel-Konferenzzentrum, Heidelberg, Deutschland"
        );
        // Brackets added after words the target translated: placed by the marks around.
        let (text, r) = run(
            "=OR(FALSE();TRUE()) returns TRUE.",
            "=OR(FALSE;TRUE) returns TRUE.",
            "=ODER(FALSCH;WAHR) ergibt WAHR.",
            &de(),
        );
        assert_eq!(text, "=ODER(FALSCH();WAHR()) ergibt WAHR.");
        assert_eq!(r.len(), 2);
        assert!(r.iter().all(|r| r.applied && r.kind == RepairKind::Punctuation));
        // Overlapping copies count: `//` is not once in `///`.
        let (text, r) = run("a//.b", "a//b", "x///y", &de());
        assert_eq!(text, "x///y");
        assert!(r.iter().all(|r| !r.applied));
        // A path the target copied: the window grows until it is found once.
        assert_eq!(
            run(
                "{file} macro://./[Library.Module]",
                "{file} macro:///[Library.Module]",
                "{Datei} macro:///[Bibliothek.Modul]",
                &de()
            )
            .0,
            "{Datei} macro://./[Bibliothek.Modul]"
        );
        // A mark new between two letters is a change of wording, a hyphen gone is spelling:
        // nothing is done.
        assert!(run("Email preview", "E-mail preview", "E-Mail-Vorschau", &de()).1.is_empty());
        // A word the target copied does not anchor a mark: its place differs.
        let (text, r) = run(
            "By default, gettext wraps lines.",
            "By default gettext wraps lines.",
            "Standardmäßig bricht gettext Zeilen um.",
            &de(),
        );
        assert_eq!(text, "Standardmäßig bricht gettext Zeilen um.");
        assert!(r.iter().all(|r| !r.applied));
        let (text, r) = run("Strike-through", "Strikethrough", "Durchgestrichen", &de());
        assert_eq!(text, "Durchgestrichen");
        assert!(r.is_empty());
        // All or nothing: the second comma has no unique place in the target.
        let (text, r) = run("a; b; c", "a, b, c", "x, y, z", &de());
        assert_eq!(text, "x, y, z");
        assert!(!r.is_empty() && r.iter().all(|r| !r.applied));
        // Numbers anchor the place: each comma after a number the target copied.
        assert_eq!(
            run("Item 1; item 2", "Item 1, item 2", "Eintrag 1, Eintrag 2", &de()).0,
            "Eintrag 1; Eintrag 2"
        );
        // A space that became a mark between two words the target translated: the
        // target's one space is not the source's (its words come in another order).
        let (text, r) = run("Open/File", "Open File", "Datei öffnen", &de());
        assert_eq!(text, "Datei öffnen");
        assert!(!r.is_empty() && r.iter().all(|r| !r.applied), "{r:?}");
        // Digits around it anchor it.
        assert_eq!(run("Page 1/2", "Page 1 2", "Seite 1 2", &de()).0, "Seite 1/2");
        // A word that changed is not mechanical: nothing is touched.
        let (text, r) = run("Open, file", "Close; file", "Schließen; Datei", &de());
        assert_eq!(text, "Schließen; Datei");
        assert!(r.is_empty());
    }

    #[test]
    fn mnemonics_and_line_breaks() {
        assert_eq!(
            run("Previous translation", "&Previous translation", "&Vorherige Übersetzung", &de()).0,
            "Vorherige Übersetzung"
        );
        assert_eq!(run("Hyphenation:", "_Hyphenation", "_Silbentrennung", &de()).0, "Silbentrennung:");
        // The query adds a mnemonic: the colon is repaired, the mnemonic is not placed.
        assert_eq!(run("_Hyphenation:", "Hyphenation", "Silbentrennung", &de()).0, "Silbentrennung:");
        assert_eq!(run("R&&D", "R&&D.", "F&&E.", &de()).0, "F&&E");
        assert_eq!(run("_Notify", "~Notify", "~Benachrichtigen", &de()).0, "_Benachrichtigen");
        assert_eq!(
            run("Export BASIC", "Export BASIC...", "BASIC ~exportieren…", &de()).0,
            "BASIC exportieren"
        );
        assert_eq!(
            run(
                "Authentication failed: %s",
                "Authentication failed:\n%s",
                "Authentifizierung fehlgeschlagen:\n%s",
                &de()
            )
            .0,
            "Authentifizierung fehlgeschlagen: %s"
        );
    }

    #[test]
    fn only_mechanical_differences_are_repaired() {
        // A changed word: nothing.
        let (text, r) = run("Open the file.", "Close the file", "Datei schließen", &de());
        assert_eq!(text, "Datei schließen");
        assert!(r.is_empty());
        // Identical: nothing.
        assert!(run("Same", "Same", "Gleich", &de()).1.is_empty());
    }

    #[test]
    fn an_ellipsis_written_the_other_way_is_the_same_mark() {
        let (text, r) = run("Delete User...", "Delete User…", "Benutzer löschen …", &de());
        assert_eq!(text, "Benutzer löschen …");
        assert!(r.is_empty());
        assert_eq!(run("Save As…", "Save As...", "Speichern unter...", &de()).0, "Speichern unter...");
        // A real change of the mark still is one.
        assert_eq!(run("Save As:", "Save As...", "Speichern unter...", &de()).0, "Speichern unter:");
    }

    #[test]
    fn brackets_of_another_kind() {
        let (text, r) =
            run("Page %1 of %2 [Page %3]", "Page %1 of %2 (Page %3)", "Seite %1 von %2 (Seite %3)", &de());
        assert_eq!(text, "Seite %1 von %2 [Seite %3]");
        assert_eq!((r.len(), r[0].kind, r[0].applied), (2, RepairKind::Punctuation, true));
        // The target has another number of them: which one corresponds is not mechanical.
        let (text, r) = run("Size [cm]", "Size (cm)", "Größe (in cm) (metrisch)", &de());
        assert_eq!(text, "Größe (in cm) (metrisch)");
        assert!(!r[0].applied);
        // Only some of the source's brackets changed: not a change of kind.
        // Each change then stands alone, and the last `)` has no single place.
        let (text, r) = run("(a) [b]", "(a) (b)", "(x) (y)", &de());
        assert_eq!(text, "(x) (y)");
        assert!(r.iter().all(|r| !r.applied));
        // With a changed word: nothing.
        // Another mark between the same words is placed like any other.
        assert_eq!(run("Size: cm", "Size (cm", "Größe (cm", &de()).0, "Größe: cm");
        assert!(run("Page [one]", "Page (two)", "Seite (zwei)", &de()).1.is_empty());
    }

    #[test]
    fn a_pair_around_the_text_or_a_code() {
        assert_eq!(run("<no change>", "no change", "Keine Änderung", &de()).0, "<Keine Änderung>");
        assert_eq!(run("(optional)\n", "optional\n", "optional\n", &de()).0, "(optional)\n");
        let code = Run::Ph(Code::new("1").data("%(title)s"));
        let mut target = vec![code.clone(), Run::text(" kopieren")];
        let r = repair(
            &[Run::text("Copy '"), code.clone(), Run::text("'")],
            &[Run::text("Copy "), code.clone()],
            &mut target,
            &de(),
        );
        assert!(r[0].applied);
        assert_eq!(target, vec![Run::text("'"), code.clone(), Run::text("' kopieren")]);
        // Around part of a word or a few words: the translator's choice.
        assert!(run("Operator(s)", "Operators", "Operatoren", &de()).1.is_empty());
        let (text, r) = run("Open (the) file", "Open the file", "Datei öffnen", &de());
        assert_eq!(text, "Datei öffnen");
        assert!(r.iter().all(|r| !r.applied));
        // Marks that are no pair: nothing.
        assert!(run("(no change(", "no change", "Keine Änderung", &de()).1.is_empty());
        // The code twice in the target: not placed.
        let mut target = vec![code.clone(), Run::text(" / "), code.clone()];
        let r = repair(
            &[Run::text("Copy \""), code.clone(), Run::text("\"")],
            &[Run::text("Copy "), code.clone()],
            &mut target,
            &de(),
        );
        assert!(!r[0].applied);
        assert_eq!(target.len(), 3);
    }

    #[test]
    fn a_target_ending_with_a_code() {
        let code = Run::Ph(Code::new("1").data("%s"));
        let mut target = vec![Run::text("Datei "), code.clone()];
        let r = repair(
            &[Run::text("File "), code.clone(), Run::text(".")],
            &[Run::text("File "), code.clone()],
            &mut target,
            &de(),
        );
        assert!(r[0].applied);
        assert_eq!(crate::run::surface_text(&target), "Datei %s.");
    }
}
