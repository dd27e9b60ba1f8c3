//! Webhook targets inside the deployment's network (SSRF) are refused when set, when saved and
//! when sent, however they are written.

use serde_json::Value;

use crate::alerts::post_points;
use crate::harness::Deployment;

use super::browser::{Browser, text, text_of};
use super::canned::Canned;
use super::fixtures::{
    account_with_key, create_key, first_attempt, key_listing, new_email, public_deployment, serve,
};

/// Webhook targets inside a deployment's network, in the ways they can be written, each with
/// the part of the refusal that names what it is.
const INTERNAL_URLS: &[(&str, &str)] = &[
    ("http://10.0.0.5/hook", "a private network address"),
    ("http://10.255.255.254:8080/", "a private network address"),
    ("http://172.16.0.1/hook", "a private network address"),
    ("https://172.31.255.254/", "a private network address"),
    ("http://192.168.1.10:8080/hook", "a private network address"),
    ("http://127.0.0.1:9/hook", "a loopback address"),
    ("http://127.1.2.3/", "a loopback address"),
    ("http://[::1]:9/hook", "a loopback address"),
    // 127.0.0.1 in decimal, and in hexadecimal with a short form.
    ("http://2130706433/", "a loopback address"),
    ("http://0x7f.1/", "a loopback address"),
    ("http://0.0.0.0:9/", "the unspecified address"),
    ("http://[::]/", "the unspecified address"),
    (
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "a link-local address",
    ),
    (
        "http://169.254.170.2/v2/credentials",
        "a link-local address",
    ),
    ("http://[fe80::1]/", "a link-local address"),
    (
        "http://[fd00:ec2::254]/latest/meta-data/",
        "a unique local (private) IPv6 address",
    ),
    (
        "http://[fd20:ce::254]/computeMetadata/v1/",
        "a unique local (private) IPv6 address",
    ),
    ("http://100.100.100.200/latest/meta-data/", "a shared"),
    // Azure's host service is a public address, refused by name.
    (
        "http://168.63.129.16/machine?comp=goalstate",
        "a cloud metadata service address",
    ),
    // IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64 and 6to4 forms of internal IPv4
    // addresses.
    ("http://[::ffff:169.254.169.254]/", "a link-local address"),
    ("http://[::ffff:a9fe:a9fe]/", "a link-local address"),
    ("http://[::ffff:10.0.0.1]/", "a private network address"),
    ("http://[::ffff:127.0.0.1]:9/", "a loopback address"),
    ("http://[::ffff:0:7f00:1]:9/", "a loopback address"),
    ("http://[::ffff:0:a9fe:a9fe]/", "a link-local address"),
    ("http://[::127.0.0.1]/", "a loopback address"),
    ("http://[64:ff9b::a9fe:a9fe]/", "a link-local address"),
    ("http://[2002:a9fe:a9fe::1]/", "a link-local address"),
    ("http://[2002:c0a8:101::1]/", "a private network address"),
];

