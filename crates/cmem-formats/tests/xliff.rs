//! XLIFF reading, recycling and analysis on the real files of `testdata/xliff12`,
//! `testdata/xliff2` and the XLIFF files of `testdata/invalid` (provenance in
//! `testdata/README.md`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cmem_core::ContentMemoryExt;
use std::fs;
use std::path::{Path, PathBuf};

use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
use cmem_formats::{
    analyze_document, count_words, recycle_document, recycle_file, AnalyzeOptions, Band, Bands,
    FillAmbiguous, FormatErrorKind as ErrorKind, RecycleOptions, XliffDocument, XliffVersion,
};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(testdata().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.ends_with(".xlf") || name.ends_with(".xliff") || name.ends_with(".sdlxliff")
        })
        .collect();
    files.sort();
    files
}

fn real_files() -> Vec<PathBuf> {
    let mut all = files("xliff12");
    all.extend(files("xliff2"));
    assert!(all.len() >= 20, "{} XLIFF files", all.len());
    all
}

fn parse(path: &Path) -> XliffDocument {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    XliffDocument::parse(fs::read(path).unwrap(), &name).unwrap_or_else(|e| panic!("{e}"))
}

/// The locales of a document, with a default for files that name none.
fn locales(doc: &XliffDocument) -> (Locale, Locale) {
    let src = doc
        .source_locale()
        .and_then(|l| Locale::parse(l).ok())
        .unwrap_or_else(|| Locale::parse("en").unwrap());
    let trg = doc
        .target_locale()
        .and_then(|l| Locale::parse(l).ok())
        .unwrap_or_else(|| Locale::parse("de").unwrap());
    (src, trg)
}

fn options_for(doc: &XliffDocument) -> RecycleOptions {
    let (src, trg) = locales(doc);
    let mut o = RecycleOptions::default();
    o.source_locale = Some(src);
    o.target_locale = Some(trg);
    o
}

#[test]
fn every_real_file_reads_with_segments() {
    for path in real_files() {
        let doc = parse(&path);
        let name = path.file_name().unwrap().to_string_lossy();
        let expect =
            if path.parent().unwrap().ends_with("xliff2") { XliffVersion::V2 } else { XliffVersion::V1 };
        assert_eq!(doc.version(), expect, "{name}");
        assert!(!doc.segments().is_empty(), "{name}: no segments");
        for seg in doc.segments() {
            // Every code run carries its element's markup.
            for run in &seg.source {
                if let Some(code) = run.code() {
                    assert!(code.data.starts_with('<') && code.data.ends_with('>'), "{name}: {code:?}");
                }
            }
        }
    }
}

#[test]
fn known_segments_and_codes() {
    let doc = parse(&testdata().join("xliff12/okapi__RB-12-Test02.xlf"));
    assert_eq!(doc.source_locale(), Some("en"));
    assert_eq!(doc.target_locale(), Some("fr"));
    let seg = doc.segments().iter().find(|s| s.unit_id == "4").unwrap();
    assert_eq!(cmem_core::to_notation(&seg.source), cmem_core::to_notation(seg.target.as_ref().unwrap()));
    assert!(matches!(&seg.source[1], Run::PcOpen(c) if c.id == "1" && c.data == "<g id=\"1\">"));
    // seg-source units give one segment per mrk.
    assert!(doc.segments().iter().any(|s| s.segment_id.is_some()));

    let doc = parse(&testdata().join("xliff12/okapi__Manual-12-AltTrans.xlf"));
    assert!(doc.segments().iter().any(|s| !s.translatable), "translate=\"no\" is read");
    assert!(doc.segments().iter().any(|s| s.approved), "approved=\"yes\" is read");

    // XLIFF 2: sc/ec across segments are unpaired opens and closes.
    let doc = parse(&testdata().join("xliff2/oasis-xliff22__toJoin.xlf"));
    let opens: usize = doc
        .segments()
        .iter()
        .flat_map(|s| &s.source)
        .filter(|r| matches!(r, Run::PcOpen(c) if c.kind.starts_with("sc")))
        .count();
    let closes: usize = doc
        .segments()
        .iter()
        .flat_map(|s| &s.source)
        .filter(|r| matches!(r, Run::PcClose(c) if c.kind.starts_with("ec")))
        .count();
    assert!(opens > 0 && opens == closes, "{opens} sc, {closes} ec");
}

#[test]
fn empty_memory_changes_nothing() {
    let store = MemStore::new();
    for path in real_files() {
        let raw = fs::read(&path).unwrap();
        let mut doc = parse(&path);
        let options = options_for(&doc);
        let report = recycle_document(&mut doc, &store, &options).unwrap();
        assert_eq!(report.filled + report.with_candidates, 0);
        assert_eq!(report.untouched + report.skipped, doc.segments().len());
        assert!(doc.to_bytes() == raw, "{}", path.display());
    }
}

/// A memory of the document's own (source, target) pairs.
fn own_memory(doc: &XliffDocument) -> MemStore {
    let (src, trg) = locales(doc);
    let store = MemStore::new();
    let entries: Vec<NewEntry> = doc
        .segments()
        .iter()
        .filter(|s| s.has_target() && has_text(&s.source))
        .map(|s| {
            NewEntry::pair(
                Variant::new(src.clone(), s.source.clone()),
                Variant::new(trg.clone(), s.target.clone().unwrap()),
            )
        })
        .collect();
    store.write(&entries).unwrap();
    store
}

fn has_text(runs: &[Run]) -> bool {
    !text_of(runs).trim().is_empty()
}

/// The text runs only (codes without a counterpart in the source are left out of fills).
fn text_of(runs: &[Run]) -> String {
    runs.iter().filter_map(|r| if let Run::Text(t) = r { Some(t.as_str()) } else { None }).collect()
}

/// Segments recycle looks up when `overwrite` is set.
fn eligible(doc: &XliffDocument) -> Vec<usize> {
    (0..doc.segments().len())
        .filter(|&i| {
            let s = &doc.segments()[i];
            s.translatable && !s.approved && doc.can_fill(i) && has_text(&s.source)
        })
        .collect()
}

