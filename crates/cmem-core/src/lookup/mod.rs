//! The tiered lookup (docs/matching.md §4), written once over any [`ContentMemory`].

use crate::index::distance::reaches;
use crate::store::ContentMemoryExt;
use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::model::entry::{Entry, EntryId};
use crate::model::key::{KeyKind, Keys};
use crate::repair::adapt::adapt;
use crate::store::{CandidateQuery, ContentMemory, ExactQuery, ReadScope};

mod ambiguity;
pub mod masks;
mod matches;
pub mod merge;
mod options;
pub mod producer;
pub mod provider;
pub mod query;
mod sink;
mod tiers;
pub mod view;
use ambiguity::settle_ambiguity;
use sink::Sink;
use tiers::{exact_match, new_match, repaired, rescore, Asked};

pub use matches::{Match, MatchType, Penalty, PenaltyKind, SCORE_NEAR_EXACT, WHITESPACE_PENALTY};
pub use options::{LookupOptions, LookupRequest};

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

/// What the pair's word model does for the returned matches, when the store has one
/// (read once per store): the codes the query added or moved that the match's own
/// alignment could not place are placed by the model's ([`crate::repair::place`]; the
/// adaptation and its mechanical repairs made again), then the word repair
/// ([`crate::repair::words`]) of the fuzzy matches in the bands
/// [`LookupOptions::word_repair`] names. Never a word repair of a match whose source is
/// the query's text.
pub(crate) fn repair_words_of(
    store: &dyn ContentMemory,
    req: &LookupRequest,
    out: &mut [Match],
) -> Result<()> {
    let bands = req.options.word_repair;
    let wanted = |m: &Match| !m.identical_source && m.score < 1.0 && bands.covers(m.score);
    let unplaced =
        |m: &Match| m.code_adaptations.iter().any(crate::repair::adapt::CodeAdaptation::placed_by_rule);
    if !out.iter().any(|m| wanted(m) || unplaced(m)) {
        return Ok(());
    }
    let Some(model) = store.word_model(&req.source_locale, &req.target_locale)? else { return Ok(()) };
    for m in out.iter_mut().filter(|m| unplaced(m)) {
        let positional = matches!(
            m.match_type,
            MatchType::ContextExact | MatchType::GeneralizedExact | MatchType::StructuralExact
        );
        let links = crate::repair::place::WordLinks::Model(&model);
        let adapted =
            crate::repair::adapt::adapt_with(&req.source, m.source(), m.target(), positional, links);
        let (adapted, repairs) = repaired(req, m.source(), adapted);
        m.entity_adaptations = adapted.entities;
        m.code_adaptations = adapted.codes;
        m.adapted_target = adapted.target;
        m.repairs = repairs;
    }
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
        .filter(|(_, s, _)| reaches(*s, opts.threshold))
        .collect();
    fuzzy.sort_by(|a, b| {
        b.1.total_cmp(&a.1).then(MatchType::fuzzy(a.2).cmp(&MatchType::fuzzy(b.2))).then(a.0.cmp(&b.0))
    });

    let mut out = exact;
    out.retain(|m| reaches(m.score, opts.threshold));
    out.sort_by(Match::rank);
    out.truncate(opts.limit);
    // Past the limit, candidates tied with the last one taken are still read: which of
    // them make the list is decided by evidence, which needs their entries.
    // The entries the loop below reads when none is passed over, asked for at once (one
    // round trip for a store across a network); any further one is read on its own.
    let mut wanted = Vec::new();
    let mut last_taken = f64::INFINITY;
    for &(id, score, _) in &fuzzy {
        if out.len() + wanted.len() >= opts.limit && !reaches(score, last_taken) {
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
            if !reaches(score, floor) {
                break;
            }
        }
        last_taken = score;
        let entry = match fetched.remove(&id) {
            Some(entry) => entry,
            None => scope.get_many(&[id])?.pop().flatten(),
        };
        let Some(entry) = entry else { continue };
        let Some((si, ti, region)) = entry.lookup_pair(src, tgt) else { continue };
        // A key of this entry may have been passed over once the cut-off rose above it
        // while another of its keys was already in; score all three now that it is here.
        let (score, kind) = rescore(keys, &entry.variants[si].keys(), score, kind);
        let adapted = adapt(&req.source, &entry.variants[si].runs, &entry.variants[ti].runs, false);
        let mut m = new_match(entry, si, ti, score, MatchType::fuzzy(kind), adapted, asked);
        if region > 0 {
            m.charge(Penalty { kind: PenaltyKind::Region, points: region });
        }
        m.charge_attributes(&opts.penalties);
        if !reaches(m.score, opts.threshold) {
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
