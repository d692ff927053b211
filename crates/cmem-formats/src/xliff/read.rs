//! The reader shared by both versions: the root, the element tree down to the units,
//! and inline content → runs with the source codes they came from. The units
//! themselves are read by [`read_v1`](super::read_v1) and [`read_v2`](super::read_v2).

use std::io::Read;

use cmem_core::{Code, Run};

use super::{Role, SourceCode, Span, Unit, XliffDocument, XliffVersion, MTC_NAMESPACE};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::xml::{XmlEvent, XmlReader};

/// The name without its namespace prefix.
/// The minor version of a 1.x document: from its `version`, else from its namespace
/// (`urn:oasis:names:tc:xliff:document:1.1`), else 2, the latest.
fn v1_minor(version: &str, attrs: &[(String, String)]) -> u8 {
    match version.trim() {
        "1.0" => 0,
        "1.1" => 1,
        "1.2" => 2,
        _ if attrs
            .iter()
            .any(|(k, v)| k.starts_with("xmlns") && v == "urn:oasis:names:tc:xliff:document:1.1") =>
        {
            1
        }
        _ => 2,
    }
}

pub(super) fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// The 1-based line and column (bytes) of `offset` in `text`.
pub(super) fn line_col(text: &str, offset: usize) -> (u64, u64) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
    let col = before.rfind('\n').map_or(before.len(), |i| before.len() - i - 1) as u64 + 1;
    (line, col)
}

/// Tracks the line of increasing offsets.
pub(super) struct Lines {
    offset: usize,
    line: u64,
}

impl Lines {
    pub(super) fn line_of(&mut self, text: &str, offset: usize) -> u64 {
        if offset < self.offset {
            return line_col(text, offset).0;
        }
        self.line +=
            text.get(self.offset..offset).map_or(0, |s| s.bytes().filter(|&b| b == b'\n').count()) as u64;
        self.offset = offset;
        self.line
    }
}

/// Reads the segments of a document into an [`XliffDocument`].
pub(super) struct Parser<'a, R: Read> {
    pub(super) r: XmlReader<R>,
    pub(super) text: &'a str,
    pub(super) doc: &'a mut XliffDocument,
    /// The `data` ids of the current 2.x unit's `originalData`.
    pub(super) data_ids: Vec<String>,
    /// The languages of the current 1.x `file` (the root's for 2.x).
    pub(super) langs: (Option<String>, Option<String>),
}

/// Inline content read from an element.
pub(super) struct Inline {
    pub(super) runs: Vec<Run>,
    pub(super) codes: Vec<SourceCode>,
}

impl<'a, R: Read> Parser<'a, R> {
    /// A parser that reads `r` (whose decoded text is `text`) into `doc`.
    pub(super) fn new(r: XmlReader<R>, text: &'a str, doc: &'a mut XliffDocument) -> Self {
        Parser { r, text, doc, data_ids: Vec::new(), langs: (None, None) }
    }

    pub(super) fn pos(&self) -> usize {
        self.r.position() as usize
    }

    pub(super) fn start(&self) -> usize {
        self.r.event_start() as usize
    }

    pub(super) fn err(
        &self,
        kind: FormatErrorKind,
        message: impl Into<String>,
        offset: usize,
    ) -> FormatError {
        let (line, col) = line_col(self.text, offset);
        FormatError::new(Format::Xliff, kind, message).in_file(self.doc.file.clone()).at(line, col)
    }

    pub(super) fn attr(&self, name: &str) -> Option<String> {
        self.r.attr(name).map(str::to_owned)
    }

