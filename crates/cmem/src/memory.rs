//! [`Memory`]: a memory opened by address, whatever store holds it.

use cmem_core::ContentMemoryExt;
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use cmem_core::{
    lookup, ContentMemory, Entry, EntryId, Error, ErrorKind, Locale, LookupOptions, LookupRequest, Match,
    MemStore, NewEntry, Recognizer, Result, SearchHit, SearchQuery, ServedPairs, Stats, Version,
    VersionQuery, WaitHook, WriteOutcome,
};

use crate::address::Address;

/// The memory-metadata key under which the recognizer rule set of a memory's imports is
/// recorded ([`cmem_core::MetaStore::meta`]); read it with [`Memory::recorded_rule_set`].
pub(crate) const RECOGNIZER_META: &str = "recognizer";

/// How [`Memory::open_with`] opens a memory.
///
/// ```
/// use cmem::OpenOptions;
///
/// let options = OpenOptions::new().create(true).sql_candidates(true);
/// assert!(options.create && options.sql_candidates && !options.read_only);
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Create the memory when it does not exist (default false: a missing memory is an
    /// error, never a new empty one).
    pub create: bool,
    /// Open for reading only: writes fail (default false).
    pub read_only: bool,
    /// Never build the in-process candidate index (default false): a short-lived process
    /// making one lookup. A SQLite memory's persisted index is still opened in place
    /// when there is a usable one (milliseconds); without one, and on PostgreSQL,
    /// candidates come from the database's own indexes. Long-lived processes should
    /// leave it off.
    pub sql_candidates: bool,
    /// How long a write waits for another writer before it fails (`None`: the store's
    /// default, 60 s for SQLite).
    pub write_wait: Option<Duration>,
    /// Told about a long wait for another writer; may give up.
    pub on_wait: Option<WaitHook>,
    /// How stale a PostgreSQL memory's in-process index may be about other processes'
    /// writes (`None`: zero, every store call checks; see
    /// `cmem_postgres::PgOptions::freshness`). SQLite checks at no cost and ignores it.
    pub freshness: Option<Duration>,
    /// Where a PostgreSQL memory's in-process candidate index is kept between runs, so
    /// the next process opens it and takes the changes since instead of building it
    /// (`None`: built by every process; see `cmem_postgres::PgOptions::index_dir`). A
    /// SQLite memory keeps its index file beside the database and ignores it.
    pub index_dir: Option<PathBuf>,
    /// A streaming replica of a PostgreSQL memory to read from, writes going to the
    /// memory's address (`None`: everything on the memory's address; see
    /// `cmem_postgres::PgOptions::replica`). Refused for a SQLite memory.
    pub replica: Option<String>,
    /// Index only the keys these locale pairs' lookups read (`None`, the default: every
    /// key; see [`ServedPairs`]): a server of some pairs of a memory of many
    /// (`cmem serve --pairs`) holds and counts their keys alone, and its lookups cost
    /// what they cost in a memory of those pairs. Lookups of other pairs find fewer or
    /// no fuzzy candidates.
    pub served: Option<ServedPairs>,
    /// Let an import into an empty SQLite memory hold its file alone, writing the
    /// database once instead of twice; other programs wait for it meanwhile (default
    /// false; see `cmem_sqlite::SqliteOptions::first_import_alone`). PostgreSQL ignores it.
    pub first_import_alone: bool,
}

impl fmt::Debug for OpenOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenOptions")
            .field("create", &self.create)
            .field("read_only", &self.read_only)
            .field("sql_candidates", &self.sql_candidates)
            .field("write_wait", &self.write_wait)
            .field("on_wait", &self.on_wait.as_ref().map(|_| ".."))
            .field("freshness", &self.freshness)
            .field("index_dir", &self.index_dir)
            .field(
                "replica",
                &self
                    .replica
                    .as_ref()
                    .map(|r| Address::parse(r).map_or_else(|_| "..".to_owned(), |a| a.to_string())),
            )
            .field("served", &self.served)
            .field("first_import_alone", &self.first_import_alone)
            .finish()
    }
}

crate::setters!(OpenOptions {
    create: bool,
    read_only: bool,
    sql_candidates: bool,
    first_import_alone: bool
});

impl OpenOptions {
    /// Reading and writing an existing memory.
    pub fn new() -> Self {
        OpenOptions::default()
    }

    /// Sets [`write_wait`](Self::write_wait).
    #[must_use]
    pub fn write_wait(mut self, wait: Duration) -> Self {
        self.write_wait = Some(wait);
        self
    }

