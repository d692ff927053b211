//! Bearer tokens: [`Scope`]s, and [`Tokens`], kept hashed in the memory's own metadata
//! so that the CLI (`cmem token create`) and a running server share them.
//!
//! A token is `cmem_` and 64 hexadecimal digits (256 random bits from the operating
//! system). Only its SHA-256 is stored: a copy of the memory does not leak working
//! tokens. Its id, the first 12 digits of that hash, names it in lists and revocations.
//!
//! ```
//! use cmem::{Memory, OpenOptions};
//! use cmem_server::{Scope, Tokens};
//!
//! let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
//! let (secret, record) = Tokens::create(&memory, Scope::Write, "ci")?;
//! assert_eq!(Tokens::verify(&memory, &secret)?.map(|r| r.scope), Some(Scope::Write));
//! assert!(Tokens::revoke(&memory, &record.id)?);
//! assert_eq!(Tokens::verify(&memory, &secret)?, None);
//! # Ok::<(), cmem::Error>(())
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use cmem::{Error, ErrorKind, Memory, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The memory-metadata key holding the token records (a JSON array).
pub const TOKENS_META: &str = "server.tokens";

/// What a token may do; each scope includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Lookups, search, entries, statistics.
    Read,
    /// Reads, and adding and deleting entries.
    Write,
    /// Everything, including what later administration routes add.
    Admin,
}

impl Scope {
    /// The scope's name: `read`, `write` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Write => "write",
            Scope::Admin => "admin",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scope {
    type Err = Error;
    fn from_str(s: &str) -> Result<Scope> {
        match s {
            "read" => Ok(Scope::Read),
            "write" => Ok(Scope::Write),
            "admin" => Ok(Scope::Admin),
            _ => Err(Error::new(
                ErrorKind::InvalidQuery,
                format!("unknown token scope {s:?} (read, write or admin)"),
            )),
        }
    }
}

/// A stored token: everything but the secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// The first 12 hexadecimal digits of the hash: names the token.
    pub id: String,
    /// What it may do.
    pub scope: Scope,
    /// A label chosen at creation (who or what uses it).
    pub name: String,
    /// When it was created, in seconds since 1970-01-01 UTC.
    pub created_unix: u64,
    /// SHA-256 of the token, hexadecimal.
    pub sha256: String,
}

impl TokenRecord {
    /// When it was created, as an RFC 3339 time in UTC: `2024-06-11T12:00:00Z`.
    ///
    /// ```
    /// use cmem::{Memory, OpenOptions};
    /// use cmem_server::{Scope, Tokens};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let (_, mut record) = Tokens::create(&memory, Scope::Read, "ci")?;
    /// record.created_unix = 1_718_107_200;
    /// assert_eq!(record.created(), "2024-06-11T12:00:00Z");
    /// # Ok::<(), cmem::Error>(())
    /// ```
    pub fn created(&self) -> String {
        crate::time::rfc3339_utc(self.created_unix)
    }
}

/// The token operations over a memory's metadata.
#[derive(Debug, Clone, Copy)]
pub struct Tokens;

impl Tokens {
    /// Creates a token of `scope` labelled `name`; returns the secret (shown once, never
    /// stored) and its record.
    ///
    /// # Errors
    /// The operating system gave no random bytes, or the memory cannot keep metadata or
    /// failed.
    pub fn create(memory: &Memory, scope: Scope, name: &str) -> Result<(String, TokenRecord)> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| Error::new(ErrorKind::Store, format!("token: no random bytes: {e}")))?;
        let secret = format!("cmem_{}", hex(&bytes));
        let sha256 = hash(&secret);
        let record = TokenRecord {
            id: sha256[..12].to_owned(),
            scope,
            name: name.to_owned(),
            created_unix: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            sha256,
        };
        let mut all = Tokens::list(memory)?;
        all.push(record.clone());
        save(memory, &all)?;
        Ok((secret, record))
    }

    /// Every stored token, oldest first.
    ///
    /// # Errors
    /// A store failure, or stored records that are not valid JSON (named).
    pub fn list(memory: &Memory) -> Result<Vec<TokenRecord>> {
        match memory.meta(TOKENS_META)? {
            None => Ok(Vec::new()),
            Some(text) => serde_json::from_str(&text).map_err(|e| {
                Error::new(ErrorKind::Corrupt, format!("token records ({TOKENS_META}) are damaged: {e}"))
            }),
        }
    }

    /// Removes the token whose id is `id`; false when there is none.
    ///
    /// # Errors
    /// As [`list`](Self::list), or the memory cannot be written.
    pub fn revoke(memory: &Memory, id: &str) -> Result<bool> {
        let mut all = Tokens::list(memory)?;
        let before = all.len();
        all.retain(|r| r.id != id);
        if all.len() == before {
            return Ok(false);
        }
        save(memory, &all)?;
        Ok(true)
    }

    /// The record of `secret`, when it is a stored token.
    ///
    /// # Errors
    /// As [`list`](Self::list).
    pub fn verify(memory: &Memory, secret: &str) -> Result<Option<TokenRecord>> {
        let sha256 = hash(secret);
        Ok(Tokens::list(memory)?.into_iter().find(|r| r.sha256 == sha256))
    }
}

fn save(memory: &Memory, all: &[TokenRecord]) -> Result<()> {
    let text = serde_json::to_string(all)
        .map_err(|e| Error::new(ErrorKind::Store, format!("token records: {e}")))?;
    memory.set_meta(TOKENS_META, &text)
}

/// The id a token has, or would have: the first 12 hex digits of its hash.
pub(crate) fn id_of(secret: &str) -> String {
    hash(secret)[..12].to_owned()
}

fn hash(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cmem::OpenOptions;

    #[test]
    fn tokens_are_stored_hashed_and_revocable() {
        let memory = Memory::open_with("memory:", &OpenOptions::new().create(true)).unwrap();
        let (a, ra) = Tokens::create(&memory, Scope::Read, "reader").unwrap();
        let (b, rb) = Tokens::create(&memory, Scope::Admin, "ops").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("cmem_") && a.len() == 69, "{a}");
        let stored = memory.meta(TOKENS_META).unwrap().unwrap();
        assert!(!stored.contains(&a[5..]) && !stored.contains(&b[5..]), "a secret was stored");
        assert_eq!(Tokens::verify(&memory, &a).unwrap(), Some(ra.clone()));
        assert_eq!(Tokens::verify(&memory, "cmem_0000").unwrap(), None);
        assert_eq!(Tokens::list(&memory).unwrap(), vec![ra.clone(), rb.clone()]);
        assert!(Tokens::revoke(&memory, &ra.id).unwrap());
        assert!(!Tokens::revoke(&memory, &ra.id).unwrap());
        assert_eq!(Tokens::verify(&memory, &a).unwrap(), None);
        assert_eq!(Tokens::verify(&memory, &b).unwrap().map(|r| r.scope), Some(Scope::Admin));
    }

    #[test]
    fn scopes_order_and_parse() {
        assert!(Scope::Read < Scope::Write && Scope::Write < Scope::Admin);
        assert_eq!("write".parse::<Scope>().unwrap(), Scope::Write);
        assert!("root".parse::<Scope>().unwrap_err().to_string().contains("\"root\""));
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
