//! [`PoWriter`]: one catalog for one locale pair.

use std::collections::HashSet;
use std::io::Write;

use cmem_core::{Locale, NewEntry, Run};

use super::parse::statement;
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::jsonl::surface_text;

/// `Plural-Forms` of common languages, as gettext's `msginit` writes them (GNU
/// gettext manual, "Plural forms"); a catalog for another language gets none.
pub(crate) fn plural_forms(language: &str) -> Option<&'static str> {
    let lang = language.split(['-', '_']).next().unwrap_or(language).to_ascii_lowercase();
    Some(match lang.as_str() {
        "ja" | "ko" | "zh" | "vi" | "th" | "id" | "ms" | "tr" | "fa" | "ka" => "nplurals=1; plural=0;",
        "en" | "de" | "nl" | "sv" | "da" | "nb" | "nn" | "no" | "fo" | "es" | "it" | "pt" | "el" | "bg" | "fi"
        | "et" | "hu" | "eo" | "he" | "ca" | "gl" | "eu" | "af" | "sq" | "hi" | "bn" | "ta" | "te" | "ur" => {
            "nplurals=2; plural=(n != 1);"
        }
        "fr" | "oc" | "pt_br" => "nplurals=2; plural=(n > 1);",
        "lv" => "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2);",
        "ga" => "nplurals=3; plural=n==1 ? 0 : n==2 ? 1 : 2;",
        "ro" => "nplurals=3; plural=n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2;",
        "lt" => "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2);",
        "ru" | "uk" | "be" | "sr" | "hr" | "bs" => {
            "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"
        }
        "cs" | "sk" => "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;",
        "pl" => "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
        "sl" => "nplurals=4; plural=(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3);",
        "ar" => {
            "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;"
        }
        _ => return None,
    })
}

/// The `nplurals` of a `Plural-Forms` value.
pub(crate) fn nplurals_of(forms: &str) -> Option<usize> {
    super::parse::Header::parse(&format!("Plural-Forms: {forms}\n")).nplurals
}

/// A gettext language code from a locale: `pt-BR` → `pt_BR`.
pub(crate) fn po_language(locale: &Locale) -> String {
    locale.as_str().replace('-', "_")
}

/// Writes entries as one PO catalog (UTF-8, `\n` line breaks) for one locale pair.
///
/// An entry's source is its variant of the source locale and its target that of the
/// target locale (the prefix rule); an entry without both is skipped and counted.
/// Codes are written as their native text (see [`surface_text`]). The unit becomes
/// `msgctxt`; `po:comment`, `po:extracted`, `po:references` and `po:flags` metadata
/// become the comment lines they were read from. A plural choice on both sides
/// becomes `msgid_plural` and `msgstr[N]`. A catalog cannot hold two messages with the
/// same context and `msgid`: the later ones are skipped and counted, as is an entry
/// whose source is empty (it would read as the header).
#[derive(Debug)]
pub struct PoWriter<W: Write> {
    out: W,
    source: Locale,
    target: Locale,
    seen: HashSet<(String, String)>,
    written: u64,
    skipped: u64,
    duplicates: u64,
}

fn write_err(e: std::io::Error) -> FormatError {
    FormatError::new(Format::Po, FormatErrorKind::Io, format!("write failed: {e}"))
}

/// The variant of `locale` (exact first, then the prefix rule).
fn pick(entry: &NewEntry, locale: &Locale, not: Option<usize>) -> Option<usize> {
    let ok = |i: &usize| Some(*i) != not;
    (0..entry.variants.len())
        .filter(ok)
        .find(|&i| entry.variants[i].locale == *locale)
        .or_else(|| (0..entry.variants.len()).filter(ok).find(|&i| entry.variants[i].locale.matches(locale)))
}

