//! [`LookupAnswer`]: a lookup's answer as every front end returns it, and
//! [`Memory::answer`] / [`Memory::lookup_batch`], which produce it; and
//! [`Memory::lookup_many`], a batch on several threads.

use std::time::Instant;

use cmem_core::{LookupRequest, Match, MatchView, Result, SegmentView};
use serde::{Deserialize, Serialize};

use crate::memory::Memory;
use crate::read;

/// One lookup's answer: the query as looked up, the time the lookup took, and the
/// matches. `cmem lookup --json`, its batch lines and the server's `/v1/lookup` all
/// return this shape.
///
/// ```
/// use cmem::{LookupRequest, Locale, Memory, OpenOptions, Run};
///
/// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
/// memory.import_reader("ui.jsonl", r#"{"source":"Print","target":"Drucken","source_locale":"en","target_locale":"de"}"#.as_bytes())?;
/// let req = LookupRequest::new(vec![Run::text("Print")], Locale::parse("en")?, Locale::parse("de")?);
/// let answer = memory.answer(&req)?;
/// let json = serde_json::to_value(&answer)?;
/// assert_eq!(json["query"]["text"], "Print");
/// assert_eq!(json["matches"][0]["target"]["text"], "Drucken");
/// assert!(json["micros"].is_u64());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LookupAnswer {
    /// The query, in its source locale.
    pub query: SegmentView,
    /// The lookup's time in microseconds (the candidate index's warm-up not counted).
    pub micros: u64,
    /// The matches, best first.
    pub matches: Vec<MatchView>,
    /// The stretches of the query the memory holds with a consistent translation, when
    /// asked for ([`Memory::answer_with_fragments`]); absent from the JSON when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fragments: Vec<cmem_core::align::Fragment>,
    /// The glossary's terms the query holds, with the memory's translation of each, when
    /// asked for ([`Memory::answer_with_evidence`]); absent from the JSON when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<cmem_core::align::FoundTerm>,
}

impl LookupAnswer {
    /// The answer to `req` whose matches `look` finds, timed.
    pub(crate) fn timed(
        req: &LookupRequest,
        look: impl FnOnce() -> Result<Vec<MatchView>>,
    ) -> Result<LookupAnswer> {
        let started = Instant::now();
        let matches = look()?;
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        Ok(LookupAnswer {
            query: SegmentView::of(Some(req.source_locale.as_str()), &req.source),
            micros,
            matches,
            fragments: Vec::new(),
            terms: Vec::new(),
        })
    }
}

impl Memory {
    /// Looks `req` up and returns the [`LookupAnswer`].
    ///
    /// # Errors
    /// As [`lookup`](Self::lookup).
    pub fn answer(&self, req: &LookupRequest) -> Result<LookupAnswer> {
        read::answer(self, req)
    }

    /// Answers many lookups, lazily and in order: the candidate index of each source
    /// locale is brought up to date before its first lookup (and not counted in its
    /// time), so every answer is that of a warm memory. Each item is a request or the
    /// caller's own error for an item it could not make a request of (a query that did
    /// not parse); that error comes back in its place, and the others are answered.
    ///
    /// ```
    /// use cmem::{LookupRequest, Locale, Memory, OpenOptions, Run};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// memory.import_reader("ui.jsonl", r#"{"source":"Print","target":"Drucken","source_locale":"en","target_locale":"de"}"#.as_bytes())?;
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// let items: Vec<Result<LookupRequest, cmem::Error>> = vec![
    ///     Ok(LookupRequest::new(vec![Run::text("Print")], en.clone(), de.clone())),
    ///     Err(cmem::Error::new(cmem::ErrorKind::InvalidQuery, "not a query")),
    ///     Ok(LookupRequest::new(vec![Run::text("Printer")], en, de)),
    /// ];
    /// let answers: Vec<_> = memory.lookup_batch(items).collect();
    /// assert_eq!(answers[0].as_ref().map(|a| a.matches.len()).ok(), Some(1));
    /// assert!(answers[1].is_err());
    /// assert!(answers[2].is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Per item: the caller's error, or as [`lookup`](Self::lookup) and
    /// [`warm`](Self::warm).
    pub fn lookup_batch<'m, I, E>(
        &'m self,
        requests: I,
    ) -> impl Iterator<Item = std::result::Result<LookupAnswer, E>> + 'm
    where
        I: IntoIterator<Item = std::result::Result<LookupRequest, E>>,
        I::IntoIter: 'm,
        E: From<cmem_core::Error>,
    {
        read::lookup_batch(self, requests)
    }

    /// Looks every request up on `threads` threads (0: the available parallelism) and
    /// returns the results in the order of `requests`. The candidate index of each
    /// source locale is brought up to date first, once; the threads then take the next
    /// request as they finish one, so a few slow lookups do not hold the others back.
    /// A binding that cannot run Rust threads of its own (a Python caller) gets the
    /// engine's parallelism through this one call.
    ///
    /// ```
    /// use cmem::{LookupRequest, Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// memory.import_reader("ui.jsonl", r#"{"source":"Print","target":"Drucken","source_locale":"en","target_locale":"de"}"#.as_bytes())?;
    /// let requests = vec![
    ///     LookupRequest::from_tags(cmem::prepare_query(cmem::QueryText::Plain("Print"), None)?, "en", "de")?,
    ///     LookupRequest::from_tags(cmem::prepare_query(cmem::QueryText::Plain("Printer"), None)?, "en", "fr")?,
    /// ];
    /// let results = memory.lookup_many(&requests, 2);
    /// assert_eq!(results[0].as_ref().map(Vec::len).ok(), Some(1));
    /// assert_eq!(results[1].as_ref().map(Vec::len).ok(), Some(0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Per request: as [`lookup`](Self::lookup), or the warm-up of its source locale
    /// failing ([`warm`](Self::warm)).
    pub fn lookup_many(&self, requests: &[LookupRequest], threads: usize) -> Vec<Result<Vec<Match>>> {
        read::lookup_many(self, requests, threads)
    }
}
