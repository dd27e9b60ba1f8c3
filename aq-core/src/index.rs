//! The cleanliness index (CI): one 0 to 100 scale, 100 cleanest, behind RACS and air-quality
//! alerts.
//!
//! The CI comes from pollutant concentrations through the European Air Quality Index bands of
//! 2024 (hourly values): each pollutant gets a sub-index that rises linearly inside its band
//! (Good 0–20, Fair 20–40, Moderate 40–60, Poor 60–80, Very poor 80–100, Extremely poor above),
//! the worst pollutant decides, and `CI = clamp(100 − worst sub-index, 0, 100)`.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::pollutant::{Concentrations, Pollutant};

/// A cleanliness index value: finite, in [0, 100], 100 cleanest.
///
/// ```
/// use aq_core::{CiCategory, CleanlinessIndex};
///
/// let ci = CleanlinessIndex::new(72.4).unwrap();
/// assert_eq!(ci.category(), CiCategory::Good);
/// assert_eq!(ci.rounded(), 72);
/// assert!(CleanlinessIndex::new(100.5).is_err());
/// assert_eq!(CleanlinessIndex::clamped(140.0).value(), 100.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct CleanlinessIndex(f64);

/// A CI value that was not finite or was outside [0, 100].
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error("cleanliness index {0} is outside [0, 100]")]
pub struct CiError(pub f64);

impl CleanlinessIndex {
    /// The cleanest possible air.
    pub const MAX: CleanlinessIndex = CleanlinessIndex(100.0);
    /// The dirtiest value on the scale.
    pub const MIN: CleanlinessIndex = CleanlinessIndex(0.0);

    /// A CI of `value`.
    ///
    /// # Errors
    /// [`CiError`] when `value` is not finite or is outside [0, 100].
    pub fn new(value: f64) -> Result<Self, CiError> {
        if value.is_finite() && (0.0..=100.0).contains(&value) {
            Ok(Self(value))
        } else {
            Err(CiError(value))
        }
    }

    /// `value` clamped into [0, 100]; NaN becomes 0, the conservative reading.
    #[must_use]
    pub fn clamped(value: f64) -> Self {
        if value.is_nan() {
            Self(0.0)
        } else {
            Self(value.clamp(0.0, 100.0))
        }
    }

    /// The value, in [0, 100].
    #[must_use]
    pub fn value(self) -> f64 {
        self.0
    }

    /// The value rounded half up to an integer in 0..=100.
    #[must_use]
    pub fn rounded(self) -> u8 {
        round_half_up_0_100(self.0)
    }

    /// The category band this value falls in.
    #[must_use]
    pub fn category(self) -> CiCategory {
        CiCategory::of(self.0)
    }
}

/// Rounds a value in [0, 100] half up (`72.5 → 73`) and clamps it to 0..=100.
///
/// ```
/// assert_eq!(aq_core::round_half_up_0_100(72.5), 73);
/// assert_eq!(aq_core::round_half_up_0_100(72.49), 72);
/// assert_eq!(aq_core::round_half_up_0_100(-3.0), 0);
/// ```
#[must_use]
pub fn round_half_up_0_100(value: f64) -> u8 {
    if value.is_nan() {
        return 0;
    }
    // Clamped into 0..=100 first, so the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let r = (value.clamp(0.0, 100.0) + 0.5).floor() as u8;
    r.min(100)
}

impl TryFrom<f64> for CleanlinessIndex {
    type Error = CiError;

    fn try_from(v: f64) -> Result<Self, Self::Error> {
        Self::new(v)
    }
}

impl From<CleanlinessIndex> for f64 {
    fn from(ci: CleanlinessIndex) -> Self {
        ci.0
    }
}

impl fmt::Display for CleanlinessIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rounded())
    }
}

/// The categories of the CI: five 20-point bands aligned with the published Universal AQI
/// bands, and below them the floor of the scale, where the worst pollutant is at or past the
/// top of the EAQI "Very poor" band (the EEA's sixth band, "Extremely poor").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CiCategory {
    /// 0 exactly: the worst sub-index is 100 or more. The CI cannot say how far past.
    ExtremelyPoor,
    /// Above 0, below 20.
    Poor,
    /// 20 to 39.
    Low,
    /// 40 to 59.
    Moderate,
    /// 60 to 79.
    Good,
    /// 80 to 100.
    Excellent,
}

