//! The embedded default store of cmem: [`SqliteStore`], a
//! [`ContentMemory`](cmem_core::ContentMemory) over one SQLite file (bundled SQLite, no
//! system library), docs/matching.md §8.
//!
//! - Tables `tm_entries`, `tm_variants` (runs and the three matching keys) and
//!   `tm_origins`, declared once in [`cmem_core::store::schema`], created and upgraded by
//!   numbered migrations, each in a transaction; the meta table records the schema
//!   version and the key version, and a changed key version re-keys the rows.
//! - FTS5 tables kept in sync on every write and delete: `tm_variant_trigram`
//!   (`tokenize='trigram'` on the keys) and `tm_variant_search` (words of the text,
//!   BM25, `[` `]` highlights) for concordance search.
//! - Fuzzy candidates from an in-process trigram-count index built from the table on
//!   first use ([`cmem_core::imp::GramIndex`], the same as the in-memory store's), so lookups
//!   rank exactly as on every other store; without it, from FTS5 and a length
//!   pre-filter. The index is kept in a file beside the database and caught up from the
//!   change log by core's [`IndexCache`](cmem_core::imp::IndexCache); migrations are run
//!   by [`cmem_core::store::migrate`].
//! - Writes are one transaction per batch, or per [`WriteSession`](cmem_core::imp::WriteSession)
//!   (an import), taking the write lock up front (`BEGIN IMMEDIATE`) and waiting,
//!   bounded, for another writer ([`SqliteOptions::write_wait`], [`WaitHook`]); entries
//!   equal in identity are not duplicated, their origins are appended.
//! - [`SqliteOptions`] say whether an open may create the file, whether it is read-only
//!   (then nothing in or beside the file is created or changed) and whether a write open
//!   first checks the file for damage.
//!
//! ```
//! use cmem_core::{lookup, ContentMemory, Locale, LookupRequest, NewEntry, Run, Variant};
//! use cmem_sqlite::SqliteStore;
//!
//! let en = Locale::parse("en")?;
//! let de = Locale::parse("de")?;
//! let store = SqliteStore::open_in_memory()?;
//! store.write(&[NewEntry::pair(
//!     Variant::new(en.clone(), vec![Run::text("Open the file")]),
//!     Variant::new(de.clone(), vec![Run::text("Datei öffnen")]),
//! )])?;
//! let matches = lookup(&store, &LookupRequest::new(vec![Run::text("Open the files")], en, de))?;
//! assert_eq!(matches[0].target_text(), "Datei öffnen");
//! # Ok::<(), cmem_core::Error>(())
//! ```

#![deny(unsafe_code)]

mod cache;
mod error;
mod lock;
mod mapped;
mod migrate;
mod open;
mod options;
mod session;
mod store;
mod words;

pub use cmem_core::index::index_cache::IndexInfo;
pub use options::{SqliteOptions, WaitHook};
pub use store::SqliteStore;
