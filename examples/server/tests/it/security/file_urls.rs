//! File URLs cannot be altered, moved, forged or used late, and survive a URL-key rotation until
//! the old key is removed.

use alerts_core::ids::Token;
use insights_objects::{LocalUrlSigner, UrlKey, UrlKeys};

use crate::alerts::post_points;
use crate::harness::{Deployment, Key, Reply, Server, client, eventually};
use test_support::receiver::Receiver;

use super::browser::text;
use super::fixtures::serve;

/// A key with a rule and a receiver of its own, and the file URL of its first delivery.
struct Delivered {
    token: String,
    url: String,
    _receiver: Receiver,
}

async fn deliver_one(deployment: &Deployment, server: &Server, key: &Key) -> Delivered {
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(key, &receiver.url("/hook"));
    deployment.add_rule(key, "aq", "24h", "high");
    let token = post_points(server, key).await;
    let delivery = receiver.delivery_for(&token).await;
    assert_eq!(delivery.verified, Some(Ok(())));
    let url = delivery.json["URL"].as_str().unwrap().to_owned();
    Delivered {
        token,
        url,
        _receiver: receiver,
    }
}

pub(super) async fn fetch(url: &str) -> Reply {
    Reply::read(client().get(url).send().await.unwrap()).await
}

/// The value of the query parameter `name` of `url`.
pub(super) fn param<'a>(url: &'a str, name: &str) -> &'a str {
    let query = url.split_once('?').unwrap().1;
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} in {url}"))
}

/// `url` with the query parameter `name` set to `value`.
fn with_param(url: &str, name: &str, value: &str) -> String {
    let (path, query) = url.split_once('?').unwrap();
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| {
            if pair.starts_with(&format!("{name}=")) {
                format!("{name}={value}")
            } else {
                pair.to_owned()
            }
        })
        .collect();
    format!("{path}?{}", pairs.join("&"))
}

/// The path and query of `url`, after its scheme and host.
fn path_and_query(url: &str) -> &str {
    let after_scheme = url.split_once("://").unwrap().1;
    &after_scheme[after_scheme.find('/').unwrap()..]
}

