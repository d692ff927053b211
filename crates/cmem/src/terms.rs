//! [`Memory::terms`]: the memory's glossary of a language pair — mined from its word
//! model ([`cmem_core::align::Term`]), with a list a user gave back
//! ([`Memory::set_terms`]) taking precedence for the sources it names — and its two file
//! forms: TBX-Basic (ISO 30042 TBX, the `TBX-Basic` dialect in the DCT style) and CSV.

use cmem_core::ContentMemoryExt;
use std::fmt::Write as _;

use cmem_core::align::{text_of, FoundTerm, Term, TermOptions};
use cmem_core::store::learn::{given_terms_key, PairGlossary};
use cmem_core::{Error, ErrorKind, Locale, LookupRequest, Result};

use crate::memory::Memory;

impl Memory {
    /// The glossary of `from` → `to`: the terms a user gave ([`set_terms`](Self::set_terms))
    /// first, then those mined from the pair's word model whose source the given list
    /// does not name; none mined without a word model.
    ///
    /// ```
    /// use cmem::{align::{Term, TermOptions}, Locale, Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// memory.set_terms(&en, &de, &[Term::given("file manager", "Dateimanager")])?;
    /// let terms = memory.terms(&en, &de, &TermOptions::default())?;
    /// assert_eq!(terms[0].target, "Dateimanager");
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// A store failure, or a saved word model or term list that does not read.
    pub fn terms(&self, from: &Locale, to: &Locale, options: &TermOptions) -> Result<Vec<Term>> {
        let mut out = self.given_terms(from, to)?;
        if let Some(model) = self.store().word_model(from, to)? {
            let named: std::collections::HashSet<String> = out.iter().map(|t| t.source.clone()).collect();
            out.extend(model.terms(options).into_iter().filter(|t| !named.contains(&t.source)));
        }
        Ok(out)
    }

    /// The terms of the glossary ([`terms`](Self::terms), default options) that `req`'s
    /// source holds as whole words, in its order, the longest where two overlap; given
    /// terms before mined ones. None without a word model or a given list.
    ///
    /// ```
    /// use cmem::{align::Term, LookupRequest, Locale, Memory, OpenOptions, Run};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// memory.set_terms(&en, &de, &[Term::given("file manager", "Dateimanager")])?;
    /// let req = LookupRequest::new(vec![Run::text("Open the File Manager")], en, de);
    /// let found = memory.segment_terms(&req)?;
    /// assert_eq!((found[0].found.as_str(), found[0].term.target.as_str()), ("File Manager", "Dateimanager"));
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`terms`](Self::terms).
    pub fn segment_terms(&self, req: &LookupRequest) -> Result<Vec<FoundTerm>> {
        let glossary = PairGlossary::load(self.store(), &req.source_locale, &req.target_locale)?;
        Ok(glossary.find(&text_of(&req.source)))
    }

    /// The term list a user gave for the pair, empty when none.
    ///
    /// # Errors
    /// A store failure, or a saved list that does not read.
    pub fn given_terms(&self, from: &Locale, to: &Locale) -> Result<Vec<Term>> {
        cmem_core::store::learn::given_terms(self.store(), from, to)
    }

    /// Keeps `terms` as the pair's given list, replacing the one before (an empty list
    /// removes it in effect): their translations take precedence over mined ones.
    ///
    /// # Errors
    /// A read-only memory, or a store failure.
    pub fn set_terms(&self, from: &Locale, to: &Locale, terms: &[Term]) -> Result<()> {
        let text = serde_json::to_string(terms)
            .map_err(|e| Error::new(ErrorKind::InvalidEntry, format!("a term list: {e}")))?;
        self.set_meta(&given_terms_key(from, to), &text)
    }
}

/// Escapes `text` for XML content and attribute values.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Characters XML 1.0 cannot hold are left out.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// `terms` as a TBX-Basic document (TBX, ISO 30042:2019, the TBX-Basic dialect in the DCT
/// style, valid against its core structure and the Min and Basic modules): a
/// `conceptEntry` per term with a `langSec` per language; a noun marked with
/// `min:partOfSpeech`; the counts as a `note` of the target's `termSec` and the example
/// entry as its `basic:source`. An empty list is a document with an empty `text`.
pub fn to_tbx(terms: &[Term], from: &Locale, to: &Locale) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <?xml-model href=\"https://raw.githubusercontent.com/LTAC-Global/TBX-Basic_dialect/master/DCT/TBX-Basic.nvdl\" type=\"application/xml\" schematypens=\"http://purl.oclc.org/dsdl/nvdl/ns/structure/1.0\"?>\n\
         <tbx type=\"TBX-Basic\" style=\"dct\" xml:lang=\"{}\" xmlns=\"urn:iso:std:iso:30042:ed-2\" xmlns:min=\"http://www.tbxinfo.net/ns/min\" xmlns:basic=\"http://www.tbxinfo.net/ns/basic\">\n\
         <tbxHeader><fileDesc><sourceDesc><p>mined from a cmem memory: {} → {}</p></sourceDesc></fileDesc></tbxHeader>\n",
        xml(from.as_str()),
        xml(from.as_str()),
        xml(to.as_str())
    );
    if terms.is_empty() {
        // A body holds at least one concept.
        out.push_str("<text/>\n</tbx>\n");
        return out;
    }
    out.push_str("<text><body>\n");
    for (i, t) in terms.iter().enumerate() {
        let _ = writeln!(out, "<conceptEntry id=\"c{}\">", i + 1);
        let pos = if t.noun { "<min:partOfSpeech>noun</min:partOfSpeech>" } else { "" };
        let _ = writeln!(
            out,
            "<langSec xml:lang=\"{}\"><termSec><term>{}</term>{pos}</termSec></langSec>",
            xml(from.as_str()),
            xml(&t.source)
        );
        let mut aux = String::new();
        if let Some(id) = t.example {
            let _ = write!(aux, "<basic:source>cmem entry {}</basic:source>", id.0);
        }
        if t.seen > 0 {
            let _ = write!(
                aux,
                "<note>{} of {} sightings in the memory ({:.2})</note>",
                t.count, t.seen, t.share
            );
        }
        let _ = writeln!(
            out,
            "<langSec xml:lang=\"{}\"><termSec><term>{}</term>{pos}{aux}</termSec></langSec>",
            xml(to.as_str()),
            xml(&t.target)
        );
        out.push_str("</conceptEntry>\n");
    }
    out.push_str("</body></text>\n</tbx>\n");
    out
}