    /// Sets [`on_wait`](Self::on_wait).
    #[must_use]
    pub fn on_wait(mut self, hook: WaitHook) -> Self {
        self.on_wait = Some(hook);
        self
    }

    /// Sets [`freshness`](Self::freshness).
    #[must_use]
    pub fn freshness(mut self, stale_at_most: Duration) -> Self {
        self.freshness = Some(stale_at_most);
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
    pub fn replica(mut self, address: impl Into<String>) -> Self {
        self.replica = Some(address.into());
        self
    }

    /// Sets [`served`](Self::served).
    #[must_use]
    pub fn served(mut self, pairs: ServedPairs) -> Self {
        self.served = Some(pairs);
        self
    }
}

/// A memory opened by [`Address`]: the store behind it and the verbs users call.
///
/// ```
/// use cmem::{Locale, LookupRequest, Memory, NewEntry, OpenOptions, Run, Variant};
///
/// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// memory.write(&[NewEntry::pair(
///     Variant::new(en.clone(), vec![Run::text("Save the file")]),
///     Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
/// )])?;
/// let matches = memory.lookup(&LookupRequest::new(vec![Run::text("Save the files")], en, de))?;
/// assert_eq!(matches.len(), 1);
/// # Ok::<(), cmem::Error>(())
/// ```
pub struct Memory {
    store: Box<dyn ContentMemory>,
    address: Address,
    /// The recognizer of [`lookup_text`](Memory::lookup_text) and
    /// [`import_file`](Memory::import_file), read once from the memory's metadata.
    recognizer: OnceLock<Option<Recognizer>>,
}

impl fmt::Debug for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Memory").field("address", &self.address).finish_non_exhaustive()
    }
}

