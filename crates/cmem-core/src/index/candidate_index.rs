//! The candidate index every store shares: a [`GramIndex`] per variant locale, the
//! interned locale sets that filter its keys by locale pair, the set of each entry, and
//! the one order in which a lookup's candidates are offered.
//!
//! Why one type for every store: with a verification budget or a candidate limit
//! (DESIGN.md §4.4) the order in which keys reach the scorer decides which of them are
//! scored, so two stores rank alike only if they offer alike. The rule, written in the
//! [`ContentMemory`](crate::store::ContentMemory) contract: the per-locale indexes whose locale
//! matches the query's source locale (prefix rule) are offered one after the other in
//! [`Locale`] order, each best first (see [`GramIndex::offer`]).
//!
//! A store either indexes every locale as entries are added ([`CandidateIndex::new`],
//! the in-memory store), or only the locales it was asked to load
//! ([`CandidateIndex::lazy`], the SQLite store, which builds an index from its tables on
//! the first lookup from a locale and keeps it current afterwards).

use std::collections::HashMap;

use crate::index::gram_index::{FrozenGrams, GramIndex, TopHits, WordSearch};
use crate::index::locale_set::{LocaleSets, ServedPairs};
use crate::index::query::{CandidateQuery, CandidateSink, ExactQuery, WordAnswer, WordQuery};
use crate::model::entry::EntryId;
use crate::model::key::Keys;
use crate::model::key::KindSet;
use crate::model::locale::Locale;

/// Per-locale trigram indexes, locale sets and the locale set of each entry.
#[derive(Debug, Default)]
pub struct CandidateIndex {
    sets: LocaleSets,
    entry_set: EntrySets,
    /// Indexes by interned locale.
    indexes: HashMap<u16, GramIndex>,
    /// Only locales loaded with [`insert_index`](Self::insert_index) are indexed.
    lazy: bool,
    /// Only the keys these pairs' lookups read are indexed (`None`: every key).
    served: Option<ServedPairs>,
    /// [`keeps`](Self::keeps) per (locale, set), as answered.
    kept: HashMap<(u16, u32), bool>,
}

impl CandidateIndex {
    /// An index that indexes the keys of every locale as entries are added.
    pub fn new() -> Self {
        CandidateIndex::default()
    }

    /// An index that keeps entry locales for every entry added, but keys only for the
    /// locales whose index was loaded with [`insert_index`](Self::insert_index).
    pub fn lazy() -> Self {
        CandidateIndex { lazy: true, ..CandidateIndex::default() }
    }

    /// This index, holding only the keys the lookups of `served` read (see
    /// [`ServedPairs`]).
    pub fn serving(self, served: Option<ServedPairs>) -> Self {
        CandidateIndex { served, kept: HashMap::new(), ..self }
    }

    /// The pairs whose keys alone are indexed, if not all.
    pub fn served(&self) -> Option<&ServedPairs> {
        self.served.as_ref()
    }

    /// Whether the keys of locale `li`'s variants of entries of locale set `set` are
    /// indexed: always, unless the index serves some pairs only (see [`ServedPairs`]).
    pub fn keeps(&mut self, li: u16, set: u32) -> bool {
        let Some(served) = &self.served else { return true };
        if let Some(&k) = self.kept.get(&(li, set)) {
            return k;
        }
        let locales = self.sets.locales();
        let keep = locales.get(usize::from(li)).is_some_and(|variant| {
            served.keeps(variant, self.sets.set(set).iter().filter_map(|&l| locales.get(usize::from(l))))
        });
        self.kept.insert((li, set), keep);
        keep
    }

    /// Forgets every entry and index (the laziness and the pairs served stay).
    pub fn clear(&mut self) {
        *self = CandidateIndex { lazy: self.lazy, served: self.served.take(), ..CandidateIndex::default() };
    }

    /// The number of `locale`, interning it.
    pub fn locale_id(&mut self, locale: &Locale) -> u16 {
        self.sets.locale_id(locale)
    }

    /// The interned locales and locale sets.
    pub fn sets(&self) -> &LocaleSets {
        &self.sets
    }

    /// Records the variant locales (interned, in variant order) of entry `id`; returns
    /// the number of their set.
    pub fn set_locales(&mut self, id: EntryId, locales: &[u16]) -> u32 {
        let set = self.sets.set_id(locales);
        self.entry_set.insert(id, set);
        set
    }