#[test]
fn internal_webhook_urls_are_refused_when_an_operator_sets_them() {
    let deployment = public_deployment();
    let email = new_email();
    let key = account_with_key(&deployment, &email);
    for (url, what) in INTERNAL_URLS {
        let out = deployment.admin_output(&["set-webhook", "--key", &key.id, "--url", url]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{url} was accepted: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            stderr.contains(what),
            "{url} should be called {what}: {stderr}"
        );
        assert!(stderr.contains("webhook"), "{stderr}");
    }
    assert_eq!(
        key_listing(&deployment, &email, &key.id)["webhook_url"],
        Value::Null,
        "nothing was stored"
    );
    // Host names are resolved when a delivery is sent, not when they are saved.
    deployment.set_webhook(&key, "https://hooks.example.com/insights");
    assert_eq!(
        key_listing(&deployment, &email, &key.id)["webhook_url"],
        "https://hooks.example.com/insights"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn internal_webhook_urls_are_refused_when_saved_in_the_dashboard() {
    let deployment = public_deployment();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let email = new_email();
    let csrf = browser.sign_up(&email).await;
    let key = create_key(&deployment, &email);
    for (url, what) in INTERNAL_URLS {
        let reply = browser
            .post(
                "/dashboard/alerts/webhook",
                &[("key", &key.id), ("url", url), ("csrf", &csrf)],
            )
            .await;
        assert_eq!(reply.status, 422, "{url} was accepted: {}", text(&reply));
        assert!(
            text(&reply).contains(what),
            "{url} should be called {what}: {}",
            text(&reply)
        );
    }
    assert_eq!(
        key_listing(&deployment, &email, &key.id)["webhook_url"],
        Value::Null,
        "nothing was stored"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_name_that_resolves_to_loopback_is_refused_when_the_delivery_is_sent() {
    let deployment = public_deployment();
    let email = new_email();
    let key = account_with_key(&deployment, &email);
    let receiver = Canned::start(204, &[]).await;
    // `localhost` is a name: it passes when saved, and what it resolves to is checked on
    // every connection, so that a name that turns internal later is caught too.
    let url = format!("http://localhost:{}/hook", receiver.addr.port());
    deployment.set_webhook(&key, &url);
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = serve(&deployment, &[]);

    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["error"], "forbidden", "{attempt}");
    assert_eq!(
        attempt["status"],
        Value::Null,
        "nothing answered: {attempt}"
    );

    // The dashboard's test delivery goes through the same sender.
    let mut browser = Browser::new(&server);
    let csrf = browser.signed_in(&email).await;
    let reply = browser
        .post(
            "/dashboard/alerts/test",
            &[("key", &key.id), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(reply.status, 200, "{}", text(&reply));
    let result = text_of(&reply, "test-result");
    assert!(result.contains("failed (could not connect"), "{result}");

    assert!(
        receiver.hits().is_empty(),
        "the loopback receiver was reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_url_saved_on_a_local_server_is_refused_once_the_server_listens_publicly() {
    // The quick start allows loopback receivers while the server itself listens on loopback.
    let mut deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Canned::start(204, &[]).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");

    // The same store served on every interface: the stored URL is checked again when sent.
    deployment.set_listen("0.0.0.0:0");
    let server = serve(&deployment, &[]);
    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["error"], "forbidden", "{attempt}");
    assert_eq!(attempt["status"], Value::Null, "{attempt}");
    assert!(
        receiver.hits().is_empty(),
        "the loopback receiver was reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_published_under_a_public_url_refuses_loopback_receivers_even_on_loopback() {
    // Saved on the quick start, before the deployment was put behind a reverse proxy.
    let deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Canned::start(204, &[]).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");

    // Behind a proxy on the same machine, the server listens on loopback but serves everyone.
    let deployment = deployment.flag("--public-url", "https://insights.example.org");
    let out = deployment.admin_output(&[
        "set-webhook",
        "--key",
        &key.id,
        "--url",
        &receiver.url("/other"),
    ]);
    assert!(!out.status.success(), "a loopback URL was accepted");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("a loopback address"), "{stderr}");

    let server = serve(&deployment, &[]);
    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["error"], "forbidden", "{attempt}");
    assert!(
        receiver.hits().is_empty(),
        "the loopback receiver was reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_an_internal_address_is_not_followed_and_the_delivery_fails() {
    let deployment = Deployment::new();
    let key = deployment.new_key();
    // On the quick start loopback is allowed, so the internal service would be reached if
    // the sender followed the redirect.
    let internal = Canned::start(200, &[]).await;
    let redirector = Canned::start(302, &[("location", &internal.url("/admin/drop-tables"))]).await;
    deployment.set_webhook(&key, &redirector.url("/hook"));
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = serve(&deployment, &[]);

    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["status"], 302, "{attempt}");
    assert_eq!(
        attempt["error"], "status",
        "a redirect is a failure: {attempt}"
    );
    let record = deployment.delivery_record(&key, &token);
    assert_ne!(record["outcome"], "delivered", "{record}");
    assert!(!redirector.hits().is_empty());
    assert!(
        internal.hits().is_empty(),
        "the redirect was followed to the internal address"
    );
}

#[test]
fn cloud_metadata_services_stay_refused_when_private_networks_are_allowed() {
    let deployment = public_deployment().flag("--allow-private-webhooks", "true");
    let key = deployment.new_key();
    // Receivers on the company's own network are what the setting is for.
    for url in [
        "http://10.1.2.3/hook",
        "http://192.168.1.10:8080/hook",
        "http://[fd12:3456::1]/hook",
        "http://100.64.0.10/hook",
    ] {
        deployment.set_webhook(&key, url);
    }
    for (url, what) in [
        (
            "http://169.254.169.254/latest/meta-data/",
            "a link-local address",
        ),
        ("http://[::ffff:169.254.169.254]/", "a link-local address"),
        ("http://[fe80::1]/", "a link-local address"),
        (
            "http://[fd00:ec2::254]/latest/meta-data/",
            "a cloud metadata service address",
        ),
        (
            "http://[fd00:ec2::23]/v1/credentials",
            "a cloud metadata service address",
        ),
        (
            "http://[fd20:ce::254]/computeMetadata/v1/",
            "a cloud metadata service address",
        ),
        (
            "http://100.100.100.200/latest/meta-data/",
            "a cloud metadata service address",
        ),
        (
            "http://[::ffff:100.100.100.200]/latest/meta-data/",
            "a cloud metadata service address",
        ),
        (
            "http://168.63.129.16/machine?comp=goalstate",
            "a cloud metadata service address",
        ),
    ] {
        let out = deployment.admin_output(&["set-webhook", "--key", &key.id, "--url", url]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url} was accepted");
        assert!(
            stderr.contains(what),
            "{url} should be called {what}: {stderr}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ipv4_translated_loopback_address_is_refused_when_the_delivery_is_sent() {
    // Saved on the quick start, where loopback receivers are allowed in every spelling.
    let mut deployment = Deployment::new();
    let key = deployment.new_key();
    let receiver = Canned::start(204, &[]).await;
    let url = format!("http://[::ffff:0:7f00:1]:{}/hook", receiver.addr.port());
    deployment.set_webhook(&key, &url);
    deployment.add_rule(&key, "aq", "24h", "high");

    // Served publicly, the address is loopback in disguise and is refused on connecting.
    deployment.set_listen("0.0.0.0:0");
    let server = serve(&deployment, &[]);
    let token = post_points(&server, &key).await;
    let attempt = first_attempt(&deployment, &key, &token).await;
    assert_eq!(attempt["error"], "forbidden", "{attempt}");
    assert_eq!(attempt["status"], Value::Null, "{attempt}");
    assert!(receiver.hits().is_empty());
}
