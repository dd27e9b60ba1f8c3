//! The ports implemented on a store type: the glue [`sql_store!`](crate::sql_store) expands in
//! each store crate, one macro per port. Each port method picks its statement (a `const` of
//! its concept's module, in the store's dialect where the two differ), binds its values, runs
//! it on the store's pool, writer or transaction, maps the database's errors with the store's
//! `db_error`, and makes the ports' values of the rows with its concept's functions. Which
//! statements run together in one transaction, and in what order, is written here too, since
//! a transaction is the driver's type.

mod accounts;
mod deliveries;
mod jobs;
mod leases;
mod rules;
mod sent;
mod sessions;

/// Implements every port of a SQL store on `$store`, a type of the calling crate that
/// implements [`SqlDialect`](crate::SqlDialect), with the statements of `$dialect` (`sqlite`
/// or `postgres`: the submodule of each concept's module that holds its spelling of the
/// statements the two databases spell differently): identity's `KeyAuthenticator`,
/// `AccountStore`, `SessionStore` and `LeaseStore`, and alerts' `RuleStore`, `JobQueue`, `DeliveryLog` and
/// `SentChanges`; and gives it `ping` and `close`. `store-sqlite`, for one, says
/// `store_sql::sql_store!(SqliteStore, sqlite);` beside its `impl SqlDialect for SqliteStore`.
#[macro_export]
macro_rules! sql_store {
    ($store:ty, $dialect:ident) => {
        const _: () = {
            use $crate::__private::alerts_core::idempotency::{Enqueued, Idempotency};
            use $crate::__private::alerts_core::ids::{RuleId, Token};
            use $crate::__private::alerts_core::ports::stored::{to_i32, to_i64};
            use $crate::__private::alerts_core::ports::{
                Activity, ActivityWindow, AlertJob, Arrivals, Backlog, ClaimLimits,
                DeliveryAttempt, DeliveryErrorKind, DeliveryLog, JobCounts, JobQueue, JobUpdate,
                KeyConfig, Lease, NewAlertJob, POINT_PAGE, PointPages, RequestSummary, RuleStore,
                SentChange, SentChanges, Settlement, SlicePages, StoreError, TEST_DELIVERIES_KEPT,
                TestDelivery, UNFINISHED_JOB, check_page_total, encode_stored_points,
                points_of_pages,
            };
            use $crate::__private::alerts_core::request::AlertPoint;
            use $crate::__private::alerts_core::rule::AlertRule;
            use $crate::__private::async_trait::async_trait;
            use $crate::__private::chrono::{DateTime, Utc};
            use $crate::__private::identity_core::ids::{AccountId, KeyId};
            use $crate::__private::identity_core::keys::{KeyHash, WebhookSecret};
            use $crate::__private::identity_core::ports::{
                Account, AccountStore, ApiKeyInfo, KeyAuthenticator, LeaseStore, NewApiKey,
                Session, SessionStore, last_use_is_stale,
            };
            use $crate::__private::sqlx;
            use $crate::__private::uuid::Uuid;
            use $crate::SqlDialect as _;
            use $crate::affected_one;
            use $crate::batch::BatchStore as _;

            /// This store's sqlx driver.
            type Db = <$store as $crate::SqlDialect>::Db;
            /// A time as this store's database keeps it.
            type Time = <$store as $crate::SqlDialect>::Time;

            impl $store {
                /// Checks that the database answers, for readiness probes.
                ///
                /// # Errors
                /// [`StoreError::Unavailable`] when it does not.
                pub async fn ping(&self) -> Result<(), StoreError> {
                    sqlx::query($crate::PING)
                        .execute(self.pool())
                        .await
                        .map(|_| ())
                        .map_err(Self::db_error)
                }

                /// Closes every connection, waiting for operations under way; later
                /// operations fail with [`StoreError::Unavailable`].
                pub async fn close(&self) {
                    self.writer().close().await;
                    self.pool().close().await;
                }

                /// A transaction that writes, begun in the dialect's way.
                async fn begin_write(&self) -> Result<sqlx::Transaction<'static, Db>, StoreError> {
                    self.writer()
                        .begin_with($crate::dialect::$dialect::BEGIN_WRITE)
                        .await
                        .map_err(Self::db_error)
                }
            }

            $crate::impl_accounts!($store);
            $crate::impl_sessions!($store, $dialect);
            $crate::impl_leases!($store);
            $crate::impl_rules!($store, $dialect);
            $crate::impl_jobs!($store, $dialect);
            $crate::impl_deliveries!($store, $dialect);
            $crate::impl_sent!($store, $dialect);
        };
    };
}
