//! Inline-code recognition: turns a plain string (gettext, JSON resources, level-1 TMX,
//! machine-translation output) into [`Run`]s whose placeholders, markup, entities and
//! escapes are inline codes instead of words.
//!
//! Most memories users bring carry no inline-code markup: `Open %s` is stored as the
//! text `Open %s`, so `%s` counts as a word in the keys, and a query `Open %d` never
//! learns that its `%d` replaces the stored `%s`. [`Recognizer::recognize`] finds the
//! codes; [`Recognizer::recognize_pair`] does it for a source and its translation and
//! links each target code to the source code with the same text, so that adaptation
//! (docs/matching.md §5) carries a query's codes into the stored target.
//!
//! ```
//! use cmem_core::model::recognize::Recognizer;
//! use cmem_core::{flatten_runs, structural_text};
//!
//! let rec = Recognizer::default();
//! let runs = rec.recognize("Delete <b>%s</b>?");
//! assert_eq!(structural_text(&runs), "Delete {1}{2/}{/1}?");
//! assert_eq!(flatten_runs(&runs), "Delete {%s}?");
//!
//! let (source, target) = rec.recognize_pair("%1$s of %2$s", "%2$s: %1$s");
//! assert_eq!(source[0].code().map(|c| c.id.as_str()), Some("1"));
//! assert_eq!(target[2].code().map(|c| c.id.as_str()), Some("1")); // the target's %1$s
//! # Ok::<(), cmem_core::Error>(())
//! ```
//!
//! # What each rule set recognizes
//!
//! Every code keeps its exact text as `data`, so concatenating the `Text` runs and the
//! codes' `data` gives back the input byte for byte. Placeholders become [`Run::Ph`] with
//! `equiv` = `data` (the plain key shows `{%s}`) and the code type named below.
//!
//! | set | type | recognizes | stays text |
//! |---|---|---|---|
//! | `printf` | `printf` | C/POSIX conversions with positions, flags, width, precision, length: `%s`, `%d`, `%5.2f`, `%-10s`, `%lu`, `%zu`, `%qs`, `%1$s`, `%*d`, `%%`, `%<PRIu64>` (gettext) | `50% off`, `100 %`, `50% discount` (no space flag, see below) |
//! | `python` | `python-format` | named mapping keys: `%(name)s`, `%(count)5d` | `%%(name)` after `%%` |
//! | `brace` | `brace` | `{0}`, `{name}`, `{user.name}`, `{0:N2}`, `{0,-8}`, `{0, number}`, `{name!r}`, `{date|isodate}`, `${VAR}`, `%{var}`, and double-brace templates `{{count}}`, `{{ user.name }}` | `{}`, `{ }`, `{count, plural, …}`, `{{}+{}}` |
//! | `qt` | `qt` | Qt/KDE arguments `%1`…`%99`, `%L1` | |
//! | `dollar-paren` | `dollar-paren` | LibreOffice and make: `$(ARG1)`, `$(PRODUCTNAME)` | `$ (x)`, `$(1x)` |
//! | `percent-name` | `percent-name` | LibreOffice names: `%PRODUCTNAME`, `%COLUMNNUMBER` (two or more capitals, digits, `_`), and `%DATE%`, `%APPDATA%` with the closing `%` | `%A` (that is printf) |
//! | `gcc` | `gcc` | GCC diagnostics' quotes `%<` … `%>` (a paired code), `%'`, and the front end's conversions `%D`, `%T`, `%qD`, `%qE` | |
//! | `html` | `x-html-NAME` | paired tags `<b>…</b>`, `<a href="…">…</a>` (name matched case-insensitively); self-closing `<br/>`, `<nl/>` and void `<br>`, `<hr>`, `<img src="…">` as placeholders; comments `<!-- … -->` (`x-html-comment`) | `a < b`, `x<y`, `<All Files>`, `git add <file>` |
//! | `xml-entity` | `xml-entity` | `&amp;`, `&nbsp;`, `&#160;`, `&#xA0;` | `&`, `& `, `AT&T`, `&File` (accelerator) |
//! | `escape` | `escape` | backslash escapes written out: `\n`, `\t`, `\"`, `\\`, `\x1b`, `\u00e9` | a lone `\` |
//!
//! The code type of a tag is `x-html-` and its lower-cased name (`x-html-b`,
//! `x-html-span`), the TMX 1.4b convention for user-defined types; the tag's full text
//! (attributes included) is its `data`.
//!
//! [`Recognizer::default()`] uses every set. [`Recognizer::from_names`] selects sets by
//! name (`"printf,html"`), and [`Recognizer::add_rule`] adds a user's own regular
//! expression as a placeholder or as the open or close half of a paired code, like
//! Okapi's code finder.
//!
//! # How tags pair
//!
//! An open tag pairs with the next close tag of the same name that properly nests
//! (`<b><i>x</i></b>`): the two get one id. A close whose name is open further out
//! closes that one and leaves the opens between unpaired (`<b><i>x</b>`: `<i>` is
//! unpaired), as HTML parsers do; a close with no open of its name, and an open never
//! closed, are unpaired codes with ids of their own.
//!
//! An open tag of a name that is not a common HTML element and has no attributes
//! (`<file>`, `<All>`) is a code only when a close of its name follows it: command-line
//! help writes `<file>` for "a file name", while `<filename>…</filename>` (KDE) is markup.
//!
//! # Overlaps
//!
//! Rules are tried everywhere; where matches overlap, the leftmost wins, then the
//! longest, then the rule that comes first (user rules before the built-in sets, the
//! sets in the order of the table). `%1$s` is therefore one `printf` code, not `qt`'s
//! `%1` and the text `$s`; `%PRODUCTNAME` is one `percent-name` code, not `printf`'s `%P…`.
//!
//! # Trade-offs
//!
//! * `printf` leaves out the space flag (`% d`): with it, `50% discount` and `100% sure`
//!   would hold the codes `% d` and `% s`. A real `% d` in a format string stays text.
//!   A `%` directly followed by a conversion letter is a code even in prose (`50%off`
//!   holds `%o`).
//! * `brace` leaves out `{}` (Python's and Rust's automatic field): it cannot be told
//!   from literal braces in prose. Literal `{{`/`}}` escapes of Python's `format` look
//!   like a double-brace template and are recognized as one.
//! * `escape` sees `\n` in `C:\new` and `\t` in LaTeX's `\textbf` as escapes: such text
//!   is rare in user-interface strings, while `%s\nTry again` (Android, `.properties`)
//!   is common; the code keeps its text, so only the key changes. Leave `escape` out for
//!   memories of TeX or Windows paths.
//! * Percent-encoded text outside tags (`a%20b`, `%E2%80%99`) holds `qt` and `printf`
//!   codes (`%20`, `%E`); inside a tag's attributes it is part of the tag.
//! * `html` accepts a bare `<b>`, `<a>`, `<p>` … of a common element even unclosed, so a
//!   search dialog's `<a> through <b>` holds two unpaired codes.
//! * Recognition is by pattern, not by the program's real format language: a string
//!   that is not a format string at all (`c-format` is not marked in most memories)
//!   still has its `%s` recognized. Both sides of a pair are treated alike, so a false
//!   code costs little: it matches its twin in the target.
//!
//! # Speed
//!
//! Regular expressions are compiled once per [`Recognizer`]; a [`RegexSet`] pass tells
//! which rules occur at all (most strings hold no code and cost that one pass), and each
//! occurring rule is then searched forward only, so recognition is linear in the text.

