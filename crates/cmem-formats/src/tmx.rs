//! The streaming TMX reader: TMX 1.1 (`lang`), 1.4 and 1.4b (`xml:lang`), levels 1
//! and 2, in UTF-8, UTF-16 (with a BOM) or a declared single-byte encoding.
//!
//! [`TmxReader`] is an iterator of [`Item`]s: one [`Item::Entry`] per `tu` with two or
//! more usable `tuv`s (one variant per locale, however many locales), and an
//! [`Item::Problem`] for each recoverable fault, located by line, column and `tu`
//! (index and `tuid`). Malformed XML, an undefined entity, an unsupported encoding and
//! exceeded resource caps end the iteration with a located `Err`. Only one `tu` is held
//! in memory at a time.
//!
//! # Metadata keys
//!
//! What TMX says about a `tu` beyond its text goes into [`NewEntry::metadata`], in
//! document order:
//!
//! | key | from |
//! |---|---|
//! | `tmx:ATTR` | an attribute of the `tu` (`tmx:tuid`, `tmx:creationdate`, `tmx:creationid`, `tmx:changedate`, `tmx:changeid`, `tmx:usagecount`, `tmx:lastusagedate`, `tmx:datatype`, `tmx:segtype`, `tmx:o-tmf`, …) |
//! | `tmx:srclang` | the `tu`'s `srclang` when it is `*all*` or names no `tuv` (otherwise the source variant is simply put first) |
//! | `tmx:prop:TYPE` | `<prop type="TYPE">` on the `tu` |
//! | `tmx:note` | `<note>` on the `tu` |
//! | `tmx:tuv:LOCALE:ATTR`, `tmx:tuv:LOCALE:prop:TYPE`, `tmx:tuv:LOCALE:note` | the same on a `tuv` (canonical locale) |
//! | `tmx:header:ATTR`, `tmx:header:prop:TYPE`, `tmx:header:note` | the header, copied into every entry only with [`TmxOptions::header_metadata`] |
//!
//! # cmem's own fields
//!
//! The fields of an entry that TMX has no place for travel as properties whose types
//! start with `x-cmem-` (TMX 1.4b §3.6 reserves `x-` types for user data):
//!
//! | property | on | value |
//! |---|---|---|
//! | `x-cmem-point` | `tu` | the point (`web/eu/docs`) |
//! | `x-cmem-unit` | `tu` | the unit |
//! | `x-cmem-project` | `tu` | the project id |
//! | `x-cmem-origin` | `tu`, once per origin, oldest first | the origin as JSON (`{"project_id":…,"context_fingerprint":…,"created_at":…}`) |
//! | `x-cmem-meta:KEY` | `tu` | a metadata pair with no TMX home |
//! | `x-cmem-metadata` | `tu` | the whole metadata as a JSON array of pairs, written only when the TMX layout above would not give it back in order; it then wins |
//! | `x-cmem-runs` | `tuv` | the exact runs as JSON (SPEC §1), written only when the `seg` cannot carry them (see [`inline`](crate::inline)); it then wins over the `seg` |
//!
//! Text values (point, unit, project, `x-cmem-meta:`) are written as they are, or as a
//! JSON string (starting with `"`) when they start with `"` or hold characters XML
//! cannot carry. Inline codes, entities (`<ph type="x-cmem-entity:PERSON">John</ph>`)
//! and choices are described in [`inline`](crate::inline).
//!
//! # Safety
//!
//! No DTD is processed: a `DOCTYPE` is skipped, custom entities are never expanded
//! (a reference to one is an [`ErrorKind::Xml`] error), so entity-expansion bombs
//! cannot grow. Element nesting deeper than [`TmxOptions::max_depth`] and a `tu`
//! larger than [`TmxOptions::max_tu_bytes`] are [`ErrorKind::Limit`] errors.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use cmem_core::{Locale, Metadata, NewEntry, Origin, Point, Run};

