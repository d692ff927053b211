//! Imports as jobs: `POST /v1/imports` streams the upload to a temporary file, answers
//! `202` with the job's address, and imports it on a blocking thread in one transaction
//! (all or nothing, as `cmem import`); `GET /v1/imports/{id}` shows its progress and, at
//! the end, its located problems. A shutdown cancels running jobs, which roll back.
//!
//! A job then brings the word models of its pair (of every pair, without both locales)
//! up to date, as `cmem import` does ([`cmem::Memory::realign`]): trained when the pair
//! has enough entries and no model, or grew by a fraction since its model was trained;
//! always with `align=true`, never with `align=false`. A model trained before the import
//! would not know the words that came in, and lookups would repair with stale evidence.
//! The import stands whatever training does.

use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cmem::formats::registry::{self, FormatSpec};
use cmem::formats::{Format, FormatError, FormatErrorKind, Input, Progress};
use cmem::{ImportRequest, Locale};
use http_body_util::BodyExt;
use serde::Deserialize;
use serde_json::json;

use crate::app::App;
use crate::error::ApiError;
use crate::job_table::{JobView, WordModelView};
use crate::native::{optional_locale, query_error};
use crate::token::Scope;

/// The most problems a job keeps to show (all are counted).
const PROBLEMS_SHOWN: usize = 1_000;

/// The query string of `POST /v1/imports`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ImportParams {
    format: String,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    strict: bool,
    /// Store every entry as `from` → `to` even where the file names other languages
    /// (which otherwise fails the job).
    #[serde(default)]
    relabel: bool,
    /// The file's name, for messages (default `upload`).
    #[serde(default)]
    name: Option<String>,
    /// The memory written, of several (default: the write memory).
    #[serde(default)]
    memory: Option<String>,
    /// Train the word model of `from` → `to` after the import whatever the pair's size
    /// (`true`), or not at all (`false`); by default when it is stale.
    #[serde(default)]
    align: Option<bool>,
}

/// `POST /v1/imports?format=F[&from=L&to=L][&relabel=true][&strict=true][&name=N]`, the file as the
/// body (gzip or not): `202` and the job. `F` is a format the format registry imports
/// from one stream (not one whose files come with their source beside them,
/// `Import::Bundle`).
pub(crate) async fn start(
    State(app): State<Arc<App>>,
    pair: Option<Extension<crate::pairs::PathPair>>,
    headers: HeaderMap,
    params: Result<Query<ImportParams>, QueryRejection>,
    body: Body,
) -> Result<Response, ApiError> {
    app.authorize(&headers, Scope::Write).await?;
    let Query(p) = params.map_err(query_error)?;
    // Refused before the upload is read when no memory may take it.
    app.write_memory(p.memory.as_deref())?;
    let format = registry::by_name(&p.format)
        .filter(|f| f.can_import_stream())
        .map(|f| f.format)
        .ok_or_else(|| {
            let names = registry::names(FormatSpec::can_import_stream);
            ApiError::bad_request(format!("format {:?} is not {}", p.format, registry::either(&names)))
                .in_field("format")
        })?;
    let from = optional_locale("from", p.from.as_deref())?;
    let to = optional_locale("to", p.to.as_deref())?;
    if let (Some(from), Some(to)) = (&from, &to) {
        let path = pair.map(|Extension(p)| p);
        app.check_request_pair(path.as_ref(), (from, to), ("from", "to"))?;
    }
    let name = p.name.clone().unwrap_or_else(|| "upload".to_owned());
    if p.align == Some(true) && (from.is_none() || to.is_none()) {
        return Err(ApiError::bad_request(
            "align=true needs from and to: the pair whose word model is trained",
        )
        .in_field("align"));
    }

    // The upload goes to a temporary file as it arrives: any size, little memory.
    let internal = |doing: &str, e: &dyn std::fmt::Display| {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", format!("import: {doing}: {e}"))
    };
    let mut file = tempfile::Builder::new()
        .prefix("cmem-upload-")
        .tempfile()
        .map_err(|e| internal("cannot create a temporary file", &e))?;
    let limit = app.config.max_upload_bytes;
    let mut body = body;
    let mut received: u64 = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::bad_request(format!("import: the upload broke off: {e}")))?;
        if let Ok(data) = frame.into_data() {
            received += data.len() as u64;
            if received > limit {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    format!("the upload exceeds {limit} bytes"),
                )
                .with_details(json!({ "limit": limit })));
            }
            file.write_all(&data).map_err(|e| internal("cannot keep the upload", &e))?;
        }
    }
    file.flush().map_err(|e| internal("cannot keep the upload", &e))?;

    let id = app.jobs.next.fetch_add(1, Ordering::Relaxed) + 1;
    let job = Arc::new(Mutex::new(JobView {
        id,
        status: "running",
        format: format.name(),
        upload_bytes: received,
        bytes_read: 0,
        read: 0,
        inserted: 0,
        deduplicated: 0,
        problems: 0,
        problem_messages: Vec::new(),
        error: None,
        word_model: None,
    }));
    if let Ok(mut jobs) = app.jobs.jobs.lock() {
        jobs.insert(id, Arc::clone(&job));
    }
    let view = job.lock().map(|v| v.clone()).map_err(|_| internal("job", &"lock poisoned"))?;
    let worker = Arc::clone(&app);
    let handle = tokio::task::spawn_blocking(move || {
        let flags = (p.strict, p.relabel, p.align);
        run(&worker, &job, &file, format, (from, to), flags, (&name, p.memory.as_deref()));
        drop(file);
    });
    if let Ok(mut running) = app.jobs.running.lock() {
        running.retain(|h| !h.is_finished());
        running.push(handle);
    }
    let mut response = (StatusCode::ACCEPTED, Json(view)).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/v1/imports/{id}")) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// The import itself, on a blocking thread.
