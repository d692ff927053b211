//! The documents agree with the format registry: the format table of docs/matching.md
//! (§9) lists exactly the registry's formats, with their extensions and what they do.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

use cmem_formats::registry::{self, FormatSpec};

/// The words between backticks in `cell`.
fn ticked(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

#[test]
fn the_format_table_lists_exactly_the_registrys_formats() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/matching.md"))
        .unwrap();
    let section = doc.split("\n## 9. Formats\n").nth(1).unwrap();
    let section = section.split("\n## ").next().unwrap();
    let rows: Vec<Vec<&str>> = section
        .lines()
        .skip_while(|l| !l.starts_with("| format | name | extensions | in | out |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    assert!(!rows.is_empty(), "no format table in docs/matching.md §9");
    let mut listed = BTreeSet::new();
    for row in &rows {
        let (names, extensions, input, output) = (ticked(row[1]), ticked(row[2]), row[3], row[4]);
        let specs: Vec<&FormatSpec> = names
            .iter()
            .map(|n| registry::by_name(n).unwrap_or_else(|| panic!("{n}: not in the registry")))
            .collect();
        for n in &names {
            assert!(listed.insert(n.to_string()), "{n} listed twice");
        }
        let mut theirs: BTreeSet<String> = BTreeSet::new();
        for spec in &specs {
            theirs.extend(spec.extensions.iter().map(|e| format!(".{e}")));
        }
        let ours: BTreeSet<String> = extensions.iter().map(|e| e.to_string()).collect();
        assert_eq!(ours, theirs, "the extensions of {names:?}");
        let any = |what: fn(&FormatSpec) -> bool| specs.iter().any(|s| what(s));
        assert_eq!(input.contains("import"), any(FormatSpec::can_import), "import of {names:?}");
        assert_eq!(output.contains("export"), any(FormatSpec::can_export), "export of {names:?}");
        assert_eq!(
            input.contains("recycle") || output.contains("recycle"),
            any(FormatSpec::can_recycle),
            "recycle of {names:?}"
        );
    }
    let registered: BTreeSet<String> = registry::FORMATS.iter().map(|f| f.name.to_owned()).collect();
    assert_eq!(listed, registered, "docs/matching.md §9 lists other formats than the registry");
}