use std::sync::OnceLock;

use regex::{Regex, RegexSet};

use crate::error::{Error, ErrorKind, Result};
use crate::model::run::{Code, Run};

/// The names of the built-in rule sets, in priority order.
pub const RULE_SETS: [&str; 10] = [
    "printf",
    "python",
    "brace",
    "qt",
    "dollar-paren",
    "percent-name",
    "gcc",
    "html",
    "xml-entity",
    "escape",
];

/// What a user rule's matches become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RuleRole {
    /// A standalone code ([`Run::Ph`]).
    Placeholder,
    /// The opening half of a paired code ([`Run::PcOpen`]); it pairs with a
    /// [`RuleRole::Close`] rule of the same name.
    Open,
    /// The closing half of a paired code ([`Run::PcClose`]).
    Close,
}

/// How a rule's matches are classified.
#[derive(Debug, Clone)]
enum Shape {
    /// Always a fixed role; paired roles pair by the rule's name.
    Fixed(RuleRole),
    /// An HTML/XML tag: the role depends on the match (`<b>`, `</b>`, `<br/>`).
    Tag,
}

#[derive(Debug, Clone)]
struct Rule {
    /// The set (or user rule) name; also the code type for all but tags.
    name: String,
    regex: Regex,
    shape: Shape,
}

