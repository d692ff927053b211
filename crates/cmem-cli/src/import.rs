//! `cmem import`: every file into the memory as one transaction, with a progress bar
//! on a terminal, problems listed as `FILE:LINE:COLUMN`, and a summary.
//!
//! Nothing of an import is visible before it ends: it is one write session of the store
//! (see `cmem_formats::import`). Ctrl-C or `SIGTERM` stops it and rolls it back (exit
//! status 130 / 143); a second one ends the program at once, which leaves nothing
//! either, since the transaction was never committed. Another writer's import makes
//! this one wait (saying so), for as long as [`WRITE_WAIT`].

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use cmem_core::{NewEntry, Run};
use cmem_formats::{
    import, ErrorKind, Format, FormatError, ImportOptions, Item, ItemSource, JsonlOptions, JsonlReader,
    KmbReader, Progress, RunsHook, TmxOptions, TmxReader,
};
use cmem_sqlite::{SqliteOptions, WaitHook};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::{FileFormat, ImportArgs};
use crate::memory;
use crate::output::{count, duration, plural, stop_on_signals};
use crate::query::recognizer;

/// How long an import waits for another writer (another import, most likely) to finish:
/// long, since an import of a large file takes minutes and waiting is what the user
/// wants; bounded, so that a stuck writer does not hold it forever. The wait says so
/// after [`WAIT_NOTICE`], and Ctrl-C ends it.
pub const WRITE_WAIT: Duration = Duration::from_secs(24 * 60 * 60);

/// When a wait for another writer is long enough to be worth a line on the terminal.
const WAIT_NOTICE: Duration = Duration::from_secs(1);

/// Counts the raw bytes read from a file (before any gzip), shared with the progress bar.
struct Counted<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

type Input = Box<dyn BufRead + Send>;

/// One file to import, opened before the import starts so a wrong name fails early.
struct Source {
    name: String,
    format: Format,
    input: Option<Input>,
}

/// Opens `path` (`-`: standard input), counting raw bytes into `bytes` and
/// decompressing gzip (by its magic bytes).
fn open(path: &Path, bytes: &Arc<AtomicU64>) -> io::Result<Input> {
    let raw: Box<dyn Read + Send> =
        if path == Path::new("-") { Box::new(io::stdin()) } else { Box::new(File::open(path)?) };
    let mut buffered = BufReader::with_capacity(64 * 1024, Counted { inner: raw, bytes: Arc::clone(bytes) });
    if buffered.fill_buf()?.starts_with(&[0x1f, 0x8b]) {
        let gz = flate2::bufread::MultiGzDecoder::new(buffered);
        Ok(Box::new(BufReader::with_capacity(64 * 1024, gz)))
    } else {
        Ok(Box::new(buffered))
    }
}

/// The reader of one file.
enum Reader<'h> {
    // Boxed: the TMX reader is large, and there is one reader at a time.
    Tmx(Box<TmxReader<Input>>),
    Kmb(KmbReader<Input>),
    Jsonl(JsonlReader<'h, Input>),
}

impl Reader<'_> {
    fn next(&mut self) -> Option<Result<Item, FormatError>> {
        match self {
            Reader::Tmx(r) => r.next(),
            Reader::Kmb(r) => r.next(),
            Reader::Jsonl(r) => r.next(),
        }
    }
}

/// All files, one after the other, as one [`ItemSource`] so that one import (one
/// all-or-nothing transaction) covers them all.
struct Files<'h> {
    sources: Vec<Source>,
    next: usize,
    current: Option<Reader<'h>>,
    bytes: Arc<AtomicU64>,
    hook: Option<RunsHook<'h>>,
    jsonl: JsonlOptions,
    strict: bool,
    /// The file being read, for messages about entries (store problems carry none).
    current_name: Arc<std::sync::Mutex<String>>,
    /// The progress bar, to print above it.
    bar: ProgressBar,
    /// Set by Ctrl-C or `SIGTERM`.
    stop: Arc<AtomicBool>,
}

impl<'h> Files<'h> {
    fn open_next(&mut self) -> Option<Result<Reader<'h>, FormatError>> {
        let source = self.sources.get_mut(self.next)?;
        self.next += 1;
        let input = source.input.take()?;
        if let Ok(mut name) = self.current_name.lock() {
            name.clone_from(&source.name);
        }
        let reader = match source.format {
            Format::Kmb => KmbReader::new(input, &source.name).map(Reader::Kmb),
            Format::Jsonl => {
                let mut options = self.jsonl.clone();
                options.file_name.clone_from(&source.name);
                Ok(Reader::Jsonl(JsonlReader::new(input, options, self.hook)))
            }
            _ => {
                let mut options = TmxOptions::default();
                options.strict = self.strict;
                options.file_name.clone_from(&source.name);
                TmxReader::new(input, options).map(|r| Reader::Tmx(Box::new(r)))
            }
        };
        Some(reader)
    }
}

