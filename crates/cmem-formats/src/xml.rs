//! Shared XML plumbing for the XML formats (the TMX reader and the XLIFF reader):
//! [`XmlReader`], a pull reader of simplified events over [`XmlInput`] with
//! references resolved (predefined entities and character references only; no DTD is
//! ever processed), a nesting-depth cap, a size cap per event and per unit (the TMX
//! reader opens one per `tu`; the XLIFF reader holds its whole document anyway and caps
//! only events), and errors located as `FORMAT: FILE: line L, column C: …`; and
//! escaping for output, used by the TMX writer and the XLIFF writer.

use std::io::{self, Read};

use quick_xml::events::{BytesStart, Event};
use quick_xml::XmlVersion;

pub use crate::decode::{CapExceeded, Encoding, XmlInput};
use crate::error::{Format, FormatError, FormatErrorKind};

/// An XML event. The data of the last event is in the [`XmlReader`]: the element's
/// [`name`](XmlReader::name) and [`attrs`](XmlReader::attrs), or the
/// [`text`](XmlReader::text); its buffers are reused from event to event, which keeps
/// reading free of per-event allocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XmlEvent {
    /// A start tag.
    Start,
    /// An empty-element tag.
    Empty,
    /// An end tag (quick-xml has checked that it matches).
    End,
    /// Character data, CDATA or a resolved reference.
    Text,
    /// The end of the document.
    Eof,
}

/// A pull reader of [`XmlEvent`]s with positions, caps and located errors, shared by
/// the XML formats. Comments, processing instructions, the XML declaration and any
/// `DOCTYPE` are skipped.
pub struct XmlReader<R: Read> {
    xml: quick_xml::Reader<XmlInput<R>>,
    buf: Vec<u8>,
    format: Format,
    file: String,
    max_depth: usize,
    max_event_bytes: u64,
    depth: usize,
    event_start: u64,
    /// The open unit: where it started and its size cap.
    unit: Option<(u64, u64)>,
    text: String,
    name: String,
    /// Attribute storage, reused: the first `n_attrs` pairs are the current ones.
    attrs: Vec<(String, String)>,
    n_attrs: usize,
}

impl<R: Read> std::fmt::Debug for XmlReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XmlReader")
            .field("format", &self.format)
            .field("file", &self.file)
            .field("depth", &self.depth)
            .field("event_start", &self.event_start)
            .finish_non_exhaustive()
    }
}

impl<R: Read> XmlReader<R> {
    /// Detects the encoding of `input` and prepares to read it; `file` names it in
    /// messages, `max_depth` caps element nesting and `max_event_bytes` the size of any
    /// single event outside a unit (a DOCTYPE, a comment, a text node).
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when the first bytes cannot be read, [`FormatErrorKind::Encoding`]
    /// for an unsupported declared encoding.
    pub fn new(
        input: R,
        format: Format,
        file: &str,
        max_depth: usize,
        max_event_bytes: u64,
    ) -> Result<Self, FormatError> {
        let input = XmlInput::new(input).map_err(|e| {
            let kind = if e.kind() == io::ErrorKind::InvalidData {
                FormatErrorKind::Encoding
            } else {
                FormatErrorKind::Io
            };
            FormatError::new(format, kind, e.to_string()).in_file(file).at(1, 1)
        })?;
        let mut xml = quick_xml::Reader::from_reader(input);
        let config = xml.config_mut();
        config.check_end_names = true;
        config.expand_empty_elements = false;
        config.trim_text_start = false;
        config.trim_text_end = false;
        Ok(XmlReader {
            xml,
            buf: Vec::with_capacity(4096),
            format,
            file: file.to_owned(),
            max_depth,
            max_event_bytes,
            depth: 0,
            event_start: 0,
            unit: None,
            text: String::new(),
            name: String::new(),
            attrs: Vec::new(),
            n_attrs: 0,
        })
    }

