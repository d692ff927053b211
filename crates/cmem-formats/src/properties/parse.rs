//! The syntax of `java.util.Properties`: the charset, logical lines, keys, separators
//! and escapes, read as `Properties.load` reads them, with every property's place in
//! the text kept so that recycle can replace its value and nothing else.

use std::fmt::Write as _;
use std::ops::Range;

use crate::error::{Format, FormatError, FormatErrorKind};

/// How a bundle's bytes were read, and so how new values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charset {
    /// ASCII only (either reading gives the same): new values escape what is not ASCII.
    Ascii,
    /// Valid UTF-8 with other characters: new values are written as they are.
    Utf8,
    /// Not valid UTF-8, so ISO-8859-1: new values escape what is not ASCII.
    Latin1,
}

/// A parsed bundle: its text, its properties and the problems of its lines.
#[derive(Debug)]
pub(crate) struct Bundle {
    pub(crate) file: String,
    pub(crate) text: String,
    pub(crate) charset: Charset,
    bom: bool,
    /// The line break of its first line (`\n` when it has none).
    pub(crate) newline: &'static str,
    pub(crate) properties: Vec<Property>,
    /// Lines that are no property (a bad escape), located.
    pub(crate) problems: Vec<FormatError>,
}

/// One `key=value` of a bundle.
#[derive(Debug, Clone)]
pub(crate) struct Property {
    pub(crate) key: String,
    pub(crate) value: String,
    /// The line its key is on (from 1).
    pub(crate) line: u64,
    /// Where its first line starts in the text (comments go in there).
    pub(crate) start: usize,
    /// Its value as written, continuation lines included, to the end of its last line.
    pub(crate) value_span: Range<usize>,
    /// A key with nothing after it (`key`): a value written there needs a separator.
    pub(crate) bare: bool,
    /// The comment lines right above it (no blank line between), as written.
    pub(crate) comments: Vec<String>,
}

impl Property {
    /// Marked by recycle as not for import yet: `# cmem: fuzzy…` (a fill to review) or
    /// `# cmem: untranslated` (the source text kept).
    pub(crate) fn unreviewed(&self) -> bool {
        self.comments
            .iter()
            .any(|c| c.starts_with(super::MARK_FUZZY) || c.starts_with(super::MARK_UNTRANSLATED))
    }
}

/// Reads a bundle's bytes: UTF-8 when they are valid UTF-8 (as Java 9 and later read
/// resource bundles), else ISO-8859-1 (as `Properties.load(InputStream)` reads them).
/// A UTF-8 byte-order mark is skipped (and kept on writing); after one, the bytes must
/// be UTF-8.
///
/// # Errors
/// [`FormatErrorKind::Encoding`]: a byte-order mark followed by bytes that are not UTF-8.
pub(crate) fn read(raw: &[u8], file: &str) -> Result<Bundle, FormatError> {
    let (body, bom) = match raw.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (rest, true),
        None => (raw, false),
    };
    let (text, charset) = match std::str::from_utf8(body) {
        Ok(t) if body.is_ascii() => (t.to_owned(), Charset::Ascii),
        Ok(t) => (t.to_owned(), Charset::Utf8),
        Err(e) if bom => {
            let good = std::str::from_utf8(&body[..e.valid_up_to()]).unwrap_or_default();
            let line = good.matches('\n').count() as u64 + 1;
            let column = good.rsplit('\n').next().map_or(0, str::len) as u64 + 1;
            return Err(FormatError::new(
                Format::Properties,
                FormatErrorKind::Encoding,
                "the file starts with a UTF-8 byte-order mark but is not UTF-8 from here; save it as \
                 UTF-8, or without the mark as ISO-8859-1",
            )
            .in_file(file)
            .at(line, column));
        }
        Err(_) => (body.iter().map(|&b| char::from(b)).collect(), Charset::Latin1),
    };
    Ok(parse(text, charset, bom, file))
}

/// The bytes of `text` in `bundle`'s charset (and its byte-order mark). Text inserted
/// into an ASCII or ISO-8859-1 bundle is escaped ASCII ([`escape_value`]), so every
/// character fits.
pub(crate) fn encode(bundle: &Bundle, text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 3);
    if bundle.bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    match bundle.charset {
        Charset::Ascii | Charset::Utf8 => out.extend_from_slice(text.as_bytes()),
        // Read from ISO-8859-1, so every character is one byte.
        Charset::Latin1 => out.extend(text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))),
    }
    out
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

