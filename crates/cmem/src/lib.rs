//! cmem, a content (translation) memory: the crate front ends and programs depend on.
//!
//! Open a memory by address with [`Memory::open`] — a file path or `sqlite:PATH` (the
//! embedded default), `postgres://…` (a shared memory), `memory:` (a private in-memory
//! memory) — and call its verbs: [`import_file`](Memory::import_file),
//! [`lookup_text`](Memory::lookup_text) and [`lookup`](Memory::lookup),
//! [`search`](Memory::search), [`versions`](Memory::versions),
//! [`context`](Memory::context) (a producer's context: prior version, matches, examples,
//! glossary),
//! [`write`](Memory::write), [`stats`](Memory::stats),
//! [`recycle_file`](Memory::recycle_file); front ends use the verbs with every option:
//! [`import`](Memory::import) (an [`ImportRequest`]), [`export`](Memory::export),
//! [`recycle`](Memory::recycle), [`analyze`](Memory::analyze), and
//! [`answer`](Memory::answer) / [`lookup_batch`](Memory::lookup_batch), which return the
//! serializable [`LookupAnswer`]. [`Memories`] looks up several named memories as one,
//! each with a role, a priority and a penalty. A [`Match`] renders itself
//! ([`Match::adapted_text`], [`Match::source_text`]) and serializes with serde; clients
//! that want one JSON shape everywhere take its [`MatchView`]. Files in every supported
//! format go in and out through [`formats`].
//!
//! ```
//! use cmem::{Memory, OpenOptions};
//!
//! let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
//! let file = r#"{"source":"Open %s","target":"%s öffnen","source_locale":"en","target_locale":"de"}"#;
//! memory.import_reader("ui.jsonl", file.as_bytes())?;
//!
//! let best = &memory.lookup_text("Open %d", "en", "de")?[0];
//! assert_eq!(best.adapted_text(), "%d öffnen");
//! assert_eq!(cmem::MatchView::of(best).percent, 100.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! All on by default: `sqlite` (SQLite memories) with `bundled-sqlite` (SQLite compiled
//! in; without it the system's libsqlite3 is linked), `postgres` (PostgreSQL memories),
//! `gzip` (`.gz` inputs and the `.kmb` bundle, which is gzip inside) and `recognize`
//! (inline codes recognized in plain text, the `regex` dependency). A build without one
//! still compiles the same code; what needs the missing feature fails at run time with
//! an error that names it: [`ErrorKind::Unsupported`] for a memory whose imports
//! recorded a recognizer rule set, the formats' `Unsupported` kind for a `.kmb` file,
//! and a read error for a gzip stream.
//!
//! # Stability
//!
//! The items of this crate, and the model, lookup and views they re-export, are the
//! stable surface. Store implementers build on [`cmem_core::ContentMemory`] and the
//! machinery listed in `cmem_core::imp` (schema, keys as stored, trigram, distance,
//! candidate indexes), which may change between minor versions.

#![forbid(unsafe_code)]

mod address;
mod answer;
mod context;
mod files;
mod fragments;
mod import;
#[doc = include_str!("../../../docs/matching.md")]
pub mod matching {}
// The README's library example, compiled and run as a doctest so it cannot drift.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
mod memory;
mod read;
mod realign;
mod several;
pub mod terms;

pub use address::Address;
pub use answer::LookupAnswer;
/// Word alignment and phrase pairs learned from a memory (the word repair's evidence).
pub use cmem_core::align;
/// Repairs of adapted targets: mechanical ones and the word repair.
pub use cmem_core::repair;
pub use context::{
    ContextAnswer, ContextSegment, ExampleView, FieldError, GlossaryView, NeighboursBody, PriorVersionView,
};
pub use import::{ImportRequest, Imported};
pub use memory::{Memory, OpenOptions};
pub use realign::{AlignMode, RealignOutcome, Realigned, GROWTH, MIN_PAIRS};
pub use several::{choose_writer, Member, Memories, MemorySpec, Role};

/// Store machinery (schema DDL, matching keys, distance), for store implementers and
/// diagnostics; not part of the stable surface (see Stability above).
pub use cmem_core::imp;
pub use cmem_core::lookup::masks::{MaskedText, Unmasked};
/// Word diffs of two texts, as a match's repairs and its rendering show them.
pub use cmem_core::model::diff;
pub use cmem_core::model::run::surface_text;
/// In which score bands a lookup repairs changed words ([`LookupOptions::word_repair`]).
pub use cmem_core::repair::words::RepairBands;
/// The workspace's one way to write plain setters, for the crates built on this one
/// (see `cmem_core::setters!`).
#[doc(hidden)]
pub use cmem_core::setters;
pub use cmem_core::{
    client_masks, context_for, lookup, lookup_several, prepare_query, provenance, to_notation,
    AttributePenalty, ContentMemory, ContentMemoryExt, Context, ContextOptions, ContextRequest, Entry,
    EntryId, Error, ErrorKind, Example, GlossaryPair, Locale, LocaleFit, LookupOptions, LookupRequest, Match,
    MatchType, MatchView, NewEntry, Notation, Origin, PairCount, PenaltyKind, Point, PriorVersion, Provider,
    QueryContext, QueryText, Recognizer, Result, Run, SearchHit, SearchQuery, SegmentView, ServedPairs,
    SourceRank, Stats, Variant, Version, VersionQuery, VersionRequest, WaitHook, WriteOutcome,
};
/// The capabilities a store may offer beyond [`ContentMemory`], for store implementers.
pub use cmem_core::{Capabilities, IndexControl, MetaStore, WordIndex, WordModels};
/// File formats: readers, writers, import and export, recycle and analyze.
pub use cmem_formats as formats;
