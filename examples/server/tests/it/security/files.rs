//! Output files are private to the server's user from the start, even in a files directory
//! that anyone may read. (That a file is 0600 while it is still being written is shown by the
//! unit tests of `insights-objects`' local writer, which can stop a write halfway.)

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use test_support::receiver::Receiver;

use crate::alerts::{add_sensitive_rules, post_points};
use crate::harness::Deployment;

use super::fixtures::serve;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_and_their_directories_are_private_in_a_world_readable_files_directory() {
    let deployment = Deployment::new();
    let dir = deployment.path().join("shared-files");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let deployment = deployment.flag("--object-store", &format!("file://{}", dir.display()));
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    add_sensitive_rules(&deployment, &key);
    let server = serve(&deployment, &[]);
    let token = post_points(&server, &key).await;
    receiver.delivery_for(&token).await;

    let mut files = 0;
    let mut pending = vec![dir.clone()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                assert_eq!(mode(&path), 0o700, "{}", path.display());
                pending.push(path);
            } else {
                assert_eq!(mode(&path), 0o600, "{}", path.display());
                assert!(
                    !path.to_string_lossy().contains('#'),
                    "no unfinished file is left: {}",
                    path.display()
                );
                files += 1;
            }
        }
    }
    assert!(
        files >= 1,
        "the alert file was written under {}",
        dir.display()
    );
    assert_eq!(
        mode(&dir),
        0o755,
        "a directory that existed keeps its permissions"
    );
}
