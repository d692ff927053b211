//! The persisted form of a [`GramIndex`]: one file a new process reads in place (mapped
//! by the store) instead of building the index from the memory's tables.
//!
//! Layout (all numbers in the writing machine's byte order, recorded in the header; a file
//! of the other order is refused): a fixed header with the file's length, a checksum of the
//! header, the watermark of the memory's changes it reflects, the locale it indexes and a
//! token tying it to one memory; then fourteen sections, each aligned to 8 bytes:
//!
//! | section | content |
//! |---|---|
//! | records | per key, one 64-byte line: entry (i64), key offset and length in the key text (u32, u32), locale set (u32), kinds (u8), a spare byte, length in characters (u16, saturating), the 32-byte character sketch, the next key of its chain of keys of the same text and the first key of the chain it is in (u32, u32; `u32::MAX`: none) |
//! | keys | the keys' text, one after the other |
//! | slots | open-addressed gram table: gram (u64), list start and length (u32, u32), directory start and length (u32, u32), the keys holding the gram, chained ones included (u64) |
//! | ids, lens | the posting lists of the keys listed (not chained), each sorted by (key length, key number): key numbers (u32) and lengths (u16) |
//! | starts | the length directories of the long lists (u32) |
//! | by-length starts, by-length keys | keys by length |
//! | entries, entry keys | (entry, key) pairs sorted, to forget an entry's keys |
//! | sets | the locale sets the records' set numbers refer to |
//! | more | per key, a bit: a key follows it in its chain of keys of the same text |
//! | weight | per key (u32): for a first key, the keys of its chain, itself included (see `SameText`) |
//! | set hints | per key (u8): its locale set number, 255 when that is 255 or more (then the record says) |
//!
//! The file ends with the magic bytes again. A file is streamed to a temporary name,
//! synced and renamed ([`replace_with`](crate::atomic_file::replace_with)), so a reader sees an old file or a new one; a
//! torn or foreign file fails [`FrozenGrams::open`]'s checks (length, trailer, header checksum, section
//! bounds) and is rebuilt. Every read of a section is bounds-checked: a file damaged inside
//! a section can yield wrong candidates (the scorer still checks each one) but never a
//! panic.

use std::collections::BTreeMap;
use std::io::{Seek, SeekFrom, Write};
use std::ops::Range;
use std::sync::Arc;

use crate::index::distance::CharSketch;
use crate::index::locale_set::LocaleSets;
use crate::model::entry::EntryId;
use crate::model::key::KindSet;
use crate::model::locale::Locale;

use super::posting::{List, Posting, DIRECTORY_FROM};
use super::GramIndex;

const MAGIC: &[u8; 8] = b"CMEMGIX\x01";
const FORMAT: u32 = 4;
const ENDIAN: u32 = 0x0A0B_0C0D;
const SECTIONS: usize = 14;
const FIXED: usize = 104;
/// A gram table slot: gram, list, directory, keys holding the gram.
const SLOT: usize = 4;
const TABLE_END: usize = FIXED + SECTIONS * 16;
/// A record is one cache line: an offer reads the entry, set, kinds, length and sketch
/// together, and the key's text only when the sketch does not rule it out.
const RECORD: usize = 64;
const SKETCH: usize = 32;

/// Section numbers.
const RECORDS: usize = 0;
const KEYS: usize = 1;
const SLOTS: usize = 2;
const IDS: usize = 3;
const LENS: usize = 4;
const STARTS: usize = 5;
const BY_LEN_STARTS: usize = 6;
const BY_LEN_KEYS: usize = 7;
const ENTRIES: usize = 8;
const ENTRY_KEYS: usize = 9;
const SETS: usize = 10;
const MORE: usize = 11;
const WEIGHT: usize = 12;
const SET_HINTS: usize = 13;

/// What a persisted index reflects and where it belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMeta {
    /// The last change-log number the index reflects.
    pub seq: i64,
    /// The highest entry number the index reflects (entries are numbered upwards and
    /// never reused: higher ones were written since).
    pub eid: i64,
    /// The key version of the keys indexed.
    pub key_version: u32,
    /// The variant locale whose keys are indexed.
    pub locale: String,
    /// Which memory the index is of, then the identity hash of its newest entry (entry
    /// `eid`): see [`FileMeta::token_of`]. A file of another memory is not used.
    pub token: String,
}

impl FileMeta {
    /// The token of an index of the memory named `memory` (by the store: a token, and
    /// whatever else tells its copies apart) whose newest entry has identity hash
    /// `newest` (0: the memory has no entry).
    pub fn token_of(memory: &str, newest: i64) -> String {
        format!("{memory}#{newest}")
    }