impl<W: Write> PoWriter<W> {
    /// A writer; the header (`Language`, UTF-8, and `Plural-Forms` when the language
    /// is in gettext's table) is written at once.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn new(mut out: W, source: Locale, target: Locale) -> Result<Self, FormatError> {
        let mut header = format!(
            "Project-Id-Version: cmem export\nLanguage: {}\nMIME-Version: 1.0\n\
             Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n",
            po_language(&target)
        );
        if let Some(forms) = plural_forms(target.as_str()) {
            header.push_str(&format!("Plural-Forms: {forms}\n"));
        }
        let text = format!("msgid \"\"\n{}\n", statement("msgstr", &header, "\n"));
        out.write_all(text.as_bytes()).map_err(write_err)?;
        Ok(PoWriter { out, source, target, seen: HashSet::new(), written: 0, skipped: 0, duplicates: 0 })
    }

    /// Entries written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Entries skipped: without both locales, or with an empty source.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Entries skipped because an earlier one had the same context and `msgid`.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// Writes one entry as a message.
    ///
    /// # Errors
    /// [`FormatErrorKind::Io`] when writing fails.
    pub fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        let Some(s) = pick(entry, &self.source, None) else {
            self.skipped += 1;
            return Ok(());
        };
        let Some(t) = pick(entry, &self.target, Some(s)) else {
            self.skipped += 1;
            return Ok(());
        };
        let (source, target) = (&entry.variants[s].runs, &entry.variants[t].runs);
        let plural = match (source.as_slice(), target.as_slice()) {
            ([Run::Plural(sc)], [Run::Plural(tc)]) if sc.forms.len() >= 2 && !tc.forms.is_empty() => {
                Some((sc, tc))
            }
            _ => None,
        };
        let id = match plural {
            Some((sc, _)) => surface_text(&sc.forms[0].1),
            None => surface_text(source),
        };
        if id.is_empty() {
            self.skipped += 1;
            return Ok(());
        }
        if !self.seen.insert((entry.unit.clone(), id.clone())) {
            self.duplicates += 1;
            return Ok(());
        }
        let mut text = String::from("\n");
        let meta = |key: &'static str| {
            entry.metadata.iter().filter(move |(k, _)| k == key).flat_map(|(_, v)| v.lines())
        };
        for line in meta("po:comment") {
            text.push_str(if line.is_empty() { "#\n" } else { "# " });
            if !line.is_empty() {
                text.push_str(line);
                text.push('\n');
            }
        }
        for (key, prefix) in [("po:extracted", "#. "), ("po:references", "#: ")] {
            for line in meta(key) {
                text.push_str(prefix);
                text.push_str(line);
                text.push('\n');
            }
        }
        let flags: Vec<&str> = meta("po:flags").collect();
        if !flags.is_empty() {
            text.push_str("#, ");
            text.push_str(&flags.join(", "));
            text.push('\n');
        }
        if !entry.unit.is_empty() {
            text.push_str(&statement("msgctxt", &entry.unit, "\n"));
            text.push('\n');
        }
        text.push_str(&statement("msgid", &id, "\n"));
        text.push('\n');
        match plural {
            Some((sc, tc)) => {
                let other =
                    sc.forms.iter().find(|(k, _)| k == "other").unwrap_or(&sc.forms[sc.forms.len() - 1]);
                text.push_str(&statement("msgid_plural", &surface_text(&other.1), "\n"));
                text.push('\n');
                for (i, (_, form)) in tc.forms.iter().enumerate() {
                    text.push_str(&statement(&format!("msgstr[{i}]"), &surface_text(form), "\n"));
                    text.push('\n');
                }
            }
            None => {
                text.push_str(&statement("msgstr", &surface_text(target), "\n"));
                text.push('\n');
            }
        }
        self.out.write_all(text.as_bytes()).map_err(write_err)?;
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

impl<W: Write> crate::import::EntrySink for PoWriter<W> {
    fn write_entry(&mut self, entry: &NewEntry) -> Result<(), FormatError> {
        PoWriter::write_entry(self, entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cmem_core::model::run::Choice;
    use cmem_core::{Code, Variant};

    #[test]
    fn writes_messages_codes_and_plurals() {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let mut w = PoWriter::new(Vec::new(), en.clone(), de.clone()).unwrap();
        let ph = Run::Ph(Code::new("1").data("%s").equiv("%s"));
        let mut e = NewEntry::pair(
            Variant::new(en.clone(), vec![Run::text("Open \"x\" "), ph.clone()]),
            Variant::new(de.clone(), vec![ph, Run::text(" öffnen")]),
        );
        e.unit = "menu".into();
        e.metadata = vec![("po:flags".into(), "c-format".into()), ("po:references".into(), "a.c:1".into())];
        w.write_entry(&e).unwrap();
        w.write_entry(&e).unwrap();
        let choice = |forms: &[(&str, &str)]| {
            vec![Run::Plural(Choice {
                var: "n".into(),
                forms: forms.iter().map(|(k, v)| ((*k).to_owned(), vec![Run::text(*v)])).collect(),
            })]
        };
        w.write_entry(&NewEntry::pair(
            Variant::new(en, choice(&[("one", "file"), ("other", "files")])),
            Variant::new(de, choice(&[("0", "Datei"), ("1", "Dateien")])),
        ))
        .unwrap();
        assert_eq!((w.written(), w.duplicates()), (2, 1));
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert!(text.contains("Plural-Forms: nplurals=2; plural=(n != 1);\\n\""), "{text}");
        assert!(
            text.ends_with(concat!(
            "\n#: a.c:1\n#, c-format\nmsgctxt \"menu\"\nmsgid \"Open \\\"x\\\" %s\"\nmsgstr \"%s öffnen\"\n",
            "\nmsgid \"file\"\nmsgid_plural \"files\"\nmsgstr[0] \"Datei\"\nmsgstr[1] \"Dateien\"\n"
        )),
            "{text}"
        );
    }
}
