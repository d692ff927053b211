//! Hostile HTTP: what a client can throw at the server before and inside a request,
//! each answered with its status while the server keeps serving others. The suite
//! writes the table of docs/operators.md ("What a hostile client gets"); it fails when
//! the document says something else, and `CMEM_BLESS=1` rewrites the table.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use cmem_server::ServerConfig;
use serde_json::json;

use super::Server;

/// The limits the suite runs under (small, so that each fault shows quickly).
fn config() -> ServerConfig {
    ServerConfig::new()
        .header_timeout(Duration::from_secs(1))
        .body_timeout(Duration::from_secs(2))
        .max_header_bytes(32 << 10)
        .max_connections(8)
        .max_bad_tokens(5)
}

/// The status line's code of a raw HTTP answer, or what happened instead.
fn status_of(answer: &[u8]) -> String {
    let text = String::from_utf8_lossy(answer);
    match text.split(' ').nth(1) {
        Some(code) if text.starts_with("HTTP/1.1 ") => code.to_owned(),
        _ if answer.is_empty() => "closed".to_owned(),
        _ => format!("{text:?}"),
    }
}

impl Server {
    fn addr(&self) -> String {
        self.base.trim_start_matches("http://").to_owned()
    }

    /// Sends `bytes` on a new connection and reads the answer until the server closes
    /// it or `wait` passes: (what came back, how long it took).
    fn raw(&self, bytes: &[u8], wait: Duration) -> (Vec<u8>, Duration) {
        let mut s = TcpStream::connect(self.addr()).unwrap();
        s.set_read_timeout(Some(wait)).unwrap();
        let started = Instant::now();
        // The server may answer and close before it has read everything (431, 413).
        let _ = s.write_all(bytes);
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    if out.windows(4).any(|w| w == b"\r\n\r\n") && !out.starts_with(b"HTTP/1.1 1") {
                        // A whole head: enough to know the status.
                        break;
                    }
                }
            }
        }
        (out, started.elapsed())
    }

    /// The server still answers a plain request on a fresh connection.
    fn still_serving(&self) -> bool {
        let (status, v) = self.get_json("/healthz", None);
        status == 200 && v["status"] == "ok"
    }
}

/// One row of the table: the fault, what the server answers, and that it kept serving.
struct Row {
    fault: &'static str,
    outcome: String,
}

fn post_raw(path: &str, body: &[u8]) -> Vec<u8> {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    req
}

