//! The one list of file formats, [`FORMATS`]: for each, its name (the value of the
//! command line's `--format` and of the HTTP API's `format`), its file extensions, its
//! media type, what its first bytes look like, what it can do (import, export,
//! recycle, analyze, context input) and the functions that do it.
//!
//! Front ends name no format: they ask the registry. The command line's `--format`
//! values and their help, the server's import and export formats, the OpenAPI
//! document's enums, the messages that list formats or extensions, the format of a
//! file by its name ([`by_path`]), the writer an export writes with
//! ([`FormatSpec::writer`]), the reader an import reads with (through
//! [`Ingest`](crate::Ingest)), and recycle, analyze and `context --file` of a document
//! ([`document_format`]) all come from here.
//!
//! Adding a format is a module that reads (and, as the case may be, writes, recycles,
//! analyzes) it, a [`Format`] variant, and one entry in [`FORMATS`]; ARCHITECTURE.md
//! shows it for Java `.properties`.
//!
//! ```
//! use cmem_formats::registry;
//!
//! let po = registry::by_name("po").unwrap();
//! assert_eq!((po.extensions[0], po.can_import(), po.can_export(), po.can_recycle()), ("po", true, true, true));
//! assert_eq!(registry::by_path("de.po.gz".as_ref()).map(|f| f.name), Some("po"));
//! assert_eq!(registry::names(registry::FormatSpec::can_export), ["tmx", "tmx1", "kmb", "jsonl", "po", "weblate"]);
//! ```

use std::io::Write;
use std::path::Path;

use cmem_core::{ContentMemory, Locale};

use crate::analyze::{Analysis, AnalyzeOptions, Counted};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::import::{EntrySink, ExportOptions};
pub use crate::item::{BoxedInput, DocSegment, ItemReader, ReadContext, SegmentSource};
use crate::properties;
use crate::recycle::{RecycleOptions, RecycleReport};

mod adapters;

use adapters::{
    open_jsonl, open_kmb, open_po, open_tmx, open_weblate, open_xliff, po_analyze, po_recycle, po_segments,
    write_jsonl, write_kmb, write_po, write_tmx1, write_tmx2, write_weblate, xliff_analyze, xliff_recycle,
    xliff_segments,
};

/// Every format, in the order lists name them. Where two formats share an extension
/// (`.json`: JSON Lines and Weblate's JSON; `.tmx`: both TMX levels) the first is the
/// one a file name gives; the first bytes may then correct it ([`Sniff`]).
pub static FORMATS: &[FormatSpec] = &[
    FormatSpec::new(Format::Tmx, "tmx", "TMX", "a", "TMX 1.4b (level 2: inline codes kept)")
        .files(&["tmx"], "application/x-tmx+xml")
        .sniff(Sniff::Starts(&[Looks::Xml]))
        .reads(Import::File, open_tmx)
        .writes(write_tmx2),
    FormatSpec::new(Format::Tmx, "tmx1", "TMX level 1", "a", "TMX 1.4b level 1: text only (lossy)")
        .files(&["tmx"], "application/x-tmx+xml")
        .writes(write_tmx1),
    FormatSpec::new(Format::Kmb, "kmb", ".kmb", "a", "The lossless .kmb bundle")
        .files(&["kmb"], "application/octet-stream")
        .reads(Import::File, open_kmb)
        .writes(write_kmb),
    FormatSpec::new(Format::Jsonl, "jsonl", "JSON Lines", "a", "JSON Lines (export: the full, lossless form)")
        .files(&["jsonl", "ndjson", "json"], "application/jsonl")
        .sniff(Sniff::Starts(&[Looks::JsonObject]))
        .reads(Import::File, open_jsonl)
        .writes(write_jsonl),
    FormatSpec::new(
        Format::Po,
        "po",
        "gettext PO",
        "a",
        "gettext PO catalogs (export: one locale pair, --from/--to)",
    )
    .files(&["po", "pot"], "text/x-gettext-translation")
    .sniff(Sniff::Starts(&[Looks::Po]))
    .reads(Import::File, open_po)
    .writes(write_po)
    .holds_one_pair()
    .documents(po_recycle, po_analyze, po_segments),
    FormatSpec::new(
        Format::Weblate,
        "weblate",
        "Weblate's memory JSON",
        "a",
        "Weblate's translation-memory JSON (import: a `.json` file holding one JSON array is read as this without --format)",
    )
    .files(&["json"], "application/json")
    .sniff(Sniff::Starts(&[Looks::JsonArray]))
    .reads(Import::File, open_weblate)
    .writes(write_weblate),
    FormatSpec::new(
        Format::Xliff,
        "xliff",
        "XLIFF",
        "an",
        "Translated XLIFF 1.2 / 2.x documents (import: the translated segments)",
    )
    .files(&["xlf", "xliff", "sdlxliff", "mqxliff"], "application/xliff+xml")
    .sniff(Sniff::Starts(&[Looks::Xml]))
    .reads(Import::File, open_xliff)
    .documents(xliff_recycle, xliff_analyze, xliff_segments),
    FormatSpec::new(
        Format::Properties,
        "properties",
        "Java properties",
        "a",
        "Java .properties bundles (import: messages_de.properties, its source messages.properties beside it)",
    )
    .files(&["properties"], "text/x-java-properties")
    .sniff(Sniff::Not(&[Looks::Xml, Looks::JsonArray, Looks::JsonObject]))
    .reads(Import::Bundle, properties::open_reader)
    .documents(properties::recycle_bytes, properties::analyze_bytes, properties::segments)
    .names_locales(properties::locale_of_name),
];

