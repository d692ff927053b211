//! `cmem`, the content (translation) memory on the command line: import TMX, XLIFF, PO,
//! Weblate JSON, `.kmb` and JSON Lines files into a memory (SQLite or PostgreSQL), look
//! segments up (exact and fuzzy, adapted to the query's codes and entities), search,
//! export, pre-translate XLIFF files and PO/POT catalogs (recycle) and report their
//! leverage (analyze), serve the memory over HTTP, and inspect keys, versions, statistics
//! and the schema.
//!
//! A thin layer over `cmem-core`, `cmem-sqlite` and `cmem-formats`: argument parsing
//! ([`args`]), the memory's location ([`memory`]), one module per command family, and
//! the exit status: 0 success, 1 `lookup`/`search` found nothing, 2 a usage error
//! (clap's), 3 any other failure, reported on stderr as one line `cmem: …` followed, when
//! the error has causes (a driver's error, the system's reason a file cannot be opened),
//! by one `  caused by: …` line for each, 130 / 143 a command stopped by Ctrl-C /
//! `SIGTERM` (an import rolled back, an output left as it was). A closed standard output
//! (`cmem export -o - | head`) ends the program quietly with 0.

#![forbid(unsafe_code)]

mod align;
mod analyze;
mod args;
mod context;
mod export;
mod import;
mod info;
mod keys;
mod lookup;
mod memory;
mod output;
mod query;
mod recycle;
mod search;
mod serve;
mod terms;
mod token;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

/// How a command that succeeded ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It did what was asked (and found something, for the commands that search).
    Success,
    /// `lookup` or `search` found nothing: exit status 1, as `grep` does.
    NothingFound,
}

/// Exit status of any failure other than a usage error.
const EXIT_FAILURE: u8 = 3;

fn run(cli: &Cli) -> anyhow::Result<Outcome> {
    let given = memory::Given::parse(&cli.memory)?;
    let one = |command: &str| given.one(command);
    match &cli.command {
        Command::Import(a) => {
            let path = given.writer(a.into.as_deref())?;
            import::run(a, path.as_deref(), cli.quiet).map(|()| Outcome::Success)
        }
        Command::Export(a) => export::run(a, one("export")?, cli.quiet).map(|()| Outcome::Success),
        Command::Lookup(a) => lookup::run(a, &given, cli.quiet, cli.color.enabled()),
        Command::Search(a) => search::run(a, one("search")?, cli.quiet, cli.color.enabled()),
        Command::Keys(a) => keys::run(a).map(|()| Outcome::Success),
        Command::Versions(a) => info::versions(a, one("versions")?).map(|()| Outcome::Success),
        Command::Index(a) => import::index(a, one("index")?, cli.quiet).map(|()| Outcome::Success),
        Command::Stats(a) => info::stats(a, one("stats")?).map(|()| Outcome::Success),
        Command::Schema(a) => info::schema(a).map(|()| Outcome::Success),
        Command::Recycle(a) => recycle::run(a, one("recycle")?, cli.quiet).map(|()| Outcome::Success),
        Command::Analyze(a) => analyze::run(a, one("analyze")?, cli.quiet).map(|()| Outcome::Success),
        Command::Serve(a) => serve::run(a, &given, cli.quiet).map(|()| Outcome::Success),
        Command::Token(a) => token::run(a, one("token")?, cli.quiet).map(|()| Outcome::Success),
        Command::Align(a) => align::run(a, one("align")?).map(|()| Outcome::Success),
        Command::Context(a) => context::run(a, one("context")?, cli.quiet),
        Command::Terms(a) => terms::run(a, one("terms")?, cli.quiet).map(|()| Outcome::Success),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = args::check(&cli) {
        e.exit();
    }
    match run(&cli) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::NothingFound) => ExitCode::from(1),
        Err(_) if output::broken_pipe() => ExitCode::SUCCESS,
        Err(e) if output::stopped_by().is_some() => {
            eprintln!("{}", report(&e));
            ExitCode::from(output::stopped_by().unwrap_or(130))
        }
        Err(e) => {
            eprintln!("{}", report(&e));
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// A failure as `cmem` reports it: `cmem: ` and the error's message, then a
/// `  caused by: ` line for each error after it in its chain (the error a context was
/// added to, a store's driver error). Each error prints its own message only, so nothing
/// is said twice.
fn report(e: &anyhow::Error) -> String {
    let mut text = format!("cmem: {e}");
    for cause in e.chain().skip(1) {
        text.push_str("\n  caused by: ");
        text.push_str(&cause.to_string());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_prints_its_message_then_each_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied");
        let store = cmem::Error::with_source(cmem::ErrorKind::Store, "sqlite store m.db: cannot open", io);
        let e = anyhow::Error::from(store.prefixed("stats"));
        assert_eq!(report(&e), "cmem: stats: sqlite store m.db: cannot open\n  caused by: permission denied");
        let e = e.context("serve: memory project");
        assert_eq!(
            report(&e),
            "cmem: serve: memory project\n  caused by: stats: sqlite store m.db: cannot open\n  \
             caused by: permission denied"
        );
        // An error without a cause is one line.
        assert_eq!(report(&anyhow::anyhow!("lookup: no memory at m.db")), "cmem: lookup: no memory at m.db");
    }
}
