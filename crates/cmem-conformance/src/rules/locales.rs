//! Rules of locales and of writing one entry twice (docs/matching.md §3).

use super::*;

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
