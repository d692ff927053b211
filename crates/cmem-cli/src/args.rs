//! The command line: every command, option and `--help` text, declared with clap.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::builder::PossibleValue;
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use cmem::formats::registry::{self, FormatSpec};
use cmem::formats::RecycleOptions;
use cmem::{Locale, LookupOptions, Point};

use crate::output::ColorChoice;

const EXIT_STATUS: &str = "\
Exit status: 0 success; 1 `lookup` or `search` found nothing; 2 usage error;
3 any other failure (a file that cannot be read, a malformed file, a missing memory);
130 / 143 a command stopped by Ctrl-C / SIGTERM (an import rolled back, an output left
as it was).

The memory is --memory PATH, else $CMEM_MEMORY, else ./cmem.db. `import` creates it;
every other command needs it to exist. `lookup` takes several (--memory repeated);
`import` writes the one of them that may be written, or the one --into names. A PostgreSQL memory's candidate index is kept
between runs in $CMEM_INDEX_DIR when it is set, so the next command or server start
reads it instead of building it.";

/// cmem: a content (translation) memory on the command line.
///
/// Import TMX, XLIFF, gettext PO, Weblate JSON, Java .properties, .kmb or JSON Lines
/// files into a memory (an embedded SQLite file, or PostgreSQL), then look segments up
/// (exact and fuzzy, with inline codes and entities adapted), search the memory, export
/// it again, pre-translate XLIFF files, PO/POT catalogs and .properties bundles from it
/// and report their leverage, or serve it over HTTP.
#[derive(Debug, Parser)]
#[command(name = "cmem", version, propagate_version = true, after_help = EXIT_STATUS)]
pub struct Cli {
    /// The memory: a SQLite file (a path or sqlite:PATH) or a PostgreSQL database
    /// (postgres://user@host/db). Default: $CMEM_MEMORY, else ./cmem.db. Repeat it to
    /// look up several memories at once, each as [NAME=]ADDRESS[,role=read|write]
    /// [,penalty=POINTS][,priority=N] (see `cmem lookup --help`); @FILE reads such
    /// lines from FILE (one a line, # comments).
    #[arg(long, short = 'm', global = true, value_name = "PATH")]
    pub memory: Vec<String>,
    /// No progress bar and no summary on stderr; errors are still reported.
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// Colour differences and search hits: on a terminal (auto, unless NO_COLOR is set),
    /// always or never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Import TMX, XLIFF, PO, Weblate JSON, .properties, .kmb or JSON Lines files into the
    /// memory (creating it).
    #[command(after_help = IMPORT_HELP)]
    Import(ImportArgs),
    /// Export the memory to a TMX, .kmb, JSON Lines, PO or Weblate JSON file.
    #[command(after_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Look a segment up: exact and fuzzy matches, best first, adapted to the query.
    #[command(after_help = LOOKUP_HELP)]
    Lookup(LookupArgs),
    /// Concordance search: entries whose text holds all the words, ranked.
    #[command(after_help = SEARCH_HELP)]
    Search(SearchArgs),
    /// Show the plain, structural and generalized matching keys of a segment.
    #[command(after_help = KEYS_HELP)]
    Keys(KeysArgs),
    /// List the prior answers of a content block (its version chain), newest first.
    #[command(after_help = VERSIONS_HELP)]
    Versions(VersionsArgs),
    /// Build the memory's candidate index and keep it beside the memory (SQLite), so the
    /// next process starts at once; import does it too.
    Index(IndexArgs),
    /// What the memory holds: entries, variants, locale pairs, size.
    #[command(after_help = STATS_HELP)]
    Stats(StatsArgs),
    /// Print the SQL schema of the memory (SQLite or PostgreSQL).
    #[command(after_help = SCHEMA_HELP)]
    Schema(SchemaArgs),
    /// Pre-translate an XLIFF file, a PO/POT catalog or a .properties bundle from the
    /// memory: fill targets, add candidates.
    #[command(after_help = RECYCLE_HELP)]
    Recycle(RecycleArgs),
    /// The leverage report of XLIFF files, PO/POT catalogs and .properties bundles:
    /// segments and words per match band.
    #[command(after_help = ANALYZE_HELP)]
    Analyze(AnalyzeArgs),
    /// Serve the memory over HTTP: a JSON API, amaGama's protocol, OpenAPI.
    Serve(crate::serve::ServeArgs),
    /// Create, list or revoke the HTTP server's bearer tokens.
    Token(crate::token::TokenArgs),
    /// Learn the word alignment of a locale pair from the memory, for word repairs.
    Align(crate::align::AlignArgs),
    /// The memory's glossary of a locale pair (mined from its word model), as CSV or
    /// TBX-Basic; or keep a corrected list that takes precedence.
    Terms(crate::terms::TermsArgs),
    /// What the memory knows about a segment for a translation producer (an MT engine,
    /// an LLM prompt): prior version, matches, examples covering it, glossary.
    Context(crate::context::ContextArgs),
}

