//! The streaming TMX reader: TMX 1.1 (`lang`), 1.4 and 1.4b (`xml:lang`), levels 1
//! and 2, in UTF-8, UTF-16 (with a BOM) or a declared single-byte encoding.
//!
//! [`TmxReader`] is an iterator of [`Item`](crate::Item)s: one [`Item::Entry`](crate::Item::Entry) per `tu` with two or
//! more usable `tuv`s (one variant per locale, however many locales), and an
//! [`Item::Problem`](crate::Item::Problem) for each recoverable fault, located by line, column and `tu`
//! (index and `tuid`). Malformed XML, a character XML 1.0 forbids (a C0 control other
//! than tab and line ends, raw or as a reference), an undefined entity, an unsupported
//! encoding and exceeded resource caps end the iteration with a located `Err`. Only one `tu` is held
//! in memory at a time.
//!
//! # Metadata keys
//!
//! What TMX says about a `tu` beyond its text goes into [`NewEntry::metadata`](cmem_core::NewEntry::metadata), in
//! document order:
//!
//! | key | from |
//! |---|---|
//! | `tmx:ATTR` | an attribute of the `tu` (`tmx:tuid`, `tmx:creationdate`, `tmx:creationid`, `tmx:changedate`, `tmx:changeid`, `tmx:usagecount`, `tmx:lastusagedate`, `tmx:datatype`, `tmx:segtype`, `tmx:o-tmf`, …) |
//! | `tmx:srclang` | the `tu`'s `srclang` when it is `*all*` or names no `tuv` (otherwise the source variant is simply put first) |
//! | `tmx:prop:TYPE` | `<prop type="TYPE">` on the `tu` |
//! | `tmx:note` | `<note>` on the `tu` |
//! | `tmx:tuv:LOCALE:ATTR`, `tmx:tuv:LOCALE:prop:TYPE`, `tmx:tuv:LOCALE:note` | the same on a `tuv` (canonical locale) |
//! | `tmx:header:ATTR`, `tmx:header:prop:TYPE`, `tmx:header:note` | the header, copied into every entry only with [`TmxOptions::header_metadata`] |
//!
//! # cmem's own fields
//!
//! The fields of an entry that TMX has no place for travel as properties whose types
//! start with `x-cmem-` (TMX 1.4b §3.6 reserves `x-` types for user data):
//!
//! | property | on | value |
//! |---|---|---|
//! | `x-cmem-point` | `tu` | the point (`web/eu/docs`) |
//! | `x-cmem-unit` | `tu` | the unit |
//! | `x-cmem-project` | `tu` | the project id |
//! | `x-cmem-origin` | `tu`, once per origin, oldest first | the origin as JSON (`{"project_id":…,"context_fingerprint":…,"created_at":…}`) |
//! | `x-cmem-meta:KEY` | `tu` | a metadata pair with no TMX home |
//! | `x-cmem-metadata` | `tu` | the whole metadata as a JSON array of pairs, written only when the TMX layout above would not give it back in order; it then wins |
//! | `x-cmem-runs` | `tuv` | the exact runs as JSON (docs/matching.md §1), written only when the `seg` cannot carry them (see [`inline`](crate::inline)); it then wins over the `seg` |
//!
//! Text values (point, unit, project, `x-cmem-meta:`) are written as they are, or as a
//! JSON string (starting with `"`) when they start with `"` or hold characters XML
//! cannot carry. Inline codes, entities (`<ph type="x-cmem-entity:PERSON">John</ph>`)
//! and choices are described in [`inline`](crate::inline).
//!
//! # Safety
//!
//! No DTD is processed: a `DOCTYPE` is skipped, custom entities are never expanded
//! (a reference to one is an [`FormatErrorKind::Xml`](crate::error::FormatErrorKind::Xml) error), so entity-expansion bombs
//! cannot grow. Element nesting deeper than [`TmxOptions::max_depth`] and a `tu`
//! larger than [`TmxOptions::max_tu_bytes`] are
//! [`FormatErrorKind::Limit`](crate::error::FormatErrorKind::Limit) errors.
//!
//! # Files
//!
//! This file holds the reader's options and header; `read` reads the document `tu` by
//! `tu`, `seg` turns a `seg` into runs, and `write` is the [`TmxWriter`].

mod read;
mod seg;
mod write;

pub use read::TmxReader;
pub use write::{TmxWriteOptions, TmxWriter};

/// Options of the TMX reader.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TmxOptions {
    /// Turn the first problem into an error.
    pub strict: bool,
    /// The deepest element nesting accepted (default 64; TMX needs about 10).
    pub max_depth: usize,
    /// The largest `tu` accepted, in bytes of UTF-8 markup (default 16 MiB); also the
    /// largest single piece of markup or text outside a `tu` (a DOCTYPE, a comment).
    pub max_tu_bytes: u64,
    /// Copy the header's attributes, properties and notes into every entry's metadata
    /// (`tmx:header:…`); off by default, since it repeats them in every entry.
    pub header_metadata: bool,
    /// The file name used in messages.
    pub file_name: String,
}

impl Default for TmxOptions {
    fn default() -> Self {
        TmxOptions {
            strict: false,
            max_depth: 64,
            max_tu_bytes: 16 * 1024 * 1024,
            header_metadata: false,
            file_name: String::new(),
        }
    }
}

/// The `<header>` of a TMX document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TmxHeader {
    /// The `version` of the `<tmx>` element (`1.4`, `1.1`).
    pub version: String,
    /// The header's attributes, in order.
    pub attributes: Vec<(String, String)>,
    /// `(type, value)` of each header `<prop>`.
    pub props: Vec<(String, String)>,
    /// Each header `<note>`.
    pub notes: Vec<String>,
}

impl TmxHeader {
    /// The value of a header attribute.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}
