//! Property tests of the word repair: a target whose stored source is the query is never
//! changed, and no repair drops or moves a code.

use cmem_core::ContentMemoryExt;
use std::sync::Arc;

use cmem_core::align::{AlignOptions, WordModel};
use cmem_core::repair::words::{repair_words, RepairBands};
use cmem_core::{
    lookup, Code, ContentMemory, Locale, LookupOptions, LookupRequest, MemStore, NewEntry, Run, Variant,
};
use proptest::prelude::*;

const EN: [&str; 12] = [
    "open",
    "save",
    "the",
    "file",
    "folder",
    "window",
    "print",
    "close",
    "new",
    "all",
    "E-mail",
    "PRODUCTNAME",
];
const DE: [&str; 12] = [
    "öffnen",
    "speichern",
    "die",
    "Datei",
    "Ordner",
    "Fenster",
    "drucken",
    "schließen",
    "neu",
    "alle",
    "E-Mail",
    "PRODUCTNAME",
];

/// A small memory every case's model is trained on: each English word with its German one,
/// in a few orders.
fn model() -> WordModel {
    let mut pairs = Vec::new();
    for (i, (e, d)) in EN.iter().zip(DE).enumerate() {
        let (e2, d2) = (EN[(i + 3) % EN.len()], DE[(i + 3) % DE.len()]);
        pairs.push((format!("{e} {e2}"), format!("{d2} {d}")));
        pairs.push((format!("{e2} {e}"), format!("{d} {d2}")));
        pairs.push((format!("{e} the {e2}"), format!("{d2} die {d}")));
    }
    WordModel::train(pairs, &AlignOptions::default().min_phrase_count(1)).0
}

/// Runs of words from `vocab` with codes between some of them.
fn segment(vocab: &'static [&'static str; 12]) -> impl Strategy<Value = Vec<Run>> {
    let piece = prop_oneof![
        4 => prop::sample::select(vocab.to_vec()).prop_map(|w| Run::text(format!("{w} "))),
        1 => prop::sample::select(vec!["1", "2", "3"]).prop_map(|id| Run::Ph(Code::new(id).data(format!("%{id}")))),
        1 => Just(Run::PcOpen(Code::new("b").data("<b>"))),
        1 => Just(Run::PcClose(Code::new("b").data("</b>"))),
    ];
    prop::collection::vec(piece, 1..8)
}

fn de() -> Locale {
    Locale::parse("de").unwrap()
}

fn codes(runs: &[Run]) -> Vec<(usize, Run)> {
    runs.iter().enumerate().filter(|(_, r)| !matches!(r, Run::Text(_))).map(|(i, r)| (i, r.clone())).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_source_equal_to_the_query_leaves_the_target(source in segment(&EN), target in segment(&DE)) {
        let model = model();
        let mut t = target.clone();
        let repairs = repair_words(&source, &source, &mut t, &model, &de(), 0.8);
        prop_assert!(repairs.is_empty(), "{:?}", repairs);
        prop_assert_eq!(t, target);
    }

    #[test]
    fn codes_are_never_dropped_or_moved(query in segment(&EN), source in segment(&EN), target in segment(&DE)) {
        let model = model();
        let mut t = target.clone();
        let repairs = repair_words(&query, &source, &mut t, &model, &de(), 0.8);
        // The target's codes where they were; past its end, only codes the query ends with.
        prop_assert!(t.len() >= target.len());
        prop_assert_eq!(codes(&t[..target.len()]), codes(&target), "{:?}", repairs);
        for added in &t[target.len()..] {
            prop_assert!(added.code().is_none() || query.contains(added), "{:?}", repairs);
        }
        // What is not applied changed nothing.
        if repairs.iter().all(|r| !r.applied) {
            prop_assert_eq!(&t, &target);
        }
    }

    #[test]
    fn lookup_never_repairs_an_identical_source(
        entries in prop::collection::vec((segment(&EN), segment(&DE)), 1..6),
        pick in any::<prop::sample::Index>(),
    ) {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let store = MemStore::new();
        let new: Vec<NewEntry> = entries
            .iter()
            .map(|(s, t)| NewEntry::pair(Variant::new(en.clone(), s.clone()), Variant::new(de.clone(), t.clone())))
            .collect();
        store.write(&new).unwrap();
        store.save_word_model(&en, &de, Arc::new(model())).unwrap();
        let query = entries[pick.index(entries.len())].0.clone();
        let ask = |bands| {
            let opts = LookupOptions::default().threshold(0.0).word_repair(bands);
            lookup(&store, &LookupRequest::new(query.clone(), en.clone(), de.clone()).options(opts)).unwrap()
        };
        let (on, off) = (ask(RepairBands::ALL), ask(RepairBands::OFF));
        prop_assert_eq!(on.len(), off.len());
        for (a, b) in on.iter().zip(&off) {
            prop_assert_eq!(a.score, b.score);
            if a.identical_source || a.score >= 1.0 {
                prop_assert_eq!(&a.adapted_target, &b.adapted_target);
            }
            // Codes where they were; past the end only codes the query ends with.
            let n = b.adapted_target.len();
            prop_assert!(a.adapted_target.len() >= n);
            prop_assert_eq!(codes(&a.adapted_target[..n]), codes(&b.adapted_target));
            prop_assert!(a.adapted_target[n..].iter().all(|r| r.code().is_none() || query.contains(r)));
        }
    }
}
