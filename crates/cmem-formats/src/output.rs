//! Writing an output file the way a user expects of `-o FILE`: a regular file is
//! replaced whole or not at all, what is not a regular file is written to as it is.
//!
//! [`OutputFile::create`] decides by what the path names:
//!
//! - `-`: standard output, written directly.
//! - A symbolic link: followed (to any depth) to its target, which is treated as below;
//!   the link stays a link.
//! - A regular file, or nothing yet: written as core's
//!   [`AtomicFile`], the one file replacement of
//!   cmem: a temporary file created exclusively (`O_EXCL`) under an unpredictable name
//!   (`.NAME.XXXXXXXXXXXXXXXX.tmp`) in the same directory, then, at [`commit`](OutputFile::commit), given the original's mode (and owner,
//!   where allowed), flushed to disk (`fsync`) and renamed over the name, so a reader
//!   sees the old file or the new one, never a part. A file the user may not write is
//!   refused before anything is created (a writable directory would otherwise let a
//!   rename replace it).
//! - A device, a FIFO, a socket: opened and written directly (`/dev/stdout`,
//!   `/dev/null`, a named pipe); nothing is renamed over it.
//! - A directory: refused.
//!
//! The temporary file is removed when the [`OutputFile`] is dropped without a commit:
//! on any error, a panic that unwinds, or a signal the program turns into an error
//! through [`OutputFile::cancel_on`]. Only a kill that runs no code at all (`SIGKILL`, a
//! power loss) can leave one behind, under its hidden name, never under the output's.
//!
//! ```
//! use std::io::Write;
//! use cmem_formats::output::OutputFile;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("out.tmx");
//! std::fs::write(&path, "old")?;
//! let mut out = OutputFile::create(&path)?;
//! out.write_all(b"new")?;
//! assert_eq!(std::fs::read_to_string(&path)?, "old"); // not replaced yet
//! out.commit()?;
//! assert_eq!(std::fs::read_to_string(&path)?, "new");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cmem_core::atomic_file::AtomicFile;

/// How many symbolic links are followed before giving up, as the kernel's `ELOOP`.
const MAX_LINKS: usize = 40;

/// Where the bytes go.
enum Target {
    Stdout(io::Stdout),
    /// A device, FIFO or socket.
    Direct(File),
    /// A temporary file to rename over `dest`; `meta` is the file it replaces (boxed:
    /// it is large, and there is one target).
    Atomic(Box<AtomicFile>),
}

/// An output being written; see the [module docs](self).
pub struct OutputFile {
    out: BufWriter<TargetWriter>,
    /// The path the user gave, for messages.
    name: PathBuf,
    cancel: Option<Arc<AtomicBool>>,
}

/// The [`Write`] side of a [`Target`].
struct TargetWriter(Target);

impl Write for TargetWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.0 {
            Target::Stdout(w) => w.write(buf),
            Target::Direct(f) => f.write(buf),
            Target::Atomic(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.0 {
            Target::Stdout(w) => w.flush(),
            Target::Direct(f) => f.flush(),
            Target::Atomic(f) => f.flush(),
        }
    }
}

impl fmt::Debug for OutputFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match &self.out.get_ref().0 {
            Target::Stdout(_) => "stdout".to_owned(),
            Target::Direct(_) => "direct".to_owned(),
            Target::Atomic(f) => format!("via {}", f.temp_path().display()),
        };
        f.debug_struct("OutputFile").field("name", &self.name).field("how", &how).finish()
    }
}

/// Follows `path` through symbolic links to what it finally names (which may not exist).
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other(format!("more than {MAX_LINKS} symbolic links")))
}

