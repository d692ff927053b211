//! One function per rule of docs/matching.md §3–6. Each takes a maker of fresh, empty stores and
//! returns a [`Failure`] describing the first thing the store got wrong.
//! [`conformance_suite!`](crate::conformance_suite) turns each into a `#[test]`.

use cmem_core::notation::to_notation;
use cmem_core::{
    prior_version_for, ContentMemory, EntryId, ErrorKind, LookupOptions, LookupRequest, MatchType, NewEntry,
    PenaltyKind, Provider, SearchQuery, Variant, VersionQuery, VersionReader, VersionRequest, WriteOutcome,
    SCORE_NEAR_EXACT,
};

use crate::failure::{ensure, ensure_eq, Failure, Outcome};
use crate::fixture::{check, find, find_in, locale, origin, pair, pair_in, point, runs, want, write_each};

/// A maker of fresh, empty stores.
pub type Make<'a> = &'a dyn Fn() -> Box<dyn ContentMemory>;

use MatchType::{
    GeneralizedExact as GE, GeneralizedFuzzy as GF, PlainExact as PE, PlainFuzzy as PF,
    StructuralExact as SE, StructuralFuzzy as SF,
};

fn opts() -> LookupOptions {
    LookupOptions::default()
}

fn reader(store: &dyn ContentMemory) -> Result<&dyn VersionReader, Failure> {
    store
        .version_reader()
        .ok_or_else(|| Failure::new("the store has no VersionReader (docs/matching.md §8 requires one)"))
}

/// docs/matching.md §3: writing an entry equal in locales, runs, point and unit appends an origin.
///
/// # Errors
/// What the store got wrong.
pub fn dedupe_appends_an_origin(make: Make<'_>) -> Outcome {
    let store = make();
    let mut a = pair("Open the file", "Datei öffnen")?;
    a.origins = vec![origin("p1", "f1", "2024-01-01T00:00:00Z")];
    let mut b = a.clone();
    b.origins = vec![origin("p2", "f2", "2024-02-01T00:00:00Z")];
    let first = store.write(std::slice::from_ref(&a))?;
    let again = store.write(std::slice::from_ref(&b))?;
    let (Some(WriteOutcome::Inserted(id)), Some(WriteOutcome::Deduplicated(id2))) =
        (first.first(), again.first())
    else {
        return Err(Failure::new(format!(
            "expected Inserted then Deduplicated, got {first:?} then {again:?}"
        )));
    };
    ensure_eq!(id, id2, "the re-approval names the first entry");
    let stored = store.get(*id)?.ok_or_else(|| Failure::new(format!("entry {id} is gone")))?;
    ensure_eq!(stored.origins, vec![a.origins[0].clone(), b.origins[0].clone()], "origins, oldest first");
    ensure_eq!(stored.approvals(), 2, "approvals after a duplicate write");
    ensure_eq!(stored.last_approved(), "2024-02-01T00:00:00Z", "the newest approval");
    ensure_eq!(store.stats()?.entries, 1, "entries after a duplicate write");
    // A write without origins (most imports) still counts, and brings its own count.
    let mut plain = a.clone();
    plain.origins.clear();
    plain.approvals = 3;
    store.write(std::slice::from_ref(&plain))?;
    let stored = store.get(*id)?.ok_or_else(|| Failure::new(format!("entry {id} is gone")))?;
    ensure_eq!(stored.approvals(), 5, "approvals after a write of three more");
    ensure_eq!(stored.origins.len(), 2, "origins after a write without any");

    // Within one batch, the second copy re-approves the first.
    let mut c = pair("Close the file", "Datei schließen")?;
    c.origins = vec![origin("p1", "", "2024-03-01T00:00:00Z")];
    let mut d = c.clone();
    d.origins = vec![origin("p2", "", "2024-03-02T00:00:00Z")];
    let out = store.write(&[c, d])?;
    ensure!(
        matches!(out.as_slice(), [WriteOutcome::Inserted(x), WriteOutcome::Deduplicated(y)] if x == y),
        "a duplicate within one batch: {out:?}"
    );

    // Point and unit are part of the identity; a different target is a new entry.
    let mut at_point = a.clone();
    at_point.point = point("web")?;
    let mut in_unit = a.clone();
    in_unit.unit = "u1".into();
    let other_target = pair("Open the file", "Öffne die Datei")?;
    let out = store.write(&[at_point, in_unit, other_target])?;
    ensure!(
        out.iter().all(|o| matches!(o, WriteOutcome::Inserted(_))),
        "different point, unit or target must insert: {out:?}"
    );
    ensure_eq!(store.stats()?.entries, 5, "entries at the end");
    Ok(())
}

/// docs/matching.md §3: locales match when equal or one is a subtag prefix of the other, case
/// aside; a lookup falls back to another region of the language (same script) at the
/// region penalty, one point a side.
///
/// # Errors
/// What the store got wrong.
pub fn locale_prefix_rule(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair_in("en-US", "Save", "de-DE", "Speichern (DE)")?,
            pair_in("en", "Save", "de-AT", "Speichern (AT)")?,
            pair_in("en-GB", "Save", "fr", "Enregistrer")?,
            pair_in("de", "Save", "en", "Sichern")?,
        ],
    )?;
    let cases: [(&str, &str, Vec<EntryId>); 7] = [
        ("en", "de", vec![ids[0], ids[1]]),
        ("en-US", "de-DE", vec![ids[0], ids[1]]),
        ("en-us", "DE-de", vec![ids[0], ids[1]]),
        ("en-GB", "de", vec![ids[0], ids[1]]),
        ("en", "de-CH", vec![ids[0], ids[1]]),
        ("en", "fr-CA", vec![ids[2]]),
        ("de-CH", "en", vec![ids[3]]),
    ];
    for (src, tgt, want_ids) in cases {
        let got = find_in(&*store, src, "Save", tgt, opts())?;
        let mut got_ids: Vec<EntryId> = got.iter().map(|m| m.entry.id).collect();
        got_ids.sort();
        ensure_eq!(got_ids, want_ids, "entries found for {src} → {tgt}");
        let (sl, tl) = (locale(src)?, locale(tgt)?);
        for m in &got {
            let (s, t) = (&m.entry.variants[m.source_index].locale, &m.entry.variants[m.target_index].locale);
            let (Some(sf), Some(tf)) = (sl.fit(s), tl.fit(t)) else {
                return Err(Failure::new(format!(
                    "{src} → {tgt}: match {} pairs variants {s} → {t}, which do not serve the lookup",
                    m.entry.id
                )));
            };
            ensure!(
                m.source_index != m.target_index,
                "{src} → {tgt}: match {} uses one variant twice",
                m.entry.id
            );
            let points = sf.penalty() + tf.penalty();
            let full = if m.ambiguous { SCORE_NEAR_EXACT } else { 1.0 };
            let want_score = full - f64::from(points) / 100.0;
            let off = (m.score - want_score).abs() > 1e-9;
            ensure!(
                !off,
                "{src} → {tgt}: match {} ({s} → {t}) scores {}, expected {want_score}",
                m.entry.id,
                m.score
            );
            let charged: u32 = m
                .penalties
                .iter()
                .filter(|p| p.kind == PenaltyKind::Region)
                .map(|p| u32::from(p.points))
                .sum();
            ensure_eq!(
                charged,
                u32::from(points),
                "{src} → {tgt}: region penalty shown with match {}",
                m.entry.id
            );
        }
    }
    // Another script is no fallback: Traditional Chinese does not answer Simplified.
    let zh = write_each(&*store, &[pair_in("en", "Save", "zh-TW", "儲存")?])?;
    ensure!(
        find_in(&*store, "en", "Save", "zh-CN", opts())?.is_empty(),
        "zh-TW entry {} answered zh-CN",
        zh[0]
    );
    ensure_eq!(
        find_in(&*store, "en", "Save", "zh-HK", opts())?.len(),
        1,
        "zh-TW answers zh-HK (both Traditional)"
    );
    Ok(())
}

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

