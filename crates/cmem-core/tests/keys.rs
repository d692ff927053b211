//! Golden values of the matching keys (docs/matching.md §2): the worked examples, then cases for
//! normalization, codes, choices and entities. Expected values are written by hand
//! from the spec, not captured from the implementation.

use cmem_core::imp::Keys;
use cmem_core::{flatten_runs, generalized_text, normalize_text, structural_text, Choice, Code, Run};

fn t(s: &str) -> Run {
    Run::text(s)
}
fn ph(id: &str, equiv: &str) -> Run {
    Run::Ph(Code::new(id).equiv(equiv).data(equiv))
}
fn ent(id: &str, kind: &str, value: &str) -> Run {
    Run::entity(id, kind, value)
}
fn open(id: &str) -> Run {
    Run::PcOpen(Code::new(id).data("<b>"))
}
fn close(id: &str) -> Run {
    Run::PcClose(Code::new(id).data("</b>"))
}
fn sub(id: &str, equiv: &str) -> Run {
    Run::Sub(Code::new(id).equiv(equiv))
}
fn forms(forms: Vec<(&str, Vec<Run>)>) -> Vec<(String, Vec<Run>)> {
    forms.into_iter().map(|(k, r)| (k.to_string(), r)).collect()
}
fn plural(var: &str, f: Vec<(&str, Vec<Run>)>) -> Run {
    Run::Plural(Choice { var: var.into(), forms: forms(f) })
}
fn select(var: &str, f: Vec<(&str, Vec<Run>)>) -> Run {
    Run::Select(Choice { var: var.into(), forms: forms(f) })
}

/// Asserts the three keys of `runs`: plain, structural, generalized.
#[track_caller]
fn keys(runs: &[Run], plain: &str, structural: &str, generalized: &str) {
    assert_eq!(flatten_runs(runs), plain, "plain key of {runs:?}");
    assert_eq!(structural_text(runs), structural, "structural key of {runs:?}");
    assert_eq!(generalized_text(runs), generalized, "generalized key of {runs:?}");
    let k = Keys::of(runs);
    assert_eq!(
        (k.plain.as_str(), k.structural.as_str(), k.generalized.as_str()),
        (plain, structural, generalized)
    );
}

// ---- docs/matching.md §2 worked examples ----

#[test]
fn spec_entities_example() {
    let john = [ent("1", "PERSON", "John"), t(" works at "), ent("2", "ORGANIZATION", "Acme")];
    keys(&john, "{John} works at {Acme}", "{1/} works at {2/}", "{PERSON} works at {ORGANIZATION}");
    let alice = [ent("1", "PERSON", "Alice"), t(" works at "), ent("2", "ORGANIZATION", "Globex")];
    assert_eq!(generalized_text(&alice), generalized_text(&john));
    assert_eq!(structural_text(&alice), structural_text(&john));
    assert_ne!(flatten_runs(&alice), flatten_runs(&john));
}

#[test]
fn spec_click_example() {
    let click = [t("Click "), open("1"), t("here"), close("1"), t(" to open "), ph("2", "%s")];
    keys(
        &click,
        "Click here to open {%s}",
        "Click {1}here{/1} to open {2/}",
        "Click {1}here{/1} to open {2/}",
    );
}

// ---- normalize_text ----

#[test]
fn nfc_combining_acute() {
    assert_eq!(normalize_text("e\u{0301}"), "\u{00E9}");
    assert_eq!(normalize_text("cafe\u{0301} au lait"), normalize_text("caf\u{00E9} au lait"));
    // Through the keys too, in every key kind.
    keys(
        &[t("Re\u{0301}sume\u{0301}")],
        "R\u{00E9}sum\u{00E9}",
        "R\u{00E9}sum\u{00E9}",
        "R\u{00E9}sum\u{00E9}",
    );
}

