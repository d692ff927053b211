//! Word alignment learned from the memory itself, and the phrase pairs it yields: the
//! evidence the word repair ([`crate::repair`]) draws on.
//!
//! Training is expectation–maximization over the memory's sentence pairs of one locale
//! pair, in both directions: IBM Model 1, or (the default) fast_align's variant with a
//! prior that favours links near the diagonal (`tension`, with a fixed probability for
//! the empty word). Words are runs of letters and digits (an apostrophe between two of
//! them stays inside), compared in lower case; codes and punctuation are not words. A
//! sentence pair's alignment is the best link of each word in each direction,
//! symmetrized by grow-diag. Phrase pairs of up to [`AlignOptions::max_phrase_words`]
//! source words consistent with those alignments are counted over the memory; the
//! target side keeps the text as the memory wrote it (case, hyphens, spaces).
//!
//! Bounds: pairs longer than [`AlignOptions::max_words`] words on either side are left
//! out of training (counted in [`TrainReport::skipped`]), the saved table keeps only
//! probabilities of at least [`AlignOptions::min_prob`], and phrase pairs seen fewer than
//! [`AlignOptions::min_phrase_count`] times are dropped, the most frequent
//! [`AlignOptions::max_phrase_targets`] kept per source phrase.
//!
//! ```
//! use cmem_core::align::{AlignOptions, WordModel};
//!
//! let pairs = [
//!     ("the red house", "das rote Haus"),
//!     ("the house", "das Haus"),
//!     ("the red car", "das rote Auto"),
//!     ("a car", "ein Auto"),
//! ];
//! let opts = AlignOptions::default().min_phrase_count(1);
//! let (model, report) = WordModel::train(pairs.iter().map(|(s, t)| (s.to_string(), t.to_string())), &opts);
//! assert_eq!(report.pairs, 4);
//! let a = model.align("the red car", "das rote Auto");
//! assert!(a.links.contains(&(2, 2)), "{:?}", a.links);
//! assert_eq!(model.phrases("car")[0].0, "Auto");
//! ```

mod em;
mod fragments;
mod phrase;
mod sym;
mod terms;

pub use fragments::{Fragment, FragmentOptions};
pub use terms::{uses_translation, FoundTerm, Glossary, Term, TermOptions};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};

/// How the aligner trains and what it keeps.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AlignOptions {
    /// EM rounds per direction; default 5.
    pub iterations: usize,
    /// fast_align's diagonal tension λ; `None` is IBM Model 1. Default 4.
    pub tension: Option<f64>,
    /// With a tension, the probability of the empty word; default 0.08.
    pub null_prob: f64,
    /// Pairs with more words than this on either side are not trained on; default 60.
    pub max_words: usize,
    /// The least translation probability saved with the model; default 0.01.
    pub min_prob: f32,
    /// The most source words of a phrase pair; default 4.
    pub max_phrase_words: usize,
    /// The fewest sightings a phrase pair needs to be kept; default 2.
    pub min_phrase_count: u32,
    /// The most target phrases kept per source phrase; default 8.
    pub max_phrase_targets: usize,
}

impl Default for AlignOptions {
    fn default() -> Self {
        AlignOptions {
            iterations: 5,
            tension: Some(4.0),
            null_prob: 0.08,
            max_words: 60,
            min_prob: 0.01,
            max_phrase_words: 4,
            min_phrase_count: 2,
            max_phrase_targets: 8,
        }
    }
}

crate::setters!(AlignOptions {
    iterations: usize,
    tension: Option<f64>,
    null_prob: f64,
    max_words: usize,
    min_prob: f32,
    max_phrase_words: usize,
    min_phrase_count: u32,
    max_phrase_targets: usize,
});

/// What a training run used and kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TrainReport {
    /// Sentence pairs trained on.
    pub pairs: usize,
    /// Pairs left out: a side without words, or longer than `max_words`.
    pub skipped: usize,
    /// Distinct source words.
    pub source_words: usize,
    /// Distinct target words.
    pub target_words: usize,
    /// Translation-table cells saved (both directions).
    pub table_cells: usize,
    /// Phrase pairs kept.
    pub phrase_pairs: usize,
}

