//! Which CAMS product and parameter a GRIB2 message carries, and how its values become µg/m³ or
//! grains/m³, read from the keys ECMWF documents for the two products of the Atmosphere Data
//! Store (the tables, with their sources, are in `docs/cams.md`).
//!
//! **Product**, from section 1's `centre` and `subCentre`, never from the grid's shape (a
//! global file cropped with the ADS `area` option is still the global product):
//!
//! - centre 98 (ECMWF): `cams-global-atmospheric-composition-forecasts`;
//! - the models of `cams-europe-air-quality-forecasts` ([`EuropeModel`]): the one a store is
//!   configured for is the European product, the others are skipped.
//!
//! **Variable**, from section 4 (discipline 0, category 20): `parameterNumber` and
//! `constituentType` (code table 4.230).
//!
//! | product | number | template | constituent | quantity |
//! |---|---|---|---|---|
//! | Europe | 0 mass density | 4.40 | 40009 / 40008 | PM2.5 / PM10 |
//! | Europe | 0 mass density | 4.40 | 0 O₃, 5 NO₂, 8 SO₂, 4 CO | that gas |
//! | Europe | 59 number concentration | 4.40 | 62100 alder, 62101 birch, 64002 olive / 62300 grass / 62201 mugwort, 62200 ragweed | tree / grass / weed |
//! | Global | 0 mass density | 4.44, 4.48, 4.50 | 62026 with size 2.5 µm / 10 µm | PM2.5 / PM10 |
//! | Global | 2 mass mixing ratio | 4.40 | 0 O₃, 5 NO₂, 8 SO₂, 4 CO, at the surface or model level 137 | that gas |
//!
//! Every message not served is counted under a [`SkipReason`].
//!
//! **Units**, from the parameter number: mass density is kg m⁻³ (× 10⁹ for µg/m³); a mass
//! mixing ratio (kg/kg) becomes a volume mixing ratio with molar masses alone, then µg/m³ at the
//! EEA's reference conditions ([`mixing_ratio_factor`]); a number concentration is grains m⁻³.
//! A European mass density whose magnitudes are those of µg/m³ is read as µg/m³
//! ([`looks_like_ug_m3`]).

use aq_core::{Concentration, Plant, Pollutant};

use crate::field::Product;
use crate::quantity::Quantity;

/// The level the global forecast's gases are read at, when they come on model levels: level
/// 137, the lowest of the 137 hybrid levels of the IFS.
pub const LOWEST_MODEL_LEVEL: u32 = 137;

/// Molar mass of dry air, g/mol (the U.S. Standard Atmosphere 1976 value, which the IFS also
/// uses): the other half, with each gas's own ([`Pollutant::molar_mass`]), of turning a mass
/// mixing ratio into a volume mixing ratio.
pub const MOLAR_MASS_DRY_AIR: f64 = 28.9647;

/// The median a European mass density (declared kg m⁻³) must pass to be read as µg/m³: no
/// surface concentration reaches 1 g/m³ (10⁻³ kg m⁻³), and no clean-air µg/m³ field has a
/// median below 10⁻³ µg/m³.
pub const UG_M3_MEDIAN_THRESHOLD: f64 = 1e-3;

/// The longest forecast step read: 16 days, past the 5 days of the global product and the 4
/// of the European one. A longer step is a corrupt header.
pub const MAX_STEP_SECONDS: i64 = 16 * 86_400;

/// A model of the European ensemble, by the `centre`/`subCentre` ECMWF documents for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum EuropeModel {
    /// The ensemble median, 85/2: the product's reference field, and the default.
    #[default]
    Ensemble,
    /// CHIMERE, 85/200.
    Chimere,
    /// EMEP, 88/0.
    Emep,
    /// LOTOS-EUROS, 99/0.
    LotosEuros,
    /// MATCH, 82/98.
    Match,
    /// MOCAGE, 85/1.
    Mocage,
    /// SILAM, 86/0.
    Silam,
    /// EURAD-IM, 85/201.
    EuradIm,
    /// DEHM, 85/203.
    Dehm,
    /// GEM-AQ, 85/204.
    GemAq,
    /// MINNI, 85/205.
    Minni,
    /// MONARCH, 85/206.
    Monarch,
}

