//! `cmem.Match`: one match, as every front end's JSON shows it.

use std::sync::OnceLock;

use cmem::{Match, MatchView};
use pyo3::prelude::*;

use crate::convert::serde_to_py;

/// One match of a lookup, best first in the list a lookup returns.
///
/// Attributes: ``score`` (0–1) and ``percent``; ``match_type`` (``context_exact``,
/// ``generalized_exact`` … ``plain_fuzzy``) and ``tier`` (0–6); ``source`` and
/// ``target``, the stored texts; ``adapted_text``, the stored target with the query's
/// inline codes and entity values and the repairs made (the text to use); ``repairs``,
/// ``penalties``, ``origins``, ``diff``, ``entity_adaptations``, ``code_adaptations``
/// (lists of dicts); ``memory`` (the memory's name in a lookup over several, else
/// None); ``entry_id``, ``ambiguous``, ``point``, ``unit``, ``project_id``,
/// ``approvals``, ``last_approved``, ``identical_source``. ``to_dict()`` gives all of
/// it as the JSON of ``cmem lookup --json`` and the HTTP API.
#[pyclass(module = "cmem", name = "Match", frozen)]
#[derive(Debug)]
pub(crate) struct PyMatch {
    /// The match as the lookup returned it.
    found: Match,
    /// The memory's name, in a lookup over several.
    memory: Option<String>,
    /// Its view (texts rendered, parts copied), made when first read: a batch hands back
    /// thousands of matches of which a caller often reads one or two.
    view: OnceLock<MatchView>,
}

impl PyMatch {
    /// A match of one memory.
    pub(crate) fn of(found: Match) -> PyMatch {
        PyMatch { found, memory: None, view: OnceLock::new() }
    }

    /// A match of the memory named `memory`, in a lookup over several.
    pub(crate) fn of_memory(found: Match, memory: &str) -> PyMatch {
        PyMatch { found, memory: Some(memory.to_owned()), view: OnceLock::new() }
    }

    fn view(&self) -> &MatchView {
        self.view.get_or_init(|| match &self.memory {
            Some(name) => MatchView::of_memory(&self.found, name),
            None => MatchView::of(&self.found),
        })
    }
}

#[pymethods]
impl PyMatch {
    /// The score, 0–1 (1.0: text and structure equal).
    #[getter]
    fn score(&self) -> f64 {
        self.found.score
    }

    /// The score in percent (0–100).
    #[getter]
    fn percent(&self) -> f64 {
        self.view().percent
    }

    /// The tier's name: ``context_exact``, ``generalized_exact``, ``structural_exact``,
    /// ``plain_exact``, ``generalized_fuzzy``, ``structural_fuzzy``, ``plain_fuzzy``.
    #[getter]
    fn match_type(&self) -> &str {
        &self.view().match_type
    }

    /// The tier's number: 0 (context, "101 %") to 6 (plain fuzzy).
    #[getter]
    fn tier(&self) -> u8 {
        self.view().tier
    }

    /// The stored entry's id in its memory.
    #[getter]
    fn entry_id(&self) -> i64 {
        self.view().entry_id
    }

    /// The name of the memory the match came from (a lookup over several), else None.
    #[getter]
    fn memory(&self) -> Option<&str> {
        self.view().memory.as_deref()
    }

    /// An exact match demoted because differing answers exist and no point was named.
    #[getter]
    fn ambiguous(&self) -> bool {
        self.view().ambiguous
    }

    /// Where the answer was approved (``profile/channel/collection``; empty: nowhere in
    /// particular).
    #[getter]
    fn point(&self) -> &str {
        &self.view().point
    }

    /// The content block it was approved for (may be empty).
    #[getter]
    fn unit(&self) -> &str {
        &self.view().unit
    }

    /// The entry's project.
    #[getter]
    fn project_id(&self) -> &str {
        &self.view().project_id
    }

    /// The stored source text.
    #[getter]
    fn source(&self) -> &str {
        &self.view().source.text
    }

    /// The stored target text, unadapted.
    #[getter]
    fn target(&self) -> &str {
        &self.view().target.text
    }

    /// The stored target with the query's inline codes and entity values carried in and
    /// the repairs made: the text to use.
    #[getter]
    fn adapted_text(&self) -> &str {
        &self.view().adapted_target.text
    }

    /// The mechanical and word repairs made in ``adapted_text``, each a dict.
    #[getter]
    fn repairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.view().repairs)
    }

    /// What lowered the score (white space, region, memory, attribute), each a dict
    /// with ``kind`` and ``points``.
    #[getter]
    fn penalties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.view().penalties)
    }

    /// The write events that produced or re-approved the entry, oldest first.
    #[getter]
    fn origins<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.view().origins)
    }

    /// How the stored source differs from the query, word by word.
    #[getter]
    fn diff<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.view().diff)
    }

    /// Entity values changed in the adapted target.
    #[getter]
    fn entity_adaptations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.view().entity_adaptations)
    }

    /// Inline codes of the query carried into the adapted target.
    #[getter]
    fn code_adaptations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.view().code_adaptations)
    }

    /// How many times the answer was approved.
    #[getter]
    fn approvals(&self) -> u32 {
        self.view().approvals
    }

    /// When it was approved last (RFC 3339; empty when unknown).
    #[getter]
    fn last_approved(&self) -> &str {
        &self.view().last_approved
    }

    /// The stored source's text is the query's, character for character.
    #[getter]
    fn identical_source(&self) -> bool {
        self.view().identical_source
    }

    /// The whole match as a dict: the JSON of ``cmem lookup --json`` and ``/v1/lookup``
    /// (``source``, ``target`` and ``adapted_target`` as ``{"locale", "text", "runs"}``).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, self.view())
    }

    fn __repr__(&self) -> String {
        format!(
            "<cmem.Match {:.2} % {} {:?} -> {:?}>",
            self.view().percent,
            self.view().match_type,
            self.view().source.text,
            self.view().adapted_target.text
        )
    }
}