    /// The locale set of entry `id`, when known.
    pub fn set_of(&self, id: EntryId) -> Option<u32> {
        self.entry_set.get(id)
    }

    /// Records entry `id` with the keys of its variants (in variant order): its locale
    /// set always, its keys in the index of each variant's locale (created when missing,
    /// unless the index is [lazy](Self::lazy)).
    pub fn add(&mut self, id: EntryId, variants: &[(Locale, Keys)]) {
        let locales: Vec<u16> = variants.iter().map(|(l, _)| self.sets.locale_id(l)).collect();
        let set = self.set_locales(id, &locales);
        for (li, (_, keys)) in locales.iter().zip(variants) {
            if !self.keeps(*li, set) {
                continue;
            }
            let index =
                if self.lazy { self.indexes.get_mut(li) } else { Some(self.indexes.entry(*li).or_default()) };
            if let Some(index) = index {
                index.add(id, set, keys);
            }
        }
    }

    /// Records entry `id` (its locale set) and adds the keys of its variants in locale
    /// `li` to that locale's index only: an index opened at an older state catching up.
    pub fn add_to(&mut self, li: u16, id: EntryId, variants: &[(Locale, Keys)]) {
        let locales: Vec<u16> = variants.iter().map(|(l, _)| self.sets.locale_id(l)).collect();
        let set = self.set_locales(id, &locales);
        if !self.keeps(li, set) {
            return;
        }
        if let Some(index) = self.indexes.get_mut(&li) {
            for (vl, (_, keys)) in locales.iter().zip(variants) {
                if *vl == li {
                    index.add(id, set, keys);
                }
            }
        }
    }

    /// Forgets entry `id` in the index of locale `li` only.
    pub fn remove_from(&mut self, li: u16, id: EntryId) {
        if let Some(index) = self.indexes.get_mut(&li) {
            index.remove(id);
        }
    }

    /// Applies the entries written, deleted or re-keyed since the index's state, each
    /// with its variants now (none: deleted), to every index or, with `only`, to the
    /// index of that locale alone (one opened from a file, catching up); then settles.
    pub fn apply_changes(
        &mut self,
        only: Option<u16>,
        changes: impl IntoIterator<Item = (EntryId, Vec<(Locale, Keys)>)>,
    ) {
        for (id, variants) in changes {
            match only {
                Some(li) => self.remove_from(li, id),
                None => self.remove(id),
            }
            if variants.is_empty() {
                continue;
            }
            match only {
                Some(li) => self.add_to(li, id, &variants),
                None => self.add(id, &variants),
            }
        }
        self.settle();
    }

