//! [`ServerConfig`]: where the server listens and the limits it keeps.

use std::net::SocketAddr;
use std::time::Duration;

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
    /// How many requests do their store work at once (default 0: twice the processor
    /// count); the others wait their turn in arrival order. Each thread doing lookups
    /// keeps scratch arrays as large as the index, so a crowd of them time-sliced over
    /// a few processors evicts each other's from the caches; a few at a time finish
    /// sooner, and the answers come in the order asked.
    pub workers: usize,
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
        }
    }
}

impl ServerConfig {
    /// The defaults.
    pub fn new() -> Self {
        ServerConfig::default()
    }

    /// Sets [`listen`](Self::listen).
    #[must_use]
    pub fn listen(mut self, addr: SocketAddr) -> Self {
        self.listen = addr;
        self
    }

    /// Sets [`read_needs_token`](Self::read_needs_token).
    #[must_use]
    pub fn read_needs_token(mut self, on: bool) -> Self {
        self.read_needs_token = on;
        self
    }

    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets [`max_upload_bytes`](Self::max_upload_bytes).
    #[must_use]
    pub fn max_upload_bytes(mut self, bytes: u64) -> Self {
        self.max_upload_bytes = bytes;
        self
    }

    /// Sets [`max_uri_bytes`](Self::max_uri_bytes).
    #[must_use]
    pub fn max_uri_bytes(mut self, bytes: usize) -> Self {
        self.max_uri_bytes = bytes;
        self
    }

    /// Sets [`rate_limit`](Self::rate_limit).
    #[must_use]
    pub fn rate_limit(mut self, limit: Option<RateLimit>) -> Self {
        self.rate_limit = limit;
        self
    }

    /// Sets [`access_log`](Self::access_log).
    #[must_use]
    pub fn access_log(mut self, on: bool) -> Self {
        self.access_log = on;
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets [`header_timeout`](Self::header_timeout).
    #[must_use]
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets [`body_timeout`](Self::body_timeout).
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Sets [`max_header_bytes`](Self::max_header_bytes).
    #[must_use]
    pub fn max_header_bytes(mut self, bytes: usize) -> Self {
        self.max_header_bytes = bytes;
        self
    }

    /// Sets [`max_connections`](Self::max_connections).
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// Sets [`answer_cache`](Self::answer_cache).
    #[must_use]
    pub fn answer_cache(mut self, answers: usize) -> Self {
        self.answer_cache = answers;
        self
    }

    /// Sets [`workers`](Self::workers).
    #[must_use]
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// How many requests do their store work at once: [`workers`](Self::workers), or
    /// twice the processor count when it is 0.
    pub fn effective_workers(&self) -> usize {
        match self.workers {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()) * 2,
            n => n,
        }
    }

    /// Sets [`max_bad_tokens`](Self::max_bad_tokens).
    #[must_use]
    pub fn max_bad_tokens(mut self, per_minute: u32) -> Self {
        self.max_bad_tokens = per_minute;
        self
    }
}
