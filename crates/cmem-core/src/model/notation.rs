//! The compact run notation: a readable text form of a run sequence, used in test
//! cases, CLI output and failure messages.
//!
//! ```text
//! Click {1 type="bold" data="<b>"}here{/1 data="</b>"}, {PERSON:John}!
//! ```
//!
//! # Grammar
//!
//! - **Text** is literal. The five special characters are escaped with a backslash:
//!   `\{`, `\}`, `\[`, `\]`, `\\`. Any other character after `\` is an error.
//! - **Paired codes**: `{1}` is `PcOpen` with id `1`, `{/1}` its `PcClose`. They need
//!   not balance, because the model does not require it: a `{/1}` with no unclosed
//!   `{1}` before it is the end of a code opened before the segment (TMX's
//!   `<it pos="end">`, XLIFF 2's isolated `<ec>`), and a `{1}` never closed is the start
//!   of one closed after it. So `Click {/1}here{1}` is two unpaired codes, not a span
//!   round `here`, and it is matched, adapted and written as such (TMX `<it>`), the
//!   same as those runs read from a file.
//! - **Placeholder**: `{1/}` is `Ph` with id `1`. **Sub-flow**: `[1]` is `Sub` with id `1`.
//! - **Attributes** may follow the id, separated by spaces: `type`, `equiv` and `data`
//!   (the [`Code`] fields `kind`, `equiv`, `data`), each at most once, in any order, with
//!   a double-quoted value in which `\"` and `\\` are the only escapes:
//!   `{1 type="bold" data="<b>"}`, `{/1 data="</b>"}`, `{2/ type="printf" equiv="%s"
//!   data="%s"}`, `[3 equiv="logo"]`. [`to_notation`] writes them in the order `type`,
//!   `equiv`, `data`, and only those that are not empty.
//! - **Ids** are `[A-Za-z0-9_.-]+`; any other id (the empty one included) is written as
//!   a quoted string with the same escapes as attribute values: `{"x:1"/}`, `{""}`.
//! - **Entities**: `{PERSON:John}` is `Ph { kind: "PERSON", equiv: "John", id: "e1" }`.
//!   The type must be an entity type (`[A-Z][A-Z0-9_]*`). An entity without an explicit
//!   id gets `e<k>`, where `k` is its 1-based ordinal among the entities of the whole
//!   segment (choice forms included, in order of appearance), so the source
//!   `{PERSON:John} works` and the target `{PERSON:John} arbeitet` are linked by id `e1`.
//!   An explicit id follows `@`: `{PERSON:John@7}`; only after it may `data` follow:
//!   `{PERSON:John@7 data="<n>"}`. The value runs to the first unescaped `@` or `}`, and
//!   may contain `\{`, `\}`, `\@` and `\\`. [`to_notation`] omits `@id` when it equals the
//!   automatic id and there is no `data`.
//! - **Choices**: `{n,plural,one{# file}other{# files}}` and
//!   `{g,select,female{…}other{…}}`: the variable, the keyword, then the forms in stored
//!   order, each a key and a body in braces. Bodies are notation, recursively. White
//!   space is allowed after the commas and between forms (`{n, plural, one {…} other
//!   {…}}`, as ICU writes it). Variables follow the id rule; form keys may also contain
//!   `=` (`=0`); any other variable or key is quoted. Choices nest at most
//!   [`MAX_DEPTH`] deep.
//!
//! The notation is canonical for run sequences without empty or adjacent `Text` runs:
//! for those, `parse_notation(&to_notation(&runs)) == runs`. (Adjacent text runs come
//! back merged.)
//!
//! ```
//! use cmem_core::model::notation::{parse_notation, to_notation};
//! use cmem_core::{Code, Run};
//!
//! let runs = parse_notation(r#"Click {1 data="<b>"}here{/1}, {PERSON:John}"#)?;
//! assert_eq!(
//!     runs,
//!     vec![
//!         Run::text("Click "),
//!         Run::PcOpen(Code::new("1").data("<b>")),
//!         Run::text("here"),
//!         Run::PcClose(Code::new("1")),
//!         Run::text(", "),
//!         Run::entity("e1", "PERSON", "John"),
//!     ]
//! );
//! assert_eq!(to_notation(&runs), r#"Click {1 data="<b>"}here{/1}, {PERSON:John}"#);
//! # Ok::<(), cmem_core::Error>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::model::run::{is_entity_type, Choice, Code, Run};

