//! The read verbs [`Memory`] and [`Memories`] share, written once: a lookup of plain
//! text, a request's [`LookupAnswer`], a lazy batch of answers and a batch on several
//! threads. Each is generic over a [`Reader`], which says only what differs between one
//! memory and several: how a request is looked up, how its matches are viewed, how the
//! candidate indexes are warmed and which recognizer reads plain text. The public
//! methods of both types call these.

use std::collections::HashSet;

use cmem_core::{
    prepare_query, Error, ErrorKind, Locale, LookupOptions, LookupRequest, Match, MatchView, QueryText,
    Recognizer, Result,
};

use crate::answer::LookupAnswer;
use crate::memory::Memory;
use crate::several::Memories;

/// What looks up: one memory, or several as one.
pub(crate) trait Reader: Sync {
    /// A match as this reader returns it: a [`Match`], or of several memories the
    /// name of the match's memory beside it.
    type Found<'r>: Send
    where
        Self: 'r;

    /// The matches of `req`, best first.
    fn find(&self, req: &LookupRequest) -> Result<Vec<Self::Found<'_>>>;

    /// The view clients get of a match.
    fn view(found: &Self::Found<'_>) -> MatchView;

    /// Brings the candidate index (of every memory) of `source` up to date.
    fn warm_up(&self, source: &Locale) -> Result<()>;

    /// The recognizer plain text is read with.
    fn text_recognizer(&self) -> Result<Option<&Recognizer>>;
}

impl Reader for Memory {
    type Found<'r> = Match;

    fn find(&self, req: &LookupRequest) -> Result<Vec<Match>> {
        self.lookup(req)
    }

    fn view(found: &Match) -> MatchView {
        MatchView::of(found)
    }

    fn warm_up(&self, source: &Locale) -> Result<()> {
        self.warm(source)
    }

    fn text_recognizer(&self) -> Result<Option<&Recognizer>> {
        self.recognizer()
    }
}

impl Reader for Memories {
    type Found<'r> = (&'r str, Match);

    fn find(&self, req: &LookupRequest) -> Result<Vec<(&str, Match)>> {
        self.lookup(req)
    }

    fn view((name, m): &(&str, Match)) -> MatchView {
        MatchView::of_memory(m, name)
    }

    fn warm_up(&self, source: &Locale) -> Result<()> {
        self.warm(source)
    }

    /// The first memory's: its imports' rule set.
    fn text_recognizer(&self) -> Result<Option<&Recognizer>> {
        self.members()[0].memory.recognizer()
    }
}

/// Looks up plain text from locale `from` to `to` (tags), recognized with the reader's
/// recognizer, with `options`.
pub(crate) fn lookup_text<'r, R: Reader>(
    reader: &'r R,
    text: &str,
    (from, to): (&str, &str),
    options: LookupOptions,
) -> Result<Vec<R::Found<'r>>> {
    let runs = prepare_query(QueryText::Plain(text), reader.text_recognizer()?)?;
    let req = LookupRequest::new(runs, Locale::parse(from)?, Locale::parse(to)?).options(options);
    reader.find(&req)
}

/// Looks `req` up and returns the [`LookupAnswer`], timed.
pub(crate) fn answer<R: Reader>(reader: &R, req: &LookupRequest) -> Result<LookupAnswer> {
    LookupAnswer::timed(req, || Ok(reader.find(req)?.iter().map(R::view).collect()))
}

/// Answers many lookups, lazily and in order, the candidate indexes of each source
/// locale brought up to date before its first lookup (and not counted in its time); an
/// item that is the caller's error comes back in its place.
pub(crate) fn lookup_batch<'m, R, I, E>(
    reader: &'m R,
    requests: I,
) -> impl Iterator<Item = std::result::Result<LookupAnswer, E>> + 'm
where
    R: Reader,
    I: IntoIterator<Item = std::result::Result<LookupRequest, E>>,
    I::IntoIter: 'm,
    E: From<Error>,
{
    let mut warmed: HashSet<Locale> = HashSet::new();
    requests.into_iter().map(move |item| {
        let req = item?;
        if !warmed.contains(&req.source_locale) {
            reader.warm_up(&req.source_locale)?;
            warmed.insert(req.source_locale.clone());
        }
        Ok(answer(reader, &req)?)
    })
}

/// Looks every request up on `threads` threads (0: the available parallelism), the
/// candidate indexes of each source locale brought up to date first, once; the results
/// in the order of `requests`.
pub(crate) fn lookup_many<'r, R: Reader>(
    reader: &'r R,
    requests: &[LookupRequest],
    threads: usize,
) -> Vec<Result<Vec<R::Found<'r>>>> {
    let mut warm_failed: Vec<(Locale, Error)> = Vec::new();
    let mut warmed: HashSet<&Locale> = HashSet::new();
    for req in requests {
        if warmed.insert(&req.source_locale) {
            if let Err(e) = reader.warm_up(&req.source_locale) {
                warm_failed.push((req.source_locale.clone(), e));
            }
        }
    }
    // Each request of a locale whose warm-up failed gets that error, as one line: an
    // error and its cause cannot be shared.
    let failed = |req: &LookupRequest| {
        warm_failed
            .iter()
            .find(|(l, _)| *l == req.source_locale)
            .map(|(_, e)| Error::new(e.kind(), e.message_and_causes()))
    };
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        n => n,
    };
    let results = cmem_formats::in_parallel(requests.len(), threads, &|| false, &|i| {
        let req = &requests[i];
        match failed(req) {
            Some(e) => Err(e),
            None => reader.find(req),
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| Err(Error::new(ErrorKind::Store, "a lookup thread stopped without a result")))
        })
        .collect()
}
