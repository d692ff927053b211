//! amaGama's protocol, as Weblate's, Pootle's and Virtaal's "tmserver" clients speak it:
//! `GET /tmserver/{source}/{target}/unit/{text}` (or `…/unit/?source=TEXT`, and the same
//! under `/api/v1/`) answers a bare JSON array of `{source, target, quality, rank}`;
//! `GET /tmserver/languages/` the locales held.
//!
//! Locale codes are read case-insensitively with `_` and `-` alike (`pt_br` is
//! `pt-BR`). A pair that cannot match — the same language on both sides, a code that is
//! not a locale, locales the memory does not hold — answers `[]`, as amaGama does, never
//! `404`: clients ask for every pair of their project.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cmem::{prepare_query, Locale, LookupOptions, LookupRequest, QueryText, SegmentView};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::App;
use crate::error::ApiError;
use crate::native::query_error;
use crate::token::Scope;

/// amaGama's defaults: matches of 70 % or more, five of them at most.
const DEFAULT_MIN_SIMILARITY: f64 = 70.0;
const DEFAULT_MAX_CANDIDATES: usize = 5;
const MAX_CANDIDATES: usize = 100;

/// The query string of a unit request.
#[derive(Debug, Deserialize)]
pub(crate) struct UnitParams {
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    min_similarity: Option<f64>,
    #[serde(default)]
    max_candidates: Option<usize>,
    #[serde(default)]
    jsoncallback: Option<String>,
}

/// `GET /tmserver/{source}/{target}/unit/{text}`.
pub(crate) async fn unit(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((source, target, text)): Path<(String, String, String)>,
    params: Result<Query<UnitParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(params) = params.map_err(query_error)?;
    answer(app, headers, source, target, text, params).await
}

/// `GET /tmserver/{source}/{target}/unit/?source=TEXT`.
pub(crate) async fn unit_query(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((source, target)): Path<(String, String)>,
    params: Result<Query<UnitParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(mut params) = params.map_err(query_error)?;
    let Some(text) = params.source.take() else {
        return Err(ApiError::bad_request("give the text in the path (…/unit/TEXT) or as ?source=TEXT")
            .in_field("source"));
    };
    answer(app, headers, source, target, text, params).await
}

/// A JSONP callback name: a JavaScript identifier path, nothing that could run.
fn valid_callback(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 100
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
}

async fn answer(
    app: Arc<App>,
    headers: HeaderMap,
    source: String,
    target: String,
    text: String,
    params: UnitParams,
) -> Result<Response, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let min = params.min_similarity.unwrap_or(DEFAULT_MIN_SIMILARITY);
    if !(0.0..=100.0).contains(&min) {
        return Err(ApiError::bad_request(format!("min_similarity {min} is not a percentage 0–100"))
            .in_field("min_similarity"));
    }
    let max = params.max_candidates.unwrap_or(DEFAULT_MAX_CANDIDATES);
    if !(1..=MAX_CANDIDATES).contains(&max) {
        return Err(ApiError::bad_request(format!("max_candidates {max} is not 1–{MAX_CANDIDATES}"))
            .in_field("max_candidates"));
    }
    if let Some(cb) = params.jsoncallback.as_deref().filter(|cb| !valid_callback(cb)) {
        return Err(ApiError::bad_request(format!("jsoncallback {cb:?} is not a JavaScript name"))
            .in_field("jsoncallback"));
    }
    let units = match (Locale::parse(&source), Locale::parse(&target)) {
        (Ok(s), Ok(t)) if !s.matches(&t) && s.language() != t.language() => {
            app.blocking(move |app| {
                let runs = prepare_query(QueryText::Plain(&text), app.recognizer.as_ref())?;
                let options = LookupOptions::default().threshold(min / 100.0).limit(max);
                let matches = app.memory.lookup(&LookupRequest::new(runs, s, t).options(options))?;
                Ok(matches
                    .iter()
                    .map(|m| {
                        let quality = (m.score * 10_000.0).round() / 100.0;
                        json!({
                            "source": SegmentView::of(None, m.source()).text,
                            "target": SegmentView::of(None, &m.adapted_target).text,
                            "quality": quality,
                            "rank": quality,
                        })
                    })
                    .collect::<Vec<_>>())
            })
            .await?
        }
        _ => Vec::new(),
    };
    Ok(respond(Value::Array(units), params.jsoncallback.as_deref()))
}

/// JSON, or JSONP when a callback is named.
fn respond(body: Value, callback: Option<&str>) -> Response {
    match callback {
        None => Json(body).into_response(),
        Some(cb) => {
            let mut r = (StatusCode::OK, format!("{cb}({body});")).into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/javascript; charset=utf-8"),
            );
            r
        }
    }
}

/// amaGama's code form of a locale: lower case, `_` between subtags (`pt_br`), the form
/// Weblate maps its own codes to before comparing.
fn code(locale: &Locale) -> String {
    locale.as_str().replace('-', "_").to_lowercase()
}

/// `GET /tmserver/languages/`: `{"sourceLanguages": [...], "targetLanguages": [...]}`.
pub(crate) async fn languages(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    params: Result<Query<UnitParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Query(params) = params.map_err(query_error)?;
    if let Some(cb) = params.jsoncallback.as_deref().filter(|cb| !valid_callback(cb)) {
        return Err(ApiError::bad_request(format!("jsoncallback {cb:?} is not a JavaScript name")));
    }
    let stats = app.blocking(|app| Ok(app.memory.store().stats()?)).await?;
    let sources: BTreeSet<String> = stats.pairs.iter().map(|p| code(&p.source)).collect();
    let targets: BTreeSet<String> = stats.pairs.iter().map(|p| code(&p.target)).collect();
    let body = json!({ "sourceLanguages": sources, "targetLanguages": targets });
    Ok(respond(body, params.jsoncallback.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callbacks_are_names_only() {
        assert!(valid_callback("cb"));
        assert!(valid_callback("jQuery123_456.done"));
        assert!(!valid_callback(""));
        assert!(!valid_callback("alert(1)"));
        assert!(!valid_callback("1cb"));
        assert!(!valid_callback(&"a".repeat(101)));
    }

    #[test]
    fn codes_are_lower_case_with_underscores() {
        assert_eq!(code(&Locale::parse("pt-BR").unwrap()), "pt_br");
        assert_eq!(code(&Locale::parse("de").unwrap()), "de");
        assert_eq!(Locale::parse("PT_br").unwrap(), Locale::parse("pt-BR").unwrap());
    }
}