/// How deeply choices may nest in parsed notation; deeper is an error (not a stack
/// overflow).
pub const MAX_DEPTH: usize = 32;

/// A run sequence that displays as, and parses from, the notation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Notation(pub Vec<Run>);

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&to_notation(&self.0))
    }
}

impl FromStr for Notation {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        parse_notation(s).map(Notation)
    }
}

impl From<Vec<Run>> for Notation {
    fn from(runs: Vec<Run>) -> Self {
        Notation(runs)
    }
}

/// Parses the notation (see the [module docs](self)).
///
/// # Errors
/// [`ErrorKind::InvalidRuns`](crate::ErrorKind::InvalidRuns) with a message
/// `notation: column N: …` that names the offending text: an unclosed `{` or `[`, an
/// unescaped `}` or `]`, an unknown escape, a bad or missing id, an unknown or repeated
/// attribute, a type that is not an entity type before `:`, an unknown choice keyword,
/// choices nested deeper than [`MAX_DEPTH`].
pub fn parse_notation(s: &str) -> Result<Vec<Run>> {
    let mut p = Parser { chars: s.chars().collect(), pos: 0, entities: 0, depth: 0 };
    let runs = p.runs(false)?;
    if p.pos < p.chars.len() {
        return Err(p.error(p.pos, format!("unexpected {}", p.describe(p.pos))));
    }
    Ok(runs)
}

