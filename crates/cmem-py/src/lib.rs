//! `cmem` for Python: the extension module built from the `cmem` crate with PyO3.
//!
//! The module's classes follow the facade: `cmem.Memory` (module `memory`) opens a
//! memory by address and has its verbs, `cmem.Memories` (`several`) looks several up as
//! one, `cmem.Match` (`matches`) is one match. Every call into the engine releases the
//! GIL (`engine::run`), so Python threads sharing a memory run their lookups at once,
//! and no Rust panic reaches the interpreter: it becomes a `cmem.Error`. Errors map to
//! the exception hierarchy of module `errors`.
//!
//! The module is built and installed with maturin (`pip install ./crates/cmem-py`); its
//! tests are the pytest suite in `tests/`, and `cmem.pyi` holds its type stubs.

use pyo3::prelude::*;

mod convert;
mod engine;
mod errors;
mod evidence;
mod matches;
mod memory;
mod request;
mod several;

/// The `cmem` module: a translation / content memory.
#[pymodule]
#[pyo3(name = "cmem")]
fn cmem_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<memory::PyMemory>()?;
    m.add_class::<several::PyMemories>()?;
    m.add_class::<matches::PyMatch>()?;
    errors::register(m)?;
    Ok(())
}
