//! What the readers yield: entries, and the problems met on the way.

use cmem_core::{Locale, NewEntry};

use crate::error::FormatError;

/// One thing read from a file: an entry, or a recoverable problem (located, with its
/// kind and the entry it concerns). Fatal errors end a reader's iteration as `Err`.
#[derive(Debug)]
pub enum Item {
    /// An entry to store.
    Entry(NewEntry),
    /// A recoverable problem; reading goes on.
    Problem(FormatError),
}

impl Item {
    /// The entry, if this is one.
    pub fn entry(self) -> Option<NewEntry> {
        match self {
            Item::Entry(e) => Some(e),
            Item::Problem(_) => None,
        }
    }
}

/// Splits a reader's output into entries and problems, stopping at the first fatal
/// error. Convenient for small files and tests; imports stream instead.
///
/// # Errors
/// The first fatal error the iterator yields.
pub fn collect_items(
    items: impl Iterator<Item = Result<Item, FormatError>>,
) -> Result<(Vec<NewEntry>, Vec<FormatError>), FormatError> {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for item in items {
        match item? {
            Item::Entry(e) => entries.push(e),
            Item::Problem(p) => problems.push(p),
        }
    }
    Ok((entries, problems))
}

/// The locale of the first variant of `entry` whose segment is empty or only white
/// space (text alone, no inline code): such an entry is a problem, not stored, since
/// every empty query would match it exactly.
pub fn blank_variant(entry: &NewEntry) -> Option<&Locale> {
    entry
        .variants
        .iter()
        .find(|v| cmem_core::model::run::text_only(&v.runs).is_some_and(|t| t.trim().is_empty()))
        .map(|v| &v.locale)
}
