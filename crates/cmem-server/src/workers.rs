//! The threads that do the requests' store work (see [`ServerConfig::workers`]): a fixed
//! set, fed in arrival order from one queue.
//!
//! Why not `spawn_blocking` behind a semaphore: each request then waited for a permit
//! (one wake-up of the async task when a permit came free), handed its work to a
//! blocking thread that had gone idle meanwhile (a second), and was woken with the
//! answer (a third). Under load the store work itself is about a millisecond, and the
//! wake-ups were a noticeable share of the server's processor time. A busy worker here
//! takes the next job from the queue without sleeping, so only the answer's wake-up is
//! left.
//!
//! [`ServerConfig::workers`]: crate::ServerConfig::workers

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of worker threads; dropping it closes the queue, and each worker ends
/// once it is empty.
#[derive(Debug)]
pub(crate) struct Workers {
    queue: Sender<Job>,
}

impl Workers {
    /// Starts `count` (at least one) worker threads.
    pub(crate) fn start(count: usize) -> std::io::Result<Workers> {
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..count.max(1) {
            let rx = Arc::clone(&rx);
            std::thread::Builder::new().name(format!("cmem-worker-{i}")).spawn(move || work(&rx))?;
        }
        Ok(Workers { queue: tx })
    }

    /// Queues `job` now, to run on a worker once the jobs queued before it have
    /// started; the future is its answer: `None` when the job panicked, or when the
    /// workers are gone. A job whose future was dropped before a worker took it (a
    /// request past its timeout) is skipped.
    pub(crate) fn run<T, F>(&self, job: F) -> impl Future<Output = Option<T>> + use<T, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            if tx.is_closed() {
                return;
            }
            if let Ok(answer) = catch_unwind(AssertUnwindSafe(job)) {
                let _ = tx.send(answer);
            }
        });
        // A failed send drops the job, and with it the answer's sender: `None`.
        let _ = self.queue.send(job);
        async move { rx.await.ok() }
    }
}

/// A worker's loop: the next job, until the queue is closed and empty.
fn work(rx: &Mutex<Receiver<Job>>) {
    loop {
        let job = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_in_arrival_order_on_one_worker_and_a_panic_is_none() {
        let workers = Workers::start(1).unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let runs: Vec<_> = (0..5)
            .map(|i| {
                let order = Arc::clone(&order);
                workers.run(move || order.lock().unwrap().push(i))
            })
            .collect();
        for r in runs {
            assert_eq!(r.await, Some(()));
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(workers.run(|| -> u8 { panic!("a failing job") }).await, None);
        // The worker outlived the panic.
        assert_eq!(workers.run(|| 7).await, Some(7));
    }
}