#[test]
fn nfc_reorders_combining_marks() {
    // a + dot below + circumflex, in either order, is U+1EAD.
    assert_eq!(normalize_text("a\u{0323}\u{0302}"), "\u{1EAD}");
    assert_eq!(normalize_text("a\u{0302}\u{0323}"), "\u{1EAD}");
}

#[test]
fn nfc_singletons() {
    // ANGSTROM SIGN and KELVIN SIGN are canonical singletons.
    assert_eq!(normalize_text("\u{212B}"), "\u{00C5}");
    assert_eq!(normalize_text("300 \u{212A}"), "300 K");
}

#[test]
fn nfc_is_not_nfkc() {
    // Compatibility characters are kept: NFC, not NFKC.
    assert_eq!(normalize_text("\u{FB01}le"), "\u{FB01}le");
    assert_eq!(normalize_text("\u{FF21}\u{FF22}"), "\u{FF21}\u{FF22}");
    assert_eq!(normalize_text("x\u{00B2}"), "x\u{00B2}");
}

#[test]
fn hangul_jamo_compose_to_syllables() {
    // ᄀ ᅡ ᆨ → 각; ᄒ ᅡ ᆫ ᄀ ᅮ ᆨ → 한국.
    assert_eq!(normalize_text("\u{1100}\u{1161}\u{11A8}"), "\u{AC01}");
    assert_eq!(normalize_text("\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}"), "\u{D55C}\u{AD6D}");
    let jamo = [t("\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8} "), ph("1", "%s")];
    let syllables = [t("\u{D55C}\u{AD6D} "), ph("1", "%s")];
    assert_eq!(Keys::of(&jamo), Keys::of(&syllables));
    assert_eq!(flatten_runs(&jamo), "\u{D55C}\u{AD6D} {%s}");
}

#[test]
fn arabic_hamza_and_madda_compose() {
    // ALEF + HAMZA ABOVE → U+0623; ALEF + MADDA ABOVE → U+0622; ALEF + HAMZA BELOW → U+0625.
    assert_eq!(normalize_text("\u{0627}\u{0654}"), "\u{0623}");
    assert_eq!(normalize_text("\u{0627}\u{0653}"), "\u{0622}");
    assert_eq!(normalize_text("\u{0627}\u{0655}"), "\u{0625}");
    // WAW and YEH with HAMZA ABOVE.
    assert_eq!(normalize_text("\u{0648}\u{0654}"), "\u{0624}");
    assert_eq!(normalize_text("\u{064A}\u{0654}"), "\u{0626}");
    // Presentation-form ligatures of tashkeel are compatibility characters: kept.
    assert_eq!(normalize_text("\u{FC60}"), "\u{FC60}");
    // سأل "asked", decomposed and precomposed.
    assert_eq!(normalize_text("\u{0633}\u{0627}\u{0654}\u{0644}"), "\u{0633}\u{0623}\u{0644}");
}

#[test]
fn arabic_tashkeel_order() {
    // Shadda (ccc 33) and fatha (ccc 30) typed in either order key alike: fatha first.
    let typed = "\u{0645}\u{062F}\u{0651}\u{064E}\u{0629}";
    let canonical = "\u{0645}\u{062F}\u{064E}\u{0651}\u{0629}";
    assert_eq!(normalize_text(typed), canonical);
    assert_eq!(Keys::of(&[t(typed)]), Keys::of(&[t(canonical)]));
}

#[test]
fn white_space_of_every_kind() {
    let every = "\t a\u{000B}b\u{000C}c\r\nd\u{0085}e\u{00A0}f\u{1680}g\u{2000}h\u{2001}i\u{2002}j\u{2003}k\
                 \u{2004}l\u{2005}m\u{2006}n\u{2007}o\u{2008}p\u{2009}q\u{200A}r\u{2028}s\u{2029}t\u{202F}u\
                 \u{205F}v\u{3000}w \u{3000}\n";
    assert_eq!(normalize_text(every), "a b c d e f g h i j k l m n o p q r s t u v w");
}

