//! [`ServerConfig`]: where the server listens and the limits it keeps.

use std::net::SocketAddr;
use std::time::Duration;

use crate::pairs::Pairs;
use crate::rate::RateLimit;

/// How the server runs; see [`serve`](crate::serve).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The address to listen on (default `127.0.0.1:8080`: loopback only; TLS and a
    /// public address belong to a reverse proxy in front of it).
    pub listen: SocketAddr,
    /// Reads (lookups, search, entries, stats, amaGama) need a token of scope `read` or
    /// more (default false: reads are open, writes always need a `write` token).
    pub read_needs_token: bool,
    /// The largest request body accepted, in bytes (default 4 MiB: a batch of 1,000
    /// segments of ordinary length); larger gets `413`. Every route but the import
    /// upload, which has [`max_upload_bytes`](Self::max_upload_bytes).
    pub max_body_bytes: usize,
    /// The longest request target (path and query string) accepted, in bytes (default
    /// 16 KiB); longer gets `414`.
    pub max_uri_bytes: usize,
    /// How long one request may take the store before it is answered `503` (default
    /// 30 s).
    pub request_timeout: Duration,
    /// The largest import upload (`POST /v1/imports`) accepted, in bytes (default
    /// 16 GiB); larger gets `413`. It is streamed to a temporary file, never held in
    /// memory, so it is not bound by [`max_body_bytes`](Self::max_body_bytes): a memory
    /// to import is commonly hundreds of megabytes.
    pub max_upload_bytes: u64,
    /// The most segments of one batch lookup (default 1,000).
    pub max_batch: usize,
    /// The most search hits one page may hold, and how deep pages go (default 1,000).
    pub max_search_hits: usize,
    /// Requests each bearer token (or, without one, each client address) may make
    /// (default none: no limit); beyond it `429` with `Retry-After`.
    pub rate_limit: Option<RateLimit>,
    /// Write one JSON line per answered request to standard error (default false).
    pub access_log: bool,
    /// How long a connection may take to send a request's headers, and how long a
    /// kept-alive connection may sit idle (default 10 s); then it is closed.
    pub header_timeout: Duration,
    /// How long a request other than an import upload may take from its headers to
    /// its answer, its body included (default 60 s): a body sent too slowly gets `408`.
    pub body_timeout: Duration,
    /// The largest request head (request line and headers) accepted, in bytes (default
    /// 64 KiB, at least 8 KiB); larger gets `431`.
    pub max_header_bytes: usize,
    /// The most connections open at once (default 1,024); one more is answered `503`
    /// and closed.
    pub max_connections: usize,
    /// Requests with an unknown or revoked token one client address may make in a
    /// minute (default 20); past it, that address is answered `429` for a minute, and
    /// the server logs it to standard error.
    pub max_bad_tokens: u32,
    /// How many answers of the amaGama routes are kept while the memory does not change
    /// (default 10,000; 0: none).
    pub answer_cache: usize,
    /// How many requests do their store work at once (default 0: three per
    /// processor); the others wait their turn in arrival order. Each thread doing lookups
    /// keeps scratch arrays as large as the index, so a crowd of them time-sliced over
    /// a few processors evicts each other's from the caches; a few at a time finish
    /// sooner, and the answers come in the order asked.
    pub workers: usize,
    /// The locale pairs served (default none: every pair). A request naming another
    /// pair is answered `421 Misdirected Request`, the body naming these; only their
    /// source locales' candidate indexes are built at start, and amaGama's `languages`
    /// and `/v1/stats` list only these pairs. For several servers on one memory behind
    /// a proxy that routes by pair (docs/operators.md).
    pub pairs: Option<Pairs>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            read_needs_token: false,
            max_body_bytes: 4 << 20,
            max_uri_bytes: 16 << 10,
            request_timeout: Duration::from_secs(30),
            max_upload_bytes: 16 << 30,
            max_batch: 1_000,
            max_search_hits: 1_000,
            rate_limit: None,
            access_log: false,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(60),
            max_header_bytes: 64 << 10,
            max_connections: 1_024,
            max_bad_tokens: 20,
            answer_cache: 10_000,
            workers: 0,
            pairs: None,
        }
    }
}

cmem::setters!(ServerConfig {
    listen: SocketAddr,
    read_needs_token: bool,
    max_body_bytes: usize,
    max_upload_bytes: u64,
    max_uri_bytes: usize,
    rate_limit: Option<RateLimit>,
    access_log: bool,
    request_timeout: Duration,
    header_timeout: Duration,
    body_timeout: Duration,
    max_header_bytes: usize,
    max_connections: usize,
    answer_cache: usize,
    workers: usize,
    max_bad_tokens: u32,
    pairs: Option<Pairs>,
});

impl ServerConfig {
    /// The defaults.
    pub fn new() -> Self {
        ServerConfig::default()
    }

    /// How many requests do their store work at once: [`workers`](Self::workers), or
    /// three per processor when it is 0.
    ///
    /// More workers than processors only time-slice the processors, but the scheduler
    /// shares them out by runnable thread: beside a busy neighbour (an import, another
    /// server) three a processor keep most of them for lookups, at a few milliseconds
    /// of tail (docs/performance.md).
    pub fn effective_workers(&self) -> usize {
        match self.workers {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()) * 3,
            n => n,
        }
    }
}
