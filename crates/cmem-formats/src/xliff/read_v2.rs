//! Reading XLIFF 2.0–2.2 units (`segment`s, `ignorable`s, `originalData`, an existing
//! `mtc:matches`) for [`XliffDocument`](super::XliffDocument).

use std::io::Read;

use cmem_core::Run;

use super::read::{local, Inline, Lines, Parser};
use super::{Place, SegInfo, Span, Unit, XliffSegment, MTC_NAMESPACE};
use crate::error::{FormatError, FormatErrorKind};
use crate::xml::XmlEvent;

impl<R: Read> Parser<'_, R> {
    /// A 2.x `unit` whose start tag was just read.
    pub(super) fn unit_v2(&mut self, translate: bool, lines: &mut Lines) -> Result<(), FormatError> {
        let unit_id = self.attr("id").unwrap_or_default();
        let resname = self.attr("name");
        let unit_index = self.doc.units.len();
        let mut unit = Unit { unit_start_tag_end: self.pos(), ..Unit::default() };
        self.data_ids.clear();
        let mut first = true;
        // Open sc ids in the unit (for the ec-before-sc check).
        let mut seen_sc: Vec<String> = Vec::new();
        while let Some(ev) = self.unit_child(&mut unit, &mut first)? {
            let start = self.start();
            let full = self.r.name().to_owned();
            let name = local(&full).to_owned();
            let mtc_prefix = match full.split_once(':') {
                Some((q, _)) if name == "matches" => {
                    let declared = self.r.attr(&format!("xmlns:{q}")) == Some(MTC_NAMESPACE);
                    (declared || self.doc.mtc_prefix.as_deref() == Some(q)).then(|| q.to_owned())
                }
                _ => None,
            };
            let is_mtc = mtc_prefix.is_some();
            if !is_mtc && matches!(name.as_str(), "originalData" | "segment" | "ignorable") {
                unit.core_start.get_or_insert(start);
            }
            if ev == XmlEvent::Empty {
                if name == "notes" && !full.contains(':') {
                    unit.notes_empty = Some((start, self.pos()));
                }
                continue;
            }
            match name.as_str() {
                "originalData" => {
                    let mut depth = 1usize;
                    while depth > 0 {
                        match self.r.next_event()? {
                            ev @ (XmlEvent::Start | XmlEvent::Empty) if local(self.r.name()) == "data" => {
                                let s = self.start();
                                let id = self.attr("id");
                                if ev == XmlEvent::Start {
                                    self.r.skip_element()?;
                                }
                                if let Some(id) = id {
                                    let markup = self.text.get(s..self.pos()).unwrap_or_default().to_owned();
                                    unit.data.push((id.clone(), markup));
                                    self.data_ids.push(id);
                                }
                            }
                            XmlEvent::Start => depth += 1,
                            XmlEvent::Empty => {}
                            XmlEvent::End => depth -= 1,
                            XmlEvent::Eof => {
                                return Err(self.err(
                                    FormatErrorKind::Xml,
                                    "unexpected end of file",
                                    self.start(),
                                ))
                            }
                            XmlEvent::Text => {}
                        }
                    }
                }
                "segment" => {
                    let seg_id = self.attr("id");
                    let state = self.attr("state");
                    let segment = Span { start, start_tag_end: self.pos(), ..Span::default() };
                    let mut source: Option<(Inline, u64)> = None;
                    let mut target: Option<(Inline, Span)> = None;
                    let mut after = 0;
                    loop {
                        let ev = self.r.next_event()?;
                        match ev {
                            XmlEvent::Text => continue,
                            XmlEvent::End => break,
                            XmlEvent::Eof => {
                                return Err(self.err(
                                    FormatErrorKind::Xml,
                                    "unexpected end of file",
                                    self.start(),
                                ))
                            }
                            _ => {}
                        }
                        let s = self.start();
                        let ste = self.pos();
                        match (local(self.r.name()), ev) {
                            ("source", _) => {
                                let line = lines.line_of(self.text, s);
                                let inline = if ev == XmlEvent::Start {
                                    self.inline()?
                                } else {
                                    Inline { runs: Vec::new(), codes: Vec::new() }
                                };
                                self.check_sc_ec(&inline.runs, &mut seen_sc, s)?;
                                source = Some((inline, line));
                                after = self.pos();
                            }
                            ("target", _) => {
                                if self.doc.target_locale.is_none() {
                                    return Err(self.err(
                                        FormatErrorKind::NotXliff,
                                        "a <target> in a document whose <xliff> has no trgLang",
                                        s,
                                    ));
                                }
                                let (inline, span) = if ev == XmlEvent::Start {
                                    let inline = self.inline()?;
                                    (
                                        inline,
                                        Span {
                                            start: s,
                                            start_tag_end: ste,
                                            content_end: self.start(),
                                            end: self.pos(),
                                            empty: false,
                                        },
                                    )
                                } else {
                                    (
                                        Inline { runs: Vec::new(), codes: Vec::new() },
                                        Span {
                                            start: s,
                                            start_tag_end: ste,
                                            content_end: ste,
                                            end: ste,
                                            empty: true,
                                        },
                                    )
                                };
                                target = Some((inline, span));
                            }
                            (_, XmlEvent::Start) => self.r.skip_element()?,
                            _ => {}
                        }
                    }
                    let Some((source, line)) = source else {
                        return Err(self.err(
                            FormatErrorKind::NotXliff,
                            format!("<segment> of unit \"{unit_id}\" has no <source>"),
                            start,
                        ));
                    };
                    let approved = state.as_deref() == Some("final");
                    let target_span = target.as_ref().map(|(_, s)| *s);
                    let index = self.doc.push_segment(
                        XliffSegment {
                            unit_id: unit_id.clone(),
                            resname: resname.clone(),
                            segment_id: seg_id,
                            source: source.runs,
                            target: target.map(|(t, _)| t.runs),
                            state,
                            approved,
                            translatable: translate,
                            line,
                            source_locale: self.langs.0.clone(),
                            target_locale: self.langs.1.clone(),
                        },
                        SegInfo {
                            place: Place::V2 { segment, target: target_span, after },
                            unit: unit_index,
                            codes: source.codes,
                        },
                    );
                    unit.segments.push(index);
                }
                "notes" if !full.contains(':') => {
                    self.r.skip_element()?;
                    unit.notes_end = Some(self.start());
                }
                _ if is_mtc => {
                    self.r.skip_element()?;
                    unit.matches_end = Some(self.start());
                    unit.matches_prefix = mtc_prefix;
                }
                _ => self.r.skip_element()?,
            }
        }
        self.doc.units.push(unit);
        Ok(())
    }

    /// An `ec` (not isolated) must follow its `sc` in the unit (an XLIFF 2 core constraint; the OASIS test suite's `bad_EcBeforeSc.xlf`).
    fn check_sc_ec(&self, runs: &[Run], seen: &mut Vec<String>, at: usize) -> Result<(), FormatError> {
        for run in runs {
            match run {
                Run::PcOpen(c) if c.kind.starts_with("sc") => seen.push(c.id.clone()),
                Run::PcClose(c) if c.kind.starts_with("ec") => {
                    let isolated = c.data.contains("isolated=\"yes\"") || c.data.contains("isolated='yes'");
                    if !isolated && !seen.contains(&c.id) {
                        return Err(self.err(
                            FormatErrorKind::NotXliff,
                            format!("<ec startRef=\"{}\"> comes before its <sc id=\"{}\">", c.id, c.id),
                            at,
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}