    /// The numbers of the loaded indexes.
    pub fn loaded(&self) -> Vec<u16> {
        let mut ids: Vec<u16> = self.indexes.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// Settles every index after a batch of [`add`](Self::add)s (see
    /// [`GramIndex::settle`]).
    pub fn settle(&mut self) {
        for index in self.indexes.values_mut() {
            index.settle();
        }
    }

    /// Forgets entry `id`. An entry known only from a persisted index (no set recorded)
    /// is looked for in every index.
    pub fn remove(&mut self, id: EntryId) {
        match self.entry_set.remove(id) {
            Some(set) => {
                for li in self.sets.set(set) {
                    if let Some(index) = self.indexes.get_mut(li) {
                        index.remove(id);
                    }
                }
            }
            None => {
                for index in self.indexes.values_mut() {
                    index.remove(id);
                }
            }
        }
    }

    /// Installs the persisted index `grams` as the index of interned locale `li`, its
    /// locale sets mapped onto this index's.
    ///
    /// # Errors
    /// When the file's locale sets do not parse.
    pub fn insert_frozen(&mut self, li: u16, grams: FrozenGrams) -> std::result::Result<(), String> {
        let sets = grams.sets().ok_or("its locale sets do not parse")?;
        let group_map = sets
            .iter()
            .map(|locales| {
                let ids: Vec<u16> = locales.iter().map(|l| self.sets.locale_id(l)).collect();
                self.sets.set_id(&ids)
            })
            .collect();
        self.indexes.insert(li, GramIndex::with_base(grams, group_map));
        Ok(())
    }

    /// The entries with a variant in a locale matching `q.source` whose `q.kind` key is
    /// `q.key` exactly and another variant in `q.target` (prefix rule), in id order: the
    /// exact tier answered from the index (a store across a network saves its queries).
    /// The index of every locale matching the source must be loaded.
    pub fn exact(&self, q: &ExactQuery<'_>) -> Vec<EntryId> {
        /// Keeps the offered keys equal to the query's; at cut-off 1, only keys of the
        /// query's length sharing every gram are offered.
        struct Equal<'k> {
            key: &'k str,
            found: Vec<EntryId>,
        }
        impl CandidateSink for Equal<'_> {
            fn offer(&mut self, id: EntryId, _kinds: KindSet, key: &str) -> f64 {
                if key == self.key {
                    self.found.push(id);
                }
                1.0
            }
            fn cutoff(&self) -> f64 {
                1.0
            }
        }
        let kinds = KindSet::default().with(q.kind);
        let cq = CandidateQuery { key: q.key, kinds, source: q.source, target: q.target };
        let mut sink = Equal { key: q.key, found: Vec::new() };
        self.offer(&cq, &mut sink);
        sink.found.sort_unstable();
        sink.found.dedup();
        sink.found
    }

    /// The index of interned locale `li`, when loaded.
    pub fn index(&self, li: u16) -> Option<&GramIndex> {
        self.indexes.get(&li)
    }

    /// The interned locales that match `locale` by the prefix rule, in [`Locale`] order:
    /// the order of [`offer`](Self::offer).
    pub fn matching(&self, locale: &Locale) -> Vec<u16> {
        let ok = self.sets.matching(locale);
        let locales = self.sets.locales();
        let mut ids: Vec<u16> = (0..ok.len()).filter(|&i| ok[i]).map(|i| i as u16).collect();
        ids.sort_by(|a, b| locales[usize::from(*a)].cmp(&locales[usize::from(*b)]));
        ids
    }

    /// The interned locales matching `source` whose index is not loaded yet.
    pub fn missing(&self, source: &Locale) -> Vec<u16> {
        self.matching(source).into_iter().filter(|li| !self.indexes.contains_key(li)).collect()
    }

    /// The locale of number `li`.
    pub fn locale(&self, li: u16) -> Option<&Locale> {
        self.sets.locales().get(usize::from(li))
    }

    /// Installs the index of interned locale `li`, built by the caller (with the locale
    /// sets of [`set_of`](Self::set_of)).
    pub fn insert_index(&mut self, li: u16, index: GramIndex) {
        self.indexes.insert(li, index);
    }

    /// Offers the candidates of query `q` to `sink`: the index of every locale matching
    /// the query's source locale, in locale order, each keeping only entries with a
    /// variant in the source and another in the target locale (prefix rule).
    pub fn offer(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) {
        let pairs = self.sets.pairs(q.source, q.target);
        let accept = |set: u32| pairs.accepts(set);
        for li in self.matching(q.source) {
            if let Some(index) = self.indexes.get(&li) {
                index.offer(q, &accept, sink);
            }
        }
    }
}

impl CandidateIndex {
    /// Answers the word search `q` (see [`WordQuery`]) from the word indexes of every
    /// locale matching its source that is loaded: how common each word is among their
    /// live plain keys, the best texts (BM25, each word once, the rarity of each by
    /// Lucene's `ln(1 + (N − df + ½) / (df + ½))`), then the texts of the words still
    /// held by none, rarest first. Only entries with a variant in the target locale are
    /// answered. The word indexes are built on the first search (see
    /// [`GramIndex::word_index_bytes`] for what they hold).
    pub fn words(&self, q: &WordQuery<'_>) -> WordAnswer {
        let pairs = self.sets.pairs(q.source, q.target);
        let accept = |set: u32| pairs.accepts(set);
        let mut searches: Vec<WordSearch<'_>> = self
            .matching(q.source)
            .into_iter()
            .filter_map(|li| self.indexes.get(&li))
            .map(|ix| ix.word_search(q.words))
            .collect();
        let (mut documents, mut total) = (0u64, 0u64);
        let mut frequencies = vec![0u64; q.words.len()];
        for s in &searches {
            let (n, t, df) = s.counts();
            documents += n;
            total += t;
            for (f, d) in frequencies.iter_mut().zip(df) {
                *f += d;
            }
        }
        let n = documents as f64;
        let idf: Vec<f64> =
            frequencies.iter().map(|&df| (1.0 + (n - df as f64 + 0.5) / (df as f64 + 0.5)).ln()).collect();
        let avg = if documents > 0 { total as f64 / n } else { 1.0 };
        for s in &mut searches {
            s.score(&idf);
        }
        let mut top = TopHits::new(q.best);
        for s in &searches {
            s.best(avg, &accept, &mut top);
        }
        let mut hits = top.into_hits();
        let mut held: std::collections::HashSet<String> = std::collections::HashSet::new();
        for h in &hits {
            for (a, b) in crate::align::words(&h.key) {
                held.insert(crate::align::fold(&h.key[a..b]));
            }
        }
        let mut alone: Vec<usize> = (0..q.words.len())
            .filter(|&i| {
                frequencies[i] > 0
                    && !q.covered.get(i).copied().unwrap_or(false)
                    && !held.contains(&q.words[i])
            })
            .collect();
        alone.sort_by_key(|&i| (frequencies[i], i));
        for i in alone.into_iter().take(q.alone) {
            let mut top = TopHits::new(q.alone_hits);
            for s in &searches {
                s.holding(i, avg, &accept, &mut top);
            }
            hits.extend(
                top.into_hits().into_iter().map(|h| crate::index::query::WordHit { alone: Some(i), ..h }),
            );
        }
        WordAnswer { documents, frequencies, hits }
    }

