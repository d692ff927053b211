//! XLIFF 1.0–1.2 and 2.0–2.2 documents for the recycle and analyze tools: read the
//! translatable segments with their inline codes, then write targets, states and
//! candidates back while **every byte the tool does not change is copied from the
//! input** (vendor extensions, skeletons, comments, processing instructions, white
//! space, attribute quoting and the document's encoding stay as they were).
//!
//! [`XliffDocument::parse`] reads the whole file (decoded to UTF-8 for reading, the
//! original bytes kept for writing), records for each segment where its target and
//! candidates go, and [`XliffDocument::to_bytes`] splices the edits into the original
//! bytes. With no edits the output is the input, byte for byte.
//! A document is held in memory whole (its bytes and their UTF-8 decoding): XLIFF files
//! are translation jobs, not memories — the 10,000-segment benchmark document is 1.5 MB.
//! Output keeps the input's encoding and byte-order mark; a character a single-byte
//! encoding cannot carry is written as a character reference.
//!
//! # Segments
//!
//! | version | segment | source / target |
//! |---|---|---|
//! | 1.x | a `trans-unit` | `source`, `target` |
//! | 1.x, segmented | each `<mrk mtype="seg" mid=…>` of `seg-source` | the `mrk`s of `target` with the same `mid` |
//! | 2.x | each `segment` of a `unit` (`ignorable`s are kept, not offered) | `source`, `target` |
//!
//! A segment is *translatable* unless `translate="no"` holds on it, its unit or an
//! enclosing `group`/`file`; it is *approved* when its 1.x unit has `approved="yes"` or
//! its state is `final` or `signed-off` (1.x) / `final` (2.x).
//!
//! # Inline codes → runs
//!
//! Each inline element becomes a run whose [`Code::data`] is the element's markup as it
//! stands in the file, so writing a run back restores the element and its attributes:
//!
//! | element | run | id |
//! |---|---|---|
//! | 1.x `x`, `ph`; 2.x `ph`, `cp` | `Ph` (the whole element) | `id` (`cp`: `hex`) |
//! | 1.x `bx`, `bpt`, `it pos="open"`; 2.x `sc`, `sm` | `PcOpen` (the whole element) | `rid` or `id` |
//! | 1.x `ex`, `ept`, `it pos="close"`; 2.x `ec`, `em` | `PcClose` (the whole element) | `rid`/`startRef` or `id` |
//! | 1.x `g`, `mrk`; 2.x `pc`, `mrk`; any other element | `PcOpen` (start tag), content, `PcClose` (end tag) | `id` (`mid` for `mrk`) |
//!
//! `Code::kind` is the element's name (without a namespace prefix), plus `;` and the
//! 1.x `ctype` or 2.x `type` when present; `Code::equiv` is the 1.x `equiv-text` or 2.x
//! `equiv` of a standalone code. A `sub` inside a 1.x `ph`/`bpt` is part of its element.
//! 2.x `originalData` stays in the file untouched: the `dataRef` of a code is part of
//! its element, so a target written with the document's codes refers to the same data.
//!
//! # Writing runs
//!
//! A target or candidate is written **with the document's own codes**: each code run
//! takes the markup of the source code of the same segment with the same role and id
//! (each source code at most once). A code with no such counterpart is left out, and so
//! is an open/close of a container element (`g`, `pc`, `mrk`, …) that would not nest,
//! so the output is always well-formed; [`WrittenRuns::dropped`] counts them.

use std::collections::HashMap;
use std::io::Read;

use cmem_core::{Code, Run};

use crate::decode::{Encoding, XmlInput};

#[path = "xliff12.rs"]
mod xliff12;
#[path = "xliff2.rs"]
mod xliff2;
use crate::error::{ErrorKind, Format, FormatError};
use crate::xml::{escape_attr_into, escape_text_into, is_xml_char, XmlEvent, XmlReader};

/// The namespace of the XLIFF 2 translation candidates module.
pub const MTC_NAMESPACE: &str = "urn:oasis:names:tc:xliff:matches:2.0";

/// The deepest element nesting accepted.
const MAX_DEPTH: usize = 256;
/// The largest single event outside a segment (a skeleton, a comment), in bytes.
const MAX_EVENT_BYTES: u64 = 256 << 20;

/// The major XLIFF version of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum XliffVersion {
    /// XLIFF 1.0, 1.1 or 1.2.
    V1,
    /// XLIFF 2.0, 2.1 or 2.2.
    V2,
}

