//! The conformance suite on the in-memory reference store.

mod memory {
    cmem_conformance::conformance_suite!(|| Box::new(cmem_core::MemStore::new()));
}
