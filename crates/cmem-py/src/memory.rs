//! `cmem.Memory`: a memory opened by address, and its verbs.

use cmem::ContentMemoryExt;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use cmem::formats::{
    AnalyzeOptions, Batch, ExportOptions, Format, ImportReport, Input, JsonlMode, JsonlOptions, JsonlWriter,
    KmbWriter, OutputFile, PoWriter, RecycleOptions, TmxWriteOptions, TmxWriter, WeblateOptions,
    WeblateWriter,
};
use cmem::{EntryId, ImportRequest, Locale, Memory, OpenOptions, VersionQuery};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{from_py, serde_to_py, type_name};
use crate::engine;
use crate::errors::{self, Error, InvalidInputError, UnsupportedError};
use crate::evidence;
use crate::matches::PyMatch;
use crate::request::{self, Lookup};

/// A translation memory opened by address: a file path (SQLite, the embedded default),
/// ``":memory:"`` (a private in-memory memory, gone when closed) or
/// ``"postgres://user@host/db"`` (a shared memory on PostgreSQL).
///
/// ``create=True`` makes the memory when there is none (without it a missing memory is
/// an error, never a new empty one); ``read_only=True`` refuses writes; ``write_wait``
/// is how many seconds a write waits for another writer before it raises
/// ``cmem.LockedError`` (default: the store's, 60 s for SQLite); ``pairs=[("en", "de")]``
/// indexes only the keys those pairs' lookups read (a process of a few pairs of a
/// memory of many); ``first_import_alone=True`` lets an import into an empty SQLite
/// memory hold the file alone, writing the database once instead of twice, while other
/// connections (this ``Memory``'s lookups from other threads included) wait for it, as
/// ``cmem import`` does for a memory it creates. Use it as a context manager, or call ``close()``. One ``Memory`` may be shared by threads: every
/// call releases the GIL while the engine works.
///
/// >>> with cmem.Memory("tm.db", create=True) as tm:
/// ...     tm.import_file("memory.tmx")
/// ...     best = tm.lookup("Open the file", "en", "de")[0]
#[pyclass(module = "cmem", name = "Memory", frozen)]
#[derive(Debug)]
pub(crate) struct PyMemory {
    /// `None` once closed. Calls take a clone of the `Arc` and release the lock at once,
    /// so `close()` never waits for a lookup and a lookup running keeps its memory.
    inner: RwLock<Option<Arc<Memory>>>,
    address: String,
}

/// The most threads a batch may ask for: each is an operating-system thread.
const MAX_THREADS: usize = 1024;

/// An address as Python gives it: a str or an `os.PathLike`; `:memory:` (as sqlite3
/// writes it) is the facade's `memory:`.
pub(crate) fn address_arg(address: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = if let Ok(s) = address.extract::<String>() {
        s
    } else if let Ok(p) = address.extract::<PathBuf>() {
        p.to_string_lossy().into_owned()
    } else {
        return Err(PyTypeError::new_err(format!(
            "address: a {} is not an address; give a path, \":memory:\" or \"postgres://…\"",
            type_name(address)
        )));
    };
    Ok(if text == ":memory:" { "memory:".to_owned() } else { text })
}

/// A file path argument (str or `os.PathLike`); `-` is refused, since the engine would
/// read standard input.
fn path_arg(path: &Bound<'_, PyAny>, at: &str) -> PyResult<PathBuf> {
    let p: PathBuf = path.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{at}: a {} is not a path; give a str or a pathlib.Path",
            type_name(path)
        ))
    })?;
    if p.as_os_str().is_empty() || p == Path::new("-") {
        return Err(InvalidInputError::new_err(format!("{at}: {:?} names no file", p.display().to_string())));
    }
    Ok(p)
}

impl PyMemory {
    /// The memory, unless closed.
    pub(crate) fn memory(&self) -> PyResult<Arc<Memory>> {
        let guard = self.inner.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.clone().ok_or_else(|| Error::new_err(format!("the memory at {} is closed", self.address)))
    }

    fn import_with(
        &self,
        py: Python<'_>,
        input: Input,
        source: Option<&str>,
        target: Option<&str>,
        strict: bool,
    ) -> PyResult<Py<PyAny>> {
        let memory = self.memory()?;
        let request = ImportRequest::new(vec![input])
            .locales(request::locale(source, "source")?, request::locale(target, "target")?)
            .strict(strict);
        let report: ImportReport = engine::run(py, || memory.import(request, &mut |_| {}).map(|i| i.report))?
            .map_err(|e| errors::format(py, &e))?;
        Ok(serde_to_py(py, &report)?.unbind())
    }
}

