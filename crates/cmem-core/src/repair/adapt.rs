//! Adaptation (docs/matching.md §5): carry the query's entity values and inline codes into a
//! stored target, so a filled target carries the codes of the document being
//! translated. A code takes the place of the stored code it pairs with; one the query
//! added or moved to other words goes where the alignment puts those words
//! ([`super::place`]).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::place::{place, CodePlacement, PlacedBy, WordLinks};
use crate::model::run::CLIENT_MASK_TYPE;
use crate::model::run::{walk_runs, walk_runs_mut, Code, Run};

/// An entity whose value differs between the stored source and the query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityAdaptation {
    /// The entity type (`PERSON`).
    pub entity_type: String,
    /// The stored source's value.
    pub from: String,
    /// The query's value.
    pub to: String,
    /// The id of the stored source's entity code, which the target code shares.
    pub target_code_id: String,
    /// False when the target has neither a code with that id nor exactly one literal
    /// occurrence of `from`: the adapted target still says `from`.
    pub applied: bool,
}

/// Which half of a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeRole {
    /// A standalone code.
    Ph,
    /// An opening code.
    PcOpen,
    /// A closing code.
    PcClose,
    /// A sub-flow reference.
    Sub,
}

/// An inline code of the query carried into the target, or one that could not be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeAdaptation {
    /// Which half of a code.
    pub role: CodeRole,
    /// The stored source's code; `None` when the query's code has no counterpart there.
    pub from: Option<Code>,
    /// The query's code; `None` when the stored code is absent from the query. The
    /// target's counterpart of a paired code is then removed (the query has no such
    /// formatting); a standalone code or sub-flow is kept, and the adaptation is not
    /// applied: the query may have written as text what the code stood for, and a
    /// placeholder silently deleted would break the translation.
    pub to: Option<Code>,
    /// False when the change could not be made in the target.
    pub applied: bool,
    /// Where the code went, for a code the query added or moved to other words than its
    /// stored counterpart marks ([`super::place`]): by the alignment, at the ends, or, for
    /// lack of evidence, where the stored target had its counterpart or nowhere. `None`
    /// for a code that stays where its counterpart was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<CodePlacement>,
}

impl CodeAdaptation {
    /// True when the code was placed by the rule for lack of an alignment that knows the
    /// words it marks: where the stored target had its counterpart, or nowhere. A word
    /// model may place it ([`adapt_with`]).
    pub fn placed_by_rule(&self) -> bool {
        self.placement.as_ref().is_some_and(|p| matches!(p.by, PlacedBy::Stored | PlacedBy::Nowhere))
    }
}

/// A stored target adapted to a query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Adapted {
    /// The adapted target.
    pub target: Vec<Run>,
    /// Entity values changed.
    pub entities: Vec<EntityAdaptation>,
    /// Codes changed, removed or left unplaced.
    pub codes: Vec<CodeAdaptation>,
}

impl Adapted {
    /// True when every adaptation was applied.
    pub fn complete(&self) -> bool {
        self.entities.iter().all(|a| a.applied) && self.codes.iter().all(|a| a.applied)
    }
}

#[derive(Clone, Copy)]
struct CodeRef<'a> {
    role: CodeRole,
    code: &'a Code,
}

pub(super) fn role_of(run: &Run) -> Option<(CodeRole, &Code)> {
    match run {
        Run::Ph(c) => Some((CodeRole::Ph, c)),
        Run::PcOpen(c) => Some((CodeRole::PcOpen, c)),
        Run::PcClose(c) => Some((CodeRole::PcClose, c)),
        Run::Sub(c) => Some((CodeRole::Sub, c)),
        _ => None,
    }
}

/// Entities and other codes of `runs`, in order of appearance.
fn codes_of(runs: &[Run]) -> (Vec<&Code>, Vec<CodeRef<'_>>) {
    let mut entities = Vec::new();
    let mut codes = Vec::new();
    walk_runs(runs, &mut |run| {
        if let Some((role, code)) = role_of(run) {
            if role == CodeRole::Ph && code.is_entity() {
                entities.push(code);
            } else {
                codes.push(CodeRef { role, code });
            }
        }
    });
    (entities, codes)
}