/// One segment of a document, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The `id` of its `trans-unit` / `unit`.
    pub unit_id: String,
    /// The 1.x `mid` of a `seg-source` segment or the 2.x `segment` `id`, if any.
    pub segment_id: Option<String>,
    /// The source runs.
    pub source: Vec<Run>,
    /// The target runs, when the segment has a target (possibly empty).
    pub target: Option<Vec<Run>>,
    /// The 1.x `target` `state` or the 2.x `segment` `state`.
    pub state: Option<String>,
    /// Approved (see the module docs): recycle never touches it.
    pub approved: bool,
    /// False under `translate="no"`.
    pub translatable: bool,
    /// The line of the segment's source element (from 1).
    pub line: u64,
    /// The source language of its 1.x `file` (`source-language`) or the 2.x `srcLang`.
    pub source_locale: Option<String>,
    /// The target language of its 1.x `file` (`target-language`) or the 2.x `trgLang`.
    pub target_locale: Option<String>,
}

impl Segment {
    /// True when the target holds any text or code.
    pub fn has_target(&self) -> bool {
        self.target
            .as_ref()
            .is_some_and(|t| t.iter().any(|r| !matches!(r, Run::Text(s) if s.trim().is_empty())))
    }
}

/// A translation candidate to write beside a segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The candidate's source (the memory's source).
    pub source: Vec<Run>,
    /// The candidate's target.
    pub target: Vec<Run>,
    /// Its score, 0–100.
    pub quality: u8,
    /// Who proposes it (`cmem`).
    pub origin: String,
}

/// What writing runs with the document's codes gave.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WrittenRuns {
    /// The markup.
    pub markup: String,
    /// Code runs left out: no counterpart in the segment's source, or not nestable.
    pub dropped: usize,
}

/// Where a code of the source sits, by role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Role {
    Ph,
    Open,
    Close,
}

/// A source code: its role, id, markup, and whether it is half of a container element.
#[derive(Debug, Clone)]
struct SourceCode {
    role: Role,
    id: String,
    markup: String,
    container: bool,
}

/// An element's span in the decoded text.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: usize,
    /// End of the start tag.
    start_tag_end: usize,
    /// Start of the end tag (== `end` for an empty element).
    content_end: usize,
    end: usize,
    empty: bool,
}

/// Where a segment's target goes.
#[derive(Debug, Clone)]
enum Place {
    /// 1.x trans-unit: the target element, if any; else insert after `after`.
    V1Unit { target: Option<Span>, after: usize },
    /// 1.x seg-source mrk: the target's mrk with this mid, if any.
    V1Mrk { target_mrk: Option<Span>, unit: usize },
    /// 2.x segment: its start tag and target, if any; else insert after `after`.
    V2 { segment: Span, target: Option<Span>, after: usize },
}

/// Per-unit bookkeeping.
#[derive(Debug, Clone, Default)]
struct Unit {
    /// 1.x: the whole target element (seg-source units), where alt-trans go.
    target: Option<Span>,
    /// 1.x: the seg-source content (to build a target from), end of the seg-source.
    seg_source: Option<Span>,
    /// 1.x: end of source / seg-source / target: where `alt-trans` go.
    alt_at: usize,
    /// 2.x: end of the unit start tag, and an existing `mtc:matches` (its end tag start).
    unit_start_tag_end: usize,
    matches_end: Option<usize>,
    /// The prefix of that `mtc:matches` (declared on the root or on itself).
    matches_prefix: Option<String>,
    /// The white space before the unit's first child (for indenting inserted elements).
    indent: String,
    /// The segments of this unit (indices).
    segments: Vec<usize>,
}

#[derive(Debug, Clone)]
struct SegInfo {
    place: Place,
    unit: usize,
    codes: Vec<SourceCode>,
}

/// An XLIFF document with pending edits.
#[derive(Debug, Clone)]
pub struct XliffDocument {
    raw: Vec<u8>,
    text: String,
    encoding: Encoding,
    bom: usize,
    version: XliffVersion,
    /// The core namespace prefix with its colon (`xlf:`), or empty.
    prefix: String,
    mtc_prefix: Option<String>,
    root_start_tag: Span,
    source_locale: Option<String>,
    target_locale: Option<String>,
    segments: Vec<Segment>,
    info: Vec<SegInfo>,
    units: Vec<Unit>,
    /// Replacements: (start, end, text) in the decoded text.
    edits: Vec<(usize, usize, String)>,
    /// Segment targets set so far, by segment index (1.x seg-source units are rebuilt).
    new_targets: HashMap<usize, (String, Option<String>, Option<String>)>,
    candidates: Vec<(usize, Vec<Candidate>)>,
    /// The 2.x `trgLang` to declare when targets are written into a document without one.
    new_trg_lang: Option<String>,
    /// 1.x seg-source: the source `mrk` of each segment, by segment index.
    mrk_spans: HashMap<usize, Span>,
    file: String,
}

impl XliffDocument {
    /// Adds a segment with where it lies, keeping the two lists in step; its index.
    fn push_segment(&mut self, segment: Segment, info: SegInfo) -> usize {
        self.segments.push(segment);
        self.info.push(info);
        self.segments.len() - 1
    }

