//! The word repair: the words of a fuzzy match's stored source that the query changed,
//! followed through the memory's word alignment to the target words they were
//! translated by, and replaced there from the memory's own evidence.
//!
//! For each changed stretch (a word-level difference between the stored source and the
//! query), the target stretch is the span of the target words linked to it, when no word
//! inside that span is linked to a source word outside the stretch and the span holds no
//! code (codes keep their positions). The replacement is, in order:
//!
//! - **copied**: the target wrote the old words as the source did (a name, a number, an
//!   identifier): the query's new words, as the query writes them, unless the memory's
//!   phrase pairs translate them otherwise;
//! - **deleted**: the query dropped the words: the target span goes, with the white space
//!   before it;
//! - **phrase**: the phrase pairs of the memory whose source is the query's new words,
//!   those that agree with the target's unchanged neighbours first (a phrase pair that
//!   starts with the word before the span and translates the word before the stretch,
//!   or ends with the word after it), then by how often the memory has them. A pair that
//!   agrees with no neighbour is trusted only with a fifth of the memory's pairs for the
//!   words; in a match of 0.95 or more only a pair agreeing on both sides is. Where the
//!   old and new source words are forms of one word (`Style` → `Styles`), forms of the
//!   target's words come first; words in capitals are translated in capitals;
//! - **compound**: a German target word that translates the changed word together with
//!   an unchanged neighbour (`Zahlungsdetails`) is rebuilt around the neighbour's part
//!   (see `repair::compound`), below 0.95.
//!
//! Words the query inserts between unchanged words have no target span of their own:
//! they are placed beside the one target word linked to the source word before (or
//! after) them, by the most frequent phrase pair that translates that word with the new
//! ones and starts (or ends) with that target word; not where the target word on the
//! other side is linked to no source word (the target says it already). Words the query
//! dropped in one place and writes in another moved: their translation stays.
//!
//! Query, source and the target's words are compared in NFC, as the keys and the model
//! read them. With the words, the query's final mark is carried over where the target
//! ended as the source did (the source's mark read before the codes it ends with: the
//! `.` of `<span>Saves the file.</span>`), and codes the query adds after its last word
//! (`…: %s`) end the target too (the code adaptation places no placeholder the source
//! lacked).
//!
//! Otherwise the stretch is left as it is and the repair says so (`applied: false`, no
//! evidence). Respelled words (the same letters: `e-mail` → `email`) are not repaired, nor
//! words that became codes. A target with plural or select forms is not repaired.

use serde::{Deserialize, Serialize};

use super::punctuation::{final_mark_repair, final_marks, localized};
use super::{Repair, RepairKind};
use crate::align::{fold, text_of, words, WordModel};
use crate::index::distance::reaches;
use crate::model::locale::Locale;
use crate::model::run::Run;

/// Which fuzzy matches the word repair changes, by the match's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RepairBands {
    /// Scores below 0.85.
    pub low: bool,
    /// Scores from 0.85 to below 0.95.
    pub mid: bool,
    /// Scores from 0.95 (below 1: a match whose source is the query is never changed).
    pub high: bool,
}

impl RepairBands {
    /// In no band.
    pub const OFF: RepairBands = RepairBands { low: false, mid: false, high: false };
    /// In every band.
    pub const ALL: RepairBands = RepairBands { low: true, mid: true, high: true };
    /// What a lookup repairs unless told otherwise (measured: docs/performance.md).
    pub const DEFAULT: RepairBands = RepairBands::ALL;

    /// Whether a match of `score` is repaired.
    pub fn covers(self, score: f64) -> bool {
        if reaches(score, 0.95) {
            self.high
        } else if reaches(score, 0.85) {
            self.mid
        } else {
            self.low
        }
    }
}

/// What a word repair's replacement rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Evidence {
    /// The target had copied the old words: the new ones are copied alike.
    Copied,
    /// The query dropped the words: their translation went too.
    Deleted,
    /// A phrase pair of the memory.
    Phrase {
        /// How many times the memory holds the pair (with its context, when it agreed
        /// with one).
        count: u32,
        /// How many of the target's neighbours (0–2) the phrase pair agreed with.
        context: u8,
    },
    /// A compound word of the target rebuilt: the part that translates an unchanged
    /// neighbour kept, the other part a phrase pair of the memory for the new word.
    Compound {
        /// How many times the memory holds the new word's phrase pair.
        count: u32,
        /// The part of the compound kept, as the target writes it.
        kept: String,
    },
}

