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
    deployment.create_account(email, "correct horse battery");
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
fn add_rule_aq_index_us_epa_is_stored_and_defaults_to_cleanliness() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let add = |extra: &[&str]| {
        let mut args = vec![
            "add-rule",
            "--key",
            &key.id,
            "--type",
            "aq",
            "--forecast",
            "3h",
            "--sensitivity",
            "high",
        ];
        args.extend_from_slice(extra);
        deployment.admin_output(&args)
    };
    assert_refused(
        &add(&["--aq-index", "eaqi"]),
        &["aq_index", "eaqi", "us_epa"],
    );
    let us = add(&["--aq-index", "us-epa"]);
    assert!(
        us.status.success(),
        "{}",
        String::from_utf8_lossy(&us.stderr)
    );
    let us: Value = serde_json::from_slice(&us.stdout).unwrap();
    assert_eq!(us["rule"]["aq_index"], "us_epa", "{us}");
    let default = add(&[]);
    assert!(
        default.status.success(),
        "{}",
        String::from_utf8_lossy(&default.stderr)
    );

    let rules = deployment.admin(&["list-rules", "--key", &key.id]);
    let index_of = |id: &Value| {
        rules
            .as_array()
            .unwrap()
            .iter()
            .find(|r| &r["id"] == id)
            .map(|r| r["rule"].get("aq_index").cloned())
    };
    assert_eq!(
        index_of(&us["id"]),
        Some(Some(Value::from("us_epa"))),
        "{rules}"
    );
    // The default is not written, so it reads as stored rules always did.
    let default: Value = serde_json::from_slice(&default.stdout).unwrap();
    assert_eq!(index_of(&default["id"]), Some(None), "{rules}");
}

#[test]
fn add_rule_audience_is_stored_listed_and_defaults_to_the_general_population() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let add = |extra: &[&str]| {
        let mut args = vec![
            "add-rule",
            "--key",
            &key.id,
            "--type",
            "pollen",
            "--forecast",
            "1d",
            "--sensitivity",
            "medium",
        ];
        args.extend_from_slice(extra);
        deployment.admin_output(&args)
    };
    assert_refused(
        &add(&["--audience", "teens"]),
        &["audience", "teens", "older_adults"],
    );
    let mut added = Vec::new();
    for (flag, wire) in [
        ("children", "children"),
        ("older-adults", "older_adults"),
        ("heart-or-lung-disease", "heart_or_lung_disease"),
        ("pregnancy", "pregnancy"),
        ("athletes", "athletes"),
    ] {
        let out = add(&["--audience", flag]);
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(out["rule"]["audience"], wire, "{out}");
        added.push((out["id"].clone(), Some(Value::from(wire))));
    }
    let out = add(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The default is not written, so it reads as stored rules always did.
    added.push((out["id"].clone(), None));
    // Naming the default is the same rule again.
    assert_refused(&add(&["--audience", "general"]), &["same settings"]);

    let rules = deployment.admin(&["list-rules", "--key", &key.id]);
    for (id, audience) in added {
        let listed = rules
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["rule"].get("audience").cloned());
        assert_eq!(listed, Some(audience), "{rules}");
    }
}

#[test]
fn add_rule_repeat_once_is_stored_listed_and_every_is_the_default() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let add = |extra: &[&str]| {
        let mut args = vec![
            "add-rule",
            "--key",
            &key.id,
            "--type",
            "aq",
            "--forecast",
            "6h",
            "--sensitivity",
            "high",
        ];
        args.extend_from_slice(extra);
        deployment.admin_output(&args)
    };
    assert_refused(
        &add(&["--repeat", "twice"]),
        &["repeat", "twice", "every, once"],
    );
    let parsed = |out: std::process::Output| -> Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let once = parsed(add(&["--repeat", "once"]));
    assert_eq!(once["rule"]["repeat"], "once", "{once}");
    let every = parsed(add(&[]));
    // The default is not written, so it reads as stored rules always did.
    assert_eq!(every["rule"].get("repeat"), None, "{every}");
    assert_refused(&add(&["--repeat", "every"]), &["same settings"]);

    let rules = deployment.admin(&["list-rules", "--key", &key.id]);
    let repeat_of = |id: &Value| {
        rules
            .as_array()
            .unwrap()
            .iter()
            .find(|r| &r["id"] == id)
            .map(|r| r["rule"].get("repeat").cloned())
    };
    assert_eq!(
        repeat_of(&once["id"]),
        Some(Some(Value::from("once"))),
        "{rules}"
    );
    assert_eq!(repeat_of(&every["id"]), Some(None), "{rules}");
}

#[test]
fn a_pollen_rule_past_the_source_forecast_is_refused_saying_why() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let add = |source: &str, forecast: &str| {
        deployment.admin_output(&[
            "add-rule",
            "--key",
            &key.id,
            "--type",
            "pollen",
            "--forecast",
            forecast,
            "--sensitivity",
            "high",
            "--aq-source",
            source,
        ])
    };
    assert_refused(
        &add("open-meteo", "4d"),
        &["4 days", "at most 3 days", "96 hours"],
    );
    // The grids' pollen is the same European forecast.
    let cams = format!("cams:{}", deployment.path().join("cams").display());
    assert_refused(
        &add(&cams, "4d"),
        &["4 days", "at most 3 days", "CAMS", "96 hours"],
    );
    let ok = add("open-meteo", "3d");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let ok = add("demo", "4d");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let rules = deployment.admin(&["list-rules", "--key", &key.id]);
    assert_eq!(rules.as_array().unwrap().len(), 2, "{rules}");
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

#[test]
fn a_key_is_named_by_its_prefix_and_a_full_key_never_by_argument() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let rules = deployment.admin(&["list-rules", "--key", &key.prefix]);
    assert_eq!(rules, Value::Array(Vec::new()), "the prefix names the key");
    assert_refused(
        &deployment.admin_output(&["list-rules", "--key", &key.key]),
        &["not the key", "--key-stdin"],
    );
    assert_refused(
        &deployment.admin_output(&["list-rules", "--key", "ik_00000000"]),
        &["no active key with the prefix ik_00000000"],
    );
}

#[test]
fn create_account_takes_its_password_from_stdin_or_the_environment_only() {
    let deployment = Deployment::new();
    let out = deployment.admin_with_stdin(
        &[
            "create-account",
            "--email",
            "stdin@example.org",
            "--password-stdin",
        ],
        "correct horse battery",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    deployment.create_account("env@example.org", "correct horse battery");
    assert_refused(
        &deployment.admin_output(&["create-account", "--email", "none@example.org"]),
        &["INSIGHTS_PASSWORD", "--password-stdin"],
    );
    assert_refused(
        &deployment.admin_output(&[
            "create-account",
            "--email",
            "argv@example.org",
            "--password",
            "correct horse battery",
        ]),
        &["--password"],
    );
}