impl CiCategory {
    /// Every category, dirtiest first.
    pub const ALL: [CiCategory; 6] = [
        CiCategory::ExtremelyPoor,
        CiCategory::Poor,
        CiCategory::Low,
        CiCategory::Moderate,
        CiCategory::Good,
        CiCategory::Excellent,
    ];

    /// The five 20-point bands, dirtiest first: every category but the floor.
    pub const BANDS: [CiCategory; 5] = [
        CiCategory::Poor,
        CiCategory::Low,
        CiCategory::Moderate,
        CiCategory::Good,
        CiCategory::Excellent,
    ];

    /// The category of a CI value. Values are compared before rounding, so 79.6 is Good and
    /// 0.4 is Poor; only the floor itself, 0, is Extremely poor.
    ///
    /// ```
    /// use aq_core::{CiCategory, Concentration, Concentrations, EaqiBands, Pollutant};
    ///
    /// let smoke = |ug| {
    ///     let air = Concentrations::default().with(Pollutant::Pm25, Concentration::new(ug).unwrap());
    ///     EaqiBands::default().ci(&air).unwrap().category()
    /// };
    /// assert_eq!(smoke(100.0), CiCategory::Poor);
    /// assert_eq!(smoke(150.0), CiCategory::ExtremelyPoor);
    /// // The index cannot tell 150 from 400 µg/m³: both are at its floor.
    /// assert_eq!(smoke(400.0), CiCategory::ExtremelyPoor);
    /// ```
    #[must_use]
    pub fn of(ci: f64) -> Self {
        if ci >= 80.0 {
            CiCategory::Excellent
        } else if ci >= 60.0 {
            CiCategory::Good
        } else if ci >= 40.0 {
            CiCategory::Moderate
        } else if ci >= 20.0 {
            CiCategory::Low
        } else if ci > 0.0 {
            CiCategory::Poor
        } else {
            CiCategory::ExtremelyPoor
        }
    }

    /// The CI range of the category: its lowest value and where the next cleaner category
    /// starts (Extremely poor is the point 0; Excellent runs to 100 inclusive).
    ///
    /// ```
    /// use aq_core::CiCategory;
    ///
    /// assert_eq!(CiCategory::Low.range(), (20.0, 40.0));
    /// // Each band but the cleanest ends where the next begins.
    /// for c in &CiCategory::BANDS[..4] {
    ///     let (low, high) = c.range();
    ///     assert_eq!(CiCategory::of(low + 0.1), *c);
    ///     assert_ne!(CiCategory::of(high), *c, "{c:?}");
    /// }
    /// ```
    #[must_use]
    pub fn range(self) -> (f64, f64) {
        match self {
            CiCategory::ExtremelyPoor => (0.0, 0.0),
            CiCategory::Poor => (0.0, 20.0),
            CiCategory::Low => (20.0, 40.0),
            CiCategory::Moderate => (40.0, 60.0),
            CiCategory::Good => (60.0, 80.0),
            CiCategory::Excellent => (80.0, 100.0),
        }
    }

    /// The European Air Quality Index band of the same air, 1 (Good) to 6 (Extremely poor),
    /// and the EEA's name for it. The CI is 100 minus the worst EAQI sub-index, so each CI band
    /// is one EAQI band, named one step cleaner by the EEA: the CI's "Good" (60 to 79) is the
    /// EEA's "Fair", its "Poor" the EEA's "Very poor"; only "Extremely poor" is the same.
    ///
    /// ```
    /// use aq_core::CiCategory;
    ///
    /// assert_eq!(CiCategory::Good.eea(), (2, "Fair"));
    /// assert_eq!(CiCategory::Excellent.eea(), (1, "Good"));
    /// assert_eq!(CiCategory::ExtremelyPoor.eea(), (6, "Extremely poor"));
    /// ```
    #[must_use]
    pub fn eea(self) -> (u8, &'static str) {
        match self {
            CiCategory::Excellent => (1, "Good"),
            CiCategory::Good => (2, "Fair"),
            CiCategory::Moderate => (3, "Moderate"),
            CiCategory::Low => (4, "Poor"),
            CiCategory::Poor => (5, "Very poor"),
            CiCategory::ExtremelyPoor => (6, "Extremely poor"),
        }
    }

