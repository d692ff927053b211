//! Per-client rate limits: a token bucket for each bearer token (or, without one, each
//! client address); a request that finds its bucket empty gets `429` with
//! `Retry-After`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many requests a client may make: `per_second` on average, `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Requests per second, on average.
    pub per_second: f64,
    /// Requests that may come at once after a quiet spell (at least 1).
    pub burst: f64,
}

impl RateLimit {
    /// `per_second` on average, twice that at once.
    pub fn per_second(per_second: f64) -> RateLimit {
        RateLimit { per_second, burst: (per_second * 2.0).max(1.0) }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// The buckets of every client seen.
#[derive(Debug)]
pub(crate) struct Limiter {
    limit: RateLimit,
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// Past this many clients, buckets that have refilled are forgotten (they hold nothing a
/// new bucket would not).
const PRUNE_AT: usize = 10_000;

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Limiter {
        Limiter { limit, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one request from `client`'s bucket; `Err(wait)` when it is empty, with the
    /// time until it holds one again.
    pub(crate) fn take(&self, client: &str, now: Instant) -> Result<(), Duration> {
        let RateLimit { per_second, burst } = self.limit;
        let Ok(mut buckets) = self.buckets.lock() else {
            // A panic elsewhere while holding the lock: serving beats limiting.
            return Ok(());
        };
        if buckets.len() >= PRUNE_AT {
            buckets.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.last).as_secs_f64() * per_second < burst
            });
        }
        let bucket = buckets.entry(client.to_owned()).or_insert(Bucket { tokens: burst, last: now });
        let refill = now.saturating_duration_since(bucket.last).as_secs_f64() * per_second;
        bucket.tokens = (bucket.tokens + refill).min(burst);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / per_second.max(f64::MIN_POSITIVE)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_refill_at_the_rate() {
        let limiter = Limiter::new(RateLimit { per_second: 2.0, burst: 3.0 });
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.take("a", t0).is_ok());
        }
        let wait = limiter.take("a", t0).unwrap_err();
        assert!((wait.as_secs_f64() - 0.5).abs() < 1e-9, "{wait:?}");
        // Another client has its own bucket.
        assert!(limiter.take("b", t0).is_ok());
        // Half a second later one request is back, not two.
        let t1 = t0 + Duration::from_millis(500);
        assert!(limiter.take("a", t1).is_ok());
        assert!(limiter.take("a", t1).is_err());
        // A long pause refills only up to the burst.
        let t2 = t1 + Duration::from_secs(60);
        for _ in 0..3 {
            assert!(limiter.take("a", t2).is_ok());
        }
        assert!(limiter.take("a", t2).is_err());
    }
}