#[pymethods]
impl PyMemory {
    #[new]
    #[pyo3(signature = (address, create = false, read_only = false, write_wait = None, pairs = None, first_import_alone = false))]
    fn new(
        py: Python<'_>,
        address: &Bound<'_, PyAny>,
        create: bool,
        read_only: bool,
        write_wait: Option<f64>,
        pairs: Option<Vec<(String, String)>>,
        first_import_alone: bool,
    ) -> PyResult<PyMemory> {
        let address = address_arg(address)?;
        let mut options =
            OpenOptions::new().create(create).read_only(read_only).first_import_alone(first_import_alone);
        if let Some(pairs) = pairs {
            // Only these pairs' keys are indexed (as `cmem serve --pairs`): a process that
            // looks up in one pair of a memory of many counts that pair's keys alone.
            let pairs = pairs
                .iter()
                .map(|(s, t)| Ok((request::locale(Some(s), "pairs")?, request::locale(Some(t), "pairs")?)))
                .map(|pair: PyResult<_>| pair.map(|(s, t)| s.zip(t)))
                .collect::<PyResult<Option<Vec<_>>>>()?
                .unwrap_or_default();
            options = options.served(cmem::ServedPairs::new(pairs));
        }
        if let Some(seconds) = write_wait {
            let wait = std::time::Duration::try_from_secs_f64(seconds).map_err(|_| {
                InvalidInputError::new_err(format!(
                    "write_wait {seconds} is not a number of seconds, 0 or more"
                ))
            })?;
            options = options.write_wait(wait);
        }
        let memory =
            engine::run(py, || Memory::open_with(&address, &options))?.map_err(|e| errors::core(&e))?;
        Ok(PyMemory { address: memory.address().to_string(), inner: RwLock::new(Some(Arc::new(memory))) })
    }

    /// The address the memory was opened at (a PostgreSQL password hidden).
    #[getter]
    fn address(&self) -> &str {
        &self.address
    }

