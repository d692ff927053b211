//! [`PgStore`]: the [`ContentMemory`] over one PostgreSQL database, shared by every
//! process and machine that opens it.

use std::collections::HashMap;
use std::sync::RwLock;

use cmem_core::imp::{KeyKind, Keys, WriteSession};
use cmem_core::index::trigram::length_bounds;
use cmem_core::model::version::{select_versions, Version, VersionQuery, VersionReader};
use cmem_core::store::schema::{COUNTS_TABLE, META_TABLE};
use cmem_core::store::{
    CandidateQuery, CandidateSink, ContentMemory, ExactQuery, ReadScope, ScopedReads, SearchHit, SearchQuery,
    Stats,
};
use cmem_core::{normalize_text, Entry, EntryId, Locale, NewEntry, Result, WriteOutcome};
use cmem_core::{Capabilities, IndexControl, MetaStore, WordModels};
use postgres::types::Type;
use postgres::NoTls;

use cmem_core::imp::IndexCache as Cache;
use cmem_core::index::index_cache::IndexFiles;

use crate::cache::{Dir, Log, KEYS_OF_V};
use crate::candidates::{
    has_target, locale_fits, locale_match, PAIR_STEP, RARE_BELOW, RARE_STEP, WIDE_STEP, WINDOW, WORD_ROWS,
};
use crate::conn::{Conn, Manager, Pooled};
use crate::db::Db;
use crate::error::{corrupt, Context};
use crate::migrate;
use crate::options::PgOptions;
use crate::rows::{entries_of_rows, read_changes_prepared, read_entries, snapshot, GET_MANY};
use crate::scope::{Scope, Verdict};
use crate::session::PgSession;

/// A [`ContentMemory`] in one PostgreSQL database (15 or newer, with `pg_trgm`): tables
/// `tm_entries`, `tm_variants`, `tm_origins` and `tm_meta` from
/// [`cmem_core::store::schema`]'s PostgreSQL dialect, migrated on open; `pg_trgm` GIN indexes
/// on the three keys and a generated `search_tsv` column for concordance search.
///
/// Safe to share between threads: connections come from a pool; fuzzy candidates come
/// from an in-process index behind a read-write lock, reloaded when any writer anywhere
/// has committed since it was loaded (see the crate docs).
#[derive(Debug)]
pub struct PgStore {
    /// What the store shares with its write sessions.
    pub(crate) db: Db,
    /// When the change counter was last read (see [`PgOptions::freshness`]).
    checked: std::sync::Mutex<Option<std::time::Instant>>,
    /// The word models read so far (see `words`).
    pub(crate) word_models: cmem_core::align::ModelCache,
    /// The given term lists read so far, parsed.
    given: cmem_core::store::learn::GivenCache,
    /// The size of the variants table and when it was read (see
    /// [`PgOptions::words_from_bytes`]).
    table_bytes: std::sync::Mutex<Option<(std::time::Instant, i64)>>,
    /// A read scope found the index stale: the next one reads the counter first.
    stale: std::sync::atomic::AtomicBool,
    /// How many times the change counter was read for the candidate index.
    change_checks: std::sync::atomic::AtomicU64,
    /// Reads the change counter while lookups walk the index.
    ahead: crate::ahead::CounterAhead,
}

/// The longest a store call waits for a pooled connection: a connection held by others
/// for this long, or a database that refuses new ones, means the memory cannot serve
/// now (`Unavailable`, a `503` from a server) rather than a call that hangs.
const CHECKOUT_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Numbers the stores of this process (their counter threads are named by it).
static NEXT_STORE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How long the size of the variants table is taken as read.
const TABLE_BYTES_FOR: std::time::Duration = std::time::Duration::from_secs(60);

impl PgStore {
    /// Opens the memory in the database at `url` (`postgres://user:password@host:port/db`
    /// or a `key=value` connection string) with default options, creating the schema
    /// in an empty database and migrating an older one.
    ///
    /// # Errors
    /// As [`open_with`](Self::open_with).
    pub fn open(url: &str) -> Result<PgStore> {
        PgStore::open_with(url, PgOptions::default())
    }

