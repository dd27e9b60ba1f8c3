//! The receiver binary on a free port, receiving deliveries signed as the insights server signs
//! them, whose file URLs point at a local file server.

mod support;

use support::{
    EXPIRED, FileServer, GONE, KEY, OK, OTHER, Running, SECRET, SLOW, alerts, ndjson_file, now,
    secret, token,
};

fn summary(token: alerts_core::ids::Token, alerts: usize) -> String {
    format!("TOKEN {token} KEY {KEY} {alerts} alerts")
}

#[tokio::test]
async fn a_signed_delivery_is_fetched_printed_and_saved() {
    let files = FileServer::start().await;
    let out = tempfile::tempdir().unwrap();
    let receiver = Running::start(
        &["--secret", SECRET, "--out", out.path().to_str().unwrap()],
        &[],
    )
    .await;
    let token = token(1);

    let (status, body) = receiver
        .deliver(&[secret(SECRET)], token, &files.url(OK), now())
        .await;

    assert_eq!(status, 200, "{body}");
    receiver.wait_for_stdout(&summary(token, 2)).await;
    assert_eq!(
        receiver.stdout(),
        vec![
            "[aq] user-17 (40.7, -74.0): In 3 hours the air quality is expected to be worse \
             (54 AQI). — Sensitive groups should limit prolonged outdoor exertion."
                .to_owned(),
            "[pollen] user-18 (48.85, 2.35): Today grass pollen levels will rise. — Keep \
             windows closed in the morning."
                .to_owned(),
            summary(token, 2),
        ]
    );
    assert_eq!(files.hits(OK), 1);
    let saved = std::fs::read(out.path().join(format!("{token}.ndjson"))).unwrap();
    assert_eq!(saved, ndjson_file());
    assert_eq!(alerts_core::ndjson::decode_all(&saved).unwrap(), alerts());
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        1,
        "no partial file is left behind"
    );
}

#[tokio::test]
async fn a_repeated_webhook_id_is_acknowledged_without_fetching_again() {
    let files = FileServer::start().await;
    let receiver = Running::start(&["--secret", SECRET], &[]).await;
    let token = token(2);

    let (first, _) = receiver
        .deliver(&[secret(SECRET)], token, &files.url(OK), now())
        .await;
    // A retry is re-signed with a new timestamp and a new URL, under the same webhook-id.
    let (again, body) = receiver
        .deliver(&[secret(SECRET)], token, &files.url(SLOW), now() + 1)
        .await;

    assert_eq!((first, again), (200, 200), "{body}");
    assert_eq!(body, "already handled\n");
    assert_eq!(files.total_hits(), 1);
    receiver.wait_for_stdout(&summary(token, 2)).await;
    assert_eq!(
        receiver
            .stdout()
            .iter()
            .filter(|l| l.starts_with("TOKEN "))
            .count(),
        1
    );
}

