//! `webhook-receiver`: an example of the server a customer runs to receive alert deliveries
//! (INSIGHT_OUTPUT) from the insights server, and a starting point for a real one.
//!
//! ```sh
//! WEBHOOK_SECRET=whsec_... cargo run -p webhook-receiver -- --out ./alerts
//! ```
//!
//! The insights server answers an alert request with a token, computes the alerts, writes them
//! to an NDJSON file and then POSTs `{"KEY": ..., "TOKEN": ..., "URL": ...}` to the key's webhook
//! URL. A receiver should behave as this one does:
//!
//! 1. **Verify before trusting anything.** Each delivery is signed with the key's `whsec_...`
//!    secret following Standard Webhooks (`webhook-id`, `webhook-timestamp`,
//!    `webhook-signature`). A signature that does not match, or a timestamp further than the
//!    tolerance from the receiver's clock (a replayed request), is answered 401. During a secret
//!    rotation the service signs with both secrets; give the receiver both (comma-separated)
//!    until the rotation is over.
//! 2. **Deduplicate.** Delivery is at least once: the same delivery can arrive again, always with
//!    the same `webhook-id`. A delivery handled already is answered 200 and nothing else happens.
//!    The last `--dedupe-capacity` ids are remembered, so memory stays bounded.
//! 3. **Fetch the file within 15 minutes.** The URL is signed and expires 900 s after the
//!    attempt. This receiver fetches it at once, before answering, and saves it if asked to
//!    (`--out`).
//! 4. **Answer 2xx only when done.** The service wants an answer within 10 s and, on anything
//!    else than 2xx, retries with backoff for 24 hours, each retry carrying a freshly signed URL.
//!    So a receiver that fetched the file answers 200, and one whose fetch failed (an expired
//!    URL, 403; a network error) answers 500 and lets the retry bring a URL that works. Fetching
//!    before answering keeps this simple: there is no queue to lose in a crash. A receiver whose
//!    processing takes longer than a few seconds should instead save the file, answer 200, and
//!    process it afterwards.
//! 5. **Answer 410 to stop deliveries for a token.** The service stops retrying on 410. This
//!    receiver does so when the file server says the file is gone (404 or 410): files are
//!    deleted after their retention, and no retry would bring it back.
//!
//! Alerts are printed to stdout, one line each, then a summary line per delivery; logs go to
//! stderr (`RUST_LOG` sets the level).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::webhook::Verifier;
use axum::Router;
use axum::routing::post;
use clap::Parser;
use identity_core::keys::WebhookSecret;
use tracing_subscriber::EnvFilter;

mod dedupe;
mod delivery;

use delivery::Receiver;

/// Receives alert deliveries: verifies their signature, fetches the alert file and prints the
/// alerts.
#[derive(Debug, Parser)]
#[command(name = "webhook-receiver", version, about)]
struct Args {
    /// The address to listen on; port 0 picks a free port (the address is printed at start-up).
    #[arg(long, env = "WEBHOOK_LISTEN", default_value = "127.0.0.1:9000")]
    listen: SocketAddr,

    /// The webhook signing secret (`whsec_...`) of the API key; several, comma-separated, during
    /// a rotation. Prefer the environment variable: command lines are visible to other users.
    #[arg(
        long,
        env = "WEBHOOK_SECRET",
        required = true,
        value_delimiter = ',',
        value_parser = parse_secret,
        hide_env_values = true
    )]
    secret: Vec<WebhookSecret>,

    /// The path deliveries are posted to.
    #[arg(long, env = "WEBHOOK_PATH", default_value = "/hook", value_parser = parse_path)]
    path: String,

    /// How far, in seconds, a delivery's timestamp may be from this machine's clock.
    #[arg(long, env = "WEBHOOK_TOLERANCE_SECS", default_value_t = 300)]
    tolerance_secs: u64,

    /// How many recent webhook-ids are remembered to recognise repeated deliveries (0: none).
    #[arg(long, env = "WEBHOOK_DEDUPE_CAPACITY", default_value_t = 10_000)]
    dedupe_capacity: usize,

    /// A directory to save each fetched file in, as `<TOKEN>.ndjson`.
    #[arg(long, env = "WEBHOOK_OUT")]
    out: Option<PathBuf>,
}

fn parse_secret(s: &str) -> Result<WebhookSecret, String> {
    WebhookSecret::parse(s.trim()).map_err(|e| e.to_string())
}

fn parse_path(s: &str) -> Result<String, String> {
    if s.starts_with('/') {
        Ok(s.to_owned())
    } else {
        Err("the path must start with `/`".to_owned())
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), String> {
    if let Some(dir) = &args.out {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let http = reqwest::Client::builder()
        .timeout(delivery::FETCH_TIMEOUT)
        .connect_timeout(Duration::from_secs(3))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let receiver = Arc::new(Receiver {
        secrets: args.secret,
        verifier: Verifier {
            tolerance: Duration::from_secs(args.tolerance_secs),
        },
        dedupe: dedupe::Dedupe::new(args.dedupe_capacity),
        http,
        out: args.out,
    });
    let app = Router::new()
        .route(&args.path, post(delivery::receive))
        .with_state(receiver);
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    // On stdout, so that scripts and tests started with port 0 can find the port.
    println!("webhook-receiver listening on http://{addr}{}", args.path);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            // If the signal handler cannot be installed, run until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
        .await
        .map_err(|e| format!("server error: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    const B: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    #[test]
    fn flags_and_defaults() {
        let args = Args::try_parse_from(["webhook-receiver", "--secret", A]).unwrap();
        assert_eq!(args.listen, "127.0.0.1:9000".parse().unwrap());
        assert_eq!(args.path, "/hook");
        assert_eq!(args.tolerance_secs, 300);
        assert_eq!(args.dedupe_capacity, 10_000);
        assert!(args.out.is_none());
        assert_eq!(args.secret.len(), 1);
    }

    #[test]
    fn several_secrets_for_a_rotation() {
        let args =
            Args::try_parse_from(["webhook-receiver", "--secret", &format!("{A}, {B}")]).unwrap();
        assert_eq!(args.secret[0].expose(), A);
        assert_eq!(args.secret[1].expose(), B);
    }

    #[test]
    fn bad_values_are_refused() {
        assert!(Args::try_parse_from(["webhook-receiver", "--secret", "whsec_nope"]).is_err());
        assert!(
            Args::try_parse_from(["webhook-receiver", "--secret", A, "--path", "hook"]).is_err()
        );
    }
}
