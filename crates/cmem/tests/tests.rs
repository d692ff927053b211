//! Opening memories by address, end to end: a `postgres://` address on a real server (a
//! throwaway cluster, or `CMEM_PG_URL`'s).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use cmem::align::Term;
use cmem::{Locale, LookupRequest, Memory, NewEntry, OpenOptions, Run, Variant};
use cmem_postgres::testing::TestServer;

#[test]
fn a_postgres_address_opens_a_shared_memory() {
    let Some(pg) = TestServer::available().unwrap() else { return };
    let url = pg.fresh_database().unwrap();
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    // An empty database is not a memory unless created.
    let err = Memory::open(&url).unwrap_err();
    assert!(err.to_string().contains("not a cmem memory"), "{err}");
    let writer = Memory::open_with(&url, &OpenOptions::new().create(true)).unwrap();
    writer
        .write(&[NewEntry::pair(
            Variant::new(en.clone(), vec![Run::text("Save the file")]),
            Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
        )])
        .unwrap();
    assert_eq!(writer.record_rule_set(None).unwrap(), None);
    for options in [OpenOptions::new().read_only(true), OpenOptions::new().sql_candidates(true)] {
        let reader = Memory::open_with(&url, &options).unwrap();
        let req = LookupRequest::new(vec![Run::text("Save the files")], en.clone(), de.clone());
        assert_eq!(reader.lookup(&req).unwrap().len(), 1, "{options:?}");
        assert_eq!(reader.recorded_rule_set().unwrap().as_deref(), Some("none"));
    }
    let read_only = Memory::open_with(&url, &OpenOptions::new().read_only(true)).unwrap();
    assert!(read_only.write(&[]).is_err());
}

/// A term list set through one handle on the memory at `address` is seen by another
/// handle's next lookup with terms; while the list stays, that handle keeps the glossary
/// it parsed (an entry written meanwhile makes it read the list, not parse it).
fn a_term_list_set_through_another_handle_is_seen(address: &str) {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let a = Memory::open_with(address, &OpenOptions::new().create(true)).unwrap();
    let b = Memory::open(address).unwrap();
    let req = LookupRequest::new(vec![Run::text("Open the File Manager")], en.clone(), de.clone());
    let found = |m: &Memory| -> Vec<String> {
        m.segment_terms(&req).unwrap().into_iter().map(|f| f.term.target).collect()
    };
    let kept = |m: &Memory| {
        let models = m.store().capabilities().word_models.expect("a store of word models");
        models.given_glossary(&en, &de).unwrap().expect("a store that keeps the list parsed")
    };
    let set =
        |m: &Memory, target: &str| m.set_terms(&en, &de, &[Term::given("file manager", target)]).unwrap();
    assert!(found(&a).is_empty());
    set(&b, "Dateimanager");
    assert_eq!(found(&a), ["Dateimanager"], "another handle's list, at the next lookup");
    let first = kept(&a);
    assert!(Arc::ptr_eq(&first, &kept(&a)), "nothing changed: the parsed list is kept");
    b.write(&[NewEntry::pair(
        Variant::new(en.clone(), vec![Run::text("Save the file")]),
        Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
    )])
    .unwrap();
    assert!(Arc::ptr_eq(&first, &kept(&a)), "the list did not change: not parsed again");
    set(&b, "Dateiverwaltung");
    assert_eq!(found(&a), ["Dateiverwaltung"], "a list replaced by another handle");
    set(&a, "Dateimanager");
    assert_eq!(found(&a), ["Dateimanager"], "the handle's own list");
    assert_eq!(found(&b), ["Dateimanager"]);
}

#[test]
fn a_term_list_set_through_another_sqlite_handle_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    a_term_list_set_through_another_handle_is_seen(dir.path().join("memory.db").to_str().unwrap());
}

#[test]
fn a_term_list_set_through_another_postgres_handle_is_seen() {
    let Some(pg) = TestServer::available().unwrap() else { return };
    a_term_list_set_through_another_handle_is_seen(&pg.fresh_database().unwrap());
}

#[test]
fn a_postgres_address_hides_its_password_in_errors() {
    let Some(server) = TestServer::available().unwrap() else { return };
    let url = server.url_of("no_such_memory").replacen('@', ":pw-s3cret@", 1);
    let err = Memory::open(&url).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("no_such_memory") && !msg.contains("pw-s3cret"), "{msg}");
}