    /// Opens `url` with `options`. The user defaults to `PGUSER`, then `USER`; the
    /// password to `PGPASSWORD`.
    ///
    /// # Errors
    /// [`ErrorKind::Store`](cmem_core::ErrorKind::Store) for an address that does not parse or a server that cannot
    /// be reached or refuses the login; [`ErrorKind::Schema`](cmem_core::ErrorKind::Schema) for a database of a newer
    /// schema version, one that is not a cmem memory, or an empty one that `options`
    /// do not let become one. Each names the address with its password left out.
    pub fn open_with(url: &str, options: PgOptions) -> Result<PgStore> {
        let name = crate::address::redact(url);
        let mut config = crate::address::config(url, &name)?;
        config.connect_timeout(options.connect_timeout);
        config.application_name("cmem");
        let mut client = config.connect(NoTls).ctx(&name, "cannot connect")?;
        migrate::migrate(&mut client, &name, &options)?;
        drop(client);
        let pool_of = |config: &postgres::Config| {
            r2d2::Pool::builder()
                .max_size(options.pool_size.max(1))
                .min_idle(Some(0))
                .connection_timeout(options.connect_timeout.min(CHECKOUT_WAIT))
                // Checking a connection on every checkout is a round trip per store call
                // (a lookup makes several); a broken connection fails its statement
                // instead, and the pool drops it (`has_broken`).
                .test_on_check_out(false)
                .build_unchecked(Manager::new(config.clone()))
        };
        let pool = pool_of(&config);
        let replica = match &options.replica {
            Some(url) => {
                let name = crate::address::redact(url);
                let mut config = crate::address::config(url, &name)?;
                config.connect_timeout(options.connect_timeout);
                config.application_name("cmem");
                drop(config.connect(NoTls).ctx(&name, "cannot connect to the replica")?);
                let pool = pool_of(&config);
                Some(crate::db::Replica { name, pool, health: crate::db::Health::new(config) })
            }
            None => None,
        };
        let number = NEXT_STORE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let db = Db {
            name,
            pool,
            cache: RwLock::new(Cache::serving(options.served.clone())),
            options,
            health: crate::db::Health::new(config),
            replica,
        };
        Ok(PgStore {
            db,
            checked: Default::default(),
            word_models: Default::default(),
            given: Default::default(),
            table_bytes: Default::default(),
            change_checks: Default::default(),
            stale: Default::default(),
            ahead: crate::ahead::CounterAhead::new(number),
        })
    }

