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
//! rare it is among the candidates (an inverse document frequency over the pool, so
//! "the" weighs little and the one word no near match holds weighs most); the next
//! example is always the candidate that adds the most weight of units not yet covered.
//! A near-duplicate of a chosen example adds nothing and waits: only when the candidates
//! can add nothing more is the coverage reset and the segment covered again by the rest
//! (the rounds of Agrawal et al.), so a short segment still gets k examples, never two of
//! the same source. The
//! candidates are the fuzzy lookup's at a low threshold, the store's word search
//! ([`ContentMemory::search`], BM25 in SQLite) for any of the segment's words, and the
//! word search for each word those leave uncovered, the longest (most specific) first.
//!
//! **Glossary.** The word model of the locale pair ([`crate::align`], trained by
//! `cmem align`) holds, for phrases of up to four source words, the target texts aligned
//! with them and how often. The glossary takes the segment's phrases it knows, rarest
//! words first, longer phrases before the words inside them, and of each phrase's targets
//! the one a chosen example's target holds (so glossary and examples agree), else the
//! most frequent. Without a model the glossary is empty and the answer says so.

use crate::index::distance::SCORE_TOLERANCE;
use crate::store::ContentMemoryExt;
use std::collections::{HashMap, HashSet};

use crate::align::{fold, text_of, words, WordModel};
use crate::error::{Error, ErrorKind, Result};
use crate::lookup::{lookup, LookupRequest, Match};
use crate::model::entry::{Entry, EntryId};
use crate::model::run::surface_text;
use crate::model::version::{prior_version_for, PriorVersion, VersionRequest};
use crate::repair::words::RepairBands;
use crate::store::{ContentMemory, SearchQuery};

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
    /// How many fuzzy matches are offered as example candidates; default 20.
    pub pool_limit: usize,
    /// How many hits the word search for any of the segment's words offers (ranked as
    /// BM25 ranks them: more of the words, rarer ones, shorter texts first); default 10.
    pub any_hits: usize,
    /// How many words the candidates found so far leave uncovered are searched for alone;
    /// default 3.
    pub searches: usize,
    /// How many hits each word search offers; default 5.
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
            pool_limit: 20,
            any_hits: 10,
            searches: 3,
            search_hits: 5,
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
    let pool = candidates(store, req, &query)?;
    let weights = query.weights(&pool);
    context.examples = choose_examples(&query, &weights, &pool, o);
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

/// An example candidate.
#[derive(Debug)]
struct Candidate {
    id: EntryId,
    source: String,
    target: String,
    match_score: Option<f64>,
    units: Units,
    /// Offered by the fuzzy lookup or the search for any word: part of the sample
    /// rarity is measured on.
    sampled: bool,
}

impl Candidate {
    fn of(entry: &Entry, req: &LookupRequest, match_score: Option<f64>) -> Option<Candidate> {
        let s = entry.variant(&req.source_locale)?;
        let t = entry.variant(&req.target_locale)?;
        Some(Candidate {
            id: entry.id,
            source: surface_text(&s.runs),
            target: surface_text(&t.runs),
            match_score,
            units: Units::of(&text_of(&s.runs)),
            sampled: true,
        })
    }
}

