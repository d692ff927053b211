//! The store trait every backend implements, and the queries it answers.
//!
//! Stores retrieve; they do not score. Exact-key hits and fuzzy *candidates* come from
//! the store; tiers, scores, ambiguity, points, ordering and adaptation live once in
//! [`lookup`](crate::lookup::lookup()), so every store ranks identically (docs/matching.md §8).

mod capability;
pub mod learn;
pub mod mem;
pub mod migrate;
pub mod schema;
#[doc(hidden)]
pub mod stored;

pub use crate::index::query::{
    CandidateQuery, CandidateSink, ExactQuery, KeyText, WordAnswer, WordHit, WordQuery,
};
pub use capability::{Capabilities, ContentMemoryExt, IndexControl, MetaStore, WordIndex, WordModels};

use crate::error::Result;
use crate::model::entry::{Entry, EntryId, NewEntry, WriteOutcome};

use crate::model::locale::Locale;

/// One concordance-search hit.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchHit {
    /// The entry.
    pub entry: Entry,
    /// Relevance; higher is better (BM25 or the store's equivalent).
    pub score: f64,
    /// The matching variant's text with each hit wrapped in `[` `]`.
    pub snippet: String,
}

/// A concordance search: words in one locale's text.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SearchQuery {
    /// The words to find (all of them, case-insensitively; any of them with
    /// [`any`](Self::any)).
    pub words: String,
    /// The locale searched (prefix rule).
    pub locale: Locale,
    /// At most this many hits.
    pub limit: usize,
    /// The longest `words` searched, in characters (default 10,000, as a lookup's
    /// query): a search of every word of a long text costs the store one pass per word.
    pub max_chars: usize,
    /// Find texts that hold any of the words, not all (default false), ranked by the
    /// same relevance, which rewards holding more of them and the rarer ones: the word
    /// search a producer's context draws examples from.
    pub any: bool,
}

impl SearchQuery {
    /// A search for `words` in `locale`, 20 hits at most.
    pub fn new(words: impl Into<String>, locale: Locale) -> Self {
        SearchQuery { words: words.into(), locale, limit: 20, max_chars: 10_000, any: false }
    }

    /// Checks the query against its caps; every store calls it before searching.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidQuery`](crate::error::ErrorKind::InvalidQuery) for words longer than
    /// [`max_chars`](Self::max_chars); the message quotes their beginning only.
    pub fn validate(&self) -> Result<()> {
        let chars = self.words.chars().count();
        if chars > self.max_chars {
            return Err(crate::error::Error::new(
                crate::error::ErrorKind::InvalidQuery,
                format!(
                    "search of {chars} characters ({}) exceeds max_chars {}",
                    self.quoted(),
                    self.max_chars
                ),
            ));
        }
        Ok(())
    }

    /// The words for a message: quoted, their first 40 characters only.
    pub fn quoted(&self) -> String {
        let head: String = self.words.chars().take(40).collect();
        if head.len() < self.words.len() {
            format!("{head:?}…")
        } else {
            format!("{head:?}")
        }
    }
}

/// Counts for one locale pair.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PairCount {
    /// The source locale (the entry's first variant).
    pub source: Locale,
    /// Another variant's locale.
    pub target: Locale,
    /// Entries with both.
    pub entries: u64,
}

/// What a store holds.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// Entries in all.
    pub entries: u64,
    /// Variants in all.
    pub variants: u64,
    /// Entries per locale pair (first variant → each other variant).
    pub pairs: Vec<PairCount>,
    /// Bytes on disk, where the store has a disk.
    pub size_bytes: Option<u64>,
}