impl EuropeModel {
    /// Every model, the ensemble first.
    pub const ALL: [EuropeModel; 12] = [
        EuropeModel::Ensemble,
        EuropeModel::Chimere,
        EuropeModel::Emep,
        EuropeModel::LotosEuros,
        EuropeModel::Match,
        EuropeModel::Mocage,
        EuropeModel::Silam,
        EuropeModel::EuradIm,
        EuropeModel::Dehm,
        EuropeModel::GemAq,
        EuropeModel::Minni,
        EuropeModel::Monarch,
    ];

    /// The `centre` and `subCentre` of section 1 that name the model.
    #[must_use]
    pub fn producer(self) -> (u16, u16) {
        match self {
            EuropeModel::Ensemble => (85, 2),
            EuropeModel::Chimere => (85, 200),
            EuropeModel::Emep => (88, 0),
            EuropeModel::LotosEuros => (99, 0),
            EuropeModel::Match => (82, 98),
            EuropeModel::Mocage => (85, 1),
            EuropeModel::Silam => (86, 0),
            EuropeModel::EuradIm => (85, 201),
            EuropeModel::Dehm => (85, 203),
            EuropeModel::GemAq => (85, 204),
            EuropeModel::Minni => (85, 205),
            EuropeModel::Monarch => (85, 206),
        }
    }

    /// The model's name as the ADS request names it (`ensemble`, `chimere`, `emep`,
    /// `lotos`, `match`, `mocage`, `silam`, `euradim`, `dehm`, `gemaq`, `minni`, `monarch`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EuropeModel::Ensemble => "ensemble",
            EuropeModel::Chimere => "chimere",
            EuropeModel::Emep => "emep",
            EuropeModel::LotosEuros => "lotos",
            EuropeModel::Match => "match",
            EuropeModel::Mocage => "mocage",
            EuropeModel::Silam => "silam",
            EuropeModel::EuradIm => "euradim",
            EuropeModel::Dehm => "dehm",
            EuropeModel::GemAq => "gemaq",
            EuropeModel::Minni => "minni",
            EuropeModel::Monarch => "monarch",
        }
    }

    /// The model named `name` (see [`EuropeModel::name`]).
    ///
    /// ```
    /// use aq_grid::EuropeModel;
    ///
    /// assert_eq!(EuropeModel::from_name("silam"), Some(EuropeModel::Silam));
    /// assert_eq!(EuropeModel::from_name("ensemble").unwrap().producer(), (85, 2));
    /// assert_eq!(EuropeModel::from_name("gfs"), None);
    /// ```
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    fn of(producer: (u16, u16)) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.producer() == producer)
    }
}

/// Why a message is not served: a small, fixed set, so that each is a label of `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// Neither ECMWF nor a model of the European ensemble made it.
    UnknownProducer,
    /// Another model of the European ensemble than the one the store reads.
    OtherModel,
    /// Not an atmospheric constituent of a template read (a temperature, a wind).
    NotAConstituent,
    /// A constituent the engine does not serve (NO, NH₃, dust, wildfire PM10, another species
    /// or particle size).
    NotServed,
    /// A served constituent at another level than the one read.
    OtherLevel,
    /// A grid other than a regular latitude/longitude grid scanned row by row west to east.
    OtherGrid,
}

impl SkipReason {
    /// Every reason.
    pub const ALL: [SkipReason; 6] = [
        SkipReason::UnknownProducer,
        SkipReason::OtherModel,
        SkipReason::NotAConstituent,
        SkipReason::NotServed,
        SkipReason::OtherLevel,
        SkipReason::OtherGrid,
    ];

