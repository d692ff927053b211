//! A load test of a running `cmem serve`: concurrent clients on loopback posting fuzzy
//! lookups from a query file, optionally a writer adding entries meanwhile; prints the
//! throughput, latency percentiles and errors, and checks afterwards that every write
//! the server acknowledged can be read back.
//!
//! ```text
//! cmem --memory full.db serve --listen 127.0.0.1:8080 &
//! cargo run --release -p cmem-server --example load -- \
//!     --url http://127.0.0.1:8080 --queries queries_sample.jsonl \
//!     --clients 32 --seconds 20 [--write-token TOKEN] [--amagama]
//! ```
//!
//! `--amagama` asks Weblate's way (`GET /tmserver/{from}/{to}/unit/TEXT`, five
//! candidates) instead of `POST /v1/lookup`: the route the answer cache serves.
//!
//! The query file is JSON Lines with a `query` field (the benchmark's query sets). The
//! run is bounded by `--seconds` and by `--max-requests` (default 1,000,000), and it
//! refuses any address but loopback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Options {
    url: String,
    queries: String,
    clients: usize,
    seconds: u64,
    max_requests: usize,
    from: String,
    to: String,
    write_token: Option<String>,
    amagama: bool,
}

fn options() -> Options {
    let mut o = Options {
        url: "http://127.0.0.1:8080".into(),
        queries: String::new(),
        clients: 32,
        seconds: 10,
        max_requests: 1_000_000,
        from: "en".into(),
        to: "de".into(),
        write_token: None,
        amagama: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => o.url = value(),
            "--queries" => o.queries = value(),
            "--clients" => o.clients = value().parse().expect("--clients N"),
            "--seconds" => o.seconds = value().parse().expect("--seconds N"),
            "--max-requests" => o.max_requests = value().parse().expect("--max-requests N"),
            "--from" => o.from = value(),
            "--to" => o.to = value(),
            "--write-token" => o.write_token = Some(value()),
            "--amagama" => o.amagama = true,
            _ => panic!("unknown option {flag}"),
        }
    }
    assert!(!o.queries.is_empty(), "--queries FILE.jsonl is required");
    let host = o.url.trim_start_matches("http://").split([':', '/']).next().unwrap_or("");
    assert!(
        host == "localhost" || host.starts_with("127.") || host == "[::1]",
        "the load test only targets this machine's loopback, not {host}"
    );
    o
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

fn main() {
    let o = Arc::new(options());
    let queries: Arc<Vec<String>> = Arc::new(
        std::fs::read_to_string(&o.queries)
            .expect("read --queries")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v["query"].as_str().map(str::to_owned))
            .collect(),
    );
    assert!(!queries.is_empty(), "no \"query\" field in {}", o.queries);
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(o.seconds);
    let per_client = o.max_requests.div_ceil(o.clients);

    let writer = o.write_token.clone().map(|token| {
        let (o, stop) = (Arc::clone(&o), Arc::clone(&stop));
        std::thread::spawn(move || {
            let agent = agent();
            let (mut acknowledged, mut errors, mut n) = (Vec::new(), 0u64, 0u64);
            while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                let batch: Vec<Value> = (0..50)
                    .map(|_| {
                        n += 1;
                        json!({"variants": [
                            {"locale": o.from, "runs": [{"text": format!("load test entry {n} of run {}", std::process::id())}]},
                            {"locale": o.to, "runs": [{"text": format!("Lasttest-Eintrag {n}")}]},
                        ]})
                    })
                    .collect();
                let resp = agent
                    .post(format!("{}/v1/entries", o.url))
                    .header("Content-Type", "application/json")
                    .header("Authorization", format!("Bearer {token}"))
                    .send(Value::Array(batch).to_string());
                match resp {
                    Ok(r) if r.status().as_u16() == 201 => {
                        let v: Value = serde_json::from_str(&r.into_body().read_to_string().unwrap()).unwrap();
                        acknowledged.extend(v["entries"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()));
                    }
                    _ => errors += 1,
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            (acknowledged, errors)
        })
    });

    let clients: Vec<_> = (0..o.clients)
        .map(|c| {
            let (o, queries) = (Arc::clone(&o), Arc::clone(&queries));
            std::thread::spawn(move || {
                let agent = agent();
                let (mut times, mut errors, mut found) = (Vec::new(), 0u64, 0u64);
                let mut i = c;
                while times.len() + (errors as usize) < per_client && Instant::now() < deadline {
                    let text = &queries[i % queries.len()];
                    i += o.clients;
                    let t = Instant::now();
                    let resp = if o.amagama {
                        agent
                            .get(format!("{}/tmserver/{}/{}/unit/{}", o.url, o.from, o.to, quote(text)))
                            .call()
                    } else {
                        let body = json!({"text": text, "source_locale": o.from, "target_locale": o.to});
                        agent
                            .post(format!("{}/v1/lookup", o.url))
                            .header("Content-Type", "application/json")
                            .send(body.to_string())
                    };
                    match resp {
                        Ok(r) if r.status().as_u16() == 200 => {
                            let v: Value =
                                serde_json::from_str(&r.into_body().read_to_string().unwrap()).unwrap();
                            times.push(t.elapsed());
                            let answers = if o.amagama { &v } else { &v["matches"] };
                            if answers.as_array().is_some_and(|m| !m.is_empty()) {
                                found += 1;
                            }
                        }
                        _ => errors += 1,
                    }
                }
                (times, errors, found)
            })
        })
        .collect();
    let (mut times, mut errors, mut found) = (Vec::new(), 0u64, 0u64);
    for c in clients {
        let (t, e, f) = c.join().unwrap();
        times.extend(t);
        errors += e;
        found += f;
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let (written, write_errors, lost) = match writer {
        None => (0, 0, 0),
        Some(w) => {
            let (ids, errors) = w.join().unwrap();
            let agent = agent();
            let lost = ids
                .iter()
                .filter(|id| {
                    let r = agent
                        .get(format!("{}/v1/entries/{id}", o.url))
                        .header("Authorization", format!("Bearer {}", o.write_token.as_deref().unwrap_or("")))
                        .call();
                    !matches!(r, Ok(r) if r.status().as_u16() == 200)
                })
                .count();
            (ids.len(), errors, lost)
        }
    };
    times.sort_unstable();
    let rate = times.len() as f64 / elapsed.as_secs_f64();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{} lookups by {} clients in {:.1} s: {rate:.0}/s, {found} with a match; p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms; {errors} errors",
        times.len(),
        o.clients,
        elapsed.as_secs_f64(),
        ms(percentile(&times, 50.0)),
        ms(percentile(&times, 95.0)),
        ms(percentile(&times, 99.0)),
        ms(times.last().copied().unwrap_or_default()),
    );
    if o.write_token.is_some() {
        println!("meanwhile {written} entries written and acknowledged, {write_errors} failed writes, {lost} acknowledged entries missing afterwards");
    }
    println!(
        "{}",
        json!({
            "lookups": times.len(), "clients": o.clients, "seconds": elapsed.as_secs_f64(), "per_second": rate,
            "found": found, "errors": errors,
            "p50_ms": ms(percentile(&times, 50.0)), "p95_ms": ms(percentile(&times, 95.0)), "p99_ms": ms(percentile(&times, 99.0)),
            "written": written, "write_errors": write_errors, "lost": lost,
        })
    );
}

/// Every byte but unreserved ones percent-encoded, as Weblate quotes a path part.
fn quote(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
