//! The locale pairs a server serves ([`Pairs`], `cmem serve --pairs en-de,en-fr`): several
//! servers on one memory, each answering some of its pairs, behind a reverse proxy that
//! routes by the pair a request names (docs/operators.md, "Serving pairs apart").
//!
//! A request names a pair when it gives a source and a target locale: amaGama's
//! `/tmserver/{source}/{target}/…`, the `source_locale` and `target_locale` of
//! `/v1/lookup`, `/v1/lookup/batch` and `/v1/context`, the variants of an entry written,
//! `from` and `to` of an import or export, `locale` and `to` of a search. A pair this
//! server does not serve is answered `421 Misdirected Request` ([`App::check_pair`]),
//! the body naming the pairs it does serve. A pair is served when both its locales fit
//! a served pair's as a lookup's locales fit stored ones ([`Locale::fit`]: `en-US` to
//! `de-CH` is served by `en-de`), so a request is refused exactly when its lookup
//! would use no entry of a served pair.
//!
//! A proxy cannot read JSON bodies: the `/v1` routes are also served under
//! `/p/{source}/{target}/v1/…`, whose path names the pair ([`prefixed`]). The body's
//! locales must then be the path's (else `400`).

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use cmem::{Locale, NewEntry, Stats};
use serde_json::{json, Value};
use tower_service::Service as _;

use crate::app::App;
use crate::error::ApiError;

/// One locale pair: lookups from `source` to `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The locale looked up from.
    pub source: Locale,
    /// The locale translated to.
    pub target: Locale,
}

impl Pair {
    /// A pair of two locales.
    pub fn new(source: Locale, target: Locale) -> Pair {
        Pair { source, target }
    }

    /// Reads `SOURCE-TARGET` (`en-de`) or, when a tag has subtags of its own,
    /// `SOURCE:TARGET` (`en-US:de`): `en-US-de` could be `en` to `us-DE` as well, and is
    /// refused when it reads two ways.
    ///
    /// ```
    /// use cmem_server::Pair;
    ///
    /// let p: Pair = "en-de".parse().unwrap();
    /// assert_eq!((p.source.as_str(), p.target.as_str()), ("en", "de"));
    /// let p: Pair = "pt-BR:en".parse().unwrap();
    /// assert_eq!((p.source.as_str(), p.target.as_str()), ("pt-BR", "en"));
    /// assert!("en".parse::<Pair>().unwrap_err().contains("SOURCE-TARGET"));
    /// assert!("en-US-de".parse::<Pair>().unwrap_err().contains("en-US:de"));
    /// ```
    ///
    /// # Errors
    /// Why the text is no pair, and how to write one.
    pub fn parse(text: &str) -> Result<Pair, String> {
        let text = text.trim();
        let how = "write a pair as SOURCE-TARGET, such as en-de, or SOURCE:TARGET when a tag has a region, such as en-US:de";
        let pair = |s: &str, t: &str| -> Result<Pair, String> {
            let source = Locale::parse(s).map_err(|e| format!("pair {text:?}: {}", e.message()))?;
            let target = Locale::parse(t).map_err(|e| format!("pair {text:?}: {}", e.message()))?;
            // One language in one script: a lookup would match the query against itself.
            if source.fit(&target).is_some() {
                return Err(format!(
                    "pair {text:?} has the same language on both sides; a pair's locales differ in language or script"
                ));
            }
            Ok(Pair { source, target })
        };
        if text.is_empty() {
            return Err(format!("an empty pair; {how}"));
        }
        if let Some((s, t)) = text.split_once(':') {
            return pair(s, t);
        }
        // Every split at a hyphen that leaves a locale on each side.
        let readings: Vec<Pair> =
            text.match_indices('-').filter_map(|(at, _)| pair(&text[..at], &text[at + 1..]).ok()).collect();
        match readings.as_slice() {
            [one] => Ok(one.clone()),
            [] if !text.contains('-') => Err(format!("{text:?} is one locale, not a pair; {how}")),
            [] => {
                // The error of the first split, which names the tag at fault.
                let (s, t) = text.split_once('-').unwrap_or((text, ""));
                Err(pair(s, t).err().unwrap_or_else(|| format!("{text:?} is no pair; {how}")))
            }
            several => {
                let ways: Vec<String> = several.iter().map(Pair::colon).collect();
                Err(format!(
                    "pair {text:?} reads as {}; write it with a colon, such as {}",
                    ways.join(" or "),
                    ways[ways.len() - 1]
                ))
            }
        }
    }