/// Aligns two sequences: position by position when `positional` and every pair weighs
/// something, else by the order-keeping pairing of the greatest total `weight` (0: the
/// items do not pair; a longest common subsequence when every weight is 0 or 1). Unaligned
/// items pair with `None`.
fn align<A, B>(
    a: &[A],
    b: &[B],
    positional: bool,
    weight: impl Fn(&A, &B) -> u32,
) -> Vec<(Option<usize>, Option<usize>)> {
    if positional && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| weight(x, y) > 0) {
        return (0..a.len()).map(|i| (Some(i), Some(i))).collect();
    }
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let w = weight(&a[i], &b[j]);
            let paired = if w > 0 { dp[i + 1][j + 1] + w } else { 0 };
            dp[i][j] = paired.max(dp[i + 1][j]).max(dp[i][j + 1]);
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n && j < m {
        let w = weight(&a[i], &b[j]);
        if w > 0 && dp[i][j] == dp[i + 1][j + 1] + w {
            out.push((Some(i), Some(j)));
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            out.push((Some(i), None));
            i += 1;
        } else {
            out.push((None, Some(j)));
            j += 1;
        }
    }
    out.extend((i..n).map(|i| (Some(i), None)));
    out.extend((j..m).map(|j| (None, Some(j))));
    out
}

/// The entity values of a run sequence, in order (for the exact tiers' comparison).
pub fn entity_values(runs: &[Run]) -> Vec<(&str, &str)> {
    codes_of(runs).0.into_iter().map(|c| (c.kind.as_str(), c.equiv.as_str())).collect()
}

/// Adapts `stored_target` to `query`, given the stored source it was approved for.
/// `positional` aligns codes and entities by position (the exact tiers); otherwise by
/// longest common subsequence of their kinds (fuzzy matches). Codes the query added or
/// moved are placed by the match's own alignment ([`WordLinks::Own`]; see
/// [`adapt_with`]).
pub fn adapt(query: &[Run], stored_source: &[Run], stored_target: &[Run], positional: bool) -> Adapted {
    adapt_with(query, stored_source, stored_target, positional, WordLinks::Own)
}

