//! What a client sees of a match: [`MatchView`], a serializable picture of a [`Match`]
//! with everything needed to show it (scores, tier, ambiguity, texts in native markup and
//! as runs, the adapted target and how it was adapted, where the answer was approved and
//! how often). `cmem lookup --json` prints it, and any other front end returns the same
//! JSON.
//!
//! ```
//! use cmem_core::{lookup, ContentMemory, Locale, LookupRequest, MatchView, MemStore, NewEntry, Run, Variant};
//!
//! let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
//! let store = MemStore::new();
//! store.write(&[NewEntry::pair(
//!     Variant::new(en.clone(), vec![Run::text("Open the file")]),
//!     Variant::new(de.clone(), vec![Run::text("Datei öffnen")]),
//! )])?;
//! let matches = lookup(&store, &LookupRequest::new(vec![Run::text("Open the files")], en, de))?;
//! let view = MatchView::of(&matches[0]);
//! assert_eq!(view.target.text, "Datei öffnen");
//! assert_eq!(view.tier, 4); // equal keys: the earliest fuzzy tier
//! let json = serde_json::to_value(&view).unwrap();
//! assert_eq!(json["match_type"], "generalized_fuzzy");
//! # Ok::<(), cmem_core::Error>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::lookup::{Match, Penalty};
use crate::model::diff::DiffOp;
use crate::model::entry::{Metadata, Origin};
use crate::model::run::{surface_text, Run};
use crate::repair::adapt::{CodeAdaptation, EntityAdaptation};
use crate::repair::Repair;

/// A segment as a client shows it: its locale, its text with codes as their native
/// markup, and its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentView {
    /// The locale, when the segment has one of its own (not for an adapted target, whose
    /// locale is the target's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The text, codes as their native markup ([`surface_text`]).
    pub text: String,
    /// The runs.
    pub runs: Vec<Run>,
}

impl SegmentView {
    /// The view of `runs` in `locale`.
    pub fn of(locale: Option<&str>, runs: &[Run]) -> SegmentView {
        SegmentView { locale: locale.map(str::to_owned), text: surface_text(runs), runs: runs.to_vec() }
    }
}

/// A [`Match`] as clients see it; see the [module docs](self).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MatchView {
    /// 0–1; 1.0 = text and structure equal (an exact match of the first two tiers).
    pub score: f64,
    /// The score in percent, as text output, options and XLIFF write it (0–100).
    pub percent: f64,
    /// The tier's name (`context_exact`, `generalized_exact` … `plain_fuzzy`).
    pub match_type: String,
    /// The tier's number, 0 (a context match, "101 %"), 1 (generalized exact) to 6
    /// (plain fuzzy).
    pub tier: u8,
    /// The stored entry's id (in its memory: ids of different memories may be equal).
    pub entry_id: i64,
    /// The name of the memory the match came from, in a lookup over several (absent
    /// for a lookup of one memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// An exact match demoted because differing answers exist and no point was named.
    pub ambiguous: bool,
    /// Where the answer was approved (`profile/channel/collection`; empty: nowhere in
    /// particular).
    pub point: String,
    /// The durable identity of the content block it was approved for (may be empty).
    pub unit: String,
    /// The entry's project.
    pub project_id: String,
    /// The stored source.
    pub source: SegmentView,
    /// The stored target, unadapted.
    pub target: SegmentView,
    /// The stored target with the query's entity values and inline codes: the text to
    /// use.
    pub adapted_target: SegmentView,
    /// Entity values changed in the adapted target.
    pub entity_adaptations: Vec<EntityAdaptation>,
    /// Inline codes of the query carried into the adapted target.
    pub code_adaptations: Vec<CodeAdaptation>,
    /// Mechanical repairs made in the adapted target (final punctuation, numbers, white
    /// space at the ends).
    pub repairs: Vec<Repair>,
    /// What lowered the score of a match whose keys equal the query's.
    pub penalties: Vec<Penalty>,
    /// The stored source's text is the query's, character for character.
    pub identical_source: bool,
    /// How the stored source differs from the query, word by word (`delete`: only in the
    /// stored source; `insert`: only in the query); empty when identical.
    pub diff: Vec<DiffOp>,
    /// The write events that produced or re-approved the entry, oldest first.
    pub origins: Vec<Origin>,
    /// Where the entry's import said it came from: the values of its metadata that
    /// name a file, an origin or a project ([`provenance`]); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provenance: Vec<String>,
    /// How many times the answer was approved (each import or write of it counts).
    pub approvals: u32,
    /// When it was approved last (RFC 3339; empty when unknown).
    pub last_approved: String,
}

impl MatchView {
    /// The view of `m`.
    pub fn of(m: &Match) -> MatchView {
        let source_locale = m.entry.variants[m.source_index].locale.as_str();
        let target_locale = m.entry.variants[m.target_index].locale.as_str();
        MatchView {
            score: m.score,
            percent: (m.score * 10_000.0).round() / 100.0,
            match_type: m.match_type.as_str().to_owned(),
            tier: m.match_type.number(),
            entry_id: m.entry.id.0,
            memory: None,
            ambiguous: m.ambiguous,
            point: m.entry.point.as_str().to_owned(),
            unit: m.entry.unit.clone(),
            project_id: m.project_id.clone(),
            source: SegmentView::of(Some(source_locale), m.source()),
            target: SegmentView::of(Some(target_locale), m.target()),
            adapted_target: SegmentView::of(None, &m.adapted_target),
            entity_adaptations: m.entity_adaptations.clone(),
            code_adaptations: m.code_adaptations.clone(),
            repairs: m.repairs.clone(),
            penalties: m.penalties.clone(),
            identical_source: m.identical_source,
            diff: m.source_diff.clone(),
            origins: m.entry.origins.clone(),
            provenance: provenance(&m.entry.metadata),
            approvals: m.entry.approvals(),
            last_approved: m.entry.last_approved().to_owned(),
        }
    }
}

/// Where an entry's import said it came from: the distinct values of `metadata` under
/// a key naming a file, an origin or a project (`jsonl:origin`, `po:references`, a TMX
/// property `x-file`), in order; cmem's own notes (`cmem:…`) left out. Clients show
/// these beside a match, and a project filter accepts them.
pub fn provenance(metadata: &Metadata) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (key, value) in metadata {
        let key = key.to_ascii_lowercase();
        let names = ["origin", "file", "project"].iter().any(|w| key.contains(w));
        if names && !key.starts_with("cmem:") && !value.trim().is_empty() && !out.contains(value) {
            out.push(value.clone());
        }
    }
    out
}

impl MatchView {
    /// The view of `m`, which came from the memory named `memory`.
    pub fn of_memory(m: &Match, memory: &str) -> MatchView {
        MatchView { memory: Some(memory.to_owned()), ..MatchView::of(m) }
    }
}

impl From<&Match> for MatchView {
    fn from(m: &Match) -> Self {
        MatchView::of(m)
    }
}
