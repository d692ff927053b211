//! Rules of Unicode equivalence, scripts other than Latin, and odd segments.

use super::*;

/// docs/matching.md §2: canonically equivalent inputs key alike (NFC), so they match exactly.
///
/// # Errors
/// What the store got wrong.
pub fn nfc_equivalent_queries_match_exactly(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair("Caf\u{e9} au lait", "Milchkaffee")?,
            pair_in("ko", "\u{d55c}\u{ad6d}\u{c5b4}", "en", "Korean")?,
            // Shadda then kasra: NFC puts kasra (ccc 32) first.
            pair_in("ar", "\u{628}\u{651}\u{650}\u{627}\u{628}", "en", "door")?,
        ],
    )?;
    check("e + U+0301", &find(&*store, "Cafe\u{301} au lait", opts())?, &[want(ids[0], 1.0, SE)])?;
    check(
        "Hangul jamo",
        &find_in(
            &*store,
            "ko",
            "\u{1112}\u{1161}\u{11ab}\u{1100}\u{116e}\u{11a8}\u{110b}\u{1165}",
            "en",
            opts(),
        )?,
        &[want(ids[1], 1.0, SE).target("Korean")],
    )?;
    check(
        "Arabic marks in another order",
        &find_in(&*store, "ar", "\u{628}\u{650}\u{651}\u{627}\u{628}", "en", opts())?,
        &[want(ids[2], 1.0, SE).target("door")],
    )?;
    Ok(())
}

/// CJK text (no spaces, short words) and Arabic find their exact and fuzzy matches.
///
/// # Errors
/// What the store got wrong.
pub fn cjk_and_arabic_queries(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair_in("zh", "文件已保存", "en", "File saved")?,
            pair_in("zh", "保存", "en", "Save")?,
            pair_in("ja", "ファイルを開く", "en", "Open the file")?,
            pair_in("ar", "تم حفظ الملف", "en", "The file was saved")?,
        ],
    )?;
    check("zh exact", &find_in(&*store, "zh", "文件已保存", "en", opts())?, &[want(ids[0], 1.0, SE)])?;
    check(
        "zh fuzzy",
        &find_in(&*store, "zh", "文件已保存。", "en", opts())?,
        &[want(ids[0], 1.0 - 1.0 / 6.0, GF)],
    )?;
    check(
        "zh two characters",
        &find_in(&*store, "zh", "保存了", "en", opts().threshold(0.6))?,
        &[want(ids[1], 1.0 - 1.0 / 3.0, GF)],
    )?;
    check(
        "ja fuzzy",
        &find_in(&*store, "ja", "ファイルを開いて", "en", opts())?,
        &[want(ids[2], 1.0 - 2.0 / 8.0, GF)],
    )?;
    check("ar exact", &find_in(&*store, "ar", "تم حفظ الملف", "en", opts())?, &[want(ids[3], 1.0, SE)])?;
    check(
        "ar fuzzy",
        &find_in(&*store, "ar", "تم حفظ الملفات", "en", opts())?,
        &[want(ids[3], 1.0 - 2.0 / 14.0, GF)],
    )?;
    Ok(())
}

/// Nothing panics on input the model accepts: empty and white-space-only segments key
/// alike (the empty key), a codes-only segment is an ordinary entry, an over-long query
/// is an error, and a huge limit is no problem.
///
/// # Errors
/// What the store got wrong.
pub fn empty_and_odd_segments(make: Make<'_>) -> Outcome {
    let store = make();
    let ids = write_each(
        &*store,
        &[
            pair("", "leer")?,
            pair("{1/}", "{1/}")?,
            pair(" \t ", "Leerraum")?,
            pair(r"\{\}\[\] {n,plural,}", "Klammern")?,
        ],
    )?;
    // "" and " \t " both have the empty key; the white space costs " \t " a point, so
    // "" alone is a full answer (no ambiguity).
    check(
        "empty query",
        &find(&*store, "", opts().limit(usize::MAX))?,
        &[want(ids[0], 1.0, SE).target("leer"), want(ids[2], SCORE_NEAR_EXACT, SE).target("Leerraum")],
    )?;
    check("codes only", &find(&*store, "{7/}", opts())?, &[want(ids[1], 1.0, SE).target("{7/}")])?;
    check(
        "literal brackets and an empty plural",
        &find(&*store, r"\{\}\[\] {n,plural,}", opts())?,
        &[want(ids[3], 1.0, SE).target("Klammern")],
    )?;
    let long = "x".repeat(LookupOptions::default().max_query_chars + 1);
    match cmem_core::lookup(&*store, &LookupRequest::new(runs(&long)?, locale("en")?, locale("de")?)) {
        Err(e) => ensure_eq!(e.kind(), ErrorKind::InvalidQuery, "an over-long query"),
        Ok(m) => return Err(Failure::new(format!("an over-long query answered {} matches", m.len()))),
    }
    Ok(())
}
