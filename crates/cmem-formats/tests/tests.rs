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
