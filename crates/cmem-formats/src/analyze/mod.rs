//! Analyze: the leverage report of XLIFF documents and PO catalogs against a memory
//! (docs/matching.md §10), the figures a project manager quotes a job from.
//!
//! Each translatable segment with text is looked up (best match, threshold 0.50, in its
//! context: its unit key and its neighbours) and counted in one band:
//!
//! | band | what |
//! |---|---|
//! | **context** | a context match (101 %): exact, and stored for this unit or between the same neighbours |
//! | **100%** | an unambiguous exact match |
//! | **repetitions** | a later segment whose source (its structural key: text and code positions, normalized) appeared earlier in the document (or, in a [`Batch`]'s total, in an earlier file): it will be translated once |
//! | **95–99%**, **85–94%**, **75–84%**, **50–74%** | the best score (an ambiguous exact match scores 99); the lower bounds are [`Bands::fuzzy`], configurable |
//! | **no match** | below the lowest fuzzy band, or nothing |
//!
//! A later occurrence that is itself a context match counts as context, not as a
//! repetition. Segments under `translate="no"` or with no text are not counted.
//!
//! **Words** are counted as translators are paid: white-space-separated words in spaced
//! scripts (a token of punctuation only is no word), each character in scripts written
//! without spaces (Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer, Myanmar); inline
//! codes and placeholders are no words and separate words. **Characters** are the
//! text's characters other than white space (codes are not counted).
//! **Weighted words** are each band's words times its weight ([`Bands`]; a common
//! default grid, to be replaced by the buyer's own).

mod report;

use std::collections::HashSet;
use std::path::Path;

use cmem_core::{structural_text, ContentMemory, Locale, LookupOptions, Point, QueryContext, Run};
use serde::{Serialize, Serializer};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::recycle::{
    default_threads, has_text, lookup_all, lookup_matches, lookup_queries, recognized_sources,
    LookupProgress, Watch,
};
use crate::xliff::XliffDocument;

pub use report::{html_report, CSV_HEADER};

/// Analyze options.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AnalyzeOptions {
    /// The point the document belongs to, for lookups.
    pub point: Option<Point>,
    /// Overrides the document's source language.
    pub source_locale: Option<Locale>,
    /// Overrides the document's target language.
    pub target_locale: Option<Locale>,
    /// Lookups run on this many threads; default: the available parallelism.
    pub threads: usize,
    /// The lookup's budgets and caps (`verify_budget`, `max_candidates`, …) and
    /// penalties; its threshold (the lowest fuzzy band), limit (1) and point are set by
    /// the analysis.
    pub lookup: LookupOptions,
    /// Recognizes inline codes in segments whose source has no inline elements, as
    /// [`RecycleOptions::recognizer`](crate::RecycleOptions::recognizer) does, so the
    /// bands are what recycling would fill. Default: none.
    pub recognizer: Option<cmem_core::model::recognize::Recognizer>,
    /// The fuzzy bands and every band's weight.
    pub bands: Bands,
    /// Told as each of a file's lookups ends; default none.
    pub progress: Option<LookupProgress>,
    /// Once set (by a Ctrl-C handler), the analysis stops after the lookups under way
    /// with an `interrupted` error; default none.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            point: None,
            source_locale: None,
            target_locale: None,
            threads: default_threads(),
            lookup: LookupOptions::default(),
            recognizer: None,
            bands: Bands::default(),
            progress: None,
            cancel: None,
        }
    }
}

/// A match band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Band {
    /// A context match (101 %).
    Context,
    /// An unambiguous 100 % match.
    Exact,
    /// A repetition of an earlier segment of the document.
    Repetition,
    /// A best score from `from` to `to` percent.
    Fuzzy {
        /// The lowest percentage in the band.
        from: u8,
        /// The highest.
        to: u8,
    },
    /// Below the lowest fuzzy band, or nothing.
    NoMatch,
}

