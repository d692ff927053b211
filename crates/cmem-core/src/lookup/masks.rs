//! A client's masked text read back against a stored source (docs/matching.md §4, "Client
//! masks").
//!
//! Weblate replaces every span its format and markup checks highlight by `[X<offset>X]`,
//! where the offset is the span's first character in the string it masked. What a mask
//! stood for is not sent, but its place is: the literal text between two masks, and the
//! offsets on both sides, give the length of every mask but the last. A stored source
//! whose text has the query's literal pieces at exactly those places is the string the
//! client masked, whatever its recognizer made of the masked spans. [`MaskedText::unmask`]
//! finds that string, so the lookup runs on it and scores as the unmasked query does;
//! [`Unmasked::remask`] then gives the query's codes the masks as their data, so the
//! adapted target carries each mask where the stored target had the code (with any letters
//! the client's mask cut off a directive still after it: `%ju` masked as `[X20X]u` comes
//! back as `[X20X]u`).
//!
//! ```
//! use cmem_core::lookup::masks::MaskedText;
//! use cmem_core::model::run::surface_text;
//! use cmem_core::{prepare_query, QueryText, Recognizer};
//!
//! let rec = Recognizer::default();
//! let masked = MaskedText::parse("Geometry: [X10X] heads, [X20X]u sectors/track", None).unwrap();
//! let stored = rec.recognize("Geometry: %d heads, %ju sectors/track");
//! let unmasked = masked.unmask(&stored).unwrap();
//! assert_eq!(unmasked.text(), "Geometry: %d heads, %ju sectors/track");
//! let runs = prepare_query(QueryText::Plain(unmasked.text()), Some(&rec))?;
//! let runs = unmasked.remask(runs).unwrap();
//! assert_eq!(surface_text(&runs), "Geometry: [X10X] heads, [X20X]u sectors/track");
//! // Another stored source is not the string the client masked.
//! assert!(masked.unmask(&rec.recognize("Geometry: %d heads, %lu tracks")).is_none());
//! # Ok::<(), cmem_core::Error>(())
//! ```

use crate::model::run::{Code, Run};

/// One piece of a masked text: literal text, or a mask with the offset it names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(Vec<char>),
    Mask { mask: String, offset: usize },
}

/// A text as a client sent it, its masks found (`[X<digits>X]`, spaces allowed before the
/// `]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskedText {
    pieces: Vec<Piece>,
    /// The client cut its (masked) text here: the string it masked may go on.
    cut: bool,
}

/// The string a client masked, read from a stored source, with the place of each mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmasked {
    text: String,
    /// Each mask's span, in characters of `text`, and the mask; an end of `None` when the
    /// client cut its text right after the mask: it ends with the code it starts.
    spans: Vec<(usize, Option<usize>, String)>,
    /// How many masks cover text, or more than one code: a reading whose masks each
    /// stand for one code is the likelier of two.
    loose: usize,
}

