//! The real server, bound to `127.0.0.1:0`, answering a real HTTP client, on a memory
//! imported from `testdata/cli/sample.jsonl` (193 en → de strings).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cmem::formats::{Format, Input};
use cmem::{ImportRequest, Locale, LookupRequest, MatchView, Memory, OpenOptions, QueryText, Recognizer};
use cmem_server::{openapi, serve_on, App, RateLimit, Scope, ServerConfig, Tokens};
use serde_json::{json, Value};
use tokio::sync::oneshot;

mod hostile;
mod page;
mod pairs;
mod several;
mod stats;
mod weblate;

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(rel)
}

/// A running server; stopped (gracefully) and joined when dropped.
struct Server {
    base: String,
    agent: ureq::Agent,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    read: String,
    write: String,
    revoked: String,
    /// The library's own answers on the same memory, for comparison.
    expected: Vec<(String, Value)>,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

const EXPECTED_QUERIES: &[&str] = &["Automatic", "failed to remove directory %d", "Telephone (home/work):"];

/// Imports `inputs` into `memory` with the default recognizer (the locales of JSON
/// Lines inputs `en` → `de`).
fn import_into(memory: &Memory, inputs: Vec<Input>) {
    let request = ImportRequest::new(inputs)
        .locales(Some(Locale::parse("en").unwrap()), Some(Locale::parse("de").unwrap()))
        .recognizer(Some(Recognizer::default()));
    memory.import(request, &mut |_| {}).unwrap();
    assert_eq!(memory.recorded_rule_set().unwrap(), Some(Recognizer::default().rule_names().join(",")));
}

impl Server {
    /// A server on the sample memory (`testdata/cli/sample.jsonl`, en → de).
    fn start(config: ServerConfig) -> Server {
        Server::start_with(config, |memory| {
            import_into(
                memory,
                vec![Input::open(&testdata("cli/sample.jsonl"), Some(Format::Jsonl)).unwrap()],
            );
        })
    }

    /// A server on the memory `fill` makes.
    fn start_with(config: ServerConfig, fill: impl FnOnce(&Memory)) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sample.db");
        let memory = Memory::open_with(path.to_str().unwrap(), &OpenOptions::new().create(true)).unwrap();
        fill(&memory);
        let rec = Recognizer::default();
        let (read, _) = Tokens::create(&memory, Scope::Read, "reader").unwrap();
        let (write, _) = Tokens::create(&memory, Scope::Write, "writer").unwrap();
        let (revoked, record) = Tokens::create(&memory, Scope::Admin, "gone").unwrap();
        assert!(Tokens::revoke(&memory, &record.id).unwrap());

        let app = App::new(memory, config).unwrap();
        let expected = EXPECTED_QUERIES
            .iter()
            .map(|q| {
                let runs = cmem::prepare_query(QueryText::Plain(q), Some(&rec)).unwrap();
                let req =
                    LookupRequest::new(runs, Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
                let views: Vec<Value> = app
                    .memory()
                    .lookup(&req)
                    .unwrap()
                    .iter()
                    .map(|m| serde_json::to_value(MatchView::of(m)).unwrap())
                    .collect();
                (q.to_string(), Value::Array(views))
            })
            .collect();
        Server::serve(app, dir, path, [read, write, revoked], expected)
    }

    /// Serves `app`, whose memories are kept in `dir`, the home one at `path`, with the
    /// tokens `[read, write, revoked]` and the library's `expected` answers.
    fn serve(
        app: App,
        dir: tempfile::TempDir,
        path: PathBuf,
        [read, write, revoked]: [String; 3],
        expected: Vec<(String, Value)>,
    ) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                serve_on(listener, Arc::new(app), async move {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
        });
        // A new connection per request: a kept one the server has just closed (after an
        // answer to a request whose body it did not read) fails the next request under
        // load with "peer disconnected", where a browser would retry; these tests are
        // about the routes, not about connection reuse.
        let agent: ureq::Agent =
            ureq::Agent::config_builder().http_status_as_error(false).max_idle_connections(0).build().into();
        Server {
            base,
            agent,
            stop: Some(stop),
            thread: Some(thread),
            read,
            write,
            revoked,
            expected,
            path,
            _dir: dir,
        }
    }

