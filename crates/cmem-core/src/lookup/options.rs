//! What a lookup is asked: the request and its options.

use crate::repair::words::RepairBands;

use crate::error::Result;
use crate::model::context::{AttributePenalty, QueryContext};
use crate::model::locale::Locale;
use crate::model::point::Point;
use crate::model::run::Run;

/// Lookup options.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LookupOptions {
    /// The least score returned, 0–1; default 0.70.
    pub threshold: f64,
    /// At most this many matches; default 10.
    pub limit: usize,
    /// The point the caller asks from; settles differing exact answers.
    pub point: Option<Point>,
    /// The longest query accepted, in characters; default 10,000. Longer is an error.
    pub max_query_chars: usize,
    /// How many fuzzy candidates are scored before the search narrows to what can still
    /// tie with or beat the best match found; default `usize::MAX`, never. Below the
    /// best match the list then holds the best of the candidates scored, which depends
    /// on the order a store offers them in, so two stores (or a store's two candidate
    /// paths) may differ there; without it the list is the top `limit` of the
    /// candidates offered, whatever their order. A caller who reads only the best match
    /// may set one (DESIGN.md §4.5 has what it saves and costs).
    pub verify_budget: usize,
    /// How many fuzzy candidates a store offers at most from one index for one query
    /// key; default 150. An index of more than a million keys offers this many times the
    /// square root of its size in millions (300 at four million keys): a larger memory
    /// holds more near-copies of each text, which would otherwise fill the limit
    /// (DESIGN.md §4.4). Stores offer the most promising candidates first (most shared
    /// trigrams for their length), so on real data the best match is found long before
    /// this: the benchmark measures its recall against an exhaustive scan (docs/matching.md §7).
    /// Once a store has seen more keys than this, it may also leave unread the query's
    /// most common trigrams when a key sharing none of the others could reach the
    /// threshold only narrowly (DESIGN.md §4.6). Past the limit, it still offers every key
    /// that could tie with the best match found, so the ties at the top are complete.
    /// `usize::MAX`: never stop early; the best match is then exact by construction.
    pub max_candidates: usize,
    /// How much of its index a store reads for one query key before it ranks what it has
    /// seen (posting entries for the trigram index); default unlimited. The rarest
    /// trigrams of the query are read first, so a limit leaves the most common ones
    /// unread and keys that share none of the rarer trigrams are not offered: faster,
    /// but on real data it costs recall (the edited words of a query are often its
    /// rarest trigrams), so it is off unless a caller trades recall for speed.
    /// Unstable: an experiment knob no default path uses (the benchmark's); it may change
    /// or go in any release.
    pub scan_limit: usize,
    /// Points off matches whose stored entry has an attribute (`origin:mt=10`), charged
    /// as penalties of the attribute's kind; default none (docs/matching.md §4).
    pub penalties: Vec<AttributePenalty>,
    /// In which score bands a fuzzy match's changed words are repaired from the memory's
    /// word model ([`crate::repair::words`]), when the store has one for the locale pair;
    /// default: the bands where the benchmark found more repaired targets nearer the
    /// translation shipped than farther from it (docs/performance.md).
    pub word_repair: RepairBands,
    /// The lowest scores of the bands a caller sorts matches into (0.50, 0.75, 0.85,
    /// 0.95, 1.0 for analyze's default bands); default none. With floors, the lookup
    /// answers which band the best matches fall in rather than which they are: once
    /// `limit` matches are found, the fuzzy search looks only for one that reaches the
    /// next floor above the `limit`-th best found, instead of proving that none beats it
    /// within its band. The matches returned then lie in the bands of the best ones,
    /// but may not be the best of their band. Costs little where recycle's threshold
    /// would, where proving the best of a low band costs the most.
    pub score_floors: Vec<f64>,
}

impl Default for LookupOptions {
    fn default() -> Self {
        LookupOptions {
            threshold: 0.70,
            limit: 10,
            point: None,
            max_query_chars: 10_000,
            verify_budget: usize::MAX,
            max_candidates: 150,
            scan_limit: usize::MAX,
            penalties: Vec::new(),
            word_repair: RepairBands::DEFAULT,
            score_floors: Vec::new(),
        }
    }
}

crate::setters!(LookupOptions {
    threshold: f64,
    limit: usize,
    word_repair: RepairBands,
    /// `usize::MAX`: the whole list exact.
    verify_budget: usize,
    /// `usize::MAX`: no limit.
    max_candidates: usize,
    /// `usize::MAX`: no limit.
    scan_limit: usize,
    max_query_chars: usize,
    penalties: Vec<AttributePenalty>,
    score_floors: Vec<f64>,
});

impl LookupOptions {
    /// Sets the caller's point.
    #[must_use]
    pub fn point(mut self, point: Point) -> Self {
        self.point = Some(point);
        self
    }

    /// Sets the caller's point or, with `None`, none: for a point passed along as given.
    #[must_use]
    pub fn maybe_point(mut self, point: Option<Point>) -> Self {
        self.point = point;
        self
    }

    /// Exact in every position at any memory size: no budget, no candidate or scan limit.
    #[must_use]
    pub fn exhaustive(self) -> Self {
        self.verify_budget(usize::MAX).max_candidates(usize::MAX).scan_limit(usize::MAX)
    }
}

/// One lookup.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LookupRequest {
    /// The segment to find.
    pub source: Vec<Run>,
    /// Its locale.
    pub source_locale: Locale,
    /// The locale of the answers wanted.
    pub target_locale: Locale,
    /// Threshold, limit, point.
    pub options: LookupOptions,
    /// Where the segment stands in its document, for context matches; default: unknown.
    pub context: QueryContext,
}

crate::setters!(LookupRequest { options: LookupOptions, context: QueryContext });

impl LookupRequest {
    /// A lookup with default options.
    pub fn new(source: Vec<Run>, source_locale: Locale, target_locale: Locale) -> Self {
        LookupRequest {
            source,
            source_locale,
            target_locale,
            options: LookupOptions::default(),
            context: QueryContext::default(),
        }
    }

    /// A lookup from locale `from` to `to` given as tags (`"en"`, `"de-AT"`), with default
    /// options.
    ///
    /// ```
    /// use cmem_core::{LookupRequest, Run};
    ///
    /// let req = LookupRequest::from_tags(vec![Run::text("Save")], "en", "de-AT")?;
    /// assert_eq!(req.target_locale.as_str(), "de-AT");
    /// assert!(LookupRequest::from_tags(vec![Run::text("Save")], "en", "not a tag").is_err());
    /// # Ok::<(), cmem_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::InvalidLocale`](crate::ErrorKind::InvalidLocale) for a tag that is
    /// not BCP 47, naming it.
    pub fn from_tags(source: Vec<Run>, from: &str, to: &str) -> Result<Self> {
        Ok(LookupRequest::new(source, Locale::parse(from)?, Locale::parse(to)?))
    }
}
