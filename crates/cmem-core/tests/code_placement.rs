//! Code placement through a lookup (docs/matching.md §5): the issue's bold around *Save*
//! against a styled span, with the memory's word model and without; and, over random
//! segments, that placing codes only moves codes and white space.

use std::sync::Arc;

use cmem_core::align::{text_of, AlignOptions, WordModel};
use cmem_core::model::run::surface_text;
use cmem_core::repair::adapt::adapt_with;
use cmem_core::repair::place::{PlacedBy, WordLinks};
use cmem_core::repair::words::RepairBands;
use cmem_core::{
    lookup, Code, ContentMemory, ContentMemoryExt, Locale, LookupOptions, LookupRequest, Match, MemStore,
    NewEntry, Run, Variant,
};
use proptest::prelude::*;

fn pair(open: &str, close: &str, kind: &str, inner: &str) -> Vec<Run> {
    vec![
        Run::PcOpen(Code::new("1").kind(kind).data(open)),
        Run::text(inner),
        Run::PcClose(Code::new("1").kind(kind).data(close)),
    ]
}

/// `<span class="avis">…</span>` as the recognizer gives it.
fn span(inner: &str) -> Vec<Run> {
    pair("<span class=\"avis\">", "</span>", "x-html-span", inner)
}

/// A memory with the issue's styled entry and plain neighbours, as the web page's test
/// has it, and the lookup of `<b>Save</b> the file` in it: the match of the styled entry.
fn the_issues_match(store: &MemStore, repair: RepairBands) -> Match {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let mut query = pair("<b>", "</b>", "x-html-b", "Save");
    query.push(Run::text(" the file"));
    let opts = LookupOptions::default().threshold(0.5).word_repair(repair);
    let matches = lookup(store, &LookupRequest::new(query, en, de).options(opts)).unwrap();
    matches.into_iter().find(|m| m.source_text().starts_with("<span")).expect("the styled entry")
}

fn memory() -> MemStore {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let plain = [
        ("Save the file:", "Datei speichern:"),
        ("Save the files", "Dateien speichern"),
        ("Save the file now", "Datei jetzt speichern"),
        ("Save the file as", "Datei speichern unter"),
        ("Save the new file", "Neue Datei speichern"),
        ("Save a file", "Eine Datei speichern"),
        ("Saves the document.", "Speichert das Dokument."),
        ("Saves the page.", "Speichert die Seite."),
        ("Opens the file.", "Öffnet die Datei."),
    ];
    let mut entries: Vec<NewEntry> = plain
        .iter()
        .map(|(s, t)| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(*s)]),
                Variant::new(de.clone(), vec![Run::text(*t)]),
            )
        })
        .collect();
    entries.push(NewEntry::pair(
        Variant::new(en.clone(), span("Saves the file.")),
        Variant::new(de.clone(), span("Speichert die Datei.")),
    ));
    let store = MemStore::new();
    store.write(&entries).unwrap();
    store
}

/// The word model an import trains (the default options) over the memory.
fn train(store: &MemStore) {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let mut pairs = Vec::new();
    for id in 1..=10 {
        if let Some(e) = store.get(cmem_core::EntryId(id)).unwrap() {
            pairs.push((text_of(&e.variants[0].runs), text_of(&e.variants[1].runs)));
        }
    }
    assert_eq!(pairs.len(), 10);
    let (model, _) = WordModel::train(pairs, &AlignOptions::default());
    store.save_word_model(&en, &de, Arc::new(model)).unwrap();
}

