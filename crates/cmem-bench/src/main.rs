//! The cmem benchmark program.
//!
//! Loads a real memory (JSON Lines, gzip or not), builds the chosen store, runs query
//! files through `lookup` and, in the same run, through an exhaustive scan that scores
//! every entry with the fast Levenshtein; prints latency percentiles, candidates scored,
//! how the lists compare with the exhaustive ones (recall@1, recall@5, whole lists, ties
//! at the top), build time and peak memory, as a table or as one JSON object. Every
//! answer is checked: a returned score that disagrees with the recomputed similarity
//! fails the run. With `--store sqlite --compare-paths`, it also runs the queries through
//! the memory opened as a one-shot `cmem lookup` opens it (the persisted candidate index
//! read in place) and counts the lists that differ from the in-process index's. With `--store postgres`, it imports
//! into a fresh database (on the server `--pg-url` or `CMEM_PG_URL` names, else on a
//! throwaway cluster it starts and removes), lets it settle as a running server's would
//! (`VACUUM (ANALYZE)`, `CHECKPOINT`, untimed) and, after the usual passes, runs some of
//! the queries again with the candidates taken from the database rather than the
//! in-process index (`PgOptions::gram_index(false)`).
//!
//! With `--also-memory` it loads memories of other language pairs beside `--memory` (their
//! entries share the source index but answer no lookup into `--to`), and with
//! `--synthesize N` it adds copies of every entry with one word-level edit each until the
//! memory holds N entries (the million-entry benchmark); `--write-corpus` writes that
//! memory as JSON Lines for `cmem import` instead of measuring, and `--imported --db FILE`
//! measures the database `cmem import` made of that file (its index file mapped, as a
//! server's is) instead of writing the memory into a new one. Beside build time, size on
//! disk (every file of the database) and peak memory, it reports the resident memory
//! before the build, after it and after the lookups.
//!
//! ```text
//! cargo run --release -p cmem-bench -- --memory en-de.jsonl.gz --entries 100000 \
//!     --queries queries_sample.jsonl queries_versioned.jsonl [--store memory] [--json]
//! cargo run --release -p cmem-bench -- --memory en-de.jsonl.gz --store sqlite \
//!     --queries queries_versioned.jsonl --compare-paths [--compare-queries 500]
//! cargo run --release -p cmem-bench -- --memory en-de.jsonl.gz --store postgres \
//!     --queries queries_sample.jsonl queries_versioned.jsonl [--pg-url postgres://…] \
//!     [--db-side-queries 200]
//! cargo run --release -p cmem-bench -- --memory en-de.jsonl.gz --also-memory fr=en-fr.jsonl.gz \
//!     --synthesize 1000000 --queries queries_sample.jsonl queries_versioned.jsonl \
//!     [--store sqlite] [--write-corpus million.jsonl.gz]
//! cargo run --release -p cmem-bench -- --quality --memory en-de.jsonl.gz \
//!     --queries queries_versioned.jsonl --references versioned_references.jsonl \
//!     [--word-model en-de.model.json] [--placement-samples 20]
//! cargo run --release -p cmem-bench -- --context --memory en-de.jsonl.gz --db en-de.db \
//!     --references versioned_references.jsonl [--context-memory-store]
//! cargo run --release -p cmem-bench -- --leverage --memory en-de.jsonl.gz --db en-de.db \
//!     --references versioned_references.jsonl
//! ```

use cmem_core::ContentMemoryExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Parser;
use cmem_core::imp::Keys;
use cmem_core::index::distance::Pattern;
use cmem_core::{
    lookup, ContentMemory, Locale, LookupOptions, LookupRequest, MatchType, MemStore, NewEntry, Run, Variant,
};
use serde::Serialize;

mod context;
mod corpus;
mod counting;
mod leverage;
mod lists;
mod pg;
mod quality;
mod synth;

