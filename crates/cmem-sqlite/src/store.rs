//! [`SqliteStore`]: the [`ContentMemory`] over one SQLite file (or an in-memory
//! database), with its FTS5 tables kept in sync on every write and delete.

mod capabilities;

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use cmem_core::imp::{build_trigram_query, KeyKind, Keys, WriteSession};
use cmem_core::index::trigram::length_bounds;
use cmem_core::model::run::runs_to_json;
use cmem_core::store::schema::{count_sql, counted_rows, stored_keys, Dialect, COUNTS_TABLE, SCHEMA_VERSION};
use cmem_core::store::stored;
use cmem_core::store::{
    CandidateQuery, CandidateSink, ContentMemory, ExactQuery, SearchHit, SearchQuery, Stats,
};
use cmem_core::Capabilities;
use cmem_core::{
    merge_origins, normalize_text, Entry, EntryId, Error, ErrorKind, Locale, NewEntry, Origin, Result,
    Variant, WriteOutcome,
};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use cmem_core::index::index_cache::{
    ChangedKeys as CachedKeys, IndexCache as Cache, IndexFiles, IndexInfo, Loaded,
};

use crate::cache::{Log, Persist, KEYS_OF_V};
use crate::error::{corrupt, Context};
use crate::lock::Immediate;
use crate::migrate::{self, INSERT_TRIGRAM};
use crate::open::{check_file, open_read_only, quick_check, trigram_available};
use crate::options::SqliteOptions;

/// How this store names itself in the errors of a damaged row (see [`stored`]).
const STORE: &str = "sqlite";
/// A [`ContentMemory`] in one SQLite database: tables `tm_entries`, `tm_variants`,
/// `tm_origins`, FTS5 tables `tm_variant_trigram` and `tm_variant_search`, migrated to
/// [`SCHEMA_VERSION`] on open. Safe to share between threads: one connection behind a
/// mutex for writes and the rest, read-only connections from a pool for the reads of a
/// lookup (a file's only; an in-memory database has its one connection), candidates
/// served from an in-process index behind a read-write lock.
#[derive(Debug)]
pub struct SqliteStore {
    pub(crate) path: String,
    /// What read connections open: the file, or an `immutable=1` URI for a database in
    /// a directory that read-only connections cannot create SQLite's `-shm` file in.
    reader_uri: Option<String>,
    /// Idle read-only connections, opened as lookups on several threads need them.
    /// Declared before `conn` so they close first: the last connection to close removes
    /// the WAL files, and a read-only one cannot.
    readers: Mutex<Vec<Connection>>,
    /// The read-only connection the [change mark](cmem_core::IndexControl::change_mark) is read
    /// on, opened on first use: `PRAGMA data_version` counts the commits of every other
    /// connection, this process's writer included, as seen by one connection.
    marker: Mutex<Option<Connection>>,
    conn: Mutex<Connection>,
    pub(crate) cache: RwLock<Cache>,
    trigram: bool,
    pub(crate) options: SqliteOptions,
    /// The cap of [`set_max_page_count`](Self::set_max_page_count); 0 = none.
    pub(crate) max_pages: std::sync::atomic::AtomicU64,
    /// The word models read so far (see `words`).
    pub(crate) word_models: cmem_core::align::ModelCache,
    /// The given term lists read so far, parsed (see `capabilities`).
    given: cmem_core::store::learn::GivenCache,
}

/// SQL for "the locale in column `col` matches `?N` by the prefix rule" (tags are
/// stored canonically; `LIKE` is ASCII case-insensitive, which BCP 47 tags are).
fn locale_match(col: &str, n: u8) -> String {
    format!("({col} = ?{n} OR {col} LIKE ?{n} || '-%' OR ?{n} LIKE {col} || '-%')")
}

