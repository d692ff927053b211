//! `cmem context`: what the memory knows about a segment for a translation producer (an
//! MT engine, an LLM prompt): prior version, matches, examples chosen to cover it,
//! glossary. One segment, a JSON Lines batch, or the segments of a document (an XLIFF
//! file, a PO catalog, …); JSON Lines out.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};
use clap::Args;
use cmem::formats::registry::{self, SegmentSource};
use cmem::{
    ContextOptions, ContextRequest, ContextSegment, Locale, LookupOptions, LookupRequest, Memory,
    OpenOptions, Point, QueryContext, Recognizer, Run,
};
use serde_json::{json, Map, Value};

use crate::args::RecognizeArgs;
use crate::memory;
use crate::output::Stdout;
use crate::query::{query_recognizer, runs_of_text};
use crate::Outcome;

const CONTEXT_HELP: &str = "\
Examples:
  cmem context 'Delete the selected files?' --from en --to de
  cmem context 'Save' --from en --to de --unit home.save --fingerprint 3f2a…
  cmem context --batch segments.jsonl --from en --to de --examples 8 > context.jsonl
  cmem context --file todo.xlf --from en --to de --glossary 0

Writes one JSON line per segment: the block's prior version (only when --fingerprint is
the one its newest approval carries), the lookup's matches, up to --examples source/target
pairs chosen so that together they cover the segment's words and word pairs (the rarest
first; near-duplicates never fill the list), and the glossary of the pair's word model
(`cmem align` trains it; without one the glossary is empty and \"word_model\" is false).
An exact match short-circuits: no examples, no glossary (--no-short-circuit keeps them).
A --batch line is a JSON object: exactly one of \"text\", \"notation\" or \"runs\", and
optionally \"id\", \"unit\", \"context_fingerprint\", \"point\" and \"context\"
({\"key\", \"pre\", \"post\"}), as a segment of POST /v1/context.";

/// `cmem context`.
#[derive(Debug, Clone, Args)]
#[command(after_help = CONTEXT_HELP)]
pub struct ContextArgs {
    /// The segment (plain text, or the run notation with --notation).
    #[arg(value_name = "TEXT", required_unless_present_any = ["batch", "file"],
          conflicts_with_all = ["batch", "file"])]
    pub text: Option<String>,
    /// Source locale.
    #[arg(long, value_name = "LOCALE")]
    pub from: Locale,
    /// Target locale.
    #[arg(long, value_name = "LOCALE")]
    pub to: Locale,
    /// TEXT is in the run notation.
    #[arg(long, conflicts_with_all = ["batch", "file"])]
    pub notation: bool,
    /// The block the segment is a version of (a string key).
    #[arg(long, value_name = "UNIT", conflicts_with_all = ["batch", "file"])]
    pub unit: Option<String>,
    /// The context fingerprint that must govern the block's prior version.
    #[arg(long, value_name = "FINGERPRINT", requires = "unit", conflicts_with_all = ["batch", "file"])]
    pub fingerprint: Option<String>,
    /// The caller's point (profile/channel/collection).
    #[arg(long, value_name = "POINT")]
    pub point: Option<Point>,
    /// Every segment of a JSON Lines file (`-`: standard input).
    #[arg(long, value_name = "SEGMENTS.jsonl", conflicts_with = "file")]
    pub batch: Option<PathBuf>,
    /// Every segment of an XLIFF file, a PO/POT catalog or a .properties bundle (by its
    /// extension) that has no approved target.
    #[arg(long, value_name = "FILE.xlf|FILE.po|FILE.properties")]
    pub file: Option<PathBuf>,
    /// At most this many examples (0–20).
    #[arg(long, value_name = "K", default_value_t = ContextOptions::default().examples)]
    pub examples: usize,
    /// The most characters of all examples' sources and targets together.
    #[arg(long, value_name = "CHARS", default_value_t = ContextOptions::default().max_example_chars)]
    pub max_example_chars: usize,
    /// The least share of the segment's weighted words an example must hold, 0–100.
    #[arg(long, value_name = "PERCENT", default_value_t = ContextOptions::default().min_example_score * 100.0)]
    pub min_example_score: f64,
    /// At most this many glossary pairs (0–50).
    #[arg(long, value_name = "N", default_value_t = ContextOptions::default().glossary)]
    pub glossary: usize,
    /// Give examples and glossary even when the best match is exact.
    #[arg(long)]
    pub no_short_circuit: bool,
    /// The least score of the matches, 0–100.
    #[arg(long, value_name = "PERCENT", default_value_t = LookupOptions::default().threshold * 100.0)]
    pub threshold: f64,
    /// At most this many matches.
    #[arg(long, value_name = "N", default_value_t = LookupOptions::default().limit)]
    pub limit: usize,
    /// Inline-code recognition of plain text.
    #[command(flatten)]
    pub recognize: RecognizeArgs,
}

impl ContextArgs {
    /// The matches' options and the examples' options the flags ask for.
    fn options(&self) -> Result<(LookupOptions, ContextOptions)> {
        if !(0.0..=100.0).contains(&self.threshold) {
            bail!("--threshold {}: not a percentage 0–100", self.threshold);
        }
        if !(1..=100).contains(&self.limit) {
            bail!("--limit {}: not 1–100", self.limit);
        }
        if !(0.0..=100.0).contains(&self.min_example_score) {
            bail!("--min-example-score {}: not a percentage 0–100", self.min_example_score);
        }
        let lookup = LookupOptions::default()
            .threshold(self.threshold / 100.0)
            .limit(self.limit)
            .maybe_point(self.point.clone());
        let options = ContextOptions::default()
            .examples(self.examples)
            .max_example_chars(self.max_example_chars)
            .min_example_score(self.min_example_score / 100.0)
            .glossary(self.glossary)
            .short_circuit_exact(!self.no_short_circuit);
        options.validate().map_err(|e| anyhow!("--{}", e.to_string().replace('_', "-")))?;
        Ok((lookup, options))
    }
}

/// Runs `cmem context`.
///
/// # Errors
/// A missing memory, bad flags, a segment that does not parse, a store failure; in
/// batch mode, the lines that failed (after every line has been answered).
pub fn run(args: &ContextArgs, path: Option<&Path>, quiet: bool) -> Result<Outcome> {
    let (lookup, options) = args.options()?;
    let one = args.batch.is_none() && args.file.is_none();
    let memory = memory::open_existing_with(&memory::resolve(path), OpenOptions::new().sql_candidates(one))?;
    let rec = query_recognizer(&args.recognize, &memory, quiet)?;
    let mut out = Stdout::new();
    if let Some(batch) = &args.batch {
        return run_batch(args, batch, &memory, rec.as_ref(), (&lookup, &options), &mut out);
    }
    if let Some(file) = &args.file {
        return run_file(args, file, &memory, rec.as_ref(), (&lookup, &options), &mut out);
    }
    let text = args.text.as_deref().unwrap_or_default();
    let runs = runs_of_text(text, args.notation, rec.as_ref())?;
    let lookup_req = LookupRequest::new(runs, args.from.clone(), args.to.clone()).options(lookup);
    let req = ContextRequest::new(lookup_req)
        .block(args.unit.clone().unwrap_or_default(), args.fingerprint.clone().unwrap_or_default())
        .options(options);
    let answer = memory.context_answer(&req).map_err(|e| e.prefixed("context"))?;
    // Through a `Value`, whose keys are sorted: the shape of every JSON line of cmem.
    serde_json::to_writer(&mut out, &serde_json::to_value(&answer)?)?;
    writeln!(out)?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// One answer line: `fields` (the answer's) after the line's own.
fn line_of(head: Map<String, Value>, answer: &cmem::ContextAnswer) -> Result<Value> {
    let mut m = head;
    if let Value::Object(fields) = serde_json::to_value(answer)? {
        m.extend(fields);
    }
    Ok(Value::Object(m))
}

fn run_batch(
    args: &ContextArgs,
    batch: &Path,
    memory: &Memory,
    rec: Option<&Recognizer>,
    (lookup, options): (&LookupOptions, &ContextOptions),
    out: &mut Stdout,
) -> Result<Outcome> {
    let input: Box<dyn BufRead> = if batch == Path::new("-") {
        Box::new(BufReader::new(io::stdin()))
    } else {
        Box::new(BufReader::new(
            File::open(batch).with_context(|| format!("context --batch {}: cannot open", batch.display()))?,
        ))
    };
    memory.warm(&args.from).map_err(|e| e.prefixed("context"))?;
    let (mut segments, mut failed) = (0u64, 0u64);
    let mut first_error: Option<String> = None;
    for (i, line) in input.split(b'\n').enumerate() {
        let n = i + 1;
        let line =
            line.map_err(|e| anyhow!("context --batch {}: line {n}: cannot read: {e}", batch.display()))?;
        let line = String::from_utf8(line).map_err(|e| {
            anyhow!("not UTF-8 (an invalid byte after {} bytes of the line)", e.utf8_error().valid_up_to())
        });
        if line.as_ref().is_ok_and(|l| l.trim().is_empty()) {
            continue;
        }
        segments += 1;
        let answer = line.and_then(|line| {
            let seg: ContextSegment =
                serde_json::from_str(&line).map_err(|e| anyhow!("invalid segment: {e}"))?;
            let req = seg
                .request(rec, false, &args.from, &args.to, lookup, options)
                .map_err(|e| e.error.prefixed(format_args!("field {}", e.field)))?;
            Ok((memory.context_answer(&req)?, seg.id))
        });
        let value = match answer {
            Ok((answer, id)) => {
                let mut head = Map::new();
                head.insert("line".into(), Value::from(n));
                if let Some(id) = id {
                    head.insert("id".into(), id);
                }
                line_of(head, &answer)?
            }
            Err(e) => {
                failed += 1;
                let message = format!("{e:#}");
                first_error.get_or_insert_with(|| format!("line {n}: {message}"));
                json!({ "line": n, "error": message })
            }
        };
        serde_json::to_writer(&mut *out, &value)?;
        writeln!(out)?;
        out.flush()?;
    }
    if let Some(first) = first_error {
        bail!(
            "context --batch {}: {failed} of {segments} segments failed; the first, {first}",
            batch.display()
        );
    }
    Ok(Outcome::Success)
}

/// A segment of a file: its line, its unit key and its runs.
type FileSegment = (u64, String, Vec<Run>);

/// The segments of a document (an XLIFF file, a PO catalog, …: by its extension, as the
/// format registry reads documents) that still need a translation.
fn file_segments(file: &Path, rec: Option<&Recognizer>) -> Result<Vec<FileSegment>> {
    let name = file.display().to_string();
    let raw = std::fs::read(file).with_context(|| format!("context --file {name}: cannot open"))?;
    let segments = registry::document_format(file).segments(raw, &name)?;
    segments
        .into_iter()
        .map(|s| {
            let runs = match s.source {
                SegmentSource::Text(text) => runs_of_text(&text, false, rec)
                    .map_err(|e| e.prefixed(format_args!("{name}: line {}", s.line)))?,
                SegmentSource::Runs(runs) => runs,
                _ => bail!("{name}: line {}: a segment this program cannot read", s.line),
            };
            Ok((s.line, s.unit, runs))
        })
        .collect()
}

fn run_file(
    args: &ContextArgs,
    file: &Path,
    memory: &Memory,
    rec: Option<&Recognizer>,
    (lookup, options): (&LookupOptions, &ContextOptions),
    out: &mut Stdout,
) -> Result<Outcome> {
    let segments = file_segments(file, rec)?;
    memory.warm(&args.from).map_err(|e| e.prefixed("context"))?;
    for (line, key, runs) in segments {
        let lookup_req = LookupRequest::new(runs, args.from.clone(), args.to.clone())
            .options(lookup.clone())
            .context(QueryContext { key: key.clone(), ..QueryContext::default() });
        let req = ContextRequest::new(lookup_req).options(options.clone());
        let answer = memory
            .context_answer(&req)
            .map_err(|e| e.prefixed(format_args!("context --file {}: line {line}", file.display())))?;
        let mut head = Map::new();
        head.insert("line".into(), Value::from(line));
        if !key.is_empty() {
            head.insert("unit".into(), Value::from(key));
        }
        serde_json::to_writer(&mut *out, &line_of(head, &answer)?)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(Outcome::Success)
}
