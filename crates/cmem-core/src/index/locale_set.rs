//! Interned locales and interned locale sets, for stores that filter fuzzy candidates by
//! locale pair without comparing strings.
//!
//! Every entry has a set of variant locales (`[en, de]`, `[en, de, fr]`, …); a memory
//! holds few distinct sets. A store numbers each set once, gives the number to its
//! [`GramIndex`](crate::imp::GramIndex) with the entry's keys, and answers "does this entry
//! have the query's locale pair?" from a table indexed by that number: one lookup per
//! candidate, no access to the entry.

use std::collections::HashMap;

use crate::model::locale::Locale;

/// Interned locales (`u16`) and interned sets of them (`u32`).
#[derive(Debug, Default, Clone)]
pub struct LocaleSets {
    locales: Vec<Locale>,
    locale_ids: HashMap<Locale, u16>,
    sets: Vec<Box<[u16]>>,
    set_ids: HashMap<Box<[u16]>, u32>,
}

impl LocaleSets {
    /// No locale, no set.
    pub fn new() -> Self {
        LocaleSets::default()
    }

    /// The number of `locale`, interning it.
    pub fn locale_id(&mut self, locale: &Locale) -> u16 {
        if let Some(id) = self.locale_ids.get(locale) {
            return *id;
        }
        let id = self.locales.len() as u16;
        self.locales.push(locale.clone());
        self.locale_ids.insert(locale.clone(), id);
        id
    }

    /// The interned locales, by number.
    pub fn locales(&self) -> &[Locale] {
        &self.locales
    }

    /// The number of the set of interned locales `ids` (in variant order), interning it.
    pub fn set_id(&mut self, ids: &[u16]) -> u32 {
        if let Some(id) = self.set_ids.get(ids) {
            return *id;
        }
        let id = self.sets.len() as u32;
        self.sets.push(ids.into());
        self.set_ids.insert(ids.into(), id);
        id
    }

    /// The number of sets interned.
    pub fn set_count(&self) -> usize {
        self.sets.len()
    }

    /// The interned locales of set `id` (empty for an unknown number).
    pub fn set(&self, id: u32) -> &[u16] {
        self.sets.get(id as usize).map_or(&[], |s| s)
    }

    /// Per interned locale, whether it serves a lookup in `locale` ([`Locale::fit`]:
    /// the prefix rule or another region of the language, docs/matching.md §3).
    pub fn matching(&self, locale: &Locale) -> Vec<bool> {
        self.locales.iter().map(|l| locale.fit(l).is_some()).collect()
    }

    /// The sets a lookup from `source` to `target` can use: those with a variant in
    /// `source` and another variant in `target` (each as [`Locale::fit`] allows).
    pub fn pairs(&self, source: &Locale, target: &Locale) -> PairFilter {
        let src = self.matching(source);
        let tgt = self.matching(target);
        let ok = self
            .sets
            .iter()
            .map(|ls| {
                ls.iter().enumerate().any(|(i, &a)| {
                    src[usize::from(a)] && ls.iter().enumerate().any(|(j, &b)| i != j && tgt[usize::from(b)])
                })
            })
            .collect();
        PairFilter { ok }
    }
}

/// Which locale sets serve one lookup's locale pair ([`LocaleSets::pairs`]).
#[derive(Debug, Clone)]
pub struct PairFilter {
    ok: Vec<bool>,
}

impl PairFilter {
    /// True when set `set` serves the pair; false for a number it does not know.
    pub fn accepts(&self, set: u32) -> bool {
        self.ok.get(set as usize).copied().unwrap_or(false)
    }
}