impl Memory {
    /// Opens the existing memory at `address` for reading and writing.
    ///
    /// ```
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let path = std::env::temp_dir().join(format!("cmem-doc-open-{}.db", std::process::id()));
    /// assert!(Memory::open(path.to_str().unwrap_or_default()).is_err()); // no memory there yet
    /// let created = Memory::open_with(path.to_str().unwrap_or_default(), &OpenOptions::new().create(true))?;
    /// drop(created);
    /// let memory = Memory::open(path.to_str().unwrap_or_default())?;
    /// assert_eq!(memory.address().path(), Some(path.as_path()));
    /// assert_eq!(memory.stats()?.entries, 0);
    /// # drop(memory);
    /// # for suffix in ["", "-wal", "-shm"] { let _ = std::fs::remove_file(format!("{}{suffix}", path.display())); }
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`open_with`](Self::open_with).
    pub fn open(address: &str) -> Result<Memory> {
        Memory::open_with(address, &OpenOptions::new())
    }

    /// Opens the memory at `address` (a path, `sqlite:PATH`, `memory:`, `postgres://…`).
    ///
    /// ```
    /// use std::time::Duration;
    /// use cmem::{ErrorKind, Memory, OpenOptions};
    ///
    /// let options = OpenOptions::new().create(true).write_wait(Duration::from_secs(5));
    /// let memory = Memory::open_with("memory:", &options)?;
    /// assert_eq!(memory.address().to_string(), "memory:");
    /// // A private in-memory memory is always new: opening one without `create` is an error.
    /// assert_eq!(Memory::open("memory:").unwrap_err().kind(), ErrorKind::Store);
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// A missing memory (unless `create`), a directory, a file that is not a memory or
    /// is of a newer schema, a store this build does not include
    /// ([`ErrorKind::Unsupported`]); each message names the address (passwords hidden).
    pub fn open_with(address: &str, options: &OpenOptions) -> Result<Memory> {
        let address = Address::parse(address)?;
        let store = open_store(&address, options)?;
        Ok(Memory { store, address, recognizer: OnceLock::new() })
    }

    /// A memory over a store the caller opened.
    ///
    /// ```
    /// use cmem::{Address, ContentMemory, Memory};
    /// use cmem_core::MemStore;
    ///
    /// let memory = Memory::from_store(Box::new(MemStore::new()), Address::parse("memory:")?);
    /// assert_eq!(memory.store().stats()?.entries, 0);
    /// let store: Box<dyn ContentMemory> = memory.into_store();
    /// assert_eq!(store.stats()?.entries, 0);
    /// # Ok::<(), cmem::Error>(())
    /// ```
    pub fn from_store(store: Box<dyn ContentMemory>, address: Address) -> Memory {
        Memory { store, address, recognizer: OnceLock::new() }
    }

    /// The address it was opened at.
    pub fn address(&self) -> &Address {
        &self.address
    }

    /// The store behind it: the escape hatch for store implementers (checking their
    /// store through the facade) and for callers of `cmem_formats` functions over a
    /// source or sink of their own. Programs use the verbs of `Memory` instead — every
    /// front end of this workspace does — so that what a verb adds (recognition, the
    /// recorded rule set, the persisted index) is never skipped.
    pub fn store(&self) -> &dyn ContentMemory {
        &*self.store
    }

    /// The store behind it, owned.
    pub fn into_store(self) -> Box<dyn ContentMemory> {
        self.store
    }

    /// Stores `entries` in one transaction: each is a new entry or, equal to a stored
    /// one, extends its origins, as its [`WriteOutcome`] says.
    ///
    /// ```
    /// use cmem::{Locale, Memory, NewEntry, OpenOptions, Run, Variant};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// let pair = NewEntry::pair(
    ///     Variant::new(en, vec![Run::text("Print")]),
    ///     Variant::new(de, vec![Run::text("Drucken")]),
    /// );
    /// let id = memory.write(&[pair])?[0].id();
    /// assert_eq!(memory.get(id)?.map(|e| e.variants.len()), Some(2));
    /// assert!(memory.delete(id)?);
    /// assert!(memory.get(id)?.is_none());
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// An invalid entry ([`NewEntry::validate`]), a read-only memory, or a store
    /// failure; nothing of the batch is then stored.
    pub fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        self.store.write(entries)
    }

    /// The entry `id`, if the memory holds it.
    ///
    /// # Errors
    /// A store failure.
    pub fn get(&self, id: EntryId) -> Result<Option<Entry>> {
        self.store.get(id)
    }

    /// Replaces entry `id` with `entry`; false when there was none.
    ///
    /// # Errors
    /// An invalid entry, one equal to another stored entry, a read-only memory, or a
    /// store failure.
    pub fn replace(&self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        self.store.replace(id, entry)
    }

    /// Opens a write session: this process holds the memory's writer turn until the
    /// session commits or is dropped, so a read made inside it sees what no other writer
    /// can change before the commit (a check-then-write, as an editor's revision needs).
    ///
    /// # Errors
    /// A read-only memory, the writer turn not had in time, or a store failure.
    pub fn begin(&self) -> Result<Box<dyn cmem_core::imp::WriteSession + '_>> {
        self.store.begin()
    }

    /// Learns the word model of `source` → `target` from the memory's pairs
    /// ([`cmem_core::store::learn::train_store`]) and keeps it with the memory, where lookups'
    /// word repairs find it; a memory with no such pair keeps no model (the report says
    /// 0 pairs).
    ///
    /// # Errors
    /// A read-only memory, a store that keeps no models, or a store failure.
    pub fn train_word_model(
        &self,
        source: &Locale,
        target: &Locale,
        options: &cmem_core::align::AlignOptions,
    ) -> Result<cmem_core::align::TrainReport> {
        let (model, report) =
            cmem_core::store::learn::train_store(self.store.as_ref(), source, target, options)?;
        if report.pairs > 0 {
            self.store.save_word_model(source, target, std::sync::Arc::new(model))?;
        }
        Ok(report)
    }

    /// Whether the memory keeps a word model of `source` → `target` (regions ignored,
    /// as the model's pair is kept), which [`Memory::train_word_model`] made.
    ///
    /// # Errors
    /// A store failure, or a saved model that does not read.
    pub fn has_word_model(&self, source: &Locale, target: &Locale) -> Result<bool> {
        Ok(self.store.word_model(source, target)?.is_some())
    }

    /// Deletes entry `id`; false when there was none.
    ///
    /// # Errors
    /// A read-only memory, or a store failure.
    pub fn delete(&self, id: EntryId) -> Result<bool> {
        self.store.delete(id)
    }

    /// Looks `req` up ([`cmem_core::lookup()`]).
    ///
    /// # Errors
    /// As [`cmem_core::lookup()`].
    pub fn lookup(&self, req: &LookupRequest) -> Result<Vec<Match>> {
        lookup(&*self.store, req)
    }

    /// The recognizer plain text gets in this memory: the rule set recorded by its
    /// imports, else the default rule sets (none without the `recognize` feature).
    ///
    /// ```
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// // A new memory recognizes plain text with every built-in rule set.
    /// let rec = memory.recognizer()?.expect("the default rule sets");
    /// assert!(rec.rule_names().contains(&"printf"));
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// A store failure, or a recorded rule set this program does not know
    /// ([`ErrorKind::Unsupported`] for any rule set without the `recognize` feature).
    pub fn recognizer(&self) -> Result<Option<&Recognizer>> {
        if let Some(r) = self.recognizer.get() {
            return Ok(r.as_ref());
        }
        let (r, _) = self.query_recognizer(None)?;
        Ok(self.recognizer.get_or_init(|| r).as_ref())
    }

    /// Looks up plain text from locale `from` to `to` (tags such as `"en"`, `"de-AT"`),
    /// its inline codes recognized as the memory's imports were, with default options.
    ///
    /// ```
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let file = r#"{"source":"Open %s","target":"%s öffnen","source_locale":"en","target_locale":"de"}"#;
    /// memory.import_reader("ui.jsonl", file.as_bytes())?;
    /// let matches = memory.lookup_text("Open %d", "en", "de")?;
    /// assert_eq!(matches[0].adapted_text(), "%d öffnen");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// An invalid locale tag, or as [`lookup`](Self::lookup).
    pub fn lookup_text(&self, text: &str, from: &str, to: &str) -> Result<Vec<Match>> {
        self.lookup_text_with(text, from, to, LookupOptions::default())
    }

    /// [`lookup_text`](Self::lookup_text) with options.
    ///
    /// ```
    /// use cmem::{LookupOptions, Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let file = r#"{"source":"Save the file","target":"Datei speichern","source_locale":"en","target_locale":"de"}"#;
    /// memory.import_reader("ui.jsonl", file.as_bytes())?;
    /// let strict = LookupOptions::default().threshold(0.99);
    /// assert!(memory.lookup_text_with("Save the files", "en", "de", strict)?.is_empty());
    /// assert_eq!(memory.lookup_text("Save the files", "en", "de")?.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`lookup_text`](Self::lookup_text).
    pub fn lookup_text_with(
        &self,
        text: &str,
        from: &str,
        to: &str,
        options: LookupOptions,
    ) -> Result<Vec<Match>> {
        crate::read::lookup_text(self, text, (from, to), options)
    }

    /// Concordance search: entries whose text in `locale` holds all of `words`, best
    /// first, at most `limit`.
    ///
    /// ```
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let file = r#"{"source":"Open the file","target":"Datei öffnen","source_locale":"en","target_locale":"de"}"#;
    /// memory.import_reader("ui.jsonl", file.as_bytes())?;
    /// let hits = memory.search("file", "en", 10)?;
    /// assert_eq!(hits[0].snippet, "Open the [file]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// An invalid locale tag, or a store failure.
    pub fn search(&self, words: &str, locale: &str, limit: usize) -> Result<Vec<SearchHit>> {
        let mut q = SearchQuery::new(words, Locale::parse(locale)?);
        q.limit = limit;
        self.store.search(&q)
    }

    /// [`search`](Self::search) with every option of a [`SearchQuery`].
    ///
    /// # Errors
    /// An invalid query, or a store failure.
    pub fn search_with(&self, query: &SearchQuery) -> Result<Vec<SearchHit>> {
        self.store.search(query)
    }

    /// The prior answers of content block `unit`, newest first.
    ///
    /// ```
    /// use cmem::{Locale, Memory, NewEntry, OpenOptions, Run, Variant};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// let version = |source: &str, target: &str| NewEntry {
    ///     unit: "home.title".into(),
    ///     ..NewEntry::pair(Variant::new(en.clone(), vec![Run::text(source)]), Variant::new(de.clone(), vec![Run::text(target)]))
    /// };
    /// memory.write(&[version("Welcome", "Willkommen")])?;
    /// memory.write(&[version("Welcome back", "Willkommen zurück")])?;
    /// assert_eq!(memory.versions("home.title")?.len(), 2);
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// An empty unit, a store without version chains, or a store failure.
    pub fn versions(&self, unit: &str) -> Result<Vec<Version>> {
        self.versions_with(&VersionQuery::new(unit))
    }

    /// [`versions`](Self::versions) with every option of a [`VersionQuery`] (point, limit).
    ///
    /// # Errors
    /// As [`versions`](Self::versions) ([`ErrorKind::Unsupported`] for a store without
    /// version chains).
    pub fn versions_with(&self, query: &VersionQuery) -> Result<Vec<Version>> {
        let reader = self
            .store
            .version_reader()
            .ok_or_else(|| Error::new(ErrorKind::Unsupported, "this memory keeps no versions"))?;
        reader.versions(query, None)
    }

    /// What the memory holds.
    ///
    /// ```
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let file = r#"{"source":"Print","target":"Drucken","source_locale":"en","target_locale":"de"}"#;
    /// memory.import_reader("ui.jsonl", file.as_bytes())?;
    /// let stats = memory.stats()?;
    /// assert_eq!((stats.entries, stats.pairs[0].source.as_str()), (1, "en"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A store failure.
    pub fn stats(&self) -> Result<Stats> {
        self.store.stats()
    }

    /// A number that changes whenever the memory's content does (`None`: the store
    /// cannot tell), for caches of lookup answers.
    ///
    /// # Errors
    /// A store failure.
    pub fn change_mark(&self) -> Result<Option<u64>> {
        self.store.change_mark()
    }

    /// The source locales the memory holds entries of.
    ///
    /// # Errors
    /// A store failure.
    pub fn source_locales(&self) -> Result<Vec<Locale>> {
        self.store.source_locales()
    }

    /// Builds (or brings up to date) the candidate index of source locale `source`
    /// now, so the first lookup does not wait for it.
    ///
    /// # Errors
    /// A store failure.
    pub fn warm(&self, source: &Locale) -> Result<()> {
        self.store.warm(source)
    }

    /// Whether the candidate index [`warm`](Self::warm) builds outlives the process
    /// (written beside the memory) rather than living only in it.
    pub fn index_persists(&self) -> bool {
        self.store.index_persists()
    }

    /// The memory's metadata value under `key`, if any.
    ///
    /// # Errors
    /// A store failure.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        self.store.meta(key)
    }

    /// Sets the memory's metadata value under `key`.
    ///
    /// # Errors
    /// A read-only memory, or a store failure.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.store.set_meta(key, value)
    }

    /// The recognizer rule set recorded for the memory's imports, when one was
    /// recorded: its rule names joined by commas (`printf,html`), or `none`.
    ///
    /// # Errors
    /// A store failure.
    pub fn recorded_rule_set(&self) -> Result<Option<String>> {
        self.store.meta(RECOGNIZER_META)
    }

    /// Records `recognizer` as the rule set of the memory's imports when none is
    /// recorded yet. Returns the rule set recorded before when it differs (the caller
    /// warns: queries of one memory should be recognized as its imports were).
    ///
    /// ```
    /// use cmem::{Memory, OpenOptions, Recognizer};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let printf = Recognizer::from_names("printf")?;
    /// assert_eq!(memory.record_rule_set(Some(&printf))?, None);
    /// assert_eq!(memory.recorded_rule_set()?.as_deref(), Some("printf"));
    /// // Another rule set is not recorded over it; the caller is told what was.
    /// assert_eq!(memory.record_rule_set(None)?.as_deref(), Some("printf"));
    /// // A query recognized differently gets a warning.
    /// let (chosen, warning) = memory.query_recognizer(Some(None))?;
    /// assert!(chosen.is_none() && warning.is_some());
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// A store failure.
    pub fn record_rule_set(&self, recognizer: Option<&Recognizer>) -> Result<Option<String>> {
        let name = rule_set_name(recognizer);
        match self.store.meta(RECOGNIZER_META)? {
            Some(recorded) if recorded == name => Ok(None),
            Some(recorded) => Ok(Some(recorded)),
            None => {
                self.store.set_meta(RECOGNIZER_META, &name)?;
                Ok(None)
            }
        }
    }

    /// The recognizer for queries: `given` when the caller chose one (`Some(None)`: no
    /// recognition), else the one recorded for the memory's imports, else the default
    /// rule sets. Also returns a warning when the choice differs from what is recorded.
    ///
    /// # Errors
    /// A store failure, or a recorded rule set this program does not know.
    pub fn query_recognizer(
        &self,
        given: Option<Option<Recognizer>>,
    ) -> Result<(Option<Recognizer>, Option<String>)> {
        let recorded = self.recorded_rule_set()?;
        match given {
            Some(chosen) => {
                let warning = recorded.filter(|r| *r != rule_set_name(chosen.as_ref())).map(|r| {
                    format!(
                        "the memory was imported with recognizer rules {r:?}, this query uses {:?}: \
                         recognized codes match only when both agree",
                        rule_set_name(chosen.as_ref())
                    )
                });
                Ok((chosen, warning))
            }
            None => match recorded.as_deref() {
                None => Ok((default_recognizer(), None)),
                Some("none") => Ok((None, None)),
                Some(names) => Ok((Some(Recognizer::from_names(names)?), None)),
            },
        }
    }
}

