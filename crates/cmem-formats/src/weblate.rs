//! Weblate's translation-memory JSON: what Weblate's memory export (`dump_memory`, the
//! "Download JSON" of a memory) writes and its memory import reads.
//!
//! The file is one JSON array of objects
//! `{"source","context","target","source_language","target_language","origin","category","status"}`:
//! `context` may be left out; `category` is 1 for a memory uploaded from a file, 2 for
//! the shared memory, 10,000,000 + project id and 20,000,000 + user id for a project's
//! and a user's memory; `status` is 1 (active) or 0 (pending).
//!
//! | Weblate | entry |
//! |---|---|
//! | `source`, `target` | the two variants' runs, through the optional [`RunsHook`] (an inline-code recognizer) |
//! | `source_language`, `target_language` | their locales (`pt_BR` → `pt-BR`) |
//! | `context` | the `unit` |
//! | `origin` | the `project_id` |
//! | `category`, `status`, any other field | metadata `weblate:FIELD` (its JSON text) |
//! | the field names, in order | metadata `weblate:fields` |
//!
//! [`WeblateWriter`] writes the same shape back (codes as their native text, locales
//! with `_`), so a Weblate memory moves through cmem unchanged. An element that is not
//! a valid entry is a located problem (`entry N`, counted from 1) and is skipped.

use std::collections::VecDeque;
use std::io::{BufRead, Write};

use cmem_core::{Locale, NewEntry, Variant};
use serde_json::Value;

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::Item;
use crate::jsonl::{surface_text, RunsHook};
use crate::po::po_locale;

/// Options of [`WeblateReader`] and [`WeblateWriter`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct WeblateOptions {
    /// The file name used in messages.
    pub file_name: String,
    /// Turn the first problem into an error.
    pub strict: bool,
    /// On export, the variant written as `source` (default: the first).
    pub source_locale: Option<Locale>,
    /// On export, the variant written as `target` (default: every other variant, one
    /// object each).
    pub target_locale: Option<Locale>,
}

/// Reads a Weblate memory JSON file.
#[derive(Debug)]
pub struct WeblateReader {
    items: VecDeque<Result<Item, FormatError>>,
    bytes: u64,
}

fn problem(options: &WeblateOptions, index: usize, kind: FormatErrorKind, message: String) -> FormatError {
    FormatError::new(Format::Weblate, kind, message)
        .in_file(&options.file_name)
        .for_entry(index as u64 + 1, None)
}

/// An element of the array: an object with its fields in file order (serde_json's
/// `Map` sorts them), or any other value.
enum Element {
    Object(Vec<(String, Value)>),
    Other(Value),
}

