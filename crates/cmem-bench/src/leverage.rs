//! `--leverage`: what a memory as `cmem import` made it gives a translator, measured on
//! the versioned queries with the translation their project shipped (`--references`).
//! The memory is a SQLite database (`--db`), opened read-only, looked up as a client
//! looks it up: the query recognized with the default rule sets, the default options at
//! threshold 0.70, limit 1, the word repair as the memory's word model allows (none
//! without one). For the best match per score band: how many, how often its adapted
//! target equals the shipped translation without the word repair and with it.
//!
//! Fragments ([`cmem_core::align::Fragment`]), for the queries with no match at 0.70:
//! the share with at least one; their precision (a fragment whose target's words all
//! appear in the shipped translation is right); their coverage (the shipped
//! translation's distinct words that some fragment's target holds, pooled over the
//! queries). And the lookup's p50 as a client makes it (default options), alone and with
//! the fragments, alternating which comes first.
//!
//! Terms ([`cmem_core::align::Term`], mined at the defaults: 3 sightings, a share of
//! 0.6): over every reference whose query holds a term, the share of those (term,
//! query) pairs whose translation's words all appear in the shipped translation.

use cmem_core::ContentMemoryExt;
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use cmem_core::align::{fold, text_of, uses_translation, words, FragmentOptions, Glossary, TermOptions};
use cmem_core::repair::words::RepairBands;
use cmem_core::{lookup, prepare_query, Locale, LookupOptions, LookupRequest, QueryText, Recognizer, Run};
use cmem_sqlite::{SqliteOptions, SqliteStore};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    query: String,
    reference_target: String,
}

/// Text and every code's native data: the string a file would hold.
fn render(runs: &[Run]) -> String {
    cmem_core::model::run::render_text(runs, &|run, out| {
        if let Some(code) = run.code() {
            out.push_str(&code.data);
        }
    })
}

/// One score band's counts.
#[derive(Default, Clone, Copy)]
struct Band {
    queries: usize,
    equal_unrepaired: usize,
    equal: usize,
}

impl Band {
    fn plus(self, o: Band) -> Band {
        Band {
            queries: self.queries + o.queries,
            equal_unrepaired: self.equal_unrepaired + o.equal_unrepaired,
            equal: self.equal + o.equal,
        }
    }
}

