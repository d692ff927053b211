//! Import into and export from any [`ContentMemory`].
//!
//! [`import()`] drives a reader ([`TmxReader`], [`KmbReader`], [`JsonlReader`]) into a
//! store in batches ([`ImportOptions::batch_size`]), reporting [`Progress`] after every
//! batch so a command-line tool can draw a bar.
//!
//! # All or nothing
//!
//! An import is **one transaction**: it opens one [`WriteSession`]
//! ([`ContentMemory::begin`]), writes every batch through it and commits once at the
//! end. Until then no reader sees any of it; when it fails (a fatal read error, a store
//! error, a full disk, or the first problem with `strict`) the session is dropped
//! uncommitted and the store holds what it held before, origins included; when the
//! process dies, the store's own recovery forgets the uncommitted writes. Another
//! writer waits for the import to end (the store's bounded wait), so an import never
//! deduplicates onto, or undoes, another writer's entries.
//!
//! [`export()`] pages through [`ContentMemory::entries`] in id order into any
//! [`EntrySink`] ([`TmxWriter`], [`KmbWriter`], [`JsonlWriter`]), optionally keeping only
//! entries with a source and/or target locale (prefix rule, docs/matching.md §3).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

use cmem_core::imp::WriteSession;
use cmem_core::{ContentMemory, Entry, EntryId, Locale, NewEntry, WriteOutcome};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::{blank_variant, Item};
use crate::jsonl::{JsonlReader, JsonlWriter};
#[cfg(feature = "gzip")]
use crate::kmb::{KmbReader, KmbWriter};
use crate::tmx::TmxReader;
use crate::tmx::TmxWriter;

/// Opens a file for reading, decompressing it when it is gzip (magic bytes `1f 8b`,
/// as in `memory.jsonl.gz`); any reader of this crate can then read it.
///
/// # Errors
/// The file cannot be opened or read.
pub fn open_input(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    gunzipped(BufReader::with_capacity(64 * 1024, File::open(path)?))
}

/// `input`, decompressed when it starts with gzip's magic bytes (`1f 8b`).
///
/// # Errors
/// The input cannot be read, or it is gzip and this build lacks the `gzip` feature.
pub(crate) fn gunzipped(mut input: impl BufRead + Send + 'static) -> io::Result<Box<dyn BufRead + Send>> {
    if input.fill_buf()?.starts_with(&[0x1f, 0x8b]) {
        gunzip(input)
    } else {
        Ok(Box::new(input))
    }
}

#[cfg(feature = "gzip")]
fn gunzip(input: impl BufRead + Send + 'static) -> io::Result<Box<dyn BufRead + Send>> {
    let gz = flate2::bufread::MultiGzDecoder::new(input);
    Ok(Box::new(BufReader::with_capacity(64 * 1024, gz)))
}

#[cfg(not(feature = "gzip"))]
fn gunzip(_: impl BufRead + Send + 'static) -> io::Result<Box<dyn BufRead + Send>> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "the input is gzip-compressed; reading it needs the `gzip` feature of cmem (or cmem-formats)",
    ))
}

/// A reader that an import can drive: items, and how many input bytes it has read.
pub trait ItemSource: Iterator<Item = Result<Item, FormatError>> {
    /// Raw input bytes read so far.
    fn bytes_read(&self) -> u64;
}

impl<R: Read> ItemSource for TmxReader<R> {
    fn bytes_read(&self) -> u64 {
        TmxReader::bytes_read(self)
    }
}

#[cfg(feature = "gzip")]
impl<R: Read> ItemSource for KmbReader<R> {
    fn bytes_read(&self) -> u64 {
        KmbReader::bytes_read(self)
    }
}

impl<R: BufRead> ItemSource for JsonlReader<'_, R> {
    fn bytes_read(&self) -> u64 {
        JsonlReader::bytes_read(self)
    }
}