impl MaskedText {
    /// The pieces of `text`, or `None` when it holds no mask and was not cut. `cut_at` is
    /// the length in characters at which the client cuts what it sends (Weblate's
    /// tmserver client sends the first 500 characters of the masked text): a text of
    /// exactly that length may be the start of a longer string, and a mask cut in half at
    /// its end is dropped.
    pub fn parse(text: &str, cut_at: Option<usize>) -> Option<MaskedText> {
        let cut = cut_at.is_some_and(|n| text.chars().count() == n);
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("[X") {
            match crate::lookup::query::mask_len(&rest[at..]) {
                Some(len) => {
                    literal.push_str(&rest[..at]);
                    if !literal.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut literal).chars().collect()));
                    }
                    let mask = &rest[at..at + len];
                    let digits: String = mask[2..].chars().take_while(char::is_ascii_digit).collect();
                    let offset = digits.parse().ok()?;
                    pieces.push(Piece::Mask { mask: mask.to_owned(), offset });
                    rest = &rest[at + len..];
                }
                None => {
                    literal.push_str(&rest[..at + 2]);
                    rest = &rest[at + 2..];
                }
            }
        }
        literal.push_str(rest);
        if cut {
            // A mask cut in half (`… [X41`) is no text of the string.
            if let Some(at) = literal.rfind('[') {
                let tail = &literal[at..];
                if is_mask_start(tail) {
                    literal.truncate(at);
                }
            }
        }
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal.chars().collect()));
        }
        let masks = pieces.iter().any(|p| matches!(p, Piece::Mask { .. }));
        (masks || cut).then_some(MaskedText { pieces, cut })
    }

    /// The string the client masked, when `stored` (a stored source's runs) is it: every
    /// literal piece stands in the stored text (codes as their data) where the offsets put
    /// it, and every mask covers something a client masks — whole codes from a code's
    /// start (the last of them cut short only where the literal text after the mask
    /// goes on with it: `%ju` as `[X20X]u`; a code so cut may hold further masks:
    /// `{{name}}` as `[X5X]name[X11X]`), or, where the store kept a directive as
    /// text (`%h`), text with no space that starts with no letter or digit. The stored
    /// text ends where the sent text does, or, when the client cut its text, goes on
    /// past it.
    pub fn unmask(&self, stored: &[Run]) -> Option<Unmasked> {
        let (chars, class) = classify(stored);
        let mut pos = 0usize;
        let mut spans = Vec::new();
        let mut loose = 0usize;
        let mut i = 0;
        while i < self.pieces.len() {
            match &self.pieces[i] {
                Piece::Text(t) => {
                    let is_last = i + 1 == self.pieces.len();
                    if is_last && self.cut {
                        // The client's cut may fall anywhere in the string: its start only.
                        if !chars.get(pos..)?.starts_with(t) {
                            return None;
                        }
                    } else if chars.get(pos..pos + t.len())? != t.as_slice() {
                        return None;
                    }
                    pos += t.len();
                }
                Piece::Mask { mask, offset } => {
                    if *offset != pos {
                        return None;
                    }
                    let len = self.mask_len(i, pos, &chars)?;
                    let glued = matches!(self.pieces.get(i + 1), Some(Piece::Text(_)));
                    // A code the client split into masks and text (`{{name}}` as `[X5X]name[X11X]`)
                    // is entered by its first mask.
                    let within = class.get(pos) == Some(&Class::Code) && {
                        let start = (0..pos).rev().find(|&k| class[k] == Class::CodeStart).unwrap_or(0);
                        spans.iter().any(|&(s, _, _)| s >= start && s < pos)
                    };
                    if !within && !maskable(&chars, &class, pos, len.map(|n| pos + n), glued) {
                        return None;
                    }
                    if let Some(len) = len {
                        let covered = &class[pos..pos + len];
                        let codes = covered.iter().filter(|&&c| c == Class::CodeStart).count();
                        if codes != 1 || covered.contains(&Class::Text) {
                            loose += 1;
                        }
                    }
                    match len {
                        Some(len) => {
                            spans.push((pos, Some(pos + len), mask.clone()));
                            pos += len;
                        }
                        None => spans.push((pos, None, mask.clone())),
                    }
                }
            }
            i += 1;
        }
        if pos != chars.len() && !self.cut {
            return None;
        }
        Some(Unmasked { text: chars.iter().collect(), spans, loose })
    }

    /// The length of the mask at piece `i`, starting at `pos` of `chars`: from the next
    /// mask's offset and the text before it; for the last mask, what the text after it
    /// leaves (the least that lets it follow, when the client cut the text). `Some(None)`
    /// when the client cut its text right after this mask: its length is unknown.
    fn mask_len(&self, i: usize, pos: usize, chars: &[char]) -> Option<Option<usize>> {
        let mut between = 0usize;
        for piece in &self.pieces[i + 1..] {
            match piece {
                Piece::Text(t) => between += t.len(),
                Piece::Mask { offset, .. } => {
                    let len = offset.checked_sub(pos)?.checked_sub(between)?;
                    return (len > 0 && pos + len <= chars.len()).then_some(Some(len));
                }
            }
        }
        let left = chars.len().checked_sub(pos)?;
        if self.cut {
            // The text after the last mask (if any) starts somewhere after it.
            let tail: &[char] = match self.pieces.get(i + 1) {
                Some(Piece::Text(t)) => t,
                _ => &[],
            };
            if tail.is_empty() {
                // Nothing after the mask was sent: it stands for something, how much is
                // unknown; the rest of the string is taken as stored.
                return (left > 0).then_some(None);
            }
            return (1..=left).find(|&len| chars[pos + len..].starts_with(tail)).map(Some);
        }
        let len = left.checked_sub(between)?;
        (len > 0).then_some(Some(len))
    }
}

