//! Rules of context matches (101 %) and of penalties by attribute (docs/matching.md §4).

use cmem_core::{AttributePenalty, QueryContext, CONTEXT_POST, CONTEXT_PRE};

use super::*;

fn with_context(source: &str, target: &str, unit: &str, pre: &str, post: &str) -> Result<NewEntry, Failure> {
    let mut e = pair(source, target)?;
    e.unit = unit.to_owned();
    e.metadata = vec![(CONTEXT_PRE.to_owned(), pre.to_owned()), (CONTEXT_POST.to_owned(), post.to_owned())];
    Ok(e)
}

fn ask(
    store: &dyn ContentMemory,
    source: &str,
    context: QueryContext,
) -> Result<Vec<cmem_core::Match>, Failure> {
    let req = LookupRequest::new(runs(source)?, locale("en")?, locale("de")?).context(context);
    Ok(cmem_core::lookup(store, &req)?)
}

fn neighbours(pre: &str, post: &str) -> QueryContext {
    QueryContext { key: String::new(), pre: Some(pre.to_owned()), post: Some(post.to_owned()) }
}

/// An exact match stored with the query's unit key, or with its two neighbours, is a
/// context match: its own type, first, and the answer that settles differing exact
/// answers without flagging them ambiguous. Another context, an unknown one, or context
/// matches that disagree leave plain exact matches.
///
/// # Errors
/// What the store got wrong.
pub fn context_matches(make: Make<'_>) -> Outcome {
    // By neighbours: two answers for "Open", the one stored between "File" and "Close" wins.
    let store = make();
    let ids = write_each(
        &*store,
        &[
            with_context("Open", "Öffnen", "", "File", "Close")?,
            with_context("Open", "Offen", "", "Status:", "")?,
        ],
    )?;
    let got = ask(&*store, "Open", neighbours("File", "Close"))?;
    check(
        "neighbours",
        &got,
        &[want(ids[0], 1.0, MatchType::ContextExact).target("Öffnen"), want(ids[1], SCORE_NEAR_EXACT, SE)],
    )?;
    ensure!(!got.iter().any(|m| m.ambiguous), "a context settles the answer: {got:?}");
    // One neighbour differs: no context, the two answers are ambiguous.
    let got = ask(&*store, "Open", neighbours("File", "Quit"))?;
    ensure!(
        got.len() == 2 && got.iter().all(|m| m.ambiguous && m.match_type == SE),
        "other neighbours: ambiguous exact matches: {got:?}"
    );
    // Nothing known about the context: a plain exact match.
    let got = ask(&*store, "Open", QueryContext::default())?;
    ensure!(got.iter().all(|m| m.match_type != MatchType::ContextExact), "no context asked: {got:?}");

    // By unit key, whatever the neighbours.
    let store = make();
    let ids = write_each(
        &*store,
        &[
            with_context("May", "Mai", "month", "April", "June")?,
            with_context("May", "Darf", "verb", "You", "go")?,
        ],
    )?;
    let ctx = QueryContext { key: "verb".into(), pre: Some("We".into()), post: Some("stay".into()) };
    let got = ask(&*store, "May", ctx)?;
    check(
        "unit key",
        &got,
        &[want(ids[1], 1.0, MatchType::ContextExact).target("Darf"), want(ids[0], SCORE_NEAR_EXACT, SE)],
    )?;
    // Two context matches that disagree (one by key, one by neighbours) are none: the
    // answers are ambiguous as without context.
    let ctx = QueryContext { key: "verb".into(), pre: Some("April".into()), post: Some("June".into()) };
    let got = ask(&*store, "May", ctx)?;
    ensure!(
        got.len() == 2 && got.iter().all(|m| m.ambiguous && m.match_type == SE),
        "disagreeing contexts: ambiguous exact matches: {got:?}"
    );

    // Equal answers: the context match ranks above the plain exact one despite fewer
    // approvals. (An entry equal in text, point and unit is the same entry, whatever its
    // neighbours: the context one here was approved elsewhere.)
    let store = make();
    let plain = pair("Save", "Speichern")?;
    let mut placed = with_context("Save", "Speichern", "", "", "Quit")?;
    placed.point = point("docs")?;
    let ids = write_each(&*store, &[plain.clone(), plain, placed])?;
    let got = ask(&*store, "Save", neighbours("", "Quit"))?;
    check("above exact", &got, &[want(ids[2], 1.0, MatchType::ContextExact), want(ids[0], 1.0, SE)])?;
    // A fuzzy match is never a context match.
    let got = ask(&*store, "Save it", neighbours("", "Quit"))?;
    ensure!(got.iter().all(|m| !m.match_type.is_exact()), "fuzzy stays fuzzy: {got:?}");
    Ok(())
}

/// Penalties by attribute take their points off the matches whose entry has the
/// attribute, are listed by kind, and rank the match below an equal one without them;
/// a penalized candidate does not keep a better unpenalized one out of a short list.
///
/// # Errors
/// What the store got wrong.
pub fn attribute_penalties(make: Make<'_>) -> Outcome {
    let store = make();
    let mut mt = pair("Print the page", "Seite drucken")?;
    mt.metadata = vec![("tmx:prop:x-origin".to_owned(), "mt".to_owned())];
    let mut legacy = pair("Print the pages", "Seiten drucken")?;
    legacy.project_id = "legacy".to_owned();
    let human = pair("Print the page now", "Seite jetzt drucken")?;
    let ids = write_each(&*store, &[mt, legacy, human])?;
    let rules: Vec<AttributePenalty> = vec!["origin:mt=30".parse()?, "project:legacy=5".parse()?];
    let options = opts().threshold(0.5).limit(2);
    let mut options_with = options.clone();
    options_with.penalties = rules;
    let req = LookupRequest::new(runs("Print the page")?, locale("en")?, locale("de")?);
    let got = cmem_core::lookup(&*store, &req.clone().options(options_with))?;
    let pages = 1.0 - 1.0 / 15.0 - 0.05;
    let now = 1.0 - 4.0 / 18.0;
    check("penalized", &got, &[want(ids[1], pages, GF), want(ids[2], now, GF)])?;
    ensure_eq!(
        got[0].penalties,
        vec![cmem_core::Penalty { kind: PenaltyKind::Project, points: 5 }],
        "the project penalty listed"
    );
    // Without the rules the machine translation is the exact answer.
    let got = cmem_core::lookup(&*store, &req.options(options.limit(3)))?;
    ensure!(
        got.first().is_some_and(|m| m.entry.id == ids[0] && m.score >= 1.0 && m.penalties.is_empty()),
        "no rules, no penalty: {got:?}"
    );
    let penalized = cmem_core::lookup(&*store, &{
        let mut o = opts().threshold(0.5);
        o.penalties = vec!["origin:MT=20".parse()?];
        LookupRequest::new(runs("Print the page")?, locale("en")?, locale("de")?).options(o)
    })?;
    ensure!(
        penalized.iter().any(|m| m.entry.id == ids[0]
            && (m.score - 0.8).abs() < 1e-9
            && m.penalties == vec![cmem_core::Penalty { kind: PenaltyKind::Origin, points: 20 }]),
        "the exact machine translation at 80: {penalized:?}"
    );
    Ok(())
}
