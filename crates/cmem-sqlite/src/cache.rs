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
    /// Interned locale lists (an entry's variant locales, in variant order): a memory
    /// holds few distinct ones (`[en, de]`, …).
    signatures: Vec<Box<[u16]>>,
    signature_of: HashMap<Box<[u16]>, u32>,
    /// The signature of each entry.
    entry_signature: EntrySignatures,
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

    /// Records the variant locales (interned, in variant order) of entry `id`.
    pub(crate) fn set_locales(&mut self, id: EntryId, locs: Vec<u16>) {
        let locs = locs.into_boxed_slice();
        let sig = match self.signature_of.get(&locs) {
            Some(s) => *s,
            None => {
                let s = self.signatures.len() as u32;
                self.signatures.push(locs.clone());
                self.signature_of.insert(locs, s);
                s
            }
        };
        self.entry_signature.insert(id, sig);
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
        self.set_locales(id, locs);
    }

    /// Forgets a deleted entry.
    pub(crate) fn remove(&mut self, id: EntryId) {
        if let Some(sig) = self.entry_signature.remove(id) {
            if let Some(locs) = self.signatures.get(sig as usize) {
                for li in locs.iter() {
                    if let Some(ix) = self.indexes.get_mut(li) {
                        ix.remove(id);
                    }
                }
            }
        }
    }

    /// The interned locales that match `locale` by the prefix rule.
    pub(crate) fn matching(&self, locale: &Locale) -> Vec<u16> {
        (0..self.locales.len()).filter(|&i| self.locales[i].matches(locale)).map(|i| i as u16).collect()
    }

    /// For one candidate query, whether each locale list has a source variant and a
    /// different target variant: the rule of [`MemStore`](cmem_core::MemStore).
    pub(crate) fn pair_filter(&self, source: &Locale, target: &Locale) -> PairFilter {
        let ok = self
            .signatures
            .iter()
            .map(|locs| {
                let loc = |i: &u16| &self.locales[usize::from(*i)];
                let s = locs.iter().position(|l| loc(l).matches(source));
                let t = locs
                    .iter()
                    .position(|l| loc(l) == target)
                    .or_else(|| locs.iter().position(|l| loc(l).matches(target)));
                matches!((s, t), (Some(s), Some(t)) if s != t)
                    || locs.iter().filter(|l| loc(l).matches(source)).count() > 1 && t.is_some()
            })
            .collect();
        PairFilter { ok }
    }

    /// True when entry `id` has the locale pair of `f`'s query. Called for every key
    /// offered, hence the per-signature answers and the dense id table.
    pub(crate) fn has_pair(&self, id: EntryId, f: &PairFilter) -> bool {
        self.entry_signature.get(id).and_then(|s| f.ok.get(s as usize).copied()).unwrap_or(false)
    }
}

/// [`Cache::has_pair`]'s answers for one query, by signature.
#[derive(Debug)]
pub(crate) struct PairFilter {
    ok: Vec<bool>,
}

const NONE: u32 = u32::MAX;

/// Entry ids are dense (SQLite `AUTOINCREMENT` from 1), so a vector indexed by id;
/// ids far beyond that range (a database written by other means) go to a map.
#[derive(Debug, Default)]
struct EntrySignatures {
    dense: Vec<u32>,
    sparse: HashMap<EntryId, u32>,
}

impl EntrySignatures {
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
