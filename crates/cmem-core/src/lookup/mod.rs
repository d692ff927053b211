//! The tiered lookup (docs/matching.md §4), written once over any [`ContentMemory`].

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::repair::words::RepairBands;
use crate::repair::Repair;
use unicode_normalization::UnicodeNormalization;

use crate::error::{Error, Result};
use crate::model::context::{Attribute, AttributePenalty, QueryContext};
use crate::model::entry::{Entry, EntryId};
use crate::model::key::{flatten_runs, normalize_text, KeyKind, Keys};
use crate::model::locale::{Locale, LocaleFit};
use crate::model::point::{nearer_answer, Point};
use crate::model::run::{runs_to_json, Run};
use crate::repair::adapt::{adapt, entity_values, Adapted, CodeAdaptation, EntityAdaptation};
use crate::store::{CandidateQuery, ContentMemory, ExactQuery, ReadScope};

pub mod masks;
pub mod merge;
pub mod producer;
pub mod provider;
pub mod query;
mod sink;
pub mod view;
use sink::Sink;

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

    fn fuzzy(kind: KeyKind) -> MatchType {
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

/// Lookup options.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LookupOptions {
    /// The least score returned, 0–1; default 0.70.
    pub threshold: f64,
    /// At most this many matches; default 10.
    pub limit: usize,
    /// The point the caller asks from; settles differing exact answers.
    pub point: Option<Point>,
    /// The longest query accepted, in characters; default 10,000. Longer is an error.
    pub max_query_chars: usize,
    /// How many fuzzy candidates are scored before the search narrows to what can still
    /// tie with or beat the best match found; default `usize::MAX`, never. Below the
    /// best match the list then holds the best of the candidates scored, which depends
    /// on the order a store offers them in, so two stores (or a store's two candidate
    /// paths) may differ there; without it the list is the top `limit` of the
    /// candidates offered, whatever their order. A caller who reads only the best match
    /// may set one (DESIGN.md §4.5 has what it saves and costs).
    pub verify_budget: usize,
    /// How many fuzzy candidates a store offers at most from one index for one query
    /// key; default 150. Stores offer the most promising candidates first (most shared
    /// trigrams for their length), so on real data the best match is found long before
    /// this: the benchmark measures its recall against an exhaustive scan (docs/matching.md §7).
    /// Once a store has seen more keys than this, it may also leave unread the query's
    /// most common trigrams when a key sharing none of the others could reach the
    /// threshold only narrowly (DESIGN.md §4.6). Past the limit, it still offers every key
    /// that could tie with the best match found, so the ties at the top are complete.
    /// `usize::MAX`: never stop early; the best match is then exact by construction.
    pub max_candidates: usize,
    /// How much of its index a store reads for one query key before it ranks what it has
    /// seen (posting entries for the trigram index); default unlimited. The rarest
    /// trigrams of the query are read first, so a limit leaves the most common ones
    /// unread and keys that share none of the rarer trigrams are not offered: faster,
    /// but on real data it costs recall (the edited words of a query are often its
    /// rarest trigrams), so it is off unless a caller trades recall for speed.
    /// Unstable: an experiment knob no default path uses (the benchmark's); it may change
    /// or go in any release.
    pub scan_limit: usize,
    /// Points off matches whose stored entry has an attribute (`origin:mt=10`), charged
    /// as penalties of the attribute's kind; default none (docs/matching.md §4).
    pub penalties: Vec<AttributePenalty>,
    /// In which score bands a fuzzy match's changed words are repaired from the memory's
    /// word model ([`crate::repair::words`]), when the store has one for the locale pair;
    /// default: the bands where the benchmark found more repaired targets nearer the
    /// translation shipped than farther from it (docs/performance.md).
    pub word_repair: RepairBands,
    /// The lowest scores of the bands a caller sorts matches into (0.50, 0.75, 0.85,
    /// 0.95, 1.0 for analyze's default bands); default none. With floors, the lookup
    /// answers which band the best matches fall in rather than which they are: once
    /// `limit` matches are found, the fuzzy search looks only for one that reaches the
    /// next floor above the `limit`-th best found, instead of proving that none beats it
    /// within its band. The matches returned then lie in the bands of the best ones,
    /// but may not be the best of their band. Costs little where recycle's threshold
    /// would, where proving the best of a low band costs the most.
    pub score_floors: Vec<f64>,
}