/// The pool: the fuzzy lookup at the pool threshold, the word search for any of the
/// segment's words, then the word search for each word still uncovered, the longest first.
fn candidates(store: &dyn ContentMemory, req: &ContextRequest, query: &Units) -> Result<Vec<Candidate>> {
    let o = &req.options;
    let mut pool_req = req.lookup.clone();
    // Repairs change adapted targets, which examples do not show: not computed.
    pool_req.options = pool_req
        .options
        .clone()
        .threshold(o.pool_threshold)
        .limit(o.pool_limit.max(1))
        .word_repair(RepairBands::OFF);
    let mut seen: HashSet<EntryId> = HashSet::new();
    let mut pool: Vec<Candidate> = Vec::new();
    if o.pool_limit > 0 {
        for m in lookup(store, &pool_req)? {
            if seen.insert(m.entry.id) {
                pool.extend(Candidate::of(&m.entry, &req.lookup, Some(m.score)));
            }
        }
    }
    // The word search for any of the segment's words: what BM25 ranks first holds the
    // most of them, the rarest ones, in the shortest text.
    let mut distinct: Vec<&str> = Vec::new();
    for w in &query.words {
        if w.chars().count() > 1 && !distinct.contains(&w.as_str()) {
            distinct.push(w);
        }
    }
    if o.any_hits > 0 && !distinct.is_empty() {
        let mut q = SearchQuery::new(distinct.join(" "), req.lookup.source_locale.clone());
        q.limit = o.any_hits;
        q.any = true;
        for hit in store.search(&q)? {
            if seen.insert(hit.entry.id) {
                pool.extend(Candidate::of(&hit.entry, &req.lookup, None));
            }
        }
    }
    let mut uncovered: Vec<&String> = Vec::new();
    for w in &query.words {
        if w.chars().count() > 1 && !uncovered.contains(&w) && !pool.iter().any(|c| c.units.set.contains(w)) {
            uncovered.push(w);
        }
    }
    // Longest first: a long word is rarer, and its search cheaper, than a short one.
    uncovered.sort_by_key(|w| std::cmp::Reverse(w.chars().count()));
    for w in uncovered.into_iter().take(o.searches) {
        let mut q = SearchQuery::new(w.as_str(), req.lookup.source_locale.clone());
        q.limit = o.search_hits;
        for hit in store.search(&q)? {
            if seen.insert(hit.entry.id) {
                pool.extend(
                    Candidate::of(&hit.entry, &req.lookup, None).map(|c| Candidate { sampled: false, ..c }),
                );
            }
        }
    }
    Ok(pool)
}

