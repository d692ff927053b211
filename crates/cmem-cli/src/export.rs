//! `cmem export`: the memory to a TMX, `.kmb`, JSON Lines, PO or Weblate JSON file, or to
//! standard output.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use cmem::formats::{
    EntrySink, ExportOptions, Format, FormatError, JsonlMode, JsonlOptions, JsonlWriter, KmbWriter, Level,
    OutputFile, PoWriter, TmxWriteOptions, TmxWriter, WeblateOptions, WeblateWriter,
};
use cmem::{Locale, Memory};
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::args::{ExportArgs, ExportFormat};
use crate::memory;
use crate::output::{count, duration, stop_on_signals, Stdout};

/// Where the bytes go: plain, or gzip-compressed for a name ending in `.gz`.
enum Out {
    Plain(Sink),
    Gzip(GzEncoder<Sink>),
}

/// Standard output, or an [`OutputFile`] committed when the export is complete.
enum Sink {
    Stdout(Stdout),
    File(OutputFile),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::File(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::File(w) => w.flush(),
        }
    }
}

impl Sink {
    fn finish(self) -> io::Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush(),
            Sink::File(f) => f.commit(),
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::Plain(w) => w.write(buf),
            Out::Gzip(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::Plain(w) => w.flush(),
            Out::Gzip(w) => w.flush(),
        }
    }
}

impl Out {
    /// Ends the gzip stream, if any, and flushes; a file is then put in place.
    fn finish(self) -> io::Result<()> {
        match self {
            Out::Plain(w) => w.finish(),
            Out::Gzip(w) => w.finish()?.finish(),
        }
    }
}

/// The format written: `--format`, else the extension, else TMX on standard output.
fn format_for(path: &Path, flag: Option<ExportFormat>) -> Result<ExportFormat> {
    if let Some(f) = flag {
        return Ok(f);
    }
    if path == Path::new("-") {
        return Ok(ExportFormat::Tmx);
    }
    match cmem::formats::format_of(path) {
        Some(Format::Tmx) => Ok(ExportFormat::Tmx),
        Some(Format::Kmb) => Ok(ExportFormat::Kmb),
        Some(Format::Jsonl) => Ok(ExportFormat::Jsonl),
        Some(Format::Po) => Ok(ExportFormat::Po),
        _ => bail!(
            "export {}: unknown format (extension not .tmx, .kmb, .jsonl, .ndjson, .json or .po); use --format",
            path.display()
        ),
    }
}

/// The PO arm without its locale pair, which `run` refused before opening anything.
fn unreachable_pair() -> Result<u64, FormatError> {
    Err(FormatError::new(Format::Po, cmem::formats::FormatErrorKind::InvalidLocale, "give --from and --to"))
}

/// Drives an export into a writer and finishes it.
fn write_with<S: EntrySink>(
    memory: &Memory,
    mut sink: S,
    options: &ExportOptions,
    finish: impl FnOnce(S) -> Result<Out, FormatError>,
) -> Result<u64, FormatError> {
    let n = memory.export(&mut sink, options, &mut |_| {})?;
    let out = finish(sink)?;
    out.finish().map_err(|e| FormatError::io(Format::Store, "write failed", e))?;
    Ok(n)
}

/// The one locale pair of a PO catalog: `--from` and `--to`, or what the memory holds
/// when it holds exactly one pair that agrees with the one of them given.
///
/// # Errors
/// The memory holds no pair or several (naming them), or its statistics fail.
fn po_pair(memory: &Memory, args: &ExportArgs) -> Result<(Locale, Locale)> {
    if let (Some(from), Some(to)) = (&args.from, &args.to) {
        return Ok((from.clone(), to.clone()));
    }
    let name = args.output.display();
    let stats = memory.stats().with_context(|| format!("export {name}"))?;
    let fits = |p: &&cmem::PairCount| {
        args.from.as_ref().is_none_or(|l| *l == p.source) && args.to.as_ref().is_none_or(|l| *l == p.target)
    };
    let pairs: Vec<&cmem::PairCount> = stats.pairs.iter().filter(fits).collect();
    match pairs[..] {
        [one] => Ok((one.source.clone(), one.target.clone())),
        [] => bail!("export {name}: a PO catalog holds one locale pair, and the memory holds none that fits"),
        _ => {
            let list: Vec<String> = pairs.iter().map(|p| format!("{} → {}", p.source, p.target)).collect();
            bail!(
                "export {name}: a PO catalog holds one locale pair and the memory holds {} ({}); \
                 give --from and --to",
                list.len(),
                list.join(", ")
            )
        }
    }
}

