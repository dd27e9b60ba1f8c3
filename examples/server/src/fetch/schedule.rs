//! `serve --fetch-cams`: the fetch on the products' publication schedule, in the background of
//! a serving process, with `/metrics` saying when each product last had its newest run.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use anyhow::{Result, bail};
use aq_grid::GridStore;
use chrono::{DateTime, Duration, Utc};
use identity_core::ports::LeaseStore;
use insights_http::Metrics;

use super::{Fetcher, next_publication};
use crate::config::Settings;
use crate::wiring::{cams_store, open_grid};

/// How soon a failed fetch is tried again.
const RETRY_AFTER: Duration = Duration::minutes(10);
/// How often the age gauges are brought up to date while waiting.
const GAUGE_TICK: StdDuration = StdDuration::from_secs(30);

/// The lease that one replica at a time holds while it fetches.
const LEASE: &str = "cams-fetch";
/// How long a round of fetching holds the lease before it must renew it: longer than the
/// ADS usually takes for a product, so that a replica that died mid-fetch leaves the work to
/// another within the hour.
const LEASE_FOR: Duration = Duration::hours(1);

/// Starts the schedule when `--fetch-cams` is on: a task that fetches now, then after each
/// product's next publication (or [`RETRY_AFTER`] a failure), while it holds the database's
/// lease, so that of several replicas sharing a store one fetches at a time.
///
/// # Errors
/// When `--fetch-cams` is on without a `cams:` source or without an ADS key.
pub(crate) fn spawn(
    settings: &Settings,
    metrics: &Metrics,
    leases: Arc<dyn LeaseStore>,
) -> Result<Option<tokio::task::JoinHandle<()>>> {
    if !settings.ads.fetch_cams {
        return Ok(None);
    }
    let Some(location) = cams_store(&settings.aq_source)? else {
        bail!(
            "--fetch-cams fetches into the grids of `--aq-source cams:DIR` (or cams:s3://...): set it"
        );
    };
    let fetcher = Fetcher::new(&settings.ads)?;
    let store = open_grid(&location, settings)?;
    tracing::info!(url = %settings.ads.url, "fetching CAMS runs from the ADS on their schedule");
    let lease = Lease {
        store: leases,
        holder: format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()),
    };
    Ok(Some(tokio::spawn(follow(
        fetcher,
        store,
        metrics.clone(),
        lease,
    ))))
}

/// This process's hold on [`LEASE`].
struct Lease {
    store: Arc<dyn LeaseStore>,
    holder: String,
}

impl Lease {
    /// Takes or renews the lease for [`LEASE_FOR`]; false when another replica holds it or the
    /// store cannot say (then nobody here fetches, rather than two at once).
    async fn hold(&self) -> bool {
        let now = Utc::now();
        match self
            .store
            .take_lease(LEASE, &self.holder, now, now + LEASE_FOR)
            .await
        {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(error = %e, "the CAMS fetch lease could not be taken; tried again in 10 minutes");
                false
            }
        }
    }
}

async fn follow(fetcher: Fetcher, store: GridStore, metrics: Metrics, lease: Lease) {
    let products = fetcher.products();
    let mut last: Vec<Option<DateTime<Utc>>> = vec![None; products.len()];
    let mut waiting = false;
    loop {
        let now = Utc::now();
        let wake = if lease.hold().await {
            waiting = false;
            let mut wake = now + Duration::days(1);
            for (i, &product) in products.iter().enumerate() {
                let next = match fetcher.fetch(&store, product, now).await {
                    Ok((run, _)) => {
                        let done = Utc::now();
                        last[i] = Some(done);
                        metrics.set_cams_fetch_success(product.name(), done.timestamp());
                        next_publication(product, run)
                    }
                    Err(e) => {
                        tracing::warn!(product = product.name(), error = %format!("{e:#}"), "CAMS fetch failed; tried again in 10 minutes");
                        metrics.count_cams_fetch_failure(product.name());
                        Utc::now() + RETRY_AFTER
                    }
                };
                wake = wake.min(next);
            }
            wake
        } else {
            if !waiting {
                tracing::info!("another replica fetches the CAMS runs; this one waits its turn");
                waiting = true;
            }
            now + RETRY_AFTER
        };
        loop {
            let now = Utc::now();
            for (i, &product) in products.iter().enumerate() {
                if let Some(at) = last[i] {
                    metrics.set_cams_fetch_age(product.name(), (now - at).num_seconds());
                }
            }
            let Ok(left) = (wake - now).to_std() else {
                break;
            };
            tokio::time::sleep(left.min(GAUGE_TICK)).await;
        }
    }
}
