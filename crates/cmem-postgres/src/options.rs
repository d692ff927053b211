//! [`PgOptions`]: how a [`PgStore`](crate::PgStore) opens a memory.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

pub use cmem_core::{ServedPairs, WaitHook};

/// How [`PgStore::open_with`](crate::PgStore::open_with) opens a memory.
#[derive(Clone)]
#[non_exhaustive]
pub struct PgOptions {
    /// Create the schema in a database that has none (default true). When false, a
    /// database without cmem's tables is refused rather than turned into a memory.
    pub create: bool,
    /// Open for reading only: writes fail, and nothing is migrated (default false).
    pub read_only: bool,
    /// Serve fuzzy candidates from the in-process candidate index (default true); when
    /// false, from the database: the keys sharing two of the query's rarest words, then
    /// (unless one scored 0.9) either of its two rarest words, then (when nothing
    /// reached the threshold) any of its four rarest, most similar first, through the
    /// word index. That is approximate: it misses a best match whose words differ from
    /// the query's (a plural, the edited word of a two-word query, markup around one
    /// word), and it is far faster than
    /// [`exhaustive_window`](Self::exhaustive_window), which finds them all (DESIGN.md
    /// §8.6; recall and latency of both in docs/performance.md); see also
    /// [`words_from_bytes`](Self::words_from_bytes) and
    /// [`trigram_first`](Self::trigram_first).
    pub gram_index: bool,
    /// Without the in-process index: skip the word steps and offer every key in the
    /// length window the cut-off allows, a superset of what can reach it, so lists equal
    /// the other stores' (default false: on a large memory the window is tens of
    /// thousands of rows a lookup; DESIGN.md §8.6).
    pub exhaustive_window: bool,
    /// Without the in-process index: the size of the variants table (bytes, as
    /// `pg_relation_size` gives it, read at most once a minute) from which the word
    /// steps are taken; below it, every key in the length window is offered, which is
    /// exact and cheap on a small memory (default 8 MiB, some 20,000 variants). Zero:
    /// the word steps on any memory.
    pub words_from_bytes: u64,
    /// Without the in-process index: offer `pg_trgm` similarity hits (`%` on the three
    /// keys) before the word steps or the length window, to raise the cut-off early
    /// (default false: on a large memory the similarity query alone can take longer
    /// than the window it narrows; DESIGN.md §8.6). Unstable: an experiment knob no
    /// default path uses; it may change or go in any release.
    pub trigram_first: bool,
    /// How long a write waits for another writer before it fails (default 60 s).
    pub write_wait: Duration,
    /// Told while a write waits for another writer (default none).
    pub on_wait: Option<WaitHook>,
    /// How long opening waits for a connection (default 10 s).
    pub connect_timeout: Duration,
    /// The most connections the store keeps open at once (default 8).
    pub pool_size: u32,
    /// How stale the in-process index may be about other processes' writes: a store call
    /// reads the change counter (a round trip) only when it last did longer ago than
    /// this. Default zero: every call reads it, so a lookup sees every write committed
    /// before it began. A server may allow a tenth of a second or so and save the round
    /// trip on most lookups; the store's own writes are seen at once either way.
    pub freshness: Duration,
    /// Where the in-process candidate index is kept between runs (default none: every
    /// process builds it from the tables, seconds on a large memory; DESIGN.md §8.4). With a
    /// directory, a process that builds the index writes it there, one file per locale
    /// named after the memory's token, and the next process opens the file and takes the
    /// changes since from the change log instead. Files of other memories may share the
    /// directory; a file that does not belong, is damaged or is too far behind is built
    /// again and replaced. A directory that cannot be written only costs the next
    /// process the build.
    pub index_dir: Option<PathBuf>,
    /// A streaming replica of the database to read from (an address as for
    /// [`PgStore::open`](crate::PgStore::open); default none): lookups, entries, search,
    /// stats, versions and the change counter are read there, writes, migrations, the
    /// memory's metadata and tokens go to the primary. The replica's change counter
    /// keeps the index current as the primary's does. A write is seen on the replica once
    /// it has replayed it: with `synchronous_commit = remote_apply` and the replica in
    /// `synchronous_standby_names`, at once (docs/operators.md).
    pub replica: Option<String>,
    /// Index only the keys these locale pairs' lookups read (`None`, the default: every
    /// key): a server of some pairs of a memory of many (`cmem serve --pairs`) holds and
    /// counts their keys alone. Its index files in [`index_dir`](Self::index_dir) are
    /// apart from those of every key (see [`ServedPairs`]). Lookups of other pairs find
    /// fewer or no candidates.
    pub served: Option<ServedPairs>,
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            create: true,
            read_only: false,
            gram_index: true,
            trigram_first: false,
            exhaustive_window: false,
            words_from_bytes: 8 << 20,
            write_wait: Duration::from_secs(60),
            on_wait: None,
            connect_timeout: Duration::from_secs(10),
            pool_size: 8,
            freshness: Duration::ZERO,
            index_dir: None,
            replica: None,
            served: None,
        }
    }
}

impl fmt::Debug for PgOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgOptions")
            .field("create", &self.create)
            .field("read_only", &self.read_only)
            .field("gram_index", &self.gram_index)
            .field("trigram_first", &self.trigram_first)
            .field("exhaustive_window", &self.exhaustive_window)
            .field("words_from_bytes", &self.words_from_bytes)
            .field("write_wait", &self.write_wait)
            .field("on_wait", &self.on_wait.as_ref().map(|_| ".."))
            .field("connect_timeout", &self.connect_timeout)
            .field("pool_size", &self.pool_size)
            .field("freshness", &self.freshness)
            .field("index_dir", &self.index_dir)
            .field("replica", &self.replica.as_deref().map(crate::address::redact))
            .field("served", &self.served)
            .finish()
    }
}

impl PgOptions {
    /// Sets [`on_wait`](Self::on_wait).
    #[must_use]
    pub fn on_wait(mut self, hook: WaitHook) -> Self {
        self.on_wait = Some(hook);
        self
    }

    /// Sets [`index_dir`](Self::index_dir).
    #[must_use]
    pub fn index_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.index_dir = Some(dir.into());
        self
    }

    /// Sets [`replica`](Self::replica).
    #[must_use]
    pub fn replica(mut self, url: impl Into<String>) -> Self {
        self.replica = Some(url.into());
        self
    }

    /// Sets [`served`](Self::served).
    #[must_use]
    pub fn served(mut self, served: Option<ServedPairs>) -> Self {
        self.served = served;
        self
    }

    /// Sets [`pool_size`](Self::pool_size) (at least 1).
    #[must_use]
    pub fn pool_size(mut self, n: u32) -> Self {
        self.pool_size = n.max(1);
        self
    }
}

cmem_core::setters!(PgOptions {
    create: bool,
    read_only: bool,
    gram_index: bool,
    trigram_first: bool,
    exhaustive_window: bool,
    words_from_bytes: u64,
    write_wait: Duration,
    connect_timeout: Duration,
    freshness: Duration,
});
