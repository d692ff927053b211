//! One function per rule of docs/matching.md §3–6. Each takes a maker of fresh, empty stores and
//! returns a [`Failure`] describing the first thing the store got wrong.
//! [`conformance_suite!`](crate::conformance_suite) turns each into a `#[test]`.

use cmem_core::imp::{prior_version_for, VersionReader};
use cmem_core::model::notation::to_notation;
use cmem_core::ContentMemoryExt;
use cmem_core::{
    ContentMemory, EntryId, ErrorKind, LookupOptions, LookupRequest, MatchType, NewEntry, PenaltyKind,
    Provider, SearchQuery, Variant, VersionQuery, VersionRequest, WriteOutcome, SCORE_NEAR_EXACT,
};

use crate::failure::{ensure, ensure_eq, Failure, Outcome};
use crate::fixture::{check, find, find_in, locale, origin, pair, pair_in, point, runs, want, write_each};

/// A maker of fresh, empty stores.
pub type Make<'a> = &'a dyn Fn() -> Box<dyn ContentMemory>;

mod adaptation;
mod ambiguity;
mod context;
mod evidence;
mod fuzzy;
mod locales;
mod several;
mod store_ops;
mod tiers;
mod unicode;
mod versions;

pub use adaptation::*;
pub use ambiguity::*;
pub use context::*;
pub use evidence::*;
pub use fuzzy::*;
pub use locales::*;
pub use several::*;
pub use store_ops::*;
pub use tiers::*;
pub use unicode::*;
pub use versions::*;

use MatchType::{
    GeneralizedExact as GE, GeneralizedFuzzy as GF, PlainExact as PE, PlainFuzzy as PF,
    StructuralExact as SE, StructuralFuzzy as SF,
};

fn opts() -> LookupOptions {
    LookupOptions::default()
}

fn reader(store: &dyn ContentMemory) -> Result<&dyn VersionReader, Failure> {
    store
        .version_reader()
        .ok_or_else(|| Failure::new("the store has no VersionReader (docs/matching.md §8 requires one)"))
}

/// Every case file of `testdata/match/` (see [`crate::cases`]).
///
/// # Errors
/// Every failing case, each named by file and case.
pub fn match_cases(make: Make<'_>) -> Outcome {
    crate::cases::run_dir(&crate::cases::default_dir(), make)
}

#[cfg(test)]
mod tests {
    //! The suite must be able to fail: each broken store here breaks a rule.

    use super::*;
    use cmem_core::imp::{CandidateQuery, CandidateSink, ExactQuery};
    use cmem_core::{Entry, MemStore, SearchHit, Stats};

    /// Forwards to a `MemStore`, except for the fault it is built with.
    struct Broken {
        inner: MemStore,
        /// Loses every n-th fuzzy candidate (0 = none).
        drop_every: usize,
        /// Answers no exact-key hits.
        no_exact: bool,
    }

    struct Dropping<'a> {
        inner: &'a mut dyn CandidateSink,
        every: usize,
        seen: usize,
    }

    impl CandidateSink for Dropping<'_> {
        fn offer(&mut self, id: EntryId, kinds: cmem_core::imp::KindSet, key: &str) -> f64 {
            self.seen += 1;
            if self.seen % self.every == 0 {
                return self.inner.cutoff();
            }
            self.inner.offer(id, kinds, key)
        }
        fn cutoff(&self) -> f64 {
            self.inner.cutoff()
        }
    }

    impl ContentMemory for Broken {
        fn write(&self, entries: &[NewEntry]) -> cmem_core::Result<Vec<WriteOutcome>> {
            self.inner.write(entries)
        }
        fn begin(&self) -> cmem_core::Result<Box<dyn cmem_core::imp::WriteSession + '_>> {
            self.inner.begin()
        }
        fn get(&self, id: EntryId) -> cmem_core::Result<Option<Entry>> {
            self.inner.get(id)
        }
        fn delete(&self, id: EntryId) -> cmem_core::Result<bool> {
            self.inner.delete(id)
        }
        fn entries(&self, after: Option<EntryId>, limit: usize) -> cmem_core::Result<Vec<Entry>> {
            self.inner.entries(after, limit)
        }
        fn exact(&self, q: &ExactQuery<'_>) -> cmem_core::Result<Vec<Entry>> {
            if self.no_exact {
                return Ok(Vec::new());
            }
            self.inner.exact(q)
        }
        fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> cmem_core::Result<()> {
            if self.drop_every == 0 {
                return self.inner.candidates(q, sink);
            }
            self.inner.candidates(q, &mut Dropping { inner: sink, every: self.drop_every, seen: 0 })
        }
        fn search(&self, q: &SearchQuery) -> cmem_core::Result<Vec<SearchHit>> {
            self.inner.search(q)
        }
        fn stats(&self) -> cmem_core::Result<Stats> {
            self.inner.stats()
        }
        // Versions only: the index's read scope would answer the lookup's reads from
        // the inner store, past the faults this store injects.
        fn capabilities(&self) -> cmem_core::Capabilities<'_> {
            let mut caps = cmem_core::Capabilities::none();
            caps.versions = self.inner.version_reader();
            caps
        }
    }

    fn broken(drop_every: usize, no_exact: bool) -> impl Fn() -> Box<dyn ContentMemory> {
        move || Box::new(Broken { inner: MemStore::new(), drop_every, no_exact })
    }

    #[test]
    fn the_reference_catches_lost_candidates() {
        let err = fuzzy_candidates_are_complete(&broken(7, false)).unwrap_err();
        let caught = err.message().contains("differs from the exhaustive reference")
            || err.message().contains("the best match with default options");
        assert!(caught, "{err}");
    }

    #[test]
    fn rules_and_cases_catch_a_store_without_exact_hits() {
        let make = broken(0, true);
        assert!(tier_structural_exact(&make).is_err());
        assert!(tier_generalized_exact(&make).is_err());
        let err = match_cases(&make).unwrap_err();
        assert!(err.message().contains("tiers.toml: case \"structural exact, text only\""), "{err}");
    }

    #[test]
    fn a_faithful_wrapper_passes() {
        let make = broken(0, false);
        fuzzy_candidates_are_complete(&make).unwrap();
        versions_newest_first(&make).unwrap();
    }
}