/// A format `import` reads, for its `--format`: one of the format registry's
/// (`cmem::formats::registry`), with its help. A name written but not imported
/// (`tmx1`) is accepted and read as its format's files (TMX), but not listed.
#[derive(Debug, Clone, Copy)]
pub struct FileFormat(pub &'static FormatSpec);

/// A format `export` writes, for its `--format`: one of the format registry's.
#[derive(Debug, Clone, Copy)]
pub struct ExportFormat(pub &'static FormatSpec);

/// The registry's formats that `keep` keeps, once.
fn formats_where<T>(keep: fn(&FormatSpec) -> bool, make: fn(&'static FormatSpec) -> T) -> Vec<T> {
    registry::FORMATS.iter().filter(|f| keep(f)).map(make).collect()
}

impl ValueEnum for FileFormat {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<FileFormat>> = OnceLock::new();
        ALL.get_or_init(|| formats_where(FormatSpec::can_read, FileFormat))
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name).help(self.0.help).hide(!self.0.can_import()))
    }
}

impl ValueEnum for ExportFormat {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<ExportFormat>> = OnceLock::new();
        ALL.get_or_init(|| formats_where(FormatSpec::can_export, ExportFormat))
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name).help(self.0.help))
    }
}

/// Options of the inline-code recognizer, shared by `import`, `lookup`, `keys`, `recycle`
/// and `analyze`.
#[derive(Debug, Clone, Args)]
pub struct RecognizeArgs {
    /// Inline-code rule sets for plain strings — JSON Lines, PO and Weblate JSON strings,
    /// TMX and XLIFF segments without inline codes, lookup text — comma-separated (default:
    /// all of
    /// printf,python,brace,qt,dollar-paren,percent-name,gcc,html,xml-entity,escape).
    #[arg(long, value_name = "RULES", conflicts_with = "no_recognize")]
    pub recognize: Option<String>,
    /// Keep plain strings as text: no inline codes recognized.
    #[arg(long)]
    pub no_recognize: bool,
}

const IMPORT_HELP: &str = "\
Examples:
  cmem import memory.tmx
  cmem import --from en --to de strings.jsonl.gz
  cmem import --from en de.po done.xlf weblate-memory.json
  cmem import messages_de.properties messages_fr.properties
  cmem --memory team.db import --strict a.tmx b.kmb

