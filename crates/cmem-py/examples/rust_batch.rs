//! The Rust side of the Python benchmark (`bench/bench.py` runs it): the same memory,
//! the same queries and the same batch call as Python's `Memory.lookup_batch`, timed
//! in Rust, so the Python layer's own cost can be read off.
//!
//! ```sh
//! cargo run --release -p cmem-py --example rust_batch -- MEMORY.jsonl QUERIES.jsonl THREADS ROUNDS
//! ```
//!
//! `MEMORY.jsonl` holds JSON Lines records (`source`, `target`), imported as en → de;
//! `QUERIES.jsonl` one JSON string per line. Runs the batch ROUNDS times and prints one
//! JSON object: each round's seconds (the index warmed first, outside the clock, as
//! Python's warm-up lookup does) and each query's best match's source, for the script
//! to check against Python's.

use std::time::Instant;

use cmem::formats::{Format, Input};
use cmem::{ImportRequest, Locale, LookupRequest, Memory, OpenOptions, QueryText};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [memory_path, queries_path, threads, rounds] = args.as_slice() else {
        return Err("usage: rust_batch MEMORY.jsonl QUERIES.jsonl THREADS ROUNDS".into());
    };
    let (threads, rounds): (usize, usize) = (threads.parse()?, rounds.parse()?);
    let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    let input = Input::open(std::path::Path::new(memory_path), Some(Format::Jsonl))?;
    let request = ImportRequest::new(vec![input]).locales(Some(en.clone()), Some(de.clone()));
    memory.import(request, &mut |_| {})?;
    memory.warm(&en)?;
    let rec = memory.recognizer()?;
    let mut requests = Vec::new();
    for line in std::fs::read_to_string(queries_path)?.lines() {
        let text: String = serde_json::from_str(line)?;
        let runs = cmem::prepare_query(QueryText::Plain(&text), rec)?;
        requests.push(LookupRequest::new(runs, en.clone(), de.clone()));
    }
    let mut seconds = Vec::with_capacity(rounds);
    let mut results = Vec::new();
    for _ in 0..rounds.max(1) {
        let started = Instant::now();
        results = memory.lookup_many(&requests, threads);
        seconds.push(started.elapsed().as_secs_f64());
    }
    let mut top = Vec::with_capacity(results.len());
    for r in results {
        top.push(r?.first().map(|m| m.source_text()));
    }
    println!("{}", serde_json::json!({ "seconds": seconds, "queries": requests.len(), "top": top }));
    Ok(())
}
