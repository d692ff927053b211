//! Inline-code recognition: hand-written golden cases for each syntax and each
//! look-alike, pairing and id linking, properties over arbitrary strings, and the
//! golden file of real strings in `testdata/recognize/`.

use std::fmt::Write as _;
use std::path::PathBuf;

use cmem_core::model::recognize::{Recognizer, RuleRole, RULE_SETS};
use cmem_core::model::run::{runs_from_json, runs_to_json};
use cmem_core::{flatten_runs, structural_text, ErrorKind, Run};
use proptest::prelude::*;

/// A compact view of runs: text as is; `⟨id:type data⟩` for a placeholder,
/// `⟨id+type data⟩` for an open half, `⟨id-type data⟩` for a close half.
fn show(runs: &[Run]) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text(t) => out.push_str(t),
            Run::Ph(c) => {
                assert_eq!(c.equiv, c.data, "a placeholder's equiv is its text");
                let _ = write!(out, "⟨{}:{} {}⟩", c.id, c.kind, c.data);
            }
            Run::PcOpen(c) => {
                let _ = write!(out, "⟨{}+{} {}⟩", c.id, c.kind, c.data);
            }
            Run::PcClose(c) => {
                let _ = write!(out, "⟨{}-{} {}⟩", c.id, c.kind, c.data);
            }
            other => panic!("the recognizer made {other:?}"),
        }
    }
    out
}

/// The text back from runs: text and every code's data.
fn restore(runs: &[Run]) -> String {
    runs.iter()
        .map(|r| match r {
            Run::Text(t) => t.as_str(),
            other => other.code().map_or("", |c| c.data.as_str()),
        })
        .collect()
}

/// Checks the run invariants: the text comes back byte for byte, text runs are
/// neither empty nor adjacent, and an id is used by one code or by one open/close pair.
#[track_caller]
fn check_invariants(text: &str, runs: &[Run]) {
    assert_eq!(restore(runs), text, "round trip of {text:?}: {runs:?}");
    for w in runs.windows(2) {
        assert!(!matches!((&w[0], &w[1]), (Run::Text(_), Run::Text(_))), "adjacent text runs in {runs:?}");
    }
    for r in runs {
        assert!(!matches!(r, Run::Text(t) if t.is_empty()), "empty text run in {runs:?}");
    }
    let mut by_id: std::collections::HashMap<&str, Vec<&Run>> = std::collections::HashMap::new();
    for r in runs {
        if let Some(c) = r.code() {
            assert!(!c.id.is_empty(), "code without id in {runs:?}");
            by_id.entry(c.id.as_str()).or_default().push(r);
        }
    }
    for (id, rs) in by_id {
        let ok = matches!(rs.as_slice(), [_] | [Run::PcOpen(_), Run::PcClose(_)]);
        assert!(ok, "id {id} used by {rs:?}");
    }
}

#[track_caller]
fn golden(rec: &Recognizer, text: &str, expected: &str) {
    let runs = rec.recognize(text);
    check_invariants(text, &runs);
    assert_eq!(show(&runs), expected, "recognizing {text:?}");
}

/// The default recognizer, compiled once for the whole test binary.
fn default_rec() -> &'static Recognizer {
    static REC: std::sync::OnceLock<Recognizer> = std::sync::OnceLock::new();
    REC.get_or_init(Recognizer::default)
}

fn rec(names: &str) -> Recognizer {
    Recognizer::from_names(names).unwrap()
}

// ---- each syntax ----

