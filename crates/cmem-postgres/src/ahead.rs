//! The change counter read ahead: a lookup asks for it when its scope begins, a thread
//! of the store reads it while the lookup walks its in-process index, and a lookup that
//! reads no entry (and so learns no counter from its entry read, see [`crate::scope`])
//! takes the answer when its scope ends instead of waiting a round trip then.
//!
//! Why this is as strict as a read at the end: an answer serves the requests made before
//! its statement was sent, so its snapshot was taken after each of their lookups began
//! and holds every write committed before them. Requests that arrive while a read is
//! under way are served together by the next read: many lookups at once cost one read.
//!
//! The thread starts at the first request and stops with the store. When it cannot
//! answer (no connection, a failed statement), the lookup reads the counter itself and
//! meets the error there, with its context.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// A request's number: answered by the first read sent after it was made.
pub(crate) type Ticket = u64;

#[derive(Debug, Default)]
struct State {
    /// The last request's number.
    asked: Ticket,
    /// The last request the latest read answers.
    answered: Ticket,
    /// The latest read's counter; `None` when it failed.
    value: Option<i64>,
    closing: bool,
    /// The thread has ended (with the store, or by a panic): nobody answers.
    ended: bool,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    /// Wakes the thread: a request, or the store closing.
    asked: Condvar,
    /// Wakes the lookups waiting for an answer.
    answered: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock is held cannot leave the numbers half-written.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The read-ahead thread of one store, started on the first request.
#[derive(Debug)]
pub(crate) struct CounterAhead {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Reads made (tests count round trips with it).
    reads: Arc<AtomicU64>,
    /// The thread's name (`cmem-pg-` and the store's number: at most 15 bytes, as
    /// Linux keeps them).
    thread_name: String,
}

impl CounterAhead {
    /// The read-ahead of store number `store` (not started yet).
    pub(crate) fn new(store: u64) -> CounterAhead {
        CounterAhead {
            shared: Arc::default(),
            thread: Mutex::new(None),
            reads: Arc::default(),
            thread_name: format!("cmem-pg-{store}"),
        }
    }

    /// The name of the thread, once started.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn thread_name(&self) -> Option<&str> {
        let started = self.thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_some();
        started.then_some(self.thread_name.as_str())
    }

    /// How many reads the thread made.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub(crate) fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// Asks for the counter as of now; `None` when no thread can answer (the lookup then
    /// reads the counter itself at its end). `start` makes the thread's read on the
    /// first request.
    pub(crate) fn ask<R>(&self, start: impl FnOnce() -> R) -> Option<Ticket>
    where
        R: FnMut() -> Option<i64> + Send + 'static,
    {
        let mut thread = self.thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if thread.is_none() {
            let (shared, reads, read) = (Arc::clone(&self.shared), Arc::clone(&self.reads), start());
            let spawned = std::thread::Builder::new()
                .name(self.thread_name.clone())
                .spawn(move || serve(&shared, &reads, read))
                .ok()?;
            *thread = Some(spawned);
        }
        drop(thread);
        let mut state = self.shared.lock();
        if state.ended {
            return None;
        }
        state.asked += 1;
        let ticket = state.asked;
        drop(state);
        self.shared.asked.notify_one();
        Some(ticket)
    }

    /// The counter answering `ticket`, waiting for it; `None` when the read failed (or
    /// the store is closing).
    pub(crate) fn answer(&self, ticket: Ticket) -> Option<i64> {
        let mut state = self.shared.lock();
        while state.answered < ticket && !state.closing && !state.ended {
            state = self.shared.answered.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        // A later read answers an earlier request too (its snapshot is later still).
        if state.answered >= ticket {
            state.value
        } else {
            None
        }
    }
}

impl Drop for CounterAhead {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.asked.notify_all();
        self.shared.answered.notify_all();
        let thread = self.thread.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(t) = thread {
            // A read under way ends within the connect timeout; its answer is dropped.
            let _ = t.join();
        }
    }
}

/// Tells the waiting lookups when the thread ends, however it ends.
struct Ended<'a>(&'a Shared);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        self.0.lock().ended = true;
        self.0.answered.notify_all();
    }
}

/// The thread: waits for requests and answers all that are waiting with one read.
fn serve(shared: &Shared, reads: &AtomicU64, mut read: impl FnMut() -> Option<i64>) {
    let _ended = Ended(shared);
    loop {
        let mut state = shared.lock();
        while state.asked == state.answered && !state.closing {
            state = shared.asked.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        if state.closing {
            return;
        }
        // Every request up to here was made before the statement below is sent.
        let serving = state.asked;
        drop(state);
        reads.fetch_add(1, Ordering::Relaxed);
        let value = read();
        let mut state = shared.lock();
        state.answered = serving;
        state.value = value;
        drop(state);
        shared.answered.notify_all();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicI64;
    use std::time::Duration;

    #[test]
    fn an_answer_comes_from_a_read_sent_after_the_request() {
        // The "database": a counter that writers bump, read slowly so that requests
        // keep arriving while a read is under way.
        let db = Arc::new(AtomicI64::new(0));
        let ahead = CounterAhead::new(u64::MAX);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..25 {
                        // A write committed before the lookup began...
                        let written = db.fetch_add(1, Ordering::SeqCst) + 1;
                        let db = Arc::clone(&db);
                        let ticket = ahead
                            .ask(move || {
                                move || {
                                    let v = db.load(Ordering::SeqCst);
                                    std::thread::sleep(Duration::from_millis(2));
                                    Some(v)
                                }
                            })
                            .unwrap();
                        // ...is in the counter the lookup is answered with.
                        assert!(ahead.answer(ticket).unwrap() >= written);
                    }
                });
            }
        });
        // Requests made while a read was under way were served together.
        assert!(ahead.reads() < 100, "{} reads for 100 requests", ahead.reads());
    }

    #[test]
    fn a_failed_read_answers_none_and_an_ended_thread_answers_nobody() {
        let ahead = CounterAhead::new(u64::MAX - 1);
        let ticket = ahead.ask(|| || None).unwrap();
        assert_eq!(ahead.answer(ticket), None);
        let ended = CounterAhead::new(u64::MAX - 2);
        let ticket = ended.ask(|| || -> Option<i64> { panic!("the read panics") }).unwrap();
        assert_eq!(ended.answer(ticket), None, "a waiter is not left waiting");
        assert_eq!(ended.ask(|| || Some(1)), None, "nobody answers once the thread ended");
    }
}
