//! The PO syntax: a catalog's messages with their comments, flags, strings and the byte
//! ranges recycle edits (GNU gettext manual, "The Format of PO Files").
//!
//! The whole file is decoded first (PO catalogs are a few megabytes at most, and
//! recycle needs every byte anyway): as UTF-8, or in the charset the header's
//! `Content-Type` names when that is not UTF-8. A syntax error is a located problem;
//! the message it occurs in is left out, the rest of the file is read.

use std::ops::Range;

use crate::error::{Format, FormatError, FormatErrorKind};

/// One `msgstr` or `msgstr[N]` of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MsgStr {
    /// `N` of `msgstr[N]`; `None` for a plain `msgstr`.
    pub index: Option<usize>,
    /// The unescaped text.
    pub text: String,
    /// From the keyword to the closing quote of its last string, in the decoded text.
    pub span: Range<usize>,
}

/// One message (entry) of a catalog, the header included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Message {
    /// The line of its `msgid` keyword (from 1).
    pub line: u64,
    /// Where its first line (comment or keyword) starts, in the decoded text.
    pub start: usize,
    /// Where its first `#|`, `msgctxt` or `msgid` line starts: a new flags line goes
    /// there.
    pub keywords_start: usize,
    /// Translator comments (`# …`), without the `#` and one space.
    pub comments: Vec<String>,
    /// Extracted comments (`#. …`).
    pub extracted: Vec<String>,
    /// References (`#: file:line`), one string per line.
    pub references: Vec<String>,
    /// Flags (`#, fuzzy, c-format`), each trimmed.
    pub flags: Vec<String>,
    /// The first flags line, from its `#` to its end (without the line break).
    pub flags_span: Option<Range<usize>>,
    /// `msgctxt`.
    pub context: Option<String>,
    /// `msgid`.
    pub id: String,
    /// `msgid_plural`.
    pub id_plural: Option<String>,
    /// The translations.
    pub strs: Vec<MsgStr>,
    /// An obsolete (`#~`) message.
    pub obsolete: bool,
}

impl Message {
    /// True for the header: the non-obsolete message with an empty `msgid` and no
    /// context.
    pub fn is_header(&self) -> bool {
        self.id.is_empty() && self.context.is_none() && !self.obsolete
    }

    /// True when the message carries flag `flag`.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// True when every `msgstr` is empty.
    pub fn untranslated(&self) -> bool {
        self.strs.iter().all(|s| s.text.is_empty())
    }

    /// True when some but not every `msgstr` is empty (a plural half done).
    pub fn partly_translated(&self) -> bool {
        !self.untranslated() && self.strs.iter().any(|s| s.text.is_empty())
    }
}

/// A parsed catalog.
#[derive(Debug)]
pub struct Catalog {
    /// The decoded text.
    pub text: String,
    /// The charset the file was decoded from (`UTF-8` when none is declared).
    pub encoding: &'static encoding_rs::Encoding,
    /// The messages, in file order, the header first when there is one.
    pub messages: Vec<Message>,
    /// Syntax problems, located; their messages are not in `messages`.
    pub problems: Vec<FormatError>,
    /// The line break the file uses (`\n`, or `\r\n` when its first line ends so).
    pub newline: &'static str,
    /// The file name used in messages.
    pub file: String,
}

/// The header's fields of interest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// `Language`, when not empty.
    pub language: Option<String>,
    /// The charset of `Content-Type`, as written.
    pub charset: Option<String>,
    /// `nplurals` of `Plural-Forms`, when a number.
    pub nplurals: Option<usize>,
    /// `Project-Id-Version`, when not empty.
    pub project: Option<String>,
}

