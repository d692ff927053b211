//! `LookupOptions::score_floors`: the best match found with floors lies in the band of
//! the best match found without them.

use cmem_core::{
    lookup, ContentMemory, Locale, LookupOptions, LookupRequest, MemStore, NewEntry, Run, Variant,
};

const WORDS: [&str; 12] = [
    "open", "close", "save", "the", "file", "folder", "now", "again", "quickly", "printer", "settings",
    "window",
];

/// A deterministic sentence of `n` words from `seed`.
fn sentence(seed: &mut u64, n: usize) -> String {
    let mut words = Vec::with_capacity(n);
    for _ in 0..n {
        *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        words.push(WORDS[(*seed >> 33) as usize % WORDS.len()]);
    }
    words.join(" ")
}

fn band(score: Option<f64>, floors: &[f64]) -> Option<u32> {
    let pct = (score? * 100.0 + 1e-9).floor();
    floors.iter().map(|f| (f * 100.0).round()).filter(|&f| pct >= f).map(|f| f as u32).next()
}

#[test]
fn the_best_match_with_floors_is_in_the_band_of_the_best() {
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let store = MemStore::new();
    let mut seed = 7;
    let entries: Vec<NewEntry> = (0..400)
        .map(|i| {
            let text = sentence(&mut seed, 3 + i % 4);
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(text.clone())]),
                Variant::new(de.clone(), vec![Run::text(format!("{i} {text}"))]),
            )
        })
        .collect();
    store.write(&entries).unwrap();
    // Highest first, as analyze gives them.
    let floors = [1.0, 0.95, 0.85, 0.75, 0.5];
    let mut bands_seen = std::collections::BTreeSet::new();
    let mut differing = 0;
    for i in 0..300 {
        let text = sentence(&mut seed, 3 + i % 5);
        let ask = |options: LookupOptions| {
            let req =
                LookupRequest::new(vec![Run::text(text.clone())], en.clone(), de.clone()).options(options);
            lookup(&store, &req).unwrap().first().map(|m| (m.score, m.entry.id))
        };
        let options = LookupOptions::default().threshold(0.5).limit(1).exhaustive();
        let best = ask(options.clone());
        let banded = ask(options.score_floors(floors.to_vec()));
        let want = band(best.map(|b| b.0), &floors);
        assert_eq!(band(banded.map(|b| b.0), &floors), want, "{text:?}: {best:?} and {banded:?}");
        differing += usize::from(best != banded);
        bands_seen.insert(want);
    }
    // The queries reach several bands, and the floors stop short of the best match.
    assert!(bands_seen.len() >= 4, "{bands_seen:?}");
    assert!(differing > 0);
}