impl<'de> serde::Deserialize<'de> for Element {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::SeqAccessDeserializer;
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Element;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Element, A::Error> {
                let mut fields = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    fields.push((k, v));
                }
                Ok(Element::Object(fields))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Element, A::Error> {
                serde::Deserialize::deserialize(SeqAccessDeserializer::new(seq)).map(Element::Other)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Element, E> {
                Ok(Element::Other(Value::from(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Element, E> {
                Ok(Element::Other(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Element, E> {
                Ok(Element::Other(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Element, E> {
                Ok(Element::Other(Value::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Element, E> {
                Ok(Element::Other(Value::from(v)))
            }
            fn visit_unit<E>(self) -> Result<Element, E> {
                Ok(Element::Other(Value::Null))
            }
        }
        d.deserialize_any(V)
    }
}

fn entry(
    options: &WeblateOptions,
    index: usize,
    fields: &[(String, Value)],
    hook: Option<RunsHook<'_>>,
) -> Result<NewEntry, FormatError> {
    let string = |key: &str| -> Result<Option<&str>, FormatError> {
        match fields.iter().find(|(k, _)| k == key).map(|(_, v)| v) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(problem(
                options,
                index,
                FormatErrorKind::InvalidField,
                format!("{key:?} must be a string, not {other}"),
            )),
        }
    };
    let required = |key: &str| -> Result<&str, FormatError> {
        string(key)?.ok_or_else(|| {
            problem(options, index, FormatErrorKind::InvalidField, format!("no {key:?} string"))
        })
    };
    let locale = |key: &str| -> Result<Locale, FormatError> {
        let code = required(key)?;
        po_locale(code)
            .map_err(|e| problem(options, index, FormatErrorKind::InvalidLocale, format!("{key}: {e}")))
    };
    let (source, target) = (required("source")?, required("target")?);
    let (source_locale, target_locale) = (locale("source_language")?, locale("target_language")?);
    let (source_runs, target_runs) = match hook {
        Some(h) => h(source, target),
        None => (crate::po::text_runs(source), crate::po::text_runs(target)),
    };
    // The fields in file order, so that export writes the same object back.
    let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    let mut metadata = vec![("weblate:fields".to_owned(), names.join(","))];
    for (k, v) in fields {
        if matches!(
            k.as_str(),
            "source" | "target" | "source_language" | "target_language" | "origin" | "context"
        ) || v.is_null()
        {
            continue;
        }
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        metadata.push((format!("weblate:{k}"), text));
    }
    let e = NewEntry {
        variants: vec![Variant::new(source_locale, source_runs), Variant::new(target_locale, target_runs)],
        unit: string("context")?.unwrap_or_default().to_owned(),
        project_id: string("origin")?.unwrap_or_default().to_owned(),
        metadata,
        ..NewEntry::default()
    };
    e.validate().map_err(|err| problem(options, index, FormatErrorKind::InvalidEntry, err.to_string()))?;
    Ok(e)
}

impl WeblateReader {
    /// Reads the whole array from `input`; the entries are then taken one by one.
    /// `hook` turns each source and target string into runs.
    ///
    /// # Errors
    /// I/O, or input that is not a JSON array (located by line and column).
    pub fn new(
        mut input: impl BufRead,
        options: WeblateOptions,
        hook: Option<RunsHook<'_>>,
    ) -> Result<Self, FormatError> {
        let mut raw = Vec::new();
        input
            .read_to_end(&mut raw)
            .map_err(|e| FormatError::io(Format::Weblate, "cannot read", e).in_file(&options.file_name))?;
        let text = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&raw);
        let elements: Vec<Element> = serde_json::from_slice(text).map_err(|e| {
            let message = if e.is_data() {
                "a Weblate memory is a JSON array of objects".to_owned()
            } else {
                format!("invalid JSON: {e}")
            };
            FormatError::new(Format::Weblate, FormatErrorKind::InvalidField, message)
                .in_file(&options.file_name)
                .at(e.line() as u64, e.column() as u64)
        })?;
        let mut items = VecDeque::with_capacity(elements.len());
        for (index, element) in elements.iter().enumerate() {
            let result = match element {
                Element::Object(fields) => entry(&options, index, fields, hook),
                Element::Other(other) => Err(problem(
                    &options,
                    index,
                    FormatErrorKind::InvalidField,
                    format!("not an object: {other}"),
                )),
            };
            match result {
                Ok(e) => items.push_back(Ok(Item::Entry(e))),
                Err(p) if options.strict => {
                    items.push_back(Err(p));
                    break;
                }
                Err(p) => items.push_back(Ok(Item::Problem(p))),
            }
        }
        Ok(WeblateReader { items, bytes: raw.len() as u64 })
    }

    /// Bytes read.
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }
}

impl Iterator for WeblateReader {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.items.pop_front()
    }
}

impl crate::import::ItemSource for WeblateReader {
    fn bytes_read(&self) -> u64 {
        self.bytes
    }
}

/// Writes entries as a Weblate memory JSON array, one object per line.
#[derive(Debug)]
pub struct WeblateWriter<W: Write> {
    out: W,
    options: WeblateOptions,
    written: u64,
    skipped: u64,
}

fn write_err(e: impl std::fmt::Display) -> FormatError {
    FormatError::new(Format::Weblate, FormatErrorKind::Io, format!("write failed: {e}"))
}

/// A Weblate language code: `pt-BR` → `pt_BR`.
fn code(locale: &Locale) -> String {
    locale.as_str().replace('-', "_")
}

impl<W: Write> WeblateWriter<W> {
    /// A writer; the array opens at once.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn new(mut out: W, options: WeblateOptions) -> Result<Self, FormatError> {
        out.write_all(b"[").map_err(write_err)?;
        Ok(WeblateWriter { out, options, written: 0, skipped: 0 })
    }

    /// Objects written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Entries without a requested locale, not written.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Writes one entry: an object for its source and each target (or the one asked
    /// for). An entry read from Weblate gets the fields it had, in their order
    /// (`weblate:fields`), with their values; any other entry is written with every
    /// field Weblate writes, as a file upload (`category` 1) that is active
    /// (`status` 1), as Weblate stores an uploaded memory.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        let find = |l: &Locale| {
            entry
                .variants
                .iter()
                .position(|v| v.locale == *l)
                .or_else(|| entry.variants.iter().position(|v| v.locale.matches(l)))
        };
        let source = match &self.options.source_locale {
            Some(l) => find(l),
            None => Some(0).filter(|_| !entry.variants.is_empty()),
        };
        let Some(s) = source else {
            self.skipped += 1;
            return Ok(());
        };
        let targets: Vec<usize> = match &self.options.target_locale {
            Some(l) => entry
                .variants
                .iter()
                .enumerate()
                .filter(|(i, v)| *i != s && v.locale.matches(l))
                .map(|(i, _)| i)
                .take(1)
                .collect(),
            None => (0..entry.variants.len()).filter(|&i| i != s).collect(),
        };
        if targets.is_empty() {
            self.skipped += 1;
            return Ok(());
        }
        let meta = |key: &str| entry.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let number = |key: &str, default: i64| -> Value {
            meta(key)
                .and_then(|v| serde_json::from_str::<Value>(v).ok())
                .filter(Value::is_number)
                .unwrap_or(Value::from(default))
        };
        for t in targets {
            let mut fields: Vec<(&str, Value)> = vec![
                ("source", Value::from(surface_text(&entry.variants[s].runs))),
                ("context", Value::from(entry.unit.as_str())),
                ("target", Value::from(surface_text(&entry.variants[t].runs))),
                ("source_language", Value::from(code(&entry.variants[s].locale))),
                ("target_language", Value::from(code(&entry.variants[t].locale))),
                ("origin", Value::from(entry.project_id.as_str())),
                ("category", number("weblate:category", 1)),
                ("status", number("weblate:status", 1)),
            ];
            for (k, v) in &entry.metadata {
                if let Some(field) = k.strip_prefix("weblate:").filter(|f| *f != "fields") {
                    if !fields.iter().any(|(f, _)| *f == field) {
                        fields.push((
                            field,
                            serde_json::from_str(v).unwrap_or_else(|_| Value::from(v.as_str())),
                        ));
                    }
                }
            }
            // An entry read from Weblate gets its own fields back, in its order.
            if let Some(names) = meta("weblate:fields") {
                let names: Vec<&str> = names.split(',').collect();
                fields.retain(|(f, _)| names.contains(f));
                fields.sort_by_key(|(f, _)| names.iter().position(|n| n == f));
            }
            let mut line = Vec::with_capacity(256);
            line.extend_from_slice(if self.written == 0 { b"\n{" } else { b",\n{" });
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    line.push(b',');
                }
                serde_json::to_writer(&mut line, k).map_err(write_err)?;
                line.push(b':');
                serde_json::to_writer(&mut line, v).map_err(write_err)?;
            }
            line.push(b'}');
            self.out.write_all(&line).map_err(write_err)?;
            self.written += 1;
        }
        Ok(())
    }

    /// Closes the array, flushes, and returns the output.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn finish(mut self) -> Result<W, FormatError> {
        self.out.write_all(b"\n]\n").map_err(write_err)?;
        self.out.flush().map_err(write_err)?;
        Ok(self.out)
    }
}

impl<W: Write> crate::import::EntrySink for WeblateWriter<W> {
    fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        WeblateWriter::write_entry(self, entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect_items;

    #[test]
    fn bad_elements_are_located_problems() {
        let json = r#"[{"source":"a","target":"b","source_language":"en","target_language":"de","origin":"x","category":1,"status":1},
            {"source":"a","source_language":"en","target_language":"de"}, 7]"#;
        let o = WeblateOptions { file_name: "m.json".into(), ..WeblateOptions::default() };
        let (entries, problems) =
            collect_items(WeblateReader::new(json.as_bytes(), o, None).unwrap()).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(problems[0].to_string(), "weblate: m.json: entry 2: no \"target\" string");
        assert_eq!(problems[1].to_string(), "weblate: m.json: entry 3: not an object: 7");
        let e = WeblateReader::new("{\"a\":".as_bytes(), WeblateOptions::default(), None).unwrap_err();
        assert_eq!(e.line(), Some(1));
    }
}
