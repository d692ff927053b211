//! The native API under `/v1`: lookups (one segment or a batch), concordance search,
//! entries, statistics. Matches are the library's [`cmem::MatchView`], the JSON of
//! `cmem lookup --json`.

use std::sync::Arc;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cmem::{
    client_masks, prepare_query, AttributePenalty, EntryId, Locale, LookupAnswer, LookupOptions,
    LookupRequest, MatchView, NeighboursBody, NewEntry, Point, QueryContext, QueryText, Run, SearchQuery,
    SegmentView, VersionQuery,
};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::app::App;
use crate::error::ApiError;
use crate::pairs::PathPair;
use crate::token::Scope;

/// The most matches one lookup may ask for.
const MAX_LIMIT: usize = 100;

/// The options every lookup shares, as a request gives them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LookupBody {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    notation: Option<String>,
    #[serde(default)]
    runs: Option<Value>,
    source_locale: String,
    target_locale: String,
    /// Percent, 0–100 (default 70).
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    point: Option<String>,
    /// Read placeholder masks of translation tools (Weblate's `[X20X]`) in `text` as
    /// codes (docs/matching.md §4).
    #[serde(default)]
    client_masks: bool,
    /// Attribute penalties, as the CLI's `--penalty` (`origin:mt=10`).
    #[serde(default)]
    penalties: Vec<String>,
    /// Where the segment stands in its document.
    #[serde(default)]
    context: Option<NeighboursBody>,
    /// Of several memories served, the ones asked (default: all).
    #[serde(default)]
    memories: Option<Vec<String>>,
    /// Add the fragments: stretches of the segment the memory translates consistently.
    #[serde(default)]
    fragments: bool,
    /// Add the terms: the glossary's terms the segment holds, with their translations.
    #[serde(default)]
    terms: bool,
}

/// The lookup's context of a request's neighbours (`cmem::NeighboursBody`: the unit's key
/// and the neighbours' source texts); `field` names it in errors.
fn parse_context(body: &NeighboursBody, field: &str) -> Result<QueryContext, ApiError> {
    body.parse().map_err(|e| ApiError::from(e).in_field(field))
}

/// The attribute penalties of a request (`origin:mt=10`), parsed as the CLI's.
fn penalties(rules: &[String]) -> Result<Vec<AttributePenalty>, ApiError> {
    rules
        .iter()
        .enumerate()
        .map(|(i, rule)| {
            rule.parse::<AttributePenalty>()
                .map_err(|e| ApiError::from(e).with_details(json!({ "field": format!("penalties[{i}]") })))
        })
        .collect()
}

/// One segment of a batch.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BatchSegment {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    notation: Option<String>,
    #[serde(default)]
    runs: Option<Value>,
    /// Where this segment stands in its document.
    #[serde(default)]
    context: Option<NeighboursBody>,
}

/// A batch lookup: segments and the options they share.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BatchBody {
    segments: Vec<BatchSegment>,
    source_locale: String,
    target_locale: String,
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    point: Option<String>,
    /// As [`LookupBody`]'s.
    #[serde(default)]
    client_masks: bool,
    /// As [`LookupBody`]'s.
    #[serde(default)]
    penalties: Vec<String>,
    /// As [`LookupBody`]'s.
    #[serde(default)]
    memories: Option<Vec<String>>,
}

/// The parsed options of a lookup.
pub(crate) struct Target {
    pub(crate) source: Locale,
    pub(crate) target: Locale,
    pub(crate) options: LookupOptions,
}

/// The locales and lookup options of a request; a `400` naming the field at fault.
pub(crate) fn target(
    source: &str,
    target: &str,
    threshold: Option<f64>,
    limit: Option<usize>,
    point: Option<&str>,
    rules: &[String],
) -> Result<Target, ApiError> {
    let field = |name: &'static str| move |e: cmem::Error| ApiError::from(e).in_field(name);
    let source = Locale::parse(source).map_err(field("source_locale"))?;
    let target = Locale::parse(target).map_err(field("target_locale"))?;
    let threshold = threshold.unwrap_or(LookupOptions::default().threshold * 100.0);
    if !(0.0..=100.0).contains(&threshold) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            format!("threshold {threshold} is not a percentage 0–100"),
        )
        .in_field("threshold"));
    }
    let limit = limit.unwrap_or(LookupOptions::default().limit);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            format!("limit {limit} is not 1–{MAX_LIMIT}"),
        )
        .in_field("limit"));
    }
    let point = point.map(Point::parse).transpose().map_err(field("point"))?;
    let options = LookupOptions::default()
        .threshold(threshold / 100.0)
        .limit(limit)
        .maybe_point(point)
        .penalties(penalties(rules)?);
    Ok(Target { source, target, options })
}