impl Band {
    /// 95–99 %, a band of the default scheme.
    pub const FUZZY95: Band = Band::Fuzzy { from: 95, to: 99 };
    /// 85–94 %.
    pub const FUZZY85: Band = Band::Fuzzy { from: 85, to: 94 };
    /// 75–84 %.
    pub const FUZZY75: Band = Band::Fuzzy { from: 75, to: 84 };
    /// 50–74 %.
    pub const FUZZY50: Band = Band::Fuzzy { from: 50, to: 74 };

    /// The label in the table (`context`, `100%`, `95-99%`, `no match`).
    pub fn label(self) -> String {
        match self {
            Band::Context => "context".to_owned(),
            Band::Exact => "100%".to_owned(),
            Band::Repetition => "repetitions".to_owned(),
            Band::Fuzzy { from, to } => format!("{from}-{to}%"),
            Band::NoMatch => "no match".to_owned(),
        }
    }
}

impl Band {
    /// The name in JSON: `context`, `exact`, `repetition`, `fuzzy95` (a fuzzy band by
    /// its lowest percentage), `no_match`.
    pub fn name(self) -> String {
        match self {
            Band::Context => "context".to_owned(),
            Band::Exact => "exact".to_owned(),
            Band::Repetition => "repetition".to_owned(),
            Band::Fuzzy { from, .. } => format!("fuzzy{from}"),
            Band::NoMatch => "no_match".to_owned(),
        }
    }
}

impl Serialize for Band {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// The fuzzy bands of a report and the weight of every band, in percent of a new
/// word's price.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bands {
    /// Context matches' weight; default 0.
    pub context: u8,
    /// 100 % matches' weight; default 25.
    pub exact: u8,
    /// Repetitions' weight; default 25.
    pub repetition: u8,
    /// The fuzzy bands, highest first: each one's lowest percentage (1–99) and weight;
    /// default 95 → 50, 85 → 70, 75 → 100, 50 → 100.
    pub fuzzy: Vec<(u8, u8)>,
    /// No match's weight; default 100.
    pub no_match: u8,
}

impl Default for Bands {
    fn default() -> Self {
        Bands {
            context: 0,
            exact: 25,
            repetition: 25,
            fuzzy: vec![(95, 50), (85, 70), (75, 100), (50, 100)],
            no_match: 100,
        }
    }
}

impl Bands {
    /// Every band, in report order: context, 100 %, repetitions, the fuzzy bands, no
    /// match.
    pub fn all(&self) -> Vec<Band> {
        let mut out = vec![Band::Context, Band::Exact, Band::Repetition];
        let mut to = 99;
        for &(from, _) in &self.fuzzy {
            out.push(Band::Fuzzy { from, to });
            to = from.saturating_sub(1);
        }
        out.push(Band::NoMatch);
        out
    }

    /// The weight of `band`, in percent.
    pub fn weight(&self, band: Band) -> u8 {
        match band {
            Band::Context => self.context,
            Band::Exact => self.exact,
            Band::Repetition => self.repetition,
            Band::Fuzzy { from, .. } => self.fuzzy.iter().find(|f| f.0 == from).map_or(100, |f| f.1),
            Band::NoMatch => self.no_match,
        }
    }

    /// The lowest score a band takes (the lookup's threshold).
    pub fn threshold(&self) -> f64 {
        self.fuzzy.last().map_or(1.0, |f| f64::from(f.0) / 100.0)
    }

    /// The band of a best match of `score` (`None`: no match).
    pub fn of(&self, score: Option<f64>, ambiguous: bool, context: bool) -> Band {
        let Some(score) = score else { return Band::NoMatch };
        let pct = (score * 100.0 + 1e-9).floor();
        if pct >= 100.0 && !ambiguous {
            return if context { Band::Context } else { Band::Exact };
        }
        let bands = self.all();
        bands
            .into_iter()
            .find(|b| matches!(b, Band::Fuzzy { from, .. } if pct >= f64::from(*from)))
            .unwrap_or(Band::NoMatch)
    }

