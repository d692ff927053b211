//! The `tu` loop of [`TmxReader`]: the prolog and header, each `tu` with its
//! properties and notes, each `tuv` with its locale; `seg` content is read in
//! [`seg`](super::seg).

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use cmem_core::{Locale, Metadata, NewEntry, Origin, Point, Run};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::Item;
use crate::xml::{attr, XmlEvent, XmlReader};

use super::{TmxHeader, TmxOptions};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Prolog,
    Body,
    Epilog,
    Done,
}

/// A streaming TMX reader; see the [module docs](super).
pub struct TmxReader<R: Read> {
    pub(super) xml: XmlReader<R>,
    options: TmxOptions,
    header: TmxHeader,
    header_srclang: Option<Locale>,
    header_metadata: Metadata,
    state: State,
    pending: VecDeque<Result<Item, FormatError>>,
    tu_index: u64,
    /// Recently parsed `xml:lang` values: files use a handful of tags, and parsing
    /// BCP 47 is far slower than comparing strings.
    locales: Vec<(String, Locale)>,
}

impl<R: Read> std::fmt::Debug for TmxReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TmxReader")
            .field("xml", &self.xml)
            .field("options", &self.options)
            .field("header", &self.header)
            .field("tu_index", &self.tu_index)
            .finish_non_exhaustive()
    }
}

/// A byte offset in the UTF-8 stream. Inside the body, the line tracker forgets line
/// starts only when a new `tu` begins, so any offset of the current `tu` can still be
/// turned into a line and column when a problem is reported.
pub(super) type Pos = u64;

/// Per-`tu` context for problems.
pub(super) struct TuCtx {
    index: u64,
    tuid: Option<String>,
    problems: Vec<FormatError>,
}

/// One `tuv` as read.
struct Tuv {
    locale: Locale,
    runs: Vec<Run>,
    metadata: Metadata,
}

impl TmxReader<File> {
    /// Opens a TMX file; its name is used in messages.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when the file cannot be opened, [`FormatErrorKind::Encoding`] for an
    /// unsupported declared encoding.
    pub fn open(path: &Path, mut options: TmxOptions) -> Result<Self, FormatError> {
        if options.file_name.is_empty() {
            options.file_name = path.display().to_string();
        }
        let file = File::open(path)
            .map_err(|e| FormatError::io(Format::Tmx, "cannot open", e).in_file(options.file_name.clone()))?;
        TmxReader::new(file, options)
    }
}

impl<R: Read> TmxReader<R> {
    /// A reader over `input`.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when the first bytes cannot be read, [`FormatErrorKind::Encoding`]
    /// for an unsupported declared encoding.
    pub fn new(input: R, options: TmxOptions) -> Result<Self, FormatError> {
        let xml =
            XmlReader::new(input, Format::Tmx, &options.file_name, options.max_depth, options.max_tu_bytes)?;
        Ok(TmxReader {
            xml,
            options,
            header: TmxHeader::default(),
            header_srclang: None,
            header_metadata: Vec::new(),
            state: State::Prolog,
            pending: VecDeque::new(),
            tu_index: 0,
            locales: Vec::new(),
        })
    }

    /// The header, once the reader is past it (after the first item).
    pub fn header(&self) -> &TmxHeader {
        &self.header
    }

