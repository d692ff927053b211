//! Matching keys derived from runs (docs/matching.md §2): plain, structural and generalized.
//!
//! Every key is passed through [`normalize_text`], so canonically equivalent inputs
//! (UAX #15) and inputs that differ only in white space key alike.

use std::collections::HashMap;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

use crate::model::run::{Choice, Run};

/// The version of key derivation. A store records it; when it changes, stored keys
/// are re-derived from the runs.
pub const KEY_VERSION: u32 = 1;

/// NFC, then every run of Unicode white space collapsed to one U+0020, then trimmed.
pub fn normalize_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    let mut push = |c: char, out: &mut String| {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    };
    if is_nfc_quick(text.chars()) == IsNormalized::Yes {
        for c in text.chars() {
            push(c, &mut out);
        }
    } else {
        for c in text.nfc() {
            push(c, &mut out);
        }
    }
    out
}

/// Which of the three keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyKind {
    /// The generalized key: entities as their types.
    Generalized,
    /// The structural key: codes as positional placeholders.
    Structural,
    /// The plain key: text, with placeholders as `{equiv}`.
    Plain,
}

impl KeyKind {
    /// All three, in tier order.
    pub const ALL: [KeyKind; 3] = [KeyKind::Generalized, KeyKind::Structural, KeyKind::Plain];

    /// The bit of this kind in a [`KindSet`].
    pub const fn bit(self) -> u8 {
        match self {
            KeyKind::Generalized => 1,
            KeyKind::Structural => 2,
            KeyKind::Plain => 4,
        }
    }

    /// The column name used by the SQL stores.
    pub const fn column(self) -> &'static str {
        match self {
            KeyKind::Generalized => "general_key",
            KeyKind::Structural => "struct_key",
            KeyKind::Plain => "plain",
        }
    }
}

/// A set of [`KeyKind`]s, as a bit set (generalized = 1, structural = 2, plain = 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KindSet(pub u8);

impl KindSet {
    /// Every kind.
    pub const ALL: KindSet = KindSet(7);

    /// True when `kind` is in the set.
    pub fn contains(self, kind: KeyKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// The set with `kind` added.
    #[must_use]
    pub fn with(self, kind: KeyKind) -> KindSet {
        KindSet(self.0 | kind.bit())
    }

    /// The kinds in both sets.
    #[must_use]
    pub fn intersect(self, other: KindSet) -> KindSet {
        KindSet(self.0 & other.0)
    }

    /// True when empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The earliest kind (in tier order) in the set.
    pub fn first(self) -> Option<KeyKind> {
        KeyKind::ALL.into_iter().find(|k| self.contains(*k))
    }
}

/// The three keys of one run sequence.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Keys {
    /// [`flatten_runs`].
    pub plain: String,
    /// [`structural_text`].
    pub structural: String,
    /// [`generalized_text`].
    pub generalized: String,
}

impl Keys {
    /// Derives all three keys.
    pub fn of(runs: &[Run]) -> Keys {
        Keys {
            plain: flatten_runs(runs),
            structural: structural_text(runs),
            generalized: generalized_text(runs),
        }
    }

    /// One key.
    pub fn get(&self, kind: KeyKind) -> &str {
        match kind {
            KeyKind::Generalized => &self.generalized,
            KeyKind::Structural => &self.structural,
            KeyKind::Plain => &self.plain,
        }
    }

    /// The distinct keys, each with the set of kinds it stands for, in tier order.
    /// A text-only segment has one distinct key standing for all three kinds.
    pub fn distinct(&self) -> Vec<(&str, KindSet)> {
        let mut out: Vec<(&str, KindSet)> = Vec::with_capacity(3);
        for kind in KeyKind::ALL {
            let key = self.get(kind);
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some((_, set)) => *set = set.with(kind),
                None => out.push((key, KindSet::default().with(kind))),
            }
        }
        out
    }
}

/// The plain key: `Text` verbatim, `Ph` as `{equiv}`, `Sub` as `[equiv]`, paired codes
/// emit nothing, a choice renders its `other` (else first) form; normalized.
pub fn flatten_runs(runs: &[Run]) -> String {
    let out = crate::model::run::render_text(runs, &|run, out| match run {
        Run::Ph(c) => {
            out.push('{');
            out.push_str(&c.equiv);
            out.push('}');
        }
        Run::Sub(c) => {
            out.push('[');
            out.push_str(&c.equiv);
            out.push(']');
        }
        _ => {}
    });
    normalize_text(&out)
}

