//! The files localizers live in: gettext PO catalogs, Weblate's memory JSON, translated
//! XLIFF, on real files of `testdata/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Recognizer, Run};
use cmem_formats::po::read_catalog;
use cmem_formats::{
    collect_items, import, recycle_document, recycle_po, Batch, ImportOptions, PoOptions, PoReader, PoWriter,
    RecycleOptions, WeblateOptions, WeblateReader, WeblateWriter, XliffDocument, XliffInOptions, XliffReader,
    CSV_HEADER,
};

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(rel)
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(testdata(rel)).unwrap()
}

fn po_options(name: &str) -> PoOptions {
    let mut o = PoOptions::default();
    o.file_name = name.to_owned();
    o
}

/// `msgfmt --check` accepts `bytes`. Without msgfmt the check cannot run: outside CI
/// that is said loudly and the test goes on; under CI (`CI` set) it fails.
fn msgfmt_accepts(bytes: &[u8], what: &str) {
    let dir = std::env::temp_dir().join(format!("cmem-msgfmt-{}-{what}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("check.po");
    std::fs::write(&file, bytes).unwrap();
    match Command::new("msgfmt").arg("--check").arg("-o").arg("/dev/null").arg(&file).output() {
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "msgfmt is needed under CI: {e}");
            eprintln!(
                "!!!!! msgfmt not found ({e}): `msgfmt --check` of {what} NOT RUN; install gettext !!!!!"
            );
        }
        Ok(out) => assert!(
            out.status.success(),
            "msgfmt --check rejects {what}: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
    let _ = std::fs::remove_dir_all(dir);
}

fn store_of(entries: &[NewEntry]) -> MemStore {
    let store = MemStore::new();
    store.write(entries).unwrap();
    store
}

fn hook(s: &str, t: &str) -> (Vec<Run>, Vec<Run>) {
    static RECOGNIZER: std::sync::OnceLock<Recognizer> = std::sync::OnceLock::new();
    RECOGNIZER.get_or_init(Recognizer::default).recognize_pair(s, t)
}

mod po {
    use super::*;

    #[test]
    fn a_real_catalog_accounts_for_every_message() {
        let reader =
            PoReader::new(read("po/allauth-ar.po").as_slice(), po_options("allauth-ar.po"), Some(&hook))
                .unwrap();
        let tally = reader.tally();
        // polib counts 376 messages, all translated, and 22 obsolete ones.
        assert_eq!(
            (tally.entries, tally.obsolete, tally.fuzzy, tally.untranslated, tally.problems),
            (376, 22, 0, 0, 0)
        );
        assert_eq!(tally.messages, 398);
        let (entries, problems) = collect_items(reader).unwrap();
        assert!(problems.is_empty());
        assert_eq!(entries.len(), 376);
        assert!(entries.iter().all(|e| e.variants[1].locale.as_str() == "ar"));
        assert_eq!(entries.iter().filter(|e| !e.unit.is_empty()).count(), 2, "two msgctxt");
        let plural = entries
            .iter()
            .filter(|e| matches!(e.variants[1].runs.as_slice(), [Run::Plural(c)] if c.forms.len() == 6));
        assert!(plural.count() > 0, "Arabic plurals keep six forms");
        // A python-brace-format message holds its `{…}` as a code.
        let brace = entries
            .iter()
            .find(|e| e.metadata.iter().any(|(k, v)| k == "po:flags" && v == "python-brace-format"))
            .unwrap();
        assert!(brace.variants[0].runs.iter().any(|r| r.code().is_some_and(|c| c.data.starts_with('{'))));
    }

    #[test]
    fn invalid_catalogs_give_located_problems() {
        let (entries, problems) = collect_items(
            PoReader::new(
                read("po/invalid-msgstr-without-msgid.po").as_slice(),
                {
                    let mut o = po_options("a.po");
                    o.target_locale = Some(Locale::parse("de").unwrap());
                    o
                },
                None,
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].to_string(), "po: a.po: line 4, column 1: msgstr without msgid");
        let mut o = po_options("b.po");
        o.target_locale = Some(Locale::parse("de").unwrap());
        let (_, problems) = collect_items(
            PoReader::new(read("po/invalid-unknown-keyword.po").as_slice(), o.clone(), None).unwrap(),
        )
        .unwrap();
        assert_eq!(problems[0].to_string(), "po: b.po: line 3, column 1: keyword \"msg\" unknown");
        o.strict = true;
        let err =
            collect_items(PoReader::new(read("po/invalid-unknown-keyword.po").as_slice(), o, None).unwrap())
                .unwrap_err();
        assert_eq!(err.line(), Some(3));
        // No header: the language comes from the options; the plural is read as it is.
        let mut o = po_options("ru.po");
        o.target_locale = Some(Locale::parse("ru").unwrap());
        let (entries, problems) = collect_items(
            PoReader::new(read("po/invalid-ru-missing-plural-form.po").as_slice(), o, None).unwrap(),
        )
        .unwrap();
        assert!(problems.is_empty());
        assert_eq!(entries.len(), 1);
    }

    #[test]
    fn a_failed_strict_import_leaves_the_store_as_it_was() {
        let store = MemStore::new();
        let mut o = po_options("a.po");
        o.target_locale = Some(Locale::parse("de").unwrap());
        let reader = PoReader::new(read("po/invalid-msgstr-without-msgid.po").as_slice(), o, None).unwrap();
        let mut options = ImportOptions::default();
        options.strict = true;
        assert!(import(&store, reader, &options, &mut |_| {}).is_err());
        assert_eq!(store.stats().unwrap().entries, 0);
    }

    #[test]
    fn export_then_import_keeps_the_count() {
        let (entries, _) = collect_items(
            PoReader::new(read("po/allauth-ar.po").as_slice(), po_options("ar.po"), Some(&hook)).unwrap(),
        )
        .unwrap();
        let (en, ar) = (Locale::parse("en").unwrap(), Locale::parse("ar").unwrap());
        let mut w = PoWriter::new(Vec::new(), en, ar).unwrap();
        for e in &entries {
            w.write_entry(e).unwrap();
        }
        assert_eq!(w.written(), 376);
        let bytes = w.finish().unwrap();
        msgfmt_accepts(&bytes, "an exported catalog");
        let reader = PoReader::new(bytes.as_slice(), po_options("export.po"), Some(&hook)).unwrap();
        let (again, problems) = collect_items(reader).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(again.len(), 376);
        for (a, b) in entries.iter().zip(&again) {
            assert_eq!(a.variants, b.variants);
            assert_eq!(a.unit, b.unit);
        }
    }

    /// The catalog with every translation emptied, recycled from the memory of the
    /// translated one, gets every translation back; every other byte is kept.
    #[test]
    fn recycle_fills_every_message_and_keeps_every_other_byte() {
        let (entries, _) = collect_items(
            PoReader::new(read("po/allauth-ar.po").as_slice(), po_options("ar.po"), Some(&hook)).unwrap(),
        )
        .unwrap();
        let store = store_of(&entries);
        let input = read("po/allauth-ar-untranslated.po");
        let mut options = RecycleOptions::default();
        options.recognizer = Some(Recognizer::default());
        options.threads = 1;
        let mut out = Vec::new();
        let report = recycle_po(input.as_slice(), "ar.po", &mut out, &store, &options).unwrap();
        assert_eq!((report.segments, report.filled, report.filled_exact), (376, 376, 376), "{report:?}");
        // Every message stands where the memory's did: each fill is a context match,
        // marked by a translator comment.
        assert_eq!(report.filled_context, 376, "{report:?}");
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(text.matches("# cmem: context match (0.1)\n").count(), 376);
        let out: Vec<u8> = text.replace("# cmem: context match (0.1)\n", "").into_bytes();
        msgfmt_accepts(&out, "a recycled catalog");
        let (filled, _) =
            collect_items(PoReader::new(out.as_slice(), po_options("out.po"), Some(&hook)).unwrap()).unwrap();
        let key = |e: &NewEntry| (e.unit.clone(), serde_json::to_string(&e.variants).unwrap());
        let mut want: Vec<_> = entries.iter().map(key).collect();
        let mut got: Vec<_> = filled.iter().map(key).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want);
        // Outside the msgstr statements, the bytes are the input's.
        let without_msgstr = |bytes: &[u8]| {
            let c = read_catalog(bytes, "x.po").unwrap();
            let mut spans: Vec<_> =
                c.messages.iter().flat_map(|m| m.strs.iter().map(|s| s.span.clone())).collect();
            spans.sort_by_key(|s| s.start);
            let mut rest = String::new();
            let mut at = 0;
            for s in spans {
                rest.push_str(&c.text[at..s.start]);
                at = s.end;
            }
            rest.push_str(&c.text[at..]);
            rest
        };
        assert_eq!(without_msgstr(&out), without_msgstr(&input));
    }

    const POT: &str = concat!(
        "# SOME DESCRIPTIVE TITLE.\r\n#, fuzzy\r\nmsgid \"\"\r\nmsgstr \"\"\r\n",
        "\"Project-Id-Version: demo\\n\"\r\n\"Language: \\n\"\r\n",
        "\"Content-Type: text/plain; charset=CHARSET\\n\"\r\n",
        "\"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n\"\r\n\r\n",
        "#: main.c:1\r\n#, c-format\r\nmsgid \"Open %s\"\r\nmsgstr \"\"\r\n\r\n",
        "#: main.c:2\r\nmsgid \"Remove the selected files from this list\"\r\nmsgstr \"\"\r\n\r\n",
        "#: main.c:3\r\n#, c-format\r\nmsgid \"%d file\"\r\nmsgid_plural \"%d files\"\r\nmsgstr[0] \"\"\r\nmsgstr[1] \"\"\r\n\r\n",
        "#: main.c:4\r\nmsgid \"Nothing like it\"\r\nmsgstr \"\"\r\n",
    );

    #[test]
    fn a_template_is_refused_for_import_and_pre_translated() {
        let e = PoReader::new(POT.as_bytes(), po_options("messages.pot"), None).unwrap_err();
        assert!(e.to_string().contains("template"), "{e}");
        let memory = "msgid \"\"\nmsgstr \"Language: de\\nPlural-Forms: nplurals=2; plural=(n != 1);\\n\"\n\n\
            #, c-format\nmsgid \"Open %s\"\nmsgstr \"%s öffnen\"\n\n\
            msgid \"Remove the selected file from the list\"\nmsgstr \"Die ausgewählte Datei aus der Liste entfernen\"\n\n\
            #, c-format\nmsgid \"%d file\"\nmsgid_plural \"%d files\"\nmsgstr[0] \"%d Datei\"\nmsgstr[1] \"%d Dateien\"\n";
        let (entries, _) =
            collect_items(PoReader::new(memory.as_bytes(), po_options("de.po"), Some(&hook)).unwrap())
                .unwrap();
        let store = store_of(&entries);
        let mut options = RecycleOptions::default();
        options.recognizer = Some(Recognizer::default());
        options.target_locale = Some(Locale::parse("de").unwrap());
        options.threads = 1;
        let mut out = Vec::new();
        let report = recycle_po(POT.as_bytes(), "messages.pot", &mut out, &store, &options).unwrap();
        assert_eq!((report.filled, report.with_candidates, report.untouched), (2, 1, 1), "{report:?}");
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(!text.replace("\r\n", "").contains('\n'), "only CRLF line breaks: {text:?}");
        assert!(text.contains("\"Language: de\\n\"\r\n\"Content-Type: text/plain; charset=UTF-8\\n\"\r\n\"Plural-Forms: nplurals=2; plural=(n != 1);\\n\""), "{text}");
        assert!(text.contains("#, c-format\r\nmsgid \"Open %s\"\r\nmsgstr \"%s öffnen\"\r\n"), "{text}");
        assert!(text.contains("msgstr[0] \"%d Datei\"\r\nmsgstr[1] \"%d Dateien\"\r\n"), "{text}");
        assert!(
            text.contains("# cmem: ") && text.contains("#: main.c:2\r\n#, fuzzy\r\nmsgid \"Remove the selected files from this list\"\r\nmsgstr \"Die ausgewählte Datei aus der Liste entfernen\"\r\n"),
            "{text}"
        );
        assert!(text.ends_with("#: main.c:4\r\nmsgid \"Nothing like it\"\r\nmsgstr \"\"\r\n"));
        msgfmt_accepts(&out, "a pre-translated template");
    }

    #[test]
    fn a_latin2_catalog_stays_in_its_charset() {
        let po: &[u8] =
            b"msgid \"\"\nmsgstr \"Language: sl\\nContent-Type: text/plain; charset=ISO-8859-2\\n\"\n\n\
            msgid \"Yes\"\nmsgstr \"\"\n\nmsgid \"No\"\nmsgstr \"\"\n\nmsgid \"Sure\"\nmsgstr \"\xb9e\"\n";
        let (en, sl) = (Locale::parse("en").unwrap(), Locale::parse("sl").unwrap());
        let pair = |s: &str, t: &str| {
            NewEntry::pair(
                cmem_core::Variant::new(en.clone(), vec![Run::text(s)]),
                cmem_core::Variant::new(sl.clone(), vec![Run::text(t)]),
            )
        };
        let store = store_of(&[pair("Yes", "Že"), pair("No", "日本")]);
        let mut options = RecycleOptions::default();
        options.threads = 1;
        let mut out = Vec::new();
        let report = recycle_po(po, "sl.po", &mut out, &store, &options).unwrap();
        assert_eq!(
            (report.filled, report.skipped),
            (1, 2),
            "the fill Latin-2 cannot hold is skipped, the translation kept"
        );
        assert!(out.windows(13).any(|w| w == b"msgstr \"\xaee\"\n\n"), "{}", String::from_utf8_lossy(&out));
        assert!(out.ends_with(b"msgstr \"\xb9e\"\n"));
    }

    #[test]
    fn analyze_counts_po_and_across_files() {
        let (entries, _) = collect_items(
            PoReader::new(read("po/allauth-ar.po").as_slice(), po_options("ar.po"), Some(&hook)).unwrap(),
        )
        .unwrap();
        let store = store_of(&entries);
        let mut options = cmem_formats::AnalyzeOptions::default();
        options.recognizer = Some(Recognizer::default());
        options.threads = 1;
        let mut batch = Batch::new();
        let path = testdata("po/allauth-ar-untranslated.po");
        let first = batch.add_file(&path, &store, &options).unwrap().clone();
        // The same catalog, untranslated: its messages stand where the memory's did.
        let context = first.band(cmem_formats::Band::Context).unwrap().segments;
        assert!(context > 360, "{first}");
        assert_eq!(first.segments, 376);
        let second = batch.add_file(&path, &store, &options).unwrap().clone();
        assert_eq!(second, {
            let mut s = first.clone();
            s.file = second.file.clone();
            s
        });
        let total = batch.total();
        assert_eq!(total.segments, 752);
        let reps = |a: &cmem_formats::Analysis| a.band(cmem_formats::Band::Repetition).unwrap().segments;
        // The second file repeats the first: its segments are repetitions in the total,
        // but for the context matches, which stay context matches.
        assert_eq!(reps(&total), reps(&first) * 2 + first.segments - reps(&first) - context);
        assert_eq!(total.band(cmem_formats::Band::Context).unwrap().segments, context * 2);
        let csv = format!("{CSV_HEADER}{}", total.csv_rows());
        assert!(
            csv.starts_with(
                "file,band,segments,words,words_percent,characters,weight,weighted_words\ntotal,context,"
            ),
            "{csv}"
        );
        assert!(csv.contains("\ntotal,repetitions,"), "{csv}");
        assert!(
            csv.ends_with(&format!(
                "total,total,752,{},100.0,{},,{:.1}\n",
                total.words, total.characters, total.weighted_words
            )),
            "{csv}"
        );
    }
}

mod weblate {
    use super::*;

    fn round_trip(rel: &str) {
        let raw = read(rel);
        let mut o = WeblateOptions::default();
        o.file_name = rel.to_owned();
        let (entries, problems) =
            collect_items(WeblateReader::new(raw.as_slice(), o, Some(&hook)).unwrap()).unwrap();
        assert!(problems.is_empty());
        let mut w = WeblateWriter::new(Vec::new(), WeblateOptions::default()).unwrap();
        for e in &entries {
            w.write_entry(e).unwrap();
        }
        let out = w.finish().unwrap();
        let before: serde_json::Value = serde_json::from_slice(&raw).unwrap();
        let after: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(after, before, "{}", String::from_utf8_lossy(&out));
        // Field order is kept too.
        let keys = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes).into_owned();
            text.match_indices('"').count()
        };
        assert_eq!(keys(&out), keys(&raw));
    }

    #[test]
    fn a_weblate_memory_moves_in_and_out_unchanged() {
        round_trip("weblate/memory.json");
        round_trip("weblate/dump.json");
    }

    #[test]
    fn entries_from_elsewhere_get_every_weblate_field() {
        let (entries, _) = collect_items(
            PoReader::new(read("po/allauth-ar.po").as_slice(), po_options("ar.po"), None).unwrap(),
        )
        .unwrap();
        let mut w = WeblateWriter::new(Vec::new(), WeblateOptions::default()).unwrap();
        w.write_entry(&entries[0]).unwrap();
        let out: serde_json::Value = serde_json::from_slice(&w.finish().unwrap()).unwrap();
        let fields: Vec<&str> = out[0].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(fields.len(), 8, "{out}");
        assert_eq!(out[0]["target_language"], "ar");
        assert_eq!(out[0]["category"], 1);
    }
}

