//! What only the server's own user may read: the data directory (0700) and the dashboard's
//! CSRF key file in it (0600), and database URLs printed without their passwords.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use insights_dashboard::CsrfKey;

/// The name of the dashboard's CSRF key file in the data directory.
pub(crate) const CSRF_KEY_FILE: &str = "dashboard-key";

/// Creates `dir` and its missing parents readable by the owner only (0700 on Unix). A
/// directory that exists already keeps its permissions: the operator chose them.
pub(crate) fn create_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .with_context(|| format!("cannot create the data directory {}", dir.display()))
}

/// The dashboard's CSRF key from `path`, created with 32 random bytes (0600 on Unix) when it
/// does not exist. Replicas behind one address must share the file.
pub(crate) fn csrf_key(path: &Path) -> Result<CsrfKey> {
    let read = || -> Result<Option<CsrfKey>> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let line = text
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty() && !l.starts_with('#'))
                    .unwrap_or_default();
                let bytes = hex::decode(line).with_context(|| {
                    format!("the key file {} does not hold a key in hex", path.display())
                })?;
                let key = CsrfKey::new(bytes)
                    .with_context(|| format!("the key file {}", path.display()))?;
                Ok(Some(key))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    };
    if let Some(key) = read()? {
        return Ok(key);
    }
    let mut secret = [0u8; CsrfKey::MIN_LEN];
    rand::fill(&mut secret[..]);
    let text = format!(
        "# The key that signs the dashboard's sign-in forms. Replicas behind one address need\n\
         # the same file; replacing it only makes open sign-in pages ask for a reload.\n{}\n",
        hex::encode(secret)
    );
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        // Another process created it first: whatever is on disk wins, so that both agree.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
    match read()? {
        Some(key) => Ok(key),
        None => bail!("the key file {} vanished as it was created", path.display()),
    }
}

/// `url` without its password, for printing: the password of the user part
/// (`scheme://user:password@host`) and any `password=` parameter become `***`. Text that is
/// not a URL is returned as it is.
pub(crate) fn redact_url(url: &str) -> String {
    let mut out = match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    };
    if let Some((base, query)) = out.split_once('?') {
        let query = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if name.eq_ignore_ascii_case("password") => {
                    format!("{name}=***")
                }
                _ => pair.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("&");
        out = format!("{base}?{query}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_print() {
        assert_eq!(
            redact_url("postgres://app:s3cret@db:5432/insights"),
            "postgres://app:***@db:5432/insights"
        );
        assert_eq!(
            redact_url("postgres://app:p@ss@db/insights"),
            "postgres://app:***@db/insights"
        );
        assert_eq!(
            redact_url("postgres://db/insights?user=app&password=s3cret&sslmode=require"),
            "postgres://db/insights?user=app&password=***&sslmode=require"
        );
        assert_eq!(
            redact_url("postgress://app:s3cret@db/insights"),
            "postgress://app:***@db/insights"
        );
        assert_eq!(
            redact_url("postgres://app@db/insights"),
            "postgres://app@db/insights"
        );
        assert_eq!(
            redact_url("sqlite://insights-data/insights.db"),
            "sqlite://insights-data/insights.db"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_data_directory_and_the_key_file_are_the_owners_only() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a").join("data");
        create_dir(&dir).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        let path = dir.join(CSRF_KEY_FILE);
        csrf_key(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
        // Read back, not replaced.
        let text = std::fs::read_to_string(&path).unwrap();
        csrf_key(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn a_key_file_without_a_key_is_refused_with_its_path() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join(CSRF_KEY_FILE);
        std::fs::write(&path, "# nothing\nabcd\n").unwrap();
        let err = format!("{:#}", csrf_key(&path).unwrap_err());
        assert!(err.contains(CSRF_KEY_FILE), "{err}");
    }
}