    /// Reads a whole document; `file` names it in error messages.
    ///
    /// # Errors
    /// Malformed XML, an unsupported encoding, a root that is not `xliff`, a segment
    /// without a source, or I/O — each located by line and column.
    pub fn read(mut input: impl Read, file: &str) -> Result<Self, FormatError> {
        let mut raw = Vec::new();
        input
            .read_to_end(&mut raw)
            .map_err(|e| FormatError::io(Format::Xliff, "read failed", e).in_file(file))?;
        Self::parse(raw, file)
    }

    /// Parses a document held in memory; `file` names it in error messages.
    ///
    /// # Errors
    /// As [`read`](XliffDocument::read).
    pub fn parse(raw: Vec<u8>, file: &str) -> Result<Self, FormatError> {
        let decode_err = |e: std::io::Error| {
            let kind =
                if e.kind() == std::io::ErrorKind::InvalidData { ErrorKind::Encoding } else { ErrorKind::Io };
            FormatError::new(Format::Xliff, kind, e.to_string()).in_file(file).at(1, 1)
        };
        let mut decoded = Vec::new();
        let mut input = XmlInput::new(raw.as_slice()).map_err(decode_err)?;
        input.read_to_end(&mut decoded).map_err(decode_err)?;
        let encoding = input.encoding();
        let text = String::from_utf8(decoded).map_err(|e| {
            FormatError::new(Format::Xliff, ErrorKind::Encoding, format!("invalid UTF-8: {e}")).in_file(file)
        })?;
        let bom = match encoding {
            Encoding::Utf8 if raw.starts_with(&[0xEF, 0xBB, 0xBF]) => 3,
            Encoding::Utf16Le if raw.starts_with(&[0xFF, 0xFE]) => 2,
            Encoding::Utf16Be if raw.starts_with(&[0xFE, 0xFF]) => 2,
            _ => 0,
        };
        let reader = XmlReader::new(raw.as_slice(), Format::Xliff, file, MAX_DEPTH, MAX_EVENT_BYTES)?;
        let mut doc = XliffDocument {
            raw: Vec::new(),
            text: String::new(),
            encoding,
            bom,
            version: XliffVersion::V1,
            prefix: String::new(),
            mtc_prefix: None,
            root_start_tag: Span::default(),
            source_locale: None,
            target_locale: None,
            segments: Vec::new(),
            info: Vec::new(),
            units: Vec::new(),
            edits: Vec::new(),
            new_targets: HashMap::new(),
            candidates: Vec::new(),
            mrk_spans: HashMap::new(),
            new_trg_lang: None,
            file: file.to_owned(),
        };
        Parser { r: reader, text: &text, doc: &mut doc, data_ids: Vec::new(), langs: (None, None) }.run()?;
        doc.raw = raw;
        doc.text = text;
        Ok(doc)
    }

    /// The major version.
    pub fn version(&self) -> XliffVersion {
        self.version
    }

    /// The source language (`srcLang` / first `file`'s `source-language`), if given.
    pub fn source_locale(&self) -> Option<&str> {
        self.source_locale.as_deref()
    }

    /// The target language (`trgLang` / first `file`'s `target-language`), if given.
    pub fn target_locale(&self) -> Option<&str> {
        self.target_locale.as_deref()
    }

    /// The segments, in document order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The file name given to [`parse`](XliffDocument::parse).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// True when an edit is pending.
    pub fn is_modified(&self) -> bool {
        !self.new_targets.is_empty() || !self.candidates.is_empty()
    }

    /// False when a target cannot be written for segment `index`: a 1.x segmented
    /// unit whose existing target lacks the segment's `mrk`.
    pub fn can_fill(&self, index: usize) -> bool {
        match self.info.get(index) {
            Some(SegInfo { place: Place::V1Mrk { target_mrk: None, unit }, .. }) => {
                self.units.get(*unit).is_some_and(|u| u.target.is_none())
            }
            Some(_) => true,
            None => false,
        }
    }

    /// Writes `runs` with the codes of segment `index`'s source (module docs).
    pub fn render(&self, index: usize, runs: &[Run]) -> WrittenRuns {
        match self.info.get(index) {
            Some(info) => render_runs(runs, &info.codes),
            None => render_runs(runs, &[]),
        }
    }

    /// Sets the target of segment `index` to `runs` (written with the document's
    /// codes) with a 1.x `state` / 2.x segment `state`, and an optional 1.x
    /// `state-qualifier` / 2.x `subState` (`None` removes an existing one). Returns
    /// the code runs left out; an out-of-range index changes nothing.
    pub fn set_target(&mut self, index: usize, runs: &[Run], state: &str, qualifier: Option<&str>) -> usize {
        if index >= self.segments.len() {
            return 0;
        }
        let written = self.render(index, runs);
        let dropped = written.dropped;
        self.set_written_target(index, written, state, qualifier);
        dropped
    }

