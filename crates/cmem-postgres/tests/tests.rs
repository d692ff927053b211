//! Integration tests of the PostgreSQL store on a real server (a throwaway cluster, or
//! `CMEM_PG_URL`'s): the conformance suite in both retrieval modes, one database per
//! store; writers and readers in several stores at once; migrations; bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cmem_core::ContentMemoryExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cmem_core::{
    lookup, ContentMemory, ErrorKind, Locale, LookupRequest, NewEntry, Origin, Run, SearchQuery, Variant,
    WriteOutcome,
};
use cmem_postgres::testing::TestServer;
use cmem_postgres::{PgOptions, PgStore};

fn fresh_url() -> String {
    TestServer::shared().unwrap().fresh_database().unwrap()
}

fn fresh(options: PgOptions) -> PgStore {
    PgStore::open_with(&fresh_url(), options).unwrap()
}

fn loc(tag: &str) -> Locale {
    Locale::parse(tag).unwrap()
}

fn pair(src: &str, tgt: &str) -> NewEntry {
    NewEntry::pair(
        Variant::new(loc("en"), vec![Run::text(src)]),
        Variant::new(loc("de"), vec![Run::text(tgt)]),
    )
}

fn best(store: &dyn ContentMemory, query: &str) -> Option<(String, f64)> {
    let req = LookupRequest::new(vec![Run::text(query)], loc("en"), loc("de"));
    lookup(store, &req)
        .unwrap()
        .into_iter()
        .next()
        .map(|m| (cmem_core::model::run::plain_text(&m.entry.variants[1].runs), m.score))
}

mod conformance_gram_index {
    use super::*;
    cmem_conformance::conformance_suite!(|| Box::new(fresh(PgOptions::default())));
}

/// A store on a fresh database whose candidate queries are each answered by a store
/// opened for it with `options` (another process, as a restarted server is): through
/// the index file the first one wrote, caught up with the writes since.
/// The index files are kept in a directory of the store's own, removed with it.
fn reopening(options: PgOptions) -> cmem_conformance::Reopening {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = RemovedWhenDropped(index_dir(&format!("conformance-{}", N.fetch_add(1, Ordering::SeqCst))));
    let options = options.index_dir(&dir.0);
    let url = fresh_url();
    let store = PgStore::open_with(&url, options.clone()).unwrap();
    let again = move || -> cmem_core::Result<Box<dyn ContentMemory>> {
        Ok(Box::new(PgStore::open_with(&url, options.clone())?))
    };
    cmem_conformance::Reopening::new(store, again, dir)
}

/// A directory removed when dropped.
struct RemovedWhenDropped(std::path::PathBuf);

impl Drop for RemovedWhenDropped {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

mod conformance_persisted_index {
    use super::*;
    cmem_conformance::conformance_suite!(|| Box::new(reopening(PgOptions::default())));
}

/// A directory for persisted indexes under the system's temporary directory, named
/// `name` in this test process (each test removes what it made).
fn index_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("cmem-pg-test-{}-{name}", std::process::id()))
}

mod conformance_sql_candidates {
    use super::*;
    cmem_conformance::conformance_suite!(sql_candidates: || Box::new(fresh(PgOptions::default().gram_index(false))));
}

mod conformance_sql_trigram_first {
    use super::*;
    cmem_conformance::conformance_suite!(sql_candidates: || Box::new(fresh(
        PgOptions::default().gram_index(false).trigram_first(true)
    )));
}

mod conformance_sql_exhaustive_window {
    use super::*;
    cmem_conformance::conformance_suite!(sql_candidates: || Box::new(fresh(
        PgOptions::default().gram_index(false).exhaustive_window(true)
    )));
}

/// The scores of a lookup of `query`, best first.
fn scores(store: &dyn ContentMemory, query: &str) -> Vec<(String, f64)> {
    let req = LookupRequest::new(vec![Run::text(query)], loc("en"), loc("de"));
    lookup(store, &req)
        .unwrap()
        .into_iter()
        .map(|m| {
            (cmem_core::model::run::plain_text(&m.entry.variants[1].runs), (m.score * 1e4).round() / 1e4)
        })
        .collect()
}

#[test]
fn the_word_steps_find_keys_sharing_rare_words_and_no_others() {
    let url = fresh_url();
    // The word steps on this small memory, as on a large one.
    let words = PgStore::open_with(&url, PgOptions::default().gram_index(false).words_from_bytes(0)).unwrap();
    words
        .write(&[
            pair("KTorrent is playing a video.", "KTorrent spielt ein Video ab."),
            pair("Playing a movie", "Film wird abgespielt"),
            pair("Edit screenshot", "Bildschirmfoto bearbeiten"),
            pair("Close", "Schließen"),
            pair("Closed", "Geschlossen"),
            pair("It's the user's file", "Das ist die Datei des Benutzers"),
            pair("C:\\temp is full", "C:\\temp ist voll"),
        ])
        .unwrap();
    let window =
        PgStore::open_with(&url, PgOptions::default().gram_index(false).exhaustive_window(true)).unwrap();
    // Rare words in common: found by the words, as the window finds it.
    let got = scores(&words, "KTorrent is playing a.");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("KTorrent spielt ein Video ab."));
    assert_eq!(got, scores(&window, "KTorrent is playing a."));
    // One of two words in common: the rare-word step.
    assert_eq!(best(&words, "Custom screenshot").unwrap().0, "Bildschirmfoto bearbeiten");
    // Quotes and backslashes in the words are quoted for the word index.
    assert_eq!(best(&words, "It's the users file").unwrap().0, "Das ist die Datei des Benutzers");
    assert_eq!(best(&words, "C:\\temp is fulll").unwrap().0, "C:\\temp ist voll");
    // What the word steps give up: a match that shares no word with the query, found
    // only by the window.
    assert_eq!(best(&window, "Closes").unwrap().0, "Schließen");
    assert_eq!(best(&words, "Closes"), None);
    let exact = scores(&words, "Close");
    assert_eq!(exact.len(), 1, "{exact:?}");
    assert_eq!(scores(&window, "Close").len(), 2);
    // Punctuation alone has no word.
    assert!(scores(&words, "...").is_empty());
}

