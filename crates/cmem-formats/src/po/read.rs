//! [`PoReader`]: a catalog's translated messages as entries.

use std::collections::{HashMap, VecDeque};
use std::io::BufRead;

use cmem_core::model::recognize::Recognizer;
use cmem_core::model::run::Choice;
use cmem_core::{Locale, NewEntry, Run, Variant};

use super::parse::{Catalog, Header, Message};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::Item;
use crate::jsonl::RunsHook;

/// Options of [`PoReader`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PoOptions {
    /// The source locale (`msgid`); default `en`.
    pub source_locale: Option<Locale>,
    /// The target locale (`msgstr`) of a catalog whose header names no `Language` (the
    /// header's wins: [`Ingest`](crate::Ingest) checks that the two agree).
    pub target_locale: Option<Locale>,
    /// Import `#, fuzzy` messages too; default false.
    pub fuzzy: bool,
    /// Import obsolete (`#~`) messages too; default false.
    pub obsolete: bool,
    /// Let format flags (`c-format`, …) choose the recognizer rules of a message
    /// when a hook is given; default true.
    pub format_flags: bool,
    /// The entries' `project_id`; default: the header's `Project-Id-Version`, else the
    /// file name.
    pub project: Option<String>,
    /// Turn the first problem into an error.
    pub strict: bool,
    /// The file name used in messages; a name ending in `.pot` is refused.
    pub file_name: String,
}

impl Default for PoOptions {
    fn default() -> Self {
        PoOptions {
            source_locale: None,
            target_locale: None,
            fuzzy: false,
            obsolete: false,
            format_flags: true,
            project: None,
            strict: false,
            file_name: String::new(),
        }
    }
}

/// How the messages of a catalog were accounted for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct PoTally {
    /// Messages read, the header left out.
    pub messages: u64,
    /// Made into entries.
    pub entries: u64,
    /// Skipped: every `msgstr` empty (or, for plurals, any).
    pub untranslated: u64,
    /// Skipped: `#, fuzzy`.
    pub fuzzy: u64,
    /// Skipped: obsolete.
    pub obsolete: u64,
    /// Syntax problems (each a message left out).
    pub problems: u64,
}

/// A gettext PO reader; see the [module docs](super).
pub struct PoReader {
    items: VecDeque<Result<Item, FormatError>>,
    bytes: u64,
    tally: PoTally,
}

impl std::fmt::Debug for PoReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoReader").field("pending", &self.items.len()).field("tally", &self.tally).finish()
    }
}

/// A locale from a PO `Language` value: `pt_BR` → `pt-BR`, `sr@latin` → `sr-Latn`
/// (other `@` modifiers are dropped).
///
/// # Errors
/// The tag is not BCP 47 once converted.
pub fn po_locale(value: &str) -> cmem_core::Result<Locale> {
    let (tag, modifier) = value.split_once('@').unwrap_or((value, ""));
    let tag = tag.split('.').next().unwrap_or(tag); // `de_DE.UTF-8`
    match modifier {
        "latin" => Locale::parse(&format!("{tag}-Latn")),
        "cyrillic" => Locale::parse(&format!("{tag}-Cyrl")),
        _ => Locale::parse(tag),
    }
}

/// The rule sets of a message's format flag, when it has one.
pub(crate) fn flag_rules(flags: &[String]) -> Option<&'static str> {
    flags.iter().find_map(|f| {
        Some(match f.as_str() {
            "c-format" | "objc-format" | "c++-format" | "javascript-format" | "php-format"
            | "perl-format" => "printf,html,xml-entity",
            "gcc-internal-format" | "gfc-internal-format" => "printf,gcc,html,xml-entity",
            "python-format" => "printf,python,html,xml-entity",
            "python-brace-format" | "csharp-format" | "java-format" | "perl-brace-format" | "rust-format" => {
                "brace,html,xml-entity"
            }
            "qt-format" | "kde-format" | "qt-plural-format" | "kde-kuit-format" => "qt,html,xml-entity",
            f if f.starts_with("no-") && f.ends_with("-format") => "html,xml-entity",
            _ => return None,
        })
    })
}

/// Recognizes the strings of messages: by their format flag's rule sets, else by the
/// hook; plain text when there is no hook.
pub(crate) struct MessageRunner<'h> {
    hook: Option<RunsHook<'h>>,
    format_flags: bool,
    by_flag: HashMap<&'static str, Recognizer>,
}

