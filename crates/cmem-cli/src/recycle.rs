//! `cmem recycle`: pre-translate a document (an XLIFF file, a PO/POT catalog, …:
//! whatever the format registry recycles) from the memory, writing it atomically.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Result};
use cmem::formats::registry::{self, FormatSpec};
use cmem::formats::{FillAmbiguous, FormatError, OutputFile, RecycleOptions, RecycleReport};
use serde_json::Value;

use crate::args::{FillAmbiguousArg, RecycleArgs};
use crate::import::located;
use crate::memory;
use crate::output::{count, duration, plural, stop_on_signals, with_flags, Stdout};

fn options(args: &RecycleArgs, memory: &cmem::Memory, quiet: bool) -> Result<RecycleOptions> {
    let mut o = RecycleOptions::default();
    // Plain-text segments are recognized like imported plain strings and lookup text, so
    // they match a memory built by `cmem import`.
    o.recognizer = crate::query::query_recognizer(&args.recognize, memory, quiet)?;
    o.fuzzy_threshold = args.fuzzy_threshold / 100.0;
    o.fill_threshold = args.fill_threshold / 100.0;
    o.max_candidates = args.max_candidates;
    o.point.clone_from(&args.point);
    o.source_locale.clone_from(&args.from);
    o.target_locale.clone_from(&args.to);
    o.overwrite = args.overwrite;
    o.review_exact = args.review_exact;
    o.fill_repetitions = !args.no_fill_repetitions;
    o.lookup.penalties.clone_from(&args.penalties);
    Ok(o.fill_ambiguous(match args.fill_ambiguous {
        FillAmbiguousArg::Never => FillAmbiguous::Never,
        FillAmbiguousArg::Dominant => FillAmbiguous::Dominant,
    }))
}

/// `path` for messages: `<stdin>`/`<stdout>` for `-`.
fn name(path: &Path, dash: &str) -> String {
    if path == Path::new("-") {
        dash.to_owned()
    } else {
        path.display().to_string()
    }
}

/// The one-line error of a failed recycle: `recycle doc.xlf: line 4, column 7: …`,
/// naming the file the error is about (the output, when writing it failed).
fn failure(e: &FormatError, input: &str) -> anyhow::Error {
    let file = if e.file().is_empty() { input } else { e.file() };
    anyhow::anyhow!("recycle {file}: {}", with_flags(e.kind(), &located(e)))
}

/// Runs `cmem recycle`.
///
/// # Errors
/// A missing memory, an input that cannot be read or is not XLIFF (located), missing
/// or invalid languages, a store failure, an output that cannot be written; the output
/// is then left as it was.
pub fn run(args: &RecycleArgs, memory_flag: Option<&Path>, quiet: bool) -> Result<()> {
    let started = Instant::now();
    // Every segment is looked up: the in-process gram index, built once per source
    // locale, as in `lookup --batch` (not the SQL candidates of a single lookup).
    let memory = memory::open_existing(&memory::resolve(memory_flag))?;
    let options = options(args, &memory, quiet)?;
    let input = name(&args.input, "<stdin>");
    let output = name(&args.output, "<stdout>");
    let stdin = args.input == Path::new("-");
    let stdout = args.output == Path::new("-");
    // By the input's extension among the formats that recycle, else XLIFF.
    let format = registry::document_format(&args.input);
    if let Some(named) = registry::by_path(&args.output).filter(|f| !stdout && f.format != format.format) {
        bail!(
            "recycle {input}: -o {output} names {} file, but recycle writes {} file, the input's \
             format; name the output OUT{}",
            noun(named),
            noun(format),
            format.extension()
        );
    }
    // A format whose file names say their language takes the languages from the names
    // when the options give none.
    let mut options = options;
    if options.source_locale.is_none() && !stdin {
        options.source_locale = format.locale_of_file(&args.input);
    }
    if options.target_locale.is_none() && !stdout {
        options.target_locale = format.locale_of_file(&args.output);
    }
    let reader: Box<dyn Read> = if stdin {
        Box::new(io::stdin().lock())
    } else {
        match File::open(&args.input) {
            Ok(f) => Box::new(f),
            Err(e) => bail!("recycle {input}: cannot read: {e}"),
        }
    };
    // The document is complete before the first byte is written, so a failure writes
    // nothing, to a file or to standard output.
    let mut bytes = Vec::new();
    let report = memory
        .recycle(format.format, reader, &input, &mut bytes, &options)
        .map_err(|e| failure(&e, &input))?;
    if stdout {
        let mut out = Stdout::new();
        out.write_all(&bytes)?;
        out.flush()?;
    } else {
        write_output(&args.output, &bytes, format).map_err(|e| failure(&e, &input))?;
    }
    let elapsed = started.elapsed();
    if !quiet && report.filled + report.with_candidates == 0 && report.untouched > 0 {
        // Nothing found for any segment: say so when the memory holds nothing of the pair.
        if let Some(warning) =
            report.pair.as_ref().and_then(|(f, t)| crate::lookup::pair_warning(&memory, f, t))
        {
            eprintln!("cmem: warning: {warning}");
        }
    }
    if args.verbose && !quiet {
        for skip in &report.skips {
            let unit = if skip.unit.is_empty() { String::new() } else { format!(" (unit {:?})", skip.unit) };
            eprintln!("{input}:{}: skipped{unit}: {}", skip.line, skip.reason);
        }
    }
    if args.json {
        let mut value = serde_json::to_value(&report)?;
        if let Value::Object(m) = &mut value {
            m.insert("input".into(), Value::from(input.as_str()));
            m.insert("output".into(), Value::from(output.as_str()));
            m.insert("micros".into(), Value::from(elapsed.as_micros() as u64));
        }
        let mut out = Stdout::new();
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
        out.flush()?;
    } else if !quiet {
        eprintln!("{}", summary(&report, &input, &output, &duration(elapsed)));
    }
    Ok(())
}