#[test]
fn own_targets_fill_every_segment_exactly() {
    let mut checked = 0;
    for path in real_files() {
        let doc = parse(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let with_targets: Vec<usize> =
            eligible(&doc).into_iter().filter(|&i| doc.segments()[i].has_target()).collect();
        if with_targets.is_empty() {
            continue;
        }
        let store = own_memory(&doc);
        let mut doc = doc;
        let mut options = options_for(&doc);
        options.overwrite = true;
        options.fill_threshold = 1.0;
        let report = recycle_document(&mut doc, &store, &options).unwrap();
        // Every segment whose source has one stored answer fills; sources translated twice
        // differently are ambiguous and never filled at 1.0.
        let mut answers: std::collections::HashMap<String, std::collections::HashSet<String>> =
            Default::default();
        for &i in &with_targets {
            let s = &doc.segments()[i];
            answers
                .entry(cmem_core::structural_text(&s.source))
                .or_default()
                .insert(cmem_core::structural_text(s.target.as_ref().unwrap()));
        }
        let expected = eligible(&doc)
            .iter()
            .filter(|&&i| {
                answers
                    .get(&cmem_core::structural_text(&doc.segments()[i].source))
                    .is_some_and(|a| a.len() == 1)
            })
            .count();
        let ambiguous = with_targets.len()
            - with_targets
                .iter()
                .filter(|&&i| answers[&cmem_core::structural_text(&doc.segments()[i].source)].len() == 1)
                .count();
        assert_eq!(report.filled, expected, "{name}: {report}");
        let out = doc.to_bytes();
        let again =
            XliffDocument::parse(out, &name).unwrap_or_else(|e| panic!("{name}: output does not read: {e}"));
        assert_eq!(again.segments().len(), doc.segments().len(), "{name}");
        for &i in &with_targets {
            let (before, after) = (&doc.segments()[i], &again.segments()[i]);
            let after_target = after.target.as_ref().unwrap();
            // The filled target's codes are the document's own source codes.
            for run in after_target {
                if let Some(code) = run.code() {
                    assert!(
                        before.source.iter().any(|r| r.code().is_some_and(|c| c.data == code.data)),
                        "{name}: segment {i}: {} is not a source code",
                        code.data
                    );
                }
            }
            if ambiguous == 0 {
                assert_eq!(
                    text_of(after_target),
                    text_of(before.target.as_ref().unwrap()),
                    "{name}: segment {i}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "{checked} files with targets");
}

#[test]
fn fills_and_candidates_in_xliff12() {
    let xlf = "<?xml version=\"1.0\"?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n\
<file source-language=\"en\" target-language=\"de\" datatype=\"plaintext\" original=\"a\"><body>\n\
  <trans-unit id=\"1\">\n    <source>Open the <g id=\"1\" ctype=\"bold\">file</g> now</source>\n  </trans-unit>\n\
  <trans-unit id=\"2\">\n    <source>Close the window please</source>\n    <target state=\"new\"/>\n  </trans-unit>\n\
  <trans-unit id=\"3\" translate=\"no\">\n    <source>Open the file now</source>\n  </trans-unit>\n\
</body></file></xliff>\n";
    let en = Locale::parse("en").unwrap();
    let de = Locale::parse("de").unwrap();
    let store = MemStore::new();
    let pair =
        |s: Vec<Run>, t: Vec<Run>| NewEntry::pair(Variant::new(en.clone(), s), Variant::new(de.clone(), t));
    let b = |id: &str, open: bool| {
        let c = cmem_core::Code::new(id).kind("bold").data(if open { "<b>" } else { "</b>" });
        if open {
            Run::PcOpen(c)
        } else {
            Run::PcClose(c)
        }
    };
    store
        .write(&[
            pair(
                vec![
                    Run::text("Open the "),
                    b("7", true),
                    Run::text("file"),
                    b("7", false),
                    Run::text(" now"),
                ],
                vec![b("7", true), Run::text("Datei"), b("7", false), Run::text(" jetzt öffnen")],
            ),
            pair(
                vec![Run::text("Close this window, please")],
                vec![Run::text("Schließen Sie bitte die Fenster")],
            ),
        ])
        .unwrap();
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "t.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!(
        (report.filled, report.with_candidates, report.untouched, report.skipped),
        (1, 1, 0, 1),
        "{report}"
    );
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    // The fill carries the document's <g>, not the memory's <b>, in a new target after the source.
    assert!(
        out.contains("now</source>\n    <target xml:lang=\"de\" state=\"")
            && out.contains("<g id=\"1\" ctype=\"bold\">Datei</g> jetzt öffnen</target>"),
        "{out}"
    );
    assert!(
        out.contains("<target xml:lang=\"de\" state=\"translated\" state-qualifier=\"exact-match\">"),
        "{out}"
    );
    // The candidate keeps the empty target and follows it.
    assert!(out.contains("<target state=\"new\"/>\n    <alt-trans match-quality=\""), "{out}");
    assert!(out.contains("origin=\"cmem\" alttranstype=\"proposal\"><source xml:lang=\"en\">Close this window, please</source><target xml:lang=\"de\">Schließen Sie bitte die Fenster</target></alt-trans>"), "{out}");
    // Everything else is unchanged: removing the insertions gives the input back.
    let again = XliffDocument::parse(out.clone().into_bytes(), "t.xlf").unwrap();
    let filled = again.segments()[0].target.as_ref().unwrap();
    assert_eq!(cmem_core::flatten_runs(filled), "Datei jetzt öffnen");
    assert_eq!(again.segments()[0].state.as_deref(), Some("translated"), "an exact, unambiguous match");
    assert!(again.segments()[1].target.as_ref().unwrap().is_empty());
}

#[test]
fn fills_and_candidates_in_xliff2() {
    let xlf = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"de\">\n\
 <file id=\"f1\">\n  <unit id=\"u1\">\n   <segment id=\"s1\">\n    <source>Save <ph id=\"1\"/> changes</source>\n   </segment>\n\
   <ignorable><source> </source></ignorable>\n   <segment>\n    <source>Print the report now</source>\n   </segment>\n  </unit>\n </file>\n</xliff>\n";
    let en = Locale::parse("en").unwrap();
    let de = Locale::parse("de").unwrap();
    let store = MemStore::new();
    let pair =
        |s: Vec<Run>, t: Vec<Run>| NewEntry::pair(Variant::new(en.clone(), s), Variant::new(de.clone(), t));
    let ph = Run::Ph(cmem_core::Code::new("9").data("%s"));
    store
        .write(&[
            pair(
                vec![Run::text("Save "), ph.clone(), Run::text(" changed")],
                vec![ph.clone(), Run::text(" Änderungen speichern")],
            ),
            pair(vec![Run::text("Print the reports now")], vec![Run::text("Berichte jetzt drucken")]),
        ])
        .unwrap();
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "t.xlf").unwrap();
    let mut options = RecycleOptions::default();
    options.fill_threshold = 0.9;
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!((report.filled, report.filled_exact), (2, 0), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains("<segment id=\"s1\" state=\"translated\" subState=\"cmem:needs-review\">"), "{out}");
    assert!(out.contains("<target><ph id=\"1\"/> Änderungen speichern</target>"), "{out}");
    let again = XliffDocument::parse(out.into_bytes(), "t.xlf").unwrap();
    assert_eq!(again.segments().len(), 2);

    // Below the fill threshold: translation candidates, with the module declared.
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "t.xlf").unwrap();
    options.fill_threshold = 1.0;
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!((report.filled, report.with_candidates), (0, 2), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains("xmlns:mtc=\"urn:oasis:names:tc:xliff:matches:2.0\""), "{out}");
    assert!(out.contains("<mtc:matches><mtc:match id=\"cmem-0-1\" ref=\"#s1\" similarity=\""), "{out}");
    // Its codes get ids of their own (the unit has a ph with id 1 already).
    assert!(
        out.contains("<target><ph id=\"cmem-0-1-1\"/> Änderungen speichern</target></mtc:match>"),
        "{out}"
    );
    // A segment without an id gets one for the candidate's ref.
    assert!(out.contains("<segment id=\"cmem-s1\">"), "{out}");
    let again = XliffDocument::parse(out.into_bytes(), "t.xlf").unwrap();
    assert_eq!(again.segments().len(), 2);
    assert!(again.segments().iter().all(|s| s.target.is_none()));
}

#[test]
fn invalid_files_give_located_errors() {
    let cases: &[(&str, ErrorKind, u64, u64, &str)] = &[
        ("microsoft-xliff2om__EmptyFile.xlf", ErrorKind::Xml, 1, 1, "no root element"),
        ("microsoft-xliff2om__InvalidFile.xlf", ErrorKind::Xml, 1, 1, ""),
        ("oasis-xliff22__bad_DataRefWithoutOriginalData.xlf", ErrorKind::NotXliff, 0, 0, "dataRef=\"d1\""),
        ("oasis-xliff22__bad_EcBeforeSc.xlf", ErrorKind::NotXliff, 0, 0, "<ec startRef=\"1\"> comes before"),
        ("oasis-xliff22__bad_NoTrgLang.xlf", ErrorKind::NotXliff, 0, 0, "no trgLang"),
        ("oasis-xliff22__bad_SegmentWithoutSource.xlf", ErrorKind::NotXliff, 0, 0, "has no <source>"),
        ("oasis-xliff22__Good-pgs_plural.xlf", ErrorKind::Xml, 0, 0, ""),
        // XML 1.0 forbids C0 controls but tab, line feed and carriage return, raw or as
        // references (§2.2, §4.1).
        (
            "okapi__invalid_xml_entity.xlf",
            ErrorKind::Xml,
            8,
            29,
            "U+0003 is not allowed in an XML 1.0 document",
        ),
        ("control-char-in-target.xlf", ErrorKind::Xml, 7, 23, "U+0008 is not allowed in an XML 1.0 document"),
    ];
    let mut failures = Vec::new();
    for (file, kind, line, col, contains) in cases {
        let path = testdata().join("invalid").join(file);
        let err = match XliffDocument::parse(fs::read(&path).unwrap(), file) {
            Ok(_) => {
                failures.push(format!("{file}: read without error"));
                continue;
            }
            Err(e) => e,
        };
        let msg = err.to_string();
        let place_ok = *line == 0 || (err.line() == Some(*line) && err.column() == Some(*col));
        if err.kind() != *kind
            || !place_ok
            || !msg.contains(contains)
            || !msg.contains(file)
            || err.line().is_none()
        {
            failures.push(format!("{file}: {:?} {:?}:{:?}: {msg}", err.kind(), err.line(), err.column()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn ill_formed_xml_is_refused_by_import_and_recycle() {
    let dir = std::env::temp_dir().join(format!("cmem-xliff-ill-formed-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.xlf");
    let store = en_de_store(&[("Open the file", "Datei öffnen")]);
    for (file, line, column) in
        [("okapi__invalid_xml_entity.xlf", 8, 29), ("control-char-in-target.xlf", 7, 23)]
    {
        let path = testdata().join("invalid").join(file);
        fs::write(&out, b"previous").unwrap();
        let err = recycle_file(&path, &out, &store, &RecycleOptions::default()).unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::Xml, Some(line), Some(column)),
            "{err}"
        );
        assert!(err.to_string().contains(file), "{err}");
        assert_eq!(fs::read(&out).unwrap(), b"previous", "{file}: the output is left as it was");
        // Imported as a translated document: refused the same way, nothing read.
        let mut options = cmem_formats::XliffInOptions::default();
        options.file_name = file.to_owned();
        let items: Vec<_> = match cmem_formats::XliffReader::new(&fs::read(&path).unwrap()[..], options, None)
        {
            Ok(r) => r.collect(),
            Err(e) => vec![Err(e)],
        };
        assert!(
            items.iter().all(|i| !matches!(i, Ok(cmem_formats::Item::Entry(_)))),
            "{file}: an entry was read"
        );
        let err = items.into_iter().find_map(Result::err).unwrap_or_else(|| panic!("{file}: no error"));
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::Xml, Some(line), Some(column)),
            "{err}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A PASSOLO XLIFF 1.0 menu (as `okapi__PAS-10-Test01.xlf`): the memory holds
/// `&File:` → `&Fichier :` for two units. Their candidate for `&File` is written once,
/// and as a pair that belongs together: the final mark repaired away, so the segment's
/// own source beside the adapted target, labelled. A match left as stored keeps the
/// stored source.
#[test]
fn candidates_are_written_once_each_and_as_pairs() {
    let (en, fr) = (Locale::parse("en").unwrap(), Locale::parse("fr").unwrap());
    let store = MemStore::new();
    let entry = |s: &str, t: &str, unit: &str| {
        let mut e = NewEntry::pair(
            Variant::new(en.clone(), vec![Run::text(s)]),
            Variant::new(fr.clone(), vec![Run::text(t)]),
        );
        e.unit = unit.to_owned();
        e
    };
    store
        .write(&[
            entry("&File:", "&Fichier :", "menu.file"),
            entry("&File:", "&Fichier :", "dialog.file"),
            entry("Close the files", "Fermer les fichiers", ""),
        ])
        .unwrap();
    let xlf = "<?xml version=\"1.0\"?>\n<xliff version='1.0'>\n<file tool='PASSOLO 3.0' source-language='en' \
               target-language='fr' datatype='winres' original='NOTEPAD.EXE'>\n<body>\n\
               <trans-unit id='1' restype='menupopup'>\n<source>&amp;File</source>\n</trans-unit>\n\
               <trans-unit id='2'>\n<source>Close the file</source>\n</trans-unit>\n</body>\n</file>\n</xliff>\n";
    let mut doc = XliffDocument::read(xlf.as_bytes(), "menu.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!((report.filled, report.with_candidates), (0, 2));
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert_eq!(out.matches("<alt-trans").count(), 2, "{out}");
    assert!(
        out.contains(
            "<source xml:lang=\"en\">&amp;File</source><target xml:lang=\"fr\">&amp;Fichier</target>\
             <note>cmem: adapted to this source (punctuation)</note></alt-trans>"
        ),
        "{out}"
    );
    assert!(!out.contains("&amp;File:"), "the stored source beside the adapted target: {out}");
    assert!(
        out.contains(
            "<source xml:lang=\"en\">Close the files</source><target xml:lang=\"fr\">Fermer les fichiers</target>\
             </alt-trans>"
        ),
        "{out}"
    );
    // XLIFF 2 labels it with a subType.
    let xlf2 = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"fr\">\
                <file id=\"f\"><unit id=\"u\"><segment><source>&amp;File</source></segment></unit></file></xliff>";
    let mut doc = XliffDocument::read(xlf2.as_bytes(), "menu2.xlf").unwrap();
    recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert_eq!(out.matches("<mtc:match ").count(), 1, "{out}");
    assert!(out.contains("subType=\"cmem:adapted\""), "{out}");
    assert!(out.contains("<source>&amp;File</source><target>&amp;Fichier</target>"), "{out}");
}

#[test]
fn a_failed_recycle_leaves_the_output_alone() {
    let dir = std::env::temp_dir().join(format!("cmem-xliff-test-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.xlf");
    fs::write(&out, b"previous").unwrap();
    let store = MemStore::new();
    let bad = testdata().join("invalid/oasis-xliff22__bad_EcBeforeSc.xlf");
    assert!(recycle_file(&bad, &out, &store, &RecycleOptions::default()).is_err());
    assert_eq!(fs::read(&out).unwrap(), b"previous");
    let good = testdata().join("xliff12/okapi__RB-12-Test02.xlf");
    let report = recycle_file(&good, &out, &store, &RecycleOptions::default()).unwrap();
    assert_eq!(report.filled, 0);
    assert_eq!(fs::read(&out).unwrap(), fs::read(&good).unwrap());
    let leftovers = fs::read_dir(&dir).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary file is left");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn analysis_bands_and_repetitions() {
    let path = testdata().join("xliff12/okapi__RB-12-Test02.xlf");
    let doc = parse(&path);
    let (src, trg) = locales(&doc);
    // An empty memory: everything is new or a repetition.
    let empty = MemStore::new();
    let mut options = AnalyzeOptions::default();
    options.source_locale = Some(src);
    options.target_locale = Some(trg);
    let a = analyze_document(&doc, &empty, &options).unwrap();
    let counted = doc.segments().iter().filter(|s| s.translatable && has_text(&s.source)).count();
    assert_eq!(a.segments, counted);
    assert_eq!(a.band(Band::Exact).unwrap().segments, 0);
    let rows: usize = a.bands.iter().map(|b| b.segments).sum();
    assert_eq!(rows, a.segments);
    // Its own memory: every first occurrence with a target is exact.
    let own = own_memory(&doc);
    let b = analyze_document(&doc, &own, &options).unwrap();
    assert_eq!(b.band(Band::Repetition), a.band(Band::Repetition));
    assert!(b.band(Band::Exact).unwrap().segments > 0);
    assert_eq!(b.words, a.words);
    let table = b.to_string();
    assert!(table.contains("100%") && table.contains("repetitions") && table.contains("total"), "{table}");
    let json = serde_json::to_value(&b).unwrap();
    assert_eq!(json["segments"], b.segments);
    assert_eq!(json["bands"][1]["band"], "exact");
}

#[test]
fn analysis_tells_its_progress_and_stops_when_cancelled() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    let path = testdata().join("xliff12/okapi__RB-12-Test02.xlf");
    let doc = parse(&path);
    let (src, trg) = locales(&doc);
    let own = own_memory(&doc);
    let mut options = AnalyzeOptions::default();
    options.source_locale = Some(src.clone());
    options.target_locale = Some(trg.clone());
    let plain = analyze_document(&doc, &own, &options).unwrap();
    assert_eq!(plain.pairs, vec![(src, trg)]);
    // Progress: each lookup once, the last call at the total.
    let (calls, last) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (c, l) = (Arc::clone(&calls), Arc::clone(&last));
    options.progress = Some(cmem_formats::LookupProgress::new(move |done, total| {
        c.fetch_add(1, Ordering::Relaxed);
        l.fetch_max(done * 1_000_000 + total, Ordering::Relaxed);
    }));
    assert_eq!(analyze_document(&doc, &own, &options).unwrap(), plain);
    let (n, last) = (calls.load(Ordering::Relaxed), last.load(Ordering::Relaxed));
    assert!(n > 0 && n <= plain.segments);
    assert_eq!((last / 1_000_000, last % 1_000_000), (n, n), "the last call says all are done");
    // Cancelled: an `interrupted` error, no report.
    options.cancel = Some(Arc::new(AtomicBool::new(true)));
    let err = analyze_document(&doc, &own, &options).unwrap_err();
    assert!(err.to_string().contains("interrupted"), "{err}");
}

#[test]
fn word_counts() {
    assert_eq!(count_words("Open the file, please."), 4);
    assert_eq!(count_words(" -- ... "), 0);
    assert_eq!(count_words("ファイルを開く"), 7);
    assert_eq!(count_words("打开文件 now"), 5);
    assert_eq!(count_words("เปิดไฟล์"), 8);
    assert_eq!(count_words("don't re-open"), 2);
}

mod mutated {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Mutation {
        Delete(usize, usize),
        Insert(usize, Vec<u8>),
        Duplicate(usize, usize),
        Flip(usize, u8),
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
            (
                any::<usize>(),
                prop::collection::vec(
                    prop_oneof![
                        Just(b'<'),
                        Just(b'>'),
                        Just(b'/'),
                        Just(b'"'),
                        Just(b'&'),
                        Just(b'='),
                        any::<u8>()
                    ],
                    1..8
                )
            )
                .prop_map(|(a, b)| Mutation::Insert(a, b)),
            (any::<usize>(), 1usize..200).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
            (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Flip(a, b)),
        ]
    }

    fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
        if bytes.is_empty() {
            return;
        }
        match m {
            Mutation::Delete(a, n) => {
                let a = a % bytes.len();
                let end = (a + n).min(bytes.len());
                bytes.drain(a..end);
            }
            Mutation::Insert(a, b) => {
                let a = a % bytes.len();
                bytes.splice(a..a, b.iter().copied());
            }
            Mutation::Duplicate(a, n) => {
                let a = a % bytes.len();
                let end = (a + n).min(bytes.len());
                let copy = bytes[a..end].to_vec();
                bytes.splice(end..end, copy);
            }
            Mutation::Flip(a, b) => {
                let a = a % bytes.len();
                bytes[a] = *b;
            }
        }
    }

    fn corpus() -> Vec<(String, Vec<u8>, MemStore)> {
        real_files()
            .into_iter()
            .filter(|p| fs::metadata(p).unwrap().len() < 70_000)
            .map(|p| {
                let doc = parse(&p);
                let store = own_memory(&doc);
                (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap(), store)
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// Arbitrary bytes after an XLIFF start give an error or a document, never a panic.
        #[test]
        fn parse_never_panics(tail in prop::collection::vec(any::<u8>(), 0..400)) {
            let mut bytes = b"<xliff version=\"2.0\" srcLang=\"en\" trgLang=\"de\"><file id=\"f\"><unit id=\"u\"><segment><source>".to_vec();
            bytes.extend_from_slice(&tail);
            if let Ok(doc) = XliffDocument::parse(bytes, "x.xlf") {
                let _ = doc.to_bytes();
            }
        }

        /// Recycle never panics on a damaged file; what reads, recycles into a file that
        /// reads again with the same segments.
        #[test]
        fn recycle_never_panics(pick in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..4)) {
            thread_local! { static CORPUS: Vec<(String, Vec<u8>, MemStore)> = corpus(); }
            CORPUS.with(|corpus| {
                let (name, original, store) = &corpus[pick % corpus.len()];
                let mut bytes = original.clone();
                for m in &mutations {
                    apply(&mut bytes, m);
                }
                let Ok(mut doc) = XliffDocument::parse(bytes, name) else { return };
                let mut options = options_for(&doc);
                options.overwrite = true;
                options.fuzzy_threshold = 0.5;
                if recycle_document(&mut doc, store, &options).is_err() {
                    return;
                }
                let out = doc.to_bytes();
                let again = XliffDocument::parse(out, name)
                    .unwrap_or_else(|e| panic!("{name} {mutations:?}: the recycled file does not read: {e}"));
                assert_eq!(again.segments().len(), doc.segments().len());
            });
        }
    }
}

fn en_de_store(pairs: &[(&str, &str)]) -> MemStore {
    let en = Locale::parse("en").unwrap();
    let de = Locale::parse("de").unwrap();
    let store = MemStore::new();
    let entries: Vec<NewEntry> = pairs
        .iter()
        .map(|(s, t)| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(*s)]),
                Variant::new(de.clone(), vec![Run::text(*t)]),
            )
        })
        .collect();
    store.write(&entries).unwrap();
    store
}

#[test]
fn segmented_units_get_a_target_built_from_seg_source() {
    let xlf = "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n\
<trans-unit id=\"1\"><source>First one. Second one. Third one.</source><seg-source><mrk mtype=\"seg\" mid=\"a\">First one.</mrk> <mrk mtype=\"seg\" mid=\"b\">Second one.</mrk> <mrk mtype=\"seg\" mid=\"c\">Third one.</mrk></seg-source></trans-unit>\n\
</body></file></xliff>";
    let store = en_de_store(&[("First one.", "Erstens."), ("Third one!", "Drittens!")]);
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "seg.xlf").unwrap();
    assert_eq!(doc.segments().len(), 3);
    let mut options = RecycleOptions::default();
    options.fill_threshold = 0.85;
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!((report.filled, report.filled_exact, report.untouched), (2, 1, 1), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    // One target for the unit; the unfilled segment is an empty mrk; a fuzzy fill makes
    // the whole target ask for review. "Third one." against the stored "Third one!": the
    // final mark is repaired in the fill.
    assert!(
        out.contains(
            "</seg-source><target xml:lang=\"de\" state=\"needs-review-translation\" state-qualifier=\"fuzzy-match\">\
             <mrk mtype=\"seg\" mid=\"a\">Erstens.</mrk> <mrk mtype=\"seg\" mid=\"b\"/> <mrk mtype=\"seg\" mid=\"c\">Drittens.</mrk></target>"
        ),
        "{out}"
    );
    let again = XliffDocument::parse(out.into_bytes(), "seg.xlf").unwrap();
    let targets: Vec<Option<String>> =
        again.segments().iter().map(|s| s.target.as_ref().map(|t| cmem_core::flatten_runs(t))).collect();
    assert_eq!(targets, [Some("Erstens.".to_owned()), Some(String::new()), Some("Drittens.".to_owned())]);
    // Recycling the result again fills the empty mrk in place, leaving the others.
    let store = en_de_store(&[("Second one.", "Zweitens.")]);
    let mut doc = again;
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!((report.filled, report.skipped), (1, 2), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains("<mrk mtype=\"seg\" mid=\"b\">Zweitens.</mrk>"), "{out}");
    assert!(
        out.contains("state=\"needs-review-translation\""),
        "an exact fill keeps the target's state: {out}"
    );
}

#[test]
fn utf16_documents_stay_utf16() {
    let xlf = "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"ö\"><body>\n\
<trans-unit id=\"1\"><source>Größe ändern</source></trans-unit>\n</body></file></xliff>\n";
    let raw: Vec<u8> = xlf.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let store = en_de_store(&[("Größe ändern", "Resize 😀")]);
    let mut doc = XliffDocument::parse(raw.clone(), "u16.xlf").unwrap();
    assert_eq!(cmem_core::flatten_runs(&doc.segments()[0].source), "Größe ändern");
    recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    let out = doc.to_bytes();
    assert_eq!(&out[..2], &[0xFF, 0xFE]);
    let units: Vec<u16> = out.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let text = String::from_utf16(&units).unwrap();
    assert_eq!(text, xlf.replace("</source>", "</source><target xml:lang=\"de\" state=\"translated\" state-qualifier=\"exact-match\">Resize 😀</target>"));
    let again = XliffDocument::parse(out, "u16.xlf").unwrap();
    assert_eq!(cmem_core::flatten_runs(again.segments()[0].target.as_ref().unwrap()), "Resize 😀");
}

#[test]
fn single_byte_documents_get_references_for_what_they_cannot_carry() {
    let head = "<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"pl\" datatype=\"x\" original=\"o\"><body>\n<trans-unit id=\"1\"><source>Caf";
    let mut raw = head.as_bytes().to_vec();
    raw.push(0xE9); // é in windows-1252
    raw.extend_from_slice(b" \x80</source></trans-unit>\n</body></file></xliff>\n");
    let store = MemStore::new();
    let en = Locale::parse("en").unwrap();
    let pl = Locale::parse("pl").unwrap();
    store
        .write(&[NewEntry::pair(
            Variant::new(en, vec![Run::text("Café €")]),
            Variant::new(pl, vec![Run::text("Kawiarnia é ł €")]),
        )])
        .unwrap();
    let mut doc = XliffDocument::parse(raw.clone(), "cp.xlf").unwrap();
    recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    let out = doc.to_bytes();
    assert!(out.starts_with(&raw[..raw.len() - 40]), "the untouched bytes are copied");
    let tail = String::from_utf8_lossy(&out);
    assert!(tail.contains("Kawiarnia \u{FFFD} &#x142; &#x20AC;</target>"), "{tail}");
    let again = XliffDocument::parse(out, "cp.xlf").unwrap();
    assert_eq!(cmem_core::flatten_runs(again.segments()[0].target.as_ref().unwrap()), "Kawiarnia é ł €");
}

#[test]
fn empty_and_existing_targets() {
    let xlf = "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n\
<trans-unit id=\"1\"><source>Open</source><target state=\"new\" xml:lang=\"de\"/></trans-unit>\n\
<trans-unit id=\"2\"><source>Open</source><target state='needs-translation'>  </target><note>n</note></trans-unit>\n\
<trans-unit id=\"3\"><source>Open</source><target state=\"translated\">Aufmachen</target></trans-unit>\n\
<trans-unit id=\"4\" approved=\"yes\"><source>Open</source><target>Aufmachen</target></trans-unit>\n\
</body></file></xliff>";
    let store = en_de_store(&[("Open", "Öffnen")]);
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "e.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!((report.filled, report.skipped), (2, 2), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains("<target state=\"translated\" xml:lang=\"de\" state-qualifier=\"exact-match\">Öffnen</target></trans-unit>"), "{out}");
    assert!(
        out.contains(
            "<target state=\"translated\" state-qualifier=\"exact-match\">Öffnen</target><note>n</note>"
        ),
        "{out}"
    );
    assert!(out.contains("<target state=\"translated\">Aufmachen</target>"), "{out}");
    // With overwrite, the unapproved translation is replaced; the approved one never is.
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "e.xlf").unwrap();
    let mut options = RecycleOptions::default();
    options.overwrite = true;
    options.review_exact = true;
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!((report.filled, report.filled_exact, report.skipped), (3, 0, 1), "{report}");
    let again = XliffDocument::parse(doc.to_bytes(), "e.xlf").unwrap();
    let states: Vec<Option<&str>> = again.segments().iter().map(|s| s.state.as_deref()).collect();
    assert_eq!(states, [Some("needs-review-translation"); 3].into_iter().chain([None]).collect::<Vec<_>>());
    assert_eq!(cmem_core::flatten_runs(again.segments()[3].target.as_ref().unwrap()), "Aufmachen");
}

