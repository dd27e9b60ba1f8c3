//! Alert requests and their points, for the pipeline's `JobQueue`: a request is stored with its
//! points, in pages, and its job in one transaction; workers page through the points; finished
//! requests go after the retention period. The statements, and the rows they read. Both
//! databases read every statement here as it is.

use alerts_core::idempotency::{Enqueued, Fingerprint};
use alerts_core::ids::Token;
use alerts_core::ports::StoreError;
use uuid::Uuid;

/// A new request: `$1` token, `$2` key, `$3` point count, `$4` received, `$5` idempotency key,
/// `$6` the fingerprint of its points. Stores nothing when a request of the same key holds the
/// idempotency key already; a concurrent insert of the same key waits for the first to
/// finish.
pub const INSERT_REQUEST: &str = "\
    INSERT INTO alert_requests \
    (token, key_id, point_count, received_at, idempotency_key, fingerprint) \
    VALUES ($1, $2, $3, $4, $5, $6) \
    ON CONFLICT (key_id, idempotency_key) WHERE idempotency_key IS NOT NULL \
    DO NOTHING";

/// One page of a request's points: `$1` token, `$2` the sequence number of its first point,
/// `$3` how many it holds, `$4` the points as JSON. A page a row, so that a large request never
/// travels, nor is held, whole.
pub const INSERT_POINT_PAGE: &str = "\
    INSERT INTO alert_point_pages (token, first_seq, point_count, points) \
    VALUES ($1, $2, $3, $4)";

/// A new request's job: `$1` token, `$2` key, `$3` due, at once (when the request arrived).
pub const INSERT_JOB: &str = "\
    INSERT INTO alert_jobs (token, key_id, stage, run_at) \
    VALUES ($1, $2, 'evaluate', $3)";

/// The request (an [`IdempotentRow`]) of the key `$1` that holds the idempotency key `$2`.
pub const REQUEST_BY_IDEMPOTENCY_KEY: &str = "\
    SELECT token, fingerprint FROM alert_requests \
    WHERE key_id = $1 AND idempotency_key = $2";

/// The pages (each a [`PointPageRow`]) of the request `$1` that hold any of the points from
/// sequence number `$2` up to, not including, `$3`, in order.
pub const POINT_PAGES: &str = "\
    SELECT first_seq, points FROM alert_point_pages \
    WHERE token = $1 AND first_seq < $3 AND first_seq + point_count > $2 \
    ORDER BY first_seq";

/// A row when the request `$1` exists: an empty page of points is past the end of a request,
/// or of no request at all.
pub const REQUEST_EXISTS: &str = "SELECT 1 FROM alert_requests WHERE token = $1";

/// Deletes the oldest finished requests received before `$1`, at most `$2`, and gives their
/// tokens. Points, the job and its attempts go with the request (`ON DELETE CASCADE`), and
/// with them the request's idempotency key.
pub const PURGE_FINISHED: &str = "\
    DELETE FROM alert_requests WHERE token IN ( \
      SELECT r.token FROM alert_requests r JOIN alert_jobs j ON j.token = r.token \
      WHERE j.stage = 'done' AND r.received_at < $1 \
      ORDER BY r.received_at LIMIT $2) \
    RETURNING token";

/// A request found by its idempotency key: token, fingerprint.
pub type IdempotentRow = (Uuid, Vec<u8>);

/// What became of a request whose idempotency key an [`IdempotentRow`] holds: stored before.
///
/// # Errors
/// [`StoreError::Corrupt`] for a fingerprint the store cannot have written.
pub fn existing(row: IdempotentRow) -> Result<Enqueued, StoreError> {
    let (token, fingerprint) = row;
    Ok(Enqueued::Existing {
        token: Token(token),
        fingerprint: self::fingerprint(&fingerprint)?,
    })
}

/// A stored fingerprint, which is always 32 bytes.
///
/// # Errors
/// [`StoreError::Corrupt`] for any other length.
pub fn fingerprint(bytes: &[u8]) -> Result<Fingerprint, StoreError> {
    bytes
        .try_into()
        .map(Fingerprint)
        .map_err(|_| StoreError::Corrupt(format!("a fingerprint of {} bytes", bytes.len())))
}

/// A page of points: the sequence number of its first point, the points as JSON; the points
/// asked for are cut from the pages by `alerts_core::ports::points_of_pages`.
pub type PointPageRow = (i64, String);
