//! Java `.properties` resource bundles: import of a translated bundle beside its source
//! ([`PropertiesReader`]), pre-translation of a source bundle ([`recycle_properties`])
//! and its leverage report ([`analyze_properties`]).
//!
//! # Bundles and languages
//!
//! A bundle holds one language, and its file name says which, as Java's
//! `ResourceBundle` names them: `messages.properties` is the base bundle (the source),
//! `messages_de.properties`, `messages_pt_BR.properties`, `messages_sr_Latn_RS.properties`
//! its translations ([`locale_of_name`]). Properties pair by their key:
//!
//! | bundles | entry |
//! |---|---|
//! | the value of a key in the source bundle, and in the translated one | the source and target variants |
//! | the source's language | the options' source locale, else the source file's name (`messages_en.properties`), else `en` (as for PO) |
//! | the target's language | the translated file's name (`_de`); the options' must agree ([`Ingest`](crate::Ingest)) |
//! | the key | the entry's `unit` |
//! | the source values of the keys before and after it | metadata `tmx:prop:x-context-pre` and `-post`, for context matches |
//!
//! An import reads the translated bundle and finds its source beside it: the name
//! without its language (`messages.properties`), else the name with the source
//! language (`messages_en.properties`). A key the translated bundle lacks, leaves
//! empty or marks as unreviewed (below) is not imported; neither is a key the source
//! lacks. A key given twice counts at its last line, as `Properties.load` reads it.
//!
//! # Syntax and charset
//!
//! As `java.util.Properties` reads it: `key=value`, `key: value` and `key value`;
//! `#` and `!` comment lines; a line ending in an odd number of backslashes goes on in
//! the next (its leading white space skipped); escapes `\t`, `\n`, `\r`, `\f`,
//! `\uXXXX` (a UTF-16 surrogate pair as two escapes), and a backslash before any other
//! character stands for that character (`\=`, `\:`, `\ `, `\\`, `\#`).
//!
//! **Charset rule**: a file is read as UTF-8 when its bytes are valid UTF-8 (as Java 9
//! and later read resource bundles), else as ISO-8859-1 (as `Properties.load` reads an
//! `InputStream`); a UTF-8 byte-order mark is skipped, and after one the file must be
//! UTF-8. Recycle writes a bundle in the charset it was read in: into a UTF-8 file
//! (one with characters outside ASCII) values go as they are, into an ASCII or
//! ISO-8859-1 file every character outside ASCII goes as a `\uXXXX` escape, so the file
//! reads the same in Java 8 and 9.
//!
//! A line whose `\u` escape is not four hexadecimal digits, or is half a surrogate pair,
//! is a problem naming the file, its line and column and how to write it; the property
//! is left out (an import with `strict` stops there; recycle and analyze refuse the
//! file).
//!
//! # Recycle
//!
//! [`recycle_properties`] reads a source bundle and writes the translated bundle:
//! every byte as it was (comments, keys, order, blank lines, line breaks) but the
//! values it fills, each written on one line, escaped. What a key gets:
//!
//! | best match | value | comment line above the key |
//! |---|---|---|
//! | a context match (its key and neighbours), fully adapted | its adapted target | `# cmem: context match (PROJECT)` |
//! | at or above the fill threshold, unambiguous, fully adapted | its adapted target | none |
//! | otherwise at or above the fuzzy threshold, or a repetition's first fill, or the dominant of ambiguous answers | its adapted target | `# cmem: fuzzy, 87% match (PROJECT)` (`…, repetition of line N`, `…, the dominant of ambiguous answers`, `…, words repaired` and `# cmem: without the word repair: "…"`) |
//! | none | the source value, kept | `# cmem: untranslated` |
//!
//! A key without text (empty, or codes only) is copied as it is. Java falls back to the
//! source for a missing key anyway, so the written bundle is complete; the two marks
//! `# cmem: fuzzy` and `# cmem: untranslated` tell a translator what to review, and an
//! import leaves such keys out until the line is removed.
//!
//! ```
//! use cmem_core::{ContentMemory, Locale, MemStore, NewEntry, Run, Variant};
//! use cmem_formats::{recycle_properties, RecycleOptions};
//!
//! let store = MemStore::new();
//! let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
//! store.write(&[NewEntry::pair(
//!     Variant::new(en, vec![Run::text("Save the file")]),
//!     Variant::new(de.clone(), vec![Run::text("Datei speichern")]),
//! )])?;
//! let source = "# The menu\nmenu.save = Save the file\nmenu.quit = Quit\n";
//! let mut options = RecycleOptions::default();
//! options.target_locale = Some(de);
//! let mut out = Vec::new();
//! let report = recycle_properties(source.as_bytes(), "messages.properties", &mut out, &store, &options)?;
//! assert_eq!((report.filled_exact, report.untouched), (1, 1));
//! assert_eq!(
//!     String::from_utf8(out)?,
//!     "# The menu\nmenu.save = Datei speichern\n# cmem: untranslated\nmenu.quit = Quit\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod parse;
mod recycle;

