//! The web page: `/` (HTML), `/page.js` and `/page.css`, embedded in the binary so
//! nothing needs building or installing to use it. It looks segments up and shows each
//! suggestion in a translator's words (Exact, Fuzzy 87 %, what was repaired, the notes
//! of codes that could not be placed, where the answer comes from), copies one with a
//! key (1–9) with its codes as the user chose; it edits and deletes entries with a write
//! token and a confirmation, through `revise`/`undo` (history kept, DESIGN.md §10.8);
//! it searches the memory with the hits marked, a page at a time, and imports a file
//! with a progress bar and its located problems. Plain form controls and a `<dialog>`,
//! so it works with the keyboard alone.

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

#[cfg(test)]
mod tests {
    use cmem::formats::registry::{self, FormatSpec};

    /// The values of the `<select id="ID">` of the page.
    fn options(id: &str) -> Vec<String> {
        let start = super::HTML.find(&format!("<select id=\"{id}\"")).unwrap();
        let select = &super::HTML[start..start + super::HTML[start..].find("</select>").unwrap()];
        select
            .split("<option")
            .skip(1)
            .map(|o| match o.split_once("value=\"") {
                Some((_, rest)) => rest.split('"').next().unwrap().to_owned(),
                None => o.split_once('>').unwrap().1.split('<').next().unwrap().to_owned(),
            })
            .collect()
    }

    /// The page's format lists are the format registry's: every format an upload can be
    /// imported in, and formats the server writes without a locale pair.
    #[test]
    fn the_page_offers_the_registrys_formats() {
        assert_eq!(options("import-format"), registry::names(FormatSpec::can_import_stream));
        let exports = options("export-format");
        assert!(!exports.is_empty());
        for name in exports {
            assert!(registry::by_name(&name).is_some_and(|f| f.can_export() && !f.one_pair), "{name}");
        }
    }
}