/// The byte ranges of the words of `text`: runs of letters and digits (with their
/// combining marks), an apostrophe between two of them inside the word. Codes (U+FFFC in a skeleton) and punctuation are
/// not words.
pub fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let inner_apostrophe = (c == '\'' || c == '’')
            && start.is_some()
            && chars.peek().is_some_and(|&(_, n)| n.is_alphanumeric());
        // A combining mark continues its word: a decomposed `ö` is one word, as composed.
        let mark = start.is_some() && unicode_normalization::char::is_combining_mark(c);
        if c.is_alphanumeric() || inner_apostrophe || mark {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            out.push((s, i));
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// One direction's translation table, `t(f | e)`, rows by `e` (0 = the empty word),
/// columns sorted.
#[derive(Debug, Clone, Default, PartialEq)]
struct Table {
    rows: Vec<usize>,
    cols: Vec<u32>,
    prob: Vec<f32>,
}

impl Table {
    /// A table over sorted, distinct `cells` (`e << 32 | f`), every probability `init`.
    fn from_cells(e_vocab: usize, cells: &[u64], init: f32) -> Table {
        let mut rows = vec![0usize; e_vocab + 1];
        for &c in cells {
            rows[(c >> 32) as usize + 1] += 1;
        }
        for k in 1..rows.len() {
            rows[k] += rows[k - 1];
        }
        Table { rows, cols: cells.iter().map(|&c| c as u32).collect(), prob: vec![init; cells.len()] }
    }

    fn find(&self, e: u32, f: u32) -> Option<usize> {
        let (a, b) = (*self.rows.get(e as usize)?, *self.rows.get(e as usize + 1)?);
        self.cols[a..b].binary_search(&f).ok().map(|k| a + k)
    }

    fn prob_of(&self, e: u32, f: u32) -> f64 {
        self.find(e, f).map_or(0.0, |k| f64::from(self.prob[k]))
    }

    /// Rows as lists of `(f, t)` with `t ≥ min`.
    fn to_rows(&self, min: f32) -> Vec<Vec<(u32, f32)>> {
        (0..self.rows.len().saturating_sub(1))
            .map(|e| {
                (self.rows[e]..self.rows[e + 1])
                    .filter(|&k| self.prob[k] >= min)
                    .map(|k| (self.cols[k], self.prob[k]))
                    .collect()
            })
            .collect()
    }

    fn from_rows(rows: &[Vec<(u32, f32)>]) -> Table {
        let mut t = Table { rows: vec![0], ..Table::default() };
        for row in rows {
            let mut row = row.clone();
            row.sort_unstable_by_key(|c| c.0);
            row.dedup_by_key(|c| c.0);
            for (f, p) in row {
                t.cols.push(f);
                t.prob.push(p);
            }
            t.rows.push(t.cols.len());
        }
        t
    }
}

/// Interned lower-case words; id 0 is the empty word.
#[derive(Debug, Clone, Default)]
struct Vocab {
    words: Vec<String>,
    ids: FxHashMap<String, u32>,
}

impl Vocab {
    fn new() -> Vocab {
        Vocab::from_words(vec![String::new()])
    }

    fn from_words(words: Vec<String>) -> Vocab {
        let ids = words.iter().enumerate().map(|(i, w)| (w.clone(), i as u32)).collect();
        Vocab { words, ids }
    }

    fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.words.len() as u32;
        self.words.push(word.to_owned());
        self.ids.insert(word.to_owned(), id);
        id
    }

    /// The id of `word`, or `u32::MAX` (no probability anywhere) when unknown.
    fn id(&self, word: &str) -> u32 {
        self.ids.get(word).copied().unwrap_or(u32::MAX)
    }
}

/// A sentence pair's words and links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alignment {
    /// The source's words, as byte ranges.
    pub source_words: Vec<(usize, usize)>,
    /// The target's words, as byte ranges.
    pub target_words: Vec<(usize, usize)>,
    /// `(source word, target word)` links, sorted.
    pub links: Vec<(usize, usize)>,
}

