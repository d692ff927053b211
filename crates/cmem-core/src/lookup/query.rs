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
use crate::model::notation::parse_notation;
use crate::model::recognize::Recognizer;
use crate::model::run::{runs_from_json, walk_runs, Code, Run};

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

pub use crate::model::run::CLIENT_MASK_TYPE;

/// Turns the placeholder masks that translation tools put into the text they send back
/// into codes (docs/matching.md §4, "Client masks"): Weblate's `[X<digits>X]` (the
/// digits are the placeholder's offset in its string; spaces before the closing `]`
/// are accepted, as Weblate's own unmasking does), found in the text runs of `runs`.
///
/// Each mask becomes a standalone code whose data is the mask as sent, so a match is
/// found on the structural key (`Could not open file [X20X]` matches the stored
/// `Could not open file %s` exactly) and the adapted target carries the mask where the
/// stored target had the placeholder, for the client to put its placeholder back.
/// Codes already in `runs` keep their ids; masks take the next free numbers.
///
/// ```
/// use cmem_core::{client_masks, prepare_query, structural_text, QueryText, Run};
///
/// let runs = client_masks(prepare_query(QueryText::Plain("Could not open file [X20X]"), None)?);
/// assert_eq!(structural_text(&runs), "Could not open file {1/}");
/// assert!(matches!(&runs[1], Run::Ph(c) if c.data == "[X20X]"));
/// // A bracket that is no mask stays text.
/// let runs = client_masks(vec![Run::text("[X] done [X1] [x2x]")]);
/// assert_eq!(runs, vec![Run::text("[X] done [X1] [x2x]")]);
/// # Ok::<(), cmem_core::Error>(())
/// ```
pub fn client_masks(runs: Vec<Run>) -> Vec<Run> {
    let mut next_id = 0u64;
    walk_runs(&runs, &mut |run| {
        if let Run::Ph(c) | Run::PcOpen(c) | Run::PcClose(c) | Run::Sub(c) = run {
            if let Ok(n) = c.id.parse::<u64>() {
                next_id = next_id.max(n);
            }
        }
    });
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        match run {
            Run::Text(text) if text.contains("[X") => split_masks(&text, &mut next_id, &mut out),
            other => out.push(other),
        }
    }
    out
}

/// Appends `text` to `out` with its masks as codes.
fn split_masks(text: &str, next_id: &mut u64, out: &mut Vec<Run>) {
    let mut rest = text;
    let mut pending = String::new();
    while let Some(at) = rest.find("[X") {
        match mask_len(&rest[at..]) {
            Some(len) => {
                pending.push_str(&rest[..at]);
                if !pending.is_empty() {
                    out.push(Run::Text(std::mem::take(&mut pending)));
                }
                *next_id += 1;
                let mask = &rest[at..at + len];
                out.push(Run::Ph(Code {
                    id: next_id.to_string(),
                    equiv: mask.to_owned(),
                    kind: CLIENT_MASK_TYPE.to_owned(),
                    data: mask.to_owned(),
                }));
                rest = &rest[at + len..];
            }
            None => {
                pending.push_str(&rest[..at + 2]);
                rest = &rest[at + 2..];
            }
        }
    }
    pending.push_str(rest);
    if !pending.is_empty() {
        out.push(Run::Text(pending));
    }
}

/// The length of the mask `[X<digits>X *]` at the start of `s`, if one is there.
pub(crate) fn mask_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let digits = b.get(2..)?.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || b.get(2 + digits) != Some(&b'X') {
        return None;
    }
    let spaces = b.get(3 + digits..)?.iter().take_while(|&&c| c == b' ').count();
    (b.get(3 + digits + spaces) == Some(&b']')).then_some(4 + digits + spaces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::key::structural_text;

    fn masked(text: &str) -> Vec<Run> {
        client_masks(vec![Run::text(text)])
    }

    #[test]
    fn weblate_masks_become_codes() {
        assert_eq!(structural_text(&masked("[X0X] of [X7X] files")), "{1/} of {2/} files");
        assert_eq!(structural_text(&masked("Hello, [X7X ]!")), "Hello, {1/}!");
        assert_eq!(structural_text(&masked("[X12X][X18X]")), "{1/}{2/}");
        assert_eq!(structural_text(&masked("a [X[X3X]")), "a [X{1/}");
        for not_a_mask in ["[X]", "[XX]", "[X1]", "[X1X", "[x1x]", "[X 1X]", "[X1Y]", "[X", "[X1X  "] {
            assert_eq!(masked(not_a_mask), vec![Run::text(not_a_mask)], "{not_a_mask}");
        }
    }

    #[test]
    fn masks_number_after_the_codes_there() {
        let runs = vec![Run::text("Open "), Run::Ph(Code::new("4").data("%s")), Run::text(" in [X9X]")];
        let out = client_masks(runs);
        assert!(matches!(&out[3], Run::Ph(c) if c.id == "5" && c.kind == CLIENT_MASK_TYPE));
        // Concatenating text and data gives the text back.
        assert_eq!(crate::model::run::surface_text(&out), "Open %s in [X9X]");
    }
}
