//! The candidate index a database store keeps in its process, and the one state machine
//! that keeps it current: load a locale's index from its persisted file when that file
//! is this memory's and close enough behind (then catch it up from the change log), or
//! build it from the tables and persist it; when other writers have committed, catch
//! the loaded indexes up from the change log, or start again when they are too far
//! behind (DESIGN.md §7.1, §7.2, §8.4).
//!
//! A store implements [`ChangeLog`] with its SQL, over one snapshot, and, when it keeps
//! index files, [`IndexFiles`] (which file, how it is read). Everything else — what is
//! read when, what a file must prove before it is used, what is written — is here, once.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::index::candidate_index::CandidateIndex;
use crate::index::gram_index::{Bytes, FileMeta, FrozenGrams, GramIndex, StreamBuild, CATCH_UP_MOST};
use crate::index::locale_set::ServedPairs;
use crate::index::query::{CandidateQuery, CandidateSink, ExactQuery, WordAnswer, WordQuery};
use crate::model::entry::EntryId;
use crate::model::key::{Keys, KEY_VERSION};
use crate::model::locale::Locale;

/// Where a memory's change log stands: the last change logged (deletions and re-keyings,
/// numbered upwards) and the highest entry number (entries are numbered upwards and
/// never reused, so newer ones are found by number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// The last change logged (0: none).
    pub seq: i64,
    /// The highest entry number (0: none).
    pub eid: i64,
}

/// The keys of an entry's variants, by locale (none: the entry is gone).
pub type ChangedKeys = Vec<(Locale, Keys)>;

/// Which memory an index file belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// What names the memory in a file's name.
    pub name: String,
    /// What a file written now records as its memory (see [`FileMeta::token_of`]).
    pub header: String,
}

/// A parameter of the change log's SQL.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// An integer.
    Int(i64),
    /// A text.
    Text(&'a str),
}

/// A row of the change log's SQL that reads variants: an entry number, a locale tag
/// (NULL: an entry without variants, deleted) and, when selected and not NULL, the
/// three keys.
#[derive(Debug)]
pub struct VariantRow<'r> {
    /// The entry number.
    pub id: i64,
    /// The variant's locale tag.
    pub tag: Option<&'r str>,
    /// The variant's keys.
    pub keys: Option<Keys>,
}

/// The change log's SQL, one text for both dialects: parameters are `$1`, `$2`, … in
/// the order they first appear (SQLite numbers `$NAME` parameters that way).
pub mod sql {
    /// The three keys of a `tm_variants` row `v`, NULLs resolved.
    pub const KEYS_OF_V: &str =
        "v.plain, COALESCE(v.struct_key, v.plain), COALESCE(v.general_key, v.struct_key, v.plain)";
    /// Where the log stands: the last change and the highest entry number.
    pub const MARK: &str =
        "SELECT (SELECT COALESCE(MAX(seq), 0) FROM tm_changes), (SELECT COALESCE(MAX(id), 0) FROM tm_entries)";
    /// How many entries were written after `$1` plus how many changes logged after `$2`.
    pub const BEHIND: &str = "SELECT (SELECT count(*) FROM tm_entries WHERE id > $1) + \
                              (SELECT count(*) FROM tm_changes WHERE seq > $2)";
    /// The entries written after `$1` or changed after `$2`, with their variants now.
    pub const CHANGES: &str = "SELECT c.id, v.locale, v.plain, COALESCE(v.struct_key, v.plain), \
         COALESCE(v.general_key, v.struct_key, v.plain) FROM (SELECT id FROM tm_entries WHERE id > $1 \
         UNION SELECT entry_id FROM tm_changes WHERE seq > $2) AS c \
         LEFT JOIN tm_variants v ON v.entry_id = c.id ORDER BY c.id, v.ord";
    /// 1 when a change of entry `$1` was logged after `$2`, else 0.
    pub const LOGGED_SINCE: &str =
        "SELECT count(*) FROM (SELECT 1 FROM tm_changes WHERE entry_id = $1 AND seq > $2 LIMIT 1) AS x";
    /// The identity hash of entry `$1` (0: none).
    pub const ENTRY_IDENTITY: &str = "SELECT COALESCE((SELECT identity FROM tm_entries WHERE id = $1), 0)";
    /// Every variant locale, one index probe per locale (a loose scan of the locale
    /// index), not a read of every row.
    pub const LOCALES: &str = "WITH RECURSIVE l(tag) AS (SELECT MIN(locale) FROM tm_variants \
         UNION ALL SELECT (SELECT MIN(locale) FROM tm_variants WHERE locale > l.tag) FROM l \
         WHERE l.tag IS NOT NULL) SELECT CAST(0 AS BIGINT), tag FROM l WHERE tag IS NOT NULL";
    /// Every variant's entry and locale, by entry and variant order.
    pub const ENTRY_LOCALES: &str = "SELECT entry_id, locale FROM tm_variants ORDER BY entry_id, ord";
    /// The entry and keys of every variant of locale `$1`.
    pub const KEYS: &str = "SELECT v.entry_id, v.locale, v.plain, COALESCE(v.struct_key, v.plain), \
         COALESCE(v.general_key, v.struct_key, v.plain) FROM tm_variants v WHERE v.locale = $1 ORDER BY v.id";
}

