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
//! JSON object: each round's seconds and the process's processor seconds meanwhile
//! (Linux: from `/proc/self/stat`; a shared machine stretches the first, hardly the
//! second), the index warmed first, outside the clock, as Python's warm-up lookup does;
//! and each query's best match's source, for the script to check against Python's.

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
    let mut cpu_seconds = Vec::with_capacity(rounds);
    let mut results = Vec::new();
    for _ in 0..rounds.max(1) {
        let (started, cpu) = (Instant::now(), processor_seconds());
        results = memory.lookup_many(&requests, threads);
        seconds.push(started.elapsed().as_secs_f64());
        cpu_seconds.push(processor_seconds().zip(cpu).map(|(after, before)| after - before));
    }
    let mut top = Vec::with_capacity(results.len());
    for r in results {
        top.push(r?.first().map(|m| m.source_text()));
    }
    let out = serde_json::json!({ "seconds": seconds, "cpu_seconds": cpu_seconds, "queries": requests.len(), "top": top });
    println!("{out}");
    Ok(())
}

/// The processor time this process has used (user and system), in seconds: fields 14
/// and 15 of `/proc/self/stat`, in clock ticks of 1/100 s (Linux's `USER_HZ`); `None`
/// where there is no such file.
fn processor_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    // After the name, field 3 is the first: utime (14) and stime (15) are 11 and 12 on.
    Some((ticks(11)? + ticks(12)?) / 100.0)
}
