//! Context for translation producers (docs/matching.md §6): everything the memory knows
//! about one segment, as a machine-translation engine or a prompt builder needs it — the
//! block's prior version (gated as [`prior_version_for`] gates it), the lookup's
//! matches, few-shot examples chosen to *cover* the segment, and a glossary from the
//! locale pair's word model.
//!
//! **Examples.** Top-k fuzzy matches of a segment are often k near-duplicates: they
//! teach a producer the same words k times and the rest of the segment never. Examples
//! are instead chosen by greedy weighted coverage (Agrawal et al. 2022 showed that
//! covering the input's n-grams beats taking the most similar): the segment's *units* are
//! its words and its pairs of adjacent words, in lower case; each unit weighs by how
//! rare it is (an inverse document frequency, so "the" weighs little and the one word few
//! texts hold weighs most); the next example is always the candidate that adds the most
//! weight of units not yet covered. A near-duplicate of a chosen example adds nothing and
//! waits: only when the candidates can add nothing more is the coverage reset and the
//! segment covered again by the rest (the rounds of Agrawal et al.), so a short segment
//! still gets k examples, never two of the same source.
//!
//! **The translation side.** A source that holds the segment's words is worth most when
//! its translation shows how they are translated. With a word model of the pair, the
//! segment also has *expected target words*: the words of the target texts the model
//! aligned with its phrases of one to three words (the ten most frequent of each phrase,
//! those holding at least 2 % of its alignments), each weighing its phrase's weight times
//! that share. Every candidate that may be chosen is then read, and an example's gain
//! adds the weight of the expected words its target holds, where its source holds a
//! phrase they come from, that no chosen example's target holds yet; of two sources that
//! hold the same words, the one whose target says "Konto" where the memory says "Konto"
//! for "account" comes first. An example's `covers` still names the segment's units
//! only.
//!
//! **Candidates.** In a store with a word index ([`crate::store::WordIndex`]: every store
//! whose candidate index is on) they are the lookup's own matches, the texts BM25 ranks
//! first for any of the segment's words, and the texts of each word those leave
//! uncovered, the rarest first, all from the index, with no second lookup (unless
//! [`ContextOptions::pool_limit`] asks for the fuzzy lookup at the pool threshold); a
//! word's rarity is its document frequency over the memory's sources, and a pair of
//! words weighs half the rarer of its two. Without a word model a candidate is read from
//! the store only when picked. Without a word index, the word searches are the store's
//! ([`ContentMemory::search`]; the uncovered words' longest first), and rarity is
//! measured on the candidates other than the single words' hits.
//!
//! **Glossary.** The word model of the locale pair ([`crate::align`], trained by
//! `cmem align`) holds, for phrases of up to four source words, the target texts aligned
//! with them and how often. The glossary takes the segment's phrases it knows, rarest
//! words first, longer phrases before the words inside them, and of each phrase's targets
//! the one a chosen example's target holds (so glossary and examples agree), else the
//! most frequent. Without a model the glossary is empty and the answer says so.

mod pool;

use pool::{candidates, indexed_pool, Candidate};

use crate::index::distance::SCORE_TOLERANCE;
use crate::store::ContentMemoryExt;
use std::collections::{HashMap, HashSet};

use crate::align::{fold, text_of, words, WordModel};
use crate::error::{Error, ErrorKind, Result};
use crate::lookup::{lookup, LookupRequest, Match};
use crate::model::entry::EntryId;
use crate::model::version::{prior_version_for, PriorVersion, VersionRequest};
use crate::store::ContentMemory;

/// The most examples one answer may ask for.
pub const MAX_EXAMPLES: usize = 20;
/// The most glossary pairs one answer may ask for.
pub const MAX_GLOSSARY: usize = 50;
/// The largest character budget of an answer's examples.
pub const MAX_EXAMPLE_CHARS: usize = 100_000;