    /// How many times the candidate index asked the database whether another writer
    /// had written, on a lookup's path (tests count round trips with it).
    #[cfg(feature = "testing")]
    pub fn change_checks(&self) -> u64 {
        self.change_checks.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many times the change counter was read ahead for lookups, off their path
    /// (see [`change_checks`](Self::change_checks) for the reads on it).
    #[cfg(feature = "testing")]
    pub fn counter_reads_ahead(&self) -> u64 {
        self.ahead.reads()
    }

    /// The name of the thread that reads the change counter ahead for lookups, once
    /// the first lookup started it.
    #[cfg(feature = "testing")]
    pub fn counter_thread(&self) -> Option<String> {
        self.ahead.thread_name().map(str::to_owned)
    }

    /// How many times the candidate index was loaded whole (tests tell a reload from a
    /// catch-up with it).
    #[cfg(feature = "testing")]
    pub fn index_loads(&self) -> u64 {
        self.db.cache_read().map(|c| c.loads()).unwrap_or(0)
    }

    /// How many locale indexes were opened from files in
    /// [`PgOptions::index_dir`](crate::PgOptions::index_dir) rather than built.
    #[cfg(feature = "testing")]
    pub fn index_files_opened(&self) -> u64 {
        self.db.cache_read().map(|c| c.opened()).unwrap_or(0)
    }

    /// The address this store opened, its password left out.
    pub fn name(&self) -> &str {
        &self.db.name
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &PgOptions {
        &self.db.options
    }

    /// Loads the candidate index for `source` when missing or stale; for the reads of a
    /// [`read_scope`](cmem_core::IndexControl::read_scope) (`scoped`), only when missing.
    fn ensure_cache(&self, source: &Locale, scoped: bool) -> Result<()> {
        if scoped && self.db.cache_read()?.has(source) {
            return Ok(());
        }
        self.refresh_cache(source)
    }

    /// Loads the candidate index for `source` when missing or stale.
    fn refresh_cache(&self, source: &Locale) -> Result<()> {
        if self.is_fresh() && self.db.cache_read()?.has(source) {
            return Ok(());
        }
        self.reload_if_changed(source)
    }

    /// Reads the change counter and reloads the candidate index for `source` when it
    /// was loaded at another or lacks the locale.
    fn reload_if_changed(&self, source: &Locale) -> Result<()> {
        let mut client = self.db.reader()?;
        let changes = self.read_counter(&mut client)?;
        self.mark_checked();
        if self.db.cache_read()?.is_current(changes, source) {
            return Ok(());
        }
        let dir = self.db.options.index_dir.as_deref().map(Dir);
        let files = dir.as_ref().map(|d| d as &dyn IndexFiles);
        let loaded =
            self.db.cache_write()?.load(Log::begin(client.client(), &self.db.name)?, files, source, true);
        loaded.map(drop)
    }

    /// The end of `scope`, a read scope of this store (see [`crate::scope`]): whether
    /// its reads hold; when not, the next scope reads the counter first.
    fn confirm_scope(&self, scope: &Scope) -> Result<bool> {
        let (at, ahead) = match scope.verdict() {
            Verdict::Holds => return Ok(true),
            Verdict::Changed => {
                self.stale.store(true, std::sync::atomic::Ordering::Relaxed);
                return Ok(false);
            }
            Verdict::Check { at, ahead } => (at, ahead),
        };
        if self.is_fresh() {
            return Ok(true);
        }
        let changes = match ahead.and_then(|t| self.ahead.answer(t)) {
            Some(changes) => changes,
            None => self.read_counter(&mut self.db.reader()?)?,
        };
        if Some(changes) == at {
            self.mark_checked();
            return Ok(true);
        }
        self.stale.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(false)
    }

    /// Reads the change counter for the candidate index (counted, see
    /// `change_checks`).
    fn read_counter(&self, client: &mut Pooled) -> Result<i64> {
        self.change_checks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        read_changes_prepared(client, &self.db.name)
    }

    /// Whether the change counter was read within [`PgOptions::freshness`].
    fn is_fresh(&self) -> bool {
        !self.db.options.freshness.is_zero()
            && self
                .checked
                .lock()
                .ok()
                .and_then(|c| *c)
                .is_some_and(|t| t.elapsed() < self.db.options.freshness)
    }

    /// Notes that the change counter was just read.
    fn mark_checked(&self) {
        if let Ok(mut checked) = self.checked.lock() {
            *checked = Some(std::time::Instant::now());
        }
    }

    /// Whether the variants table is large enough for the word step
    /// ([`PgOptions::words_from_bytes`]); its size is read at most once a minute.
    fn word_step_pays(&self, client: &mut Conn) -> Result<bool> {
        let wanted = i64::try_from(self.db.options.words_from_bytes).unwrap_or(i64::MAX);
        if wanted == 0 {
            return Ok(true);
        }
        let known =
            self.table_bytes.lock().ok().and_then(|t| *t).filter(|(at, _)| at.elapsed() < TABLE_BYTES_FOR);
        let bytes = match known {
            Some((_, bytes)) => bytes,
            None => {
                let bytes: i64 = client
                    .query_one("SELECT pg_relation_size('tm_variants')", &[])
                    .and_then(|r| r.try_get(0))
                    .ctx(&self.db.name, "reading the size of the memory")?;
                if let Ok(mut t) = self.table_bytes.lock() {
                    *t = Some((std::time::Instant::now(), bytes));
                }
                bytes
            }
        };
        Ok(bytes >= wanted)
    }

    /// Candidates from SQL. By default, on a memory of [`PgOptions::words_from_bytes`]
    /// or more, the word steps ([`word_step`](crate::candidates::word_step)): the keys sharing two of the query's
    /// rarest words; unless one of those scored [`RARE_BELOW`](crate::candidates::RARE_BELOW) or more, the keys sharing
    /// either of its two rarest words; when still nothing reached the cut-off, any of its
    /// four rarest; each step most `pg_trgm`-similar first. Approximate: a match that
    /// shares none of those words with the query is not offered. With
    /// [`PgOptions::exhaustive_window`] (and on a smaller memory), every key in the
    /// length window the cut-off allows: a superset of what can reach it. With
    /// [`PgOptions::trigram_first`], `pg_trgm` similarity hits before the window, best
    /// first (up to 200), to raise the cut-off and narrow it.
    fn sql_candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        let p = &self.db.name;
        let mut client = self.db.reader()?;
        let src = q.source.as_str();
        let tgt = q.target.as_str();
        let offer = |row: &postgres::Row, sink: &mut dyn CandidateSink| -> Result<()> {
            let id = EntryId(row.try_get(0).ctx(p, "fuzzy candidates")?);
            let keys = Keys {
                plain: row.try_get(1).ctx(p, "fuzzy candidates")?,
                structural: row.try_get(2).ctx(p, "fuzzy candidates")?,
                generalized: row.try_get(3).ctx(p, "fuzzy candidates")?,
            };
            for (key, kinds) in keys.distinct() {
                if !kinds.intersect(q.kinds).is_empty() {
                    sink.offer(id, kinds, key);
                }
            }
            Ok(())
        };
        if self.db.options.trigram_first && q.key.chars().count() >= 3 {
            let sql = format!(
                "SELECT v.entry_id, {KEYS_OF_V} FROM tm_variants v \
                 WHERE (v.plain % $3 OR v.struct_key % $3 OR v.general_key % $3) AND {} AND {} \
                 ORDER BY GREATEST(similarity(v.plain, $3), similarity(v.struct_key, $3), \
                 similarity(v.general_key, $3)) DESC, v.entry_id LIMIT 200",
                locale_fits("v.locale", 1),
                has_target()
            );
            for row in client.query(&sql, &[&src, &tgt, &q.key]).ctx(p, "fuzzy candidates (trigram)")? {
                offer(&row, sink)?;
            }
        }
        let (lo, hi) = length_bounds(q.key.chars().count(), sink.cutoff());
        let lo = i32::try_from(lo).unwrap_or(i32::MAX);
        let hi = i32::try_from(hi).unwrap_or(i32::MAX);
        if !self.db.options.exhaustive_window && self.word_step_pays(&mut client)? {
            let types = [Type::TEXT, Type::TEXT, Type::INT4, Type::INT4, Type::TEXT, Type::INT8];
            for (step, sql, what) in [
                (0, &*PAIR_STEP, "fuzzy candidates (word pairs)"),
                (1, &*RARE_STEP, "fuzzy candidates (rare words)"),
                (2, &*WIDE_STEP, "fuzzy candidates (more words)"),
            ] {
                // Pairs first (they read the fewest rows); either of the two rarest words
                // when nothing near the query was found; any of the four rarest when
                // nothing at all was.
                let best = sink.tie_cutoff();
                let found = best <= 1.0;
                if (step == 1 && found && best >= RARE_BELOW) || (step == 2 && found) {
                    break;
                }
                let stmt = client.prepared(sql, &types).ctx(p, what)?;
                for row in client.query(&stmt, &[&src, &tgt, &lo, &hi, &q.key, &WORD_ROWS]).ctx(p, what)? {
                    offer(&row, sink)?;
                }
            }
            return Ok(());
        }
        let stmt = client
            .prepared(&WINDOW, &[Type::TEXT, Type::TEXT, Type::INT4, Type::INT4])
            .ctx(p, "fuzzy candidates (length)")?;
        for row in client.query(&stmt, &[&src, &tgt, &lo, &hi]).ctx(p, "fuzzy candidates (length)")? {
            offer(&row, sink)?;
        }
        Ok(())
    }

    /// [`get_many`](ContentMemory::get_many), for the reads of `scope` when there is
    /// one.
    fn get_many_in(&self, ids: &[EntryId], mut scope: Option<&mut Scope>) -> Result<Vec<Option<Entry>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // One statement (one snapshot, so a concurrent delete cannot split an entry),
        // prepared once per connection: one round trip, where a lookup spent three per
        // entry, and no planning.
        let p = &self.db.name;
        let reading = || "reading entries".to_owned();
        // Inside a lookup, an entry its scope read already is not asked for again.
        let (mut by_id, missing) = match scope.as_deref() {
            Some(scope) => scope.recall(ids),
            None => (HashMap::new(), ids.to_vec()),
        };
        if !missing.is_empty() {
            let wanted: Vec<i64> = missing.iter().map(|id| id.0).collect();
            let mut conn = self.db.reader()?;
            let stmt = conn.prepared(GET_MANY, &[Type::INT8_ARRAY]).ctx_with(p, reading)?;
            let rows = conn.query(&stmt, &[&wanted]).ctx_with(p, reading)?;
            if let (Some(r), Some(scope)) = (rows.first(), scope.as_deref_mut()) {
                scope.saw(r.try_get(8).ctx_with(p, reading)?);
            }
            let fetched = entries_of_rows(rows, p)?;
            if let Some(scope) = scope {
                scope.remember(&fetched);
            }
            by_id.extend(fetched);
        }
        Ok(ids.iter().map(|id| by_id.get(id).cloned()).collect())
    }

