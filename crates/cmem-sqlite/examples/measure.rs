//! Measures the SQLite store on a real memory: load rate, size on disk, exact and fuzzy
//! lookup latency (p50/p95/p99) beside an exhaustive scan, and recall of the scan's best
//! match.
//!
//! ```text
//! cargo run --release -p cmem-sqlite --example measure -- \
//!     --corpus en-de.jsonl.gz --queries queries_sample.jsonl queries_versioned.jsonl \
//!     [--exact queries_exact.jsonl] [--n 100000] [--db measure.db] [--max-queries 0] [--keep]
//! ```
//!
//! The corpus is JSON Lines (`{"source","target",...}` per line, gzip when the name ends
//! in `.gz`), stored as `en` → `de` text runs; queries are `{"query": ...}` lines.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::Instant;

use cmem_core::imp::{ExactQuery, KeyKind, Keys};
use cmem_core::index::distance::Pattern;
use cmem_core::{lookup, ContentMemory, Locale, LookupOptions, LookupRequest, NewEntry, Run, Variant};
use cmem_sqlite::SqliteStore;

struct Args {
    corpus: PathBuf,
    queries: Vec<PathBuf>,
    exact: Option<PathBuf>,
    n: usize,
    db: PathBuf,
    max_queries: usize,
    keep: bool,
}

fn args() -> Args {
    let mut a = Args {
        corpus: PathBuf::new(),
        queries: Vec::new(),
        exact: None,
        n: usize::MAX,
        db: std::env::temp_dir().join("cmem-measure.db"),
        max_queries: 0,
        keep: false,
    };
    let mut it = std::env::args().skip(1).peekable();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--corpus" => a.corpus = it.next().expect("--corpus FILE").into(),
            "--exact" => a.exact = Some(it.next().expect("--exact FILE").into()),
            "--n" => a.n = it.next().expect("--n N").parse().expect("--n N"),
            "--db" => a.db = it.next().expect("--db FILE").into(),
            "--max-queries" => a.max_queries = it.next().expect("--max-queries N").parse().expect("a number"),
            "--keep" => a.keep = true,
            "--queries" => {
                while let Some(q) = it.peek() {
                    if q.starts_with("--") {
                        break;
                    }
                    a.queries.push(it.next().expect("a file").into());
                }
            }
            other => panic!("unknown argument {other:?}"),
        }
    }
    assert!(!a.corpus.as_os_str().is_empty(), "--corpus FILE is required");
    a
}

fn lines(path: &PathBuf) -> Box<dyn Iterator<Item = String>> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader: Box<dyn BufRead> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    Box::new(reader.lines().map(Result::unwrap))
}

fn field(line: &str, name: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v.get(name).and_then(|s| s.as_str()).map(str::to_owned)
}

/// CPU seconds this process has used (user + system), from `/proc/self/stat`; 0 where
/// that file does not exist. Wall time on a busy machine overstates the store's cost.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    let Some(rest) = stat.rsplit(')').next() else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the ')'.
    (ticks(11) + ticks(12)) / 100.0
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(name: &str, mut micros: Vec<f64>) {
    micros.sort_by(f64::total_cmp);
    println!(
        "{name:<28} n={:<6} p50 {:>9.1} µs  p95 {:>9.1} µs  p99 {:>9.1} µs  max {:>9.1} µs",
        micros.len(),
        pct(&micros, 0.50),
        pct(&micros, 0.95),
        pct(&micros, 0.99),
        micros.last().copied().unwrap_or(f64::NAN)
    );
}

