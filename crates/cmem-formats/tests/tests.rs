//! Integration tests of cmem-formats on the shared `testdata/`: golden models of real
//! TMX files, round trips, the invalid set, imports into a store, and property tests.
//!
//! `CMEM_BLESS=1 cargo test -p cmem-formats` rewrites the `*.model.json` files; review
//! the diff by eye before committing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

use cmem_core::NewEntry;
use cmem_formats::{
    collect_items, FormatError, FormatErrorKind as ErrorKind, Item, Level, TmxOptions, TmxReader,
    TmxWriteOptions, TmxWriter,
};
use serde::Serialize;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn bless() -> bool {
    std::env::var_os("CMEM_BLESS").is_some_and(|v| v != "0")
}

fn tmx_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(testdata().join("tmx"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmx"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "testdata/tmx has {} files", files.len());
    files
}

fn read_tmx_bytes(
    name: &str,
    bytes: &[u8],
    options: TmxOptions,
) -> Result<(Vec<NewEntry>, Vec<FormatError>), FormatError> {
    let mut options = options;
    options.file_name = name.to_owned();
    collect_items(TmxReader::new(bytes, options)?)
}

fn read_tmx(path: &Path) -> (Vec<NewEntry>, Vec<FormatError>) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    read_tmx_bytes(&name, &fs::read(path).unwrap(), TmxOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn write_tmx(entries: &[NewEntry], options: TmxWriteOptions) -> Vec<u8> {
    let mut w = TmxWriter::new(Vec::new(), options).unwrap();
    for e in entries {
        w.write_entry(e).unwrap();
    }
    w.finish().unwrap()
}

#[derive(Serialize)]
struct ProblemModel {
    kind: String,
    line: Option<u64>,
    column: Option<u64>,
    tu: Option<u64>,
    message: String,
}

#[derive(Serialize)]
struct Model<'a> {
    entries: &'a [NewEntry],
    problems: Vec<ProblemModel>,
}

fn problem_models(problems: &[FormatError]) -> Vec<ProblemModel> {
    problems
        .iter()
        .map(|p| ProblemModel {
            kind: format!("{:?}", p.kind()),
            line: p.line(),
            column: p.column(),
            tu: p.entry(),
            message: p.to_string(),
        })
        .collect()
}

/// Golden test: every `testdata/tmx/NAME.tmx` reads as `NAME.model.json` says.
#[test]
fn tmx_golden_models() {
    let mut failures = Vec::new();
    for path in tmx_files() {
        let (entries, problems) = read_tmx(&path);
        let model = Model { entries: &entries, problems: problem_models(&problems) };
        let json = serde_json::to_string_pretty(&model).unwrap() + "\n";
        let expected_path = path.with_extension("model.json");
        if bless() {
            fs::write(&expected_path, &json).unwrap();
            continue;
        }
        match fs::read_to_string(&expected_path) {
            Ok(expected) if expected == json => {}
            Ok(_) => {
                failures.push(format!("{} differs from its model (CMEM_BLESS=1 to rewrite)", path.display()))
            }
            Err(_) => {
                failures.push(format!("{} has no model (CMEM_BLESS=1 to write)", expected_path.display()))
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The writer is stable: writing what it wrote, read back, gives the same bytes.
#[test]
fn tmx_writer_is_idempotent_on_real_files() {
    for path in tmx_files() {
        let (entries, _) = read_tmx(&path);
        let once = write_tmx(&entries, TmxWriteOptions::default());
        let (again, _) = read_tmx_bytes("once.tmx", &once, TmxOptions::default()).unwrap();
        assert_eq!(write_tmx(&again, TmxWriteOptions::default()), once, "{}", path.display());
    }
}

/// Read → write → read gives the same entries, for every real file.
#[test]
fn tmx_round_trip_real_files() {
    for path in tmx_files() {
        let (entries, _) = read_tmx(&path);
        let bytes = write_tmx(&entries, TmxWriteOptions::default());
        let (again, problems) = read_tmx_bytes("out.tmx", &bytes, TmxOptions::default()).unwrap();
        assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
        assert_eq!(again, entries, "{}\n{}", path.display(), String::from_utf8_lossy(&bytes));
    }
}

/// Read → write gives back the `<seg>` of every `tuv` (canonical XML, see
/// [`canonical_segs`]) of every real file the reader takes without a problem: the
/// inline elements, `<hi>` and `<sub>` included, survive as elements.
#[test]
fn tmx_segs_survive_real_files() {
    let mut compared = 0;
    for path in tmx_files() {
        let (entries, problems) = read_tmx(&path);
        if !problems.is_empty() {
            continue;
        }
        let input = fs::read(&path).unwrap();
        let output = write_tmx(&entries, TmxWriteOptions::default());
        let text = String::from_utf8(output.clone()).unwrap();
        assert!(!text.contains("x-cmem-runs"), "{}: exact runs were needed\n{text}", path.display());
        assert_eq!(canonical_segs(&output), canonical_segs(&input), "{}\n{text}", path.display());
        compared += 1;
    }
    assert!(compared >= 20, "{compared} files compared");
}

/// How `<hi>` and `<sub>` are read: the kinds that mark them, sub-flow text as the
/// stand-in, and a `<sub>` in an entity placeholder reported.
#[test]
fn hi_and_sub_are_read_into_the_model() {
    use cmem_core::{Code, Run};
    let tmx = "<tmx version=\"1.4\"><header srclang=\"en\"/><body><tu>\
        <tuv xml:lang=\"en\"><seg><hi>A</hi><hi x=\"2\" type=\"t\"/>\
        <bpt i=\"1\">&lt;a title=\"<sub>T &amp; <hi>U</hi></sub>\"></bpt>B<ept i=\"1\">&lt;/a></ept></seg></tuv>\
        <tuv xml:lang=\"fr\"><seg>C <ph type=\"x-cmem-entity:PERSON\">J<sub>o</sub></ph></seg></tuv>\
        </tu></body></tmx>";
    let (entries, problems) = read_tmx_bytes("hi.tmx", tmx.as_bytes(), TmxOptions::default()).unwrap();
    let close = |id: &str| Run::PcClose(Code::new(id).kind("x-tmx-hi"));
    assert_eq!(
        entries[0].variants[0].runs,
        vec![
            Run::PcOpen(Code::new("").kind("x-tmx-hi")),
            Run::text("A"),
            close(""),
            Run::PcOpen(Code::new("2").kind("x-tmx-hi:t")),
            close("2"),
            Run::PcOpen(
                Code::new("1")
                    .kind(";sub")
                    .equiv("T & U")
                    .data("&lt;a title=\"<sub>T &amp; <hi>U</hi></sub>\">")
            ),
            Run::text("B"),
            Run::PcClose(Code::new("1").data("</a>")),
        ]
    );
    assert_eq!(entries[0].variants[1].runs, vec![Run::text("C "), Run::entity("", "PERSON", "Jo")]);
    assert_eq!(problems.len(), 1);
    assert_eq!(
        problems[0].to_string(),
        "tmx: hi.tmx: line 1, column 230: tu 1: <sub> in an entity placeholder: only its text is kept"
    );
}

/// The LISA kit's 1D (UTF-8 + BOM), 1F (UTF-16LE), 1G (UTF-16BE) and 1H (US-ASCII with
/// character references) hold the same text.
#[test]
fn tmx_encodings_read_alike() {
    let dir = testdata().join("tmx");
    let (d, _) = read_tmx(&dir.join("omegat__TMXComplianceKit__ImportTest1D.tmx"));
    assert_eq!(d.len(), 3);
    for other in ["1F", "1G", "1H"] {
        let (e, _) = read_tmx(&dir.join(format!("omegat__TMXComplianceKit__ImportTest{other}.tmx")));
        assert_eq!(e, d, "{other}");
    }
    // And a declared single-byte encoding.
    let latin = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><tmx version=\"1.4\"><header srclang=\"en\"/><body>\
        <tu><tuv xml:lang=\"en\"><seg>caf\xe9</seg></tuv><tuv xml:lang=\"fr\"><seg>caf\xe9 cr\xe8me</seg></tuv></tu></body></tmx>";
    let (e, p) = read_tmx_bytes("latin.tmx", latin, TmxOptions::default()).unwrap();
    assert!(p.is_empty());
    assert_eq!(e[0].variants[1].runs, vec![cmem_core::Run::text("café crème")]);
}

struct Expect {
    file: &'static str,
    kind: ErrorKind,
    /// Fatal error (true) or the first problem (false).
    fatal: bool,
    line: Option<u64>,
    column: Option<u64>,
    entry: Option<u64>,
    contains: &'static str,
}

const fn expect(
    file: &'static str,
    kind: ErrorKind,
    fatal: bool,
    pos: (Option<u64>, Option<u64>),
    entry: Option<u64>,
    contains: &'static str,
) -> Expect {
    Expect { file, kind, fatal, line: pos.0, column: pos.1, entry, contains }
}

fn outcome_of(path: &Path) -> (Option<FormatError>, Vec<FormatError>) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let bytes = fs::read(path).unwrap();
    let items: Vec<Result<Item, FormatError>> = match path.extension().and_then(|e| e.to_str()) {
        Some("tmx") => {
            let mut options = TmxOptions::default();
            options.file_name = name;
            match TmxReader::new(&bytes[..], options) {
                Ok(r) => r.collect(),
                Err(e) => vec![Err(e)],
            }
        }
        Some("kmb") => match cmem_formats::KmbReader::new(&bytes[..], &name) {
            Ok(r) => r.collect(),
            Err(e) => vec![Err(e)],
        },
        Some("jsonl") => {
            let mut options = cmem_formats::JsonlOptions::default();
            options.file_name = name;
            cmem_formats::JsonlReader::new(&bytes[..], options, None).collect()
        }
        other => panic!("unexpected extension {other:?}"),
    };
    let mut fatal = None;
    let mut problems = Vec::new();
    for item in items {
        match item {
            Ok(Item::Problem(p)) => problems.push(p),
            Ok(Item::Entry(_)) => {}
            Err(e) => fatal = Some(e),
        }
    }
    (fatal, problems)
}

/// Every file in `testdata/invalid/` fails (or reports a problem) with the expected
/// kind, at the expected place.
#[test]
fn invalid_set() {
    use ErrorKind::*;
    let cases = [
        expect("LinqToTmx__Invalid__empty.tmx", Xml, true, (Some(1), Some(1)), None, "no root element"),
        expect(
            "LinqToTmx__Invalid__noSegments.tmx",
            MissingSegment,
            false,
            (Some(10), Some(4)),
            Some(1),
            "navigation.sub.about",
        ),
        expect(
            "malformed.tmx",
            Xml,
            true,
            (Some(10), Some(30)),
            None,
            "expected `</seg>`, but `</tuv>` was found",
        ),
        expect("truncated-xml.tmx", Xml, true, (Some(10), Some(33)), None, "unexpected end of file in <seg>"),
        expect(
            "unbalanced.tmx",
            UnbalancedCode,
            false,
            (Some(6), Some(27)),
            Some(1),
            "<bpt i=\"1\"> has no matching <ept>",
        ),
        expect(
            "duplicate-locale.tmx",
            DuplicateLocale,
            false,
            (Some(5), Some(1)),
            Some(1),
            "second <tuv> for de",
        ),
        expect("invalid-locale.tmx", InvalidLocale, false, (Some(8), Some(3)), Some(1), "english!"),
        expect("single-tuv.tmx", TooFewVariants, false, (Some(5), Some(1)), Some(1), "1 usable <tuv> (en)"),
        expect("entity-bomb.tmx", Xml, true, (Some(12), Some(27)), None, "undefined entity &lol4;"),
        expect("unsupported-encoding.tmx", Encoding, true, (Some(1), Some(1)), None, "KOI8-R"),
        expect("not-tmx.tmx", NotTmx, true, (Some(2), Some(1)), None, "<xliff>"),
        expect("invalid-utf8.tmx", Encoding, true, (Some(10), Some(27)), None, "invalid UTF-8"),
        expect(
            "control-char-reference.tmx",
            Xml,
            true,
            (Some(7), Some(40)),
            None,
            "&#x7; refers to U+0007, which an XML 1.0 document cannot hold",
        ),
        expect("bad-line.jsonl", InvalidLine, false, (Some(3), Some(28)), Some(3), "invalid JSON"),
        expect("truncated.kmb", Truncated, true, (None, None), Some(4), "truncated"),
        expect("corrupted.kmb", Corrupt, true, (None, None), None, ""),
    ];
    let dir = testdata().join("invalid");
    let mut failures = Vec::new();
    for case in &cases {
        let (fatal, problems) = outcome_of(&dir.join(case.file));
        let got = if case.fatal { fatal.as_ref() } else { problems.first() };
        let Some(got) = got else {
            failures.push(format!(
                "{}: no {} (fatal: {fatal:?}, problems: {problems:?})",
                case.file,
                if case.fatal { "error" } else { "problem" }
            ));
            continue;
        };
        let ok = got.kind() == case.kind
            && got.line() == case.line
            && got.column() == case.column
            && (case.entry.is_none() || got.entry() == case.entry)
            && got.to_string().contains(case.contains)
            && got.to_string().contains(case.file);
        if !ok {
            failures.push(format!(
                "{}: got {:?} at {:?}:{:?} entry {:?}: {got}",
                case.file,
                got.kind(),
                got.line(),
                got.column(),
                got.entry()
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // The JSON Lines file's fourth line has a bad locale: a second, distinct problem.
    let (_, problems) = outcome_of(&dir.join("bad-line.jsonl"));
    assert_eq!(problems.len(), 2);
    assert_eq!((problems[1].kind(), problems[1].line()), (InvalidLocale, Some(4)));
}

fn sample_entries(n: usize) -> Vec<NewEntry> {
    use cmem_core::{Locale, Run, Variant};
    (0..n)
        .map(|i| {
            NewEntry::pair(
                Variant::new(Locale::parse("en").unwrap(), vec![Run::text(format!("Segment number {i}"))]),
                Variant::new(Locale::parse("de").unwrap(), vec![Run::text(format!("Segment Nummer {i}"))]),
            )
        })
        .collect()
}

/// The `.kmb` files of the invalid set are made from known entries; `CMEM_BLESS=1`
/// writes them, otherwise this checks they are still what the writer would make.
#[test]
fn invalid_kmb_files_are_current() {
    let mut w = cmem_formats::KmbWriter::new(Vec::new(), Some(6)).unwrap();
    for e in sample_entries(6) {
        w.write_entry(&e).unwrap();
    }
    let full = w.finish().unwrap();
    // Cut inside the fourth record's compressed bytes is hard to aim at; cut so that
    // three records decode and the stream then ends.
    let mut truncated = None;
    for cut in (30..full.len()).rev() {
        let r = cmem_formats::KmbReader::new(&full[..cut], "t").unwrap();
        let got: Vec<_> = r.collect();
        let ok = got.iter().filter(|i| i.is_ok()).count();
        if ok == 3 {
            truncated = Some(full[..cut].to_vec());
            break;
        }
    }
    let truncated = truncated.expect("a cut after three records");
    let mut corrupted = full.clone();
    let at = corrupted.len() - 12;
    corrupted[at] ^= 0x01;
    let dir = testdata().join("invalid");
    if bless() {
        fs::write(dir.join("truncated.kmb"), &truncated).unwrap();
        fs::write(dir.join("corrupted.kmb"), &corrupted).unwrap();
    }
    assert_eq!(fs::read(dir.join("truncated.kmb")).unwrap(), truncated);
    assert_eq!(fs::read(dir.join("corrupted.kmb")).unwrap(), corrupted);
}

mod store {
    use super::*;
    use cmem_core::{ContentMemory, Entry, Locale, MemStore, Run, Variant};
    use cmem_formats::{
        export, import, ExportOptions, ImportOptions, JsonlMode, JsonlOptions, JsonlReader, JsonlWriter,
        KmbReader, KmbWriter, Progress,
    };

    fn all(store: &MemStore) -> Vec<Entry> {
        store.entries(None, 1_000_000).unwrap()
    }

    fn tmx_reader(bytes: &[u8]) -> TmxReader<&[u8]> {
        TmxReader::new(bytes, TmxOptions::default()).unwrap()
    }

    fn options(batch: usize, strict: bool) -> ImportOptions {
        let mut o = ImportOptions::default();
        o.batch_size = batch;
        o.strict = strict;
        o
    }

    #[test]
    fn import_counts_progress_and_dedupes() {
        let bytes = fs::read(testdata().join("tmx/okapi__sample14b.tmx")).unwrap();
        let store = MemStore::new();
        let mut calls = Vec::new();
        let report =
            import(&store, tmx_reader(&bytes), &options(10, false), &mut |p: &Progress| calls.push(*p))
                .unwrap();
        assert_eq!(report.progress.read, 25);
        assert_eq!(report.progress.inserted + report.progress.deduplicated, 25);
        assert_eq!(report.progress.bytes_read, bytes.len() as u64);
        // Three batches of 10, 10 and 5, then the final report.
        assert_eq!(calls.len(), 4);
        assert_eq!(calls[0].read, 10);
        assert!(calls.windows(2).all(|w| w[0].read <= w[1].read && w[0].bytes_read <= w[1].bytes_read));
        let before = all(&store);
        let again = import(&store, tmx_reader(&bytes), &options(7, false), &mut |_| {}).unwrap();
        assert_eq!(again.progress.inserted, 0);
        assert_eq!(again.progress.deduplicated, 25);
        // A re-import is one more approval of every line, and changes nothing else.
        let after = all(&store);
        let approvals = |entries: &[cmem_core::Entry]| entries.iter().map(|e| e.approvals()).sum::<u32>();
        assert_eq!((approvals(&before), approvals(&after)), (25, 50));
        let unapproved = |mut entries: Vec<cmem_core::Entry>| {
            entries.iter_mut().for_each(|e| e.approvals = 1);
            entries
        };
        assert_eq!(unapproved(after), unapproved(before));
    }

    fn seeded_store() -> MemStore {
        let store = MemStore::new();
        store.write(&sample_entries(2)).unwrap();
        store
    }

    #[test]
    fn failed_import_leaves_the_store_as_it_was() {
        // 30 good units, then malformed XML: several batches are written before it.
        let mut tmx = String::from("<tmx version=\"1.4\"><header srclang=\"en\"/><body>\n");
        for i in 0..30 {
            tmx.push_str(&format!(
                "<tu><tuv xml:lang=\"en\"><seg>unit {i}</seg></tuv><tuv xml:lang=\"fr\"><seg>unité {i}</seg></tuv></tu>\n"
            ));
        }
        tmx.push_str("<tu><tuv xml:lang=\"en\"><seg>broken</tuv></tu></body></tmx>\n");
        let store = seeded_store();
        let before = all(&store);
        let mut last = Progress::default();
        let err =
            import(&store, tmx_reader(tmx.as_bytes()), &options(4, false), &mut |p| last = *p).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Xml);
        assert_eq!(err.line(), Some(32));
        assert_eq!(last.inserted, 28, "batches were written before the failure");
        assert_eq!(all(&store), before);
    }

    #[test]
    fn strict_import_fails_at_the_first_problem_and_rolls_back() {
        let bytes = fs::read(testdata().join("invalid/single-tuv.tmx")).unwrap();
        let store = seeded_store();
        let before = all(&store);
        let report = import(&store, tmx_reader(&bytes), &options(1, false), &mut |_| {}).unwrap();
        assert_eq!((report.progress.inserted, report.progress.problems), (1, 1));
        let store = seeded_store();
        let err = import(&store, tmx_reader(&bytes), &options(1, true), &mut |_| {}).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::TooFewVariants);
        assert_eq!(all(&store), before);
    }

    #[test]
    fn corrupt_bundle_import_rolls_back() {
        let bytes = fs::read(testdata().join("invalid/corrupted.kmb")).unwrap();
        let store = seeded_store();
        let before = all(&store);
        let reader = KmbReader::new(&bytes[..], "corrupted.kmb").unwrap();
        let err = import(&store, reader, &options(2, false), &mut |_| {}).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Corrupt);
        assert_eq!(all(&store), before);
    }

    fn multilingual_store() -> MemStore {
        let l = |s: &str| Locale::parse(s).unwrap();
        let store = MemStore::new();
        let mut entries = sample_entries(5);
        entries.push(NewEntry {
            approvals: 0,
            variants: vec![
                Variant::new(l("fr"), vec![Run::text("Bonjour")]),
                Variant::new(l("en-GB"), vec![Run::text("Hello")]),
                Variant::new(l("de"), vec![Run::text("Hallo")]),
            ],
            point: cmem_core::Point::parse("web/eu").unwrap(),
            unit: "greeting".into(),
            project_id: "p".into(),
            origins: vec![cmem_core::Origin {
                project_id: "p".into(),
                context_fingerprint: "abc".into(),
                created_at: "2024-06-11T12:00:00Z".into(),
            }],
            metadata: vec![("tmx:note".into(), "n".into())],
        });
        entries.push(NewEntry::pair(
            Variant::new(l("fr"), vec![Run::text("Oui")]),
            Variant::new(l("es"), vec![Run::text("Sí")]),
        ));
        store.write(&entries).unwrap();
        store
    }

    fn news(store: &MemStore) -> Vec<NewEntry> {
        all(store).iter().map(Entry::to_new).collect()
    }

    #[test]
    fn export_then_import_is_lossless_in_every_format() {
        let store = multilingual_store();
        let expected = news(&store);
        let opts = ExportOptions::default();

        let mut tmx = TmxWriter::new(Vec::new(), TmxWriteOptions::default()).unwrap();
        assert_eq!(export(&store, &mut tmx, &opts, &mut |_| {}).unwrap(), 7);
        let tmx = tmx.finish().unwrap();
        let copy = MemStore::new();
        import(&copy, tmx_reader(&tmx), &ImportOptions::default(), &mut |_| {}).unwrap();
        assert_eq!(news(&copy), expected);

        let mut kmb = KmbWriter::new(Vec::new(), None).unwrap();
        export(&store, &mut kmb, &opts, &mut |_| {}).unwrap();
        let kmb = kmb.finish().unwrap();
        let copy = MemStore::new();
        import(&copy, KmbReader::new(&kmb[..], "x.kmb").unwrap(), &ImportOptions::default(), &mut |_| {})
            .unwrap();
        assert_eq!(news(&copy), expected);

        let mut full = JsonlOptions::default();
        full.mode = JsonlMode::Full;
        let mut jsonl = JsonlWriter::new(Vec::new(), full.clone());
        export(&store, &mut jsonl, &opts, &mut |_| {}).unwrap();
        let jsonl = jsonl.finish().unwrap();
        let copy = MemStore::new();
        import(&copy, JsonlReader::new(&jsonl[..], full, None), &ImportOptions::default(), &mut |_| {})
            .unwrap();
        assert_eq!(news(&copy), expected);
    }

    /// TMX → memory → TMX gives back the `<seg>` of every `tuv` of the LISA kit's level-2
    /// files: `bpt`/`ept`, `it`, `ph` with `assoc`, `<hi>` with its `x` and `type`, and a
    /// `<sub>` inside a `<ph>`, natively (no exact runs beside the segs).
    #[test]
    fn tmx_segs_survive_a_memory() {
        for name in
            ["omegat__TMXComplianceKit__ImportTest2A.tmx", "omegat__TMXComplianceKit__ImportTest2C.tmx"]
        {
            let input = fs::read(testdata().join("tmx").join(name)).unwrap();
            let store = MemStore::new();
            let report = import(&store, tmx_reader(&input), &options(100, true), &mut |_| {}).unwrap();
            assert_eq!(report.progress.problems, 0, "{name}");
            let mut writer = TmxWriter::new(Vec::new(), TmxWriteOptions::default()).unwrap();
            export(&store, &mut writer, &ExportOptions::default(), &mut |_| {}).unwrap();
            let output = writer.finish().unwrap();
            let text = String::from_utf8(output.clone()).unwrap();
            assert!(!text.contains("x-cmem-runs"), "{name}: exact runs were needed\n{text}");
            let (before, after) = (canonical_segs(&input), canonical_segs(&output));
            assert!(!before.is_empty() && before.iter().all(|tu| tu.len() >= 2), "{name}: {before:#?}");
            assert_eq!(after, before, "{name}\n{text}");
        }
        let kit = |name: &str| canonical_segs(&fs::read(testdata().join("tmx").join(name)).unwrap());
        let seg = |tus: Vec<std::collections::BTreeMap<String, String>>| tus.last().unwrap()["en-US"].clone();
        assert!(seg(kit("omegat__TMXComplianceKit__ImportTest2A.tmx"))
            .contains("<hi type=\"special-part\" x=\"1\">"));
        assert!(seg(kit("omegat__TMXComplianceKit__ImportTest2C.tmx")).contains("<sub>Start Here!</sub>"));
    }

    #[test]
    fn export_filters_by_locale() {
        let store = multilingual_store();
        let mut opts = ExportOptions::default();
        opts.source_locale = Some(Locale::parse("en").unwrap());
        opts.target_locale = Some(Locale::parse("de").unwrap());
        opts.page_size = 2;
        let mut out: Vec<NewEntry> = Vec::new();
        let mut pages = 0;
        assert_eq!(export(&store, &mut out, &opts, &mut |_| pages += 1).unwrap(), 6);
        assert!(pages >= 3);
        let greeting = out.iter().find(|e| e.unit == "greeting").unwrap();
        let locales: Vec<&str> = greeting.variants.iter().map(|v| v.locale.as_str()).collect();
        assert_eq!(locales, ["en-GB", "de"]);

        let mut opts = ExportOptions::default();
        opts.source_locale = Some(Locale::parse("fr").unwrap());
        let mut out: Vec<NewEntry> = Vec::new();
        export(&store, &mut out, &opts, &mut |_| {}).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].variants.len(), 3);

        // Simple JSON Lines: one pair per entry, text with native codes.
        let mut simple = JsonlOptions::default();
        simple.mode = JsonlMode::Simple;
        simple.source_locale = Some(Locale::parse("fr").unwrap());
        simple.target_locale = Some(Locale::parse("es").unwrap());
        let mut w = JsonlWriter::new(Vec::new(), simple);
        export(&store, &mut w, &opts, &mut |_| {}).unwrap();
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "{\"source\":\"Oui\",\"target\":\"Sí\",\"source_locale\":\"fr\",\"target_locale\":\"es\"}\n"
        );
    }
}

/// The `<seg>` of each `tuv` of each `tu` of a TMX document, by canonical locale, as
/// canonical XML: attributes sorted, empty elements written as start and end tags,
/// references resolved and text escaped alike. What is outside the segs (white space,
/// comments, the header) is not compared.
fn canonical_segs(bytes: &[u8]) -> Vec<std::collections::BTreeMap<String, String>> {
    use quick_xml::events::Event;
    let text = match bytes {
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes),
        [0xEF, 0xBB, 0xBF, rest @ ..] => String::from_utf8(rest.to_vec()).unwrap(),
        _ => String::from_utf8(bytes.to_vec()).unwrap(),
    };
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut tus = Vec::new();
    let mut locale = String::new();
    let mut seg: Option<(String, usize)> = None;
    let mut pending = String::new();
    let flush = |pending: &mut String, seg: &mut Option<(String, usize)>| {
        if let Some((out, _)) = seg.as_mut() {
            out.push_str(&pending.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;"));
        }
        pending.clear();
    };
    loop {
        let event = reader.read_event().unwrap();
        let tag = |e: &quick_xml::events::BytesStart<'_>| {
            let name = e.name().as_ref().to_owned();
            let mut attrs: Vec<(String, String)> = e
                .attributes()
                .map(|a| {
                    let a = a.unwrap();
                    let value = a.normalized_value(quick_xml::XmlVersion::Implicit1_0).unwrap();
                    (a.key.as_ref().to_owned(), value.into_owned())
                })
                .collect();
            attrs.sort();
            (name, attrs)
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) if seg.is_some() => {
                flush(&mut pending, &mut seg);
                let (name, attrs) = tag(e);
                let (out, depth) = seg.as_mut().unwrap();
                out.push('<');
                out.push_str(&name);
                for (k, v) in attrs {
                    out.push_str(&format!(" {k}={v:?}"));
                }
                out.push('>');
                if matches!(event, Event::Empty(_)) {
                    out.push_str(&format!("</{name}>"));
                } else {
                    *depth += 1;
                }
            }
            Event::End(e) if seg.is_some() => {
                flush(&mut pending, &mut seg);
                let (out, depth) = seg.as_mut().unwrap();
                if *depth == 0 {
                    let (out, _) = seg.take().unwrap();
                    let tu: &mut std::collections::BTreeMap<String, String> = tus.last_mut().unwrap();
                    assert!(tu.insert(locale.clone(), out).is_none(), "two tuvs of {locale}");
                } else {
                    *depth -= 1;
                    out.push_str(&format!("</{}>", e.name().as_ref()));
                }
            }
            Event::Text(t) if seg.is_some() => pending.push_str(&t.xml10_content()),
            Event::CData(t) if seg.is_some() => pending.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if seg.is_some() => {
                let name: &str = &r;
                let c = match name {
                    "lt" => '<',
                    "gt" => '>',
                    "amp" => '&',
                    "quot" => '"',
                    "apos" => '\'',
                    n if n.starts_with("#x") => {
                        char::from_u32(u32::from_str_radix(&n[2..], 16).unwrap()).unwrap()
                    }
                    n => char::from_u32(n[1..].parse().unwrap()).unwrap(),
                };
                pending.push(c);
            }
            Event::Start(e) if e.name().as_ref() == "tu" => tus.push(Default::default()),
            Event::Start(e) if e.name().as_ref() == "tuv" => {
                let (_, attrs) = tag(&e);
                let lang = attrs.iter().find(|(k, _)| k == "xml:lang" || k == "lang").unwrap();
                locale = cmem_core::Locale::parse(&lang.1).unwrap().as_str().to_owned();
            }
            Event::Start(e) if e.name().as_ref() == "seg" => seg = Some((String::new(), 0)),
            Event::Eof => return tus,
            _ => {}
        }
    }
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let units: Vec<u16> = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]])).collect();
    String::from_utf16(&units).unwrap()
}

