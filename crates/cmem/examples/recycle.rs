//! Pre-translate an XLIFF document from a memory: fill what the memory knows, offer
//! candidates for the rest.
//!
//! ```sh
//! cargo run -p cmem --example recycle -- [DOC.xlf] [OUT.xlf]
//! ```
//!
//! Without arguments it builds a memory from the translated segments of the project's
//! `testdata/xliff12/okapi__Manual-12-AltTrans.xlf` and recycles that same document.

use std::path::PathBuf;

use cmem::formats::RecycleOptions;
use cmem::{Memory, OpenOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let doc = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/xliff12/okapi__Manual-12-AltTrans.xlf")
    });
    let out = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join(format!("cmem-example-{}.xlf", std::process::id())));

    let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    let imported = memory.import_file(&doc)?;
    println!("memory: {} translated segments of {}", imported.progress.inserted, doc.display());

    let report = memory.recycle_file(&doc, &out, &RecycleOptions::default())?;
    println!(
        "{}: {} segments, {} filled ({} exact), {} with candidates",
        out.display(),
        report.segments,
        report.filled,
        report.filled_exact,
        report.with_candidates
    );
    Ok(())
}