    /// The memory part of the token; `None` for a token of another form (a file written
    /// before the newest entry was recorded), which no memory owns.
    pub fn memory(&self) -> Option<&str> {
        self.token.rsplit_once('#').map(|(memory, _)| memory)
    }

    /// Whether the file indexes the keys of `locale` as this build makes them.
    pub fn indexes(&self, locale: &str) -> bool {
        self.key_version == crate::model::key::KEY_VERSION && self.locale == locale
    }

    /// Whether the index can be caught up from the change log to a state of its memory
    /// where the log's last number is `seq` and the highest entry number `eid`, given
    /// `newest`, the identity hash the file's newest entry (`self.eid`) has in that
    /// state (0: none), and `newest_logged`, whether the log holds a deletion or
    /// re-keying of that entry after the file's mark.
    ///
    /// Not when the file knows a later state (a log past `seq`, or a newest entry gone
    /// without a logged deletion): a process that loaded after this one began, or a
    /// database taken back to an earlier state. Nor when the file's newest entry is
    /// another now and the log does not say why: a database taken back that handed the
    /// number out again. Its content cannot be caught up from there.
    pub fn follows(&self, (seq, eid): (i64, i64), newest: i64, newest_logged: bool) -> bool {
        let Some((_, known)) = self.token.rsplit_once('#') else { return false };
        if self.seq > seq || (self.eid > eid && !newest_logged) {
            return false;
        }
        newest_logged || known == newest.to_string()
    }
}

/// The most changes an index is caught up by from a memory's change log; past it (and,
/// for a persisted index, past a quarter of its keys) it is built again, which is then
/// faster.
pub const CATCH_UP_MOST: i64 = 20_000;

/// The bytes of a persisted index, wherever they live (a mapped file, a buffer).
pub type Bytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// A persisted [`GramIndex`] read in place: the frozen part of an index, under the keys
/// written since (see [`GramIndex::with_base`]).
#[derive(Clone)]
pub struct FrozenGrams {
    bytes: Bytes,
    sections: [Range<usize>; SECTIONS],
    docs: usize,
    /// Keys written dead (never offered).
    dead: usize,
    /// Keys in chains, not in the lists.
    chained: usize,
    max_len: usize,
    slot_bits: u32,
    meta: FileMeta,
}

