//! Points: where an answer was approved, a path `profile/channel/collection`
//! (docs/matching.md §3–4).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorKind};

/// A validated point: 0 segments (the root: approved nowhere in particular) or 1 to 3
/// non-empty segments `profile/channel/collection`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Point(String);

impl Point {
    /// The root point (empty): a seed or an import.
    pub fn root() -> Point {
        Point(String::new())
    }

    /// Parses `profile[/channel[/collection]]`; the empty string is the root.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidPoint`] for more than three segments, an empty segment, or a
    /// segment with white space or control characters.
    pub fn parse(text: &str) -> Result<Point, Error> {
        if text.is_empty() {
            return Ok(Point::root());
        }
        let bad = |why: &str| Error::new(ErrorKind::InvalidPoint, format!("invalid point {text:?}: {why}"));
        let segments: Vec<&str> = text.split('/').collect();
        if segments.len() > 3 {
            return Err(bad("more than 3 segments (profile/channel/collection)"));
        }
        for s in &segments {
            if s.is_empty() {
                return Err(bad("empty segment"));
            }
            if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(bad("white space or control character in a segment"));
            }
        }
        Ok(Point(text.to_owned()))
    }

    /// The text form; empty for the root.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for the root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The segments, outermost first; none for the root.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// Number of segments (0 for the root).
    pub fn depth(&self) -> usize {
        self.segments().count()
    }
}

/// The path length between two nodes of the tree root → profile → channel → collection.
pub fn point_distance(a: &Point, b: &Point) -> usize {
    let common = a.segments().zip(b.segments()).take_while(|(x, y)| x == y).count();
    a.depth() + b.depth() - 2 * common
}

/// Which of two answers is nearer the caller: `Less` when `a` is nearer. Nearer point
/// first; at equal distance, the smaller target text (byte order).
pub fn nearer_answer(caller: &Point, a: (&Point, &str), b: (&Point, &str)) -> Ordering {
    point_distance(caller, a.0)
        .cmp(&point_distance(caller, b.0))
        .then_with(|| a.1.as_bytes().cmp(b.1.as_bytes()))
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Point {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Point::parse(s)
    }
}

impl Serialize for Point {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Point {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Point::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        Point::parse(s).unwrap()
    }

    #[test]
    fn validation() {
        assert!(p("").is_root());
        assert_eq!(p("web/eu/docs").depth(), 3);
        for bad in ["/", "a//b", "a/b/c/d", "a/", "/a", "a b", "a/\tb"] {
            assert_eq!(Point::parse(bad).unwrap_err().kind(), ErrorKind::InvalidPoint, "{bad}");
        }
    }

    #[test]
    fn distances() {
        assert_eq!(point_distance(&p(""), &p("")), 0);
        assert_eq!(point_distance(&p(""), &p("web")), 1);
        assert_eq!(point_distance(&p("web/eu/docs"), &p("web/eu/docs")), 0);
        assert_eq!(point_distance(&p("web/eu/docs"), &p("web/eu")), 1);
        assert_eq!(point_distance(&p("web/eu/docs"), &p("web/us/docs")), 4);
        assert_eq!(point_distance(&p("web/eu/docs"), &p("app")), 4);
        assert_eq!(point_distance(&p("web/eu/docs"), &p("")), 3);
    }

    #[test]
    fn nearer() {
        let caller = p("web/eu");
        assert_eq!(nearer_answer(&caller, (&p("web/eu"), "b"), (&p("web"), "a")), Ordering::Less);
        assert_eq!(nearer_answer(&caller, (&p("web"), "b"), (&p("web/eu/x"), "a")), Ordering::Greater);
        assert_eq!(nearer_answer(&caller, (&p("web"), "a"), (&p("web"), "b")), Ordering::Less);
    }
}
