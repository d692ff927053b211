//! Recycle: pre-translate an XLIFF document from a memory (docs/matching.md §10).
//!
//! Each translatable segment with no approved target (and, unless
//! [`RecycleOptions::overwrite`], no target at all) is looked up at
//! [`fuzzy_threshold`](RecycleOptions::fuzzy_threshold). The best match at or above
//! [`fill_threshold`](RecycleOptions::fill_threshold) becomes the target: its
//! `adapted_target` (the stored target with this document's entities and codes carried
//! in), written with the document's own inline elements (see [`crate::xliff`]). The
//! other matches at or above the fuzzy threshold are written as candidates: XLIFF 1.2
//! `<alt-trans match-quality="87" origin="cmem" alttranstype="proposal">`, XLIFF 2
//! `<mtc:match similarity="87" matchQuality="87" origin="cmem" type="tm" ref="#s1">`
//! (the `mtc` namespace is declared on the root when missing).
//!
//! A candidate is a pair that belongs together: the memory's source and target as
//! stored (the target's codes those of the document), or, when adaptation changed the
//! target's text (a final mark or number repaired, an entity value carried in), the
//! segment's own source beside that adapted target, labelled: a 1.x
//! `<note>cmem: adapted to this source (punctuation)</note>`, a 2.x
//! `subType="cmem:adapted"`. Identical pairs (entries of other units or points with the
//! same text) are written once, at the best score.
//!
//! # States
//!
//! | fill | XLIFF 1.2 `target` | XLIFF 2 `segment` |
//! |---|---|---|
//! | a context match (docs/matching.md §4), fully adapted, every code placed | `state="translated" state-qualifier="id-match"` | `state="translated" subState="cmem:context-match"` |
//! | exact, unambiguous, fully adapted, every code placed | `state="translated" state-qualifier="exact-match"` | `state="translated"` (any `subState` removed) |
//! | a repetition its own lookup left empty, from its first occurrence's fill ([`RecycleOptions::fill_repetitions`]) | `state="needs-review-translation" state-qualifier="leveraged-inherited"` | `state="translated" subState="cmem:repetition"` |
//! | an ambiguous best match whose answer dominates, with [`FillAmbiguous::Dominant`] | `state="needs-review-translation" state-qualifier="leveraged-tm"` | `state="translated" subState="cmem:needs-review-ambiguous"` |
//! | a match whose target the word repair changed ([`cmem_core::repair::words`]) | `state="needs-review-translation" state-qualifier="fuzzy-match"` | `state="translated" subState="cmem:needs-review-repaired"` |
//! | anything else | `state="needs-review-translation" state-qualifier="fuzzy-match"` | `state="translated" subState="cmem:needs-review"` |
//!
//! An ambiguous best match (equal scores, differing answers, no point) fills nothing by
//! default; its answers are written as candidates.
//!
//! A fill whose target the word repair changed (only ever at or above the fill
//! threshold, like every fill) has the target without the word repair as its first
//! candidate, so a translator sees both: a 1.x `<alt-trans>` with
//! `<note>cmem: without the word repair (the fill replaced "Datei" → "Ordner")</note>`,
//! a 2.x `<mtc:match subType="cmem:unrepaired">`. Its source is the memory's, or the
//! segment's when other adaptations changed that target too. It counts among
//! [`RecycleOptions::max_candidates`].
//!
//! XLIFF 2 has no state that asks for review, so the review request is the `subState`
//! (a `prefix:value` whose prefix names the tool that defines it). In a segmented 1.2
//! unit the `target`'s state covers all its segments: it asks for review when any fill
//! does, and an exact fill leaves a state the target already has. A 2.x document
//! without `trgLang` gets one with its first target. With
//! [`RecycleOptions::review_exact`] exact fills are marked for review too.
//!
//! [`recycle_file`](crate::recycle_file) writes its output as an [`OutputFile`](crate::output::OutputFile):
//! a temporary file in the output's directory renamed into place, so an error never
//! leaves a half-written output; a link is written through, a device directly.
//!
//! Vendor status extensions (`sdl:seg conf`, `mq:status`, `memsource:` attributes) are
//! copied as they are: recycle writes only the standard state.
//!
//! ```
//! use cmem_core::{Locale, MemStore, NewEntry, Run, Variant, ContentMemory};
//! use cmem_formats::{recycle, RecycleOptions};
//!
//! let store = MemStore::new();
//! let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
//! store.write(&[NewEntry::pair(
//!     Variant::new(en, vec![Run::text("Save the file")]),
//!     Variant::new(de, vec![Run::text("Datei speichern")]),
//! )])?;
//! let xlf = r#"<xliff version="1.2"><file source-language="en" target-language="de" datatype="x" original="a"><body>
//! <trans-unit id="1"><source>Save the file</source></trans-unit>
//! </body></file></xliff>"#;
//! let mut out = Vec::new();
//! let report = recycle(xlf.as_bytes(), "a.xlf", &mut out, &store, &RecycleOptions::default())?;
//! assert_eq!(report.filled_exact, 1);
//! assert!(String::from_utf8(out)?.contains(
//!     r#"<source>Save the file</source><target xml:lang="de" state="translated" state-qualifier="exact-match">Datei speichern</target>"#
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cmem_core::model::run::runs_to_json;
use cmem_core::{
    lookup, ContentMemory, EntryId, Locale, LookupOptions, LookupRequest, Match, Point, QueryContext, Run,
};
use serde::Serialize;

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::xliff::{Candidate, XliffDocument, XliffVersion};

/// Whether a segment whose best matches are ambiguous (equally good, with differing
/// answers, and no point to settle them) is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FillAmbiguous {
    /// Never: the answers become candidates, for a person to choose (the default).
    #[default]
    Never,
    /// When one answer dominates by evidence: approved at least twice, and at least
    /// twice as often as every other answer among the best matches (approvals of equal
    /// answers counted together). The fill is always marked for review, never exact.
    Dominant,
}

/// The most best matches the lookup returns when [`FillAmbiguous::Dominant`] must see
/// every ambiguous answer; a list that is full of ambiguous matches is not settled.
const AMBIGUOUS_LIMIT: usize = 16;

