//! Runs ↔ TMX inline elements (TMX 1.4b §3.7: `bpt`, `ept`, `it`, `ph`, `hi`, `ut`,
//! `sub`), used by the TMX reader and writer. XLIFF 1.2 has elements of the same names
//! but does not use this mapping: the XLIFF reader keeps each inline element's markup as
//! it stands in the document and writes it back unchanged (see [`xliff`](crate::xliff)).
//!
//! # Reading (element → run)
//!
//! | element | run |
//! |---|---|
//! | `<ph x=X type=T assoc=A>native</ph>` | `Ph { id: X, kind: T + ";assoc=A", data: native }` |
//! | `<ph x=X type="x-cmem-entity:PERSON">John</ph>` | `Ph { id: X, kind: "PERSON", equiv: "John" }` (an entity) |
//! | `<bpt i=I x=X type=T>native</bpt>` | `PcOpen { id: I, kind: T + ";x=X", data: native }` |
//! | `<ept i=I>native</ept>` | `PcClose { id: I, data: native }` |
//! | `<it pos="begin"/"end" x=X type=T>native</it>` | an unpaired `PcOpen`/`PcClose { id: X, kind: T, data }` |
//! | `<hi x=X type=T>…</hi>` | `PcOpen { id: X, kind: "x-tmx-hi:" + T }`, the content, `PcClose { id: X, kind: "x-tmx-hi" }` |
//! | `<ut x=X>native</ut>` | `Ph { id: X, data: native }` |
//!
//! The suffixes `;assoc=` and `;x=` are added only when the attribute is present, and
//! split off again on export, so `assoc` and a `bpt`'s `x` survive a round trip. A
//! `<hi>` without `type` has the kind `x-tmx-hi` alone; it has no native code, so its
//! halves carry no `data`.
//!
//! **Sub-flows.** The `data` of a code is the text inside its element. When the
//! element holds a `<sub>` (TMX 1.4b §3.7.8: translatable text inside native code, such
//! as an image's alt text), that text alone cannot say where the sub-flow was, so the
//! code keeps the element's content as TMX markup instead: `data` is the native code
//! escaped as the document needs it (`&lt;` and `&amp;`; `>` only after `]]`), with
//! each `<sub>` and the inline elements inside it written as elements; its kind ends
//! in [`SUB_SUFFIX`] (`;sub`, after the other suffixes); and its `equiv`, the
//! plain-text stand-in that the plain matching key shows for a `Ph`, is the
//! translatable text of its sub-flows (several joined by a space). So
//! `<ph x="3" type="image">&lt;img alt="<sub>Start</sub>"></ph>` is
//! `Ph { id: "3", kind: "image;sub", equiv: "Start", data: "&lt;img alt=\"<sub>Start</sub>\">" }`.
//! A code without a `<sub>` keeps its native text unescaped. An entity placeholder
//! holding a `<sub>` keeps all its text as the value, with a problem.
//!
//! # Writing (run → element)
//!
//! A `PcOpen` and the next `PcClose` with the same id form a pair written as
//! `bpt`/`ept` with `i` = id; an open or close without its partner is an `it`. A pair
//! made from a `<hi>` (kinds `x-tmx-hi…` and `x-tmx-hi`, no native data) is written as
//! `<hi>` again when it nests with the other such pairs; those halves pair only with
//! each other, so a `<hi x="1">` inside a `<bpt i="1">` keeps its partner. A `Ph` is a
//! `ph` (an entity with no native data as `type="x-cmem-entity:TYPE"` with its value as
//! content). A code whose kind ends in `;sub` has its `data` written as markup when
//! reading that markup back gives the same `data` and `equiv`; otherwise its `data` is
//! escaped like any native code.
//!
//! When the runs cannot be written so that reading gives them back exactly (a `Sub`
//! run, a plural/select choice, a non-entity `Ph` with an `equiv` that is not its
//! sub-flows' text, two simultaneously open pairs sharing an id, `<hi>` pairs that
//! cross, adjacent or empty text runs, characters XML 1.0 cannot carry),
//! [`render_seg`] writes a readable approximation and reports it lossy; the TMX writer
//! then adds the exact runs as a `<prop type="x-cmem-runs">` on the `tuv`.

use std::io::Read;

use cmem_core::{is_entity_type, Choice, Code, Run};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::xml::{escape_attr_into, escape_text_into, is_xml_char, is_xml_safe, XmlEvent, XmlReader};

