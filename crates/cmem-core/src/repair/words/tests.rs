use super::*;
use crate::align::AlignOptions;

fn model() -> WordModel {
    let pairs = [
        ("Open the file", "Datei öffnen"),
        ("Save the file", "Datei speichern"),
        ("Open the folder", "Ordner öffnen"),
        ("Save the folder", "Ordner speichern"),
        ("Delete the file", "Datei löschen"),
        ("Delete the folder", "Ordner löschen"),
        ("The file was saved", "Die Datei wurde gespeichert"),
        ("The folder was saved", "Der Ordner wurde gespeichert"),
        ("Close the window", "Fenster schließen"),
        ("Save the window", "Fenster speichern"),
        ("Close the file", "Datei schließen"),
        ("Print the file", "Datei drucken"),
        ("Print the folder", "Ordner drucken"),
        ("File name", "Dateiname"),
        ("Copy to LibreOffice", "Nach LibreOffice kopieren"),
        ("Copy to Firefox", "Nach Firefox kopieren"),
    ];
    let opts = AlignOptions::default().tension(None).iterations(10);
    WordModel::train(pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())), &opts).0
}

fn de() -> Locale {
    Locale::parse("de").unwrap()
}

fn run(model: &WordModel, q: &str, s: &str, t: &str) -> (String, Vec<Repair>) {
    run_at(model, q, s, t, (&de(), 0.8))
}

/// The repair of a match of `score` into `locale`.
fn run_at(
    model: &WordModel,
    q: &str,
    s: &str,
    t: &str,
    (locale, score): (&Locale, f64),
) -> (String, Vec<Repair>) {
    let mut target = vec![Run::text(t)];
    let r = repair_words(&[Run::text(q)], &[Run::text(s)], &mut target, model, locale, score);
    (crate::model::run::surface_text(&target), r)
}

#[test]
fn a_changed_word_is_replaced_by_the_phrase_the_memory_has_most() {
    let m = model();
    let (text, r) = run(&m, "Print the window", "Print the file", "Datei drucken");
    assert_eq!(text, "Fenster drucken", "{r:?}");
    assert_eq!(r.len(), 1);
    assert!(r[0].applied);
    let w = r[0].words.as_ref().unwrap();
    assert_eq!((w.target_from.as_str(), w.target_to.as_str()), ("Datei", "Fenster"));
    assert!(matches!(w.evidence, Some(Evidence::Phrase { count, .. }) if count >= 1));
}

#[test]
fn a_decomposed_accent_is_repaired_as_its_composed_form() {
    let pairs = [
        ("Open the file", "Datei öffnen"),
        ("Open the café", "Café öffnen"),
        ("Close the café", "Café schließen"),
        ("Print the file", "Datei drucken"),
        ("Close the file", "Datei schließen"),
        ("Open the folder", "Ordner öffnen"),
        ("Print the folder", "Ordner drucken"),
    ];
    let opts = AlignOptions::default().tension(None).iterations(10);
    let m = WordModel::train(pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())), &opts).0;
    let composed = run(&m, "Print the caf\u{e9}", "Print the file", "Datei drucken");
    assert_eq!(composed.0, "Café drucken", "{:?}", composed.1);
    let decomposed = run(&m, "Print the cafe\u{301}", "Print the file", "Datei drucken");
    assert_eq!(decomposed, composed);
    // A target stored decomposed aligns as its composed form, and keeps its own
    // spelling where nothing changed.
    let nfd = "Datei o\u{308}ffnen";
    assert_eq!(m.align("Open the file", nfd).links, m.align("Open the file", "Datei öffnen").links);
    let (text, r) = run(&m, "Open the cafe\u{301}", "Open the file", nfd);
    assert_eq!(text, "Café o\u{308}ffnen", "{r:?}");
}

#[test]
fn copied_words_are_copied_and_deleted_words_go() {
    let m = model();
    assert_eq!(
        run(&m, "Copy to Thunderbird", "Copy to Firefox", "Nach Firefox kopieren").0,
        "Nach Thunderbird kopieren"
    );
    let (text, r) = run(&m, "Copy to Thunderbird", "Copy to Firefox", "Nach Firefox kopieren");
    assert_eq!(r[0].words.as_ref().unwrap().evidence, Some(Evidence::Copied), "{text}");
}

