//! `--fuse-stations`: the model source corrected by station readings, wired here (the fusion,
//! the station sources and the metrics know nothing of each other).

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use aq_core::{ObservationSource, Pollutant};
use aq_fusion::{ExclusionSink, FusedSource, QcReason};
use aq_sources::{OpenAq, OpenAqConfig, StationFile};
use insights_http::Metrics;
use runtime_core::Clock;

use crate::config::Settings;
use crate::wiring::{Sources, cams_store};

/// The fused source's exclusions, counted in the server's metrics.
pub(crate) struct MetricsSink(pub(crate) Metrics);

impl ExclusionSink for MetricsSink {
    fn excluded(&self, pollutant: Pollutant, reason: QcReason, count: u64) {
        self.0
            .count_station_exclusions(pollutant.code(), reason.as_str(), count);
    }
}

/// The station readings `spec` names: `stations:FILE` or `openaq`.
pub(crate) fn open_stations(
    spec: &str,
    clock: &Arc<dyn Clock>,
) -> Result<Arc<dyn ObservationSource>> {
    if spec == "openaq" {
        let api_key = std::env::var("OPENAQ_API_KEY")
            .context("--fuse-stations openaq needs the OPENAQ_API_KEY environment variable")?;
        let source = OpenAq::new(
            OpenAqConfig {
                api_key,
                ..OpenAqConfig::default()
            },
            clock.clone(),
        )
        .context("cannot set up OpenAQ")?;
        return Ok(Arc::new(source));
    }
    if let Some(path) = spec.strip_prefix("stations:") {
        let file = StationFile::open(path, Default::default())
            .with_context(|| format!("cannot load the station file {path}"))?;
        tracing::info!(
            file = path,
            stations = file.station_count(),
            readings = file.reading_count(),
            "station readings loaded for fusion"
        );
        return Ok(Arc::new(file));
    }
    bail!("--fuse-stations must be stations:FILE or openaq, got `{spec}`")
}

/// Whether `--aq-source` names a model, which stations can correct: the CAMS grids,
/// Open-Meteo's CAMS forecast, or the demo field.
fn is_model(aq_source: &str) -> Result<bool> {
    Ok(aq_source == "demo"
        || aq_source == "open-meteo"
        || aq_source.starts_with("open-meteo:")
        || cams_store(aq_source)?.is_some())
}

/// Refuses an `--aq-source` that is not a model.
pub(crate) fn check_model(aq_source: &str) -> Result<()> {
    if is_model(aq_source)? {
        Ok(())
    } else {
        bail!(
            "--fuse-stations corrects a model: --aq-source must be cams:DIR, cams:s3://..., \
             open-meteo or demo, got `{aq_source}`"
        )
    }
}

/// `model` corrected by the readings of `settings.fuse_stations`, or `model` itself when no
/// stations are named; exclusions go to `sink`.
pub(crate) fn fused(
    settings: &Settings,
    clock: &Arc<dyn Clock>,
    model: Sources,
    sink: Option<Arc<dyn ExclusionSink>>,
) -> Result<Sources> {
    let Some(spec) = settings.fuse_stations.as_deref() else {
        return Ok(model);
    };
    check_model(&settings.aq_source)?;
    let stations = open_stations(spec, clock)?;
    let mut source = FusedSource::new(
        model.air,
        model.forecast,
        stations,
        clock.clone(),
        settings.fusion.clone(),
    )
    .context("cannot set up the fusion (check [fusion] in the config file)")?;
    if let Some(sink) = sink {
        source = source.with_exclusion_sink(sink);
    }
    tracing::info!(model = %settings.aq_source, stations = spec, "fusing the model with station readings");
    let source = Arc::new(source);
    Ok(Sources {
        air: source.clone(),
        forecast: source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_models_are_fused() {
        for model in [
            "demo",
            "open-meteo",
            "open-meteo:http://x",
            "cams:/var/lib/cams",
        ] {
            assert!(is_model(model).unwrap(), "{model}");
        }
        for not in ["openaq", "stations:a.csv"] {
            assert!(!is_model(not).unwrap(), "{not}");
        }
    }
}
