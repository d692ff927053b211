//! [`Memory::import`]: the one import every front end runs — the inputs read as one
//! stream, plain strings recognized, one write session, the recognizer rule set recorded
//! and the candidate index persisted.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cmem_core::{Error, Locale, Recognizer, Result};
use cmem_formats::{
    import, FormatError, FormatErrorKind, ImportOptions, ImportReport, Ingest, IngestOptions, IngestStatus,
    Input, Item, ItemSource, Progress, RunsHook,
};

use crate::memory::{rule_set_name, Memory};
use crate::realign::{AlignMode, RealignOutcome, Realigned};

/// What [`Memory::import`] imports, and how: the inputs, their default locales, the
/// strictness, the recognizer and the cancellation, set once for the reader and the
/// write session alike.
///
/// ```
/// use cmem::formats::{Format, Input};
/// use cmem::{ImportRequest, Locale};
///
/// let input = Input::from_reader("ui.jsonl", Format::Jsonl, &b""[..]);
/// let request = ImportRequest::new(vec![input]).locales(Some(Locale::parse("en")?), None).strict(true);
/// assert!(request.strict && request.persist_index);
/// # Ok::<(), cmem::Error>(())
/// ```
#[non_exhaustive]
pub struct ImportRequest {
    /// The inputs, read one after the other as one import.
    pub inputs: Vec<Input>,
    /// The source locale of entries whose file names none (a PO catalog, a JSON Lines
    /// line without `source_locale`). A file that names another language fails the
    /// import, which then stores nothing; the same language with a region (`en-US` for
    /// `en`) is no contradiction, and the more precise tag is stored.
    pub source_locale: Option<Locale>,
    /// The target locale of entries whose file names none; as
    /// [`source_locale`](Self::source_locale).
    pub target_locale: Option<Locale>,
    /// Store every entry under [`source_locale`](Self::source_locale) and
    /// [`target_locale`](Self::target_locale) whatever its file names (default false):
    /// for a file whose header is known to be wrong.
    pub relabel: bool,
    /// Turn the first problem of any input into an error (and roll back).
    pub strict: bool,
    /// The recognizer of plain strings: `Some(choice)` when the caller chose
    /// (`Some(None)`: plain strings stay text), `None` (the default) for the memory's
    /// own ([`Memory::recognizer`]).
    pub recognizer: Option<Option<Recognizer>>,
    /// Stops the import (which rolls back) at the next entry once set.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Told once, when the import first sees `cancel` set (it is then rolling back).
    pub on_cancel: Option<Arc<dyn Fn() + Send + Sync>>,
    /// Write the candidate index after an import that inserted entries, so the next
    /// process opens it instead of building it (default true; a store whose index lives
    /// only in the process writes nothing).
    pub persist_index: bool,
    /// Entries per write call and problems kept ([`ImportOptions`]; its `strict` is
    /// replaced by [`strict`](Self::strict)).
    pub batches: ImportOptions,
    /// When the word models of the imported pairs are trained after an import that
    /// inserted entries ([`Memory::realign`]; default [`AlignMode::WhenStale`]): the
    /// request's pair when it names both locales, else every pair of the memory.
    pub align: AlignMode,
}

impl fmt::Debug for ImportRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImportRequest")
            .field("inputs", &self.inputs)
            .field("source_locale", &self.source_locale)
            .field("target_locale", &self.target_locale)
            .field("strict", &self.strict)
            .field("relabel", &self.relabel)
            .field("recognizer", &self.recognizer.as_ref().map(|r| rule_set_name(r.as_ref())))
            .field("cancel", &self.cancel.is_some())
            .field("persist_index", &self.persist_index)
            .field("align", &self.align)
            .finish_non_exhaustive()
    }
}

crate::setters!(ImportRequest { strict: bool, relabel: bool, persist_index: bool, align: AlignMode });

impl ImportRequest {
    /// An import of `inputs` with the memory's recognizer, not strict, persisting the
    /// index.
    pub fn new(inputs: Vec<Input>) -> ImportRequest {
        ImportRequest {
            inputs,
            source_locale: None,
            target_locale: None,
            strict: false,
            relabel: false,
            recognizer: None,
            cancel: None,
            on_cancel: None,
            persist_index: true,
            batches: ImportOptions::default(),
            align: AlignMode::WhenStale,
        }
    }