/// The pair of a request's `source_locale` and `target_locale`: the path's, when it
/// names one, and a pair this server serves.
pub(crate) fn check_locales(
    app: &App,
    pair: Option<Extension<PathPair>>,
    t: &Target,
) -> Result<(), ApiError> {
    let path = pair.map(|Extension(p)| p);
    app.check_request_pair(path.as_ref(), (&t.source, &t.target), ("source_locale", "target_locale"))
}

/// A locale the request may give, read from field `field`.
pub(crate) fn optional_locale(field: &str, tag: Option<&str>) -> Result<Option<Locale>, ApiError> {
    tag.map(Locale::parse).transpose().map_err(|e| ApiError::from(e).in_field(field))
}

/// The runs of a segment given as exactly one of text (codes recognized, and client
/// masks when `masks`), notation or runs.
fn segment_runs(
    app: &App,
    text: Option<&str>,
    notation: Option<&str>,
    runs: Option<&Value>,
    masks: bool,
) -> Result<Vec<Run>, ApiError> {
    let query = match (text, notation, runs) {
        (Some(t), None, None) if masks => {
            prepare_query(QueryText::Plain(t), app.recognizer.as_ref()).map(client_masks)
        }
        (Some(t), None, None) => prepare_query(QueryText::Plain(t), app.recognizer.as_ref()),
        (None, Some(n), None) => prepare_query(QueryText::Notation(n), None),
        (None, None, Some(r)) => prepare_query(QueryText::RunsJson(&r.to_string()), None),
        _ => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_query",
                "give exactly one of \"text\", \"notation\" or \"runs\"",
            ))
        }
    };
    Ok(query?)
}

/// The request of one lookup of `runs`.
fn request(t: &Target, runs: Vec<Run>, context: Option<QueryContext>) -> LookupRequest {
    let req = LookupRequest::new(runs, t.source.clone(), t.target.clone()).options(t.options.clone());
    match context {
        Some(context) => req.context(context),
        None => req,
    }
}

/// The answer of a lookup over the memories `selection` of several, each match naming
/// its memory: the fields of [`LookupAnswer`].
fn named_answer(app: &App, selection: &[usize], req: &LookupRequest) -> Result<Map<String, Value>, ApiError> {
    let started = std::time::Instant::now();
    let found = app.lookup_in(selection, req)?;
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let matches: Vec<Value> = found.iter().map(|(name, m)| to_value(MatchView::of_memory(m, name))).collect();
    let mut fields = Map::new();
    fields.insert("query".into(), to_value(SegmentView::of(Some(req.source_locale.as_str()), &req.source)));
    fields.insert("micros".into(), Value::from(micros));
    fields.insert("matches".into(), Value::Array(matches));
    Ok(fields)
}

/// A lookup's answer ([`cmem::LookupAnswer`]: the query, the time taken and the
/// matches) as a JSON object, to which a batch adds its fields.
fn object(answer: LookupAnswer) -> Result<Map<String, Value>, ApiError> {
    match to_value(answer) {
        Value::Object(fields) => Ok(fields),
        _ => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "an answer that is not an object",
        )),
    }
}

fn to_value<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// A body that is not the JSON asked for: its status (400, 413, 415) and what failed.
pub(crate) fn json_error(rejection: JsonRejection) -> ApiError {
    // axum answers a body of the wrong shape 422; a request that is not what the route
    // reads is a bad request like any other (422 is kept for entries that cannot be
    // stored).
    let (status, code) = match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => (StatusCode::PAYLOAD_TOO_LARGE, "body_too_large"),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type"),
        _ => (StatusCode::BAD_REQUEST, "invalid_json"),
    };
    ApiError::new(status, code, rejection.body_text())
}

