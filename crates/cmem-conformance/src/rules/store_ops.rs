//! Rules of the store's own operations: delete, replace, get and paging, stats, concordance,
//! atomic batches and the memory's metadata.

use cmem_core::imp::{ExactQuery, KeyKind};
use cmem_core::ContentMemoryExt;

use super::*;
use crate::Reopening;

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
    // The counts follow every kind of write: a duplicate adds nothing, a session
    // dropped without a commit nothing, a committed one its entries; a replaced entry
    // counts its new variants, a deleted one nothing.
    let pairs_of = |s: &cmem_core::Stats| -> Vec<(String, String, u64)> {
        let mut p: Vec<_> =
            s.pairs.iter().map(|p| (p.source.to_string(), p.target.to_string(), p.entries)).collect();
        p.sort();
        p
    };
    let ids = write_each(&*store, &[pair("Two", "Zwei")?])?;
    ensure_eq!(pairs_of(&store.stats()?), pairs, "after a duplicate");
    {
        let mut session = store.begin()?;
        session.write(&[pair("Five", "Fünf")?, pair_in("fr", "Six", "de", "Sechs")?])?;
    }
    let s = store.stats()?;
    ensure_eq!((s.entries, s.variants, pairs_of(&s)), (4, 9, pairs.clone()), "after a dropped session");
    let mut session = store.begin()?;
    session.write(&[pair("Five", "Fünf")?, pair_in("fr", "Six", "de", "Sechs")?])?;
    session.commit()?;
    let s = store.stats()?;
    ensure_eq!((s.entries, s.variants), (6, 13), "entries and variants after a session");
    let de_fr = NewEntry {
        variants: vec![
            Variant::new(locale("de")?, runs("Zwei")?),
            Variant::new(locale("fr")?, runs("Deux")?),
        ],
        ..NewEntry::default()
    };
    ensure!(store.replace(ids[0], &de_fr)?, "the entry replaced");
    let s = store.stats()?;
    ensure_eq!((s.entries, s.variants), (6, 13), "entries and variants after a replace");
    ensure_eq!(
        pairs_of(&s),
        vec![
            ("de".into(), "fr".into(), 1),
            ("en".into(), "de".into(), 3),
            ("en".into(), "fr".into(), 1),
            ("fr".into(), "de".into(), 1),
            ("fr".into(), "en".into(), 1),
        ],
        "locale pairs after a replace"
    );
    ensure!(store.delete(ids[0])?, "the entry deleted");
    let s = store.stats()?;
    ensure_eq!((s.entries, s.variants), (5, 11), "entries and variants after a delete");
    ensure!(!pairs_of(&s).iter().any(|p| p.0 == "de"), "no pair of the deleted entry is left");
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
    // Any of the words: every text holding one, the one holding both first.
    let mut q = SearchQuery::new("open file", locale("en")?);
    q.any = true;
    let any: Vec<EntryId> = store.search(&q)?.into_iter().map(|h| h.entry.id).collect();
    ensure_eq!(any.len(), 3, "any of the words: {any:?}");
    ensure_eq!(any[0], ids[0], "the text holding both words ranks first: {any:?}");
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

/// A store behind a wrapper (`&`, `Box`, `Arc`, and this suite's [`Reopening`]) keeps
/// every capability it has, and each answers through the wrapper as it does on the store:
/// a wrapper cannot drop one unnoticed.
///
/// # Errors
/// What the store, or a wrapper, got wrong.
pub fn wrappers_keep_every_capability(make: Make<'_>) -> Outcome {
    let store = make();
    let names = store.capabilities().names();
    let (en, de) = (locale("en")?, locale("de")?);
    store.write(&[pair("Open the file", "Datei öffnen")?])?;
    let by_ref: &dyn ContentMemory = &store;
    let arc: std::sync::Arc<&dyn ContentMemory> = std::sync::Arc::new(&*store);
    let boxed: Box<&dyn ContentMemory> = Box::new(&*store);
    let reopening = Reopening::keeping(make(), ());
    reopening.write(&[pair("Open the file", "Datei öffnen")?])?;
    let wrappers: [(&str, &dyn ContentMemory); 4] =
        [("&", by_ref), ("Arc", &arc), ("Box", &boxed), ("Reopening", &reopening)];
    for (name, wrapped) in wrappers {
        let caps = wrapped.capabilities();
        ensure_eq!(caps.names(), names, "the capabilities behind {name}");
        if caps.versions.is_some() {
            ensure!(wrapped.version_reader().is_some(), "{name}: no version reader");
        }
        if caps.index.is_some() {
            wrapped.warm(&en)?;
            wrapped.change_mark()?;
            let mut scope = wrapped.read_scope(&en)?;
            let q = ExactQuery { kind: KeyKind::Plain, key: "Open the file", source: &en, target: &de };
            ensure_eq!(scope.exact(&q)?.len(), 1, "{name}: exact hits through the index's read scope");
        }
        if caps.meta.is_some() {
            wrapped.set_meta("wrapped", name)?;
            ensure_eq!(wrapped.meta("wrapped")?.as_deref(), Some(name), "{name}: a value set through it");
        }
        if caps.word_models.is_some() {
            ensure_eq!(wrapped.word_model(&en, &de)?.is_none(), true, "{name}: no word model trained");
        }
    }
    Ok(())
}