/// The `type` prefix that marks an entity placeholder written by cmem.
pub const ENTITY_TYPE_PREFIX: &str = "x-cmem-entity:";

/// The kind of a paired code made from a TMX `<hi>`: the whole kind of its close, and
/// of its open when the `<hi>` has no `type` (otherwise `x-tmx-hi:TYPE`). `x-` types
/// are TMX 1.4b's user-defined ones, so no standard `type` can be taken for it.
pub const HI_TYPE: &str = "x-tmx-hi";

/// The suffix of a code's kind that says its `data` is TMX markup holding `<sub>`
/// elements (see the [module docs](self)).
pub const SUB_SUFFIX: &str = ";sub";

/// The kind of the open made from a `<hi>` with this `type`.
pub fn hi_kind(kind: Option<&str>) -> String {
    match kind {
        Some(t) => format!("{HI_TYPE}:{t}"),
        None => HI_TYPE.to_owned(),
    }
}

/// The `type` attribute a `<hi>` open of this kind has (`Some(None)` for none), or
/// `None` when the kind is not a `<hi>`'s.
fn hi_type(kind: &str) -> Option<Option<&str>> {
    if kind == HI_TYPE {
        return Some(None);
    }
    kind.strip_prefix(HI_TYPE).and_then(|rest| rest.strip_prefix(':')).map(Some)
}

/// The half of a pair that can be written as `<hi>` / `</hi>`: an open of a `<hi>`
/// kind or a close of kind exactly [`HI_TYPE`], with no native data or stand-in.
fn is_hi_half(run: &Run) -> bool {
    match run {
        Run::PcOpen(c) => hi_type(&c.kind).is_some() && c.data.is_empty() && c.equiv.is_empty(),
        Run::PcClose(c) => c.kind == HI_TYPE && c.data.is_empty() && c.equiv.is_empty(),
        _ => false,
    }
}

/// The content of a code element (`ph`, `bpt`, `ept`, `it`, `ut`) as it is read: its
/// text, and the same content as canonical TMX markup with the translatable text of its
/// `<sub>`s, for a code that holds one.
#[derive(Debug, Default)]
pub struct CodeContent {
    /// Every text node, as the data of a code without sub-flows.
    flat: String,
    /// The content as markup: text escaped, elements as canonical tags.
    markup: String,
    /// The text of the sub-flows (outside the native code of codes nested in them).
    sub_text: String,
    /// `<sub>` elements seen.
    subs: usize,
    /// Open elements inside the code: name, and whether text directly in it is
    /// translatable (a `sub`, or a `hi` in one).
    open: Vec<(String, bool)>,
}

impl CodeContent {
    /// True when a `<sub>` was met.
    pub fn has_sub(&self) -> bool {
        self.subs > 0
    }

    fn in_sub(&self) -> bool {
        self.open.last().is_some_and(|(_, translatable)| *translatable)
    }

    fn text(&mut self, t: &str) {
        self.flat.push_str(t);
        if self.in_sub() {
            self.sub_text.push_str(t);
        }
        escape_markup_text(t, &mut self.markup);
    }

    fn element(&mut self, name: &str, attrs: &[(String, String)], empty: bool) {
        self.markup.push('<');
        self.markup.push_str(name);
        for (k, v) in attrs {
            self.markup.push(' ');
            self.markup.push_str(k);
            self.markup.push_str("=\"");
            escape_attr_into(v, &mut self.markup);
            self.markup.push('"');
        }
        self.markup.push_str(if empty { "/>" } else { ">" });
        let translatable = match name {
            "sub" => {
                self.subs += 1;
                if !self.sub_text.is_empty() {
                    self.sub_text.push(' ');
                }
                true
            }
            "hi" => self.in_sub(),
            _ => false,
        };
        if !empty {
            self.open.push((name.to_owned(), translatable));
        }
    }

    /// Closes the innermost open element; false when none is open (the end tag is
    /// the code element's own).
    fn end(&mut self) -> bool {
        match self.open.pop() {
            Some((name, _)) => {
                self.markup.push_str("</");
                self.markup.push_str(&name);
                self.markup.push('>');
                true
            }
            None => false,
        }
    }

    /// All the text, sub-flows' included: an entity's value.
    pub fn into_text(self) -> String {
        self.flat
    }

