//! The built `cmem` binary run on `testdata/` in temporary directories, its output
//! compared with what a user should see (the way ripgrep tests itself).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

const CMEM: &str = env!("CARGO_BIN_EXE_cmem");

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(rel)
}

/// A fresh temporary directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new() -> Dir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "cmem-cli-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    /// `cmem ARGS` in this directory, without `$CMEM_MEMORY`.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(CMEM);
        c.args(args).current_dir(&self.0).env_remove("CMEM_MEMORY").env_remove("CMEM_INDEX_DIR");
        c
    }

    fn run(&self, args: &[&str]) -> Run {
        Run(self.cmd(args).output().unwrap())
    }

    /// Runs and requires exit status 0.
    fn ok(&self, args: &[&str]) -> Run {
        let r = self.run(args);
        assert_eq!(r.code(), 0, "cmem {args:?}\nstdout:\n{}\nstderr:\n{}", r.stdout(), r.stderr());
        r
    }

    /// A memory with the sample JSON Lines file (en → de) imported.
    fn with_sample() -> Dir {
        let d = Dir::new();
        d.ok(&["import", "-q", "--from", "en", "--to", "de", testdata("cli/sample.jsonl").to_str().unwrap()]);
        d
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Run(Output);

impl Run {
    fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }
    fn stdout(&self) -> String {
        String::from_utf8(self.0.stdout.clone()).unwrap()
    }
    fn stderr(&self) -> String {
        String::from_utf8(self.0.stderr.clone()).unwrap()
    }
    fn json_lines(&self) -> Vec<Value> {
        self.stdout().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

fn td(rel: &str) -> String {
    testdata(rel).to_str().unwrap().to_owned()
}

mod faults;
mod first_hour;
mod pairs;
mod serve;
mod server_faults;
mod tour;

// ---- import ----

#[test]
fn import_jsonl_prints_one_summary_line_and_no_progress_when_piped() {
    let d = Dir::new();
    let r = d.ok(&["import", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    assert_eq!(r.stdout(), "");
    let err = r.stderr();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        !err.contains('\r') && !err.contains('\u{1b}'),
        "no progress bar when stderr is not a terminal: {err:?}"
    );
    assert!(
        err.starts_with(&format!(
            "imported {} into cmem.db: 193 read, 193 written, 0 deduplicated, 0 problems in ",
            td("cli/sample.jsonl")
        )),
        "{err}"
    );
    assert!(d.path("cmem.db").is_file());
    // The time is the whole command's, the index written at its end included (and said).
    assert!(err.trim_end().ends_with(" of it the candidate index)"), "{err}");
    assert!(d.path("cmem.db-gix-en").is_file(), "the index is written before the summary");
    // Importing again writes nothing new, nor the index.
    let r = d.ok(&["import", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    assert!(r.stderr().contains(": 193 read, 0 written, 193 deduplicated, 0 problems in "), "{}", r.stderr());
    assert!(!r.stderr().contains("candidate index"), "{}", r.stderr());
}

#[test]
fn index_pairs_writes_the_index_a_server_of_those_pairs_opens() {
    let d = Dir::new();
    d.ok(&["import", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    d.ok(&["import", "--from", "en", "--to", "fr", &td("cli/en-fr.jsonl")]);
    // The file of every key, written afresh (an import's catches up in the process).
    std::fs::remove_file(d.path("cmem.db-gix-en")).unwrap();
    d.ok(&["index"]);
    let every = std::fs::metadata(d.path("cmem.db-gix-en")).unwrap().len();
    let r = d.ok(&["index", "--pairs", "en-de"]);
    assert!(r.stderr().starts_with("indexed cmem.db for lookups from en in "), "{}", r.stderr());
    // The German entries' keys alone, in a file of their own; the file of every key stays.
    let german = std::fs::metadata(d.path("cmem.db-gix-en--de")).unwrap().len();
    assert!(german < every, "{german} of {every} bytes");
    assert!(d.path("cmem.db-gix-en").is_file());
    // Only the source locales the memory holds are indexed, as a server warms them.
    let r = d.ok(&["index", "--pairs", "en-de,ja-de"]);
    assert!(r.stderr().starts_with("indexed cmem.db for lookups from en in "), "{}", r.stderr());
    let r = d.ok(&["index", "--pairs", "ja-de"]);
    assert!(r.stderr().starts_with("indexed cmem.db for lookups from no locale"), "{}", r.stderr());
    let r = d.run(&["index", "--pairs", "en"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("SOURCE-TARGET"), "{}", r.stderr());
}

#[test]
fn import_tmx_compliance_kit_and_tico_slices() {
    let d = Dir::new();
    let mut args = Vec::new();
    for f in std::fs::read_dir(testdata("tmx")).unwrap() {
        let p = f.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        if name.ends_with(".tmx") && (name.contains("ComplianceKit") || name.starts_with("tico-19")) {
            args.push(p.to_str().unwrap().to_owned());
        }
    }
    args.sort();
    args.insert(0, "import".to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = d.ok(&args);
    // 115 = the entries of the files' `.model.json` goldens; the kit repeats one content
    // in several encodings, which deduplicates.
    assert!(
        r.stderr()
            .starts_with("imported 14 files into cmem.db: 115 read, 106 written, 9 deduplicated, 0 problems"),
        "{}",
        r.stderr()
    );
    // The first tu of the en-zh slice: after the kit's 26 new entries and the 40 of en-ar.
    let r =
        d.ok(&["lookup", "about how long have these symptoms been going on?", "--from", "en", "--to", "zh"]);
    assert_eq!(
        r.stdout(),
        "100  structural_exact  entry 67\n  source   about how long have these symptoms been going on?\n  \
         target   这些症状已持续多长时间？\n"
    );
}

#[test]
fn import_lists_problems_as_file_line_column_and_keeps_the_rest() {
    let d = Dir::new();
    let bad = td("invalid/unbalanced.tmx");
    let r = d.ok(&["import", &bad, &td("tmx/okapi__sample14b.tmx")]);
    let err = r.stderr();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], format!("{bad}:6:27: tu 1 (tuid \"u1\"): <bpt i=\"1\"> has no matching <ept>"));
    assert_eq!(lines[1], format!("{bad}:7:37: tu 1 (tuid \"u1\"): <ept i=\"2\"> has no matching <bpt>"));
    assert!(lines[2].starts_with("imported 2 files into cmem.db: "), "{err}");
    assert!(lines[2].contains(", 2 problems in "), "{err}");
}

#[test]
fn strict_import_fails_at_the_first_problem_and_stores_nothing() {
    let d = Dir::new();
    d.ok(&["import", "-q", &td("tmx/okapi__sample14b.tmx")]);
    let before = d.ok(&["stats", "--json"]).json_lines()[0]["entries"].clone();
    let bad = td("invalid/unbalanced.tmx");
    let r = d.run(&["import", "--strict", &td("cli/versions.jsonl"), &bad]);
    assert_eq!(r.code(), 3);
    assert_eq!(
        r.stderr(),
        format!("cmem: import {bad}: line 6, column 27: tu 1 (tuid \"u1\"): <bpt i=\"1\"> has no matching <ept>\n")
    );
    // The entries of the first file were rolled back with the rest.
    assert_eq!(d.ok(&["stats", "--json"]).json_lines()[0]["entries"], before);
}

#[test]
fn malformed_tmx_names_file_line_and_column_and_stores_nothing() {
    let d = Dir::new();
    let bad = td("invalid/malformed.tmx");
    let r = d.run(&["import", &bad]);
    assert_eq!(r.code(), 3);
    assert_eq!(
        r.stderr(),
        format!(
            "cmem: import {bad}: line 10, column 30: malformed XML: ill-formed document: expected `</seg>`, \
             but `</tuv>` was found\n"
        )
    );
    // The memory it created is gone again, with what SQLite kept beside it.
    for file in ["cmem.db", "cmem.db-wal", "cmem.db-shm"] {
        assert!(!d.path(file).exists(), "{file} was left");
    }
    // A memory that existed before stays, with what it held.
    d.ok(&["import", "-q", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    let before = d.ok(&["stats", "--json"]).json_lines()[0]["entries"].clone();
    assert_eq!(d.run(&["import", &bad]).code(), 3);
    assert_eq!(d.ok(&["stats", "--json"]).json_lines()[0]["entries"], before);
}

#[test]
fn a_failure_with_a_cause_prints_the_failure_then_the_cause() {
    let d = Dir::new();
    std::fs::write(d.path("notes.txt"), "not a directory").unwrap();
    // The store's message names the memory; the operating system's error is its cause.
    let r = d.run(&[
        "--memory",
        "notes.txt/m.db",
        "import",
        "--from",
        "en",
        "--to",
        "de",
        &td("cli/sample.jsonl"),
    ]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    let lines: Vec<String> = r.stderr().lines().map(str::to_owned).collect();
    assert_eq!(lines[0], "cmem: sqlite store notes.txt/m.db: cannot open", "{}", r.stderr());
    assert!(lines[1].starts_with("  caused by: ") && lines[1].contains("directory"), "{}", r.stderr());
    assert_eq!(lines.len(), 2, "{}", r.stderr());
    // A file that is not a database: SQLite's error, and the code under it, each once.
    std::fs::write(d.path("bad.db"), "x".repeat(200)).unwrap();
    let r = d.run(&["--memory", "bad.db", "stats"]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    let err = r.stderr();
    assert!(err.starts_with("cmem: sqlite store bad.db: "), "{err}");
    assert!(err.contains("\n  caused by: file is not a database\n"), "{err}");
    assert_eq!(err.matches("file is not a database").count(), 1, "{err}");
}

#[test]
fn missing_and_unknown_files_fail_before_anything_is_stored() {
    let d = Dir::new();
    let r = d.run(&["import", &td("cli/versions.jsonl"), "nothere.tmx"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().starts_with("cmem: import nothere.tmx: cannot open: "), "{}", r.stderr());
    assert_eq!(r.stderr().lines().count(), 1);
    let r = d.run(&["import", &td("README.md")]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("unknown format"), "{}", r.stderr());
    assert!(!d.path("cmem.db").exists());
}

#[test]
fn jsonl_lines_without_locales_need_from_and_to() {
    let d = Dir::new();
    let r = d.run(&["import", &td("cli/sample.jsonl")]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().contains(
            "no \"source_locale\" on the line and no source language given; give one with --from\n"
        ),
        "{}",
        r.stderr()
    );
    assert!(
        r.stderr().ends_with("cmem: import: nothing imported, 193 problems (listed above)\n"),
        "{}",
        r.stderr()
    );
    assert!(r.stderr().contains("… and 173 more problems\n"), "{}", r.stderr());
    assert!(!d.path("cmem.db").exists(), "an import that stored nothing left the memory it created");
}

#[test]
fn jsonl_import_recognizes_codes_unless_told_not_to() {
    let d = Dir::with_sample();
    let r = d.ok(&["export", "--format", "jsonl", "-o", "-"]);
    let line56: Value = serde_json::from_str(r.stdout().lines().nth(55).unwrap()).unwrap();
    assert_eq!(
        line56["variants"][0]["runs"],
        serde_json::json!([{"text": "Server supports "}, {"ph": {"id": "1", "equiv": "%s", "type": "printf", "data": "%s"}}])
    );
    let d = Dir::new();
    d.ok(&["import", "-q", "--no-recognize", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    let r = d.ok(&["export", "--format", "jsonl", "-o", "-"]);
    let line56: Value = serde_json::from_str(r.stdout().lines().nth(55).unwrap()).unwrap();
    assert_eq!(line56["variants"][0]["runs"], serde_json::json!([{"text": "Server supports %s"}]));
}

#[test]
fn level1_tmx_segments_get_codes_recognized_and_coded_ones_are_kept() {
    let tmx = r#"<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="t" adminlang="en" srclang="en" datatype="plaintext"/>
<body>
<tu><tuv xml:lang="en"><seg>Open %s now</seg></tuv><tuv xml:lang="de"><seg>%s jetzt öffnen</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Save <ph x="1">%d</ph> files</seg></tuv><tuv xml:lang="de"><seg><ph x="1">%d</ph> Dateien speichern</seg></tuv></tu>
</body></tmx>
"#;
    let d = Dir::new();
    std::fs::write(d.path("level1.tmx"), tmx).unwrap();
    d.ok(&["import", "-q", "level1.tmx"]);
    let r = d.ok(&["export", "--format", "jsonl", "-o", "-"]);
    let lines = r.json_lines();
    let ph = serde_json::json!({"ph": {"id": "1", "equiv": "%s", "type": "printf", "data": "%s"}});
    assert_eq!(lines[0]["variants"][0]["runs"], serde_json::json!([{"text": "Open "}, ph, {"text": " now"}]));
    assert_eq!(lines[0]["variants"][1]["runs"], serde_json::json!([ph, {"text": " jetzt öffnen"}]));
    // A segment with TMX codes keeps them as the file gave them.
    let coded = &lines[1]["variants"][0]["runs"];
    assert_eq!(coded[1]["ph"]["data"], "%d", "{coded}");
    assert!(coded[1]["ph"].get("type").is_none_or(|t| t != "printf"), "{coded}");

    let d = Dir::new();
    std::fs::write(d.path("level1.tmx"), tmx).unwrap();
    d.ok(&["import", "-q", "--no-recognize", "level1.tmx"]);
    let lines = d.ok(&["export", "--format", "jsonl", "-o", "-"]).json_lines();
    assert_eq!(lines[0]["variants"][0]["runs"], serde_json::json!([{"text": "Open %s now"}]));
}

/// Messages speak each format's terms and name the option that gives what is missing;
/// a catalog's syntax error comes before its missing language.
#[test]
fn import_errors_name_the_option_and_speak_the_formats_terms() {
    let d = Dir::new();
    std::fs::write(
        d.path("nt.xlf"),
        "<xliff version=\"1.2\"><file source-language=\"en\" datatype=\"x\" original=\"a\"><body>\n\
         <trans-unit id=\"u1\"><source>Hi</source><target>Hallo</target></trans-unit></body></file></xliff>",
    )
    .unwrap();
    let r = d.run(&["import", "nt.xlf"]);
    assert_eq!(r.code(), 3);
    assert_eq!(
        r.stderr(),
        "cmem: import nt.xlf: line 2, column 1: segment 1 (unit \"u1\"): the document names no target language; \
         give one with --to\n"
    );
    let header = "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n";
    std::fs::write(d.path("nl.po"), format!("{header}msgid \"a\"\nmsgstr \"b\"\n")).unwrap();
    let r = d.run(&["import", "nl.po"]);
    assert_eq!(r.code(), 3);
    assert_eq!(
        r.stderr(),
        "cmem: import nl.po: the header names no Language (the target language); give one with --to\n"
    );
    // With a syntax error too, the syntax error comes first: it is what to fix.
    std::fs::write(d.path("bad.po"), format!("{header}msgid \"a\"\nmsgstr \"b\"\nmsgfoo \"x\"\n")).unwrap();
    let r = d.run(&["import", "bad.po"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().starts_with("cmem: import bad.po: line 7, column 1: "), "{}", r.stderr());
    assert!(r.stderr().contains("msgfoo"), "{}", r.stderr());
    d.ok(&["import", "-q", "bad.po", "--from", "en", "--to", "de"]);
}

#[test]
fn import_from_standard_input_needs_a_format() {
    let d = Dir::new();
    let r = d.run(&["import", "-", "--from", "en", "--to", "de"]);
    assert_eq!(r.code(), 3);
    assert_eq!(r.stderr(), "cmem: import -: standard input needs --format tmx|kmb|jsonl|po|weblate|xliff\n");
    let mut child = d
        .cmd(&["import", "-", "--format", "jsonl", "--from", "en", "--to", "de"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(testdata("cli/sample.jsonl")).unwrap()).unwrap();
    let r = Run(child.wait_with_output().unwrap());
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stderr().starts_with("imported <stdin> into cmem.db: 193 read, 193 written, "),
        "{}",
        r.stderr()
    );
    // A segment that starts with a dash follows `--`.
    let r = d.ok(&[
        "lookup",
        "--from",
        "en",
        "--to",
        "de",
        "--",
        "-P, --new-port=PORT           new cluster port number (default %d)\n",
    ]);
    // The stored source starts with two spaces the query lacks: 99, a white-space penalty.
    assert!(r.stdout().starts_with("99  structural_exact  entry 62\n"), "{}", r.stdout());
}

#[cfg(unix)]
#[test]
fn ctrl_c_rolls_the_import_back() {
    let d = Dir::new();
    d.ok(&["import", "-q", &td("cli/versions.jsonl")]);
    let mut child = d
        .cmd(&["import", "-", "--format", "jsonl", "--from", "en", "--to", "de"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines: String =
        (0..6000).map(|i| format!("{{\"source\":\"source {i}\",\"target\":\"Ziel {i}\"}}\n")).collect();
    stdin.write_all(lines.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The first batch of 5,000 is written into the import's transaction meanwhile;
    // readers never see it.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(d.ok(&["stats", "--json"]).json_lines()[0]["entries"], 4, "a reader saw an unfinished import");
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    // The import is blocked reading standard input; the signal handler sets the flag
    // meanwhile. Then end the input: the next read sees the flag.
    std::thread::sleep(std::time::Duration::from_millis(1000));
    drop(stdin);
    let r = Run(child.wait_with_output().unwrap());
    assert_eq!(r.code(), 130, "{}", r.stderr());
    assert!(r.stderr().contains("cmem: interrupted; rolling back the import"), "{}", r.stderr());
    assert!(
        r.stderr().contains("interrupted; import rolled back") || r.stderr().ends_with(": interrupted\n"),
        "{}",
        r.stderr()
    );
    assert_eq!(d.ok(&["stats", "--json"]).json_lines()[0]["entries"], 4, "the memory is as it was");
}

// ---- lookup ----

#[test]
fn lookup_exact() {
    let d = Dir::with_sample();
    let r = d.ok(&["lookup", "Server supports %s", "--from", "en", "--to", "de"]);
    assert_eq!(
        r.stdout(),
        "100  structural_exact  entry 56\n  source   Server supports %s\n  target   Server unterstützt %s\n"
    );
    assert_eq!(r.stderr(), "");
}

#[test]
fn lookup_adapts_the_query_codes_and_marks_the_difference() {
    let d = Dir::with_sample();
    let r = d.ok(&["lookup", "Server supports %d", "--from", "en", "--to", "de"]);
    assert_eq!(
        r.stdout(),
        "100  structural_exact  entry 56\n  source   Server supports [-%s-]{+%d+}\n  target   Server unterstützt %s\n  \
         adapted  Server unterstützt [-%s-]{+%d+}\n"
    );
    // Without recognition the query is plain text, and `%s` is two characters of it: the
    // stored plain key `Server supports {%s}` is 2 edits away, 1 − 2/20.
    let r = d.ok(&["lookup", "Server supports %s", "--from", "en", "--to", "de", "--no-recognize"]);
    assert!(r.stdout().starts_with("90  plain_fuzzy  entry 56\n"), "{}", r.stdout());
}

#[test]
fn color_always_marks_differences_and_hits_with_ansi_codes() {
    let d = Dir::with_sample();
    let r = d.ok(&["--color", "always", "lookup", "Server supports %d", "--from", "en", "--to", "de"]);
    assert!(
        r.stdout().ends_with("  adapted  Server unterstützt \u{1b}[31m%s\u{1b}[0m\u{1b}[32m%d\u{1b}[0m\n"),
        "{:?}",
        r.stdout()
    );
    let r = d.ok(&["search", "directory", "--lang", "en", "--limit", "1", "--color", "always"]);
    assert_eq!(
        r.stdout(),
        "entry 110  Local &\u{1b}[1;31mdirectory\u{1b}[0m:\n  de     Lokales &Verzeichnis:\n"
    );
    // Piped output (auto) has none: the exact outputs of the other tests.
    assert_eq!(d.run(&["--color", "sometimes", "stats"]).code(), 2);
}

#[test]
fn lookup_fuzzy_threshold_and_limit() {
    let d = Dir::with_sample();
    let r = d.ok(&["lookup", "failed to remove the directory %s", "--from", "en", "--to", "de"]);
    assert_eq!(
        r.stdout(),
        "88.6  generalized_fuzzy  entry 49\n  source   failed to remove {+the +}directory %s\n  \
         target   konnte Verzeichnis %s nicht entfernen\n"
    );
    let r = d.run(&[
        "lookup",
        "failed to remove the directory %s",
        "--from",
        "en",
        "--to",
        "de",
        "--threshold",
        "90",
    ]);
    assert_eq!(r.code(), 1);
    assert_eq!(r.stdout(), "");
    assert_eq!(r.stderr(), "no match at or above 90\n");
    let r = d.ok(&[
        "lookup",
        "%1 hours",
        "--from",
        "en",
        "--to",
        "de",
        "--threshold",
        "0",
        "--limit",
        "3",
        "--json",
    ]);
    let matches = r.json_lines()[0]["matches"].as_array().unwrap().clone();
    assert_eq!(matches.len(), 3);
    assert_eq!(matches[0]["entry_id"], 175);
    let scores: Vec<f64> = matches.iter().map(|m| m["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

/// A bold the query puts around one word of a sentence the memory holds in a styled
/// span: where the bold went, and why, is said; once `cmem align` trained the word model,
/// it goes around the translation of that word.
#[test]
fn lookup_says_where_a_code_the_query_moved_went() {
    let d = Dir::new();
    let lines = [
        ("<span class=\"avis\">Saves the file.</span>", "<span class=\"avis\">Speichert die Datei.</span>"),
        ("Saves the page.", "Speichert die Seite."),
        ("Saves the document.", "Speichert das Dokument."),
        ("Opens the file.", "Öffnet die Datei."),
        ("Opens the page.", "Öffnet die Seite."),
    ];
    let body: String =
        lines.iter().map(|(s, t)| format!("{}\n", serde_json::json!({"source": s, "target": t}))).collect();
    std::fs::write(d.path("styled.jsonl"), body).unwrap();
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "styled.jsonl"]);
    let ask =
        ["lookup", "<b>Save</b> the file", "--from", "en", "--to", "de", "--limit", "1", "--no-fragments"];
    let r = d.ok(&ask);
    assert!(
        r.stdout()
            .contains("  adapted  [-<span class=\"avis\">-]{+<b>+}Speichert die Datei.[-</span>-]{+</b>+}\n"),
        "{}",
        r.stdout()
    );
    assert!(
        r.stdout().contains(
            "  note     <b> stands where the target had <span class=\"avis\">, around \"Speichert·die·Datei.\": \
             the memory does not know which words it marks\n"
        ),
        "{}",
        r.stdout()
    );
    d.ok(&["align", "--from", "en", "--to", "de"]);
    let r = d.ok(&ask);
    assert!(
        r.stdout()
            .contains("  adapted  [-<span class=\"avis\">-]{+<b>+}Speichert{+</b>+} die Datei[-.</span>-]\n"),
        "{}",
        r.stdout()
    );
    assert!(
        r.stdout().contains("  placed   <b> around \"Speichert\", the words aligned with those it marks\n"),
        "{}",
        r.stdout()
    );
}

#[test]
fn lookup_nothing_found_exits_1() {
    let d = Dir::with_sample();
    let r = d.run(&["lookup", "zzzz qqqq nothing like this at all", "--from", "en", "--to", "de"]);
    assert_eq!(r.code(), 1);
    assert_eq!(r.stdout(), "");
    let r = d.run(&["lookup", "zzzz qqqq nothing like this at all", "--from", "en", "--to", "de", "--json"]);
    assert_eq!(r.code(), 1);
    assert_eq!(r.json_lines()[0]["matches"], serde_json::json!([]));
    // Another locale pair holds nothing.
    let r = d.run(&["lookup", "Server supports %s", "--from", "en", "--to", "fr"]);
    assert_eq!(r.code(), 1);
}

#[test]
fn differing_exact_answers_are_ambiguous_unless_a_point_settles_them() {
    let d = Dir::new();
    let memory = concat!(
        r#"{"variants":[{"locale":"en","runs":[{"text":"Save"}]},{"locale":"de","runs":[{"text":"Speichern"}]}],"point":"app/desktop"}"#,
        "\n",
        r#"{"variants":[{"locale":"en","runs":[{"text":"Save"}]},{"locale":"de","runs":[{"text":"Sichern"}]}],"point":"web"}"#,
        "\n",
    );
    std::fs::write(d.path("two.jsonl"), memory).unwrap();
    d.ok(&["import", "-q", "two.jsonl"]);
    let r = d.ok(&["lookup", "Save", "--from", "en", "--to", "de"]);
    assert_eq!(
        r.stdout(),
        "99  structural_exact  entry 1  ambiguous  point app/desktop\n  source   Save\n  target   Speichern\n\n\
         99  structural_exact  entry 2  ambiguous  point web\n  source   Save\n  target   Sichern\n"
    );
    let r = d.ok(&["lookup", "Save", "--from", "en", "--to", "de", "--point", "web/shop", "--json"]);
    let m = &r.json_lines()[0]["matches"];
    assert_eq!(
        (m[0]["entry_id"].clone(), m[0]["score"].clone(), m[0]["ambiguous"].clone()),
        (2.into(), 1.0.into(), false.into())
    );
    assert_eq!((m[1]["entry_id"].clone(), m[1]["score"].clone()), (1.into(), 0.99.into()));
}

#[test]
fn lookup_json_shape() {
    let d = Dir::with_sample();
    let r = d.ok(&["lookup", "Server supports %d", "--from", "en", "--to", "de", "--json"]);
    let v = &r.json_lines()[0];
    assert_eq!(v["query"]["text"], "Server supports %d");
    assert_eq!(v["query"]["locale"], "en");
    assert!(v["micros"].is_u64());
    let m = &v["matches"][0];
    assert_eq!(m["score"], 1.0);
    assert_eq!(m["match_type"], "structural_exact");
    assert_eq!(m["entry_id"], 56);
    assert_eq!(m["ambiguous"], false);
    assert_eq!(m["source"]["locale"], "en");
    assert_eq!(m["source"]["text"], "Server supports %s");
    assert_eq!(m["target"]["locale"], "de");
    assert_eq!(m["target"]["text"], "Server unterstützt %s");
    assert_eq!(m["target"]["runs"][1]["ph"]["data"], "%s");
    assert_eq!(m["adapted_target"]["text"], "Server unterstützt %d");
    assert_eq!(m["adapted_target"]["runs"][1]["ph"]["data"], "%d");
    assert_eq!(m["entity_adaptations"], serde_json::json!([]));
    assert_eq!(m["code_adaptations"][0]["from"]["data"], "%s");
    assert_eq!(m["code_adaptations"][0]["to"]["data"], "%d");
    assert_eq!(m["code_adaptations"][0]["applied"], true);
}

#[test]
fn lookup_runs_file_adapts_entities_and_notation_points() {
    let d = Dir::new();
    d.ok(&["import", "-q", &td("cli/versions.jsonl")]);
    let r = d.ok(&["lookup", "--runs", &td("cli/query-runs.json"), "--from", "en", "--to", "de"]);
    assert_eq!(
        r.stdout(),
        "100  generalized_exact  entry 3  point web\n  source   Welcome to [-cmem-]{+Globex+}\n  \
         target   Willkommen bei cmem\n  adapted  Willkommen bei [-cmem-]{+Globex+}\n  \
         origin   site 2025-02-03T08:30:00Z\n"
    );
    let r =
        d.ok(&["lookup", "--notation", "Welcome to {PRODUCT:Acme}", "--from", "en", "--to", "de", "--json"]);
    let m = &r.json_lines()[0]["matches"][0];
    assert_eq!(m["adapted_target"]["text"], "Willkommen bei Acme");
    assert_eq!(m["entity_adaptations"][0]["from"], "cmem");
    assert_eq!(m["entity_adaptations"][0]["to"], "Acme");
    let r = d.run(&["lookup", "--notation", "Welcome {1", "--from", "en", "--to", "de"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().starts_with("cmem: notation: column "), "{}", r.stderr());
}

#[test]
fn lookup_batch_answers_every_line_with_latencies() {
    let d = Dir::with_sample();
    let r = d.ok(&["lookup", "--batch", &td("cli/queries.jsonl"), "--from", "en", "--to", "de", "--json"]);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 6);
    let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["exact", "code", "fuzzy", "notation", "runs", "none"]);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["line"], i + 1);
        assert!(l["micros"].is_u64());
    }
    let best = |i: usize| lines[i]["matches"][0].clone();
    assert_eq!((best(0)["entry_id"].clone(), best(0)["score"].clone()), (56.into(), 1.0.into()));
    assert_eq!(best(1)["adapted_target"]["text"], "Server unterstützt %d");
    assert_eq!(best(2)["entry_id"], 49);
    assert_eq!(best(3)["target"]["text"], "Enkoder kann nicht gefunden werden: %s");
    assert_eq!(best(4)["target"]["text"], "Tabellenname");
    assert_eq!(lines[5]["matches"], serde_json::json!([]));
    let err = r.stderr();
    assert!(err.starts_with("6 queries, 5 with a match, 0 failed in "), "{err}");
    for p in ["p50 ", "p95 ", "p99 "] {
        assert!(err.contains(p), "{err}");
    }
}

#[test]
fn lookup_batch_reports_bad_lines_and_goes_on() {
    let d = Dir::with_sample();
    let mut child = d
        .cmd(&["lookup", "--batch", "-", "--from", "en", "--to", "de"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"{\"query\":\"Table Name\"}\nnot json\n\n{\"q\":1}\n").unwrap();
    let r = Run(child.wait_with_output().unwrap());
    assert_eq!(r.code(), 3);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["matches"][0]["target"]["text"], "Tabellenname");
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].as_str().unwrap().starts_with("invalid JSON"));
    assert_eq!(lines[2]["line"], 4);
    assert_eq!(lines[2]["error"], "no \"query\", \"notation\" or \"runs\" field");
    assert!(r
        .stderr()
        .contains("cmem: lookup --batch -: 2 of 3 queries failed; the first, line 2: invalid JSON"));
}

// ---- search, keys, versions, stats, schema ----

#[test]
fn search_ranks_and_highlights() {
    let d = Dir::with_sample();
    let r = d.ok(&["search", "directory", "--lang", "en", "--limit", "2"]);
    assert_eq!(
        r.stdout(),
        "entry 110  Local &[directory]:\n  de     Lokales &Verzeichnis:\n\n\
         entry 49  failed to remove [directory] {%s}\n  de     konnte Verzeichnis %s nicht entfernen\n"
    );
    let r = d.ok(&["search", "Verzeichnis", "--lang", "de", "--json"]);
    let hits = r.json_lines();
    let ids: Vec<i64> = hits.iter().map(|h| h["entry_id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [110, 49, 60, 35]);
    assert!(hits.iter().all(|h| h["snippet"].as_str().unwrap().contains("[Verzeichnis]")));
    assert!(hits.windows(2).all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64()));
    assert_eq!(hits[0]["translations"][0]["locale"], "en");
    let r = d.run(&["search", "zzzzqqq", "--lang", "en"]);
    assert_eq!(r.code(), 1);
    assert_eq!(r.stdout(), "");
}

#[test]
fn keys_of_one_and_two_segments() {
    let d = Dir::new();
    let r = d.ok(&["keys", "Click <b>here</b> to open %s"]);
    assert_eq!(
        r.stdout(),
        "notation     Click {1 type=\"x-html-b\" data=\"<b>\"}here{/1 type=\"x-html-b\" data=\"</b>\"} to open \
         {2/ type=\"printf\" equiv=\"%s\" data=\"%s\"}\n\
         plain        Click here to open {%s}\n\
         structural   Click {1}here{/1} to open {2/}\n\
         generalized  Click {1}here{/1} to open {2/}\n"
    );
    let r =
        d.ok(&["keys", "--notation", "{PERSON:John} works at {ORGANIZATION:Acme}", "Alice works at Globex"]);
    assert_eq!(
        r.stdout(),
        "notation     {PERSON:John} works at {ORGANIZATION:Acme}\n             Alice works at Globex\n\
         plain        {John} works at {Acme}\n             Alice works at Globex  (50%)\n\
         structural   {1/} works at {2/}\n             Alice works at Globex  (47.6%)\n\
         generalized  {PERSON} works at {ORGANIZATION}\n             Alice works at Globex  (34.4%)\n"
    );
    let r = d.ok(&["keys", "--json", "--notation", "{PERSON:John} works", "{PERSON:Ann} works"]);
    let v = &r.json_lines()[0];
    assert_eq!(v["segments"][1]["plain"], "{Ann} works");
    assert_eq!(v["similarity"]["generalized"], 1.0);
    assert!(!d.path("cmem.db").exists(), "keys needs no memory");
}

#[test]
fn versions_newest_first_and_by_point() {
    let d = Dir::new();
    d.ok(&["import", "-q", &td("cli/versions.jsonl")]);
    let r = d.ok(&["versions", "--unit", "intro.title"]);
    assert_eq!(
        r.stdout(),
        "entry 3  point web  created 2025-02-03T08:30:00Z  fingerprint c3  project site\n  \
         en     Welcome to cmem\n  de     Willkommen bei cmem\n\n\
         entry 2  point web/eu  created 2024-06-01T12:00:00Z  fingerprint b2  project site\n  \
         en     Welcome!\n  de     Willkommen!\n\n\
         entry 1  point web  created 2024-01-10T09:00:00Z  fingerprint a1  project site\n  \
         en     Welcome\n  de     Willkommen\n"
    );
    let r = d.ok(&["versions", "--unit", "intro.title", "--point", "web", "--json"]);
    let ids: Vec<i64> = r.json_lines().iter().map(|v| v["entry_id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [3, 1]);
    let r = d.ok(&["versions", "--unit", "intro.title", "--limit", "1", "--json"]);
    assert_eq!(r.json_lines().len(), 1);
    assert_eq!(d.ok(&["versions", "--unit", "no.such.unit"]).stdout(), "");
}

#[test]
fn stats_counts_pairs() {
    let d = Dir::with_sample();
    d.ok(&["import", "-q", &td("tmx/tico-19__slice40.en-zh.tmx")]);
    let r = d.ok(&["stats"]);
    let out = r.stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "memory    cmem.db");
    assert_eq!(lines[1], "entries   233");
    assert_eq!(lines[2], "variants  466");
    assert!(lines[3].starts_with("size      ") && lines[3].ends_with("KiB"), "{out}");
    assert_eq!(&lines[4..], ["pairs", "  en → de        193", "  en → zh         40"]);
    let v = &d.ok(&["stats", "--json"]).json_lines()[0];
    assert_eq!(v["entries"], 233);
    assert_eq!(v["pairs"][1], serde_json::json!({"source": "en", "target": "zh", "entries": 40}));
    assert!(v["size_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn schema_in_both_dialects_needs_no_memory() {
    let d = Dir::new();
    let sqlite = d.ok(&["schema"]).stdout();
    assert!(sqlite.starts_with("-- migration 1: "), "{sqlite}");
    assert!(sqlite.contains("CREATE VIRTUAL TABLE tm_variant_trigram"), "{sqlite}");
    let pg = d.ok(&["schema", "--dialect", "postgres"]).stdout();
    assert!(pg.contains("pg_trgm"), "{pg}");
    assert_ne!(sqlite, pg);
    assert_eq!(d.run(&["schema", "--dialect", "oracle"]).code(), 2);
    assert!(!d.path("cmem.db").exists());
}

// ---- export ----

/// Every entry of the memory in `dir`, as the lossless JSON Lines export.
fn dump(d: &Dir, memory: &str) -> String {
    d.ok(&["--memory", memory, "export", "--format", "jsonl", "-o", "-", "-q"]).stdout()
}

#[test]
fn export_import_round_trips_in_every_format() {
    let d = Dir::with_sample();
    d.ok(&["import", "-q", &td("cli/versions.jsonl"), &td("tmx/cmem-features.tmx")]);
    let original = dump(&d, "cmem.db");
    assert_eq!(original.lines().count(), 199);
    for (file, lossless) in
        [("out.kmb", true), ("out.jsonl.gz", true), ("out.tmx", true), ("out1.tmx", false)]
    {
        let mut args = vec!["export", "-o", file];
        if !lossless {
            args.extend(["--format", "tmx1"]);
        }
        let r = d.ok(&args);
        assert!(
            r.stderr().starts_with(&format!("exported 199 entries from cmem.db to {file} in ")),
            "{}",
            r.stderr()
        );
        let copy = format!("{file}.db");
        d.ok(&["--memory", &copy, "import", "-q", file]);
        let back = dump(&d, &copy);
        if lossless {
            assert_eq!(back, original, "{file}");
        } else {
            // Level 1 drops the codes: a segment of codes alone comes back blank, a
            // problem rather than an entry.
            assert_eq!(back.lines().count(), 198);
            assert_ne!(back, original, "level 1 drops the codes");
        }
    }
    assert!(std::fs::read_dir(&d.0).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_str()
        .unwrap()
        .contains(".tmp")));
}

/// The format flags of a PO message decided its recognition (`no-c-format`: `%delta:`
/// is text, not printf `%d` + `elta:`); the decision travels with the entry through
/// every export format, and importing the export again finds the same entries.
#[test]
fn po_format_flags_survive_export_and_import_in_every_format() {
    let d = Dir::new();
    std::fs::write(
        d.path("de.po"),
        "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Language: de\\n\"\n\n\
         #, no-c-format\nmsgid \"%delta: value\"\nmsgstr \"%delta: Wert\"\n\n\
         #, c-format\nmsgid \"%d files\"\nmsgstr \"%d Dateien\"\n\n\
         #, python-brace-format\nmsgid \"{n}%d\"\nmsgstr \"{n}%d\"\n",
    )
    .unwrap();
    d.ok(&["import", "-q", "de.po"]);
    let original = dump(&d, "cmem.db");
    assert!(original.contains(r#"[{"text":"%delta: value"}]"#), "{original}");
    let files = ["out.tmx", "out.kmb", "out.jsonl"];
    for file in files {
        d.ok(&["export", "-q", "-o", file]);
    }
    for file in files {
        let r = d.ok(&["import", file]);
        assert!(
            r.stderr().contains(": 3 read, 0 written, 3 deduplicated, 0 problems in "),
            "{file}: {}",
            r.stderr()
        );
        let copy = format!("{file}.db");
        d.ok(&["--memory", &copy, "import", "-q", file]);
        assert_eq!(dump(&d, &copy), original, "{file}");
    }
}

#[test]
fn export_filters_by_locale() {
    let d = Dir::with_sample();
    d.ok(&["import", "-q", &td("tmx/tico-19__slice40.en-zh.tmx")]);
    let r = d.ok(&["export", "--from", "en", "--to", "zh", "--format", "jsonl", "-o", "-"]);
    assert_eq!(r.stdout().lines().count(), 40);
    assert!(r.stderr().starts_with("exported 40 entries from cmem.db to <stdout> in "));
}

#[test]
fn export_to_a_closed_pipe_is_not_an_error() {
    let d = Dir::with_sample();
    let mut child =
        d.cmd(&["export", "-o", "-"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // The reader goes away at once, as `head -c0` would.
    drop(child.stdout.take());
    let r = Run(child.wait_with_output().unwrap());
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stderr(), "");
}

// ---- usage errors, the memory's location, help ----

#[test]
fn usage_errors_exit_2() {
    let d = Dir::with_sample();
    let r = d.run(&["lookup", "x", "--from", "en!!", "--to", "de"]);
    assert_eq!(r.code(), 2);
    assert!(r
        .stderr()
        .starts_with("error: invalid value 'en!!' for '--from <LOCALE>': invalid locale \"en!!\""));
    let r = d.run(&["lookup", "x", "--from", "en", "--to", "de", "--threshold", "150"]);
    assert_eq!(r.code(), 2);
    assert!(r
        .stderr()
        .starts_with("error: invalid value '150' for '--threshold <PERCENT>': 150 is outside 0–100"));
    let r = d.run(&["lookup", "x", "--from", "en", "--to", "de", "--point", "a//b"]);
    assert_eq!(r.code(), 2);
    assert_eq!(d.run(&["lookup", "--from", "en", "--to", "de"]).code(), 2);
    assert_eq!(d.run(&["frobnicate"]).code(), 2);
    assert_eq!(d.run(&["export"]).code(), 2);
    let r = d.run(&[
        "import",
        "--recognize",
        "printf,nope",
        "--from",
        "en",
        "--to",
        "de",
        &td("cli/sample.jsonl"),
    ]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().starts_with("cmem: --recognize: recognizer: unknown rule set \"nope\""),
        "{}",
        r.stderr()
    );
}

/// Each of `commands`, in an empty directory, fails with exit code 3 and the "no memory"
/// message, and creates nothing.
fn assert_each_needs_an_existing_memory(commands: &[&[&str]]) {
    let d = Dir::new();
    for args in commands {
        let r = d.run(args);
        assert_eq!(r.code(), 3, "{args:?}");
        assert_eq!(
            r.stderr(),
            "cmem: no memory at cmem.db (create one with `cmem import FILE`, or name one with --memory or \
             $CMEM_MEMORY)\n"
        );
    }
    assert_eq!(std::fs::read_dir(&d.0).unwrap().count(), 0, "nothing was created");
}

#[test]
fn read_commands_need_an_existing_memory() {
    assert_each_needs_an_existing_memory(&[
        &["lookup", "x", "--from", "en", "--to", "de"][..],
        &["search", "x", "--lang", "en"],
        &["stats"],
        &["versions", "--unit", "u"],
        &["export", "-o", "out.tmx"],
    ]);
}

#[test]
fn memory_from_flag_then_environment_then_default() {
    let d = Dir::new();
    d.ok(&["--memory", "flag.db", "import", "-q", &td("cli/versions.jsonl")]);
    let env = d
        .cmd(&["import", "-q", &td("tmx/okapi__sample14b.tmx")])
        .env("CMEM_MEMORY", d.path("env.db"))
        .output()
        .unwrap();
    assert!(env.status.success());
    let entries = |args: &[&str], env: Option<&Path>| -> Value {
        let mut c = d.cmd(args);
        if let Some(e) = env {
            c.env("CMEM_MEMORY", e);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["entries"].clone()
    };
    assert_eq!(entries(&["--memory", "flag.db", "stats", "--json"], None), 4);
    assert_eq!(entries(&["stats", "--json"], Some(&d.path("env.db"))), 24);
    // The flag wins over the environment.
    assert_eq!(entries(&["stats", "--json", "-m", "flag.db"], Some(&d.path("env.db"))), 4);
    assert!(!d.path("cmem.db").exists());
}

#[test]
fn every_command_has_help_with_an_example() {
    let d = Dir::new();
    let top = d.ok(&["--help"]).stdout();
    assert!(top.contains("Exit status: 0 success; 1 `lookup` or `search` found nothing; 2 usage error"));
    for cmd in ["import", "export", "lookup", "search", "keys", "versions", "stats", "schema"] {
        let help = d.ok(&[cmd, "--help"]).stdout();
        assert!(help.contains("Examples:\n  cmem "), "{cmd}: {help}");
        assert!(top.contains(&format!("  {cmd} ")), "{cmd} listed in the top-level help");
    }
    let lookup = d.ok(&["lookup", "--help"]).stdout();
    assert!(
        lookup.contains("Exit status: 0 when a match was found (batch: for some query), 1 when none was.")
    );
}

// ---- recycle and analyze ----

/// English → French pairs for the XLIFF test files: exact for some of their segments,
/// near for others.
const EN_FR: &str = r#"{"source": "Text number 1", "target": "Texte numéro 1"}
{"source": "Text number four.", "target": "Texte numéro quatre."}
{"source": "Bolded text", "target": "Texte en gras"}
{"source": "Extra stuff", "target": "Autres choses"}
{"source": "Extra stuffing", "target": "Plus de farce"}
"#;

impl Dir {
    /// A memory with [`EN_FR`] imported.
    fn with_en_fr() -> Dir {
        let d = Dir::new();
        std::fs::write(d.path("en-fr.jsonl"), EN_FR).unwrap();
        d.ok(&["import", "-q", "--from", "en", "--to", "fr", "en-fr.jsonl"]);
        d
    }
}

/// The segments of an XLIFF file, parsed again: (unit id, source, target) as text.
fn xliff_segments(path: &Path) -> Vec<(String, String, Option<String>)> {
    let doc = cmem::formats::XliffDocument::parse(std::fs::read(path).unwrap(), "out").unwrap();
    doc.segments()
        .iter()
        .map(|s| {
            let text = cmem::surface_text;
            (s.unit_id.clone(), text(&s.source), s.target.as_deref().map(text))
        })
        .collect()
}

#[test]
fn recycle_xliff12_fills_exact_targets_and_adds_candidates() {
    let d = Dir::with_en_fr();
    let input = td("xliff12/okapi__Manual-12-AltTrans.xlf");
    let r = d.ok(&["recycle", &input, "-o", "out.xlf"]);
    assert_eq!(r.stdout(), "");
    assert!(
        r.stderr().starts_with(&format!(
            "recycled {input} into out.xlf: 7 segments, 1 filled (1 exact), 1 with candidates, 2 untouched, \
             3 skipped in "
        )),
        "{}",
        r.stderr()
    );
    let out = std::fs::read_to_string(d.path("out.xlf")).unwrap();
    assert!(out.contains(
        r#"<source xml:lang="en">Text number 1</source>
      <target xml:lang="fr" state="translated" state-qualifier="exact-match">Texte numéro 1</target>"#
    ));
    // 94 is below the fill threshold (95): a candidate, not a target; the stored source's
    // final full stop, which the segment lacks, is taken off its target (a repair), so the
    // pair is the segment's source with that target, labelled.
    assert!(out.contains(
        r#"<alt-trans match-quality="94" origin="cmem" alttranstype="proposal"><source xml:lang="en">Text number four</source><target xml:lang="fr">Texte numéro quatre</target><note>cmem: adapted to this source (punctuation)</note></alt-trans>"#
    ), "{out}");
    let segments = xliff_segments(&d.path("out.xlf"));
    let target = |id: &str| segments.iter().find(|s| s.0 == id).unwrap().2.clone();
    assert_eq!(target("1").as_deref(), Some("Texte numéro 1"));
    assert_eq!(target("4"), None);
    // The translator's own target is kept.
    assert_eq!(target("2").as_deref(), Some("Texte numéro 2."));

    // A lower fill threshold fills the near match too, marked for review; --quiet
    // drops the summary.
    let r = d.ok(&["recycle", "-q", &input, "-o", "low.xlf", "--fill-threshold", "90"]);
    assert_eq!(r.stderr(), "");
    let low = std::fs::read_to_string(d.path("low.xlf")).unwrap();
    assert!(low.contains(
        r#"<target xml:lang="fr" state="needs-review-translation" state-qualifier="fuzzy-match">Texte numéro quatre</target>"#
    ));
    // --fuzzy-threshold 95 leaves no candidates.
    let r = d.ok(&["recycle", &input, "-o", "strict.xlf", "--fuzzy-threshold", "95"]);
    assert!(r
        .stderr()
        .contains(": 7 segments, 1 filled (1 exact), 0 with candidates, 3 untouched, 3 skipped"));
    assert!(!std::fs::read_to_string(d.path("strict.xlf")).unwrap().contains("origin=\"cmem\" alttranstype"));
}

#[test]
fn recycle_fills_an_ambiguous_segment_only_with_a_dominant_answer() {
    let d = Dir::new();
    // "Step" approved as "Schritt" in two imports, as "Schwellenwert" in one.
    std::fs::write(d.path("a.jsonl"), "{\"source\": \"Step\", \"target\": \"Schritt\"}\n").unwrap();
    std::fs::write(d.path("b.jsonl"), "{\"source\": \"Step\", \"target\": \"Schwellenwert\"}\n").unwrap();
    for file in ["a.jsonl", "a.jsonl", "b.jsonl"] {
        d.ok(&["import", "-q", "--from", "en", "--to", "de", file]);
    }
    std::fs::write(
        d.path("in.xlf"),
        "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n\
<trans-unit id=\"1\"><source>Step</source></trans-unit>\n</body></file></xliff>",
    )
    .unwrap();
    let r = d.ok(&["recycle", "in.xlf", "-o", "never.xlf"]);
    assert!(r.stderr().contains("0 filled (0 exact), 1 with candidates"), "{}", r.stderr());
    let r = d.ok(&["recycle", "in.xlf", "-o", "dominant.xlf", "--fill-ambiguous", "dominant"]);
    assert!(
        r.stderr().contains("1 filled (0 exact)")
            && r.stderr().ends_with("; 1 fill is the dominant of ambiguous answers (marked for review)\n"),
        "{}",
        r.stderr()
    );
    let out = std::fs::read_to_string(d.path("dominant.xlf")).unwrap();
    assert!(
        out.contains(r#"<target xml:lang="de" state="needs-review-translation" state-qualifier="leveraged-tm">Schritt</target>"#),
        "{out}"
    );
    let r = d.run(&["recycle", "in.xlf", "-o", "x.xlf", "--fill-ambiguous", "always"]);
    assert_eq!(r.code(), 2, "{}", r.stderr());
}

#[test]
fn recycle_xliff2_with_json_report_and_in_place() {
    let d = Dir::with_en_fr();
    std::fs::copy(testdata("xliff2/oasis-xliff22__everything-core.xlf"), d.path("doc.xlf")).unwrap();
    let r = d.ok(&["recycle", "doc.xlf", "-o", "doc.xlf", "--json"]);
    assert_eq!(r.stderr(), "");
    let report = &r.json_lines()[0];
    for (field, value) in [
        ("segments", 5),
        ("filled", 2),
        ("filled_exact", 2),
        ("with_candidates", 0),
        ("untouched", 1),
        ("skipped", 2),
        ("codes_dropped", 0),
    ] {
        assert_eq!(report[field], value, "{field}: {report}");
    }
    assert_eq!(report["input"], "doc.xlf");
    assert_eq!(report["output"], "doc.xlf");
    assert!(report["micros"].is_u64());
    let out = std::fs::read_to_string(d.path("doc.xlf")).unwrap();
    assert!(
        out.contains(r#" xmlns:mtc="urn:oasis:names:tc:xliff:matches:2.0">"#),
        "the mtc namespace is declared"
    );
    assert!(out.contains(r#"<segment id="1" state="translated">"#));
    assert!(out.contains(
        r##"<mtc:match id="cmem-3-1" ref="#1" similarity="78" matchQuality="78" origin="cmem" type="tm"><source>Extra stuffing</source><target>Plus de farce</target></mtc:match>"##
    ));
    let segments = xliff_segments(&d.path("doc.xlf"));
    let target = |id: &str| segments.iter().find(|s| s.0 == id).unwrap().2.clone();
    assert_eq!(target("tu3").as_deref(), Some("Texte en gras"));
    assert_eq!(target("tu3end").as_deref(), Some("Autres choses"));
    assert_eq!(target("tu1").as_deref(), Some("Exemple de segment."));
    // (A read-only reader leaves SQLite's `-wal` and `-shm` beside the memory: it may not
    // remove them. They are not counted.)
    let files = std::fs::read_dir(&d.0)
        .unwrap()
        .filter(|e| !e.as_ref().unwrap().file_name().to_string_lossy().starts_with("cmem.db-"))
        .count();
    assert_eq!(files, 3, "no temporary file is left: {:?}", d.0);

    // To standard output, the document; the summary still on stderr.
    let r = d.ok(&["recycle", &td("xliff2/oasis-xliff22__everything-core.xlf"), "-o", "-"]);
    assert_eq!(r.stdout(), out);
    assert!(r.stderr().starts_with(&format!(
        "recycled {} into <stdout>: 5 segments, 2 filled (2 exact)",
        td("xliff2/oasis-xliff22__everything-core.xlf")
    )));
    // From standard input.
    let mut child = d
        .cmd(&["recycle", "-q", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let original = std::fs::read(testdata("xliff2/oasis-xliff22__everything-core.xlf")).unwrap();
    child.stdin.take().unwrap().write_all(&original).unwrap();
    let r = Run(child.wait_with_output().unwrap());
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stdout(), out);
}

#[test]
fn recycle_with_nothing_to_match_copies_every_byte() {
    // The en → de sample memory holds nothing like these documents.
    let d = Dir::with_sample();
    for (file, summary) in [
        (
            "xliff12/okapi__TS09-12-Test01.xlf",
            "45 segments, 0 filled (0 exact), 0 with candidates, 18 untouched, 27 skipped",
        ),
        (
            "xliff2/matecat__pcec.xlf",
            "21 segments, 0 filled (0 exact), 0 with candidates, 18 untouched, 3 skipped",
        ),
    ] {
        let r = d.ok(&["recycle", &td(file), "-o", "out.xlf", "--to", "de"]);
        assert!(r.stderr().contains(summary), "{file}: {}", r.stderr());
        assert_eq!(
            std::fs::read(d.path("out.xlf")).unwrap(),
            std::fs::read(testdata(file)).unwrap(),
            "{file}"
        );
    }
}

/// XML 1.0 forbids C0 controls but tab, line feed and carriage return, raw or as
/// references: OmegaT's and Okapi's ill-formed test documents are refused by both
/// commands with file, line and column, and nothing is stored or written.
#[test]
fn ill_formed_xliff_is_refused_by_import_and_recycle() {
    let d = Dir::with_sample();
    let before = d.ok(&["stats", "--json"]).stdout();
    for (file, place, what) in [
        ("invalid/okapi__invalid_xml_entity.xlf", "line 8, column 29", "U+0003"),
        ("invalid/control-char-in-target.xlf", "line 7, column 23", "U+0008"),
    ] {
        let path = td(file);
        let r = d.run(&["import", &path]);
        assert_eq!(r.code(), 3, "{}", r.stderr());
        assert_eq!(
            r.stderr(),
            format!("cmem: import {path}: {place}: {what} is not allowed in an XML 1.0 document\n")
        );
        std::fs::write(d.path("out.xlf"), "before").unwrap();
        let r = d.run(&["recycle", &path, "-o", "out.xlf"]);
        assert_eq!(r.code(), 3, "{}", r.stderr());
        assert_eq!(
            r.stderr(),
            format!("cmem: recycle {path}: {place}: {what} is not allowed in an XML 1.0 document\n")
        );
        assert_eq!(std::fs::read_to_string(d.path("out.xlf")).unwrap(), "before");
    }
    assert_eq!(d.ok(&["stats", "--json"]).stdout(), before, "nothing stored");
}

#[test]
fn recycle_errors_are_located_and_write_nothing() {
    let d = Dir::with_en_fr();
    for (file, message) in [
        ("invalid/oasis-xliff22__bad_EcBeforeSc.xlf", r#"line 6, column 5: <ec startRef="1"> comes before its <sc id="1">"#),
        (
            "invalid/oasis-xliff22__Good-pgs_plural.xlf",
            "line 20, column 3: malformed XML: ill-formed document: expected `</target>`, but `</unit>` was found",
        ),
        ("invalid/microsoft-xliff2om__EmptyFile.xlf", "line 1, column 1: no root element (empty document)"),
    ] {
        let r = d.run(&["recycle", &td(file), "-o", "out.xlf"]);
        assert_eq!(r.code(), 3, "{file}");
        assert_eq!(r.stderr(), format!("cmem: recycle {}: {message}\n", td(file)));
        assert_eq!(r.stdout(), "");
        assert!(!d.path("out.xlf").exists(), "{file}: no output");
        let r = d.run(&["recycle", &td(file), "-o", "-"]);
        assert_eq!((r.code(), r.stdout()), (3, String::new()), "{file}: nothing on stdout");
    }
    // An existing output is left as it was.
    std::fs::write(d.path("out.xlf"), "before").unwrap();
    let r = d.run(&["recycle", &td("invalid/oasis-xliff22__bad_NoTrgLang.xlf"), "-o", "out.xlf"]);
    assert_eq!(r.code(), 3);
    assert_eq!(std::fs::read_to_string(d.path("out.xlf")).unwrap(), "before");
    let r = d.run(&["recycle", "missing.xlf", "-o", "out.xlf"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().starts_with("cmem: recycle missing.xlf: cannot read: "), "{}", r.stderr());
    // A document without a target language names the option that gives one.
    let pas = td("xliff12/okapi__PAS-10-Test01.xlf");
    let r = d.run(&["recycle", &pas, "-o", "out.xlf"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().starts_with(&format!("cmem: recycle {pas}: line 9, column 1: ")), "{}", r.stderr());
    assert!(
        r.stderr().ends_with(": the document names no target language; give one with --to\n"),
        "{}",
        r.stderr()
    );
    assert_eq!(std::fs::read_to_string(d.path("out.xlf")).unwrap(), "before");
    let r = d.run(&["analyze", &pas]);
    assert!(r.stderr().ends_with("give one with --to\n"), "{}", r.stderr());
    let r = d.ok(&["recycle", &pas, "-o", "out.xlf", "--to", "fr"]);
    assert!(r
        .stderr()
        .contains(": 158 segments, 0 filled (0 exact), 0 with candidates, 137 untouched, 21 skipped"));
    // --json needs the document in a file: a usage error.
    let r = d.run(&["recycle", &td("xliff2/oasis-xliff22__everything-core.xlf"), "-o", "-", "--json"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().starts_with("error: --json prints the report on standard output"), "{}", r.stderr());
    assert_eq!(r.stdout(), "");
    let r = d.run(&["recycle", "x.xlf", "-o", "y.xlf", "--fill-threshold", "101"]);
    assert_eq!(r.code(), 2);
}

#[test]
fn analyze_prints_a_table_per_file_or_json_lines() {
    let d = Dir::with_en_fr();
    let (a, b) =
        (td("xliff12/okapi__Manual-12-AltTrans.xlf"), td("xliff2/oasis-xliff22__everything-core.xlf"));
    let r = d.ok(&["analyze", &a, &b]);
    assert_eq!(
        r.stdout(),
        format!(
            "{a}
band          segments     words characters  words%  weight   weighted
context              0         0          0    0.0%      0%        0.0
100%                 1         3         11   18.8%     25%        0.8
repetitions          1         2          9   12.5%     25%        0.5
95-99%               0         0          0    0.0%     50%        0.0
85-94%               3         9         36   56.2%     70%        6.3
75-84%               0         0          0    0.0%    100%        0.0
50-74%               0         0          0    0.0%    100%        0.0
no match             1         2          9   12.5%    100%        2.0
total                6        16         65  100.0%                9.6
(1 segment not translatable or without text)

{b}
band          segments     words characters  words%  weight   weighted
context              0         0          0    0.0%      0%        0.0
100%                 2         4         20   33.3%     25%        1.0
repetitions          0         0          0    0.0%     25%        0.0
95-99%               0         0          0    0.0%     50%        0.0
85-94%               0         0          0    0.0%     70%        0.0
75-84%               0         0          0    0.0%    100%        0.0
50-74%               0         0          0    0.0%    100%        0.0
no match             3         8         50   66.7%    100%        8.0
total                5        12         70  100.0%                9.0

total
band          segments     words characters  words%  weight   weighted
context              0         0          0    0.0%      0%        0.0
100%                 3         7         31   25.0%     25%        1.8
repetitions          1         2          9    7.1%     25%        0.5
95-99%               0         0          0    0.0%     50%        0.0
85-94%               3         9         36   32.1%     70%        6.3
75-84%               0         0          0    0.0%    100%        0.0
50-74%               0         0          0    0.0%    100%        0.0
no match             4        10         59   35.7%    100%       10.0
total               11        28        135  100.0%               18.6
(1 segment not translatable or without text)
"
        )
    );
    let lines = d.ok(&["analyze", "--json", &a, &b]).json_lines();
    // One line a file, then the grand total (the two documents share no segment).
    assert_eq!(lines.len(), 3);
    assert_eq!((lines[2]["file"].as_str(), lines[2]["segments"].as_u64()), (Some("total"), Some(11)));
    assert_eq!(lines[0]["file"], a.as_str());
    assert_eq!((lines[0]["segments"].as_u64(), lines[0]["words"].as_u64()), (Some(6), Some(16)));
    assert_eq!(lines[0]["skipped"], 1);
    let bands: Vec<(&str, u64, u64)> = lines[1]["bands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["band"].as_str().unwrap(), b["segments"].as_u64().unwrap(), b["words"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        bands,
        [
            ("context", 0, 0),
            ("exact", 2, 4),
            ("repetition", 0, 0),
            ("fuzzy95", 0, 0),
            ("fuzzy85", 0, 0),
            ("fuzzy75", 0, 0),
            ("fuzzy50", 0, 0),
            ("no_match", 3, 8)
        ]
    );
    // Another target locale: nothing stored for it, and a warning saying so, as lookup's.
    let r = d.ok(&["analyze", "--json", "--to", "de", &b]);
    assert_eq!(r.json_lines()[0]["bands"][7]["segments"], 5);
    assert_eq!(
        r.stderr(),
        format!("cmem: warning: analyze {b}: the memory holds no en → de entries (it holds en → fr)\n")
    );
    // The pair it holds: no warning.
    assert_eq!(d.ok(&["analyze", "--json", &b]).stderr(), "");
    // A bad file after a good one: the good one's report, then the located error.
    let bad = td("invalid/oasis-xliff22__bad_SegmentWithoutSource.xlf");
    let r = d.run(&["analyze", &b, &bad]);
    assert_eq!(r.code(), 3);
    assert!(r.stdout().starts_with(&format!("{b}\nband ")));
    assert_eq!(
        r.stderr(),
        format!("cmem: analyze {bad}: line 5, column 4: <segment> of unit \"1\" has no <source>\n")
    );
}

#[test]
fn recycle_and_analyze_need_an_existing_memory() {
    let input = td("xliff12/okapi__Manual-12-AltTrans.xlf");
    assert_each_needs_an_existing_memory(&[&["recycle", &input, "-o", "out.xlf"][..], &["analyze", &input]]);
}

#[test]
fn recycle_and_analyze_have_help_with_examples() {
    let d = Dir::new();
    let top = d.ok(&["--help"]).stdout();
    for cmd in ["recycle", "analyze"] {
        let help = d.ok(&[cmd, "--help"]).stdout();
        assert!(help.contains(&format!("Examples:\n  cmem {cmd} ")), "{cmd}: {help}");
        assert!(top.contains(&format!("  {cmd} ")), "{cmd} listed in the top-level help");
    }
    let recycle = d.ok(&["recycle", "--help"]).stdout();
    assert!(recycle.contains("--fill-threshold <PERCENT>"));
    assert!(recycle.contains("[default: 95]"));
}

#[test]
fn queries_use_the_recognizer_rules_the_memory_was_imported_with() {
    let d = Dir::new();
    d.ok(&["import", "-q", "--no-recognize", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    // No flag: the memory's recorded rules (none), so the literal `%s` matches exactly.
    let r = d.ok(&["lookup", "--json", "Server supports %s", "--from", "en", "--to", "de"]);
    let v: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    assert_eq!(v["matches"][0]["score"], 1.0, "{v}");
    assert_eq!(v["matches"][0]["percent"], 100.0, "{v}");
    assert!(r.stderr().is_empty(), "{}", r.stderr());
    // Other rules than the memory's: answered, with a warning that says why it may miss.
    let r = d.run(&["lookup", "--recognize", "printf", "Server supports %s", "--from", "en", "--to", "de"]);
    assert!(
        r.stderr().contains("warning: the memory was imported with recognizer rules \"none\""),
        "{}",
        r.stderr()
    );
    // A second import with other rules is stored, and warned about.
    let r = d.ok(&["import", "--from", "en", "--to", "de", &td("cli/versions.jsonl")]);
    assert!(r.stderr().contains("was imported with recognizer rules \"none\""), "{}", r.stderr());
}

#[test]
fn lookup_json_is_the_library_match_view_with_origins() {
    let d = Dir::with_sample();
    let r = d.ok(&["lookup", "--json", "Server supports %d", "--from", "en", "--to", "de"]);
    let v: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    let m = &v["matches"][0];
    for field in [
        "score",
        "percent",
        "match_type",
        "tier",
        "entry_id",
        "ambiguous",
        "point",
        "unit",
        "source",
        "target",
        "adapted_target",
        "origins",
        "approvals",
    ] {
        assert!(m.get(field).is_some(), "no {field} in {m}");
    }
    assert_eq!(m["approvals"], 1, "{m}");
    assert_eq!(m["adapted_target"]["text"].as_str().unwrap().matches("%d").count(), 1, "{m}");
}

#[test]
fn po_export_recycle_and_analyze_with_csv() {
    let d = Dir::with_sample();
    let po = d.path("de.po");
    let out = d.ok(&["export", "-o", po.to_str().unwrap(), "--from", "en", "--to", "de"]);
    assert!(out.stderr().contains("exported"), "{}", out.stderr());
    let text = std::fs::read_to_string(&po).unwrap();
    assert!(
        text.starts_with(
            "msgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: cmem export\\n\"\n\"Language: de\\n\""
        ),
        "{text}"
    );
    // The memory holds one pair: it is the catalog's without --from and --to, or with one.
    for given in [&[][..], &["--to", "de"][..], &["--from", "en"][..]] {
        let x = d.path("x.po");
        let mut args = vec!["export", "-q", "-o", x.to_str().unwrap()];
        args.extend_from_slice(given);
        d.ok(&args);
        assert_eq!(std::fs::read_to_string(&x).unwrap(), text, "{given:?}");
    }
    let refused = d.run(&["export", "-o", d.path("x.po").to_str().unwrap(), "--to", "fr"]);
    assert_eq!(refused.code(), 3);
    assert!(refused.stderr().contains("the memory holds none that fits"), "{}", refused.stderr());
    // With two pairs, it names them and asks.
    d.ok(&["import", "-q", &td("tmx/tico-19__slice40.en-zh.tmx")]);
    let refused = d.run(&["export", "-o", d.path("x.po").to_str().unwrap()]);
    assert_eq!(refused.code(), 3);
    assert!(
        refused.stderr().contains("the memory holds 2 (en → de, en → zh); give --from and --to"),
        "{}",
        refused.stderr()
    );
    // The exported catalog's first message, as a template, is filled back.
    let first_id = text.split("\nmsgid \"").nth(2).and_then(|s| s.split("\"\n").next()).unwrap().to_owned();
    let pot = d.path("messages.pot");
    std::fs::write(
        &pot,
        format!("msgid \"\"\nmsgstr \"\"\n\"Language: \\n\"\n\"Content-Type: text/plain; charset=CHARSET\\n\"\n\nmsgid \"{first_id}\"\nmsgstr \"\"\n"),
    )
    .unwrap();
    let filled = d.path("filled.po");
    d.ok(&["recycle", pot.to_str().unwrap(), "-o", filled.to_str().unwrap(), "--to", "de"]);
    let filled_text = std::fs::read_to_string(&filled).unwrap();
    assert!(
        filled_text.contains("\"Language: de\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\""),
        "{filled_text}"
    );
    assert!(!filled_text.ends_with("msgstr \"\"\n"), "{filled_text}");
    let csv = d.ok(&["analyze", "--csv", filled.to_str().unwrap(), po.to_str().unwrap()]).stdout();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "file,band,segments,words,words_percent,characters,weight,weighted_words");
    assert_eq!(lines.len(), 1 + 3 * 9, "{csv}");
    assert!(lines[lines.len() - 1].starts_with("total,total,"), "{csv}");
    assert!(lines.iter().any(|l| l.starts_with("total,repetitions,1,")), "{csv}");
    // Weblate's memory JSON by --format.
    let json = d.path("memory.json");
    d.ok(&["export", "-o", json.to_str().unwrap(), "--format", "weblate"]);
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(value[0]["source_language"], "en");
}

#[test]
fn properties_import_recycle_analyze_and_context() {
    let d = Dir::new();
    // A translated bundle is imported with its source beside it, paired by key.
    let r =
        d.ok(&["import", &td("properties/messages_de.properties"), &td("properties/messages_fr.properties")]);
    assert!(
        r.stderr()
            .starts_with("imported 2 files into cmem.db: 11 read, 11 written, 0 deduplicated, 0 problems"),
        "{}",
        r.stderr()
    );
    let r = d.ok(&[
        "lookup",
        "Delete {1} files?\nThis cannot be undone.",
        "--from",
        "en",
        "--to",
        "de",
        "--json",
    ]);
    let m = &r.json_lines()[0]["matches"][0];
    assert_eq!(
        m["adapted_target"]["text"], "{1} Dateien löschen?\nDas kann nicht rückgängig gemacht werden.",
        "{m}"
    );

    // The next release: the target language from -o's name, fills escaped as the ASCII
    // source needs, comments, order and the continuation's key kept.
    std::fs::copy(testdata("properties/release-1.1/messages.properties"), d.path("messages.properties"))
        .unwrap();
    let out = d.path("messages_de.properties");
    let r = d.ok(&["recycle", "messages.properties", "-o", "messages_de.properties"]);
    assert!(
        r.stderr().contains("7 segments, 5 filled (5 exact), 1 with candidates, 1 untouched, 0 skipped"),
        "{}",
        r.stderr()
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let origin = testdata("properties/messages_de.properties").display().to_string();
    assert_eq!(
        text.replace(&origin, "DE"),
        "# Messages of a small file manager, release 1.1 (written for cmem's tests).\n\
         # cmem: context match (DE)\n\
         app.title = Dateiverwaltung\n\
         \n\
         # The main menu\n\
         # cmem: context match (DE)\n\
         menu.open = {0} \\u00F6ffnen\n\
         # cmem: fuzzy, 92% match (DE)\n\
         menu.save = Datei speichern\n\
         # cmem: untranslated\n\
         menu.print = Print the document\n\
         # cmem: context match (DE)\n\
         menu.quit: Beenden\n\
         # cmem: context match (DE)\n\
         dialog.delete = {0} Dateien l\\u00F6schen?\\nDas kann nicht r\\u00FCckg\\u00E4ngig gemacht werden.\n\
         # cmem: context match (DE)\n\
         status.copied = {0,number,integer} Dateien nach {1} kopiert\n"
    );
    // crates/cmem-cli/README.md shows the same file.
    let readme = std::fs::read_to_string(testdata("../crates/cmem-cli/README.md")).unwrap();
    let shown = readme.split("`messages_de.properties` then reads:\n\n```properties\n").nth(1).unwrap();
    let shown = shown.split("```").next().unwrap();
    assert_eq!(
        text.replace(&origin, "DE"),
        shown.replace("testdata/properties/messages_de.properties", "DE"),
        "crates/cmem-cli/README.md shows another bundle than recycle writes"
    );
    // The fill to review and the untranslated key stay out of the memory until a
    // translator removes their line.
    let r = d.ok(&["import", "messages_de.properties"]);
    assert!(r.stderr().contains(": 5 read, 0 written, 5 deduplicated"), "{}", r.stderr());
    std::fs::remove_file(d.path("messages.properties")).unwrap();
    let r = d.run(&["import", "messages_de.properties"]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().contains(
            "its source bundle is not beside it (no messages.properties, no messages_en.properties)"
        ),
        "{}",
        r.stderr()
    );
    // An output naming another format, and a source with no target language, are refused.
    let r = d.run(&["recycle", &td("properties/release-1.1/messages.properties"), "-o", "x.po"]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().contains("-o x.po names a gettext PO file, but recycle writes a Java properties file"),
        "{}",
        r.stderr()
    );
    let r = d.run(&["recycle", &td("properties/release-1.1/messages.properties"), "-o", "-"]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().ends_with("a source bundle names no target language; give one with --to\n"),
        "{}",
        r.stderr()
    );

    // Leverage, and the producer's context of every value.
    let r = d.ok(&["analyze", &td("properties/release-1.1/messages.properties"), "--to", "de", "--json"]);
    let a = &r.json_lines()[0];
    assert_eq!((a["segments"].as_u64(), a["skipped"].as_u64()), (Some(7), Some(0)), "{a}");
    let r = d.ok(&[
        "context",
        "--file",
        &td("properties/release-1.1/messages.properties"),
        "--from",
        "en",
        "--to",
        "de",
    ]);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 7);
    assert_eq!(
        (lines[1]["unit"].as_str(), lines[1]["line"].as_u64()),
        (Some("menu.open"), Some(5)),
        "{}",
        lines[1]
    );

    // A base bundle has no translations to import; standard input has no source beside it.
    let r = d.run(&["import", &td("properties/messages.properties")]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().contains("the name gives no language (as messages_de.properties would)"),
        "{}",
        r.stderr()
    );
    let r = d.run(&["import", "--format", "properties", "-"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("import it from its file"), "{}", r.stderr());
}

#[test]
fn a_bad_properties_escape_is_located_with_its_fix() {
    let d = Dir::new();
    std::fs::write(d.path("ui.properties"), "title = Files\nopen = Open {0}\n").unwrap();
    std::fs::write(d.path("ui_de.properties"), "title = Dateien\nopen = {0} \\u00g6ffnen\n").unwrap();
    // Import: the line is a problem, listed as FILE:LINE:COLUMN; the rest is imported.
    let r = d.ok(&["import", "ui_de.properties"]);
    assert!(
        r.stderr().starts_with(
            "ui_de.properties:2:12: \"\\u00g\" is not a Unicode escape: \\u takes four hexadecimal digits \
             (\\u00E9 for é); write the character itself or complete the escape, or write \\\\u for a \
             backslash followed by u\n"
        ),
        "{}",
        r.stderr()
    );
    assert!(r.stderr().contains("1 read, 1 written, 0 deduplicated, 1 problem"), "{}", r.stderr());
    let r = d.run(&["import", "--strict", "ui_de.properties"]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().starts_with("cmem: import ui_de.properties: line 2, column 12: \"\\u00g\" is not"),
        "{}",
        r.stderr()
    );
    // Recycle refuses the file and writes nothing.
    std::fs::write(d.path("bad.properties"), "ok = Fine\n\nbroken = caf\\u00e\n").unwrap();
    let r = d.run(&["recycle", "bad.properties", "-o", "bad_de.properties"]);
    assert_eq!(r.code(), 3);
    assert_eq!(
        r.stderr(),
        "cmem: recycle bad.properties: line 3, column 13: \"\\u00e\" is not a Unicode escape: \\u takes \
         four hexadecimal digits (\\u00E9 for é); write the character itself or complete the escape, or \
         write \\\\u for a backslash followed by u\n"
    );
    assert!(!d.path("bad_de.properties").exists());
}

#[test]
fn a_regional_memory_fills_another_region_one_point_down() {
    let d = Dir::new();
    d.ok(&["import", "--from", "en-US", "--to", "de-DE", &td("cli/sample.jsonl")]);
    let pot = d.path("messages.pot");
    std::fs::write(&pot, "msgid \"\"\nmsgstr \"\"\n\nmsgid \"Automatic\"\nmsgstr \"\"\n").unwrap();
    let filled = d.path("de_CH.po");
    d.ok(&["recycle", pot.to_str().unwrap(), "-o", filled.to_str().unwrap(), "--to", "de-CH"]);
    let text = std::fs::read_to_string(&filled).unwrap();
    assert!(text.contains("msgid \"Automatic\"\nmsgstr \"Automatisch\""), "{text}");
    let r = d.ok(&["lookup", "Automatic", "--from", "en", "--to", "de-CH"]);
    assert!(r.stdout().starts_with("99  "), "{}", r.stdout());
    assert!(
        r.stdout().contains("penalty  -1: another region of the language asked for (en-US → de-DE)"),
        "{}",
        r.stdout()
    );
}

#[test]
fn weblate_json_is_imported_by_its_content() {
    let d = Dir::new();
    d.ok(&["import", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    let json = d.path("memory.json");
    d.ok(&["export", "-o", json.to_str().unwrap(), "--format", "weblate"]);
    // Back into a new memory with no --format: the `.json` holds one array, Weblate's.
    let again = d.path("again.db");
    let r = d.ok(&["--memory", again.to_str().unwrap(), "import", json.to_str().unwrap()]);
    assert!(r.stderr().contains("193 read, 193 written"), "{}", r.stderr());
    let r = d.ok(&["--memory", again.to_str().unwrap(), "lookup", "Automatic", "--from", "en", "--to", "de"]);
    assert!(r.stdout().contains("Automatisch"), "{}", r.stdout());
    // Named as JSON Lines, it is one clear error naming what it looks like.
    let r =
        d.run(&["--memory", again.to_str().unwrap(), "import", "--format", "jsonl", json.to_str().unwrap()]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    assert!(r.stderr().contains("looks like Weblate's memory JSON"), "{}", r.stderr());
    assert_eq!(r.stderr().lines().count(), 1, "{}", r.stderr());
    // JSON Lines named as Weblate's JSON likewise.
    let r = d.run(&[
        "--memory",
        again.to_str().unwrap(),
        "import",
        "--format",
        "weblate",
        &td("cli/sample.jsonl"),
    ]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    assert!(r.stderr().contains("looks like JSON Lines"), "{}", r.stderr());
}

#[test]
fn import_reads_po_catalogs_and_translated_xliff_and_refuses_templates() {
    let d = Dir::new();
    let r = d.ok(&["import", &td("po/allauth-ar.po")]);
    assert!(r.stderr().contains("376 read, 376 written"), "{}", r.stderr());
    let r = d.ok(&["import", &td("xliff12/okapi__Manual-12-AltTrans.xlf")]);
    assert!(r.stderr().contains("written"), "{}", r.stderr());
    let pot = d.path("messages.pot");
    std::fs::write(&pot, "msgid \"\"\nmsgstr \"\"\n\nmsgid \"Open\"\nmsgstr \"\"\n").unwrap();
    let r = d.run(&["import", pot.to_str().unwrap()]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("template"), "{}", r.stderr());
}

/// Lines of the benchmark memory (real shipped translations) where the evidence decides.
const EVIDENCE: &str = r#"{"source": "Step", "target": "Schwellenwert", "origin": "libreoffice-l10n-de/sca"}
{"source": "Step", "target": "Schritt", "origin": "gnumeric-common/gnumeric-1.12.55"}
{"source": "Step", "target": "Schritt", "origin": "pretix-2024.10.0/pretix/django"}
{"source": "could not open file \"%s\": %m", "target": "konnte Datei »%s« nicht öffnen: %m"}
{"source": "could not open file \"%s\": %s", "target": "konnte Datei »%s« nicht öffnen: %s"}
{"source": "could not open file %s: %s", "target": "Datei %s konnte nicht geöffnet werden: %s"}
{"source": "Authentication failed:\n%s", "target": "Authentifizierung fehlgeschlagen:\n%s"}
{"source": "Access to project {project} was blocked", "target": "Der Zugriff auf das Projekt {project} wurde gesperrt"}
"#;

#[test]
fn fills_rank_by_evidence_and_exact_means_identical() {
    let d = Dir::new();
    std::fs::write(d.path("e.jsonl"), EVIDENCE).unwrap();
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "e.jsonl"]);
    let lookup = |text: &str| -> Value {
        let r = d.ok(&["lookup", "--json", "--from", "en", "--to", "de", "--", text]);
        serde_json::from_str(r.stdout().trim()).unwrap()
    };
    // Two differing answers, no point: both ambiguous at 99, the one approved twice first.
    let v = lookup("Step");
    assert_eq!(v["matches"][0]["target"]["text"], "Schritt", "{v}");
    assert_eq!(v["matches"][0]["approvals"], 2, "{v}");
    assert_eq!(v["matches"][0]["ambiguous"], true, "{v}");
    assert_eq!(v["matches"][1]["target"]["text"], "Schwellenwert", "{v}");
    // The identical source first among equal scores.
    let v = lookup(r#"could not open file "%s": %s"#);
    assert_eq!(v["matches"][0]["source"]["text"], r#"could not open file "%s": %s"#, "{v}");
    assert_eq!(v["matches"][0]["identical_source"], true, "{v}");
    // Equal keys, a line break the query does not have: not 100, and said why.
    let v = lookup("Authentication failed: %s");
    let m = &v["matches"][0];
    assert_eq!(m["percent"], 99.0, "{m}");
    assert_eq!(m["penalties"][0]["kind"], "whitespace", "{m}");
    assert_eq!(m["match_type"], "structural_exact", "{m}");
    // A fuzzy match that differs by its final full stop: repaired, with the difference.
    let v = lookup("Access to project {project} was blocked.");
    let m = &v["matches"][0];
    assert_eq!(m["adapted_target"]["text"], "Der Zugriff auf das Projekt {project} wurde gesperrt.", "{m}");
    assert_eq!(m["repairs"][0]["kind"], "punctuation", "{m}");
    assert!(m["diff"].as_array().unwrap().iter().any(|o| o["op"] == "insert"), "{m}");
    // Text output shows the line break and the penalty.
    let r = d.ok(&["lookup", "--from", "en", "--to", "de", "Authentication failed: %s"]);
    assert!(r.stdout().contains("⏎"), "{}", r.stdout());
    assert!(
        r.stdout().contains("penalty  -1: the text differs from the query in white space only"),
        "{}",
        r.stdout()
    );
}

#[test]
fn thresholds_are_percent_and_empty_results_say_why() {
    let d = Dir::with_sample();
    let r = d.run(&["lookup", "--threshold", "0.5", "--from", "en", "--to", "de", "Open"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("thresholds are percentages"), "{}", r.stderr());
    let r = d.run(&["lookup", "--from", "en", "--to", "ge", "Server supports %d"]);
    assert_eq!(r.code(), 1);
    assert!(r.stderr().contains("holds no en → ge entries (it holds en → de)"), "{}", r.stderr());
}

#[test]
fn two_imports_creating_one_memory_at_once_both_succeed() {
    // Both programs create the memory; the one that comes second finds the other's
    // import transaction open while it switches the file to WAL, and must wait for it,
    // not fail with "database is locked".
    let d = Dir::new();
    for (name, offset) in [("a.jsonl", 0), ("b.jsonl", 1_000_000)] {
        let lines: String = (0..15_000)
            .map(|i| {
                format!(
                    "{{\"source\":\"Generated string {}\",\"target\":\"Erzeugte Zeichenkette {}\"}}\n",
                    i + offset,
                    i + offset
                )
            })
            .collect();
        std::fs::write(d.path(name), lines).unwrap();
    }
    for round in 0..3 {
        let _ = std::fs::remove_file(d.path("cmem.db"));
        let _ = std::fs::remove_file(d.path("cmem.db-wal"));
        let _ = std::fs::remove_file(d.path("cmem.db-shm"));
        let spawn = |file: &str| {
            d.cmd(&["import", "-q", "--from", "en", "--to", "de", file])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let a = spawn("a.jsonl");
        std::thread::sleep(std::time::Duration::from_millis(150 * round));
        let b = spawn("b.jsonl");
        for child in [a, b] {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "round {round}: {}", String::from_utf8_lossy(&out.stderr));
        }
        assert_eq!(d.ok(&["stats", "--json"]).json_lines()[0]["entries"], 30_000, "round {round}");
    }
}

#[test]
fn a_postgres_memorys_index_is_kept_in_cmem_index_dir() {
    let Some(pg) = cmem_postgres::testing::TestServer::available().unwrap() else { return };
    let url = pg.fresh_database().unwrap();
    let d = Dir::new();
    d.ok(&["--memory", &url, "import", "-q", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    let batch =
        ["--memory", &url, "lookup", "--batch", &td("cli/queries.jsonl"), "--from", "en", "--to", "de"];
    let with_dir = |d: &Dir| {
        let mut c = d.cmd(&batch);
        c.env("CMEM_INDEX_DIR", d.path("ix"));
        Run(c.output().unwrap())
    };
    std::fs::create_dir_all(d.path("ix")).unwrap();
    // The answers without their timings.
    let answers = |r: &Run| -> Vec<Value> {
        let mut lines = r.json_lines();
        for l in &mut lines {
            l.as_object_mut().unwrap().remove("micros");
        }
        lines
    };
    let built = answers(&d.ok(&batch));
    assert_eq!(built.len(), 6);
    assert_eq!(std::fs::read_dir(d.path("ix")).unwrap().count(), 0, "written only when asked");
    // The first run with the directory builds the index and writes it there...
    let first = with_dir(&d);
    assert_eq!(first.code(), 0, "{}", first.stderr());
    let files: Vec<_> = std::fs::read_dir(d.path("ix")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let written = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    // ...and the next opens it (not written again), with the same answers.
    let next = with_dir(&d);
    assert_eq!(std::fs::metadata(&files[0]).unwrap().modified().unwrap(), written);
    assert_eq!(answers(&first), built);
    assert_eq!(answers(&next), built);
}

/// The definitions of a PostgreSQL memory's indexes and constraints, sorted.
fn pg_schema(client: &mut postgres::Client) -> Vec<String> {
    let rows = client
        .query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() UNION ALL \
             SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) \
             FROM pg_constraint WHERE connamespace = current_schema()::regnamespace",
            &[],
        )
        .unwrap();
    let mut defs: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    defs.sort();
    defs
}

#[test]
fn a_postgres_first_import_killed_while_it_loads_leaves_the_empty_memory_whole() {
    let Some(pg) = cmem_postgres::testing::TestServer::available().unwrap() else { return };
    let url = pg.fresh_database().unwrap();
    let d = Dir::new();
    drop(cmem_postgres::PgStore::open(&url).unwrap());
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let schema = pg_schema(&mut client);
    let mut f = std::io::BufWriter::new(std::fs::File::create(d.path("big.jsonl")).unwrap());
    for i in 0..30_000 {
        writeln!(
            f,
            r#"{{"source":"Loaded sentence number {i} of the file","target":"Geladener Satz Nummer {i}"}}"#
        )
        .unwrap();
    }
    drop(f);
    let import = ["--memory", &url, "import", "-q", "--no-align", "--from", "en", "--to", "de", "big.jsonl"];
    // Killed while it loads: once it holds the emptied tables, a little later.
    let loading = "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation \
         WHERE c.relname = 'tm_entries' AND l.mode = 'AccessExclusiveLock' AND l.granted";
    let mut child = d.cmd(&import).stderr(Stdio::piped()).spawn().unwrap();
    let started = std::time::Instant::now();
    while client.query_one(loading, &[]).unwrap().get::<_, i64>(0) == 0 {
        assert!(child.try_wait().unwrap().is_none(), "the import ended before it loaded");
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "the import never loaded");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(child.try_wait().unwrap().is_none(), "the import ended before the kill");
    child.kill().unwrap();
    child.wait().unwrap();
    // The server rolls the transaction back once it finds the client gone.
    let started = std::time::Instant::now();
    while client.query_one(loading, &[]).unwrap().get::<_, i64>(0) > 0 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the killed import's transaction lingers"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(d.ok(&["--memory", &url, "stats", "--json"]).json_lines()[0]["entries"], 0);
    assert_eq!(pg_schema(&mut client), schema, "the indexes and keys are back");
    let rows: i64 = client
        .query_one(
            "SELECT (SELECT count(*) FROM tm_entries) + (SELECT count(*) FROM tm_variants) \
             + (SELECT count(*) FROM tm_origins)",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(rows, 0);
    // And the import goes through again.
    d.ok(&import);
    assert_eq!(d.ok(&["--memory", &url, "stats", "--json"]).json_lines()[0]["entries"], 30_000);
    assert_eq!(pg_schema(&mut client), schema);
    let found = d.ok(&[
        "--memory",
        &url,
        "lookup",
        "--from",
        "en",
        "--to",
        "de",
        "Loaded sentence number 1234 of the file",
    ]);
    assert!(found.stdout().contains("Geladener Satz Nummer 1234"), "{}", found.stdout());
}

/// Two memories with the same source, the second's answer different; each imported on
/// its own (`--memory` once: the plain address).
fn two_memories() -> Dir {
    let d = Dir::new();
    std::fs::write(
        d.path("project.jsonl"),
        "{\"source\":\"Save the file\",\"target\":\"Datei speichern\"}\n",
    )
    .unwrap();
    std::fs::write(d.path("client.jsonl"), "{\"source\":\"Save the file\",\"target\":\"Datei sichern\"}\n")
        .unwrap();
    for name in ["project", "client"] {
        d.ok(&[
            "-m",
            &format!("{name}.db"),
            "import",
            "-q",
            "--from",
            "en",
            "--to",
            "de",
            &format!("{name}.jsonl"),
        ]);
    }
    d
}

#[test]
fn a_lookup_over_two_memories_ranks_the_penalized_equal_match_below_and_names_both() {
    let d = two_memories();
    let memories = ["-m", "project.db", "-m", "client.db,penalty=5,role=read"];
    let lookup = |extra: &[&str]| {
        let mut args = memories.to_vec();
        args.extend(["lookup", "Save the file", "--from", "en", "--to", "de"]);
        args.extend(extra);
        d.ok(&args)
    };
    let json: Value = serde_json::from_str(&lookup(&["--json"]).stdout()).unwrap();
    let matches = json["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 2, "{json}");
    assert_eq!(
        (matches[0]["memory"].as_str(), matches[0]["percent"].as_f64()),
        (Some("project"), Some(100.0))
    );
    assert_eq!(matches[0]["adapted_target"]["text"], "Datei speichern");
    assert_eq!((matches[1]["memory"].as_str(), matches[1]["percent"].as_f64()), (Some("client"), Some(95.0)));
    assert_eq!(matches[1]["penalties"], serde_json::json!([{"kind": "memory", "points": 5}]));

    let text = lookup(&[]).stdout();
    let heads: Vec<&str> = text.lines().filter(|l| l.contains("entry ")).collect();
    assert_eq!(heads.len(), 2, "{text}");
    assert!(heads[0].starts_with("100") && heads[0].ends_with("memory project"), "{text}");
    assert!(heads[1].starts_with("95") && heads[1].contains("memory client"), "{text}");
    assert!(text.contains("penalty  -5: the penalty of memory client"), "{text}");

    // A batch answers the same way.
    std::fs::write(d.path("q.jsonl"), "{\"query\":\"Save the file\"}\n").unwrap();
    let mut args = memories.to_vec();
    args.extend(["lookup", "-q", "--batch", "q.jsonl", "--from", "en", "--to", "de"]);
    let line: Value = serde_json::from_str(d.ok(&args).stdout().trim()).unwrap();
    let names: Vec<&str> =
        line["matches"].as_array().unwrap().iter().filter_map(|m| m["memory"].as_str()).collect();
    assert_eq!(names, ["project", "client"], "{line}");

    // The same memories from a list file.
    std::fs::write(
        d.path("memories.txt"),
        "# the team's memories\nproject.db\n\nclient.db,penalty=5,role=read\n",
    )
    .unwrap();
    let listed =
        d.ok(&["-m", "@memories.txt", "lookup", "Save the file", "--from", "en", "--to", "de"]).stdout();
    assert_eq!(listed, text);
    let r = d.run(&["-m", "@missing.txt", "lookup", "Save the file", "--from", "en", "--to", "de"]);
    assert!(r.stderr().contains("--memory @missing.txt: cannot read the list of memories"), "{}", r.stderr());

    // One memory: no names, no memory penalty (the output of one memory is unchanged).
    let one: Value = serde_json::from_str(
        &d.ok(&["-m", "client.db", "lookup", "Save the file", "--from", "en", "--to", "de", "--json"])
            .stdout(),
    )
    .unwrap();
    assert!(one["matches"][0].get("memory").is_none() && one["matches"][0]["percent"] == 100.0, "{one}");
}

#[test]
fn a_write_to_several_memories_needs_one_writable_or_a_choice() {
    let d = two_memories();
    std::fs::write(d.path("more.jsonl"), "{\"source\":\"Print\",\"target\":\"Drucken\"}\n").unwrap();
    let import = |memories: &[&str], extra: &[&str]| {
        let mut args = memories.to_vec();
        args.extend(["import", "-q", "--from", "en", "--to", "de"]);
        args.extend(extra);
        args.push("more.jsonl");
        d.run(&args)
    };
    let both = ["-m", "project.db", "-m", "client.db"];
    let r = import(&both, &[]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    assert!(
        r.stderr().contains(
            "import: 2 memories may be written (project, client) and none was chosen: choose one, or give the \
             others role=read (name it with --into NAME)"
        ),
        "{}",
        r.stderr()
    );
    let r = import(&["-m", "project.db,role=read", "-m", "client.db,role=read"], &[]);
    assert!(r.stderr().contains("none of the memories (project, client) may be written"), "{}", r.stderr());
    let r = import(&["-m", "project.db", "-m", "client.db,role=read"], &["--into", "client"]);
    assert!(r.stderr().contains("memory \"client\" is read-only"), "{}", r.stderr());
    // Nothing was written by the refused imports.
    let stats = |db: &str| d.ok(&["-m", db, "stats", "--json"]).stdout();
    assert!(stats("project.db").contains("\"entries\":1") && stats("client.db").contains("\"entries\":1"));

    // Chosen, or the only writable one: that memory, and only it.
    assert_eq!(import(&both, &["--into", "client"]).code(), 0);
    assert!(stats("client.db").contains("\"entries\":2") && stats("project.db").contains("\"entries\":1"));
    assert_eq!(import(&["-m", "project.db", "-m", "client.db,role=read"], &[]).code(), 0);
    assert!(stats("project.db").contains("\"entries\":2"));

    // Other commands read one memory.
    let r = d.run(&["-m", "project.db", "-m", "client.db", "stats"]);
    assert!(r.stderr().contains("stats uses one memory and 2 were given"), "{}", r.stderr());
}

/// The messages of a catalog that are neither the header nor obsolete: (msgctxt, msgid,
/// translated).
fn live_messages(path: &str) -> Vec<(Option<String>, String, bool)> {
    let catalog = cmem::formats::po::read_catalog(std::fs::read(path).unwrap().as_slice(), path).unwrap();
    catalog
        .messages
        .iter()
        .filter(|m| !m.is_header() && !m.obsolete)
        .map(|m| (m.context.clone(), m.id.clone(), !m.untranslated() && !m.has_flag("fuzzy")))
        .collect()
}

#[test]
fn a_release_is_recycled_and_quoted_from_the_previous_one() {
    // Zren/plasma-applet-eventcalendar: the Russian catalog of v75 is the memory, the
    // template of v76 (five messages added after "Tasks", two msgids changed) the job.
    let d = Dir::new();
    let (old, new) = (td("po/eventcalendar-v75-ru.po"), td("po/eventcalendar-v76-template.pot"));
    d.ok(&["import", "-q", &old]);
    let report = d.ok(&["recycle", &new, "-o", "ru.po", "--to", "ru", "--json"]).json_lines();
    // Independently: a template message stands in its old context when the old catalog
    // translated the same msgid with the same msgctxt, or between the same msgids.
    let (before, after) = (live_messages(&old), live_messages(&new));
    let neighbours = |list: &[(Option<String>, String, bool)], k: usize| {
        let id = |i: Option<usize>| i.and_then(|i| list.get(i)).map(|m| m.1.clone()).unwrap_or_default();
        (id(k.checked_sub(1)), id(Some(k + 1)))
    };
    // `%1m` and `%1s` are flagged c-format (xgettext's mis-flag of Qt's `%1`), so they
    // read as one printf conversion each: no text, nothing to look up (the 2 skipped).
    assert_eq!(report[0]["skipped"], 2);
    let in_context = (0..after.len())
        .filter(|&k| {
            let (ctx, id, _) = &after[k];
            if id == "%1m" || id == "%1s" {
                return false;
            }
            (0..before.len()).any(|j| {
                let (old_ctx, old_id, translated) = &before[j];
                *translated
                    && old_id == id
                    && (matches!((ctx, old_ctx), (Some(a), Some(b)) if a == b && !a.is_empty())
                        || neighbours(&before, j) == neighbours(&after, k))
            })
        })
        .count();
    assert!(in_context > 150, "{in_context}");
    assert_eq!(report[0]["filled_context"], in_context, "{report:?}");
    let out = std::fs::read_to_string(d.path("ru.po")).unwrap();
    assert_eq!(out.matches("# cmem: context match (eventcalendar)\n").count(), in_context);
    // "Tasks" lost its next neighbour and "Add Calendar" its previous one: exact, not
    // context; "Set Language…" changed: a fuzzy fill.
    for (id, comment) in [
        ("Tasks", "#: ../contents/ui/config/ConfigGoogleCalendar.qml\nmsgid \"Tasks\""),
        ("Add Calendar", "#: ../contents/ui/config/ConfigICal.qml\nmsgid \"Add Calendar\""),
    ] {
        let at = out.find(comment).unwrap_or_else(|| panic!("{id} not found"));
        assert!(!out[..at].ends_with("# cmem: context match (eventcalendar)\n"), "{id}");
    }
    assert!(out.contains("#, fuzzy\nmsgid \"Set Language…\"\nmsgstr \"Установить язык...\""), "{out}");
    // A msgctxt decides: both "MMM d" messages are context matches.
    assert!(out.contains(
        "# cmem: context match (eventcalendar)\n#: ../contents/ui/AgendaListItem.qml\nmsgctxt \"agenda date format line 1\"\nmsgid \"MMM d\""
    ));

    // The quote, in every shape: the same bands and weighted words.
    let text = d.ok(&["analyze", &new, "--to", "ru"]).stdout();
    let row = |label: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {text}"));
        line[label.len()..].split_whitespace().map(str::to_owned).collect()
    };
    assert_eq!(row("context")[0], in_context.to_string(), "{text}");
    assert_eq!(&row("context")[4..], ["0%", "0.0"], "{text}");
    let json = d.ok(&["analyze", &new, "--to", "ru", "--json"]).json_lines();
    let bands = json[0]["bands"].as_array().unwrap();
    assert_eq!(
        (bands[0]["band"].as_str(), bands[0]["segments"].as_u64()),
        (Some("context"), Some(in_context as u64))
    );
    let weighted: f64 = bands.iter().map(|b| b["weighted_words"].as_f64().unwrap()).sum();
    assert!((weighted - json[0]["weighted_words"].as_f64().unwrap()).abs() < 1e-9);
    assert!(weighted > 0.0);
    assert_eq!(row("total").last().unwrap(), &format!("{weighted:.1}"), "{text}");
    let csv = d.ok(&["analyze", &new, "--to", "ru", "--csv"]).stdout();
    let total = csv.lines().last().unwrap();
    assert!(total.ends_with(&format!(",,{weighted:.1}")), "{csv}");
    assert!(csv.contains(&format!(",context,{in_context},")), "{csv}");
    // Other weights and bands: every context word priced at 10 %, one 90 % band.
    let lines = d
        .ok(&["analyze", &new, "--to", "ru", "--json", "--bands", "90", "--weights", "context=10,90=80"])
        .json_lines();
    let bands = lines[0]["bands"].as_array().unwrap();
    let names: Vec<&str> = bands.iter().map(|b| b["band"].as_str().unwrap()).collect();
    assert_eq!(names, ["context", "exact", "repetition", "fuzzy90", "no_match"]);
    let context_words = bands[0]["words"].as_f64().unwrap();
    assert!((bands[0]["weighted_words"].as_f64().unwrap() - context_words * 0.1).abs() < 1e-9);
    let r = d.run(&["analyze", &new, "--to", "ru", "--weights", "96=10"]);
    assert_eq!(r.code(), 2, "a usage error: {}", r.stderr());
    assert!(r.stderr().contains("no band \"96\""), "{}", r.stderr());
    assert_eq!(d.run(&["analyze", &new, "--to", "ru", "--bands", "50,75"]).code(), 2);
    // A standalone page with the same table.
    d.ok(&["analyze", &new, "--to", "ru", "--html", "quote.html"]);
    let html = std::fs::read_to_string(d.path("quote.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert!(!html.contains("<script") && !html.contains("http"), "standalone");
    assert!(
        html.contains(&format!(
            "<tr><th scope=\"row\">context</th><td>{in_context}</td><td>{}</td>",
            context_words as u64
        )),
        "{html}"
    );
    assert!(html.contains(&format!("<td>{weighted:.1}</td></tr></tfoot>")), "{html}");
}

// ---- align ----

#[test]
fn import_with_align_trains_the_word_model_of_its_pair() {
    let d = Dir::new();
    let pairs = [
        ("Open the file", "Datei öffnen"),
        ("Save the file", "Datei speichern"),
        ("Open the folder", "Ordner öffnen"),
        ("Print the file", "Datei drucken"),
    ];
    let lines: String =
        pairs.iter().map(|(s, t)| format!("{}\n", serde_json::json!({ "source": s, "target": t }))).collect();
    std::fs::write(d.path("a.jsonl"), lines).unwrap();
    let more = [
        ("Save the folder", "Ordner speichern"),
        ("Delete the folder", "Ordner löschen"),
        ("Delete the file", "Datei löschen"),
    ];
    let lines: String =
        more.iter().map(|(s, t)| format!("{}\n", serde_json::json!({ "source": s, "target": t }))).collect();
    std::fs::write(d.path("b.jsonl"), lines).unwrap();
    // --align needs the pair.
    let r = d.run(&["import", "--align", "a.jsonl"]);
    assert_eq!(r.code(), 2, "{}", r.stderr());
    let r = d.ok(&["import", "--from", "en", "--to", "de", "--align", "a.jsonl"]);
    assert!(r.stderr().contains("aligned en → de: 4 pairs, "), "{}", r.stderr());
    // A second import trains again over everything the memory now holds.
    let r = d.ok(&["import", "--from", "en", "--to", "de", "--align", "b.jsonl"]);
    assert!(r.stderr().contains("aligned en → de: 7 pairs, "), "{}", r.stderr());
    // The memory has a word model now: the changed word is looked at (a memory this
    // small gives `cmem align`'s default rounds too little evidence to replace it).
    let r = d.ok(&["lookup", "Print the folder", "--from", "en", "--to", "de", "--limit", "1"]);
    assert!(
        r.stdout().contains("note     the query has \"folder\" for \"file\"; the target keeps its word"),
        "{}",
        r.stdout()
    );
    // -q trains as well, silently.
    let r = d.ok(&["import", "-q", "--from", "en", "--to", "de", "--align", "b.jsonl"]);
    assert_eq!(r.stderr(), "");
}

/// A plain import trains the word model of a pair with enough entries, a small later
/// import keeps it, `--no-align` skips it, and lookups repair with it unasked.
#[test]
fn a_plain_import_trains_the_word_model_when_the_pair_is_large_enough() {
    let d = Dir::new();
    let verbs = [("Open", "Öffne"), ("Save", "Speichere"), ("Print", "Drucke"), ("Delete", "Lösche")];
    // 5 verbs × 216 nouns, less one: over the 1,000 entries an import trains from.
    let verbs = [verbs[0], verbs[1], verbs[2], verbs[3], ("Copy", "Kopiere")];
    let syllables = ["ka", "lo", "mi", "re", "tu", "sa"];
    let nouns: Vec<(String, String)> = (0..216)
        .map(|i| {
            let word = format!("{}{}{}", syllables[i / 36], syllables[(i / 6) % 6], syllables[i % 6]);
            (word.clone(), format!("Ding{}", word.to_uppercase()))
        })
        .collect();
    let mut lines = String::new();
    for (v, vt) in &verbs {
        // "Print the kalomi" is left for the lookup below.
        for (n, nt) in nouns.iter().filter(|(n, _)| *v != "Print" || n != "kalomi") {
            lines.push_str(&format!(
                "{}\n",
                serde_json::json!({ "source": format!("{v} the {n}"), "target": format!("{vt} die {nt}") })
            ));
        }
    }
    std::fs::write(d.path("a.jsonl"), lines).unwrap();
    std::fs::write(
        d.path("b.jsonl"),
        format!("{}\n", serde_json::json!({ "source": "Open the file", "target": "Datei öffnen" })),
    )
    .unwrap();
    // Under the threshold: --no-align trains nothing.
    let r = d.ok(&["import", "--from", "en", "--to", "de", "--no-align", "b.jsonl"]);
    assert!(!r.stderr().contains("aligned"), "{}", r.stderr());
    let r = d.ok(&["import", "--from", "en", "--to", "de", "a.jsonl"]);
    assert!(r.stderr().contains("aligned en → de: 1,080 pairs, "), "{}", r.stderr());
    // One entry more is not a tenth more: the model is kept.
    std::fs::write(
        d.path("c.jsonl"),
        format!("{}\n", serde_json::json!({ "source": "Save the file", "target": "Datei speichern" })),
    )
    .unwrap();
    let r = d.ok(&["import", "--from", "en", "--to", "de", "c.jsonl"]);
    assert!(!r.stderr().contains("aligned"), "{}", r.stderr());
    // The word repair works without `cmem align`.
    let r = d.ok(&["lookup", "Print the kalomi", "--from", "en", "--to", "de", "--limit", "1", "--json"]);
    assert!(r.stdout().contains("\"Drucke die DingKALOMI\""), "{}", r.stdout());
    // No match comes near this one, but the memory knows a stretch of it: a fragment,
    // shown below the (absent) matches and in the JSON, never filled in.
    let query = "Could you perhaps rename the kamire for me";
    let r = d.run(&["lookup", query, "--from", "en", "--to", "de"]);
    assert!(r.stdout().starts_with("fragments (never filled in"), "{}", r.stdout());
    assert!(r.stdout().contains("DingKAMIRE"), "{}", r.stdout());
    let r = d.run(&["lookup", query, "--from", "en", "--to", "de", "--json"]);
    assert!(
        r.json_lines()[0]["fragments"][0]["target"].as_str().unwrap().contains("DingKAMIRE"),
        "{}",
        r.stdout()
    );
    // The glossary's terms the query holds, below the fragments and in the JSON.
    let r = d.run(&["lookup", query, "--from", "en", "--to", "de"]);
    assert!(
        r.stdout()
            .contains("\nterms (the memory's glossary)\n  \"kamire\" → \"DingKAMIRE\"  (5 of 5 sightings)\n"),
        "{}",
        r.stdout()
    );
    let r = d.run(&["lookup", query, "--from", "en", "--to", "de", "--json"]);
    let term = &r.json_lines()[0]["terms"][0];
    assert_eq!(
        (term["found"].as_str(), term["target"].as_str()),
        (Some("kamire"), Some("DingKAMIRE")),
        "{}",
        r.stdout()
    );
    let r = d.run(&["lookup", query, "--from", "en", "--to", "de", "--no-fragments"]);
    assert!(r.stdout().starts_with("terms (the memory's glossary)"), "{}", r.stdout());
    let r = d.run(&["lookup", query, "--from", "en", "--to", "de", "--no-fragments", "--no-terms"]);
    assert_eq!(r.stdout(), "");

    // The glossary, from the same model: nouns first, as CSV and TBX-Basic.
    let r = d.ok(&["terms", "--from", "en", "--to", "de"]);
    let csv = r.stdout();
    assert!(csv.starts_with("source,target,count,seen,share,noun,example\n"), "{csv}");
    assert!(
        csv.lines().any(|l| l.starts_with("kamire,") && l.contains("DingKAMIRE,5,5,1.000,true,")),
        "{csv}"
    );
    d.ok(&["terms", "--from", "en", "--to", "de", "--format", "tbx", "-o", "g.tbx"]);
    let tbx = std::fs::read_to_string(d.path("g.tbx")).unwrap();
    assert!(tbx.contains("type=\"TBX-Basic\"") && tbx.contains("<term>kamire</term>"), "{tbx}");
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/schemas/tbx-basic/TBXcoreStructV03.rng");
    if let Ok(out) = std::process::Command::new("xmllint")
        .arg("--noout")
        .arg("--relaxng")
        .arg(core)
        .arg(d.path("g.tbx"))
        .output()
    {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // A corrected list takes precedence; a bad one is refused naming its line.
    std::fs::write(d.path("fix.csv"), "source,target\nkamire,Kami-Ding\n").unwrap();
    d.ok(&["terms", "--from", "en", "--to", "de", "--import", "fix.csv"]);
    let r = d.ok(&["terms", "--from", "en", "--to", "de"]);
    assert!(r.stdout().lines().nth(1).unwrap().starts_with("kamire,Kami-Ding,"), "{}", r.stdout());
    assert_eq!(r.stdout().lines().filter(|l| l.starts_with("kamire,")).count(), 1, "{}", r.stdout());
    let r = d.run(&["lookup", query, "--from", "en", "--to", "de", "--no-fragments"]);
    assert!(r.stdout().contains("\"kamire\" → \"Kami-Ding\"  (given)"), "{}", r.stdout());
    std::fs::write(d.path("bad.csv"), "source,target\nkamire\n").unwrap();
    let r = d.run(&["terms", "--from", "en", "--to", "de", "--import", "bad.csv"]);
    assert!(r.stderr().contains("bad.csv: line 2: no source or no target"), "{}", r.stderr());
}

#[test]
fn align_trains_a_word_model_and_lookups_repair_changed_words() {
    let d = Dir::new();
    let pairs = [
        ("Open the file", "Datei öffnen"),
        ("Save the file", "Datei speichern"),
        ("Open the folder", "Ordner öffnen"),
        ("Save the folder", "Ordner speichern"),
        ("Delete the file", "Datei löschen"),
        ("Delete the folder", "Ordner löschen"),
        ("Print the file", "Datei drucken"),
    ];
    let lines: String =
        pairs.iter().map(|(s, t)| format!("{}\n", serde_json::json!({ "source": s, "target": t }))).collect();
    std::fs::write(d.path("m.jsonl"), lines).unwrap();
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "m.jsonl"]);
    // Before training: the stored target, no word repair.
    let r = d.ok(&["lookup", "Print the folder", "--from", "en", "--to", "de", "--limit", "1"]);
    assert!(
        r.stdout().contains("target   Datei drucken") && !r.stdout().contains("repair"),
        "{}",
        r.stdout()
    );
    let r = d.ok(&["align", "--from", "en", "--to", "de", "--model1", "--iterations", "10"]);
    assert!(r.stdout().starts_with("aligned 7 pairs (0 left out)"), "{}", r.stdout());
    let r = d.ok(&["lookup", "Print the folder", "--from", "en", "--to", "de", "--limit", "1"]);
    assert!(r.stdout().contains("adapted  "), "{}", r.stdout());
    assert!(
        r.stdout().contains("repair   words \"file\" → \"folder\": \"Datei\" → \"Ordner\" (phrase pair, 3×)"),
        "{}",
        r.stdout()
    );
    let r = d.ok(&["lookup", "Print the folder", "--from", "en", "--to", "de", "--limit", "1", "--json"]);
    let v = &r.json_lines()[0];
    assert!(v.to_string().contains("\"target_to\":\"Ordner\""), "{v}");
    // Recycled with a fill threshold under the match's score: the repaired target fills,
    // for review, and the target without the repair is written beside it.
    std::fs::write(
        d.path("in.xlf"),
        "<xliff version=\"1.2\"><file source-language=\"en\" target-language=\"de\" datatype=\"x\" original=\"o\"><body>\n\
<trans-unit id=\"1\"><source>Print the folder</source></trans-unit>\n</body></file></xliff>",
    )
    .unwrap();
    let r =
        d.ok(&["recycle", "in.xlf", "-o", "out.xlf", "--fill-threshold", "50", "--fuzzy-threshold", "50"]);
    assert!(
        r.stderr().contains("1 filled (0 exact)")
            && r.stderr().ends_with(
                "; 1 fill had words repaired (marked for review, the target without the repair beside it)\n"
            ),
        "{}",
        r.stderr()
    );
    let out = std::fs::read_to_string(d.path("out.xlf")).unwrap();
    assert!(
        out.contains(r#"<target xml:lang="de" state="needs-review-translation" state-qualifier="fuzzy-match">Ordner drucken</target>"#),
        "{out}"
    );
    assert!(
        out.contains(r#"<target xml:lang="de">Datei drucken</target><note>cmem: without the word repair (the fill replaced "Datei" → "Ordner")</note>"#),
        "{out}"
    );
    // At the default fill threshold the match only becomes a candidate.
    let r = d.ok(&["recycle", "in.xlf", "-o", "default.xlf", "--fuzzy-threshold", "50"]);
    assert!(r.stderr().contains("0 filled (0 exact), 1 with candidates"), "{}", r.stderr());
    // Nothing to learn from: an error, and no model is saved.
    let r = d.run(&["align", "--from", "en", "--to", "fr"]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    assert!(r.stderr().contains("no en → fr pairs"), "{}", r.stderr());
}

// ---- context ----

/// A context answer without its timing, for comparing answers made at two times.
fn untimed(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.remove("micros");
        m.remove("line");
        m.remove("id");
    }
    v
}

#[test]
fn context_gives_the_library_answer() {
    let d = Dir::with_sample();
    d.ok(&["import", "-q", &td("cli/versions.jsonl")]);
    let text = "failed to remove the table directory";
    let r = d.ok(&["context", text, "--from", "en", "--to", "de"]);
    let cli = r.json_lines().remove(0);
    assert!(!cli["examples"].as_array().unwrap().is_empty(), "{cli}");
    assert_eq!(cli["word_model"], false);

    let memory = cmem::Memory::open(d.path("cmem.db").to_str().unwrap()).unwrap();
    let runs = cmem::prepare_query(cmem::QueryText::Plain(text), memory.recognizer().unwrap()).unwrap();
    let lookup = cmem::LookupRequest::from_tags(runs, "en", "de").unwrap();
    let lib = memory.context_answer(&cmem::ContextRequest::new(lookup)).unwrap();
    assert_eq!(untimed(cli), untimed(serde_json::to_value(&lib).unwrap()));

    // The prior version only for the fingerprint its newest approval carries.
    let ask = |fp: &str| {
        let r = d.ok(&[
            "context",
            "Welcome to cmem",
            "--from",
            "en",
            "--to",
            "de",
            "--unit",
            "intro.title",
            "--fingerprint",
            fp,
        ]);
        r.json_lines().remove(0)["prior_version"].clone()
    };
    assert_eq!(ask("c3")["target"], "Willkommen bei {cmem}");
    assert_eq!(ask("b2"), Value::Null);
}

#[test]
fn context_batch_names_the_bad_line_and_answers_the_others() {
    let d = Dir::with_sample();
    let mut child = d
        .cmd(&["context", "--batch", "-", "--from", "en", "--to", "de", "--examples", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"text\":\"Table Name\",\"id\":\"a\"}\n{\"text\":\"x\",\"point\":\"/bad//\"}\n{\"query\":\"x\"}\n")
        .unwrap();
    let r = Run(child.wait_with_output().unwrap());
    assert_eq!(r.code(), 3, "{}", r.stderr());
    let lines = r.json_lines();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], "a");
    assert_eq!(lines[0]["exact"], true);
    assert_eq!(lines[0]["matches"][0]["target"]["text"], "Tabellenname");
    assert!(lines[1]["error"].as_str().unwrap().starts_with("field point: "), "{}", lines[1]);
    assert!(lines[2]["error"].as_str().unwrap().contains("unknown field `query`"), "{}", lines[2]);
    assert!(
        r.stderr().contains("context --batch -: 2 of 3 segments failed; the first, line 2: field point"),
        "{}",
        r.stderr()
    );
    let r = d.run(&["context", "x", "--from", "en", "--to", "de", "--examples", "21"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("--examples: 21 is more than 20"), "{}", r.stderr());
}

#[test]
fn context_of_a_file_answers_each_untranslated_segment() {
    let d = Dir::with_sample();
    std::fs::write(
        d.path("todo.xlf"),
        r#"<xliff version="1.2"><file source-language="en" target-language="de" datatype="x" original="a"><body>
<trans-unit id="t1" resname="table.name"><source>Table Name</source></trans-unit>
<trans-unit id="t2"><source>failed to remove the directory</source></trans-unit>
</body></file></xliff>"#,
    )
    .unwrap();
    let r = d.ok(&["context", "--file", "todo.xlf", "--from", "en", "--to", "de"]);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 2);
    assert_eq!((lines[0]["line"].clone(), lines[0]["unit"].clone()), (2.into(), "table.name".into()));
    assert_eq!(lines[1]["query"]["text"], "failed to remove the directory");
    assert!(!lines[1]["examples"].as_array().unwrap().is_empty(), "{}", lines[1]);
}

#[test]
fn context_of_the_guide_example() {
    // docs/guide.md §8 shows this answer; it must stay the one cmem gives.
    let d = Dir::with_sample();
    d.ok(&["align", "--from", "en", "--to", "de"]);
    let r = d.ok(&[
        "context",
        "Could not remove the table directory",
        "--from",
        "en",
        "--to",
        "de",
        "--examples",
        "3",
        "--glossary",
        "5",
    ]);
    let answer = r.json_lines().remove(0);
    let ids: Vec<i64> =
        answer["examples"].as_array().unwrap().iter().map(|e| e["entry_id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [49, 23, 4], "{answer}");
    let glossary: Vec<(&str, &str)> = answer["glossary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["source"].as_str().unwrap(), g["target"].as_str().unwrap()))
        .collect();
    assert_eq!(glossary, [("directory", "Verzeichnis"), ("not", "nicht"), ("the", "die")]);
    assert_eq!((answer["word_model"].clone(), answer["exact"].clone()), (true.into(), false.into()));
}
