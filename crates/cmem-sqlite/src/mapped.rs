//! Persisted candidate index files: mapped into memory to be read in place, and written
//! whole under a temporary name, then renamed over the old file.
//!
//! The one place of the store that uses `unsafe`: mapping a file. Mapped bytes change if
//! the file is written in place while mapped, which Rust cannot guard. The index files are
//! never written in place: [`write_file`] writes a new file and renames it, so a mapping
//! keeps the old file's bytes (the name points at the new one, the mapping at the old
//! inode). Every read of the mapping is bounds-checked (`FrozenGrams`), so even a file
//! changed by other means yields wrong candidates at worst; a file truncated by other
//! means while mapped can still end the process (SIGBUS), as it would for any program
//! mapping files.

#![allow(unsafe_code)]

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::sync::Arc;

use cmem_core::gram_index::Bytes;

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

/// A temporary index file older than this was left by a writer that died (a write takes
/// seconds): the next writer removes it.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(600);

/// Writes `bytes` as the file at `path`: to a temporary file beside it, synced, then
/// renamed over it, so readers see the old file or the new one, whole. Temporary files
/// of this index that writers killed mid-write left behind are removed first.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    remove_stale_temporaries(path);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".tmp-{}-{nanos}", std::process::id()));
    let tmp = path.with_file_name(name);
    let written = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Removes the temporary files of `path`'s index (`<name>.tmp-…`) not written to for
/// [`STALE_TEMPORARY`]; anything that cannot be read or removed is left.
fn remove_stale_temporaries(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let prefix = format!("{}.tmp-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMPORARY);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
