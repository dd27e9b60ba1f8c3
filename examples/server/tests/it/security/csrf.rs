//! Every state-changing dashboard form refuses a missing or foreign CSRF token.

use std::time::Duration;

use crate::alerts::post_points;
use crate::harness::{Deployment, eventually};
use test_support::receiver::Receiver;

use super::browser::{Browser, field, random_hex, text};
use super::fixtures::{CSRF_REFUSAL, PASSWORD, create_key, new_email, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_state_changing_form_refuses_a_missing_or_foreign_csrf_token() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut ada = Browser::new(&server);
    let email = new_email();
    let csrf = ada.sign_up(&email).await;
    let key = create_key(&deployment, &email);
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");
    let token = post_points(&server, &key).await;
    receiver.delivery_for(&token).await;
    eventually("the delivery recorded as done", || {
        (deployment.delivery_record(&key, &token)["outcome"] == "delivered").then_some(())
    })
    .await;
    let rules = deployment.admin(&["list-rules", "--key", &key.id]);
    let rule = rules[0]["id"].as_str().unwrap().to_owned();
    let secret = ada.secret_of(&key.id).await;
    let before = (
        deployment.admin(&["list-keys", "--email", &email]),
        rules,
        deployment.admin(&["list-deliveries", "--key", &key.id]),
    );
    // A token that is valid, but for another session.
    let mut eve = Browser::new(&server);
    let foreign = eve.sign_up(&new_email()).await;

    let id = key.id.as_str();
    let forms: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/dashboard/keys", vec![("label", "unasked")]),
        ("/dashboard/keys/revoke", vec![("key", id)]),
        (
            "/dashboard/keys/label",
            vec![("key", id), ("label", "renamed")],
        ),
        (
            "/dashboard/alerts/webhook",
            vec![("key", id), ("url", "http://127.0.0.1:1/elsewhere")],
        ),
        ("/dashboard/alerts/rotate", vec![("key", id)]),
        ("/dashboard/alerts/test", vec![("key", id)]),
        (
            "/dashboard/rules",
            vec![
                ("key", id),
                ("type", "pollen"),
                ("forecast", "1d"),
                ("sensitivity", "low"),
                ("message", "default"),
            ],
        ),
        (
            "/dashboard/rules/toggle",
            vec![("key", id), ("rule", &rule)],
        ),
        (
            "/dashboard/rules/delete",
            vec![("key", id), ("rule", &rule)],
        ),
        (
            "/dashboard/deliveries/redeliver",
            vec![("key", id), ("token", &token)],
        ),
        (
            "/dashboard/playground",
            vec![("request", "{\"routes\": []}")],
        ),
        ("/dashboard/signout", vec![]),
    ];
    let wrong = random_hex();
    for (path, fields) in &forms {
        for token in [None, Some(""), Some(wrong.as_str()), Some(foreign.as_str())] {
            let mut form = fields.clone();
            if let Some(token) = token {
                form.push(("csrf", token));
            }
            let reply = ada.post(path, &form).await;
            assert_eq!(reply.status, 403, "{path} with {token:?}: {}", text(&reply));
            assert!(
                text(&reply).contains(CSRF_REFUSAL),
                "{path}: {}",
                text(&reply)
            );
        }
    }
    // Sent from Ada's browser by another site, Eve's forms fail the same way.
    let reply = eve
        .post("/dashboard/keys", &[("label", "x"), ("csrf", &csrf)])
        .await;
    assert_eq!(reply.status, 403, "{}", text(&reply));

    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = (
        deployment.admin(&["list-keys", "--email", &email]),
        deployment.admin(&["list-rules", "--key", &key.id]),
        deployment.admin(&["list-deliveries", "--key", &key.id]),
    );
    assert_eq!(after, before, "nothing changed");
    assert_eq!(
        ada.secret_of(&key.id).await,
        secret,
        "the secret was not rotated"
    );
    assert_eq!(
        receiver.deliveries().len(),
        1,
        "no test delivery, no redelivery"
    );
    assert_eq!(
        ada.get("/dashboard/keys").await.status,
        200,
        "still signed in"
    );

    // Signing up and in need the token of the sign-in cookie, sent back in the form.
    let mut stranger = Browser::new(&server);
    let newcomer = new_email();
    let page = stranger.get("/dashboard/signup").await;
    let login_csrf = field(&page, "csrf");
    for (cookie, form_token) in [
        (None, login_csrf.as_str()),
        (Some(login_csrf.as_str()), ""),
        (Some(login_csrf.as_str()), wrong.as_str()),
        (Some(wrong.as_str()), login_csrf.as_str()),
    ] {
        stranger.forget_cookies();
        if let Some(cookie) = cookie {
            stranger.set_cookie("insights_login_csrf", cookie);
        }
        for path in ["/dashboard/signup", "/dashboard/signin"] {
            let reply = stranger
                .post(
                    path,
                    &[
                        ("email", &newcomer),
                        ("password", PASSWORD),
                        ("csrf", form_token),
                    ],
                )
                .await;
            assert_eq!(reply.status, 403, "{path}: {}", text(&reply));
            assert!(
                stranger.cookie("insights_session").is_none(),
                "{path} started a session"
            );
        }
        // Ada's own account: the right password is no help without the token.
        stranger.forget_cookies();
        if let Some(cookie) = cookie {
            stranger.set_cookie("insights_login_csrf", cookie);
        }
        let reply = stranger
            .post(
                "/dashboard/signin",
                &[
                    ("email", &email),
                    ("password", PASSWORD),
                    ("csrf", form_token),
                ],
            )
            .await;
        assert_eq!(reply.status, 403, "{}", text(&reply));
        assert!(stranger.cookie("insights_session").is_none());
    }
    let out = deployment.admin_output(&["list-keys", "--email", &newcomer]);
    assert!(
        !out.status.success(),
        "no account was created for {newcomer}"
    );
}
