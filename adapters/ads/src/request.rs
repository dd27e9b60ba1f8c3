//! The requests of the two CAMS forecast datasets, with the keys and values the ADS download
//! forms use (`variable`, `date`, `time`, `leadtime_hour`, `type`, `data_format`, `area`, and
//! for the global product's gases `model_level`, for the European product `model`, `level`).

use chrono::{DateTime, Timelike, Utc};
use serde_json::{Value, json};

/// The CAMS global atmospheric composition forecast (0.4°, runs at 00 and 12 UTC, 120 h).
pub const GLOBAL_DATASET: &str = "cams-global-atmospheric-composition-forecasts";
/// The CAMS European air-quality forecast (0.1°, run at 00 UTC, 96 h).
pub const EUROPE_DATASET: &str = "cams-europe-air-quality-forecasts";

/// The global product's variables the engine serves: PM2.5 and PM10 (single level) and the
/// four gases (on model levels, of which the lowest, 137, is asked for).
pub const GLOBAL_VARIABLES: [&str; 6] = [
    "particulate_matter_2.5um",
    "particulate_matter_10um",
    "nitrogen_dioxide",
    "ozone",
    "sulphur_dioxide",
    "carbon_monoxide",
];

/// The European product's variables the engine serves: the six pollutants and the six pollen
/// types.
pub const EUROPE_VARIABLES: [&str; 12] = [
    "particulate_matter_2.5um",
    "particulate_matter_10um",
    "nitrogen_dioxide",
    "ozone",
    "sulphur_dioxide",
    "carbon_monoxide",
    "alder_pollen",
    "birch_pollen",
    "grass_pollen",
    "mugwort_pollen",
    "olive_pollen",
    "ragweed_pollen",
];

/// The European product's models as the form names them; `ensemble` is the median of the
/// others.
pub const EUROPE_MODELS: [&str; 12] = [
    "ensemble", "chimere", "dehm", "emep", "euradim", "gemaq", "lotos", "match", "minni", "mocage",
    "monarch", "silam",
];

/// A region: north, west, south, east in degrees, as the form's `area` orders them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Northern edge, degrees north.
    pub north: f64,
    /// Western edge, degrees east.
    pub west: f64,
    /// Southern edge, degrees north.
    pub south: f64,
    /// Eastern edge, degrees east.
    pub east: f64,
}

impl Area {
    /// Reads `N,W,S,E`.
    ///
    /// # Errors
    /// When there are not four numbers, a latitude is outside ±90 or north is below south.
    pub fn parse(text: &str) -> Result<Area, String> {
        let numbers: Vec<f64> = text
            .split(',')
            .map(|n| n.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("an area is N,W,S,E in degrees, got `{text}`: {e}"))?;
        let [north, west, south, east] = numbers[..] else {
            return Err(format!(
                "an area is four numbers N,W,S,E, got {}",
                numbers.len()
            ));
        };
        if !(-90.0..=90.0).contains(&north) || !(-90.0..=90.0).contains(&south) || north < south {
            return Err(format!(
                "an area's latitudes run from south to north within ±90, got `{text}`"
            ));
        }
        Ok(Area {
            north,
            west,
            south,
            east,
        })
    }

    fn to_json(self) -> Value {
        json!([self.north, self.west, self.south, self.east])
    }
}

/// A day as the form's `date` takes it: a range of one day.
fn date_of(run: DateTime<Utc>) -> String {
    let day = run.format("%Y-%m-%d");
    format!("{day}/{day}")
}

fn lead_hours(max: u32, step: u32) -> Vec<String> {
    (0..=max)
        .step_by(step.max(1) as usize)
        .map(|h| h.to_string())
        .collect()
}

/// A request of one run of [`GLOBAL_DATASET`].
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalRequest {
    /// The run: 00 or 12 UTC of a day.
    pub run: DateTime<Utc>,
    /// Form names of the variables (default [`GLOBAL_VARIABLES`]).
    pub variables: Vec<String>,
    /// The last lead time, in hours (default 120, the whole forecast).
    pub max_lead_hours: u32,
    /// Hours between lead times (default 3: the gases on model levels come 3-hourly).
    pub lead_step_hours: u32,
    /// A region, or the whole globe.
    pub area: Option<Area>,
}

