//! Attacks on the server's memory and time through request bodies, each with the bound it must
//! hold. The server is the real binary; its peak memory is the kernel's record (`VmHWM`).

use std::time::Duration;

use insights_load::memory::{MemoryReading, mib};

use crate::harness::{Deployment, client};

/// The default limits, with a rate limit the attacks never meet: the bounds below are the
/// server's own, not the rate limiter's.
const CONFIG: &str = "rate_per_second = 100000\nrate_burst = 100000\n";

/// Just under the default body limit of 32 MiB.
const BODY_BYTES: usize = 32 * 1024 * 1024 - 4096;

/// A valid route request followed by an unknown member holding an array as long as the body
/// allows: before the reader refused unknown members by itself, each such body was read into a
/// JSON tree many times its size.
fn amplifying_body() -> Vec<u8> {
    let mut body = br#"{"routesSort": "desc", "routes": [{"id": "a", "polyline": [[13.40, 52.52], [13.41, 52.52]], "routeDuration": 10}], "x": ["#.to_vec();
    while body.len() < BODY_BYTES - 16 {
        body.extend_from_slice(b"0,");
    }
    body.extend_from_slice(b"0]}");
    body
}

#[tokio::test(flavor = "multi_thread")]
async fn four_concurrent_32_mib_amplifying_bodies_stay_under_256_mib_and_get_400() {
    let deployment = Deployment::new().config(CONFIG);
    let key = deployment.new_key();
    let server = deployment.serve(&["--workers", "0"]);
    let before = MemoryReading::of(server.pid()).unwrap();

    let body = amplifying_body();
    let url = server.api(&key.key);
    let sends: Vec<_> = (0..4)
        .map(|_| {
            let (url, body) = (url.clone(), body.clone());
            tokio::spawn(async move {
                let response = client()
                    .post(url)
                    .header("content-type", "application/json")
                    .body(body)
                    .timeout(Duration::from_secs(60))
                    .send()
                    .await
                    .unwrap();
                (response.status().as_u16(), response.text().await.unwrap())
            })
        })
        .collect();
    // The four are already under way: awaiting them in turn waits for the slowest.
    let mut refused = 0;
    for send in sends {
        let (status, text) = send.await.unwrap();
        // A 503 is the parse cap at work (it sends the client back to retry later); every
        // other answer is the reader's refusal of the unknown member, named.
        if status == 503 {
            assert!(text.contains("retry shortly"), "{text}");
        } else {
            assert_eq!(status, 400, "{text}");
            assert!(text.contains("x: unknown field `x`"), "{text}");
            refused += 1;
        }
    }
    assert!(
        refused > 0,
        "every body was turned away by the cap; none was read"
    );
    let after = MemoryReading::of(server.pid()).unwrap();
    let grown = after.hwm_kib.saturating_sub(before.hwm_kib);
    assert!(
        grown < 256 * 1024,
        "peak memory grew by {:.0} MiB (from {:.0} MiB)",
        mib(grown),
        mib(before.hwm_kib)
    );
}

#[tokio::test]
async fn custom_data_over_its_limit_is_a_413_naming_the_point() {
    let deployment = Deployment::new().config(&format!("{CONFIG}max_custom_data_bytes = 64\n"));
    let key = deployment.new_key();
    deployment.set_webhook(&key, "http://127.0.0.1:9/hook");
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = deployment.serve(&["--workers", "0"]);
    let padding = "p".repeat(64);
    let body = format!(
        r#"{{"points": [{{"lon": 0, "lat": 0, "id": "a"}}, {{"lon": 0, "lat": 0, "id": "b", "custom_data": {{"k": "{padding}"}}}}]}}"#
    );
    let response = client()
        .post(server.api(&key.key))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413);
    let text = response.text().await.unwrap();
    assert!(
        text.contains("points[1].custom_data: 73 bytes is more than the limit of 64"),
        "{text}"
    );
}
