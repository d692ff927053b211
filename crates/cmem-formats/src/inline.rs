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
//! | `<hi x=X type=T>…</hi>` | `PcOpen { id: X, kind: T }`, the content, `PcClose { id: X }` |
//! | `<ut x=X>native</ut>` | `Ph { id: X, data: native }` |
//!
//! The suffixes `;assoc=` and `;x=` are added only when the attribute is present, and
//! split off again on export, so `assoc` and a `bpt`'s `x` survive a round trip. The
//! `data` of a code is all the text inside its element, **including the text of any
//! `<sub>`** (TMX 1.4b §3.7.8): that is the native code with its sub-flow in place, so
//! export restores the native code, though no longer marked as a sub-flow.
//!
//! # Writing (run → element)
//!
//! A `PcOpen` and the next `PcClose` with the same id form a pair written as
//! `bpt`/`ept` with `i` = id; an open or close without its partner is an `it`. A `Ph`
//! is a `ph` (an entity with no native data as `type="x-cmem-entity:TYPE"` with its
//! value as content). When the runs cannot be written so that reading gives them back
//! exactly (a `Sub` run, a plural/select choice, a non-entity `Ph` with an `equiv`,
//! two simultaneously open pairs sharing an id, adjacent or empty text runs,
//! characters XML 1.0 cannot carry), [`render_seg`] writes a readable approximation
//! and reports it lossy; the TMX writer then adds the exact runs as a
//! `<prop type="x-cmem-runs">` on the `tuv`.

use cmem_core::{is_entity_type, Choice, Code, Run};

use crate::xml::{escape_attr_into, escape_text_into, is_xml_safe};

/// The `type` prefix that marks an entity placeholder written by cmem.
pub const ENTITY_TYPE_PREFIX: &str = "x-cmem-entity:";

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
}

/// Pairs opens and closes as the writer does: each `PcClose` with the latest unpaired
/// earlier `PcOpen` of the same id. Returns the form of each run (by index) and whether
/// a reader would pair them back the same way.
fn plan(runs: &[Run]) -> (Vec<Option<Form>>, bool) {
    let mut forms = vec![None; runs.len()];
    let mut open: Vec<(usize, &str)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        match run {
            Run::PcOpen(c) => {
                forms[i] = Some(Form::It);
                open.push((i, c.id.as_str()));
            }
            Run::PcClose(c) => {
                forms[i] = Some(Form::It);
                if let Some(pos) = open.iter().rposition(|(_, id)| *id == c.id) {
                    let (o, _) = open.remove(pos);
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
                    element(out, "ph", &[("x", opt(&c.id)), ("type", Some(&kind))], &c.equiv);
                } else {
                    if !c.equiv.is_empty() || c.kind.starts_with("x-cmem-") {
                        exact = false;
                    }
                    // TMX 1.4b allows assoc="p|f|b" only; any other suffix stays in `type`.
                    let (kind, assoc) = match split_suffix(&c.kind, ";assoc=") {
                        (k, Some(a @ ("p" | "f" | "b"))) => (k, Some(a)),
                        _ => (c.kind.as_str(), None),
                    };
                    element(out, "ph", &[("x", opt(&c.id)), ("type", opt(kind)), ("assoc", assoc)], &c.data);
                }
            }
            Run::PcOpen(c) | Run::PcClose(c) => {
                if !c.equiv.is_empty()
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
                        let (kind, x) = split_suffix(&c.kind, ";x=");
                        let i = if use_ids { c.id.clone() } else { number.to_string() };
                        element(out, "bpt", &[("i", Some(&i)), ("x", x), ("type", opt(kind))], &c.data);
                    }
                    Some(Form::Ept(o)) => {
                        if !c.kind.is_empty() {
                            exact = false;
                        }
                        let number = pair_numbers.iter().find(|(p, _)| *p == o).map_or(0, |(_, n)| *n);
                        let i = if use_ids { c.id.clone() } else { number.to_string() };
                        element(out, "ept", &[("i", Some(&i))], &c.data);
                    }
                    _ => {
                        let pos = if open { "begin" } else { "end" };
                        element(
                            out,
                            "it",
                            &[("pos", Some(pos)), ("x", opt(&c.id)), ("type", opt(&c.kind))],
                            &c.data,
                        );
                    }
                }
            }
            Run::Sub(c) => {
                exact = false;
                element(out, "ph", &[("x", opt(&c.id)), ("type", Some("x-cmem-sub"))], &c.equiv);
            }
            Run::Plural(ch) | Run::Select(ch) => {
                exact = false;
                let kind = if matches!(run, Run::Plural(_)) { "plural" } else { "select" };
                let mut icu = String::new();
                icu_text(ch, kind, &mut icu);
                element(out, "ph", &[("type", Some(&format!("x-cmem-{kind}")))], &icu);
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

fn element(out: &mut String, name: &str, attrs: &[(&str, Option<&str>)], content: &str) {
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
    if content.is_empty() {
        out.push_str("/>");
    } else {
        out.push('>');
        escape_text_into(content, out);
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

    #[test]
    fn level_one_keeps_text() {
        let mut out = String::new();
        let runs =
            vec![Run::text("Hi "), Run::entity("1", "PERSON", "Ann"), Run::Ph(Code::new("2").data("<br/>"))];
        assert!(!render_seg(&runs, Level::One, &mut out));
        assert_eq!(out, "Hi Ann");
    }
}
