//! Rules of fuzzy completeness: random memories against exhaustive scoring, budgeted lists
//! and ties at the top.

use super::*;

/// SplitMix64: a small deterministic generator, so every store sees the same data.
pub(super) struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

pub(super) const WORDS: &[&str] = &[
    "open", "the", "file", "files", "close", "window", "save", "all", "changes", "now", "before", "you",
    "leave", "print", "page", "pages", "delete", "selected", "item", "items", "文件", "保存", "ملف",
];

pub(super) const NAMES: &[&str] = &["John", "Mary", "Acme", "Globex", "Paris"];

pub(super) const TYPES: &[&str] = &["PERSON", "ORGANIZATION", "LOCATION"];

/// A random source segment in notation: words, sometimes a paired code, a placeholder
/// or entities.
pub(super) fn sentence(rng: &mut Rng) -> String {
    let n = 2 + rng.below(6);
    let mut parts: Vec<String> = (0..n).map(|_| rng.pick(WORDS).to_owned()).collect();
    if rng.below(3) == 0 {
        let i = rng.below(parts.len());
        parts[i] = format!("{{1}}{}{{/1}}", parts[i]);
    }
    if rng.below(4) == 0 {
        parts.push("{2/}".to_owned());
    }
    for _ in 0..rng.below(3) {
        let i = rng.below(parts.len() + 1);
        parts.insert(i, format!("{{{}:{}}}", rng.pick(TYPES), rng.pick(NAMES)));
    }
    parts.join(" ")
}

/// A query near a stored source: a typo, a word changed, an entity value changed, codes
/// dropped, or the source itself.
pub(super) fn mutate(rng: &mut Rng, source: &str) -> String {
    match rng.below(6) {
        0 => source.to_owned(),
        1 => {
            let chars: Vec<char> = source.chars().collect();
            let i = rng.below(chars.len());
            // Only inside plain words, so the notation stays valid.
            if chars[i].is_lowercase() || !chars[i].is_ascii() {
                let mut s: String = chars[..i].iter().collect();
                s.push('x');
                s.extend(&chars[i + 1..]);
                s
            } else {
                format!("{source} x")
            }
        }
        2 => {
            let mut words: Vec<String> = source.split(' ').map(str::to_owned).collect();
            let i = rng.below(words.len());
            if !words[i].contains('{') {
                words[i] = rng.pick(WORDS).to_owned();
            }
            words.join(" ")
        }
        3 => {
            let mut out = source.to_owned();
            for name in NAMES {
                out = out.replace(&format!(":{name}}}"), &format!(":{}}}", rng.pick(NAMES)));
            }
            out
        }
        4 => source.replace("{1}", "").replace("{/1}", "").replace(" {2/}", ""),
        _ => format!("{source} {}", rng.pick(WORDS)),
    }
}

