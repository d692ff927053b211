//! [`XliffReader`]: the translated segments of an XLIFF 1.2 or 2.x document as
//! entries, so a translated file updates the memory (the last step of every CAT
//! workflow).
//!
//! Each segment (a `trans-unit`, each `mrk mtype="seg"` of its `seg-source`, each 2.x
//! `segment`) whose target has text becomes one entry when its state is wanted:
//!
//! | document | taken by default |
//! |---|---|
//! | XLIFF 1.2 | `state` `translated`, `signed-off` or `final`; `approved="yes"`; a target without `state` (1.2 defines no default, and many tools write none) |
//! | XLIFF 2.x | `state` `translated`, `reviewed` or `final`; a segment without `state` is `initial` (XLIFF 2 §4.3.1) and not taken |
//!
//! [`XliffInOptions::states`] replaces the list (`needs-review-translation`, `new`, …).
//! A segment not taken is counted ([`XliffReader::skipped`]), not reported.
//!
//! The entry keeps the segment's inline codes as the document gives them; a segment
//! whose source and target are both plain text goes through the recognizer hook like
//! a plain JSON Lines string. Its unit is the `trans-unit` / `unit` id, its project the
//! document's file name; `xliff:segment` metadata holds the segment id when the unit
//! is segmented, and `tmx:prop:x-context-pre` / `-post` the sources of the segments
//! before and after it (for context matches when a later version is recycled).

use std::collections::VecDeque;
use std::io::BufRead;

use cmem_core::{Locale, NewEntry, Variant};

use crate::error::FormatError;
use crate::item::Item;
use crate::jsonl::RunsHook;
use crate::po::Counter;
use crate::recycle::{has_text, Locales};
use crate::xliff::{XliffDocument, XliffVersion};

/// Options of [`XliffReader`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct XliffInOptions {
    /// The file name used in messages and as the entries' project.
    pub file_name: String,
    /// The source language of segments whose document names none (what the document
    /// names wins: [`Ingest`](crate::Ingest) checks that the two agree).
    pub source_locale: Option<Locale>,
    /// The target language of segments whose document names none; as
    /// [`source_locale`](Self::source_locale).
    pub target_locale: Option<Locale>,
    /// The target states taken; `None`: the defaults of the [module docs](self).
    pub states: Option<Vec<String>>,
}

/// Reads the translated segments of an XLIFF document as entries.
#[derive(Debug)]
pub struct XliffReader {
    items: VecDeque<Result<Item, FormatError>>,
    bytes: u64,
    skipped: u64,
}

/// True when a segment's state is taken by default.
fn default_state(version: XliffVersion, state: Option<&str>, approved: bool) -> bool {
    match (version, state) {
        (_, _) if approved => true,
        (XliffVersion::V1, None) => true,
        (XliffVersion::V1, Some(s)) => matches!(s, "translated" | "signed-off" | "final"),
        (XliffVersion::V2, Some(s)) => matches!(s, "translated" | "reviewed" | "final"),
        (XliffVersion::V2, None) => false,
    }
}

impl XliffReader {
    /// Parses the document read from `input`; its entries are then taken one by one.
    /// `hook` recognizes inline codes of plain-text segments.
    ///
    /// # Errors
    /// As [`XliffDocument::read`]; a taken segment whose languages are missing (and
    /// not given in the options) or not BCP 47.
    pub fn new(
        input: impl BufRead,
        options: XliffInOptions,
        hook: Option<RunsHook<'_>>,
    ) -> Result<Self, FormatError> {
        let mut counter = Counter { inner: input, bytes: 0 };
        let doc = XliffDocument::read(&mut counter, &options.file_name)?;
        let mut locales = Locales::default();
        let mut items = VecDeque::new();
        let mut skipped = 0;
        let version = doc.version();
        let segmented = |unit: &str| doc.segments().iter().filter(|s| s.unit_id == unit).count() > 1;
        for (index, seg) in doc.segments().iter().enumerate() {
            let wanted = match &options.states {
                Some(states) => seg.state.as_deref().is_some_and(|s| states.iter().any(|w| w == s)),
                None => default_state(version, seg.state.as_deref(), seg.approved),
            };
            let Some(target) = seg.target.as_ref().filter(|t| wanted && has_text(t) && has_text(&seg.source))
            else {
                skipped += 1;
                continue;
            };
            let (src, trg) = locales.of(
                &doc,
                index,
                options.source_locale.as_ref(),
                options.target_locale.as_ref(),
                true,
            )?;
            let texts =
                (cmem_core::model::run::text_only(&seg.source), cmem_core::model::run::text_only(target));
            let (source_runs, target_runs) = match (hook, texts) {
                (Some(h), (Some(s), Some(t))) => h(&s, &t),
                _ => (seg.source.clone(), target.clone()),
            };
            let mut metadata = Vec::new();
            if let Some(id) = seg.segment_id.as_ref().filter(|_| segmented(&seg.unit_id)) {
                metadata.push(("xliff:segment".to_owned(), id.clone()));
            }
            let (pre, post) = crate::recycle::xliff_neighbours(&doc, index);
            metadata.extend(cmem_core::context_metadata(pre, post));
            items.push_back(Ok(Item::Entry(NewEntry {
                variants: vec![Variant::new(src, source_runs), Variant::new(trg, target_runs)],
                unit: seg.context_key().to_owned(),
                project_id: doc.file().to_owned(),
                metadata,
                ..NewEntry::default()
            })));
        }
        Ok(XliffReader { items, bytes: counter.bytes, skipped })
    }

    /// Bytes read.
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// Segments not taken: no target text, or a state not wanted.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
}

impl Iterator for XliffReader {
    type Item = Result<Item, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.items.pop_front()
    }
}

impl crate::import::ItemSource for XliffReader {
    fn bytes_read(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect_items;

    #[test]
    fn takes_translated_states_only() {
        let xlf = r#"<xliff version="1.2"><file source-language="en" target-language="de" datatype="x" original="a"><body>
<trans-unit id="1"><source>One</source><target state="translated">Eins</target></trans-unit>
<trans-unit id="2"><source>Two</source><target state="needs-review-translation">Zwei</target></trans-unit>
<trans-unit id="3"><source>Three</source><target>Drei</target></trans-unit>
<trans-unit id="4"><source>Four</source></trans-unit>
</body></file></xliff>"#;
        let mut o = XliffInOptions { file_name: "a.xlf".into(), ..XliffInOptions::default() };
        let r = XliffReader::new(xlf.as_bytes(), o.clone(), None).unwrap();
        assert_eq!(r.skipped(), 2);
        let (entries, _) = collect_items(r).unwrap();
        assert_eq!(entries.iter().map(|e| e.unit.as_str()).collect::<Vec<_>>(), ["1", "3"]);
        assert_eq!(entries[0].project_id, "a.xlf");
        o.states = Some(vec!["needs-review-translation".into()]);
        let (entries, _) = collect_items(XliffReader::new(xlf.as_bytes(), o, None).unwrap()).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].unit, "2");
    }
}
