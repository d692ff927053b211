//! What one lookup's read scope (see [`cmem_core::IndexControl::read_scope`]) knows: the change
//! counter its index was at, and the counter and entries its entry reads saw. A value
//! the lookup's scope owns (`PgScope` in `store`), passed to the store's reads.
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
//! [`cmem_core::IndexControl::read_scope`]: cmem_core::IndexControl::read_scope

use std::collections::HashMap;

use cmem_core::{Entry, EntryId};

use crate::ahead::Ticket;

/// One open scope of one store.
#[derive(Debug)]
pub(crate) struct Scope {
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

/// What a scope needs at its end.
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

impl Scope {
    /// A scope whose index is at change counter `at`, begun by reading the counter
    /// when `checked`, with the counter read asked `ahead` for it.
    pub(crate) fn new(at: Option<i64>, checked: bool, ahead: Option<Ticket>) -> Scope {
        Scope { at, checked, ahead, seen: None, differs: false, read: HashMap::new() }
    }

    /// Records that a read of the scope saw change counter `changes`.
    pub(crate) fn saw(&mut self, changes: i64) {
        match self.seen {
            None => self.seen = Some(changes),
            Some(c) if c != changes => self.differs = true,
            Some(_) => {}
        }
    }

    /// The entries of `ids` the scope has read, and the ids it has not.
    pub(crate) fn recall(&self, ids: &[EntryId]) -> (HashMap<EntryId, Entry>, Vec<EntryId>) {
        let mut found = HashMap::new();
        let mut missing = Vec::new();
        for id in ids {
            match self.read.get(id) {
                Some(e) => {
                    found.insert(*id, e.clone());
                }
                None => missing.push(*id),
            }
        }
        (found, missing)
    }

    /// Keeps `entries`, read in the scope, for its later reads.
    pub(crate) fn remember(&mut self, entries: &HashMap<EntryId, Entry>) {
        self.read.extend(entries.iter().map(|(id, e)| (*id, e.clone())));
    }

    /// The verdict on the scope's reads.
    pub(crate) fn verdict(&self) -> Verdict {
        if self.checked {
            return Verdict::Holds;
        }
        match self.seen {
            _ if self.differs => Verdict::Changed,
            Some(c) if Some(c) == self.at => Verdict::Holds,
            Some(_) => Verdict::Changed,
            None => Verdict::Check { at: self.at, ahead: self.ahead },
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_holds_when_its_reads_saw_the_index_counter() {
        let mut scope = Scope::new(Some(3), false, Some(2));
        assert_eq!(scope.verdict(), Verdict::Check { at: Some(3), ahead: Some(2) });
        scope.saw(3);
        assert_eq!(scope.verdict(), Verdict::Holds);
        scope.saw(4);
        assert_eq!(scope.verdict(), Verdict::Changed, "two reads saw two counters");
        let en = cmem_core::Locale::parse("en").unwrap();
        let entry = cmem_core::NewEntry::pair(
            cmem_core::Variant::new(en.clone(), vec![cmem_core::Run::text("a")]),
            cmem_core::Variant::new(en, vec![cmem_core::Run::text("b")]),
        )
        .into_entry(EntryId(4));
        scope.remember(&HashMap::from([(EntryId(4), entry)]));
        let (found, missing) = scope.recall(&[EntryId(4), EntryId(5)]);
        assert_eq!((found.keys().collect::<Vec<_>>(), missing), (vec![&EntryId(4)], vec![EntryId(5)]));
        let other = Scope::new(Some(3), false, None);
        assert_eq!(other.recall(&[EntryId(4)]).1, vec![EntryId(4)], "another scope's reads are its own");
    }

    #[test]
    fn a_checked_scope_holds_whatever_its_reads_saw() {
        let mut checked = Scope::new(Some(5), true, None);
        checked.saw(6);
        assert_eq!(checked.verdict(), Verdict::Holds);
        let mut unchecked = Scope::new(Some(5), false, None);
        unchecked.saw(6);
        assert_eq!(unchecked.verdict(), Verdict::Changed);
    }
}
