//! Lookup, version-chain and prior-version cases in TOML (`testdata/match/*.toml`),
//! shared by every store.
//!
//! # Format
//!
//! ```toml
//! # Defaults for every entry and query of the file.
//! source_locale = "en"
//! target_locale = "de"
//!
//! [[case]]
//! name = "generalized exact adapts the entity"   # unique within the file
//! note = "why this case exists"                  # optional
//!
//! # The memory, written one entry at a time, in order. Entries are referred to by
//! # their 1-based position here.
//! [[case.memory]]
//! source = "{PERSON:John} works"          # run notation (cmem_core::model::notation)
//! target = "{PERSON:John} arbeitet"
//! # optional: source_locale, target_locale (override the file's), point, unit,
//! # project, origins = [{ project = "p", fingerprint = "f1", created_at = "2024-01-01T00:00:00Z" }]
//!
//! # A lookup (optional) ...
//! [case.query]
//! source = "{PERSON:Alice} works"
//! # optional: source_locale, target_locale, threshold (0.70), limit (10), point
//!
//! # ... and its matches, in order (`expect = []` for none).
//! [[case.expect]]
//! entry = 1                              # position in case.memory
//! score = 1.0                            # compared to 4 decimals
//! match_type = "generalized_exact"       # MatchType::as_str
//! ambiguous = false                      # optional, default false
//! target = "{PERSON:Alice} arbeitet"     # the adapted target, in notation
//! complete = true                        # optional: Match::adaptation_complete()
//!
//! # A version chain (optional): entries newest first, with their fingerprints.
//! [case.versions]
//! unit = "u1"
//! point = ""                             # optional; "" = every point
//! limit = 0                              # optional; 0 = 10
//! exclude = 2                            # optional: a position in case.memory
//! expect = [3, 1]
//! fingerprints = ["f3", "f1"]            # optional
//!
//! # A prior version (optional): the fingerprint gate of prior_version_for.
//! [case.prior]
//! unit = "u1"
//! fingerprint = "f3"
//! # optional: point, exclude, source_locale, target_locale
//! entry = 3                              # or: none = true
//! source = "Save it now"                 # plain texts of the prior answer
//! target = "Jetzt speichern"
//! ```
//!
//! A case has at least one of `query` (with `expect`), `versions` and `prior`. Unknown
//! fields are errors, so a misspelt expectation cannot pass silently.

use cmem_core::ContentMemoryExt;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use cmem_core::imp::prior_version_for;
use cmem_core::model::notation::to_notation;
use cmem_core::{
    lookup, ContentMemory, EntryId, LookupOptions, LookupRequest, NewEntry, Origin, Variant, VersionQuery,
    VersionRequest,
};

use crate::failure::{Failure, Outcome};
use crate::fixture::{locale, point, runs, write_each};

/// A case file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// The default source locale.
    #[serde(default)]
    pub source_locale: Option<String>,
    /// The default target locale.
    #[serde(default)]
    pub target_locale: Option<String>,
    /// The cases.
    #[serde(rename = "case", default)]
    pub cases: Vec<Case>,
}

/// One case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique within the file; failures name it.
    pub name: String,
    /// Why the case exists.
    #[serde(default)]
    pub note: String,
    /// The memory, written in order.
    #[serde(default)]
    pub memory: Vec<MemoryEntry>,
    /// A lookup.
    #[serde(default)]
    pub query: Option<Query>,
    /// The lookup's matches, in order.
    #[serde(default)]
    pub expect: Option<Vec<Expect>>,
    /// A version-chain check.
    #[serde(default)]
    pub versions: Option<Versions>,
    /// A prior-version check.
    #[serde(default)]
    pub prior: Option<Prior>,
}

/// An origin of a memory entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OriginSpec {
    /// The project.
    #[serde(default)]
    pub project: String,
    /// The context fingerprint.
    #[serde(default)]
    pub fingerprint: String,
    /// RFC 3339 UTC.
    #[serde(default)]
    pub created_at: String,
}

