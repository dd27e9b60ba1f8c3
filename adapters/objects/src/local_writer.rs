//! Writing output files on the local filesystem, private from the first byte.
//!
//! object_store's local backend creates its staging files and directories with the process's
//! umask and could only be made private once complete, so while a file was written other
//! users of the machine could read the customers' points in it wherever the files directory
//! was readable. This writer creates each directory 0700 and the staging file 0600 (on Unix)
//! before anything is written, then renames the finished file into place, where the local
//! backend reads, lists and deletes it as its own.

use std::path::{Path, PathBuf};

use alerts_core::ports::{FileError, FileWriter};
use async_trait::async_trait;
use bytes::Bytes;
use tokio::io::{AsyncWriteExt as _, BufWriter};

/// A file being written under a local files directory: `<target>#<digits>` until finished.
/// The local backend ignores names ending in `#` and digits (its own staging files), so an
/// unfinished file is never listed or served, and the retention sweep removes one that a
/// crashed process left.
#[derive(Debug)]
pub(crate) struct LocalFileWriter {
    target: PathBuf,
    staging: PathBuf,
    /// `None` once finished, aborted or failed.
    file: Option<BufWriter<tokio::fs::File>>,
    written: u64,
}

fn io_failed(what: &str, path: &Path, e: &std::io::Error) -> FileError {
    FileError::Other(format!(
        "cannot {what} {}: {e}; check the files directory's permissions and free space",
        path.display()
    ))
}

impl LocalFileWriter {
    /// Creates the missing directories above `target` (0700) and its staging file (0600).
    pub(crate) async fn create(target: PathBuf) -> Result<Self, FileError> {
        if let Some(parent) = target.parent() {
            let mut dirs = tokio::fs::DirBuilder::new();
            dirs.recursive(true);
            #[cfg(unix)]
            dirs.mode(0o700);
            dirs.create(parent)
                .await
                .map_err(|e| io_failed("create the directory", parent, &e))?;
        }
        // Digits only after the `#`: that is what the local backend takes for a staging file.
        let mut name = target.as_os_str().to_owned();
        name.push(format!("#{}", uuid::Uuid::new_v4().as_u128()));
        let staging = PathBuf::from(name);
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(0o600);
        let file = options
            .open(&staging)
            .await
            .map_err(|e| io_failed("create", &staging, &e))?;
        Ok(Self {
            target,
            staging,
            file: Some(BufWriter::new(file)),
            written: 0,
        })
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

    /// Removes the staging file after a failure; the error that caused it is what matters.
    async fn discard(&mut self) {
        self.file = None;
        let _ = tokio::fs::remove_file(&self.staging).await;
    }
}

#[async_trait]
impl FileWriter for LocalFileWriter {
    async fn write(&mut self, chunk: Bytes) -> Result<(), FileError> {
        let file = self.file.as_mut().ok_or_else(Self::closed)?;
        if let Err(e) = file.write_all(&chunk).await {
            let error = io_failed("write", &self.staging, &e);
            self.discard().await;
            return Err(error);
        }
        self.written += chunk.len() as u64;
        Ok(())
    }

    async fn finish(mut self: Box<Self>) -> Result<u64, FileError> {
        let mut file = self.file.take().ok_or_else(Self::closed)?;
        // On disk before it is announced: a webhook naming the file follows at once.
        let synced = async {
            file.flush().await?;
            file.get_ref().sync_all().await
        }
        .await;
        drop(file);
        if let Err(e) = synced {
            let error = io_failed("write", &self.staging, &e);
            self.discard().await;
            return Err(error);
        }
        if let Err(e) = tokio::fs::rename(&self.staging, &self.target).await {
            let error = io_failed("move into place", &self.target, &e);
            self.discard().await;
            return Err(error);
        }
        // The rename itself is durable once the directory is synced; best effort, since the
        // file is complete either way.
        if let Some(parent) = self.target.parent()
            && let Ok(dir) = tokio::fs::File::open(parent).await
        {
            let _ = dir.sync_all().await;
        }
        Ok(self.written)
    }

    async fn abort(mut self: Box<Self>) -> Result<(), FileError> {
        if self.file.take().is_some() {
            match tokio::fs::remove_file(&self.staging).await {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_failed("remove", &self.staging, &e)),
            }
        }
        Ok(())
    }
}

impl Drop for LocalFileWriter {
    fn drop(&mut self) {
        // Abandoned unfinished: nothing should keep the partial file.
        if self.file.take().is_some() {
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
