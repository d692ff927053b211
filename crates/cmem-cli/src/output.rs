//! Standard output that tolerates a closed pipe, and the small text forms the commands
//! print: scores, counts, durations, word differences.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use cmem::formats::FormatErrorKind;
use signal_hook::consts::{SIGINT, SIGTERM, SIGXFSZ};

/// The flag [`stop_on_signals`] hands out, and which signal set it (0: none yet).
/// Arcs, because signal-hook's handlers hold them.
static STOP: OnceLock<(Arc<AtomicBool>, Arc<AtomicUsize>)> = OnceLock::new();

fn stop_state() -> &'static (Arc<AtomicBool>, Arc<AtomicUsize>) {
    STOP.get_or_init(|| (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0))))
}

/// From now on, a file grown past the size limit (`ulimit -f`) fails the write with an
/// error, as a full disk does, instead of killing the program with `SIGXFSZ`: for a
/// server, which must keep serving reads when a write cannot be stored.
///
/// # Errors
/// The handler cannot be installed.
pub fn survive_file_limit() -> io::Result<()> {
    signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false))).map(|_| ())
}

/// From now on, `SIGINT` (Ctrl-C) and `SIGTERM` set the returned flag instead of ending
/// the program, so that the command can stop cleanly: roll back an import, remove a
/// temporary output file. With `second_ends`, a second such signal ends the program at
/// once (status 130 or 143), for a user who does not want to wait. A file grown past
/// the size limit (`ulimit -f`) then fails the write with an error, as a full disk
/// does, instead of killing the program with `SIGXFSZ` before it can clean up.
///
/// # Errors
/// The handlers cannot be installed.
pub fn stop_on_signals(second_ends: bool) -> io::Result<Arc<AtomicBool>> {
    let (flag, which) = stop_state();
    survive_file_limit()?;
    for sig in [SIGINT, SIGTERM] {
        if second_ends {
            // Registered first, so it runs before the flag is set: only a second
            // signal finds it set.
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(flag))?;
        }
        signal_hook::flag::register_usize(sig, Arc::clone(which), sig as usize)?;
        signal_hook::flag::register(sig, Arc::clone(flag))?;
    }
    Ok(Arc::clone(flag))
}

/// The exit status of a program stopped by a signal that [`stop_on_signals`] caught:
/// 128 + its number (130 for Ctrl-C, 143 for `SIGTERM`), as shells report it.
pub fn stopped_by() -> Option<u8> {
    let sig = STOP.get()?.1.load(Ordering::Relaxed);
    (sig != 0).then(|| u8::try_from(128 + sig).unwrap_or(130))
}

/// Set when a write to standard output found the reader gone (`cmem export -o - | head`).
static BROKEN_PIPE: AtomicBool = AtomicBool::new(false);

/// True once standard output has hit a broken pipe; the program then ends quietly
/// with success, as `cat` and `grep` do when their reader stops early.
pub fn broken_pipe() -> bool {
    BROKEN_PIPE.load(Ordering::Relaxed)
}

/// Standard output, buffered, recording a broken pipe. The libraries' writers turn an
/// I/O error into their own error type, which may not keep its kind; the flag does.
pub struct Stdout {
    inner: io::BufWriter<io::Stdout>,
}

impl Stdout {
    /// Buffered standard output.
    pub fn new() -> Self {
        Stdout { inner: io::BufWriter::with_capacity(64 * 1024, io::stdout()) }
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout::new()
    }
}

fn note(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        BROKEN_PIPE.store(true, Ordering::Relaxed);
    }
    e
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(note)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(note)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(note)
    }
}

/// Whether standard output gets ANSI colours, for `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// True when colours are to be written.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
            }
        }
    }
}

/// The markers of a word difference: plain `[-…-]{+…+}`, or red and green on a terminal.
#[derive(Debug, Clone, Copy)]
pub struct Marks {
    del: (&'static str, &'static str),
    ins: (&'static str, &'static str),
}

impl Marks {
    /// `git diff --word-diff=plain`'s markers.
    pub const PLAIN: Marks = Marks { del: ("[-", "-]"), ins: ("{+", "+}") };
    /// `git diff --word-diff=color`'s: red removed, green added.
    pub const COLOR: Marks = Marks { del: ("\x1b[31m", "\x1b[0m"), ins: ("\x1b[32m", "\x1b[0m") };

    /// The markers for `color`.
    pub fn new(color: bool) -> Marks {
        if color {
            Marks::COLOR
        } else {
            Marks::PLAIN
        }
    }
}