/// With a memory that translates every source of a file (as «source» with its codes),
/// recycling fills every segment it may, in whatever shape its target had (none, empty,
/// blank, segmented), and the output reads back with exactly those targets.
#[test]
fn every_fillable_segment_of_every_real_file_fills() {
    for path in real_files() {
        let doc = parse(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (src, trg) = locales(&doc);
        let translate = |runs: &[Run]| {
            let mut t = vec![Run::text("«")];
            t.extend(runs.iter().cloned());
            t.push(Run::text("»"));
            t
        };
        let store = MemStore::new();
        let entries: Vec<NewEntry> = doc
            .segments()
            .iter()
            .filter(|s| has_text(&s.source))
            .map(|s| {
                NewEntry::pair(
                    Variant::new(src.clone(), s.source.clone()),
                    Variant::new(trg.clone(), translate(&s.source)),
                )
            })
            .collect();
        store.write(&entries).unwrap();
        let fillable = eligible(&doc);
        let mut doc = doc;
        let mut options = options_for(&doc);
        options.overwrite = true;
        let report = recycle_document(&mut doc, &store, &options).unwrap();
        assert_eq!(report.filled, fillable.len(), "{name}: {report}");
        assert_eq!(report.codes_dropped, 0, "{name}: {report}");
        let again = XliffDocument::parse(doc.to_bytes(), &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again.segments().len(), doc.segments().len(), "{name}");
        for &i in &fillable {
            let (before, after) = (&doc.segments()[i], &again.segments()[i]);
            let target = after.target.as_ref().unwrap_or_else(|| panic!("{name}: segment {i} has no target"));
            // Sources equal but for white space share one stored answer.
            assert_eq!(
                text_of(target).split_whitespace().collect::<String>(),
                format!("«{}»", text_of(&before.source)).split_whitespace().collect::<String>(),
                "{name}: segment {i}"
            );
            let codes = |runs: &[Run]| {
                runs.iter().filter_map(|r| r.code().map(|c| c.data.clone())).collect::<Vec<_>>()
            };
            assert_eq!(codes(target), codes(&before.source), "{name}: segment {i}");
            assert!(after.state.is_some(), "{name}: segment {i} has no state");
        }
        // Vendor extensions (attributes, elements, skeletons) pass through: as many in the
        // output as in the input.
        let input = String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned();
        let output = String::from_utf8_lossy(&doc.to_bytes()).into_owned();
        for ext in [" sdl:", "<sdl:", " mq:", " memsource:", " okp:", "<skl", "<internal-file", "<?", "<!--"]
        {
            assert_eq!(output.matches(ext).count(), input.matches(ext).count(), "{name}: {ext}");
        }
        // Segments recycle may not touch keep their targets.
        for i in (0..doc.segments().len()).filter(|i| !fillable.contains(i)) {
            assert_eq!(again.segments()[i].target, doc.segments()[i].target, "{name}: segment {i}");
        }
    }
}

#[test]
fn ambiguous_exact_matches_are_not_filled_at_1() {
    let xlf = "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n\
<trans-unit id=\"1\"><source>Open</source></trans-unit>\n</body></file></xliff>";
    let store = en_de_store(&[("Open", "Öffnen"), ("Open", "Aufmachen")]);
    let mut options = RecycleOptions::default();
    options.fill_threshold = 1.0;
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!((report.filled, report.with_candidates), (0, 1), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert_eq!(out.matches("<alt-trans match-quality=\"99\"").count(), 2, "{out}");
    // At 0.95 neither fills either: ambiguous answers are for a person to choose.
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!((report.filled, report.with_candidates), (0, 1), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(!out.contains("state="), "{out}");
    assert_eq!(out.matches("<alt-trans").count(), 2, "{out}");
    // Nor with `Dominant`: one approval each, neither dominates.
    let options = RecycleOptions::default().fill_ambiguous(FillAmbiguous::Dominant);
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!((report.filled, report.filled_ambiguous), (0, 0), "{report}");
    // A point settles it? Without points on the entries, no: still ambiguous. The analysis
    // counts it in 95-99, not 100.
    let doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let a = analyze_document(&doc, &store, &AnalyzeOptions::default()).unwrap();
    assert_eq!(a.band(Band::FUZZY95).unwrap().segments, 1);
}

/// "Step" approved as "Schritt" `schritt` times and as "Schwellenwert" once.
fn step_store(schritt: usize) -> MemStore {
    let mut pairs = vec![("Step", "Schwellenwert")];
    pairs.extend(std::iter::repeat_n(("Step", "Schritt"), schritt));
    en_de_store(&pairs)
}

#[test]
fn a_dominant_ambiguous_answer_fills_for_review_in_xliff12() {
    let xlf = "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n\
<trans-unit id=\"1\"><source>Step</source></trans-unit>\n</body></file></xliff>";
    let dominant = RecycleOptions::default().fill_ambiguous(FillAmbiguous::Dominant);
    let recycled = |store: &MemStore, options: &RecycleOptions| {
        let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
        let report = recycle_document(&mut doc, store, options).unwrap();
        (report, String::from_utf8(doc.to_bytes()).unwrap())
    };
    // Twice against once: it dominates, fills, and asks for review; the other answer
    // stays a candidate.
    let (report, out) = recycled(&step_store(2), &dominant);
    assert_eq!((report.filled, report.filled_exact, report.filled_ambiguous), (1, 0, 1), "{report}");
    assert!(
        out.contains("<target xml:lang=\"de\" state=\"needs-review-translation\" state-qualifier=\"leveraged-tm\">Schritt</target>"),
        "{out}"
    );
    assert!(!out.contains("exact-match") && !out.contains("match-quality=\"100\""), "{out}");
    assert_eq!(out.matches("<alt-trans").count(), 1, "{out}");
    assert!(out.contains("Schwellenwert"), "{out}");
    // The default never fills it.
    let (report, out) = recycled(&step_store(2), &RecycleOptions::default());
    assert_eq!(report.filled, 0, "{report}");
    assert!(!out.contains("state="), "{out}");
    // Three against two: not twice as often.
    let store = en_de_store(&[
        ("Step", "Schwellenwert"),
        ("Step", "Schwellenwert"),
        ("Step", "Schritt"),
        ("Step", "Schritt"),
        ("Step", "Schritt"),
    ]);
    assert_eq!(recycled(&store, &dominant).0.filled, 0);
    // Below the fill threshold nothing fills, dominant or not.
    let mut high = dominant.clone();
    high.fill_threshold = 1.0;
    assert_eq!(recycled(&step_store(5), &high).0.filled, 0);
}

#[test]
fn a_dominant_ambiguous_answer_fills_for_review_in_xliff2() {
    let xlf = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"de\"><file id=\"f\"><unit id=\"u\"><segment id=\"s\"><source>Step</source></segment></unit></file></xliff>";
    let options = RecycleOptions::default().fill_ambiguous(FillAmbiguous::Dominant);
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let report = recycle_document(&mut doc, &step_store(3), &options).unwrap();
    assert_eq!((report.filled, report.filled_exact, report.filled_ambiguous), (1, 0, 1), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains("state=\"translated\" subState=\"cmem:needs-review-ambiguous\""), "{out}");
    assert!(out.contains("<target>Schritt</target>"), "{out}");
    assert!(!out.contains("similarity=\"100\""), "{out}");
    let again = XliffDocument::parse(out.into_bytes(), "a.xlf").unwrap();
    assert_eq!(again.segments()[0].state.as_deref(), Some("translated"));
    // The default leaves it to a person.
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let report = recycle_document(&mut doc, &step_store(3), &RecycleOptions::default()).unwrap();
    assert_eq!((report.filled, report.with_candidates), (0, 1), "{report}");
}

#[test]
fn bands_and_weights_are_configurable() {
    let mut bands = Bands::default();
    bands.set_fuzzy("90,60").unwrap();
    assert_eq!(
        bands.all(),
        [
            Band::Context,
            Band::Exact,
            Band::Repetition,
            Band::Fuzzy { from: 90, to: 99 },
            Band::Fuzzy { from: 60, to: 89 },
            Band::NoMatch
        ]
    );
    assert_eq!(bands.of(Some(0.95), false, false), Band::Fuzzy { from: 90, to: 99 });
    assert_eq!(bands.of(Some(0.61), false, false), Band::Fuzzy { from: 60, to: 89 });
    assert_eq!(bands.of(Some(0.59), false, false), Band::NoMatch);
    assert_eq!(bands.of(Some(1.0), false, true), Band::Context);
    assert_eq!(bands.threshold(), 0.6);
    bands.set_weights("context=5,100=20,repetitions=15,90=40,60=90,no-match=100").unwrap();
    let weights: Vec<u8> = bands.all().into_iter().map(|b| bands.weight(b)).collect();
    assert_eq!(weights, [5, 20, 15, 40, 90, 100]);
    for bad in ["95,95", "50,75", "0", "100", "x"] {
        assert!(Bands::default().set_fuzzy(bad).is_err(), "{bad}");
    }
    for bad in ["96=10", "context=101", "context", "100=x"] {
        assert!(Bands::default().set_weights(bad).is_err(), "{bad}");
    }
}

#[test]
fn bands_of_scores() {
    assert_eq!(Bands::default().of(Some(1.0), false, false), Band::Exact);
    assert_eq!(Bands::default().of(Some(1.0), true, false), Band::FUZZY95);
    assert_eq!(Bands::default().of(Some(0.99), false, false), Band::FUZZY95);
    assert_eq!(Bands::default().of(Some(0.9499), false, false), Band::FUZZY85);
    assert_eq!(Bands::default().of(Some(0.85), false, false), Band::FUZZY85);
    assert_eq!(Bands::default().of(Some(0.75), false, false), Band::FUZZY75);
    assert_eq!(Bands::default().of(Some(0.7499), false, false), Band::FUZZY50);
    assert_eq!(Bands::default().of(Some(0.5), false, false), Band::FUZZY50);
    assert_eq!(Bands::default().of(Some(0.49), false, false), Band::NoMatch);
    assert_eq!(Bands::default().of(None, false, false), Band::NoMatch);
}

#[test]
fn xliff2_without_trglang_gets_one_with_its_first_target() {
    let xlf = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\"><file id=\"f\"><unit id=\"u\"><segment id=\"s\"><source>Open</source></segment></unit></file></xliff>";
    let store = en_de_store(&[("Open", "Öffnen")]);
    let mut options = RecycleOptions::default();
    options.target_locale = Some(Locale::parse("de").unwrap());
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!(report.filled, 1);
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.starts_with("<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"de\">"), "{out}");
    let again = XliffDocument::parse(out.into_bytes(), "a.xlf").unwrap();
    assert_eq!(again.target_locale(), Some("de"));
    // Without a target language anywhere, recycle says so.
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let err = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap_err();
    assert!(err.to_string().contains("a.xlf") && err.to_string().contains("no target language"), "{err}");
}

#[test]
fn candidates_join_an_existing_matches_element() {
    let path = testdata().join("xliff2/oasis-xliff22__withMatches.xlf");
    let raw = fs::read(&path).unwrap();
    let en = Locale::parse("en").unwrap();
    let fr = Locale::parse("fr").unwrap();
    let store = MemStore::new();
    store
        .write(&[NewEntry::pair(
            Variant::new(en, vec![Run::text("Texts")]),
            Variant::new(fr, vec![Run::text("Textes")]),
        )])
        .unwrap();
    let mut doc = XliffDocument::parse(raw.clone(), "withMatches.xlf").unwrap();
    let mut options = RecycleOptions::default();
    options.overwrite = true;
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!(report.with_candidates, 1, "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert_eq!(out.matches("<mtc:matches").count(), 1, "{out}");
    assert!(
        out.contains("</mtc:match>\n   <mtc:match id=\"cmem-0-1\"")
            || out.contains("</mtc:match><mtc:match id=\"cmem-0-1\""),
        "{out}"
    );
    // The query's annotation around its whole text goes around the candidate's target.
    assert!(
        out.contains(
            "<source>Texts</source><target><mrk id=\"cmem-0-1-m1\" type=\"mtc:match\">Textes</mrk></target></mtc:match></mtc:matches>"
        ),
        "{out}"
    );
    // Declared on the element itself rather than on the root.
    let xlf = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"fr\"><file id=\"f\"><unit id=\"u\">\
<m:matches xmlns:m=\"urn:oasis:names:tc:xliff:matches:2.0\"></m:matches><segment id=\"s\"><source>Text</source></segment></unit></file></xliff>";
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "local.xlf").unwrap();
    recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(
        out.contains(
            "<m:matches xmlns:m=\"urn:oasis:names:tc:xliff:matches:2.0\"><m:match id=\"cmem-0-1\" ref=\"#s\""
        ),
        "{out}"
    );
    assert!(!out.contains("xmlns:mtc"), "{out}");
}

#[test]
fn a_source_too_long_to_look_up_is_skipped() {
    let long = "word ".repeat(3000);
    let xlf = format!("<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n\
<trans-unit id=\"1\"><source>{long}</source></trans-unit>\n<trans-unit id=\"2\"><source>Open</source></trans-unit>\n</body></file></xliff>");
    let store = en_de_store(&[("Open", "Öffnen")]);
    let mut doc = XliffDocument::parse(xlf.clone().into_bytes(), "long.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!((report.filled, report.skipped), (1, 1), "{report}");
    let a = analyze_document(&doc, &store, &AnalyzeOptions::default()).unwrap();
    assert_eq!(a.band(Band::NoMatch).unwrap().words, 3000);
}

#[test]
fn each_file_of_a_document_uses_its_own_languages() {
    let xlf = "<xliff version=\"1.2\">\
<file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"a\"><body><trans-unit id=\"1\"><source>Open</source></trans-unit></body></file>\
<file source-language=\"en\" target-language=\"fr\" datatype=\"x\" original=\"b\"><body><trans-unit id=\"1\"><source>Open</source></trans-unit></body></file>\
</xliff>";
    let en = Locale::parse("en").unwrap();
    let store = MemStore::new();
    for (lang, text) in [("de", "Öffnen"), ("fr", "Ouvrir")] {
        store
            .write(&[NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text("Open")]),
                Variant::new(Locale::parse(lang).unwrap(), vec![Run::text(text)]),
            )])
            .unwrap();
    }
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "two.xlf").unwrap();
    assert_eq!(doc.segments()[1].target_locale.as_deref(), Some("fr"));
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!(report.filled_exact, 2, "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(
        out.contains(
            "<target xml:lang=\"de\" state=\"translated\" state-qualifier=\"exact-match\">Öffnen</target>"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "<target xml:lang=\"fr\" state=\"translated\" state-qualifier=\"exact-match\">Ouvrir</target>"
        ),
        "{out}"
    );
}