/// What the first bytes of a file look like (after a byte-order mark and white space).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Looks {
    /// `<`: XML.
    Xml,
    /// `[`: one JSON array.
    JsonArray,
    /// `{`: JSON objects.
    JsonObject,
    /// `#` or `msgid`/`msgctxt`: a gettext catalog.
    Po,
}

impl Looks {
    /// What `bytes`, the start of a file, look like, when they say anything.
    pub fn of(bytes: &[u8]) -> Option<Looks> {
        let buf = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let start = buf.iter().position(|b| !b.is_ascii_whitespace())?;
        let rest = &buf[start..];
        match rest[0] {
            b'[' => Some(Looks::JsonArray),
            b'{' => Some(Looks::JsonObject),
            b'<' => Some(Looks::Xml),
            b'#' => Some(Looks::Po),
            _ => (rest.starts_with(b"msgid ") || rest.starts_with(b"msgctxt ")).then_some(Looks::Po),
        }
    }

    /// `looks like …` in a message: the formats that start so, and how.
    fn described(self) -> String {
        let titles = join(formats_starting(self).map(|f| f.title), " or ");
        match self {
            Looks::Xml => format!("XML ({titles})"),
            Looks::JsonArray => format!("{titles} (one JSON array)"),
            Looks::JsonObject => format!("{titles} (one JSON object a line)"),
            Looks::Po => format!("{titles} (it starts with a # comment or msgid)"),
        }
    }
}

/// How the first bytes of a file are checked against the format it is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    /// Not checked (a binary format).
    Unchecked,
    /// Its files start like one of these; a file starting like another is refused, and a
    /// file starting like these is said to be of this format.
    Starts(&'static [Looks]),
    /// Its files may start any way but these (a text format without a signature).
    Not(&'static [Looks]),
}

impl Sniff {
    fn accepts(self, looks: Looks) -> bool {
        match self {
            Sniff::Unchecked => true,
            Sniff::Starts(l) => l.contains(&looks),
            Sniff::Not(l) => !l.contains(&looks),
        }
    }
}

/// How a format imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Import {
    /// It does not.
    No,
    /// A file (or a stream: standard input, an upload) holds both languages.
    File,
    /// A file holds one language, the target; its source is another file beside it,
    /// found by its name (a translated `messages_de.properties` and its source
    /// `messages.properties`). It is read from a path, never from a stream.
    Bundle,
}

/// An export's writer, whatever its format: entries go into [`sink`](Self::sink), and
/// [`finish`](Self::finish) ends the file (the output is then the caller's to close).
pub trait FormatWriter {
    /// Where entries are written.
    fn sink(&mut self) -> &mut dyn EntrySink;
    /// Ends the file and flushes it.
    ///
    /// # Errors
    /// The writer's error.
    fn finish(self: Box<Self>) -> Result<(), FormatError>;
}

