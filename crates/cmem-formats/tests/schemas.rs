//! Every output against the official schemas: the TMX 1.4b DTD, the XLIFF 1.0 DTD, the
//! XLIFF 1.1 and 1.2 (transitional and strict) XSDs and the XLIFF 2.0, 2.1 and 2.2 XSDs
//! with their modules (copies in `testdata/schemas`, provenance in `testdata/README.md`).
//!
//! Each output is validated beside its input with `xmllint`, and only the errors the
//! output adds are reported: many real files are not valid to begin with (vendor
//! attributes under a strict wildcard, a `prop` without `type`), and what a tool copies
//! unchanged is not its fault. Without `xmllint` the tests print a loud notice and
//! pass, except under CI (the `CI` variable set), where they fail.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
use cmem_formats::{
    collect_items, recycle_document, Level, RecycleOptions, TmxOptions, TmxReader, TmxWriteOptions,
    TmxWriter, XliffDocument,
};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn schemas() -> PathBuf {
    testdata().join("schemas")
}

/// True when `xmllint` runs; otherwise a loud notice, or a failure under CI.
fn have_xmllint() -> bool {
    let found = Command::new("xmllint").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        let message = "xmllint not found: the schema validation tests did NOT run \
                       (install it with `apt-get install libxml2-utils`)";
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("\n!!!!!!!!!!\n!!! {message}\n!!!!!!!!!!\n");
    }
    found
}

/// What to validate a document against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Schema {
    Dtd(&'static str),
    Xsd(&'static str),
}

/// The schemas of an XLIFF document, by its root's version and namespace.
fn xliff_schemas(bytes: &[u8]) -> Vec<Schema> {
    let text = String::from_utf8_lossy(bytes);
    // The root's start tag: `<xliff` or `<PREFIX:xliff`, then white space or `>`.
    let root = text
        .match_indices("xliff")
        .find(|&(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + 5..].chars().next();
            matches!(before, Some('<' | ':')) && after.is_some_and(|c| c.is_whitespace() || c == '>')
        })
        .and_then(|(at, _)| text[at..].find('>').map(|end| text[at..at + end].to_owned()))
        .unwrap_or_default();
    let version = ["version=\"", "version='"]
        .iter()
        .find_map(|k| root.find(k).map(|at| root[at + k.len()..].chars().take(3).collect::<String>()))
        .unwrap_or_default();
    if root.contains("urn:oasis:names:tc:xliff:document:2.2") {
        vec![Schema::Xsd("xliff-2.2/all.xsd")]
    } else if root.contains("urn:oasis:names:tc:xliff:document:2.0") {
        if version == "2.1" {
            vec![Schema::Xsd("xliff-2.1/all.xsd")]
        } else {
            vec![Schema::Xsd("xliff-2.0/all.xsd")]
        }
    } else if root.contains("urn:oasis:names:tc:xliff:document:1.2") {
        vec![
            Schema::Xsd("xliff-1.2/xliff-core-1.2-transitional.xsd"),
            Schema::Xsd("xliff-1.2/xliff-core-1.2-strict.xsd"),
        ]
    } else if root.contains("urn:oasis:names:tc:xliff:document:1.1") {
        vec![Schema::Xsd("xliff-1.1/xliff-core-1.1.xsd")]
    } else {
        assert_eq!(version, "1.0", "an XLIFF document of no known version: {root}");
        vec![Schema::Dtd("xliff-1.0/xliff.dtd")]
    }
}

/// The validation errors of `bytes`, without their line numbers, with how often each
/// occurs.
fn errors(bytes: &[u8], schema: Schema) -> BTreeMap<String, usize> {
    let mut command = Command::new("xmllint");
    command.env("XML_CATALOG_FILES", schemas().join("catalog.xml")).args(["--noout", "--nonet"]);
    match schema {
        Schema::Dtd(path) => command.arg("--dtdvalid").arg(schemas().join(path)),
        Schema::Xsd(path) => command.arg("--schema").arg(schemas().join(path)),
    };
    let mut child =
        command.arg("-").stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A document's own DOCTYPE may name a DTD that is not there (a warning); the
    // schema itself must load.
    assert!(
        !stderr.contains("failed to compile") && !stderr.contains("Could not parse DTD"),
        "a schema did not load: {stderr}"
    );
    let mut found = BTreeMap::new();
    for line in stderr.lines() {
        // `-:LINE: element NAME: … error : MESSAGE`; the context lines xmllint prints
        // under parser errors carry no `error`.
        let Some(rest) = line.strip_prefix("-:") else { continue };
        let Some((_, message)) = rest.split_once(": ") else { continue };
        if message.contains("error") {
            *found.entry(message.to_owned()).or_insert(0) += 1;
        }
    }
    found
}

