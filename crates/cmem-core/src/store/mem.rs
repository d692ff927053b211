//! The in-memory store: for session-scoped leverage during batch work, and the
//! reference every other store is checked against.
//!
//! Fuzzy candidates come from the shared [`CandidateIndex`]: a trigram index per locale
//! with a count filter and length bounds, the same one the SQLite store uses.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::align::WordModel;

use crate::error::{Error, ErrorKind, Result};
use crate::index::candidate_index::CandidateIndex;
use crate::model::entry::{Entry, EntryId, NewEntry, WriteOutcome};
use crate::model::key::{normalize_text, KeyKind, Keys};
use crate::model::locale::Locale;
use crate::model::version::{select_versions, Version, VersionQuery, VersionReader};
use crate::store::{
    replace_conflict, replaced_entry, CandidateQuery, CandidateSink, Capabilities, ContentMemory, ExactQuery,
    IndexControl, MetaStore, ReadScope, SearchHit, SearchQuery, Stats, WordAnswer, WordIndex, WordModels,
    WordQuery, WriteSession,
};

/// An in-memory [`ContentMemory`], safe to share between threads.
#[derive(Debug, Default)]
pub struct MemStore {
    inner: RwLock<Inner>,
    /// Held by every writer (a write, a delete, a whole session): one writer at a time,
    /// as in SQLite, so a session's outcomes stay true until it commits.
    writer: Mutex<()>,
    /// Counts the times the entries were locked for writing: the
    /// [change mark](crate::store::IndexControl::change_mark).
    changes: std::sync::atomic::AtomicU64,
    /// The given term lists as parsed (see [`GivenCache`](crate::store::learn::GivenCache)).
    given: crate::store::learn::GivenCache,
}

#[derive(Debug, Default)]
struct Inner {
    entries: BTreeMap<EntryId, Entry>,
    /// Word models by [`pair_key`](crate::align::pair_key), kept in memory only.
    word_models: HashMap<String, Arc<WordModel>>,
    next_id: i64,
    by_identity: HashMap<u64, Vec<EntryId>>,
    /// Per key kind: key → the entries holding it, with the interned locale of the
    /// variant that does (ids ascending).
    exact: [ExactIndex; 3],
    /// Fuzzy candidates, and the interned locales the exact indexes refer to.
    candidates: CandidateIndex,
    units: HashMap<String, Vec<EntryId>>,
    /// Named values about the memory ([`crate::store::MetaStore::meta`]).
    meta: BTreeMap<String, String>,
}

/// Key → the entries holding it, each with the interned locale of the variant that does.
type ExactIndex = HashMap<Box<str>, Vec<(EntryId, u16)>>;

fn kind_index(kind: KeyKind) -> usize {
    match kind {
        KeyKind::Generalized => 0,
        KeyKind::Structural => 1,
        KeyKind::Plain => 2,
    }
}

impl MemStore {
    /// An empty store.
    pub fn new() -> Self {
        MemStore::default()
    }

    /// An empty store whose candidate index holds only the keys the lookups of `served`
    /// read (`None`: every key; see [`ServedPairs`](crate::ServedPairs)).
    pub fn serving(served: Option<crate::ServedPairs>) -> Self {
        let store = MemStore::default();
        if let Ok(mut inner) = store.inner.write() {
            inner.candidates = CandidateIndex::new().serving(served);
        }
        store
    }

    fn read(&self) -> Result<RwLockReadGuard<'_, Inner>> {
        self.inner.read().map_err(|_| Error::new(ErrorKind::Store, "memory store: lock poisoned"))
    }

    fn writer(&self) -> Result<MutexGuard<'_, ()>> {
        self.writer.lock().map_err(|_| Error::new(ErrorKind::Store, "memory store: writer lock poisoned"))
    }

    fn write_lock(&self) -> Result<RwLockWriteGuard<'_, Inner>> {
        let guard =
            self.inner.write().map_err(|_| Error::new(ErrorKind::Store, "memory store: lock poisoned"))?;
        // Counted with the lock held: a reader that read the mark before this write
        // reads another one after it.
        self.changes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(guard)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.read().map(|i| i.entries.len()).unwrap_or(0)
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Validates a batch, naming the offending entry.
fn validate_batch(entries: &[NewEntry]) -> Result<()> {
    for (i, e) in entries.iter().enumerate() {
        e.validate().map_err(|err| {
            Error::new(err.kind(), format!("entry {} of the batch: {}", i + 1, err.message()))
        })?;
    }
    Ok(())
}

