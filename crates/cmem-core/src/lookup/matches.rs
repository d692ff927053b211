//! What a lookup returns: a match, its tier and its penalties.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::repair::Repair;

use crate::model::context::{Attribute, AttributePenalty};
use crate::model::entry::Entry;
use crate::model::key::{flatten_runs, KeyKind};
use crate::model::run::Run;
use crate::repair::adapt::{CodeAdaptation, EntityAdaptation};

/// The score of a match equal in text but not in inline-code structure (the
/// tag-mismatch penalty), of an ambiguous exact match, and the cap of fuzzy scores.
pub const SCORE_NEAR_EXACT: f64 = 0.99;

/// How a match was found, in order of reuse potential (docs/matching.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchType {
    /// Equal structural keys, no entity value differs, and the stored entry's context is
    /// the query's (its unit key, or both neighbours): 1.0, ranked above every other
    /// exact match, "101 %" (docs/matching.md §4).
    ContextExact,
    /// Equal generalized keys, some entity value differs: 1.0.
    GeneralizedExact,
    /// Equal structural keys, no entity value differs: 1.0.
    StructuralExact,
    /// Equal plain keys, different structural keys: [`SCORE_NEAR_EXACT`].
    PlainExact,
    /// Similar generalized keys.
    GeneralizedFuzzy,
    /// Similar structural keys.
    StructuralFuzzy,
    /// Similar plain keys.
    PlainFuzzy,
}

impl MatchType {
    /// The tier number: 0 for a context match, then 1–6.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// True for the three exact tiers.
    pub fn is_exact(self) -> bool {
        self.number() <= 3
    }

    /// The snake-case name (`structural_exact`).
    pub fn as_str(self) -> &'static str {
        match self {
            MatchType::ContextExact => "context_exact",
            MatchType::GeneralizedExact => "generalized_exact",
            MatchType::StructuralExact => "structural_exact",
            MatchType::PlainExact => "plain_exact",
            MatchType::GeneralizedFuzzy => "generalized_fuzzy",
            MatchType::StructuralFuzzy => "structural_fuzzy",
            MatchType::PlainFuzzy => "plain_fuzzy",
        }
    }

    pub(super) fn fuzzy(kind: KeyKind) -> MatchType {
        match kind {
            KeyKind::Generalized => MatchType::GeneralizedFuzzy,
            KeyKind::Structural => MatchType::StructuralFuzzy,
            KeyKind::Plain => MatchType::PlainFuzzy,
        }
    }
}

impl std::fmt::Display for MatchType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One match. Serialized as it is (the entry whole); clients usually want the
/// [`MatchView`](crate::lookup::view::MatchView).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// The stored entry.
    pub entry: Entry,
    /// The index of its source variant in `entry.variants`.
    pub source_index: usize,
    /// The index of its target variant in `entry.variants`.
    pub target_index: usize,
    /// 0–1; 1.0 = text and structure.
    pub score: f64,
    /// The tier that found it.
    pub match_type: MatchType,
    /// Provenance: the entry's project.
    pub project_id: String,
    /// An exact match demoted because its answer differs from another's and no point
    /// was named.
    pub ambiguous: bool,
    /// Entity values changed in the adapted target.
    pub entity_adaptations: Vec<EntityAdaptation>,
    /// Inline codes of the query carried into the adapted target.
    pub code_adaptations: Vec<CodeAdaptation>,
    /// The stored target with the query's entities and codes (docs/matching.md §5), and the
    /// mechanical repairs of [`repairs`](Self::repairs).
    pub adapted_target: Vec<Run>,
    /// What lowered the score: text that differs from the query's only in white space
    /// is not a 100 % match, nor is an answer from another region of the language.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub penalties: Vec<Penalty>,
    /// Mechanical changes made in the adapted target (final punctuation, numbers, white
    /// space at the ends), see [`crate::repair`]. The score does not include them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<Repair>,
    /// The stored source's text is identical to the query's (codes as their markup):
    /// among equal scores such a match comes first.
    #[serde(default)]
    pub identical_source: bool,
    /// How the stored source differs from the query, word by word (what the stored
    /// source has: `delete`; what the query has instead: `insert`); empty when they are
    /// identical.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_diff: Vec<crate::model::diff::DiffOp>,
    /// The adapted target as it was before the word repair ([`crate::repair::words`])
    /// changed it: what recycle writes as the alternative of a repaired fill. `None` when
    /// no word repair was applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrepaired_target: Option<Vec<Run>>,
}