#[test]
fn another_stores_write_is_seen_by_the_next_lookup() {
    let url = fresh_url();
    let a = PgStore::open(&url).unwrap();
    let b = PgStore::open(&url).unwrap();
    a.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    // b loads its candidate index now, then a writes again: b must reload.
    assert_eq!(best(&b, "Open the files").unwrap().0, "Datei öffnen");
    a.write(&[pair("Close the window now", "Fenster jetzt schließen")]).unwrap();
    assert_eq!(best(&b, "Close the windows now").unwrap().0, "Fenster jetzt schließen");
    let id = a.write(&[pair("Print the page", "Seite drucken")]).unwrap()[0].id();
    assert!(best(&b, "Print the pages").is_some());
    assert!(a.delete(id).unwrap());
    assert!(best(&b, "Print the pages").is_none(), "a deletion by another store");
    // The writer's own index follows its writes without a reload.
    assert!(best(&a, "Print the pages").is_none());
    assert_eq!(best(&a, "Close the windows now").unwrap().0, "Fenster jetzt schließen");
    // A replace by another store: the old text gone, the new one found under the same id.
    let id = a.write(&[pair("Save the document", "Dokument sichern")]).unwrap()[0].id();
    assert_eq!(best(&b, "Save the documents").unwrap().0, "Dokument sichern");
    assert!(a.replace(id, &pair("Save the document", "Dokument speichern")).unwrap());
    assert_eq!(best(&b, "Save the documents").unwrap().0, "Dokument speichern");
    assert_eq!(best(&a, "Save the documents").unwrap().0, "Dokument speichern");
    assert!(a.replace(id, &pair("Rename the folder", "Ordner umbenennen")).unwrap());
    assert!(best(&b, "Save the documents").is_none(), "a replaced text by another store");
    assert!(best(&a, "Save the documents").is_none(), "a replaced text in the writer's own index");
    assert_eq!(best(&b, "Rename the folders").unwrap().0, "Ordner umbenennen");
    // b loaded its index once and took every later change from the change log.
    assert_eq!(b.index_loads(), 1);
}

/// Setting a named value raises the change counter like any write: another store's
/// change mark moves, and what it keeps under the mark is read again.
#[test]
fn a_named_value_set_moves_another_stores_change_mark() {
    let url = fresh_url();
    let (a, b) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    a.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let before = b.change_mark().unwrap();
    a.set_meta("recognizer", "printf").unwrap();
    assert_ne!(b.change_mark().unwrap(), before);
    assert_eq!(b.meta("recognizer").unwrap().as_deref(), Some("printf"));
    assert_eq!(best(&a, "Open the files").unwrap().0, "Datei öffnen");
}

#[test]
fn with_a_freshness_another_stores_write_is_seen_within_it() {
    let url = fresh_url();
    let a = PgStore::open(&url).unwrap();
    let fresh = Duration::from_millis(300);
    let b = PgStore::open_with(&url, PgOptions::default().freshness(fresh)).unwrap();
    a.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    assert_eq!(best(&b, "Open the files").unwrap().0, "Datei öffnen");
    a.write(&[pair("Close the window now", "Fenster jetzt schließen")]).unwrap();
    // Within the freshness b may answer from its index as it was; past it, it has read
    // the counter again and sees the write.
    std::thread::sleep(fresh + Duration::from_millis(50));
    assert_eq!(best(&b, "Close the windows now").unwrap().0, "Fenster jetzt schließen");
    // Its own writes are seen at once.
    b.write(&[pair("Print the page", "Seite drucken")]).unwrap();
    assert_eq!(best(&b, "Print the pages").unwrap().0, "Seite drucken");
}

#[test]
fn a_reader_sees_an_import_whole_or_not_at_all() {
    let url = fresh_url();
    let writer = PgStore::open(&url).unwrap();
    let reader = PgStore::open(&url).unwrap();
    writer.write(&[pair("Seed entry one", "Eintrag eins")]).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let seen = std::thread::scope(|s| {
        let r = s.spawn(|| {
            let mut seen = std::collections::BTreeSet::new();
            while !done.load(Ordering::SeqCst) {
                let n = reader.stats().unwrap().entries;
                seen.insert(n);
                // Lookups keep working all the while.
                assert!(best(&reader, "Seed entry one").is_some());
            }
            seen.insert(reader.stats().unwrap().entries);
            seen
        });
        let mut session = writer.begin().unwrap();
        for batch in 0..5 {
            let entries: Vec<NewEntry> = (0..50)
                .map(|i| pair(&format!("Imported segment {batch} {i}"), &format!("Segment {batch} {i}")))
                .collect();
            session.write(&entries).unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        session.commit().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        done.store(true, Ordering::SeqCst);
        r.join().unwrap()
    });
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![1, 251]);
    assert_eq!(best(&reader, "Imported segment 3 7").unwrap().0, "Segment 3 7");
}

#[test]
fn two_concurrent_imports_both_land_and_never_duplicate() {
    let url = fresh_url();
    let stores: Vec<PgStore> = (0..2).map(|_| PgStore::open(&url).unwrap()).collect();
    std::thread::scope(|s| {
        for (k, store) in stores.iter().enumerate() {
            s.spawn(move || {
                let mut session = store.begin().unwrap();
                for batch in 0..4 {
                    let mut entries: Vec<NewEntry> = (0..25)
                        .map(|i| {
                            pair(
                                &format!("Import {k} segment {batch} {i}"),
                                &format!("Import {k} Segment {batch} {i}"),
                            )
                        })
                        .collect();
                    // Both imports carry the same shared entry, with an origin of their own.
                    let mut shared = pair("Shared segment", "Gemeinsames Segment");
                    shared.origins = vec![Origin { project_id: format!("p{k}"), ..Origin::default() }];
                    entries.push(shared);
                    session.write(&entries).unwrap();
                }
                session.commit().unwrap();
            });
        }
    });
    let stats = stores[0].stats().unwrap();
    assert_eq!(stats.entries, 2 * 4 * 25 + 1);
    let shared = stores[1]
        .exact(&cmem_core::imp::ExactQuery {
            kind: cmem_core::imp::KeyKind::Plain,
            key: "Shared segment",
            source: &loc("en"),
            target: &loc("de"),
        })
        .unwrap();
    assert_eq!(shared.len(), 1);
    let mut projects: Vec<&str> = shared[0].origins.iter().map(|o| o.project_id.as_str()).collect();
    projects.sort_unstable();
    assert_eq!(projects, vec!["p0", "p1"], "no lost origin");
}