    fn get(&self, path: &str, token: Option<&str>) -> (u16, String, ureq::http::HeaderMap) {
        let mut req = self.agent.get(format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        let resp = req.call().unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        (status, resp.into_body().read_to_string().unwrap(), headers)
    }

    fn get_json(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let (status, body, _) = self.get(path, token);
        (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")))
    }

    fn send(&self, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        let auth = token.map(|t| format!("Bearer {t}"));
        let resp = match method {
            "POST" => {
                let mut req = self.agent.post(&url).header("Content-Type", "application/json");
                if let Some(a) = &auth {
                    req = req.header("Authorization", a);
                }
                req.send(body.unwrap_or("")).unwrap()
            }
            "PUT" => {
                let mut req = self.agent.put(&url).header("Content-Type", "application/json");
                if let Some(a) = &auth {
                    req = req.header("Authorization", a);
                }
                req.send(body.unwrap_or("")).unwrap()
            }
            "DELETE" => {
                let mut req = self.agent.delete(&url);
                if let Some(a) = &auth {
                    req = req.header("Authorization", a);
                }
                req.call().unwrap()
            }
            _ => unreachable!(),
        };
        let status = resp.status().as_u16();
        let text = resp.into_body().read_to_string().unwrap();
        let value = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() };
        (status, value)
    }

    fn post(&self, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        self.send("POST", path, token, Some(&body.to_string()))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Python's `urllib.parse.quote(text, safe="")`, as Weblate encodes each path part.
fn quote(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"_.-~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URL Weblate's tmserver client requests for a unit: codes lower case with `_`,
/// the text cut at 500 characters with `\r` made a space, every part quoted.
fn weblate_unit_url(source: &str, target: &str, text: &str) -> String {
    let code = |c: &str| c.replace('-', "_").to_lowercase();
    let text: String = text.chars().take(500).collect::<String>().replace('\r', " ");
    format!("/tmserver/{}/{}/unit/{}", quote(&code(source)), quote(&code(target)), quote(&text))
}

/// An English → German entry as `POST /v1/entries` takes it.
fn en_de(source: &str, target: &str) -> Value {
    json!({"variants": [
        {"locale": "en", "runs": [{"text": source}]},
        {"locale": "de", "runs": [{"text": target}]},
    ]})
}

fn assert_error(value: &Value, code: &str) {
    assert_eq!(value["error"], code, "{value}");
    assert!(value["message"].as_str().is_some_and(|m| !m.is_empty()), "{value}");
    assert!(value.get("details").is_some(), "{value}");
}

#[test]
fn lookup_answers_the_library_match_view() {
    let s = Server::start(ServerConfig::new());
    for (q, expected) in &s.expected {
        let (status, v) =
            s.post("/v1/lookup", None, &json!({"text": q, "source_locale": "en", "target_locale": "de"}));
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["query"]["text"], q.as_str());
        assert_eq!(&v["matches"], expected, "{q}");
        assert!(v["micros"].is_u64());
    }
    let (_, v) = s.post(
        "/v1/lookup",
        None,
        &json!({"text": "failed to remove directory %d", "source_locale": "en", "target_locale": "de"}),
    );
    assert_eq!(v["matches"][0]["adapted_target"]["text"], "konnte Verzeichnis %d nicht entfernen");
    // Equal but for the code's value: an exact match of structure.
    assert_eq!(v["matches"][0]["match_type"], "structural_exact", "{v}");
    // Notation and runs name the same segment.
    let (_, by_notation) = s.post(
        "/v1/lookup",
        None,
        &json!({"notation": "Automatic", "source_locale": "en", "target_locale": "de"}),
    );
    let (_, by_runs) = s.post(
        "/v1/lookup",
        None,
        &json!({"runs": [{"text": "Automatic"}], "source_locale": "en", "target_locale": "de", "limit": 1}),
    );
    assert_eq!(by_notation["matches"][0]["target"]["text"], "Automatisch");
    assert_eq!(by_runs["matches"][0], by_notation["matches"][0]);
    assert_eq!(by_runs["matches"].as_array().unwrap().len(), 1);
    // The threshold is in percent: at 100 a fuzzy query finds nothing.
    let (_, strict) = s.post(
        "/v1/lookup",
        None,
        &json!({"text": "Automatic stuff", "source_locale": "en", "target_locale": "de", "threshold": 100}),
    );
    assert_eq!(strict["matches"], json!([]));
}

#[test]
fn one_worker_answers_many_clients_in_turn() {
    // Store work waits for a free worker; with one, sixteen clients at once must each
    // still get their own answer (a permit kept after a request would hang them).
    let s = Server::start(ServerConfig::new().workers(1));
    std::thread::scope(|scope| {
        for client in 0..16 {
            let s = &s;
            scope.spawn(move || {
                for (q, expected) in s.expected.iter().cycle().skip(client).take(6) {
                    let (status, v) = s.post(
                        "/v1/lookup",
                        None,
                        &json!({"text": q, "source_locale": "en", "target_locale": "de"}),
                    );
                    assert_eq!(status, 200, "{v}");
                    assert_eq!(&v["matches"], expected, "{q}");
                }
            });
        }
    });
    let (status, v) = s.get_json("/tmserver/en/de/unit/Automatic", None);
    assert_eq!(status, 200, "{v}");
}

#[test]
fn bad_lookups_get_located_json_errors() {
    let s = Server::start(ServerConfig::new());
    let cases = [
        (json!({"text": "x", "source_locale": "en"}), 400, "invalid_json"),
        (json!({"text": "x", "source_locale": "e n", "target_locale": "de"}), 400, "invalid_locale"),
        (
            json!({"text": "x", "source_locale": "en", "target_locale": "de", "threshold": 150}),
            400,
            "invalid_query",
        ),
        (
            json!({"text": "x", "source_locale": "en", "target_locale": "de", "limit": 0}),
            400,
            "invalid_query",
        ),
        (
            json!({"text": "x", "notation": "x", "source_locale": "en", "target_locale": "de"}),
            400,
            "invalid_query",
        ),
        (json!({"notation": "{1}x{/2", "source_locale": "en", "target_locale": "de"}), 400, "invalid_runs"),
        (
            json!({"text": "x", "source_locale": "en", "target_locale": "de", "point": "a//b"}),
            400,
            "invalid_point",
        ),
        (
            json!({"text": "x", "source_locale": "en", "target_locale": "de", "colour": 1}),
            400,
            "invalid_json",
        ),
    ];
    for (body, status, code) in cases {
        let (got, v) = s.post("/v1/lookup", None, &body);
        assert_eq!(got, status, "{body}: {v}");
        assert_error(&v, code);
    }
    let (_, v) =
        s.post("/v1/lookup", None, &json!({"text": "x", "source_locale": "e n", "target_locale": "de"}));
    assert_eq!(v["details"]["field"], "source_locale");
    let (status, v) = s.send("POST", "/v1/lookup", None, Some("{\"text\": "));
    assert_eq!(status, 400);
    assert_error(&v, "invalid_json");
    // No JSON content type.
    let resp = s.agent.post(format!("{}/v1/lookup", s.base)).send("{}").unwrap();
    assert_eq!(resp.status().as_u16(), 415);
    let v: Value = serde_json::from_str(&resp.into_body().read_to_string().unwrap()).unwrap();
    assert_error(&v, "unsupported_media_type");
}

#[test]
fn batch_lookups_answer_each_segment_in_order() {
    let s = Server::start(ServerConfig::new());
    let (status, v) = s.post(
        "/v1/lookup/batch",
        None,
        &json!({"source_locale": "en", "target_locale": "de", "segments": [
            {"id": "a", "text": "Automatic"},
            {"id": 2, "notation": "{1}broken{/2"},
            {"text": "Telephone (home/work):"},
        ]}),
    );
    assert_eq!(status, 200, "{v}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["id"], "a");
    assert_eq!(results[0]["matches"], s.expected[0].1);
    assert_eq!(results[1]["index"], 1);
    assert_eq!(results[1]["id"], 2);
    assert_error(&results[1]["error"], "invalid_runs");
    assert_eq!(results[2]["matches"], s.expected[2].1);
    let many: Vec<Value> = (0..1001).map(|i| json!({"text": format!("s{i}")})).collect();
    let (status, v) = s.post(
        "/v1/lookup/batch",
        None,
        &json!({"source_locale": "en", "target_locale": "de", "segments": many}),
    );
    assert_eq!(status, 413);
    assert_error(&v, "batch_too_large");
    assert_eq!(v["details"]["limit"], 1000);
}

#[test]
fn search_pages_do_not_overlap() {
    let s = Server::start(ServerConfig::new());
    let (status, all) = s.get_json("/v1/search?q=the&locale=en&limit=50", None);
    assert_eq!(status, 200, "{all}");
    let all = all["hits"].as_array().unwrap().clone();
    assert!(all.len() >= 4, "{}", all.len());
    let (_, first) = s.get_json("/v1/search?q=the&locale=en&limit=2", None);
    let (_, second) = s.get_json("/v1/search?q=the&locale=en&limit=2&offset=2&to=de", None);
    assert_eq!(first["next_offset"], 2);
    assert_eq!(first["hits"].as_array().unwrap()[..], all[..2]);
    assert_eq!(second["hits"].as_array().unwrap()[..], all[2..4]);
    assert!(first["hits"][0]["snippet"].as_str().unwrap().contains('['));
    assert_eq!(first["hits"][0]["translations"][0]["locale"], "de");
    let (_, last) =
        s.get_json(&format!("/v1/search?q=the&locale=en&limit=50&offset={}", all.len() - 1), None);
    assert_eq!(last["hits"].as_array().unwrap().len(), 1);
    assert_eq!(last["next_offset"], Value::Null);
    let (status, v) = s.get_json("/v1/search?q=the", None);
    assert_eq!(status, 400);
    assert_error(&v, "invalid_query");
    let (status, v) = s.get_json("/v1/search?q=the&locale=en&limit=600&offset=600", None);
    assert_eq!(status, 400);
    assert_error(&v, "invalid_query");
}

#[test]
fn writes_need_a_write_token_and_lookups_see_them() {
    let s = Server::start(ServerConfig::new());
    let entry = json!({"variants": [
        {"locale": "en", "runs": [{"text": "Quarterly zebra report"}]},
        {"locale": "de", "runs": [{"text": "Vierteljährlicher Zebrabericht"}]},
    ]});
    // No token: 401 with a challenge; a read token: 403; unknown or revoked: 401.
    let resp = s
        .agent
        .post(format!("{}/v1/entries", s.base))
        .header("Content-Type", "application/json")
        .send(entry.to_string())
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    assert_eq!(resp.headers().get("www-authenticate").unwrap(), "Bearer");
    let (status, v) = s.post("/v1/entries", Some(&s.read), &entry);
    assert_eq!(status, 403, "{v}");
    assert_error(&v, "forbidden");
    for bad in [s.revoked.as_str(), "cmem_nonsense"] {
        let (status, v) = s.post("/v1/entries", Some(bad), &entry);
        assert_eq!(status, 401, "{v}");
        assert_error(&v, "unauthorized");
    }
    let (_, stats) = s.get_json("/v1/stats", None);
    let before = stats["entries"].as_u64().unwrap();

    let (status, v) = s.post("/v1/entries", Some(&s.write), &entry);
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["entries"][0]["outcome"], "inserted");
    let id = v["entries"][0]["id"].as_i64().unwrap();
    let (_, again) = s.post("/v1/entries", Some(&s.write), &json!([entry]));
    assert_eq!(again["entries"][0], json!({"id": id, "outcome": "deduplicated"}));
    let (_, stats) = s.get_json("/v1/stats", None);
    assert_eq!(stats["entries"].as_u64().unwrap(), before + 1);
    assert_eq!(stats["pairs"][0]["source"], "en");

    // The index the server loaded at start knows the new entry at once.
    let (_, found) = s.post(
        "/v1/lookup",
        None,
        &json!({"text": "Quarterly zebra reports", "source_locale": "en", "target_locale": "de"}),
    );
    assert_eq!(found["matches"][0]["entry_id"], id, "{found}");
    let (status, got) = s.get_json(&format!("/v1/entries/{id}"), None);
    assert_eq!(status, 200);
    assert_eq!(got["variants"][1]["runs"][0]["text"], "Vierteljährlicher Zebrabericht");

    let (status, _) = s.send("DELETE", &format!("/v1/entries/{id}"), Some(&s.read), None);
    assert_eq!(status, 403);
    let (status, _) = s.send("DELETE", &format!("/v1/entries/{id}"), Some(&s.write), None);
    assert_eq!(status, 204);
    let (status, v) = s.send("DELETE", &format!("/v1/entries/{id}"), Some(&s.write), None);
    assert_eq!(status, 404);
    assert_error(&v, "not_found");
    let (status, v) = s.get_json(&format!("/v1/entries/{id}"), None);
    assert_eq!(status, 404);
    assert_error(&v, "not_found");
    let (status, v) = s.get_json("/v1/entries/abc", None);
    assert_eq!(status, 400);
    assert_error(&v, "bad_request");

    // A bad entry: located, nothing written.
    let (status, v) = s.post(
        "/v1/entries",
        Some(&s.write),
        &json!([entry, {"variants": [{"locale": "en", "runs": [{"text": "alone"}]}]}]),
    );
    assert_eq!(status, 422, "{v}");
    assert_eq!(v["details"]["index"], 1);
    let (_, stats) = s.get_json("/v1/stats", None);
    assert_eq!(stats["entries"].as_u64().unwrap(), before);
}

#[test]
fn entries_are_replaced_in_place() {
    let s = Server::start(ServerConfig::new());
    let entry = en_de;
    let (_, v) = s.post("/v1/entries", Some(&s.write), &entry("Quarterly zebra report", "Zebrabericht"));
    let id = v["entries"][0]["id"].as_i64().unwrap();
    let (_, v) = s.post("/v1/entries", Some(&s.write), &entry("Monthly giraffe digest", "Giraffenübersicht"));
    let other = v["entries"][0]["id"].as_i64().unwrap();
    let (_, stats) = s.get_json("/v1/stats", None);
    let before = stats["entries"].as_u64().unwrap();
    let path = format!("/v1/entries/{id}");
    let new = entry("Yearly okapi summary", "Jährliche Okapi-Zusammenfassung").to_string();

    // Writes only, with a write token.
    let (status, v) = s.send("PUT", &path, None, Some(&new));
    assert_eq!(status, 401, "{v}");
    let (status, v) = s.send("PUT", &path, Some(&s.read), Some(&new));
    assert_eq!(status, 403, "{v}");
    assert_error(&v, "forbidden");

    // Bad bodies and ids: located errors, nothing changed.
    let lonely = json!({"variants": [{"locale": "en", "runs": [{"text": "alone"}]}]}).to_string();
    let mut wrong_id = entry("Yearly okapi summary", "x");
    wrong_id["id"] = json!(other);
    for (body, status, code) in [
        ("{\"variants\": [", 400, "invalid_json"),
        (lonely.as_str(), 422, "invalid_entry"),
        ("{\"variants\": [], \"colour\": 1}", 422, "invalid_entry"),
        (&wrong_id.to_string(), 422, "invalid_entry"),
        // Equal to another entry: the two cannot be merged under one id.
        (&entry("Monthly giraffe digest", "Giraffenübersicht").to_string(), 422, "invalid_entry"),
    ] {
        let (got, v) = s.send("PUT", &path, Some(&s.write), Some(body));
        assert_eq!(got, status, "{body}: {v}");
        assert_error(&v, code);
    }
    let (status, v) = s.send("PUT", "/v1/entries/abc", Some(&s.write), Some(&new));
    assert_eq!(status, 400, "{v}");
    let (status, v) =
        s.send("PUT", &format!("/v1/entries/{}", id.max(other) + 1000), Some(&s.write), Some(&new));
    assert_eq!(status, 404, "{v}");
    assert_error(&v, "not_found");
    let (_, got) = s.get_json(&path, None);
    assert_eq!(got["variants"][1]["runs"][0]["text"], "Zebrabericht", "{got}");

    // An entry read, edited and sent back: the same id, the new text only.
    let mut edited = got.clone();
    edited["variants"] = entry("Yearly okapi summary", "Jährliche Okapi-Zusammenfassung")["variants"].clone();
    edited["metadata"] = json!([["note", "edited"]]);
    let (status, v) = s.send("PUT", &path, Some(&s.write), Some(&edited.to_string()));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["id"], id);
    assert_eq!(v["variants"][1]["runs"][0]["text"], "Jährliche Okapi-Zusammenfassung");
    assert_eq!(v["metadata"], json!([["note", "edited"]]));
    let (_, got) = s.get_json(&path, None);
    assert_eq!(got, v);
    let (_, stats) = s.get_json("/v1/stats", None);
    assert_eq!(stats["entries"].as_u64().unwrap(), before, "a replace adds no entry");
    let lookup = |text: &str| {
        s.post(
            "/v1/lookup",
            None,
            &json!({"text": text, "source_locale": "en", "target_locale": "de", "threshold": 50, "limit": 100}),
        )
        .1
    };
    let found = lookup("Yearly okapi summaries");
    assert_eq!(found["matches"][0]["entry_id"], id, "{found}");
    let old = lookup("Quarterly zebra report");
    assert!(
        old["matches"].as_array().unwrap().iter().all(|m| m["entry_id"] != id),
        "the old text is still found: {old}"
    );
}

#[test]
fn revisions_keep_the_old_answer_refuse_stale_changes_and_undo_as_a_new_revision() {
    let s = Server::start(ServerConfig::new());
    let (_, v) = s.post("/v1/entries", Some(&s.write), &en_de("Quarterly zebra report", "Zebrabericht"));
    let id = v["entries"][0]["id"].as_i64().unwrap();
    let (_, stats) = s.get_json("/v1/stats", None);
    let before = stats["entries"].as_u64().unwrap();
    let revise = format!("/v1/entries/{id}/revise");
    let base = json!([{"text": "Zebrabericht"}]);
    let change = json!({"locale": "de", "text": "Quartalsbericht über Zebras", "base": base}).to_string();

    // Writes only, with a write token.
    let (status, _) = s.send("POST", &revise, None, Some(&change));
    assert_eq!(status, 401);
    let (status, v) = s.send("POST", &revise, Some(&s.read), Some(&change));
    assert_eq!(status, 403, "{v}");

    // Bad requests: located errors, nothing changed.
    for (path, body, status, code) in [
        (revise.clone(), "{\"locale\": \"de\"".to_owned(), 400, "invalid_json"),
        (revise.clone(), json!({"locale": "de", "base": base}).to_string(), 400, "bad_request"),
        (
            revise.clone(),
            json!({"locale": "x y", "text": "a", "base": base}).to_string(),
            400,
            "invalid_locale",
        ),
        (revise.clone(), json!({"locale": "fr", "text": "a", "base": base}).to_string(), 404, "not_found"),
        (format!("/v1/entries/{}/revise", id + 1000), change.clone(), 404, "not_found"),
        // Made against a text that is no longer stored: refused, never overwritten.
        (
            revise.clone(),
            json!({"locale": "de", "text": "a", "base": [{"text": "Zebra"}]}).to_string(),
            409,
            "conflict",
        ),
        (
            format!("/v1/entries/{id}/undo"),
            json!({"locale": "de", "base": base}).to_string(),
            409,
            "conflict",
        ),
    ] {
        let (got, v) = s.send("POST", &path, Some(&s.write), Some(&body));
        assert_eq!(got, status, "{path} {body}: {v}");
        if !code.is_empty() {
            assert_error(&v, code);
        }
    }
    let (_, history) = s.get_json(&format!("/v1/entries/{id}/history"), None);
    assert_eq!(history["previous"], json!([]), "{history}");

    // A revision: the id kept, the new text served, the old one in the history only.
    let (status, h) = s.send("POST", &revise, Some(&s.write), Some(&change));
    assert_eq!(status, 200, "{h}");
    assert_eq!(h["entry_id"], id);
    assert_eq!(h["current"]["variants"][1]["text"], "Quartalsbericht über Zebras", "{h}");
    assert_eq!(h["previous"][0]["variants"][1]["text"], "Zebrabericht", "{h}");
    assert_eq!(h["previous"][0]["by"], "writer", "{h}");
    let (_, again) = s.get_json(&format!("/v1/entries/{id}/history"), None);
    assert_eq!(again, h);
    let lookup = |text: &str| {
        s.post("/v1/lookup", None, &json!({"text": text, "source_locale": "en", "target_locale": "de"})).1
    };
    let found = lookup("Quarterly zebra report");
    let targets: Vec<&str> =
        found["matches"].as_array().unwrap().iter().map(|m| m["target"]["text"].as_str().unwrap()).collect();
    assert_eq!(targets, ["Quartalsbericht über Zebras"], "only the new answer is served: {found}");
    let (_, stats) = s.get_json("/v1/stats", None);
    assert_eq!(stats["entries"].as_u64().unwrap(), before, "a revision adds no entry");

    // The old answer travels with the entry through an export.
    let (status, jsonl, _) = s.get("/v1/export?format=jsonl", None);
    assert_eq!(status, 200);
    assert!(jsonl.contains("cmem:previous-answer") && jsonl.contains("Zebrabericht"), "{jsonl}");

    // Undo: conditional too; the previous answer made current as a new revision.
    let undo = format!("/v1/entries/{id}/undo");
    let (status, v) =
        s.send("POST", &undo, Some(&s.write), Some(&json!({"locale": "de", "base": base}).to_string()));
    assert_eq!(status, 409, "{v}");
    let now = json!({"locale": "de", "base": [{"text": "Quartalsbericht über Zebras"}]}).to_string();
    let (status, h) = s.send("POST", &undo, Some(&s.write), Some(&now));
    assert_eq!(status, 200, "{h}");
    assert_eq!(h["current"]["variants"][1]["text"], "Zebrabericht", "{h}");
    let previous: Vec<&str> = h["previous"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["variants"][1]["text"].as_str().unwrap())
        .collect();
    assert_eq!(previous, ["Quartalsbericht über Zebras", "Zebrabericht"], "history only grows: {h}");
    let found = lookup("Quarterly zebra report");
    assert_eq!(found["matches"][0]["target"]["text"], "Zebrabericht", "{found}");

    // A revision equal to another entry is refused, as a replace is.
    let (_, v) = s.post("/v1/entries", Some(&s.write), &en_de("Quarterly zebra report", "Zebraberichte"));
    let twin = v["entries"][0]["id"].as_i64().unwrap();
    let body =
        json!({"locale": "de", "text": "Zebrabericht", "base": [{"text": "Zebraberichte"}]}).to_string();
    let (status, v) = s.send("POST", &format!("/v1/entries/{twin}/revise"), Some(&s.write), Some(&body));
    assert_eq!(status, 422, "{v}");
    assert_error(&v, "invalid_entry");
}

#[test]
fn concurrent_revisions_of_one_text_let_exactly_one_through() {
    let s = Server::start(ServerConfig::new());
    let (_, v) = s.post("/v1/entries", Some(&s.write), &en_de("Quarterly zebra report", "Zebrabericht"));
    let id = v["entries"][0]["id"].as_i64().unwrap();
    let path = format!("/v1/entries/{id}/revise");
    // Six editors who all read "Zebrabericht" save at once: one wins, the others are told
    // the text changed, and no answer is lost from the history.
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|k| {
                let (s, path) = (&s, &path);
                scope.spawn(move || {
                    let body = json!({"locale": "de", "text": format!("Zebrabericht {k}"), "base": [{"text": "Zebrabericht"}]});
                    s.send("POST", path, Some(&s.write), Some(&body.to_string())).0
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 409).count(), 5, "{statuses:?}");
    let (_, h) = s.get_json(&format!("/v1/entries/{id}/history"), None);
    assert_eq!(h["previous"].as_array().unwrap().len(), 1, "{h}");
    assert_eq!(h["previous"][0]["variants"][1]["text"], "Zebrabericht", "{h}");
}

#[test]
fn search_filters_by_project_and_names_each_hits_project() {
    let s = Server::start(ServerConfig::new());
    let mut mine = en_de("Zebra directory", "Zebraverzeichnis");
    mine["project_id"] = json!("zoo");
    let (status, v) = s.post("/v1/entries", Some(&s.write), &mine);
    assert_eq!(status, 201, "{v}");
    let (_, all) = s.get_json("/v1/search?q=directory&locale=en&limit=50", None);
    let all = all["hits"].as_array().unwrap().clone();
    assert!(all.len() > 1, "{all:?}");
    assert!(all.iter().any(|h| h["project_id"] == "zoo"));
    let (_, zoo) = s.get_json("/v1/search?q=directory&locale=en&project=zoo", None);
    let hits = zoo["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{zoo}");
    assert_eq!(hits[0]["project_id"], "zoo");
    assert!(hits[0]["snippet"].as_str().unwrap().contains("[directory]"), "{zoo}");
    assert_eq!(zoo["next_offset"], Value::Null);
    let (_, none) = s.get_json("/v1/search?q=directory&locale=en&project=nobody", None);
    assert_eq!(none["hits"], json!([]));
}

#[test]
fn weblate_requests_get_amagama_answers() {
    let s = Server::start(ServerConfig::new());
    // What Weblate asks first: the languages, with the trailing slash.
    let (status, langs) = s.get_json("/tmserver/languages/", None);
    assert_eq!(status, 200);
    assert_eq!(langs, json!({"sourceLanguages": ["en"], "targetLanguages": ["de"]}));

    // Weblate validates a service with ("en", "de", "test"), then asks for units.
    let (status, v) = s.get_json(&weblate_unit_url("en", "de", "test"), None);
    assert_eq!(status, 200);
    assert!(v.is_array());
    let (status, v) = s.get_json(&weblate_unit_url("en", "de", "Telephone (home/_work):"), None);
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v[0],
        json!({"source": "Telephone (home/_work):", "target": "Telefon (privat/_geschäftlich):", "quality": 100.0, "rank": 100.0})
    );
    // `\r` is sent as a space; a fuzzy match's quality is its percentage, its target adapted.
    let (_, v) = s.get_json(&weblate_unit_url("en", "de", "failed to remove\rdirectory %d"), None);
    assert_eq!(v[0]["target"], "konnte Verzeichnis %d nicht entfernen", "{v}");
    assert!(v[0]["quality"].as_f64().unwrap() >= 70.0, "{v}");
    // A text of 600 characters is cut at 500 by the client and still answered.
    let (status, v) = s.get_json(&weblate_unit_url("en", "de", &"Automatic ".repeat(60)), None);
    assert_eq!(status, 200);
    assert!(v.is_array());

    // Codes in any case, `_` or `-`; the `?source=` form; the /api/v1 prefix.
    for path in [
        "/tmserver/EN/De/unit/Automatic",
        "/tmserver/en_us/de_de/unit/Automatic",
        "/tmserver/en/de/unit/?source=Automatic",
        "/api/v1/en/de/unit/Automatic",
        "/api/v1/en-US/de/unit/?source=Automatic&max_candidates=1",
    ] {
        let (status, v) = s.get_json(path, None);
        assert_eq!(status, 200, "{path}");
        assert_eq!(v[0]["target"], "Automatisch", "{path}: {v}");
    }
    // Same language, unknown or invalid codes: [] (never 404).
    for path in
        ["/tmserver/en/en/unit/Automatic", "/tmserver/en/fr/unit/Automatic", "/tmserver/!!/de/unit/Automatic"]
    {
        let (status, v) = s.get_json(path, None);
        assert_eq!((status, v), (200, json!([])), "{path}");
    }
    // min_similarity and max_candidates.
    let (_, loose) =
        s.get_json("/tmserver/en/de/unit/Automatic%20files?min_similarity=30&max_candidates=3", None);
    assert!(!loose.as_array().unwrap().is_empty() && loose.as_array().unwrap().len() <= 3, "{loose}");
    let (_, strict) = s.get_json("/tmserver/en/de/unit/Automatic%20files?min_similarity=100", None);
    assert_eq!(strict, json!([]));
    // JSONP.
    let (status, body, headers) = s.get("/tmserver/en/de/unit/Automatic?jsoncallback=cb_1", None);
    assert_eq!(status, 200);
    assert!(headers.get("content-type").unwrap().to_str().unwrap().starts_with("application/javascript"));
    assert!(body.starts_with("cb_1([{") && body.ends_with("]);"), "{body}");
    let (status, v) = s.get_json("/tmserver/en/de/unit/Automatic?jsoncallback=alert(1)", None);
    assert_eq!(status, 400);
    assert_error(&v, "bad_request");
}

#[test]
fn reads_can_require_a_token() {
    let s = Server::start(ServerConfig::new().read_needs_token(true));
    for path in ["/v1/stats", "/tmserver/languages/", "/tmserver/en/de/unit/Automatic"] {
        let (status, v) = s.get_json(path, None);
        assert_eq!(status, 401, "{path}");
        assert_error(&v, "unauthorized");
        let (status, _) = s.get_json(path, Some(&s.read));
        assert_eq!(status, 200, "{path}");
    }
    // Health needs no token.
    assert_eq!(s.get_json("/healthz", None).0, 200);
}

#[test]
fn limits_and_no_cors() {
    let s = Server::start(ServerConfig::new().max_body_bytes(1024).max_uri_bytes(512));
    let big = json!({"text": "x".repeat(2000), "source_locale": "en", "target_locale": "de"});
    let (status, v) = s.post("/v1/lookup", None, &big);
    assert_eq!(status, 413, "{v}");
    assert_error(&v, "body_too_large");
    let (status, v) = s.get_json(&format!("/tmserver/en/de/unit/{}", "a".repeat(600)), None);
    assert_eq!(status, 414);
    assert_error(&v, "uri_too_long");
    // No CORS headers, whatever the origin.
    let resp = s
        .agent
        .get(format!("{}/v1/stats", s.base))
        .header("Origin", "https://elsewhere.example")
        .call()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.headers().get("access-control-allow-origin").is_none());
}

#[test]
fn operations_routes_and_the_openapi_document() {
    let s = Server::start(ServerConfig::new());
    assert_eq!(s.get_json("/healthz", None), (200, json!({"status": "ok"})));
    let (status, ready) = s.get_json("/readyz", None);
    assert_eq!((status, &ready["status"]), (200, &json!("ready")));
    let (status, doc) = s.get_json("/openapi.json", None);
    assert_eq!(status, 200);
    assert_eq!(doc, openapi::openapi());
    assert_eq!(doc["openapi"], "3.1.0");
    // Fragments are asked for by a lookup's body and described in its answer.
    let lookup = &doc["paths"]["/v1/lookup"]["post"];
    let body = &lookup["requestBody"]["content"]["application/json"]["schema"]["properties"];
    assert_eq!(body["fragments"]["type"], "boolean");
    assert_eq!(body["terms"]["type"], "boolean");
    assert_eq!(doc["components"]["schemas"]["Fragment"]["required"][0], "source");
    // Every documented route is served: none answers "no such route".
    for (method, path) in openapi::ROUTES {
        let concrete = path
            .replace("{id}", "1")
            .replace("{source}", "en")
            .replace("{target}", "de")
            .replace("{text}", "Automatic");
        let (status, v) = match *method {
            "get" => {
                let (status, body, _) = s.get(&concrete, None);
                (status, serde_json::from_str(&body).unwrap_or(Value::Null))
            }
            "post" => s.post(&concrete, Some(&s.write), &json!({})),
            "put" => s.send("PUT", &concrete, Some(&s.write), Some("{}")),
            "delete" => s.send("DELETE", &concrete, Some(&s.write), None),
            _ => unreachable!(),
        };
        assert_ne!(v["error"], "no_such_route", "{method} {path}");
        assert_ne!(status, 405, "{method} {path}");
    }
    let (status, v) = s.get_json("/v2/lookup", None);
    assert_eq!(status, 404);
    assert_error(&v, "no_such_route");
    let (status, v) = s.get_json("/v1/lookup", None);
    assert_eq!(status, 405);
    assert_error(&v, "method_not_allowed");
}

#[test]
fn shutdown_ends_the_server_promptly() {
    let mut s = Server::start(ServerConfig::new());
    assert_eq!(s.get_json("/healthz", None).0, 200);
    let started = Instant::now();
    s.stop.take().unwrap().send(()).unwrap();
    s.thread.take().unwrap().join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(s.agent.get(format!("{}/healthz", s.base)).call().is_err());
}

#[test]
fn versions_list_a_units_answers_newest_first() {
    let s = Server::start(ServerConfig::new());
    let answer = |target: &str, at: &str| {
        json!({"unit": "ui/save", "origins": [{"created_at": at}], "variants": [
            {"locale": "en", "runs": [{"text": "Save"}]},
            {"locale": "de", "runs": [{"text": target}]},
        ]})
    };
    let (status, v) = s.post(
        "/v1/entries",
        Some(&s.write),
        &json!([answer("Sichern", "2023-01-01T00:00:00Z"), answer("Speichern", "2024-06-11T12:00:00Z")]),
    );
    assert_eq!(status, 201, "{v}");
    let (status, v) = s.get_json("/v1/versions?unit=ui%2Fsave", None);
    assert_eq!(status, 200, "{v}");
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["variants"][1]["text"], "Speichern");
    assert_eq!(versions[0]["created_at"], "2024-06-11T12:00:00Z");
    assert_eq!(versions[1]["variants"][1]["text"], "Sichern");
    let (_, one) = s.get_json("/v1/versions?unit=ui%2Fsave&limit=1", None);
    assert_eq!(one["versions"].as_array().unwrap().len(), 1);
    let (status, v) = s.get_json("/v1/versions?unit=", None);
    assert_eq!(status, 400);
    assert_error(&v, "bad_request");
    let (_, none) = s.get_json("/v1/versions?unit=nothing", None);
    assert_eq!(none, json!({"versions": []}));
}

