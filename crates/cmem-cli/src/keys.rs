//! `cmem keys`: the three matching keys of one segment, or of two side by side with
//! the similarity of each pair, so a user can see why two segments match or not.

use std::io::Write;

use anyhow::Result;
use cmem::imp::distance::similarity;
use cmem::imp::Keys;
use cmem::{to_notation, Run};
use serde_json::{json, Value};

use crate::args::KeysArgs;
use crate::output::{percent, Stdout};
use crate::query::{recognizer, runs_from_file, runs_of_text};

fn keys_json(runs: &[Run]) -> Value {
    let k = Keys::of(runs);
    json!({
        "notation": to_notation(runs),
        "runs": runs,
        "plain": k.plain,
        "structural": k.structural,
        "generalized": k.generalized,
    })
}

/// Runs `cmem keys`.
///
/// # Errors
/// Notation or a runs file that does not parse, an unknown rule set.
pub fn run(args: &KeysArgs) -> Result<()> {
    let rec = recognizer(&args.recognize)?;
    let segments: Vec<Vec<Run>> = match &args.runs {
        Some(file) => vec![runs_from_file(file)?],
        None => args
            .texts
            .iter()
            .map(|t| runs_of_text(t, args.notation, rec.as_ref()))
            .collect::<cmem::Result<_>>()?,
    };
    let mut out = Stdout::new();
    if args.json {
        let mut v = json!({ "segments": segments.iter().map(|s| keys_json(s)).collect::<Vec<_>>() });
        if let [a, b] = segments.as_slice() {
            let (ka, kb) = (Keys::of(a), Keys::of(b));
            v["similarity"] = json!({
                "plain": similarity(&ka.plain, &kb.plain),
                "structural": similarity(&ka.structural, &kb.structural),
                "generalized": similarity(&ka.generalized, &kb.generalized),
            });
        }
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    } else {
        const LABELS: [&str; 4] = ["notation", "plain", "structural", "generalized"];
        let table: Vec<[String; 4]> = segments
            .iter()
            .map(|s| {
                let k = Keys::of(s);
                [to_notation(s), k.plain, k.structural, k.generalized]
            })
            .collect();
        for (i, label) in LABELS.iter().enumerate() {
            match table.as_slice() {
                [a, b] => {
                    writeln!(out, "{label:<12} {}", a[i])?;
                    if i == 0 {
                        writeln!(out, "{:<12} {}", "", b[i])?;
                    } else {
                        let mark = if a[i] == b[i] {
                            "equal".to_owned()
                        } else {
                            format!("{}%", percent(similarity(&a[i], &b[i])))
                        };
                        writeln!(out, "{:<12} {}  ({mark})", "", b[i])?;
                    }
                }
                _ => {
                    for t in &table {
                        writeln!(out, "{label:<12} {}", t[i])?;
                    }
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}