/// Writes that readers see all at once, when committed, or never: what an import needs
/// to be all or nothing (docs/matching.md §11). Begun by [`ContentMemory::begin`].
///
/// # Implementer contract
/// - Nothing written through a session is visible to any reader, of this store or of
///   another process sharing its data, before [`commit`](WriteSession::commit) returns;
///   after it, all of it is.
/// - A session that is dropped without a commit, or whose process dies (a crash, a kill,
///   a power loss), leaves the store as it was, without any clean-up step; a failed
///   `commit` does too. Rolling back takes about the same time at any size.
/// - A store has one writer at a time: [`begin`](ContentMemory::begin) waits (bounded)
///   for another session or write to end instead of failing at once, and while a
///   session is open, other writers wait for it. Writing through the store itself from
///   the thread that holds a session therefore waits for that session: don't.
/// - Deduplication (see [`ContentMemory`]) sees the committed entries and the session's
///   own, never another writer's uncommitted ones. The outcomes' ids are final once the
///   session commits.
pub trait WriteSession {
    /// Writes a batch of entries into the session: as [`ContentMemory::write`], but
    /// visible only once the session commits.
    ///
    /// # Errors
    /// An invalid entry (see [`NewEntry::validate`]) or a store failure; nothing of the
    /// batch is then in the session, and the session may go on or be dropped.
    fn write(&mut self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>>;

    /// Replaces entry `id` in the session with `entry`, keeping its id: what
    /// [`replaced_entry`] makes of the two, visible only once the session commits.
    /// Answers false, changing nothing, when the store holds no entry `id` (committed,
    /// or written earlier in the session).
    ///
    /// Every reader sees the entry as it was or as replaced, never a mix: the old text
    /// leaves every key, index and search as the new one enters them, at commit.
    ///
    /// # Errors
    /// An invalid entry (see [`NewEntry::validate`]);
    /// [`ErrorKind::InvalidEntry`](crate::error::ErrorKind::InvalidEntry) when the replacement
    /// would equal another entry in locales, runs, point and unit (deduplication would
    /// merge the two, and the id could not be kept); a store failure. The session is
    /// then as it was before the call: the entry `id` unchanged.
    fn replace(&mut self, id: EntryId, entry: &NewEntry) -> Result<bool>;

    /// Makes everything written through the session visible at once, durably.
    ///
    /// # Errors
    /// A store failure (a full disk, a lost file); nothing of the session is then stored.
    fn commit(self: Box<Self>) -> Result<()>;

    /// Tells the session that its caller drops it at the first failed
    /// [`write`](Self::write) or [`replace`](Self::replace), as an import does (all or
    /// nothing): a store may then stop keeping each call undoable on its own (SQLite's
    /// savepoint per batch copies every page a batch changes into a journal). After a
    /// call that failed past validation, such a session only rolls back: later calls
    /// and the commit fail. By default nothing changes.
    fn all_or_nothing(&mut self) {}
}

/// What replacing `existing` with `new` stores (docs/matching.md §3 keeps origins as the
/// entry's history): the id of `existing`; the variants, point, unit, project, metadata
/// and approvals of `new` (0 read as 1, as in a write); the origins of `existing`
/// followed by those of `new` it does not have yet. A replace is a correction, not an
/// approval: its approvals are what `new` states (a client that read the entry and sends
/// it back edited keeps the count it read), and no origin is ever lost by one.
pub fn replaced_entry(existing: &Entry, new: &NewEntry) -> Entry {
    let mut origins = existing.origins.clone();
    crate::model::entry::merge_origins(&mut origins, &new.origins);
    let mut entry = new.clone().into_entry(existing.id);
    entry.origins = origins;
    entry
}

/// Refuses a call on a session of whole batches ([`WriteSession::all_or_nothing`]) once
/// one of its calls failed (`failed`): the session can only be rolled back.
///
/// # Errors
/// [`ErrorKind::Store`](crate::error::ErrorKind::Store) when `failed`.
pub fn refuse_failed_session(failed: bool) -> crate::error::Result<()> {
    if failed {
        return Err(crate::error::Error::new(
            crate::error::ErrorKind::Store,
            "an earlier batch of this session failed: it can only be rolled back",
        ));
    }
    Ok(())
}

/// The error for a replacement of entry `id` that would equal entry `other`.
pub fn replace_conflict(id: EntryId, other: EntryId) -> crate::error::Error {
    crate::error::Error::invalid_entry(format!(
        "entry {id} cannot be replaced by an entry equal to entry {other} (same locales, runs, point and unit)"
    ))
}

impl Stats {
    /// The stats of a store holding `entries` entries and `variants` variants, with
    /// `pairs` counted per (source, target) locale pair; the pairs listed in locale order.
    pub fn from_pairs(
        entries: u64,
        variants: u64,
        pairs: std::collections::BTreeMap<(Locale, Locale), u64>,
        size_bytes: Option<u64>,
    ) -> Stats {
        let pairs = pairs
            .into_iter()
            .map(|((source, target), entries)| PairCount { source, target, entries })
            .collect();
        Stats { entries, variants, pairs, size_bytes }
    }

