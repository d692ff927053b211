//! An exhaustive reference for docs/matching.md §4: it scores every entry, with no index, no
//! candidate retrieval and no cut-off, following the specification's words one by one.
//! It is slow on purpose; [`lookup`](cmem_core::lookup()) over any store must agree
//! with it.
//!
//! The adapted targets that decide ambiguity come from `cmem_core::repair::adapt::adapt`
//! (docs/matching.md §5 is checked by rules of its own); everything else is written here.

use std::cmp::Ordering;

use unicode_normalization::UnicodeNormalization;

use cmem_core::imp::Keys;
use cmem_core::index::distance::similarity;
use cmem_core::repair::adapt::adapt;
use cmem_core::{
    flatten_runs, nearer_answer, Entry, EntryId, LookupRequest, MatchType, Run, SCORE_NEAR_EXACT,
};

/// One match of the reference lookup.
#[derive(Debug, Clone, PartialEq)]
pub struct RefMatch {
    /// The entry.
    pub id: EntryId,
    /// The score.
    pub score: f64,
    /// The tier.
    pub match_type: MatchType,
    /// Demoted for an ambiguity with no point named.
    pub ambiguous: bool,
}

/// Scores within this of the threshold count as reaching it: the similarity is a ratio
/// computed in floating point, the threshold a decimal.
const EPSILON: f64 = 1e-9;

/// The entity types and values of `runs`, in order of appearance.
fn entities(runs: &[Run]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    cmem_core::model::run::walk_runs(runs, &mut |run| {
        if let Run::Ph(c) = run {
            if c.is_entity() {
                out.push((c.kind.clone(), c.equiv.clone()));
            }
        }
    });
    out
}

struct Scored {
    id: EntryId,
    /// The stored source's text equals the query's (codes as their markup).
    identical: bool,
    approvals: u32,
    last_approved: String,
    score: f64,
    match_type: MatchType,
    ambiguous: bool,
    point: cmem_core::Point,
    /// The adapted target (exact tiers only).
    answer: Vec<Run>,
}

/// The docs/matching.md §4 tier and score of one stored source against the query, before
/// ambiguity and the threshold.
fn tier(query: &[Run], q: &Keys, stored: &[Run]) -> (MatchType, f64) {
    let (t, s) = key_tier(query, q, stored);
    // Equal keys but text that differs (only in white space, then): a one-point penalty.
    let (st, qt) = (texts(stored), texts(query));
    if t.is_exact() && st != qt && cmem_core::normalize_text(&st) == cmem_core::normalize_text(&qt) {
        return (t, s - 0.01);
    }
    (t, s)
}

/// The text runs of `runs`, NFC, joined.
fn texts(runs: &[Run]) -> String {
    let mut out = String::new();
    cmem_core::model::run::walk_runs(runs, &mut |run| {
        if let Run::Text(t) = run {
            out.push_str(t);
        }
    });
    out.nfc().collect()
}

fn key_tier(query: &[Run], q: &Keys, stored: &[Run]) -> (MatchType, f64) {
    let k = Keys::of(stored);
    // "k-th entity of the stored source aligns with the k-th entity of the query".
    let (qe, se) = (entities(query), entities(stored));
    let some_value_differs = qe.len() != se.len() || qe.iter().zip(&se).any(|(a, b)| a != b);
    if k.generalized == q.generalized && some_value_differs {
        return (MatchType::GeneralizedExact, 1.0);
    }
    if k.structural == q.structural && !some_value_differs {
        return (MatchType::StructuralExact, 1.0);
    }
    if k.plain == q.plain && k.structural != q.structural {
        return (MatchType::PlainExact, SCORE_NEAR_EXACT);
    }
    // The highest of the three similarities, the earlier tier on a tie, capped.
    let mut best = (MatchType::GeneralizedFuzzy, similarity(&q.generalized, &k.generalized));
    for (t, s) in [
        (MatchType::StructuralFuzzy, similarity(&q.structural, &k.structural)),
        (MatchType::PlainFuzzy, similarity(&q.plain, &k.plain)),
    ] {
        if s > best.1 {
            best = (t, s);
        }
    }
    (best.0, best.1.min(SCORE_NEAR_EXACT))
}

