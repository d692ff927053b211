//! Reading back what a database store keeps in its columns (the schema's stored forms):
//! one decoder for every store, so a damaged row reads as the same located
//! [`ErrorKind::Corrupt`] error everywhere. For store implementers.

use crate::error::{Error, ErrorKind, Result};
use crate::model::entry::{EntryId, Metadata, Variant};
use crate::model::locale::Locale;
use crate::model::point::Point;
use crate::model::run::runs_from_json;

/// The error for a damaged column of entry `id` in the `kind` store `name`.
fn damaged(kind: &str, name: &str, what: String, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::with_source(ErrorKind::Corrupt, format!("{kind} store {name}: {what}"), e)
}

/// Entry `id`'s stored metadata (JSON), parsed; `kind` and `name` name the store
/// (`"sqlite"`, its file) in the error.
///
/// # Errors
/// [`ErrorKind::Corrupt`] when the text is not the metadata's JSON.
pub fn metadata(kind: &str, name: &str, id: EntryId, text: &str) -> Result<Metadata> {
    serde_json::from_str(text)
        .map_err(|e| damaged(kind, name, format!("entry {id}: unreadable metadata {text:?}"), e))
}

/// Entry `id`'s stored point, parsed.
///
/// # Errors
/// [`ErrorKind::Corrupt`] when it is not a point.
pub fn point(kind: &str, name: &str, id: EntryId, text: &str) -> Result<Point> {
    Point::parse(text).map_err(|e| damaged(kind, name, format!("entry {id}: stored point"), e))
}

/// A variant of entry `id` from its stored locale tag and runs (JSON).
///
/// # Errors
/// [`ErrorKind::Corrupt`] when the tag or the runs do not parse.
pub fn variant(kind: &str, name: &str, id: EntryId, tag: &str, runs: &str) -> Result<Variant> {
    let locale = Locale::parse(tag)
        .map_err(|e| damaged(kind, name, format!("entry {id}: stored locale {tag:?}"), e))?;
    let runs =
        runs_from_json(runs).map_err(|e| damaged(kind, name, format!("entry {id}: stored runs"), e))?;
    Ok(Variant::new(locale, runs))
}

/// A stored approval count as the model's (a damaged negative count reads as 1).
pub fn approvals(n: i64) -> u32 {
    u32::try_from(n.max(1)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_columns_are_corrupt_errors_naming_store_and_entry() {
        let e = metadata("sqlite", "m.db", EntryId(7), "{not json").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Corrupt);
        assert!(e.to_string().contains("sqlite store m.db: entry 7"), "{e}");
        assert!(point("postgres", "db", EntryId(1), "a//b").is_err());
        assert!(variant("sqlite", "m.db", EntryId(2), "not a locale!", "[]").is_err());
        assert!(variant("sqlite", "m.db", EntryId(2), "de", "[{").is_err());
        let v = variant("sqlite", "m.db", EntryId(2), "de", r#"[{"text":"Hallo"}]"#).unwrap();
        assert_eq!(v.locale.as_str(), "de");
        assert_eq!((approvals(-3), approvals(0), approvals(4), approvals(i64::MAX)), (1, 1, 4, u32::MAX));
    }
}
