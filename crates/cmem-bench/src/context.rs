//! `--context`: do the context's examples hold the words a translator shipped? On the
//! versioned queries with the translation their project shipped, for k = 5, the share of
//! the shipped translation's words found in the examples' targets (and with the glossary),
//! against the targets of the ordinary lookup's top 5 at threshold 50 and of FTS5 BM25's
//! top 5 over the memory's sources; and the latency of the context call.
//!
//! A word is [`cmem_core::align::words`]'s, in lower case ([`fold`]); the share of a query
//! is the shipped translation's distinct words found in the texts over all of them, and
//! the figure is the mean over the queries.

use cmem_core::ContentMemoryExt;
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use cmem_core::align::{fold, words};
use cmem_core::lookup::producer::{context_for, ContextOptions, ContextRequest};
use cmem_core::{
    lookup, prepare_query, ContentMemory, EntryId, Locale, LookupOptions, LookupRequest, MemStore, QueryText,
    Recognizer, WordQuery,
};
use cmem_sqlite::{SqliteOptions, SqliteStore};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    query: String,
    reference_target: String,
}

/// The distinct folded words of `text`.
fn word_set(text: &str) -> HashSet<String> {
    words(text).into_iter().map(|(a, b)| fold(&text[a..b])).collect()
}

/// The share of `wanted` found in the words of `texts`.
fn share<'t>(wanted: &HashSet<String>, texts: impl IntoIterator<Item = &'t str>) -> f64 {
    let mut have = HashSet::new();
    for t in texts {
        have.extend(word_set(t));
    }
    wanted.iter().filter(|w| have.contains(*w)).count() as f64 / wanted.len() as f64
}

/// The entry ids of BM25's top `k` over the sources in `from`: FTS5's `bm25()` over the
/// search table the SQLite store keeps, the query's words OR-ed (an AND of every word
/// finds nothing for most segments).
fn bm25_top(conn: &rusqlite::Connection, text: &str, from: &Locale, k: usize) -> Result<Vec<EntryId>> {
    let terms: Vec<String> =
        word_set(text).into_iter().map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT v.entry_id FROM tm_variant_search JOIN tm_variants v ON v.id = tm_variant_search.rowid \
         WHERE tm_variant_search MATCH ?1 AND (v.locale = ?2 OR v.locale LIKE ?2 || '-%') ORDER BY rank LIMIT ?3",
    )?;
    let ids = stmt
        .query_map(rusqlite::params![terms.join(" OR "), from.as_str(), k as i64], |r| r.get::<_, i64>(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids.into_iter().map(EntryId).collect())
}

/// The process's resident set in bytes (Linux), for what the first call builds.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The figures of one store.
#[derive(Default)]
struct Tally {
    lookup: f64,
    bm25: f64,
    examples: f64,
    with_glossary: f64,
    glossary_pairs: usize,
    example_count: usize,
    lookup_count: usize,
    /// References measured.
    count: usize,
    /// The context call's times, in a pass of their own after the word index was built.
    times: Vec<Duration>,
    lookup_times: Vec<Duration>,
    /// The context call's times among the other measurements (after the BM25 query), the
    /// first left out.
    interleaved_times: Vec<Duration>,
    /// The context's own lookup (default options) alone.
    own_lookup_times: Vec<Duration>,
    /// The word search alone (the query's distinct words, default counts).
    word_times: Vec<Duration>,
    bm25_times: Vec<Duration>,
}