    /// Raw bytes read from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.xml.bytes_read()
    }

    /// `tu` elements seen so far.
    pub fn units_read(&self) -> u64 {
        self.tu_index
    }

    fn error_here(&self, kind: FormatErrorKind, message: impl Into<String>, offset: u64) -> FormatError {
        self.xml.error_at(kind, message, offset)
    }

    /// The error for a file that ends `place` ("in <header>"), at the current event.
    fn eof_here(&self, place: &str) -> FormatError {
        self.error_here(
            FormatErrorKind::Xml,
            format!("unexpected end of file {place}"),
            self.xml.event_start(),
        )
    }

    /// A located error at an offset of the current `tu` (see [`Pos`]).
    pub(super) fn error_at(
        &self,
        kind: FormatErrorKind,
        message: impl Into<String>,
        pos: Pos,
    ) -> FormatError {
        self.xml.error_at(kind, message, pos)
    }

    /// The offset of the next event.
    pub(super) fn here(&self) -> Pos {
        self.xml.position()
    }

    pub(super) fn problem(
        &self,
        ctx: &mut TuCtx,
        kind: FormatErrorKind,
        message: impl Into<String>,
        pos: Pos,
    ) {
        let p = self.error_at(kind, message, pos).for_entry(ctx.index, ctx.tuid.as_deref());
        ctx.problems.push(p);
    }

    /// The events of a `<tu>` or `<tuv>` (`parent`) its own arms do not take: an
    /// unexpected element is reported and skipped, text ignored. True at the parent's end.
    ///
    /// # Errors
    /// The end of the file, an XML error skipping an element.
    fn other_child(
        &mut self,
        ctx: &mut TuCtx,
        ev: XmlEvent,
        parent: &str,
        at: Pos,
    ) -> Result<bool, FormatError> {
        match ev {
            XmlEvent::Start => {
                let message = format!("unexpected <{}> in <{parent}> skipped", self.xml.name());
                self.problem(ctx, FormatErrorKind::InvalidField, message, at);
                self.xml.skip_element()?;
            }
            XmlEvent::Empty => {
                let message = format!("unexpected <{}/> in <{parent}> skipped", self.xml.name());
                self.problem(ctx, FormatErrorKind::InvalidField, message, at);
            }
            XmlEvent::End => return Ok(true),
            XmlEvent::Text => {}
            XmlEvent::Eof => {
                let message = format!("unexpected end of file in <{parent}>");
                return Err(self.error_at(FormatErrorKind::Xml, message, at));
            }
        }
        Ok(false)
    }

    fn advance(&mut self) -> Result<(), FormatError> {
        loop {
            match self.state {
                State::Done => return Ok(()),
                State::Prolog => self.read_prolog()?,
                State::Body => {
                    let start = self.xml.position();
                    match self.xml.next_event()? {
                        XmlEvent::Start if self.xml.name() == "tu" => {
                            // Keeps the line starts of the whole tu (see `Pos`) and caps its size.
                            self.xml.begin_unit(start, self.options.max_tu_bytes);
                            self.read_tu(self.xml.attrs().to_vec(), start, false)?;
                            self.xml.end_unit();
                            if !self.pending.is_empty() {
                                return Ok(());
                            }
                        }
                        XmlEvent::Empty if self.xml.name() == "tu" => {
                            self.read_tu(self.xml.attrs().to_vec(), start, true)?;
                            if !self.pending.is_empty() {
                                return Ok(());
                            }
                        }
                        XmlEvent::Start => self.xml.skip_element()?,
                        XmlEvent::End if self.xml.depth() <= 1 => self.state = State::Epilog,
                        XmlEvent::Eof => return Err(self.eof_here("inside <body>")),
                        _ => {}
                    }
                }
                State::Epilog => match self.xml.next_event()? {
                    XmlEvent::Eof => {
                        self.state = State::Done;
                        return Ok(());
                    }
                    XmlEvent::Start => self.xml.skip_element()?,
                    _ => {}
                },
            }
        }
    }

    fn read_prolog(&mut self) -> Result<(), FormatError> {
        // The root element.
        loop {
            match self.xml.next_event()? {
                XmlEvent::Start if self.xml.name() == "tmx" => {
                    self.header.version = self.xml.attr("version").unwrap_or_default().to_owned();
                    break;
                }
                XmlEvent::Start | XmlEvent::Empty => {
                    return Err(self.error_here(
                        FormatErrorKind::NotTmx,
                        format!("the root element is <{}>, not <tmx>", self.xml.name()),
                        self.xml.event_start(),
                    ))
                }
                XmlEvent::Text if self.xml.text().trim().is_empty() => {}
                XmlEvent::Text => {
                    return Err(self.error_here(
                        FormatErrorKind::Xml,
                        format!("text {:?} before the root element", truncate(self.xml.text(), 20)),
                        self.xml.event_start(),
                    ))
                }
                XmlEvent::End => {}
                XmlEvent::Eof => {
                    return Err(self.error_here(
                        FormatErrorKind::Xml,
                        "no root element: the file is empty or has no <tmx> element",
                        self.xml.event_start(),
                    ))
                }
            }
        }
        // Header, then body.
        loop {
            match self.xml.next_event()? {
                XmlEvent::Start if self.xml.name() == "header" => {
                    self.set_header(self.xml.attrs().to_vec());
                    self.read_header_children()?;
                }
                XmlEvent::Empty if self.xml.name() == "header" => self.set_header(self.xml.attrs().to_vec()),
                XmlEvent::Start if self.xml.name() == "body" => {
                    self.finish_header();
                    self.state = State::Body;
                    return Ok(());
                }
                XmlEvent::Empty if self.xml.name() == "body" => {
                    self.finish_header();
                    self.state = State::Epilog;
                    return Ok(());
                }
                XmlEvent::Start => self.xml.skip_element()?,
                XmlEvent::End => {
                    return Err(self.error_here(
                        FormatErrorKind::NotTmx,
                        "<tmx> has no <body>",
                        self.xml.event_start(),
                    ));
                }
                XmlEvent::Eof => return Err(self.eof_here("before <body>")),
                _ => {}
            }
        }
    }

    fn set_header(&mut self, attrs: Vec<(String, String)>) {
        self.header.attributes = attrs;
    }

    fn read_header_children(&mut self) -> Result<(), FormatError> {
        loop {
            match self.xml.next_event()? {
                XmlEvent::Start if self.xml.name() == "prop" => {
                    let kind = self.xml.attr("type").unwrap_or_default().to_owned();
                    let value = self.xml.text_content()?;
                    self.header.props.push((kind, value));
                }
                XmlEvent::Start if self.xml.name() == "note" => {
                    let value = self.xml.text_content()?;
                    self.header.notes.push(value);
                }
                XmlEvent::Start => self.xml.skip_element()?,
                XmlEvent::End => return Ok(()),
                XmlEvent::Eof => return Err(self.eof_here("in <header>")),
                _ => {}
            }
        }
    }

    fn finish_header(&mut self) {
        self.header_srclang = self.header.attribute("srclang").and_then(|s| Locale::parse(s).ok());
        if self.options.header_metadata {
            let mut m = Vec::new();
            for (k, v) in &self.header.attributes {
                m.push((format!("tmx:header:{k}"), v.clone()));
            }
            for (k, v) in &self.header.props {
                m.push((format!("tmx:header:prop:{k}"), v.clone()));
            }
            for n in &self.header.notes {
                m.push(("tmx:header:note".to_owned(), n.clone()));
            }
            self.header_metadata = m;
        }
    }

    fn read_tu(&mut self, attrs: Vec<(String, String)>, start: u64, empty: bool) -> Result<(), FormatError> {
        self.tu_index += 1;
        let mut ctx = TuCtx {
            index: self.tu_index,
            tuid: attr(&attrs, "tuid").map(str::to_owned),
            problems: Vec::new(),
        };
        let mut entry = NewEntry::default();
        let mut metadata: Metadata = self.header_metadata.clone();
        let mut srclang: Option<String> = None;
        for (k, v) in attrs {
            if k == "srclang" {
                srclang = Some(v);
            } else {
                metadata.push((format!("tmx:{k}"), v));
            }
        }
        let mut metadata_override: Option<Metadata> = None;
        let mut tuvs: Vec<Tuv> = Vec::new();
        if !empty {
            loop {
                let at = self.here();
                match self.xml.next_event()? {
                    XmlEvent::Start if self.xml.name() == "prop" => {
                        let kind = self.xml.attr("type").unwrap_or_default().to_owned();
                        let value = self.xml.text_content()?;
                        self.tu_prop(
                            &mut ctx,
                            &mut entry,
                            &mut metadata,
                            &mut metadata_override,
                            kind,
                            value,
                            at,
                        );
                    }
                    XmlEvent::Empty if self.xml.name() == "prop" => {
                        let kind = self.xml.attr("type").unwrap_or_default().to_owned();
                        self.tu_prop(
                            &mut ctx,
                            &mut entry,
                            &mut metadata,
                            &mut metadata_override,
                            kind,
                            String::new(),
                            at,
                        );
                    }
                    XmlEvent::Start if self.xml.name() == "note" => {
                        let value = self.xml.text_content()?;
                        metadata.push(("tmx:note".to_owned(), value));
                    }
                    XmlEvent::Empty if self.xml.name() == "note" => {
                        metadata.push(("tmx:note".to_owned(), String::new()))
                    }
                    XmlEvent::Start if self.xml.name() == "tuv" => {
                        if let Some(tuv) = self.read_tuv(&mut ctx, self.xml.attrs().to_vec(), at, false)? {
                            tuvs.push(tuv);
                        }
                    }
                    XmlEvent::Empty if self.xml.name() == "tuv" => {
                        if let Some(tuv) = self.read_tuv(&mut ctx, self.xml.attrs().to_vec(), at, true)? {
                            tuvs.push(tuv);
                        }
                    }
                    other => {
                        if self.other_child(&mut ctx, other, "tu", at)? {
                            break;
                        }
                    }
                }
            }
        }
        // Duplicate locales: keep the first.
        let mut kept: Vec<Tuv> = Vec::with_capacity(tuvs.len());
        for tuv in tuvs {
            if kept.iter().any(|k| k.locale == tuv.locale) {
                self.problem(
                    &mut ctx,
                    FormatErrorKind::DuplicateLocale,
                    format!("a second <tuv> for {} skipped", tuv.locale),
                    start,
                );
            } else {
                kept.push(tuv);
            }
        }
        if kept.len() < 2 {
            let locales: Vec<&str> = kept.iter().map(|t| t.locale.as_str()).collect();
            self.problem(
                &mut ctx,
                FormatErrorKind::TooFewVariants,
                format!(
                    "<tu> has {} usable <tuv> ({}); an entry needs two, so none was made",
                    kept.len(),
                    if locales.is_empty() { "none".to_owned() } else { locales.join(", ") }
                ),
                start,
            );
        } else {
            // The source variant first: the tu's srclang, else the header's.
            let src = match srclang.as_deref() {
                Some(s) => Locale::parse(s).ok(),
                None => self.header_srclang.clone(),
            };
            let src_pos = src.as_ref().and_then(|s| kept.iter().position(|t| &t.locale == s));
            if let (Some(s), None) = (&srclang, src_pos) {
                metadata.push(("tmx:srclang".to_owned(), s.clone()));
            }
            if let Some(p) = src_pos {
                let tuv = kept.remove(p);
                kept.insert(0, tuv);
            }
            for tuv in kept {
                metadata.extend(tuv.metadata);
                entry.variants.push(cmem_core::Variant::new(tuv.locale, tuv.runs));
            }
            entry.metadata = metadata_override.unwrap_or(metadata);
            if let Some(l) = crate::item::blank_variant(&entry).cloned() {
                let message = format!("the {l} <seg> is empty or only white space; no entry was made");
                self.problem(&mut ctx, FormatErrorKind::MissingSegment, message, start);
                entry.variants.clear();
            }
        }
        let strict = self.options.strict;
        for p in ctx.problems {
            if strict {
                self.pending.push_back(Err(p));
                self.state = State::Done;
                return Ok(());
            }
            self.pending.push_back(Ok(Item::Problem(p)));
        }
        if !entry.variants.is_empty() {
            self.pending.push_back(Ok(Item::Entry(entry)));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn tu_prop(
        &self,
        ctx: &mut TuCtx,
        entry: &mut NewEntry,
        metadata: &mut Metadata,
        metadata_override: &mut Option<Metadata>,
        kind: String,
        value: String,
        at: Pos,
    ) {
        let bad = |this: &Self, ctx: &mut TuCtx, why: String| {
            this.problem(ctx, FormatErrorKind::InvalidField, why, at);
        };
        match kind.as_str() {
            "x-cmem-point" => match decode_value(&value)
                .and_then(|v| Point::parse(&v).map_err(|e| e.to_string()))
            {
                Ok(p) => entry.point = p,
                Err(e) => {
                    bad(self, ctx, format!("<prop type=\"x-cmem-point\"> {value:?}: {e}; kept as metadata"));
                    metadata.push((format!("tmx:prop:{kind}"), value));
                }
            },
            "x-cmem-unit" | "x-cmem-project" => match decode_value(&value) {
                Ok(v) if kind == "x-cmem-unit" => entry.unit = v,
                Ok(v) => entry.project_id = v,
                Err(e) => {
                    bad(self, ctx, format!("<prop type=\"{kind}\"> {value:?}: {e}; kept as metadata"));
                    metadata.push((format!("tmx:prop:{kind}"), value));
                }
            },
            "x-cmem-origin" => match serde_json::from_str::<Origin>(&value) {
                Ok(o) => entry.origins.push(o),
                Err(e) => {
                    bad(self, ctx, format!("<prop type=\"x-cmem-origin\"> {value:?}: {e}; kept as metadata"));
                    metadata.push((format!("tmx:prop:{kind}"), value));
                }
            },
            "x-cmem-metadata" => match serde_json::from_str::<Metadata>(&value) {
                Ok(m) => *metadata_override = Some(m),
                Err(e) => {
                    bad(self, ctx, format!("<prop type=\"x-cmem-metadata\">: {e}; kept as metadata"));
                    metadata.push((format!("tmx:prop:{kind}"), value));
                }
            },
            _ => {
                if let Some(key) = kind.strip_prefix("x-cmem-meta:") {
                    match decode_value(&value) {
                        Ok(v) => metadata.push((key.to_owned(), v)),
                        Err(e) => {
                            bad(
                                self,
                                ctx,
                                format!("<prop type=\"{kind}\"> {value:?}: {e}; kept as metadata"),
                            );
                            metadata.push((format!("tmx:prop:{kind}"), value));
                        }
                    }
                } else {
                    metadata.push((format!("tmx:prop:{kind}"), value));
                }
            }
        }
    }

    fn parse_locale(&mut self, tag: &str) -> Result<Locale, cmem_core::Error> {
        if let Some((_, l)) = self.locales.iter().find(|(t, _)| t == tag) {
            return Ok(l.clone());
        }
        let l = Locale::parse(tag)?;
        if self.locales.len() >= 32 {
            self.locales.remove(0);
        }
        self.locales.push((tag.to_owned(), l.clone()));
        Ok(l)
    }

    fn read_tuv(
        &mut self,
        ctx: &mut TuCtx,
        attrs: Vec<(String, String)>,
        start: Pos,
        empty: bool,
    ) -> Result<Option<Tuv>, FormatError> {
        let lang = attr(&attrs, "xml:lang").or_else(|| attr(&attrs, "lang")).map(str::to_owned);
        let locale = match &lang {
            None => {
                self.problem(ctx, FormatErrorKind::InvalidLocale, "<tuv> has no xml:lang; skipped", start);
                None
            }
            Some(l) => match self.parse_locale(l) {
                Ok(loc) => Some(loc),
                Err(e) => {
                    self.problem(ctx, FormatErrorKind::InvalidLocale, format!("<tuv>: {e}; skipped"), start);
                    None
                }
            },
        };
        let prefix = format!("tmx:tuv:{}:", locale.as_ref().map_or("", Locale::as_str));
        let mut metadata: Metadata = attrs
            .into_iter()
            .filter(|(k, _)| k != "xml:lang" && k != "lang")
            .map(|(k, v)| (format!("{prefix}{k}"), v))
            .collect();
        let mut runs: Option<Vec<Run>> = None;
        let mut exact_runs: Option<Vec<Run>> = None;
        let mut seg_problems = Vec::new();
        if !empty {
            loop {
                let at = self.here();
                match self.xml.next_event()? {
                    XmlEvent::Start if self.xml.name() == "prop" => {
                        let kind = self.xml.attr("type").unwrap_or_default().to_owned();
                        let value = self.xml.text_content()?;
                        if kind == "x-cmem-runs" {
                            match cmem_core::model::run::runs_from_json(&value) {
                                Ok(r) => exact_runs = Some(r),
                                Err(e) => {
                                    self.problem(
                                        ctx,
                                        FormatErrorKind::InvalidField,
                                        format!("<prop type=\"x-cmem-runs\">: {e}"),
                                        at,
                                    );
                                    metadata.push((format!("{prefix}prop:{kind}"), value));
                                }
                            }
                        } else {
                            metadata.push((format!("{prefix}prop:{kind}"), value));
                        }
                    }
                    XmlEvent::Empty if self.xml.name() == "prop" => {
                        let kind = self.xml.attr("type").unwrap_or_default().to_owned();
                        metadata.push((format!("{prefix}prop:{kind}"), String::new()));
                    }
                    XmlEvent::Start if self.xml.name() == "note" => {
                        let value = self.xml.text_content()?;
                        metadata.push((format!("{prefix}note"), value));
                    }
                    XmlEvent::Empty if self.xml.name() == "note" => {
                        metadata.push((format!("{prefix}note"), String::new()))
                    }
                    XmlEvent::Start if self.xml.name() == "seg" => {
                        let mut sub =
                            TuCtx { index: ctx.index, tuid: ctx.tuid.clone(), problems: Vec::new() };
                        let r = self.read_seg(&mut sub)?;
                        seg_problems.extend(sub.problems);
                        if runs.is_none() {
                            runs = Some(r);
                        }
                    }
                    XmlEvent::Empty if self.xml.name() == "seg" => {
                        if runs.is_none() {
                            runs = Some(Vec::new());
                        }
                    }
                    other => {
                        if self.other_child(ctx, other, "tuv", at)? {
                            break;
                        }
                    }
                }
            }
        }
        // Exact runs written by cmem win over their readable approximation in the seg.
        if exact_runs.is_none() {
            ctx.problems.extend(seg_problems);
        }
        let Some(locale) = locale else { return Ok(None) };
        match exact_runs.or(runs) {
            Some(runs) => Ok(Some(Tuv { locale, runs, metadata })),
            None => {
                self.problem(
                    ctx,
                    FormatErrorKind::MissingSegment,
                    format!("<tuv xml:lang=\"{}\"> has no <seg>; skipped", lang.unwrap_or_default()),
                    start,
                );
                Ok(None)
            }
        }
    }
}

impl<R: Read> Iterator for TmxReader<R> {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if self.state == State::Done {
                return None;
            }
            if let Err(e) = self.advance() {
                self.state = State::Done;
                return Some(Err(e));
            }
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Decodes an `x-cmem-` text value: a JSON string when it starts with `"`, else as is.
pub(crate) fn decode_value(value: &str) -> Result<String, String> {
    if value.starts_with('"') {
        serde_json::from_str::<String>(value).map_err(|e| format!("not a JSON string: {e}"))
    } else {
        Ok(value.to_owned())
    }
}