/// Level 1 keeps text and drops codes; entities become their values.
#[test]
fn level_one_export() {
    let (entries, _) = read_tmx(&testdata().join("tmx/cmem-features.tmx"));
    let mut options = TmxWriteOptions::default();
    options.level = Level::One;
    let bytes = write_tmx(&entries, options);
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(!text.contains("<ph") && !text.contains("<bpt") && !text.contains("x-cmem-runs"), "{text}");
    let (again, problems) = read_tmx_bytes("l1.tmx", &bytes, TmxOptions::default()).unwrap();
    assert!(problems.is_empty());
    assert_eq!(again[0].variants[0].runs, vec![cmem_core::Run::text("Hello John, see the docs.\r\tTab")]);
    assert_eq!(again[0].variants[1].runs, vec![cmem_core::Run::text("Hallo John, # Dateien")]);
    assert_eq!(again[0].point, entries[0].point);
}

#[test]
fn resource_caps() {
    let deep = format!(
        "<tmx version=\"1.4\"><header/><body><tu><tuv xml:lang=\"en\"><seg>{}x{}</seg></tuv></tu></body></tmx>",
        "<hi>".repeat(200),
        "</hi>".repeat(200)
    );
    let err = read_tmx_bytes("deep.tmx", deep.as_bytes(), TmxOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert!(err.to_string().contains("nested deeper than 64"), "{err}");
    let big = format!(
        "<tmx version=\"1.4\"><header/><body><tu><tuv xml:lang=\"en\"><seg>{}</seg></tuv></tu></body></tmx>",
        "y".repeat(5000)
    );
    let mut options = TmxOptions::default();
    options.max_tu_bytes = 1000;
    let err = read_tmx_bytes("big.tmx", big.as_bytes(), options).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!((err.line(), err.column()), (Some(1), Some(35)));
}

mod props {
    use super::*;
    use cmem_core::{Choice, Code, Locale, Origin, Point, Run, Variant};
    use cmem_formats::{JsonlMode, JsonlOptions, JsonlReader, JsonlWriter, KmbReader, KmbWriter};
    use proptest::prelude::*;

    /// Characters that stress every escape: markup, white space XML normalizes, C0
    /// controls and noncharacters XML cannot carry, combining marks, astral planes.
    fn odd_char() -> impl Strategy<Value = char> {
        prop_oneof![
            4 => prop::sample::select(vec![
                'a', 'Z', ' ', '<', '>', '&', '"', '\'', ';', '=', ':', '/', '\\', '\t', '\n', '\r', '\u{0}',
                '\u{1}', '\u{1f}', '\u{7f}', '\u{85}', '\u{a0}', '\u{2028}', '\u{fffe}', '\u{ffff}', '\u{fffd}',
                'é', 'e', '\u{301}', '𝄞', '中', 'ش', '{', '}', '#', 'x', '-',
            ]),
            1 => any::<char>(),
        ]
    }

    fn odd_string(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(odd_char(), 0..max).prop_map(|v| v.into_iter().collect())
    }

    fn code() -> impl Strategy<Value = Code> {
        (
            prop_oneof![Just(String::new()), Just("1".to_owned()), Just("2".to_owned()), odd_string(3)],
            prop_oneof![2 => Just(String::new()), 1 => odd_string(4)],
            prop::sample::select(vec![
                "",
                "bold",
                "PERSON",
                "DATE",
                "x-cmem-entity:PERSON",
                "b;x=2",
                "img;assoc=p",
                ";assoc=",
                "x-cmem-x",
                "link",
                "x-tmx-hi",
                "x-tmx-hi:verb",
                "image;sub",
                "b;x=2;sub",
            ]),
            prop_oneof![
                Just(String::new()),
                Just("<b>".to_owned()),
                Just("&lt;img alt=\"<sub>A</sub>\">".to_owned()),
                Just("<sub>".to_owned()),
                odd_string(5)
            ],
        )
            .prop_map(|(id, equiv, kind, data)| Code { id, equiv, kind: kind.to_owned(), data })
    }

    fn run() -> impl Strategy<Value = Run> {
        let leaf = prop_oneof![
            4 => odd_string(8).prop_map(Run::Text),
            2 => code().prop_map(Run::Ph),
            2 => code().prop_map(Run::PcOpen),
            2 => code().prop_map(Run::PcClose),
            1 => code().prop_map(Run::Sub),
            1 => (prop::sample::select(vec!["PERSON", "DATE"]), odd_string(5))
                .prop_map(|(k, v)| Run::entity("9", k, v)),
        ];
        leaf.prop_recursive(2, 12, 3, |inner| {
            (
                odd_string(3),
                prop::collection::vec((odd_string(4), prop::collection::vec(inner, 0..3)), 0..3),
                any::<bool>(),
            )
                .prop_map(|(var, forms, plural)| {
                    let c = Choice { var, forms };
                    if plural {
                        Run::Plural(c)
                    } else {
                        Run::Select(c)
                    }
                })
        })
    }

    fn runs() -> impl Strategy<Value = Vec<Run>> {
        prop_oneof![
            // Mostly natively writable level-2 content...
            2 => prop::collection::vec(
                prop_oneof![
                    prop::sample::select(vec!["Hello ", "world", " & <b> ", "x"]).prop_map(Run::text),
                    Just(Run::PcOpen(Code::new("1").kind("bold").data("<b>"))),
                    Just(Run::PcClose(Code::new("1").data("</b>"))),
                    Just(Run::Ph(Code::new("2").data("%s"))),
                    Just(Run::entity("3", "PERSON", "Ann")),
                    Just(Run::PcOpen(Code::new("1").kind("x-tmx-hi:verb"))),
                    Just(Run::PcClose(Code::new("1").kind("x-tmx-hi"))),
                    Just(Run::Ph(Code::new("4").kind("image;sub").equiv("A").data("&lt;img alt=\"<sub>A</sub>\">"))),
                ],
                0..6,
            ),
            // ...and anything at all.
            3 => prop::collection::vec(run(), 0..6),
        ]
        // Blank segments are problems, not entries: they cannot round-trip.
        .prop_filter("a segment with text or a code", |runs| {
            cmem_core::model::run::text_only(runs).is_none_or(|t| !t.trim().is_empty())
        })
    }

    fn entry() -> impl Strategy<Value = NewEntry> {
        let locales = vec!["en", "de", "fr-CA", "zh-Hant-TW", "ar", "en-GB", "pt-BR"];
        (
            prop::sample::subsequence(locales, 2..5).prop_shuffle(),
            prop::collection::vec(runs(), 5),
            prop::sample::select(vec!["", "web", "web/eu", "web/eu/docs", "a\u{fffe}"]),
            odd_string(6),
            odd_string(4),
            prop::collection::vec(
                (odd_string(4), odd_string(4), odd_string(4)).prop_map(|(p, c, t)| Origin {
                    project_id: p,
                    context_fingerprint: c,
                    created_at: t,
                }),
                0..3,
            ),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(vec![
                            "tmx:tuid",
                            "tmx:note",
                            "tmx:prop:x",
                            "tmx:tuv:en:note",
                            "tmx:tuv:de:creationid",
                            "tmx:srclang",
                            "k",
                            "tmx:prop:x-cmem-point",
                            "jsonl:id",
                            "tmx:creationdate",
                        ])
                        .prop_map(str::to_owned),
                        odd_string(5),
                    ],
                    odd_string(6),
                ),
                0..5,
            ),
        )
            .prop_map(|(locs, runs, point, unit, project_id, origins, metadata)| NewEntry {
                approvals: 0,
                variants: locs
                    .iter()
                    .zip(runs)
                    .map(|(l, r)| Variant::new(Locale::parse(l).unwrap(), r))
                    .collect(),
                point: Point::parse(point).unwrap(),
                unit,
                project_id,
                origins,
                metadata,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn tmx_round_trip(entries in prop::collection::vec(entry(), 1..4)) {
            let bytes = write_tmx(&entries, TmxWriteOptions::default());
            let (again, problems) = read_tmx_bytes("p.tmx", &bytes, TmxOptions::default())
                .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&bytes)));
            prop_assert!(problems.is_empty(), "{problems:?}");
            prop_assert_eq!(again, entries, "{}", String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn tmx_round_trip_with_source_locale(entries in prop::collection::vec(entry(), 1..3)) {
            let mut options = TmxWriteOptions::default();
            options.source_locale = Some(Locale::parse("de").unwrap());
            let bytes = write_tmx(&entries, options);
            let (again, problems) = read_tmx_bytes("p.tmx", &bytes, TmxOptions::default()).unwrap();
            prop_assert!(problems.is_empty(), "{problems:?}");
            prop_assert_eq!(again, entries);
        }

        #[test]
        fn kmb_round_trip(entries in prop::collection::vec(entry(), 0..4)) {
            let mut w = KmbWriter::new(Vec::new(), Some(entries.len() as u64)).unwrap();
            for e in &entries {
                w.write_entry(e).unwrap();
            }
            let bytes = w.finish().unwrap();
            let (again, _) = collect_items(KmbReader::new(&bytes[..], "p.kmb").unwrap()).unwrap();
            prop_assert_eq!(again, entries);
        }

        #[test]
        fn jsonl_round_trip(entries in prop::collection::vec(entry(), 0..4)) {
            let mut options = JsonlOptions::default();
            options.mode = JsonlMode::Full;
            let mut w = JsonlWriter::new(Vec::new(), options.clone());
            for e in &entries {
                w.write_entry(e).unwrap();
            }
            let bytes = w.finish().unwrap();
            let (again, problems) = collect_items(JsonlReader::new(&bytes[..], JsonlOptions::default(), None)).unwrap();
            prop_assert!(problems.is_empty(), "{problems:?}");
            prop_assert_eq!(again, entries);
        }

        /// No input panics: arbitrary bytes, with or without a plausible start.
        #[test]
        fn readers_never_panic_on_bytes(
            bytes in prop::collection::vec(any::<u8>(), 0..400),
            prefix in prop::sample::select(vec![&b""[..], b"<tmx version=\"1.4\"><header/><body><tu><tuv xml:lang=\"en\"><seg>", b"\xff\xfe<\0", b"\x89KMB\r\n\x1a\n\x01\0\0\0\0\0\0\0", b"{\"source\":"]),
        ) {
            let mut input = prefix.to_vec();
            input.extend_from_slice(&bytes);
            if let Ok(r) = TmxReader::new(&input[..], TmxOptions::default()) {
                for _ in r {}
            }
            if let Ok(r) = KmbReader::new(&input[..], "f") {
                for _ in r {}
            }
            for _ in JsonlReader::new(&input[..], JsonlOptions::default(), None) {}
        }
    }

    fn corpus() -> Vec<Vec<u8>> {
        let mut files: Vec<Vec<u8>> = tmx_files().iter().map(|p| fs::read(p).unwrap()).collect();
        files.push(fs::read(testdata().join("invalid/truncated.kmb")).unwrap());
        let mut w = KmbWriter::new(Vec::new(), None).unwrap();
        for e in sample_entries(3) {
            w.write_entry(&e).unwrap();
        }
        files.push(w.finish().unwrap());
        files
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// No input panics: real files, mutated (bytes changed, cut, spliced).
        #[test]
        fn readers_never_panic_on_mutated_files(
            which in any::<prop::sample::Index>(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..8),
        ) {
            let files = corpus();
            let mut input = which.get(&files).clone();
            for (at, byte, op) in edits {
                if input.is_empty() {
                    break;
                }
                let i = at.index(input.len());
                match op {
                    0 => input[i] = byte,
                    1 => { input.remove(i); }
                    2 => input.insert(i, byte),
                    _ => input.truncate(i),
                }
            }
            if let Ok(r) = TmxReader::new(&input[..], TmxOptions::default()) {
                for _ in r {}
            }
            if let Ok(r) = KmbReader::new(&input[..], "f") {
                for _ in r {}
            }
            for _ in JsonlReader::new(&input[..], JsonlOptions::default(), None) {}
        }
    }
}

