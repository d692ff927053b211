//! Editing raw start tags in place: find, set and remove attributes while every other
//! byte of the tag (quoting, spacing, order) stays as it was.

use crate::xml::escape_attr_into;

pub(super) fn push_attr(out: &mut String, key: &str, value: &str) {
    out.push(' ');
    out.push_str(key);
    out.push_str("=\"");
    escape_attr_into(value, out);
    out.push('"');
}

/// The element name of a raw start tag.
pub(super) fn tag_name(tag: &str) -> &str {
    let rest = tag.strip_prefix('<').unwrap_or(tag);
    let end = rest.find(|c: char| c.is_whitespace() || c == '/' || c == '>').unwrap_or(rest.len());
    &rest[..end]
}

/// A raw start (or empty-element) tag without its closing `>` / `/>`.
pub(super) fn open_tag_of(tag: &str) -> &str {
    let t = tag.strip_suffix('>').unwrap_or(tag);
    let t = t.strip_suffix('/').unwrap_or(t);
    t.trim_end()
}

/// The attributes of a raw, well-formed start tag: (name, start of the white space
/// before it, end of its value's closing quote).
pub(super) fn attr_spans(tag: &str) -> Vec<(&str, usize, usize)> {
    let b = tag.as_bytes();
    let mut out = Vec::new();
    let mut i = 1 + tag_name(tag).len();
    loop {
        let ws = i;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() || b[i] == b'/' || b[i] == b'>' {
            break;
        }
        let name_start = i;
        while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let name = &tag[name_start..i];
        while i < b.len() && b[i] != b'"' && b[i] != b'\'' {
            i += 1;
        }
        let Some(&quote) = b.get(i) else { break };
        i += 1;
        while i < b.len() && b[i] != quote {
            i += 1;
        }
        i += 1;
        out.push((name, ws, i.min(b.len())));
    }
    out
}

/// `tag` with attributes set (`Some`) or removed (`None`), everything else kept.
pub(super) fn set_attrs(tag: &str, attrs: &[(&str, Option<&str>)]) -> String {
    let spans = attr_spans(tag);
    let mut out = String::with_capacity(tag.len() + 64);
    let mut pos = 0;
    let mut appended = String::new();
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    for (key, value) in attrs {
        match spans.iter().find(|(n, _, _)| n == key) {
            Some(&(_, s, e)) => {
                let mut rep = String::new();
                if let Some(v) = value {
                    push_attr(&mut rep, key, v);
                }
                replaced.push((s, e, rep));
            }
            None => {
                if let Some(v) = value {
                    push_attr(&mut appended, key, v);
                }
            }
        }
    }
    replaced.sort_by_key(|(s, _, _)| *s);
    for (s, e, rep) in replaced {
        out.push_str(&tag[pos..s]);
        out.push_str(&rep);
        pos = e;
    }
    let head = open_tag_of(tag);
    let tail_at = head.len().max(pos);
    out.push_str(&tag[pos..tail_at]);
    out.push_str(&appended);
    out.push_str(&tag[tail_at..]);
    out
}
