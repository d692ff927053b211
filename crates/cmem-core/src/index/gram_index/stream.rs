//! An index file built from keys streamed in, in bounded memory: [`StreamBuild`].
//!
//! Why: building a [`GramIndex`] and then writing it holds the whole index (about a
//! kilobyte a key with its posting lists) at once, so the index of a memory of ten
//! million entries would need more memory than the machine serving it. The stream keeps
//! a few dozen bytes a key (the fields of its record, its chain) and the posting lists
//! of the last run; each full run is sorted and spilled to a scratch file beside the
//! destination, and the runs are merged gram by gram into the file (DESIGN.md §7.4).
//! The file is the one [`GramIndex::persist`] writes for the same keys.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use rustc_hash::FxHashMap;

use super::file::{set_hint, KeyRecord, Layout, ListFn};
use super::posting::{directory, END};
use super::same_text::{text_hash, SameText};
use crate::index::distance::CharSketch;
use crate::index::locale_set::LocaleSets;
use crate::index::trigram::padded_grams;
use crate::model::entry::EntryId;
use crate::model::key::{Keys, KindSet};

use super::FileMeta;

/// A posting waiting in the run buffer: gram, key length, key number, packed so that
/// sorting the integers sorts a run by gram, then as a list is kept (length, key).
type Packed = u128;

fn pack(gram: u64, len: u16, d: u32) -> Packed {
    (u128::from(gram) << 64) | (u128::from(len) << 32) | u128::from(d)
}

/// Postings a run holds by default (16 bytes each while buffered).
const RUN_POSTINGS: usize = 16 << 20;

/// The keys of an index file being built, in arrival order, and its posting lists in
/// sorted runs on disk; [`finish`](Self::finish) writes the file.
///
/// ```
/// use cmem_core::index::gram_index::{FileMeta, FrozenGrams, GramIndex, StreamBuild};
/// use cmem_core::index::locale_set::LocaleSets;
/// use cmem_core::imp::Keys;
/// use cmem_core::EntryId;
///
/// let dir = std::env::temp_dir().join(format!("cmem-stream-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let dest = dir.join("index");
/// let keys = |s: &str| Keys { plain: s.into(), structural: s.into(), generalized: s.into() };
/// let meta = FileMeta { seq: 0, eid: 2, key_version: 0, locale: "en".into(), token: "m#1".into() };
/// // Runs of two postings: the lists are merged from several runs on disk.
/// let mut stream = StreamBuild::with_run_size(&dest, 2)?;
/// stream.add(EntryId(1), 0, &keys("open the file"))?;
/// stream.add(EntryId(2), 0, &keys("open a file"))?;
/// let mut streamed = std::io::Cursor::new(Vec::new());
/// stream.finish(&LocaleSets::default(), &meta, &mut streamed)?;
///
/// let mut ix = GramIndex::new();
/// ix.add(EntryId(1), 0, &keys("open the file"));
/// ix.add(EntryId(2), 0, &keys("open a file"));
/// assert_eq!(streamed.into_inner(), ix.to_file(&LocaleSets::default(), &meta)?);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamBuild {
    /// The keys' texts, one after the other.
    texts: Scratch,
    /// Where each key's text starts in `texts`, and the end.
    offsets: Vec<u64>,
    entries: Vec<i64>,
    groups: Vec<u32>,
    kinds: Vec<u8>,
    /// Length in characters.
    lens: Vec<u32>,
    same: SameText,
    /// Per gram, the keys holding it, chained ones included.
    holding: FxHashMap<u64, u64>,
    buffer: Vec<Packed>,
    run_size: usize,
    /// The sorted runs on disk: per gram, the gram (u64), its count (u32), the key
    /// numbers (u32 each) and their lengths (u16 each).
    runs: Vec<Scratch>,
    postings: u64,
    /// A key's text read back (see [`StreamBuild::text_is`]), kept between reads.
    read_back: Vec<u8>,
    /// Where the scratch files go: beside this path.
    dest: std::path::PathBuf,
}