/// Turns plain strings into runs with inline codes; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct Recognizer {
    /// User rules first, then built-in rules in [`RULE_SETS`] order.
    rules: Vec<Rule>,
    /// How many of `rules` are user rules.
    user: usize,
    set: RegexSet,
    /// With built-in rules only: the bytes a code can start with. A text holding none
    /// of them has no code, and skips the regular expressions altogether.
    lead: Option<[bool; 256]>,
}

impl Default for Recognizer {
    /// Every built-in rule set: a sensible choice for software strings.
    fn default() -> Self {
        // The built-in patterns are constants checked by the tests; an empty
        // recognizer (everything stays text) is the only possible fallback.
        Recognizer::from_names(&RULE_SETS.join(",")).unwrap_or_else(|_| Recognizer::empty())
    }
}

// ---- built-in patterns ----

const PRINTF: &str = concat!(
    r"%%|%(?:[1-9][0-9]*\$)?[-+#0']*(?:\*(?:[1-9][0-9]*\$)?|[0-9]+)?(?:\.(?:\*(?:[1-9][0-9]*\$)?|[0-9]+))?",
    r"(?:(?:hh|h|ll|l|L|q|j|z|Z|t|I64|I32|I|w)?[diouxXeEfFgGaAcspnmCS]",
    r"|<PRI[diouxX](?:8|16|32|64|MAX|PTR|LEAST8|LEAST16|LEAST32|LEAST64|FAST8|FAST16|FAST32|FAST64)>)",
);
const PYTHON: &str = r"%\([^()\s]*\)[-+#0]*(?:\*|[0-9]+)?(?:\.(?:\*|[0-9]+))?[hlL]?[diouxXeEfFgGcrsa%]";
const BRACE: &str = concat!(
    // Double-brace templates (Handlebars, Jinja, Angular, i18next): an identifier-like
    // start and no braces inside.
    r"\{\{-?[ \t]*[A-Za-z_$@#.][^{}\n]*\}\}",
    // Single-brace fields: an index or a dotted/indexed name, optional .NET alignment or
    // ICU argument type, template filters (`{date|isodate}`), conversion and format
    // spec; `${VAR}` and `%{var}` too.
    r"|[$%]?\{[A-Za-z0-9_]+(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]{}\n]*\])*",
    r"(?:[ \t]*,[ \t]*-?[0-9]+|[ \t]*,[ \t]*(?:number|date|time|spellout|ordinal|duration)(?:[ \t]*,[^{}\n]*)?)?",
    r"(?:\|[A-Za-z_][A-Za-z0-9_]*)*(?:![rsa])?(?::[^{}\n]*)?\}",
);
const QT: &str = r"%L?[1-9][0-9]?";
const DOLLAR_PAREN: &str = r"\$\([A-Za-z_][A-Za-z0-9_.]*\)";
/// `%NAME` (LibreOffice), and `%NAME%` (LibreOffice, Windows variables) whole.
const PERCENT_NAME: &str = r"%[A-Z][A-Z0-9_]*[A-Z0-9]%?";
const GCC_OPEN: &str = r"%<";
const GCC_CLOSE: &str = r"%>";
/// `%'` and the front end's own conversions (`%qD`, `%E`, `%T`), optionally quoted with `q`.
const GCC_PH: &str = r"%'|%q?[ACDEFHIJKLOPQRTVX]";
/// `<`, an optional `/`, a name, attributes (valued or not), an optional `/`, `>`.
const TAG: &str = concat!(
    r#"<(/?)([A-Za-z][A-Za-z0-9_:.\-]*)((?:\s+[A-Za-z_:@][A-Za-z0-9_:.@\-]*(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(/?)>"#,
    r"|<!--(?s:.*?)-->",
);
const CLOSE_TAG: &str = r"</([A-Za-z][A-Za-z0-9_:.\-]*)\s*>";
const XML_ENTITY: &str = r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);";
const ESCAPE: &str = r#"\\(?:[abfnrtv0\\"'?]|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})"#;

