//! The pool of example candidates: from the store's word index, or, without one, from
//! its concordance search (see the [module docs](super)).

use std::collections::{HashMap, HashSet};

use crate::align::text_of;
use crate::error::Result;
use crate::lookup::{lookup, LookupRequest, Match};
use crate::model::entry::{Entry, EntryId};
use crate::model::run::surface_text;
use crate::repair::words::RepairBands;
use crate::store::{ContentMemory, ContentMemoryExt, SearchQuery, WordQuery};

use super::{ContextRequest, Units};

/// Each unit's weight.
pub(super) type Weights = HashMap<String, f64>;

/// An example candidate.
#[derive(Debug)]
pub(super) struct Candidate {
    pub(super) id: EntryId,
    /// Its source and target as shown (codes as their markup), once read: a candidate
    /// the word index offered is read only when chosen.
    pub(super) texts: Option<(String, String)>,
    pub(super) match_score: Option<f64>,
    pub(super) units: Units,
    /// Offered by the fuzzy lookup or the search for any word: part of the sample
    /// rarity is measured on (without a word index).
    pub(super) sampled: bool,
    /// Read and found gone, or without the pair: never chosen.
    pub(super) gone: bool,
    /// The segment's expected target words its target holds (see
    /// [`expected_words`](super::expected_words)), once read.
    pub(super) expected: HashSet<String>,
}

impl Candidate {
    pub(super) fn of(entry: &Entry, req: &LookupRequest, match_score: Option<f64>) -> Option<Candidate> {
        let units = Units::of(&text_of(&entry.variant(&req.source_locale)?.runs));
        Candidate::with_units(entry, req, match_score, units)
    }

    /// The candidate of `entry` with its units read from the source's plain key, as the
    /// word index reads its texts.
    fn of_key(entry: &Entry, req: &LookupRequest, match_score: Option<f64>) -> Option<Candidate> {
        let units = Units::of(&crate::model::key::flatten_runs(&entry.variant(&req.source_locale)?.runs));
        Candidate::with_units(entry, req, match_score, units)
    }

    fn with_units(
        entry: &Entry,
        req: &LookupRequest,
        match_score: Option<f64>,
        units: Units,
    ) -> Option<Candidate> {
        Some(Candidate {
            id: entry.id,
            texts: Some(Candidate::texts_of(entry, req)?),
            match_score,
            units,
            sampled: true,
            gone: false,
            expected: HashSet::new(),
        })
    }

    /// The source and target of `entry` as shown (codes as their markup); `None` when
    /// it lacks either locale.
    pub(super) fn texts_of(entry: &Entry, req: &LookupRequest) -> Option<(String, String)> {
        let s = entry.variant(&req.source_locale)?;
        let t = entry.variant(&req.target_locale)?;
        Some((surface_text(&s.runs), surface_text(&t.runs)))
    }

    /// The characters of its source and target (0 until read).
    pub(super) fn size(&self) -> usize {
        self.texts.as_ref().map_or(0, |(s, t)| s.chars().count() + t.chars().count())
    }
}

/// The pool drawn from the store's word index (see [`crate::store::WordIndex`]), and the
/// units' weights from how many of the memory's texts hold each word; `None` when the
/// store has no word index. The candidates: the lookup's matches, the fuzzy lookup at the
/// pool threshold (when `pool_limit` asks for it), the texts BM25 ranks first for any of
/// the segment's words, and those of each word still uncovered, the rarest first.
pub(super) fn indexed_pool(
    store: &dyn ContentMemory,
    req: &ContextRequest,
    query: &Units,
    matches: &[Match],
) -> Result<Option<(Vec<Candidate>, Weights)>> {
    if store.capabilities().words.is_none() {
        return Ok(None);
    }
    let o = &req.options;
    let mut seen: HashSet<EntryId> = HashSet::new();
    let mut pool: Vec<Candidate> = Vec::new();
    for m in matches {
        if seen.insert(m.entry.id) {
            pool.extend(Candidate::of_key(&m.entry, &req.lookup, Some(m.score)));
        }
    }
    if o.pool_limit > 0 {
        for m in lookup(store, &pool_request(req))? {
            if seen.insert(m.entry.id) {
                pool.extend(Candidate::of_key(&m.entry, &req.lookup, Some(m.score)));
            }
        }
    }
    let mut distinct: Vec<String> = Vec::new();
    for w in &query.words {
        if !distinct.contains(w) {
            distinct.push(w.clone());
        }
    }
    // One-letter words are never searched alone; words the matches hold need no search.
    let covered: Vec<bool> = distinct
        .iter()
        .map(|w| w.chars().count() <= 1 || pool.iter().any(|c| c.units.set.contains(w)))
        .collect();
    let q = WordQuery {
        words: &distinct,
        source: &req.lookup.source_locale,
        target: &req.lookup.target_locale,
        best: o.any_hits,
        covered,
        alone: o.searches,
        alone_hits: o.search_hits,
    };
    let Some(answer) = store.word_search(&q)? else { return Ok(None) };
    for hit in answer.hits {
        if seen.insert(hit.entry) {
            pool.push(Candidate {
                id: hit.entry,
                texts: None,
                match_score: None,
                units: Units::of(&hit.key),
                sampled: hit.alone.is_none(),
                gone: false,
                expected: HashSet::new(),
            });
        }
    }
    let weights = query.global_weights(&distinct, answer.documents, &answer.frequencies);
    Ok(Some((pool, weights)))
}