/// The version-chain fixture: unit u1 written three times (the third at point web),
/// then re-approved; another unit; an entry with no unit.
fn version_fixture(store: &dyn ContentMemory) -> Result<Vec<EntryId>, Failure> {
    let mut v1 = pair("Save", "Sichern")?;
    v1.unit = "u1".into();
    v1.origins = vec![origin("p", "f1", "2024-01-01T00:00:00Z")];
    let mut v2 = pair("Save now", "Jetzt sichern")?;
    v2.unit = "u1".into();
    v2.origins = vec![origin("p", "f2", "2024-02-01T00:00:00Z")];
    let mut v3 = pair("Save it now", "Jetzt speichern")?;
    v3.unit = "u1".into();
    v3.point = point("web")?;
    v3.origins = vec![origin("p", "f3", "2024-03-01T00:00:00Z")];
    let mut other = pair("Save", "Speichern")?;
    other.unit = "u2".into();
    other.origins = vec![origin("p", "f1", "2024-05-01T00:00:00Z")];
    let mut seed = pair("Save", "Speichern")?;
    seed.origins = vec![origin("p", "f1", "2024-06-01T00:00:00Z")];
    write_each(store, &[v1, v2, v3, other, seed])
}

fn version_ids(
    reader: &dyn VersionReader,
    q: &VersionQuery,
    exclude: Option<EntryId>,
) -> Result<Vec<(EntryId, String)>, Failure> {
    Ok(reader.versions(q, exclude)?.into_iter().map(|v| (v.entry.id, v.context_fingerprint)).collect())
}

/// docs/matching.md §6: a unit's versions, newest first (by the newest origin), each with the
/// fingerprint of its newest origin.
///
/// # Errors
/// What the store got wrong.
pub fn versions_newest_first(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = version_fixture(&*store)?;
    let r = reader(&*store)?;
    ensure_eq!(
        version_ids(r, &VersionQuery::new("u1"), None)?,
        vec![(ids[2], "f3".to_owned()), (ids[1], "f2".to_owned()), (ids[0], "f1".to_owned())],
        "versions of u1"
    );
    ensure_eq!(
        version_ids(r, &VersionQuery::new("u2"), None)?,
        vec![(ids[3], "f1".to_owned())],
        "versions of u2"
    );
    ensure_eq!(version_ids(r, &VersionQuery::new("nope"), None)?, vec![], "versions of an unknown unit");
    // Re-approving the first version makes it the newest, with its new fingerprint.
    let mut again = pair("Save", "Sichern")?;
    again.unit = "u1".into();
    again.origins = vec![origin("q", "f9", "2024-04-01T00:00:00Z")];
    write_each(&*store, &[again])?;
    ensure_eq!(
        version_ids(r, &VersionQuery::new("u1"), None)?,
        vec![(ids[0], "f9".to_owned()), (ids[2], "f3".to_owned()), (ids[1], "f2".to_owned())],
        "versions of u1 after a re-approval"
    );
    Ok(())
}

/// docs/matching.md §6: a point narrows the chain to that point; the root means every point.
///
/// # Errors
/// What the store got wrong.
pub fn versions_point_narrowing(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = version_fixture(&*store)?;
    let r = reader(&*store)?;
    let ids_of = |q: VersionQuery| -> Result<Vec<EntryId>, Failure> {
        Ok(version_ids(r, &q, None)?.into_iter().map(|(id, _)| id).collect())
    };
    ensure_eq!(ids_of(VersionQuery::new("u1").point(point("web")?))?, vec![ids[2]], "point web");
    ensure_eq!(ids_of(VersionQuery::new("u1").point(point("app")?))?, vec![], "point app");
    ensure_eq!(ids_of(VersionQuery::new("u1").point(point("")?))?, vec![ids[2], ids[1], ids[0]], "the root");
    Ok(())
}

/// docs/matching.md §6: `exclude` leaves the caller's own entry out.
///
/// # Errors
/// What the store got wrong.
pub fn versions_exclude(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = version_fixture(&*store)?;
    let r = reader(&*store)?;
    let got: Vec<EntryId> =
        version_ids(r, &VersionQuery::new("u1"), Some(ids[2]))?.into_iter().map(|v| v.0).collect();
    ensure_eq!(got, vec![ids[1], ids[0]], "excluding the newest");
    let got: Vec<EntryId> =
        version_ids(r, &VersionQuery::new("u1").limit(1), Some(ids[2]))?.into_iter().map(|v| v.0).collect();
    ensure_eq!(got, vec![ids[1]], "excluding the newest, limit 1");
    Ok(())
}

/// docs/matching.md §6: at most `limit` versions, newest first; 0 means 10.
///
/// # Errors
/// What the store got wrong.
pub fn versions_limit(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = version_fixture(&*store)?;
    let r = reader(&*store)?;
    let got: Vec<EntryId> =
        version_ids(r, &VersionQuery::new("u1").limit(2), None)?.into_iter().map(|v| v.0).collect();
    ensure_eq!(got, vec![ids[2], ids[1]], "limit 2");
    let mut many = Vec::new();
    for i in 0..12 {
        let mut e = pair(&format!("Step {i}"), &format!("Schritt {i}"))?;
        e.unit = "long".into();
        e.origins = vec![origin("p", "", &format!("2025-01-{:02}T00:00:00Z", i + 1))];
        many.push(e);
    }
    let long = write_each(&*store, &many)?;
    let got: Vec<EntryId> =
        version_ids(r, &VersionQuery::new("long"), None)?.into_iter().map(|v| v.0).collect();
    let newest_ten: Vec<EntryId> = long.iter().rev().take(10).copied().collect();
    ensure_eq!(got, newest_ten, "limit 0 returns the newest 10");
    Ok(())
}

/// docs/matching.md §6: the unit is required.
///
/// # Errors
/// What the store got wrong.
pub fn versions_empty_unit_is_an_error(make: Make<'_>) -> Outcome {
    let store = make();
    version_fixture(&*store)?;
    let r = reader(&*store)?;
    match r.versions(&VersionQuery::new(""), None) {
        Err(e) => ensure_eq!(e.kind(), ErrorKind::InvalidQuery, "versions with an empty unit"),
        Ok(v) => {
            return Err(Failure::new(format!("versions with an empty unit answered {} versions", v.len())))
        }
    }
    let req = VersionRequest::new("", "f1", locale("en")?, locale("de")?);
    ensure!(prior_version_for(r, &req).is_err(), "prior_version_for with an empty unit must fail");
    ensure!(
        Provider::new(&*store).prior_version(&req).is_err(),
        "Provider::prior_version with an empty unit must fail"
    );
    Ok(())
}

