//! Rules of the match tiers, their scores, the threshold, the limit and the order.

use super::*;

/// docs/matching.md §4 tier 1: equal generalized keys and some entity value differs: 1.0.
///
/// # Errors
/// What the store got wrong.
pub fn tier_generalized_exact(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[pair(
            "{PERSON:John} works at {ORGANIZATION:Acme}",
            "{PERSON:John} arbeitet bei {ORGANIZATION:Acme}",
        )?],
    )?;
    let got = find(&*store, "{PERSON:Alice} works at {ORGANIZATION:Globex}", opts())?;
    check(
        "generalized exact",
        &got,
        &[want(ids[0], 1.0, GE).target("{PERSON:Alice} arbeitet bei {ORGANIZATION:Globex}")],
    )?;
    let m = &got[0];
    let pairs: Vec<(&str, &str, &str, bool)> = m
        .entity_adaptations
        .iter()
        .map(|a| (a.entity_type.as_str(), a.from.as_str(), a.to.as_str(), a.applied))
        .collect();
    ensure_eq!(
        pairs,
        vec![("PERSON", "John", "Alice", true), ("ORGANIZATION", "Acme", "Globex", true)],
        "entity adaptations"
    );
    // Only one entity differs: still tier 1.
    let got = find(&*store, "{PERSON:John} works at {ORGANIZATION:Globex}", opts())?;
    check("one entity differs", &got, &[want(ids[0], 1.0, GE)])?;
    Ok(())
}

/// docs/matching.md §4 tier 2: equal structural keys, no entity value differs: 1.0.
///
/// # Errors
/// What the store got wrong.
pub fn tier_structural_exact(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair(
                r#"Click {1 data="<b>"}here{/1 data="</b>"} to open {2/ equiv="%s" data="%s"}"#,
                r#"Klicken Sie {1 data="<b>"}hier{/1 data="</b>"}, um {2/ equiv="%s" data="%s"} zu öffnen"#,
            )?,
            pair("Open the file", "Datei öffnen")?,
            pair("{PERSON:John} works", "{PERSON:John} arbeitet")?,
        ],
    )?;
    let q = r#"Click {1 data="<b>"}here{/1 data="</b>"} to open {2/ equiv="%s" data="%s"}"#;
    check(
        "codes",
        &find(&*store, q, opts())?,
        &[want(ids[0], 1.0, SE).target(
            r#"Klicken Sie {1 data="<b>"}hier{/1 data="</b>"}, um {2/ equiv="%s" data="%s"} zu öffnen"#,
        )],
    )?;
    check(
        "text only",
        &find(&*store, "Open the file", opts())?,
        &[want(ids[1], 1.0, SE).target("Datei öffnen")],
    )?;
    // White space is normalized in keys.
    // Equal keys, white space that differs: one point less (a penalty, not a new tier).
    check("white space", &find(&*store, "  Open\tthe   file ", opts())?, &[want(ids[1], 0.99, SE)])?;
    check(
        "same entities",
        &find(&*store, "{PERSON:John} works", opts())?,
        &[want(ids[2], 1.0, SE).target("{PERSON:John} arbeitet")],
    )?;
    Ok(())
}

/// docs/matching.md §4 tier 3: equal plain keys, different structure: 0.99, and the filled target
/// follows the query's codes.
///
/// # Errors
/// What the store got wrong.
pub fn tier_plain_exact_is_the_tag_mismatch_penalty(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair(
                r#"Click {1 data="<b>"}here{/1 data="</b>"}"#,
                r#"{1 data="<b>"}Hier{/1 data="</b>"} klicken"#,
            )?,
            pair("Save the document", "Dokument speichern")?,
        ],
    )?;
    check(
        "codes dropped",
        &find(&*store, "Click here", opts())?,
        &[want(ids[0], SCORE_NEAR_EXACT, PE).target("Hier klicken")],
    )?;
    check(
        "codes added",
        &find(&*store, r#"Save the {1 data="<i>"}document{/1 data="</i>"}"#, opts())?,
        &[want(ids[1], SCORE_NEAR_EXACT, PE)],
    )?;
    Ok(())
}

