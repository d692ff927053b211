//! Context matches (101 %) and penalties by attribute of the stored entry
//! (docs/matching.md §4; the choices in DESIGN.md §3.7).
//!
//! **Context.** A query may say where its segment stands in its document: the key of its
//! unit (a PO `msgctxt`, an XLIFF unit id, a JSON key) and the source texts of the
//! segments before and after it. A stored entry carries the same: its
//! [`unit`](crate::Entry::unit) and, in its metadata, the neighbours' texts under
//! [`CONTEXT_PRE`] and [`CONTEXT_POST`] (the names TMX files from memoQ, Trados and
//! OmegaT give them, so a TMX import reads them and an export writes them back without
//! a conversion). An exact match of text and codes whose context is the query's is a
//! [`MatchType::ContextExact`](crate::MatchType::ContextExact) match.
//!
//! **Penalties by attribute.** [`AttributePenalty`] rules take points off a match whose
//! stored entry has an attribute: its project, its client, its origin (machine
//! translation, an unreviewed import), its status, the file it came from.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::entry::Entry;
use crate::model::key::{flatten_runs, normalize_text};
use crate::model::run::Run;

/// The metadata key of the source text of the segment before an entry's in its
/// document (TMX `<prop type="x-context-pre">`); empty: the first segment.
pub const CONTEXT_PRE: &str = "tmx:prop:x-context-pre";
/// The metadata key of the source text of the segment after an entry's in its
/// document (TMX `<prop type="x-context-post">`); empty: the last segment.
pub const CONTEXT_POST: &str = "tmx:prop:x-context-post";

/// The text a neighbour is compared by: its plain key (codes as `{equiv}`, white space
/// collapsed, NFC).
pub fn context_text(runs: &[Run]) -> String {
    normalize_text(&flatten_runs(runs))
}

/// Where a query's segment stands in its document. Each part is optional: an empty
/// key and `None` neighbours say nothing, and then no match is a context match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryContext {
    /// The unit's key (`msgctxt`, XLIFF unit id or `resname`, JSON key); empty: none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// The previous segment's source as [`context_text`]; `Some("")` at the start of
    /// the document, `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre: Option<String>,
    /// The next segment's source as [`context_text`]; `Some("")` at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post: Option<String>,
}

impl QueryContext {
    /// A context of a unit key and the neighbours' runs (`None`: no such neighbour, the
    /// segment is first or last).
    pub fn of(key: &str, pre: Option<&[Run]>, post: Option<&[Run]>) -> QueryContext {
        QueryContext {
            key: key.to_owned(),
            pre: Some(pre.map(context_text).unwrap_or_default()),
            post: Some(post.map(context_text).unwrap_or_default()),
        }
    }

    /// True when nothing is known.
    pub fn is_empty(&self) -> bool {
        self.key.is_empty() && self.pre.is_none() && self.post.is_none()
    }

    /// True when `entry` was stored in this context: both have the same unit key, or
    /// both neighbours are known on both sides and equal. (A differing key does not
    /// veto equal neighbours: XLIFF unit ids are often positional and change when a
    /// document is generated again; where two context matches disagree, the lookup
    /// treats neither as one.)
    pub fn matches(&self, entry: &Entry) -> bool {
        if !self.key.is_empty() && self.key == entry.unit {
            return true;
        }
        let stored =
            |key: &str| entry.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| normalize_text(v));
        match (&self.pre, &self.post, stored(CONTEXT_PRE), stored(CONTEXT_POST)) {
            (Some(pre), Some(post), Some(spre), Some(spost)) => *pre == spre && *post == spost,
            _ => false,
        }
    }
}

/// The metadata of an entry written from a document: its neighbours' texts
/// ([`CONTEXT_PRE`], [`CONTEXT_POST`]).
pub fn context_metadata(pre: Option<&[Run]>, post: Option<&[Run]>) -> Vec<(String, String)> {
    vec![
        (CONTEXT_PRE.to_owned(), pre.map(context_text).unwrap_or_default()),
        (CONTEXT_POST.to_owned(), post.map(context_text).unwrap_or_default()),
    ]
}

/// What an [`AttributePenalty`] looks at in a stored entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Attribute {
    /// The entry's project, or the project of any of its origins.
    Project,
    /// The client (metadata `client`, TMX prop `client` or `x-client`).
    Client,
    /// How the translation was made (metadata `origin`, TMX prop `origin` or
    /// `x-origin`): `mt`, `tm`, `human`, as the file says.
    Origin,
    /// Its review status (metadata `status`, TMX prop `status` or `x-status`):
    /// `unreviewed`, `draft`, as the file says.
    Status,
    /// The file it came from (metadata `file`, TMX prop `file` or `x-file`, as OmegaT
    /// writes it).
    File,
}

impl Attribute {
    /// Every attribute.
    pub const ALL: [Attribute; 5] =
        [Attribute::Project, Attribute::Client, Attribute::Origin, Attribute::Status, Attribute::File];