The format comes from the extension or --format: TMX (.tmx), XLIFF 1.2 / 2.x
(.xlf, .xliff, .sdlxliff, .mqxliff: the translated segments), gettext PO (.po: the
translated messages; the target locale from the header's Language), Weblate's memory JSON
(a .json file holding one JSON array), the .kmb bundle (.kmb) and JSON Lines (.jsonl,
.ndjson, other .json), each optionally .gz; `-` reads standard input (with --format).
A Java bundle (.properties) holds one language, named by its file name
(messages_de.properties: de): its values are paired by key with those of its source
beside it (messages.properties, whose language is --from, default en).
All files are imported as one
transaction, which nobody sees before it ends: on a fatal error, a full disk, Ctrl-C,
SIGTERM or a crash nothing is stored. Another import of the same memory makes this one
wait (it says so). Problems (a tu with one tuv, an empty segment, an unbalanced code) are
listed as FILE:LINE:COLUMN and skipped; --strict fails on the first.
--from and --to fill in only what a file does not say: where a file names another
language (a PO header's `Language: ru` with --to de), nothing is imported and every such
file is named; a region of the same language (en-US for en) is no contradiction, and the
more precise tag is stored. --relabel stores them as --from → --to all the same.
Plain strings (JSON Lines, PO, Weblate JSON, TMX and XLIFF segments without inline
codes) get their inline codes (%s, {0}, <b>…</b>) recognized.";

/// `cmem import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The files to import (`-` for standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The format of every file, instead of guessing it from the extension.
    #[arg(long, value_enum)]
    pub format: Option<FileFormat>,
    /// Source locale of entries whose file does not name one (PO catalogs: default en;
    /// JSON Lines lines). A file naming another language stops the import.
    #[arg(long, value_name = "LOCALE")]
    pub from: Option<Locale>,
    /// Target locale of entries whose file does not name one (a PO header without
    /// Language; JSON Lines lines). A file naming another language stops the import.
    #[arg(long, value_name = "LOCALE")]
    pub to: Option<Locale>,
    /// Store every entry as --from → --to even where its file names other languages
    /// (a file whose header is known to be wrong).
    #[arg(long)]
    pub relabel: bool,
    /// Fail, storing nothing, at the first problem.
    #[arg(long)]
    pub strict: bool,
    /// Problems listed on stderr (all are counted).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_problems: usize,
    /// With several --memory, the name of the one to import into (needed when more
    /// than one may be written).
    #[arg(long, value_name = "NAME")]
    pub into: Option<String>,
    /// After the import, train the word model of --from → --to again over the whole
    /// memory, as `cmem align` does, whatever the pair's size and growth (by default an
    /// import trains it when the pair has 1,000 entries and no model, or grew by a tenth).
    #[arg(long, requires_all = ["from", "to"], conflicts_with = "no_align")]
    pub align: bool,
    /// Do not train the word models after the import (lookups then repair changed
    /// words with the model kept from before, if any; `cmem align` trains it later).
    #[arg(long)]
    pub no_align: bool,
    /// Inline-code recognition of plain strings.
    #[command(flatten)]
    pub recognize: RecognizeArgs,
}

const EXPORT_HELP: &str = "\
Examples:
  cmem export -o memory.tmx
  cmem export -o backup.kmb
  cmem export --from en --to de -o en-de.jsonl.gz
  cmem export --from en --to de -o de.po
  cmem export --format weblate -o memory.json
  cmem export --format tmx -o - | head

The format comes from the extension of --output (.tmx, .kmb, .jsonl/.ndjson/.json, .po;
optionally .gz) or --format (tmx, tmx1, kmb, jsonl, po, weblate); standard output (`-o -`)
defaults to TMX. A file is written under a temporary name and renamed when complete. A PO
catalog (.po) holds one locale pair: --from and --to, or the memory's only pair (the one
that fits the one of them given).";

/// `cmem export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Where to write (`-` for standard output).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// The format, instead of guessing it from the extension (`.po` is PO; a `.json`
    /// file is JSON Lines unless --format weblate).
    #[arg(long, value_enum)]
    pub format: Option<ExportFormat>,
    /// Only entries with this locale, written as the source.
    #[arg(long, value_name = "LOCALE")]
    pub from: Option<Locale>,
    /// Only entries with this locale (with --from: only these two variants).
    #[arg(long, value_name = "LOCALE")]
    pub to: Option<Locale>,
}

const LOOKUP_HELP: &str = "\
Examples:
  cmem lookup 'Open the file' --from en --to de
  cmem lookup 'Delete %s?' --from en --to de --threshold 80 --json
  cmem lookup --notation 'Click {1}here{/1}' --from en --to de
  cmem lookup --batch queries.jsonl --from en --to de --json > matches.jsonl

Plain text has its inline codes recognized (%s, {0}, <b>…</b>; see --recognize). The
score is 100 for an exact match in text and codes, 99 for equal text with other codes
or an ambiguous exact match, less for fuzzy matches. The adapted target carries the
query's codes and entity values; differences from the stored target are marked
[-removed-]{+added+}. A TEXT that starts with `-` goes after `--`:
`cmem lookup --from en --to de -- '-v, --verbose'`.

Several memories: repeat --memory, each as [NAME=]ADDRESS[,role=read|write]
[,penalty=POINTS][,priority=N]:
  cmem -m project.db -m client=shared/client.db,penalty=5,role=read lookup 'Save' --from en --to de
