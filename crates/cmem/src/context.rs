//! [`ContextAnswer`]: the context of a segment for a translation producer, as every
//! front end returns it; [`ContextSegment`], a segment as front ends read it; and
//! [`Memory::context`] / [`Memory::context_answer`], which produce it. The choice of
//! examples and glossary is [`cmem_core::lookup::producer`]'s.

use std::fmt;
use std::time::Instant;

use cmem_core::lookup::producer::{context_for, Context, ContextOptions, ContextRequest};
use cmem_core::{
    client_masks, prepare_query, Error, Locale, LookupOptions, LookupRequest, MatchView, Point, QueryContext,
    QueryText, Recognizer, Result, Run, SegmentView,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::memory::Memory;

/// The context of one segment as clients see it: what [`Context`] holds, each item with
/// its provenance (entry id, score, and the memory's name when several are served).
/// `cmem context`, its batch lines and the server's `/v1/context` all return this shape.
///
/// ```
/// use cmem::{ContextRequest, LookupRequest, Locale, Memory, OpenOptions, Run};
///
/// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
/// let file = "{\"source\":\"Print the report\",\"target\":\"Bericht drucken\",\"source_locale\":\"en\",\"target_locale\":\"de\"}\n\
///             {\"source\":\"Save the file\",\"target\":\"Datei speichern\",\"source_locale\":\"en\",\"target_locale\":\"de\"}";
/// memory.import_reader("ui.jsonl", file.as_bytes())?;
/// let lookup = LookupRequest::new(vec![Run::text("Save the report")], Locale::parse("en")?, Locale::parse("de")?);
/// let answer = memory.context_answer(&ContextRequest::new(lookup))?;
/// let json = serde_json::to_value(&answer)?;
/// assert_eq!(json["examples"].as_array().map(Vec::len), Some(2));
/// assert!(json["examples"][0]["entry_id"].is_i64());
/// assert_eq!(json["word_model"], false); // no `cmem align` yet: no glossary, and it says so
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextAnswer {
    /// The segment, in its source locale.
    pub query: SegmentView,
    /// The time the answer took in microseconds.
    pub micros: u64,
    /// True when the best match is exact and the request short-circuits: no examples,
    /// no glossary.
    pub exact: bool,
    /// The block's prior approved version, when the request's fingerprint governs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_version: Option<PriorVersionView>,
    /// The lookup's matches, as `/v1/lookup` gives them.
    pub matches: Vec<MatchView>,
    /// The examples, most new coverage first.
    pub examples: Vec<ExampleView>,
    /// The glossary.
    pub glossary: Vec<GlossaryView>,
    /// Whether the memory keeps a word model of the pair (`cmem align`); without one the
    /// glossary is empty.
    pub word_model: bool,
}

/// A prior version as clients see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorVersionView {
    /// The entry it came from.
    pub entry_id: i64,
    /// The memory's name, when several are served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// Its source text.
    pub source: String,
    /// Its target text.
    pub target: String,
}

/// An example as clients see it ([`cmem_core::Example`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExampleView {
    /// The entry it came from.
    pub entry_id: i64,
    /// The memory's name, when several are served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The share (0–1) of the segment's weighted words and word pairs it holds alone.
    pub score: f64,
    /// The lookup's score, when the fuzzy lookup offered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_score: Option<f64>,
    /// Its source text, codes as their native markup.
    pub source: String,
    /// Its target text.
    pub target: String,
    /// The segment's words and word pairs (lower case) it added to the examples before it.
    pub covers: Vec<String>,
}

/// A glossary pair as clients see it ([`cmem_core::GlossaryPair`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlossaryView {
    /// The segment's phrase, in lower case.
    pub source: String,
    /// The target text the memory aligned with it.
    pub target: String,
    /// How often the memory aligned the two.
    pub count: u32,
    /// The memory's name, when several are served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The entry ids of the examples whose target holds `target`.
    pub in_examples: Vec<i64>,
}

