//! BCP 47 locale tags, validated and stored canonically (`en-US`), compared
//! case-insensitively, with the subtag-prefix match rule and the regional fallback of
//! lookups (docs/matching.md §3).

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
            Ok(_) => Err(Error::new(
                ErrorKind::InvalidLocale,
                "invalid locale \"\": empty tag; write a language code such as en, de or pt-BR",
            )),
            // The parser's own words name the subtag at fault, not the fix: a user who
            // wrote `english` needs the form of a code.
            Err(e) => Err(Error::new(
                ErrorKind::InvalidLocale,
                format!("invalid locale {tag:?}: {e}; write a language code such as en, de or pt-BR"),
            )),
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

    /// How a stored variant in locale `stored` serves a lookup asking for `self`
    /// (docs/matching.md §3), or `None` when it does not:
    ///
    /// - [`LocaleFit::Equal`]: the same tag;
    /// - [`LocaleFit::Prefix`]: one is a subtag prefix of the other (`de` and `de-DE`);
    /// - [`LocaleFit::Region`]: another variety of the same language in the same
    ///   script (`de-CH` and `de-DE`, `pt-BR` and `pt-PT`), which a lookup falls back
    ///   to at [`REGION_PENALTY`] points. Scripts are compared with their likely values,
    ///   so `zh-TW` (Traditional) and `zh-CN` (Simplified), or `sr-RS` (Cyrillic) and
    ///   `sr-Latn-RS`, never serve each other.
    ///
    /// ```
    /// use cmem_core::{Locale, LocaleFit};
    ///
    /// let l = |t: &str| Locale::parse(t).unwrap();
    /// assert_eq!(l("de").fit(&l("de-DE")), Some(LocaleFit::Prefix));
    /// assert_eq!(l("de-CH").fit(&l("de-DE")), Some(LocaleFit::Region));
    /// assert_eq!(l("zh-TW").fit(&l("zh-CN")), None);
    /// assert_eq!(l("de").fit(&l("nl")), None);
    /// ```
    pub fn fit(&self, stored: &Locale) -> Option<LocaleFit> {
        if self.0.eq_ignore_ascii_case(&stored.0) {
            Some(LocaleFit::Equal)
        } else if self.matches(stored) {
            Some(LocaleFit::Prefix)
        } else if self.language().eq_ignore_ascii_case(stored.language()) && self.script() == stored.script()
        {
            Some(LocaleFit::Region)
        } else {
            None
        }
    }

    /// The script subtag, or the language's likely script for its region (`Hant` for
    /// `zh-TW`, `Latn` for `de-CH`); `None` when the likely-subtag data has none.
    fn script(&self) -> Option<icu_locale_core::subtags::Script> {
        // Made of static data: building one is a few pointer copies.
        const EXPANDER: icu_locale::LocaleExpander = icu_locale::LocaleExpander::new_common();
        let mut id = icu_locale_core::LanguageIdentifier::try_from_str(&self.0).ok()?;
        if id.script.is_none() {
            EXPANDER.maximize(&mut id);
        }
        id.script
    }
}

/// How well a stored locale serves a lookup's locale ([`Locale::fit`]); the better fit
/// orders first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LocaleFit {
    /// The same tag.
    Equal,
    /// One tag is a subtag prefix of the other (`de` and `de-DE`).
    Prefix,
    /// Another region or variant of the same language and script (`de-CH` and `de-DE`).
    Region,
}

impl LocaleFit {
    /// The points a match loses for it: [`REGION_PENALTY`] for [`LocaleFit::Region`],
    /// none for the others.
    pub fn penalty(self) -> u8 {
        match self {
            LocaleFit::Region => REGION_PENALTY,
            LocaleFit::Equal | LocaleFit::Prefix => 0,
        }
    }
}

/// Points a match loses when its variant is another region of the language asked for
/// (docs/matching.md §3), on each side: a `de-DE` answer to a `de-CH` lookup is a
/// 99 % match at best. translate5 and Trados charge such a sub-language penalty too.
pub const REGION_PENALTY: u8 = 1;

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

    #[test]
    fn regional_fallback() {
        use LocaleFit::{Equal, Prefix, Region};
        let fit = |a: &str, b: &str| l(a).fit(&l(b));
        assert_eq!(fit("de-DE", "de-de"), Some(Equal));
        assert_eq!(fit("de", "de-AT"), Some(Prefix));
        assert_eq!(fit("de-CH", "de"), Some(Prefix));
        assert_eq!(fit("de-CH", "de-DE"), Some(Region));
        assert_eq!(fit("pt-BR", "pt-PT"), Some(Region));
        assert_eq!(fit("en-US", "en-GB"), Some(Region));
        assert_eq!(fit("zh-Hant-TW", "zh-Hant-HK"), Some(Region));
        assert_eq!(fit("zh-TW", "zh-HK"), Some(Region));
        // Another script is another written language, whatever the tags say.
        assert_eq!(fit("zh-TW", "zh-CN"), None);
        assert_eq!(fit("zh-Hans", "zh-Hant-TW"), None);
        assert_eq!(fit("sr-RS", "sr-Latn-RS"), None);
        assert_eq!(fit("sr-Latn-ME", "sr-Latn-RS"), Some(Region));
        assert_eq!(fit("de", "dsb"), None);
        assert_eq!(fit("de-DE", "nl-NL"), None);
        // The fallback is symmetric, and a penalty only for another region.
        assert_eq!(fit("de-DE", "de-CH"), Some(Region));
        assert_eq!(Region.penalty(), REGION_PENALTY);
        assert_eq!(Prefix.penalty(), 0);
        assert!(Equal < Prefix && Prefix < Region);
    }
}