/// Common HTML elements accepted as open tags without attributes or a matching close
/// (broken markup: `<b>` never closed). Sorted for binary search.
const KNOWN_ELEMENTS: [&str; 52] = [
    "a",
    "abbr",
    "acronym",
    "address",
    "b",
    "bdi",
    "bdo",
    "big",
    "blink",
    "blockquote",
    "body",
    "center",
    "cite",
    "code",
    "dd",
    "del",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "font",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "html",
    "i",
    "ins",
    "kbd",
    "li",
    "mark",
    "nobr",
    "ol",
    "p",
    "pre",
    "q",
    "s",
    "samp",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "sup",
    "table",
    "td",
    "tr",
    "tt",
    "u",
];
/// Void elements that are placeholders even without attributes.
const BARE_VOID: [&str; 3] = ["br", "hr", "wbr"];
/// Void elements that are placeholders when they have attributes.
const VOID: [&str; 13] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "meta", "param", "source", "track",
];

fn set_rules(name: &str) -> Option<Vec<(&'static str, Shape)>> {
    use RuleRole::{Close, Open, Placeholder};
    let ph = |p: &'static str| (p, Shape::Fixed(Placeholder));
    Some(match name {
        "printf" => vec![ph(PRINTF)],
        "python" => vec![ph(PYTHON)],
        "brace" => vec![ph(BRACE)],
        "qt" => vec![ph(QT)],
        "dollar-paren" => vec![ph(DOLLAR_PAREN)],
        "percent-name" => vec![ph(PERCENT_NAME)],
        "gcc" => vec![(GCC_OPEN, Shape::Fixed(Open)), (GCC_CLOSE, Shape::Fixed(Close)), ph(GCC_PH)],
        "html" => vec![(TAG, Shape::Tag)],
        "xml-entity" => vec![ph(XML_ENTITY)],
        "escape" => vec![ph(ESCAPE)],
        _ => return None,
    })
}

/// The bytes every match of a built-in set starts with.
fn set_lead(name: &str) -> &'static [u8] {
    match name {
        "printf" | "python" | "qt" | "percent-name" | "gcc" => b"%",
        "brace" => b"{$%",
        "dollar-paren" => b"$",
        "html" => b"<",
        "xml-entity" => b"&",
        "escape" => b"\\",
        _ => b"",
    }
}

/// The code type of each built-in set's placeholders.
fn set_type(name: &str) -> &str {
    match name {
        "python" => "python-format",
        other => other,
    }
}

fn close_tag_regex() -> Option<&'static Regex> {
    static CLOSE: OnceLock<Option<Regex>> = OnceLock::new();
    CLOSE.get_or_init(|| Regex::new(CLOSE_TAG).ok()).as_ref()
}

fn compile(name: &str, pattern: &str) -> Result<Regex> {
    Regex::new(pattern).map_err(|e| {
        Error::new(
            ErrorKind::InvalidRule,
            format!("recognizer rule {name:?}: invalid pattern {pattern:?}: {e}"),
        )
    })
}

impl Recognizer {
    /// A recognizer with no rules: everything stays text until [`add_rule`](Self::add_rule).
    pub fn empty() -> Self {
        Recognizer { rules: Vec::new(), user: 0, set: RegexSet::empty(), lead: Some([false; 256]) }
    }