/// Measure lookup latency and recall on a real memory.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// The memory: JSON Lines with `source` and `target` per line (gzip or not).
    #[arg(long)]
    memory: PathBuf,
    /// Keep the first N distinct sources (of each memory file).
    #[arg(long)]
    entries: Option<usize>,
    /// Another memory from `--from` into another target locale, as `LOCALE=PATH`
    /// (`fr=en-fr.jsonl.gz`): its entries share the source index with `--memory`'s, as in
    /// a multilingual memory, but answer no lookup into `--to`.
    #[arg(long, num_args = 1..)]
    also_memory: Vec<String>,
    /// Add copies of the entries, each with one word-level edit, until the memory holds
    /// N entries (the million-entry benchmark: `--synthesize 1000000`).
    #[arg(long)]
    synthesize: Option<usize>,
    /// Write the memory (after `--synthesize`) to this JSON Lines file (gzip if it ends
    /// in `.gz`), with the locales of each line, for `cmem import`; then stop.
    #[arg(long)]
    write_corpus: Option<PathBuf>,
    /// Query files: JSON Lines with `query` per line.
    #[arg(long, num_args = 1.., required_unless_present_any = ["write_corpus", "context"])]
    queries: Vec<PathBuf>,
    /// Exact-hit query files, measured separately (latency of a limit-1 lookup).
    #[arg(long, num_args = 1..)]
    exact_queries: Vec<PathBuf>,
    /// The store to measure: `memory`, `sqlite` or `postgres`.
    #[arg(long, default_value = "memory")]
    store: String,
    /// With `--store postgres`: the server, where the benchmark creates a database and
    /// drops it at the end (default: `CMEM_PG_URL`, else a throwaway cluster started
    /// with the server programs installed here); with `--imported`, the database to
    /// measure.
    #[arg(long)]
    pg_url: Option<String>,
    /// With `--store postgres`: how stale the in-process index may be about other
    /// processes' writes, in milliseconds (`PgOptions::freshness`; default 0: the change
    /// counter is read on every store call).
    #[arg(long, default_value_t = 0)]
    pg_freshness_ms: u64,
    /// With `--store postgres`: run about N queries, evenly spaced, a second time with
    /// database-side candidates (`gram_index(false)`; each reads the whole length window
    /// from the database, so far slower than the index).
    #[arg(long, default_value_t = 200)]
    db_side_queries: usize,
    /// With `--store postgres`: also run those queries through Weblate's recipe (the 50
    /// nearest sources by `pg_trgm` distance from a GiST index, rescored in Rust).
    #[arg(long)]
    knn: bool,
    /// With `--store sqlite`: the database file (created anew; default: a temporary
    /// file, removed at the end).
    #[arg(long)]
    db: Option<PathBuf>,
    /// With `--db` (SQLite) or `--pg-url` naming a database (PostgreSQL): measure the
    /// database as it is, as `cmem import` made it from the `--write-corpus` file of the
    /// same memory options, instead of writing the memory into a new one (SQLite's index
    /// file is mapped, PostgreSQL's in-process index built, as a server's are; nothing is
    /// removed or dropped). The memory is still loaded: the exhaustive reference scores it.
    #[arg(long)]
    imported: bool,
    /// With `--imported`: open the database as `cmem serve --pairs FROM-TO` does, its
    /// candidate index holding only the keys of the `--from`/`--to` pair (a memory of
    /// several pairs looked up in one, beside that pair's memory alone).
    #[arg(long, requires = "imported")]
    served_pair: bool,
    /// Lookup threshold, 0–1.
    #[arg(long, default_value_t = 0.70)]
    threshold: f64,
    /// Matches per lookup.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Source locale of the memory.
    #[arg(long, default_value = "en")]
    from: String,
    /// Target locale of the memory.
    #[arg(long, default_value = "de")]
    to: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Print one line per query on stderr: latency, candidates, best scores.
    #[arg(long)]
    verbose: bool,
    /// Override `LookupOptions::verify_budget`.
    #[arg(long)]
    verify_budget: Option<usize>,
    /// Override `LookupOptions::max_candidates`.
    #[arg(long)]
    max_candidates: Option<usize>,
    /// Override `LookupOptions::scan_limit`.
    #[arg(long)]
    scan_limit: Option<usize>,
    /// Exact in every position: no budget, no candidate or scan limit.
    #[arg(long)]
    exhaustive_lookup: bool,
    /// Instead of latency: does inline-code recognition pay? Compares adapted targets
    /// with the translations the projects shipped (`--references`), recognition on and
    /// off; `--queries` is the versioned query file.
    #[arg(long, requires = "references")]
    quality: bool,
    /// Instead of latency: the context for translation producers. Do its examples hold the
    /// words a translator shipped, against the lookup's and BM25's top 5? Needs `--db` (a
    /// SQLite memory `cmem import` made, with `cmem align`'s word model) and `--references`.
    #[arg(long, requires_all = ["references", "db"])]
    context: bool,
    /// Instead of latency: what a memory `cmem import` made gives on the versioned
    /// references: the best match's adapted target against the shipped translation per
    /// score band, without the word repair and as looked up. Needs `--db` and `--references`.
    #[arg(long, requires_all = ["references", "db"])]
    leverage: bool,
    /// With `--context`: the first N references only.
    #[arg(long)]
    context_queries: Option<usize>,
    /// With `--context`: also measure the memory store, filled with the database's entries.
    #[arg(long)]
    context_memory_store: bool,
    /// With `--context`: the threshold (0–1) of the fuzzy lookup offering candidates
    /// (`ContextOptions::pool_threshold`).
    #[arg(long)]
    context_pool_threshold: Option<f64>,
    /// With `--context`: how many uncovered words get a search of their own
    /// (`ContextOptions::searches`).
    #[arg(long)]
    context_searches: Option<usize>,
    /// With `--context`: how many fuzzy matches at the pool threshold are offered as
    /// candidates (`ContextOptions::pool_limit`; 0: no such lookup).
    #[arg(long)]
    context_pool_limit: Option<usize>,
    /// With `--context`: how many texts the word search for any of the words offers
    /// (`ContextOptions::any_hits`).
    #[arg(long)]
    context_any_hits: Option<usize>,
    /// With `--context`: how many texts each uncovered word's search offers
    /// (`ContextOptions::search_hits`).
    #[arg(long)]
    context_search_hits: Option<usize>,
    /// With `--quality` or `--context`: `versioned_references.jsonl` (`{"line","reference_target"}`).
    #[arg(long)]
    references: Option<PathBuf>,
    /// With `--quality`: print up to K queries where the two stores differ in correctness.
    #[arg(long, default_value_t = 0)]
    examples: usize,
    /// With `--quality`: print up to K best matches of the recognized store, at ≥ 0.95 or
    /// with a source that differs from the query only in punctuation or white space, whose
    /// adapted target is not the shipped one (query, stored source and target, adapted,
    /// shipped, repairs).
    #[arg(long, default_value_t = 0)]
    misses: usize,
    /// With `--quality`: the word model of the recognized memory, read from this file
    /// when it exists, else trained (timed) and written there, so a second run does not
    /// train again.
    #[arg(long)]
    word_model: Option<PathBuf>,
    /// With `--quality`: print up to K word repairs that moved the target farther from
    /// the shipped translation.
    #[arg(long, default_value_t = 0)]
    word_misses: usize,
    /// With `--quality`: print up to K best matches at 0.70–0.95 whose repaired target is
    /// not the shipped translation, with every repair tried (applied or not).
    #[arg(long, default_value_t = 0)]
    word_samples: usize,
    /// With `--quality`: print up to K best matches whose adapted target the code
    /// placement changed (the rule's target, the placed one, the shipped translation),
    /// those placed farther from the shipped translation first.
    #[arg(long, default_value_t = 0)]
    placement_samples: usize,
    /// With `--store sqlite`: also run the queries through the memory opened as a one-shot
    /// `cmem lookup` opens it (the persisted index, never built) and count the lists that
    /// differ from the in-process index's.
    #[arg(long)]
    compare_paths: bool,
    /// With `--compare-paths`: compare about N queries, evenly spaced (default: all).
    #[arg(long)]
    compare_queries: Option<usize>,
}

