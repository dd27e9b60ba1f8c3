//! `insights-server validate --aq-source MODEL --fuse-stations STATIONS`: leave-one-out
//! cross-validation of the fusion over the stations, hour by hour, printed as RMSE, bias and
//! correlation per pollutant for the model alone and fused.

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use aq_core::air_hour::hour_of;
use aq_core::{AirQualitySource, Area};
use chrono::{DateTime, Duration, Utc};
use clap::Args;
use insights_system::SystemClock;
use runtime_core::Clock;

use crate::config::Settings;
use crate::fusion::open_stations;
use crate::wiring::{cams_store, open_grid, open_model};

/// The most hours one validation reads.
const MAX_HOURS: u32 = 720;

/// The most stations one validation reads per hour.
const MAX_STATIONS: usize = 20_000;

/// What `validate` reads.
#[derive(Debug, Clone, Args)]
pub(crate) struct ValidateArgs {
    /// How many hours to validate, ending with `--until` (1 to 720).
    #[arg(long, default_value_t = 24)]
    hours: u32,
    /// The last hour validated, RFC 3339 [default: the current hour].
    #[arg(long, value_name = "TIME")]
    until: Option<DateTime<Utc>>,
    /// The stations validated: `south,west,north,east` in degrees [default: the whole globe;
    /// required with --fuse-stations openaq].
    #[arg(long, value_name = "S,W,N,E")]
    area: Option<String>,
    /// The most stations read per hour, those nearest the area's centre (1 to 20000).
    #[arg(long, default_value_t = 2_000)]
    max_stations: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// `south,west,north,east` as an area.
fn parse_area(text: &str) -> Result<Area> {
    let bounds: Vec<f64> = text
        .split(',')
        .map(|v| v.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--area `{text}`: four numbers, as in 47.0,5.0,55.0,15.5"))?;
    let [south, west, north, east] = bounds[..] else {
        bail!("--area `{text}`: four numbers south,west,north,east, as in 47.0,5.0,55.0,15.5");
    };
    Area::new(south, west, north, east).with_context(|| format!("--area `{text}`"))
}

/// The model as it stands: CAMS grids are read, never ingested into or purged, so that a
/// validation leaves the store as it found it (and can score runs past the serving retention).
async fn open_model_as_is(
    settings: &Settings,
    clock: &Arc<dyn Clock>,
) -> Result<Arc<dyn AirQualitySource>> {
    let Some(location) = cams_store(&settings.aq_source)? else {
        return Ok(open_model(settings, clock)?.air);
    };
    let store = Arc::new(open_grid(&location, settings)?);
    let batches = store
        .refresh()
        .await
        .with_context(|| format!("cannot read the CAMS grids at {location}"))?;
    if batches == 0 {
        bail!("the CAMS grids at {location} hold no run: ingest some first");
    }
    Ok(Arc::new(aq_grid::GridSource::new(store)))
}

/// Runs the cross-validation and prints its report.
pub(crate) async fn run(settings: &Settings, args: &ValidateArgs) -> Result<()> {
    let Some(spec) = settings.fuse_stations.as_deref() else {
        bail!(
            "validate scores the fusion of a model with stations: give --aq-source MODEL and \
             --fuse-stations stations:FILE (or openaq)"
        );
    };
    if !(1..=MAX_HOURS).contains(&args.hours) {
        bail!("--hours {} must be 1 to {MAX_HOURS}", args.hours);
    }
    if !(1..=MAX_STATIONS).contains(&args.max_stations) {
        bail!(
            "--max-stations {} must be 1 to {MAX_STATIONS}",
            args.max_stations
        );
    }
    let area = match &args.area {
        Some(text) => parse_area(text)?,
        None if spec == "openaq" => {
            bail!(
                "--fuse-stations openaq needs --area south,west,north,east: OpenAQ is asked for one area"
            )
        }
        None => Area::WORLD,
    };
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    crate::fusion::check_model(&settings.aq_source)?;
    let model = open_model_as_is(settings, &clock).await?;
    let stations = open_stations(spec, &clock)?;
    let until = hour_of(args.until.unwrap_or_else(|| clock.now()));
    let hours: Vec<DateTime<Utc>> = (0..args.hours)
        .rev()
        .map(|k| until - Duration::hours(i64::from(k)))
        .collect();
    let config = aq_fusion::FusionConfig {
        max_stations: args.max_stations,
        ..settings.fusion.clone()
    };
    let report =
        aq_fusion::cross_validate(model.as_ref(), stations.as_ref(), area, &hours, &config)
            .await
            .context("the cross-validation could not read the model or the stations")?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "Model {}, stations {}, hours {} to {}",
        settings.aq_source,
        spec,
        hours.first().map(DateTime::to_rfc3339).unwrap_or_default(),
        until.to_rfc3339()
    );
    print!("{report}");
    if report.pollutants.is_empty() {
        println!("No station reading met the model in these hours: nothing to score.");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_are_four_bounds() {
        let a = parse_area("47, 5.5, 55, 15").unwrap();
        assert_eq!(
            (a.south(), a.west(), a.north(), a.east()),
            (47.0, 5.5, 55.0, 15.0)
        );
        assert!(
            parse_area("47,5,55")
                .unwrap_err()
                .to_string()
                .contains("four numbers")
        );
        assert!(parse_area("47,x,55,1").is_err());
        let err = parse_area("56,5,55,15").unwrap_err();
        assert!(format!("{err:#}").contains("south <= north"), "{err:#}");
    }
}
