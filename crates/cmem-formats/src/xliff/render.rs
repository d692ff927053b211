//! Runs written with the document's own inline codes (see the module docs of
//! [`xliff`](super)).

use cmem_core::{Code, Run};

use super::{Role, SourceCode, WrittenRuns};
use crate::xml::escape_text_into;

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
            // A character XML 1.0 cannot carry (a control a memory entry got from a PO
            // `\b` or a JSON `\u0008`) becomes U+FFFD, as in TMX text: a reference to it
            // (`&#x8;`) would make the output ill-formed, and documents holding one are
            // refused when read.
            escape_text_into(t, &mut markup);
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