/// Which of `matches` (at most `limit` long) fills a segment: the best at or above
/// `threshold` unless it is ambiguous; then, when the options allow it, the answer that
/// dominates by evidence. The one rule of every recycled format.
pub(crate) fn fill_pick(
    matches: &[Match],
    threshold: f64,
    options: &RecycleOptions,
    limit: usize,
) -> Option<usize> {
    match matches.first().filter(|m| m.score >= threshold) {
        Some(best) if !best.ambiguous => Some(0),
        Some(_) if options.fill_ambiguous == FillAmbiguous::Dominant => dominant_answer(matches, limit),
        _ => None,
    }
}

/// The first occurrence of each source of a file, by its runs' JSON: its line and what
/// filled it, so that a repetition can take the first occurrence's fill.
#[derive(Debug)]
pub(crate) struct FirstOccurrences<T>(HashMap<String, (u64, Option<T>)>);

impl<T: Clone> FirstOccurrences<T> {
    pub(crate) fn new() -> Self {
        FirstOccurrences(HashMap::new())
    }

    /// For a repetition of `key`, its first occurrence (counted in `report`); else
    /// records this one, at `line`, as the first and answers `None`.
    pub(crate) fn see(
        &mut self,
        key: &str,
        line: u64,
        report: &mut RecycleReport,
    ) -> Option<(u64, Option<T>)> {
        match self.0.get(key) {
            Some(found) => {
                report.repetitions += 1;
                Some(found.clone())
            }
            None => {
                self.0.insert(key.to_owned(), (line, None));
                None
            }
        }
    }

    /// Records what filled the first occurrence of `key`, at `line`.
    pub(crate) fn filled(&mut self, key: String, line: u64, fill: T) {
        self.0.insert(key, (line, Some(fill)));
    }
}

/// The match to fill an ambiguous segment with: the first match of the answer that
/// dominates by evidence (see [`FillAmbiguous::Dominant`]), `None` when no answer does,
/// when the best match is not ambiguous, or when `matches` (at most `limit` long) may
/// have left ambiguous answers out.
pub(crate) fn dominant_answer(matches: &[Match], limit: usize) -> Option<usize> {
    let (first, last) = (matches.first()?, matches.last()?);
    // Ambiguous matches share one score; a full list ending at that score may have cut
    // some off.
    if !first.ambiguous || (matches.len() >= limit && last.score >= first.score) {
        return None;
    }
    let ambiguous: Vec<usize> = (0..matches.len()).filter(|&i| matches[i].ambiguous).collect();
    // (answer, approvals, first match) per distinct adapted target, in list order.
    let mut answers: Vec<(String, u64, usize)> = Vec::new();
    for &i in &ambiguous {
        let answer = runs_to_json(&matches[i].adapted_target);
        let approvals = u64::from(matches[i].entry.approvals());
        match answers.iter_mut().find(|(a, _, _)| *a == answer) {
            Some(found) => found.1 += approvals,
            None => answers.push((answer, approvals, i)),
        }
    }
    let (best, rest) = answers.iter().enumerate().max_by_key(|(k, a)| (a.1, std::cmp::Reverse(*k)))?;
    let dominates = answers.len() > 1
        && rest.1 >= 2
        && answers.iter().enumerate().all(|(k, a)| k == best || a.1.saturating_mul(2) <= rest.1);
    dominates.then_some(rest.2)
}

/// Recycle options.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RecycleOptions {
    /// Matches below this are ignored, 0–1; default 0.70.
    pub fuzzy_threshold: f64,
    /// The best match at or above this fills the target, 0–1; default 0.95.
    pub fill_threshold: f64,
    /// The point the document belongs to, for lookups.
    pub point: Option<Point>,
    /// Overrides the document's source language.
    pub source_locale: Option<Locale>,
    /// Overrides the document's target language.
    pub target_locale: Option<Locale>,
    /// Replace existing (unapproved) targets; default false.
    pub overwrite: bool,
    /// Mark exact fills for review too; default false.
    pub review_exact: bool,
    /// At most this many candidates per segment; default 3.
    pub max_candidates: usize,
    /// The `origin` written on candidates; default `cmem`.
    pub origin: String,
    /// Lookups run on this many threads; default: the available parallelism.
    pub threads: usize,
    /// The lookup's budgets and caps (`verify_budget`, `max_candidates`, …); its
    /// threshold, limit and point are set from the fields above.
    pub lookup: LookupOptions,
    /// Recognizes inline codes (`%s`, `{0}`, `<b>`…) in segments whose source has no
    /// inline elements, so they match a memory whose plain strings were recognized
    /// (what `cmem import` does). What such a segment receives is plain text again: the
    /// codes' native text, since the document has no elements for them. Default: none.
    pub recognizer: Option<cmem_core::model::recognize::Recognizer>,
    /// Whether a segment whose best matches are ambiguous is filled; default
    /// [`FillAmbiguous::Never`].
    pub fill_ambiguous: FillAmbiguous,
    /// A repetition (a later segment with the same source runs) whose own lookup fills
    /// nothing takes its first occurrence's fill, marked for review as a repetition
    /// (its own context may differ: the first may have been a context match); default
    /// true.
    pub fill_repetitions: bool,
}

impl RecycleOptions {
    /// Refuses thresholds outside 0–1 (a percentage given as a fraction's place, say),
    /// naming the `format` being recycled.
    pub(crate) fn check_thresholds(&self, format: Format) -> Result<(), FormatError> {
        let bad = |t: f64| !(0.0..=1.0).contains(&t);
        if bad(self.fuzzy_threshold) || bad(self.fill_threshold) {
            return Err(FormatError::new(
                format,
                FormatErrorKind::InvalidField,
                format!(
                    "thresholds must be within 0–1 (fuzzy {}, fill {})",
                    self.fuzzy_threshold, self.fill_threshold
                ),
            ));
        }
        Ok(())
    }

    /// The lookup limit recycle asks for: one fill and the candidates, or enough to see
    /// every ambiguous answer when those may fill.
    pub(crate) fn lookup_limit(&self, fills_and_candidates: usize) -> usize {
        match self.fill_ambiguous {
            FillAmbiguous::Never => fills_and_candidates.max(1),
            FillAmbiguous::Dominant => fills_and_candidates.max(AMBIGUOUS_LIMIT),
        }
    }
}