/// What a word repair changed in the target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordChange {
    /// The target's text for the changed words (empty when none was found).
    pub target_from: String,
    /// What replaced it (empty: removed); equal to `target_from` when not applied.
    pub target_to: String,
    /// The evidence; `None` when nothing trustworthy was found.
    pub evidence: Option<Evidence>,
}

/// The flat text of the target's top-level runs (codes as U+FFFC) and, per text run, its
/// index and where it starts in that text.
fn flat(runs: &[Run]) -> (String, Vec<(usize, usize)>) {
    let mut out = String::new();
    let mut pieces = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        match run {
            Run::Text(t) => {
                pieces.push((i, out.len()));
                out.push_str(t);
            }
            _ => out.push('\u{FFFC}'),
        }
    }
    (out, pieces)
}

fn lower(text: &str, w: &[(usize, usize)]) -> Vec<String> {
    w.iter().map(|&(a, b)| fold(&text[a..b])).collect()
}

/// `text` in NFC (UAX #15), as the model's phrase texts are written.
fn nfc(text: &str) -> std::borrow::Cow<'_, str> {
    use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
    if is_nfc_quick(text.chars()) == IsNormalized::Yes {
        text.into()
    } else {
        text.nfc().collect::<String>().into()
    }
}

/// The changed stretches between word lists `a` (stored source) and `b` (query):
/// `(a1, a2, b1, b2)`, half open; longest common subsequence.
fn hunks(a: &[String], b: &[String]) -> Vec<(usize, usize, usize, usize)> {
    crate::model::diff::lcs_hunks(a, b)
}

/// A candidate replacement and how it ranks: (context sides agreeing, count).
type Candidate = (String, u8, u32);

/// The phrase candidates for the query's new words `key`, with the target's neighbours
/// `left`/`right` (the word before and after the span) and the source's unchanged
/// neighbours `s_left`/`s_right`.
fn phrase_candidates(
    model: &WordModel,
    key: &str,
    (s_left, left): (Option<&str>, Option<&str>),
    (s_right, right): (Option<&str>, Option<&str>),
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut add = |text: &str, side: u8, count: u32| {
        let text = text.trim();
        if text.is_empty() || text.contains('\u{FFFC}') {
            return;
        }
        match out.iter_mut().find(|c| c.0 == text) {
            Some(c) => {
                c.1 += side;
                c.2 = c.2.max(count);
            }
            None => out.push((text.to_owned(), side, count)),
        }
    };
    for (t, n) in model.phrases(key) {
        add(t, 0, *n);
    }
    if let (Some(sl), Some(l)) = (s_left, left) {
        for (t, n) in model.phrases(&format!("{sl} {key}")) {
            if let Some(rest) = t.strip_prefix(l).filter(|r| r.starts_with(char::is_whitespace)) {
                add(rest, 1, *n);
            }
        }
    }
    if let (Some(sr), Some(r)) = (s_right, right) {
        for (t, n) in model.phrases(&format!("{key} {sr}")) {
            if let Some(rest) = t.strip_suffix(r).filter(|r| r.ends_with(char::is_whitespace)) {
                add(rest, 1, *n);
            }
        }
    }
    out.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    out
}

/// A one-word target span `old` that translates the changed source word and one
/// unchanged neighbour together (a compound), rebuilt for the query's new word; German
/// targets only ([`super::compound`]).
fn compound_of(
    model: &WordModel,
    alignment: &crate::align::Alignment,
    (a1, a2, b1, b2): (usize, usize, usize, usize),
    (c1, c2): (usize, usize),
    (sl, ql): (&[String], &[String]),
    old: &str,
    (locale, score): (&Locale, f64),
) -> Option<(String, u32, String)> {
    if locale.language() != "de" || reaches(score, NEAR) || c2 != c1 + 1 || a2 != a1 + 1 || b2 != b1 + 1 {
        return None;
    }
    let mut others = alignment.links.iter().filter(|&&(ls, lt)| lt == c1 && ls != a1).map(|&(ls, _)| ls);
    let neighbour = others.next()?;
    if others.next().is_some() {
        return None;
    }
    // The source's order decides the compound's: a word before the changed one is the
    // compound's start, one after it its end.
    let side = if neighbour + 1 == a1 {
        super::compound::Kept::Start
    } else if neighbour == a2 {
        super::compound::Kept::End
    } else {
        return None;
    };
    super::compound::rebuild(model, old, (&sl[a1], &ql[b1], &sl[neighbour]), side)
}