/// Options of [`import()`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Entries per `write` call (default 5,000).
    pub batch_size: usize,
    /// Fail (and roll back) at the first problem.
    pub strict: bool,
    /// Problems kept in the report (default 10,000); all are counted.
    pub max_problems_kept: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { batch_size: 5_000, strict: false, max_problems_kept: 10_000 }
    }
}

/// Counts so far, passed to the progress callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// Entries read from the input.
    pub read: u64,
    /// Entries the store inserted.
    pub inserted: u64,
    /// Entries that re-approved a stored equal entry.
    pub deduplicated: u64,
    /// Problems met.
    pub problems: u64,
    /// Input bytes read.
    pub bytes_read: u64,
}

/// What a successful import did. Serializes with each problem as its located message.
#[derive(Debug, Default, serde::Serialize)]
pub struct ImportReport {
    /// The final counts.
    pub progress: Progress,
    /// The problems met (up to [`ImportOptions::max_problems_kept`]).
    #[serde(serialize_with = "problems_as_text")]
    pub problems: Vec<FormatError>,
}

fn problems_as_text<S: serde::Serializer>(problems: &[FormatError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(problems.iter().map(ToString::to_string))
}

/// Imports everything `source` yields into `store` in one [`WriteSession`]; see the
/// [module docs](self).
///
/// # Errors
/// The reader's fatal error, a store error (among them: another writer held the store
/// for longer than it waits), or with `strict` the first problem; nothing of the import
/// is then stored.
///
/// # Examples
/// ```
/// use cmem_core::{ContentMemory, MemStore};
/// use cmem_formats::{import, ImportOptions, JsonlOptions, JsonlReader};
///
/// let store = MemStore::new();
/// let mut options = JsonlOptions::default();
/// options.source_locale = Some(cmem_core::Locale::parse("en")?);
/// options.target_locale = Some(cmem_core::Locale::parse("de")?);
/// let input = "{\"source\":\"Open\",\"target\":\"Öffnen\"}\n{\"broken\n";
/// let reader = JsonlReader::new(input.as_bytes(), options.clone(), None);
/// let report = import(&store, reader, &ImportOptions::default(), &mut |_| {})?;
/// assert_eq!((report.progress.inserted, report.progress.problems), (1, 1));
///
/// // With `strict`, the first problem fails the import, and nothing of it stays.
/// let mut strict = ImportOptions::default();
/// strict.strict = true;
/// let input = "{\"source\":\"Save\",\"target\":\"Sichern\"}\n{\"broken\n";
/// let reader = JsonlReader::new(input.as_bytes(), options, None);
/// assert!(import(&store, reader, &strict, &mut |_| {}).is_err());
/// assert_eq!(store.stats()?.entries, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn import<S: ItemSource>(
    store: &dyn ContentMemory,
    mut source: S,
    options: &ImportOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<ImportReport, FormatError> {
    let mut report = ImportReport::default();
    let mut session: Box<dyn WriteSession + '_> = store.begin().map_err(FormatError::store)?;
    // A failed batch fails the import, and the session is dropped.
    session.all_or_nothing();
    let mut batch: Vec<NewEntry> = Vec::with_capacity(options.batch_size.clamp(1, 100_000));
    let batch_size = options.batch_size.max(1);
    let result = (|| -> Result<(), FormatError> {
        loop {
            let item = source.next();
            let end = item.is_none();
            match item {
                None => {}
                Some(Err(e)) => return Err(e),
                Some(Ok(Item::Problem(p))) => {
                    report.progress.problems += 1;
                    if options.strict {
                        return Err(p);
                    }
                    if report.problems.len() < options.max_problems_kept {
                        report.problems.push(p);
                    }
                }
                Some(Ok(Item::Entry(e))) => {
                    report.progress.read += 1;
                    let blank = blank_variant(&e).map(|l| {
                        cmem_core::Error::new(
                            cmem_core::ErrorKind::InvalidEntry,
                            format!("the {l} segment is empty or only white space"),
                        )
                    });
                    match blank.map_or_else(|| e.validate(), Err) {
                        Ok(()) => batch.push(e),
                        Err(err) => {
                            let p = FormatError::new(
                                Format::Store,
                                FormatErrorKind::InvalidEntry,
                                err.to_string(),
                            )
                            .for_entry(report.progress.read, None);
                            report.progress.problems += 1;
                            if options.strict {
                                return Err(p);
                            }
                            if report.problems.len() < options.max_problems_kept {
                                report.problems.push(p);
                            }
                        }
                    }
                }
            }
            if batch.len() >= batch_size || (end && !batch.is_empty()) {
                let outcomes = session.write(&batch).map_err(FormatError::store)?;
                for o in outcomes {
                    match o {
                        WriteOutcome::Inserted(_) => report.progress.inserted += 1,
                        WriteOutcome::Deduplicated(_) => report.progress.deduplicated += 1,
                    }
                }
                batch.clear();
                report.progress.bytes_read = source.bytes_read();
                progress(&report.progress);
            }
            if end {
                report.progress.bytes_read = source.bytes_read();
                progress(&report.progress);
                return Ok(());
            }
        }
    })();
    // On an error the session is dropped here uncommitted: nothing of it stays.
    result?;
    session.commit().map_err(FormatError::store)?;
    Ok(report)
}

/// Where an export writes: any of the streaming writers.
pub trait EntrySink {
    /// Writes one entry.
    ///
    /// # Errors
    /// The writer's error.
    fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError>;
}

impl<W: Write> EntrySink for TmxWriter<W> {
    fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        TmxWriter::write_entry(self, entry)
    }
}