impl<'h> MessageRunner<'h> {
    pub(crate) fn new(hook: Option<RunsHook<'h>>, format_flags: bool) -> Self {
        MessageRunner { hook, format_flags, by_flag: HashMap::new() }
    }

    /// The runs of a source string and its translation.
    pub(crate) fn pair(&mut self, flags: &[String], source: &str, target: &str) -> (Vec<Run>, Vec<Run>) {
        let Some(hook) = self.hook else { return (text_runs(source), text_runs(target)) };
        if let Some(rules) = flag_rules(flags).filter(|_| self.format_flags) {
            // The names are the built-in sets, so building cannot fail; the hook serves if it does.
            if !self.by_flag.contains_key(rules) {
                if let Ok(r) = Recognizer::from_names(rules) {
                    self.by_flag.insert(rules, r);
                }
            }
            if let Some(r) = self.by_flag.get(rules) {
                return r.recognize_pair(source, target);
            }
        }
        hook(source, target)
    }

    /// The runs of a message's source and of its translation forms (`strs`; for a
    /// query, empty strings).
    pub(crate) fn message(&mut self, m: &Message, strs: &[&str]) -> (Vec<Run>, Vec<Run>) {
        match &m.id_plural {
            None => self.pair(&m.flags, &m.id, strs.first().copied().unwrap_or("")),
            Some(plural) => {
                let (one, first) = self.pair(&m.flags, &m.id, strs.first().copied().unwrap_or(""));
                let (other, _) = self.pair(&m.flags, plural, "");
                let mut forms = vec![("0".to_owned(), first)];
                for (i, s) in strs.iter().enumerate().skip(1) {
                    forms.push((i.to_string(), self.pair(&m.flags, plural, s).1));
                }
                let source = vec![Run::Plural(Choice {
                    var: "n".to_owned(),
                    forms: vec![("one".to_owned(), one), ("other".to_owned(), other)],
                })];
                (source, vec![Run::Plural(Choice { var: "n".to_owned(), forms })])
            }
        }
    }
}

pub(crate) fn text_runs(s: &str) -> Vec<Run> {
    if s.is_empty() {
        Vec::new()
    } else {
        vec![Run::text(s)]
    }
}

/// The header of a catalog, if it has one.
pub(crate) fn header_of(catalog: &Catalog) -> Header {
    catalog
        .messages
        .iter()
        .find(|m| m.is_header())
        .and_then(|m| m.strs.first())
        .map(|s| Header::parse(&s.text))
        .unwrap_or_default()
}