impl std::fmt::Debug for FrozenGrams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrozenGrams")
            .field("docs", &self.docs)
            .field("meta", &self.meta)
            .finish_non_exhaustive()
    }
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_ne_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// FNV-1a, 64 bits: the header's checksum (short input; no dependency needed).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The slot of `gram` in a table of `1 << bits` slots before probing.
fn home(gram: u64, bits: u32) -> usize {
    if bits == 0 {
        return 0;
    }
    (gram.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

impl FrozenGrams {
    /// Reads a persisted index's header and checks it: magic, format, byte order,
    /// length, trailer, checksum and every section's bounds and size.
    ///
    /// # Errors
    /// A message saying what does not hold (the caller rebuilds the index).
    pub fn open(bytes: Bytes) -> Result<FrozenGrams, String> {
        let b: &[u8] = (*bytes).as_ref();
        if b.len() < TABLE_END + 16 || &b[..8] != MAGIC {
            return Err("not a candidate index file of this format".into());
        }
        let field = |at: usize| u64_at(b, at).ok_or_else(|| "truncated header".to_owned());
        if u32_at(b, 8) != Some(FORMAT) || u32_at(b, 12) != Some(ENDIAN) {
            return Err("written by another format version or byte order".into());
        }
        let total = usize::try_from(field(16)?).map_err(|_| "length out of range")?;
        if total != b.len() || &b[total - 8..] != MAGIC {
            return Err(format!("torn: {} bytes, the header says {total}", b.len()));
        }
        let head = usize::try_from(field(32)?).map_err(|_| "header out of range")?;
        if head < TABLE_END + 16 || head > total - 8 || fnv(&b[32..head]) != field(24)? {
            return Err("header checksum mismatch".into());
        }
        let docs = field(40)? as usize;
        let max_len = field(48)? as usize;
        let slot_bits = field(56)? as u32;
        let mut sections: [Range<usize>; SECTIONS] = Default::default();
        for (i, s) in sections.iter_mut().enumerate() {
            let off = field(FIXED + i * 16)? as usize;
            let len = field(FIXED + i * 16 + 8)? as usize;
            if off % 8 != 0 || off < head || off.checked_add(len).is_none_or(|end| end > total - 8) {
                return Err(format!("section {i} out of bounds"));
            }
            *s = off..off + len;
        }
        let size = |i: usize| sections[i].len();
        let slots = 1usize.checked_shl(slot_bits).unwrap_or(0);
        if slot_bits > 40
            || size(RECORDS) != docs * RECORD
            || size(SLOTS) != slots * SLOT * 8
            || size(IDS) != size(LENS) * 2
            || size(BY_LEN_STARTS) != (max_len + 2) * 4
            || size(ENTRIES) != size(ENTRY_KEYS) * 2
            || size(MORE) != docs.div_ceil(64) * 8
            || size(WEIGHT) != docs * 4
            || size(SET_HINTS) != docs
        {
            return Err("section sizes disagree".into());
        }
        let tag_len = field(TABLE_END)? as usize;
        let token_len = field(TABLE_END + 8)? as usize;
        let text = |r: Range<usize>| {
            b.get(r).and_then(|t| std::str::from_utf8(t).ok()).map(str::to_owned).ok_or("bad header text")
        };
        let at = TABLE_END + 16;
        let locale = text(at..at + tag_len)?;
        let token = text(at + tag_len..at + tag_len + token_len)?;
        let meta = FileMeta {
            seq: field(64)? as i64,
            eid: field(72)? as i64,
            key_version: field(80)? as u32,
            locale,
            token,
        };
        let dead = field(88)? as usize;
        let chained = field(96)? as usize;
        let frozen = FrozenGrams { bytes, sections, docs, dead, chained, max_len, slot_bits, meta };
        if frozen.u32s(BY_LEN_STARTS).last().is_none_or(|&n| n as usize != frozen.u32s(BY_LEN_KEYS).len()) {
            return Err("by-length directory disagrees".into());
        }
        Ok(frozen)
    }

    /// What the file reflects.
    pub fn meta(&self) -> &FileMeta {
        &self.meta
    }

    /// The number of keys in the file, dead ones included.
    pub fn docs(&self) -> usize {
        self.docs
    }

    /// Whether this index, `behind` changes (writes, deletions, re-keyings) behind its
    /// memory, is worth catching up rather than building again: at most
    /// [`CATCH_UP_MOST`] changes, or a quarter of its keys when that is more.
    pub fn worth_catching_up(&self, behind: i64) -> bool {
        behind <= CATCH_UP_MOST.max(self.docs as i64 / 4)
    }

    /// The number of keys written dead.
    pub(super) fn dead(&self) -> usize {
        self.dead
    }

    /// The size of the file in bytes.
    pub fn size(&self) -> usize {
        (*self.bytes).as_ref().len()
    }

    fn section(&self, i: usize) -> &[u8] {
        (*self.bytes).as_ref().get(self.sections[i].clone()).unwrap_or(&[])
    }

    fn u32s(&self, i: usize) -> &[u32] {
        bytemuck::try_cast_slice(self.section(i)).unwrap_or(&[])
    }

    fn u64s(&self, i: usize) -> &[u64] {
        bytemuck::try_cast_slice(self.section(i)).unwrap_or(&[])
    }

    /// The locale sets the records' set numbers refer to (as locale tags), or `None` if
    /// the section does not parse.
    pub fn sets(&self) -> Option<Vec<Vec<Locale>>> {
        let b = self.section(SETS);
        let mut at = 0usize;
        let mut take = |n: usize| {
            let s = b.get(at..at + n)?;
            at += n;
            Some(s)
        };
        let count = |s: &[u8]| -> Option<usize> { Some(u32::from_ne_bytes(s.try_into().ok()?) as usize) };
        let locales: Vec<Locale> = (0..count(take(4)?)?)
            .map(|_| {
                let n = count(take(4)?)?;
                Locale::parse(std::str::from_utf8(take(n)?).ok()?).ok()
            })
            .collect::<Option<_>>()?;
        (0..count(take(4)?)?)
            .map(|_| {
                (0..count(take(4)?)?)
                    .map(|_| locales.get(count(take(4)?)?).cloned())
                    .collect::<Option<Vec<_>>>()
            })
            .collect()
    }

    /// The posting list of `gram`, fully sorted, with its directory, and the keys
    /// holding the gram (those listed and the keys chained to them).
    pub(super) fn list(&self, gram: u64) -> Option<(List<'_>, usize)> {
        let slots = self.u64s(SLOTS);
        let mask = (1usize << self.slot_bits) - 1;
        let mut s = home(gram, self.slot_bits);
        for _ in 0..=mask {
            let slot = slots.get(s * SLOT..(s + 1) * SLOT)?;
            let (start, len) = ((slot[1] & 0xFFFF_FFFF) as usize, (slot[1] >> 32) as usize);
            if len == 0 {
                return None;
            }
            if slot[0] == gram {
                let (ss, sl) = ((slot[2] & 0xFFFF_FFFF) as usize, (slot[2] >> 32) as usize);
                let ids = self.u32s(IDS).get(start..start + len)?;
                let lens: &[u16] = bytemuck::try_cast_slice(self.section(LENS)).ok()?;
                let lens = lens.get(start..start + len)?;
                let starts = self.u32s(STARTS).get(ss..ss + sl)?;
                return Some((List { ids, lens, sorted: len, starts }, slot[3] as usize));
            }
            s = (s + 1) & mask;
        }
        None
    }

    /// The longest key length with a by-length list.
    pub(super) fn max_len(&self) -> usize {
        self.max_len
    }

    /// The keys of `len` characters.
    pub(super) fn by_len(&self, len: usize) -> &[u32] {
        let starts = self.u32s(BY_LEN_STARTS);
        match (starts.get(len), starts.get(len + 1)) {
            (Some(&a), Some(&b)) => self.u32s(BY_LEN_KEYS).get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// A byte of key `d`'s record, read only to bring the record into the cache (0 for a
    /// key out of range). Not its text: most keys offered are ruled out by the sketch in
    /// the record, and reading their texts ahead cost the slowest lookups more than it
    /// saved the others.
    pub(super) fn touch(&self, d: usize) -> usize {
        let Some(r) = self.section(RECORDS).get(d * RECORD..(d + 1) * RECORD) else { return 0 };
        usize::from(r[20])
    }

    /// Key `d` as its record has it; `None` if the record does not hold.
    pub(super) fn doc(&self, d: usize) -> Option<FrozenDoc<'_>> {
        let r = self.section(RECORDS).get(d * RECORD..(d + 1) * RECORD)?;
        let entry = i64::from_ne_bytes(r[0..8].try_into().ok()?);
        let off = u32::from_ne_bytes(r[8..12].try_into().ok()?) as usize;
        let bytes = u32::from_ne_bytes(r[12..16].try_into().ok()?) as usize;
        let group = u32::from_ne_bytes(r[16..20].try_into().ok()?);
        let kinds = KindSet(r[20]);
        let len = u16::from_ne_bytes(r[22..24].try_into().ok()?);
        let sketch: [u8; SKETCH] = r[24..24 + SKETCH].try_into().ok()?;
        let key = self.section(KEYS).get(off..off.checked_add(bytes)?)?;
        Some(FrozenDoc {
            entry: EntryId(entry),
            group,
            kinds,
            len,
            key,
            sketch: CharSketch::from_counts(sketch),
        })
    }

    /// Keys in chains (not in the lists).
    pub(super) fn chained(&self) -> usize {
        self.chained
    }

    /// Whether a key follows key `d` in its chain of keys of the same text.
    pub(super) fn more(&self, d: usize) -> bool {
        self.u64s(MORE).get(d / 64).is_some_and(|w| w & (1 << (d % 64)) != 0)
    }

    /// The key after key `d` in its chain, from `d`'s record: the walk follows a chain
    /// to offer its keys, whose records it reads then anyway. Chains run to higher
    /// numbers, so a damaged file cannot make one loop.
    pub(super) fn next(&self, d: usize) -> Option<u32> {
        let r = self.section(RECORDS).get(d * RECORD..(d + 1) * RECORD)?;
        let n = u32::from_ne_bytes(r[56..60].try_into().ok()?);
        (n as usize > d && (n as usize) < self.docs).then_some(n)
    }

    /// The first key of the chain key `d` is in, if it is in one.
    pub(super) fn first(&self, d: usize) -> Option<u32> {
        let r = self.section(RECORDS).get(d * RECORD..(d + 1) * RECORD)?;
        Some(u32::from_ne_bytes(r[60..64].try_into().ok()?)).filter(|&f| (f as usize) < self.docs)
    }

    /// For a first key, the keys of its chain, itself included (1 when out of range).
    pub(super) fn weight(&self, d: usize) -> usize {
        self.u32s(WEIGHT).get(d).map_or(1, |&w| w as usize)
    }

    /// Key `d`'s locale set number (the file's) when it is under 255, read without its
    /// record.
    pub(super) fn set_hint(&self, d: usize) -> Option<u8> {
        self.section(SET_HINTS).get(d).copied().filter(|&g| g != u8::MAX)
    }

    /// The keys of `entry`.
    pub(super) fn keys_of(&self, entry: EntryId) -> &[u32] {
        let entries: &[i64] = bytemuck::try_cast_slice(self.section(ENTRIES)).unwrap_or(&[]);
        let from = entries.partition_point(|&e| e < entry.0);
        let to = entries.partition_point(|&e| e <= entry.0);
        self.u32s(ENTRY_KEYS).get(from..to).unwrap_or(&[])
    }
}

/// A locale set number as a set hint has it: 255 for 255 and more.
pub(super) fn set_hint(group: u32) -> u8 {
    u8::try_from(group).unwrap_or(u8::MAX)
}

/// A persisted key as its record has it.
pub(super) struct FrozenDoc<'a> {
    pub(super) entry: EntryId,
    /// The file's locale-set number.
    pub(super) group: u32,
    pub(super) kinds: KindSet,
    /// Length in characters, saturating at `u16::MAX`.
    pub(super) len: u16,
    /// The key's UTF-8 bytes (checked when read).
    pub(super) key: &'a [u8],
    pub(super) sketch: CharSketch,
}

/// Sections written one after the other to a stream, each padded to 8 bytes, with the
/// table of where each lies.
struct SectionWriter<'w, W> {
    out: &'w mut W,
    /// The stream's position.
    at: u64,
    table: [(u64, u64); SECTIONS],
}

impl<W: Write> SectionWriter<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.at += bytes.len() as u64;
        Ok(())
    }

    /// Ends section `i`, begun at `start`: records its range and pads it.
    fn end(&mut self, i: usize, start: u64) -> std::io::Result<()> {
        self.table[i] = (start, self.at - start);
        let pad = (self.at.next_multiple_of(8) - self.at) as usize;
        self.put(&[0; 8][..pad])
    }

    /// Section `i`, whole.
    fn section(&mut self, i: usize, bytes: &[u8]) -> std::io::Result<()> {
        let start = self.at;
        self.put(bytes)?;
        self.end(i, start)
    }
}

