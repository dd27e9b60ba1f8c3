//! The delivery log, for the pipeline's `DeliveryLog`: every delivery attempt, the test
//! deliveries sent from the dashboard, and the listings and activity the dashboard shows. The statements, and the rows they read. The
//! activity's buckets of time are spelt per database, in [`sqlite`] (times kept as
//! microseconds) and [`postgres`].

use alerts_core::ids::Token;
use alerts_core::ports::stored::{to_u32, to_u64};
use alerts_core::ports::{
    Activity, AttemptTally, DeliveryAttempt, DeliveryErrorKind, JobOutcome, JobStage,
    RequestSummary, RequestTally, StoreError, TestDelivery,
};
use identity_core::ids::KeyId;
use uuid::Uuid;

use crate::SqlDialect;

/// A delivery attempt: `$1` token, `$2` attempt, `$3` at, `$4` HTTP status, `$5` latency in
/// milliseconds, `$6` error. An attempt recorded already is kept as it was.
pub const INSERT_ATTEMPT: &str = "\
    INSERT INTO delivery_attempts \
    (token, attempt, at, status, latency_ms, error) \
    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (token, attempt) DO NOTHING";

/// The latest requests of the key `$1`, at most `$2`, each with its job (a [`SummaryRow`]).
pub const REQUESTS_OF_KEY: &str = "\
    SELECT r.token, r.received_at, r.point_count, j.alerts, j.stage, \
           j.outcome, j.attempts \
    FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
    WHERE r.key_id = $1 ORDER BY r.received_at DESC, r.token DESC LIMIT $2";

/// The attempts (each an [`AttemptRow`]) of the request `$1`, when it is of the key `$2`.
pub const ATTEMPTS_OF_REQUEST: &str = "\
    SELECT a.token, a.attempt, a.at, a.status, a.latency_ms, a.error \
    FROM delivery_attempts a JOIN alert_requests r ON r.token = a.token \
    WHERE a.token = $1 AND r.key_id = $2 ORDER BY a.attempt";

/// A test delivery: `$1` token, `$2` key, `$3` at, `$4` URL, `$5` HTTP status, `$6` latency in
/// milliseconds, `$7` error. A token recorded already is kept as it was.
pub const INSERT_TEST: &str = "\
    INSERT INTO test_deliveries \
    (token, key_id, at, url, status, latency_ms, error) \
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (token) DO NOTHING";

/// Forgets the tests of the key `$1` beyond its newest `$2`, in the order of [`TESTS_OF_KEY`].
pub const PRUNE_TESTS: &str = "\
    DELETE FROM test_deliveries WHERE key_id = $1 AND token NOT IN (\
        SELECT token FROM test_deliveries WHERE key_id = $1 \
        ORDER BY at DESC, token DESC LIMIT $2)";

/// The latest tests of the key `$1`, at most `$2` (each a [`TestRow`]).
pub const TESTS_OF_KEY: &str = "\
    SELECT token, key_id, at, url, status, latency_ms, error FROM test_deliveries \
    WHERE key_id = $1 ORDER BY at DESC, token DESC LIMIT $2";

/// SQLite's spelling: a time is microseconds, so a bucket is a division.
pub mod sqlite {
    /// The requests of the key `$1` received from `$2` until `$4`, tallied in buckets of `$3`
    /// seconds counted from `$2` (each a [`RequestTallyRow`](super::RequestTallyRow)).
    pub const REQUEST_ACTIVITY: &str = "\
        SELECT (r.received_at - $2) / ($3 * 1000000) AS bucket, \
        COUNT(*), CAST(COALESCE(SUM(j.alerts), 0) AS BIGINT) \
        FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
        WHERE r.key_id = $1 AND r.received_at >= $2 AND r.received_at < $4 \
        GROUP BY bucket";

    /// The attempts for the key `$1` made from `$2` until `$4`, tallied in buckets of `$3`
    /// seconds counted from `$2`, and by status and error (each an
    /// [`AttemptTallyRow`](super::AttemptTallyRow)).
    pub const ATTEMPT_ACTIVITY: &str = "\
        SELECT (a.at - $2) / ($3 * 1000000) AS bucket, a.status, a.error, COUNT(*), \
        CAST(SUM(a.latency_ms) AS BIGINT), MAX(a.latency_ms) \
        FROM delivery_attempts a JOIN alert_requests r ON r.token = a.token \
        WHERE r.key_id = $1 AND a.at >= $2 AND a.at < $4 \
        GROUP BY bucket, a.status, a.error";
}

/// PostgreSQL's spelling: a time is a `timestamptz`, so a bucket is counted in seconds of an
/// interval.
pub mod postgres {
    /// As SQLite's [`REQUEST_ACTIVITY`](super::sqlite::REQUEST_ACTIVITY).
    pub const REQUEST_ACTIVITY: &str = "\
        SELECT FLOOR(EXTRACT(EPOCH FROM (r.received_at - $2)) / $3)::bigint AS bucket, \
        COUNT(*), CAST(COALESCE(SUM(j.alerts), 0) AS BIGINT) \
        FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
        WHERE r.key_id = $1 AND r.received_at >= $2 AND r.received_at < $4 \
        GROUP BY bucket";

