//! S3 and S3-compatible stores (the scale-out backend), with presigned GET URLs.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use alerts_core::ports::{FileError, FileKey, UrlSigner};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path;
use object_store::signer::{Method, Signer};
use object_store::{ClientOptions, RetryConfig};
use thiserror::Error;

use crate::store::{FileStoreOptions, NDJSON_CONTENT_TYPE, ObjectFileStore, file_error};

/// The longest validity S3 accepts for a presigned URL: 7 days.
pub const MAX_PRESIGNED_VALIDITY: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Why an S3 configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum S3ConfigError {
    /// The `--object-store` value is not `s3://bucket` or `s3://bucket/prefix`.
    #[error("{0:?} is not an S3 location; use s3://<bucket> or s3://<bucket>/<prefix>")]
    Location(String),
    /// The endpoint is plain http on a host other than loopback, and `AWS_ALLOW_HTTP` is not
    /// set.
    #[error(
        "the S3 endpoint {0} is plain http on a non-loopback host; use https, or set AWS_ALLOW_HTTP=true if the network is trusted"
    )]
    InsecureEndpoint(String),
    /// The endpoint is not a URL.
    #[error("the S3 endpoint {endpoint:?} is not a URL: {reason}")]
    Endpoint {
        /// The endpoint given.
        endpoint: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `object_store` refused the configuration.
    #[error("cannot set up S3: {0}")]
    Build(String),
}

/// Where and how to reach an S3 bucket.
///
/// Build it with [`S3Settings::from_env`] (the usual AWS variables) or [`S3Settings::new`]
/// and the `with_` methods. Credentials left unset are looked up the way AWS SDKs do
/// (instance metadata, web identity, container credentials).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct S3Settings {
    /// The bucket.
    pub bucket: String,
    /// Where in the bucket the files go (no leading or trailing `/`); empty for the root.
    pub prefix: String,
    /// The endpoint of an S3-compatible server, such as `http://127.0.0.1:9000`; `None` for
    /// AWS.
    pub endpoint: Option<String>,
    /// The region; default `us-east-1`.
    pub region: String,
    /// The access key id.
    pub access_key_id: Option<String>,
    /// The secret access key.
    pub secret_access_key: Option<String>,
    /// A session token for temporary credentials.
    pub session_token: Option<String>,
    /// Allows a plain-http endpoint on a host other than loopback (loopback is always
    /// allowed).
    pub allow_http: bool,
}

impl std::fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| "<hidden>"),
            )
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<hidden>"),
            )
            .field("allow_http", &self.allow_http)
            .finish()
    }
}

impl S3Settings {
    /// The settings for `location` (`s3://bucket` or `s3://bucket/prefix`), with nothing
    /// else set.
    ///
    /// # Errors
    ///
    /// [`S3ConfigError::Location`] for anything else.
    pub fn new(location: &str) -> Result<Self, S3ConfigError> {
        let bad = || S3ConfigError::Location(location.to_owned());
        let rest = location.strip_prefix("s3://").ok_or_else(bad)?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        if !bucket_ok || rest.contains(['?', '#']) {
            return Err(bad());
        }
        let prefix = prefix.trim_matches('/');
        if !prefix.is_empty() && Path::parse(prefix).is_err() {
            return Err(bad());
        }
        Ok(Self {
            bucket: bucket.to_owned(),
            prefix: prefix.to_owned(),
            endpoint: None,
            region: "us-east-1".to_owned(),
            access_key_id: None,
            secret_access_key: None,
            session_token: None,
            allow_http: false,
        })
    }

    /// The settings for `location`, completed from the process environment: the endpoint
    /// from `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL` or `AWS_ENDPOINT`; the region from
    /// `AWS_REGION` or `AWS_DEFAULT_REGION`; `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`; and `AWS_ALLOW_HTTP=true`.
    ///
    /// # Errors
    ///
    /// As [`S3Settings::from_lookup`].
    pub fn from_env(location: &str) -> Result<Self, S3ConfigError> {
        Self::from_lookup(location, |name| {
            std::env::var(name).ok().filter(|v| !v.is_empty())
        })
    }

