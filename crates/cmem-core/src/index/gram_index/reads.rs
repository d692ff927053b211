//! Reading keys as an offer sees them: a gram's lists, a key's record, text and chain.

use crate::index::distance::CharSketch;
use crate::index::query::KeyText;
use crate::model::entry::EntryId;
use crate::model::key::KindSet;

use super::posting::END;
use super::posting::{Lists, Posting};
use super::GramIndex;

impl GramIndex {
    /// The lists of `gram`: the persisted one and the one of keys added since.
    pub(super) fn lists(&self, gram: u64) -> Lists<'_> {
        let (base, persisted) = self.base.as_ref().and_then(|b| b.grams.list(gram)).unzip();
        let posting = self.postings.get(&gram);
        let added = posting.map(Posting::view);
        let size = persisted.unwrap_or(0) + posting.map_or(0, |p| p.keys);
        Lists { base, added, size }
    }

    /// The longest key length indexed.
    pub(super) fn max_len(&self) -> usize {
        let base = self.base.as_ref().map_or(0, |b| b.grams.max_len());
        base.max(self.by_len.len().saturating_sub(1))
    }

    /// The keys of `len` characters, persisted ones first (lower numbers).
    pub(super) fn by_len(&self, len: usize) -> impl Iterator<Item = u32> + '_ {
        let base = self.base.as_ref().map_or(&[][..], |b| b.grams.by_len(len));
        let added = self.by_len.get(len).map_or(&[][..], Vec::as_slice);
        base.iter().chain(added).copied()
    }

    /// Key `d` as an offer reads it: entry, locale set, kinds, text, length in
    /// characters and sketch; `None` when dead or unknown.
    pub(super) fn doc(&self, d: u32) -> Option<DocView<'_>> {
        let base_len = self.base_len();
        match (d as usize).checked_sub(base_len) {
            Some(i) => {
                let doc = self.docs.get(i).filter(|doc| doc.alive)?;
                // `len` saturates at u16::MAX; count such giant keys.
                let len = match doc.len {
                    u16::MAX => doc.key.chars().count(),
                    l => usize::from(l),
                };
                Some(DocView {
                    entry: doc.entry,
                    group: doc.group,
                    kinds: doc.kinds,
                    key: KeyText::Text(&doc.key),
                    len,
                    sketch: doc.sketch,
                })
            }
            None => {
                let base = self.base.as_ref()?;
                if base.dead.get(d as usize).copied().unwrap_or(true) {
                    return None;
                }
                let doc = base.grams.doc(d as usize)?;
                let group = base.group_map.get(doc.group as usize).copied().unwrap_or(u32::MAX);
                // A length saturated at u16::MAX is counted (giant keys only).
                let len = match doc.len {
                    u16::MAX => std::str::from_utf8(doc.key).ok()?.chars().count(),
                    l => usize::from(l),
                };
                Some(DocView {
                    entry: doc.entry,
                    group,
                    kinds: doc.kinds,
                    key: KeyText::Utf8(doc.key),
                    len,
                    sketch: doc.sketch,
                })
            }
        }
    }

    /// Reads the records of keys `ds` ahead of their offers: the loads of different keys
    /// do not wait for each other, so their cache misses overlap instead of coming one
    /// after another as the offers come. A key's text is read only when its sketch lets
    /// it through (see [`FrozenGrams::touch`]).
    pub(super) fn touch(&self, ds: impl Iterator<Item = u32>) {
        let base_len = self.base_len();
        let mut sum = 0usize;
        for d in ds {
            sum = sum.wrapping_add(match (d as usize).checked_sub(base_len) {
                Some(i) => self.docs.get(i).map_or(0, |doc| usize::from(doc.len)),
                None => self.base.as_ref().map_or(0, |b| b.grams.touch(d as usize)),
            });
        }
        std::hint::black_box(sum);
    }

    /// Keys in chains of keys of the same text, persisted or added (0: every key is
    /// listed, and the walk need not look for chains).
    pub(super) fn chained(&self) -> usize {
        self.same.chained + self.base.as_ref().map_or(0, |b| b.grams.chained())
    }

    /// The keys key `d` stands for in the lists: itself and its chain of keys of the same
    /// text.
    pub(super) fn weight(&self, d: u32) -> usize {
        match (d as usize).checked_sub(self.base_len()) {
            Some(i) if self.same.more(i) => self.same.weight.get(i).map_or(1, |&w| w as usize),
            Some(_) => 1,
            None => match &self.base {
                Some(b) if b.grams.more(d as usize) => b.grams.weight(d as usize),
                _ => 1,
            },
        }
    }

    /// The keys after listed key `d` in its chain of keys of the same text, in order.
    /// A chain starts and ends among the persisted keys or among the added ones.
    pub(super) fn chain(&self, d: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(self.next_in_chain(d), move |&n| self.next_in_chain(n))
    }

    /// The key after `d` in its chain of keys of the same text. The bit first: a key
    /// with no next costs no load of the chains.
    pub(super) fn next_in_chain(&self, d: u32) -> Option<u32> {
        match (d as usize).checked_sub(self.base_len()) {
            Some(i) if self.same.more(i) => self.same.next.get(i).copied().filter(|&n| n != END),
            Some(_) => None,
            None => self.base.as_ref().map(|b| &b.grams).filter(|g| g.more(d as usize))?.next(d as usize),
        }
    }

    /// The key standing for `d` in the lists: the first of its chain, or itself.
    pub(super) fn listed(&self, d: u32) -> u32 {
        let first = match (d as usize).checked_sub(self.base_len()) {
            Some(i) => self.same.first.get(i).copied(),
            None => self.base.as_ref().and_then(|b| b.grams.first(d as usize)),
        };
        first.filter(|&f| f != END).unwrap_or(d)
    }
}

/// How many keys of `list` a scan reads in the length window `lo..=hi`.
pub(super) fn window_size(list: &Lists<'_>, (lo, hi): (usize, usize)) -> usize {
    [list.base, list.added]
        .into_iter()
        .flatten()
        .map(|l| {
            let (inside, _, tail, _) = l.window(lo, hi);
            inside.len() + tail.len()
        })
        .sum()
}

/// A key as an offer reads it (see [`GramIndex::doc`]).
pub(super) struct DocView<'a> {
    pub(super) entry: EntryId,
    pub(super) group: u32,
    pub(super) kinds: KindSet,
    pub(super) key: KeyText<'a>,
    pub(super) len: usize,
    pub(super) sketch: CharSketch,
}