#[cfg(feature = "gzip")]
impl<W: Write> EntrySink for KmbWriter<W> {
    fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        KmbWriter::write_entry(self, entry)
    }
}

impl<W: Write> EntrySink for JsonlWriter<W> {
    fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        JsonlWriter::write_entry(self, entry)
    }
}

impl EntrySink for Vec<NewEntry> {
    fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        self.push(entry.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::format_of;

    #[test]
    fn formats_by_name() {
        assert_eq!(format_of(Path::new("a/b/Memory.TMX")), Some(Format::Tmx));
        assert_eq!(format_of(Path::new("m.kmb")), Some(Format::Kmb));
        assert_eq!(format_of(Path::new("en-de.jsonl.gz")), Some(Format::Jsonl));
        assert_eq!(format_of(Path::new("x.xlf")), Some(Format::Xliff));
        assert_eq!(format_of(Path::new("de.po")), Some(Format::Po));
        assert_eq!(format_of(Path::new("noext")), None);
    }

    #[test]
    fn blank_segments_are_located_problems_not_entries() {
        let store = cmem_core::MemStore::new();
        let options = crate::JsonlOptions {
            source_locale: Locale::parse("en").ok(),
            target_locale: Locale::parse("de").ok(),
            file_name: "m.jsonl".to_owned(),
            ..crate::JsonlOptions::default()
        };
        let input = "{\"source\":\"Open\",\"target\":\"Öffnen\"}\n{\"source\":\"\",\"target\":\"Leer\"}\n\
                     {\"source\":\"Blank\",\"target\":\" \\t \"}\n";
        let reader = JsonlReader::new(input.as_bytes(), options, None);
        let report = import(&store, reader, &ImportOptions::default(), &mut |_| {});
        let report = report.unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!((report.progress.inserted, report.progress.problems), (1, 2));
        let lines: Vec<_> = report.problems.iter().map(|p| (p.line(), p.to_string())).collect();
        assert_eq!(lines[0].0, Some(2), "{lines:?}");
        assert!(lines[0].1.contains("the en segment is empty or only white space"), "{lines:?}");
        assert_eq!(lines[1].0, Some(3), "{lines:?}");
        assert!(lines[1].1.contains("the de segment"), "{lines:?}");

        let tmx = r#"<tmx version="1.4"><header srclang="en" datatype="plaintext"/><body>
<tu><tuv xml:lang="en"><seg>Save</seg></tuv><tuv xml:lang="de"><seg>  </seg></tuv></tu>
<tu><tuv xml:lang="en"><seg><ph x="1">%s</ph></seg></tuv><tuv xml:lang="de"><seg><ph x="1">%s</ph></seg></tuv></tu>
</body></tmx>"#;
        let reader = TmxReader::new(tmx.as_bytes(), crate::TmxOptions::default())
            .unwrap_or_else(|e| unreachable!("{e}"));
        let report = import(&store, reader, &ImportOptions::default(), &mut |_| {});
        let report = report.unwrap_or_else(|e| unreachable!("{e}"));
        // A segment of codes alone is not blank.
        assert_eq!((report.progress.inserted, report.progress.problems), (1, 1));
        assert_eq!(report.problems[0].line(), Some(2), "{:?}", report.problems);
        assert!(report.problems[0].to_string().contains("the de <seg> is empty"), "{:?}", report.problems);
    }
}

/// Options of [`export()`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExportOptions {
    /// Keep only entries with a variant of this locale (prefix rule), written first.
    pub source_locale: Option<Locale>,
    /// Keep only entries with a variant of this locale (prefix rule). With a source
    /// locale too, only those two variants are written.
    pub target_locale: Option<Locale>,
    /// Entries fetched per page (default 1,000).
    pub page_size: usize,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions { source_locale: None, target_locale: None, page_size: 1_000 }
    }
}

