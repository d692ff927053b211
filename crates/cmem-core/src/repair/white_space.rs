//! White space: at the ends of the text, and line breaks the query has as spaces.

use crate::model::run::Run;

use super::texts;

/// Replaces the `k`-th run of white space holding a line break in the target by `to`,
/// when the target has exactly `count` such runs.
pub(super) fn replace_break(target: &mut [Run], k: usize, count: usize, to: &str) -> bool {
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
pub(super) fn inner_spaces(text: &str) -> Vec<&str> {
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

pub(super) fn leading_space(text: &str) -> &str {
    &text[..text.len() - text.trim_start().len()]
}

pub(super) fn trailing_space(text: &str) -> &str {
    &text[text.trim_end().len()..]
}

/// Carries white space at one end: `from` (the source's) becomes `to` (the query's).
pub(super) fn repair_space(target: &mut Vec<Run>, lead: bool, from: &str, to: &str) -> bool {
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
