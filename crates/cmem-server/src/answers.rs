//! The amaGama routes' answer cache: translation tools ask for the same strings again and
//! again (every translator who opens a unit, every reload), and an answer holds for as
//! long as the memory does not change. Answers are kept by request (locales, options,
//! text, and of several memories the ones asked) under the memory's
//! [change mark](cmem::IndexControl::change_mark), or of several one mark that changes
//! when any of them changes; the first request that finds another mark empties the cache. A store that has no mark caches
//! nothing. The same mark gives the answer its `ETag`, so a client that sends it back in
//! `If-None-Match` gets `304 Not Modified` until the memory changes.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Answers kept under one change mark, the oldest dropped first past the capacity.
#[derive(Debug)]
pub(crate) struct Answers {
    capacity: usize,
    state: Mutex<State>,
    hits: AtomicU64,
    misses: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    mark: Option<u64>,
    answers: HashMap<String, Arc<Value>>,
    order: VecDeque<String>,
}

impl Answers {
    /// A cache of at most `capacity` answers (0: none kept).
    pub(crate) fn new(capacity: usize) -> Answers {
        Answers { capacity, state: Mutex::default(), hits: AtomicU64::new(0), misses: AtomicU64::new(0) }
    }

    /// The answer to `key` computed under `mark`, if kept. A new mark empties the cache.
    pub(crate) fn get(&self, mark: u64, key: &str) -> Option<Arc<Value>> {
        if self.capacity == 0 {
            return None;
        }
        let Ok(mut state) = self.state.lock() else { return None };
        if state.mark != Some(mark) {
            *state = State { mark: Some(mark), ..State::default() };
        }
        let found = state.answers.get(key).cloned();
        let counter = if found.is_some() { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps `answer` to `key`, computed after `mark` was read; dropped when the memory
    /// has changed since (another mark is current).
    pub(crate) fn put(&self, mark: u64, key: String, answer: Arc<Value>) {
        if self.capacity == 0 {
            return;
        }
        let Ok(mut state) = self.state.lock() else { return };
        if state.mark != Some(mark) || state.answers.contains_key(&key) {
            return;
        }
        while state.answers.len() >= self.capacity {
            let Some(oldest) = state.order.pop_front() else { break };
            state.answers.remove(&oldest);
        }
        state.order.push_back(key.clone());
        state.answers.insert(key, answer);
    }

    /// Requests answered from the cache, and those that were not.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.hits.load(Ordering::Relaxed), self.misses.load(Ordering::Relaxed))
    }
}

/// The `ETag` of the answer to `key` under `mark` (a quoted string).
pub(crate) fn etag(mark: u64, key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("\"{mark:x}-{hex}\"")
}

/// True when an `If-None-Match` header value names `tag` (or is `*`).
pub(crate) fn matches(if_none_match: &str, tag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|t| t == "*" || t == tag || t.strip_prefix("W/") == Some(tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_hold_under_one_mark_and_are_dropped_at_the_next() {
        let cache = Answers::new(2);
        let a = Arc::new(Value::from("a"));
        assert!(cache.get(1, "q").is_none());
        cache.put(1, "q".into(), Arc::clone(&a));
        assert_eq!(cache.get(1, "q"), Some(Arc::clone(&a)));
        // The memory changed: nothing of before holds.
        assert!(cache.get(2, "q").is_none());
        // An answer computed under the old mark is not kept under the new one.
        cache.put(1, "q".into(), Arc::clone(&a));
        assert!(cache.get(2, "q").is_none());
        // The oldest goes first past the capacity.
        for k in ["x", "y", "z"] {
            cache.put(2, k.into(), Arc::clone(&a));
        }
        assert!(cache.get(2, "x").is_none());
        assert!(cache.get(2, "z").is_some());
        assert_eq!(cache.counts(), (2, 4));
        // Capacity 0 keeps nothing.
        let none = Answers::new(0);
        none.put(1, "q".into(), a);
        assert!(none.get(1, "q").is_none());
    }

    #[test]
    fn etags_name_the_mark_and_the_request() {
        let t = etag(10, "en\0de\0Open");
        assert!(t.starts_with("\"a-") && t.ends_with('"'));
        assert_ne!(t, etag(11, "en\0de\0Open"));
        assert_ne!(t, etag(10, "en\0de\0Close"));
        assert!(matches(&t, &t));
        assert!(matches(&format!("\"other\", W/{t}"), &t));
        assert!(matches("*", &t));
        assert!(!matches("\"other\"", &t));
    }
}
