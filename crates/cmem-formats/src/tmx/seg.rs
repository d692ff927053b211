//! A `seg`'s inline elements → runs (the mapping is described in
//! [`inline`](crate::inline)).

use std::io::Read;

use cmem_core::Run;

use super::read::{Pos, TmxReader, TuCtx};
use crate::error::{FormatError, FormatErrorKind};
use crate::inline::{bpt_kind, hi_kind, ph_entity, ph_run, read_code_content, HI_TYPE, SUB_SUFFIX};
use crate::xml::XmlEvent;

impl<R: Read> TmxReader<R> {
    pub(super) fn read_seg(&mut self, ctx: &mut TuCtx) -> Result<Vec<Run>, FormatError> {
        let mut b = SegBuilder::default();
        // Open `hi` and unknown elements: Some(id) for a hi, None for an unknown one.
        let mut frames: Vec<Option<String>> = Vec::new();
        loop {
            let at = self.here();
            let ev = self.xml.next_event()?;
            match ev {
                XmlEvent::Text => b.text(self.xml.text()),
                XmlEvent::Start if is_code_element(self.xml.name()) => {
                    // The run is made from the start tag; its content (read next, which
                    // replaces the reader's attributes) then becomes its data or value.
                    let into_equiv = self.code(ctx, &mut b, at);
                    let content = read_code_content(&mut self.xml)?;
                    if into_equiv && content.has_sub() {
                        let message = "<sub> in an entity placeholder: only its text is kept";
                        self.problem(ctx, FormatErrorKind::InvalidField, message, at);
                    }
                    if let Some(code) = b.runs.last_mut().and_then(Run::code_mut) {
                        if into_equiv {
                            code.equiv = content.into_text();
                        } else {
                            if content.has_sub() {
                                code.kind.push_str(SUB_SUFFIX);
                            }
                            (code.data, code.equiv) = content.into_data();
                        }
                    }
                }
                XmlEvent::Empty if is_code_element(self.xml.name()) => {
                    self.code(ctx, &mut b, at);
                }
                XmlEvent::Start | XmlEvent::Empty if self.xml.name() == "hi" => {
                    let id = self.xml.attr("x").unwrap_or_default().to_owned();
                    let kind = hi_kind(self.xml.attr("type"));
                    b.runs.push(Run::PcOpen(cmem_core::Code { id: id.clone(), kind, ..Default::default() }));
                    if ev == XmlEvent::Empty {
                        b.runs.push(Run::PcClose(hi_close(id)));
                    } else {
                        frames.push(Some(id));
                    }
                }
                XmlEvent::Start => {
                    self.problem(
                        ctx,
                        FormatErrorKind::InvalidField,
                        format!("unknown element <{}> in <seg>; its text is kept", self.xml.name()),
                        at,
                    );
                    frames.push(None);
                }
                XmlEvent::Empty => {
                    self.problem(
                        ctx,
                        FormatErrorKind::InvalidField,
                        format!("unknown element <{}/> in <seg> skipped", self.xml.name()),
                        at,
                    );
                }
                XmlEvent::End => match frames.pop() {
                    Some(Some(id)) => b.runs.push(Run::PcClose(hi_close(id))),
                    Some(None) => {}
                    None => break,
                },
                XmlEvent::Eof => {
                    return Err(self.error_at(FormatErrorKind::Xml, "unexpected end of file in <seg>", at))
                }
            }
        }
        for (i, at) in std::mem::take(&mut b.open) {
            self.problem(
                ctx,
                FormatErrorKind::UnbalancedCode,
                format!("<bpt i=\"{i}\"> has no matching <ept>"),
                at,
            );
        }
        Ok(b.runs)
    }

    /// Pushes the run of the code element just started (`ph`, `bpt`, `ept`, `it`, `ut`)
    /// with no content yet; true when its content is an entity's value (`equiv`)
    /// rather than native data.
    fn code(&self, ctx: &mut TuCtx, b: &mut SegBuilder, at: Pos) -> bool {
        let x = self.xml.attr("x");
        let kind = self.xml.attr("type");
        let code = |id: &str, kind: String| cmem_core::Code {
            id: id.to_owned(),
            equiv: String::new(),
            kind,
            data: String::new(),
        };
        match self.xml.name() {
            "ph" => {
                let assoc = self.xml.attr("assoc");
                b.runs.push(ph_run(x, kind, assoc, String::new()));
                return ph_entity(kind, assoc).is_some();
            }
            "ut" => b.runs.push(Run::Ph(code(x.unwrap_or_default(), String::new()))),
            "bpt" => {
                let i = self.xml.attr("i");
                if i.is_none() {
                    self.problem(ctx, FormatErrorKind::UnbalancedCode, "<bpt> has no i attribute", at);
                }
                let i = i.unwrap_or_default();
                if b.open.iter().any(|(o, _)| o == i) {
                    self.problem(
                        ctx,
                        FormatErrorKind::UnbalancedCode,
                        format!("<bpt i=\"{i}\"> reuses the i of an open <bpt>"),
                        at,
                    );
                } else {
                    b.open.push((i.to_owned(), at));
                }
                b.runs.push(Run::PcOpen(code(i, bpt_kind(kind, x))));
            }
            "ept" => {
                let i = self.xml.attr("i").unwrap_or_default();
                match b.open.iter().position(|(o, _)| o == i) {
                    Some(p) => {
                        b.open.remove(p);
                    }
                    None => {
                        self.problem(
                            ctx,
                            FormatErrorKind::UnbalancedCode,
                            format!("<ept i=\"{i}\"> has no matching <bpt>"),
                            at,
                        );
                    }
                }
                b.runs.push(Run::PcClose(code(i, String::new())));
            }
            _ => {
                // it
                let c = code(x.unwrap_or_default(), kind.unwrap_or_default().to_owned());
                match self.xml.attr("pos") {
                    Some("begin") => b.runs.push(Run::PcOpen(c)),
                    Some("end") => b.runs.push(Run::PcClose(c)),
                    other => {
                        self.problem(
                            ctx,
                            FormatErrorKind::InvalidField,
                            format!(
                                "<it> pos is {:?}, not \"begin\" or \"end\"; kept as a placeholder",
                                other.unwrap_or("")
                            ),
                            at,
                        );
                        b.runs.push(Run::Ph(c));
                    }
                }
            }
        }
        false
    }
}

/// Runs being built for one `seg`.
#[derive(Default)]
struct SegBuilder {
    runs: Vec<Run>,
    /// Open `bpt`s: `i` and where.
    open: Vec<(String, Pos)>,
}

impl SegBuilder {
    fn text(&mut self, t: &str) {
        if let Some(Run::Text(last)) = self.runs.last_mut() {
            last.push_str(t);
        } else if !t.is_empty() {
            self.runs.push(Run::Text(t.to_owned()));
        }
    }
}

/// The close of a pair made from a `<hi>`.
fn hi_close(id: String) -> cmem_core::Code {
    cmem_core::Code { id, kind: HI_TYPE.to_owned(), ..Default::default() }
}

fn is_code_element(name: &str) -> bool {
    matches!(name, "ph" | "bpt" | "ept" | "it" | "ut")
}
