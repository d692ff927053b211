//! The one error type of `cmem-core`, shared by every store through the
//! [`ContentMemory`](crate::store::ContentMemory) trait.

use std::fmt;

/// What went wrong, for callers that branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A locale tag that is not valid BCP 47.
    InvalidLocale,
    /// A point that is not 1–3 non-empty `/`-separated segments.
    InvalidPoint,
    /// A run sequence that the model rejects (JSON or notation).
    InvalidRuns,
    /// An entry that cannot be stored as given (too few variants, duplicate locales…).
    InvalidEntry,
    /// A query whose options are out of range, or that exceeds a resource cap.
    InvalidQuery,
    /// The store could not be opened, read or written.
    Store,
    /// The store's schema is newer than this program, or otherwise incompatible.
    Schema,
    /// The stored data is corrupt.
    Corrupt,
    /// A recognizer rule set name or pattern that is not valid.
    InvalidRule,
    /// The store does not support the operation.
    Unsupported,
    /// The store cannot be reached now: its database server is down, restarting or
    /// refusing connections. Nothing was done; the same call may succeed later.
    Unavailable,
}

/// An error from the core model, lookup or a store.
///
/// Messages are lowercase and name the offending value. `Display` prints the message
/// alone; the cause (a driver or parse error), when there is one, is the error's
/// [`source`](std::error::Error::source), for the reporter to walk:
/// [`message_and_causes`](Error::message_and_causes) joins the chain on one line.
///
/// ```
/// use cmem_core::{Error, ErrorKind};
///
/// let cause = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied");
/// let e = Error::with_source(ErrorKind::Store, "sqlite store a.db: cannot open", cause);
/// assert_eq!(e.to_string(), "sqlite store a.db: cannot open");
/// assert_eq!(std::error::Error::source(&e).map(ToString::to_string).as_deref(), Some("permission denied"));
/// assert_eq!(e.message_and_causes(), "sqlite store a.db: cannot open: permission denied");
/// ```
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// The error stores return; the same type as [`Error`].
pub type StoreError = Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), source: None }
    }

    /// A new error of `kind` that wraps an underlying cause (a driver or I/O error).
    pub fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error { kind, message: message.into(), source: Some(Box::new(source)) }
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without the cause (as `Display` prints it).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, of the same kind and with the same cause, its message prefixed
    /// with what it concerns (`entry 3 of the batch: …`).
    #[must_use]
    pub fn prefixed(self, prefix: impl fmt::Display) -> Self {
        Error { message: format!("{prefix}: {}", self.message), ..self }
    }

    /// The message and each cause after it, joined by `": "`: the whole chain on one
    /// line, for reports that have no room for one cause a line (an HTTP answer's
    /// message, an exception's).
    pub fn message_and_causes(&self) -> String {
        let mut text = self.message.clone();
        let mut cause = std::error::Error::source(self);
        while let Some(e) = cause {
            text.push_str(": ");
            text.push_str(&e.to_string());
            cause = e.source();
        }
        text
    }

    pub(crate) fn invalid_runs(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidRuns, message)
    }

    pub(crate) fn invalid_query(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidQuery, message)
    }

    pub(crate) fn invalid_entry(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidEntry, message)
    }
}

/// The message alone: the cause is [`source`](std::error::Error::source)'s.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