impl Default for LookupOptions {
    fn default() -> Self {
        LookupOptions {
            threshold: 0.70,
            limit: 10,
            point: None,
            max_query_chars: 10_000,
            verify_budget: usize::MAX,
            max_candidates: 150,
            scan_limit: usize::MAX,
            penalties: Vec::new(),
            word_repair: RepairBands::DEFAULT,
            score_floors: Vec::new(),
        }
    }
}

crate::setters!(LookupOptions {
    threshold: f64,
    limit: usize,
    word_repair: RepairBands,
    /// `usize::MAX`: the whole list exact.
    verify_budget: usize,
    /// `usize::MAX`: no limit.
    max_candidates: usize,
    /// `usize::MAX`: no limit.
    scan_limit: usize,
    max_query_chars: usize,
    penalties: Vec<AttributePenalty>,
    score_floors: Vec<f64>,
});

impl LookupOptions {
    /// Sets the caller's point.
    #[must_use]
    pub fn point(mut self, point: Point) -> Self {
        self.point = Some(point);
        self
    }

    /// Sets the caller's point or, with `None`, none: for a point passed along as given.
    #[must_use]
    pub fn maybe_point(mut self, point: Option<Point>) -> Self {
        self.point = point;
        self
    }

    /// Exact in every position at any memory size: no budget, no candidate or scan limit.
    #[must_use]
    pub fn exhaustive(self) -> Self {
        self.verify_budget(usize::MAX).max_candidates(usize::MAX).scan_limit(usize::MAX)
    }
}

/// One lookup.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LookupRequest {
    /// The segment to find.
    pub source: Vec<Run>,
    /// Its locale.
    pub source_locale: Locale,
    /// The locale of the answers wanted.
    pub target_locale: Locale,
    /// Threshold, limit, point.
    pub options: LookupOptions,
    /// Where the segment stands in its document, for context matches; default: unknown.
    pub context: QueryContext,
}

crate::setters!(LookupRequest { options: LookupOptions, context: QueryContext });

impl LookupRequest {
    /// A lookup with default options.
    pub fn new(source: Vec<Run>, source_locale: Locale, target_locale: Locale) -> Self {
        LookupRequest {
            source,
            source_locale,
            target_locale,
            options: LookupOptions::default(),
            context: QueryContext::default(),
        }
    }