/// A locale pair's word model: the translation tables of both directions and the phrase
/// pairs counted over the memory. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct WordModel {
    opts: AlignOptions,
    source: Vocab,
    target: Vocab,
    /// `t(target | source)`.
    forward: Table,
    /// `t(source | target)`.
    backward: Table,
    /// Lower-case source words joined by one space → target texts with their counts,
    /// most first.
    phrases: FxHashMap<String, Vec<(String, u32)>>,
    /// Per source phrase, the id of one entry that holds each of its target texts, in the
    /// order of `phrases` (0 when trained without ids): the fragments' example.
    examples: FxHashMap<String, Vec<i64>>,
    /// Per phrase a term or fragment may come from (a folded source phrase whose dominant
    /// translation has at least two sightings and half of them): of the training pairs
    /// whose source holds it, how many have a target that uses that translation, and how
    /// many there are. Empty in a model saved before it was counted.
    phrase_usage: FxHashMap<String, (u32, u32)>,
    report: TrainReport,
    /// The mined glossary, made when first asked for.
    glossary: std::sync::OnceLock<std::sync::Arc<Glossary>>,
}

/// The saved form.
#[derive(Serialize, Deserialize)]
struct Saved {
    format: u32,
    iterations: usize,
    tension: Option<f64>,
    null_prob: f64,
    max_words: usize,
    source_words: Vec<String>,
    target_words: Vec<String>,
    forward: Vec<Vec<(u32, f32)>>,
    backward: Vec<Vec<(u32, f32)>>,
    phrases: Vec<(String, Vec<(String, u32)>)>,
    /// Absent in models saved before fragments: no examples then.
    #[serde(default)]
    examples: Vec<(String, Vec<i64>)>,
    /// Absent in models saved before the usage check: every term and fragment passes it.
    #[serde(default)]
    phrase_usage: Vec<(String, u32, u32)>,
    report: TrainReport,
}

const FORMAT: u32 = 1;

fn lower_words(text: &str, vocab: &mut Vocab) -> Vec<u32> {
    words(text).into_iter().map(|(a, b)| vocab.intern(&fold(&text[a..b]))).collect()
}

fn known_words(text: &str, vocab: &Vocab) -> Vec<u32> {
    words(text).into_iter().map(|(a, b)| vocab.id(&fold(&text[a..b]))).collect()
}

/// A word as the model compares it: NFC (UAX #15), in lower case. The model's words come
/// from NFC text ([`text_of`]); a target read as stored, which may be decomposed, is
/// folded word by word so its byte ranges stay those of the stored text.
pub fn fold(word: &str) -> String {
    use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
    if is_nfc_quick(word.chars()) == IsNormalized::Yes {
        word.to_lowercase()
    } else {
        word.nfc().collect::<String>().to_lowercase()
    }
}

impl WordModel {
    /// Trains on `pairs` of (source, target) texts (codes as U+FFFC, see
    /// [`crate::align::text_of`]); see the [module docs](self).
    pub fn train(
        pairs: impl IntoIterator<Item = (String, String)>,
        opts: &AlignOptions,
    ) -> (WordModel, TrainReport) {
        WordModel::train_identified(pairs.into_iter().map(|(s, t)| (0, s, t)), opts)
    }

    /// As [`train`](Self::train), over `(entry id, source, target)`: each phrase pair
    /// keeps the id of one entry it was seen in, the example a [`Fragment`] names.
    pub fn train_identified(
        pairs: impl IntoIterator<Item = (i64, String, String)>,
        opts: &AlignOptions,
    ) -> (WordModel, TrainReport) {
        let (mut source, mut target) = (Vocab::new(), Vocab::new());
        let mut pair_ids: Vec<i64> = Vec::new();
        let mut ids: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        let mut texts: Vec<(String, String)> = Vec::new();
        let mut report = TrainReport::default();
        for (id, s, t) in pairs {
            let (sw, tw) = (words(&s), words(&t));
            if sw.is_empty() || tw.is_empty() || sw.len() > opts.max_words || tw.len() > opts.max_words {
                report.skipped += 1;
                continue;
            }
            ids.push((lower_words(&s, &mut source), lower_words(&t, &mut target)));
            texts.push((s, t));
            pair_ids.push(id);
        }
        report.pairs = ids.len();
        report.source_words = source.words.len() - 1;
        report.target_words = target.words.len() - 1;
        let forward = em::train(&em::Bitext { pairs: &ids, f_first: false }, source.words.len(), opts);
        let backward = em::train(&em::Bitext { pairs: &ids, f_first: true }, target.words.len(), opts);
        let mut model = WordModel {
            opts: opts.clone(),
            source,
            target,
            forward,
            backward,
            phrases: FxHashMap::default(),
            examples: FxHashMap::default(),
            phrase_usage: FxHashMap::default(),
            report: TrainReport::default(),
            glossary: std::sync::OnceLock::new(),
        };
        model.count_phrases(&ids, &texts, &pair_ids);
        model.phrase_usage = model.count_phrase_usage(&texts);
        // What is saved is what is used: prune now, so a model in memory and one loaded
        // back align alike.
        model.forward = Table::from_rows(&model.forward.to_rows(opts.min_prob));
        model.backward = Table::from_rows(&model.backward.to_rows(opts.min_prob));
        report.table_cells = model.forward.cols.len() + model.backward.cols.len();
        report.phrase_pairs = model.phrases.values().map(Vec::len).sum();
        model.report = report.clone();
        (model, report)
    }

