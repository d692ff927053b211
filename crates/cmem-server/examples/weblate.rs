//! Weblate's tmserver client against a running `cmem serve`, on real format strings:
//! each string's printf and Python-format placeholders masked as Weblate masks them
//! (`[X<offset>X]`), the text cut at 500 characters with `\r` as a space, the answers
//! read at Weblate's threshold (80) and unmasked as Weblate does (spaces allowed before
//! `]`). Prints how many strings got a suggestion and how many suggestions lost a
//! placeholder of their string (the figure that must be 0).
//!
//! ```text
//! cmem --memory full.db import --from en --to de en-de.jsonl.gz
//! cmem --memory full.db serve --listen 127.0.0.1:18080 &
//! cargo run --release -p cmem-server --example weblate -- \
//!     http://127.0.0.1:18080/tmserver en-de.jsonl.gz queries_sample.jsonl queries_versioned.jsonl
//! ```
//!
//! The memory's sources with placeholders are sampled (1,000, evenly spread) as exact
//! strings; every query of the query files with placeholders is a fuzzy one. Loopback
//! addresses only.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};

use regex::Regex;
use serde_json::Value;

/// Python's `%(name)s` and C's printf conversions, as Weblate's format checks highlight
/// them (a bare `%` left out: Weblate masks it only in a string flagged as a format).
const PLACEHOLDER: &str = concat!(
    r"%\([^)]+\)[ +#-]*(?:\d+)?(?:\.\d+)?[diouxXeEfFgGcrsa%]",
    r"|%(?:\d+\$)?[ +#-]*(?:\d+)?(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfFgGaAcsp%]",
);

/// Every byte but unreserved ones percent-encoded (`quote(part, safe="")`).
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

/// Weblate's `cleanup_text`: (the masked text, mask → placeholder, the placeholders).
fn mask(ph: &Regex, text: &str) -> (String, Vec<(String, String)>, Vec<String>) {
    let spans: Vec<(usize, usize, String)> =
        ph.find_iter(text).map(|m| (m.start(), m.end(), m.as_str().to_owned())).collect();
    let mut out = text.to_owned();
    let mut replacements = Vec::new();
    for (start, end, found) in spans.iter().rev() {
        let m = format!("[X{}X]", text[..*start].chars().count());
        out.replace_range(*start..*end, &m);
        replacements.push((m, found.clone()));
    }
    (out, replacements, spans.into_iter().map(|s| s.2).collect())
}

/// Weblate's `uncleanup_text`.
fn unmask(text: &str, replacements: &[(String, String)]) -> String {
    let mut out = text.to_owned();
    for (m, original) in replacements {
        let re =
            Regex::new(&format!("{} *{}", regex::escape(&m[..m.len() - 1]), regex::escape("]"))).unwrap();
        out = re.replace_all(&out, regex::NoExpand(original)).into_owned();
    }
    out
}

fn lines(path: &str) -> Box<dyn Iterator<Item = Value>> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let reader: Box<dyn BufRead> = if path.ends_with(".gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    Box::new(reader.lines().map(|l| serde_json::from_str(&l.unwrap()).unwrap()))
}

#[derive(Default, Debug)]
struct Tally {
    strings: usize,
    answered: usize,
    at_99: usize,
    at_100: usize,
    suggestions: usize,
    lost_a_placeholder: usize,
}

fn ask(base: &str, ph: &Regex, texts: &[String]) -> Tally {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut t = Tally::default();
    for text in texts {
        let (masked, replacements, placeholders) = mask(ph, text);
        let sent: String = masked.chars().take(500).collect::<String>().replace('\r', " ");
        let url = format!("{base}/en/de/unit/{}", quote(&sent));
        let body = agent.get(&url).call().unwrap().into_body().read_to_string().unwrap();
        let answers: Vec<Value> =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{url}: {e}: {body}"));
        let kept: Vec<(i64, String)> = answers
            .iter()
            .map(|a| {
                (a["quality"].as_f64().unwrap() as i64, unmask(a["target"].as_str().unwrap(), &replacements))
            })
            .filter(|(q, _)| *q >= 80)
            .collect();
        t.strings += 1;
        if let Some((best, _)) = kept.first() {
            t.answered += 1;
            t.at_99 += usize::from(*best >= 99);
            t.at_100 += usize::from(*best == 100);
        }
        let mut need: HashMap<&str, usize> = HashMap::new();
        for p in &placeholders {
            *need.entry(p).or_default() += 1;
        }
        for (_, target) in &kept {
            t.suggestions += 1;
            let mut have: HashMap<&str, usize> = HashMap::new();
            for m in ph.find_iter(target) {
                *have.entry(m.as_str()).or_default() += 1;
            }
            if need.iter().any(|(p, n)| have.get(p).copied().unwrap_or(0) < *n) {
                t.lost_a_placeholder += 1;
            }
        }
    }
    t
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    assert!(args.len() >= 2, "usage: weblate BASE_URL MEMORY.jsonl[.gz] [QUERIES.jsonl…]");
    let base = args[0].trim_end_matches('/').to_owned();
    let host = base.split("//").nth(1).unwrap_or("").split(['/', ':']).next().unwrap_or("");
    assert!(host == "127.0.0.1" || host == "localhost" || host == "[::1]", "loopback addresses only: {base}");
    let ph = Regex::new(PLACEHOLDER).unwrap();
    let sources: Vec<String> = lines(&args[1])
        .filter_map(|v| v["source"].as_str().map(str::to_owned))
        .filter(|s| ph.is_match(s) && !s.contains("[X"))
        .collect();
    let step = (sources.len() / 1_000).max(1);
    let exact: Vec<String> = sources.iter().step_by(step).take(1_000).cloned().collect();
    let fuzzy: Vec<String> = args[2..]
        .iter()
        .flat_map(|p| lines(p))
        .filter_map(|v| v["query"].as_str().map(str::to_owned))
        .filter(|q| ph.is_match(q))
        .collect();
    println!("memory sources with placeholders: {}", sources.len());
    println!("memory sources (exact): {:?}", ask(&base, &ph, &exact));
    println!("queries (edited, newer releases): {:?}", ask(&base, &ph, &fuzzy));
}