/// Below this score a phrase pair may replace words on its count alone; from it (a change
/// of a word or two in a long text, the rest of the translation the translator's), only
/// between the two target words the memory has it between.
const NEAR: f64 = 0.95;

/// The least share of the memory's phrase pairs for the new words that one agreeing with
/// no neighbour must have.
const ALONE_SHARE: f64 = 0.2;

/// Drops the phrase candidates `found` that are not trustworthy enough to replace words
/// in a match of `score` (`all`: every phrase pair of the new words), and where the old
/// and the new source words (`from`, `to`, as letters) are forms of one word (their
/// first four letters alike: `Style` → `Styles`), puts first, among equals in context,
/// the candidates that are forms of the target's words (`old`) too.
fn trust(found: &mut Vec<Candidate>, all: &[(String, u32)], score: f64, (from, to, old): (&str, &str, &str)) {
    if reaches(score, NEAR) {
        found.retain(|c| c.1 >= 2);
    }
    let total: u32 = all.iter().map(|p| p.1).sum();
    found.retain(|c| c.1 > 0 || f64::from(c.2) >= ALONE_SHARE * f64::from(total.max(1)));
    use super::compound::shared_start;
    if shared_start(from, to) >= 4 {
        found.sort_by_cached_key(|c| (std::cmp::Reverse(c.1), shared_start(&letters(&c.0), old) < 4));
    }
}

/// The letters and digits of `text`, in lower case.
fn letters(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Two letters or more, none in lower case.
fn capitals(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphabetic()).count() > 1 && !text.chars().any(char::is_lowercase)
}

/// What `text` holds after its last word.
fn after_last_word(text: &str) -> &str {
    &text[words(text).last().map_or(0, |w| w.1)..]
}

/// The runs of `query` after its last word, or `None` when it has no word or a choice.
fn tail_runs(query: &[Run]) -> Option<Vec<Run>> {
    let mut out = Vec::new();
    for run in query.iter().rev() {
        match run {
            Run::Text(t) => {
                let rest = after_last_word(t);
                if !rest.is_empty() {
                    out.push(Run::text(rest));
                }
                if rest.len() < t.len() {
                    out.reverse();
                    return Some(out);
                }
            }
            Run::Plural(_) | Run::Select(_) => return None,
            other => out.push(other.clone()),
        }
    }
    None
}

/// Codes the query adds after its last word (`Unsupported file extension` → `…: %s`):
/// the code adaptation places only codes the source had, so the target's tail, where it
/// is the source's (`.` or nothing), becomes the query's, codes and marks as the query
/// writes them. `q` and `s` are the skeletons of the query and the stored source.
fn repair_tail(query: &[Run], q: &str, s: &str, target: &mut Vec<Run>) -> Option<Repair> {
    let (q_tail, s_tail) = (after_last_word(q), after_last_word(s));
    if !q_tail.contains('\u{FFFC}') || s_tail.contains('\u{FFFC}') {
        return None;
    }
    let tail = tail_runs(query)?;
    // A code of the tail already in the target was placed by the code adaptation.
    if tail.iter().any(|r| r.code().is_some() && target.contains(r)) {
        return None;
    }
    let Some(Run::Text(last)) = target.last_mut() else { return None };
    if words(last).is_empty() || after_last_word(last).trim() != s_tail.trim() {
        return None;
    }
    let from = after_last_word(last).to_owned();
    last.truncate(last.len() - from.len());
    let keep = last.len();
    let mut tail = tail.into_iter().peekable();
    if let Some(Run::Text(first)) = tail.peek() {
        last.push_str(first);
        tail.next();
    }
    let added = last[keep..].to_owned();
    let rest: Vec<Run> = tail.collect();
    let to = format!("{added}{}", crate::model::run::surface_text(&rest));
    target.extend(rest);
    Some(Repair {
        kind: RepairKind::Words,
        from: s_tail.to_owned(),
        to: to.clone(),
        applied: true,
        words: Some(WordChange { target_from: from, target_to: to, evidence: Some(Evidence::Copied) }),
    })
}

