//! `--quality`: does inline-code recognition pay? The memory is loaded into two
//! `MemStore`s — plain text runs, and runs from `Recognizer::recognize_pair` — and the
//! versioned queries that have the translation their project really shipped are looked
//! up in both. For the best match at ≥ 0.95 and at 0.85–0.95, and for the queries whose
//! change is markup or white space only (best match ≥ 0.75): how many, how often the
//! adapted target (rendered back to text with the codes' native data) equals the
//! shipped translation, how often it carries the query's codes, and its mean similarity
//! to the shipped translation.
//!
//! The word repair: the recognized memory's word model is trained (or read from
//! `--word-model`), and for the best match of every versioned query at ≥ 0.70 the
//! adapted target without the word repair and with it are compared with the shipped
//! translation, per score band (0.70–0.85, 0.85–0.95, ≥ 0.95): how many equal it, the
//! mean similarity, and how often the repaired target is nearer than the unrepaired one
//! and how often farther. The lookups run with the word repair off; the repair is then
//! made as a lookup makes it (`repair_words` on the returned match).
//!
//! The code placement: the recognized store keeps the word model, as a memory whose
//! imports train it does, so its lookups place the codes a query added or moved by the
//! alignment. For the best match at ≥ 0.70 whose adaptation lists a code (one the query
//! added, removed, changed or moved), the adapted target (without the word repair) is
//! compared with the one the rule alone gives (`adapt_with(…, WordLinks::Rule)` and the
//! mechanical repairs, as a lookup made them before the placement): how many equal the
//! shipped translation each way, and how many the placement took nearer to it or
//! farther, per score band; and the same with the word repair made after each.

use cmem_core::ContentMemoryExt;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Result};
use cmem_core::align::{AlignOptions, WordModel};
use cmem_core::index::distance::similarity;
use cmem_core::model::recognize::Recognizer;
use cmem_core::repair::adapt::adapt_with;
use cmem_core::repair::place::{PlacedBy, WordLinks};
use cmem_core::repair::words::{repair_words, RepairBands};
use cmem_core::{
    lookup, ContentMemory, Locale, LookupOptions, LookupRequest, Match, MatchType, MemStore, NewEntry, Run,
    Variant,
};

use crate::corpus;

/// Text and every code's native data, concatenated: the string a file would hold.
/// The runs a query is looked up with in arm `k` (0: plain text, 1: recognized).
fn runs_of(k: usize, rec: &Recognizer, query: &str) -> Vec<Run> {
    if k == 0 {
        vec![Run::text(query)]
    } else {
        rec.recognize(query)
    }
}

/// The text runs of `runs`, in order (codes left out).
fn text_runs(runs: &[Run]) -> Vec<String> {
    runs.iter().filter_map(|r| if let Run::Text(t) = r { Some(t.clone()) } else { None }).collect()
}

/// Whether `got` carries the codes of `query`.
fn render_codes_ok(rec: &Recognizer, got: &str, query: &str) -> bool {
    code_texts(rec, got) == code_texts(rec, query)
}

fn render(runs: &[Run]) -> String {
    cmem_core::model::run::render_text(runs, &|run, out| {
        if let Some(code) = run.code() {
            out.push_str(&code.data);
        }
    })
}

/// The sorted texts of the codes the recognizer finds in `text`.
fn code_texts(rec: &Recognizer, text: &str) -> Vec<String> {
    let mut v: Vec<String> =
        rec.recognize(text).iter().filter_map(|r| r.code().map(|c| c.data.clone())).collect();
    v.sort();
    v
}

#[derive(Default, Clone, Copy)]
struct Band {
    queries: usize,
    equal: usize,
    codes_ok: usize,
    similarity: f64,
}

impl Band {
    fn add(&mut self, got: &str, want: &str, codes_ok: bool) {
        self.queries += 1;
        self.equal += usize::from(got == want);
        self.codes_ok += usize::from(codes_ok);
        self.similarity += similarity(got, want);
    }
}