/// The default [`RecycleOptions::fill_threshold`]: a best match at 95 % or more fills.
pub const DEFAULT_FILL_THRESHOLD: f64 = 0.95;

impl Default for RecycleOptions {
    fn default() -> Self {
        RecycleOptions {
            // The lookup's own default: the threshold lives in one place.
            fuzzy_threshold: LookupOptions::default().threshold,
            fill_threshold: DEFAULT_FILL_THRESHOLD,
            point: None,
            source_locale: None,
            target_locale: None,
            overwrite: false,
            review_exact: false,
            max_candidates: 3,
            origin: "cmem".to_owned(),
            threads: default_threads(),
            lookup: LookupOptions::default(),
            recognizer: None,
            fill_ambiguous: FillAmbiguous::Never,
            fill_repetitions: true,
        }
    }
}

/// What recycling did, per segment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RecycleReport {
    /// Segments in the document.
    pub segments: usize,
    /// Targets written.
    pub filled: usize,
    /// Of those, exact fills (not marked for review).
    pub filled_exact: usize,
    /// Of the exact fills, context matches (101 %: the entry was approved for this
    /// unit, or between the same neighbours).
    pub filled_context: usize,
    /// Segments looked up whose source (its runs) an earlier segment of the document
    /// has: in-document repetitions.
    pub repetitions: usize,
    /// Repetitions filled from the first occurrence's fill, when their own lookup
    /// filled nothing (marked for review; see [`RecycleOptions::fill_repetitions`]).
    pub filled_repetitions: usize,
    /// Of those, fills with an ambiguous answer that dominates by evidence
    /// ([`FillAmbiguous::Dominant`]; marked for review).
    pub filled_ambiguous: usize,
    /// Of the fills, targets the word repair changed (marked for review, the target
    /// without the repair written as a candidate).
    pub filled_repaired: usize,
    /// Segments not filled that got candidates.
    pub with_candidates: usize,
    /// Segments looked up with no match at or above the fuzzy threshold.
    pub untouched: usize,
    /// Segments not looked up: not translatable, approved, already translated (without
    /// `overwrite`), no text, a segmented target without that segment's `mrk`, or a
    /// source the lookup refuses (longer than its `max_query_chars`). Each is listed in
    /// [`skips`](Self::skips) with its reason.
    pub skipped: usize,
    /// Every skipped segment, in document order, with why it was skipped.
    pub skips: Vec<Skip>,
    /// The source and target locales looked up (none when no segment was).
    pub pair: Option<(Locale, Locale)>,
    /// Code runs of filled targets that had no counterpart among the document's source
    /// codes and were left out (such fills are marked for review).
    pub codes_dropped: usize,
    /// Code runs of candidates left out for the same reason (a candidate's source is
    /// another text, whose codes this segment may not have).
    pub candidate_codes_dropped: usize,
    /// Fills whose target does not use the memory's translation of a term their source
    /// holds (the terminology check; the pair's glossary, `cmem terms`): each listed in
    /// [`term_issues`](Self::term_issues) and noted in the output.
    pub filled_term_issues: usize,
    /// Every term a fill does not translate as the memory does, in document order.
    pub term_issues: Vec<TermIssue>,
    /// Segments left without a fill that got fragments (stretches the memory translates
    /// consistently; never filled in), written where the format has a place for them.
    pub with_fragments: usize,
}

/// A fill that does not use the memory's translation of a term its source holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TermIssue {
    /// The segment's line in the document.
    pub line: u64,
    /// Its unit's id (XLIFF) or key (`.properties`); empty for a PO message.
    pub unit: String,
    /// The term as the segment's source writes it.
    pub term: String,
    /// The memory's translation of it, which the fill does not use.
    pub expected: String,
}

/// What the memory knows beside the matches, read once per document: the pair's
/// glossary (for the terminology check) and its word model (for fragments).
pub(crate) struct Evidence {
    glossary: cmem_core::store::learn::PairGlossary,
    model: Option<Arc<cmem_core::align::WordModel>>,
}

impl Evidence {
    /// The evidence of `source` → `target` in `store`; a store failure is named as the
    /// recycle of `file`'s.
    pub(crate) fn load(
        store: &dyn ContentMemory,
        source: &Locale,
        target: &Locale,
        format: Format,
        file: &str,
    ) -> Result<Evidence, FormatError> {
        use cmem_core::ContentMemoryExt;
        let failed = |e: cmem_core::Error| {
            FormatError::new(format, FormatErrorKind::Store, e.message_and_causes()).in_file(file)
        };
        let model = store.word_model(source, target).map_err(failed)?;
        let glossary =
            cmem_core::store::learn::PairGlossary::with_model(store, source, target, model.as_deref())
                .map_err(failed)?;
        Ok(Evidence { glossary, model })
    }

    /// The terms `source` holds whose translation `target` does not use.
    pub(crate) fn missed_terms(&self, source: &[Run], target: &[Run]) -> Vec<cmem_core::align::FoundTerm> {
        if self.glossary.is_empty() {
            return Vec::new();
        }
        let target = cmem_core::align::text_of(target);
        self.glossary
            .find(&cmem_core::align::text_of(source))
            .into_iter()
            .filter(|f| !cmem_core::align::uses_translation(&target, &f.term.target))
            .collect()
    }

    /// The fragments of `source`: none without a word model.
    pub(crate) fn fragments(&self, source: &[Run]) -> Vec<cmem_core::align::Fragment> {
        match &self.model {
            Some(model) => model
                .fragments(&cmem_core::align::text_of(source), &cmem_core::align::FragmentOptions::default()),
            None => Vec::new(),
        }
    }

