//! What an operator's machine holds stays the operator's: admin commands take a full API key
//! only from standard input or the environment, printed database URLs hide their passwords,
//! and the data directory, the database and the output files are readable by the server's
//! own user only.

use std::path::Path;

use serde_json::Value;

use crate::alerts::post_points;
use crate::harness::Deployment;
use test_support::receiver::Receiver;

#[track_caller]
fn succeeded(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn admin_takes_a_full_key_from_stdin_or_the_environment_never_from_its_arguments() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    deployment.add_rule(&key, "aq", "24h", "high");

    // In the arguments, a key is visible to every user of the machine (`ps`) and stays in the
    // shell's history: refused, saying what to do instead, and nothing is looked up.
    let out = deployment.admin_output(&["list-rules", "--key", &key.key]);
    assert!(!out.status.success(), "a full key in argv was accepted");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for fragment in ["--key-stdin", "INSIGHTS_API_KEY", "id"] {
        assert!(stderr.contains(fragment), "`{fragment}` in {stderr}");
    }

    let by_id = succeeded(&deployment.admin_output(&["list-rules", "--key", &key.id]));
    assert_eq!(by_id.as_array().unwrap().len(), 1, "{by_id}");
    let from_stdin =
        succeeded(&deployment.admin_with_stdin(&["list-rules", "--key-stdin"], &key.key));
    assert_eq!(from_stdin, by_id);
    let from_env = succeeded(
        &deployment
            .admin_command(&["list-rules"])
            .env("INSIGHTS_API_KEY", &key.key)
            .output()
            .unwrap(),
    );
    assert_eq!(from_env, by_id);

    // Without any of them, the command says how to name the key.
    let out = deployment.admin_output(&["list-rules"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--key ID"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_mistyped_database_url_is_printed_without_its_password() {
    let deployment = Deployment::new();
    for url in [
        "postgress://app:hunter2-secret@db.internal:5432/insights",
        "postgress://db.internal/insights?user=app&password=hunter2-secret",
    ] {
        let out = deployment.admin_output(&[
            "--database-url",
            url,
            "list-keys",
            "--email",
            "a@example.org",
        ]);
        assert!(!out.status.success(), "{url} was accepted");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !printed.contains("hunter2"),
            "the password was printed: {printed}"
        );
        assert!(
            printed.contains("db.internal"),
            "the URL is named: {printed}"
        );
        assert!(printed.contains("***"), "the password is masked: {printed}");
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// Every regular file under `dir`.
#[cfg(unix)]
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_directory_database_and_files_are_the_owners_only() {
    let mut deployment = Deployment::new();
    // A directory the server creates itself, as on a first start.
    let data = deployment.path().join("var").join("insights");
    deployment.set_data_dir(&data);
    let server = deployment.serve(&[]);
    assert_eq!(mode(&data), 0o700, "the data directory");
    assert_eq!(mode(&data.join("insights.db")), 0o600, "the database");
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");
    let token = post_points(&server, &key).await;
    receiver.delivery_for(&token).await;

    assert_eq!(mode(&data.join("files")), 0o700, "the files directory");
    for name in ["insights.db", "url-keys", "dashboard-key"] {
        assert_eq!(mode(&data.join(name)), 0o600, "{name}");
    }
    for side in ["insights.db-wal", "insights.db-shm"] {
        if data.join(side).exists() {
            assert_eq!(mode(&data.join(side)), 0o600, "{side}");
        }
    }
    let files = files_under(&data.join("files"));
    assert!(
        files
            .iter()
            .any(|f| f.to_string_lossy().ends_with(".ndjson")),
        "an output file was written: {files:?}"
    );
    for file in &files {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
}
