//! Integration tests of the SQLite store: the store contract, lookups equal to the
//! in-memory reference on real strings, migrations and compatibility, bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cmem_core::ContentMemoryExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cmem_conformance::Reopening;
use cmem_core::imp::{ExactQuery, KeyKind, Keys, KindSet};
use cmem_core::model::run::runs_to_json;
use cmem_core::store::{CandidateQuery, CandidateSink};
use cmem_core::{
    lookup, Code, ContentMemory, EntryId, ErrorKind, Locale, LookupOptions, LookupRequest, MemStore,
    NewEntry, Origin, Point, Run, SearchQuery, Variant, VersionQuery, WriteOutcome,
};
use cmem_sqlite::{SqliteOptions, SqliteStore};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cmem-sqlite-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn loc(tag: &str) -> Locale {
    Locale::parse(tag).unwrap()
}

fn pair(src: &str, tgt: &str) -> NewEntry {
    NewEntry::pair(Variant::new(loc("en"), runs(src)), Variant::new(loc("de"), runs(tgt)))
}

/// Text with `%s`/`%d` placeholders as `Ph` codes, numbered in order (so the
/// structural keys differ from the plain ones on real strings).
fn runs(text: &str) -> Vec<Run> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut n = 0;
    while let Some(i) = rest.find(['%']) {
        let tok = rest.get(i..i + 2).unwrap_or("");
        if tok == "%s" || tok == "%d" {
            if i > 0 {
                out.push(Run::text(&rest[..i]));
            }
            n += 1;
            out.push(Run::Ph(Code::new(n.to_string()).equiv(tok).data(tok)));
            rest = &rest[i + 2..];
        } else {
            out.push(Run::text(&rest[..i + 1]));
            rest = &rest[i + 1..];
        }
    }
    if !rest.is_empty() {
        out.push(Run::text(rest));
    }
    out
}

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(rel)
}

fn sample_entries() -> Vec<NewEntry> {
    let text = std::fs::read_to_string(testdata("corpus/en-de-sample.jsonl")).unwrap();
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            pair(v["source"].as_str().unwrap(), v["target"].as_str().unwrap())
        })
        .collect()
}

fn sample_queries() -> Vec<String> {
    let text = std::fs::read_to_string(testdata("corpus/queries-sample.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["query"].as_str().unwrap().to_owned())
        .collect()
}

type Summary = Vec<(i64, String, String, bool)>;

fn summarize(store: &dyn ContentMemory, query: &str, opts: &LookupOptions) -> Summary {
    let req = LookupRequest::new(runs(query), loc("en"), loc("de")).options(opts.clone());
    lookup(store, &req)
        .unwrap()
        .into_iter()
        .map(|m| (m.entry.id.0, format!("{:.6}", m.score), m.match_type.to_string(), m.ambiguous))
        .collect()
}

fn opts() -> LookupOptions {
    LookupOptions::default()
}

#[test]
fn write_get_entries_delete_round_trip() {
    let store = SqliteStore::open_in_memory().unwrap();
    let mut e = pair("Click %s to open", "Klicken Sie auf %s");
    e.point = Point::parse("web/app").unwrap();
    e.unit = "block-1".into();
    e.project_id = "p1".into();
    e.metadata = vec![("note".into(), "x".into()), ("note".into(), "y".into())];
    e.origins = vec![Origin {
        project_id: "p1".into(),
        context_fingerprint: "fp".into(),
        created_at: "2024-01-01T00:00:00Z".into(),
    }];
    let out = store.write(&[e.clone(), pair("Save", "Speichern")]).unwrap();
    assert_eq!(out, vec![WriteOutcome::Inserted(EntryId(1)), WriteOutcome::Inserted(EntryId(2))]);
    let got = store.get(EntryId(1)).unwrap().unwrap();
    assert_eq!(got, e.clone().into_entry(EntryId(1)));
    assert_eq!(store.entries(None, 10).unwrap().len(), 2);
    assert_eq!(store.entries(Some(EntryId(1)), 10).unwrap()[0].id, EntryId(2));
    assert!(store.delete(EntryId(1)).unwrap());
    assert!(!store.delete(EntryId(1)).unwrap());
    assert!(store.get(EntryId(1)).unwrap().is_none());
    // Ids are never reused.
    let out = store.write(&[e]).unwrap();
    assert_eq!(out, vec![WriteOutcome::Inserted(EntryId(3))]);
}

#[test]
fn dedupe_appends_origins_like_memstore() {
    let sql = SqliteStore::open_in_memory().unwrap();
    let mem = MemStore::new();
    let o = |p: &str| Origin {
        project_id: p.into(),
        context_fingerprint: String::new(),
        created_at: String::new(),
    };
    let mut a = pair("Open", "Öffnen");
    a.origins = vec![o("a")];
    let mut b = pair("Open", "Öffnen");
    b.origins = vec![o("a"), o("b")];
    b.project_id = "other".into();
    let mut c = pair("Open", "Öffnen");
    c.unit = "u".into();
    for store in [&sql as &dyn ContentMemory, &mem] {
        let out = store.write(&[a.clone(), b.clone(), c.clone()]).unwrap();
        assert_eq!(
            out,
            vec![
                WriteOutcome::Inserted(EntryId(1)),
                WriteOutcome::Deduplicated(EntryId(1)),
                WriteOutcome::Inserted(EntryId(2))
            ]
        );
    }
    assert_eq!(sql.get(EntryId(1)).unwrap(), mem.get(EntryId(1)).unwrap());
    assert_eq!(sql.get(EntryId(1)).unwrap().unwrap().origins, vec![o("a"), o("b")]);
}

#[test]
fn a_failed_batch_leaves_nothing() {
    let store = SqliteStore::open_in_memory().unwrap();
    store.write(&[pair("Keep me", "Behalte mich")]).unwrap();
    let bad = NewEntry { variants: vec![Variant::new(loc("en"), runs("x"))], ..NewEntry::default() };
    let err = store.write(&[pair("New one", "Neu"), bad]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidEntry);
    assert!(err.to_string().contains("entry 2 of the batch"), "{err}");
    assert_eq!(store.stats().unwrap().entries, 1);
}

/// A store at `path` holding the first 50 sample entries, on a disk that fills up: the
/// file capped at two pages more than it has.
fn nearly_full(path: &Path) -> SqliteStore {
    {
        let store = SqliteStore::open(path).unwrap();
        store.write(&sample_entries()[..50]).unwrap();
    }
    let conn = rusqlite::Connection::open(path).unwrap();
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
    drop(conn);
    let store = SqliteStore::open(path).unwrap();
    assert_eq!(store.set_max_page_count(pages as u64 + 2).unwrap(), pages as u64 + 2);
    store
}

#[test]
fn a_full_disk_fails_the_batch_and_keeps_what_was_stored() {
    let dir = TempDir::new("full");
    let path = dir.path("full.db");
    let store = nearly_full(&path);
    let big: Vec<NewEntry> = sample_entries()[50..].to_vec();
    let err = store.write(&big).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store, "{err}");
    assert!(err.to_string().contains("full.db"), "{err}");
    assert_eq!(store.stats().unwrap().entries, 50);
    // The store is still usable, and the cache did not take the failed batch.
    let text = cmem_core::model::run::plain_text(&sample_entries()[3].variants[0].runs);
    let m = summarize(&store, &text, &opts());
    assert!(!m.is_empty() && m.iter().all(|(id, ..)| *id <= 50));
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.stats().unwrap().entries, 50);
}

#[test]
fn a_session_of_whole_batches_only_rolls_back_after_a_failed_batch() {
    let dir = TempDir::new("whole");
    let path = dir.path("whole.db");
    let store = nearly_full(&path);
    let mut session = store.begin().unwrap();
    // An import: no savepoint per batch, so a batch that fails past validation leaves
    // part of itself in the session, which then refuses everything but a rollback.
    session.all_or_nothing();
    let bad = NewEntry { variants: vec![Variant::new(loc("en"), runs("x"))], ..NewEntry::default() };
    let invalid = session.write(&[pair("Checked first", "Zuerst geprüft"), bad]).unwrap_err();
    assert_eq!(invalid.kind(), ErrorKind::InvalidEntry, "validation fails before any write");
    session.write(&sample_entries()[50..52]).unwrap();
    let full = session.write(&sample_entries()[52..]).unwrap_err();
    assert_eq!(full.kind(), ErrorKind::Store, "{full}");
    let later = session.write(&sample_entries()[52..53]).unwrap_err();
    assert!(later.to_string().contains("can only be rolled back"), "{later}");
    let commit = session.commit().unwrap_err();
    assert!(commit.to_string().contains("can only be rolled back"), "{commit}");
    assert_eq!(store.stats().unwrap().entries, 50);
    drop(store);
    assert_eq!(SqliteStore::open(&path).unwrap().stats().unwrap().entries, 50);
}

