//! `POST /v1/context`: the context of a batch of segments for a translation producer —
//! prior version, matches, examples chosen to cover each segment, glossary — as
//! [`cmem::Memory::context_answer`] gives it, each answer the shape of `cmem context`'s
//! lines. Each segment's answer is kept in the server's answer cache (the amaGama
//! routes', see [`crate::answers`]) while the memory does not change: a producer that
//! asks again for a document's segments gets them without the work (`micros` then says
//! what the answer took when it was computed).

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::Json;
use cmem::{ContextOptions, ContextSegment};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::app::App;
use crate::error::ApiError;
use crate::native::{check_locales, json_error, target};
use crate::pairs::PathPair;
use crate::token::Scope;

/// A context request: segments and the options they share.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextBody {
    segments: Vec<ContextSegment>,
    source_locale: String,
    target_locale: String,
    /// The matches' least score, percent (default 70).
    #[serde(default)]
    threshold: Option<f64>,
    /// At most this many matches (default 10).
    #[serde(default)]
    limit: Option<usize>,
    /// As `/v1/lookup`'s.
    #[serde(default)]
    client_masks: bool,
    /// As `/v1/lookup`'s.
    #[serde(default)]
    penalties: Vec<String>,
    /// At most this many examples (default 5, at most 20).
    #[serde(default)]
    examples: Option<usize>,
    /// The most characters of all examples together (default 4,000).
    #[serde(default)]
    max_example_chars: Option<usize>,
    /// The least share of the segment an example must hold, percent (default 10).
    #[serde(default)]
    min_example_score: Option<f64>,
    /// At most this many glossary pairs (default 10, at most 50).
    #[serde(default)]
    glossary: Option<usize>,
    /// An exact match short-circuits: no examples, no glossary (default true).
    #[serde(default)]
    short_circuit_exact: Option<bool>,
    /// Of several memories served, the one asked (default: the home memory).
    #[serde(default)]
    memory: Option<String>,
}

impl ContextBody {
    /// The answer cache's key of `segment`'s answer: everything of the request that
    /// shapes it (the caller's `id`, echoed beside the answer, left out), apart from the
    /// amaGama routes' keys.
    fn answer_key(&self, segment: &ContextSegment, options: &ContextOptions) -> String {
        let mut segment = segment.clone();
        segment.id = None;
        format!(
            "\u{1}context\0{:?}\0{}\0{}\0{:?}\0{:?}\0{}\0{:?}\0{options:?}\0{}",
            self.memory,
            self.source_locale,
            self.target_locale,
            self.threshold,
            self.limit,
            self.client_masks,
            self.penalties,
            serde_json::to_string(&segment).unwrap_or_default(),
        )
    }

    /// The examples' options; a `400` naming the field out of bounds.
    fn options(&self) -> Result<ContextOptions, ApiError> {
        let d = ContextOptions::default();
        let min = self.min_example_score.unwrap_or(d.min_example_score * 100.0);
        if !(0.0..=100.0).contains(&min) {
            return Err(ApiError::bad_request(format!("min_example_score {min} is not a percentage 0–100"))
                .in_field("min_example_score"));
        }
        let options = d
            .clone()
            .examples(self.examples.unwrap_or(d.examples))
            .max_example_chars(self.max_example_chars.unwrap_or(d.max_example_chars))
            .min_example_score(min / 100.0)
            .glossary(self.glossary.unwrap_or(d.glossary))
            .short_circuit_exact(self.short_circuit_exact.unwrap_or(d.short_circuit_exact));
        options.validate().map_err(|e| {
            let message = e.to_string();
            let field = message.split(':').next().unwrap_or_default().to_owned();
            ApiError::from(e).in_field(&field)
        })?;
        Ok(options)
    }
}

/// `POST /v1/context`: every segment checked first (a `400` names the first bad one's
/// index and field), then each answered in order.
pub(crate) async fn context(
    State(app): State<Arc<App>>,
    pair: Option<Extension<PathPair>>,
    headers: HeaderMap,
    body: Result<Json<ContextBody>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    app.authorize(&headers, Scope::Read).await?;
    let Json(body) = body.map_err(json_error)?;
    crate::native::check_batch(&app, body.segments.len())?;
    let results = app
        .blocking(move |app| {
            let t = target(
                &body.source_locale,
                &body.target_locale,
                body.threshold,
                body.limit,
                None,
                &body.penalties,
            )?;
            check_locales(app, pair, &t)?;
            let options = body.options()?;
            let memory = app.read_memory(body.memory.as_deref())?;
            let requests = body
                .segments
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    s.request(
                        app.recognizer.as_ref(),
                        body.client_masks,
                        &t.source,
                        &t.target,
                        &t.options,
                        &options,
                    )
                    .map_err(|e| ApiError::from(e.error).in_field(&format!("segments[{i}].{}", e.field)))
                })
                .collect::<Result<Vec<_>, ApiError>>()?;
            if let Some(first) = requests.first() {
                memory.warm(&first.lookup.source_locale)?;
            }
            // Read before any answer is computed: an answer kept under this mark never
            // predates a write the mark counts.
            let mark = app.change_mark()?;
            let mut results = Vec::with_capacity(requests.len());
            for (index, (req, s)) in requests.iter().zip(&body.segments).enumerate() {
                let key = body.answer_key(s, &options);
                let fields = match mark.and_then(|m| app.answers.get(m, &key)) {
                    Some(kept) => kept,
                    None => {
                        let mut answer = memory.context_answer(req)?;
                        if app.named {
                            let home = &app.memories().members()[app.home].spec.name;
                            answer = answer.in_memory(body.memory.as_deref().unwrap_or(home));
                        }
                        let fields = Arc::new(serde_json::to_value(&answer).unwrap_or(Value::Null));
                        if let Some(m) = mark {
                            app.answers.put(m, key, Arc::clone(&fields));
                        }
                        fields
                    }
                };
                let mut item = Map::new();
                item.insert("index".into(), Value::from(index));
                if let Some(id) = &s.id {
                    item.insert("id".into(), id.clone());
                }
                if let Value::Object(fields) = fields.as_ref() {
                    item.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                results.push(Value::Object(item));
            }
            Ok(results)
        })
        .await?;
    Ok(Json(json!({ "results": results })))
}