/// What a character of a stored text is part of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Text,
    CodeStart,
    Code,
}

/// The surface text of `runs` (codes as their data) as characters, each with its class.
/// A choice counts as text.
fn classify(runs: &[Run]) -> (Vec<char>, Vec<Class>) {
    let mut chars = Vec::new();
    let mut class = Vec::new();
    for run in runs {
        let (text, code) = match run {
            Run::Text(t) => (t.clone(), false),
            Run::Plural(_) | Run::Select(_) => {
                (crate::model::run::surface_text(std::slice::from_ref(run)), false)
            }
            other => (crate::model::run::surface_text(std::slice::from_ref(other)), true),
        };
        for (k, c) in text.chars().enumerate() {
            chars.push(c);
            class.push(match (code, k) {
                (false, _) => Class::Text,
                (true, 0) => Class::CodeStart,
                (true, _) => Class::Code,
            });
        }
    }
    (chars, class)
}

/// True when a client could have masked `chars[start..end]` (`end` unknown: `None`):
/// whole codes from a code's start, the last cut short only when literal text follows
/// the mask (`glued`); or text that looks like a directive (no space, no letter or digit
/// first) and no code: a mask over text and a code could not be carried into the
/// target, whose text around the code is the translator's.
fn maskable(chars: &[char], class: &[Class], start: usize, end: Option<usize>, glued: bool) -> bool {
    match class.get(start) {
        Some(Class::CodeStart) => {
            let Some(end) = end else { return true };
            class[start..end].iter().all(|&c| c != Class::Text)
                && (glued || class.get(end).is_none_or(|&c| c != Class::Code))
        }
        Some(Class::Text) => {
            let first = chars[start];
            if first.is_alphanumeric() || first.is_whitespace() {
                return false;
            }
            let Some(end) = end else { return true };
            class[start..end].iter().all(|&c| c == Class::Text)
                && !chars[start..end].iter().any(|c| c.is_whitespace())
        }
        _ => false,
    }
}

/// True when `s` is the start of a mask cut short: `[`, `[X`, `[X12`, `[X12X`, `[X12X `.
fn is_mask_start(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('[') else { return false };
    let Some(rest) = rest.strip_prefix('X') else { return rest.is_empty() };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix('X').unwrap_or(rest);
    rest.trim_start_matches(' ').is_empty()
}

impl Unmasked {
    /// The string the client masked.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How many of the masks cover text, or more than one code. Of several stored
    /// sources a masked text can be read back to, one whose masks each stand for one
    /// code is likelier.
    pub fn loose(&self) -> usize {
        self.loose
    }

    /// `runs` (the query prepared from [`Unmasked::text`]) with each code a mask falls on
    /// given the mask as its data, where the mask starts, and the code's characters past
    /// the mask kept after it (`%ju` under `[X20X]`, which covered `%j`: `[X20X]u`). A code
    /// a mask covers whole after its start is emptied, so the mask stands once in a
    /// target. Such codes take the client-mask type, so adaptation treats the query as a
    /// masked one. Text a mask covers (a span the recognizer left as text) stays text: the
    /// stored target says it the same way. `None` when the runs do not spell the text
    /// (choices, or a recognizer that changed it): the masks cannot be placed.
    pub fn remask(&self, runs: Vec<Run>) -> Option<Vec<Run>> {
        let mut pos = 0usize;
        let mut out = Vec::with_capacity(runs.len());
        for run in runs {
            match run {
                Run::Text(t) => {
                    pos += t.chars().count();
                    out.push(Run::Text(t));
                }
                Run::Ph(c) => out.push(Run::Ph(self.remask_code(c, &mut pos))),
                Run::PcOpen(c) => out.push(Run::PcOpen(self.remask_code(c, &mut pos))),
                Run::PcClose(c) => out.push(Run::PcClose(self.remask_code(c, &mut pos))),
                Run::Sub(c) => out.push(Run::Sub(self.remask_code(c, &mut pos))),
                Run::Plural(_) | Run::Select(_) => return None,
            }
        }
        (pos == self.text.chars().count()).then_some(out)
    }

