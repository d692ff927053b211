//! Rules of version chains, the prior version and the leverage provider.

use super::*;

/// The version-chain fixture: unit u1 written three times (the third at point web),
/// then re-approved; another unit; an entry with no unit.
pub(super) fn version_fixture(store: &dyn ContentMemory) -> Result<Vec<EntryId>, Failure> {
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

pub(super) fn version_ids(
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
pub(super) struct NoVersions(Box<dyn ContentMemory>);

impl ContentMemory for NoVersions {
    fn write(&self, entries: &[NewEntry]) -> cmem_core::Result<Vec<WriteOutcome>> {
        self.0.write(entries)
    }
    fn begin(&self) -> cmem_core::Result<Box<dyn cmem_core::imp::WriteSession + '_>> {
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
    fn exact(&self, q: &cmem_core::imp::ExactQuery<'_>) -> cmem_core::Result<Vec<cmem_core::Entry>> {
        self.0.exact(q)
    }
    fn candidates(
        &self,
        q: &cmem_core::imp::CandidateQuery<'_>,
        sink: &mut dyn cmem_core::imp::CandidateSink,
    ) -> cmem_core::Result<()> {
        self.0.candidates(q, sink)
    }
    fn search(&self, q: &SearchQuery) -> cmem_core::Result<Vec<cmem_core::SearchHit>> {
        self.0.search(q)
    }
    fn stats(&self) -> cmem_core::Result<cmem_core::Stats> {
        self.0.stats()
    }
    fn capabilities(&self) -> cmem_core::Capabilities<'_> {
        cmem_core::Capabilities::none()
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

/// docs/matching.md §6: the context of a segment ([`cmem_core::context_for`]) holds the
/// block's prior version exactly when the request's fingerprint governs it, as
/// `PriorVersionFor` decides; the rest of the answer is there either way, and no
/// near-duplicate of a chosen example is chosen again.
///
/// # Errors
/// What the store got wrong.
pub fn context_prior_version_gate(make: Make<'_>) -> Outcome {
    use cmem_core::{context_for, ContextOptions, ContextRequest};
    let store = make();
    let ids = version_fixture(&*store)?;
    let ask = |unit: &str, fp: &str| -> Result<cmem_core::Context, Failure> {
        let lookup = LookupRequest::new(runs("Save it")?, locale("en")?, locale("de")?);
        let req = ContextRequest::new(lookup)
            .block(unit, fp)
            .options(ContextOptions::default().min_example_score(0.0));
        Ok(context_for(&*store, &req)?)
    };
    let governed = ask("u1", "f3")?;
    ensure_eq!(
        governed.prior_version.map(|p| (p.entry_id, p.source, p.target)),
        Some((ids[2], "Save it now".to_owned(), "Jetzt speichern".to_owned())),
        "the newest version's own fingerprint governs"
    );
    let plain =
        cmem_core::lookup(&*store, &LookupRequest::new(runs("Save it")?, locale("en")?, locale("de")?))?;
    ensure_eq!(
        governed.matches.iter().map(|m| (m.entry.id, m.score)).collect::<Vec<_>>(),
        plain.iter().map(|m| (m.entry.id, m.score)).collect::<Vec<_>>(),
        "the context's matches are the lookup's"
    );
    for (unit, fp, why) in [
        ("u1", "f2", "an older version's fingerprint"),
        ("u1", "", "an empty fingerprint"),
        ("", "f3", "no unit"),
        ("u2", "f3", "another block's fingerprint"),
    ] {
        let c = ask(unit, fp)?;
        ensure_eq!(c.prior_version.map(|p| p.entry_id), None, "{why} does not open the gate");
        ensure!(!c.examples.is_empty(), "{why}: examples are given without a prior version");
    }
    // "Save" → "Sichern" and "Save" → "Speichern" (twice): one example holds "save" and
    // the next adds nothing, so the same source is never chosen twice.
    let c = ask("u1", "f3")?;
    let mut sources: Vec<&str> = c.examples.iter().map(|e| e.source.as_str()).collect();
    let before = sources.len();
    sources.sort_unstable();
    sources.dedup();
    ensure_eq!(sources.len(), before, "examples with the same source: {:?}", c.examples);
    Ok(())
}

/// docs/matching.md §6: a store with a candidate index draws the context's examples from
/// its word index, whose counts and ranking live once in core: it gives the examples the
/// in-memory store gives for the same entries, and keeps giving them after a write and
/// a deletion made once the word index was built.
///
/// # Errors
/// What the store got wrong.
pub fn context_examples_agree_with_the_in_memory_store(make: Make<'_>) -> Outcome {
    use cmem_core::{context_for, ContextOptions, ContextRequest, MemStore};
    let store = make();
    ensure!(store.capabilities().words.is_some(), "the store offers no word index");
    let reference = MemStore::new();
    let pairs = [
        ("Delete the selected file", "Die ausgewählte Datei löschen"),
        ("Delete the selected files", "Die ausgewählten Dateien löschen"),
        ("Delete the selected folder", "Den ausgewählten Ordner löschen"),
        ("Move to the trash", "In den Papierkorb verschieben"),
        ("The trash is empty", "Der Papierkorb ist leer"),
        ("Open the settings", "Einstellungen öffnen"),
        ("The clipboard is empty", "Die Zwischenablage ist leer"),
        ("Copy the file to the clipboard", "Die Datei in die Zwischenablage kopieren"),
    ];
    let entries: Vec<NewEntry> = pairs.iter().map(|(s, t)| pair(s, t)).collect::<Result<_, _>>()?;
    write_each(&*store, &entries)?;
    write_each(&reference, &entries)?;
    let segments = [
        "Delete the selected file and move it to the trash",
        "Open the settings of the clipboard",
        "Empty the trash now",
    ];
    let agree = |when: &str| -> Outcome {
        for segment in segments {
            let ask = |s: &dyn ContentMemory| -> Result<Vec<(EntryId, String, Vec<String>)>, Failure> {
                let lookup = LookupRequest::new(runs(segment)?, locale("en")?, locale("de")?);
                let req =
                    ContextRequest::new(lookup).options(ContextOptions::default().short_circuit_exact(false));
                Ok(context_for(s, &req)?
                    .examples
                    .into_iter()
                    .map(|e| (e.entry_id, e.target, e.covers))
                    .collect())
            };
            let (got, want) = (ask(&*store)?, ask(&reference)?);
            ensure!(!want.is_empty(), "{when}: no example for {segment:?}");
            ensure_eq!(got, want, "{when}: the examples for {segment:?}");
        }
        Ok(())
    };
    agree("as written")?;
    let more = [pair("Empty the trash", "Papierkorb leeren")?];
    write_each(&*store, &more)?;
    write_each(&reference, &more)?;
    for s in [&*store as &dyn ContentMemory, &reference] {
        ensure!(s.delete(EntryId(5))?, "deleting entry 5");
    }
    agree("after a write and a deletion")?;
    let lookup = LookupRequest::new(runs("Empty the trash now")?, locale("en")?, locale("de")?);
    let c = context_for(&*store, &ContextRequest::new(lookup))?;
    let ids: Vec<EntryId> = c.examples.iter().map(|e| e.entry_id).collect();
    ensure!(ids.contains(&EntryId(9)), "the entry written last is an example: {ids:?}");
    ensure!(!ids.contains(&EntryId(5)), "the deleted entry is no example: {ids:?}");
    Ok(())
}
