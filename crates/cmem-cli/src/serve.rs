//! `cmem serve`: the memory over HTTP (the `cmem-server` crate) until `SIGTERM` or
//! Ctrl-C.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use cmem::{Address, Memories, Memory, OpenOptions, Role};
use cmem_server::{serve_on, shutdown_signal, App, Pairs, RateLimit, ServerConfig};

use crate::memory;
use crate::output::duration;

const SERVE_HELP: &str = "\
Examples:
  cmem --memory team.db serve
  cmem serve --listen 127.0.0.1:9000 --read-needs-token --rate-limit 50

Serves the native JSON API under /v1 (lookup, batch lookup, search, entries, versions,
stats), amaGama's protocol under /tmserver and /api/v1 (Weblate's \"tmserver\"
machinery, Pootle and Virtaal: point them at http://HOST:PORT/tmserver), /healthz,
/readyz, Prometheus metrics at /metrics and the OpenAPI description at /openapi.json.
Writes need a bearer token of scope write (`cmem token create --scope write`); reads
are open unless --read-needs-token. The candidate index is built before the first
connection is accepted. SIGTERM or Ctrl-C stop accepting and end once the requests
under way are answered (exit 0).

Several --memory serve several named memories: /v1/lookup merges them (or the ones its
\"memories\" field names), each match naming its memory; /m/NAME/tmserver answers from
one alone. Writes go to the one memory of role write, or to ?memory=NAME; tokens are
kept in that memory (else the first). Example:
  cmem -m project.db -m client=client.db,role=read,penalty=5 serve

With --pairs en-de,en-fr the server answers those pairs only (421 Misdirected Request
to another): several servers on one PostgreSQL memory, each with its pairs, behind a
proxy that routes /tmserver/SOURCE/TARGET/… and /p/SOURCE/TARGET/v1/… by pair
(docs/operators.md). Example:
  cmem -m postgres://tm@db/tm serve --pairs en-de,en-fr --listen 127.0.0.1:9001

It speaks plain HTTP: put TLS, and any address beyond this machine, behind a reverse
proxy.";

/// Options of `cmem serve`.
#[derive(Debug, Clone, Args)]
#[command(after_help = SERVE_HELP)]
pub struct ServeArgs {
    /// The address and port to listen on.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Reads need a bearer token too (of scope read or more).
    #[arg(long)]
    pub read_needs_token: bool,
    /// The largest request body accepted, in bytes, on every route but import uploads.
    #[arg(long, value_name = "BYTES", default_value_t = ServerConfig::default().max_body_bytes)]
    pub max_body_bytes: usize,
    /// The largest import upload (POST /v1/imports) accepted, in bytes: it is streamed to
    /// a temporary file, not held in memory, so it has a limit of its own.
    #[arg(long, value_name = "BYTES", default_value_t = ServerConfig::default().max_upload_bytes)]
    pub max_upload_bytes: u64,
    /// How long one request may take the store, in seconds, before it is answered 503.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub timeout: u64,
    /// Requests per second each token (or, without one, each client address) may make
    /// on average, twice that at once; beyond it 429 with Retry-After. Default: no limit.
    #[arg(long, value_name = "PER_SECOND", value_parser = positive)]
    pub rate_limit: Option<f64>,
    /// Log each request to standard error as one JSON object a line (time, method, route
    /// template, status, microseconds, client address).
    #[arg(long)]
    pub access_log: bool,
    /// Seconds a connection may take to send a request's headers, or sit idle between
    /// requests, before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = ServerConfig::default().header_timeout.as_secs())]
    pub header_timeout: u64,
    /// Seconds a request (but an import upload) may take from its headers to its
    /// answer, its body included; a body sent more slowly gets 408.
    #[arg(long, value_name = "SECONDS", default_value_t = ServerConfig::default().body_timeout.as_secs())]
    pub body_timeout: u64,
    /// The largest request line and headers accepted, in bytes; larger gets 431.
    #[arg(long, value_name = "BYTES", default_value_t = ServerConfig::default().max_header_bytes)]
    pub max_header_bytes: usize,
    /// The most connections open at once; one more is answered 503 and closed.
    #[arg(long, value_name = "N", default_value_t = ServerConfig::default().max_connections)]
    pub max_connections: usize,
    /// Requests with an unknown or revoked token one client address may make in a
    /// minute; past it, 429 for a minute, logged to standard error.
    #[arg(long, value_name = "N", default_value_t = ServerConfig::default().max_bad_tokens)]
    pub max_bad_tokens: u32,
    /// amaGama and context answers kept while the memory does not change (0: none); an
    /// amaGama answer carries an ETag, and a client that sends it back gets 304.
    #[arg(long, value_name = "N", default_value_t = ServerConfig::default().answer_cache)]
    pub answer_cache: usize,
    /// Requests doing their lookup or store work at once; the others wait their turn in
    /// arrival order (0: three per processor).
    #[arg(long, value_name = "N", default_value_t = ServerConfig::default().workers)]
    pub workers: usize,
    /// Where a PostgreSQL memory's candidate index is kept between runs: the next start
    /// opens it and takes the changes since from the database instead of building it
    /// (seconds on a large memory). Default: $CMEM_INDEX_DIR; without either, every start
    /// builds the index. A SQLite memory keeps its index beside the database and ignores
    /// this.
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<std::path::PathBuf>,
    /// A streaming replica of the PostgreSQL memory (postgres://…) to read from:
    /// lookups, search and exports are read there, writes, imports and tokens go to
    /// --memory. Several servers behind a load balancer each name one
    /// (docs/operators.md).
    #[arg(long, value_name = "ADDRESS")]
    pub read_replica: Option<String>,
    /// Serve these locale pairs only, SOURCE-TARGET separated by commas (en-de,en-fr;
    /// en-US:de when a tag has a region): another pair is answered 421 Misdirected
    /// Request naming these, the candidate index holds only the keys of their entries
    /// (a lookup counts and maps those alone, not the other pairs'), and the lists of
    /// pairs (amaGama's languages, /v1/stats) show only these. A pair is
    /// served with the lookups' locale fallback (en-US to de-CH by en-de). For several
    /// servers on one PostgreSQL memory behind a proxy that routes by pair
    /// (docs/operators.md); the /v1 routes are also served under /p/SOURCE/TARGET/v1/…
    /// for it. Default: every pair.
    #[arg(long, value_name = "PAIRS", value_parser = Pairs::parse)]
    pub pairs: Option<Pairs>,
}

/// Parses a rate above zero.
fn positive(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("{s:?} is not a number above 0")),
    }
}