type OpenReader = for<'h> fn(BoxedInput, ReadContext<'h>) -> Result<ItemReader<'h>, FormatError>;
type OpenWriter =
    for<'w> fn(&'w mut dyn Write, &ExportOptions) -> Result<Box<dyn FormatWriter + 'w>, FormatError>;
type RecycleFn =
    fn(Vec<u8>, &str, &dyn ContentMemory, &RecycleOptions) -> Result<(Vec<u8>, RecycleReport), FormatError>;
type AnalyzeFn =
    fn(Vec<u8>, &str, &dyn ContentMemory, &AnalyzeOptions) -> Result<(Analysis, Vec<Counted>), FormatError>;
type SegmentsFn = fn(Vec<u8>, &str) -> Result<Vec<DocSegment>, FormatError>;
type NamedLocale = fn(&Path) -> Option<Locale>;

/// One format: what it is called, what its files look like, what it can do.
#[derive(Debug)]
pub struct FormatSpec {
    /// Its name, the value of `--format` and of the HTTP API's `format`: `tmx`, `po`.
    pub name: &'static str,
    /// The format its reader and its errors belong to (`tmx1` is written by TMX's writer).
    pub format: Format,
    /// Its name in prose: `TMX`, `gettext PO`.
    pub title: &'static str,
    /// The article before [`title`](Self::title): `a`, `an`.
    pub article: &'static str,
    /// One line of help (the command line's list of formats).
    pub help: &'static str,
    /// Its file extensions, without the dot, the usual one first; a file may add `.gz`.
    pub extensions: &'static [&'static str],
    /// The media type of its files.
    pub media_type: &'static str,
    /// How its first bytes are checked.
    pub sniff: Sniff,
    /// Whether and how it imports.
    pub import: Import,
    /// An export writes one locale pair (both locales must be known).
    pub one_pair: bool,
    read: Option<OpenReader>,
    write: Option<OpenWriter>,
    recycle: Option<RecycleFn>,
    analyze: Option<AnalyzeFn>,
    segments: Option<SegmentsFn>,
    named_locale: Option<NamedLocale>,
}

impl FormatSpec {
    const fn new(
        format: Format,
        name: &'static str,
        title: &'static str,
        article: &'static str,
        help: &'static str,
    ) -> FormatSpec {
        FormatSpec {
            name,
            format,
            title,
            article,
            help,
            extensions: &[],
            media_type: "application/octet-stream",
            sniff: Sniff::Unchecked,
            import: Import::No,
            one_pair: false,
            read: None,
            write: None,
            recycle: None,
            analyze: None,
            segments: None,
            named_locale: None,
        }
    }

