//! The job's life on the API: submitted, polled, its result downloaded.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_RANGE, RANGE, RETRY_AFTER};
use reqwest::{RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use thiserror::Error;
use tokio::io::AsyncWriteExt;
use url::Url;

/// How long and how often to wait: between attempts of a request the API refused for now (429,
/// 5xx, a broken connection) and between polls of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Attempts of one request (and of one download) before giving up.
    pub attempts: u32,
    /// The first wait after a failed attempt; each next one doubles, up to `max_wait`.
    pub first_wait: Duration,
    /// The longest wait between attempts, `Retry-After` included.
    pub max_wait: Duration,
    /// The first wait between polls of a job; each next one is half as long again.
    pub first_poll: Duration,
    /// The longest wait between polls.
    pub max_poll: Duration,
    /// The longest a job may take from submission to its result.
    pub job_timeout: Duration,
}

impl Default for Retry {
    /// Patient enough for the public ADS, whose queue can hold a job for many minutes.
    fn default() -> Self {
        Retry {
            attempts: 8,
            first_wait: Duration::from_secs(2),
            max_wait: Duration::from_secs(300),
            first_poll: Duration::from_secs(1),
            max_poll: Duration::from_secs(60),
            job_timeout: Duration::from_secs(6 * 3600),
        }
    }
}

impl Retry {
    fn wait(&self, attempt: u32) -> Duration {
        self.first_wait
            .saturating_mul(1 << attempt.min(16))
            .min(self.max_wait)
    }
}

/// Why a retrieval failed.
#[derive(Debug, Error)]
pub enum AdsError {
    /// The API could not be reached, or the connection broke, on every attempt.
    #[error("cannot reach {url}: {message}")]
    Network {
        /// What was asked for.
        url: String,
        /// The last error.
        message: String,
    },
    /// The API refused the request (401 for a wrong key, 400 for a bad request ...).
    #[error("{url} answered {status}: {message}")]
    Refused {
        /// What was asked for.
        url: String,
        /// The answer's status.
        status: u16,
        /// The answer's `title` and `detail`, or its text.
        message: String,
    },
    /// The job ended without a result.
    #[error("job {job} ended {status}: {message}")]
    Job {
        /// The job's id.
        job: String,
        /// Its last status.
        status: String,
        /// The API's message.
        message: String,
    },
    /// An answer the protocol does not allow (no `monitor` link, no asset ...).
    #[error("unexpected answer from {url}: {message}")]
    Protocol {
        /// What was asked for.
        url: String,
        /// What was wrong.
        message: String,
    },
    /// The download's length differs from the asset's `file:size` after every attempt.
    #[error("downloaded {got} bytes of {expected} from {url}")]
    Size {
        /// The asset.
        url: String,
        /// `file:size`.
        expected: u64,
        /// Bytes received.
        got: u64,
    },
    /// The target could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A finished retrieval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieval {
    /// The job's id on the API.
    pub job: String,
    /// Bytes of the file.
    pub bytes: u64,
    /// Where the file is.
    pub path: PathBuf,
}

/// A client of one Data Stores API with one key.
#[derive(Clone)]
pub struct AdsClient {
    http: reqwest::Client,
    root: String,
    key: String,
    retry: Retry,
}