/// A query string that does not parse.
pub(crate) fn query_error(rejection: QueryRejection) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "invalid_query", rejection.body_text())
}

/// `POST /v1/lookup` (and under `/p/{source}/{target}/`, [`PathPair`]).
pub(crate) async fn lookup(
    State(app): State<Arc<App>>,
    pair: Option<Extension<PathPair>>,
    headers: HeaderMap,
    body: Result<Json<LookupBody>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Json(body) = body.map_err(json_error)?;
    let answer = app
        .blocking(move |app| {
            let t = target(
                &body.source_locale,
                &body.target_locale,
                body.threshold,
                body.limit,
                body.point.as_deref(),
                &body.penalties,
            )?;
            check_locales(app, pair, &t)?;
            let selection = app.selection(body.memories.as_deref())?;
            let context = body.context.as_ref().map(|c| parse_context(c, "context")).transpose()?;
            let runs = segment_runs(
                app,
                body.text.as_deref(),
                body.notation.as_deref(),
                body.runs.as_ref(),
                body.client_masks,
            )?;
            let req = request(&t, runs, context);
            let mut fields = if app.named {
                named_answer(app, &selection, &req)?
            } else {
                return object(app.memory().answer_with_evidence(&req, body.fragments, body.terms)?);
            };
            // Of several memories, the first asked whose word model finds any.
            let first_found =
                |find: &dyn Fn(&cmem::Memory) -> cmem::Result<Value>| -> cmem::Result<Option<Value>> {
                    for &i in &selection {
                        let found = find(&app.memories.members()[i].memory)?;
                        if found.as_array().is_some_and(|a| !a.is_empty()) {
                            return Ok(Some(found));
                        }
                    }
                    Ok(None)
                };
            if body.fragments {
                if let Some(found) = first_found(&|m| Ok(to_value(m.fragments(&req)?)))? {
                    fields.insert("fragments".into(), found);
                }
            }
            if body.terms {
                if let Some(found) = first_found(&|m| Ok(to_value(m.segment_terms(&req)?)))? {
                    fields.insert("terms".into(), found);
                }
            }
            Ok(fields)
        })
        .await?;
    Ok(Json(Value::Object(answer)))
}

/// Refuses a batch of more than the configured `max_batch` segments (`413`).
pub(crate) fn check_batch(app: &App, segments: usize) -> Result<(), ApiError> {
    let max = app.config.max_batch;
    if segments > max {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "batch_too_large",
            format!("{segments} segments in one request; at most {max}"),
        )
        .with_details(json!({ "limit": max })));
    }
    Ok(())
}

/// `POST /v1/lookup/batch`: each segment answered in order, a failed one with its own
/// error.
pub(crate) async fn lookup_batch(
    State(app): State<Arc<App>>,
    pair: Option<Extension<PathPair>>,
    headers: HeaderMap,
    body: Result<Json<BatchBody>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Json(body) = body.map_err(json_error)?;
    check_batch(&app, body.segments.len())?;
    let results = app
        .blocking(move |app| {
            let t = target(
                &body.source_locale,
                &body.target_locale,
                body.threshold,
                body.limit,
                body.point.as_deref(),
                &body.penalties,
            )?;
            check_locales(app, pair, &t)?;
            let selection = app.selection(body.memories.as_deref())?;
            let mut results = Vec::with_capacity(body.segments.len());
            let requests = body.segments.iter().enumerate().map(|(i, s)| {
                let context = s
                    .context
                    .as_ref()
                    .map(|c| parse_context(c, &format!("segments[{i}].context")))
                    .transpose()?;
                segment_runs(
                    app,
                    s.text.as_deref(),
                    s.notation.as_deref(),
                    s.runs.as_ref(),
                    body.client_masks,
                )
                .map(|runs| request(&t, runs, context))
            });
            let answers: Box<dyn Iterator<Item = Result<Map<String, Value>, ApiError>>> = if app.named {
                let mut warmed: Vec<Locale> = Vec::new();
                Box::new(requests.map(move |req| {
                    let req = req?;
                    if !warmed.contains(&req.source_locale) {
                        for &i in &selection {
                            app.memories.members()[i].memory.warm(&req.source_locale)?;
                        }
                        warmed.push(req.source_locale.clone());
                    }
                    named_answer(app, &selection, &req)
                }))
            } else {
                Box::new(app.memory().lookup_batch(requests).map(|one| one.and_then(object)))
            };
            for (index, (s, one)) in body.segments.iter().zip(answers).enumerate() {
                let mut item = match one {
                    Ok(answer) => answer,
                    Err(e) => {
                        let mut m = Map::new();
                        m.insert("error".into(), e.body());
                        m
                    }
                };
                item.insert("index".into(), Value::from(index));
                if let Some(id) = &s.id {
                    item.insert("id".into(), id.clone());
                }
                results.push(Value::Object(item));
            }
            Ok(results)
        })
        .await?;
    Ok(Json(json!({ "results": results })))
}

