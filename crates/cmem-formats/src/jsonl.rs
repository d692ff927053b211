//! JSON Lines: one entry per line, in one of two shapes.
//!
//! - **Full**: the serde form of [`NewEntry`] (or of a stored [`Entry`], whose `id` is
//!   ignored on import): `{"variants":[{"locale":"en","runs":[{"text":"Hi"}]},…],
//!   "point":…,"unit":…,"project_id":…,"origins":[…],"metadata":[[k,v],…]}`. Lossless.
//! - **Simple**: `{"source":"…","target":"…","source_locale":"en","target_locale":"de",…}`.
//!   The locales may be left out and given by [`JsonlOptions`] instead (the shape of
//!   the bench corpus: `{"id","source","target","origin","context","plural","key"}`).
//!   Every other field is kept as metadata `jsonl:FIELD` (a string as is, any other
//!   value as its JSON text; `null` is dropped). The strings become runs through the
//!   optional [`RunsHook`] (an inline-code recognizer); without it each is one `Text`.
//!
//! [`JsonlMode::Auto`] (the default) reads a line with `variants` as full, else simple.
//! A line that is not a valid entry is a located [`FormatErrorKind::InvalidLine`] problem and
//! is skipped (an error with `strict`); blank lines are skipped.

use std::io::{BufRead, Read, Write};

use cmem_core::{Entry, Locale, NewEntry, Run, Variant};
use serde_json::{Map, Value};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::Item;

/// Turns a simple line's source and target strings into runs.
pub use crate::item::RunsHook;

/// Which shape the lines have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonlMode {
    /// Full when the line has `variants`, else simple.
    #[default]
    Auto,
    /// `{"source","target",…}`.
    Simple,
    /// The serde form of an entry.
    Full,
}

/// Options of the JSON Lines reader and writer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct JsonlOptions {
    /// The shape of the lines.
    pub mode: JsonlMode,
    /// The source locale of simple lines without `source_locale`; on export, the
    /// variant written as `source`.
    pub source_locale: Option<Locale>,
    /// The target locale of simple lines without `target_locale`; on export, the
    /// variant written as `target`.
    pub target_locale: Option<Locale>,
    /// Turn the first problem into an error.
    pub strict: bool,
    /// The longest line accepted, in bytes (default 16 MiB).
    pub max_line_bytes: u64,
    /// The file name used in messages.
    pub file_name: String,
}

impl Default for JsonlOptions {
    fn default() -> Self {
        JsonlOptions {
            mode: JsonlMode::Auto,
            source_locale: None,
            target_locale: None,
            strict: false,
            max_line_bytes: 16 * 1024 * 1024,
            file_name: String::new(),
        }
    }
}