Every match names its memory and costs its memory's penalty (listed as a `memory`
penalty); matches are ranked by score after penalties, then priority (1 first; by
default the order given), then the evidence. The name defaults to the file's stem.

Batch mode reads JSON Lines, one query a line: {\"query\": \"text\"}, {\"notation\": \"…\"}
or {\"runs\": […]}; an \"id\" field is echoed. It writes one JSON line per query line:
{\"line\", \"id\", \"query\", \"micros\", \"matches\"} (or \"error\"), and p50/p95/p99
latency on stderr.

Exit status: 0 when a match was found (batch: for some query), 1 when none was.";

/// `cmem lookup`.
#[derive(Debug, Args)]
pub struct LookupArgs {
    /// The segment to look up (plain text, or the run notation with --notation).
    #[arg(value_name = "TEXT", required_unless_present_any = ["runs", "batch"],
          conflicts_with_all = ["runs", "batch"])]
    pub text: Option<String>,
    /// Source locale of the query.
    #[arg(long, value_name = "LOCALE")]
    pub from: Locale,
    /// Locale of the answers.
    #[arg(long, value_name = "LOCALE")]
    pub to: Locale,
    /// The caller's point (profile/channel/collection): settles differing exact answers.
    #[arg(long, value_name = "POINT")]
    pub point: Option<Point>,
    /// The least score returned, 0–100.
    #[arg(
        long,
        value_name = "PERCENT",
        default_value_t = LookupOptions::default().threshold * 100.0,
        value_parser = percent
    )]
    pub threshold: f64,
    /// At most this many matches.
    #[arg(
        long,
        value_name = "N",
        default_value_t = LookupOptions::default().limit,
        value_parser = at_least_one
    )]
    pub limit: usize,
    /// TEXT is in the run notation: `Click {1}here{/1}, {PERSON:John}`.
    #[arg(long, conflicts_with_all = ["runs", "batch"])]
    pub notation: bool,
    /// Read the query runs from a JSON file (`[{"text":"Hi "}, {"ph":{…}}]`).
    #[arg(long, value_name = "FILE.json", conflicts_with = "batch")]
    pub runs: Option<PathBuf>,
    /// Look up every query of a JSON Lines file (`-`: standard input); JSON out.
    #[arg(long, value_name = "QUERIES.jsonl")]
    pub batch: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Show every space as `·` (line breaks are always shown as `⏎`, tabs as `→`).
    #[arg(long)]
    pub show_space: bool,
    /// Leave out the fragments: the stretches of the query (two words or more) the
    /// memory's word model translates consistently, shown below the matches.
    #[arg(long)]
    pub no_fragments: bool,
    /// Leave out the terms: the glossary's terms (`cmem terms`) the query holds, with the
    /// memory's translation of each, shown below the matches.
    #[arg(long)]
    pub no_terms: bool,
    /// The unit key the query stands in (a msgctxt, an XLIFF unit id): an exact match
    /// approved for it is a context match (101%).
    #[arg(long, value_name = "KEY", conflicts_with = "batch")]
    pub context_key: Option<String>,
    /// The source text of the segment before the query ("" at the start): with
    /// --context-post, an exact match approved between the same two is a context match.
    #[arg(long, value_name = "TEXT", requires = "context_post", conflicts_with = "batch")]
    pub context_pre: Option<String>,
    /// The source text of the segment after the query ("" at the end).
    #[arg(long, value_name = "TEXT", requires = "context_pre", conflicts_with = "batch")]
    pub context_post: Option<String>,
    /// Points off matches whose stored entry has an attribute: ATTRIBUTE:VALUE=POINTS,
    /// the attribute one of project, client, origin, status, file (`origin:mt=10`,
    /// `project:legacy=5`, `client:*=2` for any value); repeatable.
    #[arg(long = "penalty", value_name = "ATTRIBUTE:VALUE=POINTS", value_parser = penalty)]
    pub penalties: Vec<cmem::AttributePenalty>,
    /// Inline-code recognition of plain text.
    #[command(flatten)]
    pub recognize: RecognizeArgs,
}

