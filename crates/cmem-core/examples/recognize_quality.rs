//! Does inline-code recognition pay? Loads the first lines of a real memory into two
//! `MemStore`s — plain text runs, and runs from `Recognizer::recognize_pair` — looks up
//! real queries that have a human reference translation, and counts how often the best
//! match's adapted target, rendered back to a string, equals the reference.
//!
//! ```text
//! cargo run --release -p cmem-core --example recognize_quality -- BENCH_DIR [--lines N] [--examples K] [--speed]
//! ```
//!
//! `BENCH_DIR` holds `en-de.jsonl.gz` (`{"source","target",…}` per line),
//! `queries_versioned.jsonl` (`{"query",…}`) and `versioned_references.jsonl`
//! (`{"line","reference_target"}`, `line` = 1-based line of the query). `N` defaults to
//! 50,000. It also reports the recognizer's speed on those lines. `--examples K` prints
//! up to K queries where the two stores' answers differ in correctness; `--speed` stops
//! after measuring the recognizer.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use cmem_core::recognize::Recognizer;
use cmem_core::{
    lookup, ContentMemory, Locale, LookupOptions, LookupRequest, MemStore, NewEntry, Run, Variant,
};

/// Text and every code's native data, concatenated: the string a file would hold.
fn render(runs: &[Run]) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text(t) => out.push_str(t),
            Run::Plural(c) | Run::Select(c) => {
                if let Some(form) = c.default_form() {
                    out.push_str(&render(form));
                }
            }
            other => {
                if let Some(code) = other.code() {
                    out.push_str(&code.data);
                }
            }
        }
    }
    out
}

/// The sorted texts of the codes the recognizer finds in `text`.
fn code_texts(rec: &Recognizer, text: &str) -> Vec<String> {
    let mut v: Vec<String> =
        rec.recognize(text).iter().filter_map(|r| r.code().map(|c| c.data.clone())).collect();
    v.sort();
    v
}

fn read_jsonl(path: &Path) -> Result<Vec<serde_json::Value>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        out.push(serde_json::from_str(&line).with_context(|| format!("{}: line {}", path.display(), i + 1))?);
    }
    Ok(out)
}

fn read_memory(path: &Path, limit: usize) -> Result<Vec<(String, String)>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let reader = BufReader::new(flate2::read::GzDecoder::new(file));
    let mut out = Vec::with_capacity(limit);
    for (i, line) in reader.lines().take(limit).enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        let v: serde_json::Value =
            serde_json::from_str(&line).with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        let (Some(s), Some(t)) = (v["source"].as_str(), v["target"].as_str()) else {
            bail!("{}: line {}: no source or target", path.display(), i + 1);
        };
        out.push((s.to_string(), t.to_string()));
    }
    Ok(out)
}

#[derive(Default, Clone, Copy)]
struct Band {
    queries: usize,
    equal: usize,
    codes_ok: usize,
}