#[test]
fn plain_text_segments_match_a_recognized_memory_when_asked() {
    let xlf = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="f" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="1">
        <source>Server supports %d</source>
      </trans-unit>
    </body>
  </file>
</xliff>
"#;
    let rec = cmem_core::model::recognize::Recognizer::default();
    let (s, t) = rec.recognize_pair("Server supports %s", "Server unterstützt %s");
    let store = MemStore::new();
    let en = Locale::parse("en").unwrap();
    let de = Locale::parse("de").unwrap();
    store.write(&[NewEntry::pair(Variant::new(en, s), Variant::new(de, t))]).unwrap();

    // As plain text, "%d" against a stored placeholder "%s" is no exact match.
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "t.xlf").unwrap();
    let plain = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!(plain.filled_exact, 0, "{plain}");

    // Recognized, it is a structural exact match, and the target gets the document's "%d"
    // written as text, since the segment has no inline elements.
    let mut options = RecycleOptions::default();
    options.recognizer = Some(rec);
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "t.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &options).unwrap();
    assert_eq!((report.filled, report.filled_exact), (1, 1), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains(">Server unterstützt %d</target>"), "{out}");

    // The leverage report agrees: the segment is an exact match only when recognized.
    let doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "t.xlf").unwrap();
    let exact = |a: &cmem_formats::Analysis| {
        a.bands.iter().find(|b| b.band == cmem_formats::Band::Exact).map_or(0, |b| b.segments)
    };
    let plain =
        cmem_formats::analyze_document(&doc, &store, &cmem_formats::AnalyzeOptions::default()).unwrap();
    assert_eq!(exact(&plain), 0);
    let mut aopts = cmem_formats::AnalyzeOptions::default();
    aopts.recognizer = options.recognizer.clone();
    let recognized = cmem_formats::analyze_document(&doc, &store, &aopts).unwrap();
    assert_eq!(exact(&recognized), 1);
}