#[test]
fn printf() {
    let r = rec("printf");
    golden(&r, "Open %s", "Open ⟨1:printf %s⟩");
    golden(&r, "%d of %d files", "⟨1:printf %d⟩ of ⟨2:printf %d⟩ files");
    golden(&r, "%5.2f%%", "⟨1:printf %5.2f⟩⟨2:printf %%⟩");
    golden(&r, "%-10s|%lu|%zu|%lld|%#x|%+d|%08.3e", "⟨1:printf %-10s⟩|⟨2:printf %lu⟩|⟨3:printf %zu⟩|⟨4:printf %lld⟩|⟨5:printf %#x⟩|⟨6:printf %+d⟩|⟨7:printf %08.3e⟩");
    golden(&r, "%1$s and %2$d", "⟨1:printf %1$s⟩ and ⟨2:printf %2$d⟩");
    golden(&r, "width %*d, %.*s", "width ⟨1:printf %*d⟩, ⟨2:printf %.*s⟩");
    golden(&r, "%qs is not %qD", "⟨1:printf %qs⟩ is not %qD");
    golden(&r, "offset %<PRIu64> bytes", "offset ⟨1:printf %<PRIu64>⟩ bytes");
    golden(&r, "%'d items", "⟨1:printf %'d⟩ items");
}

#[test]
fn python_format() {
    let r = rec("python");
    golden(
        &r,
        "%(name)s has %(count)d items",
        "⟨1:python-format %(name)s⟩ has ⟨2:python-format %(count)d⟩ items",
    );
    golden(&r, "%(size)5.1f MB", "⟨1:python-format %(size)5.1f⟩ MB");
    golden(&r, "%(a)r", "⟨1:python-format %(a)r⟩");
    // `%s` alone is printf's.
    golden(&r, "%s", "%s");
}

#[test]
fn printf_and_python_together() {
    let r = default_rec();
    golden(r, "%%(body) takes %s", "⟨1:printf %%⟩(body) takes ⟨2:printf %s⟩");
    golden(r, "%(user)s: %s", "⟨1:python-format %(user)s⟩: ⟨2:printf %s⟩");
}

#[test]
fn brace() {
    let r = rec("brace");
    golden(&r, "{0} of {1}", "⟨1:brace {0}⟩ of ⟨2:brace {1}⟩");
    golden(&r, "Hello {name}!", "Hello ⟨1:brace {name}⟩!");
    golden(&r, "{user.name} {items[0]}", "⟨1:brace {user.name}⟩ ⟨2:brace {items[0]}⟩");
    golden(&r, "{0:N2} {0,-8} {1:yyyy-MM-dd}", "⟨1:brace {0:N2}⟩ ⟨2:brace {0,-8}⟩ ⟨3:brace {1:yyyy-MM-dd}⟩");
    golden(&r, "{0, number} {when, date, short}", "⟨1:brace {0, number}⟩ ⟨2:brace {when, date, short}⟩");
    golden(&r, "{name!r}", "⟨1:brace {name!r}⟩");
    golden(&r, "{{count}} new", "⟨1:brace {{count}}⟩ new");
    golden(&r, "Hi {{ user.name }}", "Hi ⟨1:brace {{ user.name }}⟩");
    golden(&r, "only ${VARNAME} here", "only ⟨1:brace ${VARNAME}⟩ here");
    golden(&r, "%{key}-click: %{link}", "⟨1:brace %{key}⟩-click: ⟨2:brace %{link}⟩");
    golden(&r, "at ${24Hour}", "at ⟨1:brace ${24Hour}⟩");
    golden(
        &r,
        "{desc|firstline|strip} {date|isodate}",
        "⟨1:brace {desc|firstline|strip}⟩ ⟨2:brace {date|isodate}⟩",
    );
}

#[test]
fn qt() {
    let r = rec("qt");
    golden(&r, "The path %1 already exists.", "The path ⟨1:qt %1⟩ already exists.");
    golden(&r, "%1 of %2 (%L3)", "⟨1:qt %1⟩ of ⟨2:qt %2⟩ (⟨3:qt %L3⟩)");
    golden(&r, "%99 %100", "⟨1:qt %99⟩ ⟨2:qt %10⟩0");
}

#[test]
fn dollar_paren() {
    let r = rec("dollar-paren");
    golden(&r, "Rename $(ARG1) to $(ARG2)", "Rename ⟨1:dollar-paren $(ARG1)⟩ to ⟨2:dollar-paren $(ARG2)⟩");
    golden(&r, "Data Series $(ROW)", "Data Series ⟨1:dollar-paren $(ROW)⟩");
}

