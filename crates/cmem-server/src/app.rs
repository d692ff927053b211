//! The application: its state ([`App`]), the router, who may do what, and serving with
//! a graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cmem::{Memory, Recognizer};
use serde_json::json;
use tokio::net::TcpListener;

use crate::answers::Answers;
use crate::config::ServerConfig;
use crate::error::{ApiError, ServerError};
use crate::job::{self, Jobs};
use crate::metrics::Metrics;
use crate::rate::{BadTokens, Limiter};
use crate::token::{self, Scope, TokenRecord, Tokens};
use crate::{amagama, export, native, openapi, page};

/// What every request handler shares: the memory, the configuration, the recognizer for
/// plain-text queries and the locales the memory holds.
#[derive(Debug)]
pub struct App {
    pub(crate) memory: Memory,
    pub(crate) config: ServerConfig,
    pub(crate) recognizer: Option<Recognizer>,
    metrics: Metrics,
    limiter: Option<Limiter>,
    bad_tokens: BadTokens,
    /// The amaGama routes' answers, under the memory's change mark.
    pub(crate) answers: Answers,
    pub(crate) jobs: Jobs,
}

impl App {
    /// Prepares `memory` for serving: reads the recognizer its imports recorded and
    /// builds the candidate index of every source locale it holds, so that the first
    /// lookups are as fast as the rest. Blocking: call it before serving or on a
    /// blocking thread.
    ///
    /// # Errors
    /// A store failure, or a recorded rule set this program does not know.
    pub fn new(memory: Memory, config: ServerConfig) -> Result<App, ServerError> {
        let (recognizer, _) = memory.query_recognizer(None)?;
        for source in &memory.store().source_locales()? {
            memory.store().warm(source)?;
        }
        let limiter = config.rate_limit.map(Limiter::new);
        let bad_tokens = BadTokens::new(config.max_bad_tokens);
        let answers = Answers::new(config.answer_cache);
        Ok(App {
            memory,
            config,
            recognizer,
            metrics: Metrics::default(),
            limiter,
            bad_tokens,
            answers,
            jobs: Jobs::default(),
        })
    }

    /// The memory served.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The router of every route (see `/openapi.json`), with the body and request-target
    /// limits of the configuration.
    pub fn router(self: Arc<Self>) -> Router {
        let body_limit = self.config.max_body_bytes;
        Router::new()
            .route("/", get(page::index))
            .route("/page.js", get(page::script))
            .route("/page.css", get(page::style))
            .route("/healthz", get(healthz))
            .route("/readyz", get(readyz))
            .route("/openapi.json", get(openapi::document))
            .route("/metrics", get(metrics))
            .route("/v1/lookup", post(native::lookup))
            .route("/v1/lookup/batch", post(native::lookup_batch))
            .route("/v1/search", get(native::search))
            .route("/v1/entries", post(native::add_entries))
            .route(
                "/v1/entries/{id}",
                get(native::get_entry).put(native::replace_entry).delete(native::delete_entry),
            )
            .route("/v1/stats", get(native::stats))
            .route("/v1/versions", get(native::versions))
            .route("/v1/imports", post(job::start).get(job::list))
            .route("/v1/imports/{id}", get(job::status))
            .route("/v1/export", get(export::run))
            .route("/tmserver/languages/", get(amagama::languages))
            .route("/tmserver/{source}/{target}/unit/", get(amagama::unit_query))
            .route("/tmserver/{source}/{target}/unit/{text}", get(amagama::unit))
            .route("/api/v1/languages/", get(amagama::languages))
            .route("/api/v1/{source}/{target}/unit/", get(amagama::unit_query))
            .route("/api/v1/{source}/{target}/unit/{text}", get(amagama::unit))
            // The same with a read token in the path, for clients that cannot send a
            // header (Weblate's tmserver machinery): `/t/TOKEN/tmserver/…`.
            .route("/t/{token}/tmserver/languages/", get(amagama::languages_with_token))
            .route("/t/{token}/tmserver/{source}/{target}/unit/", get(amagama::unit_query_with_token))
            .route("/t/{token}/tmserver/{source}/{target}/unit/{text}", get(amagama::unit_with_token))
            .route("/t/{token}/api/v1/languages/", get(amagama::languages_with_token))
            .route("/t/{token}/api/v1/{source}/{target}/unit/", get(amagama::unit_query_with_token))
            .route("/t/{token}/api/v1/{source}/{target}/unit/{text}", get(amagama::unit_with_token))
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

    /// Checks the request's bearer token against `need`: a write needs a token of scope
    /// `write` or more; a read needs one only when the configuration says so; a token
    /// given that is not valid is refused even where none is needed.
    pub(crate) async fn authorize(
        self: &Arc<Self>,
        headers: &HeaderMap,
        need: Scope,
    ) -> Result<Option<TokenRecord>, ApiError> {
        let secret = match headers.get(header::AUTHORIZATION) {
            None => None,
            Some(value) => {
                let value = value.to_str().unwrap_or("");
                match value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer ")) {
                    Some(secret) => Some(secret.trim().to_owned()),
                    None => {
                        return Err(ApiError::new(
                            StatusCode::UNAUTHORIZED,
                            "unauthorized",
                            "the Authorization header must be `Bearer TOKEN`",
                        ))
                    }
                }
            }
        };
        self.authorize_secret(secret, need).await
    }

