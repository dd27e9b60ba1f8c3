//! The extractors the API's handlers start with, so that each input is read and checked once,
//! before the handler runs, and a refusal is the API's error envelope ([`ApiError`]):
//!
//! - [`RequestId`]: the id the server gave the request;
//! - [`Authenticated`]: the key of `?key=` or the `X-Api-Key` header, live, and within its
//!   rate;
//! - [`IdempotencyHeader`]: the `Idempotency-Key` header;
//! - [`JsonBody`]: the body, JSON by its headers, received within the size limit and the
//!   byte budgets into a spool.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use alerts_core::idempotency::IdempotencyKey;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Uri, header};
use identity_core::ids::KeyId;
use identity_core::keys::ApiKey;
use identity_core::network::network_of;

use crate::budget::{ByteRate, Verdict};
use crate::error::{ApiError, ErrorCode, RETRY_AFTER_UNAVAILABLE, store_unavailable};
use crate::headers::{API_KEY_HEADER, IDEMPOTENCY_KEY, REQUEST_ID_HEADER};
use crate::members::{MemberScan, body_members, struct_members};
use crate::params::Params;
use crate::rate_headers::RateSlot;
use crate::spool::{AbandonOnDrop, Spool, SpoolError};
use crate::state::AppState;

/// The request's id, made by the server for each request; for logs and 500 details.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

impl RequestId {
    /// The id in a request's `headers`, as the request-id layer set it.
    #[must_use]
    pub fn of(headers: &HeaderMap) -> Self {
        RequestId(
            headers
                .get(REQUEST_ID_HEADER)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("unknown")
                .to_owned(),
        )
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequestId {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(RequestId::of(&parts.headers))
    }
}

/// The key of the query string's `key` or of the `X-Api-Key` header (the header keeps it out of
/// proxies' and servers' access logs), live, and within its rate: 400 for a repeated `key` or
/// header, or for the two naming different keys; 401 when it is missing, malformed, unknown or
/// revoked; 429 over the key's rate or when the client's network has tried too many unknown
/// keys ([`crate::unknown_keys`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Authenticated(pub(crate) KeyId);

impl FromRequestParts<AppState> for Authenticated {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let query = KeyQuery::from_parts(&parts.uri, &parts.headers)?;
        let network = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| network_of(peer.ip()));
        let key = authenticate(state, query.key.as_deref(), network).await?;
        state
            .check_rate(key, parts.extensions.get::<RateSlot>())
            .await?;
        // For the body's extractor, which charges the key for the body's bytes.
        parts.extensions.insert(Self(key));
        Ok(Self(key))
    }
}

/// A query string with nothing but the key: an operation whose input is its body refuses any
/// other parameter before the body is received.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyOnly;

impl<S: Send + Sync> FromRequestParts<S> for KeyOnly {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Params::parse(&parts.uri, &["key"]).map(|_| Self)
    }
}

/// Where a request names its key: the query string's `key` or the `X-Api-Key` header.
#[derive(Debug)]
struct KeyQuery {
    /// The API key.
    key: Option<String>,
}

impl KeyQuery {
    /// The key of the query string or the header. Other parameters are ignored here. A key
    /// given twice in one place, or differently in both, is refused, since which one to use
    /// would be a guess; the same key in both is the one key.
    fn from_parts(uri: &Uri, headers: &HeaderMap) -> Result<Self, ApiError> {
        let query = uri.query().unwrap_or_default();
        let mut key = None;
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            if name == "key" {
                if key.is_some() {
                    return Err(ApiError::invalid(
                        "key: the query string has `key` more than once; pass the key once: ?key=ik_...",
                    ));
                }
                key = Some(value.into_owned());
            }
        }
        let mut sent = headers.get_all(API_KEY_HEADER).iter();
        let header = match (sent.next(), sent.next()) {
            (None, _) => None,
            (Some(_), Some(_)) => {
                return Err(ApiError::invalid("X-Api-Key: the header is sent more than once; send it once"));
            }
            (Some(value), None) => Some(
                value
                    .to_str()
                    .map_err(|_| {
                        ApiError::invalid("X-Api-Key: the header is not ASCII text; send the key as the dashboard shows it")
                    })?
                    .trim()
                    .to_owned(),
            ),
        };
        match (key, header) {
            (Some(query), Some(header)) if query != header => Err(ApiError::invalid(
                "key: the `key` parameter and the X-Api-Key header name different keys; send the key once",
            )),
            (query, header) => Ok(Self {
                key: query.or(header),
            }),
        }
    }
}

