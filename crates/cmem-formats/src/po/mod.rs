//! GNU gettext PO catalogs: import ([`PoReader`]), export ([`PoWriter`]),
//! pre-translation of a PO or POT file ([`recycle_po`]) and its leverage report
//! ([`analyze_po`]).
//!
//! # What a message becomes
//!
//! | PO | entry |
//! |---|---|
//! | `msgid` / `msgstr` | the source variant (`--from`, default `en`) and the target variant (the header's `Language`, or the options') |
//! | `msgid` + `msgid_plural` / `msgstr[N]` | one entry whose source is a plural choice with the forms `one` (msgid) and `other` (msgid_plural), and whose target is a plural choice with one form per `msgstr[N]`, keyed `0`, `1`, … (the gettext index: which CLDR category an index stands for depends on the catalog's `Plural-Forms` expression, which the memory does not evaluate) |
//! | `msgctxt` | the entry's `unit` |
//! | `Project-Id-Version` (else the file name) | the entry's `project_id` |
//! | `#, c-format`, `#, python-format`, `#, python-brace-format`, … | the recognizer rules for that message's strings (below) |
//! | references, flags, comments | metadata `po:references`, `po:flags`, `po:comment`, `po:extracted` (what export writes back) |
//! | the `msgid`s of the live messages before and after | metadata `tmx:prop:x-context-pre` and `-post` (empty at the ends), for context matches |
//!
//! By default a `#, fuzzy` message, an obsolete (`#~`) one and an untranslated one are
//! not imported ([`PoOptions::fuzzy`], [`PoOptions::obsolete`] take the first two);
//! [`PoReader::tally`] counts each kind, so every message of a file is accounted for:
//! imported, skipped by kind, or a located problem (`FILE:LINE`).
//!
//! # Format flags choose the recognizer
//!
//! With a recognizer hook (what `cmem import` passes unless told not to), a message
//! flagged with a format language is recognized by the rule sets of that language
//! alone plus markup, so that `{0}` in a C string stays text and `%s` in a
//! brace-format string does too:
//!
//! | flag | rule sets |
//! |---|---|
//! | `c-format`, `objc-format`, `c++-format`, `javascript-format`, `php-format`, `perl-format` | `printf,html,xml-entity` |
//! | `gcc-internal-format`, `gfc-internal-format` | `printf,gcc,html,xml-entity` |
//! | `python-format` | `printf,python,html,xml-entity` |
//! | `python-brace-format`, `csharp-format`, `java-format`, `perl-brace-format`, `rust-format` | `brace,html,xml-entity` |
//! | `qt-format`, `kde-format`, `qt-plural-format`, `kde-kuit-format` | `qt,html,xml-entity` |
//! | `no-…-format` | `html,xml-entity` |
//! | none of these | the hook |
//!
//! # Charsets
//!
//! A catalog is read as UTF-8 unless its header's `Content-Type` names another charset
//! (any label of the WHATWG Encoding standard: ISO-8859-2, KOI8-R, windows-1251, …);
//! a template's `charset=CHARSET` means UTF-8.
//!
//! ```
//! use cmem_formats::{collect_items, PoOptions, PoReader};
//!
//! let po = "msgid \"\"\nmsgstr \"Language: de\\n\"\n\n#: main.c:4\nmsgctxt \"menu\"\nmsgid \"Open\"\nmsgstr \"Öffnen\"\n";
//! let (entries, problems) = collect_items(PoReader::new(po.as_bytes(), PoOptions::default(), None)?)?;
//! assert!(problems.is_empty());
//! assert_eq!(entries[0].variants[1].locale.as_str(), "de");
//! assert_eq!(entries[0].unit, "menu");
//! # Ok::<(), cmem_formats::FormatError>(())
//! ```

mod parse;
mod read;
mod recycle;
mod write;

pub use parse::{Catalog, Header, Message, MsgStr};
pub use read::{po_locale, PoOptions, PoReader, PoTally};
pub(crate) use read::{text_runs, Counter, MessageRunner};
pub(crate) use recycle::analyze_po_counted;
pub(crate) use recycle::recycle_po_bytes;
pub use recycle::{analyze_po, recycle_po, PoRecycleReport};
pub use write::PoWriter;

/// The [`QueryContext`](cmem_core::QueryContext) of message `k` of `live` (the catalog's
/// messages without the header and obsolete ones): its `msgctxt` and the `msgid`s
/// before and after it.
pub(crate) fn neighbour_context(live: &[&Message], k: usize) -> cmem_core::QueryContext {
    let (pre, post) = neighbour_runs(live, k);
    cmem_core::QueryContext::of(
        live[k].context.as_deref().unwrap_or_default(),
        pre.as_deref(),
        post.as_deref(),
    )
}

/// The metadata that keeps message `k`'s neighbours (see [`neighbour_context`]).
pub(crate) fn neighbour_metadata(live: &[&Message], k: usize) -> Vec<(String, String)> {
    let (pre, post) = neighbour_runs(live, k);
    cmem_core::context_metadata(pre.as_deref(), post.as_deref())
}

/// The `msgid`s around message `k` as text runs (codes are not recognized: both sides
/// of a context compare the catalog's own text).
fn neighbour_runs(live: &[&Message], k: usize) -> (Option<Vec<cmem_core::Run>>, Option<Vec<cmem_core::Run>>) {
    let text = |m: &&Message| vec![cmem_core::Run::text(m.id.clone())];
    let pre = k.checked_sub(1).and_then(|i| live.get(i)).map(text);
    (pre, live.get(k + 1).map(text))
}

/// Reads a whole catalog: decoded, parsed, its syntax problems located.
///
/// # Errors
/// [`FormatErrorKind::Io`](crate::error::FormatErrorKind::Io) reading, [`FormatErrorKind::Encoding`](crate::error::FormatErrorKind::Encoding)
/// for bytes invalid in the catalog's charset.
pub fn read_catalog(mut input: impl std::io::Read, file: &str) -> Result<Catalog, crate::FormatError> {
    let mut raw = Vec::new();
    input
        .read_to_end(&mut raw)
        .map_err(|e| crate::FormatError::io(crate::Format::Po, "cannot read", e).in_file(file))?;
    let (text, encoding) = parse::decode(&raw, file)?;
    Ok(parse::parse(text, encoding, file))
}