struct Arm {
    name: &'static str,
    store: MemStore,
    high: Band,
    mid: Band,
    none: usize,
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut dir: Option<PathBuf> = None;
    let mut lines = 50_000usize;
    let mut examples = 0usize;
    let mut speed_only = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--lines" => lines = args.next().context("--lines needs a number")?.parse().context("--lines")?,
            "--speed" => speed_only = true,
            "--examples" => {
                examples = args.next().context("--examples needs a number")?.parse().context("--examples")?
            }
            _ if dir.is_none() => dir = Some(PathBuf::from(a)),
            _ => bail!("unexpected argument {a:?}"),
        }
    }
    let dir = dir.context("usage: recognize_quality BENCH_DIR [--lines N]")?;
    let rec = Recognizer::default();
    let en = Locale::parse("en")?;
    let de = Locale::parse("de")?;

    let memory = read_memory(&dir.join("en-de.jsonl.gz"), lines)?;
    let bytes: usize = memory.iter().map(|(s, t)| s.len() + t.len()).sum();

    // Recognition speed, and the share of entries it finds codes in.
    let t0 = Instant::now();
    let recognized: Vec<(Vec<Run>, Vec<Run>)> =
        memory.iter().map(|(s, t)| rec.recognize_pair(s, t)).collect();
    let secs = t0.elapsed().as_secs_f64();
    let with_codes = recognized.iter().filter(|(s, _)| s.iter().any(|r| r.code().is_some())).count();
    for ((s, t), (rs, rt)) in memory.iter().zip(&recognized) {
        if render(rs) != *s || render(rt) != *t {
            bail!("recognition does not round-trip {s:?} / {t:?}");
        }
    }
    println!(
        "recognized {} pairs ({:.1} MB) in {:.3} s: {:.0} pairs/s, {:.1} MB/s; {:.1} % of sources hold codes",
        memory.len(),
        bytes as f64 / 1e6,
        secs,
        memory.len() as f64 / secs,
        bytes as f64 / 1e6 / secs,
        100.0 * with_codes as f64 / memory.len().max(1) as f64
    );

    if speed_only {
        return Ok(());
    }
    let mut arms = [
        Arm {
            name: "plain text",
            store: MemStore::new(),
            high: Band::default(),
            mid: Band::default(),
            none: 0,
        },
        Arm {
            name: "recognized",
            store: MemStore::new(),
            high: Band::default(),
            mid: Band::default(),
            none: 0,
        },
    ];
    let plain: Vec<NewEntry> = memory
        .iter()
        .map(|(s, t)| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(s)]),
                Variant::new(de.clone(), vec![Run::text(t)]),
            )
        })
        .collect();
    let coded: Vec<NewEntry> = recognized
        .into_iter()
        .map(|(s, t)| NewEntry::pair(Variant::new(en.clone(), s), Variant::new(de.clone(), t)))
        .collect();
    for chunk in plain.chunks(5_000) {
        arms[0].store.write(chunk)?;
    }
    for chunk in coded.chunks(5_000) {
        arms[1].store.write(chunk)?;
    }

    let queries = read_jsonl(&dir.join("queries_versioned.jsonl"))?;
    let refs = read_jsonl(&dir.join("versioned_references.jsonl"))?;
    let mut reference: HashMap<usize, String> = HashMap::new();
    for r in &refs {
        if let (Some(line), Some(t)) = (r["line"].as_u64(), r["reference_target"].as_str()) {
            reference.insert(line as usize, t.to_string());
        }
    }
    let mut asked = 0;
    let t0 = Instant::now();
    for (i, q) in queries.iter().enumerate() {
        let (Some(query), Some(want)) = (q["query"].as_str(), reference.get(&(i + 1))) else { continue };
        asked += 1;
        let want_codes = code_texts(&rec, query);
        let mut answers: Vec<(String, f64, bool)> = Vec::new();
        for (k, arm) in arms.iter_mut().enumerate() {
            let runs = if k == 0 { vec![Run::text(query)] } else { rec.recognize(query) };
            let req = LookupRequest::new(runs, en.clone(), de.clone())
                .options(LookupOptions::default().threshold(0.85).limit(1));
            let matches = lookup(&arm.store, &req)?;
            let Some(best) = matches.first() else {
                arm.none += 1;
                answers.push((String::new(), 0.0, false));
                continue;
            };
            let got = render(&best.adapted_target);
            answers.push((got.clone(), best.score, got == *want));
            let band = if best.score >= 0.95 { &mut arm.high } else { &mut arm.mid };
            band.queries += 1;
            band.equal += usize::from(got == *want);
            band.codes_ok += usize::from(code_texts(&rec, &got) == want_codes);
        }
        if examples > 0 && answers[0].2 != answers[1].2 {
            examples -= 1;
            println!("query     {query:?}\nreference {want:?}");
            for (arm, (got, score, ok)) in arms.iter().zip(&answers) {
                println!("{:<10}{score:.3} {} {got:?}", arm.name, if *ok { "=" } else { "≠" });
            }
            println!();
        }
    }
    println!(
        "{} memory entries, {asked} versioned queries with a reference, looked up in {:.1} s",
        memory.len(),
        t0.elapsed().as_secs_f64()
    );
    println!();
    println!("| store | band | best matches | adapted target = reference | target has the query's codes |");
    println!("|---|---|---:|---:|---:|");
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    for arm in &arms {
        for (label, b) in [("≥ 0.95", arm.high), ("0.85–0.95", arm.mid)] {
            println!(
                "| {} | {label} | {} | {} ({:.1} %) | {} ({:.1} %) |",
                arm.name,
                b.queries,
                b.equal,
                pct(b.equal, b.queries),
                b.codes_ok,
                pct(b.codes_ok, b.queries)
            );
        }
        println!("| {} | < 0.85 | {} | | |", arm.name, arm.none);
    }
    Ok(())
}
