//! Keyboard mnemonics (`&Open`, `_Save`, `~Heading`): taken out or rewritten with the query's mark.

use crate::model::run::Run;

use super::texts;

/// The byte offsets of the keyboard mnemonics of `text`: a `&`, `_` or `~` directly before
/// a letter or digit (`&Open`, `_Save`, `~Heading`), as GUI toolkits mark accelerator
/// keys. `&&` is a literal ampersand.
pub(super) fn mnemonics(text: &str) -> Vec<usize> {
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
pub(super) fn without_mnemonics(text: &str) -> String {
    let marks = mnemonics(text);
    text.char_indices().filter(|(i, _)| !marks.contains(i)).map(|(_, c)| c).collect()
}

/// Takes the mnemonic mark out of the target: the one mark of its text runs. False when
/// it has none or several.
pub(super) fn drop_mnemonic(target: &mut [Run]) -> bool {
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
pub(super) fn swap_mnemonic(target: &mut [Run], mark: &str) -> bool {
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
