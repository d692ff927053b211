//! The router: every route of the API, the web page and the amaGama-compatible paths,
//! and the middleware each request passes (metrics, rate and time limits, token guard,
//! request-target limit).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use serde_json::json;

use crate::app::App;
use crate::error::ApiError;
use crate::token::{self, Scope};
use crate::{amagama, context, export, job, native, openapi, page, revise};

impl App {
    /// The router of every route (see `/openapi.json`), with the body and request-target
    /// limits of the configuration; the `/v1` routes also under `/p/{source}/{target}/`,
    /// the pair in the path for a proxy to route on (`pairs`).
    pub fn router(self: Arc<Self>) -> Router {
        let routes = Arc::clone(&self).routes();
        let inner = routes.clone();
        Router::new()
            .route(
                "/p/{*rest}",
                any(move |request: Request| {
                    crate::pairs::prefixed(Arc::clone(&self), inner.clone(), request)
                }),
            )
            .fallback_service(routes)
    }

    /// Every route but the pair-prefixed ones, with the middleware.
    fn routes(self: Arc<Self>) -> Router {
        let body_limit = self.config.max_body_bytes;
        let mut router = Router::new()
            .route("/", get(page::index))
            .route("/page.js", get(page::script))
            .route("/page.css", get(page::style))
            .route("/healthz", get(healthz))
            .route("/readyz", get(readyz))
            .route("/openapi.json", get(openapi::document))
            .route("/metrics", get(metrics))
            .route("/v1/lookup", post(native::lookup))
            .route("/v1/lookup/batch", post(native::lookup_batch))
            .route("/v1/context", post(context::context))
            .route("/v1/search", get(native::search))
            .route("/v1/entries", post(native::add_entries))
            .route(
                "/v1/entries/{id}",
                get(native::get_entry).put(native::replace_entry).delete(native::delete_entry),
            )
            .route("/v1/entries/{id}/history", get(revise::get_history))
            .route("/v1/entries/{id}/revise", post(revise::revise))
            .route("/v1/entries/{id}/undo", post(revise::undo))
            .route("/v1/stats", get(native::stats))
            .route("/v1/versions", get(native::versions))
            .route("/v1/imports", post(job::start).get(job::list))
            .route("/v1/imports/{id}", get(job::status))
            .route("/v1/export", get(export::run));
        // amaGama's protocol: at the root, and below each prefix the handlers read
        // (`amagama::Prefix`): one memory of several, a read token in the path for
        // clients that cannot send a header (Weblate's tmserver machinery), or both.
        let amagama = amagama::routes();
        router = router.merge(amagama.clone());
        for prefix in ["/m/{memory}", "/t/{token}", "/t/{token}/m/{memory}"] {
            router = router.nest(prefix, amagama.clone());
        }
        router
            .route_layer(middleware::from_fn_with_state(Arc::clone(&self), record_metrics))
            .fallback(no_route)
            .method_not_allowed_fallback(wrong_method)
            .layer(DefaultBodyLimit::max(body_limit))
            .layer(middleware::from_fn_with_state(Arc::clone(&self), limit_rate))
            .layer(middleware::from_fn_with_state(Arc::clone(&self), guard_tokens))
            .layer(middleware::from_fn_with_state(Arc::clone(&self), limit_time))
            .layer(middleware::from_fn_with_state(Arc::clone(&self), limit_uri))
            .with_state(self)
    }
}

async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

/// Ready when the store answers a read; the index was built before the server began
/// accepting connections.
async fn readyz(State(app): State<Arc<App>>) -> Result<Json<serde_json::Value>, ApiError> {
    app.blocking(|app| Ok(app.memory().recorded_rule_set()?))
        .await
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "not_ready", e.message))?;
    let mut ready = json!({ "status": "ready", "memory": app.memory().address().to_string() });
    if app.named {
        let names: Vec<&str> = app.memories().members().iter().map(|m| m.spec.name.as_str()).collect();
        ready["memories"] = json!(names);
    }
    if let Some(pairs) = &app.config.pairs {
        ready["pairs"] = pairs.to_json();
    }
    Ok(Json(ready))
}

async fn no_route(request: Request) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no_such_route", format!("no route {}", request.uri().path()))
}

async fn wrong_method(request: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}", request.method(), request.uri().path()),
    )
}