#[tokio::test]
async fn a_bad_signature_is_refused_without_fetching() {
    let files = FileServer::start().await;
    let receiver = Running::start(&["--secret", SECRET], &[]).await;
    let token = token(3);

    let (status, body) = receiver
        .deliver(&[secret(OTHER)], token, &files.url(OK), now())
        .await;
    assert_eq!(status, 401);
    assert!(
        body.contains("no webhook-signature entry matches"),
        "{body}"
    );

    let (status, _) = receiver
        .post(&[], br#"{"KEY":"k","TOKEN":"x","URL":"y"}"#.to_vec())
        .await;
    assert_eq!(status, 401, "headers missing");

    assert_eq!(files.total_hits(), 0);
    assert!(receiver.stdout().is_empty());
    assert!(
        receiver
            .stderr()
            .iter()
            .any(|l| l.contains("rejected a delivery")),
        "{:?}",
        receiver.stderr()
    );
}

#[tokio::test]
async fn a_stale_or_future_timestamp_is_refused() {
    let files = FileServer::start().await;
    let receiver = Running::start(&["--secret", SECRET, "--tolerance-secs", "60"], &[]).await;
    let token = token(4);

    for timestamp in [now() - 120, now() + 120] {
        let (status, body) = receiver
            .deliver(&[secret(SECRET)], token, &files.url(OK), timestamp)
            .await;
        assert_eq!(status, 401, "{body}");
        assert!(body.contains("tolerance"), "{body}");
    }
    assert_eq!(files.total_hits(), 0);

    let (status, body) = receiver
        .deliver(&[secret(SECRET)], token, &files.url(OK), now() - 30)
        .await;
    assert_eq!(status, 200, "within the tolerance: {body}");
}

#[tokio::test]
async fn an_expired_url_is_answered_500_and_the_retry_is_handled() {
    let files = FileServer::start().await;
    let receiver = Running::start(&["--secret", SECRET], &[]).await;
    let token = token(5);

    let (status, body) = receiver
        .deliver(&[secret(SECRET)], token, &files.url(EXPIRED), now())
        .await;
    assert_eq!(status, 500, "so that the service retries: {body}");
    assert!(body.contains("403"), "{body}");
    assert_eq!(files.hits(EXPIRED), 1);

    // The failed attempt was not remembered: the retry, with a fresh URL, is handled.
    let (status, body) = receiver
        .deliver(&[secret(SECRET)], token, &files.url(OK), now())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(files.hits(OK), 1);
    receiver.wait_for_stdout(&summary(token, 2)).await;
}

#[tokio::test]
async fn a_deleted_file_is_answered_410_to_stop_retries() {
    let files = FileServer::start().await;
    let receiver = Running::start(&["--secret", SECRET], &[]).await;

    let (status, body) = receiver
        .deliver(&[secret(SECRET)], token(6), &files.url(GONE), now())
        .await;

    assert_eq!(status, 410, "{body}");
    assert_eq!(files.hits(GONE), 1);
}

#[tokio::test]
async fn a_malformed_body_is_answered_400_without_fetching() {
    let files = FileServer::start().await;
    let receiver = Running::start(&["--secret", SECRET], &[]).await;
    let body = format!(
        r#"{{"KEY":"{KEY}","TOKEN":"../../etc/passwd","URL":"{}"}}"#,
        files.url(OK)
    );
    let request = alerts_core::webhook::signed_request(
        &receiver.url,
        [&secret(SECRET)],
        "msg_malformed",
        now(),
        body.into_bytes().into(),
    );

    let (status, answer) = receiver.post(&request.headers, request.body.to_vec()).await;

    assert_eq!(status, 400, "{answer}");
    assert_eq!(files.total_hits(), 0);
}

#[tokio::test]
async fn concurrent_copies_of_a_delivery_are_handled_once() {
    let files = FileServer::start().await;
    let receiver = Running::start(&["--secret", SECRET], &[]).await;
    let token = token(7);
    let url = files.url(SLOW);
    let secrets = [secret(SECRET)];

    let (first, copy) = tokio::join!(receiver.deliver(&secrets, token, &url, now()), async {
        // Sent while the first attempt's fetch is under way.
        while files.hits(SLOW) == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        receiver.deliver(&secrets, token, &url, now()).await
    },);

    assert_eq!((first.0, copy.0), (200, 409), "{first:?} {copy:?}");
    assert_eq!(files.hits(SLOW), 1);
    let (status, body) = receiver.deliver(&secrets, token, &url, now()).await;
    assert_eq!((status, body.as_str()), (200, "already handled\n"));
}

#[tokio::test]
async fn secrets_come_from_the_environment_during_a_rotation() {
    let files = FileServer::start().await;
    let both = format!("{OTHER},{SECRET}");
    let receiver = Running::start(&[], &[("WEBHOOK_SECRET", both.as_str())]).await;

    for (n, signer) in [(8, SECRET), (9, OTHER)] {
        let (status, body) = receiver
            .deliver(&[secret(signer)], token(n), &files.url(OK), now())
            .await;
        assert_eq!(status, 200, "signed with {signer}: {body}");
    }
    assert_eq!(files.hits(OK), 2);
}