struct Arm {
    name: &'static str,
    store: MemStore,
    high: Band,
    mid: Band,
    markup: Band,
    /// Best matches whose stored source differs from the query only in punctuation or
    /// white space.
    punct: Band,
    /// Best matches at 100 % whose text runs differ from the query's (should be none).
    false_exact: usize,
    none: usize,
}

impl Arm {
    fn new(name: &'static str) -> Arm {
        Arm {
            name,
            store: MemStore::new(),
            high: Band::default(),
            mid: Band::default(),
            markup: Band::default(),
            punct: Band::default(),
            false_exact: 0,
            none: 0,
        }
    }
}

/// Runs the comparison; see the module docs.
pub fn run(
    memory_path: &Path,
    entries: Option<usize>,
    queries_path: &Path,
    references_path: &Path,
    (mut examples, mut misses, mut word_misses, mut word_samples): (usize, usize, usize, usize),
    placement_samples: usize,
    model_path: Option<&Path>,
) -> Result<()> {
    let rec = Recognizer::default();
    let en = Locale::parse("en")?;
    let de = Locale::parse("de")?;

    let memory: Vec<(String, String)> =
        corpus::load_memory(memory_path, entries)?.into_iter().map(|m| (m.source, m.target)).collect();
    let bytes: usize = memory.iter().map(|(s, t)| s.len() + t.len()).sum();

    // Recognition speed, and the share of entries it finds codes in.
    let t0 = Instant::now();
    let recognized: Vec<(Vec<Run>, Vec<Run>)> =
        memory.iter().map(|(s, t)| rec.recognize_pair(s, t)).collect();
    let secs = t0.elapsed().as_secs_f64();
    let with_codes = recognized.iter().filter(|(s, _)| s.iter().any(|r| r.code().is_some())).count();
    for ((s, t), (rs, rt)) in memory.iter().zip(&recognized) {
        if render(rs) != *s || render(rt) != *t {
            bail!("recognition does not round-trip {s:?} / {t:?}");
        }
    }
    println!(
        "recognized {} pairs ({:.1} MB) in {:.3} s: {:.0} pairs/s, {:.1} MB/s; {:.1} % of sources hold codes",
        memory.len(),
        bytes as f64 / 1e6,
        secs,
        memory.len() as f64 / secs,
        bytes as f64 / 1e6 / secs,
        100.0 * with_codes as f64 / memory.len().max(1) as f64
    );

    let mut arms = [Arm::new("plain text"), Arm::new("recognized")];
    let plain: Vec<NewEntry> = memory
        .iter()
        .map(|(s, t)| {
            NewEntry::pair(
                Variant::new(en.clone(), vec![Run::text(s)]),
                Variant::new(de.clone(), vec![Run::text(t)]),
            )
        })
        .collect();
    let coded: Vec<NewEntry> = recognized
        .into_iter()
        .map(|(s, t)| NewEntry::pair(Variant::new(en.clone(), s), Variant::new(de.clone(), t)))
        .collect();
    for chunk in plain.chunks(5_000) {
        arms[0].store.write(chunk)?;
    }
    let model = std::sync::Arc::new(word_model(model_path, &coded)?);
    for chunk in coded.chunks(5_000) {
        arms[1].store.write(chunk)?;
    }
    arms[1].store.save_word_model(&en, &de, model.clone())?;
    // The code placement's bands: 0.70–0.85, 0.85–0.95, ≥ 0.95; and the samples, farther
    // ones first.
    let mut placement = [PlacementBand::default(); 3];
    let mut placement_repaired = [PlacementBand::default(); 3];
    let mut placement_shown: Vec<(bool, String)> = Vec::new();
    // The three bands of the repaired matches, then every best match ≥ 0.95 (identical
    // sources and 100 % matches too, which the repair leaves): the band the issue's
    // "≥ 0.95 equal" counts.
    let mut words = [WordBand::default(); 4];
    // (band, evidence) → (targets changed, nearer, farther).
    let mut by_kind: std::collections::BTreeMap<(usize, &'static str), (usize, usize, usize)> =
        std::collections::BTreeMap::new();
    let (mut lookup_ns, mut repair_ns): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());

    let queries: Vec<serde_json::Value> = corpus::read_jsonl(queries_path)?;
    let refs: Vec<serde_json::Value> = corpus::read_jsonl(references_path)?;
    let mut reference: HashMap<usize, String> = HashMap::new();
    for r in &refs {
        if let (Some(line), Some(t)) = (r["line"].as_u64(), r["reference_target"].as_str()) {
            reference.insert(line as usize, t.to_string());
        }
    }
    let mut asked = 0;
    let t0 = Instant::now();
    for (i, q) in queries.iter().enumerate() {
        let (Some(query), Some(want)) = (q["query"].as_str(), reference.get(&(i + 1))) else { continue };
        let markup_only = q["markup_or_space_only"].as_bool().unwrap_or(false);
        asked += 1;
        let want_codes = code_texts(&rec, query);
        let mut answers: Vec<(String, f64, bool)> = Vec::new();
        for (k, arm) in arms.iter_mut().enumerate() {
            let runs = runs_of(k, &rec, query);
            let req = LookupRequest::new(runs, en.clone(), de.clone())
                .options(LookupOptions::default().threshold(0.70).limit(1).word_repair(RepairBands::OFF));
            let t = Instant::now();
            let matches = lookup(&arm.store, &req)?;
            if k == 1 {
                lookup_ns.push(t.elapsed().as_nanos() as u64);
            }
            let Some(best) = matches.first() else {
                arm.none += 1;
                answers.push((String::new(), 0.0, false));
                continue;
            };
            let got = render(&best.adapted_target);
            let stored = render(best.source());
            if k == 1 && best.score >= 0.70 && !best.code_adaptations.is_empty() {
                let rule_runs = by_rule(best, &req);
                let rule = render(&rule_runs);
                let band = if best.score >= 0.95 { 2 } else { usize::from(best.score >= 0.85) };
                let (before, after) = (similarity(&rule, want), similarity(&got, want));
                let placed = best
                    .code_adaptations
                    .iter()
                    .any(|a| a.placement.as_ref().is_some_and(|p| p.by == PlacedBy::Alignment));
                placement[band].add((&rule, &got, want), (before, after), placed);
                // Both as a lookup returns them: with the word repair after.
                let repaired = |mut t: Vec<Run>| {
                    if !best.identical_source && best.score < 1.0 {
                        repair_words(&req.source, best.source(), &mut t, &model, &de, best.score);
                    }
                    render(&t)
                };
                let (rule_r, got_r) = (repaired(rule_runs), repaired(best.adapted_target.clone()));
                placement_repaired[band].add(
                    (&rule_r, &got_r, want),
                    (similarity(&rule_r, want), similarity(&got_r, want)),
                    placed,
                );
                if placement_samples > 0 && rule != got {
                    let farther = after + 1e-9 < before;
                    placement_shown.push((
                        !farther,
                        format!(
                            "{}  {:.3}\nquery     {query:?}\nsource    {stored:?}\ntarget    {:?}\nrule      {rule:?}\nplaced    {got:?}\nshipped   {want:?}\n",
                            if farther { "farther" } else if after > before + 1e-9 { "nearer " } else { "same   " },
                            best.score,
                            render(best.target()),
                        ),
                    ));
                }
            }
            if k == 1 && best.score >= 0.95 && (best.identical_source || best.score >= 1.0) {
                let s = similarity(&got, want);
                words[3].add(&got, &got, want, s, s);
            }
            if k == 1 && !best.identical_source && best.score < 1.0 {
                let mut repaired = best.adapted_target.clone();
                let t = Instant::now();
                let r = repair_words(&req.source, best.source(), &mut repaired, &model, &de, best.score);
                repair_ns.push(t.elapsed().as_nanos() as u64);
                let fixed = render(&repaired);
                let band = if best.score >= 0.95 { 2 } else { usize::from(best.score >= 0.85) };
                let (before, after) = (similarity(&got, want), similarity(&fixed, want));
                words[band].add(&got, &fixed, want, before, after);
                if fixed != got {
                    let mut seen: Vec<&'static str> =
                        r.iter().filter(|r| r.applied).map(repair_kind).collect();
                    seen.sort_unstable();
                    seen.dedup();
                    for kind in seen {
                        let k = by_kind.entry((band, kind)).or_default();
                        k.0 += 1;
                        k.1 += usize::from(after > before + 1e-9);
                        k.2 += usize::from(after + 1e-9 < before);
                    }
                }
                if band == 2 {
                    words[3].add(&got, &fixed, want, before, after);
                }
                if word_samples > 0 && fixed != *want && (band < 2 || word_samples % 3 == 0) {
                    word_samples -= 1;
                    println!(
                        "unequal   {:.3}\nquery     {query:?}\nsource    {stored:?}\nadapted   {got:?}\nrepaired  {fixed:?}\nshipped   {want:?}\nrepairs   {:?}\n",
                        best.score,
                        r.iter().map(|r| (&r.from, &r.to, r.applied, &r.words)).collect::<Vec<_>>()
                    );
                }
                if word_misses > 0 && after + 1e-9 < before {
                    word_misses -= 1;
                    println!(
                        "farther   {:.3}\nquery     {query:?}\nsource    {stored:?}\nadapted   {got:?}\nrepaired  {fixed:?}\nshipped   {want:?}\nrepairs   {:?}\n",
                        best.score,
                        r.iter().filter(|r| r.applied).map(|r| &r.words).collect::<Vec<_>>()
                    );
                }
            }
            if best.score < 0.75 {
                // Below the bands of the tables above: counted in the word repair's only.
                arm.none += 1;
                answers.push((String::new(), 0.0, false));
                continue;
            }
            let bare = |t: &str| {
                t.chars()
                    .filter(|c| !c.is_whitespace() && !c.is_ascii_punctuation() && *c != '…')
                    .collect::<String>()
            };
            if stored != query && bare(&stored) == bare(query) {
                arm.punct.add(&got, want, render_codes_ok(&rec, &got, query));
            }
            if best.score >= 1.0 && text_runs(best.source()) != text_runs(&runs_of(k, &rec, query)) {
                arm.false_exact += 1;
            }
            let punct = stored != query && bare(&stored) == bare(query);
            if k == 1 && misses > 0 && got != *want && (punct || best.score >= 0.95) {
                misses -= 1;
                println!(
                    "miss      {} {:.3}\nquery     {query:?}\nsource    {stored:?}\ntarget    {:?}\nadapted   {got:?}\nshipped   {want:?}\nrepairs   {:?}\n",
                    if punct { "punctuation/white space" } else { "≥ 0.95" },
                    best.score,
                    render(best.target()),
                    best.repairs
                );
            }
            answers.push((got.clone(), best.score, got == *want));
            let codes_ok = code_texts(&rec, &got) == want_codes;
            if markup_only {
                arm.markup.add(&got, want, codes_ok);
            }
            if best.score >= 0.95 {
                arm.high.add(&got, want, codes_ok);
            } else if best.score >= 0.85 {
                arm.mid.add(&got, want, codes_ok);
            } else {
                arm.none += 1;
            }
        }
        if examples > 0 && answers[0].2 != answers[1].2 {
            examples -= 1;
            println!("query     {query:?}\nreference {want:?}");
            for (arm, (got, score, ok)) in arms.iter().zip(&answers) {
                println!("{:<10}{score:.3} {} {got:?}", arm.name, if *ok { "=" } else { "≠" });
            }
            println!();
        }
    }
    println!(
        "{} memory entries, {asked} versioned queries with a reference, looked up in {:.1} s",
        memory.len(),
        t0.elapsed().as_secs_f64()
    );
    println!();
    println!(
        "| store | band | best matches | adapted target = reference | target has the query's codes | mean similarity to reference |"
    );
    println!("|---|---|---:|---:|---:|---:|");
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    for arm in &arms {
        for (label, b) in [
            ("≥ 0.95", arm.high),
            ("0.85–0.95", arm.mid),
            ("markup-only, ≥ 0.75", arm.markup),
            ("source differs only in punctuation or white space, ≥ 0.75", arm.punct),
        ] {
            println!(
                "| {} | {label} | {} | {} ({:.1} %) | {} ({:.1} %) | {:.3} |",
                arm.name,
                b.queries,
                b.equal,
                pct(b.equal, b.queries),
                b.codes_ok,
                pct(b.codes_ok, b.queries),
                if b.queries == 0 { 0.0 } else { b.similarity / b.queries as f64 }
            );
        }
        println!("| {} | < 0.85 or none | {} | | | |", arm.name, arm.none);
        println!("| {} | 100 % with text runs unlike the query's | {} | | | |", arm.name, arm.false_exact);
    }
    println!();
    let p50 = |v: &mut Vec<u64>| {
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0) as f64 / 1e3
    };
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64 / 1e3;
    println!(
        "recognized store, one lookup (word repair off): p50 {:.0} µs, mean {:.0} µs; the word repair of its best \
         match: p50 {:.0} µs, mean {:.0} µs ({} repairs)",
        p50(&mut lookup_ns),
        mean(&lookup_ns),
        p50(&mut repair_ns),
        mean(&repair_ns),
        repair_ns.len()
    );
    // Lookups as a client makes them (default options: ten matches at 0.70), without the
    // word repair and with it in every band; the same queries, in turn.
    let (mut off_ns, mut on_ns): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    for (i, q) in queries.iter().filter_map(|q| q["query"].as_str()).enumerate() {
        // Each first on every other query: the second lookup of a query finds its
        // candidates' pages in the cache.
        let mut order = [(RepairBands::OFF, &mut off_ns), (RepairBands::ALL, &mut on_ns)];
        if i % 2 == 1 {
            order.reverse();
        }
        for (bands, times) in order {
            let req = LookupRequest::new(runs_of(1, &rec, q), en.clone(), de.clone())
                .options(LookupOptions::default().word_repair(bands));
            let t = Instant::now();
            lookup(&arms[1].store, &req)?;
            times.push(t.elapsed().as_nanos() as u64);
        }
    }
    println!(
        "all {} versioned queries, default options (10 matches ≥ 0.70): p50 {:.0} µs without the word repair, \
         {:.0} µs with it; mean {:.0} µs and {:.0} µs",
        off_ns.len(),
        p50(&mut off_ns),
        p50(&mut on_ns),
        mean(&off_ns),
        mean(&on_ns)
    );
    println!();
    println!("Word repair (recognized store, best match, repair made in every band):");
    println!();
    println!(
        "| band | best matches | repaired | = reference, stored | = reference, repaired | mean similarity, stored | mean similarity, repaired | change | nearer | farther |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let both = words[0].plus(&words[1]);
    let rows = [
        ("0.70–0.85", words[0]),
        ("0.85–0.95", words[1]),
        ("0.70–0.95", both),
        ("≥ 0.95, below 100 %", words[2]),
        ("≥ 0.95, every best match", words[3]),
    ];
    for (label, b) in &rows {
        let n = b.queries.max(1) as f64;
        println!(
            "| {label} | {} | {} | {} ({:.1} %) | {} ({:.1} %) | {:.3} | {:.3} | {:+.4} | {} | {} |",
            b.queries,
            b.changed,
            b.equal_before,
            pct(b.equal_before, b.queries),
            b.equal_after,
            pct(b.equal_after, b.queries),
            b.sim_before / n,
            b.sim_after / n,
            (b.sim_after - b.sim_before) / n,
            b.nearer,
            b.farther
        );
    }
    println!();
    println!(
        "Code placement (recognized store, best match ≥ 0.70 whose adaptation lists a code the query added, \
         removed, changed or moved; adapted targets without the word repair, by the rule alone and placed):"
    );
    println!();
    println!(
        "| band | best matches | a code placed by the alignment | target changed | = shipped, rule | = shipped, placed | mean similarity, rule | mean similarity, placed | nearer | farther |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let all = placement[0].plus(&placement[1]).plus(&placement[2]);
    for (label, b) in
        [("0.70–0.85", placement[0]), ("0.85–0.95", placement[1]), ("≥ 0.95", placement[2]), ("≥ 0.70", all)]
    {
        let (placed, b) = (b.placed, b.band);
        let n = b.queries.max(1) as f64;
        println!(
            "| {label} | {} | {} | {} | {} ({:.1} %) | {} ({:.1} %) | {:.3} | {:.3} | {} | {} |",
            b.queries,
            placed,
            b.changed,
            b.equal_before,
            pct(b.equal_before, b.queries),
            b.equal_after,
            pct(b.equal_after, b.queries),
            b.sim_before / n,
            b.sim_after / n,
            b.nearer,
            b.farther
        );
    }
    println!();
    println!("The same best matches with the word repair made after the rule and after the placement:");
    println!();
    println!(
        "| band | = shipped, rule and word repair | = shipped, placed and word repair | nearer | farther |"
    );
    println!("|---|---:|---:|---:|---:|");
    let all = placement_repaired[0].plus(&placement_repaired[1]).plus(&placement_repaired[2]);
    for (label, b) in [
        ("0.70–0.85", placement_repaired[0]),
        ("0.85–0.95", placement_repaired[1]),
        ("≥ 0.95", placement_repaired[2]),
        ("≥ 0.70", all),
    ] {
        let b = b.band;
        println!(
            "| {label} | {} ({:.1} %) | {} ({:.1} %) | {} | {} |",
            b.equal_before,
            pct(b.equal_before, b.queries),
            b.equal_after,
            pct(b.equal_after, b.queries),
            b.nearer,
            b.farther
        );
    }
    placement_shown.sort_by_key(|s| s.0);
    for (_, sample) in placement_shown.iter().take(placement_samples) {
        println!("\n{sample}");
    }
    println!();
    println!("Targets the word repair changed, by the evidence of the repairs made in them:");
    println!();
    println!("| band | evidence | changed | nearer | farther |");
    println!("|---|---|---:|---:|---:|");
    for ((band, kind), (n, nearer, farther)) in &by_kind {
        println!("| {} | {kind} | {n} | {nearer} | {farther} |", ["0.70–0.85", "0.85–0.95", "≥ 0.95"][*band]);
    }
    Ok(())
}

/// Which evidence a word repair rests on, for the counts by evidence.
fn repair_kind(r: &cmem_core::repair::Repair) -> &'static str {
    use cmem_core::repair::words::Evidence;
    match r.words.as_ref().and_then(|w| w.evidence.as_ref().map(|e| (e, w.target_from.is_empty()))) {
        None => "final mark",
        Some((Evidence::Copied, _)) => "copied",
        Some((Evidence::Compound { .. }, _)) => "compound",
        Some((Evidence::Deleted, _)) => "deleted",
        Some((Evidence::Phrase { .. }, true)) => "inserted",
        Some((Evidence::Phrase { context: 0, .. }, _)) => "phrase, no neighbour agreeing",
        Some((Evidence::Phrase { .. }, _)) => "phrase, a neighbour agreeing",
        Some(_) => "other",
    }
}