    /// The code's `data` and `equiv`: the markup and the sub-flows' text when it holds a
    /// `<sub>`, else the text and no stand-in.
    pub fn into_data(self) -> (String, String) {
        if self.has_sub() {
            (self.markup, self.sub_text)
        } else {
            (self.flat, String::new())
        }
    }
}

/// Reads the content of the code element whose start tag was just read, through its
/// end tag.
///
/// # Errors
/// As [`XmlReader::next_event`]; an early end of file is [`FormatErrorKind::Xml`].
pub fn read_code_content<R: Read>(xml: &mut XmlReader<R>) -> Result<CodeContent, FormatError> {
    let mut content = CodeContent::default();
    loop {
        let at = xml.position();
        match xml.next_event()? {
            XmlEvent::Text => content.text(xml.text()),
            XmlEvent::Start => content.element(xml.name(), xml.attrs(), false),
            XmlEvent::Empty => content.element(xml.name(), xml.attrs(), true),
            XmlEvent::End => {
                if !content.end() {
                    return Ok(content);
                }
            }
            XmlEvent::Eof => {
                return Err(xml.error_at(FormatErrorKind::Xml, "unexpected end of file in a code", at))
            }
        }
    }
}

/// The stand-in a code with sub-flows has when `data` is its markup exactly as the
/// reader makes it (so that writing it and reading it back gives it again); `None`
/// when it is not such markup.
fn sub_equiv(data: &str) -> Option<String> {
    let wrapped = format!("<c>{data}</c>");
    let cap = wrapped.len() as u64 + 1;
    let mut xml = XmlReader::new(wrapped.as_bytes(), Format::Tmx, "", 64, cap).ok()?;
    if xml.next_event().ok()? != XmlEvent::Start {
        return None;
    }
    let content = read_code_content(&mut xml).ok()?;
    if xml.next_event().ok()? != XmlEvent::Eof || !content.has_sub() || content.markup != data {
        return None;
    }
    Some(content.sub_text)
}

/// Escapes text for the markup of a code with sub-flows: `&` and `<` always, `>` only
/// after `]]` (where XML requires it), so the native code stays readable; CR as a
/// reference, characters XML cannot carry as U+FFFD (the writer then keeps exact runs).
fn escape_markup_text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' if out.ends_with("]]") => out.push_str("&gt;"),
            '\r' => out.push_str("&#13;"),
            c if !is_xml_char(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// Which TMX level to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    /// Level 1: text only; codes are dropped, entities written as their values,
    /// choices as their default form.
    One,
    /// Level 2: inline codes as elements (the default).
    #[default]
    Two,
}

/// `type` plus the `assoc` of a `ph`, as stored in [`Code::kind`].
pub fn ph_kind(kind: Option<&str>, assoc: Option<&str>) -> String {
    with_suffix(kind, ";assoc=", assoc)
}

/// `type` plus the `x` of a `bpt`, as stored in [`Code::kind`].
pub fn bpt_kind(kind: Option<&str>, x: Option<&str>) -> String {
    with_suffix(kind, ";x=", x)
}

fn with_suffix(kind: Option<&str>, sep: &str, extra: Option<&str>) -> String {
    let mut s = kind.unwrap_or_default().to_owned();
    if let Some(extra) = extra {
        s.push_str(sep);
        s.push_str(extra);
    }
    s
}

/// The entity type a `<ph>` with these `type` and `assoc` marks, if it is an entity
/// written by cmem (`type="x-cmem-entity:PERSON"`); its content is then the value.
pub fn ph_entity<'a>(kind: Option<&'a str>, assoc: Option<&str>) -> Option<&'a str> {
    kind.and_then(|k| k.strip_prefix(ENTITY_TYPE_PREFIX)).filter(|e| is_entity_type(e) && assoc.is_none())
}

/// The run for a `<ph>`.
pub fn ph_run(x: Option<&str>, kind: Option<&str>, assoc: Option<&str>, content: String) -> Run {
    let id = x.unwrap_or_default().to_owned();
    match ph_entity(kind, assoc) {
        Some(entity) => Run::Ph(Code { id, equiv: content, kind: entity.to_owned(), data: String::new() }),
        None => Run::Ph(Code { id, equiv: String::new(), kind: ph_kind(kind, assoc), data: content }),
    }
}

/// How one code run is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `bpt`, paired with the close at this index.
    Bpt,
    /// `ept`, closing the `bpt` at this index.
    Ept(usize),
    /// `it pos="begin"` / `it pos="end"`.
    It,
    /// `<hi>`, the start of a pair made from one.
    HiStart,
    /// `</hi>`, closing the `<hi>` at this index.
    HiEnd(usize),
}