impl Header {
    /// The fields of a header's `msgstr` (`Key: value` lines).
    pub fn parse(msgstr: &str) -> Header {
        let mut h = Header::default();
        for line in msgstr.lines() {
            let Some((key, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            match key.trim().to_ascii_lowercase().as_str() {
                "language" if !value.is_empty() => h.language = Some(value.to_owned()),
                "project-id-version" if !value.is_empty() => h.project = Some(value.to_owned()),
                "content-type" => h.charset = charset_of(value).map(str::to_owned),
                "plural-forms" => {
                    h.nplurals = value
                        .split(';')
                        .filter_map(|p| p.trim().strip_prefix("nplurals"))
                        .filter_map(|p| p.trim_start().strip_prefix('='))
                        .find_map(|n| n.trim().parse().ok());
                }
                _ => {}
            }
        }
        h
    }
}

/// The charset of a `Content-Type` value: what follows `charset=` up to white space or
/// `;` (`charset= koi8-r` names none, as msgfmt reads it).
fn charset_of(value: &str) -> Option<&str> {
    let at = value.to_ascii_lowercase().find("charset=")?;
    let rest = &value[at + "charset=".len()..];
    let end = rest.find(|c: char| c.is_whitespace() || c == ';' || c == '\\').unwrap_or(rest.len());
    Some(&rest[..end]).filter(|s| !s.is_empty())
}

/// The charset declared in raw bytes, read before decoding: the first `charset=` of
/// the file's start (the header comes first; every supported charset is ASCII there).
fn declared_charset(raw: &[u8]) -> Option<String> {
    let head = &raw[..raw.len().min(64 * 1024)];
    let at = head.windows(8).position(|w| w.eq_ignore_ascii_case(b"charset="))?;
    let rest = &head[at + 8..];
    let end = rest
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b';' || b == b'\\' || b == b'"')
        .unwrap_or(rest.len());
    let name = std::str::from_utf8(&rest[..end]).ok()?;
    (!name.is_empty()).then(|| name.to_owned())
}

fn fatal(file: &str, kind: FormatErrorKind, message: String) -> FormatError {
    FormatError::new(Format::Po, kind, message).in_file(file)
}

/// Decodes a catalog's bytes: UTF-8 (a byte-order mark is dropped), or the declared
/// charset when it is another one encoding_rs knows. `CHARSET` (a template's
/// placeholder) and no declaration mean UTF-8.
///
/// # Errors
/// [`FormatErrorKind::Encoding`]: bytes invalid in that charset, or a charset not known.
pub fn decode(raw: &[u8], file: &str) -> Result<(String, &'static encoding_rs::Encoding), FormatError> {
    let raw = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
    let declared = declared_charset(raw);
    let encoding = match declared.as_deref() {
        None => encoding_rs::UTF_8,
        Some(name) if name.eq_ignore_ascii_case("CHARSET") => encoding_rs::UTF_8,
        Some(name) => encoding_rs::Encoding::for_label(name.as_bytes()).ok_or_else(|| {
            fatal(file, FormatErrorKind::Encoding, format!("the header's charset {name:?} is not supported"))
        })?,
    };
    if encoding == encoding_rs::UTF_8 {
        return match std::str::from_utf8(raw) {
            Ok(s) => Ok((s.to_owned(), encoding)),
            Err(e) => {
                let line = raw[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                let what = match declared {
                    Some(d) if !d.eq_ignore_ascii_case("CHARSET") => format!("in the declared charset {d:?}"),
                    _ => "as UTF-8, and the header declares no other charset".to_owned(),
                };
                Err(fatal(
                    file,
                    FormatErrorKind::Encoding,
                    format!(
                        "byte 0x{:02X} at offset {} is not valid {what}",
                        raw[e.valid_up_to()],
                        e.valid_up_to()
                    ),
                )
                .at_line(line))
            }
        };
    }
    match encoding.decode_without_bom_handling_and_without_replacement(raw) {
        Some(text) => Ok((text.into_owned(), encoding)),
        None => Err(fatal(
            file,
            FormatErrorKind::Encoding,
            format!("the bytes are not valid in the declared charset {}", encoding.name()),
        )),
    }
}

/// What a keyword line or a continuation adds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Context,
    Id,
    IdPlural,
    Str,
}

/// Builds messages line by line.
struct Parser<'a> {
    file: &'a str,
    messages: Vec<Message>,
    problems: Vec<FormatError>,
    current: Option<Message>,
    /// The field the last string went to.
    field: Option<Field>,
    /// The current message had a syntax error and is dropped.
    broken: bool,
    /// The line of the current message's first line.
    first_line: u64,
    /// The current message's `keywords_start` is set.
    keywords_set: bool,
}