/// The name under which a recognizer's rule set is recorded: its rule names joined by
/// commas (`printf,html`), or `none` for no recognition.
pub(crate) fn rule_set_name(recognizer: Option<&Recognizer>) -> String {
    match recognizer {
        None => "none".to_owned(),
        Some(r) => r.rule_names().join(","),
    }
}

/// The recognizer of a memory that recorded none: every built-in rule set.
#[cfg(feature = "recognize")]
fn default_recognizer() -> Option<Recognizer> {
    Some(Recognizer::default())
}

/// Without the `recognize` feature plain text stays text, and imports record `none`.
#[cfg(not(feature = "recognize"))]
fn default_recognizer() -> Option<Recognizer> {
    None
}

fn open_store(address: &Address, options: &OpenOptions) -> Result<Box<dyn ContentMemory>> {
    match address {
        Address::InMemory => {
            if !options.create {
                return Err(Error::new(
                    ErrorKind::Store,
                    "memory: is always new and empty; open it with create",
                ));
            }
            Ok(Box::new(MemStore::serving(options.served.clone())))
        }
        Address::Postgres(url) => open_postgres(url, address, options),
        Address::Sqlite(path) => open_sqlite(path, address, options),
    }
}

#[cfg(feature = "sqlite")]
fn open_sqlite(
    path: &std::path::Path,
    address: &Address,
    options: &OpenOptions,
) -> Result<Box<dyn ContentMemory>> {
    use cmem_sqlite::{SqliteOptions, SqliteStore};
    if options.replica.is_some() {
        return Err(Error::new(
            ErrorKind::InvalidQuery,
            format!("memory {address}: a read replica needs a PostgreSQL memory"),
        ));
    }
    if path.is_dir() {
        return Err(Error::new(ErrorKind::Store, format!("memory {address} is a directory")));
    }
    if !options.create && !path.exists() {
        return Err(Error::new(ErrorKind::Store, format!("no memory at {address}")));
    }
    let mut sqlite = SqliteOptions::default()
        .read_only(options.read_only)
        .create(options.create && !options.read_only)
        .build_index(!options.sql_candidates)
        .first_import_alone(options.first_import_alone)
        .served(options.served.clone());
    if let Some(wait) = options.write_wait {
        sqlite = sqlite.write_wait(wait);
    }
    if let Some(hook) = &options.on_wait {
        sqlite = sqlite.on_wait(hook.clone());
    }
    Ok(Box::new(SqliteStore::open_with(path, sqlite)?))
}

