//! cmem over HTTP: a JSON API for lookups, search and entries, amaGama's protocol for
//! the translation tools that already speak it (Weblate, Pootle, Virtaal), bearer tokens
//! for writes, and an OpenAPI description of it all.
//!
//! [`serve`] runs the server on a [`Memory`](cmem::Memory) until `SIGTERM`; [`App`]
//! builds the router for embedding or tests, served with [`serve_on`]. The store's
//! calls are blocking, so every one runs on a worker thread of its own pool, never on
//! the threads that drive connections.
//!
//! ```no_run
//! use cmem::{Memory, OpenOptions};
//! use cmem_server::{serve, ServerConfig};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let memory = Memory::open_with("team.db", &OpenOptions::new())?;
//! serve(memory, ServerConfig::new().listen("127.0.0.1:8080".parse()?)).await?;
//! # Ok(())
//! # }
//! ```
//!
//! Routes: `/v1/lookup`, `/v1/lookup/batch`, `/v1/search`, `/v1/entries`,
//! `/v1/entries/{id}` (get, replace with `PUT`, delete), `/v1/stats`, `/tmserver/…` and `/api/v1/…` (amaGama;
//! `/t/{token}/…` with a read token in the path; `/m/{memory}/…` one memory of several,
//! [`App::several`]),
//! `/v1/versions`, `/healthz`, `/readyz`, `/metrics` (Prometheus),
//! `/openapi.json` ([`openapi::openapi`]); the `/v1` routes again under
//! `/p/{source}/{target}/`, for a proxy that routes by pair ([`ServerConfig::pairs`]).

#![forbid(unsafe_code)]

mod amagama;
mod answers;
mod app;
mod config;
mod context;
mod error;
mod export;
mod job;
mod job_table;
mod listen;
mod metrics;
mod native;
pub mod openapi;
mod page;
mod pairs;
mod rate;
mod realign;
mod revise;
mod router;
mod time;
mod token;
mod workers;

pub use app::App;
pub use config::ServerConfig;
pub use error::{ApiError, ServerError};
pub use listen::{serve, serve_on, shutdown_signal};
pub use pairs::{Pair, Pairs};
pub use rate::RateLimit;
pub use token::{Scope, TokenRecord, Tokens, TOKENS_META};