    /// The EEA's colour for this category's European AQI band ([`CiCategory::eea`]), as a CSS
    /// hex string: the palette of the EEA's European Air Quality Index viewer.
    ///
    /// ```
    /// use aq_core::CiCategory;
    ///
    /// assert_eq!(CiCategory::Excellent.eea_colour(), "#50f0e6");
    /// assert_eq!(CiCategory::ExtremelyPoor.eea_colour(), "#7d2181");
    /// ```
    #[must_use]
    pub fn eea_colour(self) -> &'static str {
        match self {
            CiCategory::Excellent => "#50f0e6",
            CiCategory::Good => "#50ccaa",
            CiCategory::Moderate => "#f0e641",
            CiCategory::Low => "#ff5050",
            CiCategory::Poor => "#960032",
            CiCategory::ExtremelyPoor => "#7d2181",
        }
    }

    /// The display name: `Excellent`, `Good`, `Moderate`, `Low`, `Poor` or `Extremely poor`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CiCategory::Excellent => "Excellent",
            CiCategory::Good => "Good",
            CiCategory::Moderate => "Moderate",
            CiCategory::Low => "Low",
            CiCategory::Poor => "Poor",
            CiCategory::ExtremelyPoor => "Extremely poor",
        }
    }

    /// The display colour as a CSS hex string, green for clean through red for poor and purple
    /// for the floor (the EEA's colour for "Extremely poor").
    #[must_use]
    pub fn colour(self) -> &'static str {
        match self {
            CiCategory::Excellent => "#009e3a",
            CiCategory::Good => "#84cf33",
            CiCategory::Moderate => "#ffd500",
            CiCategory::Low => "#ff8c00",
            CiCategory::Poor => "#e0001b",
            CiCategory::ExtremelyPoor => "#7d2181",
        }
    }

    /// The lowest CI value in this category (0 for both Poor, whose 0 is excluded, and the
    /// floor).
    #[must_use]
    pub fn lower_bound(self) -> f64 {
        match self {
            CiCategory::Excellent => 80.0,
            CiCategory::Good => 60.0,
            CiCategory::Moderate => 40.0,
            CiCategory::Low => 20.0,
            CiCategory::Poor | CiCategory::ExtremelyPoor => 0.0,
        }
    }
}

impl fmt::Display for CiCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Upper limits, in µg/m³, of one pollutant's Good, Fair, Moderate, Poor and Very poor bands.
/// A concentration above the last limit is Extremely poor.
pub type BandLimits = [f64; 5];

/// The concentration bands that turn pollutants into sub-indices. Defaults: the European Air
/// Quality Index of 2024, hourly values. Carbon monoxide has no EAQI band and so does not
/// affect the CI.
///
/// ```
/// use aq_core::{Concentration, Concentrations, EaqiBands, Pollutant};
///
/// let bands = EaqiBands::default();
/// // 10 µg/m³ of PM2.5 is halfway through Fair (5 to 15): sub-index 30, CI 70.
/// let c = Concentrations::default().with(Pollutant::Pm25, Concentration::new(10.0).unwrap());
/// assert_eq!(bands.ci(&c).unwrap().value(), 70.0);
/// // The worst pollutant decides: NO₂ at 60 µg/m³ is the top of Moderate, sub-index 60.
/// let c = c.with(Pollutant::No2, Concentration::new(60.0).unwrap());
/// assert_eq!(bands.ci(&c).unwrap().value(), 40.0);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EaqiBands {
    /// PM2.5 band limits.
    pub pm25: BandLimits,
    /// PM10 band limits.
    pub pm10: BandLimits,
    /// NO₂ band limits.
    pub no2: BandLimits,
    /// O₃ band limits.
    pub o3: BandLimits,
    /// SO₂ band limits.
    pub so2: BandLimits,
}

impl Default for EaqiBands {
    fn default() -> Self {
        Self {
            pm25: [5.0, 15.0, 50.0, 90.0, 140.0],
            pm10: [15.0, 45.0, 120.0, 195.0, 270.0],
            no2: [10.0, 25.0, 60.0, 100.0, 150.0],
            o3: [60.0, 100.0, 120.0, 160.0, 180.0],
            so2: [20.0, 40.0, 125.0, 190.0, 275.0],
        }
    }
}

/// Band limits that are not strictly increasing positive numbers.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("band limits for {pollutant} must be positive and strictly increasing, got {limits:?}")]
pub struct BandsError {
    /// The pollutant whose limits are wrong.
    pub pollutant: Pollutant,
    /// The limits as given.
    pub limits: BandLimits,
}

