//! Code placement (docs/matching.md §5, DESIGN.md §5.1): where a code the query added or
//! moved goes in the adapted target.
//!
//! A paired code of the query **moved** when the words it marks are not those its stored
//! counterpart marks (the unchanged words before its opening or its closing half differ:
//! `<b>Save</b> the file` against `<span>Saves the file.</span>`); a placeholder moved
//! when the unchanged words before it differ. Numbers are no unchanged words here (a
//! changed `0` equal to another elsewhere would pair the text across). A paired code the
//! query **added** (the stored source has no counterpart) that stands around or before
//! all of the query's text, or after it, goes to that end of the target (the ends rule,
//! in [`adapt`](super::adapt)). Every other added pair, every moved pair and every moved
//! placeholder is placed by the alignment of the stored source with the stored target:
//!
//! - a query word stands for the source word it equals (an unchanged word), or for the
//!   source word at the same place of the stretch it replaced when both stretches have
//!   as many words (`Save` for `Saves`); in a stretch of another length, for the whole
//!   stretch, and a pair must then mark all of the query's stretch; a word the query
//!   inserted stands for none;
//! - a pair goes around the target words aligned with the source words it marks: the
//!   span from the first to the last, with the marks the query's pair encloses before its
//!   first word or after its last where the target has them there (`--` of
//!   `<b>--outdir</b>`), when no word inside it is aligned with a source word outside
//!   them, it cuts no other pair of codes in two (a pair of the target that the query
//!   nests inside the placed one is taken inside), and no pair of the target already
//!   encloses the same words unless the query's encloses the same as this one (else the
//!   rule's in-order pairing put it there for another code);
//! - a placeholder goes beside the target words aligned with the word it is written
//!   against in the query (the one before it, or else the one after it, with only white
//!   space between), with that white space, when those target words follow one another
//!   and the placeholder stood in the stored target between white space, words or the
//!   text's ends.
//!
//! The alignment is the match's own — words written alike once on each side (a name, a
//! number), every word of the source for every word of the target, and a pair of codes
//! the stored source and target share, whose words correspond as a whole (as do the
//! words outside it) — and the word model's, when the lookup has one (the model the word
//! repair reads), except for words written alike, which are linked to their copy alone.
//! A query whose pairs pair their halves with halves of two stored pairs is left to the
//! rule. Where neither knows the words, the rule before applies and the code's
//! [`CodePlacement`] says so: a moved code stays where the stored target has its
//! counterpart ([`PlacedBy::Stored`]), an added pair is not placed ([`PlacedBy::Nowhere`]).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::adapt::{merge_text, role_of, CodeRole};
use crate::align::{fold, words, WordModel};
use crate::model::run::{surface_text, Code, Run};

/// What the adaptation may place a code the query added or moved by.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum WordLinks<'a> {
    /// Nothing: the rule alone (a pair at the ends, a moved code where the stored target
    /// has its counterpart), each code so placed saying so.
    Rule,
    /// The match's own alignment: words written alike once on each side, the whole text,
    /// and codes the stored source and target share.
    Own,
    /// The word model's alignment and the match's own.
    Model(&'a WordModel),
}

/// How a code the query added or moved was placed in the adapted target: the note that
/// says where it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodePlacement {
    /// By what.
    pub by: PlacedBy,
    /// The target's text the code now encloses (a paired code) or the target word it
    /// stands beside (a placeholder); empty when it was not placed.
    pub target: String,
}

/// What placed a code the query added or moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PlacedBy {
    /// The alignment: around (or beside) the target words aligned with the words it marks
    /// in the query.
    Alignment,
    /// The ends rule: around, before or after the whole target, as in the query.
    Ends,
    /// Not known in the target: where the stored target has the stored code it replaces.
    Stored,
    /// Not known in the target, and no stored code to take the place of: left out
    /// (`applied: false`).
    Nowhere,
}