    /// [`set_target`](Self::set_target) with the runs already written by
    /// [`render`](Self::render) for this segment.
    pub(crate) fn set_written_target(
        &mut self,
        index: usize,
        written: WrittenRuns,
        state: &str,
        qualifier: Option<&str>,
    ) {
        if index < self.segments.len() {
            self.new_targets
                .insert(index, (written.markup, Some(state.to_owned()), qualifier.map(str::to_owned)));
        }
    }

    /// The target language to declare (2.x `trgLang`) if the document names none and a
    /// target is written.
    pub fn set_target_language(&mut self, lang: &str) {
        if self.target_locale.is_none() {
            self.new_trg_lang = Some(lang.to_owned());
        }
    }

    /// Adds translation candidates to segment `index` (1.x `alt-trans`, 2.x
    /// `mtc:match`).
    pub fn add_candidates(&mut self, index: usize, candidates: Vec<Candidate>) {
        if index < self.segments.len() && !candidates.is_empty() {
            self.candidates.push((index, candidates));
        }
    }

    /// The document with the pending edits, in its original encoding (characters a
    /// single-byte encoding cannot carry as character references). With no edits,
    /// the input bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        if !self.is_modified() {
            return self.raw.clone();
        }
        let mut edits = self.edits.clone();
        self.plan_edits(&mut edits);
        edits.sort_by_key(|(s, e, _)| (*s, *e));
        // Splice in the raw bytes: untouched ranges are copied, edits encoded.
        let mut out = Vec::with_capacity(self.raw.len() + edits.len() * 64);
        let mut raw_pos = 0usize;
        let mut text_pos = 0usize;
        let mut raw_at = self.bom;
        for (start, end, replacement) in &edits {
            if *start < text_pos {
                continue; // overlapping edits never happen; keep the first.
            }
            raw_at += self.raw_len(&self.text[text_pos..*start]);
            out.extend_from_slice(self.raw.get(raw_pos..raw_at).unwrap_or_default());
            self.encode_into(replacement, &mut out);
            raw_at += self.raw_len(&self.text[*start..*end]);
            raw_pos = raw_at;
            text_pos = *end;
        }
        out.extend_from_slice(self.raw.get(raw_pos..).unwrap_or_default());
        out
    }

    /// Raw bytes that the decoded `s` came from.
    fn raw_len(&self, s: &str) -> usize {
        match self.encoding {
            Encoding::Utf8 => s.len(),
            Encoding::Utf16Le | Encoding::Utf16Be => s.encode_utf16().count() * 2,
            Encoding::Latin1 | Encoding::Windows1252 | Encoding::Ascii => s.chars().count(),
        }
    }

    fn encode_into(&self, s: &str, out: &mut Vec<u8>) {
        match self.encoding {
            Encoding::Utf8 => out.extend_from_slice(s.as_bytes()),
            Encoding::Utf16Le => s.encode_utf16().for_each(|u| out.extend_from_slice(&u.to_le_bytes())),
            Encoding::Utf16Be => s.encode_utf16().for_each(|u| out.extend_from_slice(&u.to_be_bytes())),
            Encoding::Latin1 | Encoding::Windows1252 | Encoding::Ascii => {
                let limit = match self.encoding {
                    Encoding::Ascii => 0x80,
                    _ => 0x100,
                };
                for c in s.chars() {
                    let u = c as u32;
                    if u < 0x80 || (u >= 0xA0 && u < limit) {
                        out.push(u as u8);
                    } else {
                        out.extend_from_slice(format!("&#x{u:X};").as_bytes());
                    }
                }
            }
        }
    }

    fn plan_edits(&self, edits: &mut Vec<(usize, usize, String)>) {
        let p = &self.prefix;
        let mut rebuilt_units: Vec<usize> = Vec::new();
        let mut indices: Vec<&usize> = self.new_targets.keys().collect();
        indices.sort();
        for &index in indices {
            let Some((markup, state, qualifier)) = self.new_targets.get(&index) else { continue };
            let Some(info) = self.info.get(index) else { continue };
            let unit = self.units.get(info.unit);
            let indent = unit.map(|u| u.indent.as_str()).unwrap_or_default();
            match &info.place {
                Place::V1Unit { target, after } => {
                    let attrs: Vec<(&str, Option<&str>)> =
                        vec![("state", state.as_deref()), ("state-qualifier", qualifier.as_deref())];
                    match target {
                        Some(t) => {
                            // `<target/>` opens as `<target>`.
                            let raw = &self.text[t.start..t.start_tag_end];
                            let opened = format!("{}>", open_tag_of(raw));
                            let tag = set_attrs(&opened, &attrs);
                            edits.push((t.start, t.end, format!("{tag}{markup}</{}>", tag_name(raw))));
                        }
                        None => {
                            let mut tag = format!("<{p}target");
                            if let Some(l) = self.segment_target_locale(index) {
                                push_attr(&mut tag, "xml:lang", l);
                            }
                            for (k, v) in &attrs {
                                if let Some(v) = v {
                                    push_attr(&mut tag, k, v);
                                }
                            }
                            edits.push((*after, *after, format!("{indent}{tag}>{markup}</{p}target>")));
                        }
                    }
                }
                Place::V1Mrk { target_mrk: Some(m), .. } => {
                    let tag = &self.text[m.start..m.start_tag_end];
                    let name = tag_name(tag);
                    edits.push((m.start, m.end, format!("{}>{markup}</{name}>", open_tag_of(tag))));
                    if let Some(t) = unit.and_then(|u| u.target) {
                        if !rebuilt_units.contains(&info.unit) {
                            rebuilt_units.push(info.unit);
                            let (state, qualifier) = self.unit_fill_state(info.unit);
                            let tag = &self.text[t.start..t.start_tag_end];
                            // The state covers the target's other segments too: an exact
                            // fill does not raise a state the target already has.
                            let has_state = attr_spans(tag).iter().any(|(n, _, _)| *n == "state");
                            if state.as_deref() != Some("translated") || !has_state {
                                let attrs =
                                    [("state", state.as_deref()), ("state-qualifier", qualifier.as_deref())];
                                edits.push((t.start, t.start_tag_end, set_attrs(tag, &attrs)));
                            }
                        }
                    }
                }
                Place::V1Mrk { target_mrk: None, unit: u } => {
                    // No target with this mrk: build the whole target from seg-source once.
                    if rebuilt_units.contains(u) {
                        continue;
                    }
                    rebuilt_units.push(*u);
                    let Some(unit) = unit else { continue };
                    let Some(ss) = unit.seg_source else { continue };
                    if unit.target.is_some() {
                        continue; // a target without the mrks: left alone (reported by recycle).
                    }
                    let content = self.seg_target_content(ss, unit);
                    let (state, qualifier) = self.unit_fill_state(*u);
                    let (state, qualifier) = (&state, &qualifier);
                    let mut tag = format!("<{p}target");
                    if let Some(l) = self.segment_target_locale(index) {
                        push_attr(&mut tag, "xml:lang", l);
                    }
                    if let Some(s) = state {
                        push_attr(&mut tag, "state", s);
                    }
                    if let Some(q) = qualifier {
                        push_attr(&mut tag, "state-qualifier", q);
                    }
                    edits.push((ss.end, ss.end, format!("{indent}{tag}>{content}</{p}target>")));
                }
                Place::V2 { segment, target, after } => {
                    let mut attrs = vec![("state", state.as_deref()), ("subState", qualifier.as_deref())];
                    let seg_tag = &self.text[segment.start..segment.start_tag_end];
                    let seg_id = self.segments.get(index).and_then(|s| s.segment_id.clone());
                    let needs_id = seg_id.is_none() && self.candidates.iter().any(|(i, _)| *i == index);
                    let new_id = format!("cmem-s{index}");
                    if needs_id {
                        attrs.push(("id", Some(&new_id)));
                    }
                    edits.push((segment.start, segment.start_tag_end, set_attrs(seg_tag, &attrs)));
                    match target {
                        Some(t) => {
                            let raw = &self.text[t.start..t.start_tag_end];
                            edits.push((
                                t.start,
                                t.end,
                                format!("{}>{markup}</{}>", open_tag_of(raw), tag_name(raw)),
                            ));
                        }
                        None => {
                            let seg_indent = self.indent_before(*after);
                            edits.push((
                                *after,
                                *after,
                                format!("{seg_indent}<{p}target>{markup}</{p}target>"),
                            ));
                        }
                    }
                }
            }
        }
        let mut root: Vec<(&str, Option<&str>)> = Vec::new();
        if self.plan_candidates(edits) {
            root.push(("xmlns:mtc", Some(MTC_NAMESPACE)));
        }
        // XLIFF 2 requires trgLang once a target exists.
        if let (Some(lang), XliffVersion::V2, false) =
            (&self.new_trg_lang, self.version, self.new_targets.is_empty())
        {
            root.push(("trgLang", Some(lang)));
        }
        if !root.is_empty() {
            let r = self.root_start_tag;
            edits.push((r.start, r.start_tag_end, set_attrs(&self.text[r.start..r.start_tag_end], &root)));
        }
    }

    fn segment_target_locale(&self, index: usize) -> Option<&String> {
        self.segments.get(index).and_then(|s| s.target_locale.as_ref()).or(self.target_locale.as_ref())
    }

    /// The state for the target of a 1.x segmented unit: the first that asks for
    /// review among its filled segments, else the first.
    fn unit_fill_state(&self, unit: usize) -> (Option<String>, Option<String>) {
        let mut found: Option<(Option<String>, Option<String>)> = None;
        for i in self.units.get(unit).map(|u| u.segments.as_slice()).unwrap_or_default() {
            if let Some((_, state, qualifier)) = self.new_targets.get(i) {
                if state.as_deref() != Some("translated") {
                    return (state.clone(), qualifier.clone());
                }
                found.get_or_insert((state.clone(), qualifier.clone()));
            }
        }
        found.unwrap_or_default()
    }

    /// A new 1.x target for a seg-source unit: the seg-source content with each
    /// segment mrk holding its new target or nothing.
    fn seg_target_content(&self, ss: Span, unit: &Unit) -> String {
        let mut out = String::new();
        let mut pos = ss.start_tag_end;
        for &si in &unit.segments {
            let Some(SegInfo { place: Place::V1Mrk { .. }, .. }) = self.info.get(si) else { continue };
            let Some(span) = self.mrk_spans.get(&si) else { continue };
            out.push_str(&self.text[pos..span.start]);
            let tag = &self.text[span.start..span.start_tag_end];
            let name = tag_name(tag);
            match self.new_targets.get(&si) {
                Some((markup, _, _)) => out.push_str(&format!("{}>{markup}</{name}>", open_tag_of(tag))),
                None => out.push_str(&format!("{}/>", open_tag_of(tag))),
            }
            pos = span.end;
        }
        out.push_str(&self.text[pos..ss.content_end]);
        out
    }

    fn indent_before(&self, at: usize) -> String {
        let before = &self.text[..at.min(self.text.len())];
        // The white space that precedes the element ending at `at`.
        let line_start = before.rfind('\n').map_or(0, |i| i);
        let ws: String = self.text[line_start..].chars().take_while(|c| c.is_whitespace()).collect();
        ws
    }

    /// Plans the candidates; true when the root must declare the `mtc` namespace.
    fn plan_candidates(&self, edits: &mut Vec<(usize, usize, String)>) -> bool {
        let p = &self.prefix;
        let mut by_unit: Vec<(usize, String)> = Vec::new();
        let mut added_ns = false;
        for (index, cands) in &self.candidates {
            let Some(info) = self.info.get(*index) else { continue };
            let Some(unit) = self.units.get(info.unit) else { continue };
            let seg = &self.segments[*index];
            let mut xml = String::new();
            match self.version {
                XliffVersion::V1 => {
                    for c in cands {
                        xml.push_str(&unit.indent);
                        xml.push_str(&format!("<{p}alt-trans"));
                        if let (Some(mid), Place::V1Mrk { .. }) = (&seg.segment_id, &info.place) {
                            push_attr(&mut xml, "mid", mid);
                        }
                        push_attr(&mut xml, "match-quality", &c.quality.to_string());
                        push_attr(&mut xml, "origin", &c.origin);
                        push_attr(&mut xml, "alttranstype", "proposal");
                        xml.push('>');
                        let src = render_runs(&c.source, &info.codes);
                        let trg = render_runs(&c.target, &info.codes);
                        xml.push_str(&format!("<{p}source"));
                        if let Some(l) = seg.source_locale.as_ref().or(self.source_locale.as_ref()) {
                            push_attr(&mut xml, "xml:lang", l);
                        }
                        xml.push_str(&format!(">{}</{p}source><{p}target", src.markup));
                        if let Some(l) = self.segment_target_locale(*index) {
                            push_attr(&mut xml, "xml:lang", l);
                        }
                        xml.push_str(&format!(">{}</{p}target></{p}alt-trans>", trg.markup));
                    }
                }
                XliffVersion::V2 => {
                    let m = unit
                        .matches_prefix
                        .clone()
                        .or_else(|| self.mtc_prefix.clone())
                        .unwrap_or_else(|| "mtc".to_owned());
                    let id = seg.segment_id.clone().unwrap_or_else(|| format!("cmem-s{index}"));
                    if seg.segment_id.is_none() && !self.new_targets.contains_key(index) {
                        if let Place::V2 { segment, .. } = &info.place {
                            let tag = set_attrs(
                                &self.text[segment.start..segment.start_tag_end],
                                &[("id", Some(&id))],
                            );
                            edits.push((segment.start, segment.start_tag_end, tag));
                        }
                    }
                    for (k, c) in cands.iter().enumerate() {
                        let src = render_runs(&c.source, &info.codes);
                        let trg = render_runs(&c.target, &info.codes);
                        xml.push_str(&format!("<{m}:match"));
                        push_attr(&mut xml, "id", &format!("cmem-{index}-{}", k + 1));
                        push_attr(&mut xml, "ref", &format!("#{id}"));
                        push_attr(&mut xml, "similarity", &c.quality.to_string());
                        push_attr(&mut xml, "matchQuality", &c.quality.to_string());
                        push_attr(&mut xml, "origin", &c.origin);
                        push_attr(&mut xml, "type", "tm");
                        xml.push_str(&format!(
                            "><{p}source>{}</{p}source><{p}target>{}</{p}target></{m}:match>",
                            src.markup, trg.markup
                        ));
                    }
                }
            }
            match by_unit.iter_mut().find(|(u, _)| *u == info.unit) {
                Some((_, s)) => s.push_str(&xml),
                None => by_unit.push((info.unit, xml)),
            }
        }
        for (u, xml) in by_unit {
            let Some(unit) = self.units.get(u) else { continue };
            match self.version {
                XliffVersion::V1 => edits.push((unit.alt_at, unit.alt_at, xml)),
                XliffVersion::V2 => match unit.matches_end {
                    Some(at) => edits.push((at, at, xml)),
                    None => {
                        let m = self.mtc_prefix.clone().unwrap_or_else(|| "mtc".to_owned());
                        let at = unit.unit_start_tag_end;
                        edits.push((at, at, format!("{}<{m}:matches>{xml}</{m}:matches>", unit.indent)));
                        if self.mtc_prefix.is_none() {
                            added_ns = true;
                        }
                    }
                },
            }
        }
        added_ns
    }
}