/// docs/matching.md §6: `prior_version_for` asks with limit 1 and returns the newest version's
/// texts only when its fingerprint equals the caller's, both non-empty.
///
/// # Errors
/// What the store got wrong.
pub fn prior_version_fingerprint_gate(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = version_fixture(&*store)?;
    let r = reader(&*store)?;
    let ask = |fp: &str| -> Result<Option<(EntryId, String, String)>, Failure> {
        let req = VersionRequest::new("u1", fp, locale("en")?, locale("de")?);
        Ok(prior_version_for(r, &req)?.map(|p| (p.entry_id, p.source, p.target)))
    };
    ensure_eq!(
        ask("f3")?,
        Some((ids[2], "Save it now".to_owned(), "Jetzt speichern".to_owned())),
        "the newest version's own fingerprint"
    );
    ensure_eq!(ask("f2")?, None, "an older version's fingerprint does not open the gate");
    ensure_eq!(ask("")?, None, "an empty fingerprint never opens the gate");
    // Narrowed to a point, or with the newest excluded, the next version answers.
    let mut req = VersionRequest::new("u1", "f2", locale("en")?, locale("de")?);
    req.exclude = Some(ids[2]);
    ensure_eq!(
        prior_version_for(r, &req)?.map(|p| p.entry_id),
        Some(ids[1]),
        "excluding the newest, fingerprint f2"
    );
    let mut req = VersionRequest::new("u1", "f3", locale("en")?, locale("de")?);
    req.point = point("web")?;
    ensure_eq!(prior_version_for(r, &req)?.map(|p| p.entry_id), Some(ids[2]), "narrowed to web");
    // An ungoverned newest version (empty fingerprint) answers nobody.
    let mut loose = pair("Save all", "Alles sichern")?;
    loose.unit = "u1".into();
    loose.origins = vec![origin("p", "", "2024-12-01T00:00:00Z")];
    write_each(&*store, &[loose])?;
    ensure_eq!(ask("f3")?, None, "the newest version is ungoverned");
    Ok(())
}

/// A store that hides its version reader, for the provider's "nothing" answer.
struct NoVersions(Box<dyn ContentMemory>);

impl ContentMemory for NoVersions {
    fn write(&self, entries: &[NewEntry]) -> cmem_core::Result<Vec<WriteOutcome>> {
        self.0.write(entries)
    }
    fn begin(&self) -> cmem_core::Result<Box<dyn cmem_core::WriteSession + '_>> {
        self.0.begin()
    }
    fn get(&self, id: EntryId) -> cmem_core::Result<Option<cmem_core::Entry>> {
        self.0.get(id)
    }
    fn delete(&self, id: EntryId) -> cmem_core::Result<bool> {
        self.0.delete(id)
    }
    fn entries(&self, after: Option<EntryId>, limit: usize) -> cmem_core::Result<Vec<cmem_core::Entry>> {
        self.0.entries(after, limit)
    }
    fn exact(&self, q: &cmem_core::ExactQuery<'_>) -> cmem_core::Result<Vec<cmem_core::Entry>> {
        self.0.exact(q)
    }
    fn candidates(
        &self,
        q: &cmem_core::CandidateQuery<'_>,
        sink: &mut dyn cmem_core::CandidateSink,
    ) -> cmem_core::Result<()> {
        self.0.candidates(q, sink)
    }
    fn search(&self, q: &SearchQuery) -> cmem_core::Result<Vec<cmem_core::SearchHit>> {
        self.0.search(q)
    }
    fn stats(&self) -> cmem_core::Result<cmem_core::Stats> {
        self.0.stats()
    }
}

/// docs/matching.md §6: `Provider` answers lookups and prior versions over the store, and nothing
/// for a store without a version reader, which `supports_versions` tells apart.
///
/// # Errors
/// What the store got wrong.
pub fn provider_prior_version(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = version_fixture(&*store)?;
    let provider = Provider::new(&*store);
    let req = VersionRequest::new("u1", "f3", locale("en")?, locale("de")?);
    let got = provider.prior_version(&req)?.map(|p| (p.entry_id, p.source, p.target));
    ensure_eq!(got, Some((ids[2], "Save it now".to_owned(), "Jetzt speichern".to_owned())), "provider, f3");
    let req = VersionRequest::new("u1", "f1", locale("en")?, locale("de")?);
    ensure_eq!(provider.prior_version(&req)?.map(|p| p.entry_id), None, "provider, f1 is not the newest");
    let matches = provider.lookup(&LookupRequest::new(runs("Save now")?, locale("en")?, locale("de")?))?;
    ensure_eq!(matches.first().map(|m| (m.entry.id, m.score)), Some((ids[1], 1.0)), "provider lookup");

    let hidden = NoVersions(make());
    version_fixture(&hidden)?;
    let req = VersionRequest::new("u1", "f3", locale("en")?, locale("de")?);
    ensure_eq!(Provider::new(&hidden).prior_version(&req)?.map(|p| p.entry_id), None, "no version reader");
    ensure_eq!(
        (provider.supports_versions(), Provider::new(&hidden).supports_versions()),
        (true, false),
        "supports_versions tells a store without chains apart"
    );
    Ok(())
}

/// docs/matching.md §3–4: a deleted entry is gone from every tier, from `get`, `entries`, search,
/// stats and version chains.
///
/// # Errors
/// What the store got wrong.
pub fn delete_removes_from_every_tier(make: Make<'_>) -> Outcome {
    let store = make();
    let mut gone = pair("{PERSON:John} opened {1}the file{/1}", "{PERSON:John} öffnete {1}die Datei{/1}")?;
    gone.unit = "u1".into();
    let mut kept = pair("Something else entirely", "Etwas ganz anderes")?;
    kept.unit = "u1".into();
    let ids = write_each(&*store, &[gone, kept])?;
    let queries = [
        ("{PERSON:Alice} opened {1}the file{/1}", GE),
        ("{PERSON:John} opened {1}the file{/1}", SE),
        ("{PERSON:John} opened the file", PE),
        ("{PERSON:Alice} opened {1}the files{/1}", GF),
        ("{ORGANIZATION:Acme} opened {1}the files{/1}", SF),
        ("{PERSON:John} opened {1}the{/1} files", PF),
    ];
    for (q, t) in queries {
        let got = find(&*store, q, opts())?;
        ensure!(
            got.first().is_some_and(|m| m.entry.id == ids[0] && m.match_type == t),
            "before the delete, {q:?} finds entry {} as {t}:\n{}",
            ids[0],
            crate::fixture::describe(&got)
        );
    }
    ensure!(store.delete(ids[0])?, "delete answers true for an existing entry");
    ensure!(!store.delete(ids[0])?, "a second delete answers false");
    for (q, _) in queries {
        let got = find(&*store, q, opts().threshold(0.0))?;
        ensure!(
            got.iter().all(|m| m.entry.id != ids[0]),
            "after the delete, {q:?} still finds it:\n{}",
            crate::fixture::describe(&got)
        );
    }
    ensure!(store.get(ids[0])?.is_none(), "get after delete");
    let all: Vec<EntryId> = store.entries(None, 100)?.into_iter().map(|e| e.id).collect();
    ensure_eq!(all, vec![ids[1]], "entries after delete");
    ensure!(store.search(&SearchQuery::new("opened", locale("en")?))?.is_empty(), "search after delete");
    ensure_eq!(store.stats()?.entries, 1, "stats after delete");
    let versions: Vec<EntryId> =
        reader(&*store)?.versions(&VersionQuery::new("u1"), None)?.into_iter().map(|v| v.entry.id).collect();
    ensure_eq!(versions, vec![ids[1]], "versions after delete");
    // The same entry written again is a new entry.
    let again = write_each(&*store, &[pair("{PERSON:John} opened {1}the file{/1}", "x")?])?;
    ensure!(again[0] != ids[0], "a rewritten entry gets a new id");
    Ok(())
}

