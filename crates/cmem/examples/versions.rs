//! An in-memory memory with points and a version chain: the answer nearest the caller's
//! point wins, and a content block's earlier answers are kept newest first.
//!
//! ```sh
//! cargo run -p cmem --example versions
//! ```

use cmem::{
    Locale, LookupOptions, LookupRequest, Memory, NewEntry, Notation, OpenOptions, Origin, Point, Run,
    Variant,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    let entry = |source: &str, target: &str| {
        NewEntry::pair(
            Variant::new(en.clone(), vec![Run::text(source)]),
            Variant::new(de.clone(), vec![Run::text(target)]),
        )
    };

    // One source, two answers approved at two points of the product tree.
    memory.write(&[
        NewEntry { point: Point::parse("web")?, ..entry("Sign in", "Anmelden") },
        NewEntry { point: Point::parse("app/ios")?, ..entry("Sign in", "Einloggen") },
    ])?;
    for at in ["web/shop", "app/ios/settings"] {
        let req = LookupRequest::from_tags(vec![Run::text("Sign in")], "en", "de")?
            .options(LookupOptions::default().point(Point::parse(at)?));
        let best = &memory.lookup(&req)?[0];
        println!("at {at}: {} ({:.0} %)", best.adapted_text(), best.score * 100.0);
    }

    // A content block rewritten twice: each write is a version of unit `home.title`.
    for (source, target, when) in [
        ("Welcome", "Willkommen", "2024-01-10T09:00:00Z"),
        ("Welcome back", "Willkommen zurück", "2024-06-01T12:00:00Z"),
        ("Good to see you", "Schön, Sie zu sehen", "2025-02-03T08:30:00Z"),
    ] {
        let origin = Origin { created_at: when.into(), ..Origin::default() };
        memory.write(&[NewEntry {
            unit: "home.title".into(),
            origins: vec![origin],
            ..entry(source, target)
        }])?;
    }
    for version in memory.versions("home.title")? {
        let e = &version.entry;
        let created = e.newest_origin().map_or("", |o| o.created_at.as_str());
        let [source, target] = [&e.variants[0], &e.variants[1]].map(|v| Notation::from(v.runs.clone()));
        println!("{created}  {source}  →  {target}");
    }
    Ok(())
}