/// The name without its namespace prefix.
fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// The 1-based line and column (bytes) of `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (u64, u64) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
    let col = before.rfind('\n').map_or(before.len(), |i| before.len() - i - 1) as u64 + 1;
    (line, col)
}

fn push_attr(out: &mut String, key: &str, value: &str) {
    out.push(' ');
    out.push_str(key);
    out.push_str("=\"");
    escape_attr_into(value, out);
    out.push('"');
}

/// The element name of a raw start tag.
fn tag_name(tag: &str) -> &str {
    let rest = tag.strip_prefix('<').unwrap_or(tag);
    let end = rest.find(|c: char| c.is_whitespace() || c == '/' || c == '>').unwrap_or(rest.len());
    &rest[..end]
}

/// A raw start (or empty-element) tag without its closing `>` / `/>`.
fn open_tag_of(tag: &str) -> &str {
    let t = tag.strip_suffix('>').unwrap_or(tag);
    let t = t.strip_suffix('/').unwrap_or(t);
    t.trim_end()
}

/// The attributes of a raw, well-formed start tag: (name, start of the white space
/// before it, end of its value's closing quote).
fn attr_spans(tag: &str) -> Vec<(&str, usize, usize)> {
    let b = tag.as_bytes();
    let mut out = Vec::new();
    let mut i = 1 + tag_name(tag).len();
    loop {
        let ws = i;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() || b[i] == b'/' || b[i] == b'>' {
            break;
        }
        let name_start = i;
        while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let name = &tag[name_start..i];
        while i < b.len() && b[i] != b'"' && b[i] != b'\'' {
            i += 1;
        }
        let Some(&quote) = b.get(i) else { break };
        i += 1;
        while i < b.len() && b[i] != quote {
            i += 1;
        }
        i += 1;
        out.push((name, ws, i.min(b.len())));
    }
    out
}