/// A store's reads for its candidate index, all in one snapshot of the memory: the
/// [`sql`] texts run by its driver.
pub trait ChangeLog {
    /// The store's change counter in this snapshot: equal counters, equal memories.
    fn counter(&mut self) -> Result<i64>;
    /// The integers of the one row `sql` selects.
    fn integers(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<i64>>;
    /// Each row `sql` selects, as a [`VariantRow`] (its first two or five columns).
    fn variants(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
        row: &mut dyn FnMut(VariantRow<'_>) -> Result<()>,
    ) -> Result<()>;
    /// The memory's identity; `None`: its index files are neither read nor written.
    fn identity(&mut self) -> Result<Option<Identity>>;
    /// The store's error for stored data `what` that does not parse.
    fn corrupt(&self, what: String, e: Error) -> Error;
    /// Ends the snapshot.
    fn finish(self) -> Result<()>
    where
        Self: Sized;
}

/// The reads of the state machine, over [`ChangeLog`]'s two.
trait Reads: ChangeLog {
    fn int(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<i64> {
        Ok(self.integers(sql, args)?.first().copied().unwrap_or(0))
    }

    fn mark(&mut self) -> Result<Mark> {
        let row = self.integers(sql::MARK, &[])?;
        Ok(Mark { seq: row.first().copied().unwrap_or(0), eid: row.get(1).copied().unwrap_or(0) })
    }

    fn behind(&mut self, since: Mark) -> Result<i64> {
        self.int(sql::BEHIND, &[Arg::Int(since.eid), Arg::Int(since.seq)])
    }

    fn locale(&self, tag: &str) -> Result<Locale> {
        Locale::parse(tag).map_err(|e| self.corrupt(format!("stored locale {tag:?}"), e))
    }

    /// The entries written, deleted or re-keyed since `since`, each with its variants'
    /// keys now (none: deleted), by entry number.
    fn changes(&mut self, since: Mark) -> Result<Vec<(EntryId, ChangedKeys)>> {
        let mut out: Vec<(EntryId, ChangedKeys)> = Vec::new();
        let mut rows = Vec::new();
        self.variants(sql::CHANGES, &[Arg::Int(since.eid), Arg::Int(since.seq)], &mut |r| {
            rows.push((r.id, r.tag.map(str::to_owned), r.keys));
            Ok(())
        })?;
        for (id, tag, keys) in rows {
            let id = EntryId(id);
            if out.last().is_none_or(|(last, _)| *last != id) {
                out.push((id, Vec::new()));
            }
            if let (Some(tag), Some(keys), Some((_, variants))) = (tag, keys, out.last_mut()) {
                variants.push((self.locale(&tag)?, keys));
            }
        }
        Ok(out)
    }
}

impl<L: ChangeLog> Reads for L {}

/// Where a store keeps its index files, and how it reads them.
pub trait IndexFiles {
    /// The file of locale `tag`'s index of the memory `identity`.
    fn path(&self, identity: &Identity, tag: &str) -> PathBuf;
    /// The bytes of the file at `path` (mapped or read); `None`: no usable file.
    fn read(&self, path: &Path) -> Option<Bytes>;
    /// Whether this process may write index files.
    fn writable(&self) -> bool {
        true
    }
    /// Whether a file recording memory `header` is the memory `identity`'s.
    fn owns(&self, identity: &Identity, header: &str) -> bool {
        header == identity.header
    }
}

/// A loaded in-process index, as a store reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IndexInfo {
    /// The variant locale indexed.
    pub locale: Locale,
    /// Keys read in place from the persisted file (0: built from the tables).
    pub persisted: usize,
    /// Keys added since (built from the tables, written, or caught up with).
    pub added: usize,
}

/// What [`IndexCache::load`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loaded {
    /// Every index asked for is current.
    Ready,
    /// A locale has no usable index file and building was not allowed.
    Unavailable,
}

/// The candidate index and the state of the memory it reflects.
#[derive(Debug)]
pub struct IndexCache {
    /// The change counter the indexes reflect; `None`: not loaded.
    counter: Option<i64>,
    /// Where the change log stood at that counter.
    mark: Option<Mark>,
    /// Whether the locale set of every entry was read (needed to build an index from
    /// the tables, not to open a persisted one).
    locales_loaded: bool,
    index: CandidateIndex,
    /// How many times the locale sets were read whole, to build from the tables.
    loads: u64,
    /// How many locale indexes were opened from persisted files.
    opened: u64,
    /// The locales whose index this process built from the tables (into its file, then
    /// read in place, or in memory).
    built: Vec<u16>,
}

impl Default for IndexCache {
    fn default() -> Self {
        IndexCache {
            counter: None,
            mark: None,
            locales_loaded: false,
            index: CandidateIndex::lazy(),
            loads: 0,
            opened: 0,
            built: Vec::new(),
        }
    }
}

impl IndexCache {
    /// A cache whose indexes hold only the keys the lookups of `served` read (`None`:
    /// every key; see [`ServedPairs`]). Their files are apart from those of every key:
    /// `<locale>--<target languages>` ([`ServedPairs::file_tag`]).
    pub fn serving(served: Option<ServedPairs>) -> IndexCache {
        IndexCache { index: CandidateIndex::lazy().serving(served), ..IndexCache::default() }
    }

