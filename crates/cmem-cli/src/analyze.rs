//! `cmem analyze`: the leverage report of XLIFF files and PO/POT catalogs, a table per
//! file (and a grand total), JSON Lines or CSV, and a standalone HTML page.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use anyhow::{anyhow, Context, Result};
use cmem::formats::{html_report, Analysis, AnalyzeOptions, Batch, LookupProgress, CSV_HEADER};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::AnalyzeArgs;
use crate::import::located;
use crate::memory;
use crate::output::{stop_on_signals, with_flags, Stdout};

/// Writes one report in the chosen shape.
fn write(out: &mut Stdout, args: &AnalyzeArgs, analysis: &Analysis, first: bool) -> Result<()> {
    if args.json {
        serde_json::to_writer(&mut *out, analysis)?;
        writeln!(out)?;
    } else if args.csv {
        write!(out, "{}", analysis.csv_rows())?;
    } else {
        if !first {
            writeln!(out)?;
        }
        write!(out, "{analysis}")?;
    }
    Ok(())
}

/// Runs `cmem analyze`.
///
/// # Errors
/// A missing memory, a file that cannot be read or is not XLIFF or PO (located), missing
/// or invalid languages, a store failure. The files before the failing one are reported.
pub fn run(args: &AnalyzeArgs, memory_flag: Option<&Path>, quiet: bool) -> Result<()> {
    // The in-process gram index (built once per source locale) serves every segment
    // of every file; one SQL candidate query per segment would be slower on a document
    // of any size, as in `lookup --batch`.
    let memory = memory::open_existing(&memory::resolve(memory_flag))?;
    let mut options = AnalyzeOptions::default();
    options.point.clone_from(&args.point);
    options.source_locale.clone_from(&args.from);
    options.target_locale.clone_from(&args.to);
    options.recognizer = crate::query::query_recognizer(&args.recognize, &memory, false)?;
    options.lookup.penalties.clone_from(&args.penalties);
    options.bands = args.band_scheme().map_err(|e| anyhow!(e))?;
    // Ctrl-C stops the lookups (those under way end first); a second one ends at once.
    options.cancel = Some(stop_on_signals(true).map_err(|e| anyhow!("analyze: cannot handle Ctrl-C: {e}"))?);
    let bar = if quiet || !io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} [{bar:30}] {pos}/{len} lookups {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    };
    let told = bar.clone();
    options.progress = Some(LookupProgress::new(move |done, total| {
        told.set_length(total as u64);
        told.set_position(done as u64);
    }));
    let mut out = Stdout::new();
    if args.csv {
        write!(out, "{CSV_HEADER}")?;
    }
    let mut batch = Batch::new();
    for (i, path) in args.files.iter().enumerate() {
        bar.set_message(path.display().to_string());
        bar.set_position(0);
        let analysis = memory.analyze(&mut batch, path, &options).map_err(|e| {
            let file = if e.file().is_empty() { path.display().to_string() } else { e.file().to_owned() };
            anyhow!("analyze {file}: {}", with_flags(e.kind(), &located(&e)))
        });
        let analysis = match analysis {
            Ok(a) => a.clone(),
            Err(e) => {
                bar.finish_and_clear();
                // What was reported so far stays reported.
                out.flush()?;
                return Err(e);
            }
        };
        if !quiet {
            // As lookup warns: a memory without the document's pair matches nothing.
            for (from, to) in &analysis.pairs {
                if let Some(w) = crate::lookup::pair_warning(&memory, from, to) {
                    bar.suspend(|| eprintln!("cmem: warning: analyze {}: {w}", analysis.file));
                }
            }
        }
        write(&mut out, args, &analysis, i == 0)?;
    }
    bar.finish_and_clear();
    let total = (args.files.len() > 1).then(|| batch.total());
    if let Some(total) = &total {
        write(&mut out, args, total, false)?;
    }
    out.flush()?;
    if let Some(path) = &args.html {
        let page = html_report(batch.files(), total.as_ref());
        cmem::formats::write_atomically(path, page.as_bytes(), cmem::formats::Format::Store)
            .context("analyze")?;
    }
    Ok(())
}