#[test]
fn rates_are_limited_per_token_and_per_address() {
    let s = Server::start(ServerConfig::new().rate_limit(Some(RateLimit { per_second: 0.5, burst: 2.0 })));
    for _ in 0..2 {
        assert_eq!(s.get_json("/v1/stats", None).0, 200);
    }
    let (status, body, headers) = s.get("/v1/stats", None);
    assert_eq!(status, 429, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_error(&v, "rate_limited");
    let retry: u64 = headers.get("retry-after").unwrap().to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    // A token has a bucket of its own; health is never limited.
    assert_eq!(s.get_json("/v1/stats", Some(&s.read)).0, 200);
    assert_eq!(s.get_json("/healthz", None).0, 200);
}

#[test]
fn metrics_count_requests_by_route() {
    let s = Server::start(ServerConfig::new());
    s.post("/v1/lookup", None, &json!({"text": "Automatic", "source_locale": "en", "target_locale": "de"}));
    s.post("/v1/lookup", None, &json!({"text": "Automatic", "source_locale": "en"}));
    s.get_json("/tmserver/en/de/unit/Automatic", None);
    let (status, text, headers) = s.get("/metrics", None);
    assert_eq!(status, 200);
    assert!(headers.get("content-type").unwrap().to_str().unwrap().starts_with("text/plain; version=0.0.4"));
    for line in [
        "cmem_http_requests_total{route=\"/v1/lookup\",method=\"POST\",status=\"200\"} 1",
        "cmem_http_requests_total{route=\"/v1/lookup\",method=\"POST\",status=\"400\"} 1",
        "cmem_http_requests_total{route=\"/tmserver/{source}/{target}/unit/{text}\",method=\"GET\",status=\"200\"} 1",
        "cmem_http_request_duration_seconds_count{route=\"/v1/lookup\",method=\"POST\"} 2",
        "cmem_memory_entries 193",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
    }
}

impl Server {
    fn upload(&self, query: &str, token: Option<&str>, body: Vec<u8>) -> (u16, Value, Option<String>) {
        let mut req = self.agent.post(format!("{}/v1/imports?{query}", self.base));
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        let resp = req.send(&body[..]).unwrap();
        let status = resp.status().as_u16();
        let location = resp.headers().get("location").map(|l| l.to_str().unwrap().to_owned());
        (status, serde_json::from_str(&resp.into_body().read_to_string().unwrap()).unwrap(), location)
    }

    /// A POST whose body the server may refuse before reading it all (`413`): sent by one
    /// thread while this one reads the answer, as browsers and curl do, so the answer is
    /// read even when the server closes the connection on the rest of the body (a client
    /// that only reads once it has sent everything meets a broken pipe instead).
    fn post_refusable(&self, path: &str, token: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
        use std::io::{Read, Write};
        let addr = self.base.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut writer = stream.try_clone().unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let sender = std::thread::spawn(move || {
            let _ = writer.write_all(head.as_bytes()).and_then(|()| writer.write_all(&body));
        });
        let mut answer = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
            let text = String::from_utf8_lossy(&answer);
            if text.contains("\r\n\r\n") && text.trim_end().ends_with('}') {
                break;
            }
        }
        let _ = stream.shutdown(std::net::Shutdown::Both);
        let _ = sender.join();
        let text = String::from_utf8_lossy(&answer).into_owned();
        let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let json = text.find('{').map_or("", |i| &text[i..]);
        (status, serde_json::from_str(json.trim_end()).unwrap_or(Value::Null))
    }

    /// Polls a job until it is no longer running.
    fn finished(&self, location: &str) -> Value {
        let started = Instant::now();
        loop {
            let (status, job) = self.get_json(location, None);
            assert_eq!(status, 200, "{job}");
            if job["status"] != "running" {
                return job;
            }
            // A hang guard, not a speed check: an import job on a loaded machine can
            // take many seconds.
            assert!(started.elapsed() < Duration::from_secs(180), "{job}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn imports_run_as_jobs_with_located_problems() {
    let s = Server::start(ServerConfig::new());
    let file = std::fs::read(testdata("invalid/bad-line.jsonl")).unwrap();
    let (status, v, _) = s.upload("format=jsonl", None, file.clone());
    assert_eq!(status, 401, "{v}");
    let (status, v, _) = s.upload("format=jsonl", Some(&s.read), file.clone());
    assert_eq!(status, 403, "{v}");
    let (status, v, _) = s.upload("format=docx", Some(&s.write), file.clone());
    assert_eq!(status, 400);
    assert_eq!(v["details"]["field"], "format");

    let (_, before) = s.get_json("/v1/stats", None);
    // Strict: the first problem fails the job and nothing is stored.
    let (status, v, location) =
        s.upload("format=jsonl&strict=true&name=bad.jsonl", Some(&s.write), file.clone());
    assert_eq!(status, 202, "{v}");
    let job = s.finished(&location.unwrap());
    assert_eq!(job["status"], "failed", "{job}");
    assert!(job["error"].as_str().unwrap().contains("nothing of this import was stored"), "{job}");
    assert_eq!(s.get_json("/v1/stats", None).1, before);

    // Gzip, not strict: the good lines stored, the bad ones located by line.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &file).unwrap();
    let (status, v, location) = s.upload("format=jsonl&name=bad.jsonl", Some(&s.write), gz.finish().unwrap());
    assert_eq!(status, 202, "{v}");
    assert_eq!(v["status"], "running");
    let location = location.unwrap();
    assert_eq!(location, format!("/v1/imports/{}", v["id"]));
    let job = s.finished(&location);
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!((job["inserted"].as_u64(), job["problems"].as_u64()), (Some(2), Some(2)), "{job}");
    let messages = job["problem_messages"].as_array().unwrap();
    assert!(messages.iter().all(|m| m.as_str().unwrap().contains("bad.jsonl")), "{job}");
    assert!(messages[0].as_str().unwrap().contains("line 3"), "{job}");
    assert!(!job.to_string().contains("cmem-upload-"), "the temporary file's path leaked: {job}");
    let (_, found) =
        s.post("/v1/lookup", None, &json!({"text": "Two", "source_locale": "en", "target_locale": "de"}));
    assert_eq!(found["matches"][0]["target"]["text"], "Zwei", "{found}");
    let (_, jobs) = s.get_json("/v1/imports", None);
    assert_eq!(jobs["jobs"].as_array().unwrap().len(), 2);
    let (status, _) = s.get_json("/v1/imports/99", None);
    assert_eq!(status, 404);
}

/// An import job keeps the languages its file names: `from`/`to` contradicting them fail
/// the job, storing nothing, unless `relabel=true` asks for them on purpose.
#[test]
fn an_import_job_refuses_a_file_naming_other_languages_unless_told_to_relabel() {
    let s = Server::start(ServerConfig::new());
    let po = b"msgid \"\"\nmsgstr \"Language: ru\\n\"\n\nmsgid \"Open\"\nmsgstr \"Otkryt\"\n".to_vec();
    let (_, before) = s.get_json("/v1/stats", None);
    let (status, v, location) = s.upload("format=po&from=en&to=de&name=ru.po", Some(&s.write), po.clone());
    assert_eq!(status, 202, "{v}");
    let job = s.finished(&location.unwrap());
    assert_eq!(job["status"], "failed", "{job}");
    assert!(job["error"].as_str().unwrap().contains("ru.po names its target language ru, not de"), "{job}");
    assert_eq!(s.get_json("/v1/stats", None).1, before);
    let (_, _, location) = s.upload("format=po&from=en&to=de&relabel=true&name=ru.po", Some(&s.write), po);
    let job = s.finished(&location.unwrap());
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!(job["inserted"], 1, "{job}");
}

/// An import job trains the pair's word model again when asked (`align=true`) or when
/// the memory keeps one, so lookups repair changed words with the words that came in;
/// without either, no model is made.
#[test]
fn import_jobs_train_the_word_model_when_asked_or_when_the_memory_keeps_one() {
    let jsonl = |pairs: &[(&str, &str)]| -> Vec<u8> {
        pairs
            .iter()
            .map(|(s, t)| format!("{}\n", json!({"source": s, "target": t})))
            .collect::<String>()
            .into_bytes()
    };
    // Every verb with every noun, so the model tells nouns from verbs.
    let verbs = [
        ("Open", "Öffne"),
        ("Save", "Speichere"),
        ("Print", "Drucke"),
        ("Close", "Schließe"),
        ("Delete", "Lösche"),
        ("Copy", "Kopiere"),
    ];
    let nouns = [("file", "Datei"), ("page", "Seite"), ("table", "Tabelle"), ("list", "Liste")];
    let grid: Vec<(String, String)> = verbs
        .iter()
        .flat_map(|(v, vt)| {
            nouns.iter().map(move |(n, nt)| (format!("{v} the {n}"), format!("{vt} die {nt}")))
        })
        .collect();
    let files: Vec<(&str, &str)> = grid.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let views = [
        ("Open the view", "Öffne die Ansicht"),
        ("Close the view", "Schließe die Ansicht"),
        ("Save the view", "Speichere die Ansicht"),
    ];
    let folders = [
        ("Open the folder", "Öffne die Mappe"),
        ("Delete the folder", "Lösche die Mappe"),
        ("Copy the folder", "Kopiere die Mappe"),
    ];
    let body = jsonl(&files);
    let s = Server::start_with(ServerConfig::new(), move |memory| {
        import_into(
            memory,
            vec![Input::from_reader("files.jsonl", Format::Jsonl, std::io::Cursor::new(body))],
        );
    });
    // The adapted target of the match whose source is "Print the file", and its repairs.
    let print = |text: &str| -> (String, Value) {
        let (status, v) = s.post(
            "/v1/lookup",
            None,
            &json!({"text": text, "source_locale": "en", "target_locale": "de", "threshold": 50, "limit": 100}),
        );
        assert_eq!(status, 200, "{v}");
        let m = v["matches"].as_array().unwrap().iter().find(|m| m["source"]["text"] == "Print the file");
        let m = m.unwrap_or_else(|| panic!("no match of \"Print the file\": {v}"));
        (m["adapted_target"]["text"].as_str().unwrap().to_owned(), m["repairs"].clone())
    };
    let import = |query: &str, pairs: &[(&str, &str)]| -> Value {
        let (status, v, location) = s.upload(query, Some(&s.write), jsonl(pairs));
        assert_eq!(status, 202, "{v}");
        let job = s.finished(&location.unwrap());
        assert_eq!(job["status"], "succeeded", "{job}");
        job
    };

    // Neither asked nor kept: no model, no word repair.
    let job = import("format=jsonl&from=en&to=de", &views);
    assert!(job["word_model"].is_null(), "{job}");
    assert_eq!(print("Print the view").0, "Drucke die Datei");

    // `align` names the pair it trains.
    let (status, v, _) = s.upload("format=jsonl&align=true", Some(&s.write), jsonl(&folders));
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["details"]["field"], "align");

    // Asked: trained over the whole memory (the views of the job before included).
    let job = import("format=jsonl&from=en&to=de&align=true", &[("Show the file", "Zeige die Datei")]);
    assert_eq!(job["word_model"]["from"], "en", "{job}");
    assert_eq!(job["word_model"]["report"]["pairs"], 28, "{job}");
    let (text, repairs) = print("Print the view");
    assert_eq!(text, "Drucke die Ansicht", "{repairs}");
    assert!(repairs.to_string().contains("Ansicht"), "{repairs}");
    // The folders are not known yet.
    assert_eq!(print("Print the folder").0, "Drucke die Datei");
    // Fragments come when asked for, from the same model: never in a plain answer.
    let ask = |fragments: bool| {
        let body = json!({"text": "Please print the table now", "source_locale": "en", "target_locale": "de",
                          "fragments": fragments});
        let (status, v) = s.post("/v1/lookup", None, &body);
        assert_eq!(status, 200, "{v}");
        v
    };
    assert!(ask(false).get("fragments").is_none());
    let v = ask(true);
    let fragments = v["fragments"].as_array().unwrap_or_else(|| panic!("no fragments: {v}"));
    assert!(
        fragments
            .iter()
            .any(|f| f["source"] == "the table" && f["target"] == "die Tabelle" && f["agreeing"] == 6),
        "{v}"
    );
    // And the glossary's terms, when asked for.
    assert!(v.get("terms").is_none(), "{v}");
    let body = json!({"text": "Please print the table now", "source_locale": "en", "target_locale": "de",
                      "terms": true});
    let (status, v) = s.post("/v1/lookup", None, &body);
    assert_eq!(status, 200, "{v}");
    let terms = v["terms"].as_array().unwrap_or_else(|| panic!("no terms: {v}"));
    assert!(
        terms.iter().any(|t| t["found"] == "table" && t["target"] == "Tabelle" && t["noun"] == true),
        "{v}"
    );

    // Kept: a job that does not ask trains it again, and the folders come in.
    let job = import("format=jsonl&from=en&to=de", &folders);
    assert_eq!(job["word_model"]["report"]["pairs"], 31, "{job}");
    assert!(job["word_model"]["error"].is_null(), "{job}");
    assert_eq!(print("Print the folder").0, "Drucke die Mappe");
}

/// The body limit (4 MiB by default) holds on every route but the import upload, which
/// is streamed to disk by design and has a limit of its own: a 4.9 MB TMX is imported,
/// a 4.9 MB batch of entries is refused, and an upload over the upload limit too.
#[test]
fn the_body_limit_holds_everywhere_but_uploads_which_have_their_own() {
    let mut tmx = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tmx version=\"1.4\"><header srclang=\"en\" \
         datatype=\"plaintext\" segtype=\"sentence\" adminlang=\"en\" creationtool=\"t\" \
         creationtoolversion=\"1\" o-tmf=\"t\"/><body>\n",
    );
    let mut n = 0;
    while tmx.len() < 4_900_000 {
        tmx.push_str(&format!(
            "<tu><tuv xml:lang=\"en\"><seg>Uploaded segment number {n} of the large memory</seg></tuv>\
             <tuv xml:lang=\"de\"><seg>Hochgeladenes Segment Nummer {n} des großen Speichers</seg></tuv></tu>\n"
        ));
        n += 1;
    }
    tmx.push_str("</body></tmx>\n");
    let config = ServerConfig::new();
    assert!(tmx.len() > config.max_body_bytes, "{} bytes", tmx.len());
    let s = Server::start(config);
    let (status, v, location) = s.upload("format=tmx&name=big.tmx", Some(&s.write), tmx.clone().into_bytes());
    assert_eq!(status, 202, "{v}");
    let job = s.finished(&location.unwrap());
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!(job["inserted"].as_u64(), Some(n), "{job}");
    assert_eq!(job["upload_bytes"].as_u64(), Some(tmx.len() as u64), "{job}");

    let entry = |i: usize| en_de(&format!("Batch entry {i} {}", "x".repeat(400)), &format!("Eintrag {i}"));
    let entries: Vec<Value> = (0..12_000).map(entry).collect();
    let body = json!({ "entries": entries }).to_string();
    assert!(body.len() > 4_900_000);
    let (status, v) = s.post_refusable("/v1/entries", &s.write, "application/json", body.into_bytes());
    assert_eq!(status, 413, "{v}");
    assert_error(&v, "body_too_large");

    let s = Server::start(ServerConfig::new().max_upload_bytes(1 << 20));
    let (status, v) = s.post_refusable(
        "/v1/imports?format=tmx&name=big.tmx",
        &s.write,
        "application/octet-stream",
        tmx.into_bytes(),
    );
    assert_eq!(status, 413, "{v}");
    assert_error(&v, "body_too_large");
    assert_eq!(v["details"]["limit"], 1 << 20, "{v}");
}

#[test]
fn shutdown_cancels_a_running_import_which_leaves_nothing() {
    let mut s = Server::start(ServerConfig::new());
    let (_, stats) = s.get_json("/v1/stats", None);
    let before = stats["entries"].as_u64().unwrap();
    let lines: String = (0..60_000)
        .map(|i| format!("{{\"source\":\"bulk source {i}\",\"target\":\"Massenziel {i}\"}}\n"))
        .collect();
    let (status, v, _) = s.upload("format=jsonl&from=en&to=de", Some(&s.write), lines.into_bytes());
    assert_eq!(status, 202, "{v}");
    let started = Instant::now();
    s.stop.take().unwrap().send(()).unwrap();
    s.thread.take().unwrap().join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // All or nothing: the cancelled import rolled back, or it had already committed.
    let memory = Memory::open_with(s.path.to_str().unwrap(), &OpenOptions::new().read_only(true)).unwrap();
    let after = memory.stats().unwrap().entries;
    assert!(after == before || after == before + 60_000, "{before} → {after}");
}

#[test]
fn exports_stream_the_memory_and_import_back_unchanged() {
    let s = Server::start(ServerConfig::new());
    let (_, stats) = s.get_json("/v1/stats", None);
    let entries = stats["entries"].as_u64().unwrap();
    let (status, jsonl, headers) = s.get("/v1/export?format=jsonl", None);
    assert_eq!(status, 200);
    assert_eq!(headers.get("content-type").unwrap(), "application/jsonl");
    assert_eq!(jsonl.lines().count() as u64, entries);
    for line in jsonl.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v["variants"].as_array().is_some_and(|a| a.len() == 2), "{line}");
    }
    let (status, tmx, _) = s.get("/v1/export?format=tmx&from=en&to=de", None);
    assert_eq!(status, 200);
    assert!(tmx.starts_with("<?xml") && tmx.contains("<tmx") && tmx.trim_end().ends_with("</tmx>"));
    assert_eq!(tmx.matches("<tu>").count() + tmx.matches("<tu ").count(), entries as usize);

    let resp = s.agent.get(format!("{}/v1/export?format=kmb", s.base)).call().unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let kmb = resp.into_body().with_config().limit(100 << 20).read_to_vec().unwrap();
    let (status, v, location) = s.upload("format=kmb&name=memory.kmb", Some(&s.write), kmb);
    assert_eq!(status, 202, "{v}");
    let job = s.finished(&location.unwrap());
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!((job["inserted"].as_u64(), job["deduplicated"].as_u64()), (Some(0), Some(entries)), "{job}");

    let (status, v) = s.get_json("/v1/export?format=docx", None);
    assert_eq!(status, 400);
    assert_eq!(v["details"]["field"], "format");
    assert!(v["message"].as_str().unwrap().ends_with("is not tmx, tmx1, kmb, jsonl, po or weblate"), "{v}");
}