/// Checks what clap's declarations cannot say: `recycle --json` prints the report on
/// standard output, so the document must go to a file.
///
/// # Errors
/// A usage error, to be reported as clap reports its own (exit status 2).
pub fn check(cli: &Cli) -> Result<(), clap::Error> {
    if let Command::Analyze(a) = &cli.command {
        if let Err(message) = a.band_scheme() {
            let mut cmd = Cli::command();
            cmd.build();
            return Err(match cmd.find_subcommand_mut("analyze") {
                Some(sub) => sub.error(ErrorKind::ValueValidation, message),
                None => cmd.error(ErrorKind::ValueValidation, message),
            });
        }
    }
    if let Command::Recycle(a) = &cli.command {
        if a.json && a.output == Path::new("-") {
            let mut cmd = Cli::command();
            cmd.build();
            let message =
                "--json prints the report on standard output; write the document to a file (-o OUT.xlf)";
            return Err(match cmd.find_subcommand_mut("recycle") {
                Some(sub) => sub.error(ErrorKind::ArgumentConflict, message),
                None => cmd.error(ErrorKind::ArgumentConflict, message),
            });
        }
    }
    Ok(())
}

impl AnalyzeArgs {
    /// The bands and weights `--bands` and `--weights` ask for.
    ///
    /// # Errors
    /// A bound or weight that does not parse, or a weight for a band there is not.
    pub fn band_scheme(&self) -> Result<cmem::formats::Bands, String> {
        let mut bands = cmem::formats::Bands::default();
        bands.set_fuzzy(&self.bands).map_err(|e| format!("--bands: {e}"))?;
        if let Some(weights) = &self.weights {
            bands.set_weights(weights).map_err(|e| format!("--weights: {e}"))?;
        }
        Ok(bands)
    }
}

/// Parses a penalty rule, `origin:mt=10`.
fn penalty(s: &str) -> Result<cmem::AttributePenalty, String> {
    s.parse().map_err(|e: cmem::Error| e.to_string())
}

/// Parses a count of at least 1: `--limit 0` would ask for nothing, which is a mistake.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{s:?} is not a whole number")),
    }
}

/// Parses a percentage 0–100.
fn percent(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().trim_end_matches('%').parse().map_err(|_| format!("{s:?} is not a number"))?;
    if !(0.0..=100.0).contains(&v) {
        return Err(format!("{v} is outside 0–100 (a percentage)"));
    }
    // Scores are 0–1 in JSON: a value under 1 is almost surely one of those, and would
    // mean under 1 % here. Say so instead of guessing.
    if v > 0.0 && v < 1.0 {
        return Err(format!(
            "{v} would mean {v} %: thresholds are percentages (0–100); write {} for {}",
            v * 100.0,
            v
        ));
    }
    Ok(v)
}

const SEARCH_HELP: &str = "\
Examples:
  cmem search file open --lang en
  cmem search Datei --lang de --limit 5 --json

Every word must occur (as a word or a word prefix, case-insensitively); hits are ranked
by BM25 and the words found are shown in [brackets], each with its translations.
Exit status: 0 when something was found, 1 when nothing was.";

/// `cmem search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The words to find.
    #[arg(required = true, value_name = "WORDS")]
    pub words: Vec<String>,
    /// The locale searched.
    #[arg(long, value_name = "LOCALE")]
    pub lang: Locale,
    /// Show only the translation in this locale.
    #[arg(long, value_name = "LOCALE")]
    pub to: Option<Locale>,
    /// At most this many hits.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = at_least_one)]
    pub limit: usize,
    /// Print JSON Lines, one hit a line.
    #[arg(long)]
    pub json: bool,
}

const KEYS_HELP: &str = "\
Examples:
  cmem keys 'Click <b>here</b> to open %s'
  cmem keys --notation '{PERSON:John} works at {ORGANIZATION:Acme}'
  cmem keys 'Open %s' 'Open %d files'

Three keys are compared by a lookup: plain (text, placeholders as {equiv}), structural
(codes as numbered placeholders) and generalized (entities as their type). Two segments
whose keys are equal match exactly; with two segments, the similarity of each key pair is
shown too. Needs no memory.";

/// `cmem keys`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    /// One segment, or two to compare (plain text, or the run notation with --notation).
    #[arg(value_name = "TEXT", num_args = 0..=2, required_unless_present = "runs",
          conflicts_with = "runs")]
    pub texts: Vec<String>,
    /// The texts are in the run notation.
    #[arg(long)]
    pub notation: bool,
    /// Read the runs from a JSON file.
    #[arg(long, value_name = "FILE.json")]
    pub runs: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Inline-code recognition of plain text.
    #[command(flatten)]
    pub recognize: RecognizeArgs,
}

