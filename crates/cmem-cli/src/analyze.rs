//! `cmem analyze`: the leverage report of XLIFF files and PO/POT catalogs, a table per
//! file (and a grand total), JSON Lines or CSV, and a standalone HTML page.

use std::io::Write;
use std::path::Path;

use anyhow::{anyhow, Result};
use cmem::formats::{html_report, Analysis, AnalyzeOptions, Band, Batch, Format, CSV_HEADER};
use cmem::Locale;

use crate::args::AnalyzeArgs;
use crate::import::located;
use crate::lookup::pair_warning;
use crate::memory;
use crate::output::{with_flags, Stdout};

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

/// True when the document has segments and none of them found a match.
fn nothing_found(analysis: &Analysis) -> bool {
    let found = |b: &cmem::formats::BandCount| !matches!(b.band, Band::NoMatch | Band::Repetition);
    analysis.segments > 0 && analysis.bands.iter().filter(|b| found(b)).all(|b| b.segments == 0)
}

/// The pair a document is analyzed for, as analyze settles it (the flags, else the
/// document's): only read again when nothing was found, to say whether the memory holds
/// that pair at all.
fn document_pair(path: &Path, args: &AnalyzeArgs) -> Option<(Locale, Locale)> {
    if let (Some(from), Some(to)) = (&args.from, &args.to) {
        return Some((from.clone(), to.clone()));
    }
    let (from, to) = if cmem::formats::format_of(path) == Some(Format::Po) {
        // A catalog's source is English unless --from says; its target the header's.
        let text = std::fs::read_to_string(path).ok()?;
        let language = text.lines().find_map(|l| {
            l.trim_start_matches('"')
                .strip_prefix("Language:")
                .map(|v| v.trim().trim_end_matches("\\n\"").trim())
        });
        (Some("en".to_owned()), language.filter(|l| !l.is_empty()).map(str::to_owned))
    } else {
        let doc = cmem::formats::XliffDocument::read(std::fs::File::open(path).ok()?, "").ok()?;
        (doc.source_locale().map(str::to_owned), doc.target_locale().map(str::to_owned))
    };
    let from = args.from.clone().or_else(|| from.and_then(|l| cmem::formats::po::po_locale(&l).ok()))?;
    let to = args.to.clone().or_else(|| to.and_then(|l| cmem::formats::po::po_locale(&l).ok()))?;
    Some((from, to))
}

/// Runs `cmem analyze`.
///
/// # Errors
/// A missing memory, a file that cannot be read or is not XLIFF or PO (located), missing
/// or invalid languages, a store failure. The files before the failing one are reported.
pub fn run(args: &AnalyzeArgs, memory_flag: Option<&Path>) -> Result<()> {
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
    let mut out = Stdout::new();
    if args.csv {
        write!(out, "{CSV_HEADER}")?;
    }
    let mut batch = Batch::new();
    for (i, path) in args.files.iter().enumerate() {
        let analysis = memory.analyze(&mut batch, path, &options).map_err(|e| {
            let file = if e.file().is_empty() { path.display().to_string() } else { e.file().to_owned() };
            anyhow!("analyze {file}: {}", with_flags(e.kind(), &located(&e)))
        });
        let analysis = match analysis {
            Ok(a) => a.clone(),
            Err(e) => {
                // What was reported so far stays reported.
                out.flush()?;
                return Err(e);
            }
        };
        write(&mut out, args, &analysis, i == 0)?;
        if nothing_found(&analysis) {
            if let Some(warning) = document_pair(path, args).and_then(|(f, t)| pair_warning(&memory, &f, &t))
            {
                out.flush()?;
                eprintln!("cmem: warning: {}: {warning}", path.display());
            }
        }
    }
    let total = (args.files.len() > 1).then(|| batch.total());
    if let Some(total) = &total {
        write(&mut out, args, total, false)?;
    }
    out.flush()?;
    if let Some(path) = &args.html {
        let page = html_report(batch.files(), total.as_ref());
        cmem::formats::write_atomically(path, page.as_bytes(), cmem::formats::Format::Store)
            .map_err(|e| anyhow!("analyze: {e}"))?;
    }
    Ok(())
}