/// Pairs opens and closes as the writer does: each `PcClose` with the latest unpaired
/// earlier `PcOpen` of the same id and the same side of [`is_hi_half`]. Returns the
/// form of each run (by index) and whether a reader would pair them back the same way.
fn plan(runs: &[Run]) -> (Vec<Option<Form>>, bool) {
    let mut forms = vec![None; runs.len()];
    let mut open: Vec<(usize, &str, bool)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        match run {
            Run::PcOpen(c) => {
                forms[i] = Some(Form::It);
                open.push((i, c.id.as_str(), is_hi_half(run)));
            }
            Run::PcClose(c) => {
                forms[i] = Some(Form::It);
                let hi = is_hi_half(run);
                if let Some(pos) = open.iter().rposition(|(_, id, h)| *id == c.id && *h == hi) {
                    let (o, _, _) = open.remove(pos);
                    forms[o] = Some(if hi { Form::HiStart } else { Form::Bpt });
                    forms[i] = Some(if hi { Form::HiEnd(o) } else { Form::Ept(o) });
                }
            }
            _ => {}
        }
    }
    // `<hi>` is an element: its pairs must nest. One that crosses another is written as
    // `bpt`/`ept` (its close's kind then makes the runs inexact).
    let mut his: Vec<usize> = Vec::new();
    for i in 0..forms.len() {
        match forms[i] {
            Some(Form::HiStart) => his.push(i),
            Some(Form::HiEnd(o)) => {
                if his.last() == Some(&o) {
                    his.pop();
                } else {
                    his.retain(|&h| h != o);
                    forms[o] = Some(Form::Bpt);
                    forms[i] = Some(Form::Ept(o));
                }
            }
            _ => {}
        }
    }
    // A reader pairs an ept with *the* open bpt of its i: two open bpts with one i
    // are an error there, so such runs cannot be written natively.
    let mut live: Vec<&str> = Vec::new();
    let mut ok = true;
    for (i, run) in runs.iter().enumerate() {
        match (run, forms[i]) {
            (Run::PcOpen(c), Some(Form::Bpt)) => {
                if live.contains(&c.id.as_str()) {
                    ok = false;
                }
                live.push(&c.id);
            }
            (Run::PcClose(c), Some(Form::Ept(_))) => {
                if let Some(p) = live.iter().rposition(|id| *id == c.id) {
                    live.remove(p);
                }
            }
            _ => {}
        }
    }
    (forms, ok)
}

/// Appends the content of a `<seg>` for `runs` to `out`. Returns true when reading it
/// back gives exactly `runs` (always false for lossy level 1 unless the runs are
/// plain text).
pub fn render_seg(runs: &[Run], level: Level, out: &mut String) -> bool {
    match level {
        Level::One => render_level1(runs, out),
        Level::Two => render_level2(runs, out),
    }
}

fn render_level1(runs: &[Run], out: &mut String) -> bool {
    let mut exact = true;
    let mut text = String::new();
    fn go(runs: &[Run], text: &mut String, exact: &mut bool) {
        for run in runs {
            match run {
                Run::Text(t) => text.push_str(t),
                Run::Ph(c) if c.is_entity() => {
                    text.push_str(&c.equiv);
                    *exact = false;
                }
                Run::Plural(ch) | Run::Select(ch) => {
                    *exact = false;
                    if let Some(form) = ch.default_form() {
                        go(form, text, exact);
                    }
                }
                _ => *exact = false,
            }
        }
    }
    go(runs, &mut text, &mut exact);
    exact &= runs.len() <= 1
        && is_xml_safe(&text)
        && runs.iter().all(|r| !matches!(r, Run::Text(t) if t.is_empty()));
    escape_text_into(&text, out);
    exact
}

