//! `cmem serve` on a PostgreSQL memory whose database goes down and comes back: the
//! server stays up, says it is not ready, answers `503` at once instead of hanging, and
//! serves again without a restart; nothing it acknowledged is lost, and an import job
//! caught by the outage is stored whole or not at all.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use cmem_postgres::testing::TestServer;
use serde_json::{json, Value};

use super::{td, Dir};

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
    let mut child = d
        .cmd(&["--memory", url, "serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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
