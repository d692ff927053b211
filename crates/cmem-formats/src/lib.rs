//! File formats of cmem, the content (translation) memory: TMX 1.4b import and export,
//! the lossless `.kmb` bundle and JSON Lines, and import into / export from any
//! [`ContentMemory`](cmem_core::ContentMemory).
//!
//! Every reader streams: it is an iterator of [`Item`]s (entries and located,
//! recoverable problems) that ends with an `Err` on a fatal error. Every writer streams
//! too. [`import()`] drives a reader into a store in batches, with progress and an
//! all-or-nothing guarantee; [`export()`] pages a store out to any writer.
//!
//! | module | what |
//! |---|---|
//! | [`tmx`] | [`TmxReader`]: TMX 1.1–1.4b in, with the metadata keys and `x-cmem-*` properties documented there; [`TmxWriter`]: TMX 1.4b out, level 2 or 1, lossless for level 2 |
//! | [`inline`] | runs ↔ TMX inline elements (`ph`, `bpt`/`ept`, `it`, `hi`, `ut`, `sub`) |
//! | [`decode`] | encoding detection, streaming decoding to UTF-8, line/column tracking |
//! | [`xml`] | the [`XmlReader`](xml::XmlReader) event layer shared by the XML formats, escaping |
//! | [`xliff`] | [`XliffDocument`]: XLIFF 1.0–1.2 and 2.0–2.2 segments in, targets and candidates out, every other byte copied |
//! | [`recycle`](mod@recycle) | [`recycle()`], [`recycle_document`], [`recycle_file`]: pre-translate a document from a memory |
//! | [`analyze`](mod@analyze) | [`analyze()`], [`analyze_document`], [`analyze_file`]: the leverage report (match bands, repetitions, words) |
//! | [`kmb`] | the `.kmb` bundle ([`KmbWriter`], [`KmbReader`]; format in `docs/kmb.md`) |
//! | [`jsonl`] | JSON Lines, simple and full ([`JsonlReader`], [`JsonlWriter`]) |
//! | [`ingest`] | [`Ingest`]: any supported input (format by extension, gzip, inline-code recognition of plain text), several files as one source |
//! | [`po`] | gettext PO: [`PoReader`], [`PoWriter`], [`recycle_po`] and [`analyze_po`] of PO and POT catalogs |
//! | [`properties`] | Java `.properties` bundles: [`PropertiesReader`] (a translated bundle and its source), [`recycle_properties`] and [`analyze_properties`] of a source bundle |
//! | [`registry`] | [`FORMATS`](registry::FORMATS): every format's name, extensions, media type, first bytes, abilities, reader and writer; what front ends ask |
//! | [`weblate`] | Weblate's translation-memory JSON ([`WeblateReader`], [`WeblateWriter`]) |
//! | [`xliff_in`] | [`XliffReader`]: the translated segments of an XLIFF document as entries |
//! | [`import`](mod@import) | [`import()`] and [`export()`] over any [`ContentMemory`](cmem_core::ContentMemory) |
//! | [`output`] | [`OutputFile`]: `-o FILE` replaced atomically, written through links and to devices |
//! | [`error`] | [`FormatError`], one error type for fatal errors and problems |
//!
//! No input makes a reader panic: property tests feed arbitrary bytes and mutated real
//! files to every reader (cargo-fuzz would need a nightly toolchain, which this project
//! does not use).
//!
//! ```
//! use cmem_formats::{collect_items, TmxOptions, TmxReader};
//!
//! let tmx = r#"<tmx version="1.4"><header srclang="en" datatype="plaintext"/><body>
//!   <tu tuid="1"><tuv xml:lang="en"><seg>Open <ph x="1">%s</ph></seg></tuv>
//!                <tuv xml:lang="de"><seg><ph x="1">%s</ph> öffnen</seg></tuv></tu>
//! </body></tmx>"#;
//! let (entries, problems) = collect_items(TmxReader::new(tmx.as_bytes(), TmxOptions::default())?)?;
//! assert!(problems.is_empty());
//! assert_eq!(entries[0].variants[1].locale.as_str(), "de");
//! assert_eq!(entries[0].metadata, vec![("tmx:tuid".to_owned(), "1".to_owned())]);
//! # Ok::<(), cmem_formats::FormatError>(())
//! ```

#![forbid(unsafe_code)]

pub mod analyze;
pub mod decode;
pub mod error;
pub mod files;
pub mod import;
pub mod ingest;
pub mod inline;
pub mod item;
pub mod jsonl;
#[cfg(feature = "gzip")]
pub mod kmb;
pub mod output;
pub mod po;
pub mod properties;
pub mod recycle;
pub mod registry;
mod setters;
pub mod tmx;
pub mod weblate;
pub mod xliff;
pub mod xliff_in;
pub mod xml;

pub use analyze::{
    analyze, analyze_document, analyze_file, count_run_characters, count_words, html_report, Analysis,
    AnalyzeOptions, Band, BandCount, Bands, Batch, CSV_HEADER,
};
pub use error::{Format, FormatError, FormatErrorKind};
pub use files::{recycle_file, write_atomically};
pub use import::{
    export, filter_entry, import, open_input, EntrySink, ExportOptions, ImportOptions, ImportReport,
    ItemSource, Progress,
};
pub use ingest::{BoxedInput, Ingest, IngestOptions, IngestStatus, Input};
pub use inline::Level;
pub use item::{blank_variant, collect_items, Item};
pub use jsonl::{JsonlMode, JsonlOptions, JsonlReader, JsonlWriter, RunsHook};
#[cfg(feature = "gzip")]
pub use kmb::{KmbReader, KmbWriter};
pub use output::OutputFile;
pub use po::{analyze_po, recycle_po, PoOptions, PoReader, PoTally, PoWriter};
pub use properties::{
    analyze_properties, locale_of_name, recycle_properties, PropertiesOptions, PropertiesReader,
};
pub use recycle::{
    in_parallel, recycle, recycle_document, FillAmbiguous, LookupProgress, RecycleOptions, RecycleReport,
    Skip, TermIssue,
};
pub use registry::format_of;
pub use tmx::{TmxHeader, TmxOptions, TmxReader, TmxWriteOptions, TmxWriter};
pub use weblate::{WeblateOptions, WeblateReader, WeblateWriter};
pub use xliff::{Candidate, WrittenRuns, XliffDocument, XliffSegment, XliffVersion};
pub use xliff_in::{XliffInOptions, XliffReader};
