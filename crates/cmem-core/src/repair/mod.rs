//! Mechanical repairs: when a query differs from a stored source only in white space at
//! its ends, its final punctuation or its numbers, the same change is made in the target,
//! as a translator would make it without thinking. The score is not changed (the
//! repair is shown with the match, not hidden in its score).
//!
//! What counts as mechanical: with the white space at both ends trimmed, the final
//! punctuation (`.` `:` `…` `?` `!` `;` and their full-width forms) removed, every number
//! replaced by one placeholder and inner white space collapsed, the query and the stored
//! source are equal. Three more changes leave the words alone: brackets of another kind,
//! a pair of brackets or quotes put around the whole text or one code, and marks or white
//! space changed between the same words and codes (below). Anything else is an edit a
//! translator must judge, and nothing is repaired.
//!
//! - **White space**: the query's leading and trailing white space (a final newline, say)
//!   replaces the stored source's where the target has the source's, or is added where
//!   the source had none.
//! - **Punctuation**: the query's final punctuation replaces the target's where the
//!   target ends with the stored source's (French targets take a no-break space before
//!   `:` and a narrow one before `;` `!` `?`, unless the stored target spaced its own
//!   mark otherwise); where neither the source nor the target had any, it is added.
//!   `...` and `…` are one mark written two ways: between them the target keeps its own.
//! - **Brackets**: when every `(` of the stored source became `[` in the query (and so
//!   for `)` `{` `}` `<` `>`), the target's are changed alike where it has as many.
//! - **A pair around**: brackets or quotes the query puts around the whole text
//!   (`<no change>`) go around the whole target; around one code (`Copy '%s'`), around
//!   the target's one copy of that code. Around a word or a few words nothing is placed:
//!   which words of the target correspond is the translator's choice.
//! - **Marks between the words**: when the query has the stored source's letters, digits
//!   and codes in the same order and only the marks or white space between some of them
//!   changed (`Center\nHeidelberg` → `Center, Heidelberg`, `(FALSE;TRUE)` →
//!   `(FALSE();TRUE())`, `macro:///` → `macro://./`), each changed stretch is looked for in
//!   the target together with the fewest neighbouring characters that make it occur
//!   exactly once in the source and exactly once in the target, and changed there alike.
//!   The neighbours taken are marks, digits and white space, never letters (a name the
//!   target copied may stand elsewhere in its word order), and a stretch found by spaces
//!   alone is not placed: every two words of the target have a space between them
//!   (`Open File` → `Datei öffnen` does not make `Open/File` `Datei/öffnen`). All or nothing: if one
//!   stretch cannot be placed, nothing is changed. A mark new between two letters
//!   (`Strikethrough` → `Strike-through`) or a hyphen or apostrophe that comes or goes
//!   there (`E-mail` → `Email`) is spelling, which the target does its own way.
//! - **Mnemonics**: keyboard mnemonics (`&Open`, `_Save`, `~Heading`) do not count as
//!   differences. A query without one takes the target's one mark out; a query whose
//!   mnemonic is written with another mark (`~` became `_`) has the target's rewritten
//!   so; one the query adds is not placed (which letter takes it is the translator's
//!   choice).
//! - **Line breaks**: a line break of the stored source that the query has as a space
//!   becomes that space in the target, where the target breaks its lines at as many
//!   places.
//! - **Numbers**: a number of the stored source that changed in the query is replaced in
//!   the target when it occurs there exactly once, as written (`4.2`) or with the other
//!   decimal sign (`4,2`, in which case the new number takes that sign too).
//!
//! ```
//! use cmem_core::repair::{repair, RepairKind};
//! use cmem_core::{Locale, Run};
//!
//! let mut target = vec![Run::text("Zugriff auf Projekt {project} wurde blockiert")];
//! let repairs = repair(
//!     &[Run::text("Access to project {project} was blocked.")],
//!     &[Run::text("Access to project {project} was blocked")],
//!     &mut target,
//!     &Locale::parse("de")?,
//! );
//! assert_eq!(target, vec![Run::text("Zugriff auf Projekt {project} wurde blockiert.")]);
//! assert_eq!(repairs[0].kind, RepairKind::Punctuation);
//! # Ok::<(), cmem_core::Error>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::model::locale::Locale;
use crate::model::run::Run;
pub mod adapt;
mod between_words;
mod brackets;
mod compound;
mod mnemonics;
mod numbers;
pub mod place;
mod punctuation;
mod white_space;
pub mod words;