    /// Sets [`source_locale`](Self::source_locale) and
    /// [`target_locale`](Self::target_locale).
    #[must_use]
    pub fn locales(mut self, source: Option<Locale>, target: Option<Locale>) -> Self {
        self.source_locale = source;
        self.target_locale = target;
        self
    }

    /// Sets [`recognizer`](Self::recognizer) to the caller's choice (`None`: none).
    #[must_use]
    pub fn recognizer(mut self, chosen: Option<Recognizer>) -> Self {
        self.recognizer = Some(chosen);
        self
    }

    /// Sets [`cancel`](Self::cancel).
    #[must_use]
    pub fn cancel_on(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// Sets [`on_cancel`](Self::on_cancel).
    #[must_use]
    pub fn on_cancel(mut self, told: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_cancel = Some(Arc::new(told));
        self
    }
}

/// What [`Memory::import`] did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Imported {
    /// The counts and the located problems of the import.
    pub report: ImportReport,
    /// The recognizer rule set this import read plain strings with, as the memory
    /// records it: the rule names joined by commas (`printf,html`), or `none`.
    pub rule_set: String,
    /// The rule set the memory had recorded when this import recognized plain strings
    /// with another ([`rule_set`](Self::rule_set) form): the caller warns, since queries
    /// are recognized as the first import was.
    pub rule_set_before: Option<String>,
    /// The source locales whose candidate index was written, and how long that took
    /// (part of what an import costs).
    pub indexed: Vec<Locale>,
    /// The time writing the index took, when it was written.
    pub index_time: Option<Duration>,
    /// Why the index was not written: nothing is lost (the next lookup builds it), so
    /// the import stands and the caller warns.
    pub index_error: Option<Error>,
    /// The word models brought up to date after the import, pair by pair (see
    /// [`ImportRequest::align`]); a failure there leaves the import standing.
    pub aligned: Vec<Realigned>,
    /// The time training took, when any pair was trained.
    pub align_time: Option<Duration>,
    /// Why the memory's pairs could not be read for [`aligned`](Self::aligned); the
    /// import stands.
    pub align_error: Option<Error>,
}

/// The ingest, telling [`ImportRequest::on_cancel`] once when it stops.
struct Told<'h> {
    inner: Ingest<'h>,
    cancel: Option<Arc<AtomicBool>>,
    told: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Iterator for Told<'_> {
    type Item = std::result::Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.next();
        if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
            if let Some(told) = self.told.take() {
                told();
            }
        }
        item
    }
}

impl ItemSource for Told<'_> {
    fn bytes_read(&self) -> u64 {
        self.inner.bytes_read()
    }
}

