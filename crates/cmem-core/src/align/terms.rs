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

use rustc_hash::FxHashMap;
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
    /// The least share of the memory's entries whose source holds the term whose target
    /// uses its translation ([`uses_translation`]), counted when the model was trained;
    /// default 0.9. A term the memory translates otherwise in more than a tenth of its
    /// entries is no term to check fills against. Terms of a model trained before this
    /// count pass.
    pub min_usage: f64,
}

impl Default for TermOptions {
    fn default() -> Self {
        TermOptions { min_count: 3, min_share: 0.6, max_words: 4, min_usage: 0.9 }
    }
}

crate::setters!(TermOptions { min_count: u32, min_share: f64, max_words: usize, min_usage: f64 });

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
    /// The glossary of [`terms`](Self::terms) with the default options, mined once per
    /// model and kept with it.
    pub fn glossary(&self) -> std::sync::Arc<Glossary> {
        self.glossary
            .get_or_init(|| std::sync::Arc::new(Glossary::new(self.terms(&TermOptions::default()))))
            .clone()
    }

    /// The glossary of the memory; see [`TermOptions`] and [`Term::noun`]. Nouns first, then by
    /// sightings, then by source.
    pub fn terms(&self, opts: &TermOptions) -> Vec<Term> {
        let mut out = self.candidate_terms(opts);
        out.retain(|t| self.phrase_usage(&t.source).is_none_or(|u| u >= opts.min_usage));
        out
    }

    /// Per phrase a term or fragment may come from (its dominant translation seen at
    /// least twice and in half the sightings, a content word in it): of `texts` (the
    /// training pairs) whose source holds it as whole words, how many use that
    /// translation in their target ([`uses_translation`]), and how many hold it.
    pub(super) fn count_phrase_usage(&self, texts: &[(String, String)]) -> FxHashMap<String, (u32, u32)> {
        let mut wanted: FxHashMap<&str, Vec<String>> = FxHashMap::default();
        let mut longest = 1;
        for (source, targets) in self.all_phrases() {
            let Some((target, count)) = targets.first() else { continue };
            let seen: u32 = targets.iter().map(|t| t.1).sum();
            if *count < 2
                || f64::from(*count) < 0.5 * f64::from(seen)
                || !source.split(' ').any(is_content_word)
            {
                continue;
            }
            longest = longest.max(source.split(' ').count());
            wanted.insert(source, folded_words(target));
        }
        let mut usage: FxHashMap<String, (u32, u32)> = FxHashMap::default();
        let mut key = String::new();
        for (source, target) in texts {
            let words = folded_words(source);
            let mut have: Option<Vec<String>> = None;
            for i in 0..words.len() {
                key.clear();
                for (k, word) in words[i..].iter().take(longest).enumerate() {
                    if k > 0 {
                        key.push(' ');
                    }
                    key.push_str(word);
                    let Some(want) = wanted.get(key.as_str()) else { continue };
                    let have = have.get_or_insert_with(|| folded_words(target));
                    let u = usage.entry(key.clone()).or_default();
                    u.1 += 1;
                    u.0 += u32::from(uses_words(have, want));
                }
            }
        }
        usage
    }

    /// The share of the memory's entries holding the phrase `source` whose target uses
    /// its dominant translation, as counted at training; `None` when not counted.
    pub fn phrase_usage(&self, source: &str) -> Option<f64> {
        self.phrase_usage.get(source).map(|&(used, holding)| f64::from(used) / f64::from(holding.max(1)))
    }

    /// The terms `opts` asks for, before the usage check.
    fn candidate_terms(&self, opts: &TermOptions) -> Vec<Term> {
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

/// A glossary ready to be searched: its terms indexed by a hash of their words, so that
/// finding the terms of a segment costs a few lookups in a small table for each of its
/// words, not the glossary's length, and reads a term's text only when its words' hash
/// matches.
#[derive(Debug, Clone, Default)]
pub struct Glossary {
    terms: Vec<Term>,
    /// The hash of a term's words ([`words_hash`]) → indexes into `terms`.
    by_words: rustc_hash::FxHashMap<u64, Vec<u32>>,
    /// Each term's words, folded, as the segment's are.
    words: Vec<Box<[String]>>,
    /// The most words of a term.
    longest: usize,
}

/// A hash of a sequence of folded words (each followed by a separator no word holds).
fn words_hash<'w>(words: impl IntoIterator<Item = &'w String>) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    for w in words {
        h.write(w.as_bytes());
        h.write_u8(0xff);
    }
    h.finish()
}