fn render_level2(runs: &[Run], out: &mut String) -> bool {
    let (forms, mut exact) = plan(runs);
    // When pairs share ids, number them instead so the approximation is valid TMX.
    let use_ids = exact;
    let mut pair_numbers: Vec<(usize, usize)> = Vec::new();
    let mut prev_text = false;
    for (idx, run) in runs.iter().enumerate() {
        let is_text = matches!(run, Run::Text(_));
        match run {
            Run::Text(t) => {
                if t.is_empty() || prev_text || !is_xml_safe(t) {
                    exact = false;
                }
                escape_text_into(t, out);
            }
            Run::Ph(c) => {
                if !is_xml_safe(&c.id)
                    || !is_xml_safe(&c.kind)
                    || !is_xml_safe(&c.data)
                    || !is_xml_safe(&c.equiv)
                {
                    exact = false;
                }
                if c.is_entity() && c.data.is_empty() {
                    let kind = format!("{ENTITY_TYPE_PREFIX}{}", c.kind);
                    let content = Content::Text(&c.equiv);
                    element(out, "ph", &[("x", opt(&c.id)), ("type", Some(&kind))], content);
                } else {
                    let (kind, content) = code_content(c);
                    if (!c.equiv.is_empty() && matches!(content, Content::Text(_)))
                        || kind.starts_with("x-cmem-")
                    {
                        exact = false;
                    }
                    // TMX 1.4b allows assoc="p|f|b" only; any other suffix stays in `type`.
                    let (kind, assoc) = match split_suffix(kind, ";assoc=") {
                        (k, Some(a @ ("p" | "f" | "b"))) => (k, Some(a)),
                        _ => (kind, None),
                    };
                    element(out, "ph", &[("x", opt(&c.id)), ("type", opt(kind)), ("assoc", assoc)], content);
                }
            }
            Run::PcOpen(c) | Run::PcClose(c) => {
                let (kind, content) = code_content(c);
                if (!c.equiv.is_empty() && matches!(content, Content::Text(_)))
                    || !is_xml_safe(&c.id)
                    || !is_xml_safe(&c.kind)
                    || !is_xml_safe(&c.data)
                {
                    exact = false;
                }
                let open = matches!(run, Run::PcOpen(_));
                match forms[idx] {
                    Some(Form::Bpt) => {
                        let number = pair_numbers.len() + 1;
                        pair_numbers.push((idx, number));
                        let (kind, x) = split_suffix(kind, ";x=");
                        let i = if use_ids { c.id.clone() } else { number.to_string() };
                        element(out, "bpt", &[("i", Some(&i)), ("x", x), ("type", opt(kind))], content);
                    }
                    Some(Form::Ept(o)) => {
                        if !kind.is_empty() {
                            exact = false;
                        }
                        let number = pair_numbers.iter().find(|(p, _)| *p == o).map_or(0, |(_, n)| *n);
                        let i = if use_ids { c.id.clone() } else { number.to_string() };
                        element(out, "ept", &[("i", Some(&i))], content);
                    }
                    Some(Form::HiStart) => {
                        let kind = hi_type(&c.kind).flatten();
                        start_tag(out, "hi", &[("x", opt(&c.id)), ("type", kind)]);
                        out.push('>');
                    }
                    Some(Form::HiEnd(_)) => out.push_str("</hi>"),
                    _ => {
                        let pos = if open { "begin" } else { "end" };
                        element(
                            out,
                            "it",
                            &[("pos", Some(pos)), ("x", opt(&c.id)), ("type", opt(kind))],
                            content,
                        );
                    }
                }
            }
            Run::Sub(c) => {
                exact = false;
                let content = Content::Text(&c.equiv);
                element(out, "ph", &[("x", opt(&c.id)), ("type", Some("x-cmem-sub"))], content);
            }
            Run::Plural(ch) | Run::Select(ch) => {
                exact = false;
                let kind = if matches!(run, Run::Plural(_)) { "plural" } else { "select" };
                let mut icu = String::new();
                icu_text(ch, kind, &mut icu);
                element(out, "ph", &[("type", Some(&format!("x-cmem-{kind}")))], Content::Text(&icu));
            }
        }
        prev_text = is_text;
    }
    exact
}

/// ICU MessageFormat-like text of a choice, for the readable approximation.
fn icu_text(ch: &Choice, kind: &str, out: &mut String) {
    out.push('{');
    out.push_str(&ch.var);
    out.push_str(", ");
    out.push_str(kind);
    out.push(',');
    for (key, runs) in &ch.forms {
        out.push(' ');
        out.push_str(key);
        out.push_str(" {");
        for run in runs {
            match run {
                Run::Text(t) => out.push_str(t),
                Run::Plural(c) => icu_text(c, "plural", out),
                Run::Select(c) => icu_text(c, "select", out),
                other => {
                    if let Some(code) = other.code() {
                        out.push_str(if code.data.is_empty() { &code.equiv } else { &code.data });
                    }
                }
            }
        }
        out.push('}');
    }
    out.push('}');
}

