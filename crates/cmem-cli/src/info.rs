//! The commands that describe: `versions` (a block's version chain), `stats` and
//! `schema`.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Result};
use cmem::imp::schema::{postgres_ddl, sqlite_ddl};
use cmem::surface_text;
use cmem::{Point, VersionQuery};
use serde_json::json;

use crate::args::{DialectArg, SchemaArgs, StatsArgs, VersionsArgs};
use crate::memory;
use crate::output::{bytes, count, Stdout};

/// Runs `cmem versions`.
///
/// # Errors
/// A missing memory, an empty unit, a store failure.
pub fn versions(args: &VersionsArgs, memory_flag: Option<&Path>) -> Result<()> {
    if args.unit.is_empty() {
        bail!("versions: --unit must not be empty");
    }
    let memory = memory::open_existing(&memory::resolve(memory_flag))?;
    let q = VersionQuery::new(args.unit.clone())
        .point(args.point.clone().unwrap_or_else(Point::root))
        .limit(args.limit.max(1));
    let versions = memory.versions_with(&q).map_err(|e| e.prefixed("versions"))?;
    let mut out = Stdout::new();
    for (i, v) in versions.iter().enumerate() {
        let e = &v.entry;
        let created = e.newest_origin().map(|o| o.created_at.as_str()).unwrap_or("");
        if args.json {
            let line = json!({
                "entry_id": e.id.0,
                "unit": e.unit,
                "point": e.point.as_str(),
                "project_id": e.project_id,
                "created_at": created,
                "context_fingerprint": v.context_fingerprint,
                "variants": e.variants.iter().map(|x| json!({
                    "locale": x.locale.as_str(),
                    "text": surface_text(&x.runs),
                    "runs": x.runs,
                })).collect::<Vec<_>>(),
            });
            serde_json::to_writer(&mut out, &line)?;
            writeln!(out)?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            let mut head = format!("entry {}", e.id);
            for (label, value) in [
                ("point", e.point.as_str()),
                ("created", created),
                ("fingerprint", v.context_fingerprint.as_str()),
                ("project", e.project_id.as_str()),
            ] {
                if !value.is_empty() {
                    head.push_str(&format!("  {label} {value}"));
                }
            }
            writeln!(out, "{head}")?;
            for x in &e.variants {
                writeln!(out, "  {:<6} {}", x.locale.as_str(), surface_text(&x.runs))?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// Runs `cmem stats`.
///
/// # Errors
/// A missing memory or a store failure.
pub fn stats(args: &StatsArgs, memory_flag: Option<&Path>) -> Result<()> {
    let path = memory::resolve(memory_flag);
    let memory = memory::open_existing(&path)?;
    let s = memory.stats().map_err(|e| e.prefixed("stats"))?;
    let mut out = Stdout::new();
    if args.json {
        let v = json!({
            "memory": path.display().to_string(),
            "entries": s.entries,
            "variants": s.variants,
            "size_bytes": s.size_bytes,
            "pairs": s.pairs.iter().map(|p| json!({
                "source": p.source.as_str(),
                "target": p.target.as_str(),
                "entries": p.entries,
            })).collect::<Vec<_>>(),
        });
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    } else {
        writeln!(out, "memory    {}", path.display())?;
        writeln!(out, "entries   {}", count(s.entries))?;
        writeln!(out, "variants  {}", count(s.variants))?;
        if let Some(size) = s.size_bytes {
            writeln!(out, "size      {}", bytes(size))?;
        }
        if !s.pairs.is_empty() {
            writeln!(out, "pairs")?;
            let width = s.pairs.iter().map(|p| p.source.as_str().len() + p.target.as_str().len() + 3).max();
            for p in &s.pairs {
                let pair = format!("{} → {}", p.source, p.target);
                writeln!(out, "  {pair:<w$}  {:>9}", count(p.entries), w = width.unwrap_or(0))?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// Runs `cmem schema`.
///
/// # Errors
/// Writing to standard output failed.
pub fn schema(args: &SchemaArgs) -> Result<()> {
    let ddl = match args.dialect {
        DialectArg::Sqlite => sqlite_ddl(),
        DialectArg::Postgres => postgres_ddl(),
    };
    let mut out = Stdout::new();
    out.write_all(ddl.as_bytes())?;
    out.flush()?;
    Ok(())
}