/// A term found in a segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FoundTerm {
    /// The term.
    #[serde(flatten)]
    pub term: Term,
    /// Its words as the segment writes them.
    pub found: String,
    /// Given by a user (a list kept with `set_terms`), not mined.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub given: bool,
}

impl Glossary {
    /// A glossary of `terms`; of two with the same source, the first is kept.
    pub fn new(terms: Vec<Term>) -> Glossary {
        let mut g = Glossary::default();
        let mut seen = std::collections::HashSet::new();
        for t in terms {
            let words = folded_words(&t.source);
            if words.is_empty() || !seen.insert(words.clone()) {
                continue;
            }
            g.by_words.entry(words_hash(&words)).or_default().push(g.terms.len() as u32);
            g.longest = g.longest.max(words.len());
            g.words.push(words.into_boxed_slice());
            g.terms.push(t);
        }
        g
    }

    /// The term whose words are `words` (`hash` their [`words_hash`]), if any: two terms
    /// never have the same words.
    fn named(&self, words: &[String], hash: u64) -> Option<&Term> {
        let bucket = self.by_words.get(&hash)?;
        bucket.iter().map(|&i| i as usize).find(|&i| *self.words[i] == *words).map(|i| &self.terms[i])
    }

    /// Its terms.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// Whether it holds a term with this (folded) source.
    pub fn names(&self, source: &str) -> bool {
        let words = folded_words(source);
        self.named(&words, words_hash(&words)).is_some()
    }

    /// The terms of this glossary and of `given` (which take precedence: a mined term
    /// whose source a given one names is left out) that `text` holds as whole words:
    /// the longest first where two overlap, none overlapping another, in the text's
    /// order.
    pub fn find(&self, text: &str, given: &[&Glossary]) -> Vec<FoundTerm> {
        let spans = super::words(text);
        let folded: Vec<String> = spans.iter().map(|&(a, b)| super::fold(&text[a..b])).collect();
        let mut hits = self.hits(&folded, given);
        let lists = given.len() + 1;
        // Longest first, then the given lists, then the earlier.
        hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(&b.2)).then(a.1.cmp(&b.1)));
        let mut taken = vec![false; spans.len()];
        let mut out = Vec::new();
        for (n, i, rank, term) in hits {
            if taken[i..i + n].iter().any(|&t| t) {
                continue;
            }
            taken[i..i + n].iter_mut().for_each(|t| *t = true);
            out.push((
                i,
                FoundTerm {
                    term: term.clone(),
                    found: text[spans[i].0..spans[i + n - 1].1].to_owned(),
                    given: rank + 1 < lists,
                },
            ));
        }
        out.sort_by_key(|(i, _)| *i);
        out.into_iter().map(|(_, f)| f).collect()
    }

    /// Every occurrence in a text's `folded` words of a term of `given` or of this
    /// glossary (a term of a later list left out where an earlier one names its source),
    /// overlapping or not: (words, start word, list, term), the lists counted `given`
    /// first.
    fn hits<'g>(&'g self, folded: &[String], given: &[&'g Glossary]) -> Vec<(usize, usize, usize, &'g Term)> {
        let mut hits: Vec<(usize, usize, usize, &Term)> = Vec::new();
        // (rank, list): the given lists first; empty ones are never asked.
        let lists: Vec<(usize, &Glossary)> = given
            .iter()
            .copied()
            .chain(std::iter::once(self))
            .enumerate()
            .filter(|(_, l)| !l.terms.is_empty())
            .collect();
        let longest = lists.iter().map(|(_, l)| l.longest).max().unwrap_or(0);
        for i in 0..folded.len() {
            for n in 1..=longest.min(folded.len() - i) {
                let span = &folded[i..i + n];
                let hash = words_hash(span);
                // A term of a later list is left out where an earlier one names its words.
                if let Some((rank, term)) =
                    lists.iter().find_map(|(rank, l)| l.named(span, hash).map(|t| (*rank, t)))
                {
                    hits.push((n, i, rank, term));
                }
            }
        }
        hits
    }
}

