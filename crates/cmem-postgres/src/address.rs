//! Where a memory lives: the connection settings from its address, the environment and
//! the password file, and the address as messages show it (password left out).
//!
//! What libpq users expect, so that `cmem --memory postgres://host/db` works where `psql`
//! does: a setting missing from the address comes from `PGHOST`, `PGPORT`,
//! `PGDATABASE`, `PGUSER` (else `USER`) and `PGPASSWORD`, and a password still missing
//! from the password file (`PGPASSFILE`, else `~/.pgpass`), whose first line matching
//! host, port, database and user wins (`*` matches anything; `\` escapes `:` and `\`).

use std::str::FromStr;

use cmem_core::{Error, ErrorKind, Result};
use postgres::config::Host;

/// The address `url` with its password left out: what messages name.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // A key=value connection string: leave out any password=… pair.
        return url
            .split_whitespace()
            .map(|kv| if kv.starts_with("password=") { "password=***" } else { kv })
            .collect::<Vec<_>>()
            .join(" ");
    };
    let (auth, host) = match rest.rsplit_once('@') {
        Some((auth, host)) => (Some(auth), host),
        None => (None, rest),
    };
    let mut host = host.to_owned();
    if let Some(q) = host.find('?') {
        let (path, query) = host.split_at(q);
        let query: Vec<&str> = query[1..]
            .split('&')
            .map(|kv| if kv.starts_with("password=") { "password=***" } else { kv })
            .collect();
        host = format!("{path}?{}", query.join("&"));
    }
    match auth {
        Some(auth) => {
            let user = auth.split_once(':').map_or(auth, |(u, _)| u);
            let hidden = if auth.contains(':') { ":***" } else { "" };
            format!("{scheme}://{user}{hidden}@{host}")
        }
        None => format!("{scheme}://{host}"),
    }
}

/// The connection settings of `url` (`name`: the address as messages show it), completed
/// from the environment and the password file.
///
/// # Errors
/// [`ErrorKind::Store`] for an address that does not parse.
pub(crate) fn config(url: &str, name: &str) -> Result<postgres::Config> {
    let mut config = postgres::Config::from_str(url).map_err(|e| {
        Error::with_source(ErrorKind::Store, format!("postgres store {name}: invalid address"), e)
    })?;
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if config.get_hosts().is_empty() {
        config.host(&env("PGHOST").unwrap_or_else(|| "localhost".to_owned()));
    }
    if config.get_ports().is_empty() {
        if let Some(port) = env("PGPORT").and_then(|p| p.parse::<u16>().ok()) {
            config.port(port);
        }
    }
    if config.get_user().is_none() {
        if let Some(user) = env("PGUSER").or_else(|| env("USER")) {
            config.user(&user);
        }
    }
    if config.get_dbname().is_none() {
        if let Some(db) = env("PGDATABASE") {
            config.dbname(&db);
        }
    }
    if config.get_password().is_none() {
        if let Some(pw) = env("PGPASSWORD") {
            config.password(pw);
        } else if let Some(pw) = pgpass_password(&config) {
            config.password(pw);
        }
    }
    Ok(config)
}

/// The password the password file gives for `config`'s first host, if any.
fn pgpass_password(config: &postgres::Config) -> Option<String> {
    let path = match std::env::var_os("PGPASSFILE") {
        Some(p) => std::path::PathBuf::from(p),
        None => std::path::PathBuf::from(std::env::var_os("HOME")?).join(".pgpass"),
    };
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first()? {
        Host::Tcp(h) => h.clone(),
        Host::Unix(_) => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432).to_string();
    let user = config.get_user()?;
    let db = config.get_dbname().unwrap_or(user);
    pgpass_lookup(&text, [&host, &port, db, user])
}

/// The password of the first line of a password file matching `want` (host, port,
/// database, user).
fn pgpass_lookup(text: &str, want: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields: Vec<String> = vec![String::new()];
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let (Some(next), Some(last)) = (chars.next(), fields.last_mut()) {
                        last.push(next);
                    }
                }
                ':' if fields.len() < 5 => fields.push(String::new()),
                c => {
                    if let Some(last) = fields.last_mut() {
                        last.push(c);
                    }
                }
            }
        }
        if fields.len() == 5 && fields[..4].iter().zip(want).all(|(f, w)| f == "*" || f == w) {
            return fields.pop();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{pgpass_lookup, redact};

    #[test]
    fn passwords_are_left_out() {
        assert_eq!(
            redact("postgres://ann:s3cret@db.example:5433/tm"),
            "postgres://ann:***@db.example:5433/tm"
        );
        assert_eq!(redact("postgresql://ann@h/tm"), "postgresql://ann@h/tm");
        assert_eq!(redact("postgres://h/tm?user=ann&password=x"), "postgres://h/tm?user=ann&password=***");
        assert_eq!(redact("host=h user=ann password=x dbname=tm"), "host=h user=ann password=*** dbname=tm");
        assert_eq!(redact("postgres://a:b@c@h/tm"), "postgres://a:***@h/tm");
    }

    #[test]
    fn the_password_file_is_read_as_libpq_reads_it() {
        let file = "# comment\nother:5432:*:ann:no\ndb.example:*:tm:ann:pa\\:ss\n*:*:*:*:any\n";
        assert_eq!(pgpass_lookup(file, ["db.example", "5433", "tm", "ann"]).as_deref(), Some("pa:ss"));
        assert_eq!(pgpass_lookup(file, ["other", "5432", "x", "bob"]).as_deref(), Some("any"));
        assert_eq!(pgpass_lookup("h:1:d:u:p\n", ["h", "2", "d", "u"]), None);
    }
}