/// `tag` with attributes set (`Some`) or removed (`None`), everything else kept.
fn set_attrs(tag: &str, attrs: &[(&str, Option<&str>)]) -> String {
    let spans = attr_spans(tag);
    let mut out = String::with_capacity(tag.len() + 64);
    let mut pos = 0;
    let mut appended = String::new();
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    for (key, value) in attrs {
        match spans.iter().find(|(n, _, _)| n == key) {
            Some(&(_, s, e)) => {
                let mut rep = String::new();
                if let Some(v) = value {
                    push_attr(&mut rep, key, v);
                }
                replaced.push((s, e, rep));
            }
            None => {
                if let Some(v) = value {
                    push_attr(&mut appended, key, v);
                }
            }
        }
    }
    replaced.sort_by_key(|(s, _, _)| *s);
    for (s, e, rep) in replaced {
        out.push_str(&tag[pos..s]);
        out.push_str(&rep);
        pos = e;
    }
    let head = open_tag_of(tag);
    let tail_at = head.len().max(pos);
    out.push_str(&tag[pos..tail_at]);
    out.push_str(&appended);
    out.push_str(&tag[tail_at..]);
    out
}

/// Escapes text as [`escape_text_into`] does, but writes the C0 controls XML 1.0
/// cannot carry as character references (as XML 1.1 and the tools that made such
/// files do), so a control read from a document is written back as it came.
fn escape_xliff_text(t: &str, out: &mut String) {
    let mut last = 0;
    for (i, c) in t.char_indices() {
        if !is_xml_char(c) && c != '\0' && (c as u32) < 0x20 {
            escape_text_into(&t[last..i], out);
            out.push_str(&format!("&#x{:X};", c as u32));
            last = i + c.len_utf8();
        }
    }
    escape_text_into(&t[last..], out);
}

