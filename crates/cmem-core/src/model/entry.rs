//! Entries: one translation unit with a variant per locale, its point, unit,
//! provenance and metadata (docs/matching.md §3).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::key::Keys;
use crate::model::locale::{Locale, LocaleFit};
use crate::model::point::Point;
use crate::model::run::Run;

/// A stable entry id, assigned by the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(transparent)]
pub struct EntryId(pub i64);

impl fmt::Display for EntryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One locale's content of an entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// The variant's locale.
    pub locale: Locale,
    /// The content.
    pub runs: Vec<Run>,
}

impl Variant {
    /// A variant.
    pub fn new(locale: Locale, runs: Vec<Run>) -> Self {
        Variant { locale, runs }
    }

    /// The three matching keys of the runs.
    pub fn keys(&self) -> Keys {
        Keys::of(&self.runs)
    }
}

/// A write event that produced or re-approved an entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Origin {
    /// The project that wrote it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub project_id: String,
    /// A fingerprint of the context the answer was approved in; empty if ungoverned.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_fingerprint: String,
    /// When, as RFC 3339 in UTC (`2024-06-11T12:00:00Z`); sorts as text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub created_at: String,
}

fn at_most_one(n: &u32) -> bool {
    *n <= 1
}

/// Free key/value pairs kept for export (TMX props and notes, dates, users). A key may
/// repeat; order is kept.
pub type Metadata = Vec<(String, String)>;

/// An entry to write: everything but the id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct NewEntry {
    /// One variant per locale; at least two, no two with the same locale.
    pub variants: Vec<Variant>,
    /// Where its answer was approved; the root for a seed or an import.
    #[serde(default, skip_serializing_if = "Point::is_root")]
    pub point: Point,
    /// The durable identity of the content block; empty for a seed or an import.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit: String,
    /// Provenance.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub project_id: String,
    /// Write events, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<Origin>,
    /// Free key/value pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metadata: Metadata,
    /// How many approvals this write brings (0 is read as 1): a store adds them to an
    /// equal entry it already holds.
    #[serde(default, skip_serializing_if = "at_most_one")]
    pub approvals: u32,
}

impl NewEntry {
    /// A bilingual entry with no point, unit or provenance.
    pub fn pair(source: Variant, target: Variant) -> Self {
        NewEntry { variants: vec![source, target], ..NewEntry::default() }
    }

    /// Checks what a store requires: at least two variants, with distinct locales.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidEntry`](crate::ErrorKind::InvalidEntry) saying which.
    pub fn validate(&self) -> Result<()> {
        if self.variants.len() < 2 {
            return Err(Error::invalid_entry(format!(
                "an entry needs at least two variants, found {}",
                self.variants.len()
            )));
        }
        for (i, a) in self.variants.iter().enumerate() {
            if self.variants[..i].iter().any(|b| b.locale == a.locale) {
                return Err(Error::invalid_entry(format!("duplicate variant locale {}", a.locale)));
            }
        }
        Ok(())
    }

    /// A stable 64-bit hash of the dedupe identity: variants (locale and runs), point and
    /// unit (docs/matching.md §3). Equal identities hash alike across runs and machines.
    pub fn identity_hash(&self) -> u64 {
        identity_hash(&self.variants, &self.point, &self.unit)
    }

    /// True when writing `self` would re-approve `existing` instead of adding an entry.
    pub fn same_identity(&self, existing: &Entry) -> bool {
        self.point == existing.point
            && self.unit == existing.unit
            && same_variants(&self.variants, &existing.variants)
    }

    /// The entry this becomes under `id`.
    pub fn into_entry(self, id: EntryId) -> Entry {
        Entry {
            id,
            approvals: self.approvals.max(1),
            variants: self.variants,
            point: self.point,
            unit: self.unit,
            project_id: self.project_id,
            origins: self.origins,
            metadata: self.metadata,
        }
    }
}

fn sorted_variants(variants: &[Variant]) -> Vec<&Variant> {
    let mut v: Vec<&Variant> = variants.iter().collect();
    v.sort_by(|a, b| a.locale.cmp(&b.locale));
    v
}

