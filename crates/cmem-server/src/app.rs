//! The application: its state ([`App`]), who may do what, and running a request's work on
//! a worker thread. The routes are in `router`, serving in `listen`.

use std::sync::Arc;

use axum::http::{header, HeaderMap, StatusCode};
use cmem::{LookupRequest, Match, Member, Memories, Memory, MemorySpec, Recognizer};
use sha2::{Digest, Sha256};

use crate::answers::Answers;
use crate::config::ServerConfig;
use crate::error::{ApiError, ServerError};
use crate::job_table::Jobs;
use crate::metrics::Metrics;
use crate::rate::{BadTokens, Limiter};
use crate::token::{Scope, TokenRecord, Tokens};
use crate::workers::Workers;

/// What every request handler shares: the memory (or memories), the configuration and
/// the recognizer for plain-text queries.
#[derive(Debug)]
pub struct App {
    /// The memories served: one ([`App::new`]) or several named ([`App::several`]).
    pub(crate) memories: Memories,
    /// Served as several named memories: lookups merge them and each match names its
    /// memory; writes go to the write memory or the one a request names.
    pub(crate) named: bool,
    /// The home memory: where bearer tokens are kept and reads that name no memory go —
    /// the one memory of role `write`, else the first.
    pub(crate) home: usize,
    pub(crate) config: ServerConfig,
    pub(crate) recognizer: Option<Recognizer>,
    pub(crate) metrics: Metrics,
    pub(crate) limiter: Option<Limiter>,
    pub(crate) bad_tokens: BadTokens,
    /// The amaGama routes' answers, under the memory's change mark.
    pub(crate) answers: Answers,
    /// The locales each memory holds, for amaGama's `languages/`, under its change mark.
    pub(crate) languages: crate::amagama::Languages,
    pub(crate) jobs: Jobs,
    /// The threads that do the requests' store work (see [`ServerConfig::workers`]).
    pub(crate) workers: Workers,
    /// A background check of the word models after writes is running (`realign`).
    pub(crate) realigning: std::sync::atomic::AtomicBool,
    /// The home memory's locale pairs as last counted, which the page's HTML carries so
    /// its form is usable before `/v1/stats` answers.
    pub(crate) page_pairs: crate::page::PagePairs,
}

impl App {
    /// Prepares `memory` for serving: reads the recognizer its imports recorded and
    /// builds the candidate index of every source locale it holds (of the served pairs'
    /// with [`ServerConfig::pairs`]), so that the first lookups are as fast as the rest. Blocking: call it before serving or on a
    /// blocking thread.
    ///
    /// # Errors
    /// A store failure, or a recorded rule set this program does not know.
    pub fn new(memory: Memory, config: ServerConfig) -> Result<App, ServerError> {
        let spec = MemorySpec::new(&memory.address().to_string()).or_else(|_| MemorySpec::new("memory:"))?;
        App::build(Memories::new(vec![(spec, memory)])?, false, config)
    }

    /// Prepares several named memories for serving, as [`new`](Self::new) one: a lookup
    /// asks all of them (or those it names) and merges their matches by core's ranking
    /// ([`cmem::lookup_several`]: score after each memory's penalty, then priority), each
    /// match naming its memory; each memory also answers amaGama's protocol alone under
    /// `/m/{name}/…`. Writes go to the one memory of role `write`, or to the one a request
    /// names with `?memory=NAME`; with several writable and none named, a write is refused
    /// (`409`). Bearer tokens are kept in the home memory: the write memory, else the first.
    ///
    /// # Errors
    /// As [`new`](Self::new), for any of the memories.
    pub fn several(memories: Memories, config: ServerConfig) -> Result<App, ServerError> {
        App::build(memories, true, config)
    }

    fn build(memories: Memories, named: bool, config: ServerConfig) -> Result<App, ServerError> {
        let home = memories
            .writer(None)
            .ok()
            .and_then(|w| memories.members().iter().position(|m| m.spec.name == w.spec.name))
            .unwrap_or(0);
        let (recognizer, _) = memories.members()[home].memory.query_recognizer(None)?;
        // With `pairs`, only the source locales their lookups read: another server
        // answers the rest.
        for member in memories.members() {
            for source in &member.memory.source_locales()? {
                if config.pairs.as_ref().is_none_or(|p| p.reads_source(source)) {
                    member.memory.warm(source)?;
                }
            }
        }
        let limiter = config.rate_limit.map(Limiter::new);
        let bad_tokens = BadTokens::new(config.max_bad_tokens);
        let answers = Answers::new(config.answer_cache);
        let workers = Workers::start(config.effective_workers())
            .map_err(|source| ServerError::Io { doing: "starting the worker threads".to_owned(), source })?;
        let app = App {
            memories,
            named,
            home,
            config,
            recognizer,
            metrics: Metrics::default(),
            limiter,
            bad_tokens,
            answers,
            languages: crate::amagama::Languages::default(),
            jobs: Jobs::default(),
            workers,
            realigning: Default::default(),
            page_pairs: Default::default(),
        };
        // amaGama clients ask for the locales first: answer the first one from the cache.
        for (i, member) in app.memories.members().iter().enumerate() {
            app.languages.codes(&member.memory, i, app.config.pairs.as_ref())?;
        }
        app.page_pairs.keep(&app.served_stats(app.memory().stats()?));
        Ok(app)
    }