    /// Sets the fuzzy bands from their lowest percentages, `95,85,75,50`; bands whose
    /// bound stays keep their weight, new ones weigh 100.
    ///
    /// # Errors
    /// A bound that is not a whole number 1–99, or bounds not strictly falling.
    pub fn set_fuzzy(&mut self, text: &str) -> Result<(), String> {
        let mut fuzzy: Vec<(u8, u8)> = Vec::new();
        for part in text.split(',') {
            let from: u8 =
                part.trim().parse().ok().filter(|n| (1..=99).contains(n)).ok_or_else(|| {
                    format!("band {part:?}: a band's lowest percentage is a whole number 1–99")
                })?;
            if fuzzy.last().is_some_and(|l| l.0 <= from) {
                return Err(format!(
                    "bands {text:?}: give the lowest percentages highest first (95,85,75,50)"
                ));
            }
            fuzzy.push((from, self.fuzzy.iter().find(|f| f.0 == from).map_or(100, |f| f.1)));
        }
        self.fuzzy = fuzzy;
        Ok(())
    }

    /// Sets weights from `context=0,100=25,repetitions=25,95=50,no-match=100` (a fuzzy
    /// band named by its lowest percentage).
    ///
    /// # Errors
    /// An unknown band, a weight that is not a whole number 0–100.
    pub fn set_weights(&mut self, text: &str) -> Result<(), String> {
        for part in text.split(',') {
            let (name, weight) =
                part.split_once('=').ok_or_else(|| format!("weight {part:?}: write BAND=PERCENT (95=50)"))?;
            let weight: u8 = weight
                .trim()
                .parse()
                .ok()
                .filter(|w| *w <= 100)
                .ok_or_else(|| format!("weight {part:?}: a weight is a whole percentage 0–100"))?;
            match name.trim() {
                "context" | "101" => self.context = weight,
                "100" | "exact" => self.exact = weight,
                "repetitions" | "repetition" => self.repetition = weight,
                "no-match" | "nomatch" | "0" => self.no_match = weight,
                other => {
                    let from: Option<u8> = other.trim_end_matches('%').parse().ok();
                    let known: Vec<String> = self.fuzzy.iter().map(|f| f.0.to_string()).collect();
                    let band = self.fuzzy.iter_mut().find(|f| Some(f.0) == from).ok_or_else(|| {
                        format!(
                            "weight {part:?}: no band {other:?}; the bands are context, 100, repetitions, {}, no-match",
                            known.join(", ")
                        )
                    })?;
                    band.1 = weight;
                }
            }
        }
        Ok(())
    }
}

/// One row of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BandCount {
    /// The band.
    pub band: Band,
    /// Segments in it.
    pub segments: usize,
    /// Their words.
    pub words: usize,
    /// Their characters (no white space, no codes).
    pub characters: usize,
    /// The band's weight, in percent.
    pub weight: u8,
    /// Words times the weight.
    pub weighted_words: f64,
}

/// The leverage report of one document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Analysis {
    /// The file analyzed.
    pub file: String,
    /// One row per band, in [`Bands::all`] order.
    pub bands: Vec<BandCount>,
    /// Segments counted (the sum of the rows).
    pub segments: usize,
    /// Words counted.
    pub words: usize,
    /// Characters counted.
    pub characters: usize,
    /// Weighted words: the sum of the rows'.
    pub weighted_words: f64,
    /// Segments not counted: not translatable or without text.
    pub skipped: usize,
    /// Segments whose best match reaches recycle's fill threshold ([`TERM_CHECK_FILL`])
    /// without the memory's translation of a term their source holds: the fills
    /// recycle's terminology check would note (the pair's glossary, `cmem terms`).
    pub term_issues: usize,
    /// The locale pairs the segments were looked up in (source, target), each once.
    #[serde(skip)]
    pub pairs: Vec<(Locale, Locale)>,
}

