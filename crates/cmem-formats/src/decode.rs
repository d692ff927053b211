//! Decoding XML input for quick-xml: encoding detection, streaming transcoding to
//! UTF-8, raw byte counts, and line/column tracking for byte offsets.
//!
//! quick-xml 0.42 reads UTF-8 only, so [`XmlInput`] sits under it: it detects the
//! encoding (byte-order mark, then the XML declaration, XML 1.0 Appendix F), transcodes
//! UTF-16 and the supported single-byte encodings chunk by chunk (never the whole
//! file), counts the raw bytes read, and remembers where recent lines start so that a
//! byte offset reported by quick-xml can be turned into a line and column.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Cursor, Read};

/// The encodings the readers accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8, with or without a byte-order mark.
    Utf8,
    /// UTF-16 little-endian (byte-order mark `FF FE`, or `<` `?` sniffed).
    Utf16Le,
    /// UTF-16 big-endian (byte-order mark `FE FF`, or sniffed).
    Utf16Be,
    /// ISO-8859-1 (Latin-1), declared.
    Latin1,
    /// windows-1252, declared.
    Windows1252,
    /// US-ASCII, declared: a byte above 0x7F is an error.
    Ascii,
}

impl Encoding {
    /// The encoding named in an XML declaration (case-insensitive), if supported.
    pub fn from_label(label: &str) -> Option<Encoding> {
        match label.trim().to_ascii_lowercase().as_str() {
            "utf-8" | "utf8" => Some(Encoding::Utf8),
            "utf-16" | "utf16" | "utf-16le" => Some(Encoding::Utf16Le),
            "utf-16be" => Some(Encoding::Utf16Be),
            "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" | "l1" | "iso_8859-1" => Some(Encoding::Latin1),
            "windows-1252" | "cp1252" | "x-cp1252" => Some(Encoding::Windows1252),
            "us-ascii" | "ascii" | "iso-646-us" => Some(Encoding::Ascii),
            _ => None,
        }
    }
}

/// The size of the chunks read from the underlying reader.
const CHUNK: usize = 64 * 1024;

/// Counts the bytes read through it.
pub(crate) struct Counting<R> {
    pub(crate) inner: R,
    pub(crate) count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// What the decoded bytes come from.
enum Source<R> {
    /// UTF-8 is passed through unchanged; quick-xml validates it.
    Utf8(BufReader<Counting<Cursor<Vec<u8>>>>, BufReader<Counting<R>>, bool),
    /// Everything else is transcoded.
    Transcode(Box<Transcoder<R>>),
}

/// Transcodes a non-UTF-8 byte stream into UTF-8, one chunk at a time.
struct Transcoder<R> {
    raw: Counting<io::Chain<Cursor<Vec<u8>>, R>>,
    encoding: Encoding,
    input: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    eof: bool,
    /// Raw bytes decoded so far (for error offsets).
    decoded: u64,
}

impl<R: Read> Transcoder<R> {
    fn refill(&mut self) -> io::Result<()> {
        while self.out_pos >= self.out.len() && !self.eof {
            self.out.clear();
            self.out_pos = 0;
            let start = self.input.len();
            self.input.resize(start + CHUNK, 0);
            let n = loop {
                match self.raw.read(&mut self.input[start..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.input.truncate(start);
                        return Err(e);
                    }
                }
            };
            self.input.truncate(start + n);
            if n == 0 {
                self.eof = true;
            }
            let used = self.decode()?;
            self.input.drain(..used);
            self.decoded += used as u64;
            if self.eof && !self.input.is_empty() {
                return Err(invalid_data(format!(
                    "{:?} input ends inside a character at byte {}",
                    self.encoding, self.decoded
                )));
            }
        }
        Ok(())
    }

