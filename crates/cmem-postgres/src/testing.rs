//! A PostgreSQL server for tests (the `testing` feature): the one `CMEM_PG_URL` names,
//! or a throwaway cluster this process starts and that goes away with it.
//!
//! The throwaway cluster: `initdb` in a new temporary directory (as the `postgres` user
//! when the process runs as root, since the server refuses to run as root), then the
//! server on a free loopback port with its Unix socket in that directory, `fsync` off
//! (nothing in it needs to survive a crash), and `pg_trgm` created in `template1`, so
//! every database created for a test has it. A watchdog shell holds the server: it
//! waits on a pipe from this process, and when the pipe closes (the process ended, in
//! any way) it stops the server and removes the directory.
//!
//! On `CMEM_PG_URL`'s server, each test process creates its databases (`cmem_test_PID_…`)
//! and leaves them, as nothing runs when it ends; the next test process drops those of
//! processes that no longer run.
//!
//! Tests that need a server call [`TestServer::shared`]; when there is none, outside CI
//! (`CI` unset) the process prints a loud message and ends successfully, and in CI it is
//! an error.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use cmem_core::{Error, ErrorKind, Result};

/// A server tests create databases on.
#[derive(Debug)]
pub struct TestServer {
    /// Where to connect for `CREATE DATABASE`.
    admin: postgres::Config,
    /// The watchdog of a cluster this process started; its stdin is the pipe whose end
    /// stops the server.
    watchdog: Option<Mutex<(Child, Option<ChildStdin>)>>,
    /// Where the cluster lives.
    dir: Option<PathBuf>,
    next: AtomicUsize,
}

fn fail(what: impl Into<String>) -> Error {
    Error::new(ErrorKind::Store, format!("test server: {}", what.into()))
}