impl Inner {
    /// The stored entry equal in identity to `new`, if any.
    fn same_as(&self, new: &NewEntry, hash: u64) -> Option<EntryId> {
        let ids = self.by_identity.get(&hash)?;
        ids.iter().copied().find(|id| self.entries.get(id).is_some_and(|e| new.same_identity(e)))
    }

    fn insert(&mut self, new: &NewEntry) -> WriteOutcome {
        let hash = new.identity_hash();
        if let Some(id) = self.same_as(new, hash) {
            if let Some(existing) = self.entries.get_mut(&id) {
                existing.reapprove(new);
            }
            return WriteOutcome::Deduplicated(id);
        }
        self.next_id += 1;
        let id = EntryId(self.next_id);
        self.index(new.clone().into_entry(id), hash);
        WriteOutcome::Inserted(id)
    }

    /// Replaces entry `id` by what [`replaced_entry`] makes of it and `new` (the caller
    /// checked that no other entry has `new`'s identity); false when there is none.
    fn replace(&mut self, id: EntryId, new: &NewEntry) -> bool {
        let Some(existing) = self.entries.get(&id) else { return false };
        let entry = replaced_entry(existing, new);
        self.remove(id);
        self.index(entry, new.identity_hash());
        true
    }

    /// Stores `entry`, whose identity hashes to `hash`, in every index.
    fn index(&mut self, entry: Entry, hash: u64) {
        let id = entry.id;
        let variants: Vec<(Locale, Keys)> =
            entry.variants.iter().map(|v| (v.locale.clone(), v.keys())).collect();
        for (locale, keys) in &variants {
            let locale = self.candidates.locale_id(locale);
            for kind in KeyKind::ALL {
                let list = self.exact[kind_index(kind)].entry(keys.get(kind).into()).or_default();
                if list.last() != Some(&(id, locale)) {
                    list.push((id, locale));
                }
            }
        }
        self.candidates.add(id, &variants);
        if !entry.unit.is_empty() {
            self.units.entry(entry.unit.clone()).or_default().push(id);
        }
        self.by_identity.entry(hash).or_default().push(id);
        self.entries.insert(id, entry);
    }

    fn remove(&mut self, id: EntryId) -> bool {
        let Some(entry) = self.entries.remove(&id) else { return false };
        for v in &entry.variants {
            let keys = v.keys();
            for kind in KeyKind::ALL {
                if let Some(list) = self.exact[kind_index(kind)].get_mut(keys.get(kind)) {
                    list.retain(|(x, _)| *x != id);
                }
            }
        }
        self.candidates.remove(id);
        if let Some(list) = self.units.get_mut(&entry.unit) {
            list.retain(|x| *x != id);
        }
        if let Some(list) = self.by_identity.get_mut(&entry.identity_hash()) {
            list.retain(|x| *x != id);
        }
        true
    }
}

impl ContentMemory for MemStore {
    fn write(&self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        validate_batch(entries)?;
        let _writer = self.writer()?;
        let mut inner = self.write_lock()?;
        let outcomes = entries.iter().map(|e| inner.insert(e)).collect();
        inner.candidates.settle();
        Ok(outcomes)
    }