/// The structural key: codes as positional placeholders `{n}`, `{/n}`, `{n/}`, `[n]`,
/// literal braces doubled, choices rendered in full; normalized.
pub fn structural_text(runs: &[Run]) -> String {
    let mut w = KeyWriter::new(false);
    w.runs(runs);
    normalize_text(&w.out)
}

/// The generalized key: as [`structural_text`], but an entity `Ph` renders as its type
/// (`{PERSON}`) and takes no position number; normalized.
pub fn generalized_text(runs: &[Run]) -> String {
    let mut w = KeyWriter::new(true);
    w.runs(runs);
    normalize_text(&w.out)
}

struct KeyWriter<'a> {
    generalize: bool,
    next: u32,
    /// Open paired codes by id, innermost last, with their numbers.
    open: HashMap<&'a str, Vec<u32>>,
    out: String,
}

impl<'a> KeyWriter<'a> {
    fn new(generalize: bool) -> Self {
        KeyWriter { generalize, next: 1, open: HashMap::new(), out: String::new() }
    }

    fn fresh(&mut self) -> u32 {
        let n = self.next;
        self.next += 1;
        n
    }

    fn text(&mut self, text: &str) {
        for c in text.chars() {
            if c == '{' || c == '}' {
                self.out.push(c);
            }
            self.out.push(c);
        }
    }

    fn runs(&mut self, runs: &'a [Run]) {
        use std::fmt::Write;
        for run in runs {
            match run {
                Run::Text(t) => self.text(t),
                Run::Ph(c) if self.generalize && c.is_entity() => {
                    let _ = write!(self.out, "{{{}}}", c.kind);
                }
                Run::Ph(_) => {
                    let n = self.fresh();
                    let _ = write!(self.out, "{{{n}/}}");
                }
                Run::Sub(_) => {
                    let n = self.fresh();
                    let _ = write!(self.out, "[{n}]");
                }
                Run::PcOpen(c) => {
                    let n = self.fresh();
                    self.open.entry(c.id.as_str()).or_default().push(n);
                    let _ = write!(self.out, "{{{n}}}");
                }
                Run::PcClose(c) => {
                    let n = match self.open.get_mut(c.id.as_str()).and_then(Vec::pop) {
                        Some(n) => n,
                        None => self.fresh(),
                    };
                    let _ = write!(self.out, "{{/{n}}}");
                }
                Run::Plural(c) => self.choice("plural", c),
                Run::Select(c) => self.choice("select", c),
            }
        }
    }

    fn choice(&mut self, kind: &str, choice: &'a Choice) {
        self.out.push('{');
        self.text(&choice.var);
        self.out.push(',');
        self.out.push_str(kind);
        self.out.push(',');
        for (key, form) in &choice.forms {
            self.text(key);
            self.out.push('{');
            self.runs(form);
            self.out.push('}');
        }
        self.out.push('}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::Code;

    fn keys(runs: &[Run]) -> (String, String, String) {
        (flatten_runs(runs), structural_text(runs), generalized_text(runs))
    }

    #[test]
    fn spec_worked_examples() {
        let runs = vec![
            Run::entity("1", "PERSON", "John"),
            Run::text(" works at "),
            Run::entity("2", "ORGANIZATION", "Acme"),
        ];
        assert_eq!(
            keys(&runs),
            (
                "{John} works at {Acme}".into(),
                "{1/} works at {2/}".into(),
                "{PERSON} works at {ORGANIZATION}".into()
            )
        );
        let other = vec![
            Run::entity("1", "PERSON", "Alice"),
            Run::text(" works at "),
            Run::entity("2", "ORGANIZATION", "Globex"),
        ];
        assert_eq!(generalized_text(&other), generalized_text(&runs));

        let click = vec![
            Run::text("Click "),
            Run::PcOpen(Code::new("1").data("<b>")),
            Run::text("here"),
            Run::PcClose(Code::new("1").data("</b>")),
            Run::text(" to open "),
            Run::Ph(Code::new("2").equiv("%s").data("%s")),
        ];
        assert_eq!(flatten_runs(&click), "Click here to open {%s}");
        assert_eq!(structural_text(&click), "Click {1}here{/1} to open {2/}");
    }

    #[test]
    fn distinct_keys() {
        let k = Keys::of(&[Run::text("hello")]);
        assert_eq!(k.distinct(), vec![("hello", KindSet::ALL)]);
    }

    #[test]
    fn normalize() {
        assert_eq!(normalize_text("  a \t\n b\u{00A0}c  "), "a b c");
        assert_eq!(normalize_text("e\u{0301}"), "\u{00E9}");
        assert_eq!(normalize_text(""), "");
        assert_eq!(normalize_text(" \u{2003} "), "");
    }
}