#[test]
fn without_evidence_nothing_changes_and_the_repair_says_so() {
    let m = model();
    let (text, r) = run(&m, "Print the zebra", "Print the file", "Datei drucken");
    assert_eq!(text, "Datei drucken");
    assert_eq!(r.len(), 1);
    assert!(!r[0].applied);
    assert_eq!(r[0].words.as_ref().unwrap().evidence, None);
    // An inserted word has no place.
    let (text, r) = run(&m, "Print the new file", "Print the file", "Datei drucken");
    assert_eq!(text, "Datei drucken");
    assert!(r.iter().all(|r| !r.applied));
    // The same words: nothing to do.
    assert!(run(&m, "Print the file.", "Print the file", "Datei drucken").1.is_empty());
}

#[test]
fn inserted_words_go_beside_their_neighbours_translation() {
    let m = model();
    // "the file was" → "Die Datei wurde": "new" has no evidence here.
    let (text, r) = run(&m, "Print the new file", "Print the file", "Datei drucken");
    assert_eq!(text, "Datei drucken");
    assert!(r.iter().all(|r| !r.applied));
    let pairs = [
        ("all files", "alle Dateien"),
        ("all folders", "alle Ordner"),
        ("delete all files", "alle Dateien löschen"),
        ("delete files", "Dateien löschen"),
        ("open files", "Dateien öffnen"),
        ("open all files", "alle Dateien öffnen"),
        ("save files", "Dateien speichern"),
        ("save all files", "alle Dateien speichern"),
        ("print files", "Dateien drucken"),
    ];
    let opts = AlignOptions::default().tension(None).iterations(10);
    let m = WordModel::train(pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())), &opts).0;
    let (text, r) = run(&m, "print all files", "print files", "Dateien drucken");
    assert_eq!(text, "alle Dateien drucken", "{r:?}");
    assert!(
        r[0].applied
            && matches!(r[0].words.as_ref().unwrap().evidence, Some(Evidence::Phrase { context: 1, .. }))
    );
    // A target word beside the place that translates nothing of the source: the
    // target has the new words' translation already.
    let (text, r) = run(&m, "print all files", "print files", "die Dateien drucken");
    assert_eq!(text, "die Dateien drucken", "{r:?}");
}

#[test]
fn the_final_mark_follows_the_query_when_words_changed_too() {
    let m = model();
    let (text, r) = run(&m, "Print the window.", "Print the file", "Datei drucken");
    assert_eq!(text, "Fenster drucken.", "{r:?}");
    assert!(r.iter().any(|r| r.kind == RepairKind::Punctuation && r.applied && r.to == "."));
    // A target that did not mirror the source's mark is left its own.
    let (text, _) = run(&m, "Print the window.", "Print the file", "Datei drucken!");
    assert_eq!(text, "Fenster drucken!");
    // The source's mark inside a span that closes it, which the adapted target no longer
    // has (the query has none): read before the span's end.
    let span = |inner: &str| {
        use crate::model::run::Code;
        vec![
            Run::PcOpen(Code::new("1").data("<span>")),
            Run::text(inner),
            Run::PcClose(Code::new("1").data("</span>")),
        ]
    };
    let mut target = vec![Run::text("Datei drucken.")];
    repair_words(&[Run::text("Print the window")], &span("Print the file."), &mut target, &m, &de(), 0.8);
    assert_eq!(target, vec![Run::text("Fenster drucken")]);
    // Both in a span, the query's mark inside it too: nothing to change.
    let mut target = vec![Run::text("Datei drucken.")];
    repair_words(&span("Print the window."), &span("Print the file."), &mut target, &m, &de(), 0.8);
    assert_eq!(target, vec![Run::text("Fenster drucken.")]);
}