/// An entry of the case's memory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryEntry {
    /// Source runs in notation.
    pub source: String,
    /// Target runs in notation.
    pub target: String,
    /// Overrides the file's source locale.
    #[serde(default)]
    pub source_locale: Option<String>,
    /// Overrides the file's target locale.
    #[serde(default)]
    pub target_locale: Option<String>,
    /// The point; empty = the root.
    #[serde(default)]
    pub point: String,
    /// The unit.
    #[serde(default)]
    pub unit: String,
    /// The project.
    #[serde(default)]
    pub project: String,
    /// Write events, oldest first.
    #[serde(default)]
    pub origins: Vec<OriginSpec>,
}

/// A lookup.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// The source runs in notation.
    pub source: String,
    /// Overrides the file's source locale.
    #[serde(default)]
    pub source_locale: Option<String>,
    /// Overrides the file's target locale.
    #[serde(default)]
    pub target_locale: Option<String>,
    /// The threshold; default 0.70.
    #[serde(default)]
    pub threshold: Option<f64>,
    /// The limit; default 10.
    #[serde(default)]
    pub limit: Option<usize>,
    /// The caller's point.
    #[serde(default)]
    pub point: Option<String>,
}

/// One expected match.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The 1-based position of the entry in the case's memory.
    pub entry: usize,
    /// The score, compared to 4 decimals.
    pub score: f64,
    /// The tier (`structural_exact`…).
    pub match_type: String,
    /// The ambiguity flag.
    #[serde(default)]
    pub ambiguous: bool,
    /// The adapted target in notation.
    pub target: String,
    /// `Match::adaptation_complete()`, when given.
    #[serde(default)]
    pub complete: Option<bool>,
}

/// A version-chain check.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Versions {
    /// The unit.
    pub unit: String,
    /// Narrow to this point; "" = every point.
    #[serde(default)]
    pub point: String,
    /// At most this many; 0 = 10.
    #[serde(default)]
    pub limit: usize,
    /// A position in the memory to leave out.
    #[serde(default)]
    pub exclude: Option<usize>,
    /// Positions in the memory, newest first.
    pub expect: Vec<usize>,
    /// Their fingerprints, when given.
    #[serde(default)]
    pub fingerprints: Option<Vec<String>>,
}

/// A prior-version check.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prior {
    /// The unit.
    pub unit: String,
    /// The caller's fingerprint.
    pub fingerprint: String,
    /// Narrow to this point.
    #[serde(default)]
    pub point: String,
    /// A position in the memory to leave out.
    #[serde(default)]
    pub exclude: Option<usize>,
    /// Overrides the file's source locale.
    #[serde(default)]
    pub source_locale: Option<String>,
    /// Overrides the file's target locale.
    #[serde(default)]
    pub target_locale: Option<String>,
    /// The position of the entry expected.
    #[serde(default)]
    pub entry: Option<usize>,
    /// Its plain source text.
    #[serde(default)]
    pub source: Option<String>,
    /// Its plain target text.
    #[serde(default)]
    pub target: Option<String>,
    /// True when nothing is expected.
    #[serde(default)]
    pub none: bool,
}

/// `testdata/match` of this workspace.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/match")
}

/// Parses a case file's text.
///
/// # Errors
/// TOML that does not follow the format, naming the line and column.
pub fn parse(text: &str) -> Result<CaseFile, Failure> {
    toml::from_str(text).map_err(|e| Failure::new(format!("{e}")))
}

/// Runs every `*.toml` file of `dir` (sorted by name), each case on a fresh store.
///
/// # Errors
/// Every failing case, each named by its file and case; or no case file at all.
pub fn run_dir(dir: &Path, make: &dyn Fn() -> Box<dyn ContentMemory>) -> Outcome {
    let listing = std::fs::read_dir(dir)
        .map_err(|e| Failure::new(format!("reading the case directory {}: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = listing
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Failure::new(format!("no case files (*.toml) in {}", dir.display())));
    }
    let mut failures = Vec::new();
    let mut total = 0;
    for file in &files {
        let name =
            file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
        let (passed, failed) = run_file(file, make);
        total += passed + failed.len();
        failures.extend(failed.into_iter().map(|f| format!("{name}: {f}")));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!(
            "{} of {} cases in {} failed:\n\n{}",
            failures.len(),
            total,
            dir.display(),
            failures.join("\n\n")
        )))
    }
}

