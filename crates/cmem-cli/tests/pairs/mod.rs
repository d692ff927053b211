//! The deployment of docs/operators.md, "Serving pairs apart": one PostgreSQL memory of
//! three pairs, two `cmem serve --pairs …` on it, and HAProxy in front routing amaGama's
//! paths and the pair-prefixed `/v1` paths by pair, with the configuration the guide
//! shows, read from it ([`haproxy_cfg`]).
//!
//! HAProxy is Debian's `haproxy` package (`.ci/run` installs it). Without it the test is
//! skipped, loudly, outside CI; in CI (`CI` set) it fails, as the PostgreSQL tests do.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cmem_postgres::testing::TestServer;
use serde_json::{json, Value};

use super::Dir;

/// A child process killed and reaped when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `cmem serve --pairs PAIRS` on `url`, and the address it printed.
fn serve(d: &Dir, url: &str, pairs: &str) -> (Running, String) {
    let mut child = d
        .cmd(&["--memory", url, "serve", "--listen", "127.0.0.1:0", "--pairs", pairs])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains(&format!("pairs {}", pairs.replace(',', ", "))), "{line}");
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    (Running(child), base)
}

/// The `haproxy` program: on `PATH`, or where Debian's package puts it (`/usr/sbin`,
/// which a user's `PATH` may lack).
fn haproxy() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|dir| dir.join("haproxy"))
        .find(|p| p.is_file())
}

/// A loopback port free now (HAProxy binds it a moment later).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The guide's configuration (the `haproxy` block of docs/operators.md: `a` serves en-de
/// and en-fr on port 9001, `b` en-ja on 9002, the proxy listens on 8080), moved to the
/// proxy's port `listen` and the servers' `host:port` `a` and `b`.
fn haproxy_cfg(listen: u16, a: &str, b: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/operators.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let start = doc.find("```haproxy\n").expect("docs/operators.md has a ```haproxy block") + 11;
    let cfg = &doc[start..start + doc[start..].find("```").unwrap()];
    for address in ["127.0.0.1:8080", "127.0.0.1:9001", "127.0.0.1:9002"] {
        assert_eq!(cfg.matches(address).count(), 1, "the guide's haproxy.cfg names {address} once");
    }
    cfg.replace("127.0.0.1:8080", &format!("127.0.0.1:{listen}"))
        .replace("127.0.0.1:9001", a)
        .replace("127.0.0.1:9002", b)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into()
}

/// The status, the JSON body and the server HAProxy sent the request to (`X-Cmem-Server`).
fn call(url: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value, String) {
    let agent = agent();
    let resp = match body {
        None => agent.get(url).call(),
        Some(body) => {
            let mut r = agent.post(url).header("Content-Type", "application/json");
            if let Some(t) = token {
                r = r.header("Authorization", format!("Bearer {t}"));
            }
            r.send(body.to_string())
        }
    }
    .unwrap_or_else(|e| panic!("{url}: {e}"));
    let status = resp.status().as_u16();
    let server =
        resp.headers().get("x-cmem-server").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let text = resp.into_body().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null), server)
}

fn lookup(base: &str, (source, target): (&str, &str), text: &str) -> (u16, Value, String) {
    call(
        &format!("{base}/p/{source}/{target}/v1/lookup"),
        None,
        Some(&json!({"text": text, "source_locale": source, "target_locale": target})),
    )
}

fn entry(variants: &[(&str, &str)]) -> Value {
    let variants: Vec<Value> =
        variants.iter().map(|(l, t)| json!({"locale": l, "runs": [{"text": t}]})).collect();
    json!({ "variants": variants })
}

/// `check` true within `limit`, asked every 100 ms.
fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if check() {
            return true;
        }
        if started.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Each pair's entries: (target locale, source text, target text).
const PAIRS: [(&str, &str, &str); 3] = [
    ("de", "Open the settings window", "Einstellungsfenster öffnen"),
    ("fr", "Close the settings window", "Fermer la fenêtre des paramètres"),
    ("ja", "Save the settings window", "設定ウィンドウを保存"),
];