fn main() {
    let a = args();
    let en = Locale::parse("en").unwrap();
    let de = Locale::parse("de").unwrap();
    let _ = std::fs::remove_file(&a.db);
    let _ = std::fs::remove_file(a.db.with_extension("db-wal"));
    let _ = std::fs::remove_file(a.db.with_extension("db-shm"));

    // Load.
    let t = Instant::now();
    let mut entries: Vec<NewEntry> = Vec::new();
    for line in lines(&a.corpus).take(a.n) {
        let (Some(s), Some(t)) = (field(&line, "source"), field(&line, "target")) else { continue };
        entries.push(NewEntry::pair(
            Variant::new(en.clone(), vec![Run::text(s)]),
            Variant::new(de.clone(), vec![Run::text(t)]),
        ));
    }
    println!("read {} entries in {:.1} s", entries.len(), t.elapsed().as_secs_f64());
    let store = SqliteStore::open(&a.db).unwrap();
    let t = Instant::now();
    let cpu = cpu_seconds();
    let mut inserted = 0;
    for batch in entries.chunks(10_000) {
        inserted += store
            .write(batch)
            .unwrap()
            .iter()
            .filter(|o| matches!(o, cmem_core::WriteOutcome::Inserted(_)))
            .count();
    }
    let load = t.elapsed().as_secs_f64();
    let load_cpu = cpu_seconds() - cpu;
    let stats = store.stats().unwrap();
    println!(
        "loaded {} entries ({} new) in {:.1} s wall, {:.1} s CPU: {:.0} entries/s wall, {:.0}/s CPU; \
         {} entries, {} variants, {:.1} MB on disk",
        entries.len(),
        inserted,
        load,
        load_cpu,
        entries.len() as f64 / load,
        entries.len() as f64 / load_cpu.max(1e-9),
        stats.entries,
        stats.variants,
        stats.size_bytes.unwrap_or(0) as f64 / 1e6
    );
    drop(store);

    // Reopen as a user would, and build the candidate index.
    let t = Instant::now();
    let store = SqliteStore::open(&a.db).unwrap();
    let open = t.elapsed().as_secs_f64();
    let t = Instant::now();
    cmem_core::ContentMemoryExt::warm(&store, &en).unwrap();
    println!("reopened in {:.3} s; candidate index for en built in {:.2} s", open, t.elapsed().as_secs_f64());

    // The exhaustive baseline: every distinct stored source, plain key and structural key
    // (text-only runs: the generalized key equals the structural one, which differs from
    // the plain one only where the text has braces, doubled).
    type Key = (String, usize);
    let mut keys: Vec<(Key, Option<Key>)> = entries
        .iter()
        .map(|e| {
            let k = e.variants[0].keys();
            let n = k.plain.chars().count();
            let s = (k.structural != k.plain).then(|| {
                let m = k.structural.chars().count();
                (k.structural, m)
            });
            ((k.plain, n), s)
        })
        .collect();
    keys.sort();
    keys.dedup();
    drop(entries);

    let opts = LookupOptions::default();
    if let Some(exact) = &a.exact {
        let mut exact_call = Vec::new();
        let mut full = Vec::new();
        let (mut asked, mut hit) = (0, 0);
        for line in lines(exact) {
            let q = field(&line, "query").unwrap();
            let runs = vec![Run::text(q)];
            let k = Keys::of(&runs);
            let t = Instant::now();
            let hits = store
                .exact(&ExactQuery {
                    kind: KeyKind::Structural,
                    key: &k.structural,
                    source: &en,
                    target: &de,
                })
                .unwrap();
            exact_call.push(t.elapsed().as_secs_f64() * 1e6);
            asked += 1;
            // With --n, a query's source may lie beyond the part loaded.
            let in_memory = !hits.is_empty();
            hit += usize::from(in_memory);
            let t = Instant::now();
            let m = lookup(&store, &LookupRequest::new(runs, en.clone(), de.clone()).options(opts.clone()))
                .unwrap();
            full.push(t.elapsed().as_secs_f64() * 1e6);
            assert_eq!(
                m.first().is_some_and(|m| m.match_type.is_exact()),
                in_memory,
                "exact query {:?}",
                k.plain
            );
        }
        println!("-- exact queries: {hit} of {asked} stored");
        report("exact: store.exact()", exact_call);
        report("exact: full lookup", full);
    }

    for qfile in &a.queries {
        let mut qs: Vec<String> = lines(qfile).filter_map(|l| field(&l, "query")).collect();
        if a.max_queries > 0 {
            qs.truncate(a.max_queries);
        }
        let (mut fuzzy, mut scan) = (Vec::new(), Vec::new());
        let (mut with_match, mut found, mut wrong_score) = (0usize, 0usize, 0usize);
        for q in &qs {
            let runs = vec![Run::text(q.clone())];
            let qk = Keys::of(&runs);
            let key = qk.plain.clone();
            // The similarity of the query to a stored source: the best over the kinds.
            let sim_to = |runs: &[Run]| -> f64 {
                let k = Keys::of(runs);
                [(&qk.plain, &k.plain), (&qk.structural, &k.structural)]
                    .iter()
                    .map(|(a, b)| {
                        Pattern::new(a).similarity_at_least(b, b.chars().count(), 0.0).unwrap_or(0.0)
                    })
                    .fold(0.0, f64::max)
            };
            let t = Instant::now();
            let matches =
                lookup(&store, &LookupRequest::new(runs, en.clone(), de.clone()).options(opts.clone()))
                    .unwrap();
            fuzzy.push(t.elapsed().as_secs_f64() * 1e6);

            // Exhaustive scan with the same bit-parallel distance and a rising cut-off.
            let t = Instant::now();
            let plain_pattern = Pattern::new(&key);
            let struct_pattern = (qk.structural != qk.plain).then(|| Pattern::new(&qk.structural));
            let mut best = opts.threshold;
            let mut any = false;
            let mut consider = |s: Option<f64>, best: &mut f64| {
                if let Some(s) = s.filter(|s| *s >= *best) {
                    *best = s;
                    any = true;
                }
            };
            for ((pk, plen), sk) in &keys {
                consider(plain_pattern.similarity_at_least(pk, *plen, best), &mut best);
                // The structural keys, where either side's differs from its plain key.
                let (k, len) = sk.as_ref().map_or((pk, plen), |(k, n)| (k, n));
                match &struct_pattern {
                    Some(p) => consider(p.similarity_at_least(k, *len, best), &mut best),
                    None if sk.is_some() => {
                        consider(plain_pattern.similarity_at_least(k, *len, best), &mut best)
                    }
                    None => {}
                }
            }
            scan.push(t.elapsed().as_secs_f64() * 1e6);
            if !any {
                continue;
            }
            with_match += 1;
            let top = matches.first().map(|m| sim_to(m.source()));
            // Fuzzy scores are capped at 0.99 (docs/matching.md §4): matches above it tie.
            if top.is_some_and(|s| s.min(0.99) + 1e-9 >= best.min(0.99)) {
                found += 1;
            } else if found + 5 > with_match {
                println!(
                    "   missed {q:?}: exhaustive best {best:.4}, lookup's first {:?} ({:?}, score {:?})",
                    top,
                    matches.first().map(|m| m.match_type),
                    matches.first().map(|m| m.score)
                );
            }
            // Every returned fuzzy score is checked against the distances of its keys: never
            // above the best of them; the first match exactly it. (Below the first, a key
            // kind left unscored once the verification budget is spent may score lower.)
            for (i, m) in matches.iter().enumerate() {
                if !m.match_type.is_exact() {
                    let s = sim_to(m.source()).min(0.99);
                    if m.score > s + 1e-9 || (i == 0 && (s - m.score).abs() > 1e-9) {
                        wrong_score += 1;
                    }
                }
            }
        }
        let name = qfile.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        println!(
            "-- {name}: {} queries, {with_match} with an exhaustive match ≥ {}",
            qs.len(),
            opts.threshold
        );
        let p50 = |v: &Vec<f64>| {
            let mut v = v.clone();
            v.sort_by(f64::total_cmp);
            pct(&v, 0.5)
        };
        let speedup = p50(&scan) / p50(&fuzzy);
        report("fuzzy: lookup (sqlite)", fuzzy);
        report("fuzzy: exhaustive scan", scan);
        println!(
            "recall of the exhaustive best: {found}/{with_match} = {:.2} %; p50 speed-up {speedup:.1}×; \
             wrong scores {wrong_score}",
            100.0 * found as f64 / with_match.max(1) as f64
        );
    }
    // Throughput from several threads sharing the one store.
    if let Some(qfile) = a.queries.first() {
        let mut qs: Vec<String> = lines(qfile).filter_map(|l| field(&l, "query")).collect();
        qs.truncate(if a.max_queries > 0 { a.max_queries } else { 1000 });
        for threads in [1usize, 2, 4] {
            let t = Instant::now();
            std::thread::scope(|scope| {
                for k in 0..threads {
                    let (store, qs, en, de, opts) = (&store, &qs, &en, &de, &opts);
                    scope.spawn(move || {
                        for q in qs.iter().skip(k).step_by(threads) {
                            let req = LookupRequest::new(vec![Run::text(q.clone())], en.clone(), de.clone())
                                .options(opts.clone());
                            lookup(store, &req).unwrap();
                        }
                    });
                }
            });
            println!(
                "{threads} thread(s): {} lookups in {:.2} s = {:.0} lookups/s",
                qs.len(),
                t.elapsed().as_secs_f64(),
                qs.len() as f64 / t.elapsed().as_secs_f64()
            );
        }
    }
    drop(store);
    if !a.keep {
        let _ = std::fs::remove_file(&a.db);
        let _ = std::fs::remove_file(a.db.with_extension("db-wal"));
        let _ = std::fs::remove_file(a.db.with_extension("db-shm"));
    }
}