impl std::fmt::Debug for StreamBuild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamBuild")
            .field("keys", &self.entries.len())
            .field("runs", &self.runs.len())
            .finish_non_exhaustive()
    }
}

/// A scratch file beside a destination (see [`scratch`](crate::atomic_file::scratch)).
struct Scratch {
    out: BufWriter<File>,
    /// Bytes written so far (buffered ones included).
    len: u64,
    /// Bytes surely in the file.
    flushed: u64,
}

impl Scratch {
    fn create(dest: &Path) -> io::Result<Scratch> {
        let file = crate::atomic_file::scratch(dest)?;
        Ok(Scratch { out: BufWriter::with_capacity(1 << 20, file), len: 0, flushed: 0 })
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Fills `buf` with the bytes written at `from`.
    fn read_at(&mut self, from: u64, buf: &mut [u8]) -> io::Result<()> {
        if from + buf.len() as u64 > self.flushed {
            self.out.flush()?;
            self.flushed = self.len;
        }
        self.out.get_ref().read_exact_at(buf, from)
    }

    /// A reader from the start, everything written flushed.
    fn reader(&mut self) -> io::Result<BufReader<File>> {
        self.out.flush()?;
        self.flushed = self.len;
        let mut file = self.out.get_ref().try_clone()?;
        file.seek(SeekFrom::Start(0))?;
        Ok(BufReader::with_capacity(1 << 20, file))
    }
}

impl StreamBuild {
    /// A build whose scratch files go beside `dest`, the file it is for.
    ///
    /// # Errors
    /// When a scratch file cannot be created there.
    pub fn new(dest: &Path) -> io::Result<StreamBuild> {
        StreamBuild::with_run_size(dest, RUN_POSTINGS)
    }

    /// [`new`](Self::new) with runs of `postings` postings (a test makes many runs).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn with_run_size(dest: &Path, postings: usize) -> io::Result<StreamBuild> {
        Ok(StreamBuild {
            texts: Scratch::create(dest)?,
            offsets: vec![0],
            entries: Vec::new(),
            groups: Vec::new(),
            kinds: Vec::new(),
            lens: Vec::new(),
            same: SameText::default(),
            holding: FxHashMap::default(),
            buffer: Vec::new(),
            run_size: postings.max(1),
            runs: Vec::new(),
            postings: 0,
            read_back: Vec::new(),
            dest: dest.to_path_buf(),
        })
    }

    /// The number of keys added.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no key was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds the distinct keys of one variant of `entry`, whose locale set is number
    /// `group`, as [`GramIndex::add`](super::GramIndex::add) does.
    ///
    /// # Errors
    /// A scratch file cannot be written or read, or the keys outgrow the format.
    pub fn add(&mut self, entry: EntryId, group: u32, keys: &Keys) -> io::Result<()> {
        for (key, kinds) in keys.distinct() {
            self.add_key(entry, group, kinds, key)?;
        }
        Ok(())
    }

    fn add_key(&mut self, entry: EntryId, group: u32, kinds: KindSet, key: &str) -> io::Result<()> {
        let d = u32::try_from(self.entries.len())
            .ok()
            .filter(|&d| d != END)
            .ok_or_else(|| io::Error::other("too many keys for the index file format"))?;
        let len = key.chars().count();
        let short = u16::try_from(len).unwrap_or(u16::MAX);
        let hash = text_hash(key);
        let first = match self.same.by_hash.get(&hash).copied() {
            Some((first, last)) if self.text_is(first, key)? => Some((first, last)),
            _ => None,
        };
        self.same.file(hash, d, first, 0);
        // A key of a text seen before has its first key's grams: chained, not listed.
        let listed = first.is_none();
        for g in padded_grams(key) {
            *self.holding.entry(g).or_default() += 1;
            if listed {
                self.buffer.push(pack(g, short, d));
                self.postings += 1;
            }
        }
        if self.buffer.len() >= self.run_size {
            self.spill()?;
        }
        self.texts.write(key.as_bytes())?;
        self.offsets.push(self.texts.len);
        self.entries.push(entry.0);
        self.groups.push(group);
        self.kinds.push(kinds.0);
        self.lens.push(u32::try_from(len).unwrap_or(u32::MAX));
        Ok(())
    }

