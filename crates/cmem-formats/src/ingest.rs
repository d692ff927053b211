//! Reading any supported input into entries: the format by extension (or given), gzip by
//! its magic bytes, plain-text recognition of inline codes by a rule set, several files
//! one after the other as one source, so that one [`import()`](crate::import()) covers
//! them all.
//!
//! Every front end (the command-line program, a server, a script) imports through
//! [`Ingest`], so a file reads the same way everywhere. Which reader reads a format, and
//! what its first bytes must look like, is the [`crate::registry`]'s: adding
//! a format adds nothing here, nor in the front ends.
//!
//! ```
//! use cmem_core::{MemStore, Recognizer};
//! use cmem_formats::{import, Format, ImportOptions, Ingest, IngestOptions, Input};
//!
//! let jsonl = r#"{"source":"Open %s","target":"%s öffnen","source_locale":"en","target_locale":"de"}"#;
//! let rec = Recognizer::default();
//! let hook = |s: &str, t: &str| rec.recognize_pair(s, t);
//! let input = Input::from_reader("inline.jsonl", Format::Jsonl, jsonl.as_bytes());
//! let ingest = Ingest::new(vec![input], IngestOptions::default(), Some(&hook));
//! let store = MemStore::new();
//! let report = import(&store, ingest, &ImportOptions::default(), &mut |_| {})?;
//! assert_eq!(report.progress.inserted, 1);
//! # Ok::<(), cmem_formats::FormatError>(())
//! ```

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cmem_core::{Locale, NewEntry, Variant};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::import::{gunzipped, ItemSource};
use crate::item::{Item, ItemReader, ReadContext, RunsHook};
use crate::registry::{self, FormatSpec};

pub use crate::item::BoxedInput;

/// Options of [`Ingest`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct IngestOptions {
    /// The source locale of entries whose file names none. Where a file names its own,
    /// this one must agree with it (see [`Ingest`]).
    pub source_locale: Option<Locale>,
    /// The target locale of entries whose file names none; as
    /// [`source_locale`](Self::source_locale).
    pub target_locale: Option<Locale>,
    /// Turn the first problem of any file into an error.
    pub strict: bool,
    /// Store every entry under [`source_locale`](Self::source_locale) and
    /// [`target_locale`](Self::target_locale) whatever its file says: for the rare
    /// deliberate case (a file whose header names the wrong language). Default false.
    pub relabel: bool,
}