    /// [`exact`](ContentMemory::exact), for the reads of `scope` when there is one.
    fn exact_in(&self, q: &ExactQuery<'_>, mut scope: Option<&mut Scope>) -> Result<Vec<Entry>> {
        if self.db.options.gram_index {
            // The in-process index holds every key: no query to find the entries, one
            // round trip to read them.
            self.ensure_cache(q.source, scope.is_some())?;
            let ids = self.db.cache_read()?.exact(q);
            return Ok(self
                .get_many_in(&ids, scope.as_deref_mut())?
                .into_iter()
                .flatten()
                .filter(|e| e.lookup_variant(q.target).is_some())
                .collect());
        }
        let p = &self.db.name;
        // NULL keys stand for the key before them (`stored_keys`): each arm uses an index.
        let sql = match q.kind {
            KeyKind::Plain => "SELECT entry_id, locale FROM tm_variants WHERE plain = $1 ORDER BY entry_id",
            KeyKind::Structural => {
                "SELECT entry_id, locale FROM (\
                 SELECT entry_id, locale FROM tm_variants WHERE struct_key = $1 UNION ALL \
                 SELECT entry_id, locale FROM tm_variants WHERE struct_key IS NULL AND plain = $1) s \
                 ORDER BY entry_id"
            }
            KeyKind::Generalized => {
                "SELECT entry_id, locale FROM (\
                 SELECT entry_id, locale FROM tm_variants WHERE general_key = $1 UNION ALL \
                 SELECT entry_id, locale FROM tm_variants WHERE general_key IS NULL AND struct_key = $1 \
                 UNION ALL SELECT entry_id, locale FROM tm_variants \
                 WHERE general_key IS NULL AND struct_key IS NULL AND plain = $1) s ORDER BY entry_id"
            }
        };
        let mut conn = self.db.reader()?;
        let stmt = conn.prepared(sql, &[Type::TEXT]).ctx(p, "exact lookup")?;
        let rows = conn.query(&stmt, &[&q.key]).ctx(p, "exact lookup")?;
        drop(conn);
        // Rows come by entry; the entries with a variant in the source locale are read at
        // once (one round trip, not three per entry).
        let mut ids: Vec<EntryId> = Vec::new();
        for r in rows {
            let id = EntryId(r.try_get(0).ctx(p, "exact lookup")?);
            if ids.last() == Some(&id) {
                continue;
            }
            let tag: &str = r.try_get(1).ctx(p, "exact lookup")?;
            let locale = Locale::parse(tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))?;
            if q.source.fit(&locale).is_some() {
                ids.push(id);
            }
        }
        Ok(self
            .get_many_in(&ids, scope)?
            .into_iter()
            .flatten()
            .filter(|e| e.lookup_variant(q.target).is_some())
            .collect())
    }

    /// [`candidates`](ContentMemory::candidates), for the reads of a scope when
    /// `scoped`.
    fn candidates_in(
        &self,
        q: &CandidateQuery<'_>,
        sink: &mut dyn CandidateSink,
        scoped: bool,
    ) -> Result<()> {
        if !self.db.options.gram_index {
            return self.sql_candidates(q, sink);
        }
        self.ensure_cache(q.source, scoped)?;
        self.db.cache_read()?.offer(q, sink);
        Ok(())
    }
}

