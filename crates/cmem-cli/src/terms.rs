//! `cmem terms`: the memory's glossary of a language pair — mined from its word model,
//! a list given back with `--import` first — as CSV, TBX-Basic or JSON Lines.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use cmem::align::TermOptions;
use cmem::Locale;

use crate::memory;
use crate::output::Stdout;
use crate::serve::open_existing_for_write;

const TERMS_HELP: &str = "\
Examples:
  cmem terms --from en --to de > glossary.csv
  cmem terms --from en --to de --format tbx -o glossary.tbx
  cmem terms --from en --to de --import corrected.csv

Source terms of one to four words (no stop word at either end, no bare number) that the
memory translates one way at least --min-share of the time and --min-count times, and
whose translation at least --min-usage of the entries holding the term use, from the
word model an import trains (or `cmem align`); nouns first (a target that starts
with a capital), then the most seen. A list given with --import (CSV with source and
target columns) is kept in the memory and takes precedence over the mined terms it
names; lookups, recycle and analyze use the same glossary.";

/// The file form of `cmem terms`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TermsFormat {
    /// source,target,count,seen,share,noun,example (RFC 4180).
    Csv,
    /// TBX-Basic (ISO 30042, DCT style).
    Tbx,
    /// One JSON object per term.
    Jsonl,
}

/// `cmem terms`.
#[derive(Debug, Clone, Args)]
#[command(after_help = TERMS_HELP)]
pub struct TermsArgs {
    /// The source locale.
    #[arg(long)]
    pub from: Locale,
    /// The target locale.
    #[arg(long)]
    pub to: Locale,
    /// The form written.
    #[arg(long, value_enum, default_value_t = TermsFormat::Csv)]
    pub format: TermsFormat,
    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The fewest sightings with the dominant translation.
    #[arg(long, default_value_t = 3)]
    pub min_count: u32,
    /// The least share of the sightings the dominant translation has (0–1).
    #[arg(long, default_value_t = 0.6)]
    pub min_share: f64,
    /// The least share of the memory's entries holding a term whose target uses its
    /// translation (0–1): a term translated otherwise more often is left out.
    #[arg(long, default_value_t = 0.9)]
    pub min_usage: f64,
    /// At most N terms (0: all).
    #[arg(long, default_value_t = 0)]
    pub limit: usize,
    /// Keep the terms of this CSV file (source and target columns) as the pair's given
    /// list, replacing the one before, instead of writing the glossary.
    #[arg(long, value_name = "FILE.csv", conflicts_with = "output")]
    pub import: Option<PathBuf>,
}

/// Runs `cmem terms`.
///
/// # Errors
/// No memory, a bad file or option, a store failure.
pub fn run(args: &TermsArgs, path: Option<&Path>, quiet: bool) -> Result<()> {
    if !(0.0..=1.0).contains(&args.min_share) {
        anyhow::bail!("terms: --min-share {} is outside 0–1", args.min_share);
    }
    if !(0.0..=1.0).contains(&args.min_usage) {
        anyhow::bail!("terms: --min-usage {} is outside 0–1", args.min_usage);
    }
    let path = memory::resolve(path);
    if let Some(file) = &args.import {
        let text =
            std::fs::read_to_string(file).map_err(|e| anyhow!("terms --import {}: {e}", file.display()))?;
        let terms = cmem::terms::from_csv(&file.display().to_string(), &text)
            .map_err(|e| anyhow!("terms --import {e}"))?;
        let mem = open_existing_for_write(&path, None, None)?;
        mem.set_terms(&args.from, &args.to, &terms)?;
        if !quiet {
            eprintln!(
                "kept {} given terms of {} → {} (they take precedence over mined ones)",
                terms.len(),
                args.from.as_str(),
                args.to.as_str()
            );
        }
        return Ok(());
    }
    let mem = memory::open_existing(&path)?;
    let options =
        TermOptions::default().min_count(args.min_count).min_share(args.min_share).min_usage(args.min_usage);
    let mut terms = mem.terms(&args.from, &args.to, &options)?;
    if args.limit > 0 {
        terms.truncate(args.limit);
    }
    if terms.is_empty() && !quiet {
        eprintln!(
            "cmem: warning: no terms of {} → {}: the memory keeps no word model of the pair, or nothing passes \
             --min-count and --min-share (an import trains the model once the pair has 1,000 entries; `cmem align` at any size)",
            args.from.as_str(),
            args.to.as_str()
        );
    }
    let text = match args.format {
        TermsFormat::Csv => cmem::terms::to_csv(&terms),
        TermsFormat::Tbx => cmem::terms::to_tbx(&terms, &args.from, &args.to),
        TermsFormat::Jsonl => {
            let mut s = String::new();
            for t in &terms {
                s.push_str(&serde_json::to_string(t)?);
                s.push('\n');
            }
            s
        }
    };
    match &args.output {
        Some(file) => {
            // Written whole or not at all.
            let write = || -> std::io::Result<()> {
                let mut f = cmem::formats::OutputFile::create(file)?;
                f.write_all(text.as_bytes())?;
                f.commit()
            };
            write().map_err(|e| anyhow!("terms -o {}: {e}", file.display()))?;
        }
        None => {
            let mut out = Stdout::new();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(())
}