/// Runs one case file, each case on a fresh store; answers the number of cases that
/// passed and every failure (`case "name": why`). An unreadable or malformed file is
/// one failure.
pub fn run_file(path: &Path, make: &dyn Fn() -> Box<dyn ContentMemory>) -> (usize, Vec<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return (0, vec![format!("reading the file: {e}")]),
    };
    let file = match parse(&text) {
        Ok(file) => file,
        Err(e) => return (0, vec![format!("malformed case file: {e}")]),
    };
    if file.cases.is_empty() {
        return (0, vec!["no [[case]] in the file".to_owned()]);
    }
    let mut failures = Vec::new();
    let mut passed = 0;
    for (i, case) in file.cases.iter().enumerate() {
        if file.cases[..i].iter().any(|c| c.name == case.name) {
            failures.push(format!("case {:?}: the name is used twice", case.name));
            continue;
        }
        let store = make();
        match run_case(&file, case, &*store) {
            Ok(()) => passed += 1,
            Err(f) => failures.push(format!("case {:?}: {f}", case.name)),
        }
    }
    (passed, failures)
}

fn pick<'a>(own: &'a Option<String>, file: &'a Option<String>, what: &str) -> Result<&'a str, Failure> {
    own.as_deref()
        .or(file.as_deref())
        .ok_or_else(|| Failure::new(format!("no {what}: give it in the case or at the top of the file")))
}

fn entry_id(ids: &[EntryId], position: usize, what: &str) -> Result<EntryId, Failure> {
    position.checked_sub(1).and_then(|i| ids.get(i)).copied().ok_or_else(|| {
        Failure::new(format!("{what}: entry {position} is not in the memory (1–{})", ids.len()))
    })
}

fn position_of(ids: &[EntryId], id: EntryId) -> String {
    match ids.iter().position(|x| *x == id) {
        Some(i) => format!("entry {} (id {id})", i + 1),
        None => format!("id {id} (not in the case's memory)"),
    }
}

/// Runs one case on an empty store.
///
/// # Errors
/// What differs from the expectation.
pub fn run_case(file: &CaseFile, case: &Case, store: &dyn ContentMemory) -> Outcome {
    let mut entries = Vec::with_capacity(case.memory.len());
    for (i, m) in case.memory.iter().enumerate() {
        let ctx = |f: Failure| f.context(format!("memory entry {}", i + 1));
        let sl = pick(&m.source_locale, &file.source_locale, "source locale").map_err(ctx)?;
        let tl = pick(&m.target_locale, &file.target_locale, "target locale").map_err(ctx)?;
        entries.push(NewEntry {
            approvals: 0,
            variants: vec![
                Variant::new(locale(sl).map_err(ctx)?, runs(&m.source).map_err(ctx)?),
                Variant::new(locale(tl).map_err(ctx)?, runs(&m.target).map_err(ctx)?),
            ],
            point: point(&m.point).map_err(ctx)?,
            unit: m.unit.clone(),
            project_id: m.project.clone(),
            origins: m
                .origins
                .iter()
                .map(|o| Origin {
                    project_id: o.project.clone(),
                    context_fingerprint: o.fingerprint.clone(),
                    created_at: o.created_at.clone(),
                })
                .collect(),
            metadata: Vec::new(),
        });
    }
    let ids = write_each(store, &entries)?;
    if case.query.is_none() && case.versions.is_none() && case.prior.is_none() {
        return Err(Failure::new("the case has no query, versions or prior to check"));
    }
    match (&case.query, &case.expect) {
        (Some(q), Some(expect)) => check_lookup(file, q, expect, &ids, store)?,
        (Some(_), None) => {
            return Err(Failure::new("the query has no expect list (write expect = [] for none)"))
        }
        (None, Some(_)) => return Err(Failure::new("expect without a query")),
        (None, None) => {}
    }
    if let Some(v) = &case.versions {
        check_versions(v, &ids, store).map_err(|f| f.context("versions"))?;
    }
    if let Some(p) = &case.prior {
        check_prior(file, p, &ids, store).map_err(|f| f.context("prior"))?;
    }
    Ok(())
}