/// Writes `runs` with the markup of `codes` (module docs).
fn render_runs(runs: &[Run], codes: &[SourceCode]) -> WrittenRuns {
    // Flatten choices to their default form: XLIFF has no element for them.
    let mut flat: Vec<&Run> = Vec::new();
    fn flatten<'a>(runs: &'a [Run], out: &mut Vec<&'a Run>) {
        for r in runs {
            match r {
                Run::Plural(c) | Run::Select(c) => {
                    if let Some(form) = c.default_form() {
                        flatten(form, out);
                    }
                }
                other => out.push(other),
            }
        }
    }
    flatten(runs, &mut flat);
    let mut used = vec![false; codes.len()];
    let mut chosen: Vec<Option<usize>> = Vec::with_capacity(flat.len());
    let mut dropped = 0;
    for run in &flat {
        let (role, code): (Role, &Code) = match run {
            Run::Ph(c) | Run::Sub(c) => (Role::Ph, c),
            Run::PcOpen(c) => (Role::Open, c),
            Run::PcClose(c) => (Role::Close, c),
            _ => {
                chosen.push(None);
                continue;
            }
        };
        let found = codes.iter().enumerate().position(|(i, s)| !used[i] && s.role == role && s.id == code.id);
        if let Some(i) = found {
            used[i] = true;
        } else {
            dropped += 1;
        }
        chosen.push(found);
    }
    // Container halves must nest: keep a close only when it closes the innermost open.
    let mut stack: Vec<usize> = Vec::new();
    let mut keep = vec![true; flat.len()];
    for (k, c) in chosen.iter().enumerate() {
        let Some(ci) = c else { continue };
        let code = &codes[*ci];
        if !code.container {
            continue;
        }
        match code.role {
            Role::Open => stack.push(k),
            Role::Close => match stack.last() {
                Some(&top) if chosen[top].is_some_and(|o| codes[o].id == code.id) => {
                    stack.pop();
                }
                _ => keep[k] = false,
            },
            Role::Ph => {}
        }
    }
    for k in stack {
        keep[k] = false;
    }
    let mut markup = String::new();
    for (k, run) in flat.iter().enumerate() {
        if let Run::Text(t) = run {
            escape_xliff_text(t, &mut markup);
            continue;
        }
        match chosen[k] {
            Some(ci) if keep[k] => markup.push_str(&codes[ci].markup),
            Some(_) => dropped += 1,
            None => {}
        }
    }
    WrittenRuns { markup, dropped }
}