/// Runs flattened as the aligner reads them: text, each code as U+FFFC, top level only.
struct Flat {
    text: String,
    words: Vec<(usize, usize)>,
    /// Where each run starts in `text`.
    starts: Vec<usize>,
}

impl Flat {
    /// `None` for runs with a plural or select choice: its forms are not placed in.
    fn of(runs: &[Run]) -> Option<Flat> {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(runs.len());
        for run in runs {
            starts.push(text.len());
            match run {
                Run::Text(t) => text.push_str(t),
                Run::Plural(_) | Run::Select(_) => return None,
                _ => text.push('\u{FFFC}'),
            }
        }
        let words = words(&text);
        Some(Flat { text, words, starts })
    }

    /// How many words stand before run `i`.
    fn gap(&self, i: usize) -> usize {
        let at = self.starts[i];
        self.words.partition_point(|w| w.1 <= at)
    }

    fn word(&self, k: usize) -> &str {
        &self.text[self.words[k].0..self.words[k].1]
    }
}

/// How the query's words stand for the stored source's.
struct WordMap {
    /// Per query word, the source words it stands for (none: inserted).
    of_query: Vec<Vec<usize>>,
    /// Per query word in a replaced stretch of another length than the source's, that
    /// stretch of query words: a pair must mark all of it.
    stretch: Vec<Option<(usize, usize)>>,
    /// Unchanged words among the first `k` query words, per `k`.
    q_kept: Vec<usize>,
    /// Unchanged words among the first `k` source words, per `k`.
    s_kept: Vec<usize>,
}

impl WordMap {
    fn of(q: &Flat, s: &Flat) -> WordMap {
        // Numbers are no anchors: a changed one (`POWER(0,0)` → `POWER(2;-3)`) equal to
        // another elsewhere would pair words across the text. Each stands for itself.
        let lower = |f: &Flat, side: char| -> Vec<String> {
            let word = |(k, &(a, b)): (usize, &(usize, usize))| {
                let w = &f.text[a..b];
                if w.chars().all(char::is_numeric) {
                    format!("\u{0}{side}{k}")
                } else {
                    fold(w)
                }
            };
            f.words.iter().enumerate().map(word).collect()
        };
        let (ql, sl) = (lower(q, 'q'), lower(s, 's'));
        let mut of_query = vec![Vec::new(); ql.len()];
        let mut stretch = vec![None; ql.len()];
        let (mut q_same, mut s_same) = (vec![false; ql.len()], vec![false; sl.len()]);
        let (mut i, mut j) = (0, 0);
        let end = (sl.len(), sl.len(), ql.len(), ql.len());
        for (a1, a2, b1, b2) in crate::model::diff::lcs_hunks(&sl, &ql).into_iter().chain([end]) {
            while i < a1 && j < b1 {
                of_query[j] = vec![i];
                (q_same[j], s_same[i]) = (true, true);
                i += 1;
                j += 1;
            }
            if a2 > a1 && b2 > b1 {
                for k in b1..b2 {
                    if a2 - a1 == b2 - b1 {
                        of_query[k] = vec![a1 + k - b1];
                    } else {
                        of_query[k] = (a1..a2).collect();
                        stretch[k] = Some((b1, b2));
                    }
                }
            }
            (i, j) = (a2, b2);
        }
        let kept = |same: &[bool]| -> Vec<usize> {
            let mut out = vec![0];
            for &s in same {
                out.push(out.last().copied().unwrap_or(0) + usize::from(s));
            }
            out
        };
        WordMap { of_query, stretch, q_kept: kept(&q_same), s_kept: kept(&s_same) }
    }
}

/// What a code to place marks.
enum Marks {
    /// A pair: the source words it marks (sorted, distinct), or `None` when they are
    /// not known (only inserted words, part of a stretch, or no word at all).
    Words(Option<Vec<usize>>),
    /// A placeholder written against a word: the source words that word stands for, on
    /// which side of them it goes (`true`: after), and the white space between.
    Beside(Option<Vec<usize>>, bool, String),
}