#[derive(Serialize, Debug)]
struct Report {
    store: String,
    entries: usize,
    /// Entries from `--from` into `--to`: those a lookup may return.
    answering_entries: usize,
    queries: usize,
    threshold: f64,
    p50_us: f64,
    p95_us: f64,
    p99_us: f64,
    /// The same percentiles of the processor time each lookup took on its thread
    /// (`/proc/thread-self/schedstat`; absent elsewhere): unlike the wall clock, not
    /// lengthened while the lookup waits for a processor (a virtual machine's still
    /// counts time its host gave to others).
    cpu_p50_us: Option<f64>,
    cpu_p95_us: Option<f64>,
    cpu_p99_us: Option<f64>,
    exhaustive_p50_us: f64,
    exhaustive_p95_us: f64,
    exhaustive_p99_us: f64,
    speedup_p50: f64,
    recall_at_1: f64,
    misses: usize,
    /// Share of queries whose first five scores equal the exhaustive first five.
    recall_at_5: f64,
    /// Share of queries whose whole list of scores equals the exhaustive list.
    lists_exact: f64,
    /// Share of queries returning every entry tied with the best, up to the limit, when
    /// they return the best (a missed best counts against `recall_at_1` only).
    ties_complete: f64,
    candidates_mean: f64,
    exact_queries: usize,
    exact_p50_us: Option<f64>,
    build_s: f64,
    import_rate_per_s: f64,
    /// With `--store postgres`: seconds the database took to settle after the build,
    /// outside the clock (see `pg::BenchDb::settle`).
    settle_s: Option<f64>,
    /// With `--imported`: seconds the store took to open the database and ready its
    /// candidate index (`warm`), as a server does before it answers.
    warm_s: Option<f64>,
    /// The first lookup's latency (it may load or build the candidate index).
    first_lookup_ms: f64,
    /// SQLite: every file named after the database (WAL and index files included),
    /// after the lookups; other stores: what their statistics report.
    size_bytes: Option<u64>,
    /// Resident memory once the corpus and queries are loaded, before the store.
    rss_before_build_mb: f64,
    /// Resident memory right after the build (before the exhaustive reference).
    rss_after_build_mb: f64,
    /// What the exhaustive reference's keys added to the resident memory.
    rss_reference_mb: f64,
    /// Resident memory after every pass.
    rss_after_lookups_mb: f64,
    peak_rss_mb: f64,
    /// With `--compare-paths`: queries run through both candidate paths.
    paths_compared: Option<usize>,
    /// With `--compare-paths`: queries whose lists differ between the paths.
    paths_differing: Option<usize>,
    /// With `--compare-paths`: median latency of the one-shot path.
    one_shot_p50_us: Option<f64>,
    /// With `--compare-paths`: median latency of the index path in the same pass.
    batch_p50_us: Option<f64>,
    /// With `--store postgres`: queries run with database-side candidates.
    db_side_queries: Option<usize>,
    /// With `--store postgres`: recall@1 of those queries with database-side candidates.
    db_side_recall_at_1: Option<f64>,
    /// With `--store postgres`: recall@5 of those queries with database-side candidates.
    db_side_recall_at_5: Option<f64>,
    /// With `--store postgres`: how many of those queries missed the exhaustive best.
    db_side_misses: Option<usize>,
    /// With `--store postgres`: their median latency with database-side candidates.
    db_side_p50_us: Option<f64>,
    /// With `--knn`: recall@1 of the `pg_trgm` nearest-neighbour recipe.
    knn_recall_at_1: Option<f64>,
    /// With `--knn`: its median latency, query and rescoring.
    knn_p50_us: Option<f64>,
    /// With `--knn`: seconds its GiST index took to build.
    knn_index_s: Option<f64>,
}

