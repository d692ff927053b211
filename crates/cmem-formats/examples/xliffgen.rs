//! Generates an XLIFF 1.2 document from JSON Lines queries (`{"query": …}` per line,
//! cycled when there are fewer lines than segments), or recycles and analyzes one
//! against a JSON Lines memory loaded into the in-memory store, timing each step —
//! the recycle tool's speed check.
//!
//! ```text
//! cargo run --release -p cmem-formats --example xliffgen -- gen queries.jsonl 10000 doc.xlf
//! cargo run --release -p cmem-formats --example xliffgen -- recycle doc.xlf memory.jsonl.gz out.xlf
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::Instant;

use cmem_core::{Locale, MemStore};
use cmem_formats::xml::escape_text_into;
use cmem_formats::{
    analyze_document, import, open_input, recycle_document, AnalyzeOptions, ImportOptions, JsonlOptions,
    JsonlReader, RecycleOptions, XliffDocument,
};

fn generate(queries: &Path, count: usize, out: &Path) {
    let lines: Vec<String> = BufReader::new(fs::File::open(queries).unwrap())
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(&l.unwrap()).unwrap();
            v["query"].as_str().unwrap().to_owned()
        })
        .filter(|q| !q.trim().is_empty())
        .collect();
    assert!(!lines.is_empty(), "no queries");
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff version=\"1.2\" \
         xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n<file original=\"bench\" \
         source-language=\"en\" target-language=\"de\" datatype=\"plaintext\">\n<body>\n",
    );
    for i in 0..count {
        xml.push_str(&format!("  <trans-unit id=\"{}\">\n    <source>", i + 1));
        escape_text_into(&lines[i % lines.len()], &mut xml);
        xml.push_str("</source>\n  </trans-unit>\n");
    }
    xml.push_str("</body>\n</file>\n</xliff>\n");
    fs::File::create(out).unwrap().write_all(xml.as_bytes()).unwrap();
    println!("{count} segments ({} distinct sources) -> {}", lines.len().min(count), out.display());
}

fn recycle(input: &Path, memory: &Path, out: &Path) {
    let t = Instant::now();
    let store = MemStore::new();
    let mut options = JsonlOptions::default();
    options.source_locale = Some(Locale::parse("en").unwrap());
    options.target_locale = Some(Locale::parse("de").unwrap());
    options.file_name = memory.display().to_string();
    let reader = JsonlReader::new(open_input(memory).unwrap(), options, None);
    let imported = import(&store, reader, &ImportOptions::default(), &mut |_| {}).unwrap();
    println!("load: {imported:?} in {:.2?}", t.elapsed());

    let t = Instant::now();
    let mut doc = XliffDocument::parse(fs::read(input).unwrap(), &input.display().to_string()).unwrap();
    println!("read: {} segments in {:.2?}", doc.segments().len(), t.elapsed());
    let t = Instant::now();
    let report = recycle_document(&mut doc, &store, &RecycleOptions::default()).unwrap();
    let bytes = doc.to_bytes();
    fs::write(out, &bytes).unwrap();
    println!("recycle: {report} in {:.2?}", t.elapsed());
    let t = Instant::now();
    let analysis = analyze_document(&doc, &store, &AnalyzeOptions::default()).unwrap();
    println!("analyze in {:.2?}:\n{analysis}", t.elapsed());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["gen", queries, count, out] => generate(Path::new(queries), count.parse().unwrap(), Path::new(out)),
        ["recycle", input, memory, out] => recycle(Path::new(input), Path::new(memory), Path::new(out)),
        _ => {
            eprintln!(
                "usage: xliffgen gen QUERIES.jsonl COUNT OUT.xlf | xliffgen recycle IN.xlf MEMORY.jsonl[.gz] OUT.xlf"
            );
            std::process::exit(2);
        }
    }
}
