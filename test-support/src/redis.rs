//! A Redis for the shared-limit tests, and a key prefix of the test's own so that tests running
//! at once (and earlier runs) never share a key.

use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// The variable naming the Redis the tests use.
pub const REDIS_URL: &str = "INSIGHTS_TEST_REDIS_URL";

/// The Redis when [`REDIS_URL`] is not set: the local one.
const DEFAULT_URL: &str = "redis://127.0.0.1:6379";

/// A Redis that answered, and the prefix this test's keys are to start with.
#[derive(Debug, Clone)]
pub struct TestRedis {
    /// The URL of the Redis.
    pub url: String,
    /// A prefix no other test uses, ending in `:`.
    pub prefix: String,
}

impl TestRedis {
    /// The Redis of [`REDIS_URL`] (else the local one) when it answers `PING`, or `None` when
    /// it is absent and the test is to skip (see [`crate::absent`]).
    pub async fn find() -> Option<Self> {
        let url = std::env::var(REDIS_URL).unwrap_or_else(|_| DEFAULT_URL.to_owned());
        let address = url
            .split_once("://")
            .map_or(url.as_str(), |(_, rest)| rest)
            .split(['/', '?'])
            .next()
            .unwrap_or_default()
            .rsplit('@')
            .next()
            .unwrap_or_default()
            .to_owned();
        match tokio::time::timeout(Duration::from_secs(2), ping(&address)).await {
            Ok(Ok(())) => Some(Self {
                url,
                prefix: format!("insights-test:{}:", uuid::Uuid::new_v4().simple()),
            }),
            Ok(Err(e)) => crate::absent(
                &format!("Redis at {url} ({e})"),
                &format!("start one (`redis-server --daemonize yes`), or set {REDIS_URL}"),
            ),
            Err(_) => crate::absent(
                &format!("Redis at {url} (no answer in 2 s)"),
                &format!("start one (`redis-server --daemonize yes`), or set {REDIS_URL}"),
            ),
        }
    }
}

/// Sends `PING` in Redis's protocol and expects `+PONG`.
async fn ping(address: &str) -> std::io::Result<()> {
    let mut stream = TcpStream::connect(address).await?;
    stream.write_all(b"*1\r\n$4\r\nPING\r\n").await?;
    let mut answer = [0_u8; 7];
    stream.read_exact(&mut answer).await?;
    if &answer == b"+PONG\r\n" {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "answered {:?} to PING",
            String::from_utf8_lossy(&answer)
        )))
    }
}
