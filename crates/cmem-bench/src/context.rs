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
    Recognizer,
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
    times: Vec<Duration>,
    lookup_times: Vec<Duration>,
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
            let creq = ContextRequest::new(req).options(options.clone());
            let started = Instant::now();
            let c = context_for(store.as_ref(), &creq)?;
            t.times.push(started.elapsed());
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
        let n = t.times.len() as f64;
        t.times.sort_unstable();
        t.lookup_times.sort_unstable();
        t.bm25_times.sort_unstable();
        let pct = |x: f64| 100.0 * x / n;
        println!("store {name}: {} versioned references, k = 5", t.times.len());
        println!("  shipped words in the lookup's top 5 (threshold 50):   {:5.1} %", pct(t.lookup));
        println!("  shipped words in FTS5 BM25's top 5:                   {:5.1} %", pct(t.bm25));
        println!(
            "  shipped words in the examples:                        {:5.1} %  ({:.2}× BM25, {:.2}× lookup)",
            pct(t.examples),
            t.examples / t.bm25,
            t.examples / t.lookup
        );
        println!(
            "  shipped words in examples + glossary (≤ 10 pairs):    {:5.1} %  ({:.2}× BM25; {:.1} pairs a segment)",
            pct(t.with_glossary),
            t.with_glossary / t.bm25,
            t.glossary_pairs as f64 / n
        );
        println!(
            "  context call: p50 {:.2?}, p95 {:.2?}, p99 {:.2?}",
            percentile(&t.times, 50.0),
            percentile(&t.times, 95.0),
            percentile(&t.times, 99.0)
        );
        println!(
            "  beside it: the lookup at threshold 50, p50 {:.2?}; the BM25 query alone, p50 {:.2?}",
            percentile(&t.lookup_times, 50.0),
            percentile(&t.bm25_times, 50.0)
        );
    }
    Ok(())
}
