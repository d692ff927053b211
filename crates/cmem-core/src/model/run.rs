//! The content model: a segment is a sequence of [`Run`]s (docs/matching.md §1).

use serde::{Deserialize, Serialize};

/// The code type of a client's placeholder mask ([`client_masks`](crate::lookup::query::client_masks)).
pub const CLIENT_MASK_TYPE: &str = "x-client-mask";

/// One inline code: a placeholder, one half of a paired code, or a sub-flow reference.
///
/// In JSON, absent optional fields are omitted and unknown fields are an error.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Code {
    /// Pairs an open with its close, and links a source code to its target counterpart.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// The plain-text stand-in; for an entity, its surface value (`"John"`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub equiv: String,
    /// A free string naming the code's kind; upper-case identifiers are entity types.
    #[serde(rename = "type", default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// The native markup (`<b>`, `%s`), kept so export restores it byte for byte.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub data: String,
}

impl Code {
    /// A code with only an id.
    pub fn new(id: impl Into<String>) -> Self {
        Code { id: id.into(), ..Code::default() }
    }

    /// Sets the plain-text stand-in.
    #[must_use]
    pub fn equiv(mut self, equiv: impl Into<String>) -> Self {
        self.equiv = equiv.into();
        self
    }

    /// Sets the type.
    #[must_use]
    pub fn kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = kind.into();
        self
    }

    /// Sets the native markup.
    #[must_use]
    pub fn data(mut self, data: impl Into<String>) -> Self {
        self.data = data.into();
        self
    }

    /// True when this code's type is an entity type (`PERSON`, `DATE`, …).
    pub fn is_entity(&self) -> bool {
        is_entity_type(&self.kind)
    }
}

/// True for an entity type: an upper-case identifier `[A-Z][A-Z0-9_]*` (docs/matching.md §1).
pub fn is_entity_type(kind: &str) -> bool {
    let mut bytes = kind.bytes();
    match bytes.next() {
        Some(b'A'..=b'Z') => bytes.all(|b| matches!(b, b'A'..=b'Z' | b'0'..=b'9' | b'_')),
        _ => false,
    }
}

/// An ICU-style choice: a variable and its ordered forms.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// The variable the choice depends on (`n`, `gender`).
    pub var: String,
    /// The forms in stored order: a key (`one`, `other`, `=0`, `female`) and its runs.
    pub forms: Vec<(String, Vec<Run>)>,
}

impl Choice {
    /// The `other` form, or the first form when there is none (docs/matching.md §2, plain key).
    pub fn default_form(&self) -> Option<&[Run]> {
        self.forms
            .iter()
            .find(|(key, _)| key == "other")
            .or_else(|| self.forms.first())
            .map(|(_, runs)| runs.as_slice())
    }
}

/// One run of a segment (docs/matching.md §1).
///
/// The JSON form is externally tagged: `{"text":"Hi "}`, `{"ph":{"id":"1"}}`,
/// `{"pc_open":{…}}`, `{"pc_close":{…}}`, `{"sub":{…}}`, `{"plural":{"var":"n","forms":[…]}}`,
/// `{"select":{…}}`. An unknown kind is an error naming it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Run {
    /// Literal text.
    Text(String),
    /// A standalone inline code or placeholder; an entity when its type is an entity type.
    Ph(Code),
    /// The opening half of a paired code.
    PcOpen(Code),
    /// The closing half of a paired code; its `id` equals its opener's.
    PcClose(Code),
    /// A reference to a sub-flow (an image's alt text, a footnote).
    Sub(Code),
    /// A plural choice.
    Plural(Choice),
    /// A select (gender, case…) choice.
    Select(Choice),
}

impl Run {
    /// A text run.
    pub fn text(text: impl Into<String>) -> Self {
        Run::Text(text.into())
    }

    /// An entity placeholder: `Ph` with an entity type and the value as `equiv`.
    pub fn entity(id: impl Into<String>, kind: impl Into<String>, value: impl Into<String>) -> Self {
        Run::Ph(Code::new(id).kind(kind).equiv(value))
    }

    /// The code of a code-carrying run.
    pub fn code(&self) -> Option<&Code> {
        match self {
            Run::Ph(c) | Run::PcOpen(c) | Run::PcClose(c) | Run::Sub(c) => Some(c),
            _ => None,
        }
    }

    /// The code of a code-carrying run, mutably.
    pub fn code_mut(&mut self) -> Option<&mut Code> {
        match self {
            Run::Ph(c) | Run::PcOpen(c) | Run::PcClose(c) | Run::Sub(c) => Some(c),
            _ => None,
        }
    }

    /// True for a `Ph` whose type is an entity type.
    pub fn is_entity(&self) -> bool {
        matches!(self, Run::Ph(c) if c.is_entity())
    }
}

/// Parses runs from their JSON form (an array of runs).
///
/// # Errors
/// [`ErrorKind::InvalidRuns`](crate::error::ErrorKind::InvalidRuns) naming the offending value
/// and its position in the JSON text.
pub fn runs_from_json(json: &str) -> crate::error::Result<Vec<Run>> {
    serde_json::from_str(json).map_err(|e| crate::error::Error::invalid_runs(format!("runs json: {e}")))
}

/// The JSON form of runs.
pub fn runs_to_json(runs: &[Run]) -> String {
    // Serializing plain data to a String cannot fail.
    serde_json::to_string(runs).unwrap_or_default()
}