/// Writes runs in the notation (see the [module docs](self)).
pub fn to_notation(runs: &[Run]) -> String {
    let mut out = String::new();
    let mut entities = 0;
    write_runs(runs, &mut out, &mut entities);
    out
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

fn is_key_char(c: char) -> bool {
    is_id_char(c) || c == '='
}

fn write_quoted(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

fn write_name(s: &str, out: &mut String, allowed: fn(char) -> bool) {
    if !s.is_empty() && s.chars().all(allowed) {
        out.push_str(s);
    } else {
        write_quoted(s, out);
    }
}

fn write_attrs(code: &Code, out: &mut String) {
    for (name, value) in [("type", &code.kind), ("equiv", &code.equiv), ("data", &code.data)] {
        if !value.is_empty() {
            out.push(' ');
            out.push_str(name);
            out.push('=');
            write_quoted(value, out);
        }
    }
}

fn write_runs(runs: &[Run], out: &mut String, entities: &mut usize) {
    for run in runs {
        match run {
            Run::Text(t) => {
                for c in t.chars() {
                    if matches!(c, '{' | '}' | '[' | ']' | '\\') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
            Run::Ph(c) if c.is_entity() => {
                *entities += 1;
                out.push('{');
                out.push_str(&c.kind);
                out.push(':');
                for ch in c.equiv.chars() {
                    if matches!(ch, '{' | '}' | '@' | '\\') {
                        out.push('\\');
                    }
                    out.push(ch);
                }
                if c.id != format!("e{entities}") || !c.data.is_empty() {
                    out.push('@');
                    write_name(&c.id, out, is_id_char);
                    if !c.data.is_empty() {
                        out.push_str(" data=");
                        write_quoted(&c.data, out);
                    }
                }
                out.push('}');
            }
            Run::Ph(c) => {
                out.push('{');
                write_name(&c.id, out, is_id_char);
                out.push('/');
                write_attrs(c, out);
                out.push('}');
            }
            Run::PcOpen(c) => {
                out.push('{');
                write_name(&c.id, out, is_id_char);
                write_attrs(c, out);
                out.push('}');
            }
            Run::PcClose(c) => {
                out.push_str("{/");
                write_name(&c.id, out, is_id_char);
                write_attrs(c, out);
                out.push('}');
            }
            Run::Sub(c) => {
                out.push('[');
                write_name(&c.id, out, is_id_char);
                write_attrs(c, out);
                out.push(']');
            }
            Run::Plural(c) => write_choice("plural", c, out, entities),
            Run::Select(c) => write_choice("select", c, out, entities),
        }
    }
}

fn write_choice(keyword: &str, choice: &Choice, out: &mut String, entities: &mut usize) {
    out.push('{');
    write_name(&choice.var, out, is_id_char);
    out.push(',');
    out.push_str(keyword);
    out.push(',');
    for (key, form) in &choice.forms {
        write_name(key, out, is_key_char);
        out.push('{');
        write_runs(form, out, entities);
        out.push('}');
    }
    out.push('}');
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    /// Entities seen so far, for automatic ids.
    entities: usize,
    /// Choice nesting depth.
    depth: usize,
}

/// A name as written: bare or quoted.
struct Name {
    text: String,
    quoted: bool,
}

impl Parser {
    fn error(&self, at: usize, message: impl fmt::Display) -> Error {
        Error::invalid_runs(format!("notation: column {}: {message}", at + 1))
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// The character at `at` for a message, or "the end".
    fn describe(&self, at: usize) -> String {
        match self.chars.get(at) {
            Some(c) => format!("{:?}", c.to_string()),
            None => "the end of the text".to_owned(),
        }
    }

    fn skip_spaces(&mut self) {
        while self.peek() == Some(' ') {
            self.pos += 1;
        }
    }

    fn expect(&mut self, want: char, opened: usize) -> Result<()> {
        match self.peek() {
            Some(c) if c == want => {
                self.pos += 1;
                Ok(())
            }
            None => Err(self.unclosed(opened)),
            Some(_) => Err(self.error(
                self.pos,
                format!("expected {:?}, found {}", want.to_string(), self.describe(self.pos)),
            )),
        }
    }

    fn unclosed(&self, opened: usize) -> Error {
        let excerpt: String = self.chars[opened..].iter().take(24).collect();
        self.error(
            opened,
            format!(
                "unclosed {:?} in {excerpt:?}",
                self.chars.get(opened).map_or(String::new(), char::to_string)
            ),
        )
    }

    /// Runs up to the end (top level) or up to the `}` that closes a choice form.
    fn runs(&mut self, in_form: bool) -> Result<Vec<Run>> {
        let mut runs = Vec::new();
        let mut text = String::new();
        let flush = |text: &mut String, runs: &mut Vec<Run>| {
            if !text.is_empty() {
                runs.push(Run::Text(std::mem::take(text)));
            }
        };
        while let Some(c) = self.peek() {
            match c {
                '\\' => {
                    match self.chars.get(self.pos + 1) {
                        Some(&e @ ('{' | '}' | '[' | ']' | '\\')) => text.push(e),
                        Some(e) => {
                            return Err(self.error(
                                self.pos,
                                format!(
                                    "unknown escape {:?} in text (escape only {{ }} [ ] \\)",
                                    format!("\\{e}")
                                ),
                            ))
                        }
                        None => {
                            return Err(self.error(self.pos, "\"\\\" at the end of the text escapes nothing"))
                        }
                    }
                    self.pos += 2;
                }
                '{' => {
                    flush(&mut text, &mut runs);
                    let run = self.brace()?;
                    runs.push(run);
                }
                '[' => {
                    flush(&mut text, &mut runs);
                    let run = self.sub()?;
                    runs.push(run);
                }
                '}' if in_form => break,
                '}' | ']' => {
                    return Err(self.error(
                        self.pos,
                        format!("unescaped {:?} in text (write \\{c} for a literal one)", c.to_string()),
                    ))
                }
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        flush(&mut text, &mut runs);
        Ok(runs)
    }

    /// A quoted string at `self.pos` (which is `"`), with `\"` and `\\` escapes.
    fn quoted(&mut self) -> Result<String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(self.unclosed(start)),
                Some('"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => match self.chars.get(self.pos + 1) {
                    Some(&e @ ('"' | '\\')) => {
                        out.push(e);
                        self.pos += 2;
                    }
                    Some(e) => {
                        return Err(self.error(
                            self.pos,
                            format!(
                                "unknown escape {:?} in a quoted string (escape only \" and \\)",
                                format!("\\{e}")
                            ),
                        ))
                    }
                    None => return Err(self.unclosed(start)),
                },
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// A bare name of `allowed` characters, or a quoted one.
    fn name(&mut self, what: &str, allowed: fn(char) -> bool) -> Result<Name> {
        if self.peek() == Some('"') {
            return Ok(Name { text: self.quoted()?, quoted: true });
        }
        let start = self.pos;
        while self.peek().is_some_and(allowed) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error(
                start,
                format!(
                    "expected {what}, found {} (other characters need quotes: \"x:1\")",
                    self.describe(start)
                ),
            ));
        }
        Ok(Name { text: self.chars[start..self.pos].iter().collect(), quoted: false })
    }

    /// Attributes up to and including `close`. `only` restricts the names allowed.
    fn attrs(&mut self, close: char, opened: usize, only: Option<&str>) -> Result<Code> {
        let mut code = Code::default();
        let mut seen: Vec<String> = Vec::new();
        loop {
            let before = self.pos;
            self.skip_spaces();
            match self.peek() {
                None => return Err(self.unclosed(opened)),
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(code);
                }
                Some(_) if self.pos == before => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected {:?} or a space and an attribute, found {}",
                            close.to_string(),
                            self.describe(self.pos)
                        ),
                    ))
                }
                Some(_) => {}
            }
            let start = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                self.pos += 1;
            }
            let name: String = self.chars[start..self.pos].iter().collect();
            if name.is_empty() {
                return Err(
                    self.error(start, format!("expected an attribute name, found {}", self.describe(start)))
                );
            }
            let allowed = match only {
                Some(only) => name == only,
                None => matches!(name.as_str(), "type" | "equiv" | "data"),
            };
            if !allowed {
                let expected = only.map_or("type, equiv or data".to_owned(), |o| format!("only {o}"));
                return Err(self.error(start, format!("unknown attribute {name:?} (expected {expected})")));
            }
            if seen.contains(&name) {
                return Err(self.error(start, format!("attribute {name:?} given twice")));
            }
            if self.peek() != Some('=') {
                return Err(self.error(
                    self.pos,
                    format!("expected \"=\" after attribute {name:?}, found {}", self.describe(self.pos)),
                ));
            }
            self.pos += 1;
            if self.peek() != Some('"') {
                return Err(self.error(
                    self.pos,
                    format!(
                        "expected a quoted value for attribute {name:?}, found {}",
                        self.describe(self.pos)
                    ),
                ));
            }
            let value = self.quoted()?;
            match name.as_str() {
                "type" => code.kind = value,
                "equiv" => code.equiv = value,
                _ => code.data = value,
            }
            seen.push(name);
        }
    }

    fn with_id(mut code: Code, id: String) -> Code {
        code.id = id;
        code
    }

    /// `[id attrs]`.
    fn sub(&mut self) -> Result<Run> {
        let opened = self.pos;
        self.pos += 1;
        let id = self.name("an id", is_id_char)?.text;
        let code = self.attrs(']', opened, None)?;
        Ok(Run::Sub(Self::with_id(code, id)))
    }

    /// Everything that starts with `{`.
    fn brace(&mut self) -> Result<Run> {
        let opened = self.pos;
        self.pos += 1;
        if self.peek() == Some('/') {
            self.pos += 1;
            let id = self.name("an id", is_id_char)?.text;
            let code = self.attrs('}', opened, None)?;
            return Ok(Run::PcClose(Self::with_id(code, id)));
        }
        let name_at = self.pos;
        let name = self.name("an id, an entity type or a choice variable", is_id_char)?;
        match self.peek() {
            Some(':') => {
                if name.quoted || !is_entity_type(&name.text) {
                    return Err(self.error(
                        name_at,
                        format!(
                            "{:?} before \":\" is not an entity type (an upper-case identifier like PERSON)",
                            name.text
                        ),
                    ));
                }
                self.pos += 1;
                self.entity(name.text, opened)
            }
            Some(',') => {
                self.pos += 1;
                self.choice(name.text, opened)
            }
            Some('/') => {
                self.pos += 1;
                let code = self.attrs('}', opened, None)?;
                let run = Run::Ph(Self::with_id(code, name.text));
                if run.is_entity() {
                    self.entities += 1;
                }
                Ok(run)
            }
            None => Err(self.unclosed(opened)),
            Some(_) => {
                let code = self.attrs('}', opened, None)?;
                Ok(Run::PcOpen(Self::with_id(code, name.text)))
            }
        }
    }

    /// After `{TYPE:`: the value, an optional `@id` with an optional `data`, and `}`.
    fn entity(&mut self, kind: String, opened: usize) -> Result<Run> {
        self.entities += 1;
        let mut value = String::new();
        loop {
            match self.peek() {
                None => return Err(self.unclosed(opened)),
                Some('\\') => match self.chars.get(self.pos + 1) {
                    Some(&e @ ('{' | '}' | '@' | '\\')) => {
                        value.push(e);
                        self.pos += 2;
                    }
                    Some(e) => {
                        return Err(self.error(
                            self.pos,
                            format!(
                                "unknown escape {:?} in an entity value (escape only {{ }} @ \\)",
                                format!("\\{e}")
                            ),
                        ))
                    }
                    None => return Err(self.unclosed(opened)),
                },
                Some('@' | '}') => break,
                Some(c) => {
                    value.push(c);
                    self.pos += 1;
                }
            }
        }
        let code = if self.peek() == Some('@') {
            self.pos += 1;
            let id = self.name("an entity id", is_id_char)?.text;
            Self::with_id(self.attrs('}', opened, Some("data"))?, id)
        } else {
            self.pos += 1;
            Code::new(format!("e{}", self.entities))
        };
        Ok(Run::Ph(code.kind(kind).equiv(value)))
    }

    /// After `{var,`: the keyword, the forms and `}`.
    fn choice(&mut self, var: String, opened: usize) -> Result<Run> {
        self.skip_spaces();
        let kw_at = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.pos += 1;
        }
        let keyword: String = self.chars[kw_at..self.pos].iter().collect();
        let plural = match keyword.as_str() {
            "plural" => true,
            "select" => false,
            "" if self.peek().is_none() => return Err(self.unclosed(opened)),
            _ => {
                let shown = if keyword.is_empty() { self.describe(kw_at) } else { format!("{keyword:?}") };
                return Err(self.error(kw_at, format!("expected plural or select, found {shown}")));
            }
        };
        self.expect(',', opened)?;
        if self.depth >= MAX_DEPTH {
            return Err(self.error(opened, format!("choices nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        let mut forms = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None => return Err(self.unclosed(opened)),
                Some('}') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let key = self.name("a form key", is_key_char)?.text;
            self.skip_spaces();
            let body_at = self.pos;
            self.expect('{', opened)?;
            let body = self.runs(true)?;
            if self.peek().is_none() {
                return Err(self.unclosed(body_at));
            }
            self.pos += 1;
            forms.push((key, body));
        }
        self.depth -= 1;
        let choice = Choice { var, forms };
        Ok(if plural { Run::Plural(choice) } else { Run::Select(choice) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::model::run::walk_runs_mut;
    use proptest::prelude::*;

    fn p(s: &str) -> Vec<Run> {
        parse_notation(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn err(s: &str) -> String {
        let e = parse_notation(s).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRuns, "{s}");
        e.to_string()
    }

    fn roundtrip(s: &str) {
        assert_eq!(to_notation(&p(s)), s);
    }

    #[test]
    fn text_and_escapes() {
        assert_eq!(p(""), vec![]);
        assert_eq!(p("Hello, world: @ \" # / , ="), vec![Run::text("Hello, world: @ \" # / , =")]);
        assert_eq!(p(r"a \{b\} \[c\] \\ d"), vec![Run::text(r"a {b} [c] \ d")]);
        roundtrip(r"a \{b\} \[c\] \\ d");
    }

    #[test]
    fn paired_codes_placeholders_and_subs() {
        assert_eq!(
            p(r#"Click {1 data="<b>" type="bold"}here{/1 data="</b>"}"#),
            vec![
                Run::text("Click "),
                Run::PcOpen(Code::new("1").kind("bold").data("<b>")),
                Run::text("here"),
                Run::PcClose(Code::new("1").data("</b>")),
            ]
        );
        assert_eq!(
            p(r#"{2/ equiv="%s" data="%s" type="printf"}"#),
            vec![Run::Ph(Code::new("2").kind("printf").equiv("%s").data("%s"))]
        );
        assert_eq!(p(r#"[3 equiv="logo"]"#), vec![Run::Sub(Code::new("3").equiv("logo"))]);
        assert_eq!(p("{1/}[x.y_z-2]"), vec![Run::Ph(Code::new("1")), Run::Sub(Code::new("x.y_z-2"))]);
        // Attributes are written in a fixed order.
        assert_eq!(
            to_notation(&p(r#"{2/ data="%s" equiv="%s" type="printf"}"#)),
            r#"{2/ type="printf" equiv="%s" data="%s"}"#
        );
        roundtrip(r#"Click {1 type="bold" data="<b>"}here{/1 data="</b>"}"#);
    }

    #[test]
    fn unbalanced_codes_are_unpaired_halves() {
        let runs = p("Click {/1}here{1}");
        assert_eq!(
            runs,
            vec![
                Run::text("Click "),
                Run::PcClose(Code::new("1")),
                Run::text("here"),
                Run::PcOpen(Code::new("1")),
            ]
        );
        assert_eq!(to_notation(&runs), "Click {/1}here{1}");
    }

    #[test]
    fn quoted_ids_and_values() {
        assert_eq!(p(r#"{"x:1"/}"#), vec![Run::Ph(Code::new("x:1"))]);
        assert_eq!(p(r#"{""}"#), vec![Run::PcOpen(Code::new(""))]);
        assert_eq!(
            p(r#"{1/ data="say \"hi\" \\o/"}"#),
            vec![Run::Ph(Code::new("1").data(r#"say "hi" \o/"#))]
        );
        roundtrip(r#"{"x:1"/}{""}{/"a b"}["]"]"#);
        roundtrip(r#"{1/ data="say \"hi\" \\o/"}"#);
    }

    #[test]
    fn entities_get_ordinal_ids() {
        let src = p("{PERSON:John} works at {ORGANIZATION:Acme}");
        assert_eq!(
            src,
            vec![
                Run::entity("e1", "PERSON", "John"),
                Run::text(" works at "),
                Run::entity("e2", "ORGANIZATION", "Acme"),
            ]
        );
        let tgt = p("{ORGANIZATION:Acme@e2} beschäftigt {PERSON:John@e1}");
        assert_eq!(tgt[0], Run::entity("e2", "ORGANIZATION", "Acme"));
        assert_eq!(to_notation(&tgt), "{ORGANIZATION:Acme@e2} beschäftigt {PERSON:John@e1}");
        assert_eq!(p("{PERSON:John@7}"), vec![Run::entity("7", "PERSON", "John")]);
        assert_eq!(
            p(r#"{DATE:June 1@7 data="<n>"}"#),
            vec![Run::Ph(Code::new("7").kind("DATE").equiv("June 1").data("<n>"))]
        );
        roundtrip(r#"{DATE:June 1@7 data="<n>"}"#);
        // Automatic id with data: the id is written so the data can follow.
        roundtrip(r#"{DATE:June 1@e1 data="<n>"}"#);
        assert_eq!(p(r"{PRODUCT:a\}b\@c\\d\{}"), vec![Run::entity("e1", "PRODUCT", r"a}b@c\d{")]);
        roundtrip(r"{PRODUCT:a\}b\@c\\d\{}");
        // Empty value, quoted id.
        roundtrip(r#"{PERSON:@"x:1"}"#);
        // An entity written as a placeholder counts for the ordinals, and is written back
        // in entity form.
        let runs = p(r#"{9/ type="PERSON" equiv="A"} {PERSON:B}"#);
        assert_eq!(runs[2], Run::entity("e2", "PERSON", "B"));
        assert_eq!(to_notation(&runs), "{PERSON:A@9} {PERSON:B}");
    }

    #[test]
    fn choices() {
        let runs = p("{n,plural,one{# file}other{# files}}");
        assert_eq!(
            runs,
            vec![Run::Plural(Choice {
                var: "n".into(),
                forms: vec![
                    ("one".into(), vec![Run::text("# file")]),
                    ("other".into(), vec![Run::text("# files")]),
                ],
            })]
        );
        roundtrip("{n,plural,one{# file}other{# files}}");
        roundtrip("{g,select,female{{PERSON:Ann} {1}her{/1}}other{{PERSON:Bob} his}}");
        // Entities inside forms count in order of appearance.
        let runs = p("{g,select,female{{PERSON:Ann}}other{{PERSON:Bob}}} {PERSON:Cy}");
        assert_eq!(runs[2], Run::entity("e3", "PERSON", "Cy"));
        // ICU spacing is accepted, and written without.
        assert_eq!(
            to_notation(&p("{n, plural, =0 {none} one {one} other {many}}")),
            "{n,plural,=0{none}one{one}other{many}}"
        );
        // Nested, empty forms, no forms, quoted keys.
        roundtrip("{n,plural,one{{g,select,male{}other{x}}}other{y}}");
        roundtrip("{n,plural,}");
        roundtrip(r#"{"my var",select,"a b"{x}""{y}}"#);
    }

    #[test]
    fn segment_display_and_from_str() {
        let s: Notation = "Hi {PERSON:John}".parse().unwrap();
        assert_eq!(s.0, vec![Run::text("Hi "), Run::entity("e1", "PERSON", "John")]);
        assert_eq!(s.to_string(), "Hi {PERSON:John}");
        assert!("{".parse::<Notation>().is_err());
    }

    #[test]
    fn errors_name_column_and_offending_text() {
        assert_eq!(err("ab {1"), "notation: column 4: unclosed \"{\" in \"{1\"");
        assert_eq!(err("{1/"), "notation: column 1: unclosed \"{\" in \"{1/\"");
        assert_eq!(err("x [2"), "notation: column 3: unclosed \"[\" in \"[2\"");
        assert_eq!(err("a}"), "notation: column 2: unescaped \"}\" in text (write \\} for a literal one)");
        assert_eq!(err("a]"), "notation: column 2: unescaped \"]\" in text (write \\] for a literal one)");
        assert!(err(r"a\q").starts_with("notation: column 2: unknown escape \"\\\\q\""), "{}", err(r"a\q"));
        assert!(err("a\\").starts_with("notation: column 2: "), "{}", err("a\\"));
        assert_eq!(
            err(r#"{1 colour="red"}"#),
            "notation: column 4: unknown attribute \"colour\" (expected type, equiv or data)"
        );
        assert_eq!(err(r#"{1 data="a" data="b"}"#), "notation: column 13: attribute \"data\" given twice");
        assert!(err(r#"{1 data=x}"#).contains("expected a quoted value for attribute \"data\""));
        assert!(err(r#"{1 data}"#).contains("expected \"=\" after attribute \"data\""));
        assert!(err(r#"{1 data="x}"#).contains("unclosed \"\\\"\""));
        assert!(err(r#"{1 data="\n"}"#).contains("unknown escape \"\\\\n\" in a quoted string"));
        assert!(err("{x:1/}").starts_with("notation: column 2: \"x\" before \":\" is not an entity type"));
        assert!(err(r#"{"P":x}"#).contains("is not an entity type"));
        assert!(err("{ä/}").starts_with(
            "notation: column 2: expected an id, an entity type or a choice variable, found \"ä\""
        ));
        assert!(err("{}").contains("expected an id"));
        assert!(err("{/}").contains("column 3: expected an id, found \"}\""));
        assert!(err("[]").contains("expected an id"));
        assert!(err("{1/x}").contains("expected \"}\" or a space and an attribute, found \"x\""));
        assert!(err(r#"{PERSON:J@7 type="x"}"#).contains("unknown attribute \"type\" (expected only data)"));
        assert!(err("{PERSON:John").contains("unclosed \"{\""));
        assert!(err(r"{PERSON:J\x}").contains("unknown escape \"\\\\x\" in an entity value"));
        assert!(err("{n,plurl,one{x}}").contains("column 4: expected plural or select, found \"plurl\""));
        assert!(err("{n,plural one{x}}").contains("expected \",\""));
        assert!(err("{n,plural,one{x}").contains("unclosed \"{\""));
        assert!(err("{n,plural,one{x").contains("unclosed \"{\""));
        assert!(err("{n,plural,one x}").contains("expected \"{\", found \"x\""));
        assert!(err("{n,plural,{x}}").contains("expected a form key"));
        let deep = "{n,plural,a{".repeat(MAX_DEPTH + 1) + &"}}".repeat(MAX_DEPTH + 1);
        assert!(err(&deep).contains(&format!("choices nested deeper than {MAX_DEPTH}")));
        let ok = "{n,plural,a{".repeat(MAX_DEPTH) + &"}}".repeat(MAX_DEPTH);
        assert_eq!(to_notation(&p(&ok)), ok);
    }

    /// Text without empty or adjacent text runs, recursively; automatic entity ids where
    /// the generator asked for them ("auto").
    fn canonical(mut runs: Vec<Run>) -> Vec<Run> {
        fn merge(runs: Vec<Run>) -> Vec<Run> {
            let mut out: Vec<Run> = Vec::new();
            for run in runs {
                match (out.last_mut(), run) {
                    (_, Run::Text(t)) if t.is_empty() => {}
                    (Some(Run::Text(a)), Run::Text(b)) => a.push_str(&b),
                    (_, Run::Plural(mut c)) => {
                        c.forms = c.forms.into_iter().map(|(k, f)| (k, merge(f))).collect();
                        out.push(Run::Plural(c));
                    }
                    (_, Run::Select(mut c)) => {
                        c.forms = c.forms.into_iter().map(|(k, f)| (k, merge(f))).collect();
                        out.push(Run::Select(c));
                    }
                    (_, run) => out.push(run),
                }
            }
            out
        }
        let mut k = 0;
        walk_runs_mut(&mut runs, &mut |run| {
            if let Run::Ph(c) = run {
                if c.is_entity() {
                    k += 1;
                    if c.id == "auto" {
                        c.id = format!("e{k}");
                    }
                }
            }
        });
        merge(runs)
    }

    fn odd_string() -> impl Strategy<Value = String> {
        prop_oneof!["[a-z ]{0,6}", r#"[a-zA-Z0-9 {}\[\]\\@":/,=#é漢\-]{0,8}"#, "\\PC{0,6}"]
    }

    fn code() -> impl Strategy<Value = Code> {
        let id = prop_oneof!["[A-Za-z0-9_.-]{1,4}", odd_string()];
        let kind = prop_oneof![
            Just(String::new()),
            Just("bold".to_owned()),
            Just("x-html-b".to_owned()),
            odd_string()
        ];
        (id, odd_string(), kind, odd_string()).prop_map(|(id, equiv, kind, data)| Code {
            id,
            equiv,
            kind,
            data,
        })
    }

    fn entity() -> impl Strategy<Value = Run> {
        let id = prop_oneof![Just("auto".to_owned()), "[0-9]{1,2}", odd_string()];
        let kind = prop_oneof![Just("PERSON"), Just("DATE"), Just("X_1")];
        let data = prop_oneof![Just(String::new()), odd_string()];
        (id, kind, odd_string(), data)
            .prop_map(|(id, kind, value, data)| Run::Ph(Code::new(id).kind(kind).equiv(value).data(data)))
    }

    fn run() -> impl Strategy<Value = Run> {
        let leaf = prop_oneof![
            3 => odd_string().prop_map(Run::Text),
            1 => code().prop_map(Run::Ph),
            1 => code().prop_map(Run::PcOpen),
            1 => code().prop_map(Run::PcClose),
            1 => code().prop_map(Run::Sub),
            2 => entity(),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            let key = prop_oneof!["one|other|=0|female", odd_string()];
            let forms = prop::collection::vec((key, prop::collection::vec(inner, 0..4)), 0..3);
            let choice = (prop_oneof!["[a-z]{1,3}", odd_string()], forms)
                .prop_map(|(var, forms)| Choice { var, forms });
            prop_oneof![choice.clone().prop_map(Run::Plural), choice.prop_map(Run::Select)]
        })
    }

    proptest! {
        #[test]
        fn notation_round_trips(runs in prop::collection::vec(run(), 0..8)) {
            let runs = canonical(runs);
            let text = to_notation(&runs);
            let back = parse_notation(&text);
            prop_assert!(back.is_ok(), "{text}: {back:?}");
            prop_assert_eq!(back.ok(), Some(runs), "{}", text);
        }

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,40}") {
            let _ = parse_notation(&s);
        }

        #[test]
        fn notation_like_text_never_panics(s in r#"[a-zA-Z0-9 {}\[\]\\@":/,=#]{0,40}"#) {
            if let Ok(runs) = parse_notation(&s) {
                // Whatever parses writes back to something that parses to the same runs.
                prop_assert_eq!(parse_notation(&to_notation(&runs)).ok(), Some(runs));
            }
        }
    }
}