    /// The stats of the rows of a database store's
    /// [`COUNTS_TABLE`](crate::store::schema::COUNTS_TABLE) (`source`, `target`, `n`; see
    /// [`Step::Counts`](crate::store::schema::Step::Counts)), each stored locale tag read by
    /// `parse`; pairs counted 0 are left out.
    ///
    /// # Errors
    /// What `parse` gives for a tag it refuses.
    pub fn from_counts<E>(
        rows: impl IntoIterator<Item = (String, String, i64)>,
        size_bytes: Option<u64>,
        parse: impl Fn(&str) -> std::result::Result<Locale, E>,
    ) -> std::result::Result<Stats, E> {
        let (mut entries, mut variants) = (0u64, 0u64);
        let mut pairs = std::collections::BTreeMap::new();
        for (source, target, n) in rows {
            let n = n.max(0) as u64;
            match (source.is_empty(), target.is_empty()) {
                (true, true) => entries += n,
                (false, true) => variants += n,
                _ if n == 0 => {}
                _ => *pairs.entry((parse(&source)?, parse(&target)?)).or_default() += n,
            }
        }
        Ok(Stats::from_pairs(entries, variants, pairs, size_bytes))
    }
}

/// A content memory backend.
///
/// # Implementer contract
/// - `write` is atomic: all entries of a batch are stored, or none (and the error says
///   why). [`begin`](ContentMemory::begin) opens a [`WriteSession`] whose writes are
///   atomic together; see its contract. An entry equal to a stored one in locales, runs, point and unit is not
///   duplicated: its new origins are appended ([`WriteOutcome::Deduplicated`]).
/// - `candidates` offers the sink **every** stored key whose similarity with the query
///   key could reach the sink's current [`cutoff`](CandidateSink::cutoff) (a superset
///   is fine, duplicates are harmless), and may stop once no unseen key can reach it.
///   Better-first order lets it stop sooner. It never scans every entry when an index
///   can narrow the search. The one exception is the sink's
///   [`scan_limit`](CandidateSink::scan_limit): past it, a store offers the keys it has
///   seen, most promising first, and may leave out keys it has not seen; and the sink's
///   [`max_candidates`](CandidateSink::max_candidates), after which it stops offering
///   (and, once it has seen more keys than that, it may leave out unseen keys that could
///   reach the cut-off only narrowly).
/// - **Offer order.** With a verification budget or a candidate limit the order of
///   offers decides which candidates are scored, so every store offers alike: the keys of
///   each variant locale that matches the query's source locale (prefix rule) form one
///   index, the indexes are offered one after the other in [`Locale`] order, each best
///   first (most shared trigrams for their length, ties by key number). A store gets
///   this by serving candidates from [`CandidateIndex`](crate::imp::CandidateIndex), as both
///   stores of this workspace do; one that retrieves otherwise (SQL) must still offer a
///   superset of what can reach the cut-off, and then agrees with the others on every
///   list computed with [`LookupOptions::exhaustive`](crate::LookupOptions::exhaustive).
/// - Nothing panics on input the model accepts; failures are [`Error`](crate::error::Error)s.
/// - Locales match by the prefix rule (a tag matches itself and any tag it is a prefix
///   of, by subtags).
/// - [`capabilities`](ContentMemory::capabilities) names what the store offers beyond
///   this trait: version chains ([`VersionReader`](crate::model::version::VersionReader)), an index it controls
///   ([`IndexControl`]), named values about the memory ([`MetaStore`]) and word models
///   ([`WordModels`]).
///
/// # Examples
/// Any store is used through the trait, here the in-memory one:
/// ```
/// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
///
/// let store = MemStore::new();
/// let (en, fr) = (Locale::parse("en")?, Locale::parse("fr")?);
/// let outcomes = store.write(&[NewEntry::pair(
///     Variant::new(en, vec![Run::text("Cancel")]),
///     Variant::new(fr, vec![Run::text("Annuler")]),
/// )])?;
/// let id = outcomes[0].id();
/// let entry = store.get(id)?.ok_or("the entry just written is missing")?;
/// assert_eq!(entry.variants[1].runs, vec![Run::text("Annuler")]);
/// assert_eq!(store.stats()?.entries, 1);
///
/// assert!(store.delete(id)?);
/// assert_eq!(store.get(id)?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait ContentMemory: Send + Sync {
    /// Writes a batch of entries in one transaction.
    ///
    /// # Errors
    /// An invalid entry (see [`NewEntry::validate`]) or a store failure; nothing of the
    /// batch is then stored.
    fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>>;

