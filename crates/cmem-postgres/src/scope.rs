//! The read scopes of this thread's lookups (see [`ContentMemory::read_scope`]): which
//! stores' candidate indexes a lookup reads as they are, and what change counter the
//! lookup's entry reads saw.
//!
//! How a lookup learns of other writers in one round trip or none: its scope begins
//! without asking the database (when the index is loaded and no earlier scope found it
//! stale); the statement that reads the lookup's entries returns the change counter of
//! its own snapshot beside them; when the scope ends, that counter is compared with the
//! one the index was loaded at. Equal: no writer committed between the load and the
//! entry read, which came after the lookup began, so the lookup saw every write committed
//! before it began. Different: the lookup is tried again, in a scope that reads the
//! counter (and reloads the index) first. A lookup that read no entry takes the counter
//! read ahead for it since its scope began (see [`crate::ahead`]), or reads it alone when
//! its scope ends.
//!
//! [`ContentMemory::read_scope`]: cmem_core::ContentMemory::read_scope

use std::cell::RefCell;
use std::collections::HashMap;

use cmem_core::{Entry, EntryId};

use crate::ahead::Ticket;

/// One open scope of one store.
#[derive(Debug)]
struct Scope {
    store: u64,
    /// The change counter of the index when the scope began.
    at: Option<i64>,
    /// The scope began by reading the counter: its reads hold without a check.
    checked: bool,
    /// The counter read asked ahead when the scope began.
    ahead: Option<Ticket>,
    /// The counter the scope's entry reads saw, and whether they saw different ones.
    seen: Option<i64>,
    differs: bool,
    /// The entries the scope read: its three exact tiers usually find the same entries,
    /// and a lookup reads each of them once.
    read: HashMap<EntryId, Entry>,
}

thread_local! {
    static SCOPES: RefCell<Vec<Scope>> = const { RefCell::new(Vec::new()) };
}

/// Opens a scope of `store`, whose index is at change counter `at`, with the counter
/// read asked `ahead` for it.
pub(crate) fn enter(store: u64, at: Option<i64>, checked: bool, ahead: Option<Ticket>) {
    SCOPES.with(|s| {
        s.borrow_mut().push(Scope {
            store,
            at,
            checked,
            ahead,
            seen: None,
            differs: false,
            read: HashMap::new(),
        })
    });
}

/// Closes the innermost scope of `store`.
pub(crate) fn leave(store: u64) {
    SCOPES.with(|s| {
        let mut s = s.borrow_mut();
        if let Some(i) = s.iter().rposition(|x| x.store == store) {
            s.remove(i);
        }
    });
}

/// Whether this thread is inside a scope of `store`.
pub(crate) fn inside(store: u64) -> bool {
    SCOPES.with(|s| s.borrow().iter().any(|x| x.store == store))
}

/// Records that a read inside the scope of `store` saw change counter `changes`.
pub(crate) fn saw(store: u64, changes: i64) {
    SCOPES.with(|s| {
        if let Some(x) = s.borrow_mut().iter_mut().rev().find(|x| x.store == store) {
            match x.seen {
                None => x.seen = Some(changes),
                Some(c) if c != changes => x.differs = true,
                Some(_) => {}
            }
        }
    });
}

/// The entries of `ids` the innermost scope of `store` has read, and the ids it has
/// not (all of them outside a scope).
pub(crate) fn recall(store: u64, ids: &[EntryId]) -> (HashMap<EntryId, Entry>, Vec<EntryId>) {
    SCOPES.with(|s| {
        let s = s.borrow();
        let Some(x) = s.iter().rev().find(|x| x.store == store) else {
            return (HashMap::new(), ids.to_vec());
        };
        let mut found = HashMap::new();
        let mut missing = Vec::new();
        for id in ids {
            match x.read.get(id) {
                Some(e) => {
                    found.insert(*id, e.clone());
                }
                None => missing.push(*id),
            }
        }
        (found, missing)
    })
}

/// Keeps `entries`, read inside the innermost scope of `store`, for its later reads.
pub(crate) fn remember(store: u64, entries: &HashMap<EntryId, Entry>) {
    SCOPES.with(|s| {
        if let Some(x) = s.borrow_mut().iter_mut().rev().find(|x| x.store == store) {
            x.read.extend(entries.iter().map(|(id, e)| (*id, e.clone())));
        }
    });
}

/// What the innermost scope of `store` needs at its end.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Its reads hold.
    Holds,
    /// Its reads saw another counter: try again.
    Changed,
    /// It read no entry: compare the counter with `at`, as the read asked `ahead`
    /// answers or as read now.
    Check { at: Option<i64>, ahead: Option<Ticket> },
}

/// The verdict on the innermost scope of `store` (`Holds` when there is none).
pub(crate) fn verdict(store: u64) -> Verdict {
    SCOPES.with(|s| {
        let s = s.borrow();
        let Some(x) = s.iter().rev().find(|x| x.store == store) else { return Verdict::Holds };
        if x.checked {
            return Verdict::Holds;
        }
        match x.seen {
            _ if x.differs => Verdict::Changed,
            Some(c) if Some(c) == x.at => Verdict::Holds,
            Some(_) => Verdict::Changed,
            None => Verdict::Check { at: x.at, ahead: x.ahead },
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_holds_when_its_reads_saw_the_index_counter() {
        enter(7, Some(3), false, Some(2));
        assert_eq!(verdict(7), Verdict::Check { at: Some(3), ahead: Some(2) });
        saw(7, 3);
        assert_eq!(verdict(7), Verdict::Holds);
        saw(7, 4);
        assert_eq!(verdict(7), Verdict::Changed, "two reads saw two counters");
        let en = cmem_core::Locale::parse("en").unwrap();
        let entry = cmem_core::NewEntry::pair(
            cmem_core::Variant::new(en.clone(), vec![cmem_core::Run::text("a")]),
            cmem_core::Variant::new(en, vec![cmem_core::Run::text("b")]),
        )
        .into_entry(EntryId(4));
        remember(7, &HashMap::from([(EntryId(4), entry)]));
        let (found, missing) = recall(7, &[EntryId(4), EntryId(5)]);
        assert_eq!((found.keys().collect::<Vec<_>>(), missing), (vec![&EntryId(4)], vec![EntryId(5)]));
        leave(7);
        assert!(!inside(7));
        assert_eq!(recall(7, &[EntryId(4)]).1, vec![EntryId(4)], "forgotten with the scope");
        assert_eq!(verdict(7), Verdict::Holds, "no scope");
    }

    #[test]
    fn a_checked_scope_holds_and_scopes_of_other_stores_are_apart() {
        enter(1, Some(5), true, None);
        enter(2, Some(5), false, None);
        saw(2, 6);
        saw(1, 6);
        assert_eq!(verdict(1), Verdict::Holds);
        assert_eq!(verdict(2), Verdict::Changed);
        leave(2);
        assert!(inside(1) && !inside(2));
        leave(1);
        assert!(!inside(1));
    }
}
