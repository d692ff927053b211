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
    collect_items, ErrorKind, FormatError, Item, Level, TmxOptions, TmxReader, TmxWriteOptions, TmxWriter,
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