/// [`adapt`], with the codes the query added or moved placed by `links`
/// ([`super::place`]): a lookup passes the word model of the locale pair when the store
/// has one.
///
/// ```
/// use cmem_core::align::{AlignOptions, WordModel};
/// use cmem_core::repair::adapt::adapt_with;
/// use cmem_core::repair::place::{PlacedBy, WordLinks};
/// use cmem_core::{parse_notation, to_notation};
///
/// let pairs = [("Saves the file", "Speichert die Datei"), ("Opens the file", "Öffnet die Datei"),
///              ("Saves the page", "Speichert die Seite"), ("Opens the page", "Öffnet die Seite")];
/// let opts = AlignOptions::default().tension(None).iterations(10);
/// let (model, _) = WordModel::train(pairs.iter().map(|(s, t)| (s.to_string(), t.to_string())), &opts);
///
/// let query = parse_notation(r#"{1 data="<b>"}Save{/1 data="</b>"} the file"#)?;
/// let source = parse_notation("Saves the file")?;
/// let target = parse_notation("Speichert die Datei")?;
/// // The rule alone has no place for the bold: left out, and said so.
/// let a = adapt_with(&query, &source, &target, false, WordLinks::Rule);
/// assert_eq!(to_notation(&a.target), "Speichert die Datei");
/// assert_eq!(a.codes[0].placement.as_ref().map(|p| p.by), Some(PlacedBy::Nowhere));
/// // The word model knows that *Saves* is *Speichert*.
/// let a = adapt_with(&query, &source, &target, false, WordLinks::Model(&model));
/// assert_eq!(cmem_core::model::run::surface_text(&a.target), "<b>Speichert</b> die Datei");
/// assert_eq!(a.codes[0].placement.as_ref().map(|p| p.target.as_str()), Some("Speichert"));
/// # Ok::<(), cmem_core::Error>(())
/// ```
pub fn adapt_with(
    query: &[Run],
    stored_source: &[Run],
    stored_target: &[Run],
    positional: bool,
    links: WordLinks<'_>,
) -> Adapted {
    let (q_entities, q_codes) = codes_of(query);
    let (s_entities, s_codes) = codes_of(stored_source);

    // Codes: map (role, stored id) → the query's code, or removal.
    let mut code_map: HashMap<(CodeRole, &str), Option<&Code>> = HashMap::new();
    let mut codes: Vec<(CodeRole, Option<&Code>, Option<&Code>)> = Vec::new();
    // A client's mask (`[X20X]`) stands for whatever code the client took out: any role.
    // Codes of one role pair, as many as can be in order; among those pairings, the one
    // with most codes written as the query writes them, so a query that dropped one of
    // two links keeps the link it has (`<a name></a><a href>…</a>` against `<a
    // href>…</a>`). A pair outweighs every data bonus together.
    let pair = u32::try_from(s_codes.len().min(q_codes.len())).unwrap_or(u32::MAX / 4).saturating_add(1);
    let weight = |s: &CodeRef<'_>, q: &CodeRef<'_>| {
        if s.role == q.role || q.code.kind == CLIENT_MASK_TYPE {
            pair + u32::from(s.role == q.role && s.code.data == q.code.data)
        } else {
            0
        }
    };
    for (si, qi) in align(&s_codes, &q_codes, positional, weight) {
        let s = si.map(|i| s_codes[i]);
        let q = qi.map(|i| q_codes[i]);
        let role = s.or(q).map_or(CodeRole::Ph, |c| c.role);
        if let Some(s) = s {
            code_map.entry((role, s.code.id.as_str())).or_insert(q.map(|q| q.code));
        }
        codes.push((role, s.map(|s| s.code), q.map(|q| q.code)));
    }

    // Entities: map stored id → the query's entity.
    let mut entity_map: HashMap<&str, &Code> = HashMap::new();
    let mut entity_pairs: Vec<(&Code, &Code)> = Vec::new();
    for (si, qi) in align(&s_entities, &q_entities, positional, |s, q| u32::from(s.kind == q.kind)) {
        if let (Some(si), Some(qi)) = (si, qi) {
            entity_map.entry(s_entities[si].id.as_str()).or_insert(q_entities[qi]);
            entity_pairs.push((s_entities[si], q_entities[qi]));
        }
    }

    // The stored source's data of each code, to see what the translator changed in it.
    let s_data: HashMap<(CodeRole, &str), &str> =
        s_codes.iter().map(|c| ((c.role, c.code.id.as_str()), c.code.data.as_str())).collect();

    // A client that masks (`[X20X]`) masks every placeholder of its string: a stored
    // placeholder it sent no mask for, and does not write as text either, is not its
    // string's, and would be left in the suggestion for the client's check to flag. And
    // letters glued to a mask are what the client's pattern cut off a directive (`%ju`
    // sent as `[X20X]u`): where the stored code ends with them, they go with the mask.
    let masked = q_codes.iter().any(|c| c.code.kind == CLIENT_MASK_TYPE);
    let query_text = if masked { crate::model::run::surface_text(query) } else { String::new() };
    let glued = if masked { glued_to_masks(query) } else { HashMap::new() };

    // Rewrite the target's codes; note which stored ids were found. A paired code the
    // query does not have is dropped; a standalone one is kept (see `CodeAdaptation::to`)
    // unless the query masks its codes (above).
    let mut found_codes: HashSet<(CodeRole, String)> = HashSet::new();
    let mut dropped: HashSet<(CodeRole, String)> = HashSet::new();
    let mut found_entities: HashSet<String> = HashSet::new();
    let mut target = rewrite(stored_target.to_vec(), &mut |run| {
        let Some((role, code)) = role_of(&run) else { return Some(run) };
        if role == CodeRole::Ph && code.is_entity() {
            return match entity_map.get(code.id.as_str()) {
                Some(q) => {
                    found_entities.insert(code.id.clone());
                    Some(Run::Ph((*q).clone()))
                }
                None => Some(run),
            };
        }
        let Some(replacement) = code_map.get(&(role, code.id.as_str())) else { return Some(run) };
        if replacement.is_none() && matches!(role, CodeRole::Ph | CodeRole::Sub) {
            let shown = if code.data.is_empty() { &code.equiv } else { &code.data };
            if masked && !shown.is_empty() && !query_text.contains(shown.as_str()) {
                dropped.insert((role, code.id.clone()));
                return None;
            }
            return Some(run);
        }
        found_codes.insert((role, code.id.clone()));
        let stored = s_data.get(&(role, code.id.as_str())).copied();
        replacement.map(|q| {
            let tail = glued.get(&(q.id.as_str(), q.data.as_str()));
            let mut q = localized_code(q, stored, &code.data);
            if let (Some(tail), Some(stored)) = (tail, stored) {
                if stored.len() > tail.len() && stored.ends_with(tail.as_str()) {
                    q.data.push_str(tail);
                }
            }
            match role {
                CodeRole::Ph => Run::Ph(q),
                CodeRole::PcOpen => Run::PcOpen(q),
                CodeRole::PcClose => Run::PcClose(q),
                CodeRole::Sub => Run::Sub(q),
            }
        })
    });

    // Codes the query adds before all its text or after it (an anchor before a heading,
    // a link around the whole text) go to the same end of the target.
    let added: Vec<&Code> = codes.iter().filter(|c| c.1.is_none()).filter_map(|c| c.2).collect();
    let placed = place_at_ends(query, &added, &mut target);
    // The others, and the codes the query moved: by the alignment (`super::place`).
    let placements = if q_codes.is_empty() {
        HashMap::new()
    } else {
        place((query, stored_source, stored_target), &codes, &placed, &mut target, links)
    };
    let placement_of = |q: &Code| placements.get(&std::ptr::from_ref(q)).cloned();

    let mut entities = Vec::new();
    for (s, q) in entity_pairs {
        if s.equiv == q.equiv {
            continue;
        }
        let applied = found_entities.contains(&s.id) || replace_once(&mut target, &s.equiv, &q.equiv);
        entities.push(EntityAdaptation {
            entity_type: s.kind.clone(),
            from: s.equiv.clone(),
            to: q.equiv.clone(),
            target_code_id: s.id.clone(),
            applied,
        });
    }

    let mut code_adaptations = Vec::new();
    for (role, s, q) in codes {
        match (s, q) {
            (Some(s), Some(q)) => {
                let placement = placement_of(q);
                if s.data == q.data && s.kind == q.kind && s.equiv == q.equiv && placement.is_none() {
                    continue;
                }
                let applied = found_codes.contains(&(role, s.id.clone()))
                    || placement.as_ref().is_some_and(|p| p.by == PlacedBy::Alignment);
                code_adaptations.push(CodeAdaptation {
                    role,
                    from: Some(s.clone()),
                    to: Some(q.clone()),
                    applied,
                    placement,
                });
            }
            (Some(s), None) => code_adaptations.push(CodeAdaptation {
                role,
                from: Some(s.clone()),
                to: None,
                applied: matches!(role, CodeRole::PcOpen | CodeRole::PcClose)
                    || dropped.contains(&(role, s.id.clone())),
                placement: None,
            }),
            (None, Some(q)) => {
                let placement = placement_of(q);
                code_adaptations.push(CodeAdaptation {
                    role,
                    from: None,
                    to: Some(q.clone()),
                    applied: placement
                        .as_ref()
                        .is_some_and(|p| matches!(p.by, PlacedBy::Alignment | PlacedBy::Ends)),
                    placement,
                });
            }
            (None, None) => {}
        }
    }
    Adapted { target, entities, codes: code_adaptations }
}