    /// True when the cache reflects `counter` and holds the index of every locale
    /// matching `source`.
    pub fn is_current(&self, counter: i64, source: &Locale) -> bool {
        self.counter == Some(counter) && self.has(source)
    }

    /// True when the cache is loaded and holds the index of every locale matching
    /// `source`, at whatever counter.
    pub fn has(&self, source: &Locale) -> bool {
        self.counter.is_some() && self.index.missing(source).is_empty()
    }

    /// The change counter the cache reflects; `None`: not loaded.
    pub fn counter(&self) -> Option<i64> {
        self.counter
    }

    /// Marks the cache stale: the next lookup loads it again.
    pub fn forget(&mut self) {
        self.counter = None;
        self.mark = None;
        self.locales_loaded = false;
        self.index.clear();
        self.built.clear();
    }

    /// How many times the locale sets were read whole to build from the tables.
    pub fn loads(&self) -> u64 {
        self.loads
    }

    /// How many locale indexes were opened from persisted files.
    pub fn opened(&self) -> u64 {
        self.opened
    }

    /// Learns a committed write: the entries `removed` forgotten, then those `added`
    /// filed (a replaced entry is in both). Nothing before the cache is loaded (the
    /// load reads them), and the counter stays: the next load catches up from the log.
    pub fn learn(&mut self, removed: &[EntryId], added: &[(EntryId, ChangedKeys)]) {
        if self.counter.is_none() {
            return;
        }
        for id in removed {
            self.index.remove(*id);
        }
        for (id, keys) in added {
            self.index.add(*id, keys);
        }
        self.index.settle();
    }