/// Runs `--context` on the SQLite memory `db` (imported, with the word model `cmem align`
/// trained) and, with `in_memory`, on the same entries copied into the memory store.
///
/// # Errors
/// Unreadable files, a memory without entries of the pair, a store failure.
pub fn run(
    db: &Path,
    references: &Path,
    (from, to): (&str, &str),
    limit: Option<usize>,
    in_memory: bool,
    options: ContextOptions,
) -> Result<()> {
    let (from, to) = (Locale::parse(from)?, Locale::parse(to)?);
    let refs: Vec<Reference> = crate::corpus::read_jsonl(references)?;
    let refs: Vec<Reference> = refs.into_iter().take(limit.unwrap_or(usize::MAX)).collect();
    if refs.is_empty() {
        bail!("{}: no references", references.display());
    }
    let sqlite = SqliteStore::open_with(db, SqliteOptions::default().read_only(true))
        .with_context(|| format!("opening {}", db.display()))?;
    let started = Instant::now();
    sqlite.warm(&from)?;
    eprintln!("cmem-bench: {} opened and warmed in {:.1?}", db.display(), started.elapsed());
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    // BM25's hits are read by id from the SQLite memory, whichever store is measured (the
    // memory store numbers its copies anew).
    let by_id = SqliteStore::open_with(db, SqliteOptions::default().read_only(true).build_index(false))?;
    let rec = Recognizer::default();
    let model = sqlite.word_model(&from, &to)?;
    eprintln!("cmem-bench: word model {}", if model.is_some() { "present" } else { "absent: no glossary" });

    let mut stores: Vec<(&str, Box<dyn ContentMemory>)> = Vec::new();
    if in_memory {
        let started = Instant::now();
        let mem = MemStore::new();
        let mut after = None;
        loop {
            let page = sqlite.entries(after, 10_000)?;
            let Some(last) = page.last() else { break };
            after = Some(last.id);
            let new: Vec<cmem_core::NewEntry> = page
                .into_iter()
                .map(|e| cmem_core::NewEntry {
                    variants: e.variants,
                    point: e.point,
                    unit: e.unit,
                    project_id: e.project_id,
                    origins: e.origins,
                    metadata: e.metadata,
                    approvals: e.approvals,
                })
                .collect();
            mem.write(&new)?;
        }
        if let Some(m) = &model {
            mem.save_word_model(&from, &to, std::sync::Arc::clone(m))?;
        }
        mem.warm(&from)?;
        eprintln!("cmem-bench: memory store filled in {:.1?}", started.elapsed());
        stores.push(("memory", Box::new(mem)));
    }
    stores.push(("sqlite", Box::new(sqlite)));

    let options = options.short_circuit_exact(false);
    for (name, store) in &stores {
        let mut t = Tally::default();
        let mut first = true;
        let mut timed: Vec<(LookupRequest, ContextRequest)> = Vec::new();
        for r in &refs {
            let wanted = word_set(&r.reference_target);
            if wanted.is_empty() {
                continue;
            }
            let runs = prepare_query(QueryText::Plain(&r.query), Some(&rec))?;
            let req = LookupRequest::new(runs, from.clone(), to.clone());
            // (a) The ordinary lookup's top 5 at threshold 50.
            let started = Instant::now();
            let top = lookup(
                store.as_ref(),
                &req.clone().options(LookupOptions::default().threshold(0.5).limit(5)),
            )?;
            t.lookup_times.push(started.elapsed());
            t.lookup_count += top.len();
            t.lookup += share(
                &wanted,
                top.iter().map(|m| m.target_text()).collect::<Vec<_>>().iter().map(String::as_str),
            );
            // (b) BM25's top 5 over the sources.
            let mut bm = Vec::new();
            let started = Instant::now();
            let top_ids = bm25_top(&conn, &r.query, &from, 5)?;
            t.bm25_times.push(started.elapsed());
            for id in top_ids {
                if let Some(v) =
                    by_id.get(id)?.and_then(|e| e.variant(&to).map(|v| cmem_core::align::text_of(&v.runs)))
                {
                    bm.push(v);
                }
            }
            t.bm25 += share(&wanted, bm.iter().map(String::as_str));
            // The context, timed.
            let creq = ContextRequest::new(req.clone()).options(options.clone());
            let before = resident_bytes();
            let started = Instant::now();
            let c = context_for(store.as_ref(), &creq)?;
            if !first {
                t.interleaved_times.push(started.elapsed());
            }
            if std::mem::take(&mut first) {
                // The first call builds the word index: its time and what it holds.
                let grew = resident_bytes().zip(before).map_or(0, |(a, b)| a.saturating_sub(b));
                eprintln!(
                    "cmem-bench: {name}: first context call {:.1?}, resident set +{:.1} MB",
                    started.elapsed(),
                    grew as f64 / 1e6
                );
            }
            timed.push((req, creq));
            t.count += 1;
            t.example_count += c.examples.len();
            t.examples += share(&wanted, c.examples.iter().map(|e| e.target.as_str()));
            t.glossary_pairs += c.glossary.len();
            t.with_glossary += share(
                &wanted,
                c.examples
                    .iter()
                    .map(|e| e.target.as_str())
                    .chain(c.glossary.iter().map(|g| g.target.as_str())),
            );
        }
        // Timed apart, back to back as a producer calls it: the context; then its own
        // lookup alone; then the word search alone.
        for (_, creq) in &timed {
            let started = Instant::now();
            context_for(store.as_ref(), creq)?;
            t.times.push(started.elapsed());
        }
        for (req, _) in &timed {
            let started = Instant::now();
            lookup(store.as_ref(), req)?;
            t.own_lookup_times.push(started.elapsed());
        }
        for (req, _) in &timed {
            let text = cmem_core::align::text_of(&req.source);
            let mut distinct: Vec<String> = Vec::new();
            for (a, b) in words(&text) {
                let w = fold(&text[a..b]);
                if !distinct.contains(&w) {
                    distinct.push(w);
                }
            }
            let wq = WordQuery {
                words: &distinct,
                source: &from,
                target: &to,
                best: options.any_hits,
                covered: Vec::new(),
                alone: options.searches,
                alone_hits: options.search_hits,
            };
            let started = Instant::now();
            store.word_search(&wq)?;
            t.word_times.push(started.elapsed());
        }
        let n = t.count as f64;
        t.times.sort_unstable();
        t.lookup_times.sort_unstable();
        t.own_lookup_times.sort_unstable();
        t.interleaved_times.sort_unstable();
        t.word_times.sort_unstable();
        t.bm25_times.sort_unstable();
        let pct = |x: f64| 100.0 * x / n;
        println!("store {name}: {} versioned references, k = 5", t.count);
        println!(
            "  shipped words in the lookup's top 5 (threshold 50):   {:5.1} %  ({:.1} matches a segment)",
            pct(t.lookup),
            t.lookup_count as f64 / n
        );
        println!("  shipped words in FTS5 BM25's top 5:                   {:5.1} %", pct(t.bm25));
        println!(
            "  shipped words in the examples:                        {:5.1} %  ({:.2}× BM25, {:.2}× lookup; {:.1} a segment)",
            pct(t.examples),
            t.examples / t.bm25,
            t.examples / t.lookup,
            t.example_count as f64 / n
        );
        println!(
            "  shipped words in examples + glossary (≤ 10 pairs):    {:5.1} %  ({:.2}× BM25; {:.1} pairs a segment)",
            pct(t.with_glossary),
            t.with_glossary / t.bm25,
            t.glossary_pairs as f64 / n
        );
        println!(
            "  context call (back to back): p50 {:.2?}, p95 {:.2?}, p99 {:.2?}",
            percentile(&t.times, 50.0),
            percentile(&t.times, 95.0),
            percentile(&t.times, 99.0)
        );
        println!(
            "  context call (after the BM25 query of its segment): p50 {:.2?}, p95 {:.2?}",
            percentile(&t.interleaved_times, 50.0),
            percentile(&t.interleaved_times, 95.0)
        );
        println!(
            "  beside it: the lookup at threshold 50, p50 {:.2?}; the BM25 query alone, p50 {:.2?}",
            percentile(&t.lookup_times, 50.0),
            percentile(&t.bm25_times, 50.0)
        );
        println!(
            "  inside it (back to back): its own lookup alone, p50 {:.2?}; the word search alone, p50 {:.2?}, p95 {:.2?}",
            percentile(&t.own_lookup_times, 50.0),
            percentile(&t.word_times, 50.0),
            percentile(&t.word_times, 95.0)
        );
    }
    Ok(())
}