/// Two first imports into one empty database, as two `cmem import` started together:
/// each open must wait for the other's schema, never see half of it. The openers start
/// a millisecond apart so that some read the schema while the first creates it.
#[test]
fn first_opens_of_an_empty_database_at_once_all_succeed_and_both_imports_land() {
    for round in 0..3 {
        let url = fresh_url();
        let opened: Vec<Result<PgStore, cmem_core::Error>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..24)
                .map(|i| {
                    let url = url.clone();
                    s.spawn(move || {
                        std::thread::sleep(Duration::from_millis(i));
                        PgStore::open(&url)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let failed: Vec<String> =
            opened.iter().filter_map(|r| r.as_ref().err()).map(|e| e.to_string()).collect();
        assert!(failed.is_empty(), "round {round}: {failed:#?}");
        let stores: Vec<PgStore> = opened.into_iter().take(2).map(Result::unwrap).collect();
        std::thread::scope(|s| {
            for (k, store) in stores.iter().enumerate() {
                s.spawn(move || {
                    let mut session = store.begin().unwrap();
                    session.write(&segments(&format!("Import{k}"), 300)).unwrap();
                    session.commit().unwrap();
                });
            }
        });
        assert_eq!(stores[0].stats().unwrap().entries, 600, "round {round}");
    }
}

#[test]
fn a_waiting_writer_gives_up_after_write_wait() {
    let url = fresh_url();
    let a = PgStore::open(&url).unwrap();
    let b = PgStore::open_with(&url, PgOptions::default().write_wait(Duration::from_millis(200))).unwrap();
    let session = a.begin().unwrap();
    let err = b.write(&[pair("x y z", "x y z")]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store);
    assert!(err.to_string().contains("another writer"), "{err}");
    drop(session);
    assert!(matches!(b.write(&[pair("x y z", "x y z")]).unwrap()[0], WriteOutcome::Inserted(_)));
}

#[test]
fn a_dropped_session_leaves_nothing() {
    let store = fresh(PgOptions::default());
    let mut session = store.begin().unwrap();
    session.write(&[pair("Gone soon", "Bald weg")]).unwrap();
    drop(session);
    assert_eq!(store.stats().unwrap().entries, 0);
    // The connection went back to the pool usable.
    store.write(&[pair("Kept", "Behalten")]).unwrap();
    assert_eq!(store.stats().unwrap().entries, 1);
}

/// Makes every insert of a variant whose text is `poison` fail in the database, past
/// every check of the store's own: a batch that fails half-way.
fn poison_inserts(url: &str, poison: &str) {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "CREATE FUNCTION cmem_test_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             IF NEW.plain = '{poison}' THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END $$; \
             CREATE TRIGGER cmem_test_poison BEFORE INSERT ON tm_variants \
             FOR EACH ROW EXECUTE FUNCTION cmem_test_poison()"
        ))
        .unwrap();
}

#[test]
fn a_failed_batch_is_undone_alone_unless_the_session_is_all_or_nothing() {
    let url = fresh_url();
    let store = PgStore::open(&url).unwrap();
    poison_inserts(&url, "Poisoned");
    // A session of undoable batches: the failed batch goes, the others stay.
    let mut session = store.begin().unwrap();
    session.write(&[pair("Kept first", "Zuerst behalten")]).unwrap();
    assert!(session
        .write(&[pair("Lost with its batch", "Verloren"), pair("Poisoned", "Vergiftet")])
        .is_err());
    session.write(&[pair("Kept after", "Danach behalten")]).unwrap();
    session.commit().unwrap();
    assert_eq!(store.stats().unwrap().entries, 2);
    // An import's session: no savepoint a batch, so after a failed batch every call and
    // the commit are refused (a COMMIT of the aborted transaction would roll it back
    // while answering success), and nothing of the session stays.
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&[pair("Gone with the import", "Mit dem Import weg")]).unwrap();
    let failed = session.write(&[pair("Poisoned", "Vergiftet")]).unwrap_err();
    assert!(failed.to_string().contains("poisoned"), "{failed}");
    let later = session.write(&[pair("Never written", "Nie geschrieben")]).unwrap_err();
    assert!(later.to_string().contains("can only be rolled back"), "{later}");
    let commit = session.commit().unwrap_err();
    assert!(commit.to_string().contains("can only be rolled back"), "{commit}");
    assert_eq!(store.stats().unwrap().entries, 2);
    assert_eq!(best(&store, "Gone with the import"), None);
    // The pool's connection came back usable.
    store.write(&[pair("Written after", "Danach geschrieben")]).unwrap();
    assert_eq!(store.stats().unwrap().entries, 3);
}

#[test]
fn a_schema_8_database_gets_its_counts_from_its_rows() {
    let url = fresh_url();
    let three = NewEntry {
        variants: vec![
            Variant::new(loc("en"), vec![Run::text("One")]),
            Variant::new(loc("de"), vec![Run::text("Eins")]),
            Variant::new(loc("fr"), vec![Run::text("Un")]),
        ],
        ..NewEntry::default()
    };
    PgStore::open(&url).unwrap().write(&[three, pair("Two", "Zwei"), pair("Three", "Drei")]).unwrap();
    // Back to schema 8: no counts table.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute("DROP TABLE tm_counts; UPDATE tm_meta SET value = '8' WHERE key = 'schema_version'")
        .unwrap();
    drop(client);
    let store = PgStore::open(&url).unwrap();
    let counts = |store: &PgStore| {
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
fn reopening_migrates_nothing_and_keeps_the_data() {
    let url = fresh_url();
    PgStore::open(&url).unwrap().write(&[pair("Keep me", "Behalte mich")]).unwrap();
    let again = PgStore::open_with(&url, PgOptions::default().create(false)).unwrap();
    assert_eq!(again.stats().unwrap().entries, 1);
    let ro = PgStore::open_with(&url, PgOptions::default().read_only(true)).unwrap();
    assert_eq!(ro.search(&SearchQuery::new("keep", loc("en"))).unwrap().len(), 1);
    let err = ro.write(&[pair("No", "Nein")]).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
}

#[test]
fn an_empty_or_foreign_database_is_refused_unless_created() {
    let url = fresh_url();
    let err = PgStore::open_with(&url, PgOptions::default().create(false)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Schema);
    assert!(err.to_string().contains("not a cmem memory"), "{err}");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client.batch_execute("CREATE TABLE invoices (id int)").unwrap();
    let err = PgStore::open(&url).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Schema);
    assert!(err.to_string().contains("not a cmem database"), "{err}");
}

#[test]
fn connection_errors_name_the_address_without_its_password() {
    let server = TestServer::shared().unwrap();
    let url = server.url_of("no_such_database_here");
    let with_pw = url.replacen("@", ":s3cret-pw@", 1);
    let err = PgStore::open_with(&with_pw, PgOptions::default().connect_timeout(Duration::from_secs(2)))
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("no_such_database_here"), "{msg}");
    assert!(!msg.contains("s3cret-pw"), "{msg}");
    let err = PgStore::open("postgres://ann:s3cret-pw@127.0.0.1:notaport/db").unwrap_err();
    assert!(!err.to_string().contains("s3cret-pw"), "{err}");
    assert!(err.to_string().contains("invalid address"), "{err}");
}