    const fn files(self, extensions: &'static [&'static str], media_type: &'static str) -> Self {
        FormatSpec { extensions, media_type, ..self }
    }

    const fn sniff(self, sniff: Sniff) -> Self {
        FormatSpec { sniff, ..self }
    }

    const fn reads(self, import: Import, open: OpenReader) -> Self {
        FormatSpec { import, read: Some(open), ..self }
    }

    const fn writes(self, open: OpenWriter) -> Self {
        FormatSpec { write: Some(open), ..self }
    }

    const fn holds_one_pair(self) -> Self {
        FormatSpec { one_pair: true, ..self }
    }

    const fn documents(self, recycle: RecycleFn, analyze: AnalyzeFn, segments: SegmentsFn) -> Self {
        FormatSpec { recycle: Some(recycle), analyze: Some(analyze), segments: Some(segments), ..self }
    }

    const fn names_locales(self, named: NamedLocale) -> Self {
        FormatSpec { named_locale: Some(named), ..self }
    }

    /// It imports (from a file or a stream).
    pub fn can_import(&self) -> bool {
        self.import != Import::No
    }

    /// It imports from a stream (standard input, an upload): one file holds both languages.
    pub fn can_import_stream(&self) -> bool {
        self.import == Import::File
    }

    /// Its files can be read for an import: it imports, or its [`format`](Self::format)
    /// does (`tmx1` files are read as TMX).
    pub fn can_read(&self) -> bool {
        by_format(self.format).is_some_and(FormatSpec::can_import)
    }

    /// It exports.
    pub fn can_export(&self) -> bool {
        self.write.is_some()
    }

    /// It recycles (pre-translates) documents, and analyzes them.
    pub fn can_recycle(&self) -> bool {
        self.recycle.is_some()
    }

    /// It gives the segments of a document for a producer's context (`context --file`).
    pub fn can_give_segments(&self) -> bool {
        self.segments.is_some()
    }

    /// Its usual extension, with the dot: `.po`.
    pub fn extension(&self) -> String {
        self.extensions.first().map_or_else(String::new, |e| format!(".{e}"))
    }

    /// The locale a file's name gives (Java's `messages_de.properties`), for formats
    /// whose files name their language so.
    pub fn locale_of_file(&self, path: &Path) -> Option<Locale> {
        self.named_locale.and_then(|f| f(path))
    }

    /// A writer of this format into `out`. `options` give the locales: the TMX header's
    /// source, Weblate's and JSON Lines' source and target, a [`one_pair`](Self::one_pair)
    /// format's pair.
    ///
    /// # Errors
    /// The format is not written ([`FormatErrorKind::Unsupported`]), a one-pair format
    /// without both locales ([`FormatErrorKind::InvalidLocale`]), the writer's error.
    pub fn writer<'w>(
        &self,
        out: &'w mut dyn Write,
        options: &ExportOptions,
    ) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
        let open = self.write.ok_or_else(|| self.unsupported("written"))?;
        if self.one_pair && (options.source_locale.is_none() || options.target_locale.is_none()) {
            return Err(FormatError::new(
                self.format,
                FormatErrorKind::InvalidLocale,
                format!(
                    "{} {} file holds one locale pair: give the source and target locales",
                    self.article, self.title
                ),
            ));
        }
        open(out, options)
    }

    /// Opens a reader of `input`.
    ///
    /// # Errors
    /// The format is not read ([`FormatErrorKind::Unsupported`]), or the reader's error.
    pub fn open_reader<'h>(
        &self,
        input: BoxedInput,
        context: ReadContext<'h>,
    ) -> Result<ItemReader<'h>, FormatError> {
        let name = context.name.clone();
        let open = by_format(self.format)
            .and_then(|f| f.read)
            .ok_or_else(|| self.unsupported("imported").in_file(name))?;
        open(input, context)
    }

    /// Pre-translates the document `raw` (named `name`): the new document's bytes and
    /// what was done.
    ///
    /// # Errors
    /// The format is not recycled ([`FormatErrorKind::Unsupported`]), or the recycle's error.
    pub fn recycle(
        &self,
        raw: Vec<u8>,
        name: &str,
        store: &dyn ContentMemory,
        options: &RecycleOptions,
    ) -> Result<(Vec<u8>, RecycleReport), FormatError> {
        let recycle = self.recycle.ok_or_else(|| self.not_a_document(name))?;
        recycle(raw, name, store, options)
    }

    /// The leverage report of the document `raw`, and its counted segments.
    pub(crate) fn analyze(
        &self,
        raw: Vec<u8>,
        name: &str,
        store: &dyn ContentMemory,
        options: &AnalyzeOptions,
    ) -> Result<(Analysis, Vec<Counted>), FormatError> {
        let analyze = self.analyze.ok_or_else(|| self.not_a_document(name))?;
        analyze(raw, name, store, options)
    }

    /// The segments of the document `raw` that still need a translation.
    ///
    /// # Errors
    /// The format gives none ([`FormatErrorKind::Unsupported`]), or the document does not read.
    pub fn segments(&self, raw: Vec<u8>, name: &str) -> Result<Vec<DocSegment>, FormatError> {
        let segments = self.segments.ok_or_else(|| self.not_a_document(name))?;
        segments(raw, name)
    }

    fn unsupported(&self, what: &str) -> FormatError {
        FormatError::new(
            self.format,
            FormatErrorKind::Unsupported,
            format!("{} files cannot be {what}", self.name),
        )
    }

    fn not_a_document(&self, name: &str) -> FormatError {
        FormatError::new(
            self.format,
            FormatErrorKind::Unsupported,
            format!(
                "{name}: recycle, analyze and context read {}, not {}",
                join(FORMATS.iter().filter(|f| f.can_recycle()).map(|f| f.title), ", "),
                self.title
            ),
        )
    }
}