    /// Checks a fill of the segment at `line` (`unit`): records each missed term in
    /// `report` and returns the notes to write, one per term.
    pub(crate) fn check_fill(
        &self,
        source: &[Run],
        target: &[Run],
        line: u64,
        unit: &str,
        report: &mut RecycleReport,
    ) -> Vec<String> {
        let missed = self.missed_terms(source, target);
        if !missed.is_empty() {
            report.filled_term_issues += 1;
        }
        missed
            .into_iter()
            .map(|f| {
                let note = term_note(&f);
                report.term_issues.push(TermIssue {
                    line,
                    unit: unit.to_owned(),
                    term: f.found,
                    expected: f.term.target,
                });
                note
            })
            .collect()
    }
}

/// The note of a term a fill does not translate as the memory does.
pub(crate) fn term_note(f: &cmem_core::align::FoundTerm) -> String {
    let how = if f.given { "the given glossary" } else { "the memory" };
    format!("terminology: {how} translates {:?} as {:?}; this fill does not use it", f.found, f.term.target)
}

/// The note of a fragment: the stretch, the memory's translation, the agreement.
pub(crate) fn fragment_note(f: &cmem_core::align::Fragment) -> String {
    format!("fragment: {:?} → {:?} ({} of {} agree)", f.source, f.target, f.agreeing, f.seen)
}

/// A segment recycle left as it was without looking it up (or whose match it could not
/// write), and why: one per [`RecycleReport::skipped`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Skip {
    /// The segment's line in the document.
    pub line: u64,
    /// Its unit's id (XLIFF); empty for a PO message.
    pub unit: String,
    /// Why, in a few words: `approved`, `already translated (--overwrite replaces it)`.
    pub reason: &'static str,
}

impl RecycleReport {
    /// Counts a skipped segment and keeps why.
    pub(crate) fn skip(&mut self, line: u64, unit: &str, reason: &'static str) {
        self.skipped += 1;
        self.skips.push(Skip { line, unit: unit.to_owned(), reason });
    }

    /// How a catalog format (PO, `.properties`) fills from `best`: `(clean, exact)`, a
    /// fill for use (at the fill threshold, no word repair, not ambiguous, adapted whole,
    /// exact fills not held for review) and, of those, an exact one.
    pub(crate) fn catalog_fill(best: &Match, options: &RecycleOptions) -> (bool, bool) {
        let clean = best.score >= options.fill_threshold
            && !best.words_repaired()
            && !best.ambiguous
            && best.adaptation_complete()
            && !options.review_exact;
        (clean, clean && best.match_type.is_exact() && best.score >= 1.0)
    }

    /// Counts a catalog fill from `best` (see [`catalog_fill`](Self::catalog_fill)): for
    /// use, for review at the fill threshold (ambiguous or repaired), or a candidate only.
    pub(crate) fn count_catalog_fill(&mut self, best: &Match, options: &RecycleOptions) {
        let (clean, exact) = RecycleReport::catalog_fill(best, options);
        if clean {
            self.filled += 1;
            if exact {
                self.filled_exact += 1;
            }
        } else if best.score >= options.fill_threshold {
            self.filled += 1;
            if best.ambiguous {
                self.filled_ambiguous += 1;
            }
            if best.words_repaired() {
                self.filled_repaired += 1;
            }
        } else {
            self.with_candidates += 1;
        }
    }
}

/// Why recycle skips a segment: the source refused by the lookup (longer than its cap).
pub(crate) const SKIP_TOO_LONG: &str = "the source is longer than a lookup takes";

impl std::fmt::Display for RecycleReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} segments: {} filled ({} exact), {} with candidates, {} untouched, {} skipped",
            self.segments, self.filled, self.filled_exact, self.with_candidates, self.untouched, self.skipped
        )?;
        if self.filled_context > 0 {
            write!(f, "; {} context matches", self.filled_context)?;
        }
        if self.repetitions > 0 {
            write!(f, "; {} repetitions", self.repetitions)?;
            if self.filled_repetitions > 0 {
                write!(f, " ({} filled from their first occurrence)", self.filled_repetitions)?;
            }
        }
        if self.filled_ambiguous > 0 {
            write!(f, "; {} of the fills chose the dominant of ambiguous answers", self.filled_ambiguous)?;
        }
        if self.filled_repaired > 0 {
            write!(f, "; {} of the fills had words repaired (marked for review)", self.filled_repaired)?;
        }
        if self.codes_dropped > 0 {
            write!(f, "; {} inline codes of fills without a counterpart left out", self.codes_dropped)?;
        }
        if self.filled_term_issues > 0 {
            write!(
                f,
                "; {} of the fills do not use the memory's translation of a term (terminology, noted)",
                self.filled_term_issues
            )?;
        }
        if self.with_fragments > 0 {
            write!(f, "; {} segments without a fill got fragments", self.with_fragments)?;
        }
        Ok(())
    }
}

/// Parses locale tags, each distinct tag once.
#[derive(Default)]
pub(crate) struct Locales {
    parsed: HashMap<String, Locale>,
}

impl Locales {
    /// The source and target locales of segment `index`: the options', else its
    /// `file`'s (1.x) or the document's; with `fill_only`, the document's, else the
    /// options' (an import, where what a file says wins).
    ///
    /// # Errors
    /// [`FormatErrorKind::NoSourceLanguage`] or [`NoTargetLanguage`](FormatErrorKind::NoTargetLanguage)
    /// when a language is missing, [`FormatErrorKind::NotXliff`] when one is not BCP 47.
    pub(crate) fn of(
        &mut self,
        doc: &XliffDocument,
        index: usize,
        source: Option<&Locale>,
        target: Option<&Locale>,
        fill_only: bool,
    ) -> Result<(Locale, Locale), FormatError> {
        let seg = &doc.segments()[index];
        let mut pick =
            |given: Option<&Locale>, found: Option<&str>, what: &str| -> Result<Locale, FormatError> {
                if let Some(l) = given.filter(|_| !fill_only || found.is_none()) {
                    return Ok(l.clone());
                }
                let located = |message: String| {
                    FormatError::new(Format::Xliff, FormatErrorKind::NotXliff, message)
                        .in_file(doc.file())
                        .at(seg.line, 1)
                        .for_entry(index as u64 + 1, Some(&seg.unit_id))
                };
                let Some(tag) = found else {
                    let kind = if what == "source" {
                        FormatErrorKind::NoSourceLanguage
                    } else {
                        FormatErrorKind::NoTargetLanguage
                    };
                    return Err(located(format!(
                        "the document names no {what} language; give one in the options"
                    ))
                    .with_kind(kind));
                };
                if let Some(l) = self.parsed.get(tag) {
                    return Ok(l.clone());
                }
                let l = Locale::parse(tag).map_err(|e| located(format!("{what} language {tag:?}: {e}")))?;
                self.parsed.insert(tag.to_owned(), l.clone());
                Ok(l)
            };
        let src = pick(source, seg.source_locale.as_deref().or(doc.source_locale()), "source")?;
        let trg = pick(target, seg.target_locale.as_deref().or(doc.target_locale()), "target")?;
        Ok((src, trg))
    }
}