#[test]
fn a_batch_deduplicates_within_itself_and_against_the_stored() {
    let store = fresh(PgOptions::default());
    let with_origin = |project: &str| {
        let mut e = pair("Same text", "Gleicher Text");
        e.origins = vec![Origin { project_id: project.to_owned(), ..Origin::default() }];
        e
    };
    let out = store.write(&[with_origin("p1"), pair("Other", "Anders"), with_origin("p2")]).unwrap();
    let id = out[0].id();
    assert!(matches!(out[0], WriteOutcome::Inserted(_)));
    assert_eq!(out[2], WriteOutcome::Deduplicated(id));
    let out = store.write(&[with_origin("p3"), with_origin("p1")]).unwrap();
    assert_eq!(out, vec![WriteOutcome::Deduplicated(id), WriteOutcome::Deduplicated(id)]);
    let entry = store.get(id).unwrap().unwrap();
    let projects: Vec<&str> = entry.origins.iter().map(|o| o.project_id.as_str()).collect();
    assert_eq!(projects, vec!["p1", "p2", "p3"]);
    // Two approvals from the first batch, two more for the same entry from the second.
    assert_eq!(entry.approvals(), 4);
    assert_eq!(store.stats().unwrap().entries, 2);
}

#[test]
fn a_waiting_writer_is_told_and_may_give_up() {
    let url = fresh_url();
    let a = PgStore::open(&url).unwrap();
    let told = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&told);
    let hook = cmem_postgres::WaitHook::new(move |waited| {
        let mut seen = seen.lock().unwrap();
        seen.push(waited);
        seen.len() < 3
    });
    let b = PgStore::open_with(&url, PgOptions::default().on_wait(hook)).unwrap();
    let session = a.begin().unwrap();
    let started = std::time::Instant::now();
    let err = b.write(&[pair("x y z", "x y z")]).unwrap_err();
    assert!(err.to_string().contains("another writer"), "{err}");
    let told = told.lock().unwrap().clone();
    assert_eq!(told.len(), 3, "{told:?}");
    assert!(told.windows(2).all(|w| w[0] < w[1]), "{told:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    drop(session);
    // The turn is free again, and b's session was rolled back whole.
    b.write(&[pair("x y z", "x y z")]).unwrap();
    assert_eq!(b.stats().unwrap().entries, 1);
}

/// The definitions of the variants table's indexes, sorted.
fn variant_indexes(url: &str) -> Vec<String> {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let rows = client.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'tm_variants'", &[]).unwrap();
    let mut defs: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    defs.sort();
    defs
}

/// `n` distinct pairs, one batch of a first import.
fn segments(tag: &str, n: usize) -> Vec<NewEntry> {
    (0..n).map(|i| pair(&format!("{tag} segment number {i}"), &format!("{tag} Segment Nummer {i}"))).collect()
}

#[test]
fn a_first_import_builds_the_search_indexes_at_its_end_and_a_reader_waits_for_it() {
    let url = fresh_url();
    let writer = PgStore::open(&url).unwrap();
    let reader = PgStore::open_with(&url, PgOptions::default().gram_index(false)).unwrap();
    let before = variant_indexes(&url);
    assert!(before.iter().any(|d| d.contains("gin_trgm_ops")), "{before:?}");
    let committing = AtomicBool::new(false);
    let (found, waited, entries) = std::thread::scope(|s| {
        let mut session = writer.begin().unwrap();
        // Large enough a first batch: the session defers the search indexes, which locks
        // the variants table until it commits.
        session.write(&segments("First", 600)).unwrap();
        let r = s.spawn(|| {
            let found = best(&reader, "First segment number 12");
            (found, committing.load(Ordering::SeqCst), reader.stats().unwrap().entries)
        });
        std::thread::sleep(Duration::from_millis(300));
        session.write(&segments("Second", 10)).unwrap();
        committing.store(true, Ordering::SeqCst);
        session.commit().unwrap();
        r.join().unwrap()
    });
    assert!(waited, "a reader of the empty memory waits for its first import");
    assert_eq!(found.unwrap().0, "First Segment Nummer 12", "and sees it whole");
    assert_eq!(entries, 610);
    assert_eq!(variant_indexes(&url), before, "the same indexes, defined as before");
    // Every retrieval path reads them.
    assert_eq!(best(&reader, "First segment number 12").unwrap().0, "First Segment Nummer 12");
    assert_eq!(best(&writer, "Second segment number 7").unwrap().0, "Second Segment Nummer 7");
    let hits = reader.search(&SearchQuery::new("Second segment", loc("en"))).unwrap();
    assert_eq!(hits.len(), 10);
}

#[test]
fn a_first_import_that_rolls_back_leaves_the_indexes_as_they_were() {
    let url = fresh_url();
    let store = PgStore::open(&url).unwrap();
    let before = variant_indexes(&url);
    let mut session = store.begin().unwrap();
    session.write(&segments("Lost", 600)).unwrap();
    drop(session);
    assert_eq!(variant_indexes(&url), before);
    assert_eq!(store.stats().unwrap().entries, 0);
    // The next import into the still empty memory defers them again, and commits them.
    let mut session = store.begin().unwrap();
    session.write(&segments("Kept", 600)).unwrap();
    session.commit().unwrap();
    assert_eq!(variant_indexes(&url), before);
    assert_eq!(store.stats().unwrap().entries, 600);
}

/// The definitions of the indexes and constraints of the entry tables, sorted.
fn entry_schema(url: &str) -> Vec<String> {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let rows = client
        .query(
            "SELECT indexdef FROM pg_indexes WHERE tablename IN ('tm_entries', 'tm_variants', 'tm_origins') \
             UNION ALL SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) \
             FROM pg_constraint WHERE conrelid IN ('tm_entries'::regclass, 'tm_variants'::regclass, \
             'tm_origins'::regclass)",
            &[],
        )
        .unwrap();
    let mut defs: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    defs.sort();
    defs
}