    pub(super) fn run(mut self) -> Result<(), FormatError> {
        // The root.
        loop {
            match self.r.next_event()? {
                XmlEvent::Start | XmlEvent::Empty => break,
                XmlEvent::Eof => {
                    return Err(self.err(FormatErrorKind::Xml, "no root element (empty document)", 0))
                }
                _ => {}
            }
        }
        let name = self.r.name().to_owned();
        if local(&name) != "xliff" {
            return Err(self.err(
                FormatErrorKind::NotXliff,
                format!("the root element is <{name}>, not <xliff>"),
                self.start(),
            ));
        }
        self.doc.prefix = match name.rsplit_once(':') {
            Some((p, _)) => format!("{p}:"),
            None => String::new(),
        };
        self.doc.root_start_tag = Span { start: self.start(), start_tag_end: self.pos(), ..Span::default() };
        let version = self.attr("version").unwrap_or_default();
        let ns = self.r.attrs().iter().any(|(k, v)| k.starts_with("xmlns") && v.contains("xliff:document:2"));
        self.doc.version = if version.starts_with('2') || ns { XliffVersion::V2 } else { XliffVersion::V1 };
        self.doc.v1_minor = v1_minor(&version, self.r.attrs());
        self.doc.mtc_prefix = self
            .r
            .attrs()
            .iter()
            .find(|(_, v)| v == MTC_NAMESPACE)
            .and_then(|(k, _)| k.strip_prefix("xmlns:").map(str::to_owned));
        if self.doc.version == XliffVersion::V2 {
            self.doc.source_locale = self.attr("srcLang");
            self.doc.target_locale = self.attr("trgLang");
            self.langs = (self.doc.source_locale.clone(), self.doc.target_locale.clone());
        }
        let mut lines = Lines { offset: 0, line: 1 };
        // (translate) of each open element.
        let mut stack: Vec<bool> = vec![true];
        loop {
            let ev = self.r.next_event()?;
            match ev {
                XmlEvent::Start | XmlEvent::Empty => {
                    let inherited = stack.last().copied().unwrap_or(true);
                    let translate = match self.r.attr("translate") {
                        Some("no") => false,
                        Some("yes") => true,
                        _ => inherited,
                    };
                    let name = local(self.r.name()).to_owned();
                    if name == "file" && self.doc.version == XliffVersion::V1 {
                        self.langs = (self.attr("source-language"), self.attr("target-language"));
                        if self.doc.source_locale.is_none() {
                            self.doc.source_locale = self.attr("source-language");
                        }
                        if self.doc.target_locale.is_none() {
                            self.doc.target_locale = self.attr("target-language");
                        }
                    }
                    if ev == XmlEvent::Empty {
                        continue;
                    }
                    match (name.as_str(), self.doc.version) {
                        ("trans-unit", XliffVersion::V1) => self.unit_v1(translate, &mut lines)?,
                        ("unit", XliffVersion::V2) => self.unit_v2(translate, &mut lines)?,
                        ("skl" | "internal-file" | "notes" | "note" | "header" | "originalData", _) => {
                            self.r.skip_element()?
                        }
                        _ => stack.push(translate),
                    }
                }
                XmlEvent::End => {
                    stack.pop();
                }
                XmlEvent::Text => {}
                XmlEvent::Eof => break,
            }
        }
        Ok(())
    }

