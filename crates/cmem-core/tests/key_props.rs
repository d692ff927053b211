//! Property tests of the matching keys and of `lookup` over arbitrary runs
//! (STYLE: keys idempotent and equal under canonical equivalence; scores in range
//! and ordered deterministically).

use cmem_core::imp::Keys;
use cmem_core::{
    flatten_runs, generalized_text, lookup, normalize_text, structural_text, Choice, Code, ContentMemory,
    Locale, LookupOptions, LookupRequest, MemStore, NewEntry, Run, Variant,
};
use proptest::prelude::*;
use unicode_normalization::{is_nfc, UnicodeNormalization};

/// Text that often holds what normalization acts on: combining marks, jamo, Arabic
/// marks, white space of many kinds, braces; and sometimes anything at all.
fn text() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        "e", "\u{0301}", "\u{0323}", "\u{0302}", "a", "\u{00E9}", "\u{1100}", "\u{1161}", "\u{11A8}",
        "\u{AC01}", "\u{0627}", "\u{0654}", "\u{0651}", "\u{064E}", "\u{212B}", " ", "\t", "\n", "\u{00A0}",
        "\u{3000}", "\u{2028}", "\u{200B}", "{", "}", "{1/}", "[", "%s", "<b>", "x", "\u{0300}", "\u{0345}",
        "\u{0F73}",
    ]);
    prop_oneof![
        3 => prop::collection::vec(tricky, 0..8).prop_map(|v| v.concat()),
        1 => any::<String>(),
    ]
}

fn code() -> impl Strategy<Value = Code> {
    let id = prop::sample::select(vec!["1", "2", "3", "a", ""]);
    let kind = prop::sample::select(vec!["", "bold", "x-html-b", "PERSON", "DATE", "ORGANIZATION"]);
    (id, text(), kind, text())
        .prop_map(|(id, equiv, kind, data)| Code::new(id).equiv(equiv).kind(kind).data(data))
}

fn runs() -> impl Strategy<Value = Vec<Run>> {
    let leaf = prop_oneof![
        3 => text().prop_map(Run::Text),
        1 => code().prop_map(Run::Ph),
        1 => code().prop_map(Run::PcOpen),
        1 => code().prop_map(Run::PcClose),
        1 => code().prop_map(Run::Sub),
    ];
    let run = leaf.prop_recursive(3, 24, 4, |inner| {
        let key = prop::sample::select(vec!["one", "other", "=0", "few", "female", "{x}"]);
        let forms =
            prop::collection::vec((key.prop_map(String::from), prop::collection::vec(inner, 0..4)), 0..4);
        (text(), forms, any::<bool>()).prop_map(|(var, forms, plural)| {
            let choice = Choice { var, forms };
            if plural {
                Run::Plural(choice)
            } else {
                Run::Select(choice)
            }
        })
    });
    prop::collection::vec(run, 0..6)
}

/// Applies `f` to every string of the runs except ids and types (which stay ASCII here,
/// so they pair alike).
fn map_strings(runs: &[Run], f: &dyn Fn(&str) -> String) -> Vec<Run> {
    let code =
        |c: &Code| Code { id: c.id.clone(), kind: c.kind.clone(), equiv: f(&c.equiv), data: f(&c.data) };
    let choice = |c: &Choice| Choice {
        var: f(&c.var),
        forms: c.forms.iter().map(|(k, r)| (f(k), map_strings(r, f))).collect(),
    };
    runs.iter()
        .map(|r| match r {
            Run::Text(t) => Run::Text(f(t)),
            Run::Ph(c) => Run::Ph(code(c)),
            Run::PcOpen(c) => Run::PcOpen(code(c)),
            Run::PcClose(c) => Run::PcClose(code(c)),
            Run::Sub(c) => Run::Sub(code(c)),
            Run::Plural(c) => Run::Plural(choice(c)),
            Run::Select(c) => Run::Select(choice(c)),
        })
        .collect()
}