/// Each 1.x version gets what it declares: `state-qualifier` from 1.1, `alttranstype`
/// from 1.2; new `alt-trans` follow the unit's notes (the 1.0 and 1.1 order).
#[test]
fn each_xliff1_version_gets_its_own_attributes_and_order() {
    let store = en_de_store(&[
        ("Open the file now", "Datei jetzt öffnen"),
        ("Close this window, please", "Fenster schließen"),
    ]);
    for (version, ns, qualifier, alttranstype) in [
        ("1.0", "", false, false),
        ("1.1", " xmlns=\"urn:oasis:names:tc:xliff:document:1.1\"", true, false),
        ("1.2", " xmlns=\"urn:oasis:names:tc:xliff:document:1.2\"", true, true),
    ] {
        let xlf = format!(
            "<xliff version=\"{version}\"{ns}>\n<file source-language=\"en\" target-language=\"de\" datatype=\"plaintext\" original=\"a\"><body>\n\
  <trans-unit id=\"1\">\n    <source>Open the file now</source>\n    <note>a note</note>\n  </trans-unit>\n\
  <trans-unit id=\"2\">\n    <source>Close the window please</source>\n    <target/>\n    <note>one</note>\n    <note>two</note>\n    <x:foreign xmlns:x=\"urn:x\"/>\n  </trans-unit>\n\
</body></file></xliff>\n"
        );
        let mut doc = XliffDocument::parse(xlf.into_bytes(), "t.xlf").unwrap();
        let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
        assert_eq!((report.filled, report.with_candidates), (1, 1), "{version}: {report}");
        let out = String::from_utf8(doc.to_bytes()).unwrap();
        assert_eq!(out.contains("state-qualifier="), qualifier, "{version}: {out}");
        assert_eq!(out.contains("alttranstype="), alttranstype, "{version}: {out}");
        assert!(out.contains("<note>two</note>\n    <alt-trans match-quality="), "{version}: {out}");
        assert!(out.contains("</alt-trans>\n    <x:foreign"), "{version}: {out}");
        assert!(out.contains("<note>a note</note>\n  </trans-unit>"), "{version}: {out}");
    }
}