    /// Like [`S3Settings::from_env`], with variables looked up by `lookup`.
    ///
    /// ```
    /// use insights_objects::S3Settings;
    ///
    /// let settings = S3Settings::from_lookup("s3://insights-files/prod", |name| match name {
    ///     "AWS_ENDPOINT_URL" => Some("http://127.0.0.1:9000".to_owned()),
    ///     "AWS_REGION" => Some("eu-west-1".to_owned()),
    ///     _ => None,
    /// })?;
    /// assert_eq!(settings.bucket, "insights-files");
    /// assert_eq!(settings.prefix, "prod");
    /// assert_eq!(settings.region, "eu-west-1");
    /// assert_eq!(settings.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
    /// # Ok::<(), insights_objects::S3ConfigError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`S3ConfigError::Location`] for a location that is not `s3://bucket[/prefix]`.
    pub fn from_lookup(
        location: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, S3ConfigError> {
        let first = |names: &[&str]| names.iter().find_map(|name| lookup(name));
        let mut settings = Self::new(location)?;
        settings.endpoint = first(&["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"]);
        if let Some(region) = first(&["AWS_REGION", "AWS_DEFAULT_REGION"]) {
            settings.region = region;
        }
        settings.access_key_id = lookup("AWS_ACCESS_KEY_ID");
        settings.secret_access_key = lookup("AWS_SECRET_ACCESS_KEY");
        settings.session_token = lookup("AWS_SESSION_TOKEN");
        settings.allow_http =
            lookup("AWS_ALLOW_HTTP").is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
        Ok(settings)
    }

    /// Sets the endpoint of an S3-compatible server.
    #[must_use]
    pub fn with_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = Some(endpoint.into());
        self
    }

    /// Sets static credentials.
    #[must_use]
    pub fn with_credentials(
        mut self,
        access_key_id: impl Into<String>,
        secret_access_key: impl Into<String>,
    ) -> Self {
        self.access_key_id = Some(access_key_id.into());
        self.secret_access_key = Some(secret_access_key.into());
        self
    }

    /// Sets the region.
    #[must_use]
    pub fn with_region(mut self, region: impl Into<String>) -> Self {
        self.region = region.into();
        self
    }

    fn plain_http_allowed(&self) -> Result<bool, S3ConfigError> {
        let Some(endpoint) = &self.endpoint else {
            return Ok(false);
        };
        let url = url::Url::parse(endpoint).map_err(|e| S3ConfigError::Endpoint {
            endpoint: endpoint.clone(),
            reason: e.to_string(),
        })?;
        if url.scheme() != "http" {
            return Ok(false);
        }
        let loopback = match url.host() {
            Some(url::Host::Domain(host)) => host.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
            None => false,
        };
        if loopback || self.allow_http {
            Ok(true)
        } else {
            Err(S3ConfigError::InsecureEndpoint(endpoint.clone()))
        }
    }

    /// The `object_store` client for the bucket.
    ///
    /// # Errors
    ///
    /// [`S3ConfigError::InsecureEndpoint`], [`S3ConfigError::Endpoint`], and
    /// [`S3ConfigError::Build`] when `object_store` refuses the settings.
    pub fn build(&self) -> Result<AmazonS3, S3ConfigError> {
        // Retries are bounded tightly: a bucket that is down should show as such within
        // seconds (`/readyz`, a 503 for downloads), and the job queue retries the work itself,
        // rather than holding a worker for the library's default of three minutes.
        let retry = RetryConfig {
            max_retries: 3,
            retry_timeout: Duration::from_secs(10),
            ..RetryConfig::default()
        };
        let client = ClientOptions::new()
            .with_connect_timeout(Duration::from_secs(5))
            .with_timeout(Duration::from_secs(60));
        // The client options go first: `with_allow_http` is one of them, and setting the options
        // afterwards would reset it.
        let mut builder = AmazonS3Builder::new()
            .with_client_options(client)
            .with_retry(retry)
            .with_bucket_name(&self.bucket)
            .with_region(&self.region)
            .with_allow_http(self.plain_http_allowed()?);
        if let Some(endpoint) = &self.endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        if let Some(id) = &self.access_key_id {
            builder = builder.with_access_key_id(id);
        }
        if let Some(secret) = &self.secret_access_key {
            builder = builder.with_secret_access_key(secret);
        }
        if let Some(token) = &self.session_token {
            builder = builder.with_token(token);
        }
        builder
            .build()
            .map_err(|e| S3ConfigError::Build(e.to_string()))
    }