    /// As [`learn`](Self::learn) for a write that moved the counter from `before` to
    /// `after`, when the cache was at `before` (then it is at `after`); otherwise
    /// another writer came between, and the cache is left to the next load.
    pub fn apply(&mut self, before: i64, after: i64, added: &[(EntryId, ChangedKeys)], removed: &[EntryId]) {
        if self.counter != Some(before) {
            return;
        }
        self.learn(removed, added);
        self.counter = Some(after);
    }

    /// Per loaded locale: the keys read from its persisted file and the keys added since.
    pub fn info(&self) -> Vec<IndexInfo> {
        self.index
            .loaded()
            .into_iter()
            .filter_map(|li| {
                let ix = self.index.index(li)?;
                let file = ix.base().map_or(0, FrozenGrams::docs);
                // An index built here and read back from the file it wrote is built.
                let (persisted, added) =
                    if self.built.contains(&li) { (0, file + ix.added()) } else { (file, ix.added()) };
                Some(IndexInfo { locale: self.index.locale(li)?.clone(), persisted, added })
            })
            .collect()
    }

    /// Offers the candidates of `q` (see [`CandidateIndex::offer`]).
    pub fn offer(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) {
        self.index.offer(q, sink);
    }

    /// Answers the word search `q` (see [`CandidateIndex::words`]).
    pub fn words(&self, q: &WordQuery<'_>) -> WordAnswer {
        self.index.words(q)
    }

    /// The heap bytes of the loaded word indexes (see [`CandidateIndex::word_index_bytes`]).
    pub fn word_index_bytes(&self) -> usize {
        self.index.word_index_bytes()
    }

    /// The entries of an exact-key hit (see [`CandidateIndex::exact`]).
    pub fn exact(&self, q: &ExactQuery<'_>) -> Vec<EntryId> {
        self.index.exact(q)
    }

    /// Brings the cache to the snapshot `log` reads: loaded indexes catch up from the
    /// change log (or are dropped, when too far behind), and the index of every locale
    /// matching `source` that is not loaded is opened from its file in `files` when
    /// there is a usable one (this memory's, these keys', not too far behind) and caught
    /// up, or else built from the tables (when `build`): into that file when it may be
    /// written, then read in place as the next process will read it, else in memory.
    /// On an error the cache is forgotten: half done, it is never answered from.
    ///
    /// # Errors
    /// A store failure, or a stored locale that does not parse.
    pub fn load<L: ChangeLog>(
        &mut self,
        log: L,
        files: Option<&dyn IndexFiles>,
        source: &Locale,
        build: bool,
    ) -> Result<Loaded> {
        let loaded = self.load_in(log, files, source, build);
        if loaded.is_err() {
            self.forget();
        }
        loaded
    }

    fn load_in<L: ChangeLog>(
        &mut self,
        mut log: L,
        files: Option<&dyn IndexFiles>,
        source: &Locale,
        build: bool,
    ) -> Result<Loaded> {
        let counter = log.counter()?;
        // Where the log stands in this snapshot, once read.
        let mut at = None;
        if self.counter != Some(counter) {
            let caught_up = match (self.counter, self.mark) {
                (Some(_), Some(mark)) if log.behind(mark)? <= CATCH_UP_MOST => {
                    self.index.apply_changes(None, log.changes(mark)?);
                    true
                }
                _ => false,
            };
            if !caught_up {
                self.forget();
                // Caught-up indexes learn new locales from the entries they add.
                let mut tags = Vec::new();
                log.variants(sql::LOCALES, &[], &mut |r| {
                    tags.extend(r.tag.map(str::to_owned));
                    Ok(())
                })?;
                for tag in tags {
                    self.index.locale_id(&log.locale(&tag)?);
                }
            }
            at = Some(log.mark()?);
            self.mark = at;
            self.counter = Some(counter);
        }
        let missing = self.index.missing(source);
        let identity = match files {
            Some(_) if !missing.is_empty() => log.identity()?,
            _ => None,
        };
        let files = files.zip(identity.as_ref());
        // Files are checked against this snapshot and written at it (`self.mark` may be
        // older when the counter did not move: a store's own writes need not move it).
        let snapshot = match (files, at) {
            (None, _) => None,
            (Some(_), Some(at)) => Some(at),
            (Some(_), None) => Some(log.mark()?),
        };
        let mut loaded = Loaded::Ready;
        for li in missing {
            let Some(locale) = self.index.locale(li).cloned() else { continue };
            let tag = locale.as_str();
            // The file of these pairs' keys, or of every key.
            let file_tag = self.index.served().map_or_else(|| tag.to_owned(), |s| s.file_tag(&locale));
            let file = files.zip(snapshot).map(|((f, id), at)| (f, id, f.path(id, &file_tag), at));
            if let Some((f, id, path, at)) = &file {
                if self.open_file(&mut log, (li, &file_tag), (*f, id, path, *at))? {
                    self.opened += 1;
                    self.built.retain(|&b| b != li);
                    continue;
                }
            }
            if !build {
                loaded = Loaded::Unavailable;
                continue;
            }
            if let Some((f, id, path, at)) = file.filter(|(f, ..)| f.writable()) {
                let newest = log.int(sql::ENTRY_IDENTITY, &[Arg::Int(at.eid)])?;
                let token = FileMeta::token_of(&id.header, newest);
                let meta =
                    FileMeta { seq: at.seq, eid: at.eid, key_version: KEY_VERSION, locale: file_tag, token };
                if self.build_file(&mut log, (li, tag), f, &path, &meta)? {
                    self.built.push(li);
                    continue;
                }
            }
            // No file to write, or it could not be written (a read-only directory, a
            // full disk): built in memory, and again by the next process. Not an error
            // of the lookup.
            self.build(&mut log, li, tag)?;
            self.built.push(li);
        }
        log.finish()?;
        Ok(loaded)
    }