/// Replaces the changed words of `target` (the adapted target of a match whose stored
/// source is `source`) by the translation of the query's words; see the
/// [module docs](self). Returns one repair per changed stretch, applied or not.
pub fn repair_words(
    query: &[Run],
    source: &[Run],
    target: &mut Vec<Run>,
    model: &WordModel,
    locale: &Locale,
    score: f64,
) -> Vec<Repair> {
    // Query and source as the model and the keys read them (NFC, codes as U+FFFC): a
    // decomposed accent finds the same words as its composed form.
    let (q, s) = (text_of(query), text_of(source));
    let (qw, sw) = (words(&q), words(&s));
    let (ql, sl) = (lower(&q, &qw), lower(&s, &sw));
    let found = hunks(&sl, &ql);
    if found.is_empty() {
        return Vec::new();
    }
    let (t, pieces) = flat(target);
    let choices = target.iter().any(|r| matches!(r, Run::Plural(_) | Run::Select(_)));
    let alignment = model.align(&s, &t);
    let tw = &alignment.target_words;
    let text_of = |text: &str, w: &[(usize, usize)], a: usize, b: usize| -> String {
        if a >= b {
            String::new()
        } else {
            text[w[a].0..w[b - 1].1].to_owned()
        }
    };
    let mut out = Vec::new();
    // Target byte ranges to replace, with what.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // A stretch's text, or for an empty one what lies between its neighbours.
    let gap = |text: &str, w: &[(usize, usize)], a: usize, b: usize| -> String {
        if a < b {
            return text[w[a].0..w[b - 1].1].to_owned();
        }
        let start = if a == 0 { 0 } else { w[a - 1].1 };
        let end = w.get(a).map_or(text.len(), |p| p.0);
        text[start..end.max(start)].to_owned()
    };
    // The query dropped the source's last words: a code after them stands for them
    // (`Attach a file` → `Attach {file}`), a word become a code.
    let end_dropped = found.last().is_some_and(|&(_, a2, b1, b2)| a2 == sl.len() && b1 == b2);
    for (a1, a2, b1, b2) in found {
        let (from, to) = (text_of(&s, &sw, a1, a2), text_of(&q, &qw, b1, b2));
        let (s_gap, q_gap) = (gap(&s, &sw, a1, a2), gap(&q, &qw, b1, b2));
        // The same letters written another way (`e-mail` → `email`, a mnemonic): spelling,
        // which the target does its own way.
        if letters(&s_gap) == letters(&q_gap) {
            continue;
        }
        // A word that became a code or a code that became words: the code adaptation's.
        let coded = s_gap.contains('\u{FFFC}') || q_gap.contains('\u{FFFC}');
        let mut repair = Repair {
            kind: RepairKind::Words,
            from,
            to: to.clone(),
            applied: false,
            words: Some(WordChange { target_from: String::new(), target_to: String::new(), evidence: None }),
        };
        let linked: Vec<usize> =
            alignment.links.iter().filter(|&&(ls, _)| (a1..a2).contains(&ls)).map(|&(_, lt)| lt).collect();
        let span = linked.iter().min().zip(linked.iter().max()).map(|(&x, &y)| (x, y + 1));
        // Words the query inserts here that the source had elsewhere moved (see below).
        if a1 == a2 && b2 > b1 && sl.windows(b2 - b1).any(|w| w == &ql[b1..b2]) {
            out.push(repair);
            continue;
        }
        if a1 == a2 && !choices && !coded {
            // Words the query inserts: placed only next to the one target word linked to
            // a neighbouring source word, by a phrase pair that holds both.
            let new_words = ql[b1..b2].join(" ");
            let only_link = |src: usize| -> Option<usize> {
                let mut l = alignment.links.iter().filter(|&&(ls, _)| ls == src).map(|&(_, lt)| lt);
                let first = l.next()?;
                l.next().is_none().then_some(first)
            };
            let mut best: Option<(usize, String, u32)> = None;
            let mut consider = |at: usize, text: String, n: u32| {
                if !text.is_empty() && !text.contains('\u{FFFC}') && best.as_ref().is_none_or(|b| n > b.2) {
                    best = Some((at, text, n));
                }
            };
            // The target words from `from` on, or up to two words later, are those of
            // `text`: the translation the query adds is there already (`Die gewählte …`
            // for `The chosen …`, `den entsprechenden Link` for `the link`).
            let there = |from: usize, text: &str| -> bool {
                let ws = words(text);
                !ws.is_empty()
                    && (from..=from + 2).any(|from| {
                        ws.iter().enumerate().all(|(i, &(a, b))| {
                            tw.get(from + i).is_some_and(|&(x, y)| fold(&t[x..y]) == fold(&text[a..b]))
                        })
                    })
            };
            // A target word beside the place linked to no source word: the target says more
            // than the source there, likely what the query now adds (`The chosen sorting`
            // against `Chosen sorting` / `Die gewählte Sortierung`).
            let unlinked = |k: usize| k < tw.len() && !alignment.links.iter().any(|&(_, lt)| lt == k);
            if let Some(tl) = a1.checked_sub(1).and_then(only_link) {
                let word = nfc(&t[tw[tl].0..tw[tl].1]);
                for (cand, n) in model.phrases(&format!("{} {new_words}", sl[a1 - 1])) {
                    if let Some(rest) =
                        cand.strip_prefix(&*word).filter(|r| r.starts_with(char::is_whitespace))
                    {
                        if there(tl + 1, rest) || unlinked(tl + 1) {
                            continue;
                        }
                        consider(tw[tl].1, format!(" {}", rest.trim()), *n);
                    }
                }
            }
            if let Some(tr) = (a1 < sl.len()).then(|| only_link(a1)).flatten() {
                let word = nfc(&t[tw[tr].0..tw[tr].1]);
                for (cand, n) in model.phrases(&format!("{new_words} {}", sl[a1])) {
                    if let Some(rest) = cand.strip_suffix(&*word).filter(|r| r.ends_with(char::is_whitespace))
                    {
                        if there(tr.saturating_sub(words(rest).len() + 2), rest)
                            || tr.checked_sub(1).is_some_and(unlinked)
                        {
                            continue;
                        }
                        consider(tw[tr].0, format!("{} ", rest.trim()), *n);
                    }
                }
            }
            if let Some((at, text, count)) =
                best.filter(|b| !edits.iter().any(|&(x, y, _)| x < b.0 && b.0 < y))
            {
                repair.applied = true;
                repair.words = Some(WordChange {
                    target_from: String::new(),
                    target_to: text.trim().to_owned(),
                    evidence: Some(Evidence::Phrase { count, context: 1 }),
                });
                edits.push((at, at, text));
            }
            out.push(repair);
            continue;
        }
        let Some((c1, c2)) = span.filter(|_| !choices) else {
            out.push(repair);
            continue;
        };
        let consistent =
            !alignment.links.iter().any(|&(ls, lt)| (c1..c2).contains(&lt) && !(a1..a2).contains(&ls));
        let (x, y) = (tw[c1].0, tw[c2 - 1].1);
        let old = &t[x..y];
        if let Some(w) = repair.words.as_mut() {
            w.target_from = old.to_owned();
            w.target_to = old.to_owned();
        }
        let overlaps = edits.iter().any(|&(ex, ey, _)| x < ey && ex < y);
        if !consistent && !coded && !overlaps {
            let words = (&sl[..], &ql[..]);
            if let Some((word, count, kept)) =
                compound_of(model, &alignment, (a1, a2, b1, b2), (c1, c2), words, old, (locale, score))
            {
                repair.applied = true;
                repair.words = Some(WordChange {
                    target_from: old.to_owned(),
                    target_to: word.clone(),
                    evidence: Some(Evidence::Compound { count, kept }),
                });
                edits.push((x, y, word));
                out.push(repair);
                continue;
            }
        }
        if !consistent || coded || old.contains('\u{FFFC}') || overlaps {
            out.push(repair);
            continue;
        }
        let copied = fold(old) == fold(&repair.from);
        // Words the query dropped here but writes elsewhere moved: their translation
        // stays, as the target orders its words its own way (`not yet set a password` →
        // `not set a password yet`).
        let moved = b1 == b2 && a2 > a1 && ql.windows(a2 - a1).any(|w| w == &sl[a1..a2]);
        let chosen: Option<(String, Evidence)> = if moved {
            None
        } else if b1 == b2 {
            Some((String::new(), Evidence::Deleted))
        } else {
            let key = ql[b1..b2].join(" ");
            let s_left = a1.checked_sub(1).map(|k| sl[k].as_str());
            let s_right = sl.get(a2).map(String::as_str);
            let left = c1.checked_sub(1).map(|k| nfc(&t[tw[k].0..tw[k].1]));
            let right = tw.get(c2).map(|&(p, r)| nfc(&t[p..r]));
            let mut found =
                phrase_candidates(model, &key, (s_left, left.as_deref()), (s_right, right.as_deref()));
            trust(
                &mut found,
                model.phrases(&key),
                score,
                (&letters(&repair.from), &letters(&to), &letters(old)),
            );
            // A copied word stays copied unless the memory's trusted phrase pairs translate
            // the new words otherwise (`Custom Pose` → `model` is `Modell`, `Firefox` →
            // `Thunderbird` stays).
            let copy = copied && (found.is_empty() || found.iter().any(|c| letters(&c.0) == letters(&to)));
            if copy {
                Some((to.clone(), Evidence::Copied))
            } else {
                found
                    .into_iter()
                    .next()
                    .map(|(text, context, count)| (text, Evidence::Phrase { count, context }))
            }
        };
        let Some((mut new, evidence)) = chosen else {
            out.push(repair);
            continue;
        };
        // The first word of the target keeps its capital.
        if c1 == 0 && old.starts_with(char::is_uppercase) {
            new = super::compound::first_in_case(&new, true);
        }
        // Words in capitals (a function name: `SQRT` → `WURZEL`) replaced by words in
        // capitals are translated in capitals (`SORT` → `SORTIEREN`).
        if capitals(old) && capitals(&to) {
            new = new.to_uppercase();
        }
        repair.applied = true;
        if let Some(w) = repair.words.as_mut() {
            w.target_to.clone_from(&new);
            w.evidence = Some(evidence);
        }
        edits.push((x, y, new));
        out.push(repair);
    }
    // Right to left, each inside its one text run (a span holds no code).
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (x, y, new) in edits {
        let Some(&(ri, start)) = pieces.iter().rev().find(|&&(_, start)| start <= x) else { continue };
        let Run::Text(text) = &mut target[ri] else { continue };
        let (mut a, mut b) = (x - start, y - start);
        if b > text.len() {
            continue;
        }
        if new.is_empty() {
            // The white space before the words goes with them (or after, at the start).
            let before = text[..a].len() - text[..a].trim_end().len();
            if before > 0 {
                a -= before;
            } else {
                b += text[b..].len() - text[b..].trim_start().len();
            }
        }
        text.replace_range(a..b, &new);
    }
    if let Some(r) = (!choices && !end_dropped).then(|| repair_tail(query, &q, &s, target)).flatten() {
        out.push(r);
        return out;
    }
    // The query's final mark: with the words unchanged the mechanical repair makes it,
    // but a stretch of changed words kept it from there (`… in source` → `… in the
    // source.`). Only a target ending in text, as it stands, and no choice. The source's
    // mark is read before the codes it ends with (a `.` inside a span the query does not
    // have: `<span>Saves the file.</span>` for `Save the file`), the query's too when the
    // source ends with codes (a code the query adds at its end is its tail, above).
    let before_codes = |t: &str| t.trim_end_matches(|c: char| c == '\u{FFFC}' || c.is_whitespace()).len();
    let coded_end = before_codes(&s) < s.trim_end().len();
    let q_end = if coded_end { before_codes(&q) } else { q.len() };
    let (qp, sp) = (final_marks(&q[..q_end]), final_marks(&s[..before_codes(&s)]));
    let target_mark = match target.last() {
        Some(Run::Text(last)) if !choices => Some(final_marks(last).to_owned()),
        _ => None,
    };
    if let Some(tp) = target_mark.filter(|tp| *tp != localized(qp, locale)) {
        if qp.replace("...", "…") != sp.replace("...", "…") && tp.replace("...", "…") == localized(sp, locale)
        {
            out.push(final_mark_repair(target, sp, qp, locale));
        }
    }
    out
}

#[cfg(test)]
mod tests;