fn same_variants(a: &[Variant], b: &[Variant]) -> bool {
    a.len() == b.len() && sorted_variants(a) == sorted_variants(b)
}

/// FNV-1a over the canonical JSON of the identity: stable, unlike `std`'s hasher.
fn identity_hash(variants: &[Variant], point: &Point, unit: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    for v in sorted_variants(variants) {
        feed(v.locale.as_str().as_bytes());
        feed(crate::model::run::runs_to_json(&v.runs).as_bytes());
    }
    feed(point.as_str().as_bytes());
    feed(unit.as_bytes());
    h
}

/// A stored entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Stable id.
    pub id: EntryId,
    /// One variant per locale.
    pub variants: Vec<Variant>,
    /// Where its answer was approved; the root for a seed or an import.
    #[serde(default, skip_serializing_if = "Point::is_root")]
    pub point: Point,
    /// The durable identity of the content block; empty for a seed or an import.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit: String,
    /// Provenance.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub project_id: String,
    /// Write events, oldest first (newest last).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<Origin>,
    /// Free key/value pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metadata: Metadata,
    /// How many times the answer was approved: 1 when written, plus the approvals of
    /// every equal entry written since (0 is read as 1; see [`Entry::approvals`]).
    #[serde(default, skip_serializing_if = "at_most_one")]
    pub approvals: u32,
}

impl Entry {
    /// The variant for `locale` by the prefix rule, preferring an equal tag.
    pub fn variant(&self, locale: &Locale) -> Option<&Variant> {
        self.variant_index(locale).map(|i| &self.variants[i])
    }

    /// The index of the variant for `locale` by the prefix rule, preferring an equal tag.
    pub fn variant_index(&self, locale: &Locale) -> Option<usize> {
        self.variants
            .iter()
            .position(|v| v.locale == *locale)
            .or_else(|| self.variants.iter().position(|v| v.locale.matches(locale)))
    }

    /// The variant a lookup in `locale` uses, with how well it fits
    /// ([`Locale::fit`]): the best fit (an equal tag, then a subtag prefix, then another
    /// region of the language), the first of equals. Unlike
    /// [`variant_index`](Self::variant_index) it falls back to another region.
    pub fn lookup_variant(&self, locale: &Locale) -> Option<(usize, LocaleFit)> {
        self.lookup_variant_except(locale, usize::MAX)
    }

    /// [`lookup_variant`](Self::lookup_variant) among the variants other than `except`.
    pub fn lookup_variant_except(&self, locale: &Locale, except: usize) -> Option<(usize, LocaleFit)> {
        let mut best: Option<(usize, LocaleFit)> = None;
        for (i, v) in self.variants.iter().enumerate() {
            if i == except {
                continue;
            }
            if let Some(fit) = locale.fit(&v.locale) {
                if best.is_none_or(|(_, b)| fit < b) {
                    best = Some((i, fit));
                }
            }
        }
        best
    }

    /// The source and target variants a lookup from `source` to `target` uses (the best
    /// fits, two different variants), and the region penalty they cost together.
    pub(crate) fn lookup_pair(&self, source: &Locale, target: &Locale) -> Option<(usize, usize, u8)> {
        let (ti, tfit) = self.lookup_variant(target)?;
        let (si, sfit) = self.lookup_variant_except(source, ti)?;
        Some((si, ti, sfit.penalty() + tfit.penalty()))
    }

    /// The newest origin, if any.
    pub fn newest_origin(&self) -> Option<&Origin> {
        self.origins.last()
    }

    /// The entry without its id, as written.
    pub fn to_new(&self) -> NewEntry {
        NewEntry {
            variants: self.variants.clone(),
            point: self.point.clone(),
            unit: self.unit.clone(),
            project_id: self.project_id.clone(),
            origins: self.origins.clone(),
            metadata: self.metadata.clone(),
            // One approval is written as the default (0), so an entry read back equals
            // the entry as written.
            approvals: if self.approvals() == 1 { 0 } else { self.approvals },
        }
    }

    /// How many times the answer was approved (at least 1).
    pub fn approvals(&self) -> u32 {
        self.approvals.max(1)
    }