/// Pages of `table` and how many of them the visibility map holds all frozen.
fn frozen_pages(url: &str, table: &str) -> (i64, i64) {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_visibility").unwrap();
    let row = client
        .query_one(
            &format!(
                "SELECT pg_relation_size('{table}') / current_setting('block_size')::bigint, all_frozen \
                 FROM pg_visibility_map_summary('{table}')"
            ),
            &[],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

/// `n` distinct pairs with an origin each.
fn segments_from(tag: &str, n: usize) -> Vec<NewEntry> {
    let mut batch = segments(tag, n);
    for e in &mut batch {
        e.origins = vec![Origin { project_id: format!("{tag} project"), ..Origin::default() }];
    }
    batch
}

#[test]
fn a_first_import_of_whole_batches_loads_frozen_rows_and_checks_its_keys_at_its_end() {
    let url = fresh_url();
    let store = PgStore::open(&url).unwrap();
    let before = entry_schema(&url);
    assert!(before.iter().any(|d| d.contains("FOREIGN KEY")), "{before:?}");
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    let first = session.write(&segments_from("Loaded", 600)).unwrap();
    // The tables are emptied in the session's transaction: no other program reads them
    // until it ends.
    let mut other = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    other.batch_execute("SET lock_timeout = '200ms'").unwrap();
    let locked = other.query_one("SELECT count(*) FROM tm_entries", &[]).unwrap_err();
    assert_eq!(locked.code(), Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE), "{locked}");
    // A later batch repeating entries of the first is deduplicated against them.
    let mut again = segments_from("Loaded", 3);
    again.extend(segments_from("Later", 2));
    let second = session.write(&again).unwrap();
    for k in 0..3 {
        let WriteOutcome::Inserted(id) = first[k] else { panic!("{:?}", first[k]) };
        assert_eq!(second[k], WriteOutcome::Deduplicated(id));
    }
    assert!(matches!(second[3], WriteOutcome::Inserted(_)), "{second:?}");
    // A replaced entry is found by its new identity.
    let WriteOutcome::Inserted(replaced) = first[10] else { panic!("{:?}", first[10]) };
    assert!(session.replace(replaced, &pair("Replaced segment", "Ersetztes Segment")).unwrap());
    let third = session.write(&[pair("Replaced segment", "Ersetztes Segment")]).unwrap();
    assert_eq!(third, vec![WriteOutcome::Deduplicated(replaced)]);
    session.commit().unwrap();

    assert_eq!(entry_schema(&url), before, "the same indexes and foreign keys, defined as before");
    // Every page frozen but those the session changed after writing them: the three
    // repeated entries' approvals and the replaced entry (a new row version each), the
    // replaced entry's variants (deleted and written again).
    for (table, changed) in [("tm_entries", 4), ("tm_variants", 2), ("tm_origins", 0)] {
        let (pages, frozen) = frozen_pages(&url, table);
        assert!(pages > changed && frozen >= pages - changed, "{table}: {frozen} of {pages} pages frozen");
    }
    assert_eq!(store.stats().unwrap().entries, 602);
    let Some(WriteOutcome::Inserted(id)) = first.first() else { panic!() };
    let entry = store.get(*id).unwrap().unwrap();
    assert_eq!(entry.approvals(), 2, "the repeat counted its approval");
    assert_eq!(entry.origins.len(), 1, "and gave no second origin of the same project");
    assert_eq!(best(&store, "Later segment number 1").unwrap().0, "Later Segment Nummer 1");
    assert_eq!(best(&store, "Replaced segment").unwrap().0, "Ersetztes Segment");
    assert!(best(&store, "Loaded segment number 10").is_none_or(|(t, _)| t != "Loaded Segment Nummer 10"));
    assert_eq!(other.query_one("SELECT count(*) FROM tm_origins", &[]).unwrap().get::<_, i64>(0), 602);
    // The keys hold: a variant of no entry is refused.
    let orphan = other
        .execute("INSERT INTO tm_variants (entry_id, ord, locale, runs, plain, text) VALUES (-1, 0, 'en', '[]', 'x', 'x')", &[])
        .unwrap_err();
    assert_eq!(orphan.code(), Some(&postgres::error::SqlState::FOREIGN_KEY_VIOLATION), "{orphan}");
}

#[test]
fn a_first_import_of_whole_batches_that_rolls_back_leaves_the_tables_as_they_were() {
    let url = fresh_url();
    let store = PgStore::open(&url).unwrap();
    let before = entry_schema(&url);
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&segments_from("Lost", 600)).unwrap();
    drop(session);
    assert_eq!(entry_schema(&url), before);
    assert_eq!(store.stats().unwrap().entries, 0);
    assert!(best(&store, "Lost segment number 1").is_none());
    // A memory with an entry is written row by row, its indexes kept.
    store.write(&[pair("Seed entry one", "Eintrag eins")]).unwrap();
    let mut session = store.begin().unwrap();
    session.all_or_nothing();
    session.write(&segments_from("Kept", 600)).unwrap();
    session.commit().unwrap();
    assert_eq!(entry_schema(&url), before);
    assert_eq!(store.stats().unwrap().entries, 601);
    assert_eq!(best(&store, "Seed entry one").unwrap().0, "Eintrag eins");
    assert_eq!(frozen_pages(&url, "tm_variants").1, 0, "rows written as they come are not frozen");
}

/// An index of the variants whose expression fails unless the build runs with
/// `maintenance_work_mem` at `expected`: the deferred build evaluates it for every row.
fn probe_build_memory(url: &str, expected: &str) {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "CREATE FUNCTION cmem_test_build_memory(t text) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN \
             IF current_setting('maintenance_work_mem') <> '{expected}' THEN \
             RAISE EXCEPTION 'built with maintenance_work_mem %', current_setting('maintenance_work_mem'); \
             END IF; RETURN t; END $$; \
             CREATE INDEX cmem_test_build_memory ON tm_variants (cmem_test_build_memory(text))"
        ))
        .unwrap();
}

#[test]
fn a_first_imports_index_build_raises_a_small_maintenance_work_mem_and_keeps_a_larger_one() {
    // PostgreSQL's default, then more than the import asks for (set on the database, so
    // the test does not depend on the server's own setting).
    for (server, build) in [("64MB", "256MB"), ("1GB", "1GB")] {
        let url = fresh_url();
        drop(PgStore::open(&url).unwrap());
        probe_build_memory(&url, build);
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!(
                "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET maintenance_work_mem = %L', \
                 current_database(), '{server}'); END $$"
            ))
            .unwrap();
        // Opened after the setting, so its connections start with it.
        let store = PgStore::open(&url).unwrap();
        let mut session = store.begin().unwrap();
        session.all_or_nothing();
        session.write(&segments("Built", 600)).unwrap();
        session.commit().unwrap_or_else(|e| panic!("server setting {server:?}: {e}"));
        assert_eq!(store.stats().unwrap().entries, 600);
    }
}