fn check_lookup(
    file: &CaseFile,
    q: &Query,
    expect: &[Expect],
    ids: &[EntryId],
    store: &dyn ContentMemory,
) -> Outcome {
    let mut options = LookupOptions::default();
    if let Some(t) = q.threshold {
        options = options.threshold(t);
    }
    if let Some(l) = q.limit {
        options = options.limit(l);
    }
    if let Some(p) = &q.point {
        options = options.point(point(p)?);
    }
    let sl = pick(&q.source_locale, &file.source_locale, "query source locale")?;
    let tl = pick(&q.target_locale, &file.target_locale, "query target locale")?;
    let req = LookupRequest::new(runs(&q.source)?, locale(sl)?, locale(tl)?).options(options);
    let got = lookup(store, &req)?;

    let mut problems = Vec::new();
    if got.len() != expect.len() {
        problems.push(format!("{} matches, expected {}", got.len(), expect.len()));
    }
    for (i, (m, e)) in got.iter().zip(expect).enumerate() {
        let n = i + 1;
        let id = entry_id(ids, e.entry, &format!("expect {n}"))?;
        if m.entry.id != id {
            problems.push(format!(
                "match {n} is {}, expected entry {}",
                position_of(ids, m.entry.id),
                e.entry
            ));
        }
        if (m.score * 1e4).round() != (e.score * 1e4).round() {
            problems.push(format!("match {n} scores {:.4}, expected {:.4}", m.score, e.score));
        }
        if m.match_type.as_str() != e.match_type {
            problems.push(format!("match {n} is {}, expected {}", m.match_type, e.match_type));
        }
        if m.ambiguous != e.ambiguous {
            problems.push(format!("match {n} has ambiguous = {}, expected {}", m.ambiguous, e.ambiguous));
        }
        let want = runs(&e.target).map_err(|f| f.context(format!("expect {n} target")))?;
        if m.adapted_target != want {
            problems.push(format!(
                "match {n} has adapted target {:?}, expected {:?}",
                to_notation(&m.adapted_target),
                to_notation(&want)
            ));
        }
        if let Some(c) = e.complete {
            if m.adaptation_complete() != c {
                problems.push(format!(
                    "match {n} has adaptation_complete() = {}, expected {c} (entities {:?})",
                    m.adaptation_complete(),
                    m.entity_adaptations
                ));
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let mut msg = format!("lookup of {:?}:\n  {}\n  actual matches:\n", q.source, problems.join("\n  "));
    if got.is_empty() {
        msg.push_str("    (no matches)\n");
    }
    for m in &got {
        let _ = writeln!(
            msg,
            "    {} score {:.4} {}{} target {:?}",
            position_of(ids, m.entry.id),
            m.score,
            m.match_type,
            if m.ambiguous { " ambiguous" } else { "" },
            to_notation(&m.adapted_target)
        );
    }
    Err(Failure::new(msg))
}

fn check_versions(v: &Versions, ids: &[EntryId], store: &dyn ContentMemory) -> Outcome {
    let reader = store.version_reader().ok_or_else(|| Failure::new("the store has no VersionReader"))?;
    let exclude = v.exclude.map(|p| entry_id(ids, p, "exclude")).transpose()?;
    let q = VersionQuery::new(v.unit.clone()).point(point(&v.point)?).limit(v.limit);
    let got = reader.versions(&q, exclude)?;
    let want: Vec<EntryId> =
        v.expect.iter().map(|p| entry_id(ids, *p, "expect")).collect::<Result<_, _>>()?;
    let got_ids: Vec<EntryId> = got.iter().map(|x| x.entry.id).collect();
    if got_ids != want {
        let shown: Vec<String> = got_ids.iter().map(|id| position_of(ids, *id)).collect();
        return Err(Failure::new(format!("got [{}], expected entries {:?}", shown.join(", "), v.expect)));
    }
    if let Some(fps) = &v.fingerprints {
        let got_fps: Vec<&str> = got.iter().map(|x| x.context_fingerprint.as_str()).collect();
        if got_fps != fps.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(Failure::new(format!("fingerprints {got_fps:?}, expected {fps:?}")));
        }
    }
    Ok(())
}

fn check_prior(file: &CaseFile, p: &Prior, ids: &[EntryId], store: &dyn ContentMemory) -> Outcome {
    let reader = store.version_reader().ok_or_else(|| Failure::new("the store has no VersionReader"))?;
    let sl = pick(&p.source_locale, &file.source_locale, "source locale")?;
    let tl = pick(&p.target_locale, &file.target_locale, "target locale")?;
    let mut req = VersionRequest::new(p.unit.clone(), p.fingerprint.clone(), locale(sl)?, locale(tl)?);
    req.point = point(&p.point)?;
    req.exclude = p.exclude.map(|x| entry_id(ids, x, "exclude")).transpose()?;
    let got = prior_version_for(reader, &req)?;
    match (p.none, p.entry, got) {
        (true, None, None) => Ok(()),
        (true, None, Some(v)) => Err(Failure::new(format!(
            "expected nothing, got {} ({:?} → {:?})",
            position_of(ids, v.entry_id),
            v.source,
            v.target
        ))),
        (false, Some(pos), got) => {
            let id = entry_id(ids, pos, "entry")?;
            let Some(v) = got else {
                return Err(Failure::new(format!("expected entry {pos}, got nothing")));
            };
            if v.entry_id != id {
                return Err(Failure::new(format!(
                    "got {}, expected entry {pos}",
                    position_of(ids, v.entry_id)
                )));
            }
            if let Some(s) = &p.source {
                if &v.source != s {
                    return Err(Failure::new(format!("source text {:?}, expected {s:?}", v.source)));
                }
            }
            if let Some(t) = &p.target {
                if &v.target != t {
                    return Err(Failure::new(format!("target text {:?}, expected {t:?}", v.target)));
                }
            }
            Ok(())
        }
        _ => Err(Failure::new("give exactly one of entry = N and none = true")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
source_locale = "en"
target_locale = "de"

[[case]]
name = "one"
memory = [{ target = "Datei öffnen", source = "Open the file" }]
query = { source = "Open the file" }
expect = [{ entry = 1, score = 1.0, match_type = "structural_exact", target = "Datei öffnen" }]
"#;

    fn make() -> Box<dyn ContentMemory> {
        Box::new(cmem_core::MemStore::new())
    }

    #[test]
    fn a_sample_passes_and_a_wrong_expectation_fails() {
        let file = parse(SAMPLE).unwrap();
        assert_eq!(file.cases.len(), 1);
        run_case(&file, &file.cases[0], &*make()).unwrap();
        for (from, to, says) in [
            ("score = 1.0", "score = 0.99", "scores 1.0000, expected 0.9900"),
            ("\"structural_exact\"", "\"plain_exact\"", "is structural_exact, expected plain_exact"),
            (
                "target = \"Datei öffnen\" }]",
                "target = \"Datei\" }]",
                "adapted target \"Datei öffnen\", expected \"Datei\"",
            ),
            ("entry = 1,", "entry = 2,", "entry 2 is not in the memory"),
        ] {
            let file = parse(&SAMPLE.replace(from, to)).unwrap();
            let err = run_case(&file, &file.cases[0], &*make()).unwrap_err();
            assert!(err.message().contains(says), "{from} → {to}: {err}");
        }
    }

    #[test]
    fn malformed_cases_are_errors() {
        let err = parse(&SAMPLE.replace("match_type", "matchtype")).unwrap_err();
        assert!(err.message().contains("matchtype"), "{err}");
        let file = parse(&SAMPLE.replace("expect = [{ entry = 1, score = 1.0, match_type = \"structural_exact\", target = \"Datei öffnen\" }]", "")).unwrap();
        assert!(run_case(&file, &file.cases[0], &*make()).unwrap_err().message().contains("no expect list"));
        let file = parse(
            &SAMPLE
                .replace("query = { source = \"Open the file\" }", "query = { source = \"Open }the file\" }"),
        )
        .unwrap();
        assert!(run_case(&file, &file.cases[0], &*make())
            .unwrap_err()
            .message()
            .contains("notation: column 6"));
    }

    #[test]
    fn the_shared_cases_cover_every_tier() {
        let mut cases = 0;
        let mut tiers = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(default_dir()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "toml") {
                let file = parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
                cases += file.cases.len();
                for c in &file.cases {
                    for e in c.expect.iter().flatten() {
                        tiers.insert(e.match_type.clone());
                    }
                }
            }
        }
        assert!(cases >= 40, "{cases} cases");
        assert_eq!(tiers.len(), 6, "{tiers:?}");
    }
}
