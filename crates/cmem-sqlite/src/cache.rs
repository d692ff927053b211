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

use cmem_core::{EntryId, GramIndex, KindSet, Locale, LocaleSets};

/// Locales of every entry and the per-locale indexes built so far.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    /// `PRAGMA data_version` when the cache was loaded; `None` = not loaded.
    pub(crate) data_version: Option<i64>,
    /// Interned locales and locale sets (an entry's variant locales, in variant order): a
    /// memory holds few distinct sets (`[en, de]`, …).
    pub(crate) sets: LocaleSets,
    /// The locale set of each entry.
    entry_set: EntrySets,
    /// Indexes by interned locale.
    pub(crate) indexes: HashMap<u16, GramIndex>,
}

impl Cache {
    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        *self = Cache::default();
    }

    /// Records the variant locales (interned, in variant order) of entry `id`; returns the
    /// number of their set.
    pub(crate) fn set_locales(&mut self, id: EntryId, locs: &[u16]) -> u32 {
        let set = self.sets.set_id(locs);
        self.entry_set.insert(id, set);
        set
    }

    /// The locale set of entry `id`, when known.
    pub(crate) fn set_of(&self, id: EntryId) -> Option<u32> {
        self.entry_set.get(id)
    }

    /// Records a written entry: its locales, and its keys in every built index.
    pub(crate) fn add(&mut self, id: EntryId, variants: &[(Locale, Vec<(String, KindSet)>)]) {
        if self.data_version.is_none() {
            return;
        }
        let locs: Vec<u16> = variants.iter().map(|(l, _)| self.sets.locale_id(l)).collect();
        let set = self.set_locales(id, &locs);
        for (li, (_, keys)) in locs.iter().zip(variants) {
            if let Some(ix) = self.indexes.get_mut(li) {
                for (key, kinds) in keys {
                    ix.add_key(id, set, *kinds, key);
                }
            }
        }
    }

    /// Settles the indexes after a batch of [`add`](Self::add)s (see [`GramIndex::settle`]).
    pub(crate) fn settle(&mut self) {
        for ix in self.indexes.values_mut() {
            ix.settle();
        }
    }

    /// Forgets a deleted entry.
    pub(crate) fn remove(&mut self, id: EntryId) {
        if let Some(set) = self.entry_set.remove(id) {
            for li in self.sets.set(set) {
                if let Some(ix) = self.indexes.get_mut(li) {
                    ix.remove(id);
                }
            }
        }
    }

    /// The interned locales that match `locale` by the prefix rule.
    pub(crate) fn matching(&self, locale: &Locale) -> Vec<u16> {
        let ok = self.sets.matching(locale);
        (0..ok.len()).filter(|&i| ok[i]).map(|i| i as u16).collect()
    }
}

const NONE: u32 = u32::MAX;

/// The locale set of each entry. Entry ids are dense (SQLite `AUTOINCREMENT` from 1), so
/// a vector indexed by id;
/// ids far beyond that range (a database written by other means) go to a map.
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

    fn insert(&mut self, id: EntryId, sig: u32) {
        match Self::slot(id) {
            Some(i) => {
                if self.dense.len() <= i {
                    self.dense.resize(i + 1, NONE);
                }
                self.dense[i] = sig;
            }
            None => {
                self.sparse.insert(id, sig);
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
