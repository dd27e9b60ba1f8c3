//! The SQL statements the stores issue, counted from sqlx's statement log (the `sqlx::query`
//! events, one per statement, transaction control included), for tests that bound what a
//! request costs.
//!
//! The count is process-wide, since the log is: a test binary that counts runs one test at a
//! time that touches a database, or counts only where nothing else runs.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};

static STATEMENTS: AtomicU64 = AtomicU64::new(0);
static INSTALLED: OnceLock<bool> = OnceLock::new();

struct Counter;

impl<S: Subscriber> Layer<S> for Counter {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "sqlx::query" {
            STATEMENTS.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Statements issued so far in this process, counting from the first call.
///
/// # Panics
/// When another global subscriber was installed before the first call: nothing would be
/// counted.
#[must_use]
pub fn issued() -> u64 {
    let installed = *INSTALLED.get_or_init(|| {
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Counter))
            .is_ok()
    });
    assert!(
        installed,
        "another global subscriber was installed: statements cannot be counted"
    );
    STATEMENTS.load(Ordering::Relaxed)
}
