//! The million-entry memory: real memories of several language pairs, then, to reach
//! the size asked for, copies of their entries with one word-level edit each.
//!
//! A copy is a near-duplicate, as professional memories are full of (a string fixed in
//! one word between releases, a word doubled by mistake): its source differs from the
//! original's by exactly one edit on the words split at single spaces — two adjacent
//! different words swapped, one word dropped, or one word written twice — and its target
//! is the original's. Which edit, and where, is chosen by a seeded hash of the original
//! source and the copy's round, so the memory is the same on every run and machine
//! (no random generator, no hasher whose output may change between Rust releases).
//!
//! Copies are made in rounds over the originals, in the order given: the first round copies each original once, the next (only if still short) once more with
//! another seed. A copy whose source already exists in its pair is replaced by another
//! edit of the same original (a few attempts), else left out, so every source of a pair
//! stays distinct.

use std::collections::HashSet;
use std::fmt;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// One entry of the synthesized memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthLine {
    /// Index of its language pair (the caller's numbering).
    pub pair: usize,
    /// Source text.
    pub source: String,
    /// Target text.
    pub target: String,
    /// The edit that made it from an original, for a copy.
    pub edit: Option<Edit>,
}

/// One word-level edit; positions count the words split at single spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// Words `i` and `i + 1` change places.
    Swap(usize),
    /// Word `i` is left out.
    Drop(usize),
    /// Word `i` is written twice.
    Duplicate(usize),
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Edit::Swap(i) => write!(f, "swap words {i} and {}", i + 1),
            Edit::Drop(i) => write!(f, "drop word {i}"),
            Edit::Duplicate(i) => write!(f, "duplicate word {i}"),
        }
    }
}

impl Edit {
    /// Every edit that changes `words` and leaves a text that is not blank (an importer
    /// refuses a segment of white space alone), in a fixed order; none for a blank text.
    fn all(words: &[&str]) -> Vec<Edit> {
        let content = |w: &str| !w.trim().is_empty();
        let with_content = words.iter().filter(|w| content(w)).count();
        let mut out = Vec::new();
        if with_content == 0 {
            return out;
        }
        for (i, w) in words.iter().enumerate() {
            if w.is_empty() {
                continue;
            }
            if words.get(i + 1).is_some_and(|next| !next.is_empty() && next != w) {
                out.push(Edit::Swap(i));
            }
            if with_content > usize::from(content(w)) {
                out.push(Edit::Drop(i));
            }
            out.push(Edit::Duplicate(i));
        }
        out
    }

    /// `words` with this edit, joined with single spaces.
    fn apply(self, words: &[&str]) -> String {
        let mut w: Vec<&str> = words.to_vec();
        match self {
            Edit::Swap(i) => w.swap(i, i + 1),
            Edit::Drop(i) => {
                w.remove(i);
            }
            Edit::Duplicate(i) => w.insert(i + 1, words[i]),
        }
        w.join(" ")
    }
}