/// Counts the answer of a matched route, under its path template, and logs it when
/// asked: one JSON object a line, with the route template (never the path, which may
/// hold a translator's text) and never a token.
async fn record_metrics(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let method = request.method().to_string();
    let client =
        request.extensions().get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(a)| a.ip().to_string());
    let started = Instant::now();
    let response = next.run(request).await;
    let took = started.elapsed();
    let status = response.status().as_u16();
    if let Some(route) = route {
        app.metrics.record(&route, &method, status, took);
        if app.config.access_log {
            eprintln!(
                "{}",
                json!({
                    "unix_ms": unix_ms(), "method": method, "route": route, "status": status,
                    "micros": took.as_micros() as u64, "client": client,
                })
            );
        }
    }
    response
}

/// `GET /metrics`: Prometheus' text format.
async fn metrics(State(app): State<Arc<App>>, headers: HeaderMap) -> Result<Response, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    // Of several memories, the entries of all.
    let entries = app
        .blocking(|app| {
            let members = app.memories().members();
            members.iter().try_fold(0, |sum, m| Ok::<u64, ApiError>(sum + m.memory.stats()?.entries))
        })
        .await
        .ok();
    let mut text = app.metrics.render(entries, &app.jobs.counts());
    let (hits, misses) = app.answers.counts();
    text.push_str(&format!(
        "# HELP cmem_answer_cache_total amaGama and context answers from the answer cache (hit) or computed (miss).\n\
         # TYPE cmem_answer_cache_total counter\n\
         cmem_answer_cache_total{{result=\"hit\"}} {hits}\n\
         cmem_answer_cache_total{{result=\"miss\"}} {misses}\n"
    ));
    let mut response = text.into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    Ok(response)
}

/// Takes the request from its client's bucket when rates are limited: the client is
/// the bearer token presented (by its id, verified later), else the peer's address.
/// Health, readiness and metrics are never limited.
async fn limit_rate(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let Some(limiter) = &app.limiter else { return next.run(request).await };
    if matches!(request.uri().path(), "/healthz" | "/readyz" | "/metrics") {
        return next.run(request).await;
    }
    let client = match request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        Some(value) => format!("token {}", token::id_of(value.trim_start_matches("Bearer ").trim())),
        None => match request.extensions().get::<ConnectInfo<SocketAddr>>() {
            Some(ConnectInfo(addr)) => format!("address {}", addr.ip()),
            None => "anonymous".to_owned(),
        },
    };
    match limiter.take(&client, Instant::now()) {
        Ok(()) => next.run(request).await,
        Err(wait) => too_many(wait, "too many requests"),
    }
}

/// Now, in milliseconds since 1970, for log lines.
fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The client a request comes from, by address.
fn peer(request: &Request) -> String {
    match request.extensions().get::<ConnectInfo<SocketAddr>>() {
        Some(ConnectInfo(addr)) => addr.ip().to_string(),
        None => "unknown".to_owned(),
    }
}

/// Shuts out an address that keeps presenting unknown or revoked tokens (`429` for a
/// minute; health and readiness stay open), and logs when it does.
async fn guard_tokens(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    if matches!(request.uri().path(), "/healthz" | "/readyz") {
        return next.run(request).await;
    }
    let client = peer(&request);
    if let Err(wait) = app.bad_tokens.check(&client, Instant::now()) {
        return too_many(wait, "too many requests with a bad token");
    }
    let presented =
        request.headers().contains_key(header::AUTHORIZATION) || request.uri().path().starts_with("/t/");
    let response = next.run(request).await;
    if presented
        && response.status() == StatusCode::UNAUTHORIZED
        && app.bad_tokens.strike(&client, Instant::now())
    {
        eprintln!(
            "{}",
            json!({
                "unix_ms": unix_ms(), "event": "bad_tokens", "client": client,
                "message": format!("more than {} requests with a bad token in a minute; refused for a minute", app.config.max_bad_tokens),
            })
        );
    }
    response
}

/// `429` with `Retry-After`.
fn too_many(wait: std::time::Duration, why: &str) -> Response {
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    let mut response =
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", format!("{why}; retry in {secs} s"))
            .with_details(json!({ "retry_after_seconds": secs }))
            .into_response();
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
    response
}

/// Answers `408` when a request (but an import upload, which streams for as long as it
/// needs) is not answered within the body timeout: a body sent too slowly.
async fn limit_time(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    if request.method() == axum::http::Method::POST && request.uri().path() == "/v1/imports" {
        return next.run(request).await;
    }
    let limit = app.config.body_timeout;
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!("the request was not complete within {limit:?}"),
        )
        .into_response(),
    }
}

/// Refuses a request target longer than the configured limit before any handler reads
/// it.
async fn limit_uri(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let len = request.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if len > app.config.max_uri_bytes {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!("the request target has {len} bytes, more than {}", app.config.max_uri_bytes),
        )
        .with_details(json!({ "limit": app.config.max_uri_bytes }))
        .into_response();
    }
    next.run(request).await
}
