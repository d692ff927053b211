//! `cmem serve` and `cmem token`: the built binary serving the sample memory on
//! `127.0.0.1:0`, tokens made and revoked by the CLI while it runs, and `SIGTERM`.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::Dir;

/// A running `cmem serve` and the address it printed.
struct Served {
    child: Child,
    base: String,
    stderr: BufReader<std::process::ChildStderr>,
}

impl Served {
    fn start(d: &Dir, extra: &[&str]) -> Served {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut child = d.cmd(&args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        Served { child, base, stderr }
    }

    /// Sends `SIGTERM`; returns the exit code, the rest of stderr and the time taken.
    fn terminate(self) -> (i32, String, Duration) {
        self.signal("TERM")
    }

    /// Sends `SIG{name}`; returns as [`terminate`](Self::terminate).
    fn signal(mut self, name: &str) -> (i32, String, Duration) {
        let started = Instant::now();
        let pid = self.child.id().to_string();
        assert!(std::process::Command::new("kill")
            .args([&format!("-{name}"), &pid])
            .status()
            .unwrap()
            .success());
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "cmem serve did not end within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        (status.code().unwrap_or(-1), rest, started.elapsed())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

fn post(base: &str, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let mut req = agent().post(format!("{base}{path}")).header("Content-Type", "application/json");
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    let resp = req.send(body.to_string()).unwrap();
    let status = resp.status().as_u16();
    let text = resp.into_body().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn get(base: &str, path: &str) -> (u16, Value) {
    let resp = agent().get(format!("{base}{path}")).call().unwrap();
    let status = resp.status().as_u16();
    (status, serde_json::from_str(&resp.into_body().read_to_string().unwrap()).unwrap())
}

#[test]
fn serve_tokens_and_sigterm() {
    let d = Dir::with_sample();
    let write = d.ok(&["token", "create", "--scope", "write", "--name", "ci"]).stdout().trim().to_owned();
    let read = d.ok(&["token", "create", "--scope", "read"]).stdout().trim().to_owned();
    assert!(write.starts_with("cmem_") && read.starts_with("cmem_"));
    let list = d.ok(&["token", "list", "--json"]);
    let tokens = list.json_lines();
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[0]["scope"], "write");
    assert_eq!(tokens[0]["name"], "ci");
    assert!(!list.stdout().contains(&write[5..]), "a token was listed");
    // The creation time as RFC 3339 in UTC, in the table and beside the number in JSON.
    let created = tokens[0]["created"].as_str().unwrap();
    assert!(created.len() == 20 && created.ends_with('Z') && created.as_bytes()[10] == b'T', "{created}");
    let table = d.ok(&["token", "list"]).stdout();
    // Under the header line.
    let first = table.lines().nth(1).unwrap();
    assert_eq!(first.split_whitespace().nth(2), Some(created), "{table}");
    let write_id = tokens[0]["id"].as_str().unwrap().to_owned();

    let served = Served::start(&d, &["--access-log"]);
    let base = served.base.clone();
    let (status, v) = get(&base, "/tmserver/en/de/unit/Automatic");
    assert_eq!(status, 200);
    assert_eq!(v[0]["target"], "Automatisch");
    let entry = json!({"variants": [
        {"locale": "en", "runs": [{"text": "Quarterly zebra report"}]},
        {"locale": "de", "runs": [{"text": "Vierteljährlicher Zebrabericht"}]},
    ]});
    assert_eq!(post(&base, "/v1/entries", None, &entry).0, 401);
    assert_eq!(post(&base, "/v1/entries", Some(&read), &entry).0, 403);
    let (status, v) = post(&base, "/v1/entries", Some(&write), &entry);
    assert_eq!(status, 201, "{v}");
    // A token revoked by the CLI while the server runs is refused at its next request.
    d.ok(&["token", "revoke", &write_id]);
    assert_eq!(post(&base, "/v1/entries", Some(&write), &entry).0, 401);
    assert_ne!(d.run(&["token", "revoke", &write_id]).code(), 0);

    // A stop asked for is the server's normal end, not a failure: exit 0 (not 143), so
    // that supervisors (systemd's Restart=on-failure, a container's restart policy) see
    // a clean stop.
    let (code, stderr, took) = served.terminate();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("stopped"), "{stderr}");
    // The access log: one JSON object a line, route templates, no token, no text.
    let logged: Vec<Value> =
        stderr.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(logged
        .iter()
        .any(|v| v["route"] == "/tmserver/{source}/{target}/unit/{text}" && v["status"] == 200));
    assert_eq!(logged.iter().filter(|v| v["route"] == "/v1/entries" && v["status"] == 401).count(), 2);
    assert!(!stderr.contains(&write) && !stderr.contains("Automatic"), "{stderr}");
    assert!(took < Duration::from_secs(10));
    // Ctrl-C alike: 0, not 130.
    let (code, stderr, _) = Served::start(&d, &[]).signal("INT");
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("stopped"), "{stderr}");
    // The acknowledged write is in the memory.
    let r = d.ok(&["lookup", "--from", "en", "--to", "de", "--json", "Quarterly zebra report"]);
    assert_eq!(r.json_lines()[0]["matches"][0]["target"]["text"], "Vierteljährlicher Zebrabericht");
}

#[test]
fn serve_needs_an_existing_memory_and_a_free_address() {
    let d = Dir::new();
    let r = d.run(&["serve", "--listen", "127.0.0.1:0"]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("no memory at"), "{}", r.stderr());
    let d = Dir::with_sample();
    let served = Served::start(&d, &[]);
    let port = served.base.rsplit(':').next().unwrap().to_owned();
    let r = d.run(&["serve", "--listen", &format!("127.0.0.1:{port}")]);
    assert_eq!(r.code(), 3);
    assert!(r.stderr().contains("cannot listen on"), "{}", r.stderr());
    let (code, _, _) = served.terminate();
    assert_eq!(code, 0);
}

#[test]
fn serve_several_memories_merges_them_and_writes_the_one_chosen() {
    let d = Dir::with_sample();
    std::fs::write(
        d.0.join("client.jsonl"),
        "{\"source\": \"Automatic\", \"target\": \"Selbsttätig\", \"source_locale\": \"en\", \"target_locale\": \"de\"}\n",
    )
    .unwrap();
    d.ok(&["-m", "client.db", "import", "-q", "client.jsonl"]);
    let write = d.ok(&["token", "create", "--scope", "write"]).stdout().trim().to_owned();
    let missing = d.run(&["-m", "cmem.db", "-m", "nowhere.db", "serve", "--listen", "127.0.0.1:0"]);
    assert_eq!(missing.code(), 3);
    // The memory named, then why it cannot be served.
    assert!(
        missing.stderr().starts_with("cmem: serve: memory nowhere\n  caused by: no memory at nowhere.db"),
        "{}",
        missing.stderr()
    );

    let served = Served::start(&d, &["-m", "team=cmem.db", "-m", "client.db,penalty=5"]);
    let base = served.base.clone();
    let (status, v) = get(&base, "/readyz");
    assert_eq!((status, &v["memories"]), (200, &json!(["team", "client"])), "{v}");
    let (status, v) = post(
        &base,
        "/v1/lookup",
        None,
        &json!({"text": "Automatic", "source_locale": "en", "target_locale": "de"}),
    );
    assert_eq!(status, 200, "{v}");
    let named: Vec<(&str, &str)> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["memory"].as_str().unwrap(), m["target"]["text"].as_str().unwrap()))
        .collect();
    assert_eq!(named[..2], [("team", "Automatisch"), ("client", "Selbsttätig")], "{v}");
    let (_, v) = get(&base, "/m/client/tmserver/en/de/unit/Automatic");
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v[0]["target"], "Selbsttätig");
    let entry = json!({"variants": [
        {"locale": "en", "runs": [{"text": "Quarterly zebra report"}]},
        {"locale": "de", "runs": [{"text": "Vierteljährlicher Zebrabericht"}]},
    ]});
    let (status, v) = post(&base, "/v1/entries", Some(&write), &entry);
    assert_eq!((status, &v["error"]), (409, &json!("choose_memory")), "{v}");
    let (status, v) = post(&base, "/v1/entries?memory=client", Some(&write), &entry);
    assert_eq!(status, 201, "{v}");
    let (code, stderr, _) = served.terminate();
    assert_eq!(code, 0, "{stderr}");
    let stats = |db: &str| d.ok(&["-m", db, "stats", "--json"]).stdout();
    assert!(stats("client.db").contains("\"entries\":2"), "{}", stats("client.db"));
}
