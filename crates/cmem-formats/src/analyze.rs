//! Analyze: the leverage report of an XLIFF document against a memory (docs/matching.md §10).
//!
//! Each translatable segment with text is looked up once (best match, threshold
//! 0.50) and counted in one band by its best score: **exact** (an unambiguous 100 %
//! match), **95–99** (an ambiguous exact match scores 99), **85–94**, **75–84**,
//! **50–74**, **no match**. A segment whose source (its structural key: text and code
//! positions, normalized) already appeared earlier in the document counts as a
//! **repetition** instead, as the industry's reports do: it will be translated once.
//! Segments under `translate="no"` or with no text are not counted.
//!
//! There is no context (101 %) band: XLIFF carries no context the memory stores.
//!
//! Words are counted as translators are paid: white-space-separated words in spaced
//! scripts (a token of punctuation only is no word), and each character in scripts
//! written without spaces (Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer, Myanmar).

use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use cmem_core::{structural_text, ContentMemory, Locale, LookupOptions, Point, Run};
use serde::Serialize;

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::recycle::{
    default_threads, has_text, lookup_all, lookup_matches, lookup_queries, recognized_sources,
};
use crate::xliff::XliffDocument;

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
    /// The lookup's budgets and caps (`verify_budget`, `max_candidates`, …); its
    /// threshold (0.50), limit (1) and point are set by the analysis.
    pub lookup: LookupOptions,
    /// Recognizes inline codes in segments whose source has no inline elements, as
    /// [`RecycleOptions::recognizer`](crate::RecycleOptions::recognizer) does, so the
    /// bands are what recycling would fill. Default: none.
    pub recognizer: Option<cmem_core::recognize::Recognizer>,
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
        }
    }
}

/// A match band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// A repetition of an earlier segment of the document.
    Repetition,
    /// An unambiguous 100 % match.
    Exact,
    /// 95–99 %.
    Fuzzy95,
    /// 85–94 %.
    Fuzzy85,
    /// 75–84 %.
    Fuzzy75,
    /// 50–74 %.
    Fuzzy50,
    /// Below 50 % or nothing.
    NoMatch,
}

impl Band {
    /// Every band, in report order.
    pub const ALL: [Band; 7] = [
        Band::Repetition,
        Band::Exact,
        Band::Fuzzy95,
        Band::Fuzzy85,
        Band::Fuzzy75,
        Band::Fuzzy50,
        Band::NoMatch,
    ];

    /// The label in the table (`95-99%`).
    pub fn label(self) -> &'static str {
        match self {
            Band::Repetition => "repetitions",
            Band::Exact => "100%",
            Band::Fuzzy95 => "95-99%",
            Band::Fuzzy85 => "85-94%",
            Band::Fuzzy75 => "75-84%",
            Band::Fuzzy50 => "50-74%",
            Band::NoMatch => "no match",
        }
    }

    /// The band of a best match (`None`: no match at or above 50 %).
    pub fn of(score: Option<f64>, ambiguous: bool) -> Band {
        let Some(score) = score else { return Band::NoMatch };
        let pct = (score * 100.0 + 1e-9).floor();
        if pct >= 100.0 && !ambiguous {
            Band::Exact
        } else if pct >= 95.0 {
            Band::Fuzzy95
        } else if pct >= 85.0 {
            Band::Fuzzy85
        } else if pct >= 75.0 {
            Band::Fuzzy75
        } else if pct >= 50.0 {
            Band::Fuzzy50
        } else {
            Band::NoMatch
        }
    }
}

/// One row of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BandCount {
    /// The band.
    pub band: Band,
    /// Segments in it.
    pub segments: usize,
    /// Their words.
    pub words: usize,
}

/// The leverage report of one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Analysis {
    /// The file analyzed.
    pub file: String,
    /// One row per band, in [`Band::ALL`] order.
    pub bands: Vec<BandCount>,
    /// Segments counted (the sum of the rows).
    pub segments: usize,
    /// Words counted.
    pub words: usize,
    /// Segments not counted: not translatable or without text.
    pub skipped: usize,
}

