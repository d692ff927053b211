//! amaGama's protocol, as Weblate's, Pootle's and Virtaal's "tmserver" clients speak it:
//! `GET /tmserver/{source}/{target}/unit/{text}` (or `…/unit/?source=TEXT`, and the same
//! under `/api/v1/`) answers a bare JSON array of `{source, target, quality, rank}`;
//! `GET /tmserver/languages/` the locales held.
//!
//! Locale codes are read case-insensitively with `_` and `-` alike (`pt_br` is
//! `pt-BR`), and a lookup falls back to other regions of a language as every lookup
//! does (docs/matching.md §3); `languages/` lists each base language beside the
//! regional codes held, since clients such as Weblate ask for `de` before they would
//! ask for `de_de`. A pair that cannot match — the same language on both sides, a code
//! that is not a locale, locales the memory does not hold — answers `[]`, as amaGama
//! does, never `404`: clients ask for every pair of their project. A server that serves
//! some pairs only (`--pairs`) answers another pair `421` (the `pairs` module) and lists
//! only its pairs' codes in `languages/`.
//!
//! The text is read with the clients' placeholder masks as codes (Weblate's `[X20X]`,
//! [`cmem::client_masks`]), so a masked `Could not open file [X20X]` matches the stored
//! `Could not open file %s` exactly and its suggestion carries `[X20X]` where the
//! stored target had `%s`. A match whose target could not carry every code of the
//! query is not suggested: the client would get a translation without a placeholder
//! its string needs.
//!
//! Clients that cannot send an `Authorization` header give a read token in the path:
//! `/t/TOKEN/tmserver/…` (and `/t/TOKEN/api/v1/…`). The token is checked like a bearer
//! token; these routes only read. Of several memories, `/m/NAME/tmserver/…` asks one
//! (`/t/TOKEN/m/NAME/…` with a token). Each endpoint is one handler, served at the root
//! and below every such prefix ([`routes`]); the handlers read the prefix's parts
//! ([`Prefix`]).

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use cmem::{
    client_masks, prepare_query, Locale, LookupOptions, LookupRequest, MaskedText, Match, QueryText, Run,
    SegmentView,
};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::answers::{etag, matches};
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
struct UnitParams {
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    min_similarity: Option<f64>,
    #[serde(default)]
    max_candidates: Option<usize>,
    #[serde(default)]
    jsoncallback: Option<String>,
}

/// The optional parts of an amaGama path before `tmserver/` (or `api/v1/`): a read token
/// for clients that cannot send a header (`/t/{token}`), and one memory of several
/// (`/m/{memory}`). Extracted as `Path<Prefix>` from the route's captures, whichever
/// the route has, so that one handler serves a route under every prefix ([`routes`]).
#[derive(Debug, Deserialize)]
struct Prefix {
    /// The read token given in the path.
    #[serde(default)]
    token: Option<String>,
    /// The memory asked, of several.
    #[serde(default)]
    memory: Option<String>,
}

impl Prefix {
    /// Lets the request read: by the token in its path when it gives one (these routes
    /// only read), else by its bearer token.
    async fn authorize(&self, app: &Arc<App>, headers: &HeaderMap) -> Result<(), ApiError> {
        match &self.token {
            Some(token) => app.authorize_secret(Some(token.clone()), Scope::Read).await?,
            None => app.authorize(headers, Scope::Read).await?,
        };
        Ok(())
    }

    /// The memories asked: one of several, or `None` for all.
    fn names(&self) -> Option<Vec<String>> {
        self.memory.clone().map(|m| vec![m])
    }
}

/// The amaGama routes, to be served at the root and below each [`Prefix`]: `tmserver/`
/// and its `api/v1/` alias, each with the unit's text in the path or as `?source=`, and
/// `languages` with the trailing slash (Weblate asks so) and without (other clients).
pub(crate) fn routes() -> Router<Arc<App>> {
    let mut router = Router::new();
    for root in ["/tmserver", "/api/v1"] {
        router = router
            .route(&format!("{root}/{{source}}/{{target}}/unit/"), get(unit))
            .route(&format!("{root}/{{source}}/{{target}}/unit/{{text}}"), get(unit))
            .route(&format!("{root}/languages/"), get(languages))
            .route(&format!("{root}/languages"), get(languages));
    }
    router
}

/// The captures of a unit's route: the locale codes and, unless it is given as
/// `?source=`, the text.
#[derive(Debug, Deserialize)]
struct UnitPath {
    source: String,
    target: String,
    #[serde(default)]
    text: Option<String>,
}