    /// The file store and URL signer on the bucket; each file carries `data_source` (the
    /// label of the source its alerts came from) as metadata, when given.
    ///
    /// # Errors
    ///
    /// As [`S3Settings::build`].
    pub fn open(
        &self,
        data_source: Option<&str>,
    ) -> Result<(ObjectFileStore, S3UrlSigner), S3ConfigError> {
        let s3 = Arc::new(self.build()?);
        let mut options = FileStoreOptions::default().with_content_type(NDJSON_CONTENT_TYPE);
        if let Some(source) = data_source {
            options = options.with_data_source(source);
        }
        let files = ObjectFileStore::new(s3.clone())
            .with_prefix(&self.prefix)
            .map_err(|e| S3ConfigError::Build(e.to_string()))?
            .with_options(options);
        let signer = S3UrlSigner {
            s3,
            files: files.clone(),
        };
        Ok((files, signer))
    }
}

/// Presigned GET URLs for files in S3.
///
/// S3 signs with the time of the machine at the moment of signing, not with the `now` passed
/// to [`UrlSigner::signed_url`]; the validity is whole seconds (rounded down), from 1 s to
/// [`MAX_PRESIGNED_VALIDITY`].
#[derive(Debug, Clone)]
pub struct S3UrlSigner {
    s3: Arc<AmazonS3>,
    files: ObjectFileStore,
}

#[async_trait]
impl UrlSigner for S3UrlSigner {
    async fn signed_url(
        &self,
        key: &FileKey,
        _now: DateTime<Utc>,
        valid_for: Duration,
    ) -> Result<String, FileError> {
        if valid_for < Duration::from_secs(1) || valid_for > MAX_PRESIGNED_VALIDITY {
            return Err(FileError::Other(format!(
                "S3 presigned URLs are valid for 1 s to 7 days, not {valid_for:?}"
            )));
        }
        let path = self.files.object_path(key)?;
        let url = self
            .s3
            .signed_url(Method::GET, &path, valid_for)
            .await
            .map_err(file_error)?;
        Ok(url.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_checked() {
        for good in ["s3://bucket", "s3://my.bucket-1/", "s3://bucket/a/b/"] {
            assert!(S3Settings::new(good).is_ok(), "refused {good:?}");
        }
        for bad in [
            "",
            "bucket",
            "s3://",
            "s3://ab",
            "s3://Bucket",
            "s3://bucket/../x",
            "s3://bucket/a//b",
            "s3://bucket?x=1",
            "file:///tmp",
        ] {
            assert!(S3Settings::new(bad).is_err(), "accepted {bad:?}");
        }
        assert_eq!(S3Settings::new("s3://bucket/a/b/").unwrap().prefix, "a/b");
    }

    #[test]
    fn the_first_endpoint_variable_set_wins_and_empty_ones_do_not_count() {
        let settings = S3Settings::from_lookup("s3://bucket", |name| match name {
            "AWS_ENDPOINT" => Some("http://127.0.0.1:1".to_owned()),
            "AWS_ENDPOINT_URL" => Some("http://127.0.0.1:2".to_owned()),
            "AWS_DEFAULT_REGION" => Some("eu-central-1".to_owned()),
            "AWS_ALLOW_HTTP" => Some("TRUE".to_owned()),
            _ => None,
        })
        .unwrap();
        assert_eq!(settings.endpoint.as_deref(), Some("http://127.0.0.1:2"));
        assert_eq!(settings.region, "eu-central-1");
        assert!(settings.allow_http);
        assert!(settings.access_key_id.is_none());
    }

    #[test]
    fn plain_http_is_only_for_loopback_unless_allowed() {
        let base = S3Settings::new("s3://bucket")
            .unwrap()
            .with_credentials("a", "b");
        for ok in [
            "http://127.0.0.1:9000",
            "http://[::1]:9000",
            "http://localhost:9000",
        ] {
            assert!(
                base.clone().with_endpoint(ok).build().is_ok(),
                "refused {ok}"
            );
        }
        let remote = base.clone().with_endpoint("http://10.0.0.5:9000");
        assert_eq!(
            remote.build().err(),
            Some(S3ConfigError::InsecureEndpoint(
                "http://10.0.0.5:9000".to_owned()
            ))
        );
        let mut allowed = remote;
        allowed.allow_http = true;
        assert!(allowed.build().is_ok());
        assert!(base.with_endpoint("https://s3.example.com").build().is_ok());
    }

    #[test]
    fn debug_output_hides_the_secret() {
        let settings = S3Settings::new("s3://bucket")
            .unwrap()
            .with_credentials("AKIDEXAMPLE", "very-secret");
        assert!(!format!("{settings:?}").contains("very-secret"));
    }
}
