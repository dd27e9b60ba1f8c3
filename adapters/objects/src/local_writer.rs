//! Writing output files on the local filesystem, private from the first byte.
//!
//! object_store's local backend creates its staging files and directories with the process's
//! umask and could only be made private once complete, so while a file was written other
//! users of the machine could read the customers' points in it wherever the files directory
//! was readable. This writer creates each directory 0700 and the staging file 0600 (on Unix)
//! before anything is written, then renames the finished file into place, where the local
//! backend reads, lists and deletes it as its own.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use alerts_core::ports::{FileError, FileWriter};
use async_trait::async_trait;
use bytes::{Bytes, BytesMut};

/// Bytes kept in memory before they are written out. A small alert file (most are) is
/// written whole when it is finished: every step of a file costs a hand-off to a blocking
/// thread, and a job that writes a few lines should pay for two of them, not one per call.
const WRITE_BUFFER: usize = 64 * 1024;

/// A file being written under a local files directory: `<target>#<digits>` until finished.
/// The local backend ignores names ending in `#` and digits (its own staging files), so an
/// unfinished file is never listed or served, and the retention sweep removes one that a
/// crashed process left.
#[derive(Debug)]
pub(crate) struct LocalFileWriter {
    target: PathBuf,
    staging: PathBuf,
    /// `None` once finished, aborted or failed, and while a blocking step holds it.
    file: Option<std::fs::File>,
    /// Whether the staging file may still be there for this writer to remove: until it is
    /// renamed into place or removed, so that a writer dropped in the middle of a step (its
    /// job cancelled) leaves nothing behind.
    staged: bool,
    /// Written but not yet handed to the file.
    pending: BytesMut,
    written: u64,
}

fn io_failed(what: &str, path: &Path, e: &std::io::Error) -> FileError {
    FileError::Other(format!(
        "cannot {what} {}: {e}; check the files directory's permissions and free space",
        path.display()
    ))
}

/// Runs a step of the file's on the blocking threads, as one hand-off.
async fn blocking<T: Send + 'static>(
    step: impl FnOnce() -> Result<T, FileError> + Send + 'static,
) -> Result<T, FileError> {
    tokio::task::spawn_blocking(step)
        .await
        .map_err(|e| FileError::Other(format!("a file step stopped: {e}")))?
}

impl LocalFileWriter {
    /// Creates the missing directories above `target` (0700) and its staging file (0600).
    pub(crate) async fn create(target: PathBuf) -> Result<Self, FileError> {
        // Without `unless_exists`, `start` always creates the staging file.
        Self::start(target, false)
            .await?
            .ok_or_else(|| FileError::Other("the staging file was not created".to_owned()))
    }

    /// [`LocalFileWriter::create`], unless `target` is a complete file already (`None`),
    /// looked up in the same step.
    pub(crate) async fn create_unless_exists(target: PathBuf) -> Result<Option<Self>, FileError> {
        Self::start(target, true).await
    }

    async fn start(target: PathBuf, unless_exists: bool) -> Result<Option<Self>, FileError> {
        // Digits only after the `#`: that is what the local backend takes for a staging file.
        let mut name = target.as_os_str().to_owned();
        name.push(format!("#{}", uuid::Uuid::new_v4().as_u128()));
        let staging = PathBuf::from(name);
        let started = blocking(move || {
            if unless_exists {
                match std::fs::metadata(&target) {
                    Ok(found) if found.is_file() => return Ok(None),
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io_failed("look for", &target, &e)),
                }
            }
            if let Some(parent) = target.parent() {
                let mut dirs = std::fs::DirBuilder::new();
                dirs.recursive(true);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::DirBuilderExt;
                    dirs.mode(0o700);
                }
                dirs.create(parent)
                    .map_err(|e| io_failed("create the directory", parent, &e))?;
            }
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let file = options
                .open(&staging)
                .map_err(|e| io_failed("create", &staging, &e))?;
            Ok(Some((file, target, staging)))
        })
        .await?;
        Ok(started.map(|(file, target, staging)| Self {
            target,
            staging,
            file: Some(file),
            staged: true,
            pending: BytesMut::new(),
            written: 0,
        }))
    }

    /// Where the unfinished file is, for tests.
    #[cfg(test)]
    pub(crate) fn staging(&self) -> &Path {
        &self.staging
    }

    fn closed() -> FileError {
        FileError::Other(
            "this file's write failed earlier; abandon the writer and create the file again"
                .to_owned(),
        )
    }

    /// Hands the pending bytes to the file.
    async fn write_out(&mut self) -> Result<(), FileError> {
        let mut file = self.file.take().ok_or_else(Self::closed)?;
        let bytes = self.pending.split().freeze();
        let staging = self.staging.clone();
        match blocking(move || {
            file.write_all(&bytes)
                .map_err(|e| io_failed("write", &staging, &e))?;
            Ok(file)
        })
        .await
        {
            Ok(file) => {
                self.file = Some(file);
                Ok(())
            }
            Err(e) => {
                self.discard().await;
                Err(e)
            }
        }
    }

    /// Removes the staging file after a failure; the error that caused it is what matters.
    async fn discard(&mut self) {
        self.file = None;
        let staging = self.staging.clone();
        let _ = blocking(move || Ok(std::fs::remove_file(staging))).await;
        self.staged = false;
    }
}