/// `GET /tmserver/{source}/{target}/unit/{text}` and `…/unit/?source=TEXT`, under every
/// [`Prefix`].
async fn unit(
    State(app): State<Arc<App>>,
    Path(path): Path<UnitPath>,
    Path(prefix): Path<Prefix>,
    headers: HeaderMap,
    params: Result<Query<UnitParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(mut params) = params.map_err(query_error)?;
    prefix.authorize(&app, &headers).await?;
    let text = match path.text {
        Some(text) => text,
        None => source_param(&mut params)?,
    };
    answer(app, &headers, (prefix.names(), path.source, path.target), text, params).await
}

/// The text of `…/unit/?source=TEXT`.
fn source_param(params: &mut UnitParams) -> Result<String, ApiError> {
    params.source.take().ok_or_else(|| {
        ApiError::bad_request("give the text in the path (…/unit/TEXT) or as ?source=TEXT").in_field("source")
    })
}

/// A JSONP callback name: a JavaScript identifier path, nothing that could run.
fn valid_callback(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 100
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
}

/// The suggestions for `text` from the memories `names` of several (`None`: all), the
/// caller authorized: from the answer cache while no memory has changed, with an `ETag`
/// (`304` when the client has that answer).
async fn answer(
    app: Arc<App>,
    headers: &HeaderMap,
    (names, source, target): (Option<Vec<String>>, String, String),
    text: String,
    params: UnitParams,
) -> Result<Response, ApiError> {
    let selection = app.selection(names.as_deref())?;
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
    let callback = params.jsoncallback.clone().unwrap_or_default();
    let (units, mark, key) = match (Locale::parse(&source), Locale::parse(&target)) {
        (Ok(s), Ok(t)) if !s.matches(&t) && s.language() != t.language() => {
            // A pair another server answers: the proxy in front sent it astray.
            app.check_pair(&s, &t)?;
            // By canonical tags: `de_DE` and `de-de` ask the same.
            let mut key = format!("{s}\0{t}\0{min}\0{max}\0{callback}\0{text}");
            // Of several memories, the answer is the memories asked's.
            if let (true, Some(names)) = (app.named, &names) {
                key = format!("{}\0{key}", names.join("\0"));
            }
            let answer_key = key.clone();
            let (units, mark) = app
                .blocking(move |app| {
                    // Read before the answer is computed: an answer kept under this mark never
                    // predates a write the mark counts.
                    let mark = app.change_mark()?;
                    if let Some(hit) = mark.and_then(|m| app.answers.get(m, &answer_key)) {
                        return Ok((hit, mark));
                    }
                    // The client's `max_candidates` is the limit: asking for 5 does the work of
                    // 5. A match left out below is not replaced.
                    let options = LookupOptions::default().threshold(min / 100.0).limit(max);
                    let lookup = |req: &LookupRequest| -> cmem::Result<Vec<Match>> {
                        Ok(if app.named {
                            app.lookup_in(&selection, req)?.into_iter().map(|(_, m)| m).collect()
                        } else {
                            app.memory().lookup(req)?
                        })
                    };
                    let matches = masked_lookup(&text, app.recognizer.as_ref(), (s, t), options, lookup)?;
                    let units = matches
                        .iter()
                        .filter(|m| carries_every_query_code(m))
                        .map(|m| {
                            let quality = (m.score * 10_000.0).round() / 100.0;
                            json!({
                                "source": SegmentView::of(None, m.source()).text,
                                "target": SegmentView::of(None, &m.adapted_target).text,
                                "quality": quality,
                                "rank": quality,
                            })
                        })
                        .collect::<Vec<_>>();
                    let units = Arc::new(Value::Array(units));
                    if let Some(m) = mark {
                        app.answers.put(m, answer_key, Arc::clone(&units));
                    }
                    Ok((units, mark))
                })
                .await?;
            (units, mark, key)
        }
        _ => (Arc::new(Value::Array(Vec::new())), None, String::new()),
    };
    let Some(mark) = mark else {
        return Ok(respond(&units, params.jsoncallback.as_deref()));
    };
    let tag = etag(mark, &key);
    let known =
        headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| matches(v, &tag));
    let mut response = if known {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        respond(&units, params.jsoncallback.as_deref())
    };
    if let Ok(value) = HeaderValue::from_str(&tag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    // Kept by clients, but asked again each time: the answer changes with the memory.
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// How many characters of its (masked) text Weblate's tmserver client sends at most.
const CLIENT_CUT: usize = 500;

/// The smallest similarity, and the number, of the matches a masked query is read back
/// against ([`masked_lookup`]): a source that is exact once unmasked scores lower masked
/// (every mask a code of another kind, a directive's letter as text), so the first look
/// goes deeper than the client's threshold, as deep as its masks can cost
/// ([`probe_threshold`]) and never below this.
const PROBE_THRESHOLD: f64 = 0.5;
const PROBE_LIMIT: usize = 20;

/// How many candidates the probe scores: the source a masked text came from shares most
/// of its words, so it is among the first offered; a short text of masks would otherwise
/// read half the index at 50 %.
const PROBE_CANDIDATES: usize = 60;

/// The characters of the key a mask can differ in from the stored code it stands for:
/// its placeholder's form (`{1/}` for `{1}`, `{/1}`), the codes after it renumbered when
/// it covers two, a letter glued to it, and the text between two masks of one stored
/// code (`[X5X]name[X11X]` for `{{name}}`).
const MASK_COST: usize = 8;

/// How low a masked query (`runs`, masks as codes) can score against the stored source
/// it came from: each mask costs at most [`MASK_COST`] characters of the key, which holds
/// the text and about four characters a code. Long texts with few masks need not look
/// far below the client's `threshold`; short ones made of masks look down to
/// [`PROBE_THRESHOLD`].
fn probe_threshold(runs: &[Run], threshold: f64) -> f64 {
    let codes = runs.iter().filter(|r| r.code().is_some()).count();
    let text: usize = runs.iter().map(|r| if let Run::Text(t) = r { t.chars().count() } else { 0 }).sum();
    let key = text + 4 * codes;
    let floor = if key == 0 { 0.0 } else { 1.0 - (MASK_COST * codes) as f64 / key as f64 };
    floor.clamp(PROBE_THRESHOLD, threshold.max(PROBE_THRESHOLD))
}

/// How many different strings a masked text may be read back to (`[X0X] of [X10X]` is
/// `%s of %s` as much as `%1 of %2`): each is looked up, and their matches merged.
const READINGS: usize = 3;

/// The matches of a client's `text` (masks and all, as sent) in `pair`.
///
/// A text with client masks is first looked up as it is, its masks as codes; the first
/// stored source of those matches whose text has the query's literal pieces exactly where
/// the masks' offsets put them is the string the client masked (docs/matching.md §4,
/// "Client masks"). The lookup then runs on that string, recognized as any query is, so
/// it scores as the unmasked query would, with the masks as its codes' data: each
/// suggestion carries a mask where the stored target had the code, with the letters a
/// mask cut off a directive after it (`[X20X]u` for `%ju`). A text no stored source
/// unmasks is looked up with its masks as codes. A text of exactly the client's cut is
/// read as the start of its string.
fn masked_lookup(
    text: &str,
    recognizer: Option<&cmem::Recognizer>,
    (source, target): (Locale, Locale),
    options: LookupOptions,
    lookup: impl Fn(&LookupRequest) -> cmem::Result<Vec<Match>>,
) -> cmem::Result<Vec<Match>> {
    let runs = client_masks(prepare_query(QueryText::Plain(text), recognizer)?);
    let ask = |runs: Vec<Run>, options: LookupOptions| {
        lookup(&LookupRequest::new(runs, source.clone(), target.clone()).options(options))
    };
    let Some(masked) = MaskedText::parse(text, Some(CLIENT_CUT)) else {
        return ask(runs, options);
    };
    // Most masked texts match their entry exactly with masks as codes (`Open [X5X]` as
    // `Open %s`): that answer is the unmasked string's already, when its source reads
    // back (`[X0X][X3X][X5X]` is exact with `&lt;%1&gt;` too, whose first code is no
    // three characters).
    let direct = ask(runs.clone(), options.clone())?;
    if direct.first().is_some_and(|m| m.score >= 1.0 && masked.unmask(m.source()).is_some()) {
        return Ok(direct);
    }
    // The probe reads sources only: no word repair of its matches.
    let probe = options
        .clone()
        .threshold(probe_threshold(&runs, options.threshold))
        .limit(PROBE_LIMIT)
        .max_candidates(PROBE_CANDIDATES)
        .verify_budget(PROBE_CANDIDATES)
        .word_repair(cmem::RepairBands::OFF);
    let mut found: Vec<cmem::Unmasked> = Vec::new();
    for m in ask(runs.clone(), probe)? {
        if let Some(unmasked) = masked.unmask(m.source()) {
            if !found.iter().any(|u| u.text() == unmasked.text()) {
                found.push(unmasked);
            }
        }
    }
    // The readings whose masks each stand for one code first, then in the probe's order.
    found.sort_by_key(cmem::Unmasked::loose);
    let mut readings: Vec<Vec<Run>> = Vec::new();
    for unmasked in found {
        let original = prepare_query(QueryText::Plain(unmasked.text()), recognizer)?;
        if let Some(remasked) = unmasked.remask(original) {
            readings.push(remasked);
            if readings.len() == READINGS {
                break;
            }
        }
    }
    if readings.is_empty() {
        return Ok(direct);
    }
    // Every reading's matches, each suggestion once at its best, best first (a stable
    // sort: equal scores keep the first reading's order). Of several memories, ids may
    // repeat: a suggestion is its entry's id, source and adapted target.
    let limit = options.limit;
    let same = |a: &Match, b: &Match| {
        a.entry.id == b.entry.id && a.source() == b.source() && a.adapted_target == b.adapted_target
    };
    let mut merged: Vec<Match> = Vec::new();
    for reading in readings {
        for m in ask(reading, options.clone())? {
            match merged.iter_mut().find(|k| same(k, &m)) {
                Some(kept) if kept.score >= m.score => {}
                Some(kept) => *kept = m,
                None => merged.push(m),
            }
        }
    }
    merged.sort_by(|a, b| b.score.total_cmp(&a.score));
    merged.truncate(limit);
    Ok(merged)
}

/// True when the adapted target holds every code of the query: a suggestion without a
/// placeholder of the client's string is worse than none (the client's own check would
/// fail it, or a translator would miss it).
///
/// A stored code that the stored target itself does without is no code the suggestion
/// lost when it is a character reference (`&#215;` translated as `×`): the unmasked
/// string's lookup shows that target as it is.
fn carries_every_query_code(m: &Match) -> bool {
    m.code_adaptations.iter().all(|a| {
        a.applied
            || a.to.is_none()
            || a.from.as_ref().is_some_and(|c| c.data.starts_with('&') && c.data.ends_with(';'))
    })
}

/// JSON, or JSONP when a callback is named.
fn respond(body: &Value, callback: Option<&str>) -> Response {
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

/// The source and target codes a memory holds, in amaGama's form.
type Codes = (BTreeSet<String>, BTreeSet<String>);

/// The codes each memory served holds, kept under its change mark: clients ask
/// `languages/` before every lookup they have not cached, and the pairs held change only
/// when the memory does. A store without a change mark is asked each time.
#[derive(Debug, Default)]
pub(crate) struct Languages {
    kept: std::sync::Mutex<std::collections::HashMap<usize, (u64, Codes)>>,
}

impl Languages {
    /// The codes `memory`, member `member` of those served, holds: of its pairs
    /// `served` covers, when the server serves some only.
    pub(crate) fn codes(
        &self,
        memory: &cmem::Memory,
        member: usize,
        served: Option<&crate::pairs::Pairs>,
    ) -> cmem::Result<Codes> {
        let mark = memory.change_mark()?;
        if let (Some(mark), Ok(kept)) = (mark, self.kept.lock()) {
            if let Some((at, codes)) = kept.get(&member) {
                if *at == mark {
                    return Ok(codes.clone());
                }
            }
        }
        let mut codes = Codes::default();
        for pair in memory.stats()?.pairs {
            if served.is_some_and(|s| !s.covers(&pair.source, &pair.target)) {
                continue;
            }
            codes_of(&pair.source, &mut codes.0);
            codes_of(&pair.target, &mut codes.1);
        }
        if let (Some(mark), Ok(mut kept)) = (mark, self.kept.lock()) {
            kept.insert(member, (mark, codes.clone()));
        }
        Ok(codes)
    }
}

/// amaGama's code form of a locale: lower case, `_` between subtags (`pt_br`), the form
/// Weblate maps its own codes to before comparing.
fn code(locale: &Locale) -> String {
    locale.as_str().replace('-', "_").to_lowercase()
}

/// The codes a client may ask for a locale held: its own (`de_de`) and its base
/// language (`de`), which the lookup's regional fallback answers.
fn codes_of(locale: &Locale, out: &mut BTreeSet<String>) {
    out.insert(code(locale));
    out.insert(locale.language().to_lowercase());
}

/// `GET /tmserver/languages/` (and without the slash), under every [`Prefix`]:
/// `{"sourceLanguages": [...], "targetLanguages": [...]}`, the locales of the memories
/// asked.
async fn languages(
    State(app): State<Arc<App>>,
    Path(prefix): Path<Prefix>,
    headers: HeaderMap,
    params: Result<Query<UnitParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    prefix.authorize(&app, &headers).await?;
    let names = prefix.names();
    let selection = app.selection(names.as_deref())?;
    let Query(params) = params.map_err(query_error)?;
    if let Some(cb) = params.jsoncallback.as_deref().filter(|cb| !valid_callback(cb)) {
        return Err(ApiError::bad_request(format!("jsoncallback {cb:?} is not a JavaScript name")));
    }
    let codes = app
        .blocking(move |app| {
            let members = app.memories().members();
            let served = app.config.pairs.as_ref();
            let codes = selection.iter().map(|&i| app.languages.codes(&members[i].memory, i, served));
            Ok(codes.collect::<cmem::Result<Vec<_>>>()?)
        })
        .await?;
    let (mut sources, mut targets) = (BTreeSet::new(), BTreeSet::new());
    for held in codes {
        sources.extend(held.0);
        targets.extend(held.1);
    }
    let body = json!({ "sourceLanguages": sources, "targetLanguages": targets });
    Ok(respond(&body, params.jsoncallback.as_deref()))
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