/// SQL for "the locale in column `col` is of the language of `?N`": what a lookup's
/// candidates are read by. It lets through every locale [`Locale::fit`] accepts (another
/// region too) and a few it does not (another script); the lookup checks each
/// candidate's variants with `fit` before it scores them as matches.
fn locale_fits(col: &str, n: u8) -> String {
    let lang = format!("substr(?{n}, 1, instr(?{n} || '-', '-') - 1)");
    format!("({col} = {lang} OR {col} LIKE {lang} || '-%')")
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` with default options, and
    /// migrates it to the current schema.
    ///
    /// # Errors
    /// [`ErrorKind::Store`] when the file cannot be opened or created (a missing
    /// directory, a read-only location); [`ErrorKind::Corrupt`] for a file that is not
    /// a SQLite database or is damaged; [`ErrorKind::Schema`] for a database of a newer
    /// schema version or one that is not a cmem database. Each names the file.
    ///
    /// # Examples
    /// A memory written by one store is there for the next one opened on the file:
    /// ```
    /// use cmem_core::{ContentMemory, Locale, NewEntry, Run, Variant};
    /// use cmem_sqlite::SqliteStore;
    ///
    /// let dir = std::env::temp_dir().join(format!("cmem-doc-sqlite-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("memory.db");
    /// let (en, fr) = (Locale::parse("en")?, Locale::parse("fr")?);
    /// {
    ///     let store = SqliteStore::open(&path)?;
    ///     store.write(&[NewEntry::pair(
    ///         Variant::new(en, vec![Run::text("Undo")]),
    ///         Variant::new(fr, vec![Run::text("Annuler")]),
    ///     )])?;
    /// }
    /// let entries = SqliteStore::open(&path)?.stats()?.entries;
    /// std::fs::remove_dir_all(&dir)?;
    /// assert_eq!(entries, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore> {
        SqliteStore::open_with(path, SqliteOptions::default())
    }

    /// Opens `path` with `options`; see [`open`](Self::open).
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_with(path: impl AsRef<Path>, options: SqliteOptions) -> Result<SqliteStore> {
        let path = path.as_ref();
        let name = path.display().to_string();
        check_file(path, &name, &options)?;
        if options.read_only {
            let (conn, reader_uri) = open_read_only(path, &name)?;
            return SqliteStore::init(conn, name, reader_uri, options, SCHEMA_VERSION);
        }
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if options.create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let conn = Connection::open_with_flags(path, flags).ctx(&name, "cannot open the database")?;
        SqliteStore::init(conn, name, None, options, SCHEMA_VERSION)
    }

    /// A private in-memory database (gone when the store is dropped).
    ///
    /// # Errors
    /// A SQLite failure creating the schema.
    pub fn open_in_memory() -> Result<SqliteStore> {
        SqliteStore::open_in_memory_with(SqliteOptions::default())
    }

    /// [`open_in_memory`](Self::open_in_memory) with `options`.
    ///
    /// # Errors
    /// A SQLite failure creating the schema.
    pub fn open_in_memory_with(options: SqliteOptions) -> Result<SqliteStore> {
        let conn = Connection::open_in_memory().ctx(":memory:", "cannot open an in-memory database")?;
        SqliteStore::init(conn, ":memory:".to_owned(), None, options, SCHEMA_VERSION)
    }

    /// Creates an empty database at `path` with the schema of an older `version`
    /// (migrations 1 to `version` only), and leaves it at that version: for
    /// compatibility fixtures and upgrade tests (feature `testing`). [`open`](Self::open)
    /// upgrades it.
    ///
    /// # Errors
    /// A version outside 1–[`SCHEMA_VERSION`], a database that is not empty, or a
    /// SQLite failure.
    #[cfg(feature = "testing")]
    pub fn create_at_version(path: impl AsRef<Path>, version: u32) -> Result<()> {
        let name = path.as_ref().display().to_string();
        let conn = Connection::open(path.as_ref()).ctx(&name, "cannot open the database")?;
        migrate::create_at(&conn, &name, version)
    }

    fn init(
        conn: Connection,
        path: String,
        reader_uri: Option<String>,
        options: SqliteOptions,
        target: u32,
    ) -> Result<SqliteStore> {
        conn.busy_timeout(options.busy_timeout).ctx(&path, "setting the busy timeout")?;
        if !options.read_only && path != ":memory:" {
            // A write open waits for a writer as a write does; then, for the steps of the
            // open, as long (see `SqliteOptions::first_import_alone`).
            crate::lock::wait_until_readable(&conn, &path, &options)?;
            conn.busy_timeout(options.write_wait.max(options.busy_timeout))
                .ctx(&path, "setting the busy timeout")?;
        }
        conn.set_prepared_statement_cache_capacity(64);
        // A non-database fails here (the wait above lets it pass, to be named here).
        conn.pragma_update(None, "cache_size", -i64::from(options.cache_kib))
            .ctx(&path, "setting the cache size")?;
        // Refuse a foreign, newer or damaged database before touching the file (WAL
        // changes it).
        migrate::refuse_foreign_or_newer(&conn, &path)?;
        if !options.read_only && options.check_on_write {
            quick_check(&conn, &path)?;
        }
        if !options.read_only {
            let mode = crate::open::enable_wal(&conn, &path, &options)?;
            if mode != "wal" && mode != "memory" {
                return Err(Error::new(
                    ErrorKind::Store,
                    format!("sqlite store {path}: cannot enable WAL mode (journal mode is {mode})"),
                ));
            }
            conn.pragma_update(None, "synchronous", "NORMAL").ctx(&path, "setting synchronous")?;
        }
        conn.pragma_update(None, "foreign_keys", "ON").ctx(&path, "enabling foreign keys")?;
        migrate::migrate(&conn, &path, target, &options)?;
        #[cfg(feature = "testing")]
        let forced_off = options.force_no_trigram;
        #[cfg(not(feature = "testing"))]
        let forced_off = false;
        let trigram = !forced_off && trigram_available(&conn);
        conn.busy_timeout(options.busy_timeout).ctx(&path, "setting the busy timeout")?;
        Ok(SqliteStore {
            path,
            reader_uri,
            readers: Mutex::new(Vec::new()),
            marker: Mutex::new(None),
            conn: Mutex::new(conn),
            cache: RwLock::new(Cache::serving(options.served.clone())),
            trigram,
            options,
            max_pages: std::sync::atomic::AtomicU64::new(0),
            word_models: cmem_core::align::ModelCache::default(),
            given: cmem_core::store::learn::GivenCache::default(),
        })
    }

    /// The file this store opened (`:memory:` for an in-memory store).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// True when fuzzy candidates may use FTS5's trigram tokenizer (it exists and is
    /// not forced off).
    pub fn has_trigram(&self) -> bool {
        self.trigram
    }

    /// The in-process candidate indexes loaded so far: per locale, how many keys were
    /// read in place from the persisted file and how many were added since.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn index_info(&self) -> Result<Vec<IndexInfo>> {
        Ok(self.cache_read()?.info())
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &SqliteOptions {
        &self.options
    }

    /// Caps the database file at `pages` pages (`PRAGMA max_page_count`), a quota: a
    /// write that would grow past it fails as a full disk does, and stores nothing.
    /// Returns the cap in force (never below the current size). Write sessions begun
    /// afterwards are capped alike. For the full-disk tests (feature `testing`).
    ///
    /// # Errors
    /// A store failure.
    #[cfg(feature = "testing")]
    pub fn set_max_page_count(&self, pages: u64) -> Result<u64> {
        let conn = self.conn()?;
        let pages = i64::try_from(pages).unwrap_or(i64::MAX);
        let n: i64 = conn
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |r| r.get(0))
            .ctx(&self.path, "setting max_page_count")?;
        self.max_pages.store(n.max(0) as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n.max(0) as u64)
    }

    /// A new read-only connection to the file, or `None` when one cannot be opened.
    fn open_reader(&self) -> Option<Connection> {
        let flags =
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
        let conn = match &self.reader_uri {
            Some(uri) => Connection::open_with_flags(uri, flags),
            None => Connection::open_with_flags(&self.path, flags),
        }
        .ok()?;
        conn.busy_timeout(self.options.busy_timeout).ok()?;
        conn.pragma_update(None, "cache_size", -i64::from(self.options.cache_kib)).ok()?;
        conn.set_prepared_statement_cache_capacity(64);
        Some(conn)
    }

    /// The error for a lock (`what`) that a panicking thread left poisoned.
    fn poisoned(&self, what: &str) -> Error {
        Error::new(ErrorKind::Store, format!("sqlite store {}: {what} lock poisoned", self.path))
    }

    pub(crate) fn conn(&self) -> Result<MutexGuard<'_, Connection>> {
        self.conn.lock().map_err(|_| self.poisoned("connection"))
    }

    /// Switches the file from WAL to a rollback journal on the store's own connection,
    /// when no other connection has it open; true when it did. The idle pooled readers
    /// close first; a reader in use, the change-mark connection (whose count of commits
    /// must go on) or another program's connection keeps WAL.
    pub(crate) fn leave_wal(&self) -> Result<bool> {
        let conn = self.conn()?;
        if self.marker.lock().map_err(|_| self.poisoned("marker"))?.is_some() {
            return Ok(false);
        }
        self.readers.lock().map_err(|_| self.poisoned("readers"))?.clear();
        let p = &self.path;
        // Another connection's hold is not waited for: the import goes on in WAL.
        conn.busy_timeout(std::time::Duration::ZERO).ctx(p, "setting the busy timeout")?;
        let mode = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get::<_, String>(0));
        conn.busy_timeout(self.options.busy_timeout).ctx(p, "setting the busy timeout")?;
        match mode {
            Ok(mode) => Ok(mode == "delete"),
            Err(e) if crate::lock::busy(&e) => Ok(false),
            Err(e) => Err(crate::error::sql_error(p, "leaving WAL for the import", e)),
        }
    }

    /// Runs `read` on a connection that sees every committed write: an idle pooled
    /// reader or a new one, given back afterwards; for an in-memory database, or when a
    /// reader cannot be opened, the main connection.
    pub(crate) fn with_reader<T>(&self, read: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        if self.path != ":memory:" {
            let idle = self.readers.lock().ok().and_then(|mut idle| idle.pop());
            let conn = idle.or_else(|| self.open_reader());
            if let Some(conn) = conn {
                let out = read(&conn);
                if let Ok(mut idle) = self.readers.lock() {
                    idle.push(conn);
                }
                return out;
            }
        }
        let conn = self.conn()?;
        read(&conn)
    }

    fn cache_read(&self) -> Result<RwLockReadGuard<'_, Cache>> {
        self.cache.read().map_err(|_| self.poisoned("cache"))
    }

    pub(crate) fn cache_write(&self) -> Result<RwLockWriteGuard<'_, Cache>> {
        self.cache.write().map_err(|_| self.poisoned("cache"))
    }

    /// Loads the index of every locale matching `source` when missing, and catches up
    /// with other connections' writes (see [`IndexCache::load`](cmem_core::index::index_cache::IndexCache::load)); false when a locale has no
    /// usable index file and [`build_index`](SqliteOptions::build_index) is off.
    fn ensure_cache(&self, source: &Locale) -> Result<bool> {
        let conn = self.conn()?;
        let p = &self.path;
        let dv: i64 =
            conn.query_row("PRAGMA data_version", [], |r| r.get(0)).ctx(p, "reading data_version")?;
        if self.cache_read()?.is_current(dv, source) {
            return Ok(true);
        }
        let persist = (self.options.persist_index && self.path != ":memory:")
            .then(|| Persist { db: std::path::PathBuf::from(&self.path), write: !self.options.read_only });
        let files = persist.as_ref().map(|f| f as &dyn IndexFiles);
        let loaded =
            self.cache_write()?.load(Log::begin(&conn, p, dv)?, files, source, self.options.build_index)?;
        Ok(loaded == Loaded::Ready)
    }

    /// [`ContentMemory::exact`] on `conn`.
    fn exact_on(&self, conn: &Connection, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        let p = &self.path;
        // NULL keys stand for the key before them (`stored_keys`): each arm uses an index.
        let sql = match q.kind {
            KeyKind::Plain => "SELECT entry_id, locale FROM tm_variants WHERE plain = ?1 ORDER BY entry_id",
            KeyKind::Structural => {
                "SELECT entry_id, locale FROM (\
                 SELECT entry_id, locale FROM tm_variants WHERE struct_key = ?1 UNION ALL \
                 SELECT entry_id, locale FROM tm_variants WHERE struct_key IS NULL AND plain = ?1) \
                 ORDER BY entry_id"
            }
            KeyKind::Generalized => {
                "SELECT entry_id, locale FROM (\
                 SELECT entry_id, locale FROM tm_variants WHERE general_key = ?1 UNION ALL \
                 SELECT entry_id, locale FROM tm_variants WHERE general_key IS NULL AND struct_key = ?1 \
                 UNION ALL SELECT entry_id, locale FROM tm_variants \
                 WHERE general_key IS NULL AND struct_key IS NULL AND plain = ?1) ORDER BY entry_id"
            }
        };
        let rows: Vec<(i64, String)> = {
            let mut stmt = conn.prepare_cached(sql).ctx(p, "exact lookup")?;
            let rows = stmt.query_map([q.key], |r| Ok((r.get(0)?, r.get(1)?))).ctx(p, "exact lookup")?;
            rows.collect::<rusqlite::Result<_>>().ctx(p, "exact lookup")?
        };
        let mut out: Vec<Entry> = Vec::new();
        // Rows come by entry: an entry loaded once is decided, kept or not.
        let mut loaded: Option<i64> = None;
        for (id, tag) in rows {
            if loaded == Some(id) {
                continue;
            }
            let locale = Locale::parse(&tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))?;
            if q.source.fit(&locale).is_none() {
                continue;
            }
            loaded = Some(id);
            if let Some(e) = self.load_entry(conn, EntryId(id))? {
                if e.lookup_variant(q.target).is_some() {
                    out.push(e);
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn load_entry(&self, conn: &Connection, id: EntryId) -> Result<Option<Entry>> {
        let p = &self.path;
        let reading = || format!("reading entry {id}");
        let head: Option<(String, String, String, String, i64)> = conn
            .prepare_cached(
                "SELECT project_id, metadata, point, unit, approvals FROM tm_entries WHERE id = ?1",
            )
            .and_then(|mut s| {
                s.query_row([id.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
                    .optional()
            })
            .ctx_with(p, reading)?;
        let Some((project_id, metadata, point, unit, approvals)) = head else { return Ok(None) };
        let metadata = stored::metadata(STORE, p, id, &metadata)?;
        let point = stored::point(STORE, p, id, &point)?;
        let mut variants = Vec::new();
        {
            let mut stmt = conn
                .prepare_cached("SELECT locale, runs FROM tm_variants WHERE entry_id = ?1 ORDER BY ord")
                .ctx_with(p, reading)?;
            let mut rows = stmt.query([id.0]).ctx_with(p, reading)?;
            while let Some(r) = rows.next().ctx_with(p, reading)? {
                let tag: String = r.get(0).ctx_with(p, reading)?;
                let json: String = r.get(1).ctx_with(p, reading)?;
                variants.push(stored::variant(STORE, p, id, &tag, &json)?);
            }
        }
        let mut origins = Vec::new();
        {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT project_id, context_fingerprint, created_at FROM tm_origins \
                     WHERE entry_id = ?1 ORDER BY seq",
                )
                .ctx_with(p, reading)?;
            let mut rows = stmt.query([id.0]).ctx_with(p, reading)?;
            while let Some(r) = rows.next().ctx_with(p, reading)? {
                origins.push(Origin {
                    project_id: r.get(0).ctx(p, "reading origins")?,
                    context_fingerprint: r.get(1).ctx(p, "reading origins")?,
                    created_at: r.get(2).ctx(p, "reading origins")?,
                });
            }
        }
        Ok(Some(Entry {
            id,
            variants,
            point,
            unit,
            project_id,
            origins,
            metadata,
            approvals: stored::approvals(approvals),
        }))
    }

    pub(crate) fn insert_origins(
        &self,
        tx: &Connection,
        id: EntryId,
        first_seq: usize,
        origins: &[Origin],
    ) -> Result<()> {
        let mut stmt = tx
            .prepare_cached(
                "INSERT INTO tm_origins (entry_id, seq, project_id, context_fingerprint, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .ctx(&self.path, "writing origins")?;
        for (i, o) in origins.iter().enumerate() {
            stmt.execute(params![
                id.0,
                (first_seq + i) as i64,
                o.project_id,
                o.context_fingerprint,
                o.created_at
            ])
            .ctx_with(&self.path, || format!("writing an origin of entry {id}"))?;
        }
        Ok(())
    }

    /// Writes one entry inside the transaction open on `tx`; returns the outcome and,
    /// for an insert, the keys for the cache.
    pub(crate) fn insert(
        &self,
        tx: &Connection,
        new: &NewEntry,
    ) -> Result<(WriteOutcome, Option<CachedKeys>)> {
        let p = &self.path;
        let hash = new.identity_hash() as i64;
        let same: Vec<i64> = {
            let mut stmt = tx
                .prepare_cached("SELECT id FROM tm_entries WHERE identity = ?1")
                .ctx(p, "finding duplicates")?;
            let rows = stmt.query_map([hash], |r| r.get(0)).ctx(p, "finding duplicates")?;
            rows.collect::<rusqlite::Result<_>>().ctx(p, "finding duplicates")?
        };
        for id in same {
            let id = EntryId(id);
            if let Some(existing) = self.load_entry(tx, id)? {
                if new.same_identity(&existing) {
                    let stored = existing.origins.len();
                    let mut origins = existing.origins;
                    merge_origins(&mut origins, &new.origins);
                    self.insert_origins(tx, id, stored, &origins[stored..])?;
                    tx.prepare_cached("UPDATE tm_entries SET approvals = approvals + ?2 WHERE id = ?1")
                        .and_then(|mut s| s.execute(params![id.0, i64::from(new.approvals.max(1))]))
                        .ctx(p, "counting an approval")?;
                    return Ok((WriteOutcome::Deduplicated(id), None));
                }
            }
        }
        let metadata = serde_json::to_string(&new.metadata).map_err(|e| {
            Error::with_source(ErrorKind::InvalidEntry, "entry metadata cannot be serialized", e)
        })?;
        tx.prepare_cached(
            "INSERT INTO tm_entries (project_id, identity, metadata, point, unit, approvals) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .and_then(|mut s| {
            s.execute(params![
                new.project_id,
                hash,
                metadata,
                new.point.as_str(),
                new.unit,
                i64::from(new.approvals.max(1))
            ])
        })
        .ctx(p, "writing an entry")?;
        let id = EntryId(tx.last_insert_rowid());
        self.count(tx, &[("", "")], 1)?;
        let cached = self.insert_variants(tx, id, &new.variants)?;
        self.insert_origins(tx, id, 0, &new.origins)?;
        Ok((WriteOutcome::Inserted(id), Some(cached)))
    }

    /// Adds `n` to each of `rows` of the counts (`COUNTS_TABLE`), in the transaction
    /// open on `tx`: what stats read, kept where the rows they count are written.
    pub(crate) fn count(&self, tx: &Connection, rows: &[(&str, &str)], n: i64) -> Result<()> {
        let mut stmt = tx.prepare_cached(&count_sql(Dialect::Sqlite)).ctx(&self.path, "counting")?;
        for (source, target) in rows {
            stmt.execute(params![source, target, n]).ctx(&self.path, "counting")?;
        }
        Ok(())
    }

    /// Writes the variants of entry `id`, with their trigram and search index rows, and
    /// counts them; returns their keys for the cache.
    pub(crate) fn insert_variants(
        &self,
        tx: &Connection,
        id: EntryId,
        variants: &[Variant],
    ) -> Result<CachedKeys> {
        let p = &self.path;
        let mut cached: CachedKeys = Vec::with_capacity(variants.len());
        {
            let mut var = tx
                .prepare_cached(
                    "INSERT INTO tm_variants (entry_id, ord, locale, runs, plain, struct_key, general_key, text) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?5)",
                )
                .ctx(p, "writing a variant")?;
            let mut gram = tx.prepare_cached(INSERT_TRIGRAM).ctx(p, "writing the trigram index")?;
            let mut search = tx
                .prepare_cached("INSERT INTO tm_variant_search (rowid, text) VALUES (?1, ?2)")
                .ctx(p, "writing the search index")?;
            for (ord, v) in variants.iter().enumerate() {
                let k = v.keys();
                let (s, g) = stored_keys(&k);
                var.execute(params![
                    id.0,
                    ord as i64,
                    v.locale.as_str(),
                    runs_to_json(&v.runs),
                    k.plain,
                    s,
                    g
                ])
                .ctx_with(p, || format!("writing variant {} of entry {id}", v.locale))?;
                let vid = tx.last_insert_rowid();
                gram.execute(params![vid, k.plain, s, g]).ctx(p, "writing the trigram index")?;
                search.execute(params![vid, k.plain]).ctx(p, "writing the search index")?;
                cached.push((v.locale.clone(), k));
            }
            let locales: Vec<&str> = variants.iter().map(|v| v.locale.as_str()).collect();
            self.count(tx, &counted_rows(&locales), 1)?;
        }
        Ok(cached)
    }

    /// Deletes the variants of entry `id` with their trigram and search index rows, and
    /// takes them off the counts.
    pub(crate) fn delete_variants(&self, tx: &Connection, id: EntryId) -> Result<()> {
        let p = &self.path;
        let variants: Vec<(i64, String, i64, String)> = {
            let mut stmt = tx
                .prepare_cached(
                    "SELECT id, text, ord, locale FROM tm_variants WHERE entry_id = ?1 ORDER BY ord",
                )
                .ctx(p, "deleting")?;
            let rows = stmt
                .query_map([id.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .ctx(p, "deleting")?;
            rows.collect::<rusqlite::Result<_>>().ctx(p, "deleting")?
        };
        // As the counts' pairs join them: the variant of `ord` 0 with the later ones.
        let mut rows: Vec<(&str, &str)> = variants.iter().map(|v| (v.3.as_str(), "")).collect();
        if let Some(first) = variants.iter().find(|v| v.2 == 0) {
            rows.extend(variants.iter().filter(|v| v.2 > 0).map(|v| (first.3.as_str(), v.3.as_str())));
        }
        self.count(tx, &rows, -1)?;
        for (vid, text, _, _) in &variants {
            tx.prepare_cached("DELETE FROM tm_variant_trigram WHERE rowid = ?1")
                .and_then(|mut s| s.execute([vid]))
                .ctx_with(p, || format!("deleting entry {id} from the trigram index"))?;
            tx.prepare_cached(
                "INSERT INTO tm_variant_search (tm_variant_search, rowid, text) VALUES ('delete', ?1, ?2)",
            )
            .and_then(|mut s| s.execute(params![vid, text]))
            .ctx_with(p, || format!("deleting entry {id} from the search index"))?;
        }
        tx.prepare_cached("DELETE FROM tm_variants WHERE entry_id = ?1")
            .and_then(|mut s| s.execute([id.0]))
            .ctx_with(p, || format!("deleting entry {id}"))?;
        Ok(())
    }

    /// Candidates from SQL: FTS5 trigram hits best first (when available), then every
    /// key in the length window that the (risen) cut-off still allows. The window's
    /// bounds are inclusive, so a key that can only equal the cut-off — a tie with the
    /// best match once the cut-off rose to it — is still offered.
    fn sql_candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        let conn = self.conn()?;
        let p = &self.path;
        let offer = |row: &rusqlite::Row<'_>, sink: &mut dyn CandidateSink| -> rusqlite::Result<()> {
            let id = EntryId(row.get(0)?);
            let keys = Keys { plain: row.get(1)?, structural: row.get(2)?, generalized: row.get(3)? };
            for (key, kinds) in keys.distinct() {
                if !kinds.intersect(q.kinds).is_empty() {
                    // The sketch rules most keys out before a distance is computed, as
                    // for the index's keys (one pass over the key to make).
                    let sketch = cmem_core::index::distance::CharSketch::of(key);
                    sink.offer_sketched(id, kinds, key.into(), key.chars().count(), &sketch);
                }
            }
            Ok(())
        };
        let has_target = format!(
            "EXISTS (SELECT 1 FROM tm_variants t WHERE t.entry_id = v.entry_id AND t.id != v.id AND {})",
            locale_fits("t.locale", 2)
        );
        let src = q.source.as_str();
        let tgt = q.target.as_str();
        if self.trigram {
            if let Some(expr) = build_trigram_query(q.key) {
                let sql = format!(
                    "SELECT v.entry_id, {KEYS_OF_V} FROM \
                     (SELECT rowid AS rid FROM tm_variant_trigram WHERE tm_variant_trigram MATCH ?3 \
                      ORDER BY rank LIMIT 200) f JOIN tm_variants v ON v.id = f.rid \
                     WHERE {} AND {has_target}",
                    locale_fits("v.locale", 1)
                );
                let mut stmt = conn.prepare_cached(&sql).ctx(p, "fuzzy candidates (trigram)")?;
                let mut rows = stmt.query(params![src, tgt, expr]).ctx(p, "fuzzy candidates (trigram)")?;
                while let Some(r) = rows.next().ctx(p, "fuzzy candidates (trigram)")? {
                    offer(r, sink).ctx(p, "fuzzy candidates (trigram)")?;
                }
            }
        }
        let (lo, hi) = length_bounds(q.key.chars().count(), sink.cutoff());
        let hi = i64::try_from(hi).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT v.entry_id, {KEYS_OF_V} FROM tm_variants v \
             WHERE {} AND (LENGTH(v.plain) BETWEEN ?3 AND ?4 OR LENGTH(v.struct_key) BETWEEN ?3 AND ?4 \
             OR LENGTH(v.general_key) BETWEEN ?3 AND ?4) AND {has_target}",
            locale_fits("v.locale", 1)
        );
        let mut stmt = conn.prepare_cached(&sql).ctx(p, "fuzzy candidates (length)")?;
        let mut rows = stmt.query(params![src, tgt, lo as i64, hi]).ctx(p, "fuzzy candidates (length)")?;
        while let Some(r) = rows.next().ctx(p, "fuzzy candidates (length)")? {
            offer(r, sink).ctx(p, "fuzzy candidates (length)")?;
        }
        Ok(())
    }
}

/// Validates a batch, naming the offending entry.
pub(crate) fn validate_batch(entries: &[NewEntry]) -> Result<()> {
    for (i, e) in entries.iter().enumerate() {
        e.validate().map_err(|err| {
            Error::new(err.kind(), format!("entry {} of the batch: {}", i + 1, err.message()))
        })?;
    }
    Ok(())
}

impl ContentMemory for SqliteStore {
    fn begin(&self) -> Result<Box<dyn WriteSession + '_>> {
        self.begin_session()
    }

    fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        validate_batch(entries)?;
        self.refuse_read_only()?;
        let conn = self.conn()?;
        let tx = Immediate::begin(&conn, &self.path, &self.options)?;
        let mut outcomes = Vec::with_capacity(entries.len());
        let mut added = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let (outcome, keys) = self
                .insert(&tx, e)
                .map_err(|err| err.prefixed(format_args!("entry {} of the batch", i + 1)))?;
            if let Some(keys) = keys {
                added.push((outcome.id(), keys));
            }
            outcomes.push(outcome);
        }
        tx.commit(&self.path, || format!("committing a batch of {} entries", entries.len()))?;
        self.learn(&[], &added)?;
        Ok(outcomes)
    }

    fn replace(&self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        self.replace_now(id, entry)
    }

    fn get(&self, id: EntryId) -> Result<Option<Entry>> {
        self.with_reader(|conn| self.load_entry(conn, id))
    }

    /// One reader for all of them, read in id order: neighbouring rows share pages, and
    /// a lookup's entries no longer take a pooled reader each.
    fn get_many(&self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i]);
        self.with_reader(|conn| {
            let mut out: Vec<Option<Entry>> = (0..ids.len()).map(|_| None).collect();
            for i in order {
                out[i] = self.load_entry(conn, ids[i])?;
            }
            Ok(out)
        })
    }

    fn delete(&self, id: EntryId) -> Result<bool> {
        let p = &self.path;
        self.refuse_read_only()?;
        let conn = self.conn()?;
        let tx = Immediate::begin(&conn, p, &self.options)?;
        self.delete_variants(&tx, id)?;
        for sql in ["DELETE FROM tm_origins WHERE entry_id = ?1", "DELETE FROM tm_entries WHERE id = ?1"] {
            tx.prepare_cached(sql)
                .and_then(|mut s| s.execute([id.0]))
                .ctx_with(p, || format!("deleting entry {id}"))?;
        }
        let gone = tx.changes() > 0;
        if gone {
            self.count(&tx, &[("", "")], -1)?;
        }
        tx.commit(p, || format!("committing the delete of entry {id}"))?;
        self.cache_write()?.learn(&[id], &[]);
        Ok(gone)
    }

    fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>> {
        // Three range queries per page rather than three per entry: export reads it all.
        let conn = self.conn()?;
        let p = &self.path;
        let mut out: Vec<Entry> = Vec::new();
        {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT id, project_id, metadata, point, unit, approvals FROM tm_entries WHERE id > ?1 \
                     ORDER BY id LIMIT ?2",
                )
                .ctx(p, "listing entries")?;
            let mut rows = stmt
                .query(params![after.map_or(i64::MIN, |a| a.0), i64::try_from(limit).unwrap_or(i64::MAX)])
                .ctx(p, "listing entries")?;
            while let Some(r) = rows.next().ctx(p, "listing entries")? {
                let id = EntryId(r.get(0).ctx(p, "listing entries")?);
                let metadata: String = r.get(2).ctx(p, "listing entries")?;
                let point: String = r.get(3).ctx(p, "listing entries")?;
                out.push(Entry {
                    id,
                    variants: Vec::new(),
                    point: stored::point(STORE, p, id, &point)?,
                    unit: r.get(4).ctx(p, "listing entries")?,
                    project_id: r.get(1).ctx(p, "listing entries")?,
                    origins: Vec::new(),
                    metadata: stored::metadata(STORE, p, id, &metadata)?,
                    approvals: stored::approvals(r.get(5).ctx(p, "listing entries")?),
                });
            }
        }
        let (Some(first), Some(last)) = (out.first().map(|e| e.id.0), out.last().map(|e| e.id.0)) else {
            return Ok(out);
        };
        let index: std::collections::HashMap<i64, usize> =
            out.iter().enumerate().map(|(i, e)| (e.id.0, i)).collect();
        {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT entry_id, locale, runs FROM tm_variants WHERE entry_id BETWEEN ?1 AND ?2 \
                     ORDER BY entry_id, ord",
                )
                .ctx(p, "listing variants")?;
            let mut rows = stmt.query(params![first, last]).ctx(p, "listing variants")?;
            while let Some(r) = rows.next().ctx(p, "listing variants")? {
                let id: i64 = r.get(0).ctx(p, "listing variants")?;
                let Some(&i) = index.get(&id) else { continue };
                let tag: String = r.get(1).ctx(p, "listing variants")?;
                let json: String = r.get(2).ctx(p, "listing variants")?;
                out[i].variants.push(stored::variant(STORE, p, EntryId(id), &tag, &json)?);
            }
        }
        {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT entry_id, project_id, context_fingerprint, created_at FROM tm_origins \
                     WHERE entry_id BETWEEN ?1 AND ?2 ORDER BY entry_id, seq",
                )
                .ctx(p, "listing origins")?;
            let mut rows = stmt.query(params![first, last]).ctx(p, "listing origins")?;
            while let Some(r) = rows.next().ctx(p, "listing origins")? {
                let id: i64 = r.get(0).ctx(p, "listing origins")?;
                let Some(&i) = index.get(&id) else { continue };
                out[i].origins.push(Origin {
                    project_id: r.get(1).ctx(p, "listing origins")?,
                    context_fingerprint: r.get(2).ctx(p, "listing origins")?,
                    created_at: r.get(3).ctx(p, "listing origins")?,
                });
            }
        }
        Ok(out)
    }

    fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.with_reader(|conn| self.exact_on(conn, q))
    }

    fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        if !self.options.gram_index {
            return self.sql_candidates(q, sink);
        }
        if !self.ensure_cache(q.source)? {
            return self.sql_candidates(q, sink);
        }
        self.cache_read()?.offer(q, sink);
        Ok(())
    }

    fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        q.validate()?;
        let words: Vec<String> =
            normalize_text(&q.words).split(' ').filter(|w| !w.is_empty()).map(str::to_owned).collect();
        if words.is_empty() || q.limit == 0 {
            return Ok(Vec::new());
        }
        let p = &self.path;
        let conn = self.conn()?;
        // Each word a quoted prefix term; terms side by side must all match. Any of them:
        // the rarer whole words only (see `rare_terms`), joined by OR.
        let expr: String = if q.any {
            let terms = rare_terms(&conn, &words).ctx(p, "search")?;
            if terms.is_empty() {
                return Ok(Vec::new());
            }
            terms.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(" OR ")
        } else {
            words.iter().map(|w| format!("\"{}\"*", w.replace('"', "\"\""))).collect::<Vec<_>>().join(" ")
        };
        let hits: Vec<(i64, f64, String)> = {
            let sql = format!(
                "SELECT v.entry_id, bm25(tm_variant_search), highlight(tm_variant_search, 0, '[', ']') \
                 FROM tm_variant_search JOIN tm_variants v ON v.id = tm_variant_search.rowid \
                 WHERE tm_variant_search MATCH ?1 AND {} ORDER BY rank",
                locale_match("v.locale", 2)
            );
            let mut stmt = conn.prepare_cached(&sql).ctx(p, "search")?;
            let rows = stmt
                .query_map(params![expr, q.locale.as_str()], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .ctx_with(p, || format!("search for {}", q.quoted()))?;
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for row in rows {
                let (id, bm25, snippet): (i64, f64, String) =
                    row.ctx_with(p, || format!("search for {}", q.quoted()))?;
                if seen.insert(id) {
                    out.push((id, -bm25, snippet));
                    if out.len() >= q.limit {
                        break;
                    }
                }
            }
            out
        };
        let mut out = Vec::with_capacity(hits.len());
        for (id, score, snippet) in hits {
            if let Some(entry) = self.load_entry(&conn, EntryId(id))? {
                out.push(SearchHit { entry, score, snippet });
            }
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.id.cmp(&b.entry.id)));
        Ok(out)
    }

    /// From the counts the writes keep ([`COUNTS_TABLE`]), read in one statement: a
    /// few rows, not a join of every variant.
    fn stats(&self) -> Result<Stats> {
        let p = &self.path;
        // The kept counts, read on a reader connection: the main one may be held for a
        // while by an index build or an import, and a page waiting for its locale lists
        // should not wait for that.
        let (size, rows) = self.with_reader(|conn| {
            let size: i64 = conn
                .query_row(
                    "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                    [],
                    |r| r.get(0),
                )
                .ctx(p, "counting")?;
            let mut stmt = conn
                .prepare_cached(&format!("SELECT source, target, n FROM {COUNTS_TABLE}"))
                .ctx(p, "counting")?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?)))
                .ctx(p, "counting")?
                .collect::<rusqlite::Result<Vec<_>>>()
                .ctx(p, "counting")?;
            Ok((size, rows))
        })?;
        Stats::from_counts(rows, Some(size.max(0) as u64), |tag| {
            Locale::parse(tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))
        })
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities::none().versions(self).index(self).meta(self).word_models(self).words(self)
    }
}