/// For each segment of `indexes`, its source recognized when a recognizer is given and
/// the source has no inline elements; `None` where the source is looked up as it is.
pub(crate) fn recognized_sources(
    doc: &XliffDocument,
    indexes: &[usize],
    recognizer: Option<&cmem_core::model::recognize::Recognizer>,
) -> Vec<Option<Vec<Run>>> {
    indexes
        .iter()
        .map(|&i| {
            let rec = recognizer?;
            cmem_core::model::run::text_only(&doc.segments()[i].source).map(|text| rec.recognize(&text))
        })
        .collect()
}

/// A lookup: the source runs, the source and target locales, where the segment stands.
pub(crate) type Query<'a> = (&'a [Run], Locale, Locale, QueryContext);

/// Where segment `index` of `doc` stands: its unit id, and the sources of the segments
/// before and after it (docs/matching.md §4). Translated XLIFF imports keep the same
/// ([`XliffReader`](crate::XliffReader)), so a document recycled again finds its
/// context matches.
pub(crate) fn xliff_context(doc: &XliffDocument, index: usize) -> QueryContext {
    let (pre, post) = xliff_neighbours(doc, index);
    QueryContext::of(doc.segments()[index].context_key(), pre, post)
}

/// The sources of the segments before and after segment `index`.
pub(crate) fn xliff_neighbours(doc: &XliffDocument, index: usize) -> (Option<&[Run]>, Option<&[Run]>) {
    let segs = doc.segments();
    let pre = index.checked_sub(1).and_then(|i| segs.get(i)).map(|s| s.source.as_slice());
    (pre, segs.get(index + 1).map(|s| s.source.as_slice()))
}

/// The lookup queries of the segments `indexes`: each one's source as `recognized`
/// (from [`recognized_sources`] for the same `indexes`) gives it, else as it is, with
/// its locales (see [`Locales::of`]).
///
/// # Errors
/// As [`Locales::of`].
pub(crate) fn lookup_queries<'a>(
    doc: &'a XliffDocument,
    indexes: &[usize],
    recognized: &'a [Option<Vec<Run>>],
    source: Option<&Locale>,
    target: Option<&Locale>,
) -> Result<Vec<Query<'a>>, FormatError> {
    let mut locales = Locales::default();
    let mut queries = Vec::with_capacity(indexes.len());
    for (k, &i) in indexes.iter().enumerate() {
        let (src, trg) = locales.of(doc, i, source, target, false)?;
        let runs = recognized[k].as_deref().unwrap_or(doc.segments()[i].source.as_slice());
        queries.push((runs, src, trg, xliff_context(doc, i)));
    }
    Ok(queries)
}

/// The matches of segment `index`'s lookup `result`; `None` for a source the lookup
/// refuses (longer than its cap).
///
/// # Errors
/// [`FormatErrorKind::Store`] for any other failure, or no result.
pub(crate) fn lookup_matches<'a>(
    doc: &XliffDocument,
    index: usize,
    result: Option<&'a cmem_core::Result<Vec<Match>>>,
) -> Result<Option<&'a [Match]>, FormatError> {
    let message = match result {
        Some(Ok(matches)) => return Ok(Some(matches)),
        Some(Err(e)) if e.kind() == cmem_core::ErrorKind::InvalidQuery => return Ok(None),
        Some(Err(e)) => e.message_and_causes(),
        None => "the lookup gave no result".to_owned(),
    };
    let seg = &doc.segments()[index];
    Err(FormatError::new(Format::Store, FormatErrorKind::Store, message)
        .in_file(doc.file())
        .at(seg.line, 1)
        .for_entry(index as u64 + 1, Some(&seg.unit_id)))
}

/// Runs with every code written as its native text (its `equiv` when it has none) and
/// choices as their default form: what a segment without inline elements can hold.
fn codes_as_text(runs: &[Run]) -> Vec<Run> {
    let text = crate::jsonl::surface_text(runs);
    if text.is_empty() {
        Vec::new()
    } else {
        vec![Run::Text(text)]
    }
}

/// True when the runs hold some non-blank text (codes alone are nothing to translate).
pub(crate) fn has_text(runs: &[Run]) -> bool {
    let mut any = false;
    cmem_core::model::run::walk_runs(runs, &mut |r| {
        if let Run::Text(t) = r {
            any |= !t.trim().is_empty();
        }
    });
    any
}

/// One lookup's result, shared by the segments with that source.
pub(crate) type Shared = Arc<cmem_core::Result<Vec<Match>>>;

/// The available parallelism (1 when unknown).
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Told how many lookups of a run are done, and of how many, as each one ends (from the
/// lookup threads): what a progress bar follows.
#[derive(Clone)]
pub struct LookupProgress(Arc<dyn Fn(usize, usize) + Send + Sync>);

impl LookupProgress {
    /// Calls `f(done, total)` as each lookup ends.
    pub fn new(f: impl Fn(usize, usize) + Send + Sync + 'static) -> Self {
        LookupProgress(Arc::new(f))
    }
}

impl std::fmt::Debug for LookupProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LookupProgress")
    }
}

/// What watches a run of lookups: its progress, and a flag that stops it (Ctrl-C) after
/// the lookups under way.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Watch<'a> {
    pub(crate) progress: Option<&'a LookupProgress>,
    pub(crate) cancel: Option<&'a AtomicBool>,
}