/// Resolves the `key` parameter to a key id: 401 when missing, malformed, unknown or revoked;
/// 429 when `network` has tried too many unknown keys, before the store is asked.
async fn authenticate(
    state: &AppState,
    key: Option<&str>,
    network: Option<IpAddr>,
) -> Result<KeyId, ApiError> {
    let now = state.clock().now();
    let too_many = |wait: Duration| ApiError {
        code: ErrorCode::RateLimited,
        detail: format!(
            "your network (IPv4 address or IPv6 /64) has tried more than {} unknown API keys a \
             minute; check the key in the dashboard and retry after the Retry-After header's \
             seconds",
            state.config().unknown_keys_per_network_per_minute
        ),
        retry_after: Some(wait.max(Duration::from_secs(1))),
    };
    if let Some(wait) = network.and_then(|n| state.unknown_keys().refused(n, now)) {
        return Err(too_many(wait));
    }
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return Err(ApiError::new(
            ErrorCode::MissingApiKey,
            "pass your API key in the X-Api-Key header or the `key` query parameter: ?key=ik_...",
        ));
    };
    let invalid = || {
        ApiError::new(
            ErrorCode::InvalidApiKey,
            "the API key is not valid: check it in the dashboard, or create a new one",
        )
    };
    let key = ApiKey::parse(key).map_err(|_| invalid())?;
    let found = state
        .keys()
        .authenticate(&key.hash(), now)
        .await
        .map_err(store_unavailable)?;
    match (found, network) {
        (Some(id), _) => Ok(id),
        (None, Some(network)) => match state
            .unknown_keys()
            .count(state.limiter(), network, now)
            .await
        {
            Some(wait) => Err(too_many(wait)),
            None => Err(invalid()),
        },
        (None, None) => Err(invalid()),
    }
}

fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        // Clients that send no type at all get the benefit of the doubt; the body must still
        // be JSON.
        return Ok(());
    };
    let media = value
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim();
    // Media types are case-insensitive; compared in place, without a lowercased copy.
    let suffix = media.get(media.len().saturating_sub("+json".len())..);
    if media.eq_ignore_ascii_case("application/json")
        || suffix.is_some_and(|s| s.eq_ignore_ascii_case("+json"))
    {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("the body must be JSON: send `Content-Type: application/json` (got `{media}`)"),
        ))
    }
}

/// Compressed bodies are not decoded: refusing them names the cause, where reading the
/// compressed bytes as JSON would only report a syntax error.
fn check_content_encoding(headers: &HeaderMap) -> Result<(), ApiError> {
    let encodings = headers
        .get_all(header::CONTENT_ENCODING)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("?").split(','))
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty() && e != "identity")
        .collect::<Vec<_>>();
    if encodings.is_empty() {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "the body must be sent uncompressed: content encoding `{}` is not supported",
                encodings.join(", ")
            ),
        ))
    }
}

/// The `Idempotency-Key` header, read once. Only alert requests store anything, so only they
/// refuse a malformed one, once their body is read ([`IdempotencyHeader::key`]): a route-scoring
/// request is safe to repeat as it is, and ignores it.
#[derive(Debug)]
pub(crate) struct IdempotencyHeader(Result<Option<IdempotencyKey>, ApiError>);

impl IdempotencyHeader {
    /// The client's key, if it sent one; 400 naming the header when it is malformed.
    pub(crate) fn key(self) -> Result<Option<IdempotencyKey>, ApiError> {
        self.0
    }
}

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyHeader {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(Self(idempotency_key(&parts.headers)))
    }
}

/// The client's `Idempotency-Key`, if it sent one.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<IdempotencyKey>, ApiError> {
    let mut values = headers.get_all(IDEMPOTENCY_KEY).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(ApiError::invalid(
            "Idempotency-Key: send the header once, with one key",
        ));
    }
    let text = value.to_str().map_err(|_| {
        ApiError::invalid("Idempotency-Key: only visible ASCII characters are allowed")
    })?;
    IdempotencyKey::parse(text)
        .map(Some)
        .map_err(|e| ApiError::invalid(e.to_string()))
}