/// The word repair's counts in one score band.
#[derive(Default, Clone, Copy)]
struct WordBand {
    queries: usize,
    changed: usize,
    equal_before: usize,
    equal_after: usize,
    sim_before: f64,
    sim_after: f64,
    nearer: usize,
    farther: usize,
}

impl WordBand {
    fn plus(&self, o: &WordBand) -> WordBand {
        WordBand {
            queries: self.queries + o.queries,
            changed: self.changed + o.changed,
            equal_before: self.equal_before + o.equal_before,
            equal_after: self.equal_after + o.equal_after,
            sim_before: self.sim_before + o.sim_before,
            sim_after: self.sim_after + o.sim_after,
            nearer: self.nearer + o.nearer,
            farther: self.farther + o.farther,
        }
    }

    fn add(&mut self, before: &str, after: &str, want: &str, sim_before: f64, sim_after: f64) {
        self.queries += 1;
        self.changed += usize::from(before != after);
        self.equal_before += usize::from(before == want);
        self.equal_after += usize::from(after == want);
        self.sim_before += sim_before;
        self.sim_after += sim_after;
        self.nearer += usize::from(sim_after > sim_before + 1e-9);
        self.farther += usize::from(sim_after + 1e-9 < sim_before);
    }
}

/// The adapted target of `m` as the rule alone makes it (no code placed by an alignment),
/// with the mechanical repairs: what a lookup gave before the code placement.
fn by_rule(m: &Match, req: &LookupRequest) -> Vec<Run> {
    let positional = matches!(
        m.match_type,
        MatchType::ContextExact | MatchType::GeneralizedExact | MatchType::StructuralExact
    );
    let mut adapted = adapt_with(&req.source, m.source(), m.target(), positional, WordLinks::Rule);
    cmem_core::repair::repair(&req.source, m.source(), &mut adapted.target, &req.target_locale);
    adapted.target
}