    /// Whether key `d`'s text is `key`.
    fn text_is(&mut self, d: u32, key: &str) -> io::Result<bool> {
        let (from, to) = (self.offsets[d as usize], self.offsets[d as usize + 1]);
        if to - from != key.len() as u64 {
            return Ok(false);
        }
        self.read_back.resize(key.len(), 0);
        self.texts.read_at(from, &mut self.read_back)?;
        Ok(self.read_back == key.as_bytes())
    }

    /// Sorts the run buffer and writes it to a scratch file of its own.
    fn spill(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.buffer.sort_unstable();
        let mut file = Scratch::create(&self.dest)?;
        let mut ids = Vec::new();
        let mut lens = Vec::new();
        for group in self.buffer.chunk_by(|a, b| a >> 64 == b >> 64) {
            ids.clear();
            lens.clear();
            ids.extend(group.iter().map(|&p| p as u32));
            lens.extend(group.iter().map(|&p| (p >> 32) as u16));
            file.write(&((group[0] >> 64) as u64).to_ne_bytes())?;
            file.write(&(group.len() as u32).to_ne_bytes())?;
            file.write(bytemuck::cast_slice(&ids))?;
            file.write(bytemuck::cast_slice(&lens))?;
        }
        self.buffer.clear();
        self.runs.push(file);
        Ok(())
    }

    /// Writes the index file of the keys added, whose set numbers are those of `sets`,
    /// to `out` from its start; the same file [`GramIndex::to_file`](super::GramIndex::to_file)
    /// gives for an index of the same keys added in the same order.
    ///
    /// # Errors
    /// A scratch file cannot be read, the index outgrows the format, or `out` fails.
    pub fn finish<W: Write + Seek>(
        mut self,
        sets: &LocaleSets,
        meta: &FileMeta,
        out: &mut W,
    ) -> io::Result<()> {
        if !self.runs.is_empty() {
            self.spill()?;
        } else {
            self.buffer.sort_unstable();
        }
        self.buffer.shrink_to_fit();
        super::file::write_layout(&mut self, sets, meta, out)
    }
}

/// The lists of a run in memory, one gram's after the other.
type Groups<'a> = std::iter::Peekable<std::slice::ChunkBy<'a, Packed, fn(&Packed, &Packed) -> bool>>;

/// A source of sorted lists while merging: the last run in memory, or a run on disk.
enum Source<'a> {
    Memory(Groups<'a>),
    Disk { reader: BufReader<File>, next: Option<(u64, u32)> },
}

fn same_gram(a: &Packed, b: &Packed) -> bool {
    a >> 64 == b >> 64
}