    fn begin(&self) -> Result<Box<dyn WriteSession + '_>> {
        let writer = self.writer()?;
        let next_id = self.read()?.next_id;
        Ok(Box::new(MemSession {
            store: self,
            _writer: writer,
            staged: Vec::new(),
            pending: HashMap::new(),
            pending_hash: HashMap::new(),
            shadowed: HashSet::new(),
            first_id: next_id,
            next_id,
        }))
    }

    fn get(&self, id: EntryId) -> Result<Option<Entry>> {
        Ok(self.read()?.entries.get(&id).cloned())
    }

    fn delete(&self, id: EntryId) -> Result<bool> {
        let _writer = self.writer()?;
        Ok(self.write_lock()?.remove(id))
    }

    fn entries(&self, after: Option<EntryId>, limit: usize) -> Result<Vec<Entry>> {
        let inner = self.read()?;
        let start = after.map_or(i64::MIN, |a| a.0.saturating_add(1));
        Ok(inner.entries.range(EntryId(start)..).take(limit).map(|(_, e)| e.clone()).collect())
    }

    fn exact(&self, q: &ExactQuery<'_>) -> Result<Vec<Entry>> {
        let inner = self.read()?;
        let Some(holders) = inner.exact[kind_index(q.kind)].get(q.key) else {
            return Ok(Vec::new());
        };
        // The map holds the key itself: only the locales are left to check (no keys
        // re-derived per hit).
        let src_ok = inner.candidates.sets().matching(q.source);
        let mut ids: Vec<EntryId> =
            holders.iter().filter(|(_, l)| src_ok[usize::from(*l)]).map(|(id, _)| *id).collect();
        ids.dedup();
        Ok(ids
            .iter()
            .filter_map(|id| inner.entries.get(id))
            .filter(|e| e.lookup_variant(q.target).is_some())
            .cloned()
            .collect())
    }

    fn candidates(&self, q: &CandidateQuery<'_>, sink: &mut dyn CandidateSink) -> Result<()> {
        self.read()?.candidates.offer(q, sink);
        Ok(())
    }

    fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        q.validate()?;
        let words: Vec<String> =
            normalize_text(&q.words).split(' ').filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
        if words.is_empty() || q.limit == 0 {
            return Ok(Vec::new());
        }
        let inner = self.read()?;
        let mut found: Vec<(&Entry, String, Vec<usize>)> = Vec::new();
        let mut df = vec![0usize; words.len()];
        for entry in inner.entries.values() {
            let Some(v) = entry.variant(&q.locale) else { continue };
            let text = v.keys().plain;
            let lower = text.to_lowercase();
            let counts: Vec<usize> = words.iter().map(|w| lower.matches(w.as_str()).count()).collect();
            let held = counts.iter().filter(|c| **c > 0).count();
            if held == 0 || (!q.any && held < words.len()) {
                continue;
            }
            for (d, c) in df.iter_mut().zip(&counts) {
                *d += usize::from(*c > 0);
            }
            found.push((entry, text, counts));
        }
        // Occurrences weighed by each word's rarity among the texts found (as BM25's idf),
        // over the text's length.
        let n = found.len() as f64;
        let idf: Vec<f64> = df.iter().map(|d| (1.0 + n / (*d).max(1) as f64).ln()).collect();
        let mut hits: Vec<SearchHit> = Vec::with_capacity(found.len());
        for (entry, text, counts) in found {
            let weighted: f64 = counts.iter().zip(&idf).map(|(c, w)| *c as f64 * w).sum();
            let score = weighted / (1.0 + (text.chars().count() as f64).ln());
            hits.push(SearchHit { entry: entry.clone(), score, snippet: highlight(&text, &words) });
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.id.cmp(&b.entry.id)));
        hits.truncate(q.limit);
        Ok(hits)
    }

    fn stats(&self) -> Result<Stats> {
        let inner = self.read()?;
        let mut pairs: BTreeMap<(Locale, Locale), u64> = BTreeMap::new();
        let mut variants = 0;
        for e in inner.entries.values() {
            variants += e.variants.len() as u64;
            if let Some((first, rest)) = e.variants.split_first() {
                for v in rest {
                    *pairs.entry((first.locale.clone(), v.locale.clone())).or_default() += 1;
                }
            }
        }
        Ok(Stats::from_pairs(inner.entries.len() as u64, variants, pairs, None))
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities::none().versions(self).index(self).meta(self).word_models(self).words(self)
    }
}

/// The candidate index holds every locale's keys, and so its word index their words.
impl WordIndex for MemStore {
    fn words(&self, q: &WordQuery<'_>) -> Result<Option<WordAnswer>> {
        Ok(Some(self.read()?.candidates.words(q)))
    }
}

/// The in-memory store's index lives and dies with it: nothing to warm ahead or keep,
/// reads straight from the store; its change mark counts its writes.
impl IndexControl for MemStore {
    fn warm(&self, _source: &Locale) -> Result<()> {
        Ok(())
    }

    fn index_persists(&self) -> bool {
        false
    }

    fn read_scope(&self, _source: &Locale) -> Result<ReadScope<'_>> {
        Ok(ReadScope::direct(self))
    }

    fn change_mark(&self) -> Result<Option<u64>> {
        Ok(Some(self.changes.load(std::sync::atomic::Ordering::SeqCst)))
    }

    fn source_locales(&self) -> Result<Option<Vec<Locale>>> {
        Ok(None)
    }
}

impl MetaStore for MemStore {
    fn meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self.read()?.meta.get(key).cloned())
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.write_lock()?.meta.insert(key.to_owned(), value.to_owned());
        self.given.forget(key);
        Ok(())
    }
}

impl WordModels for MemStore {
    fn word_model(&self, source: &Locale, target: &Locale) -> Result<Option<Arc<WordModel>>> {
        Ok(self.read()?.word_models.get(&crate::align::pair_key(source, target)).cloned())
    }

    fn save_word_model(&self, source: &Locale, target: &Locale, model: Arc<WordModel>) -> Result<()> {
        self.write_lock()?.word_models.insert(crate::align::pair_key(source, target), model);
        Ok(())
    }