    /// The memory served; of several, the home memory (the write memory, else the
    /// first), where bearer tokens are kept.
    pub fn memory(&self) -> &Memory {
        &self.memories.members()[self.home].memory
    }

    /// The memories served (one, unnamed, for a server made by [`new`](Self::new)).
    pub fn memories(&self) -> &Memories {
        &self.memories
    }

    /// The memory a read names with `?memory=NAME`, or the home memory.
    pub(crate) fn read_memory(&self, name: Option<&str>) -> Result<&Memory, ApiError> {
        match name {
            None => Ok(self.memory()),
            Some(name) => Ok(&self.member(name, "memory")?.memory),
        }
    }

    /// The memory named `name`; a `400` naming `field` when there is none.
    pub(crate) fn member(&self, name: &str, field: &str) -> Result<&Member, ApiError> {
        self.memories.get(name).ok_or_else(|| {
            let names: Vec<&str> = self.memories.members().iter().map(|m| m.spec.name.as_str()).collect();
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "unknown_memory",
                format!("no memory is named {name:?} (the memories: {})", names.join(", ")),
            )
            .in_field(field)
        })
    }

    /// The memory a write goes to: the one `?memory=NAME` names, else the one memory of
    /// role `write` ([`cmem::choose_writer`]). An unknown name is a `400`; a read-only
    /// memory, or several writable and none named, a `409`.
    pub(crate) fn write_memory(&self, name: Option<&str>) -> Result<&Memory, ApiError> {
        if let Some(name) = name {
            self.member(name, "memory")?;
        }
        match self.memories.writer(name) {
            Ok(member) => Ok(&member.memory),
            Err(e) => Err(ApiError::new(StatusCode::CONFLICT, "choose_memory", e.message().to_owned())
                .in_field("memory")),
        }
    }

    /// The members of `names` (`None`: all), in the order served, each once.
    pub(crate) fn selection(&self, names: Option<&[String]>) -> Result<Vec<usize>, ApiError> {
        let members = self.memories.members();
        let Some(names) = names else { return Ok((0..members.len()).collect()) };
        if names.is_empty() {
            return Err(ApiError::bad_request("\"memories\" names no memory; leave it out to ask all")
                .in_field("memories"));
        }
        for name in names {
            self.member(name, "memories")?;
        }
        Ok((0..members.len()).filter(|&i| names.contains(&members[i].spec.name)).collect())
    }

    /// Looks `req` up in the memories `selection` and merges their matches by core's
    /// ranking, each with the name of its memory.
    pub(crate) fn lookup_in(
        &self,
        selection: &[usize],
        req: &LookupRequest,
    ) -> cmem::Result<Vec<(&str, Match)>> {
        self.memories.lookup_among(selection, req)
    }

    /// The change mark of everything served: the one memory's own, or of several one that
    /// changes when any of them changes (`None` when any has none).
    pub(crate) fn change_mark(&self) -> cmem::Result<Option<u64>> {
        let members = self.memories.members();
        if let [one] = members {
            return one.memory.change_mark();
        }
        let mut hash = Sha256::new();
        for member in members {
            let Some(mark) = member.memory.change_mark()? else { return Ok(None) };
            hash.update(mark.to_le_bytes());
        }
        let digest = hash.finalize();
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&digest[..8]);
        Ok(Some(u64::from_le_bytes(bytes)))
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
        let record = self.blocking(move |app| Ok(Tokens::verify(app.memory(), &secret)?)).await?;
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

    /// Runs `work` on one of the configured workers (the store's calls block), in
    /// arrival order, bounded by the configured request timeout (waiting for the worker
    /// included).
    pub(crate) async fn blocking<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&App) -> Result<T, ApiError> + Send + 'static,
    {
        let app = Arc::clone(self);
        let task = self.workers.run(move || work(&app));
        match tokio::time::timeout(self.config.request_timeout, task).await {
            Ok(Some(result)) => result,
            Ok(None) => Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the request's work failed".to_owned(),
            )),
            Err(_) => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "timeout",
                format!("the request took longer than {:?}", self.config.request_timeout),
            )),
        }
    }
}
