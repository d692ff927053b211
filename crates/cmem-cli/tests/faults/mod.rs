//! Fault injection on the built `cmem` binary: imports killed (`SIGKILL`, `SIGTERM`,
//! `SIGINT`, twice) at many points, concurrent importers with readers, a full disk, and
//! the outputs, read-only opens and bad input those faults meet. Each case checks the
//! memory's integrity (`PRAGMA integrity_check`), its entry count, and that every reader
//! saw the old state or the new one, never a part.
//!
//! Sized to run in well under a minute on two cores in a debug build. The same cases on
//! the full en-de memory, with figures: `CMEM_FAULTS_CORPUS=en-de.jsonl.gz cargo test
//! --release -p cmem-cli --test tests faults -- --ignored --nocapture`.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Dir, Run, CMEM};

/// What a command printed: an [`Output`] or the shared tests' [`Run`].
trait Printed {
    fn output(&self) -> &Output;
}

impl Printed for Output {
    fn output(&self) -> &Output {
        self
    }
}

impl Printed for Run {
    fn output(&self) -> &Output {
        &self.0
    }
}

fn stderr(out: &impl Printed) -> String {
    String::from_utf8_lossy(&out.output().stderr).into_owned()
}

fn stdout(out: &impl Printed) -> String {
    String::from_utf8_lossy(&out.output().stdout).into_owned()
}

fn code(out: &impl Printed) -> Option<i32> {
    out.output().status.code()
}

/// Names in `d` that are neither the memory nor SQLite's companions of it: temporary
/// files left behind.
fn strays(d: &Dir, memory: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || (n.starts_with(memory) && n != memory && !companion(n, memory)))
        .collect();
    v.sort();
    v
}

/// A file that belongs beside a memory: its WAL and shared memory, and its persisted
/// candidate indexes (`-gix-<locale>`, never a temporary one left behind).
fn companion(name: &str, memory: &str) -> bool {
    ["-wal", "-shm"].iter().any(|s| name == format!("{memory}{s}"))
        || (name.starts_with(&format!("{memory}-gix-")) && !name.contains(".tmp-"))
}

/// Writes `n` JSON Lines entries, distinct by `tag`, to `path`.
fn corpus(path: &Path, tag: &str, n: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..n {
        writeln!(
            f,
            r#"{{"source":"The {tag} sentence number {i} holds a few words","target":"Der {tag} Satz Nummer {i} hat ein paar Wörter"}}"#
        )
        .unwrap();
    }
}

/// Integrity and entry count of the memory at `path`, read as a separate program would.
pub(super) fn check(path: &Path) -> u64 {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let ok: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(ok, "ok", "{}", path.display());
    let n: i64 = conn.query_row("SELECT COUNT(*) FROM tm_entries", [], |r| r.get(0)).unwrap();
    n as u64
}

/// True when the file at `path` exists and holds cmem's entries table.
fn has_schema(path: &Path) -> bool {
    let Ok(conn) = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return false;
    };
    conn.query_row("SELECT COUNT(*) FROM sqlite_master WHERE name = 'tm_entries'", [], |r| r.get::<_, i64>(0))
        .is_ok_and(|n| n == 1)
}

/// A small deterministic generator (SplitMix64), so a failing seed can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn signal(child: &Child, sig: &str) {
    let status = Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status().unwrap();
    assert!(status.success(), "kill -{sig}");
}

/// How long an uninterrupted import of `file` into a copy of `memory` takes here: the
/// shorter of two, so a cold first run does not stretch the span the kills are spread
/// over.
fn timed_import(d: &Dir, memory: &str, file: &str) -> Duration {
    let mut took = Duration::MAX;
    for _ in 0..2 {
        std::fs::copy(d.path(memory), d.path("timing.db")).unwrap();
        let started = Instant::now();
        d.ok(&["--memory", "timing.db", "import", "-q", "--no-align", "--from", "en", "--to", "de", file]);
        took = took.min(started.elapsed());
        for s in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(d.path(&format!("timing.db{s}")));
        }
    }
    took
}