/// A query code to place: a pair's two halves or a placeholder.
struct Plan<'q> {
    /// The query's codes: a pair's halves, or a placeholder.
    open: &'q Code,
    close: Option<&'q Code>,
    /// True when the stored source has a counterpart (a move), false when added.
    moved: bool,
    marks: Marks,
}

/// The source and target word ranges of the pairs of codes the stored source and target
/// share (one id, both halves at the top level of each).
fn shared_spans(source: &[Run], s: &Flat, target: &[Run], t: &Flat) -> Vec<(Vec<usize>, Vec<usize>)> {
    let spans = |runs: &[Run], f: &Flat| -> Vec<(String, Vec<usize>)> {
        let mut out = Vec::new();
        for (i, run) in runs.iter().enumerate() {
            if let Run::PcOpen(c) = run {
                let close = runs[i + 1..].iter().position(|r| matches!(r, Run::PcClose(x) if x.id == c.id));
                if let Some(k) = close {
                    out.push((c.id.clone(), (f.gap(i)..f.gap(i + 1 + k)).collect()));
                }
            }
        }
        out
    };
    let ts = spans(target, t);
    spans(source, s)
        .into_iter()
        .filter_map(|(id, sw)| {
            let mut found = ts.iter().filter(|(tid, _)| *tid == id);
            match (found.next(), found.next()) {
                (Some((_, tw)), None) if !sw.is_empty() && !tw.is_empty() => Some((sw, tw.clone())),
                _ => None,
            }
        })
        .collect()
}

/// A word written alike once in the source and once in the target that is a name or a
/// number, not a word of either language (`LibreOffice`, `SQL`, `2024`, `Firefox` inside
/// a sentence): the match's own evidence that the two correspond.
fn same_words(s: &Flat, t: &Flat) -> Vec<(usize, usize)> {
    let name_like = |w: &str, first: bool| {
        w.chars().any(char::is_numeric)
            || w.chars().skip(1).any(char::is_uppercase)
            || (!first && w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 3)
    };
    let once = |f: &Flat, w: &str| f.words.iter().filter(|&&(a, b)| &f.text[a..b] == w).count() == 1;
    let mut out = Vec::new();
    for (i, &(a, b)) in s.words.iter().enumerate() {
        let w = &s.text[a..b];
        if !name_like(w, i == 0) || !once(s, w) || !once(t, w) {
            continue;
        }
        if let Some(k) = t.words.iter().position(|&(x, y)| &t.text[x..y] == w) {
            if name_like(w, k == 0) {
                out.push((i, k));
            }
        }
    }
    out
}

/// The evidence the target words are chosen by.
struct Evidence {
    links: Vec<(usize, usize)>,
    shared: Vec<(Vec<usize>, Vec<usize>)>,
    source_words: usize,
    target_words: usize,
}

impl Evidence {
    /// The first and last target word for the source words `marked` (sorted, distinct):
    /// the whole target for the whole source; the target words of a pair of codes both
    /// share when `marked` are its source words, or all source words outside it; else
    /// the span of the aligned target words, when no word inside is aligned with a
    /// source word outside `marked`.
    fn span(&self, marked: &[usize]) -> Option<(usize, usize)> {
        if marked.is_empty() || self.target_words == 0 {
            return None;
        }
        if marked.len() == self.source_words {
            return Some((0, self.target_words - 1));
        }
        let range = |w: &[usize]| w.first().zip(w.last()).map(|(&a, &b)| (a, b));
        for (sw, tw) in &self.shared {
            if sw == marked {
                return range(tw);
            }
            // The words outside the shared pair, when they follow one another.
            let outside =
                |w: &[usize], n: usize| -> Vec<usize> { (0..n).filter(|k| !w.contains(k)).collect() };
            if outside(sw, self.source_words) == marked {
                let rest = outside(tw, self.target_words);
                if let Some((a, b)) = range(&rest) {
                    if b + 1 - a == rest.len() {
                        return Some((a, b));
                    }
                }
            }
        }
        let aligned: Vec<usize> =
            self.links.iter().filter(|(s, _)| marked.binary_search(s).is_ok()).map(|&(_, t)| t).collect();
        let (lo, hi) = (*aligned.iter().min()?, *aligned.iter().max()?);
        let stray =
            self.links.iter().any(|&(s, t)| (lo..=hi).contains(&t) && marked.binary_search(&s).is_err());
        (!stray).then_some((lo, hi))
    }
}

