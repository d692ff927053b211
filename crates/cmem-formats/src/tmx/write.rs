//! The streaming TMX 1.4b writer (UTF-8).
//!
//! Each entry becomes one `tu`; what the [reader](crate::tmx) keeps as metadata is
//! written back to its TMX place (attributes, `prop`, `note`, on the `tu` or a `tuv`),
//! cmem's own fields as `x-cmem-…` properties, runs as level-2 inline elements (or
//! text only at [`Level::One`]). Reading the output back gives the same entries:
//! where TMX cannot carry something exactly, the writer adds the exact form
//! (`x-cmem-runs`, `x-cmem-metadata`) beside the readable one. No XLIFF markup is ever
//! written inside a `seg`.

use std::io::Write;

use cmem_core::{Locale, Metadata, NewEntry};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::inline::{render_seg, Level};
use crate::xml::{escape_attr_into, escape_text_into, is_xml_char, is_xml_safe};

/// `tu` attributes the metadata `tmx:ATTR` may become (TMX 1.4b §3.1.2); `srclang` is
/// written from the variant order instead.
const TU_ATTRS: &[&str] = &[
    "tuid",
    "o-encoding",
    "datatype",
    "usagecount",
    "lastusagedate",
    "creationtool",
    "creationtoolversion",
    "creationdate",
    "creationid",
    "changedate",
    "segtype",
    "changeid",
    "o-tmf",
];

/// `tuv` attributes the metadata `tmx:tuv:LOCALE:ATTR` may become.
const TUV_ATTRS: &[&str] = &[
    "o-encoding",
    "datatype",
    "usagecount",
    "lastusagedate",
    "creationtool",
    "creationtoolversion",
    "creationdate",
    "creationid",
    "changedate",
    "changeid",
    "o-tmf",
];

/// Options of the TMX writer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TmxWriteOptions {
    /// Level 2 (inline codes, the default) or level 1 (text only, lossy).
    pub level: Level,
    /// The header's `srclang`; `*all*` when `None`. Entries whose first variant has
    /// another locale say so with their own `srclang`.
    pub source_locale: Option<Locale>,
    /// The header's `creationtool`.
    pub creation_tool: String,
    /// The header's `creationtoolversion`.
    pub creation_tool_version: String,
    /// The header's `datatype`.
    pub datatype: String,
}

impl Default for TmxWriteOptions {
    fn default() -> Self {
        TmxWriteOptions {
            level: Level::Two,
            source_locale: None,
            creation_tool: "cmem".to_owned(),
            creation_tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            datatype: "plaintext".to_owned(),
        }
    }
}

/// A streaming TMX 1.4b writer: [`new`](TmxWriter::new) writes the header,
/// [`write_entry`](TmxWriter::write_entry) one `tu`, [`finish`](TmxWriter::finish)
/// the end.
pub struct TmxWriter<W: Write> {
    out: W,
    options: TmxWriteOptions,
    buf: String,
    written: u64,
}

impl<W: Write> std::fmt::Debug for TmxWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TmxWriter")
            .field("options", &self.options)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

fn io_err(e: std::io::Error) -> FormatError {
    FormatError::io(Format::Tmx, "write failed", e)
}

impl<W: Write> TmxWriter<W> {
    /// Writes the XML declaration and the header.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn new(mut out: W, options: TmxWriteOptions) -> Result<Self, FormatError> {
        let mut s =
            String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE tmx SYSTEM \"tmx14.dtd\">\n");
        s.push_str("<tmx version=\"1.4\">\n  <header");
        let src = options.source_locale.as_ref().map_or("*all*", Locale::as_str);
        for (k, v) in [
            ("creationtool", options.creation_tool.as_str()),
            ("creationtoolversion", options.creation_tool_version.as_str()),
            ("datatype", options.datatype.as_str()),
            ("segtype", "sentence"),
            ("adminlang", "en"),
            ("srclang", src),
            ("o-tmf", "cmem"),
        ] {
            attr_into(&mut s, k, v);
        }
        s.push_str("/>\n  <body>\n");
        out.write_all(s.as_bytes()).map_err(io_err)?;
        Ok(TmxWriter { out, options, buf: String::with_capacity(4096), written: 0 })
    }

    /// Entries written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Writes one entry as a `tu`.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        self.buf.clear();
        render_tu(entry, &self.options, &mut self.buf)?;
        self.out.write_all(self.buf.as_bytes()).map_err(io_err)?;
        self.written += 1;
        Ok(())
    }

    /// Closes the document and flushes; returns the output.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn finish(mut self) -> Result<W, FormatError> {
        self.out.write_all(b"  </body>\n</tmx>\n").map_err(io_err)?;
        self.out.flush().map_err(io_err)?;
        Ok(self.out)
    }
}

