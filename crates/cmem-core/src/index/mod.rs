//! Retrieval machinery under the stores: trigram bounds, edit distance, the gram index
//! and the candidate index built on it, their persisted files and cache, and locale
//! sets. Store implementers reach it through [`crate::imp`].

pub mod candidate_index;
pub mod distance;
pub mod gram_index;
pub mod index_cache;
pub mod locale_set;
pub mod query;
pub mod trigram;
