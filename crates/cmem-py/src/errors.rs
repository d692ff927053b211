//! The exception hierarchy and the mapping of engine errors onto it.
//!
//! ```text
//! cmem.Error
//!  ├── cmem.FormatError      a file or record that does not read: file, line, column, entry, kind
//!  ├── cmem.InvalidInputError a bad locale, point, query, option or entry
//!  ├── cmem.UnsupportedError  what this build or this store does not do
//!  └── cmem.StoreError       the memory failed: a missing or damaged file, the database
//!       ├── cmem.LockedError  another writer held the memory longer than this one waits
//!       └── cmem.UnavailableError the database server cannot be reached now
//! ```

use cmem::formats::{FormatError as RustFormatError, FormatErrorKind};
use cmem::ErrorKind;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(cmem, Error, PyException, "The base of every error cmem raises.");
create_exception!(
    cmem,
    FormatError,
    Error,
    "A file or record that does not read. Attributes: file (str), line, column and entry \
     (int or None, counted from 1), kind (str, such as 'xml' or 'invalid_line')."
);
create_exception!(
    cmem,
    InvalidInputError,
    Error,
    "A bad argument: a locale tag, point, query, option, record or entry the engine refuses."
);
create_exception!(cmem, UnsupportedError, Error, "Something this build or this memory's store does not do.");
create_exception!(cmem, StoreError, Error, "The memory failed: a missing or damaged file, or its database.");
create_exception!(
    cmem,
    LockedError,
    StoreError,
    "Another writer held the memory for longer than this one waits; the call may be retried."
);
create_exception!(
    cmem,
    UnavailableError,
    StoreError,
    "The memory's database server cannot be reached now; nothing was done."
);

/// Adds the exceptions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    m.add("InvalidInputError", py.get_type::<InvalidInputError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("LockedError", py.get_type::<LockedError>())?;
    m.add("UnavailableError", py.get_type::<UnavailableError>())?;
    Ok(())
}

/// Whether a store's message says another writer held the memory: both stores say
/// "another writer held" when their wait runs out, and SQLite's own busy error, should
/// one escape the wait, reads "database is locked".
fn says_locked(message: &str) -> bool {
    message.contains("another writer held") || message.contains("database is locked")
}

/// The Python exception of an engine error, its message the error's and its causes'
/// (a driver's error), as one line.
pub(crate) fn core(e: &cmem::Error) -> PyErr {
    of_kind(e.kind(), e.message_and_causes())
}

/// As [`core`], the message prefixed with the argument it is about (`texts[3]`).
pub(crate) fn core_at(e: &cmem::Error, at: &str) -> PyErr {
    of_kind(e.kind(), format!("{at}: {}", e.message_and_causes()))
}

fn of_kind(kind: ErrorKind, message: String) -> PyErr {
    match kind {
        ErrorKind::InvalidLocale
        | ErrorKind::InvalidPoint
        | ErrorKind::InvalidRuns
        | ErrorKind::InvalidEntry
        | ErrorKind::InvalidQuery
        | ErrorKind::InvalidRule => InvalidInputError::new_err(message),
        ErrorKind::Unsupported => UnsupportedError::new_err(message),
        ErrorKind::Unavailable => UnavailableError::new_err(message),
        _ if says_locked(&message) => LockedError::new_err(message),
        _ => StoreError::new_err(message),
    }
}

/// The Python exception of a format error: `cmem.FormatError` with its place for a file
/// that does not read; a store failure during an import or export as the store's.
pub(crate) fn format(py: Python<'_>, e: &RustFormatError) -> PyErr {
    let message = e.to_string();
    match e.kind() {
        FormatErrorKind::Store if says_locked(&message) => return LockedError::new_err(message),
        FormatErrorKind::Store => return StoreError::new_err(message),
        FormatErrorKind::Unsupported => return UnsupportedError::new_err(message),
        _ => {}
    }
    let err = FormatError::new_err(message);
    let value = err.value(py);
    let kind = format!("{:?}", e.kind());
    let set = || -> PyResult<()> {
        value.setattr("file", e.file())?;
        value.setattr("line", e.line())?;
        value.setattr("column", e.column())?;
        value.setattr("entry", e.entry())?;
        value.setattr("kind", snake(&kind))?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

/// `InvalidLine` → `invalid_line`.
fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