    fn count_phrases(&mut self, ids: &[(Vec<u32>, Vec<u32>)], texts: &[(String, String)], pair_ids: &[i64]) {
        let mut keys: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
        let mut key_list: Vec<Box<[u32]>> = Vec::new();
        let mut targets: FxHashMap<Box<str>, u32> = FxHashMap::default();
        let mut target_list: Vec<Box<str>> = Vec::new();
        let mut counts: FxHashMap<u64, (u32, i64)> = FxHashMap::default();
        for (((s, t), (_, ttext)), &pair_id) in ids.iter().zip(texts).zip(pair_ids) {
            let links = self.links_of(s, t);
            let tw = words(ttext);
            for (s1, s2, t1, t2) in phrase::extract(&links, s.len(), self.opts.max_phrase_words) {
                let key = &s[s1..=s2];
                let k = *keys.entry(key.into()).or_insert_with(|| {
                    key_list.push(key.into());
                    key_list.len() as u32 - 1
                });
                let text = &ttext[tw[t1].0..tw[t2].1];
                let v = match targets.get(text) {
                    Some(&v) => v,
                    None => {
                        target_list.push(text.into());
                        let v = target_list.len() as u32 - 1;
                        targets.insert(text.into(), v);
                        v
                    }
                };
                counts.entry((u64::from(k) << 32) | u64::from(v)).or_insert((0, pair_id)).0 += 1;
            }
        }
        let mut by_key: FxHashMap<u32, Vec<(u32, u32, i64)>> = FxHashMap::default();
        for (kv, (n, example)) in counts {
            if n >= self.opts.min_phrase_count {
                by_key.entry((kv >> 32) as u32).or_default().push((kv as u32, n, example));
            }
        }
        for (k, mut list) in by_key {
            // Most first, then by text: the same model from the same memory.
            list.sort_unstable_by(|a, b| {
                b.1.cmp(&a.1).then_with(|| target_list[a.0 as usize].cmp(&target_list[b.0 as usize]))
            });
            list.truncate(self.opts.max_phrase_targets);
            let key: Vec<&str> =
                key_list[k as usize].iter().map(|&w| self.source.words[w as usize].as_str()).collect();
            let key = key.join(" ");
            if list.iter().any(|l| l.2 != 0) {
                self.examples.insert(key.clone(), list.iter().map(|l| l.2).collect());
            }
            self.phrases.insert(
                key,
                list.into_iter().map(|(v, n, _)| (target_list[v as usize].to_string(), n)).collect(),
            );
        }
    }

    /// The symmetrized links of a pair of word-id sequences.
    fn links_of(&self, s: &[u32], t: &[u32]) -> Vec<(usize, usize)> {
        let to_source = sym::viterbi(&self.forward, &self.opts, s, t);
        let to_target = sym::viterbi(&self.backward, &self.opts, t, s);
        sym::grow_diag(&to_source, &to_target, s.len(), t.len())
    }

    /// The words of `source` and `target` and the links between them.
    pub fn align(&self, source: &str, target: &str) -> Alignment {
        let (s, t) = (known_words(source, &self.source), known_words(target, &self.target));
        Alignment { source_words: words(source), target_words: words(target), links: self.links_of(&s, &t) }
    }

    /// The target texts of the phrase pairs whose source is `words` (lower-case words
    /// joined by one space), with their counts, most first.
    pub fn phrases(&self, words: &str) -> &[(String, u32)] {
        self.phrases.get(words).map_or(&[], Vec::as_slice)
    }