/// docs/matching.md §4 tier 4: the generalized keys are the most similar.
///
/// # Errors
/// What the store got wrong.
pub fn tier_generalized_fuzzy(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[pair(
            "{PERSON:John} works at {ORGANIZATION:Acme} today",
            "{PERSON:John} arbeitet heute bei {ORGANIZATION:Acme}",
        )?],
    )?;
    // Generalized keys `{PERSON} works at {ORGANIZATION}` (32 characters) and the same
    // with " today" (38): 6 edits.
    check(
        "generalized fuzzy",
        &find(&*store, "{PERSON:Alice} works at {ORGANIZATION:Globex}", opts())?,
        &[want(ids[0], 1.0 - 6.0 / 38.0, GF)
            .target("{PERSON:Alice} arbeitet heute bei {ORGANIZATION:Globex}")],
    )?;
    // A text-only near miss: its three keys are one, so the earliest tier labels it.
    let ids2 = write_each(&*store, &[pair("Open the file", "Datei öffnen")?])?;
    check("text only", &find(&*store, "Open the files", opts())?, &[want(ids2[0], 1.0 - 1.0 / 14.0, GF)])?;
    Ok(())
}

/// docs/matching.md §4 tier 5: the structural keys are the most similar.
///
/// # Errors
/// What the store got wrong.
pub fn tier_structural_fuzzy(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[pair("{PERSON:John} opened {1}the file{/1}", "{PERSON:John} öffnete {1}die Datei{/1}")?],
    )?;
    // Structural `{1/} opened {2}the files{/2}` (28) is one edit from the stored key;
    // the generalized keys differ in the entity type, the plain keys in its value.
    check(
        "structural fuzzy",
        &find(&*store, "{ORGANIZATION:Acme} opened {1}the files{/1}", opts())?,
        &[want(ids[0], 1.0 - 1.0 / 28.0, SF)],
    )?;
    Ok(())
}

/// docs/matching.md §4 tier 6: the plain keys are the most similar.
///
/// # Errors
/// What the store got wrong.
pub fn tier_plain_fuzzy(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(&*store, &[pair("Open the file", "Datei öffnen")?])?;
    // Plain `Open the files` (14) is one edit away; `Open {1}the{/1} files` is eight.
    check(
        "plain fuzzy",
        &find(&*store, "Open {1}the{/1} files", opts())?,
        &[want(ids[0], 1.0 - 1.0 / 14.0, PF).target("Datei öffnen")],
    )?;
    Ok(())
}

/// docs/matching.md §4: tier 2 needs "no entity value differs". A query whose entity has another
/// type and value shares the structural key but is not an exact match (its answer would
/// name the stored entity): it scores as fuzzy, capped at 0.99.
///
/// # Errors
/// What the store got wrong.
pub fn changed_entity_type_is_not_exact(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(&*store, &[pair("{PERSON:John} works", "{PERSON:John} arbeitet")?])?;
    check(
        "other type and value",
        &find(&*store, "{ORGANIZATION:Acme} works", opts())?,
        &[want(ids[0], SCORE_NEAR_EXACT, SF).target("{PERSON:John} arbeitet")],
    )?;
    Ok(())
}

/// docs/matching.md §4: fuzzy scores are capped at 0.99, below every full-score exact match.
///
/// # Errors
/// What the store got wrong.
pub fn fuzzy_scores_are_capped(make: Make<'_>) -> Outcome {
    let store = make();
    let long = "Select the files you want to keep, then press the button at the bottom of the window \
                to move them into the archive folder that you chose when you set up the application";
    let ids = write_each(&*store, &[pair(long, "Lang")?])?;
    let query = long.replace("archive", "archives");
    let got = find(&*store, &query, opts())?;
    check("one edit in a long text", &got, &[want(ids[0], SCORE_NEAR_EXACT, GF)])?;
    Ok(())
}