/// An XLIFF 1.2 document of `units` (id, source, target or none).
fn xliff12(units: &[(&str, &str, Option<&str>)]) -> String {
    let mut body = String::new();
    for (id, source, target) in units {
        let target = target.map(|t| format!("<target state=\"translated\">{t}</target>")).unwrap_or_default();
        body.push_str(&format!("<trans-unit id=\"{id}\"><source>{source}</source>{target}</trans-unit>\n"));
    }
    format!(
        "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n{body}</body></file></xliff>"
    )
}

#[test]
fn context_matches_and_repetitions_in_xliff() {
    // Release 1, translated: "Open" between "File" and "Close" is "Öffnen".
    let old = xliff12(&[
        ("a", "File", Some("Datei")),
        ("b", "Open", Some("Öffnen")),
        ("c", "Close", Some("Schließen")),
    ]);
    let mut options = cmem_formats::XliffInOptions::default();
    options.file_name = "r1.xlf".into();
    let reader = cmem_formats::XliffReader::new(old.as_bytes(), options, None).unwrap();
    let (entries, _) = cmem_formats::collect_items(reader).unwrap();
    assert_eq!(
        entries[1].metadata,
        vec![
            (cmem_core::CONTEXT_PRE.to_owned(), "File".to_owned()),
            (cmem_core::CONTEXT_POST.to_owned(), "Close".to_owned())
        ]
    );
    let store = MemStore::new();
    store.write(&entries).unwrap();
    // Another tool said "Aufmachen": without context the two answers are ambiguous.
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    store
        .write(&[NewEntry::pair(
            Variant::new(en, vec![Run::text("Open")]),
            Variant::new(de, vec![Run::text("Aufmachen")]),
        )])
        .unwrap();

    // Release 2: units renumbered, "File" and "Open" in their old places (context
    // matches by neighbours), "Close" before a new "Print" (exact), "Open" again.
    let new = |version: &str| {
        let units = [
            ("1", "File", None),
            ("2", "Open", None),
            ("3", "Close", None),
            ("4", "Print", None),
            ("5", "Open", None),
        ];
        if version == "1.2" {
            xliff12(&units)
        } else {
            let mut body = String::new();
            for (id, source, _) in units {
                body.push_str(&format!(
                    "<unit id=\"{id}\"><segment><source>{source}</source></segment></unit>\n"
                ));
            }
            format!("<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"de\"><file id=\"f\">\n{body}</file></xliff>")
        }
    };
    let mut doc = XliffDocument::parse(new("1.2").into_bytes(), "r2.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!(
        (report.filled_context, report.repetitions, report.filled_repetitions, report.filled),
        (2, 1, 1, 4),
        "{report}"
    );
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(
        out.contains(r#"<source>Open</source><target xml:lang="de" state="translated" state-qualifier="id-match">Öffnen</target>"#),
        "{out}"
    );
    // The second "Open" stands elsewhere: its own lookup is ambiguous, so it takes the
    // first occurrence's fill, for review.
    assert!(
        out.contains(r#"<trans-unit id="5"><source>Open</source><target xml:lang="de" state="needs-review-translation" state-qualifier="leveraged-inherited">Öffnen</target>"#),
        "{out}"
    );
    // Unless told not to.
    let mut doc = XliffDocument::parse(new("1.2").into_bytes(), "r2.xlf").unwrap();
    let report =
        recycle_document(&mut doc, &store, &RecycleOptions::default().fill_repetitions(false)).unwrap();
    assert_eq!((report.repetitions, report.filled_repetitions, report.filled), (1, 0, 3), "{report}");

    // XLIFF 2: the same, as subStates.
    let mut doc = XliffDocument::parse(new("2.0").into_bytes(), "r2.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    assert_eq!((report.filled_context, report.filled_repetitions), (2, 1), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains(r#"subState="cmem:context-match""#), "{out}");
    assert!(out.contains(r#"subState="cmem:repetition""#), "{out}");

    // The report: two context matches, "Close" exact, one repetition, "Print" new.
    let doc = XliffDocument::parse(new("1.2").into_bytes(), "r2.xlf").unwrap();
    let a = analyze_document(&doc, &store, &AnalyzeOptions::default()).unwrap();
    let segments = |band| a.band(band).unwrap().segments;
    assert_eq!(
        (segments(Band::Context), segments(Band::Exact), segments(Band::Repetition), segments(Band::NoMatch)),
        (2, 1, 1, 1),
        "{a}"
    );
}

#[test]
fn tmx_context_props_survive_import_and_export() {
    let tmx = r#"<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="memoQ" creationtoolversion="9" segtype="sentence" o-tmf="x" adminlang="en" srclang="en" datatype="plaintext"/>
<body><tu><prop type="x-context-pre">File</prop><prop type="x-context-post">Close</prop>
<tuv xml:lang="en"><seg>Open</seg></tuv><tuv xml:lang="de"><seg>Öffnen</seg></tuv></tu></body></tmx>"#;
    let (entries, problems) = cmem_formats::collect_items(
        cmem_formats::TmxReader::new(tmx.as_bytes(), Default::default()).unwrap(),
    )
    .unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert!(entries[0].metadata.contains(&(cmem_core::CONTEXT_PRE.to_owned(), "File".to_owned())));
    let store = MemStore::new();
    store.write(&entries).unwrap();
    // A lookup between the same neighbours is a context match.
    let ctx =
        cmem_core::QueryContext { key: String::new(), pre: Some("File".into()), post: Some("Close".into()) };
    let en = Locale::parse("en").unwrap();
    let de = Locale::parse("de").unwrap();
    let req = cmem_core::LookupRequest::new(vec![Run::text("Open")], en, de).context(ctx);
    assert_eq!(cmem_core::lookup(&store, &req).unwrap()[0].match_type, cmem_core::MatchType::ContextExact);
    // Export writes the props back as TMX props.
    let mut out = Vec::new();
    let mut writer = cmem_formats::TmxWriter::new(&mut out, Default::default()).unwrap();
    cmem_formats::export(&store, &mut writer, &Default::default(), &mut |_| {}).unwrap();
    writer.finish().unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains(r#"<prop type="x-context-pre">File</prop>"#), "{out}");
    assert!(out.contains(r#"<prop type="x-context-post">Close</prop>"#), "{out}");
}

/// A memory whose word model (trained over it, saved in it) lets the word repair turn
/// `Datei drucken` into `Ordner drucken` for the query `Print the folder`.
fn word_model_store() -> MemStore {
    use cmem_core::align::AlignOptions;
    use cmem_core::store::learn::train_store;
    let store = en_de_store(&[
        ("Open the file", "Datei öffnen"),
        ("Save the file", "Datei speichern"),
        ("Open the folder", "Ordner öffnen"),
        ("Save the folder", "Ordner speichern"),
        ("Delete the file", "Datei löschen"),
        ("Delete the folder", "Ordner löschen"),
        ("Close the window", "Fenster schließen"),
        ("Save the window", "Fenster speichern"),
        ("Print the file", "Datei drucken"),
    ]);
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let (model, _) =
        train_store(&store, &en, &de, &AlignOptions::default().tension(None).iterations(10)).unwrap();
    store.save_word_model(&en, &de, std::sync::Arc::new(model)).unwrap();
    store
}

/// The options that fill a repaired match of `Print the folder` (its score under the
/// default fill threshold) or, with `fill` above its score, only offer it.
fn word_repair_options(fill: f64) -> RecycleOptions {
    let mut o = RecycleOptions::default();
    o.fuzzy_threshold = 0.5;
    o.fill_threshold = fill;
    o.lookup = o.lookup.word_repair(cmem_core::repair::words::RepairBands::ALL);
    o.threads = 1;
    o
}

#[test]
fn a_word_repaired_fill_is_for_review_with_the_unrepaired_target_beside_it_in_xliff12() {
    let store = word_model_store();
    let xlf = xliff12(&[("1", "Print the folder", None), ("2", "Print the file", None)]);
    let recycled = |options: &RecycleOptions| {
        let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
        let report = recycle_document(&mut doc, &store, options).unwrap();
        (report, String::from_utf8(doc.to_bytes()).unwrap())
    };
    let (report, out) = recycled(&word_repair_options(0.5));
    assert_eq!((report.filled, report.filled_exact, report.filled_repaired), (2, 1, 1), "{report}");
    assert!(report.to_string().contains("1 of the fills had words repaired"), "{report}");
    assert!(
        out.contains("<source>Print the folder</source><target xml:lang=\"de\" state=\"needs-review-translation\" state-qualifier=\"fuzzy-match\">Ordner drucken</target>"),
        "{out}"
    );
    // The target without the repair, beside the memory's own source, labelled.
    assert!(
        out.contains("<source xml:lang=\"en\">Print the file</source><target xml:lang=\"de\">Datei drucken</target><note>cmem: without the word repair (the fill replaced \"Datei\" → \"Ordner\")</note></alt-trans>"),
        "{out}"
    );
    // The exact match is untouched and has no alternative.
    assert!(out.contains("state-qualifier=\"exact-match\">Datei drucken</target>"), "{out}");
    assert_eq!(out.matches("without the word repair").count(), 1, "{out}");
    let again = XliffDocument::parse(out.into_bytes(), "a.xlf").unwrap();
    assert_eq!(again.segments()[0].state.as_deref(), Some("needs-review-translation"));

    // Above the match's score nothing fills: the repaired target is a candidate, labelled
    // as adapted (by words) beside the segment's own source.
    let (report, out) = recycled(&word_repair_options(0.99));
    assert_eq!((report.filled, report.filled_repaired, report.with_candidates), (1, 0, 1), "{report}");
    assert!(!out.contains("Ordner drucken</target>\n") && !out.contains("without the word repair"), "{out}");
    assert!(
        out.contains("<source xml:lang=\"en\">Print the folder</source><target xml:lang=\"de\">Ordner drucken</target><note>cmem: adapted to this source (words)</note>"),
        "{out}"
    );

    // With the repair off, the stored target fills as any fuzzy match, with no alternative.
    let mut off = word_repair_options(0.5);
    off.lookup = off.lookup.word_repair(cmem_core::repair::words::RepairBands::OFF);
    let (report, out) = recycled(&off);
    assert_eq!((report.filled, report.filled_repaired), (2, 0), "{report}");
    assert!(out.contains("state-qualifier=\"fuzzy-match\">Datei drucken</target>"), "{out}");
    assert!(!out.contains("without the word repair") && !out.contains("(words)"), "{out}");
}

#[test]
fn a_word_repaired_fill_is_for_review_with_the_unrepaired_target_beside_it_in_xliff2() {
    let store = word_model_store();
    let xlf = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"de\"><file id=\"f\"><unit id=\"u\"><segment id=\"s\"><source>Print the folder</source></segment></unit></file></xliff>";
    let mut doc = XliffDocument::parse(xlf.as_bytes().to_vec(), "a.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &word_repair_options(0.5)).unwrap();
    assert_eq!((report.filled, report.filled_exact, report.filled_repaired), (1, 0, 1), "{report}");
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert!(out.contains("state=\"translated\" subState=\"cmem:needs-review-repaired\""), "{out}");
    assert!(out.contains("<target>Ordner drucken</target>"), "{out}");
    assert!(out.contains("subType=\"cmem:unrepaired\""), "{out}");
    assert!(
        out.contains("<source>Print the file</source><target>Datei drucken</target></mtc:match>"),
        "{out}"
    );
    let again = XliffDocument::parse(out.into_bytes(), "a.xlf").unwrap();
    assert_eq!(again.segments()[0].state.as_deref(), Some("translated"));
}

#[test]
fn a_word_repaired_fill_is_fuzzy_with_the_unrepaired_target_in_a_comment_in_po() {
    let store = word_model_store();
    let po = "msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\nmsgid \"Print the folder\"\nmsgstr \"\"\n\nmsgid \"Print the file\"\nmsgstr \"\"\n";
    let mut options = word_repair_options(0.5);
    options.source_locale = Some(Locale::parse("en").unwrap());
    let mut out = Vec::new();
    let report = cmem_formats::recycle_po(po.as_bytes(), "de.po", &mut out, &store, &options).unwrap();
    assert_eq!((report.filled, report.filled_exact, report.filled_repaired), (2, 1, 1), "{report}");
    let out = String::from_utf8(out).unwrap();
    let want = "% match, words repaired (cmem)\n# cmem: without the word repair: \"Datei drucken\"\n#, fuzzy\nmsgid \"Print the folder\"\nmsgstr \"Ordner drucken\"\n";
    assert!(out.contains(want), "{out}");
    assert!(out.contains("msgid \"Print the file\"\nmsgstr \"Datei drucken\"\n"), "{out}");
    assert_eq!(out.matches("fuzzy").count(), 1, "{out}");
}

#[test]
fn a_resource_name_keys_a_context_match_across_renumbered_ids() {
    // Release 1: "Open" is the string `menu.open` (1.2 `resname`), translated "Öffnen";
    // another tool said "Aufmachen", so without context the answers are ambiguous.
    let doc = |version: &str, units: &[(&str, &str, &str, Option<&str>)]| -> String {
        let mut body = String::new();
        for (id, name, source, target) in units {
            if version == "1.2" {
                let target =
                    target.map(|t| format!("<target state=\"translated\">{t}</target>")).unwrap_or_default();
                body.push_str(&format!(
                    "<trans-unit id=\"{id}\" resname=\"{name}\"><source>{source}</source>{target}</trans-unit>\n"
                ));
            } else {
                body.push_str(&format!(
                    "<unit id=\"{id}\" name=\"{name}\"><segment><source>{source}</source></segment></unit>\n"
                ));
            }
        }
        if version == "1.2" {
            format!("<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n{body}</body></file></xliff>")
        } else {
            format!("<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"de\"><file id=\"f\">\n{body}</file></xliff>")
        }
    };
    let old =
        doc("1.2", &[("1", "menu.file", "File", Some("Datei")), ("2", "menu.open", "Open", Some("Öffnen"))]);
    let mut options = cmem_formats::XliffInOptions::default();
    options.file_name = "r1.xlf".into();
    let reader = cmem_formats::XliffReader::new(old.as_bytes(), options, None).unwrap();
    let (entries, _) = cmem_formats::collect_items(reader).unwrap();
    assert_eq!(entries[1].unit, "menu.open", "the resource name is the unit's key");
    let store = MemStore::new();
    store.write(&entries).unwrap();
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    store
        .write(&[NewEntry::pair(
            Variant::new(en, vec![Run::text("Open")]),
            Variant::new(de, vec![Run::text("Aufmachen")]),
        )])
        .unwrap();
    // Release 2: ids renumbered and new neighbours; only the resource name is the same.
    for version in ["1.2", "2.0"] {
        let new = doc(version, &[("7", "toolbar.save", "Save", None), ("8", "menu.open", "Open", None)]);
        let mut d = XliffDocument::parse(new.into_bytes(), "r2.xlf").unwrap();
        let report = recycle_document(&mut d, &store, &RecycleOptions::default()).unwrap();
        assert_eq!(report.filled_context, 1, "{version}: {report}");
        let out = String::from_utf8(d.to_bytes()).unwrap();
        let filled = if version == "1.2" {
            r#"state-qualifier="id-match">Öffnen</target>"#
        } else {
            "subState=\"cmem:context-match\" id=\"cmem-s1\"><source>Open</source>\n<target>Öffnen</target>"
        };
        assert!(out.contains(filled), "{version}: {out}");
    }
}

/// A store that counts its lookups (one read scope each).
struct CountingLookups {
    inner: MemStore,
    lookups: std::sync::atomic::AtomicUsize,
}

impl ContentMemory for CountingLookups {
    fn write(&self, entries: &[NewEntry]) -> cmem_core::Result<Vec<cmem_core::WriteOutcome>> {
        self.inner.write(entries)
    }
    fn begin(&self) -> cmem_core::Result<Box<dyn cmem_core::imp::WriteSession + '_>> {
        self.inner.begin()
    }
    fn get(&self, id: cmem_core::EntryId) -> cmem_core::Result<Option<cmem_core::Entry>> {
        self.inner.get(id)
    }
    fn delete(&self, id: cmem_core::EntryId) -> cmem_core::Result<bool> {
        self.inner.delete(id)
    }
    fn entries(
        &self,
        after: Option<cmem_core::EntryId>,
        limit: usize,
    ) -> cmem_core::Result<Vec<cmem_core::Entry>> {
        self.inner.entries(after, limit)
    }
    fn exact(&self, q: &cmem_core::imp::ExactQuery<'_>) -> cmem_core::Result<Vec<cmem_core::Entry>> {
        self.inner.exact(q)
    }
    fn candidates(
        &self,
        q: &cmem_core::imp::CandidateQuery<'_>,
        sink: &mut dyn cmem_core::imp::CandidateSink,
    ) -> cmem_core::Result<()> {
        self.inner.candidates(q, sink)
    }
    fn search(&self, q: &cmem_core::SearchQuery) -> cmem_core::Result<Vec<cmem_core::SearchHit>> {
        self.inner.search(q)
    }
    fn stats(&self) -> cmem_core::Result<cmem_core::Stats> {
        self.inner.stats()
    }
    fn capabilities(&self) -> cmem_core::Capabilities<'_> {
        cmem_core::Capabilities::none().index(self)
    }
}

impl cmem_core::IndexControl for CountingLookups {
    fn warm(&self, source: &Locale) -> cmem_core::Result<()> {
        cmem_core::IndexControl::warm(&self.inner, source)
    }
    fn index_persists(&self) -> bool {
        false
    }
    fn read_scope(&self, source: &Locale) -> cmem_core::Result<cmem_core::imp::ReadScope<'_>> {
        self.lookups.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        cmem_core::IndexControl::read_scope(&self.inner, source)
    }
    fn change_mark(&self) -> cmem_core::Result<Option<u64>> {
        Ok(None)
    }
    fn source_locales(&self) -> cmem_core::Result<Option<Vec<Locale>>> {
        Ok(None)
    }
}

#[test]
fn repeated_segments_share_a_lookup_unless_their_context_matches() {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let mut in_u2 = NewEntry::pair(
        Variant::new(en.clone(), vec![Run::text("Open the file")]),
        Variant::new(de.clone(), vec![Run::text("Datei öffnen")]),
    );
    in_u2.unit = "u2".to_owned();
    let close = NewEntry::pair(
        Variant::new(en, vec![Run::text("Close")]),
        Variant::new(de, vec![Run::text("Schließen")]),
    );
    let store = CountingLookups { inner: MemStore::new(), lookups: Default::default() };
    store.write(&[in_u2, close]).unwrap();
    let units: String = ["u1", "u2", "u3", "u4"]
        .iter()
        .map(|id| format!("<trans-unit id=\"{id}\"><source>Open the file</source></trans-unit>\n"))
        .chain(["<trans-unit id=\"u5\"><source>Close</source></trans-unit>\n".to_owned()])
        .collect();
    let xlf = format!(
        "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n{units}</body></file></xliff>"
    );
    let mut doc = XliffDocument::read(xlf.as_bytes(), "repeats.xlf").unwrap();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    // u1, u3 and u4 have no context the memory knows: one lookup for the three. u2's
    // unit id is the stored entry's: a lookup of its own, a context match.
    assert_eq!(store.lookups.load(std::sync::atomic::Ordering::Relaxed), 3);
    assert_eq!((report.segments, report.filled, report.filled_context), (5, 5, 1));
    let out = String::from_utf8(doc.to_bytes()).unwrap();
    assert_eq!(out.matches(">Datei öffnen</target>").count(), 4, "{out}");
}
