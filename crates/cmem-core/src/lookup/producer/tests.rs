//! The producer's unit tests.

use super::*;
use crate::align::AlignOptions;
use crate::model::entry::{NewEntry, Variant};
use crate::model::locale::Locale;
use crate::model::run::Run;
use crate::store::mem::MemStore;

fn store(pairs: &[(&str, &str)]) -> MemStore {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let s = MemStore::new();
    let entries: Vec<NewEntry> = pairs
        .iter()
        .map(|(a, b)| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(*a)]),
                Variant::new(de.clone(), vec![Run::text(*b)]),
            )
        })
        .collect();
    s.write(&entries).unwrap();
    s
}

fn ask(text: &str) -> ContextRequest {
    ContextRequest::new(LookupRequest::from_tags(vec![Run::text(text)], "en", "de").unwrap())
}

#[test]
fn near_duplicates_never_fill_the_list() {
    let s = store(&[
        ("Delete the selected file", "Die ausgewählte Datei löschen"),
        ("Delete the selected files", "Die ausgewählten Dateien löschen"),
        ("Delete the selected folder", "Den ausgewählten Ordner löschen"),
        ("Delete the selected item", "Das ausgewählte Element löschen"),
        ("Move to the trash", "In den Papierkorb verschieben"),
    ]);
    let c = context_for(&s, &ask("Delete the selected file and move it to the trash")).unwrap();
    let targets: Vec<&str> = c.examples.iter().map(|e| e.target.as_str()).collect();
    // The rarer words first ("trash" is in one candidate, "delete" in four), then the
    // one near-duplicate that adds "file"; only when the segment is covered does a
    // second round take the others, each adding what the first round had.
    assert_eq!(targets[..2], ["In den Papierkorb verschieben", "Die ausgewählte Datei löschen"]);
    assert!(c.examples[0].covers.contains(&"trash".to_owned()), "{:?}", c.examples[0].covers);
    assert!(c.examples[1].covers.contains(&"selected file".to_owned()), "{:?}", c.examples[1].covers);
    assert_eq!(c.examples.len(), 5, "{targets:?}");
    let two = ask("Delete the selected file and move it to the trash")
        .options(ContextOptions::default().examples(2));
    assert_eq!(context_for(&s, &two).unwrap().examples.len(), 2);
}

#[test]
fn the_word_search_finds_what_no_near_match_holds() {
    let s = store(&[
        ("Open the settings", "Einstellungen öffnen"),
        ("The clipboard is empty", "Die Zwischenablage ist leer"),
    ]);
    let c = context_for(&s, &ask("Open the settings of the clipboard")).unwrap();
    let found: Vec<&str> = c.examples.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(found, ["Einstellungen öffnen", "Die Zwischenablage ist leer"]);
    assert_eq!(c.examples[1].match_score, None, "offered by the word search");
}

#[test]
fn budgets_bound_the_examples() {
    let s = store(&[("Save the file", "Datei speichern"), ("Print the report", "Bericht drucken")]);
    let one = ask("Save the report").options(ContextOptions::default().examples(1));
    assert_eq!(context_for(&s, &one).unwrap().examples.len(), 1);
    let tight = ask("Save the report").options(ContextOptions::default().max_example_chars(29));
    let c = context_for(&s, &tight).unwrap();
    assert_eq!(c.examples.len(), 1, "28 characters fit, two examples do not");
    let strict = ask("Save the report").options(ContextOptions::default().min_example_score(0.99));
    assert!(context_for(&s, &strict).unwrap().examples.is_empty());
    assert!(context_for(&s, &ask("x").options(ContextOptions::default().examples(21))).is_err());
    assert!(context_for(&s, &ask("x").options(ContextOptions::default().min_example_score(2.0))).is_err());
}

#[test]
fn an_exact_match_short_circuits() {
    let s = store(&[("Save the file", "Datei speichern"), ("Save the report", "Bericht speichern")]);
    let c = context_for(&s, &ask("Save the file")).unwrap();
    assert!(c.exact && c.examples.is_empty() && c.glossary.is_empty());
    assert_eq!(c.matches[0].target_text(), "Datei speichern");
    let open = ask("Save the file").options(ContextOptions::default().short_circuit_exact(false));
    let c = context_for(&s, &open).unwrap();
    assert!(!c.exact && !c.examples.is_empty());
}

#[test]
fn glossary_from_the_word_model_agrees_with_the_examples() {
    let pairs = [
        ("the red house", "das rote Haus"),
        ("the house", "das Haus"),
        ("the red car", "das rote Auto"),
        ("a car", "ein Auto"),
        ("the car is red", "das Auto ist rot"),
    ];
    let s = store(&pairs);
    let c = context_for(&s, &ask("the red car")).unwrap();
    assert!(!c.word_model && c.glossary.is_empty(), "no model, no glossary");
    let (model, _) = WordModel::train(
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())),
        &AlignOptions::default().min_phrase_count(1),
    );
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    s.save_word_model(&en, &de, std::sync::Arc::new(model)).unwrap();
    let req = ask("a red house").options(ContextOptions::default().short_circuit_exact(false));
    let c = context_for(&s, &req).unwrap();
    assert!(c.word_model);
    let house = c.glossary.iter().find(|g| g.source.split(' ').any(|w| w == "house")).unwrap();
    assert!(house.target.contains("Haus"), "{house:?}");
    assert!(!house.in_examples.is_empty(), "an example shows it: {c:?}");
    assert!(c.glossary.len() <= 10);
}

#[test]
fn examples_whose_translation_holds_the_expected_words_come_first() {
    // "account" is translated "Konto" wherever the memory holds it, except in the entry
    // nearest the segment, whose translation leaves it out.
    let pairs = [
        ("the account", "das Konto"),
        ("open the account", "das Konto öffnen"),
        ("close the account", "das Konto schließen"),
        ("the account is open", "das Konto ist offen"),
        ("delete the file", "die Datei löschen"),
        ("delete the folder", "den Ordner löschen"),
        ("delete it", "es löschen"),
        ("delete the old account", "den alten Benutzer löschen"),
        ("delete the user account", "das Konto des Benutzers löschen"),
    ];
    let s = store(&pairs);
    let req = ask("delete the account").options(ContextOptions::default().short_circuit_exact(false));
    let order = |c: &Context| -> (usize, usize) {
        let at = |t: &str| c.examples.iter().position(|e| e.target == t).unwrap_or(usize::MAX);
        (at("den alten Benutzer löschen"), at("das Konto des Benutzers löschen"))
    };
    let (wrong, right) = order(&context_for(&s, &req).unwrap());
    assert!(wrong < right, "without a model the nearer source comes first: {wrong} {right}");
    let (model, _) = WordModel::train(
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())),
        &AlignOptions::default().min_phrase_count(1),
    );
    assert_eq!(model.phrases("account").first().map(|(t, _)| t.as_str()), Some("Konto"));
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    s.save_word_model(&en, &de, std::sync::Arc::new(model)).unwrap();
    let c = context_for(&s, &req).unwrap();
    let (wrong, right) = order(&c);
    assert!(right < wrong, "the one that shows \"Konto\" first: {right} {wrong} {:?}", c.examples);
}