impl Parser<'_> {
    fn problem(&mut self, line: u64, column: u64, message: String) {
        self.problems.push(
            FormatError::new(Format::Po, FormatErrorKind::InvalidField, message)
                .in_file(self.file)
                .at(line, column),
        );
        self.broken = true;
    }

    fn current(&mut self, start: usize, line: u64) -> &mut Message {
        if self.current.is_none() {
            self.first_line = line;
        }
        self.current.get_or_insert_with(|| Message { start, keywords_start: start, ..Message::default() })
    }

    fn finish(&mut self) {
        let field = self.field.take();
        let broken = std::mem::take(&mut self.broken);
        self.keywords_set = false;
        let Some(m) = self.current.take() else { return };
        if broken {
            return;
        }
        if field.is_none() && m.strs.is_empty() && m.line == 0 {
            // Comments alone (a file's closing remarks) make no message.
            return;
        }
        let line = if m.line == 0 { self.first_line } else { m.line };
        let complaint = if m.line == 0 {
            Some("a message without msgid".to_owned())
        } else if m.strs.is_empty() {
            Some(format!("msgid {:?} has no msgstr", short(&m.id)))
        } else if m.id_plural.is_some() && m.strs.iter().any(|s| s.index.is_none()) {
            Some("a message with msgid_plural needs msgstr[N], not msgstr".to_owned())
        } else if m.id_plural.is_none() && m.strs.iter().any(|s| s.index.is_some()) {
            Some("msgstr[N] without msgid_plural".to_owned())
        } else if m.strs.iter().enumerate().any(|(i, s)| s.index.is_some_and(|n| n != i)) {
            Some("msgstr[N] indexes must run 0, 1, 2, … in order".to_owned())
        } else {
            None
        };
        match complaint {
            Some(c) => self.problems.push(
                FormatError::new(Format::Po, FormatErrorKind::InvalidField, c)
                    .in_file(self.file)
                    .at_line(line),
            ),
            None => self.messages.push(m),
        }
    }
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// Parses a quoted string starting at `s[0] == '"'`; returns the unescaped text and
/// the byte length up to and including the closing quote.
fn string(s: &str) -> Result<(String, usize), (usize, String)> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, i + 1)),
            '\\' => {
                let Some((j, e)) = chars.next() else { break };
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    '"' | '\\' | '\'' | '?' => out.push(e),
                    '0'..='7' => {
                        let mut v = e as u32 - '0' as u32;
                        for _ in 0..2 {
                            match chars.peek() {
                                Some(&(_, d @ '0'..='7')) => {
                                    v = v * 8 + (d as u32 - '0' as u32);
                                    chars.next();
                                }
                                _ => break,
                            }
                        }
                        out.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
                    }
                    'x' => {
                        let mut v = 0u32;
                        let mut n = 0;
                        while let Some(&(_, d)) = chars.peek() {
                            let Some(x) = d.to_digit(16) else { break };
                            v = (v * 16 + x) & 0xFF_FFFF;
                            n += 1;
                            chars.next();
                        }
                        if n == 0 {
                            return Err((j, "\\x without hexadecimal digits".to_owned()));
                        }
                        out.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
                    }
                    other => return Err((j, format!("unknown escape sequence \\{other}"))),
                }
            }
            c => out.push(c),
        }
    }
    Err((s.len(), "a string without its closing quote".to_owned()))
}