/// Greedy weighted coverage over the pool.
fn choose_examples(
    query: &Units,
    weights: &HashMap<String, f64>,
    pool: &[Candidate],
    o: &ContextOptions,
) -> Vec<Example> {
    let weight_of = |u: &String| weights.get(u).copied().unwrap_or(0.0);
    // Summed in the segment's order: the same floating-point total every time.
    let total: f64 = query.order.iter().map(weight_of).sum();
    let own_score = |c: &Candidate| {
        if total > 0.0 {
            query.order.iter().filter(|u| c.units.set.contains(*u)).map(weight_of).sum::<f64>() / total
        } else {
            0.0
        }
    };
    let mut covered: HashSet<&String> = HashSet::new();
    let mut chosen_sources: HashSet<String> = HashSet::new();
    let mut used = vec![false; pool.len()];
    let mut chars = 0usize;
    let mut out = Vec::new();
    while out.len() < o.examples {
        let mut best: Option<(usize, f64, f64)> = None;
        for (i, c) in pool.iter().enumerate() {
            if used[i] {
                continue;
            }
            let size = c.source.chars().count() + c.target.chars().count();
            let score = own_score(c);
            if chars + size > o.max_example_chars
                || score < o.min_example_score
                || chosen_sources.contains(&c.units.words.join(" "))
            {
                continue;
            }
            let gain: f64 = query
                .order
                .iter()
                .filter(|u| !covered.contains(u) && c.units.set.contains(*u))
                .map(weight_of)
                .sum();
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
            if covered.is_empty() {
                break;
            }
            covered.clear();
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
        chars += c.source.chars().count() + c.target.chars().count();
        chosen_sources.insert(c.units.words.join(" "));
        out.push(Example {
            entry_id: c.id,
            source: c.source.clone(),
            target: c.target.clone(),
            score: own_score(c),
            match_score: c.match_score,
            covers,
        });
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
mod tests {
    use super::*;
    use crate::align::AlignOptions;
    use crate::model::entry::{NewEntry, Variant};
    use crate::model::locale::Locale;
    use crate::model::run::Run;
    use crate::store::mem::MemStore;

    fn store(pairs: &[(&str, &str)]) -> MemStore {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let s = MemStore::new();
        let entries: Vec<NewEntry> = pairs
            .iter()
            .map(|(a, b)| {
                NewEntry::pair(
                    Variant::new(en.clone(), vec![Run::text(*a)]),
                    Variant::new(de.clone(), vec![Run::text(*b)]),
                )
            })
            .collect();
        s.write(&entries).unwrap();
        s
    }

    fn ask(text: &str) -> ContextRequest {
        ContextRequest::new(LookupRequest::from_tags(vec![Run::text(text)], "en", "de").unwrap())
    }

    #[test]
    fn near_duplicates_never_fill_the_list() {
        let s = store(&[
            ("Delete the selected file", "Die ausgewählte Datei löschen"),
            ("Delete the selected files", "Die ausgewählten Dateien löschen"),
            ("Delete the selected folder", "Den ausgewählten Ordner löschen"),
            ("Delete the selected item", "Das ausgewählte Element löschen"),
            ("Move to the trash", "In den Papierkorb verschieben"),
        ]);
        let c = context_for(&s, &ask("Delete the selected file and move it to the trash")).unwrap();
        let targets: Vec<&str> = c.examples.iter().map(|e| e.target.as_str()).collect();
        // The rarer words first ("trash" is in one candidate, "delete" in four), then the
        // one near-duplicate that adds "file"; only when the segment is covered does a
        // second round take the others, each adding what the first round had.
        assert_eq!(targets[..2], ["In den Papierkorb verschieben", "Die ausgewählte Datei löschen"]);
        assert!(c.examples[0].covers.contains(&"trash".to_owned()), "{:?}", c.examples[0].covers);
        assert!(c.examples[1].covers.contains(&"selected file".to_owned()), "{:?}", c.examples[1].covers);
        assert_eq!(c.examples.len(), 5, "{targets:?}");
        let two = ask("Delete the selected file and move it to the trash")
            .options(ContextOptions::default().examples(2));
        assert_eq!(context_for(&s, &two).unwrap().examples.len(), 2);
    }

    #[test]
    fn the_word_search_finds_what_no_near_match_holds() {
        let s = store(&[
            ("Open the settings", "Einstellungen öffnen"),
            ("The clipboard is empty", "Die Zwischenablage ist leer"),
        ]);
        let c = context_for(&s, &ask("Open the settings of the clipboard")).unwrap();
        let found: Vec<&str> = c.examples.iter().map(|e| e.target.as_str()).collect();
        assert_eq!(found, ["Einstellungen öffnen", "Die Zwischenablage ist leer"]);
        assert_eq!(c.examples[1].match_score, None, "offered by the word search");
    }

    #[test]
    fn budgets_bound_the_examples() {
        let s = store(&[("Save the file", "Datei speichern"), ("Print the report", "Bericht drucken")]);
        let one = ask("Save the report").options(ContextOptions::default().examples(1));
        assert_eq!(context_for(&s, &one).unwrap().examples.len(), 1);
        let tight = ask("Save the report").options(ContextOptions::default().max_example_chars(29));
        let c = context_for(&s, &tight).unwrap();
        assert_eq!(c.examples.len(), 1, "28 characters fit, two examples do not");
        let strict = ask("Save the report").options(ContextOptions::default().min_example_score(0.99));
        assert!(context_for(&s, &strict).unwrap().examples.is_empty());
        assert!(context_for(&s, &ask("x").options(ContextOptions::default().examples(21))).is_err());
        assert!(context_for(&s, &ask("x").options(ContextOptions::default().min_example_score(2.0))).is_err());
    }

    #[test]
    fn an_exact_match_short_circuits() {
        let s = store(&[("Save the file", "Datei speichern"), ("Save the report", "Bericht speichern")]);
        let c = context_for(&s, &ask("Save the file")).unwrap();
        assert!(c.exact && c.examples.is_empty() && c.glossary.is_empty());
        assert_eq!(c.matches[0].target_text(), "Datei speichern");
        let open = ask("Save the file").options(ContextOptions::default().short_circuit_exact(false));
        let c = context_for(&s, &open).unwrap();
        assert!(!c.exact && !c.examples.is_empty());
    }

    #[test]
    fn glossary_from_the_word_model_agrees_with_the_examples() {
        let pairs = [
            ("the red house", "das rote Haus"),
            ("the house", "das Haus"),
            ("the red car", "das rote Auto"),
            ("a car", "ein Auto"),
            ("the car is red", "das Auto ist rot"),
        ];
        let s = store(&pairs);
        let c = context_for(&s, &ask("the red car")).unwrap();
        assert!(!c.word_model && c.glossary.is_empty(), "no model, no glossary");
        let (model, _) = WordModel::train(
            pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())),
            &AlignOptions::default().min_phrase_count(1),
        );
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        s.save_word_model(&en, &de, std::sync::Arc::new(model)).unwrap();
        let req = ask("a red house").options(ContextOptions::default().short_circuit_exact(false));
        let c = context_for(&s, &req).unwrap();
        assert!(c.word_model);
        let house = c.glossary.iter().find(|g| g.source.split(' ').any(|w| w == "house")).unwrap();
        assert!(house.target.contains("Haus"), "{house:?}");
        assert!(!house.in_examples.is_empty(), "an example shows it: {c:?}");
        assert!(c.glossary.len() <= 10);
    }
}
