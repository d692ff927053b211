//! Which memory a command uses, and opening it: created by a write, required by a read.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cmem_sqlite::{SqliteOptions, SqliteStore};

/// The environment variable naming the memory when `--memory` is not given.
pub const MEMORY_ENV: &str = "CMEM_MEMORY";
/// The memory used when neither `--memory` nor [`MEMORY_ENV`] names one.
pub const DEFAULT_MEMORY: &str = "cmem.db";

/// The memory file: `--memory`, else `$CMEM_MEMORY` (when not empty), else `./cmem.db`.
pub fn resolve(flag: Option<&Path>) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    match std::env::var_os(MEMORY_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(DEFAULT_MEMORY),
    }
}

/// Opens the memory for writing, creating it (not its directory) when missing.
///
/// # Errors
/// The file cannot be created or opened, is not a cmem memory, or is of a newer schema.
pub fn open_for_write(path: &Path) -> Result<SqliteStore> {
    if path.is_dir() {
        bail!("memory {} is a directory", path.display());
    }
    SqliteStore::open(path).with_context(|| format!("memory {}", path.display()))
}

/// Opens an existing memory; a missing one is an error, never a new empty database.
///
/// # Errors
/// No file at `path`, or it cannot be opened as a memory.
pub fn open_existing(path: &Path) -> Result<SqliteStore> {
    open_existing_with(path, SqliteOptions::default())
}

/// [`open_existing`] with store options.
///
/// # Errors
/// As [`open_existing`].
pub fn open_existing_with(path: &Path, options: SqliteOptions) -> Result<SqliteStore> {
    if !path.exists() {
        bail!(
            "no memory at {} (create one with `cmem import FILE`, or name one with --memory or ${MEMORY_ENV})",
            path.display()
        );
    }
    if path.is_dir() {
        bail!("memory {} is a directory", path.display());
    }
    SqliteStore::open_with(path, options).with_context(|| format!("memory {}", path.display()))
}

/// Removes a memory file and SQLite's companions (`-wal`, `-shm`), ignoring files that
/// are not there: for an import that created the memory and then failed.
pub fn remove(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}
