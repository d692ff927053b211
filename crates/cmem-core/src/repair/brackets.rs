//! Brackets and quotes: brackets of another kind, and a pair put around the whole text or one code.

use crate::model::run::Run;

use super::white_space::leading_space;
use super::{texts, Repair, RepairKind};

/// Brackets a repair may change into one another.
pub(super) const BRACKETS: &[char] = &['(', ')', '[', ']', '{', '}', '<', '>'];

/// Pairs of marks a repair may put around the text or a code.
pub(super) const PAIRS: &[(char, char)] = &[
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
pub(super) fn repair_brackets(q: &str, s: &str, target: &mut [Run]) -> Option<Vec<Repair>> {
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
                words: None,
            })
            .collect(),
    )
}

/// A pair of brackets or quotes put around the whole text (`no change` → `<no change>`)
/// or around one code (`Copy %s` → `Copy '%s'`): the same pair goes around the whole
/// target, or around the target's one copy of the query's code. `None` when the query
/// differs from the stored source in any other way.
pub(super) fn repair_wrap(q: &str, s: &str, query: &[Run], target: &mut Vec<Run>) -> Option<Repair> {
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
        crate::model::run::walk_runs(query, &mut |r| {
            if r.code().is_some() {
                codes.push(r);
            }
        });
        codes.get(k).is_some_and(|c| wrap_code(target, c, open, close))
    };
    Some(Repair {
        kind: RepairKind::Punctuation,
        from: String::new(),
        to: format!("{open}{close}"),
        applied,
        words: None,
    })
}

/// Puts `open` and `close` around the target, inside its white space at the ends.
pub(super) fn wrap_whole(target: &mut Vec<Run>, open: char, close: char) -> bool {
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
pub(super) fn wrap_code(target: &mut Vec<Run>, code: &Run, open: char, close: char) -> bool {
    let mut found = 0;
    crate::model::run::walk_runs(target, &mut |r| found += usize::from(r == code));
    let Some(at) = target.iter().position(|r| r == code) else { return false };
    if found != 1 {
        return false;
    }
    target.insert(at + 1, Run::text(close.to_string()));
    target.insert(at, Run::text(open.to_string()));
    crate::repair::adapt::merge_text(target);
    true
}
