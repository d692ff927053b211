//! The web page: `/` (HTML), `/page.js` and `/page.css`, embedded in the binary so
//! nothing needs building or installing to use it. It looks segments up and shows each
//! suggestion in a translator's words (Exact, Fuzzy 87 %, what was repaired, the notes
//! of codes that could not be placed, where the answer comes from), copies one with a
//! key (1–9) with its codes as the user chose; it edits and deletes entries with a write
//! token and a confirmation, through `revise`/`undo` (history kept, DESIGN.md §10.8);
//! it searches the memory with the hits marked, a page at a time, and imports a file
//! with a progress bar and its located problems. Plain form controls and a `<dialog>`,
//! so it works with the keyboard alone.
//!
//! The HTML carries the home memory's locale pairs as last counted ([`PagePairs`]), so
//! the lookup form has its From and To before `/v1/stats` answers.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use cmem::Stats;
use serde_json::json;

use crate::app::App;

const HTML: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/page.js");
const STYLE: &str = include_str!("page/page.css");

/// The data block of the HTML that [`index`] fills with the locale pairs: a
/// `<script type="application/json">`, which no browser runs (so the policy below allows
/// it) and the page's script reads.
const START: &str = r#"<script id="start" type="application/json">{}</script>"#;

/// Scripts and styles from this server only, and no framing: the page shows memory
/// text, which must never become markup or script.
const POLICY: &str = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn asset(body: impl IntoResponse, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// The home memory's locale pairs as last counted, as the JSON the page's HTML carries
/// (`{"pairs":[{"source":"en","target":"de"}]}`, no counts): kept when the server starts,
/// at each read for the HTML and at each `/v1/stats` answer for the home memory, so that
/// the HTML has pairs to carry when the store is slow to answer.
#[derive(Debug, Default)]
pub(crate) struct PagePairs(RwLock<String>);

impl PagePairs {
    /// Keeps the pairs of `stats`.
    pub(crate) fn keep(&self, stats: &Stats) {
        let pairs: Vec<_> = stats
            .pairs
            .iter()
            .map(|p| json!({ "source": p.source.as_str(), "target": p.target.as_str() }))
            .collect();
        // Inside a <script> element only `</script` (and `<!--`) would end or change it.
        let text = json!({ "pairs": pairs }).to_string().replace('<', "\\u003c");
        if let Ok(mut kept) = self.0.write() {
            *kept = text;
        }
    }

    /// The JSON kept (`{}` before any).
    fn json(&self) -> String {
        match self.0.read() {
            Ok(kept) if !kept.is_empty() => kept.clone(),
            _ => "{}".to_owned(),
        }
    }
}

/// How long `/` waits for the home memory's pairs to be read afresh (the kept counts, a
/// few rows: well under a millisecond on an idle server) before it answers with the
/// pairs kept from the last read.
const FRESH_PAIRS: Duration = Duration::from_millis(25);

/// `GET /`: the page, with the locale pairs for its form, unless reads need a token
/// (the HTML is served to anyone, and then says nothing of the memory). The pairs are
/// read afresh as `/v1/stats` reads them, waited for [`FRESH_PAIRS`] at most: behind a
/// long queue of lookups the kept pairs serve, and the read is dropped if no worker has
/// taken it by then.
pub(crate) async fn index(State(app): State<Arc<App>>) -> Response {
    let pairs = if app.config.read_needs_token {
        "{}".to_owned()
    } else {
        let read = app.blocking(|app| {
            app.page_pairs.keep(&app.memory().stats()?);
            Ok(())
        });
        // Late or failed, the kept pairs serve.
        let _ = tokio::time::timeout(FRESH_PAIRS, read).await;
        app.page_pairs.json()
    };
    let start = START.replace("{}", &pairs);
    asset(HTML.replacen(START, &start, 1), "text/html; charset=utf-8")
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

    /// The HTML has the data block the locale pairs go in, once; the pairs go in as
    /// JSON without their counts.
    #[test]
    fn the_html_carries_the_pairs_in_a_data_block() {
        assert_eq!(super::HTML.matches(super::START).count(), 1);
        let pairs = super::PagePairs::default();
        assert_eq!(pairs.json(), "{}");
        let pair = |s: &str, t: &str| cmem::PairCount {
            source: cmem::Locale::parse(s).unwrap(),
            target: cmem::Locale::parse(t).unwrap(),
            entries: 3,
        };
        let stats = cmem::Stats { pairs: vec![pair("en", "de"), pair("en", "fr")], ..Default::default() };
        pairs.keep(&stats);
        assert_eq!(
            pairs.json(),
            r#"{"pairs":[{"source":"en","target":"de"},{"source":"en","target":"fr"}]}"#
        );
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