/// The end of the physical line starting at `pos` (before its break) and where the
/// next one starts.
fn line_end(text: &str, pos: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    match bytes[pos..].iter().position(|&b| b == b'\n' || b == b'\r') {
        None => (text.len(), text.len()),
        Some(i) => {
            let eol = pos + i;
            let crlf = bytes[eol] == b'\r' && bytes.get(eol + 1) == Some(&b'\n');
            (eol, eol + if crlf { 2 } else { 1 })
        }
    }
}

/// Where each physical line starts (line breaks `\n`, `\r\n`, `\r`).
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let mut pos = 0;
    while pos < text.len() {
        let (_, next) = line_end(text, pos);
        if next < text.len() {
            starts.push(next);
        }
        pos = next;
    }
    starts
}

/// Parses decoded text (see [`read`]).
fn parse(text: String, charset: Charset, bom: bool, file: &str) -> Bundle {
    let newline = match text.find(['\n', '\r']) {
        Some(i) if text[i..].starts_with("\r\n") => "\r\n",
        Some(i) if text[i..].starts_with('\r') => "\r",
        _ => "\n",
    };
    let starts = line_starts(&text);
    let at = |offset: usize| {
        let line = starts.partition_point(|&s| s <= offset);
        let column = offset - starts[line.saturating_sub(1)] + 1;
        (line as u64, column as u64)
    };
    let mut properties = Vec::new();
    let mut problems = Vec::new();
    let mut comments: Vec<String> = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let (eol, next) = line_end(&text, pos);
        let first = pos + text[pos..eol].len() - text[pos..eol].trim_start_matches(is_space).len();
        // A line of a lone backslash goes on with nothing: Java reads it as blank, and
        // the next line starts afresh (a `#` there begins a comment).
        if first == eol || &text[first..eol] == "\\" {
            comments.clear();
            pos = next;
            continue;
        }
        if text[first..].starts_with(['#', '!']) {
            comments.push(text[first..eol].to_owned());
            pos = next;
            continue;
        }
        // The logical line: a line ending in an odd number of backslashes goes on in the
        // next, whose leading white space is skipped; comments never go on.
        let start = pos;
        let mut chars: Vec<(usize, char)> = Vec::new();
        let (mut from, mut to, mut after) = (first, eol, next);
        let end = loop {
            let trailing = text[from..to].bytes().rev().take_while(|&b| b == b'\\').count();
            let goes_on = trailing % 2 == 1;
            let content_end = if goes_on { to - 1 } else { to };
            chars.extend(text[from..content_end].char_indices().map(|(i, c)| (from + i, c)));
            if !goes_on || after >= text.len() {
                break to;
            }
            let (next_eol, next_next) = line_end(&text, after);
            from = after + text[after..next_eol].len()
                - text[after..next_eol].trim_start_matches(is_space).len();
            (to, after) = (next_eol, next_next);
        };
        pos = after;
        // The key ends at the first unescaped `=`, `:` or white space; then white space
        // and at most one `=` or `:` (when white space ended the key) go before the value.
        let mut k = 0;
        let mut escaped = false;
        let mut separator = false;
        let mut value_from = chars.len();
        while k < chars.len() {
            let c = chars[k].1;
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '=' || c == ':' {
                (separator, value_from) = (true, k + 1);
                break;
            } else if is_space(c) {
                value_from = k + 1;
                break;
            }
            k += 1;
        }
        let bare = k == chars.len();
        let mut v = value_from;
        while let Some(&(_, c)) = chars.get(v) {
            if !is_space(c) {
                if !separator && (c == '=' || c == ':') {
                    separator = true;
                } else {
                    break;
                }
            }
            v += 1;
        }
        let value_span = chars.get(v).map_or(end..end, |&(o, _)| o..end);
        let (line, _) = at(start);
        let unescaped = unescape(&chars[..k]).and_then(|key| Ok((key, unescape(&chars[v..])?)));
        match unescaped {
            Ok((key, value)) => properties.push(Property {
                key,
                value,
                line,
                start,
                value_span,
                bare,
                comments: std::mem::take(&mut comments),
            }),
            Err((offset, message)) => {
                let (line, column) = at(offset);
                comments.clear();
                problems.push(
                    FormatError::new(Format::Properties, FormatErrorKind::InvalidLine, message)
                        .in_file(file)
                        .at(line, column),
                );
            }
        }
    }
    Bundle { file: file.to_owned(), text, charset, bom, newline, properties, problems }
}

