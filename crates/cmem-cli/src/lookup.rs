//! `cmem lookup`: one segment, or a batch of them from JSON Lines.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use cmem::{
    prepare_query, surface_text, LookupAnswer, LookupOptions, LookupRequest, Match, Memories, Memory,
    MemorySpec, OpenOptions, QueryText, Recognizer, Run,
};
use serde_json::{json, Map, Value};

use cmem::repair::adapt::CodeRole;
use cmem::repair::place::PlacedBy;

use crate::args::LookupArgs;
use crate::memory::{self, Given};
use crate::output::{count, duration, percent, render_diff, word_diff, Marks, Stdout};
use crate::query::{query_recognizer, runs_from_file, runs_of_text};
use crate::Outcome;

/// When nothing was found because the memory holds no entry for the pair at all (a
/// typo such as `--to ge`), a warning naming the pairs it does hold.
pub(crate) fn pair_warning(memory: &Memory, from: &cmem::Locale, to: &cmem::Locale) -> Option<String> {
    let stats = memory.stats().ok()?;
    let served = |p: &cmem::PairCount| {
        let serves = |asked: &cmem::Locale, held: &cmem::Locale| asked.fit(held).is_some();
        (serves(from, &p.source) && serves(to, &p.target))
            || (serves(from, &p.target) && serves(to, &p.source))
    };
    if stats.pairs.iter().any(served) {
        return None;
    }
    let held: Vec<String> =
        stats.pairs.iter().take(8).map(|p| format!("{} → {}", p.source, p.target)).collect();
    Some(if held.is_empty() {
        "the memory is empty".to_owned()
    } else {
        format!("the memory holds no {from} → {to} entries (it holds {})", held.join(", "))
    })
}

