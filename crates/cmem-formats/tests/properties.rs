//! Java `.properties` bundles on `testdata/properties/`: a translated bundle imported
//! beside its source, the source recycled back into the same bundle, the next release
//! recycled, and what Java itself reads from what recycle wrote.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use cmem_core::{Locale, MemStore, Recognizer};
use cmem_formats::{
    collect_items, import, recycle_properties, FormatErrorKind, ImportOptions, Ingest, IngestOptions, Input,
    RecycleOptions,
};

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/properties").join(rel)
}

/// The memory of `messages_de.properties` and `messages_fr.properties`, imported as
/// `cmem import` does (the default recognizer).
fn memory() -> MemStore {
    let rec = Recognizer::default();
    let hook = |s: &str, t: &str| rec.recognize_pair(s, t);
    let inputs = ["messages_de.properties", "messages_fr.properties"]
        .iter()
        .map(|f| Input::open(&testdata(f), None).unwrap())
        .collect();
    let store = MemStore::new();
    let report = import(
        &store,
        Ingest::new(inputs, IngestOptions::default(), Some(&hook)),
        &ImportOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // German: every key of the source but the one marked untranslated; French: four.
    assert_eq!(report.progress.inserted, 7 + 4, "{:?}", report.progress);
    store
}

fn recycled(store: &MemStore, source: &str, target: &str) -> (cmem_formats::RecycleReport, String) {
    let mut options = RecycleOptions::default();
    options.target_locale = Some(Locale::parse(target).unwrap());
    options.recognizer = Some(Recognizer::default());
    let raw = std::fs::read(testdata(source)).unwrap();
    let mut out = Vec::new();
    let report = recycle_properties(raw.as_slice(), source, &mut out, store, &options).unwrap();
    (report, String::from_utf8(out).unwrap())
}

#[test]
fn a_translated_bundle_pairs_with_its_source_by_key() {
    let rec = Recognizer::default();
    let hook = |s: &str, t: &str| rec.recognize_pair(s, t);
    let input = Input::open(&testdata("messages_de.properties"), None).unwrap();
    let (entries, problems) =
        collect_items(Ingest::new(vec![input], IngestOptions::default(), Some(&hook))).unwrap();
    assert!(problems.is_empty());
    let units: Vec<&str> = entries.iter().map(|e| e.unit.as_str()).collect();
    assert_eq!(
        units,
        [
            "app.title",
            "menu.open",
            "menu.save",
            "menu.quit",
            "dialog.delete",
            "status.copied",
            "key with spaces"
        ]
    );
    let e = &entries[4];
    assert_eq!((e.variants[0].locale.as_str(), e.variants[1].locale.as_str()), ("en", "de"));
    // Escapes, a continuation line and ISO-8859-1 read as Java reads them; `{0}` is a code.
    assert_eq!(
        cmem_core::model::run::surface_text(&e.variants[0].runs),
        "Delete {0} files?\nThis cannot be undone."
    );
    assert_eq!(
        cmem_core::model::run::surface_text(&e.variants[1].runs),
        "{0} Dateien löschen?\nDas kann nicht rückgängig gemacht werden."
    );
    assert!(
        e.variants[1].runs.iter().any(|r| r.code().is_some_and(|c| c.data == "{0}")),
        "{:?}",
        e.variants[1].runs
    );
    assert_eq!(
        cmem_core::model::run::surface_text(&entries[6].variants[1].runs),
        "Ein Schlüssel mit Leerzeichen"
    );
    // MessageFormat's typed argument is one code too.
    assert!(entries[5].variants[0]
        .runs
        .iter()
        .any(|r| r.code().is_some_and(|c| c.data == "{0,number,integer}")));
}

#[test]
fn the_source_recycled_gives_the_translated_bundle_back() {
    let store = memory();
    let (report, out) = recycled(&store, "messages.properties", "de");
    // The context matches name the project: the imported file.
    let out = out.replace(&testdata("messages_de.properties").display().to_string(), "DE");
    // Every key filled by a context match (its key), the one nothing fills marked.
    assert_eq!((report.segments, report.filled_exact, report.filled_context, report.untouched), (8, 7, 7, 1));
    assert_eq!(
        out,
        "# Messages of a small file manager, release 1.0 (written for cmem's tests).\n\
         # cmem: context match (DE)\n\
         app.title = Dateiverwaltung\n\
         \n\
         # The main menu\n\
         # cmem: context match (DE)\n\
         menu.open = {0} \\u00F6ffnen\n\
         # cmem: context match (DE)\n\
         menu.save = Datei speichern\n\
         # cmem: context match (DE)\n\
         menu.quit: Beenden\n\
         # cmem: context match (DE)\n\
         dialog.delete = {0} Dateien l\\u00F6schen?\\nDas kann nicht r\\u00FCckg\\u00E4ngig gemacht werden.\n\
         # cmem: context match (DE)\n\
         status.copied = {0,number,integer} Dateien nach {1} kopiert\n\
         # cmem: context match (DE)\n\
         key\\ with\\ spaces = Ein Schl\\u00FCssel mit Leerzeichen\n\
         # cmem: untranslated\n\
         path.hint = Use C:\\\\Users\\\\{0} or /home/{0}\n"
    );
    java_reads(&out, &std::fs::read(testdata("messages_de.properties")).unwrap(), "round-trip");
}

#[test]
fn the_next_release_is_filled_where_the_memory_knows_it() {
    let store = memory();
    let (report, out) = recycled(&store, "release-1.1/messages.properties", "de");
    assert_eq!(
        (report.segments, report.filled, report.filled_exact, report.with_candidates, report.untouched),
        (7, 5, 5, 1, 1),
        "{report}"
    );
    assert!(out.contains("# cmem: fuzzy, 9"), "{out}");
    assert!(out.contains("menu.save = Datei speichern\n"), "{out}");
    assert!(out.contains("# cmem: untranslated\nmenu.print = Print the document\n"), "{out}");
    // French, a UTF-8 memory: the source bundle is ASCII, so the fill is escaped.
    let (report, out) = recycled(&store, "release-1.1/messages.properties", "fr");
    assert_eq!(report.filled_exact, 3, "{report}");
    assert!(out.contains("menu.quit: Quitter\n"), "{out}");
}

#[test]
fn a_source_bundle_alone_or_a_stream_is_refused_with_what_to_do() {
    let input = Input::open(&testdata("messages.properties"), None).unwrap();
    let err = collect_items(Ingest::new(vec![input], IngestOptions::default(), None)).unwrap_err();
    assert_eq!(err.kind(), FormatErrorKind::InvalidField);
    assert!(
        err.to_string().contains("the name gives no language (as messages_de.properties would)"),
        "{err}"
    );
    let bytes = std::fs::read(testdata("messages_de.properties")).unwrap();
    let input = Input::from_reader(
        "messages_de.properties",
        cmem_formats::Format::Properties,
        std::io::Cursor::new(bytes),
    );
    let err = collect_items(Ingest::new(vec![input], IngestOptions::default(), None)).unwrap_err();
    assert_eq!(err.kind(), FormatErrorKind::Unsupported);
    assert!(err.to_string().contains("import it from its file"), "{err}");
}

/// Java (`PropertyResourceBundle`, which reads UTF-8 and else ISO-8859-1) reads the
/// same keys and values from `written` as from `expected`, where a JDK is installed.
fn java_reads(written: &str, expected: &[u8], what: &str) {
    let dir = std::env::temp_dir().join(format!("cmem-java-{}-{what}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Dump.java"), DUMP).unwrap();
    std::fs::write(dir.join("written.properties"), written).unwrap();
    std::fs::write(dir.join("expected.properties"), expected).unwrap();
    let dump = |file: &str| Command::new("java").arg("Dump.java").arg(file).current_dir(&dir).output();
    match (dump("written.properties"), dump("expected.properties")) {
        (Ok(w), Ok(e)) if w.status.success() && e.status.success() => {
            let (w, e) = (String::from_utf8_lossy(&w.stdout), String::from_utf8_lossy(&e.stdout));
            // The key recycle left untranslated keeps its source value: the same here.
            assert_eq!(w, e, "Java reads another bundle than the one translated");
        }
        (w, _) => {
            eprintln!("note: Java's own reading not checked (no JDK to run it: {:?})", w.map(|o| o.status))
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const DUMP: &str = r#"
import java.io.*;
import java.util.*;
public class Dump {
  public static void main(String[] a) throws Exception {
    try (InputStream in = new FileInputStream(a[0])) {
      PropertyResourceBundle r = new PropertyResourceBundle(in);
      for (String k : new TreeSet<>(r.keySet())) System.out.println(k + "=" + r.getString(k).replace("\n", "\\n"));
    }
  }
}
"#;
