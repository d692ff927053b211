//! Rules of the evidence that orders equal scores, and of mechanical repairs.

use super::*;
use cmem_core::ContentMemoryExt;

/// Between equal scores the evidence decides: an identical source first, then more
/// approvals, then the newest approval. Text that differs only in white space is not a
/// full score (a one-point penalty, reported).
///
/// # Errors
/// What the store got wrong.
pub fn evidence_orders_equal_scores(make: Make<'_>) -> Outcome {
    let store = make();
    let mut once = pair("Step", "Schwellenwert")?;
    once.origins = vec![origin("calc", "", "2024-05-01T00:00:00Z")];
    let mut twice = pair("Step", "Schritt")?;
    twice.origins = vec![origin("gnumeric", "", "2023-01-01T00:00:00Z")];
    store.write(std::slice::from_ref(&once))?;
    store.write(std::slice::from_ref(&twice))?;
    twice.origins = vec![origin("pretix", "", "2024-01-01T00:00:00Z")];
    store.write(std::slice::from_ref(&twice))?;
    let req = LookupRequest::new(runs("Step")?, locale("en")?, locale("de")?);
    let got = cmem_core::lookup(&*store, &req)?;
    let targets: Vec<String> = got.iter().map(|m| m.adapted_text()).collect();
    ensure_eq!(targets, vec!["Schritt".to_owned(), "Schwellenwert".to_owned()], "answers by approvals");
    ensure!(
        got.iter().all(|m| m.ambiguous && (m.score - SCORE_NEAR_EXACT).abs() < 1e-9),
        "both ambiguous at 0.99"
    );

    // Equal approvals: the newer approval first.
    let store = make();
    let mut old = pair("Save", "Sichern")?;
    old.origins = vec![origin("a", "", "2020-01-01T00:00:00Z")];
    let mut new = pair("Save", "Speichern")?;
    new.origins = vec![origin("b", "", "2025-01-01T00:00:00Z")];
    store.write(&[old, new])?;
    let got = cmem_core::lookup(&*store, &LookupRequest::new(runs("Save")?, locale("en")?, locale("de")?))?;
    ensure_eq!(
        got.first().map(|m| m.adapted_text()),
        Some("Speichern".to_owned()),
        "the newest approval first"
    );

    // White space: the identical source at 1.0 first, the other at 0.99 with its penalty.
    let store = make();
    store.write(&[pair("Open  the file", "Datei öffnen")?, pair("Open the file", "Datei öffnen")?])?;
    let got = cmem_core::lookup(
        &*store,
        &LookupRequest::new(runs("Open the file")?, locale("en")?, locale("de")?),
    )?;
    ensure_eq!(got.len(), 2, "matches");
    ensure!(got[0].identical_source && got[0].score >= 1.0, "the identical source first at 100: {got:?}");
    ensure!(
        (got[1].score - 0.99).abs() < 1e-9
            && got[1].penalties.iter().any(|p| p.kind == cmem_core::PenaltyKind::Whitespace),
        "white space only: 99 with a penalty: {:?}",
        got[1]
    );
    Ok(())
}

/// A fuzzy match whose source differs from the query only mechanically (final
/// punctuation, numbers, marks between the same words) has the same change made in its adapted target, listed as a
/// repair; the score is unchanged.
///
/// # Errors
/// What the store got wrong.
pub fn mechanical_repairs(make: Make<'_>) -> Outcome {
    let store = make();
    store.write(&[
        pair("Access was blocked", "Zugriff gesperrt")?,
        pair("Version 4.2 is out", "Version 4.2 ist da")?,
        pair(
            "Sample Conference Center\nHeidelberg, Germany",
            "Beispiel-Konferenzzentrum\nHeidelberg, Deutschland",
        )?,
    ])?;
    let get = |q: &str| -> Result<Vec<cmem_core::Match>, Failure> {
        Ok(cmem_core::lookup(&*store, &LookupRequest::new(runs(q)?, locale("en")?, locale("de")?))?)
    };
    let got = get("Access was blocked.")?;
    let m = got.first().ok_or_else(|| Failure::new("no match for a changed full stop"))?;
    ensure_eq!(m.adapted_text(), "Zugriff gesperrt.", "the full stop carried over");
    ensure!(m.repairs.iter().any(|r| r.applied), "a repair listed: {:?}", m.repairs);
    ensure!(!m.match_type.is_exact(), "a fuzzy match: {:?} at {}", m.match_type, m.score);
    let got = get("Version 24.2 is out")?;
    let m = got.first().ok_or_else(|| Failure::new("no match for a changed number"))?;
    ensure_eq!(m.adapted_text(), "Version 24.2 ist da", "the number carried over");
    let got = get("Sample Conference Center, Heidelberg, Germany")?;
    let m = got.first().ok_or_else(|| Failure::new("no match for a line break that became a comma"))?;
    ensure_eq!(
        m.adapted_text(),
        "Beispiel-Konferenzzentrum, Heidelberg, Deutschland",
        "the comma placed where the target broke the line"
    );
    Ok(())
}