#[test]
fn an_import_into_a_memory_with_entries_keeps_its_indexes_filled_as_it_goes() {
    let url = fresh_url();
    let store = PgStore::open(&url).unwrap();
    store.write(&[pair("Seed entry one", "Eintrag eins")]).unwrap();
    let before = variant_indexes(&url);
    let mut session = store.begin().unwrap();
    session.write(&segments("More", 600)).unwrap();
    // A reader opened during the import, of a memory with entries, waits for nothing.
    let (tx, rx) = std::sync::mpsc::channel();
    let reader_url = url.clone();
    std::thread::spawn(move || {
        let _ = tx.send(PgStore::open_with(&reader_url, PgOptions::default().gram_index(false)));
    });
    let reader = rx.recv_timeout(Duration::from_secs(30)).expect("an open waited for the import").unwrap();
    assert_eq!(reader.stats().unwrap().entries, 1);
    assert_eq!(best(&reader, "Seed entry one").unwrap().0, "Eintrag eins");
    session.commit().unwrap();
    assert_eq!(variant_indexes(&url), before);
    assert_eq!(reader.stats().unwrap().entries, 601);
}

#[test]
fn a_lookup_learns_of_other_writers_from_its_entry_read_or_one_check() {
    let url = fresh_url();
    let a = PgStore::open(&url).unwrap();
    let b = PgStore::open(&url).unwrap();
    a.write(&[pair("Open the file", "Datei öffnen"), pair("Open the folder", "Ordner öffnen")]).unwrap();
    assert_eq!(best(&b, "Open the files").unwrap().0, "Datei öffnen");
    // Three exact tiers and up to three candidate calls: the counter comes with the
    // entries, no round trip of its own on the lookup's path.
    let before = b.change_checks();
    assert_eq!(best(&b, "Open the folders").unwrap().0, "Ordner öffnen");
    assert_eq!(best(&b, "Open the folder").unwrap().0, "Ordner öffnen");
    assert_eq!(b.change_checks(), before);
    // A lookup that reads no entry takes the counter read ahead while it walked.
    let ahead = b.counter_reads_ahead();
    assert!(best(&b, "Something else entirely").is_none());
    assert_eq!(b.change_checks(), before);
    assert!(b.counter_reads_ahead() > ahead);
    // One that reads the counter ahead sees a write committed before it began by a
    // store that was never looked up in.
    a.write(&[pair("Something else entirely", "Etwas ganz anderes")]).unwrap();
    assert_eq!(best(&b, "Something else entirely!").unwrap().0, "Etwas ganz anderes");
    a.write(&[pair("Nothing like it", "Nichts dergleichen")]).unwrap();
    assert!(best(&b, "A query with no match at all").is_none());
    assert_eq!(best(&b, "Nothing like it!").unwrap().0, "Nichts dergleichen");
    // Another store's writes are seen by the next lookup, with or without a stale match.
    a.write(&[pair("Open the window", "Fenster öffnen")]).unwrap();
    assert_eq!(best(&b, "Open the windows").unwrap().0, "Fenster öffnen");
    a.write(&[pair("Print everything twice", "Alles zweimal drucken")]).unwrap();
    assert_eq!(best(&b, "Print everything twice!").unwrap().0, "Alles zweimal drucken");
    let id = a.write(&[pair("Close the door", "Tür schließen")]).unwrap()[0].id();
    assert!(best(&b, "Close the doors").is_some());
    assert!(a.delete(id).unwrap());
    assert!(best(&b, "Close the doors").is_none());
    // A call outside a lookup checks for itself.
    let checks = b.change_checks();
    let hits = b
        .exact(&cmem_core::imp::ExactQuery {
            kind: cmem_core::imp::KeyKind::Plain,
            key: "Open the window",
            source: &loc("en"),
            target: &loc("de"),
        })
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(b.change_checks(), checks + 1);
}

#[test]
fn a_first_import_by_a_writer_that_does_not_own_the_tables_fills_the_indexes_as_it_goes() {
    let url = fresh_url();
    drop(PgStore::open(&url).unwrap());
    let before = variant_indexes(&url);
    // A role that may read and write the tables but owns none of them (the throwaway
    // cluster trusts local connections, so it needs no password).
    let role = format!("cmem_writer_{}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN \
             CREATE ROLE {role} LOGIN; END IF; END $$; \
             GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}; \
             GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {role}"
        ))
        .unwrap();
    let (head, rest) = url.split_once("://").unwrap();
    let (_, place) = rest.split_once('@').unwrap();
    let writer = PgStore::open(&format!("{head}://{role}@{place}")).unwrap();
    let mut session = writer.begin().unwrap();
    // As an import writes: it may not empty the tables to load them either.
    session.all_or_nothing();
    session.write(&segments("Granted", 600)).unwrap();
    session.commit().unwrap();
    assert_eq!(writer.stats().unwrap().entries, 600);
    assert_eq!(best(&writer, "Granted segment number 5").unwrap().0, "Granted Segment Nummer 5");
    assert_eq!(variant_indexes(&url), before);
}

/// Threads of this process named `name`.
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.flatten()
                .filter(|t| std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == name))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_store_reads_the_counter_ahead_on_one_thread_that_ends_with_it() {
    if !std::path::Path::new("/proc/self/task").exists() {
        eprintln!("skipped: no /proc to count threads in");
        return;
    }
    let url = fresh_url();
    let writer = PgStore::open(&url).unwrap();
    writer.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let reader = PgStore::open(&url).unwrap();
    assert_eq!(reader.counter_thread(), None, "no thread before the first lookup");
    for q in ["Nothing here", "Nor here", "Open the files"] {
        let _ = best(&reader, q);
    }
    let name = reader.counter_thread().unwrap();
    assert_eq!(threads_named(&name), 1, "one thread however many lookups");
    // Lookups on several threads at once share it, and each sees the write made before it.
    writer.write(&[pair("Close the file", "Datei schließen")]).unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| assert_eq!(best(&reader, "Close the files").unwrap().0, "Datei schließen"));
        }
    });
    assert_eq!(threads_named(&name), 1);
    drop(reader);
    assert_eq!(threads_named(&name), 0, "the thread ends with its store");
}

