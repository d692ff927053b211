//! Compound words in the word repair: a German target often writes two source words as
//! one word (`Payment details` → `Zahlungsdetails`), so the changed word's translation is
//! a part of a word that also translates an unchanged neighbour, and no span of whole
//! target words translates the changed word alone. The compound is rebuilt instead: the
//! part that translates the unchanged neighbour is kept as the target writes it, and the
//! other part is the memory's translation of the query's new word (`Event details` →
//! `Ereignisdetails`).
//!
//! Only nouns are put in a compound (the phrase pair's text is one capitalized word), and
//! only where the kept part is a translation of the neighbour the memory has, and not from
//! a score of 0.95 (no neighbour agrees with the new part: see `trust`). The joint
//! (`Zahlung·s·details`, `Zeichenkette·n·änderungen`) is the one the memory's targets
//! write the new compound with when they have it, else German's rule for the new first
//! part (`-s-` after `-ung`, `-heit`, `-keit`, `-schaft`, `-tät`, `-ion`, `-ling`,
//! `-tum`), else none; an acronym joins with a hyphen (`SQL-Kennung`).

use crate::align::{fold, WordModel};

/// Where the unchanged neighbour's translation sits in the compound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// The neighbour is the compound's end (its head): `details` in `Zahlungsdetails`.
    End,
    /// The neighbour is the compound's start: `Sitz` in `Sitzplan`.
    Start,
}

/// The compound `word` rebuilt with the translation of `new` in place of that of `old`,
/// keeping the part that translates `kept` (all lower-case source words); with the
/// phrase pair's count and the kept part. `None` without evidence for each part.
pub(crate) fn rebuild(
    model: &WordModel,
    word: &str,
    (old, new, kept): (&str, &str, &str),
    side: Kept,
) -> Option<(String, u32, String)> {
    let lower = fold(word);
    // Byte offsets are shared between the word and its lower case only when they match.
    if lower.len() != word.len() || word.contains(['-', '\u{FFFC}']) {
        return None;
    }
    let fits = |part: &str| -> bool {
        part.len() >= 3
            && part.len() < lower.len()
            && match side {
                Kept::End => lower.ends_with(part),
                Kept::Start => lower.starts_with(part),
            }
    };
    let parts = |source: &str| -> Vec<String> {
        model.phrases(source).iter().map(|(t, _)| fold(t.trim())).filter(|t| is_word(t)).collect()
    };
    // The longest translation of the neighbour the word holds at its side.
    let kept_len = parts(kept).iter().filter(|p| fits(p)).map(String::len).max()?;
    // The part that goes must be a translation of the old word too (after or before a
    // joint of at most two letters), so the split is the memory's, not a guess.
    let (keep, gone) = match side {
        Kept::End => {
            let (gone, keep) = word.split_at(word.len() - kept_len);
            (keep, gone)
        }
        Kept::Start => word.split_at(kept_len),
    };
    let gone_lower = fold(gone);
    // What is left of the part that goes once the old word's translation is taken off:
    // the joint, which stays with the start (`Zahlung·s` of `Zahlungsdetails`).
    let joint = parts(old)
        .iter()
        .filter_map(|p| match side {
            Kept::End => gone_lower.strip_prefix(p.as_str()),
            Kept::Start => gone_lower.strip_suffix(p.as_str()),
        })
        .filter(|rest| rest.len() <= 2 && rest.chars().all(char::is_alphabetic))
        .min_by_key(|rest| rest.len())?
        .to_owned();
    let (noun, count) = noun_for(model, new, old, &gone_lower)?;
    // A noun that holds the kept part already (`spreadsheet` → `Tabellendokument`
    // beside `dokument`) is the whole compound, not its other part.
    let (noun_lower, keep_lower) = (fold(noun), fold(keep));
    if noun_lower.ends_with(&keep_lower) || noun_lower.starts_with(&keep_lower) {
        return None;
    }
    let rebuilt = match side {
        Kept::End => {
            let acronym = noun.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase);
            if acronym {
                format!("{noun}-{}", first_in_case(keep, true))
            } else {
                // The new start takes its own joint, and the word's case at its start.
                let joint = joint_for(model, noun, keep);
                format!("{}{joint}{keep}", first_in_case(noun, word.starts_with(char::is_uppercase)))
            }
        }
        Kept::Start => format!("{keep}{joint}{}", fold(noun)),
    };
    (rebuilt != word).then(|| (rebuilt, count, keep.to_owned()))
}

/// The new part: the memory's most frequent translation of `new` written with a capital
/// (a noun: the memory does not write it in lower case as often), one word of three
/// letters or more. Where the old and the new source word share their first four
/// letters (`Style` → `Styles`), a translation sharing its first four with the part that
/// goes comes first (`Vorlagen` → `Vorlage`, not `Stil`).
fn noun_for<'m>(model: &'m WordModel, new: &str, old: &str, gone: &str) -> Option<(&'m str, u32)> {
    let list = model.phrases(new);
    let capital = |t: &str| t.chars().next().is_some_and(char::is_uppercase);
    let noun = |t: &str, n: u32| {
        is_word(t)
            && t.chars().count() >= 3
            && capital(t)
            && !list.iter().any(|(o, m)| *m >= n && !capital(o.trim()) && fold(o.trim()) == fold(t))
    };
    let kin = shared_start(old, new) >= 4;
    let stem = list
        .iter()
        .map(|(t, n)| (t.trim(), *n))
        .find(|(t, n)| kin && noun(t, *n) && shared_start(&fold(t), gone) >= 4);
    // Otherwise the most frequent capitalized translation, if it is a noun of one word.
    stem.or_else(|| {
        list.iter().map(|(t, n)| (t.trim(), *n)).find(|(t, _)| capital(t)).filter(|(t, n)| noun(t, *n))
    })
}

/// `text` with its first character in upper case (`upper`) or lower case.
pub(super) fn first_in_case(text: &str, upper: bool) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if upper => first.to_uppercase().chain(chars).collect(),
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// How many first characters `a` and `b` share.
pub(super) fn shared_start(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// One word of letters (a phrase pair's text is trimmed).
fn is_word(text: &str) -> bool {
    !text.is_empty() && text.chars().all(char::is_alphabetic)
}

/// The joint between a new first part and the kept end: as the memory's targets write
/// that compound, else German's rule.
fn joint_for(model: &WordModel, first: &str, end: &str) -> &'static str {
    const JOINTS: [&str; 4] = ["", "s", "n", "en"];
    let (first, end) = (fold(first), fold(end));
    if let Some(j) = JOINTS.iter().find(|j| model.target_has(&format!("{first}{j}{end}"))) {
        return j;
    }
    const WITH_S: [&str; 9] = ["ung", "heit", "keit", "schaft", "tät", "ion", "ling", "tum", "sicht"];
    if WITH_S.iter().any(|e| first.ends_with(e)) {
        "s"
    } else {
        ""
    }
}
