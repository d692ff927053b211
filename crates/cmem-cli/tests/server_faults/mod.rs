//! `cmem serve` meeting faults: a PostgreSQL memory whose database goes down and comes
//! back (the server stays up, says it is not ready, answers `503` at once instead of
//! hanging, and serves again without a restart), a server killed with `SIGKILL` during
//! an import job and single writes, and a SQLite memory whose disk fills while the server
//! writes. Every case: nothing acknowledged lost, nothing half visible, reads served.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use cmem_postgres::testing::TestServer;
use serde_json::{json, Value};

use super::{td, Dir};

/// Integrity and entry count of the SQLite memory at `path`, read by another program.
fn check(path: &std::path::Path) -> u64 {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let ok: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(ok, "ok", "{}", path.display());
    let n: i64 = conn.query_row("SELECT COUNT(*) FROM tm_entries", [], |r| r.get(0)).unwrap();
    n as u64
}

/// `n` lines of JSON Lines, each its own entry, tagged `tag`.
fn lines(tag: &str, n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!("{{\"source\":\"{tag} line {i} holds a few words\",\"target\":\"{tag} Zeile {i} hat ein paar Wörter\"}}\n"));
    }
    out
}

/// A running `cmem serve` and its address.
struct Served {
    child: Child,
    base: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(d: &Dir, url: &str) -> Served {
    serve_with(d, url, "")
}

/// `cmem serve` on memory `url`, under the shell limits `ulimit` (`-f 4096`), if any.
fn serve_with(d: &Dir, url: &str, ulimit: &str) -> Served {
    let mut command = if ulimit.is_empty() {
        d.cmd(&["--memory", url, "serve", "--listen", "127.0.0.1:0"])
    } else {
        let mut c = std::process::Command::new("sh");
        c.args([
            "-c",
            &format!("ulimit {ulimit} && exec \"$0\" --memory \"$1\" serve --listen 127.0.0.1:0"),
            super::CMEM,
            url,
        ])
        .current_dir(&d.0)
        .env_remove("CMEM_MEMORY");
        c
    };
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    Served { child, base }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn call(method: &str, url: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value, Duration) {
    let started = Instant::now();
    let agent = agent();
    let resp = match (method, body) {
        ("GET", _) => {
            let mut r = agent.get(url);
            if let Some(t) = token {
                r = r.header("Authorization", format!("Bearer {t}"));
            }
            r.call()
        }
        (_, b) => {
            let mut r = agent.post(url).header("Content-Type", "application/json");
            if let Some(t) = token {
                r = r.header("Authorization", format!("Bearer {t}"));
            }
            r.send(b.map_or(String::new(), Value::to_string))
        }
    }
    .unwrap();
    let status = resp.status().as_u16();
    let text = resp.into_body().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null), started.elapsed())
}

fn lookup(base: &str, text: &str) -> (u16, Value, Duration) {
    call(
        "POST",
        &format!("{base}/v1/lookup"),
        None,
        Some(&json!({"text": text, "source_locale": "en", "target_locale": "de"})),
    )
}

fn entry(source: &str, target: &str) -> Value {
    json!({"variants": [
        {"locale": "en", "runs": [{"text": source}]},
        {"locale": "de", "runs": [{"text": target}]},
    ]})
}

