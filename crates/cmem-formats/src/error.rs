//! The one error type of `cmem-formats`: [`FormatError`], used both for fatal errors
//! and for the recoverable problems an import reports.

use std::fmt;

/// Which file format an error or problem concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// TMX 1.1–1.4b.
    Tmx,
    /// XLIFF 1.0–1.2 and 2.0–2.2.
    Xliff,
    /// The `.kmb` bundle.
    Kmb,
    /// JSON Lines.
    Jsonl,
    /// GNU gettext PO (and POT templates, for recycle and analyze).
    Po,
    /// Weblate's translation-memory JSON.
    Weblate,
    /// Java `.properties` resource bundles.
    Properties,
    /// Not a file format: the store an import writes to or an export reads from.
    Store,
}

impl Format {
    /// The lowercase name used as the message prefix (`tmx`, `xliff`, `kmb`, `jsonl`,
    /// `po`, `weblate`, `properties`, `store`): the format's name in the
    /// [`registry`](crate::registry) (a test checks they agree).
    pub fn name(self) -> &'static str {
        match self {
            Format::Tmx => "tmx",
            Format::Xliff => "xliff",
            Format::Kmb => "kmb",
            Format::Jsonl => "jsonl",
            Format::Po => "po",
            Format::Weblate => "weblate",
            Format::Properties => "properties",
            Format::Store => "store",
        }
    }
}

/// What went wrong, for callers (and tests) that branch on it.
///
/// Kinds marked *problem* are recoverable: a reader reports them as
/// [`Item::Problem`](crate::Item::Problem) and goes on, unless `strict` is set. The
/// others end the read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatErrorKind {
    /// Reading or writing failed at the operating-system level.
    Io,
    /// The bytes are not valid in the document's encoding, or the declared encoding is
    /// not supported.
    Encoding,
    /// The document is not well-formed XML (including an empty file and an undefined
    /// entity reference).
    Xml,
    /// Well-formed XML that is not a TMX document (wrong root element, no body).
    NotTmx,
    /// Well-formed XML that is not a usable XLIFF document: another root element, a
    /// segment without a source, a code that refers to nothing.
    NotXliff,
    /// A resource cap was exceeded (element nesting depth, size of one unit or record).
    Limit,
    /// *Problem*: a `tu` with fewer than two usable `tuv`s; no entry is made.
    TooFewVariants,
    /// *Problem*: a `tuv` without a `seg`; the `tuv` is skipped.
    MissingSegment,
    /// *Problem*: a `bpt` without its `ept`, an `ept` without its `bpt`, or a reused `i`;
    /// the codes are kept as unpaired opens/closes.
    UnbalancedCode,
    /// *Problem*: two `tuv`s (or JSON variants) with the same locale; the later one is
    /// skipped.
    DuplicateLocale,
    /// *Problem*: a locale that is not valid BCP 47; the variant is skipped.
    InvalidLocale,
    /// *Problem*: a field cmem wrote (`x-cmem-…` property) or an element that cannot be
    /// read as documented; the value is kept as plain metadata or text.
    InvalidField,
    /// *Problem*: a JSON Lines line, or a `.properties` line, that is not a valid entry;
    /// the line is skipped.
    InvalidLine,
    /// A `.kmb` file that does not start with the bundle's magic bytes.
    BadMagic,
    /// A `.kmb` format version this program does not know.
    UnsupportedVersion,
    /// A `.kmb` file that ends before its trailer.
    Truncated,
    /// A `.kmb` file whose bytes do not match its checksum, count or record structure.
    Corrupt,
    /// *Problem*: an entry read that a store cannot take (fewer than two variants,
    /// duplicate locales); it is skipped.
    InvalidEntry,
    /// The store refused or failed a write or read.
    Store,
    /// An input whose format is unknown, or a format that cannot be read for the job.
    Unsupported,
    /// The file names no source language and the options give none (a *problem* for a
    /// JSON Lines line, which is skipped; elsewhere it ends the read). The message ends
    /// "give one in the options": a front end may name its own option instead.
    NoSourceLanguage,
    /// The file names no target language and the options give none; as
    /// [`NoSourceLanguage`](Self::NoSourceLanguage).
    NoTargetLanguage,
    /// Files name other languages than the options give (a Russian catalog imported
    /// as German); nothing is imported. The message ends naming the two ways out, in the
    /// options' words ("import without the languages", "relabel"): a front end may name
    /// its own options instead.
    LanguageMismatch,
}

/// An error or a located problem in a file.
///
/// The message names what failed, where and the offending value:
/// `tmx: memory.tmx: line 41, column 9: tu 7 (tuid "a1"): <bpt i="3"> has no matching <ept>`.
/// Lines and columns count from 1; a column counts bytes of the UTF-8 text of its line.
#[derive(Debug)]
pub struct FormatError {
    // Boxed: errors travel through every `Result` of the readers, which stay small.
    inner: Box<Inner>,
}

#[derive(Debug)]
struct Inner {
    kind: FormatErrorKind,
    format: Format,
    file: String,
    line: Option<u64>,
    column: Option<u64>,
    entry: Option<u64>,
    entry_id: Option<String>,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl FormatError {
    /// A new error of `kind` about `format`, with a message and no position.
    pub fn new(format: Format, kind: FormatErrorKind, message: impl Into<String>) -> Self {
        FormatError {
            inner: Box::new(Inner {
                kind,
                format,
                file: String::new(),
                line: None,
                column: None,
                entry: None,
                entry_id: None,
                message: message.into(),
                source: None,
            }),
        }
    }

    /// Sets the file name shown in the message.
    #[must_use]
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        self.inner.file = file.into();
        self
    }