impl EaqiBands {
    /// The band limits of `pollutant`, or `None` when it has no EAQI band (CO).
    #[must_use]
    pub fn limits(&self, pollutant: Pollutant) -> Option<&BandLimits> {
        match pollutant {
            Pollutant::Pm25 => Some(&self.pm25),
            Pollutant::Pm10 => Some(&self.pm10),
            Pollutant::No2 => Some(&self.no2),
            Pollutant::O3 => Some(&self.o3),
            Pollutant::So2 => Some(&self.so2),
            Pollutant::Co => None,
        }
    }

    /// Checks that every pollutant's limits are positive and strictly increasing; call it on
    /// bands read from configuration.
    ///
    /// # Errors
    /// [`BandsError`] naming the first pollutant whose limits are wrong.
    pub fn validate(&self) -> Result<(), BandsError> {
        for p in Pollutant::ALL {
            if let Some(limits) = self.limits(p) {
                let increasing = limits.windows(2).all(|w| w[0] < w[1]);
                let positive = limits[0] > 0.0 && limits[4].is_finite();
                if !increasing || !positive {
                    return Err(BandsError {
                        pollutant: p,
                        limits: *limits,
                    });
                }
            }
        }
        Ok(())
    }

    /// The sub-index of `pollutant` at `ug_m3`: 0 at zero, 20 at the top of Good, ... 100 at the
    /// top of Very poor, continuing with the Very poor slope above it. `None` for CO.
    #[must_use]
    pub fn sub_index(&self, pollutant: Pollutant, ug_m3: f64) -> Option<f64> {
        self.limits(pollutant)
            .map(|limits| band_sub_index(limits, ug_m3))
    }

    /// The PM2.5 concentration, µg/m³, that alone would give the CI `ci`: the inverse of PM2.5's
    /// sub-index. Route scoring uses it for the inhaled dose where a source gives a CI but no
    /// PM2.5.
    ///
    /// ```
    /// use aq_core::{CleanlinessIndex, EaqiBands};
    ///
    /// let bands = EaqiBands::default();
    /// // CI 70 is sub-index 30, halfway through Fair (5 to 15 µg/m³).
    /// assert_eq!(bands.pm25_equivalent(CleanlinessIndex::new(70.0).unwrap()), 10.0);
    /// assert_eq!(bands.pm25_equivalent(CleanlinessIndex::new(100.0).unwrap()), 0.0);
    /// ```
    #[must_use]
    pub fn pm25_equivalent(&self, ci: CleanlinessIndex) -> f64 {
        let sub = 100.0 - ci.value();
        // Sub-indices 0..=100 map to bands 0..=4; the last band's slope goes on above it.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let band = ((sub / 20.0).floor() as usize).min(self.pm25.len() - 1);
        let lower = if band == 0 { 0.0 } else { self.pm25[band - 1] };
        let upper = self.pm25[band];
        #[allow(clippy::cast_precision_loss)]
        let floor = band as f64 * 20.0;
        lower + (sub - floor) / 20.0 * (upper - lower)
    }

    /// The CI of a set of concentrations: `100 − the worst sub-index`, clamped to [0, 100].
    /// `None` when no pollutant with an EAQI band was measured.
    #[must_use]
    pub fn ci(&self, concentrations: &Concentrations) -> Option<CleanlinessIndex> {
        self.ci_of(&Pollutant::ALL.map(|p| concentrations.get(p).map_or(f64::NAN, |c| c.ug_m3())))
    }

    /// [`EaqiBands::ci`] of readings in µg/m³ given as plain numbers in [`Pollutant::ALL`]
    /// order, for a source that holds them that way and would otherwise build a
    /// [`Concentrations`] only to read it once. A reading that no
    /// [`Concentration`](crate::Concentration) could hold (NaN, negative or infinite) counts as
    /// not measured, as it would be left out of a [`Concentrations`].
    ///
    /// ```
    /// use aq_core::{Concentration, Concentrations, EaqiBands, Pollutant};
    ///
    /// let bands = EaqiBands::default();
    /// // PM2.5, PM10, NO₂, O₃, SO₂, CO: only PM2.5 measured.
    /// let nan = f64::NAN;
    /// let ci = bands.ci_of(&[10.0, nan, nan, nan, nan, nan]);
    /// let c = Concentrations::default().with(Pollutant::Pm25, Concentration::new(10.0).unwrap());
    /// assert_eq!(ci, bands.ci(&c));
    /// // Carbon monoxide has no EAQI band.
    /// assert_eq!(bands.ci_of(&[nan, nan, nan, nan, nan, 300.0]), None);
    /// ```
    #[must_use]
    pub fn ci_of(&self, ug_m3: &[f64; Pollutant::ALL.len()]) -> Option<CleanlinessIndex> {
        // The banded pollutants lead `Pollutant::ALL` in this order (pinned by a test), so each
        // reading pairs with its limits by position.
        let banded = [&self.pm25, &self.pm10, &self.no2, &self.o3, &self.so2];
        let mut worst = f64::NEG_INFINITY;
        for (limits, &value) in banded.into_iter().zip(ug_m3) {
            if crate::Concentration::new(value).is_ok() {
                worst = worst.max(band_sub_index(limits, value));
            }
        }
        (worst > f64::NEG_INFINITY).then(|| CleanlinessIndex::clamped(100.0 - worst))
    }
}