use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::path::{Path, PathBuf};

use cmem_core::{Locale, NewEntry, Variant};

use crate::error::{Format, FormatError, FormatErrorKind};
use crate::item::{BoxedInput, Item, ItemReader, ReadContext, RunsHook};
use crate::po::text_runs;

pub(crate) use recycle::{analyze_bytes, recycle_bytes, segments};
pub use recycle::{analyze_properties, recycle_properties};

/// The comment recycle writes above a fill to review; import leaves the key out.
const MARK_FUZZY: &str = "# cmem: fuzzy";
/// The comment recycle writes above a key it kept the source value of; import leaves
/// the key out.
const MARK_UNTRANSLATED: &str = "# cmem: untranslated";

/// The locale a bundle's file name gives, Java's way: `messages_de.properties` → `de`,
/// `messages_pt_BR.properties` → `pt-BR`, `messages_zh_Hant_TW.properties` →
/// `zh-Hant-TW` (the language in lower case, a script in title case, a region in upper
/// case or digits); `None` for a base bundle (`messages.properties`).
pub fn locale_of_name(path: &Path) -> Option<Locale> {
    split_name(path).1
}

/// The file name's stem without its language, and the language.
fn split_name(path: &Path) -> (String, Option<Locale>) {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let parts: Vec<&str> = stem.split('_').collect();
    let language = |s: &str| (2..=3).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_lowercase());
    let script = |s: &str| {
        s.len() == 4
            && s.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
            && s.bytes().skip(1).all(|b| b.is_ascii_lowercase())
    };
    let region = |s: &str| {
        (s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase()))
            || (s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()))
    };
    for take in [3, 2, 1] {
        let Some(at) = parts.len().checked_sub(take).filter(|&at| at > 0) else { continue };
        let tail = &parts[at..];
        let fits = match tail {
            [l] => language(l),
            [l, x] => language(l) && (script(x) || region(x)),
            [l, s, r] => language(l) && script(s) && region(r),
            _ => false,
        };
        if let Some(locale) = fits.then(|| Locale::parse(&tail.join("-")).ok()).flatten() {
            return (parts[..at].join("_"), Some(locale));
        }
    }
    (stem.to_owned(), None)
}

/// A locale as Java names bundles: `pt-BR` → `pt_BR`.
fn java_suffix(locale: &Locale) -> String {
    locale.as_str().replace('-', "_")
}

/// Options of [`PropertiesReader`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PropertiesOptions {
    /// The source bundle's language; default `en`.
    pub source_locale: Option<Locale>,
    /// The translated bundle's language (required: [`locale_of_name`] gives it from its
    /// file name).
    pub target_locale: Option<Locale>,
    /// Turn the first problem into an error.
    pub strict: bool,
    /// The source bundle's name in messages.
    pub source_name: String,
    /// The translated bundle's name in messages; the entries' `project_id`.
    pub file_name: String,
}