    /// The heap bytes of the loaded word indexes (0 before the first word search).
    pub fn word_index_bytes(&self) -> usize {
        self.indexes.values().map(GramIndex::word_index_bytes).sum()
    }
}

const NONE: u32 = u32::MAX;

/// The locale set of each entry. Entry ids are dense in both stores (counted from 1), so
/// a vector indexed by id; ids far beyond that range (a database written by other means)
/// go to a map.
#[derive(Debug, Default)]
struct EntrySets {
    dense: Vec<u32>,
    sparse: HashMap<EntryId, u32>,
}

impl EntrySets {
    fn slot(id: EntryId) -> Option<usize> {
        let i = usize::try_from(id.0).ok()?;
        (i < 1 << 26).then_some(i)
    }

    fn get(&self, id: EntryId) -> Option<u32> {
        match Self::slot(id) {
            Some(i) => self.dense.get(i).copied().filter(|s| *s != NONE),
            None => self.sparse.get(&id).copied(),
        }
    }

    fn insert(&mut self, id: EntryId, set: u32) {
        match Self::slot(id) {
            Some(i) => {
                if self.dense.len() <= i {
                    self.dense.resize(i + 1, NONE);
                }
                self.dense[i] = set;
            }
            None => {
                self.sparse.insert(id, set);
            }
        }
    }