/// The body of a request, received into a spool within [`crate::ApiConfig::max_body_bytes`]
/// once its headers say it is JSON (415 otherwise, 413 when larger), and paid for from the
/// byte budgets of its key and its client's network (429 beyond). A top-level member that
/// neither operation defines is refused (400) as soon as its name arrives. The spool is
/// abandoned when the request is: a parse still reading it stops at its next read.
pub(crate) struct JsonBody {
    pub(crate) spool: Arc<Spool>,
    _abandon: AbandonOnDrop,
}

impl FromRequest<AppState> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        check_content_type(request.headers())?;
        check_content_encoding(request.headers())?;
        let limit = state.config().max_body_bytes;
        let too_large = || {
            ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!("the body is larger than the limit of {limit} bytes"),
            )
        };
        let declared = declared_length(request.headers())?;
        let key = request.extensions().get::<Authenticated>().map(|a| a.0);
        let network = request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| network_of(peer.ip()));
        if declared.is_some_and(|length| length > limit as u64) {
            // Refused before a byte of it is read, but the key pays for the most it could
            // have sent, so that a client declaring too much in a loop is soon held like any
            // key over its budget.
            let mut charge = Charge::new(state, key, None);
            match charge.reserve(limit as u64) {
                Ok(()) => charge.forfeit_by_key(),
                Err(over) => hold_refusal(&over).await,
            }
            return Err(too_large());
        }
        let mut charge = Charge::new(state, key, network);
        if let Some(length) = declared {
            // The whole declared length up front: a body the budget cannot pay for is refused
            // before it is read, and bodies sent at once cannot each start on the same bytes.
            if let Err(refused) = charge.reserve(length) {
                hold_refusal(&refused).await;
                return Err(refused);
            }
        }
        let mut members = MemberScan::new(body_members());
        let spool = Spool::receive(request.into_body(), limit, |bytes| {
            if let Err(name) = members.feed(bytes) {
                // The key declared those bytes and sent a body no operation accepts: it pays
                // for them, so that refusing it early does not let it come straight back.
                charge.forfeit_by_key();
                return Err(unknown_member(&name));
            }
            charge.read(bytes.len() as u64)
        })
        .await;
        let spool = match spool {
            Ok(spool) => Arc::new(spool),
            Err(SpoolError::TooLarge) => return Err(too_large()),
            Err(SpoolError::Receive(e)) => {
                return Err(ApiError::invalid(format!(
                    "the body could not be read: {e}"
                )));
            }
            Err(SpoolError::Write(e)) => return Err(body_unavailable(&e)),
            Err(SpoolError::Refused(refused)) => {
                if refused.code == ErrorCode::RateLimited {
                    hold_refusal(&refused).await;
                }
                return Err(refused);
            }
        };
        Ok(Self {
            _abandon: AbandonOnDrop(Arc::clone(&spool)),
            spool,
        })
    }
}

/// The longest a refusal for a spent byte budget is held before it is sent.
const REFUSAL_HOLD_MAX: Duration = Duration::from_secs(1);

/// Holds a refusal for a spent budget for its `Retry-After`, at most [`REFUSAL_HOLD_MAX`]: a
/// client that asks again at once, as a hostile one does in a loop, would otherwise make the
/// server accept, authenticate and answer it hundreds of times a second on the cores every
/// other client shares. A client that waits as told loses nothing.
async fn hold_refusal(refused: &ApiError) {
    if let Some(wait) = refused.retry_after {
        tokio::time::sleep(wait.min(REFUSAL_HOLD_MAX)).await;
    }
}

/// The body's length as its `Content-Length` declares it, if it does.
fn declared_length(headers: &HeaderMap) -> Result<Option<u64>, ApiError> {
    headers
        .get(header::CONTENT_LENGTH)
        .map(|value| {
            value
                .to_str()
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok())
                .ok_or_else(|| ApiError::invalid("Content-Length: not a number of bytes"))
        })
        .transpose()
}

/// 400 for a top-level member that neither operation defines, named with the ones they do,
/// as each operation's reader names it.
fn unknown_member(name: &str) -> ApiError {
    let quoted = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    ApiError::invalid(format!(
        "{name}: unknown field `{name}`: a route-scoring request has {}, and an alert request \
         has {}",
        quoted(struct_members::<racs_core::ScoreRequest>()),
        quoted(alerts_core::request::BODY_MEMBERS),
    ))
}