    /// Whether ``close()`` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.read().map_or(true, |g| g.is_none())
    }

    /// Closes the memory: later calls raise ``cmem.Error``. A lookup running in another
    /// thread finishes first. Closing twice does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = {
            let mut guard = self.inner.write().unwrap_or_else(std::sync::PoisonError::into_inner);
            guard.take()
        };
        // The store's last handle may flush and close files: without the GIL.
        engine::run(py, move || drop(taken))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_exc_type = None, _exc = None, _traceback = None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        let state = if self.closed() { " closed" } else { "" };
        format!("<cmem.Memory {:?}{state}>", self.address)
    }

    /// Imports a file, all or nothing: TMX, XLIFF, PO/POT, Weblate JSON, JSON Lines or a
    /// ``.kmb`` bundle (by its extension and first bytes; ``.gz`` undone). ``source`` and
    /// ``target`` name the locales of a file that names none (JSON Lines, a POT).
    /// Plain strings are recognized (``%s``, ``{0}``, ``<b>``) as the memory's earlier
    /// imports were. ``strict=True`` turns the first problem into an error.
    ///
    /// Returns the report: ``{"progress": {"read", "inserted", "deduplicated",
    /// "problems", "bytes_read"}, "problems": [message, …]}``.
    ///
    /// Raises ``cmem.FormatError`` (with ``file``, ``line``, ``column``) for a file that
    /// does not read; the memory is then as it was.
    #[pyo3(signature = (path, *, source = None, target = None, strict = false))]
    fn import_file(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        source: Option<&str>,
        target: Option<&str>,
        strict: bool,
    ) -> PyResult<Py<PyAny>> {
        let path = path_arg(path, "path")?;
        let input = engine::run(py, || Input::open(&path, None))?.map_err(|e| errors::format(py, &e))?;
        self.import_with(py, input, source, target, strict)
    }

    /// Imports records, all or nothing: an iterable of dicts, each a JSON Lines line.
    /// The simple form is ``{"source": …, "target": …}`` with ``source_locale`` and
    /// ``target_locale`` (or the ``source`` and ``target`` arguments); its other fields
    /// are kept as metadata. A dict with ``variants`` is an entry in full, as
    /// ``export("….jsonl")`` writes it (``{"variants": [{"locale", "runs"}, …],
    /// "unit", "point", "origins", …}``). A record that is not a valid entry is a
    /// problem (``strict=True``: a ``cmem.FormatError``) whose ``line`` is its place in
    /// ``records``, counted from 1.
    ///
    /// Returns the report, as ``import_file`` does.
    #[pyo3(signature = (records, *, source = None, target = None, strict = false))]
    fn import_records(
        &self,
        py: Python<'_>,
        records: &Bound<'_, PyAny>,
        source: Option<&str>,
        target: Option<&str>,
        strict: bool,
    ) -> PyResult<Py<PyAny>> {
        let mut lines: Vec<u8> = Vec::new();
        let items = records.try_iter().map_err(|_| {
            PyTypeError::new_err(format!("records: a {} is not an iterable of dicts", type_name(records)))
        })?;
        for (i, item) in items.enumerate() {
            let item = item?;
            if !item.is_instance_of::<PyDict>() {
                return Err(PyTypeError::new_err(format!(
                    "records[{i}]: a {} is not a record; give a dict such as {{\"source\": …, \"target\": …}}",
                    type_name(&item)
                )));
            }
            let json = from_py(&item, &format!("records[{i}]"))?;
            let line = serde_json::to_string(&json)
                .map_err(|e| InvalidInputError::new_err(format!("records[{i}]: {e}")))?;
            lines.extend_from_slice(line.as_bytes());
            lines.push(b'\n');
        }
        let input = Input::from_reader("records", Format::Jsonl, Cursor::new(lines));
        self.import_with(py, input, source, target, strict)
    }

    /// Looks ``text`` up from locale ``source`` to ``target`` (BCP 47 tags: ``"en"``,
    /// ``"de-AT"``), its inline codes recognized as the memory's imports were.
    ///
    /// ``threshold`` is the least score returned (0–1), ``limit`` the most matches;
    /// ``point`` (``"profile/channel"``) settles differing exact answers; ``context``
    /// (``{"key": …, "pre": …, "post": …}``, the neighbours' source texts) makes context
    /// (101 %) matches; ``penalties`` (``["origin:mt=10"]``) cost matches points by their
    /// attributes. Returns the matches, best first.
    #[pyo3(signature = (text, source, target, *, threshold = 0.7, limit = 10, point = None, context = None, penalties = None))]
    #[allow(clippy::too_many_arguments)]
    fn lookup(
        &self,
        py: Python<'_>,
        text: &str,
        source: &str,
        target: &str,
        threshold: f64,
        limit: usize,
        point: Option<&str>,
        context: Option<&Bound<'_, PyAny>>,
        penalties: Option<Vec<String>>,
    ) -> PyResult<Vec<PyMatch>> {
        let look = Lookup::new(source, target, threshold, limit, point, penalties)?;
        let context = request::context(context, "context")?;
        let memory = self.memory()?;
        let text = text.to_owned();
        let matches = engine::run(py, move || -> cmem::Result<Vec<PyMatch>> {
            let req = look.request(&text, memory.recognizer()?, context)?;
            Ok(memory.lookup(&req)?.into_iter().map(PyMatch::of).collect())
        })?;
        matches.map_err(|e| errors::core(&e))
    }

    /// Looks many texts up at once, on the engine's own threads (``threads=0``: one per
    /// processor), and returns one list of matches per text, in order. The options are
    /// ``lookup``'s; ``contexts``, when given, holds one context (or None) per text.
    /// A text that cannot be looked up raises, naming its place (``texts[3]``).
    #[pyo3(signature = (texts, source, target, *, threshold = 0.7, limit = 10, point = None, contexts = None, penalties = None, threads = 0))]
    #[allow(clippy::too_many_arguments)]
    fn lookup_batch(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        source: &str,
        target: &str,
        threshold: f64,
        limit: usize,
        point: Option<&str>,
        contexts: Option<&Bound<'_, PyAny>>,
        penalties: Option<Vec<String>>,
        threads: usize,
    ) -> PyResult<Vec<Vec<PyMatch>>> {
        let look = Lookup::new(source, target, threshold, limit, point, penalties)?;
        if threads > MAX_THREADS {
            return Err(InvalidInputError::new_err(format!(
                "threads {threads} is more than {MAX_THREADS}; give 0 for one per processor"
            )));
        }
        let texts = strings(texts, "texts")?;
        let contexts = match contexts.filter(|c| !c.is_none()) {
            None => vec![cmem::QueryContext::default(); texts.len()],
            Some(given) => {
                let mut out = Vec::with_capacity(texts.len());
                for (i, c) in given.try_iter()?.enumerate() {
                    out.push(request::context(Some(&c?), &format!("contexts[{i}]"))?);
                }
                if out.len() != texts.len() {
                    return Err(InvalidInputError::new_err(format!(
                        "contexts: {} given for {} texts; give one per text (None for none)",
                        out.len(),
                        texts.len()
                    )));
                }
                out
            }
        };
        let memory = self.memory()?;
        let answers = engine::run(py, move || -> Result<Vec<Vec<PyMatch>>, (usize, cmem::Error)> {
            let rec = memory.recognizer().map_err(|e| (0, e))?;
            let mut requests = Vec::with_capacity(texts.len());
            for (i, (text, context)) in texts.iter().zip(contexts).enumerate() {
                requests.push(look.request(text, rec, context).map_err(|e| (i, e))?);
            }
            let results = memory.lookup_many(&requests, threads);
            let mut out = Vec::with_capacity(results.len());
            for (i, r) in results.into_iter().enumerate() {
                out.push(r.map_err(|e| (i, e))?.into_iter().map(PyMatch::of).collect());
            }
            Ok(out)
        })?;
        answers.map_err(|(i, e)| errors::core_at(&e, &format!("texts[{i}]")))
    }

    /// The prior answers of content block ``unit``, newest first (at most ``limit``,
    /// 0: the default), at ``point`` or every point. Each is a dict:
    /// ``{"entry": {…}, "context_fingerprint": …}``.
    #[pyo3(signature = (unit, *, point = None, limit = 0))]
    fn versions(&self, py: Python<'_>, unit: &str, point: Option<&str>, limit: usize) -> PyResult<Py<PyAny>> {
        let mut query = VersionQuery::new(unit).limit(limit);
        if let Some(p) = request::point(point)? {
            query = query.point(p);
        }
        let memory = self.memory()?;
        let versions = engine::run(py, || memory.versions_with(&query))?.map_err(|e| errors::core(&e))?;
        Ok(serde_to_py(py, &versions)?.unbind())
    }

    /// The prior answer of block ``unit`` in locales ``source`` → ``target``, when its
    /// newest origin carries the caller's context ``fingerprint``: ``{"entry_id",
    /// "source", "target"}``, or None. ``exclude`` leaves out an entry (the caller's
    /// own, current one).
    #[pyo3(signature = (unit, fingerprint, source, target, *, point = None, exclude = None))]
    #[allow(clippy::too_many_arguments)]
    fn prior_version(
        &self,
        py: Python<'_>,
        unit: &str,
        fingerprint: &str,
        source: &str,
        target: &str,
        point: Option<&str>,
        exclude: Option<i64>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let (from, to) = request::pair(source, target)?;
        let mut req = cmem::VersionRequest::new(unit, fingerprint, from, to).exclude(exclude.map(EntryId));
        if let Some(p) = request::point(point)? {
            req = req.point(p);
        }
        let memory = self.memory()?;
        let prior = engine::run(py, || {
            let reader = memory.store().version_reader().ok_or_else(|| {
                cmem::Error::new(cmem::ErrorKind::Unsupported, "this memory keeps no versions")
            })?;
            cmem::imp::prior_version_for(reader, &req)
        })?
        .map_err(|e| errors::core(&e))?;
        Ok(match prior {
            None => None,
            Some(p) => {
                let dict = PyDict::new(py);
                dict.set_item("entry_id", p.entry_id.0)?;
                dict.set_item("source", p.source)?;
                dict.set_item("target", p.target)?;
                Some(dict.into_any().unbind())
            }
        })
    }

    /// Pre-translates a document (XLIFF 1.2 / 2.x, or a PO/POT catalog) into
    /// ``output``, written atomically: the best match at or above ``fill_threshold``
    /// fills a segment, matches above ``threshold`` become candidates. ``source`` and
    /// ``target`` override the document's languages (a POT names no target).
    /// Returns the report as a dict (segments, filled, candidates, …).
    #[pyo3(signature = (input, output, *, source = None, target = None, threshold = 0.7, fill_threshold = 0.95, point = None, overwrite = false))]
    #[allow(clippy::too_many_arguments)]
    fn recycle(
        &self,
        py: Python<'_>,
        input: &Bound<'_, PyAny>,
        output: &Bound<'_, PyAny>,
        source: Option<&str>,
        target: Option<&str>,
        threshold: f64,
        fill_threshold: f64,
        point: Option<&str>,
        overwrite: bool,
    ) -> PyResult<Py<PyAny>> {
        let (input, output) = (path_arg(input, "input")?, path_arg(output, "output")?);
        let mut options = RecycleOptions::default();
        options.source_locale = request::locale(source, "source")?;
        options.target_locale = request::locale(target, "target")?;
        options.fuzzy_threshold = threshold;
        options.fill_threshold = fill_threshold;
        options.point = request::point(point)?;
        options.overwrite = overwrite;
        let memory = self.memory()?;
        let report = engine::run(py, || memory.recycle_file(&input, &output, &options))?
            .map_err(|e| errors::format(py, &e))?;
        Ok(serde_to_py(py, &report)?.unbind())
    }

    /// The leverage report of documents (XLIFF, PO/POT) against the memory: per file
    /// and in total (repetitions counted across files), segments, words and characters
    /// in each match band. Returns ``{"files": [report, …], "total": report}``.
    #[pyo3(signature = (paths, *, source = None, target = None, point = None))]
    fn analyze(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        source: Option<&str>,
        target: Option<&str>,
        point: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let paths: Vec<PathBuf> = if paths.extract::<String>().is_ok() || paths.extract::<PathBuf>().is_ok() {
            vec![path_arg(paths, "paths")?]
        } else {
            let mut out = Vec::new();
            for (i, p) in paths.try_iter()?.enumerate() {
                out.push(path_arg(&p?, &format!("paths[{i}]"))?);
            }
            out
        };
        let mut options = AnalyzeOptions::default();
        options.source_locale = request::locale(source, "source")?;
        options.target_locale = request::locale(target, "target")?;
        options.point = request::point(point)?;
        let memory = self.memory()?;
        let batch = engine::run(py, || -> Result<Batch, cmem::formats::FormatError> {
            if options.recognizer.is_none() {
                options.recognizer = memory.recognizer()?.cloned();
            }
            let mut batch = Batch::new();
            for path in &paths {
                memory.analyze(&mut batch, path, &options)?;
            }
            Ok(batch)
        })?
        .map_err(|e| errors::format(py, &e))?;
        let dict = PyDict::new(py);
        dict.set_item("files", serde_to_py(py, batch.files())?)?;
        dict.set_item("total", serde_to_py(py, &batch.total())?)?;
        Ok(dict.into_any().unbind())
    }

    /// Writes the memory into ``path``, replaced atomically: TMX (``.tmx``), JSON Lines
    /// (``.jsonl``), the lossless bundle (``.kmb``), a PO catalog (``.po``, which holds
    /// one locale pair: give ``source`` and ``target``) or, with ``format="weblate"``,
    /// Weblate's memory JSON. ``source`` and ``target`` keep only entries with those
    /// locales. Returns the number of entries written.
    #[pyo3(signature = (path, *, format = None, source = None, target = None))]
    fn export(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        format: Option<&str>,
        source: Option<&str>,
        target: Option<&str>,
    ) -> PyResult<u64> {
        let path = path_arg(path, "path")?;
        let format = export_format(&path, format)?;
        let mut options = ExportOptions::default();
        options.source_locale = request::locale(source, "source")?;
        options.target_locale = request::locale(target, "target")?;
        let po_pair = match (format, &options.source_locale, &options.target_locale) {
            ("po", Some(s), Some(t)) => Some((s.clone(), t.clone())),
            ("po", _, _) => {
                return Err(InvalidInputError::new_err(format!(
                    "export {}: a PO catalog holds one locale pair; give source and target",
                    path.display()
                )))
            }
            _ => None,
        };
        let memory = self.memory()?;
        let written = engine::run(py, || export_into(&memory, &path, format, &options, po_pair))?
            .map_err(|e| errors::format(py, &e))?;
        Ok(written)
    }

    /// What the memory holds: ``{"entries", "variants", "pairs": [{"source",
    /// "target", "entries"}, …], "size_bytes"}``.
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let memory = self.memory()?;
        let stats = engine::run(py, || memory.stats())?.map_err(|e| errors::core(&e))?;
        Ok(serde_to_py(py, &stats)?.unbind())
    }

    /// Concordance search: entries whose text in ``locale`` holds all of ``words``, best
    /// first, at most ``limit``; each a dict with the entry and a ``snippet`` marking
    /// the words found in brackets.
    #[pyo3(signature = (words, locale, *, limit = 10))]
    fn search(&self, py: Python<'_>, words: &str, locale: &str, limit: usize) -> PyResult<Py<PyAny>> {
        let memory = self.memory()?;
        let hits = engine::run(py, || memory.search(words, locale, limit))?.map_err(|e| errors::core(&e))?;
        Ok(serde_to_py(py, &hits)?.unbind())
    }

    /// Everything the memory knows about a segment, for a translation producer (a
    /// machine-translation engine, an LLM prompt): a dict with ``prior_version`` (the
    /// block ``unit``'s previous approved version, when ``fingerprint`` governs it, else
    /// absent), ``matches`` (the lookup's), ``examples`` (at most ``examples`` source and
    /// target pairs chosen to cover the segment's words, each with what it covers) and
    /// ``glossary`` (term pairs of the language pair's word model), each item with its
    /// entry id and score — the answer of ``cmem context`` and ``POST /v1/context``
    /// (docs/matching.md, "Context for producers").
    #[pyo3(signature = (text, source, target, *, unit = "", fingerprint = "", point = None, threshold = 0.7, limit = 10, examples = 5, max_example_chars = 4000, min_example_score = 0.1, glossary = 10, short_circuit_exact = true))]
    #[allow(clippy::too_many_arguments)]
    fn context(
        &self,
        py: Python<'_>,
        text: &str,
        source: &str,
        target: &str,
        unit: &str,
        fingerprint: &str,
        point: Option<&str>,
        threshold: f64,
        limit: usize,
        examples: usize,
        max_example_chars: usize,
        min_example_score: f64,
        glossary: usize,
        short_circuit_exact: bool,
    ) -> PyResult<Py<PyAny>> {
        // The matches' locales and options are checked as `lookup`'s, the point with them.
        let look = Lookup::new(source, target, threshold, limit, point, None)?;
        let options = cmem::ContextOptions::default()
            .examples(examples)
            .max_example_chars(max_example_chars)
            .min_example_score(min_example_score)
            .glossary(glossary)
            .short_circuit_exact(short_circuit_exact);
        options.validate().map_err(|e| errors::core(&e))?;
        let mut segment = cmem::ContextSegment::default();
        segment.text = Some(text.to_owned());
        segment.unit = unit.to_owned();
        segment.context_fingerprint = fingerprint.to_owned();
        let memory = self.memory()?;
        let answer = engine::run(py, move || -> Result<cmem::ContextAnswer, PyErr> {
            let recognizer = memory.recognizer().map_err(|e| errors::core(&e))?;
            let req = segment
                .request(recognizer, false, &look.from, &look.to, &look.options, &options)
                .map_err(|e| InvalidInputError::new_err(e.to_string()))?;
            memory.context_answer(&req).map_err(|e| errors::core(&e))
        })??;
        Ok(serde_to_py(py, &answer)?.unbind())
    }

    /// The fragments of ``text``: stretches of two words or more that the memory
    /// translates one way consistently, from the pair's word model (none when the
    /// memory keeps no model of ``source`` → ``target``: ``align`` trains one, an import
    /// does once the pair is large enough). Fragments are evidence for a translator and
    /// never fill a target. ``context`` and ``point`` are ``lookup``'s and checked as
    /// its; a fragment depends on the source text alone.
    ///
    /// Returns a list of dicts, in the text's order: ``{"source", "words": [first,
    /// last], "target", "agreeing", "seen", "example"}`` — the stretch as the text
    /// writes it, its first and last word (counted from 0), the memory's translation,
    /// how often the memory translated it so and at all, and one entry id holding it
    /// (None when the model was trained without ids).
    #[pyo3(signature = (text, source, target, *, context = None, point = None))]
    fn fragments(
        &self,
        py: Python<'_>,
        text: &str,
        source: &str,
        target: &str,
        context: Option<&Bound<'_, PyAny>>,
        point: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let defaults = cmem::LookupOptions::default();
        let look = Lookup::new(source, target, defaults.threshold, defaults.limit, point, None)?;
        let context = request::context(context, "context")?;
        let memory = self.memory()?;
        let text = text.to_owned();
        let found = engine::run(py, move || -> cmem::Result<Vec<cmem::align::Fragment>> {
            let req = look.request(&text, memory.recognizer()?, context)?;
            memory.fragments(&req)
        })?
        .map_err(|e| errors::core(&e))?;
        let list = serde_to_py(py, &found)?;
        evidence::fill(&list, "example", py.None().bind(py))?;
        Ok(list.unbind())
    }

    /// The glossary terms ``text`` holds as whole words, in its order (the longest where
    /// two overlap): the given list (``set_terms``) first, then the terms mined from the
    /// pair's word model with ``terms``' default options. None without a model or a
    /// given list.
    ///
    /// Returns a list of dicts: the term's ``source`` (lower case), ``target``,
    /// ``count``, ``seen``, ``share``, ``noun`` and ``example`` (an entry id, None
    /// when unknown), ``found`` (its words as the text writes them) and ``given``
    /// (True for a term of the given list).
    fn segment_terms(&self, py: Python<'_>, text: &str, source: &str, target: &str) -> PyResult<Py<PyAny>> {
        let defaults = cmem::LookupOptions::default();
        let look = Lookup::new(source, target, defaults.threshold, defaults.limit, None, None)?;
        let memory = self.memory()?;
        let text = text.to_owned();
        let found = engine::run(py, move || -> cmem::Result<Vec<cmem::align::FoundTerm>> {
            let req = look.request(&text, memory.recognizer()?, cmem::QueryContext::default())?;
            memory.segment_terms(&req)
        })?
        .map_err(|e| errors::core(&e))?;
        let list = serde_to_py(py, &found)?;
        evidence::fill(&list, "example", py.None().bind(py))?;
        evidence::fill(&list, "given", pyo3::types::PyBool::new(py, false).as_any())?;
        Ok(list.unbind())
    }

    /// The glossary of ``source`` → ``target``: the given list (``set_terms``) first,
    /// then the terms mined from the pair's word model whose source it does not name
    /// (none without a model). A mined term is a phrase of one to ``max_words`` source
    /// words seen at least ``min_count`` times with one dominant translation, which has
    /// at least ``min_share`` of its sightings and is used by at least ``min_usage`` of
    /// the entries holding the phrase (shares within 0–1); nouns first, then the most
    /// seen.
    ///
    /// Returns a list of dicts: ``{"source", "target", "count", "seen", "share",
    /// "noun", "example"}`` (``example`` an entry id, None when unknown; a given
    /// term's counts are 0).
    #[pyo3(signature = (source, target, *, min_count = 3, min_share = 0.6, max_words = 4, min_usage = 0.9))]
    #[allow(clippy::too_many_arguments)]
    fn terms(
        &self,
        py: Python<'_>,
        source: &str,
        target: &str,
        min_count: u32,
        min_share: f64,
        max_words: usize,
        min_usage: f64,
    ) -> PyResult<Py<PyAny>> {
        let (from, to) = request::pair(source, target)?;
        let options = evidence::term_options(min_count, min_share, max_words, min_usage)?;
        let memory = self.memory()?;
        let terms = engine::run(py, || memory.terms(&from, &to, &options))?.map_err(|e| errors::core(&e))?;
        evidence::term_list(py, &terms)
    }

    /// The term list given for ``source`` → ``target`` with ``set_terms``, as
    /// ``terms`` returns its terms; empty when none was given.
    fn given_terms(&self, py: Python<'_>, source: &str, target: &str) -> PyResult<Py<PyAny>> {
        let (from, to) = request::pair(source, target)?;
        let memory = self.memory()?;
        let terms = engine::run(py, || memory.given_terms(&from, &to))?.map_err(|e| errors::core(&e))?;
        evidence::term_list(py, &terms)
    }

    /// Keeps ``terms`` as the given term list of ``source`` → ``target``, replacing the
    /// one before (an empty list removes it): their translations take precedence over
    /// the mined terms with the same source, in ``terms``, ``segment_terms`` and the
    /// lookups' evidence. ``terms`` is an iterable of ``(source, target)`` tuples or of
    /// dicts with ``"source"`` and ``"target"``; sources are kept in lower case. A bad
    /// item raises naming it (``terms[2]``), and nothing is kept.
    fn set_terms(
        &self,
        py: Python<'_>,
        source: &str,
        target: &str,
        terms: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (from, to) = request::pair(source, target)?;
        let terms = evidence::given_list(terms)?;
        let memory = self.memory()?;
        engine::run(py, || memory.set_terms(&from, &to, &terms))?.map_err(|e| errors::core(&e))
    }

    /// Trains the word model of ``source`` → ``target`` over the memory's pairs (what
    /// ``cmem align`` does) and keeps it with the memory, replacing the one before:
    /// lookups' word repairs, ``fragments`` and the mined ``terms`` read it. An import
    /// trains it already once the pair is large enough; this trains it at any size.
    /// ``iterations`` is the EM rounds per direction; ``tension`` the preference for
    /// links near the diagonal (None: plain IBM Model 1).
    ///
    /// Returns the report: ``{"pairs", "skipped", "source_words", "target_words",
    /// "table_cells", "phrase_pairs"}``; ``pairs`` 0 means the memory holds no such
    /// pair, and no model is kept.
    #[pyo3(
        signature = (source, target, *, iterations = 5, tension = Some(4.0)),
        text_signature = "($self, source, target, *, iterations=5, tension=4.0)"
    )]
    fn align(
        &self,
        py: Python<'_>,
        source: &str,
        target: &str,
        iterations: usize,
        tension: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (from, to) = request::pair(source, target)?;
        let options = evidence::align_options(iterations, tension)?;
        let memory = self.memory()?;
        let report = engine::run(py, || memory.train_word_model(&from, &to, &options))?
            .map_err(|e| errors::core(&e))?;
        Ok(serde_to_py(py, &report)?.unbind())
    }
}

