use super::*;

/// The codes' ids of `runs` in order.
fn ids(runs: &[Run]) -> Vec<&str> {
    runs.iter().filter_map(|r| r.code().map(|c| c.id.as_str())).collect()
}

#[test]
fn built_in_sets_compile() {
    for set in RULE_SETS {
        assert!(Recognizer::from_names(set).is_ok(), "{set}");
    }
    assert_eq!(Recognizer::default().rule_names(), RULE_SETS.to_vec());
    assert!(close_tag_regex().is_some());
    let mut sorted = KNOWN_ELEMENTS.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, KNOWN_ELEMENTS.to_vec(), "KNOWN_ELEMENTS must be sorted");
}

#[test]
fn unknown_set_is_an_error() {
    let err = Recognizer::from_names("printf, bogus").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidRule);
    assert!(err.to_string().contains("\"bogus\""), "{err}");
    let err = Recognizer::empty().add_rule("x", "(", RuleRole::Placeholder).unwrap_err();
    assert!(err.to_string().contains("\"(\""), "{err}");
    assert!(Recognizer::empty().add_rule(" ", "x", RuleRole::Placeholder).is_err());
}

#[test]
fn ids_in_order_and_pairs_share() {
    let rec = Recognizer::default();
    let runs = rec.recognize("<b>%s</b> <i>{0}</i>");
    assert_eq!(ids(&runs), ["1", "2", "1", "3", "4", "3"]);
}

#[test]
fn empty_matches_are_skipped() {
    let mut rec = Recognizer::empty();
    rec.add_rule("x-empty", r"\b", RuleRole::Placeholder).unwrap();
    rec.add_rule("x-star", r"\**", RuleRole::Placeholder).unwrap();
    let runs = rec.recognize("a**b");
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert_eq!(runs[1].code().unwrap().data, "**");
}