/// Why a match whose keys equal the query's scores under 100 %.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PenaltyKind {
    /// The texts differ only in white space (a double space, a line break, a trailing
    /// newline), which the keys do not see.
    Whitespace,
    /// The stored source or target is in another region of the language asked for
    /// (`de-DE` for `de-CH`): [`REGION_PENALTY`](crate::model::locale::REGION_PENALTY) points a side.
    Region,
    /// The match comes from a memory that costs a penalty in a lookup over several
    /// ([`lookup_several`](crate::lookup::merge::lookup_several)).
    Memory,
    /// An [`AttributePenalty`] on the entry's project.
    Project,
    /// An [`AttributePenalty`] on the entry's client.
    Client,
    /// An [`AttributePenalty`] on the entry's origin (machine translation, …).
    Origin,
    /// An [`AttributePenalty`] on the entry's review status.
    Status,
    /// An [`AttributePenalty`] on the file the entry came from.
    File,
}

/// A penalty: `{"kind":"whitespace","points":1}`, one point being 1 %.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Penalty {
    /// What differs.
    pub kind: PenaltyKind,
    /// How many percentage points it costs.
    pub points: u8,
}

/// Points a white-space-only difference costs (memoQ and Trados both charge about 1 %
/// for it by default).
pub const WHITESPACE_PENALTY: u8 = 1;

impl Match {
    /// The stored source runs.
    pub fn source(&self) -> &[Run] {
        &self.entry.variants[self.source_index].runs
    }

    /// The stored target runs, unadapted.
    pub fn target(&self) -> &[Run] {
        &self.entry.variants[self.target_index].runs
    }

    /// The adapted target's plain key (codes as `{equiv}`): what matching compares, not
    /// what to show; see [`adapted_text`](Self::adapted_text) for that.
    pub fn target_text(&self) -> String {
        flatten_runs(&self.adapted_target)
    }

    /// The adapted target as text to use, codes as their native markup (`%d öffnen`,
    /// `<b>Datei</b>`).
    pub fn adapted_text(&self) -> String {
        crate::model::run::surface_text(&self.adapted_target)
    }

    /// The stored source as text, codes as their native markup.
    pub fn source_text(&self) -> String {
        crate::model::run::surface_text(self.source())
    }

    /// The stored target (unadapted) as text, codes as their native markup.
    pub fn stored_target_text(&self) -> String {
        crate::model::run::surface_text(self.target())
    }

    /// True when every entity and code adaptation was applied.
    pub fn adaptation_complete(&self) -> bool {
        self.entity_adaptations.iter().all(|a| a.applied) && self.code_adaptations.iter().all(|a| a.applied)
    }

    /// Lowers the score by `penalty` and records it.
    pub(crate) fn charge(&mut self, penalty: Penalty) {
        self.score -= f64::from(penalty.points) / 100.0;
        self.penalties.push(penalty);
    }

    /// Charges every rule of `rules` that applies to the entry.
    pub(super) fn charge_attributes(&mut self, rules: &[AttributePenalty]) {
        for rule in rules {
            if rule.points > 0 && rule.applies_to(&self.entry) {
                self.charge(Penalty { kind: rule.attribute.penalty_kind(), points: rule.points });
            }
        }
    }

    /// True when the word repair changed the adapted target (see
    /// [`unrepaired_target`](Self::unrepaired_target)).
    pub fn words_repaired(&self) -> bool {
        self.unrepaired_target.is_some()
    }

    /// True for a context match.
    pub fn is_context(&self) -> bool {
        self.match_type == MatchType::ContextExact
    }

    /// The order of a list: score (descending), then a context match, then the evidence
    /// for equal scores — an identical source first, then more approvals, then the
    /// newest approval — then the tier and the entry id.
    pub(crate) fn rank(&self, other: &Match) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(other.is_context().cmp(&self.is_context()))
            .then(other.identical_source.cmp(&self.identical_source))
            .then(other.entry.approvals().cmp(&self.entry.approvals()))
            .then(other.entry.last_approved().cmp(self.entry.last_approved()))
            .then(self.match_type.cmp(&other.match_type))
            .then(self.entry.id.cmp(&other.entry.id))
    }
}

impl Attribute {
    /// The penalty kind a match is charged under.
    pub fn penalty_kind(self) -> PenaltyKind {
        match self {
            Attribute::Project => PenaltyKind::Project,
            Attribute::Client => PenaltyKind::Client,
            Attribute::Origin => PenaltyKind::Origin,
            Attribute::Status => PenaltyKind::Status,
            Attribute::File => PenaltyKind::File,
        }
    }
}