/// docs/matching.md §4: a match is returned when its score ≥ the threshold; the threshold must lie
/// in 0–1.
///
/// # Errors
/// What the store got wrong.
pub fn threshold(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[pair("abcd", "A")?, pair("Open the file", "Datei öffnen")?, pair("Close {1}it{/1}", "Schließen")?],
    )?;
    // "abcx" against "abcd": exactly 0.75.
    check("on the threshold", &find(&*store, "abcx", opts().threshold(0.75))?, &[want(ids[0], 0.75, GF)])?;
    check("above the score", &find(&*store, "abcx", opts().threshold(0.76))?, &[])?;
    let sim = 1.0 - 1.0 / 14.0;
    check("0.92", &find(&*store, "Open the files", opts().threshold(0.92))?, &[want(ids[1], sim, GF)])?;
    check("0.93", &find(&*store, "Open the files", opts().threshold(0.93))?, &[])?;
    // Threshold 1.0 keeps full-score matches only.
    check("exact at 1.0", &find(&*store, "Open the file", opts().threshold(1.0))?, &[want(ids[1], 1.0, SE)])?;
    check("tag mismatch at 1.0", &find(&*store, "Close it", opts().threshold(1.0))?, &[])?;
    // Threshold 0: every entry of the locale pair is a match, however far.
    check(
        "threshold 0",
        &find(&*store, "zzzz", opts().threshold(0.0))?,
        &[want(ids[0], 0.0, GF), want(ids[1], 0.0, GF), want(ids[2], 0.0, GF)],
    )?;
    for bad in [1.5, -0.1, f64::NAN] {
        let req =
            LookupRequest::new(runs("abcd")?, locale("en")?, locale("de")?).options(opts().threshold(bad));
        match cmem_core::lookup(&*store, &req) {
            Err(e) => ensure_eq!(e.kind(), ErrorKind::InvalidQuery, "threshold {bad}"),
            Ok(m) => return Err(Failure::new(format!("threshold {bad} accepted, {} matches", m.len()))),
        }
    }
    Ok(())
}

/// docs/matching.md §4: results are cut to `limit`, best first.
///
/// # Errors
/// What the store got wrong.
pub fn limit(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair("Delete the selected rows now", "1")?,
            pair("Delete the selected row", "2")?,
            pair("Delete the selected rows", "3")?,
            pair("Delete the selected items", "4")?,
            pair("Delete selected rows", "5")?,
        ],
    )?;
    let q = "Delete the selected rows";
    let all = find(&*store, q, opts().threshold(0.5))?;
    // 1.0 exact; one edit of 24; "Delete selected rows" four of 24; " now" four of 28;
    // "items" vs "rows" four of 25.
    let full = [
        want(ids[2], 1.0, SE),
        want(ids[1], 1.0 - 1.0 / 24.0, GF),
        want(ids[0], 1.0 - 4.0 / 28.0, GF),
        want(ids[3], 1.0 - 4.0 / 25.0, GF),
        want(ids[4], 1.0 - 4.0 / 24.0, GF),
    ];
    check("no limit", &all, &full)?;
    for n in [1, 2, 3, 4] {
        check(&format!("limit {n}"), &find(&*store, q, opts().threshold(0.5).limit(n))?, &full[..n])?;
    }
    check("limit 0", &find(&*store, q, opts().limit(0))?, &[])?;
    Ok(())
}

/// docs/matching.md §4: results are ordered by (score desc, match-type number asc, entry id asc).
///
/// # Errors
/// What the store got wrong.
pub fn ordering_by_score_tier_and_id(make: Make<'_>) -> Outcome {
    let store = make();
    // Written so that id order differs from the expected order.
    let ids = write_each(
        &*store,
        &[
            pair("Delete {1}the selected item{/1}", "PF")?,
            pair("Delete the selected itemz", "GF-a")?,
            pair("Delete {1}the{/1} selected items", "PE")?,
            pair("Delete the selected item", "GF-b")?,
            pair("Delete the selected items", "SE")?,
        ],
    )?;
    let sim = 1.0 - 1.0 / 25.0;
    check(
        "ordering",
        &find(&*store, "Delete the selected items", opts())?,
        &[
            want(ids[4], 1.0, SE),
            want(ids[2], SCORE_NEAR_EXACT, PE),
            want(ids[1], sim, GF),
            want(ids[3], sim, GF),
            want(ids[0], sim, PF),
        ],
    )?;
    // A capped fuzzy match ties a tag mismatch on 0.99; the exact tier comes first even
    // with the larger id.
    let long = "Move the selected files into the archive folder that you chose when you first set up the \
                application on this computer last week";
    let ids2 = write_each(
        &*store,
        &[
            pair(&long.replace("week", "weeks"), "fuzzy")?,
            pair(&long.replacen("Move", "{1}Move{/1}", 1), "tags")?,
        ],
    )?;
    check(
        "capped fuzzy after tag mismatch",
        &find(&*store, long, opts())?,
        &[want(ids2[1], SCORE_NEAR_EXACT, PE), want(ids2[0], SCORE_NEAR_EXACT, GF)],
    )?;
    Ok(())
}