    /// Opens a [`WriteSession`]: writes that become visible together when it commits,
    /// and never when it is dropped or the process dies first.
    ///
    /// # Errors
    /// Another writer held the store for longer than the store waits, or a store
    /// failure (a read-only or damaged store, for one).
    ///
    /// # Examples
    /// ```
    /// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
    ///
    /// let store = MemStore::new();
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// let entry = NewEntry::pair(
    ///     Variant::new(en, vec![Run::text("Open")]),
    ///     Variant::new(de, vec![Run::text("Öffnen")]),
    /// );
    /// let mut session = store.begin()?;
    /// session.write(&[entry.clone()])?;
    /// assert_eq!(store.stats()?.entries, 0); // not visible yet
    /// drop(session); // rolled back
    /// assert_eq!(store.stats()?.entries, 0);
    ///
    /// let mut session = store.begin()?;
    /// session.write(&[entry])?;
    /// session.commit()?;
    /// assert_eq!(store.stats()?.entries, 1);
    /// # Ok::<(), cmem_core::Error>(())
    /// ```
    fn begin(&self) -> Result<Box<dyn WriteSession + '_>>;

    /// Replaces entry `id` with `entry` in one transaction, keeping its id; false when
    /// there is no entry `id`. See [`WriteSession::replace`]; this default runs it in a
    /// session of its own, so it is atomic in every store. A store may do it more
    /// cheaply, with the same outcome.
    ///
    /// # Errors
    /// As [`WriteSession::replace`], or [`begin`](ContentMemory::begin)'s; the entry is
    /// then unchanged.
    ///
    /// # Examples
    /// ```
    /// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
    ///
    /// let store = MemStore::new();
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// let entry = |source: &str, target: &str| {
    ///     NewEntry::pair(
    ///         Variant::new(en.clone(), vec![Run::text(source)]),
    ///         Variant::new(de.clone(), vec![Run::text(target)]),
    ///     )
    /// };
    /// let id = store.write(&[entry("Open", "Ofen")])?[0].id();
    /// assert!(store.replace(id, &entry("Open", "Öffnen"))?);
    /// let stored = store.get(id)?.ok_or("the entry is gone")?;
    /// assert_eq!(stored.variants[1].runs, vec![Run::text("Öffnen")]);
    /// assert_eq!(store.stats()?.entries, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn replace(&self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        let mut session = self.begin()?;
        let replaced = session.replace(id, entry)?;
        if replaced {
            session.commit()?;
        }
        Ok(replaced)
    }

    /// One entry by id.
    ///
    /// # Errors
    /// A store failure.
    fn get(&self, id: EntryId) -> Result<Option<Entry>>;

    /// Several entries by id, in the order asked (`None` where there is none): what a
    /// lookup reads for the matches it returns. By default one [`get`](Self::get) each;
    /// a store across a network reads them in one round trip.
    ///
    /// # Errors
    /// A store failure.
    fn get_many(&self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        ids.iter().map(|&id| self.get(id)).collect()
    }

    /// Deletes an entry; false when there was none.
    ///
    /// # Errors
    /// A store failure.
    fn delete(&self, id: EntryId) -> Result<bool>;

    /// Entries in id order after `after` (all when `None`), at most `limit`: for export.
    ///
    /// # Errors
    /// A store failure.
    fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>>;

    /// Entries whose source variant's key of `q.kind` equals `q.key`, in id order.
    ///
    /// # Errors
    /// A store failure.
    fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>>;

    /// Offers fuzzy candidates to `sink`; see the trait's contract.
    ///
    /// # Errors
    /// A store failure.
    fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()>;

    /// Concordance search, best first.
    ///
    /// # Errors
    /// A store failure.
    fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>>;

    /// Counts and size.
    ///
    /// # Errors
    /// A store failure.
    fn stats(&self) -> Result<Stats>;

    /// What the store can do beyond these reads and writes: each capability a store has
    /// is `Some`. Required, so that a store, and a wrapper around one, says what it
    /// offers instead of dropping a capability by default: a wrapper answers its inner
    /// store's [`Capabilities`] (`inner.capabilities()`), replacing those it changes.
    /// Callers reach the capabilities through [`ContentMemoryExt`], whose methods fall
    /// back to what a store without the capability answers.
    fn capabilities(&self) -> Capabilities<'_>;
}

