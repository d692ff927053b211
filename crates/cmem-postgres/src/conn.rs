//! The pool's connections: a `postgres` client and the statements prepared on it.
//!
//! Why a cache per connection: a statement sent as text is parsed and planned by the
//! server on every call, and a lookup's few statements are the same every time. Prepared
//! once per connection, each later call is one round trip of bind and execute, planned
//! from the server's cached plan. Prepared statements belong to the session that
//! prepared them, so the cache lives beside the client and dies with it.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};

use postgres::types::Type;
use postgres::{Client, NoTls, Statement};
use r2d2_postgres::PostgresConnectionManager;

/// A pooled connection's client and its prepared statements, by SQL text.
pub(crate) struct Conn {
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn").field("prepared", &self.prepared.len()).finish_non_exhaustive()
    }
}

impl Conn {
    /// The statement `sql` with parameters of `types`, prepared on this connection the
    /// first time it is asked for (a round trip), from the cache after.
    ///
    /// # Errors
    /// The server's, when it cannot prepare `sql`.
    pub(crate) fn prepared(&mut self, sql: &str, types: &[Type]) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare_typed(sql, types)?;
        self.prepared.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    /// The client itself (for functions generic over [`postgres::GenericClient`]).
    pub(crate) fn client(&mut self) -> &mut Client {
        &mut self.client
    }
}

impl Deref for Conn {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Client {
        &mut self.client
    }
}

/// Opens [`Conn`]s for the pool: `r2d2_postgres`'s manager, with the statement cache
/// beside each client.
#[derive(Debug)]
pub(crate) struct Manager(PostgresConnectionManager<NoTls>);

/// A connection checked out of the pool.
pub(crate) type Pooled = r2d2::PooledConnection<Manager>;

impl Manager {
    pub(crate) fn new(config: postgres::Config) -> Manager {
        Manager(PostgresConnectionManager::new(config, NoTls))
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Conn, postgres::Error> {
        Ok(Conn { client: self.0.connect()?, prepared: HashMap::new() })
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), postgres::Error> {
        self.0.is_valid(&mut conn.client)
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        self.0.has_broken(&mut conn.client)
    }
}