impl Watch<'_> {
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// `work(0)`…`work(count - 1)` on `threads` threads (at least one, at most `count`),
/// each index taken by the next free thread; the results in index order. Once `stop`
/// says so, no further index starts, and those not started have no result (`None`, as
/// has one whose thread panicked).
pub fn in_parallel<T: Send>(
    count: usize,
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
    work: &(dyn Fn(usize) -> T + Sync),
) -> Vec<Option<T>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new(std::iter::repeat_with(|| None).take(count).collect());
    let run = || loop {
        if stop() {
            break;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= count {
            break;
        }
        let result = work(i);
        if let Ok(mut r) = results.lock() {
            r[i] = Some(result);
        }
    };
    let threads = threads.clamp(1, count.max(1));
    if threads == 1 {
        run();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(run);
            }
        });
    }
    results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Looks up each distinct text once, on `threads` threads: segments with the same
/// source and locales share one lookup unless their contexts make different stored
/// entries context matches ([`cmem_core::context_matches`], asked only for texts that
/// repeat). The results are in the order of `queries` (`None` only if a lookup thread
/// stopped without a result).
///
/// Once `watch` is cancelled, no further lookup starts and the rest have no result.
pub(crate) fn lookup_all(
    store: &dyn ContentMemory,
    queries: &[Query<'_>],
    options: &LookupOptions,
    threads: usize,
    watch: Watch<'_>,
) -> Vec<Option<Shared>> {
    let request = |(runs, src, trg, context): &Query<'_>| {
        LookupRequest::new(runs.to_vec(), src.clone(), trg.clone())
            .options(options.clone())
            .context(context.clone())
    };
    let texts: Vec<String> = queries
        .iter()
        .map(|(runs, src, trg, _)| {
            format!("{}\u{0}{}\u{0}{}", runs_to_json(runs), src.as_str(), trg.as_str())
        })
        .collect();
    let mut repeats: HashMap<&str, usize> = HashMap::new();
    for text in &texts {
        *repeats.entry(text).or_default() += 1;
    }
    let mut first: HashMap<(&str, Vec<EntryId>), usize> = HashMap::new();
    let mut distinct: Vec<usize> = Vec::new();
    // A text that occurs once needs no context ids; a store failure here leaves the
    // segment a lookup of its own, which reports the failure.
    let slot: Vec<usize> = queries
        .iter()
        .zip(&texts)
        .enumerate()
        .map(|(i, (query, text))| {
            let ids = if repeats[text.as_str()] > 1 {
                cmem_core::context_matches(store, &request(query)).ok()
            } else {
                Some(Vec::new())
            };
            let Some(ids) = ids else {
                distinct.push(i);
                return distinct.len() - 1;
            };
            *first.entry((text.as_str(), ids)).or_insert_with(|| {
                distinct.push(i);
                distinct.len() - 1
            })
        })
        .collect();
    let done = AtomicUsize::new(0);
    let results = in_parallel(distinct.len(), threads, &|| watch.cancelled(), &|k| {
        let result = Arc::new(lookup(store, &request(&queries[distinct[k]])));
        if let Some(progress) = watch.progress {
            (progress.0)(done.fetch_add(1, Ordering::Relaxed) + 1, distinct.len());
        }
        result
    });
    slot.iter().map(|&k| results.get(k).cloned().flatten()).collect()
}

fn percent(score: f64) -> u8 {
    (score * 100.0 + 1e-9).floor().clamp(0.0, 100.0) as u8
}

