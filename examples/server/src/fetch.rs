//! `insights-server fetch`: retrieves the newest runs of the CAMS global and European forecasts
//! from ECMWF's Atmosphere Data Store and ingests them into the grid store `--aq-source
//! cams:...` names, skipping a run the store holds already. `serve --fetch-cams` does the same
//! on the products' publication schedule.
//!
//! Downloads go to a staging directory and are removed once ingested; one cut short is resumed
//! by the next attempt.

mod schedule;
pub(crate) mod settings;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use aq_grid::{GridStore, Product};
use chrono::{DateTime, Duration, DurationRound, Utc};
use insights_ads::{AdsClient, EUROPE_DATASET, EuropeRequest, GLOBAL_DATASET, GlobalRequest};

use crate::config::Settings;
use crate::wiring::{cams_store, open_grid};
pub(crate) use schedule::spawn;
use settings::AdsSettings;

/// Hours after its reference time a global run is expected on the ADS. ECMWF publishes the
/// 00 UTC run's five days towards 10 UTC and the 12 UTC run's towards 22 UTC; an hour's margin.
const GLOBAL_DELAY_HOURS: i64 = 11;
/// Hours after 00 UTC the European ensemble's four days are expected on the ADS (towards
/// 09 UTC), with an hour's margin.
const EUROPE_DELAY_HOURS: i64 = 10;

/// The ADS dataset of `product`.
fn dataset(product: Product) -> &'static str {
    match product {
        Product::Europe => EUROPE_DATASET,
        Product::Global => GLOBAL_DATASET,
    }
}

/// The newest run of `product` that should be on the ADS at `now`: the global product runs at
/// 00 and 12 UTC, the European one at 00 UTC.
pub(crate) fn newest_run(product: Product, now: DateTime<Utc>) -> DateTime<Utc> {
    let (delay, cycle) = match product {
        Product::Global => (GLOBAL_DELAY_HOURS, 12),
        Product::Europe => (EUROPE_DELAY_HOURS, 24),
    };
    (now - Duration::hours(delay))
        .duration_trunc(Duration::hours(cycle))
        .unwrap_or(now)
}

/// When the run after `run` of `product` should be on the ADS.
pub(crate) fn next_publication(product: Product, run: DateTime<Utc>) -> DateTime<Utc> {
    match product {
        Product::Global => run + Duration::hours(12 + GLOBAL_DELAY_HOURS),
        Product::Europe => run + Duration::hours(24 + EUROPE_DELAY_HOURS),
    }
}

/// What happened to one product's newest run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The store held it already.
    Stored,
    /// Fetched and ingested: bytes downloaded.
    Fetched(u64),
}

/// Retrieves and ingests runs for one store.
pub(crate) struct Fetcher {
    client: AdsClient,
    ads: AdsSettings,
}

impl Fetcher {
    /// A fetcher with the key of `ads` (from the environment or its file).
    pub(crate) fn new(ads: &AdsSettings) -> Result<Self> {
        let key = ads.key().map_err(anyhow::Error::msg)?;
        let client = AdsClient::new(&ads.url, &key).context("the ADS client")?;
        Ok(Fetcher {
            client,
            ads: ads.clone(),
        })
    }

    /// The products to fetch.
    pub(crate) fn products(&self) -> Vec<Product> {
        let mut products = Vec::new();
        if self.ads.global {
            products.push(Product::Global);
        }
        if self.ads.europe {
            products.push(Product::Europe);
        }
        products
    }