#[cfg(not(feature = "sqlite"))]
fn open_sqlite(_: &std::path::Path, address: &Address, _: &OpenOptions) -> Result<Box<dyn ContentMemory>> {
    Err(Error::new(
        ErrorKind::Unsupported,
        format!("memory {address}: SQLite memories need the `sqlite` feature of cmem"),
    ))
}

/// Opens a PostgreSQL memory.
#[cfg(feature = "postgres")]
fn open_postgres(url: &str, _: &Address, options: &OpenOptions) -> Result<Box<dyn ContentMemory>> {
    use cmem_postgres::{PgOptions, PgStore};
    let mut pg = PgOptions::default()
        .create(options.create && !options.read_only)
        .read_only(options.read_only)
        .gram_index(!options.sql_candidates)
        .served(options.served.clone());
    if let Some(fresh) = options.freshness {
        pg = pg.freshness(fresh);
    }
    if let Some(dir) = &options.index_dir {
        pg = pg.index_dir(dir.clone());
    }
    if let Some(replica) = &options.replica {
        pg = pg.replica(replica.clone());
    }
    if let Some(wait) = options.write_wait {
        pg = pg.write_wait(wait);
    }
    if let Some(hook) = &options.on_wait {
        pg = pg.on_wait(hook.clone());
    }
    Ok(Box::new(PgStore::open_with(url, pg)?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(_: &str, address: &Address, _: &OpenOptions) -> Result<Box<dyn ContentMemory>> {
    Err(Error::new(
        ErrorKind::Unsupported,
        format!("memory {address}: PostgreSQL memories need the `postgres` feature of cmem"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "recognize")]
    fn rule_sets_are_recorded_by_their_rule_names() {
        let rec = Recognizer::from_names("html, printf").unwrap();
        assert_eq!(rule_set_name(Some(&rec)), "printf,html");
        assert_eq!(rule_set_name(None), "none");
    }
}
