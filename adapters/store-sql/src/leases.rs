//! Named leases, for identity's `LeaseStore`: the statements. Both databases read every
//! statement here as it is.
//!
//! ```
//! use store_sql::leases::TAKE_LEASE;
//!
//! // The upsert writes only when the lease is free or the taker's already.
//! assert!(TAKE_LEASE.contains("WHERE leases.holder = excluded.holder OR leases.until <= $3"));
//! ```

/// Takes or renews the lease `$1` for the holder `$2` at `$3` until `$4`: a row comes back when
/// the holder holds it now, none when another holder's lease runs past `$3`.
pub const TAKE_LEASE: &str = "\
    INSERT INTO leases (name, holder, until) VALUES ($1, $2, $4) \
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until \
    WHERE leases.holder = excluded.holder OR leases.until <= $3 \
    RETURNING holder";

/// Gives the lease `$1` up if the holder `$2` holds it.
pub const RELEASE_LEASE: &str = "DELETE FROM leases WHERE name = $1 AND holder = $2";