    /// Decodes as much of `input` as forms complete characters; returns bytes used.
    fn decode(&mut self) -> io::Result<usize> {
        let input = &self.input;
        let out = &mut self.out;
        match self.encoding {
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let le = self.encoding == Encoding::Utf16Le;
                let unit = |i: usize| {
                    let (a, b) = (input[i], input[i + 1]);
                    if le {
                        u16::from_le_bytes([a, b])
                    } else {
                        u16::from_be_bytes([a, b])
                    }
                };
                let mut i = 0;
                while i + 1 < input.len() {
                    let u = unit(i);
                    let c = if (0xD800..0xDC00).contains(&u) {
                        if i + 3 >= input.len() {
                            break;
                        }
                        let low = unit(i + 2);
                        if !(0xDC00..0xE000).contains(&low) {
                            return Err(invalid_data(format!(
                                "invalid UTF-16 at byte {}: unpaired surrogate 0x{u:04X}",
                                self.decoded + i as u64
                            )));
                        }
                        i += 4;
                        let v = 0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                        char::from_u32(v)
                    } else if (0xDC00..0xE000).contains(&u) {
                        return Err(invalid_data(format!(
                            "invalid UTF-16 at byte {}: unpaired surrogate 0x{u:04X}",
                            self.decoded + i as u64
                        )));
                    } else {
                        i += 2;
                        char::from_u32(u32::from(u))
                    };
                    let c = c.unwrap_or('\u{FFFD}');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Ok(i)
            }
            Encoding::Latin1 | Encoding::Windows1252 | Encoding::Ascii => {
                for (i, &b) in input.iter().enumerate() {
                    let c = match (self.encoding, b) {
                        (_, 0..=0x7F) => char::from(b),
                        (Encoding::Ascii, _) => {
                            return Err(invalid_data(format!(
                                "byte 0x{b:02X} at byte {} is not US-ASCII, as the declaration says",
                                self.decoded + i as u64
                            )))
                        }
                        (Encoding::Windows1252, 0x80..=0x9F) => WINDOWS_1252_HIGH[usize::from(b - 0x80)],
                        _ => char::from(b),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Ok(input.len())
            }
            Encoding::Utf8 => {
                out.extend_from_slice(input);
                Ok(input.len())
            }
        }
    }
}

/// windows-1252 bytes 0x80–0x9F (WHATWG Encoding); undefined bytes map to C1 controls.
const WINDOWS_1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}', '\u{2C6}',
    '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}', '\u{90}', '\u{2018}',
    '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}', '\u{2DC}', '\u{2122}', '\u{161}',
    '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

fn invalid_data(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// A UTF-8 view of an XML byte stream, for quick-xml, that tracks line starts.
///
/// Call [`line_col`](XmlInput::line_col) with an offset quick-xml reported (in the
/// UTF-8 stream), and [`forget_before`](XmlInput::forget_before) once offsets before
/// a point will no longer be asked about, so memory stays bounded by the largest
/// event rather than the file.
pub struct XmlInput<R> {
    source: Source<R>,
    encoding: Encoding,
    /// UTF-8 bytes handed to the consumer so far.
    consumed: u64,
    /// Offsets of the `\n`s consumed and not yet forgotten.
    newlines: VecDeque<u64>,
    /// Lines ended before the first remembered newline.
    base_lines: u64,
    /// Offset where the line after the last forgotten newline starts.
    base_line_start: u64,
    /// Reading past this UTF-8 offset fails with [`CapExceeded`]: bounds the memory a
    /// single event (a huge DOCTYPE, comment or text) can take inside quick-xml.
    cap: u64,
}

impl<R> std::fmt::Debug for XmlInput<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XmlInput")
            .field("encoding", &self.encoding)
            .field("consumed", &self.consumed)
            .field("cap", &self.cap)
            .finish_non_exhaustive()
    }
}

/// The error [`XmlInput`] returns once its cap is passed.
#[derive(Debug, thiserror::Error)]
#[error("size cap exceeded")]
pub struct CapExceeded;

impl<R: Read> XmlInput<R> {
    /// Detects the encoding of `reader` and wraps it.
    ///
    /// # Errors
    /// An I/O error reading the first bytes, or an [`io::ErrorKind::InvalidData`] error
    /// naming an encoding that is declared but not supported.
    pub fn new(mut reader: R) -> io::Result<Self> {
        // Sniff: the BOM, or the first bytes of `<?xml`, then the declaration.
        let mut head = Vec::with_capacity(512);
        let mut byte = [0u8; 512];
        while head.len() < 4 {
            let n = match reader.read(&mut byte[..4 - head.len()]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                break;
            }
            head.extend_from_slice(&byte[..n]);
        }
        let (encoding, skip) = match head.as_slice() {
            [0xEF, 0xBB, 0xBF, ..] => (Encoding::Utf8, 3),
            [0xFF, 0xFE, ..] => (Encoding::Utf16Le, 2),
            [0xFE, 0xFF, ..] => (Encoding::Utf16Be, 2),
            [b'<', 0, b'?', 0, ..] => (Encoding::Utf16Le, 0),
            [0, b'<', 0, b'?', ..] => (Encoding::Utf16Be, 0),
            _ => {
                // ASCII-compatible: read the declaration (if any) for its encoding.
                if head.starts_with(b"<?xm") {
                    while head.len() < 1024 && !head.ends_with(b"?>") && !head.contains(&b'>') {
                        let n = match reader.read(&mut byte[..1]) {
                            Ok(n) => n,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                            Err(e) => return Err(e),
                        };
                        if n == 0 {
                            break;
                        }
                        head.push(byte[0]);
                    }
                    match declared_encoding(&head) {
                        // A UTF-16 label on bytes that are plainly ASCII-compatible (no
                        // BOM, `<?xm` read as single bytes) is wrong: read them as UTF-8.
                        Some(label) => match Encoding::from_label(&label) {
                            Some(Encoding::Utf16Le | Encoding::Utf16Be) => (Encoding::Utf8, 0),
                            Some(e) => (e, 0),
                            None => {
                                return Err(invalid_data(format!(
                                    "unsupported encoding {label:?} in the XML declaration \
                                     (supported: UTF-8, UTF-16, ISO-8859-1, windows-1252, US-ASCII)"
                                )))
                            }
                        },
                        None => (Encoding::Utf8, 0),
                    }
                } else {
                    (Encoding::Utf8, 0)
                }
            }
        };
        let head = Cursor::new(head.split_off(skip.min(head.len())));
        let source = match encoding {
            Encoding::Utf8 => Source::Utf8(
                BufReader::with_capacity(1024, Counting { inner: head, count: skip as u64 }),
                BufReader::with_capacity(CHUNK, Counting { inner: reader, count: 0 }),
                false,
            ),
            _ => Source::Transcode(Box::new(Transcoder {
                raw: Counting { inner: head.chain(reader), count: skip as u64 },
                encoding,
                input: Vec::with_capacity(CHUNK + 4),
                out: Vec::with_capacity(CHUNK * 2),
                out_pos: 0,
                eof: false,
                decoded: skip as u64,
            })),
        };
        Ok(XmlInput {
            source,
            encoding,
            consumed: 0,
            newlines: VecDeque::new(),
            base_lines: 0,
            base_line_start: 0,
            cap: u64::MAX,
        })
    }