/// A huge DOCTYPE (or comment) outside any tu is capped too, whether it fits in one
/// read buffer or not (then it is stopped before it is buffered whole).
#[test]
fn huge_markup_outside_units_is_capped() {
    for size in [4_000, 1_000_000] {
        let doc = format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE tmx [ <!ENTITY a \"{}\"> ]>\n<tmx/>",
            "a".repeat(size)
        );
        let mut options = TmxOptions::default();
        options.max_tu_bytes = 1000;
        let err = read_tmx_bytes("dtd.tmx", doc.as_bytes(), options).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
        assert_eq!((err.line(), err.column()), (Some(2), Some(1)));
        assert!(err.to_string().contains("larger than the cap of 1000 bytes"), "{err}");
    }
}

/// Some tools write C0 controls as references (`&#x1F;`), which XML 1.0 forbids (§4.1,
/// "Legal Character"): refused with their place, like a raw control. A control a memory
/// entry holds (from a PO `\b`, say) still survives a TMX round trip, through the
/// exact-runs property.
#[test]
fn control_character_references_are_refused_and_stored_controls_kept() {
    let tmx = "<tmx version=\"1.4\"><header srclang=\"en\"/><body><tu><tuv xml:lang=\"en\"><seg>a&#x1F;b</seg></tuv>\
               <tuv xml:lang=\"de\"><seg>c&#3;</seg></tuv></tu></body></tmx>";
    let err = read_tmx_bytes("c0.tmx", tmx.as_bytes(), TmxOptions::default()).unwrap_err();
    assert_eq!((err.kind(), err.line(), err.column()), (ErrorKind::Xml, Some(1), Some(77)), "{err}");
    assert!(
        err.to_string().contains("&#x1F; refers to U+001F, which an XML 1.0 document cannot hold"),
        "{err}"
    );
    let err = read_tmx_bytes("nul.tmx", tmx.replace("&#x1F;", "&#0;").as_bytes(), TmxOptions::default())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Xml);
    assert!(err.to_string().contains("&#0; refers to U+0000"), "{err}");
    let raw = tmx.replace("&#x1F;", "\u{1F}");
    let err = read_tmx_bytes("raw.tmx", raw.as_bytes(), TmxOptions::default()).unwrap_err();
    assert_eq!((err.line(), err.column()), (Some(1), Some(77)), "{err}");
    assert!(err.to_string().contains("U+001F is not allowed in an XML 1.0 document"), "{err}");

    use cmem_core::{Locale, Run, Variant};
    let entries = vec![NewEntry::pair(
        Variant::new(Locale::parse("en").unwrap(), vec![Run::text("a\u{1f}b")]),
        Variant::new(Locale::parse("de").unwrap(), vec![Run::text("c\u{3}")]),
    )];
    let bytes = write_tmx(&entries, TmxWriteOptions::default());
    let (again, problems) = read_tmx_bytes("c0-out.tmx", &bytes, TmxOptions::default()).unwrap();
    assert!(problems.is_empty());
    assert_eq!(again[0].variants, entries[0].variants);
}

/// `strict` turns the first problem into the error that ends the read.
#[test]
fn strict_reader_stops_at_the_first_problem() {
    let bytes = fs::read(testdata().join("invalid/duplicate-locale.tmx")).unwrap();
    let (entries, problems) = read_tmx_bytes("d.tmx", &bytes, TmxOptions::default()).unwrap();
    assert_eq!((entries.len(), problems.len()), (1, 1));
    let mut strict = TmxOptions::default();
    strict.strict = true;
    let err = read_tmx_bytes("d.tmx", &bytes, strict).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DuplicateLocale);
    assert_eq!(
        (err.line(), err.column(), err.entry(), err.entry_id()),
        (Some(5), Some(1), Some(1), Some("d1"))
    );
}