    /// The id of an entry holding each of [`phrases`](Self::phrases)`(words)`, in that
    /// order; empty when the model was trained without ids.
    pub fn phrase_examples(&self, words: &str) -> &[i64] {
        self.examples.get(words).map_or(&[], Vec::as_slice)
    }

    /// Every source phrase with its target texts and counts, in no order: what a
    /// glossary is mined from.
    pub fn all_phrases(&self) -> impl Iterator<Item = (&str, &[(String, u32)])> {
        self.phrases.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// `t(target word | source word)`, both in lower case; 0 when unseen.
    pub fn prob(&self, source: &str, target: &str) -> f64 {
        self.forward.prob_of(self.source.id(source), self.target.id(target))
    }

    /// Whether the memory's targets hold `word` (in lower case).
    pub fn target_has(&self, word: &str) -> bool {
        self.target.id(word) != u32::MAX
    }

    /// What the training run used and kept.
    pub fn report(&self) -> &TrainReport {
        &self.report
    }

    /// The saved form (JSON), what [`WordModel::from_saved`] reads.
    pub fn to_saved(&self) -> String {
        let mut phrases: Vec<(String, Vec<(String, u32)>)> =
            self.phrases.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        phrases.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut examples: Vec<(String, Vec<i64>)> =
            self.examples.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        examples.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut phrase_usage: Vec<(String, u32, u32)> =
            self.phrase_usage.iter().map(|(k, &(u, n))| (k.clone(), u, n)).collect();
        phrase_usage.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let saved = Saved {
            format: FORMAT,
            iterations: self.opts.iterations,
            tension: self.opts.tension,
            null_prob: self.opts.null_prob,
            max_words: self.opts.max_words,
            source_words: self.source.words.clone(),
            target_words: self.target.words.clone(),
            forward: self.forward.to_rows(0.0),
            backward: self.backward.to_rows(0.0),
            phrases,
            examples,
            phrase_usage,
            report: self.report.clone(),
        };
        serde_json::to_string(&saved).unwrap_or_default()
    }

    /// Reads a model written by [`WordModel::to_saved`].
    ///
    /// # Errors
    /// [`ErrorKind::Corrupt`] when `text` is not a saved model of this format.
    pub fn from_saved(text: &str) -> Result<WordModel> {
        let bad = |m: String| Error::new(ErrorKind::Corrupt, format!("saved word model: {m}"));
        let s: Saved = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if s.format != FORMAT {
            return Err(bad(format!("format {} (this program reads {FORMAT}); train it again", s.format)));
        }
        let in_range =
            |rows: &[Vec<(u32, f32)>], n: usize| rows.iter().flatten().all(|&(f, _)| (f as usize) < n);
        if s.forward.len() != s.source_words.len()
            || s.backward.len() != s.target_words.len()
            || !in_range(&s.forward, s.target_words.len())
            || !in_range(&s.backward, s.source_words.len())
        {
            return Err(bad("its tables do not fit its vocabularies".into()));
        }
        let opts = AlignOptions::default()
            .iterations(s.iterations)
            .tension(s.tension)
            .null_prob(s.null_prob)
            .max_words(s.max_words);
        Ok(WordModel {
            opts,
            source: Vocab::from_words(s.source_words),
            target: Vocab::from_words(s.target_words),
            forward: Table::from_rows(&s.forward),
            backward: Table::from_rows(&s.backward),
            phrases: s.phrases.into_iter().collect(),
            examples: s.examples.into_iter().collect(),
            phrase_usage: s.phrase_usage.into_iter().map(|(k, u, n)| (k, (u, n))).collect(),
            report: s.report,
            glossary: std::sync::OnceLock::new(),
        })
    }
}

/// The text of `runs` with each code as U+FFFC (not a word), NFC: what the aligner reads.
pub fn text_of(runs: &[crate::model::run::Run]) -> String {
    crate::model::run::skeleton(runs)
}

#[cfg(test)]
mod tests;

/// The key a locale pair's word model is kept under: the two language subtags
/// (`en de`), since word correspondences do not depend on the region.
pub fn pair_key(source: &crate::model::locale::Locale, target: &crate::model::locale::Locale) -> String {
    format!("{} {}", source.language(), target.language())
}

/// The key under which a store's meta table counts the saves of the word model of the
/// pair `pair` (a [`pair_key`]): the stamp [`ModelCache::get_or_load_checked`] compares.
pub fn stamp_key(pair: &str) -> String {
    format!("word_model_saves {pair}")
}

/// Word models read once per memory and process: what a store that persists them keeps
/// beside its connection. A pair found untrained is remembered as such too. With
/// [`get_or_load_checked`](Self::get_or_load_checked) a model another process saved is
/// seen at the next read after it: while the store's [change mark](crate::store::IndexControl::change_mark)
/// stays, the kept model is used; when it moves, the pair's *stamp* (a value the store
/// changes with every save of the pair's model) is read, and the model is read again
/// only when the stamp moved too. With [`get_or_load`](Self::get_or_load) it is seen
/// when the memory is opened again.
#[derive(Debug, Default)]
pub struct ModelCache {
    models: std::sync::RwLock<FxHashMap<String, Kept>>,
}

/// A pair's model as read, with the change mark and stamp it was read under.
#[derive(Debug, Clone)]
struct Kept {
    model: Option<std::sync::Arc<WordModel>>,
    /// `None`: not known (the model was saved by this process, or read unchecked).
    mark: Option<u64>,
    stamp: Option<String>,
}

impl ModelCache {
    fn kept(&self, key: &str) -> Option<Kept> {
        self.models.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(key).cloned()
    }