#[test]
fn the_bold_goes_around_the_word_the_model_aligns_with_the_one_it_marks() {
    let store = memory();
    // No word model: the bold takes the span's place, around the whole sentence, and the
    // match says where it went and why.
    let m = the_issues_match(&store, RepairBands::DEFAULT);
    assert_eq!(m.adapted_text(), "<b>Speichert die Datei.</b>");
    assert_eq!(m.code_adaptations.len(), 2, "{:?}", m.code_adaptations);
    for a in &m.code_adaptations {
        let p = a.placement.as_ref().unwrap();
        assert_eq!((p.by, p.target.as_str()), (PlacedBy::Stored, "Speichert die Datei."), "{a:?}");
        assert!(a.applied && a.placed_by_rule(), "{a:?}");
    }

    // With the model the memory's imports train: *Saves* is *Speichert*.
    train(&store);
    let m = the_issues_match(&store, RepairBands::OFF);
    assert_eq!(m.adapted_text(), "<b>Speichert</b> die Datei.");
    for a in &m.code_adaptations {
        let p = a.placement.as_ref().unwrap();
        assert_eq!((p.by, p.target.as_str()), (PlacedBy::Alignment, "Speichert"), "{a:?}");
        assert!(a.applied && !a.placed_by_rule(), "{a:?}");
    }
    assert!(m.adaptation_complete());
    // As looked up: the query has no full stop, and neither has the translation then
    // (the word repair's final mark, read before the span that closed the source). The
    // verb stays: the memory has no trusted translation of *Save* beside *die Datei*.
    let m = the_issues_match(&store, RepairBands::DEFAULT);
    assert_eq!(m.adapted_text(), "<b>Speichert</b> die Datei");
    assert_eq!(
        m.unrepaired_target.as_deref().map(surface_text).as_deref(),
        Some("<b>Speichert</b> die Datei.")
    );
}

/// Words from a small vocabulary with codes between some of them.
fn segment(vocab: &'static [&'static str]) -> impl Strategy<Value = Vec<Run>> {
    let piece = prop_oneof![
        4 => prop::sample::select(vocab.to_vec()).prop_map(|w| Run::text(format!("{w} "))),
        1 => prop::sample::select(vec!["1", "2"]).prop_map(|id| Run::Ph(Code::new(id).data(format!("%{id}")))),
        1 => prop::sample::select(vec!["b", "i"]).prop_map(|id| Run::PcOpen(Code::new(id).data(format!("<{id}>")))),
        1 => prop::sample::select(vec!["b", "i"]).prop_map(|id| Run::PcClose(Code::new(id).data(format!("</{id}>")))),
    ];
    prop::collection::vec(piece, 1..9)
}

/// The words `words` of `vocab` with `codes` put before the word at each one's gap (the
/// end: after the last), in order.
fn build(vocab: &[&str], words: &[usize], codes: &[(usize, Run)]) -> Vec<Run> {
    let mut out = Vec::new();
    for k in 0..=words.len() {
        out.extend(codes.iter().filter(|(g, _)| *g == k).map(|(_, c)| c.clone()));
        if let Some(&w) = words.get(k) {
            out.push(Run::text(if k + 1 < words.len() {
                format!("{} ", vocab[w])
            } else {
                vocab[w].to_owned()
            }));
        }
    }
    out
}