/// Makes a run boundary at `at` (an offset of [`Flat::text`] of `runs`), splitting the
/// text run across it; the index of the first run from there.
fn cut(runs: &mut Vec<Run>, at: usize) -> usize {
    let mut offset = 0;
    for i in 0..runs.len() {
        if offset == at {
            return i;
        }
        let len = match &runs[i] {
            Run::Text(t) => t.len(),
            _ => '\u{FFFC}'.len_utf8(),
        };
        if let Run::Text(t) = &mut runs[i] {
            if offset < at && at < offset + len && t.is_char_boundary(at - offset) {
                let rest = t.split_off(at - offset);
                runs.insert(i + 1, Run::Text(rest));
                return i + 1;
            }
        }
        offset += len;
    }
    runs.len()
}

/// The indices of the top-level runs of `role` with id `id`.
fn runs_of<'a>(runs: &'a [Run], role: CodeRole, id: &'a str) -> impl Iterator<Item = usize> + 'a {
    runs.iter()
        .enumerate()
        .filter(move |(_, r)| role_of(r).is_some_and(|(ro, c)| ro == role && c.id == id))
        .map(|(i, _)| i)
}

/// The index of the one top-level run of `role` with id `id`, if exactly one.
fn only(runs: &[Run], role: CodeRole, id: &str) -> Option<usize> {
    let mut found = runs_of(runs, role, id);
    let i = found.next()?;
    found.next().is_none().then_some(i)
}

/// Whether every paired code in `runs` has its partner in `runs` too.
fn balanced(runs: &[Run]) -> bool {
    runs.iter().enumerate().all(|(k, r)| match r {
        Run::PcOpen(c) => runs[k + 1..].iter().any(|x| matches!(x, Run::PcClose(y) if y.id == c.id)),
        Run::PcClose(c) => runs[..k].iter().any(|x| matches!(x, Run::PcOpen(y) if y.id == c.id)),
        _ => true,
    })
}

/// The query's pairs: per id, the words each encloses (as [`Flat::gap`]s), the ids of
/// the pairs inside it, and the marks it encloses before its first word and after its
/// last (`--` of `<b>--outdir</b>`).
struct QueryPairs<'q> {
    words: HashMap<&'q str, (usize, usize)>,
    inside: HashMap<&'q str, HashSet<&'q str>>,
    marks: HashMap<&'q str, (String, String)>,
}

