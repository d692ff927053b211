//! Where a memory lives, as users write it: a file path, `sqlite:PATH`, `memory:` (a
//! private in-memory memory) or `postgres://…`.

use std::fmt;
use std::path::PathBuf;

use cmem_core::{Error, ErrorKind, Result};

/// A memory's address: a file path, `sqlite:PATH`, `memory:` (a private in-memory
/// memory) or `postgres://…`.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Address {
    /// A SQLite file (`PATH` or `sqlite:PATH`): the embedded default.
    Sqlite(PathBuf),
    /// A private in-memory memory (`memory:`), gone when it is dropped.
    InMemory,
    /// A PostgreSQL database (`postgres://…` or `postgresql://…`).
    Postgres(String),
}

impl Address {
    /// Parses an address.
    ///
    /// ```
    /// use cmem::Address;
    ///
    /// assert_eq!(Address::parse("memory:")?, Address::InMemory);
    /// assert_eq!(Address::parse("sqlite:tm.db")?.path(), Some(std::path::Path::new("tm.db")));
    /// let pg = Address::parse("postgres://ann:secret@db/tm")?;
    /// assert_eq!(pg.to_string(), "postgres://ann:***@db/tm");
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Store`] for an empty address or `sqlite:` without a path.
    pub fn parse(text: &str) -> Result<Address> {
        if text.is_empty() {
            return Err(Error::new(ErrorKind::Store, "empty memory address"));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Address::Postgres(text.to_owned()));
        }
        if text == "memory:" {
            return Ok(Address::InMemory);
        }
        if let Some(path) = text.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(Error::new(ErrorKind::Store, "memory address sqlite: names no file"));
            }
            return Ok(Address::Sqlite(PathBuf::from(path)));
        }
        Ok(Address::Sqlite(PathBuf::from(text)))
    }

    /// The file of a SQLite address.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Address::Sqlite(p) => Some(p),
            _ => None,
        }
    }
}

/// Shows the address as a user wrote it, with any password of a PostgreSQL URL hidden:
/// addresses appear in messages, which must never echo credentials.
impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Sqlite(p) => write!(f, "{}", p.display()),
            Address::InMemory => f.write_str("memory:"),
            Address::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Address({self})")
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let (authority, tail) = rest.split_once('/').map_or((rest, None), |(a, t)| (a, Some(t)));
    let authority = match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    let mut out = format!("{scheme}://{authority}");
    if let Some(tail) = tail {
        out.push('/');
        // A password may also come as a query parameter.
        out.push_str(&tail.split('&').map(redact_param).collect::<Vec<_>>().join("&"));
    }
    out
}

fn redact_param(param: &str) -> String {
    match param.split_once("password=") {
        Some((before, _)) => format!("{before}password=***"),
        None => param.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse() {
        assert_eq!(Address::parse("cmem.db").unwrap(), Address::Sqlite("cmem.db".into()));
        assert_eq!(Address::parse("sqlite:/tmp/x.db").unwrap(), Address::Sqlite("/tmp/x.db".into()));
        assert_eq!(Address::parse("sqlite:///tmp/x.db").unwrap(), Address::Sqlite("/tmp/x.db".into()));
        assert_eq!(Address::parse("memory:").unwrap(), Address::InMemory);
        assert!(matches!(Address::parse("postgresql://h/db").unwrap(), Address::Postgres(_)));
        assert!(Address::parse("").is_err());
        assert!(Address::parse("sqlite:").is_err());
    }

    #[test]
    fn passwords_never_show() {
        let a =
            Address::parse("postgres://ann:s3cret@db.example/tm?sslmode=require&password=s3cret").unwrap();
        let shown = a.to_string();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(shown, "postgres://ann:***@db.example/tm?sslmode=require&password=***");
        assert!(!format!("{a:?}").contains("s3cret"));
    }
}