/// Polls `check` until it holds or `limit` passes.
fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn postgres_down_and_up_under_a_running_server() {
    // A cluster of this test's own: stopping the shared one would fail other tests.
    let pg = TestServer::start().unwrap();
    if pg.pause().is_err() {
        eprintln!("SKIPPED: CMEM_PG_URL's server cannot be stopped by a test");
        return;
    }
    pg.resume().unwrap();
    let url = pg.fresh_database().unwrap();
    let d = Dir::new();
    d.ok(&["--memory", &url, "import", "-q", "--from", "en", "--to", "de", &td("cli/sample.jsonl")]);
    let token = d.ok(&["--memory", &url, "token", "create", "--scope", "write"]).stdout().trim().to_owned();
    let served = serve(&d, &url);
    let base = served.base.clone();
    let (status, v, _) = lookup(&base, "Automatic");
    assert_eq!((status, v["matches"][0]["target"]["text"].clone()), (200, json!("Automatisch")), "{v}");
    let (status, v, _) = call(
        "POST",
        &format!("{base}/v1/entries"),
        Some(&token),
        Some(&entry("Before the outage", "Vor dem Ausfall")),
    );
    assert_eq!(status, 201, "{v}");

    pg.pause().unwrap();
    // Not ready while the database is down; lookups and writes answered 503, not hung.
    let (status, v, _) = call("GET", &format!("{base}/readyz"), None, None);
    assert_eq!(status, 503, "{v}");
    for text in ["Automatic", "Table Name", "something never stored"] {
        let (status, v, took) = lookup(&base, text);
        assert_eq!(status, 503, "{text}: {v}");
        assert_eq!(v["error"], "unavailable", "{v}");
        // A guard against a hang, not a timing: a call waits 2 s for a connection at most.
        assert!(took < Duration::from_secs(30), "{text} took {took:?}");
    }
    let (status, v, _) = call(
        "POST",
        &format!("{base}/v1/entries"),
        Some(&token),
        Some(&entry("During the outage", "Während des Ausfalls")),
    );
    assert_eq!(status, 503, "{v}");
    assert_eq!(call("GET", &format!("{base}/healthz"), None, None).0, 200, "the process itself is alive");

    pg.resume().unwrap();
    // Ready again without a restart of the server, and every acknowledged write there.
    assert!(
        eventually(Duration::from_secs(30), || call("GET", &format!("{base}/readyz"), None, None).0 == 200)
    );
    let (status, v, _) = lookup(&base, "Before the outage");
    assert_eq!((status, v["matches"][0]["target"]["text"].clone()), (200, json!("Vor dem Ausfall")), "{v}");
    let (status, v, _) = lookup(&base, "During the outage");
    assert!(
        status == 200
            && v["matches"].as_array().unwrap().iter().all(|m| m["target"]["text"] != "Während des Ausfalls"),
        "{v}"
    );
    let (status, v, _) = call(
        "POST",
        &format!("{base}/v1/entries"),
        Some(&token),
        Some(&entry("After the outage", "Nach dem Ausfall")),
    );
    assert_eq!(status, 201, "{v}");
    let (_, v, _) = lookup(&base, "After the outage");
    assert_eq!(v["matches"][0]["target"]["text"], "Nach dem Ausfall", "{v}");

    // An import job caught by an outage: stored whole or not at all.
    let (_, stats, _) = call("GET", &format!("{base}/v1/stats"), None, None);
    let before = stats["entries"].as_u64().unwrap();
    let mut lines = String::new();
    for i in 0..20_000 {
        lines.push_str(&format!(
            "{{\"source\":\"Outage import line {i}\",\"target\":\"Ausfallimport Zeile {i}\"}}\n"
        ));
    }
    let resp = agent()
        .post(format!("{base}/v1/imports?format=jsonl&from=en&to=de&name=outage.jsonl"))
        .header("Authorization", format!("Bearer {token}"))
        .send(lines)
        .unwrap();
    assert_eq!(resp.status().as_u16(), 202);
    let location = resp.headers().get("location").unwrap().to_str().unwrap().to_owned();
    pg.pause().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    pg.resume().unwrap();
    let mut job = Value::Null;
    assert!(
        eventually(Duration::from_secs(120), || {
            job = call("GET", &format!("{base}{location}"), None, None).1;
            job["status"] != "running"
        }),
        "{job}"
    );
    assert!(
        eventually(Duration::from_secs(30), || call("GET", &format!("{base}/readyz"), None, None).0 == 200)
    );
    let (_, stats, _) = call("GET", &format!("{base}/v1/stats"), None, None);
    let after = stats["entries"].as_u64().unwrap();
    match job["status"].as_str() {
        Some("succeeded") => assert_eq!(after, before + 20_000, "{job}"),
        Some("failed") => assert_eq!(after, before, "a failed import left a part: {job}"),
        other => panic!("job ended {other:?}: {job}"),
    }
    drop(served);
    pg.stop();
}