/// `replace` keeps the id and swaps the entry's content at once: every tier, search,
/// version chain and count sees the new text and never the old; origins are kept and
/// extended, approvals are the replacement's; a missing id answers false; a replace
/// that fails (an invalid entry, one equal to another entry) leaves the old entry; in a
/// session it behaves as a write does (visible at commit, gone with a dropped session,
/// seen by the session's own deduplication).
///
/// # Errors
/// What the store got wrong.
pub fn replace_keeps_the_id(make: Make<'_>) -> Outcome {
    let store = make();
    let mut old = pair("Open the {1}file{/1}", "{1}Datei{/1} öffnen")?;
    old.unit = "u1".into();
    old.approvals = 4;
    old.origins = vec![origin("p1", "f1", "2024-01-01T00:00:00Z")];
    let other = pair("Close the window", "Fenster schließen")?;
    let ids = write_each(&*store, &[old.clone(), other.clone()])?;
    let (id, other_id) = (ids[0], ids[1]);
    let before = store.stats()?;

    let mut new = pair("Save the document", "Dokument speichern")?;
    new.unit = "u1".into();
    new.project_id = "p2".into();
    new.origins = vec![origin("p2", "", "2024-05-01T00:00:00Z"), old.origins[0].clone()];
    new.metadata = vec![("note".into(), "edited".into())];
    ensure!(store.replace(id, &new)?, "replace answers true for an existing entry");
    let got = store.get(id)?.ok_or_else(|| Failure::new(format!("entry {id} is gone after a replace")))?;
    ensure_eq!(got.variants, new.variants, "the replaced variants");
    ensure_eq!((got.unit.as_str(), got.project_id.as_str()), ("u1", "p2"), "unit and project");
    ensure_eq!(got.metadata, new.metadata, "metadata");
    ensure_eq!(
        got.origins,
        vec![old.origins[0].clone(), new.origins[0].clone()],
        "origins: the stored ones kept, the new one appended once"
    );
    ensure_eq!(got.approvals(), 1, "approvals are the replacement's (0 read as 1)");
    let after = store.stats()?;
    ensure_eq!((after.entries, after.variants), (before.entries, before.variants), "counts after a replace");
    let all: Vec<EntryId> = store.entries(None, 10)?.into_iter().map(|e| e.id).collect();
    ensure_eq!(all, vec![id, other_id], "entries after a replace");

    // The old text is gone from every tier; the new one is found, under the same id.
    for q in ["Open the {1}file{/1}", "Open the file", "Open the {1}files{/1}"] {
        let got = find(&*store, q, opts().threshold(0.0))?;
        ensure!(
            got.iter().all(|m| m.entry.id != id || m.entry.variants == new.variants),
            "after the replace, {q:?} still finds the old text:\n{}",
            crate::fixture::describe(&got)
        );
    }
    check("Save the document", &find(&*store, "Save the document", opts())?, &[want(id, 1.0, SE)])?;
    let fuzzy = find(&*store, "Save the documents", opts())?;
    ensure!(
        fuzzy.first().is_some_and(|m| m.entry.id == id && m.match_type == GF),
        "a fuzzy lookup of the new text finds entry {id}:\n{}",
        crate::fixture::describe(&fuzzy)
    );
    ensure!(store.search(&SearchQuery::new("file", locale("en")?))?.is_empty(), "search for the old text");
    let hits: Vec<EntryId> =
        store.search(&SearchQuery::new("document", locale("en")?))?.into_iter().map(|h| h.entry.id).collect();
    ensure_eq!(hits, vec![id], "search for the new text");
    let versions: Vec<EntryId> =
        reader(&*store)?.versions(&VersionQuery::new("u1"), None)?.into_iter().map(|v| v.entry.id).collect();
    ensure_eq!(versions, vec![id], "the unit's versions after a replace");

    // A missing id changes nothing.
    let missing = EntryId(other_id.0.max(id.0) + 100);
    ensure!(!store.replace(missing, &new)?, "replace of an unknown id answers false");
    ensure!(store.get(missing)?.is_none(), "replace of an unknown id creates nothing");

    // A failed replace leaves the entry as it was.
    let lonely =
        NewEntry { variants: vec![Variant::new(locale("en")?, runs("Lonely")?)], ..NewEntry::default() };
    for (what, bad) in [("an invalid entry", lonely), ("an entry equal to another", other.clone())] {
        match store.replace(id, &bad) {
            Err(e) => ensure_eq!(e.kind(), ErrorKind::InvalidEntry, "the error kind of a replace by {what}"),
            Ok(done) => return Err(Failure::new(format!("a replace by {what} succeeded ({done})"))),
        }
        let kept = store
            .get(id)?
            .ok_or_else(|| Failure::new(format!("entry {id} is gone after a failed replace")))?;
        ensure_eq!(kept, got, "entry {id} after a failed replace by {what}");
        check("Save the document", &find(&*store, "Save the document", opts())?, &[want(id, 1.0, SE)])?;
        ensure!(
            find(&*store, "Close the window", opts())?.iter().all(|m| m.entry.id == other_id),
            "the other entry"
        );
    }
    ensure_eq!(store.stats()?.entries, before.entries, "entries after failed replaces");

    // The same content with other metadata is a replace of the entry by itself.
    let mut same = new.clone();
    same.metadata.clear();
    ensure!(store.replace(id, &same)?, "a replace that keeps the identity");
    ensure!(store.get(id)?.is_some_and(|e| e.metadata.is_empty()), "metadata cleared by a replace");

    // In a session: nothing before the commit, nothing after a drop.
    {
        let mut session = store.begin()?;
        ensure!(session.replace(id, &pair("Print the page", "Seite drucken")?)?, "a replace in a session");
    }
    check("Save the document", &find(&*store, "Save the document", opts())?, &[want(id, 1.0, SE)])?;
    ensure!(find(&*store, "Print the page", opts())?.is_empty(), "a dropped session's replace is seen");
    // The session's deduplication sees its own replaces: the new text is entry `id`,
    // the old one no entry's; and an entry it wrote can be replaced before the commit.
    let mut session = store.begin()?;
    ensure!(session.replace(id, &pair("Print the page", "Seite drucken")?)?, "a replace in a session");
    let out = session.write(&[pair("Print the page", "Seite drucken")?, same.clone()])?;
    let [WriteOutcome::Deduplicated(d), WriteOutcome::Inserted(fresh)] = out.as_slice() else {
        return Err(Failure::new(format!("writes after a replace in a session: {out:?}")));
    };
    ensure_eq!(*d, id, "the replaced text deduplicates into entry {id}");
    ensure!(
        session.replace(*fresh, &pair("Undo the last change", "Letzte Änderung rückgängig machen")?)?,
        "a replace of the session's own"
    );
    session.commit()?;
    check("Print the page", &find(&*store, "Print the page", opts())?, &[want(id, 1.0, SE)])?;
    check("Undo the last change", &find(&*store, "Undo the last change", opts())?, &[want(*fresh, 1.0, SE)])?;
    ensure!(find(&*store, "Save the document", opts())?.is_empty(), "a text both replaced and rewritten");
    ensure_eq!(store.get(id)?.map(|e| e.approvals()), Some(2), "approvals of the replaced entry re-approved");
    ensure_eq!(store.stats()?.entries, before.entries + 1, "entries after the session");
    Ok(())
}