    /// The built-in rule sets named in a comma-separated list (`"printf,html"`), in
    /// [`RULE_SETS`] priority whatever the order of the list. White space around names
    /// is ignored; an empty list gives [`Recognizer::empty`].
    ///
    /// # Errors
    /// [`ErrorKind::InvalidRule`] naming an unknown set and listing the known ones.
    pub fn from_names(names: &str) -> Result<Self> {
        let mut wanted: Vec<&str> = Vec::new();
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if !RULE_SETS.contains(&name) {
                return Err(Error::new(
                    ErrorKind::InvalidRule,
                    format!(
                        "recognizer: unknown rule set {name:?} in {names:?}; known: {}",
                        RULE_SETS.join(",")
                    ),
                ));
            }
            wanted.push(name);
        }
        let mut rules = Vec::new();
        let mut lead = [false; 256];
        for set in RULE_SETS.iter().filter(|s| wanted.contains(s)) {
            for &b in set_lead(set) {
                lead[usize::from(b)] = true;
            }
            for (pattern, shape) in set_rules(set).unwrap_or_default() {
                rules.push(Rule { name: (*set).to_string(), regex: compile(set, pattern)?, shape });
            }
        }
        let mut rec = Recognizer { rules, user: 0, set: RegexSet::empty(), lead: Some(lead) };
        rec.rebuild_set()?;
        Ok(rec)
    }

    /// Adds a user rule: every match of `pattern` (Rust `regex` syntax) becomes a code of
    /// type `name` in the given role. Open and close rules with the same `name` pair
    /// with each other. User rules take priority over the built-in sets on equal
    /// matches, and earlier user rules over later ones. Empty matches are ignored.
    ///
    /// ```
    /// use cmem_core::model::recognize::{Recognizer, RuleRole};
    /// use cmem_core::structural_text;
    ///
    /// let mut rec = Recognizer::from_names("printf")?;
    /// rec.add_rule("x-bbcode-b", r"\[b\]", RuleRole::Open)?;
    /// rec.add_rule("x-bbcode-b", r"\[/b\]", RuleRole::Close)?;
    /// rec.add_rule("x-var", r"@@[a-z]+@@", RuleRole::Placeholder)?;
    /// assert_eq!(structural_text(&rec.recognize("[b]%s[/b] by @@user@@")), "{1}{2/}{/1} by {3/}");
    /// # Ok::<(), cmem_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::InvalidRule`] for an empty name or an invalid pattern, naming both.
    pub fn add_rule(&mut self, name: &str, pattern: &str, role: RuleRole) -> Result<()> {
        if name.trim().is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidRule,
                format!("recognizer: a rule needs a name (pattern {pattern:?})"),
            ));
        }
        let rule = Rule { name: name.to_string(), regex: compile(name, pattern)?, shape: Shape::Fixed(role) };
        self.rules.insert(self.user, rule);
        self.user += 1;
        // A user pattern may start with anything.
        self.lead = None;
        self.rebuild_set()
    }

    /// The names of the rules, in priority order (a set with several patterns, such as
    /// `gcc`, appears once).
    pub fn rule_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.rules {
            if !out.contains(&r.name.as_str()) {
                out.push(&r.name);
            }
        }
        out
    }

    fn rebuild_set(&mut self) -> Result<()> {
        self.set = RegexSet::new(self.rules.iter().map(|r| r.regex.as_str())).map_err(|e| {
            Error::new(ErrorKind::InvalidRule, format!("recognizer: cannot combine rules: {e}"))
        })?;
        Ok(())
    }

    /// Recognizes the inline codes of `text`. Codes get ids `1`, `2`, … in order of
    /// appearance; the two halves of a paired code share one. Concatenating the `Text`
    /// runs and the codes' `data` gives back `text`; adjacent text is one run and no
    /// text run is empty.
    pub fn recognize(&self, text: &str) -> Vec<Run> {
        let a = self.analyze(text);
        let ids: Vec<String> = (1..=a.units.len()).map(|n| n.to_string()).collect();
        a.build(text, &ids)
    }

    /// Recognizes a source and its translation with the same rules. Source codes get
    /// ids as in [`recognize`](Self::recognize). A target code whose text equals a
    /// source code's takes that code's id, the k-th occurrence of a text in the target
    /// the id of its k-th occurrence in the source; a paired code is matched by its
    /// open tag, and both halves take the id. Then an unpaired target half takes the id
    /// of a source code with the same text of that half, and a target pair whose tag
    /// text differs (a translated `href`) the id of the next unmatched source pair of
    /// the same rule and tag name. Other target codes get fresh ids after the source's.
    pub fn recognize_pair(&self, source: &str, target: &str) -> (Vec<Run>, Vec<Run>) {
        let s = self.analyze(source);
        let t = self.analyze(target);
        let s_ids: Vec<String> = (1..=s.units.len()).map(|n| n.to_string()).collect();
        let mut t_ids: Vec<Option<usize>> = vec![None; t.units.len()];
        let mut used = vec![false; s.units.len()];

        let mut pass = |t_ids: &mut [Option<usize>], ok: &dyn Fn(&Unit, &Unit) -> bool| {
            for (ti, tu) in t.units.iter().enumerate() {
                if t_ids[ti].is_some() {
                    continue;
                }
                if let Some(si) = (0..s.units.len()).find(|&si| !used[si] && ok(&s.units[si], tu)) {
                    used[si] = true;
                    t_ids[ti] = Some(si);
                }
            }
        };
        // Pass 1: same kind of unit, same text.
        pass(&mut t_ids, &|su, tu| su.kind == tu.kind && s.text_of(source, su) == t.text_of(target, tu));
        // Pass 2: an unpaired half and the same half of a pair (either side).
        pass(&mut t_ids, &|su, tu| {
            let halves = |u: &Unit| (u.open.is_some(), u.close.is_some());
            if su.kind == UnitKind::Ph || tu.kind == UnitKind::Ph {
                return false;
            }
            match (halves(su), halves(tu)) {
                ((true, _), (true, _)) if su.kind != tu.kind => {
                    s.token_text(source, su.open) == t.token_text(target, tu.open)
                }
                ((_, true), (_, true)) if su.kind != tu.kind => {
                    s.token_text(source, su.close) == t.token_text(target, tu.close)
                }
                _ => false,
            }
        });
        // Pass 3: pairs of the same rule and tag name whose tag text differs.
        pass(&mut t_ids, &|su, tu| {
            su.kind == UnitKind::Pair && tu.kind == UnitKind::Pair && su.key == tu.key
        });

        let mut fresh = s.units.len();
        let t_ids: Vec<String> = t_ids
            .into_iter()
            .map(|m| match m {
                Some(si) => s_ids[si].clone(),
                None => {
                    fresh += 1;
                    fresh.to_string()
                }
            })
            .collect();
        (s.build(source, &s_ids), t.build(target, &t_ids))
    }

    /// Finds the codes of `text` and groups them into units.
    fn analyze(&self, text: &str) -> Analysis {
        let tokens = self.scan(text);
        pair(tokens)
    }

    /// Leftmost-longest scan over every rule that occurs in `text`.
    fn scan(&self, text: &str) -> Vec<Token> {
        if let Some(lead) = &self.lead {
            if !text.bytes().any(|b| lead[usize::from(b)]) {
                return Vec::new();
            }
        }
        let active: Vec<usize> = self.set.matches(text).into_iter().collect();
        let mut tokens = Vec::new();
        if active.is_empty() {
            return tokens;
        }
        let mut next: Vec<Option<(usize, usize)>> =
            active.iter().map(|&r| find_from(&self.rules[r].regex, text, 0)).collect();
        let mut closes: Option<Vec<(String, usize)>> = None;
        let mut pos = 0;
        loop {
            for (slot, &r) in next.iter_mut().zip(&active) {
                if matches!(slot, Some((s, _)) if *s < pos) {
                    *slot = find_from(&self.rules[r].regex, text, pos);
                }
            }
            // Leftmost, then longest, then the earlier rule.
            let mut best: Option<(usize, usize, usize)> = None;
            for (i, slot) in next.iter().enumerate() {
                if let Some((s, e)) = *slot {
                    let better = match best {
                        None => true,
                        Some((bs, be, _)) => s < bs || (s == bs && e > be),
                    };
                    if better {
                        best = Some((s, e, i));
                    }
                }
            }
            let Some((start, end, slot)) = best else { break };
            let rule = &self.rules[active[slot]];
            match self.classify(rule, text, start, end, &mut closes) {
                Some(role) => {
                    tokens.push(Token { start, end, role });
                    pos = end;
                }
                None => {
                    // Not a code after all: look for this rule's next match.
                    next[slot] = find_from(&rule.regex, text, next_boundary(text, start));
                }
            }
        }
        tokens
    }

    /// The role of a match, or `None` when it is not a code (an unknown bare tag).
    fn classify(
        &self,
        rule: &Rule,
        text: &str,
        start: usize,
        end: usize,
        closes: &mut Option<Vec<(String, usize)>>,
    ) -> Option<TokenRole> {
        match &rule.shape {
            Shape::Fixed(RuleRole::Placeholder) => Some(TokenRole::Ph(set_type(&rule.name).to_string())),
            Shape::Fixed(RuleRole::Open) => Some(TokenRole::Open(rule.name.clone(), rule.name.clone())),
            Shape::Fixed(RuleRole::Close) => Some(TokenRole::Close(rule.name.clone(), rule.name.clone())),
            Shape::Tag => {
                let caps = rule.regex.captures_at(text, start)?;
                let (Some(slash), Some(name)) = (caps.get(1), caps.get(2)) else {
                    return Some(TokenRole::Ph("x-html-comment".to_string()));
                };
                let lower = name.as_str().to_ascii_lowercase();
                let kind = format!(
                    "x-html-{}",
                    lower
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                        .collect::<String>()
                );
                let attrs = caps.get(3).map_or("", |m| m.as_str());
                let self_closing = caps.get(4).is_some_and(|m| !m.is_empty());
                let key = format!("html:{lower}");
                if !slash.is_empty() {
                    return Some(TokenRole::Close(kind, key));
                }
                let has_attrs = !attrs.trim().is_empty();
                if self_closing
                    || BARE_VOID.contains(&lower.as_str())
                    || (has_attrs && VOID.contains(&lower.as_str()))
                {
                    return Some(TokenRole::Ph(kind));
                }
                if KNOWN_ELEMENTS.binary_search(&lower.as_str()).is_ok() || attrs.contains('=') {
                    return Some(TokenRole::Open(kind, key));
                }
                let closes = closes.get_or_insert_with(|| {
                    close_tag_regex()
                        .map(|re| {
                            re.captures_iter(text)
                                .filter_map(|c| {
                                    let m = c.get(0)?;
                                    Some((c.get(1)?.as_str().to_ascii_lowercase(), m.start()))
                                })
                                .collect()
                        })
                        .unwrap_or_default()
                });
                if closes.iter().any(|(n, at)| *n == lower && *at >= end) {
                    Some(TokenRole::Open(kind, key))
                } else {
                    None
                }
            }
        }
    }
}