#[test]
fn hostile_requests_get_their_status_and_the_server_keeps_serving() {
    let s = Server::start(config());
    let mut rows: Vec<Row> = Vec::new();
    let mut check = |fault: &'static str, outcome: String, want: &str| {
        assert!(outcome.starts_with(want), "{fault}: {outcome}, expected {want}");
        assert!(s.still_serving(), "{fault}: the server stopped answering");
        rows.push(Row { fault, outcome });
    };
    let second = Duration::from_secs(1);

    // Slow headers: the connection is closed once the header timeout passes.
    let (answer, took) = s.raw(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: ", Duration::from_secs(10));
    assert!(took < Duration::from_secs(6), "slow headers held for {took:?}");
    let outcome = match status_of(&answer).as_str() {
        "closed" => "connection closed after the header timeout (`--header-timeout`, 10 s)".to_owned(),
        code => format!("{code} after the header timeout (`--header-timeout`, 10 s), connection closed"),
    };
    check("request headers sent slowly (slowloris)", outcome, "");

    // An idle kept-alive connection is closed too.
    let mut idle = TcpStream::connect(s.addr()).unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let mut all = Vec::new();
    let _ = idle.read_to_end(&mut all);
    assert!(
        status_of(&all) == "200" && started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    check(
        "a kept-alive connection left idle",
        "answered, then closed after the header timeout".to_owned(),
        "",
    );

    // A body sent too slowly: 408.
    let mut slow = TcpStream::connect(s.addr()).unwrap();
    slow.write_all(b"POST /v1/lookup HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"text\":")
        .unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = vec![0u8; 512];
    let n = slow.read(&mut answer).unwrap_or(0);
    check(
        "a request body sent slowly",
        format!(
            "{} `request_timeout` after the body timeout (`--body-timeout`, 60 s)",
            status_of(&answer[..n])
        ),
        "408",
    );

    // More connections than allowed: the one over the limit gets 503 and is closed.
    // The client's pooled connection from the last check holds a slot until the header
    // timeout closes it; wait that out, so the eight held below are exactly the limit.
    std::thread::sleep(Duration::from_millis(1_500));
    let held: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(s.addr()).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let (answer, _) = s.raw(b"", second * 3);
    let outcome = format!(
        "{} `busy` to each connection over the limit (`--max-connections`, 1,024)",
        status_of(&answer)
    );
    drop(held);
    // The held ones were idle: closed by the header timeout at the latest.
    std::thread::sleep(Duration::from_millis(300));
    check("many idle connections", outcome, "503");

    // Huge headers.
    let mut big = b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ".to_vec();
    big.extend(std::iter::repeat_n(b'a', 100_000));
    big.extend_from_slice(b"\r\n\r\n");
    let (answer, _) = s.raw(&big, second * 5);
    check(
        "request headers of 100 KB",
        format!("{} (`--max-header-bytes`, 64 KiB)", status_of(&answer)),
        "431",
    );

    // A request target over the limit.
    let long = format!(
        "GET /tmserver/en/de/unit/{} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        "a".repeat(17_000)
    );
    let (answer, _) = s.raw(long.as_bytes(), second * 5);
    check("a request target of 17 KB", format!("{} `uri_too_long` (16 KiB)", status_of(&answer)), "414");

    // Malformed and deeply nested JSON.
    let (answer, _) = s.raw(&post_raw("/v1/lookup", b"{\"text\": \"a\", "), second * 5);
    check("malformed JSON", format!("{} `invalid_json`", status_of(&answer)), "400");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (answer, _) = s.raw(&post_raw("/v1/lookup", deep.as_bytes()), second * 5);
    check(
        "JSON nested 100,000 deep",
        format!("{} `invalid_json` (the parser's depth limit)", status_of(&answer)),
        "400",
    );
    let (answer, _) = s.raw(&post_raw("/v1/lookup", &[b'{', 0xff, 0xfe, b'}']), second * 5);
    check("a body that is not UTF-8", format!("{} `invalid_json`", status_of(&answer)), "400");

    // Paths.
    let (answer, _) = s.raw(
        b"GET /tmserver/en/de/unit/\xff\xfe HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        second * 5,
    );
    check(
        "raw bytes that are not UTF-8 in the path",
        format!("{}, connection closed", status_of(&answer)),
        "400",
    );
    let (answer, _) = s
        .raw(b"GET /tmserver/en/de/unit/%FF%FE HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", second * 5);
    check("percent-encoded bytes that are not UTF-8 in the path", status_of(&answer), "400");
    for (fault, path) in
        [("`..` in the path", "/../../etc/passwd"), ("`..` encoded in the path", "/%2e%2e/%2e%2e/etc/passwd")]
    {
        let (answer, _) = s.raw(
            format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").as_bytes(),
            second * 5,
        );
        check(fault, format!("{} `no_such_route`: no route reads files", status_of(&answer)), "404");
    }
    // An import's name is a label for messages, never a path.
    let (status, v, location) = s.upload(
        "format=jsonl&from=en&to=de&name=../../../etc/passwd",
        Some(&s.write),
        b"{\"source\":\"Traversal label\",\"target\":\"Durchlaufetikett\"}\n{broken\n".to_vec(),
    );
    assert_eq!(status, 202, "{v}");
    let job = s.finished(&location.unwrap());
    assert_eq!(job["status"], "succeeded", "{job}");
    // The name labels the problem; the good line was read from the upload and stored.
    let problem = job["problem_messages"][0].as_str().unwrap_or_default().to_owned();
    assert!(problem.contains("../../../etc/passwd") && problem.contains("line 2"), "{job}");
    let (_, found) = s.post(
        "/v1/lookup",
        None,
        &json!({"text": "Traversal label", "source_locale": "en", "target_locale": "de"}),
    );
    assert_eq!(found["matches"][0]["target"]["text"], "Durchlaufetikett", "{found}");
    check(
        "`../` in an import's file name",
        format!("{status}: the name only labels messages; the upload goes to a temporary file"),
        "202",
    );

    // Oversize batches and bodies.
    let segments: Vec<_> = (0..1_001).map(|i| json!({"text": format!("s{i}")})).collect();
    let (status, v) = s.post(
        "/v1/lookup/batch",
        None,
        &json!({"segments": segments, "source_locale": "en", "target_locale": "de"}),
    );
    assert_eq!(v["error"], "batch_too_large", "{v}");
    check("a batch of 1,001 segments", format!("{status} `batch_too_large` (1,000 at most)"), "413");
    let body = json!({"text": "x".repeat(5 << 20), "source_locale": "en", "target_locale": "de"}).to_string();
    let (answer, _) = s.raw(&post_raw("/v1/lookup", body.as_bytes()), second * 10);
    check(
        "a JSON body of 5 MB",
        format!("{} `body_too_large` (`--max-body-bytes`, 4 MiB)", status_of(&answer)),
        "413",
    );

    // Repeated bad tokens: the address is refused for a minute (a server of its own,
    // since every client here shares one address).
    let guarded = Server::start(config());
    let mut statuses = Vec::new();
    for _ in 0..7 {
        statuses.push(guarded.get_json("/v1/stats", Some("cmem_not_a_token")).0);
    }
    assert_eq!(statuses, [401, 401, 401, 401, 401, 401, 429], "{statuses:?}");
    let (status, _) = guarded.get_json("/v1/stats", Some(&guarded.read));
    assert_eq!(status, 429, "the address is refused, whatever token it sends now");
    assert!(guarded.still_serving());
    check(
        "unknown or revoked tokens, again and again",
        "401 each, then 429 `rate_limited` for a minute for that address (`--max-bad-tokens`, 20 a minute), logged".to_owned(),
        "401",
    );

    // The table, as docs/operators.md must hold it.
    let mut table = String::from("| fault | what the server does |\n|---|---|\n");
    for r in &rows {
        table.push_str(&format!("| {} | {} |\n", r.fault, r.outcome));
    }
    let doc_path = super::testdata("../docs/operators.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    let (begin, end) = ("<!-- hostile-http:begin -->\n", "<!-- hostile-http:end -->");
    let (Some(b), Some(e)) = (doc.find(begin), doc.find(end)) else {
        panic!("docs/operators.md has no {begin:?} … {end:?} block for the table:\n{table}");
    };
    let current = &doc[b + begin.len()..e];
    if current != table {
        if std::env::var_os("CMEM_BLESS").is_some() {
            let updated = format!("{}{table}{}", &doc[..b + begin.len()], &doc[e..]);
            std::fs::write(&doc_path, updated).unwrap();
        } else {
            panic!("docs/operators.md's table of hostile requests is not what the suite saw (CMEM_BLESS=1 rewrites it):\n{table}");
        }
    }
}
