//! A customer can take their account back: change the password (which ends every session, on
//! every replica, and starts a fresh one for the browser that changed it), end the other sessions alone, and have the operator reset the
//! password or end every session; and someone guessing the password from elsewhere does not
//! keep the owner out.

use crate::harness::{Deployment, Server};
use test_support::postgres::TestDb;

use super::browser::{Browser, assert_redirect, field, text, text_of};
use super::fixtures::{PASSWORD, new_email, serve};

const NEW_PASSWORD: &str = "a completely new passphrase";

/// The dashboard's session cookie on a server without HTTPS.
const SESSION_COOKIE: &str = "insights_session";

/// Whether the browser's session still opens the keys page; an ended session is sent to the
/// sign-in page.
async fn signed_in(browser: &mut Browser) -> bool {
    let page = browser.get("/dashboard/keys").await;
    if page.status.is_redirection() {
        assert_redirect(&page, "/dashboard/signin");
        false
    } else {
        assert_eq!(page.status, 200, "{}", text(&page));
        true
    }
}

/// Signs in as `email` on `server` with `password`, which must work.
async fn browser_signed_in(server: &Server, email: &str, password: &str) -> Browser {
    let mut browser = Browser::new(server);
    let reply = browser.sign_in(email, password).await;
    assert_redirect(&reply, "/dashboard/keys");
    browser
}