/// One import of `file` into `memory`, stopped by `signals` (each after its delay);
/// returns the exit status (None: killed by a signal) and the entries after it.
fn stopped_import(d: &Dir, memory: &str, file: &str, signals: &[(&str, Duration)]) -> (Option<i32>, u64) {
    let mut child = d
        .cmd(&["--memory", memory, "import", "-q", "--no-align", "--from", "en", "--to", "de", file])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for (sig, after) in signals {
        std::thread::sleep(*after);
        if child.try_wait().unwrap().is_none() {
            signal(&child, sig);
        }
    }
    let out = child.wait_with_output().unwrap();
    (code(&out), check(&d.path(memory)))
}

/// Kills imports at points spread over their run, of every kind, for several seeds;
/// each leaves the memory intact with the old count, or the new one when the import
/// had finished first. Returns (stopped, finished) counts.
fn kill_at_many_points(
    d: &Dir,
    memory: &str,
    file: &str,
    added: u64,
    seeds: &[u64],
    span: Duration,
) -> (u32, u32) {
    let before = check(&d.path(memory));
    let pristine = d.path("pristine.db");
    std::fs::copy(d.path(memory), &pristine).unwrap();
    let (mut stopped, mut finished) = (0, 0);
    for &seed in seeds {
        let mut rng = Rng(seed);
        for sig in ["KILL", "TERM", "INT"] {
            // Within the first two thirds of an import's time, which varies with load.
            let at = Duration::from_millis(rng.below(span.as_millis() as u64 * 2 / 3));
            let (code, after) = stopped_import(d, memory, file, &[(sig, at)]);
            let expected_code = match sig {
                "KILL" => None,
                "TERM" => Some(143),
                _ => Some(130),
            };
            if after == before + added {
                // It committed before the signal came.
                assert!(
                    code == Some(0) || code == expected_code,
                    "seed {seed} {sig} at {at:?}: exit {code:?}"
                );
                finished += 1;
                // Back to the old state for the next run.
                for s in ["-wal", "-shm"] {
                    let _ = std::fs::remove_file(d.path(&format!("{memory}{s}")));
                }
                std::fs::copy(&pristine, d.path(memory)).unwrap();
                assert_eq!(check(&d.path(memory)), before);
                continue;
            }
            assert_eq!(
                after, before,
                "seed {seed} {sig} at {at:?}: a part of the import is visible (exit {code:?})"
            );
            // Killed by the signal itself only when it came before the handlers.
            assert!(code == expected_code || code.is_none(), "seed {seed} {sig} at {at:?}: exit {code:?}");
            stopped += 1;
        }
    }
    std::fs::remove_file(&pristine).unwrap();
    (stopped, finished)
}

