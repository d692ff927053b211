//! Persisted candidate index files, mapped into memory to be read in place (they are
//! written under a temporary name, synced, then renamed over the old file:
//! [`cmem_core::atomic_file::replace_with`]).
//!
//! The one place of the store that uses `unsafe`: mapping a file. Mapped bytes change if
//! the file is written in place while mapped, which Rust cannot guard. The index files are
//! never written in place once named: [`replace_with`](cmem_core::atomic_file::replace_with)
//! writes a new file (seeking back inside it only before it is renamed) and renames it, so a mapping
//! keeps the old file's bytes (the name points at the new one, the mapping at the old
//! inode). Every read of the mapping is bounds-checked (`FrozenGrams`), so even a file
//! changed by other means yields wrong candidates at worst; a file truncated by other
//! means while mapped can still end the process (SIGBUS), as it would for any program
//! mapping files.

#![allow(unsafe_code)]

use std::fs::File;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;

use cmem_core::index::gram_index::Bytes;

/// The bytes of the file at `path`, mapped; `None` when there is no such file.
pub(crate) fn map(path: &Path) -> std::io::Result<Option<Bytes>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // SAFETY: see the module documentation: index files are replaced by rename, never
    // written in place, and every read of the mapping is bounds-checked.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    Ok(Some(Arc::new(map)))
}