impl Analysis {
    /// The row of `band`.
    pub fn band(&self, band: Band) -> Option<&BandCount> {
        self.bands.iter().find(|b| b.band == band)
    }
}

/// True for a character of a script written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF      // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1100..=0x11FF    // Hangul Jamo
        | 0x1780..=0x17FF    // Khmer
        | 0x2E80..=0x2FDF    // CJK radicals
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana extensions
        | 0x3400..=0x4DBF    // Han extension A
        | 0x4E00..=0x9FFF    // Han
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // Han compatibility
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3FFFF  // Han extensions B–H
    )
}

/// Words in `text`: white-space-separated words with a letter or digit, and each
/// character of an unspaced script.
pub fn count_words(text: &str) -> usize {
    let mut words = 0;
    for token in text.split_whitespace() {
        let mut in_word = false;
        for c in token.chars() {
            if unspaced(c) {
                words += 1;
                in_word = false;
            } else if c.is_alphanumeric() {
                if !in_word {
                    words += 1;
                    in_word = true;
                }
            } else if !in_word {
                // Punctuation between unspaced characters does not start a word.
                continue;
            }
        }
    }
    words
}

/// The words of a segment's runs (text only; codes are not words).
pub fn count_run_words(runs: &[Run]) -> usize {
    let mut text = String::new();
    cmem_core::model::run::walk_runs(runs, &mut |r| {
        if let Run::Text(t) = r {
            text.push_str(t);
        } else {
            text.push(' ');
        }
    });
    count_words(&text)
}

/// The characters of a segment's runs: text other than white space (codes are not
/// counted).
pub fn count_run_characters(runs: &[Run]) -> usize {
    let mut n = 0;
    cmem_core::model::run::walk_runs(runs, &mut |r| {
        if let Run::Text(t) = r {
            n += t.chars().filter(|c| !c.is_whitespace()).count();
        }
    });
    n
}

/// One counted segment.
#[derive(Debug, Clone)]
pub(crate) struct Counted {
    /// Its repetition key (structural text).
    key: String,
    band: Band,
    words: usize,
    characters: usize,
}

/// A segment to analyze: its looked-up source, its context, its original source (what
/// is counted), and where it is (for messages).
pub(crate) struct Segment<'a> {
    pub(crate) runs: &'a [Run],
    pub(crate) context: QueryContext,
    pub(crate) counted: &'a [Run],
}

/// The rows of counted segments.
fn rows(counted: &[Counted], bands: &Bands) -> Vec<BandCount> {
    let mut rows: Vec<BandCount> = bands
        .all()
        .into_iter()
        .map(|band| BandCount {
            band,
            segments: 0,
            words: 0,
            characters: 0,
            weight: bands.weight(band),
            weighted_words: 0.0,
        })
        .collect();
    for c in counted {
        if let Some(row) = rows.iter_mut().find(|b| b.band == c.band) {
            row.segments += 1;
            row.words += c.words;
            row.characters += c.characters;
        }
    }
    for row in &mut rows {
        row.weighted_words = row.words as f64 * f64::from(row.weight) / 100.0;
    }
    rows
}

fn analysis(file: &str, counted: &[Counted], skipped: usize, bands: &Bands) -> Analysis {
    let rows = rows(counted, bands);
    Analysis {
        file: file.to_owned(),
        segments: rows.iter().map(|b| b.segments).sum(),
        words: rows.iter().map(|b| b.words).sum(),
        characters: rows.iter().map(|b| b.characters).sum(),
        weighted_words: rows.iter().map(|b| b.weighted_words).sum(),
        bands: rows,
        skipped,
        term_issues: 0,
        pairs: Vec::new(),
    }
}

