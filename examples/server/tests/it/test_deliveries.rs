//! Test deliveries on the real binary: sent from the dashboard's Webhook page over HTTP to a
//! real receiver, then listed on the Deliveries page, marked as tests, with how the receiver
//! answered, or that nothing did.

use axum::http::StatusCode;
use test_support::receiver::Receiver;

use crate::harness::Deployment;
use crate::security::{Browser, field, new_email, serve, text, text_of};

/// The table row of the deliveries page that holds `token`.
#[track_caller]
fn row_of<'a>(page: &'a str, token: &str) -> &'a str {
    let at = page
        .find(&format!("<code>{token}</code>"))
        .unwrap_or_else(|| panic!("{token} is not listed: {page}"));
    let start = page[..at].rfind("<tr").unwrap();
    let end = at + page[at..].find("</tr>").unwrap();
    &page[start..end]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_deliveries_are_listed_on_the_deliveries_page_with_the_receivers_answer() {
    let deployment = Deployment::new();
    let server = serve(&deployment, &[]);
    let mut browser = Browser::new(&server);
    let csrf = browser.sign_up(&new_email()).await;
    let created = browser
        .post(
            "/dashboard/keys",
            &[("label", "receiver checks"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(created.status, 201, "{}", text(&created));
    let key = field(&created, "key");
    let receiver = Receiver::verifying(&browser.secret_of(&key).await).await;
    let url = receiver.url("/hook");
    let saved = browser
        .post(
            "/dashboard/alerts/webhook",
            &[("key", &key), ("url", &url), ("csrf", &csrf)],
        )
        .await;
    assert!(saved.status.is_redirection(), "{}", text(&saved));
    let mut send_test = async |expect: &str| {
        let reply = browser
            .post("/dashboard/alerts/test", &[("key", &key), ("csrf", &csrf)])
            .await;
        assert_eq!(reply.status, 200, "{}", text(&reply));
        let result = text_of(&reply, "test-result");
        assert!(result.contains(expect), "{result}");
        assert!(
            text(&reply).contains("Tests are listed on the"),
            "{}",
            text(&reply)
        );
    };

    send_test("succeeded: HTTP 204").await;
    receiver.answer(StatusCode::INTERNAL_SERVER_ERROR);
    send_test("failed (status, HTTP 500").await;
    receiver.down().await;
    send_test("failed (could not connect").await;
    let received = receiver.deliveries();
    assert_eq!(received.len(), 2, "the third found nobody listening");
    for delivery in &received {
        assert_eq!(
            delivery.verified,
            Some(Ok(())),
            "signed with the key's secret"
        );
        assert_eq!(delivery.json["TEST"], true);
    }
    let (answered, refused) = (received[0].token().unwrap(), received[1].token().unwrap());

    let page = browser
        .get(&format!("/dashboard/deliveries?key={key}"))
        .await;
    assert_eq!(page.status, 200, "{}", text(&page));
    let html = text(&page);
    let list =
        &html[html.find("id=\"deliveries\"").unwrap()..html.find("id=\"activity\"").unwrap()];
    let rows: Vec<&str> = list.split("<tr class=").skip(1).collect();
    assert_eq!(rows.len(), 3, "the three tests and nothing else: {list}");
    assert!(
        rows.iter().all(|row| row.starts_with("\"delivery test\"")
            && row.contains("<span class=\"badge\">Test</span>")
            && row.contains(&format!("#1 to <code>{url}</code>: "))
            && !row.contains("Redeliver")
            && !row.contains("/dashboard/deliveries/alerts")),
        "each marked as a test, with where it went, and neither alerts nor redelivery: {list}"
    );
    assert!(
        rows[0].contains("failed") && rows[0].contains("no answer (could not connect), "),
        "the newest first, which nothing answered: {}",
        rows[0]
    );
    let refused_row = row_of(list, refused);
    assert!(rows[1].contains(refused), "{list}");
    assert!(
        refused_row.contains("Test</span> failed") && refused_row.contains(": HTTP 500 (status), "),
        "{refused_row}"
    );
    let answered_row = row_of(list, answered);
    assert!(rows[2].contains(answered), "{list}");
    assert!(
        answered_row.contains("Test</span> delivered") && answered_row.contains(": HTTP 204, "),
        "{answered_row}"
    );
}
