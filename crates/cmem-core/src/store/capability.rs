//! What a store may offer beyond the reads and writes of [`ContentMemory`]: version
//! chains, an index it controls, named values about the memory, word models.
//!
//! A store names its capabilities in one place, [`ContentMemory::capabilities`]; callers
//! use [`ContentMemoryExt`], whose methods answer what a store without the capability
//! answers (no index to warm, no change mark, no metadata, no word model).

use std::sync::Arc;

use crate::align::{Glossary, WordModel};
use crate::error::{Error, ErrorKind, Result};
use crate::index::query::{WordAnswer, WordQuery};
use crate::model::locale::Locale;
use crate::model::version::VersionReader;

use super::{ContentMemory, ReadScope};

/// The capabilities of one store, each `Some` when the store has it (see
/// [`ContentMemory::capabilities`]).
#[derive(Clone, Copy, Default)]
#[non_exhaustive]
pub struct Capabilities<'a> {
    /// Version chains.
    pub versions: Option<&'a dyn VersionReader>,
    /// An index the store builds, keeps current and scopes reads through.
    pub index: Option<&'a dyn IndexControl>,
    /// Named values about the memory.
    pub meta: Option<&'a dyn MetaStore>,
    /// Word models of locale pairs.
    pub word_models: Option<&'a dyn WordModels>,
    /// A word index over the source texts.
    pub words: Option<&'a dyn WordIndex>,
}

impl<'a> Capabilities<'a> {
    /// No capability: a store of reads and writes only.
    pub fn none() -> Capabilities<'a> {
        Capabilities::default()
    }

    /// Sets [`versions`](Self::versions).
    #[must_use]
    pub fn versions(mut self, value: &'a dyn VersionReader) -> Self {
        self.versions = Some(value);
        self
    }

    /// Sets [`index`](Self::index).
    #[must_use]
    pub fn index(mut self, value: &'a dyn IndexControl) -> Self {
        self.index = Some(value);
        self
    }

    /// Sets [`meta`](Self::meta).
    #[must_use]
    pub fn meta(mut self, value: &'a dyn MetaStore) -> Self {
        self.meta = Some(value);
        self
    }

    /// Sets [`word_models`](Self::word_models).
    #[must_use]
    pub fn word_models(mut self, value: &'a dyn WordModels) -> Self {
        self.word_models = Some(value);
        self
    }

    /// Sets [`words`](Self::words).
    #[must_use]
    pub fn words(mut self, value: &'a dyn WordIndex) -> Self {
        self.words = Some(value);
        self
    }

    /// The names of the capabilities present, in field order: what a test compares
    /// between a store and a wrapper around it.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.versions.is_some() {
            names.push("versions");
        }
        if self.index.is_some() {
            names.push("index");
        }
        if self.meta.is_some() {
            names.push("meta");
        }
        if self.word_models.is_some() {
            names.push("word_models");
        }
        if self.words.is_some() {
            names.push("words");
        }
        names
    }
}

impl std::fmt::Debug for Capabilities<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Capabilities").field(&self.names()).finish()
    }
}

/// An index the store builds and keeps current: warming it, scoping a lookup's reads
/// through it, and the change mark that says when it (and any answer computed from the
/// memory) went stale.
pub trait IndexControl: Send + Sync {
    /// Prepares fuzzy lookups from `source` (builds an in-process candidate index, say),
    /// so the first lookup is not slower than the next.
    ///
    /// # Errors
    /// A store failure.
    fn warm(&self, source: &Locale) -> Result<()>;

    /// Whether [`warm`](Self::warm) leaves an index that later processes open instead of
    /// building their own (a file beside the memory, say). When false, a process that
    /// will not look anything up, such as an import, has no reason to warm.
    fn index_persists(&self) -> bool;

    /// Begins the reads of one lookup: [`lookup`](crate::lookup::lookup()) calls it once
    /// per try and makes every read of the try through the returned scope (its
    /// [`exact`](ReadScope::exact), [`candidates`](ReadScope::candidates) and
    /// [`get_many`](ReadScope::get_many)), then asks it to
    /// [`confirm`](ReadScope::confirm) them.
    ///
    /// A store whose candidate index follows other processes' writes checks once per
    /// lookup that the index is current, here or in the scope's `confirm` after the
    /// lookup's reads, and answers the scope's reads from the index without checking
    /// again: for a store across a network at most one round trip per lookup for the
    /// check instead of one per call. What it learns along the way lives in the scope (a
    /// value owned by the one lookup, see [`ScopedReads`](super::ScopedReads)), so
    /// lookups interleaved on one thread, or a lookup whose scope moves to another
    /// thread, each judge their own reads. Calls on the store itself check for
    /// themselves.
    ///
    /// A wrapper that changes what a store's reads answer (counts them, answers
    /// candidates from elsewhere) either scopes the reads through its own methods
    /// ([`ReadScope::direct`]), so that each of the inner store's reads checks for
    /// itself, or wraps the inner store's scope in a
    /// [`ScopedReads`](super::ScopedReads) of its own, keeping the inner store's one
    /// check per lookup.
    ///
    /// # Errors
    /// A store failure.
    fn read_scope(&self, source: &Locale) -> Result<ReadScope<'_>>;