macro_rules! forward_store {
    ($($ty:ty),*) => {$(
        impl<T: ContentMemory + ?Sized> ContentMemory for $ty {
            fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
                (**self).write(entries)
            }
            fn begin(&self) -> Result<Box<dyn WriteSession + '_>> {
                (**self).begin()
            }
            fn replace(&self, id: EntryId, entry: &NewEntry) -> Result<bool> {
                (**self).replace(id, entry)
            }
            fn get(&self, id: EntryId) -> Result<Option<Entry>> {
                (**self).get(id)
            }
            fn get_many(&self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
                (**self).get_many(ids)
            }
            fn delete(&self, id: EntryId) -> Result<bool> {
                (**self).delete(id)
            }
            fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>> {
                (**self).entries(after, limit)
            }
            fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
                (**self).exact(q)
            }
            fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
                (**self).candidates(q, sink)
            }
            fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
                (**self).search(q)
            }
            fn stats(&self) -> Result<Stats> {
                (**self).stats()
            }
            fn capabilities(&self) -> Capabilities<'_> {
                (**self).capabilities()
            }
        }
    )*};
}

forward_store!(&T, Box<T>, std::sync::Arc<T>);

/// The reads of one lookup in one store, and what the store learns from them: what a
/// [`ReadScope`] is made of (see [`crate::store::IndexControl::read_scope`]).
///
/// # Implementer contract
/// - `exact`, `candidates` and `get_many` answer as the store's methods of those names
///   do (the same entries, the same offers in the same order), from the memory as it
///   was when the scope began or later; from an earlier state (an index not checked
///   yet) only when `confirm` then answers false.
/// - [`confirm`](ScopedReads::confirm), called once the lookup's reads are done, answers
///   whether they saw every write committed before the scope began. When it answers
///   false, the lookup drops the scope and reads again in a new one, which the store
///   must begin from a checked state (a scope after a failed check that fails again is
///   taken as it is, after three tries).
/// - Whatever a scope keeps (the change counter its index was loaded at, the entries it
///   read) is its own: another scope of the same store, open at the same time on the
///   same thread or another, neither sees nor changes it.
pub trait ScopedReads: Send {
    /// Entries whose source variant's key of `q.kind` equals `q.key`, in id order; see
    /// [`ContentMemory::exact`].
    ///
    /// # Errors
    /// A store failure.
    fn exact(&mut self, q: &ExactQuery<'_>) -> Result<Vec<Entry>>;

    /// Offers fuzzy candidates to `sink`; see [`ContentMemory::candidates`].
    ///
    /// # Errors
    /// A store failure.
    fn candidates(&mut self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()>;

    /// Several entries by id, in the order asked; see [`ContentMemory::get_many`].
    ///
    /// # Errors
    /// A store failure.
    fn get_many(&mut self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>>;

    /// Whether the scope's reads saw every write committed before it began. True by
    /// default: reads that each checked for themselves.
    ///
    /// # Errors
    /// A store failure.
    fn confirm(&mut self) -> Result<bool> {
        Ok(true)
    }
}

/// One lookup's reads (see [`crate::store::IndexControl::read_scope`]): a value the lookup owns and
/// reads through, like a searcher taken from an index reader. Dropping it ends the
/// scope.
#[must_use = "a lookup reads through its scope"]
pub struct ReadScope<'a>(Box<dyn ScopedReads + 'a>);

/// The scope of a store without one: each read goes to the store.
struct Direct<'a, T: ?Sized>(&'a T);

impl<T: ContentMemory + ?Sized> ScopedReads for Direct<'_, T> {
    fn exact(&mut self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.0.exact(q)
    }
    fn candidates(&mut self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        self.0.candidates(q, sink)
    }
    fn get_many(&mut self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.0.get_many(ids)
    }
}