    /// [`authorize`](Self::authorize) for a token given some other way than the
    /// `Authorization` header (`None`: no token given).
    pub(crate) async fn authorize_secret(
        self: &Arc<Self>,
        secret: Option<String>,
        need: Scope,
    ) -> Result<Option<TokenRecord>, ApiError> {
        let required = need > Scope::Read || self.config.read_needs_token;
        let secret = match secret {
            None if required => {
                return Err(ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    format!("this request needs a bearer token of scope {need} or more"),
                ))
            }
            None => return Ok(None),
            Some(secret) => secret,
        };
        let record = self.blocking(move |app| Ok(Tokens::verify(app.memory.store(), &secret)?)).await?;
        match record {
            None => Err(ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "unknown or revoked token")),
            Some(r) if r.scope < need => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                format!("token {} has scope {}; this request needs {need}", r.id, r.scope),
            )),
            Some(r) => Ok(Some(r)),
        }
    }

    /// Runs `work` on a blocking thread (the store's calls block), bounded by the
    /// configured request timeout.
    pub(crate) async fn blocking<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&App) -> Result<T, ApiError> + Send + 'static,
    {
        let app = Arc::clone(self);
        let task = tokio::task::spawn_blocking(move || work(&app));
        match tokio::time::timeout(self.config.request_timeout, task).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                format!("the request's work failed: {e}"),
            )),
            Err(_) => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "timeout",
                format!("the request took longer than {:?}", self.config.request_timeout),
            )),
        }
    }
}

async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

/// Ready when the store answers a read; the index was built before the server began
/// accepting connections.
async fn readyz(State(app): State<Arc<App>>) -> Result<Json<serde_json::Value>, ApiError> {
    app.blocking(|app| Ok(app.memory.store().meta(cmem::RECOGNIZER_META)?))
        .await
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "not_ready", e.message))?;
    Ok(Json(json!({ "status": "ready", "memory": app.memory.address().to_string() })))
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
    let entries = app.blocking(|app| Ok(app.memory.store().stats()?.entries)).await.ok();
    let mut text = app.metrics.render(entries, &app.jobs.counts());
    let (hits, misses) = app.answers.counts();
    text.push_str(&format!(
        "# HELP cmem_answer_cache_total amaGama answers from the answer cache (hit) or computed (miss).\n\
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

/// Serves `memory` as configured until `SIGTERM` or Ctrl-C: the index is built first,
/// then connections are accepted; on the signal the server stops accepting and ends once
/// the requests under way are answered (a write acknowledged is committed).
///
/// # Errors
/// The memory failed while preparing, or the address could not be bound.
pub async fn serve(memory: Memory, config: ServerConfig) -> Result<(), ServerError> {
    let listen = config.listen;
    let app = tokio::task::spawn_blocking(move || App::new(memory, config)).await.map_err(|e| {
        ServerError::Io { doing: "preparing the memory".into(), source: std::io::Error::other(e) }
    })??;
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|source| ServerError::Io { doing: format!("binding {listen}"), source })?;
    serve_on(listener, Arc::new(app), shutdown_signal()).await
}

/// Serves `app` on `listener` until `shutdown` completes, then finishes the requests
/// under way and cancels the running import jobs (each rolls back: nothing of it is
/// stored).
///
/// # Errors
/// Serving failed.
pub async fn serve_on(
    listener: TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    crate::listen::serve_connections(listener, Arc::clone(&app).router(), &app.config, shutdown).await;
    // No request is under way any more; running imports are cancelled and roll back
    // before the memory closes.
    app.jobs.shut_down().await;
    Ok(())
}

/// A future that completes on `SIGTERM` or Ctrl-C (`SIGINT`). The handlers are installed
/// when this is called, not when the future is first polled: a program that announces
/// it is serving after calling it is never killed by a signal that comes at once (the
/// default action of both), but stops cleanly. Call it inside a Tokio runtime.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            // Without a handler there is nothing to wait for: keep serving.
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(term) => {},
                () = wait(int) => {},
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}