impl ContentMemory for PgStore {
    fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        let mut session = PgSession::begin(&self.db)?;
        let outcomes = session.write(entries)?;
        Box::new(session).commit()?;
        Ok(outcomes)
    }

    fn begin(&self) -> Result<Box<dyn WriteSession + '_>> {
        Ok(Box::new(PgSession::begin(&self.db)?))
    }

    fn get(&self, id: EntryId) -> Result<Option<Entry>> {
        let mut client = self.db.reader()?;
        self.db.load_entry(client.client(), id)
    }

    fn delete(&self, id: EntryId) -> Result<bool> {
        let mut session = PgSession::begin(&self.db)?;
        let gone = session.delete(id)?;
        Box::new(session).commit()?;
        Ok(gone)
    }

    fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>> {
        // Three queries per page rather than three per entry: export reads it all.
        let p = &self.db.name;
        let mut client = self.db.reader()?;
        // One snapshot for the page's three reads, so a concurrent delete cannot split an
        // entry.
        let mut tx = snapshot(&mut client, p, "listing entries")?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let out = read_entries(
            &mut tx,
            p,
            "WHERE id > $1 ORDER BY id LIMIT $2",
            &[&after.map_or(i64::MIN, |a| a.0), &limit],
        )?;
        tx.commit().ctx(p, "listing entries")?;
        Ok(out)
    }

    fn get_many(&self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.get_many_in(ids, None)
    }

    fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.exact_in(q, None)
    }

    fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        self.candidates_in(q, sink, false)
    }

    fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        q.validate()?;
        let words: Vec<String> =
            normalize_text(&q.words).split(' ').filter(|w| !w.is_empty()).map(str::to_owned).collect();
        if words.is_empty() || q.limit == 0 {
            return Ok(Vec::new());
        }
        // Each word a quoted prefix term (tsquery quoting: `'` doubled, `\` escaped); all
        // must match, or any of them.
        let expr: String = words
            .iter()
            .map(|w| format!("'{}':*", w.replace('\\', "\\\\").replace('\'', "''")))
            .collect::<Vec<_>>()
            .join(if q.any { " | " } else { " & " });
        let p = &self.db.name;
        let limit = i64::try_from(q.limit).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT s.entry_id, s.rank::float8, \
             ts_headline('simple', s.text, to_tsquery('simple', $1), 'StartSel=[, StopSel=], HighlightAll=true') \
             FROM (SELECT DISTINCT ON (v.entry_id) v.entry_id, ts_rank(v.search_tsv, tq) AS rank, v.text \
                   FROM tm_variants v, to_tsquery('simple', $1) tq \
                   WHERE v.search_tsv @@ tq AND {} ORDER BY v.entry_id, rank DESC, v.ord) s \
             ORDER BY s.rank DESC, s.entry_id LIMIT $3",
            locale_match("v.locale", 2)
        );
        let mut client = self.db.reader()?;
        let rows = client
            .query(&sql, &[&expr, &q.locale.as_str(), &limit])
            .ctx_with(p, || format!("search for {}", q.quoted()))?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let id: i64 = r.try_get(0).ctx(p, "search")?;
            let score: f64 = r.try_get(1).ctx(p, "search")?;
            let snippet: String = r.try_get(2).ctx(p, "search")?;
            if let Some(entry) = self.db.load_entry(client.client(), EntryId(id))? {
                out.push(SearchHit { entry, score, snippet });
            }
        }
        Ok(out)
    }

    /// From the counts the writes keep ([`COUNTS_TABLE`]): a few rows, not a join of
    /// every variant.
    fn stats(&self) -> Result<Stats> {
        let p = &self.db.name;
        let mut client = self.db.reader()?;
        let mut tx = snapshot(&mut client, p, "counting")?;
        let size: i64 = tx
            .query_one("SELECT pg_database_size(current_database())", &[])
            .and_then(|r| r.try_get(0))
            .ctx(p, "counting")?;
        let mut rows = Vec::new();
        for r in tx.query(&format!("SELECT source, target, n FROM {COUNTS_TABLE}"), &[]).ctx(p, "counting")? {
            rows.push((
                r.try_get::<_, String>(0).ctx(p, "counting")?,
                r.try_get::<_, String>(1).ctx(p, "counting")?,
                r.try_get::<_, i64>(2).ctx(p, "counting")?,
            ));
        }
        tx.commit().ctx(p, "counting")?;
        Stats::from_counts(rows, Some(size.max(0) as u64), |tag| {
            Locale::parse(tag).map_err(|e| corrupt(p, format!("stored locale {tag:?}"), e))
        })
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities::none().versions(self).index(self).meta(self).word_models(self).words(self)
    }
}

