//! Look up plain and tagged strings in a memory, and show what to use.
//!
//! ```sh
//! cargo run -p cmem --example lookup
//! ```
//!
//! Builds a small in-memory memory from JSON Lines, then asks for a string whose
//! placeholder differs from the stored one, one whose markup differs, and one written in
//! the run notation; the adapted target carries the query's codes.

use cmem::{prepare_query, LookupRequest, MatchView, Memory, OpenOptions, QueryText};

const MEMORY: &str = r#"{"source":"Could not open file %s","target":"Datei %s konnte nicht geöffnet werden","source_locale":"en","target_locale":"de"}
{"source":"Click <b>here</b> to continue","target":"Klicken Sie <b>hier</b>, um fortzufahren","source_locale":"en","target_locale":"de"}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    memory.import_reader("ui.jsonl", MEMORY.as_bytes())?;

    // Plain text: `%d` is recognized as a placeholder, as the memory's `%s` was.
    for m in memory.lookup_text("Could not open file %d", "en", "de")? {
        println!("{:>5.1}%  {}  →  {}", m.score * 100.0, m.source_text(), m.adapted_text());
    }

    // Markup: the stored `<b>` becomes the query's `<i>`.
    for m in memory.lookup_text("Click <i>here</i> to continue", "en", "de")? {
        println!("{:>5.1}%  {}  →  {}", m.score * 100.0, m.source_text(), m.adapted_text());
    }

    // A query in the run notation, and the match as clients see it (JSON).
    let runs = prepare_query(QueryText::Notation("Click {1}here{/1} to go on"), None)?;
    if let Some(m) = memory.lookup(&LookupRequest::from_tags(runs, "en", "de")?)?.first() {
        let view = MatchView::of(m);
        println!(
            "{:>5.1}%  {}  tier {}  approvals {}",
            view.percent, view.match_type, view.tier, view.approvals
        );
    }
    Ok(())
}