#[async_trait]
impl FileWriter for LocalFileWriter {
    async fn write(&mut self, chunk: Bytes) -> Result<(), FileError> {
        if self.file.is_none() {
            return Err(Self::closed());
        }
        self.pending.extend_from_slice(&chunk);
        self.written += chunk.len() as u64;
        if self.pending.len() >= WRITE_BUFFER {
            self.write_out().await?;
        }
        Ok(())
    }

    async fn finish(mut self: Box<Self>) -> Result<u64, FileError> {
        let mut file = self.file.take().ok_or_else(Self::closed)?;
        let rest = self.pending.split().freeze();
        let (staging, target) = (self.staging.clone(), self.target.clone());
        let done = blocking(move || {
            // On disk before it is announced: a webhook naming the file follows at once.
            file.write_all(&rest)
                .and_then(|()| file.sync_all())
                .map_err(|e| io_failed("write", &staging, &e))?;
            drop(file);
            std::fs::rename(&staging, &target)
                .map_err(|e| io_failed("move into place", &target, &e))?;
            // The rename itself is durable once the directory is synced; best effort, since
            // the file is complete either way.
            if let Some(parent) = target.parent()
                && let Ok(dir) = std::fs::File::open(parent)
            {
                let _ = dir.sync_all();
            }
            Ok(())
        })
        .await;
        if let Err(e) = done {
            // Whatever failed, nothing is left at the final name; the staging file goes.
            self.discard().await;
            return Err(e);
        }
        self.staged = false;
        Ok(self.written)
    }

    async fn abort(mut self: Box<Self>) -> Result<(), FileError> {
        if self.file.take().is_some() {
            let staging = self.staging.clone();
            blocking(move || match std::fs::remove_file(&staging) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(io_failed("remove", &staging, &e)),
            })
            .await?;
        }
        self.staged = false;
        Ok(())
    }
}

impl Drop for LocalFileWriter {
    fn drop(&mut self) {
        // Abandoned unfinished: nothing should keep the partial file. A blocking step still
        // under way then fails to rename a file that is gone, and nobody waits for it.
        if self.staged {
            let _ = std::fs::remove_file(&self.staging);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_file_is_private_while_it_is_written_and_after() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        // A directory anyone may read, as one made by hand with a lax umask would be.
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let target = root.path().join("alerts/deep/file.ndjson");
        let mut writer = LocalFileWriter::create(target.clone()).await.unwrap();
        writer
            .write(Bytes::from_static(b"{\"a\":1}\n"))
            .await
            .unwrap();
        let staging = writer.staging().to_owned();
        assert_eq!(mode(&staging), 0o600, "the unfinished file");
        assert_eq!(mode(&root.path().join("alerts")), 0o700);
        assert_eq!(mode(&root.path().join("alerts/deep")), 0o700);
        assert!(
            !target.exists(),
            "nothing at the final name before it is finished"
        );

        assert_eq!(Box::new(writer).finish().await.unwrap(), 8);
        assert_eq!(mode(&target), 0o600, "the finished file");
        assert!(!staging.exists());
        assert_eq!(std::fs::read(&target).unwrap(), b"{\"a\":1}\n");
    }

    #[tokio::test]
    async fn an_abandoned_file_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("alerts/file.ndjson");
        let mut writer = LocalFileWriter::create(target.clone()).await.unwrap();
        writer.write(Bytes::from_static(b"partial")).await.unwrap();
        let staging = writer.staging().to_owned();
        drop(writer);
        assert!(!staging.exists() && !target.exists());

        let writer = LocalFileWriter::create(target.clone()).await.unwrap();
        let staging = writer.staging().to_owned();
        Box::new(writer).abort().await.unwrap();
        assert!(!staging.exists() && !target.exists());
    }
}
