//! Errors: [`ApiError`], what a request gets back (`{error, message, details}` with its
//! status), and [`ServerError`], why the server could not start or run.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cmem::ErrorKind;
use serde_json::{json, Value};

/// An error answer: a status, a stable machine-readable code (`invalid_query`,
/// `unauthorized`, …), a message for people and details (or `null`).
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The stable code, snake case.
    pub error: &'static str,
    /// What failed, for people.
    pub message: String,
    /// More about it: the field, the index of a batch segment, a limit.
    pub details: Value,
}

impl ApiError {
    /// An error with no details.
    pub fn new(status: StatusCode, error: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, error, message: message.into(), details: Value::Null }
    }

    /// `400 bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// `404 not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// Adds details.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// Adds details naming the request field at fault.
    #[must_use]
    pub fn in_field(self, field: &str) -> Self {
        self.with_details(json!({ "field": field }))
    }

    /// The body as JSON.
    pub fn body(&self) -> Value {
        json!({ "error": self.error, "message": self.message, "details": self.details })
    }
}

impl From<cmem::Error> for ApiError {
    fn from(e: cmem::Error) -> Self {
        let (status, code) = match e.kind() {
            ErrorKind::InvalidLocale => (StatusCode::BAD_REQUEST, "invalid_locale"),
            ErrorKind::InvalidPoint => (StatusCode::BAD_REQUEST, "invalid_point"),
            ErrorKind::InvalidRuns => (StatusCode::BAD_REQUEST, "invalid_runs"),
            ErrorKind::InvalidEntry => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_entry"),
            ErrorKind::InvalidQuery => (StatusCode::BAD_REQUEST, "invalid_query"),
            ErrorKind::InvalidRule => (StatusCode::BAD_REQUEST, "invalid_rule"),
            ErrorKind::Unsupported => (StatusCode::NOT_IMPLEMENTED, "unsupported"),
            ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "store"),
        };
        // One message for the client: the error's and its causes' (a driver's error).
        ApiError::new(status, code, e.message_and_causes())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body())).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            // The memory's database is down or a request ran out of time: worth a retry.
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

/// Why the server could not start or stopped with an error.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerError {
    /// The memory could not be read while starting (its statistics, its index).
    Memory(cmem::Error),
    /// The listening socket could not be bound, or serving failed.
    Io {
        /// What was being done (`binding 127.0.0.1:8080`).
        doing: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// Its own message only: the memory's error (`server: ` before it) or what was being
/// done; the causes after it are [`source`](std::error::Error::source)'s.
impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerError::Memory(e) => write!(f, "server: {e}"),
            ServerError::Io { doing, .. } => write!(f, "server: {doing}"),
        }
    }
}

impl std::error::Error for ServerError {
    /// The memory error's cause (its message is this error's), or the I/O error.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerError::Memory(e) => std::error::Error::source(e),
            ServerError::Io { source, .. } => Some(source),
        }
    }
}

impl From<cmem::Error> for ServerError {
    fn from(e: cmem::Error) -> Self {
        ServerError::Memory(e)
    }
}