#[test]
fn every_format_the_registry_writes_is_exported_a_po_catalog_for_one_pair() {
    let s = Server::start(ServerConfig::new());
    // A PO catalog holds one locale pair: both are needed.
    let (status, v) = s.get_json("/v1/export?format=po&from=en", None);
    assert_eq!((status, v["details"]["field"].as_str()), (400, Some("to")), "{v}");
    let (status, po, headers) = s.get("/v1/export?format=po&from=en&to=de", None);
    assert_eq!(status, 200);
    assert_eq!(headers.get("content-type").unwrap(), "text/x-gettext-translation");
    assert_eq!(headers.get("content-disposition").unwrap(), "attachment; filename=\"memory.po\"");
    assert!(po.contains("\"Language: de\\n\"") && po.contains("msgstr \""), "{po}");
    let (status, json, headers) = s.get("/v1/export?format=weblate", None);
    assert_eq!(status, 200);
    assert_eq!(headers.get("content-type").unwrap(), "application/json");
    assert!(json.trim_start().starts_with('['), "{json}");
    // A format that imports but is not written is refused before the body starts.
    let (status, v) = s.get_json("/v1/export?format=xliff", None);
    assert_eq!((status, v["details"]["field"].as_str()), (400, Some("format")), "{v}");
    // Uploads: the formats one stream holds (not one whose source is a second file).
    let (status, v, _) = s.upload("format=properties", Some(&s.write), b"k=v\n".to_vec());
    assert_eq!(status, 400, "{v}");
    assert!(v["message"].as_str().unwrap().ends_with("is not tmx, kmb, jsonl, po, weblate or xliff"), "{v}");
}