/// The format named `name` (`tmx`, `po`), as `--format` and the HTTP API write it.
pub fn by_name(name: &str) -> Option<&'static FormatSpec> {
    FORMATS.iter().find(|f| f.name == name)
}

/// The first format of `format` ([`Format::Tmx`] → `tmx`); `None` for [`Format::Store`].
pub fn by_format(format: Format) -> Option<&'static FormatSpec> {
    FORMATS.iter().find(|f| f.format == format)
}

/// The format of a file by its name: the first whose extensions hold its extension
/// (after a `.gz`, which is taken off).
pub fn by_path(path: &Path) -> Option<&'static FormatSpec> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let ext = name.rsplit_once('.')?.1;
    FORMATS.iter().find(|f| f.extensions.contains(&ext))
}

/// The format of a file by its name (`.tmx`, `.kmb`, `.jsonl` / `.ndjson` / `.json`,
/// `.po`, `.xlf`, …, each optionally followed by `.gz`): the [`Format`] of [`by_path`].
pub fn format_of(path: &Path) -> Option<Format> {
    by_path(path).map(|f| f.format)
}

/// The format a document is recycled, analyzed or read for context in: by its
/// extension among the formats that recycle, else XLIFF (also for standard input).
pub fn document_format(path: &Path) -> &'static FormatSpec {
    let by_extension = Some(path).filter(|p| *p != Path::new("-")).and_then(by_path);
    match by_extension.filter(|f| f.can_recycle()) {
        Some(f) => f,
        None => by_format(Format::Xliff).unwrap_or(&FORMATS[0]),
    }
}

/// The names of the formats that can do `what`, in registry order.
pub fn names(what: fn(&FormatSpec) -> bool) -> Vec<&'static str> {
    FORMATS.iter().filter(|f| what(f)).map(|f| f.name).collect()
}

/// The extensions of the formats that can do `what`, each once, with their dots:
/// `.tmx, .kmb, .jsonl`.
pub fn extensions(what: fn(&FormatSpec) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for ext in FORMATS.iter().filter(|f| what(f)).flat_map(|f| f.extensions) {
        let dotted = format!(".{ext}");
        if !out.contains(&dotted) {
            out.push(dotted);
        }
    }
    out
}

/// `a, b or c`.
pub fn either<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => {
            format!("{} or {}", join(init.iter().map(AsRef::as_ref), ", "), last.as_ref())
        }
    }
}

fn join<'a>(items: impl Iterator<Item = &'a str>, by: &str) -> String {
    items.collect::<Vec<_>>().join(by)
}

/// The formats an import may be told a file is in by how it starts.
fn formats_starting(looks: Looks) -> impl Iterator<Item = &'static FormatSpec> {
    FORMATS
        .iter()
        .filter(move |f| f.can_import() && matches!(f.sniff, Sniff::Starts(l) if l.contains(&looks)))
}

/// The format to read an input in whose first bytes are `start`: `format`, or, when
/// `format` was guessed from the extension, the format sharing that extension that
/// starts so (a `.json` holding one array is Weblate's). A content that cannot be in
/// `format` is one clear error naming what it looks like and what to do.
///
/// # Errors
/// [`FormatErrorKind::Unsupported`], naming the file.
pub(crate) fn settle(start: &[u8], format: Format, guessed: bool, name: &str) -> Result<Format, FormatError> {
    let (Some(looks), Some(spec)) = (Looks::of(start), by_format(format)) else { return Ok(format) };
    if spec.sniff.accepts(looks) {
        return Ok(format);
    }
    let shares = |f: &FormatSpec| f.extensions.iter().any(|e| spec.extensions.contains(e));
    let mut fitting: Vec<&FormatSpec> = formats_starting(looks).collect();
    if guessed {
        if let Some(other) = fitting.iter().find(|f| shares(f)) {
            return Ok(other.format);
        }
    }
    let instead = match fitting.as_slice() {
        _ if fitting.iter().any(|f| shares(f)) => ", or name no format".to_owned(),
        [one] => format!(", or give it its {} extension", one.extension()),
        _ => ", or give it its extension".to_owned(),
    };
    fitting.dedup_by_key(|f| f.name);
    let names: Vec<&str> = fitting.iter().map(|f| f.name).collect();
    Err(FormatError::new(
        format,
        FormatErrorKind::Unsupported,
        format!(
            "looks like {}, not {}; import it as {}{instead}",
            looks.described(),
            spec.title,
            names.join(" or ")
        ),
    )
    .in_file(name))
}