/// White space made visible: line breaks `⏎`, tabs `→`, and with `spaces` every space
/// `·` (a no-break space `⍽`).
pub(crate) fn visible(text: &str, spaces: bool) -> String {
    text.chars()
        .map(|c| match c {
            '\n' => "⏎".to_owned(),
            '\r' => "␍".to_owned(),
            '\t' => "→".to_owned(),
            ' ' if spaces => "·".to_owned(),
            '\u{00A0}' | '\u{202F}' if spaces => "⍽".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

/// One match for people: score, tier, entry and its evidence; source (with its word
/// differences from the query), target, and the adapted target with its differences
/// from the stored target marked; repairs, penalties and notes.
fn write_match(
    out: &mut dyn Write,
    m: &Match,
    memory: Option<&str>,
    color: bool,
    spaces: bool,
) -> io::Result<()> {
    let marks = Marks::new(color);
    let mut head = format!("{}  {}  entry {}", percent(m.score), m.match_type, m.entry.id);
    if let Some(name) = memory {
        head.push_str(&format!("  memory {name}"));
    }
    if m.ambiguous {
        head.push_str("  ambiguous");
    }
    if !m.entry.point.is_root() {
        head.push_str(&format!("  point {}", m.entry.point));
    }
    let approvals = m.entry.approvals();
    if approvals > 1 {
        head.push_str(&format!("  {approvals} approvals"));
    }
    writeln!(out, "{head}")?;
    let target = visible(&surface_text(m.target()), spaces);
    let adapted = visible(&surface_text(&m.adapted_target), spaces);
    if m.identical_source || m.source_diff.is_empty() {
        writeln!(out, "  source   {}", visible(&surface_text(m.source()), spaces))?;
    } else {
        // The stored source, its words the query lacks and the query's own marked.
        let ops: Vec<cmem::diff::DiffOp> = m
            .source_diff
            .iter()
            .map(|o| cmem::diff::DiffOp { op: o.op, text: visible(&o.text, spaces) })
            .collect();
        writeln!(out, "  source   {}", render_diff(&ops, marks))?;
    }
    writeln!(out, "  target   {target}")?;
    if adapted != target {
        writeln!(out, "  adapted  {}", word_diff(&target, &adapted, marks))?;
    }
    for p in &m.penalties {
        let what = match p.kind {
            cmem::PenaltyKind::Whitespace => "the text differs from the query in white space only".to_owned(),
            cmem::PenaltyKind::Region => format!(
                "another region of the language asked for ({} → {})",
                m.entry.variants[m.source_index].locale, m.entry.variants[m.target_index].locale
            ),
            cmem::PenaltyKind::Memory => {
                format!("the penalty of memory {}", memory.unwrap_or("(unnamed)"))
            }
            cmem::PenaltyKind::Project => format!("the entry's project ({})", m.entry.project_id),
            cmem::PenaltyKind::Client => "the entry's client".to_owned(),
            cmem::PenaltyKind::Origin => "the entry's origin".to_owned(),
            cmem::PenaltyKind::Status => "the entry's review status".to_owned(),
            cmem::PenaltyKind::File => "the file the entry came from".to_owned(),
            _ => "the text differs from the query".to_owned(),
        };
        writeln!(out, "  penalty  -{}: {what}", p.points)?;
    }
    // A repair not applied changed nothing the user sees: a mechanical one is left out
    // (the target had nothing to change); a word repair without evidence is a note, since
    // the target keeps a word the query changed.
    for r in m.repairs.iter().filter(|r| r.applied || r.words.is_some()) {
        if !r.applied {
            writeln!(
                out,
                "  note     the query has {:?} for {:?}; the target keeps its word (no evidence in the memory)",
                visible(&r.to, true),
                visible(&r.from, true)
            )?;
            continue;
        }
        // A word repair also shows the target's span, what replaced it and the evidence.
        let target = match &r.words {
            Some(w) => {
                let why = match &w.evidence {
                    Some(cmem::repair::words::Evidence::Phrase { count, .. }) => {
                        format!("phrase pair, {count}×")
                    }
                    Some(cmem::repair::words::Evidence::Copied) => "copied".to_owned(),
                    Some(cmem::repair::words::Evidence::Compound { count, kept }) => {
                        format!("compound word, {kept:?} kept, phrase pair {count}×")
                    }
                    Some(cmem::repair::words::Evidence::Deleted) => "dropped".to_owned(),
                    _ => String::new(),
                };
                format!(": {:?} → {:?} ({why})", visible(&w.target_from, true), visible(&w.target_to, true))
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "  repair   {} {:?} → {:?}{target}",
            serde_json::to_value(r.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            visible(&r.from, true),
            visible(&r.to, true)
        )?;
    }
    for o in m.entry.origins.iter().rev().take(3) {
        let mut line = String::from("  origin  ");
        for part in [&o.project_id, &o.created_at] {
            if !part.is_empty() {
                line.push(' ');
                line.push_str(part);
            }
        }
        if line.trim() != "origin" {
            writeln!(out, "{line}")?;
        }
    }
    for a in m.entity_adaptations.iter().filter(|a| !a.applied) {
        writeln!(
            out,
            "  note     {} {:?} → {:?} not applied: the target does not hold it",
            a.entity_type, a.from, a.to
        )?;
    }
    if m.code_adaptations.iter().any(|a| !a.applied && a.to.is_none()) {
        writeln!(out, "  note     the target keeps a placeholder the query does not have")?;
    }
    if m.code_adaptations.iter().any(|a| !a.applied && a.to.is_some()) {
        writeln!(out, "  note     some inline codes of the query could not be placed in the target")?;
    }
    // Where a code the query added or moved went, once per code (its opening half).
    for a in m.code_adaptations.iter().filter(|a| matches!(a.role, CodeRole::PcOpen | CodeRole::Ph)) {
        let (Some(p), Some(code)) = (&a.placement, &a.to) else { continue };
        let code = if code.data.is_empty() { format!("{{{}}}", code.id) } else { code.data.clone() };
        let at = if a.role == CodeRole::Ph { "beside" } else { "around" };
        let target = visible(&p.target, true);
        match p.by {
            PlacedBy::Alignment => {
                writeln!(out, "  placed   {code} {at} {target:?}, the words aligned with those it marks")?
            }
            PlacedBy::Stored => {
                let stored = a.from.as_ref().map_or(String::new(), |c| c.data.clone());
                writeln!(
                    out,
                    "  note     {code} stands where the target had {stored}, {at} {target:?}: the memory does not know which words it marks"
                )?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Where the query stands, from `--context-key`, `--context-pre`, `--context-post`.
fn context(args: &LookupArgs) -> cmem::QueryContext {
    let key = args.context_key.as_deref().unwrap_or_default();
    match (&args.context_pre, &args.context_post) {
        (Some(pre), Some(post)) => {
            cmem::QueryContext::of(key, Some(&[Run::text(pre.clone())]), Some(&[Run::text(post.clone())]))
        }
        _ => cmem::QueryContext { key: key.to_owned(), ..Default::default() },
    }
}

fn options_of(args: &LookupArgs) -> LookupOptions {
    LookupOptions::default()
        .threshold(args.threshold / 100.0)
        .limit(args.limit)
        .maybe_point(args.point.clone())
        .penalties(args.penalties.clone())
}

/// The fragments section below the matches: each stretch, the memory's translation of
/// it, how many of its sightings agree, and an entry that holds it.
fn write_fragments(out: &mut impl Write, fragments: &[cmem::align::Fragment], after: bool) -> io::Result<()> {
    if fragments.is_empty() {
        return Ok(());
    }
    if after {
        writeln!(out)?;
    }
    writeln!(out, "fragments (never filled in; the memory's phrase pairs)")?;
    for f in fragments {
        let example = f.example.map_or_else(String::new, |id| format!("; e.g. entry {}", id.0));
        writeln!(out, "  {:?} → {:?}  ({} of {} agree{example})", f.source, f.target, f.agreeing, f.seen)?;
    }
    Ok(())
}

/// The terms section below the matches: each term of the query as it writes it, the
/// memory's translation, and how sure the memory is of it.
fn write_terms(out: &mut impl Write, terms: &[cmem::align::FoundTerm], after: bool) -> io::Result<()> {
    if terms.is_empty() {
        return Ok(());
    }
    if after {
        writeln!(out)?;
    }
    writeln!(out, "terms (the memory's glossary)")?;
    for f in terms {
        let how = if f.given {
            "given".to_owned()
        } else {
            format!("{} of {} sightings", f.term.count, f.term.seen)
        };
        writeln!(out, "  {:?} → {:?}  ({how})", f.found, f.term.target)?;
    }
    Ok(())
}

/// What a lookup reads: one memory, or several merged.
#[derive(Clone, Copy)]
enum Looked<'a> {
    One(&'a Memory),
    Several(&'a Memories),
}

impl<'a> Looked<'a> {
    /// The memory whose recorded rule set recognizes the query (of several, the first).
    fn first(self) -> &'a Memory {
        match self {
            Looked::One(m) => m,
            Looked::Several(all) => &all.members()[0].memory,
        }
    }

    /// The matches, each with its memory's name when several are looked up.
    fn lookup(self, req: &LookupRequest) -> cmem::Result<Vec<(Option<&'a str>, Match)>> {
        Ok(match self {
            Looked::One(m) => m.lookup(req)?.into_iter().map(|m| (None, m)).collect(),
            Looked::Several(all) => all.lookup(req)?.into_iter().map(|(n, m)| (Some(n), m)).collect(),
        })
    }

    fn answer(self, req: &LookupRequest, fragments: bool, terms: bool) -> cmem::Result<LookupAnswer> {
        match self {
            Looked::One(m) => m.answer_with_evidence(req, fragments, terms),
            Looked::Several(all) => {
                let mut answer = all.answer(req)?;
                if fragments {
                    answer.fragments = self.fragments(req)?;
                }
                if terms {
                    answer.terms = self.terms(req)?;
                }
                Ok(answer)
            }
        }
    }

    /// The glossary's terms the query holds: of several memories, those of the first
    /// whose glossary finds any.
    fn terms(self, req: &LookupRequest) -> cmem::Result<Vec<cmem::align::FoundTerm>> {
        self.first_found(|m| m.segment_terms(req))
    }

    /// The query's fragments: of several memories, those of the first whose word model
    /// finds any.
    fn fragments(self, req: &LookupRequest) -> cmem::Result<Vec<cmem::align::Fragment>> {
        self.first_found(|m| m.fragments(req))
    }

    /// What `find` finds in the memory; of several, in the first where it finds any.
    fn first_found<T>(self, find: impl Fn(&Memory) -> cmem::Result<Vec<T>>) -> cmem::Result<Vec<T>> {
        match self {
            Looked::One(m) => find(m),
            Looked::Several(all) => {
                for member in all.members() {
                    let found = find(&member.memory)?;
                    if !found.is_empty() {
                        return Ok(found);
                    }
                }
                Ok(Vec::new())
            }
        }
    }

    fn warm(self, source: &cmem::Locale) -> cmem::Result<()> {
        match self {
            Looked::One(m) => m.warm(source),
            Looked::Several(all) => all.warm(source),
        }
    }

    /// Warnings when nothing was found because no memory holds the pair at all.
    fn pair_warnings(self, from: &cmem::Locale, to: &cmem::Locale) -> Vec<String> {
        match self {
            Looked::One(m) => pair_warning(m, from, to).into_iter().collect(),
            Looked::Several(all) => {
                let each: Vec<Option<String>> =
                    all.members().iter().map(|m| pair_warning(&m.memory, from, to)).collect();
                if each.iter().any(Option::is_none) {
                    return Vec::new();
                }
                all.members()
                    .iter()
                    .zip(each)
                    .filter_map(|(m, w)| Some(format!("{}: {}", m.spec.name, w?)))
                    .collect()
            }
        }
    }
}

/// Opens the memories of `specs` for reading, as [`memory::open_existing_with`] does.
fn open_several(specs: &[MemorySpec], options: &OpenOptions) -> Result<Memories> {
    let mut members = Vec::with_capacity(specs.len());
    for spec in specs {
        let memory = memory::open_existing_with(Path::new(&spec.address), options.clone())
            .with_context(|| format!("memory {}", spec.name))?;
        members.push((spec.clone(), memory));
    }
    Ok(Memories::new(members)?)
}

/// Runs `cmem lookup`.
///
/// # Errors
/// A missing memory, a query that does not parse, a store failure; in batch mode,
/// query lines that failed (after every line has been answered).
pub fn run(args: &LookupArgs, given: &Given, quiet: bool, color: bool) -> Result<Outcome> {
    // One lookup: the persisted candidate index, opened in place, when the memory has a
    // usable one (written by import and by any process that built the index); without
    // one, SQL candidates (FTS5 trigrams, then the length pre-filter) instead of building
    // the index over the whole locale first (seconds and hundreds of MB on a large
    // memory). A batch builds the index once and serves every line from it.
    let options = OpenOptions::new().sql_candidates(args.batch.is_none());
    let (one, several);
    let looked = match given {
        Given::One(flag) => {
            one = memory::open_existing_with(&memory::resolve(flag.as_deref()), options)?;
            Looked::One(&one)
        }
        Given::Several(specs) => {
            several = open_several(specs, &options)?;
            Looked::Several(&several)
        }
    };
    let rec = query_recognizer(&args.recognize, looked.first(), quiet)?;
    if let Some(batch) = &args.batch {
        return run_batch(args, batch, looked, rec.as_ref(), quiet);
    }
    let runs = match (&args.runs, &args.text) {
        (Some(file), _) => runs_from_file(file)?,
        (None, Some(text)) => runs_of_text(text, args.notation, rec.as_ref())?,
        (None, None) => bail!("lookup: give TEXT, --runs FILE.json or --batch QUERIES.jsonl"),
    };
    let req = LookupRequest::new(runs, args.from.clone(), args.to.clone())
        .options(options_of(args))
        .context(context(args));
    let mut out = Stdout::new();
    let matches = if args.json {
        let answer =
            looked.answer(&req, !args.no_fragments, !args.no_terms).map_err(|e| e.prefixed("lookup"))?;
        // Through a `Value`, whose keys are sorted: the shape of every JSON line of cmem.
        serde_json::to_writer(&mut out, &serde_json::to_value(&answer)?)?;
        writeln!(out)?;
        answer.matches.len()
    } else {
        let matches = looked.lookup(&req).map_err(|e| e.prefixed("lookup"))?;
        for (i, (memory, m)) in matches.iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            write_match(&mut out, m, *memory, color, args.show_space)?;
        }
        let mut above = !matches.is_empty();
        if !args.no_fragments {
            let fragments = looked.fragments(&req).map_err(|e| anyhow!("lookup: {e}"))?;
            write_fragments(&mut out, &fragments, above)?;
            above |= !fragments.is_empty();
        }
        if !args.no_terms {
            let terms = looked.terms(&req).map_err(|e| anyhow!("lookup: {e}"))?;
            write_terms(&mut out, &terms, above)?;
        }
        matches.len()
    };
    out.flush()?;
    if matches == 0 {
        if !quiet && !args.json {
            eprintln!("no match at or above {}", percent(args.threshold / 100.0));
        }
        if !quiet {
            for w in looked.pair_warnings(&args.from, &args.to) {
                eprintln!("cmem: warning: {w}");
            }
        }
        return Ok(Outcome::NothingFound);
    }
    Ok(Outcome::Success)
}

/// The runs a batch line asks for, and its `id` to echo.
fn batch_query(line: &str, rec: Option<&Recognizer>) -> Result<(Vec<Run>, Option<Value>)> {
    let value: Value = serde_json::from_str(line).map_err(|e| anyhow!("invalid JSON: {e}"))?;
    let Value::Object(obj) = value else { bail!("a query line must be a JSON object") };
    let id = obj.get("id").cloned();
    let runs = if let Some(q) = obj.get("query") {
        let q = q.as_str().ok_or_else(|| anyhow!("\"query\" must be a string"))?;
        runs_of_text(q, false, rec)?
    } else if let Some(n) = obj.get("notation") {
        let n = n.as_str().ok_or_else(|| anyhow!("\"notation\" must be a string"))?;
        runs_of_text(n, true, None)?
    } else if let Some(r) = obj.get("runs") {
        prepare_query(QueryText::RunsJson(&r.to_string()), None)?
    } else {
        bail!("no \"query\", \"notation\" or \"runs\" field")
    };
    Ok((runs, id))
}

/// The `p`-th percentile (nearest rank) of sorted durations.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn run_batch(
    args: &LookupArgs,
    batch: &Path,
    memory: Looked<'_>,
    rec: Option<&Recognizer>,
    quiet: bool,
) -> Result<Outcome> {
    let input: Box<dyn BufRead> = if batch == Path::new("-") {
        Box::new(BufReader::new(io::stdin()))
    } else {
        Box::new(BufReader::new(
            File::open(batch).with_context(|| format!("lookup --batch {}: cannot open", batch.display()))?,
        ))
    };
    let started = Instant::now();
    // Build the candidate index before timing, so latencies are those of a warm memory
    // (the batch's own warm-up then finds it current).
    memory.warm(&args.from).map_err(|e| e.prefixed("lookup"))?;
    let warm = started.elapsed();
    let opts = options_of(args);
    let mut out = Stdout::new();
    let mut times = Vec::new();
    let (mut queries, mut found, mut failed) = (0u64, 0u64, 0u64);
    let mut first_error: Option<String> = None;
    // One line at a time, each answered and written before the next is read: a program
    // may use the batch mode as a co-process, writing a query and reading its answer.
    // (The index was warmed above, for every request's source locale: the batch's.)
    for (i, line) in input.split(b'\n').enumerate() {
        let n = i + 1;
        let line =
            line.map_err(|e| anyhow!("lookup --batch {}: line {n}: cannot read: {e}", batch.display()))?;
        // A line that is not UTF-8 is that line's error; the others are still answered.
        let line = String::from_utf8(line).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            anyhow!("not UTF-8 (an invalid byte after {at} bytes of the line)")
        });
        if line.as_ref().is_ok_and(|l| l.trim().is_empty()) {
            continue;
        }
        queries += 1;
        let answer = line.and_then(|line| batch_query(&line, rec)).and_then(|(runs, id)| {
            let req = LookupRequest::new(runs, args.from.clone(), args.to.clone()).options(opts.clone());
            Ok((memory.answer(&req, !args.no_fragments, !args.no_terms)?, id))
        });
        let value = match answer {
            Ok((answer, id)) => {
                times.push(Duration::from_micros(answer.micros));
                if !answer.matches.is_empty() {
                    found += 1;
                }
                let mut m = Map::new();
                m.insert("line".into(), Value::from(n));
                if let Some(id) = id {
                    m.insert("id".into(), id);
                }
                if let Value::Object(fields) = serde_json::to_value(&answer)? {
                    m.extend(fields);
                }
                Value::Object(m)
            }
            Err(e) => {
                failed += 1;
                let message = format!("{e:#}");
                first_error.get_or_insert_with(|| format!("line {n}: {message}"));
                json!({ "line": n, "error": message })
            }
        };
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
        out.flush()?;
    }
    if !quiet {
        times.sort_unstable();
        eprintln!(
            "{} queries, {} with a match, {} failed in {}; lookup p50 {}, p95 {}, p99 {}, max {} (index warm-up {})",
            count(queries),
            count(found),
            count(failed),
            duration(started.elapsed()),
            duration(percentile(&times, 50.0)),
            duration(percentile(&times, 95.0)),
            duration(percentile(&times, 99.0)),
            duration(times.last().copied().unwrap_or_default()),
            duration(warm),
        );
    }
    if let Some(first) = first_error {
        bail!(
            "lookup --batch {}: {} of {} queries failed; the first, {first}",
            batch.display(),
            count(failed),
            count(queries)
        );
    }
    Ok(if found > 0 { Outcome::Success } else { Outcome::NothingFound })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let d: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile(&d, 50.0), Duration::from_micros(50));
        assert_eq!(percentile(&d, 95.0), Duration::from_micros(95));
        assert_eq!(percentile(&d, 99.0), Duration::from_micros(99));
        assert_eq!(percentile(&d[..1], 99.0), Duration::from_micros(1));
        assert_eq!(percentile(&[], 50.0), Duration::ZERO);
    }

    #[test]
    fn batch_lines() {
        let rec = Recognizer::default();
        let (runs, id) = batch_query(r#"{"query":"Open %s","id":7}"#, Some(&rec)).unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(id, Some(Value::from(7)));
        let (runs, _) = batch_query(r#"{"runs":[{"text":"Hi"}]}"#, None).unwrap();
        assert_eq!(runs, vec![Run::text("Hi")]);
        let (runs, _) = batch_query(r#"{"notation":"{1/}x"}"#, None).unwrap();
        assert_eq!(runs.len(), 2);
        assert!(batch_query(r#"{"q":"x"}"#, None).is_err());
        assert!(batch_query("[1]", None).is_err());
        assert!(batch_query("{", None).is_err());
    }
}
