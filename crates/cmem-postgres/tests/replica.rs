//! A primary and its streaming replica (`pg_basebackup -R`, both throwaway clusters on
//! loopback): two stores as two servers would hold them, one on the primary alone, one
//! writing to the primary and reading from the replica; the replica serving while the
//! primary is down; and the replica promoted with every acknowledged write.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cmem_core::{lookup, ContentMemory, Locale, LookupRequest, NewEntry, Run, Variant};
use cmem_postgres::testing::TestServer;
use cmem_postgres::{PgOptions, PgStore};

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

#[test]
fn a_replica_serves_reads_and_is_promoted_with_nothing_acknowledged_lost() {
    if std::env::var_os("CMEM_PG_URL").is_some() {
        eprintln!("!! CMEM_PG_URL is set: the replica test needs throwaway clusters of its own; skipped");
        return;
    }
    let primary = match TestServer::start() {
        Ok(server) => server,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("!! no PostgreSQL server for the replica test ({e}); skipped");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let replica = primary.start_replica().unwrap();
    // A write is acknowledged once the replica has applied it: what a deployment that
    // reads from replicas and may promote one sets up (docs/operators.md).
    primary.admin_execute("ALTER SYSTEM SET synchronous_standby_names = '*'").unwrap();
    primary.admin_execute("SELECT pg_reload_conf()").unwrap();
    let primary_url = primary.fresh_database().unwrap();
    let db = primary_url.rsplit('/').next().unwrap().to_owned();
    primary.admin_execute(&format!("ALTER DATABASE {db} SET synchronous_commit = remote_apply")).unwrap();
    let replica_url = replica.url_of(&db);

    // Two servers: `a` on the primary alone, `b` writing there and reading the replica.
    let a = PgStore::open(&primary_url).unwrap();
    let b = PgStore::open_with(&primary_url, PgOptions::default().replica(&replica_url)).unwrap();
    // A third, as `cmem serve` opens one: the counter taken as read for a while.
    let fresh = std::time::Duration::from_millis(200);
    let f = PgStore::open_with(&primary_url, PgOptions::default().replica(&replica_url).freshness(fresh))
        .unwrap();
    assert!(best(&f, "Open the files").is_none());
    a.write(&[pair("Open the file", "Datei öffnen")]).unwrap();
    assert_eq!(best(&b, "Open the files").unwrap().0, "Datei öffnen", "a's write read on the replica");
    std::thread::sleep(fresh + fresh / 2);
    assert_eq!(best(&f, "Open the files").unwrap().0, "Datei öffnen", "seen within the freshness bound");
    drop(f);
    b.write(&[pair("Close the window now", "Fenster jetzt schließen")]).unwrap();
    assert_eq!(best(&a, "Close the windows now").unwrap().0, "Fenster jetzt schließen");
    assert_eq!(
        best(&b, "Close the windows now").unwrap().0,
        "Fenster jetzt schließen",
        "b reads its own write"
    );
    let id = a.write(&[pair("Print the page", "Seite drucken")]).unwrap()[0].id();
    assert!(best(&b, "Print the pages").is_some());
    assert!(a.delete(id).unwrap());
    assert!(best(&b, "Print the pages").is_none(), "a deletion replayed on the replica");

    // One server stops; the other keeps serving.
    drop(a);
    let acknowledged: Vec<String> = (0..40).map(|i| format!("Save document number {i} now")).collect();
    for (i, text) in acknowledged.iter().enumerate() {
        b.write(&[pair(text, &format!("Dokument Nummer {i} jetzt speichern"))]).unwrap();
    }
    assert_eq!(b.stats().unwrap().entries, 42);

    // The primary goes down: b's lookups are the replica's alone.
    primary.pause().unwrap();
    assert_eq!(best(&b, "Open the files").unwrap().0, "Datei öffnen", "served from the replica");
    assert_eq!(best(&b, "Save document number 39 now!").unwrap().0, "Dokument Nummer 39 jetzt speichern");
    assert!(b.write(&[pair("Lost", "Verloren")]).is_err(), "no primary to write to");

    // The replica promoted: every acknowledged write is there, and it takes writes.
    replica.promote().unwrap();
    let c = PgStore::open(&replica_url).unwrap();
    assert_eq!(c.stats().unwrap().entries, 42, "nothing acknowledged lost");
    for (i, text) in acknowledged.iter().enumerate() {
        let want = format!("Dokument Nummer {i} jetzt speichern");
        assert_eq!(best(&c, text).map(|b| b.0), Some(want));
    }
    c.write(&[pair("Rename the folder", "Ordner umbenennen")]).unwrap();
    assert_eq!(best(&c, "Rename the folders").unwrap().0, "Ordner umbenennen");
    drop((b, c));
    replica.stop();
    primary.stop();
}