/// The word index is the candidate index's (see [`cmem_core::imp::CandidateIndex::words`]),
/// brought up to date with other writers' commits as for a lookup.
impl cmem_core::WordIndex for PgStore {
    fn words(&self, q: &cmem_core::WordQuery<'_>) -> Result<Option<cmem_core::WordAnswer>> {
        if !self.db.options.gram_index {
            return Ok(None);
        }
        self.ensure_cache(q.source, false)?;
        Ok(Some(self.db.cache_read()?.words(q)))
    }
}

impl IndexControl for PgStore {
    /// Builds the in-process candidate index for every source locale matching `source`
    /// now, instead of on the first lookup (nothing when the index is off).
    fn warm(&self, source: &Locale) -> Result<()> {
        if self.db.options.gram_index {
            self.ensure_cache(source, false)?;
        }
        Ok(())
    }

    /// True with an [`index_dir`](PgOptions::index_dir): a warmed index is written
    /// there for the next process.
    fn index_persists(&self) -> bool {
        self.db.options.gram_index && self.db.options.index_dir.is_some()
    }

    fn read_scope(&self, source: &Locale) -> Result<ReadScope<'_>> {
        if !self.db.options.gram_index {
            // Database-side candidates read the database on every call anyway.
            return Ok(ReadScope::direct(self));
        }
        // Optimistic when the index is loaded and no scope found it stale: the entry
        // reads tell at the end whether a writer came between (see `crate::scope`).
        let stale = self.stale.swap(false, std::sync::atomic::Ordering::Relaxed);
        let optimistic = !stale && self.db.cache_read()?.has(source);
        if stale {
            self.reload_if_changed(source)?;
        } else if !optimistic {
            self.refresh_cache(source)?;
        }
        // A lookup that reads no entry learns the counter from a read made while it walks
        // the index (see `crate::ahead`).
        let ahead = if optimistic && !self.is_fresh() {
            self.ahead.ask(|| {
                let (pool, health) = self.db.read_pool();
                let (pool, name) = (pool.clone(), self.db.name.clone());
                let unreachable = std::sync::Arc::clone(&health.unreachable);
                // No answer while the database is unreachable: the lookup then asks
                // itself, and fails at once (`client`).
                move || {
                    if unreachable.load(std::sync::atomic::Ordering::Acquire) {
                        return None;
                    }
                    pool.get().ok().and_then(|mut conn| read_changes_prepared(&mut conn, &name).ok())
                }
            })
        } else {
            None
        };
        let scope = Scope::new(self.db.cache_read()?.counter(), !optimistic, ahead);
        Ok(ReadScope::new(PgScope { store: self, scope }))
    }

    fn change_mark(&self) -> Result<Option<u64>> {
        // The counter every write session raises (`META_CHANGES`): one round trip.
        let mut conn = self.db.reader()?;
        Ok(Some(read_changes_prepared(&mut conn, &self.db.name)? as u64))
    }

    fn source_locales(&self) -> Result<Option<Vec<Locale>>> {
        Ok(None)
    }
}