#[test]
fn a_persisted_index_is_opened_by_the_next_process_and_caught_up() {
    let url = fresh_url();
    let dir = index_dir(&format!("caught-up-{}", url.len() ^ url.bytes().map(usize::from).sum::<usize>()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let with_dir = || PgOptions::default().index_dir(&dir);
    let a = PgStore::open_with(&url, with_dir()).unwrap();
    a.write(&[
        pair("Open the file", "Datei öffnen"),
        pair("Close the window now", "Fenster jetzt schließen"),
        pair("Save the document", "Dokument sichern"),
    ])
    .unwrap();
    let doomed = a.write(&[pair("Print the page", "Seite drucken")]).unwrap()[0].id();
    // The first lookup builds the index from the tables and writes it for the next.
    assert_eq!(best(&a, "Open the files").unwrap().0, "Datei öffnen");
    assert_eq!((a.index_loads(), a.index_files_opened()), (1, 0));
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "one file, the source locale's: {files:?}");
    // Another process writes, deletes and replaces after the file was written.
    let other = PgStore::open(&url).unwrap();
    other.write(&[pair("Rename the folder", "Ordner umbenennen")]).unwrap();
    assert!(other.delete(doomed).unwrap());
    let saved = best_id(&other, "Save the documents");
    assert!(other.replace(saved, &pair("Save the document", "Dokument speichern")).unwrap());
    // The next process opens the file and takes those changes from the log.
    let b = PgStore::open_with(&url, with_dir()).unwrap();
    let queries = [
        "Open the files",
        "Rename the folders",
        "Print the pages",
        "Save the documents",
        "Close the windows",
    ];
    let built = PgStore::open(&url).unwrap();
    for q in queries {
        assert_eq!(scores(&b, q), scores(&built, q), "{q}");
    }
    assert_eq!(best(&b, "Rename the folders").unwrap().0, "Ordner umbenennen");
    assert!(best(&b, "Print the pages").is_none(), "deleted since the file was written");
    assert_eq!(best(&b, "Save the documents").unwrap().0, "Dokument speichern");
    assert_eq!((b.index_loads(), b.index_files_opened()), (0, 1));
    // It keeps up with later writes as a built index does.
    other.write(&[pair("Print the report", "Bericht drucken")]).unwrap();
    assert_eq!(best(&b, "Print the reports").unwrap().0, "Bericht drucken");
    // A torn file is not used: the index is built again, and the file replaced.
    let bytes = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &bytes[..bytes.len() / 2]).unwrap();
    let c = PgStore::open_with(&url, with_dir()).unwrap();
    assert_eq!(scores(&c, "Print the reports"), scores(&built, "Print the reports"));
    assert_eq!((c.index_loads(), c.index_files_opened()), (1, 0));
    let d = PgStore::open_with(&url, with_dir()).unwrap();
    assert_eq!(scores(&d, "Rename the folders"), scores(&built, "Rename the folders"));
    assert_eq!((d.index_loads(), d.index_files_opened()), (0, 1));
    // Another memory's file is never used, even under this memory's name.
    let elsewhere = fresh_url();
    let e = PgStore::open_with(&elsewhere, with_dir()).unwrap();
    e.write(&[pair("Open the file", "Datei aufmachen")]).unwrap();
    assert_eq!(best(&e, "Open the files").unwrap().0, "Datei aufmachen");
    let mut theirs: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    theirs.retain(|p| p != &files[0]);
    assert_eq!(theirs.len(), 1);
    std::fs::copy(&theirs[0], &files[0]).unwrap();
    let f = PgStore::open_with(&url, with_dir()).unwrap();
    assert_eq!(best(&f, "Open the files").unwrap().0, "Datei öffnen");
    assert_eq!((f.index_loads(), f.index_files_opened()), (1, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The entry of the best match of `query`.
fn best_id(store: &dyn ContentMemory, query: &str) -> cmem_core::EntryId {
    let req = LookupRequest::new(vec![Run::text(query)], loc("en"), loc("de"));
    lookup(store, &req).unwrap().into_iter().next().unwrap().entry.id
}

#[test]
fn a_copy_of_the_database_keeps_its_own_index_file() {
    let server = TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    let dir = index_dir(&format!("copy-{}", url.bytes().map(usize::from).sum::<usize>()));
    let _ = std::fs::remove_dir_all(&dir);
    let with_dir = || PgOptions::default().index_dir(&dir);
    {
        let a = PgStore::open_with(&url, with_dir()).unwrap();
        a.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
        assert!(best(&a, "Open the files").is_some());
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "the directory is made when missing");
    // A copy carries the memory's token, but not its future: entries written to it
    // after the copy are numbered as the original's next ones are.
    let db = url.rsplit('/').next().unwrap().split('?').next().unwrap().to_owned();
    let copy = format!("{db}_copy");
    let mut admin = postgres::Client::connect(&server.url_of("postgres"), postgres::NoTls).unwrap();
    admin.batch_execute(&format!("CREATE DATABASE {copy} TEMPLATE {db}")).unwrap();
    let copied = PgStore::open_with(&server.url_of(&copy), with_dir()).unwrap();
    let original = PgStore::open_with(&url, with_dir()).unwrap();
    original.write(&[pair("Close the window", "Fenster schließen")]).unwrap();
    copied.write(&[pair("Print the page", "Seite drucken")]).unwrap();
    assert_eq!(best(&copied, "Print the pages").unwrap().0, "Seite drucken");
    assert!(best(&copied, "Close the windows").is_none());
    assert_eq!((copied.index_loads(), copied.index_files_opened()), (1, 0));
    assert_eq!(best(&original, "Close the windows").unwrap().0, "Fenster schließen");
    assert!(best(&original, "Print the pages").is_none());
    assert_eq!((original.index_loads(), original.index_files_opened()), (0, 1));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "one file each");
    drop((copied, original));
    admin.batch_execute(&format!("DROP DATABASE {copy}")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_file_of_a_later_state_is_not_used() {
    let url = fresh_url();
    let dir = index_dir(&format!("ahead-{}", url.bytes().map(usize::from).sum::<usize>()));
    let _ = std::fs::remove_dir_all(&dir);
    let with_dir = || PgOptions::default().index_dir(&dir);
    let a = PgStore::open_with(&url, with_dir()).unwrap();
    a.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let newest = a.write(&[pair("Print the page", "Seite drucken")]).unwrap()[0].id();
    assert!(best(&a, "Print the pages").is_some());
    drop(a);
    let file = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
    let old = std::fs::read(&file).unwrap();
    // The database goes back to an earlier state (as a restore does): the newest entry
    // and its log are gone, and its number will be handed out again.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "DELETE FROM tm_entries WHERE id = {0}; DELETE FROM tm_changes; \
             SELECT setval(pg_get_serial_sequence('tm_entries', 'id'), {0} - 1)",
            newest.0
        ))
        .unwrap();
    // Before the number is handed out again, the file is ahead of the database.
    let behind = PgStore::open_with(&url, with_dir()).unwrap();
    assert!(best(&behind, "Print the pages").is_none(), "a forgotten entry from a file ahead");
    assert_eq!((behind.index_loads(), behind.index_files_opened()), (1, 0));
    drop(behind);
    // That store wrote a file of this state: put the old one back.
    std::fs::write(&file, &old).unwrap();
    let b = PgStore::open_with(&url, with_dir()).unwrap();
    let again = b.write(&[pair("Close the window", "Fenster schließen")]).unwrap()[0].id();
    assert_eq!(again, newest, "the number is reused");
    // Now the old file is as far as the database, but its newest entry is another.
    assert!(best(&b, "Print the pages").is_none(), "a forgotten entry from an earlier state");
    assert_eq!(best(&b, "Close the windows").unwrap().0, "Fenster schließen");
    assert_eq!((b.index_loads(), b.index_files_opened()), (1, 0));
    let c = PgStore::open_with(&url, with_dir()).unwrap();
    assert!(best(&c, "Print the pages").is_none());
    assert_eq!(best(&c, "Close the windows").unwrap().0, "Fenster schließen");
    assert_eq!((c.index_loads(), c.index_files_opened()), (0, 1), "the file b wrote");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_file_ahead_of_the_change_log_is_not_used() {
    let url = fresh_url();
    let dir = index_dir(&format!("log-{}", url.bytes().map(usize::from).sum::<usize>()));
    let _ = std::fs::remove_dir_all(&dir);
    let with_dir = || PgOptions::default().index_dir(&dir);
    let a = PgStore::open_with(&url, with_dir()).unwrap();
    let first = a.write(&[pair("Open the file", "Datei öffnen")]).unwrap()[0].id();
    a.write(&[pair("Print the page", "Seite drucken")]).unwrap();
    assert!(a.delete(first).unwrap());
    assert!(best(&a, "Print the pages").is_some());
    drop(a);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "a wrote its file");
    // The log goes back (as a restore from before the deletion would take it), the
    // entries stay: the file knows a change the database's log does not.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client.batch_execute("DELETE FROM tm_changes").unwrap();
    let b = PgStore::open_with(&url, with_dir()).unwrap();
    assert!(best(&b, "Print the pages").is_some());
    assert_eq!((b.index_loads(), b.index_files_opened()), (1, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_change_mark_moves_with_every_write_of_any_store() {
    let url = fresh_url();
    let store = PgStore::open(&url).unwrap();
    let first = store.change_mark().unwrap().expect("PostgreSQL has a change counter");
    assert_eq!(store.change_mark().unwrap(), Some(first), "no write, no change");
    store.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let second = store.change_mark().unwrap().unwrap();
    assert_ne!(second, first);
    // A re-approval, and another store's write.
    store.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    let third = store.change_mark().unwrap().unwrap();
    assert_ne!(third, second);
    PgStore::open(&url).unwrap().write(&[pair("Close the file", "Datei schließen")]).unwrap();
    assert_ne!(store.change_mark().unwrap().unwrap(), third);
}

#[test]
fn two_scopes_open_at_once_on_one_thread_each_judge_their_own_reads() {
    let url = fresh_url();
    let (writer, reader) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    let id = writer.write(&[pair("Open the file", "Datei öffnen")]).unwrap()[0].id();
    assert!(best(&reader, "Open the file").is_some(), "the reader's index is loaded");
    let (en, de) = (loc("en"), loc("de"));
    // A lookup begins and reads an entry: its reads saw the memory its index was loaded
    // from, so they hold.
    let mut first = reader.read_scope(&en).unwrap();
    assert!(first.get_many(&[id]).unwrap()[0].is_some());
    // Another store writes; a second lookup begins on the same thread, reads the index
    // it finds without checking it, and misses the write.
    writer.write(&[pair("Close the window", "Fenster schließen")]).unwrap();
    let mut second = reader.read_scope(&en).unwrap();
    let q = cmem_core::imp::ExactQuery {
        kind: cmem_core::imp::KeyKind::Plain,
        key: "Close the window",
        source: &en,
        target: &de,
    };
    assert!(second.exact(&q).unwrap().is_empty(), "the index read unchecked misses the write");
    // The first ends before the second: the second must still learn that it missed a
    // write committed before it began, and not take the first's verdict.
    assert!(first.confirm().unwrap());
    drop(first);
    assert!(!second.confirm().unwrap(), "the second scope's reads missed a write made before it began");
    drop(second);
    // The next scope begins checked and sees the write.
    let mut third = reader.read_scope(&en).unwrap();
    assert_eq!(third.exact(&q).unwrap().len(), 1);
    assert!(third.confirm().unwrap());
}

#[test]
fn a_scope_moved_to_another_thread_keeps_what_its_reads_saw() {
    let url = fresh_url();
    let (writer, reader) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    let id = writer.write(&[pair("Open the file", "Datei öffnen")]).unwrap()[0].id();
    assert!(best(&reader, "Open the file").is_some(), "the index is loaded");
    // Begun on this thread, read on another (as a lookup whose work hops threads), ended
    // here: what its entry read saw travels with the scope.
    fn read_elsewhere(
        mut scope: cmem_core::imp::ReadScope<'_>,
        id: cmem_core::EntryId,
    ) -> cmem_core::imp::ReadScope<'_> {
        std::thread::scope(|s| {
            s.spawn(move || {
                assert!(scope.get_many(&[id]).unwrap()[0].is_some());
                scope
            })
            .join()
            .unwrap()
        })
    }
    let checks = reader.change_checks();
    let mut scope = read_elsewhere(reader.read_scope(&loc("en")).unwrap(), id);
    assert!(scope.confirm().unwrap());
    assert_eq!(reader.change_checks(), checks, "the counter came with the entry read, no round trip");
    // A write between the scope's beginning and its entry read: the read saw another
    // counter than the index was loaded at, and the scope does not hold.
    let scope = reader.read_scope(&loc("en")).unwrap();
    writer.write(&[pair("Close the window", "Fenster schließen")]).unwrap();
    let mut scope = read_elsewhere(scope, id);
    assert!(!scope.confirm().unwrap());
}

#[test]
fn a_pool_busy_to_the_last_connection_is_a_wait_not_an_outage() {
    let store = fresh(PgOptions::default().pool_size(1));
    store.write(&[pair("Keep", "Behalten")]).unwrap();
    // The write session holds the pool's only connection.
    let session = store.begin().unwrap();
    let err = store.stats().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.to_string().contains("stayed busy"), "{err}");
    // Not taken for an outage: calls made while the pool is still busy wait their turn
    // (an outage would fail them at once, one of them trying the database again) ...
    let waited = std::thread::scope(|s| {
        let calls: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let err = store.stats().unwrap_err();
                    err.to_string()
                })
            })
            .collect();
        calls.into_iter().map(|c| c.join().unwrap()).collect::<Vec<_>>()
    });
    for err in &waited {
        assert!(err.contains("stayed busy"), "{err}");
    }
    // ... and once the connection is back, the next call has it.
    drop(session);
    assert_eq!(store.stats().unwrap().entries, 1);
}