use crate::error::{ErrorKind, Format, FormatError};
use crate::inline::{bpt_kind, ph_entity, ph_run};
use crate::item::Item;
use crate::xml::{attr, XmlEvent, XmlReader};

/// Options of the TMX reader.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TmxOptions {
    /// Turn the first problem into an error.
    pub strict: bool,
    /// The deepest element nesting accepted (default 64; TMX needs about 10).
    pub max_depth: usize,
    /// The largest `tu` accepted, in bytes of UTF-8 markup (default 16 MiB); also the
    /// largest single piece of markup or text outside a `tu` (a DOCTYPE, a comment).
    pub max_tu_bytes: u64,
    /// Copy the header's attributes, properties and notes into every entry's metadata
    /// (`tmx:header:…`); off by default, since it repeats them in every entry.
    pub header_metadata: bool,
    /// The file name used in messages.
    pub file_name: String,
}

impl Default for TmxOptions {
    fn default() -> Self {
        TmxOptions {
            strict: false,
            max_depth: 64,
            max_tu_bytes: 16 * 1024 * 1024,
            header_metadata: false,
            file_name: String::new(),
        }
    }
}

/// The `<header>` of a TMX document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TmxHeader {
    /// The `version` of the `<tmx>` element (`1.4`, `1.1`).
    pub version: String,
    /// The header's attributes, in order.
    pub attributes: Vec<(String, String)>,
    /// `(type, value)` of each header `<prop>`.
    pub props: Vec<(String, String)>,
    /// Each header `<note>`.
    pub notes: Vec<String>,
}

impl TmxHeader {
    /// The value of a header attribute.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Prolog,
    Body,
    Epilog,
    Done,
}

/// A streaming TMX reader; see the [module docs](self).
pub struct TmxReader<R: Read> {
    xml: XmlReader<R>,
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

/// A byte offset in the UTF-8 stream. Inside the body, the line tracker forgets line
/// starts only when a new `tu` begins, so any offset of the current `tu` can still be
/// turned into a line and column when a problem is reported.
type Pos = u64;

/// Per-`tu` context for problems.
struct TuCtx {
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
    /// [`ErrorKind::Io`] when the file cannot be opened, [`ErrorKind::Encoding`] for an
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
    /// [`ErrorKind::Io`] when the first bytes cannot be read, [`ErrorKind::Encoding`]
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

    fn error_here(&self, kind: ErrorKind, message: impl Into<String>, offset: u64) -> FormatError {
        self.xml.error_at(kind, message, offset)
    }

    /// The error for a file that ends `place` ("in <header>"), at the current event.
    fn eof_here(&self, place: &str) -> FormatError {
        self.error_here(ErrorKind::Xml, format!("unexpected end of file {place}"), self.xml.event_start())
    }

    /// A located error at an offset of the current `tu` (see [`Pos`]).
    fn error_at(&self, kind: ErrorKind, message: impl Into<String>, pos: Pos) -> FormatError {
        self.xml.error_at(kind, message, pos)
    }

    /// The offset of the next event.
    fn here(&self) -> Pos {
        self.xml.position()
    }