/// Recycles a parsed document in place (its pending edits; write it with
/// [`XliffDocument::to_bytes`]).
///
/// # Errors
/// Thresholds outside 0–1, missing locales, a store failure.
///
/// # Examples
/// ```
/// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
/// use cmem_formats::{recycle_document, RecycleOptions, XliffDocument};
///
/// let store = MemStore::new();
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// store.write(&[NewEntry::pair(
///     Variant::new(en, vec![Run::text("Open the file")]),
///     Variant::new(de, vec![Run::text("Datei öffnen")]),
/// )])?;
/// let xlf = r#"<xliff version="1.2"><file source-language="en" target-language="de" datatype="x" original="a"><body>
/// <trans-unit id="1"><source>Open the file</source></trans-unit>
/// <trans-unit id="2"><source>Quit</source></trans-unit>
/// </body></file></xliff>"#;
/// let mut doc = XliffDocument::read(xlf.as_bytes(), "a.xlf")?;
/// let report = recycle_document(&mut doc, &store, &RecycleOptions::default())?;
/// assert_eq!((report.segments, report.filled_exact, report.untouched), (2, 1, 1));
/// let out = String::from_utf8(doc.to_bytes())?;
/// assert!(out.contains(">Datei öffnen</target>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn recycle_document(
    doc: &mut XliffDocument,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<RecycleReport, FormatError> {
    options.check_thresholds(Format::Xliff)?;
    let lookup_options = options
        .lookup
        .clone()
        .threshold(options.fuzzy_threshold.min(options.fill_threshold))
        .limit(options.lookup_limit(options.max_candidates.saturating_add(1)))
        .maybe_point(options.point.clone());
    let limit = lookup_options.limit;
    let mut report = RecycleReport { segments: doc.segments().len(), ..RecycleReport::default() };
    let v1 = doc.version() == XliffVersion::V1;
    let todo: Vec<usize> = (0..doc.segments().len())
        .filter(|&index| {
            let seg = &doc.segments()[index];
            let reason = if !seg.translatable {
                "not translatable (translate=\"no\")"
            } else if seg.approved {
                "approved"
            } else if seg.has_target() && !options.overwrite {
                "already translated (--overwrite replaces it)"
            } else if !has_text(&seg.source) {
                "no text in the source"
            } else if !doc.can_fill(index) {
                "a segmented target without this segment's <mrk>"
            } else {
                return true;
            };
            report.skip(seg.line, &seg.unit_id, reason);
            false
        })
        .collect();
    // Plain-text sources, recognized when asked; `None` where the source is used as is.
    let recognized = recognized_sources(doc, &todo, options.recognizer.as_ref());
    let queries = lookup_queries(
        doc,
        &todo,
        &recognized,
        options.source_locale.as_ref(),
        options.target_locale.as_ref(),
    )?;
    let target_language = queries.first().map(|q| q.2.as_str().to_owned());
    report.pair = queries.first().map(|q| (q.1.clone(), q.2.clone()));
    let results = lookup_all(store, &queries, &lookup_options, options.threads, Watch::default());
    // The glossary and model of the document's pair; a segment of another pair (a file of
    // another target language) is checked against none.
    let in_pair: Vec<bool> =
        queries.iter().map(|q| report.pair.as_ref().is_some_and(|(s, t)| *s == q.1 && *t == q.2)).collect();
    drop(queries);
    let evidence = match &report.pair {
        Some((src, trg)) => Some(Evidence::load(store, src, trg, Format::Xliff, doc.file())?),
        None => None,
    };
    if let Some(lang) = target_language {
        doc.set_target_language(&lang);
    }
    // The first occurrence of each source (as runs) and what filled it.
    let mut firsts: HashMap<String, Option<Vec<Run>>> = HashMap::new();
    for (((&index, result), recognized), &in_pair) in todo.iter().zip(results).zip(&recognized).zip(&in_pair)
    {
        let evidence = evidence.as_ref().filter(|_| in_pair);
        // A plain-text segment has no elements for codes: write them as their text.
        let as_doc = |runs: &[Run]| if recognized.is_some() { codes_as_text(runs) } else { runs.to_vec() };
        let Some(matches) = lookup_matches(doc, index, result.as_deref())? else {
            // A source the lookup refuses (longer than its cap) is left for the translator.
            let seg = &doc.segments()[index];
            report.skip(seg.line, &seg.unit_id, SKIP_TOO_LONG);
            continue;
        };
        let source_key = runs_to_json(&doc.segments()[index].source);
        let first_fill = match firsts.get(&source_key) {
            Some(fill) => {
                report.repetitions += 1;
                fill.clone()
            }
            None => None,
        };
        let first = !firsts.contains_key(&source_key);
        if first {
            firsts.insert(source_key.clone(), None);
        }
        let mut rest: Vec<&Match> = matches.iter().collect();
        let mut filled = false;
        // The match that fills: the best unless it is ambiguous; then the answer that
        // dominates by evidence, when the options allow it.
        let fill = fill_pick(matches, options.fill_threshold, options, limit);
        if let Some(pick) = fill {
            let best = &matches[pick];
            // A target the word repair changed is the memory's evidence, not its answer:
            // always for review (docs/matching.md §10).
            let repaired = best.words_repaired();
            let exact = best.match_type.is_exact()
                && !repaired
                && !best.ambiguous
                && best.score >= 1.0
                && best.adaptation_complete()
                && !options.review_exact;
            let target = as_doc(&best.adapted_target);
            // Written once: its dropped codes decide the state, its markup is the target.
            let written = doc.render(index, &target);
            let dropped = written.dropped;
            let exact = exact && dropped == 0;
            let context = exact && best.is_context();
            let (state, qualifier) = match (v1, exact, best.ambiguous) {
                // XLIFF 1.2: "a match based on matching IDs (in addition to matching text)".
                (true, true, _) if context => ("translated", Some("id-match")),
                (false, true, _) if context => ("translated", Some("cmem:context-match")),
                (true, true, _) => ("translated", Some("exact-match")),
                (true, false, true) => ("needs-review-translation", Some("leveraged-tm")),
                (true, false, false) => ("needs-review-translation", Some("fuzzy-match")),
                (false, true, _) => ("translated", None),
                (false, false, true) => ("translated", Some("cmem:needs-review-ambiguous")),
                (false, false, false) if repaired => ("translated", Some("cmem:needs-review-repaired")),
                (false, false, false) => ("translated", Some("cmem:needs-review")),
            };
            doc.set_written_target(index, written, state, qualifier);
            if let Some(evidence) = evidence {
                let seg = &doc.segments()[index];
                let (line, unit) = (seg.line, seg.unit_id.clone());
                let notes = evidence.check_fill(&seg.source, &best.adapted_target, line, &unit, &mut report);
                for note in notes {
                    doc.add_note(index, &options.origin, &note);
                }
            }
            report.codes_dropped += dropped;
            report.filled += 1;
            if exact {
                report.filled_exact += 1;
            }
            if context {
                report.filled_context += 1;
            }
            if best.ambiguous {
                report.filled_ambiguous += 1;
            }
            if repaired {
                report.filled_repaired += 1;
            }
            if first {
                firsts.insert(source_key, Some(target));
            }
            filled = true;
            rest.remove(pick);
        } else if let Some(target) = first_fill.filter(|_| options.fill_repetitions) {
            let written = doc.render(index, &target);
            report.codes_dropped += written.dropped;
            let (state, qualifier) = if v1 {
                // "Derived from existing translation of the same information".
                ("needs-review-translation", Some("leveraged-inherited"))
            } else {
                ("translated", Some("cmem:repetition"))
            };
            doc.set_written_target(index, written, state, qualifier);
            report.filled += 1;
            report.filled_repetitions += 1;
            filled = true;
        }
        let mut candidates: Vec<Candidate> = Vec::new();
        // The alternative of a fill the word repair changed: the target without it.
        if let Some(unrepaired) = fill.and_then(|pick| {
            unrepaired_candidate(&matches[pick], &doc.segments()[index].source, &as_doc, &options.origin)
        }) {
            if options.max_candidates > 0 {
                candidates.push(unrepaired);
            }
        }
        for m in rest.iter().filter(|m| m.score >= options.fuzzy_threshold) {
            if candidates.len() >= options.max_candidates {
                break;
            }
            let c = candidate(m, &doc.segments()[index].source, &as_doc, &options.origin);
            // Entries apart in the memory (another unit, point or project) can give the
            // same pair: a translator is shown it once, at its best score.
            if !candidates.iter().any(|k| k.source == c.source && k.target == c.target) {
                candidates.push(c);
            }
        }
        for c in &candidates {
            report.candidate_codes_dropped +=
                doc.render(index, &c.source).dropped + doc.render(index, &c.target).dropped;
        }
        let any = !candidates.is_empty();
        // Below the fill: the stretches the memory translates consistently, never a fill
        // (2.x assembled matches, 1.x notes).
        let fragments = match evidence {
            Some(evidence) if !filled => evidence.fragments(&doc.segments()[index].source),
            _ => Vec::new(),
        };
        if !fragments.is_empty() {
            report.with_fragments += 1;
            let words =
                cmem_core::align::words(&cmem_core::align::text_of(&doc.segments()[index].source)).len();
            for f in &fragments {
                if v1 {
                    doc.add_note(index, &options.origin, &fragment_note(f));
                } else {
                    let share = (f.words.1 + 1 - f.words.0) as f64 / words.max(1) as f64;
                    candidates.push(Candidate {
                        source: vec![Run::Text(f.source.clone())],
                        target: vec![Run::Text(f.target.clone())],
                        quality: percent(share.min(1.0)),
                        origin: options.origin.clone(),
                        adapted: None,
                        unrepaired: None,
                        assembled: true,
                    });
                }
            }
        }
        doc.add_candidates(index, candidates);
        match (filled, any) {
            (true, _) => {}
            (false, true) => report.with_candidates += 1,
            (false, false) => report.untouched += 1,
        }
    }
    Ok(report)
}