/// The query string of `GET /v1/search`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchParams {
    q: String,
    locale: String,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    offset: Option<usize>,
    /// Only entries of this project (the entry's or one of its origins'), or from this
    /// file (an import's record of where the entry came from, or its file name).
    #[serde(default)]
    project: Option<String>,
    /// Of several memories, the one searched (default: the home memory).
    #[serde(default)]
    memory: Option<String>,
}

/// `?memory=NAME`: of several memories, the one a request reads or writes.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemoryParam {
    #[serde(default)]
    memory: Option<String>,
}

/// The `?memory=NAME` of a request.
pub(crate) fn memory_param(
    params: Result<Query<MemoryParam>, QueryRejection>,
) -> Result<Option<String>, ApiError> {
    Ok(params.map_err(query_error)?.0.memory)
}

/// `GET /v1/search?q=WORDS&locale=L[&to=L][&project=P][&limit=N][&offset=N]`:
/// concordance search, best first, a page at a time. With `project`, the pages are
/// those of the best `max_search_hits` hits that are the project's.
pub(crate) async fn search(
    State(app): State<Arc<App>>,
    pair: Option<Extension<PathPair>>,
    headers: HeaderMap,
    params: Result<Query<SearchParams>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Query(p) = params.map_err(query_error)?;
    let locale = Locale::parse(&p.locale).map_err(|e| ApiError::from(e).in_field("locale"))?;
    let to = optional_locale("to", p.to.as_deref())?;
    if let Some(to) = &to {
        let path = pair.map(|Extension(p)| p);
        app.check_request_pair(path.as_ref(), (&locale, to), ("locale", "to"))?;
    }
    let (limit, offset) = (p.limit.unwrap_or(20), p.offset.unwrap_or(0));
    let max = app.config.max_search_hits;
    if limit == 0 || offset.saturating_add(limit) > max {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            format!("offset {offset} + limit {limit} must be 1–{max}"),
        )
        .with_details(json!({ "limit": max })));
    }
    let hits = app
        .blocking(move |app| {
            let mut q = SearchQuery::new(p.q, locale.clone());
            // One more than the page: tells whether a next page exists.
            q.limit = offset + limit + 1;
            if p.project.is_some() {
                q.limit = max;
            }
            let mut hits = app.read_memory(p.memory.as_deref())?.search_with(&q)?;
            if let Some(project) = p.project.as_deref().filter(|p| !p.is_empty()) {
                // What a match or hit shows as its origin is accepted too: a file an
                // import recorded, as a whole or by its name.
                hits.retain(|h| {
                    h.entry.project_id == project
                        || h.entry.origins.iter().any(|o| o.project_id == project)
                        || cmem::provenance(&h.entry.metadata)
                            .iter()
                            .any(|p| p == project || p.rsplit(['/', '\\']).next() == Some(project))
                });
            }
            Ok((hits, locale, to))
        })
        .await?;
    let (hits, locale, to) = hits;
    let next_offset = (hits.len() > offset + limit).then_some(offset + limit);
    let page: Vec<Value> = hits
        .iter()
        .skip(offset)
        .take(limit)
        .map(|hit| {
            let found = hit.entry.variant_index(&locale);
            let translations: Vec<Value> = hit
                .entry
                .variants
                .iter()
                .enumerate()
                .filter(|(j, v)| Some(*j) != found && to.as_ref().is_none_or(|t| v.locale.matches(t)))
                .map(|(_, v)| to_value(SegmentView::of(Some(v.locale.as_str()), &v.runs)))
                .collect();
            json!({
                "entry_id": hit.entry.id.0,
                "score": hit.score,
                "snippet": hit.snippet,
                "translations": translations,
                "project_id": hit.entry.project_id,
                "origins": hit.entry.origins,
                "provenance": cmem::provenance(&hit.entry.metadata),
                "approvals": hit.entry.approvals(),
            })
        })
        .collect();
    Ok(Json(json!({ "hits": page, "offset": offset, "limit": limit, "next_offset": next_offset })))
}

