//! Reading XLIFF 1.0–1.2 units (`trans-unit`, with `seg-source` segments) for
//! [`XliffDocument`](super::XliffDocument).

use std::collections::HashMap;
use std::io::Read;

use super::read::{local, Inline, Lines, Parser};
use super::{Place, SegInfo, Span, Unit, XliffSegment};
use crate::error::{FormatError, FormatErrorKind};
use crate::xml::XmlEvent;

impl<R: Read> Parser<'_, R> {
    /// A 1.x `trans-unit` whose start tag was just read.
    pub(super) fn unit_v1(&mut self, translate: bool, lines: &mut Lines) -> Result<(), FormatError> {
        let unit_id = self.attr("id").unwrap_or_default();
        let resname = self.attr("resname");
        let approved = self.r.attr("approved") == Some("yes");
        let unit_index = self.doc.units.len();
        let mut unit = Unit::default();
        let mut source: Option<(Inline, u64)> = None;
        let mut segs: Vec<(String, Inline, u64, Span)> = Vec::new();
        let mut target: Option<Inline> = None;
        let mut target_mrks: HashMap<String, (Inline, Span)> = HashMap::new();
        let mut state: Option<String> = None;
        let mut first = true;
        let mut after = 0usize;
        while let Some(ev) = self.unit_child(&mut unit, &mut first)? {
            let start = self.start();
            let full = self.r.name().to_owned();
            let name = local(&full).to_owned();
            match name.as_str() {
                "source" => {
                    let line = lines.line_of(self.text, start);
                    let inline = if ev == XmlEvent::Start {
                        self.inline()?
                    } else {
                        Inline { runs: Vec::new(), codes: Vec::new() }
                    };
                    source = Some((inline, line));
                    after = self.pos();
                    unit.alt_at = self.pos();
                }
                "seg-source" if ev == XmlEvent::Start => {
                    let start_tag_end = self.pos();
                    let mut depth = 1usize;
                    let mut content_end = start_tag_end;
                    while depth > 0 {
                        match self.r.next_event()? {
                            XmlEvent::Start
                                if local(self.r.name()) == "mrk" && self.r.attr("mtype") == Some("seg") =>
                            {
                                let s = self.start();
                                let ste = self.pos();
                                let mid = self.attr("mid").unwrap_or_default();
                                let line = lines.line_of(self.text, s);
                                let inline = self.inline()?;
                                let span = Span {
                                    start: s,
                                    start_tag_end: ste,
                                    content_end: self.start(),
                                    end: self.pos(),
                                    empty: false,
                                };
                                segs.push((mid, inline, line, span));
                            }
                            XmlEvent::Start => depth += 1,
                            XmlEvent::End => {
                                depth -= 1;
                                content_end = self.start();
                            }
                            XmlEvent::Eof => {
                                return Err(self.err(
                                    FormatErrorKind::Xml,
                                    "unexpected end of file",
                                    self.start(),
                                ))
                            }
                            _ => {}
                        }
                    }
                    unit.seg_source =
                        Some(Span { start, start_tag_end, content_end, end: self.pos(), empty: false });
                    after = self.pos();
                    unit.alt_at = self.pos();
                }
                "target" => {
                    state = self.attr("state");
                    let start_tag_end = self.pos();
                    let mut span = Span {
                        start,
                        start_tag_end,
                        content_end: start_tag_end,
                        end: start_tag_end,
                        empty: true,
                    };
                    if ev == XmlEvent::Start {
                        if unit.seg_source.is_some() && !segs.is_empty() {
                            let mut depth = 1usize;
                            while depth > 0 {
                                match self.r.next_event()? {
                                    XmlEvent::Start
                                        if local(self.r.name()) == "mrk"
                                            && self.r.attr("mtype") == Some("seg") =>
                                    {
                                        let s = self.start();
                                        let ste = self.pos();
                                        let mid = self.attr("mid").unwrap_or_default();
                                        let inline = self.inline()?;
                                        let sp = Span {
                                            start: s,
                                            start_tag_end: ste,
                                            content_end: self.start(),
                                            end: self.pos(),
                                            empty: false,
                                        };
                                        target_mrks.insert(mid, (inline, sp));
                                    }
                                    XmlEvent::Empty
                                        if local(self.r.name()) == "mrk"
                                            && self.r.attr("mtype") == Some("seg") =>
                                    {
                                        let s = self.start();
                                        let mid = self.attr("mid").unwrap_or_default();
                                        let sp = Span {
                                            start: s,
                                            start_tag_end: self.pos(),
                                            content_end: self.pos(),
                                            end: self.pos(),
                                            empty: true,
                                        };
                                        target_mrks.insert(
                                            mid,
                                            (Inline { runs: Vec::new(), codes: Vec::new() }, sp),
                                        );
                                    }
                                    XmlEvent::Start => depth += 1,
                                    XmlEvent::End => depth -= 1,
                                    XmlEvent::Eof => {
                                        return Err(self.err(
                                            FormatErrorKind::Xml,
                                            "unexpected end of file",
                                            self.start(),
                                        ))
                                    }
                                    _ => {}
                                }
                            }
                            target = Some(Inline { runs: Vec::new(), codes: Vec::new() });
                        } else {
                            target = Some(self.inline()?);
                        }
                        span.content_end = self.start();
                        span.end = self.pos();
                        span.empty = false;
                    } else {
                        target = Some(Inline { runs: Vec::new(), codes: Vec::new() });
                    }
                    unit.target = Some(span);
                    unit.alt_at = self.pos();
                }
                _ => {
                    // Core children after the target (`context-group`, `count-group`,
                    // `prop-group`, `note`, `alt-trans`) come before new `alt-trans`: the
                    // 1.0 DTD and the 1.1 schema order them so, and the 1.2 schema lets
                    // only foreign elements follow them.
                    let core = match full.rsplit_once(':') {
                        Some((p, _)) => self.doc.prefix.strip_suffix(':') == Some(p),
                        None => self.doc.prefix.is_empty(),
                    };
                    if ev == XmlEvent::Start {
                        self.r.skip_element()?;
                    }
                    if core {
                        unit.alt_at = self.pos();
                    }
                }
            }
        }
        let Some((source, line)) = source else {
            return Err(self.err(
                FormatErrorKind::NotXliff,
                format!("<trans-unit id=\"{unit_id}\"> has no <source>"),
                self.start(),
            ));
        };
        let approved = approved || matches!(state.as_deref(), Some("final" | "signed-off"));
        if segs.is_empty() {
            let index = self.doc.push_segment(
                XliffSegment {
                    unit_id,
                    resname: resname.clone(),
                    segment_id: None,
                    source: source.runs,
                    target: target.map(|t| t.runs),
                    state,
                    approved,
                    translatable: translate,
                    line,
                    source_locale: self.langs.0.clone(),
                    target_locale: self.langs.1.clone(),
                },
                SegInfo {
                    place: Place::V1Unit { target: unit.target, after },
                    unit: unit_index,
                    codes: source.codes,
                },
            );
            unit.segments.push(index);
        } else {
            for (mid, inline, line, span) in segs {
                let tm = target_mrks.remove(&mid);
                let index = self.doc.push_segment(
                    XliffSegment {
                        unit_id: unit_id.clone(),
                        resname: resname.clone(),
                        segment_id: Some(mid),
                        source: inline.runs,
                        target: tm.as_ref().map(|(t, _)| t.runs.clone()),
                        state: state.clone(),
                        approved,
                        translatable: translate,
                        line,
                        source_locale: self.langs.0.clone(),
                        target_locale: self.langs.1.clone(),
                    },
                    SegInfo {
                        place: Place::V1Mrk { target_mrk: tm.map(|(_, s)| s), unit: unit_index },
                        unit: unit_index,
                        codes: inline.codes,
                    },
                );
                unit.segments.push(index);
                self.doc.mrk_spans.insert(index, span);
            }
        }
        self.doc.units.push(unit);
        Ok(())
    }
}