const VERSIONS_HELP: &str = "\
Examples:
  cmem versions --unit intro.title
  cmem versions --unit intro.title --point web/eu --json

A unit is the durable identity of a content block (TMX property x-cmem-unit, JSON Lines
field \"unit\"); its entries are the answers approved for it over time.";

/// `cmem versions`.
#[derive(Debug, Args)]
pub struct VersionsArgs {
    /// The content block.
    #[arg(long, value_name = "UNIT")]
    pub unit: String,
    /// Only versions approved at this point (default: every point).
    #[arg(long, value_name = "POINT")]
    pub point: Option<Point>,
    /// At most this many versions.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = at_least_one)]
    pub limit: usize,
    /// Print JSON Lines, one version a line.
    #[arg(long)]
    pub json: bool,
}

const STATS_HELP: &str = "\
Examples:
  cmem stats
  cmem --memory team.db stats --json";

/// `cmem index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Only the index of this source locale (default: every source locale the memory
    /// holds).
    #[arg(long, value_name = "LOCALE")]
    pub from: Option<Locale>,
    /// The index of these locale pairs' keys only, SOURCE-TARGET separated by commas
    /// (en-de,en-fr): the index files `cmem serve --pairs` with the same pairs opens.
    /// Default: the index of every key.
    #[arg(long, value_name = "PAIRS", value_parser = cmem_server::Pairs::parse)]
    pub pairs: Option<cmem_server::Pairs>,
}

/// `cmem stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

const SCHEMA_HELP: &str = "\
Examples:
  cmem schema
  cmem schema --dialect postgres | psql memory

The schema is declared once and emitted in either dialect. Needs no memory.";

/// A SQL dialect, for `schema --dialect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// SQLite with FTS5 (the embedded memory).
    Sqlite,
    /// PostgreSQL with pg_trgm.
    Postgres,
}

/// `cmem schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The SQL dialect.
    #[arg(long, value_enum, default_value = "sqlite")]
    pub dialect: DialectArg,
}

const RECYCLE_HELP: &str = "\
Examples:
  cmem recycle chapter1.xlf -o chapter1.de.xlf
  cmem recycle strings.xlf -o strings.xlf --fill-threshold 100 --point web
  cmem recycle doc.xlf -o out.xlf --from en --to de-CH --overwrite --json
  cmem recycle messages.pot -o de.po --to de
  cmem recycle messages.properties -o messages_de.properties
  cmem recycle doc.xlf -o - | head