#[test]
fn imports_killed_at_many_points_leave_the_old_state() {
    let d = Dir::new();
    corpus(&d.path("base.jsonl"), "base", 300);
    corpus(&d.path("big.jsonl"), "big", 20_000);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);
    let mut span = timed_import(&d, "cmem.db", "big.jsonl");
    // An import's time moves with the machine's load (other tests run beside this one):
    // when most imports finished before their signal, the span was too long; halve it
    // and kill more, until half of the imports so far were stopped part-way.
    let (mut stopped, mut tried) = (0, 0);
    for seeds in [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]] {
        stopped += kill_at_many_points(&d, "cmem.db", "big.jsonl", 20_000, &seeds, span).0;
        tried += 12;
        if stopped * 2 >= tried {
            break;
        }
        span /= 2;
    }
    assert!(
        stopped * 2 >= tried,
        "too few imports were stopped ({stopped} of {tried}): the span {span:?} is off"
    );

    // A second Ctrl-C ends the program at once; the transaction was never committed.
    let (code, after) =
        stopped_import(&d, "cmem.db", "big.jsonl", &[("INT", span / 3), ("INT", Duration::from_millis(1))]);
    assert_eq!((code, after), (Some(130), 300));

    // A memory created by an import that was killed stays a valid, empty memory (or a
    // full one, when the import committed before the kill). Killed before it created
    // the schema, it leaves at most a file that is no memory yet: the next import
    // makes it one.
    let mut child = d
        .cmd(&["--memory", "new.db", "import", "-q", "--no-align", "--from", "en", "--to", "de", "big.jsonl"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(span / 8);
    if child.try_wait().unwrap().is_none() {
        signal(&child, "KILL");
    }
    let out = child.wait_with_output().unwrap();
    let status = out.status.code();
    assert!(status.is_none() || status == Some(0), "exit {status:?}");
    if has_schema(&d.path("new.db")) {
        let after = check(&d.path("new.db"));
        assert!(after == 0 || after == 20_000, "{after} entries");
    } else {
        d.ok(&[
            "--memory",
            "new.db",
            "import",
            "-q",
            "--no-align",
            "--from",
            "en",
            "--to",
            "de",
            "big.jsonl",
        ]);
        assert_eq!(check(&d.path("new.db")), 20_000);
    }
    assert!(strays(&d, "cmem.db").is_empty(), "{:?}", strays(&d, "cmem.db"));
}

/// The word model an import trains is derived work after its commit: a kill at any
/// point, training included, leaves the old memory or the whole import, never a part,
/// and the memory answers lookups afterwards (with a model or without one).
#[test]
fn a_kill_while_the_word_model_trains_keeps_the_import() {
    let d = Dir::new();
    corpus(&d.path("base.jsonl"), "base", 300);
    corpus(&d.path("big.jsonl"), "big", 5_000);
    d.ok(&["import", "-q", "--no-align", "--from", "en", "--to", "de", "base.jsonl"]);
    let pristine = d.path("pristine.db");
    std::fs::copy(d.path("cmem.db"), &pristine).unwrap();
    // The whole span, training included.
    let started = Instant::now();
    d.ok(&["--memory", "timing.db", "import", "-q", "--from", "en", "--to", "de", "big.jsonl"]);
    let span = started.elapsed();
    let mut rng = Rng(7);
    for _ in 0..6 {
        let at = Duration::from_millis(rng.below(span.as_millis() as u64));
        let mut child = d
            .cmd(&["import", "-q", "--from", "en", "--to", "de", "big.jsonl"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        if child.try_wait().unwrap().is_none() {
            signal(&child, "KILL");
        }
        let _ = child.wait_with_output().unwrap();
        let after = check(&d.path("cmem.db"));
        assert!(after == 300 || after == 5_300, "killed at {at:?}: {after} entries");
        d.ok(&[
            "lookup",
            "The big sentence number 17 holds a few words",
            "--from",
            "en",
            "--to",
            "de",
            "--threshold",
            "50",
        ]);
        for s in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(d.path(&format!("cmem.db{s}")));
        }
        std::fs::copy(&pristine, d.path("cmem.db")).unwrap();
    }
}

/// Runs `importers` imports of distinct sizes at once, with two readers counting
/// entries meanwhile. Every import succeeds; every count a reader saw is the old
/// count plus the sizes of some imports (each import seen whole or not at all).
fn concurrent_imports(importers: usize) {
    let d = Dir::new();
    corpus(&d.path("base.jsonl"), "base", 100);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);
    let sizes: Vec<u64> = (0..importers).map(|i| 500 << i).collect();
    for (i, n) in sizes.iter().enumerate() {
        corpus(&d.path(&format!("f{i}.jsonl")), &format!("f{i}"), *n as usize);
    }
    let done = AtomicBool::new(false);
    let seen = Mutex::new(BTreeSet::new());
    let reads = AtomicUsize::new(0);
    let outputs = std::thread::scope(|s| {
        let readers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        let out = d.ok(&["stats", "--json"]);
                        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
                        seen.lock().unwrap().insert(v["entries"].as_u64().unwrap());
                        reads.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        let children: Vec<_> = (0..importers)
            .map(|i| {
                let file = format!("f{i}.jsonl");
                d.cmd(&["import", "--from", "en", "--to", "de", &file])
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outputs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().unwrap();
        }
        outputs
    });
    for (i, out) in outputs.iter().enumerate() {
        assert_eq!(code(out), Some(0), "importer {i}: {}", stderr(out));
        let n = sizes[i];
        let line =
            if n >= 1000 { format!("{},{:03} written", n / 1000, n % 1000) } else { format!("{n} written") };
        assert!(stderr(out).contains(&line), "importer {i}: {}", stderr(out));
    }
    let total: u64 = 100 + sizes.iter().sum::<u64>();
    assert_eq!(check(&d.path("cmem.db")), total);
    // Distinct powers of two: each count names the set of imports it holds.
    let seen = seen.into_inner().unwrap();
    for n in &seen {
        let rest = n.checked_sub(100).unwrap_or_else(|| panic!("a reader saw {n} < 100 entries"));
        assert!(
            rest % 500 == 0 && rest / 500 < 1 << importers,
            "a reader saw {n}: not a set of whole imports"
        );
    }
    assert!(reads.load(Ordering::Relaxed) >= 2, "the readers did not run");
}

#[test]
fn two_concurrent_importers_both_succeed_and_readers_see_whole_imports() {
    concurrent_imports(2);
}

#[test]
fn four_concurrent_importers_both_succeed_and_readers_see_whole_imports() {
    concurrent_imports(4);
}

#[test]
fn a_waiting_importer_says_so_and_goes_on_when_the_writer_ends() {
    let d = Dir::new();
    corpus(&d.path("a.jsonl"), "a", 50);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "a.jsonl"]);
    corpus(&d.path("b.jsonl"), "b", 50);
    // Another program holds the write lock.
    let holder = rusqlite::Connection::open(d.path("cmem.db")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE; DELETE FROM tm_origins WHERE 0;").unwrap();
    let mut child =
        d.cmd(&["import", "--from", "en", "--to", "de", "b.jsonl"]).stderr(Stdio::piped()).spawn().unwrap();
    let err = BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in err.lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    let first = rx.recv_timeout(Duration::from_secs(20)).expect("no notice of the wait");
    assert_eq!(first, "cmem: waiting for another writer… (Ctrl-C to give up)");
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().unwrap().is_none(), "the importer gave up instead of waiting");
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(rest.iter().any(|l| l.contains("50 written")), "{rest:?}");
    assert!(!rest.iter().any(|l| l.contains("waiting")), "said twice: {rest:?}");
    assert_eq!(check(&d.path("cmem.db")), 100);

    // Ctrl-C while waiting gives up at once, storing nothing.
    let holder = rusqlite::Connection::open(d.path("cmem.db")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE; DELETE FROM tm_origins WHERE 0;").unwrap();
    corpus(&d.path("c.jsonl"), "c", 50);
    let child =
        d.cmd(&["import", "--from", "en", "--to", "de", "c.jsonl"]).stderr(Stdio::piped()).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), Some(130), "{}", stderr(&out));
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(check(&d.path("cmem.db")), 100);
}