/// Quotes a CSV field when it needs it (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// `terms` as CSV (RFC 4180) with a header: `source,target,count,seen,share,noun,example`.
pub fn to_csv(terms: &[Term]) -> String {
    let mut out = String::from("source,target,count,seen,share,noun,example\n");
    for t in terms {
        let _ = writeln!(
            out,
            "{},{},{},{},{:.3},{},{}",
            csv_field(&t.source),
            csv_field(&t.target),
            t.count,
            t.seen,
            t.share,
            t.noun,
            t.example.map_or_else(String::new, |id| id.0.to_string())
        );
    }
    out
}

/// Splits one CSV record (RFC 4180 quoting) read from `line`.
fn csv_record(line: &str) -> std::result::Result<Vec<String>, &'static str> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut started = true;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (false, '"') if started && field.is_empty() => quoted = true,
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, ',') => {
                fields.push(std::mem::take(&mut field));
                started = true;
                continue;
            }
            (_, c) => field.push(c),
        }
        started = false;
    }
    if quoted {
        return Err("a quoted field is not closed");
    }
    fields.push(field);
    Ok(fields)
}

/// A term list read from CSV: a header naming `source` and `target` columns (others
/// ignored), one term per line; `name` names the file in errors.
///
/// # Errors
/// [`ErrorKind::InvalidEntry`] naming the file and line: no header with both columns,
/// a line without them, an unclosed quote.
pub fn from_csv(name: &str, text: &str) -> Result<Vec<Term>> {
    let bad = |line: usize, m: &str| Error::new(ErrorKind::InvalidEntry, format!("{name}: line {line}: {m}"));
    let mut lines = text.lines().enumerate();
    let Some((_, header)) = lines.next() else {
        return Err(bad(1, "empty: give a header line source,target"));
    };
    let header = csv_record(header.trim_start_matches('\u{feff}')).map_err(|m| bad(1, m))?;
    let column = |n: &str| header.iter().position(|h| h.trim().eq_ignore_ascii_case(n));
    let (Some(s), Some(t)) = (column("source"), column("target")) else {
        return Err(bad(1, "the header names no source and target columns (source,target,…)"));
    };
    let mut out = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields = csv_record(line).map_err(|m| bad(i + 1, m))?;
        match (fields.get(s).map(|f| f.trim()), fields.get(t).map(|f| f.trim())) {
            (Some(source), Some(target)) if !source.is_empty() && !target.is_empty() => {
                out.push(Term::given(source, target));
            }
            _ => return Err(bad(i + 1, "no source or no target: every line needs both")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips_and_bad_lines_are_located() {
        let terms = vec![Term::given("file manager", "Datei, \"Manager\""), Term::given("page", "Seite")];
        let back = from_csv("t.csv", &to_csv(&terms)).unwrap();
        assert_eq!(back, terms);
        let e = from_csv("t.csv", "source,target\nfile,Datei\nfolder\n").unwrap_err();
        assert!(e.to_string().contains("t.csv: line 3: no source or no target"), "{e}");
        let e = from_csv("t.csv", "a,b\n").unwrap_err();
        assert!(e.to_string().contains("t.csv: line 1:"), "{e}");
    }

    #[test]
    fn tbx_has_the_basic_structure() {
        let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
        let mut t = Term::given("R&D", "F&E <Abteilung>");
        t.noun = true;
        let doc = to_tbx(&[t], &en, &de);
        assert!(doc.contains(
            "<tbx type=\"TBX-Basic\" style=\"dct\" xml:lang=\"en\" xmlns=\"urn:iso:std:iso:30042:ed-2\""
        ));
        assert!(doc.contains("<conceptEntry id=\"c1\">"));
        assert!(doc.contains("<langSec xml:lang=\"de\"><termSec><term>F&amp;E &lt;Abteilung&gt;</term>"));
        assert!(doc.contains("<min:partOfSpeech>noun</min:partOfSpeech>"));
        // Every element closed, in order.
        let mut open: Vec<String> = Vec::new();
        for tag in doc.split('<').skip(1).map(|s| s.split('>').next().unwrap()) {
            if tag.starts_with('?') || tag.ends_with('/') {
                continue;
            }
            let name = tag.trim_start_matches('/').split_whitespace().next().unwrap().to_owned();
            if tag.starts_with('/') {
                assert_eq!(open.pop().as_deref(), Some(name.as_str()), "{doc}");
            } else {
                open.push(name);
            }
        }
        assert!(open.is_empty(), "{open:?}");
    }
}