impl Analysis {
    /// The row of `band`.
    pub fn band(&self, band: Band) -> Option<&BandCount> {
        self.bands.iter().find(|b| b.band == band)
    }
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.file)?;
        writeln!(f, "{:<12} {:>9} {:>9} {:>7}", "band", "segments", "words", "words%")?;
        for row in &self.bands {
            let share = if self.words == 0 { 0.0 } else { row.words as f64 * 100.0 / self.words as f64 };
            writeln!(f, "{:<12} {:>9} {:>9} {:>6.1}%", row.band.label(), row.segments, row.words, share)?;
        }
        writeln!(f, "{:<12} {:>9} {:>9} {:>6.1}%", "total", self.segments, self.words, 100.0)?;
        if self.skipped > 0 {
            let noun = if self.skipped == 1 { "segment" } else { "segments" };
            writeln!(f, "({} {noun} not translatable or without text)", self.skipped)?;
        }
        Ok(())
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
    cmem_core::run::walk_runs(runs, &mut |r| {
        if let Run::Text(t) = r {
            text.push_str(t);
        } else {
            text.push(' ');
        }
    });
    count_words(&text)
}

/// One counted segment: its repetition key (structural text), its band, its words.
pub(crate) type Counted = (String, Band, usize);

/// The rows of counted segments.
fn rows(counted: &[Counted]) -> Vec<BandCount> {
    let mut bands: Vec<BandCount> =
        Band::ALL.iter().map(|&band| BandCount { band, segments: 0, words: 0 }).collect();
    for (_, band, words) in counted {
        if let Some(row) = bands.iter_mut().find(|b| b.band == *band) {
            row.segments += 1;
            row.words += words;
        }
    }
    bands
}

fn analysis(file: &str, counted: &[Counted], skipped: usize) -> Analysis {
    let bands = rows(counted);
    let segments = bands.iter().map(|b| b.segments).sum();
    let words = bands.iter().map(|b| b.words).sum();
    Analysis { file: file.to_owned(), bands, segments, words, skipped }
}

/// The segments of `counted` (words, first occurrence in the file, key) with their bands:
/// `bests` holds the best match of each first occurrence, in order.
fn banded(
    counted: Vec<(usize, bool, String)>,
    mut bests: impl Iterator<Item = Result<Option<(f64, bool)>, FormatError>>,
) -> Result<Vec<Counted>, FormatError> {
    let mut out = Vec::with_capacity(counted.len());
    for (words, first, key) in counted {
        let band = if first {
            let best = bests.next().transpose()?.flatten();
            Band::of(best.map(|b| b.0), best.is_some_and(|b| b.1))
        } else {
            Band::Repetition
        };
        out.push((key, band, words));
    }
    Ok(out)
}