    /// Raw bytes read from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.xml.get_ref().bytes_read()
    }

    /// The offset (in the UTF-8 stream) where the next event starts.
    pub fn position(&self) -> u64 {
        self.xml.buffer_position()
    }

    /// The offset where the last event started.
    pub fn event_start(&self) -> u64 {
        self.event_start
    }

    /// Elements open now.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The text of the last [`XmlEvent::Text`].
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The name of the last [`XmlEvent::Start`] or [`XmlEvent::Empty`] element.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its attributes (values normalized, XML 1.0 §3.3.3), in order.
    pub fn attrs(&self) -> &[(String, String)] {
        &self.attrs[..self.n_attrs]
    }

    /// The value of one of its attributes.
    pub fn attr(&self, name: &str) -> Option<&str> {
        attr(self.attrs(), name)
    }

    /// The detected encoding.
    pub fn encoding(&self) -> Encoding {
        self.xml.get_ref().encoding()
    }

    /// A located error at `offset`, which must be in the open unit or at or after the
    /// last event's start.
    pub fn error_at(&self, kind: FormatErrorKind, message: impl Into<String>, offset: u64) -> FormatError {
        let (line, col) = self.xml.get_ref().line_col(offset);
        FormatError::new(self.format, kind, message).in_file(self.file.clone()).at(line, col)
    }

    /// Opens a unit that began at `start`: its offsets stay resolvable to lines until
    /// [`end_unit`](XmlReader::end_unit), and reading past `max_bytes` from its start
    /// is an [`FormatErrorKind::Limit`] error.
    pub fn begin_unit(&mut self, start: u64, max_bytes: u64) {
        self.xml.get_mut().forget_before(start);
        self.unit = Some((start, max_bytes));
    }

    /// Closes the open unit.
    pub fn end_unit(&mut self) {
        self.unit = None;
    }

    /// The next event.
    ///
    /// # Errors
    /// Malformed XML ([`FormatErrorKind::Xml`]), an undefined entity ([`FormatErrorKind::Xml`]),
    /// bad bytes ([`FormatErrorKind::Encoding`]), a cap exceeded ([`FormatErrorKind::Limit`]), I/O.
    pub fn next_event(&mut self) -> Result<XmlEvent, FormatError> {
        loop {
            let start = self.xml.buffer_position();
            self.event_start = start;
            let (cap_start, cap) = match self.unit {
                None => {
                    self.xml.get_mut().forget_before(start);
                    (start, self.max_event_bytes)
                }
                Some(unit) => unit,
            };
            if start.saturating_sub(cap_start) > cap {
                return Err(self.cap_error(cap_start, cap));
            }
            self.xml.get_mut().set_cap(cap_start.saturating_add(cap));
            self.buf.clear();
            let event = match self.xml.read_event_into(&mut self.buf) {
                Ok(e) => e,
                Err(quick_xml::Error::Io(io))
                    if io.get_ref().is_some_and(|inner| inner.is::<CapExceeded>()) =>
                {
                    return Err(self.cap_error(cap_start, cap));
                }
                Err(e) => {
                    let offset = self.xml.error_position().max(start);
                    return Err(self.xml_error(e, offset));
                }
            };
            // Events that fit in one buffer never hit the reader's cap; check them here.
            if self.xml.buffer_position().saturating_sub(cap_start) > cap {
                return Err(self.cap_error(cap_start, cap));
            }
            // XML 1.0 §2.2: a document holds no C0 control but tab, line feed and carriage
            // return, and no U+FFFE or U+FFFF, anywhere (text, markup, comments). The
            // bytes of an event start this many bytes after the event (its delimiter).
            let (raw, lead): (&str, u64) = match &event {
                Event::Start(e) | Event::Empty(e) => (e, 1),
                Event::End(e) => (e, 2),
                Event::Text(t) => (t, 0),
                Event::Comment(t) => (t, 4),
                Event::DocType(t) => (t, 9),
                Event::CData(t) => (t, 9),
                Event::PI(t) => (t, 2),
                Event::Decl(t) => (t, 2),
                Event::GeneralRef(r) => (r, 1),
                Event::Eof => ("", 0),
            };
            if let Some((at, c)) = forbidden_char(raw.as_bytes()) {
                return Err(self.error_at(
                    FormatErrorKind::Xml,
                    format!("{} is not allowed in an XML 1.0 document", char_name(c)),
                    start + lead + at as u64,
                ));
            }
            let ev = match event {
                Event::Start(e) => {
                    if let Err(m) = element_parts(&e, &mut self.name, &mut self.attrs, &mut self.n_attrs) {
                        return Err(self.error_at(FormatErrorKind::Xml, m, start));
                    }
                    XmlEvent::Start
                }
                Event::Empty(e) => {
                    if let Err(m) = element_parts(&e, &mut self.name, &mut self.attrs, &mut self.n_attrs) {
                        return Err(self.error_at(FormatErrorKind::Xml, m, start));
                    }
                    XmlEvent::Empty
                }
                Event::End(_) => XmlEvent::End,
                Event::Text(t) => {
                    self.text.clear();
                    self.text.push_str(&t.xml10_content());
                    XmlEvent::Text
                }
                Event::CData(t) => {
                    self.text.clear();
                    self.text.push_str(&t.xml10_content());
                    XmlEvent::Text
                }
                Event::GeneralRef(r) => {
                    let name: &str = &r;
                    match resolve_reference(name) {
                        Some(c) => {
                            self.text.clear();
                            self.text.push(c);
                            XmlEvent::Text
                        }
                        None => {
                            let what = if let Some(c) = referenced_char(name).filter(|c| !is_xml_char(*c)) {
                                format!(
                                    "&{name}; refers to {}, which an XML 1.0 document cannot hold",
                                    char_name(c)
                                )
                            } else if name.starts_with('#') {
                                format!("invalid character reference &{name};")
                            } else {
                                format!(
                                    "undefined entity &{name}; (only the five XML entities are known; \
                                     DTDs are not processed)"
                                )
                            };
                            return Err(self.error_at(FormatErrorKind::Xml, what, start));
                        }
                    }
                }
                Event::Eof => XmlEvent::Eof,
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => continue,
            };
            match &ev {
                XmlEvent::Start => {
                    self.depth += 1;
                    if self.depth > self.max_depth {
                        return Err(self.error_at(
                            FormatErrorKind::Limit,
                            format!("elements nested deeper than {}", self.max_depth),
                            start,
                        ));
                    }
                }
                XmlEvent::End => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            return Ok(ev);
        }
    }

    fn cap_error(&self, start: u64, cap: u64) -> FormatError {
        let what = if self.unit.is_some() { "the element" } else { "the markup or text" };
        self.error_at(
            FormatErrorKind::Limit,
            format!("{what} starting here is larger than the cap of {cap} bytes"),
            start,
        )
    }

    fn xml_error(&self, e: quick_xml::Error, offset: u64) -> FormatError {
        let (kind, message) = match &e {
            quick_xml::Error::Io(io) if io.kind() == io::ErrorKind::InvalidData => {
                (FormatErrorKind::Encoding, io.to_string())
            }
            quick_xml::Error::Io(io) => (FormatErrorKind::Io, format!("read failed: {io}")),
            quick_xml::Error::Encoding(enc) => (FormatErrorKind::Encoding, format!("invalid UTF-8: {enc}")),
            other => (FormatErrorKind::Xml, format!("malformed XML: {other}")),
        };
        self.error_at(kind, message, offset)
    }

    /// Skips the rest of an element whose start was just read.
    ///
    /// # Errors
    /// As [`next_event`](XmlReader::next_event); an early end of file is
    /// [`FormatErrorKind::Xml`].
    pub fn skip_element(&mut self) -> Result<(), FormatError> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.next_event()? {
                XmlEvent::Start => depth += 1,
                XmlEvent::End => depth -= 1,
                XmlEvent::Eof => {
                    return Err(self.error_at(
                        FormatErrorKind::Xml,
                        "unexpected end of file",
                        self.event_start,
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// All the text inside an element whose start was just read, nested elements'
    /// text included, up to its end.
    ///
    /// # Errors
    /// As [`skip_element`](XmlReader::skip_element).
    pub fn text_content(&mut self) -> Result<String, FormatError> {
        let mut text = String::new();
        let mut depth = 1usize;
        while depth > 0 {
            match self.next_event()? {
                XmlEvent::Start => depth += 1,
                XmlEvent::End => depth -= 1,
                XmlEvent::Text => text.push_str(&self.text),
                XmlEvent::Empty => {}
                XmlEvent::Eof => {
                    return Err(self.error_at(
                        FormatErrorKind::Xml,
                        "unexpected end of file",
                        self.event_start,
                    ))
                }
            }
        }
        Ok(text)
    }
}

/// Name and attributes (normalized values, XML 1.0 §3.3.3) of an element, into reused
/// buffers.
fn element_parts(
    e: &BytesStart<'_>,
    name: &mut String,
    attrs: &mut Vec<(String, String)>,
    n_attrs: &mut usize,
) -> Result<(), String> {
    name.clear();
    name.push_str(e.name().as_ref());
    *n_attrs = 0;
    for a in e.attributes() {
        let a = a.map_err(|err| format!("malformed attribute in <{name}>: {err}"))?;
        let key = a.key.as_ref();
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|err| format!("attribute {key} of <{name}>: {err}"))?;
        // Raw characters were checked with the tag; a reference can still name one.
        if let Some(c) = value.chars().find(|c| !is_xml_char(*c)) {
            return Err(format!(
                "attribute {key} of <{name}> refers to {}, which an XML 1.0 document cannot hold",
                char_name(c)
            ));
        }
        if *n_attrs == attrs.len() {
            attrs.push((String::new(), String::new()));
        }
        let slot = &mut attrs[*n_attrs];
        slot.0.clear();
        slot.0.push_str(key);
        slot.1.clear();
        slot.1.push_str(&value);
        *n_attrs += 1;
    }
    Ok(())
}

/// The value of attribute `name`.
pub fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// True for a character XML 1.0 allows in a document (§2.2 `Char`), as text or as a
/// character reference.
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// True when every character of `s` can be carried by XML 1.0.
pub fn is_xml_safe(s: &str) -> bool {
    s.chars().all(is_xml_char)
}

/// Appends `s` escaped for element content: `&`, `<`, `>` as entities, CR as `&#13;`
/// (so it is not normalized away). Characters XML cannot carry become U+FFFD; callers
/// that need them back check [`is_xml_safe`] first and store a lossless form elsewhere.
pub fn escape_text_into(s: &str, out: &mut String) {
    escape_into(s, out, false);
}

/// Appends `s` escaped for a double-quoted attribute value: as text, plus `"` and the
/// white space that attribute normalization would otherwise turn into spaces.
pub fn escape_attr_into(s: &str, out: &mut String) {
    escape_into(s, out, true);
}

/// [`escape_text_into`], or with `attr` [`escape_attr_into`].
fn escape_into(s: &str, out: &mut String, attr: bool) {
    let mut last = 0;
    for (i, c) in s.char_indices() {
        let rep = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '\r' => "&#13;",
            '"' if attr => "&quot;",
            '\t' if attr => "&#9;",
            '\n' if attr => "&#10;",
            c if !is_xml_char(c) => "\u{FFFD}",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + c.len_utf8();
    }
    out.push_str(&s[last..]);
}

/// Resolves a general reference's name (`amp`, `#x20`, `#160`) to its text: the five
/// predefined entities and character references. Anything else is `None`: custom
/// entities are never expanded (no DTD processing), which also makes entity-expansion
/// bombs harmless.
///
/// A character reference must name a character XML 1.0 allows (§4.1, well-formedness
/// constraint "Legal Character"): `&#x1F;`, which XML 1.1 and some translation tools
/// write, is refused like a raw U+001F, as are `&#0;`, surrogates and out-of-range
/// numbers. Reading such a file as XML 1.1 would store a character no XML 1.0 output
/// of ours (TMX, XLIFF) can carry back.
pub fn resolve_reference(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => referenced_char(name).filter(|&c| is_xml_char(c)),
    }
}

/// The character a character reference's name (`#x1F`, `#31`) names, allowed or not.
fn referenced_char(name: &str) -> Option<char> {
    let num = name.strip_prefix('#')?;
    let code = if let Some(hex) = num.strip_prefix('x') {
        u32::from_str_radix(hex, 16).ok()?
    } else {
        num.parse::<u32>().ok()?
    };
    char::from_u32(code)
}

/// The first character of UTF-8 `bytes` that XML 1.0 does not allow (§2.2 `Char`): a
/// C0 control other than tab, line feed and carriage return, U+FFFE or U+FFFF; with
/// its byte offset. Surrogates cannot occur in UTF-8.
fn forbidden_char(bytes: &[u8]) -> Option<(usize, char)> {
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r') {
            return Some((i, char::from(b)));
        }
        if b == 0xEF && bytes.get(i + 1) == Some(&0xBF) {
            match bytes.get(i + 2) {
                Some(0xBE) => return Some((i, '\u{FFFE}')),
                Some(0xBF) => return Some((i, '\u{FFFF}')),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// `U+0008` for messages.
fn char_name(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        let mut out = String::new();
        escape_text_into("a<b>&\r\u{1}c", &mut out);
        assert_eq!(out, "a&lt;b&gt;&amp;&#13;\u{FFFD}c");
        out.clear();
        escape_attr_into("\"x\"\t\n", &mut out);
        assert_eq!(out, "&quot;x&quot;&#9;&#10;");
        assert_eq!(resolve_reference("#x20"), Some(' '));
        assert_eq!(resolve_reference("#1"), None);
        assert_eq!(resolve_reference("#x9"), Some('\t'));
        assert_eq!(resolve_reference("#xFFFE"), None);
        assert_eq!(resolve_reference("#0"), None);
        assert_eq!(resolve_reference("#xD800"), None);
        assert_eq!(resolve_reference("lol"), None);
    }

    #[test]
    fn characters_xml_1_0_forbids() {
        assert_eq!(forbidden_char(b"a\tb\r\nc"), None);
        assert_eq!(forbidden_char(b"ab\x08c"), Some((2, '\u{8}')));
        assert_eq!(forbidden_char("x\u{FFFF}".as_bytes()), Some((1, '\u{FFFF}')));
        assert_eq!(forbidden_char("\u{FFFD}\u{10000}".as_bytes()), None);
    }
}
