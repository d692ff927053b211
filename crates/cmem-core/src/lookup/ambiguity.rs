//! Full-score matches whose adapted targets differ (docs/matching.md §4).

use std::collections::HashMap;

use crate::model::point::{nearer_answer, Point};
use crate::model::run::runs_to_json;

use super::matches::{Match, MatchType, SCORE_NEAR_EXACT};

/// docs/matching.md §4: full-score matches whose adapted targets differ are settled by point, or
/// all demoted and flagged when no point was named.
pub(super) fn settle_ambiguity(matches: &mut [Match], point: Option<&Point>) {
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