    /// `SOURCE:TARGET`, which always reads back as this pair.
    fn colon(&self) -> String {
        format!("{}:{}", self.source, self.target)
    }

    /// Whether a request from `source` to `target` is this pair's: each locale fits this
    /// pair's as a lookup's fits a stored one ([`Locale::fit`]).
    pub fn covers(&self, source: &Locale, target: &Locale) -> bool {
        source.fit(&self.source).is_some() && target.fit(&self.target).is_some()
    }

    /// Whether an entry of variants in `locales` holds this pair: a variant of its
    /// source and another of its target.
    fn held_by(&self, locales: &[&Locale]) -> bool {
        locales.iter().enumerate().any(|(i, s)| {
            s.fit(&self.source).is_some()
                && locales.iter().enumerate().any(|(j, t)| i != j && t.fit(&self.target).is_some())
        })
    }

    fn to_json(&self) -> Value {
        json!({ "source": self.source.as_str(), "target": self.target.as_str() })
    }
}

impl FromStr for Pair {
    type Err = String;

    fn from_str(s: &str) -> Result<Pair, String> {
        Pair::parse(s)
    }
}

/// `en-de`, or `en-US:de` when a hyphen would not read back.
impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.source.as_str().contains('-') || self.target.as_str().contains('-') {
            write!(f, "{}", self.colon())
        } else {
            write!(f, "{}-{}", self.source, self.target)
        }
    }
}

/// The pairs a server serves: at least one, each once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairs(Vec<Pair>);

impl Pairs {
    /// Reads a comma-separated list of pairs (`en-de,en-fr`; each as [`Pair::parse`]).
    ///
    /// ```
    /// use cmem_server::Pairs;
    ///
    /// assert_eq!(Pairs::parse("en-de, en-fr").unwrap().to_string(), "en-de, en-fr");
    /// assert!(Pairs::parse("en-de,,en-fr").unwrap_err().contains("pair 2 of \"en-de,,en-fr\" is empty"));
    /// ```
    ///
    /// # Errors
    /// The first pair that does not read, by its place in the list.
    pub fn parse(list: &str) -> Result<Pairs, String> {
        let mut pairs: Vec<Pair> = Vec::new();
        for (i, item) in list.split(',').enumerate() {
            if item.trim().is_empty() {
                return Err(format!(
                    "pair {} of {list:?} is empty; separate pairs by one comma, such as en-de,en-fr",
                    i + 1
                ));
            }
            let pair = Pair::parse(item)?;
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        Ok(Pairs(pairs))
    }

    /// The pairs, in the order given.
    pub fn pairs(&self) -> &[Pair] {
        &self.0
    }

    /// Whether a request from `source` to `target` is served ([`Pair::covers`]).
    pub fn covers(&self, source: &Locale, target: &Locale) -> bool {
        self.0.iter().any(|p| p.covers(source, target))
    }

    /// Whether a source locale held is one a served pair's lookups read, so its candidate
    /// index is worth building.
    pub fn reads_source(&self, source: &Locale) -> bool {
        self.0.iter().any(|p| source.fit(&p.source).is_some())
    }

    /// The pairs as a store takes them, so that its candidate index holds their keys
    /// alone ([`ServedPairs`](cmem::ServedPairs)).
    pub fn served(&self) -> cmem::ServedPairs {
        cmem::ServedPairs::new(self.0.iter().map(|p| (p.source.clone(), p.target.clone())))
    }

    /// The pairs as JSON objects `{source, target}`.
    pub(crate) fn to_json(&self) -> Value {
        Value::Array(self.0.iter().map(Pair::to_json).collect())
    }
}

impl FromStr for Pairs {
    type Err = String;

    fn from_str(s: &str) -> Result<Pairs, String> {
        Pairs::parse(s)
    }
}

/// `en-de, en-fr`.
impl fmt::Display for Pairs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.0.iter().map(Pair::to_string).collect();
        write!(f, "{}", names.join(", "))
    }
}

/// The pair a request's path names (`/p/{source}/{target}/v1/…`), which its body must
/// agree with.
#[derive(Debug, Clone)]
pub(crate) struct PathPair(pub(crate) Pair);