XLIFF 1.0–1.2 and 2.0–2.2, gettext PO and POT catalogs and Java .properties bundles (by
their extension). Each translatable segment without an approved target (and,
unless --overwrite, without any target) is looked up. The best match at or above
--fill-threshold becomes its target, adapted to the segment's codes and entities; the
other matches at or above --fuzzy-threshold are added as candidates (1.2 <alt-trans>,
2.x <mtc:match>; a PO file has no candidates). Exact fills are marked translated, the
others for review (PO: #, fuzzy; --review-exact marks every fill for review). Every other
byte is copied. A .properties bundle is written whole: a fill to review gets a
`# cmem: fuzzy, 87% match` line above its key, a key nothing fills keeps its source
value under `# cmem: untranslated` (import leaves both out until the line is removed).

A segment whose best matches are ambiguous (equally good, with differing answers, and no
--point to settle them) is not filled: its answers become candidates. With
--fill-ambiguous dominant it is filled with the answer approved at least twice and at
least twice as often as every other, marked for review (1.2 needs-review-translation,
2.x subState cmem:needs-review-ambiguous, PO #, fuzzy).

A fill whose target the word repair changed (see `cmem align`) is marked for review too
(2.x subState cmem:needs-review-repaired), and the target without the repair is written
beside it as its first candidate, labelled (1.2 <note>cmem: without the word repair …,
2.x subType cmem:unrepaired, PO a # cmem: without the word repair: comment).

The languages come from the document unless --from/--to are given; when nothing is
found and the memory holds no entries of that pair, a warning says so. The output is
written in the input's format (an -o naming another format is an error) and may be the
input: it is written under a temporary name and renamed when complete, and on an error
nothing is written.

The summary on stderr counts the document's segments (PO: messages, header and
obsolete ones left out) as:
  filled           targets written (exact: at 100 and not marked for review)
  with candidates  not filled, but matches at or above --fuzzy-threshold were added
  untouched        looked up, no match at or above --fuzzy-threshold
  skipped          not looked up, or a match that could not be written: not
                   translatable, approved, already translated (without --overwrite;
                   PO: translated, or fuzzy without --overwrite), no text, a segmented
                   target without the segment's <mrk>, a source longer than a lookup
                   takes; PO also a match whose plural forms do not fit or whose text
                   the catalog's charset cannot hold. --verbose lists each with its
                   reason.
  repetitions      segments whose source an earlier segment has (filled from the
                   first occurrence when their own lookup finds nothing)
filled + with candidates + untouched + skipped = segments.

With --json (and -o FILE) the report goes to stdout as JSON: {\"input\", \"output\",
\"micros\", \"segments\", \"filled\", \"filled_exact\", \"filled_context\",
\"repetitions\", \"filled_repetitions\", \"filled_ambiguous\", \"filled_repaired\",
\"with_candidates\", \"untouched\", \"skipped\", \"skips\": [{\"line\", \"unit\",
\"reason\"}], \"pair\", \"codes_dropped\", \"candidate_codes_dropped\"}. Exit status 0 also
when nothing was filled.";

/// When `recycle` fills an ambiguous segment, for `--fill-ambiguous`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FillAmbiguousArg {
    /// Never: the answers become candidates.
    Never,
    /// When one answer was approved at least twice, and twice as often as any other;
    /// marked for review.
    Dominant,
}

/// `cmem recycle`.
#[derive(Debug, Args)]
pub struct RecycleArgs {
    /// The XLIFF file, or the PO or POT catalog or the .properties source bundle (by its
    /// extension), to pre-translate (`-` for standard input: XLIFF).
    #[arg(value_name = "IN.xlf|IN.po|IN.pot|IN.properties")]
    pub input: PathBuf,
    /// Where to write the result (`-` for standard output), in the input's format; may be
    /// the input itself. A .properties output's name gives the target language when --to
    /// does not (messages_de.properties).
    #[arg(long, short = 'o', value_name = "OUT.xlf|OUT.po|OUT.properties")]
    pub output: PathBuf,
    /// Matches below this score are ignored, 0–100.
    #[arg(
        long,
        value_name = "PERCENT",
        default_value_t = RecycleOptions::default().fuzzy_threshold * 100.0,
        value_parser = percent
    )]
    pub fuzzy_threshold: f64,
    /// The best match at or above this score fills the target, 0–100.
    #[arg(
        long,
        value_name = "PERCENT",
        default_value_t = RecycleOptions::default().fill_threshold * 100.0,
        value_parser = percent
    )]
    pub fill_threshold: f64,
    /// At most this many candidates per segment.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max_candidates: usize,
    /// The point the document belongs to (profile/channel/collection).
    #[arg(long, value_name = "POINT")]
    pub point: Option<Point>,
    /// Source locale, instead of the document's.
    #[arg(long, value_name = "LOCALE")]
    pub from: Option<Locale>,
    /// Target locale, instead of the document's.
    #[arg(long, value_name = "LOCALE")]
    pub to: Option<Locale>,
    /// Replace existing targets that are not approved.
    #[arg(long)]
    pub overwrite: bool,
    /// Mark exact fills for review too.
    #[arg(long)]
    pub review_exact: bool,
    /// Whether a segment whose best matches are ambiguous (differing answers, no
    /// point) is filled.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "never")]
    pub fill_ambiguous: FillAmbiguousArg,
    /// Print the report as JSON on stdout instead of the summary (needs -o FILE).
    #[arg(long)]
    pub json: bool,
    /// List every skipped segment with its line and why it was skipped, on stderr.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Points off matches whose stored entry has an attribute: ATTRIBUTE:VALUE=POINTS,
    /// the attribute one of project, client, origin, status, file (`origin:mt=10`,
    /// `project:legacy=5`, `client:*=2` for any value); repeatable.
    #[arg(long = "penalty", value_name = "ATTRIBUTE:VALUE=POINTS", value_parser = penalty)]
    pub penalties: Vec<cmem::AttributePenalty>,
    /// Leave a repetition whose own lookup fills nothing empty, instead of filling it
    /// from its first occurrence (for review).
    #[arg(long)]
    pub no_fill_repetitions: bool,
    /// Inline-code recognition of segments whose source has no inline elements.
    #[command(flatten)]
    pub recognize: RecognizeArgs,
}