impl<'a> ReadScope<'a> {
    /// The scope of a store with nothing to check: every read goes to `store`'s own
    /// method, and the scope always holds.
    pub fn direct<T: ContentMemory + ?Sized>(store: &'a T) -> ReadScope<'a> {
        ReadScope(Box::new(Direct(store)))
    }

    /// A scope made of `reads`.
    pub fn new(reads: impl ScopedReads + 'a) -> ReadScope<'a> {
        ReadScope(Box::new(reads))
    }

    /// See [`ScopedReads::exact`].
    ///
    /// # Errors
    /// A store failure.
    pub fn exact(&mut self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        self.0.exact(q)
    }

    /// See [`ScopedReads::candidates`].
    ///
    /// # Errors
    /// A store failure.
    pub fn candidates(&mut self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        self.0.candidates(q, sink)
    }

    /// See [`ScopedReads::get_many`].
    ///
    /// # Errors
    /// A store failure.
    pub fn get_many(&mut self, ids: &[EntryId]) -> Result<Vec<Option<Entry>>> {
        self.0.get_many(ids)
    }

    /// Whether the scope's reads hold; see [`ScopedReads::confirm`].
    ///
    /// # Errors
    /// A store failure.
    pub fn confirm(&mut self) -> Result<bool> {
        self.0.confirm()
    }
}

impl std::fmt::Debug for ReadScope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadScope(..)")
    }
}

/// Told about a long wait for another writer (every store's writes, and the front ends
/// that open them, share this one type): called about every quarter second while a write
/// waits, with the time waited so far; returning false gives up waiting.
///
/// ```
/// use cmem_core::WaitHook;
///
/// let hook = WaitHook::new(|waited| {
///     if waited.as_secs() == 1 {
///         eprintln!("waiting for another writer…");
///     }
///     true
/// });
/// assert!(hook.call(std::time::Duration::from_secs(1)));
/// ```
#[derive(Clone)]
pub struct WaitHook(std::sync::Arc<dyn Fn(std::time::Duration) -> bool + Send + Sync>);

impl WaitHook {
    /// A hook calling `f`.
    pub fn new(f: impl Fn(std::time::Duration) -> bool + Send + Sync + 'static) -> WaitHook {
        WaitHook(std::sync::Arc::new(f))
    }

    /// Tells the hook that a write has waited `waited`; false: give up.
    pub fn call(&self, waited: std::time::Duration) -> bool {
        (self.0)(waited)
    }
}

impl std::fmt::Debug for WaitHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WaitHook(..)")
    }
}

impl PartialEq for WaitHook {
    fn eq(&self, other: &WaitHook) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}