/// The strings of an iterable (`at[i]` named when one is not a str).
pub(crate) fn strings(items: &Bound<'_, PyAny>, at: &str) -> PyResult<Vec<String>> {
    if items.extract::<String>().is_ok() {
        return Err(PyTypeError::new_err(format!("{at}: give a list of texts, not one str")));
    }
    let mut out = Vec::new();
    let iter = items.try_iter().map_err(|_| {
        PyTypeError::new_err(format!("{at}: a {} is not an iterable of str", type_name(items)))
    })?;
    for (i, item) in iter.enumerate() {
        let item = item?;
        out.push(
            item.extract::<String>().map_err(|_| {
                PyTypeError::new_err(format!("{at}[{i}]: a {} is not a str", type_name(&item)))
            })?,
        );
    }
    Ok(out)
}

/// The export format: `format` when given, else by the file's extension.
fn export_format(path: &Path, format: Option<&str>) -> PyResult<&'static str> {
    let named = match format {
        Some(f) => f.to_ascii_lowercase(),
        None => path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default(),
    };
    match named.as_str() {
        "tmx" => Ok("tmx"),
        "jsonl" | "ndjson" => Ok("jsonl"),
        "kmb" => Ok("kmb"),
        "po" => Ok("po"),
        "weblate" => Ok("weblate"),
        other => Err(UnsupportedError::new_err(format!(
            "export {}: format {other:?} is not written; name a .tmx, .jsonl, .kmb or .po file, or give format=\"weblate\"",
            path.display()
        ))),
    }
}

