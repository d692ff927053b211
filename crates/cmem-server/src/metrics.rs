//! `/metrics` in Prometheus' text format: requests by route, method and status, their
//! latency as histograms, and what the memory holds.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds: a lookup on a warm index takes
/// milliseconds, a large batch or write seconds.
const BOUNDS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

#[derive(Debug, Default, Clone)]
struct Route {
    by_status: BTreeMap<u16, u64>,
    buckets: [u64; BOUNDS.len()],
    count: u64,
    sum: f64,
}

/// What the server counts.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    routes: Mutex<BTreeMap<(String, String), Route>>,
}

impl Metrics {
    /// Counts one answered request.
    pub(crate) fn record(&self, route: &str, method: &str, status: u16, took: Duration) {
        let Ok(mut routes) = self.routes.lock() else { return };
        let r = routes.entry((route.to_owned(), method.to_owned())).or_default();
        *r.by_status.entry(status).or_default() += 1;
        let secs = took.as_secs_f64();
        for (bucket, bound) in r.buckets.iter_mut().zip(BOUNDS) {
            if secs <= bound {
                *bucket += 1;
            }
        }
        r.count += 1;
        r.sum += secs;
    }

    /// The text exposition, with the memory's entry count.
    pub(crate) fn render(&self, entries: Option<u64>, jobs: &BTreeMap<&'static str, u64>) -> String {
        let routes = self.routes.lock().map(|r| r.clone()).unwrap_or_default();
        let mut out = String::new();
        out.push_str("# HELP cmem_http_requests_total Requests answered, by route, method and status.\n");
        out.push_str("# TYPE cmem_http_requests_total counter\n");
        for ((route, method), r) in &routes {
            for (status, n) in &r.by_status {
                let _ = writeln!(
                    out,
                    "cmem_http_requests_total{{route=\"{}\",method=\"{method}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
        }
        out.push_str("# HELP cmem_http_request_duration_seconds Time to answer, by route and method.\n");
        out.push_str("# TYPE cmem_http_request_duration_seconds histogram\n");
        for ((route, method), r) in &routes {
            let labels = format!("route=\"{}\",method=\"{method}\"", escape(route));
            for (n, bound) in r.buckets.iter().zip(BOUNDS) {
                let _ =
                    writeln!(out, "cmem_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {n}");
            }
            let _ = writeln!(
                out,
                "cmem_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                r.count
            );
            let _ = writeln!(out, "cmem_http_request_duration_seconds_sum{{{labels}}} {}", r.sum);
            let _ = writeln!(out, "cmem_http_request_duration_seconds_count{{{labels}}} {}", r.count);
        }
        if let Some(entries) = entries {
            out.push_str(
                "# HELP cmem_memory_entries Entries in the memory (and so in its candidate index).\n",
            );
            out.push_str("# TYPE cmem_memory_entries gauge\n");
            let _ = writeln!(out, "cmem_memory_entries {entries}");
        }
        out.push_str("# HELP cmem_import_jobs Import jobs since the server started, by status.\n");
        out.push_str("# TYPE cmem_import_jobs gauge\n");
        for status in ["running", "succeeded", "failed", "cancelled"] {
            let _ = writeln!(
                out,
                "cmem_import_jobs{{status=\"{status}\"}} {}",
                jobs.get(status).copied().unwrap_or(0)
            );
        }
        out
    }
}

/// A label value as the format wants it: backslash, quote and newline escaped.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative() {
        let m = Metrics::default();
        m.record("/v1/lookup", "POST", 200, Duration::from_millis(3));
        m.record("/v1/lookup", "POST", 200, Duration::from_millis(30));
        m.record("/v1/lookup", "POST", 400, Duration::from_micros(100));
        let text = m.render(Some(7), &BTreeMap::from([("running", 2)]));
        let line = |prefix: &str| {
            text.lines()
                .find(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("{prefix}\n{text}"))
                .to_owned()
        };
        assert!(line("cmem_http_requests_total{route=\"/v1/lookup\",method=\"POST\",status=\"200\"}")
            .ends_with(" 2"));
        assert!(line("cmem_http_requests_total{route=\"/v1/lookup\",method=\"POST\",status=\"400\"}")
            .ends_with(" 1"));
        let le = |b: &str| {
            line(&format!("cmem_http_request_duration_seconds_bucket{{route=\"/v1/lookup\",method=\"POST\",le=\"{b}\"}}"))
        };
        assert!(le("0.001").ends_with(" 1"));
        assert!(le("0.005").ends_with(" 2"));
        assert!(le("0.05").ends_with(" 3"));
        assert!(le("+Inf").ends_with(" 3"));
        assert!(line("cmem_memory_entries").ends_with(" 7"));
        assert!(line("cmem_import_jobs{status=\"running\"}").ends_with(" 2"));
        assert!(line("cmem_import_jobs{status=\"failed\"}").ends_with(" 0"));
        assert_eq!(escape("a\"b\\"), "a\\\"b\\\\");
    }
}