#[test]
fn white_space_runs_collapse_to_one_space() {
    assert_eq!(normalize_text("a \t\n\u{00A0} b"), "a b");
    assert_eq!(normalize_text("  leading and trailing  "), "leading and trailing");
}

#[test]
fn format_characters_are_not_white_space() {
    // ZERO WIDTH SPACE, ZWNJ, WORD JOINER and BOM are not White_Space: kept.
    assert_eq!(
        normalize_text(" a\u{200B}b\u{200C}c\u{2060}d\u{FEFF} "),
        "a\u{200B}b\u{200C}c\u{2060}d\u{FEFF}"
    );
}

#[test]
fn empty_and_blank() {
    assert_eq!(normalize_text(""), "");
    assert_eq!(normalize_text(" \t\n\u{3000}"), "");
    keys(&[], "", "", "");
    keys(&[t("")], "", "", "");
    keys(&[t(" \n "), t("\u{2003}")], "", "", "");
}

#[test]
fn white_space_across_runs() {
    keys(
        &[t("  Save "), open("1"), t("  all  "), close("1"), t("\n")],
        "Save all",
        "Save {1} all {/1}",
        "Save {1} all {/1}",
    );
}

#[test]
fn canonical_equivalence_across_run_boundaries() {
    // The base letter and its mark in different runs still compose in the plain key,
    // where the paired code leaves nothing between them.
    keys(&[t("e"), open("1"), t("\u{0301}"), close("1")], "\u{00E9}", "e{1}\u{0301}{/1}", "e{1}\u{0301}{/1}");
}

// ---- plain key ----

#[test]
fn ph_without_equiv_is_empty_braces() {
    keys(&[t("a "), Run::Ph(Code::new("1").data("<br/>")), t(" b")], "a {} b", "a {1/} b", "a {1/} b");
}

#[test]
fn sub_renders_in_brackets() {
    keys(&[t("Logo: "), sub("1", "company logo")], "Logo: [company logo]", "Logo: [1]", "Logo: [1]");
    keys(&[ph("1", "%s"), sub("2", "")], "{%s}[]", "{1/}[2]", "{1/}[2]");
}

#[test]
fn literal_braces_kept_in_plain_doubled_in_structural() {
    keys(
        &[t("Use {name} or {{x}}")],
        "Use {name} or {{x}}",
        "Use {{name}} or {{{{x}}}}",
        "Use {{name}} or {{{{x}}}}",
    );
}

#[test]
fn text_cannot_forge_a_code() {
    let forged = [t("{1/} works")];
    let real = [ph("1", "x"), t(" works")];
    assert_eq!(structural_text(&forged), "{{1/}} works");
    assert_ne!(structural_text(&forged), structural_text(&real));
    let forged_entity = [t("{PERSON} works")];
    let real_entity = [ent("1", "PERSON", "John"), t(" works")];
    assert_ne!(generalized_text(&forged_entity), generalized_text(&real_entity));
}

// ---- structural numbering ----

#[test]
fn nested_pairs() {
    keys(
        &[open("1"), t("a"), open("2"), t("b"), close("2"), t("c"), close("1")],
        "abc",
        "{1}a{2}b{/2}c{/1}",
        "{1}a{2}b{/2}c{/1}",
    );
}

#[test]
fn nested_pairs_sharing_an_id_close_innermost_first() {
    keys(&[open("1"), open("1"), t("x"), close("1"), close("1")], "x", "{1}{2}x{/2}{/1}", "{1}{2}x{/2}{/1}");
}

#[test]
fn overlapping_pairs() {
    keys(
        &[open("a"), t("x"), open("b"), t("y"), close("a"), t("z"), close("b")],
        "xyz",
        "{1}x{2}y{/1}z{/2}",
        "{1}x{2}y{/1}z{/2}",
    );
}