/// A format as the `-o` error names it, with its article: `a gettext PO`.
fn noun(format: &FormatSpec) -> String {
    format!("{} {}", format.article, format.title)
}

/// Writes the recycled document as an [`OutputFile`], which a Ctrl-C or `SIGTERM`
/// while it is written cancels (the temporary file goes, the output stays as it was).
fn write_output(path: &Path, bytes: &[u8], format: &FormatSpec) -> Result<(), FormatError> {
    let fail =
        |e: io::Error| FormatError::io(format.format, "cannot write", e).in_file(path.display().to_string());
    let mut out = OutputFile::create(path).map_err(fail)?;
    if out.is_atomic() {
        out.cancel_on(stop_on_signals(false).map_err(fail)?);
    }
    out.write_all(bytes).map_err(fail)?;
    out.commit().map_err(fail)
}

/// `recycled IN into OUT: 12 segments, 3 filled (2 exact), …, 1 skipped in 3.1 ms`.
fn summary(r: &RecycleReport, input: &str, output: &str, took: &str) -> String {
    let n = |v: usize| count(v as u64);
    let mut line = format!(
        "recycled {input} into {output}: {}, {} filled ({} exact), {} with candidates, {} untouched, {} skipped in {took}",
        plural(r.segments as u64, "segment"),
        n(r.filled),
        n(r.filled_exact),
        n(r.with_candidates),
        n(r.untouched),
        n(r.skipped),
    );
    if r.filled_context > 0 {
        let what =
            if r.filled_context == 1 { "fill is a context match" } else { "fills are context matches" };
        line.push_str(&format!("; {} exact {what} (101%)", n(r.filled_context)));
    }
    if r.repetitions > 0 {
        line.push_str(&format!("; {}", plural(r.repetitions as u64, "repetition")));
        if r.filled_repetitions > 0 {
            line.push_str(&format!(
                " ({} from the first occurrence, marked for review)",
                if r.filled_repetitions == 1 {
                    "1 filled".to_owned()
                } else {
                    format!("{} filled", n(r.filled_repetitions))
                }
            ));
        }
    }
    if r.filled_ambiguous > 0 {
        line.push_str(&format!(
            "; {} the dominant of ambiguous answers (marked for review)",
            if r.filled_ambiguous == 1 {
                "1 fill is".to_owned()
            } else {
                format!("{} fills are", n(r.filled_ambiguous))
            }
        ));
    }
    if r.filled_repaired > 0 {
        line.push_str(&format!(
            "; {} (marked for review, the target without the repair beside it)",
            if r.filled_repaired == 1 {
                "1 fill had words repaired".to_owned()
            } else {
                format!("{} fills had words repaired", n(r.filled_repaired))
            }
        ));
    }
    if r.codes_dropped > 0 {
        line.push_str(&format!(
            "; {} of the fills without a counterpart in the source left out (those fills are marked for review)",
            plural(r.codes_dropped as u64, "inline code")
        ));
    }
    if r.filled_term_issues > 0 {
        line.push_str(&format!(
            "; {} the memory's translation of a term (terminology: noted in the output, listed by --json)",
            if r.filled_term_issues == 1 {
                "1 fill does not use".to_owned()
            } else {
                format!("{} fills do not use", n(r.filled_term_issues))
            }
        ));
    }
    if r.with_fragments > 0 {
        line.push_str(&format!(
            "; {} without a fill got fragments (never filled in)",
            plural(r.with_fragments as u64, "segment")
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lines() {
        let mut r = RecycleReport::default();
        r.segments = 1;
        r.untouched = 1;
        assert_eq!(
            summary(&r, "a.xlf", "b.xlf", "2 ms"),
            "recycled a.xlf into b.xlf: 1 segment, 0 filled (0 exact), 0 with candidates, 1 untouched, 0 skipped in 2 ms"
        );
        r.segments = 1200;
        r.filled = 1001;
        r.codes_dropped = 2;
        assert_eq!(
            summary(&r, "-", "b.xlf", "1.5 s"),
            "recycled - into b.xlf: 1,200 segments, 1,001 filled (0 exact), 0 with candidates, 1 untouched, 0 skipped \
             in 1.5 s; 2 inline codes of the fills without a counterpart in the source left out (those fills are \
             marked for review)"
        );
        r.filled_context = 2;
        r.repetitions = 4;
        r.filled_repetitions = 1;
        r.codes_dropped = 0;
        assert!(
            summary(&r, "-", "b.xlf", "1.5 s").ends_with(
                "in 1.5 s; 2 exact fills are context matches (101%); 4 repetitions (1 filled from the first occurrence, marked for review)"
            ),
            "{}",
            summary(&r, "-", "b.xlf", "1.5 s")
        );
        r.filled_context = 0;
        r.repetitions = 0;
        r.filled_ambiguous = 3;
        assert!(
            summary(&r, "-", "b.xlf", "1.5 s")
                .ends_with("; 3 fills are the dominant of ambiguous answers (marked for review)"),
            "{}",
            summary(&r, "-", "b.xlf", "1.5 s")
        );
        assert_eq!(name(Path::new("-"), "<stdin>"), "<stdin>");
        assert_eq!(name(Path::new("a.xlf"), "<stdin>"), "a.xlf");
    }
}