    fn problem(&self, ctx: &mut TuCtx, kind: ErrorKind, message: impl Into<String>, pos: Pos) {
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
                self.problem(ctx, ErrorKind::InvalidField, message, at);
                self.xml.skip_element()?;
            }
            XmlEvent::Empty => {
                let message = format!("unexpected <{}/> in <{parent}> skipped", self.xml.name());
                self.problem(ctx, ErrorKind::InvalidField, message, at);
            }
            XmlEvent::End => return Ok(true),
            XmlEvent::Text => {}
            XmlEvent::Eof => {
                let message = format!("unexpected end of file in <{parent}>");
                return Err(self.error_at(ErrorKind::Xml, message, at));
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
                        ErrorKind::NotTmx,
                        format!("the root element is <{}>, not <tmx>", self.xml.name()),
                        self.xml.event_start(),
                    ))
                }
                XmlEvent::Text if self.xml.text().trim().is_empty() => {}
                XmlEvent::Text => {
                    return Err(self.error_here(
                        ErrorKind::Xml,
                        format!("text {:?} before the root element", truncate(self.xml.text(), 20)),
                        self.xml.event_start(),
                    ))
                }
                XmlEvent::End => {}
                XmlEvent::Eof => {
                    return Err(self.error_here(
                        ErrorKind::Xml,
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
                        ErrorKind::NotTmx,
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
                    ErrorKind::DuplicateLocale,
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
                ErrorKind::TooFewVariants,
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
            if let Some(l) = crate::import::blank_variant(&entry).cloned() {
                let message = format!("the {l} <seg> is empty or only white space; no entry was made");
                self.problem(&mut ctx, ErrorKind::MissingSegment, message, start);
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
            this.problem(ctx, ErrorKind::InvalidField, why, at);
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
                self.problem(ctx, ErrorKind::InvalidLocale, "<tuv> has no xml:lang; skipped", start);
                None
            }
            Some(l) => match self.parse_locale(l) {
                Ok(loc) => Some(loc),
                Err(e) => {
                    self.problem(ctx, ErrorKind::InvalidLocale, format!("<tuv>: {e}; skipped"), start);
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
                            match cmem_core::run::runs_from_json(&value) {
                                Ok(r) => exact_runs = Some(r),
                                Err(e) => {
                                    self.problem(
                                        ctx,
                                        ErrorKind::InvalidField,
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
                    ErrorKind::MissingSegment,
                    format!("<tuv xml:lang=\"{}\"> has no <seg>; skipped", lang.unwrap_or_default()),
                    start,
                );
                Ok(None)
            }
        }
    }

    fn read_seg(&mut self, ctx: &mut TuCtx) -> Result<Vec<Run>, FormatError> {
        let mut b = SegBuilder::default();
        // Open `hi` and unknown elements: Some(id) for a hi, None for an unknown one.
        let mut frames: Vec<Option<String>> = Vec::new();
        loop {
            let at = self.here();
            let ev = self.xml.next_event()?;
            match ev {
                XmlEvent::Text => b.text(self.xml.text()),
                XmlEvent::Start if is_code_element(self.xml.name()) => {
                    // The run is made from the start tag; its content (read next, which
                    // replaces the reader's attributes) then becomes its data or value.
                    let into_equiv = self.code(ctx, &mut b, at);
                    let content = self.xml.text_content()?;
                    if let Some(code) = b.runs.last_mut().and_then(Run::code_mut) {
                        if into_equiv {
                            code.equiv = content;
                        } else {
                            code.data = content;
                        }
                    }
                }
                XmlEvent::Empty if is_code_element(self.xml.name()) => {
                    self.code(ctx, &mut b, at);
                }
                XmlEvent::Start if self.xml.name() == "hi" => {
                    let id = self.xml.attr("x").unwrap_or_default().to_owned();
                    b.runs.push(Run::PcOpen(cmem_core::Code {
                        id: id.clone(),
                        kind: self.xml.attr("type").unwrap_or_default().to_owned(),
                        ..Default::default()
                    }));
                    frames.push(Some(id));
                }
                XmlEvent::Empty if self.xml.name() == "hi" => {
                    let id = self.xml.attr("x").unwrap_or_default().to_owned();
                    let kind = self.xml.attr("type").unwrap_or_default().to_owned();
                    b.runs.push(Run::PcOpen(cmem_core::Code { id: id.clone(), kind, ..Default::default() }));
                    b.runs.push(Run::PcClose(cmem_core::Code { id, ..Default::default() }));
                }
                XmlEvent::Start => {
                    self.problem(
                        ctx,
                        ErrorKind::InvalidField,
                        format!("unknown element <{}> in <seg>; its text is kept", self.xml.name()),
                        at,
                    );
                    frames.push(None);
                }
                XmlEvent::Empty => {
                    self.problem(
                        ctx,
                        ErrorKind::InvalidField,
                        format!("unknown element <{}/> in <seg> skipped", self.xml.name()),
                        at,
                    );
                }
                XmlEvent::End => match frames.pop() {
                    Some(Some(id)) => b.runs.push(Run::PcClose(cmem_core::Code { id, ..Default::default() })),
                    Some(None) => {}
                    None => break,
                },
                XmlEvent::Eof => {
                    return Err(self.error_at(ErrorKind::Xml, "unexpected end of file in <seg>", at))
                }
            }
        }
        for (i, at) in std::mem::take(&mut b.open) {
            self.problem(
                ctx,
                ErrorKind::UnbalancedCode,
                format!("<bpt i=\"{i}\"> has no matching <ept>"),
                at,
            );
        }
        Ok(b.runs)
    }

    /// Pushes the run of the code element just started (`ph`, `bpt`, `ept`, `it`, `ut`)
    /// with no content yet; true when its content is an entity's value (`equiv`)
    /// rather than native data.
    fn code(&self, ctx: &mut TuCtx, b: &mut SegBuilder, at: Pos) -> bool {
        let x = self.xml.attr("x");
        let kind = self.xml.attr("type");
        let code = |id: &str, kind: String| cmem_core::Code {
            id: id.to_owned(),
            equiv: String::new(),
            kind,
            data: String::new(),
        };
        match self.xml.name() {
            "ph" => {
                let assoc = self.xml.attr("assoc");
                b.runs.push(ph_run(x, kind, assoc, String::new()));
                return ph_entity(kind, assoc).is_some();
            }
            "ut" => b.runs.push(Run::Ph(code(x.unwrap_or_default(), String::new()))),
            "bpt" => {
                let i = self.xml.attr("i");
                if i.is_none() {
                    self.problem(ctx, ErrorKind::UnbalancedCode, "<bpt> has no i attribute", at);
                }
                let i = i.unwrap_or_default();
                if b.open.iter().any(|(o, _)| o == i) {
                    self.problem(
                        ctx,
                        ErrorKind::UnbalancedCode,
                        format!("<bpt i=\"{i}\"> reuses the i of an open <bpt>"),
                        at,
                    );
                } else {
                    b.open.push((i.to_owned(), at));
                }
                b.runs.push(Run::PcOpen(code(i, bpt_kind(kind, x))));
            }
            "ept" => {
                let i = self.xml.attr("i").unwrap_or_default();
                match b.open.iter().position(|(o, _)| o == i) {
                    Some(p) => {
                        b.open.remove(p);
                    }
                    None => {
                        self.problem(
                            ctx,
                            ErrorKind::UnbalancedCode,
                            format!("<ept i=\"{i}\"> has no matching <bpt>"),
                            at,
                        );
                    }
                }
                b.runs.push(Run::PcClose(code(i, String::new())));
            }
            _ => {
                // it
                let c = code(x.unwrap_or_default(), kind.unwrap_or_default().to_owned());
                match self.xml.attr("pos") {
                    Some("begin") => b.runs.push(Run::PcOpen(c)),
                    Some("end") => b.runs.push(Run::PcClose(c)),
                    other => {
                        self.problem(
                            ctx,
                            ErrorKind::InvalidField,
                            format!(
                                "<it> pos is {:?}, not \"begin\" or \"end\"; kept as a placeholder",
                                other.unwrap_or("")
                            ),
                            at,
                        );
                        b.runs.push(Run::Ph(c));
                    }
                }
            }
        }
        false
    }
}

/// Runs being built for one `seg`.
#[derive(Default)]
struct SegBuilder {
    runs: Vec<Run>,
    /// Open `bpt`s: `i` and where.
    open: Vec<(String, Pos)>,
}

impl SegBuilder {
    fn text(&mut self, t: &str) {
        if let Some(Run::Text(last)) = self.runs.last_mut() {
            last.push_str(t);
        } else if !t.is_empty() {
            self.runs.push(Run::Text(t.to_owned()));
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

fn is_code_element(name: &str) -> bool {
    matches!(name, "ph" | "bpt" | "ept" | "it" | "ut")
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
