//! Writing an [`XliffDocument`]'s pending edits: targets, states and candidates
//! spliced into the original bytes, in the document's own encoding.

use super::read::local;
use super::render::render_runs;
use super::tag::{
    attr_spans, attr_value, open_tag_of, prefix_attrs, push_attr, set_attrs, start_tags, tag_name,
};
use super::{Place, SegInfo, Span, Unit, XliffDocument, XliffVersion, MTC_NAMESPACE};
use crate::decode::Encoding;

impl XliffDocument {
    /// The document with the pending edits, in its original encoding (characters a
    /// single-byte encoding cannot carry as character references). With no edits,
    /// the input bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        if !self.is_modified() {
            return self.raw.clone();
        }
        let mut edits = self.edits.clone();
        self.plan_edits(&mut edits);
        edits.sort_by_key(|(s, e, _)| (*s, *e));
        // Splice in the raw bytes: untouched ranges are copied, edits encoded.
        let mut out = Vec::with_capacity(self.raw.len() + edits.len() * 64);
        let mut raw_pos = 0usize;
        let mut text_pos = 0usize;
        let mut raw_at = self.bom;
        for (start, end, replacement) in &edits {
            if *start < text_pos {
                continue; // overlapping edits never happen; keep the first.
            }
            raw_at += self.raw_len(&self.text[text_pos..*start]);
            out.extend_from_slice(self.raw.get(raw_pos..raw_at).unwrap_or_default());
            if self.crlf {
                self.encode_into(&with_crlf(replacement), &mut out);
            } else {
                self.encode_into(replacement, &mut out);
            }
            raw_at += self.raw_len(&self.text[*start..*end]);
            raw_pos = raw_at;
            text_pos = *end;
        }
        out.extend_from_slice(self.raw.get(raw_pos..).unwrap_or_default());
        out
    }

    /// Raw bytes that the decoded `s` came from.
    fn raw_len(&self, s: &str) -> usize {
        match self.encoding {
            Encoding::Utf8 => s.len(),
            Encoding::Utf16Le | Encoding::Utf16Be => s.encode_utf16().count() * 2,
            Encoding::Latin1 | Encoding::Windows1252 | Encoding::Ascii => s.chars().count(),
        }
    }

    fn encode_into(&self, s: &str, out: &mut Vec<u8>) {
        match self.encoding {
            Encoding::Utf8 => out.extend_from_slice(s.as_bytes()),
            Encoding::Utf16Le => s.encode_utf16().for_each(|u| out.extend_from_slice(&u.to_le_bytes())),
            Encoding::Utf16Be => s.encode_utf16().for_each(|u| out.extend_from_slice(&u.to_be_bytes())),
            Encoding::Latin1 | Encoding::Windows1252 | Encoding::Ascii => {
                let limit = match self.encoding {
                    Encoding::Ascii => 0x80,
                    _ => 0x100,
                };
                for c in s.chars() {
                    let u = c as u32;
                    if u < 0x80 || (u >= 0xA0 && u < limit) {
                        out.push(u as u8);
                    } else {
                        out.extend_from_slice(format!("&#x{u:X};").as_bytes());
                    }
                }
            }
        }
    }

    fn plan_edits(&self, edits: &mut Vec<(usize, usize, String)>) {
        let p = &self.prefix;
        let mut rebuilt_units: Vec<usize> = Vec::new();
        let mut indices: Vec<&usize> = self.new_targets.keys().collect();
        indices.sort();
        for &index in indices {
            let Some((markup, state, qualifier)) = self.new_targets.get(&index) else { continue };
            let Some(info) = self.info.get(index) else { continue };
            let unit = self.units.get(info.unit);
            let indent = unit.map(|u| u.indent.as_str()).unwrap_or_default();
            match &info.place {
                Place::V1Unit { target, after } => {
                    let attrs = self.v1_state_attrs(state.as_deref(), qualifier.as_deref());
                    match target {
                        Some(t) => {
                            // `<target/>` opens as `<target>`.
                            let raw = &self.text[t.start..t.start_tag_end];
                            let opened = format!("{}>", open_tag_of(raw));
                            let tag = set_attrs(&opened, &attrs);
                            edits.push((t.start, t.end, format!("{tag}{markup}</{}>", tag_name(raw))));
                        }
                        None => {
                            let mut tag = format!("<{p}target");
                            if let Some(l) = self.segment_target_locale(index) {
                                push_attr(&mut tag, "xml:lang", l);
                            }
                            for (k, v) in &attrs {
                                if let Some(v) = v {
                                    push_attr(&mut tag, k, v);
                                }
                            }
                            edits.push((*after, *after, format!("{indent}{tag}>{markup}</{p}target>")));
                        }
                    }
                }
                Place::V1Mrk { target_mrk: Some(m), .. } => {
                    let tag = &self.text[m.start..m.start_tag_end];
                    let name = tag_name(tag);
                    edits.push((m.start, m.end, format!("{}>{markup}</{name}>", open_tag_of(tag))));
                    if let Some(t) = unit.and_then(|u| u.target) {
                        if !rebuilt_units.contains(&info.unit) {
                            rebuilt_units.push(info.unit);
                            let (state, qualifier) = self.unit_fill_state(info.unit);
                            let tag = &self.text[t.start..t.start_tag_end];
                            // The state covers the target's other segments too: an exact
                            // fill does not raise a state the target already has.
                            let has_state = attr_spans(tag).iter().any(|(n, _, _)| *n == "state");
                            if state.as_deref() != Some("translated") || !has_state {
                                let attrs = self.v1_state_attrs(state.as_deref(), qualifier.as_deref());
                                edits.push((t.start, t.start_tag_end, set_attrs(tag, &attrs)));
                            }
                        }
                    }
                }
                Place::V1Mrk { target_mrk: None, unit: u } => {
                    // No target with this mrk: build the whole target from seg-source once.
                    if rebuilt_units.contains(u) {
                        continue;
                    }
                    rebuilt_units.push(*u);
                    let Some(unit) = unit else { continue };
                    let Some(ss) = unit.seg_source else { continue };
                    if unit.target.is_some() {
                        continue; // a target without the mrks: left alone (reported by recycle).
                    }
                    let content = self.seg_target_content(ss, unit);
                    let (state, qualifier) = self.unit_fill_state(*u);
                    let mut tag = format!("<{p}target");
                    if let Some(l) = self.segment_target_locale(index) {
                        push_attr(&mut tag, "xml:lang", l);
                    }
                    for (k, v) in self.v1_state_attrs(state.as_deref(), qualifier.as_deref()) {
                        if let Some(v) = v {
                            push_attr(&mut tag, k, v);
                        }
                    }
                    edits.push((ss.end, ss.end, format!("{indent}{tag}>{content}</{p}target>")));
                }
                Place::V2 { segment, target, after } => {
                    let mut attrs = vec![("state", state.as_deref()), ("subState", qualifier.as_deref())];
                    let seg_tag = &self.text[segment.start..segment.start_tag_end];
                    let seg_id = self.segments.get(index).and_then(|s| s.segment_id.clone());
                    let needs_id = seg_id.is_none() && self.candidates.iter().any(|(i, _)| *i == index);
                    let new_id = format!("cmem-s{index}");
                    if needs_id {
                        attrs.push(("id", Some(&new_id)));
                    }
                    edits.push((segment.start, segment.start_tag_end, set_attrs(seg_tag, &attrs)));
                    match target {
                        Some(t) => {
                            let raw = &self.text[t.start..t.start_tag_end];
                            edits.push((
                                t.start,
                                t.end,
                                format!("{}>{markup}</{}>", open_tag_of(raw), tag_name(raw)),
                            ));
                        }
                        None => {
                            let seg_indent = self.indent_before(*after);
                            edits.push((
                                *after,
                                *after,
                                format!("{seg_indent}<{p}target>{markup}</{p}target>"),
                            ));
                        }
                    }
                }
            }
        }
        let mut root: Vec<(&str, Option<&str>)> = Vec::new();
        let added_mtc = self.plan_candidates(edits);
        self.plan_notes(edits);
        if added_mtc {
            root.push(("xmlns:mtc", Some(MTC_NAMESPACE)));
        }
        // XLIFF 2 requires trgLang once a target exists.
        if let (Some(lang), XliffVersion::V2, false) =
            (&self.new_trg_lang, self.version, self.new_targets.is_empty())
        {
            root.push(("trgLang", Some(lang)));
        }
        if !root.is_empty() {
            let r = self.root_start_tag;
            edits.push((r.start, r.start_tag_end, set_attrs(&self.text[r.start..r.start_tag_end], &root)));
        }
    }

    /// The 1.x `target` attributes of a fill: `state`, and `state-qualifier` from
    /// XLIFF 1.1 on (1.0 does not declare it; an existing one is then left alone).
    fn v1_state_attrs<'a>(
        &self,
        state: Option<&'a str>,
        qualifier: Option<&'a str>,
    ) -> Vec<(&'static str, Option<&'a str>)> {
        let mut attrs = vec![("state", state)];
        if self.v1_minor >= 1 {
            attrs.push(("state-qualifier", qualifier));
        }
        attrs
    }

    fn segment_target_locale(&self, index: usize) -> Option<&String> {
        self.segments.get(index).and_then(|s| s.target_locale.as_ref()).or(self.target_locale.as_ref())
    }

    /// The state for the target of a 1.x segmented unit: the first that asks for
    /// review among its filled segments, else the first.
    fn unit_fill_state(&self, unit: usize) -> (Option<String>, Option<String>) {
        let mut found: Option<(Option<String>, Option<String>)> = None;
        for i in self.units.get(unit).map(|u| u.segments.as_slice()).unwrap_or_default() {
            if let Some((_, state, qualifier)) = self.new_targets.get(i) {
                if state.as_deref() != Some("translated") {
                    return (state.clone(), qualifier.clone());
                }
                found.get_or_insert((state.clone(), qualifier.clone()));
            }
        }
        found.unwrap_or_default()
    }

    /// A new 1.x target for a seg-source unit: the seg-source content with each
    /// segment mrk holding its new target or nothing.
    fn seg_target_content(&self, ss: Span, unit: &Unit) -> String {
        let mut out = String::new();
        let mut pos = ss.start_tag_end;
        for &si in &unit.segments {
            let Some(SegInfo { place: Place::V1Mrk { .. }, .. }) = self.info.get(si) else { continue };
            let Some(span) = self.mrk_spans.get(&si) else { continue };
            out.push_str(&self.text[pos..span.start]);
            let tag = &self.text[span.start..span.start_tag_end];
            let name = tag_name(tag);
            match self.new_targets.get(&si) {
                Some((markup, _, _)) => out.push_str(&format!("{}>{markup}</{name}>", open_tag_of(tag))),
                None => out.push_str(&format!("{}/>", open_tag_of(tag))),
            }
            pos = span.end;
        }
        out.push_str(&self.text[pos..ss.content_end]);
        out
    }

    fn indent_before(&self, at: usize) -> String {
        let before = &self.text[..at.min(self.text.len())];
        // The white space that precedes the element ending at `at`, with its line end
        // as the document writes it (`\r\n` in a CRLF file).
        let line_start = match before.rfind('\n') {
            Some(i) if i > 0 && before.as_bytes()[i - 1] == b'\r' => i - 1,
            Some(i) => i,
            None => 0,
        };
        self.text[line_start..].chars().take_while(|c| c.is_whitespace()).collect()
    }

    /// Plans the notes: 1.x after the unit's last child (where `alt-trans` go), 2.x in
    /// the unit's `notes`, made before its `originalData` and segments when it has none.
    fn plan_notes(&self, edits: &mut Vec<(usize, usize, String)>) {
        let p = &self.prefix;
        let mut by_unit: Vec<(usize, String)> = Vec::new();
        for (index, origin, text) in &self.notes {
            let Some(info) = self.info.get(*index) else { continue };
            let Some(unit) = self.units.get(info.unit) else { continue };
            let mut xml = String::new();
            if self.version == XliffVersion::V1 {
                xml.push_str(&unit.indent);
            }
            xml.push_str(&format!("<{p}note"));
            push_attr(&mut xml, if self.version == XliffVersion::V1 { "from" } else { "category" }, origin);
            xml.push('>');
            crate::xml::escape_text_into(&format!("{origin}: {text}"), &mut xml);
            xml.push_str(&format!("</{p}note>"));
            append_for_unit(&mut by_unit, info.unit, &xml);
        }
        for (u, xml) in by_unit {
            let Some(unit) = self.units.get(u) else { continue };
            match self.version {
                XliffVersion::V1 => edits.push((unit.alt_at, unit.alt_at, xml)),
                XliffVersion::V2 => match (unit.notes_end, unit.notes_empty, unit.core_start) {
                    (Some(at), _, _) => edits.push((at, at, xml)),
                    (None, Some((start, end)), _) => {
                        edits.push((start, end, format!("<{p}notes>{xml}</{p}notes>")))
                    }
                    (None, None, Some(at)) => {
                        edits.push((at, at, format!("<{p}notes>{xml}</{p}notes>{}", unit.indent)));
                    }
                    (None, None, None) => {}
                },
            }
        }
    }

    /// Plans the candidates; true when the root must declare the `mtc` namespace.
    fn plan_candidates(&self, edits: &mut Vec<(usize, usize, String)>) -> bool {
        let p = &self.prefix;
        let mut by_unit: Vec<(usize, String)> = Vec::new();
        let mut added_ns = false;
        for (index, cands) in &self.candidates {
            let Some(info) = self.info.get(*index) else { continue };
            let Some(unit) = self.units.get(info.unit) else { continue };
            let seg = &self.segments[*index];
            let mut xml = String::new();
            match self.version {
                XliffVersion::V1 => {
                    for c in cands {
                        xml.push_str(&unit.indent);
                        xml.push_str(&format!("<{p}alt-trans"));
                        if let (Some(mid), Place::V1Mrk { .. }) = (&seg.segment_id, &info.place) {
                            push_attr(&mut xml, "mid", mid);
                        }
                        push_attr(&mut xml, "match-quality", &c.quality.to_string());
                        push_attr(&mut xml, "origin", &c.origin);
                        // `alttranstype` exists from XLIFF 1.2 on.
                        if self.v1_minor >= 2 {
                            push_attr(&mut xml, "alttranstype", "proposal");
                        }
                        xml.push('>');
                        let src = render_runs(&c.source, &info.codes);
                        let trg = render_runs(&c.target, &info.codes);
                        xml.push_str(&format!("<{p}source"));
                        if let Some(l) = seg.source_locale.as_ref().or(self.source_locale.as_ref()) {
                            push_attr(&mut xml, "xml:lang", l);
                        }
                        xml.push_str(&format!(">{}</{p}source><{p}target", src.markup));
                        if let Some(l) = self.segment_target_locale(*index) {
                            push_attr(&mut xml, "xml:lang", l);
                        }
                        xml.push_str(&format!(">{}</{p}target>", trg.markup));
                        let label = match (&c.adapted, &c.unrepaired) {
                            (None, None) => None,
                            (Some(what), None) => Some(format!("{}: adapted to this source ({what})", c.origin)),
                            (None, Some(replaced)) => {
                                Some(format!("{}: without the word repair (the fill replaced {replaced})", c.origin))
                            }
                            (Some(what), Some(replaced)) => Some(format!(
                                "{}: adapted to this source ({what}), without the word repair (the fill replaced {replaced})",
                                c.origin
                            )),
                        };
                        if let Some(label) = label {
                            let mut note = String::new();
                            crate::xml::escape_text_into(&label, &mut note);
                            xml.push_str(&format!("<{p}note>{note}</{p}note>"));
                        }
                        xml.push_str(&format!("</{p}alt-trans>"));
                    }
                }
                XliffVersion::V2 => {
                    let m = unit
                        .matches_prefix
                        .clone()
                        .or_else(|| self.mtc_prefix.clone())
                        .unwrap_or_else(|| "mtc".to_owned());
                    let id = seg.segment_id.clone().unwrap_or_else(|| format!("cmem-s{index}"));
                    if seg.segment_id.is_none() && !self.new_targets.contains_key(index) {
                        if let Place::V2 { segment, .. } = &info.place {
                            let tag = set_attrs(
                                &self.text[segment.start..segment.start_tag_end],
                                &[("id", Some(&id))],
                            );
                            edits.push((segment.start, segment.start_tag_end, tag));
                        }
                    }
                    for (k, c) in cands.iter().enumerate() {
                        let match_id = format!("cmem-{index}-{}", k + 1);
                        let mut data_refs = Vec::new();
                        let code_prefix = format!("{match_id}-");
                        let src = self_contained(
                            &render_runs(&c.source, &info.codes).markup,
                            &code_prefix,
                            &mut data_refs,
                        );
                        let trg = self_contained(
                            &render_runs(&c.target, &info.codes).markup,
                            &code_prefix,
                            &mut data_refs,
                        );
                        xml.push_str(&format!("<{m}:match"));
                        push_attr(&mut xml, "id", &match_id);
                        push_attr(&mut xml, "ref", &format!("#{id}"));
                        push_attr(&mut xml, "similarity", &c.quality.to_string());
                        push_attr(&mut xml, "matchQuality", &c.quality.to_string());
                        push_attr(&mut xml, "origin", &c.origin);
                        push_attr(&mut xml, "type", if c.assembled { "am" } else { "tm" });
                        if c.unrepaired.is_some() {
                            push_attr(&mut xml, "subType", "cmem:unrepaired");
                        } else if c.adapted.is_some() {
                            push_attr(&mut xml, "subType", "cmem:adapted");
                        }
                        xml.push('>');
                        let data: String = data_refs
                            .iter()
                            .filter_map(|r| unit.data.iter().find(|(d, _)| d == r))
                            .map(|(_, markup)| markup.as_str())
                            .collect();
                        if !data.is_empty() {
                            xml.push_str(&format!("<{p}originalData>{data}</{p}originalData>"));
                        }
                        xml.push_str(&format!(
                            "<{p}source>{src}</{p}source><{p}target>{trg}</{p}target></{m}:match>"
                        ));
                    }
                }
            }
            append_for_unit(&mut by_unit, info.unit, &xml);
        }
        for (u, xml) in by_unit {
            let Some(unit) = self.units.get(u) else { continue };
            match self.version {
                XliffVersion::V1 => edits.push((unit.alt_at, unit.alt_at, xml)),
                XliffVersion::V2 => match unit.matches_end {
                    Some(at) => edits.push((at, at, xml)),
                    None => {
                        let m = self.mtc_prefix.clone().unwrap_or_else(|| "mtc".to_owned());
                        let at = unit.unit_start_tag_end;
                        edits.push((at, at, format!("{}<{m}:matches>{xml}</{m}:matches>", unit.indent)));
                        if self.mtc_prefix.is_none() {
                            added_ns = true;
                        }
                    }
                },
            }
        }
        added_ns
    }
}