impl std::fmt::Debug for AdsClient {
    // The key stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdsClient")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl AdsClient {
    /// A client of the API at `url` (such as [`crate::PUBLIC_ADS_URL`]) with `key`.
    ///
    /// # Errors
    /// When `url` is not an http(s) URL or the HTTP client cannot be built.
    pub fn new(url: &str, key: &str) -> Result<Self, AdsError> {
        let parsed = Url::parse(url).map_err(|e| AdsError::Protocol {
            url: url.to_owned(),
            message: format!("not a URL: {e}"),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(AdsError::Protocol {
                url: url.to_owned(),
                message: "the API is reached over http(s)".to_owned(),
            });
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!("insights-ads/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(30))
            // Between two reads, not for a whole download: a result can be gigabytes.
            .read_timeout(Duration::from_secs(120))
            .build()
            .map_err(|e| AdsError::Network {
                url: url.to_owned(),
                message: e.to_string(),
            })?;
        Ok(AdsClient {
            http,
            root: url.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
            retry: Retry::default(),
        })
    }

    /// The same client with other waits.
    #[must_use]
    pub fn with_retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    /// Submits `inputs` to `dataset`, waits for the job, and downloads its result to `target`
    /// (through `target` + `.part`, which a later call resumes from).
    ///
    /// # Errors
    /// See [`AdsError`].
    pub async fn retrieve(
        &self,
        dataset: &str,
        inputs: &Value,
        target: &Path,
    ) -> Result<Retrieval, AdsError> {
        let started = Instant::now();
        let execute = format!("{}/retrieve/v1/processes/{dataset}/execution", self.root);
        let body = json!({ "inputs": inputs });
        let (job_url, job) = self
            .json(&execute, || {
                self.keyed(self.http.post(&execute)).json(&body)
            })
            .await?;
        let job_id = str_field(&job, "jobID").unwrap_or("?").to_owned();
        let monitor = link(&job, "monitor", &job_url)?.ok_or_else(|| AdsError::Protocol {
            url: execute.clone(),
            message: "the job has no `monitor` link".to_owned(),
        })?;
        tracing::info!(dataset, job = %job_id, "ADS job submitted");
        let finished = self.wait(&job_id, dataset, &monitor, started).await?;
        let results =
            link(&finished, "results", &monitor)?.unwrap_or_else(|| format!("{monitor}/results"));
        let (results_url, answer) = self
            .json(&results, || self.keyed(self.http.get(&results)))
            .await?;
        let asset = &answer["asset"]["value"];
        let (Some(href), Some(size)) = (str_field(asset, "href"), asset["file:size"].as_u64())
        else {
            return Err(AdsError::Protocol {
                url: results,
                message: "the results have no `asset.value` with `href` and `file:size`".to_owned(),
            });
        };
        let href = join(&results_url, href)?;
        self.download(&href, size, target).await?;
        tracing::info!(
            dataset,
            job = %job_id,
            bytes = size,
            seconds = started.elapsed().as_secs(),
            "ADS job downloaded"
        );
        Ok(Retrieval {
            job: job_id,
            bytes: size,
            path: target.to_owned(),
        })
    }

    fn keyed(&self, request: RequestBuilder) -> RequestBuilder {
        request.header("PRIVATE-TOKEN", &self.key)
    }

    /// Polls `monitor` until the job ends; its last answer when `successful`.
    async fn wait(
        &self,
        job: &str,
        dataset: &str,
        monitor: &str,
        started: Instant,
    ) -> Result<Value, AdsError> {
        let mut pause = self.retry.first_poll;
        let mut last = String::new();
        loop {
            let (_, reply) = self
                .json(monitor, || self.keyed(self.http.get(monitor)))
                .await?;
            let status = str_field(&reply, "status").unwrap_or("").to_owned();
            if status != last {
                tracing::info!(dataset, job, status = %status, "ADS job");
                last.clone_from(&status);
            }
            match status.as_str() {
                "successful" => return Ok(reply),
                "accepted" | "running" => {}
                "failed" | "rejected" => {
                    let message = self.failure(&reply, monitor).await;
                    return Err(AdsError::Job {
                        job: job.to_owned(),
                        status,
                        message,
                    });
                }
                other => {
                    return Err(AdsError::Job {
                        job: job.to_owned(),
                        status: other.to_owned(),
                        message: "the API ended the job".to_owned(),
                    });
                }
            }
            if started.elapsed() > self.retry.job_timeout {
                return Err(AdsError::Job {
                    job: job.to_owned(),
                    status,
                    message: format!("not done after {:?}", self.retry.job_timeout),
                });
            }
            tokio::time::sleep(pause).await;
            pause = pause.mul_f64(1.5).min(self.retry.max_poll);
        }
    }

    /// The API's explanation of a failed job: its results answer with the error.
    async fn failure(&self, reply: &Value, monitor: &str) -> String {
        let results = link(reply, "results", monitor)
            .ok()
            .flatten()
            .unwrap_or_else(|| format!("{monitor}/results"));
        match self.keyed(self.http.get(&results)).send().await {
            Ok(answer) => message_of(&answer.text().await.unwrap_or_default()),
            Err(e) => e.to_string(),
        }
    }

    /// Sends the request `build` makes until it is answered other than 429 or 5xx; the final
    /// URL and the answer's JSON.
    async fn json(
        &self,
        url: &str,
        build: impl Fn() -> RequestBuilder,
    ) -> Result<(String, Value), AdsError> {
        let answer = self.send(url, build).await?;
        let at = answer.url().to_string();
        let status = answer.status();
        let text = answer.text().await.map_err(|e| AdsError::Network {
            url: url.to_owned(),
            message: e.to_string(),
        })?;
        if !status.is_success() {
            return Err(AdsError::Refused {
                url: url.to_owned(),
                status: status.as_u16(),
                message: message_of(&text),
            });
        }
        let value = serde_json::from_str(&text).map_err(|e| AdsError::Protocol {
            url: url.to_owned(),
            message: format!("not JSON: {e}"),
        })?;
        Ok((at, value))
    }

    /// Sends with backoff: a broken connection, 429 and 5xx are tried again, after the answer's
    /// `Retry-After` when it gives one. Any other answer is returned.
    async fn send(
        &self,
        url: &str,
        build: impl Fn() -> RequestBuilder,
    ) -> Result<Response, AdsError> {
        let mut attempt = 0;
        loop {
            let (wait, failure) = match build().send().await {
                Ok(answer) => {
                    let status = answer.status();
                    if status != StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
                        return Ok(answer);
                    }
                    let after = retry_after(&answer);
                    let message = message_of(&answer.text().await.unwrap_or_default());
                    (
                        after.map_or_else(
                            || self.retry.wait(attempt),
                            |a| a.min(self.retry.max_wait),
                        ),
                        AdsError::Refused {
                            url: url.to_owned(),
                            status: status.as_u16(),
                            message,
                        },
                    )
                }
                Err(e) => (
                    self.retry.wait(attempt),
                    AdsError::Network {
                        url: url.to_owned(),
                        message: e.to_string(),
                    },
                ),
            };
            attempt += 1;
            if attempt >= self.retry.attempts {
                return Err(failure);
            }
            tracing::warn!(url, error = %failure, wait_ms = wait.as_millis() as u64, "ADS request retried");
            tokio::time::sleep(wait).await;
        }
    }

    /// Downloads `href` (`size` bytes) to `target`, resuming from `target.part` when the
    /// server takes a `Range` and starting over when it does not.
    async fn download(&self, href: &str, size: u64, target: &Path) -> Result<(), AdsError> {
        let part = PathBuf::from(format!("{}.part", target.display()));
        let io = |source| AdsError::Io {
            path: part.clone(),
            source,
        };
        let mut got = 0;
        for attempt in 0..self.retry.attempts {
            let have = tokio::fs::metadata(&part).await.map_or(0, |m| m.len());
            if have > size {
                tokio::fs::remove_file(&part).await.map_err(io)?;
                continue;
            }
            if have == size {
                got = have;
                break;
            }
            // The result URL may be on another host (a bucket): the key is not sent there.
            let answer = self
                .send(href, || {
                    let request = self.http.get(href);
                    if have > 0 {
                        request.header(RANGE, format!("bytes={have}-"))
                    } else {
                        request
                    }
                })
                .await?;
            let status = answer.status();
            let append = status == StatusCode::PARTIAL_CONTENT && starts_at(&answer) == Some(have);
            if status == StatusCode::RANGE_NOT_SATISFIABLE {
                tokio::fs::remove_file(&part).await.map_err(io)?;
                continue;
            }
            if !status.is_success() {
                return Err(AdsError::Refused {
                    url: href.to_owned(),
                    status: status.as_u16(),
                    message: message_of(&answer.text().await.unwrap_or_default()),
                });
            }
            if have > 0 {
                tracing::info!(
                    url = href,
                    from = have,
                    resumed = append,
                    "ADS download continued"
                );
            }
            let mut file = tokio::fs::OpenOptions::new()
                .create(true)
                .append(append)
                .write(true)
                .truncate(!append)
                .open(&part)
                .await
                .map_err(io)?;
            got = if append { have } else { 0 };
            let mut answer = answer;
            let broken = loop {
                match answer.chunk().await {
                    Ok(Some(bytes)) => {
                        file.write_all(&bytes).await.map_err(io)?;
                        got += bytes.len() as u64;
                    }
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            file.flush().await.map_err(io)?;
            drop(file);
            if got == size {
                break;
            }
            tracing::warn!(
                url = href,
                got,
                size,
                error = broken.as_deref().unwrap_or("ended early"),
                "ADS download cut short"
            );
            tokio::time::sleep(self.retry.wait(attempt)).await;
        }
        if got != size {
            return Err(AdsError::Size {
                url: href.to_owned(),
                expected: size,
                got,
            });
        }
        tokio::fs::rename(&part, target)
            .await
            .map_err(|source| AdsError::Io {
                path: target.to_owned(),
                source,
            })
    }
}

fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The `href` of the link `rel` of an answer, made absolute against `base`.
fn link(answer: &Value, rel: &str, base: &str) -> Result<Option<String>, AdsError> {
    let found = answer["links"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|l| l["rel"] == rel)
        .and_then(|l| str_field(l, "href"));
    found.map(|href| join(base, href)).transpose()
}

fn join(base: &str, href: &str) -> Result<String, AdsError> {
    Url::parse(base)
        .and_then(|b| b.join(href))
        .map(String::from)
        .map_err(|e| AdsError::Protocol {
            url: base.to_owned(),
            message: format!("bad link `{href}`: {e}"),
        })
}

/// The API's errors are JSON with a `title` and a `detail`; anything else is shown as text.
fn message_of(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(error) => {
            let parts: Vec<&str> = ["title", "detail"]
                .iter()
                .filter_map(|k| str_field(&error, k))
                .collect();
            if parts.is_empty() {
                text.chars().take(500).collect()
            } else {
                parts.join(": ")
            }
        }
        Err(_) => text.chars().take(500).collect(),
    }
}

/// `Retry-After` in seconds (its date form is rare on APIs and falls back to the backoff).
fn retry_after(answer: &Response) -> Option<Duration> {
    answer
        .headers()
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// The first byte a 206 answer holds, from `Content-Range: bytes FIRST-LAST/SIZE`.
fn starts_at(answer: &Response) -> Option<u64> {
    let range = answer.headers().get(CONTENT_RANGE)?.to_str().ok()?;
    range
        .strip_prefix("bytes ")?
        .split('-')
        .next()?
        .trim()
        .parse()
        .ok()
}
