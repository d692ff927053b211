//! `cmem import`: every file into the memory as one transaction, with a progress bar
//! on a terminal, problems listed as `FILE:LINE:COLUMN`, and a summary.
//!
//! Nothing of an import is visible before it ends: it is one write session of the store
//! (see `cmem::formats::import`). Ctrl-C or `SIGTERM` stops it and rolls it back (exit
//! status 130 / 143); a second one ends the program at once, which leaves nothing
//! either, since the transaction was never committed. Another writer's import makes
//! this one wait (saying so), for as long as [`WRITE_WAIT`].

use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use cmem::formats::registry::{self, FormatSpec};
use cmem::formats::{FormatError, Input, Progress};
use cmem::{ImportRequest, OpenOptions, WaitHook};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::{ImportArgs, IndexArgs};
use crate::memory;
use crate::output::{count, duration, plural, stop_on_signals, with_flags};
use crate::query::recognizer;

/// How long an import waits for another writer (another import, most likely) to finish:
/// long, since an import of a large file takes minutes and waiting is what the user
/// wants; bounded, so that a stuck writer does not hold it forever. The wait says so
/// after [`WAIT_NOTICE`], and Ctrl-C ends it.
pub const WRITE_WAIT: Duration = Duration::from_secs(24 * 60 * 60);

/// When a wait for another writer is long enough to be worth a line on the terminal.
const WAIT_NOTICE: Duration = Duration::from_secs(1);

/// Prints `note` on stderr, above the progress bar when there is one.
fn say(bar: &ProgressBar, note: &str) {
    if bar.is_hidden() {
        eprintln!("{note}");
    } else {
        bar.println(note);
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
    let stdin_count = args.files.iter().filter(|p| *p == Path::new("-")).count();
    if stdin_count > 1 {
        bail!("import: standard input (`-`) can be named only once");
    }
    let mut inputs = Vec::with_capacity(args.files.len());
    let mut total: Option<u64> = Some(0);
    for path in &args.files {
        // A format written but not imported (`tmx1`) names its format's files (TMX).
        let format = args.format.map(|f| f.0.format);
        if path == Path::new("-") && format.is_none() {
            let streams = registry::names(FormatSpec::can_import_stream);
            bail!("import -: standard input needs --format {}", streams.join("|"));
        }
        let input = Input::open(path, format).map_err(|e| anyhow!("import {}", e.message()))?;
        total = total.zip(input.size()).map(|(t, s)| t + s);
        inputs.push(input);
    }

    let rec = recognizer(&args.recognize)?;
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
    let stop = stop_on_signals(true).map_err(|e| anyhow!("import: cannot handle Ctrl-C: {e}"))?;
    let cancel_bar = bar.clone();
    let align = match (args.align, args.no_align) {
        (true, _) => cmem::AlignMode::Always,
        (_, true) => cmem::AlignMode::Off,
        _ => cmem::AlignMode::WhenStale,
    };
    let request = ImportRequest::new(inputs)
        .align(align)
        .locales(args.from.clone(), args.to.clone())
        .strict(args.strict)
        .relabel(args.relabel)
        .recognizer(rec)
        .cancel_on(Arc::clone(&stop))
        .on_cancel(move || {
            say(&cancel_bar, "cmem: interrupted; rolling back the import (Ctrl-C again to stop at once)");
        });

    let path = memory::resolve(memory_flag);
    // A SQLite file this import creates is removed again when it stores nothing.
    let created = sqlite_file(&path).filter(|f| !f.exists());
    let (told, hook_bar, hook_stop) = (AtomicBool::new(false), bar.clone(), Arc::clone(&stop));
    let on_wait = WaitHook::new(move |waited| {
        if waited >= WAIT_NOTICE && !quiet && !told.swap(true, Ordering::Relaxed) {
            say(&hook_bar, "cmem: waiting for another writer… (Ctrl-C to give up)");
        }
        !hook_stop.load(Ordering::Relaxed)
    });
    // The claim comes before the open, so that no import removes the file this one opens.
    let claim = Claim::take(&path);
    // A memory this import creates is held alone while it is written (written once, not
    // to the WAL and again); other programs wait for it.
    let options =
        OpenOptions::new().write_wait(WRITE_WAIT).on_wait(on_wait).first_import_alone(created.is_some());
    let memory = match memory::open_for_write(&path, options) {
        Ok(memory) => memory,
        Err(e) => {
            // The claim may have created the file: an empty one goes again.
            if let Some(file) =
                created.as_deref().filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() == 0))
            {
                remove_memory_files(&claim, file);
            }
            return Err(e);
        }
    };

    let mut on_progress = |p: &Progress| {
        bar.set_position(p.bytes_read);
        bar.set_message(format!("{} entries", count(p.read)));
    };
    let result = memory.import(request, &mut on_progress);
    bar.finish_and_clear();
    let imported = match result {
        Ok(r) => r,
        Err(e) => {
            discard_created(memory, claim, created.as_deref());
            let what = if e.file().is_empty() { "import".to_owned() } else { format!("import {}", e.file()) };
            bail!("{what}: {}", with_flags(e.kind(), &located(&e)));
        }
    };
    let (report, p) = (&imported.report, imported.report.progress);
    // The rules this memory's plain strings were recognized with are recorded on its
    // first import, so every front end queries it the same way; later ones are compared.
    if let Some(before) = imported.rule_set_before.as_ref().filter(|_| !quiet) {
        eprintln!(
            "cmem: warning: this memory was imported with recognizer rules {before:?}, this import used {:?}",
            imported.rule_set
        );
    }
    for problem in report.problems.iter().take(args.max_problems) {
        // A problem without a file (an entry the store refused) names its entry only.
        eprintln!("{}", with_flags(problem.kind(), &problem_line(problem, "")));
    }
    if p.problems > args.max_problems as u64 {
        let more = p.problems - args.max_problems as u64;
        eprintln!("… and {} more {}", count(more), if more == 1 { "problem" } else { "problems" });
    }
    // The index was written before the summary, whose time is the whole command's: the
    // index is part of what an import costs (on a large memory, seconds of it).
    if let Some(e) = &imported.index_error {
        // Nothing is lost: the next lookup builds the index.
        say(&bar, &format!("cmem: warning: the candidate index was not brought up to date: {e}"));
    }
    if !quiet {
        let what = what_of(&args.files);
        let index = imported
            .index_time
            .map_or_else(String::new, |t| format!(" ({} of it the candidate index)", duration(t)));
        eprintln!(
            "imported {what} into {}: {} read, {} written, {} deduplicated, {} in {}{index}",
            path.display(),
            count(p.read),
            count(p.inserted),
            count(p.deduplicated),
            plural(p.problems, "problem"),
            duration(started.elapsed()),
        );
    }
    if p.read == 0 && p.problems > 0 {
        discard_created(memory, claim, created.as_deref());
        bail!("import: nothing imported, {} (listed above)", plural(p.problems, "problem"));
    }
    if p.read == 0 && !quiet {
        // Not an error: importing nothing is how a memory is created or upgraded.
        eprintln!("cmem: warning: no entries in {} (an empty file?)", what_of(&args.files));
    }
    if !quiet {
        say_aligned(&imported);
    }
    if let Some(e) = &imported.align_error {
        // The import stands: the model is derived, and lookups work without it.
        eprintln!(
            "cmem: warning: the word models were not brought up to date (the import is kept): {}",
            e.message_and_causes()
        );
    }
    for r in &imported.aligned {
        if let cmem::RealignOutcome::Failed(e) = &r.outcome {
            if args.align {
                bail!("import --align (the import itself is kept): {e}");
            }
            eprintln!(
                "cmem: warning: the word model of {} → {} was not trained (the import is kept): {e}",
                r.from.as_str(),
                r.to.as_str()
            );
        }
    }
    Ok(())
}