/// How examples and the glossary are chosen; see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ContextOptions {
    /// At most this many examples; default 5, at most [`MAX_EXAMPLES`]; 0: none.
    pub examples: usize,
    /// The most characters of all examples' sources and targets together; default
    /// 4,000, at most [`MAX_EXAMPLE_CHARS`]. An example that would overrun it is passed
    /// over for the next best that fits.
    pub max_example_chars: usize,
    /// The least share (0–1) of the segment's weighted words and word pairs an example
    /// must hold on its own; default 0.1.
    pub min_example_score: f64,
    /// At most this many glossary pairs; default 10, at most [`MAX_GLOSSARY`]; 0: none.
    pub glossary: usize,
    /// When the lookup's best match is exact, give no examples and no glossary: the exact
    /// match is the answer and needs no producer (default true).
    pub short_circuit_exact: bool,
    /// The threshold (0–1) of the fuzzy lookup that offers example candidates; default
    /// 0.5.
    pub pool_threshold: f64,
    /// How many fuzzy matches at the pool threshold are offered as example candidates
    /// beside the lookup's own matches; default 0: no such second lookup (its candidates
    /// are mostly the word search's, at twice the cost of the rest of the call).
    pub pool_limit: usize,
    /// How many hits the word search for any of the segment's words offers (ranked as
    /// BM25 ranks them: more of the words, rarer ones, shorter texts first); default 30.
    pub any_hits: usize,
    /// How many words the candidates found so far leave uncovered are searched for alone;
    /// default 10.
    pub searches: usize,
    /// How many hits each word search offers; default 10.
    pub search_hits: usize,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            examples: 5,
            max_example_chars: 4_000,
            min_example_score: 0.1,
            glossary: 10,
            short_circuit_exact: true,
            pool_threshold: 0.5,
            pool_limit: 0,
            any_hits: 30,
            searches: 10,
            search_hits: 10,
        }
    }
}

crate::setters!(ContextOptions {
    examples: usize,
    max_example_chars: usize,
    min_example_score: f64,
    glossary: usize,
    short_circuit_exact: bool,
    pool_threshold: f64,
    pool_limit: usize,
    any_hits: usize,
    searches: usize,
    search_hits: usize,
});