/// The code placement's counts in one score band: a word band's, and how many had a
/// code placed by the alignment.
#[derive(Default, Clone, Copy)]
struct PlacementBand {
    band: WordBand,
    placed: usize,
}

impl PlacementBand {
    fn add(
        &mut self,
        (before, after, want): (&str, &str, &str),
        (sim_before, sim_after): (f64, f64),
        placed: bool,
    ) {
        self.placed += usize::from(placed);
        self.band.add(before, after, want, sim_before, sim_after);
    }

    fn plus(&self, o: &PlacementBand) -> PlacementBand {
        PlacementBand { band: self.band.plus(&o.band), placed: self.placed + o.placed }
    }
}

/// The word model of `entries`: read from `path` when it exists, else trained and
/// written there (when given); the training's time is printed.
fn word_model(path: Option<&Path>, entries: &[NewEntry]) -> Result<WordModel> {
    if let Some(p) = path.filter(|p| p.exists()) {
        let t0 = Instant::now();
        let model = WordModel::from_saved(&std::fs::read_to_string(p)?)?;
        println!("word model read from {} in {:.1} s", p.display(), t0.elapsed().as_secs_f64());
        return Ok(model);
    }
    let rss_before = crate::status_mb("VmRSS");
    let t0 = Instant::now();
    let pairs = entries.iter().map(|e| {
        (cmem_core::align::text_of(&e.variants[0].runs), cmem_core::align::text_of(&e.variants[1].runs))
    });
    let (model, report) = WordModel::train(pairs, &AlignOptions::default());
    println!(
        "word model trained in {:.1} s (resident before {rss_before:.0} MB, peak after {:.0} MB): {report:?}",
        t0.elapsed().as_secs_f64(),
        crate::status_mb("VmHWM")
    );
    if let Some(p) = path {
        std::fs::write(p, model.to_saved())?;
    }
    Ok(model)
}