pub(crate) fn entry_id(text: &str) -> Result<EntryId, ApiError> {
    text.parse::<i64>()
        .map(EntryId)
        .map_err(|_| ApiError::bad_request(format!("entry id {text:?} is not a whole number")).in_field("id"))
}

/// `GET /v1/entries/{id}`.
pub(crate) async fn get_entry(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    params: Result<Query<MemoryParam>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(to_value(read_entry(&app, &headers, &id, params).await?)))
}

/// The entry a read route's path names, in the memory its `?memory=` names: `404` when
/// there is none.
pub(crate) async fn read_entry(
    app: &Arc<App>,
    headers: &HeaderMap,
    id: &str,
    params: Result<Query<MemoryParam>, QueryRejection>,
) -> Result<cmem::Entry, ApiError> {
    app.authorize(headers, Scope::Read).await?;
    let id = entry_id(id)?;
    let memory = memory_param(params)?;
    let entry = app.blocking(move |app| Ok(app.read_memory(memory.as_deref())?.get(id)?)).await?;
    entry.ok_or_else(|| ApiError::not_found(format!("no entry {}", id.0)))
}

/// `DELETE /v1/entries/{id}`: `204`, or `404` when there is no such entry.
pub(crate) async fn delete_entry(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    params: Result<Query<MemoryParam>, QueryRejection>,
) -> Result<StatusCode, ApiError> {
    app.authorize(&headers, Scope::Write).await?;
    let id = entry_id(&id)?;
    let memory = memory_param(params)?;
    if app.blocking(move |app| Ok(app.write_memory(memory.as_deref())?.delete(id)?)).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found(format!("no entry {}", id.0)))
    }
}

/// `PUT /v1/entries/{id}`: replaces the entry, keeping its id, in one transaction
/// (`ContentMemory::replace`); `200` with the entry as stored, `404` when there is none.
/// The body is an entry as `POST /v1/entries` takes it; it may also carry the `id` a
/// `GET` answered with, which must then be the path's.
pub(crate) async fn replace_entry(
    State(app): State<Arc<App>>,
    pair: Option<Extension<PathPair>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    params: Result<Query<MemoryParam>, QueryRejection>,
    body: Result<Json<Value>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    app.authorize(&headers, Scope::Write).await?;
    let id = entry_id(&id)?;
    let chosen = memory_param(params)?;
    let Json(mut body) = body.map_err(json_error)?;
    if let Some(given) = body.as_object_mut().and_then(|fields| fields.remove("id")) {
        if given.as_i64() != Some(id.0) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_entry",
                format!("the body's id {given} is not the path's {}", id.0),
            )
            .in_field("id"));
        }
    }
    let entry: NewEntry = serde_json::from_value(body).map_err(|e| {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_entry", format!("entry: {e}"))
    })?;
    entry.validate()?;
    app.check_entries(pair.map(|Extension(p)| p).as_ref(), std::slice::from_ref(&entry))?;
    let stored = app
        .blocking(move |app| {
            let memory = app.write_memory(chosen.as_deref())?;
            Ok(if memory.replace(id, &entry)? { memory.get(id)? } else { None })
        })
        .await?;
    match stored {
        Some(e) => Ok(Json(to_value(e))),
        None => Err(ApiError::not_found(format!("no entry {}", id.0))),
    }
}