impl MetaStore for PgStore {
    fn meta(&self, key: &str) -> Result<Option<String>> {
        let mut client = self.db.client()?;
        let row = client
            .query_opt(&format!("SELECT value FROM {META_TABLE} WHERE key = $1"), &[&key])
            .ctx_with(&self.db.name, || format!("reading {key}"))?;
        row.map(|r| r.try_get(0)).transpose().ctx_with(&self.db.name, || format!("reading {key}"))
    }

    /// In a transaction that raises the change counter (see `session::set_meta`).
    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        crate::session::set_meta(&self.db, key, value)?;
        self.given.forget(key);
        Ok(())
    }
}

impl WordModels for PgStore {
    fn word_model(
        &self,
        source: &Locale,
        target: &Locale,
    ) -> Result<Option<std::sync::Arc<cmem_core::align::WordModel>>> {
        self.load_word_model(source, target)
    }

    fn save_word_model(
        &self,
        source: &Locale,
        target: &Locale,
        model: std::sync::Arc<cmem_core::align::WordModel>,
    ) -> Result<()> {
        self.store_word_model(source, target, model)
    }

    /// Kept while the change counter stays: every write raises it, a change of a named
    /// value included.
    fn given_glossary(
        &self,
        source: &Locale,
        target: &Locale,
    ) -> Result<Option<std::sync::Arc<cmem_core::align::Glossary>>> {
        self.given
            .get_or_read(source, target, self.change_mark()?, |key| MetaStore::meta(self, key))
            .map(Some)
    }
}

