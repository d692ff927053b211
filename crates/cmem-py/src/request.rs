//! A lookup's arguments as Python gives them, turned into the engine's requests.

use cmem::{AttributePenalty, Locale, LookupOptions, LookupRequest, Point, QueryContext, Recognizer};
use pyo3::prelude::*;

use crate::convert::from_py;
use crate::errors::{self, InvalidInputError};

/// The options every lookup takes, checked once for a whole batch.
#[derive(Debug, Clone)]
pub(crate) struct Lookup {
    pub(crate) from: Locale,
    pub(crate) to: Locale,
    pub(crate) options: LookupOptions,
}

impl Lookup {
    /// The locales and options of a lookup; every bad value is named.
    pub(crate) fn new(
        source: &str,
        target: &str,
        threshold: f64,
        limit: usize,
        point: Option<&str>,
        penalties: Option<Vec<String>>,
    ) -> PyResult<Lookup> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(InvalidInputError::new_err(format!(
                "threshold {threshold} is not within 0–1 (70 % is 0.7)"
            )));
        }
        if limit == 0 {
            return Err(InvalidInputError::new_err("limit 0 asks for no match; give 1 or more"));
        }
        let mut options = LookupOptions::default();
        options.threshold = threshold;
        options.limit = limit;
        if let Some(point) = point {
            options.point = Some(Point::parse(point).map_err(|e| errors::core_at(&e, "point"))?);
        }
        for (i, rule) in penalties.unwrap_or_default().iter().enumerate() {
            let p = rule
                .parse::<AttributePenalty>()
                .map_err(|e| errors::core_at(&e, &format!("penalties[{i}]")))?;
            options.penalties.push(p);
        }
        let (from, to) = pair(source, target)?;
        Ok(Lookup { from, to, options })
    }

    /// The request for `text`, its codes recognized by `recognizer`.
    pub(crate) fn request(
        &self,
        text: &str,
        recognizer: Option<&Recognizer>,
        context: QueryContext,
    ) -> cmem::Result<LookupRequest> {
        let runs = cmem::prepare_query(cmem::QueryText::Plain(text), recognizer)?;
        Ok(LookupRequest::new(runs, self.from.clone(), self.to.clone())
            .options(self.options.clone())
            .context(context))
    }
}

/// The context of a lookup (`None`: unknown); `at` names the argument in errors.
pub(crate) fn context(arg: Option<&Bound<'_, PyAny>>, at: &str) -> PyResult<QueryContext> {
    let Some(arg) = arg.filter(|a| !a.is_none()) else { return Ok(QueryContext::default()) };
    let json = from_py(arg, at)?;
    let parsed: cmem::NeighboursBody = serde_json::from_value(json).map_err(|e| {
        InvalidInputError::new_err(format!(
            "{at}: {e}; give a dict with \"key\" and both \"pre\" and \"post\" (the neighbours' source texts)"
        ))
    })?;
    parsed.parse().map_err(|e| errors::core_at(&e, at))
}

/// The locale pair `source` → `target`, each argument named when bad.
pub(crate) fn pair(source: &str, target: &str) -> PyResult<(Locale, Locale)> {
    Ok((
        Locale::parse(source).map_err(|e| errors::core_at(&e, "source"))?,
        Locale::parse(target).map_err(|e| errors::core_at(&e, "target"))?,
    ))
}

/// An optional locale argument.
pub(crate) fn locale(tag: Option<&str>, at: &str) -> PyResult<Option<Locale>> {
    tag.map(|t| Locale::parse(t).map_err(|e| errors::core_at(&e, at))).transpose()
}

/// An optional point argument.
pub(crate) fn point(text: Option<&str>) -> PyResult<Option<Point>> {
    text.map(|p| Point::parse(p).map_err(|e| errors::core_at(&e, "point"))).transpose()
}