/// Exports the memory into `path` as `format`, committing the file when complete.
fn export_into(
    memory: &Memory,
    path: &Path,
    format: &str,
    options: &ExportOptions,
    po_pair: Option<(Locale, Locale)>,
) -> Result<u64, cmem::formats::FormatError> {
    let io =
        |e: std::io::Error| cmem::formats::FormatError::io(Format::Store, &format!("{}", path.display()), e);
    let out = OutputFile::create(path).map_err(io)?;
    let (n, out) = match (format, po_pair) {
        ("kmb", _) => {
            let mut w = KmbWriter::new(out, None)?;
            let n = memory.export(&mut w, options, &mut |_| {})?;
            (n, w.finish()?)
        }
        ("jsonl", _) => {
            let mut o = JsonlOptions::default();
            o.mode = JsonlMode::Full;
            let mut w = JsonlWriter::new(out, o);
            let n = memory.export(&mut w, options, &mut |_| {})?;
            (n, w.finish()?)
        }
        ("po", Some((from, to))) => {
            let mut w = PoWriter::new(out, from, to)?;
            let n = memory.export(&mut w, options, &mut |_| {})?;
            (n, w.finish()?)
        }
        ("weblate", _) => {
            let mut o = WeblateOptions::default();
            o.source_locale.clone_from(&options.source_locale);
            o.target_locale.clone_from(&options.target_locale);
            let mut w = WeblateWriter::new(out, o)?;
            let n = memory.export(&mut w, options, &mut |_| {})?;
            (n, w.finish()?)
        }
        _ => {
            let mut o = TmxWriteOptions::default();
            o.source_locale.clone_from(&options.source_locale);
            let mut w = TmxWriter::new(out, o)?;
            let n = memory.export(&mut w, options, &mut |_| {})?;
            (n, w.finish()?)
        }
    };
    out.commit().map_err(io)?;
    Ok(n)
}