/// Headless Chromium: `$CMEM_CHROMIUM`, else `chromium` on the path (`.ci/run` installs
/// Debian's).
fn chromium() -> String {
    std::env::var("CMEM_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned())
}

/// Runs headless Chromium on `url` with `args`, ended after 90 s at most; its stdout.
fn browse(profile: &Path, url: &str, args: &[&str]) -> String {
    let mut child = std::process::Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--virtual-time-budget=15000", "--window-size=1200,1100"])
        .args(args)
        .arg(url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run {} (install Debian's chromium, as .ci/run does): {e}", chromium())
        });
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not finish in 90 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    out
}

#[test]
fn the_web_page_looks_up_and_searches_in_a_browser() {
    let s = Server::start(ServerConfig::new());
    let (status, html, headers) = s.get("/", None);
    assert_eq!(status, 200);
    assert!(html.contains("<form id=\"lookup-form\">"));
    assert!(headers.get("content-security-policy").unwrap().to_str().unwrap().contains("default-src 'self'"));
    let profile = tempfile::tempdir().unwrap();

    // A lookup from the page's link form: the script posts it and shows the matches,
    // in words a translator uses, the stored source's differences from the query in the
    // CLI's direction (struck: only in the memory; underlined: only in the query).
    let url = format!("{}/?q={}&from=en&to=de", s.base, quote("failed to remove directory %d"));
    let dom = browse(profile.path(), &url, &["--dump-dom"]);
    assert!(dom.contains("class=\"match\""), "no match shown:\n{dom}");
    assert!(dom.contains("konnte Verzeichnis <ins class=\"repaired\" title=\"changed for your text\">%d</ins> nicht entfernen"), "{dom}");
    assert!(dom.contains("Suggestion 1: </span>exact<") && !dom.contains("fuzzy"), "{dom}");
    assert!(dom.contains("%s → %d as in your text"), "why, in one line: {dom}");
    assert!(
        dom.contains("<del title=\"only in the memory\">%s</del><ins title=\"only in your text\">%d</ins>"),
        "{dom}"
    );
    assert!(dom.contains("sample: 193 entries"), "{dom}");

    // A search: hits marked.
    let url = format!("{}/?search=directory&locale=en", s.base);
    let dom = browse(profile.path(), &url, &["--dump-dom"]);
    assert!(dom.contains("<mark>directory</mark>"), "{dom}");

    // Memory text is shown as text, never run as markup.
    let (status, _) = s.post(
        "/v1/entries",
        Some(&s.write),
        &en_de("Zebra <img src=x onerror=alert(1)> label", "Zebra <b>Etikett</b>"),
    );
    assert_eq!(status, 201);
    let url = format!("{}/?q={}&from=en&to=de", s.base, quote("Zebra <img src=x onerror=alert(1)> label"));
    let dom = browse(profile.path(), &url, &["--dump-dom"]);
    assert!(dom.contains("Zebra &lt;b&gt;Etikett&lt;/b&gt;"), "{dom}");
    assert!(!dom.contains("<img src=\"x\""), "{dom}");

    // A screenshot of a lookup, kept with the build's test files for people to look at.
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cmem-server-page.png");
    let _ = std::fs::remove_file(&shot);
    let url = format!("{}/?q={}&from=en&to=de", s.base, quote("Telephone (home/work):"));
    browse(profile.path(), &url, &[&format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());
}

/// Headless Chromium driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: commands in on descriptor 3, answers out on 4, each a
/// JSON message ended by a NUL byte), attached to its one page. Key presses go in as
/// `Input.dispatchKeyEvent`, as a keyboard's would; scripts only read the page.
struct Browser {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::sync::mpsc::Receiver<Value>,
    next: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn start() -> Browser {
        let profile = tempfile::tempdir().unwrap();
        // The shell hands Chromium its two pipe ends as descriptors 3 and 4.
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>/dev/null"#)
            .arg(chromium())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
            ])
            .args(["--remote-debugging-pipe", "--window-size=1200,1100"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {} through sh: {e}", chromium()));
        let input = child.stdin.take().unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let (send, output) = std::sync::mpsc::channel();
        std::thread::spawn(move || loop {
            let mut message = Vec::new();
            match std::io::BufRead::read_until(&mut stdout, 0, &mut message) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    message.pop();
                    if let Ok(v) = serde_json::from_slice::<Value>(&message) {
                        if send.send(v).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut browser =
            Browser { child, input, output, next: 0, session: String::new(), _profile: profile };
        let targets = browser.call("Target.getTargets", json!({}));
        let page = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .unwrap_or_else(|| panic!("no page among {targets}"))["targetId"]
            .clone();
        let attached = browser.call("Target.attachToTarget", json!({"targetId": page, "flatten": true}));
        browser.session = attached["sessionId"].as_str().unwrap().to_owned();
        // Focus behaves as in a window that has it, though no window is shown.
        browser.call("Emulation.setFocusEmulationEnabled", json!({"enabled": true}));
        browser
    }

    /// Sends a command (to the page once attached) and waits for its answer.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        std::io::Write::write_all(&mut self.input, &bytes).unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let answer =
                self.output.recv_timeout(left).unwrap_or_else(|e| panic!("{method}: no answer: {e}"));
            if answer["id"] == id {
                assert!(answer.get("error").is_none(), "{method}: {answer}");
                return answer["result"].clone();
            }
        }
    }

    /// Sends a command to the browser itself (not the page), e.g. `Browser.grantPermissions`.
    fn call_browser(&mut self, method: &str, params: Value) -> Value {
        let session = std::mem::take(&mut self.session);
        let answer = self.call(method, params);
        self.session = session;
        answer
    }

    /// The value a script's promise settles to.
    fn read_async(&mut self, expression: &str) -> Value {
        let got = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(got.get("exceptionDetails").is_none(), "{expression}: {got}");
        got["result"]["value"].clone()
    }

    /// Scrolls the element `selector` names into view, as a person would, and clicks
    /// its middle, as a mouse would.
    fn click(&mut self, selector: &str) {
        let at = self.read(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); e.scrollIntoView({{ block: 'center' }}); \
             const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// Saves a PNG of the page (as laid out now) as `name` in the build's test
    /// directory, for people to look at; checks it is a picture.
    fn screenshot(&mut self, name: &str) -> PathBuf {
        let shot =
            self.call("Page.captureScreenshot", json!({"format": "png", "captureBeyondViewport": true}));
        let png = base64_decode(shot["data"].as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG") && png.len() > 5_000, "{name}: {} bytes", png.len());
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        std::fs::write(&path, png).unwrap();
        path
    }

    /// The value of a script that reads the page.
    fn read(&mut self, expression: &str) -> Value {
        let got = self.call("Runtime.evaluate", json!({"expression": expression, "returnByValue": true}));
        assert!(got.get("exceptionDetails").is_none(), "{expression}: {got}");
        got["result"]["value"].clone()
    }

    /// Waits up to 120 s for `expression` to read true: a hang guard, not a timing (a
    /// loaded machine runs several browsers at once).
    fn wait_for(&mut self, expression: &str) {
        let started = Instant::now();
        while self.read(expression) != json!(true) {
            assert!(started.elapsed() < Duration::from_secs(120), "still not true after 120 s: {expression}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Presses and releases a key: `key` as the DOM names it, its Windows key code, the
    /// text it types (if any) and the modifiers held (8: Shift).
    fn press(&mut self, key: &str, code: i64, text: &str, modifiers: i64) {
        let mut down =
            json!({"type": "keyDown", "key": key, "windowsVirtualKeyCode": code, "modifiers": modifiers});
        if !text.is_empty() {
            down["text"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down);
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "windowsVirtualKeyCode": code, "modifiers": modifiers}),
        );
    }

    fn tab(&mut self, shift: bool) {
        self.press("Tab", 9, "", if shift { 8 } else { 0 });
    }

    fn enter(&mut self) {
        self.press("Enter", 13, "\r", 0);
    }

    /// Ctrl+A: selects all of the focused field's text.
    fn select_all(&mut self) {
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": "a", "code": "KeyA", "windowsVirtualKeyCode": 65, "modifiers": 2,
                       "commands": if kind == "keyDown" { json!(["selectAll"]) } else { json!([]) }}),
            );
        }
    }

    /// Presses Tab (or Shift+Tab) until `control` has the focus, 40 times at most.
    fn tab_to(&mut self, control: &str, shift: bool) {
        for _ in 0..40 {
            if self.focused() == control {
                return;
            }
            self.tab(shift);
        }
        panic!("Tab never reached {control}");
    }

    /// Types `text` a key at a time.
    fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            let key = c.to_string();
            let code = if c.is_ascii_alphanumeric() { i64::from(c.to_ascii_uppercase() as u8) } else { 0 };
            self.press(&key, code, &key, 0);
        }
    }

    /// The focused control, named as [`TABBABLE`] names them.
    fn focused(&mut self) -> String {
        self.read(&format!("({NAME})(document.activeElement)")).as_str().unwrap_or("").to_owned()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (RFC 4648 §4), as DevTools sends screenshots.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("{c} is not base64"),
    };
    let digits: Vec<u8> =
        text.bytes().filter(|c| *c != b'=' && !c.is_ascii_whitespace()).map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (k, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * k);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// A script naming a control: its id, or its tag and text.
const NAME: &str = "(e) => e ? (e.id || `${e.tagName.toLowerCase()}:${e.textContent.trim()}`) : ''";

/// A script listing the page's controls, which Tab should all reach, in document order
/// (no control may set a positive `tabindex`, so that is the order expected; one that
/// takes itself out of the order with `tabindex="-1"` is still listed, and missed).
const TABBABLE: &str = "JSON.stringify(Array.from(document.querySelectorAll(\
     'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex=\"-1\"])')).filter((e) => \
     !e.disabled && !e.hidden && e.getClientRects().length > 0).map(NAME))";

/// A script: does the focused control show a visible focus ring (`:focus-visible`, an
/// outline at least 2 px wide)?
const FOCUS_SHOWN: &str = "(() => { const e = document.activeElement, s = getComputedStyle(e); \
     return e.matches(':focus-visible') && s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2; })()";

#[test]
fn the_web_page_works_with_the_keyboard_alone() {
    let s = Server::start(ServerConfig::new());
    let mut b = Browser::start();
    b.call("Page.navigate", json!({"url": format!("{}/", s.base)}));
    b.wait_for(
        "document.readyState === 'complete' && /entries/.test(document.getElementById('memory').textContent)",
    );

    // The page opens with the segment field focused: type a query, Enter looks it up,
    // and a status says how many matches came (a screen reader announces the count,
    // not the list).
    assert_eq!(b.focused(), "lookup-text");
    b.type_text("failed to remove directory %d");
    b.enter();
    b.wait_for("document.querySelector('#lookup-results .match') !== null");
    let results = b.read(
        "(() => { const r = document.getElementById('lookup-results'), c = document.getElementById('lookup-count'); \
         return [r.getAttribute('aria-live'), r.textContent, c.getAttribute('role'), c.textContent]; })()",
    );
    assert_eq!(results[0], Value::Null, "{results}");
    assert!(results[1].as_str().unwrap().contains("konnte Verzeichnis %d nicht entfernen"), "{results}");
    assert_eq!(results[2], "status", "{results}");
    assert!(results[3].as_str().unwrap().contains("suggestion"), "{results}");
    assert_eq!(b.read("document.getElementById('lookup-text').value"), "failed to remove directory %d");

    // Tab reaches every control once, in document order, each with a visible focus
    // ring; Shift+Tab walks back the same way.
    let tabbable = b.read(&TABBABLE.replace("NAME", NAME));
    let expected: Vec<String> = serde_json::from_str(tabbable.as_str().unwrap()).unwrap();
    for control in [
        "lookup-text",
        "lookup-from",
        "lookup-to",
        "lookup-threshold",
        "lookup-codes",
        "button:Look up",
        "match-1",
        "button:More",
        "search-words",
        "search-locale",
        "import-file",
        "button:Import",
        "write-token",
    ] {
        assert!(expected.iter().any(|e| e == control), "{control} is not tabbable: {expected:?}");
    }
    assert_eq!(expected[0], "lookup-text", "{expected:?}");
    let mut forward = vec![b.focused()];
    assert_eq!(b.read(FOCUS_SHOWN), true, "no visible focus on {}", forward[0]);
    for _ in 1..expected.len() {
        b.tab(false);
        let now = b.focused();
        assert_eq!(b.read(FOCUS_SHOWN), true, "no visible focus on {now}");
        forward.push(now);
    }
    assert_eq!(forward, expected, "the order Tab visits the controls in");
    let mut back = vec![b.focused()];
    for _ in 1..expected.len() {
        b.tab(true);
        back.push(b.focused());
    }
    back.reverse();
    assert_eq!(back, expected, "the order Shift+Tab visits the controls in");

    // Enter in a field of the search form searches; the hits land in a live region.
    b.tab_to("search-words", false);
    b.type_text("directory");
    b.enter();
    b.wait_for("document.querySelector('#search-results mark') !== null");
    assert_eq!(b.read("document.getElementById('search-count').getAttribute('role')"), "status");
    assert_eq!(b.read("document.querySelector('#search-results mark').textContent"), "directory");

    // A match's target edited with the keyboard: the write token typed once, look up,
    // Tab to its More menu, Enter, down to Edit, Enter, type the new text, Enter asks for confirmation, Tab
    // to Save and Enter saves it; the old answer stays in the entry's history, and the
    // Undo button (focused) restores it as a new revision.
    let (_, v) = s.post("/v1/entries", Some(&s.write), &en_de("Quarterly zebra report", "Zebrabericht"));
    let id = v["entries"][0]["id"].as_i64().unwrap();
    b.tab_to("write-token", false);
    b.type_text(&s.write);
    b.tab_to("lookup-text", true);
    b.select_all();
    b.type_text("Quarterly zebra report");
    b.enter();
    b.wait_for("/Zebrabericht/.test(document.getElementById('lookup-results').textContent)");
    b.tab_to("button:More", false);
    b.enter();
    assert_eq!(b.focused(), "button:Copy");
    b.press("ArrowDown", 40, "", 0);
    b.press("ArrowDown", 40, "", 0);
    assert_eq!(b.focused(), "button:Edit");
    b.enter();
    b.wait_for(&format!("document.activeElement.id === 'edit-target-{id}'"));
    b.select_all();
    b.type_text("Vierteljährlicher Zebrabericht");
    b.enter();
    b.wait_for("document.getElementById('confirm').open && document.activeElement.id === 'confirm-cancel'");
    assert!(b
        .read("document.getElementById('confirm-body').textContent")
        .as_str()
        .unwrap()
        .contains("Zebrabericht"));
    b.tab(false);
    assert_eq!(b.focused(), "confirm-ok");
    b.enter();
    b.wait_for("/Saved entry/.test(document.querySelector('.edit-status').textContent)");
    assert_eq!(b.read("document.querySelector('.edit-status').getAttribute('aria-live')"), "polite");
    let (_, entry) = s.get_json(&format!("/v1/entries/{id}"), None);
    assert_eq!(entry["variants"][1]["runs"], json!([{"text": "Vierteljährlicher Zebrabericht"}]), "{entry}");
    let (_, history) = s.get_json(&format!("/v1/entries/{id}/history"), None);
    assert_eq!(history["previous"].as_array().unwrap().len(), 1, "{history}");
    assert_eq!(history["previous"][0]["variants"][1]["text"], "Zebrabericht", "{history}");
    assert_eq!(history["previous"][0]["by"], "writer", "{history}");
    assert_eq!(
        b.read("document.querySelector('#lookup-results .use').textContent"),
        "Vierteljährlicher Zebrabericht"
    );
    assert!(b
        .read("document.querySelector('.history').textContent")
        .as_str()
        .unwrap()
        .contains("Zebrabericht — replaced"));

    assert_eq!(b.focused(), "button:Undo");
    b.enter();
    b.wait_for(
        "/Restored the previous translation/.test(document.querySelector('.edit-status').textContent)",
    );
    let (_, entry) = s.get_json(&format!("/v1/entries/{id}"), None);
    assert_eq!(entry["variants"][1]["runs"], json!([{"text": "Zebrabericht"}]), "{entry}");
    let (_, history) = s.get_json(&format!("/v1/entries/{id}/history"), None);
    let previous: Vec<&Value> = history["previous"].as_array().unwrap().iter().collect();
    assert_eq!(previous.len(), 2, "undo adds a revision, losing nothing: {history}");
    assert_eq!(previous[0]["variants"][1]["text"], "Vierteljährlicher Zebrabericht", "{history}");
    assert_eq!(b.read("document.querySelector('#lookup-results .use').textContent"), "Zebrabericht");
}

/// A context answer without its timing and the batch's own fields.
fn untimed(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        for key in ["micros", "index", "id"] {
            m.remove(key);
        }
    }
    v
}