/// The folded words of `text`.
fn folded_words(text: &str) -> Vec<String> {
    super::words(text).into_iter().map(|(a, b)| super::fold(&text[a..b])).collect()
}

/// Whether the folded words `have` use the folded words `want` (see [`uses_translation`]).
fn uses_words(have: &[String], want: &[String]) -> bool {
    match want {
        [] => true,
        [w] => have.iter().any(|h| {
            h == w || (w.chars().count() >= 4 && (h.starts_with(w.as_str()) || h.ends_with(w.as_str())))
        }),
        _ => have.windows(want.len()).any(|win| win == want),
    }
}

/// Whether `target` uses `translation` of a term: its words, folded, appear in order as
/// whole words — or, for a one-word translation, as the start or end of a longer word
/// (German compounds: *Datei* in *Dateiname*, *Verwaltung* in *Dateiverwaltung*).
pub fn uses_translation(target: &str, translation: &str) -> bool {
    uses_words(&folded_words(target), &folded_words(translation))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_in_a_segment_are_whole_words_longest_first() {
        let list =
            Glossary::new(vec![Term::given("file", "Datei"), Term::given("File manager", "Dateiverwaltung")]);
        let found = list.find("Open the file manager, then the file.", &[]);
        let sources: Vec<&str> = found.iter().map(|f| f.term.source.as_str()).collect();
        assert_eq!(sources, ["file manager", "file"]);
        assert!(list.find("Open the filer", &[]).is_empty());
    }

    #[test]
    fn a_given_term_is_read_as_words_as_the_segment_is() {
        let list = Glossary::new(vec![
            Term::given("E-mail address", "E-Mail-Adresse"),
            Term::given("e mail address", "x"),
        ]);
        assert_eq!(list.terms().len(), 1, "the same words twice: the first is kept");
        let found = list.find("Enter your e-mail address.", &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].found.as_str(), found[0].term.target.as_str()),
            ("e-mail address", "E-Mail-Adresse")
        );
        assert!(list.names("e-mail address") && list.names("e mail address") && !list.names("e-mail"));
    }

    proptest::proptest! {
        /// The hashed search finds what a scan of every term at every word finds.
        #[test]
        fn the_glossary_finds_what_a_scan_finds(
            text in proptest::collection::vec(0usize..6, 0..12),
            terms in proptest::collection::vec(proptest::collection::vec(0usize..6, 1..4), 0..8),
            given in proptest::collection::vec(proptest::collection::vec(0usize..6, 1..3), 0..3),
        ) {
            const WORDS: [&str; 6] = ["file", "manager", "open", "the", "folder", "Datei"];
            let phrase = |ix: &[usize]| ix.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
            let mined = Glossary::new(terms.iter().map(|t| Term::given(&phrase(t), "m")).collect());
            let given = Glossary::new(given.iter().map(|t| Term::given(&phrase(t), "g")).collect());
            let text = phrase(&text);
            let folded = folded_words(&text);
            // The slow reference: every term of every list at every word.
            let mut want: Vec<(usize, usize, usize, String)> = Vec::new();
            for i in 0..folded.len() {
                for (rank, list) in [&given, &mined].into_iter().enumerate() {
                    for t in list.terms() {
                        let w = folded_words(&t.source);
                        let named_before = rank == 1 && given.terms().iter().any(|g| folded_words(&g.source) == w);
                        if !named_before && folded.get(i..i + w.len()) == Some(&w[..]) {
                            want.push((w.len(), i, rank, t.source.clone()));
                        }
                    }
                }
            }
            let mut got: Vec<(usize, usize, usize, String)> =
                mined.hits(&folded, &[&given]).into_iter().map(|(n, i, r, t)| (n, i, r, t.source.clone())).collect();
            want.sort();
            got.sort();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_glossary_finds_terms_in_text_order_given_ones_first() {
        let mined = Glossary::new(vec![
            Term::given("file", "Datei"),
            Term::given("file manager", "Dateiverwaltung"),
            Term::given("folder", "Ordner"),
        ]);
        let given = Glossary::new(vec![Term::given("folder", "Verzeichnis")]);
        let text = "Move the folder into the File  Manager";
        let found = mined.find(text, &[&given]);
        let shown: Vec<(&str, &str, bool)> =
            found.iter().map(|f| (f.found.as_str(), f.term.target.as_str(), f.given)).collect();
        assert_eq!(shown, [("folder", "Verzeichnis", true), ("File  Manager", "Dateiverwaltung", false)]);
        assert!(mined.find("profile managers", &[]).is_empty(), "whole words only");
    }

    #[test]
    fn a_term_the_memory_translates_otherwise_too_often_is_no_term() {
        use crate::align::AlignOptions;
        let verbs = [
            ("Open", "Öffne"),
            ("Close", "Schließe"),
            ("Print", "Drucke"),
            ("Show", "Zeige"),
            ("Hide", "Verstecke"),
        ];
        let nouns =
            [("file manager", "Dateiverwaltung"), ("web page", "Webseite"), ("main window", "Hauptfenster")];
        let mut pairs = Vec::new();
        for (v, vt) in verbs {
            for (n, nt) in nouns {
                pairs.push((pairs.len() as i64 + 1, format!("{v} the {n}"), format!("{vt} die {nt}")));
            }
        }
        // Three entries translate *file manager* another way: 5 of 8 use the dominant one.
        for (v, vt) in &verbs[..3] {
            pairs.push((
                pairs.len() as i64 + 1,
                format!("{v} the file manager now"),
                format!("{vt} jetzt den Dateimanager"),
            ));
        }
        let (model, _) = WordModel::train_identified(pairs, &AlignOptions::default().iterations(10));
        let sources =
            |opts: &TermOptions| -> Vec<String> { model.terms(opts).into_iter().map(|t| t.source).collect() };
        let checked = sources(&TermOptions::default());
        assert!(checked.contains(&"page".to_owned()), "{checked:?}");
        assert!(!checked.iter().any(|s| s == "manager" || s == "file manager"), "{checked:?}");
        let loose = sources(&TermOptions::default().min_usage(0.5));
        assert!(loose.iter().any(|s| s == "manager" || s == "file manager"), "{loose:?}");
        // The count is saved with the model.
        let back = WordModel::from_saved(&model.to_saved()).unwrap();
        assert_eq!(back.terms(&TermOptions::default()), model.terms(&TermOptions::default()));
    }

    #[test]
    fn a_translation_is_used_as_words_or_a_compound_part() {
        assert!(uses_translation("Die Datei speichern", "Datei"));
        assert!(uses_translation("Dateiname ändern", "Datei"));
        assert!(uses_translation("Die Dateiverwaltung", "Verwaltung"));
        assert!(!uses_translation("Das Dokument speichern", "Datei"));
        assert!(uses_translation("In der Dateiverwaltung öffnen", "der dateiverwaltung"));
        assert!(!uses_translation("Die Verwaltung der Datei", "Datei verwaltung"));
        assert!(!uses_translation("Ortsname", "Ort"), "short words are not compound parts");
    }
}
