//! The PostgreSQL store's side of core's [`IndexCache`](cmem_core::imp::IndexCache): its
//! change log read in one repeatable-read snapshot ([`ChangeLog`]) and its index files in
//! the directory the process names ([`IndexFiles`], DESIGN.md §8.4).
//!
//! How the index learns of other writers: every write transaction bumps the change
//! counter in the meta table (see [`META_CHANGES`](crate::migrate::META_CHANGES)); a
//! lookup reads it with its entries (see [`crate::scope`]) and brings the index up to
//! date when it differs from the value the index was loaded at, from the entries past the
//! highest it saw and the deleted or re-keyed ones (`tm_changes`, filled by triggers), in
//! one snapshot with the counter: the index is exactly the memory at that counter, and a
//! lookup sees every write committed before it began.
//!
//! Index files are named after the memory's token, the cluster and the database, and
//! record the cluster's timeline: a copy of the database, or one restored to an earlier
//! point in time, does not take another's files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cmem_core::imp::Keys;
use cmem_core::index::gram_index::Bytes;
use cmem_core::index::index_cache::{Arg, ChangeLog, Identity, IndexFiles, VariantRow};
use cmem_core::store::schema::{META_MEMORY_TOKEN, META_TABLE};
use cmem_core::{Error, Result};
use postgres::types::ToSql;
use postgres::{Client, Row, Transaction};

use crate::error::{corrupt, Context};

pub(crate) use cmem_core::index::index_cache::sql::KEYS_OF_V;

/// The index directory of [`PgOptions::index_dir`](crate::PgOptions::index_dir).
pub(crate) struct Dir<'a>(pub(crate) &'a Path);

impl IndexFiles for Dir<'_> {
    fn path(&self, identity: &Identity, tag: &str) -> PathBuf {
        // Tokens are hexadecimal, numbers digits and tags letters, digits and hyphens;
        // anything else is left out of the name rather than trusted as a path.
        let safe = |s: &str| s.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>();
        self.0.join(format!("cmem-{}-gix-{}", safe(&identity.name), safe(tag)))
    }

    fn read(&self, path: &Path) -> Option<Bytes> {
        // Read whole rather than mapped: this crate has no `unsafe`, and a process that
        // keeps an index keeps it resident anyway.
        Some(Arc::new(std::fs::read(path).ok()?))
    }

    /// `NAME@TIMELINE` (`any`: unknown): the timelines are compared only when both the
    /// file and this process know them, so processes whose roles see different things
    /// share a file rather than replace each other's.
    fn owns(&self, identity: &Identity, header: &str) -> bool {
        let (Some((name, theirs)), Some((_, ours))) =
            (header.rsplit_once('@'), identity.header.rsplit_once('@'))
        else {
            return false;
        };
        name == identity.name && (ours == "any" || theirs == "any" || theirs == ours)
    }
}

/// The change log's arguments as the driver binds them.
fn bind<'a>(args: &'a [Arg<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter()
        .map(|a| match a {
            Arg::Int(i) => i as &(dyn ToSql + Sync),
            Arg::Text(t) => t as &(dyn ToSql + Sync),
        })
        .collect()
}

/// The change log of the memory `name`, read in one repeatable-read snapshot.
pub(crate) struct Log<'c> {
    tx: Transaction<'c>,
    name: &'c str,
}

impl<'c> Log<'c> {
    /// Begins the snapshot on `client`.
    pub(crate) fn begin(client: &'c mut Client, name: &'c str) -> Result<Log<'c>> {
        Ok(Log { tx: crate::rows::snapshot(client, name, "loading keys")?, name })
    }

    fn rows(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Row>> {
        self.tx.query(sql, &bind(args)).ctx(self.name, "reading the change log")
    }

    /// The one text `sql` selects, read in a savepoint; `None` when the statement fails
    /// (and is rolled back to the savepoint, so the snapshot stays usable) or selects
    /// nothing.
    fn optional_text(&mut self, sql: &str) -> Option<String> {
        let mut savepoint = self.tx.transaction().ok()?;
        match savepoint.query_opt(sql, &[]) {
            Ok(row) => {
                let text = row.and_then(|r| r.try_get(0).ok());
                savepoint.commit().ok()?;
                text
            }
            Err(_) => {
                let _ = savepoint.rollback();
                None
            }
        }
    }
}