    /// The detected encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Makes reading past UTF-8 offset `cap` fail with [`CapExceeded`].
    pub fn set_cap(&mut self, cap: u64) {
        self.cap = cap;
    }

    /// Raw bytes read from the underlying reader so far.
    pub fn bytes_read(&self) -> u64 {
        match &self.source {
            Source::Utf8(head, rest, _) => head.get_ref().count + rest.get_ref().count,
            Source::Transcode(t) => t.raw.count,
        }
    }

    /// The 1-based line and column (in UTF-8 bytes) of a UTF-8 offset that has been
    /// read and not forgotten.
    pub fn line_col(&self, offset: u64) -> (u64, u64) {
        let before = self.newlines.partition_point(|&nl| nl < offset);
        let line_start = if before == 0 { self.base_line_start } else { self.newlines[before - 1] + 1 };
        (self.base_lines + before as u64 + 1, offset.saturating_sub(line_start) + 1)
    }

    /// Forgets line starts before `offset`; later calls to
    /// [`line_col`](XmlInput::line_col) must not ask about offsets before it.
    pub fn forget_before(&mut self, offset: u64) {
        while let Some(&nl) = self.newlines.front() {
            if nl >= offset {
                break;
            }
            self.newlines.pop_front();
            self.base_lines += 1;
            self.base_line_start = nl + 1;
        }
    }
}

/// Appends the offsets (from `base`) of the `\n`s in `bytes`. Eight bytes at a time:
/// most chunks of XML hold no newline, and this runs over every byte read.
fn find_newlines(bytes: &[u8], base: u64, out: &mut VecDeque<u64>) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0usize;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ NL;
        // Non-zero iff some byte of x is zero, i.e. some byte was '\n'.
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            for (i, &b) in chunk.iter().enumerate() {
                if b == b'\n' {
                    out.push_back(base + (at + i) as u64);
                }
            }
        }
        at += 8;
    }
    for (i, &b) in chunks.remainder().iter().enumerate() {
        if b == b'\n' {
            out.push_back(base + (at + i) as u64);
        }
    }
}

/// The value of `encoding="…"` in an XML declaration at the start of `head`.
fn declared_encoding(head: &[u8]) -> Option<String> {
    let end = head.iter().position(|&b| b == b'>')?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..].trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let value = &rest[1..];
    let close = value.find(quote)?;
    Some(value[..close].to_owned())
}