impl App {
    /// Whether this server answers requests from `source` to `target`: every pair
    /// without `--pairs`.
    pub(crate) fn serves(&self, source: &Locale, target: &Locale) -> bool {
        self.config.pairs.as_ref().is_none_or(|p| p.covers(source, target))
    }

    /// `421` unless this server answers requests from `source` to `target`; the body
    /// names the pairs it serves.
    pub(crate) fn check_pair(&self, source: &Locale, target: &Locale) -> Result<(), ApiError> {
        match &self.config.pairs {
            Some(pairs) if !pairs.covers(source, target) => Err(not_served(pairs, source, target, true)),
            _ => Ok(()),
        }
    }

    /// The pair of a request's body (`source`, `target`, read from fields `fields`):
    /// `400` when the path names another, `421` when this server does not serve it.
    pub(crate) fn check_request_pair(
        &self,
        path: Option<&PathPair>,
        (source, target): (&Locale, &Locale),
        fields: (&str, &str),
    ) -> Result<(), ApiError> {
        if let Some(PathPair(pair)) = path {
            for (given, wanted, field) in [(source, &pair.source, fields.0), (target, &pair.target, fields.1)]
            {
                if given.fit(wanted).is_none() {
                    return Err(ApiError::bad_request(format!(
                        "{field} is {given} but the path names pair {pair}; send the request under /p/{}/{}/ or give {field} {wanted}",
                        if field == fields.0 { given } else { &pair.source },
                        if field == fields.1 { given } else { &pair.target },
                    ))
                    .in_field(field));
                }
            }
        }
        self.check_pair(source, target)
    }

    /// Entries to write: each must hold the path's pair (else `400`), or without one a
    /// pair this server serves (else `421`), naming the entry by its place (`entries[i]`,
    /// or `entry` for one alone).
    pub(crate) fn check_entries(
        &self,
        path: Option<&PathPair>,
        entries: &[NewEntry],
    ) -> Result<(), ApiError> {
        for (index, entry) in entries.iter().enumerate() {
            let field = if entries.len() == 1 { "entry".to_owned() } else { format!("entries[{index}]") };
            let locales: Vec<&Locale> = entry.variants.iter().map(|v| &v.locale).collect();
            let names: Vec<&str> = locales.iter().map(|l| l.as_str()).collect();
            let names = names.join(", ");
            if let Some(PathPair(pair)) = path {
                if !pair.held_by(&locales) {
                    return Err(ApiError::bad_request(format!(
                        "{field} has variants {names}: no {} variant beside a {} one, but the path names pair {pair}; send it under the path of one of its pairs",
                        pair.source, pair.target
                    ))
                    .with_details(json!({ "field": field, "index": index })));
                }
            }
            if let Some(pairs) = &self.config.pairs {
                if !pairs.pairs().iter().any(|p| p.held_by(&locales)) {
                    return Err(ApiError::new(
                        StatusCode::MISDIRECTED_REQUEST,
                        "pair_not_served",
                        format!(
                            "{field} has variants {names}, which hold none of the pairs this server serves ({pairs}); send it to the server of its pair"
                        ),
                    )
                    .with_details(json!({ "field": field, "index": index, "pairs": pairs.to_json() })));
                }
            }
        }
        Ok(())
    }

    /// `stats` with only the pairs this server serves; the totals are the memory's.
    pub(crate) fn served_stats(&self, mut stats: Stats) -> Stats {
        stats.pairs.retain(|p| self.serves(&p.source, &p.target));
        stats
    }
}

/// The `421` of a pair not served, naming the pairs served when `tell` (a request not
/// yet authorized is not told them when reads need a token).
fn not_served(pairs: &Pairs, source: &Locale, target: &Locale, tell: bool) -> ApiError {
    let asked = json!({ "source": source.as_str(), "target": target.as_str() });
    if !tell {
        return ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "pair_not_served",
            format!("this server does not serve {source} to {target}"),
        )
        .with_details(json!({ "asked": asked }));
    }
    ApiError::new(
        StatusCode::MISDIRECTED_REQUEST,
        "pair_not_served",
        format!("this server does not serve {source} to {target}; it serves {pairs}"),
    )
    .with_details(json!({ "asked": asked, "pairs": pairs.to_json() }))
}

