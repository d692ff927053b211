//! A query segment from the command line: plain text (inline codes recognized), the
//! run notation, or a JSON file of runs.

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use cmem_core::run::runs_from_json;
use cmem_core::{parse_notation, Recognizer, Run};

use crate::args::RecognizeArgs;

/// The recognizer `--recognize` / `--no-recognize` ask for; `None`: plain text stays text.
///
/// # Errors
/// An unknown rule set name (the message lists the known ones).
pub fn recognizer(args: &RecognizeArgs) -> Result<Option<Recognizer>> {
    if args.no_recognize {
        return Ok(None);
    }
    match &args.recognize {
        None => Ok(Some(Recognizer::default())),
        Some(names) => Recognizer::from_names(names).map(Some).map_err(|e| anyhow!("--recognize: {e}")),
    }
}

/// The runs of a command-line segment.
///
/// # Errors
/// Notation that does not parse (the message names the column).
pub fn runs_of_text(text: &str, notation: bool, rec: Option<&Recognizer>) -> Result<Vec<Run>> {
    if notation {
        return parse_notation(text).map_err(|e| anyhow!("{e}"));
    }
    Ok(match rec {
        Some(r) => r.recognize(text),
        None if text.is_empty() => Vec::new(),
        None => vec![Run::text(text)],
    })
}

/// The runs of a JSON file holding one array of runs.
///
/// # Errors
/// The file cannot be read, or is not an array of runs.
pub fn runs_from_file(path: &Path) -> Result<Vec<Run>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    runs_from_json(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
}