/// docs/matching.md §3: `get` returns every field as written; `entries` pages in id order.
///
/// # Errors
/// What the store got wrong.
pub fn get_and_entries_paging(make: Make<'_>) -> Outcome {
    let store = make();
    let full = NewEntry {
        approvals: 3,
        variants: vec![
            Variant::new(
                locale("en-US")?,
                runs(
                    r#"Hi {PERSON:John}, {1 type="bold" data="<b>"}see{/1 data="</b>"} [2 equiv="logo"]{n,plural,one{# file}other{# files}}"#,
                )?,
            ),
            Variant::new(
                locale("de-DE")?,
                runs(
                    r#"Hallo {PERSON:John}, {1 type="bold" data="<b>"}siehe{/1 data="</b>"} [2 equiv="logo"]{n,plural,one{# Datei}other{# Dateien}}"#,
                )?,
            ),
            Variant::new(locale("fr")?, runs("Salut {PERSON:John}")?),
        ],
        point: point("web/eu/docs")?,
        unit: "block-7".into(),
        project_id: "proj".into(),
        origins: vec![
            origin("proj", "fp", "2024-01-01T00:00:00Z"),
            origin("other", "", "2024-02-01T00:00:00Z"),
        ],
        metadata: vec![
            ("note".into(), "a".into()),
            ("note".into(), "b".into()),
            ("creationid".into(), "x".into()),
        ],
    };
    let id = write_each(&*store, std::slice::from_ref(&full))?[0];
    let got = store.get(id)?.ok_or_else(|| Failure::new("get of a written entry answered nothing"))?;
    ensure_eq!(got.id, id, "id");
    ensure_eq!(got.to_new(), full, "every field as written");
    let mut entries = Vec::new();
    for i in 0..24 {
        entries.push(pair(&format!("Item {i}"), &format!("Element {i}"))?);
    }
    let mut ids = vec![id];
    ids.extend(write_each(&*store, &entries)?);
    let mut paged = Vec::new();
    let mut after = None;
    for page in 0..10 {
        let got = store.entries(after, 10)?;
        ensure!(got.len() <= 10, "page {page}: {} entries for limit 10", got.len());
        let Some(last) = got.last() else { break };
        after = Some(last.id);
        paged.extend(got.iter().map(|e| e.id));
    }
    let mut sorted = ids.clone();
    sorted.sort();
    ensure_eq!(paged, sorted, "all entries, paged by 10, in id order");
    ensure!(store.entries(None, 0)?.is_empty(), "limit 0 answers nothing");
    let unknown = EntryId(sorted.last().map_or(0, |i| i.0) + 1000);
    ensure!(store.get(unknown)?.is_none(), "get of an unknown id");
    // Several at once: in the order asked, unknown ids as nothing, repeats repeated.
    let asked = [ids[3], unknown, id, ids[3], ids[20]];
    let many = store.get_many(&asked)?;
    ensure_eq!(many.len(), asked.len(), "get_many answers one per id asked");
    for (want, got) in asked.iter().zip(&many) {
        ensure_eq!(got, &store.get(*want)?, "get_many of {want} as get");
    }
    ensure!(store.get_many(&[])?.is_empty(), "get_many of nothing");
    Ok(())
}

/// Counts of entries, variants and locale pairs (first variant → each other).
///
/// # Errors
/// What the store got wrong.
pub fn stats(make: Make<'_>) -> Outcome {
    let store = make();
    let empty = store.stats()?;
    ensure_eq!((empty.entries, empty.variants, empty.pairs.len()), (0, 0, 0), "an empty store");
    let three = NewEntry {
        variants: vec![
            Variant::new(locale("en")?, runs("One")?),
            Variant::new(locale("de")?, runs("Eins")?),
            Variant::new(locale("fr")?, runs("Un")?),
        ],
        ..NewEntry::default()
    };
    write_each(
        &*store,
        &[three, pair("Two", "Zwei")?, pair("Three", "Drei")?, pair_in("fr", "Quatre", "en", "Four")?],
    )?;
    let s = store.stats()?;
    ensure_eq!((s.entries, s.variants), (4, 9), "entries and variants");
    let mut pairs: Vec<(String, String, u64)> =
        s.pairs.iter().map(|p| (p.source.to_string(), p.target.to_string(), p.entries)).collect();
    pairs.sort();
    ensure_eq!(
        pairs,
        vec![("en".into(), "de".into(), 3), ("en".into(), "fr".into(), 1), ("fr".into(), "en".into(), 1)],
        "locale pairs"
    );
    Ok(())
}

/// Concordance search finds entries with all the words, case-insensitively, in the
/// locale asked, and marks the hits in the snippet.
///
/// # Errors
/// What the store got wrong.
pub fn concordance_search(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair("Open the file", "Datei öffnen")?,
            pair("Close the file", "Datei schließen")?,
            pair("Open a window", "Fenster öffnen")?,
        ],
    )?;
    let search = |words: &str, loc: &str, limit: usize| -> Result<Vec<(EntryId, String)>, Failure> {
        let mut q = SearchQuery::new(words, locale(loc)?);
        q.limit = limit;
        let mut hits: Vec<(EntryId, String)> =
            store.search(&q)?.into_iter().map(|h| (h.entry.id, h.snippet)).collect();
        hits.sort();
        Ok(hits)
    };
    ensure_eq!(
        search("file", "en", 20)?,
        vec![(ids[0], "Open the [file]".to_owned()), (ids[1], "Close the [file]".to_owned())],
        "one word"
    );
    ensure_eq!(
        search("open FILE", "en", 20)?,
        vec![(ids[0], "[Open] the [file]".to_owned())],
        "all words, any case"
    );
    ensure_eq!(search("Datei", "de", 20)?.len(), 2, "the target locale");
    ensure_eq!(search("Datei", "en", 20)?, vec![], "another locale's words");
    ensure_eq!(search("zebra", "en", 20)?, vec![], "no hit");
    ensure_eq!(search("file", "en", 1)?.len(), 1, "limit 1");
    Ok(())
}

/// `write` is atomic: a batch with one invalid entry stores nothing.
///
/// # Errors
/// What the store got wrong.
pub fn write_batch_is_atomic(make: Make<'_>) -> Outcome {
    let store = make();
    let one_variant =
        NewEntry { variants: vec![Variant::new(locale("en")?, runs("Lonely")?)], ..NewEntry::default() };
    let same_locale = NewEntry {
        variants: vec![Variant::new(locale("en")?, runs("A")?), Variant::new(locale("EN")?, runs("B")?)],
        ..NewEntry::default()
    };
    for bad in [one_variant, same_locale] {
        let batch = [pair("Open the file", "Datei öffnen")?, bad, pair("Close the file", "Datei schließen")?];
        match store.write(&batch) {
            Err(e) => ensure_eq!(e.kind(), ErrorKind::InvalidEntry, "error kind"),
            Ok(out) => {
                return Err(Failure::new(format!("a batch with an invalid entry was written: {out:?}")))
            }
        }
        ensure_eq!(store.stats()?.entries, 0, "entries after a failed batch");
        ensure!(store.entries(None, 10)?.is_empty(), "entries() after a failed batch");
        ensure!(find(&*store, "Open the file", opts())?.is_empty(), "lookup after a failed batch");
    }
    Ok(())
}