/// The bytes of the persisted form of `ix` (see [`write_to`]).
///
/// # Errors
/// As [`write_to`].
pub fn write(ix: &GramIndex, sets: &LocaleSets, meta: &FileMeta) -> Result<Vec<u8>, String> {
    let mut out = std::io::Cursor::new(Vec::new());
    write_to(ix, sets, meta, &mut out).map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

/// Writes the persisted form of `ix` (an index without a frozen part), whose set numbers
/// are those of `sets`, to `out` from its start.
///
/// # Errors
/// When `ix` has a frozen part (write the index built from the memory instead), is too
/// large for the format's 32-bit offsets, or `out` fails.
pub fn write_to<W: Write + Seek>(
    ix: &GramIndex,
    sets: &LocaleSets,
    meta: &FileMeta,
    out: &mut W,
) -> std::io::Result<()> {
    if ix.base.is_some() {
        return Err(invalid("only an index built from the memory can be written"));
    }
    write_layout(&mut InMemory(ix), sets, meta, out)
}

fn invalid(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_owned())
}

fn too_large() -> std::io::Error {
    invalid("index too large for the file format")
}

/// One key as its record is written.
pub(super) struct KeyRecord<'a> {
    pub(super) entry: EntryId,
    pub(super) group: u32,
    /// No kinds for a dead key: never offered.
    pub(super) kinds: KindSet,
    /// Length in characters, saturating.
    pub(super) len: u16,
    pub(super) key: &'a str,
    pub(super) sketch: &'a CharSketch,
    /// The next key of its chain of keys of the same text, and the first of the chain it
    /// is in ([`END`](super::posting::END): none).
    pub(super) next: u32,
    pub(super) first: u32,
}