/// Visits every run, descending into choice forms, in order of appearance.
pub fn walk_runs<'a>(runs: &'a [Run], f: &mut dyn FnMut(&'a Run)) {
    for run in runs {
        f(run);
        if let Run::Plural(c) | Run::Select(c) = run {
            for (_, form) in &c.forms {
                walk_runs(form, f);
            }
        }
    }
}

/// Visits every run mutably, descending into choice forms.
pub fn walk_runs_mut(runs: &mut [Run], f: &mut dyn FnMut(&mut Run)) {
    for run in runs {
        f(run);
        if let Run::Plural(c) | Run::Select(c) = run {
            for (_, form) in &mut c.forms {
                walk_runs_mut(form, f);
            }
        }
    }
}

/// The text of runs made of `Text` runs only; `None` when any other run (a code, a
/// choice) is among them: what plain-text recognition may take as a string.
pub fn text_only(runs: &[Run]) -> Option<String> {
    let mut text = String::new();
    for run in runs {
        match run {
            Run::Text(t) => text.push_str(t),
            _ => return None,
        }
    }
    Some(text)
}

/// The text of every `Text` run, concatenated, descending into choices' default forms.
pub fn plain_text(runs: &[Run]) -> String {
    render_text(runs, &|_, _| {})
}

/// `Text` runs verbatim and choices by their default form, each other run (a code) as
/// `code` writes it: the one walk behind the plain renderings of runs.
pub fn render_text(runs: &[Run], code: &dyn Fn(&Run, &mut String)) -> String {
    fn go(runs: &[Run], code: &dyn Fn(&Run, &mut String), out: &mut String) {
        for run in runs {
            match run {
                Run::Text(t) => out.push_str(t),
                Run::Plural(c) | Run::Select(c) => {
                    if let Some(form) = c.default_form() {
                        go(form, code, out);
                    }
                }
                other => code(other, out),
            }
        }
    }
    let mut out = String::new();
    go(runs, code, &mut out);
    out
}

/// The text of runs as a user sees it in a document: text, each code as its native
/// markup (`data`, or `equiv` when it has none, as entities do), choices as their
/// default form. What `cmem lookup` prints and what the match view's `text` fields hold.
pub fn surface_text(runs: &[Run]) -> String {
    render_text(runs, &|run, out| {
        if let Some(code) = run.code() {
            out.push_str(if code.data.is_empty() { &code.equiv } else { &code.data });
        }
    })
}

/// The text of `runs` with each code as U+FFFC, NFC.
pub(crate) fn skeleton(runs: &[Run]) -> String {
    let mut out = String::new();
    crate::model::run::walk_runs(runs, &mut |run| match run {
        Run::Text(t) => out.push_str(t),
        _ if run.code().is_some() => out.push('\u{FFFC}'),
        _ => {}
    });
    unicode_normalization::UnicodeNormalization::nfc(out.chars()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_only_takes_text_runs_alone() {
        assert_eq!(text_only(&[Run::text("Open "), Run::text("%s")]).as_deref(), Some("Open %s"));
        assert_eq!(text_only(&[]).as_deref(), Some(""));
        let ph = Run::Ph(Code { id: "1".into(), equiv: "%s".into(), ..Code::default() });
        assert_eq!(text_only(&[Run::text("Open "), ph]), None);
    }

    #[test]
    fn json_form_matches_spec() {
        let runs = vec![
            Run::text("Hi "),
            Run::entity("1", "PERSON", "John"),
            Run::PcOpen(Code::new("2").kind("bold").data("<b>")),
            Run::PcClose(Code::new("2").data("</b>")),
            Run::Sub(Code::new("3").equiv("logo")),
        ];
        let json = runs_to_json(&runs);
        assert_eq!(
            json,
            r#"[{"text":"Hi "},{"ph":{"id":"1","equiv":"John","type":"PERSON"}},{"pc_open":{"id":"2","type":"bold","data":"<b>"}},{"pc_close":{"id":"2","data":"</b>"}},{"sub":{"id":"3","equiv":"logo"}}]"#
        );
        assert_eq!(runs_from_json(&json).unwrap(), runs);
    }

    #[test]
    fn plural_json() {
        let json = r#"[{"plural":{"var":"n","forms":[["one",[{"text":"one file"}]],["other",[{"text":"files"}]]]}}]"#;
        let runs = runs_from_json(json).unwrap();
        assert_eq!(runs_to_json(&runs), json);
    }

    #[test]
    fn unknown_kind_and_field_are_errors() {
        let err = runs_from_json(r#"[{"bogus":"x"}]"#).unwrap_err();
        assert!(err.to_string().contains("bogus"), "{err}");
        let err = runs_from_json(r#"[{"ph":{"id":"1","colour":"red"}}]"#).unwrap_err();
        assert!(err.to_string().contains("colour"), "{err}");
        assert!(runs_from_json(r#"[{"text":1}]"#).is_err());
        assert!(runs_from_json(r#"{"text":"a"}"#).is_err());
    }

    #[test]
    fn entity_types() {
        for t in ["PERSON", "ORGANIZATION", "DATE", "X1", "A_B"] {
            assert!(is_entity_type(t), "{t}");
        }
        for t in ["", "bold", "Person", "x-html-b", "1A", "_A", "A-B", "PERSÖN"] {
            assert!(!is_entity_type(t), "{t}");
        }
    }
}