/// `/p/{source}/{target}/v1/…`: the pair checked (`421` when not served, `400` when a
/// locale does not read), then the request answered by `inner` as `/v1/…`, its pair
/// kept for the handlers to compare with the body's ([`PathPair`]). The request goes to
/// `inner` as a new one (method, target, headers, body and the client's address), so
/// that the route it matches there reads its own path captures only.
pub(crate) async fn prefixed(app: Arc<App>, mut inner: Router, request: Request) -> Response {
    match rewrite(&app, request) {
        // A router is always ready.
        Ok(request) => match inner.call(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        },
        Err(e) => e.into_response(),
    }
}

fn rewrite(app: &App, request: Request) -> Result<Request, ApiError> {
    let path = request.uri().path().to_owned();
    let mut parts = path.trim_start_matches('/').splitn(4, '/');
    let (_, source, target, rest) = (parts.next(), parts.next(), parts.next(), parts.next().unwrap_or(""));
    let locale = |tag: Option<&str>, field: &str| {
        // A locale tag has no escapes, but a client may escape its `-`.
        let tag = percent_encoding::percent_decode_str(tag.unwrap_or_default()).decode_utf8_lossy();
        Locale::parse(&tag).map_err(|e| ApiError::from(e).in_field(field))
    };
    let (source, target) = (locale(source, "source")?, locale(target, "target")?);
    if !(rest == "v1" || rest.starts_with("v1/")) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no_such_route",
            format!("no route {path}: below /p/{{source}}/{{target}}/ are the /v1 routes only"),
        ));
    }
    // Before the request is authorized: the pairs served are named only where reads
    // are open.
    if let Some(pairs) = app.config.pairs.as_ref().filter(|p| !p.covers(&source, &target)) {
        return Err(not_served(pairs, &source, &target, !app.config.read_needs_token));
    }
    let query = request.uri().query().map(|q| format!("?{q}")).unwrap_or_default();
    let uri: Uri = format!("/{rest}{query}")
        .parse()
        .map_err(|_| ApiError::bad_request(format!("the request target {path} does not read")))?;
    let client = request.extensions().get::<ConnectInfo<std::net::SocketAddr>>().cloned();
    let (parts, body) = request.into_parts();
    let mut forwarded = Request::new(body);
    *forwarded.method_mut() = parts.method;
    *forwarded.uri_mut() = uri;
    *forwarded.version_mut() = parts.version;
    *forwarded.headers_mut() = parts.headers;
    if let Some(client) = client {
        forwarded.extensions_mut().insert(client);
    }
    forwarded.extensions_mut().insert(PathPair(Pair::new(source, target)));
    Ok(forwarded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(tag: &str) -> Locale {
        Locale::parse(tag).unwrap()
    }

    #[test]
    fn pairs_read_with_a_hyphen_or_a_colon_and_bad_ones_say_how() {
        let p = Pairs::parse("en-de,en-fr,en-US:ja").unwrap();
        assert_eq!(p.to_string(), "en-de, en-fr, en-US:ja");
        for (bad, says) in [
            ("en", "one locale, not a pair"),
            ("", "is empty"),
            ("en-de,,x", "pair 2 of \"en-de,,x\" is empty"),
            ("en-de,", "pair 2"),
            ("en-en", "same language"),
            ("en-US:en-GB", "same language"),
            ("en-US-de", "write it with a colon"),
            ("english-german", "invalid locale"),
            ("en:", "invalid locale"),
        ] {
            let e = Pairs::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn a_pair_covers_what_the_lookup_fallback_finds() {
        let p = Pair::parse("en-de").unwrap();
        assert!(p.covers(&l("en"), &l("de")));
        assert!(p.covers(&l("en-US"), &l("de-CH")));
        assert!(!p.covers(&l("en"), &l("fr")));
        assert!(!p.covers(&l("de"), &l("en")));
        assert!(p.held_by(&[&l("de-DE"), &l("en-GB")]));
        assert!(!p.held_by(&[&l("en"), &l("ja")]));
        assert!(Pair::parse("sr-Cyrl-sr-Latn").is_ok(), "another script");
        let pt = Pair::parse("en:pt-BR").unwrap();
        assert!(pt.covers(&l("en"), &l("pt-PT")), "another region, as lookups fall back");
        assert!(!Pair::parse("en:zh-TW").unwrap().covers(&l("en"), &l("zh-CN")));
    }
}
