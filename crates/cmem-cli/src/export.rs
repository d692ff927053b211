//! `cmem export`: the memory to a file of any format the format registry writes (TMX,
//! `.kmb`, JSON Lines, PO, Weblate JSON), or to standard output.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use cmem::formats::registry::{self, FormatSpec};
use cmem::formats::{ExportOptions, Format, FormatError, OutputFile};
use cmem::{Locale, Memory};
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::args::ExportArgs;
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
fn format_for(path: &Path, flag: Option<&'static FormatSpec>) -> Result<&'static FormatSpec> {
    if let Some(f) = flag {
        return Ok(f);
    }
    let by_name = if path == Path::new("-") {
        registry::by_format(Format::Tmx)
    } else {
        registry::by_path(path).filter(|f| f.can_export())
    };
    by_name.ok_or_else(|| {
        anyhow!(
            "export {}: unknown format (extension not {}); use --format",
            path.display(),
            registry::either(&registry::extensions(FormatSpec::can_export))
        )
    })
}

/// Writes the memory into `out` as `format` and ends the file.
fn write_as(
    memory: &Memory,
    format: &FormatSpec,
    mut out: Out,
    options: &ExportOptions,
) -> Result<u64, FormatError> {
    let mut writer = format.writer(&mut out, options)?;
    let n = memory.export(writer.sink(), options, &mut |_| {})?;
    writer.finish()?;
    out.finish().map_err(|e| FormatError::io(Format::Store, "write failed", e))?;
    Ok(n)
}

/// The one locale pair of a file that holds one (a PO catalog): `--from` and `--to`, or
/// what the memory holds when it holds exactly one pair that agrees with the one of
/// them given.
///
/// # Errors
/// The memory holds no pair or several (naming them), or its statistics fail.
fn one_pair(memory: &Memory, args: &ExportArgs, format: &FormatSpec) -> Result<(Locale, Locale)> {
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
        [] => bail!(
            "export {name}: {} {} file holds one locale pair, and the memory holds none that fits",
            format.article,
            format.title
        ),
        _ => {
            let list: Vec<String> = pairs.iter().map(|p| format!("{} → {}", p.source, p.target)).collect();
            bail!(
                "export {name}: {} {} file holds one locale pair and the memory holds {} ({}); \
                 give --from and --to",
                format.article,
                format.title,
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
    let format = format_for(&args.output, args.format.map(|f| f.0))?;
    let path = memory::resolve(memory_flag);
    let memory = memory::open_existing(&path)?;
    let pair = if format.one_pair { Some(one_pair(&memory, args, format)?) } else { None };
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
    if let Some((from, to)) = pair {
        options.source_locale = Some(from);
        options.target_locale = Some(to);
    }
    let result = write_as(&memory, format, out, &options);
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
