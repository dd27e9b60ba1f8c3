//! Handling one delivery: verify, deduplicate, fetch the file, print the alerts, answer.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use alerts_core::ids::Token;
use alerts_core::ndjson::{self, AlertLine, DecodeError};
use alerts_core::webhook::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, Verifier};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use identity_core::keys::WebhookSecret;
use serde::Deserialize;
use thiserror::Error;
use tracing::{info, warn};

use crate::dedupe::{Claim, Dedupe};

/// How long fetching the file may take. The service counts a delivery as failed when the answer
/// takes more than 10 s, so the fetch must end, one way or the other, before that.
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(8);

/// What every request handler shares.
#[derive(Debug)]
pub(crate) struct Receiver {
    pub(crate) secrets: Vec<WebhookSecret>,
    pub(crate) verifier: Verifier,
    pub(crate) dedupe: Dedupe,
    pub(crate) http: reqwest::Client,
    /// Where to save each file, if anywhere.
    pub(crate) out: Option<PathBuf>,
}

/// The JSON body of a delivery.
#[derive(Debug, Deserialize)]
pub(crate) struct Delivery {
    /// The public prefix of the API key whose request this is (`ik_` and 8 hex digits).
    #[serde(rename = "KEY")]
    pub(crate) key: String,
    /// The token the alert request answered with.
    #[serde(rename = "TOKEN")]
    pub(crate) token: Token,
    /// The signed file URL, valid for 15 minutes from the attempt.
    #[serde(rename = "URL")]
    pub(crate) url: String,
}