    /// The name (`origin`).
    pub fn as_str(self) -> &'static str {
        match self {
            Attribute::Project => "project",
            Attribute::Client => "client",
            Attribute::Origin => "origin",
            Attribute::Status => "status",
            Attribute::File => "file",
        }
    }

    /// The values `entry` has for this attribute.
    fn values(self, entry: &Entry) -> Vec<&str> {
        if self == Attribute::Project {
            let mut out = vec![entry.project_id.as_str()];
            out.extend(entry.origins.iter().map(|o| o.project_id.as_str()));
            out.retain(|p| !p.is_empty());
            return out;
        }
        let name = self.as_str();
        entry
            .metadata
            .iter()
            .filter(|(k, _)| {
                let k = k.strip_prefix("tmx:prop:").unwrap_or(k);
                let k = k.strip_prefix("x-").unwrap_or(k);
                k.eq_ignore_ascii_case(name)
            })
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// Points off a match whose stored entry has an attribute value: `origin:mt=10`,
/// `project:legacy=5`, `client:*=2` (any value). Values compare without case.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributePenalty {
    /// What is looked at.
    pub attribute: Attribute,
    /// The value that costs points; `*`: any value.
    pub value: String,
    /// Percentage points, 0–100.
    pub points: u8,
}

impl AttributePenalty {
    /// True when `entry` has the attribute value.
    pub fn applies_to(&self, entry: &Entry) -> bool {
        self.attribute
            .values(entry)
            .iter()
            .any(|v| self.value == "*" || v.trim().eq_ignore_ascii_case(&self.value))
    }
}

impl fmt::Display for AttributePenalty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}={}", self.attribute.as_str(), self.value, self.points)
    }
}

impl FromStr for AttributePenalty {
    type Err = Error;

    /// Parses `ATTRIBUTE:VALUE=POINTS`.
    fn from_str(s: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::invalid_query(format!(
                "penalty {s:?}: {why}; write ATTRIBUTE:VALUE=POINTS (origin:mt=10), the attribute one of \
                 project, client, origin, status, file"
            ))
        };
        let (rule, points) = s.rsplit_once('=').ok_or_else(|| bad("no `=POINTS`"))?;
        let (name, value) = rule.split_once(':').ok_or_else(|| bad("no `:VALUE`"))?;
        let attribute = Attribute::ALL
            .into_iter()
            .find(|a| a.as_str().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| bad(&format!("unknown attribute {name:?}")))?;
        let value = value.trim();
        if value.is_empty() {
            return Err(bad("empty value (`*` is any value)"));
        }
        let points: u8 = points.trim().parse().map_err(|_| bad("points must be a whole number 0–100"))?;
        if points > 100 {
            return Err(bad("points must be a whole number 0–100"));
        }
        Ok(AttributePenalty { attribute, value: value.to_owned(), points })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::entry::{EntryId, NewEntry, Variant};
    use crate::model::locale::Locale;

    fn entry(unit: &str, metadata: &[(&str, &str)]) -> Entry {
        let en = Locale::parse("en").unwrap();
        let de = Locale::parse("de").unwrap();
        let mut e =
            NewEntry::pair(Variant::new(en, vec![Run::text("a")]), Variant::new(de, vec![Run::text("b")]));
        e.unit = unit.to_owned();
        e.metadata = metadata.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        e.into_entry(EntryId(1))
    }

    #[test]
    fn the_key_or_the_neighbours() {
        let ctx = QueryContext { key: "menu".into(), pre: Some("x".into()), post: Some("y".into()) };
        assert!(ctx.matches(&entry("menu", &[])));
        assert!(ctx.matches(&entry("7", &[(CONTEXT_PRE, "x"), (CONTEXT_POST, "y")])));
        assert!(!ctx.matches(&entry("title", &[(CONTEXT_PRE, "x"), (CONTEXT_POST, "z")])));
        assert!(!QueryContext::default().matches(&entry("", &[])));
    }

    #[test]
    fn neighbours_decide_without_a_key() {
        let ctx = QueryContext::of("", Some(&[Run::text("Open  it")]), None);
        assert!(ctx.matches(&entry("", &[(CONTEXT_PRE, "Open it"), (CONTEXT_POST, "")])));
        assert!(!ctx.matches(&entry("", &[(CONTEXT_PRE, "Open it"), (CONTEXT_POST, "Close")])));
        // Unknown neighbours are no context.
        assert!(!ctx.matches(&entry("", &[])));
        assert!(!QueryContext::default().matches(&entry("", &[(CONTEXT_PRE, ""), (CONTEXT_POST, "")])));
    }

    #[test]
    fn penalty_rules_parse_and_apply() {
        let rule: AttributePenalty = "origin:MT=10".parse().unwrap();
        assert_eq!(rule.to_string(), "origin:MT=10");
        assert!(rule.applies_to(&entry("", &[("tmx:prop:x-origin", "mt")])));
        assert!(!rule.applies_to(&entry("", &[("tmx:prop:x-origin", "human")])));
        let any: AttributePenalty = "client:*=3".parse().unwrap();
        assert!(any.applies_to(&entry("", &[("client", "Acme")])));
        assert!(!any.applies_to(&entry("", &[])));
        for bad in ["origin=3", "origin:mt", "colour:red=3", "origin:mt=101", "origin:=3", "origin:mt=-1"] {
            let err = bad.parse::<AttributePenalty>().unwrap_err().to_string();
            assert!(err.contains(bad), "{err}");
        }
    }
}