impl OutputFile {
    /// Opens `path` for writing; see the [module docs](self) for what each kind of path
    /// gets. Nothing is created under the name itself before [`commit`](Self::commit).
    ///
    /// # Errors
    /// A directory, a file or directory the user may not write
    /// ([`io::ErrorKind::PermissionDenied`]), a loop of links, or another I/O failure;
    /// nothing is then created or changed.
    pub fn create(path: &Path) -> io::Result<OutputFile> {
        let target = if path == Path::new("-") {
            Target::Stdout(io::stdout())
        } else if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            // Asked of the path itself: the kernel follows `/dev/stdout` →
            // `/proc/self/fd/1` → a pipe, which no path names.
            Target::Direct(OpenOptions::new().write(true).open(path)?)
        } else {
            let dest = resolve(path)?;
            match fs::metadata(&dest) {
                Ok(m) if m.is_dir() => {
                    return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
                }
                Ok(m) if m.is_file() => {
                    // Opening for writing (not truncating) changes nothing and asks the
                    // system, ACLs and read-only mounts included, whether we may.
                    drop(OpenOptions::new().write(true).open(&dest)?);
                    Target::Atomic(Box::new(AtomicFile::create(&dest)?))
                }
                Ok(_) => Target::Direct(OpenOptions::new().write(true).open(&dest)?),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    Target::Atomic(Box::new(AtomicFile::create(&dest)?))
                }
                Err(e) => return Err(e),
            }
        };
        Ok(OutputFile {
            out: BufWriter::with_capacity(64 * 1024, TargetWriter(target)),
            name: path.to_path_buf(),
            cancel: None,
        })
    }

    /// Makes every later write fail once `flag` is set: a program's signal handler sets
    /// it, the write in progress returns an error, and the caller's error path drops
    /// this output, which removes the temporary file.
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(flag);
    }

    /// The path given to [`create`](Self::create).
    pub fn name(&self) -> &Path {
        &self.name
    }

    /// True when the output replaces a regular file (or creates one) at commit.
    pub fn is_atomic(&self) -> bool {
        matches!(self.out.get_ref().0, Target::Atomic(_))
    }

    /// Finishes the output: flushes; for a regular file, gives the temporary file the
    /// original's mode, syncs it to disk and renames it over the name.
    ///
    /// # Errors
    /// I/O; the temporary file is then removed and the original left as it was.
    pub fn commit(self) -> io::Result<()> {
        self.check_cancel()?;
        let target = self.out.into_inner().map_err(io::IntoInnerError::into_error)?.0;
        match target {
            Target::Stdout(mut w) => w.flush(),
            Target::Direct(mut f) => f.flush(),
            Target::Atomic(f) => f.commit(),
        }
    }

    fn check_cancel(&self) -> io::Result<()> {
        if self.cancel.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(io::Error::other("interrupted"));
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check_cancel()?;
        self.out.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.check_cancel()?;
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.check_cancel()?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::os::unix::fs::{symlink, FileTypeExt, MetadataExt, PermissionsExt};

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut out = OutputFile::create(path)?;
        out.write_all(bytes)?;
        out.commit()
    }

    #[test]
    fn a_regular_file_is_replaced_keeping_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.tmx");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let inode = fs::metadata(&path).unwrap().ino();
        write(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_ne!(fs::metadata(&path).unwrap().ino(), inode, "not replaced by a rename");
        assert_eq!(entries(dir.path()), vec!["a.tmx"]);
    }

    #[test]
    fn a_new_file_is_created_and_nothing_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.jsonl");
        write(&path, b"x").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "x");
        assert_eq!(entries(dir.path()), vec!["new.jsonl"]);
    }

    #[test]
    fn a_symlink_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.tmx");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.tmx");
        symlink("real.tmx", &link).unwrap();
        let chain = dir.path().join("chain.tmx");
        symlink(&link, &chain).unwrap();
        write(&chain, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(fs::symlink_metadata(&chain).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link creates its target.
        let dangling = dir.path().join("dangling.tmx");
        symlink("made.tmx", &dangling).unwrap();
        write(&dangling, b"made").unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("made.tmx")).unwrap(), "made");
    }

    #[test]
    fn a_device_or_fifo_is_written_directly() {
        write(Path::new("/dev/null"), b"nothing").unwrap();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        // A device that fails writes fails the output, and nothing is renamed over it.
        if Path::new("/dev/full").exists() {
            assert!(write(Path::new("/dev/full"), &[0u8; 100_000]).is_err());
            assert!(fs::metadata("/dev/full").unwrap().file_type().is_char_device());
        }
    }

    #[test]
    fn failures_and_cancels_leave_no_temporary_file_and_the_old_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.tmx");
        fs::write(&path, "old").unwrap();
        {
            let mut out = OutputFile::create(&path).unwrap();
            assert!(out.is_atomic());
            out.write_all(b"half").unwrap();
            out.flush().unwrap();
            assert_eq!(entries(dir.path()).len(), 2);
            // dropped: an error path
        }
        assert_eq!(entries(dir.path()), vec!["a.tmx"]);
        let flag = Arc::new(AtomicBool::new(false));
        let mut out = OutputFile::create(&path).unwrap();
        out.cancel_on(Arc::clone(&flag));
        out.write_all(b"part").unwrap();
        flag.store(true, Ordering::Relaxed);
        assert!(out.write_all(b"more").is_err());
        assert!(out.commit().is_err());
        assert_eq!(entries(dir.path()), vec!["a.tmx"]);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert!(OutputFile::create(dir.path()).is_err());
    }

    #[test]
    fn temporary_names_are_not_predictable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.tmx");
        let a = OutputFile::create(&path).unwrap();
        let b = OutputFile::create(&path).unwrap();
        let names = entries(dir.path());
        assert_eq!(names.len(), 2);
        assert!(names.iter().all(|n| n.starts_with(".a.tmx.") && n.ends_with(".tmp")), "{names:?}");
        assert_ne!(names[0], names[1]);
        drop((a, b));
    }
}