/// The locale pairs a process serves (`cmem serve --pairs en-de,en-fr`), so that its
/// candidate indexes hold only the keys those pairs' lookups can read: a server of one
/// pair of a memory of many maps and counts that pair's keys, not the memory's.
///
/// Languages decide, not whole tags: a lookup's locales fit stored ones only within a
/// language ([`Locale::fit`]), so the keys of a variant in a served pair's source
/// language, of entries with another variant in that pair's target language, are every
/// key such a lookup may offer. The lookup's own locale filter still applies to them.
///
/// ```
/// use cmem_core::{Locale, ServedPairs};
///
/// let l = |t: &str| Locale::parse(t).unwrap();
/// let served = ServedPairs::new([(l("en"), l("de"))]);
/// assert!(served.keeps(&l("en-US"), [&l("en-US"), &l("de-AT")]));
/// assert!(!served.keeps(&l("en"), [&l("en"), &l("fr")]));
/// assert!(!served.keeps(&l("de"), [&l("en"), &l("de")])); // de → en is not served
/// assert_eq!(served.file_tag(&l("en-US")), "en-US--de");
/// assert_eq!(served.file_tag(&l("fr")), "fr--none");
/// let served = ServedPairs::new([(l("en"), l("fr")), (l("en-GB"), l("de-CH"))]);
/// assert_eq!(served.file_tag(&l("en")), "en--de-fr");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServedPairs {
    /// (source language, target language), lower case, sorted, no duplicates.
    pairs: Vec<(String, String)>,
}

impl ServedPairs {
    /// The pairs `(source, target)`.
    pub fn new(pairs: impl IntoIterator<Item = (Locale, Locale)>) -> ServedPairs {
        let mut pairs: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(s, t)| (s.language().to_ascii_lowercase(), t.language().to_ascii_lowercase()))
            .collect();
        pairs.sort();
        pairs.dedup();
        ServedPairs { pairs }
    }

    /// The target languages served from `source`'s language, sorted.
    fn targets_of<'s>(&'s self, source: &'s Locale) -> impl Iterator<Item = &'s str> + 's {
        self.pairs.iter().filter(|(s, _)| s.eq_ignore_ascii_case(source.language())).map(|(_, t)| t.as_str())
    }

    /// Whether the keys of a variant in `variant` are indexed, for an entry whose variants
    /// are in `locales` (`variant`'s own among them): when some served pair reads from
    /// `variant`'s language into the language of another of them.
    pub fn keeps<'l>(&self, variant: &Locale, locales: impl IntoIterator<Item = &'l Locale>) -> bool {
        // Another variant: in a target language, and not the variant itself (an entry may
        // hold two regions of one language).
        let others: Vec<&Locale> = locales.into_iter().filter(|l| *l != variant).collect();
        self.targets_of(variant).any(|t| others.iter().any(|o| o.language().eq_ignore_ascii_case(t)))
    }

    /// The name under which the index of `variant`'s keys is persisted for these pairs:
    /// the locale's tag, `--`, then the target languages served from it joined by `-`
    /// (`none` when there are none). No locale tag holds `--`, so the file of every key
    /// is never taken for it, nor it for that file.
    pub fn file_tag(&self, variant: &Locale) -> String {
        let targets: Vec<&str> = self.targets_of(variant).collect();
        let targets = if targets.is_empty() { "none".to_owned() } else { targets.join("-") };
        format!("{}--{targets}", variant.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_answer_pairs_by_the_prefix_rule() {
        let loc = |s: &str| Locale::parse(s).unwrap();
        let mut sets = LocaleSets::new();
        let (en, de, de_at, fr) = (
            sets.locale_id(&loc("en")),
            sets.locale_id(&loc("de")),
            sets.locale_id(&loc("de-AT")),
            sets.locale_id(&loc("fr")),
        );
        assert_eq!(sets.locale_id(&loc("de")), de);
        let en_de = sets.set_id(&[en, de]);
        let en_de_at = sets.set_id(&[en, de_at]);
        let fr_en = sets.set_id(&[fr, en]);
        let de_de_at = sets.set_id(&[de, de_at]);
        assert_eq!(sets.set_id(&[en, de]), en_de);
        assert_eq!(sets.set(en_de_at), &[en, de_at]);
        assert!(sets.set(99).is_empty());
        let ok = sets.pairs(&loc("en"), &loc("de"));
        assert!(ok.accepts(en_de) && ok.accepts(en_de_at));
        assert!(!ok.accepts(fr_en) && !ok.accepts(99));
        // Two variants matching `de`: one serves as source, the other as target.
        let ok = sets.pairs(&loc("de"), &loc("de"));
        assert!(ok.accepts(de_de_at) && !ok.accepts(en_de));
        assert_eq!(sets.locales().len(), 4);
    }
}
