//! Pre-translating a PO or POT catalog from a memory, and its leverage report.
//!
//! Each message with no translation (every `msgstr` empty; with
//! [`RecycleOptions::overwrite`], a `#, fuzzy` one too) is looked up as
//! [`crate::recycle`](mod@crate::recycle) does for XLIFF, with the same options and the same lookup
//! helpers. What is written:
//!
//! | best match | `msgstr` | mark |
//! |---|---|---|
//! | a context match (docs/matching.md §4), fully adapted | its adapted target | a translator comment `# cmem: context match (PROJECT)` |
//! | at or above the fill threshold, unambiguous, fully adapted | its adapted target | none (with [`RecycleOptions::review_exact`]: as below) |
//! | otherwise at or above the fuzzy threshold | its adapted target | `#, fuzzy` and a translator comment `# cmem: 87% match (PROJECT)`, as msgmerge and translate-toolkit's `pretranslate` leave fuzzy matches |
//! | at or above the fill threshold, its target changed by the word repair ([`cmem_core::repair::words`]) | its adapted target | `#, fuzzy`, `# cmem: 96% match, words repaired (PROJECT)` and `# cmem: without the word repair: "Datei drucken"` |
//! | ambiguous (differing answers, no point), one answer dominating by evidence, with [`FillAmbiguous::Dominant`](crate::recycle::FillAmbiguous::Dominant) | that answer | `#, fuzzy` and `# cmem: 99% match, the dominant of ambiguous answers (PROJECT)` |
//! | ambiguous otherwise, or none, in a repetition of an earlier filled message ([`RecycleOptions::fill_repetitions`]) | the first occurrence's fill | `#, fuzzy` and `# cmem: repetition of line N` |
//! | ambiguous otherwise | left empty | |
//! | none | left empty | |
//!
//! A plural message is looked up by its plural source and filled form by form when the
//! match's target has as many forms as the catalog needs (`nplurals` of its header; for
//! a template without one, of gettext's table for the target language); otherwise it
//! is left for the translator. A translation already there is kept.
//!
//! Every byte outside the `msgstr` statements filled, the flag and comment lines added,
//! and the header fields set is kept. A template (empty or placeholder `Language`)
//! gets the target language, `charset=UTF-8` for its `CHARSET` placeholder and the
//! language's `Plural-Forms` for its placeholder. A catalog in another charset stays
//! in it; a fill that charset cannot hold is left out and counted as skipped.
//! Inserted lines use the file's line break (`\r\n` when its first line ends so).

use std::io::Write;
use std::ops::Range;

use cmem_core::{ContentMemory, Locale, Match, Run};

use super::parse::{statement, Catalog, Message};
use super::read::{header_of, po_locale, MessageRunner};
use super::write::{nplurals_of, plural_forms, po_language};
use crate::analyze::{Analysis, AnalyzeOptions};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::jsonl::surface_text;
use crate::recycle::{
    fill_pick, fragment_note, has_text, lookup_all, Evidence, FirstOccurrences, Query, RecycleOptions,
    RecycleReport, Shared,
};

/// The report of [`recycle_po`]: [`RecycleReport`] with PO meanings. `segments`
/// counts messages (not the header, not obsolete ones); `filled` the fills without a
/// fuzzy mark and those with one at or above the fill threshold; `with_candidates`
/// the fuzzy fills below the fill threshold (a catalog has no candidate list);
/// `skipped` translated messages, messages without text, plural messages whose form
/// count does not fit, and fills the catalog's charset cannot hold.
pub type PoRecycleReport = RecycleReport;

/// The messages recycle or analyze look up: their index and source runs.
struct Todo {
    index: usize,
    source: Vec<Run>,
    context: cmem_core::QueryContext,
}

