//! The `.kmb` bundle: the lossless native archive of a memory (see `docs/kmb.md`).
//!
//! ```text
//! header   8 bytes  magic 89 4B 4D 42 0D 0A 1A 0A  ("\x89KMB\r\n\x1a\n")
//!          4 bytes  format version, u32 little-endian (1)
//!          4 bytes  flags, u32 LE (0; reserved)
//!          8 bytes  entry count, u64 LE, or u64::MAX when not known in advance
//! body     one gzip member holding
//!            per entry:  u32 LE length (1..=64 MiB) + that many bytes of JSON
//!                        (the serde form of `NewEntry`: variants with runs, point,
//!                        unit, project, origins, metadata)
//!            trailer:    u32 LE 0xFFFF_FFFF, u64 LE entry count,
//!                        u32 LE CRC-32 (IEEE) of every byte of the entry records
//! end      nothing may follow the gzip member
//! ```
//!
//! The same entries give the same bytes: no timestamp is written (the gzip header's
//! mtime is 0) and JSON field order is fixed. A cut anywhere is
//! [`FormatErrorKind::Truncated`]; a flipped bit is caught by deflate, gzip's own CRC or the
//! trailer ([`FormatErrorKind::Corrupt`]). Entry ids are not stored: they belong to a store.
//! Because the checksum is checked at the end, an import of a corrupt bundle may have
//! written entries before it fails; [`import`](crate::import()) then takes them out.

use std::io::{self, BufRead, BufReader, Read, Write};

use cmem_core::NewEntry;
use flate2::bufread::GzDecoder;
use flate2::write::GzEncoder;
use flate2::{Compression, Crc};

use crate::decode::Counting;
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::Item;

/// The first eight bytes of every bundle.
pub const KMB_MAGIC: [u8; 8] = *b"\x89KMB\r\n\x1a\n";
/// The format version this program writes and reads.
pub const KMB_VERSION: u32 = 1;
/// The largest entry record accepted, in bytes of JSON.
pub const KMB_MAX_RECORD: u32 = 64 * 1024 * 1024;
const END_MARK: u32 = u32::MAX;
const UNKNOWN_COUNT: u64 = u64::MAX;

/// Writes a bundle: header, entries, trailer.
pub struct KmbWriter<W: Write> {
    out: Option<GzEncoder<W>>,
    crc: Crc,
    count: u64,
    expected: Option<u64>,
    buf: Vec<u8>,
}

impl<W: Write> std::fmt::Debug for KmbWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KmbWriter")
            .field("count", &self.count)
            .field("expected", &self.expected)
            .field("finished", &self.out.is_none())
            .finish_non_exhaustive()
    }
}

fn write_err(e: io::Error) -> FormatError {
    FormatError::io(Format::Kmb, "write failed", e)
}

impl<W: Write> KmbWriter<W> {
    /// Writes the header. `expected` is the number of entries that will be written,
    /// when known (it is then checked by [`finish`](KmbWriter::finish) and by readers).
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn new(mut out: W, expected: Option<u64>) -> Result<Self, FormatError> {
        let mut header = Vec::with_capacity(24);
        header.extend_from_slice(&KMB_MAGIC);
        header.extend_from_slice(&KMB_VERSION.to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&expected.unwrap_or(UNKNOWN_COUNT).to_le_bytes());
        out.write_all(&header).map_err(write_err)?;
        Ok(KmbWriter {
            out: Some(GzEncoder::new(out, Compression::default())),
            crc: Crc::new(),
            count: 0,
            expected,
            buf: Vec::with_capacity(1024),
        })
    }