/// What a body costs its key's and its client network's budgets: bytes are taken as they are
/// read, or all at once for a declared length, and what was taken but never read (the body
/// was refused early, or its client went away) is given back when the charge is dropped,
/// except to a key whose body was refused for what it holds.
struct Charge<'a> {
    state: &'a AppState,
    key: Option<KeyId>,
    network: Option<IpAddr>,
    /// Bytes taken from the budgets.
    taken: u64,
    /// Bytes read.
    read: u64,
    /// The key keeps paying for the unread bytes (the network, which other keys may share,
    /// gets them back).
    forfeited_by_key: bool,
}

impl<'a> Charge<'a> {
    fn new(state: &'a AppState, key: Option<KeyId>, network: Option<IpAddr>) -> Self {
        Self {
            state,
            key,
            network,
            taken: 0,
            read: 0,
            forfeited_by_key: false,
        }
    }

    /// The key is not given back what it declared and did not send.
    fn forfeit_by_key(&mut self) {
        self.forfeited_by_key = true;
    }

    /// Takes `bytes` from both budgets, or from neither: 429 with `Retry-After` when either
    /// is spent.
    fn reserve(&mut self, bytes: u64) -> Result<(), ApiError> {
        let (keys, networks) = self.state.body_bytes();
        if let Some(key) = &self.key {
            match keys.take(key, bytes) {
                Verdict::Taken => {}
                refused => return Err(over_budget(refused, "this API key", keys.rate())),
            }
        }
        if let Some(network) = &self.network {
            match networks.take(network, bytes) {
                Verdict::Taken => {}
                refused => {
                    if let Some(key) = &self.key {
                        keys.give_back(key, bytes);
                    }
                    return Err(over_budget(
                        refused,
                        "your network (IPv4 address or IPv6 /64)",
                        networks.rate(),
                    ));
                }
            }
        }
        self.taken += bytes;
        Ok(())
    }

    /// Counts `bytes` more read, taking what the declared length did not cover.
    fn read(&mut self, bytes: u64) -> Result<(), ApiError> {
        self.read += bytes;
        if self.read > self.taken {
            self.reserve(self.read - self.taken)?;
        }
        Ok(())
    }
}

impl Drop for Charge<'_> {
    fn drop(&mut self) {
        let unread = self.taken.saturating_sub(self.read);
        if unread == 0 {
            return;
        }
        let (keys, networks) = self.state.body_bytes();
        if let Some(key) = self.key.as_ref().filter(|_| !self.forfeited_by_key) {
            keys.give_back(key, unread);
        }
        if let Some(network) = &self.network {
            networks.give_back(network, unread);
        }
    }
}

/// 429 for a client over its byte budget, with when enough will be back; 503 when the server
/// tracks as many clients as it may.
fn over_budget(verdict: Verdict, whose: &str, rate: ByteRate) -> ApiError {
    match verdict {
        Verdict::Wait(wait) => ApiError {
            code: ErrorCode::RateLimited,
            detail: format!(
                "{whose} may send {} MiB of request bodies a second (bursts of {} MiB); slow \
                 down and retry after the Retry-After header's seconds",
                mib(rate.per_second),
                mib(rate.burst),
            ),
            retry_after: Some(Duration::from_secs(
                wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            )),
        },
        Verdict::Taken | Verdict::Full => ApiError::unavailable(
            "the server is receiving bodies from as many clients as it can; retry shortly",
            Duration::from_secs(1),
        ),
    }
}

/// Bytes in MiB, for messages: whole when they are, else with a decimal.
fn mib(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 20) {
        (bytes >> 20).to_string()
    } else {
        format!("{:.1}", bytes as f64 / f64::from(1 << 20))
    }
}

/// 503 for a body the server could not keep or read back from its temporary file (a full or
/// failing disk): not the client's fault, and worth a retry.
pub(crate) fn body_unavailable(e: &dyn std::fmt::Display) -> ApiError {
    tracing::warn!(error = %e, "request body spool failed");
    ApiError::unavailable(
        "the server could not keep the request body; retry shortly",
        RETRY_AFTER_UNAVAILABLE,
    )
}