/// A `prop` or `note` to write.
enum Elem {
    Prop(String, String),
    Note(String),
}

/// Where each metadata pair goes, and what a reader will give back from it.
#[derive(Default)]
struct Layout {
    tu_attrs: Vec<(String, String)>,
    tu_elems: Vec<Elem>,
    tuv_attrs: Vec<Vec<(String, String)>>,
    tuv_elems: Vec<Vec<Elem>>,
    /// What reading gives back, per place: tu attributes, tu elements, each tuv's.
    back_tu_attrs: Metadata,
    back_tu_elems: Metadata,
    back_tuv: Vec<Metadata>,
}

fn layout(entry: &NewEntry) -> Layout {
    let n = entry.variants.len();
    let mut l = Layout {
        tuv_attrs: vec![Vec::new(); n],
        tuv_elems: (0..n).map(|_| Vec::new()).collect(),
        back_tuv: vec![Vec::new(); n],
        ..Layout::default()
    };
    for (k, v) in &entry.metadata {
        if place(&mut l, entry, k, v) {
            continue;
        }
        // No TMX home: an x-cmem-meta property (the key must survive as an attribute).
        let back_key: String = k.chars().map(|c| if is_xml_char(c) { c } else { '\u{FFFD}' }).collect();
        l.tu_elems.push(Elem::Prop(format!("x-cmem-meta:{k}"), encode_value(v)));
        l.back_tu_elems.push((back_key, v.clone()));
    }
    l
}

/// Places one pair at its TMX home; false when it has none.
fn place(l: &mut Layout, entry: &NewEntry, k: &str, v: &str) -> bool {
    let Some(rest) = k.strip_prefix("tmx:") else { return false };
    if !is_xml_safe(v) || !is_xml_safe(rest) {
        return false;
    }
    let pair = || (k.to_owned(), v.to_owned());
    if TU_ATTRS.contains(&rest) {
        // segtype is an enumeration in the DTD; anything else would make the file invalid.
        let valid = rest != "segtype" || matches!(v, "block" | "paragraph" | "sentence" | "phrase");
        if !valid || l.tu_attrs.iter().any(|(a, _)| a == rest) {
            return false;
        }
        l.tu_attrs.push((rest.to_owned(), v.to_owned()));
        l.back_tu_attrs.push(pair());
        return true;
    }
    if let Some(t) = rest.strip_prefix("prop:") {
        if t.starts_with("x-cmem-") {
            return false;
        }
        l.tu_elems.push(Elem::Prop(t.to_owned(), v.to_owned()));
        l.back_tu_elems.push(pair());
        return true;
    }
    if rest == "note" {
        l.tu_elems.push(Elem::Note(v.to_owned()));
        l.back_tu_elems.push(pair());
        return true;
    }
    if let Some(tuv) = rest.strip_prefix("tuv:") {
        let Some((loc, what)) = tuv.split_once(':') else { return false };
        let Some(i) = entry.variants.iter().position(|var| var.locale.as_str() == loc) else { return false };
        if TUV_ATTRS.contains(&what) {
            if l.tuv_attrs[i].iter().any(|(a, _)| a == what) {
                return false;
            }
            l.tuv_attrs[i].push((what.to_owned(), v.to_owned()));
        } else if let Some(t) = what.strip_prefix("prop:") {
            if t == "x-cmem-runs" {
                return false;
            }
            l.tuv_elems[i].push(Elem::Prop(t.to_owned(), v.to_owned()));
        } else if what == "note" {
            l.tuv_elems[i].push(Elem::Note(v.to_owned()));
        } else {
            return false;
        }
        l.back_tuv[i].push(pair());
        return true;
    }
    false
}