const ANALYZE_HELP: &str = "\
Examples:
  cmem analyze chapter1.xlf chapter2.xlf
  cmem analyze doc.xlf --from en --to de --point web --json
  cmem analyze po/*.po --csv > leverage.csv

Each translatable segment with text is looked up in its context (its unit key and its
neighbours) and counted in the band of its best match: context (101%: exact, and
approved for the same unit or between the same neighbours), 100% (exact and
unambiguous), 95-99%, 85-94%, 75-84%, 50-74% (the fuzzy bands: --bands), no match. A
segment whose source (text and code positions) appeared earlier in the same file is
counted as a repetition instead, unless it is a context match. Words are counted as
translators are paid: spaced words (codes are no words), and each character of Chinese,
Japanese, Korean, Thai and other unspaced scripts; characters are those of the text
but white space. Weighted words are each band's words times its weight (--weights).

PO and POT catalogs and .properties bundles (by their extension) are analyzed message
by message, property by property (a bundle's target language is --to). With more
than one file a grand total follows, in which a segment seen in an earlier file of the
run counts as a repetition too.

One table per file; with --json one JSON line per file (and one for the total):
{\"file\", \"bands\": [{\"band\", \"segments\", \"words\", \"characters\", \"weight\",
\"weighted_words\"}], \"segments\", \"words\", \"characters\", \"weighted_words\",
\"skipped\"}; with --csv the rows
file,band,segments,words,words_percent,characters,weight,weighted_words; --html FILE
writes the same tables as a page to send. \"skipped\" counts the segments left out of the
bands: not translatable, or no text in the source. When no segment of a file finds a
match and the memory holds no entries of its language pair, a warning says so.";

/// `cmem analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The XLIFF files, PO/POT catalogs and .properties bundles to analyze.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The point the documents belong to (profile/channel/collection).
    #[arg(long, value_name = "POINT")]
    pub point: Option<Point>,
    /// Source locale, instead of each document's.
    #[arg(long, value_name = "LOCALE")]
    pub from: Option<Locale>,
    /// Target locale, instead of each document's.
    #[arg(long, value_name = "LOCALE")]
    pub to: Option<Locale>,
    /// Print JSON Lines, one report a file.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV: file,band,segments,words,words_percent,characters,weight,weighted_words.
    #[arg(long)]
    pub csv: bool,
    /// Also write the report as a standalone HTML page to FILE.
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,
    /// The fuzzy bands by their lowest percentage, highest first.
    #[arg(long, value_name = "PERCENTS", default_value = "95,85,75,50")]
    pub bands: String,
    /// Weights of the bands in percent of a new word, for weighted words: BAND=PERCENT
    /// pairs, the band context, 100, repetitions, a fuzzy band's lowest percentage, or
    /// no-match (default: context=0,100=25,repetitions=25,95=50,85=70,75=100,50=100,no-match=100).
    #[arg(long, value_name = "BAND=PERCENT,…")]
    pub weights: Option<String>,
    /// Points off matches whose stored entry has an attribute: ATTRIBUTE:VALUE=POINTS,
    /// the attribute one of project, client, origin, status, file (`origin:mt=10`,
    /// `project:legacy=5`, `client:*=2` for any value); repeatable.
    #[arg(long = "penalty", value_name = "ATTRIBUTE:VALUE=POINTS", value_parser = penalty)]
    pub penalties: Vec<cmem::AttributePenalty>,
    /// Inline-code recognition of segments whose source has no inline elements.
    #[command(flatten)]
    pub recognize: RecognizeArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn percent_bounds() {
        assert_eq!(percent("70"), Ok(70.0));
        assert_eq!(percent("0"), Ok(0.0));
        assert_eq!(percent("100"), Ok(100.0));
        assert!(percent("101").is_err());
        assert!(percent("-1").is_err());
        assert!(percent("x").is_err());
    }
}