#[test]
fn haproxy_routes_each_pair_to_its_server_and_a_write_is_seen_by_the_pairs_server() {
    let Some(haproxy) = haproxy() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "haproxy is not installed; in CI (CI set) it must be (.ci/run installs Debian's haproxy)"
        );
        eprintln!("SKIPPED haproxy_routes_each_pair_…: haproxy is not installed (apt-get install haproxy)");
        return;
    };
    let Some(pg) = TestServer::available().unwrap() else { return };
    let url = pg.fresh_database().unwrap();
    let d = Dir::new();
    for (target, source_text, target_text) in PAIRS {
        let file = format!("{target}.jsonl");
        std::fs::write(d.path(&file), format!("{}\n", json!({"source": source_text, "target": target_text})))
            .unwrap();
        d.ok(&["--memory", &url, "import", "-q", "--from", "en", "--to", target, &file]);
    }
    let token = d.ok(&["--memory", &url, "token", "create", "--scope", "write"]).stdout().trim().to_owned();
    let (_a, a) = serve(&d, &url, "en-de,en-fr");
    let (_b, b) = serve(&d, &url, "en-ja");

    let port = free_port();
    let cfg = d.path("haproxy.cfg");
    std::fs::write(&cfg, haproxy_cfg(port, a.trim_start_matches("http://"), b.trim_start_matches("http://")))
        .unwrap();
    let check = Command::new(&haproxy).arg("-c").arg("-f").arg(&cfg).output().unwrap();
    assert!(check.status.success(), "haproxy -c: {}", String::from_utf8_lossy(&check.stderr));
    let _proxy = Running(
        Command::new(&haproxy)
            .arg("-f")
            .arg(&cfg)
            .arg("-db")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let proxy = format!("http://127.0.0.1:{port}");
    assert!(
        eventually(Duration::from_secs(5), || agent()
            .get(format!("{proxy}/healthz"))
            .call()
            .is_ok_and(|r| r.status() == 200)),
        "haproxy did not answer on {proxy} within 5 s"
    );

    // Every pair answered through the proxy, by its server: amaGama's route (also with
    // regional codes, as Weblate sends them) and the pair-prefixed lookup.
    for (target, source_text, target_text) in PAIRS {
        let owner = if target == "ja" { "b" } else { "a" };
        for path in
            [format!("/tmserver/en/{target}/unit/"), format!("/tmserver/en_us/{target}_{target}/unit/")]
        {
            let (status, v, server) =
                call(&format!("{proxy}{path}{}", source_text.replace(' ', "%20")), None, None);
            assert_eq!((status, &v[0]["target"]), (200, &json!(target_text)), "{path}: {v}");
            assert_eq!(server, owner, "{path}");
        }
        let (status, v, server) = lookup(&proxy, ("en", target), source_text);
        assert_eq!((status, &v["matches"][0]["target"]["text"]), (200, &json!(target_text)), "{v}");
        assert_eq!(server, owner, "en-{target}");
    }
    // Each server alone refuses the other's pairs, naming its own, and lists only its own.
    let (status, v, _) = lookup(&a, ("en", "ja"), "Save the settings window");
    assert_eq!((status, &v["error"]), (421, &json!("pair_not_served")), "{v}");
    assert_eq!(
        v["details"]["pairs"],
        json!([{"source": "en", "target": "de"}, {"source": "en", "target": "fr"}])
    );
    let (status, v, _) = call(&format!("{b}/tmserver/en/de/unit/Open"), None, None);
    assert_eq!((status, &v["details"]["pairs"][0]["target"]), (421, &json!("ja")), "{v}");
    let (_, v, _) = call(&format!("{b}/tmserver/languages/"), None, None);
    assert_eq!(v, json!({"sourceLanguages": ["en"], "targetLanguages": ["ja"]}));
    let (_, v, _) = call(&format!("{a}/v1/stats"), None, None);
    let listed: Vec<&str> =
        v["pairs"].as_array().unwrap().iter().filter_map(|p| p["target"].as_str()).collect();
    assert_eq!(listed, ["de", "fr"], "{v}");
    // Through the proxy, the languages of every server; a pair nobody serves is the
    // proxy's 421.
    let (_, v, _) = call(&format!("{proxy}/tmserver/languages/"), None, None);
    assert_eq!(v["targetLanguages"], json!(["de", "fr", "ja"]));
    let (status, v, _) = call(&format!("{proxy}/tmserver/en/it/unit/Open"), None, None);
    assert_eq!((status, &v["error"]), (421, &json!("pair_not_served")), "{v}");
    let (status, v, _) = lookup(&proxy, ("en", "it"), "Open");
    assert_eq!((status, &v["error"]), (421, &json!("pair_not_served")), "{v}");

    // A write of en-ja to the server of en-de is refused; through the proxy it goes to
    // the server of en-ja, whose next lookups find it.
    let ja = entry(&[("en", "Print the settings window"), ("ja", "設定ウィンドウを印刷")]);
    let (status, v, _) = call(&format!("{a}/v1/entries"), Some(&token), Some(&ja));
    assert_eq!((status, &v["error"]), (421, &json!("pair_not_served")), "{v}");
    let (status, v, server) = call(&format!("{proxy}/p/en/ja/v1/entries"), Some(&token), Some(&ja));
    assert_eq!((status, server.as_str()), (201, "b"), "{v}");
    let found = |base: &str, pair: (&str, &str), text: &str, want: &str| {
        eventually(Duration::from_secs(5), || {
            lookup(base, pair, text).1["matches"][0]["target"]["text"] == json!(want)
        })
    };
    assert!(found(&proxy, ("en", "ja"), "Print the settings window", "設定ウィンドウを印刷"));
    // An entry of two pairs written through one server is seen by the other, the
    // server of its other pair, on its next lookups (its index follows the database's
    // change counter).
    let both = entry(&[
        ("en", "Export the settings window"),
        ("de", "Einstellungsfenster exportieren"),
        ("ja", "設定ウィンドウをエクスポート"),
    ]);
    let (status, v, server) = call(&format!("{proxy}/p/en/de/v1/entries"), Some(&token), Some(&both));
    assert_eq!((status, server.as_str()), (201, "a"), "{v}");
    assert!(found(&proxy, ("en", "ja"), "Export the settings window", "設定ウィンドウをエクスポート"));
    assert!(found(&b, ("en", "ja"), "Export the settings window", "設定ウィンドウをエクスポート"));
}
