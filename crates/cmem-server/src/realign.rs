//! Word models kept current as entries are written: after a write through `/v1`, a
//! background thread brings the write memory's word models up to date
//! ([`cmem::Memory::realign`], the policy an import follows: a pair is trained when it
//! has enough entries and no model, or grew by a fraction since its model was trained).
//! One such thread at a time; the checks it makes when nothing is stale are a count read.
//! Lookups meanwhile use the model kept from before: a stale model costs repairs, never
//! an answer.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::app::App;

impl App {
    /// Starts the background check of the word models of the memory a write went to
    /// (`name`, as `?memory=NAME`), unless one is running.
    pub(crate) fn realign_after_write(self: &Arc<Self>, name: Option<String>) {
        if self.realigning.swap(true, Ordering::AcqRel) {
            return;
        }
        let app = Arc::clone(self);
        let spawned = std::thread::Builder::new().name("cmem-realign".to_owned()).spawn(move || {
            if let Ok(memory) = app.write_memory(name.as_deref()) {
                // Failures leave the kept model; the next write tries again.
                let _ = memory.realign(None, cmem::AlignMode::WhenStale);
            }
            app.realigning.store(false, Ordering::Release);
        });
        if spawned.is_err() {
            self.realigning.store(false, Ordering::Release);
        }
    }
}