/// A streaming JSON Lines reader.
pub struct JsonlReader<'h, R: BufRead> {
    input: R,
    options: JsonlOptions,
    hook: Option<RunsHook<'h>>,
    line: u64,
    bytes: u64,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> std::fmt::Debug for JsonlReader<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonlReader")
            .field("options", &self.options)
            .field("hook", &self.hook.is_some())
            .field("line", &self.line)
            .field("bytes", &self.bytes)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<'h, R: BufRead> JsonlReader<'h, R> {
    /// A reader over `input`, with an optional hook for simple lines' strings.
    pub fn new(input: R, options: JsonlOptions, hook: Option<RunsHook<'h>>) -> Self {
        JsonlReader { input, options, hook, line: 0, bytes: 0, buf: Vec::new(), done: false }
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    fn problem(&self, message: String, column: Option<u64>) -> FormatError {
        let e = FormatError::new(Format::Jsonl, FormatErrorKind::InvalidLine, message)
            .in_file(self.options.file_name.clone())
            .for_entry(self.line, None);
        match column {
            Some(c) => e.at(self.line, c),
            None => e.at_line(self.line),
        }
    }

    /// Reads the next non-blank line; `None` at the end.
    fn read_line(&mut self) -> Result<Option<()>, FormatError> {
        loop {
            self.buf.clear();
            let cap = self.options.max_line_bytes;
            let n = (&mut self.input).take(cap.saturating_add(1)).read_until(b'\n', &mut self.buf).map_err(
                |e| {
                    FormatError::io(Format::Jsonl, "read failed", e)
                        .in_file(self.options.file_name.clone())
                        .at_line(self.line + 1)
                },
            )?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            self.bytes += n as u64;
            if n as u64 > cap && !self.buf.ends_with(b"\n") {
                return Err(FormatError::new(
                    Format::Jsonl,
                    FormatErrorKind::Limit,
                    format!("line is longer than the cap of {cap} bytes"),
                )
                .in_file(self.options.file_name.clone())
                .at_line(self.line));
            }
            if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.buf.drain(..3);
            }
            if !self.buf.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some(()));
            }
        }
    }

    fn parse_line(&self) -> Result<NewEntry, FormatError> {
        let text = std::str::from_utf8(self.buf.trim_ascii_end())
            .map_err(|e| self.problem(format!("invalid UTF-8 at byte {}", e.valid_up_to()), None))?;
        let value: Line = serde_json::from_str(text).map_err(|e| {
            if e.is_data() {
                self.problem("a line must be a JSON object".to_owned(), None)
            } else {
                self.problem(format!("invalid JSON: {e}"), Some(e.column() as u64))
            }
        })?;
        let full = match self.options.mode {
            JsonlMode::Full => true,
            JsonlMode::Simple => false,
            JsonlMode::Auto => value.0.iter().any(|(k, _)| k == "variants"),
        };
        let entry = if full { self.full(value.0.into_iter().collect())? } else { self.simple(value.0)? };
        entry.validate().map_err(|e| self.problem(format!("invalid entry: {e}"), None))?;
        if let Some(l) = crate::item::blank_variant(&entry) {
            return Err(self.problem(format!("the {l} segment is empty or only white space"), None));
        }
        Ok(entry)
    }

    fn full(&self, map: Map<String, Value>) -> Result<NewEntry, FormatError> {
        let value = Value::Object(map);
        if value.get("id").is_some() {
            serde_json::from_value::<Entry>(value)
                .map(|e| e.to_new())
                .map_err(|e| self.problem(format!("invalid entry: {e}"), None))
        } else {
            serde_json::from_value::<NewEntry>(value)
                .map_err(|e| self.problem(format!("invalid entry: {e}"), None))
        }
    }

    fn simple(&self, fields: Vec<(String, Value)>) -> Result<NewEntry, FormatError> {
        let get = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let string = |key: &str| -> Result<Option<&str>, FormatError> {
            match get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(self.problem(format!("{key:?} must be a string, not {other}"), None)),
            }
        };
        let source =
            string("source")?.ok_or_else(|| self.problem("no \"source\" string".to_owned(), None))?;
        let target =
            string("target")?.ok_or_else(|| self.problem("no \"target\" string".to_owned(), None))?;
        let locale = |key: &str, default: &Option<Locale>| -> Result<Locale, FormatError> {
            match string(key)? {
                Some(tag) => Locale::parse(tag).map_err(|e| {
                    FormatError::new(Format::Jsonl, FormatErrorKind::InvalidLocale, format!("{key}: {e}"))
                        .in_file(self.options.file_name.clone())
                        .at_line(self.line)
                        .for_entry(self.line, None)
                }),
                None => default.clone().ok_or_else(|| {
                    let (side, kind) = if key == "source_locale" {
                        ("source", FormatErrorKind::NoSourceLanguage)
                    } else {
                        ("target", FormatErrorKind::NoTargetLanguage)
                    };
                    self.problem(
                        format!(
                            "no {key:?} on the line and no {side} language given; give one in the options"
                        ),
                        None,
                    )
                    .with_kind(kind)
                }),
            }
        };
        let source_locale = locale("source_locale", &self.options.source_locale)?;
        let target_locale = locale("target_locale", &self.options.target_locale)?;
        let (source_runs, target_runs) = match self.hook {
            Some(hook) => hook(source, target),
            None => (text_runs(source), text_runs(target)),
        };
        let mut metadata = Vec::new();
        for (k, v) in &fields {
            if matches!(k.as_str(), "source" | "target" | "source_locale" | "target_locale") {
                continue;
            }
            match v {
                Value::Null => {}
                Value::String(s) => metadata.push((format!("jsonl:{k}"), s.clone())),
                other => metadata.push((format!("jsonl:{k}"), other.to_string())),
            }
        }
        Ok(NewEntry {
            variants: vec![
                Variant::new(source_locale, source_runs),
                Variant::new(target_locale, target_runs),
            ],
            metadata,
            ..NewEntry::default()
        })
    }
}

