//! Fragments: the stretches of a segment's source that the memory holds with a
//! consistent translation, when no whole match comes near it (memoQ's "longest
//! subsegment", OmegaT's sub-segment matches). They come from the word model's phrase
//! pairs, the evidence the word repair uses too: a stretch of two words or more (whole
//! words, never across a code or a punctuation mark) whose phrase pairs agree on one
//! target text often enough is a fragment, with that text, how many of the pairs agree,
//! and one entry they were seen in. The text is what the pairs agree on: the dominant
//! target less the end words too few of them hold (an article the sentence inflects).
//! Of the stretches found, those covering the most words of the segment, each word
//! weighed by its fragment's confidence, are kept, longer ones first, none
//! overlapping. A fragment never fills a target: it is what a translator (or a
//! producer) may reuse.
//!
//! ```
//! use cmem_core::align::{AlignOptions, FragmentOptions, WordModel};
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
//! let found = model.fragments("Rename the file manager", &FragmentOptions::default());
//! let f = &found[0];
//! assert!(f.source.ends_with("file manager") && f.target.ends_with("Dateiverwaltung"), "{f:?}");
//! assert!(f.agreeing >= 2 && f.example.is_some());
//! ```

use serde::{Deserialize, Serialize};

use super::{fold, words, WordModel};
use crate::model::entry::EntryId;

/// Which stretches count as fragments.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FragmentOptions {
    /// The fewest words of a fragment; default 2 (one word is a term, not a fragment).
    pub min_words: usize,
    /// The fewest phrase pairs that agree on its target; default 2.
    pub min_agreeing: u32,
    /// The least share of the stretch's phrase pairs that agree on its target; default
    /// 0.5: a stretch translated several ways is no consistent evidence.
    pub min_share: f64,
    /// The least share of the memory's entries holding the stretch whose target uses
    /// its translation, counted at training ([`WordModel::phrase_usage`]); default
    /// 0.0 (no check). A model trained before the count passes every stretch.
    pub min_usage: f64,
    /// The least share of the stretch's phrase pairs whose target must hold a word at
    /// either end of the dominant target for the fragment's target to keep it; default
    /// 0.7. An end word fewer hold (an article or a preposition whose form the
    /// sentence decides, a verb the memory renders in several registers) is left out,
    /// and the fragment offers what the translations agree on. 0.0 keeps the dominant
    /// target whole.
    pub edge_share: f64,
}

impl Default for FragmentOptions {
    fn default() -> Self {
        FragmentOptions { min_words: 2, min_agreeing: 2, min_share: 0.5, min_usage: 0.0, edge_share: 0.7 }
    }
}

crate::setters!(FragmentOptions {
    min_words: usize,
    min_agreeing: u32,
    min_share: f64,
    min_usage: f64,
    edge_share: f64
});

/// A stretch of a segment's source the memory holds with a consistent translation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Fragment {
    /// The stretch, as the segment writes it.
    pub source: String,
    /// Its first and last word, counted in the segment's words from 0.
    pub words: (usize, usize),
    /// The target text the memory translates it with, as the memory writes it: its
    /// dominant translation, less the end words too few of its translations hold
    /// ([`FragmentOptions::edge_share`]).
    pub target: String,
    /// How many times the memory translated the stretch with a text holding that one.
    pub agreeing: u32,
    /// How many times the memory translated the stretch (with any text kept).
    pub seen: u32,
    /// One entry that holds the pair, when the model was trained with entry ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<EntryId>,
}

/// English words that carry no meaning of their own: a stretch made of them only (`of
/// the`, `it is`) is no fragment and no term, however consistently it is translated.
pub(crate) const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before",
    "being", "both", "but", "by", "can", "could", "did", "do", "does", "each", "either", "for", "from",
    "had", "has", "have", "he", "her", "here", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "may", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "of", "on", "once", "only", "or",
    "other", "our", "out", "over", "shall", "she", "should", "so", "some", "such", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "too", "up", "us", "very",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
    "would", "you", "your",
];

/// Whether `word` (folded) carries meaning: not a stop word, not a number.
pub(crate) fn is_content_word(word: &str) -> bool {
    !STOP_WORDS.contains(&word) && !word.chars().all(|c| c.is_numeric())
}

