//! Mapping SQLite failures to [`cmem_core::Error`], naming the database file.

use cmem_core::{Error, ErrorKind};
use rusqlite::ErrorCode;

/// The kind of a SQLite failure: a file that is not a database, or a damaged one, is
/// [`ErrorKind::Corrupt`]; everything else (I/O, locks, a full disk, read-only
/// locations) is [`ErrorKind::Store`].
pub(crate) fn kind_of(e: &rusqlite::Error) -> ErrorKind {
    match e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt => ErrorKind::Corrupt,
            _ => ErrorKind::Store,
        },
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => ErrorKind::Corrupt,
        _ => ErrorKind::Store,
    }
}

/// `sqlite store PATH: WHAT`, with the driver error as the cause.
pub(crate) fn sql_error(path: &str, what: &str, e: rusqlite::Error) -> Error {
    Error::with_source(kind_of(&e), format!("sqlite store {path}: {what}"), e)
}

/// Extension to attach the file and the failed step to a rusqlite result.
pub(crate) trait Context<T> {
    /// Maps the error with [`sql_error`].
    fn ctx(self, path: &str, what: &str) -> cmem_core::Result<T>;

    /// As [`ctx`](Self::ctx), formatting `what` only on failure: for messages built
    /// with `format!` on paths that run per row or per lookup.
    fn ctx_with(self, path: &str, what: impl FnOnce() -> String) -> cmem_core::Result<T>;
}

impl<T> Context<T> for rusqlite::Result<T> {
    fn ctx(self, path: &str, what: &str) -> cmem_core::Result<T> {
        self.map_err(|e| sql_error(path, what, e))
    }

    fn ctx_with(self, path: &str, what: impl FnOnce() -> String) -> cmem_core::Result<T> {
        self.map_err(|e| sql_error(path, &what(), e))
    }
}

/// Stored data that does not parse (runs, locales, points, metadata).
pub(crate) fn corrupt(path: &str, what: String, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::with_source(ErrorKind::Corrupt, format!("sqlite store {path}: {what}"), e)
}
