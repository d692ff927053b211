//! What a new user meets in the first hour (issue 46): a file's own languages are never
//! overridden in silence, a failed first import leaves no memory behind, every error
//! names its fix, recycle says why it found nothing and what it skipped, and the output
//! has no noise.

use super::{td, testdata, Dir};

/// A memory built by `import --from en --to de` from a TMX (en-US → de-CH), a Russian
/// PO catalog and a French XLIFF document.
const TMX: &str = "guide/vendor.tmx";
const RU_PO: &str = "po/eventcalendar-v75-ru.po";
const FR_XLIFF: &str = "xliff2/oasis-xliff22__everything-core.xlf";

fn pairs(d: &Dir) -> Vec<String> {
    let stats = d.ok(&["stats", "--json"]).json_lines().remove(0);
    let pairs = stats["pairs"].as_array().cloned().unwrap_or_default();
    pairs
        .iter()
        .map(|p| format!("{} → {}", p["source"].as_str().unwrap(), p["target"].as_str().unwrap()))
        .collect()
}

#[test]
fn files_naming_other_languages_stop_the_import_and_are_named() {
    let d = Dir::new();
    let (tmx, po, xlf) = (td(TMX), td(RU_PO), td(FR_XLIFF));
    let r = d.run(&["import", "--from", "en", "--to", "de", &tmx, &po, &xlf]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    let err = r.stderr();
    assert!(err.contains(&format!("{po} names its target language ru, not de")), "{err}");
    assert!(err.contains(&format!("{xlf} names its target language fr, not de")), "{err}");
    assert!(!err.contains(&format!("{tmx} names")), "a region of de is no contradiction: {err}");
    assert!(err.contains("import without --from/--to") && err.contains("--relabel"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Nothing stored, and the memory the import would have created is not there.
    assert!(!d.path("cmem.db").exists());

    // Without the flags each file keeps its own languages.
    d.ok(&["import", "-q", &tmx, &po, &xlf]);
    let held = pairs(&d);
    for pair in ["en-US → de-CH", "en → ru", "en → fr"] {
        assert!(held.iter().any(|p| p == pair), "{pair} missing from {held:?}");
    }
    assert!(!held.iter().any(|p| p.ends_with("→ de")), "{held:?}");
}

#[test]
fn a_region_of_the_flag_is_kept_and_relabel_overrides_on_purpose() {
    let d = Dir::new();
    // `Language: de_DE` with `--to de`: no contradiction, the more precise tag is stored.
    d.ok(&["import", "-q", "--from", "en", "--to", "de", &td("guide/notes-1.0.de.po")]);
    assert_eq!(pairs(&d), ["en → de-DE"]);
    // `en-US → de-CH` with `--from en --to de-CH`: the same.
    d.ok(&["import", "-q", "--from", "en", "--to", "de-CH", &td(TMX)]);
    assert!(pairs(&d).contains(&"en-US → de-CH".to_owned()), "{:?}", pairs(&d));

    // --relabel: the flags win, for a file whose header is known to be wrong.
    let d = Dir::new();
    d.ok(&["import", "-q", "--from", "en", "--to", "uk", "--relabel", &td(RU_PO)]);
    assert_eq!(pairs(&d), ["en → uk"]);
}

#[test]
fn a_tmx_whose_units_name_another_language_is_caught_per_unit() {
    let d = Dir::new();
    std::fs::write(
        d.path("m.tmx"),
        "<tmx version=\"1.4\"><header srclang=\"en\" datatype=\"plaintext\" segtype=\"sentence\" adminlang=\"en\" \
         creationtool=\"t\" creationtoolversion=\"1\" o-tmf=\"t\"/><body>\n\
         <tu><tuv xml:lang=\"en\"><seg>Open</seg></tuv><tuv xml:lang=\"de\"><seg>Öffnen</seg></tuv></tu>\n\
         <tu><tuv xml:lang=\"en\"><seg>Save</seg></tuv><tuv xml:lang=\"fr\"><seg>Enregistrer</seg></tuv></tu>\n\
         </body></tmx>",
    )
    .unwrap();
    let r = d.run(&["import", "--from", "en", "--to", "de", "m.tmx"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("m.tmx names its target language fr, not de"), "{}", r.stderr());
    assert!(!d.path("cmem.db").exists());
    let r = d.run(&["import", "--from", "fr", "m.tmx"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("m.tmx names its source language en, not fr"), "{}", r.stderr());
}

#[test]
fn an_interrupted_or_empty_first_import_leaves_no_file() {
    let d = Dir::new();
    // Nothing importable: every line a problem.
    std::fs::write(d.path("bad.jsonl"), "{\"source\":\"\",\"target\":\"x\"}\n").unwrap();
    let r = d.run(&["--memory", "new.db", "import", "--from", "en", "--to", "de", "bad.jsonl"]);
    assert_eq!(r.code(), 3, "{}", r.stderr());
    assert!(!d.path("new.db").exists());
    let left =
        std::fs::read_dir(&d.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    assert!(left.filter(|n| n.starts_with("new.db")).count() == 0);
}

#[test]
fn a_first_import_stopped_by_ctrl_c_leaves_no_file() {
    use std::io::Write;
    let d = Dir::new();
    let mut f = std::io::BufWriter::new(std::fs::File::create(d.path("big.jsonl")).unwrap());
    for i in 0..300_000 {
        writeln!(f, r#"{{"source":"Sentence number {i} of the test","target":"Satz Nummer {i} des Tests"}}"#)
            .unwrap();
    }
    drop(f);
    let child = d
        .cmd(&["--memory", "new.db", "import", "--from", "en", "--to", "de", "big.jsonl"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the memory exists the import is under way; let it write for a while.
    let started = std::time::Instant::now();
    while !d.path("new.db").exists() && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let left: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("new.db"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

// ---- every error of the first hour names its fix ----

#[test]
fn an_unknown_extension_names_format_and_every_extension() {
    let d = Dir::new();
    std::fs::write(d.path("notes.txt"), "x").unwrap();
    let r = d.run(&["import", "notes.txt"]);
    assert_eq!(r.code(), 3);
    let err = r.stderr();
    assert!(err.contains("--format tmx|kmb|jsonl|po|weblate|xliff"), "{err}");
    assert!(err.contains(".sdlxliff") && err.contains(".mqxliff"), "{err}");
    assert_eq!(err.matches("notes.txt").count(), 1, "{err}");
}

#[test]
fn a_po_file_under_another_extension_is_named_as_po_once() {
    let d = Dir::new();
    std::fs::copy(testdata(RU_PO), d.path("memory.tmx")).unwrap();
    let r = d.run(&["import", "memory.tmx"]);
    assert_eq!(r.code(), 3);
    let err = r.stderr();
    assert!(err.contains("looks like gettext PO"), "{err}");
    assert!(err.contains("import it as po, or give it its .po extension"), "{err}");
    assert_eq!(err.matches("memory.tmx").count(), 1, "the file named once: {err}");
    d.ok(&["import", "-q", "--format", "po", "memory.tmx"]);
}

#[test]
fn an_empty_po_file_is_called_empty() {
    let d = Dir::new();
    std::fs::write(d.path("empty.po"), "").unwrap();
    let r = d.run(&["import", "empty.po"]);
    assert_eq!(r.code(), 3);
    assert_eq!(
        r.stderr(),
        "cmem: import empty.po: the file is empty: no header and no messages to import; leave it out\n"
    );
}

#[test]
fn a_language_name_instead_of_a_code_asks_for_a_code() {
    let d = Dir::new();
    let r = d.run(&["import", "--from", "english", "--to", "de", &td("cli/sample.jsonl")]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("write a language code such as en, de or pt-BR"), "{}", r.stderr());
}

#[test]
fn an_empty_json_lines_file_is_said_to_hold_nothing() {
    let d = Dir::new();
    std::fs::write(d.path("e.jsonl"), "").unwrap();
    let r = d.ok(&["import", "--from", "en", "--to", "de", "e.jsonl"]);
    assert!(r.stderr().contains("cmem: warning: no entries in e.jsonl (an empty file?)"), "{}", r.stderr());
}

#[test]
fn a_headerless_po_with_a_syntax_error_names_to_as_the_way_on() {
    let d = Dir::new();
    let po = td("po/invalid-msgstr-without-msgid.po");
    let r = d.run(&["import", &po]);
    assert_eq!(r.code(), 3);
    let err = r.stderr();
    assert!(err.contains("line 4"), "{err}");
    assert!(err.ends_with("cannot be imported: fix the line, or give one with --to\n"), "{err}");
    // With --to, the line is a problem like any other and the rest is imported.
    let r = d.ok(&["import", "--to", "de", &po]);
    assert!(r.stderr().contains("1 read, 1 written, 0 deduplicated, 1 problem"), "{}", r.stderr());
}

// ---- recycle ----

#[test]
fn recycle_warns_of_a_pair_the_memory_lacks_and_lists_what_it_skipped() {
    let d = Dir::with_sample();
    let xlf = td("xliff12/okapi__Manual-12-AltTrans.xlf");
    let r = d.ok(&["recycle", &xlf, "-o", "out.xlf", "--verbose"]);
    let err = r.stderr();
    assert!(err.contains("cmem: warning: the memory holds no en → fr entries (it holds en → de)"), "{err}");
    let r = d.ok(&["recycle", &xlf, "-o", "out.xlf", "--json"]);
    let report = &r.json_lines()[0];
    let n = |k: &str| report[k].as_u64().unwrap();
    assert_eq!(n("filled") + n("with_candidates") + n("untouched") + n("skipped"), n("segments"), "{report}");
    let skips = report["skips"].as_array().unwrap();
    assert_eq!(skips.len() as u64, n("skipped"));
    assert_eq!(report["pair"], serde_json::json!(["en", "fr"]));
    // --verbose gives every skip its line and reason.
    let r = d.ok(&["recycle", &xlf, "-o", "out.xlf", "--verbose"]);
    let listed = r.stderr().lines().filter(|l| l.contains(": skipped")).count();
    assert_eq!(listed, skips.len(), "{}", r.stderr());
    for skip in skips {
        assert!(!skip["reason"].as_str().unwrap().is_empty(), "{skip}");
    }
    // analyze says the same, per file.
    let r = d.ok(&["analyze", &xlf]);
    assert!(
        r.stderr().contains(&format!("cmem: warning: analyze {xlf}: the memory holds no en → fr entries")),
        "{}",
        r.stderr()
    );
    // A pair the memory holds gets no warning, found or not.
    let r = d.ok(&["analyze", &xlf, "--to", "de"]);
    assert!(!r.stderr().contains("warning"), "{}", r.stderr());
}

#[test]
fn recycle_refuses_an_output_named_for_another_format() {
    let d = Dir::with_sample();
    let pot = td("guide/notes-1.1.pot");
    let r = d.run(&["recycle", &pot, "-o", "x.xlf", "--to", "de"]);
    assert_eq!(r.code(), 3);
    assert!(
        r.stderr().contains("-o x.xlf names an XLIFF file, but recycle writes a gettext PO file"),
        "{}",
        r.stderr()
    );
    assert!(r.stderr().contains("name the output OUT.po"), "{}", r.stderr());
    assert!(!d.path("x.xlf").exists());
    d.ok(&["recycle", "-q", &pot, "-o", "x.po", "--to", "de"]);
}

// ---- rough edges ----

#[test]
fn token_list_has_a_header_and_aligned_columns() {
    let d = Dir::with_sample();
    d.ok(&["token", "create", "--scope", "read", "--name", "a"]);
    d.ok(&["token", "create", "--scope", "write", "--name", "editor"]);
    let out = d.ok(&["token", "list"]).stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("ID") && lines[0].contains("SCOPE") && lines[0].ends_with("NAME"), "{out}");
    // The creation time's column: after two spaces (a token's hexadecimal id may hold "20").
    let column = |l: &str| l.find("  20").unwrap() + 2;
    assert_eq!(column(lines[1]), column(lines[2]), "{out}");
    assert_eq!(lines[0].find("CREATED").unwrap(), column(lines[1]), "{out}");
}

#[test]
fn search_keeps_one_blank_line_between_hits() {
    let d = Dir::with_sample();
    let out = d.ok(&["search", "file", "--lang", "en"]).stdout();
    assert!(!out.contains("\n\n\n"), "{out}");
    // A target's line break is shown, not printed.
    assert!(out.contains("angehängt: ⏎%s"), "{out}");
}