/// Analyzes a parsed document; also gives each counted segment.
pub(crate) fn analyze_counted(
    doc: &XliffDocument,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<(Analysis, Vec<Counted>), FormatError> {
    let lookup_options = options.lookup.clone().threshold(0.5).limit(1).maybe_point(options.point.clone());
    let mut seen: HashSet<String> = HashSet::new();
    let mut skipped = 0;
    // (segment, words, first occurrence, key)
    let mut counted: Vec<(usize, (usize, bool, String))> = Vec::new();
    for (index, seg) in doc.segments().iter().enumerate() {
        if !seg.translatable || !has_text(&seg.source) {
            skipped += 1;
            continue;
        }
        let key = structural_text(&seg.source);
        counted.push((index, (count_run_words(&seg.source), seen.insert(key.clone()), key)));
    }
    let firsts: Vec<usize> = counted.iter().filter(|c| c.1 .1).map(|c| c.0).collect();
    let recognized = recognized_sources(doc, &firsts, options.recognizer.as_ref());
    let queries = lookup_queries(
        doc,
        &firsts,
        &recognized,
        options.source_locale.as_ref(),
        options.target_locale.as_ref(),
    )?;
    let results = lookup_all(store, &queries, &lookup_options, options.threads);
    // A source the lookup refuses (longer than its cap) matches nothing.
    let bests = firsts.iter().zip(results).map(|(&index, result)| {
        Ok(lookup_matches(doc, index, result.as_deref())?
            .and_then(|m| m.first())
            .map(|m| (m.score, m.ambiguous)))
    });
    let counted = banded(counted.into_iter().map(|c| c.1).collect(), bests)?;
    Ok((analysis(doc.file(), &counted, skipped), counted))
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
/// assert_eq!((analysis.segments, analysis.words), (3, 8));
/// let words = |band| analysis.band(band).map(|row| row.words);
/// assert_eq!(words(Band::Exact), Some(3));
/// assert_eq!(words(Band::Repetition), Some(3));
/// assert_eq!(words(Band::NoMatch), Some(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn analyze_document(
    doc: &XliffDocument,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<Analysis, FormatError> {
    analyze_counted(doc, store, options).map(|(a, _)| a)
}

/// Analyzes segments given as their looked-up source runs and lines, all of one
/// locale pair (the PO catalogs); `error` locates a store failure at a line.
pub(crate) fn analyze_segments(
    file: &str,
    segments: &[(Vec<Run>, u64)],
    skipped: usize,
    (source, target): (&Locale, &Locale),
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
    error: &dyn Fn(u64, String) -> FormatError,
) -> Result<(Analysis, Vec<Counted>), FormatError> {
    let lookup_options = options.lookup.clone().threshold(0.5).limit(1).maybe_point(options.point.clone());
    let mut seen: HashSet<String> = HashSet::new();
    let mut counted = Vec::with_capacity(segments.len());
    let mut queries = Vec::new();
    let mut lines = Vec::new();
    for (runs, line) in segments {
        let key = structural_text(runs);
        let first = seen.insert(key.clone());
        if first {
            queries.push((runs.as_slice(), source.clone(), target.clone()));
            lines.push(*line);
        }
        counted.push((count_run_words(runs), first, key));
    }
    let results = lookup_all(store, &queries, &lookup_options, options.threads);
    let bests = lines.iter().zip(results).map(|(&line, result)| match result.as_deref() {
        Some(Ok(matches)) => Ok(matches.first().map(|m| (m.score, m.ambiguous))),
        Some(Err(e)) if e.kind() == cmem_core::ErrorKind::InvalidQuery => Ok(None),
        Some(Err(e)) => Err(error(line, e.to_string())),
        None => Err(error(line, "the lookup gave no result".to_owned())),
    });
    let counted = banded(counted, bests)?;
    Ok((analysis(file, &counted, skipped), counted))
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

/// The first line of [`Analysis::csv_rows`].
pub const CSV_HEADER: &str = "file,band,segments,words,words_percent\n";

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

impl Analysis {
    /// The report as CSV rows (RFC 4180, after [`CSV_HEADER`]): one per band and a
    /// `total` row, each `file,band,segments,words,words_percent`.
    pub fn csv_rows(&self) -> String {
        let file = csv_field(&self.file);
        let share = |w: usize| if self.words == 0 { 0.0 } else { w as f64 * 100.0 / self.words as f64 };
        let mut out = String::new();
        for row in &self.bands {
            out.push_str(&format!(
                "{file},{},{},{},{:.1}\n",
                csv_field(row.band.label()),
                row.segments,
                row.words,
                share(row.words)
            ));
        }
        out.push_str(&format!("{file},total,{},{},100.0\n", self.segments, self.words));
        out
    }
}

/// The leverage report of several files analyzed in one run: each file's own report,
/// and a grand total in which a segment seen in an earlier file of the run counts as a
/// repetition too (it will be translated once for all the files).
#[derive(Debug, Default)]
pub struct Batch {
    files: Vec<Analysis>,
    seen: HashSet<String>,
    counted: Vec<Counted>,
    skipped: usize,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Batch::default()
    }

    /// Analyzes the file at `path` (a PO or POT catalog by its extension, else XLIFF)
    /// and adds it to the batch; returns its own report.
    ///
    /// # Errors
    /// As [`analyze_file`] and [`analyze_po`](crate::po::analyze_po).
    pub fn add_file(
        &mut self,
        path: &Path,
        store: &dyn ContentMemory,
        options: &AnalyzeOptions,
    ) -> Result<&Analysis, FormatError> {
        let name = path.display().to_string();
        let (analysis, counted) = if crate::import::format_of(path) == Some(Format::Po) {
            let file = std::fs::File::open(path)
                .map_err(|e| FormatError::io(Format::Po, "cannot read", e).in_file(&name))?;
            crate::po::analyze_po_counted(std::io::BufReader::new(file), &name, store, options)?
        } else {
            let raw = std::fs::read(path).map_err(|e| {
                FormatError::new(Format::Xliff, FormatErrorKind::Io, format!("cannot read: {e}"))
                    .in_file(&name)
            })?;
            analyze_counted(&XliffDocument::parse(raw, &name)?, store, options)?
        };
        for (key, band, words) in counted {
            let band = if self.seen.insert(key.clone()) { band } else { Band::Repetition };
            self.counted.push((key, band, words));
        }
        self.skipped += analysis.skipped;
        self.files.push(analysis);
        Ok(&self.files[self.files.len() - 1])
    }

    /// The reports of the files added, in order.
    pub fn files(&self) -> &[Analysis] {
        &self.files
    }

    /// The grand total, named `total`, with repetitions across files.
    pub fn total(&self) -> Analysis {
        analysis("total", &self.counted, self.skipped)
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