/// Which pollutants must be measured for a CI to be computed at all.
///
/// The EEA computes its European Air Quality Index for a station only when a minimum set of
/// pollutants is measured: NO₂ and particles (PM2.5 or PM10) at traffic stations, and NO₂, O₃
/// and particles at all others. A CI from fewer pollutants can look clean where it is not (a
/// particle sensor by a road knows nothing of the road's NO₂), so station sources apply the
/// traffic rule, the least EEA accepts anywhere, by default. Model fields carry every
/// pollutant and need no rule.
///
/// ```
/// use aq_core::RequiredPollutants;
///
/// let nan = f64::NAN;
/// // PM2.5, PM10, NO₂, O₃, SO₂, CO.
/// let pm_only = [12.0, nan, nan, nan, nan, nan];
/// let pm_and_no2 = [nan, 20.0, 30.0, nan, nan, nan];
/// assert!(RequiredPollutants::Any.met_by(&pm_only));
/// assert!(!RequiredPollutants::EeaTraffic.met_by(&pm_only));
/// assert!(RequiredPollutants::EeaTraffic.met_by(&pm_and_no2));
/// assert!(!RequiredPollutants::EeaBackground.met_by(&pm_and_no2));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequiredPollutants {
    /// Any one pollutant with an EAQI band.
    #[default]
    Any,
    /// NO₂ and particles (PM2.5 or PM10): the EEA's minimum for traffic stations.
    EeaTraffic,
    /// NO₂, O₃ and particles: the EEA's minimum for all other stations.
    EeaBackground,
}

impl RequiredPollutants {
    /// Whether readings in µg/m³, in [`Pollutant::ALL`] order (NaN or negative for not
    /// measured), include the required pollutants.
    #[must_use]
    pub fn met_by(self, ug_m3: &[f64; Pollutant::ALL.len()]) -> bool {
        let has = |p: Pollutant| {
            Pollutant::ALL
                .iter()
                .position(|&q| q == p)
                .is_some_and(|i| crate::Concentration::new(ug_m3[i]).is_ok())
        };
        let particles = has(Pollutant::Pm25) || has(Pollutant::Pm10);
        match self {
            RequiredPollutants::Any => true,
            RequiredPollutants::EeaTraffic => particles && has(Pollutant::No2),
            RequiredPollutants::EeaBackground => {
                particles && has(Pollutant::No2) && has(Pollutant::O3)
            }
        }
    }
}