impl PoReader {
    /// Reads and parses the whole catalog from `input`; the entries are then taken
    /// one by one. `hook` recognizes inline codes (see the [module docs](super)).
    ///
    /// # Errors
    /// A `.pot` file name, I/O, bytes invalid in the catalog's charset, no target
    /// locale (neither the options nor the header's `Language`), an invalid locale.
    pub fn new(
        input: impl BufRead,
        options: PoOptions,
        hook: Option<RunsHook<'_>>,
    ) -> Result<Self, FormatError> {
        let file = options.file_name.clone();
        let located = |kind: FormatErrorKind, message: String| {
            FormatError::new(Format::Po, kind, message).in_file(&file)
        };
        if file.to_ascii_lowercase().ends_with(".pot") {
            return Err(located(
                FormatErrorKind::InvalidField,
                "a .pot file is a template with no translations to import; pre-translate it with \
                 recycle (messages.pot → de.po) or import a translated .po"
                    .to_owned(),
            ));
        }
        let mut counter = Counter { inner: input, bytes: 0 };
        let catalog = super::read_catalog(&mut counter, &file)?;
        let header = header_of(&catalog);
        let source = match options.source_locale.clone() {
            Some(l) => l,
            None => {
                Locale::parse("en").map_err(|e| located(FormatErrorKind::InvalidLocale, e.to_string()))?
            }
        };
        let target = match (&options.target_locale, &header.language) {
            (_, Some(lang)) => po_locale(lang).map_err(|e| {
                let line = catalog.messages.iter().find(|m| m.is_header()).map_or(1, |m| m.line);
                located(FormatErrorKind::InvalidLocale, format!("the header's Language: {e}")).at_line(line)
            })?,
            (Some(l), None) => l.clone(),
            (None, None) => {
                if catalog.messages.is_empty() && catalog.problems.is_empty() {
                    return Err(located(
                        FormatErrorKind::InvalidField,
                        "the file is empty: no header and no messages to import; leave it out".to_owned(),
                    ));
                }
                // A syntax error may be why the header is missing or unread: the first
                // one is what to fix first, so it is reported with the language. (Given a
                // language, it is a problem like any other, and the rest is imported.)
                if let Some(first) = catalog.problems.into_iter().next() {
                    let message = format!(
                        "{}; with no header naming the Language (the target language) the catalog \
                         cannot be imported: fix the line, or give one in the options",
                        first.message()
                    );
                    let mut e = FormatError::new(Format::Po, FormatErrorKind::NoTargetLanguage, message)
                        .in_file(first.file().to_owned());
                    match (first.line(), first.column()) {
                        (Some(line), Some(column)) => e = e.at(line, column),
                        (Some(line), None) => e = e.at_line(line),
                        _ => {}
                    }
                    return Err(e);
                }
                return Err(located(
                    FormatErrorKind::NoTargetLanguage,
                    "the header names no Language (the target language); give one in the options".to_owned(),
                ));
            }
        };
        let project = options.project.clone().or(header.project.clone()).unwrap_or_else(|| file.clone());
        let mut tally = PoTally::default();
        let mut items = VecDeque::new();
        for p in catalog.problems {
            tally.problems += 1;
            if options.strict {
                items.push_back(Err(p));
                return Ok(PoReader { items, bytes: counter.bytes, tally });
            }
            items.push_back(Ok(Item::Problem(p)));
        }
        let mut runner = MessageRunner::new(hook, options.format_flags);
        // The neighbours a context match compares (docs/matching.md §4): the live
        // messages before and after, translated or not, as the template has them.
        let live: Vec<&super::parse::Message> =
            catalog.messages.iter().filter(|m| !m.is_header() && !m.obsolete).collect();
        let mut place = 0usize;
        for m in catalog.messages.iter().filter(|m| !m.is_header()) {
            let neighbours = if m.obsolete {
                Vec::new()
            } else {
                place += 1;
                super::neighbour_metadata(&live, place - 1)
            };
            tally.messages += 1;
            if m.obsolete && !options.obsolete {
                tally.obsolete += 1;
                continue;
            }
            if m.has_flag("fuzzy") && !options.fuzzy {
                tally.fuzzy += 1;
                continue;
            }
            if m.untranslated() || m.partly_translated() {
                tally.untranslated += 1;
                continue;
            }
            let strs: Vec<&str> = m.strs.iter().map(|s| s.text.as_str()).collect();
            let (source_runs, target_runs) = runner.message(m, &strs);
            let mut metadata = Vec::new();
            let mut meta = |key: &str, values: &[String]| {
                if !values.is_empty() {
                    metadata.push((format!("po:{key}"), values.join("\n")));
                }
            };
            meta("references", &m.references);
            meta("flags", &m.flags.iter().filter(|f| *f != "fuzzy").cloned().collect::<Vec<_>>());
            meta("comment", &m.comments);
            meta("extracted", &m.extracted);
            metadata.extend(neighbours);
            tally.entries += 1;
            items.push_back(Ok(Item::Entry(NewEntry {
                variants: vec![
                    Variant::new(source.clone(), source_runs),
                    Variant::new(target.clone(), target_runs),
                ],
                unit: m.context.clone().unwrap_or_default(),
                project_id: project.clone(),
                metadata,
                ..NewEntry::default()
            })));
        }
        // Problems come first in the queue but are located; order them by line.
        let mut all: Vec<_> = items.into_iter().collect();
        all.sort_by_key(|item| match item {
            Ok(Item::Problem(p)) => p.line().unwrap_or(0),
            _ => u64::MAX,
        });
        Ok(PoReader { items: all.into(), bytes: counter.bytes, tally })
    }

    /// Bytes read.
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// How the catalog's messages were accounted for.
    pub fn tally(&self) -> PoTally {
        self.tally
    }
}

impl Iterator for PoReader {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.items.pop_front()
    }
}

impl crate::import::ItemSource for PoReader {
    fn bytes_read(&self) -> u64 {
        self.bytes
    }
}