/// The fuzzy lookup offering candidates: the segment's, at the pool threshold and limit.
fn pool_request(req: &ContextRequest) -> LookupRequest {
    let o = &req.options;
    let mut pool_req = req.lookup.clone();
    // Repairs change adapted targets, which examples do not show: not computed.
    pool_req.options = pool_req
        .options
        .clone()
        .threshold(o.pool_threshold)
        .limit(o.pool_limit.max(1))
        .word_repair(RepairBands::OFF);
    pool_req
}

/// The pool without a word index: the lookup's matches, the fuzzy lookup at the pool
/// threshold (when `pool_limit` asks for it), the store's word search for any of the
/// segment's words, then its word search for each word still uncovered, the longest first.
pub(super) fn candidates(
    store: &dyn ContentMemory,
    req: &ContextRequest,
    query: &Units,
    matches: &[Match],
) -> Result<Vec<Candidate>> {
    let o = &req.options;
    let pool_req = pool_request(req);
    let mut seen: HashSet<EntryId> = HashSet::new();
    let mut pool: Vec<Candidate> = Vec::new();
    for m in matches {
        if seen.insert(m.entry.id) {
            pool.extend(Candidate::of(&m.entry, &req.lookup, Some(m.score)));
        }
    }
    if o.pool_limit > 0 {
        for m in lookup(store, &pool_req)? {
            if seen.insert(m.entry.id) {
                pool.extend(Candidate::of(&m.entry, &req.lookup, Some(m.score)));
            }
        }
    }
    // The word search for any of the segment's words: what BM25 ranks first holds the
    // most of them, the rarest ones, in the shortest text.
    let mut distinct: Vec<&str> = Vec::new();
    for w in &query.words {
        if w.chars().count() > 1 && !distinct.contains(&w.as_str()) {
            distinct.push(w);
        }
    }
    if o.any_hits > 0 && !distinct.is_empty() {
        let mut q = SearchQuery::new(distinct.join(" "), req.lookup.source_locale.clone());
        q.limit = o.any_hits;
        q.any = true;
        for hit in store.search(&q)? {
            if seen.insert(hit.entry.id) {
                pool.extend(Candidate::of(&hit.entry, &req.lookup, None));
            }
        }
    }
    let mut uncovered: Vec<&String> = Vec::new();
    for w in &query.words {
        if w.chars().count() > 1 && !uncovered.contains(&w) && !pool.iter().any(|c| c.units.set.contains(w)) {
            uncovered.push(w);
        }
    }
    // Longest first: a long word is rarer, and its search cheaper, than a short one.
    uncovered.sort_by_key(|w| std::cmp::Reverse(w.chars().count()));
    for w in uncovered.into_iter().take(o.searches) {
        let mut q = SearchQuery::new(w.as_str(), req.lookup.source_locale.clone());
        q.limit = o.search_hits;
        for hit in store.search(&q)? {
            if seen.insert(hit.entry.id) {
                pool.extend(
                    Candidate::of(&hit.entry, &req.lookup, None).map(|c| Candidate { sampled: false, ..c }),
                );
            }
        }
    }
    Ok(pool)
}