impl Source<'_> {
    fn read_head(reader: &mut BufReader<File>) -> io::Result<Option<(u64, u32)>> {
        let mut head = [0u8; 12];
        match reader.read_exact(&mut head) {
            Ok(()) => Ok(Some((
                u64::from_ne_bytes(head[..8].try_into().unwrap_or_default()),
                u32::from_ne_bytes(head[8..].try_into().unwrap_or_default()),
            ))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The gram of the next list.
    fn gram(&mut self) -> Option<u64> {
        match self {
            Source::Memory(groups) => groups.peek().map(|g| (g[0] >> 64) as u64),
            Source::Disk { next, .. } => next.map(|(g, _)| g),
        }
    }

    /// Appends the next list to `merged`, each key as (length, key) packed, and moves on.
    fn take(&mut self, merged: &mut Vec<u64>, ids: &mut Vec<u32>, lens: &mut Vec<u16>) -> io::Result<()> {
        match self {
            Source::Memory(groups) => {
                if let Some(g) = groups.next() {
                    merged.extend(g.iter().map(|&p| p as u64));
                }
            }
            Source::Disk { reader, next } => {
                let Some((_, n)) = *next else { return Ok(()) };
                let n = n as usize;
                ids.resize(n, 0);
                lens.resize(n, 0);
                reader.read_exact(bytemuck::cast_slice_mut(ids))?;
                reader.read_exact(bytemuck::cast_slice_mut(lens))?;
                merged
                    .extend(ids.iter().zip(lens.iter()).map(|(&d, &l)| (u64::from(l) << 32) | u64::from(d)));
                *next = Source::read_head(reader)?;
            }
        }
        Ok(())
    }
}

impl Layout for StreamBuild {
    fn docs(&self) -> usize {
        self.entries.len()
    }

    fn keys(&mut self, each: &mut dyn FnMut(&KeyRecord<'_>) -> io::Result<()>) -> io::Result<()> {
        let mut reader = self.texts.reader()?;
        let mut text = Vec::new();
        for d in 0..self.entries.len() {
            let n = (self.offsets[d + 1] - self.offsets[d]) as usize;
            text.resize(n, 0);
            reader.read_exact(&mut text)?;
            let key = std::str::from_utf8(&text).map_err(io::Error::other)?;
            each(&KeyRecord {
                entry: EntryId(self.entries[d]),
                group: self.groups[d],
                kinds: KindSet(self.kinds[d]),
                len: u16::try_from(self.lens[d]).unwrap_or(u16::MAX),
                key,
                sketch: &CharSketch::of(key),
                next: self.same.next[d],
                first: self.same.first[d],
            })?;
        }
        Ok(())
    }

    fn grams(&self) -> usize {
        self.holding.len()
    }

    fn postings(&self) -> u64 {
        self.postings
    }

    fn lists(&mut self, each: &mut ListFn<'_>) -> io::Result<()> {
        let mut sources = Vec::with_capacity(self.runs.len() + 1);
        for run in &mut self.runs {
            let mut reader = run.reader()?;
            let next = Source::read_head(&mut reader)?;
            sources.push(Source::Disk { reader, next });
        }
        if self.runs.is_empty() {
            let by_gram: fn(&Packed, &Packed) -> bool = same_gram;
            sources.push(Source::Memory(self.buffer.chunk_by(by_gram).peekable()));
        }
        let (mut merged, mut ids, mut lens, mut run_ids, mut run_lens, mut starts) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        while let Some(gram) = sources.iter_mut().filter_map(Source::gram).min() {
            merged.clear();
            // Runs hold keys in number order, each run's list sorted: the stable sort
            // merges them.
            for s in &mut sources {
                if s.gram() == Some(gram) {
                    s.take(&mut merged, &mut run_ids, &mut run_lens)?;
                }
            }
            merged.sort();
            ids.clear();
            lens.clear();
            ids.extend(merged.iter().map(|&p| p as u32));
            lens.extend(merged.iter().map(|&p| (p >> 32) as u16));
            starts.clear();
            directory(&lens, &mut starts);
            let holding = self.holding.get(&gram).copied().unwrap_or(ids.len() as u64);
            each(gram, &ids, &lens, &starts, holding)?;
        }
        Ok(())
    }

    fn by_len(&self) -> (Vec<u32>, Vec<u32>) {
        let max_len = self.lens.iter().copied().max().map_or(0, |m| m as usize);
        let mut starts = vec![0u32; max_len + 2];
        for &l in &self.lens {
            starts[l as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut at: Vec<u32> = starts.clone();
        let mut keys = vec![0u32; self.lens.len()];
        for (d, &l) in self.lens.iter().enumerate() {
            keys[at[l as usize] as usize] = d as u32;
            at[l as usize] += 1;
        }
        (starts, keys)
    }

    fn entry_keys(&self) -> (Vec<i64>, Vec<u32>) {
        if self.entries.is_sorted() {
            return (self.entries.clone(), (0..self.entries.len() as u32).collect());
        }
        let mut pairs: Vec<(i64, u32)> =
            self.entries.iter().enumerate().map(|(d, &e)| (e, d as u32)).collect();
        pairs.sort_unstable();
        pairs.into_iter().unzip()
    }

    fn same(&self) -> &SameText {
        &self.same
    }

    fn hints(&self) -> Vec<u8> {
        self.groups.iter().map(|&g| set_hint(g)).collect()
    }

    fn dead(&self) -> usize {
        0
    }
}
