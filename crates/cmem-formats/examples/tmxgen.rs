//! Generates a level-2 TMX 1.4b file of a given size with three locales, or reads one
//! and reports the parse rate — the reader's speed and memory check.
//!
//! ```text
//! cargo run --release -p cmem-formats --example tmxgen -- gen 200 big.tmx
//! /usr/bin/time -v cargo run --release -p cmem-formats --example tmxgen -- read big.tmx
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

use cmem_formats::{Item, TmxOptions, TmxReader};

const WORDS: &[&str] = &[
    "file",
    "open",
    "the",
    "save",
    "document",
    "before",
    "closing",
    "window",
    "changes",
    "will",
    "be",
    "lost",
    "print",
    "settings",
    "network",
    "server",
    "connection",
    "failed",
    "retry",
    "later",
    "user",
    "account",
];

/// A small deterministic generator (xorshift), so every run writes the same file.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn word(&mut self) -> &'static str {
        WORDS[(self.next() % WORDS.len() as u64) as usize]
    }
}

fn sentence(rng: &mut Rng, marker: &str, out: &mut String) {
    let n = 6 + rng.next() % 12;
    for i in 0..n {
        if i == 2 {
            out.push_str("<bpt i=\"1\" x=\"1\" type=\"bold\">&lt;b&gt;</bpt>");
        }
        out.push_str(rng.word());
        out.push_str(marker);
        if i == 3 {
            out.push_str("<ept i=\"1\">&lt;/b&gt;</ept>");
        }
        if i == 5 {
            out.push_str(" <ph x=\"2\" type=\"x-placeholder\">%s</ph>");
        }
        out.push(' ');
    }
    out.push_str("&amp; done.");
}

fn generate(size_mb: u64, path: &str) {
    let target = size_mb * 1024 * 1024;
    let mut out = BufWriter::new(File::create(path).unwrap());
    let mut written = 0u64;
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tmx version=\"1.4\">\n  <header creationtool=\"tmxgen\" \
                creationtoolversion=\"1\" datatype=\"html\" segtype=\"sentence\" adminlang=\"en\" srclang=\"en-US\" \
                o-tmf=\"tmxgen\"/>\n  <body>\n";
    out.write_all(head.as_bytes()).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut tu = String::new();
    let mut n = 0u64;
    while written < target {
        n += 1;
        tu.clear();
        tu.push_str(&format!(
            "    <tu tuid=\"{n}\" creationdate=\"20240611T120000Z\">\n      <prop type=\"x-domain\">software</prop>\n"
        ));
        for (lang, marker) in [("en-US", ""), ("de-DE", "en"), ("fr-FR", "é")] {
            tu.push_str(&format!("      <tuv xml:lang=\"{lang}\"><seg>"));
            sentence(&mut rng, marker, &mut tu);
            tu.push_str("</seg></tuv>\n");
        }
        tu.push_str("    </tu>\n");
        out.write_all(tu.as_bytes()).unwrap();
        written += tu.len() as u64;
    }
    out.write_all(b"  </body>\n</tmx>\n").unwrap();
    out.flush().unwrap();
    eprintln!("wrote {path}: {n} tu, {:.1} MB", written as f64 / 1048576.0);
}

fn read(path: &str) {
    let start = Instant::now();
    let reader = TmxReader::open(std::path::Path::new(path), TmxOptions::default()).unwrap();
    let (mut entries, mut problems, mut runs) = (0u64, 0u64, 0u64);
    let mut reader = reader;
    for item in reader.by_ref() {
        match item.unwrap() {
            Item::Entry(e) => {
                entries += 1;
                runs += e.variants.iter().map(|v| v.runs.len() as u64).sum::<u64>();
            }
            Item::Problem(_) => problems += 1,
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let mb = reader.bytes_read() as f64 / 1048576.0;
    println!(
        "{entries} entries, {runs} runs, {problems} problems, {mb:.1} MB in {secs:.2} s: {:.1} MB/s",
        mb / secs
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("gen") => generate(args[2].parse().unwrap(), &args[3]),
        Some("read") => read(&args[2]),
        _ => eprintln!("usage: tmxgen gen SIZE_MB OUT.tmx | tmxgen read FILE.tmx"),
    }
}
