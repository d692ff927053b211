//! `cmem lookup`: one segment, or a batch of them from JSON Lines.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use cmem::{
    prepare_query, surface_text, LookupOptions, LookupRequest, Match, MatchView, Memory, OpenOptions,
    QueryText, Recognizer, Run, SegmentView,
};
use serde_json::{json, Map, Value};

use crate::args::LookupArgs;
use crate::output::{count, duration, percent, render_diff, word_diff, Marks, Stdout};
use crate::query::{query_recognizer, runs_from_file, runs_of_text};
use crate::{memory, Outcome};

/// A segment as JSON: its locale, its text (codes as their native markup) and its runs.
fn segment_json(locale: Option<&str>, runs: &[Run]) -> Value {
    serde_json::to_value(SegmentView::of(locale, runs)).unwrap_or(Value::Null)
}

/// One match as JSON: the library's match view.
pub fn match_json(m: &Match) -> Value {
    serde_json::to_value(MatchView::of(m)).unwrap_or(Value::Null)
}

/// When nothing was found because the memory holds no entry for the pair at all (a
/// typo such as `--to ge`), a warning naming the pairs it does hold.
fn pair_warning(memory: &Memory, from: &cmem::Locale, to: &cmem::Locale) -> Option<String> {
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
fn visible(text: &str, spaces: bool) -> String {
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
fn write_match(out: &mut dyn Write, m: &Match, color: bool, spaces: bool) -> io::Result<()> {
    let marks = Marks::new(color);
    let mut head = format!("{}  {}  entry {}", percent(m.score), m.match_type, m.entry.id);
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
            _ => "the text differs from the query".to_owned(),
        };
        writeln!(out, "  penalty  -{}: {what}", p.points)?;
    }
    for r in &m.repairs {
        let state = match (&r.words, r.applied) {
            (_, true) => String::new(),
            (Some(_), false) => " (not applied: no evidence in the memory)".to_owned(),
            (None, false) => " (not applied: the target has nothing to change)".to_owned(),
        };
        // A word repair also shows the target's span, what replaced it and the evidence.
        let target = match &r.words {
            Some(w) if r.applied => {
                let why = match &w.evidence {
                    Some(cmem::repair::words::Evidence::Phrase { count, .. }) => {
                        format!("phrase pair, {count}×")
                    }
                    Some(cmem::repair::words::Evidence::Copied) => "copied".to_owned(),
                    Some(cmem::repair::words::Evidence::Deleted) => "dropped".to_owned(),
                    _ => String::new(),
                };
                format!(": {:?} → {:?} ({why})", visible(&w.target_from, true), visible(&w.target_to, true))
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "  repair   {} {:?} → {:?}{target}{state}",
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
    Ok(())
}

fn options(args: &LookupArgs) -> LookupOptions {
    LookupOptions::default()
        .threshold(args.threshold / 100.0)
        .limit(args.limit)
        .maybe_point(args.point.clone())
}

/// Runs `cmem lookup`.
///
/// # Errors
/// A missing memory, a query that does not parse, a store failure; in batch mode,
/// query lines that failed (after every line has been answered).
pub fn run(args: &LookupArgs, memory_flag: Option<&Path>, quiet: bool, color: bool) -> Result<Outcome> {
    let path = memory::resolve(memory_flag);
    if let Some(batch) = &args.batch {
        let memory = memory::open_existing(&path)?;
        let rec = query_recognizer(&args.recognize, &memory, quiet)?;
        return run_batch(args, batch, &memory, rec.as_ref(), quiet);
    }
    // One lookup: the persisted candidate index, opened in place, when the memory has a
    // usable one (written by import and by any process that built the index); without
    // one, SQL candidates (FTS5 trigrams, then the length pre-filter) instead of building
    // the index over the whole locale first (seconds and hundreds of MB on a large
    // memory).
    let memory = memory::open_existing_with(&path, OpenOptions::new().sql_candidates(true))?;
    let rec = query_recognizer(&args.recognize, &memory, quiet)?;
    let runs = match (&args.runs, &args.text) {
        (Some(file), _) => runs_from_file(file)?,
        (None, Some(text)) => runs_of_text(text, args.notation, rec.as_ref())?,
        (None, None) => bail!("lookup: give TEXT, --runs FILE.json or --batch QUERIES.jsonl"),
    };
    let req = LookupRequest::new(runs, args.from.clone(), args.to.clone()).options(options(args));
    let started = Instant::now();
    let matches = memory.lookup(&req).map_err(|e| anyhow!("lookup: {e}"))?;
    let micros = started.elapsed().as_micros() as u64;
    let mut out = Stdout::new();
    if args.json {
        let line = json!({
            "query": segment_json(Some(args.from.as_str()), &req.source),
            "micros": micros,
            "matches": matches.iter().map(match_json).collect::<Vec<_>>(),
        });
        serde_json::to_writer(&mut out, &line)?;
        writeln!(out)?;
    } else {
        for (i, m) in matches.iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            write_match(&mut out, m, color, args.show_space)?;
        }
    }
    out.flush()?;
    if matches.is_empty() {
        if !quiet && !args.json {
            eprintln!("no match at or above {}", percent(args.threshold / 100.0));
        }
        if !quiet {
            if let Some(w) = pair_warning(&memory, &args.from, &args.to) {
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
        prepare_query(QueryText::RunsJson(&r.to_string()), None).map_err(|e| anyhow!("{e}"))?
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
    memory: &Memory,
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
    // Build the candidate index before timing, so latencies are those of a warm memory.
    memory.warm(&args.from).map_err(|e| anyhow!("lookup: {e}"))?;
    let warm = started.elapsed();
    let opts = options(args);
    let mut out = Stdout::new();
    let mut times = Vec::new();
    let (mut queries, mut found, mut failed) = (0u64, 0u64, 0u64);
    let mut first_error: Option<String> = None;
    for (i, line) in input.split(b'\n').enumerate() {
        let n = i + 1;
        let line =
            line.with_context(|| format!("lookup --batch {}: line {n}: cannot read", batch.display()))?;
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
            let t = Instant::now();
            let matches = memory.lookup(&req).map_err(|e| anyhow!("{e}"))?;
            let elapsed = t.elapsed();
            times.push(elapsed);
            Ok((req, id, matches, elapsed))
        });
        let value = match answer {
            Ok((req, id, matches, elapsed)) => {
                if !matches.is_empty() {
                    found += 1;
                }
                let mut m = Map::new();
                m.insert("line".into(), Value::from(n));
                if let Some(id) = id {
                    m.insert("id".into(), id);
                }
                m.insert("query".into(), segment_json(Some(args.from.as_str()), &req.source));
                m.insert("micros".into(), Value::from(elapsed.as_micros() as u64));
                m.insert("matches".into(), Value::Array(matches.iter().map(match_json).collect()));
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
        // Each answer as soon as it is known: a program may use the batch mode as a
        // co-process, writing a query and reading its answer.
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