    /// Reads inline content up to the end of the element just started.
    pub(super) fn inline(&mut self) -> Result<Inline, FormatError> {
        let v2 = self.doc.version == XliffVersion::V2;
        let mut runs: Vec<Run> = Vec::new();
        let mut codes: Vec<SourceCode> = Vec::new();
        let mut open: Vec<(String, String)> = Vec::new(); // (id, kind) of open containers
        let mut text = String::new();
        let flush = |text: &mut String, runs: &mut Vec<Run>| {
            if !text.is_empty() {
                runs.push(Run::Text(std::mem::take(text)));
            }
        };
        loop {
            let ev = self.r.next_event()?;
            match ev {
                XmlEvent::Text => text.push_str(self.r.text()),
                XmlEvent::Eof => {
                    return Err(self.err(FormatErrorKind::Xml, "unexpected end of file", self.start()))
                }
                XmlEvent::End => {
                    let Some((id, kind)) = open.pop() else { break };
                    flush(&mut text, &mut runs);
                    let markup = self.text[self.start()..self.pos()].to_owned();
                    codes.push(SourceCode {
                        role: Role::Close,
                        id: id.clone(),
                        markup: markup.clone(),
                        container: true,
                    });
                    runs.push(Run::PcClose(Code { id, equiv: String::new(), kind, data: markup }));
                }
                XmlEvent::Start | XmlEvent::Empty => {
                    flush(&mut text, &mut runs);
                    let start = self.start();
                    let name = local(self.r.name()).to_owned();
                    let get = |k: &str| self.r.attr(k).map(str::to_owned);
                    let mut kind = name.clone();
                    if let Some(t) = get(if v2 { "type" } else { "ctype" }) {
                        kind.push(';');
                        kind.push_str(&t);
                    }
                    let equiv = get(if v2 { "equiv" } else { "equiv-text" }).unwrap_or_default();
                    let id = |keys: &[&str]| keys.iter().find_map(|k| get(k)).unwrap_or_default();
                    let whole: Option<(Role, String)> = match (name.as_str(), v2, ev) {
                        (_, _, XmlEvent::Empty) => Some(match (name.as_str(), v2) {
                            ("bx", false) => (Role::Open, id(&["rid", "id"])),
                            ("ex", false) => (Role::Close, id(&["rid", "id"])),
                            ("sc" | "sm", true) => (Role::Open, id(&["id"])),
                            ("ec" | "em", true) => (Role::Close, id(&["startRef", "id"])),
                            ("cp", true) => (Role::Ph, id(&["hex"])),
                            ("it", false) => it_role(get("pos").as_deref(), id(&["rid", "id"])),
                            _ => (Role::Ph, id(&["id", "mid"])),
                        }),
                        ("bpt", false, _) => Some((Role::Open, id(&["rid", "id"]))),
                        ("ept", false, _) => Some((Role::Close, id(&["rid", "id"]))),
                        ("it", false, _) => Some(it_role(get("pos").as_deref(), id(&["rid", "id"]))),
                        ("ph" | "x" | "bx" | "ex", false, _) => Some((Role::Ph, id(&["id"]))),
                        ("sc" | "sm", true, _) => Some((Role::Open, id(&["id"]))),
                        ("ec" | "em", true, _) => Some((Role::Close, id(&["startRef", "id"]))),
                        ("ph" | "cp", true, _) => Some((Role::Ph, id(&["id", "hex"]))),
                        _ => None,
                    };
                    if v2 {
                        for key in ["dataRef", "dataRefStart", "dataRefEnd"] {
                            if let Some(d) = self.r.attr(key) {
                                if !self.data_ids.iter().any(|x| x == d) {
                                    return Err(self.err(
                                        FormatErrorKind::NotXliff,
                                        format!("<{name}> has {key}=\"{d}\" but the unit has no <data id=\"{d}\">"),
                                        start,
                                    ));
                                }
                            }
                        }
                    }
                    match whole {
                        Some((role, id)) => {
                            if ev == XmlEvent::Start {
                                self.r.skip_element()?;
                            }
                            let markup = self.text[start..self.pos()].to_owned();
                            let code =
                                Code { id: id.clone(), equiv: String::new(), kind, data: markup.clone() };
                            codes.push(SourceCode { role, id, markup, container: false });
                            runs.push(match role {
                                Role::Ph => Run::Ph(Code { equiv, ..code }),
                                Role::Open => Run::PcOpen(code),
                                Role::Close => Run::PcClose(code),
                            });
                        }
                        None => {
                            let id = id(&["id", "mid"]);
                            let markup = self.text[start..self.pos()].to_owned();
                            codes.push(SourceCode {
                                role: Role::Open,
                                id: id.clone(),
                                markup: markup.clone(),
                                container: true,
                            });
                            runs.push(Run::PcOpen(Code {
                                id: id.clone(),
                                equiv: String::new(),
                                kind: kind.clone(),
                                data: markup,
                            }));
                            open.push((id, kind));
                        }
                    }
                }
            }
        }
        flush(&mut text, &mut runs);
        Ok(Inline { runs, codes })
    }
}

fn it_role(pos: Option<&str>, id: String) -> (Role, String) {
    match pos {
        Some("close" | "end") => (Role::Close, id),
        _ => (Role::Open, id),
    }
}

impl<R: Read> Parser<'_, R> {
    /// The white space text right after a start tag, when the next event is text.
    pub(super) fn leading_ws(&self, text: &str) -> Option<String> {
        (text.trim().is_empty() && !text.is_empty()).then(|| text.to_owned())
    }

    /// The next child element of a unit (`Start` or `Empty`), `None` at the unit's end;
    /// white space before its `first` child becomes the unit's indent.
    ///
    /// # Errors
    /// The end of the file, an XML error.
    pub(super) fn unit_child(
        &mut self,
        unit: &mut Unit,
        first: &mut bool,
    ) -> Result<Option<XmlEvent>, FormatError> {
        loop {
            match self.r.next_event()? {
                XmlEvent::Text => {
                    if *first {
                        // The bytes as they stand: the reader's text has its line ends
                        // normalized to `\n` (XML 1.0 §2.11), a CRLF file's have `\r\n`.
                        let raw = self.text.get(self.start()..self.pos()).unwrap_or_default();
                        if let Some(ws) = self.leading_ws(raw) {
                            unit.indent = ws;
                        }
                    }
                }
                XmlEvent::End => return Ok(None),
                XmlEvent::Eof => {
                    return Err(self.err(FormatErrorKind::Xml, "unexpected end of file", self.start()))
                }
                ev @ (XmlEvent::Start | XmlEvent::Empty) => {
                    *first = false;
                    return Ok(Some(ev));
                }
            }
        }
    }
}
