//! One account cannot reach another's keys, rules or deliveries, in the dashboard or with its API
//! key.

use std::time::Duration;

use serde_json::{Value, json};

use crate::alerts::post_points;
use crate::harness::{Deployment, Key, client, eventually, post_json};
use test_support::receiver::Receiver;

use super::browser::{Browser, text};
use super::fixtures::{create_key, key_listing, new_email, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_account_cannot_see_or_change_an_accounts_keys_rules_or_deliveries() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);

    // Ada: a key with a webhook, a rule and a delivered request.
    let mut ada = Browser::new(&server);
    let ada_email = new_email();
    ada.sign_up(&ada_email).await;
    let key_a = create_key(&deployment, &ada_email);
    let receiver_a = Receiver::verifying(&key_a.secret).await;
    deployment.set_webhook(&key_a, &receiver_a.url("/hook"));
    deployment.add_rule(&key_a, "aq", "24h", "high");
    let token_a = post_points(&server, &key_a).await;
    receiver_a.delivery_for(&token_a).await;
    eventually("the delivery recorded as done", || {
        (deployment.delivery_record(&key_a, &token_a)["outcome"] == "delivered").then_some(())
    })
    .await;
    let rules_a = deployment.admin(&["list-rules", "--key", &key_a.id]);
    let rule_a = rules_a[0]["id"].as_str().unwrap().to_owned();
    let secret_a = ada.secret_of(&key_a.id).await;
    let before = (
        key_listing(&deployment, &ada_email, &key_a.id),
        rules_a.clone(),
        deployment.admin(&["list-deliveries", "--key", &key_a.id]),
    );

    // Eve: an account and a key of her own, and Ada's real ids.
    let mut eve = Browser::new(&server);
    let eve_email = new_email();
    let csrf = eve.sign_up(&eve_email).await;
    let key_e = create_key(&deployment, &eve_email);
    let (a, e) = (key_a.id.as_str(), key_e.id.as_str());
    let rule = rule_a.as_str();
    let token = token_a.as_str();
    let csrf = csrf.as_str();
    // The rule form in full: whatever it holds, someone else's key or rule is not found.
    fn rule_form<'a>(key: &'a str, rule: &'a str) -> Vec<(&'static str, &'a str)> {
        vec![
            ("key", key),
            ("rule", rule),
            ("type", "pollen"),
            ("forecast", "1d"),
            ("sensitivity", "low"),
            ("message", "default"),
            ("enabled", "on"),
        ]
    }
    let attempts: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/dashboard/keys/revoke", vec![("key", a)]),
        (
            "/dashboard/keys/label",
            vec![("key", a), ("label", "taken over")],
        ),
        (
            "/dashboard/alerts/webhook",
            vec![("key", a), ("url", "http://127.0.0.1:1/eve")],
        ),
        ("/dashboard/alerts/rotate", vec![("key", a)]),
        ("/dashboard/alerts/test", vec![("key", a)]),
        ("/dashboard/rules", rule_form(a, rule)),
        ("/dashboard/rules", rule_form(e, rule)),
        ("/dashboard/rules", rule_form(a, "")),
        ("/dashboard/rules/toggle", vec![("key", a), ("rule", rule)]),
        ("/dashboard/rules/toggle", vec![("key", e), ("rule", rule)]),
        ("/dashboard/rules/delete", vec![("key", a), ("rule", rule)]),
        ("/dashboard/rules/delete", vec![("key", e), ("rule", rule)]),
        (
            "/dashboard/deliveries/redeliver",
            vec![("key", a), ("token", token)],
        ),
        (
            "/dashboard/deliveries/redeliver",
            vec![("key", e), ("token", token)],
        ),
    ];
    for (path, mut form) in attempts {
        form.push(("csrf", csrf));
        let reply = eve.post(path, &form).await;
        assert_eq!(reply.status, 404, "{path} {form:?}: {}", text(&reply));
    }
    for path in [
        format!("/dashboard/alerts?key={a}"),
        format!("/dashboard/rules?key={a}"),
        format!("/dashboard/rules?key={a}&edit={rule}"),
        format!("/dashboard/deliveries?key={a}"),
    ] {
        let reply = eve.get(&path).await;
        assert_eq!(reply.status, 404, "{path}: {}", text(&reply));
        // Someone else's key reads exactly like a key that does not exist.
        let missing = eve
            .get(&path.replace(a, &uuid::Uuid::new_v4().to_string()))
            .await;
        assert_eq!(
            (missing.status, &missing.body),
            (reply.status, &reply.body),
            "{path}"
        );
    }
    // Ada's rule under Eve's own key is no rule at all.
    let borrowed = eve
        .get(&format!("/dashboard/rules?key={e}&edit={rule}"))
        .await;
    assert_eq!(borrowed.status, 404, "{}", text(&borrowed));
    let missing = eve
        .get(&format!(
            "/dashboard/rules?key={e}&edit={}",
            uuid::Uuid::new_v4()
        ))
        .await;
    assert_eq!(
        (missing.status, &missing.body),
        (borrowed.status, &borrowed.body)
    );
    // Eve's own pages show nothing of Ada's.
    for path in [
        "/dashboard/keys",
        "/dashboard/alerts",
        "/dashboard/rules",
        "/dashboard/deliveries",
    ] {
        let page = eve.get(path).await;
        assert_eq!(page.status, 200, "{path}: {}", text(&page));
        let html = text(&page);
        for (what, ada_s) in [
            ("key id", a),
            ("key prefix", key_a.prefix.as_str()),
            ("rule id", rule),
            ("token", token),
            ("signing secret", secret_a.as_str()),
        ] {
            assert!(!html.contains(ada_s), "{path} shows Ada's {what}");
        }
    }

    // Nothing of Ada's changed, and no test or redelivery reached her receiver.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = (
        key_listing(&deployment, &ada_email, &key_a.id),
        deployment.admin(&["list-rules", "--key", &key_a.id]),
        deployment.admin(&["list-deliveries", "--key", &key_a.id]),
    );
    assert_eq!(after, before);
    assert_eq!(ada.secret_of(&key_a.id).await, secret_a);
    assert_eq!(
        receiver_a.deliveries().len(),
        1,
        "{:?}",
        receiver_a.deliveries()
    );
    assert_eq!(
        deployment.admin(&["list-rules", "--key", &key_e.id]),
        json!([]),
        "nothing was added to Eve's key either"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_accounts_api_key_never_uses_or_returns_an_accounts_webhook_rules_or_deliveries() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let http = client();
    let key_a = deployment.new_key();
    let receiver_a = Receiver::verifying(&key_a.secret).await;
    deployment.set_webhook(&key_a, &receiver_a.url("/hook"));
    deployment.add_rule(&key_a, "aq", "24h", "high");
    let token_a = post_points(&server, &key_a).await;
    receiver_a.delivery_for(&token_a).await;

    // Eve's key has neither webhook nor rules: Ada's are not lent to it.
    let key_e = deployment.new_key();
    let points = crate::alerts::points();
    post_json(&http, &server, &key_e.key, &points)
        .await
        .assert_error(400, "webhook_not_configured", &[]);
    let receiver_e = Receiver::verifying(&key_e.secret).await;
    deployment.set_webhook(&key_e, &receiver_e.url("/hook"));
    post_json(&http, &server, &key_e.key, &points)
        .await
        .assert_error(400, "no_alert_rules", &[]);

    // With her own rule, Eve's request goes to her receiver, signed with her secret, and
    // names her key.
    deployment.add_rule(&key_e, "aq", "24h", "high");
    let token_e = post_points(&server, &key_e).await;
    let delivery = receiver_e.delivery_for(&token_e).await;
    assert_eq!(delivery.verified, Some(Ok(())));
    assert_eq!(delivery.json["KEY"], key_e.prefix.as_str());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let to_a: Vec<Value> = receiver_a
        .deliveries()
        .into_iter()
        .map(|d| d.json)
        .collect();
    assert_eq!(
        to_a.len(),
        1,
        "only Ada's own request reached her: {to_a:?}"
    );
    assert_eq!(to_a[0]["TOKEN"], token_a.as_str());
    let to_e: Vec<Value> = receiver_e
        .deliveries()
        .into_iter()
        .map(|d| d.json)
        .collect();
    assert!(
        to_e.iter().all(|d| d["TOKEN"] == token_e.as_str()),
        "{to_e:?}"
    );

    // Each key's log holds its own requests only.
    let tokens = |key: &Key| -> Vec<String> {
        deployment
            .admin(&["list-deliveries", "--key", &key.id])
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["token"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(tokens(&key_a), [token_a]);
    assert_eq!(tokens(&key_e), [token_e]);
}
