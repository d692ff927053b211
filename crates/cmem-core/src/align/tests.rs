//! The trainer against a slow, straightforward EM on small data, and the model's
//! behaviour.

use std::collections::HashMap;

use super::*;

/// EM as a textbook writes it: a map of every (e, f) probability, every sum spelled out.
fn reference(pairs: &[(Vec<u32>, Vec<u32>)], opts: &AlignOptions) -> HashMap<(u32, u32), f64> {
    let mut t: HashMap<(u32, u32), f64> = HashMap::new();
    for (e, f) in pairs {
        for &fw in f {
            t.insert((0, fw), 1.0);
            for &ew in e {
                t.insert((ew, fw), 1.0);
            }
        }
    }
    for _ in 0..opts.iterations {
        let mut count: HashMap<(u32, u32), f64> = HashMap::new();
        let mut total: HashMap<u32, f64> = HashMap::new();
        for (e, f) in pairs {
            let (l, m) = (e.len(), f.len());
            let with_null: Vec<u32> = std::iter::once(0).chain(e.iter().copied()).collect();
            for (j, &fw) in f.iter().enumerate() {
                let a = |i: usize| -> f64 {
                    match opts.tension {
                        None => 1.0 / (l + 1) as f64,
                        Some(_) if i == 0 => opts.null_prob,
                        Some(lambda) => {
                            let h = |i: usize| {
                                (-lambda * (i as f64 / l as f64 - (j + 1) as f64 / m as f64).abs()).exp()
                            };
                            let z: f64 = (1..=l).map(h).sum();
                            (1.0 - opts.null_prob) * h(i) / z
                        }
                    }
                };
                let denom: f64 = (0..=l).map(|i| a(i) * t[&(with_null[i], fw)]).sum();
                for i in 0..=l {
                    let c = a(i) * t[&(with_null[i], fw)] / denom;
                    *count.entry((with_null[i], fw)).or_default() += c;
                    *total.entry(with_null[i]).or_default() += c;
                }
            }
        }
        for (k, v) in t.iter_mut() {
            *v = count.get(k).copied().unwrap_or(0.0) / total[&k.0];
        }
    }
    t
}

fn corpus() -> Vec<(String, String)> {
    [
        ("the house", "das Haus"),
        ("the book", "das Buch"),
        ("a book", "ein Buch"),
        ("the red house", "das rote Haus"),
        ("open the file", "Datei öffnen"),
        ("save the file", "Datei speichern"),
        ("open the folder", "Ordner öffnen"),
        ("save the folder", "Ordner speichern"),
        ("delete the file", "Datei löschen"),
        ("the file was deleted", "die Datei wurde gelöscht"),
        ("the folder was deleted", "der Ordner wurde gelöscht"),
    ]
    .iter()
    .map(|(s, t)| (s.to_string(), t.to_string()))
    .collect()
}

/// Sentence pairs as word ids.
type Ids = Vec<(Vec<u32>, Vec<u32>)>;

fn ids(pairs: &[(String, String)]) -> (Ids, usize, usize) {
    let (mut s, mut t) = (Vocab::new(), Vocab::new());
    let v = pairs.iter().map(|(a, b)| (lower_words(a, &mut s), lower_words(b, &mut t))).collect();
    (v, s.words.len(), t.words.len())
}

#[test]
fn the_trainer_computes_what_the_textbook_computes() {
    let (pairs, ns, _) = ids(&corpus());
    for tension in [None, Some(4.0)] {
        for iterations in [1, 3, 6] {
            let opts = AlignOptions::default().tension(tension).iterations(iterations);
            let fast = em::train(&em::Bitext { pairs: &pairs, f_first: false }, ns, &opts);
            let slow = reference(&pairs, &opts);
            let cells = fast.cols.len();
            assert_eq!(cells, slow.len(), "the same cells");
            for (&(e, f), &p) in &slow {
                let got = fast.prob_of(e, f);
                assert!((got - p).abs() < 1e-5, "t({f}|{e}) after {iterations}: {got} vs {p} ({tension:?})");
            }
        }
    }
}

#[test]
fn each_row_is_a_distribution() {
    let (pairs, ns, _) = ids(&corpus());
    let t = em::train(&em::Bitext { pairs: &pairs, f_first: true }, 40, &AlignOptions::default());
    let _ = ns;
    for e in 0..t.rows.len() - 1 {
        let sum: f32 = t.prob[t.rows[e]..t.rows[e + 1]].iter().sum();
        assert!(t.rows[e] == t.rows[e + 1] || (sum - 1.0).abs() < 1e-4, "row {e}: {sum}");
    }
}