/// Runs `--leverage` on the SQLite memory `db`; see the module docs.
///
/// # Errors
/// Unreadable files, no references, a store failure.
pub fn run(
    db: &Path,
    references: &Path,
    (from, to): (&str, &str),
    limit: Option<usize>,
    samples: usize,
) -> Result<()> {
    let (from, to) = (Locale::parse(from)?, Locale::parse(to)?);
    let refs: Vec<Reference> = crate::corpus::read_jsonl(references)?;
    let refs: Vec<Reference> = refs.into_iter().take(limit.unwrap_or(usize::MAX)).collect();
    if refs.is_empty() {
        bail!("{}: no references", references.display());
    }
    let store = SqliteStore::open_with(db, SqliteOptions::default().read_only(true))
        .with_context(|| format!("opening {}", db.display()))?;
    let started = Instant::now();
    store.warm(&from)?;
    let model = store.word_model(&from, &to)?;
    println!(
        "{} opened and warmed in {:.1?}; word model {}",
        db.display(),
        started.elapsed(),
        if model.is_some() { "present" } else { "absent (no word repair)" }
    );
    let rec = Recognizer::default();
    // 0.70–0.85, 0.85–0.95, ≥ 0.95 below 100 %.
    let mut bands = [Band::default(); 3];
    let mut below = 0;
    let mut f = FragmentTally::default();
    let fragment_options = FragmentOptions::default();
    // The queries with no match and their shipped words, for the thresholds' table.
    let mut unmatched: Vec<(String, HashSet<String>)> = Vec::new();
    for r in &refs {
        let runs = prepare_query(QueryText::Plain(&r.query), Some(&rec))?;
        let options = LookupOptions::default().threshold(0.70).limit(1);
        let req = LookupRequest::new(runs.clone(), from.clone(), to.clone()).options(options.clone());
        let Some(best) = lookup(&store, &req)?.into_iter().next() else {
            below += 1;
            let found =
                model.as_ref().map(|m| m.fragments(&text_of(&runs), &fragment_options)).unwrap_or_default();
            let wanted = word_set(&r.reference_target);
            unmatched.push((text_of(&runs), wanted.clone()));
            f.queries += 1;
            f.with_one += usize::from(!found.is_empty());
            f.wanted += wanted.len();
            let mut covered: HashSet<String> = HashSet::new();
            for fragment in &found {
                let got = word_set(&fragment.target);
                f.fragments += 1;
                f.right += usize::from(got.is_subset(&wanted));
                f.used += usize::from(got.iter().all(|w| wanted.iter().any(|s| uses_translation(s, w))));
                covered.extend(got.intersection(&wanted).cloned());
            }
            f.covered += covered.len();
            if f.samples < samples && !found.is_empty() {
                f.samples += 1;
                println!("query    {:?}\nshipped  {:?}", r.query, r.reference_target);
                for fragment in &found {
                    let ok = word_set(&fragment.target).is_subset(&wanted);
                    println!(
                        "  {} {:?} → {:?} ({} of {})",
                        if ok { "=" } else { "≠" },
                        fragment.source,
                        fragment.target,
                        fragment.agreeing,
                        fragment.seen
                    );
                }
                println!();
            }
            continue;
        };
        if best.identical_source || best.score >= 1.0 {
            continue;
        }
        let bare =
            LookupRequest::new(runs, from.clone(), to.clone()).options(options.word_repair(RepairBands::OFF));
        let unrepaired = lookup(&store, &bare)?.into_iter().next().map(|m| render(&m.adapted_target));
        let band = if best.score >= 0.95 { 2 } else { usize::from(best.score >= 0.85) };
        let b = &mut bands[band];
        b.queries += 1;
        b.equal += usize::from(render(&best.adapted_target) == r.reference_target);
        b.equal_unrepaired += usize::from(unrepaired.as_deref() == Some(r.reference_target.as_str()));
    }
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    println!("{} references; {below} with no match ≥ 0.70", refs.len());
    println!();
    println!("| band | best matches | = shipped, no word repair | = shipped, as looked up |");
    println!("|---|---:|---:|---:|");
    for (label, b) in [
        ("0.70–0.85", bands[0]),
        ("0.85–0.95", bands[1]),
        ("0.70–0.95", bands[0].plus(bands[1])),
        ("≥ 0.95, below 100 %", bands[2]),
    ] {
        println!(
            "| {label} | {} | {} ({:.1} %) | {} ({:.1} %) |",
            b.queries,
            b.equal_unrepaired,
            pct(b.equal_unrepaired, b.queries),
            b.equal,
            pct(b.equal, b.queries)
        );
    }
    println!();
    println!(
        "fragments, {} queries with no match ≥ 0.70: {} ({:.1} %) with at least one; {} fragments, precision {:.1} % \
         ({:.1} % reading compounds as the terminology check does); coverage of the shipped translations' words {:.1} %",
        f.queries,
        f.with_one,
        pct(f.with_one, f.queries),
        f.fragments,
        pct(f.right, f.fragments),
        pct(f.used, f.fragments),
        pct(f.covered, f.wanted)
    );
    if let Some(m) = &model {
        println!();
        println!(
            "| fragments: least agreeing, least share, least usage, edge share | with one | fragments | precision | precision, compounds read as the terminology check reads them | coverage |"
        );
        println!("|---|---:|---:|---:|---:|---:|");
        for (agreeing, share, usage, edge) in [
            (2, 0.5, 0.0, 0.0),
            (3, 0.5, 0.0, 0.0),
            (3, 0.7, 0.0, 0.0),
            (4, 0.7, 0.0, 0.0),
            (5, 0.8, 0.0, 0.0),
            (8, 0.9, 0.0, 0.0),
            (2, 0.5, 0.5, 0.0),
            (2, 0.5, 0.7, 0.0),
            (2, 0.5, 0.8, 0.0),
            (2, 0.5, 0.9, 0.0),
            (3, 0.5, 0.8, 0.0),
            (2, 0.5, 0.0, 0.6),
            (2, 0.5, 0.0, 0.7),
            (2, 0.5, 0.0, 0.8),
            (2, 0.5, 0.0, 0.9),
            (2, 0.6, 0.0, 0.7),
            (3, 0.5, 0.0, 0.7),
            (3, 0.6, 0.0, 0.7),
            (2, 0.5, 0.3, 0.7),
            (2, 0.5, 0.5, 0.7),
            (3, 0.5, 0.8, 0.7),
            (4, 0.8, 0.0, 0.7),
            (8, 0.9, 0.0, 0.7),
            (10, 0.95, 0.0, 0.7),
        ] {
            let o = FragmentOptions::default()
                .min_agreeing(agreeing)
                .min_share(share)
                .min_usage(usage)
                .edge_share(edge);
            let mut t = FragmentTally::default();
            for (text, wanted) in &unmatched {
                let found = m.fragments(text, &o);
                t.queries += 1;
                t.with_one += usize::from(!found.is_empty());
                t.wanted += wanted.len();
                let mut covered: HashSet<String> = HashSet::new();
                for fragment in &found {
                    let got = word_set(&fragment.target);
                    t.fragments += 1;
                    t.right += usize::from(got.is_subset(wanted));
                    t.used += usize::from(got.iter().all(|w| wanted.iter().any(|s| uses_translation(s, w))));
                    covered.extend(got.intersection(wanted).cloned());
                }
                t.covered += covered.len();
            }
            println!(
                "| {agreeing}, {share}, {usage}, {edge} | {:.1} % | {} | {:.1} % | {:.1} % | {:.1} % |",
                pct(t.with_one, t.queries),
                t.fragments,
                pct(t.right, t.fragments),
                pct(t.used, t.fragments),
                pct(t.covered, t.wanted)
            );
        }
        println!();
        // (term, reference) pairs, those confirmed as whole words, those used as the
        // terminology check reads a target.
        // Each term a reference holds counts once, found as lookups find them.
        let confirm = |terms: &[cmem_core::align::Term]| {
            let glossary = Glossary::new(terms.to_vec());
            let (mut held, mut kept, mut used, mut segments) = (0usize, 0usize, 0usize, 0usize);
            for r in &refs {
                let wanted = word_set(&r.reference_target);
                let mut found = glossary.find(&r.query, &[]);
                found.sort_by(|a, b| a.term.source.cmp(&b.term.source));
                found.dedup_by(|a, b| a.term.source == b.term.source);
                segments += usize::from(!found.is_empty());
                for f in found {
                    held += 1;
                    kept += usize::from(word_set(&f.term.target).is_subset(&wanted));
                    used += usize::from(uses_translation(&r.reference_target, &f.term.target));
                }
            }
            (held, kept, used, segments)
        };
        println!(
            "| terms: least count, least share, nouns only | terms | (term, reference) pairs | confirmed | used, as the terminology check reads it |"
        );
        println!("|---|---:|---:|---:|---:|");
        for (count, share, nouns) in
            [(3, 0.6, false), (3, 0.6, true), (5, 0.7, false), (5, 0.7, true), (10, 0.8, true)]
        {
            let mut terms = m.terms(&TermOptions::default().min_count(count).min_share(share));
            if nouns {
                terms.retain(|t| t.noun);
            }
            let (held, kept, used, _) = confirm(&terms);
            println!(
                "| {count}, {share}, {nouns} | {} | {held} | {:.1} % | {:.1} % |",
                terms.len(),
                pct(kept, held),
                pct(used, held)
            );
        }
        println!();
        println!("| terms: least usage in the memory | terms | (term, reference) pairs | confirmed | used |");
        println!("|---|---:|---:|---:|---:|");
        for usage in [0.0, 0.6, 0.8, 0.9, 0.95] {
            let terms = m.terms(&TermOptions::default().min_usage(usage));
            let (held, kept, used, _) = confirm(&terms);
            println!(
                "| {usage} | {} | {held} | {:.1} % | {:.1} % |",
                terms.len(),
                pct(kept, held),
                pct(used, held)
            );
        }
        println!();
        let started = Instant::now();
        let terms = m.terms(&TermOptions::default());
        let mined = started.elapsed();
        let (held, kept, used, segments) = confirm(&terms);
        println!(
            "terms: {} mined in {mined:.1?} ({} nouns); {segments} references hold one; of {held} (term, reference) \
             pairs, {kept} ({:.1} %) have the term's translation in the shipped translation as words, {used} ({:.1} %) \
             as the terminology check reads it",
            terms.len(),
            terms.iter().filter(|t| t.noun).count(),
            pct(kept, held),
            pct(used, held)
        );
    }
    // The lookup as a client makes it, alone and with the fragments and the terms.
    let (mut alone, mut with): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
    // The fragments and the terms timed right after their lookup: with its caches as a
    // lookup leaves them.
    let (mut fragments_after, mut terms_after): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
    for (i, r) in refs.iter().enumerate() {
        let runs = prepare_query(QueryText::Plain(&r.query), Some(&rec))?;
        let req = LookupRequest::new(runs, from.clone(), to.clone());
        for second in [i % 2 == 1, i % 2 == 0] {
            let t = Instant::now();
            lookup(&store, &req)?;
            if second {
                let f = Instant::now();
                let model = store.word_model(&from, &to)?;
                if let Some(m) = model {
                    m.fragments(&text_of(&req.source), &fragment_options);
                }
                fragments_after.push(f.elapsed());
                let g = Instant::now();
                cmem_core::store::learn::PairGlossary::load(&store, &from, &to)?.find(&text_of(&req.source));
                terms_after.push(g.elapsed());
                with.push(t.elapsed());
            } else {
                alone.push(t.elapsed());
            }
        }
    }
    let p50 = |v: &mut Vec<Duration>| {
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or_default().as_secs_f64() * 1e6
    };
    // Each part alone, over the same queries: what the evidence adds, piece by piece.
    let (mut model_read, mut fragments_found, mut glossary_read, mut terms_found) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in &refs {
        let runs = prepare_query(QueryText::Plain(&r.query), Some(&rec))?;
        let text = text_of(&runs);
        let t = Instant::now();
        let model = store.word_model(&from, &to)?;
        model_read.push(t.elapsed());
        if let Some(m) = &model {
            let t = Instant::now();
            m.fragments(&text, &fragment_options);
            fragments_found.push(t.elapsed());
        }
        let t = Instant::now();
        let glossary = cmem_core::store::learn::PairGlossary::load(&store, &from, &to)?;
        glossary_read.push(t.elapsed());
        let t = Instant::now();
        glossary.find(&text);
        terms_found.push(t.elapsed());
    }
    println!(
        "p50 of each part: the word model read {:.1} µs, fragments {:.1} µs, the glossary read {:.1} µs, its terms found {:.1} µs",
        p50(&mut model_read),
        p50(&mut fragments_found),
        p50(&mut glossary_read),
        p50(&mut terms_found)
    );
    println!(
        "p50 right after the lookup: fragments (the model read with them) {:.1} µs, terms (the glossary read with them) {:.1} µs",
        p50(&mut fragments_after),
        p50(&mut terms_after)
    );
    let (a, w) = (p50(&mut alone), p50(&mut with));
    println!(
        "lookup p50, default options, {} queries: {a:.0} µs alone, {w:.0} µs with fragments and terms ({:+.1} %)",
        alone.len(),
        100.0 * (w - a) / a.max(1e-9)
    );
    Ok(())
}

/// The distinct folded words of `text`.
fn word_set(text: &str) -> HashSet<String> {
    words(text).into_iter().map(|(a, b)| fold(&text[a..b])).collect()
}

/// The fragments' counts over the queries with no match.
#[derive(Default)]
struct FragmentTally {
    queries: usize,
    with_one: usize,
    fragments: usize,
    right: usize,
    /// Fragments each of whose target words the shipped translation uses, as a word or
    /// a compound's start or end ([`uses_translation`]).
    used: usize,
    wanted: usize,
    covered: usize,
    samples: usize,
}