/// The errors `output` has beyond those of `input`, for each schema of `input`.
fn added_errors(input: &[u8], output: &[u8], schemas: &[Schema]) -> Vec<String> {
    let mut added = Vec::new();
    for &schema in schemas {
        let before = errors(input, schema);
        for (message, count) in errors(output, schema) {
            let had = before.get(&message).copied().unwrap_or(0);
            if count > had {
                added.push(format!("{schema:?}: {} × {message}", count - had));
            }
        }
    }
    added
}

fn real_xliff_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["xliff12", "xliff2"] {
        for entry in fs::read_dir(testdata().join(dir)).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files.sort();
    assert!(files.len() >= 20, "{} XLIFF files", files.len());
    files
}

/// The runs with a changed last word, for a fuzzy match.
fn near(runs: &[Run], suffix: &str) -> Vec<Run> {
    let mut runs = runs.to_vec();
    match runs.iter_mut().rev().find_map(|r| if let Run::Text(t) = r { Some(t) } else { None }) {
        Some(t) => t.push_str(suffix),
        None => runs.push(Run::text(suffix)),
    }
    runs
}

/// A memory made from the document's own segments that gives both fills and
/// candidates: every other segment has an exact entry (a fill), and every segment two
/// near ones (candidates for the segments that are not filled). Targets carry the
/// source's codes, so codes are written into fills and candidates alike.
fn fills_and_candidates(doc: &XliffDocument, src: &Locale, trg: &Locale) -> MemStore {
    let store = MemStore::new();
    let pair =
        |s: Vec<Run>, t: Vec<Run>| NewEntry::pair(Variant::new(src.clone(), s), Variant::new(trg.clone(), t));
    let mut entries = Vec::new();
    for (i, seg) in doc.segments().iter().enumerate() {
        if cmem_core::flatten_runs(&seg.source).trim().chars().count() < 4 {
            continue;
        }
        let target = near(&seg.source, " (übersetzt)");
        if i % 2 == 0 {
            entries.push(pair(seg.source.clone(), target.clone()));
        }
        entries.push(pair(near(&seg.source, "x"), near(&target, " 1")));
        entries.push(pair(near(&seg.source, "yz"), near(&target, " 2")));
    }
    store.write(&entries).unwrap();
    store
}

/// Each real XLIFF file of `testdata` recycled with a memory that gives fills and
/// candidates: (name, input, output).
fn recycled_real_files() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut recycled = Vec::new();
    let (mut fills, mut with_candidates) = (0, 0);
    for path in real_xliff_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let input = fs::read(&path).unwrap();
        let mut doc = XliffDocument::parse(input.clone(), &name).unwrap();
        let lang = |l: Option<&str>, default: &str| {
            l.and_then(|l| Locale::parse(l).ok()).unwrap_or_else(|| Locale::parse(default).unwrap())
        };
        let (src, trg) = (lang(doc.source_locale(), "en"), lang(doc.target_locale(), "de"));
        let store = fills_and_candidates(&doc, &src, &trg);
        let mut options = RecycleOptions::default();
        options.source_locale = Some(src);
        options.target_locale = Some(trg);
        options.overwrite = true;
        let report = recycle_document(&mut doc, &store, &options).unwrap();
        fills += report.filled;
        with_candidates += report.with_candidates;
        recycled.push((name, input, doc.to_bytes()));
    }
    // The memory does give both, so both kinds of insertion are checked.
    assert!(fills > 500 && with_candidates > 100, "{fills} fills, {with_candidates} with candidates");
    recycled
}

#[test]
fn recycle_adds_no_schema_error() {
    if !have_xmllint() {
        return;
    }
    let mut failures = Vec::new();
    for (name, input, output) in recycled_real_files() {
        for error in added_errors(&input, &output, &xliff_schemas(&input)) {
            failures.push(format!("{name}: {error}"));
        }
    }
    assert!(failures.is_empty(), "errors recycle adds:\n{}", failures.join("\n"));
}