#[test]
fn alignments_and_phrases_from_a_small_memory() {
    // Model 1: the verb-last German order is what the diagonal prior would fight here.
    let opts = AlignOptions::default().min_phrase_count(1).iterations(8).tension(None);
    let (model, report) = WordModel::train(corpus(), &opts);
    assert_eq!((report.pairs, report.skipped), (11, 0));
    assert!(model.prob("file", "datei") > model.prob("file", "öffnen"));
    let a = model.align("open the file", "Datei öffnen");
    assert!(a.links.contains(&(0, 1)) && a.links.contains(&(2, 0)), "{:?}", a.links);
    assert_eq!(model.phrases("file").first().map(|p| p.0.as_str()), Some("Datei"));
    assert_eq!(model.phrases("folder").first().map(|p| p.0.as_str()), Some("Ordner"));
    assert!(model.phrases("no such words").is_empty());
    // Saved and read back: the same answers.
    let back = WordModel::from_saved(&model.to_saved()).unwrap();
    assert_eq!(
        back.align("save the folder", "Ordner speichern"),
        model.align("save the folder", "Ordner speichern")
    );
    assert_eq!(back.phrases("folder"), model.phrases("folder"));
    assert_eq!(back.report(), model.report());
}

#[test]
fn bounds_and_bad_saved_models() {
    let long = ("w ".repeat(70), "x ".repeat(3));
    let pairs = vec![long, ("".to_string(), "leer".to_string()), ("one".to_string(), "eins".to_string())];
    let (_, report) = WordModel::train(pairs, &AlignOptions::default());
    assert_eq!((report.pairs, report.skipped), (1, 2));
    let err = WordModel::from_saved("{not json").unwrap_err();
    assert!(err.to_string().contains("saved word model"), "{err}");
    let (model, _) = WordModel::train(corpus(), &AlignOptions::default());
    let text = model.to_saved().replacen("\"format\":1", "\"format\":99", 1);
    assert!(WordModel::from_saved(&text).unwrap_err().to_string().contains("format 99"));
}

#[test]
fn words_are_letters_and_digits() {
    let text = "Don't open \u{FFFC}file-name 4.2!";
    let w: Vec<&str> = words(text).into_iter().map(|(a, b)| &text[a..b]).collect();
    assert_eq!(w, vec!["Don't", "open", "file", "name", "4", "2"]);
    assert!(words("  ,. \u{FFFC}").is_empty());
}

/// The checked cache reads the model again only when both the change mark and the stamp
/// moved; a store that cannot tell its mark has the stamp read each time.
#[test]
fn the_checked_cache_reads_again_only_when_the_stamp_moved() {
    use std::cell::Cell;
    let saved = WordModel::train(corpus(), &AlignOptions::default()).0.to_saved();
    let cache = ModelCache::default();
    let (stamps, loads) = (Cell::new(0), Cell::new(0));
    let get = |mark: Option<u64>, stamp: &str| {
        cache
            .get_or_load_checked(
                "en de",
                mark,
                || {
                    stamps.set(stamps.get() + 1);
                    Ok(Some(stamp.to_owned()))
                },
                || {
                    loads.set(loads.get() + 1);
                    Ok(Some(saved.clone()))
                },
            )
            .unwrap()
            .unwrap()
    };
    let first = get(Some(1), "1");
    assert_eq!((stamps.get(), loads.get()), (1, 1));
    // The same mark: neither read.
    assert!(std::sync::Arc::ptr_eq(&first, &get(Some(1), "1")));
    assert_eq!((stamps.get(), loads.get()), (1, 1));
    // Another mark, the same stamp (entries written): the stamp read, the model kept.
    assert!(std::sync::Arc::ptr_eq(&first, &get(Some(2), "1")));
    assert_eq!((stamps.get(), loads.get()), (2, 1));
    // Another stamp (a new save): read again.
    let second = get(Some(3), "2");
    assert!(!std::sync::Arc::ptr_eq(&first, &second));
    assert_eq!((stamps.get(), loads.get()), (3, 2));
    // No mark: the stamp is asked every time.
    get(None, "2");
    get(None, "2");
    assert_eq!((stamps.get(), loads.get()), (5, 2));
}