/// `POST /v1/entries`: one entry or an array of them, written in one transaction
/// (all or none); `201` with each one's id and whether it was new.
pub(crate) async fn add_entries(
    State(app): State<Arc<App>>,
    pair: Option<Extension<PathPair>>,
    headers: HeaderMap,
    params: Result<Query<MemoryParam>, QueryRejection>,
    body: Result<Json<Value>, JsonRejection>,
) -> Result<Response, ApiError> {
    app.authorize(&headers, Scope::Write).await?;
    let chosen = memory_param(params)?;
    let Json(body) = body.map_err(json_error)?;
    let items = match body {
        Value::Array(items) => items,
        one => vec![one],
    };
    let mut entries = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let entry: NewEntry = serde_json::from_value(item).map_err(|e| {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_entry", format!("entry {index}: {e}"))
                .with_details(json!({ "index": index }))
        })?;
        entry.validate().map_err(|e| ApiError::from(e).with_details(json!({ "index": index })))?;
        entries.push(entry);
    }
    app.check_entries(pair.map(|Extension(p)| p).as_ref(), &entries)?;
    let written = chosen.clone();
    let outcomes = app.blocking(move |app| Ok(app.write_memory(chosen.as_deref())?.write(&entries)?)).await?;
    app.realign_after_write(written);
    let outcomes: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            let kind = match o {
                cmem::WriteOutcome::Inserted(_) => "inserted",
                _ => "deduplicated",
            };
            json!({ "id": o.id().0, "outcome": kind })
        })
        .collect();
    Ok((StatusCode::CREATED, Json(json!({ "entries": outcomes }))).into_response())
}

/// `GET /v1/stats`: the counts the writes keep (DESIGN.md §6.4), a few rows read on a
/// reader connection; of the served pairs only, with `--pairs` (the totals are the
/// memory's). An answer for the home memory also refreshes the locale pairs the
/// page's HTML carries.
pub(crate) async fn stats(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    params: Result<Query<MemoryParam>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let memory = memory_param(params)?;
    let s = app
        .blocking(move |app| {
            let chosen = app.read_memory(memory.as_deref())?;
            let stats = app.served_stats(chosen.stats()?);
            if std::ptr::eq(chosen, app.memory()) {
                app.page_pairs.keep(&stats);
            }
            Ok(stats)
        })
        .await?;
    Ok(Json(json!({
        "entries": s.entries,
        "variants": s.variants,
        "pairs": s.pairs.iter().map(|p| json!({
            "source": p.source.as_str(), "target": p.target.as_str(), "entries": p.entries,
        })).collect::<Vec<_>>(),
        "size_bytes": s.size_bytes,
    })))
}

/// The query string of `GET /v1/versions`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VersionParams {
    unit: String,
    #[serde(default)]
    point: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    /// Of several memories, the one read (default: the home memory).
    #[serde(default)]
    memory: Option<String>,
}

/// `GET /v1/versions?unit=U[&point=P][&limit=N]`: the prior answers of a content
/// block, newest first (the JSON of `cmem versions --json`, as one array).
pub(crate) async fn versions(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    params: Result<Query<VersionParams>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Query(p) = params.map_err(query_error)?;
    if p.unit.is_empty() {
        return Err(ApiError::bad_request("unit must not be empty").in_field("unit"));
    }
    let point = match p.point.as_deref() {
        None | Some("") => Point::root(),
        Some(text) => Point::parse(text).map_err(|e| ApiError::from(e).in_field("point"))?,
    };
    let limit = p.limit.unwrap_or(20);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request(format!("limit {limit} is not 1–{MAX_LIMIT}")).in_field("limit"));
    }
    let versions = app
        .blocking(move |app| {
            Ok(app
                .read_memory(p.memory.as_deref())?
                .versions_with(&VersionQuery::new(p.unit).point(point).limit(limit))?)
        })
        .await?;
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| {
            let e = &v.entry;
            json!({
                "entry_id": e.id.0,
                "unit": e.unit,
                "point": e.point.as_str(),
                "project_id": e.project_id,
                "created_at": e.newest_origin().map(|o| o.created_at.as_str()).unwrap_or(""),
                "context_fingerprint": v.context_fingerprint,
                "variants": e.variants.iter().map(|x| to_value(SegmentView::of(Some(x.locale.as_str()), &x.runs))).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(Json(json!({ "versions": versions })))
}