    /// A lookup from locale `from` to `to` given as tags (`"en"`, `"de-AT"`), with default
    /// options.
    ///
    /// ```
    /// use cmem_core::{LookupRequest, Run};
    ///
    /// let req = LookupRequest::from_tags(vec![Run::text("Save")], "en", "de-AT")?;
    /// assert_eq!(req.target_locale.as_str(), "de-AT");
    /// assert!(LookupRequest::from_tags(vec![Run::text("Save")], "en", "not a tag").is_err());
    /// # Ok::<(), cmem_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::InvalidLocale`](crate::ErrorKind::InvalidLocale) for a tag that is
    /// not BCP 47, naming it.
    pub fn from_tags(source: Vec<Run>, from: &str, to: &str) -> Result<Self> {
        Ok(LookupRequest::new(source, Locale::parse(from)?, Locale::parse(to)?))
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
    fn charge_attributes(&mut self, rules: &[AttributePenalty]) {
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

/// Looks up `req.source` in `store`: exact tiers, ambiguity and points, fuzzy tiers,
/// adaptation, ordering by (score desc, tier, entry id), cut to the limit.
///
/// # Errors
/// A threshold outside 0–1, a query longer than `max_query_chars`, or a store failure.
///
/// # Examples
/// ```
/// use cmem_core::{lookup, ContentMemory, Locale, LookupRequest, MatchType, MemStore, NewEntry, Run, Variant};
///
/// let store = MemStore::new();
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// store.write(&[NewEntry::pair(
///     Variant::new(en.clone(), vec![Run::text("Save the file")]),
///     Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
/// )])?;
///
/// // The same text: an exact match whose target is the stored one.
/// let req = LookupRequest::new(vec![Run::text("Save the file")], en.clone(), de.clone());
/// let matches = lookup(&store, &req)?;
/// assert_eq!(matches[0].match_type, MatchType::StructuralExact);
/// assert_eq!(matches[0].score, 1.0);
/// assert_eq!(matches[0].adapted_target, vec![Run::text("Datei speichern")]);
///
/// // A near text: a fuzzy match, scored below 1.
/// let req = LookupRequest::new(vec![Run::text("Save the files")], en, de);
/// let matches = lookup(&store, &req)?;
/// assert!(matches[0].score < 1.0 && matches[0].score > 0.8);
/// # Ok::<(), cmem_core::Error>(())
/// ```
pub fn lookup(store: &dyn ContentMemory, req: &LookupRequest) -> Result<Vec<Match>> {
    let opts = &req.options;
    if !(0.0..=1.0).contains(&opts.threshold) {
        return Err(Error::invalid_query(format!("threshold {} is outside 0–1", opts.threshold)));
    }
    let keys = Keys::of(&req.source);
    let asked = Asked::of(req);
    let query_chars = keys.plain.chars().count().max(keys.structural.chars().count());
    if query_chars > opts.max_query_chars {
        return Err(Error::invalid_query(format!(
            "query of {query_chars} characters exceeds max_query_chars {}",
            opts.max_query_chars
        )));
    }
    if opts.limit == 0 {
        return Ok(Vec::new());
    }
    // Every read of a try goes through its scope; a scope whose reads did not hold
    // (another writer came between) is tried again in a new one.
    let mut tries = 0;
    loop {
        tries += 1;
        let mut scope = store.read_scope(&req.source_locale)?;
        let mut out = lookup_in_scope(&mut scope, req, &keys, &asked)?;
        if scope.confirm()? || tries == 3 {
            drop(scope);
            repair_words_of(store, req, &mut out)?;
            return Ok(out);
        }
    }
}

/// The word repair ([`crate::repair::words`]) of the returned fuzzy matches in the
/// bands [`LookupOptions::word_repair`] names, with the pair's word model when the store
/// has one (read once per store). Never a match whose source is the query's text.
pub(crate) fn repair_words_of(
    store: &dyn ContentMemory,
    req: &LookupRequest,
    out: &mut [Match],
) -> Result<()> {
    let bands = req.options.word_repair;
    let wanted = |m: &Match| !m.identical_source && m.score < 1.0 && bands.covers(m.score);
    if !out.iter().any(wanted) {
        return Ok(());
    }
    let Some(model) = store.word_model(&req.source_locale, &req.target_locale)? else { return Ok(()) };
    for m in out.iter_mut().filter(|m| wanted(m)) {
        let source = &m.entry.variants[m.source_index].runs;
        let before = m.adapted_target.clone();
        let repairs = crate::repair::words::repair_words(
            &req.source,
            source,
            &mut m.adapted_target,
            &model,
            &req.target_locale,
            m.score,
        );
        if m.adapted_target != before {
            m.unrepaired_target = Some(before);
        }
        m.repairs.extend(repairs);
    }
    Ok(())
}

/// One try of [`lookup`]: its reads (all through `scope`), scoring and ranking.
fn lookup_in_scope(
    scope: &mut ReadScope<'_>,
    req: &LookupRequest,
    keys: &Keys,
    asked: &Asked<'_>,
) -> Result<Vec<Match>> {
    let opts = &req.options;
    let src = &req.source_locale;
    let tgt = &req.target_locale;

    // Tiers 1–3.
    let mut exact: Vec<Match> = Vec::new();
    let mut seen: HashSet<EntryId> = HashSet::new();
    for kind in KeyKind::ALL {
        let hits = scope.exact(&ExactQuery { kind, key: keys.get(kind), source: src, target: tgt })?;
        for entry in hits {
            if seen.contains(&entry.id) {
                continue;
            }
            if let Some(mut m) = exact_match(entry, keys, asked) {
                if in_context(&m, req) {
                    m.match_type = MatchType::ContextExact;
                }
                seen.insert(m.entry.id);
                exact.push(m);
            }
        }
    }
    settle_ambiguity(&mut exact, opts.point.as_ref());

    // Tiers 4–6: only what can still enter the top `limit`.
    let mut sink = Sink::new(opts, &seen, &exact);
    for (key, kinds) in keys.distinct() {
        sink.set_query(key, kinds);
        scope.candidates(&CandidateQuery { key, kinds, source: src, target: tgt }, &mut sink)?;
    }
    let mut fuzzy: Vec<(EntryId, f64, KeyKind)> = sink
        .best
        .into_iter()
        .map(|(id, (score, kind))| (id, score.min(SCORE_NEAR_EXACT), kind))
        .filter(|(_, s, _)| *s + 1e-12 >= opts.threshold)
        .collect();
    fuzzy.sort_by(|a, b| {
        b.1.total_cmp(&a.1).then(MatchType::fuzzy(a.2).cmp(&MatchType::fuzzy(b.2))).then(a.0.cmp(&b.0))
    });

    let mut out = exact;
    out.retain(|m| m.score + 1e-12 >= opts.threshold);
    out.sort_by(Match::rank);
    out.truncate(opts.limit);
    // Past the limit, candidates tied with the last one taken are still read: which of
    // them make the list is decided by evidence, which needs their entries.
    // The entries the loop below reads when none is passed over, asked for at once (one
    // round trip for a store across a network); any further one is read on its own.
    let mut wanted = Vec::new();
    let mut last_taken = f64::INFINITY;
    for &(id, score, _) in &fuzzy {
        if out.len() + wanted.len() >= opts.limit && score + 1e-12 < last_taken {
            break;
        }
        last_taken = score;
        wanted.push(id);
    }
    let mut fetched: HashMap<EntryId, Option<Entry>> =
        wanted.iter().copied().zip(scope.get_many(&wanted)?).collect();
    let mut last_taken = f64::INFINITY;
    let penalized = opts.penalties.iter().any(|p| p.points > 0);
    for (id, score, kind) in fuzzy {
        if out.len() >= opts.limit {
            // Attribute penalties can put a later candidate above one taken: read on
            // while its unpenalized score could still reach the list.
            let floor = if penalized { kth_score(&out, opts.limit) } else { last_taken };
            if score + 1e-12 < floor {
                break;
            }
        }
        last_taken = score;
        let entry = match fetched.remove(&id) {
            Some(entry) => entry,
            None => scope.get_many(&[id])?.pop().flatten(),
        };
        let Some(entry) = entry else { continue };
        let Some((si, ti, region)) = pair_of(&entry, src, tgt) else { continue };
        // A key of this entry may have been passed over once the cut-off rose above it
        // while another of its keys was already in; score all three now that it is here.
        let (score, kind) = rescore(keys, &entry.variants[si].keys(), score, kind);
        let adapted = adapt(&req.source, &entry.variants[si].runs, &entry.variants[ti].runs, false);
        let mut m = new_match(entry, si, ti, score, MatchType::fuzzy(kind), adapted, asked);
        if region > 0 {
            m.charge(Penalty { kind: PenaltyKind::Region, points: region });
        }
        m.charge_attributes(&opts.penalties);
        if m.score + 1e-12 < opts.threshold {
            continue;
        }
        out.push(m);
    }
    out.sort_by(Match::rank);
    out.truncate(opts.limit);
    Ok(out)
}

/// Whether exact match `m` is a context match of `req`: a full structural match whose
/// entry was stored in the query's context.
fn in_context(m: &Match, req: &LookupRequest) -> bool {
    m.match_type == MatchType::StructuralExact
        && m.score >= 1.0
        && !req.context.is_empty()
        && req.context.matches(&m.entry)
}

/// The entries that [`lookup`] of `req` would list as context matches, by id, before
/// ambiguity is settled: the one thing a lookup's context changes. Two requests for the
/// same text whose contexts give the same ids get the same list, so a document's
/// repeated segments can share one lookup (an empty context gives none, at no cost).
///
/// # Errors
/// A store failure.
pub fn context_matches(store: &dyn ContentMemory, req: &LookupRequest) -> Result<Vec<EntryId>> {
    if req.context.is_empty() {
        return Ok(Vec::new());
    }
    let keys = Keys::of(&req.source);
    let asked = Asked::of(req);
    let (src, tgt) = (&req.source_locale, &req.target_locale);
    let mut ids = Vec::new();
    let mut seen: HashSet<EntryId> = HashSet::new();
    for kind in KeyKind::ALL {
        for entry in store.exact(&ExactQuery { kind, key: keys.get(kind), source: src, target: tgt })? {
            if seen.contains(&entry.id) {
                continue;
            }
            if let Some(m) = exact_match(entry, &keys, &asked) {
                seen.insert(m.entry.id);
                if in_context(&m, req) {
                    ids.push(m.entry.id);
                }
            }
        }
    }
    ids.sort_unstable();
    Ok(ids)
}

/// The `k`-th best score of `matches` (`k` ≥ 1 and at most their number).
fn kth_score(matches: &[Match], k: usize) -> f64 {
    let mut scores: Vec<f64> = matches.iter().map(|m| m.score).collect();
    scores.sort_by(|a, b| b.total_cmp(a));
    scores.get(k.saturating_sub(1)).copied().unwrap_or(f64::NEG_INFINITY)
}

/// The source and target variants a lookup from `src` to `tgt` uses in `entry` (the
/// best fits, two different variants), and the region penalty they cost together.
pub(crate) fn pair_of(entry: &Entry, src: &Locale, tgt: &Locale) -> Option<(usize, usize, u8)> {
    let (ti, tfit) = entry.lookup_variant(tgt)?;
    let (si, sfit) = entry.lookup_variant_except(src, ti)?;
    Some((si, ti, sfit.penalty() + tfit.penalty()))
}

/// The best of the three key similarities (docs/matching.md §4), never below what the sink found.
fn rescore(query: &Keys, stored: &Keys, found: f64, found_kind: KeyKind) -> (f64, KeyKind) {
    let mut best = (found, found_kind);
    let mut last: Option<(&str, &str, f64)> = None;
    for kind in KeyKind::ALL {
        let (q, k) = (query.get(kind), stored.get(kind));
        // Text-only segments have one key for all three kinds: score it once.
        let s = match last {
            Some((lq, lk, s)) if lq == q && lk == k => s,
            _ => crate::index::distance::similarity(q, k).min(SCORE_NEAR_EXACT),
        };
        last = Some((q, k, s));
        if s > best.0 + 1e-12 || (s + 1e-12 >= best.0 && kind < best.1) {
            best = (s.max(best.0), kind);
        }
    }
    best
}

fn new_match(
    entry: Entry,
    si: usize,
    ti: usize,
    score: f64,
    match_type: MatchType,
    adapted: Adapted,
    asked: &Asked<'_>,
) -> Match {
    let req = asked.req;
    let mut target = adapted.target;
    let source = &entry.variants[si].runs;
    let repairs = crate::repair::repair(&req.source, source, &mut target, &req.target_locale);
    let (query_text, source_text) = (asked.surface.as_str(), surface_nfc(source));
    let identical_source = query_text == source_text;
    let source_diff =
        if identical_source { Vec::new() } else { crate::model::diff::word_diff(&source_text, query_text) };
    Match {
        source_diff,
        unrepaired_target: None,
        penalties: Vec::new(),
        repairs,
        identical_source,
        project_id: entry.project_id.clone(),
        entry,
        source_index: si,
        target_index: ti,
        score,
        match_type,
        ambiguous: false,
        entity_adaptations: adapted.entities,
        code_adaptations: adapted.codes,
        adapted_target: target,
    }
}

/// A request with the query's texts the matches are compared with, computed once per
/// lookup.
struct Asked<'a> {
    req: &'a LookupRequest,
    /// [`surface_nfc`] of the query.
    surface: String,
    /// [`text_nfc`] of the query.
    text: String,
}

impl<'a> Asked<'a> {
    fn of(req: &'a LookupRequest) -> Asked<'a> {
        Asked { req, surface: surface_nfc(&req.source), text: text_nfc(&req.source) }
    }
}

/// The text of runs with codes as their markup, NFC: what "identical" compares.
fn surface_nfc(runs: &[Run]) -> String {
    crate::model::run::surface_text(runs).nfc().collect()
}

/// The text runs of `runs` joined (codes left out), NFC: what the white-space check
/// compares.
fn text_nfc(runs: &[Run]) -> String {
    let mut out = String::new();
    crate::model::run::walk_runs(runs, &mut |run| {
        if let Run::Text(t) = run {
            out.push_str(t);
        }
    });
    out.nfc().collect()
}

/// Classifies an exact-key hit (the same rules whichever key found it).
fn exact_match(entry: Entry, q: &Keys, asked: &Asked<'_>) -> Option<Match> {
    let req = asked.req;
    let (ti, tfit) = entry.lookup_variant(&req.target_locale)?;
    // Among the variants that serve the source locale, the one that agrees best (then
    // the one in the nearest locale).
    let mut best: Option<(usize, MatchType, LocaleFit)> = None;
    for (i, v) in entry.variants.iter().enumerate() {
        if i == ti {
            continue;
        }
        let Some(sfit) = req.source_locale.fit(&v.locale) else { continue };
        let k = v.keys();
        let t = if k.generalized == q.generalized {
            if entity_values(&v.runs) != entity_values(&req.source) {
                Some(MatchType::GeneralizedExact)
            } else if k.structural == q.structural {
                Some(MatchType::StructuralExact)
            } else {
                Some(MatchType::GeneralizedExact)
            }
        } else if k.structural == q.structural && entity_values(&v.runs) == entity_values(&req.source) {
            // docs/matching.md §4 tier 2 needs "no entity value differs": a changed entity with a
            // changed type shares the structural key but is no exact match.
            Some(MatchType::StructuralExact)
        } else if k.plain == q.plain && k.structural != q.structural {
            Some(MatchType::PlainExact)
        } else {
            None
        };
        if let Some(t) = t {
            if best.is_none_or(|(_, b, bfit)| (t, sfit) < (b, bfit)) {
                best = Some((i, t, sfit));
            }
        }
    }
    let (si, t, sfit) = best?;
    let score = if t == MatchType::PlainExact { SCORE_NEAR_EXACT } else { 1.0 };
    // Equal keys, unequal text: the keys collapse white space, the text does not.
    let (stored_text, query_text) = (text_nfc(&entry.variants[si].runs), asked.text.as_str());
    let spaced = stored_text != query_text && normalize_text(&stored_text) == normalize_text(query_text);
    let positional = t != MatchType::PlainExact;
    let adapted = adapt(&req.source, &entry.variants[si].runs, &entry.variants[ti].runs, positional);
    let mut m = new_match(entry, si, ti, score, t, adapted, asked);
    if spaced {
        m.charge(Penalty { kind: PenaltyKind::Whitespace, points: WHITESPACE_PENALTY });
    }
    let region = sfit.penalty() + tfit.penalty();
    if region > 0 {
        m.charge(Penalty { kind: PenaltyKind::Region, points: region });
    }
    m.charge_attributes(&req.options.penalties);
    Some(m)
}

/// docs/matching.md §4: full-score matches whose adapted targets differ are settled by point, or
/// all demoted and flagged when no point was named.
fn settle_ambiguity(matches: &mut [Match], point: Option<&Point>) {
    let full: Vec<usize> = (0..matches.len()).filter(|&i| matches[i].score >= 1.0).collect();
    if full.len() < 2 {
        return;
    }
    let answer = |m: &Match| runs_to_json(&m.adapted_target);
    let first = answer(&matches[full[0]]);
    if full.iter().all(|&i| answer(&matches[i]) == first) {
        return;
    }
    // Context matches that agree settle it: the answer given in this very place wins.
    let context: Vec<usize> = full.iter().copied().filter(|&i| matches[i].is_context()).collect();
    if let Some(&c) = context.first() {
        let win = answer(&matches[c]);
        if context.iter().all(|&i| answer(&matches[i]) == win) {
            for &i in &full {
                if answer(&matches[i]) != win {
                    matches[i].score = SCORE_NEAR_EXACT;
                }
            }
            return;
        }
        // Differing answers in one context are no context: the ordinary rule decides.
        for &i in &context {
            matches[i].match_type = MatchType::StructuralExact;
        }
    }
    match point {
        Some(caller) => {
            let texts: HashMap<usize, String> = full.iter().map(|&i| (i, matches[i].target_text())).collect();
            let winner = full.iter().copied().min_by(|&a, &b| {
                nearer_answer(
                    caller,
                    (&matches[a].entry.point, &texts[&a]),
                    (&matches[b].entry.point, &texts[&b]),
                )
                .then(matches[a].entry.id.cmp(&matches[b].entry.id))
            });
            if let Some(w) = winner {
                let win = answer(&matches[w]);
                for &i in &full {
                    if answer(&matches[i]) != win {
                        matches[i].score = SCORE_NEAR_EXACT;
                    }
                }
            }
        }
        None => {
            for &i in &full {
                matches[i].score = SCORE_NEAR_EXACT;
                matches[i].ambiguous = true;
            }
        }
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