/// The source and target locales of a catalog: the options', else `en` and the
/// header's `Language`.
fn locales(
    catalog: &Catalog,
    source: Option<&Locale>,
    target: Option<&Locale>,
) -> Result<(Locale, Locale), FormatError> {
    let located =
        |m: String| FormatError::new(Format::Po, FormatErrorKind::InvalidLocale, m).in_file(&catalog.file);
    let src = match source {
        Some(l) => l.clone(),
        None => Locale::parse("en").map_err(|e| located(e.to_string()))?,
    };
    let trg = match (target, header_of(catalog).language) {
        (Some(l), _) => l.clone(),
        (None, Some(lang)) => po_locale(&lang).map_err(|e| located(format!("the header's Language: {e}")))?,
        (None, None) => {
            return Err(located("the catalog names no target language; give one in the options".to_owned())
                .with_kind(FormatErrorKind::NoTargetLanguage))
        }
    };
    Ok((src, trg))
}

/// Runs of a source and a target string, as a recognizer gives them.
type Pair = (Vec<Run>, Vec<Run>);

fn hook_of(
    rec: Option<&cmem_core::model::recognize::Recognizer>,
) -> Option<impl Fn(&str, &str) -> Pair + '_> {
    rec.map(|r| move |s: &str, t: &str| r.recognize_pair(s, t))
}

/// The matches of a message's lookup; `None` for a source the lookup refuses.
fn matches_of<'a>(
    catalog: &Catalog,
    m: &Message,
    result: Option<&'a Shared>,
) -> Result<Option<&'a [Match]>, FormatError> {
    let message = match result.map(|r| r.as_ref()) {
        Some(Ok(matches)) => return Ok(Some(matches)),
        Some(Err(e)) if e.kind() == cmem_core::ErrorKind::InvalidQuery => return Ok(None),
        Some(Err(e)) => e.message_and_causes(),
        None => "the lookup gave no result".to_owned(),
    };
    Err(FormatError::new(Format::Store, FormatErrorKind::Store, message)
        .in_file(&catalog.file)
        .at_line(m.line))
}

/// An edit of the decoded text.
struct Edit {
    range: Range<usize>,
    text: String,
}

