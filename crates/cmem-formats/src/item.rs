//! What the readers read and yield: their input and options ([`BoxedInput`],
//! [`ReadContext`], [`RunsHook`]), entries and the problems met on the way ([`Item`],
//! [`ItemReader`]), and the segments of a document ([`DocSegment`]). Below every format
//! module and the [`registry`](crate::registry) that lists them.

use std::io::BufRead;
use std::path::PathBuf;

use cmem_core::{Locale, NewEntry, Run};

use crate::error::FormatError;

/// A boxed buffered input.
pub type BoxedInput = Box<dyn BufRead + Send>;

/// Turns a source and a target string into runs: an inline-code recognizer.
pub type RunsHook<'a> = &'a dyn Fn(&str, &str) -> (Vec<Run>, Vec<Run>);

/// A reader of one input: its items.
pub type ItemReader<'h> = Box<dyn Iterator<Item = Result<Item, FormatError>> + 'h>;

/// What a reader is opened with: what [`Ingest`](crate::Ingest) knows of the input.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct ReadContext<'h> {
    /// The input's name in messages.
    pub name: String,
    /// The file's path, when it was opened from one (for formats that read a second
    /// file beside it); `None` for a stream.
    pub path: Option<PathBuf>,
    /// The source locale of entries whose file names none.
    pub source_locale: Option<Locale>,
    /// The target locale of entries whose file names none.
    pub target_locale: Option<Locale>,
    /// Turn the first problem into an error.
    pub strict: bool,
    /// Recognizes inline codes in plain strings.
    pub hook: Option<RunsHook<'h>>,
}

impl std::fmt::Debug for ReadContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadContext")
            .field("name", &self.name)
            .field("path", &self.path)
            .field("source_locale", &self.source_locale)
            .field("target_locale", &self.target_locale)
            .field("strict", &self.strict)
            .field("recognizes", &self.hook.is_some())
            .finish()
    }
}

/// A segment of a document to translate, for a producer's context (`context --file`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DocSegment {
    /// Its line in the document.
    pub line: u64,
    /// Its unit key (a `msgctxt`, an XLIFF unit id, a resource key); may be empty.
    pub unit: String,
    /// Its source.
    pub source: SegmentSource,
}

/// A document segment's source: plain text to recognize, or runs the document gave.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SegmentSource {
    /// Plain text (a PO `msgid`, a resource's value): recognize its codes.
    Text(String),
    /// Runs with the document's own inline elements (XLIFF).
    Runs(Vec<Run>),
}

/// One thing read from a file: an entry, or a recoverable problem (located, with its
/// kind and the entry it concerns). Fatal errors end a reader's iteration as `Err`.
#[derive(Debug)]
pub enum Item {
    /// An entry to store.
    Entry(NewEntry),
    /// A recoverable problem; reading goes on.
    Problem(FormatError),
}

impl Item {
    /// The entry, if this is one.
    pub fn entry(self) -> Option<NewEntry> {
        match self {
            Item::Entry(e) => Some(e),
            Item::Problem(_) => None,
        }
    }
}

/// Splits a reader's output into entries and problems, stopping at the first fatal
/// error. Convenient for small files and tests; imports stream instead.
///
/// # Errors
/// The first fatal error the iterator yields.
pub fn collect_items(
    items: impl Iterator<Item = Result<Item, FormatError>>,
) -> Result<(Vec<NewEntry>, Vec<FormatError>), FormatError> {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for item in items {
        match item? {
            Item::Entry(e) => entries.push(e),
            Item::Problem(p) => problems.push(p),
        }
    }
    Ok((entries, problems))
}

/// The locale of the first variant of `entry` whose segment is empty or only white
/// space (text alone, no inline code): such an entry is a problem, not stored, since
/// every empty query would match it exactly.
pub fn blank_variant(entry: &NewEntry) -> Option<&Locale> {
    entry
        .variants
        .iter()
        .find(|v| cmem_core::model::run::text_only(&v.runs).is_some_and(|t| t.trim().is_empty()))
        .map(|v| &v.locale)
}