impl Iterator for Files<'_> {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        // Checked after the read too: a read may block (standard input) while Ctrl-C comes.
        let item = self.next_item();
        if self.stop.load(Ordering::Relaxed) {
            say(&self.bar, "cmem: interrupted; rolling back the import (Ctrl-C again to stop at once)");
            self.sources.clear();
            self.current = None;
            return Some(Err(FormatError::new(Format::Store, ErrorKind::Io, "interrupted")));
        }
        item
    }
}

impl Files<'_> {
    fn next_item(&mut self) -> Option<Result<Item, FormatError>> {
        loop {
            if let Some(reader) = &mut self.current {
                let tmx = matches!(reader, Reader::Tmx(_));
                match reader.next() {
                    Some(Ok(Item::Entry(entry))) if tmx => {
                        return Some(Ok(Item::Entry(recognize_level1(entry, self.hook))));
                    }
                    Some(item) => return Some(item),
                    None => self.current = None,
                }
            }
            match self.open_next()? {
                Ok(reader) => self.current = Some(reader),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Prints `note` on stderr, above the progress bar when there is one.
fn say(bar: &ProgressBar, note: &str) {
    if bar.is_hidden() {
        eprintln!("{note}");
    } else {
        bar.println(note);
    }
}

/// A TMX entry whose segments are all plain text (level 1, or level 2 without codes) gets
/// its inline codes recognized like a JSON Lines line: the first variant as the source,
/// each other variant as a target linked to it. An entry that already carries codes is
/// left as its file gave it.
fn recognize_level1(mut entry: NewEntry, hook: Option<RunsHook<'_>>) -> NewEntry {
    let Some(hook) = hook else { return entry };
    let texts = entry.variants.iter().map(|v| cmem_core::run::text_only(&v.runs));
    let Some(texts) = texts.collect::<Option<Vec<String>>>() else {
        return entry;
    };
    let Some((source, targets)) = texts.split_first() else { return entry };
    for (i, target) in targets.iter().enumerate() {
        let (s, t) = hook(source, target);
        if i == 0 {
            entry.variants[0].runs = s;
        }
        entry.variants[i + 1].runs = t;
    }
    entry
}

impl ItemSource for Files<'_> {
    fn bytes_read(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// The format of a file: `--format`, else its extension.
fn format_for(path: &Path, flag: Option<FileFormat>) -> Result<Format> {
    match flag {
        Some(FileFormat::Tmx | FileFormat::Tmx1) => Ok(Format::Tmx),
        Some(FileFormat::Kmb) => Ok(Format::Kmb),
        Some(FileFormat::Jsonl) => Ok(Format::Jsonl),
        None if path == Path::new("-") => {
            bail!("import -: standard input needs --format tmx|kmb|jsonl")
        }
        None => cmem_formats::format_of(path).ok_or_else(|| {
            anyhow!(
                "import {}: unknown format (extension not .tmx, .kmb, .jsonl, .ndjson or .json); use --format",
                path.display()
            )
        }),
    }
}

/// A format error without its format and file prefix: `line 41, column 9: tu 7: …`.
pub fn located(e: &FormatError) -> String {
    let text = e.to_string();
    let rest = text.strip_prefix(&format!("{}: ", e.format().name())).unwrap_or(&text);
    let rest = if e.file().is_empty() {
        rest
    } else {
        rest.strip_prefix(&format!("{}: ", e.file())).unwrap_or(rest)
    };
    rest.to_owned()
}

/// A problem as a compiler-style line: `FILE:LINE:COLUMN: tu 7: …`.
fn problem_line(e: &FormatError, fallback_file: &str) -> String {
    let rest = located(e);
    let file = if e.file().is_empty() { fallback_file } else { e.file() };
    if e.file().is_empty() && fallback_file.is_empty() {
        return rest;
    }
    match (e.line(), e.column()) {
        (Some(l), Some(c)) => {
            let rest = rest.strip_prefix(&format!("line {l}, column {c}: ")).unwrap_or(&rest);
            format!("{file}:{l}:{c}: {rest}")
        }
        (Some(l), None) => {
            let rest = rest.strip_prefix(&format!("line {l}: ")).unwrap_or(&rest);
            format!("{file}:{l}: {rest}")
        }
        _ if file.is_empty() => rest,
        _ => format!("{file}: {rest}"),
    }
}

/// Runs `cmem import`.
///
/// # Errors
/// A file that cannot be opened or has an unknown format, a fatal format error (or any
/// problem with `--strict`), a store failure; the memory is then left as it was.
pub fn run(args: &ImportArgs, memory_flag: Option<&Path>, quiet: bool) -> Result<()> {
    let started = Instant::now();
    let bytes = Arc::new(AtomicU64::new(0));
    let mut sources = Vec::with_capacity(args.files.len());
    let mut total: Option<u64> = Some(0);
    let stdin_count = args.files.iter().filter(|p| *p == Path::new("-")).count();
    if stdin_count > 1 {
        bail!("import: standard input (`-`) can be named only once");
    }
    for path in &args.files {
        let format = format_for(path, args.format)?;
        let name = if path == Path::new("-") { "<stdin>".to_owned() } else { path.display().to_string() };
        let input = open(path, &bytes).map_err(|e| anyhow!("import {name}: cannot open: {e}"))?;
        total = match (total, std::fs::metadata(path)) {
            (Some(t), Ok(m)) if m.is_file() => Some(t + m.len()),
            _ => None,
        };
        sources.push(Source { name, format, input: Some(input) });
    }

    let rec = recognizer(&args.recognize)?;
    let pair =
        rec.as_ref().map(|r| move |s: &str, t: &str| -> (Vec<Run>, Vec<Run>) { r.recognize_pair(s, t) });
    let hook: Option<RunsHook<'_>> = pair.as_ref().map(|f| f as RunsHook<'_>);
    let mut jsonl = JsonlOptions::default();
    jsonl.source_locale.clone_from(&args.from);
    jsonl.target_locale.clone_from(&args.to);
    jsonl.strict = args.strict;
    let bar = if quiet || !io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else if let Some(total) = total {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} [{bar:30}] {bytes}/{total_bytes} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::new_spinner()
    };
    // Progress comes per batch; the tick keeps the spinner and clock moving between.
    if !bar.is_hidden() {
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
    }
    let current_name = Arc::new(std::sync::Mutex::new(String::new()));
    let stop = stop_on_signals(true).map_err(|e| anyhow!("import: cannot handle Ctrl-C: {e}"))?;
    let files = Files {
        sources,
        next: 0,
        current: None,
        bytes: Arc::clone(&bytes),
        hook,
        jsonl,
        strict: args.strict,
        current_name: Arc::clone(&current_name),
        bar: bar.clone(),
        stop: Arc::clone(&stop),
    };

    let path = memory::resolve(memory_flag);
    let (told, hook_bar, hook_stop) = (AtomicBool::new(false), bar.clone(), Arc::clone(&stop));
    let hook = WaitHook::new(move |waited| {
        if waited >= WAIT_NOTICE && !quiet && !told.swap(true, Ordering::Relaxed) {
            say(&hook_bar, "cmem: waiting for another writer… (Ctrl-C to give up)");
        }
        !hook_stop.load(Ordering::Relaxed)
    });
    let store = memory::open_for_write(&path, SqliteOptions::default().write_wait(WRITE_WAIT).on_wait(hook))?;

    let mut options = ImportOptions::default();
    options.strict = args.strict;
    let mut on_progress = |p: &Progress| {
        bar.set_position(p.bytes_read);
        bar.set_message(format!("{} entries", count(p.read)));
    };
    let result = import(&store, files, &options, &mut on_progress);
    bar.finish_and_clear();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            // A memory this import created stays, empty: another program may have
            // opened it meanwhile, and removing it would lose what that one writes.
            let file = if e.file().is_empty() {
                current_name.lock().map(|n| n.clone()).unwrap_or_default()
            } else {
                e.file().to_owned()
            };
            let what = if file.is_empty() { "import".to_owned() } else { format!("import {file}") };
            bail!("{what}: {}", located(&e));
        }
    };

    let p = report.progress;
    for problem in report.problems.iter().take(args.max_problems) {
        // A problem without a file (an entry the store refused) names its entry only.
        eprintln!("{}", problem_line(problem, ""));
    }
    if p.problems > args.max_problems as u64 {
        let more = p.problems - args.max_problems as u64;
        eprintln!("… and {} more {}", count(more), if more == 1 { "problem" } else { "problems" });
    }
    if !quiet {
        let what = match args.files.as_slice() {
            [one] if one == Path::new("-") => "<stdin>".to_owned(),
            [one] => one.display().to_string(),
            many => format!("{} files", many.len()),
        };
        eprintln!(
            "imported {what} into {}: {} read, {} written, {} deduplicated, {} in {}",
            path.display(),
            count(p.read),
            count(p.inserted),
            count(p.deduplicated),
            plural(p.problems, "problem"),
            duration(started.elapsed()),
        );
    }
    if p.read == 0 && p.problems > 0 {
        bail!("import: nothing imported, {} (listed above)", plural(p.problems, "problem"));
    }
    Ok(())
}
