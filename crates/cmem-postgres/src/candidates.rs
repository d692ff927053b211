//! The SQL of fuzzy candidates: the locale and length-window conditions and the word steps
//! (see `PgStore::sql_candidates`).

use crate::cache::KEYS_OF_V;

/// SQL for "the locale in column `col` matches `$n` by the prefix rule" (tags are stored
/// canonically).
pub(crate) fn locale_match(col: &str, n: u8) -> String {
    format!("({col} = ${n} OR {col} LIKE ${n} || '-%' OR ${n} LIKE {col} || '-%')")
}

/// SQL for "the locale in column `col` is of the language of `$n`": what a lookup's
/// candidates are read by. It lets through every locale [`Locale::fit`](cmem_core::Locale::fit) accepts (another
/// region too) and a few it does not (another script); the lookup checks each
/// candidate's variants with `fit` before it scores them as matches.
pub(crate) fn locale_fits(col: &str, n: u8) -> String {
    format!("({col} = split_part(${n}, '-', 1) OR {col} LIKE split_part(${n}, '-', 1) || '-%')")
}

/// SQL for "the variant `v` has a variant `t` in the target locale `$2`".
pub(crate) fn has_target() -> String {
    format!(
        "EXISTS (SELECT 1 FROM tm_variants t WHERE t.entry_id = v.entry_id AND t.id <> v.id AND {})",
        locale_fits("t.locale", 2)
    )
}

/// SQL for "a key of `v` is in the length window [`$3`, `$4`]".
pub(crate) const IN_WINDOW: &str =
    "(char_length(v.plain) BETWEEN $3 AND $4 OR char_length(v.struct_key) BETWEEN $3 AND $4 \
     OR char_length(v.general_key) BETWEEN $3 AND $4)";

/// Every key in the length window (`$1` source and `$2` target locale, `$3` and `$4`
/// the window).
pub(crate) static WINDOW: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT v.entry_id, {KEYS_OF_V} FROM tm_variants v WHERE {} AND {IN_WINDOW} AND {}",
        locale_fits("v.locale", 1),
        has_target()
    )
});

/// The best score found under which the step of either rarest word runs after the pairs.
pub(crate) const RARE_BELOW: f64 = 0.9;

/// How many keys the word step offers at most, most `pg_trgm`-similar first.
pub(crate) const WORD_ROWS: i64 = 100;

/// A word step of database-side candidates (parameters as [`WINDOW`]'s, then `$5` the
/// query key and `$6` how many rows): the keys in the window that contain, with `pairs`,
/// two of the query's four rarest words, one of them among its two rarest (a query of
/// one word: that word), else either of its two rarest words; most `pg_trgm`-similar to
/// the query first.
///
/// Found through the word index (`search_tsv`, GIN), whose posting lists of rare words
/// are short, so few rows are read. How rare a word is comes from the planner's
/// statistics of that column (its most common words and their shares; a word not among
/// them is rarer than all), longer words first among equals. Why pairs first: a key
/// sharing one rare word with the query is often far from it (the same name in another
/// sentence), while the match a translator wants keeps most of the query's words, and
/// pairs read far fewer rows (DESIGN.md §8.6). Why the rarest: a pair of common words ("is", "a")
/// matches thousands of rows. Words are quoted as `tsquery` input wants (`'` doubled,
/// `\` escaped).
pub(crate) fn word_step(pairs: bool, rarest: u8) -> String {
    let terms = if pairs {
        "CASE WHEN (SELECT count(*) FROM lx) < 2 THEN (SELECT string_agg(quoted, ' | ') FROM lx) \
         ELSE (SELECT string_agg('(' || a.quoted || ' & ' || b.quoted || ')', ' | ') FROM lx a JOIN lx b \
         ON a.r < b.r AND a.r <= 2 AND b.r <= 4) END"
            .to_owned()
    } else {
        format!("SELECT string_agg(quoted, ' | ') FROM lx WHERE r <= {rarest}")
    };
    format!(
        "WITH lx AS (SELECT l.lexeme, \
         '''' || replace(replace(l.lexeme, '\\', '\\\\'), '''', '''''') || '''' AS quoted, \
         row_number() OVER (ORDER BY c.freq NULLS FIRST, length(l.lexeme) DESC, l.lexeme) AS r \
         FROM unnest(to_tsvector('simple', $5)) l \
         LEFT JOIN (SELECT s.elem, s.freq FROM pg_stats st, \
         unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) AS s(elem, freq) \
         WHERE st.schemaname = current_schema() AND st.tablename = 'tm_variants' \
         AND st.attname = 'search_tsv') c ON c.elem = l.lexeme), \
         tq AS (SELECT ({terms})::tsquery AS q) \
         SELECT v.entry_id, {KEYS_OF_V} FROM tm_variants v, tq \
         WHERE v.search_tsv @@ tq.q AND {} AND {IN_WINDOW} AND {} \
         ORDER BY similarity(v.plain, $5) DESC, v.entry_id LIMIT $6",
        locale_fits("v.locale", 1),
        has_target()
    )
}

/// [`word_step`]: pairs of rare words.
pub(crate) static PAIR_STEP: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| word_step(true, 4));

/// [`word_step`]: either of the two rarest words.
pub(crate) static RARE_STEP: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| word_step(false, 2));

/// [`word_step`]: any of the four rarest words.
pub(crate) static WIDE_STEP: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| word_step(false, 4));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_steps_read_the_words_and_their_statistics() {
        assert!(WORD_STEP_TABLES.iter().all(|t| PAIR_STEP.contains(t) && RARE_STEP.contains(t)));
    }

    /// What the word steps read: the variants, their word column and its statistics.
    const WORD_STEP_TABLES: [&str; 3] = ["tm_variants", "search_tsv", "pg_stats"];
}