/// The sub-index of `ug_m3` in `limits`: the band it falls in (the last one for any value above
/// it) times 20, plus its linear position inside that band.
fn band_sub_index(limits: &BandLimits, ug_m3: f64) -> f64 {
    // Limits strictly increase, so the band is the number of tops below the value, at most the
    // last band.
    let band = limits[..limits.len() - 1]
        .iter()
        .take_while(|&&upper| ug_m3 > upper)
        .count();
    let lower = if band == 0 { 0.0 } else { limits[band - 1] };
    let upper = limits[band];
    // Integer band number 0..5 to its sub-index floor 0, 20, ... 80.
    #[allow(clippy::cast_precision_loss)]
    let floor = band as f64 * 20.0;
    floor + 20.0 * (ug_m3 - lower) / (upper - lower)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::pollutant::Concentration;

    fn ci_of(p: Pollutant, v: f64) -> f64 {
        let c = Concentrations::default().with(p, Concentration::new(v).unwrap());
        EaqiBands::default().ci(&c).unwrap().value()
    }

    #[test]
    fn band_edges_map_to_multiples_of_twenty() {
        let bands = EaqiBands::default();
        for p in [
            Pollutant::Pm25,
            Pollutant::Pm10,
            Pollutant::No2,
            Pollutant::O3,
            Pollutant::So2,
        ] {
            let limits = bands.limits(p).unwrap();
            assert_eq!(ci_of(p, 0.0), 100.0);
            for (i, &l) in limits.iter().enumerate() {
                let expected = 100.0 - 20.0 * (i as f64 + 1.0);
                assert!((ci_of(p, l) - expected).abs() < 1e-9, "{p} at {l}");
            }
        }
    }

    #[test]
    fn extremely_poor_clamps_to_zero() {
        assert_eq!(ci_of(Pollutant::Pm25, 500.0), 0.0);
        assert_eq!(ci_of(Pollutant::So2, 275.1), 0.0);
    }

    #[test]
    fn carbon_monoxide_alone_gives_no_ci() {
        let c = Concentrations::default().with(Pollutant::Co, Concentration::new(9000.0).unwrap());
        assert_eq!(EaqiBands::default().ci(&c), None);
        assert_eq!(EaqiBands::default().ci(&Concentrations::default()), None);
    }

    #[test]
    fn categories_and_bounds_agree() {
        for cat in CiCategory::BANDS[1..].iter().copied() {
            assert_eq!(CiCategory::of(cat.lower_bound()), cat);
        }
        assert_eq!(CiCategory::of(79.99), CiCategory::Good);
        assert_eq!(CiCategory::of(19.99), CiCategory::Poor);
        assert_eq!(CiCategory::of(0.01), CiCategory::Poor);
        assert_eq!(CiCategory::of(0.0), CiCategory::ExtremelyPoor);
    }

    #[test]
    fn validate_refuses_unordered_limits() {
        let mut bands = EaqiBands::default();
        assert!(bands.validate().is_ok());
        bands.no2 = [10.0, 5.0, 60.0, 100.0, 150.0];
        let err = bands.validate().unwrap_err();
        assert_eq!(err.pollutant, Pollutant::No2);
    }

    proptest! {
        #[test]
        fn ci_is_in_range_and_falls_as_concentration_rises(
            p in prop::sample::select(vec![Pollutant::Pm25, Pollutant::Pm10, Pollutant::No2,
                                           Pollutant::O3, Pollutant::So2]),
            a in 0.0f64..400.0,
            b in 0.0f64..400.0,
        ) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let (ci_lo, ci_hi) = (ci_of(p, lo), ci_of(p, hi));
            prop_assert!((0.0..=100.0).contains(&ci_lo));
            prop_assert!((0.0..=100.0).contains(&ci_hi));
            prop_assert!(ci_hi <= ci_lo + 1e-9);
        }

        #[test]
        fn adding_a_pollutant_never_raises_the_ci(pm in 0.0f64..200.0, no2 in 0.0f64..200.0) {
            let bands = EaqiBands::default();
            let one = Concentrations::default().with(Pollutant::Pm25, Concentration::new(pm).unwrap());
            let two = one.with(Pollutant::No2, Concentration::new(no2).unwrap());
            prop_assert!(bands.ci(&two).unwrap() <= bands.ci(&one).unwrap());
        }

        /// Both paths give `100 − the worst sub-index` of what was measured, readings no
        /// concentration could hold counting as not measured; the plain-number path meets each
        /// pollutant's own limits.
        #[test]
        fn ci_of_plain_numbers_is_ci_of_their_concentrations(
            readings in prop::collection::vec(
                prop_oneof![
                    4 => 0.0f64..600.0,
                    1 => Just(f64::NAN),
                    1 => Just(f64::INFINITY),
                    1 => -50.0f64..0.0,
                ],
                Pollutant::ALL.len(),
            ),
        ) {
            let bands = EaqiBands::default();
            let mut c = Concentrations::default();
            for (&p, &v) in Pollutant::ALL.iter().zip(&readings) {
                if let Ok(conc) = Concentration::new(v) {
                    c.set(p, conc);
                }
            }
            // The definition, pollutant by pollutant through their own limits.
            let worst = c
                .iter()
                .filter_map(|(p, v)| bands.sub_index(p, v.ug_m3()))
                .reduce(f64::max);
            let want = worst.map(|w| CleanlinessIndex::clamped(100.0 - w));
            let readings: [f64; 6] = readings.try_into().unwrap();
            prop_assert_eq!(bands.ci_of(&readings), want);
            prop_assert_eq!(bands.ci(&c), want);
        }

        #[test]
        fn rounding_stays_in_range(v in -1e6f64..1e6) {
            prop_assert!(round_half_up_0_100(v) <= 100);
        }
    }
}