impl<R: Read> Read for XmlInput<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for XmlInput<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.consumed > self.cap {
            return Err(io::Error::other(CapExceeded));
        }
        match &mut self.source {
            Source::Utf8(head, rest, head_done) => {
                if !*head_done {
                    if !head.fill_buf()?.is_empty() {
                        return head.fill_buf();
                    }
                    *head_done = true;
                }
                rest.fill_buf()
            }
            Source::Transcode(t) => {
                t.refill()?;
                Ok(&t.out[t.out_pos..])
            }
        }
    }

    fn consume(&mut self, amt: usize) {
        let start = self.consumed;
        let buffer: &[u8] = match &self.source {
            Source::Utf8(head, rest, head_done) => {
                if *head_done {
                    rest.buffer()
                } else {
                    head.buffer()
                }
            }
            Source::Transcode(t) => &t.out[t.out_pos..],
        };
        let amt = amt.min(buffer.len());
        find_newlines(&buffer[..amt], start, &mut self.newlines);
        self.consumed += amt as u64;
        match &mut self.source {
            Source::Utf8(head, rest, head_done) => {
                if *head_done {
                    rest.consume(amt);
                } else {
                    head.consume(amt);
                }
            }
            Source::Transcode(t) => t.out_pos += amt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> io::Result<(Encoding, String)> {
        let mut input = XmlInput::new(bytes)?;
        let mut s = String::new();
        input.read_to_string(&mut s)?;
        Ok((input.encoding(), s))
    }

    #[test]
    fn detects_and_decodes() {
        let doc = "<?xml version=\"1.0\"?><a>é𝄞</a>";
        let mut le = vec![0xFF, 0xFE];
        let mut be = vec![0xFE, 0xFF];
        for u in doc.encode_utf16() {
            le.extend_from_slice(&u.to_le_bytes());
            be.extend_from_slice(&u.to_be_bytes());
        }
        assert_eq!(decode(&le).unwrap(), (Encoding::Utf16Le, doc.to_owned()));
        assert_eq!(decode(&be).unwrap(), (Encoding::Utf16Be, doc.to_owned()));
        let mut bom8 = vec![0xEF, 0xBB, 0xBF];
        bom8.extend_from_slice(doc.as_bytes());
        assert_eq!(decode(&bom8).unwrap(), (Encoding::Utf8, doc.to_owned()));
        let latin = b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9\x80</a>";
        assert_eq!(decode(latin).unwrap().1, "<?xml version='1.0' encoding='ISO-8859-1'?><a>é\u{80}</a>");
        let cp = b"<?xml version=\"1.0\" encoding=\"windows-1252\"?><a>\x80\x93</a>";
        assert!(decode(cp).unwrap().1.ends_with("<a>€“</a>"));
        let ascii = b"<?xml version=\"1.0\" encoding=\"us-ascii\"?><a>\xE9</a>";
        assert!(decode(ascii).unwrap_err().to_string().contains("0xE9"));
        let bad = b"<?xml version=\"1.0\" encoding=\"koi8-r\"?><a/>";
        assert!(decode(bad).unwrap_err().to_string().contains("koi8-r"));
        assert_eq!(decode(b"").unwrap().1, "");
    }

    #[test]
    fn utf16_errors_and_chunk_boundaries() {
        let mut le = vec![0xFF, 0xFE];
        for _ in 0..(CHUNK / 2 + 1) {
            le.extend_from_slice(&0x61u16.to_le_bytes());
        }
        // A surrogate pair straddling a chunk boundary.
        le.extend_from_slice(&0xD834u16.to_le_bytes());
        le.extend_from_slice(&0xDD1Eu16.to_le_bytes());
        let (_, s) = decode(&le).unwrap();
        assert!(s.ends_with('𝄞'));
        let lone = [0xFF, 0xFE, 0x00, 0xDC, 0x61, 0x00];
        assert!(decode(&lone).unwrap_err().to_string().contains("unpaired surrogate"));
        let odd = [0xFF, 0xFE, 0x61, 0x00, 0x62];
        assert!(decode(&odd).unwrap_err().to_string().contains("ends inside a character"));
    }

    #[test]
    fn line_columns() {
        let mut input = XmlInput::new(&b"ab\ncd\n\nef"[..]).unwrap();
        let mut s = String::new();
        input.read_to_string(&mut s).unwrap();
        assert_eq!(input.line_col(0), (1, 1));
        assert_eq!(input.line_col(4), (2, 2));
        assert_eq!(input.line_col(7), (4, 1));
        input.forget_before(6);
        assert_eq!(input.line_col(7), (4, 1));
        assert_eq!(input.line_col(6), (3, 1));
    }

    #[test]
    fn newlines_found_in_every_lane() {
        for len in 0..40 {
            for nl in 0..len {
                let mut bytes = vec![b'a'; len];
                bytes[nl] = b'\n';
                if nl + 9 < len {
                    bytes[nl + 9] = b'\n';
                }
                let mut out = VecDeque::new();
                find_newlines(&bytes, 100, &mut out);
                let expected: Vec<u64> = bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                    .map(|(i, _)| 100 + i as u64)
                    .collect();
                assert_eq!(Vec::from(out), expected, "len {len} nl {nl}");
            }
        }
    }
}
