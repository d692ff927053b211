//! What a [`PgStore`](crate::PgStore) shares with its write sessions: the address, the
//! pool and its outage state, the candidate index, the options, and reading an entry
//! back. Below both, so that neither knows the other's internals.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use cmem_core::imp::IndexCache as Cache;
use cmem_core::store::stored;
use cmem_core::{Entry, EntryId, Error, ErrorKind, Origin, Result};
use postgres::GenericClient;

use crate::conn::{Manager, Pooled};
use crate::error::{store_error, Context};
use crate::options::PgOptions;
use crate::rows::STORE;

/// The database of a store, as its sessions use it.
#[derive(Debug)]
pub(crate) struct Db {
    /// The address, its password left out.
    pub(crate) name: String,
    pub(crate) pool: r2d2::Pool<Manager>,
    pub(crate) cache: RwLock<Cache>,
    pub(crate) options: PgOptions,
    /// Whether the primary answered at the last try.
    pub(crate) health: Health,
    /// The streaming replica reads go to ([`PgOptions::replica`]), its address redacted.
    pub(crate) replica: Option<Replica>,
}

/// A streaming replica: its address (redacted), pool and health.
#[derive(Debug)]
pub(crate) struct Replica {
    pub(crate) name: String,
    pub(crate) pool: r2d2::Pool<Manager>,
    pub(crate) health: Health,
}

/// Whether a database answered at the last try, and how to try it again.
#[derive(Debug)]
pub(crate) struct Health {
    /// The database could not be reached at the last try: store calls fail at once
    /// (`Unavailable`) while one of them at a time tries again ([`checkout`](Self::checkout)).
    pub(crate) unreachable: Arc<AtomicBool>,
    /// A call is trying the database again while it is unreachable.
    probing: AtomicBool,
    /// How to connect, for those tries (the pool's manager holds its own copy).
    config: postgres::Config,
}

impl Health {
    /// A database thought reachable, connected to with `config`.
    pub(crate) fn new(config: postgres::Config) -> Health {
        Health { unreachable: Arc::default(), probing: AtomicBool::new(false), config }
    }

    /// A connection from `pool`, the pool of the database `name`. While the database is
    /// unreachable, a call gets an idle connection if one is left and otherwise fails at
    /// once, but for one call at a time that tries to connect again: a server answers
    /// `503` in microseconds during an outage, not after a wait per request, and serves
    /// again once a try succeeds. A pool whose every connection is busy is not an
    /// outage: that call fails after the pool's wait, and the next ones wait their turn.
    pub(crate) fn checkout(&self, pool: &r2d2::Pool<Manager>, name: &str) -> Result<Pooled> {
        use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
        let unavailable = |why: String| {
            Error::new(ErrorKind::Unavailable, format!("postgres store {name}: no connection: {why}"))
        };
        if self.unreachable.load(Acquire) {
            if let Some(conn) = pool.try_get() {
                return Ok(conn);
            }
            if self.probing.compare_exchange(false, true, AcqRel, Acquire).is_err() {
                return Err(unavailable("the database did not answer; another call is trying again".into()));
            }
            // One plain connection: a refused one fails at once, where the pool would
            // try again until its wait is over.
            let tried = self.config.connect(postgres::NoTls);
            self.probing.store(false, Release);
            match tried {
                Ok(_) => self.unreachable.store(false, Release),
                Err(e) => return Err(unavailable(e.to_string())),
            }
        }
        pool.get().map_err(|e| {
            let state = pool.state();
            if state.connections >= pool.max_size() && state.idle_connections == 0 {
                return unavailable(format!("all {} connections stayed busy: {e}", state.connections));
            }
            self.unreachable.store(true, Release);
            unavailable(e.to_string())
        })
    }
}

impl Db {
    /// A pooled connection for reading: to the replica when there is one, else
    /// [`client`](Self::client)'s.
    pub(crate) fn reader(&self) -> Result<Pooled> {
        match &self.replica {
            Some(r) => r.health.checkout(&r.pool, &format!("{} (replica)", r.name)),
            None => self.client(),
        }
    }

    /// The pool reads go to, and its database's health.
    pub(crate) fn read_pool(&self) -> (&r2d2::Pool<Manager>, &Health) {
        self.replica.as_ref().map_or((&self.pool, &self.health), |r| (&r.pool, &r.health))
    }

    /// A pooled connection to the primary (see [`Health::checkout`]).
    pub(crate) fn client(&self) -> Result<Pooled> {
        self.health.checkout(&self.pool, &self.name)
    }

    pub(crate) fn poisoned(&self) -> Error {
        store_error(&self.name, "candidate cache lock poisoned")
    }

    pub(crate) fn cache_read(&self) -> Result<RwLockReadGuard<'_, Cache>> {
        self.cache.read().map_err(|_| self.poisoned())
    }

    pub(crate) fn cache_write(&self) -> Result<RwLockWriteGuard<'_, Cache>> {
        self.cache.write().map_err(|_| self.poisoned())
    }

    pub(crate) fn refuse_read_only(&self) -> Result<()> {
        if self.options.read_only {
            return Err(store_error(&self.name, "opened read-only; writes are refused"));
        }
        Ok(())
    }

    /// One entry by id, on `client`.
    pub(crate) fn load_entry<C: GenericClient>(&self, client: &mut C, id: EntryId) -> Result<Option<Entry>> {
        let p = &self.name;
        let reading = || format!("reading entry {id}");
        let head = client
            .query_opt(
                "SELECT project_id, metadata::text, point, unit, approvals FROM tm_entries WHERE id = $1",
                &[&id.0],
            )
            .ctx_with(p, reading)?;
        let Some(head) = head else { return Ok(None) };
        let project_id: String = head.try_get(0).ctx_with(p, reading)?;
        let metadata: String = head.try_get(1).ctx_with(p, reading)?;
        let point: String = head.try_get(2).ctx_with(p, reading)?;
        let unit: String = head.try_get(3).ctx_with(p, reading)?;
        let approvals: i64 = head.try_get(4).ctx_with(p, reading)?;
        let mut variants = Vec::new();
        for r in client
            .query("SELECT locale, runs::text FROM tm_variants WHERE entry_id = $1 ORDER BY ord", &[&id.0])
            .ctx_with(p, reading)?
        {
            let tag: &str = r.try_get(0).ctx_with(p, reading)?;
            let json: &str = r.try_get(1).ctx_with(p, reading)?;
            variants.push(stored::variant(STORE, p, id, tag, json)?);
        }
        let mut origins = Vec::new();
        for r in client
            .query(
                "SELECT project_id, context_fingerprint, created_at FROM tm_origins WHERE entry_id = $1 ORDER BY seq",
                &[&id.0],
            )
            .ctx_with(p, reading)?
        {
            origins.push(Origin {
                project_id: r.try_get(0).ctx_with(p, reading)?,
                context_fingerprint: r.try_get(1).ctx_with(p, reading)?,
                created_at: r.try_get(2).ctx_with(p, reading)?,
            });
        }
        Ok(Some(Entry {
            id,
            approvals: stored::approvals(approvals),
            variants,
            point: stored::point(STORE, p, id, &point)?,
            unit,
            project_id,
            origins,
            metadata: stored::metadata(STORE, p, id, &metadata)?,
        }))
    }
}