impl TestServer {
    /// The server of this process, started on first use: `CMEM_PG_URL`'s, else a
    /// throwaway cluster. When neither works and `CI` is unset, prints why and ends the
    /// process successfully (the tests are skipped, loudly).
    ///
    /// # Errors
    /// In CI (`CI` set), the reason no server could be had.
    pub fn shared() -> Result<&'static TestServer> {
        match TestServer::available() {
            Ok(Some(s)) => Ok(s),
            // Straight out: every test of this process needs the server.
            Ok(None) => std::process::exit(0),
            Err(e) => Err(e),
        }
    }

    /// As [`shared`](Self::shared), for a test binary that also holds tests without
    /// PostgreSQL: when no server can be had and `CI` is unset, prints why and answers
    /// `None`, so that the one test returns and the others still run.
    ///
    /// # Errors
    /// In CI (`CI` set), the reason no server could be had.
    pub fn available() -> Result<Option<&'static TestServer>> {
        static SERVER: OnceLock<std::result::Result<TestServer, String>> = OnceLock::new();
        static TOLD: std::sync::Once = std::sync::Once::new();
        match SERVER.get_or_init(|| TestServer::start().map_err(|e| e.to_string())) {
            Ok(s) => Ok(Some(s)),
            Err(why) if std::env::var_os("CI").is_some() => Err(Error::new(ErrorKind::Store, why.clone())),
            Err(why) => {
                // Straight to the process's stderr: the test harness captures `eprintln!`,
                // and its capture is lost when the process ends.
                TOLD.call_once(|| {
                    let bar = "!".repeat(78);
                    let _ = writeln!(
                        std::io::stderr(),
                        "\n{bar}\n!! SKIPPED: the PostgreSQL tests need a server and none could be had:\n!! {why}\n\
                         !! Set CMEM_PG_URL=postgres://user@host/db, or install PostgreSQL (initdb) to run them.\n\
                         !! In CI (CI set) this is a failure.\n{bar}\n"
                    );
                });
                Ok(None)
            }
        }
    }

    /// A server of the caller's own, not shared and never skipping: `CMEM_PG_URL`'s,
    /// else a throwaway cluster, which stops when the returned value is dropped (or the
    /// process ends). For programs, such as a benchmark, that must fail rather than skip.
    ///
    /// # Errors
    /// Why no server could be had.
    pub fn start() -> Result<TestServer> {
        if let Ok(url) = std::env::var("CMEM_PG_URL") {
            let admin = postgres::Config::from_str(&url)
                .map_err(|e| fail(format!("CMEM_PG_URL {}: {e}", crate::redact(&url))))?;
            let server = TestServer { admin, watchdog: None, dir: None, next: AtomicUsize::new(0) };
            server.drop_leftovers()?;
            return Ok(server);
        }
        TestServer::start_cluster(None)
    }

    /// A streaming replica of this throwaway cluster (`pg_basebackup -R`), a throwaway
    /// cluster of its own on another loopback port, a hot standby until promoted.
    ///
    /// # Errors
    /// The server is `CMEM_PG_URL`'s, or the copy or the replica's start failed.
    pub fn start_replica(&self) -> Result<TestServer> {
        if self.watchdog.is_none() {
            return Err(fail("the server is CMEM_PG_URL's: start a replica of it by hand"));
        }
        TestServer::start_cluster(self.admin.get_ports().first().copied())
    }

    /// Promotes a replica ([`start_replica`](Self::start_replica)) to a primary and
    /// returns once it accepts writes.
    ///
    /// # Errors
    /// A server failure, or it is still in recovery after 30 s.
    pub fn promote(&self) -> Result<()> {
        let mut client = self.admin_client()?;
        client
            .batch_execute("SELECT pg_promote()")
            .map_err(|e| fail(format!("promote: {}", db_message(&e))))?;
        let started = Instant::now();
        loop {
            let row = client.query_one("SELECT pg_is_in_recovery()", &[]);
            if matches!(row.and_then(|r| r.try_get::<_, bool>(0)), Ok(false)) {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(30) {
                return Err(fail("the replica was still in recovery 30 s after its promotion"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs `sql` on the server's `postgres` database as its superuser.
    ///
    /// # Errors
    /// A server failure.
    pub fn admin_execute(&self, sql: &str) -> Result<()> {
        self.admin_client()?.batch_execute(sql).map_err(|e| fail(format!("{sql}: {}", db_message(&e))))
    }

    /// The directory of the server's programs: `PG_BIN`, else the newest
    /// `/usr/lib/postgresql/N/bin` (Debian's layout), else `pg_config --bindir`.
    fn bin_dir() -> Result<PathBuf> {
        if let Some(dir) = std::env::var_os("PG_BIN") {
            let dir = PathBuf::from(dir);
            if !dir.join("initdb").exists() {
                return Err(fail(format!("PG_BIN {} holds no initdb", dir.display())));
            }
            return Ok(dir);
        }
        let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let n = e.file_name().to_str()?.parse::<u32>().ok()?;
                let bin = e.path().join("bin");
                bin.join("initdb").exists().then_some((n, bin))
            })
            .collect();
        found.sort();
        if let Some((_, bin)) = found.pop() {
            return Ok(bin);
        }
        let out = Command::new("pg_config")
            .arg("--bindir")
            .output()
            .map_err(|e| fail(format!("no initdb: {e}")))?;
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && dir.join("initdb").exists() {
            return Ok(dir);
        }
        Err(fail("no initdb found (PG_BIN, /usr/lib/postgresql/*/bin, pg_config --bindir)"))
    }

    /// Runs `script` with `sh`, as the `postgres` user when this process is root.
    fn shell(script: &str, args: &[&str]) -> Command {
        let root =
            Command::new("id").arg("-u").output().map(|o| o.stdout.trim_ascii() == b"0").unwrap_or(false);
        let mut cmd = if root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--", "sh", "-c", script, "sh"]);
            c
        } else {
            let mut c = Command::new("sh");
            c.args(["-c", script, "sh"]);
            c
        };
        cmd.args(args);
        if root {
            cmd.current_dir("/");
        }
        cmd
    }

    /// A new cluster: `initdb`, or with `primary` (its port) a `pg_basebackup` of it.
    fn start_cluster(primary: Option<u16>) -> Result<TestServer> {
        let bin = TestServer::bin_dir()?;
        let dir = std::env::temp_dir().join(format!("cmem-pg-{}-{}", std::process::id(), nanos()));
        std::fs::create_dir(&dir).map_err(|e| fail(format!("creating {}: {e}", dir.display())))?;
        let as_root =
            Command::new("id").arg("-u").output().map(|o| o.stdout.trim_ascii() == b"0").unwrap_or(false);
        if as_root {
            let ok = Command::new("chown")
                .arg("postgres:")
                .arg(&dir)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if !ok {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(fail("running as root, and the directory cannot be given to the postgres user"));
            }
        }
        let (bin_s, dir_s) = (bin.display().to_string(), dir.display().to_string());
        let init = match primary {
            None => TestServer::shell(
                "\"$1/initdb\" -D \"$2/data\" -A trust -U postgres -E UTF8 --locale=C --no-sync >\"$2/initdb.log\" 2>&1",
                &[&bin_s, &dir_s],
            )
            .status(),
            Some(port) => TestServer::shell(
                "\"$1/pg_basebackup\" -D \"$2/data\" -h 127.0.0.1 -p \"$3\" -U postgres -R -X stream --no-sync \
                 >\"$2/initdb.log\" 2>&1",
                &[&bin_s, &dir_s, &port.to_string()],
            )
            .status(),
        };
        if !matches!(init, Ok(s) if s.success()) {
            let log = std::fs::read_to_string(dir.join("initdb.log")).unwrap_or_default();
            let _ = std::fs::remove_dir_all(&dir);
            return Err(fail(format!("initdb failed ({init:?}): {}", log.trim())));
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| fail(format!("no free port: {e}")))?;
        // The watchdog reads commands from the pipe (`stop`, `start`: see `pause` and
        // `resume`) until it closes, then stops the server and removes the directory.
        let mut child = TestServer::shell(
            "up() { \"$1/postgres\" -D \"$2/data\" -k \"$2\" -p \"$3\" -c listen_addresses=127.0.0.1 \
             -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 \
             >>\"$2/server.log\" 2>&1 & pid=$!; }; up \"$@\"; \
             while read -r cmd; do case \"$cmd\" in \
             stop) kill -INT $pid; wait $pid;; start) up \"$@\";; esac; done; \
             kill -INT $pid 2>/dev/null; wait $pid; rm -rf \"$2\"",
            &[&bin_s, &dir_s, &port.to_string()],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| fail(format!("cannot start the server: {e}")))?;
        let Some(stdin) = child.stdin.take() else {
            return Err(fail("the watchdog has no stdin"));
        };
        let mut admin = postgres::Config::new();
        admin.host("127.0.0.1").port(port).user("postgres").dbname("postgres");
        let server = TestServer {
            admin,
            watchdog: Some(Mutex::new((child, Some(stdin)))),
            dir: Some(dir.clone()),
            next: AtomicUsize::new(0),
        };
        let started = Instant::now();
        loop {
            match server.admin_client() {
                Ok(mut c) if primary.is_some() => {
                    c.batch_execute("SELECT 1").map_err(|e| fail(e.to_string()))?;
                    return Ok(server);
                }
                Ok(mut c) => {
                    let mut t = server.admin.clone();
                    t.dbname("template1");
                    let mut t = t.connect(postgres::NoTls).map_err(|e| fail(format!("template1: {e}")))?;
                    t.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
                        .map_err(|e| fail(format!("CREATE EXTENSION pg_trgm: {}", db_message(&e))))?;
                    c.batch_execute("SELECT 1").map_err(|e| fail(e.to_string()))?;
                    return Ok(server);
                }
                Err(e) if started.elapsed() > Duration::from_secs(30) => {
                    let log = read_log(&dir.join("server.log"));
                    return Err(fail(format!("the server did not start in 30 s ({e}): {log}")));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    fn admin_client(&self) -> Result<postgres::Client> {
        self.admin.connect(postgres::NoTls).map_err(|e| fail(format!("cannot connect: {}", db_message(&e))))
    }

    /// Drops the databases earlier test processes created on a server of their own
    /// (`CMEM_PG_URL`'s) and could not drop, ending first: those named for a process that
    /// no longer runs here. One still in use is left (`DROP DATABASE` refuses it).
    fn drop_leftovers(&self) -> Result<()> {
        let mut client = self.admin_client()?;
        let rows = client
            .query("SELECT datname FROM pg_database WHERE datname LIKE 'cmem\\_test\\_%'", &[])
            .map_err(|e| fail(format!("listing databases: {}", db_message(&e))))?;
        for r in rows {
            let Ok(name) = r.try_get::<_, String>(0) else { continue };
            let pid = name.split('_').nth(2).unwrap_or("");
            let gone = !pid.is_empty() && !Path::new("/proc").join(pid).exists();
            if gone && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {name}"));
            }
        }
        Ok(())
    }

    /// A new empty database on the server; returns its URL (`postgres://user@host:port/db`,
    /// with the admin connection's password, if any).
    ///
    /// # Errors
    /// A server failure.
    pub fn fresh_database(&self) -> Result<String> {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let db = format!("cmem_test_{}_{}_{n}", std::process::id(), nanos() % 1_000_000);
        let mut client = self.admin_client()?;
        client
            .batch_execute(&format!("CREATE DATABASE {db}"))
            .map_err(|e| fail(format!("CREATE DATABASE {db}: {}", db_message(&e))))?;
        Ok(self.url_of(&db))
    }

    /// The URL of database `db` on this server.
    pub fn url_of(&self, db: &str) -> String {
        let host = match self.admin.get_hosts().first() {
            Some(postgres::config::Host::Tcp(h)) => h.clone(),
            Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
            None => "localhost".to_owned(),
        };
        let port = self.admin.get_ports().first().copied().unwrap_or(5432);
        let user = self.admin.get_user().unwrap_or("postgres");
        let auth = match self.admin.get_password() {
            Some(pw) => format!("{user}:{}", percent(&String::from_utf8_lossy(pw))),
            None => user.to_owned(),
        };
        if host.starts_with('/') {
            format!("postgres://{auth}@/{db}?host={}&port={port}", percent(&host))
        } else {
            format!("postgres://{auth}@{host}:{port}/{db}")
        }
    }

    /// The directory of the throwaway cluster, when this process started one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Stops the server of a throwaway cluster, keeping its data, and returns once it
    /// refuses connections: what clients meet when their database goes down. Only for a
    /// server of the caller's own ([`start`](Self::start)): every test of the process
    /// shares [`shared`](Self::shared)'s.
    ///
    /// # Errors
    /// The server is `CMEM_PG_URL`'s (this process cannot stop it), or it did not stop
    /// within 30 s.
    pub fn pause(&self) -> Result<()> {
        self.command("stop")?;
        let started = Instant::now();
        while self.admin_client().is_ok() {
            if started.elapsed() > Duration::from_secs(30) {
                return Err(fail("the server did not stop in 30 s"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// Starts a server [`pause`](Self::pause)d again, on the same port and data, and
    /// returns once it accepts connections.
    ///
    /// # Errors
    /// As [`pause`](Self::pause); or the server did not start within 30 s.
    pub fn resume(&self) -> Result<()> {
        self.command("start")?;
        let started = Instant::now();
        loop {
            match self.admin_client() {
                Ok(_) => return Ok(()),
                Err(e) if started.elapsed() > Duration::from_secs(30) => {
                    return Err(fail(format!("the server did not start again in 30 s: {e}")))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    /// Sends `cmd` to the watchdog of a throwaway cluster.
    fn command(&self, cmd: &str) -> Result<()> {
        let Some(w) = &self.watchdog else {
            return Err(fail("the server is CMEM_PG_URL's: this process cannot stop or start it"));
        };
        let mut w = w.lock().map_err(|_| fail("the watchdog's lock is poisoned"))?;
        let Some(stdin) = w.1.as_mut() else { return Err(fail("the cluster was stopped")) };
        writeln!(stdin, "{cmd}").and_then(|()| stdin.flush()).map_err(|e| fail(format!("the watchdog: {e}")))
    }

    /// Stops a throwaway cluster now (it also stops when the process ends).
    pub fn stop(&self) {
        if let Some(w) = &self.watchdog {
            if let Ok(mut w) = w.lock() {
                let (child, stdin) = &mut *w;
                if stdin.take().is_some() {
                    let _ = child.wait();
                }
            }
        }
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

fn db_message(e: &postgres::Error) -> String {
    e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_owned())
}

fn read_log(path: &Path) -> String {
    let mut s = String::new();
    let _ = std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut s));
    s.trim().lines().rev().take(5).collect::<Vec<_>>().join(" | ")
}

fn percent(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
