//! Every path a lookup can take gives the same list: one-shot `cmem lookup` (the
//! persisted candidate index import wrote, opened in place), `cmem lookup --batch` (the
//! index built in the process) and `cmem recycle` (its candidates written into the
//! document), for real queries on 3,003 real entries: enough that a query shares grams
//! with more keys than the index offers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const CMEM: &str = env!("CARGO_BIN_EXE_cmem");

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(rel)
}

/// A temporary directory holding the memory, removed when dropped.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Dir {
    /// `cmem ARGS` here, plain text throughout (recognition is not what is compared);
    /// its standard output. Exit status 1 (nothing found) is an answer too.
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new(CMEM)
            .arg(args[0])
            .arg("--no-recognize")
            .args(&args[1..])
            .current_dir(&self.0)
            .env_remove("CMEM_MEMORY")
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "cmem {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// One lookup's match: entry, score, source text, adapted target text, and whether
/// adaptation changed the target's text (a repair or an entity value applied).
type Listed = (i64, f64, String, String, bool);

/// One lookup's list, in order.
fn list(matches: &Value) -> Vec<Listed> {
    let applied = |m: &Value, key: &str| {
        m[key].as_array().is_some_and(|a| a.iter().any(|r| r["applied"].as_bool() == Some(true)))
    };
    matches
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let text = m["source"]["text"].as_str().unwrap().to_owned();
            let target = m["adapted_target"]["text"].as_str().unwrap().to_owned();
            let adapted = applied(m, "repairs") || applied(m, "entity_adaptations");
            (m["entry_id"].as_i64().unwrap(), m["score"].as_f64().unwrap(), text, target, adapted)
        })
        .collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The candidates `recycle` wrote for each trans-unit `q0`, `q1`, …: (match quality,
/// source text), in order.
fn alt_trans(xliff: &str, units: usize) -> Vec<Vec<(u8, String)>> {
    (0..units)
        .map(|i| {
            let start = xliff.find(&format!("<trans-unit id=\"q{i}\"")).unwrap();
            let unit = &xliff[start..start + xliff[start..].find("</trans-unit>").unwrap()];
            unit.split("<alt-trans match-quality=\"")
                .skip(1)
                .map(|alt| {
                    let quality = alt[..alt.find('"').unwrap()].parse().unwrap();
                    let source = alt.split("<source xml:lang=\"en\">").nth(1).unwrap();
                    (quality, unescape(&source[..source.find("</source>").unwrap()]))
                })
                .collect()
        })
        .collect()
}

#[test]
fn one_shot_batch_and_recycle_give_the_same_list() {
    let dir = Dir(std::env::temp_dir().join(format!("cmem-paths-test-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    // The real entries, and beside each source of several words four near variants
    // (a word dropped, two swapped, one repeated, one borrowed from the next source):
    // dense neighbourhoods, as a memory of many releases of the same strings has, so
    // lists run past their first line and a query shares grams with thousands of keys.
    let real: Vec<Value> = std::fs::read_to_string(testdata("corpus/en-de-sample.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut memory = String::new();
    for (i, e) in real.iter().enumerate() {
        let (source, target) = (e["source"].as_str().unwrap(), e["target"].as_str().unwrap());
        memory.push_str(&serde_json::json!({"source": source, "target": target}).to_string());
        memory.push('\n');
        let words: Vec<&str> = source.split(' ').collect();
        if words.len() < 3 {
            continue;
        }
        let next = real[(i + 1) % real.len()]["source"].as_str().unwrap().split(' ').next().unwrap();
        let at = i % (words.len() - 1);
        let mut variants = vec![words.clone(); 4];
        variants[0].remove(at);
        variants[1].swap(at, at + 1);
        variants[2].insert(at, words[at]);
        variants[3][at] = next;
        for (k, v) in variants.iter().enumerate() {
            let line = serde_json::json!({"source": v.join(" "), "target": format!("{target} ({k})")});
            memory.push_str(&line.to_string());
            memory.push('\n');
        }
    }
    std::fs::write(dir.0.join("memory.jsonl"), memory).unwrap();
    // Without a word model: recycle would write the unrepaired target of a repaired
    // fill beside it, which the lookups' lists do not show (the paths compared here are
    // the candidates').
    dir.run(&["import", "-q", "--no-align", "--from", "en", "--to", "de", "memory.jsonl"]);
    // Import left the index beside the memory; `cmem index` writes it again when gone.
    let index_file = dir.0.join("cmem.db-gix-en");
    assert!(index_file.exists(), "import wrote no candidate index");
    std::fs::remove_file(&index_file).unwrap();
    let out =
        Command::new(CMEM).args(["index"]).current_dir(&dir.0).env_remove("CMEM_MEMORY").output().unwrap();
    assert!(out.status.success(), "cmem index: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("for lookups from en"));
    assert!(index_file.exists(), "cmem index wrote no candidate index");
    let queries_file = testdata("corpus/queries-sample.jsonl");
    let queries: Vec<String> = std::fs::read_to_string(&queries_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["query"].as_str().unwrap().to_owned())
        .collect();

    // Recycle asks for one more match than it writes candidates (3 by default); both
    // lookups ask for that many at its threshold, and answer in JSON.
    let threshold = "70";
    let lookup = |more: &[&str]| {
        let mut args =
            vec!["lookup", "--from", "en", "--to", "de", "--json", "--limit", "4", "--threshold", threshold];
        args.extend_from_slice(more);
        dir.run(&args)
    };
    let batch = lookup(&["--batch", queries_file.to_str().unwrap()]);
    let batch: Vec<Value> = batch.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(batch.len(), queries.len());

    let units: String = queries
        .iter()
        .enumerate()
        .map(|(i, q)| format!("<trans-unit id=\"q{i}\"><source>{}</source></trans-unit>\n", escape(q)))
        .collect();
    let doc = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff version=\"1.2\" \
         xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n<file original=\"doc\" source-language=\"en\" \
         target-language=\"de\" datatype=\"plaintext\"><body>\n{units}</body></file></xliff>\n"
    );
    std::fs::write(dir.0.join("doc.xlf"), doc).unwrap();
    dir.run(&["recycle", "-q", "doc.xlf", "-o", "out.xlf", "--fuzzy-threshold", threshold]);
    let recycled = alt_trans(&std::fs::read_to_string(dir.0.join("out.xlf")).unwrap(), queries.len());

    let (mut compared, mut below_first) = (0, 0);
    for (i, q) in queries.iter().enumerate() {
        let want = list(&batch[i]["matches"]);
        // What recycle writes from that list: the best fills the target from 95 %, and
        // up to three of the rest (or of all) from the threshold are candidates, each
        // pair once: the stored source, or the query when the target's text was adapted.
        let rest = if want.first().is_some_and(|m| m.1 >= 0.95) { &want[1..] } else { &want[..] };
        let mut candidates: Vec<(u8, String)> = Vec::new();
        let mut pairs: Vec<(String, String)> = Vec::new();
        for m in rest.iter().filter(|m| m.1 >= 0.70) {
            if candidates.len() == 3 {
                break;
            }
            let source = if m.4 { q.clone() } else { m.2.clone() };
            if pairs.contains(&(source.clone(), m.3.clone())) {
                continue;
            }
            pairs.push((source.clone(), m.3.clone()));
            candidates.push(((m.1 * 100.0 + 1e-9).floor() as u8, source));
        }
        assert_eq!(recycled[i], candidates, "query {i} {q:?}: recycle against batch");
        // A one-shot lookup starts a process and opens the persisted index: every other
        // query keeps the test quick.
        if i % 2 == 0 {
            let one_shot = lookup(&["--", q]);
            let one_shot: Value = serde_json::from_str(&one_shot).unwrap();
            assert_eq!(list(&one_shot["matches"]), want, "query {i} {q:?}: one-shot against batch");
            compared += 1;
        }
        below_first += usize::from(want.len() > 1);
    }
    // The lists must reach below their first line, or the test proves little.
    assert!(compared == 150 && below_first >= 100, "{compared} compared, {below_first} lists of two or more");
}
