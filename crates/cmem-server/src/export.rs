//! `GET /v1/export`: the memory as TMX, `.kmb` or JSON Lines, streamed as it is read
//! (a page of entries at a time), never held whole in memory.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use cmem::formats::{
    EntrySink, ExportOptions, FormatError, JsonlMode, JsonlOptions, JsonlWriter, KmbWriter, Level,
    TmxWriteOptions, TmxWriter,
};
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

fn drive<S: EntrySink>(
    memory: &cmem::Memory,
    sink: Result<S, FormatError>,
    options: &ExportOptions,
    finish: impl FnOnce(S) -> Result<ToBody, FormatError>,
) -> Result<ToBody, FormatError> {
    let mut sink = sink?;
    memory.export(&mut sink, options, &mut |_| {})?;
    finish(sink)
}

/// `GET /v1/export?format=tmx|tmx1|kmb|jsonl[&from=L][&to=L][&memory=NAME]`.
pub(crate) async fn run(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    params: Result<Query<ExportParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Query(p) = params.map_err(query_error)?;
    let (content_type, extension) = match p.format.as_str() {
        "tmx" | "tmx1" => ("application/x-tmx+xml", "tmx"),
        "kmb" => ("application/octet-stream", "kmb"),
        "jsonl" => ("application/jsonl", "jsonl"),
        other => {
            return Err(ApiError::bad_request(format!("format {other:?} is not tmx, tmx1, kmb or jsonl"))
                .in_field("format"))
        }
    };
    // Checked here, so that an unknown name is a 400 before the body starts.
    app.read_memory(p.memory.as_deref())?;
    let which = p.memory;
    let mut options = ExportOptions::default();
    options.source_locale = optional_locale("from", p.from.as_deref())?;
    options.target_locale = optional_locale("to", p.to.as_deref())?;

    let (sender, channel) = Channel::<Bytes, io::Error>::new(4);
    let sender: SharedSender = Arc::new(Mutex::new(Some(sender)));
    let out =
        ToBody { sender: Arc::clone(&sender), handle: Handle::current(), buf: Vec::with_capacity(CHUNK) };
    let format = p.format;
    tokio::task::spawn_blocking(move || {
        // The name was checked above and the memories served do not change.
        let memory = app.read_memory(which.as_deref()).unwrap_or_else(|_| app.memory());
        let result = match format.as_str() {
            "kmb" => drive(memory, KmbWriter::new(out, None), &options, KmbWriter::finish),
            "jsonl" => {
                let mut o = JsonlOptions::default();
                o.mode = JsonlMode::Full;
                drive(memory, Ok(JsonlWriter::new(out, o)), &options, JsonlWriter::finish)
            }
            _ => {
                let mut o = TmxWriteOptions::default();
                o.level = if format == "tmx1" { Level::One } else { Level::Two };
                o.source_locale.clone_from(&options.source_locale);
                drive(memory, TmxWriter::new(out, o), &options, TmxWriter::finish)
            }
        };
        match result.and_then(|mut out| {
            out.flush().map_err(|e| FormatError::io(cmem::formats::Format::Store, "write failed", e))
        }) {
            // Dropping the last sender ends the body normally.
            Ok(()) => drop(sender.lock().ok().and_then(|mut s| s.take())),
            Err(e) => abort(&sender, e.to_string()),
        }
    });
    let mut response = (StatusCode::OK, Body::new(channel)).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"memory.{extension}\"")) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}