/// The letters and digits glued after each client mask of `query` (`[X20X]u` → `u`), by
/// the mask's id and data.
fn glued_to_masks(query: &[Run]) -> HashMap<(&str, &str), String> {
    let mut out = HashMap::new();
    for pair in query.windows(2) {
        if let [Run::Ph(c), Run::Text(t)] = pair {
            let tail: String = t.chars().take_while(|c| c.is_alphanumeric()).collect();
            if c.kind == CLIENT_MASK_TYPE && !tail.is_empty() {
                out.insert((c.id.as_str(), c.data.as_str()), tail);
            }
        }
    }
    out
}

/// Puts the paired codes of `added` (the query's codes without a counterpart in the
/// stored source) that stand before all of the query's text, or after it, at the same end
/// of `target`, in the query's order; each only with its partner, so the target stays well
/// formed, and none the target has already. Returns the codes placed. A standalone code
/// (a placeholder) is not placed: the spaces and marks beside it are the text's (`%d
/// files`, `…: %s`; the word repair carries a query's end).
fn place_at_ends<'q>(query: &'q [Run], added: &[&Code], target: &mut Vec<Run>) -> Vec<&'q Code> {
    // The common case, on every match: nothing added.
    if added.is_empty() {
        return Vec::new();
    }
    let is_added = |run: &Run| -> bool {
        matches!(run, Run::PcOpen(_) | Run::PcClose(_))
            && role_of(run).is_some_and(|(_, c)| added.iter().any(|a| std::ptr::eq(*a, c)))
    };
    let blank = |run: &Run| matches!(run, Run::Text(t) if t.trim().is_empty());
    let edge = |runs: &mut dyn Iterator<Item = &'q Run>| -> Vec<&'q Run> {
        runs.filter(|r| !blank(r)).take_while(|r| is_added(r)).collect()
    };
    let head = edge(&mut query.iter());
    let mut tail = edge(&mut query.iter().rev());
    tail.reverse();
    if head.len() == query.iter().filter(|r| !blank(r)).count() {
        // Nothing but added codes: no text to put them around.
        return Vec::new();
    }
    // A paired code goes only with its partner, opening before closing.
    let order: Vec<&Run> = head.iter().chain(tail.iter()).copied().collect();
    let well_formed = |run: &Run| -> bool {
        let at = order.iter().position(|r| std::ptr::eq(*r, run));
        let partner = |want: fn(&Run) -> bool, id: &str| {
            order.iter().position(|r| want(r) && role_of(r).is_some_and(|(_, c)| c.id == id))
        };
        match (run, at) {
            (Run::PcOpen(c), Some(i)) => {
                partner(|r| matches!(r, Run::PcClose(_)), &c.id).is_some_and(|j| j > i)
            }
            (Run::PcClose(c), Some(i)) => {
                partner(|r| matches!(r, Run::PcOpen(_)), &c.id).is_some_and(|j| j < i)
            }
            _ => true,
        }
    };
    let keep = |runs: Vec<&'q Run>| -> Vec<&'q Run> {
        runs.into_iter().filter(|r| well_formed(r) && !target.contains(r)).collect()
    };
    let (head, tail) = (keep(head), keep(tail));
    let mut placed: Vec<&Code> = Vec::new();
    for run in head.iter().chain(&tail) {
        if let Some((_, c)) = role_of(run) {
            placed.push(c);
        }
    }
    let mut out: Vec<Run> = head.into_iter().cloned().collect();
    out.append(target);
    out.extend(tail.into_iter().cloned());
    *target = out;
    placed
}