    fn keep(&self, key: &str, kept: Kept) {
        self.models.write().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key.to_owned(), kept);
    }

    /// The model of the pair `key`, read with `load` (its saved form, or `None` when not
    /// trained) the first time.
    ///
    /// # Errors
    /// What `load` returns, or a saved form that does not read.
    pub fn get_or_load(
        &self,
        key: &str,
        load: impl FnOnce() -> Result<Option<String>>,
    ) -> Result<Option<std::sync::Arc<WordModel>>> {
        if let Some(k) = self.kept(key) {
            return Ok(k.model);
        }
        let model = parse(load()?)?;
        self.keep(key, Kept { model: model.clone(), mark: None, stamp: None });
        Ok(model)
    }

    /// The model of the pair `key`, kept while the store's change mark is `mark`; when
    /// the mark moved (or `mark` is `None`: the store cannot tell), the pair's `stamp`
    /// is read and the model read again with `load` only when the stamp moved too.
    ///
    /// # Errors
    /// What `stamp` or `load` return, or a saved form that does not read.
    pub fn get_or_load_checked(
        &self,
        key: &str,
        mark: Option<u64>,
        stamp: impl FnOnce() -> Result<Option<String>>,
        load: impl FnOnce() -> Result<Option<String>>,
    ) -> Result<Option<std::sync::Arc<WordModel>>> {
        let kept = self.kept(key);
        if let Some(k) = &kept {
            if mark.is_some() && k.mark == mark {
                return Ok(k.model.clone());
            }
        }
        // The stamp before the model: a save between the two leaves a newer model under
        // an older stamp, read once more next time, never an older model kept.
        let now = stamp()?;
        if let Some(k) = kept.filter(|k| k.stamp == now) {
            self.keep(key, Kept { mark, ..k.clone() });
            return Ok(k.model);
        }
        let model = parse(load()?)?;
        self.keep(key, Kept { model: model.clone(), mark, stamp: now });
        Ok(model)
    }

    /// Keeps `model` as the pair's, after it was saved.
    pub fn put(&self, key: &str, model: std::sync::Arc<WordModel>) {
        self.keep(key, Kept { model: Some(model), mark: None, stamp: None });
    }

    /// Keeps `model` as the pair's, saved under `stamp`
    /// (see [`get_or_load_checked`](Self::get_or_load_checked)).
    pub fn put_stamped(&self, key: &str, model: std::sync::Arc<WordModel>, stamp: Option<String>) {
        self.keep(key, Kept { model: Some(model), mark: None, stamp });
    }
}

/// A saved model read, or `None` for an untrained pair.
fn parse(saved: Option<String>) -> Result<Option<std::sync::Arc<WordModel>>> {
    saved.map(|text| WordModel::from_saved(&text).map(std::sync::Arc::new)).transpose()
}