/// The score from which analyze's terminology check counts a best match as a fill:
/// recycle's default fill threshold.
pub const TERM_CHECK_FILL: f64 = crate::recycle::DEFAULT_FILL_THRESHOLD;

/// How many of `queries`' best matches (`results`, in order) reach [`TERM_CHECK_FILL`]
/// without the memory's translation of a term their source holds; `file` names a store
/// failure.
fn count_term_issues(
    store: &dyn ContentMemory,
    queries: &[crate::recycle::Query<'_>],
    results: &[Option<crate::recycle::Shared>],
    format: Format,
    file: &str,
) -> Result<usize, FormatError> {
    let mut evidence: Vec<((Locale, Locale), crate::recycle::Evidence)> = Vec::new();
    let mut issues = 0;
    for ((runs, src, trg, _), result) in queries.iter().zip(results) {
        let Some(Ok(matches)) = result.as_deref() else { continue };
        let Some(best) = matches.first().filter(|m| m.score >= TERM_CHECK_FILL) else { continue };
        let at = match evidence.iter().position(|((s, t), _)| s == src && t == trg) {
            Some(at) => at,
            None => {
                evidence.push((
                    (src.clone(), trg.clone()),
                    crate::recycle::Evidence::load(store, src, trg, format, file)?,
                ));
                evidence.len() - 1
            }
        };
        if !evidence[at].1.missed_terms(runs, &best.adapted_target).is_empty() {
            issues += 1;
        }
    }
    Ok(issues)
}

/// The lookups of `queries` for an analysis, watched as `options` asks; an `interrupted`
/// error once cancelled.
fn lookup_watched(
    store: &dyn ContentMemory,
    queries: &[crate::recycle::Query<'_>],
    options: &AnalyzeOptions,
) -> Result<Vec<Option<crate::recycle::Shared>>, FormatError> {
    let watch = Watch { progress: options.progress.as_ref(), cancel: options.cancel.as_deref() };
    let results = lookup_all(store, queries, &lookup_options(options), options.threads, watch);
    if watch.cancelled() {
        return Err(FormatError::new(Format::Store, FormatErrorKind::Io, "interrupted"));
    }
    Ok(results)
}

/// The distinct locale pairs of `queries`, in order.
fn pairs_of(queries: &[crate::recycle::Query<'_>]) -> Vec<(Locale, Locale)> {
    let mut pairs: Vec<(Locale, Locale)> = Vec::new();
    for (_, src, trg, _) in queries {
        if !pairs.iter().any(|(s, t)| s == src && t == trg) {
            pairs.push((src.clone(), trg.clone()));
        }
    }
    pairs
}

/// The best match of each segment: its score, whether it is ambiguous, whether it is a
/// context match (`None`: no match).
type Best = Option<(f64, bool, bool)>;

/// Bands the segments: `bests` holds each one's best match, in order.
fn banded<'a>(
    segments: impl Iterator<Item = &'a Segment<'a>>,
    bests: impl Iterator<Item = Result<Best, FormatError>>,
    bands: &Bands,
) -> Result<Vec<Counted>, FormatError> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (seg, best) in segments.zip(bests) {
        let best = best?;
        let key = structural_text(seg.runs);
        let first = seen.insert(key.clone());
        let band = match bands.of(best.map(|b| b.0), best.is_some_and(|b| b.1), best.is_some_and(|b| b.2)) {
            Band::Context => Band::Context,
            _ if !first => Band::Repetition,
            band => band,
        };
        out.push(Counted {
            key,
            band,
            words: count_run_words(seg.counted),
            characters: count_run_characters(seg.counted),
        });
    }
    Ok(out)
}

/// The lookup options of an analysis.
///
/// Only the band of each best match counts, so the lookup stops at a match of the
/// right band ([`LookupOptions::score_floors`]) instead of proving it the best of its
/// band, which at the lowest band's threshold costs far more than all the rest.
fn lookup_options(options: &AnalyzeOptions) -> LookupOptions {
    let floors = options.bands.fuzzy.iter().map(|f| f64::from(f.0) / 100.0).chain([1.0]).collect();
    options
        .lookup
        .clone()
        .threshold(options.bands.threshold())
        .limit(1)
        .maybe_point(options.point.clone())
        .score_floors(floors)
}

fn best_of(matches: &[cmem_core::Match]) -> Best {
    matches.first().map(|m| (m.score, m.ambiguous, m.is_context()))
}

/// Analyzes a parsed document; also gives each counted segment.
pub(crate) fn analyze_counted(
    doc: &XliffDocument,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<(Analysis, Vec<Counted>), FormatError> {
    let mut skipped = 0;
    let mut indexes: Vec<usize> = Vec::new();
    for (index, seg) in doc.segments().iter().enumerate() {
        if !seg.translatable || !has_text(&seg.source) {
            skipped += 1;
            continue;
        }
        indexes.push(index);
    }
    let recognized = recognized_sources(doc, &indexes, options.recognizer.as_ref());
    let queries = lookup_queries(
        doc,
        &indexes,
        &recognized,
        options.source_locale.as_ref(),
        options.target_locale.as_ref(),
    )?;
    let results = lookup_watched(store, &queries, options)?;
    let term_issues = count_term_issues(store, &queries, &results, Format::Xliff, doc.file())?;
    let pairs = pairs_of(&queries);
    let segments: Vec<Segment<'_>> = queries
        .iter()
        .zip(&indexes)
        .map(|(q, &i)| Segment { runs: q.0, context: q.3.clone(), counted: &doc.segments()[i].source })
        .collect();
    // A source the lookup refuses (longer than its cap) matches nothing.
    let bests = indexes
        .iter()
        .zip(results)
        .map(|(&index, result)| Ok(lookup_matches(doc, index, result.as_deref())?.and_then(best_of)));
    let counted = banded(segments.iter(), bests, &options.bands)?;
    let mut report = analysis(doc.file(), &counted, skipped, &options.bands);
    report.pairs = pairs;
    report.term_issues = term_issues;
    Ok((report, counted))
}

/// Analyzes a parsed document.
///
/// # Errors
/// Missing locales, a store failure.
///
/// # Examples
/// ```
/// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
/// use cmem_formats::{analyze_document, AnalyzeOptions, Band, XliffDocument};
///
/// let store = MemStore::new();
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// store.write(&[NewEntry::pair(
///     Variant::new(en, vec![Run::text("Open the file")]),
///     Variant::new(de, vec![Run::text("Datei öffnen")]),
/// )])?;
/// let xlf = r#"<xliff version="1.2"><file source-language="en" target-language="de" datatype="x" original="a"><body>
/// <trans-unit id="1"><source>Open the file</source></trans-unit>
/// <trans-unit id="2"><source>Quit now</source></trans-unit>
/// <trans-unit id="3"><source>Open the file</source></trans-unit>
/// </body></file></xliff>"#;
/// let doc = XliffDocument::read(xlf.as_bytes(), "a.xlf")?;
/// let analysis = analyze_document(&doc, &store, &AnalyzeOptions::default())?;
/// assert_eq!((analysis.segments, analysis.words, analysis.characters), (3, 8, 29));
/// let words = |band| analysis.band(band).map(|row| row.words);
/// assert_eq!(words(Band::Exact), Some(3));
/// assert_eq!(words(Band::Repetition), Some(3));
/// assert_eq!(words(Band::NoMatch), Some(2));
/// // The default weights: 100 % and repetitions at 25 %, no match at 100 %.
/// assert_eq!(analysis.weighted_words, 0.75 + 0.75 + 2.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn analyze_document(
    doc: &XliffDocument,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<Analysis, FormatError> {
    analyze_counted(doc, store, options).map(|(a, _)| a)
}

/// Analyzes segments of one locale pair (the PO catalogs), each with its line;
/// `error` locates a store failure at a line.
pub(crate) fn analyze_segments(
    file: &str,
    segments: &[(Segment<'_>, u64)],
    skipped: usize,
    (source, target): (&Locale, &Locale),
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
    error: &dyn Fn(u64, String) -> FormatError,
) -> Result<(Analysis, Vec<Counted>), FormatError> {
    let queries: Vec<crate::recycle::Query<'_>> =
        segments.iter().map(|(s, _)| (s.runs, source.clone(), target.clone(), s.context.clone())).collect();
    let results = lookup_watched(store, &queries, options)?;
    let term_issues = count_term_issues(store, &queries, &results, Format::Store, file)?;
    let bests = segments.iter().zip(results).map(|((_, line), result)| match result.as_deref() {
        Some(Ok(matches)) => Ok(best_of(matches)),
        Some(Err(e)) if e.kind() == cmem_core::ErrorKind::InvalidQuery => Ok(None),
        Some(Err(e)) => Err(error(*line, e.message_and_causes())),
        None => Err(error(*line, "the lookup gave no result".to_owned())),
    });
    let counted = banded(segments.iter().map(|(s, _)| s), bests, &options.bands)?;
    let mut report = analysis(file, &counted, skipped, &options.bands);
    report.pairs = vec![(source.clone(), target.clone())];
    report.term_issues = term_issues;
    Ok((report, counted))
}

/// Analyzes the XLIFF document read from `input` (named `name` in messages).
///
/// # Errors
/// As [`XliffDocument::read`] and [`analyze_document`].
pub fn analyze(
    input: impl std::io::Read,
    name: &str,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<Analysis, FormatError> {
    let doc = XliffDocument::read(input, name)?;
    analyze_document(&doc, store, options)
}

/// The leverage report of several files analyzed in one run: each file's own report,
/// and a grand total in which a segment seen in an earlier file of the run counts as a
/// repetition too (it will be translated once for all the files), unless it is a
/// context match.
#[derive(Debug, Default)]
pub struct Batch {
    files: Vec<Analysis>,
    seen: HashSet<String>,
    counted: Vec<Counted>,
    skipped: usize,
    term_issues: usize,
    bands: Bands,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Batch::default()
    }

    /// Adds a file's report and its counted segments (see [`Batch::add_file`]); returns
    /// its report.
    pub(crate) fn add(
        &mut self,
        analysis: Analysis,
        counted: Vec<Counted>,
        options: &AnalyzeOptions,
    ) -> &Analysis {
        for mut c in counted {
            if !self.seen.insert(c.key.clone()) && c.band != Band::Context {
                c.band = Band::Repetition;
            }
            self.counted.push(c);
        }
        self.skipped += analysis.skipped;
        self.term_issues += analysis.term_issues;
        self.bands = options.bands.clone();
        self.files.push(analysis);
        &self.files[self.files.len() - 1]
    }

    /// The reports of the files added, in order.
    pub fn files(&self) -> &[Analysis] {
        &self.files
    }

    /// The grand total, named `total`, with repetitions across files.
    pub fn total(&self) -> Analysis {
        let mut total = analysis("total", &self.counted, self.skipped, &self.bands);
        total.term_issues = self.term_issues;
        total
    }
}

/// Analyzes the XLIFF file at `path`.
///
/// # Errors
/// As [`XliffDocument::read`] and [`analyze_document`].
pub fn analyze_file(
    path: &Path,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<Analysis, FormatError> {
    let name = path.display().to_string();
    let raw = std::fs::read(path).map_err(|e| {
        FormatError::new(Format::Xliff, FormatErrorKind::Io, format!("cannot read: {e}")).in_file(&name)
    })?;
    let doc = XliffDocument::parse(raw, &name)?;
    analyze_document(&doc, store, options)
}