/// Reads a translated bundle and its source as entries; see the [module docs](self).
pub struct PropertiesReader {
    items: VecDeque<Result<Item, FormatError>>,
}

impl std::fmt::Debug for PropertiesReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PropertiesReader").field("pending", &self.items.len()).finish()
    }
}

impl PropertiesReader {
    /// Reads the source bundle `source` and its translation `target` whole; the entries
    /// are then taken one by one. `hook` recognizes inline codes (`{0}`, `%s`) in each
    /// pair of values.
    ///
    /// ```
    /// use cmem_formats::{collect_items, PropertiesOptions, PropertiesReader};
    ///
    /// let mut options = PropertiesOptions::default();
    /// options.target_locale = Some(cmem_core::Locale::parse("de")?);
    /// let source = "greeting = Hello, {0}!\nbye = Goodbye\n";
    /// let target = "# cmem: untranslated\nbye = Goodbye\ngreeting = Hallo, {0}!\n";
    /// let reader = PropertiesReader::new(source.as_bytes(), target.as_bytes(), options, None)?;
    /// let (entries, problems) = collect_items(reader)?;
    /// assert!(problems.is_empty());
    /// assert_eq!(entries.len(), 1);
    /// assert_eq!((entries[0].unit.as_str(), entries[0].variants[1].locale.as_str()), ("greeting", "de"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// I/O, a byte-order mark before bytes that are not UTF-8, no target locale, and with
    /// `strict` the first problem.
    pub fn new(
        mut source: impl Read,
        mut target: impl Read,
        options: PropertiesOptions,
        hook: Option<RunsHook<'_>>,
    ) -> Result<Self, FormatError> {
        let file = options.file_name.clone();
        let read_all = |input: &mut dyn Read, name: &str| {
            let mut raw = Vec::new();
            input
                .read_to_end(&mut raw)
                .map_err(|e| FormatError::io(Format::Properties, "cannot read", e).in_file(name))?;
            parse::read(&raw, name)
        };
        let source = read_all(&mut source, &options.source_name)?;
        let target_bundle = read_all(&mut target, &file)?;
        let Some(target) = options.target_locale.clone() else {
            return Err(FormatError::new(
                Format::Properties,
                FormatErrorKind::NoTargetLanguage,
                "the bundle's name gives no language; give one in the options",
            )
            .in_file(file));
        };
        let source_locale = match options.source_locale.clone() {
            Some(l) => l,
            None => Locale::parse("en").map_err(|e| {
                FormatError::new(Format::Properties, FormatErrorKind::InvalidLocale, e.to_string())
            })?,
        };
        let mut items = VecDeque::new();
        let mut problems: Vec<FormatError> =
            source.problems.into_iter().chain(target_bundle.problems).collect();
        if options.strict && !problems.is_empty() {
            items.push_back(Err(problems.remove(0)));
            return Ok(PropertiesReader { items });
        }
        items.extend(problems.into_iter().map(|p| Ok(Item::Problem(p))));
        // Java's reading: a key given twice is its last line.
        let last = |props: &[parse::Property]| -> HashMap<String, usize> {
            props.iter().enumerate().map(|(i, p)| (p.key.clone(), i)).collect()
        };
        let (in_source, in_target) = (last(&source.properties), last(&target_bundle.properties));
        for (i, p) in source.properties.iter().enumerate() {
            if in_source.get(&p.key) != Some(&i) || p.value.is_empty() {
                continue;
            }
            let Some(t) = in_target.get(&p.key).map(|&k| &target_bundle.properties[k]) else { continue };
            if t.value.is_empty() || t.unreviewed() {
                continue;
            }
            let (source_runs, target_runs) = match hook {
                Some(hook) => hook(&p.value, &t.value),
                None => (text_runs(&p.value), text_runs(&t.value)),
            };
            let (pre, post) = recycle::neighbours(&source.properties, i);
            items.push_back(Ok(Item::Entry(NewEntry {
                variants: vec![
                    Variant::new(source_locale.clone(), source_runs),
                    Variant::new(target.clone(), target_runs),
                ],
                unit: p.key.clone(),
                project_id: file.clone(),
                metadata: cmem_core::context_metadata(pre.as_deref(), post.as_deref()),
                ..NewEntry::default()
            })));
        }
        Ok(PropertiesReader { items })
    }
}

