//! Times as the server's records write them: a revision's, a token's creation.

/// Seconds since the Unix epoch as an RFC 3339 time in UTC: `2024-06-11T12:00:00Z`.
pub(crate) fn rfc3339_utc(unix: u64) -> String {
    let days = unix / 86_400;
    let secs = unix % 86_400;
    // The proleptic Gregorian date of a day count (H. Hinnant, "chrono-Compatible
    // Low-Level Date Algorithms", civil_from_days), for days on or after 1970-01-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", secs / 3_600, secs % 3_600 / 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_rfc_3339() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_718_107_200), "2024-06-11T12:00:00Z");
        assert_eq!(rfc3339_utc(4_102_444_799), "2099-12-31T23:59:59Z");
    }
}