    /// Read under no change mark (the mark counts entry writes, not metadata): the list's
    /// text is looked up each time, and parsed again only when it changed.
    fn given_glossary(
        &self,
        source: &Locale,
        target: &Locale,
    ) -> Result<Option<Arc<crate::align::Glossary>>> {
        self.given.get_or_read(source, target, None, |key| MetaStore::meta(self, key)).map(Some)
    }
}

impl VersionReader for MemStore {
    fn versions(&self, q: &VersionQuery, exclude: Option<EntryId>) -> Result<Vec<Version>> {
        q.validate()?;
        let inner = self.read()?;
        let entries: Vec<Entry> = inner
            .units
            .get(&q.unit)
            .map(|ids| ids.iter().filter_map(|id| inner.entries.get(id).cloned()).collect())
            .unwrap_or_default();
        Ok(select_versions(entries, q, exclude))
    }
}

/// A [`WriteSession`] of the in-memory store: it stages the writes and replacements and
/// applies them under the store's write lock at commit, so readers never see part of it.
/// It holds the store's writer lock throughout, so the committed entries cannot change
/// under it and the outcomes it predicts are the ones applying gives.
struct MemSession<'a> {
    store: &'a MemStore,
    _writer: MutexGuard<'a, ()>,
    /// Every write and replacement, in order: replayed at commit.
    staged: Vec<Staged>,
    /// The identities the session gave entries (its new ones, and the ones it
    /// replaced) by identity hash, for deduplication against them.
    pending: HashMap<u64, Vec<Entry>>,
    /// The bucket of `pending` each such entry is in.
    pending_hash: HashMap<EntryId, u64>,
    /// Committed entries the session replaced: their stored identity no longer counts.
    shadowed: HashSet<EntryId>,
    /// The store's last id when the session began: ids above it are the session's.
    first_id: i64,
    /// The last id handed out (the store's own at the start).
    next_id: i64,
}

/// One step of a [`MemSession`], replayed at commit.
enum Staged {
    Write(NewEntry),
    Replace(EntryId, NewEntry),
}

impl MemSession<'_> {
    /// The entry equal in identity to `new` as the session sees the store: committed
    /// entries it did not replace, then the ones it gave an identity.
    fn same_as(&self, inner: &Inner, new: &NewEntry, hash: u64) -> Option<EntryId> {
        let committed = inner.by_identity.get(&hash).and_then(|ids| {
            ids.iter().copied().find(|id| {
                !self.shadowed.contains(id) && inner.entries.get(id).is_some_and(|e| new.same_identity(e))
            })
        });
        committed.or_else(|| {
            self.pending.get(&hash).and_then(|es| es.iter().find(|e| new.same_identity(e))).map(|e| e.id)
        })
    }

    /// Files `entry` under its identity among the session's.
    fn remember(&mut self, entry: Entry, hash: u64) {
        self.pending_hash.insert(entry.id, hash);
        self.pending.entry(hash).or_default().push(entry);
    }
}

impl WriteSession for MemSession<'_> {
    fn write(&mut self, entries: &[NewEntry]) -> Result<Vec<WriteOutcome>> {
        validate_batch(entries)?;
        let store = self.store;
        let inner = store.read()?;
        let mut outcomes = Vec::with_capacity(entries.len());
        for new in entries {
            let hash = new.identity_hash();
            let outcome = match self.same_as(&inner, new, hash) {
                Some(id) => WriteOutcome::Deduplicated(id),
                None => {
                    self.next_id += 1;
                    let id = EntryId(self.next_id);
                    self.remember(new.clone().into_entry(id), hash);
                    WriteOutcome::Inserted(id)
                }
            };
            outcomes.push(outcome);
        }
        self.staged.extend(entries.iter().cloned().map(Staged::Write));
        Ok(outcomes)
    }

    fn replace(&mut self, id: EntryId, entry: &NewEntry) -> Result<bool> {
        entry.validate()?;
        let store = self.store;
        let inner = store.read()?;
        let committed = inner.entries.contains_key(&id);
        let own = self.first_id < id.0 && id.0 <= self.next_id;
        if !(committed || own) {
            return Ok(false);
        }
        let hash = entry.identity_hash();
        if let Some(other) = self.same_as(&inner, entry, hash).filter(|other| *other != id) {
            return Err(replace_conflict(id, other));
        }
        if let Some(old) = self.pending_hash.remove(&id) {
            if let Some(bucket) = self.pending.get_mut(&old) {
                bucket.retain(|e| e.id != id);
            }
        }
        if committed {
            self.shadowed.insert(id);
        }
        self.remember(entry.clone().into_entry(id), hash);
        self.staged.push(Staged::Replace(id, entry.clone()));
        Ok(true)
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let mut inner = self.store.write_lock()?;
        for step in &self.staged {
            match step {
                Staged::Write(new) => {
                    inner.insert(new);
                }
                Staged::Replace(id, new) => {
                    inner.replace(*id, new);
                }
            }
        }
        inner.candidates.settle();
        Ok(())
    }
}

