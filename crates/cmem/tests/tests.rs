//! Opening memories by address, end to end: a `postgres://` address on a real server (a
//! throwaway cluster, or `CMEM_PG_URL`'s).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cmem::{Locale, LookupRequest, Memory, NewEntry, OpenOptions, Run, Variant};
use cmem_postgres::testing::TestServer;

#[test]
fn a_postgres_address_opens_a_shared_memory() {
    let url = TestServer::shared().unwrap().fresh_database().unwrap();
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

#[test]
fn a_postgres_address_hides_its_password_in_errors() {
    let server = TestServer::shared().unwrap();
    let url = server.url_of("no_such_memory").replacen('@', ":pw-s3cret@", 1);
    let err = Memory::open(&url).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("no_such_memory") && !msg.contains("pw-s3cret"), "{msg}");
}

#[test]
fn a_postgres_memory_keeps_its_index_in_the_directory_asked() {
    let url = TestServer::shared().unwrap().fresh_database().unwrap();
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