/// What recycle inserts into a CRLF document ends its lines with CRLF too.
#[test]
fn recycle_keeps_crlf_line_ends() {
    let bare_lf = |b: &[u8]| (0..b.len()).filter(|&i| b[i] == b'\n' && (i == 0 || b[i - 1] != b'\r')).count();
    let mut crlf_files = 0;
    for (name, input, output) in recycled_real_files() {
        if input.windows(2).any(|w| w == b"\r\n") && bare_lf(&input) == 0 {
            crlf_files += 1;
            assert_ne!(input, output, "{name}: recycle changed nothing");
            assert_eq!(bare_lf(&output), 0, "{name}: {}", String::from_utf8_lossy(&output));
        }
    }
    assert!(crlf_files >= 3, "{crlf_files} CRLF files");
}

#[test]
fn tmx_export_adds_no_schema_error() {
    if !have_xmllint() {
        return;
    }
    let dtd = [Schema::Dtd("tmx-1.4/tmx14.dtd")];
    let mut failures = Vec::new();
    let mut files = 0;
    for entry in fs::read_dir(testdata().join("tmx")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tmx") {
            continue;
        }
        files += 1;
        let input = fs::read(&path).unwrap();
        let reader = TmxReader::new(input.as_slice(), TmxOptions::default()).unwrap();
        let (entries, _) = collect_items(reader).unwrap();
        for level in [Level::Two, Level::One] {
            let mut options = TmxWriteOptions::default();
            options.level = level;
            let mut writer = TmxWriter::new(Vec::new(), options).unwrap();
            for e in &entries {
                writer.write_entry(e).unwrap();
            }
            let output = writer.finish().unwrap();
            let errors = added_errors(&input, &output, &dtd);
            for error in errors {
                failures.push(format!("{} ({level:?}): {error}", path.display()));
            }
        }
    }
    assert!(files >= 15, "{files} TMX files");
    assert!(failures.is_empty(), "errors the TMX export adds:\n{}", failures.join("\n"));
}

/// What no XLIFF 2 schema checks but the specification requires of candidates: the
/// inline ids of a `mtc:match` are not those of its unit, and each `dataRef` in a
/// match resolves in the match's own `originalData`.
#[test]
fn xliff2_candidates_are_self_contained() {
    use cmem_formats::xml::{XmlEvent, XmlReader};
    use cmem_formats::Format;
    let local = |n: &str| n.rsplit(':').next().unwrap_or(n).to_owned();
    let mut matches = 0;
    for (name, input, output) in recycled_real_files() {
        if !String::from_utf8_lossy(&input).contains("urn:oasis:names:tc:xliff:document:2.") {
            continue;
        }
        let mut r = XmlReader::new(output.as_slice(), Format::Xliff, &name, 256, 1 << 30).unwrap();
        let mut stack: Vec<String> = Vec::new();
        // Per unit: the inline ids outside matches; per match: its ids, data and refs.
        let mut unit_ids: Vec<String> = Vec::new();
        let mut in_match: Option<(Vec<String>, Vec<String>, Vec<String>)> = None;
        let mut finished: Vec<(Vec<String>, Vec<String>, Vec<String>)> = Vec::new();
        loop {
            let ev = r.next_event().unwrap();
            match ev {
                XmlEvent::Start | XmlEvent::Empty => {
                    let el = local(r.name());
                    if el == "unit" {
                        unit_ids.clear();
                        finished.clear();
                    }
                    if el == "match" && r.name().contains(':') {
                        in_match = Some(Default::default());
                        matches += 1;
                    }
                    let is_inline = ["ph", "pc", "sc", "ec", "mrk", "sm", "em"].contains(&el.as_str());
                    match &mut in_match {
                        Some((ids, data, refs)) => {
                            if is_inline {
                                ids.extend(r.attr("id").map(str::to_owned));
                            }
                            if el == "data" {
                                data.extend(r.attr("id").map(str::to_owned));
                            }
                            for key in ["dataRef", "dataRefStart", "dataRefEnd"] {
                                refs.extend(r.attr(key).map(str::to_owned));
                            }
                        }
                        None if is_inline => unit_ids.extend(r.attr("id").map(str::to_owned)),
                        None => {}
                    }
                    if ev == XmlEvent::Start {
                        stack.push(el);
                    }
                }
                XmlEvent::End => {
                    let el = stack.pop().unwrap();
                    if el == "match" {
                        finished.extend(in_match.take());
                    }
                    if el == "unit" {
                        for (ids, data, refs) in &finished {
                            for id in ids {
                                assert!(
                                    !unit_ids.contains(id),
                                    "{name}: a candidate repeats the unit's id {id}"
                                );
                            }
                            for r in refs {
                                assert!(
                                    data.contains(r),
                                    "{name}: a candidate's dataRef {r} has no <data> in it"
                                );
                            }
                        }
                    }
                }
                XmlEvent::Text => {}
                XmlEvent::Eof => break,
            }
        }
    }
    assert!(matches > 20, "{matches} candidates checked");
}

