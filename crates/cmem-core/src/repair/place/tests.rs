use super::*;
use crate::align::AlignOptions;
use crate::model::run::surface_text;
use crate::repair::adapt::adapt_with;

/// Runs of a compact markup: `<b>`/`</b>` a pair with the tag's name as id (its data
/// the tag), `%s`/`%d` a placeholder.
fn runs(text: &str) -> Vec<Run> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let at = rest.find(['<', '%']).unwrap_or(rest.len());
        if at > 0 {
            out.push(Run::text(&rest[..at]));
            rest = &rest[at..];
            continue;
        }
        if let Some(tag) = rest.strip_prefix('<') {
            let end = tag.find('>').unwrap() + 2;
            let (data, name) = (&rest[..end], tag.trim_start_matches('/'));
            let id: String = name.chars().take_while(|c| c.is_alphanumeric()).collect();
            let code = Code::new(&id).kind(format!("x-html-{id}")).data(data);
            out.push(if tag.starts_with('/') { Run::PcClose(code) } else { Run::PcOpen(code) });
            rest = &rest[end..];
        } else {
            out.push(Run::Ph(Code::new(&rest[1..2]).data(&rest[..2])));
            rest = &rest[2..];
        }
    }
    out
}

fn model() -> WordModel {
    let pairs = [
        ("Saves the file.", "Speichert die Datei."),
        ("Opens the file.", "Öffnet die Datei."),
        ("Saves the page.", "Speichert die Seite."),
        ("Opens the page.", "Öffnet die Seite."),
        ("Save the file", "Datei speichern"),
        ("Open the file", "Datei öffnen"),
        ("Save the page", "Seite speichern"),
        ("Open the page", "Seite öffnen"),
        ("File not found", "Datei nicht gefunden"),
        ("Page not found", "Seite nicht gefunden"),
        ("File found", "Datei gefunden"),
        ("Page found", "Seite gefunden"),
        ("File not saved", "Datei nicht gespeichert"),
        ("The file was saved", "Die Datei wurde gespeichert"),
        ("The page was saved", "Die Seite wurde gespeichert"),
    ];
    let opts = AlignOptions::default().tension(None).iterations(10);
    WordModel::train(pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())), &opts).0
}

/// The adapted target and how its first code was placed.
type Want = (&'static str, Option<PlacedBy>);

/// What the rule, the match's own alignment and the word model do with codes the
/// query added or moved: (query, stored source, stored target) → the adapted target
/// and how its first code was placed, for each.
#[test]
fn codes_added_or_moved_go_where_the_alignment_puts_their_words() {
    use PlacedBy::{Alignment, Ends, Nowhere, Stored};
    let m = model();
    #[rustfmt::skip]
    let table: &[(&str, &str, &str, [Want; 3])] = &[
        // Bold added around one word.
        ("Save the <b>file</b>", "Save the file", "Datei speichern", [
            ("Datei speichern", Some(Nowhere)),
            ("Datei speichern", Some(Nowhere)),
            ("<b>Datei</b> speichern", Some(Alignment)),
        ]),
        // Around all of the text: the ends rule, whatever the evidence.
        ("<b>Save the file</b>", "Save the file", "Datei speichern", [
            ("<b>Datei speichern</b>", Some(Ends)),
            ("<b>Datei speichern</b>", Some(Ends)),
            ("<b>Datei speichern</b>", Some(Ends)),
        ]),
        // A code moved to another word.
        ("Save the <b>file</b>", "<b>Save</b> the file", "Datei <b>speichern</b>", [
            ("Datei <b>speichern</b>", Some(Stored)),
            ("Datei <b>speichern</b>", Some(Stored)),
            ("<b>Datei</b> speichern", Some(Alignment)),
        ]),
        // Moved to the words outside the pair the source and target share: the
        // match's own alignment knows them.
        ("Save <b>the file</b>", "<b>Save</b> the file", "Datei <b>speichern</b>", [
            ("Datei <b>speichern</b>", Some(Stored)),
            ("<b>Datei</b> speichern", Some(Alignment)),
            ("<b>Datei</b> speichern", Some(Alignment)),
        ]),
        // A placeholder moved.
        ("File not found %s", "File %s not found", "Datei %s nicht gefunden", [
            ("Datei %s nicht gefunden", Some(Stored)),
            ("Datei %s nicht gefunden", Some(Stored)),
            ("Datei nicht gefunden %s", Some(Alignment)),
        ]),
        ("%s File not found", "File %s not found", "Datei %s nicht gefunden", [
            ("Datei %s nicht gefunden", Some(Stored)),
            ("Datei %s nicht gefunden", Some(Stored)),
            ("%s Datei nicht gefunden", Some(Alignment)),
        ]),
        // Not moved: it stays before the same unchanged word.
        ("Page %s not found", "File %s not found", "Datei %s nicht gefunden", [
            ("Datei %s nicht gefunden", None),
            ("Datei %s nicht gefunden", None),
            ("Datei %s nicht gefunden", None),
        ]),
        // A name written alike on both sides is the match's own alignment.
        ("Copy to <b>LibreOffice</b> now", "Copy to LibreOffice now", "Jetzt nach LibreOffice kopieren", [
            ("Jetzt nach LibreOffice kopieren", Some(Nowhere)),
            ("Jetzt nach <b>LibreOffice</b> kopieren", Some(Alignment)),
            ("Jetzt nach <b>LibreOffice</b> kopieren", Some(Alignment)),
        ]),
        // The case: the span became the bold around *Save*.
        ("<b>Save</b> the file", "<span class=\"avis\">Saves the file.</span>",
         "<span class=\"avis\">Speichert die Datei.</span>", [
            ("<b>Speichert die Datei.</b>", Some(Stored)),
            ("<b>Speichert die Datei.</b>", Some(Stored)),
            ("<b>Speichert</b> die Datei.", Some(Alignment)),
        ]),
    ];
    for (query, source, target, want) in table {
        let (q, s, t) = (runs(query), runs(source), runs(target));
        for (links, (text, by)) in
            [WordLinks::Rule, WordLinks::Own, WordLinks::Model(&m)].into_iter().zip(want)
        {
            let a = adapt_with(&q, &s, &t, false, links);
            let first = a.codes.first().and_then(|c| c.placement.as_ref()).map(|p| p.by);
            assert_eq!(
                (surface_text(&a.target).as_str(), first),
                (*text, *by),
                "{query:?} with {links:?}: {:?}",
                a.codes
            );
            // Placed: applied, and the note says around what; else the rule's.
            if let Some(c) = a.codes.first().filter(|c| c.placement.is_some()) {
                let p = c.placement.as_ref().unwrap();
                assert_eq!(c.applied, p.by != Nowhere, "{query:?}: {c:?}");
                assert_eq!(p.target.is_empty(), matches!(p.by, Nowhere | Ends), "{query:?}: {c:?}");
            }
        }
    }
}