#[test]
fn codes_the_query_adds_after_its_last_word_end_the_target_too() {
    let m = model();
    let code = Run::Ph(crate::model::run::Code::new("1").data("%s"));
    let mut target = vec![Run::text("Datei drucken")];
    let query = [Run::text("Print the window: "), code.clone()];
    let r = repair_words(&query, &[Run::text("Print the file")], &mut target, &m, &de(), 0.8);
    assert_eq!(target, vec![Run::text("Fenster drucken: "), code.clone()], "{r:?}");
    assert!(r.iter().all(|r| r.applied), "{r:?}");
    // A code standing for the words the query dropped at the end is a word become a
    // code: left.
    let mut target = vec![Run::text("Datei drucken")];
    let dropped = [Run::text("Print "), code.clone()];
    repair_words(&dropped, &[Run::text("Print the file")], &mut target, &m, &de(), 0.8);
    assert_eq!(target, vec![Run::text("Datei drucken")]);
    // Where the target's end is not the source's, it is left.
    let mut target = vec![Run::text("Datei drucken (bitte)")];
    repair_words(&query, &[Run::text("Print the file")], &mut target, &m, &de(), 0.8);
    assert_eq!(target, vec![Run::text("Fenster drucken (bitte)")]);
}

#[test]
fn moved_words_keep_their_translation() {
    let m = model();
    let (text, r) = run(&m, "the file print", "print the file", "Datei drucken");
    assert_eq!(text, "Datei drucken");
    assert!(r.iter().all(|r| !r.applied), "{r:?}");
}

#[test]
fn a_copied_word_is_translated_when_the_memory_translates_the_new_one() {
    let m = model();
    assert_eq!(run(&m, "Copy to file", "Copy to Firefox", "Nach Firefox kopieren").0, "Nach Datei kopieren");
    let (text, r) = run(&m, "Copy to Thunderbird", "Copy to Firefox", "Nach Firefox kopieren");
    assert_eq!(text, "Nach Thunderbird kopieren");
    assert_eq!(r[0].words.as_ref().unwrap().evidence, Some(Evidence::Copied));
}

#[test]
fn respelled_words_and_words_become_codes_are_left() {
    let m = model();
    assert!(run(&m, "Print the email", "Print the e-mail", "E-Mail drucken").1.is_empty());
    let code = Run::Ph(crate::model::run::Code::new("1").data("%PRODUCTNAME"));
    let mut target = vec![Run::text("Modul PRODUCTNAME Writer")];
    let r = repair_words(
        &[Run::text("module "), code, Run::text(" Writer")],
        &[Run::text("module PRODUCTNAME Writer")],
        &mut target,
        &m,
        &de(),
        0.8,
    );
    assert_eq!(target, vec![Run::text("Modul PRODUCTNAME Writer")]);
    assert!(r.iter().all(|r| !r.applied), "{r:?}");
}

#[test]
fn codes_keep_their_places_and_choices_are_left_alone() {
    let m = model();
    let code = Run::Ph(crate::model::run::Code::new("1").data("%s"));
    let mut target = vec![Run::text("Datei "), code.clone(), Run::text(" drucken")];
    let r = repair_words(
        &[Run::text("Print the "), code.clone(), Run::text(" window")],
        &[Run::text("Print the "), code.clone(), Run::text(" file")],
        &mut target,
        &m,
        &de(),
        0.8,
    );
    assert_eq!(target[1], code);
    assert_eq!(target.iter().filter(|r| r.code().is_some()).count(), 1, "{r:?}");
}

#[test]
fn near_exact_matches_take_a_phrase_pair_only_between_both_neighbours() {
    let m = model();
    // "Fenster" agrees with no neighbour (the word starts the target).
    assert_eq!(run(&m, "Print the window", "Print the file", "Datei drucken").0, "Fenster drucken");
    let (text, r) = run_at(&m, "Print the window", "Print the file", "Datei drucken", (&de(), 0.96));
    assert_eq!(text, "Datei drucken");
    assert!(r.iter().all(|r| !r.applied), "{r:?}");
}

