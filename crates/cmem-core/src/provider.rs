//! The producer-facing leverage provider (docs/matching.md §6): lookups and prior versions over
//! any store.

use crate::error::Result;
use crate::lookup::{lookup, LookupRequest, Match};
use crate::store::ContentMemory;
use crate::version::{prior_version_for, PriorVersion, VersionRequest};

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

    /// The prior answer of a block, gated by its context fingerprint; nothing when the
    /// store has no [`VersionReader`](crate::VersionReader).
    ///
    /// # Errors
    /// An empty unit, or a store failure.
    pub fn prior_version(&self, req: &VersionRequest) -> Result<Option<PriorVersion>> {
        match self.store.version_reader() {
            Some(reader) => prior_version_for(reader, req),
            None => Ok(None),
        }
    }
}