/// Parses the decoded text of a catalog.
pub fn parse(text: String, encoding: &'static encoding_rs::Encoding, file: &str) -> Catalog {
    let mut p = Parser {
        file,
        messages: Vec::new(),
        problems: Vec::new(),
        current: None,
        field: None,
        broken: false,
        first_line: 0,
        keywords_set: false,
    };
    let newline = match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    };
    let mut offset = 0usize;
    for (n, raw_line) in text.split_inclusive('\n').enumerate() {
        let line_no = n as u64 + 1;
        let line_start = offset;
        offset += raw_line.len();
        let line = raw_line.trim_end_matches(['\n', '\r']);
        let (body, body_at, obsolete) = match line.strip_prefix("#~") {
            Some(rest) => {
                let trimmed = rest.trim_start();
                (trimmed, line_start + line.len() - trimmed.len(), true)
            }
            None => (line, line_start, false),
        };
        let trimmed = body.trim_start();
        let at = body_at + (body.len() - trimmed.len());
        let column = (at - line_start) as u64 + 1;
        if trimmed.is_empty() {
            if !obsolete {
                p.finish();
            }
            continue;
        }
        if obsolete && trimmed.starts_with('|') {
            continue; // an obsolete message's previous msgid
        }
        if let Some(comment) = trimmed.strip_prefix('#').filter(|_| !obsolete) {
            if p.field.is_some() {
                p.finish();
            }
            let keywords_set = p.keywords_set;
            p.keywords_set |= comment.starts_with('|');
            let m = p.current(line_start, line_no);
            match comment.chars().next() {
                Some(',') => {
                    if m.flags_span.is_none() {
                        m.flags_span = Some(line_start..line_start + line.len());
                    }
                    m.flags.extend(
                        comment[1..].split(',').map(str::trim).filter(|f| !f.is_empty()).map(str::to_owned),
                    );
                }
                Some('.') => m.extracted.push(comment[1..].trim().to_owned()),
                Some(':') => m.references.push(comment[1..].trim().to_owned()),
                Some('|') if !keywords_set => m.keywords_start = line_start,
                Some('|') => {}
                _ => m.comments.push(comment.strip_prefix(' ').unwrap_or(comment).to_owned()),
            }
            continue;
        }
        if trimmed.starts_with('"') {
            let Some(field) = p.field else {
                p.current(line_start, line_no);
                p.problem(line_no, column, "a string without a keyword before it".to_owned());
                continue;
            };
            match string(trimmed) {
                Err((i, e)) => p.problem(line_no, column + i as u64, e),
                Ok((s, len)) => {
                    if !trimmed[len..].trim().is_empty() {
                        p.problem(line_no, column + len as u64, "text after the closing quote".to_owned());
                        continue;
                    }
                    let Some(m) = p.current.as_mut() else { continue };
                    match field {
                        Field::Context => m.context.get_or_insert_with(String::new).push_str(&s),
                        Field::Id => m.id.push_str(&s),
                        Field::IdPlural => m.id_plural.get_or_insert_with(String::new).push_str(&s),
                        Field::Str => {
                            if let Some(last) = m.strs.last_mut() {
                                last.text.push_str(&s);
                                last.span.end = at + len;
                            }
                        }
                    }
                }
            }
            continue;
        }
        let keyword_end = trimmed.find(|c: char| c.is_whitespace() || c == '"').unwrap_or(trimmed.len());
        let keyword = &trimmed[..keyword_end];
        let rest_raw = &trimmed[keyword_end..];
        let rest = rest_raw.trim_start();
        let rest_column = column + (trimmed.len() - rest.len()) as u64;
        let (field, index) = match keyword {
            "msgctxt" => (Field::Context, None),
            "msgid" => (Field::Id, None),
            "msgid_plural" => (Field::IdPlural, None),
            "msgstr" => (Field::Str, None),
            k => {
                match k.strip_prefix("msgstr[").and_then(|r| r.strip_suffix(']')).and_then(|n| n.parse().ok())
                {
                    Some(n) => (Field::Str, Some(n)),
                    None => {
                        if p.field.is_some() && p.current.as_ref().is_some_and(|m| !m.strs.is_empty()) {
                            p.finish();
                        }
                        p.current(line_start, line_no);
                        p.problem(line_no, column, format!("keyword {k:?} unknown"));
                        continue;
                    }
                }
            }
        };
        // A new message starts at msgctxt or msgid after a complete one.
        let starts_new =
            matches!(field, Field::Context | Field::Id) && p.current.as_ref().is_some_and(|m| m.line != 0);
        if starts_new {
            p.finish();
        }
        let keywords_set = p.keywords_set;
        p.keywords_set |= matches!(field, Field::Context | Field::Id);
        let m = p.current(line_start, line_no);
        if obsolete {
            m.obsolete = true;
        }
        let order_error = match field {
            Field::Context if m.context.is_some() => Some("a second msgctxt"),
            Field::Id if m.line != 0 => Some("a second msgid"),
            Field::IdPlural if m.line == 0 => Some("msgid_plural without msgid"),
            Field::IdPlural if m.id_plural.is_some() || !m.strs.is_empty() => {
                Some("msgid_plural out of place")
            }
            Field::Str if m.line == 0 => Some("msgstr without msgid"),
            Field::Str if index.is_none() && !m.strs.is_empty() => Some("msgstr after msgstr"),
            _ => None,
        };
        if !keywords_set && matches!(field, Field::Context | Field::Id) {
            m.keywords_start = line_start;
        }
        if let Some(e) = order_error {
            p.problem(line_no, column, e.to_owned());
            continue;
        }
        if !rest.starts_with('"') {
            p.problem(line_no, rest_column, format!("{keyword} needs a quoted string"));
            continue;
        }
        match string(rest) {
            Err((i, e)) => p.problem(line_no, rest_column + i as u64, e),
            Ok((s, len)) => {
                if !rest[len..].trim().is_empty() {
                    p.problem(line_no, rest_column + len as u64, "text after the closing quote".to_owned());
                    continue;
                }
                let end = line_start + line.len() - rest.len() + len;
                let Some(m) = p.current.as_mut() else { continue };
                match field {
                    Field::Context => m.context = Some(s),
                    Field::Id => {
                        m.id = s;
                        m.line = line_no;
                    }
                    Field::IdPlural => m.id_plural = Some(s),
                    Field::Str => m.strs.push(MsgStr { index, text: s, span: at..end }),
                }
                p.field = Some(field);
            }
        }
    }
    p.finish();
    Catalog { text, encoding, messages: p.messages, problems: p.problems, newline, file: file.to_owned() }
}

