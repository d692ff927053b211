//! A query segment from the command line: plain text (inline codes recognized), the
//! run notation, or a JSON file of runs; and which recognizer applies.

use std::path::Path;

use anyhow::{Context, Result};
use cmem::{prepare_query, Memory, QueryText};
use cmem::{Recognizer, Run};

use crate::args::RecognizeArgs;

/// The recognizer `--recognize` / `--no-recognize` ask for; `None`: plain text stays
/// text. Without either flag, the default rule sets (what `import` uses).
///
/// # Errors
/// An unknown rule set name (the message lists the known ones).
pub fn recognizer(args: &RecognizeArgs) -> Result<Option<Recognizer>> {
    Ok(chosen_recognizer(args)?.unwrap_or_else(|| Some(Recognizer::default())))
}

/// The recognizer the flags choose, or `None` when neither flag was given.
fn chosen_recognizer(args: &RecognizeArgs) -> Result<Option<Option<Recognizer>>> {
    if args.no_recognize {
        return Ok(Some(None));
    }
    match &args.recognize {
        None => Ok(None),
        Some(names) => Ok(Some(Some(Recognizer::from_names(names).map_err(|e| e.prefixed("--recognize"))?))),
    }
}

/// The recognizer for queries of `memory`: the flags' choice, else the rule set the
/// memory's imports recorded, else the default; a warning on standard error (unless
/// `quiet`) when the flags choose other rules than the memory was imported with.
///
/// # Errors
/// An unknown rule set name, or a store failure.
pub fn query_recognizer(args: &RecognizeArgs, memory: &Memory, quiet: bool) -> Result<Option<Recognizer>> {
    let (rec, warning) = memory.query_recognizer(chosen_recognizer(args)?)?;
    if let Some(w) = warning.filter(|_| !quiet) {
        eprintln!("cmem: warning: {w}");
    }
    Ok(rec)
}

/// The runs of a command-line segment.
///
/// # Errors
/// Notation that does not parse (the message names the column).
pub fn runs_of_text(text: &str, notation: bool, rec: Option<&Recognizer>) -> cmem::Result<Vec<Run>> {
    let query = if notation { QueryText::Notation(text) } else { QueryText::Plain(text) };
    prepare_query(query, rec)
}

/// The runs of a JSON file holding one array of runs.
///
/// # Errors
/// The file cannot be read, or is not an array of runs.
pub fn runs_from_file(path: &Path) -> Result<Vec<Run>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(prepare_query(QueryText::RunsJson(&text), None).map_err(|e| e.prefixed(path.display()))?)
}
