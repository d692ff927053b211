//! Terms: a glossary mined from the word model's phrase pairs, the evidence fragments
//! and the word repair read too. A term is a source phrase of one to four words that
//! neither starts nor ends with a stop word and holds no bare number, seen at least
//! [`TermOptions::min_count`] times with one dominant translation (a share of at least
//! [`TermOptions::min_share`] of its sightings). Nouns and noun phrases come first: a
//! target that starts with a capital letter where its source does not (German writes
//! nouns so) marks one; then the most seen.
//!
//! ```
//! use cmem_core::align::{AlignOptions, TermOptions, WordModel};
//!
//! let (verbs, nouns) = (["Open", "Close", "Print"], ["file manager", "web page", "text document"]);
//! let (verben, nomen) = (["Öffne", "Schließe", "Drucke"], ["Dateiverwaltung", "Webseite", "Textdokument"]);
//! let mut pairs = Vec::new();
//! for (v, verb) in verbs.iter().enumerate() {
//!     for (n, noun) in nouns.iter().enumerate() {
//!         let id = (pairs.len() + 1) as i64;
//!         pairs.push((id, format!("{verb} the {noun}"), format!("{} die {}", verben[v], nomen[n])));
//!     }
//! }
//! let (model, _) = WordModel::train_identified(pairs, &AlignOptions::default().iterations(10));
//! let terms = model.terms(&TermOptions::default());
//! let t = terms.iter().find(|t| t.target == "Dateiverwaltung").expect("mined");
//! assert!(t.source.ends_with("manager") && t.count == 3 && t.noun, "{t:?}");
//! ```

use serde::{Deserialize, Serialize};

use super::fragments::{is_content_word, STOP_WORDS};
use super::WordModel;
use crate::model::entry::EntryId;

/// Which phrase pairs make terms.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TermOptions {
    /// The fewest sightings with the dominant translation; default 3.
    pub min_count: u32,
    /// The least share of the sightings the dominant translation has; default 0.6.
    pub min_share: f64,
    /// The most source words; default 4.
    pub max_words: usize,
}

impl Default for TermOptions {
    fn default() -> Self {
        TermOptions { min_count: 3, min_share: 0.6, max_words: 4 }
    }
}

crate::setters!(TermOptions { min_count: u32, min_share: f64, max_words: usize });

/// A source term and the memory's dominant translation of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Term {
    /// The source term, in lower case (the model compares words so).
    pub source: String,
    /// Its dominant translation, as the memory writes it.
    pub target: String,
    /// Sightings with that translation.
    pub count: u32,
    /// Sightings with any translation the model kept.
    pub seen: u32,
    /// `count / seen`.
    pub share: f64,
    /// Likely a noun or noun phrase (a target that starts with a capital letter).
    pub noun: bool,
    /// One entry that holds the pair, when the model was trained with entry ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<EntryId>,
}

impl Term {
    /// A term from a list a user gave (a glossary imported back): counts unknown.
    pub fn given(source: &str, target: &str) -> Term {
        Term {
            source: super::fold(source.trim()),
            target: target.trim().to_owned(),
            count: 0,
            seen: 0,
            share: 1.0,
            noun: false,
            example: None,
        }
    }
}

/// Whether `target` starts with a capital letter.
fn capitalized(text: &str) -> bool {
    text.chars().next().is_some_and(char::is_uppercase)
}

impl WordModel {
    /// The glossary of the memory; see [`TermOptions`] and [`Term::noun`]. Nouns first, then by
    /// sightings, then by source.
    pub fn terms(&self, opts: &TermOptions) -> Vec<Term> {
        let mut out = Vec::new();
        for (source, targets) in self.all_phrases() {
            let ws: Vec<&str> = source.split(' ').collect();
            if ws.len() > opts.max_words
                || ws.first().is_some_and(|w| STOP_WORDS.contains(w))
                || ws.last().is_some_and(|w| STOP_WORDS.contains(w))
                || !ws.iter().all(|w| is_content_word(w) || STOP_WORDS.contains(w))
                || ws.iter().any(|w| w.chars().count() < 2)
            {
                continue;
            }
            let Some((target, count)) = targets.first() else { continue };
            let seen: u32 = targets.iter().map(|t| t.1).sum();
            let share = f64::from(*count) / f64::from(seen.max(1));
            if *count < opts.min_count || share < opts.min_share {
                continue;
            }
            let example = self.phrase_examples(source).first().filter(|&&id| id != 0).map(|&id| EntryId(id));
            // The source is folded: a capital in the target is the target's own.
            let noun = capitalized(target.split_whitespace().last().unwrap_or(""));
            out.push(Term {
                source: source.to_owned(),
                target: target.clone(),
                count: *count,
                seen,
                share,
                noun,
                example,
            });
        }
        out.sort_by(|a, b| {
            b.noun.cmp(&a.noun).then(b.count.cmp(&a.count)).then_with(|| a.source.cmp(&b.source))
        });
        out
    }
}

/// The terms of `list` whose source appears in `text` as whole words, longest first,
/// none overlapping another: what a segment holds.
pub fn terms_in<'t>(text: &str, list: &'t [Term]) -> Vec<&'t Term> {
    let folded: Vec<String> = super::words(text).into_iter().map(|(a, b)| super::fold(&text[a..b])).collect();
    let mut taken = vec![false; folded.len()];
    let mut by_length: Vec<&Term> = list.iter().collect();
    by_length.sort_by_key(|t| std::cmp::Reverse(t.source.split(' ').count()));
    let mut out = Vec::new();
    for term in by_length {
        let ws: Vec<&str> = term.source.split(' ').collect();
        if ws.is_empty() || ws.len() > folded.len() {
            continue;
        }
        for i in 0..=folded.len() - ws.len() {
            if taken[i..i + ws.len()].iter().any(|&t| t) {
                continue;
            }
            if folded[i..i + ws.len()].iter().zip(&ws).all(|(a, b)| a == b) {
                taken[i..i + ws.len()].iter_mut().for_each(|t| *t = true);
                out.push(term);
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_in_a_segment_are_whole_words_longest_first() {
        let list = vec![Term::given("file", "Datei"), Term::given("File manager", "Dateiverwaltung")];
        let found = terms_in("Open the file manager, then the file.", &list);
        let sources: Vec<&str> = found.iter().map(|t| t.source.as_str()).collect();
        assert_eq!(sources, ["file manager", "file"]);
        assert!(terms_in("Open the filer", &list).is_empty());
    }
}
