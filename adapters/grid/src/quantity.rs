//! The quantities a grid holds, and what a point's values of them give.

use aq_core::pollen_day::PollenCounts;
use aq_core::{
    AirSample, CleanlinessIndex, Concentration, Concentrations, EaqiBands, Plant, PollenType,
    Pollutant,
};

/// A quantity held on the grid: one of the six pollutants (µg/m³), one pollen type (grains/m³,
/// the sum of its plants), or one plant's pollen (grains/m³).
///
/// Types and plants are both kept: alerts read the three types alone, the pollen lookup the
/// plants too. Grass has one plant, so the grass plant is the grass type's layer
/// ([`Quantity::index`] of `Plant(Plant::Grass)` is that of `Pollen(PollenType::Grass)`), and
/// batches written before plants were kept, which hold types alone, read as before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quantity {
    /// A pollutant's mass concentration in µg/m³.
    Pollutant(Pollutant),
    /// A pollen type's grain count in grains/m³, the sum of its plants'.
    Pollen(PollenType),
    /// A plant's grain count in grains/m³.
    Plant(Plant),
}

/// How many quantities there are.
pub const N_QUANTITIES: usize = 14;

impl Quantity {
    /// Every quantity, in [`Quantity::index`] order: the pollutants in [`Pollutant::ALL`]
    /// order, the pollen types in [`PollenType::ALL`] order, then the plants other than grass
    /// in [`Plant::ALL`] order.
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
        Quantity::Plant(Plant::Alder),
        Quantity::Plant(Plant::Birch),
        Quantity::Plant(Plant::Olive),
        Quantity::Plant(Plant::Mugwort),
        Quantity::Plant(Plant::Ragweed),
    ];

    /// The quantity's name in the grid store's keys and manifests: `pm25`, `pm10`, `no2`, `o3`,
    /// `so2`, `co`, `tree`, `grass`, `weed`, or the plant's code (`alder`, `birch`, `olive`,
    /// `mugwort`, `ragweed`; the grass plant is `grass`).
    #[must_use]
    pub fn name(self) -> &'static str {
        const NAMES: [&str; N_QUANTITIES] = [
            "pm25", "pm10", "no2", "o3", "so2", "co", "tree", "grass", "weed", "alder", "birch",
            "olive", "mugwort", "ragweed",
        ];
        NAMES[self.index()]
    }

    /// The quantity named `name` (see [`Quantity::name`]).
    ///
    /// ```
    /// use aq_core::{Plant, PollenType};
    /// use aq_grid::Quantity;
    ///
    /// for q in Quantity::ALL {
    ///     assert_eq!(Quantity::from_name(q.name()), Some(q));
    /// }
    /// assert_eq!(Quantity::from_name("birch"), Some(Quantity::Plant(Plant::Birch)));
    /// assert_eq!(Quantity::from_name("grass"), Some(Quantity::Pollen(PollenType::Grass)));
    /// // The grass plant is the grass type's layer.
    /// assert_eq!(Quantity::Plant(Plant::Grass).name(), "grass");
    /// assert_eq!(Quantity::from_name("pm1"), None);
    /// ```
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|q| q.name() == name)
    }

    /// Position in [`Quantity::ALL`]: the pollutants first in [`Pollutant::ALL`] order, then
    /// the pollen types in [`PollenType::ALL`] order, then the plants; the grass plant's is the
    /// grass type's.
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Quantity::Pollutant(p) => Pollutant::ALL
                .iter()
                .position(|&q| q == p)
                .unwrap_or_default(),
            Quantity::Pollen(t) => 6 + t as usize,
            Quantity::Plant(p) => match p {
                Plant::Grass => Quantity::Pollen(PollenType::Grass).index(),
                Plant::Alder => 9,
                Plant::Birch => 10,
                Plant::Olive => 11,
                Plant::Mugwort => 12,
                Plant::Ragweed => 13,
            },
        }
    }

    /// Whether the quantity is pollen, of a type or a plant.
    #[must_use]
    pub fn is_pollen(self) -> bool {
        !matches!(self, Quantity::Pollutant(_))
    }
}

/// Which quantities a sample reads, by [`Quantity::index`]: the others are left missing.
pub(crate) type Wanted = [bool; N_QUANTITIES];

/// The six pollutants: what the index and the concentrations are made of.
pub(crate) const POLLUTANTS: Wanted = wanted(0, 6);

/// The three pollen types: what alerts compare.
pub(crate) const POLLEN: Wanted = wanted(6, 9);

/// The pollen types and the plants: what the pollen lookup lists.
pub(crate) const POLLEN_AND_PLANTS: Wanted = wanted(6, N_QUANTITIES);

/// The quantities of index `from` to `to` (excluded).
const fn wanted(from: usize, to: usize) -> Wanted {
    let mut set = [false; N_QUANTITIES];
    let mut k = from;
    while k < to {
        set[k] = true;
        k += 1;
    }
    set
}

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
        self.held(Quantity::Pollen(kind))
    }

    /// Grains/m³ of `plant`, when held.
    pub(crate) fn plant(&self, plant: Plant) -> Option<f64> {
        self.held(Quantity::Plant(plant))
    }

    /// The pollen counts of every type and every plant held.
    pub(crate) fn pollen_counts(&self) -> PollenCounts {
        PollenCounts {
            types: PollenType::ALL.map(|kind| self.pollen(kind)),
            plants: Plant::ALL.map(|p| self.plant(p)),
        }
    }

    fn held(&self, quantity: Quantity) -> Option<f64> {
        let v = self.0[quantity.index()];
        (!v.is_nan()).then_some(v)
    }
}