/// What a file is written from: an index in memory ([`GramIndex`]) or keys streamed to
/// runs on disk ([`StreamBuild`](super::stream::StreamBuild)). Both give the same file
/// for the same keys.
pub(super) trait Layout {
    /// The number of keys.
    fn docs(&self) -> usize;
    /// Calls `each` with every key, in number order.
    fn keys(&mut self, each: &mut dyn FnMut(&KeyRecord<'_>) -> std::io::Result<()>) -> std::io::Result<()>;
    /// The number of grams with a list.
    fn grams(&self) -> usize;
    /// The number of keys in all the lists together.
    fn postings(&self) -> u64;
    /// Calls `each` with every gram's list, grams in ascending order: the gram, its keys
    /// and their lengths sorted by (length, key), the length directory, and the keys
    /// holding the gram (chained ones included).
    fn lists(&mut self, each: &mut ListFn<'_>) -> std::io::Result<()>;
    /// The keys by length: where each length's keys start (one more than the longest
    /// length, and the end), and the keys.
    fn by_len(&self) -> (Vec<u32>, Vec<u32>);
    /// (entry, key) for every key, sorted.
    fn entry_keys(&self) -> (Vec<i64>, Vec<u32>);
    /// The chains of keys of the same text.
    fn same(&self) -> &super::SameText;
    /// Per key, its set hint.
    fn hints(&self) -> Vec<u8>;
    /// The number of dead keys.
    fn dead(&self) -> usize;
}

/// What [`Layout::lists`] calls: gram, keys, lengths, directory, keys holding the gram.
pub(super) type ListFn<'a> = dyn FnMut(u64, &[u32], &[u16], &[u32], u64) -> std::io::Result<()> + 'a;

/// A [`GramIndex`] as a [`Layout`].
struct InMemory<'a>(&'a GramIndex);

impl Layout for InMemory<'_> {
    fn docs(&self) -> usize {
        self.0.docs.len()
    }

    fn keys(&mut self, each: &mut dyn FnMut(&KeyRecord<'_>) -> std::io::Result<()>) -> std::io::Result<()> {
        let same = &self.0.same;
        for (i, doc) in self.0.docs.iter().enumerate() {
            each(&KeyRecord {
                entry: doc.entry,
                group: doc.group,
                kinds: if doc.alive { doc.kinds } else { KindSet(0) },
                len: doc.len,
                key: &doc.key,
                sketch: &doc.sketch,
                next: same.next.get(i).copied().unwrap_or(super::posting::END),
                first: same.first.get(i).copied().unwrap_or(super::posting::END),
            })?;
        }
        Ok(())
    }

    fn grams(&self) -> usize {
        self.0.postings.len()
    }

    fn postings(&self) -> u64 {
        self.0.postings.values().map(|p| p.ids.len() as u64).sum()
    }

    fn lists(&mut self, each: &mut ListFn<'_>) -> std::io::Result<()> {
        let grams: BTreeMap<u64, &Posting> = self.0.postings.iter().map(|(g, p)| (*g, p)).collect();
        for (&gram, &posting) in &grams {
            // Listed keys only: a key of the same text as one listed follows it in its chain.
            let mut p = Posting {
                ids: posting.ids.clone(),
                lens: posting.lens.clone(),
                sorted: posting.sorted,
                starts: Vec::new(),
                keys: posting.keys,
            };
            if p.ids.len() > p.sorted || (p.ids.len() >= DIRECTORY_FROM && posting.starts.is_empty()) {
                p.merge();
            } else {
                p.starts.clone_from(&posting.starts);
            }
            each(gram, &p.ids, &p.lens, &p.starts, p.keys as u64)?;
        }
        Ok(())
    }

    fn by_len(&self) -> (Vec<u32>, Vec<u32>) {
        let by_len = &self.0.by_len;
        let max_len = by_len.len().saturating_sub(1);
        let mut starts = Vec::with_capacity(max_len + 2);
        let mut keys = Vec::new();
        for l in 0..=max_len {
            starts.push(keys.len() as u32);
            keys.extend_from_slice(by_len.get(l).map_or(&[][..], Vec::as_slice));
        }
        starts.push(keys.len() as u32);
        (starts, keys)
    }

    fn entry_keys(&self) -> (Vec<i64>, Vec<u32>) {
        let mut pairs: Vec<(i64, u32)> =
            self.0.of_entry.iter().flat_map(|(e, ds)| ds.iter().map(move |&d| (e.0, d))).collect();
        pairs.sort_unstable();
        pairs.into_iter().unzip()
    }

    fn same(&self) -> &super::SameText {
        &self.0.same
    }

    fn hints(&self) -> Vec<u8> {
        self.0.docs.iter().map(|doc| set_hint(doc.group)).collect()
    }

    fn dead(&self) -> usize {
        self.0.docs.iter().filter(|d| !d.alive).count()
    }
}

/// Bytes bound for a place in the output, written there in chunks (two sections filled
/// side by side: a list's keys and their lengths).
struct Placed {
    at: u64,
    buf: Vec<u8>,
}

impl Placed {
    const CHUNK: usize = 4 << 20;

    fn put<W: Write + Seek>(&mut self, out: &mut W, bytes: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= Self::CHUNK {
            self.flush(out)?;
        }
        Ok(())
    }

    fn flush<W: Write + Seek>(&mut self, out: &mut W) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            out.seek(SeekFrom::Start(self.at))?;
            out.write_all(&self.buf)?;
            self.at += self.buf.len() as u64;
            self.buf.clear();
        }
        Ok(())
    }
}