    /// Appends one entry.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails; [`FormatErrorKind::Limit`] for an entry whose
    /// JSON exceeds [`KMB_MAX_RECORD`].
    pub fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        self.buf.clear();
        self.buf.extend_from_slice(&[0; 4]);
        serde_json::to_writer(&mut self.buf, entry).map_err(|e| {
            FormatError::new(
                Format::Kmb,
                FormatErrorKind::Io,
                format!("cannot encode entry {}: {e}", self.count + 1),
            )
        })?;
        let len = self.buf.len() - 4;
        let len = u32::try_from(len).ok().filter(|&l| l <= KMB_MAX_RECORD).ok_or_else(|| {
            FormatError::new(
                Format::Kmb,
                FormatErrorKind::Limit,
                format!("entry {} is {len} bytes of JSON, over the cap of {KMB_MAX_RECORD}", self.count + 1),
            )
        })?;
        self.buf[..4].copy_from_slice(&len.to_le_bytes());
        self.crc.update(&self.buf);
        let out = self.out.as_mut().ok_or_else(|| write_err(io::Error::other("writer finished")))?;
        out.write_all(&self.buf).map_err(write_err)?;
        self.count += 1;
        Ok(())
    }

    /// Entries written so far.
    pub fn written(&self) -> u64 {
        self.count
    }

    /// Writes the trailer, ends the gzip member and flushes; returns the output.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails; [`FormatErrorKind::Corrupt`] when the number of
    /// entries written differs from the number announced in the header.
    pub fn finish(mut self) -> Result<W, FormatError> {
        if let Some(expected) = self.expected {
            if expected != self.count {
                return Err(FormatError::new(
                    Format::Kmb,
                    FormatErrorKind::Corrupt,
                    format!("the header announced {expected} entries but {} were written", self.count),
                ));
            }
        }
        let mut out = self.out.take().ok_or_else(|| write_err(io::Error::other("writer finished")))?;
        let mut trailer = Vec::with_capacity(16);
        trailer.extend_from_slice(&END_MARK.to_le_bytes());
        trailer.extend_from_slice(&self.count.to_le_bytes());
        trailer.extend_from_slice(&self.crc.sum().to_le_bytes());
        out.write_all(&trailer).map_err(write_err)?;
        let mut inner = out.finish().map_err(write_err)?;
        inner.flush().map_err(write_err)?;
        Ok(inner)
    }
}

/// Reads a bundle as an iterator of [`Item::Entry`]; every fault is fatal.
pub struct KmbReader<R: Read> {
    input: Option<GzDecoder<BufReader<Counting<R>>>>,
    file: String,
    expected: Option<u64>,
    crc: Crc,
    count: u64,
    done: bool,
    last_bytes: u64,
    buf: Vec<u8>,
}