/// The most posting-list entries a search for any of its words reads (the sum of the
/// terms' document counts): an OR query's cost is that sum, since FTS5 scores every row
/// it matches before it ranks.
const ANY_POSTINGS: i64 = 10_000;

/// The terms of a search for any of `words`: their letters-and-digits runs in lower case
/// (the search table's tokens), the rarest first while their document counts sum to at
/// most [`ANY_POSTINGS`], the rarest always. A word in that many texts has almost no
/// weight in BM25 (its inverse document frequency is near zero), so leaving it out
/// changes little of the ranking and saves most of the query's time.
fn rare_terms(conn: &rusqlite::Connection, words: &[String]) -> rusqlite::Result<Vec<String>> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.cmem_search_vocab \
         USING fts5vocab('main', 'tm_variant_search', 'row')",
    )?;
    let mut tokens: Vec<String> = Vec::new();
    for w in words {
        for t in w.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()) {
            let t = t.to_lowercase();
            if !tokens.contains(&t) {
                tokens.push(t);
            }
        }
    }
    let mut stmt = conn.prepare_cached("SELECT doc FROM temp.cmem_search_vocab WHERE term = ?1")?;
    let mut counted: Vec<(i64, String)> = Vec::with_capacity(tokens.len());
    for t in tokens {
        // A token the table does not hold as written (diacritics are folded there) is
        // counted as rare: kept.
        let doc: i64 = stmt.query_row([&t], |r| r.get(0)).optional()?.unwrap_or(0);
        counted.push((doc, t));
    }
    counted.sort();
    let mut out = Vec::new();
    let mut read = 0;
    for (doc, t) in counted {
        if !out.is_empty() && read + doc > ANY_POSTINGS {
            break;
        }
        read += doc;
        out.push(t);
    }
    Ok(out)
}
