//! The admin commands as an operator runs them: JSON output, global flags anywhere, and the
//! same validation and messages as the API.

use std::process::Output;

use serde_json::Value;

use crate::harness::Deployment;

#[track_caller]
fn assert_refused(out: &Output, mentions: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "should fail: {stderr}");
    for fragment in mentions {
        assert!(
            stderr.contains(fragment),
            "should mention `{fragment}`: {stderr}"
        );
    }
}

#[test]
fn create_key_prints_the_key_its_prefix_and_its_webhook_secret_as_json() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    assert!(key.key.starts_with("ik_"), "{}", key.key);
    assert!(
        key.key.starts_with(&key.prefix),
        "{} {}",
        key.key,
        key.prefix
    );
    assert!(key.prefix.len() < key.key.len());
    assert!(key.secret.starts_with("whsec_"), "{}", key.secret);
    uuid::Uuid::parse_str(&key.id).unwrap();
}

#[test]
fn global_flags_work_after_the_subcommand_too() {
    let deployment = Deployment::new();
    let email = "flags-last@example.org";
    deployment.admin(&[
        "create-account",
        "--email",
        email,
        "--password",
        "correct horse battery",
    ]);
    let key = deployment.admin(&["create-key", "--email", email]);
    let out = deployment.admin_output_flags_last(&["list-keys", "--email", email]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let keys: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keys.as_array().unwrap().len(), 1, "{keys}");
    assert_eq!(keys[0]["prefix"], key["prefix"]);
    assert!(
        !keys.to_string().contains(key["key"].as_str().unwrap()),
        "listing never shows a full key"
    );
}

#[test]
fn set_webhook_refuses_other_schemes_and_private_and_metadata_addresses() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let set = |url: &str| deployment.admin_output(&["set-webhook", "--key", &key.id, "--url", url]);
    assert_refused(&set("ftp://example.org/hook"), &["http://", "ftp"]);
    assert_refused(&set("http://10.1.2.3/hook"), &["10.1.2.3", "private"]);
    assert_refused(
        &set("http://169.254.169.254/latest"),
        &["169.254.169.254", "link-local"],
    );
    // Loopback is the local quick start, allowed while the server listens on loopback.
    let stored = deployment.admin(&[
        "set-webhook",
        "--key",
        &key.id,
        "--url",
        "http://127.0.0.1:9/hook",
    ]);
    assert_eq!(stored["webhook_url"], "http://127.0.0.1:9/hook", "{stored}");
}

#[test]
fn add_rule_refuses_unknown_values_naming_the_allowed_ones() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let add = |data_type: &str, forecast: &str, sensitivity: &str| {
        deployment.admin_output(&[
            "add-rule",
            "--key",
            &key.id,
            "--type",
            data_type,
            "--forecast",
            forecast,
            "--sensitivity",
            sensitivity,
        ])
    };
    assert_refused(&add("aq", "5h", "high"), &["forecast", "5h", "6h"]);
    assert_refused(
        &add("pollen", "2d", "extreme"),
        &["sensitivity", "extreme", "medium"],
    );
    assert_refused(&add("noise", "2d", "high"), &["noise"]);
    let rules = deployment.admin(&["list-rules", "--key", &key.id]);
    assert_eq!(
        rules,
        Value::Array(Vec::new()),
        "nothing refused was stored"
    );
}

#[test]
fn commands_on_an_unknown_key_fail_saying_so() {
    let deployment = Deployment::new();
    let unknown = uuid::Uuid::new_v4().to_string();
    let out = deployment.admin_output(&["list-rules", "--key", &unknown]);
    assert_refused(&out, &["no active key", &unknown]);
    let out = deployment.admin_output(&["list-rules", "--key", "not-an-id"]);
    assert_refused(&out, &["not-an-id", "not a key id"]);
    let out = deployment.admin_with_stdin(&["list-rules", "--key-stdin"], "ik_nope");
    assert_refused(&out, &["no active key"]);
}