impl GlobalRequest {
    /// The defaults for `run`: every variable the engine serves, 0 to 120 h every 3 hours,
    /// the whole globe.
    #[must_use]
    pub fn new(run: DateTime<Utc>) -> Self {
        GlobalRequest {
            run,
            variables: GLOBAL_VARIABLES.iter().map(|v| (*v).to_owned()).collect(),
            max_lead_hours: 120,
            lead_step_hours: 3,
            area: None,
        }
    }

    /// The `inputs` the API takes.
    #[must_use]
    pub fn inputs(&self) -> Value {
        let mut inputs = json!({
            "variable": self.variables,
            "date": date_of(self.run),
            "time": [format!("{:02}:00", self.run.hour())],
            "leadtime_hour": lead_hours(self.max_lead_hours, self.lead_step_hours),
            "type": ["forecast"],
            // The gases are multi-level variables: the lowest model level is the surface air.
            "model_level": ["137"],
            "data_format": "grib",
        });
        if let Some(area) = self.area {
            inputs["area"] = area.to_json();
        }
        inputs
    }
}

/// A request of one run of [`EUROPE_DATASET`].
#[derive(Debug, Clone, PartialEq)]
pub struct EuropeRequest {
    /// The run: 00 UTC of a day.
    pub run: DateTime<Utc>,
    /// Form names of the variables (default [`EUROPE_VARIABLES`]).
    pub variables: Vec<String>,
    /// The model (default `ensemble`, see [`EUROPE_MODELS`]).
    pub model: String,
    /// The last lead time, in hours (default 96, the whole forecast).
    pub max_lead_hours: u32,
    /// A region, or the product's whole domain.
    pub area: Option<Area>,
}

impl EuropeRequest {
    /// The defaults for `run`: every variable the engine serves, the ensemble median, 0 to
    /// 96 h every hour, the whole domain.
    #[must_use]
    pub fn new(run: DateTime<Utc>) -> Self {
        EuropeRequest {
            run,
            variables: EUROPE_VARIABLES.iter().map(|v| (*v).to_owned()).collect(),
            model: "ensemble".to_owned(),
            max_lead_hours: 96,
            area: None,
        }
    }

    /// The `inputs` the API takes.
    #[must_use]
    pub fn inputs(&self) -> Value {
        let mut inputs = json!({
            "variable": self.variables,
            "model": [self.model],
            // Level 0 m: the surface.
            "level": ["0"],
            "date": date_of(self.run),
            "type": ["forecast"],
            "time": [format!("{:02}:00", self.run.hour())],
            "leadtime_hour": lead_hours(self.max_lead_hours, 1),
            "data_format": "grib",
        });
        if let Some(area) = self.area {
            inputs["area"] = area.to_json();
        }
        inputs
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_requests_name_what_the_forms_name() {
        let run = Utc.with_ymd_and_hms(2026, 12, 3, 12, 0, 0).unwrap();
        let mut global = GlobalRequest::new(run);
        global.area = Some(Area::parse("72,-25,30,45").unwrap());
        let inputs = global.inputs();
        assert_eq!(inputs["date"], "2026-12-03/2026-12-03");
        assert_eq!(inputs["time"], json!(["12:00"]));
        assert_eq!(inputs["leadtime_hour"].as_array().unwrap().len(), 41);
        assert_eq!(inputs["leadtime_hour"][40], "120");
        assert_eq!(inputs["area"], json!([72.0, -25.0, 30.0, 45.0]));
        assert_eq!(inputs["data_format"], "grib");

        let europe = EuropeRequest::new(run).inputs();
        assert_eq!(europe["model"], json!(["ensemble"]));
        assert_eq!(europe["level"], json!(["0"]));
        assert_eq!(europe["leadtime_hour"].as_array().unwrap().len(), 97);
        assert!(
            europe["variable"]
                .as_array()
                .unwrap()
                .contains(&json!("olive_pollen"))
        );
        assert!(europe.get("area").is_none());
    }

    #[test]
    fn an_area_is_four_numbers_north_above_south() {
        assert!(Area::parse("1,2,3").is_err());
        assert!(Area::parse("30,0,70,10").is_err());
        assert!(Area::parse("a,b,c,d").is_err());
        assert_eq!(Area::parse(" 70, -10 ,30,40").unwrap().west, -10.0);
    }
}