/// FNV-1a over `bytes`, then the SplitMix64 finalizer: fixed by definition, so the
/// memory does not depend on the Rust release's `Hasher`.
fn hash(seed: u64, bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The edit chosen for `source` under `seed`, with the edited text; `None` when no edit
/// applies (a blank source).
pub fn edit(source: &str, seed: u64) -> Option<(Edit, String)> {
    let words: Vec<&str> = source.split(' ').collect();
    let edits = Edit::all(&words);
    if edits.is_empty() {
        return None;
    }
    let pick = (hash(seed, source.as_bytes()) % edits.len() as u64) as usize;
    let e = edits[pick];
    Some((e, e.apply(&words)))
}

/// Identifies a source within its pair, for the distinctness check. Two different
/// sources that share it only cost a copy an extra attempt, never a duplicate.
fn identity(pair: usize, source: &str) -> u64 {
    hash(pair as u64, source.as_bytes())
}

/// Attempts per original and round before a copy is left out.
const ATTEMPTS: u64 = 4;

/// The `originals` (sources distinct within each pair), in their order, then copies
/// with one edit each until there are at least `total` entries. Fewer than `total` is an
/// error: the originals cannot yield that many distinct sources.
///
/// # Errors
///
/// When a whole round of copies adds no entry before `total` is reached.
pub fn synthesize(originals: Vec<SynthLine>, total: usize) -> Result<Vec<SynthLine>> {
    let n = originals.len();
    let mut out = originals;
    out.reserve(total.saturating_sub(n));
    let mut seen: HashSet<u64> = out.iter().map(|l| identity(l.pair, &l.source)).collect();
    let mut round: u64 = 1;
    while out.len() < total {
        let before = out.len();
        for i in 0..n {
            if out.len() >= total {
                break;
            }
            let pair = out[i].pair;
            for attempt in 0..ATTEMPTS {
                let Some((e, source)) = edit(&out[i].source, round * ATTEMPTS + attempt) else {
                    break;
                };
                if seen.insert(identity(pair, &source)) {
                    let target = out[i].target.clone();
                    out.push(SynthLine { pair, source, target, edit: Some(e) });
                    break;
                }
            }
        }
        if out.len() == before {
            bail!("the memories yield only {before} distinct entries, not {total}");
        }
        round += 1;
    }
    Ok(out)
}

/// Writes `lines` as JSON Lines that `cmem import` reads (gzip when `path` ends in
/// `.gz`): `{"source","target","source_locale","target_locale"}`, the target locale
/// of each line being `targets[line.pair]`.
///
/// # Errors
///
/// When the file cannot be created or written.
pub fn write_jsonl(path: &Path, lines: &[SynthLine], from: &str, targets: &[String]) -> Result<()> {
    let file = std::fs::File::create(path).with_context(|| format!("create {}", path.display()))?;
    let mut out: Box<dyn Write> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::write::GzEncoder::new(std::io::BufWriter::new(file), flate2::Compression::default()))
    } else {
        Box::new(std::io::BufWriter::new(file))
    };
    for l in lines {
        let to = targets.get(l.pair).with_context(|| format!("no target locale for pair {}", l.pair))?;
        let row = serde_json::json!({
            "source": l.source,
            "target": l.target,
            "source_locale": from,
            "target_locale": to,
        });
        serde_json::to_writer(&mut out, &row)?;
        out.write_all(b"\n")?;
    }
    out.flush().with_context(|| format!("write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(pair: usize, source: &str, target: &str) -> SynthLine {
        SynthLine { pair, source: source.into(), target: target.into(), edit: None }
    }

    fn bases() -> Vec<SynthLine> {
        vec![
            line(0, "Could not open file %s", "Datei %s konnte nicht geöffnet werden"),
            line(0, "Check", "Aktivieren"),
            line(0, "Save the document as", "Dokument speichern unter"),
            line(0, "Open", "Öffnen"),
            line(0, "Open Open", "Öffnen Öffnen"),
            line(0, "", "leer"),
            line(0, " output: \n", " Ausgabe: \n"),
            line(0, "\n", "\n"),
            line(1, "Could not open file %s", "Impossible d'ouvrir le fichier %s"),
            line(1, "Close", "Fermer"),
        ]
    }

    /// Whether `copy` is `original` with exactly one swap of adjacent different words,
    /// one word dropped or one word doubled (words split at single spaces), checked
    /// without the synthesizer's own edit code.
    fn one_edit(original: &str, copy: &str) -> bool {
        let a: Vec<&str> = original.split(' ').collect();
        let b: Vec<&str> = copy.split(' ').collect();
        if a.len() == b.len() {
            let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
            return diff.len() == 2
                && diff[1] == diff[0] + 1
                && a[diff[0]] == b[diff[1]]
                && a[diff[1]] == b[diff[0]];
        }
        let (short, long, doubled) = if a.len() + 1 == b.len() {
            (&a, &b, true)
        } else if b.len() + 1 == a.len() {
            (&b, &a, false)
        } else {
            return false;
        };
        (0..long.len()).any(|i| {
            let mut l = long.clone();
            let removed = l.remove(i);
            &l == short && !removed.is_empty() && (!doubled || (i > 0 && long[i - 1] == removed))
        })
    }

    #[test]
    fn the_same_memory_twice() {
        let a = synthesize(bases(), 30).unwrap();
        let b = synthesize(bases(), 30).unwrap();
        assert_eq!(a, b);
        let c = synthesize(bases(), 31).unwrap();
        assert_eq!(a[..], c[..30], "a larger memory starts with the smaller one");
    }

    #[test]
    fn the_count_asked_for_with_distinct_sources_per_pair() {
        for total in [10, 11, 20, 30] {
            let lines = synthesize(bases(), total).unwrap();
            assert_eq!(lines.len(), total);
            let distinct: HashSet<(usize, &str)> =
                lines.iter().map(|l| (l.pair, l.source.as_str())).collect();
            assert_eq!(distinct.len(), total, "sources repeat within a pair at {total}");
        }
        // Fewer than the originals asks for no copies and drops no original.
        assert_eq!(synthesize(bases(), 3).unwrap().len(), 10);
    }

    #[test]
    fn every_copy_is_one_edit_from_its_original() {
        let bases = bases();
        let lines = synthesize(bases.clone(), 30).unwrap();
        let mut copies = 0;
        for l in &lines[10..] {
            let e = l.edit.unwrap();
            let original = bases.iter().find(|m| m.pair == l.pair && m.target == l.target).unwrap();
            assert!(one_edit(&original.source, &l.source), "{:?} → {:?} ({e})", original.source, l.source);
            assert_ne!(original.source, l.source);
            copies += 1;
        }
        assert_eq!(copies, 20);
        // Blank sources have no copy, no copy is blank, and the first round copies in
        // base order.
        assert!(lines.iter().all(|l| !l.source.trim().is_empty() || l.edit.is_none()));
        for seed in 0..50 {
            assert!(edit(" output: \n", seed).is_some_and(|(_, s)| !s.trim().is_empty()));
        }
        assert_eq!(edit("\n", 0), None);
        assert_eq!(lines[10].target, bases[0].target);
        // Originals keep their order.
        assert_eq!(lines[..10], bases[..]);
    }

    #[test]
    fn the_checker_rejects_what_is_not_one_edit() {
        assert!(one_edit("a b c", "b a c"));
        assert!(one_edit("a b c", "a c"));
        assert!(one_edit("a b c", "a b b c"));
        assert!(!one_edit("a b c", "a b c"));
        assert!(!one_edit("a b c", "c b a"));
        assert!(!one_edit("a b c", "a x b c"));
        assert!(!one_edit("a b c", "a"));
    }

    #[test]
    fn an_exhausted_memory_is_an_error() {
        let tiny = vec![line(0, "Open", "Öffnen")];
        let err = synthesize(tiny, 1_000).unwrap_err().to_string();
        assert!(err.contains("yield only"), "{err}");
    }

    #[test]
    fn written_lines_name_their_pair() {
        let dir = std::env::temp_dir().join(format!("cmem-bench-synth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lines = synthesize(bases(), 12).unwrap();
        for name in ["m.jsonl", "m.jsonl.gz"] {
            let path = dir.join(name);
            write_jsonl(&path, &lines, "en", &["de".into(), "fr".into()]).unwrap();
            let back: Vec<serde_json::Value> = crate::corpus::read_jsonl(&path).unwrap();
            assert_eq!(back.len(), 12);
            assert_eq!(back[8]["target_locale"], "fr");
            assert_eq!(back[8]["source"], "Could not open file %s");
            assert_eq!(back[10]["source_locale"], "en");
            assert_eq!(back[10]["target_locale"], "de");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
