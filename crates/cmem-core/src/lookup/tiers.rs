//! Which tier a stored entry falls in: the rescoring of fuzzy candidates and the
//! classification of exact-key hits.

use unicode_normalization::UnicodeNormalization;

use crate::index::distance::reaches;
use crate::model::entry::Entry;
use crate::model::key::{normalize_text, KeyKind, Keys};
use crate::model::locale::LocaleFit;
use crate::model::run::Run;
use crate::repair::adapt::{adapt, entity_values, Adapted};

use super::matches::{Match, MatchType, Penalty, PenaltyKind, SCORE_NEAR_EXACT, WHITESPACE_PENALTY};
use super::options::LookupRequest;

/// The best of the three key similarities (docs/matching.md §4), never below what the sink found.
pub(super) fn rescore(query: &Keys, stored: &Keys, found: f64, found_kind: KeyKind) -> (f64, KeyKind) {
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
        if !reaches(best.0, s) || (reaches(s, best.0) && kind < best.1) {
            best = (s.max(best.0), kind);
        }
    }
    best
}

pub(super) fn new_match(
    entry: Entry,
    si: usize,
    ti: usize,
    score: f64,
    match_type: MatchType,
    adapted: Adapted,
    asked: &Asked<'_>,
) -> Match {
    let req = asked.req;
    let source = &entry.variants[si].runs;
    let (adapted, repairs) = repaired(req, source, adapted);
    let target = adapted.target;
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

/// `adapted` (of a stored target whose source is `source` to the query of `req`) with
/// the mechanical repairs ([`crate::repair::repair`]) made in its target, and those
/// repairs.
pub(super) fn repaired(
    req: &LookupRequest,
    source: &[Run],
    mut adapted: Adapted,
) -> (Adapted, Vec<crate::repair::Repair>) {
    let repairs = crate::repair::repair(&req.source, source, &mut adapted.target, &req.target_locale);
    (adapted, repairs)
}

/// A request with the query's texts the matches are compared with, computed once per
/// lookup.
pub(super) struct Asked<'a> {
    pub(super) req: &'a LookupRequest,
    /// [`surface_nfc`] of the query.
    surface: String,
    /// [`text_nfc`] of the query.
    text: String,
}

impl<'a> Asked<'a> {
    pub(super) fn of(req: &'a LookupRequest) -> Asked<'a> {
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
pub(super) fn exact_match(entry: Entry, q: &Keys, asked: &Asked<'_>) -> Option<Match> {
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