/// The processor time this thread has run, in µs, from `/proc/thread-self/schedstat`
/// (nanoseconds); `None` where that file does not exist.
fn thread_cpu_us() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e3)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// A memory figure of this process in MB: `VmHWM` (peak resident) or `VmRSS` (resident
/// now) of `/proc/self/status`; 0 where that file does not exist.
pub(crate) fn status_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Every file in the directory of `db` whose name starts with its name: the database,
/// its WAL and shared-memory files and any index file a store keeps beside it.
fn db_files(db: &Path) -> Result<Vec<PathBuf>> {
    let dir = match db.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = db.file_name().with_context(|| format!("{} names no file", db.display()))?.to_string_lossy();
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("read {}", dir.display()))? {
        let e = e?;
        if e.file_name().to_string_lossy().starts_with(&*name) && e.file_type()?.is_file() {
            out.push(e.path());
        }
    }
    Ok(out)
}

/// The memory to measure: `--memory`, then every `--also-memory`, then the copies of
/// `--synthesize`; and the target locale of each pair (the first is `to`). Lines that
/// name their target locale (a `--write-corpus` file) go to that pair, in file order.
fn load_lines(args: &Args, to: &Locale) -> Result<(Vec<synth::SynthLine>, Vec<Locale>)> {
    let mut files = vec![(to.clone(), args.memory.clone())];
    for spec in &args.also_memory {
        let (locale, path) =
            spec.split_once('=').with_context(|| format!("--also-memory {spec:?}: expected LOCALE=PATH"))?;
        let locale = Locale::parse(locale).with_context(|| format!("--also-memory {spec:?}"))?;
        files.push((locale, PathBuf::from(path)));
    }
    let mut targets = vec![to.clone()];
    let mut originals = Vec::new();
    for (locale, path) in files {
        for m in corpus::load_memory(&path, args.entries)? {
            let target = match &m.target_locale {
                Some(t) => {
                    Locale::parse(t).with_context(|| format!("{}: target_locale {t:?}", path.display()))?
                }
                None => locale.clone(),
            };
            let pair = match targets.iter().position(|t| *t == target) {
                Some(p) => p,
                None => {
                    targets.push(target);
                    targets.len() - 1
                }
            };
            originals.push(synth::SynthLine { pair, source: m.source, target: m.target, edit: None });
        }
    }
    let lines = synth::synthesize(originals, args.synthesize.unwrap_or(0))?;
    Ok((lines, targets))
}

/// The exhaustive reference: the answer `lookup` gives, computed by scoring every entry:
/// the `limit` best docs/matching.md §4 similarities at or above the threshold, over every entry and
/// every key kind, with the bit-parallel Levenshtein and a cut-off that rises to the
/// `limit`-th best score found so far (what a top-`limit` scan may skip, and no more).
struct Exhaustive {
    /// Per entry: its distinct source keys with their kinds and lengths.
    keys: Vec<Vec<(String, cmem_core::imp::KindSet, usize)>>,
}

impl Exhaustive {
    fn new(sources: &[Keys]) -> Self {
        let keys = sources
            .iter()
            .map(|k| {
                k.distinct().into_iter().map(|(s, kinds)| (s.to_owned(), kinds, s.chars().count())).collect()
            })
            .collect();
        Exhaustive { keys }
    }

    /// The capped scores of the top `limit` entries, best first, having scored every
    /// entry.
    fn top(&self, q: &Keys, threshold: f64, limit: usize) -> Vec<f64> {
        let patterns: Vec<(Pattern, cmem_core::imp::KindSet)> =
            q.distinct().into_iter().map(|(s, kinds)| (Pattern::new(s), kinds)).collect();
        // The `limit` best entry scores so far, lowest first.
        let mut top: std::collections::BinaryHeap<std::cmp::Reverse<u64>> =
            std::collections::BinaryHeap::new();
        for entry in &self.keys {
            let cut = if top.len() >= limit.max(1) {
                top.peek().map_or(threshold, |r| f64::from_bits(r.0)).max(threshold)
            } else {
                threshold
            };
            let mut entry_best: Option<f64> = None;
            for (key, kinds, len) in entry {
                for (p, qk) in &patterns {
                    if kinds.intersect(*qk).is_empty() {
                        continue;
                    }
                    if let Some(s) = p.similarity_at_least(key, *len, cut) {
                        entry_best = Some(entry_best.map_or(s, |b: f64| b.max(s)));
                    }
                }
            }
            if let Some(s) = entry_best {
                // Similarities are non-negative, so their bit patterns order like them.
                top.push(std::cmp::Reverse(s.to_bits()));
                if top.len() > limit.max(1) {
                    top.pop();
                }
            }
        }
        let mut scores: Vec<f64> = top.into_iter().map(|r| cap(f64::from_bits(r.0))).collect();
        scores.sort_by(|a, b| b.total_cmp(a));
        scores
    }
}

/// Raw similarity of a query to a stored source: the max over the key kinds.
fn raw_similarity(q: &Keys, s: &Keys) -> f64 {
    cmem_core::imp::KeyKind::ALL
        .iter()
        .map(|k| cmem_core::index::distance::similarity(q.get(*k), s.get(*k)))
        .fold(0.0, f64::max)
}

/// docs/matching.md §4 caps: exact 1.0, anything else at most 0.99.
fn cap(x: f64) -> f64 {
    if cmem_core::reaches(x, 1.0) {
        1.0
    } else {
        x.min(cmem_core::SCORE_NEAR_EXACT)
    }
}

/// A measured store's database file (SQLite), and whether it is removed at the end.
type DbFile = Option<(PathBuf, bool)>;