/// A memory whose word model knows its terms and phrases: ten verbs by four nouns, each
/// noun translated one way ten times, and one approved entry that translates *file
/// manager* another way (ten of the eleven entries holding it use the term: it stays
/// one).
fn memory_with_terms() -> MemStore {
    use cmem_core::align::{AlignOptions, WordModel};
    use cmem_core::ContentMemoryExt;
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let verbs = [
        ("Open", "Öffne"),
        ("Close", "Schließe"),
        ("Print", "Drucke"),
        ("Show", "Zeige"),
        ("Hide", "Verstecke"),
        ("Rename", "Benenne"),
        ("Move", "Verschiebe"),
        ("Copy", "Kopiere"),
        ("Select", "Wähle"),
        ("Lock", "Sperre"),
    ];
    let nouns = [
        ("file manager", "Dateiverwaltung"),
        ("web page", "Webseite"),
        ("text document", "Textdokument"),
        ("main window", "Hauptfenster"),
    ];
    let mut pairs = Vec::new();
    for (v, vt) in verbs {
        for (n, nt) in nouns {
            pairs.push((format!("{v} the {n}"), format!("{vt} die {nt}")));
        }
    }
    pairs.push(("Close the file manager now".into(), "Schließe jetzt den Dateimanager".into()));
    let store = MemStore::new();
    let entries: Vec<NewEntry> = pairs
        .iter()
        .map(|(s, t)| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(s)]),
                Variant::new(de.clone(), vec![Run::text(t)]),
            )
        })
        .collect();
    store.write(&entries).unwrap();
    let identified: Vec<(i64, String, String)> =
        pairs.into_iter().enumerate().map(|(i, (s, t))| (i as i64 + 1, s, t)).collect();
    let (model, _) = WordModel::train_identified(identified, &AlignOptions::default().iterations(10));
    store.save_word_model(&en, &de, std::sync::Arc::new(model)).unwrap();
    store
}

