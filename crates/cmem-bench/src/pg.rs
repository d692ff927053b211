//! `--store postgres`: a fresh database on a server (the one `--pg-url` or `CMEM_PG_URL`
//! names, else a throwaway cluster this process starts), and the second pass in the
//! database-side candidate mode.

use std::str::FromStr;
use std::time::Instant;

use anyhow::{Context, Result};
use cmem_core::imp::Keys;
use cmem_core::{lookup, ContentMemory, Locale, LookupOptions, LookupRequest, Run};
use cmem_postgres::testing::TestServer;
use cmem_postgres::{PgOptions, PgStore};

use crate::lists::ListTally;

/// A fresh database for one run, and the server it lives on.
pub struct BenchDb {
    server: TestServer,
    /// The database's address.
    pub url: String,
    /// The address given by the user, when the database lives on their server: it is
    /// dropped there at the end.
    user_url: Option<String>,
}

impl BenchDb {
    /// Creates a fresh database on `url`'s server (its database is where `CREATE
    /// DATABASE` runs), or, without one, on a throwaway cluster.
    pub fn create(url: Option<&str>) -> Result<BenchDb> {
        if let Some(url) = url {
            // The testing module takes its server from this variable; set before any
            // thread starts.
            std::env::set_var("CMEM_PG_URL", url);
        }
        let server = TestServer::start().context("postgres: no server for the benchmark")?;
        let url_fresh = server.fresh_database().context("postgres: creating the benchmark's database")?;
        Ok(BenchDb { server, url: url_fresh, user_url: url.map(str::to_owned) })
    }

    /// Opens the database with `options`.
    pub fn open(&self, options: PgOptions) -> Result<PgStore> {
        Ok(PgStore::open_with(&self.url, options)?)
    }

    /// Brings the freshly built database to the state a running server's memory is in
    /// once the import's aftermath has passed: `VACUUM (ANALYZE)` (what autovacuum does
    /// within minutes of a large import: hint bits, visibility map, planner statistics),
    /// then a `CHECKPOINT` (the import's dirty pages written). Both would otherwise run
    /// in the background during the first timed pass and weigh on it alone. Returns
    /// how long that took; a `CHECKPOINT` the role may not run is left to the server.
    pub fn settle(&self) -> Result<std::time::Duration> {
        let started = Instant::now();
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls)
            .with_context(|| format!("postgres: {}: cannot connect", cmem_postgres::redact(&self.url)))?;
        client
            .batch_execute("VACUUM (ANALYZE)")
            .context("postgres: VACUUM (ANALYZE) of the benchmark's database")?;
        let _ = client.batch_execute("CHECKPOINT");
        Ok(started.elapsed())
    }

    /// Drops the database from the user's server (a throwaway cluster goes away whole).
    /// Every store on it must be closed first.
    pub fn finish(self) -> Result<()> {
        if let Some(user) = &self.user_url {
            let name = postgres::Config::from_str(&self.url)
                .ok()
                .and_then(|c| c.get_dbname().map(str::to_owned))
                .context("postgres: the benchmark database's address names no database")?;
            let mut client = postgres::Config::from_str(user)
                .with_context(|| format!("postgres: {}", cmem_postgres::redact(user)))?
                .connect(postgres::NoTls)
                .with_context(|| format!("postgres: {}: cannot connect", cmem_postgres::redact(user)))?;
            client
                .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
                .with_context(|| format!("postgres: dropping the benchmark's database {name}"))?;
        }
        self.server.stop();
        Ok(())
    }
}

/// About `wanted` of `queries` with their exhaustive lists, evenly spaced, so every
/// query file is represented.
fn spaced<'a>(
    queries: &'a [String],
    exhaustive: &'a [Vec<f64>],
    wanted: usize,
) -> impl Iterator<Item = (&'a String, &'a Vec<f64>)> {
    let step = queries.len().div_ceil(wanted.clamp(1, queries.len().max(1))).max(1);
    queries.iter().zip(exhaustive).step_by(step)
}

/// What the database-side candidate mode gave on a share of the queries.
#[derive(Debug)]
pub struct DbSidePass {
    /// Queries run.
    pub queries: usize,
    /// Share whose best equals the exhaustive best.
    pub recall_at_1: f64,
    /// Share whose first five equal the exhaustive first five.
    pub recall_at_5: f64,
    /// Queries whose best is not the exhaustive best.
    pub misses: usize,
    /// Median lookup latency, in microseconds.
    pub p50_us: f64,
}

/// Runs about `wanted` of `queries` ([`spaced`]) through `store` and tallies their lists
/// against `exhaustive` (the exhaustive top scores of every query, in the same order).
pub fn db_side_pass(
    store: &dyn ContentMemory,
    queries: &[String],
    exhaustive: &[Vec<f64>],
    wanted: usize,
    (from, to): (&Locale, &Locale),
    options: &LookupOptions,
) -> Result<DbSidePass> {
    let mut tally = ListTally::default();
    let mut lat = Vec::new();
    for (q, top) in spaced(queries, exhaustive, wanted) {
        let runs = vec![Run::text(q)];
        let req = LookupRequest::new(runs.clone(), from.clone(), to.clone()).options(options.clone());
        let t = Instant::now();
        let matches = lookup(store, &req)?;
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        let qk = Keys::of(&runs);
        let got: Vec<f64> =
            matches.iter().map(|m| crate::cap(crate::raw_similarity(&qk, &Keys::of(m.source())))).collect();
        tally.add(&got, top);
    }
    lat.sort_by(f64::total_cmp);
    Ok(DbSidePass {
        queries: lat.len(),
        recall_at_1: tally.share(tally.top1),
        recall_at_5: tally.share(tally.top5),
        misses: tally.misses(),
        p50_us: crate::percentile(&lat, 0.5),
    })
}