    /// Fetches `product`'s newest run at `now` unless `store` holds it.
    pub(crate) async fn fetch(
        &self,
        store: &GridStore,
        product: Product,
        now: DateTime<Utc>,
    ) -> Result<(DateTime<Utc>, Outcome)> {
        let run = newest_run(product, now);
        store
            .refresh()
            .await
            .context("cannot read the grid store's manifests")?;
        if holds(store, product, run) {
            return Ok((run, Outcome::Stored));
        }
        let inputs = match product {
            Product::Global => {
                let mut request = GlobalRequest::new(run);
                request.variables.clone_from(&self.ads.global_variables);
                request.max_lead_hours = self.ads.global_hours;
                request.area = self.ads.area;
                request.inputs()
            }
            Product::Europe => {
                let mut request = EuropeRequest::new(run);
                request.variables.clone_from(&self.ads.europe_variables);
                request.max_lead_hours = self.ads.europe_hours;
                request.model.clone_from(&self.ads.europe_model);
                request.area = self.ads.area;
                request.inputs()
            }
        };
        std::fs::create_dir_all(&self.ads.staging).with_context(|| {
            format!(
                "cannot create the staging directory {}",
                self.ads.staging.display()
            )
        })?;
        let target: PathBuf = self.ads.staging.join(format!(
            "{}-{}.grib2",
            product.name(),
            run.format("%Y%m%dT%H")
        ));
        tracing::info!(product = product.name(), run = %run, "fetching a CAMS run from the ADS");
        let got = self
            .client
            .retrieve(dataset(product), &inputs, &target)
            .await
            .with_context(|| format!("cannot retrieve the {} run of {run}", product.name()))?;
        let report = aq_grid::ingest_file(store, &target)
            .await
            .with_context(|| format!("cannot ingest {}", target.display()))?;
        tracing::info!(
            product = product.name(),
            run = %run,
            bytes = got.bytes,
            fields = report.commit.taken,
            "CAMS run fetched and ingested"
        );
        // Kept only until ingested: the store has it now.
        let _ = std::fs::remove_file(&target);
        Ok((run, Outcome::Fetched(got.bytes)))
    }
}

/// Whether `store` holds a batch of `product` from `run`.
fn holds(store: &GridStore, product: Product, run: DateTime<Utc>) -> bool {
    store
        .manifests()
        .iter()
        .any(|m| m.product == product && m.run == run)
}

/// `insights-server fetch`.
pub(crate) async fn run(settings: &Settings) -> Result<()> {
    let Some(location) = cams_store(&settings.aq_source)? else {
        bail!(
            "fetch writes the grids that `--aq-source cams:DIR` (or cams:s3://BUCKET/PREFIX) \
             serves: set --aq-source cams:DIR"
        );
    };
    let fetcher = Fetcher::new(&settings.ads)?;
    let store = open_grid(&location, settings)?;
    let now = Utc::now();
    let mut failed = 0;
    for product in fetcher.products() {
        match fetcher.fetch(&store, product, now).await {
            Ok((run, Outcome::Stored)) => {
                println!("{} run {run}: stored already", product.name());
            }
            Ok((run, Outcome::Fetched(bytes))) => {
                println!(
                    "{} run {run}: fetched {bytes} bytes -> {location}",
                    product.name()
                );
            }
            Err(e) => {
                eprintln!("{}: {e:#}", product.name());
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} products not fetched");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().into()
    }

    #[test]
    fn the_newest_run_is_the_last_one_published() {
        let now = at("2026-12-04T10:30:00Z");
        assert_eq!(newest_run(Product::Global, now), at("2026-12-03T12:00:00Z"));
        assert_eq!(newest_run(Product::Europe, now), at("2026-12-04T00:00:00Z"));
        let later = at("2026-12-04T11:00:00Z");
        assert_eq!(
            newest_run(Product::Global, later),
            at("2026-12-04T00:00:00Z")
        );
        assert_eq!(
            newest_run(Product::Europe, at("2026-12-04T09:59:00Z")),
            at("2026-12-03T00:00:00Z")
        );
        assert_eq!(
            next_publication(Product::Global, at("2026-12-04T00:00:00Z")),
            at("2026-12-04T23:00:00Z")
        );
        assert_eq!(
            next_publication(Product::Europe, at("2026-12-04T00:00:00Z")),
            at("2026-12-05T10:00:00Z")
        );
    }
}