/// A JSON object with its fields in line order (serde_json's `Map` sorts them).
struct Line(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Line {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Line;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Line, A::Error> {
                let mut fields = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    fields.push((k, v));
                }
                Ok(Line(fields))
            }
        }
        d.deserialize_map(V)
    }
}

fn text_runs(s: &str) -> Vec<Run> {
    if s.is_empty() {
        Vec::new()
    } else {
        vec![Run::text(s)]
    }
}

impl<R: BufRead> Iterator for JsonlReader<'_, R> {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_line() {
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
            Ok(Some(())) => match self.parse_line() {
                Ok(entry) => Some(Ok(Item::Entry(entry))),
                Err(p) if self.options.strict => {
                    self.done = true;
                    Some(Err(p))
                }
                Err(p) => Some(Ok(Item::Problem(p))),
            },
        }
    }
}

/// The text a simple line carries for runs: text, codes as their native data (or
/// `equiv` when they have none, as entities do), choices as their default form.
pub use cmem_core::model::run::surface_text;

/// A streaming JSON Lines writer.
pub struct JsonlWriter<W: Write> {
    out: W,
    options: JsonlOptions,
    written: u64,
    skipped: u64,
    buf: Vec<u8>,
}

impl<W: Write> std::fmt::Debug for JsonlWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonlWriter")
            .field("options", &self.options)
            .field("written", &self.written)
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

fn write_err(e: impl std::fmt::Display) -> FormatError {
    FormatError::new(Format::Jsonl, FormatErrorKind::Io, format!("write failed: {e}"))
}

impl<W: Write> JsonlWriter<W> {
    /// A writer; `options.mode` chooses the shape ([`JsonlMode::Auto`] writes full).
    pub fn new(out: W, options: JsonlOptions) -> Self {
        JsonlWriter { out, options, written: 0, skipped: 0, buf: Vec::with_capacity(1024) }
    }