/// The first non-empty match of `re` at or after `from`.
fn find_from(re: &Regex, text: &str, mut from: usize) -> Option<(usize, usize)> {
    while from <= text.len() {
        let m = re.find_at(text, from)?;
        if !m.is_empty() {
            return Some((m.start(), m.end()));
        }
        from = next_boundary(text, m.start());
    }
    None
}

/// The char boundary after `at` (past the end when `at` is the end).
fn next_boundary(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at + 1, |c| at + c.len_utf8())
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum TokenRole {
    /// A placeholder of this type.
    Ph(String),
    /// An opening half: type, pair key.
    Open(String, String),
    /// A closing half: type, pair key.
    Close(String, String),
}

#[derive(Debug, Clone)]
struct Token {
    start: usize,
    end: usize,
    role: TokenRole,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UnitKind {
    Ph,
    Pair,
    Open,
    Close,
}

/// One code as ids see it: a placeholder, a pair, or an unpaired half.
#[derive(Debug, Clone)]
struct Unit {
    kind: UnitKind,
    /// The token of the placeholder or the open half.
    open: Option<usize>,
    /// The token of the close half.
    close: Option<usize>,
    /// The pair key (rule and tag name); empty for placeholders.
    key: String,
}

#[derive(Debug, Clone, Default)]
struct Analysis {
    tokens: Vec<Token>,
    units: Vec<Unit>,
    /// The unit of each token.
    unit_of: Vec<usize>,
}

/// Pairs opens and closes with a stack; units are numbered by their first token.
fn pair(tokens: Vec<Token>) -> Analysis {
    // For each token: Some(partner) for paired halves.
    let mut partner: Vec<Option<usize>> = vec![None; tokens.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, tok) in tokens.iter().enumerate() {
        match &tok.role {
            TokenRole::Ph(_) => {}
            TokenRole::Open(_, _) => stack.push(i),
            TokenRole::Close(_, key) => {
                let found =
                    stack.iter().rposition(|&o| matches!(&tokens[o].role, TokenRole::Open(_, k) if k == key));
                if let Some(depth) = found {
                    // Opens above it stay unpaired (mis-nested).
                    let open = stack[depth];
                    stack.truncate(depth);
                    partner[open] = Some(i);
                    partner[i] = Some(open);
                }
            }
        }
    }
    let mut units = Vec::new();
    let mut unit_of = vec![0; tokens.len()];
    for (i, tok) in tokens.iter().enumerate() {
        let unit = match (&tok.role, partner[i]) {
            (TokenRole::Ph(_), _) => {
                Unit { kind: UnitKind::Ph, open: Some(i), close: None, key: String::new() }
            }
            (TokenRole::Open(_, key), Some(c)) => {
                Unit { kind: UnitKind::Pair, open: Some(i), close: Some(c), key: key.clone() }
            }
            (TokenRole::Close(_, _), Some(o)) => {
                unit_of[i] = unit_of[o];
                continue;
            }
            (TokenRole::Open(_, key), None) => {
                Unit { kind: UnitKind::Open, open: Some(i), close: None, key: key.clone() }
            }
            (TokenRole::Close(_, key), None) => {
                Unit { kind: UnitKind::Close, open: None, close: Some(i), key: key.clone() }
            }
        };
        unit_of[i] = units.len();
        units.push(unit);
    }
    Analysis { tokens, units, unit_of }
}

impl Analysis {
    fn token_text<'t>(&self, text: &'t str, token: Option<usize>) -> Option<&'t str> {
        token.and_then(|i| self.tokens.get(i)).map(|t| &text[t.start..t.end])
    }

    /// The text a unit is matched by: its placeholder, open half, or lone close half.
    fn text_of<'t>(&self, text: &'t str, unit: &Unit) -> Option<&'t str> {
        self.token_text(text, unit.open.or(unit.close))
    }

    /// The runs, with `ids[u]` for unit `u`.
    fn build(&self, text: &str, ids: &[String]) -> Vec<Run> {
        let mut runs = Vec::with_capacity(self.tokens.len() * 2 + 1);
        let mut pos = 0;
        for (i, tok) in self.tokens.iter().enumerate() {
            if tok.start > pos {
                runs.push(Run::Text(text[pos..tok.start].to_string()));
            }
            let data = &text[tok.start..tok.end];
            let id = ids.get(self.unit_of[i]).cloned().unwrap_or_default();
            runs.push(match &tok.role {
                TokenRole::Ph(kind) => {
                    Run::Ph(Code { id, equiv: data.to_string(), kind: kind.clone(), data: data.into() })
                }
                TokenRole::Open(kind, _) => Run::PcOpen(Code::new(id).kind(kind.as_str()).data(data)),
                TokenRole::Close(kind, _) => Run::PcClose(Code::new(id).kind(kind.as_str()).data(data)),
            });
            pos = tok.end;
        }
        if pos < text.len() {
            runs.push(Run::Text(text[pos..].to_string()));
        }
        runs
    }
}

#[cfg(test)]
mod tests;