/// One input to read: its name for messages, its format and its bytes.
pub struct Input {
    name: String,
    format: Format,
    reader: BoxedInput,
    /// The file's path, when it was opened from one.
    path: Option<PathBuf>,
    /// The file's size when known (a regular file).
    size: Option<u64>,
    /// The format came from the file's extension, not from the caller: what the content
    /// looks like may correct it (a `.json` that holds one array is Weblate's).
    guessed: bool,
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl Input {
    /// Opens the file at `path` (`-`: standard input, named `<stdin>`), in `format` or
    /// else by its extension ([`format_of`](crate::format_of)), decompressing gzip by its magic bytes.
    ///
    /// # Errors
    /// An unknown format (standard input always needs `format`), or a file that cannot
    /// be opened; the message names the file.
    pub fn open(path: &Path, format: Option<Format>) -> Result<Input, FormatError> {
        let stdin = path == Path::new("-");
        let name = if stdin { "<stdin>".to_owned() } else { path.display().to_string() };
        let guessed = format.is_none();
        let format = match format {
            Some(f) => f,
            None if stdin => {
                return Err(FormatError::new(
                    Format::Store,
                    FormatErrorKind::Unsupported,
                    format!(
                        "standard input needs a format ({})",
                        registry::either(&registry::names(FormatSpec::can_import_stream))
                    ),
                ))
            }
            None => registry::by_path(path).filter(|f| f.can_read()).map(|f| f.format).ok_or_else(|| {
                FormatError::new(
                    Format::Store,
                    FormatErrorKind::Unsupported,
                    format!(
                        "{name}: unknown format (extension not {}, optionally .gz); name the format \
                         (--format {})",
                        registry::either(&registry::extensions(FormatSpec::can_import)),
                        registry::names(FormatSpec::can_import).join("|")
                    ),
                )
            })?,
        };
        let io_error = |e: io::Error| {
            FormatError::new(Format::Store, FormatErrorKind::Io, format!("{name}: cannot open: {e}"))
        };
        let (raw, size): (Box<dyn Read + Send>, Option<u64>) = if stdin {
            (Box::new(io::stdin()), None)
        } else {
            let file = File::open(path).map_err(io_error)?;
            let size = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            (Box::new(file), size)
        };
        let reader = Box::new(BufReader::with_capacity(64 * 1024, raw));
        let path = (!stdin).then(|| path.to_path_buf());
        Ok(Input { name, format, reader, path, size, guessed })
    }

    /// An input from any reader (not decompressed), named `name` in messages.
    pub fn from_reader(name: impl Into<String>, format: Format, reader: impl Read + Send + 'static) -> Input {
        Input {
            name: name.into(),
            format,
            reader: Box::new(BufReader::with_capacity(64 * 1024, reader)),
            path: None,
            size: None,
            guessed: false,
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The format it is read as.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The size in bytes, when known (a regular file).
    pub fn size(&self) -> Option<u64> {
        self.size
    }
}

/// Counts the raw bytes read (before any gzip), for progress.
struct Counted<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Wraps `reader` to count its bytes into `bytes` and decompress gzip.
fn counted(reader: BoxedInput, bytes: &Arc<AtomicU64>) -> io::Result<BoxedInput> {
    gunzipped(BufReader::with_capacity(64 * 1024, Counted { inner: reader, bytes: Arc::clone(bytes) }))
}

/// What a caller may watch while an [`Ingest`] is consumed by an import: the bytes read
/// and the input being read.
#[derive(Debug, Clone, Default)]
pub struct IngestStatus {
    bytes: Arc<AtomicU64>,
    current: Arc<Mutex<String>>,
}

impl IngestStatus {
    /// Raw input bytes read so far, all inputs together.
    pub fn bytes_read(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// The name of the input being read (empty before the first).
    pub fn current_input(&self) -> String {
        self.current.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

/// Several inputs read one after the other as one stream of [`Item`]s; an
/// [`ItemSource`] for [`import()`](crate::import()).
///
/// TMX entries whose segments are all plain text (level 1, or level 2 without codes) get
/// their inline codes recognized by the same hook as JSON Lines lines: the first variant
/// as the source, each other variant as a target linked to it. An entry that carries
/// codes of its own is left as its file gave it. An entry that came from a PO catalog
/// (its `po:flags` property, written by the TMX writer as `x-cmem-meta:po:flags`) is
/// recognized by its format flags, as the PO reader did it: `no-c-format` text stays
/// text, so a memory exported to TMX and imported again gets the same entries back.
///
/// # The languages a file names win
///
/// [`IngestOptions::source_locale`] and [`target_locale`](IngestOptions::target_locale)
/// fill in only what a file does not say (a PO catalog's source, a JSON Lines line
/// without `source_locale`). Where the file names a language (PO `Language`, XLIFF
/// `source-language` / `target-language` / `srcLang` / `trgLang`, TMX `srclang` and
/// `xml:lang`, Weblate's and JSON Lines' fields) that contradicts the option, the entry
/// is not given out: the rest of that file and every later file are only checked, and
/// the ingest ends with one [`FormatErrorKind::LanguageMismatch`] error naming every
/// contradicting file, so an import stores nothing. The same language with a region
/// (`en-US` for `en`, or `de` for `de-AT`) is no contradiction: the more precise tag is
/// stored. [`IngestOptions::relabel`] stores the options' languages instead.
pub struct Ingest<'h> {
    inputs: std::vec::IntoIter<Input>,
    current: Option<ItemReader<'h>>,
    options: IngestOptions,
    hook: Option<RunsHook<'h>>,
    status: IngestStatus,
    cancel: Option<Arc<AtomicBool>>,
    done: bool,
    /// One line per file whose languages contradict the options; once there is one, no
    /// entry is given out any more.
    mismatches: Vec<String>,
}

impl fmt::Debug for Ingest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ingest")
            .field("options", &self.options)
            .field("recognizes", &self.hook.is_some())
            .field("current_input", &self.status.current_input())
            .finish_non_exhaustive()
    }
}

impl<'h> Ingest<'h> {
    /// Reads `inputs` in order; `hook` recognizes inline codes in plain strings (`None`:
    /// plain strings stay text).
    pub fn new(inputs: Vec<Input>, options: IngestOptions, hook: Option<RunsHook<'h>>) -> Ingest<'h> {
        Ingest {
            inputs: inputs.into_iter(),
            current: None,
            options,
            hook,
            status: IngestStatus::default(),
            cancel: None,
            done: false,
            mismatches: Vec::new(),
        }
    }

    /// Stops with an `interrupted` error at the next item once `flag` is set (Ctrl-C).
    #[must_use]
    pub fn cancel_on(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// A handle on the bytes read and the current input, usable while an import
    /// consumes this ingest.
    pub fn status(&self) -> IngestStatus {
        self.status.clone()
    }

    fn open_next(&mut self) -> Option<Result<ItemReader<'h>, FormatError>> {
        let input = self.inputs.next()?;
        if let Ok(mut name) = self.status.current.lock() {
            name.clone_from(&input.name);
        }
        let name = input.name;
        let mut reader = match counted(input.reader, &self.status.bytes) {
            Ok(r) => r,
            Err(e) => {
                return Some(Err(FormatError::new(
                    input.format,
                    FormatErrorKind::Io,
                    format!("cannot read: {e}"),
                )
                .in_file(name)))
            }
        };
        // What the first bytes look like may correct a format guessed from the extension.
        let settled = match reader.fill_buf() {
            Ok(start) => registry::settle(start, input.format, input.guessed, &name),
            Err(_) => Ok(input.format),
        };
        let format = match settled {
            Ok(format) => format,
            Err(e) => return Some(Err(e)),
        };
        let Some(spec) = registry::by_format(format) else {
            return Some(Err(FormatError::new(
                format,
                FormatErrorKind::Unsupported,
                format!("{} files cannot be imported", format.name()),
            )
            .in_file(name)));
        };
        let context = ReadContext {
            name,
            path: input.path,
            source_locale: self.options.source_locale.clone(),
            target_locale: self.options.target_locale.clone(),
            strict: self.options.strict,
            hook: self.hook,
        };
        Some(spec.open_reader(reader, context))
    }

    fn next_item(&mut self) -> Option<Result<Item, FormatError>> {
        loop {
            let failing = !self.mismatches.is_empty();
            // Checking the later files gives nothing out: Ctrl-C must end it here.
            if failing && self.cancelled() {
                return None;
            }
            if let Some(reader) = &mut self.current {
                match reader.next() {
                    Some(Ok(Item::Entry(entry))) => match self.settle_locales(entry) {
                        Ok(_) if failing => {}
                        Ok(entry) => return Some(Ok(Item::Entry(entry))),
                        Err(said) => {
                            self.mismatches.push(format!("{} {said}", self.status.current_input()));
                            self.current = None;
                        }
                    },
                    // Once the import is failing, later files are only checked.
                    Some(_) if failing => {}
                    Some(item) => return Some(item),
                    None => self.current = None,
                }
                continue;
            }
            match self.open_next() {
                None if failing => {
                    self.done = true;
                    return Some(Err(self.mismatch_error()));
                }
                None => return None,
                Some(Ok(reader)) => self.current = Some(reader),
                Some(Err(_)) if failing => {}
                Some(Err(e)) => return Some(Err(e)),
            }
        }
    }

    /// The entry with the options' locales applied: filled in where its file names
    /// none, refined where the option is the more precise tag of the same language, all
    /// replaced with `relabel`; `Err` says what its file names where it contradicts the
    /// options (see [`Ingest`]).
    fn settle_locales(&self, mut entry: NewEntry) -> Result<NewEntry, String> {
        let (from, to) = (self.options.source_locale.as_ref(), self.options.target_locale.as_ref());
        if self.options.relabel {
            if let (Some(from), Some(v)) = (from, entry.variants.first_mut()) {
                v.locale = from.clone();
            }
            if let (Some(to), [_, v]) = (to, entry.variants.as_mut_slice()) {
                v.locale = to.clone();
            }
            return Ok(entry);
        }
        let refine = |v: &mut Variant, given: &Locale| {
            if given.as_str().len() > v.locale.as_str().len() {
                v.locale = given.clone();
            }
        };
        if let (Some(from), Some(v)) = (from, entry.variants.first_mut()) {
            if !from.matches(&v.locale) {
                return Err(format!(
                    "names its source language {}, not {}",
                    v.locale.as_str(),
                    from.as_str()
                ));
            }
            refine(v, from);
        }
        // An entry without a target is the import's problem to report, not a contradiction.
        if let Some(to) = to.filter(|_| entry.variants.len() > 1) {
            let targets = entry.variants.get_mut(1..).unwrap_or_default();
            match targets.iter_mut().find(|v| to.matches(&v.locale)) {
                Some(v) => refine(v, to),
                None => {
                    let named: Vec<&str> = targets.iter().map(|v| v.locale.as_str()).collect();
                    return Err(format!(
                        "names its target language {}, not {}",
                        named.join(", "),
                        to.as_str()
                    ));
                }
            }
        }
        Ok(entry)
    }

    /// The error ending an ingest some of whose files contradict the options.
    fn mismatch_error(&self) -> FormatError {
        let (from, to) = (self.options.source_locale.as_ref(), self.options.target_locale.as_ref());
        let pair = match (from, to) {
            (Some(from), Some(to)) => format!("as {} → {}", from.as_str(), to.as_str()),
            (Some(from), None) => format!("with the source language {}", from.as_str()),
            (None, Some(to)) => format!("with the target language {}", to.as_str()),
            (None, None) => "as the options say".to_owned(),
        };
        let (n, list) = (self.mismatches.len(), self.mismatches.join("; "));
        let files = if n == 1 { "a file names other languages" } else { "files name other languages" };
        FormatError::new(
            Format::Store,
            FormatErrorKind::LanguageMismatch,
            format!(
                "nothing imported: {files} than the options: {list}; import without the languages \
                 to keep each file's own, or relabel to store every entry {pair}"
            ),
        )
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

impl Iterator for Ingest<'_> {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        // Checked after the read too: a read may block (standard input) while Ctrl-C comes.
        let item = self.next_item();
        if self.cancelled() {
            self.done = true;
            self.current = None;
            return Some(Err(FormatError::new(Format::Store, FormatErrorKind::Io, "interrupted")));
        }
        item
    }
}

impl ItemSource for Ingest<'_> {
    fn bytes_read(&self) -> u64 {
        self.status.bytes_read()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::collect_items;
    use cmem_core::{Recognizer, Run};

    const LEVEL1: &str = r#"<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" creationtoolversion="1" o-tmf="t"/><body>
<tu><tuv xml:lang="en"><seg>Open %s</seg></tuv><tuv xml:lang="de"><seg>%s öffnen</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Open <ph x="1">%d</ph></seg></tuv><tuv xml:lang="de"><seg><ph x="1">%d</ph> öffnen</seg></tuv></tu>
</body></tmx>"#;

    #[test]
    fn level1_tmx_is_recognized_and_coded_tmx_kept() {
        let rec = Recognizer::default();
        let hook = |s: &str, t: &str| rec.recognize_pair(s, t);
        let input = Input::from_reader("a.tmx", Format::Tmx, LEVEL1.as_bytes());
        let ingest = Ingest::new(vec![input], IngestOptions::default(), Some(&hook));
        let (entries, problems) = collect_items(ingest).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert!(matches!(entries[0].variants[0].runs[1], Run::Ph(_)), "{:?}", entries[0].variants[0].runs);
        // Carried codes stay as the file gave them (data `%d`, id `1`).
        assert!(matches!(&entries[1].variants[0].runs[1], Run::Ph(c) if c.id == "1"));
        let plain = Ingest::new(
            vec![Input::from_reader("a.tmx", Format::Tmx, LEVEL1.as_bytes())],
            IngestOptions::default(),
            None,
        );
        let (entries, _) = collect_items(plain).unwrap();
        assert_eq!(entries[0].variants[0].runs, vec![Run::text("Open %s")]);
    }

    #[test]
    fn tmx_entries_from_po_are_recognized_by_their_format_flags() {
        let tmx = r#"<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" creationtoolversion="1" o-tmf="t"/><body>
<tu><prop type="x-cmem-meta:po:flags">no-c-format</prop><tuv xml:lang="en"><seg>%delta: value</seg></tuv><tuv xml:lang="de"><seg>%delta: Wert</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>%delta: value</seg></tuv><tuv xml:lang="de"><seg>%delta: Wert</seg></tuv></tu>
<tu><prop type="x-cmem-meta:po:flags">python-format</prop><tuv xml:lang="en"><seg>%(n)s of {x}</seg></tuv><tuv xml:lang="de"><seg>%(n)s von {x}</seg></tuv></tu>
</body></tmx>"#;
        let rec = Recognizer::default();
        let hook = |s: &str, t: &str| rec.recognize_pair(s, t);
        let input = Input::from_reader("po.tmx", Format::Tmx, tmx.as_bytes());
        let (entries, _) =
            collect_items(Ingest::new(vec![input], IngestOptions::default(), Some(&hook))).unwrap();
        // The flag said it is no format string: text, as the PO reader made it.
        assert_eq!(entries[0].variants[0].runs, vec![Run::text("%delta: value")]);
        // Without flags the default rules decide, as for any level-1 TMX.
        assert!(matches!(entries[1].variants[0].runs[0], Run::Ph(_)), "{:?}", entries[1].variants[0].runs);
        // python-format: printf-style codes, not braces.
        assert!(matches!(&entries[2].variants[0].runs[0], Run::Ph(c) if c.data == "%(n)s"));
        assert!(entries[2].variants[0].runs[1..].iter().all(|r| matches!(r, Run::Text(_))));
    }

    #[test]
    fn several_inputs_one_stream_gzip_and_cancel() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut gz, b"{\"source\":\"Save\",\"target\":\"Speichern\"}\n").unwrap();
        let gz = gz.finish().unwrap();
        let options = IngestOptions::default()
            .source_locale(Some(Locale::parse("en").unwrap()))
            .target_locale(Some(Locale::parse("de").unwrap()));
        let inputs = vec![
            Input::from_reader("a.jsonl.gz", Format::Jsonl, io::Cursor::new(gz)),
            Input::from_reader("b.tmx", Format::Tmx, LEVEL1.as_bytes()),
        ];
        let ingest = Ingest::new(inputs, options.clone(), None);
        let status = ingest.status();
        let (entries, _) = collect_items(ingest).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(status.current_input(), "b.tmx");
        assert!(status.bytes_read() > LEVEL1.len() as u64);

        let flag = Arc::new(AtomicBool::new(true));
        let inputs = vec![Input::from_reader("b.tmx", Format::Tmx, LEVEL1.as_bytes())];
        let mut ingest = Ingest::new(inputs, options, None).cancel_on(flag);
        let err = ingest.next().unwrap().unwrap_err();
        assert!(err.to_string().contains("interrupted"), "{err}");
        assert!(ingest.next().is_none());
    }

    #[test]
    fn the_languages_a_file_names_win_and_a_contradiction_names_every_file() {
        let l = |t: &str| Locale::parse(t).unwrap();
        let po = |lang: &str| {
            format!("msgid \"\"\nmsgstr \"Language: {lang}\\n\"\n\nmsgid \"Open\"\nmsgstr \"x\"\n")
        };
        let xlf2 = r#"<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="fr" trgLang="de">
<file id="f"><unit id="u"><segment state="translated"><source>Ouvrir</source><target>Öffnen</target></segment></unit></file></xliff>"#;
        let jsonl = "{\"source\":\"Save\",\"target\":\"Sichern\",\"target_locale\":\"de-AT\"}\n";
        let inputs = || {
            vec![
                Input::from_reader("ru.po", Format::Po, io::Cursor::new(po("ru"))),
                Input::from_reader("de.po", Format::Po, io::Cursor::new(po("de_DE"))),
                Input::from_reader("fr.xlf", Format::Xliff, xlf2.as_bytes()),
                Input::from_reader("at.jsonl", Format::Jsonl, jsonl.as_bytes()),
            ]
        };
        let options = IngestOptions::default().source_locale(Some(l("en"))).target_locale(Some(l("de")));
        let err = collect_items(Ingest::new(inputs(), options.clone(), None)).unwrap_err();
        assert_eq!(err.kind(), FormatErrorKind::LanguageMismatch);
        let text = err.to_string();
        assert!(text.contains("ru.po names its target language ru, not de"), "{text}");
        assert!(text.contains("fr.xlf names its source language fr, not en"), "{text}");
        assert!(!text.contains("de.po") && !text.contains("at.jsonl"), "{text}");

        // Without the contradicting files: regions are kept, the flags fill in the rest.
        let mut some = inputs();
        some.remove(2);
        some.remove(0);
        let (entries, _) = collect_items(Ingest::new(some, options.clone(), None)).unwrap();
        let pairs: Vec<(&str, &str)> =
            entries.iter().map(|e| (e.variants[0].locale.as_str(), e.variants[1].locale.as_str())).collect();
        assert_eq!(pairs, [("en", "de-DE"), ("en", "de-AT")]);
        // A flag more precise than the file is stored.
        let precise = IngestOptions::default().target_locale(Some(l("de-CH")));
        let input = vec![Input::from_reader("de.po", Format::Po, io::Cursor::new(po("de")))];
        let (entries, _) = collect_items(Ingest::new(input, precise, None)).unwrap();
        assert_eq!(entries[0].variants[1].locale.as_str(), "de-CH");

        // relabel: the flags win everywhere.
        let (entries, _) = collect_items(Ingest::new(inputs(), options.relabel(true), None)).unwrap();
        assert_eq!(entries.len(), 4);
        assert!(entries
            .iter()
            .all(|e| e.variants[0].locale.as_str() == "en" && e.variants[1].locale.as_str() == "de"));
    }

    #[test]
    fn unknown_extension_and_missing_file_are_named() {
        let err = Input::open(Path::new("notes.txt"), None).unwrap_err();
        assert!(err.to_string().contains("notes.txt: unknown format"), "{err}");
        let err = Input::open(Path::new("/nonexistent/m.tmx"), None).unwrap_err();
        assert!(err.to_string().contains("m.tmx: cannot open"), "{err}");
        let err = Input::open(Path::new("-"), None).unwrap_err();
        assert!(err.to_string().contains("standard input needs a format"), "{err}");
    }
}
