//! Version chains: a block's prior answers, related by `unit` (docs/matching.md §6).

use crate::error::{Error, Result};
use crate::model::entry::{Entry, EntryId};
use crate::model::locale::Locale;
use crate::model::point::Point;

/// How many versions a query returns when its limit is 0.
pub const DEFAULT_VERSION_LIMIT: usize = 10;

/// Which versions to return.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct VersionQuery {
    /// The block; required.
    pub unit: String,
    /// Narrow to one point; the root means every point the block has sat at.
    pub point: Point,
    /// Newest first, at most this many; 0 = [`DEFAULT_VERSION_LIMIT`].
    pub limit: usize,
}

crate::setters!(VersionQuery { point: Point, limit: usize });

impl VersionQuery {
    /// Versions of `unit` at every point.
    pub fn new(unit: impl Into<String>) -> Self {
        VersionQuery { unit: unit.into(), point: Point::root(), limit: 0 }
    }

    /// Checks the query: the unit must not be empty.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidQuery`](crate::ErrorKind::InvalidQuery).
    pub fn validate(&self) -> Result<()> {
        if self.unit.is_empty() {
            return Err(Error::invalid_query("version query: the unit is empty"));
        }
        Ok(())
    }

    /// The effective limit.
    pub fn effective_limit(&self) -> usize {
        if self.limit == 0 {
            DEFAULT_VERSION_LIMIT
        } else {
            self.limit
        }
    }
}

/// One prior answer of a block.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Version {
    /// The entry.
    pub entry: Entry,
    /// The context fingerprint of its newest origin; empty if ungoverned.
    pub context_fingerprint: String,
}

impl Version {
    /// A version of `entry`.
    pub fn of(entry: Entry) -> Self {
        let context_fingerprint =
            entry.newest_origin().map(|o| o.context_fingerprint.clone()).unwrap_or_default();
        Version { entry, context_fingerprint }
    }

    /// True only when both fingerprints are non-empty and equal.
    pub fn governed_by(&self, fingerprint: &str) -> bool {
        !fingerprint.is_empty() && fingerprint == self.context_fingerprint
    }
}

/// The order of versions: newest first, by the newest origin's time, then by id.
pub fn version_order(a: &Entry, b: &Entry) -> std::cmp::Ordering {
    let t = |e: &Entry| e.newest_origin().map(|o| o.created_at.clone()).unwrap_or_default();
    t(b).cmp(&t(a)).then(b.id.cmp(&a.id))
}

/// Selects, orders and cuts versions from a block's entries (for stores that fetch
/// every entry of a unit and filter in memory).
pub fn select_versions(mut entries: Vec<Entry>, q: &VersionQuery, exclude: Option<EntryId>) -> Vec<Version> {
    entries
        .retain(|e| e.unit == q.unit && Some(e.id) != exclude && (q.point.is_root() || e.point == q.point));
    entries.sort_by(version_order);
    entries.truncate(q.effective_limit());
    entries.into_iter().map(Version::of).collect()
}

/// The optional capability of returning a block's prior answers.
pub trait VersionReader {
    /// The versions of `q.unit`, newest first, without `exclude`.
    ///
    /// # Errors
    /// An empty unit, or a store failure.
    fn versions(&self, q: &VersionQuery, exclude: Option<EntryId>) -> Result<Vec<Version>>;
}

/// A request for the prior answer of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VersionRequest {
    /// The block.
    pub unit: String,
    /// Narrow to one point; the root = every point.
    pub point: Point,
    /// The caller's context fingerprint: the prior answer is returned only when its
    /// newest origin carries the same, non-empty one.
    pub context_fingerprint: String,
    /// The source locale of the texts returned.
    pub source_locale: Locale,
    /// The target locale of the texts returned.
    pub target_locale: Locale,
    /// An entry to leave out (the caller's own, current one).
    pub exclude: Option<EntryId>,
}

crate::setters!(VersionRequest {
    point: Point,
    exclude: Option<EntryId>,
});

impl VersionRequest {
    /// A request for `unit` governed by `fingerprint`.
    pub fn new(
        unit: impl Into<String>,
        fingerprint: impl Into<String>,
        source_locale: Locale,
        target_locale: Locale,
    ) -> Self {
        VersionRequest {
            unit: unit.into(),
            point: Point::root(),
            context_fingerprint: fingerprint.into(),
            source_locale,
            target_locale,
            exclude: None,
        }
    }

    /// Sets [`context_fingerprint`](Self::context_fingerprint).
    #[must_use]
    pub fn context_fingerprint(mut self, fingerprint: impl Into<String>) -> Self {
        self.context_fingerprint = fingerprint.into();
        self
    }
}

/// The prior answer's texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorVersion {
    /// The entry it came from.
    pub entry_id: EntryId,
    /// Its source text (plain key).
    pub source: String,
    /// Its target text (plain key).
    pub target: String,
}

/// Walks the chain with limit 1, applies the fingerprint gate and returns the prior
/// answer's source and target texts, or nothing.
///
/// # Errors
/// An empty unit, or a store failure.
pub fn prior_version_for(reader: &dyn VersionReader, req: &VersionRequest) -> Result<Option<PriorVersion>> {
    let q = VersionQuery { unit: req.unit.clone(), point: req.point.clone(), limit: 1 };
    q.validate()?;
    let Some(v) = reader.versions(&q, req.exclude)?.into_iter().next() else {
        return Ok(None);
    };
    if !v.governed_by(&req.context_fingerprint) {
        return Ok(None);
    }
    let (Some(s), Some(t)) = (v.entry.variant(&req.source_locale), v.entry.variant(&req.target_locale))
    else {
        return Ok(None);
    };
    Ok(Some(PriorVersion {
        entry_id: v.entry.id,
        source: crate::model::key::flatten_runs(&s.runs),
        target: crate::model::key::flatten_runs(&t.runs),
    }))
}