/// The lookup of `req` over `entries`, scored exhaustively (docs/matching.md §4).
pub fn reference_lookup(entries: &[Entry], req: &LookupRequest) -> Vec<RefMatch> {
    let q = Keys::of(&req.source);
    let mut scored: Vec<Scored> = Vec::new();
    for e in entries {
        // The target variant nearest the locale asked for (equal, then a subtag prefix,
        // then another region of the language).
        let Some((ti, tfit)) = e.lookup_variant(&req.target_locale) else { continue };
        // Every variant serving the source locale other than the target; the best one
        // counts.
        let mut best: Option<(MatchType, f64, usize)> = None;
        for (si, v) in e.variants.iter().enumerate() {
            if si == ti || req.source_locale.fit(&v.locale).is_none() {
                continue;
            }
            let (t, s) = tier(&req.source, &q, &v.runs);
            let better = match best {
                None => true,
                Some((bt, bs, _)) => {
                    if t.is_exact() || bt.is_exact() {
                        t < bt
                    } else {
                        s > bs || (s == bs && t < bt)
                    }
                }
            };
            if better {
                best = Some((t, s, si));
            }
        }
        let Some((match_type, score, si)) = best else { continue };
        // Another region of the language costs its points on each side.
        let region =
            req.source_locale.fit(&e.variants[si].locale).map_or(0, |f| f.penalty()) + tfit.penalty();
        let score = score - f64::from(region) / 100.0;
        let answer = if match_type.is_exact() {
            let positional = match_type != MatchType::PlainExact;
            adapt(&req.source, &e.variants[si].runs, &e.variants[ti].runs, positional).target
        } else {
            Vec::new()
        };
        let surface = |runs: &[Run]| cmem_core::model::run::surface_text(runs).nfc().collect::<String>();
        scored.push(Scored {
            id: e.id,
            identical: surface(&e.variants[si].runs) == surface(&req.source),
            approvals: e.approvals(),
            last_approved: e.last_approved().to_owned(),
            score,
            match_type,
            ambiguous: false,
            point: e.point.clone(),
            answer,
        });
    }

    // Ambiguity among the full-score matches.
    let full: Vec<usize> = (0..scored.len()).filter(|&i| scored[i].score >= 1.0).collect();
    if let Some(&first) = full.first() {
        if full.iter().any(|&i| scored[i].answer != scored[first].answer) {
            match &req.options.point {
                None => {
                    for &i in &full {
                        scored[i].score = SCORE_NEAR_EXACT;
                        scored[i].ambiguous = true;
                    }
                }
                Some(caller) => {
                    let text = |i: usize| flatten_runs(&scored[i].answer);
                    let mut winner = first;
                    for &i in &full[1..] {
                        let ord = nearer_answer(
                            caller,
                            (&scored[i].point, &text(i)),
                            (&scored[winner].point, &text(winner)),
                        )
                        .then(scored[i].id.cmp(&scored[winner].id));
                        if ord == Ordering::Less {
                            winner = i;
                        }
                    }
                    let win = scored[winner].answer.clone();
                    for &i in &full {
                        if scored[i].answer != win {
                            scored[i].score = SCORE_NEAR_EXACT;
                        }
                    }
                }
            }
        }
    }

    scored.retain(|s| s.score + EPSILON >= req.options.threshold);
    // Score, then the evidence: an identical source, more approvals, the newest approval;
    // then the tier and the id.
    scored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.identical.cmp(&a.identical))
            .then(b.approvals.cmp(&a.approvals))
            .then(b.last_approved.cmp(&a.last_approved))
            .then(a.match_type.cmp(&b.match_type))
            .then(a.id.cmp(&b.id))
    });
    scored.truncate(req.options.limit);
    scored
        .into_iter()
        .map(|s| RefMatch { id: s.id, score: s.score, match_type: s.match_type, ambiguous: s.ambiguous })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cmem_core::{parse_notation, EntryId, Locale, LookupOptions, NewEntry, Point, Variant};

    fn entry(id: i64, source: &str, target: &str, point: &str) -> Entry {
        let l = |t: &str| Locale::parse(t).unwrap();
        let mut e = NewEntry::pair(
            Variant::new(l("en"), parse_notation(source).unwrap()),
            Variant::new(l("de"), parse_notation(target).unwrap()),
        );
        e.point = Point::parse(point).unwrap();
        e.into_entry(EntryId(id))
    }

    fn run(entries: &[Entry], query: &str, options: LookupOptions) -> Vec<(i64, f64, MatchType, bool)> {
        let req = LookupRequest::new(
            parse_notation(query).unwrap(),
            Locale::parse("en").unwrap(),
            Locale::parse("de").unwrap(),
        )
        .options(options);
        reference_lookup(entries, &req)
            .into_iter()
            .map(|m| (m.id.0, m.score, m.match_type, m.ambiguous))
            .collect()
    }

    #[test]
    fn tiers_by_hand() {
        let entries = [
            entry(1, "{PERSON:John} works at {ORGANIZATION:Acme}", "x", ""),
            entry(2, "{PERSON:Alice} works at {ORGANIZATION:Globex}", "y", ""),
            entry(3, "{1}{PERSON:Alice} works at {ORGANIZATION:Globex}{/1}", "z", ""),
            entry(4, "{PERSON:Alice} works at {ORGANIZATION:Globex} today", "w", ""),
        ];
        let got = run(&entries, "{PERSON:Alice} works at {ORGANIZATION:Globex}", LookupOptions::default());
        // Entries 1 and 2 score 1.0 with different answers and no point: both demoted.
        // Among the three at 0.99, the sources identical to the query's text come first
        // (entry 3's code has no markup of its own, so its text is the query's too).
        assert_eq!(
            got,
            vec![
                (2, SCORE_NEAR_EXACT, MatchType::StructuralExact, true),
                (3, SCORE_NEAR_EXACT, MatchType::PlainExact, false),
                (1, SCORE_NEAR_EXACT, MatchType::GeneralizedExact, true),
                (4, 1.0 - 6.0 / 38.0, MatchType::GeneralizedFuzzy, false),
            ]
        );
    }

    #[test]
    fn points_threshold_and_limit() {
        let entries = [
            entry(1, "Close", "Zu", "app"),
            entry(2, "Close", "Schließen", "web"),
            entry(3, "Closed", "G", ""),
        ];
        let with_point = LookupOptions::default().point(Point::parse("web/eu").unwrap());
        assert_eq!(
            run(&entries, "Close", with_point),
            vec![
                (2, 1.0, MatchType::StructuralExact, false),
                (1, SCORE_NEAR_EXACT, MatchType::StructuralExact, false),
                (3, 1.0 - 1.0 / 6.0, MatchType::GeneralizedFuzzy, false),
            ]
        );
        assert_eq!(run(&entries, "Close", LookupOptions::default().threshold(1.0)), vec![]);
        assert_eq!(run(&entries, "Close", LookupOptions::default().limit(1)).len(), 1);
    }
}