    /// The reason's name in logs and `/metrics`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::UnknownProducer => "unknown_producer",
            SkipReason::OtherModel => "other_model",
            SkipReason::NotAConstituent => "not_a_constituent",
            SkipReason::NotServed => "not_served",
            SkipReason::OtherLevel => "other_level",
            SkipReason::OtherGrid => "other_grid",
        }
    }
}

/// How a message's values become the grid's unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Unit {
    /// kg m⁻³, × 10⁹ for µg/m³.
    KgPerM3,
    /// Declared kg m⁻³, read as µg/m³ when its magnitudes say so ([`looks_like_ug_m3`]).
    KgPerM3OrUgPerM3,
    /// kg/kg of the gas: × the factor of [`mixing_ratio_factor`].
    MixingRatio(Pollutant),
    /// Grains m⁻³, as they are.
    PerM3,
}

impl Unit {
    /// The factor to µg/m³ (or grains/m³) of a field whose values are `values`.
    pub(crate) fn factor(self, values: &[f32]) -> (f64, bool) {
        match self {
            Unit::KgPerM3 => (1e9, false),
            Unit::KgPerM3OrUgPerM3 if looks_like_ug_m3(values) => (1.0, true),
            Unit::KgPerM3OrUgPerM3 => (1e9, false),
            Unit::MixingRatio(p) => (mixing_ratio_factor(p), false),
            Unit::PerM3 => (1.0, false),
        }
    }
}

/// Where a recognised message's values go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A quantity of its own.
    Quantity(Quantity),
    /// One plant's species: summed into its pollen type's layer and kept as its plant's (grass,
    /// the one plant of its type, is the type's layer).
    PollenSpecies(Plant),
}

/// A recognised message: its product, where it goes and its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Recognised {
    pub(crate) product: Product,
    pub(crate) target: Target,
    pub(crate) unit: Unit,
}

/// Why a message is not taken: the reason counted and a description for the debug log.
pub(crate) type Skip = (SkipReason, String);

/// µg/m³ at 20 °C and 1013.25 hPa (the EEA's reference conditions, which the stored
/// concentrations are in) per kg/kg of `gas`: the mass mixing ratio times
/// [`MOLAR_MASS_DRY_AIR`] over the gas's molar mass is its volume mixing ratio, × 10⁹ its ppb,
/// which aq-core's one conversion turns into µg/m³. The gas's molar mass cancels out; it is
/// kept so that the conversion reads as the two documented steps.
///
/// ```
/// use aq_core::Pollutant;
/// use aq_grid::ingest::params::mixing_ratio_factor;
///
/// // 1 ppb of NO₂ by volume is 1.5883 × 10⁻⁹ kg/kg, 1.9125 µg/m³ at 20 °C.
/// let mmr = 1e-9 * 46.0055 / 28.9647;
/// assert!((mmr * mixing_ratio_factor(Pollutant::No2) - 1.9125).abs() < 1e-3);
/// ```
#[must_use]
pub fn mixing_ratio_factor(gas: Pollutant) -> f64 {
    let Some(molar_mass) = gas.molar_mass() else {
        return f64::NAN;
    };
    let ppb_per_kg_kg = 1e9 * MOLAR_MASS_DRY_AIR / molar_mass;
    let ug_per_ppb = Concentration::from_ppb(gas, 1.0, aq_core::STATED_AT)
        .ok()
        .flatten()
        .map_or(f64::NAN, Concentration::ug_m3);
    ppb_per_kg_kg * ug_per_ppb
}

/// Whether a field declared in kg m⁻³ holds µg/m³: its median (of the finite values) is above
/// [`UG_M3_MEDIAN_THRESHOLD`]. The median, not the largest value, so that a few spikes of a
/// true kg m⁻³ field do not flip it.
#[must_use]
pub fn looks_like_ug_m3(values: &[f32]) -> bool {
    let mut finite: Vec<f32> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return false;
    }
    let mid = finite.len() / 2;
    let (_, median, _) = finite.select_nth_unstable_by(mid, f32::total_cmp);
    f64::from(*median) > UG_M3_MEDIAN_THRESHOLD
}

