//! Rules of ambiguous answers and of the point that settles them.

use super::*;

/// docs/matching.md §4: differing full-score answers with no point named are all demoted to 0.99
/// and flagged ambiguous.
///
/// # Errors
/// What the store got wrong.
pub fn ambiguity_without_a_point(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[pair("Close", "Zumachen")?, pair("Close", "Schließen")?, pair("Closed", "Geschlossen")?],
    )?;
    check(
        "no point",
        &find(&*store, "Close", opts())?,
        &[
            want(ids[0], SCORE_NEAR_EXACT, SE).ambiguous().target("Zumachen"),
            want(ids[1], SCORE_NEAR_EXACT, SE).ambiguous().target("Schließen"),
            want(ids[2], 1.0 - 1.0 / 6.0, GF),
        ],
    )?;
    check("exact-only consumers skip them", &find(&*store, "Close", opts().threshold(1.0))?, &[])?;
    Ok(())
}

/// docs/matching.md §4: with a point, the answer nearest the caller keeps 1.0; the others that
/// differ from it demote to 0.99, and nothing is flagged ambiguous.
///
/// # Errors
/// What the store got wrong.
pub fn ambiguity_settled_by_the_point(make: Make<'_>) -> Outcome {
    let store = make();
    let mut entries = vec![
        pair("Close", "Schließen")?,
        pair("Close", "Zumachen")?,
        pair("Close", "Beenden")?,
        pair("Close", "Schließen")?,
    ];
    for (e, p) in entries.iter_mut().zip(["web/eu", "app", "web", "app/ios"]) {
        e.point = point(p)?;
    }
    let ids = write_each(&*store, &entries)?;
    // From web/eu/docs: web/eu is 1 away, web 2, app 4, app/ios 5. Entry 4 says what the
    // winner says, so it keeps 1.0 too.
    check(
        "caller web/eu/docs",
        &find(&*store, "Close", opts().point(point("web/eu/docs")?))?,
        &[
            want(ids[0], 1.0, SE).target("Schließen"),
            want(ids[3], 1.0, SE).target("Schließen"),
            want(ids[1], SCORE_NEAR_EXACT, SE).target("Zumachen"),
            want(ids[2], SCORE_NEAR_EXACT, SE).target("Beenden"),
        ],
    )?;
    check(
        "caller app",
        &find(&*store, "Close", opts().point(point("app")?))?,
        &[
            want(ids[1], 1.0, SE),
            want(ids[0], SCORE_NEAR_EXACT, SE),
            want(ids[2], SCORE_NEAR_EXACT, SE),
            want(ids[3], SCORE_NEAR_EXACT, SE),
        ],
    )?;
    Ok(())
}

/// docs/matching.md §4: at equal distance the smaller target text (byte order of its plain key)
/// wins.
///
/// # Errors
/// What the store got wrong.
pub fn point_tie_goes_to_the_smaller_target(make: Make<'_>) -> Outcome {
    let store = make();
    let mut entries = vec![pair("Close", "apfel")?, pair("Close", "Zumachen")?, pair("Close", "Schließen")?];
    for (e, p) in entries.iter_mut().zip(["web", "app", "docs"]) {
        e.point = point(p)?;
    }
    let ids = write_each(&*store, &entries)?;
    // From "shop" all three are 2 away; byte order puts "Schließen" < "Zumachen" <
    // "apfel" (upper case before lower case: not a locale's collation).
    check(
        "tie",
        &find(&*store, "Close", opts().point(point("shop")?))?,
        &[want(ids[2], 1.0, SE), want(ids[0], SCORE_NEAR_EXACT, SE), want(ids[1], SCORE_NEAR_EXACT, SE)],
    )?;
    // The root is a point too: 1 away from each.
    check(
        "root caller",
        &find(&*store, "Close", opts().point(point("")?))?,
        &[want(ids[2], 1.0, SE), want(ids[0], SCORE_NEAR_EXACT, SE), want(ids[1], SCORE_NEAR_EXACT, SE)],
    )?;
    Ok(())
}

/// docs/matching.md §4: full-score matches whose adapted targets agree are not ambiguous.
///
/// # Errors
/// What the store got wrong.
pub fn equal_answers_are_not_ambiguous(make: Make<'_>) -> Outcome {
    let store = make();
    let mut a = pair("Close", "Schließen")?;
    a.point = point("web")?;
    let mut b = pair("Close", "Schließen")?;
    b.point = point("app")?;
    let ids = write_each(
        &*store,
        &[
            a,
            b,
            pair("{PERSON:John} works", "{PERSON:John} arbeitet")?,
            pair("{PERSON:Bob} works", "{PERSON:Bob} arbeitet")?,
        ],
    )?;
    check("same target", &find(&*store, "Close", opts())?, &[want(ids[0], 1.0, SE), want(ids[1], 1.0, SE)])?;
    // The stored targets differ, the adapted ones do not.
    check(
        "same adapted target",
        &find(&*store, "{PERSON:Alice} works", opts())?,
        &[
            want(ids[2], 1.0, GE).target("{PERSON:Alice} arbeitet"),
            want(ids[3], 1.0, GE).target("{PERSON:Alice} arbeitet"),
        ],
    )?;
    Ok(())
}
