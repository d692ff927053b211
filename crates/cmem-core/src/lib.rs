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

pub mod adapt;
pub mod candidate_index;
pub mod diff;
pub mod distance;
pub mod entry;
pub mod error;
pub mod gram_index;
pub mod key;
pub mod locale;
pub mod locale_set;
pub mod lookup;
pub mod mem;
pub mod notation;
pub mod point;
pub mod provider;
pub mod query;
#[cfg(feature = "recognize")]
pub mod recognize;
#[cfg(not(feature = "recognize"))]
#[doc(hidden)]
pub mod recognize_off;
pub mod repair;
pub mod run;
pub mod schema;
pub mod store;
pub mod trigram;
pub mod version;
pub mod view;

pub use adapt::{CodeAdaptation, EntityAdaptation};
pub use candidate_index::CandidateIndex;
pub use entry::{merge_origins, Entry, EntryId, Metadata, NewEntry, Origin, Variant, WriteOutcome};
pub use error::{Error, ErrorKind, Result, StoreError};
pub use gram_index::GramIndex;
pub use key::{
    flatten_runs, generalized_text, normalize_text, structural_text, KeyKind, Keys, KindSet, KEY_VERSION,
};
pub use locale::Locale;
pub use locale_set::{LocaleSets, PairFilter};
pub use lookup::{
    lookup, LookupOptions, LookupRequest, Match, MatchType, Penalty, PenaltyKind, SCORE_NEAR_EXACT,
};
pub use mem::MemStore;
pub use notation::{parse_notation, to_notation, Segment};
pub use point::{nearer_answer, point_distance, Point};
pub use provider::Provider;
pub use query::{prepare_query, QueryText};
#[cfg(feature = "recognize")]
pub use recognize::{Recognizer, RuleRole};
/// Inline-code recognition; without the `recognize` feature, a stand-in whose
/// [`Recognizer`] cannot be made and whose [`Recognizer::from_names`] says so.
#[cfg(not(feature = "recognize"))]
pub use recognize_off as recognize;
#[cfg(not(feature = "recognize"))]
pub use recognize_off::{Recognizer, RuleRole};
pub use run::{is_entity_type, Choice, Code, Run};
pub use store::{
    CandidateQuery, CandidateSink, ContentMemory, ExactQuery, PairCount, SearchHit, SearchQuery, Stats,
    WaitHook, WriteSession,
};
pub use trigram::build_trigram_query;
pub use version::{prior_version_for, PriorVersion, Version, VersionQuery, VersionReader, VersionRequest};
pub use view::{MatchView, SegmentView};