/// A key's or value's characters without their escapes: `\t`, `\n`, `\r`, `\f`,
/// `\uXXXX` (UTF-16, pairs of surrogates joined) and `\` before any other character,
/// which stands for itself (`\=`, `\:`, `\ `, `\\`, `\#`). `Err` gives where a `\u`
/// escape is wrong and the message saying how to write it.
fn unescape(chars: &[(usize, char)]) -> Result<String, (usize, String)> {
    let mut out = String::with_capacity(chars.len());
    // A high surrogate waiting for its low half: its value and where it was.
    let mut high: Option<(u32, usize)> = None;
    let unpaired = |(unit, offset): (u32, usize)| {
        (
            offset,
            format!(
                "\\u{unit:04X} is the first half of a UTF-16 surrogate pair, and no second half \
                 (\\uDC00 to \\uDFFF) follows it; write the character itself, or both halves"
            ),
        )
    };
    let mut i = 0;
    while i < chars.len() {
        let (offset, c) = chars[i];
        i += 1;
        let unit = match c {
            '\\' => match chars.get(i).map(|&(_, e)| e) {
                // Only at the end of the file: `Properties.load` drops it too.
                None => break,
                Some('u') => {
                    let digits: String = chars[i + 1..].iter().take(4).map(|&(_, d)| d).collect();
                    let value = (digits.len() == 4 && digits.chars().all(|d| d.is_ascii_hexdigit()))
                        .then(|| u32::from_str_radix(&digits, 16).ok())
                        .flatten();
                    let Some(value) = value else {
                        let good = digits.chars().take_while(char::is_ascii_hexdigit).count();
                        let shown: String = digits.chars().take(good + 1).collect();
                        return Err((
                            offset,
                            format!(
                                "\"\\u{shown}\" is not a Unicode escape: \\u takes four hexadecimal \
                                 digits (\\u00E9 for é); write the character itself or complete the \
                                 escape, or write \\\\u for a backslash followed by u"
                            ),
                        ));
                    };
                    i += 5;
                    value
                }
                Some(e) => {
                    i += 1;
                    u32::from(match e {
                        't' => '\t',
                        'n' => '\n',
                        'r' => '\r',
                        'f' => '\x0c',
                        other => other,
                    })
                }
            },
            c => u32::from(c),
        };
        match (high.take(), unit) {
            (Some((h, _)), 0xDC00..=0xDFFF) => {
                out.push(
                    char::from_u32(0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00)).unwrap_or('\u{FFFD}'),
                );
            }
            (Some(pending), _) => return Err(unpaired(pending)),
            (None, 0xD800..=0xDBFF) => high = Some((unit, offset)),
            (None, 0xDC00..=0xDFFF) => {
                return Err((
                    offset,
                    format!(
                        "\\u{unit:04X} is the second half of a UTF-16 surrogate pair without its first \
                         half (\\uD800 to \\uDBFF) before it; write the character itself, or both halves"
                    ),
                ))
            }
            (None, _) => out.push(char::from_u32(unit).unwrap_or('\u{FFFD}')),
        }
    }
    match high {
        Some(pending) => Err(unpaired(pending)),
        None => Ok(out),
    }
}