/// Runs `cmem export`.
///
/// # Errors
/// A missing memory, an unknown format, a failure to write (not a closed pipe, which
/// ends the export quietly), a store failure.
pub fn run(args: &ExportArgs, memory_flag: Option<&Path>, quiet: bool) -> Result<()> {
    let started = Instant::now();
    let format = format_for(&args.output, args.format)?;
    let path = memory::resolve(memory_flag);
    let memory = memory::open_existing(&path)?;
    let po_pair = match format {
        ExportFormat::Po => Some(po_pair(&memory, args)?),
        _ => None,
    };
    let to_stdout = args.output == Path::new("-");
    let name = if to_stdout { "<stdout>".to_owned() } else { args.output.display().to_string() };

    // A regular file is written under a temporary name beside it and renamed when
    // complete, so a failed or interrupted export never leaves a truncated file under
    // the requested name (cmem::formats::output says what links and devices get).
    let raw = if to_stdout {
        Sink::Stdout(Stdout::new())
    } else {
        let mut file =
            OutputFile::create(&args.output).with_context(|| format!("export {name}: cannot write"))?;
        if file.is_atomic() {
            // Ctrl-C or SIGTERM make the next write fail: the temporary file goes.
            let stop = stop_on_signals(false).map_err(|e| anyhow!("export: cannot handle Ctrl-C: {e}"))?;
            file.cancel_on(Arc::clone(&stop));
        }
        Sink::File(file)
    };
    let gz = args.output.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let out = if gz { Out::Gzip(GzEncoder::new(raw, Compression::default())) } else { Out::Plain(raw) };

    let mut options = ExportOptions::default();
    options.source_locale.clone_from(&args.from);
    options.target_locale.clone_from(&args.to);
    if let Some((from, to)) = &po_pair {
        options.source_locale = Some(from.clone());
        options.target_locale = Some(to.clone());
    }
    let result = match format {
        ExportFormat::Tmx | ExportFormat::Tmx1 => {
            let mut o = TmxWriteOptions::default();
            o.level = if format == ExportFormat::Tmx1 { Level::One } else { Level::Two };
            o.source_locale.clone_from(&args.from);
            TmxWriter::new(out, o).and_then(|w| write_with(&memory, w, &options, TmxWriter::finish))
        }
        ExportFormat::Kmb => {
            KmbWriter::new(out, None).and_then(|w| write_with(&memory, w, &options, KmbWriter::finish))
        }
        ExportFormat::Jsonl => {
            let mut o = JsonlOptions::default();
            o.mode = JsonlMode::Full;
            write_with(&memory, JsonlWriter::new(out, o), &options, JsonlWriter::finish)
        }
        ExportFormat::Po => match po_pair {
            Some((from, to)) => {
                PoWriter::new(out, from, to).and_then(|w| write_with(&memory, w, &options, PoWriter::finish))
            }
            None => unreachable_pair(),
        },
        ExportFormat::Weblate => {
            let mut o = WeblateOptions::default();
            o.source_locale.clone_from(&args.from);
            o.target_locale.clone_from(&args.to);
            WeblateWriter::new(out, o).and_then(|w| write_with(&memory, w, &options, WeblateWriter::finish))
        }
    };
    let written = match result {
        Ok(n) => n,
        Err(e) => bail!("export {name}: {}", crate::import::located(&e)),
    };
    if !quiet {
        eprintln!(
            "exported {} entries from {} to {name} in {}",
            count(written),
            path.display(),
            duration(started.elapsed())
        );
    }
    Ok(())
}