/// The entry as exported under `options`, or `None` when the filter drops it.
pub fn filter_entry(entry: &Entry, options: &ExportOptions) -> Option<NewEntry> {
    let source = match &options.source_locale {
        Some(l) => Some(entry.variant_index(l)?),
        None => None,
    };
    let target = match &options.target_locale {
        Some(l) => {
            let i = entry.variant_index(l)?;
            if Some(i) == source {
                // The same variant cannot be both; look for another one.
                let other =
                    entry.variants.iter().enumerate().position(|(j, v)| j != i && v.locale.matches(l))?;
                Some(other)
            } else {
                Some(i)
            }
        }
        None => None,
    };
    let mut e = entry.to_new();
    match (source, target) {
        (Some(s), Some(t)) => {
            e.variants = vec![entry.variants[s].clone(), entry.variants[t].clone()];
        }
        (Some(s), None) => {
            let v = e.variants.remove(s);
            e.variants.insert(0, v);
        }
        _ => {}
    }
    Some(e)
}

/// Writes every entry of `store` (filtered by `options`) to `sink`, in id order;
/// returns how many were written. `progress` gets that count after every page.
///
/// # Errors
/// A store error or the sink's error.
///
/// # Examples
/// ```
/// use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
/// use cmem_formats::{export, ExportOptions, TmxWriteOptions, TmxWriter};
///
/// let store = MemStore::new();
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// store.write(&[NewEntry::pair(
///     Variant::new(en.clone(), vec![Run::text("Open")]),
///     Variant::new(de, vec![Run::text("Öffnen")]),
/// )])?;
///
/// let mut options = TmxWriteOptions::default();
/// options.source_locale = Some(en);
/// let mut writer = TmxWriter::new(Vec::new(), options)?;
/// let written = export(&store, &mut writer, &ExportOptions::default(), &mut |_| {})?;
/// assert_eq!(written, 1);
/// let tmx = String::from_utf8(writer.finish()?)?;
/// assert!(tmx.contains("<seg>Öffnen</seg>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn export(
    store: &dyn ContentMemory,
    sink: &mut dyn EntrySink,
    options: &ExportOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<u64, FormatError> {
    let mut after: Option<EntryId> = None;
    let mut written = 0u64;
    let page = options.page_size.max(1);
    loop {
        let entries = store.entries(after, page).map_err(FormatError::store)?;
        let Some(last) = entries.last() else { break };
        after = Some(last.id);
        for entry in &entries {
            if let Some(e) = filter_entry(entry, options) {
                sink.write_entry(&e)?;
                written += 1;
            }
        }
        progress(written);
        if entries.len() < page {
            break;
        }
    }
    Ok(written)
}