#[test]
fn close_without_opener_takes_a_fresh_number() {
    keys(&[t("a"), close("9"), t("b")], "ab", "a{/1}b", "a{/1}b");
    keys(&[ph("1", "%s"), close("7"), ph("2", "%d")], "{%s}{%d}", "{1/}{/2}{3/}", "{1/}{/2}{3/}");
}

#[test]
fn close_before_its_open_is_unpaired() {
    keys(&[close("1"), t("x"), open("1")], "x", "{/1}x{2}", "{/1}x{2}");
}

#[test]
fn open_without_close() {
    keys(&[open("1"), t("bold to the end")], "bold to the end", "{1}bold to the end", "{1}bold to the end");
}

#[test]
fn second_close_of_one_open() {
    keys(&[open("1"), t("x"), close("1"), close("1")], "x", "{1}x{/1}{/2}", "{1}x{/1}{/2}");
}

#[test]
fn numbering_ignores_ids_of_standalone_codes() {
    // Numbers are by position, not by id.
    let a = [ph("7", "%s"), t(" and "), ph("3", "%d")];
    let b = [ph("1", "%s"), t(" and "), ph("2", "%d")];
    assert_eq!(structural_text(&a), "{1/} and {2/}");
    assert_eq!(structural_text(&a), structural_text(&b));
}

// ---- choices ----

#[test]
fn plural_with_other() {
    let runs = [
        t("You have "),
        plural("n", vec![("one", vec![t("one file")]), ("other", vec![ph("1", "#"), t(" files")])]),
    ];
    keys(
        &runs,
        "You have {#} files",
        "You have {n,plural,one{one file}other{{1/} files}}",
        "You have {n,plural,one{one file}other{{1/} files}}",
    );
}

#[test]
fn plural_without_other_uses_first_form() {
    let runs = [plural("count", vec![("=0", vec![t("no items")]), ("one", vec![t("one item")])])];
    keys(
        &runs,
        "no items",
        "{count,plural,=0{no items}one{one item}}",
        "{count,plural,=0{no items}one{one item}}",
    );
}

#[test]
fn plural_other_not_first() {
    let runs = [plural("n", vec![("other", vec![t("many")]), ("one", vec![t("one")])])];
    keys(&runs, "many", "{n,plural,other{many}one{one}}", "{n,plural,other{many}one{one}}");
}

#[test]
fn select_with_other() {
    let runs = [select(
        "gender",
        vec![("female", vec![t("She")]), ("male", vec![t("He")]), ("other", vec![t("They")])],
    )];
    keys(
        &runs,
        "They",
        "{gender,select,female{She}male{He}other{They}}",
        "{gender,select,female{She}male{He}other{They}}",
    );
}

#[test]
fn select_without_other() {
    let runs = [select("g", vec![("female", vec![t("She")]), ("male", vec![t("He")])]), t(" left")];
    keys(&runs, "She left", "{g,select,female{She}male{He}} left", "{g,select,female{She}male{He}} left");
}

#[test]
fn choice_with_no_forms() {
    keys(&[t("a"), plural("n", vec![]), t("b")], "ab", "a{n,plural,}b", "a{n,plural,}b");
}

#[test]
fn codes_in_choices_continue_the_numbering() {
    let runs = [
        ph("a", "%1"),
        t(" "),
        plural("n", vec![("one", vec![ph("b", "%2")]), ("other", vec![open("p"), t("x"), close("p")])]),
        ph("c", "%3"),
    ];
    keys(
        &runs,
        "{%1} x{%3}",
        "{1/} {n,plural,one{{2/}}other{{3}x{/3}}}{4/}",
        "{1/} {n,plural,one{{2/}}other{{3}x{/3}}}{4/}",
    );
}

#[test]
fn nested_choices() {
    let inner = select("g", vec![("female", vec![t("her")]), ("other", vec![t("their")])]);
    let runs =
        [plural("n", vec![("one", vec![t("one of "), inner.clone()]), ("other", vec![t("all of "), inner])])];
    keys(
        &runs,
        "all of their",
        "{n,plural,one{one of {g,select,female{her}other{their}}}other{all of {g,select,female{her}other{their}}}}",
        "{n,plural,one{one of {g,select,female{her}other{their}}}other{all of {g,select,female{her}other{their}}}}",
    );
}