    fn remove(&mut self, id: EntryId) -> Option<u32> {
        match Self::slot(id) {
            Some(i) => self.dense.get_mut(i).map(|s| std::mem::replace(s, NONE)).filter(|s| *s != NONE),
            None => self.sparse.remove(&id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::key::KindSet;
    use crate::model::run::Run;

    struct Collect(Vec<EntryId>);

    impl CandidateSink for Collect {
        fn offer(&mut self, id: EntryId, _kinds: KindSet, _key: &str) -> f64 {
            self.0.push(id);
            0.0
        }
        fn cutoff(&self) -> f64 {
            0.0
        }
    }

    fn keys(text: &str) -> Keys {
        Keys::of(&[Run::text(text)])
    }

    #[test]
    fn an_index_serving_some_pairs_holds_their_keys_alone() {
        let loc = |s: &str| Locale::parse(s).unwrap();
        let mut ix = CandidateIndex::new().serving(Some(ServedPairs::new([(loc("en"), loc("de"))])));
        ix.add(EntryId(1), &[(loc("en-US"), keys("open the file")), (loc("de-AT"), keys("Datei öffnen"))]);
        ix.add(EntryId(2), &[(loc("en"), keys("open the file")), (loc("fr"), keys("ouvrir le fichier"))]);
        ix.add(
            EntryId(3),
            &[(loc("en"), keys("open it")), (loc("fr"), keys("l'ouvrir")), (loc("de"), keys("öffnen"))],
        );
        ix.settle();
        let added = |ix: &CandidateIndex, tag: &str| {
            ix.loaded()
                .into_iter()
                .find(|&li| ix.locale(li) == Some(&loc(tag)))
                .and_then(|li| ix.index(li))
                .map(|i| i.added())
        };
        // Entry 2 has no German variant; German and French keys are never looked up from.
        assert_eq!((added(&ix, "en-US"), added(&ix, "en")), (Some(1), Some(1)));
        assert_eq!((added(&ix, "de-AT"), added(&ix, "fr"), added(&ix, "de")), (None, None, None));
        let (en, de, fr) = (loc("en"), loc("de"), loc("fr"));
        let q = |target| CandidateQuery { key: "open the file", kinds: KindSet::ALL, source: &en, target };
        let mut sink = Collect(Vec::new());
        ix.offer(&q(&de), &mut sink);
        sink.0.dedup();
        assert_eq!(sink.0, vec![EntryId(3), EntryId(1)]);
        let mut sink = Collect(Vec::new());
        ix.offer(&q(&fr), &mut sink);
        assert_eq!(sink.0, vec![EntryId(3)], "a French lookup finds only what the German pair holds");
        // Emptied, it still serves those pairs alone.
        ix.clear();
        ix.add(EntryId(2), &[(loc("en"), keys("open the file")), (loc("fr"), keys("ouvrir le fichier"))]);
        assert!(ix.loaded().is_empty());
    }

    #[test]
    fn offers_in_locale_order_and_filters_pairs() {
        let loc = |s: &str| Locale::parse(s).unwrap();
        let mut ix = CandidateIndex::new();
        // Added in the reverse of locale order: `en-US` first, then `en`.
        ix.add(EntryId(1), &[(loc("en-US"), keys("open the file")), (loc("de"), keys("Datei öffnen"))]);
        ix.add(EntryId(2), &[(loc("en"), keys("open the file")), (loc("de"), keys("Datei öffnen"))]);
        ix.add(EntryId(3), &[(loc("en"), keys("open the file")), (loc("fr"), keys("ouvrir le fichier"))]);
        ix.settle();
        let (en, de) = (loc("en"), loc("de"));
        let q = CandidateQuery { key: "open the file", kinds: KindSet::ALL, source: &en, target: &de };
        let mut sink = Collect(Vec::new());
        ix.offer(&q, &mut sink);
        sink.0.dedup();
        assert_eq!(sink.0, vec![EntryId(2), EntryId(1)]);
        ix.remove(EntryId(2));
        let mut sink = Collect(Vec::new());
        ix.offer(&q, &mut sink);
        sink.0.dedup();
        assert_eq!(sink.0, vec![EntryId(1)]);
    }

    #[test]
    fn exact_keys_are_found_by_kind_and_locale_pair() {
        use crate::model::key::KeyKind;
        use crate::model::run::Code;
        let loc = |s: &str| Locale::parse(s).unwrap();
        let mut ix = CandidateIndex::new();
        let coded = |t: &str| Keys::of(&[Run::text(t), Run::Ph(Code::new("1").equiv("%s").data("%s"))]);
        ix.add(EntryId(3), &[(loc("en-US"), keys("open the file")), (loc("de"), keys("Datei öffnen"))]);
        ix.add(EntryId(1), &[(loc("en"), keys("open the file")), (loc("de"), keys("Datei öffnen"))]);
        ix.add(EntryId(2), &[(loc("en"), keys("open the file")), (loc("fr"), keys("ouvrir"))]);
        ix.add(EntryId(4), &[(loc("en"), keys("open the files")), (loc("de"), keys("Dateien öffnen"))]);
        ix.add(EntryId(5), &[(loc("en"), coded("open ")), (loc("de"), coded("öffnen "))]);
        ix.settle();
        let (en, de) = (loc("en"), loc("de"));
        let q = |kind, key| ExactQuery { kind, key, source: &en, target: &de };
        // Both source locales by the prefix rule, the French-only entry left out, the
        // longer key never.
        assert_eq!(ix.exact(&q(KeyKind::Plain, "open the file")), vec![EntryId(1), EntryId(3)]);
        assert!(ix.exact(&q(KeyKind::Plain, "open the fil")).is_empty());
        // A key stands for its kinds only.
        let k = coded("open ");
        assert_ne!(k.plain, k.structural);
        assert_eq!(ix.exact(&q(KeyKind::Structural, &k.structural)), vec![EntryId(5)]);
        assert!(ix.exact(&q(KeyKind::Structural, &k.plain)).is_empty());
        assert_eq!(ix.exact(&q(KeyKind::Plain, &k.plain)), vec![EntryId(5)]);
        ix.remove(EntryId(1));
        assert_eq!(ix.exact(&q(KeyKind::Plain, "open the file")), vec![EntryId(3)]);
    }

    #[test]
    fn a_lazy_index_keys_only_loaded_locales() {
        let loc = |s: &str| Locale::parse(s).unwrap();
        let mut ix = CandidateIndex::lazy();
        ix.add(EntryId(1), &[(loc("en"), keys("open the file")), (loc("de"), keys("Datei öffnen"))]);
        let en = loc("en");
        assert_eq!(ix.missing(&en).len(), 1);
        let li = ix.missing(&en)[0];
        ix.insert_index(li, GramIndex::new());
        assert!(ix.missing(&en).is_empty());
        ix.add(EntryId(2), &[(loc("en"), keys("close the file")), (loc("de"), keys("Datei schließen"))]);
        ix.settle();
        let de = loc("de");
        let q = CandidateQuery { key: "close the file", kinds: KindSet::ALL, source: &en, target: &de };
        let mut sink = Collect(Vec::new());
        ix.offer(&q, &mut sink);
        sink.0.dedup();
        assert_eq!(sink.0, vec![EntryId(2)]);
        assert!(ix.set_of(EntryId(1)).is_some());
        ix.clear();
        assert!(ix.set_of(EntryId(1)).is_none());
        assert_eq!(ix.missing(&en), Vec::<u16>::new());
    }

    #[test]
    fn word_search_counts_ranks_and_follows_changes() {
        use crate::index::query::WordQuery;
        let loc = |s: &str| Locale::parse(s).unwrap();
        let (en, de) = (loc("en"), loc("de"));
        let mut ix = CandidateIndex::new();
        let pair = |t: &str| vec![(loc("en"), keys(t)), (loc("de"), keys("x"))];
        ix.add(EntryId(1), &pair("Open the file"));
        ix.add(EntryId(2), &pair("Open the file"));
        ix.add(EntryId(3), &pair("Close the clipboard"));
        ix.add(EntryId(4), &[(loc("en"), keys("Open the clipboard")), (loc("fr"), keys("x"))]);
        ix.add(EntryId(5), &pair("The trash is empty"));
        ix.settle();
        let words: Vec<String> = ["open", "the", "clipboard", "trash", "zebra"].map(String::from).to_vec();
        let q = |best, alone| WordQuery {
            words: &words,
            source: &en,
            target: &de,
            best,
            covered: vec![false, false, false, false, false],
            alone,
            alone_hits: 2,
        };
        let a = ix.words(&q(2, 0));
        assert_eq!(a.documents, 5);
        assert_eq!(a.frequencies, vec![3, 5, 2, 1, 0]);
        // The rarest word first, though in a longer text; entry 4 holds three of the
        // words but has no German: left out.
        let best: Vec<EntryId> = a.hits.iter().map(|h| h.entry).collect();
        assert_eq!(best, vec![EntryId(5), EntryId(3)], "{a:?}");
        assert!(a.hits.iter().all(|h| h.alone.is_none()));
        let a = ix.words(&q(3, 0));
        // Entry 2 has the text of entry 1: once, the lower entry.
        assert_eq!(a.hits[2].entry, EntryId(1), "{a:?}");
        assert_eq!(a.hits.len(), 3, "{a:?}");
        // With one best text, "open" and "clipboard" are held by none: the rarer one
        // is searched alone.
        let a = ix.words(&q(1, 1));
        let found: Vec<(EntryId, Option<usize>)> = a.hits.iter().map(|h| (h.entry, h.alone)).collect();
        assert_eq!(found, vec![(EntryId(5), None), (EntryId(3), Some(2))]);
        // A write after the first search is caught up; a removal counts no more.
        ix.add(EntryId(6), &pair("Empty the trash"));
        ix.remove(EntryId(5));
        ix.settle();
        let a = ix.words(&q(5, 0));
        assert_eq!(a.documents, 5);
        assert_eq!(a.frequencies, vec![3, 5, 2, 1, 0]);
        let best: Vec<EntryId> = a.hits.iter().map(|h| h.entry).collect();
        assert!(best.contains(&EntryId(6)) && !best.contains(&EntryId(5)), "{best:?}");
        assert!(ix.word_index_bytes() > 0);
    }
}
