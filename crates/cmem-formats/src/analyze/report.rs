//! The leverage report's shapes: a text table (`Display`), CSV rows, JSON (`Serialize`)
//! and a standalone HTML page.

use std::fmt;

use super::Analysis;

impl Analysis {
    fn share(&self, words: usize) -> f64 {
        if self.words == 0 {
            0.0
        } else {
            words as f64 * 100.0 / self.words as f64
        }
    }
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.file)?;
        writeln!(
            f,
            "{:<12} {:>9} {:>9} {:>10} {:>7} {:>7} {:>10}",
            "band", "segments", "words", "characters", "words%", "weight", "weighted"
        )?;
        for row in &self.bands {
            writeln!(
                f,
                "{:<12} {:>9} {:>9} {:>10} {:>6.1}% {:>6}% {:>10.1}",
                row.band.label(),
                row.segments,
                row.words,
                row.characters,
                self.share(row.words),
                row.weight,
                row.weighted_words
            )?;
        }
        writeln!(
            f,
            "{:<12} {:>9} {:>9} {:>10} {:>6.1}% {:>7} {:>10.1}",
            "total", self.segments, self.words, self.characters, 100.0, "", self.weighted_words
        )?;
        if self.skipped > 0 {
            let noun = if self.skipped == 1 { "segment" } else { "segments" };
            writeln!(f, "({} {noun} not translatable or without text)", self.skipped)?;
        }
        if self.term_issues > 0 {
            let noun = if self.term_issues == 1 { "segment" } else { "segments" };
            writeln!(
                f,
                "({} {noun} would be filled without the memory's translation of a term their source holds: terminology)",
                self.term_issues
            )?;
        }
        Ok(())
    }
}

/// The first line of [`Analysis::csv_rows`].
pub const CSV_HEADER: &str = "file,band,segments,words,words_percent,characters,weight,weighted_words\n";

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

impl Analysis {
    /// The report as CSV rows (RFC 4180, after [`CSV_HEADER`]): one per band and a
    /// `total` row (its weight empty).
    pub fn csv_rows(&self) -> String {
        let file = csv_field(&self.file);
        let mut out = String::new();
        for row in &self.bands {
            out.push_str(&format!(
                "{file},{},{},{},{:.1},{},{},{:.1}\n",
                csv_field(&row.band.label()),
                row.segments,
                row.words,
                self.share(row.words),
                row.characters,
                row.weight,
                row.weighted_words
            ));
        }
        out.push_str(&format!(
            "{file},total,{},{},100.0,{},,{:.1}\n",
            self.segments, self.words, self.characters, self.weighted_words
        ));
        out
    }
}

/// Text escaped for HTML content and double-quoted attribute values (as XML escapes
/// them: HTML reads the same entities).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    crate::xml::escape_attr_into(s, &mut out);
    out
}

fn html_table(out: &mut String, a: &Analysis) {
    out.push_str(&format!("<section>\n<h2>{}</h2>\n<table>\n", escape(&a.file)));
    out.push_str(
        "<thead><tr><th>band</th><th>segments</th><th>words</th><th>characters</th><th>words %</th>\
         <th>weight</th><th>weighted words</th></tr></thead>\n<tbody>\n",
    );
    for row in &a.bands {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{}%</td><td>{:.1}</td></tr>\n",
            escape(&row.band.label()),
            row.segments,
            row.words,
            row.characters,
            a.share(row.words),
            row.weight,
            row.weighted_words
        ));
    }
    out.push_str(&format!(
        "</tbody>\n<tfoot><tr><th scope=\"row\">total</th><td>{}</td><td>{}</td><td>{}</td><td>100.0</td><td></td><td>{:.1}</td></tr></tfoot>\n</table>\n",
        a.segments, a.words, a.characters, a.weighted_words
    ));
    if a.skipped > 0 {
        out.push_str(&format!("<p>{} segments not translatable or without text.</p>\n", a.skipped));
    }
    if a.term_issues > 0 {
        out.push_str(&format!(
            "<p>{} segments would be filled without the memory's translation of a term their source holds (terminology).</p>\n",
            a.term_issues
        ));
    }
    out.push_str("</section>\n");
}

/// A standalone HTML page (no script, no outside resource) with a table per report:
/// each file's, then the total when there is one.
pub fn html_report(files: &[Analysis], total: Option<&Analysis>) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>cmem leverage report</title>\n<style>\n\
         body{font-family:system-ui,sans-serif;margin:2rem;color:#222}\
         table{border-collapse:collapse;margin-bottom:1.5rem}\
         th,td{border:1px solid #bbb;padding:.25rem .6rem}td{text-align:right}\
         thead th{background:#eee}tfoot{font-weight:bold}\n</style>\n</head>\n<body>\n<h1>Leverage report</h1>\n",
    );
    for a in files {
        html_table(&mut out, a);
    }
    if let Some(t) = total {
        html_table(&mut out, t);
    }
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{analysis, Bands, Counted};
    use crate::Band;

    #[test]
    fn html_escapes_names_and_totals_the_rows() {
        let counted = vec![
            Counted { key: "a".into(), band: Band::Exact, words: 4, characters: 20 },
            Counted { key: "b".into(), band: Band::NoMatch, words: 2, characters: 9 },
        ];
        let a = analysis("<a&b>.xlf", &counted, 0, &Bands::default());
        assert_eq!(a.weighted_words, 4.0 * 0.25 + 2.0);
        let page = html_report(std::slice::from_ref(&a), None);
        assert!(page.contains("<h2>&lt;a&amp;b&gt;.xlf</h2>"), "{page}");
        assert!(page.contains("<tr><th scope=\"row\">100%</th><td>1</td><td>4</td><td>20</td><td>66.7</td><td>25%</td><td>1.0</td></tr>"), "{page}");
        assert!(
            page.contains("<td>6</td><td>29</td><td>100.0</td><td></td><td>3.0</td></tr></tfoot>"),
            "{page}"
        );
        let csv = a.csv_rows();
        assert!(csv.starts_with("<a&b>.xlf,context,0,0,0.0,0,0,0.0\n"), "{csv}");
        assert!(csv.ends_with("<a&b>.xlf,total,2,6,100.0,29,,3.0\n"), "{csv}");
    }
}