/// The word repair: with a word model trained over the memory and saved in the store,
/// a fuzzy match whose source changed by a word has that word's translation replaced from
/// the memory's phrase pairs (inside a German compound word too), listed as a `words`
/// repair with its evidence; the score
/// stays the match's, an exact match is never changed, and a store without a model
/// repairs nothing (and does not fail).
///
/// # Errors
/// What the store got wrong.
pub fn word_repair(make: Make<'_>) -> Outcome {
    use cmem_core::align::AlignOptions;
    use cmem_core::repair::words::RepairBands;
    use cmem_core::repair::RepairKind;
    use cmem_core::store::learn::train_store;

    let store = make();
    let (en, de) = (locale("en")?, locale("de")?);
    let memory = [
        ("Open the file", "Datei öffnen"),
        ("Save the file", "Datei speichern"),
        ("Open the folder", "Ordner öffnen"),
        ("Save the folder", "Ordner speichern"),
        ("Delete the file", "Datei löschen"),
        ("Delete the folder", "Ordner löschen"),
        ("Close the window", "Fenster schließen"),
        ("Save the window", "Fenster speichern"),
        ("Print the file", "Datei drucken"),
        ("Payment details", "Zahlungsdetails"),
        ("Payment", "Zahlung"),
        ("details", "Details"),
        ("Event", "Ereignis"),
    ];
    let entries = memory.iter().map(|(s, t)| pair(s, t)).collect::<Result<Vec<_>, _>>()?;
    store.write(&entries)?;
    let ask = |q: &str| -> Result<Vec<cmem_core::Match>, Failure> {
        let req = LookupRequest::new(runs(q)?, en.clone(), de.clone())
            .options(cmem_core::LookupOptions::default().threshold(0.5).word_repair(RepairBands::ALL));
        Ok(cmem_core::lookup(&*store, &req)?)
    };
    let before = ask("Print the folder")?;
    let m = before.first().ok_or_else(|| Failure::new("no match before training"))?;
    ensure_eq!(m.adapted_text(), "Datei drucken", "no model: the stored target");
    ensure!(m.repairs.iter().all(|r| r.kind != RepairKind::Words), "no word repair without a model");

    let opts = AlignOptions::default().tension(None).iterations(10).min_phrase_count(1);
    let (model, report) = train_store(&*store, &en, &de, &opts)?;
    ensure_eq!(report.pairs, memory.len(), "every pair trained on");
    store.save_word_model(&en, &de, std::sync::Arc::new(model))?;
    ensure!(store.word_model(&en, &de)?.is_some(), "the model is kept");

    let after = ask("Print the folder")?;
    let m = after.first().ok_or_else(|| Failure::new("no match after training"))?;
    ensure_eq!(m.adapted_text(), "Ordner drucken", "the changed word repaired");
    let unchanged = (m.score - before[0].score).abs() < 1e-12;
    ensure!(unchanged, "the score unchanged: {} vs {}", m.score, before[0].score);
    let w = m
        .repairs
        .iter()
        .find(|r| r.kind == RepairKind::Words && r.applied)
        .and_then(|r| r.words.as_ref())
        .ok_or_else(|| Failure::new(format!("a words repair listed: {:?}", m.repairs)))?;
    ensure_eq!((w.target_from.as_str(), w.target_to.as_str()), ("Datei", "Ordner"), "the replaced span");
    ensure!(w.evidence.is_some(), "with its evidence");
    let unrepaired = m.unrepaired_target.as_deref().map(cmem_core::model::run::plain_text);
    ensure_eq!(unrepaired.as_deref(), Some("Datei drucken"), "the target before the word repair kept");

    // The query is a stored source: its target as stored.
    let exact = ask("Print the file")?;
    ensure_eq!(exact.first().map(|m| m.adapted_text()), Some("Datei drucken".to_owned()), "exact untouched");
    // Words the memory has no evidence for: left, and said so.
    let m = ask("Print the zebra")?;
    let m = m.first().ok_or_else(|| Failure::new("no match for an unknown word"))?;
    ensure_eq!(m.adapted_text(), "Datei drucken", "nothing to replace it with");
    ensure!(
        m.repairs.iter().any(|r| r.kind == RepairKind::Words && !r.applied),
        "an unapplied words repair: {:?}",
        m.repairs
    );
    // With the words, the query's final mark and a code it adds after its last word.
    let m = ask(r#"Print the folder: {1/ data="%s"}"#)?;
    let m = m.first().ok_or_else(|| Failure::new("no match for a query with a code at its end"))?;
    ensure_eq!(m.adapted_text(), "Ordner drucken: %s", "the words and the query's end: {:?}", m.repairs);
    let m = ask("Print the folder.")?;
    let m = m.first().ok_or_else(|| Failure::new("no match for a query with a final mark"))?;
    ensure_eq!(m.adapted_text(), "Ordner drucken.", "the words and the final mark: {:?}", m.repairs);
    // A German compound that translates the changed word with an unchanged one is rebuilt
    // around the unchanged part.
    let m = ask("Event details")?;
    let m = m.first().ok_or_else(|| Failure::new("no match for a changed compound"))?;
    ensure_eq!(m.adapted_text(), "Ereignisdetails", "the compound rebuilt: {:?}", m.repairs);
    // Off in every band: nothing.
    let req = LookupRequest::new(runs("Print the folder")?, en.clone(), de.clone())
        .options(cmem_core::LookupOptions::default().threshold(0.5).word_repair(RepairBands::OFF));
    let got = cmem_core::lookup(&*store, &req)?;
    ensure_eq!(got.first().map(|m| m.adapted_text()), Some("Datei drucken".to_owned()), "off");
    Ok(())
}