    /// As SQLite's [`ATTEMPT_ACTIVITY`](super::sqlite::ATTEMPT_ACTIVITY).
    pub const ATTEMPT_ACTIVITY: &str = "\
        SELECT FLOOR(EXTRACT(EPOCH FROM (a.at - $2)) / $3)::bigint AS bucket, a.status, \
        a.error, COUNT(*), \
        CAST(SUM(a.latency_ms) AS BIGINT), MAX(a.latency_ms) \
        FROM delivery_attempts a JOIN alert_requests r ON r.token = a.token \
        WHERE r.key_id = $1 AND a.at >= $2 AND a.at < $4 \
        GROUP BY bucket, a.status, a.error";
}

/// A stored HTTP status.
///
/// # Errors
/// [`StoreError::Corrupt`] when it is out of range.
pub fn status(s: Option<i32>) -> Result<Option<u16>, StoreError> {
    s.map(|s| {
        u16::try_from(s)
            .map_err(|_| StoreError::Corrupt(format!("HTTP status {s} is out of range")))
    })
    .transpose()
}

/// A stored delivery error.
///
/// # Errors
/// [`StoreError::Corrupt`] when it names no kind of error.
pub fn error_kind(e: Option<&str>) -> Result<Option<DeliveryErrorKind>, StoreError> {
    e.map(str::parse::<DeliveryErrorKind>)
        .transpose()
        .map_err(StoreError::from)
}

/// A delivery attempt: token, attempt, at, status, latency, error.
pub type AttemptRow<T> = (Uuid, i32, T, Option<i32>, i64, Option<String>);

/// The attempt of an [`AttemptRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn attempt<D: SqlDialect>(row: AttemptRow<D::Time>) -> Result<DeliveryAttempt, StoreError> {
    let (token, attempt, at, status, latency, error) = row;
    Ok(DeliveryAttempt {
        token: Token(token),
        attempt: to_u32(i64::from(attempt), "attempt")?,
        at: D::from_time(at)?,
        status: self::status(status)?,
        latency_ms: to_u64(latency, "latency")?,
        error: error_kind(error.as_deref())?,
    })
}

/// A test delivery: token, key, at, URL, status, latency, error.
pub type TestRow<T> = (Uuid, Uuid, T, String, Option<i32>, i64, Option<String>);

/// The test delivery of a [`TestRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn test_delivery<D: SqlDialect>(row: TestRow<D::Time>) -> Result<TestDelivery, StoreError> {
    let (token, key, at, url, status, latency, error) = row;
    Ok(TestDelivery {
        token: Token(token),
        key: KeyId(key),
        at: D::from_time(at)?,
        url,
        status: self::status(status)?,
        latency_ms: to_u64(latency, "latency")?,
        error: error_kind(error.as_deref())?,
    })
}

/// A request with its job: token, received, points, alerts, stage, outcome, attempts.
pub type SummaryRow<T> = (Uuid, T, i64, Option<i64>, String, Option<String>, i32);

/// The summary of a [`SummaryRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn summary<D: SqlDialect>(row: SummaryRow<D::Time>) -> Result<RequestSummary, StoreError> {
    let (token, received, points, alerts, stage, outcome, attempts) = row;
    Ok(RequestSummary {
        token: Token(token),
        received_at: D::from_time(received)?,
        points: to_u64(points, "point count")?,
        alerts: alerts.map(|a| to_u64(a, "alert count")).transpose()?,
        stage: stage.parse::<JobStage>()?,
        outcome: outcome
            .as_deref()
            .map(str::parse::<JobOutcome>)
            .transpose()?,
        attempts: to_u32(i64::from(attempts), "attempts")?,
    })
}

/// The requests of one bucket of activity: bucket, requests, alerts.
pub type RequestTallyRow = (i64, i64, i64);

/// The tally of a [`RequestTallyRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a negative count or bucket.
pub fn request_tally(row: RequestTallyRow) -> Result<RequestTally, StoreError> {
    let (bucket, requests, alerts) = row;
    Ok(RequestTally {
        bucket: to_u32(bucket, "bucket")?,
        requests: to_u64(requests, "request count")?,
        alerts: to_u64(alerts, "alert count")?,
    })
}

/// The attempts of one bucket, status and error: bucket, status, error, attempts, total and
/// longest latency.
pub type AttemptTallyRow = (i64, Option<i32>, Option<String>, i64, i64, i64);

/// The tally of an [`AttemptTallyRow`].
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn attempt_tally(row: AttemptTallyRow) -> Result<AttemptTally, StoreError> {
    let (bucket, status, error, attempts, total, max) = row;
    Ok(AttemptTally {
        bucket: to_u32(bucket, "bucket")?,
        status: self::status(status)?,
        error: error_kind(error.as_deref())?,
        attempts: to_u64(attempts, "attempt count")?,
        latency_ms_total: to_u64(total, "latency")?,
        latency_ms_max: to_u64(max, "latency")?,
    })
}

/// The activity of the rows of [`REQUEST_ACTIVITY`](sqlite::REQUEST_ACTIVITY) and
/// [`ATTEMPT_ACTIVITY`](sqlite::ATTEMPT_ACTIVITY), in the order the port promises.
///
/// # Errors
/// [`StoreError::Corrupt`] for a value the store cannot have written.
pub fn activity(
    requests: Vec<RequestTallyRow>,
    attempts: Vec<AttemptTallyRow>,
) -> Result<Activity, StoreError> {
    Ok(Activity {
        requests: requests
            .into_iter()
            .map(request_tally)
            .collect::<Result<_, _>>()?,
        attempts: attempts
            .into_iter()
            .map(attempt_tally)
            .collect::<Result<_, _>>()?,
    }
    .sorted())
}