#[test]
fn recycle_notes_terms_a_fill_misses_and_offers_fragments_in_valid_xliff() {
    let store = memory_with_terms();
    let v12 = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="ui">
    <body>
      <trans-unit id="1">
        <source>Close the file manager now</source>
      </trans-unit>
      <trans-unit id="2">
        <source>Please reload the web page in a moment</source>
      </trans-unit>
      <trans-unit id="3">
        <source>Print the main window</source>
      </trans-unit>
    </body>
  </file>
</xliff>
"#;
    let v20 = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="de">
  <file id="f1">
    <unit id="1">
      <segment>
        <source>Close the file manager now</source>
      </segment>
    </unit>
    <unit id="2">
      <notes>
        <note>From the designer.</note>
      </notes>
      <segment>
        <source>Please reload the web page in a moment</source>
      </segment>
    </unit>
    <unit id="3">
      <segment>
        <source>Print the main window</source>
      </segment>
    </unit>
  </file>
</xliff>
"#;
    for (name, input) in [("a.xlf", v12), ("a2.xlf", v20)] {
        let mut doc = XliffDocument::parse(input.as_bytes().to_vec(), name).unwrap();
        // Analyze counts the fill recycle will note.
        let analysis =
            cmem_formats::analyze_document(&doc, &store, &cmem_formats::AnalyzeOptions::default()).unwrap();
        assert_eq!(analysis.term_issues, 1, "{analysis}");
        assert!(analysis
            .to_string()
            .contains("(1 segment would be filled without the memory's translation of a term"));
        let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
        let out = String::from_utf8(doc.to_bytes()).unwrap();
        // The exact fill of unit 1 does not use the memory's term: reported and noted.
        assert_eq!((report.filled, report.filled_term_issues), (2, 1), "{name}: {report:?}\n{out}");
        let issue = &report.term_issues[0];
        assert_eq!(
            (issue.unit.as_str(), issue.term.as_str(), issue.expected.as_str()),
            ("1", "manager", "Dateiverwaltung")
        );
        assert!(
            report.to_string().contains("1 of the fills do not use the memory's translation of a term"),
            "{report}"
        );
        let note = "cmem: terminology: the memory translates \"manager\" as \"Dateiverwaltung\"; this fill does not use it";
        assert!(out.contains(note), "{name}:\n{out}");
        // Unit 2 has no match: its fragments, never a fill.
        assert_eq!(report.with_fragments, 1, "{name}: {report:?}");
        let after = &out[out.find("in a moment</source>").unwrap()..];
        let end = after.find("</trans-unit>").or_else(|| after.find("</segment>")).unwrap();
        assert!(!after[..end].contains("<target"), "{name}:\n{out}");
        if name == "a.xlf" {
            assert!(
                out.contains("<note from=\"cmem\">cmem: fragment: \"the web page\" → \"die Webseite\""),
                "{out}"
            );
            assert!(out.contains("</alt-trans>\n        <note from=\"cmem\">cmem: terminology"), "{out}");
        } else {
            assert!(out.contains("type=\"am\""), "{out}");
            assert!(out.contains("<source>the web page</source><target>die Webseite</target>"), "{out}");
            // Into the unit's notes when it has them, a new `notes` before the segment otherwise.
            assert!(
                out.contains("<note>From the designer.</note>\n      </notes>")
                    || out.contains("<note>From the designer.</note>\n      <note"),
                "{out}"
            );
            assert!(out.contains("<notes><note category=\"cmem\">cmem: terminology"), "{out}");
        }
        // Unit 3 uses its term: no note.
        assert_eq!(report.term_issues.len(), 1, "{name}: {report:?}");
        if have_xmllint() {
            for schema in xliff_schemas(out.as_bytes()) {
                let found = errors(out.as_bytes(), schema);
                assert!(found.is_empty(), "{name} against {schema:?}: {found:?}\n{out}");
            }
        }
    }
}

#[test]
fn po_and_properties_recycle_note_terms_and_fragments_as_comments() {
    let store = memory_with_terms();
    let po =
        "msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n\
              msgid \"Close the file manager now\"\nmsgstr \"\"\n\n\
              msgid \"Please reload the web page in a moment\"\nmsgstr \"\"\n";
    let mut out = Vec::new();
    let mut options = RecycleOptions::default();
    options.source_locale = Some(Locale::parse("en").unwrap());
    let report = cmem_formats::recycle_po(po.as_bytes(), "ui.po", &mut out, &store, &options).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!((report.filled_term_issues, report.with_fragments), (1, 1), "{report:?}\n{out}");
    assert!(out.contains(
        "# cmem: terminology: the memory translates \"manager\" as \"Dateiverwaltung\"; this fill does not use it\n\
         msgid \"Close the file manager now\"\nmsgstr \"Schließe jetzt den Dateimanager\""
    ), "{out}");
    assert!(out.contains(
        "# cmem: fragment: \"the web page\" → \"die Webseite\" (10 of 10 agree)\nmsgid \"Please reload the web page in a moment\"\nmsgstr \"\""
    ), "{out}");

    let props = "close=Close the file manager now\nreload=Please reload the web page in a moment\n";
    let mut out = Vec::new();
    options.target_locale = Some(Locale::parse("de").unwrap());
    let report =
        cmem_formats::recycle_properties(props.as_bytes(), "ui.properties", &mut out, &store, &options)
            .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!((report.filled_term_issues, report.with_fragments), (1, 1), "{report:?}\n{out}");
    assert_eq!(report.term_issues[0].unit, "close");
    assert!(
        out.contains("# cmem: terminology: the memory translates \"manager\" as \"Dateiverwaltung\""),
        "{out}"
    );
    assert!(
        out.contains("# cmem: fragment: \"the web page\" → \"die Webseite\" (10 of 10 agree)\nreload="),
        "{out}"
    );
}