/// The query's code `q` as the target should carry it. Where the translator changed the
/// stored code's data in one place (a link's `en-US/` became `de/`), the same change is
/// made in the query's data when the stored source's text of that place occurs in it
/// exactly once; a code the query left as it was keeps the target's data. Anything else
/// takes the query's data as it is.
fn localized_code(q: &Code, stored_source: Option<&str>, stored_target: &str) -> Code {
    let mut out = q.clone();
    let Some(source) = stored_source else { return out };
    if source == stored_target {
        return out;
    }
    if q.data == source {
        stored_target.clone_into(&mut out.data);
        return out;
    }
    // The one place where source and target data differ: what is left once their
    // common start and end are taken off (char boundaries of both).
    let prefix = source
        .char_indices()
        .zip(stored_target.chars())
        .find(|((_, a), b)| a != b)
        .map_or(source.len().min(stored_target.len()), |((i, _), _)| i);
    let (s_rest, t_rest) = (&source[prefix..], &stored_target[prefix..]);
    let suffix = s_rest
        .chars()
        .rev()
        .zip(t_rest.chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum::<usize>();
    let from = &s_rest[..s_rest.len() - suffix];
    let to = &t_rest[..t_rest.len() - suffix];
    if !from.is_empty() && q.data.matches(from).count() == 1 {
        out.data = q.data.replacen(from, to, 1);
    }
    out
}

/// Maps every run through `f` (dropping those it returns `None` for), descending into
/// choice forms first, and joins the text runs left adjacent.
fn rewrite(runs: Vec<Run>, f: &mut dyn FnMut(Run) -> Option<Run>) -> Vec<Run> {
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let run = match run {
            Run::Plural(mut c) => {
                c.forms = c.forms.into_iter().map(|(k, form)| (k, rewrite(form, f))).collect();
                Run::Plural(c)
            }
            Run::Select(mut c) => {
                c.forms = c.forms.into_iter().map(|(k, form)| (k, rewrite(form, f))).collect();
                Run::Select(c)
            }
            other => other,
        };
        out.extend(f(run));
    }
    merge_text(&mut out);
    out
}