/// A store to measure, its database file (SQLite) and its database (PostgreSQL).
type Built = (Box<dyn ContentMemory>, DbFile, Option<pg::BenchDb>);

/// A store to measure, and where it keeps its data.
fn build_store(name: &str, db: Option<&PathBuf>, pg_url: Option<&str>, freshness: Duration) -> Result<Built> {
    match name {
        "memory" => Ok((Box::new(MemStore::new()), None, None)),
        "sqlite" => {
            let path = match db {
                Some(p) => p.clone(),
                None => std::env::temp_dir().join(format!("cmem-bench-{}.db", std::process::id())),
            };
            remove_db_files(&path);
            let store = cmem_sqlite::SqliteStore::open(&path)?;
            Ok((Box::new(store), Some((path, db.is_none())), None))
        }
        "postgres" => {
            let bench_db = pg::BenchDb::create(pg_url)?;
            let store = bench_db.open(cmem_postgres::PgOptions::default().freshness(freshness))?;
            Ok((Box::new(store), None, Some(bench_db)))
        }
        other => bail!("unknown store {other:?} (expected: memory, sqlite, postgres)"),
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    if !(0.0..=1.0).contains(&args.threshold) {
        bail!("--threshold {} is outside 0–1", args.threshold);
    }
    if args.context {
        let references = args.references.as_ref().context("--context needs --references")?;
        let db = args.db.as_ref().context("--context needs --db")?;
        let d = cmem_core::ContextOptions::default();
        let options = d
            .clone()
            .pool_threshold(args.context_pool_threshold.unwrap_or(d.pool_threshold))
            .searches(args.context_searches.unwrap_or(d.searches))
            .pool_limit(args.context_pool_limit.unwrap_or(d.pool_limit))
            .any_hits(args.context_any_hits.unwrap_or(d.any_hits))
            .search_hits(args.context_search_hits.unwrap_or(d.search_hits));
        return context::run(
            db,
            references,
            (&args.from, &args.to),
            args.context_queries,
            args.context_memory_store,
            options,
        );
    }
    if args.leverage {
        let references = args.references.as_ref().context("--leverage needs --references")?;
        let db = args.db.as_ref().context("--leverage needs --db")?;
        return leverage::run(db, references, (&args.from, &args.to), args.context_queries, args.examples);
    }
    if args.quality {
        let references = args.references.as_ref().context("--quality needs --references")?;
        let queries = args.queries.first().context("--quality needs --queries")?;
        return quality::run(
            &args.memory,
            args.entries,
            queries,
            references,
            (args.examples, args.misses, args.word_misses, args.word_samples),
            args.placement_samples,
            args.word_model.as_deref(),
        );
    }
    let from = Locale::parse(&args.from)?;
    let to = Locale::parse(&args.to)?;
    let (memory, targets) = load_lines(&args, &to)?;
    if let Some(path) = &args.write_corpus {
        let names: Vec<String> = targets.iter().map(|t| t.as_str().to_owned()).collect();
        synth::write_jsonl(path, &memory, from.as_str(), &names)?;
        eprintln!("cmem-bench: wrote {} entries to {}", memory.len(), path.display());
        return Ok(());
    }
    let mut queries = Vec::new();
    for q in &args.queries {
        queries.extend(corpus::load_queries(q)?);
    }
    let mut exact_queries = Vec::new();
    for q in &args.exact_queries {
        exact_queries.extend(corpus::load_queries(q)?);
    }

    if args.compare_paths && args.store != "sqlite" {
        bail!("--compare-paths compares the SQLite store's two candidate paths: give --store sqlite");
    }
    let pg_url = args.pg_url.clone().or_else(|| std::env::var("CMEM_PG_URL").ok());
    if args.pg_url.is_some() && args.store != "postgres" {
        bail!("--pg-url names the server of --store postgres: give --store postgres");
    }
    if args.knn && args.store != "postgres" {
        bail!("--knn measures PostgreSQL's pg_trgm: give --store postgres");
    }
    let rss_before_build_mb = status_mb("VmRSS");
    let served = args.served_pair.then(|| cmem_core::ServedPairs::new([(from.clone(), to.clone())]));
    let (store, db_file, bench_db) = if args.imported && args.store == "postgres" {
        let url = args
            .pg_url
            .as_deref()
            .context("--imported --store postgres needs --pg-url naming the database")?;
        let store = cmem_postgres::PgStore::open_with(
            url,
            cmem_postgres::PgOptions::default()
                .freshness(Duration::from_millis(args.pg_freshness_ms))
                .served(served),
        )?;
        (Box::new(store) as Box<dyn ContentMemory>, None, None)
    } else if args.imported {
        if args.store != "sqlite" {
            bail!("--imported opens a memory `cmem import` made: give --store sqlite or postgres");
        }
        let path = args.db.clone().context("--imported --store sqlite needs --db")?;
        if !path.exists() {
            bail!("--imported: {} does not exist", path.display());
        }
        let store =
            cmem_sqlite::SqliteStore::open_with(&path, cmem_sqlite::SqliteOptions::default().served(served))?;
        (Box::new(store) as Box<dyn ContentMemory>, Some((path, false)), None)
    } else {
        build_store(
            &args.store,
            args.db.as_ref(),
            pg_url.as_deref(),
            Duration::from_millis(args.pg_freshness_ms),
        )?
    };
    // An imported memory is readied as a server readies it before it answers: SQLite's
    // index file opened (not built), PostgreSQL's index built from the database.
    let warm_s = if args.imported {
        let started = Instant::now();
        store.warm(&from)?;
        Some(started.elapsed().as_secs_f64())
    } else {
        None
    };
    // Entries are made a batch at a time, outside the clock, so the process never holds
    // the whole memory twice over.
    let mut build_s = 0.0;
    for batch in memory.chunks(10_000).take_while(|_| !args.imported) {
        let entries: Vec<NewEntry> = batch
            .iter()
            .map(|m| {
                NewEntry::pair(
                    Variant::new(from.clone(), vec![Run::text(&m.source)]),
                    Variant::new(targets[m.pair].clone(), vec![Run::text(&m.target)]),
                )
            })
            .collect();
        let started = Instant::now();
        store.write(&entries)?;
        build_s += started.elapsed().as_secs_f64();
    }
    let rss_after_build_mb = status_mb("VmRSS");
    let settle_s = match &bench_db {
        Some(db) => Some(db.settle()?.as_secs_f64()),
        None => None,
    };
    // The reference scores the entries a lookup into `to` may return: an entry of
    // another pair is no answer, however near its source.
    let answering: Vec<bool> = targets.iter().map(|t| t.matches(&to)).collect();
    let source_keys: Vec<Keys> = memory
        .iter()
        .filter(|m| answering[m.pair])
        .map(|m| Variant::new(from.clone(), vec![Run::text(&m.source)]).keys())
        .collect();
    let answering_entries = source_keys.len();
    let exhaustive = Exhaustive::new(&source_keys);
    drop(source_keys);
    let rss_reference_mb = status_mb("VmRSS") - rss_after_build_mb;
    let counting = counting::Counting {
        inner: store.as_ref(),
        offered: 0.into(),
        candidates_ns: 0.into(),
        exact_ns: 0.into(),
    };
    let mut options = LookupOptions::default().threshold(args.threshold).limit(args.limit);
    if args.exhaustive_lookup {
        options = options.exhaustive();
    }
    if let Some(v) = args.verify_budget {
        options.verify_budget = v;
    }
    if let Some(v) = args.max_candidates {
        options.max_candidates = v;
    }
    if let Some(v) = args.scan_limit {
        options.scan_limit = v;
    }

    // Passes, each on its own: all fuzzy lookups, the exact lookups, then the exhaustive
    // scan of every query. Interleaved, each would evict the other's working set from the
    // caches and both would be measured cold, which no long-running service sees.
    let mut lat = Vec::with_capacity(queries.len());
    let mut cpu = Vec::with_capacity(queries.len());
    // Per query: the capped similarity of each match returned, in order.
    let mut returned: Vec<Vec<f64>> = Vec::with_capacity(queries.len());
    let mut inconsistent = Vec::new();
    for q in &queries {
        let runs = vec![Run::text(q)];
        let req = LookupRequest::new(runs.clone(), from.clone(), to.clone()).options(options.clone());
        let before = counting.offered.load(Ordering::Relaxed);
        let cpu_before = thread_cpu_us();
        let t = Instant::now();
        let matches = lookup(&counting, &req)?;
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        if let (Some(a), Some(b)) = (cpu_before, thread_cpu_us()) {
            cpu.push(b - a);
        }
        if args.verbose {
            eprintln!(
                "{:>8.0} µs {:>6} cand top {:.3} n={} len={} {:?}",
                lat[lat.len() - 1],
                counting.offered.load(Ordering::Relaxed) - before,
                matches.first().map_or(0.0, |m| m.score),
                matches.len(),
                q.chars().count(),
                q.chars().take(50).collect::<String>()
            );
        }
        // Check every returned score against the recomputed similarity.
        let qk = Keys::of(&runs);
        for m in &matches {
            let raw = raw_similarity(&qk, &Keys::of(m.source()));
            // An exact tier's penalties (text that differs from the query in white space
            // alone) are taken off its score.
            let penalty = m.penalties.iter().map(|p| f64::from(p.points) / 100.0).sum::<f64>();
            let expected = match m.match_type {
                MatchType::GeneralizedExact | MatchType::StructuralExact => 1.0 - penalty,
                MatchType::PlainExact => cmem_core::SCORE_NEAR_EXACT - penalty,
                _ => cap(raw),
            };
            let ok =
                (m.score - expected).abs() < 1e-9 || (m.ambiguous && m.score == cmem_core::SCORE_NEAR_EXACT);
            if !ok {
                inconsistent
                    .push(format!("{q:?}: {} scored {} but recomputes to {expected}", m.entry.id, m.score));
            }
        }
        returned.push(matches.iter().map(|m| cap(raw_similarity(&qk, &Keys::of(m.source())))).collect());
    }

    let mut exact_lat = Vec::new();
    // An exact lookup asks for the answer (limit 1): what pre-translation and an editor's
    // auto-fill do. With a full-score hit, no fuzzy candidate can enter.
    let exact_options = options.clone().limit(1);
    for q in &exact_queries {
        let req =
            LookupRequest::new(vec![Run::text(q)], from.clone(), to.clone()).options(exact_options.clone());
        let t = Instant::now();
        let _ = lookup(store.as_ref(), &req)?;
        exact_lat.push(t.elapsed().as_secs_f64() * 1e6);
    }

    let mut ex_lat = Vec::with_capacity(queries.len());
    let mut tally = lists::ListTally::default();
    let mut tops = Vec::with_capacity(queries.len());
    for (q, got) in queries.iter().zip(&returned) {
        let qk = Keys::of(&[Run::text(q)]);
        let t = Instant::now();
        let top = exhaustive.top(&qk, args.threshold, args.limit);
        ex_lat.push(t.elapsed().as_secs_f64() * 1e6);
        if !tally.add(got, &top) && args.verbose {
            eprintln!("cmem-bench: ties incomplete: {q:?}: returned {got:?}, exhaustive {top:?}");
        }
        if args.verbose && top.first().is_some_and(|b| got.first().is_none_or(|t| *t < b - 1e-9)) {
            eprintln!("cmem-bench: best missed: {q:?}: returned {got:?}, exhaustive {top:?}");
        }
        tops.push(top);
    }
    if !inconsistent.is_empty() {
        for line in inconsistent.iter().take(10) {
            eprintln!("cmem-bench: inconsistent score: {line}");
        }
        bail!("{} returned scores disagree with the recomputed similarity", inconsistent.len());
    }

    // One-shot against batch: the same file opened as a one-shot `cmem lookup` opens it
    // (the persisted index read in place, never built; SQL candidates without one).
    let mut paths = None;
    if let (true, Some((path, _))) = (args.compare_paths, &db_file) {
        let sql = cmem_sqlite::SqliteStore::open_with(
            path,
            cmem_sqlite::SqliteOptions::default().build_index(false).read_only(true),
        )?;
        // Evenly spaced over the query files, so every file is represented.
        let wanted = args.compare_queries.unwrap_or(queries.len()).clamp(1, queries.len().max(1));
        let compared: Vec<String> =
            queries.iter().step_by(queries.len().div_ceil(wanted).max(1)).cloned().collect();
        let compared = &compared[..];
        let cmp = lists::compare_paths(&sql, store.as_ref(), compared, (&from, &to), &options)?;
        if args.verbose {
            for line in &cmp.differing {
                eprintln!("cmem-bench: one-shot vs batch: {line}");
            }
        }
        paths = Some((compared.len(), cmp.differing.len(), cmp.p50_us));
    }

    // The same database, candidates from SQL (the length window) instead of the index.
    let mut db_side = None;
    if let Some(bench_db) = &bench_db {
        let sql = bench_db.open(cmem_postgres::PgOptions::default().gram_index(false).read_only(true))?;
        db_side =
            Some(pg::db_side_pass(&sql, &queries, &tops, args.db_side_queries, (&from, &to), &options)?);
    }
    let mut knn = None;
    if let (Some(bench_db), true) = (&bench_db, args.knn) {
        knn =
            Some(pg::knn_pass(&bench_db.url, &queries, &tops, args.db_side_queries, &from, args.threshold)?);
    }

    let rss_after_lookups_mb = status_mb("VmRSS");
    let size_bytes = match &db_file {
        Some((path, _)) => {
            let mut sum = 0;
            for f in db_files(path)? {
                sum += std::fs::metadata(&f).with_context(|| format!("size of {}", f.display()))?.len();
            }
            Some(sum)
        }
        None => store.stats()?.size_bytes,
    };
    let first_lookup_ms = lat.first().map_or(0.0, |us| us / 1e3);
    lat.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let cpu_at = |p: f64| (cpu.len() == lat.len() && !cpu.is_empty()).then(|| percentile(&cpu, p));
    ex_lat.sort_by(f64::total_cmp);
    exact_lat.sort_by(f64::total_cmp);
    let n = queries.len().max(1) as f64;
    let report = Report {
        store: args.store.clone(),
        entries: memory.len(),
        answering_entries,
        queries: queries.len(),
        threshold: args.threshold,
        p50_us: percentile(&lat, 0.50),
        p95_us: percentile(&lat, 0.95),
        p99_us: percentile(&lat, 0.99),
        cpu_p50_us: cpu_at(0.50),
        cpu_p95_us: cpu_at(0.95),
        cpu_p99_us: cpu_at(0.99),
        exhaustive_p50_us: percentile(&ex_lat, 0.50),
        exhaustive_p95_us: percentile(&ex_lat, 0.95),
        exhaustive_p99_us: percentile(&ex_lat, 0.99),
        speedup_p50: percentile(&ex_lat, 0.50) / percentile(&lat, 0.50).max(1e-9),
        recall_at_1: tally.share(tally.top1),
        misses: tally.misses(),
        recall_at_5: tally.share(tally.top5),
        lists_exact: tally.share(tally.whole),
        ties_complete: tally.share(tally.ties),
        candidates_mean: counting.offered.load(Ordering::Relaxed) as f64 / n,
        exact_queries: exact_queries.len(),
        exact_p50_us: (!exact_lat.is_empty()).then(|| percentile(&exact_lat, 0.50)),
        build_s,
        import_rate_per_s: memory.len() as f64 / build_s.max(1e-9),
        settle_s,
        warm_s,
        first_lookup_ms,
        size_bytes,
        rss_before_build_mb,
        rss_after_build_mb,
        rss_reference_mb,
        rss_after_lookups_mb,
        peak_rss_mb: status_mb("VmHWM"),
        paths_compared: paths.map(|p| p.0),
        paths_differing: paths.map(|p| p.1),
        one_shot_p50_us: paths.map(|p| p.2 .0),
        batch_p50_us: paths.map(|p| p.2 .1),
        db_side_queries: db_side.as_ref().map(|d| d.queries),
        db_side_recall_at_1: db_side.as_ref().map(|d| d.recall_at_1),
        db_side_recall_at_5: db_side.as_ref().map(|d| d.recall_at_5),
        db_side_misses: db_side.as_ref().map(|d| d.misses),
        db_side_p50_us: db_side.as_ref().map(|d| d.p50_us),
        knn_recall_at_1: knn.as_ref().map(|k| k.recall_at_1),
        knn_p50_us: knn.as_ref().map(|k| k.p50_us),
        knn_index_s: knn.as_ref().map(|k| k.index_s),
    };
    if args.verbose {
        eprintln!(
            "mean per query: candidates {:.0} µs, exact {:.0} µs, lookup {:.0} µs",
            counting.candidates_ns.load(Ordering::Relaxed) as f64 / n / 1e3,
            counting.exact_ns.load(Ordering::Relaxed) as f64 / n / 1e3,
            lat.iter().sum::<f64>() / n
        );
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_table(&report);
    }
    drop(store);
    if let Some(bench_db) = bench_db {
        bench_db.finish()?;
    }
    if let Some((path, true)) = db_file {
        remove_db_files(&path);
    }
    Ok(())
}

/// Removes a SQLite memory and the files beside it: WAL, shared memory and persisted
/// candidate indexes (`<db>-gix-<locale>`).
fn remove_db_files(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return };
    let prefix = format!("{}-gix-", name.to_string_lossy());
    let dir = if dir.as_os_str().is_empty() { std::path::Path::new(".") } else { dir };
    for f in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if f.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(f.path());
        }
    }
}