/// Wraps every case-insensitive occurrence of `words` in `text` in `[` `]`.
pub fn highlight(text: &str, words: &[String]) -> String {
    let lower: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
    let chars: Vec<char> = text.chars().collect();
    if lower.len() != chars.len() {
        // Case folding changed the length (e.g. 'İ'); do not risk misplaced marks.
        return text.to_owned();
    }
    let mut marked = vec![false; chars.len()];
    for w in words {
        let w: Vec<char> = w.chars().collect();
        if w.is_empty() || w.len() > lower.len() {
            continue;
        }
        for i in 0..=lower.len() - w.len() {
            if lower[i..i + w.len()] == w[..] {
                marked[i..i + w.len()].iter_mut().for_each(|m| *m = true);
            }
        }
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in chars.iter().enumerate() {
        if marked[i] && (i == 0 || !marked[i - 1]) {
            out.push('[');
        }
        out.push(*c);
        if marked[i] && (i + 1 == chars.len() || !marked[i + 1]) {
            out.push(']');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::entry::{Origin, Variant};
    use crate::model::run::Run;

    #[test]
    fn the_change_mark_moves_with_every_write() {
        let store = MemStore::new();
        let first = store.change_mark().unwrap();
        assert!(first.is_some());
        assert_eq!(store.change_mark().unwrap(), first);
        store.write(&[pair("Open", "Öffnen", None)]).unwrap();
        let second = store.change_mark().unwrap();
        assert_ne!(second, first);
        store.write(&[pair("Open", "Öffnen", Some("p"))]).unwrap();
        assert_ne!(store.change_mark().unwrap(), second, "a re-approval counts");
    }

    fn pair(src: &str, tgt: &str, origin: Option<&str>) -> NewEntry {
        let l = |t: &str| Locale::parse(t).unwrap();
        let mut e = NewEntry::pair(
            Variant::new(l("en"), vec![Run::text(src)]),
            Variant::new(l("de"), vec![Run::text(tgt)]),
        );
        if let Some(p) = origin {
            e.origins = vec![Origin {
                project_id: p.to_owned(),
                context_fingerprint: String::new(),
                created_at: String::new(),
            }];
        }
        e
    }

    #[test]
    fn a_session_predicts_the_outcomes_it_applies() {
        let store = MemStore::new();
        store.write(&[pair("a", "b", Some("p1"))]).unwrap();
        let mut session = store.begin().unwrap();
        let out = session
            .write(&[pair("a", "b", Some("p2")), pair("c", "d", None), pair("c", "d", Some("p3"))])
            .unwrap();
        assert_eq!(
            out,
            vec![
                WriteOutcome::Deduplicated(EntryId(1)),
                WriteOutcome::Inserted(EntryId(2)),
                WriteOutcome::Deduplicated(EntryId(2))
            ]
        );
        // Staged, not applied: readers see the old state, origins included.
        assert_eq!(store.len(), 1);
        assert_eq!(store.get(EntryId(1)).unwrap().unwrap().origins.len(), 1);
        session.commit().unwrap();
        assert_eq!(store.len(), 2);
        assert_eq!(store.get(EntryId(1)).unwrap().unwrap().origins.len(), 2);
        assert_eq!(store.get(EntryId(2)).unwrap().unwrap().origins.len(), 1);
    }

    #[test]
    fn a_dropped_session_leaves_nothing_and_a_bad_batch_nothing_of_it() {
        let store = MemStore::new();
        store.write(&[pair("a", "b", None)]).unwrap();
        {
            let mut session = store.begin().unwrap();
            session.write(&[pair("x", "y", None)]).unwrap();
            let bad =
                NewEntry { variants: vec![pair("z", "w", None).variants[0].clone()], ..NewEntry::default() };
            assert!(session.write(&[pair("q", "r", None), bad]).is_err());
        }
        assert_eq!(store.len(), 1);
        let mut session = store.begin().unwrap();
        // The ids the dropped session handed out are free again.
        assert_eq!(session.write(&[pair("x", "y", None)]).unwrap(), vec![WriteOutcome::Inserted(EntryId(2))]);
        session.commit().unwrap();
        assert_eq!(store.len(), 2);
    }
}
