//! `cmem search`: concordance search, ranked, hits in brackets, with translations.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use cmem::surface_text;
use cmem::SearchQuery;
use serde_json::json;

use crate::args::SearchArgs;
use crate::output::{highlight, Stdout};
use crate::{memory, Outcome};

/// Runs `cmem search`.
///
/// # Errors
/// A missing memory or a store failure.
pub fn run(args: &SearchArgs, memory_flag: Option<&Path>, quiet: bool, color: bool) -> Result<Outcome> {
    let memory = memory::open_existing(&memory::resolve(memory_flag))?;
    let mut q = SearchQuery::new(args.words.join(" "), args.lang.clone());
    q.limit = args.limit;
    let hits = memory.search_with(&q).map_err(|e| e.prefixed("search"))?;
    let mut out = Stdout::new();
    for (i, hit) in hits.iter().enumerate() {
        let found = hit.entry.variant_index(&args.lang);
        let others: Vec<_> = hit
            .entry
            .variants
            .iter()
            .enumerate()
            .filter(|(j, v)| Some(*j) != found && args.to.as_ref().is_none_or(|t| v.locale.matches(t)))
            .map(|(_, v)| v)
            .collect();
        if args.json {
            let line = json!({
                "entry_id": hit.entry.id.0,
                "score": hit.score,
                "snippet": hit.snippet,
                "translations": others.iter().map(|v| json!({
                    "locale": v.locale.as_str(),
                    "text": surface_text(&v.runs),
                })).collect::<Vec<_>>(),
            });
            serde_json::to_writer(&mut out, &line)?;
            writeln!(out)?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(
                out,
                "entry {}  {}",
                hit.entry.id,
                highlight(&crate::lookup::visible(&hit.snippet, false), color)
            )?;
            for v in others {
                // Line breaks shown as lookup shows them, so each hit stays one block.
                let text = crate::lookup::visible(&surface_text(&v.runs), false);
                writeln!(out, "  {:<6} {}", v.locale.as_str(), text)?;
            }
        }
    }
    out.flush()?;
    if hits.is_empty() {
        if !quiet && !args.json {
            eprintln!("no {} text holds {:?}", args.lang, args.words.join(" "));
        }
        return Ok(Outcome::NothingFound);
    }
    Ok(Outcome::Success)
}