#[test]
fn context_answers_as_the_library_does() {
    let s = Server::start(ServerConfig::new().read_needs_token(true));
    let texts = ["failed to remove the table directory", "Automatic", "Telephone number"];
    let segments: Vec<Value> = texts.iter().enumerate().map(|(i, t)| json!({"id": i, "text": t})).collect();
    let body = json!({"source_locale": "en", "target_locale": "de", "segments": segments, "examples": 3});
    let (status, v) = s.post("/v1/context", None, &body);
    assert_eq!(status, 401, "{v}");
    let (status, v) = s.post("/v1/context", Some(&s.read), &body);
    assert_eq!(status, 200, "{v}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!((results[2]["index"].clone(), results[2]["id"].clone()), (2.into(), 2.into()));
    assert_eq!(results[1]["exact"], true, "Automatic is in the memory");

    let memory = Memory::open(s.path.to_str().unwrap()).unwrap();
    let rec = Recognizer::default();
    for (text, got) in texts.iter().zip(results) {
        let runs = cmem::prepare_query(QueryText::Plain(text), Some(&rec)).unwrap();
        let req = cmem::ContextRequest::new(LookupRequest::from_tags(runs, "en", "de").unwrap())
            .options(cmem::ContextOptions::default().examples(3));
        let lib = serde_json::to_value(memory.context_answer(&req).unwrap()).unwrap();
        assert_eq!(untimed(got.clone()), untimed(lib), "{text}");
    }
    assert!(!results[0]["examples"].as_array().unwrap().is_empty(), "{}", results[0]);
}

#[test]
fn context_answers_are_kept_until_the_memory_changes() {
    let s = Server::start(ServerConfig::new());
    let hits = || -> u64 {
        let (_, metrics, _) = s.get("/metrics", Some(&s.read));
        let line =
            metrics.lines().find(|l| l.starts_with("cmem_answer_cache_total{result=\"hit\"}")).unwrap();
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let ask = |id: &str| {
        let body = json!({"source_locale": "en", "target_locale": "de",
            "segments": [{"id": id, "text": "Quarterly zebra report"}], "examples": 2});
        let (status, v) = s.post("/v1/context", Some(&s.read), &body);
        assert_eq!(status, 200, "{v}");
        v["results"][0].clone()
    };
    let first = ask("a");
    assert_eq!(first["exact"], false, "{first}");
    let before = hits();
    let second = ask("b");
    assert_eq!(hits(), before + 1, "the second answer came from the cache");
    assert_eq!(second["id"], "b", "the caller's id is its own, not the kept answer's");
    assert_eq!(untimed(second.clone()), untimed(first.clone()));
    // A write changes the memory: the next answer is computed again and sees it.
    let entry = json!({"variants": [
        {"locale": "en", "runs": [{"text": "Quarterly zebra report"}]},
        {"locale": "de", "runs": [{"text": "Vierteljährlicher Zebrabericht"}]},
    ]});
    let (status, v) = s.post("/v1/entries", Some(&s.write), &entry);
    assert_eq!(status, 201, "{v}");
    let third = ask("c");
    assert_eq!(third["exact"], true, "{third}");
    assert_eq!(third["matches"][0]["target"]["text"], "Vierteljährlicher Zebrabericht", "{third}");
}

#[test]
fn context_names_the_bad_segment_and_bounds_the_knobs() {
    let s = Server::start(ServerConfig::new());
    let post = |body: Value| s.post("/v1/context", None, &body);
    let (status, v) = post(json!({"source_locale": "en", "target_locale": "de",
        "segments": [{"text": "ok"}, {"text": "x", "point": "/bad//"}]}));
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["details"]["field"], "segments[1].point", "{v}");
    let (status, v) = post(json!({"source_locale": "en", "target_locale": "de",
        "segments": [{"text": "x", "notation": "x"}]}));
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["details"]["field"], "segments[0].text", "{v}");
    let (status, v) = post(json!({"source_locale": "en", "target_locale": "de",
        "segments": [{"text": "x", "context": {"pre": "a"}}]}));
    assert_eq!((status, v["details"]["field"].clone()), (400, "segments[0].context".into()), "{v}");
    let (status, v) =
        post(json!({"source_locale": "en", "target_locale": "de", "examples": 21, "segments": []}));
    assert_eq!((status, v["details"]["field"].clone()), (400, "examples".into()), "{v}");
    let (status, v) =
        post(json!({"source_locale": "en", "target_locale": "de", "min_example_score": 0.5, "segments": []}));
    assert_eq!(status, 200, "0.5 % is a percentage: {v}");
    let (status, v) =
        post(json!({"source_locale": "en", "target_locale": "de", "min_example_score": 101, "segments": []}));
    assert_eq!((status, v["details"]["field"].clone()), (400, "min_example_score".into()), "{v}");
    let many: Vec<Value> = (0..1001).map(|i| json!({"text": format!("s{i}")})).collect();
    let (status, v) = post(json!({"source_locale": "en", "target_locale": "de", "segments": many}));
    assert_eq!(status, 413);
    assert_error(&v, "batch_too_large");
}