#[cfg(test)]
mod tests {
    use cmem_core::Run;

    use super::*;

    #[test]
    fn names_are_unique_and_every_format_is_listed_once() {
        let mut names: Vec<&str> = FORMATS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FORMATS.len());
        // Each format's first entry is its name, which prefixes its errors; its files
        // are read (`tmx1`'s as TMX).
        for spec in FORMATS {
            let first = by_format(spec.format).unwrap();
            assert_eq!(spec.format.name(), first.name, "{}", spec.name);
            assert!(spec.can_read(), "{}", spec.name);
        }
        assert_eq!(Format::Store.name(), "store");
    }

    #[test]
    fn a_file_name_gives_the_first_format_listing_its_extension() {
        let of = |p: &str| by_path(Path::new(p)).map(|f| f.name);
        assert_eq!(of("a.TMX"), Some("tmx"));
        assert_eq!(of("a.json.gz"), Some("jsonl"));
        assert_eq!(of("messages.pot"), Some("po"));
        assert_eq!(of("b.mqxliff"), Some("xliff"));
        assert_eq!(of("notes.txt"), None);
        assert_eq!(document_format(Path::new("-")).name, "xliff");
        assert_eq!(document_format(Path::new("a.tmx")).name, "xliff");
        assert_eq!(document_format(Path::new("a.pot")).name, "po");
    }

    #[test]
    fn first_bytes_correct_a_guess_or_say_what_the_file_is() {
        assert_eq!(settle(b" [{}]", Format::Jsonl, true, "a.json").ok(), Some(Format::Weblate));
        let err = settle(b"[{}]", Format::Jsonl, false, "a.json").unwrap_err().to_string();
        assert_eq!(
            err,
            "jsonl: a.json: looks like Weblate's memory JSON (one JSON array), not JSON Lines; \
             import it as weblate, or name no format"
        );
        let err = settle(b"\xEF\xBB\xBF# x\nmsgid \"\"", Format::Tmx, true, "m.tmx").unwrap_err().to_string();
        assert!(err.ends_with("looks like gettext PO (it starts with a # comment or msgid), not TMX; import it as po, or give it its .po extension"), "{err}");
        // kmb is not checked.
        assert_eq!(settle(b"{", Format::Kmb, true, "a.kmb").ok(), Some(Format::Kmb));
    }

    #[test]
    fn writers_write_and_a_one_pair_format_wants_its_pair() {
        let mut out = Vec::new();
        let err = by_name("po").unwrap().writer(&mut out, &ExportOptions::default()).err().unwrap();
        assert_eq!(err.kind(), FormatErrorKind::InvalidLocale);
        assert!(err.to_string().contains("a gettext PO file holds one locale pair"), "{err}");
        let err = by_name("xliff").unwrap().writer(&mut out, &ExportOptions::default()).err().unwrap();
        assert_eq!(err.kind(), FormatErrorKind::Unsupported);
        for name in names(FormatSpec::can_export) {
            let mut out = Vec::new();
            let options = ExportOptions {
                source_locale: Locale::parse("en").ok(),
                target_locale: Locale::parse("de").ok(),
                ..ExportOptions::default()
            };
            let mut w = by_name(name).unwrap().writer(&mut out, &options).unwrap();
            let entry = cmem_core::NewEntry::pair(
                cmem_core::Variant::new(Locale::parse("en").unwrap(), vec![Run::text("Open")]),
                cmem_core::Variant::new(Locale::parse("de").unwrap(), vec![Run::text("Öffnen")]),
            );
            w.sink().write_entry(&entry).unwrap();
            w.finish().unwrap();
            assert!(!out.is_empty(), "{name}");
        }
    }

    #[test]
    fn either_lists_with_or() {
        assert_eq!(either(&["tmx"]), "tmx");
        assert_eq!(either(&["tmx", "kmb", "jsonl"]), "tmx, kmb or jsonl");
        assert_eq!(either::<&str>(&[]), "");
    }
}
