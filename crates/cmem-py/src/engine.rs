//! Calls into the engine: the GIL released, panics caught.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;

use crate::errors::Error;

/// Runs `work` with the GIL released, so other Python threads run meanwhile (the
/// engine's own threads never touch Python objects). A panic inside the engine, which
/// would be a bug, becomes a `cmem.Error` naming it instead of unwinding into the
/// interpreter.
pub(crate) fn run<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(work))).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".to_owned());
        Error::new_err(format!("internal error in the cmem engine (please report it): {what}"))
    })
}
