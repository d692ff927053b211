//! `GET /v1/export`: the memory in any format the format registry writes (TMX, `.kmb`,
//! JSON Lines, PO, Weblate JSON), streamed as it is read (a page of entries at a time),
//! never held whole in memory.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use cmem::formats::registry::{self, FormatSpec};
use cmem::formats::{ExportOptions, FormatError};
use http_body_util::channel::{Channel, Sender};
use serde::Deserialize;
use tokio::runtime::Handle;

use crate::app::App;
use crate::error::ApiError;
use crate::native::{optional_locale, query_error};
use crate::token::Scope;

/// Bytes gathered before a chunk is sent to the client.
const CHUNK: usize = 64 * 1024;

/// The query string of `GET /v1/export`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExportParams {
    format: String,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    /// Of several memories served, the one exported (default: the home memory).
    #[serde(default)]
    memory: Option<String>,
}

/// The sending end of the response body, shared by the writer and the task that ends
/// it: a failed export must end the body abnormally even after the writer is gone.
type SharedSender = Arc<Mutex<Option<Sender<Bytes, io::Error>>>>;

/// A writer whose bytes go to the response body, from a blocking thread.
struct ToBody {
    sender: SharedSender,
    handle: Handle,
    buf: Vec<u8>,
}

impl ToBody {
    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        let gone = || io::Error::new(io::ErrorKind::BrokenPipe, "the client went away");
        let mut guard = self.sender.lock().map_err(|_| gone())?;
        let sender = guard.as_mut().ok_or_else(gone)?;
        // Waits while the client reads slowly: the export goes at the client's pace.
        self.handle.block_on(sender.send_data(chunk)).map_err(|_| gone())
    }
}

/// Ends the body abnormally, so the client sees a broken transfer, never a short file
/// that looks complete.
fn abort(sender: &SharedSender, why: String) {
    if let Some(sender) = sender.lock().ok().and_then(|mut s| s.take()) {
        sender.abort(io::Error::other(why));
    }
}

impl Write for ToBody {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

/// Writes `memory` into `out` as `format` and ends the file.
fn drive(
    memory: &cmem::Memory,
    format: &FormatSpec,
    out: &mut ToBody,
    options: &ExportOptions,
) -> Result<(), FormatError> {
    let mut writer = format.writer(out, options)?;
    memory.export(writer.sink(), options, &mut |_| {})?;
    writer.finish()
}

/// `GET /v1/export?format=F[&from=L][&to=L][&memory=NAME]`, `F` one the format registry
/// writes (a format holding one locale pair, PO, needs `from` and `to`).
pub(crate) async fn run(
    State(app): State<Arc<App>>,
    pair: Option<Extension<crate::pairs::PathPair>>,
    headers: HeaderMap,
    params: Result<Query<ExportParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Query(p) = params.map_err(query_error)?;
    let Some(format) = registry::by_name(&p.format).filter(|f| f.can_export()) else {
        let names = registry::names(FormatSpec::can_export);
        return Err(ApiError::bad_request(format!(
            "format {:?} is not {}",
            p.format,
            registry::either(&names)
        ))
        .in_field("format"));
    };
    // Checked here, so that an unknown name is a 400 before the body starts.
    app.read_memory(p.memory.as_deref())?;
    let which = p.memory;
    let mut options = ExportOptions::default();
    options.source_locale = optional_locale("from", p.from.as_deref())?;
    options.target_locale = optional_locale("to", p.to.as_deref())?;
    if let (Some(from), Some(to)) = (&options.source_locale, &options.target_locale) {
        let path = pair.map(|Extension(p)| p);
        app.check_request_pair(path.as_ref(), (from, to), ("from", "to"))?;
    }
    if format.one_pair && (options.source_locale.is_none() || options.target_locale.is_none()) {
        return Err(ApiError::bad_request(format!(
            "format {} writes one locale pair: give from and to",
            format.name
        ))
        .in_field(if options.source_locale.is_none() { "from" } else { "to" }));
    }

    let (sender, channel) = Channel::<Bytes, io::Error>::new(4);
    let sender: SharedSender = Arc::new(Mutex::new(Some(sender)));
    let mut out =
        ToBody { sender: Arc::clone(&sender), handle: Handle::current(), buf: Vec::with_capacity(CHUNK) };
    tokio::task::spawn_blocking(move || {
        // The name was checked above and the memories served do not change.
        let memory = app.read_memory(which.as_deref()).unwrap_or_else(|_| app.memory());
        let result = drive(memory, format, &mut out, &options).and_then(|()| {
            out.flush().map_err(|e| FormatError::io(cmem::formats::Format::Store, "write failed", e))
        });
        match result {
            // Dropping the last sender ends the body normally.
            Ok(()) => drop(sender.lock().ok().and_then(|mut s| s.take())),
            Err(e) => abort(&sender, e.to_string()),
        }
    });
    let mut response = (StatusCode::OK, Body::new(channel)).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(format.media_type));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"memory{}\"", format.extension())) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}