impl<R: Read> std::fmt::Debug for KmbReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KmbReader")
            .field("file", &self.file)
            .field("expected", &self.expected)
            .field("count", &self.count)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<R: Read> KmbReader<R> {
    /// Reads and checks the header; `file_name` is used in messages.
    ///
    /// # Errors
    /// [`FormatErrorKind::Truncated`] for a file shorter than the header,
    /// [`FormatErrorKind::BadMagic`], [`FormatErrorKind::UnsupportedVersion`], [`FormatErrorKind::Io`].
    pub fn new(input: R, file_name: &str) -> Result<Self, FormatError> {
        let mut input = BufReader::with_capacity(64 * 1024, Counting { inner: input, count: 0 });
        let mut header = [0u8; 24];
        let err = |kind, msg: String| FormatError::new(Format::Kmb, kind, msg).in_file(file_name);
        let mut got = 0;
        while got < header.len() {
            match input.read(&mut header[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(err(FormatErrorKind::Io, format!("read failed: {e}"))),
            }
        }
        if got >= 8 && header[..8] != KMB_MAGIC || got < 8 && header[..got] != KMB_MAGIC[..got] {
            return Err(err(
                FormatErrorKind::BadMagic,
                "not a .kmb bundle: the magic bytes are missing".to_owned(),
            ));
        }
        if got < header.len() {
            return Err(err(
                FormatErrorKind::Truncated,
                format!("the file ends inside its {}-byte header", header.len()),
            ));
        }
        let word =
            |at: usize| u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
        let version = word(8);
        if version != KMB_VERSION {
            return Err(err(
                FormatErrorKind::UnsupportedVersion,
                format!(
                    "format version {version} is not supported (this program reads version {KMB_VERSION})"
                ),
            ));
        }
        let flags = word(12);
        if flags != 0 {
            return Err(err(
                FormatErrorKind::UnsupportedVersion,
                format!("unknown flags 0x{flags:08x} (this program knows none)"),
            ));
        }
        let mut count = [0u8; 8];
        count.copy_from_slice(&header[16..24]);
        let count = u64::from_le_bytes(count);
        Ok(KmbReader {
            input: Some(GzDecoder::new(input)),
            file: file_name.to_owned(),
            expected: (count != UNKNOWN_COUNT).then_some(count),
            crc: Crc::new(),
            count: 0,
            done: false,
            last_bytes: 0,
            buf: Vec::new(),
        })
    }

    /// The entry count the header announces, if it does.
    pub fn expected(&self) -> Option<u64> {
        self.expected
    }

    /// Raw bytes read from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.input.as_ref().map_or(self.last_bytes, |d| d.get_ref().get_ref().count)
    }

    fn err(&self, kind: FormatErrorKind, message: impl Into<String>) -> FormatError {
        FormatError::new(Format::Kmb, kind, message)
            .in_file(self.file.clone())
            .for_entry(self.count + 1, None)
    }

    fn read_io_err(&self, e: &io::Error, what: &str) -> FormatError {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            self.err(
                FormatErrorKind::Truncated,
                format!("the file ends inside {what}: the bundle is truncated"),
            )
        } else {
            self.err(FormatErrorKind::Corrupt, format!("cannot decompress {what}: {e}"))
        }
    }

    fn read_exact(&mut self, n: usize, what: &str) -> Result<(), FormatError> {
        self.buf.resize(n, 0);
        let Some(input) = self.input.as_mut() else {
            return Err(self.err(FormatErrorKind::Corrupt, "read after the end"));
        };
        match input.read_exact(&mut self.buf[..n]) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.read_io_err(&e, what)),
        }
    }

    fn next_entry(&mut self) -> Result<Option<NewEntry>, FormatError> {
        self.read_exact(4, "a record length")?;
        let len = u32::from_le_bytes([self.buf[0], self.buf[1], self.buf[2], self.buf[3]]);
        if len == END_MARK {
            self.finish()?;
            return Ok(None);
        }
        if len == 0 || len > KMB_MAX_RECORD {
            return Err(self.err(FormatErrorKind::Corrupt, format!("record length {len} is out of range")));
        }
        let mut prefix = [0u8; 4];
        prefix.copy_from_slice(&self.buf[..4]);
        self.crc.update(&prefix);
        self.read_exact(len as usize, "a record")?;
        self.crc.update(&self.buf);
        let entry: NewEntry = serde_json::from_slice(&self.buf)
            .map_err(|e| self.err(FormatErrorKind::Corrupt, format!("record is not a valid entry: {e}")))?;
        self.count += 1;
        Ok(Some(entry))
    }

    fn finish(&mut self) -> Result<(), FormatError> {
        self.read_exact(12, "the trailer")?;
        let mut c = [0u8; 8];
        c.copy_from_slice(&self.buf[..8]);
        let count = u64::from_le_bytes(c);
        let crc = u32::from_le_bytes([self.buf[8], self.buf[9], self.buf[10], self.buf[11]]);
        if count != self.count {
            return Err(self.err(
                FormatErrorKind::Corrupt,
                format!("the trailer counts {count} entries but {} were read", self.count),
            ));
        }
        if let Some(expected) = self.expected {
            if expected != count {
                return Err(self.err(
                    FormatErrorKind::Corrupt,
                    format!("the header announces {expected} entries but the bundle holds {count}"),
                ));
            }
        }
        if crc != self.crc.sum() {
            return Err(self.err(
                FormatErrorKind::Corrupt,
                format!("checksum mismatch: trailer 0x{crc:08x}, records 0x{:08x}", self.crc.sum()),
            ));
        }
        // The gzip member must end here (its own CRC is checked on the way) and
        // nothing may follow it.
        let Some(mut input) = self.input.take() else { return Ok(()) };
        let mut rest = [0u8; 1];
        match input.read(&mut rest) {
            Ok(0) => {}
            Ok(_) => {
                return Err(
                    self.err(FormatErrorKind::Corrupt, "data after the trailer inside the gzip stream")
                )
            }
            Err(e) => return Err(self.read_io_err(&e, "the end of the gzip stream")),
        }
        let mut inner = input.into_inner();
        self.last_bytes = inner.get_ref().count;
        match inner.fill_buf() {
            Ok([]) => Ok(()),
            Ok(_) => Err(self.err(FormatErrorKind::Corrupt, "bytes after the end of the bundle")),
            Err(e) => Err(self.err(FormatErrorKind::Io, format!("read failed: {e}"))),
        }
    }
}

