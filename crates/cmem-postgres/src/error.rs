//! Mapping PostgreSQL failures to [`cmem_core::Error`], naming the memory (its address
//! with the password left out).

use cmem_core::{Error, ErrorKind};
use postgres::error::SqlState;

/// The kind of a PostgreSQL failure: a value of a type the schema does not declare is
/// [`ErrorKind::Corrupt`]; an undefined table or column (a database that is not a cmem
/// memory, or a damaged one) is [`ErrorKind::Schema`]; a connection that broke or could
/// not be made, and a server shutting down or starting, is [`ErrorKind::Unavailable`];
/// everything else (locks, a full disk, permissions) is [`ErrorKind::Store`].
pub(crate) fn kind_of(e: &postgres::Error) -> ErrorKind {
    if unreachable(e) {
        return ErrorKind::Unavailable;
    }
    match e.code() {
        Some(c) if *c == SqlState::UNDEFINED_TABLE || *c == SqlState::UNDEFINED_COLUMN => ErrorKind::Schema,
        Some(c) if *c == SqlState::DATA_CORRUPTED || *c == SqlState::INDEX_CORRUPTED => ErrorKind::Corrupt,
        _ if e.to_string().starts_with("error deserializing") => ErrorKind::Corrupt,
        _ => ErrorKind::Store,
    }
}

/// True for a failure of the connection rather than of the statement: the connection
/// closed, or the server refused or ended it (SQLSTATE class 08, and 57P01–57P03:
/// shutting down, crashed, starting).
fn unreachable(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        Some(c) => {
            c.code().starts_with("08")
                || *c == SqlState::ADMIN_SHUTDOWN
                || *c == SqlState::CRASH_SHUTDOWN
                || *c == SqlState::CANNOT_CONNECT_NOW
        }
        // No server error: the driver's own, an I/O failure of the socket among them.
        None => {
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                if s.is::<std::io::Error>() {
                    return true;
                }
                source = s.source();
            }
            false
        }
    }
}

/// `postgres store NAME: WHAT: the server's message`, with the driver error as the
/// cause. The driver's own `Display` of a server error is only "db error"; the server's
/// message is what says what failed.
pub(crate) fn pg_error(name: &str, what: &str, e: postgres::Error) -> Error {
    if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) {
        return Error::with_source(
            ErrorKind::Store,
            format!("postgres store {name}: {what}: another writer held the memory for longer than this one waits"),
            e,
        );
    }
    let detail = match e.as_db_error() {
        Some(db) => db.message().to_owned(),
        None => e.to_string(),
    };
    Error::with_source(kind_of(&e), format!("postgres store {name}: {what}: {detail}"), e)
}

/// Extension to attach the memory and the failed step to a driver result.
pub(crate) trait Context<T> {
    /// Maps the error with [`pg_error`].
    fn ctx(self, name: &str, what: &str) -> cmem_core::Result<T>;

    /// As [`ctx`](Self::ctx), formatting `what` only on failure.
    fn ctx_with(self, name: &str, what: impl FnOnce() -> String) -> cmem_core::Result<T>;
}

impl<T> Context<T> for Result<T, postgres::Error> {
    fn ctx(self, name: &str, what: &str) -> cmem_core::Result<T> {
        self.map_err(|e| pg_error(name, what, e))
    }

    fn ctx_with(self, name: &str, what: impl FnOnce() -> String) -> cmem_core::Result<T> {
        self.map_err(|e| pg_error(name, &what(), e))
    }
}

/// Stored data that does not parse (runs, locales, points, metadata).
pub(crate) fn corrupt(name: &str, what: String, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::with_source(ErrorKind::Corrupt, format!("postgres store {name}: {what}"), e)
}

/// A plain store failure that is not the driver's.
pub(crate) fn store_error(name: &str, what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Store, format!("postgres store {name}: {what}"))
}