/// Whether two words are the same word as the model compares them (in lower case;
/// phrase targets are NFC already), without allocating.
fn same_word(a: &str, b: &str) -> bool {
    a.chars().flat_map(char::to_lowercase).eq(b.chars().flat_map(char::to_lowercase))
}

/// Of the dominant target `list[0]` of a stretch seen `seen` times, the part its
/// translations agree on: the end words fewer than `edge_share` of the sightings hold
/// are left out, one word at least kept. With how many sightings hold that part, as
/// words in a row, in any case.
fn agreed_target(list: &[(String, u32)], seen: u32, edge_share: f64) -> (&str, u32) {
    let (top, count) = (&list[0].0, list[0].1);
    if list.len() == 1 || edge_share <= 0.0 {
        return (top, count);
    }
    let spans: Vec<Vec<(usize, usize)>> = list.iter().map(|(t, _)| words(t)).collect();
    let word = |k: usize, (a, b): (usize, usize)| &list[k].0[a..b];
    let top_words = &spans[0];
    let holding = |w: &str| -> u32 {
        (0..list.len())
            .filter(|&k| spans[k].iter().any(|&s| same_word(word(k, s), w)))
            .map(|k| list[k].1)
            .sum()
    };
    let wanted = edge_share * f64::from(seen);
    let (mut first, mut end) = (0, top_words.len());
    while end - first > 1 && f64::from(holding(word(0, top_words[first]))) < wanted {
        first += 1;
    }
    while end - first > 1 && f64::from(holding(word(0, top_words[end - 1]))) < wanted {
        end -= 1;
    }
    if first == end {
        return (top, count);
    }
    let core = &top_words[first..end];
    let agreeing = (0..list.len())
        .filter(|&k| {
            spans[k]
                .windows(core.len())
                .any(|win| win.iter().zip(core).all(|(&s, &c)| same_word(word(k, s), word(0, c))))
        })
        .map(|k| list[k].1)
        .sum();
    (&top[core[0].0..core[core.len() - 1].1], agreeing)
}

/// How far a fragment may be trusted, from 0 to 1: the share of the stretch's phrase
/// pairs that agree, counted as if two more had not (two sightings of two weigh less
/// than forty of forty), or the share of the memory's entries holding the stretch that
/// use its translation ([`WordModel::phrase_usage`]) when that is less.
fn confidence(agreeing: u32, seen: u32, usage: Option<f64>) -> f64 {
    let share = f64::from(agreeing) / f64::from(seen + 2);
    usage.map_or(share, |u| share.min(u))
}

/// A stretch found, as [`Fragment`] holds it but borrowing its target from the model:
/// most are not kept.
struct Found<'m> {
    words: (usize, usize),
    target: &'m str,
    agreeing: u32,
    seen: u32,
    example: Option<EntryId>,
}

/// Whether two neighbouring words may sit in one fragment: only white space (or one
/// hyphen or slash) between them. A code (U+FFFC) or a punctuation mark ends a stretch.
fn joinable(gap: &str) -> bool {
    gap.chars().all(char::is_whitespace) || matches!(gap.trim(), "-" | "/")
}