#[test]
fn percent_name() {
    let r = rec("percent-name");
    golden(&r, "Column %COLUMNNUMBER", "Column ⟨1:percent-name %COLUMNNUMBER⟩");
    golden(
        &r,
        "Welcome to %PRODUCTNAME %PRODUCTVERSION",
        "Welcome to ⟨1:percent-name %PRODUCTNAME⟩ ⟨2:percent-name %PRODUCTVERSION⟩",
    );
    golden(&r, "%SIGMA_g", "⟨1:percent-name %SIGMA⟩_g");
    golden(
        &r,
        "Last checked: %DATE%, %TIME%",
        "Last checked: ⟨1:percent-name %DATE%⟩, ⟨2:percent-name %TIME%⟩",
    );
    golden(&r, "(%DPIX% x %DPIY% DPI)", "(⟨1:percent-name %DPIX%⟩ x ⟨2:percent-name %DPIY%⟩ DPI)");
}

#[test]
fn gcc_quotes() {
    let r = rec("printf,gcc");
    golden(&r, "%<#pragma%> ignored", "⟨1+gcc %<⟩#pragma⟨1-gcc %>⟩ ignored");
    golden(&r, "%qs in %<%s%>", "⟨1:printf %qs⟩ in ⟨2+gcc %<⟩⟨3:printf %s⟩⟨2-gcc %>⟩");
    golden(&r, "%<PRId64>", "⟨1:printf %<PRId64>⟩");
    // `%qE` is printf's too (`q` length, `E` conversion): on a tie the earlier set wins.
    golden(&r, "%qD declared here, %qE and %T", "⟨1:gcc %qD⟩ declared here, ⟨2:printf %qE⟩ and ⟨3:gcc %T⟩");
}

#[test]
fn html_paired_tags() {
    let r = rec("html");
    golden(&r, "Click <b>here</b>", "Click ⟨1+x-html-b <b>⟩here⟨1-x-html-b </b>⟩");
    golden(
        &r,
        r#"See <a href="https://example.com/?a=1&b=2">the <i>docs</i></a>."#,
        r#"See ⟨1+x-html-a <a href="https://example.com/?a=1&b=2">⟩the ⟨2+x-html-i <i>⟩docs⟨2-x-html-i </i>⟩⟨1-x-html-a </a>⟩."#,
    );
    golden(
        &r,
        r#"<span class="emph">Enter</span>"#,
        r#"⟨1+x-html-span <span class="emph">⟩Enter⟨1-x-html-span </span>⟩"#,
    );
    golden(&r, "<B>x</b>", "⟨1+x-html-b <B>⟩x⟨1-x-html-b </b>⟩");
    golden(&r, "<b>1</b><b>2</b>", "⟨1+x-html-b <b>⟩1⟨1-x-html-b </b>⟩⟨2+x-html-b <b>⟩2⟨2-x-html-b </b>⟩");
    golden(
        &r,
        "<b><b>in</b>out</b>",
        "⟨1+x-html-b <b>⟩⟨2+x-html-b <b>⟩in⟨2-x-html-b </b>⟩out⟨1-x-html-b </b>⟩",
    );
}

