//! Numbers: a changed number replaced where the target has it once, in either decimal sign.

use crate::model::run::Run;

use super::texts;

/// The numbers of `text` (ASCII digits with inner `.` or `,` groups: `4.2`, `1,000`), as
/// byte ranges.
pub(super) fn numbers(text: &str) -> Vec<(usize, usize)> {
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
pub(super) fn without_numbers(text: &str) -> String {
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

/// Replaces the one occurrence of number `from` (as written, or with the other decimal
/// sign) by `to`; false when there is not exactly one.
pub(super) fn replace_number(target: &mut [Run], from: &str, to: &str) -> bool {
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
