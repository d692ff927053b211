//! `/v1/stats` answers from the counts the writes keep (`tm_counts`, DESIGN.md §6.4), not
//! by counting rows: the counts stay those of the rows after the server's writes and
//! deletes, after another process's write, and after another process killed (`SIGKILL`)
//! in the middle of its writes.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

use cmem::{Locale, Memory, NewEntry, OpenOptions, Run, Variant};
use cmem_server::ServerConfig;
use serde_json::json;

use super::{en_de, Server};

/// The environment variable that makes [`second_process_writer`] write: `once:PATH` (five
/// English → Italian entries, then exit) or `forever:PATH` (batches of them until killed).
const SECOND_WRITER: &str = "CMEM_TEST_SECOND_WRITER";

/// Not a test of its own: the body of the second process the tests below start (this
/// test binary run again with [`SECOND_WRITER`] set). Without it, it does nothing.
#[test]
fn second_process_writer() {
    let Ok(task) = std::env::var(SECOND_WRITER) else { return };
    let (mode, path) = task.split_once(':').unwrap();
    let memory = Memory::open_with(path, &OpenOptions::new()).unwrap();
    let (en, it) = (Locale::parse("en").unwrap(), Locale::parse("it").unwrap());
    let batch = |first: usize, n: usize| -> Vec<NewEntry> {
        (first..first + n)
            .map(|i| {
                NewEntry::pair(
                    Variant::new(en.clone(), vec![Run::text(format!("Second writer's line {i}"))]),
                    Variant::new(it.clone(), vec![Run::text(format!("Riga {i} del secondo"))]),
                )
            })
            .collect()
    };
    match mode {
        "once" => {
            memory.write(&batch(0, 5)).unwrap();
        }
        "forever" => {
            // Large batches, each one transaction, so that a kill finds one under way.
            for round in 0.. {
                memory.write(&batch(1000 + round * 400, 400)).unwrap();
            }
        }
        _ => panic!("{SECOND_WRITER}={task}"),
    }
}

/// This test binary again, as another process, running [`second_process_writer`] with
/// `mode` on the memory at `path`.
fn second_process(mode: &str, path: &std::path::Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "stats::second_process_writer", "--test-threads=1", "--quiet"])
        .env(SECOND_WRITER, format!("{mode}:{}", path.display()))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// `/v1/stats` as (entries, variants, [(source, target, entries)]).
fn stats(s: &Server) -> (u64, u64, Vec<(String, String, u64)>) {
    let (status, v) = s.get_json("/v1/stats", None);
    assert_eq!(status, 200, "{v}");
    let pairs = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["source"].as_str().unwrap().to_owned(),
                p["target"].as_str().unwrap().to_owned(),
                p["entries"].as_u64().unwrap(),
            )
        })
        .collect();
    (v["entries"].as_u64().unwrap(), v["variants"].as_u64().unwrap(), pairs)
}

/// The same, counted from the stored rows (what migration 9 fills the counts from).
fn counted(path: &std::path::Path) -> (u64, u64, Vec<(String, String, u64)>) {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as u64;
    let mut stmt = conn
        .prepare(
            "SELECT a.locale, b.locale, COUNT(*) FROM tm_variants a \
             JOIN tm_variants b ON b.entry_id = a.entry_id AND b.ord > 0 WHERE a.ord = 0 \
             GROUP BY a.locale, b.locale ORDER BY a.locale, b.locale",
        )
        .unwrap();
    let pairs = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64)))
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap();
    (count("SELECT COUNT(*) FROM tm_entries"), count("SELECT COUNT(*) FROM tm_variants"), pairs)
}

/// The entries of pair `source` → `target` in `stats`.
fn pair(stats: &(u64, u64, Vec<(String, String, u64)>), source: &str, target: &str) -> u64 {
    stats.2.iter().find(|p| p.0 == source && p.1 == target).map_or(0, |p| p.2)
}

#[test]
fn stats_read_the_kept_counts_which_stay_those_of_the_rows() {
    let s = Server::start(ServerConfig::new());
    let start = stats(&s);
    assert_eq!((start.0, start.1, pair(&start, "en", "de")), (193, 386, 193));
    assert_eq!(start, counted(&s.path));

    // Written through the server: two English → German, one English → French; the same
    // again changes nothing (deduplicated).
    let french = json!({"variants": [{"locale": "en", "runs": [{"text": "Zebra crossing"}]},
                                     {"locale": "fr", "runs": [{"text": "Passage piéton"}]}]});
    let written = json!([en_de("Zebra crossing", "Zebrastreifen"), en_de("Okapi", "Okapi"), french]);
    for _ in 0..2 {
        let (status, v) = s.post("/v1/entries", Some(&s.write), &written);
        assert_eq!(status, 201, "{v}");
    }
    let after = stats(&s);
    assert_eq!((after.0, after.1, pair(&after, "en", "de"), pair(&after, "en", "fr")), (196, 392, 195, 1));
    assert_eq!(after, counted(&s.path));

    // Deleted through the server: the French pair's only entry, so the pair is gone.
    let (_, v) = s.post("/v1/entries", Some(&s.write), &json!([written[2]]));
    let id = v["entries"][0]["id"].as_i64().unwrap();
    let (status, _) = s.send("DELETE", &format!("/v1/entries/{id}"), Some(&s.write), None);
    assert_eq!(status, 204);
    let after = stats(&s);
    assert_eq!((after.0, after.1), (195, 390));
    assert!(after.2.iter().all(|p| p.1 != "fr"), "{:?}", after.2);
    assert_eq!(after, counted(&s.path));

    // Written by another process: seen at the next answer.
    assert!(second_process("once", &s.path).wait().unwrap().success());
    let after = stats(&s);
    assert_eq!((after.0, pair(&after, "en", "it")), (200, 5));
    assert_eq!(after, counted(&s.path));

    // Another process killed in the middle of its writes (a batch of 400 entries a
    // transaction): the counts are those of the rows it committed, no more, no less.
    let mut writer = second_process("forever", &s.path);
    let started = Instant::now();
    while pair(&stats(&s), "en", "it") < 5 + 800 {
        assert!(started.elapsed() < Duration::from_secs(120), "the second process wrote too little");
        assert!(writer.try_wait().unwrap().is_none(), "the second process ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(37));
    writer.kill().unwrap();
    writer.wait().unwrap();
    let after = stats(&s);
    assert_eq!((after.2.len(), (pair(&after, "en", "it") - 5) % 400), (2, 0), "{:?}", after.2);
    assert_eq!(after, counted(&s.path));
    // And a lookup still answers on the server.
    let (status, v) = s.post(
        "/v1/lookup",
        None,
        &json!({"text": "Automatic", "source_locale": "en", "target_locale": "de"}),
    );
    assert_eq!(status, 200, "{v}");
}

/// The proof that `/v1/stats` reads the kept counts rather than counting: a count
/// changed behind the store's back is what it answers.
#[test]
fn stats_answer_what_the_counts_say() {
    let s = Server::start(ServerConfig::new());
    let conn = rusqlite::Connection::open(&s.path).unwrap();
    conn.execute("UPDATE tm_counts SET n = 7 WHERE source = '' AND target = ''", []).unwrap();
    drop(conn);
    let (entries, variants, _) = stats(&s);
    assert_eq!((entries, variants), (7, 386));
}
