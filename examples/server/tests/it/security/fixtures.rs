//! What the security tests share: deployments, accounts with keys, and what the admin commands
//! say of them.

use serde_json::Value;

use crate::harness::{Deployment, Key, Server, eventually};

/// Every account of these tests signs in with it.
pub(crate) const PASSWORD: &str = "correct horse battery staple";

/// The dashboard's answer to a form whose CSRF token is missing or wrong.
pub(crate) const CSRF_REFUSAL: &str = "This form has expired or was sent from another site";

/// A deployment whose server listens on every interface: reachable from outside, so loopback
/// is refused as a webhook target like every other internal address.
pub(super) fn public_deployment() -> Deployment {
    let mut deployment = Deployment::new();
    deployment.set_listen("0.0.0.0:0");
    deployment
}

/// Starts the server and points the tests at it over loopback: `0.0.0.0` is where a server
/// listens, not an address to connect to.
pub(crate) fn serve(deployment: &Deployment, extra: &[&str]) -> Server {
    let mut server = deployment.serve(extra);
    server.base = server.base.replace("://0.0.0.0:", "://127.0.0.1:");
    server
}

pub(crate) fn new_email() -> String {
    format!("{}@example.org", uuid::Uuid::new_v4().simple())
}

/// A new key of the account with `email`.
pub(super) fn create_key(deployment: &Deployment, email: &str) -> Key {
    let created = deployment.admin(&["create-key", "--email", email, "--label", "security"]);
    let text = |name: &str| created[name].as_str().unwrap().to_owned();
    Key {
        key: text("key"),
        secret: text("webhook_secret"),
        prefix: text("prefix"),
        id: text("id"),
    }
}

/// A new account with `email` and [`PASSWORD`], and a key of it.
pub(super) fn account_with_key(deployment: &Deployment, email: &str) -> Key {
    deployment.create_account(email, PASSWORD);
    create_key(deployment, email)
}

/// What `list-keys` says of the key with `id`.
pub(super) fn key_listing(deployment: &Deployment, email: &str, id: &str) -> Value {
    let keys = deployment.admin(&["list-keys", "--email", email]);
    keys.as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("list-keys does not show {id}: {keys}"))
}

/// The first delivery attempt of `token`, once it has been made.
pub(super) async fn first_attempt(deployment: &Deployment, key: &Key, token: &str) -> Value {
    eventually(&format!("the first delivery attempt of {token}"), || {
        let record = deployment.delivery_record(key, token);
        let first = record["attempts"].as_array()?.first()?.clone();
        Some(first)
    })
    .await
}
