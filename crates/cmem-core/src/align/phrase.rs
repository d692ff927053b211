//! Phrase pairs consistent with a word alignment (Koehn's extraction, tight spans only):
//! a source stretch of a few words and the target stretch its links cover, when no word
//! inside either is linked outside the other.

/// The phrase pairs of one aligned sentence pair: `(first source word, last source
/// word, first target word, last target word)`, inclusive, at most `max_words` source
/// words and `max_words + 2` target words.
pub(super) fn extract(
    links: &[(usize, usize)],
    n_source: usize,
    max_words: usize,
) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    for s1 in 0..n_source {
        for s2 in s1..n_source.min(s1 + max_words) {
            let mut span: Option<(usize, usize)> = None;
            for &(s, t) in links {
                if (s1..=s2).contains(&s) {
                    span = Some(span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
                }
            }
            let Some((t1, t2)) = span else { continue };
            if t2 - t1 >= max_words + 2 {
                continue;
            }
            if links.iter().any(|&(s, t)| (t1..=t2).contains(&t) && !(s1..=s2).contains(&s)) {
                continue;
            }
            out.push((s1, s2, t1, t2));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consistent_spans_only() {
        // open(0)–öffnen(1), the(1)–die(0)? no: "open the file" / "Datei öffnen":
        // open–öffnen (0,1), file–Datei (2,0); "the" unaligned.
        let links = [(0, 1), (2, 0)];
        let got = extract(&links, 3, 4);
        assert!(got.contains(&(0, 0, 1, 1)));
        assert!(got.contains(&(2, 2, 0, 0)));
        assert!(got.contains(&(0, 2, 0, 1)));
        // "open the" covers öffnen only, and is consistent (the unaligned word rides along).
        assert!(got.contains(&(0, 1, 1, 1)));
        // "the" alone has no link: no phrase.
        assert!(!got.iter().any(|&(a, b, _, _)| a == 1 && b == 1));
        // Crossing: source 0–1 would cover target 0..1 but target 0 is linked to source 2.
        let links = [(0, 1), (1, 0), (2, 0)];
        let got = extract(&links, 3, 4);
        assert!(!got.contains(&(0, 1, 0, 1)));
        assert!(got.contains(&(0, 2, 0, 1)));
    }
}