#[test]
fn a_server_killed_during_an_import_job_and_writes_keeps_what_it_acknowledged() {
    let d = Dir::with_sample();
    let db = d.path("cmem.db").display().to_string();
    let token = d.ok(&["token", "create", "--scope", "write"]).stdout().trim().to_owned();
    let before = check(&d.path("cmem.db"));
    let mut served = serve(&d, &db);
    let base = served.base.clone();
    // Single writes, one after the other, each acknowledged or not.
    let writer = {
        let (base, token) = (base.clone(), token.clone());
        std::thread::spawn(move || {
            let mut acknowledged = Vec::new();
            for i in 0..10_000 {
                let source = format!("Acknowledged write {i}");
                let agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(5)))
                    .build();
                let agent: ureq::Agent = agent.into();
                let sent = agent
                    .post(format!("{base}/v1/entries"))
                    .header("Authorization", format!("Bearer {token}"))
                    .header("Content-Type", "application/json")
                    .send(entry(&source, &format!("Bestätigt {i}")).to_string());
                match sent {
                    Ok(r) if r.status().as_u16() == 201 => acknowledged.push(source),
                    _ => break,
                }
            }
            acknowledged
        })
    };
    let resp = agent()
        .post(format!("{base}/v1/imports?format=jsonl&from=en&to=de&name=killed.jsonl"))
        .header("Authorization", format!("Bearer {token}"))
        .send(lines("Killed import", 30_000))
        .unwrap();
    assert_eq!(resp.status().as_u16(), 202);
    std::thread::sleep(Duration::from_millis(300));
    served.child.kill().unwrap();
    served.child.wait().unwrap();
    let acknowledged = writer.join().unwrap();
    assert!(!acknowledged.is_empty(), "no write was acknowledged before the kill");

    // Whole: the integrity check passes; the import all or nothing; every acknowledged
    // write there (one more may have been stored with its answer lost to the kill).
    let after = check(&d.path("cmem.db"));
    let imported = if after >= before + 30_000 { 30_000 } else { 0 };
    let written = after - before - imported;
    assert!(
        written == acknowledged.len() as u64 || written == acknowledged.len() as u64 + 1,
        "{written} written, {} acknowledged, {imported} imported",
        acknowledged.len()
    );
    let served = serve(&d, &db);
    for source in [&acknowledged[0], &acknowledged[acknowledged.len() - 1]] {
        let (status, v, _) = lookup(&served.base, source);
        assert_eq!((status, v["matches"][0]["score"].clone()), (200, json!(1.0)), "{source}: {v}");
    }
}

#[test]
fn a_full_disk_fails_the_servers_write_and_it_keeps_serving() {
    let d = Dir::with_sample();
    let db = d.path("cmem.db").display().to_string();
    let token = d.ok(&["token", "create", "--scope", "write"]).stdout().trim().to_owned();
    // Files may grow to 1 MiB past the memory (`ulimit -f` counts 512-byte blocks).
    let size = std::fs::metadata(d.path("cmem.db")).unwrap().len();
    let served = serve_with(&d, &db, &format!("-f {}", (size + (1 << 20)) / 512));
    let base = served.base.clone();
    let mut acknowledged = 0u64;
    let mut refused = None;
    for batch in 0..200 {
        let entries: Vec<Value> = (0..200)
            .map(|i| {
                entry(
                    &format!("Batch {batch} entry {i} {}", "words ".repeat(20)),
                    &format!("Stapel {batch} Eintrag {i}"),
                )
            })
            .collect();
        let (status, v, _) =
            call("POST", &format!("{base}/v1/entries"), Some(&token), Some(&Value::Array(entries)));
        if status == 201 {
            acknowledged += 200;
        } else {
            refused = Some((status, v));
            break;
        }
    }
    let (status, v) = refused.expect("the limit was never reached");
    assert!(status >= 500, "{status}: {v}");
    assert!(
        v["message"].as_str().is_some_and(|m| m.contains("full") || m.contains("disk") || m.contains("I/O")),
        "{v}"
    );
    // Still serving: health, lookups of old and acknowledged entries.
    assert_eq!(call("GET", &format!("{base}/healthz"), None, None).0, 200);
    let (status, v, _) = lookup(&base, "Automatic");
    assert_eq!((status, v["matches"][0]["target"]["text"].clone()), (200, json!("Automatisch")), "{v}");
    drop(served);
    // The refused batch is not there in part.
    assert_eq!(check(&d.path("cmem.db")), 193 + acknowledged);
}