fn opt(s: &str) -> Option<&str> {
    if s.is_empty() {
        None
    } else {
        Some(s)
    }
}

/// Splits `kind` at the last `sep`: (`type`, attribute value).
fn split_suffix<'a>(kind: &'a str, sep: &str) -> (&'a str, Option<&'a str>) {
    match kind.rfind(sep) {
        Some(at) => (&kind[..at], Some(&kind[at + sep.len()..])),
        None => (kind, None),
    }
}

/// The content of a code element as written.
#[derive(Debug, Clone, Copy)]
enum Content<'a> {
    /// Native code or a value, escaped.
    Text(&'a str),
    /// Markup with `<sub>` elements, checked to read back as it is, written as is.
    Markup(&'a str),
}

/// A code's kind as written (without [`SUB_SUFFIX`] when its data is written as
/// markup) and its content.
fn code_content(c: &Code) -> (&str, Content<'_>) {
    if let Some(kind) = c.kind.strip_suffix(SUB_SUFFIX) {
        if sub_equiv(&c.data).is_some_and(|equiv| equiv == c.equiv) {
            return (kind, Content::Markup(&c.data));
        }
    }
    (&c.kind, Content::Text(&c.data))
}

/// Appends `<name` and the attributes that have values.
fn start_tag(out: &mut String, name: &str, attrs: &[(&str, Option<&str>)]) {
    out.push('<');
    out.push_str(name);
    for (key, value) in attrs {
        if let Some(v) = value {
            out.push(' ');
            out.push_str(key);
            out.push_str("=\"");
            escape_attr_into(v, out);
            out.push('"');
        }
    }
}

fn element(out: &mut String, name: &str, attrs: &[(&str, Option<&str>)], content: Content<'_>) {
    start_tag(out, name, attrs);
    match content {
        Content::Text("") => out.push_str("/>"),
        Content::Text(text) => {
            out.push('>');
            escape_text_into(text, out);
        }
        Content::Markup(markup) => {
            out.push('>');
            out.push_str(markup);
        }
    }
    if !matches!(content, Content::Text("")) {
        out.push_str("</");
        out.push_str(name);
        out.push('>');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(runs: &[Run]) -> (String, bool) {
        let mut out = String::new();
        let exact = render_seg(runs, Level::Two, &mut out);
        (out, exact)
    }

    #[test]
    fn pairs_and_isolated_codes() {
        let runs = vec![
            Run::text("a "),
            Run::PcOpen(Code::new("1").kind("bold;x=2").data("<b>")),
            Run::text("b"),
            Run::PcClose(Code::new("1").data("</b>")),
            Run::PcClose(Code::new("7").kind("link").data("</a>")),
            Run::Ph(Code::new("3").kind("image;assoc=p").data("<img src=\"x\">")),
            Run::entity("4", "PERSON", "John"),
        ];
        let (out, exact) = render(&runs);
        assert!(exact);
        assert_eq!(
            out,
            "a <bpt i=\"1\" x=\"2\" type=\"bold\">&lt;b&gt;</bpt>b<ept i=\"1\">&lt;/b&gt;</ept>\
             <it pos=\"end\" x=\"7\" type=\"link\">&lt;/a&gt;</it>\
             <ph x=\"3\" type=\"image\" assoc=\"p\">&lt;img src=\"x\"&gt;</ph>\
             <ph x=\"4\" type=\"x-cmem-entity:PERSON\">John</ph>"
        );
    }

    #[test]
    fn lossy_runs_are_reported_and_stay_valid() {
        let dup = vec![
            Run::PcOpen(Code::new("1")),
            Run::PcOpen(Code::new("1")),
            Run::PcClose(Code::new("1")),
            Run::PcClose(Code::new("1")),
        ];
        let (out, exact) = render(&dup);
        assert!(!exact);
        assert_eq!(out, "<bpt i=\"1\"/><bpt i=\"2\"/><ept i=\"2\"/><ept i=\"1\"/>");
        assert!(!render(&[Run::text("a"), Run::text("b")]).1);
        assert!(!render(&[Run::text("\u{1}")]).1);
        assert!(!render(&[Run::Sub(Code::new("1").equiv("alt"))]).1);
        let plural = Run::Plural(Choice {
            var: "n".into(),
            forms: vec![
                ("one".into(), vec![Run::text("# file")]),
                ("other".into(), vec![Run::text("# files")]),
            ],
        });
        let (out, exact) = render(&[plural]);
        assert!(!exact);
        assert_eq!(out, "<ph type=\"x-cmem-plural\">{n, plural, one {# file} other {# files}}</ph>");
    }

    fn hi(id: &str, kind: &str) -> [Run; 2] {
        [Run::PcOpen(Code::new(id).kind(kind)), Run::PcClose(Code::new(id).kind(HI_TYPE))]
    }

    #[test]
    fn hi_pairs_are_written_as_hi() {
        let [open, close] = hi("1", "x-tmx-hi:verb");
        let [open2, close2] = hi("", HI_TYPE);
        let runs = vec![
            Run::PcOpen(Code::new("1").kind("bold").data("<b>")),
            open,
            Run::text("start"),
            open2,
            Run::text("!"),
            close2,
            close,
            Run::PcClose(Code::new("1").data("</b>")),
        ];
        let (out, exact) = render(&runs);
        assert!(exact, "{out}");
        assert_eq!(
            out,
            "<bpt i=\"1\" type=\"bold\">&lt;b&gt;</bpt><hi x=\"1\" type=\"verb\">start<hi>!</hi></hi>\
             <ept i=\"1\">&lt;/b&gt;</ept>"
        );
    }

    #[test]
    fn crossing_hi_pairs_fall_back_to_bpt() {
        let [a, a_end] = hi("1", "x-tmx-hi:a");
        let [b, b_end] = hi("2", "x-tmx-hi:b");
        let (out, exact) = render(&[a, b, a_end, b_end]);
        assert!(!exact, "the close of a bpt has no kind");
        assert_eq!(out, "<bpt i=\"1\" type=\"x-tmx-hi:a\"/><hi x=\"2\" type=\"b\"><ept i=\"1\"/></hi>");
        // A hi open with native data is no hi: an isolated code, exactly.
        let (out, exact) = render(&[Run::PcOpen(Code::new("3").kind(HI_TYPE).data("<x>"))]);
        assert!(exact);
        assert_eq!(out, "<it pos=\"begin\" x=\"3\" type=\"x-tmx-hi\">&lt;x&gt;</it>");
    }

    #[test]
    fn codes_with_sub_flows_keep_their_markup() {
        let data =
            "&lt;img alt=\"<sub>Start <bpt i=\"1\">&lt;b></bpt>here<ept i=\"1\">&lt;/b></ept></sub>\" \
                    title=\"<sub type=\"x-t\">Go</sub>\">";
        assert_eq!(sub_equiv(data).as_deref(), Some("Start here Go"));
        let ph = Run::Ph(Code::new("3").kind("image;assoc=p;sub").equiv("Start here Go").data(data));
        let (out, exact) = render(std::slice::from_ref(&ph));
        assert!(exact);
        assert_eq!(out, format!("<ph x=\"3\" type=\"image\" assoc=\"p\">{data}</ph>"));
        // Not as the reader makes it (`>` escaped, no sub, wrong stand-in): escaped
        // like any native code, and inexact when the stand-in cannot be carried.
        assert_eq!(sub_equiv("<sub>a&gt;</sub>"), None);
        assert_eq!(sub_equiv("&lt;b>"), None);
        assert_eq!(sub_equiv("<sub>a</sub"), None);
        let wrong = Run::Ph(Code::new("3").kind("image;sub").equiv("other").data("<sub>a</sub>"));
        let (out, exact) = render(&[wrong]);
        assert!(!exact);
        assert_eq!(out, "<ph x=\"3\" type=\"image;sub\">&lt;sub&gt;a&lt;/sub&gt;</ph>");
        let plain = Run::PcOpen(Code::new("1").kind("b;sub").data("<sub>"));
        let (out, exact) = render(&[plain]);
        assert!(exact);
        assert_eq!(out, "<it pos=\"begin\" x=\"1\" type=\"b;sub\">&lt;sub&gt;</it>");
    }

    #[test]
    fn level_one_keeps_text() {
        let mut out = String::new();
        let runs =
            vec![Run::text("Hi "), Run::entity("1", "PERSON", "Ann"), Run::Ph(Code::new("2").data("<br/>"))];
        assert!(!render_seg(&runs, Level::One, &mut out));
        assert_eq!(out, "Hi Ann");
    }
}
