//! Which memory a command uses, and opening it: created by a write, required by a read
//! and opened read-only for it (nothing in or beside the file is created or changed).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
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

/// Opens the memory for writing with `options`, creating it (not its directory) when
/// missing.
///
/// # Errors
/// The file cannot be created or opened, is not a cmem memory, is damaged, or is of a
/// newer schema.
pub fn open_for_write(path: &Path, options: SqliteOptions) -> Result<SqliteStore> {
    if path.is_dir() {
        bail!("memory {} is a directory", path.display());
    }
    SqliteStore::open_with(path, options).with_context(|| format!("memory {}", path.display()))
}

/// Opens an existing memory read-only; a missing one is an error, never a new empty
/// database.
///
/// # Errors
/// No file at `path`, or it cannot be opened as a memory.
pub fn open_existing(path: &Path) -> Result<SqliteStore> {
    open_existing_with(path, SqliteOptions::default())
}

/// [`open_existing`] with store options (always read-only).
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
    SqliteStore::open_with(path, options.read_only(true)).map_err(|e| {
        // A read may not upgrade or re-key: name the command that does.
        if e.message().contains("open it once for writing") {
            anyhow!(
                "memory {}: {e} (any import does: `cmem import --format jsonl - < /dev/null`)",
                path.display()
            )
        } else {
            anyhow::Error::new(e).context(format!("memory {}", path.display()))
        }
    })
}