impl ContextAnswer {
    /// The view of `context`, the answer to `req`, which took `micros`.
    pub fn of(req: &ContextRequest, context: &Context, micros: u64) -> ContextAnswer {
        ContextAnswer {
            query: SegmentView::of(Some(req.lookup.source_locale.as_str()), &req.lookup.source),
            micros,
            exact: context.exact,
            prior_version: context.prior_version.as_ref().map(|p| PriorVersionView {
                entry_id: p.entry_id.0,
                memory: None,
                source: p.source.clone(),
                target: p.target.clone(),
            }),
            matches: context.matches.iter().map(MatchView::of).collect(),
            examples: context
                .examples
                .iter()
                .map(|e| ExampleView {
                    entry_id: e.entry_id.0,
                    memory: None,
                    score: e.score,
                    match_score: e.match_score,
                    source: e.source.clone(),
                    target: e.target.clone(),
                    covers: e.covers.clone(),
                })
                .collect(),
            glossary: context
                .glossary
                .iter()
                .map(|g| GlossaryView {
                    source: g.source.clone(),
                    target: g.target.clone(),
                    count: g.count,
                    memory: None,
                    in_examples: g.in_examples.iter().map(|id| id.0).collect(),
                })
                .collect(),
            word_model: context.word_model,
        }
    }

    /// Names the memory every item came from (an answer of one of several memories).
    #[must_use]
    pub fn in_memory(mut self, name: &str) -> ContextAnswer {
        let name = Some(name.to_owned());
        if let Some(p) = &mut self.prior_version {
            p.memory.clone_from(&name);
        }
        for m in &mut self.matches {
            m.memory.clone_from(&name);
        }
        for e in &mut self.examples {
            e.memory.clone_from(&name);
        }
        for g in &mut self.glossary {
            g.memory.clone_from(&name);
        }
        self
    }
}

/// A segment of a context request as front ends read it (a JSON object of
/// `/v1/context`'s batch, a line of `cmem context --batch`): exactly one of `text`,
/// `notation` or `runs`, and optionally the block (`unit`, `context_fingerprint`), the
/// `point` and the neighbours (`context`).
///
/// ```
/// use cmem::{ContextSegment, ContextOptions, Locale, LookupOptions};
///
/// let seg: ContextSegment = serde_json::from_str(r#"{"text":"Save","unit":"home.save","context_fingerprint":"f1"}"#)?;
/// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
/// let req = seg.request(None, false, &en, &de, &LookupOptions::default(), &ContextOptions::default())?;
/// assert_eq!((req.unit.as_str(), req.context_fingerprint.as_str()), ("home.save", "f1"));
///
/// let bad: ContextSegment = serde_json::from_str(r#"{"text":"Save","notation":"Save"}"#)?;
/// let err = bad.request(None, false, &en, &de, &LookupOptions::default(), &ContextOptions::default()).unwrap_err();
/// assert_eq!(err.field, "text");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ContextSegment {
    /// The caller's id of the segment, returned with its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// Plain text, inline codes recognized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The run notation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notation: Option<String>,
    /// A JSON array of runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<Value>,
    /// The block the segment is a version of.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit: String,
    /// The caller's context fingerprint, which must govern the prior version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_fingerprint: String,
    /// The point the caller asks from (`web/de-ch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
    /// Where the segment stands in its document: its unit key and neighbours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<NeighboursBody>,
}

/// A segment's neighbours as requests give them: the unit's key and the source texts
/// before and after it (both, `""` at the start or end of the document, or neither).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeighboursBody {
    /// The unit's key (`msgctxt`, XLIFF unit id, JSON key).
    #[serde(default)]
    pub key: String,
    /// The previous segment's source.
    #[serde(default)]
    pub pre: Option<String>,
    /// The next segment's source.
    #[serde(default)]
    pub post: Option<String>,
}

