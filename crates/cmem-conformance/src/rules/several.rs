//! Rules of a lookup over several memories (docs/matching.md, "Several memories").

use cmem_core::{lookup_several, SourceRank};

use super::*;

/// Matches of several memories are merged by score after each memory's penalty (listed
/// as a `memory` penalty), then by the memory's priority, then by the evidence; a match
/// its penalty puts under the threshold is left out; the limit holds for the merged list.
///
/// # Errors
/// What the store got wrong.
pub fn several_memories_rank_after_penalties(make: Make<'_>) -> Outcome {
    let (project, client) = (make(), make());
    project.write(&[pair("Save", "Speichern")?])?;
    client.write(&[pair("Save", "Sichern")?, pair("Save the file", "Datei sichern")?])?;
    let req = LookupRequest::new(runs("Save")?, locale("en")?, locale("de")?);
    let names = |got: &[(usize, cmem_core::Match)]| -> Vec<(usize, String)> {
        got.iter().map(|(i, m)| (*i, m.adapted_text())).collect()
    };

    // The client memory's equal match costs its penalty and goes below the project's.
    let sources = [(&*project, SourceRank::new(1)), (&*client, SourceRank::new(2).penalty(5))];
    let got = lookup_several(&sources, &req)?;
    ensure_eq!(
        names(&got),
        vec![(0, "Speichern".to_owned()), (1, "Sichern".to_owned())],
        "the penalized memory's equal match second"
    );
    let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
    ensure!(near(got[1].1.score, 0.95), "100 less 5 points: {:?}", got[1].1.score);
    ensure!(
        got[1].1.penalties.iter().any(|p| p.kind == PenaltyKind::Memory && p.points == 5),
        "the memory penalty listed: {:?}",
        got[1].1.penalties
    );
    ensure!(got[0].1.penalties.is_empty(), "no penalty on the project's match: {:?}", got[0].1.penalties);

    // Without penalties, equal scores go by priority, whatever the order given.
    let sources = [(&*client, SourceRank::new(2)), (&*project, SourceRank::new(1))];
    let got = lookup_several(&sources, &req)?;
    ensure_eq!(
        names(&got).first().cloned(),
        Some((1, "Speichern".to_owned())),
        "equal scores: the lower priority first"
    );

    // A match its penalty puts under the threshold is left out; the limit is the merged list's.
    let strict = req.clone().options(LookupOptions::default().threshold(0.97));
    let sources = [(&*project, SourceRank::new(1)), (&*client, SourceRank::new(2).penalty(5))];
    ensure_eq!(
        names(&lookup_several(&sources, &strict)?),
        vec![(0, "Speichern".to_owned())],
        "under the threshold"
    );
    let one = req.clone().options(LookupOptions::default().limit(1));
    ensure_eq!(
        names(&lookup_several(&sources, &one)?),
        vec![(0, "Speichern".to_owned())],
        "the merged limit"
    );
    Ok(())
}