#[test]
fn trusted_phrase_pairs() {
    let all: Vec<(String, u32)> =
        [("Fenster", 3), ("A", 4), ("B", 4), ("C", 4), ("D", 4)].map(|(t, n)| (t.to_owned(), n)).into();
    let words = ("window", "door", "datei");
    // Alone, a pair needs a fifth of the memory's pairs for the words.
    let mut found: Vec<Candidate> = vec![("Fenster".into(), 0, 3), ("A".into(), 0, 4)];
    trust(&mut found, &all, 0.8, words);
    assert_eq!(found, vec![("A".to_owned(), 0, 4)]);
    // Agreeing with a neighbour, any count.
    let mut found: Vec<Candidate> = vec![("Fenster".into(), 1, 3)];
    trust(&mut found, &all, 0.8, words);
    assert_eq!(found.len(), 1);
    // Near an exact match, with both neighbours only.
    let mut found: Vec<Candidate> = vec![("Fenster".into(), 1, 3), ("Tür".into(), 2, 1)];
    trust(&mut found, &all, 0.96, words);
    assert_eq!(found, vec![("Tür".to_owned(), 2, 1)]);
    // Forms of one word (`style` → `styles`) take forms of the target's word first.
    let all: Vec<(String, u32)> = [("Stile", 10), ("Vorlagen", 5)].map(|(t, n)| (t.to_owned(), n)).into();
    let mut found: Vec<Candidate> = vec![("Stile".into(), 0, 10), ("Vorlagen".into(), 0, 5)];
    trust(&mut found, &all, 0.8, ("style", "styles", "vorlage"));
    assert_eq!(found[0].0, "Vorlagen");
    let mut found: Vec<Candidate> = vec![("Stile".into(), 0, 10), ("Vorlagen".into(), 0, 5)];
    trust(&mut found, &all, 0.8, ("layout", "styles", "vorlage"));
    assert_eq!(found[0].0, "Stile");
}

#[test]
fn words_in_capitals_are_translated_in_capitals() {
    let pairs = [("Sort", "Sortieren"), ("Sort", "Sortieren"), ("SQRT", "WURZEL"), ("SQRT", "WURZEL")];
    let opts = AlignOptions::default().tension(None).iterations(10);
    let m = WordModel::train(pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())), &opts).0;
    assert_eq!(run(&m, "SORT", "SQRT", "WURZEL").0, "SORTIEREN");
    assert_eq!(run(&m, "Sort", "SQRT", "WURZEL").0, "Sortieren");
}

#[test]
fn a_compound_word_is_rebuilt_around_the_part_that_stays() {
    let pairs = [
        ("Payment details", "Zahlungsdetails"),
        ("Payment", "Zahlung"),
        ("details", "Details"),
        ("Event", "Ereignis"),
        ("Warning", "Warnung"),
        ("added", "hinzugefügt"),
    ];
    let opts = AlignOptions::default().tension(None).iterations(10).min_phrase_count(1);
    let m = WordModel::train(pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())), &opts).0;
    let (text, r) = run(&m, "Event details", "Payment details", "Zahlungsdetails");
    assert_eq!(text, "Ereignisdetails", "{r:?}");
    assert!(
        matches!(&r[0].words.as_ref().unwrap().evidence, Some(Evidence::Compound { kept, .. }) if kept == "details"),
        "{r:?}"
    );
    // The joint German writes after `-ung`.
    assert_eq!(run(&m, "Warning details", "Payment details", "Zahlungsdetails").0, "Warnungsdetails");
    // Only a noun goes into a compound.
    let (text, r) = run(&m, "Payment added", "Payment details", "Zahlungsdetails");
    assert_eq!(text, "Zahlungsdetails");
    assert!(r.iter().all(|r| !r.applied), "{r:?}");
    // Only in German.
    let fr = Locale::parse("fr").unwrap();
    let (text, _) = run_at(&m, "Event details", "Payment details", "Zahlungsdetails", (&fr, 0.8));
    assert_eq!(text, "Zahlungsdetails");
}

#[test]
fn bands() {
    let b = RepairBands { low: false, mid: true, high: true };
    assert!(!b.covers(0.80) && b.covers(0.85) && b.covers(0.97));
    assert!(!RepairBands::OFF.covers(0.99) && RepairBands::ALL.covers(0.5));
}

#[test]
fn hunks_of_words() {
    let w = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(hunks(&w("a b c"), &w("a x c")), vec![(1, 2, 1, 2)]);
    assert_eq!(hunks(&w("a b c"), &w("a c")), vec![(1, 2, 1, 1)]);
    assert_eq!(hunks(&w("a c"), &w("a b c")), vec![(1, 1, 1, 2)]);
    assert!(hunks(&w("a b"), &w("a b")).is_empty());
}