    /// Builds the index of locale `li` from the tables straight into its file at `path`
    /// (in bounded memory, see [`StreamBuild`]) and opens that file; false when the file
    /// cannot be written or read back (the caller builds in memory instead).
    fn build_file<L: ChangeLog>(
        &mut self,
        log: &mut L,
        (li, tag): (u16, &str),
        files: &dyn IndexFiles,
        path: &Path,
        meta: &FileMeta,
    ) -> Result<bool> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        let Ok(mut stream) = StreamBuild::new(path) else { return Ok(false) };
        let mut failed = None;
        let read = self.kept_variants(log, li, tag, &mut |id, set, keys| {
            stream.add(id, set, &keys).map_err(|e| {
                failed = Some(e);
                Error::new(crate::error::ErrorKind::Store, "writing the candidate index")
            })
        });
        match (read, failed) {
            (Err(_), Some(_)) => return Ok(false),
            (read, _) => read?,
        }
        let sets = self.index.sets();
        if crate::atomic_file::replace_with(path, |file| stream.finish(sets, meta, file)).is_err() {
            return Ok(false);
        }
        // Read back as written: another process may have put its own file there since.
        let Some(frozen) = files
            .read(path)
            .and_then(|bytes| FrozenGrams::open(bytes).ok())
            .filter(|frozen| frozen.meta() == meta)
        else {
            return Ok(false);
        };
        Ok(self.index.insert_frozen(li, frozen).is_ok())
    }

    /// Opens the persisted index of locale `li` at `path` and catches it up to the
    /// snapshot `at`; false when there is none, it is not this memory's or these keys',
    /// it is damaged, or it is too far behind (then it is built again).
    fn open_file<L: ChangeLog>(
        &mut self,
        log: &mut L,
        (li, tag): (u16, &str),
        (files, identity, path, at): (&dyn IndexFiles, &Identity, &Path, Mark),
    ) -> Result<bool> {
        let Some(bytes) = files.read(path) else { return Ok(false) };
        let Ok(frozen) = FrozenGrams::open(bytes) else { return Ok(false) };
        let meta = frozen.meta();
        if !meta.memory().is_some_and(|m| files.owns(identity, m)) || !meta.indexes(tag) {
            return Ok(false);
        }
        let mark = Mark { seq: meta.seq, eid: meta.eid };
        // A file of a later state, or of one the database no longer has (a copy of an
        // older database put in its place), cannot be caught up (`FileMeta::follows`).
        let newest = log.int(sql::ENTRY_IDENTITY, &[Arg::Int(mark.eid)])?;
        let logged = log.int(sql::LOGGED_SINCE, &[Arg::Int(mark.eid), Arg::Int(mark.seq)])? > 0;
        if !meta.follows((at.seq, at.eid), newest, logged) || !frozen.worth_catching_up(log.behind(mark)?) {
            return Ok(false);
        }
        if self.index.insert_frozen(li, frozen).is_err() {
            return Ok(false);
        }
        self.index.apply_changes(Some(li), log.changes(mark)?);
        Ok(true)
    }