/// What the `pg_trgm` nearest-neighbour recipe gave on the same queries as the
/// database-side pass.
#[derive(Debug)]
pub struct KnnPass {
    /// Share whose best (after rescoring) equals the exhaustive best.
    pub recall_at_1: f64,
    /// Median latency of the query and the rescoring, in microseconds.
    pub p50_us: f64,
    /// Seconds the GiST index took to build.
    pub index_s: f64,
}

/// Rows the nearest-neighbour query returns before rescoring (Weblate's figure).
const KNN_ROWS: i64 = 50;

/// The recipe of Weblate's translation memory: the `KNN_ROWS` source texts nearest the
/// query by `pg_trgm` distance (`ORDER BY text <-> $1`, served by a GiST index built
/// here), rescored in Rust with cmem's similarity, those at or above `threshold` kept.
/// Runs the same queries as [`db_side_pass`] given the same `wanted`.
pub fn knn_pass(
    url: &str,
    queries: &[String],
    exhaustive: &[Vec<f64>],
    wanted: usize,
    from: &Locale,
    threshold: f64,
) -> Result<KnnPass> {
    let name = cmem_postgres::redact(url);
    let mut client = postgres::Config::from_str(url)
        .with_context(|| format!("postgres: {name}"))?
        .connect(postgres::NoTls)
        .with_context(|| format!("postgres: {name}: cannot connect"))?;
    let t = Instant::now();
    client
        .batch_execute(
            "CREATE INDEX IF NOT EXISTS bench_knn_text ON tm_variants USING gist (text gist_trgm_ops)",
        )
        .with_context(|| format!("postgres: {name}: creating the GiST index"))?;
    let index_s = t.elapsed().as_secs_f64();
    let knn = client
        .prepare("SELECT text FROM tm_variants WHERE locale = $2 ORDER BY text <-> $1 LIMIT $3")
        .with_context(|| format!("postgres: {name}: preparing the nearest-neighbour query"))?;
    let locale = from.to_string();
    let mut tally = ListTally::default();
    let mut lat = Vec::new();
    for (q, top) in spaced(queries, exhaustive, wanted) {
        let qk = Keys::of(&[Run::text(q)]);
        let t = Instant::now();
        let rows = client
            .query(&knn, &[q, &locale, &KNN_ROWS])
            .with_context(|| format!("postgres: {name}: nearest neighbours of {q:?}"))?;
        let mut scores = Vec::with_capacity(rows.len());
        for row in rows {
            let text: String = row.try_get(0).with_context(|| format!("postgres: {name}: reading a text"))?;
            let s = crate::cap(crate::raw_similarity(&qk, &Keys::of(&[Run::text(&text)])));
            if s >= threshold {
                scores.push(s);
            }
        }
        scores.sort_by(|a, b| b.total_cmp(a));
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        tally.add(&scores, top);
    }
    lat.sort_by(f64::total_cmp);
    Ok(KnnPass { recall_at_1: tally.share(tally.top1), p50_us: crate::percentile(&lat, 0.5), index_s })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cmem_core::{MemStore, NewEntry, Variant};

    #[test]
    fn the_pass_takes_evenly_spaced_queries_and_counts_a_missed_best() {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let store = MemStore::new();
        let pair = |s: &str, t: &str| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(s)]),
                Variant::new(de.clone(), vec![Run::text(t)]),
            )
        };
        store
            .write(&[pair("Open the file", "Datei öffnen"), pair("Close the window", "Fenster schließen")])
            .unwrap();
        let queries: Vec<String> =
            ["Open the files", "Close the windows", "Nothing alike here", "Open a file"]
                .map(str::to_owned)
                .into();
        let options = LookupOptions::default();
        let best = |q: &str| {
            let req = LookupRequest::new(vec![Run::text(q)], en.clone(), de.clone()).options(options.clone());
            lookup(&store, &req).unwrap().iter().map(|m| m.score).collect::<Vec<f64>>()
        };
        let mut tops: Vec<Vec<f64>> = queries.iter().map(|q| best(q)).collect();
        let all = db_side_pass(&store, &queries, &tops, 10, (&en, &de), &options).unwrap();
        assert_eq!((all.queries, all.recall_at_1), (4, 1.0));
        // Two of four: the first and the third.
        let half = db_side_pass(&store, &queries, &tops, 2, (&en, &de), &options).unwrap();
        assert_eq!(half.queries, 2);
        // A better best than the store can give, on a query the pass runs, is a miss.
        tops[2] = vec![1.0];
        let half = db_side_pass(&store, &queries, &tops, 2, (&en, &de), &options).unwrap();
        assert_eq!(half.recall_at_1, 0.5);
        // On the query it skips, it is not counted.
        tops[2] = Vec::new();
        tops[1] = vec![1.0];
        let half = db_side_pass(&store, &queries, &tops, 2, (&en, &de), &options).unwrap();
        assert_eq!(half.recall_at_1, 1.0);
    }
}
