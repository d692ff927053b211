//! Small builders shared by the rules and the case runner: entries from the run
//! notation, one-entry-at-a-time writes, lookups, and readable dumps of matches.

use std::fmt::Write as _;

use cmem_core::model::notation::{parse_notation, to_notation};
use cmem_core::{
    lookup, ContentMemory, EntryId, Locale, LookupOptions, LookupRequest, Match, MatchType, NewEntry, Origin,
    Point, Run, Variant, WriteOutcome,
};

use crate::failure::{ensure, Failure};

/// A locale, or a failure naming the tag.
///
/// # Errors
/// An invalid tag.
pub fn locale(tag: &str) -> Result<Locale, Failure> {
    Locale::parse(tag).map_err(|e| Failure::new(format!("fixture locale {tag:?}: {e}")))
}

/// A point, or a failure naming it.
///
/// # Errors
/// An invalid point.
pub fn point(text: &str) -> Result<Point, Failure> {
    Point::parse(text).map_err(|e| Failure::new(format!("fixture point {text:?}: {e}")))
}

/// Runs from the notation, or a failure naming the text.
///
/// # Errors
/// Invalid notation.
pub fn runs(notation: &str) -> Result<Vec<Run>, Failure> {
    parse_notation(notation).map_err(|e| Failure::new(format!("fixture runs {notation:?}: {e}")))
}

/// A bilingual entry `source_locale → target_locale` from notation.
///
/// # Errors
/// An invalid locale or notation.
pub fn pair_in(
    source_locale: &str,
    source: &str,
    target_locale: &str,
    target: &str,
) -> Result<NewEntry, Failure> {
    Ok(NewEntry::pair(
        Variant::new(locale(source_locale)?, runs(source)?),
        Variant::new(locale(target_locale)?, runs(target)?),
    ))
}

/// A bilingual `en → de` entry from notation.
///
/// # Errors
/// Invalid notation.
pub fn pair(source: &str, target: &str) -> Result<NewEntry, Failure> {
    pair_in("en", source, "de", target)
}

/// An origin.
pub fn origin(project_id: &str, context_fingerprint: &str, created_at: &str) -> Origin {
    Origin {
        project_id: project_id.to_owned(),
        context_fingerprint: context_fingerprint.to_owned(),
        created_at: created_at.to_owned(),
    }
}

/// Writes each entry in its own batch, in order, and returns the ids written or
/// re-approved.
///
/// # Errors
/// A store failure, or a write that does not answer one outcome.
pub fn write_each(store: &dyn ContentMemory, entries: &[NewEntry]) -> Result<Vec<EntryId>, Failure> {
    let mut ids = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let out = store
            .write(std::slice::from_ref(e))
            .map_err(|err| Failure::from(err).context(format!("writing entry {}", i + 1)))?;
        ensure!(out.len() == 1, "writing entry {}: {} outcomes for one entry", i + 1, out.len());
        ids.extend(out.iter().map(|o: &WriteOutcome| o.id()));
    }
    Ok(ids)
}

/// Looks up `source` (notation) from `en` to `de`.
///
/// # Errors
/// Invalid notation or a lookup error.
pub fn find(store: &dyn ContentMemory, source: &str, options: LookupOptions) -> Result<Vec<Match>, Failure> {
    find_in(store, "en", source, "de", options)
}

/// Looks up `source` (notation) between two locales.
///
/// # Errors
/// Invalid notation or locale, or a lookup error.
pub fn find_in(
    store: &dyn ContentMemory,
    source_locale: &str,
    source: &str,
    target_locale: &str,
    options: LookupOptions,
) -> Result<Vec<Match>, Failure> {
    let req =
        LookupRequest::new(runs(source)?, locale(source_locale)?, locale(target_locale)?).options(options);
    lookup(store, &req).map_err(|e| Failure::from(e).context(format!("lookup of {source:?}")))
}

/// One line per match: id, score, tier, ambiguity and adapted target in notation.
pub fn describe(matches: &[Match]) -> String {
    let mut out = String::new();
    if matches.is_empty() {
        out.push_str("    (no matches)\n");
    }
    for m in matches {
        let _ = writeln!(
            out,
            "    entry {} score {:.6} {}{} target {:?}",
            m.entry.id,
            m.score,
            m.match_type,
            if m.ambiguous { " ambiguous" } else { "" },
            to_notation(&m.adapted_target)
        );
    }
    out
}

/// What one match should be.
#[derive(Debug, Clone)]
pub struct Want<'a> {
    /// The entry.
    pub id: EntryId,
    /// The score (compared within 1e-9).
    pub score: f64,
    /// The tier.
    pub match_type: MatchType,
    /// The ambiguity flag.
    pub ambiguous: bool,
    /// The adapted target in notation; `None` leaves it unchecked.
    pub target: Option<&'a str>,
}

/// A wanted match, not ambiguous, target unchecked.
pub fn want(id: EntryId, score: f64, match_type: MatchType) -> Want<'static> {
    Want { id, score, match_type, ambiguous: false, target: None }
}

impl<'a> Want<'a> {
    /// Marks it ambiguous.
    #[must_use]
    pub fn ambiguous(mut self) -> Self {
        self.ambiguous = true;
        self
    }

    /// Sets the adapted target to check.
    #[must_use]
    pub fn target(self, target: &'a str) -> Want<'a> {
        Want { target: Some(target), ..self }
    }
}

/// Checks the matches against the wanted list, in order; the failure shows both lists.
///
/// # Errors
/// The first difference.
pub fn check(what: &str, actual: &[Match], wanted: &[Want<'_>]) -> Result<(), Failure> {
    let fail = |why: String| {
        let mut msg = format!("{what}: {why}\n  actual matches:\n{}  expected:\n", describe(actual));
        for w in wanted {
            let _ = writeln!(
                msg,
                "    entry {} score {:.6} {}{} target {:?}",
                w.id,
                w.score,
                w.match_type,
                if w.ambiguous { " ambiguous" } else { "" },
                w.target.unwrap_or("(unchecked)")
            );
        }
        Failure::new(msg)
    };
    if actual.len() != wanted.len() {
        return Err(fail(format!("{} matches, expected {}", actual.len(), wanted.len())));
    }
    for (i, (m, w)) in actual.iter().zip(wanted).enumerate() {
        let n = i + 1;
        if m.entry.id != w.id {
            return Err(fail(format!("match {n} is entry {}, expected entry {}", m.entry.id, w.id)));
        }
        if (m.score - w.score).abs() > 1e-9 {
            return Err(fail(format!("match {n} scores {}, expected {}", m.score, w.score)));
        }
        if m.match_type != w.match_type {
            return Err(fail(format!("match {n} is {}, expected {}", m.match_type, w.match_type)));
        }
        if m.ambiguous != w.ambiguous {
            return Err(fail(format!("match {n} has ambiguous = {}, expected {}", m.ambiguous, w.ambiguous)));
        }
        if let Some(t) = w.target {
            let expected = runs(t)?;
            if m.adapted_target != expected {
                return Err(fail(format!(
                    "match {n} has adapted target {:?}, expected {:?}",
                    to_notation(&m.adapted_target),
                    to_notation(&expected)
                )));
            }
        }
    }
    Ok(())
}
