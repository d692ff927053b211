//! The documents' tours, run: every command of a ```` ```console ```` block in
//! `crates/cmem-cli/README.md` and `docs/guide.md` is run by [`trycmd`] and its output
//! (standard output and error together, and the exit status, `? N` when not 0) must be
//! what the document shows, so the examples cannot drift from the program.
//!
//! Each document runs in a fresh directory of its own under the target directory, holding
//! a link to `testdata/` and nothing else: its commands make their own memory there
//! (`./cmem.db` and whatever `--memory` names), one after the other, in document order.
//! In an expected line `[..]` matches any text (durations, sizes) and a line `...` any
//! lines. After a change of output, bless the documents with
//!
//! ```text
//! TRYCMD=overwrite cargo test -p cmem-cli --test tests tour
//! ```
//!
//! and read the diff: trycmd rewrites the outputs in place, keeping the `[..]` it can.

use std::path::{Path, PathBuf};

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the console blocks of `doc` (relative to the repository root) and compares their
/// outputs; with `TRYCMD=overwrite`, writes the outputs back into `doc` instead.
fn run_document(doc: &str) {
    let source = root().join(doc);
    let text = std::fs::read_to_string(&source).unwrap();
    commands_are_cmem(doc, &text);

    // trycmd runs the commands of `NAME.md` in `NAME.in/`; a copy of the document beside
    // a fresh `NAME.in/` keeps every run apart from the last one and from the sources.
    let name = doc.replace(['/', '.'], "-");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tour-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("doc.in")).unwrap();
    link_testdata(&dir.join("doc.in/testdata"));
    let copy = dir.join("doc.md");
    std::fs::write(&copy, &text).unwrap();

    eprintln!("tour of {doc}: its commands run in {}", dir.join("doc.in").display());
    trycmd::TestCases::new()
        .register_bin("cmem", PathBuf::from(env!("CARGO_BIN_EXE_cmem")))
        // The user's own settings must not reach the commands: empty means unset.
        .env("CMEM_MEMORY", "")
        .env("CMEM_INDEX_DIR", "")
        .env("NO_COLOR", "1")
        .case(&copy)
        .run();

    if std::env::var_os("TRYCMD").is_some_and(|v| v == "overwrite") {
        let blessed = std::fs::read_to_string(&copy).unwrap();
        if blessed != text {
            std::fs::write(&source, blessed).unwrap();
            eprintln!("tour of {doc}: outputs written back");
        }
    }
}

#[cfg(unix)]
fn link_testdata(link: &Path) {
    std::os::unix::fs::symlink(root().join("testdata").canonicalize().unwrap(), link).unwrap();
}

#[cfg(not(unix))]
fn link_testdata(_link: &Path) {
    panic!("the tours link testdata/ with a Unix symbolic link");
}

/// trycmd skips, and so never checks, a command whose program it does not know: every
/// command of a console block must therefore be `cmem`. Other shell lines belong in a
/// ```` ```sh ```` block, which is shown and not run.
fn commands_are_cmem(doc: &str, text: &str) {
    // trycmd runs a block without an info string too.
    let (mut in_block, mut in_console) = (false, false);
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            let info = line.trim_start_matches('`').trim();
            in_console = !in_block && matches!(info, "" | "console" | "trycmd");
            in_block = !in_block;
            continue;
        }
        if in_console {
            if let Some(command) = line.strip_prefix("$ ") {
                assert!(
                    command.starts_with("cmem "),
                    "{doc}:{}: a console block runs only cmem commands (shell lines go in ```sh): {line}",
                    n + 1
                );
            }
        }
    }
}

#[test]
fn cli_readme_tour() {
    run_document("crates/cmem-cli/README.md");
}

#[test]
fn localizers_guide() {
    run_document("docs/guide.md");
}