#[test]
fn a_first_import_builds_the_key_indexes_at_its_end_and_a_dropped_one_keeps_them() {
    let dir = TempDir::new("bulk");
    let schema = |path: &Path| {
        let conn = rusqlite::Connection::open(path).unwrap();
        let mut stmt =
            conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").unwrap();
        let rows = stmt
            .query_map([], |r| {
                Ok(format!(
                    "{}|{}|{}|{:?}",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?
                ))
            })
            .unwrap();
        rows.collect::<rusqlite::Result<Vec<String>>>().unwrap()
    };
    let fresh = dir.path("fresh.db");
    drop(SqliteStore::open(&fresh).unwrap());
    let entries: Vec<NewEntry> = (0..600)
        .map(|i| pair(&format!("Open file number {i}"), &format!("Datei Nummer {i} öffnen")))
        .collect();
    // A session dropped after its first large batch: the indexes are back.
    let path = dir.path("bulk.db");
    let store = SqliteStore::open(&path).unwrap();
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries).unwrap();
    drop(session);
    assert_eq!(schema(&path), schema(&fresh));
    assert_eq!(store.stats().unwrap().entries, 0);
    // Committed: the same schema as a new memory's, and the exact tier reads its index.
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries[..400]).unwrap();
    session.write(&entries[400..]).unwrap();
    session.commit().unwrap();
    assert_eq!(schema(&path), schema(&fresh));
    let conn = rusqlite::Connection::open(&path).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    let m = summarize(&store, "Open file number 123", &opts());
    assert_eq!(m.first().map(|m| (m.0, m.1.as_str())), Some((124, "1.000000")), "{m:?}");
    // A later large batch into a memory that has entries fills the indexes as it goes.
    let more: Vec<NewEntry> = (600..1200)
        .map(|i| pair(&format!("Open file number {i}"), &format!("Datei Nummer {i} öffnen")))
        .collect();
    store.write(&more).unwrap();
    assert_eq!(schema(&path), schema(&fresh));
    assert_eq!(store.stats().unwrap().entries, 1200);
}

/// The journal mode the file's header records: 1 a rollback journal, 2 WAL.
fn header_journal(path: &Path) -> u8 {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.len() >= 100, "no database header in {}", path.display());
    assert_eq!(bytes[18], bytes[19], "read and write versions differ");
    bytes[18]
}

#[test]
fn a_first_import_allowed_alone_writes_with_a_rollback_journal_and_returns_to_wal() {
    let dir = TempDir::new("alone");
    let entries: Vec<NewEntry> = (0..600)
        .map(|i| pair(&format!("Close window number {i}"), &format!("Fenster Nummer {i} schließen")))
        .collect();
    let alone = SqliteOptions::default().first_import_alone(true);
    // Alone: while the session writes, the file has a rollback journal and no WAL.
    let path = dir.path("alone.db");
    let store = SqliteStore::open_with(&path, alone.clone()).unwrap();
    assert_eq!(header_journal(&path), 2);
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries[..500]).unwrap();
    assert_eq!(header_journal(&path), 1, "the import holds the memory alone");
    assert!(!dir.path("alone.db-wal").exists());
    session.write(&entries[500..]).unwrap();
    session.commit().unwrap();
    assert_eq!(header_journal(&path), 2, "back in WAL mode once committed");
    assert!(!dir.path("alone.db-journal").exists());
    assert_eq!(store.stats().unwrap().entries, 600);
    let m = summarize(&store, "Close window number 123", &opts());
    assert_eq!(m.first().map(|m| (m.0, m.1.as_str())), Some((124, "1.000000")), "{m:?}");
    // A later large session into a memory with entries stays in WAL.
    let more: Vec<NewEntry> = (600..1200)
        .map(|i| pair(&format!("Close window number {i}"), &format!("Fenster Nummer {i} schließen")))
        .collect();
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&more).unwrap();
    assert_eq!(header_journal(&path), 2);
    session.commit().unwrap();
    drop(store);
    assert_eq!(SqliteStore::open(&path).unwrap().stats().unwrap().entries, 1200);

    // Rolled back (a dropped session): back in WAL mode, empty, whole.
    let path = dir.path("dropped.db");
    let store = SqliteStore::open_with(&path, alone.clone()).unwrap();
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries).unwrap();
    assert_eq!(header_journal(&path), 1);
    drop(session);
    assert_eq!(header_journal(&path), 2);
    assert_eq!(store.stats().unwrap().entries, 0);
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(conn);

    // Another connection has the file open: the import stays in WAL, and that
    // connection goes on reading meanwhile.
    let path = dir.path("shared.db");
    let store = SqliteStore::open_with(&path, alone.clone()).unwrap();
    let other = rusqlite::Connection::open(&path).unwrap();
    let count =
        |c: &rusqlite::Connection| c.query_row("SELECT COUNT(*) FROM tm_entries", [], |r| r.get::<_, i64>(0));
    assert_eq!(count(&other).unwrap(), 0);
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries).unwrap();
    assert_eq!(header_journal(&path), 2, "not alone: WAL");
    assert_eq!(count(&other).unwrap(), 0);
    session.commit().unwrap();
    assert_eq!(count(&other).unwrap(), 600);

    // Without the option, as before: WAL.
    let path = dir.path("default.db");
    let store = SqliteStore::open(&path).unwrap();
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries).unwrap();
    assert_eq!(header_journal(&path), 2);
    session.commit().unwrap();
    assert_eq!(store.stats().unwrap().entries, 600);
}

#[test]
fn a_journal_an_interrupted_first_import_left_is_rolled_back_by_the_next_open() {
    let dir = TempDir::new("hot");
    let entries: Vec<NewEntry> = (0..3000)
        .map(|i| {
            pair(&format!("Print page number {i} of the report"), &format!("Seite {i} des Berichts drucken"))
        })
        .collect();
    // A session whose pages outgrow its cache spills them into the file; the process
    // then dies: the file holds a part of the import and its journal is hot. A copy of
    // both taken while the session writes is what such a death leaves.
    let path = dir.path("live.db");
    let store = SqliteStore::open_with(
        &path,
        SqliteOptions::default().first_import_alone(true).cache_kib(64).session_cache_kib(64),
    )
    .unwrap();
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries).unwrap();
    assert_eq!(header_journal(&path), 1);
    let journal = dir.path("live.db-journal");
    assert!(journal.exists(), "the import journals the pages it changes");
    for (from, to) in [(path.clone(), dir.path("dead.db")), (journal, dir.path("dead.db-journal"))] {
        std::fs::copy(from, to).unwrap();
    }
    drop(session);
    drop(store);
    let dead = dir.path("dead.db");
    assert!(std::fs::metadata(&dead).unwrap().len() > 64 * 1024, "the copy holds spilled pages");
    // A read-only open rolls the journal back (what a write open would do) and reads
    // the memory as it was before the import: empty and whole.
    let store = SqliteStore::open_with(&dead, SqliteOptions::default().read_only(true)).unwrap();
    assert_eq!(store.stats().unwrap().entries, 0);
    drop(store);
    assert!(!dir.path("dead.db-journal").exists());
    let conn = rusqlite::Connection::open(&dead).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    // And it takes the import again.
    let store = SqliteStore::open_with(&dead, SqliteOptions::default().first_import_alone(true)).unwrap();
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&entries).unwrap();
    session.commit().unwrap();
    assert_eq!(store.stats().unwrap().entries, 3000);
    assert_eq!(header_journal(&dead), 2);
}

#[test]
fn lookups_equal_memstore_on_real_strings() {
    let entries = sample_entries();
    let queries = sample_queries();
    let mem = MemStore::new();
    mem.write(&entries).unwrap();
    let sql = SqliteStore::open_in_memory().unwrap();
    for chunk in entries.chunks(700) {
        sql.write(chunk).unwrap();
    }
    let sql_fts = SqliteStore::open_in_memory_with(SqliteOptions::default().gram_index(false)).unwrap();
    sql_fts.write(&entries).unwrap();
    assert!(sql_fts.has_trigram());
    let sql_len =
        SqliteStore::open_in_memory_with(SqliteOptions::default().gram_index(false).force_no_trigram(true))
            .unwrap();
    sql_len.write(&entries).unwrap();
    assert!(!sql_len.has_trigram());
    let exact_list = opts().verify_budget(usize::MAX);
    let mut fuzzy_hits = 0;
    for (i, q) in queries.iter().enumerate() {
        // The same index in the same order: identical under the default budget too.
        let want = summarize(&mem, q, &opts());
        assert_eq!(summarize(&sql, q, &opts()), want, "query {q:?}");
        if !want.is_empty() {
            fuzzy_hits += 1;
        }
        let want_all = summarize(&mem, q, &exact_list);
        assert_eq!(summarize(&sql, q, &exact_list), want_all, "query {q:?}");
        // The SQL paths offer in another order: compare the exact lists. They scan a
        // length window, so only every 10th query keeps the test fast.
        if i % 10 == 0 {
            assert_eq!(summarize(&sql_fts, q, &exact_list), want_all, "fts5 path, query {q:?}");
            assert_eq!(summarize(&sql_len, q, &exact_list), want_all, "length path, query {q:?}");
        }
    }
    assert!(fuzzy_hits > queries.len() / 3, "only {fuzzy_hits} queries matched: the sample is not exercised");
    // Exact hits of every stored source.
    for e in entries.iter().step_by(97) {
        let keys = e.variants[0].keys();
        let q = ExactQuery {
            kind: KeyKind::Structural,
            key: &keys.structural,
            source: &loc("en"),
            target: &loc("de"),
        };
        let a: Vec<EntryId> = sql.exact(&q).unwrap().into_iter().map(|e| e.id).collect();
        let b: Vec<EntryId> = mem.exact(&q).unwrap().into_iter().map(|e| e.id).collect();
        assert_eq!(a, b);
        assert!(!a.is_empty());
    }
}