#[test]
fn html_placeholders() {
    let r = rec("html");
    golden(&r, "a<br/>b<br>c<br />d", "a⟨1:x-html-br <br/>⟩b⟨2:x-html-br <br>⟩c⟨3:x-html-br <br />⟩d");
    golden(&r, r#"<img src="a.png" alt="A"> logo"#, r#"⟨1:x-html-img <img src="a.png" alt="A">⟩ logo"#);
    golden(&r, "line<nl/>next", "line⟨1:x-html-nl <nl/>⟩next");
    golden(&r, "a <!-- note: <b> --> b", "a ⟨1:x-html-comment <!-- note: <b> -->⟩ b");
    golden(&r, "<hr>", "⟨1:x-html-hr <hr>⟩");
}

#[test]
fn html_unpaired_and_misnested() {
    let r = rec("html");
    // Never closed, closed without an open.
    golden(&r, "<b>bold to the end", "⟨1+x-html-b <b>⟩bold to the end");
    golden(&r, "end of bold</b> here", "end of bold⟨1-x-html-b </b>⟩ here");
    // Mis-nested: the close of the outer tag leaves the inner open unpaired.
    golden(
        &r,
        "<b>bold <i>both</b> italic</i>",
        "⟨1+x-html-b <b>⟩bold ⟨2+x-html-i <i>⟩both⟨1-x-html-b </b>⟩ italic⟨3-x-html-i </i>⟩",
    );
    // A close before its open.
    golden(&r, "</i>x<i>", "⟨1-x-html-i </i>⟩x⟨2+x-html-i <i>⟩");
    // Two opens, one close: the inner one pairs.
    golden(&r, "<p>a<p>b</p>", "⟨1+x-html-p <p>⟩a⟨2+x-html-p <p>⟩b⟨2-x-html-p </p>⟩");
}

#[test]
fn html_unknown_names() {
    let r = rec("html");
    // Bare unknown names are text unless closed later…
    golden(&r, "git add <file>", "git add <file>");
    golden(&r, "<All Files>", "<All Files>");
    golden(&r, "<Not localized>", "<Not localized>");
    golden(&r, "<Press 'Add' to create language resources>", "<Press 'Add' to create language resources>");
    golden(&r, "Usage: prog <input> <output>", "Usage: prog <input> <output>");
    // …closed later, or with attributes, they are markup.
    golden(
        &r,
        "Open <filename>a.txt</filename>",
        "Open ⟨1+x-html-filename <filename>⟩a.txt⟨1-x-html-filename </filename>⟩",
    );
    golden(
        &r,
        r#"<ahelp hid=".">Help</ahelp>"#,
        r#"⟨1+x-html-ahelp <ahelp hid=".">⟩Help⟨1-x-html-ahelp </ahelp>⟩"#,
    );
    golden(&r, r#"<item type="menuitem">Tools"#, r#"⟨1+x-html-item <item type="menuitem">⟩Tools"#);
    golden(&r, "</file> <file>", "⟨1-x-html-file </file>⟩ <file>");
}

#[test]
fn xml_entities() {
    let r = rec("xml-entity");
    golden(&r, "Tom &amp; Jerry", "Tom ⟨1:xml-entity &amp;⟩ Jerry");
    golden(
        &r,
        "a&#160;b&#xA0;c&nbsp;d",
        "a⟨1:xml-entity &#160;⟩b⟨2:xml-entity &#xA0;⟩c⟨3:xml-entity &nbsp;⟩d",
    );
    golden(&r, "&lt;b&gt;", "⟨1:xml-entity &lt;⟩b⟨2:xml-entity &gt;⟩");
}

#[test]
fn escapes() {
    let r = rec("escape");
    golden(&r, r"Line one\nLine two", r"Line one⟨1:escape \n⟩Line two");
    golden(&r, r#"say \"hi\"\t\\"#, r#"say ⟨1:escape \"⟩hi⟨2:escape \"⟩⟨3:escape \t⟩⟨4:escape \\⟩"#);
    golden(&r, r"\x1b[0m \u00e9", r"⟨1:escape \x1b⟩[0m ⟨2:escape \u00e9⟩");
    // `\\n` is an escaped backslash and the letter n.
    golden(&r, r"\\n", r"⟨1:escape \\⟩n");
}

// ---- look-alikes stay text ----

#[test]
fn look_alikes_stay_text() {
    let r = default_rec();
    for text in [
        "50% of the files",
        "100 %",
        "a 50% discount",
        "100% sure",
        "Edges are rounded by 5%.",
        "30% (approx.)",
        "use {} or { } in prose",
        "a < b and c > d",
        "x<y",
        "if a<b then",
        "Tom & Jerry",
        "R&D, & more",
        "&File",
        "AT&T",
        "$ (x) and $(1x)",
        "{count, plural, one {# file} other {# files}}",
        "x^{{}+{}}lsup 3",
        "<Press 'Add' to create language resources>",
        "--adjfile <file>            use an alternate file",
        "a lone \\ backslash",
        "",
    ] {
        let runs = r.recognize(text);
        check_invariants(text, &runs);
        let codes: Vec<String> = runs.iter().filter_map(|r| r.code().map(|c| c.data.clone())).collect();
        assert!(codes.is_empty(), "{text:?} holds codes {codes:?}");
    }
}

#[test]
fn space_flag_trade_off() {
    // Documented: `% d` is not printf, so prose with `% d`/`% s` stays text.
    golden(&rec("printf"), "% d and % s", "% d and % s");
    // A `%` directly before a conversion letter is a code, even in prose.
    golden(&rec("printf"), "50%off", "50⟨1:printf %o⟩ff");
}

// ---- overlaps ----

#[test]
fn leftmost_longest() {
    let r = default_rec();
    golden(r, "%1$s", "⟨1:printf %1$s⟩");
    golden(r, "%1", "⟨1:qt %1⟩");
    golden(r, "%PRODUCTNAME", "⟨1:percent-name %PRODUCTNAME⟩");
    golden(r, "%E", "⟨1:printf %E⟩");
    golden(r, "%L1", "⟨1:qt %L1⟩");
    golden(r, "%{link}", "⟨1:brace %{link}⟩");
    // A printf code inside an attribute belongs to the tag.
    golden(r, r#"<a href="%s">x</a>"#, r#"⟨1+x-html-a <a href="%s">⟩x⟨1-x-html-a </a>⟩"#);
    // A bare unknown tag is text, and what it holds is still searched.
    golden(r, "<%1>", "<⟨1:qt %1⟩>");
    golden(r, "<file %s>", "<file ⟨1:printf %s⟩>");
}

#[test]
fn default_recognizes_everything_at_once() {
    let r = default_rec();
    golden(
        r,
        r#"<b>%s</b> &amp; {0}: %(n)d $(ARG1) %PRODUCTNAME %1\n<br/>"#,
        r#"⟨1+x-html-b <b>⟩⟨2:printf %s⟩⟨1-x-html-b </b>⟩ ⟨3:xml-entity &amp;⟩ ⟨4:brace {0}⟩: ⟨5:python-format %(n)d⟩ ⟨6:dollar-paren $(ARG1)⟩ ⟨7:percent-name %PRODUCTNAME⟩ ⟨8:qt %1⟩⟨9:escape \n⟩⟨10:x-html-br <br/>⟩"#,
    );
}

#[test]
fn keys_of_recognized_runs() {
    let runs = default_rec().recognize("Click <b>here</b> to open %s");
    assert_eq!(flatten_runs(&runs), "Click here to open {%s}");
    assert_eq!(structural_text(&runs), "Click {1}here{/1} to open {2/}");
}

// ---- rule selection ----

#[test]
fn rule_sets_are_selectable() {
    assert_eq!(rec("html, printf").rule_names(), ["printf", "html"]);
    assert_eq!(default_rec().rule_names(), RULE_SETS);
    let err = Recognizer::from_names("printf,html,bogus").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidRule);
    assert!(err.to_string().contains("bogus"), "{err}");
    golden(&rec("printf"), "<b>%s</b> {0}", "<b>⟨1:printf %s⟩</b> {0}");
    golden(&rec(""), "<b>%s</b>", "<b>%s</b>");
}

#[test]
fn user_rules() {
    let mut r = rec("printf");
    r.add_rule("x-bb", r"\[b\]", RuleRole::Open).unwrap();
    r.add_rule("x-bb", r"\[/b\]", RuleRole::Close).unwrap();
    r.add_rule("x-at", r"@@\w+@@", RuleRole::Placeholder).unwrap();
    golden(&r, "[b]%s[/b] by @@user@@", "⟨1+x-bb [b]⟩⟨2:printf %s⟩⟨1-x-bb [/b]⟩ by ⟨3:x-at @@user@@⟩");
    golden(&r, "[/b] then [b]", "⟨1-x-bb [/b]⟩ then ⟨2+x-bb [b]⟩");
    // Text with nothing a built-in code starts with still meets the user rules.
    golden(&r, "[b]bold[/b]", "⟨1+x-bb [b]⟩bold⟨1-x-bb [/b]⟩");
    // A user rule wins a tie with a built-in one.
    r.add_rule("x-pct-s", "%s", RuleRole::Placeholder).unwrap();
    golden(&r, "%s %d", "⟨1:x-pct-s %s⟩ ⟨2:printf %d⟩");
    assert_eq!(r.rule_names(), ["x-bb", "x-at", "x-pct-s", "printf"]);
    let err = r.add_rule("x-bad", "[", RuleRole::Placeholder).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidRule);
}

// ---- pairs ----

fn ids(runs: &[Run]) -> Vec<(String, String)> {
    runs.iter().filter_map(|r| r.code().map(|c| (c.data.clone(), c.id.clone()))).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn pair_links_target_codes_by_text() {
    let r = default_rec();
    let (s, t) = r.recognize_pair("%1$s of %2$s", "%2$s: %1$s");
    assert_eq!(ids(&s), pairs(&[("%1$s", "1"), ("%2$s", "2")]));
    assert_eq!(ids(&t), pairs(&[("%2$s", "2"), ("%1$s", "1")]));

    // k-th occurrence to k-th occurrence; extra target codes get fresh ids.
    let (s, t) = r.recognize_pair("%s and %s", "%s, %s und %s");
    assert_eq!(ids(&s), pairs(&[("%s", "1"), ("%s", "2")]));
    assert_eq!(ids(&t), pairs(&[("%s", "1"), ("%s", "2"), ("%s", "3")]));

    // A target code absent from the source gets a fresh id.
    let (_, t) = r.recognize_pair("Open %s", "%d öffnen");
    assert_eq!(ids(&t), pairs(&[("%d", "2")]));
}

#[test]
fn pair_links_paired_codes() {
    let r = default_rec();
    let (s, t) =
        r.recognize_pair("Click <b>here</b> to open <i>%s</i>", "<i>%s</i> öffnen: <b>hier</b> klicken");
    assert_eq!(
        show(&s),
        "Click ⟨1+x-html-b <b>⟩here⟨1-x-html-b </b>⟩ to open ⟨2+x-html-i <i>⟩⟨3:printf %s⟩⟨2-x-html-i </i>⟩"
    );
    assert_eq!(show(&t), "⟨2+x-html-i <i>⟩⟨3:printf %s⟩⟨2-x-html-i </i>⟩ öffnen: ⟨1+x-html-b <b>⟩hier⟨1-x-html-b </b>⟩ klicken");
    check_invariants("<i>%s</i> öffnen: <b>hier</b> klicken", &t);
}

#[test]
fn pair_with_translated_attribute() {
    let r = default_rec();
    let (_, t) = r.recognize_pair(
        r#"See <a href="https://example.com/en">the guide</a> and <b>notes</b>"#,
        r#"Siehe <b>Hinweise</b> und <a href="https://example.com/de">die Anleitung</a>"#,
    );
    assert_eq!(
        ids(&t),
        pairs(&[("<b>", "2"), ("</b>", "2"), (r#"<a href="https://example.com/de">"#, "1"), ("</a>", "1")])
    );
}

#[test]
fn pair_with_broken_target_markup() {
    let r = default_rec();
    // The target lost its close: the open still takes the source pair's id.
    let (s, t) = r.recognize_pair("<b>Warning:</b> %s", "<b>Warnung: %s");
    assert_eq!(ids(&s), pairs(&[("<b>", "1"), ("</b>", "1"), ("%s", "2")]));
    assert_eq!(ids(&t), pairs(&[("<b>", "1"), ("%s", "2")]));
    // Mis-nested target: each half takes an id at most once.
    let (_, t) = r.recognize_pair("<b>a</b>", "</b>a<b>");
    assert_eq!(ids(&t), pairs(&[("</b>", "1"), ("<b>", "2")]));
    check_invariants("</b>a<b>", &t);
}

#[test]
fn pair_without_codes() {
    let (s, t) = default_rec().recognize_pair("Open the file", "Datei öffnen");
    assert_eq!(s, vec![Run::text("Open the file")]);
    assert_eq!(t, vec![Run::text("Datei öffnen")]);
    let (s, t) = default_rec().recognize_pair("", "");
    assert!(s.is_empty() && t.is_empty());
}

// ---- properties ----

/// Strings dense in code-like pieces, so that overlaps and pairing are exercised.
fn codeish() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "%",
        "s",
        "d",
        "1",
        "$",
        "(",
        ")",
        "{",
        "}",
        "<",
        ">",
        "/",
        "b",
        "i",
        "a",
        " ",
        "=",
        "\"",
        "&",
        ";",
        "#",
        "\\",
        "n",
        "x",
        "P",
        "R",
        "A",
        "<b>",
        "</b>",
        "<i>",
        "</i>",
        "<br/>",
        "%s",
        "{0}",
        "%1",
        "&amp;",
        "$(A)",
        "%(k)s",
        "{{v}}",
        "%<",
        "%>",
        "é",
        "\u{0301}",
        "中",
        "\n",
        "<a href=\"x\">",
        "</a>",
        "<!--",
        "-->",
        "<file>",
        "</file>",
    ]);
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

fn check_pair_ids(s: &[Run], t: &[Run]) -> Result<(), TestCaseError> {
    // Every target code whose text occurs among the source placeholders as often or
    // more gets a source id; every id in the target is used by one code or one pair.
    let source_ids: std::collections::HashSet<&str> =
        s.iter().filter_map(|r| r.code()).map(|c| c.id.as_str()).collect();
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in t {
        if let Run::Ph(c) = r {
            let k = seen.entry(c.data.as_str()).or_default();
            *k += 1;
            let in_source = s.iter().filter(|r| matches!(r, Run::Ph(sc) if sc.data == c.data)).count();
            if *k <= in_source {
                prop_assert!(
                    source_ids.contains(c.id.as_str()),
                    "target {:?} not linked: {:?} / {:?}",
                    c,
                    s,
                    t
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn round_trip_arbitrary(text in any::<String>()) {
        let runs = default_rec().recognize(&text);
        check_invariants(&text, &runs);
    }

    #[test]
    fn round_trip_codeish(text in codeish()) {
        let runs = default_rec().recognize(&text);
        check_invariants(&text, &runs);
        // Deterministic.
        prop_assert_eq!(default_rec().recognize(&text), runs);
    }

    #[test]
    fn lead_byte_shortcut_loses_nothing(text in prop_oneof![codeish(), any::<String>()]) {
        // A user rule that never matches turns the lead-byte shortcut off and changes
        // nothing else.
        static SLOW: std::sync::OnceLock<Recognizer> = std::sync::OnceLock::new();
        let slow = SLOW.get_or_init(|| {
            let mut r = Recognizer::default();
            r.add_rule("x-never", "\\x00never\\x00", RuleRole::Placeholder).unwrap();
            r
        });
        prop_assert_eq!(slow.recognize(&text), default_rec().recognize(&text));
    }

    #[test]
    fn pair_invariants(source in codeish(), target in codeish()) {
        let (s, t) = default_rec().recognize_pair(&source, &target);
        check_invariants(&source, &s);
        check_invariants(&target, &t);
        prop_assert_eq!(&s, &default_rec().recognize(&source));
        check_pair_ids(&s, &t)?;
        // Recognizing a string against itself links every code to itself.
        let (a, b) = default_rec().recognize_pair(&source, &source);
        prop_assert_eq!(a, b);
    }
}

// ---- real strings: testdata/recognize/sample.jsonl ----

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/recognize").join(name)
}

fn sample() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(testdata("sample.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            (v["source"].as_str().unwrap().to_string(), v["target"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn real_strings_round_trip() {
    let r = default_rec();
    let sample = sample();
    assert!(sample.len() >= 200, "sample has {} lines", sample.len());
    for (source, target) in &sample {
        let (s, t) = r.recognize_pair(source, target);
        check_invariants(source, &s);
        check_invariants(target, &t);
        check_pair_ids(&s, &t).unwrap();
    }
}

/// `sample.expected.jsonl` holds, line by line, the recognized source and target of
/// `sample.jsonl` in the JSON run form. `CMEM_BLESS=1` rewrites it for review.
#[test]
fn real_strings_golden() {
    let r = default_rec();
    let mut out = String::new();
    for (source, target) in sample() {
        let (s, t) = r.recognize_pair(&source, &target);
        let line = format!("{{\"source\":{},\"target\":{}}}\n", runs_to_json(&s), runs_to_json(&t));
        // The JSON form parses back to the same runs.
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(runs_from_json(&v["source"].to_string()).unwrap(), s);
        out.push_str(&line);
    }
    let path = testdata("sample.expected.jsonl");
    if std::env::var_os("CMEM_BLESS").is_some() {
        std::fs::write(&path, &out).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    for (i, (got, want)) in out.lines().zip(expected.lines()).enumerate() {
        assert_eq!(got, want, "sample line {}: recognized runs differ (CMEM_BLESS=1 to rewrite)", i + 1);
    }
    assert_eq!(out.lines().count(), expected.lines().count(), "line counts differ");
}

// ---- what recognition is for: adaptation carries the query's codes ----

#[test]
fn recognized_codes_adapt_into_the_stored_target() {
    use cmem_core::{lookup, ContentMemory, Locale, LookupRequest, MatchType, MemStore, NewEntry, Variant};
    let r = default_rec();
    let (en, de) = (Locale::parse("en").unwrap(), Locale::parse("de").unwrap());
    let store = MemStore::new();
    let (s, t) =
        r.recognize_pair("Delete <b>%s</b> from %PRODUCTNAME?", "<b>%s</b> aus %PRODUCTNAME löschen?");
    store.write(&[NewEntry::pair(Variant::new(en.clone(), s), Variant::new(de.clone(), t))]).unwrap();

    // Other codes in the same places: an exact structural match, the target rewritten.
    let q = r.recognize("Delete <i>%d</i> from %PRODUCTNAME?");
    let m = lookup(&store, &LookupRequest::new(q, en.clone(), de.clone())).unwrap();
    assert_eq!((m[0].score, m[0].match_type), (1.0, MatchType::StructuralExact));
    assert_eq!(restore(&m[0].adapted_target), "<i>%d</i> aus %PRODUCTNAME löschen?");
    assert!(m[0].adaptation_complete());

    // The same strings as plain text: only a fuzzy match, and the stored codes stay.
    let plain = MemStore::new();
    plain
        .write(&[NewEntry::pair(
            Variant::new(en.clone(), vec![Run::text("Delete <b>%s</b> from %PRODUCTNAME?")]),
            Variant::new(de.clone(), vec![Run::text("<b>%s</b> aus %PRODUCTNAME löschen?")]),
        )])
        .unwrap();
    let q = vec![Run::text("Delete <i>%d</i> from %PRODUCTNAME?")];
    let m = lookup(&plain, &LookupRequest::new(q, en, de)).unwrap();
    assert!(m[0].score < 0.99, "{}", m[0].score);
    assert_eq!(restore(&m[0].adapted_target), "<b>%s</b> aus %PRODUCTNAME löschen?");
}

#[test]
fn percent_encoding_trade_off() {
    // Documented: outside a tag, percent-encoding looks like codes; inside, it is the tag's.
    golden(default_rec(), "a%20b", "a⟨1:qt %20⟩b");
    golden(
        default_rec(),
        r#"<a href="x#a%20b">y</a>"#,
        r#"⟨1+x-html-a <a href="x#a%20b">⟩y⟨1-x-html-a </a>⟩"#,
    );
}