    /// When the answer was approved last: the newest `created_at` of its origins (RFC
    /// 3339 text; empty when none is known).
    pub fn last_approved(&self) -> &str {
        self.origins.iter().map(|o| o.created_at.as_str()).max().unwrap_or("")
    }

    /// Records a write of an equal entry: its origins appended, its approvals added.
    pub fn reapprove(&mut self, new: &NewEntry) {
        merge_origins(&mut self.origins, &new.origins);
        self.approvals = self.approvals().saturating_add(new.approvals.max(1));
    }

    /// [`NewEntry::identity_hash`] of this entry.
    pub fn identity_hash(&self) -> u64 {
        identity_hash(&self.variants, &self.point, &self.unit)
    }
}

/// What a write did with one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    /// A new entry with this id.
    Inserted(EntryId),
    /// An equal entry existed; its origins were extended.
    Deduplicated(EntryId),
}

impl WriteOutcome {
    /// The id written or re-approved.
    pub fn id(self) -> EntryId {
        match self {
            WriteOutcome::Inserted(id) | WriteOutcome::Deduplicated(id) => id,
        }
    }
}

/// Appends to `existing` the origins of `new` it does not have yet (dedupe, docs/matching.md §3).
pub fn merge_origins(existing: &mut Vec<Origin>, new: &[Origin]) {
    for o in new {
        if !existing.contains(o) {
            existing.push(o.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(loc: &str, text: &str) -> Variant {
        Variant::new(Locale::parse(loc).unwrap(), vec![Run::text(text)])
    }

    #[test]
    fn validate() {
        assert!(NewEntry::pair(v("en", "a"), v("de", "b")).validate().is_ok());
        assert!(NewEntry::pair(v("en", "a"), v("en", "b")).validate().is_err());
        let one = NewEntry { variants: vec![v("en", "a")], ..NewEntry::default() };
        assert!(one.validate().is_err());
    }

    #[test]
    fn identity_ignores_variant_order_and_provenance() {
        let a = NewEntry::pair(v("en", "a"), v("de", "b"));
        let mut b = NewEntry::pair(v("de", "b"), v("en", "a"));
        b.project_id = "p".into();
        assert_eq!(a.identity_hash(), b.identity_hash());
        assert!(b.same_identity(&a.clone().into_entry(EntryId(1))));
        let mut c = a.clone();
        c.unit = "u".into();
        assert_ne!(a.identity_hash(), c.identity_hash());
    }

    #[test]
    fn variant_lookup_prefers_equal_tag() {
        let e =
            NewEntry { variants: vec![v("en", "a"), v("de-AT", "b"), v("de", "c")], ..NewEntry::default() }
                .into_entry(EntryId(1));
        assert_eq!(e.variant_index(&Locale::parse("de").unwrap()), Some(2));
        assert_eq!(e.variant_index(&Locale::parse("de-AT").unwrap()), Some(1));
        assert_eq!(e.variant_index(&Locale::parse("de-CH").unwrap()), Some(2));
        assert_eq!(e.variant_index(&Locale::parse("fr").unwrap()), None);
    }

    #[test]
    fn lookup_variant_falls_back_to_another_region() {
        let e = NewEntry {
            variants: vec![v("en-US", "a"), v("de-AT", "b"), v("de-DE", "c")],
            ..NewEntry::default()
        }
        .into_entry(EntryId(1));
        let l = |t: &str| Locale::parse(t).unwrap();
        assert_eq!(e.lookup_variant(&l("de-DE")), Some((2, LocaleFit::Equal)));
        assert_eq!(e.lookup_variant(&l("de")), Some((1, LocaleFit::Prefix)));
        assert_eq!(e.lookup_variant(&l("de-CH")), Some((1, LocaleFit::Region)));
        assert_eq!(e.lookup_variant(&l("en-GB")), Some((0, LocaleFit::Region)));
        assert_eq!(e.lookup_variant_except(&l("de-AT"), 1), Some((2, LocaleFit::Region)));
        assert_eq!(e.variant_index(&l("de-CH")), None);
        assert_eq!(e.lookup_variant(&l("fr")), None);
    }
}