#[test]
fn cache_follows_writes_deletes_and_other_connections() {
    let dir = TempDir::new("cache");
    let path = dir.path("c.db");
    let store = SqliteStore::open(&path).unwrap();
    store.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let q = "Open the files";
    assert_eq!(summarize(&store, q, &opts()).len(), 1);
    store.write(&[pair("Open the file now", "Datei jetzt öffnen")]).unwrap();
    assert_eq!(summarize(&store, q, &opts()).len(), 2);
    assert!(store.delete(EntryId(1)).unwrap());
    assert_eq!(summarize(&store, q, &opts()).iter().map(|m| m.0).collect::<Vec<_>>(), vec![2]);
    // Another connection (another process) writes: the cache notices.
    let other = SqliteStore::open(&path).unwrap();
    other.write(&[pair("Open the filer", "Dateier öffnen")]).unwrap();
    assert_eq!(summarize(&store, q, &opts()).len(), 2);
    // A replace, by this store and by another connection: the old keys leave the cache.
    assert!(store.replace(EntryId(2), &pair("Close the window", "Fenster schließen")).unwrap());
    assert_eq!(summarize(&store, q, &opts()).iter().map(|m| m.0).collect::<Vec<_>>(), vec![3]);
    assert_eq!(
        summarize(&store, "Close the windows", &opts()).iter().map(|m| m.0).collect::<Vec<_>>(),
        vec![2]
    );
    assert!(other.replace(EntryId(3), &pair("Print the page", "Seite drucken")).unwrap());
    assert!(summarize(&store, q, &opts()).is_empty());
    assert_eq!(
        summarize(&store, "Print the pages", &opts()).iter().map(|m| m.0).collect::<Vec<_>>(),
        vec![3]
    );
}

#[test]
fn locales_follow_the_prefix_rule_and_fall_back_to_other_regions() {
    let store = SqliteStore::open_in_memory().unwrap();
    store
        .write(&[NewEntry::pair(
            Variant::new(loc("en-US"), runs("Open the file")),
            Variant::new(loc("de-DE"), runs("Datei öffnen")),
        )])
        .unwrap();
    let find = |s: &str, t: &str, text: &str| {
        let req = LookupRequest::new(runs(text), loc(s), loc(t));
        lookup(&store, &req)
            .unwrap()
            .iter()
            .map(|m| (m.score * 10_000.0).round() / 10_000.0)
            .collect::<Vec<_>>()
    };
    assert_eq!(find("en", "de", "Open the file"), [1.0]);
    assert_eq!(find("en", "de", "Open the files").len(), 1);
    assert_eq!(find("en-US", "de", "Open the files").len(), 1);
    // Another region answers, a point down a side.
    assert_eq!(find("en-GB", "de", "Open the file"), [0.99]);
    assert_eq!(find("en", "de-AT", "Open the file"), [0.99]);
    assert_eq!(find("en-GB", "de-AT", "Open the file"), [0.98]);
    assert_eq!(find("en", "fr", "Open the files"), Vec::<f64>::new());
}

#[test]
fn search_highlights_and_ranks() {
    let store = SqliteStore::open_in_memory().unwrap();
    store
        .write(&[
            pair("Open the file", "Datei öffnen"),
            pair("The file was not found. Check the file name.", "Datei nicht gefunden"),
            pair("Save all", "Alle speichern"),
        ])
        .unwrap();
    let hits = store.search(&SearchQuery::new("FILE", loc("en"))).unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits.iter().all(|h| h.snippet.contains("[file]")), "{hits:?}");
    assert!(hits[0].score >= hits[1].score);
    let hits = store.search(&SearchQuery::new("datei offnen", loc("de"))).unwrap();
    assert_eq!(hits.len(), 1, "diacritics are folded");
    assert_eq!(hits[0].snippet, "[Datei] [öffnen]");
    assert!(store.search(&SearchQuery::new("file", loc("fr"))).unwrap().is_empty());
    // Deleted entries leave the index.
    store.delete(hits[0].entry.id).unwrap();
    assert!(store.search(&SearchQuery::new("öffnen", loc("de"))).unwrap().is_empty());
}

#[test]
fn stats_and_versions() {
    let store = SqliteStore::open_in_memory().unwrap();
    let mut v1 = pair("Hello", "Hallo");
    v1.unit = "u1".into();
    v1.origins = vec![Origin {
        project_id: String::new(),
        context_fingerprint: "f1".into(),
        created_at: "2024-01-01T00:00:00Z".into(),
    }];
    let mut v2 = pair("Hello!", "Hallo!");
    v2.unit = "u1".into();
    v2.origins = vec![Origin {
        project_id: String::new(),
        context_fingerprint: "f2".into(),
        created_at: "2024-02-01T00:00:00Z".into(),
    }];
    let fr = NewEntry::pair(Variant::new(loc("en"), runs("Hello")), Variant::new(loc("fr"), runs("Bonjour")));
    store.write(&[v1, v2, fr]).unwrap();
    let stats = store.stats().unwrap();
    assert_eq!((stats.entries, stats.variants), (3, 6));
    assert_eq!(stats.pairs.len(), 2);
    assert_eq!(stats.pairs.iter().find(|p| p.target == loc("de")).unwrap().entries, 2);
    assert!(stats.size_bytes.unwrap() > 0);
    let reader = store.version_reader().unwrap();
    let vs = reader.versions(&VersionQuery::new("u1"), None).unwrap();
    assert_eq!(vs.iter().map(|v| v.entry.id.0).collect::<Vec<_>>(), vec![2, 1]);
    assert_eq!(vs[0].context_fingerprint, "f2");
    let vs = reader.versions(&VersionQuery::new("u1"), Some(EntryId(2))).unwrap();
    assert_eq!(vs.len(), 1);
    assert!(reader.versions(&VersionQuery::new(""), None).is_err());
}

