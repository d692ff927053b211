//! `cmem.Memories`: several named memories looked up as one.

use cmem::{Memories, MemorySpec, OpenOptions};
use pyo3::prelude::*;

use crate::convert::type_name;
use crate::engine;
use crate::errors::{self, InvalidInputError};
use crate::matches::PyMatch;
use crate::memory::{address_arg, strings};
use crate::request::{self, Lookup};

/// Several memories looked up as one: a project's, a client's, a reference memory.
///
/// Each spec is ``"[NAME=]ADDRESS[,role=read|write][,penalty=POINTS][,priority=N]"``
/// (the form of ``cmem -m``): the name defaults to the file's stem, the role to
/// ``write`` (``read`` opens it read-only), the penalty (points off each of its
/// matches) to 0 and the priority to its place in the list. Matches of all are ranked
/// by score after each memory's penalty, then priority, and each names its ``memory``.
///
/// >>> with cmem.Memories(["project.db", "client=client.db,penalty=5,role=read"]) as tm:
/// ...     for m in tm.lookup("Save the file", "en", "de"):
/// ...         print(m.memory, m.score, m.adapted_text)
#[pyclass(module = "cmem", name = "Memories", frozen)]
#[derive(Debug)]
pub(crate) struct PyMemories {
    inner: std::sync::RwLock<Option<std::sync::Arc<Memories>>>,
}

impl PyMemories {
    fn memories(&self) -> PyResult<std::sync::Arc<Memories>> {
        let guard = self.inner.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.clone().ok_or_else(|| crate::errors::Error::new_err("these memories are closed"))
    }
}

#[pymethods]
impl PyMemories {
    #[new]
    #[pyo3(signature = (specs, *, create = false))]
    fn new(py: Python<'_>, specs: &Bound<'_, PyAny>, create: bool) -> PyResult<PyMemories> {
        if specs.extract::<String>().is_ok() {
            return Err(InvalidInputError::new_err("specs: give a list of memory specs, not one str"));
        }
        let mut parsed = Vec::new();
        for (i, spec) in specs
            .try_iter()
            .map_err(|_| InvalidInputError::new_err(format!("specs: a {} is not a list", type_name(specs))))?
            .enumerate()
        {
            let text = address_arg(&spec?)?;
            // `:memory:` has no stem to name it by.
            let text = if text == "memory:" { "memory=memory:".to_owned() } else { text };
            parsed.push(text.parse::<MemorySpec>().map_err(|e| errors::core_at(&e, &format!("specs[{i}]")))?);
        }
        let options = OpenOptions::new().create(create);
        let memories =
            engine::run(py, || Memories::open(&parsed, &options))?.map_err(|e| errors::core(&e))?;
        Ok(PyMemories { inner: std::sync::RwLock::new(Some(std::sync::Arc::new(memories))) })
    }

    /// The memories' names, in order.
    #[getter]
    fn names(&self) -> PyResult<Vec<String>> {
        Ok(self.memories()?.members().iter().map(|m| m.spec.name.clone()).collect())
    }

    /// Closes every memory; later calls raise ``cmem.Error``.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = self.inner.write().unwrap_or_else(std::sync::PoisonError::into_inner).take();
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
        match self.names() {
            Ok(names) => format!("<cmem.Memories {names:?}>"),
            Err(_) => "<cmem.Memories closed>".to_owned(),
        }
    }

    /// Looks ``text`` up in every memory, as ``Memory.lookup`` does (the same
    /// arguments); each match names its ``memory``. Plain text is recognized as the
    /// first memory's imports were.
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
        let memories = self.memories()?;
        let text = text.to_owned();
        let matches = engine::run(py, move || -> cmem::Result<Vec<PyMatch>> {
            let rec = memories.members()[0].memory.recognizer()?;
            let req = look.request(&text, rec, context)?;
            Ok(memories.lookup(&req)?.into_iter().map(|(name, m)| PyMatch::of_memory(m, name)).collect())
        })?;
        matches.map_err(|e| errors::core(&e))
    }

    /// Looks many texts up in every memory, one after the other (the GIL released),
    /// and returns one list of matches per text.
    #[pyo3(signature = (texts, source, target, *, threshold = 0.7, limit = 10, point = None, penalties = None))]
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
        penalties: Option<Vec<String>>,
    ) -> PyResult<Vec<Vec<PyMatch>>> {
        let look = Lookup::new(source, target, threshold, limit, point, penalties)?;
        let texts = strings(texts, "texts")?;
        let memories = self.memories()?;
        let answers = engine::run(py, move || -> Result<Vec<Vec<PyMatch>>, (usize, cmem::Error)> {
            let rec = memories.members()[0].memory.recognizer().map_err(|e| (0, e))?;
            memories.warm(&look.from).map_err(|e| (0, e))?;
            let mut out = Vec::with_capacity(texts.len());
            for (i, text) in texts.iter().enumerate() {
                let req = look.request(text, rec, cmem::QueryContext::default()).map_err(|e| (i, e))?;
                let found = memories.lookup(&req).map_err(|e| (i, e))?;
                out.push(found.into_iter().map(|(name, m)| PyMatch::of_memory(m, name)).collect());
            }
            Ok(out)
        })?;
        answers.map_err(|(i, e)| errors::core_at(&e, &format!("texts[{i}]")))
    }
}