/// Writes the file of `l`, whose set numbers are those of `sets`, to `out` from its start.
///
/// The sections are streamed as they are made: beside what `l` holds, the writer holds
/// the length directories and the gram table, a fraction of the file, not the file
/// itself (DESIGN.md §7.4; the peaks it saves are in docs/performance.md). The lists' keys
/// and lengths are written side by side into their two sections, whose sizes are known
/// beforehand; the gram table and the header, which say where the lists landed, are
/// written last, over the zeros that held their place.
pub(super) fn write_layout<W: Write + Seek, L: Layout>(
    l: &mut L,
    sets: &LocaleSets,
    meta: &FileMeta,
    out: &mut W,
) -> std::io::Result<()> {
    let mut header = vec![0u8; TABLE_END + 16];
    header.extend_from_slice(meta.locale.as_bytes());
    header.extend_from_slice(meta.token.as_bytes());
    header.resize(header.len().next_multiple_of(8), 0);
    let head = header.len();
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header)?;
    let mut w = SectionWriter { out, at: head as u64, table: [(0, 0); SECTIONS] };

    // The records and the keys' texts, side by side in their two sections.
    let docs = l.docs();
    let records_at = w.at;
    let texts_at = records_at + (docs * RECORD) as u64;
    let mut records = Placed { at: records_at, buf: Vec::new() };
    let mut texts = Placed { at: texts_at, buf: Vec::new() };
    let mut key_bytes = 0usize;
    let o = &mut *w.out;
    l.keys(&mut |k| {
        let off = u32::try_from(key_bytes).map_err(|_| too_large())?;
        key_bytes += k.key.len();
        let mut record = [0u8; RECORD];
        record[0..8].copy_from_slice(&k.entry.0.to_ne_bytes());
        record[8..12].copy_from_slice(&off.to_ne_bytes());
        record[12..16].copy_from_slice(&(k.key.len() as u32).to_ne_bytes());
        record[16..20].copy_from_slice(&k.group.to_ne_bytes());
        record[20] = k.kinds.0;
        record[22..24].copy_from_slice(&k.len.to_ne_bytes());
        record[24..24 + SKETCH].copy_from_slice(k.sketch.counts());
        record[56..60].copy_from_slice(&k.next.to_ne_bytes());
        record[60..64].copy_from_slice(&k.first.to_ne_bytes());
        records.put(o, &record)?;
        texts.put(o, k.key.as_bytes())
    })?;
    if records.at + records.buf.len() as u64 != texts_at {
        return Err(std::io::Error::other("the keys are another number than counted"));
    }
    records.flush(o)?;
    texts.flush(o)?;
    o.seek(SeekFrom::Start(texts.at))?;
    w.table[RECORDS] = (records_at, texts_at - records_at);
    w.at = texts.at;
    w.end(KEYS, texts_at)?;

    let slot_bits = (l.grams() * 2).next_power_of_two().trailing_zeros().max(1);
    let mut slots = vec![0u64; (1usize << slot_bits) * SLOT];
    // The gram table's place, filled once the lists are written.
    let slots_at = w.at;
    w.section(SLOTS, &vec![0u8; slots.len() * 8])?;
    // The lists' keys and their lengths, side by side in their two sections.
    let postings = l.postings();
    let ids_at = w.at;
    let lens_at = (ids_at + postings * 4).next_multiple_of(8);
    let mut ids = Placed { at: ids_at, buf: Vec::new() };
    let mut lens = Placed { at: lens_at, buf: Vec::new() };
    let (mut listed, mut starts): (u64, Vec<u32>) = Default::default();
    let o = &mut *w.out;
    l.lists(&mut |gram, list, list_lens, dir, keys| {
        let list_start = listed;
        let ss = starts.len() as u64;
        if list_start > u64::from(u32::MAX) || ss > u64::from(u32::MAX) {
            return Err(too_large());
        }
        if list.is_empty() {
            return Ok(());
        }
        ids.put(o, bytemuck::cast_slice(list))?;
        lens.put(o, bytemuck::cast_slice(list_lens))?;
        listed += list.len() as u64;
        starts.extend_from_slice(dir);
        let mask = (1usize << slot_bits) - 1;
        let mut s = home(gram, slot_bits);
        while slots[s * SLOT + 1] != 0 {
            s = (s + 1) & mask;
        }
        slots[s * SLOT] = gram;
        slots[s * SLOT + 1] = list_start | ((list.len() as u64) << 32);
        slots[s * SLOT + 2] = ss | ((dir.len() as u64) << 32);
        slots[s * SLOT + 3] = keys;
        Ok(())
    })?;
    if listed != postings {
        return Err(std::io::Error::other("the lists hold another number of keys than counted"));
    }
    ids.flush(o)?;
    // The padding between the two sections, written as the stream would have.
    let pad = (lens_at - ids.at) as usize;
    ids.put(o, &[0; 8][..pad])?;
    ids.flush(o)?;
    lens.flush(o)?;
    o.seek(SeekFrom::Start(lens.at))?;
    w.table[IDS] = (ids_at, postings * 4);
    w.at = lens.at;
    w.end(LENS, lens_at)?;
    w.section(STARTS, bytemuck::cast_slice(&starts))?;
    drop(starts);

    let (by_len_starts, by_len_keys) = l.by_len();
    let max_len = by_len_starts.len().saturating_sub(2);
    w.section(BY_LEN_STARTS, bytemuck::cast_slice(&by_len_starts))?;
    w.section(BY_LEN_KEYS, bytemuck::cast_slice(&by_len_keys))?;
    drop((by_len_starts, by_len_keys));
    let (entries, entry_keys) = l.entry_keys();
    w.section(ENTRIES, bytemuck::cast_slice(&entries))?;
    w.section(ENTRY_KEYS, bytemuck::cast_slice(&entry_keys))?;
    drop((entries, entry_keys));
    let mut set_bytes = Vec::new();
    let n = |v: usize| (v as u32).to_ne_bytes();
    set_bytes.extend_from_slice(&n(sets.locales().len()));
    for l in sets.locales() {
        set_bytes.extend_from_slice(&n(l.as_str().len()));
        set_bytes.extend_from_slice(l.as_str().as_bytes());
    }
    set_bytes.extend_from_slice(&n(sets.set_count()));
    for s in 0..sets.set_count() {
        let set = sets.set(s as u32);
        set_bytes.extend_from_slice(&n(set.len()));
        for &li in set {
            set_bytes.extend_from_slice(&n(usize::from(li)));
        }
    }
    w.section(SETS, &set_bytes)?;
    let same = l.same();
    let mut more = same.more.clone();
    more.resize(docs.div_ceil(64), 0);
    w.section(MORE, bytemuck::cast_slice(&more))?;
    drop(more);
    let mut weight = same.weight.clone();
    weight.resize(docs, 1);
    w.section(WEIGHT, bytemuck::cast_slice(&weight))?;
    drop(weight);
    w.section(SET_HINTS, &l.hints())?;
    w.put(MAGIC)?;
    let (total, table) = (w.at, w.table);

    let put = |out: &mut Vec<u8>, at: usize, v: u64| out[at..at + 8].copy_from_slice(&v.to_ne_bytes());
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&FORMAT.to_ne_bytes());
    header[12..16].copy_from_slice(&ENDIAN.to_ne_bytes());
    put(&mut header, 16, total);
    put(&mut header, 32, head as u64);
    put(&mut header, 40, docs as u64);
    put(&mut header, 48, max_len as u64);
    put(&mut header, 56, u64::from(slot_bits));
    put(&mut header, 64, meta.seq as u64);
    put(&mut header, 72, meta.eid as u64);
    put(&mut header, 80, u64::from(meta.key_version));
    put(&mut header, 88, l.dead() as u64);
    put(&mut header, 96, l.same().chained as u64);
    for (i, (off, len)) in table.iter().enumerate() {
        put(&mut header, FIXED + i * 16, *off);
        put(&mut header, FIXED + i * 16 + 8, *len);
    }
    put(&mut header, TABLE_END, meta.locale.len() as u64);
    put(&mut header, TABLE_END + 8, meta.token.len() as u64);
    let sum = fnv(&header[32..head]);
    put(&mut header, 24, sum);
    out.seek(SeekFrom::Start(slots_at))?;
    out.write_all(bytemuck::cast_slice(&slots))?;
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header)?;
    out.seek(SeekFrom::Start(total))?;
    Ok(())
}

#[cfg(test)]
mod tests;
