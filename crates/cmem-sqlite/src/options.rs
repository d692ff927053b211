//! [`SqliteOptions`]: how a [`SqliteStore`](crate::SqliteStore) is opened.

use std::time::Duration;

pub use cmem_core::{ServedPairs, WaitHook};

/// Options of [`SqliteStore::open_with`](crate::SqliteStore::open_with).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SqliteOptions {
    /// Serve fuzzy candidates from the in-process trigram index (built per source
    /// locale on first use, kept in sync on write). Default true. When false, candidates
    /// come from SQL: the FTS5 trigram table first (best first, so the cut-off rises),
    /// then the length pre-filter for completeness.
    pub gram_index: bool,
    /// Keep the in-process index of each locale in a file beside the database
    /// (`<db>-gix-<locale>`), so a new process opens it in place instead of building it
    /// from the tables; it records the state of the memory it reflects and catches up
    /// with what was written since from the change log (or is rebuilt when far behind,
    /// damaged, or of another memory). Written after a build (not when read-only).
    /// Default true; ignored for an in-memory database.
    pub persist_index: bool,
    /// Build a locale's in-process index from the tables when it has no usable file.
    /// Default true. When false, such a lookup takes its candidates from SQL instead: a
    /// one-shot process that would spend longer building the index than looking up.
    pub build_index: bool,
    /// Behave as if FTS5's trigram tokenizer were missing: SQL candidates use the length
    /// pre-filter alone. For testing the fallback path (feature `testing`). Default false.
    #[cfg(feature = "testing")]
    pub force_no_trigram: bool,
    /// How long a statement waits for another connection's lock. Default 5 s.
    pub busy_timeout: Duration,
    /// How long a write or a [`WriteSession`](cmem_core::imp::WriteSession) waits for another writer to finish before
    /// it fails: writes take the write lock when they begin (`BEGIN IMMEDIATE`), so a
    /// second writer waits here instead of failing. Default 60 s.
    pub write_wait: Duration,
    /// Told while a write waits for another writer (see [`WaitHook`]). Default none.
    pub on_wait: Option<WaitHook>,
    /// Open read-only: nothing in the file or beside it is created or changed (no WAL
    /// switch, no migration, no re-keying); writes fail; a database that needs upgrading
    /// or re-keying is refused with a message saying so. Default false.
    pub read_only: bool,
    /// Create the database when the file is missing. Default true; ignored when
    /// [`read_only`](Self::read_only).
    pub create: bool,
    /// When opening for writing, check the database (`PRAGMA quick_check`) and refuse a
    /// damaged one before changing anything. Default true.
    pub check_on_write: bool,
    /// SQLite's page cache, in KiB. Default 65,536 (64 MiB).
    pub cache_kib: u32,
    /// The most page cache a [`WriteSession`](cmem_core::imp::WriteSession) (an import)
    /// may use, in KiB. A session's connection starts at a quarter of the database's
    /// size and follows it as the session writes, never below
    /// [`cache_kib`](Self::cache_kib) and never above this; SQLite takes the memory only
    /// as pages are touched. A session is one transaction: pages that no longer fit its
    /// cache go to the WAL and are written there again each time they change, so a
    /// cache that holds the key indexes spares a large import most of those writes
    /// (DESIGN.md §6.2). Default 2,097,152 (2 GiB).
    pub session_cache_kib: u32,
    /// Let an import into an empty memory hold the file alone: when no other connection
    /// has it open, the import's session leaves WAL for a rollback journal until it
    /// ends, so the database is written once (the pages it appends need no journal)
    /// instead of to the WAL and again at the checkpoint. Meanwhile other connections
    /// wait for it as for a writer (a read waits [`busy_timeout`](Self::busy_timeout),
    /// an open for writing [`write_wait`](Self::write_wait)); a killed import is rolled
    /// back from the journal by the next open. Default false; `cmem import` sets it for
    /// a memory it creates (DESIGN.md §6.2).
    pub first_import_alone: bool,
    /// Index only the keys these locale pairs' lookups read (`None`, the default: every
    /// key): a server of some pairs of a memory of many (`cmem serve --pairs`) maps and
    /// counts their keys alone. Their index files are apart from those of every key
    /// (see [`ServedPairs`]). Lookups of other pairs find fewer or no candidates.
    pub served: Option<ServedPairs>,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            gram_index: true,
            persist_index: true,
            build_index: true,
            #[cfg(feature = "testing")]
            force_no_trigram: false,
            busy_timeout: Duration::from_secs(5),
            write_wait: Duration::from_secs(60),
            on_wait: None,
            read_only: false,
            create: true,
            check_on_write: true,
            cache_kib: 64 * 1024,
            session_cache_kib: 2 * 1024 * 1024,
            first_import_alone: false,
            served: None,
        }
    }
}

impl SqliteOptions {
    /// Sets [`on_wait`](Self::on_wait).
    #[must_use]
    pub fn on_wait(mut self, hook: WaitHook) -> Self {
        self.on_wait = Some(hook);
        self
    }

    /// Sets [`served`](Self::served).
    #[must_use]
    pub fn served(mut self, served: Option<ServedPairs>) -> Self {
        self.served = served;
        self
    }
}

cmem_core::setters!(SqliteOptions {
    gram_index: bool,
    persist_index: bool,
    build_index: bool,
    cache_kib: u32,
    session_cache_kib: u32,
    read_only: bool,
    busy_timeout: Duration,
    write_wait: Duration,
    create: bool,
    check_on_write: bool,
    first_import_alone: bool,
});

#[cfg(feature = "testing")]
cmem_core::setters!(SqliteOptions { force_no_trigram: bool });