    fn remask_code(&self, mut code: Code, pos: &mut usize) -> Code {
        let shown = if code.data.is_empty() { &code.equiv } else { &code.data };
        let chars: Vec<char> = shown.chars().collect();
        let (start, end) = (*pos, *pos + chars.len());
        *pos = end;
        // A span open at its end ends with the code it starts.
        let span_end = |s: usize, e: Option<usize>| e.unwrap_or(if s >= start { end } else { s + 1 });
        if !self.spans.iter().any(|&(s, e, _)| s < end && span_end(s, e) > start) {
            return code;
        }
        let mut data = String::new();
        let mut at = start;
        while at < end {
            match self.spans.iter().find(|&&(s, e, _)| s <= at && at < span_end(s, e)) {
                Some((s, e, mask)) => {
                    if *s >= start {
                        data.push_str(mask);
                    }
                    at = span_end(*s, *e).min(end);
                }
                None => {
                    data.push(chars[at - start]);
                    at += 1;
                }
            }
        }
        if data.is_empty() {
            code.equiv.clear();
        }
        code.data = data;
        // A mask's code stands for what the client masked, whatever its kind: adaptation
        // reads it as a client's mask (docs/matching.md §5). An entity keeps its type,
        // which its key is made of.
        if !code.is_entity() {
            code.kind = crate::lookup::query::CLIENT_MASK_TYPE.to_owned();
        }
        code
    }
}

#[cfg(all(test, feature = "recognize"))]
mod tests {
    use super::*;
    use crate::model::recognize::Recognizer;

    fn runs(text: &str) -> Vec<Run> {
        Recognizer::default().recognize(text)
    }

    fn unmask(masked: &str, stored: &str) -> Option<String> {
        MaskedText::parse(masked, None)?.unmask(&runs(stored)).map(|u| u.text)
    }

    #[test]
    fn a_stored_source_with_the_literal_pieces_in_place_is_the_string() {
        let stored = "Geometry: %d heads, %ju sectors/track";
        assert_eq!(unmask("Geometry: [X10X] heads, [X20X]u sectors/track", stored).as_deref(), Some(stored));
        // Markup and a placeholder, masked by position.
        assert_eq!(
            unmask("[X0X]Remove[X9X] [X14X]", "<b>Remove</b> %s").as_deref(),
            Some("<b>Remove</b> %s")
        );
        // Spaces before the closing bracket.
        assert_eq!(unmask("Open [X5X ]", "Open %s").as_deref(), Some("Open %s"));
        // A directive the store keeps as text (`%N` is no printf conversion).
        let stored = vec![Run::text("Name: %N, size: "), Run::Ph(Code::new("1").data("%s"))];
        let masked = MaskedText::parse("Name: [X6X], size: [X16X]", None).unwrap();
        assert_eq!(masked.unmask(&stored).map(|u| u.text).as_deref(), Some("Name: %N, size: %s"));
    }

    #[test]
    fn offsets_that_do_not_fit_are_no_unmasking() {
        // The first mask must start where its offset says.
        assert_eq!(unmask("Open [X9X]", "Open %s"), None);
        // The literal text between masks must be the stored text there.
        assert_eq!(unmask("[X0X]Remove[X9X] [X14X]", "<b>Delete</b> %s"), None);
        // A mask stands for something.
        assert_eq!(unmask("Open [X5X]", "Open "), None);
        // The stored string may not go on after an uncut text.
        assert_eq!(unmask("Open [X5X] now", "Open %s now, please"), None);
        // Masks' lengths are implied by the next offset: `%s` is 2, not 3.
        assert_eq!(unmask("a [X2X] b [X7X]", "a %ld b %s"), None);
        assert_eq!(unmask("a [X2X] b [X8X]", "a %ld b %s").as_deref(), Some("a %ld b %s"));
        // No mask, no cut: nothing to unmask.
        assert!(MaskedText::parse("plain text", None).is_none());
    }

    #[test]
    fn a_mask_covers_whole_codes_or_a_directive_kept_as_text() {
        // Words are no mask's.
        assert_eq!(unmask("[X0X] files", "Open files"), None);
        assert_eq!(unmask("[X0X] files", "%d files").as_deref(), Some("%d files"));
        // A mask does not run from a code into text, nor end inside a code that a
        // mask, not text, goes on with.
        assert_eq!(unmask("[X0X][X3X]: [X7X][X10X]", "%s:%s: %E: %E"), None);
        assert_eq!(unmask("[X0X][X3X][X5X]", "%1%2%3"), None);
        assert_eq!(unmask("[X0X][X3X]: [X7X][X10X]", "<b>%s: %lu</b>").as_deref(), Some("<b>%s: %lu</b>"));
        // Nor runs from text into a code: the target's text is not the source's.
        assert_eq!(unmask("Translate [X10X]", "Translate '%(title)s'"), None);
        // Nor starts inside one, unless a mask entered it.
        assert_eq!(unmask("%[X1X] done", "%s done"), None);
        let stored = vec![Run::text("use "), Run::Ph(Code::new("1").data("{{branch}}")), Run::text(" here")];
        let masked = MaskedText::parse("use [X4X]branch[X12X] here", None).unwrap();
        let u = masked.unmask(&stored).unwrap();
        let codes: Vec<String> =
            u.remask(stored).unwrap().iter().filter_map(|r| r.code()).map(|c| c.data.clone()).collect();
        assert_eq!(codes, ["[X4X]branch[X12X]"]);
    }