fn u16_at(s: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*s.get(i)?, *s.get(i + 1)?]))
}

fn u32_at(s: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_be_bytes([
        *s.get(i)?,
        *s.get(i + 1)?,
        *s.get(i + 2)?,
        *s.get(i + 3)?,
    ]))
}

/// The byte of section 4 octet `octet` (WMO numbering, from 1) within the payload that
/// follows the section's 5-octet header.
fn at(octet: usize) -> usize {
    octet - 6
}

/// Product definition template number.
pub(crate) fn template(s4: &[u8]) -> Option<u16> {
    u16_at(s4, at(8))
}

/// The forecast step in seconds: the unit (code table 4.4) and value of "forecast time" in
/// the template's own layout, at most [`MAX_STEP_SECONDS`].
///
/// The `grib` crate reads the step from the templates it knows, but not from 4.50, which
/// ecCodes writes for CAMS's particulate matter; one table of octets read from the raw section
/// 4 serves every template alike. Template 4.44 is the odd one: its forecast time is 2 octets
/// (32 and 33), where every other template has 4.
pub(crate) fn step_seconds(s4: &[u8]) -> Result<i64, String> {
    let tmpl = template(s4).ok_or("section 4 too short")?;
    let (unit_octet, wide) = match tmpl {
        0..=15 => (18, true),
        40..=43 => (20, true),
        44 => (31, false),
        45..=47 | 50 => (31, true),
        48..=49 => (42, true),
        other => return Err(format!("product definition template 4.{other} not read")),
    };
    let short = "section 4 too short for its template";
    let unit = *s4.get(at(unit_octet)).ok_or(short)?;
    let value = if wide {
        u32_at(s4, at(unit_octet + 1)).ok_or(short)?
    } else {
        u32::from(u16_at(s4, at(unit_octet + 1)).ok_or(short)?)
    };
    let seconds: i64 = match unit {
        0 => 60,
        1 => 3600,
        2 => 86_400,
        10 => 3 * 3600,
        11 => 6 * 3600,
        12 => 12 * 3600,
        13 => 1,
        other => return Err(format!("time unit {other} (code table 4.4) not read")),
    };
    let step = i64::from(value)
        .checked_mul(seconds)
        .filter(|s| *s <= MAX_STEP_SECONDS)
        .ok_or_else(|| {
            format!(
                "forecast step {value} × {seconds} s is past the {} days read",
                MAX_STEP_SECONDS / 86_400
            )
        })?;
    Ok(step)
}

fn gas(constituent: u16) -> Option<Pollutant> {
    match constituent {
        0 => Some(Pollutant::O3),
        4 => Some(Pollutant::Co),
        5 => Some(Pollutant::No2),
        8 => Some(Pollutant::So2),
        _ => None,
    }
}

/// The plant of a species (its type is [`Plant::pollen_type`]: olive is a tree, as Google's
/// Pollen API counts it).
fn pollen(constituent: u16) -> Option<Plant> {
    match constituent {
        62100 => Some(Plant::Alder),
        62101 => Some(Plant::Birch),
        64002 => Some(Plant::Olive),
        62300 => Some(Plant::Grass),
        62200 => Some(Plant::Ragweed),
        62201 => Some(Plant::Mugwort),
        _ => None,
    }
}

/// The European product's particulate matter (code table 4.230): PM2.5 and PM10 as
/// constituents of their own, on the plain template 4.40.
fn europe_particles(constituent: u16) -> Option<Pollutant> {
    match constituent {
        40009 => Some(Pollutant::Pm25),
        40008 => Some(Pollutant::Pm10),
        _ => None,
    }
}

const PARTICULATE_MATTER: u16 = 62026;

/// The particle size limit of an aerosol template (octets 15 to 19: scale factor, scaled
/// value), in metres.
fn size_limit(s4: &[u8]) -> Option<f64> {
    let scale = i32::from(*s4.get(at(15))?);
    let value = f64::from(u32_at(s4, at(16))?);
    Some(value * 10f64.powi(-scale))
}