impl ContextOptions {
    /// Checks each knob against its bounds.
    ///
    /// ```
    /// use cmem_core::lookup::producer::ContextOptions;
    ///
    /// assert!(ContextOptions::default().validate().is_ok());
    /// let err = ContextOptions::default().examples(500).validate().unwrap_err();
    /// assert!(err.to_string().contains("examples"));
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::InvalidQuery`] naming the knob, its value and its bounds.
    pub fn validate(&self) -> Result<()> {
        let bad =
            |field: &str, msg: String| Err(Error::new(ErrorKind::InvalidQuery, format!("{field}: {msg}")));
        if self.examples > MAX_EXAMPLES {
            return bad("examples", format!("{} is more than {MAX_EXAMPLES}", self.examples));
        }
        if self.max_example_chars > MAX_EXAMPLE_CHARS {
            return bad(
                "max_example_chars",
                format!("{} is more than {MAX_EXAMPLE_CHARS}", self.max_example_chars),
            );
        }
        if !(0.0..=1.0).contains(&self.min_example_score) {
            return bad("min_example_score", format!("{} is not 0–1", self.min_example_score));
        }
        if self.glossary > MAX_GLOSSARY {
            return bad("glossary", format!("{} is more than {MAX_GLOSSARY}", self.glossary));
        }
        if !(0.0..=1.0).contains(&self.pool_threshold) {
            return bad("pool_threshold", format!("{} is not 0–1", self.pool_threshold));
        }
        if self.pool_limit > 200 || self.any_hits > 200 || self.searches > 20 || self.search_hits > 50 {
            return bad(
                "pool_limit",
                format!(
                    "pool_limit {}, any_hits {}, searches {}, search_hits {}: at most 200, 200, 20 and 50",
                    self.pool_limit, self.any_hits, self.searches, self.search_hits
                ),
            );
        }
        Ok(())
    }
}

/// A request for the context of one segment.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ContextRequest {
    /// The segment's lookup: source, locales, the matches' options and its context
    /// (unit key, neighbours).
    pub lookup: LookupRequest,
    /// The block the segment is a version of (empty: none, no prior version).
    pub unit: String,
    /// The caller's context fingerprint: the prior version is returned only when it
    /// governs (see [`prior_version_for`]).
    pub context_fingerprint: String,
    /// How examples and glossary are chosen.
    pub options: ContextOptions,
}

crate::setters!(ContextRequest { options: ContextOptions });

impl ContextRequest {
    /// The context of `lookup`'s segment, with default options and no block.
    pub fn new(lookup: LookupRequest) -> Self {
        ContextRequest {
            lookup,
            unit: String::new(),
            context_fingerprint: String::new(),
            options: ContextOptions::default(),
        }
    }

    /// Sets the block and the fingerprint that must govern its prior version.
    #[must_use]
    pub fn block(mut self, unit: impl Into<String>, fingerprint: impl Into<String>) -> Self {
        self.unit = unit.into();
        self.context_fingerprint = fingerprint.into();
        self
    }
}

/// A source/target pair of the memory chosen as a few-shot example.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// The entry it came from.
    pub entry_id: EntryId,
    /// Its source text, codes as their native markup.
    pub source: String,
    /// Its target text, codes as their native markup.
    pub target: String,
    /// The share (0–1) of the segment's weighted words and word pairs it holds alone.
    pub score: f64,
    /// The lookup's score, when the fuzzy lookup offered it.
    pub match_score: Option<f64>,
    /// The segment's words and word pairs (lower case) it added to the examples before
    /// it, in the segment's order.
    pub covers: Vec<String>,
}

/// A term pair of the word model for a phrase of the segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlossaryPair {
    /// The segment's phrase (its words in lower case, one space apart).
    pub source: String,
    /// The target text the memory aligned with it.
    pub target: String,
    /// How often the memory aligned the two.
    pub count: u32,
    /// The entry ids of the examples whose target holds `target`.
    pub in_examples: Vec<EntryId>,
}

/// Everything the memory knows about a segment; see the [module docs](self).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Context {
    /// The block's prior approved version, when the request's fingerprint governs it.
    pub prior_version: Option<PriorVersion>,
    /// The lookup's matches, as [`lookup()`](crate::lookup::lookup()) gives them.
    pub matches: Vec<Match>,
    /// The examples, in the order chosen (most new coverage first).
    pub examples: Vec<Example>,
    /// The glossary.
    pub glossary: Vec<GlossaryPair>,
    /// Whether the memory keeps a word model of the pair (without one the glossary is
    /// empty).
    pub word_model: bool,
    /// True when the best match is exact and the request short-circuits: no examples,
    /// no glossary.
    pub exact: bool,
}

/// The context of one segment over `store`; see the [module docs](self).
///
/// ```
/// use cmem_core::lookup::producer::{context_for, ContextRequest};
/// use cmem_core::{ContentMemory, Locale, LookupRequest, MemStore, NewEntry, Run, Variant};
///
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// let store = MemStore::new();
/// let pair = |s: &str, t: &str| NewEntry::pair(Variant::new(en.clone(), vec![Run::text(s)]), Variant::new(de.clone(), vec![Run::text(t)]));
/// store.write(&[
///     pair("Save the file", "Datei speichern"),
///     pair("Save the files", "Dateien speichern"),
///     pair("Print the report", "Bericht drucken"),
/// ])?;
/// let req = ContextRequest::new(LookupRequest::new(vec![Run::text("Save the report")], en, de));
/// let context = context_for(&store, &req)?;
/// let targets: Vec<&str> = context.examples.iter().map(|e| e.target.as_str()).collect();
/// // The rarer "report" first, then one of the two near-duplicates for "save"; the
/// // other only in a second round, once the segment is covered.
/// assert_eq!(targets[..2], ["Bericht drucken", "Datei speichern"]);
/// assert_eq!(context.examples[1].covers, ["save", "save the"]);
/// # Ok::<(), cmem_core::Error>(())
/// ```
///
/// # Errors
/// Options out of bounds ([`ContextOptions::validate`]), or as [`lookup()`](crate::lookup::lookup())
/// and [`prior_version_for`].
pub fn context_for(store: &dyn ContentMemory, req: &ContextRequest) -> Result<Context> {
    let o = &req.options;
    o.validate()?;
    let prior_version = match (req.unit.is_empty(), store.version_reader()) {
        (false, Some(reader)) => {
            let point = req.lookup.options.point.clone().unwrap_or_else(crate::model::point::Point::root);
            let vreq = VersionRequest::new(
                req.unit.clone(),
                req.context_fingerprint.clone(),
                req.lookup.source_locale.clone(),
                req.lookup.target_locale.clone(),
            )
            .point(point);
            prior_version_for(reader, &vreq)?
        }
        _ => None,
    };
    let matches = lookup(store, &req.lookup)?;
    let model = store.word_model(&req.lookup.source_locale, &req.lookup.target_locale)?;
    let exact = o.short_circuit_exact && matches.first().is_some_and(|m| m.match_type.is_exact());
    let mut context = Context {
        prior_version,
        matches,
        examples: Vec::new(),
        glossary: Vec::new(),
        word_model: model.is_some(),
        exact,
    };
    if exact || (o.examples == 0 && o.glossary == 0) {
        return Ok(context);
    }
    let query = Units::of(&text_of(&req.lookup.source));
    if query.order.is_empty() {
        return Ok(context);
    }
    let (mut pool, weights) = match indexed_pool(store, req, &query, &context.matches)? {
        Some(indexed) => indexed,
        None => {
            let pool = candidates(store, req, &query, &context.matches)?;
            let weights = query.weights(&pool);
            (pool, weights)
        }
    };
    let expected = match model.as_deref() {
        Some(model) if o.examples > 0 => expected_words(model, &query, &weights),
        _ => Vec::new(),
    };
    if !expected.is_empty() {
        read_targets(store, req, &query, &weights, &expected, &mut pool)?;
    }
    context.examples = choose_examples(store, req, &query, &weights, &expected, &mut pool)?;
    if let Some(model) = model.as_deref() {
        context.glossary = glossary(model, &query, &weights, &context.examples, o.glossary);
    }
    Ok(context)
}

/// The units of a text: its words in lower case and its pairs of adjacent words.
#[derive(Debug, Default)]
struct Units {
    /// The words in order.
    words: Vec<String>,
    /// Every unit once, in the text's order (words, then pairs).
    order: Vec<String>,
    set: HashSet<String>,
}

impl Units {
    fn of(text: &str) -> Units {
        let words: Vec<String> = words(text).into_iter().map(|(a, b)| fold(&text[a..b])).collect();
        let mut units = Units { words, ..Units::default() };
        let pairs: Vec<String> = units.words.windows(2).map(|w| format!("{} {}", w[0], w[1])).collect();
        for u in units.words.clone().into_iter().chain(pairs) {
            if units.set.insert(u.clone()) {
                units.order.push(u);
            }
        }
        units
    }

