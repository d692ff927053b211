//! The shared store of cmem: [`PgStore`], a [`ContentMemory`](cmem_core::ContentMemory)
//! in one PostgreSQL database (15 or newer, with the `pg_trgm` extension), for a memory
//! that many users, processes and machines read and write at once.
//!
//! - The same tables as every database store (`tm_entries`, `tm_variants`, `tm_origins`,
//!   `tm_meta`), declared once in [`cmem_core::store::schema`] and created by its numbered
//!   migrations in the PostgreSQL dialect, each in a transaction; `pg_trgm` GIN indexes
//!   on the three keys; a generated `search_tsv` column with a GIN index for concordance
//!   search (ranked by `ts_rank`, hits marked `[` `]` by `ts_headline`).
//! - Fuzzy candidates from an in-process trigram-count index
//!   ([`cmem_core::imp::CandidateIndex`], the same as the other stores'), so lookups rank
//!   exactly as everywhere else. Every write transaction bumps a change counter in the
//!   meta table; a lookup reads it with its entries (or, when it reads none, from a read
//!   a thread of the store made while the lookup walked the index) and,
//!   when any writer anywhere committed since the index was loaded, catches the index
//!   up from the change log and looks up again. With [`PgOptions::index_dir`] the index
//!   is kept in a file between runs, so the next process reads it and the changes since
//!   instead of building it. Without the index ([`PgOptions::gram_index`] off): the keys
//!   sharing the query's rarest words, through the word index (approximate), or with
//!   [`PgOptions::exhaustive_window`] every key in the length window the cut-off
//!   allows, optionally after `pg_trgm` similarity hits ([`PgOptions::trigram_first`]).
//! - Writes are one transaction per batch, or per
//!   [`WriteSession`](cmem_core::imp::WriteSession) (an import); writers take turns on the
//!   counter's row lock, waiting at most [`PgOptions::write_wait`]. Readers see an
//!   import whole once it commits and nothing of it before.
//! - Connections from an `r2d2` pool of the blocking `postgres` client, each with the
//!   statements a lookup runs prepared once; no TLS. With [`PgOptions::replica`], reads
//!   go to a pool on a streaming replica and writes to the primary.
//! - The index's state machine (files, catching up, reloading) and the migration runner
//!   are core's ([`cmem_core::index::index_cache`], [`cmem_core::store::migrate`]); this crate gives
//!   them its SQL.
//!
//! ```no_run
//! use cmem_core::{lookup, ContentMemory, Locale, LookupRequest, NewEntry, Run, Variant};
//! use cmem_postgres::PgStore;
//!
//! let store = PgStore::open("postgres://cmem@localhost/tm")?;
//! let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
//! store.write(&[NewEntry::pair(
//!     Variant::new(en.clone(), vec![Run::text("Save the file")]),
//!     Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
//! )])?;
//! let matches = lookup(&store, &LookupRequest::new(vec![Run::text("Save the files")], en, de))?;
//! assert_eq!(matches.len(), 1);
//! # Ok::<(), cmem_core::Error>(())
//! ```

#![forbid(unsafe_code)]

mod address;
mod ahead;
mod cache;
mod candidates;
mod conn;
mod db;
mod error;
mod migrate;
mod options;
mod rows;
mod scope;
mod session;
mod store;
#[cfg(feature = "testing")]
pub mod testing;
mod words;

pub use address::redact;
pub use options::{PgOptions, WaitHook};
pub use store::PgStore;