/// A value as `Properties.load` reads it back: `\\`, `\t`, `\n`, `\r`, `\f`, a
/// leading space, `=` or `:` escaped, other control characters (and, with `ascii`,
/// everything outside ASCII) as `\uXXXX`. Written on one line.
pub(crate) fn escape_value(value: &str, ascii: bool) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    for (i, c) in value.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\x0c' => out.push_str("\\f"),
            ' ' | '=' | ':' if i == 0 => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || (ascii && !c.is_ascii()) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04X}");
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Bundle {
        read(text.as_bytes(), "t.properties").unwrap()
    }

    fn pairs(b: &Bundle) -> Vec<(&str, &str)> {
        b.properties.iter().map(|p| (p.key.as_str(), p.value.as_str())).collect()
    }

    #[test]
    fn separators_comments_and_blank_lines() {
        let b = parsed(
            "# a comment\n! another\n\n  a=1\nb : 2\nc 3\nd\te\\=f\ng=\nh\n  i   =  \nj:=k\nl = = m\n",
        );
        assert_eq!(
            pairs(&b),
            [
                ("a", "1"),
                ("b", "2"),
                ("c", "3"),
                ("d", "e=f"),
                ("g", ""),
                ("h", ""),
                ("i", ""),
                ("j", "=k"),
                ("l", "= m")
            ]
        );
        assert!(b.problems.is_empty());
        assert_eq!(b.properties[0].comments, Vec::<String>::new(), "a blank line ends a comment block");
        assert_eq!(b.properties[0].line, 4);
        assert!(b.properties[5].bare && !b.properties[4].bare);
    }

    #[test]
    fn escapes_in_keys_and_values() {
        let b = parsed(
            "key\\ with\\ spaces = value\nk\\:1=a\\:b\\=c\ntabs=\\tx\\ny\\\\z\\q\nuni=caf\\u00e9 \\uD83D\\uDE00\n\
             lead=\\  two\n",
        );
        assert_eq!(
            pairs(&b),
            [
                ("key with spaces", "value"),
                ("k:1", "a:b=c"),
                ("tabs", "\tx\ny\\zq"),
                ("uni", "café 😀"),
                ("lead", "  two"),
            ]
        );
    }

    #[test]
    fn continuation_lines_join_without_their_leading_space() {
        let b = parsed("fruits = apple, \\\n         banana, \\\r\n\tpear\nnext=1\\\\\nlast=x\\");
        assert_eq!(pairs(&b), [("fruits", "apple, banana, pear"), ("next", "1\\"), ("last", "x")]);
        assert_eq!(b.properties[1].line, 4);
        // The value's span covers the continuation lines, up to the last line's end.
        let span = b.properties[0].value_span.clone();
        assert_eq!(&b.text[span], "apple, \\\n         banana, \\\r\n\tpear");
        // A comment line does not go on.
        let b = parsed("# note \\\nkey=v\n");
        assert_eq!(pairs(&b), [("key", "v")]);
        assert_eq!(b.properties[0].comments, ["# note \\"]);
        // A lone backslash goes on with nothing, as Java reads it: a blank line.
        let b = parsed("  \\\n# comment\n\\\n\nk=v\n");
        assert_eq!(pairs(&b), [("k", "v")]);
    }

    #[test]
    fn charsets_utf8_then_latin1() {
        let b = read("k=Grüße\n".as_bytes(), "u.properties").unwrap();
        assert_eq!((pairs(&b), b.charset), (vec![("k", "Grüße")], Charset::Utf8));
        let b = read(b"k=Gr\xfc\xdfe\n", "l.properties").unwrap();
        assert_eq!((pairs(&b), b.charset), (vec![("k", "Grüße")], Charset::Latin1));
        assert_eq!(encode(&b, &b.text), b"k=Gr\xfc\xdfe\n");
        let b = read(b"\xEF\xBB\xBFk=v\n", "bom.properties").unwrap();
        assert_eq!(pairs(&b), [("k", "v")]);
        assert_eq!(encode(&b, &b.text), b"\xEF\xBB\xBFk=v\n");
        let err = read(b"\xEF\xBB\xBFa=1\nk=Gr\xfc\n", "bad.properties").unwrap_err();
        assert_eq!((err.kind(), err.line(), err.column()), (FormatErrorKind::Encoding, Some(2), Some(5)));
    }

    #[test]
    fn a_bad_unicode_escape_is_located_with_its_fix() {
        let b = parsed("ok=1\n  bad = x\\u00g1y\nafter=2\nhalf=\\uD83D!\nlow=\\uDE00\nshort=\\u12");
        assert_eq!(pairs(&b), [("ok", "1"), ("after", "2")]);
        let located: Vec<(Option<u64>, Option<u64>)> =
            b.problems.iter().map(|p| (p.line(), p.column())).collect();
        assert_eq!(
            located,
            [(Some(2), Some(10)), (Some(4), Some(6)), (Some(5), Some(5)), (Some(6), Some(7))]
        );
        let first = b.problems[0].to_string();
        assert_eq!(
            first,
            "properties: t.properties: line 2, column 10: \"\\u00g\" is not a Unicode escape: \\u takes four \
             hexadecimal digits (\\u00E9 for é); write the character itself or complete the escape, or write \
             \\\\u for a backslash followed by u"
        );
        assert!(b.problems[1].to_string().contains("\\uD83D is the first half"), "{}", b.problems[1]);
        assert!(b.problems[3].message().starts_with("\"\\u12\" is not"), "{}", b.problems[3]);
    }

    #[test]
    fn escaped_values_read_back_as_they_were() {
        for value in
            ["plain", " lead", "=x", ":x", "a\\b", "tab\tnl\nend", "Grüße 😀", "\u{1}", "{0} files", "trail "]
        {
            for ascii in [true, false] {
                let line = format!("k={}\n", escape_value(value, ascii));
                assert!(!ascii || line.is_ascii(), "{line}");
                let b = parsed(&line);
                assert_eq!(pairs(&b), [("k", value)], "{line}");
            }
        }
        // After white space as the separator, a leading `=` must not become one.
        let b = parsed(&format!("k {}\n", escape_value("=x", true)));
        assert_eq!(pairs(&b), [("k", "=x")]);
    }
}
