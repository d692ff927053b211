//! The arguments of the evidence verbs — fragments, the glossary's terms and the word
//! model's training — as Python gives them, checked and turned into the engine's.

use cmem::align::{AlignOptions, Term, TermOptions};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::convert::type_name;
use crate::errors::InvalidInputError;

/// A share argument: a number within 0–1.
fn share(value: f64, name: &str) -> PyResult<f64> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(InvalidInputError::new_err(format!("{name} {value} is not within 0–1 (60 % is 0.6)")))
    }
}

/// The options of `terms`, as the facade's [`TermOptions`]; every bad value is named.
pub(crate) fn term_options(
    min_count: u32,
    min_share: f64,
    max_words: usize,
    min_usage: f64,
) -> PyResult<TermOptions> {
    if max_words == 0 {
        return Err(InvalidInputError::new_err("max_words 0 allows no term; give 1 or more"));
    }
    Ok(TermOptions::default()
        .min_count(min_count)
        .min_share(share(min_share, "min_share")?)
        .max_words(max_words)
        .min_usage(share(min_usage, "min_usage")?))
}

/// The options of `align`: `iterations` EM rounds per direction, and `tension` the
/// diagonal preference (`None`: plain IBM Model 1).
pub(crate) fn align_options(iterations: usize, tension: Option<f64>) -> PyResult<AlignOptions> {
    if iterations == 0 {
        return Err(InvalidInputError::new_err("iterations 0 trains nothing; give 1 or more"));
    }
    if let Some(t) = tension.filter(|t| !(t.is_finite() && *t > 0.0)) {
        return Err(InvalidInputError::new_err(format!(
            "tension {t} is not a positive number; give None for plain IBM Model 1"
        )));
    }
    Ok(AlignOptions::default().iterations(iterations).tension(tension))
}

/// The given term list of `set_terms`: an iterable of `(source, target)` tuples (or
/// lists) or of dicts with `"source"` and `"target"`; the bad item named (`terms[2]`).
/// As `cmem terms --import` reads a CSV file, both sides must hold more than spaces.
pub(crate) fn given_list(terms: &Bound<'_, PyAny>) -> PyResult<Vec<Term>> {
    if terms.extract::<String>().is_ok() || terms.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "terms: a {} is not a term list; give a list of (source, target) tuples or dicts",
            type_name(terms)
        )));
    }
    let items = terms.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "terms: a {} is not an iterable of (source, target) tuples or dicts",
            type_name(terms)
        ))
    })?;
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let item = item?;
        let at = format!("terms[{i}]");
        let (source, target) = if let Ok(d) = item.cast::<PyDict>() {
            (side(d.get_item("source")?, &at, "source")?, side(d.get_item("target")?, &at, "target")?)
        } else if item.is_instance_of::<PyTuple>() || item.is_instance_of::<PyList>() {
            let n = item.len()?;
            if n != 2 {
                let items = if n == 1 { "1 item".to_owned() } else { format!("{n} items") };
                return Err(InvalidInputError::new_err(format!(
                    "{at}: a term is a (source, target) pair, not {items}"
                )));
            }
            (side(Some(item.get_item(0)?), &at, "source")?, side(Some(item.get_item(1)?), &at, "target")?)
        } else {
            return Err(PyTypeError::new_err(format!(
                "{at}: a {} is not a term; give a (source, target) tuple or a dict with \"source\" and \"target\"",
                type_name(&item)
            )));
        };
        out.push(Term::given(&source, &target));
    }
    Ok(out)
}

/// One side of a given term: a str holding more than spaces.
fn side(value: Option<Bound<'_, PyAny>>, at: &str, name: &str) -> PyResult<String> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Err(InvalidInputError::new_err(format!(
            "{at}: no {name}; every term needs a source and a target"
        )));
    };
    let text: String = match value.cast::<PyString>() {
        Ok(s) => s.extract::<String>().map_err(|e| {
            InvalidInputError::new_err(format!("{at}: the {name} is not text UTF-8 can hold: {e}"))
        })?,
        Err(_) => {
            return Err(PyTypeError::new_err(format!(
                "{at}: the {name} is a {}, not a str",
                type_name(&value)
            )))
        }
    };
    if text.trim().is_empty() {
        return Err(InvalidInputError::new_err(format!(
            "{at}: the {name} is empty; every term needs a source and a target"
        )));
    }
    Ok(text)
}

/// Sets `key` to `default` in each dict of `list` that lacks it: the engine leaves out
/// an empty `example` or a false `given`, and a Python caller reads every key alike.
pub(crate) fn fill(list: &Bound<'_, PyAny>, key: &str, default: &Bound<'_, PyAny>) -> PyResult<()> {
    for item in list.try_iter()? {
        let item = item?;
        if !item.contains(key)? {
            item.set_item(key, default)?;
        }
    }
    Ok(())
}

/// Terms as a list of dicts, each with its `example` (None when unknown).
pub(crate) fn term_list(py: Python<'_>, terms: &[Term]) -> PyResult<Py<PyAny>> {
    let list = crate::convert::serde_to_py(py, terms)?;
    fill(&list, "example", py.None().bind(py))?;
    Ok(list.unbind())
}
