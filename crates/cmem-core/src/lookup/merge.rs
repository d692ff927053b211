//! A lookup over several memories: each looked up on its own, its matches charged the
//! memory's penalty, and the lists merged by score after penalties, then the memory's
//! priority, then the evidence that orders equal scores within one memory
//! (docs/matching.md, "Several memories").

use crate::error::Result;
use crate::index::distance::reaches;
use crate::lookup::{lookup, repair_words_of, LookupRequest, Match, Penalty, PenaltyKind};
use crate::repair::words::RepairBands;
use crate::store::ContentMemory;

/// How one memory of several ranks: its priority (lower first, between equal scores)
/// and the penalty its matches cost, in points (1 point = 1 %).
///
/// ```
/// use cmem_core::SourceRank;
///
/// let client = SourceRank::new(2).penalty(5);
/// assert_eq!((client.priority, client.penalty), (2, 5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SourceRank {
    /// Between matches of equal score (after penalties), the lower priority first.
    pub priority: u32,
    /// Points every match of this memory costs, listed as a `memory` penalty.
    pub penalty: u8,
}

crate::setters!(SourceRank { penalty: u8 });

impl SourceRank {
    /// A memory of priority `priority` without a penalty.
    pub fn new(priority: u32) -> SourceRank {
        SourceRank { priority, penalty: 0 }
    }
}

/// Looks `req` up in every memory of `sources` and merges the answers: each match of a
/// memory with a penalty is charged it (a [`PenaltyKind::Memory`] penalty), a match
/// that falls under the threshold so is left out, and the rest are ordered by score,
/// then by the memory's priority, then by the evidence of one memory's list (identical
/// source, approvals, newest approval, tier, entry id); the first `limit` are kept.
/// Each match comes with the index in `sources` of the memory it came from.
///
/// A memory with a penalty is asked only for what can still reach the threshold after
/// it, and for at most `limit` matches: the penalty lowers its list evenly, so its
/// order, hence its best `limit`, stays its own.
///
/// ```
/// use cmem_core::{lookup_several, ContentMemory, Locale, LookupRequest, MemStore, NewEntry, Run, SourceRank, Variant};
///
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// let pair = |t: &str| NewEntry::pair(Variant::new(en.clone(), vec![Run::text("Save")]), Variant::new(de.clone(), vec![Run::text(t)]));
/// let (project, client) = (MemStore::new(), MemStore::new());
/// project.write(&[pair("Speichern")])?;
/// client.write(&[pair("Sichern")])?;
/// let sources: [(&dyn ContentMemory, SourceRank); 2] =
///     [(&project, SourceRank::new(1)), (&client, SourceRank::new(2).penalty(5))];
/// let req = LookupRequest::new(vec![Run::text("Save")], en.clone(), de.clone());
/// let got = lookup_several(&sources, &req)?;
/// assert_eq!((got[0].0, got[0].1.score), (0, 1.0));
/// assert_eq!(got[1].0, 1);
/// assert!((got[1].1.score - 0.95).abs() < 1e-9);
/// # Ok::<(), cmem_core::Error>(())
/// ```
///
/// # Errors
/// As [`lookup`], from the first memory that fails.
pub fn lookup_several(
    sources: &[(&dyn ContentMemory, SourceRank)],
    req: &LookupRequest,
) -> Result<Vec<(usize, Match)>> {
    let mut lists = Vec::with_capacity(sources.len());
    for (store, rank) in sources {
        let mut own = req.clone();
        // Words are repaired once the merge has chosen, not in lists it cuts (a repair
        // never changes a score, so the merge is the same).
        own.options.word_repair = RepairBands::OFF;
        if rank.penalty > 0 {
            // A score under threshold + penalty cannot reach the threshold once charged;
            // a threshold outside 0–1 is left for `lookup` to refuse.
            let raised = req.options.threshold + f64::from(rank.penalty) / 100.0;
            if (0.0..=1.0).contains(&req.options.threshold) {
                own.options.threshold = raised.min(1.0);
                if !reaches(1.0, raised) {
                    // Nothing of this memory can reach the threshold.
                    lists.push((*rank, Vec::new()));
                    continue;
                }
            }
        }
        lists.push((*rank, lookup(*store, &own)?));
    }
    let merged = merge_ranked(lists, req.options.threshold, req.options.limit);
    let (from, matches): (Vec<usize>, Vec<Match>) = merged.into_iter().unzip();
    let mut slots: Vec<Option<Match>> = matches.into_iter().map(Some).collect();
    for (i, (store, _)) in sources.iter().enumerate() {
        let at: Vec<usize> = (0..from.len()).filter(|&k| from[k] == i).collect();
        if at.is_empty() {
            continue;
        }
        let mut mine: Vec<Match> = at.iter().filter_map(|&k| slots[k].take()).collect();
        repair_words_of(*store, req, &mut mine)?;
        for (k, m) in at.into_iter().zip(mine) {
            slots[k] = Some(m);
        }
    }
    Ok(from.into_iter().zip(slots).filter_map(|(i, m)| Some((i, m?))).collect())
}

/// Merges ranked lists, one per memory with its [`SourceRank`], as [`lookup_several`]
/// does: penalties charged, matches under `threshold` left out, ordered by score, then
/// priority, then evidence, the first `limit` kept, each with its list's index.
pub fn merge_ranked(
    lists: Vec<(SourceRank, Vec<Match>)>,
    threshold: f64,
    limit: usize,
) -> Vec<(usize, Match)> {
    let mut all: Vec<(usize, u32, Match)> = Vec::new();
    for (i, (rank, matches)) in lists.into_iter().enumerate() {
        for mut m in matches {
            if rank.penalty > 0 {
                m.charge(Penalty { kind: PenaltyKind::Memory, points: rank.penalty });
                if !reaches(m.score, threshold) {
                    continue;
                }
            }
            all.push((i, rank.priority, m));
        }
    }
    all.sort_by(|a, b| {
        b.2.score.total_cmp(&a.2.score).then(a.1.cmp(&b.1)).then_with(|| a.2.rank(&b.2)).then(a.0.cmp(&b.0))
    });
    all.truncate(limit);
    all.into_iter().map(|(i, _, m)| (i, m)).collect()
}
