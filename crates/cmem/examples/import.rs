//! Import a TMX file into a SQLite memory and print what it holds.
//!
//! ```sh
//! cargo run -p cmem --example import -- [FILE.tmx] [MEMORY.db]
//! ```
//!
//! Without arguments it imports the project's `testdata/tmx/okapi__sample14b.tmx` into a
//! memory in the system's temporary directory.

use std::path::PathBuf;

use cmem::{Memory, OpenOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/tmx/okapi__sample14b.tmx")
    });
    let db = args.next().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("cmem-example-{}.db", std::process::id())).display().to_string()
    });

    let memory = Memory::open_with(&db, &OpenOptions::new().create(true))?;
    let report = memory.import_file(&file)?;
    println!(
        "{}: {} read, {} written, {} deduplicated, {} problems",
        file.display(),
        report.progress.read,
        report.progress.inserted,
        report.progress.deduplicated,
        report.progress.problems
    );
    for problem in &report.problems {
        println!("  {problem}");
    }
    let stats = memory.stats()?;
    println!("{db}: {} entries", stats.entries);
    for pair in stats.pairs {
        println!("  {} → {}: {}", pair.source, pair.target, pair.entries);
    }
    Ok(())
}