/// docs/matching.md §4 and §7: over a few hundred generated entries and queries, `lookup` equals
/// an exhaustive reference that scores every entry (no candidate may be missed), with
/// the lookup's verification budget lifted; with the default options, its best match
/// equals the reference's.
///
/// # Errors
/// The first query whose matches differ.
pub fn fuzzy_candidates_are_complete(make: Make<'_>) -> Outcome {
    let store = make();
    let mut rng = Rng(0x5eed_c0de);
    let mut entries = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for i in 0..300 {
        let src = if i > 0 && rng.below(8) == 0 {
            // A repeated source, for exact ties and ambiguity.
            sources[rng.below(sources.len())].clone()
        } else {
            sentence(&mut rng)
        };
        // Regional tags on both sides (the prefix rule), a locale pair never asked for,
        // and some entries with a third variant.
        let source_locale = ["en", "en", "en", "en-US", "en-GB"][rng.below(5)];
        let target_locale = ["de", "de", "de", "de-DE", "de-AT", "fr"][rng.below(6)];
        let target = if rng.below(3) == 0 { src.clone() } else { format!("{src} T{}", rng.below(4)) };
        let mut e = pair_in(source_locale, &src, target_locale, &target)?;
        if target_locale != "fr" && rng.below(10) == 0 {
            e.variants.push(Variant::new(locale("fr")?, runs(&format!("{src} F"))?));
        }
        if rng.below(3) == 0 {
            e.point = point(["web", "web/eu", "app", "app/ios/x"][rng.below(4)])?;
        }
        entries.push(e);
        sources.push(src);
    }
    let ids = write_each(&*store, &entries)?;
    let mut stored: Vec<cmem_core::Entry> = Vec::new();
    for (e, id) in entries.iter().zip(&ids) {
        if !stored.iter().any(|s| s.id == *id) {
            stored.push(e.clone().into_entry(*id));
        } else if let Some(s) = stored.iter_mut().find(|s| s.id == *id) {
            s.reapprove(e);
        }
    }
    let mut compared = 0;
    for qi in 0..200 {
        let query = if qi % 10 == 9 {
            sentence(&mut rng)
        } else {
            let i = rng.below(sources.len());
            mutate(&mut rng, &sources[i])
        };
        let threshold = [0.5, 0.7, 0.8, 0.95][rng.below(4)];
        let limit = [1, 3, 10, 50][rng.below(4)];
        let caller =
            if rng.below(4) == 0 { Some(point(["web/eu/docs", "app", ""][rng.below(3)])?) } else { None };
        // The lookup's own verification budget is lifted, so every position is exact and
        // what is checked is the store's candidate contract; the default options are
        // checked below for the best match.
        let options = opts().threshold(threshold).limit(limit).maybe_point(caller.clone()).exhaustive();
        let (sl, tl) = (["en", "en", "en-US"][rng.below(3)], ["de", "de", "de-AT"][rng.below(3)]);
        let req = LookupRequest::new(runs(&query)?, locale(sl)?, locale(tl)?).options(options);
        let got = cmem_core::lookup(&*store, &req)?;
        let want = crate::reference::reference_lookup(&stored, &req);
        let same = got.len() == want.len()
            && got.iter().zip(&want).all(|(g, w)| {
                g.entry.id == w.id
                    && (g.score - w.score).abs() < 1e-9
                    && g.match_type == w.match_type
                    && g.ambiguous == w.ambiguous
            });
        if !same {
            let mut msg = format!(
                "query {qi} {query:?} ({sl} → {tl}, threshold {threshold}, limit {limit}, point {caller:?}) differs from the exhaustive reference\n  lookup:\n{}  reference:\n",
                crate::fixture::describe(&got)
            );
            for w in &want {
                msg.push_str(&format!(
                    "    entry {} score {:.6} {}{}\n",
                    w.id,
                    w.score,
                    w.match_type,
                    if w.ambiguous { " ambiguous" } else { "" }
                ));
            }
            let mut shown: Vec<EntryId> =
                want.iter().map(|w| w.id).chain(got.iter().map(|g| g.entry.id)).collect();
            shown.sort();
            shown.dedup();
            for w in shown {
                if let Some(e) = stored.iter().find(|e| e.id == w) {
                    let locales: Vec<&str> = e.variants.iter().map(|v| v.locale.as_str()).collect();
                    msg.push_str(&format!(
                        "  entry {w} ({}, point {:?}): {:?}\n",
                        locales.join(" → "),
                        e.point.as_str(),
                        to_notation(&e.variants[0].runs)
                    ));
                }
            }
            return Err(Failure::new(msg));
        }
        compared += want.len();
        let defaults = LookupOptions::default().threshold(threshold).maybe_point(caller.clone());
        let best = cmem_core::lookup(&*store, &req.clone().options(defaults))?;
        let best = best.first().map(|m| (m.entry.id, m.match_type, m.ambiguous, format!("{:.6}", m.score)));
        let want_best = crate::reference::reference_lookup(
            &stored,
            &req.clone().options(opts().threshold(threshold).maybe_point(caller.clone()).limit(1)),
        )
        .first()
        .map(|w| (w.id, w.match_type, w.ambiguous, format!("{:.6}", w.score)));
        ensure_eq!(
            best,
            want_best,
            "query {qi} {query:?} ({sl} → {tl}): the best match with default options"
        );
    }
    ensure!(
        compared > 300,
        "the generated queries found only {compared} matches in all; the test lost its teeth"
    );
    Ok(())
}