/// Recycles a parsed catalog: the edited text, and what was done.
fn recycle_catalog(
    catalog: &Catalog,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<(String, RecycleReport), FormatError> {
    options.check_thresholds(Format::Po)?;
    let (src, trg) = locales(catalog, options.source_locale.as_ref(), options.target_locale.as_ref())?;
    let header = header_of(catalog);
    let header_message = catalog.messages.iter().find(|m| m.is_header());
    let table_forms = plural_forms(trg.as_str());
    let nplurals = header.nplurals.or_else(|| table_forms.and_then(nplurals_of));
    let lookup_options = options
        .lookup
        .clone()
        .threshold(options.fuzzy_threshold.min(options.fill_threshold))
        .limit(options.lookup_limit(1))
        .maybe_point(options.point.clone());
    let limit = lookup_options.limit;
    let hook = hook_of(options.recognizer.as_ref());
    let mut runner = MessageRunner::new(hook.as_ref().map(|f| f as &dyn Fn(&str, &str) -> Pair), true);
    let mut report = RecycleReport { pair: Some((src.clone(), trg.clone())), ..RecycleReport::default() };
    let mut todo = Vec::new();
    let live: Vec<&Message> = catalog.messages.iter().filter(|m| !m.is_header() && !m.obsolete).collect();
    let mut place = 0usize;
    for (index, m) in catalog.messages.iter().enumerate() {
        if m.is_header() || m.obsolete {
            continue;
        }
        place += 1;
        report.segments += 1;
        let open = m.untranslated() || (options.overwrite && m.has_flag("fuzzy"));
        let source = runner.message(m, &[]).0;
        if !open {
            let reason =
                if m.has_flag("fuzzy") { "fuzzy (--overwrite replaces it)" } else { "already translated" };
            report.skip(m.line, "", reason);
            continue;
        }
        if !has_text(&source) {
            report.skip(m.line, "", "no text in the source");
            continue;
        }
        todo.push(Todo { index, source, context: super::neighbour_context(&live, place - 1) });
    }
    let queries: Vec<Query<'_>> =
        todo.iter().map(|t| (t.source.as_slice(), src.clone(), trg.clone(), t.context.clone())).collect();
    let results =
        lookup_all(store, &queries, &lookup_options, options.threads, crate::recycle::Watch::default());
    let evidence = Evidence::load(store, &src, &trg, Format::Po, &catalog.file)?;
    let mut edits: Vec<Edit> = Vec::new();
    let nl = catalog.newline;
    let utf8 = catalog.encoding == encoding_rs::UTF_8;
    // The first occurrence of each source: its line and the forms that filled it.
    let mut firsts: FirstOccurrences<Vec<String>> = FirstOccurrences::new();
    for (t, result) in todo.iter().zip(&results) {
        let m = &catalog.messages[t.index];
        let Some(matches) = matches_of(catalog, m, result.as_ref())? else {
            report.skip(m.line, "", crate::recycle::SKIP_TOO_LONG);
            continue;
        };
        let source_key = cmem_core::model::run::runs_to_json(&t.source);
        let first = firsts.see(&source_key, m.line, &mut report);
        // An ambiguous best match fills only with the answer that dominates by evidence,
        // when the options allow it.
        let pick = fill_pick(matches, options.fuzzy_threshold, options, limit);
        let Some(best) = pick.and_then(|i| matches.get(i)) else {
            // A repetition takes the first occurrence's fill, for review.
            if let Some((line, Some(forms))) = first.filter(|_| options.fill_repetitions) {
                let (Some(a), Some(b)) = (m.strs.first(), m.strs.last()) else { continue };
                let origin = format!("# cmem: repetition of line {line}{nl}");
                edits.push(Edit { range: m.start..m.start, text: origin });
                if !m.has_flag("fuzzy") {
                    edits.push(fuzzy_flag(m, nl));
                }
                edits.push(Edit { range: a.span.start..b.span.end, text: msgstrs(m, &forms, nl) });
                report.filled += 1;
                report.filled_repetitions += 1;
                continue;
            }
            report.untouched += 1;
            // Below the threshold: the stretches the memory translates consistently, as
            // comments (never a fill).
            let fragments = evidence.fragments(&t.source);
            if !fragments.is_empty() {
                report.with_fragments += 1;
                let text: String = fragments
                    .iter()
                    .map(|f| format!("# {}: {}{nl}", options.origin, fragment_note(f)))
                    .collect();
                edits.push(Edit { range: m.start..m.start, text });
            }
            continue;
        };
        let forms: Vec<String> = match (&m.id_plural, best.adapted_target.as_slice()) {
            (None, target) => vec![surface_text(target)],
            (Some(_), [Run::Plural(c)]) if Some(c.forms.len()) == nplurals.or(Some(m.strs.len())) => {
                c.forms.iter().map(|(_, runs)| surface_text(runs)).collect()
            }
            (Some(_), _) => {
                report.skip(m.line, "", "the match's plural forms do not fit the catalog's");
                continue;
            }
        };
        if forms.iter().any(String::is_empty) {
            report.skip(m.line, "", "the match's target is empty");
            continue;
        }
        if !utf8 && forms.iter().any(|f| catalog.encoding.encode(f).2) {
            report.skip(m.line, "", "the match's target cannot be written in the catalog's charset");
            continue;
        }
        let (clean, exact) = RecycleReport::catalog_fill(best, options);
        let statements = msgstrs(m, &forms, nl);
        if first.is_none() {
            firsts.filled(source_key, m.line, forms.clone());
        }
        if exact && best.is_context() {
            let origin =
                if best.project_id.is_empty() { options.origin.as_str() } else { best.project_id.as_str() };
            edits.push(Edit {
                range: m.start..m.start,
                text: format!("# cmem: context match ({origin}){nl}"),
            });
            report.filled_context += 1;
        }
        let (first, last) = match (m.strs.first(), m.strs.last()) {
            (Some(a), Some(b)) => (a.span.start, b.span.end),
            _ => continue,
        };
        if !clean {
            let origin =
                if best.project_id.is_empty() { options.origin.as_str() } else { best.project_id.as_str() };
            let why = match (best.ambiguous, best.words_repaired()) {
                (true, true) => ", the dominant of ambiguous answers, words repaired",
                (true, false) => ", the dominant of ambiguous answers",
                (false, true) => ", words repaired",
                (false, false) => "",
            };
            let mut comment = format!("# cmem: {}% match{why} ({origin}){nl}", percent(best.score));
            if let Some(unrepaired) = &best.unrepaired_target {
                // Debug quoting keeps a line break of the target on the comment's line.
                let text = surface_text(unrepaired);
                comment.push_str(&format!("# cmem: without the word repair: {text:?}{nl}"));
            }
            let already = m.has_flag("fuzzy");
            edits.push(Edit { range: m.start..m.start, text: comment });
            if !already {
                edits.push(fuzzy_flag(m, nl));
            }
        } else if m.has_flag("fuzzy") {
            // An overwritten fuzzy message whose new fill is clean loses its mark.
            if let Some(span) = &m.flags_span {
                let line = &catalog.text[span.clone()];
                let rest: Vec<&str> =
                    line[2..].split(',').map(str::trim).filter(|f| !f.is_empty() && *f != "fuzzy").collect();
                let text = if rest.is_empty() { String::new() } else { format!("#, {}", rest.join(", ")) };
                let range = if rest.is_empty() {
                    span.start..span.end + nl.len().min(catalog.text.len() - span.end)
                } else {
                    span.clone()
                };
                edits.push(Edit { range, text });
            }
        }
        edits.push(Edit { range: first..last, text: statements });
        report.count_catalog_fill(best, options);
        let notes = evidence.check_fill(&t.source, &best.adapted_target, m.line, "", &mut report);
        if !notes.is_empty() {
            let text: String = notes.iter().map(|n| format!("# {}: {n}{nl}", options.origin)).collect();
            edits.push(Edit { range: m.start..m.start, text });
        }
    }
    if let Some(h) = header_message {
        if let Some(e) = header_edit(catalog, h, &trg, &header, table_forms) {
            edits.push(e);
        }
    }
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out =
        String::with_capacity(catalog.text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut at = 0;
    for e in edits {
        if e.range.start < at {
            continue; // two edits of one range cannot happen; keep the first
        }
        out.push_str(&catalog.text[at..e.range.start]);
        out.push_str(&e.text);
        at = e.range.end;
    }
    out.push_str(&catalog.text[at..]);
    Ok((out, report))
}

/// The `msgstr` statements of `forms` for message `m`.
fn msgstrs(m: &Message, forms: &[String], nl: &str) -> String {
    let mut statements = String::new();
    for (i, f) in forms.iter().enumerate() {
        if i > 0 {
            statements.push_str(nl);
        }
        let keyword = if m.id_plural.is_some() { format!("msgstr[{i}]") } else { "msgstr".to_owned() };
        statements.push_str(&statement(&keyword, f, nl));
    }
    statements
}

/// The edit that flags `m` (not yet fuzzy) `fuzzy`.
fn fuzzy_flag(m: &Message, nl: &str) -> Edit {
    match &m.flags_span {
        // `#, c-format` → `#, fuzzy, c-format`, as gettext orders them.
        Some(span) => Edit { range: span.start + 2..span.start + 2, text: " fuzzy,".to_owned() },
        None => Edit { range: m.keywords_start..m.keywords_start, text: format!("#, fuzzy{nl}") },
    }
}

/// The header's new `msgstr`, when a field is to be set: `Language` when empty,
/// `charset=CHARSET`, the `Plural-Forms` placeholder.
fn header_edit(
    catalog: &Catalog,
    h: &Message,
    target: &Locale,
    header: &super::parse::Header,
    table_forms: Option<&str>,
) -> Option<Edit> {
    let s = h.strs.first()?;
    let mut changed = false;
    let mut lines: Vec<String> = Vec::new();
    for line in s.text.split_inclusive('\n') {
        let (key, _) = line.split_once(':').unwrap_or((line, ""));
        let new = match key.trim().to_ascii_lowercase().as_str() {
            "language" if header.language.is_none() => Some(format!("Language: {}\n", po_language(target))),
            "content-type" if line.contains("charset=CHARSET") => {
                Some(line.replace("charset=CHARSET", "charset=UTF-8"))
            }
            "plural-forms" if header.nplurals.is_none() => {
                table_forms.map(|f| format!("Plural-Forms: {f}\n"))
            }
            _ => None,
        };
        match new {
            Some(n) if n != line => {
                changed = true;
                lines.push(n);
            }
            _ => lines.push(line.to_owned()),
        }
    }
    if header.language.is_none() && !lines.iter().any(|l| l.to_ascii_lowercase().starts_with("language:")) {
        lines.push(format!("Language: {}\n", po_language(target)));
        changed = true;
    }
    changed
        .then(|| Edit { range: s.span.clone(), text: statement("msgstr", &lines.concat(), catalog.newline) })
}

fn percent(score: f64) -> u8 {
    (score * 100.0 + 1e-9).floor().clamp(0.0, 100.0) as u8
}

/// The bytes of recycled text in the catalog's charset.
fn encode(catalog: &Catalog, text: &str) -> Vec<u8> {
    if catalog.encoding == encoding_rs::UTF_8 {
        return text.as_bytes().to_vec();
    }
    catalog.encoding.encode(text).0.into_owned()
}

/// Pre-translates the PO or POT catalog read from `input` (named `name` in messages)
/// and writes it to `output`; nothing is written when reading or a lookup fails.
///
/// # Examples
/// ```
/// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
/// use cmem_formats::{recycle_po, RecycleOptions};
///
/// let store = MemStore::new();
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// store.write(&[NewEntry::pair(
///     Variant::new(en, vec![Run::text("Save the file")]),
///     Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
/// )])?;
/// let pot = "msgid \"\"\nmsgstr \"Language: \\n\"\n\n#: a.c:1\nmsgid \"Save the file\"\nmsgstr \"\"\n";
/// let mut options = RecycleOptions::default();
/// options.target_locale = Some(de);
/// let mut out = Vec::new();
/// let report = recycle_po(pot.as_bytes(), "a.pot", &mut out, &store, &options)?;
/// assert_eq!(report.filled_exact, 1);
/// assert_eq!(
///     String::from_utf8(out)?,
///     "msgid \"\"\nmsgstr \"Language: de\\n\"\n\n#: a.c:1\nmsgid \"Save the file\"\nmsgstr \"Datei speichern\"\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`read_catalog`](super::read_catalog), thresholds outside 0–1, no target
/// language, a store failure, I/O writing the output.
pub fn recycle_po(
    input: impl std::io::Read,
    name: &str,
    mut output: impl Write,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<RecycleReport, FormatError> {
    let catalog = super::read_catalog(input, name)?;
    let (text, report) = recycle_catalog(&catalog, store, options)?;
    output
        .write_all(&encode(&catalog, &text))
        .and_then(|()| output.flush())
        .map_err(|e| FormatError::io(Format::Po, "cannot write", e).in_file(name))?;
    Ok(report)
}

/// Pre-translates the catalog of the file bytes `raw` (named `name`): the new file's
/// bytes and the report. [`recycle_file`](crate::recycle_file) writes them.
///
/// # Errors
/// As [`recycle_po`].
pub(crate) fn recycle_po_bytes(
    raw: &[u8],
    name: &str,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<(Vec<u8>, RecycleReport), FormatError> {
    let catalog = super::read_catalog(raw, name)?;
    let (text, report) = recycle_catalog(&catalog, store, options)?;
    Ok((encode(&catalog, &text), report))
}

/// The leverage report of a PO or POT catalog: each message with text that is not
/// obsolete is counted, translated or not, as [`crate::analyze`](mod@crate::analyze) counts XLIFF segments.
///
/// # Errors
/// As [`read_catalog`](super::read_catalog), no target language, a store failure.
pub fn analyze_po(
    input: impl std::io::Read,
    name: &str,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<Analysis, FormatError> {
    analyze_po_counted(input, name, store, options).map(|(a, _)| a)
}

/// [`analyze_po`], also giving each counted message.
pub(crate) fn analyze_po_counted(
    input: impl std::io::Read,
    name: &str,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<(Analysis, Vec<crate::analyze::Counted>), FormatError> {
    let catalog = super::read_catalog(input, name)?;
    let (src, trg) = locales(&catalog, options.source_locale.as_ref(), options.target_locale.as_ref())?;
    let hook = hook_of(options.recognizer.as_ref());
    let mut runner = MessageRunner::new(hook.as_ref().map(|f| f as &dyn Fn(&str, &str) -> Pair), true);
    let live: Vec<&Message> = catalog.messages.iter().filter(|m| !m.is_header() && !m.obsolete).collect();
    let mut sources = Vec::new();
    let mut skipped = 0;
    for (k, m) in live.iter().enumerate() {
        let source = runner.message(m, &[]).0;
        if has_text(&source) {
            sources.push((source, k));
        } else {
            skipped += 1;
        }
    }
    let segments: Vec<(crate::analyze::Segment<'_>, u64)> = sources
        .iter()
        .map(|(source, k)| {
            let segment = crate::analyze::Segment {
                runs: source,
                context: super::neighbour_context(&live, *k),
                counted: source,
            };
            (segment, live[*k].line)
        })
        .collect();
    crate::analyze::analyze_segments(
        name,
        &segments,
        skipped,
        (&src, &trg),
        store,
        options,
        &|line, message| {
            FormatError::new(Format::Store, FormatErrorKind::Store, message).in_file(name).at_line(line)
        },
    )
}

#[cfg(test)]
mod tests {
    use cmem_core::{MemStore, NewEntry, Variant};

    use super::*;
    use crate::recycle::FillAmbiguous;

    /// "Step" approved as "Schritt" `schritt` times and as "Schwellenwert" once.
    fn step_store(schritt: usize) -> MemStore {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let pair = |t: &str| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text("Step")]),
                Variant::new(de.clone(), vec![Run::text(t)]),
            )
        };
        let mut entries = vec![pair("Schwellenwert")];
        entries.extend((0..schritt).map(|_| pair("Schritt")));
        let store = MemStore::new();
        store.write(&entries).unwrap();
        store
    }

    fn recycled(store: &MemStore, options: &RecycleOptions) -> (RecycleReport, String) {
        let po = "msgid \"\"\nmsgstr \"Language: de\\n\"\n\n#, c-format\nmsgid \"Step\"\nmsgstr \"\"\n";
        let mut out = Vec::new();
        let report = recycle_po(po.as_bytes(), "de.po", &mut out, store, options).unwrap();
        (report, String::from_utf8(out).unwrap())
    }

    #[test]
    fn a_dominant_ambiguous_answer_fills_as_fuzzy() {
        let dominant = RecycleOptions::default().fill_ambiguous(FillAmbiguous::Dominant);
        let (report, out) = recycled(&step_store(2), &dominant);
        assert_eq!((report.filled, report.filled_exact, report.filled_ambiguous), (1, 0, 1), "{report}");
        assert!(
            out.ends_with(
                "# cmem: 99% match, the dominant of ambiguous answers (cmem)\n#, fuzzy, c-format\nmsgid \"Step\"\nmsgstr \"Schritt\"\n"
            ),
            "{out}"
        );
        // Not dominant (once each way is not twice), or the default: left empty.
        let (report, out) = recycled(&step_store(1), &dominant);
        assert_eq!((report.filled, report.untouched), (0, 1), "{report}");
        assert!(out.ends_with("msgstr \"\"\n"), "{out}");
        let (report, out) = recycled(&step_store(2), &RecycleOptions::default());
        assert_eq!((report.filled, report.untouched), (0, 1), "{report}");
        assert!(!out.contains("fuzzy"), "{out}");
    }
}