fn print_table(r: &Report) {
    println!("store              {}", r.store);
    println!("entries            {} ({} into the lookups' target locale)", r.entries, r.answering_entries);
    println!("queries            {} (threshold {:.2})", r.queries, r.threshold);
    println!("lookup p50/p95/p99 {:.0} / {:.0} / {:.0} µs", r.p50_us, r.p95_us, r.p99_us);
    if let (Some(a), Some(b), Some(c)) = (r.cpu_p50_us, r.cpu_p95_us, r.cpu_p99_us) {
        println!("  processor time   {a:.0} / {b:.0} / {c:.0} µs");
    }
    println!(
        "exhaustive p50/p95/p99 {:.0} / {:.0} / {:.0} µs",
        r.exhaustive_p50_us, r.exhaustive_p95_us, r.exhaustive_p99_us
    );
    println!("speed-up at p50    {:.1}×", r.speedup_p50);
    println!("recall@1           {:.4} ({} misses)", r.recall_at_1, r.misses);
    println!("recall@5           {:.4}", r.recall_at_5);
    println!("whole lists exact  {:.4}", r.lists_exact);
    println!("ties complete      {:.4}", r.ties_complete);
    println!("candidates scored  {:.1} per query", r.candidates_mean);
    if let Some(e) = r.exact_p50_us {
        println!("exact p50          {:.1} µs over {} queries", e, r.exact_queries);
    }
    if r.warm_s.is_none() {
        println!("build              {:.2} s ({:.0} entries/s)", r.build_s, r.import_rate_per_s);
    }
    if let Some(s) = r.settle_s {
        println!("settle             {s:.1} s (VACUUM (ANALYZE) and CHECKPOINT after the build, untimed)");
    }
    if let Some(s) = r.warm_s {
        println!("index ready in     {s:.1} s (the imported database opened as a server opens it)");
    }
    println!("first lookup       {:.1} ms", r.first_lookup_ms);
    if let Some(s) = r.size_bytes {
        println!("size on disk       {:.1} MB", s as f64 / 1e6);
    }
    println!(
        "RSS                {:.0} MB before the build, {:.0} MB after it, {:.0} MB after the lookups \
         ({:.0} MB of them the exhaustive reference)",
        r.rss_before_build_mb, r.rss_after_build_mb, r.rss_after_lookups_mb, r.rss_reference_mb
    );
    println!("peak RSS           {:.0} MB", r.peak_rss_mb);
    if let (Some(n), Some(d)) = (r.paths_compared, r.paths_differing) {
        println!("one-shot vs batch  {d} of {n} lists differ");
    }
    if let (Some(one), Some(batch)) = (r.one_shot_p50_us, r.batch_p50_us) {
        println!("  their p50        {one:.0} µs (one-shot, persisted index) / {batch:.0} µs (index built in the process)");
    }
    if let (Some(n), Some(r1), Some(p50)) = (r.db_side_queries, r.db_side_recall_at_1, r.db_side_p50_us) {
        println!(
            "database-side      recall@1 {r1:.4} ({} misses), recall@5 {:.4}, p50 {p50:.0} µs over {n} queries",
            r.db_side_misses.unwrap_or(0),
            r.db_side_recall_at_5.unwrap_or(0.0)
        );
    }
    if let (Some(r1), Some(p50), Some(ix)) = (r.knn_recall_at_1, r.knn_p50_us, r.knn_index_s) {
        println!(
            "pg_trgm KNN + rescoring recall@1 {r1:.4}, p50 {p50:.0} µs, same queries (GiST index {ix:.1} s)"
        );
    }
}
