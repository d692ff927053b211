//! Rules of adaptation: entities and codes of the query carried into the target.

use super::*;

/// docs/matching.md §5: the target entity code with the stored source entity's id takes the query's
/// value, wherever it stands.
///
/// # Errors
/// What the store got wrong.
pub fn entity_adaptation_in_a_target_code(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[pair("{PERSON:John} met {PERSON:Mary}", "{PERSON:Mary@e2} traf {PERSON:John@e1}")?],
    )?;
    let got = find(&*store, "{PERSON:Alice} met {PERSON:Bob}", opts())?;
    check("reordered", &got, &[want(ids[0], 1.0, GE).target("{PERSON:Bob@e2} traf {PERSON:Alice@e1}")])?;
    let ad: Vec<(&str, &str, &str, bool)> = got[0]
        .entity_adaptations
        .iter()
        .map(|a| (a.from.as_str(), a.to.as_str(), a.target_code_id.as_str(), a.applied))
        .collect();
    ensure_eq!(ad, vec![("John", "Alice", "e1", true), ("Mary", "Bob", "e2", true)], "adaptations");
    ensure!(got[0].adaptation_complete(), "adaptation complete");
    Ok(())
}

/// docs/matching.md §5: a plain-text target with no entity code has the old value replaced when it
/// occurs exactly once.
///
/// # Errors
/// What the store got wrong.
pub fn entity_adaptation_in_plain_text(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(&*store, &[pair("{PERSON:John} works", "John arbeitet")?])?;
    let got = find(&*store, "{PERSON:Alice} works", opts())?;
    check("plain target", &got, &[want(ids[0], 1.0, GE).target("Alice arbeitet")])?;
    ensure!(got[0].adaptation_complete(), "the adaptation is applied: {:?}", got[0].entity_adaptations);
    Ok(())
}

/// docs/matching.md §5: when the value is absent from a plain target, or occurs more than once, the
/// target is left as it was and the adaptation is reported as not applied.
///
/// # Errors
/// What the store got wrong.
pub fn entity_adaptation_not_applied(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair("{PERSON:John} works", "Er arbeitet")?,
            pair("{PERSON:John} sleeps", "John schläft, John träumt")?,
        ],
    )?;
    for (q, id, target) in [
        ("{PERSON:Alice} works", ids[0], "Er arbeitet"),
        ("{PERSON:Alice} sleeps", ids[1], "John schläft, John träumt"),
    ] {
        let got = find(&*store, q, opts())?;
        check(q, &got, &[want(id, 1.0, GE).target(target)])?;
        let flags: Vec<bool> = got[0].entity_adaptations.iter().map(|a| a.applied).collect();
        ensure_eq!(flags, vec![false], "{q}: the adaptation is reported as not applied");
        ensure!(!got[0].adaptation_complete(), "{q}: adaptation_complete() is false");
    }
    Ok(())
}

/// docs/matching.md §5: the query's inline codes replace the stored ones at the same positions (a
/// `<i>` in the query replaces the stored `<b>`).
///
/// # Errors
/// What the store got wrong.
pub fn code_adaptation(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[pair(
            r#"Click {1 type="bold" data="<b>"}here{/1 data="</b>"}"#,
            r#"{1 type="bold" data="<b>"}Hier{/1 data="</b>"} klicken"#,
        )?],
    )?;
    let got = find(&*store, r#"Click {5 type="italic" data="<i>"}here{/5 data="</i>"}"#, opts())?;
    check(
        "<i> for <b>",
        &got,
        &[want(ids[0], 1.0, SE).target(r#"{5 type="italic" data="<i>"}Hier{/5 data="</i>"} klicken"#)],
    )?;
    ensure!(got[0].adaptation_complete(), "code adaptations applied: {:?}", got[0].code_adaptations);
    ensure_eq!(got[0].code_adaptations.len(), 2, "one adaptation per code half");
    // The stored target is kept as stored.
    ensure_eq!(
        to_notation(got[0].target()),
        r#"{1 type="bold" data="<b>"}Hier{/1 data="</b>"} klicken"#,
        "stored target"
    );
    Ok(())
}
