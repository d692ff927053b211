//! Which memory a command uses, and opening it (by address, through the `cmem` library):
//! created by a write, required by a read and opened read-only for it (nothing in or
//! beside the file is created or changed).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use cmem::{Address, Memory, MemorySpec, OpenOptions};

/// The environment variable naming the memory when `--memory` is not given.
pub const MEMORY_ENV: &str = "CMEM_MEMORY";
/// The memory used when neither `--memory` nor [`MEMORY_ENV`] names one.
pub const DEFAULT_MEMORY: &str = "cmem.db";

/// The environment variable naming where a PostgreSQL memory's candidate index is kept
/// between runs (`cmem serve --index-dir` gives it for one server).
pub const INDEX_DIR_ENV: &str = "CMEM_INDEX_DIR";

/// `options` with the index directory of [`INDEX_DIR_ENV`] when it is set (not empty)
/// and `options` names none.
pub fn with_index_dir(options: OpenOptions) -> OpenOptions {
    if options.index_dir.is_some() {
        return options;
    }
    match std::env::var_os(INDEX_DIR_ENV) {
        Some(dir) if !dir.is_empty() => options.index_dir(PathBuf::from(dir)),
        _ => options,
    }
}

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

/// The address of the memory at `path` (a path, `sqlite:PATH`, `postgres://…`).
fn address(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Opens the memory for writing with `options`, creating it (not its directory) when
/// missing.
///
/// # Errors
/// The memory cannot be created or opened, is not a cmem memory, is damaged, or is of a
/// newer schema.
pub fn open_for_write(path: &Path, options: OpenOptions) -> Result<Memory> {
    Ok(Memory::open_with(&address(path), &with_index_dir(options).create(true))?)
}

/// Opens an existing memory read-only; a missing one is an error, never a new empty
/// database.
///
/// # Errors
/// No memory at `path`, or it cannot be opened as a memory.
pub fn open_existing(path: &Path) -> Result<Memory> {
    open_existing_with(path, OpenOptions::new())
}

/// [`open_existing`] with options (always read-only).
///
/// # Errors
/// As [`open_existing`].
pub fn open_existing_with(path: &Path, options: OpenOptions) -> Result<Memory> {
    let address = address(path);
    if let Ok(Address::Sqlite(file)) = Address::parse(&address) {
        if !file.exists() {
            bail!(
                "no memory at {} (create one with `cmem import FILE`, or name one with --memory or ${MEMORY_ENV})",
                file.display()
            );
        }
    }
    Memory::open_with(&address, &with_index_dir(options).read_only(true)).map_err(|e| {
        // A read may not upgrade or re-key: name the command that does (the refusal has
        // no cause of its own to keep).
        if e.message().contains("open it once for writing") {
            anyhow!("{} (any import does: `cmem import --format jsonl - < /dev/null`)", e.message())
        } else {
            anyhow!(e)
        }
    })
}

/// The memories `--memory` gave: one (or none: the default), or several, each as
/// `[NAME=]ADDRESS[,role=…][,penalty=…][,priority=…]`.
#[derive(Debug)]
pub enum Given {
    /// One memory: the flag's value is its address as is (`None`: the default).
    One(Option<PathBuf>),
    /// Several memories, in the order given.
    Several(Vec<MemorySpec>),
}

impl Given {
    /// Reads the `--memory` flags.
    ///
    /// # Errors
    /// With several, a value that is not a memory spec, or two memories of one name.
    pub fn parse(flags: &[String]) -> Result<Given> {
        if flags.iter().any(|f| f.starts_with('@')) {
            let mut expanded = Vec::new();
            for flag in flags {
                match flag.strip_prefix('@') {
                    Some(file) => expanded.extend(list_file(Path::new(file))?),
                    None => expanded.push(flag.clone()),
                }
            }
            return match expanded.as_slice() {
                [] => bail!("--memory: {} names no memory", flags.join(", ")),
                [one] => {
                    let spec: MemorySpec = one.parse().map_err(|e: cmem::Error| e.prefixed("--memory"))?;
                    Ok(Given::One(Some(PathBuf::from(spec.address))))
                }
                many => Given::parse(many),
            };
        }
        match flags {
            [] => Ok(Given::One(None)),
            [one] => Ok(Given::One(Some(PathBuf::from(one)))),
            many => {
                let mut specs: Vec<MemorySpec> = Vec::with_capacity(many.len());
                for flag in many {
                    let spec: MemorySpec = flag.parse().map_err(|e: cmem::Error| e.prefixed("--memory"))?;
                    if specs.iter().any(|s| s.name == spec.name) {
                        bail!(
                            "--memory: two memories are named {:?}; name one of them NAME=ADDRESS",
                            spec.name
                        );
                    }
                    specs.push(spec);
                }
                Ok(Given::Several(specs))
            }
        }
    }

    /// The one memory `command` uses.
    ///
    /// # Errors
    /// Several memories were given: only `lookup` reads several.
    pub fn one(&self, command: &str) -> Result<Option<&Path>> {
        match self {
            Given::One(path) => Ok(path.as_deref()),
            Given::Several(specs) => bail!(
                "{command} uses one memory and {} were given with --memory (lookup reads several; import writes one of them)",
                specs.len()
            ),
        }
    }

    /// The memory an import writes: the one given, or of several the one `chosen`
    /// names, else the one that may be written.
    ///
    /// # Errors
    /// Of several, none or more than one may be written and none was chosen, or
    /// `chosen` names no memory or a read-only one.
    pub fn writer(&self, chosen: Option<&str>) -> Result<Option<PathBuf>> {
        match self {
            Given::One(path) => Ok(path.clone()),
            Given::Several(specs) => {
                let refs: Vec<&MemorySpec> = specs.iter().collect();
                let spec = cmem::choose_writer(&refs, chosen).map_err(|e| {
                    let hint = if chosen.is_none() { " (name it with --into NAME)" } else { "" };
                    anyhow!("import: {}{hint}", e.message())
                })?;
                Ok(Some(PathBuf::from(&spec.address)))
            }
        }
    }
}

/// The memory specs of a list file (`--memory @FILE`): one a line; blank lines and
/// lines starting with `#` are skipped.
///
/// # Errors
/// The file cannot be read.
fn list_file(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("--memory @{}: cannot read the list of memories: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect())
}