/// A search snippet (hits in `[` `]`) with the hits in bold red, as ripgrep shows
/// matches, when `color`; unchanged otherwise.
pub fn highlight(snippet: &str, color: bool) -> String {
    if color {
        snippet.replace('[', "\x1b[1;31m").replace(']', "\x1b[0m")
    } else {
        snippet.to_owned()
    }
}

/// A score 0–1 as a percentage: `100`, `99`, `87.5` (one decimal, none when whole).
pub fn percent(score: f64) -> String {
    let tenths = (score * 1000.0).round() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0}")
    } else {
        format!("{tenths:.1}")
    }
}

/// A count with thousands separators: `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count and a noun, the noun plural unless the count is one: `1 problem`, `2 problems`.
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", count(n))
    }
}

/// A duration for people: `850 µs`, `12.3 ms`, `4.56 s`.
pub fn duration(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.0} µs")
    } else if us < 1_000_000.0 {
        format!("{:.1} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// A byte size for people: `512 B`, `1.5 MiB`.
/// A library message asking for a language "in the options" (the libraries know no
/// command line), with the option that gives it here: `--from` for a source language,
/// `--to` for a target language; other messages as they are.
pub fn with_flags(kind: FormatErrorKind, message: &str) -> String {
    if kind == FormatErrorKind::LanguageMismatch {
        return message
            .replace("import without the languages", "import without --from/--to")
            .replace("or relabel to store", "or add --relabel to store");
    }
    let flag = match kind {
        FormatErrorKind::NoSourceLanguage => "--from",
        FormatErrorKind::NoTargetLanguage => "--to",
        _ => return message.to_owned(),
    };
    match message.strip_suffix("give one in the options") {
        Some(rest) => format!("{rest}give one with {flag}"),
        None => format!("{message}; give one with {flag}"),
    }
}

pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// `new` with its differences from `old` marked at the grain of the change (words, then
/// the punctuation, codes and characters of a changed word; [`cmem::diff::word_diff`]):
/// `[-removed-]{+added+}` with [`Marks::PLAIN`].
pub fn word_diff(old: &str, new: &str, marks: Marks) -> String {
    render_diff(&cmem::diff::word_diff(old, new), marks)
}

/// Word differences marked with `marks`.
pub fn render_diff(ops: &[cmem::diff::DiffOp], marks: Marks) -> String {
    use cmem::diff::DiffKind;
    let mut out = String::new();
    for op in ops {
        let (open, close) = match op.op {
            DiffKind::Equal => ("", ""),
            DiffKind::Delete => marks.del,
            DiffKind::Insert => marks.ins,
        };
        out.push_str(open);
        out.push_str(&op.text);
        out.push_str(close);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages() {
        assert_eq!(percent(1.0), "100");
        assert_eq!(percent(0.99), "99");
        assert_eq!(percent(0.875), "87.5");
        assert_eq!(percent(0.70), "70");
    }

    #[test]
    fn counts_and_sizes() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
    }

    #[test]
    fn word_differences() {
        assert_eq!(
            word_diff("Hallo John, du", "Hallo Alice, du", Marks::PLAIN),
            "Hallo [-John-]{+Alice+}, du"
        );
        assert_eq!(word_diff("%s öffnen", "%d öffnen", Marks::PLAIN), "[-%s-]{+%d+} öffnen");
        assert_eq!(word_diff("same", "same", Marks::PLAIN), "same");
        assert_eq!(word_diff("", "neu", Marks::PLAIN), "{+neu+}");
        assert_eq!(word_diff("alt", "", Marks::PLAIN), "[-alt-]");
        assert_eq!(word_diff("a %s", "a %d", Marks::COLOR), "a \x1b[31m%s\x1b[0m\x1b[32m%d\x1b[0m");
    }

    #[test]
    fn options_asked_for_by_their_flags() {
        use FormatErrorKind::{NoSourceLanguage, NoTargetLanguage, NotXliff};
        assert_eq!(
            with_flags(
                NoTargetLanguage,
                "line 9, column 1: the document names no target language; give one in the options"
            ),
            "line 9, column 1: the document names no target language; give one with --to"
        );
        assert_eq!(
            with_flags(NoSourceLanguage, "the document names no source language; give one in the options"),
            "the document names no source language; give one with --from"
        );
        assert_eq!(
            with_flags(NoTargetLanguage, "no target language"),
            "no target language; give one with --to"
        );
        // The kind decides, not the words.
        assert_eq!(
            with_flags(NotXliff, "the document names no source language; give one in the options"),
            "the document names no source language; give one in the options"
        );
    }

    #[test]
    fn highlighted_hits() {
        assert_eq!(highlight("a [b] c", false), "a [b] c");
        assert_eq!(highlight("a [b] c", true), "a \x1b[1;31mb\x1b[0m c");
    }
}