/// A line per word model the import trained: what it learned from and how long it took.
fn say_aligned(imported: &cmem::Imported) {
    for r in &imported.aligned {
        if let cmem::RealignOutcome::Trained(report) = &r.outcome {
            let time = imported.align_time.map_or_else(String::new, |t| format!(" in {}", duration(t)));
            eprintln!(
                "aligned {} → {}: {} pairs, {} phrase pairs{time} (--no-align skips this; `cmem align` trains again)",
                r.from.as_str(),
                r.to.as_str(),
                count(report.pairs as u64),
                count(report.phrase_pairs as u64),
            );
        }
    }
}

/// The files of an import as the summary names them.
fn what_of(files: &[std::path::PathBuf]) -> String {
    match files {
        [one] if one == Path::new("-") => "<stdin>".to_owned(),
        [one] => one.display().to_string(),
        many => format!("{} files", many.len()),
    }
}

/// The file of a SQLite memory address (not of `memory:` or PostgreSQL).
fn sqlite_file(path: &Path) -> Option<std::path::PathBuf> {
    match cmem::Address::parse(&path.to_string_lossy()) {
        Ok(cmem::Address::Sqlite(file)) => Some(file),
        _ => None,
    }
}

/// A shared advisory lock (`flock`) on a SQLite memory's file, held by every import
/// from before it opens the memory to its end. An import that created the file and
/// stored nothing removes it only under the exclusive lock, which it gets only when no
/// other import holds the file: so a second import that opened the new file (and waits
/// for the first to finish writing) keeps it, with what it then stores. SQLite's own
/// locks are `fcntl` locks, which `flock` does not touch.
struct Claim {
    #[cfg(unix)]
    file: Option<std::fs::File>,
}

