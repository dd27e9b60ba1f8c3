//! No secret reaches a log, even at the most verbose level.

use std::process::Output;
use std::time::Duration;

use serde_json::{Value, json};

use crate::alerts::post_points;
use crate::harness::{Deployment, Key, client, eventually, post_json};

use super::browser::{Browser, field, text, text_of};
use super::canned::Canned;
use super::file_urls::{assert_served, fetch, param, url_keys};
use super::fixtures::{PASSWORD, new_email, serve};

/// One secret and what it is, for the message when it leaks.
struct Secret {
    what: &'static str,
    text: String,
}

fn secret(what: &'static str, text: impl Into<String>) -> Secret {
    let text = text.into();
    assert!(
        text.len() >= 16,
        "{what} is too short to look for: {text:?}"
    );
    Secret { what, text }
}

#[track_caller]
fn assert_no_secret(place: &str, output: &str, secrets: &[Secret], allowed: &[&str]) {
    for s in secrets {
        if allowed.contains(&s.text.as_str()) {
            continue;
        }
        assert!(
            !output.contains(&s.text),
            "{place} shows the {}:\n{output}",
            s.what
        );
    }
}

/// Runs an admin command that must succeed, keeping its whole output.
fn admin(deployment: &Deployment, outputs: &mut Vec<(String, Output)>, args: &[&str]) -> Value {
    let out = deployment.admin_output(args);
    assert!(
        out.status.success(),
        "admin {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    outputs.push((args[0].to_owned(), out));
    json
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_reaches_the_logs_even_at_the_most_verbose_level() {
    let deployment = Deployment::new().env("RUST_LOG", "trace");
    let mut outputs = Vec::new();
    let mut secrets = Vec::new();

    // The operator: an account, a key, a webhook and a rule.
    let email = new_email();
    let admin_password = "an operator's password, typed once";
    let args = ["create-account", "--email", &email, "--password-stdin"];
    let out = deployment.admin_with_stdin(&args, admin_password);
    assert!(
        out.status.success(),
        "admin {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    outputs.push((args[0].to_owned(), out));
    let created = admin(
        &deployment,
        &mut outputs,
        &["create-key", "--email", &email],
    );
    let api_key = created["key"].as_str().unwrap().to_owned();
    let key_id = created["id"].as_str().unwrap().to_owned();
    let prefix = created["prefix"].as_str().unwrap().to_owned();
    let first_secret = created["webhook_secret"].as_str().unwrap().to_owned();
    let receiver = Canned::start(204, &[]).await;
    admin(
        &deployment,
        &mut outputs,
        &[
            "set-webhook",
            "--key",
            &key_id,
            "--url",
            &receiver.url("/hook"),
        ],
    );
    admin(
        &deployment,
        &mut outputs,
        &[
            "add-rule",
            "--key",
            &key_id,
            "--type",
            "aq",
            "--forecast",
            "24h",
            "--sensitivity",
            "high",
        ],
    );
    secrets.push(secret("admin password", admin_password));
    secrets.push(secret("API key", api_key.clone()));
    secrets.push(secret(
        "secret part of the API key",
        &api_key[prefix.len()..],
    ));
    secrets.push(secret("webhook secret", first_secret.clone()));
    secrets.push(secret(
        "webhook secret's key",
        first_secret.trim_start_matches("whsec_"),
    ));

    let server = serve(&deployment, &[]);
    let http = client();

    // The API: points, a signed delivery, the file; unknown and revoked keys.
    let key = Key {
        key: api_key.clone(),
        secret: first_secret.clone(),
        prefix: prefix.clone(),
        id: created["id"].as_str().unwrap().to_owned(),
    };
    let token = post_points(&server, &key).await;
    let hit = eventually("the delivery", || receiver.hits().into_iter().next()).await;
    let signature = hit.headers["webhook-signature"]
        .to_str()
        .unwrap()
        .to_owned();
    secrets.push(secret(
        "delivery signature",
        signature.trim_start_matches("v1,"),
    ));
    let body: Value = serde_json::from_slice(&hit.body).unwrap();
    assert_eq!(body["TOKEN"], token.as_str());
    let file_url = body["URL"].as_str().unwrap().to_owned();
    assert_served(&fetch(&file_url).await, &file_url);
    secrets.push(secret("file URL signature", param(&file_url, "signature")));
    let unknown_key = format!("{prefix}{}", "Z".repeat(api_key.len() - prefix.len()));
    secrets.push(secret("unknown API key", unknown_key.clone()));
    post_json(&http, &server, &unknown_key, &json!({"points": []}))
        .await
        .assert_error(401, "invalid_api_key", &[]);
    let url_key = url_keys(&deployment).to_key_file();
    let url_key_secret = url_key
        .lines()
        .find(|l| !l.starts_with('#'))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_owned();
    secrets.push(secret("file URL key", url_key_secret));

    // The dashboard: sign up, create a key, see and rotate its secret, send a test.
    let mut browser = Browser::new(&server);
    let dashboard_email = new_email();
    let page = browser.get("/dashboard/signup").await;
    secrets.push(secret("sign-up CSRF token", field(&page, "csrf")));
    let csrf = browser.sign_up(&dashboard_email).await;
    secrets.push(secret("dashboard password", PASSWORD));
    secrets.push(secret(
        "session cookie",
        browser.cookie("insights_session").unwrap(),
    ));
    secrets.push(secret("session CSRF token", csrf.clone()));
    let created = browser
        .post(
            "/dashboard/keys",
            &[("label", "from the dashboard"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(created.status, 201, "{}", text(&created));
    let dashboard_key = text_of(&created, "new-key-text");
    secrets.push(secret("dashboard API key", dashboard_key.clone()));
    let key_id = field(&created, "key");
    secrets.push(secret(
        "dashboard webhook secret",
        browser.secret_of(&key_id).await,
    ));
    let saved = browser
        .post(
            "/dashboard/alerts/webhook",
            &[
                ("key", &key_id),
                ("url", &receiver.url("/dashboard-hook")),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert!(saved.status.is_redirection(), "{}", text(&saved));
    let rotated = browser
        .post(
            "/dashboard/alerts/rotate",
            &[("key", &key_id), ("csrf", &csrf)],
        )
        .await;
    assert!(rotated.status.is_redirection(), "{}", text(&rotated));
    secrets.push(secret(
        "rotated dashboard secret",
        browser.secret_of(&key_id).await,
    ));
    let tested = browser
        .post(
            "/dashboard/alerts/test",
            &[("key", &key_id), ("csrf", &csrf)],
        )
        .await;
    assert!(
        text_of(&tested, "test-result").contains("succeeded"),
        "{}",
        text(&tested)
    );
    let test_hit = eventually("the test delivery", || receiver.hits().into_iter().nth(1)).await;
    let test_signature = test_hit.headers["webhook-signature"]
        .to_str()
        .unwrap()
        .to_owned();
    secrets.push(secret(
        "test delivery signature",
        test_signature.trim_start_matches("v1,"),
    ));
    let signed_out = browser.post("/dashboard/signout", &[("csrf", &csrf)]).await;
    assert!(signed_out.status.is_redirection());

    // A wrong password, then the right one, then signing out.
    let wrong = "a wrong password, typed by mistake";
    secrets.push(secret("wrong password", wrong));
    assert_eq!(browser.sign_in(&dashboard_email, wrong).await.status, 422);
    secrets.push(secret(
        "sign-in CSRF cookie",
        browser.cookie("insights_login_csrf").unwrap(),
    ));
    let csrf = browser.signed_in(&dashboard_email).await;
    secrets.push(secret(
        "second session cookie",
        browser.cookie("insights_session").unwrap(),
    ));
    secrets.push(secret("second session CSRF token", csrf.clone()));
    browser.post("/dashboard/signout", &[("csrf", &csrf)]).await;

    // The operator rotates the secret, lists deliveries, revokes the dashboard's key, which
    // the API then refuses.
    let rotated = admin(
        &deployment,
        &mut outputs,
        &["rotate-secret", "--key", &key_id],
    );
    let second_secret = rotated["webhook_secret"].as_str().unwrap().to_owned();
    secrets.push(secret("rotated webhook secret", second_secret.clone()));
    admin(
        &deployment,
        &mut outputs,
        &["list-deliveries", "--key", &key_id],
    );
    admin(&deployment, &mut outputs, &["list-keys", "--email", &email]);
    admin(&deployment, &mut outputs, &["list-rules", "--key", &key_id]);
    // A full key reaches the admin command on standard input, never in its arguments.
    let out = deployment.admin_with_stdin(&["revoke-key", "--key-stdin"], &dashboard_key);
    assert!(
        out.status.success(),
        "revoke-key: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    outputs.push(("revoke-key".to_owned(), out));
    post_json(&http, &server, &dashboard_key, &json!({"points": []}))
        .await
        .assert_error(401, "invalid_api_key", &[]);
    tokio::time::sleep(Duration::from_millis(500)).await;

    let log = server.log();
    assert!(
        log.contains("TRACE"),
        "the log is at its most verbose:\n{log}"
    );
    assert!(
        log.contains("/insights/v1/files/"),
        "requests are logged, with their path:\n{log}"
    );
    assert_no_secret("the server's log", &log, &secrets, &[]);
    assert_no_secret("the server's output", &server.printed(), &secrets, &[]);
    let mut verbose = false;
    for (command, out) in &outputs {
        let stderr = String::from_utf8_lossy(&out.stderr);
        verbose |= stderr.contains("DEBUG") || stderr.contains("TRACE");
        assert_no_secret(
            &format!("the log of admin {command}"),
            &stderr,
            &secrets,
            &[],
        );
        // The key and its secret are shown once, when they are made: that is what the command
        // is for. Nothing else prints a secret.
        let allowed: &[&str] = match command.as_str() {
            "create-key" => &[
                &api_key,
                &api_key[prefix.len()..],
                &first_secret,
                first_secret.trim_start_matches("whsec_"),
            ],
            "rotate-secret" => &[&second_secret],
            _ => &[],
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        for shown in allowed {
            assert!(
                stdout.contains(shown),
                "admin {command} shows its new secret"
            );
        }
        assert_no_secret(
            &format!("the output of admin {command}"),
            &stdout,
            &secrets,
            allowed,
        );
    }
    assert!(
        verbose,
        "the admin commands logged at the verbose level too"
    );
}
