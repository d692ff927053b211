//! Final punctuation: the query's final mark in the target, spaced as the target's language spaces it.

use crate::model::locale::Locale;
use crate::model::run::Run;

/// Final punctuation marks a repair may carry over.
pub(super) const MARKS: &[char] = &['.', ':', '…', '?', '!', ';', '。', '：', '？', '！', '；'];

/// The final punctuation of `text` (its white space at the end trimmed first).
pub(super) fn final_marks(text: &str) -> &str {
    let t = text.trim_end();
    let core = t.trim_end_matches(|c: char| MARKS.contains(&c));
    &t[core.len()..]
}

/// The space a French target puts before `mark`.
pub(super) fn french_space(mark: &str) -> &'static str {
    match mark.chars().next() {
        Some(':') => "\u{00A0}",
        Some(';' | '!' | '?') => "\u{202F}",
        _ => "",
    }
}

/// `mark` in the target's script: full-width forms for Chinese and Japanese targets,
/// ASCII ones for others (`。` of a Chinese source becomes `.` in an English target).
pub(super) fn localized(mark: &str, locale: &Locale) -> String {
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

/// Replaces the target's final mark `from` (the stored source's) by `to`: the repair,
/// applied or not.
pub(super) fn final_mark_repair(
    target: &mut Vec<Run>,
    from: &str,
    to: &str,
    locale: &Locale,
) -> super::Repair {
    let applied = repair_final_mark(target, from, to, locale);
    super::Repair {
        kind: super::RepairKind::Punctuation,
        from: from.to_owned(),
        to: to.to_owned(),
        applied,
        words: None,
    }
}

/// Replaces the target's final mark `from` by `to`; false when it had none to replace.
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