#[test]
fn a_full_disk_leaves_the_old_state() {
    let d = Dir::new();
    corpus(&d.path("base.jsonl"), "base", 300);
    corpus(&d.path("big.jsonl"), "big", 20_000);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);
    let size = std::fs::metadata(d.path("cmem.db")).unwrap().len();
    // Files may grow to 2 MiB past the memory: the WAL of a 20,000-entry import cannot.
    // (`ulimit -f` counts 512-byte blocks in a POSIX shell.)
    let blocks = (size + 2 * 1024 * 1024) / 512;
    let script = format!("ulimit -f {blocks} && exec \"$0\" import -q --from en --to de big.jsonl");
    let out = Command::new("sh")
        .args(["-c", &script, CMEM])
        .current_dir(&d.0)
        .env_remove("CMEM_MEMORY")
        .output()
        .unwrap();
    // A clean failure (the write fails as on a full disk), not a kill by SIGXFSZ.
    assert_eq!(code(&out), Some(3), "the import fit or was killed: {}", stderr(&out));
    assert_eq!(check(&d.path("cmem.db")), 300);
    // And the memory takes the import once there is room.
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "big.jsonl"]);
    assert_eq!(check(&d.path("cmem.db")), 20_300);
}

/// Waits up to a minute for the import writing the new memory `path` to hold it alone
/// (its header records a rollback journal instead of WAL); false when it never did.
fn held_alone(path: &Path, import: &mut Child) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) && import.try_wait().unwrap().is_none() {
        if std::fs::read(path).is_ok_and(|b| b.len() >= 100 && b[18] == 1) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

/// `cmem import` creating a memory holds it alone while it writes (it writes the
/// database once, with a rollback journal, instead of to the WAL and again): a second
/// import meanwhile waits and then adds its entries; killed, it leaves the memory as it
/// was before it, which reads and takes the import again.
#[test]
fn an_import_holding_its_new_memory_alone_makes_others_wait_and_survives_a_kill() {
    let d = Dir::new();
    corpus(&d.path("big.jsonl"), "big", 40_000);
    corpus(&d.path("small.jsonl"), "small", 500);
    let import = |memory: &str, file: &str| {
        d.cmd(&["--memory", memory, "import", "-q", "--no-align", "--from", "en", "--to", "de", file])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut first = import("new.db", "big.jsonl");
    assert!(held_alone(&d.path("new.db"), &mut first), "the import did not hold its new memory alone");
    let second = import("new.db", "small.jsonl");
    let (first, second) = (first.wait_with_output().unwrap(), second.wait_with_output().unwrap());
    assert_eq!(code(&first), Some(0), "{}", stderr(&first));
    assert_eq!(code(&second), Some(0), "{}", stderr(&second));
    assert_eq!(check(&d.path("new.db")), 40_500);
    let header = std::fs::read(d.path("new.db")).unwrap();
    assert_eq!(header[18], 2, "back in WAL mode");

    let mut killed = import("killed.db", "big.jsonl");
    assert!(held_alone(&d.path("killed.db"), &mut killed), "the import did not hold its new memory alone");
    signal(&killed, "KILL");
    let _ = killed.wait_with_output().unwrap();
    // Reads first: the journal the kill left is rolled back, and the memory is empty.
    let stats = d.ok(&["--memory", "killed.db", "stats", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&stats).trim()).unwrap();
    assert_eq!(v["entries"].as_u64(), Some(0), "{v}");
    assert_eq!(check(&d.path("killed.db")), 0);
    d.ok(&["--memory", "killed.db", "import", "-q", "--no-align", "--from", "en", "--to", "de", "big.jsonl"]);
    assert_eq!(check(&d.path("killed.db")), 40_000);
    assert!(strays(&d, "killed.db").is_empty(), "{:?}", strays(&d, "killed.db"));
}

#[test]
fn a_second_import_of_a_new_memory_keeps_its_entries_when_the_first_fails() {
    let d = Dir::new();
    corpus(&d.path("good.jsonl"), "good", 2_000);
    // A file that fails near its end, after thousands of entries.
    corpus(&d.path("bad.jsonl"), "bad", 8_000);
    let mut f = std::fs::OpenOptions::new().append(true).open(d.path("bad.jsonl")).unwrap();
    writeln!(f, "{{broken").unwrap();
    drop(f);
    let first = d
        .cmd(&["import", "--strict", "--from", "en", "--to", "de", "bad.jsonl"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let second = d.run(&["import", "--from", "en", "--to", "de", "good.jsonl"]);
    let first = first.wait_with_output().unwrap();
    assert_eq!(code(&first), Some(3), "{}", stderr(&first));
    assert_eq!(code(&second), Some(0), "{}", stderr(&second));
    assert_eq!(check(&d.path("cmem.db")), 2_000, "the second import's entries stay");
}

// ---- outputs ----

#[test]
fn export_writes_through_links_keeps_modes_and_refuses_what_it_may_not_write() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let d = Dir::new();
    corpus(&d.path("base.jsonl"), "base", 200);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);

    std::fs::write(d.path("real.jsonl"), "old").unwrap();
    symlink("real.jsonl", d.path("link.jsonl")).unwrap();
    d.ok(&["export", "-q", "-o", "link.jsonl"]);
    assert!(std::fs::symlink_metadata(d.path("link.jsonl")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(d.path("real.jsonl")).unwrap().lines().count(), 200);

    std::fs::write(d.path("private.tmx"), "old").unwrap();
    std::fs::set_permissions(d.path("private.tmx"), std::fs::Permissions::from_mode(0o600)).unwrap();
    d.ok(&["export", "-q", "-o", "private.tmx"]);
    let mode = std::fs::metadata(d.path("private.tmx")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A device is written to, not replaced.
    d.ok(&["export", "-q", "-o", "/dev/null", "--format", "jsonl"]);
    assert!(std::os::unix::fs::FileTypeExt::is_char_device(
        &std::fs::metadata("/dev/null").unwrap().file_type()
    ));
    let out = d.run(&["export", "-q", "-o", "/dev/full", "--format", "jsonl"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    let out = d.ok(&["export", "-q", "-o", "/dev/stdout", "--format", "jsonl"]);
    assert_eq!(stdout(&out).lines().count(), 200);

    // Someone else's read-only file in a directory the user may write: refused, kept.
    std::fs::write(d.path("theirs.tmx"), "theirs").unwrap();
    std::fs::set_permissions(d.path("theirs.tmx"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = as_nobody(&d, &["--memory", "cmem.db", "export", "-q", "-o", "theirs.tmx"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("theirs.tmx") && stderr(&out).contains("ermission denied"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(d.path("theirs.tmx")).unwrap(), "theirs");
    assert!(strays(&d, "cmem.db").is_empty(), "{:?}", strays(&d, "cmem.db"));
}

/// Runs cmem as the unprivileged user `nobody` when this test runs as root (root may
/// write anything, so permissions would prove nothing), as this user otherwise, in a
/// directory every user may write to.
fn as_nobody(d: &Dir, args: &[&str]) -> Output {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&d.0, std::fs::Permissions::from_mode(0o777)).unwrap();
    let root = Command::new("id").arg("-u").output().map(|o| stdout(&o).trim() == "0").unwrap_or(false);
    let mut c = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", CMEM]);
        c
    } else {
        Command::new(CMEM)
    };
    // The temp dir itself must be reachable by nobody.
    c.args(args).current_dir(&d.0).env_remove("CMEM_MEMORY").output().unwrap()
}

#[test]
fn an_interrupted_export_leaves_no_temporary_file_and_the_old_output() {
    let d = Dir::new();
    corpus(&d.path("big.jsonl"), "big", 20_000);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "big.jsonl"]);
    std::fs::write(d.path("out.tmx"), "old").unwrap();
    let started = Instant::now();
    d.ok(&["export", "-q", "-o", "timing.tmx"]);
    let span = started.elapsed();
    let mut stopped = 0;
    for (i, sig) in ["INT", "TERM", "INT", "TERM"].iter().enumerate() {
        let child = d.cmd(&["export", "-q", "-o", "out.tmx"]).stderr(Stdio::piped()).spawn().unwrap();
        std::thread::sleep(span * (i as u32 + 1) / 6);
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        let text = std::fs::read_to_string(d.path("out.tmx")).unwrap();
        if code(&out) == Some(0) {
            assert!(text.ends_with("</tmx>\n"), "a finished export is complete");
            std::fs::write(d.path("out.tmx"), "old").unwrap();
        } else {
            assert_eq!(code(&out), Some(if *sig == "INT" { 130 } else { 143 }), "{}", stderr(&out));
            assert_eq!(text, "old", "an interrupted export left the old output");
            stopped += 1;
        }
        assert!(strays(&d, "cmem.db").is_empty(), "{:?}", strays(&d, "cmem.db"));
    }
    assert!(stopped > 0, "no export was stopped (span {span:?})");
}

// ---- read-only opens ----

#[test]
fn reads_work_in_a_read_only_directory_and_change_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let d = Dir::new();
    let sub = d.path("ro");
    std::fs::create_dir(&sub).unwrap();
    corpus(&d.path("base.jsonl"), "base", 100);
    d.ok(&["--memory", "ro/m.db", "import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);
    std::fs::set_permissions(d.path("ro/m.db"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = std::fs::read(d.path("ro/m.db")).unwrap();
    let index_before = std::fs::read(d.path("ro/m.db-gix-en")).unwrap();
    for args in [
        &["--memory", "ro/m.db", "stats"][..],
        &[
            "--memory",
            "ro/m.db",
            "lookup",
            "The base sentence number 7 holds a few word",
            "--from",
            "en",
            "--to",
            "de",
        ],
        &["--memory", "ro/m.db", "search", "sentence", "--lang", "en", "--limit", "2"],
        &["--memory", "ro/m.db", "export", "-q", "-o", "-"],
    ] {
        let out = as_nobody(&d, args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read(d.path("ro/m.db")).unwrap(), before);
    // The memory and the candidate index its import wrote, neither changed by the reads.
    let mut names: Vec<_> = std::fs::read_dir(&sub)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["m.db", "m.db-gix-en"]);
    assert_eq!(std::fs::read(d.path("ro/m.db-gix-en")).unwrap(), index_before);
    // Writing is refused with a clear message.
    let out =
        as_nobody(&d, &["--memory", "ro/m.db", "import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("ro/m.db"), "{}", stderr(&out));
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn an_old_key_version_is_not_rekeyed_by_a_read() {
    let d = Dir::new();
    corpus(&d.path("base.jsonl"), "base", 20);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);
    let conn = rusqlite::Connection::open(d.path("cmem.db")).unwrap();
    conn.execute("UPDATE tm_meta SET value = '0' WHERE key = 'key_version'", []).unwrap();
    drop(conn);
    let before = std::fs::read(d.path("cmem.db")).unwrap();
    let out = d.run(&["stats"]);
    assert_eq!(code(&out), Some(3));
    assert!(stderr(&out).contains("cmem import --format jsonl - < /dev/null"), "{}", stderr(&out));
    assert_eq!(std::fs::read(d.path("cmem.db")).unwrap(), before);
    // The command it names upgrades it.
    let out = d.cmd(&["import", "--format", "jsonl", "-"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    d.ok(&["stats"]);
}

#[test]
fn an_empty_file_is_not_a_memory_and_a_damaged_memory_takes_no_writes() {
    let d = Dir::new();
    std::fs::write(d.path("empty"), b"").unwrap();
    for args in [&["-m", "empty", "stats"][..], &["-m", "empty", "lookup", "x", "--from", "en", "--to", "de"]]
    {
        let out = d.run(args);
        assert_eq!(code(&out), Some(3));
        assert!(stderr(&out).contains("not a cmem memory"), "{}", stderr(&out));
    }
    assert_eq!(std::fs::metadata(d.path("empty")).unwrap().len(), 0);

    corpus(&d.path("base.jsonl"), "base", 2_000);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);
    let mut bytes = std::fs::read(d.path("cmem.db")).unwrap();
    let n = bytes.len();
    for (i, b) in bytes[n / 2..n / 2 + 8192].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(113);
    }
    std::fs::write(d.path("cmem.db"), &bytes).unwrap();
    corpus(&d.path("more.jsonl"), "more", 10);
    let out = d.run(&["import", "-q", "--from", "en", "--to", "de", "more.jsonl"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("damaged") && stderr(&out).contains("writes refused"), "{}", stderr(&out));
    assert_eq!(std::fs::read(d.path("cmem.db")).unwrap(), bytes);
}

// ---- bad input ----

#[test]
fn long_searches_blank_segments_bad_batch_lines_and_zero_limits() {
    let d = Dir::new();
    let lines = "{\"source\":\"Open the file\",\"target\":\"Datei öffnen\"}\n{\"source\":\"  \",\"target\":\"Leer\"}\n";
    std::fs::write(d.path("m.jsonl"), lines).unwrap();
    let out = d.ok(&["import", "--from", "en", "--to", "de", "m.jsonl"]);
    assert!(
        stderr(&out).contains("m.jsonl:2: line 2: the en segment is empty or only white space")
            || stderr(&out).contains("m.jsonl:2:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(check(&d.path("cmem.db")), 1);

    let long = "word ".repeat(4_000);
    let started = Instant::now();
    let out = d.run(&["search", &long, "--lang", "en"]);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("exceeds max_chars 10000"), "{}", stderr(&out));
    assert!(stderr(&out).len() < 300, "the error echoes the query: {} bytes", stderr(&out).len());

    let mut batch = b"{\"query\":\"Open the file\"}\n{\"query\":\"Open \xff file\"}\n".to_vec();
    batch.extend_from_slice(b"{\"query\":\"Open the files\"}\n");
    std::fs::write(d.path("q.jsonl"), &batch).unwrap();
    let out = d.run(&["lookup", "--batch", "q.jsonl", "--from", "en", "--to", "de"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    let answers: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), 3);
    assert!(answers[1]["error"].as_str().unwrap().contains("not UTF-8"), "{}", answers[1]);
    assert!(answers[2]["matches"].as_array().is_some_and(|m| !m.is_empty()), "{}", answers[2]);

    for args in [
        &["lookup", "x", "--from", "en", "--to", "de", "--limit", "0"][..],
        &["search", "x", "--lang", "en", "--limit", "0"],
    ] {
        let out = d.run(args);
        assert_eq!(code(&out), Some(2), "{args:?}");
        assert!(stderr(&out).contains("must be at least 1"), "{}", stderr(&out));
    }
}

// ---- the full memory ----

/// The cases above on the full en-de memory, with figures. Needs
/// `CMEM_FAULTS_CORPUS` (a JSON Lines file, gzip allowed, of en → de lines) and a
/// release build to be meaningful.
#[test]
#[ignore = "minutes on the full en-de memory: run with --ignored and CMEM_FAULTS_CORPUS"]
fn full_memory_faults() {
    let corpus_path = PathBuf::from(std::env::var("CMEM_FAULTS_CORPUS").expect("set CMEM_FAULTS_CORPUS"));
    let corpus_path = std::fs::canonicalize(corpus_path).unwrap();
    let file = corpus_path.to_str().unwrap();
    let d = Dir::new();
    corpus(&d.path("base.jsonl"), "base", 1_000);
    d.ok(&["import", "-q", "--from", "en", "--to", "de", "base.jsonl"]);

    // An uninterrupted import, with its WAL's peak size sampled.
    let peak_wal = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, stop, wal) = (Arc::clone(&peak_wal), Arc::clone(&stop), d.path("timing.db-wal"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Ok(m) = std::fs::metadata(&wal) {
                    peak.fetch_max(m.len() as usize, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let started = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args([
            "-f",
            "peak_rss_kib=%M",
            CMEM,
            "--memory",
            "timing.db",
            "import",
            "-q",
            "--from",
            "en",
            "--to",
            "de",
            file,
        ])
        .current_dir(&d.0)
        .output()
        .unwrap();
    let took = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let entries = check(&d.path("timing.db"));
    let db_size = std::fs::metadata(d.path("timing.db")).unwrap().len();
    println!("import: {entries} entries in {:.1} s; {}", took.as_secs_f64(), stderr(&out).trim());
    println!(
        "import: peak WAL {:.0} MiB, memory file {:.0} MiB",
        peak_wal.load(Ordering::Relaxed) as f64 / 1048576.0,
        db_size as f64 / 1048576.0
    );

    // Rollback time: SIGINT at points through the import, time from the signal to exit.
    for frac in [4u32, 2, 1] {
        let at = took * 3 / (4 * frac);
        let mut child = d
            .cmd(&["import", "-q", "--from", "en", "--to", "de", file])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        let sent = Instant::now();
        signal(&child, "INT");
        let status = child.wait().unwrap();
        let rollback = sent.elapsed();
        let n = check(&d.path("cmem.db"));
        println!(
            "rollback: Ctrl-C after {:.1} s: exit {:?} in {:.2} s, {n} entries",
            at.as_secs_f64(),
            status.code(),
            rollback.as_secs_f64()
        );
        assert_eq!(n, 1_000);
    }

    // Killed at many points.
    let (stopped, finished) = kill_at_many_points(&d, "cmem.db", file, entries, &[11, 12], took);
    println!("kills: {stopped} stopped, {finished} had finished; every one left 1,000 entries or all");

    // A reader during an import sees the old state until the commit.
    let mut child = d.cmd(&["import", "-q", "--from", "en", "--to", "de", file]).spawn().unwrap();
    let mut counts = BTreeSet::new();
    while child.try_wait().unwrap().is_none() {
        let out = d.ok(&["stats", "--json"]);
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        counts.insert(v["entries"].as_u64().unwrap());
        std::thread::sleep(Duration::from_millis(200));
    }
    println!("readers during an import saw: {counts:?}");
    assert!(counts.iter().all(|n| *n == 1_000 || *n == 1_000 + entries));
}