#[test]
fn a_postgres_memory_keeps_its_index_in_the_directory_asked() {
    let Some(pg) = TestServer::available().unwrap() else { return };
    let url = pg.fresh_database().unwrap();
    let dir = std::env::temp_dir().join(format!("cmem-facade-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let options = OpenOptions::new().create(true).index_dir(&dir);
    let first = Memory::open_with(&url, &options).unwrap();
    first
        .write(&[NewEntry::pair(
            Variant::new(en.clone(), vec![Run::text("Save the file")]),
            Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
        )])
        .unwrap();
    let req = LookupRequest::new(vec![Run::text("Save the files")], en, de);
    assert_eq!(first.lookup(&req).unwrap().len(), 1);
    // The index built for the lookup was written for the next process...
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let written = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    // ...which opens it rather than building and writing it again.
    let next = Memory::open_with(&url, &options).unwrap();
    assert_eq!(next.lookup(&req).unwrap().len(), 1);
    assert_eq!(std::fs::metadata(&files[0]).unwrap().modified().unwrap(), written);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_read_replica_needs_a_postgres_memory_and_hides_its_password() {
    let dir = std::env::temp_dir().join(format!("cmem-replica-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.db").display().to_string();
    let options = OpenOptions::new().create(true).replica("postgres://cmem:secret@replica.internal/cmem");
    let err = Memory::open_with(&path, &options).unwrap_err();
    assert!(err.to_string().contains("a read replica needs a PostgreSQL memory"), "{err}");
    assert!(!std::path::Path::new(&path).exists(), "nothing created");
    let shown = format!("{options:?}");
    assert!(shown.contains("replica.internal") && !shown.contains("secret"), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The TBX-Basic schemas (copies in `testdata/schemas/tbx-basic`, provenance in
/// `testdata/README.md`).
fn tbx_schema(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/schemas/tbx-basic").join(name)
}

/// Validates `doc` with `xmllint --relaxng schema`; `None` without `xmllint` (a loud
/// notice, or a failure under CI).
fn relaxng(doc: &str, schema: &str) -> Option<Result<(), String>> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("doc.xml");
    std::fs::write(&file, doc).unwrap();
    let out = match std::process::Command::new("xmllint")
        .arg("--noout")
        .arg("--relaxng")
        .arg(tbx_schema(schema))
        .arg(&file)
        .output()
    {
        Ok(out) => out,
        Err(_) => {
            let message = "xmllint not found: the TBX schema test did NOT run \
                           (install it with `apt-get install libxml2-utils`)";
            assert!(std::env::var_os("CI").is_none(), "{message}");
            eprintln!("\n!!! {message}\n");
            return None;
        }
    };
    Some(if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) })
}

/// The element names of `doc` with their parent's, in document order (a small reader for
/// the documents this crate writes: no comments, no CDATA).
fn elements_with_parents(doc: &str) -> Vec<(String, String)> {
    let mut open: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for tag in doc.split('<').skip(1).map(|s| s.split('>').next().unwrap()) {
        if tag.starts_with('?') {
            continue;
        }
        let name =
            tag.trim_start_matches('/').trim_end_matches('/').split_whitespace().next().unwrap().to_owned();
        if tag.starts_with('/') {
            assert_eq!(open.pop().as_deref(), Some(name.as_str()), "badly nested: {doc}");
            continue;
        }
        out.push((name.clone(), open.last().cloned().unwrap_or_default()));
        if !tag.ends_with('/') {
            open.push(name);
        }
    }
    assert!(open.is_empty(), "unclosed {open:?}");
    out
}

#[test]
fn the_tbx_export_is_valid_tbx_basic() {
    use cmem::align::Term;
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de-CH").unwrap());
    let mined: Vec<Term> =
        serde_json::from_str(r#"[{"source":"file manager","target":"Dateiverwaltung","count":7,"seen":9,"share":0.778,"noun":true,"example":42},
            {"source":"save as","target":"speichern unter","count":3,"seen":3,"share":1.0,"noun":false}]"#)
            .unwrap();
    let mut terms = vec![Term::given("R&D <team>", "F&E \"Team\"")];
    terms.extend(mined);
    for (what, list) in [("three terms", &terms[..]), ("no term", &[][..])] {
        let doc = cmem::terms::to_tbx(list, &en, &de);
        // The core structure (the NVDL's first step: the TBX namespace against the core
        // RNG, module elements allowed where the DCT style allows them).
        match relaxng(&doc, "TBXcoreStructV03.rng") {
            None => return,
            Some(result) => {
                result.unwrap_or_else(|e| panic!("{what}: not valid TBX core structure:\n{e}\n{doc}"))
            }
        }
        // Each module element against its module's schema, as the NVDL attaches them.
        for (prefix, ns, schema) in [
            ("min", "http://www.tbxinfo.net/ns/min", "Min.rng"),
            ("basic", "http://www.tbxinfo.net/ns/basic", "Basic.rng"),
        ] {
            let open = format!("<{prefix}:");
            for (at, _) in doc.match_indices(&open) {
                let rest = &doc[at + open.len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
                let close = format!("</{prefix}:{name}>");
                let end = rest.find(&close).expect("closed");
                let content = &rest[name.len() + 1..end];
                let alone = format!("<{name} xmlns=\"{ns}\">{content}</{name}>");
                relaxng(&alone, schema).unwrap().unwrap_or_else(|e| panic!("{alone} against {schema}: {e}"));
            }
        }
        // The Schematron rules of TBX-Basic (DCT) that bear on what the writer uses.
        assert!(doc.contains("<tbx type=\"TBX-Basic\" style=\"dct\""), "{doc}");
        for (name, parent) in elements_with_parents(&doc) {
            match name.as_str() {
                "min:partOfSpeech" => assert_eq!(parent, "termSec", "a termNote outside termSec"),
                "basic:source" => assert!(["conceptEntry", "langSec", "termSec"].contains(&parent.as_str())),
                // DCA-style elements (`termNote type=…`, `descrip type=…`) are not DCT.
                "termNote" | "descrip" | "admin" | "xref" | "ref" => {
                    panic!("DCA element {name} in a DCT file:\n{doc}")
                }
                _ => {}
            }
        }
    }
    let doc = cmem::terms::to_tbx(&terms, &en, &de);
    assert!(doc.contains("<term>r&amp;d &lt;team&gt;</term>"), "{doc}");
    assert!(doc.contains("<min:partOfSpeech>noun</min:partOfSpeech><basic:source>cmem entry 42</basic:source><note>7 of 9 sightings"), "{doc}");
    // A broken document is caught: the check can fail.
    let broken = doc.replacen("<term>", "<termx>", 1).replacen("</term>", "</termx>", 1);
    assert!(relaxng(&broken, "TBXcoreStructV03.rng").unwrap().is_err());
}