mod xliff_in {
    use super::*;

    /// A translated document imported into a memory, then recycled (its targets
    /// replaced) from that memory: every imported segment gets its translation back.
    fn round_trip(rel: &str, expect_at_least: usize) {
        let raw = read(rel);
        let mut o = XliffInOptions::default();
        o.file_name = rel.to_owned();
        let reader = XliffReader::new(raw.as_slice(), o, Some(&hook)).unwrap();
        let (entries, problems) = collect_items(reader).unwrap();
        assert!(problems.is_empty());
        assert!(entries.len() >= expect_at_least, "{rel}: {} entries", entries.len());
        let store = store_of(&entries);
        let mut doc = XliffDocument::parse(raw.clone(), rel).unwrap();
        let wanted: Vec<(usize, Vec<Run>)> = doc
            .segments()
            .iter()
            .enumerate()
            .filter(|(_, s)| entries.iter().any(|e| e.unit == s.unit_id))
            .filter_map(|(i, s)| s.target.clone().map(|t| (i, t)))
            .collect();
        let mut options = RecycleOptions::default();
        options.overwrite = true;
        options.recognizer = Some(Recognizer::default());
        options.threads = 1;
        let report = recycle_document(&mut doc, &store, &options).unwrap();
        let again = XliffDocument::parse(doc.to_bytes(), rel).unwrap();
        for (i, target) in &wanted {
            if again.segments()[*i].approved {
                continue; // recycle never touches an approved segment
            }
            assert_eq!(
                cmem_core::flatten_runs(again.segments()[*i].target.as_deref().unwrap_or(&[])),
                cmem_core::flatten_runs(target),
                "{rel}: segment {i} ({report:?})"
            );
        }
    }