/// docs/matching.md §2: canonically equivalent inputs key alike (NFC), so they match exactly.
///
/// # Errors
/// What the store got wrong.
pub fn nfc_equivalent_queries_match_exactly(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair("Caf\u{e9} au lait", "Milchkaffee")?,
            pair_in("ko", "\u{d55c}\u{ad6d}\u{c5b4}", "en", "Korean")?,
            // Shadda then kasra: NFC puts kasra (ccc 32) first.
            pair_in("ar", "\u{628}\u{651}\u{650}\u{627}\u{628}", "en", "door")?,
        ],
    )?;
    check("e + U+0301", &find(&*store, "Cafe\u{301} au lait", opts())?, &[want(ids[0], 1.0, SE)])?;
    check(
        "Hangul jamo",
        &find_in(
            &*store,
            "ko",
            "\u{1112}\u{1161}\u{11ab}\u{1100}\u{116e}\u{11a8}\u{110b}\u{1165}",
            "en",
            opts(),
        )?,
        &[want(ids[1], 1.0, SE).target("Korean")],
    )?;
    check(
        "Arabic marks in another order",
        &find_in(&*store, "ar", "\u{628}\u{650}\u{651}\u{627}\u{628}", "en", opts())?,
        &[want(ids[2], 1.0, SE).target("door")],
    )?;
    Ok(())
}

/// CJK text (no spaces, short words) and Arabic find their exact and fuzzy matches.
///
/// # Errors
/// What the store got wrong.
pub fn cjk_and_arabic_queries(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair_in("zh", "文件已保存", "en", "File saved")?,
            pair_in("zh", "保存", "en", "Save")?,
            pair_in("ja", "ファイルを開く", "en", "Open the file")?,
            pair_in("ar", "تم حفظ الملف", "en", "The file was saved")?,
        ],
    )?;
    check("zh exact", &find_in(&*store, "zh", "文件已保存", "en", opts())?, &[want(ids[0], 1.0, SE)])?;
    check(
        "zh fuzzy",
        &find_in(&*store, "zh", "文件已保存。", "en", opts())?,
        &[want(ids[0], 1.0 - 1.0 / 6.0, GF)],
    )?;
    check(
        "zh two characters",
        &find_in(&*store, "zh", "保存了", "en", opts().threshold(0.6))?,
        &[want(ids[1], 1.0 - 1.0 / 3.0, GF)],
    )?;
    check(
        "ja fuzzy",
        &find_in(&*store, "ja", "ファイルを開いて", "en", opts())?,
        &[want(ids[2], 1.0 - 2.0 / 8.0, GF)],
    )?;
    check("ar exact", &find_in(&*store, "ar", "تم حفظ الملف", "en", opts())?, &[want(ids[3], 1.0, SE)])?;
    check(
        "ar fuzzy",
        &find_in(&*store, "ar", "تم حفظ الملفات", "en", opts())?,
        &[want(ids[3], 1.0 - 2.0 / 14.0, GF)],
    )?;
    Ok(())
}

/// Nothing panics on input the model accepts: empty and white-space-only segments key
/// alike (the empty key), a codes-only segment is an ordinary entry, an over-long query
/// is an error, and a huge limit is no problem.
///
/// # Errors
/// What the store got wrong.
pub fn empty_and_odd_segments(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair("", "leer")?,
            pair("{1/}", "{1/}")?,
            pair(" \t ", "Leerraum")?,
            pair(r"\{\}\[\] {n,plural,}", "Klammern")?,
        ],
    )?;
    // "" and " \t " both have the empty key; the white space costs " \t " a point, so
    // "" alone is a full answer (no ambiguity).
    check(
        "empty query",
        &find(&*store, "", opts().limit(usize::MAX))?,
        &[want(ids[0], 1.0, SE).target("leer"), want(ids[2], SCORE_NEAR_EXACT, SE).target("Leerraum")],
    )?;
    check("codes only", &find(&*store, "{7/}", opts())?, &[want(ids[1], 1.0, SE).target("{7/}")])?;
    check(
        "literal brackets and an empty plural",
        &find(&*store, r"\{\}\[\] {n,plural,}", opts())?,
        &[want(ids[3], 1.0, SE).target("Klammern")],
    )?;
    let long = "x".repeat(LookupOptions::default().max_query_chars + 1);
    match cmem_core::lookup(&*store, &LookupRequest::new(runs(&long)?, locale("en")?, locale("de")?)) {
        Err(e) => ensure_eq!(e.kind(), ErrorKind::InvalidQuery, "an over-long query"),
        Ok(m) => return Err(Failure::new(format!("an over-long query answered {} matches", m.len()))),
    }
    Ok(())
}

/// SplitMix64: a small deterministic generator, so every store sees the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "open", "the", "file", "files", "close", "window", "save", "all", "changes", "now", "before", "you",
    "leave", "print", "page", "pages", "delete", "selected", "item", "items", "文件", "保存", "ملف",
];
const NAMES: &[&str] = &["John", "Mary", "Acme", "Globex", "Paris"];
const TYPES: &[&str] = &["PERSON", "ORGANIZATION", "LOCATION"];

/// A random source segment in notation: words, sometimes a paired code, a placeholder
/// or entities.
fn sentence(rng: &mut Rng) -> String {
    let n = 2 + rng.below(6);
    let mut parts: Vec<String> = (0..n).map(|_| rng.pick(WORDS).to_owned()).collect();
    if rng.below(3) == 0 {
        let i = rng.below(parts.len());
        parts[i] = format!("{{1}}{}{{/1}}", parts[i]);
    }
    if rng.below(4) == 0 {
        parts.push("{2/}".to_owned());
    }
    for _ in 0..rng.below(3) {
        let i = rng.below(parts.len() + 1);
        parts.insert(i, format!("{{{}:{}}}", rng.pick(TYPES), rng.pick(NAMES)));
    }
    parts.join(" ")
}

/// A query near a stored source: a typo, a word changed, an entity value changed, codes
/// dropped, or the source itself.
fn mutate(rng: &mut Rng, source: &str) -> String {
    match rng.below(6) {
        0 => source.to_owned(),
        1 => {
            let chars: Vec<char> = source.chars().collect();
            let i = rng.below(chars.len());
            // Only inside plain words, so the notation stays valid.
            if chars[i].is_lowercase() || !chars[i].is_ascii() {
                let mut s: String = chars[..i].iter().collect();
                s.push('x');
                s.extend(&chars[i + 1..]);
                s
            } else {
                format!("{source} x")
            }
        }
        2 => {
            let mut words: Vec<String> = source.split(' ').map(str::to_owned).collect();
            let i = rng.below(words.len());
            if !words[i].contains('{') {
                words[i] = rng.pick(WORDS).to_owned();
            }
            words.join(" ")
        }
        3 => {
            let mut out = source.to_owned();
            for name in NAMES {
                out = out.replace(&format!(":{name}}}"), &format!(":{}}}", rng.pick(NAMES)));
            }
            out
        }
        4 => source.replace("{1}", "").replace("{/1}", "").replace(" {2/}", ""),
        _ => format!("{source} {}", rng.pick(WORDS)),
    }
}

