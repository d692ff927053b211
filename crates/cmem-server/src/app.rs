//! The application: its state ([`App`]), who may do what, and running a request's work on
//! a blocking thread. The routes are in `router`, serving in `listen`.

use std::sync::Arc;

use axum::http::{header, HeaderMap, StatusCode};
use cmem::{Memory, Recognizer};

use crate::answers::Answers;
use crate::config::ServerConfig;
use crate::error::{ApiError, ServerError};
use crate::job_table::Jobs;
use crate::metrics::Metrics;
use crate::rate::{BadTokens, Limiter};
use crate::token::{Scope, TokenRecord, Tokens};

/// What every request handler shares: the memory, the configuration, the recognizer for
/// plain-text queries and the locales the memory holds.
#[derive(Debug)]
pub struct App {
    pub(crate) memory: Memory,
    pub(crate) config: ServerConfig,
    pub(crate) recognizer: Option<Recognizer>,
    pub(crate) metrics: Metrics,
    pub(crate) limiter: Option<Limiter>,
    pub(crate) bad_tokens: BadTokens,
    /// The amaGama routes' answers, under the memory's change mark.
    pub(crate) answers: Answers,
    pub(crate) jobs: Jobs,
    /// One permit per request doing store work at once (see
    /// [`ServerConfig::workers`]).
    pub(crate) workers: Arc<tokio::sync::Semaphore>,
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
        for source in &memory.source_locales()? {
            memory.warm(source)?;
        }
        let limiter = config.rate_limit.map(Limiter::new);
        let bad_tokens = BadTokens::new(config.max_bad_tokens);
        let answers = Answers::new(config.answer_cache);
        let workers = Arc::new(tokio::sync::Semaphore::new(config.effective_workers()));
        Ok(App {
            memory,
            config,
            recognizer,
            metrics: Metrics::default(),
            limiter,
            bad_tokens,
            answers,
            jobs: Jobs::default(),
            workers,
        })
    }

    /// The memory served.
    pub fn memory(&self) -> &Memory {
        &self.memory
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
        let record = self.blocking(move |app| Ok(Tokens::verify(&app.memory, &secret)?)).await?;
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

    /// Runs `work` on a blocking thread (the store's calls block) once one of the
    /// configured workers is free, bounded by the configured request timeout (waiting
    /// for the worker included).
    pub(crate) async fn blocking<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&App) -> Result<T, ApiError> + Send + 'static,
    {
        let app = Arc::clone(self);
        let workers = Arc::clone(&self.workers);
        let task = async move {
            // The semaphore is never closed, so acquiring only waits.
            let permit = workers.acquire_owned().await.ok();
            tokio::task::spawn_blocking(move || {
                let answer = work(&app);
                drop(permit);
                answer
            })
            .await
        };
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