fn key_list(runs: &[Run]) -> [String; 3] {
    [flatten_runs(runs), structural_text(runs), generalized_text(runs)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn normalize_is_idempotent_and_nfc(s in text()) {
        let n = normalize_text(&s);
        prop_assert_eq!(normalize_text(&n), n.clone());
        prop_assert!(is_nfc(&n), "{:?} → {:?} is not NFC", s, n);
        prop_assert!(!n.starts_with(' ') && !n.ends_with(' ') && !n.contains("  "));
        prop_assert!(!n.chars().any(|c| c.is_whitespace() && c != ' '));
        let nfd: String = s.nfd().collect();
        prop_assert_eq!(normalize_text(&nfd), n);
    }

    #[test]
    fn keys_are_normalized_and_nfc(runs in runs()) {
        for key in key_list(&runs) {
            prop_assert_eq!(normalize_text(&key), key.clone());
            prop_assert!(is_nfc(&key), "key {:?} is not NFC", key);
        }
        let k = Keys::of(&runs);
        prop_assert_eq!([k.plain, k.structural, k.generalized], key_list(&runs));
    }

    #[test]
    fn keys_equal_under_canonical_equivalence(runs in runs()) {
        let nfd = map_strings(&runs, &|s| s.nfd().collect());
        let nfc = map_strings(&runs, &|s| s.nfc().collect());
        let keys = key_list(&runs);
        prop_assert_eq!(&key_list(&nfd), &keys);
        prop_assert_eq!(&key_list(&nfc), &keys);
    }

    #[test]
    fn text_only_segments_have_one_key(s in text()) {
        // Without codes the structural and generalized keys are the plain key with its
        // braces doubled.
        let runs = [Run::Text(s)];
        let [plain, structural, generalized] = key_list(&runs);
        prop_assert_eq!(&structural, &generalized);
        prop_assert_eq!(structural, plain.replace('{', "{{").replace('}', "}}"));
    }
}

fn entry_pair() -> impl Strategy<Value = (Vec<Run>, Vec<Run>)> {
    (runs(), runs())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn lookup_scores_in_range_and_ordered(
        entries in prop::collection::vec(entry_pair(), 0..6),
        query in runs(),
        pick in any::<prop::sample::Index>(),
        threshold in 0.0f64..=1.0,
        limit in 1usize..12,
    ) {
        let en = Locale::parse("en").unwrap();
        let de = Locale::parse("de").unwrap();
        let store = MemStore::new();
        let new: Vec<NewEntry> = entries
            .iter()
            .map(|(s, t)| NewEntry::pair(Variant::new(en.clone(), s.clone()), Variant::new(de.clone(), t.clone())))
            .collect();
        store.write(&new).unwrap();

        // An arbitrary query, and a query equal to one stored source.
        let mut queries = vec![query];
        if !entries.is_empty() {
            queries.push(entries[pick.index(entries.len())].0.clone());
        }
        for (qi, q) in queries.into_iter().enumerate() {
            let opts = LookupOptions::default().threshold(threshold).limit(limit);
            let req = LookupRequest::new(q.clone(), en.clone(), de.clone()).options(opts);
            let matches = lookup(&store, &req).unwrap();
            prop_assert!(matches.len() <= limit);
            for m in &matches {
                prop_assert!((0.0..=1.0).contains(&m.score), "score {}", m.score);
                prop_assert!(m.score + 1e-9 >= threshold, "score {} under threshold {}", m.score, threshold);
            }
            for w in matches.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                // Score, then the evidence (identical source, approvals, newest approval),
                // then tier and id.
                let evidence = |m: &cmem_core::Match| {
                    (std::cmp::Reverse(m.identical_source), std::cmp::Reverse(m.entry.approvals()),
                     std::cmp::Reverse(m.entry.last_approved().to_owned()))
                };
                let ordered = a.score > b.score
                    || (a.score == b.score
                        && (evidence(a), a.match_type, a.entry.id) < (evidence(b), b.match_type, b.entry.id));
                prop_assert!(ordered, "out of order: {:?} {} {:?} then {:?} {} {:?}",
                    a.entry.id, a.score, a.match_type, b.entry.id, b.score, b.match_type);
            }
            let mut ids: Vec<_> = matches.iter().map(|m| m.entry.id).collect();
            ids.sort();
            ids.dedup();
            prop_assert_eq!(ids.len(), matches.len(), "an entry appears twice");
            // Equal inputs give equal outputs.
            let again = lookup(&store, &req).unwrap();
            prop_assert_eq!(
                again.iter().map(|m| (m.entry.id, m.score.to_bits(), m.match_type)).collect::<Vec<_>>(),
                matches.iter().map(|m| (m.entry.id, m.score.to_bits(), m.match_type)).collect::<Vec<_>>()
            );
            // A stored source is found: some match at ≥ 0.99 with the same keys, unless
            // the limit is filled by equally good ones.
            if qi == 1 && threshold <= 0.99 && limit > entries.len() {
                let qk = Keys::of(&q);
                prop_assert!(
                    matches.iter().any(|m| m.score >= 0.99 && Keys::of(m.source()).plain == qk.plain),
                    "stored source {:?} not found: {:?}", q, matches.iter().map(|m| (m.entry.id, m.score)).collect::<Vec<_>>()
                );
            }
        }
    }
}