/// docs/matching.md §4 and §7: over a few hundred generated entries and queries, `lookup` equals
/// an exhaustive reference that scores every entry (no candidate may be missed), with
/// the lookup's verification budget lifted; with the default options, its best match
/// equals the reference's.
///
/// # Errors
/// The first query whose matches differ.
pub fn fuzzy_candidates_are_complete(make: Make<'_>) -> Outcome {
    let store = make();
    let mut rng = Rng(0x5eed_c0de);
    let mut entries = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for i in 0..300 {
        let src = if i > 0 && rng.below(8) == 0 {
            // A repeated source, for exact ties and ambiguity.
            sources[rng.below(sources.len())].clone()
        } else {
            sentence(&mut rng)
        };
        // Regional tags on both sides (the prefix rule), a locale pair never asked for,
        // and some entries with a third variant.
        let source_locale = ["en", "en", "en", "en-US", "en-GB"][rng.below(5)];
        let target_locale = ["de", "de", "de", "de-DE", "de-AT", "fr"][rng.below(6)];
        let target = if rng.below(3) == 0 { src.clone() } else { format!("{src} T{}", rng.below(4)) };
        let mut e = pair_in(source_locale, &src, target_locale, &target)?;
        if target_locale != "fr" && rng.below(10) == 0 {
            e.variants.push(Variant::new(locale("fr")?, runs(&format!("{src} F"))?));
        }
        if rng.below(3) == 0 {
            e.point = point(["web", "web/eu", "app", "app/ios/x"][rng.below(4)])?;
        }
        entries.push(e);
        sources.push(src);
    }
    let ids = write_each(&*store, &entries)?;
    let mut stored: Vec<cmem_core::Entry> = Vec::new();
    for (e, id) in entries.iter().zip(&ids) {
        if !stored.iter().any(|s| s.id == *id) {
            stored.push(e.clone().into_entry(*id));
        } else if let Some(s) = stored.iter_mut().find(|s| s.id == *id) {
            s.reapprove(e);
        }
    }
    let mut compared = 0;
    for qi in 0..200 {
        let query = if qi % 10 == 9 {
            sentence(&mut rng)
        } else {
            let i = rng.below(sources.len());
            mutate(&mut rng, &sources[i])
        };
        let threshold = [0.5, 0.7, 0.8, 0.95][rng.below(4)];
        let limit = [1, 3, 10, 50][rng.below(4)];
        let caller =
            if rng.below(4) == 0 { Some(point(["web/eu/docs", "app", ""][rng.below(3)])?) } else { None };
        // The lookup's own verification budget is lifted, so every position is exact and
        // what is checked is the store's candidate contract; the default options are
        // checked below for the best match.
        let options = opts().threshold(threshold).limit(limit).maybe_point(caller.clone()).exhaustive();
        let (sl, tl) = (["en", "en", "en-US"][rng.below(3)], ["de", "de", "de-AT"][rng.below(3)]);
        let req = LookupRequest::new(runs(&query)?, locale(sl)?, locale(tl)?).options(options);
        let got = cmem_core::lookup(&*store, &req)?;
        let want = crate::reference::reference_lookup(&stored, &req);
        let same = got.len() == want.len()
            && got.iter().zip(&want).all(|(g, w)| {
                g.entry.id == w.id
                    && (g.score - w.score).abs() < 1e-9
                    && g.match_type == w.match_type
                    && g.ambiguous == w.ambiguous
            });
        if !same {
            let mut msg = format!(
                "query {qi} {query:?} ({sl} → {tl}, threshold {threshold}, limit {limit}, point {caller:?}) differs from the exhaustive reference\n  lookup:\n{}  reference:\n",
                crate::fixture::describe(&got)
            );
            for w in &want {
                msg.push_str(&format!(
                    "    entry {} score {:.6} {}{}\n",
                    w.id,
                    w.score,
                    w.match_type,
                    if w.ambiguous { " ambiguous" } else { "" }
                ));
            }
            let mut shown: Vec<EntryId> =
                want.iter().map(|w| w.id).chain(got.iter().map(|g| g.entry.id)).collect();
            shown.sort();
            shown.dedup();
            for w in shown {
                if let Some(e) = stored.iter().find(|e| e.id == w) {
                    let locales: Vec<&str> = e.variants.iter().map(|v| v.locale.as_str()).collect();
                    msg.push_str(&format!(
                        "  entry {w} ({}, point {:?}): {:?}\n",
                        locales.join(" → "),
                        e.point.as_str(),
                        to_notation(&e.variants[0].runs)
                    ));
                }
            }
            return Err(Failure::new(msg));
        }
        compared += want.len();
        let defaults = LookupOptions::default().threshold(threshold).maybe_point(caller.clone());
        let best = cmem_core::lookup(&*store, &req.clone().options(defaults))?;
        let best = best.first().map(|m| (m.entry.id, m.match_type, m.ambiguous, format!("{:.6}", m.score)));
        let want_best = crate::reference::reference_lookup(
            &stored,
            &req.clone().options(opts().threshold(threshold).maybe_point(caller.clone()).limit(1)),
        )
        .first()
        .map(|w| (w.id, w.match_type, w.ambiguous, format!("{:.6}", w.score)));
        ensure_eq!(
            best,
            want_best,
            "query {qi} {query:?} ({sl} → {tl}): the best match with default options"
        );
    }
    ensure!(
        compared > 300,
        "the generated queries found only {compared} matches in all; the test lost its teeth"
    );
    Ok(())
}

/// The offer-order rule of the store contract: with the lookup's budgets in force (the
/// default options, and budgets tightened so they bind on a small memory), the store
/// under test returns exactly the list the in-memory store returns: same entries, scores,
/// tiers and order at every position, not only the best match.
///
/// # Errors
/// The first query whose list differs, with both lists.
pub fn budgeted_lists_agree_with_the_in_memory_store(make: Make<'_>) -> Outcome {
    let store = make();
    let reference = cmem_core::MemStore::new();
    let mut rng = Rng(0xb0d9_e7ed);
    let mut sources: Vec<String> = Vec::new();
    for _ in 0..400 {
        let src = sentence(&mut rng);
        let (sl, tl) = (["en", "en", "en-US", "en-GB"][rng.below(4)], ["de", "de", "de-AT"][rng.below(3)]);
        let e = pair_in(sl, &src, tl, &format!("{src} T{}", rng.below(3)))?;
        // One entry at a time in both stores: the same ids, in the same order.
        let a = store.write(std::slice::from_ref(&e))?;
        let b = reference.write(std::slice::from_ref(&e))?;
        ensure_eq!(a.first().map(|o| o.id()), b.first().map(|o| o.id()), "entry ids");
        sources.push(src);
    }
    let mut compared = 0;
    for qi in 0..150 {
        let i = rng.below(sources.len());
        let query = mutate(&mut rng, &sources[i]);
        let options = match qi % 3 {
            0 => LookupOptions::default(),
            1 => LookupOptions::default().threshold(0.5).verify_budget(5).max_candidates(12),
            _ => LookupOptions::default().threshold(0.6).limit(5).verify_budget(3).max_candidates(6),
        };
        let req = LookupRequest::new(runs(&query)?, locale("en")?, locale("de")?).options(options);
        let got = cmem_core::lookup(&*store, &req)?;
        let want = cmem_core::lookup(&reference, &req)?;
        let line = |m: &cmem_core::Match| (m.entry.id, m.match_type, m.ambiguous, format!("{:.9}", m.score));
        let got_lines: Vec<_> = got.iter().map(line).collect();
        let want_lines: Vec<_> = want.iter().map(line).collect();
        ensure_eq!(
            got_lines,
            want_lines,
            "query {qi} {query:?}: the list differs from the in-memory store's"
        );
        compared += want.len();
    }
    ensure!(
        compared > 150,
        "the generated queries found only {compared} matches in all; the test lost its teeth"
    );
    Ok(())
}

