//! The table of a server's import jobs: what clients see of each, counts for the metrics,
//! and the shutdown that cancels the running ones (see `job` for the routes).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::task::JoinHandle;

/// A job as clients see it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct JobView {
    pub(crate) id: u64,
    /// `running`, `succeeded`, `failed` or `cancelled`.
    pub(crate) status: &'static str,
    pub(crate) format: &'static str,
    pub(crate) upload_bytes: u64,
    pub(crate) bytes_read: u64,
    pub(crate) read: u64,
    pub(crate) inserted: u64,
    pub(crate) deduplicated: u64,
    pub(crate) problems: u64,
    /// Located problems (`jsonl: upload: line 3: …`), the first 1,000.
    pub(crate) problem_messages: Vec<String>,
    /// Why a failed or cancelled job stored nothing.
    pub(crate) error: Option<String>,
    /// The word model trained after the import (see `job`), when one was.
    pub(crate) word_model: Option<WordModelView>,
}

/// The word model a job trained after its import.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WordModelView {
    pub(crate) from: String,
    pub(crate) to: String,
    /// What training used and kept; `None` when it failed.
    pub(crate) report: Option<cmem::align::TrainReport>,
    /// Why training failed (the import itself is kept).
    pub(crate) error: Option<String>,
}

/// The jobs of a server.
#[derive(Debug, Default)]
pub(crate) struct Jobs {
    pub(crate) next: AtomicU64,
    pub(crate) jobs: Mutex<BTreeMap<u64, Arc<Mutex<JobView>>>>,
    pub(crate) running: Mutex<Vec<JoinHandle<()>>>,
    /// Set at shutdown: every running import stops at its next entry and rolls back.
    pub(crate) cancel: Arc<AtomicBool>,
}

impl Jobs {
    pub(crate) fn get(&self, id: u64) -> Option<JobView> {
        let jobs = self.jobs.lock().ok()?;
        let job = jobs.get(&id)?;
        let view = job.lock().ok()?.clone();
        Some(view)
    }

    pub(crate) fn all(&self) -> Vec<JobView> {
        let Ok(jobs) = self.jobs.lock() else { return Vec::new() };
        jobs.values().filter_map(|j| j.lock().ok().map(|v| v.clone())).collect()
    }

    /// Counts by status, for the metrics.
    pub(crate) fn counts(&self) -> BTreeMap<&'static str, u64> {
        // Read under the lock: a job's view holds its problems, too much to copy here.
        let mut counts = BTreeMap::new();
        let Ok(jobs) = self.jobs.lock() else { return counts };
        for job in jobs.values() {
            if let Ok(view) = job.lock() {
                *counts.entry(view.status).or_insert(0) += 1;
            }
        }
        counts
    }

    /// Cancels the running jobs and waits until each has rolled back (or finished).
    pub(crate) async fn shut_down(&self) {
        self.cancel.store(true, Ordering::Relaxed);
        let handles: Vec<JoinHandle<()>> = match self.running.lock() {
            Ok(mut running) => running.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        for handle in handles {
            let _ = handle.await;
        }
    }
}
