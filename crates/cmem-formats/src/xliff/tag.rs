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

/// The value of attribute `name` in a raw, well-formed start tag, as written (not
/// unescaped).
pub(super) fn attr_value<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let (_, _, end) = attr_spans(tag).into_iter().find(|(n, _, _)| *n == name)?;
    let quoted = &tag[..end.saturating_sub(1)];
    let open = quoted.rfind(['"', '\''])?;
    Some(&tag[open + 1..end - 1])
}

/// `tag` with `prefix` put before the values of the attributes `names`.
pub(super) fn prefix_attrs(tag: &str, names: &[&str], prefix: &str) -> String {
    let mut out = String::with_capacity(tag.len() + 16);
    let mut pos = 0;
    for (name, _, end) in attr_spans(tag) {
        if !names.contains(&name) {
            continue;
        }
        let Some(open) = tag[..end.saturating_sub(1)].rfind(['"', '\'']) else { continue };
        out.push_str(&tag[pos..=open]);
        out.push_str(prefix);
        pos = open + 1;
    }
    out.push_str(&tag[pos..]);
    out
}

/// The start and end of each start (or empty-element) tag in `markup`: well-formed
/// element content whose text is escaped, so a `<` outside a quoted value opens markup.
pub(super) fn start_tags(markup: &str) -> Vec<(usize, usize)> {
    let b = markup.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' || !b.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        let mut quote: Option<u8> = None;
        while i < b.len() {
            match (quote, b[i]) {
                (None, b'"' | b'\'') => quote = Some(b[i]),
                (Some(q), c) if c == q => quote = None,
                (None, b'>') => break,
                _ => {}
            }
            i += 1;
        }
        i += 1;
        out.push((start, i.min(b.len())));
    }
    out
}
