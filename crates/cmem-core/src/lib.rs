//! The core of cmem, a content (translation) memory: the model, matching keys, the
//! tiered lookup with adaptation, version chains, the store trait and the in-memory
//! store. No I/O, no database, no async.
//!
//! A segment is a sequence of [`Run`]s. Three keys are derived from it
//! ([`flatten_runs`], [`structural_text`], [`generalized_text`]); stores index them and
//! return exact hits and fuzzy candidates; [`lookup()`] scores, ranks and adapts, the
//! same way over every store.
//!
//! ```
//! use cmem_core::{lookup, ContentMemory, Locale, LookupRequest, MemStore, NewEntry, Run, Variant};
//!
//! let en = Locale::parse("en")?;
//! let de = Locale::parse("de")?;
//! let store = MemStore::new();
//! store.write(&[NewEntry::pair(
//!     Variant::new(en.clone(), vec![Run::text("Open the file")]),
//!     Variant::new(de.clone(), vec![Run::text("Datei öffnen")]),
//! )])?;
//! let matches = lookup(&store, &LookupRequest::new(vec![Run::text("Open the files")], en, de))?;
//! assert_eq!(matches[0].target_text(), "Datei öffnen");
//! assert!(matches[0].score > 0.9);
//! # Ok::<(), cmem_core::Error>(())
//! ```

#![forbid(unsafe_code)]

/// Implements `pub fn FIELD(mut self, value: T) -> Self` (`#[must_use]`, documented
/// "Sets [`FIELD`](Self::FIELD).") for each listed field of a type, so callers chain
/// `X::default().a(1).b(true)`: the one way the workspace writes a setter that only
/// assigns its value to the field of its name. Doc lines written above a field are
/// added to its setter's doc:
///
/// ```
/// #[derive(Debug, Default)]
/// #[non_exhaustive]
/// pub struct Options {
///     /// How many at most.
///     pub limit: usize,
///     /// Whether to fail at once.
///     pub strict: bool,
/// }
///
/// cmem_core::setters!(Options {
///     /// `usize::MAX`: no limit.
///     limit: usize,
///     strict: bool,
/// });
///
/// let o = Options::default().limit(3).strict(true);
/// assert_eq!((o.limit, o.strict), (3, true));
/// ```
///
/// A setter that does more than assign stays written by hand beside the macro's: one that
/// validates or clamps (`PgOptions::pool_size`), converts (`impl Into<String>`, a value
/// wrapped in `Some`), sets several fields, or is named otherwise than its field. Crates
/// that reach core only through the `cmem` facade name it `cmem::setters!`.
#[doc(hidden)]
#[macro_export]
macro_rules! setters {
    ($ty:ident { $($(#[doc = $doc:expr])* $field:ident : $fty:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("Sets [`", stringify!($field), "`](Self::", stringify!($field), ").")]
                $(#[doc = $doc])*
                #[must_use]
                pub fn $field(mut self, value: $fty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

pub mod adapt;
pub mod align;
pub mod atomic_file;
pub mod context;
pub mod diff;
pub mod entry;
pub mod error;
pub mod key;
pub mod learn;
pub mod locale;
pub mod lookup;
pub mod masks;
pub mod mem;
pub mod merge;
pub mod notation;
pub mod point;
pub mod producer;
pub mod provider;
pub mod query;
#[cfg(feature = "recognize")]
pub mod recognize;
#[cfg(not(feature = "recognize"))]
#[doc(hidden)]
pub mod recognize_off;
pub mod repair;
pub mod run;
pub mod store;
#[doc(hidden)]
pub mod stored;
pub mod version;
pub mod view;

// The machinery under the stores: public for the store crates, listed in `imp`, not
// part of the surface users read first and free to change between minor versions.
#[doc(hidden)]
pub mod candidate_index;
#[doc(hidden)]
pub mod distance;
#[doc(hidden)]
pub mod gram_index;
#[doc(hidden)]
pub mod index_cache;
#[doc(hidden)]
pub mod locale_set;
#[doc(hidden)]
pub mod migrate;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod trigram;

/// For store implementers: the pieces a [`ContentMemory`] is built from — the schema
/// (one declaration, two SQL dialects), the matching keys as stored, trigram queries and
/// bounds, edit distance, the in-process candidate and gram indexes, locale sets, and the
/// query and sink types of [`ContentMemory::exact`] and [`ContentMemory::candidates`].
///
/// Users of a memory need none of it. Unlike the rest of the crate, these items may
/// change between minor versions.
pub mod imp {
    #[doc(inline)]
    pub use crate::{
        candidate_index, distance, gram_index, index_cache, locale_set, migrate, schema, stored, trigram,
    };

    pub use crate::candidate_index::CandidateIndex;
    pub use crate::gram_index::GramIndex;
    pub use crate::index_cache::IndexCache;
    pub use crate::key::{KeyKind, Keys, KindSet, KEY_VERSION};
    pub use crate::locale_set::{LocaleSets, PairFilter};
    pub use crate::store::{
        replace_conflict, replaced_entry, CandidateQuery, CandidateSink, ExactQuery, KeyText, ReadScope,
        ScopedReads, WriteSession,
    };
    pub use crate::trigram::build_trigram_query;
    pub use crate::version::{prior_version_for, VersionReader};
}

pub use adapt::{CodeAdaptation, EntityAdaptation};
pub use context::{
    context_metadata, context_text, Attribute, AttributePenalty, QueryContext, CONTEXT_POST, CONTEXT_PRE,
};
pub use entry::{merge_origins, Entry, EntryId, Metadata, NewEntry, Origin, Variant, WriteOutcome};
pub use error::{Error, ErrorKind, Result, StoreError};
pub use key::{flatten_runs, generalized_text, normalize_text, structural_text};
pub use locale::{Locale, LocaleFit, REGION_PENALTY};
pub use lookup::{
    context_matches, lookup, LookupOptions, LookupRequest, Match, MatchType, Penalty, PenaltyKind,
    SCORE_NEAR_EXACT,
};
pub use mem::MemStore;
pub use merge::{lookup_several, merge_ranked, SourceRank};
pub use notation::{parse_notation, to_notation, Notation};
pub use point::{nearer_answer, point_distance, Point};
pub use producer::{context_for, Context, ContextOptions, ContextRequest, Example, GlossaryPair};
pub use provider::Provider;
pub use query::{client_masks, prepare_query, QueryText, CLIENT_MASK_TYPE};
#[cfg(feature = "recognize")]
pub use recognize::{Recognizer, RuleRole};
/// Inline-code recognition; without the `recognize` feature, a stand-in whose
/// [`Recognizer`] cannot be made and whose [`Recognizer::from_names`] says so.
#[cfg(not(feature = "recognize"))]
pub use recognize_off as recognize;
#[cfg(not(feature = "recognize"))]
pub use recognize_off::Recognizer;
pub use run::{is_entity_type, Choice, Code, Run};
pub use store::{ContentMemory, PairCount, SearchHit, SearchQuery, Stats, WaitHook};
pub use version::{PriorVersion, Version, VersionQuery, VersionRequest};
pub use view::{MatchView, SegmentView};