impl Memory {
    /// Imports the request's inputs as one import, all or nothing, reporting progress
    /// per batch. Plain strings are recognized by the request's recognizer (the
    /// memory's own by default); an import that stored anything records that rule set
    /// when none is recorded, so later queries are recognized alike; one that inserted
    /// entries writes the candidate index of their source locales (the request's source
    /// locale, else every one the memory holds).
    ///
    /// ```
    /// use cmem::formats::{Format, Input};
    /// use cmem::{ImportRequest, Locale, Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let file = r#"{"source":"Open %s","target":"%s öffnen"}"#;
    /// let input = Input::from_reader("ui.jsonl", Format::Jsonl, file.as_bytes());
    /// let request = ImportRequest::new(vec![input]).locales(Some(Locale::parse("en")?), Some(Locale::parse("de")?));
    /// let mut batches = 0;
    /// let imported = memory.import(request, &mut |_| batches += 1)?;
    /// assert_eq!((imported.report.progress.inserted, batches > 0), (1, true));
    /// assert_eq!(memory.lookup_text("Open %d", "en", "de")?[0].adapted_text(), "%d öffnen");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// An input that cannot be read, a fatal format error (any problem when `strict`),
    /// cancellation, a store failure (among them: another writer held the memory for
    /// longer than it waits), or recording the rule set failing. Nothing of the import
    /// is stored, except when recording the rule set fails: the entries are then stored
    /// and the error says so. An error that names no file names the input being read.
    pub fn import(
        &self,
        request: ImportRequest,
        progress: &mut dyn FnMut(&Progress),
    ) -> std::result::Result<Imported, FormatError> {
        let ImportRequest {
            inputs,
            source_locale,
            target_locale,
            strict,
            relabel,
            recognizer,
            cancel,
            on_cancel,
            persist_index,
            batches,
            align,
        } = request;
        let rec: Option<&Recognizer> = match &recognizer {
            Some(chosen) => chosen.as_ref(),
            None => self.recognizer()?,
        };
        let pair = rec.map(|r| move |s: &str, t: &str| r.recognize_pair(s, t));
        let hook: Option<RunsHook<'_>> = pair.as_ref().map(|f| f as RunsHook<'_>);
        let ingest_options = IngestOptions::default()
            .source_locale(source_locale.clone())
            .target_locale(target_locale.clone())
            .strict(strict)
            .relabel(relabel);
        let mut ingest = Ingest::new(inputs, ingest_options, hook);
        let cancelled = cancel.clone();
        if let Some(flag) = &cancel {
            ingest = ingest.cancel_on(Arc::clone(flag));
        }
        let status: IngestStatus = ingest.status();
        let source = Told { inner: ingest, cancel, told: on_cancel };
        let mut options = batches;
        options.strict = strict;
        let report = import(self.store(), source, &options, progress).map_err(|e| {
            let current = status.current_input();
            // A contradiction of languages names its files itself.
            if e.file().is_empty() && !current.is_empty() && e.kind() != FormatErrorKind::LanguageMismatch {
                e.in_file(current)
            } else {
                e
            }
        })?;
        let p = report.progress;
        let rule_set_before = if p.inserted + p.deduplicated > 0 {
            self.record_rule_set(rec).map_err(|e| {
                FormatError::store(
                    e.prefixed("the import is stored, but recording its recognizer rules failed"),
                )
            })?
        } else {
            None
        };
        let mut imported = Imported {
            report,
            rule_set: rule_set_name(rec),
            rule_set_before,
            indexed: Vec::new(),
            index_time: None,
            index_error: None,
            aligned: Vec::new(),
            align_time: None,
            align_error: None,
        };
        if persist_index && p.inserted > 0 {
            let begun = Instant::now();
            match self.persist_index(source_locale.as_ref()) {
                Ok(indexed) => {
                    if !indexed.is_empty() {
                        imported.index_time = Some(begun.elapsed());
                    }
                    imported.indexed = indexed;
                }
                Err(e) => imported.index_error = Some(e),
            }
        }
        // The word models come after the commit: they are derived from the entries, so
        // an interrupted training (or a failed one) leaves the import and every lookup
        // as they were, with the model it had.
        let stopped = cancelled.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        if (p.inserted > 0 || align == AlignMode::Always) && !stopped {
            let begun = Instant::now();
            let only = source_locale.as_ref().zip(target_locale.as_ref());
            match self.realign(only, align) {
                Ok(done) => imported.aligned = done,
                Err(e) => imported.align_error = Some(e),
            }
            if imported.aligned.iter().any(|r| matches!(r.outcome, RealignOutcome::Trained(_))) {
                imported.align_time = Some(begun.elapsed());
            }
        }
        Ok(imported)
    }

    /// Writes the candidate index of source locale `from` (every source locale the
    /// memory holds when `None`), so the next process opens it instead of building it
    /// on its first lookup; returns the locales indexed. A store whose index lives only
    /// in the process (PostgreSQL without an index directory) writes nothing and
    /// returns none: building it here would be thrown away.
    ///
    /// # Errors
    /// A store failure, or the index file cannot be written.
    pub fn persist_index(&self, from: Option<&Locale>) -> Result<Vec<Locale>> {
        if !self.index_persists() {
            return Ok(Vec::new());
        }
        let sources = match from {
            Some(l) => vec![l.clone()],
            None => self.source_locales()?,
        };
        for source in &sources {
            self.warm(source)?;
        }
        Ok(sources)
    }
}