/// Appends `xml` to what goes into unit `unit`, in the order units are first met.
fn append_for_unit(by_unit: &mut Vec<(usize, String)>, unit: usize, xml: &str) {
    match by_unit.iter_mut().find(|(u, _)| *u == unit) {
        Some((_, s)) => s.push_str(xml),
        None => by_unit.push((unit, xml.to_owned())),
    }
}

/// `s` with each line end that is a bare `\n` written `\r\n`. Inserted markup and text
/// (whose line ends the reader normalized to `\n`) then match a CRLF document; a parser
/// reads `\r\n` back as `\n` (XML 1.0 §2.11), so the text is unchanged.
fn with_crlf(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut prev = '\0';
    for c in s.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

/// The inline elements of XLIFF 2 whose ids share the unit's id space.
const V2_INLINE: &[&str] = &["ph", "pc", "sc", "ec", "mrk", "sm", "em"];

/// Candidate markup made self-contained (XLIFF 2 core: inline ids are unique within
/// the unit, and a `dataRef` resolves in the `originalData` of the element that holds
/// it — for a `mtc:match`, its own): every inline id, and the `startRef`/`copyOf` that
/// point to one, gets `prefix`; each data id used is added to `data_refs` once, for the
/// match's own `originalData`.
fn self_contained(markup: &str, prefix: &str, data_refs: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(markup.len() + 64);
    let mut pos = 0;
    for (start, end) in start_tags(markup) {
        let tag = &markup[start..end];
        if !V2_INLINE.contains(&local(tag_name(tag))) {
            continue;
        }
        for key in ["dataRef", "dataRefStart", "dataRefEnd"] {
            if let Some(v) = attr_value(tag, key) {
                if !data_refs.iter().any(|d| d == v) {
                    data_refs.push(v.to_owned());
                }
            }
        }
        out.push_str(&markup[pos..start]);
        out.push_str(&prefix_attrs(tag, &["id", "startRef", "copyOf"], prefix));
        pos = end;
    }
    out.push_str(&markup[pos..]);
    out
}
