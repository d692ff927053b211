//! The verbs over files and documents: import by file or reader, export into a sink,
//! recycle (pre-translate) and analyze documents. Each is a thin door onto
//! `cmem_formats`, which holds the formats and the reports.

use std::io::{Read, Write};
use std::path::Path;

use cmem_formats::{
    export, registry, Analysis, AnalyzeOptions, Batch, EntrySink, ExportOptions, Format, FormatError,
    FormatErrorKind, ImportOptions, ImportReport, IngestOptions, Input, Progress, RecycleOptions,
    RecycleReport,
};

use crate::import::ImportRequest;
use crate::memory::Memory;

impl Memory {
    /// Imports a file (format by its extension; gzip undone), all or nothing, its plain
    /// strings recognized as the memory's earlier imports were (the default rule sets for
    /// a new memory), and records that rule set.
    ///
    /// # Errors
    /// The file cannot be opened or read, a fatal format error, or a store failure; the
    /// memory is then as it was.
    ///
    /// # Examples
    /// ```
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let path = std::env::temp_dir().join(format!("cmem-doc-import-{}.tmx", std::process::id()));
    /// std::fs::write(
    ///     &path,
    ///     r#"<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence"
    ///        adminlang="en" creationtool="x" creationtoolversion="1" o-tmf="x"/><body>
    ///     <tu><tuv xml:lang="en"><seg>Close the window</seg></tuv>
    ///         <tuv xml:lang="de"><seg>Fenster schließen</seg></tuv></tu>
    ///     </body></tmx>"#,
    /// )?;
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let report = memory.import_file(&path);
    /// std::fs::remove_file(&path)?;
    /// assert_eq!(report?.progress.inserted, 1);
    ///
    /// let matches = memory.lookup_text("Close the window", "en", "de")?;
    /// assert_eq!(matches[0].score, 1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn import_file(&self, path: impl AsRef<Path>) -> Result<ImportReport, FormatError> {
        let input = Input::open(path.as_ref(), None)?;
        self.import_inputs(vec![input], IngestOptions::default(), &ImportOptions::default(), &mut |_| {})
    }

    /// Imports `bytes` named `name` (the format by the name's extension).
    ///
    /// # Errors
    /// As [`import_file`](Self::import_file), and a name without a known extension.
    pub fn import_reader(
        &self,
        name: &str,
        bytes: impl std::io::Read + Send + 'static,
    ) -> Result<ImportReport, FormatError> {
        let format = cmem_formats::format_of(Path::new(name)).ok_or_else(|| {
            FormatError::new(
                cmem_formats::Format::Store,
                cmem_formats::FormatErrorKind::Unsupported,
                format!("{name}: unknown format; name it with a known extension"),
            )
        })?;
        let input = Input::from_reader(name, format, bytes);
        self.import_inputs(vec![input], IngestOptions::default(), &ImportOptions::default(), &mut |_| {})
    }

    /// Imports `inputs` as one import with the reader's and the import's options,
    /// reporting progress: [`import`](Self::import) (the index persisted), its report.
    ///
    /// ```
    /// use cmem::formats::{Format, ImportOptions, IngestOptions, Input};
    /// use cmem::{Locale, Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let file = r#"{"source":"Print","target":"Drucken"}"#;
    /// let input = Input::from_reader("ui.jsonl", Format::Jsonl, file.as_bytes());
    /// let locales = IngestOptions::default()
    ///     .source_locale(Some(Locale::parse("en")?))
    ///     .target_locale(Some(Locale::parse("de")?));
    /// let mut batches = 0;
    /// let report = memory.import_inputs(vec![input], locales, &ImportOptions::default(), &mut |_| batches += 1)?;
    /// assert_eq!((report.progress.inserted, batches > 0), (1, true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`import_file`](Self::import_file).
    pub fn import_inputs(
        &self,
        inputs: Vec<Input>,
        ingest: IngestOptions,
        options: &ImportOptions,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<ImportReport, FormatError> {
        let mut request = ImportRequest::new(inputs).locales(ingest.source_locale, ingest.target_locale);
        request.strict = ingest.strict || options.strict;
        request.batches = options.clone();
        Ok(self.import(request, progress)?.report)
    }

    /// Pre-translates a document from this memory into `output`, in the format the
    /// [registry](cmem_formats::registry) gives its name (an XLIFF document, a gettext
    /// catalog by `.po` or `.pot`, …; see [`cmem_formats::recycle_file`]). Plain-text
    /// segments are recognized with `options.recognizer`, or, when it is `None`, as the
    /// memory's imports were ([`recognizer`](Self::recognizer)), so a document matches the
    /// memory it is recycled from.
    ///
    /// ```
    /// use cmem::formats::RecycleOptions;
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let tm = r#"{"source":"Hello","target":"Hallo","source_locale":"en","target_locale":"de"}"#;
    /// memory.import_reader("ui.jsonl", tm.as_bytes())?;
    /// let dir = std::env::temp_dir();
    /// let (doc, out) = (dir.join(format!("cmem-doc-{}.xlf", std::process::id())), dir.join(format!("cmem-doc-{}-de.xlf", std::process::id())));
    /// std::fs::write(&doc, r#"<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
    /// <file original="ui" source-language="en" target-language="de" datatype="plaintext"><body>
    /// <trans-unit id="1"><source>Hello</source></trans-unit></body></file></xliff>"#)?;
    /// let report = memory.recycle_file(&doc, &out, &RecycleOptions::default());
    /// let written = std::fs::read_to_string(&out);
    /// # let _ = (std::fs::remove_file(&doc), std::fs::remove_file(&out));
    /// assert_eq!(report?.filled, 1);
    /// assert!(written?.contains("Hallo"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`cmem_formats::recycle_file`].
    pub fn recycle_file(
        &self,
        input: impl AsRef<Path>,
        output: impl AsRef<Path>,
        options: &RecycleOptions,
    ) -> Result<RecycleReport, FormatError> {
        let mut options = options.clone();
        if options.recognizer.is_none() {
            options.recognizer = self.recognizer()?.cloned();
        }
        cmem_formats::recycle_file(input.as_ref(), output.as_ref(), self.store(), &options)
    }

    /// Writes every entry (those of `options`' locales) into `sink`, a page at a time,
    /// telling `progress` the count so far; returns the count. The caller finishes the
    /// sink (its writer's `finish`).
    ///
    /// ```
    /// use cmem::formats::{ExportOptions, JsonlOptions, JsonlWriter};
    /// use cmem::{Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// memory.import_reader("ui.jsonl", r#"{"source":"Print","target":"Drucken","source_locale":"en","target_locale":"de"}"#.as_bytes())?;
    /// let mut writer = JsonlWriter::new(Vec::new(), JsonlOptions::default());
    /// assert_eq!(memory.export(&mut writer, &ExportOptions::default(), &mut |_| {})?, 1);
    /// assert!(String::from_utf8(writer.finish()?)?.contains("Drucken"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`cmem_formats::export`]: a store failure, or the sink failing to write.
    pub fn export(
        &self,
        sink: &mut dyn EntrySink,
        options: &ExportOptions,
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64, FormatError> {
        export(self.store(), sink, options, progress)
    }

    /// Pre-translates the document read from `input` (named `name` in messages) into
    /// `output`, in `format`: one the [registry](cmem_formats::registry) says recycles
    /// (XLIFF, a gettext catalog, …). `options.recognizer` is
    /// used as given; callers that want the memory's own take it from
    /// [`query_recognizer`](Self::query_recognizer) (as [`recycle_file`](Self::recycle_file)
    /// does when it is `None`).
    ///
    /// # Errors
    /// Another format ([`FormatErrorKind::Unsupported`]), and as the format's recycle
    /// ([`cmem_formats::recycle()`], [`cmem_formats::recycle_po`], …); nothing is written
    /// to `output` then.
    pub fn recycle(
        &self,
        format: Format,
        mut input: impl Read,
        name: &str,
        mut output: impl Write,
        options: &RecycleOptions,
    ) -> Result<RecycleReport, FormatError> {
        let spec = registry::by_format(format).filter(|f| f.can_recycle()).ok_or_else(|| {
            let documents: Vec<&str> =
                registry::FORMATS.iter().filter(|f| f.can_recycle()).map(|f| f.title).collect();
            FormatError::new(
                format,
                FormatErrorKind::Unsupported,
                format!("{name}: recycle reads {}, not {}", registry::either(&documents), format.name()),
            )
        })?;
        let mut raw = Vec::new();
        input.read_to_end(&mut raw).map_err(|e| FormatError::io(format, "cannot read", e).in_file(name))?;
        let (bytes, report) = spec.recycle(raw, name, self.store(), options)?;
        output
            .write_all(&bytes)
            .and_then(|()| output.flush())
            .map_err(|e| FormatError::io(format, "cannot write", e).in_file(name))?;
        Ok(report)
    }

    /// Adds the leverage report of the file at `path` (in the format the registry gives
    /// its name: a PO or POT catalog by its extension, …, else XLIFF) to `batch` and
    /// returns it; the batch's total counts repetitions across its files ([`Batch`]).
    ///
    /// # Errors
    /// As [`Batch::add_file`]; the batch is then as it was.
    pub fn analyze<'b>(
        &self,
        batch: &'b mut Batch,
        path: &Path,
        options: &AnalyzeOptions,
    ) -> Result<&'b Analysis, FormatError> {
        batch.add_file(path, self.store(), options)
    }
}
