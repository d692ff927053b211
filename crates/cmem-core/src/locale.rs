//! BCP 47 locale tags, validated and stored canonically (`en-US`), compared
//! case-insensitively, with the subtag-prefix match rule of docs/matching.md §3.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorKind};

/// A validated BCP 47 language tag in canonical case (`en-US`, `zh-Hant-TW`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Locale(String);

impl Locale {
    /// Parses and canonicalizes a tag. `_` is accepted as a separator (`en_US`, as
    /// gettext and Java write it).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidLocale`] naming the tag.
    pub fn parse(tag: &str) -> Result<Locale, Error> {
        let cleaned = tag.trim().replace('_', "-");
        match icu_locale_core::Locale::try_from_str(&cleaned) {
            Ok(loc) if !cleaned.is_empty() => Ok(Locale(loc.to_string())),
            Ok(_) => Err(Error::new(ErrorKind::InvalidLocale, "invalid locale \"\": empty tag")),
            Err(e) => Err(Error::new(ErrorKind::InvalidLocale, format!("invalid locale {tag:?}: {e}"))),
        }
    }

    /// The canonical tag.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The primary language subtag (`de` of `de-AT`).
    pub fn language(&self) -> &str {
        self.0.split('-').next().unwrap_or(&self.0)
    }

    /// docs/matching.md §3: equal, or one is a subtag prefix of the other (`de` matches `de-DE`;
    /// `de-DE` matches `de` but not `de-AT`).
    pub fn matches(&self, other: &Locale) -> bool {
        fn prefix(short: &str, long: &str) -> bool {
            long.len() > short.len()
                && long.as_bytes()[short.len()] == b'-'
                && long[..short.len()].eq_ignore_ascii_case(short)
        }
        self.0.eq_ignore_ascii_case(&other.0) || prefix(&self.0, &other.0) || prefix(&other.0, &self.0)
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Locale {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Locale::parse(s)
    }
}

impl AsRef<str> for Locale {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Serialize for Locale {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Locale {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Locale::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> Locale {
        Locale::parse(s).unwrap()
    }

    #[test]
    fn canonical_case() {
        assert_eq!(l("en-us").as_str(), "en-US");
        assert_eq!(l("EN_us").as_str(), "en-US");
        assert_eq!(l("zh-hant-tw").as_str(), "zh-Hant-TW");
        assert_eq!(l("DE").as_str(), "de");
    }

    #[test]
    fn invalid() {
        for bad in ["", "  ", "e", "english!", "en--US", "*all*", "123"] {
            let err = Locale::parse(bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidLocale, "{bad}");
        }
    }

    #[test]
    fn prefix_rule() {
        assert!(l("de").matches(&l("de-DE")));
        assert!(l("de").matches(&l("de-AT")));
        assert!(l("de-DE").matches(&l("de")));
        assert!(!l("de-DE").matches(&l("de-AT")));
        assert!(l("de-DE").matches(&l("de-de")));
        assert!(!l("de").matches(&l("dsb")));
        assert!(l("zh").matches(&l("zh-Hant-TW")));
        assert!(l("zh-Hant").matches(&l("zh-Hant-TW")));
        assert!(!l("zh-Hans").matches(&l("zh-Hant-TW")));
    }
}