/// Why a verified delivery could not be handled.
#[derive(Debug, Error)]
pub(crate) enum FetchError {
    #[error("could not fetch the file: {0}")]
    Request(#[from] reqwest::Error),
    #[error("the file server answered {0}")]
    Status(StatusCode),
    #[error("the file is gone (the file server answered {0})")]
    Gone(StatusCode),
    #[error("the file is not valid NDJSON: {0}")]
    Decode(#[from] DecodeError),
    #[error("could not save the file: {0}")]
    Save(#[from] std::io::Error),
}

impl FetchError {
    /// The answer to the service. 410 tells it to stop: the file was deleted after its
    /// retention, and no retry will bring it back. Anything else may work next time, with the
    /// fresh URL a retry carries.
    fn status(&self) -> StatusCode {
        match self {
            FetchError::Gone(_) => StatusCode::GONE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// The handler of `POST <path>`.
pub(crate) async fn receive(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    let id = header(HEADER_ID);
    // Verify before looking at anything else: until then the body is anybody's.
    if let Err(e) = receiver.verifier.verify(
        &receiver.secrets,
        id,
        header(HEADER_TIMESTAMP),
        header(HEADER_SIGNATURE),
        &body,
        chrono::Utc::now(),
    ) {
        warn!(webhook_id = id, "rejected a delivery: {e}");
        return (StatusCode::UNAUTHORIZED, format!("{e}\n"));
    }
    let delivery: Delivery = match serde_json::from_slice(&body) {
        Ok(d) => d,
        Err(e) => {
            warn!(webhook_id = id, "malformed delivery body: {e}");
            return (StatusCode::BAD_REQUEST, format!("malformed body: {e}\n"));
        }
    };
    let pending = match receiver.dedupe.claim(id) {
        Claim::Fresh(pending) => pending,
        Claim::Done => {
            info!(webhook_id = id, token = %delivery.token, "duplicate delivery, already handled");
            return (StatusCode::OK, "already handled\n".to_owned());
        }
        Claim::InFlight => {
            // Not 2xx: if the attempt in progress fails, the service must still come back.
            info!(webhook_id = id, "delivery already in progress");
            return (StatusCode::CONFLICT, "already in progress\n".to_owned());
        }
    };
    match fetch_and_print(&receiver, &delivery).await {
        Ok(count) => {
            pending.complete();
            info!(webhook_id = id, token = %delivery.token, alerts = count, "delivery handled");
            (StatusCode::OK, format!("received {count} alerts\n"))
        }
        Err(e) => {
            warn!(webhook_id = id, token = %delivery.token, "delivery not handled: {e}");
            (e.status(), format!("{e}\n"))
        }
    }
}

async fn fetch_and_print(receiver: &Receiver, delivery: &Delivery) -> Result<usize, FetchError> {
    let response = receiver.http.get(&delivery.url).send().await?;
    let status = response.status();
    if status == StatusCode::NOT_FOUND || status == StatusCode::GONE {
        return Err(FetchError::Gone(status));
    }
    if !status.is_success() {
        return Err(FetchError::Status(status));
    }
    let file = response.bytes().await?;
    // Decode everything before printing anything, so that a bad file prints nothing twice when
    // the service retries it.
    let alerts = ndjson::decode_all(&file)?;
    if let Some(dir) = &receiver.out {
        save(dir, delivery.token, &file).await?;
    }
    print_alerts(delivery, &alerts);
    Ok(alerts.len())
}

/// Writes `<dir>/<token>.ndjson` through a temporary name, so that the final name never holds a
/// half-written file. The token is a UUID, so it is a safe file name whatever the sender says.
async fn save(dir: &Path, token: Token, file: &[u8]) -> std::io::Result<()> {
    let path = dir.join(format!("{token}.ndjson"));
    let partial = dir.join(format!("{token}.ndjson.part"));
    tokio::fs::write(&partial, file).await?;
    tokio::fs::rename(&partial, &path).await
}

fn print_alerts(delivery: &Delivery, alerts: &[AlertLine]) {
    // One lock for the whole delivery, so that concurrent deliveries do not interleave lines.
    let mut out = std::io::stdout().lock();
    for alert in alerts {
        // Failing to print is no reason to make the service deliver again.
        let _ = writeln!(out, "{}", alert_line(alert));
    }
    let _ = writeln!(
        out,
        "TOKEN {} KEY {} {} alert{}",
        delivery.token,
        delivery.key,
        alerts.len(),
        if alerts.len() == 1 { "" } else { "s" }
    );
}

/// `[aq] user-17 (40.7, -74.0): <description> — <recommendation>`.
pub(crate) fn alert_line(alert: &AlertLine) -> String {
    // `{:?}` keeps the `.0` of whole-degree coordinates, so they read as coordinates.
    format!(
        "[{}] {} ({:?}, {:?}): {} — {}",
        alert.data_type.as_str(),
        alert.id,
        alert.lat,
        alert.lon,
        alert.description,
        alert.recommendation
    )
}

#[cfg(test)]
mod tests {
    use alerts_core::rule::DataType;

    use super::*;

    #[test]
    fn an_alert_prints_as_one_line() {
        let alert = AlertLine {
            description: "In 3 hours the air quality is expected to be worse (54 AQI).".into(),
            recommendation: "Sensitive groups should limit outdoor exertion.".into(),
            lat: 40.7,
            lon: -74.0,
            id: "user-17".into(),
            data_type: DataType::Aq,
            custom_data: "{}".into(),
            details: None,
        };
        assert_eq!(
            alert_line(&alert),
            "[aq] user-17 (40.7, -74.0): In 3 hours the air quality is expected to be worse \
             (54 AQI). — Sensitive groups should limit outdoor exertion."
        );
    }

    #[test]
    fn the_body_is_the_services_payload() {
        let d: Delivery = serde_json::from_str(
            r#"{"KEY":"ik_0123abcd","TOKEN":"6f1c2b0e-8a4d-4e0f-9c3b-2d7e5a1f0b9c","URL":"http://x/f"}"#,
        )
        .unwrap();
        assert_eq!(d.key, "ik_0123abcd");
        assert_eq!(d.token.to_string(), "6f1c2b0e-8a4d-4e0f-9c3b-2d7e5a1f0b9c");
        assert!(
            serde_json::from_str::<Delivery>(
                r#"{"KEY":"k","TOKEN":"../../etc/passwd","URL":"http://x/f"}"#
            )
            .is_err(),
            "a token that is not a UUID never becomes a file name"
        );
    }
}