/// Memory metadata: a value set is read back, a second set replaces it, an unset key is
/// `None`, and warming up changes no answer.
///
/// # Errors
/// What the store got wrong.
pub fn memory_metadata(make: Make<'_>) -> Outcome {
    let store = make();
    ensure_eq!(store.meta("recognizer")?, None, "an unset key");
    store.set_meta("recognizer", "printf,html")?;
    store.set_meta("recognizer", "default")?;
    ensure_eq!(store.meta("recognizer")?.as_deref(), Some("default"), "the value set last");
    store.write(&[pair("Open the file", "Datei öffnen")?])?;
    let req = LookupRequest::new(runs("Open the files")?, locale("en")?, locale("de")?);
    let cold = cmem_core::lookup(&*store, &req)?;
    store.warm(&locale("en")?)?;
    let warm = cmem_core::lookup(&*store, &req)?;
    ensure_eq!(cold.len(), 1, "matches before warming up");
    ensure_eq!(
        cold.iter().map(|m| m.entry.id).collect::<Vec<_>>(),
        warm.iter().map(|m| m.entry.id).collect::<Vec<_>>(),
        "matches after warming up"
    );
    Ok(())
}

/// docs/matching.md §4 and §7: every entry tied with the best match is returned, up to the limit,
/// however few candidates a store may offer (`max_candidates`) and however early the
/// cut-off rises to the best score (`verify_budget`): equal scores are never cut off.
///
/// # Errors
/// The first list that lacks a tied entry.
pub fn ties_at_the_top_are_complete(make: Make<'_>) -> Outcome {
    let store = make();
    let query = "Please open the project settings file now";
    let chars: Vec<char> = query.chars().collect();
    let mut entries = Vec::new();
    // Fourteen sources one substitution away (each at its own letter): all tie.
    let positions: Vec<usize> =
        (0..chars.len()).filter(|&i| chars[i].is_ascii_lowercase()).step_by(2).take(14).collect();
    ensure_eq!(positions.len(), 14, "letters to substitute in the query");
    for (n, &i) in positions.iter().enumerate() {
        let mut near = chars.clone();
        near[i] = if chars[i] == 'z' { 'y' } else { 'z' };
        entries.push(pair(&near.iter().collect::<String>(), &format!("Bitte öffnen {n}"))?);
    }
    // Twenty sources two substitutions away, scoring lower.
    for n in 0..20 {
        let mut far = chars.clone();
        far[positions[n % 14]] = 'q';
        far[positions[(n + 1 + n / 14) % 14]] = 'q';
        entries.push(pair(&far.iter().collect::<String>(), &format!("Weiter {n}"))?);
    }
    write_each(&*store, &entries)?;
    let best = 1.0 - 1.0 / chars.len() as f64;
    let cases = [
        ("default options", opts()),
        ("three candidates at most", opts().max_candidates(3)),
        ("a budget of two", opts().verify_budget(2)),
        ("both", opts().max_candidates(3).verify_budget(2)),
    ];
    for (name, options) in cases {
        let req = LookupRequest::new(runs(query)?, locale("en")?, locale("de")?).options(options.limit(10));
        let got = cmem_core::lookup(&*store, &req)?;
        let tied = got.iter().filter(|m| (m.score - best).abs() < 1e-9).count();
        ensure_eq!(tied, 10, "{name}: matches tied with the best ({best:.6}) among {} returned", got.len());
    }
    Ok(())
}

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

/// Every case file of `testdata/match/` (see [`crate::cases`]).
///
/// # Errors
/// Every failing case, each named by file and case.
pub fn match_cases(make: Make<'_>) -> Outcome {
    crate::cases::run_dir(&crate::cases::default_dir(), make)
}

#[cfg(test)]
mod tests {
    //! The suite must be able to fail: each broken store here breaks a rule.

    use super::*;
    use cmem_core::{CandidateQuery, CandidateSink, Entry, ExactQuery, MemStore, SearchHit, Stats};

    /// Forwards to a `MemStore`, except for the fault it is built with.
    struct Broken {
        inner: MemStore,
        /// Loses every n-th fuzzy candidate (0 = none).
        drop_every: usize,
        /// Answers no exact-key hits.
        no_exact: bool,
    }

    struct Dropping<'a> {
        inner: &'a mut dyn CandidateSink,
        every: usize,
        seen: usize,
    }

    impl CandidateSink for Dropping<'_> {
        fn offer(&mut self, id: EntryId, kinds: cmem_core::KindSet, key: &str) -> f64 {
            self.seen += 1;
            if self.seen % self.every == 0 {
                return self.inner.cutoff();
            }
            self.inner.offer(id, kinds, key)
        }
        fn cutoff(&self) -> f64 {
            self.inner.cutoff()
        }
    }

    impl ContentMemory for Broken {
        fn write(&self, entries: &[NewEntry]) -> cmem_core::Result<Vec<WriteOutcome>> {
            self.inner.write(entries)
        }
        fn begin(&self) -> cmem_core::Result<Box<dyn cmem_core::WriteSession + '_>> {
            self.inner.begin()
        }
        fn get(&self, id: EntryId) -> cmem_core::Result<Option<Entry>> {
            self.inner.get(id)
        }
        fn delete(&self, id: EntryId) -> cmem_core::Result<bool> {
            self.inner.delete(id)
        }
        fn entries(&self, after: Option<EntryId>, limit: usize) -> cmem_core::Result<Vec<Entry>> {
            self.inner.entries(after, limit)
        }
        fn exact(&self, q: &ExactQuery<'_>) -> cmem_core::Result<Vec<Entry>> {
            if self.no_exact {
                return Ok(Vec::new());
            }
            self.inner.exact(q)
        }
        fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> cmem_core::Result<()> {
            if self.drop_every == 0 {
                return self.inner.candidates(q, sink);
            }
            self.inner.candidates(q, &mut Dropping { inner: sink, every: self.drop_every, seen: 0 })
        }
        fn search(&self, q: &SearchQuery) -> cmem_core::Result<Vec<SearchHit>> {
            self.inner.search(q)
        }
        fn stats(&self) -> cmem_core::Result<Stats> {
            self.inner.stats()
        }
        fn version_reader(&self) -> Option<&dyn VersionReader> {
            self.inner.version_reader()
        }
    }

    fn broken(drop_every: usize, no_exact: bool) -> impl Fn() -> Box<dyn ContentMemory> {
        move || Box::new(Broken { inner: MemStore::new(), drop_every, no_exact })
    }

    #[test]
    fn the_reference_catches_lost_candidates() {
        let err = fuzzy_candidates_are_complete(&broken(7, false)).unwrap_err();
        let caught = err.message().contains("differs from the exhaustive reference")
            || err.message().contains("the best match with default options");
        assert!(caught, "{err}");
    }

    #[test]
    fn rules_and_cases_catch_a_store_without_exact_hits() {
        let make = broken(0, true);
        assert!(tier_structural_exact(&make).is_err());
        assert!(tier_generalized_exact(&make).is_err());
        let err = match_cases(&make).unwrap_err();
        assert!(err.message().contains("tiers.toml: case \"structural exact, text only\""), "{err}");
    }

    #[test]
    fn a_faithful_wrapper_passes() {
        let make = broken(0, false);
        fuzzy_candidates_are_complete(&make).unwrap();
        versions_newest_first(&make).unwrap();
    }
}