impl<'q> QueryPairs<'q> {
    fn of(query: &'q [Run], q: &Flat) -> QueryPairs<'q> {
        let (mut words, mut inside, mut marks) = (HashMap::new(), HashMap::new(), HashMap::new());
        for (i, run) in query.iter().enumerate() {
            let Run::PcOpen(open) = run else { continue };
            let close = query[i + 1..].iter().position(|r| matches!(r, Run::PcClose(c) if c.id == open.id));
            let Some(k) = close else { continue };
            let j = i + 1 + k;
            let (first, last) = (q.gap(i), q.gap(j));
            words.insert(open.id.as_str(), (first, last));
            let ids = query[i + 1..j].iter().filter_map(|r| role_of(r).map(|(_, c)| c.id.as_str()));
            inside.insert(open.id.as_str(), ids.collect());
            if first < last {
                let (from, to) = (q.starts[i] + '\u{FFFC}'.len_utf8(), q.starts[j]);
                let mark = |m: &str| {
                    if m.contains(|c: char| c.is_whitespace() || c == '\u{FFFC}') {
                        String::new()
                    } else {
                        m.to_owned()
                    }
                };
                let lead = mark(&q.text[from..q.words[first].0]);
                let trail = mark(&q.text[q.words[last - 1].1..to]);
                marks.insert(open.id.as_str(), (lead, trail));
            }
        }
        QueryPairs { words, inside, marks }
    }
}

/// Puts the pair `(open, close)` around target words `lo..=hi` of `target` (taken out
/// first where it stood, when `existing`); the text it then encloses. `pairs`: the
/// query's, which tell which pairs of the target go inside this one, and which may
/// enclose the same words.
fn put_pair(
    target: &mut Vec<Run>,
    (open, close): (&Code, &Code),
    existing: bool,
    (lo, hi): (usize, usize),
    (pairs, words): (&QueryPairs<'_>, usize),
) -> Option<String> {
    let none = HashSet::new();
    let inside = pairs.inside.get(open.id.as_str()).unwrap_or(&none);
    let mut t = target.clone();
    let (mut open_run, mut close_run) = (Run::PcOpen(open.clone()), Run::PcClose(close.clone()));
    if existing {
        let a = only(&t, CodeRole::PcOpen, &open.id)?;
        open_run = t.remove(a);
        let b = only(&t, CodeRole::PcClose, &close.id)?;
        close_run = t.remove(b);
        merge_text(&mut t);
    }
    let f = Flat::of(&t)?;
    if f.words.len() != words {
        return None;
    }
    let (mut from, mut to) = (f.words[lo].0, f.words[hi].1);
    // The marks the query's pair encloses before or after its words, where the target
    // has them there too.
    if let Some((lead, trail)) = pairs.marks.get(open.id.as_str()) {
        if !lead.is_empty() && f.text[..from].ends_with(lead.as_str()) {
            from -= lead.len();
        }
        if !trail.is_empty() && f.text[to..].starts_with(trail.as_str()) {
            to += trail.len();
        }
    }
    cut(&mut t, to);
    cut(&mut t, from);
    let (mut a, mut b) = (cut(&mut t, from), cut(&mut t, to));
    // Codes right beside the words that the query has inside this pair go inside it.
    loop {
        match (a.checked_sub(1).map(|k| &t[k]), t.get(b)) {
            (Some(Run::PcOpen(x)), _) if inside.contains(x.id.as_str()) => a -= 1,
            (_, Some(Run::PcClose(x))) if inside.contains(x.id.as_str()) => b += 1,
            _ => break,
        }
    }
    if !balanced(&t[a..b]) {
        return None;
    }
    // A pair of the target already around the same words must be one the query has
    // around the same words as this one (`<a><b>Save</b></a>`): else the rule's pairing
    // put it there for another code, and this one would double it.
    let f = Flat::of(&t)?;
    let mine = pairs.words.get(open.id.as_str());
    let doubled = t.iter().enumerate().any(|(k, r)| {
        let Run::PcOpen(x) = r else { return false };
        let Some(m) = t[k + 1..].iter().position(|r| matches!(r, Run::PcClose(y) if y.id == x.id)) else {
            return false;
        };
        (f.gap(k), f.gap(k + 1 + m)) == (lo, hi + 1) && pairs.words.get(x.id.as_str()) != mine
    });
    if doubled {
        return None;
    }
    t.insert(b, close_run);
    t.insert(a, open_run);
    let enclosed = surface_text(&t[a + 1..=b]);
    merge_text(&mut t);
    *target = t;
    Some(enclosed)
}

/// Whether the placeholder at `i` stands between white space, words or the text's ends
/// (not against a bracket, a quote or a mark, which belong to it).
fn free_standing(runs: &[Run], i: usize) -> bool {
    let ok = |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || c.is_alphanumeric());
    let before = runs[..i].last().map_or(Some(None), |r| match r {
        Run::Text(t) => Some(t.chars().next_back()),
        _ => None,
    });
    let after = runs.get(i + 1).map_or(Some(None), |r| match r {
        Run::Text(t) => Some(t.chars().next()),
        _ => None,
    });
    matches!((before, after), (Some(b), Some(a)) if ok(b) && ok(a))
}

/// Puts placeholder `code` beside target words `lo..=hi` of `target` (after them when
/// `after`), with `space` between (taken out first where it stood, when `existing`, with
/// the white space on one side); the target word it stands beside.
fn put_placeholder(
    target: &mut Vec<Run>,
    code: &Code,
    existing: bool,
    ((lo, hi), after, space): ((usize, usize), bool, &str),
    words: usize,
) -> Option<String> {
    let mut t = target.clone();
    let mut run = Run::Ph(code.clone());
    if existing {
        let i = only(&t, CodeRole::Ph, &code.id)?;
        if !free_standing(&t, i) {
            return None;
        }
        run = t.remove(i);
        let left_space = i > 0 && matches!(&t[i - 1], Run::Text(x) if x.ends_with(char::is_whitespace));
        match t.get_mut(i) {
            Some(Run::Text(x)) if x.starts_with(char::is_whitespace) && (left_space || i == 0) => {
                *x = x.trim_start().to_owned();
            }
            None if left_space => {
                if let Some(Run::Text(x)) = t.last_mut() {
                    x.truncate(x.trim_end().len());
                }
            }
            _ => {}
        }
        t.retain(|r| !matches!(r, Run::Text(x) if x.is_empty()));
        merge_text(&mut t);
    }
    let f = Flat::of(&t)?;
    if f.words.len() != words {
        return None;
    }
    let (at, word) = if after { (f.words[hi].1, f.word(hi)) } else { (f.words[lo].0, f.word(lo)) };
    let word = word.to_owned();
    let i = cut(&mut t, at);
    let mut new = vec![run];
    if !space.is_empty() {
        if after {
            new.insert(0, Run::text(space));
        } else {
            new.push(Run::text(space));
        }
    }
    t.splice(i..i, new);
    merge_text(&mut t);
    *target = t;
    Some(word)
}

/// The text the code `(open, close)` encloses in `target` (a pair) or the word beside it
/// (a placeholder): where the rule left it.
fn where_it_is(target: &[Run], open: &Code, close: Option<&Code>) -> String {
    let Some(f) = Flat::of(target) else { return String::new() };
    match close {
        Some(close) => {
            match (only(target, CodeRole::PcOpen, &open.id), only(target, CodeRole::PcClose, &close.id)) {
                (Some(a), Some(b)) if a < b => surface_text(&target[a + 1..b]),
                _ => String::new(),
            }
        }
        None => only(target, CodeRole::Ph, &open.id)
            .map(|i| {
                let g = f.gap(i);
                g.checked_sub(1).or((g < f.words.len()).then_some(g)).map_or("", |k| f.word(k)).to_owned()
            })
            .unwrap_or_default(),
    }
}

/// Places the codes of `query` that it added, other than those the ends rule placed
/// (`at_ends`), and those it moved against `source`, in `target` (the stored target with
/// the query's codes, `stored_target` before); see the [module docs](self). `pairing`:
/// the adaptation's codes, (role, stored source's, query's). Returns each query code's
/// placement, keyed by its address.
pub(super) fn place(
    (query, source, stored_target): (&[Run], &[Run], &[Run]),
    pairing: &[(CodeRole, Option<&Code>, Option<&Code>)],
    at_ends: &[&Code],
    target: &mut Vec<Run>,
    links: WordLinks<'_>,
) -> HashMap<*const Code, CodePlacement> {
    let mut out: HashMap<*const Code, CodePlacement> = at_ends
        .iter()
        .map(|c| (std::ptr::from_ref(*c), CodePlacement { by: PlacedBy::Ends, target: String::new() }))
        .collect();
    let (Some(q), Some(s), Some(st)) = (Flat::of(query), Flat::of(source), Flat::of(stored_target)) else {
        return out;
    };
    let counterpart: HashMap<*const Code, Option<&Code>> =
        pairing.iter().filter_map(|&(_, s, q)| Some((std::ptr::from_ref(q?), s))).collect();
    let index_in = |runs: &[Run], code: &Code| {
        runs.iter().position(|r| role_of(r).is_some_and(|(_, c)| std::ptr::eq(c, code)))
    };
    // A pair of the query whose halves pair with halves of two stored pairs (or one with
    // none) is in a pairing the rule could not make sense of: nothing is moved then.
    let crossed = query.iter().enumerate().any(|(i, run)| {
        let Run::PcOpen(open) = run else { return false };
        let Some(Run::PcClose(close)) =
            query[i + 1..].iter().find(|r| matches!(r, Run::PcClose(c) if c.id == open.id))
        else {
            return false;
        };
        match (counterpart.get(&std::ptr::from_ref(open)), counterpart.get(&std::ptr::from_ref(close))) {
            (Some(Some(a)), Some(Some(b))) => a.id != b.id,
            (Some(None), Some(None)) => false,
            _ => true,
        }
    });
    if crossed {
        return out;
    }
    let map = WordMap::of(&q, &s);
    let pairs = QueryPairs::of(query, &q);
    let mut plans: Vec<Plan<'_>> = Vec::new();
    for (i, run) in query.iter().enumerate() {
        match run {
            Run::PcOpen(open) => {
                let Some(k) =
                    query[i + 1..].iter().position(|r| matches!(r, Run::PcClose(c) if c.id == open.id))
                else {
                    continue;
                };
                let j = i + 1 + k;
                let Run::PcClose(close) = &query[j] else { continue };
                let moved = match (
                    counterpart.get(&std::ptr::from_ref(open)),
                    counterpart.get(&std::ptr::from_ref(close)),
                ) {
                    (Some(None), Some(None)) => {
                        if out.contains_key(&std::ptr::from_ref(open)) {
                            continue;
                        }
                        false
                    }
                    (Some(Some(so)), Some(Some(sc))) if so.id == sc.id => {
                        let (Some(si), Some(sj)) = (index_in(source, so), index_in(source, sc)) else {
                            continue;
                        };
                        let (qo, qc, so, sc) = (q.gap(i), q.gap(j), s.gap(si), s.gap(sj));
                        if map.q_kept[qo] == map.s_kept[so] && map.q_kept[qc] == map.s_kept[sc] {
                            continue;
                        }
                        true
                    }
                    _ => continue,
                };
                let (qo, qc) = (q.gap(i), q.gap(j));
                let whole_stretches =
                    (qo..qc).all(|k| map.stretch[k].is_none_or(|(b1, b2)| qo <= b1 && b2 <= qc));
                let mut marked: Vec<usize> = (qo..qc).flat_map(|k| map.of_query[k].iter().copied()).collect();
                marked.sort_unstable();
                marked.dedup();
                let known = (whole_stretches && !marked.is_empty()).then_some(marked);
                plans.push(Plan { open, close: Some(close), moved, marks: Marks::Words(known) });
            }
            Run::Ph(code) if !code.is_entity() && code.kind != crate::model::run::CLIENT_MASK_TYPE => {
                let Some(Some(stored)) = counterpart.get(&std::ptr::from_ref(code)) else { continue };
                let Some(si) = index_in(source, stored) else { continue };
                let (g, sg) = (q.gap(i), s.gap(si));
                if map.q_kept[g] == map.s_kept[sg] {
                    continue;
                }
                // The word it is written against, with only white space between.
                let at = q.starts[i];
                let blank =
                    |x: usize, y: usize| q.text.get(x..y).is_some_and(|b| b.chars().all(char::is_whitespace));
                let end = at + '\u{FFFC}'.len_utf8();
                let beside = if g > 0 && blank(q.words[g - 1].1, at) {
                    Some((g - 1, true, q.text[q.words[g - 1].1..at].to_owned()))
                } else if g < q.words.len() && blank(end, q.words[g].0) {
                    Some((g, false, q.text[end..q.words[g].0].to_owned()))
                } else {
                    None
                };
                let marks = match beside {
                    Some((k, after, space)) => {
                        let w = Some(map.of_query[k].clone()).filter(|w| !w.is_empty());
                        Marks::Beside(w, after, space)
                    }
                    None => Marks::Beside(None, true, String::new()),
                };
                plans.push(Plan { open: code, close: None, moved: true, marks });
            }
            _ => {}
        }
    }
    if plans.is_empty() {
        return out;
    }
    let evidence = if matches!(links, WordLinks::Rule) {
        None
    } else {
        let mut aligned = same_words(&s, &st);
        if let WordLinks::Model(model) = links {
            // A word written alike on both sides is linked to its copy alone.
            let (fixed_s, fixed_t): (HashSet<usize>, HashSet<usize>) = aligned.iter().copied().unzip();
            let model_links = model.align(&s.text, &st.text).links;
            aligned.extend(
                model_links.into_iter().filter(|(a, b)| !fixed_s.contains(a) && !fixed_t.contains(b)),
            );
        }
        aligned.sort_unstable();
        aligned.dedup();
        Some(Evidence {
            links: aligned,
            shared: shared_spans(source, &s, stored_target, &st),
            source_words: s.words.len(),
            target_words: st.words.len(),
        })
    };
    for plan in &plans {
        let (open, close) = (plan.open, plan.close);
        // How many times the target holds it (where the rewrite put the stored code's
        // place): once to be moved, never to be put in; more is left as it is.
        let held = |role: CodeRole, code: &Code| runs_of(target, role, &code.id).count();
        let held = match close {
            Some(close) => held(CodeRole::PcOpen, open).max(held(CodeRole::PcClose, close)),
            None => held(CodeRole::Ph, open),
        };
        let existing = plan.moved && held == 1;
        let free = if plan.moved { held <= 1 } else { held == 0 };
        let placed = evidence.as_ref().filter(|_| free).and_then(|ev| match (&plan.marks, plan.close) {
            (Marks::Words(Some(marked)), Some(close)) => {
                let span = ev.span(marked)?;
                put_pair(target, (open, close), existing, span, (&pairs, st.words.len()))
            }
            (Marks::Beside(Some(marked), after, space), None) if existing => {
                let span = ev.span(marked)?;
                // Beside words that follow one another only.
                let aligned: HashSet<usize> = ev
                    .links
                    .iter()
                    .filter(|(s, _)| marked.binary_search(s).is_ok())
                    .map(|&(_, t)| t)
                    .collect();
                if !aligned.is_empty() && aligned.len() != span.1 + 1 - span.0 {
                    return None;
                }
                put_placeholder(target, open, existing, (span, *after, space), st.words.len())
            }
            _ => None,
        });
        let placement = match placed {
            Some(text) => CodePlacement { by: PlacedBy::Alignment, target: text },
            None if plan.moved && held > 0 => {
                CodePlacement { by: PlacedBy::Stored, target: where_it_is(target, open, close) }
            }
            None if close.is_none() => continue,
            None => CodePlacement { by: PlacedBy::Nowhere, target: String::new() },
        };
        if let Some(close) = close {
            out.insert(std::ptr::from_ref(close), placement.clone());
        }
        out.insert(std::ptr::from_ref(open), placement);
    }
    out
}

#[cfg(test)]
mod tests;
