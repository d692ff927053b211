//! `cmem align`: trains the word model of a locale pair over the memory and saves it
//! there, so lookups can repair the changed words of fuzzy matches.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use clap::Args;
use cmem::align::{AlignOptions, TrainReport};
use cmem::{Locale, Memory};
use serde_json::json;

use crate::memory;
use crate::output::Stdout;
use crate::serve::open_existing_for_write;

const ALIGN_HELP: &str = "\
Examples:
  cmem align --from en --to de
  cmem align --from en --to de --iterations 3 --json

Learns which words translate which from the memory's own entries (EM over the sentence
pairs, both directions) and counts the phrase pairs that follow; saved in the memory for
the two languages (regions do not matter), replacing a model trained before. An import
trains it already when the pair has 1,000 entries and no model, or grew by a tenth since
(--no-align skips that); this command trains it whatever the size. A running `cmem serve` on a SQLite memory
reads the new model at its next lookup; on PostgreSQL, when restarted.";

/// `cmem align`.
#[derive(Debug, Clone, Args)]
#[command(after_help = ALIGN_HELP)]
pub struct AlignArgs {
    /// The source locale.
    #[arg(long)]
    pub from: String,
    /// The target locale.
    #[arg(long)]
    pub to: String,
    /// EM rounds per direction.
    #[arg(long, default_value_t = 5)]
    pub iterations: usize,
    /// Plain IBM Model 1 (no preference for links near the diagonal).
    #[arg(long)]
    pub model1: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `cmem align`.
///
/// # Errors
/// No memory, bad locales, a store failure.
pub fn run(args: &AlignArgs, path: Option<&Path>) -> Result<()> {
    let (from, to) = (Locale::parse(&args.from)?, Locale::parse(&args.to)?);
    let path = memory::resolve(path);
    let mem = open_existing_for_write(&path, None, None)?;
    let mut opts = AlignOptions::default().iterations(args.iterations);
    if args.model1 {
        opts = opts.tension(None);
    }
    let report = train_and_save(&mem, &from, &to, &opts)?;
    let mut out = Stdout::new();
    if args.json {
        serde_json::to_writer(
            &mut out,
            &json!({ "from": from.as_str(), "to": to.as_str(), "report": report }),
        )?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "aligned {} pairs ({} left out), {} source and {} target words; kept {} table cells and {} phrase pairs",
            report.pairs,
            report.skipped,
            report.source_words,
            report.target_words,
            report.table_cells,
            report.phrase_pairs
        )?;
    }
    Ok(())
}

/// Trains the word model of `from` → `to` over the memory `store` and saves it there.
///
/// # Errors
/// A memory without such pairs, or a store failure.
pub fn train_and_save(
    memory: &Memory,
    from: &Locale,
    to: &Locale,
    opts: &AlignOptions,
) -> Result<TrainReport> {
    let report = memory.train_word_model(from, to, opts)?;
    if report.pairs == 0 {
        anyhow::bail!("the memory holds no {} → {} pairs to learn from", from.as_str(), to.as_str());
    }
    Ok(report)
}