impl VersionReader for PgStore {
    fn versions(&self, q: &VersionQuery, exclude: Option<EntryId>) -> Result<Vec<Version>> {
        q.validate()?;
        let mut client = self.db.reader()?;
        let rows = client
            .query("SELECT id FROM tm_entries WHERE unit = $1 ORDER BY id", &[&q.unit])
            .ctx_with(&self.db.name, || format!("reading versions of unit {:?}", q.unit))?;
        let mut entries = Vec::with_capacity(rows.len());
        for r in rows {
            let id: i64 = r.try_get(0).ctx(&self.db.name, "reading versions")?;
            if let Some(e) = self.db.load_entry(client.client(), EntryId(id))? {
                entries.push(e);
            }
        }
        Ok(select_versions(entries, q, exclude))
    }
}

/// The reads of one lookup in a [`PgStore`] with its in-process index: each goes to the
/// store with the scope's state (see [`crate::scope`]).
struct PgScope<'a> {
    store: &'a PgStore,
    scope: Scope,
}

impl ScopedReads for PgScope<'_> {
    fn exact(&mut self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.store.exact_in(q, Some(&mut self.scope))
    }

    fn candidates(&mut self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        self.store.candidates_in(q, sink, true)
    }

    fn get_many(&mut self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.store.get_many_in(ids, Some(&mut self.scope))
    }

    fn confirm(&mut self) -> Result<bool> {
        self.store.confirm_scope(&self.scope)
    }
}