    #[test]
    fn a_cut_text_unmasks_to_the_stored_string_it_starts() {
        let stored = runs("Size: %s, owner %s, group %s");
        let whole = Some("Size: %s, owner %s, group %s");
        let masked = "Size: [X6X], owner [X16X], gr";
        let m = MaskedText::parse(masked, Some(masked.chars().count())).unwrap();
        assert_eq!(m.unmask(&stored).map(|u| u.text).as_deref(), whole);
        // A mask cut in half at the end is dropped.
        let masked = "Size: [X6X], owner [X1";
        let m = MaskedText::parse(masked, Some(masked.chars().count())).unwrap();
        assert_eq!(m.unmask(&stored).map(|u| u.text).as_deref(), whole);
        // Not cut (shorter than the client's limit): the whole string must match.
        let m = MaskedText::parse("Size: [X6X], owner [X16X], gr", Some(500)).unwrap();
        assert_eq!(m.unmask(&stored), None);
    }

    #[test]
    fn remasking_puts_each_mask_on_the_code_it_falls_on() {
        let stored = "Geometry: %d heads, %ju sectors/track";
        let u = MaskedText::parse("Geometry: [X10X] heads, [X20X]u sectors/track", None)
            .unwrap()
            .unmask(&runs(stored))
            .unwrap();
        let out = u.remask(runs(stored)).unwrap();
        let codes: Vec<&str> = out.iter().filter_map(|r| r.code()).map(|c| c.data.as_str()).collect();
        assert_eq!(codes, ["[X10X]", "[X20X]u"]);
        // A code that a mask covers after its start is emptied; text under a mask stays.
        let stored = vec![
            Run::text("Save "),
            Run::Ph(Code::new("1").data("<x/>")),
            Run::Ph(Code::new("2").data("%1")),
            Run::text(" and %h now"),
        ];
        let u = MaskedText::parse("Save [X5X] and [X16X] now", None).unwrap().unmask(&stored).unwrap();
        let out = u.remask(stored).unwrap();
        assert!(matches!(&out[1], Run::Ph(c) if c.data == "[X5X]"));
        assert!(matches!(&out[2], Run::Ph(c) if c.data.is_empty() && c.equiv.is_empty()));
        assert_eq!(out[3], Run::text(" and %h now"));
        // Runs that do not spell the text cannot be remasked.
        assert_eq!(u.remask(vec![Run::text("Save")]), None);
    }

    proptest::proptest! {
        /// Any text read against any stored runs: an answer or none, never a panic, and
        /// an answer spells the stored text.
        #[test]
        fn unmasking_never_fails_loudly(
            masked in "([a-c %{}<>]|\\[X[0-9]{1,2}X\\]){0,12}",
            stored in "([a-c %{}<>]|%s|<b>|</b>|\\{x\\}){0,12}",
            cut in proptest::bool::ANY,
        ) {
            let cut_at = cut.then(|| masked.chars().count());
            if let Some(m) = MaskedText::parse(&masked, cut_at) {
                let stored_runs = runs(&stored);
                if let Some(u) = m.unmask(&stored_runs) {
                    proptest::prop_assert_eq!(u.text(), crate::model::run::surface_text(&stored_runs));
                    let _ = u.remask(stored_runs);
                }
            }
        }
    }

    #[test]
    fn a_mask_start_is_recognized() {
        for s in ["[", "[X", "[X1", "[X12X", "[X12X "] {
            assert!(is_mask_start(s), "{s}");
        }
        for s in ["[a", "[X1a", "[X12X]"] {
            assert!(!is_mask_start(s), "{s}");
        }
    }
}