/// Escapes text for a PO string (without the quotes).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `keyword "text"` as gettext writes it: one line, or, when the text holds line
/// breaks before its end, an empty first string and one string per line.
pub fn statement(keyword: &str, text: &str, newline: &str) -> String {
    let inner = text.strip_suffix('\n').unwrap_or(text);
    if !inner.contains('\n') {
        return format!("{keyword} \"{}\"", escape(text));
    }
    let mut out = format!("{keyword} \"\"");
    for piece in text.split_inclusive('\n') {
        out.push_str(newline);
        out.push('"');
        out.push_str(&escape(piece));
        out.push('"');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat(s: &str) -> Catalog {
        parse(s.to_owned(), encoding_rs::UTF_8, "t.po")
    }

    #[test]
    fn messages_with_comments_context_and_plurals() {
        let c = cat(concat!(
            "# translator\n#. extracted\n#: a.c:1\n#, fuzzy, c-format\n#| msgid \"old\"\n",
            "msgctxt \"menu\"\nmsgid \"\"\n\"Open \"\n\"%s\"\nmsgstr \"Öffne %s\"\n\n",
            "msgid \"file\"\nmsgid_plural \"files\"\nmsgstr[0] \"Datei\"\nmsgstr[1] \"Dateien\"\n",
            "#~ msgid \"gone\"\n#~ msgstr \"weg\"\n",
        ));
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert_eq!(c.messages.len(), 3);
        let m = &c.messages[0];
        assert_eq!((m.context.as_deref(), m.id.as_str()), (Some("menu"), "Open %s"));
        assert_eq!(m.flags, ["fuzzy", "c-format"]);
        assert_eq!(m.comments, ["translator"]);
        assert_eq!(m.line, 7);
        assert_eq!(&c.text[m.keywords_start..m.keywords_start + 2], "#|");
        assert_eq!(&c.text[m.strs[0].span.clone()], "msgstr \"Öffne %s\"");
        let p = &c.messages[1];
        assert_eq!(p.id_plural.as_deref(), Some("files"));
        assert_eq!(p.strs.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(), ["Datei", "Dateien"]);
        assert!(c.messages[2].obsolete);
    }

    #[test]
    fn escapes_round_trip() {
        let c = cat("msgid \"a\\\"b\\\\c\\n\\t\\101\\x42\"\nmsgstr \"\"\n");
        assert_eq!(c.messages[0].id, "a\"b\\c\n\tAB");
        assert_eq!(escape("a\"b\\c\n\t"), "a\\\"b\\\\c\\n\\t");
        assert_eq!(statement("msgstr", "a\nb\n", "\n"), "msgstr \"\"\n\"a\\n\"\n\"b\\n\"");
        assert_eq!(statement("msgstr", "one line\n", "\n"), "msgstr \"one line\\n\"");
    }

    #[test]
    fn syntax_errors_are_located() {
        let c = cat("msgid \"foo\"\nmsgstr \"bar\"\n\nmsgstr \"bong\"\n");
        assert_eq!(c.messages.len(), 1);
        assert_eq!(c.problems.len(), 1);
        assert_eq!(c.problems[0].to_string(), "po: t.po: line 4, column 1: msgstr without msgid");
        let c = cat("\n\nmsg");
        assert_eq!(c.problems[0].to_string(), "po: t.po: line 3, column 1: keyword \"msg\" unknown");
        let c = cat("msgid \"a\nmsgstr \"\"\n");
        assert_eq!(c.problems[0].line(), Some(1));
        let c = cat("msgid \"a\"\n");
        assert_eq!(c.problems[0].to_string(), "po: t.po: line 1: msgid \"a\" has no msgstr");
    }

    #[test]
    fn header_fields_and_charsets() {
        let h = Header::parse(
            "Language: pt_BR\nContent-Type: text/plain; charset=ISO-8859-2\nPlural-Forms: nplurals=3; plural=x;\n",
        );
        assert_eq!(h.language.as_deref(), Some("pt_BR"));
        assert_eq!(h.charset.as_deref(), Some("ISO-8859-2"));
        assert_eq!(h.nplurals, Some(3));
        assert_eq!(Header::parse("Content-Type: text/plain; charset= koi8-r\n").charset, None);
        let raw = b"msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=ISO-8859-2\\n\"\n\nmsgid \"a\"\nmsgstr \"\xB9\"\n";
        let (text, enc) = decode(raw, "x.po").unwrap();
        assert_eq!(enc, encoding_rs::ISO_8859_2);
        assert!(text.ends_with("msgstr \"š\"\n"));
        let bad = decode(b"msgid \"\xE9\"\nmsgstr \"\"\n", "x.po").unwrap_err();
        assert_eq!(bad.kind(), FormatErrorKind::Encoding);
        assert_eq!(bad.line(), Some(1));
    }

    #[test]
    fn crlf_and_double_cr_lines() {
        let c = cat("msgid \"a\"\r\r\nmsgstr \"b\"\r\r\n\r\r\nmsgid \"c\"\r\nmsgstr \"d\"\r\n");
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert_eq!(c.messages.len(), 2);
        assert_eq!(c.newline, "\r\n");
    }
}