use between_words::repair_inner;
use brackets::{repair_brackets, repair_wrap};
use mnemonics::{drop_mnemonic, mnemonics, swap_mnemonic, without_mnemonics};
use numbers::{numbers, replace_number, without_numbers};
use punctuation::{final_mark_repair, final_marks, MARKS};
use white_space::{inner_spaces, leading_space, repair_space, replace_break, trailing_space};

/// What a repair changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairKind {
    /// White space at the start or the end.
    Whitespace,
    /// The final punctuation mark.
    Punctuation,
    /// A number.
    Number,
    /// A keyboard mnemonic mark (`&`, `_`, `~` before the accelerator letter).
    Mnemonic,
    /// Words the query changed, replaced from the memory's evidence ([`words`]).
    Words,
}

/// One mechanical change of the target, or one that could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repair {
    /// What kind of change.
    pub kind: RepairKind,
    /// What the stored source had (empty: nothing).
    pub from: String,
    /// What the query has (empty: nothing).
    pub to: String,
    /// False when the target had nothing corresponding to change.
    pub applied: bool,
    /// For [`RepairKind::Words`]: the target's text, what replaced it and the evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words: Option<words::WordChange>,
}

pub(crate) use crate::model::run::skeleton;

/// `text` without its white space at both ends and its final punctuation, numbers as
/// `#`, inner white space collapsed: what must be equal for a repair to be mechanical.
fn core_of(text: &str) -> String {
    let t = without_mnemonics(text);
    let t = t.trim().trim_end_matches(|c: char| MARKS.contains(&c) || c.is_whitespace());
    let t = t.trim_end_matches("...");
    let t = without_numbers(t);
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Makes in `target` (the adapted target) the mechanical changes that turn `source` (the
/// stored source) into `query`, if every difference between them is mechanical; see the
/// [module docs](self). Returns what was changed, or could not be.
pub fn repair(query: &[Run], source: &[Run], target: &mut Vec<Run>, target_locale: &Locale) -> Vec<Repair> {
    let (q, s) = (skeleton(query), skeleton(source));
    if q == s {
        return Vec::new();
    }
    if core_of(&q) != core_of(&s) {
        // Two changes that leave the words alone but not the core: brackets of another
        // kind, and a pair of brackets or quotes put around the text or a code.
        if let Some(r) = repair_brackets(&q, &s, target) {
            return r;
        }
        if let Some(r) = repair_wrap(&q, &s, query, target) {
            return vec![r];
        }
        return repair_inner(&q, &s, target);
    }
    let mut out = Vec::new();
    // Numbers first: they sit inside the text, the ends are changed after.
    let qn: Vec<&str> = numbers(&q).into_iter().map(|(a, b)| &q[a..b]).collect();
    let sn: Vec<&str> = numbers(&s).into_iter().map(|(a, b)| &s[a..b]).collect();
    if qn.len() == sn.len() {
        for (to, from) in qn.iter().zip(&sn) {
            if to != from {
                let applied = replace_number(target, from, to);
                out.push(Repair {
                    kind: RepairKind::Number,
                    from: (*from).to_owned(),
                    to: (*to).to_owned(),
                    applied,
                    words: None,
                });
            }
        }
    }
    // A mnemonic the query does not have is taken out of the target; one the query adds
    // cannot be placed mechanically (which letter is the translator's choice).
    let (qm, sm) = (mnemonics(&q), mnemonics(&s));
    let marks_of = |text: &str, at: &[usize]| -> String {
        at.iter().filter_map(|&i| text[i..].chars().next()).collect()
    };
    let target_marks = texts(target).iter().map(|t| mnemonics(t).len()).sum::<usize>();
    if qm.is_empty() && target_marks > 0 {
        // The query has none: neither has the target (a mark only the target had is gone
        // from the new source too).
        let applied = drop_mnemonic(target);
        out.push(Repair {
            kind: RepairKind::Mnemonic,
            from: marks_of(&s, &sm),
            to: String::new(),
            applied,
            words: None,
        });
    } else if let ([qi], [si]) = (&qm[..], &sm[..]) {
        // Both have one, written with another mark (`~` became `_`): the target's too.
        let (to, from) = (marks_of(&q, &[*qi]), marks_of(&s, &[*si]));
        if to != from {
            let applied = swap_mnemonic(target, &to);
            out.push(Repair { kind: RepairKind::Mnemonic, from, to, applied, words: None });
        }
    }
    // Line breaks inside: the query's white space where the source broke the line and the
    // target breaks it at as many places.
    let (qs, ss) = (inner_spaces(&q), inner_spaces(&s));
    if qs.len() == ss.len() {
        let breaks = ss.iter().filter(|w| w.contains('\n')).count();
        let mut k = 0;
        for (qw, sw) in qs.iter().zip(&ss) {
            if sw.contains('\n') {
                if qw != sw && !qw.contains('\n') {
                    let applied = replace_break(target, k, breaks, qw);
                    out.push(Repair {
                        kind: RepairKind::Whitespace,
                        from: (*sw).to_owned(),
                        to: (*qw).to_owned(),
                        applied,
                        words: None,
                    });
                }
                k += 1;
            }
        }
    }
    let (qp, sp) = (final_marks(&q), final_marks(&s));
    // `...` and `…` are one mark written two ways: the target keeps its own.
    if qp.replace("...", "…") != sp.replace("...", "…") {
        out.push(final_mark_repair(target, sp, qp, target_locale));
    }
    for (lead, (qw, sw)) in
        [(true, (leading_space(&q), leading_space(&s))), (false, (trailing_space(&q), trailing_space(&s)))]
    {
        if qw != sw {
            let applied = repair_space(target, lead, sw, qw);
            out.push(Repair {
                kind: RepairKind::Whitespace,
                from: sw.to_owned(),
                to: qw.to_owned(),
                applied,
                words: None,
            });
        }
    }
    out
}

/// The text runs of `target`, in order, as mutable strings.
fn texts(target: &mut [Run]) -> Vec<&mut String> {
    target.iter_mut().filter_map(|r| if let Run::Text(t) = r { Some(t) } else { None }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::Code;

    fn de() -> Locale {
        Locale::parse("de").unwrap()
    }

    fn run(q: &str, s: &str, t: &str, loc: &Locale) -> (String, Vec<Repair>) {
        let mut target = vec![Run::text(t)];
        let r = repair(&[Run::text(q)], &[Run::text(s)], &mut target, loc);
        (crate::model::run::surface_text(&target), r)
    }

    #[test]
    fn final_marks_change_add_and_go() {
        assert_eq!(run("Blocked.", "Blocked", "Blockiert", &de()).0, "Blockiert.");
        assert_eq!(run("Blocked", "Blocked.", "Blockiert.", &de()).0, "Blockiert");
        assert_eq!(run("Save as:", "Save as", "Speichern unter", &de()).0, "Speichern unter:");
        let fr = Locale::parse("fr").unwrap();
        assert_eq!(run("Name:", "Name", "Nom", &fr).0, "Nom\u{00A0}:");
        assert_eq!(run("Sure?", "Sure.", "Sûr.", &fr).0, "Sûr\u{202F}?");
        // The stored target spaced its mark with a plain space: kept.
        assert_eq!(run("Name?", "Name:", "Nom :", &fr).0, "Nom ?");
        // The source had a mark, the target none: no corresponding place.
        let (text, r) = run("Open!", "Open.", "Öffnen", &de());
        assert_eq!(text, "Öffnen");
        assert!(!r[0].applied);
    }

    #[test]
    fn numbers_as_written_or_with_the_other_sign() {
        assert_eq!(
            run("LibreOffice 24.2", "LibreOffice 4.2", "LibreOffice 4.2", &de()).0,
            "LibreOffice 24.2"
        );
        assert_eq!(run("Scale 1.5", "Scale 2.5", "Maßstab 2,5", &de()).0, "Maßstab 1,5");
        // Twice in the target: which one is meant is not mechanical.
        let (text, r) = run("Page 3 of 9", "Page 2 of 9", "Seite 2 von 2", &de());
        assert_eq!(text, "Seite 2 von 2");
        assert!(!r[0].applied);
    }

    #[test]
    fn white_space_at_the_ends() {
        assert_eq!(run("Failed:\n", "Failed:", "Fehlgeschlagen:", &de()).0, "Fehlgeschlagen:\n");
        assert_eq!(run("  Done", "Done", "Fertig", &de()).0, "  Fertig");
        assert_eq!(run("Done", "Done\n", "Fertig\n", &de()).0, "Fertig");
    }

    #[test]
    fn marks_between_the_words() {
        // A line break that became a comma, where the target broke the line alike.
        assert_eq!(
            run(
                "Sample Conference Center, Heidelberg, Germany",
                "Sample Conference Center\nHeidelberg, Germany",
                "Beispiel-Konferenzzentrum\nHeidelberg, Deutschland",
                &de()
            )
            .0,
            "Beispiel-Konferenzzentrum, Heidelberg, Deutschland"
        );
        // Brackets added after words the target translated: placed by the marks around.
        let (text, r) = run(
            "=OR(FALSE();TRUE()) returns TRUE.",
            "=OR(FALSE;TRUE) returns TRUE.",
            "=ODER(FALSCH;WAHR) ergibt WAHR.",
            &de(),
        );
        assert_eq!(text, "=ODER(FALSCH();WAHR()) ergibt WAHR.");
        assert_eq!(r.len(), 2);
        assert!(r.iter().all(|r| r.applied && r.kind == RepairKind::Punctuation));
        // Overlapping copies count: `//` is not once in `///`.
        let (text, r) = run("a//.b", "a//b", "x///y", &de());
        assert_eq!(text, "x///y");
        assert!(r.iter().all(|r| !r.applied));
        // A path the target copied: the window grows until it is found once.
        assert_eq!(
            run(
                "{file} macro://./[Library.Module]",
                "{file} macro:///[Library.Module]",
                "{Datei} macro:///[Bibliothek.Modul]",
                &de()
            )
            .0,
            "{Datei} macro://./[Bibliothek.Modul]"
        );
        // A mark new between two letters is a change of wording, a hyphen gone is spelling:
        // nothing is done.
        assert!(run("Email preview", "E-mail preview", "E-Mail-Vorschau", &de()).1.is_empty());
        // A word the target copied does not anchor a mark: its place differs.
        let (text, r) = run(
            "By default, gettext wraps lines.",
            "By default gettext wraps lines.",
            "Standardmäßig bricht gettext Zeilen um.",
            &de(),
        );
        assert_eq!(text, "Standardmäßig bricht gettext Zeilen um.");
        assert!(r.iter().all(|r| !r.applied));
        let (text, r) = run("Strike-through", "Strikethrough", "Durchgestrichen", &de());
        assert_eq!(text, "Durchgestrichen");
        assert!(r.is_empty());
        // All or nothing: the second comma has no unique place in the target.
        let (text, r) = run("a; b; c", "a, b, c", "x, y, z", &de());
        assert_eq!(text, "x, y, z");
        assert!(!r.is_empty() && r.iter().all(|r| !r.applied));
        // Numbers anchor the place: each comma after a number the target copied.
        assert_eq!(
            run("Item 1; item 2", "Item 1, item 2", "Eintrag 1, Eintrag 2", &de()).0,
            "Eintrag 1; Eintrag 2"
        );
        // A space that became a mark between two words the target translated: the
        // target's one space is not the source's (its words come in another order).
        let (text, r) = run("Open/File", "Open File", "Datei öffnen", &de());
        assert_eq!(text, "Datei öffnen");
        assert!(!r.is_empty() && r.iter().all(|r| !r.applied), "{r:?}");
        // Digits around it anchor it.
        assert_eq!(run("Page 1/2", "Page 1 2", "Seite 1 2", &de()).0, "Seite 1/2");
        // A word that changed is not mechanical: nothing is touched.
        let (text, r) = run("Open, file", "Close; file", "Schließen; Datei", &de());
        assert_eq!(text, "Schließen; Datei");
        assert!(r.is_empty());
    }

    #[test]
    fn mnemonics_and_line_breaks() {
        assert_eq!(
            run("Previous translation", "&Previous translation", "&Vorherige Übersetzung", &de()).0,
            "Vorherige Übersetzung"
        );
        assert_eq!(run("Hyphenation:", "_Hyphenation", "_Silbentrennung", &de()).0, "Silbentrennung:");
        // The query adds a mnemonic: the colon is repaired, the mnemonic is not placed.
        assert_eq!(run("_Hyphenation:", "Hyphenation", "Silbentrennung", &de()).0, "Silbentrennung:");
        assert_eq!(run("R&&D", "R&&D.", "F&&E.", &de()).0, "F&&E");
        assert_eq!(run("_Notify", "~Notify", "~Benachrichtigen", &de()).0, "_Benachrichtigen");
        assert_eq!(
            run("Export BASIC", "Export BASIC...", "BASIC ~exportieren…", &de()).0,
            "BASIC exportieren"
        );
        assert_eq!(
            run(
                "Authentication failed: %s",
                "Authentication failed:\n%s",
                "Authentifizierung fehlgeschlagen:\n%s",
                &de()
            )
            .0,
            "Authentifizierung fehlgeschlagen: %s"
        );
    }

    #[test]
    fn only_mechanical_differences_are_repaired() {
        // A changed word: nothing.
        let (text, r) = run("Open the file.", "Close the file", "Datei schließen", &de());
        assert_eq!(text, "Datei schließen");
        assert!(r.is_empty());
        // Identical: nothing.
        assert!(run("Same", "Same", "Gleich", &de()).1.is_empty());
    }

    #[test]
    fn an_ellipsis_written_the_other_way_is_the_same_mark() {
        let (text, r) = run("Delete User...", "Delete User…", "Benutzer löschen …", &de());
        assert_eq!(text, "Benutzer löschen …");
        assert!(r.is_empty());
        assert_eq!(run("Save As…", "Save As...", "Speichern unter...", &de()).0, "Speichern unter...");
        // A real change of the mark still is one.
        assert_eq!(run("Save As:", "Save As...", "Speichern unter...", &de()).0, "Speichern unter:");
    }

    #[test]
    fn brackets_of_another_kind() {
        let (text, r) =
            run("Page %1 of %2 [Page %3]", "Page %1 of %2 (Page %3)", "Seite %1 von %2 (Seite %3)", &de());
        assert_eq!(text, "Seite %1 von %2 [Seite %3]");
        assert_eq!((r.len(), r[0].kind, r[0].applied), (2, RepairKind::Punctuation, true));
        // The target has another number of them: which one corresponds is not mechanical.
        let (text, r) = run("Size [cm]", "Size (cm)", "Größe (in cm) (metrisch)", &de());
        assert_eq!(text, "Größe (in cm) (metrisch)");
        assert!(!r[0].applied);
        // Only some of the source's brackets changed: not a change of kind.
        // Each change then stands alone, and the last `)` has no single place.
        let (text, r) = run("(a) [b]", "(a) (b)", "(x) (y)", &de());
        assert_eq!(text, "(x) (y)");
        assert!(r.iter().all(|r| !r.applied));
        // With a changed word: nothing.
        // Another mark between the same words is placed like any other.
        assert_eq!(run("Size: cm", "Size (cm", "Größe (cm", &de()).0, "Größe: cm");
        assert!(run("Page [one]", "Page (two)", "Seite (zwei)", &de()).1.is_empty());
    }

    #[test]
    fn a_pair_around_the_text_or_a_code() {
        assert_eq!(run("<no change>", "no change", "Keine Änderung", &de()).0, "<Keine Änderung>");
        assert_eq!(run("(optional)\n", "optional\n", "optional\n", &de()).0, "(optional)\n");
        let code = Run::Ph(Code::new("1").data("%(title)s"));
        let mut target = vec![code.clone(), Run::text(" kopieren")];
        let r = repair(
            &[Run::text("Copy '"), code.clone(), Run::text("'")],
            &[Run::text("Copy "), code.clone()],
            &mut target,
            &de(),
        );
        assert!(r[0].applied);
        assert_eq!(target, vec![Run::text("'"), code.clone(), Run::text("' kopieren")]);
        // Around part of a word or a few words: the translator's choice.
        assert!(run("Operator(s)", "Operators", "Operatoren", &de()).1.is_empty());
        let (text, r) = run("Open (the) file", "Open the file", "Datei öffnen", &de());
        assert_eq!(text, "Datei öffnen");
        assert!(r.iter().all(|r| !r.applied));
        // Marks that are no pair: nothing.
        assert!(run("(no change(", "no change", "Keine Änderung", &de()).1.is_empty());
        // The code twice in the target: not placed.
        let mut target = vec![code.clone(), Run::text(" / "), code.clone()];
        let r = repair(
            &[Run::text("Copy \""), code.clone(), Run::text("\"")],
            &[Run::text("Copy "), code.clone()],
            &mut target,
            &de(),
        );
        assert!(!r[0].applied);
        assert_eq!(target.len(), 3);
    }

    #[test]
    fn a_target_ending_with_a_code() {
        let code = Run::Ph(Code::new("1").data("%s"));
        let mut target = vec![Run::text("Datei "), code.clone()];
        let r = repair(
            &[Run::text("File "), code.clone(), Run::text(".")],
            &[Run::text("File "), code.clone()],
            &mut target,
            &de(),
        );
        assert!(r[0].applied);
        assert_eq!(crate::model::run::surface_text(&target), "Datei %s.");
    }
}
