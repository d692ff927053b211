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
mod tests;