    /// Entries written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Entries not written in simple mode because they lack a requested locale.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Writes one entry as a line. In simple mode the source is the variant of
    /// `source_locale` (the first when none is given) and the target that of
    /// `target_locale` (the second when none is given); an entry without a requested
    /// locale is skipped and counted ([`skipped`](JsonlWriter::skipped)); `jsonl:FIELD`
    /// metadata become fields again; everything else is not written (simple lines are
    /// lossy: codes become their native text, entities their values).
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        self.buf.clear();
        if self.options.mode == JsonlMode::Simple {
            // A locale asked for must be there; otherwise the first and second variants.
            let pick = |loc: &Option<Locale>, fallback: usize| match loc {
                Some(l) => entry
                    .variants
                    .iter()
                    .position(|v| v.locale == *l)
                    .or_else(|| entry.variants.iter().position(|v| v.locale.matches(l)))
                    .map(|i| &entry.variants[i]),
                None => entry.variants.get(fallback),
            };
            let (Some(s), Some(t)) =
                (pick(&self.options.source_locale, 0), pick(&self.options.target_locale, 1))
            else {
                self.skipped += 1;
                return Ok(());
            };
            // Fields in a fixed, readable order (serde_json's map would sort them).
            let (source, target) = (surface_text(&s.runs), surface_text(&t.runs));
            let mut fields: Vec<(&str, &str)> = vec![
                ("source", &source),
                ("target", &target),
                ("source_locale", s.locale.as_str()),
                ("target_locale", t.locale.as_str()),
            ];
            for (k, v) in &entry.metadata {
                if let Some(field) = k.strip_prefix("jsonl:") {
                    if !fields.iter().any(|(f, _)| *f == field) {
                        fields.push((field, v));
                    }
                }
            }
            self.buf.push(b'{');
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    self.buf.push(b',');
                }
                serde_json::to_writer(&mut self.buf, k).map_err(write_err)?;
                self.buf.push(b':');
                serde_json::to_writer(&mut self.buf, v).map_err(write_err)?;
            }
            self.buf.push(b'}');
        } else {
            serde_json::to_writer(&mut self.buf, entry).map_err(write_err)?;
        }
        self.buf.push(b'\n');
        self.out.write_all(&self.buf).map_err(write_err)?;
        self.written += 1;
        Ok(())
    }

    /// Flushes and returns the output.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when flushing fails.
    pub fn finish(mut self) -> Result<W, FormatError> {
        self.out.flush().map_err(write_err)?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::collect_items;

    fn read(text: &str, options: JsonlOptions) -> (Vec<NewEntry>, Vec<FormatError>) {
        collect_items(JsonlReader::new(text.as_bytes(), options, None)).unwrap()
    }

    #[test]
    fn bench_shape_with_default_locales() {
        let options = JsonlOptions {
            source_locale: Some(Locale::parse("en").unwrap()),
            target_locale: Some(Locale::parse("de").unwrap()),
            ..JsonlOptions::default()
        };
        let line = r#"{"id": "en-de-0000003", "source": "Column %COLUMNNUMBER", "target": "Spalte %COLUMNNUMBER", "origin": "libreoffice-l10n-de/acc", "context": "RID_STR_ACC_COLUMN_NUM", "plural": false, "key": null}"#;
        let (entries, problems) = read(&format!("{line}\n\n"), options);
        assert!(problems.is_empty());
        let e = &entries[0];
        assert_eq!(e.variants[1].runs, vec![Run::text("Spalte %COLUMNNUMBER")]);
        let keys: Vec<&str> = e.metadata.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["jsonl:id", "jsonl:origin", "jsonl:context", "jsonl:plural"]);
        assert_eq!(e.metadata[3].1, "false");
    }

    #[test]
    fn hook_makes_runs() {
        let hook = |s: &str, t: &str| (vec![Run::text(s.to_uppercase())], vec![Run::text(t.to_uppercase())]);
        let text = r#"{"source":"a","target":"b","source_locale":"en","target_locale":"fr"}"#;
        let (entries, _) =
            collect_items(JsonlReader::new(text.as_bytes(), JsonlOptions::default(), Some(&hook))).unwrap();
        assert_eq!(entries[0].variants[0].runs, vec![Run::text("A")]);
    }

    #[test]
    fn bad_lines_are_located_problems() {
        let text = "{\"source\":\"a\",\"target\":\"b\",\"source_locale\":\"en\",\"target_locale\":\"fr\"}\n{\"source\": oops}\n[1]\n{\"variants\":[]}\n";
        let (entries, problems) = read(text, JsonlOptions::default());
        assert_eq!(entries.len(), 1);
        assert_eq!(problems.len(), 3);
        assert_eq!(problems[0].line(), Some(2));
        assert_eq!(problems[0].column(), Some(12));
        assert!(
            problems[0].to_string().starts_with("jsonl: line 2, column 12: invalid JSON"),
            "{}",
            problems[0]
        );
        assert_eq!(problems[2].line(), Some(4));
        let strict = JsonlOptions { strict: true, ..JsonlOptions::default() };
        let err = collect_items(JsonlReader::new(text.as_bytes(), strict, None)).unwrap_err();
        assert_eq!(err.line(), Some(2));
    }
}