impl WordModel {
    /// The fragments of `text` (a segment's text with codes as U+FFFC,
    /// [`text_of`](super::text_of)); see [`Fragment`] and [`FragmentOptions`].
    pub fn fragments(&self, text: &str, opts: &FragmentOptions) -> Vec<Fragment> {
        let ws = words(text);
        let folded: Vec<String> = ws.iter().map(|&(a, b)| fold(&text[a..b])).collect();
        let n = ws.len();
        let longest = self.opts.max_phrase_words.max(opts.min_words);
        // Each start's candidates: (last word, index in `all`, confidence).
        let mut found: Vec<Vec<(usize, usize, f64)>> = vec![Vec::new(); n];
        // Every stretch found; only the kept ones become fragments.
        let mut all: Vec<Found<'_>> = Vec::new();
        for i in 0..n {
            let mut last = i;
            while last + 1 < n && last + 1 < i + longest && joinable(&text[ws[last].1..ws[last + 1].0]) {
                last += 1;
            }
            for j in (i + opts.min_words.max(1) - 1..=last).rev() {
                if !folded[i..=j].iter().any(|w| is_content_word(w)) {
                    continue;
                }
                let key = folded[i..=j].join(" ");
                let list = self.phrases(&key);
                if list.is_empty() {
                    continue;
                }
                let seen: u32 = list.iter().map(|l| l.1).sum();
                let (target, agreeing) = agreed_target(list, seen, opts.edge_share);
                if agreeing < opts.min_agreeing || f64::from(agreeing) < opts.min_share * f64::from(seen) {
                    continue;
                }
                let usage = self.phrase_usage(&key);
                if usage.is_some_and(|u| u < opts.min_usage) {
                    continue;
                }
                let example =
                    self.phrase_examples(&key).first().filter(|&&id| id != 0).map(|&id| EntryId(id));
                found[i].push((j, all.len(), confidence(agreeing, seen, usage)));
                all.push(Found { words: (i, j), target, agreeing, seen, example });
            }
        }
        // The set covering most words, each word weighed by its fragment's confidence,
        // then with the fewest (so the longest) fragments: best[i] over the words from i on.
        let mut best: Vec<(f64, usize, Option<usize>)> = vec![(0.0, 0, None); n + 1];
        for i in (0..n).rev() {
            best[i] = (best[i + 1].0, best[i + 1].1, None);
            for &(j, k, confidence) in &found[i] {
                let (covered, count, _) = best[j + 1];
                let with = (covered + (j - i + 1) as f64 * confidence, count + 1);
                let tie = (with.0 - best[i].0).abs() <= 1e-9;
                if (with.0 > best[i].0 && !tie) || (tie && with.1 < best[i].1) {
                    best[i] = (with.0, with.1, Some(k));
                }
            }
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < n {
            match best[i].2 {
                Some(k) => {
                    let f = &all[k];
                    let (first, last) = f.words;
                    i = last + 1;
                    out.push(Fragment {
                        source: text[ws[first].0..ws[last].1].to_owned(),
                        words: f.words,
                        target: f.target.to_owned(),
                        agreeing: f.agreeing,
                        seen: f.seen,
                        example: f.example,
                    });
                }
                None => i += 1,
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::AlignOptions;

    fn model() -> WordModel {
        let verbs = [("Open", "Öffne"), ("Close", "Schließe"), ("Print", "Drucke"), ("Save", "Speichere")];
        let nouns = [
            ("file manager", "Dateiverwaltung"),
            ("web page", "Webseite"),
            ("text document", "Textdokument"),
        ];
        let mut pairs = Vec::new();
        for (v, vt) in verbs {
            for (n, nt) in nouns {
                pairs.push(((pairs.len() + 1) as i64, format!("{v} the {n}"), format!("{vt} die {nt}")));
            }
        }
        WordModel::train_identified(pairs, &AlignOptions::default().iterations(10)).0
    }

    #[test]
    fn stretches_stop_at_codes_and_punctuation() {
        let m = model();
        let o = FragmentOptions::default();
        assert!(m
            .fragments("Rename the file manager", &o)
            .iter()
            .any(|f| f.source.ends_with("file manager")));
        // A code between the words: no stretch across it.
        assert!(!m
            .fragments("Rename the file \u{FFFC} manager", &o)
            .iter()
            .any(|f| f.words.1 > f.words.0 + 1));
        assert!(m.fragments("the file, manager", &o).iter().all(|f| !f.source.contains(',')));
    }

    #[test]
    fn stop_words_alone_are_no_fragment_and_fragments_do_not_overlap() {
        let m = model();
        let found = m.fragments("Open the web page and the file manager", &FragmentOptions::default());
        assert!(found.len() >= 2, "{found:?}");
        assert!(found.iter().all(|f| f.source.split(' ').any(|w| is_content_word(&fold(w)))));
        for w in found.windows(2) {
            assert!(w[0].words.1 < w[1].words.0, "{found:?}");
        }
    }

    #[test]
    fn a_target_leaves_out_the_end_words_its_translations_disagree_on() {
        // "the file manager" is "die Dateiverwaltung" as an object, "der Dateiverwaltung"
        // after a noun: the article is the sentence's, the noun the memory's.
        let mut pairs = Vec::new();
        for (v, vt) in [("Open", "Öffne"), ("Close", "Schließe"), ("Print", "Drucke")] {
            pairs.push((format!("{v} the file manager"), format!("{vt} die Dateiverwaltung")));
            pairs.push((format!("{v} the web page"), format!("{vt} die Webseite")));
        }
        for (n, nt) in [("Name", "Name"), ("Size", "Größe")] {
            pairs.push((format!("{n} of the file manager"), format!("{nt} der Dateiverwaltung")));
            pairs.push((format!("{n} of the web page"), format!("{nt} der Webseite")));
        }
        let (m, _) = WordModel::train(pairs, &AlignOptions::default().iterations(10));
        let whole = m.fragments("Rename the file manager", &FragmentOptions::default().edge_share(0.0));
        assert!(whole.iter().any(|f| f.target == "die Dateiverwaltung" && f.agreeing == 3), "{whole:?}");
        let found = m.fragments("Rename the file manager", &FragmentOptions::default());
        let f = found.iter().find(|f| f.source.ends_with("file manager")).expect("a fragment");
        assert_eq!(f.target, "Dateiverwaltung", "{found:?}");
        assert_eq!(f.agreeing, f.seen, "{found:?}");
    }

    #[test]
    fn a_long_stretch_translated_many_ways_gives_way_to_a_consistent_shorter_one() {
        // "the file manager" is translated with two articles, "file manager" always alike
        // and more often: three words of little confidence weigh less than two of much.
        let mut pairs = Vec::new();
        let verbs = [("Open", "Öffne"), ("Close", "Schließe"), ("Print", "Drucke"), ("Save", "Speichere")];
        for (v, vt) in verbs {
            for (n, nt) in [("file manager", "Dateiverwaltung"), ("web page", "Webseite")] {
                pairs.push((format!("{v} the {n}"), format!("{vt} die {nt}")));
            }
        }
        for (n, nt) in [("Name", "Name"), ("Size", "Größe"), ("Title", "Titel")] {
            for (o, ot) in [("file manager", "Dateiverwaltung"), ("web page", "Webseite")] {
                pairs.push((format!("{n} of the {o}"), format!("{nt} der {ot}")));
            }
        }
        for (p, pt) in [("Trust", "Vertraue"), ("Thank", "Danke")] {
            for (o, ot) in [("file manager", "Dateiverwaltung"), ("web page", "Webseite")] {
                pairs.push((format!("{p} the {o}"), format!("{pt} der {ot}")));
            }
        }
        for _ in 0..4 {
            pairs.push(("File manager".to_owned(), "Dateiverwaltung".to_owned()));
            pairs.push(("Web page".to_owned(), "Webseite".to_owned()));
        }
        let (m, _) = WordModel::train(pairs, &AlignOptions::default().iterations(10));
        // Every stretch is counted whole: the articles stay in the longer one's target.
        let o = FragmentOptions::default().edge_share(0.0);
        let found = m.fragments("Rename the file manager", &o);
        assert!(
            found.iter().any(|f| f.source == "file manager" && f.target == "Dateiverwaltung"),
            "{found:?}"
        );
    }

    #[test]
    fn the_agreed_target_counts_every_translation_holding_it_in_any_case() {
        let list = |l: &[(&str, u32)]| l.iter().map(|&(t, n)| (t.to_owned(), n)).collect::<Vec<_>>();
        // The article is held by three in four, whichever its case: kept, and pooled.
        let account =
            list(&[("Das Konto", 25), ("das Konto", 24), ("Konto", 9), ("dem Konto", 2), ("der", 2)]);
        assert_eq!(agreed_target(&account, 62, 0.7), ("Das Konto", 49));
        // Held by about half: left out; the noun every translation holds remains.
        let translation = list(&[("Die Übersetzung", 24), ("der Übersetzung", 15), ("Übersetzung", 2)]);
        assert_eq!(agreed_target(&translation, 41, 0.7), ("Übersetzung", 41));
        assert_eq!(agreed_target(&translation, 41, 0.0), ("Die Übersetzung", 24));
        // No word is held widely enough: the last one stays.
        let split = list(&[("Wähle alle", 3), ("Markiere jedes", 3)]);
        assert_eq!(agreed_target(&split, 6, 0.7), ("alle", 3));
    }

    #[test]
    fn a_model_trained_without_ids_names_no_example() {
        let pairs = [("the file manager", "die Dateiverwaltung"), ("a file manager", "eine Dateiverwaltung")];
        let (m, _) = WordModel::train(
            pairs.iter().map(|(s, t)| (s.to_string(), t.to_string())),
            &AlignOptions::default().iterations(10),
        );
        let found = m.fragments("my file manager", &FragmentOptions::default());
        assert!(found.iter().all(|f| f.example.is_none()), "{found:?}");
    }
}