impl Claim {
    /// The claim on `path`'s file, created empty if need be (SQLite takes an empty file
    /// as a new database), taken again when the file was removed before the lock held.
    /// None when the file cannot be opened: opening the memory then says why, and an
    /// import without a claim never removes its file.
    fn take(path: &Path) -> Claim {
        #[cfg(unix)]
        {
            use rustix::fs::{flock, FlockOperation};
            use std::os::unix::fs::MetadataExt;
            let Some(db) = sqlite_file(path) else { return Claim { file: None } };
            let open =
                || std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&db);
            // Bounded: a file removed under every attempt is a pathological race.
            for _ in 0..100 {
                let Ok(file) = open() else { break };
                if flock(&file, FlockOperation::LockShared).is_err() {
                    break;
                }
                let Ok(held) = file.metadata() else { break };
                // Removed (or replaced) between the open and the lock: claim what is there now.
                if std::fs::metadata(&db).is_ok_and(|m| m.dev() == held.dev() && m.ino() == held.ino()) {
                    return Claim { file: Some(file) };
                }
            }
            Claim { file: None }
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            Claim {}
        }
    }

    /// True when no other import holds the file; this one then holds it alone until the
    /// claim is dropped.
    fn alone(&self) -> bool {
        #[cfg(unix)]
        {
            use rustix::fs::{flock, FlockOperation};
            self.file.as_ref().is_some_and(|f| flock(f, FlockOperation::NonBlockingLockExclusive).is_ok())
        }
        #[cfg(not(unix))]
        {
            false
        }
    }
}

/// Closes `memory` and, when this import created its file (`created`), it holds no
/// entry and no other import holds it (see [`Claim`]), removes the file and what SQLite
/// and the index keep beside it (`-wal`, `-shm`, `-journal`, `-gix-*`): a failed first
/// import leaves no empty memory behind.
fn discard_created(memory: cmem::Memory, claim: Claim, created: Option<&Path>) {
    let Some(file) = created else { return };
    let empty = memory.stats().is_ok_and(|s| s.entries == 0);
    drop(memory);
    if empty {
        remove_memory_files(&claim, file);
    }
    // The claim (and with it the exclusive lock) ends only now, after the removal.
    drop(claim);
}

/// Removes the memory `file` and its side files when `claim` is held alone.
fn remove_memory_files(claim: &Claim, file: &Path) {
    if !claim.alone() {
        return;
    }
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let side = |other: &str| {
        other == name
            || ["-wal", "-shm", "-journal"].iter().any(|s| other.strip_prefix(name) == Some(*s))
            || other.strip_prefix(name).is_some_and(|rest| rest.starts_with("-gix-"))
    };
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_str().is_some_and(side) {
                // Best effort: what cannot be removed is an empty memory, not a loss.
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Runs `cmem index`.
///
/// # Errors
/// A missing memory, or a store failure.
pub fn index(args: &IndexArgs, memory_flag: Option<&Path>, quiet: bool) -> Result<()> {
    let started = Instant::now();
    let path = memory::resolve(memory_flag);
    if !path.exists()
        && cmem::Address::parse(&path.to_string_lossy()).is_ok_and(|a| matches!(a, cmem::Address::Sqlite(_)))
    {
        bail!("index: no memory at {}", path.display());
    }
    let mut options = OpenOptions::new();
    if let Some(pairs) = &args.pairs {
        options = options.served(pairs.served());
    }
    let memory = memory::open_for_write(&path, options)?;
    if !memory.index_persists() {
        if !quiet {
            eprintln!(
                "index: nothing to write: {} keeps no index file (each process that looks up builds its own)",
                path.display()
            );
        }
        return Ok(());
    }
    let sources = match &args.pairs {
        // The source locales the memory holds that the served pairs read from, as `serve
        // --pairs` warms them (those --from names, when given).
        Some(pairs) => {
            let mut sources = Vec::new();
            for held in memory.source_locales().map_err(|e| e.prefixed("index"))? {
                let wanted = args.from.as_ref().is_none_or(|f| f.fit(&held).is_some());
                if wanted && pairs.reads_source(&held) {
                    sources.extend(memory.persist_index(Some(&held)).map_err(|e| e.prefixed("index"))?);
                }
            }
            sources
        }
        None => memory.persist_index(args.from.as_ref()).map_err(|e| e.prefixed("index"))?,
    };
    if !quiet {
        let names: Vec<&str> = sources.iter().map(cmem::Locale::as_str).collect();
        eprintln!(
            "indexed {} for lookups from {} in {}",
            path.display(),
            match (names.is_empty(), args.pairs.is_some()) {
                (true, true) => "no locale (the memory holds none these pairs read from)".to_owned(),
                (true, false) => "no locale (the memory is empty)".to_owned(),
                (false, _) => names.join(", "),
            },
            duration(started.elapsed())
        );
    }
    Ok(())
}
