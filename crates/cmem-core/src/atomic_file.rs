//! The one way cmem replaces a file whole: index files and `-o FILE` outputs alike.
//!
//! An [`AtomicFile`] writes to a temporary file created exclusively (`O_EXCL`) under an
//! unpredictable name (`.NAME.XXXXXXXXXXXXXXXX.tmp`) beside the destination; at
//! [`commit`](AtomicFile::commit) it takes the mode (and owner, where allowed) of the
//! file it replaces, is flushed to disk (`fsync`), renamed over the name, and the
//! directory is synced, so a reader sees the old file or the new one, whole, and a
//! mapping of the old file keeps its bytes (the name points at a new inode). Dropped
//! without a commit (an error, a panic that unwinds), it removes the temporary file;
//! only a kill that runs no code can leave one, under its hidden name, and
//! [`replace_with`] removes those of its destination once they are old.
//!
//! This, the scratch files of an index file's build and the index file's streaming are
//! core's only file I/O (ARCHITECTURE.md).

use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A temporary file left this long was left by a writer that died (a write takes
/// seconds): [`replace_with`] removes it.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(600);

/// A file being written under a temporary name, to replace its destination whole at
/// [`commit`](Self::commit); see the [module docs](self).
#[derive(Debug)]
pub struct AtomicFile {
    out: Option<BufWriter<File>>,
    temp: PathBuf,
    dest: PathBuf,
    /// The file replaced, whose mode and owner the new one takes.
    replaces: Option<fs::Metadata>,
}

/// The directory a temporary file for `path` goes in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The hidden temporary names of `dest`: `.NAME.` … `.tmp`.
fn temp_affixes(dest: &Path) -> (String, &'static str) {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    (format!(".{name}."), ".tmp")
}

impl AtomicFile {
    /// Begins replacing `dest` (a path that names a regular file or nothing; links are
    /// the caller's to follow): a new temporary file beside it, with the mode of the file
    /// it replaces or, for a new file, `0666` less the umask.
    ///
    /// # Errors
    /// When the temporary file cannot be created.
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        let replaces = fs::metadata(dest).ok().filter(fs::Metadata::is_file);
        let mode = replaces.as_ref().map_or(0o666, |m| m.mode() & 0o777);
        let (file, temp) = create_temp(dest, OpenOptions::new().write(true).mode(mode))?;
        let out = Some(BufWriter::with_capacity(1 << 20, file));
        Ok(AtomicFile { out, temp, dest: dest.to_path_buf(), replaces })
    }

    /// The temporary file's path.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    fn out(&mut self) -> io::Result<&mut BufWriter<File>> {
        self.out.as_mut().ok_or_else(|| io::Error::other("already committed"))
    }

    /// Replaces the destination: the mode and owner of the file replaced, `fsync`, the
    /// rename, the directory synced.
    ///
    /// # Errors
    /// I/O; the temporary file is then removed and the destination left as it was.
    pub fn commit(mut self) -> io::Result<()> {
        let out = self.out.take().ok_or_else(|| io::Error::other("already committed"))?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        if let Some(m) = &self.replaces {
            file.set_permissions(fs::Permissions::from_mode(m.mode() & 0o7777))?;
            // Keep the owner where the system lets us (root replacing another user's
            // file); otherwise the new file is the writer's, as with any editor's save.
            let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
        }
        file.sync_all()?;
        fs::rename(&self.temp, &self.dest)?;
        // Renamed: nothing for the drop to remove.
        self.temp = PathBuf::new();
        // The rename itself is durable once the directory is synced.
        if let Ok(dir) = File::open(dir_of(&self.dest)) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out()?.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out()?.flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.out()?.seek(pos)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// A new file beside `dest` under one of its unpredictable temporary names, opened with
/// `options` and created exclusively.
fn create_temp(dest: &Path, options: &OpenOptions) -> io::Result<(File, PathBuf)> {
    let (prefix, suffix) = temp_affixes(dest);
    let seed = std::collections::hash_map::RandomState::new();
    for attempt in 0u64..100 {
        let mut h = seed.build_hasher();
        h.write_u64(attempt);
        h.write_u32(std::process::id());
        let temp = dir_of(dest).join(format!("{prefix}{:016x}{suffix}", h.finish()));
        match options.clone().create_new(true).open(&temp) {
            Ok(file) => return Ok((file, temp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary name"))
}

/// A scratch file beside `dest`, for what a writer of `dest` spills on its way (an index
/// file's sorted runs): opened for reading and writing, and unlinked at once, so it
/// takes space only while open and nothing is left after the process, however it ends.
///
/// # Errors
/// When it cannot be created or unlinked.
pub fn scratch(dest: &Path) -> io::Result<File> {
    let (file, temp) = create_temp(dest, OpenOptions::new().read(true).write(true).mode(0o600))?;
    fs::remove_file(&temp)?;
    Ok(file)
}

/// Replaces the file at `path` with what `write` writes (given the file at its start):
/// an [`AtomicFile`] committed when `write` succeeds. Temporary files of `path` that
/// killed writers left behind are removed first.
///
/// # Errors
/// When `write` fails or the file cannot be written, synced or renamed; nothing of it
/// is left then.
pub fn replace_with(path: &Path, write: impl FnOnce(&mut AtomicFile) -> io::Result<()>) -> io::Result<()> {
    remove_stale_temporaries(path);
    let mut file = AtomicFile::create(path)?;
    write(&mut file)?;
    file.commit()
}

/// Removes the temporary files of `path` not written to for [`STALE_TEMPORARY`]
/// (and those of earlier versions, `NAME.tmp-…`); anything that cannot be read or
/// removed is left.
fn remove_stale_temporaries(path: &Path) {
    let (prefix, suffix) = temp_affixes(path);
    let earlier = format!("{}.tmp-", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
    let Ok(entries) = fs::read_dir(dir_of(path)) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !((name.starts_with(&prefix) && name.ends_with(suffix)) || name.starts_with(&earlier)) {
            continue;
        }
        let age = entry.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
        if age.is_some_and(|age| age > STALE_TEMPORARY) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }

    #[test]
    fn a_file_is_replaced_whole_or_left_and_old_temporaries_go() -> io::Result<()> {
        let dir = std::env::temp_dir().join(format!("cmem-atomic-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir)?;
        let path = dir.join("a.gix");
        fs::write(&path, "old")?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600))?;
        // A killed writer's temporary, old enough to be stale, and a fresh one another
        // writer may still be writing.
        let stale = dir.join(".a.gix.0000000000000001.tmp");
        let fresh = dir.join(".a.gix.0000000000000002.tmp");
        fs::write(&stale, "x")?;
        fs::write(&fresh, "x")?;
        let ten_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(36_000);
        File::options().write(true).open(&stale)?.set_modified(ten_hours_ago)?;
        let failed = replace_with(&path, |f| {
            f.write_all(&[1; 3 << 20])?;
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read(&path)?, b"old");
        assert_eq!(
            names(&dir),
            [".a.gix.0000000000000002.tmp", "a.gix"],
            "the stale temporary and the failed one gone"
        );
        replace_with(&path, |f| {
            f.write_all(b"nexw")?;
            f.seek(SeekFrom::Start(2))?;
            f.write_all(b"w")
        })?;
        assert_eq!(fs::read(&path)?, b"neww");
        assert_eq!(fs::metadata(&path)?.mode() & 0o777, 0o600, "the replaced file's mode");
        fs::remove_dir_all(&dir)
    }
}