impl<R: Read> Iterator for KmbReader<R> {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_entry() {
            Ok(Some(e)) => Some(Ok(Item::Entry(e))),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cmem_core::{Locale, Run, Variant};

    fn entries(n: usize) -> Vec<NewEntry> {
        (0..n)
            .map(|i| {
                NewEntry::pair(
                    Variant::new(Locale::parse("en").unwrap(), vec![Run::text(format!("source {i}"))]),
                    Variant::new(Locale::parse("de").unwrap(), vec![Run::text(format!("Quelle {i}"))]),
                )
            })
            .collect()
    }

    fn write(es: &[NewEntry], expected: Option<u64>) -> Vec<u8> {
        let mut w = KmbWriter::new(Vec::new(), expected).unwrap();
        for e in es {
            w.write_entry(e).unwrap();
        }
        w.finish().unwrap()
    }

    fn read(bytes: &[u8]) -> Result<Vec<NewEntry>, FormatError> {
        KmbReader::new(bytes, "t.kmb")?.map(|i| i.map(|i| i.entry().unwrap())).collect()
    }

    #[test]
    fn round_trip_and_determinism() {
        let es = entries(100);
        let a = write(&es, Some(100));
        assert_eq!(a, write(&es, Some(100)));
        assert_eq!(read(&a).unwrap(), es);
        assert_eq!(read(&write(&es, None)).unwrap(), es);
        assert_eq!(read(&write(&[], None)).unwrap(), Vec::<NewEntry>::new());
    }

    #[test]
    fn every_truncation_is_detected() {
        let bytes = write(&entries(20), None);
        for cut in 0..bytes.len() {
            let err = read(&bytes[..cut]).unwrap_err();
            assert!(
                matches!(
                    err.kind(),
                    FormatErrorKind::Truncated | FormatErrorKind::Corrupt | FormatErrorKind::BadMagic
                ),
                "cut at {cut}: {err}"
            );
        }
    }

    #[test]
    fn every_flipped_byte_is_detected() {
        let bytes = write(&entries(5), Some(5));
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x55;
            // gzip header bytes 4-9 (mtime, extra flags, OS) are covered by no checksum
            // and do not change the content.
            if (24 + 4..=24 + 9).contains(&at) {
                continue;
            }
            assert!(read(&b).is_err(), "flip at {at} went unnoticed");
        }
    }

    #[test]
    fn header_errors() {
        assert_eq!(read(b"").unwrap_err().kind(), FormatErrorKind::Truncated);
        assert_eq!(
            read(b"PK\x03\x04 not a bundle at all....").unwrap_err().kind(),
            FormatErrorKind::BadMagic
        );
        let mut v2 = write(&entries(1), None);
        v2[8] = 2;
        let err = read(&v2).unwrap_err();
        assert_eq!(err.kind(), FormatErrorKind::UnsupportedVersion);
        assert!(err.to_string().starts_with("kmb: t.kmb: "), "{err}");
        let mut extra = write(&entries(1), None);
        extra.push(0);
        assert_eq!(read(&extra).unwrap_err().kind(), FormatErrorKind::Corrupt);
    }
}
