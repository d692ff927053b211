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
//! are translation jobs, not memories, a few megabytes even for a large document.
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
//! Each inline element becomes a run whose [`Code::data`](cmem_core::Code::data) is the element's markup as it
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
//!
//! A 2.x candidate (`mtc:match`) is self-contained: the ids of its inline elements (and
//! the `startRef`/`copyOf` that name them) are prefixed with the match's id plus `-`,
//! so they repeat no id of the unit, and it carries its own `originalData` with a copy
//! of each unit `data` its codes refer to.
//!
//! # Files
//!
//! This file holds the document model and its public API; `read` reads the root and
//! inline content for both versions, `read_v1` the 1.0–1.2 units and `read_v2` the
//! 2.0–2.2 units; `write` splices the edits into the bytes, with `render` (runs written
//! with the document's codes) and `tag` (attributes set in a raw start tag).

mod read;
mod read_v1;
mod read_v2;
mod render;
mod tag;
mod write;

use std::collections::HashMap;
use std::io::Read;

use cmem_core::Run;

use crate::decode::{Encoding, XmlInput};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::xml::XmlReader;

use read::Parser;
use render::render_runs;

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
pub struct XliffSegment {
    /// The `id` of its `trans-unit` / `unit`.
    pub unit_id: String,
    /// The 1.x `resname` of its `trans-unit` / the 2.x `name` of its `unit`: the key of
    /// the string in the resource it came from, which survives a renumbering of ids.
    pub resname: Option<String>,
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

impl XliffSegment {
    /// The segment's key in its document, as context matches compare it: the resource
    /// name when the unit has one (ids are renumbered when a document is generated
    /// again), else the unit id.
    pub fn context_key(&self) -> &str {
        self.resname.as_deref().filter(|r| !r.is_empty()).unwrap_or(&self.unit_id)
    }

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
    /// The candidate's source: the memory's source, or with
    /// [`adapted`](Self::adapted) the segment's own.
    pub source: Vec<Run>,
    /// The candidate's target: the memory's target (its codes those of the document),
    /// or with [`adapted`](Self::adapted) that target adapted to the segment's source.
    pub target: Vec<Run>,
    /// Its score, 0–100.
    pub quality: u8,
    /// Who proposes it (`cmem`).
    pub origin: String,
    /// `None` for the memory's pair as stored; for a target whose text was adapted to
    /// the segment's source (a repaired mark or number, an entity value), what was
    /// changed (`punctuation, number`). Written as the candidate's label: a 1.x
    /// `<note>`, a 2.x `subType="cmem:adapted"`.
    pub adapted: Option<String>,
    /// `None` but for the alternative of a fill the word repair changed: its target is
    /// the target without the word repair, and this what the fill replaced
    /// (`Datei → Ordner`). Written as a 1.x `<note>cmem: without the word repair (…)`,
    /// a 2.x `subType="cmem:unrepaired"`.
    pub unrepaired: Option<String>,
    /// An assembled match: a stretch of the segment's source and the memory's
    /// translation of it (a fragment), never a fill. Written as a 2.x `mtc:match` of
    /// `type="am"`; 1.x has no place for one (recycle notes fragments instead).
    pub assembled: bool,
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
    /// 1.x: the end of its last child in the XLIFF namespace: where `alt-trans` go.
    alt_at: usize,
    /// 2.x: end of the unit start tag, and an existing `mtc:matches` (its end tag start).
    unit_start_tag_end: usize,
    matches_end: Option<usize>,
    /// The prefix of that `mtc:matches` (declared on the root or on itself).
    matches_prefix: Option<String>,
    /// 2.x: each `<data>` of its `originalData`: (id, the element as it stands).
    data: Vec<(String, String)>,
    /// 2.x: the start of an existing `notes` element's end tag, or the span of an empty
    /// `<notes/>`, where notes go.
    notes_end: Option<usize>,
    notes_empty: Option<(usize, usize)>,
    /// 2.x: the start of the first `originalData`, `segment` or `ignorable`: where a new
    /// `notes` goes.
    core_start: Option<usize>,
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
    /// The minor 1.x version (0, 1 or 2), which decides the attributes written: 1.0
    /// has no `state-qualifier`, 1.0 and 1.1 no `alttranstype`.
    v1_minor: u8,
    /// The document ends its lines with `\r\n` (its first line end does): what is
    /// inserted does too.
    crlf: bool,
    /// The core namespace prefix with its colon (`xlf:`), or empty.
    prefix: String,
    mtc_prefix: Option<String>,
    root_start_tag: Span,
    source_locale: Option<String>,
    target_locale: Option<String>,
    segments: Vec<XliffSegment>,
    info: Vec<SegInfo>,
    units: Vec<Unit>,
    /// Replacements: (start, end, text) in the decoded text.
    edits: Vec<(usize, usize, String)>,
    /// Segment targets set so far, by segment index (1.x seg-source units are rebuilt).
    new_targets: HashMap<usize, (String, Option<String>, Option<String>)>,
    candidates: Vec<(usize, Vec<Candidate>)>,
    /// Notes for the units of segments: (segment index, origin, text), in the order added.
    notes: Vec<(usize, String, String)>,
    /// The 2.x `trgLang` to declare when targets are written into a document without one.
    new_trg_lang: Option<String>,
    /// 1.x seg-source: the source `mrk` of each segment, by segment index.
    mrk_spans: HashMap<usize, Span>,
    file: String,
}

impl XliffDocument {
    /// Adds a segment with where it lies, keeping the two lists in step; its index.
    fn push_segment(&mut self, segment: XliffSegment, info: SegInfo) -> usize {
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
            let kind = if e.kind() == std::io::ErrorKind::InvalidData {
                FormatErrorKind::Encoding
            } else {
                FormatErrorKind::Io
            };
            FormatError::new(Format::Xliff, kind, e.to_string()).in_file(file).at(1, 1)
        };
        let mut decoded = Vec::new();
        let mut input = XmlInput::new(raw.as_slice()).map_err(decode_err)?;
        input.read_to_end(&mut decoded).map_err(decode_err)?;
        let encoding = input.encoding();
        let text = String::from_utf8(decoded).map_err(|e| {
            FormatError::new(Format::Xliff, FormatErrorKind::Encoding, format!("invalid UTF-8: {e}"))
                .in_file(file)
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
            v1_minor: 2,
            crlf: false,
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
            notes: Vec::new(),
            mrk_spans: HashMap::new(),
            new_trg_lang: None,
            file: file.to_owned(),
        };
        Parser::new(reader, &text, &mut doc).run()?;
        doc.raw = raw;
        doc.crlf = text.find('\n').is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r');
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
    pub fn segments(&self) -> &[XliffSegment] {
        &self.segments
    }

    /// The file name given to [`parse`](XliffDocument::parse).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// True when an edit is pending.
    pub fn is_modified(&self) -> bool {
        !self.new_targets.is_empty() || !self.candidates.is_empty() || !self.notes.is_empty()
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

    /// Adds a note from `origin` to the unit of segment `index`: a 1.x
    /// `<note from="cmem">`, a 2.x `<note category="cmem">` in the unit's `notes`.
    pub fn add_note(&mut self, index: usize, origin: &str, text: &str) {
        if index < self.segments.len() {
            self.notes.push((index, origin.to_owned(), text.to_owned()));
        }
    }
}
