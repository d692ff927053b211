//! The producer-facing leverage provider (docs/matching.md §6): lookups and prior versions over
//! any store.

use crate::error::Result;
use crate::lookup::producer::{context_for, Context, ContextRequest};
use crate::lookup::{lookup, LookupRequest, Match};
use crate::model::version::{prior_version_for, PriorVersion, VersionRequest};
use crate::store::ContentMemory;
use crate::store::ContentMemoryExt;

/// Lookups and prior versions over any [`ContentMemory`].
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use cmem_core::{ContentMemory, Locale, LookupRequest, MemStore, NewEntry, Provider, Run, Variant};
///
/// let store = Arc::new(MemStore::new());
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// store.write(&[NewEntry::pair(
///     Variant::new(en.clone(), vec![Run::text("Print")]),
///     Variant::new(de.clone(), vec![Run::text("Drucken")]),
/// )])?;
///
/// let provider = Provider::new(Arc::clone(&store));
/// let matches = provider.lookup(&LookupRequest::new(vec![Run::text("Print")], en, de))?;
/// assert_eq!(matches.len(), 1);
/// assert_eq!(matches[0].adapted_target, vec![Run::text("Drucken")]);
/// # Ok::<(), cmem_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Provider<S> {
    store: S,
}

impl<S: ContentMemory> Provider<S> {
    /// A provider over `store` (a store, a reference or an `Arc` of one).
    pub fn new(store: S) -> Self {
        Provider { store }
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// [`lookup`] on the store.
    ///
    /// # Errors
    /// As [`lookup`].
    pub fn lookup(&self, req: &LookupRequest) -> Result<Vec<Match>> {
        lookup(&self.store, req)
    }

    /// Whether the store keeps version chains (has a
    /// [`VersionReader`](crate::imp::VersionReader)). [`prior_version`](Self::prior_version)
    /// answers nothing both for a block with no prior version and for a store without
    /// chains; this tells the two apart.
    ///
    /// ```
    /// use cmem_core::{MemStore, Provider};
    ///
    /// assert!(Provider::new(MemStore::new()).supports_versions());
    /// ```
    pub fn supports_versions(&self) -> bool {
        self.store.version_reader().is_some()
    }

    /// The prior answer of a block, gated by its context fingerprint: `None` when the
    /// block has no prior version approved in the same context, and also when the store
    /// keeps no version chains, which [`supports_versions`](Self::supports_versions)
    /// tells apart. (A producer asking for context gets "nothing to reuse" either way;
    /// an empty answer, not an error, keeps it working over any store.)
    ///
    /// ```
    /// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Origin, Provider, Run, Variant, VersionRequest};
    ///
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// let provider = Provider::new(MemStore::new());
    /// provider.store().write(&[NewEntry {
    ///     unit: "home.title".into(),
    ///     origins: vec![Origin { context_fingerprint: "ctx-1".into(), ..Origin::default() }],
    ///     ..NewEntry::pair(
    ///         Variant::new(en.clone(), vec![Run::text("Welcome")]),
    ///         Variant::new(de.clone(), vec![Run::text("Willkommen")]),
    ///     )
    /// }])?;
    /// let same = VersionRequest::new("home.title", "ctx-1", en.clone(), de.clone());
    /// assert_eq!(provider.prior_version(&same)?.map(|p| p.target), Some("Willkommen".to_owned()));
    /// let other = VersionRequest::new("home.title", "ctx-2", en, de);
    /// assert!(provider.prior_version(&other)?.is_none());
    /// # Ok::<(), cmem_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// An empty unit, or a store failure.
    pub fn prior_version(&self, req: &VersionRequest) -> Result<Option<PriorVersion>> {
        match self.store.version_reader() {
            Some(reader) => prior_version_for(reader, req),
            None => Ok(None),
        }
    }

    /// Everything the memory knows about a segment: prior version, matches, examples
    /// chosen to cover it, glossary ([`context_for`]).
    ///
    /// # Errors
    /// As [`context_for`].
    pub fn context(&self, req: &ContextRequest) -> Result<Context> {
        context_for(&self.store, req)
    }
}
