//! The in-process candidate index: a [`GramIndex`] per source locale, built from
//! `tm_variants` on first use and kept in sync by this store's writes.
//!
//! Why beside the FTS5 tables: the design note's FTS5 recipe (`build_trigram_query`,
//! `ORDER BY rank LIMIT 200`) misses the best match in about 8 % of real queries and is
//! slower than a scan; counting shared trigrams per key gives a similarity bound, so the
//! index offers exactly the keys that can reach the scorer's cut-off, best first (the
//! same index as [`MemStore`](cmem_core::MemStore), hence the same ranking). Another
//! connection's commit changes `PRAGMA data_version`; the cache is then dropped and
//! rebuilt on the next lookup.

use std::collections::HashMap;

use cmem_core::{EntryId, GramIndex, KindSet, Locale};

/// Locales of every entry and the per-locale indexes built so far.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    /// `PRAGMA data_version` when the cache was loaded; `None` = not loaded.
    pub(crate) data_version: Option<i64>,
    /// Interned locales.
    pub(crate) locales: Vec<Locale>,
    /// The variant locales of each entry, in variant order.
    pub(crate) entry_locales: EntryLocales,
    /// Indexes by interned locale.
    pub(crate) indexes: HashMap<u16, GramIndex>,
}

impl Cache {
    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        *self = Cache::default();
    }

    /// The interned number of `locale`, adding it.
    pub(crate) fn intern(&mut self, locale: &Locale) -> u16 {
        if let Some(i) = self.locales.iter().position(|l| l == locale) {
            return i as u16;
        }
        self.locales.push(locale.clone());
        (self.locales.len() - 1) as u16
    }

    /// Records a written entry: its locales, and its keys in every built index.
    pub(crate) fn add(&mut self, id: EntryId, variants: &[(Locale, Vec<(String, KindSet)>)]) {
        if self.data_version.is_none() {
            return;
        }
        let locs: Vec<u16> = variants.iter().map(|(l, _)| self.intern(l)).collect();
        for (li, (_, keys)) in locs.iter().zip(variants) {
            if let Some(ix) = self.indexes.get_mut(li) {
                for (key, kinds) in keys {
                    ix.add_key(id, *kinds, key);
                }
            }
        }
        self.entry_locales.insert(id, locs.into_boxed_slice());
    }

    /// Forgets a deleted entry.
    pub(crate) fn remove(&mut self, id: EntryId) {
        if let Some(locs) = self.entry_locales.remove(id) {
            for li in locs.iter() {
                if let Some(ix) = self.indexes.get_mut(li) {
                    ix.remove(id);
                }
            }
        }
    }

    /// The interned locales that match `locale` by the prefix rule.
    pub(crate) fn matching(&self, locale: &Locale) -> Vec<u16> {
        (0..self.locales.len()).filter(|&i| self.locales[i].matches(locale)).map(|i| i as u16).collect()
    }

    /// The locale tests of one candidate query, per interned locale.
    pub(crate) fn pair_filter(&self, source: &Locale, target: &Locale) -> PairFilter {
        PairFilter {
            source: self.locales.iter().map(|l| l.matches(source)).collect(),
            target_equal: self.locales.iter().map(|l| l == target).collect(),
            target: self.locales.iter().map(|l| l.matches(target)).collect(),
        }
    }

    /// The rule of [`MemStore`](cmem_core::MemStore): the entry has a source variant
    /// and a different target variant. Called for every key offered, hence the
    /// precomputed [`PairFilter`] and the dense id table.
    pub(crate) fn has_pair(&self, id: EntryId, f: &PairFilter) -> bool {
        let Some(locs) = self.entry_locales.get(id) else { return false };
        let test = |v: &[bool], l: &u16| v.get(usize::from(*l)).copied().unwrap_or(false);
        let s = locs.iter().position(|l| test(&f.source, l));
        let t = locs
            .iter()
            .position(|l| test(&f.target_equal, l))
            .or_else(|| locs.iter().position(|l| test(&f.target, l)));
        matches!((s, t), (Some(s), Some(t)) if s != t)
            || locs.iter().filter(|l| test(&f.source, l)).count() > 1 && t.is_some()
    }
}

/// [`Cache::has_pair`]'s locale tests, by interned locale.
#[derive(Debug)]
pub(crate) struct PairFilter {
    source: Vec<bool>,
    target_equal: Vec<bool>,
    target: Vec<bool>,
}

/// Entry ids are dense (SQLite `AUTOINCREMENT` from 1), so a vector indexed by id;
/// ids far beyond the count (a database written by other means) go to a map.
#[derive(Debug, Default)]
pub(crate) struct EntryLocales {
    dense: Vec<Option<Box<[u16]>>>,
    sparse: HashMap<EntryId, Box<[u16]>>,
}

impl EntryLocales {
    fn slot(&self, id: EntryId) -> Option<usize> {
        let i = usize::try_from(id.0).ok()?;
        (i < 1 << 26).then_some(i)
    }

    pub(crate) fn get(&self, id: EntryId) -> Option<&[u16]> {
        match self.slot(id) {
            Some(i) => self.dense.get(i).and_then(|o| o.as_deref()),
            None => self.sparse.get(&id).map(|b| &**b),
        }
    }

    pub(crate) fn insert(&mut self, id: EntryId, locs: Box<[u16]>) {
        match self.slot(id) {
            Some(i) => {
                if self.dense.len() <= i {
                    self.dense.resize_with(i + 1, || None);
                }
                self.dense[i] = Some(locs);
            }
            None => {
                self.sparse.insert(id, locs);
            }
        }
    }

    pub(crate) fn remove(&mut self, id: EntryId) -> Option<Box<[u16]>> {
        match self.slot(id) {
            Some(i) => self.dense.get_mut(i).and_then(Option::take),
            None => self.sparse.remove(&id),
        }
    }
}
