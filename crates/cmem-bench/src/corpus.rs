//! Reading the benchmark corpus: a memory in JSON Lines (`{"source","target",…}` per
//! line, gzip or not) and query files (`{"query": …}` per line).

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// One memory line of the corpus.
#[derive(Debug, Clone, Deserialize)]
pub struct MemoryLine {
    /// English source.
    pub source: String,
    /// Translation.
    pub target: String,
    /// The target locale, in a memory of several pairs (what `--write-corpus` writes);
    /// absent, the benchmark's `--to`.
    #[serde(default)]
    pub target_locale: Option<String>,
}

/// One query line.
#[derive(Debug, Clone, Deserialize)]
pub struct QueryLine {
    /// The text looked up.
    pub query: String,
}

/// Opens a file, decompressing gzip (by magic bytes).
pub fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    let mut file = File::open(path).with_context(|| format!("open {}", path.display()))?;
    let mut magic = [0u8; 2];
    let n = file.read(&mut magic)?;
    let file = File::open(path).with_context(|| format!("open {}", path.display()))?;
    if n == 2 && magic == [0x1f, 0x8b] {
        Ok(Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file))))
    } else {
        Ok(Box::new(BufReader::new(file)))
    }
}

/// The first `limit` lines with distinct sources (within each target locale).
pub fn load_memory(path: &Path, limit: Option<usize>) -> Result<Vec<MemoryLine>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, line) in open(path)?.lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let m: MemoryLine =
            serde_json::from_str(&line).with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        if seen.insert((m.target_locale.clone(), m.source.clone())) {
            out.push(m);
            if limit.is_some_and(|l| out.len() >= l) {
                break;
            }
        }
    }
    Ok(out)
}

/// Every non-blank line of a JSON Lines file (gzip or not), parsed.
pub fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for (i, line) in open(path)?.lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(&line).with_context(|| format!("{}: line {}", path.display(), i + 1))?);
    }
    Ok(out)
}

/// Every query of a query file.
pub fn load_queries(path: &Path) -> Result<Vec<String>> {
    Ok(read_jsonl::<QueryLine>(path)?.into_iter().map(|q| q.query).collect())
}
