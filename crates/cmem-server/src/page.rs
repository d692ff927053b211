//! The web page: `/` (HTML), `/page.js` and `/page.css`, embedded in the binary so
//! nothing needs building or installing to use it. It looks segments up (score, match
//! type, the words that differ from the query, the adapted target, origins), edits a
//! match's plain-text target (`PUT /v1/entries/{id}` with a write token), searches the
//! memory with the hits marked, and imports a file with a progress bar; plain form
//! controls, so it works with the keyboard alone.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

const HTML: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/page.js");
const STYLE: &str = include_str!("page/page.css");

/// Scripts and styles from this server only, and no framing: the page shows memory
/// text, which must never become markup or script.
const POLICY: &str = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// `GET /`.
pub(crate) async fn index() -> Response {
    asset(HTML, "text/html; charset=utf-8")
}

/// `GET /page.js`.
pub(crate) async fn script() -> Response {
    asset(SCRIPT, "text/javascript; charset=utf-8")
}

/// `GET /page.css`.
pub(crate) async fn style() -> Response {
    asset(STYLE, "text/css; charset=utf-8")
}