    #[test]
    fn translated_xliff_12_and_2_import_and_recycle_back() {
        round_trip("xliff12/okapi__RB-12-Test02.xlf", 2);
        round_trip("xliff2/matecat__uber__memsource-louvre-en_us-ar.xliff", 10);
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn no_panic_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = read_catalog(bytes.as_slice(), "x.po");
            let mut o = po_options("x.po");
            o.target_locale = Some(Locale::parse("de").unwrap());
            if let Ok(r) = PoReader::new(bytes.as_slice(), o, None) {
                let _ = collect_items(r);
            }
            let _ = WeblateReader::new(bytes.as_slice(), WeblateOptions::default(), None).map(collect_items);
        }

        #[test]
        fn strings_survive_write_then_read(
            pairs in proptest::collection::vec(("[a-zA-Z0-9 \"\\\\\n\t%{}é<>]{1,30}", "[a-zA-Z0-9 \"\\\\\n\t%{}ä]{0,30}"), 1..8),
            context in proptest::option::of("[a-z \"\n]{1,10}"),
        ) {
            let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
            let mut w = PoWriter::new(Vec::new(), en.clone(), de.clone()).unwrap();
            let mut written = Vec::new();
            for (s, t) in &pairs {
                let mut e = NewEntry::pair(cmem_core::Variant::new(en.clone(), vec![Run::text(s.as_str())]), cmem_core::Variant::new(de.clone(), if t.is_empty() { vec![] } else { vec![Run::text(t.as_str())] }));
                e.unit = context.clone().unwrap_or_default();
                if !written.iter().any(|w: &NewEntry| w.variants[0] == e.variants[0]) {
                    written.push(e.clone());
                }
                w.write_entry(&e).unwrap();
            }
            let bytes = w.finish().unwrap();
            let reader = PoReader::new(bytes.as_slice(), po_options("p.po"), None).unwrap();
            let tally = reader.tally();
            let (read, problems) = collect_items(reader).unwrap();
            prop_assert!(problems.is_empty());
            let translated: Vec<&NewEntry> = written.iter().filter(|e| !e.variants[1].runs.is_empty()).collect();
            prop_assert_eq!(read.len(), translated.len());
            prop_assert_eq!(tally.untranslated as usize, written.len() - translated.len());
            for (a, b) in translated.iter().zip(&read) {
                prop_assert_eq!(&a.variants, &b.variants);
                prop_assert_eq!(&a.unit, &b.unit);
            }
        }
    }
}

#[test]
fn recycle_file_takes_a_catalog_by_its_name() {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let store = store_of(&[NewEntry::pair(
        cmem_core::Variant::new(en, vec![Run::text("Open the file")]),
        cmem_core::Variant::new(de.clone(), vec![Run::text("Datei öffnen")]),
    )]);
    let dir = std::env::temp_dir().join(format!("cmem-recycle-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (pot, po) = (dir.join("messages.pot"), dir.join("de.po"));
    std::fs::write(
        &pot,
        "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\nmsgid \"Open the file\"\nmsgstr \"\"\n",
    )
    .unwrap();
    let mut options = cmem_formats::RecycleOptions::default();
    options.target_locale = Some(de);
    let report = cmem_formats::recycle_file(&pot, &po, &store, &options).unwrap();
    assert_eq!(report.filled, 1, "{report}");
    let text = std::fs::read_to_string(&po).unwrap();
    assert!(text.contains("msgid \"Open the file\"\nmsgstr \"Datei öffnen\""), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
