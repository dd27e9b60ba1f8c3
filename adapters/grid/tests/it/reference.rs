//! The outside reference: what ecCodes decoded from the fixture files
//! (`fixtures/make_fixtures.py` writes it beside each file).

use std::path::PathBuf;

use aq_core::{Plant, Pollutant};
use aq_grid::Quantity;
use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;

/// One message as ecCodes read it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Message {
    pub(crate) short_name: String,
    pub(crate) centre: u16,
    pub(crate) sub_centre: u16,
    pub(crate) parameter_number: u8,
    pub(crate) constituent_type: Option<u16>,
    pub(crate) validity_date: u32,
    pub(crate) validity_time: u32,
    pub(crate) packing_error: f64,
    #[serde(rename = "Ni")]
    pub(crate) ni: usize,
    #[serde(rename = "Nj")]
    pub(crate) nj: usize,
    pub(crate) north: f64,
    pub(crate) west: f64,
    pub(crate) di: f64,
    pub(crate) dj: f64,
    pub(crate) values: Vec<f64>,
}

pub(crate) fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

pub(crate) fn load(name: &str) -> Vec<Message> {
    let text = std::fs::read_to_string(fixture(&format!("{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// µg/m³ at 20 °C and 1013.25 hPa per kg/kg of a gas, worked out here apart from the code
/// under test: kg/kg × (28.9647 / M) is the volume mixing ratio, × 10⁹ ppb, × M / 24.055 L/mol
/// µg/m³; the gas's molar mass M cancels.
const UG_M3_PER_KG_KG: f64 = 1e9 * 28.9647 / 24.055;

impl Message {
    /// The instant ecCodes computes from the reference time and step.
    pub(crate) fn valid(&self) -> DateTime<Utc> {
        let d = self.validity_date;
        let date = NaiveDate::from_ymd_opt((d / 10_000) as i32, d / 100 % 100, d % 100).unwrap();
        let t = self.validity_time;
        date.and_hms_opt(t / 100, t % 100, 0).unwrap().and_utc()
    }

    /// The quantity the grid files this message under and the factor to its unit, or `None`
    /// for a message the grid skips: by the producer (98 the global product, 85/2 the European
    /// ensemble median) and the keys ECMWF documents for it.
    pub(crate) fn quantity(&self) -> Option<(Quantity, f64)> {
        let gas = |c| match c {
            0 => Some(Pollutant::O3),
            4 => Some(Pollutant::Co),
            5 => Some(Pollutant::No2),
            8 => Some(Pollutant::So2),
            _ => None,
        };
        let q = Quantity::Pollutant;
        match (self.centre, self.sub_centre) {
            (98, _) => match (self.short_name.as_str(), self.parameter_number) {
                ("pm2p5", 0) => Some((q(Pollutant::Pm25), 1e9)),
                ("pm10", 0) => Some((q(Pollutant::Pm10), 1e9)),
                (_, 2) => Some((q(gas(self.constituent_type?)?), UG_M3_PER_KG_KG)),
                _ => None,
            },
            // The fixture's European fields are µg/m³ under a kg m⁻³ parameter, as European
            // deliveries hold them: read as they are.
            (85, 2) => match (self.parameter_number, self.constituent_type?) {
                (0, 40009) => Some((q(Pollutant::Pm25), 1.0)),
                (0, 40008) => Some((q(Pollutant::Pm10), 1.0)),
                (0, c) => Some((q(gas(c)?), 1.0)),
                (59, c) => Some((
                    Quantity::Plant(match c {
                        62100 => Plant::Alder,
                        62101 => Plant::Birch,
                        64002 => Plant::Olive,
                        62300 => Plant::Grass,
                        62201 => Plant::Mugwort,
                        62200 => Plant::Ragweed,
                        _ => return None,
                    }),
                    1.0,
                )),
                _ => None,
            },
            _ => None,
        }
    }

    /// Latitude and longitude of node (`j`, `i`).
    pub(crate) fn node(&self, j: usize, i: usize) -> (f64, f64) {
        let lon = self.west + self.di * i as f64;
        let lon = if lon > 180.0 { lon - 360.0 } else { lon };
        (self.north - self.dj * j as f64, lon)
    }
}

/// What the grid should hold for `quantity` at `valid`, node by node, with the tolerance of
/// each node: the packing error of every message summed into it (a pollen type,
/// [`Quantity::Pollen`], is its plants' messages added up), scaled to the grid's unit.
pub(crate) struct Expected {
    pub(crate) values: Vec<f64>,
    pub(crate) tolerance: f64,
    pub(crate) first: Message,
}

pub(crate) fn expected(messages: &[Message], quantity: Quantity, valid: DateTime<Utc>) -> Expected {
    let mut out: Option<Expected> = None;
    for m in messages.iter().filter(|m| m.valid() == valid) {
        let Some((q, factor)) = m.quantity() else {
            continue;
        };
        let counts = match (q, quantity) {
            (Quantity::Plant(plant), Quantity::Pollen(kind)) => plant.pollen_type() == kind,
            _ => q == quantity,
        };
        if !counts {
            continue;
        }
        match &mut out {
            None => {
                out = Some(Expected {
                    values: m.values.iter().map(|v| v * factor).collect(),
                    tolerance: m.packing_error * factor,
                    first: m.clone(),
                });
            }
            Some(e) => {
                for (a, v) in e.values.iter_mut().zip(&m.values) {
                    *a += v * factor;
                }
                e.tolerance += m.packing_error * factor;
            }
        }
    }
    out.unwrap_or_else(|| panic!("no {quantity:?} at {valid} in the reference"))
}

/// Whether `got` equals `want` to packing precision (plus the single rounding to `f32` that
/// the grid stores values in).
pub(crate) fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance + 1e-6 * want.abs()
}