    /// Sets the line and column (both from 1).
    #[must_use]
    pub fn at(mut self, line: u64, column: u64) -> Self {
        self.inner.line = Some(line);
        self.inner.column = Some(column);
        self
    }

    /// Sets the line only (JSON Lines).
    #[must_use]
    pub fn at_line(mut self, line: u64) -> Self {
        self.inner.line = Some(line);
        self
    }

    /// Sets the entry (1-based index of the `tu`, record or line) and its id in the file
    /// (`tuid`), if any.
    #[must_use]
    pub fn for_entry(mut self, index: u64, id: Option<&str>) -> Self {
        self.inner.entry = Some(index);
        self.inner.entry_id = id.map(str::to_owned);
        self
    }

    /// Attaches an underlying cause.
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.inner.source = Some(Box::new(source));
        self
    }

    /// The error as another kind: a more precise one than its maker's default.
    pub(crate) fn with_kind(mut self, kind: FormatErrorKind) -> Self {
        self.inner.kind = kind;
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> FormatErrorKind {
        self.inner.kind
    }

    /// The format concerned.
    pub fn format(&self) -> Format {
        self.inner.format
    }

    /// The file name, empty when unknown.
    pub fn file(&self) -> &str {
        &self.inner.file
    }

    /// The line (from 1), when known.
    pub fn line(&self) -> Option<u64> {
        self.inner.line
    }

    /// The column (from 1, in bytes), when known.
    pub fn column(&self) -> Option<u64> {
        self.inner.column
    }

    /// The 1-based index of the entry (`tu`, record, line) concerned, when known.
    pub fn entry(&self) -> Option<u64> {
        self.inner.entry
    }

    /// The entry's id in the file (a TMX `tuid`, an XLIFF unit's `id`), when it has one.
    pub fn entry_id(&self) -> Option<&str> {
        self.inner.entry_id.as_deref()
    }

    /// The message without the location prefix.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// Wraps a store error: its message and its causes (a driver's error) make this
    /// error's message, which names no file.
    pub fn store(err: cmem_core::Error) -> Self {
        FormatError::new(Format::Store, FormatErrorKind::Store, err.message_and_causes())
    }

    /// Wraps an I/O error while reading or writing `format`.
    pub fn io(format: Format, what: &str, err: std::io::Error) -> Self {
        FormatError::new(format, FormatErrorKind::Io, format!("{what}: {err}"))
    }
}

impl From<cmem_core::Error> for FormatError {
    /// A store error, as [`FormatError::store`]: so `?` works on store calls in code that
    /// returns format errors.
    fn from(err: cmem_core::Error) -> Self {
        FormatError::store(err)
    }
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.format.name())?;
        if !self.file.is_empty() {
            write!(f, "{}: ", self.file)?;
        }
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: ")?,
            (Some(l), None) => write!(f, "line {l}: ")?,
            _ => {}
        }
        if let Some(entry) = self.entry {
            // Each format's own words: a TMX `tu` and its `tuid`, an XLIFF segment and the
            // `id` of its unit.
            let (noun, id_name) = match self.format {
                Format::Tmx => ("tu", "tuid"),
                Format::Jsonl => ("line", "id"),
                Format::Xliff => ("segment", "unit"),
                _ => ("entry", "id"),
            };
            // A JSON Lines line number already says which entry.
            if !(self.format == Format::Jsonl && self.line == Some(entry)) {
                write!(f, "{noun} {entry}")?;
                if let Some(id) = &self.entry_id {
                    write!(f, " ({id_name} {id:?})")?;
                }
                f.write_str(": ")?;
            }
        }
        f.write_str(&self.message)
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl std::error::Error for FormatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_position_and_tu() {
        let e = FormatError::new(
            Format::Tmx,
            FormatErrorKind::UnbalancedCode,
            "<bpt i=\"3\"> has no matching <ept>",
        )
        .in_file("memory.tmx")
        .at(41, 9)
        .for_entry(7, Some("a1"));
        assert_eq!(
            e.to_string(),
            "tmx: memory.tmx: line 41, column 9: tu 7 (tuid \"a1\"): <bpt i=\"3\"> has no matching <ept>"
        );
        let e = FormatError::new(Format::Jsonl, FormatErrorKind::InvalidLine, "bad")
            .in_file("a.jsonl")
            .at_line(3);
        assert_eq!(e.to_string(), "jsonl: a.jsonl: line 3: bad");
        let e = FormatError::new(Format::Kmb, FormatErrorKind::Corrupt, "checksum").for_entry(2, None);
        assert_eq!(e.to_string(), "kmb: entry 2: checksum");
        // XLIFF in its own terms, not TMX's.
        let e = FormatError::new(Format::Xliff, FormatErrorKind::InvalidLocale, "no target language")
            .in_file("a.xlf")
            .at(9, 1)
            .for_entry(1, Some("u1"));
        assert_eq!(
            e.to_string(),
            "xliff: a.xlf: line 9, column 1: segment 1 (unit \"u1\"): no target language"
        );
    }
}
