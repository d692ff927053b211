//! Turning what a user typed or sent into the runs of a query: plain text (inline codes
//! recognized by a rule set, or kept as text), the run notation, or runs as JSON. Every
//! front end prepares queries here, so one string looks the same up everywhere.
//!
//! ```
//! use cmem_core::{prepare_query, QueryText, Recognizer, Run};
//!
//! let rec = Recognizer::default();
//! let runs = prepare_query(QueryText::Plain("Open %s"), Some(&rec))?;
//! assert!(matches!(runs[1], Run::Ph(_)));
//! let runs = prepare_query(QueryText::Notation("Click {1}here{/1}"), None)?;
//! assert_eq!(runs.len(), 4);
//! assert_eq!(prepare_query(QueryText::Plain("Open %s"), None)?, vec![Run::text("Open %s")]);
//! # Ok::<(), cmem_core::Error>(())
//! ```

use crate::error::Result;
use crate::notation::parse_notation;
use crate::recognize::Recognizer;
use crate::run::{runs_from_json, Run};

/// A query as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum QueryText<'a> {
    /// Plain text; inline codes recognized when a recognizer is given.
    Plain(&'a str),
    /// The run notation (`Click {1}here{/1}, {PERSON:John}`).
    Notation(&'a str),
    /// A JSON array of runs.
    RunsJson(&'a str),
}

/// The runs of `query`; `recognizer` applies to plain text only.
///
/// # Errors
/// Notation or JSON that does not parse ([`ErrorKind::InvalidRuns`](crate::ErrorKind::InvalidRuns),
/// naming the column or the offending value).
pub fn prepare_query(query: QueryText<'_>, recognizer: Option<&Recognizer>) -> Result<Vec<Run>> {
    match query {
        QueryText::Notation(text) => parse_notation(text),
        QueryText::RunsJson(json) => runs_from_json(json),
        QueryText::Plain(text) => Ok(match recognizer {
            Some(r) => r.recognize(text),
            None if text.is_empty() => Vec::new(),
            None => vec![Run::text(text)],
        }),
    }
}
