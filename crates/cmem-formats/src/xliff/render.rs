//! Runs written with the document's own inline codes (see the module docs of
//! [`xliff`](super)).

use cmem_core::{Code, Run};

use super::{Role, SourceCode, WrittenRuns};
use crate::xml::{escape_text_into, is_xml_char};

/// Escapes text as [`escape_text_into`] does, but writes the C0 controls XML 1.0
/// cannot carry as character references (as XML 1.1 and the tools that made such
/// files do), so a control read from a document is written back as it came.
fn escape_xliff_text(t: &str, out: &mut String) {
    let mut last = 0;
    for (i, c) in t.char_indices() {
        if !is_xml_char(c) && c != '\0' && (c as u32) < 0x20 {
            escape_text_into(&t[last..i], out);
            out.push_str(&format!("&#x{:X};", c as u32));
            last = i + c.len_utf8();
        }
    }
    escape_text_into(&t[last..], out);
}

/// Writes `runs` with the markup of `codes` (module docs).
pub(super) fn render_runs(runs: &[Run], codes: &[SourceCode]) -> WrittenRuns {
    // Flatten choices to their default form: XLIFF has no element for them.
    let mut flat: Vec<&Run> = Vec::new();
    fn flatten<'a>(runs: &'a [Run], out: &mut Vec<&'a Run>) {
        for r in runs {
            match r {
                Run::Plural(c) | Run::Select(c) => {
                    if let Some(form) = c.default_form() {
                        flatten(form, out);
                    }
                }
                other => out.push(other),
            }
        }
    }
    flatten(runs, &mut flat);
    let mut used = vec![false; codes.len()];
    let mut chosen: Vec<Option<usize>> = Vec::with_capacity(flat.len());
    let mut dropped = 0;
    for run in &flat {
        let (role, code): (Role, &Code) = match run {
            Run::Ph(c) | Run::Sub(c) => (Role::Ph, c),
            Run::PcOpen(c) => (Role::Open, c),
            Run::PcClose(c) => (Role::Close, c),
            _ => {
                chosen.push(None);
                continue;
            }
        };
        let found = codes.iter().enumerate().position(|(i, s)| !used[i] && s.role == role && s.id == code.id);
        if let Some(i) = found {
            used[i] = true;
        } else {
            dropped += 1;
        }
        chosen.push(found);
    }
    // Container halves must nest: keep a close only when it closes the innermost open.
    let mut stack: Vec<usize> = Vec::new();
    let mut keep = vec![true; flat.len()];
    for (k, c) in chosen.iter().enumerate() {
        let Some(ci) = c else { continue };
        let code = &codes[*ci];
        if !code.container {
            continue;
        }
        match code.role {
            Role::Open => stack.push(k),
            Role::Close => match stack.last() {
                Some(&top) if chosen[top].is_some_and(|o| codes[o].id == code.id) => {
                    stack.pop();
                }
                _ => keep[k] = false,
            },
            Role::Ph => {}
        }
    }
    for k in stack {
        keep[k] = false;
    }
    let mut markup = String::new();
    for (k, run) in flat.iter().enumerate() {
        if let Run::Text(t) = run {
            escape_xliff_text(t, &mut markup);
            continue;
        }
        match chosen[k] {
            Some(ci) if keep[k] => markup.push_str(&codes[ci].markup),
            Some(_) => dropped += 1,
            None => {}
        }
    }
    WrittenRuns { markup, dropped }
}