/// Opens the existing memory at `path` for reading and writing; never creates one.
///
/// # Errors
/// No memory there, or it cannot be opened.
pub fn open_existing_for_write(
    path: &Path,
    index_dir: Option<&Path>,
    replica: Option<&str>,
) -> Result<Memory> {
    open_existing(path, index_dir, replica, false, None)
}

/// Opens the existing memory at `path` (reading through `replica` when given), for
/// reading only when `read_only`; with `pairs`, its candidate index holds only the keys
/// their lookups read.
fn open_existing(
    path: &Path,
    index_dir: Option<&Path>,
    replica: Option<&str>,
    read_only: bool,
    pairs: Option<&Pairs>,
) -> Result<Memory> {
    let address = path.to_string_lossy().into_owned();
    if let Ok(Address::Sqlite(file)) = Address::parse(&address) {
        if !file.exists() {
            bail!(
                "no memory at {} (create one with `cmem import FILE`, or name one with --memory or ${})",
                file.display(),
                memory::MEMORY_ENV
            );
        }
    }
    // A server on PostgreSQL sees other processes' writes within 100 ms rather than
    // asking the database on every store call (a round trip each; docs/operators.md).
    let mut options = OpenOptions::new().freshness(SERVER_FRESHNESS).read_only(read_only);
    if let Some(dir) = index_dir {
        options = options.index_dir(dir);
    }
    if let Some(replica) = replica {
        options = options.replica(replica);
    }
    if let Some(pairs) = pairs {
        options = options.served(pairs.served());
    }
    Ok(Memory::open_with(&address, &memory::with_index_dir(options))?)
}