/// Ada changes her password on the first server: her browser there goes on with a fresh session
/// (new cookie, new CSRF token), every session made before, the one she changed it in included,
/// on either server, gets the sign-in page, and only the new password signs in.
async fn password_change_ends_other_sessions(first: &Server, second: &Server) {
    let email = new_email();
    let mut ada = Browser::new(first);
    let csrf = ada.sign_up(&email).await;
    // A stolen copy of the very session that makes the change.
    let mut copy = Browser::new(first);
    copy.jar.clone_from(&ada.jar);
    let old_cookie = ada.cookie(SESSION_COOKIE).expect("signed up");
    let mut laptop = browser_signed_in(first, &email, PASSWORD).await;
    let mut stolen = browser_signed_in(second, &email, PASSWORD).await;
    let mut eve = Browser::new(second);
    eve.sign_up(&new_email()).await;
    assert!(signed_in(&mut laptop).await && signed_in(&mut stolen).await);

    let reply = ada
        .post(
            "/dashboard/account/password",
            &[
                ("current_password", PASSWORD),
                ("new_password", NEW_PASSWORD),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(reply.status, 200, "{}", text(&reply));
    let notice = text_of(&reply, "account-notice");
    assert!(
        notice.contains("2 other sessions were signed out"),
        "{notice}"
    );

    let new_cookie = ada.cookie(SESSION_COOKIE).expect("a session cookie");
    assert_ne!(new_cookie, old_cookie, "the change starts a new session");
    let new_csrf = field(&reply, "csrf");
    assert_ne!(new_csrf, csrf, "the new session has a new CSRF token");
    assert!(
        signed_in(&mut ada).await,
        "the browser that changed it goes on with the new session"
    );
    assert!(
        !signed_in(&mut copy).await,
        "a copy of the session the change was made in ended with it"
    );
    let stale = ada
        .post("/dashboard/account/sessions", &[("csrf", &csrf)])
        .await;
    assert_eq!(stale.status, 403, "the old CSRF token is refused");
    assert_eq!(ada.session_csrf().await, new_csrf);
    assert!(
        !signed_in(&mut laptop).await,
        "another session on this server ended"
    );
    assert!(
        !signed_in(&mut stolen).await,
        "a session on the other server ended"
    );
    // The ended session is not valid on this server either.
    stolen.base.clone_from(&first.base);
    assert!(!signed_in(&mut stolen).await);
    assert!(
        signed_in(&mut eve).await,
        "another account's session goes on"
    );

    let old = Browser::new(second).sign_in(&email, PASSWORD).await;
    assert_eq!(
        old.status,
        422,
        "the old password is refused: {}",
        text(&old)
    );
    browser_signed_in(second, &email, NEW_PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_the_accounts_other_sessions() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    password_change_ends_other_sessions(&server, &server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_the_other_sessions_on_every_replica() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    // Two servers on one database, sharing the data directory's `dashboard-key` as replicas
    // behind one address share it.
    let deployment = Deployment::new().flag("--database-url", &db.url);
    let first = serve(&deployment, &[]);
    let second = serve(&deployment, &[]);
    password_change_ends_other_sessions(&first, &second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_needs_the_current_password_and_a_good_new_one() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let email = new_email();
    let mut ada = Browser::new(&server);
    let csrf = ada.sign_up(&email).await;
    let mut laptop = browser_signed_in(&server, &email, PASSWORD).await;

    let change = |current: &'static str, new: &'static str| {
        vec![
            ("current_password", current),
            ("new_password", new),
            ("csrf", csrf.as_str()),
        ]
    };
    let wrong = ada
        .post(
            "/dashboard/account/password",
            &change("not my password", NEW_PASSWORD),
        )
        .await;
    assert_eq!(wrong.status, 422, "{}", text(&wrong));
    assert!(text(&wrong).contains("The current password is wrong"));
    let short = ada
        .post("/dashboard/account/password", &change(PASSWORD, "short"))
        .await;
    assert_eq!(short.status, 422, "{}", text(&short));
    assert!(
        text(&short).contains("at least 10 characters"),
        "{}",
        text(&short)
    );
    let forged = ada
        .post(
            "/dashboard/account/password",
            &[
                ("current_password", PASSWORD),
                ("new_password", NEW_PASSWORD),
                ("csrf", "0"),
            ],
        )
        .await;
    assert_eq!(forged.status, 403);

    assert!(signed_in(&mut laptop).await, "nothing was ended");
    browser_signed_in(&server, &email, PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_all_other_sessions_keeps_only_this_one() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let email = new_email();
    let mut ada = Browser::new(&server);
    let csrf = ada.sign_up(&email).await;
    let mut laptop = browser_signed_in(&server, &email, PASSWORD).await;

    let page = ada.get("/dashboard/account").await;
    assert_eq!(page.status, 200, "{}", text(&page));
    assert!(text(&page).contains("End all other sessions"));
    let reply = ada
        .post("/dashboard/account/sessions", &[("csrf", &csrf)])
        .await;
    assert_eq!(reply.status, 200, "{}", text(&reply));
    assert_eq!(
        text_of(&reply, "account-notice"),
        "1 other session was signed out."
    );
    assert!(signed_in(&mut ada).await);
    assert!(!signed_in(&mut laptop).await);
    // The password is unchanged.
    browser_signed_in(&server, &email, PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_resets_a_password_and_every_session_ends() {
    let deployment = Deployment::new();
    let email = new_email();
    deployment.create_account(&email, PASSWORD);
    let server = serve(&deployment, &[]);
    let mut thief = browser_signed_in(&server, &email, PASSWORD).await;

    // From the environment, as create-account reads it.
    let out = deployment
        .admin_command(&["reset-password", "--email", &email])
        .env("INSIGHTS_PASSWORD", NEW_PASSWORD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["sessions_ended"], 1, "{printed}");
    assert!(!signed_in(&mut thief).await, "the session ended");
    let old = Browser::new(&server).sign_in(&email, PASSWORD).await;
    assert_eq!(old.status, 422, "{}", text(&old));
    let mut owner = browser_signed_in(&server, &email, NEW_PASSWORD).await;

    // From standard input; a password against the policy changes nothing.
    let refused = deployment.admin_with_stdin(
        &["reset-password", "--email", &email, "--password-stdin"],
        "short",
    );
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("at least 10 characters"));
    assert!(signed_in(&mut owner).await, "a refused reset ends nothing");
    let out = deployment.admin_with_stdin(
        &["reset-password", "--email", &email, "--password-stdin"],
        "the third passphrase",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!signed_in(&mut owner).await);
    browser_signed_in(&server, &email, "the third passphrase").await;

    let unknown = deployment
        .admin_command(&["reset-password", "--email", "nobody@example.org"])
        .env("INSIGHTS_PASSWORD", NEW_PASSWORD)
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("no account with the email"),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_ends_every_session_of_an_account() {
    let deployment = Deployment::new();
    let (email, other) = (new_email(), new_email());
    deployment.create_account(&email, PASSWORD);
    deployment.create_account(&other, PASSWORD);
    let server = serve(&deployment, &[]);
    let mut first = browser_signed_in(&server, &email, PASSWORD).await;
    let mut second = browser_signed_in(&server, &email, PASSWORD).await;
    let mut bystander = browser_signed_in(&server, &other, PASSWORD).await;

    let ended = deployment.admin(&["end-sessions", "--email", &email]);
    assert_eq!(ended["sessions_ended"], 2, "{ended}");
    assert!(!signed_in(&mut first).await);
    assert!(!signed_in(&mut second).await);
    assert!(
        signed_in(&mut bystander).await,
        "other accounts keep theirs"
    );
    // The password is unchanged: the owner signs in again.
    browser_signed_in(&server, &email, PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn someone_guessing_from_another_address_does_not_keep_the_owner_out() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let email = new_email();
    deployment.create_account(&email, PASSWORD);

    let mut guesser = Browser::from_address(&server, "127.0.0.2");
    for attempt in 1..=5 {
        let reply = guesser
            .sign_in(&email, &format!("guess number {attempt}"))
            .await;
        assert_eq!(reply.status, 422, "{}", text(&reply));
    }
    let reply = guesser.sign_in(&email, "guess number 6").await;
    assert_eq!(
        reply.status,
        429,
        "the guesser is stopped: {}",
        text(&reply)
    );

    let mut owner = Browser::from_address(&server, "127.0.0.3");
    let reply = owner.sign_in(&email, PASSWORD).await;
    assert_redirect(&reply, "/dashboard/keys");
    assert!(signed_in(&mut owner).await);
}