/// Joins adjacent text runs.
pub(crate) fn merge_text(runs: &mut Vec<Run>) {
    let mut out: Vec<Run> = Vec::with_capacity(runs.len());
    for run in runs.drain(..) {
        match (out.last_mut(), run) {
            (Some(Run::Text(a)), Run::Text(b)) => a.push_str(&b),
            (_, run) => out.push(run),
        }
    }
    *runs = out;
}

/// Replaces `from` by `to` in the target's text when it occurs exactly once there.
fn replace_once(runs: &mut [Run], from: &str, to: &str) -> bool {
    if from.is_empty() {
        return false;
    }
    let mut total = 0;
    walk_runs(runs, &mut |run| {
        if let Run::Text(t) = run {
            total += t.matches(from).count();
        }
    });
    if total != 1 {
        return false;
    }
    walk_runs_mut(runs, &mut |run| {
        if let Run::Text(t) = run {
            if t.contains(from) {
                *t = t.replacen(from, to, 1);
            }
        }
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(id: &str, data: &str) -> Run {
        Run::PcOpen(Code::new(id).data(data))
    }
    fn eb(id: &str, data: &str) -> Run {
        Run::PcClose(Code::new(id).data(data))
    }

    #[test]
    fn entity_in_target_code() {
        let src = vec![Run::entity("1", "PERSON", "John"), Run::text(" works")];
        let tgt = vec![Run::entity("1", "PERSON", "John"), Run::text(" arbeitet")];
        let q = vec![Run::entity("7", "PERSON", "Alice"), Run::text(" works")];
        let a = adapt(&q, &src, &tgt, true);
        assert_eq!(a.target, vec![Run::entity("7", "PERSON", "Alice"), Run::text(" arbeitet")]);
        assert_eq!(a.entities.len(), 1);
        assert!(a.complete());
    }

    #[test]
    fn entity_in_plain_target() {
        let src = vec![Run::entity("1", "PERSON", "John"), Run::text(" works")];
        let tgt = vec![Run::text("John arbeitet")];
        let q = vec![Run::entity("1", "PERSON", "Alice"), Run::text(" works")];
        let a = adapt(&q, &src, &tgt, true);
        assert_eq!(a.target, vec![Run::text("Alice arbeitet")]);
        assert!(a.complete());
        let tgt2 = vec![Run::text("John und John")];
        let a = adapt(&q, &src, &tgt2, true);
        assert_eq!(a.target, tgt2);
        assert!(!a.complete());
    }

    fn mask(id: &str, mask: &str) -> Run {
        Run::Ph(Code { id: id.into(), equiv: mask.into(), kind: CLIENT_MASK_TYPE.into(), data: mask.into() })
    }

    #[test]
    fn a_mask_keeps_the_letters_a_client_cut_off_a_directive() {
        // Weblate sends `%ju` as `[X20X]u`: the stored `%ju` ends with the `u`.
        let ph = |id: &str, data: &str| Run::Ph(Code::new(id).data(data));
        let src = vec![ph("1", "%ju"), Run::text(" sectors")];
        let tgt = vec![ph("1", "%ju"), Run::text(" Sektoren")];
        let q = vec![mask("1", "[X0X]"), Run::text("u sectors")];
        let a = adapt(&q, &src, &tgt, false);
        assert!(matches!(&a.target[0], Run::Ph(c) if c.data == "[X0X]u"), "{:?}", a.target);
        // A word glued to a tag's mask is text, not the tag's.
        let src = vec![b("1", "<b>"), Run::text("Remove"), eb("1", "</b>")];
        let tgt = vec![b("1", "<b>"), Run::text("Entfernen"), eb("1", "</b>")];
        let q = vec![mask("1", "[X0X]"), Run::text("Remove"), mask("2", "[X9X]")];
        let a = adapt(&q, &src, &tgt, true);
        assert_eq!(crate::model::run::surface_text(&a.target), "[X0X]Entfernen[X9X]");
    }

    #[test]
    fn a_masked_query_leaves_no_stored_placeholder_it_lacks() {
        // The client masks every placeholder it has: a stored `%1` it has no mask for is
        // not its string's.
        let ph = |id: &str, data: &str| Run::Ph(Code::new(id).data(data));
        let src = vec![
            Run::text("Failed to download "),
            b("1", "<filename>"),
            ph("2", "%1"),
            eb("1", "</filename>"),
        ];
        let tgt = vec![
            Run::text("Fehler beim Herunterladen von "),
            b("1", "<filename>"),
            ph("2", "%1"),
            eb("1", "</filename>"),
        ];
        let q = vec![Run::text("Failed to download "), mask("1", "[X19X]")];
        let a = adapt(&q, &src, &tgt, false);
        assert_eq!(crate::model::run::surface_text(&a.target), "Fehler beim Herunterladen von [X19X]");
        assert!(a.complete(), "{:?}", a.codes);
        // Written as text by the query, the stored placeholder stays.
        let q = vec![Run::text("Failed to download %1 "), mask("1", "[X22X]")];
        let a = adapt(&q, &src, &tgt, false);
        assert!(crate::model::run::surface_text(&a.target).contains("%1"), "{:?}", a.target);
        // Without masks, a stored placeholder the query lacks is kept, as before.
        let q = vec![Run::text("Failed to download "), b("7", "<b>"), eb("7", "</b>")];
        let a = adapt(&q, &src, &tgt, false);
        assert!(crate::model::run::surface_text(&a.target).contains("%1"), "{:?}", a.target);
    }

    #[test]
    fn codes_follow_the_query() {
        let src = vec![Run::text("Click "), b("1", "<b>"), Run::text("here"), eb("1", "</b>")];
        let tgt = vec![b("1", "<b>"), Run::text("Hier"), eb("1", "</b>"), Run::text(" klicken")];
        let q = vec![Run::text("Click "), b("5", "<i>"), Run::text("here"), eb("5", "</i>")];
        let a = adapt(&q, &src, &tgt, true);
        assert_eq!(a.target, vec![b("5", "<i>"), Run::text("Hier"), eb("5", "</i>"), Run::text(" klicken")]);
        assert_eq!(a.codes.len(), 2);
        assert!(a.complete());
    }

    #[test]
    fn a_code_the_translator_localized_keeps_its_change() {
        let link = |href: &str| format!("<a href=\"{href}/text/help.html\">");
        let src = vec![b("1", &link("en-US")), Run::text("Help"), eb("1", "</a>")];
        let tgt = vec![b("1", &link("de")), Run::text("Hilfe"), eb("1", "</a>")];
        // The query's link points elsewhere: the target's `de` is carried into it.
        let q = vec![b("1", "<a href=\"en-US/text/index.html\">"), Run::text("Help"), eb("1", "</a>")];
        let a = adapt(&q, &src, &tgt, true);
        assert_eq!(a.target[0], b("1", "<a href=\"de/text/index.html\">"));
        // The query's link is the stored source's: the target keeps its own.
        let a = adapt(&src, &src, &tgt, true);
        assert_eq!(a.target, tgt);
        // The changed part is not in the query's data once: the query's data as it is.
        let q = vec![b("1", "<a href=\"fr/text/index.html\">"), Run::text("Help"), eb("1", "</a>")];
        let a = adapt(&q, &src, &tgt, true);
        assert_eq!(a.target[0], b("1", "<a href=\"fr/text/index.html\">"));
        let q = vec![b("1", "<a href=\"en-US/en-US.html\">"), Run::text("Help"), eb("1", "</a>")];
        assert_eq!(adapt(&q, &src, &tgt, true).target[0], q[0]);
    }

    #[test]
    fn a_code_written_as_the_query_writes_it_pairs_first() {
        let anchor = (b("1", "<a name=\"x\">"), eb("1", "</a>"));
        let link = (b("2", "<a href=\"y\">"), eb("2", "</a>"));
        let source =
            vec![anchor.0.clone(), anchor.1.clone(), link.0.clone(), Run::text("Using it"), link.1.clone()];
        let target =
            vec![anchor.0.clone(), anchor.1.clone(), link.0.clone(), Run::text("Verwenden"), link.1.clone()];
        let query = vec![link.0.clone(), Run::text("Using it"), link.1.clone()];
        let a = adapt(&query, &source, &target, true);
        assert_eq!(a.target, vec![link.0.clone(), Run::text("Verwenden"), link.1.clone()], "{:?}", a.codes);
    }

    #[test]
    fn codes_the_query_adds_around_its_text_go_around_the_target() {
        let anchor = (b("9", "<a id=\"h1\">"), eb("9", "</a>"));
        let link = (b("2", "<a href=\"y\">"), eb("2", "</a>"));
        let source = vec![Run::text("Keep formatting")];
        let target = vec![Run::text("Formatierung beibehalten")];
        let query = vec![anchor.0.clone(), anchor.1.clone(), Run::text("Keep formatting")];
        let a = adapt(&query, &source, &target, false);
        assert_eq!(a.target, vec![anchor.0.clone(), anchor.1.clone(), Run::text("Formatierung beibehalten")]);
        assert!(a.complete(), "{:?}", a.codes);
        let query = vec![link.0.clone(), Run::text("Keep formatting"), link.1.clone()];
        let a = adapt(&query, &source, &target, false);
        assert_eq!(a.target, vec![link.0.clone(), Run::text("Formatierung beibehalten"), link.1.clone()]);
        // A pair around some of the text has no place in the target: left, and said so.
        let query = vec![link.0.clone(), Run::text("Keep"), link.1.clone(), Run::text(" formatting")];
        let a = adapt(&query, &source, &target, false);
        assert_eq!(a.target, target);
        assert!(!a.complete());
        // Nor a standalone code, even before all the text: its spacing is the text's.
        let ph = Run::Ph(Code::new("5").data("%d"));
        let query = vec![ph.clone(), Run::text(" Keep formatting")];
        assert_eq!(adapt(&query, &source, &target, false).target, target);
    }

    #[test]
    fn codes_absent_from_query_are_removed() {
        let src = vec![Run::text("Click "), b("1", "<b>"), Run::text("here"), eb("1", "</b>")];
        let tgt = vec![b("1", "<b>"), Run::text("Hier"), eb("1", "</b>"), Run::text(" klicken")];
        let q = vec![Run::text("Click here")];
        let a = adapt(&q, &src, &tgt, false);
        assert_eq!(a.target, vec![Run::text("Hier klicken")]);
    }
}