#[test]
fn reopening_keeps_everything() {
    let dir = TempDir::new("reopen");
    let path = dir.path("r.db");
    let entries = sample_entries();
    {
        let store = SqliteStore::open(&path).unwrap();
        store.write(&entries[..500]).unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.stats().unwrap().entries, 500);
    let mem = MemStore::new();
    mem.write(&entries[..500]).unwrap();
    for q in sample_queries().iter().take(40) {
        assert_eq!(summarize(&store, q, &opts()), summarize(&mem, q, &opts()), "{q}");
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn many_threads_share_one_store() {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let entries = sample_entries();
    store.write(&entries[..1000]).unwrap();
    let queries = Arc::new(sample_queries());
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let store = Arc::clone(&store);
            let queries = Arc::clone(&queries);
            let extra = entries[1000 + t * 10..1010 + t * 10].to_vec();
            std::thread::spawn(move || {
                for q in queries.iter().skip(t).step_by(4).take(30) {
                    summarize(store.as_ref(), q, &opts());
                }
                store.write(&extra).unwrap();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(store.stats().unwrap().entries, 1040);
}

// ---- migrations, compatibility, bad input ----

/// Writes `entries` into a database at schema version 3 the way a v3 program did:
/// no point, no unit.
fn write_v3_rows(path: &Path, entries: &[NewEntry]) {
    let mut conn = rusqlite::Connection::open(path).unwrap();
    let tx = conn.transaction().unwrap();
    for e in entries {
        assert!(e.point.is_root() && e.unit.is_empty());
        tx.execute(
            "INSERT INTO tm_entries (project_id, identity, metadata) VALUES (?1, ?2, ?3)",
            rusqlite::params![
                e.project_id,
                e.identity_hash() as i64,
                serde_json::to_string(&e.metadata).unwrap()
            ],
        )
        .unwrap();
        let id = tx.last_insert_rowid();
        for (ord, v) in e.variants.iter().enumerate() {
            let k = Keys::of(&v.runs);
            // Keys equal to the one before them are stored as NULL.
            let s = (k.structural != k.plain).then_some(k.structural.as_str());
            let g = (k.generalized != k.structural).then_some(k.generalized.as_str());
            tx.execute(
                "INSERT INTO tm_variants (entry_id, ord, locale, runs, plain, struct_key, general_key, text) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?5)",
                rusqlite::params![id, ord as i64, v.locale.as_str(), runs_to_json(&v.runs), k.plain, s, g],
            )
            .unwrap();
            let vid = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO tm_variant_trigram (rowid, plain, struct_key, general_key) VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![vid, k.plain, s, g],
            )
            .unwrap();
            tx.execute(
                "INSERT INTO tm_variant_search (rowid, text) VALUES (?1, ?2)",
                rusqlite::params![vid, k.plain],
            )
            .unwrap();
        }
        for (seq, o) in e.origins.iter().enumerate() {
            tx.execute(
                "INSERT INTO tm_origins (entry_id, seq, project_id, context_fingerprint, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![id, seq as i64, o.project_id, o.context_fingerprint, o.created_at],
            )
            .unwrap();
        }
    }
    tx.commit().unwrap();
    conn.execute_batch("PRAGMA journal_mode = DELETE").unwrap();
}

fn v3_fixture_entries() -> Vec<NewEntry> {
    let mut out: Vec<NewEntry> = sample_entries().into_iter().step_by(150).collect();
    out[0].origins = vec![Origin {
        project_id: "seed".into(),
        context_fingerprint: "fp0".into(),
        created_at: "2023-05-01T10:00:00Z".into(),
    }];
    out[1].metadata = vec![("x-note".into(), "kept across the upgrade".into())];
    out
}

fn schema_of(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

const V3_FIXTURE: &str = "compat/v3.sqlite";

/// The committed v3 database is what the v3 migrations build (`CMEM_BLESS=1`
/// rewrites it).
#[test]
fn v3_fixture_is_built_by_the_v3_migrations() {
    let dir = TempDir::new("v3build");
    let fresh = dir.path("v3.db");
    SqliteStore::create_at_version(&fresh, 3).unwrap();
    write_v3_rows(&fresh, &v3_fixture_entries());
    let fixture = testdata(V3_FIXTURE);
    if std::env::var_os("CMEM_BLESS").is_some() {
        std::fs::create_dir_all(fixture.parent().unwrap()).unwrap();
        std::fs::copy(&fresh, &fixture).unwrap();
    }
    assert_eq!(schema_of(&fixture), schema_of(&fresh), "run with CMEM_BLESS=1 to rebuild {V3_FIXTURE}");
    assert!(schema_of(&fixture).iter().all(|s| !s.contains("point") && !s.contains("unit")));
}

#[test]
fn a_v3_database_upgrades_and_keeps_every_row() {
    let dir = TempDir::new("v3");
    let path = dir.path("v3.db");
    std::fs::copy(testdata(V3_FIXTURE), &path).unwrap();
    let store = SqliteStore::open(&path).unwrap();
    let want = v3_fixture_entries();
    let got = store.entries(None, 10_000).unwrap();
    assert_eq!(got.len(), want.len());
    // The counts of stats were filled from the rows by the upgrade.
    let stats = store.stats().unwrap();
    let variants: usize = want.iter().map(|e| e.variants.len()).sum();
    assert_eq!((stats.entries, stats.variants), (want.len() as u64, variants as u64));
    assert_eq!(stats.pairs.iter().map(|p| p.entries).sum::<u64>(), (variants - want.len()) as u64);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.to_new(), *w);
        assert!(g.point.is_root() && g.unit.is_empty());
    }
    // It works as a store: lookups equal the reference, writes carry point and unit.
    let mem = MemStore::new();
    mem.write(&want).unwrap();
    for e in want.iter().take(5) {
        let text = cmem_core::flatten_runs(&e.variants[0].runs);
        assert_eq!(summarize(&store, &text, &opts()), summarize(&mem, &text, &opts()));
    }
    let mut e = pair("A new string", "Eine neue Zeichenkette");
    e.unit = "u".into();
    e.point = Point::parse("p").unwrap();
    let id = store.write(&[e.clone()]).unwrap()[0].id();
    assert_eq!(store.get(id).unwrap().unwrap().to_new(), e);
    assert_eq!(store.search(&SearchQuery::new("neue", loc("de"))).unwrap().len(), 1);
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let v: String =
        conn.query_row("SELECT value FROM tm_meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(v, cmem_core::store::schema::SCHEMA_VERSION.to_string());
}

#[test]
fn a_schema_8_database_gets_its_counts_from_its_rows() {
    let dir = TempDir::new("v8");
    let path = dir.path("v8.db");
    let three = NewEntry {
        variants: vec![
            Variant::new(loc("en"), runs("One")),
            Variant::new(loc("de"), runs("Eins")),
            Variant::new(loc("fr"), runs("Un")),
        ],
        ..NewEntry::default()
    };
    SqliteStore::open(&path).unwrap().write(&[three, pair("Two", "Zwei"), pair("Three", "Drei")]).unwrap();
    // Back to schema 8: no counts table.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("DROP TABLE tm_counts; UPDATE tm_meta SET value = '8' WHERE key = 'schema_version'")
        .unwrap();
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    let counts = |store: &SqliteStore| {
        let s = store.stats().unwrap();
        let pairs: Vec<(String, String, u64)> =
            s.pairs.iter().map(|p| (p.source.to_string(), p.target.to_string(), p.entries)).collect();
        (s.entries, s.variants, pairs)
    };
    let want = |n: u64| (n, 2 * n + 1, vec![("en".into(), "de".into(), n), ("en".into(), "fr".into(), 1)]);
    assert_eq!(counts(&store), want(3));
    // The writes keep them from then on.
    store.write(&[pair("Four", "Vier")]).unwrap();
    assert_eq!(counts(&store), want(4));
}

#[test]
fn a_newer_schema_is_refused_and_left_alone() {
    let dir = TempDir::new("newer");
    let path = dir.path("n.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        store.write(&[pair("Keep", "Behalten")]).unwrap();
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE tm_meta SET value = '99' WHERE key = 'schema_version'", []).unwrap();
    conn.execute_batch("PRAGMA journal_mode = DELETE").unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert_eq!(std::fs::read(&path).unwrap(), before, "the file was changed");
    assert_eq!(err.kind(), ErrorKind::Schema);
    let msg = err.to_string();
    assert!(msg.contains("n.db") && msg.contains("99") && msg.contains("newer"), "{msg}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let n: i64 = conn.query_row("SELECT COUNT(*) FROM tm_entries", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
}

#[test]
fn a_changed_key_version_rekeys() {
    let dir = TempDir::new("rekey");
    let path = dir.path("k.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        store.write(&[pair("Open the %s file", "Die Datei %s öffnen"), pair("Save", "Speichern")]).unwrap();
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE tm_meta SET value = '0' WHERE key = 'key_version'", []).unwrap();
    conn.execute("UPDATE tm_variants SET plain = 'corrupt', struct_key = 'corrupt', text = 'corrupt' WHERE entry_id = 1", [])
        .unwrap();
    drop(conn);
    for options in [SqliteOptions::default(), SqliteOptions::default().gram_index(false)] {
        let store = SqliteStore::open_with(&path, options).unwrap();
        let en = loc("en");
        let de = loc("de");
        let keys = Keys::of(&runs("Open the %s file"));
        let q = ExactQuery { kind: KeyKind::Structural, key: &keys.structural, source: &en, target: &de };
        assert_eq!(store.exact(&q).unwrap().len(), 1);
        assert_eq!(summarize(&store, "Open the %s files", &opts()).len(), 1);
        assert_eq!(store.search(&SearchQuery::new("corrupt", loc("en"))).unwrap().len(), 0);
        assert_eq!(store.search(&SearchQuery::new("Datei", loc("de"))).unwrap().len(), 1);
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let (plain, kv): (String, String) = conn
        .query_row(
            "SELECT plain, (SELECT value FROM tm_meta WHERE key = 'key_version') FROM tm_variants WHERE entry_id = 1 AND ord = 0",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(plain, "Open the {%s} file");
    assert_eq!(kv, cmem_core::imp::KEY_VERSION.to_string());
}

#[test]
fn a_file_that_is_not_a_database_is_corrupt_and_untouched() {
    let dir = TempDir::new("garbage");
    let path = dir.path("garbage.db");
    let bytes: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt, "{err}");
    assert!(err.to_string().contains("garbage.db"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn another_programs_database_is_refused() {
    let dir = TempDir::new("foreign");
    let path = dir.path("other.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('x');").unwrap();
    drop(conn);
    let err = SqliteStore::open(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Schema);
    assert!(err.to_string().contains("not a cmem database"), "{err}");
    assert_eq!(schema_of(&path).len(), 1);
}

#[test]
fn unopenable_locations_and_read_only_stores() {
    let dir = TempDir::new("ro");
    let missing = dir.path("no/such/dir/x.db");
    let err = SqliteStore::open(&missing).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store);
    assert!(err.to_string().contains("no/such/dir/x.db"), "{err}");

    let path = dir.path("ro.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        store.write(&[pair("Keep", "Behalten")]).unwrap();
    }
    let store = SqliteStore::open_with(&path, SqliteOptions::default().read_only(true)).unwrap();
    assert_eq!(summarize(&store, "Keep", &opts()).len(), 1);
    let err = store.write(&[pair("More", "Mehr")]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store);
    assert!(err.to_string().contains("ro.db"), "{err}");
    assert_eq!(store.stats().unwrap().entries, 1);

    // A read-only store cannot upgrade an old database: refused, untouched.
    let old = dir.path("old.db");
    SqliteStore::create_at_version(&old, 3).unwrap();
    let err = SqliteStore::open_with(&old, SqliteOptions::default().read_only(true)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Schema, "{err}");
    assert!(!schema_of(&old).iter().any(|s| s.contains("point")));
}

/// A sink that keeps everything: the SQL candidate paths offer at least what can
/// reach the threshold.
struct Everything(Vec<EntryId>);
impl CandidateSink for Everything {
    fn offer(&mut self, id: EntryId, _kinds: KindSet, _key: &str) -> f64 {
        self.0.push(id);
        0.7
    }
    fn cutoff(&self) -> f64 {
        0.7
    }
}

#[test]
fn sql_candidates_are_a_superset_of_what_reaches_the_cutoff() {
    let entries = sample_entries();
    for options in [
        SqliteOptions::default(),
        SqliteOptions::default().gram_index(false),
        SqliteOptions::default().gram_index(false).force_no_trigram(true),
    ] {
        let store = SqliteStore::open_in_memory_with(options).unwrap();
        store.write(&entries[..1500]).unwrap();
        for q in sample_queries().iter().step_by(25) {
            let key = cmem_core::normalize_text(q);
            let mut sink = Everything(Vec::new());
            let (en, de) = (loc("en"), loc("de"));
            store
                .candidates(
                    &CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &de },
                    &mut sink,
                )
                .unwrap();
            for (i, e) in entries[..1500].iter().enumerate() {
                let k = e.variants[0].keys();
                if cmem_core::index::distance::similarity(&key, &k.plain) >= 0.7 {
                    assert!(sink.0.contains(&EntryId(i as i64 + 1)), "{q:?} missed {:?}", k.plain);
                }
            }
        }
    }
}

// ---- the shared conformance suite, on every configuration of the store ----

/// A store in a file of a new temporary directory (removed with the store); with
/// `reopen`, every candidate query is answered by a store opened for it (another
/// process, as a one-shot `cmem lookup` is): through the persisted index, caught up
/// with the writes since.
fn file_store(options: SqliteOptions, reopen: bool) -> Reopening {
    let dir = TempDir::new("conformance");
    let path = dir.path("c.db");
    let store = SqliteStore::open_with(&path, options.clone()).unwrap();
    if !reopen {
        return Reopening::keeping(store, dir);
    }
    let again = move || -> cmem_core::Result<Box<dyn ContentMemory>> {
        Ok(Box::new(SqliteStore::open_with(&path, options.clone())?))
    };
    Reopening::new(store, again, dir)
}

mod conformance_persisted_index {
    use super::*;
    cmem_conformance::conformance_suite!(|| Box::new(file_store(
        SqliteOptions::default().check_on_write(false),
        true
    )));
}

fn index_file(db: &Path, tag: &str) -> PathBuf {
    db.with_file_name(format!("{}-gix-{tag}", db.file_name().unwrap().to_string_lossy()))
}

fn persisted(store: &SqliteStore) -> Vec<(String, usize, usize)> {
    store
        .index_info()
        .unwrap()
        .into_iter()
        .map(|i| (i.locale.as_str().to_owned(), i.persisted, i.added))
        .collect()
}

/// Asserts that `store` answers each of `queries` as the reference `mem` does.
fn same_lists(store: &dyn ContentMemory, mem: &MemStore, queries: &[String]) {
    for q in queries {
        assert_eq!(summarize(store, q, &opts()), summarize(mem, q, &opts()), "query {q:?}");
    }
}

#[test]
fn a_new_process_opens_the_persisted_index_and_catches_up() {
    let dir = TempDir::new("persisted");
    let path = dir.path("p.db");
    let entries = sample_entries();
    let writer = SqliteStore::open(&path).unwrap();
    writer.write(&entries).unwrap();
    let queries: Vec<String> = sample_queries().into_iter().step_by(7).collect();
    // The reference: an in-memory store with the same writes.
    let mem = MemStore::new();
    mem.write(&entries).unwrap();
    let check = |store: &SqliteStore, mem: &MemStore| same_lists(store, mem, &queries);
    // A writer's warm leaves a file later processes open; a read-only open or one told
    // not to persist leaves nothing (an import then has no reason to warm).
    assert!(writer.index_persists());
    assert!(!SqliteStore::open_with(&path, SqliteOptions::default().read_only(true))
        .unwrap()
        .index_persists());
    assert!(!SqliteStore::open_with(&path, SqliteOptions::default().persist_index(false))
        .unwrap()
        .index_persists());
    // No file yet: the first lookup builds the index and writes it.
    assert!(!index_file(&path, "en").exists());
    writer.warm(&loc("en")).unwrap();
    assert!(index_file(&path, "en").exists());
    // Keys: a source with codes has a plain and a structural one.
    let keys = persisted(&writer)[0].2;
    assert!(keys >= entries.len());
    assert_eq!(persisted(&writer), [("en".to_owned(), 0, keys)]);
    // A new process reads it in place.
    let reader = SqliteStore::open(&path).unwrap();
    check(&reader, &mem);
    assert_eq!(persisted(&reader), [("en".to_owned(), keys, 0)]);
    // Writes, deletes after the file was written, then a new process: caught up from
    // the change log, never the stale file alone.
    let more =
        [pair("Open the file quickly now", "Datei jetzt schnell öffnen"), pair("Close it", "Schließen")];
    writer.write(&more).unwrap();
    mem.write(&more).unwrap();
    for id in [1, 5, 40] {
        assert!(writer.delete(EntryId(id)).unwrap());
        assert!(mem.delete(EntryId(id)).unwrap());
    }
    let late = SqliteStore::open(&path).unwrap();
    check(&late, &mem);
    assert_eq!(persisted(&late), [("en".to_owned(), keys, 2)]);
    assert!(summarize(&late, "Open the file quickly now", &opts()).iter().any(|m| m.1 == "1.000000"));
    // The long-lived reader catches up too.
    check(&reader, &mem);
    // A one-shot process that may not build: uses the file.
    let oneshot = SqliteStore::open_with(&path, SqliteOptions::default().build_index(false)).unwrap();
    check(&oneshot, &mem);
    assert_eq!(persisted(&oneshot).len(), 1);
}

/// The same sources with a French target: another pair whose keys compete with the
/// German ones in an index of every key.
fn french(entries: &[NewEntry]) -> Vec<NewEntry> {
    entries
        .iter()
        .map(|e| {
            let mut fr = e.clone();
            fr.variants[1] = Variant::new(loc("fr"), e.variants[1].runs.clone());
            // Sources a word apart from the German ones' (one key per text otherwise).
            fr.variants[0] = Variant::new(loc("en"), [e.variants[0].runs.clone(), runs(" again")].concat());
            fr
        })
        .collect()
}

#[test]
fn a_store_serving_some_pairs_indexes_their_keys_alone_in_files_of_their_own() {
    let dir = TempDir::new("served");
    let path = dir.path("s.db");
    let entries = sample_entries();
    let writer = SqliteStore::open(&path).unwrap();
    writer.write(&entries).unwrap();
    writer.write(&french(&entries)).unwrap();
    let served =
        || SqliteOptions::default().served(Some(cmem_core::ServedPairs::new([(loc("en"), loc("de-AT"))])));
    let queries: Vec<String> = sample_queries().into_iter().step_by(7).collect();
    // The reference: a memory of the German entries alone.
    let mem = MemStore::new();
    mem.write(&entries).unwrap();
    let check = |store: &SqliteStore| same_lists(store, &mem, &queries);
    let every = SqliteStore::open(&path).unwrap();
    every.warm(&loc("en")).unwrap();
    let all_keys = persisted(&every)[0].2;
    // Built from the tables: the German entries' keys alone, written apart.
    let german = SqliteStore::open_with(&path, served()).unwrap();
    german.warm(&loc("en")).unwrap();
    assert!(index_file(&path, "en").exists() && index_file(&path, "en--de").exists());
    let keys = persisted(&german)[0].2;
    assert!(keys >= entries.len() && keys * 2 <= all_keys + 1, "{keys} of {all_keys}");
    check(&german);
    // A source no served pair reads from gets an empty index, under a name of its own:
    // never the file of every key a process of every pair opens.
    german.warm(&loc("de")).unwrap();
    assert!(index_file(&path, "de--none").exists() && !index_file(&path, "de").exists());
    // The next process opens that file, and catches up with the German writes alone.
    let more = [pair("Open the file quickly now", "Datei jetzt schnell öffnen")];
    writer.write(&more).unwrap();
    writer.write(&french(&more)).unwrap();
    mem.write(&more).unwrap();
    let next = SqliteStore::open_with(&path, served()).unwrap();
    check(&next);
    assert_eq!(persisted(&next), [("en".to_owned(), keys, 1)]);
    // A long-lived one too, and the store of every key still serves every pair.
    check(&german);
    let fr = LookupRequest::new(runs("Open the file quickly now again"), loc("en"), loc("fr"));
    assert_eq!(lookup(&every, &fr).unwrap()[0].score, 1.0);
    assert!(lookup(&german, &fr).unwrap().iter().all(|m| m.score == 1.0), "no fuzzy French candidate");
}

#[test]
fn torn_stale_or_foreign_index_files_are_rebuilt() {
    let dir = TempDir::new("torn");
    let path = dir.path("t.db");
    let entries = sample_entries();
    let store = SqliteStore::open(&path).unwrap();
    store.write(&entries).unwrap();
    store.warm(&loc("en")).unwrap();
    let file = index_file(&path, "en");
    let whole = std::fs::read(&file).unwrap();
    let mem = MemStore::new();
    mem.write(&entries).unwrap();
    let q = &sample_queries()[3];
    // Torn (cut short): not used, and rebuilt whole.
    std::fs::write(&file, &whole[..whole.len() / 2]).unwrap();
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(summarize(&s, q, &opts()), summarize(&mem, q, &opts()));
    assert_eq!(persisted(&s)[0].1, 0, "a torn file was used");
    assert_eq!(std::fs::read(&file).unwrap().len(), whole.len());
    // Another memory's file under this memory's name: not used.
    let other = dir.path("o.db");
    let o = SqliteStore::open(&other).unwrap();
    o.write(&entries[..50]).unwrap();
    o.warm(&loc("en")).unwrap();
    std::fs::copy(index_file(&other, "en"), &file).unwrap();
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(summarize(&s, q, &opts()), summarize(&mem, q, &opts()));
    assert_eq!(persisted(&s)[0].1, 0, "a foreign file was used");
    // No file and no building allowed: SQL candidates, the same best match.
    std::fs::remove_file(&file).unwrap();
    let s = SqliteStore::open_with(&path, SqliteOptions::default().build_index(false)).unwrap();
    assert_eq!(summarize(&s, q, &opts()).first(), summarize(&mem, q, &opts()).first());
    assert!(persisted(&s).is_empty());
    assert!(!file.exists());
    // Read-only: reads a file, never writes one.
    let s = SqliteStore::open_with(&path, SqliteOptions::default().read_only(true)).unwrap();
    assert_eq!(summarize(&s, q, &opts()), summarize(&mem, q, &opts()));
    assert!(!file.exists());
}

mod conformance_file {
    use super::*;
    cmem_conformance::conformance_suite!(|| Box::new(file_store(SqliteOptions::default(), false)));
}

mod conformance_in_memory {
    use super::*;
    cmem_conformance::conformance_suite!(|| Box::new(SqliteStore::open_in_memory().unwrap()));
}

mod conformance_fts5_candidates {
    use super::*;
    cmem_conformance::conformance_suite!(sql_candidates: || Box::new(
        SqliteStore::open_in_memory_with(SqliteOptions::default().gram_index(false)).unwrap()
    ));
}

mod conformance_length_prefilter {
    use super::*;
    cmem_conformance::conformance_suite!(sql_candidates: || Box::new(
        SqliteStore::open_in_memory_with(SqliteOptions::default().gram_index(false).force_no_trigram(true))
            .unwrap()
    ));
}

#[test]
fn damaged_pages_give_corrupt_errors_not_panics() {
    let dir = TempDir::new("damaged");
    let path = dir.path("d.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        store.write(&sample_entries()[..400]).unwrap();
    }
    // Scribble over the middle of the file, past the header and the schema page.
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    assert!(n > 64 * 1024, "database too small: {n}");
    for (i, b) in bytes[n / 3..n / 3 + 32 * 1024].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37);
    }
    std::fs::write(&path, &bytes).unwrap();
    // Opening may succeed (the schema page is intact); reading the damage must fail
    // with a clear error somewhere, and nothing may panic.
    let mut errors = Vec::new();
    match SqliteStore::open(&path) {
        Err(e) => errors.push(e),
        Ok(store) => {
            if let Err(e) = store.entries(None, 10_000) {
                errors.push(e);
            }
            for q in sample_queries().iter().take(20) {
                let req = LookupRequest::new(runs(q), loc("en"), loc("de"));
                if let Err(e) = lookup(&store, &req) {
                    errors.push(e);
                }
            }
            if let Err(e) = store.stats() {
                errors.push(e);
            }
        }
    }
    assert!(!errors.is_empty(), "32 KiB of damage went unnoticed");
    for e in &errors {
        assert!(matches!(e.kind(), ErrorKind::Corrupt | ErrorKind::Store), "{e}");
        assert!(e.to_string().contains("d.db"), "{e}");
    }
    assert!(errors.iter().any(|e| e.kind() == ErrorKind::Corrupt), "{errors:?}");
}

/// A store at `path` holding `entries`, with a 50 ms busy timeout, and another connection
/// in a write transaction on it (its meta value `x` written, not committed).
fn held_by_another_writer(
    path: &std::path::Path,
    entries: &[NewEntry],
) -> (SqliteStore, rusqlite::Connection) {
    let store = SqliteStore::open_with(
        path,
        SqliteOptions::default().busy_timeout(std::time::Duration::from_millis(50)),
    )
    .unwrap();
    if !entries.is_empty() {
        store.write(entries).unwrap();
    }
    let other = rusqlite::Connection::open(path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE; INSERT INTO tm_meta (key, value) VALUES ('x', 'y');").unwrap();
    (store, other)
}

#[test]
fn a_lock_held_elsewhere_times_out_with_a_clear_error() {
    let dir = TempDir::new("locked");
    let (store, other) = held_by_another_writer(&dir.path("l.db"), &[pair("Keep", "Behalten")]);
    let err = store.write(&[pair("Blocked", "Blockiert")]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store);
    assert!(err.to_string().contains("l.db") && err.to_string().contains("locked"), "{err}");
    // Readers are not blocked by a writer in WAL mode.
    assert_eq!(store.stats().unwrap().entries, 1);
    other.execute_batch("ROLLBACK").unwrap();
    store.write(&[pair("Now", "Jetzt")]).unwrap();
    assert_eq!(store.stats().unwrap().entries, 2);
}

#[test]
fn a_meta_write_waits_for_another_writer_like_any_write() {
    let dir = TempDir::new("meta-wait");
    let (store, other) = held_by_another_writer(&dir.path("m.db"), &[]);
    // The other writer (an import's transaction, say) finishes well after the busy
    // timeout: the meta write waits for it as a write does, instead of failing.
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(400));
        other.execute_batch("COMMIT").unwrap();
    });
    store.set_meta("recognizer", "rules").unwrap();
    release.join().unwrap();
    assert_eq!(store.meta("recognizer").unwrap().as_deref(), Some("rules"));
    assert_eq!(store.meta("x").unwrap().as_deref(), Some("y"));
}

#[test]
fn search_takes_any_words_without_syntax_errors() {
    let store = SqliteStore::open_in_memory().unwrap();
    store
        .write(&[
            pair("Save \"all\" files - now!", "Alle Dateien speichern"),
            pair("C++ AND/OR (x)", "C++ UND/ODER"),
        ])
        .unwrap();
    for words in
        ["!!!", "\"all\"", "files -", "AND", "OR (x)", "C++", "NEAR(a b)", "*", "^files", "files:", "  "]
    {
        let hits = store.search(&SearchQuery::new(words, loc("en")));
        assert!(hits.is_ok(), "{words:?}: {:?}", hits.err());
    }
    assert_eq!(store.search(&SearchQuery::new("\"all\"", loc("en"))).unwrap().len(), 1);
    assert_eq!(store.search(&SearchQuery::new("and/or", loc("en"))).unwrap().len(), 1);
}

#[test]
fn entries_pages_equal_memstore() {
    let mut entries: Vec<NewEntry> = sample_entries().into_iter().take(700).collect();
    for (i, e) in entries.iter_mut().enumerate().step_by(7) {
        e.origins = vec![Origin {
            project_id: format!("p{i}"),
            context_fingerprint: "f".into(),
            created_at: String::new(),
        }];
        e.metadata = vec![("k".into(), i.to_string())];
    }
    let (sql, mem) = (SqliteStore::open_in_memory().unwrap(), MemStore::new());
    sql.write(&entries).unwrap();
    mem.write(&entries).unwrap();
    sql.delete(EntryId(5)).unwrap();
    mem.delete(EntryId(5)).unwrap();
    let mut after = None;
    let mut pages = 0;
    loop {
        let a = sql.entries(after, 64).unwrap();
        assert_eq!(a, mem.entries(after, 64).unwrap());
        let Some(last) = a.last() else { break };
        after = Some(last.id);
        pages += 1;
    }
    assert_eq!(pages, 11);
    assert!(sql.entries(None, 0).unwrap().is_empty());
}

#[test]
fn a_session_is_seen_whole_at_commit_or_never() {
    let dir = TempDir::new("session");
    let path = dir.path("s.db");
    let store = SqliteStore::open(&path).unwrap();
    store.write(&[pair("Keep the file", "Datei behalten")]).unwrap();
    let other = SqliteStore::open_with(&path, SqliteOptions::default().read_only(true)).unwrap();
    let q = "Keep the files";
    assert_eq!(summarize(&store, q, &opts()).len(), 1);

    // Dropped uncommitted: nothing stays, for this store, another reader or a reopen.
    let mut session = store.begin().unwrap();
    let out = session.write(&[pair("Keep the file now", "Datei jetzt behalten")]).unwrap();
    assert!(matches!(out[0], WriteOutcome::Inserted(_)));
    assert_eq!(store.stats().unwrap().entries, 1);
    assert_eq!(other.stats().unwrap().entries, 1);
    assert_eq!(summarize(&store, q, &opts()).len(), 1, "the cache learnt of an uncommitted entry");
    drop(session);
    assert_eq!(store.stats().unwrap().entries, 1);
    assert_eq!(summarize(&store, q, &opts()).len(), 1);

    // A batch that fails leaves the session as it was; the session goes on.
    let mut session = store.begin().unwrap();
    session.write(&[pair("Keep the file now", "Datei jetzt behalten")]).unwrap();
    let bad = NewEntry { variants: vec![Variant::new(loc("en"), runs("x"))], ..NewEntry::default() };
    let err = session.write(&[pair("Keep the files", "Dateien behalten"), bad]).unwrap_err();
    assert!(err.to_string().contains("entry 2 of the batch"), "{err}");
    // Deduplication sees the session's own entries.
    let again = session.write(&[pair("Keep the file now", "Datei jetzt behalten")]).unwrap();
    assert!(matches!(again[0], WriteOutcome::Deduplicated(_)), "{again:?}");
    session.commit().unwrap();
    assert_eq!(store.stats().unwrap().entries, 2);
    assert_eq!(other.stats().unwrap().entries, 2);
    assert_eq!(summarize(&store, q, &opts()).len(), 2);
    assert_eq!(summarize(&other, q, &opts()).len(), 2);
}

#[test]
fn an_in_memory_session_feeds_the_cache_at_commit_only() {
    let store = SqliteStore::open_in_memory().unwrap();
    store.write(&[pair("Keep the file", "Datei behalten")]).unwrap();
    let q = "Keep the files";
    assert_eq!(summarize(&store, q, &opts()).len(), 1);
    {
        let mut session = store.begin().unwrap();
        session.write(&[pair("Keep the file now", "Datei jetzt behalten")]).unwrap();
    }
    assert_eq!(summarize(&store, q, &opts()).len(), 1);
    let mut session = store.begin().unwrap();
    session.write(&[pair("Keep the file now", "Datei jetzt behalten")]).unwrap();
    session.commit().unwrap();
    assert_eq!(summarize(&store, q, &opts()).len(), 2);
}

#[test]
fn a_second_writer_waits_and_says_so() {
    let dir = TempDir::new("wait");
    let path = dir.path("w.db");
    let first = SqliteStore::open(&path).unwrap();
    let told = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&told);
    let hook = cmem_sqlite::WaitHook::new(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        true
    });
    let second = SqliteStore::open_with(&path, SqliteOptions::default().on_wait(hook)).unwrap();
    let mut session = first.begin().unwrap();
    session.write(&sample_entries()[..100]).unwrap();
    std::thread::scope(|s| {
        let waiter = s.spawn(|| second.write(&sample_entries()[100..150]));
        std::thread::sleep(std::time::Duration::from_millis(800));
        // (`second` is busy waiting on its connection; `first` reads on its own.)
        assert_eq!(first.stats().unwrap().entries, 0, "a reader saw an uncommitted session");
        session.commit().unwrap();
        let out = waiter.join().unwrap().unwrap();
        assert_eq!(out.len(), 50);
    });
    assert!(told.load(Ordering::SeqCst) >= 2, "the wait hook was not called");
    assert_eq!(first.stats().unwrap().entries, 150);

    // A bounded wait: a writer held up longer fails with a clear error.
    let third = SqliteStore::open_with(
        &path,
        SqliteOptions::default().write_wait(std::time::Duration::from_millis(300)),
    )
    .unwrap();
    let session = first.begin().unwrap();
    let started = std::time::Instant::now();
    let err = third.write(&[pair("Late", "Spät")]).unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    assert!(err.to_string().contains("gave up waiting") && err.to_string().contains("w.db"), "{err}");
    // A hook that says stop ends the wait at once.
    let quitter = SqliteStore::open_with(
        &path,
        SqliteOptions::default().on_wait(cmem_sqlite::WaitHook::new(|_| false)),
    )
    .unwrap();
    assert!(quitter.begin().is_err());
    drop(session);
    third.write(&[pair("Late", "Spät")]).unwrap();
    assert_eq!(first.stats().unwrap().entries, 151);
}

#[test]
fn a_full_disk_fails_a_session_and_keeps_the_old_state() {
    let dir = TempDir::new("fullsession");
    let path = dir.path("f.db");
    let store = SqliteStore::open(&path).unwrap();
    store.write(&sample_entries()[..50]).unwrap();
    let pages = store.stats().unwrap().size_bytes.unwrap() / 4096;
    store.set_max_page_count(pages + 4).unwrap();
    let mut session = store.begin().unwrap();
    let mut failed = None;
    for chunk in sample_entries()[50..].chunks(20) {
        if let Err(e) = session.write(chunk) {
            failed = Some(e);
            break;
        }
    }
    let err = match failed {
        Some(e) => {
            drop(session);
            e
        }
        None => session.commit().unwrap_err(),
    };
    assert_eq!(err.kind(), ErrorKind::Store, "{err}");
    assert_eq!(store.stats().unwrap().entries, 50);
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
}

/// The entry count and `PRAGMA integrity_check` of the database at `path`, read by a
/// connection of its own (which recovers the WAL beside it, as after a crash).
fn count_and_check(path: &Path) -> (i64, String) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let n = conn.query_row("SELECT count(*) FROM tm_entries", [], |r| r.get(0)).unwrap();
    let check = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    (n, check)
}

#[test]
fn a_session_larger_than_its_cache_leaves_nothing_when_killed_or_dropped() {
    // A session whose pages outgrow its cache writes them to the WAL before it commits
    // (DESIGN.md §6.2): the files as a kill leaves them hold nothing of it, a dropped
    // session leaves nothing, and a committed one stores what a large cache stores.
    let dir = TempDir::new("spill");
    let path = dir.path("s.db");
    let wal = dir.path("s.db-wal");
    let small = SqliteOptions::default().cache_kib(16).session_cache_kib(16);
    let store = SqliteStore::open_with(&path, small.clone()).unwrap();
    let all = sample_entries();
    store.write(&all[..50]).unwrap();
    let db_before = std::fs::read(&path).unwrap();
    let wal_before = std::fs::metadata(&wal).unwrap().len();
    let mut session = store.begin().unwrap();
    for chunk in all[50..].chunks(500) {
        session.write(chunk).unwrap();
    }
    let wal_during = std::fs::metadata(&wal).unwrap().len();
    assert!(wal_during > wal_before + 256 * 1024, "nothing spilled to the WAL: {wal_before} → {wal_during}");
    assert_eq!(std::fs::read(&path).unwrap(), db_before, "an uncommitted session wrote the database file");

    // The files at this instant are what a kill leaves.
    let killed = TempDir::new("spill-killed");
    std::fs::copy(&path, killed.path("s.db")).unwrap();
    std::fs::copy(&wal, killed.path("s.db-wal")).unwrap();
    assert_eq!(count_and_check(&killed.path("s.db")), (50, "ok".to_owned()));

    drop(session);
    assert_eq!(store.stats().unwrap().entries, 50);
    let mut session = store.begin().unwrap();
    for chunk in all[50..].chunks(500) {
        session.write(chunk).unwrap();
    }
    session.commit().unwrap();
    drop(store);

    let large = dir.path("large.db");
    let reference = SqliteStore::open(&large).unwrap();
    reference.write(&all).unwrap();
    let n = reference.stats().unwrap().entries as i64;
    assert_eq!(count_and_check(&path), (n, "ok".to_owned()));
    let store = SqliteStore::open_with(&path, small).unwrap();
    assert_eq!(store.entries(None, 10_000).unwrap(), reference.entries(None, 10_000).unwrap());
    for q in sample_queries().iter().take(40) {
        assert_eq!(summarize(&store, q, &opts()), summarize(&reference, q, &opts()), "{q}");
    }
}

#[test]
fn empty_files_and_damaged_databases_are_refused_untouched() {
    let dir = TempDir::new("refuse");
    let empty = dir.path("empty.db");
    std::fs::write(&empty, b"").unwrap();
    for options in [SqliteOptions::default().create(false), SqliteOptions::default().read_only(true)] {
        let err = SqliteStore::open_with(&empty, options).unwrap_err();
        assert!(err.to_string().contains("not a cmem memory"), "{err}");
    }
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    let listed = |dir: &TempDir| {
        let mut v: Vec<_> = std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name()).collect();
        v.sort();
        v
    };
    assert_eq!(listed(&dir).len(), 1, "{:?}", listed(&dir));

    // Neither a read-only open nor a no-create open makes a file.
    let missing = dir.path("missing.db");
    assert!(SqliteStore::open_with(&missing, SqliteOptions::default().read_only(true)).is_err());
    assert!(SqliteStore::open_with(&missing, SqliteOptions::default().create(false)).is_err());
    assert!(!missing.exists());

    // Damage in a table page: reads may still work, writes are refused before anything changes.
    let path = dir.path("d.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        store.write(&sample_entries()[..400]).unwrap();
    }
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    for (i, b) in bytes[n / 2..n / 2 + 8192].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(91);
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt, "{err}");
    assert!(err.to_string().contains("damaged") && err.to_string().contains("writes refused"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn a_read_only_open_of_old_keys_says_how_to_upgrade() {
    let dir = TempDir::new("rokeys");
    let path = dir.path("k.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        store.write(&[pair("Keep", "Behalten")]).unwrap();
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE tm_meta SET value = '0' WHERE key = 'key_version'", []).unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    let err = SqliteStore::open_with(&path, SqliteOptions::default().read_only(true)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Schema);
    assert!(err.to_string().contains("open it once for writing to re-key it"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // Opened for writing, it is re-keyed, and then reads work read-only.
    drop(SqliteStore::open(&path).unwrap());
    let store = SqliteStore::open_with(&path, SqliteOptions::default().read_only(true)).unwrap();
    assert_eq!(store.stats().unwrap().entries, 1);
}

#[test]
fn two_new_stores_opened_at_once_migrate_once() {
    let dir = TempDir::new("race");
    let path = dir.path("r.db");
    std::thread::scope(|s| {
        let a = s.spawn(|| SqliteStore::open(&path).map(|st| st.write(&[pair("A one", "A eins")])));
        let b = s.spawn(|| SqliteStore::open(&path).map(|st| st.write(&[pair("B one", "B eins")])));
        a.join().unwrap().unwrap().unwrap();
        b.join().unwrap().unwrap().unwrap();
    });
    assert_eq!(SqliteStore::open(&path).unwrap().stats().unwrap().entries, 2);
}

#[test]
fn source_locales_are_the_first_variants_locales() {
    let store = SqliteStore::open_in_memory().unwrap();
    assert!(store.source_locales().unwrap().is_empty());
    store.write(&[pair("Hello", "Hallo")]).unwrap();
    store
        .write(&[NewEntry::pair(
            Variant::new(loc("fr-CA"), runs("Bonjour")),
            Variant::new(loc("en"), runs("Hi")),
        )])
        .unwrap();
    let got: Vec<String> = store.source_locales().unwrap().iter().map(|l| l.as_str().to_owned()).collect();
    assert_eq!(got, ["en", "fr-CA"]);
    // The same as what the pair counts say.
    let mut from_stats: Vec<Locale> = store.stats().unwrap().pairs.into_iter().map(|p| p.source).collect();
    from_stats.sort();
    from_stats.dedup();
    assert_eq!(store.source_locales().unwrap(), from_stats);
}

#[test]
fn temporary_index_files_a_killed_writer_left_are_removed() {
    let dir = TempDir::new("stale-tmp");
    let path = dir.path("s.db");
    let store = SqliteStore::open(&path).unwrap();
    store.write(&sample_entries()[..50]).unwrap();
    // Left by writers killed an hour ago (this version's name, and an earlier one's),
    // and one being written right now.
    let stale = dir.path(".s.db-gix-en.00000000000000aa.tmp");
    let earlier = dir.path("s.db-gix-en.tmp-999999-1");
    let fresh = dir.path(".s.db-gix-en.00000000000000bb.tmp");
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for file in [&stale, &earlier, &fresh] {
        std::fs::write(file, b"half an index").unwrap();
    }
    for file in [&stale, &earlier] {
        std::fs::File::options().write(true).open(file).unwrap().set_modified(hour_ago).unwrap();
    }
    store.warm(&loc("en")).unwrap();
    assert!(index_file(&path, "en").exists());
    assert!(!stale.exists(), "a stale temporary index file was left");
    assert!(!earlier.exists(), "a stale temporary index file of an earlier version was left");
    assert!(fresh.exists(), "a temporary index file still being written was removed");
}

#[test]
fn an_index_file_of_a_state_the_database_no_longer_has_is_rebuilt() {
    let dir = TempDir::new("restored");
    let path = dir.path("r.db");
    let backup = dir.path("backup.db");
    SqliteStore::open(&path).unwrap().write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    std::fs::copy(&path, &backup).unwrap();
    {
        let later = SqliteStore::open(&path).unwrap();
        later.write(&[pair("Print the page", "Seite drucken")]).unwrap();
        later.warm(&loc("en")).unwrap();
    }
    let file = index_file(&path, "en");
    let newer = std::fs::read(&file).unwrap();
    // The older copy is put back; the index file of the later state stays beside it.
    let restore = || {
        for side in ["r.db-wal", "r.db-shm"] {
            let _ = std::fs::remove_file(dir.path(side));
        }
        std::fs::copy(&backup, &path).unwrap();
        std::fs::write(&file, &newer).unwrap();
    };
    let found = |store: &SqliteStore, q: &str| {
        summarize(store, q, &opts()).into_iter().map(|m| m.2).collect::<Vec<_>>()
    };
    restore();
    let behind = SqliteStore::open(&path).unwrap();
    assert!(found(&behind, "Print the pages").is_empty(), "an entry the database no longer has");
    assert_eq!(persisted(&behind), [("en".to_owned(), 0, 1)], "built, not read from the file");
    drop(behind);
    // Once the number is handed out again, the file is as far as the database, but its
    // newest entry is another.
    restore();
    let again = SqliteStore::open(&path).unwrap();
    again.write(&[pair("Close the window", "Fenster schließen")]).unwrap();
    assert!(found(&again, "Print the pages").is_empty());
    assert_eq!(found(&again, "Close the windows").len(), 1);
    assert_eq!(persisted(&again), [("en".to_owned(), 0, 2)], "built, not read from the file");
}

#[test]
fn an_index_file_that_knows_a_deletion_the_database_does_not_is_rebuilt() {
    let dir = TempDir::new("restored-log");
    let path = dir.path("r.db");
    let backup = dir.path("backup.db");
    let first = {
        let store = SqliteStore::open(&path).unwrap();
        let first = store.write(&[pair("Open the file", "Datei öffnen")]).unwrap()[0].id();
        store.write(&[pair("Print the page", "Seite drucken")]).unwrap();
        first
    };
    std::fs::copy(&path, &backup).unwrap();
    {
        let later = SqliteStore::open(&path).unwrap();
        assert!(later.delete(first).unwrap());
        later.warm(&loc("en")).unwrap();
    }
    // The copy from before the deletion is put back beside the later index file: its
    // newest entry is the same, but the file lacks an entry the database holds.
    for side in ["r.db-wal", "r.db-shm"] {
        let _ = std::fs::remove_file(dir.path(side));
    }
    std::fs::copy(&backup, &path).unwrap();
    let restored = SqliteStore::open(&path).unwrap();
    assert_eq!(summarize(&restored, "Open the files", &opts()).len(), 1);
    assert_eq!(persisted(&restored), [("en".to_owned(), 0, 2)], "built, not read from the file");
}

#[test]
fn the_change_mark_moves_with_every_write_from_any_connection() {
    let dir = TempDir::new("mark");
    let path = dir.path("m.db");
    let store = SqliteStore::open(path.to_str().unwrap()).unwrap();
    let first = store.change_mark().unwrap().expect("a file store has a mark");
    assert_eq!(store.change_mark().unwrap(), Some(first), "no write, no change");
    // A write of this store.
    let ids = store.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let second = store.change_mark().unwrap().unwrap();
    assert_ne!(second, first);
    // A re-approval (the same entry again) changes what ranks first: it counts too.
    store.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let third = store.change_mark().unwrap().unwrap();
    assert_ne!(third, second);
    // Another connection's write, and a delete.
    let other = SqliteStore::open(path.to_str().unwrap()).unwrap();
    other.write(&[pair("Close the file", "Datei schließen")]).unwrap();
    let fourth = store.change_mark().unwrap().unwrap();
    assert_ne!(fourth, third);
    store.delete(ids[0].id()).unwrap();
    assert_ne!(store.change_mark().unwrap().unwrap(), fourth);
    // A memory in memory cannot tell: nothing may be cached.
    assert_eq!(SqliteStore::open_in_memory().unwrap().change_mark().unwrap(), None);
}

/// A saved word model is in the file: another store opened on it reads it, for the same
/// two languages whatever the regions; a read-only store cannot save one; a damaged
/// saved model is an error naming it, not a panic.
#[test]
fn word_models_persist_with_the_memory() {
    let dir = TempDir::new("words");
    let path = dir.path("m.db");
    let store = SqliteStore::open(&path).unwrap();
    store.write(&[pair("Open the file", "Datei öffnen"), pair("Open the folder", "Ordner öffnen")]).unwrap();
    assert!(store.word_model(&loc("en"), &loc("de")).unwrap().is_none());
    let (model, _) =
        cmem_core::store::learn::train_store(&store, &loc("en"), &loc("de"), &Default::default()).unwrap();
    store.save_word_model(&loc("en"), &loc("de"), Arc::new(model)).unwrap();
    drop(store);
    let again = SqliteStore::open(&path).unwrap();
    let model = again.word_model(&loc("en-US"), &loc("de-DE")).unwrap().expect("read back");
    assert_eq!(model.report().pairs, 2);
    assert!(again.word_model(&loc("en"), &loc("fr")).unwrap().is_none());
    drop(again);
    let ro = SqliteStore::open_with(&path, SqliteOptions::default().read_only(true)).unwrap();
    assert!(ro.word_model(&loc("en"), &loc("de")).unwrap().is_some());
    let err = ro.save_word_model(&loc("en"), &loc("de"), model).unwrap_err();
    assert!(err.to_string().contains("read"), "{err}");
    drop(ro);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE tm_word_models SET model = '{broken'", []).unwrap();
    drop(conn);
    let broken = SqliteStore::open(&path).unwrap();
    let err = broken.word_model(&loc("en"), &loc("de")).unwrap_err();
    assert!(err.to_string().contains("saved word model"), "{err}");
}

/// A word model another process saves is seen by an open store at its next read, not
/// only when the memory is opened again; a write of entries alone does not make the
/// store read its kept model again, and a model found untrained is looked for again once
/// another process trained it.
#[test]
fn a_word_model_saved_by_another_process_is_seen() {
    let dir = TempDir::new("words-seen");
    let path = dir.path("m.db");
    let reader = SqliteStore::open(&path).unwrap();
    reader.write(&[pair("Open the file", "Datei öffnen"), pair("Open the folder", "Ordner öffnen")]).unwrap();
    // Untrained, and remembered so.
    assert!(reader.word_model(&loc("en"), &loc("de")).unwrap().is_none());
    let trainer = SqliteStore::open(&path).unwrap();
    let train = |store: &SqliteStore| {
        let (model, _) =
            cmem_core::store::learn::train_store(store, &loc("en"), &loc("de"), &Default::default()).unwrap();
        store.save_word_model(&loc("en"), &loc("de"), Arc::new(model)).unwrap();
    };
    train(&trainer);
    let first = reader.word_model(&loc("en"), &loc("de")).unwrap().expect("seen after another's save");
    assert_eq!(first.report().pairs, 2);
    // Another process writes entries: the kept model stands (the stamp did not move).
    trainer.write(&[pair("Save the file", "Datei speichern")]).unwrap();
    let same = reader.word_model(&loc("en"), &loc("de")).unwrap().unwrap();
    assert!(Arc::ptr_eq(&first, &same), "the kept model is used while its stamp stays");
    // It trains again over three pairs: the reader reads the new model.
    train(&trainer);
    let newer = reader.word_model(&loc("en"), &loc("de")).unwrap().unwrap();
    assert_eq!(newer.report().pairs, 3);
    // The trainer keeps its own save without reading it back.
    let own = trainer.word_model(&loc("en"), &loc("de")).unwrap().unwrap();
    assert_eq!(own.report().pairs, 3);
}