#[allow(clippy::too_many_arguments)]
fn run(
    app: &App,
    job: &Mutex<JobView>,
    file: &tempfile::NamedTempFile,
    format: Format,
    (from, to): (Option<Locale>, Option<Locale>),
    (strict, relabel, align): (bool, bool, Option<bool>),
    (name, memory): (&str, Option<&str>),
) {
    let update = |p: &Progress| {
        if let Ok(mut v) = job.lock() {
            v.bytes_read = p.bytes_read;
            v.read = p.read;
            v.inserted = p.inserted;
            v.deduplicated = p.deduplicated;
            v.problems = p.problems;
        }
    };
    let result = upload_input(file, format, name).and_then(|input| {
        // The memory's recognizer, its rule set recorded and the index persisted: the
        // one import every front end runs.
        let mode = match align {
            Some(true) => cmem::AlignMode::Always,
            Some(false) => cmem::AlignMode::Off,
            None => cmem::AlignMode::WhenStale,
        };
        let request = ImportRequest::new(vec![input])
            .align(mode)
            .locales(from.clone(), to.clone())
            .strict(strict)
            .relabel(relabel)
            .cancel_on(Arc::clone(&app.jobs.cancel));
        match app.write_memory(memory) {
            Ok(memory) => memory.import(request, &mut |p| update(p)),
            Err(e) => Err(cmem::Error::new(cmem::ErrorKind::InvalidQuery, e.message).into()),
        }
    });
    let trained = result.as_ref().ok().and_then(trained_view);
    let Ok(mut v) = job.lock() else { return };
    v.word_model = trained;
    match result {
        Ok(imported) => {
            let report = imported.report;
            let p = report.progress;
            v.bytes_read = p.bytes_read;
            v.read = p.read;
            v.inserted = p.inserted;
            v.deduplicated = p.deduplicated;
            v.problems = p.problems;
            v.problem_messages = report.problems.iter().take(PROBLEMS_SHOWN).map(|e| e.to_string()).collect();
            v.status = "succeeded";
        }
        Err(e) => {
            v.status = if app.jobs.cancel.load(Ordering::Relaxed) { "cancelled" } else { "failed" };
            v.error = Some(format!("{e}; nothing of this import was stored"));
        }
    }
}

/// The word model the import trained (or failed to), for the job's view: the first pair
/// that was trained or failed; `None` when every pair's model was kept or is too small.
fn trained_view(imported: &cmem::Imported) -> Option<WordModelView> {
    imported.aligned.iter().find_map(|r| {
        let (report, error) = match &r.outcome {
            cmem::RealignOutcome::Trained(report) => (Some(report.clone()), None),
            cmem::RealignOutcome::Failed(e) => (None, Some(format!("{e}; the import itself is kept"))),
            _ => return None,
        };
        Some(WordModelView { from: r.from.as_str().to_owned(), to: r.to.as_str().to_owned(), report, error })
    })
}

/// The upload as an input named `name` (never the temporary file's path, which is
/// nobody's business), gzip decompressed when it starts with gzip's magic bytes.
fn upload_input(file: &tempfile::NamedTempFile, format: Format, name: &str) -> Result<Input, FormatError> {
    let io_error = |e: std::io::Error| {
        FormatError::new(Format::Store, FormatErrorKind::Io, format!("{name}: cannot read the upload: {e}"))
    };
    let mut f = file.reopen().map_err(io_error)?;
    let mut magic = [0u8; 2];
    let gzip = f.read_exact(&mut magic).is_ok() && magic == [0x1f, 0x8b];
    f.seek(SeekFrom::Start(0)).map_err(io_error)?;
    Ok(if gzip {
        Input::from_reader(name, format, flate2::read::MultiGzDecoder::new(f))
    } else {
        Input::from_reader(name, format, f)
    })
}

/// `GET /v1/imports/{id}`.
pub(crate) async fn status(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let n: u64 = id
        .parse()
        .map_err(|_| ApiError::bad_request(format!("job id {id:?} is not a whole number")).in_field("id"))?;
    app.jobs.get(n).map(Json).ok_or_else(|| ApiError::not_found(format!("no import job {n}")))
}

/// `GET /v1/imports`: every job since the server started, oldest first.
pub(crate) async fn list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    Ok(Json(json!({ "jobs": app.jobs.all() })))
}