/// An `x-cmem-` text value: as is, or a JSON string when it starts with `"` or holds
/// characters XML cannot carry.
pub(crate) fn encode_value(v: &str) -> String {
    if is_xml_safe(v) && !v.starts_with('"') {
        v.to_owned()
    } else {
        xml_safe_json(serde_json::Value::String(v.to_owned()).to_string())
    }
}

/// JSON text with the characters XML cannot carry (U+FFFE, U+FFFF; serde_json already
/// escapes C0 controls) escaped as `\uXXXX`; they only occur inside JSON strings.
pub(crate) fn xml_safe_json(json: String) -> String {
    if is_xml_safe(&json) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if is_xml_char(c) {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        }
    }
    out
}

fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String, FormatError> {
    serde_json::to_string(value).map(xml_safe_json).map_err(|e| {
        FormatError::new(Format::Tmx, FormatErrorKind::InvalidField, format!("cannot encode {what}: {e}"))
    })
}

fn attr_into(out: &mut String, k: &str, v: &str) {
    out.push(' ');
    out.push_str(k);
    out.push_str("=\"");
    escape_attr_into(v, out);
    out.push('"');
}

fn elem_into(out: &mut String, indent: &str, e: &Elem) {
    match e {
        Elem::Prop(t, v) => prop_into(out, indent, t, v),
        Elem::Note(v) => {
            out.push_str(indent);
            out.push_str("<note>");
            escape_text_into(v, out);
            out.push_str("</note>\n");
        }
    }
}

/// Writes `<prop type="t">v</prop>` on a line of its own.
fn prop_into(out: &mut String, indent: &str, t: &str, v: &str) {
    out.push_str(indent);
    out.push_str("<prop");
    attr_into(out, "type", t);
    out.push('>');
    escape_text_into(v, out);
    out.push_str("</prop>\n");
}

fn render_tu(entry: &NewEntry, options: &TmxWriteOptions, out: &mut String) -> Result<(), FormatError> {
    let l = layout(entry);
    out.push_str("    <tu");
    for (k, v) in &l.tu_attrs {
        attr_into(out, k, v);
    }
    if let (Some(src), Some(first)) = (&options.source_locale, entry.variants.first()) {
        if &first.locale != src {
            attr_into(out, "srclang", first.locale.as_str());
        }
    }
    out.push_str(">\n");
    let props = |out: &mut String, t: &str, v: &str| prop_into(out, "      ", t, v);
    if !entry.point.is_root() {
        props(out, "x-cmem-point", &encode_value(entry.point.as_str()));
    }
    if !entry.unit.is_empty() {
        props(out, "x-cmem-unit", &encode_value(&entry.unit));
    }
    if !entry.project_id.is_empty() {
        props(out, "x-cmem-project", &encode_value(&entry.project_id));
    }
    for o in &entry.origins {
        props(out, "x-cmem-origin", &to_json(o, "an origin")?);
    }
    // What a reader gives back, in its order, compared without building it.
    let back = l.back_tu_attrs.iter().chain(&l.back_tu_elems).chain(l.back_tuv.iter().flatten());
    if !back.eq(&entry.metadata) {
        props(out, "x-cmem-metadata", &to_json(&entry.metadata, "metadata")?);
    }
    for e in &l.tu_elems {
        elem_into(out, "      ", e);
    }
    let mut seg = String::new();
    for (i, variant) in entry.variants.iter().enumerate() {
        out.push_str("      <tuv");
        attr_into(out, "xml:lang", variant.locale.as_str());
        for (k, v) in &l.tuv_attrs[i] {
            attr_into(out, k, v);
        }
        out.push_str(">\n");
        for e in &l.tuv_elems[i] {
            elem_into(out, "        ", e);
        }
        seg.clear();
        let exact = render_seg(&variant.runs, options.level, &mut seg);
        if !exact && options.level == Level::Two {
            prop_into(out, "        ", "x-cmem-runs", &to_json(&variant.runs, "runs")?);
        }
        out.push_str("        <seg>");
        out.push_str(&seg);
        out.push_str("</seg>\n      </tuv>\n");
    }
    out.push_str("    </tu>\n");
    Ok(())
}