    /// Each unit of the query's weight: an inverse document frequency over the pool's
    /// sample (the fuzzy candidates and the search for any word; the hits of a word's own
    /// search would make it look common), a unit none holds weighing as one held by a
    /// single candidate. Word pairs weigh half: they matter as the words' order, the words
    /// themselves count already.
    fn weights(&self, pool: &[Candidate]) -> HashMap<String, f64> {
        let sample: Vec<&Candidate> = pool.iter().filter(|c| c.sampled).collect();
        let n = sample.len().max(1) as f64;
        self.order
            .iter()
            .map(|u| {
                let df = sample.iter().filter(|c| c.units.set.contains(u)).count().max(1) as f64;
                let idf = (1.0 + n / df).ln();
                let w = if u.contains(' ') { idf / 2.0 } else { idf };
                (u.clone(), w)
            })
            .collect()
    }
}

impl Units {
    /// Each unit's weight from the memory's counts: a word's inverse document frequency
    /// over the `documents` texts the word index searched (`frequencies` per word of
    /// `words`; a word none holds weighing as one held by a single text); a pair of
    /// words half the rarer of its two (it matters as the words' order, the words count
    /// already).
    fn global_weights(&self, words: &[String], documents: u64, frequencies: &[u64]) -> HashMap<String, f64> {
        let n = documents.max(1) as f64;
        let idf: HashMap<&str, f64> = words
            .iter()
            .zip(frequencies)
            .map(|(w, df)| (w.as_str(), (1.0 + n / (*df).max(1) as f64).ln()))
            .collect();
        let of = |w: &str| idf.get(w).copied().unwrap_or((1.0 + n).ln());
        self.order
            .iter()
            .map(|u| {
                let w = match u.split_once(' ') {
                    Some((a, b)) => of(a).min(of(b)) / 2.0,
                    None => of(u),
                };
                (u.clone(), w)
            })
            .collect()
    }
}

/// Greedy weighted coverage over the pool (the segment's units, and the `expected`
/// target words when the pool's targets were read), reading the candidates it picks that
/// were not read yet (in one read, then again only when one read changes the picks).
fn choose_examples(
    store: &dyn ContentMemory,
    req: &ContextRequest,
    query: &Units,
    weights: &HashMap<String, f64>,
    expected: &[Expected],
    pool: &mut [Candidate],
) -> Result<Vec<Example>> {
    let o = &req.options;
    loop {
        let picks = select(query, weights, expected, pool, o);
        let unread: Vec<usize> = picks.iter().map(|(i, _)| *i).filter(|i| pool[*i].texts.is_none()).collect();
        if unread.is_empty() {
            return Ok(picks
                .into_iter()
                .filter_map(|(i, covers)| {
                    let c = &pool[i];
                    let (source, target) = c.texts.clone()?;
                    Some(Example {
                        entry_id: c.id,
                        source,
                        target,
                        score: own_score(query, weights, c),
                        match_score: c.match_score,
                        covers,
                    })
                })
                .collect());
        }
        // Each round reads at least one candidate: it ends.
        read(store, req, pool, unread)?;
    }
}

/// Reads the texts of the candidates `unread` (indexes into `pool`) in one read; one gone
/// from the store, or without the pair, is marked gone.
fn read(
    store: &dyn ContentMemory,
    req: &ContextRequest,
    pool: &mut [Candidate],
    unread: Vec<usize>,
) -> Result<()> {
    let ids: Vec<EntryId> = unread.iter().map(|i| pool[*i].id).collect();
    for (i, entry) in unread.into_iter().zip(store.get_many(&ids)?) {
        match entry.and_then(|e| Candidate::texts_of(&e, &req.lookup)) {
            Some(texts) => pool[i].texts = Some(texts),
            None => pool[i].gone = true,
        }
    }
    Ok(())
}

/// A word a translation of the segment is expected to hold.
#[derive(Debug)]
struct Expected {
    /// The word, in lower case.
    word: String,
    weight: f64,
    /// The segment's phrases (their words) whose aligned targets hold it.
    from: Vec<Vec<String>>,
}

/// How many of a phrase's aligned target texts, most frequent first, give expected words.
const EXPECTED_TARGETS: usize = 10;
/// The least share of a phrase's alignments a target text must hold to give expected
/// words.
const EXPECTED_SHARE: f64 = 0.02;

/// The words a translation of the segment is expected to hold, each with a weight, in a
/// fixed order: the words of the target texts the word model aligned with the segment's
/// phrases of one to three words (the [`EXPECTED_TARGETS`] most frequent of each, those
/// with at least [`EXPECTED_SHARE`] of its alignments), a word weighing its phrase's
/// weight (its rarest word's) times the share of the phrase's alignments its text holds,
/// the most any phrase gives it.
fn expected_words(model: &WordModel, query: &Units, weights: &HashMap<String, f64>) -> Vec<Expected> {
    let words_of = &query.words;
    let mut out: Vec<Expected> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for n in 1..=3 {
        for span in words_of.windows(n) {
            let targets = model.phrases(&span.join(" "));
            let total: u32 = targets.iter().map(|(_, c)| *c).sum();
            if total == 0 {
                continue;
            }
            let weight = span.iter().map(|w| weights.get(w).copied().unwrap_or(0.0)).fold(0.0, f64::max);
            for (text, count) in targets.iter().take(EXPECTED_TARGETS) {
                let share = f64::from(*count) / f64::from(total);
                if share < EXPECTED_SHARE {
                    continue;
                }
                for (a, b) in words(text) {
                    let word = fold(&text[a..b]);
                    let i = *at.entry(word.clone()).or_insert_with(|| {
                        out.push(Expected { word, weight: 0.0, from: Vec::new() });
                        out.len() - 1
                    });
                    out[i].weight = out[i].weight.max(weight * share);
                    if !out[i].from.iter().any(|f| f == span) {
                        out[i].from.push(span.to_vec());
                    }
                }
            }
        }
    }
    out
}

/// Reads the target of every candidate that may be chosen (its own score reaches the
/// minimum) and notes the expected words it holds where its source holds a phrase they
/// come from.
fn read_targets(
    store: &dyn ContentMemory,
    req: &ContextRequest,
    query: &Units,
    weights: &HashMap<String, f64>,
    expected: &[Expected],
    pool: &mut [Candidate],
) -> Result<()> {
    let min = req.options.min_example_score;
    let unread: Vec<usize> = (0..pool.len())
        .filter(|i| pool[*i].texts.is_none() && own_score(query, weights, &pool[*i]) >= min)
        .collect();
    read(store, req, pool, unread)?;
    let by_word: HashMap<&str, &Expected> = expected.iter().map(|e| (e.word.as_str(), e)).collect();
    for c in pool.iter_mut() {
        let Some((_, target)) = &c.texts else { continue };
        // An expected word counts where the source holds a phrase it comes from: the
        // target then shows that phrase's translation, not a word that happens to be
        // there.
        let holds = |phrase: &Vec<String>| phrase.iter().all(|w| c.units.set.contains(w));
        c.expected = words(target)
            .into_iter()
            .map(|(a, b)| fold(&target[a..b]))
            .filter(|w| by_word.get(w.as_str()).is_some_and(|e| e.from.iter().any(holds)))
            .collect();
    }
    Ok(())
}

/// The share (0–1) of the segment's weighted units `c` holds on its own.
fn own_score(query: &Units, weights: &HashMap<String, f64>, c: &Candidate) -> f64 {
    let weight_of = |u: &String| weights.get(u).copied().unwrap_or(0.0);
    // Summed in the segment's order: the same floating-point total every time.
    let total: f64 = query.order.iter().map(weight_of).sum();
    if total > 0.0 {
        query.order.iter().filter(|u| c.units.set.contains(*u)).map(weight_of).sum::<f64>() / total
    } else {
        0.0
    }
}

/// The picks of greedy weighted coverage, each with the segment's units it adds (a
/// pick's gain also counts the expected target words its target adds): a candidate not
/// read yet counts as fitting the character budget (the caller reads the ones picked
/// and selects again).
fn select(
    query: &Units,
    weights: &HashMap<String, f64>,
    expected: &[Expected],
    pool: &[Candidate],
    o: &ContextOptions,
) -> Vec<(usize, Vec<String>)> {
    let weight_of = |u: &String| weights.get(u).copied().unwrap_or(0.0);
    let mut covered: HashSet<&String> = HashSet::new();
    let mut shown: HashSet<&String> = HashSet::new();
    let mut chosen_sources: HashSet<String> = HashSet::new();
    let mut used = vec![false; pool.len()];
    let mut chars = 0usize;
    let mut out = Vec::new();
    while out.len() < o.examples {
        let mut best: Option<(usize, f64, f64)> = None;
        for (i, c) in pool.iter().enumerate() {
            if used[i] || c.gone {
                continue;
            }
            if chars + c.size() > o.max_example_chars
                || own_score(query, weights, c) < o.min_example_score
                || chosen_sources.contains(&c.units.words.join(" "))
            {
                continue;
            }
            let gain: f64 = query
                .order
                .iter()
                .filter(|u| !covered.contains(u) && c.units.set.contains(*u))
                .map(weight_of)
                .sum::<f64>()
                + expected
                    .iter()
                    .filter(|e| !shown.contains(&e.word) && c.expected.contains(&e.word))
                    .map(|e| e.weight)
                    .sum::<f64>();
            if gain <= 0.0 {
                continue;
            }
            // Ties: the more similar (the lookup's score), then the earlier offered.
            let sim = c.match_score.unwrap_or(0.0);
            if best.is_none_or(|(_, g, s)| {
                gain > g + SCORE_TOLERANCE || ((gain - g).abs() <= SCORE_TOLERANCE && sim > s)
            }) {
                best = Some((i, gain, sim));
            }
        }
        let Some((i, _, _)) = best else {
            // Everything the candidates hold is covered: cover the segment again with the
            // rest (Agrawal et al.'s rounds), so a short segment still gets k examples,
            // but never the same source twice.
            if covered.is_empty() && shown.is_empty() {
                break;
            }
            covered.clear();
            shown.clear();
            continue;
        };
        used[i] = true;
        let c = &pool[i];
        let covers: Vec<String> = query
            .order
            .iter()
            .filter(|u| !covered.contains(u) && c.units.set.contains(*u))
            .cloned()
            .collect();
        for u in &query.order {
            if c.units.set.contains(u) {
                covered.insert(u);
            }
        }
        shown.extend(expected.iter().map(|e| &e.word).filter(|w| c.expected.contains(*w)));
        chars += c.size();
        chosen_sources.insert(c.units.words.join(" "));
        out.push((i, covers));
    }
    out
}

/// The glossary: the segment's phrases the model knows, rarest first, longer phrases
/// before the words inside them.
fn glossary(
    model: &WordModel,
    query: &Units,
    weights: &HashMap<String, f64>,
    examples: &[Example],
    limit: usize,
) -> Vec<GlossaryPair> {
    let words = &query.words;
    let weight = |w: &String| weights.get(w).copied().unwrap_or(0.0);
    // (phrase, first word, word count, weight): every phrase of up to three words.
    let mut phrases: Vec<(String, usize, usize, f64)> = Vec::new();
    let mut seen = HashSet::new();
    for n in (1..=3).rev() {
        for start in 0..words.len().saturating_sub(n - 1) {
            let span = &words[start..start + n];
            let phrase = span.join(" ");
            if seen.insert(phrase.clone()) && !model.phrases(&phrase).is_empty() {
                let w = span.iter().map(weight).fold(0.0, f64::max);
                phrases.push((phrase, start, n, w));
            }
        }
    }
    phrases.sort_by(|a, b| b.3.total_cmp(&a.3).then(b.2.cmp(&a.2)).then(a.1.cmp(&b.1)));
    let lower_targets: Vec<String> = examples.iter().map(|e| e.target.to_lowercase()).collect();
    let mut taken = vec![false; words.len()];
    let mut out = Vec::new();
    for (phrase, start, n, _) in phrases {
        if out.len() >= limit {
            break;
        }
        if taken[start..start + n].iter().all(|t| *t) {
            continue;
        }
        let targets = model.phrases(&phrase);
        let shown = |t: &str| -> Vec<EntryId> {
            let t = t.to_lowercase();
            examples
                .iter()
                .zip(&lower_targets)
                .filter(|(_, et)| et.contains(&t))
                .map(|(e, _)| e.entry_id)
                .collect()
        };
        let pick = targets.iter().find(|(t, _)| !shown(t).is_empty()).or_else(|| targets.first());
        if let Some((target, count)) = pick {
            for t in &mut taken[start..start + n] {
                *t = true;
            }
            out.push(GlossaryPair {
                source: phrase,
                target: target.clone(),
                count: *count,
                in_examples: shown(target),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