/// Counts the bytes read through it (for [`ItemSource::bytes_read`](crate::ItemSource::bytes_read)).
pub(crate) struct Counter<R> {
    pub(crate) inner: R,
    pub(crate) bytes: u64,
}

impl<R: std::io::Read> std::io::Read for Counter<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect_items;

    fn read(po: &str, options: PoOptions) -> (Vec<NewEntry>, Vec<FormatError>, PoTally) {
        let reader = PoReader::new(po.as_bytes(), options, None).unwrap();
        let tally = reader.tally();
        let (e, p) = collect_items(reader).unwrap();
        (e, p, tally)
    }

    const PO: &str = concat!(
        "msgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: demo 1.0\\n\"\n\"Language: de\\n\"\n\n",
        "#, c-format\nmsgid \"Open %s\"\nmsgstr \"%s öffnen\"\n\n",
        "#, fuzzy\nmsgid \"Close\"\nmsgstr \"Schließen\"\n\n",
        "msgid \"Quit\"\nmsgstr \"\"\n\n",
        "msgid \"file\"\nmsgid_plural \"files\"\nmsgstr[0] \"Datei\"\nmsgstr[1] \"Dateien\"\n\n",
        "#~ msgid \"Old\"\n#~ msgstr \"Alt\"\n",
    );

    #[test]
    fn skips_by_kind_and_counts_everything() {
        let (entries, problems, tally) = read(PO, PoOptions::default());
        assert!(problems.is_empty());
        assert_eq!(
            tally,
            PoTally { messages: 5, entries: 2, untranslated: 1, fuzzy: 1, obsolete: 1, problems: 0 }
        );
        assert_eq!(entries[0].project_id, "demo 1.0");
        // The neighbours are the live messages around it, translated or not.
        let meta = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
        };
        assert_eq!(
            entries[0].metadata,
            meta(&[
                ("po:flags", "c-format"),
                (cmem_core::CONTEXT_PRE, ""),
                (cmem_core::CONTEXT_POST, "Close")
            ])
        );
        assert_eq!(
            entries[1].metadata,
            meta(&[(cmem_core::CONTEXT_PRE, "Quit"), (cmem_core::CONTEXT_POST, "")])
        );
        let Run::Plural(c) = &entries[1].variants[1].runs[0] else { panic!("not a plural") };
        assert_eq!(c.forms[1], ("1".to_owned(), vec![Run::text("Dateien")]));
        let o = PoOptions { fuzzy: true, obsolete: true, ..PoOptions::default() };
        assert_eq!(read(PO, o).0.len(), 4);
    }

    #[test]
    fn flags_choose_rules() {
        let hook_fn = |s: &str, t: &str| Recognizer::default().recognize_pair(s, t);
        let po =
            "msgid \"\"\nmsgstr \"Language: fr\\n\"\n\n#, c-format\nmsgid \"{0} %s\"\nmsgstr \"{0} %s\"\n\n\
                  #, python-brace-format\nmsgid \"{0} %s\"\nmsgstr \"{0} %s\"\n";
        let reader = PoReader::new(po.as_bytes(), PoOptions::default(), Some(&hook_fn)).unwrap();
        let (entries, _) = collect_items(reader).unwrap();
        let codes = |e: &NewEntry| {
            e.variants[0].runs.iter().filter_map(|r| r.code().map(|c| c.data.clone())).collect::<Vec<_>>()
        };
        assert_eq!(codes(&entries[0]), ["%s"]);
        assert_eq!(codes(&entries[1]), ["{0}"]);
    }

    #[test]
    fn refuses_templates_and_needs_a_language() {
        let o = PoOptions { file_name: "messages.pot".into(), ..PoOptions::default() };
        let e = PoReader::new("".as_bytes(), o, None).unwrap_err();
        assert!(e.to_string().starts_with("po: messages.pot: a .pot file is a template"), "{e}");
        let e =
            PoReader::new("msgid \"a\"\nmsgstr \"b\"\n".as_bytes(), PoOptions::default(), None).unwrap_err();
        assert_eq!(e.kind(), FormatErrorKind::NoTargetLanguage);
        assert_eq!(po_locale("sr@latin").unwrap().as_str(), "sr-Latn");
        assert_eq!(po_locale("pt_BR").unwrap().as_str(), "pt-BR");
    }
}