/// A query, stored source and stored target whose codes stand at other words in the
/// query: one word the same for each, a bold pair and a placeholder in each, an italic
/// pair the query adds; the target in the source's word order or the reverse.
fn moved() -> impl Strategy<Value = (Vec<Run>, Vec<Run>, Vec<Run>)> {
    prop::collection::vec(0..EN.len(), 2..7)
        .prop_flat_map(|w| {
            let n = w.len();
            let gaps = prop::collection::vec(0..=n, 8);
            (Just(w), gaps, any::<bool>(), 0..EN.len())
        })
        .prop_map(|(w, g, reverse, new_word)| {
            let n = w.len();
            let range = |a: usize, b: usize| (a.min(b), a.max(b));
            let b = |id: &str, (a, z): (usize, usize)| {
                [
                    (a, Run::PcOpen(Code::new(id).data(format!("<{id}>")))),
                    (z, Run::PcClose(Code::new(id).data(format!("</{id}>")))),
                ]
            };
            let ph = |at: usize| (at, Run::Ph(Code::new("1").data("%s")));
            let (s_pair, q_pair, added) = (range(g[0], g[1]), range(g[2], g[3]), range(g[4], g[5]));
            let mut s_codes = b("b", s_pair).to_vec();
            s_codes.push(ph(g[6]));
            let mut q_codes = b("b", q_pair).to_vec();
            q_codes.extend(b("i", added));
            q_codes.push(ph(g[7]));
            let mut q_words = w.clone();
            q_words[0] = new_word;
            let (t_words, t_pair, t_ph) = if reverse {
                (w.iter().rev().copied().collect::<Vec<_>>(), range(n - s_pair.1, n - s_pair.0), n - g[6])
            } else {
                (w.clone(), s_pair, g[6])
            };
            let mut t_codes = b("b", t_pair).to_vec();
            t_codes.push(ph(t_ph));
            (build(&EN, &q_words, &q_codes), build(&EN, &w, &s_codes), build(&DE, &t_words, &t_codes))
        })
}

const EN: [&str; 6] = ["open", "save", "the", "file", "LibreOffice", "now"];
const DE: [&str; 6] = ["öffnen", "speichern", "die", "Datei", "LibreOffice", "jetzt"];

fn model() -> WordModel {
    let mut pairs = Vec::new();
    for (i, (e, d)) in EN.iter().zip(DE).enumerate() {
        let (e2, d2) = (EN[(i + 1) % EN.len()], DE[(i + 1) % DE.len()]);
        pairs.push((format!("{e} {e2}"), format!("{d2} {d}")));
        pairs.push((format!("{e} the {e2}"), format!("{d2} die {d}")));
    }
    WordModel::train(pairs, &AlignOptions::default().min_phrase_count(1)).0
}

/// The text without codes and white space.
fn letters(runs: &[Run]) -> String {
    cmem_core::model::run::plain_text(runs).chars().filter(|c| !c.is_whitespace()).collect()
}

fn codes(runs: &[Run]) -> Vec<Run> {
    let mut out: Vec<Run> = runs.iter().filter(|r| r.code().is_some()).cloned().collect();
    out.sort();
    out
}

/// Every pair's halves in order, none crossing another: what a file can write as markup.
fn nested(runs: &[Run]) -> bool {
    let mut open: Vec<&str> = Vec::new();
    for r in runs {
        match r {
            Run::PcOpen(c) => open.push(&c.id),
            Run::PcClose(c) if open.last() == Some(&c.id.as_str()) => {
                open.pop();
            }
            Run::PcClose(_) => return false,
            _ => {}
        }
    }
    open.is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Placing codes moves codes and white space only: the rule's codes all stay, the
    /// ones added are the query's, and a target nested as markup stays so.
    #[test]
    fn placing_codes_moves_only_codes_and_white_space(
        (query, source, target) in prop_oneof![
            (segment(&EN), segment(&EN), segment(&DE)),
            moved(),
        ],
    ) {
        let model = model();
        let rule = adapt_with(&query, &source, &target, false, WordLinks::Rule);
        for links in [WordLinks::Own, WordLinks::Model(&model)] {
            let placed = adapt_with(&query, &source, &target, false, links);
            prop_assert_eq!(letters(&placed.target), letters(&rule.target));
            let (mut rule_codes, placed_codes) = (codes(&rule.target), codes(&placed.target));
            for c in &placed_codes {
                match rule_codes.iter().position(|r| r == c) {
                    Some(k) => {
                        rule_codes.remove(k);
                    }
                    None => prop_assert!(query.contains(c), "{:?} is not the query's", c),
                }
            }
            prop_assert!(rule_codes.is_empty(), "lost {:?}", rule_codes);
            if nested(&rule.target) {
                prop_assert!(nested(&placed.target), "{:?}", placed.target);
            }
        }
    }
}