    /// Builds the index of locale `li` from the tables.
    fn build<L: ChangeLog>(&mut self, log: &mut L, li: u16, tag: &str) -> Result<()> {
        let mut variants = Vec::new();
        self.kept_variants(log, li, tag, &mut |id, set, keys| {
            variants.push((id, set, keys));
            Ok(())
        })?;
        self.index.insert_index(li, GramIndex::build(&variants));
        Ok(())
    }

    /// Calls `each` with the entry, locale set and keys of every variant of locale `li`
    /// (tag `tag`) the index keeps, in variant order: all of them, or those the served
    /// pairs' lookups read. Reads every entry's locales first, once.
    fn kept_variants<L: ChangeLog>(
        &mut self,
        log: &mut L,
        li: u16,
        tag: &str,
        each: &mut dyn FnMut(EntryId, u32, Keys) -> Result<()>,
    ) -> Result<()> {
        if !self.locales_loaded {
            self.load_locales(log)?;
            self.locales_loaded = true;
            self.loads += 1;
        }
        let index = &mut self.index;
        log.variants(sql::KEYS, &[Arg::Text(tag)], &mut |r| {
            let id = EntryId(r.id);
            let Some(keys) = r.keys else { return Ok(()) };
            // Every variant's entry had its locales loaded first.
            let set = index.set_of(id).unwrap_or(u32::MAX);
            // Serving some pairs only: the keys their lookups read.
            if !index.keeps(li, set) {
                return Ok(());
            }
            each(id, set, keys)
        })
    }

    /// Reads the variant locales of every entry.
    fn load_locales<L: ChangeLog>(&mut self, log: &mut L) -> Result<()> {
        let index = &mut self.index;
        let mut current: Option<(EntryId, Vec<u16>)> = None;
        // Rows alternate between a memory's few locales: each tag is parsed once.
        let mut tags: Vec<(String, u16)> = Vec::new();
        let mut bad = None;
        log.variants(sql::ENTRY_LOCALES, &[], &mut |r| {
            let (id, tag) = (EntryId(r.id), r.tag.unwrap_or_default());
            let li = match tags.iter().find(|(t, _)| t == tag) {
                Some((_, li)) => *li,
                None => match Locale::parse(tag) {
                    Ok(loc) => {
                        let li = index.locale_id(&loc);
                        tags.push((tag.to_owned(), li));
                        li
                    }
                    Err(e) => {
                        bad = Some((tag.to_owned(), e));
                        return Err(Error::new(crate::error::ErrorKind::Corrupt, "a stored locale"));
                    }
                },
            };
            match &mut current {
                Some((cid, locs)) if *cid == id => locs.push(li),
                _ => {
                    if let Some((cid, locs)) = current.take() {
                        index.set_locales(cid, &locs);
                    }
                    current = Some((id, vec![li]));
                }
            }
            Ok(())
        })
        .map_err(|e| match bad.take() {
            Some((tag, parse)) => log.corrupt(format!("stored locale {tag:?}"), parse),
            None => e,
        })?;
        if let Some((cid, locs)) = current {
            index.set_locales(cid, &locs);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::sql;
    use crate::store::schema::CHANGES_TABLE;

    #[test]
    fn the_change_log_sql_names_the_schemas_tables() {
        for (text, table) in [
            (sql::MARK, CHANGES_TABLE),
            (sql::CHANGES, CHANGES_TABLE),
            (sql::BEHIND, CHANGES_TABLE),
            (sql::LOGGED_SINCE, CHANGES_TABLE),
        ] {
            assert!(text.contains(&format!("FROM {table}")), "{table} in {text}");
        }
    }
}