/// A segment that cannot be made a request: the field at fault and why.
#[derive(Debug)]
#[non_exhaustive]
pub struct FieldError {
    /// The field (`text`, `point`, `context`).
    pub field: &'static str,
    /// What is wrong with it.
    pub error: Error,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.error)
    }
}

impl std::error::Error for FieldError {
    /// The error's cause: its message is this error's, after the field.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

impl ContextSegment {
    /// The request of this segment from `source` to `target`: plain text recognized by
    /// `recognizer` (and its client masks read as codes when `masks`), the matches'
    /// options `lookup`, the examples' `options`.
    ///
    /// # Errors
    /// The field at fault: none or several of `text`, `notation`, `runs`, or one that
    /// does not parse; a `point` that does not parse; a `context` with one neighbour.
    pub fn request(
        &self,
        recognizer: Option<&Recognizer>,
        masks: bool,
        source: &Locale,
        target: &Locale,
        lookup: &LookupOptions,
        options: &ContextOptions,
    ) -> std::result::Result<ContextRequest, FieldError> {
        let at = |field: &'static str| move |error: Error| FieldError { field, error };
        let runs: Vec<Run> = match (&self.text, &self.notation, &self.runs) {
            (Some(t), None, None) => {
                let runs = prepare_query(QueryText::Plain(t), recognizer).map_err(at("text"))?;
                if masks {
                    client_masks(runs)
                } else {
                    runs
                }
            }
            (None, Some(n), None) => prepare_query(QueryText::Notation(n), None).map_err(at("notation"))?,
            (None, None, Some(r)) => {
                prepare_query(QueryText::RunsJson(&r.to_string()), None).map_err(at("runs"))?
            }
            _ => {
                return Err(FieldError {
                    field: "text",
                    error: Error::new(
                        cmem_core::ErrorKind::InvalidQuery,
                        "give exactly one of \"text\", \"notation\" or \"runs\"",
                    ),
                })
            }
        };
        let point = self.point.as_deref().map(Point::parse).transpose().map_err(at("point"))?;
        let mut options_of_lookup = lookup.clone();
        if point.is_some() {
            options_of_lookup = options_of_lookup.maybe_point(point);
        }
        let mut req = LookupRequest::new(runs, source.clone(), target.clone()).options(options_of_lookup);
        if let Some(c) = &self.context {
            req = req.context(c.parse().map_err(at("context"))?);
        }
        Ok(ContextRequest::new(req)
            .block(self.unit.clone(), self.context_fingerprint.clone())
            .options(options.clone()))
    }
}

impl NeighboursBody {
    /// The lookup's context.
    ///
    /// # Errors
    /// One neighbour given without the other.
    pub fn parse(&self) -> Result<QueryContext> {
        match (&self.pre, &self.post) {
            (Some(pre), Some(post)) => Ok(QueryContext::of(
                &self.key,
                Some(&[Run::text(pre.clone())]),
                Some(&[Run::text(post.clone())]),
            )),
            (None, None) => Ok(QueryContext { key: self.key.clone(), ..QueryContext::default() }),
            _ => Err(Error::new(
                cmem_core::ErrorKind::InvalidQuery,
                "give both \"pre\" and \"post\" (\"\" at the start or end of the document), or neither",
            )),
        }
    }
}

impl Memory {
    /// Everything the memory knows about a segment: the prior version its fingerprint
    /// governs, the lookup's matches, examples chosen to cover it and the glossary of the
    /// word model ([`cmem_core::lookup::producer`]).
    ///
    /// # Errors
    /// As [`cmem_core::context_for`].
    pub fn context(&self, req: &ContextRequest) -> Result<Context> {
        context_for(self.store(), req)
    }

    /// [`context`](Self::context) as the [`ContextAnswer`] front ends return, timed.
    ///
    /// # Errors
    /// As [`context`](Self::context).
    pub fn context_answer(&self, req: &ContextRequest) -> Result<ContextAnswer> {
        let started = Instant::now();
        let context = self.context(req)?;
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        Ok(ContextAnswer::of(req, &context, micros))
    }
}