/// The offer-order rule of the store contract: with the lookup's budgets in force (the
/// default options, and budgets tightened so they bind on a small memory), the store
/// under test returns exactly the list the in-memory store returns: same entries, scores,
/// tiers and order at every position, not only the best match.
///
/// # Errors
/// The first query whose list differs, with both lists.
pub fn budgeted_lists_agree_with_the_in_memory_store(make: Make<'_>) -> Outcome {
    let store = make();
    let reference = cmem_core::MemStore::new();
    let mut rng = Rng(0xb0d9_e7ed);
    let mut sources: Vec<String> = Vec::new();
    for _ in 0..400 {
        let src = sentence(&mut rng);
        let (sl, tl) = (["en", "en", "en-US", "en-GB"][rng.below(4)], ["de", "de", "de-AT"][rng.below(3)]);
        let e = pair_in(sl, &src, tl, &format!("{src} T{}", rng.below(3)))?;
        // One entry at a time in both stores: the same ids, in the same order.
        let a = store.write(std::slice::from_ref(&e))?;
        let b = reference.write(std::slice::from_ref(&e))?;
        ensure_eq!(a.first().map(|o| o.id()), b.first().map(|o| o.id()), "entry ids");
        sources.push(src);
    }
    let mut compared = 0;
    for qi in 0..150 {
        let i = rng.below(sources.len());
        let query = mutate(&mut rng, &sources[i]);
        let options = match qi % 3 {
            0 => LookupOptions::default(),
            1 => LookupOptions::default().threshold(0.5).verify_budget(5).max_candidates(12),
            _ => LookupOptions::default().threshold(0.6).limit(5).verify_budget(3).max_candidates(6),
        };
        let req = LookupRequest::new(runs(&query)?, locale("en")?, locale("de")?).options(options);
        let got = cmem_core::lookup(&*store, &req)?;
        let want = cmem_core::lookup(&reference, &req)?;
        let line = |m: &cmem_core::Match| (m.entry.id, m.match_type, m.ambiguous, format!("{:.9}", m.score));
        let got_lines: Vec<_> = got.iter().map(line).collect();
        let want_lines: Vec<_> = want.iter().map(line).collect();
        ensure_eq!(
            got_lines,
            want_lines,
            "query {qi} {query:?}: the list differs from the in-memory store's"
        );
        compared += want.len();
    }
    ensure!(
        compared > 150,
        "the generated queries found only {compared} matches in all; the test lost its teeth"
    );
    Ok(())
}

/// docs/matching.md §4 and §7: every entry tied with the best match is returned, up to the limit,
/// however few candidates a store may offer (`max_candidates`) and however early the
/// cut-off rises to the best score (`verify_budget`): equal scores are never cut off.
///
/// # Errors
/// The first list that lacks a tied entry.
pub fn ties_at_the_top_are_complete(make: Make<'_>) -> Outcome {
    let store = make();
    let query = "Please open the project settings file now";
    let chars: Vec<char> = query.chars().collect();
    let mut entries = Vec::new();
    // Fourteen sources one substitution away (each at its own letter): all tie.
    let positions: Vec<usize> =
        (0..chars.len()).filter(|&i| chars[i].is_ascii_lowercase()).step_by(2).take(14).collect();
    ensure_eq!(positions.len(), 14, "letters to substitute in the query");
    for (n, &i) in positions.iter().enumerate() {
        let mut near = chars.clone();
        near[i] = if chars[i] == 'z' { 'y' } else { 'z' };
        entries.push(pair(&near.iter().collect::<String>(), &format!("Bitte öffnen {n}"))?);
    }
    // Twenty sources two substitutions away, scoring lower.
    for n in 0..20 {
        let mut far = chars.clone();
        far[positions[n % 14]] = 'q';
        far[positions[(n + 1 + n / 14) % 14]] = 'q';
        entries.push(pair(&far.iter().collect::<String>(), &format!("Weiter {n}"))?);
    }
    write_each(&*store, &entries)?;
    let best = 1.0 - 1.0 / chars.len() as f64;
    let cases = [
        ("default options", opts()),
        ("three candidates at most", opts().max_candidates(3)),
        ("a budget of two", opts().verify_budget(2)),
        ("both", opts().max_candidates(3).verify_budget(2)),
    ];
    for (name, options) in cases {
        let req = LookupRequest::new(runs(query)?, locale("en")?, locale("de")?).options(options.limit(10));
        let got = cmem_core::lookup(&*store, &req)?;
        let tied = got.iter().filter(|m| (m.score - best).abs() < 1e-9).count();
        ensure_eq!(tied, 10, "{name}: matches tied with the best ({best:.6}) among {} returned", got.len());
    }
    Ok(())
}
