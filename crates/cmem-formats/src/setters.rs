//! A setter for every field of the options types, so callers chain
//! `RecycleOptions::default().fill_threshold(0.9).overwrite(true)` instead of
//! `let mut o = …; o.field = …`. The fields stay public; the types stay
//! `#[non_exhaustive]`, so a new field is not a breaking change.

use cmem_core::{Locale, LookupOptions, Point};

use crate::analyze::AnalyzeOptions;
use crate::import::ExportOptions;
use crate::import::ImportOptions;
use crate::ingest::IngestOptions;
use crate::inline::Level;
use crate::jsonl::JsonlMode;
use crate::jsonl::JsonlOptions;
use crate::po::PoOptions;
use crate::recycle::{FillAmbiguous, RecycleOptions};
use crate::tmx::TmxOptions;
use crate::tmx::TmxWriteOptions;
use crate::weblate::WeblateOptions;
use crate::xliff_in::XliffInOptions;

use cmem_core::setters;

setters!(IngestOptions { source_locale: Option<Locale>, target_locale: Option<Locale>, strict: bool, relabel: bool });

setters!(ImportOptions { batch_size: usize, strict: bool, max_problems_kept: usize });

setters!(TmxOptions {
    strict: bool,
    max_depth: usize,
    max_tu_bytes: u64,
    header_metadata: bool,
    file_name: String,
});

setters!(ExportOptions {
    source_locale: Option<Locale>,
    target_locale: Option<Locale>,
    page_size: usize,
});

setters!(RecycleOptions {
    fuzzy_threshold: f64,
    fill_threshold: f64,
    point: Option<Point>,
    source_locale: Option<Locale>,
    target_locale: Option<Locale>,
    overwrite: bool,
    review_exact: bool,
    max_candidates: usize,
    origin: String,
    threads: usize,
    lookup: LookupOptions,
    recognizer: Option<cmem_core::model::recognize::Recognizer>,
    fill_ambiguous: FillAmbiguous,
    fill_repetitions: bool,
});

setters!(AnalyzeOptions {
    point: Option<Point>,
    source_locale: Option<Locale>,
    target_locale: Option<Locale>,
    threads: usize,
    lookup: LookupOptions,
    recognizer: Option<cmem_core::model::recognize::Recognizer>,
    bands: crate::analyze::Bands,
});

setters!(TmxWriteOptions {
    level: Level,
    source_locale: Option<Locale>,
    creation_tool: String,
    creation_tool_version: String,
    datatype: String,
});

setters!(JsonlOptions {
    mode: JsonlMode,
    source_locale: Option<Locale>,
    target_locale: Option<Locale>,
    strict: bool,
    max_line_bytes: u64,
    file_name: String,
});

setters!(PoOptions {
    source_locale: Option<Locale>,
    target_locale: Option<Locale>,
    fuzzy: bool,
    obsolete: bool,
    format_flags: bool,
    project: Option<String>,
    strict: bool,
    file_name: String,
});

setters!(WeblateOptions {
    file_name: String,
    strict: bool,
    source_locale: Option<Locale>,
    target_locale: Option<Locale>,
});

setters!(XliffInOptions {
    file_name: String,
    source_locale: Option<Locale>,
    target_locale: Option<Locale>,
    states: Option<Vec<String>>,
});
