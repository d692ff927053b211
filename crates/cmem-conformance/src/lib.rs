//! The store conformance suite: every [`ContentMemory`](cmem_core::ContentMemory) must
//! give the same matches, scores and order (docs/matching.md §8).
//!
//! [`conformance_suite!`] expands to one `#[test]` per rule of docs/matching.md §3–6 (see
//! [`rules`]) plus `match_cases`, which runs every case file of `testdata/match/`
//! (see [`cases`] for the format). Invoke it once per store, in a module of its own:
//!
//! ```
//! mod memory {
//!     cmem_conformance::conformance_suite!(|| Box::new(cmem_core::MemStore::new()));
//! }
//! ```
//!
//! The argument is an expression callable with no arguments that returns a fresh, empty
//! store as `Box<dyn ContentMemory>` (or a box of a concrete store): a closure or a
//! function path. Every test makes its own stores.
//!
//! A store configuration that retrieves fuzzy candidates by SQL instead of the shared
//! candidate index uses `conformance_suite!(sql_candidates: …)`, which leaves out the one
//! rule such retrieval cannot promise: budgeted lists equal to the in-memory store's at
//! every position.
//!
//! The fuzzy-completeness rule compares [`lookup`](cmem_core::lookup()) with
//! [`reference::reference_lookup`], an exhaustive scorer that follows docs/matching.md §4 literally.

#![forbid(unsafe_code)]

pub mod cases;
mod failure;
pub mod fixture;
pub mod reference;
mod reopening;
pub mod rules;

pub use cmem_core;
pub use failure::{Failure, Outcome};
pub use reopening::{Reopen, Reopening};

/// Expands to one `#[test]` per conformance rule, plus `match_cases`, for the store
/// made by `$make` (an expression callable as `$make()` that returns a fresh, empty
/// store in a `Box`).
#[macro_export]
macro_rules! conformance_suite {
    ($make:expr) => {
        $crate::conformance_suite!(sql_candidates: $make);
        $crate::conformance_suite!(@tests $make;
            budgeted_lists_agree_with_the_in_memory_store,
            context_examples_agree_with_the_in_memory_store,
        );
    };
    // A store configuration whose fuzzy candidates come from SQL rather than the shared
    // candidate index: it must agree on every exhaustive list and on the best match,
    // not on every position of a budgeted list (the store contract's offer-order rule).
    (sql_candidates: $make:expr) => {
        $crate::conformance_suite!(@tests $make;
            dedupe_appends_an_origin,
            locale_prefix_rule,
            tier_generalized_exact,
            tier_structural_exact,
            tier_plain_exact_is_the_tag_mismatch_penalty,
            tier_generalized_fuzzy,
            tier_structural_fuzzy,
            tier_plain_fuzzy,
            changed_entity_type_is_not_exact,
            fuzzy_scores_are_capped,
            threshold,
            limit,
            ordering_by_score_tier_and_id,
            ambiguity_without_a_point,
            ambiguity_settled_by_the_point,
            point_tie_goes_to_the_smaller_target,
            equal_answers_are_not_ambiguous,
            entity_adaptation_in_a_target_code,
            entity_adaptation_in_plain_text,
            entity_adaptation_not_applied,
            code_adaptation,
            versions_newest_first,
            versions_point_narrowing,
            versions_exclude,
            versions_limit,
            versions_empty_unit_is_an_error,
            prior_version_fingerprint_gate,
            provider_prior_version,
            context_prior_version_gate,
            delete_removes_from_every_tier,
            replace_keeps_the_id,
            get_and_entries_paging,
            stats,
            concordance_search,
            write_batch_is_atomic,
            nfc_equivalent_queries_match_exactly,
            cjk_and_arabic_queries,
            empty_and_odd_segments,
            fuzzy_candidates_are_complete,
            memory_metadata,
            wrappers_keep_every_capability,
            evidence_orders_equal_scores,
            context_matches,
            attribute_penalties,
            mechanical_repairs,
            word_repair,
            ties_at_the_top_are_complete,
            several_memories_rank_after_penalties,
            match_cases,
        );
    };
    (@tests $make:expr; $($rule:ident),* $(,)?) => {
        $(
            #[test]
            fn $rule() -> ::std::result::Result<(), $crate::Failure> {
                let make = || -> ::std::boxed::Box<dyn $crate::cmem_core::ContentMemory> { ($make)() };
                $crate::rules::$rule(&make)
            }
        )*
    };
}
