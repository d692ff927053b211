//! Pre-translating a source bundle from a memory, its leverage report, and its
//! segments for a producer's context; see the [module docs](super).

use std::io::{Read, Write};
use std::ops::Range;
use std::path::Path;

use cmem_core::{ContentMemory, Locale, Match, QueryContext, Run};

use super::parse::{self, escape_value, Bundle, Charset, Property};
use super::{locale_of_name, MARK_FUZZY, MARK_UNTRANSLATED};
use crate::analyze::{Analysis, AnalyzeOptions, Counted, Segment};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::{DocSegment, SegmentSource};
use crate::jsonl::surface_text;
use crate::po::text_runs;
use crate::recycle::{
    fill_pick, fragment_note, has_text, lookup_all, Evidence, FirstOccurrences, Query, RecycleOptions,
    RecycleReport, Watch, SKIP_TOO_LONG,
};

/// The values of the properties before and after property `i`, as text runs (both
/// sides of a context compare the bundle's own text).
pub(super) fn neighbours(props: &[Property], i: usize) -> (Option<Vec<Run>>, Option<Vec<Run>>) {
    let text = |p: &Property| vec![Run::text(p.value.clone())];
    let pre = i.checked_sub(1).and_then(|k| props.get(k)).map(text);
    (pre, props.get(i + 1).map(text))
}

/// Where property `i` stands: its key and its neighbours (docs/matching.md §4).
fn context(props: &[Property], i: usize) -> QueryContext {
    let (pre, post) = neighbours(props, i);
    QueryContext::of(&props[i].key, pre.as_deref(), post.as_deref())
}

/// A bundle read for recycle or analyze: a line that is no property refuses the file.
fn read_bundle(raw: &[u8], name: &str) -> Result<Bundle, FormatError> {
    let mut bundle = parse::read(raw, name)?;
    if !bundle.problems.is_empty() {
        return Err(bundle.problems.remove(0));
    }
    Ok(bundle)
}

/// The source and target locales: the options', else the file name's for the source
/// (`messages_en.properties`) and `en`; the target must be given.
fn locales(
    name: &str,
    source: Option<&Locale>,
    target: Option<&Locale>,
) -> Result<(Locale, Locale), FormatError> {
    let located =
        |kind: FormatErrorKind, m: String| FormatError::new(Format::Properties, kind, m).in_file(name);
    let src = match source.cloned().or_else(|| locale_of_name(Path::new(name))) {
        Some(l) => l,
        None => Locale::parse("en").map_err(|e| located(FormatErrorKind::InvalidLocale, e.to_string()))?,
    };
    let Some(trg) = target.cloned() else {
        return Err(located(
            FormatErrorKind::NoTargetLanguage,
            "a source bundle names no target language; give one in the options".to_owned(),
        ));
    };
    Ok((src, trg))
}

/// The source runs of each property: its value, recognized by `options.recognizer`.
fn sources(bundle: &Bundle, recognizer: Option<&cmem_core::model::recognize::Recognizer>) -> Vec<Vec<Run>> {
    bundle
        .properties
        .iter()
        .map(|p| match recognizer {
            Some(r) => r.recognize(&p.value),
            None => text_runs(&p.value),
        })
        .collect()
}

/// An edit of the decoded text.
struct Edit {
    range: Range<usize>,
    text: String,
}

fn percent(score: f64) -> u8 {
    (score * 100.0 + 1e-9).floor().clamp(0.0, 100.0) as u8
}