impl Iterator for PropertiesReader {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.items.pop_front()
    }
}

/// The source bundle beside the translated bundle at `path` (named by the stem `base`
/// without its language): `base.EXT`, else `base_SOURCE.EXT`.
fn source_beside(path: &Path, base: &str, source: Option<&Locale>) -> Result<PathBuf, Vec<PathBuf>> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("properties");
    let dir = path.parent().unwrap_or(Path::new(""));
    let en = Locale::parse("en").ok();
    let mut tried = vec![dir.join(format!("{base}.{ext}"))];
    if let Some(l) = source.or(en.as_ref()) {
        tried.push(dir.join(format!("{base}_{}.{ext}", java_suffix(l))));
    }
    tried.iter().find(|p| p.is_file()).cloned().ok_or(tried)
}

/// Opens the translated bundle `input` (at `cx.path`) with its source beside it; the
/// [`registry`](crate::registry)'s reader of `.properties`.
pub(crate) fn open_reader<'h>(input: BoxedInput, cx: ReadContext<'h>) -> Result<ItemReader<'h>, FormatError> {
    let name = cx.name.clone();
    let located = |kind: FormatErrorKind, message: String| {
        FormatError::new(Format::Properties, kind, message).in_file(name.clone())
    };
    let Some(path) = cx.path.as_deref() else {
        return Err(located(
            FormatErrorKind::Unsupported,
            "a .properties bundle holds one language, and its source is the bundle beside it \
             (messages.properties beside messages_de.properties): import it from its file"
                .to_owned(),
        ));
    };
    let (base, language) = split_name(path);
    let Some(target) = language else {
        return Err(located(
            FormatErrorKind::InvalidField,
            format!(
                "the name gives no language (as {base}_de.properties would): a bundle without one is \
                 the source, with no translations to import; import its translated bundles, or \
                 pre-translate it with recycle"
            ),
        ));
    };
    let source_path = source_beside(path, &base, cx.source_locale.as_ref()).map_err(|tried| {
        let names: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        located(
            FormatErrorKind::Io,
            format!(
                "its source bundle is not beside it (no {}): a translated bundle is imported with the \
                 source it translates, named without its language",
                names.join(", no ")
            ),
        )
    })?;
    let source_name = source_path.display().to_string();
    let source_file = std::fs::File::open(&source_path)
        .map_err(|e| FormatError::io(Format::Properties, "cannot read", e).in_file(&source_name))?;
    let options = PropertiesOptions {
        source_locale: cx.source_locale.clone().or_else(|| locale_of_name(&source_path)),
        target_locale: Some(target),
        strict: cx.strict,
        source_name,
        file_name: cx.name,
    };
    Ok(Box::new(PropertiesReader::new(source_file, input, options, cx.hook)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_knows_bundles_by_name_and_by_their_first_bytes() {
        use crate::registry::{by_path, settle};
        assert_eq!(by_path(Path::new("messages_de.properties")).map(|f| f.name), Some("properties"));
        assert_eq!(Format::Properties.name(), "properties");
        // A bundle may start with a comment, like a PO catalog, but not like XML.
        assert_eq!(
            settle(b"# comment\nkey=value", Format::Properties, true, "a.properties").ok(),
            Some(Format::Properties)
        );
        let err = settle(b"<tmx>", Format::Properties, false, "a.properties").unwrap_err().to_string();
        assert!(
            err.ends_with(
                "looks like XML (TMX or XLIFF), not Java properties; import it as tmx or xliff, or give it its extension"
            ),
            "{err}"
        );
    }

    #[test]
    fn file_names_give_java_locales() {
        let of = |name: &str| {
            let (base, l) = split_name(Path::new(name));
            (base, l.map(|l| l.as_str().to_owned()))
        };
        assert_eq!(of("messages.properties"), ("messages".into(), None));
        assert_eq!(of("dir/messages_de.properties"), ("messages".into(), Some("de".into())));
        assert_eq!(of("my_app_pt_BR.properties"), ("my_app".into(), Some("pt-BR".into())));
        assert_eq!(of("ui_sr_Latn_RS.properties"), ("ui".into(), Some("sr-Latn-RS".into())));
        assert_eq!(of("ui_zh_Hant.properties"), ("ui".into(), Some("zh-Hant".into())));
        assert_eq!(
            of("es_419.properties"),
            ("es_419".into(), None),
            "a name that is only a locale is a base"
        );
        assert_eq!(of("app_es_419.properties"), ("app".into(), Some("es-419".into())));
        assert_eq!(of("App_Messages.properties"), ("App_Messages".into(), None));
        assert_eq!(java_suffix(&Locale::parse("pt-BR").unwrap()), "pt_BR");
    }

    #[test]
    fn pairs_by_key_in_source_order_and_leaves_out_what_is_not_translated() {
        let source = "a = One\nb = Two\nc = Three\nd =\ne = Five\ne = Five again\n";
        let target = "e = Fünf\nc = Drei\n# cmem: fuzzy, 80% match (x)\nb = Zwo\nz = Extra\na = \n";
        let options = PropertiesOptions {
            target_locale: Locale::parse("de").ok(),
            file_name: "m_de.properties".into(),
            ..PropertiesOptions::default()
        };
        let reader = PropertiesReader::new(source.as_bytes(), target.as_bytes(), options, None).unwrap();
        let (entries, problems) = crate::collect_items(reader).unwrap();
        assert!(problems.is_empty());
        let got: Vec<(&str, String, String)> = entries
            .iter()
            .map(|e| {
                let text =
                    |i: usize| cmem_core::model::run::text_only(&e.variants[i].runs).unwrap_or_default();
                (e.unit.as_str(), text(0), text(1))
            })
            .collect();
        assert_eq!(
            got,
            [("c", "Three".to_owned(), "Drei".to_owned()), ("e", "Five again".to_owned(), "Fünf".to_owned())]
        );
        assert_eq!(entries[0].variants[0].locale.as_str(), "en");
        assert_eq!(entries[0].project_id, "m_de.properties");
        // The neighbours of `c` in the source: "Two" before, "" (the empty `d`) after.
        assert!(
            entries[0].metadata.iter().any(|(k, v)| k == "tmx:prop:x-context-pre" && v.contains("Two")),
            "{:?}",
            entries[0].metadata
        );
    }

    #[test]
    fn a_problem_leaves_its_line_out_or_with_strict_stops() {
        let source = "a = One\nb = T\\u00zzwo\n";
        let target = "a = Eins\nb = Zwei\n";
        let mut options = PropertiesOptions {
            target_locale: Locale::parse("de").ok(),
            source_name: "m.properties".into(),
            ..PropertiesOptions::default()
        };
        let reader =
            PropertiesReader::new(source.as_bytes(), target.as_bytes(), options.clone(), None).unwrap();
        let (entries, problems) = crate::collect_items(reader).unwrap();
        assert_eq!((entries.len(), problems.len()), (1, 1));
        assert_eq!(
            (problems[0].file(), problems[0].line(), problems[0].column()),
            ("m.properties", Some(2), Some(6))
        );
        options.strict = true;
        let reader = PropertiesReader::new(source.as_bytes(), target.as_bytes(), options, None).unwrap();
        let err = crate::collect_items(reader).unwrap_err();
        assert_eq!(err.kind(), FormatErrorKind::InvalidLine);
    }
}
