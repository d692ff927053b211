//! Builds a small memory in memory and prints real lookups: every tier, entity and code
//! adaptation, ambiguity settled by a point, and a version chain.
//!
//! ```text
//! cargo run --release -p cmem-core --example quickstart
//! ```

use cmem_core::{
    lookup, Code, ContentMemory, Locale, LookupOptions, LookupRequest, MemStore, NewEntry, Origin, Point,
    Provider, Run, Variant, VersionRequest,
};

fn pair(en: &Locale, de: &Locale, source: Vec<Run>, target: Vec<Run>) -> NewEntry {
    NewEntry::pair(Variant::new(en.clone(), source), Variant::new(de.clone(), target))
}

fn bold(id: &str, text: &str, tag: &str) -> Vec<Run> {
    vec![
        Run::PcOpen(Code::new(id).kind("bold").data(format!("<{tag}>"))),
        Run::text(text),
        Run::PcClose(Code::new(id).data(format!("</{tag}>"))),
    ]
}

fn show(title: &str, store: &dyn ContentMemory, req: &LookupRequest) -> cmem_core::Result<()> {
    println!("\n== {title}");
    println!("query: {}", cmem_core::model::notation::to_notation(&req.source));
    let matches = lookup(store, req)?;
    if matches.is_empty() {
        println!("  (no match at threshold {:.2})", req.options.threshold);
    }
    for m in matches {
        println!(
            "  {:.2} {:<18} #{} {}{}",
            m.score,
            m.match_type.as_str(),
            m.entry.id,
            cmem_core::model::notation::to_notation(m.source()),
            if m.ambiguous { "  [ambiguous]" } else { "" }
        );
        println!("       stored target:  {}", cmem_core::model::notation::to_notation(m.target()));
        println!("       adapted target: {}", cmem_core::model::notation::to_notation(&m.adapted_target));
        for a in &m.entity_adaptations {
            println!("       entity {}: {} → {} (applied: {})", a.entity_type, a.from, a.to, a.applied);
        }
        for a in &m.code_adaptations {
            let show = |c: &Option<Code>| c.as_ref().map_or("—".to_owned(), |c| c.data.clone());
            println!("       code: {} → {} (applied: {})", show(&a.from), show(&a.to), a.applied);
        }
    }
    Ok(())
}

fn main() -> cmem_core::Result<()> {
    let en = Locale::parse("en-US")?;
    let de = Locale::parse("de-DE")?;
    let store = MemStore::new();

    let mut entries = vec![
        pair(&en, &de, vec![Run::text("Open the file")], vec![Run::text("Datei öffnen")]),
        pair(&en, &de, vec![Run::text("Save the file as…")], vec![Run::text("Datei speichern unter…")]),
        pair(
            &en,
            &de,
            vec![
                Run::entity("1", "PERSON", "John"),
                Run::text(" works at "),
                Run::entity("2", "ORGANIZATION", "Acme"),
            ],
            vec![
                Run::entity("1", "PERSON", "John"),
                Run::text(" arbeitet bei "),
                Run::entity("2", "ORGANIZATION", "Acme"),
            ],
        ),
        pair(
            &en,
            &de,
            [vec![Run::text("Click ")], bold("1", "here", "b"), vec![Run::text(" to continue")]].concat(),
            [bold("1", "Hier", "b"), vec![Run::text(" klicken, um fortzufahren")]].concat(),
        ),
    ];
    // The same source approved with two different answers at two points.
    let mut web = pair(&en, &de, vec![Run::text("Sign in")], vec![Run::text("Anmelden")]);
    web.point = Point::parse("web/eu")?;
    let mut app = pair(&en, &de, vec![Run::text("Sign in")], vec![Run::text("Einloggen")]);
    app.point = Point::parse("app")?;
    entries.extend([web, app]);
    // Two versions of one content block.
    for (i, (src, tgt)) in [
        ("Welcome to our shop", "Willkommen in unserem Shop"),
        ("Welcome to our store", "Willkommen in unserem Laden"),
    ]
    .iter()
    .enumerate()
    {
        let mut e = pair(&en, &de, vec![Run::text(*src)], vec![Run::text(*tgt)]);
        e.unit = "home/hero-title".into();
        e.origins.push(Origin {
            project_id: "site".into(),
            context_fingerprint: "ctx-42".into(),
            created_at: format!("2026-0{}-01T00:00:00Z", i + 1),
        });
        entries.push(e);
    }
    store.write(&entries)?;
    println!("memory: {} entries", store.len());

    let en_de =
        |runs: Vec<Run>| LookupRequest::new(runs, Locale::parse("en").unwrap_or(en.clone()), de.clone());
    show("structural exact", &store, &en_de(vec![Run::text("Open the file")]))?;
    show("fuzzy (plain)", &store, &en_de(vec![Run::text("Open the files")]))?;
    show(
        "generalized exact: other entity values, adapted",
        &store,
        &en_de(vec![
            Run::entity("1", "PERSON", "Alice"),
            Run::text(" works at "),
            Run::entity("2", "ORGANIZATION", "Globex"),
        ]),
    )?;
    show(
        "structural exact with other codes: <i> replaces the stored <b>",
        &store,
        &en_de([vec![Run::text("Click ")], bold("7", "here", "i"), vec![Run::text(" to continue")]].concat()),
    )?;
    show(
        "plain exact: same text, no codes (tag mismatch 0.99)",
        &store,
        &en_de(vec![Run::text("Click here to continue")]),
    )?;
    show("ambiguous: two answers, no point", &store, &en_de(vec![Run::text("Sign in")]))?;
    let mut at_app = en_de(vec![Run::text("Sign in")]);
    at_app.options = LookupOptions::default().point(Point::parse("app/ios")?);
    show("settled by the caller's point app/ios", &store, &at_app)?;

    let provider = Provider::new(&store);
    let prior =
        provider.prior_version(&VersionRequest::new("home/hero-title", "ctx-42", en.clone(), de.clone()))?;
    println!("\n== prior version of unit home/hero-title (fingerprint ctx-42)");
    match prior {
        Some(p) => println!("  #{}: {} → {}", p.entry_id, p.source, p.target),
        None => println!("  none"),
    }
    Ok(())
}