/// The product a message's `centre` and `sub_centre` name, for a store that reads the
/// European model `model`.
///
/// # Errors
/// [`SkipReason::OtherModel`] for another European model, [`SkipReason::UnknownProducer`] for
/// any other producer.
pub(crate) fn product(centre: u16, sub_centre: u16, model: EuropeModel) -> Result<Product, Skip> {
    if centre == 98 {
        return Ok(Product::Global);
    }
    match EuropeModel::of((centre, sub_centre)) {
        Some(m) if m == model => Ok(Product::Europe),
        Some(m) => Err((
            SkipReason::OtherModel,
            format!(
                "European model {} (the store reads {})",
                m.name(),
                model.name()
            ),
        )),
        None => Err((
            SkipReason::UnknownProducer,
            format!("centre {centre}, sub-centre {sub_centre}"),
        )),
    }
}

/// What the message with section 4 payload `s4` of `discipline`, of `product`, carries.
///
/// # Errors
/// Why the message is not taken.
pub(crate) fn recognise(product: Product, discipline: u8, s4: &[u8]) -> Result<Recognised, Skip> {
    let short = || {
        (
            SkipReason::NotAConstituent,
            "section 4 too short".to_owned(),
        )
    };
    let tmpl = template(s4).ok_or_else(short)?;
    let (category, number) = (
        *s4.get(at(10)).ok_or_else(short)?,
        *s4.get(at(11)).ok_or_else(short)?,
    );
    let name = || {
        format!("discipline {discipline}, category {category}, number {number}, template 4.{tmpl}")
    };
    if discipline != 0 || category != 20 || !(40..=50).contains(&tmpl) {
        return Err((SkipReason::NotAConstituent, name()));
    }
    let constituent = u16_at(s4, at(12)).ok_or_else(short)?;
    let not_served = || {
        (
            SkipReason::NotServed,
            format!("{}, constituent {constituent}", name()),
        )
    };
    let quantity = |p| Target::Quantity(Quantity::Pollutant(p));
    let found = match (product, number, tmpl) {
        (Product::Europe, 0, 40) => europe_particles(constituent)
            .or_else(|| gas(constituent))
            .map(|p| (quantity(p), Unit::KgPerM3OrUgPerM3)),
        (Product::Europe, 59, 40) => {
            pollen(constituent).map(|t| (Target::PollenSpecies(t), Unit::PerM3))
        }
        (Product::Global, 0, 44 | 48 | 50) if constituent == PARTICULATE_MATTER => {
            let size = size_limit(s4).ok_or_else(short)?;
            let pm = if (size - 2.5e-6).abs() < 1e-9 {
                Pollutant::Pm25
            } else if (size - 1e-5).abs() < 1e-9 {
                Pollutant::Pm10
            } else {
                return Err((
                    SkipReason::NotServed,
                    format!("{}: particulate matter of size {size} m", name()),
                ));
            };
            Some((quantity(pm), Unit::KgPerM3))
        }
        (Product::Global, 2, 40) => {
            let level_type = *s4.get(at(25)).ok_or_else(short)?;
            let level = u32_at(s4, at(27)).ok_or_else(short)?;
            let lowest = level_type == 1 || (level_type == 105 && level == LOWEST_MODEL_LEVEL);
            match gas(constituent) {
                Some(_) if !lowest => {
                    return Err((
                        SkipReason::OtherLevel,
                        format!("{}: level type {level_type}, level {level}", name()),
                    ));
                }
                g => g.map(|p| (quantity(p), Unit::MixingRatio(p))),
            }
        }
        _ => None,
    };
    let (target, unit) = found.ok_or_else(not_served)?;
    Ok(Recognised {
        product,
        target,
        unit,
    })
}

#[cfg(test)]
#[path = "params_tests.rs"]
mod tests;