/// What `cmem serve` serves.
enum Served {
    One(Box<Memory>),
    Several(Memories),
}

/// How stale a served PostgreSQL memory's index may be about other processes' writes.
const SERVER_FRESHNESS: Duration = Duration::from_millis(100);

/// Runs `cmem serve`.
///
/// # Errors
/// A missing memory, the address cannot be bound, the store failed while starting.
pub fn run(args: &ServeArgs, given: &memory::Given, quiet: bool) -> Result<()> {
    crate::output::survive_file_limit().context("serve: cannot install the SIGXFSZ handler")?;
    let served = match given {
        memory::Given::One(flag) => {
            let path = memory::resolve(flag.as_deref());
            Served::One(Box::new(open_existing(
                &path,
                args.index_dir.as_deref(),
                args.read_replica.as_deref(),
                false,
                args.pairs.as_ref(),
            )?))
        }
        memory::Given::Several(specs) => {
            if args.read_replica.is_some() {
                bail!("serve: --read-replica is the replica of one memory; serve one memory to use it");
            }
            let mut members = Vec::with_capacity(specs.len());
            for spec in specs {
                let read_only = spec.role == Role::Read;
                let memory = open_existing(
                    Path::new(&spec.address),
                    args.index_dir.as_deref(),
                    None,
                    read_only,
                    args.pairs.as_ref(),
                )
                .with_context(|| format!("serve: memory {}", spec.name))?;
                members.push((spec.clone(), memory));
            }
            Served::Several(Memories::new(members).map_err(|e| e.prefixed("serve"))?)
        }
    };
    let address = match &served {
        Served::One(memory) => memory.address().to_string(),
        Served::Several(memories) => {
            let names: Vec<String> = memories
                .members()
                .iter()
                .map(|m| match m.spec.role {
                    Role::Read => format!("{} (read)", m.spec.name),
                    Role::Write => m.spec.name.clone(),
                })
                .collect();
            format!("memories {}", names.join(", "))
        }
    };
    let config = ServerConfig::new()
        .listen(args.listen)
        .read_needs_token(args.read_needs_token)
        .max_body_bytes(args.max_body_bytes)
        .max_upload_bytes(args.max_upload_bytes)
        .request_timeout(Duration::from_secs(args.timeout.max(1)))
        .rate_limit(args.rate_limit.map(RateLimit::per_second))
        .access_log(args.access_log)
        .header_timeout(Duration::from_secs(args.header_timeout.max(1)))
        .body_timeout(Duration::from_secs(args.body_timeout.max(1)))
        .max_header_bytes(args.max_header_bytes)
        .max_connections(args.max_connections.max(1))
        .max_bad_tokens(args.max_bad_tokens)
        .answer_cache(args.answer_cache)
        .workers(args.workers)
        .pairs(args.pairs.clone());
    let started = Instant::now();
    let app = match served {
        Served::One(memory) => App::new(*memory, config),
        Served::Several(memories) => App::several(memories, config),
    }?;
    let warm = started.elapsed();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("serve: cannot start the runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("serve: cannot listen on {}", args.listen))?;
        let local = listener.local_addr().context("serve: the listening address")?;
        // Before the address is announced: a supervisor may signal at once.
        let stop = shutdown_signal();
        if !quiet {
            let pairs = args.pairs.as_ref().map(|p| format!(", pairs {p}")).unwrap_or_default();
            eprintln!(
                "cmem: serving {address}{pairs} on http://{local} (index ready in {}; Ctrl-C or SIGTERM stops)",
                duration(warm)
            );
        }
        serve_on(listener, Arc::new(app), stop).await?;
        anyhow::Ok(())
    })?;
    if !quiet {
        eprintln!("cmem: stopped; every request under way was answered");
    }
    Ok(())
}