/// The URL keys the deployment's servers sign with, from its key file.
pub(super) fn url_keys(deployment: &Deployment) -> UrlKeys {
    let path = deployment
        .path()
        .join(insights_objects::config::URL_KEY_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    UrlKeys::parse_key_file(&text, &path.display().to_string()).unwrap()
}

/// A URL for `token` on `server` until `expires` (unix seconds), signed with `keys`.
fn sign(server: &Server, keys: UrlKeys, token: &str, expires: i64) -> String {
    let signer = LocalUrlSigner::new(&server.base, keys).unwrap();
    let token: Token = token.parse().unwrap();
    format!(
        "{}{}",
        server.base,
        signer.path_and_query(token, u64::try_from(expires).unwrap())
    )
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[track_caller]
pub(super) fn assert_served(reply: &Reply, url: &str) {
    assert_eq!(reply.status, 200, "{url}: {}", text(reply));
    assert_eq!(reply.header("content-type"), Some("application/x-ndjson"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_genuine_file_url_is_served_and_every_altered_one_is_refused() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let delivered = deliver_one(&deployment, &server, &key).await;
    let url = delivered.url.as_str();
    let genuine = fetch(url).await;
    assert_served(&genuine, url);
    assert_eq!(
        genuine.header("cache-control"),
        Some("private, no-store"),
        "a capability URL's content stays out of shared caches"
    );

    let signature = param(url, "signature");
    let flipped = {
        let mut s = signature.to_owned();
        let last = if s.ends_with('0') { "1" } else { "0" };
        s.replace_range(s.len() - 1.., last);
        s
    };
    let expires: u64 = param(url, "expires").parse().unwrap();
    let kid = param(url, "kid");
    let (path, query) = url.split_once('?').unwrap();
    let bad_signature = [
        (
            "a signature with one digit changed",
            with_param(url, "signature", &flipped),
        ),
        (
            "a signature of zeros",
            with_param(url, "signature", &"0".repeat(64)),
        ),
        (
            "an expiry moved later",
            with_param(url, "expires", &(expires + 3600).to_string()),
        ),
        (
            "an expiry moved earlier",
            with_param(url, "expires", &(expires - 1).to_string()),
        ),
        ("an unknown key id", with_param(url, "kid", "rogue")),
    ];
    for (what, altered) in &bad_signature {
        let reply = fetch(altered).await;
        reply.assert_error(403, "forbidden", &["signature"]);
        assert!(!reply.body.is_empty(), "{what}");
    }
    let malformed = [
        (
            "no signature",
            format!("{path}?expires={expires}&kid={kid}"),
        ),
        (
            "no expiry",
            format!("{path}?kid={kid}&signature={signature}"),
        ),
        (
            "no key id",
            format!("{path}?expires={expires}&signature={signature}"),
        ),
        ("no query at all", path.to_owned()),
        (
            "a repeated signature",
            format!("{url}&signature={signature}"),
        ),
        ("an extra parameter", format!("{url}&download=1")),
        (
            "an upper-case signature",
            with_param(url, "signature", &signature.to_uppercase()),
        ),
        (
            "an expiry with a leading zero",
            with_param(url, "expires", &format!("0{expires}")),
        ),
        (
            "an upper-case token",
            format!(
                "{}?{query}",
                path.replace(&delivered.token, &delivered.token.to_uppercase())
            ),
        ),
        (
            "a path out of the files",
            format!(
                "{}/insights/v1/files/..%2F..%2Furl-keys?{query}",
                server.base
            ),
        ),
        (
            "an encoded path",
            format!("{}?{query}", path.replace(".ndjson", "%2Endjson")),
        ),
    ];
    for (what, altered) in &malformed {
        let reply = fetch(altered).await;
        assert_eq!(reply.status, 403, "{what}: {altered}: {}", text(&reply));
        reply.assert_error(403, "forbidden", &[]);
    }
    // A refusal never carries the file, whatever was changed.
    for (_, altered) in bad_signature.iter().chain(&malformed) {
        let reply = fetch(altered).await;
        assert_ne!(reply.body, genuine.body, "{altered}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signature_moved_to_another_keys_file_is_refused() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let a = deliver_one(&deployment, &server, &deployment.new_key()).await;
    let b = deliver_one(&deployment, &server, &deployment.new_key()).await;
    let query_of = |url: &str| url.split_once('?').unwrap().1.to_owned();
    let path_of = |url: &str| url.split_once('?').unwrap().0.to_owned();

    // A's signature and expiry on the path of B's file, and the other way round.
    for (path, query) in [
        (path_of(&b.url), query_of(&a.url)),
        (path_of(&a.url), query_of(&b.url)),
    ] {
        let moved = format!("{path}?{query}");
        fetch(&moved)
            .await
            .assert_error(403, "forbidden", &["signature"]);
    }
    assert_served(&fetch(&a.url).await, &a.url);
    assert_served(&fetch(&b.url).await, &b.url);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_signed_with_a_key_the_server_does_not_hold_is_refused() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let delivered = deliver_one(&deployment, &server, &key).await;
    let later = now() + 600;

    // Signed as the server signs, with its key: served, so the refusals below are about the
    // key alone.
    let genuine = sign(&server, url_keys(&deployment), &delivered.token, later);
    assert_served(&fetch(&genuine).await, &genuine);

    let server_kid = url_keys(&deployment).current().id().to_owned();
    for (what, forged_key) in [
        (
            "the server's key id with a guessed secret",
            UrlKey::new(&*server_kid, [7u8; 32]),
        ),
        ("a key id of its own", UrlKey::new("rogue", [7u8; 32])),
    ] {
        let keys = UrlKeys::new(forged_key.unwrap(), []).unwrap();
        let forged = sign(&server, keys, &delivered.token, later);
        assert_eq!(param(&forged, "expires"), later.to_string(), "{what}");
        fetch(&forged)
            .await
            .assert_error(403, "forbidden", &["signature"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_file_url_is_refused_as_expired() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let delivered = deliver_one(&deployment, &server, &key).await;

    // Signed with the deployment's own key, as the server would have signed it 15 minutes
    // ago: genuine, but late.
    for expires in [now() - 1, now() - 900, 1] {
        let expired = sign(&server, url_keys(&deployment), &delivered.token, expires);
        let reply = fetch(&expired).await;
        reply.assert_error(403, "expired_url", &["expired"]);
    }
    let fresh = sign(&server, url_keys(&deployment), &delivered.token, now() + 60);
    assert_served(&fetch(&fresh).await, &fresh);
    // A URL the server made expires no later than 15 minutes after it was made.
    let expires: i64 = param(&delivered.url, "expires").parse().unwrap();
    assert!(expires <= now() + 900, "{}", delivered.url);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_urls_survive_a_url_key_rotation_until_the_old_key_is_removed() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let key = deployment.new_key();
    let old = deliver_one(&deployment, &server, &key).await;
    server.terminate();
    let old_keys = url_keys(&deployment);
    let key_file = deployment
        .path()
        .join(insights_objects::config::URL_KEY_FILE);

    // A new key first, the old one kept: URLs already handed out keep working.
    let rotated = old_keys
        .rotated(UrlKey::new("next", [42u8; 32]).unwrap(), 1)
        .unwrap();
    std::fs::write(&key_file, rotated.to_key_file()).unwrap();
    let server = serve(&deployment, &[]);
    // The signature leaves the host out, so the URL works on the restarted server's port.
    let old_url = format!("{}{}", server.base, path_and_query(&old.url));
    assert_served(&fetch(&old_url).await, &old_url);
    let token = post_points(&server, &key).await;
    let new_url = eventually("a URL signed with the new key", || {
        let reached = old
            ._receiver
            .deliveries()
            .into_iter()
            .find(|d| d.json["TOKEN"] == token.as_str())?;
        Some(reached.json["URL"].as_str()?.to_owned())
    })
    .await;
    assert_eq!(param(&new_url, "kid"), "next", "{new_url}");
    assert_served(&fetch(&new_url).await, &new_url);
    server.terminate();

    // The old key removed: its URLs are refused, the new key's still served.
    let only_new = UrlKeys::new(UrlKey::new("next", [42u8; 32]).unwrap(), []).unwrap();
    std::fs::write(&key_file, only_new.to_key_file()).unwrap();
    let server = serve(&deployment, &[]);
    let old_url = format!("{}{}", server.base, path_and_query(&old.url));
    fetch(&old_url)
        .await
        .assert_error(403, "forbidden", &["signature"]);
    let new_url = format!("{}{}", server.base, path_and_query(&new_url));
    assert_served(&fetch(&new_url).await, &new_url);
}