/// The candidate of match `m` for a segment whose source is `segment_source`: a pair
/// that belongs together. The memory's pair as stored, its target's codes those of the
/// document; or, when the adapted target's text differs from the stored target's (a
/// repaired final mark or number, an entity value), the segment's own source with the
/// adapted target, labelled: the stored source beside a target changed for another
/// source would be a pair no one approved.
fn candidate(
    m: &Match,
    segment_source: &[Run],
    as_doc: &dyn Fn(&[Run]) -> Vec<Run>,
    origin: &str,
) -> Candidate {
    let changed = changes(m, true);
    let (source, adapted) = if changed.is_empty() {
        (as_doc(m.source()), None)
    } else {
        (segment_source.to_vec(), Some(changed.join(", ")))
    };
    Candidate {
        source,
        target: as_doc(&m.adapted_target),
        quality: percent(m.score),
        origin: origin.to_owned(),
        adapted,
        unrepaired: None,
        assembled: false,
    }
}

/// The alternative of fill `m` when the word repair changed its target: the target
/// without the word repair, beside the memory's source when nothing else adapted it,
/// else beside the segment's source, labelled with what the fill replaced. `None` when
/// the word repair changed nothing.
fn unrepaired_candidate(
    m: &Match,
    segment_source: &[Run],
    as_doc: &dyn Fn(&[Run]) -> Vec<Run>,
    origin: &str,
) -> Option<Candidate> {
    let target = m.unrepaired_target.as_deref()?;
    let changed = changes(m, false);
    let (source, adapted) = if changed.is_empty() {
        (as_doc(m.source()), None)
    } else {
        (segment_source.to_vec(), Some(changed.join(", ")))
    };
    let replaced: Vec<String> = m
        .repairs
        .iter()
        .filter(|r| r.applied)
        .filter_map(|r| r.words.as_ref())
        .filter(|w| w.target_from != w.target_to)
        .map(|w| match (w.target_from.is_empty(), w.target_to.is_empty()) {
            (true, _) => format!("inserted {:?}", w.target_to),
            (false, true) => format!("removed {:?}", w.target_from),
            (false, false) => format!("{:?} → {:?}", w.target_from, w.target_to),
        })
        .collect();
    Some(Candidate {
        source,
        target: as_doc(target),
        quality: percent(m.score),
        origin: origin.to_owned(),
        adapted,
        unrepaired: Some(replaced.join(", ")),
        assembled: false,
    })
}

/// What adaptation changed in `m`'s target text, by kind (`punctuation`, `entity`…);
/// the word repair's changes only `with_words`.
fn changes(m: &Match, with_words: bool) -> Vec<&'static str> {
    let mut changed: Vec<&str> = Vec::new();
    for r in m
        .repairs
        .iter()
        .filter(|r| r.applied && (with_words || r.kind != cmem_core::repair::RepairKind::Words))
    {
        let what = match r.kind {
            cmem_core::repair::RepairKind::Whitespace => "white space",
            cmem_core::repair::RepairKind::Number => "number",
            cmem_core::repair::RepairKind::Mnemonic => "mnemonic",
            cmem_core::repair::RepairKind::Words => "words",
            _ => "punctuation",
        };
        if !changed.contains(&what) {
            changed.push(what);
        }
    }
    if m.entity_adaptations.iter().any(|a| a.applied) {
        changed.push("entity");
    }
    changed
}

/// Recycles the XLIFF document read from `input` (named `name` in messages) and
/// writes the result to `output`; nothing is written when reading or a lookup fails.
///
/// # Errors
/// As [`XliffDocument::read`] and [`recycle_document`], and I/O writing the output.
///
/// # Examples
/// A match below the fill threshold becomes a candidate, not the target:
/// ```
/// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
/// use cmem_formats::{recycle, RecycleOptions};
///
/// let store = MemStore::new();
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// store.write(&[NewEntry::pair(
///     Variant::new(en, vec![Run::text("Save the file now")]),
///     Variant::new(de, vec![Run::text("Datei jetzt speichern")]),
/// )])?;
/// let xlf = r#"<xliff version="1.2"><file source-language="en" target-language="de" datatype="x" original="a"><body>
/// <trans-unit id="1"><source>Save the files now</source></trans-unit>
/// </body></file></xliff>"#;
/// let mut options = RecycleOptions::default();
/// options.fill_threshold = 1.0;
/// let mut out = Vec::new();
/// let report = recycle(xlf.as_bytes(), "a.xlf", &mut out, &store, &options)?;
/// assert_eq!((report.filled, report.with_candidates), (0, 1));
/// assert!(String::from_utf8(out)?.contains("<alt-trans"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn recycle(
    input: impl std::io::Read,
    name: &str,
    mut output: impl Write,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<RecycleReport, FormatError> {
    let mut doc = XliffDocument::read(input, name)?;
    let report = recycle_document(&mut doc, store, options)?;
    output
        .write_all(&doc.to_bytes())
        .and_then(|()| output.flush())
        .map_err(|e| FormatError::io(Format::Xliff, "cannot write", e).in_file(name))?;
    Ok(report)
}
