//! Sign-in guessing and mass sign-ups are limited, per email and per client address.

use crate::harness::Deployment;

use super::browser::{Browser, assert_redirect, field, text};
use super::fixtures::{PASSWORD, new_email, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_failures_are_limited_per_email_and_per_client_address() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let email = new_email();
    Browser::new(&server).sign_up(&email).await;

    // Guessing one account's password: a handful of tries, then a wait, which the right
    // password does not skip.
    let mut guesser = Browser::new(&server);
    let mut refused_at = None;
    for attempt in 1..=10 {
        let reply = guesser
            .sign_in(&email, &format!("guess number {attempt}"))
            .await;
        if reply.status == 429 {
            refused_at = Some(attempt);
            assert!(
                text(&reply).contains("Too many sign-in attempts"),
                "{}",
                text(&reply)
            );
            break;
        }
        assert_eq!(reply.status, 422, "{}", text(&reply));
    }
    let refused_at = refused_at.expect("ten wrong passwords in a row were all tried");
    assert!(refused_at <= 7, "the limit came after {refused_at} tries");
    let reply = guesser.sign_in(&email, PASSWORD).await;
    assert_eq!(reply.status, 429, "{}", text(&reply));
    assert!(guesser.cookie("insights_session").is_none());

    // Trying many accounts from one address: limited too, well before 60 tries.
    let mut sprayer = Browser::new(&server);
    let mut limited = false;
    for attempt in 0..60 {
        let reply = sprayer
            .sign_in(&format!("user{attempt}@example.org"), "a common password")
            .await;
        if reply.status == 429 {
            limited = true;
            break;
        }
        assert_eq!(reply.status, 422, "{}", text(&reply));
    }
    assert!(limited, "sixty accounts were tried from one address");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ups_from_one_address_are_limited() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let mut limited = None;
    for attempt in 0..60 {
        let email = new_email();
        let page = browser.get("/dashboard/signup").await;
        let csrf = field(&page, "csrf");
        let reply = browser
            .post(
                "/dashboard/signup",
                &[("email", &email), ("password", PASSWORD), ("csrf", &csrf)],
            )
            .await;
        if reply.status == 429 {
            assert!(text(&reply).contains("Wait a minute"), "{}", text(&reply));
            limited = Some((attempt, email));
            break;
        }
        assert_redirect(&reply, "/dashboard/welcome");
        browser.forget_cookies();
    }
    let (attempt, email) = limited.expect("sixty accounts were made from one address");
    assert!(
        attempt >= 5,
        "an office can still sign up a few people: {attempt}"
    );
    assert!(browser.cookie("insights_session").is_none());
    let out = deployment.admin_output(&["list-keys", "--email", &email]);
    assert!(!out.status.success(), "the refused sign-up made no account");
}