/// A [`VariantRow`]'s columns.
fn read_variant(r: &Row) -> std::result::Result<(i64, Option<&str>, Option<Keys>), postgres::Error> {
    let keys = match r.len() >= 5 {
        true => r.try_get::<_, Option<String>>(2)?,
        false => None,
    };
    let keys = match keys {
        Some(plain) => Some(Keys { plain, structural: r.try_get(3)?, generalized: r.try_get(4)? }),
        None => None,
    };
    Ok((r.try_get(0)?, r.try_get(1)?, keys))
}

impl ChangeLog for Log<'_> {
    fn counter(&mut self) -> Result<i64> {
        crate::rows::read_changes(&mut self.tx, self.name)
    }

    fn integers(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<i64>> {
        let rows = self.rows(sql, args)?;
        let row = rows.first().map(|r| (0..r.len()).map(|i| r.try_get(i)).collect());
        row.unwrap_or(Ok(Vec::new())).ctx(self.name, "reading the change log")
    }

    fn variants(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
        row: &mut dyn FnMut(VariantRow<'_>) -> Result<()>,
    ) -> Result<()> {
        use postgres::fallible_iterator::FallibleIterator;
        let what = "reading the change log";
        // Streamed, not collected: an index built from ten million variants reads them
        // one at a time (DESIGN.md §7.4).
        let mut rows = self.tx.query_raw(sql, bind(args)).ctx(self.name, what)?;
        while let Some(r) = rows.next().ctx(self.name, what)? {
            let (id, tag, keys) = read_variant(&r).ctx(self.name, what)?;
            row(VariantRow { id, tag, keys })?;
        }
        Ok(())
    }

    /// The memory's token, the cluster's system identifier and the database's number
    /// name it (a copy made with `CREATE DATABASE … TEMPLATE` or restored elsewhere
    /// carries the token but gets another number or cluster); the cluster's timeline is
    /// recorded beside them (a database restored to an earlier point in time continues
    /// on a new one, and refuses files that may know entries it no longer has). `None`
    /// without a token, or when the server withholds its identifier or the database's
    /// number (a role or managed service that does): then every process builds its
    /// index. A server that withholds only the timeline (`pg_control_checkpoint` needs
    /// `wal_level=logical` on some managed services) gets files without that check.
    fn identity(&mut self) -> Result<Option<Identity>> {
        let what = "reading the memory's identity";
        let sql = format!("SELECT value FROM {META_TABLE} WHERE key = $1");
        let row = self.tx.query_opt(&sql, &[&META_MEMORY_TOKEN]).ctx(self.name, what)?;
        let Some(token) = row.map(|r| r.try_get::<_, String>(0)).transpose().ctx(self.name, what)? else {
            return Ok(None);
        };
        let Some(place) = self.optional_text(
            "SELECT s.system_identifier::text || '-' || d.oid::text FROM pg_control_system() s, \
             pg_database d WHERE d.datname = current_database()",
        ) else {
            return Ok(None);
        };
        let timeline = self.optional_text("SELECT timeline_id::text FROM pg_control_checkpoint()");
        let name = format!("{token}-{place}");
        let header = format!("{name}@{}", timeline.as_deref().unwrap_or("any"));
        Ok(Some(Identity { name, header }))
    }

    fn corrupt(&self, what: String, e: Error) -> Error {
        corrupt(self.name, what, e)
    }

    fn finish(self) -> Result<()> {
        self.tx.commit().ctx(self.name, "loading keys")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_this_memorys_on_its_timeline_or_where_one_side_does_not_know_it() {
        let dir = Dir(Path::new("."));
        let id = |timeline: &str| Identity {
            name: "tok-71-16384".into(),
            header: format!("tok-71-16384@{timeline}"),
        };
        let (known, unknown) = (id("3"), id("any"));
        for (a, b) in [(&known, &known), (&known, &unknown), (&unknown, &known), (&unknown, &unknown)] {
            assert!(dir.owns(a, &b.header));
        }
        assert!(!dir.owns(&known, "tok-71-16384@4"), "another timeline");
        assert!(!dir.owns(&known, "tok-71-16385@3"), "another database");
        assert!(!dir.owns(&unknown, "tok-72-16384@3"), "another cluster");
        assert!(!dir.owns(&known, "tok-71-16384"), "no timeline part");
    }
}