#[test]
fn braces_in_choice_text_and_keys_are_doubled() {
    let runs = [plural("{n}", vec![("one", vec![t("{x}")]), ("other", vec![t("y")])])];
    keys(&runs, "y", "{{{n}},plural,one{{{x}}}other{y}}", "{{{n}},plural,one{{{x}}}other{y}}");
}

#[test]
fn white_space_inside_choices_is_normalized() {
    let runs = [plural("n", vec![("one", vec![t("  one\n file ")]), ("other", vec![t("\tfiles\u{00A0}")])])];
    keys(
        &runs,
        "files",
        "{n,plural,one{ one file }other{ files }}",
        "{n,plural,one{ one file }other{ files }}",
    );
}

// ---- entities ----

#[test]
fn entities_mixed_with_codes() {
    let runs = [
        ent("1", "PERSON", "John"),
        t(" opened "),
        open("2"),
        ph("3", "%s"),
        close("2"),
        t(" on "),
        ent("4", "DATE", "Monday"),
    ];
    keys(
        &runs,
        "{John} opened {%s} on {Monday}",
        "{1/} opened {2}{3/}{/2} on {4/}",
        "{PERSON} opened {1}{2/}{/1} on {DATE}",
    );
}

#[test]
fn entity_inside_a_choice() {
    let runs = [select("g", vec![("other", vec![ent("1", "PERSON", "Kim"), t(" left")])]), ph("2", "%s")];
    keys(&runs, "{Kim} left{%s}", "{g,select,other{{1/} left}}{2/}", "{g,select,other{{PERSON} left}}{1/}");
}

#[test]
fn lower_case_and_namespaced_types_are_codes() {
    let bold = [
        Run::Ph(Code::new("1").kind("bold").equiv("B")),
        t(" "),
        Run::Ph(Code::new("2").kind("x-html-b").equiv("b")),
    ];
    keys(&bold, "{B} {b}", "{1/} {2/}", "{1/} {2/}");
    let mixed = [Run::Ph(Code::new("1").kind("Person").equiv("Ann"))];
    keys(&mixed, "{Ann}", "{1/}", "{1/}");
}

#[test]
fn entity_type_with_digits_and_underscore() {
    keys(&[ent("1", "PRODUCT_V2", "cmem")], "{cmem}", "{1/}", "{PRODUCT_V2}");
}

#[test]
fn entity_without_value() {
    keys(&[t("Dear "), ent("1", "PERSON", "")], "Dear {}", "Dear {1/}", "Dear {PERSON}");
}

#[test]
fn entity_value_is_normalized_in_plain() {
    keys(
        &[ent("1", "PERSON", "  Jose\u{0301}\n Garci\u{0301}a ")],
        "{ Jos\u{00E9} Garc\u{00ED}a }",
        "{1/}",
        "{PERSON}",
    );
}

#[test]
fn sub_and_entity_numbering() {
    keys(
        &[sub("1", "alt"), ent("2", "PERSON", "Bo"), ph("3", "%s")],
        "[alt]{Bo}{%s}",
        "[1]{2/}{3/}",
        "[1]{PERSON}{2/}",
    );
}

#[test]
fn distinct_keys_of_text_and_coded_segments() {
    use cmem_core::imp::KindSet;
    let text = Keys::of(&[t("hello")]);
    assert_eq!(text.distinct(), vec![("hello", KindSet::ALL)]);
    let coded = Keys::of(&[t("Hi "), ent("1", "PERSON", "Ann")]);
    assert_eq!(
        coded.distinct(),
        vec![("Hi {PERSON}", KindSet(1)), ("Hi {1/}", KindSet(2)), ("Hi {Ann}", KindSet(4))]
    );
}
