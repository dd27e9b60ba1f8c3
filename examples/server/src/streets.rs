//! Street-level air: the OpenStreetMap extracts of `--roads`, and the sources that add the
//! near-road increment to the background.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use aq_core::{AirQualitySource, ForecastSource, NearRoadModel, RoadMap, StreetLevel};
use racs_core::journey::StreetRouter;

use crate::config::Settings;

/// What the server reads at street level: route scores and street-zoom tiles (`air`), point
/// lookups (`lookups`); tiles that span kilometres read `background`. Alert rules keep the
/// background: docs/scoring.md says why.
pub(crate) struct StreetAir {
    /// The route source with the increment.
    pub(crate) air: Arc<dyn AirQualitySource>,
    /// The forecast source with the increment.
    pub(crate) lookups: Arc<dyn ForecastSource>,
    /// The route source without it.
    pub(crate) background: Arc<dyn AirQualitySource>,
    /// The streets walks and rides are planned on.
    pub(crate) router: Arc<dyn StreetRouter>,
    /// The same streets, for the near-road model and the dashboard's maps.
    pub(crate) roads: Arc<dyn RoadMap>,
}

/// Reads the extracts `settings.roads` names and puts `air` and `forecast` at street level,
/// or `None` when it names none. Reading takes a while for a large extract: the log says how
/// long and how much memory the streets hold.
pub(crate) fn open(
    settings: &Settings,
    air: &Arc<dyn AirQualitySource>,
    forecast: &Arc<dyn ForecastSource>,
) -> Result<Option<StreetAir>> {
    if settings.roads.is_empty() {
        return Ok(None);
    }
    let started = Instant::now();
    let network = aq_streets::open(&settings.roads).context("cannot read --roads")?;
    tracing::info!(
        extracts = settings.roads.len(),
        nodes = network.node_count(),
        segments = network.edges().len(),
        mib = network.heap_bytes() / (1024 * 1024),
        seconds = started.elapsed().as_secs_f64(),
        "streets loaded: route scores, lookups and street-zoom tiles add the near-road \
         increment, and walks and rides are planned on them"
    );
    let network = Arc::new(network);
    let roads: Arc<dyn RoadMap> = network.clone();
    let model = NearRoadModel::default();
    Ok(Some(StreetAir {
        router: network,
        air: Arc::new(StreetLevel::new(air.clone(), roads.clone(), model.clone())),
        lookups: Arc::new(StreetLevel::new(forecast.clone(), roads.clone(), model)),
        roads,
        background: air.clone(),
    }))
}