/// Recycles a parsed bundle: the edited text, and what was done.
fn recycle_bundle(
    bundle: &Bundle,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<(String, RecycleReport), FormatError> {
    options.check_thresholds(Format::Properties)?;
    let (src, trg) = locales(&bundle.file, options.source_locale.as_ref(), options.target_locale.as_ref())?;
    let lookup_options = options
        .lookup
        .clone()
        .threshold(options.fuzzy_threshold.min(options.fill_threshold))
        .limit(options.lookup_limit(1))
        .maybe_point(options.point.clone());
    let limit = lookup_options.limit;
    let props = &bundle.properties;
    let runs = sources(bundle, options.recognizer.as_ref());
    let mut report = RecycleReport { pair: Some((src.clone(), trg.clone())), ..RecycleReport::default() };
    let mut todo: Vec<usize> = Vec::new();
    for (i, p) in props.iter().enumerate() {
        report.segments += 1;
        if has_text(&runs[i]) {
            todo.push(i);
        } else {
            report.skip(p.line, &p.key, "no text in the source");
        }
    }
    let queries: Vec<Query<'_>> =
        todo.iter().map(|&i| (runs[i].as_slice(), src.clone(), trg.clone(), context(props, i))).collect();
    let results = lookup_all(store, &queries, &lookup_options, options.threads, Watch::default());
    let nl = bundle.newline;
    let ascii = bundle.charset != Charset::Utf8;
    let value = |p: &Property, text: &str| Edit {
        range: p.value_span.clone(),
        text: format!("{}{}", if p.bare { "=" } else { "" }, escape_value(text, ascii)),
    };
    let comment = |p: &Property, text: String| Edit { range: p.start..p.start, text: format!("{text}{nl}") };
    let evidence = Evidence::load(store, &src, &trg, Format::Properties, &bundle.file)?;
    let mut edits: Vec<Edit> = Vec::new();
    // The first occurrence of each source: its line and the text that filled it.
    let mut firsts: FirstOccurrences<String> = FirstOccurrences::new();
    for (&i, result) in todo.iter().zip(&results) {
        let p = &props[i];
        let matches: &[Match] = match result.as_ref().map(|r| r.as_ref()) {
            Some(Ok(matches)) => matches,
            Some(Err(e)) if e.kind() == cmem_core::ErrorKind::InvalidQuery => {
                report.skip(p.line, &p.key, SKIP_TOO_LONG);
                edits.push(comment(p, MARK_UNTRANSLATED.to_owned()));
                continue;
            }
            Some(Err(e)) => {
                return Err(FormatError::new(Format::Store, FormatErrorKind::Store, e.to_string())
                    .in_file(&bundle.file)
                    .at_line(p.line))
            }
            None => {
                return Err(FormatError::new(
                    Format::Store,
                    FormatErrorKind::Store,
                    "the lookup gave no result",
                )
                .in_file(&bundle.file)
                .at_line(p.line))
            }
        };
        let source_key = cmem_core::model::run::runs_to_json(&runs[i]);
        let first = firsts.see(&source_key, p.line, &mut report);
        let pick = fill_pick(matches, options.fuzzy_threshold, options, limit);
        let Some(best) = pick.and_then(|k| matches.get(k)) else {
            // A repetition takes the first occurrence's fill, for review.
            if let Some((line, Some(text))) = first.filter(|_| options.fill_repetitions) {
                edits.push(comment(p, format!("{MARK_FUZZY}, repetition of line {line}")));
                edits.push(value(p, &text));
                report.filled += 1;
                report.filled_repetitions += 1;
            } else {
                edits.push(comment(p, MARK_UNTRANSLATED.to_owned()));
                report.untouched += 1;
                // The stretches the memory translates consistently, never a fill.
                let fragments = evidence.fragments(&runs[i]);
                if !fragments.is_empty() {
                    report.with_fragments += 1;
                }
                for f in &fragments {
                    edits.push(comment(p, format!("# {}: {}", options.origin, fragment_note(f))));
                }
            }
            continue;
        };
        let text = surface_text(&best.adapted_target);
        if text.is_empty() {
            report.skip(p.line, &p.key, "the match's target is empty");
            edits.push(comment(p, MARK_UNTRANSLATED.to_owned()));
            continue;
        }
        if first.is_none() {
            firsts.filled(source_key, p.line, text.clone());
        }
        let (clean, exact) = RecycleReport::catalog_fill(best, options);
        let origin =
            if best.project_id.is_empty() { options.origin.as_str() } else { best.project_id.as_str() };
        if exact && best.is_context() {
            edits.push(comment(p, format!("# cmem: context match ({origin})")));
            report.filled_context += 1;
        }
        if !clean {
            let why = match (best.ambiguous, best.words_repaired()) {
                (true, true) => ", the dominant of ambiguous answers, words repaired",
                (true, false) => ", the dominant of ambiguous answers",
                (false, true) => ", words repaired",
                (false, false) => "",
            };
            edits.push(comment(p, format!("{MARK_FUZZY}, {}% match{why} ({origin})", percent(best.score))));
            if let Some(unrepaired) = &best.unrepaired_target {
                // Debug quoting keeps a line break of the target on the comment's line.
                let unrepaired = surface_text(unrepaired);
                edits.push(comment(p, format!("# cmem: without the word repair: {unrepaired:?}")));
            }
        }
        for note in evidence.check_fill(&runs[i], &best.adapted_target, p.line, &p.key, &mut report) {
            edits.push(comment(p, format!("# {}: {note}", options.origin)));
        }
        edits.push(value(p, &text));
        report.count_catalog_fill(best, options);
    }
    // Comments before the value of the same property: a stable sort keeps their order.
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out =
        String::with_capacity(bundle.text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut at = 0;
    for e in edits {
        out.push_str(&bundle.text[at..e.range.start]);
        out.push_str(&e.text);
        at = e.range.end;
    }
    out.push_str(&bundle.text[at..]);
    Ok((out, report))
}

/// Pre-translates the source bundle read from `input` (named `name` in messages) into
/// the translated bundle written to `output`; nothing is written when reading or a
/// lookup fails. See the [module docs](super).
///
/// # Errors
/// I/O; a line that is no property (a bad `\u` escape: located, with its fix);
/// thresholds outside 0–1; no target language; a store failure.
pub fn recycle_properties(
    mut input: impl Read,
    name: &str,
    mut output: impl Write,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<RecycleReport, FormatError> {
    let mut raw = Vec::new();
    input
        .read_to_end(&mut raw)
        .map_err(|e| FormatError::io(Format::Properties, "cannot read", e).in_file(name))?;
    let (bytes, report) = recycle_bytes(raw, name, store, options)?;
    output
        .write_all(&bytes)
        .and_then(|()| output.flush())
        .map_err(|e| FormatError::io(Format::Properties, "cannot write", e).in_file(name))?;
    Ok(report)
}

/// [`recycle_properties`] of the file bytes `raw`: the new file's bytes and the report;
/// the [`registry`](crate::registry)'s recycle of `.properties`.
pub(crate) fn recycle_bytes(
    raw: Vec<u8>,
    name: &str,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<(Vec<u8>, RecycleReport), FormatError> {
    let bundle = read_bundle(&raw, name)?;
    let (text, report) = recycle_bundle(&bundle, store, options)?;
    Ok((parse::encode(&bundle, &text), report))
}

/// The leverage report of a source bundle: each property with text counted, as
/// [`crate::analyze`](mod@crate::analyze) counts XLIFF segments.
///
/// # Errors
/// As [`recycle_properties`].
pub fn analyze_properties(
    mut input: impl Read,
    name: &str,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<Analysis, FormatError> {
    let mut raw = Vec::new();
    input
        .read_to_end(&mut raw)
        .map_err(|e| FormatError::io(Format::Properties, "cannot read", e).in_file(name))?;
    analyze_bytes(raw, name, store, options).map(|(a, _)| a)
}

/// [`analyze_properties`], also giving each counted segment; the registry's analyze.
pub(crate) fn analyze_bytes(
    raw: Vec<u8>,
    name: &str,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<(Analysis, Vec<Counted>), FormatError> {
    let bundle = read_bundle(&raw, name)?;
    let (src, trg) = locales(name, options.source_locale.as_ref(), options.target_locale.as_ref())?;
    let runs = sources(&bundle, options.recognizer.as_ref());
    let props = &bundle.properties;
    let with_text: Vec<usize> = (0..props.len()).filter(|&i| has_text(&runs[i])).collect();
    let segments: Vec<(Segment<'_>, u64)> = with_text
        .iter()
        .map(|&i| (Segment { runs: &runs[i], context: context(props, i), counted: &runs[i] }, props[i].line))
        .collect();
    crate::analyze::analyze_segments(
        name,
        &segments,
        props.len() - with_text.len(),
        (&src, &trg),
        store,
        options,
        &|line, message| {
            FormatError::new(Format::Store, FormatErrorKind::Store, message).in_file(name).at_line(line)
        },
    )
}

/// Every property with a value: a source bundle's segments all need a translation;
/// the registry's context input.
pub(crate) fn segments(raw: Vec<u8>, name: &str) -> Result<Vec<DocSegment>, FormatError> {
    let bundle = read_bundle(&raw, name)?;
    Ok(bundle
        .properties
        .into_iter()
        .filter(|p| !p.value.trim().is_empty())
        .map(|p| DocSegment { line: p.line, unit: p.key, source: SegmentSource::Text(p.value) })
        .collect())
}

#[cfg(test)]
mod tests {
    use cmem_core::{MemStore, NewEntry, Recognizer, Variant};

    use super::*;

    fn store(pairs: &[(&str, &str)]) -> MemStore {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let rec = Recognizer::default();
        let entries: Vec<NewEntry> = pairs
            .iter()
            .map(|(s, t)| {
                let (s, t) = rec.recognize_pair(s, t);
                NewEntry::pair(Variant::new(en.clone(), s), Variant::new(de.clone(), t))
            })
            .collect();
        let store = MemStore::new();
        store.write(&entries).unwrap();
        store
    }

    fn options() -> RecycleOptions {
        RecycleOptions {
            target_locale: Locale::parse("de").ok(),
            recognizer: Some(Recognizer::default()),
            ..RecycleOptions::default()
        }
    }

    fn recycled(source: &[u8], store: &MemStore, options: &RecycleOptions) -> (RecycleReport, Vec<u8>) {
        let (bytes, report) = recycle_bytes(source.to_vec(), "messages.properties", store, options).unwrap();
        (report, bytes)
    }

    #[test]
    fn fills_keep_comments_keys_and_order_and_escape() {
        let memory = store(&[
            ("Open {0}", "{0} öffnen"),
            ("Save the file", "Datei speichern"),
            ("Two lines", "Zwei\nZeilen"),
            ("Delete the files", "Die Dateien löschen"),
        ]);
        let source = "# Menu\r\nmenu.open = Open {1}\r\n\r\n! the save item\r\nmenu.save:Save \\\r\n    the file\r\nlines Two lines\r\nempty=\r\ncode={0}\r\nnone = Nothing like it\r\ndel = Delete the file\r\n";
        let (report, out) = recycled(source.as_bytes(), &memory, &options());
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "# Menu\r\nmenu.open = {1} \\u00F6ffnen\r\n\r\n! the save item\r\nmenu.save:Datei speichern\r\n\
             lines Zwei\\nZeilen\r\nempty=\r\ncode={0}\r\n# cmem: untranslated\r\nnone = Nothing like it\r\n\
             # cmem: fuzzy, 93% match (cmem)\r\ndel = Die Dateien l\\u00F6schen\r\n"
        );
        assert_eq!(
            (
                report.segments,
                report.filled,
                report.filled_exact,
                report.with_candidates,
                report.untouched,
                report.skipped
            ),
            (7, 3, 3, 1, 1, 2)
        );
        // The file reads back as the fills.
        let bundle = parse::read(out.as_bytes(), "de.properties").unwrap();
        let value = |k: &str| bundle.properties.iter().find(|p| p.key == k).map(|p| p.value.clone());
        assert_eq!(value("menu.open").as_deref(), Some("{1} öffnen"));
        assert_eq!(value("lines").as_deref(), Some("Zwei\nZeilen"));
    }

    #[test]
    fn a_utf8_bundle_gets_its_characters_and_a_latin1_one_escapes() {
        let memory = store(&[("Delete", "Löschen ✓")]);
        let (_, out) = recycled("# Größe\nk=Delete\n".as_bytes(), &memory, &options());
        assert_eq!(String::from_utf8(out).unwrap(), "# Größe\nk=Löschen ✓\n");
        let (_, out) = recycled(b"# Gr\xf6\xdfe\nk=Delete\n", &memory, &options());
        assert_eq!(out, b"# Gr\xf6\xdfe\nk=L\\u00F6schen \\u2713\n");
    }

    #[test]
    fn a_bare_key_gets_a_separator_and_repetitions_fill_from_the_first() {
        let memory = store(&[("Quit", "Beenden")]);
        let mut o = options();
        o.fill_threshold = 1.0;
        let (report, out) = recycled(b"a=Quit\nb = Quit\n", &memory, &o);
        assert_eq!((report.filled_exact, report.repetitions), (2, 1));
        assert_eq!(String::from_utf8(out).unwrap(), "a=Beenden\nb = Beenden\n");
    }

    #[test]
    fn a_bad_escape_refuses_the_file_naming_line_and_column() {
        let memory = store(&[]);
        let err = recycle_bytes(b"ok=1\nbad=\\u12x4\n".to_vec(), "messages.properties", &memory, &options())
            .unwrap_err();
        assert_eq!((err.kind(), err.line(), err.column()), (FormatErrorKind::InvalidLine, Some(2), Some(5)));
        assert!(
            err.to_string().starts_with(
                "properties: messages.properties: line 2, column 5: \"\\u12x\" is not a Unicode escape"
            ),
            "{err}"
        );
        let err =
            recycle_bytes(b"k=v\n".to_vec(), "messages.properties", &memory, &RecycleOptions::default())
                .unwrap_err();
        assert_eq!(err.kind(), FormatErrorKind::NoTargetLanguage);
        assert!(err.to_string().ends_with("give one in the options"), "{err}");
    }

    #[test]
    fn analyze_counts_and_segments_list_every_value() {
        let memory = store(&[("Save the file", "Datei speichern")]);
        let o = AnalyzeOptions { target_locale: Locale::parse("de").ok(), ..AnalyzeOptions::default() };
        let a = analyze_properties(
            "a=Save the file\nb=New words here\nc=\n".as_bytes(),
            "m.properties",
            &memory,
            &o,
        )
        .unwrap();
        assert_eq!((a.segments, a.words, a.skipped), (2, 6, 1));
        let s = segments(b"a=One\nb=\n# c\nc = Two\n".to_vec(), "m.properties").unwrap();
        let got: Vec<(u64, &str)> = s.iter().map(|s| (s.line, s.unit.as_str())).collect();
        assert_eq!(got, [(1, "a"), (4, "c")]);
    }
}
