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

#[macro_use]
mod setters;

pub mod atomic_file;
pub mod error;

pub mod align;
pub mod lookup;
pub mod model;
pub mod repair;
pub mod store;

// The machinery under the stores: public for the store crates, listed in `imp`, not
// part of the surface users read first and free to change between minor versions.
#[doc(hidden)]
pub mod index;

/// For store implementers: the pieces a [`ContentMemory`] is built from — the schema
/// (one declaration, two SQL dialects), the matching keys as stored, trigram queries and
/// bounds, edit distance, the in-process candidate and gram indexes, locale sets, and the
/// query and sink types of [`ContentMemory::exact`] and [`ContentMemory::candidates`].
///
/// Users of a memory need none of it. Unlike the rest of the crate, these items may
/// change between minor versions.
pub mod imp {
    #[doc(inline)]
    pub use crate::index::{candidate_index, distance, gram_index, index_cache, locale_set, trigram};
    #[doc(inline)]
    pub use crate::store::{migrate, schema, stored};

    pub use crate::index::candidate_index::CandidateIndex;
    pub use crate::index::gram_index::GramIndex;
    pub use crate::index::index_cache::IndexCache;
    pub use crate::index::locale_set::{LocaleSets, PairFilter};
    pub use crate::index::trigram::build_trigram_query;
    pub use crate::model::key::{KeyKind, Keys, KindSet, KEY_VERSION};
    pub use crate::model::version::{prior_version_for, VersionReader};
    pub use crate::store::{
        refuse_failed_session, replace_conflict, replaced_entry, CandidateQuery, CandidateSink, ExactQuery,
        KeyText, ReadScope, ScopedReads, WriteSession,
    };
}

pub use error::{Error, ErrorKind, Result, StoreError};
pub use index::distance::{reaches, SCORE_TOLERANCE};
pub use index::locale_set::ServedPairs;
pub use lookup::merge::{lookup_several, merge_ranked, SourceRank};
pub use lookup::producer::{context_for, Context, ContextOptions, ContextRequest, Example, GlossaryPair};
pub use lookup::provider::Provider;
pub use lookup::query::{client_masks, prepare_query, QueryText, CLIENT_MASK_TYPE};
pub use lookup::view::{provenance, MatchView, SegmentView};
pub use lookup::{
    context_matches, lookup, LookupOptions, LookupRequest, Match, MatchType, Penalty, PenaltyKind,
    SCORE_NEAR_EXACT,
};
pub use model::context::{
    context_metadata, context_text, Attribute, AttributePenalty, QueryContext, CONTEXT_POST, CONTEXT_PRE,
};
pub use model::entry::{merge_origins, Entry, EntryId, Metadata, NewEntry, Origin, Variant, WriteOutcome};
pub use model::key::{flatten_runs, generalized_text, normalize_text, structural_text};
pub use model::locale::{Locale, LocaleFit, REGION_PENALTY};
pub use model::notation::{parse_notation, to_notation, Notation};
pub use model::point::{nearer_answer, point_distance, Point};
#[cfg(feature = "recognize")]
pub use model::recognize::{Recognizer, RuleRole};
#[cfg(not(feature = "recognize"))]
pub use model::recognize_off::Recognizer;
pub use model::run::{is_entity_type, Choice, Code, Run};
pub use model::version::{PriorVersion, Version, VersionQuery, VersionRequest};
pub use repair::adapt::{CodeAdaptation, EntityAdaptation};
pub use store::mem::MemStore;
pub use store::{
    Capabilities, ContentMemory, ContentMemoryExt, IndexControl, MetaStore, PairCount, SearchHit,
    SearchQuery, Stats, WaitHook, WordAnswer, WordHit, WordIndex, WordModels, WordQuery,
};
