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
    assert_eq!(p(r#"{1/ data="say \"hi\" \\o/"}"#), vec![Run::Ph(Code::new("1").data(r#"say "hi" \o/"#))]);
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
    assert!(err("{ä/}")
        .starts_with("notation: column 2: expected an id, an entity type or a choice variable, found \"ä\""));
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
    let kind =
        prop_oneof![Just(String::new()), Just("bold".to_owned()), Just("x-html-b".to_owned()), odd_string()];
    (id, odd_string(), kind, odd_string()).prop_map(|(id, equiv, kind, data)| Code { id, equiv, kind, data })
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
        let choice =
            (prop_oneof!["[a-z]{1,3}", odd_string()], forms).prop_map(|(var, forms)| Choice { var, forms });
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