/// Tracks the line of increasing offsets.
struct Lines {
    offset: usize,
    line: u64,
}

impl Lines {
    fn line_of(&mut self, text: &str, offset: usize) -> u64 {
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
struct Parser<'a, R: Read> {
    r: XmlReader<R>,
    text: &'a str,
    doc: &'a mut XliffDocument,
    /// The `data` ids of the current 2.x unit's `originalData`.
    data_ids: Vec<String>,
    /// The languages of the current 1.x `file` (the root's for 2.x).
    langs: (Option<String>, Option<String>),
}

/// Inline content read from an element.
struct Inline {
    runs: Vec<Run>,
    codes: Vec<SourceCode>,
}

impl<R: Read> Parser<'_, R> {
    fn pos(&self) -> usize {
        self.r.position() as usize
    }

    fn start(&self) -> usize {
        self.r.event_start() as usize
    }

    fn err(&self, kind: ErrorKind, message: impl Into<String>, offset: usize) -> FormatError {
        let (line, col) = line_col(self.text, offset);
        FormatError::new(Format::Xliff, kind, message).in_file(self.doc.file.clone()).at(line, col)
    }

    fn attr(&self, name: &str) -> Option<String> {
        self.r.attr(name).map(str::to_owned)
    }

    fn run(mut self) -> Result<(), FormatError> {
        // The root.
        loop {
            match self.r.next_event()? {
                XmlEvent::Start | XmlEvent::Empty => break,
                XmlEvent::Eof => return Err(self.err(ErrorKind::Xml, "no root element (empty document)", 0)),
                _ => {}
            }
        }
        let name = self.r.name().to_owned();
        if local(&name) != "xliff" {
            return Err(self.err(
                ErrorKind::NotXliff,
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
    fn inline(&mut self) -> Result<Inline, FormatError> {
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
                    return Err(self.err(ErrorKind::Xml, "unexpected end of file", self.start()))
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
                                        ErrorKind::NotXliff,
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
    fn leading_ws(&self, text: &str) -> Option<String> {
        (text.trim().is_empty() && !text.is_empty()).then(|| text.to_owned())
    }

    /// The next child element of a unit (`Start` or `Empty`), `None` at the unit's end;
    /// white space before its `first` child becomes the unit's indent.
    ///
    /// # Errors
    /// The end of the file, an XML error.
    fn unit_child(&mut self, unit: &mut Unit, first: &mut bool) -> Result<Option<XmlEvent>, FormatError> {
        loop {
            match self.r.next_event()? {
                XmlEvent::Text => {
                    if *first {
                        if let Some(ws) = self.leading_ws(self.r.text()) {
                            unit.indent = ws;
                        }
                    }
                }
                XmlEvent::End => return Ok(None),
                XmlEvent::Eof => {
                    return Err(self.err(ErrorKind::Xml, "unexpected end of file", self.start()))
                }
                ev @ (XmlEvent::Start | XmlEvent::Empty) => {
                    *first = false;
                    return Ok(Some(ev));
                }
            }
        }
    }
}
