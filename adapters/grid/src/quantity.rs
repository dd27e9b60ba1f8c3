//! The nine quantities a grid holds, and what a point's values of them give.

use aq_core::{
    AirSample, CleanlinessIndex, Concentration, Concentrations, EaqiBands, PollenType, Pollutant,
};

/// A quantity held on the grid: one of the six pollutants (µg/m³) or one pollen type
/// (grains/m³, the sum of its species). Plants ([`aq_core::Plant`]) are told apart only while
/// the messages are read (docs/cams.md): the store holds types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quantity {
    /// A pollutant's mass concentration in µg/m³.
    Pollutant(Pollutant),
    /// A pollen type's grain count in grains/m³.
    Pollen(PollenType),
}

/// How many quantities there are.
pub const N_QUANTITIES: usize = 9;

impl Quantity {
    /// Every quantity, in [`Quantity::index`] order.
    pub const ALL: [Quantity; N_QUANTITIES] = [
        Quantity::Pollutant(Pollutant::Pm25),
        Quantity::Pollutant(Pollutant::Pm10),
        Quantity::Pollutant(Pollutant::No2),
        Quantity::Pollutant(Pollutant::O3),
        Quantity::Pollutant(Pollutant::So2),
        Quantity::Pollutant(Pollutant::Co),
        Quantity::Pollen(PollenType::Tree),
        Quantity::Pollen(PollenType::Grass),
        Quantity::Pollen(PollenType::Weed),
    ];

    /// The quantity's name in the grid store's keys and manifests: `pm25`, `pm10`, `no2`, `o3`,
    /// `so2`, `co`, `tree`, `grass`, `weed`.
    #[must_use]
    pub fn name(self) -> &'static str {
        const NAMES: [&str; N_QUANTITIES] = [
            "pm25", "pm10", "no2", "o3", "so2", "co", "tree", "grass", "weed",
        ];
        NAMES[self.index()]
    }

    /// The quantity named `name` (see [`Quantity::name`]).
    ///
    /// ```
    /// use aq_grid::Quantity;
    ///
    /// for q in Quantity::ALL {
    ///     assert_eq!(Quantity::from_name(q.name()), Some(q));
    /// }
    /// assert_eq!(Quantity::from_name("pm1"), None);
    /// ```
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|q| q.name() == name)
    }

    /// Position in [`Quantity::ALL`]: the pollutants first in [`Pollutant::ALL`] order, then
    /// the pollen types in [`PollenType::ALL`] order.
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Quantity::Pollutant(p) => Pollutant::ALL
                .iter()
                .position(|&q| q == p)
                .unwrap_or_default(),
            Quantity::Pollen(t) => {
                6 + PollenType::ALL
                    .iter()
                    .position(|&q| q == t)
                    .unwrap_or_default()
            }
        }
    }
}

/// Which quantities a sample reads, by [`Quantity::index`]: the others are left missing.
pub(crate) type Wanted = [bool; N_QUANTITIES];

/// The six pollutants: what the index and the concentrations are made of.
pub(crate) const POLLUTANTS: Wanted = [true, true, true, true, true, true, false, false, false];

/// The three pollen types.
pub(crate) const POLLEN: Wanted = [false, false, false, false, false, false, true, true, true];

/// One point's values of every quantity at one instant; NaN where the grid has none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PointValues(pub(crate) [f64; N_QUANTITIES]);

impl PointValues {
    pub(crate) const MISSING: PointValues = PointValues([f64::NAN; N_QUANTITIES]);

    fn pollutants(&self) -> &[f64; 6] {
        // The pollutants lead; the chunk always exists.
        self.0.first_chunk::<6>().unwrap_or(&[f64::NAN; 6])
    }

    /// The concentrations held, skipping any the core would refuse (negative, not finite).
    pub(crate) fn concentrations(&self) -> Concentrations {
        let mut c = Concentrations::default();
        for (p, &v) in Pollutant::ALL.iter().zip(self.pollutants()) {
            if let Ok(conc) = Concentration::new(v) {
                c.set(*p, conc);
            }
        }
        c
    }

    /// The CI under `bands`, or `None` when no pollutant with an EAQI band has a value.
    pub(crate) fn ci(&self, bands: &EaqiBands) -> Option<CleanlinessIndex> {
        bands.ci_of(self.pollutants())
    }

    /// The sample these values give: the CI and the concentrations behind it.
    pub(crate) fn sample(&self, bands: &EaqiBands) -> Option<AirSample> {
        self.ci(bands).map(|ci| AirSample {
            ci,
            concentrations: Some(self.concentrations()),
        })
    }

    /// Grains/m³ of `kind`, when held.
    pub(crate) fn pollen(&self, kind: PollenType) -> Option<f64> {
        let v = self.0[Quantity::Pollen(kind).index()];
        (!v.is_nan()).then_some(v)
    }
}