    /// A number that changes whenever the memory does, by this process or another: a
    /// write, a re-approval, a deletion, a replacement. Two equal marks read from one
    /// store mean the memory did not change between them, so an answer computed under
    /// the first still holds (a server's answer cache, an `ETag`). `None` when the store
    /// cannot tell: nothing may then be cached.
    ///
    /// # Errors
    /// A store failure.
    fn change_mark(&self) -> Result<Option<u64>>;

    /// The locales some entry has as its source (first variant), sorted: what a server
    /// warms. `None` to let the caller count them from the store's
    /// [`stats`](ContentMemory::stats).
    ///
    /// # Errors
    /// A store failure.
    fn source_locales(&self) -> Result<Option<Vec<Locale>>>;
}

/// A few named values about the memory itself (the recognizer rule set it was imported
/// with, say), not about an entry.
pub trait MetaStore: Send + Sync {
    /// A named value, when set.
    ///
    /// # Errors
    /// A store failure.
    fn meta(&self, key: &str) -> Result<Option<String>>;

    /// Sets a named value.
    ///
    /// # Errors
    /// A store failure.
    fn set_meta(&self, key: &str, value: &str) -> Result<()>;
}

/// The word models of locale pairs ([`crate::align`]) a store keeps.
pub trait WordModels: Send + Sync {
    /// The word model of a locale pair, when one was trained and saved; read once per
    /// memory and process.
    ///
    /// # Errors
    /// A store failure, or a saved model that does not read.
    fn word_model(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<WordModel>>>;

    /// Saves `model` as the word model of a locale pair, replacing one saved before; in
    /// one transaction (a reader sees the old model or the new one).
    ///
    /// # Errors
    /// A store failure.
    fn save_word_model(&self, source: &Locale, target: &Locale, model: Arc<WordModel>) -> Result<()>;

    /// The term list a user gave for a locale pair
    /// ([`given_terms`](crate::store::learn::given_terms)) as a glossary, when the store
    /// keeps it parsed (a [`GivenCache`](crate::store::learn::GivenCache)): read again
    /// only after the memory changed, by this process or another, so that a lookup with
    /// terms costs no read while nothing did. `None` (the default) when the store keeps
    /// none: callers ([`given_glossary`](crate::store::learn::given_glossary)) then read
    /// the list from the metadata.
    ///
    /// # Errors
    /// A store failure, or a kept list that does not read.
    fn given_glossary(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<Glossary>>> {
        let _ = (source, target);
        Ok(None)
    }
}

/// A word index over the source texts a store's candidate index holds: what a
/// producer's context draws its examples from ([`crate::lookup::producer`]). The index
/// and its ranking are [`CandidateIndex`](crate::imp::CandidateIndex)'s (see
/// [`CandidateIndex::words`](crate::imp::CandidateIndex::words)), so every store holding
/// the same entries answers alike; the store only keeps the candidate index current, as
/// for its lookups.
pub trait WordIndex: Send + Sync {
    /// Answers `q` (see [`WordQuery`]) from the candidate index, current with every
    /// committed write as a lookup's candidates are; `None` when the store keeps no
    /// candidate index for `q.source` (turned off): the caller then searches otherwise.
    ///
    /// # Errors
    /// A store failure.
    fn words(&self, q: &WordQuery<'_>) -> Result<Option<WordAnswer>>;
}

/// The capabilities of any store as methods, each answering what a store without the
/// capability answers. Implemented for every [`ContentMemory`].
pub trait ContentMemoryExt: ContentMemory {
    /// The version-chain capability, when the store has it.
    fn version_reader(&self) -> Option<&dyn VersionReader> {
        self.capabilities().versions
    }

    /// [`IndexControl::warm`]; nothing to do without an index.
    ///
    /// # Errors
    /// A store failure.
    fn warm(&self, source: &Locale) -> Result<()> {
        match self.capabilities().index {
            Some(index) => index.warm(source),
            None => Ok(()),
        }
    }

    /// [`IndexControl::index_persists`]; false without an index.
    fn index_persists(&self) -> bool {
        self.capabilities().index.is_some_and(|index| index.index_persists())
    }

    /// [`IndexControl::read_scope`]; without an index, the scope reads straight from the
    /// store ([`ReadScope::direct`]) and always holds.
    ///
    /// # Errors
    /// A store failure.
    ///
    /// # Examples
    /// ```
    /// use cmem_core::imp::{ExactQuery, KeyKind};
    /// use cmem_core::{ContentMemory, ContentMemoryExt, Locale, MemStore, NewEntry, Run, Variant};
    ///
    /// let store = MemStore::new();
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// store.write(&[NewEntry::pair(
    ///     Variant::new(en.clone(), vec![Run::text("Open")]),
    ///     Variant::new(de.clone(), vec![Run::text("Öffnen")]),
    /// )])?;
    /// let mut scope = store.read_scope(&en)?;
    /// let q = ExactQuery { kind: KeyKind::Plain, key: "Open", source: &en, target: &de };
    /// assert_eq!(scope.exact(&q)?.len(), 1);
    /// assert!(scope.confirm()?, "the reads saw the memory as it was when the scope began");
    /// # Ok::<(), cmem_core::Error>(())
    /// ```
    fn read_scope(&self, source: &Locale) -> Result<ReadScope<'_>> {
        match self.capabilities().index {
            Some(index) => index.read_scope(source),
            None => Ok(ReadScope::direct(self)),
        }
    }

    /// [`IndexControl::change_mark`]; `None` (nothing may be cached) without an index.
    ///
    /// # Errors
    /// A store failure.
    fn change_mark(&self) -> Result<Option<u64>> {
        match self.capabilities().index {
            Some(index) => index.change_mark(),
            None => Ok(None),
        }
    }

    /// The locales some entry has as its source (first variant), sorted: from the index
    /// when it knows them, else from [`stats`](ContentMemory::stats).
    ///
    /// # Errors
    /// A store failure.
    fn source_locales(&self) -> Result<Vec<Locale>> {
        if let Some(index) = self.capabilities().index {
            if let Some(sources) = index.source_locales()? {
                return Ok(sources);
            }
        }
        let mut sources: Vec<Locale> = self.stats()?.pairs.into_iter().map(|p| p.source).collect();
        sources.sort();
        sources.dedup();
        Ok(sources)
    }

    /// [`MetaStore::meta`]; `None` in a store that keeps no such values.
    ///
    /// # Errors
    /// A store failure.
    fn meta(&self, key: &str) -> Result<Option<String>> {
        match self.capabilities().meta {
            Some(meta) => meta.meta(key),
            None => Ok(None),
        }
    }

    /// [`MetaStore::set_meta`].
    ///
    /// # Errors
    /// A store failure, or a store that keeps no such values
    /// ([`ErrorKind::Unsupported`]).
    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        match self.capabilities().meta {
            Some(meta) => meta.set_meta(key, value),
            None => Err(Error::new(
                ErrorKind::Unsupported,
                format!("this store keeps no memory metadata (setting {key:?})"),
            )),
        }
    }

    /// [`WordModels::word_model`]; `None` in a store that keeps no word models.
    ///
    /// # Errors
    /// A store failure, or a saved model that does not read.
    fn word_model(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<WordModel>>> {
        match self.capabilities().word_models {
            Some(models) => models.word_model(source, target),
            None => Ok(None),
        }
    }

    /// [`WordIndex::words`]; `None` in a store without a word index.
    ///
    /// # Errors
    /// A store failure.
    fn word_search(&self, q: &WordQuery<'_>) -> Result<Option<WordAnswer>> {
        match self.capabilities().words {
            Some(index) => index.words(q),
            None => Ok(None),
        }
    }

    /// [`WordModels::save_word_model`].
    ///
    /// # Errors
    /// A store failure, or a store that keeps no word models
    /// ([`ErrorKind::Unsupported`]).
    fn save_word_model(&self, source: &Locale, target: &Locale, model: Arc<WordModel>) -> Result<()> {
        match self.capabilities().word_models {
            Some(models) => models.save_word_model(source, target, model),
            None => Err(Error::new(
                ErrorKind::Unsupported,
                format!("this store keeps no word models (saving one for {})", source.as_str()),
            )),
        }
    }
}

impl<T: ContentMemory + ?Sized> ContentMemoryExt for T {}
