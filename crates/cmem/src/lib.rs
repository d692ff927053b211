//! cmem, a content (translation) memory: the crate front ends and programs depend on.
//!
//! Open a memory by address with [`Memory::open`] — a file path or `sqlite:PATH` (the
//! embedded default, feature `sqlite`), `memory:` (a private in-memory memory) — and use
//! it: [`Memory::lookup`], and every operation of the store trait through
//! [`Memory::store`]. Files go in and out through [`formats`] ([`formats::Ingest`] reads
//! any supported input, [`formats::import()`] stores it all or nothing). A match is shown
//! to clients as a [`MatchView`], the same JSON everywhere.
//!
//! ```
//! use cmem::{Locale, LookupRequest, Memory, OpenOptions, QueryText, Recognizer};
//! use cmem::formats::{import, Format, ImportOptions, Ingest, IngestOptions, Input};
//!
//! let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
//! let rec = Recognizer::default();
//! let hook = |s: &str, t: &str| rec.recognize_pair(s, t);
//! let file = r#"{"source":"Open %s","target":"%s öffnen","source_locale":"en","target_locale":"de"}"#;
//! let input = Input::from_reader("ui.jsonl", Format::Jsonl, file.as_bytes());
//! import(memory.store(), Ingest::new(vec![input], IngestOptions::default(), Some(&hook)),
//!        &ImportOptions::default(), &mut |_| {})?;
//!
//! let query = cmem::prepare_query(QueryText::Plain("Open %d"), Some(&rec))?;
//! let req = LookupRequest::new(query, Locale::parse("en")?, Locale::parse("de")?);
//! let best = &memory.lookup(&req)?[0];
//! assert_eq!(cmem::MatchView::of(best).adapted_target.text, "%d öffnen");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod address;
#[doc = include_str!("../../../docs/matching.md")]
pub mod matching {}
mod memory;

pub use address::Address;
pub use memory::{rule_set_name, Memory, OpenOptions, RECOGNIZER_META};

pub use cmem_core::{
    lookup, prepare_query, ContentMemory, Entry, EntryId, Error, ErrorKind, Locale, LookupOptions,
    LookupRequest, Match, MatchType, MatchView, NewEntry, Point, QueryText, Recognizer, Result, Run,
    SearchHit, SearchQuery, SegmentView, Stats, Variant, VersionQuery, WaitHook, WriteOutcome,
};
/// File formats: readers, writers, import and export, recycle and analyze.
pub use cmem_formats as formats;
