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

/// Requests with a bad token per client address: past the allowance in a minute, the
/// address is shut out for a minute (a token guessed at, or a client left with a revoked
/// one, costs the server a hash and a store read per request).
#[derive(Debug)]
pub(crate) struct BadTokens {
    per_minute: u32,
    clients: Mutex<HashMap<String, Strikes>>,
}

#[derive(Debug, Clone, Copy)]
struct Strikes {
    count: u32,
    since: Instant,
    shut_until: Option<Instant>,
}

/// The window strikes are counted in, and how long an address is then shut out.
const STRIKE_WINDOW: Duration = Duration::from_secs(60);

impl BadTokens {
    pub(crate) fn new(per_minute: u32) -> BadTokens {
        BadTokens { per_minute, clients: Mutex::new(HashMap::new()) }
    }

    /// `Err(wait)` while `client` is shut out.
    pub(crate) fn check(&self, client: &str, now: Instant) -> Result<(), Duration> {
        let Ok(clients) = self.clients.lock() else { return Ok(()) };
        match clients.get(client).and_then(|s| s.shut_until) {
            Some(until) if until > now => Err(until - now),
            _ => Ok(()),
        }
    }

    /// Counts a request of `client` refused for its token; true when this one shuts
    /// the client out.
    pub(crate) fn strike(&self, client: &str, now: Instant) -> bool {
        let Ok(mut clients) = self.clients.lock() else { return false };
        if clients.len() >= PRUNE_AT {
            // Never forget a client still shut out: cycling addresses must not unblock it.
            clients.retain(|_, s| {
                now.saturating_duration_since(s.since) < STRIKE_WINDOW
                    || s.shut_until.is_some_and(|u| u > now)
            });
        }
        let s =
            clients.entry(client.to_owned()).or_insert(Strikes { count: 0, since: now, shut_until: None });
        if now.saturating_duration_since(s.since) >= STRIKE_WINDOW {
            *s = Strikes { count: 0, since: now, shut_until: None };
        }
        s.count += 1;
        if s.count > self.per_minute && s.shut_until.is_none_or(|u| u <= now) {
            s.shut_until = Some(now + STRIKE_WINDOW);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_tokens_shut_an_address_out_for_a_minute() {
        let guard = BadTokens::new(3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(!guard.strike("a", t0));
            assert!(guard.check("a", t0).is_ok());
        }
        assert!(guard.strike("a", t0), "the fourth in a minute shuts it out");
        assert!(guard.check("a", t0).is_err());
        assert!(guard.check("b", t0).is_ok(), "another address is not");
        assert!(!guard.strike("a", t0), "shut out once, logged once");
        let later = t0 + STRIKE_WINDOW + Duration::from_secs(1);
        assert!(guard.check("a", later).is_ok());
        assert!(!guard.strike("a", later), "a new window starts counting again");
    }

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
