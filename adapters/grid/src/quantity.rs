//! The quantities a grid holds, and what a point's values of them give.

use aq_core::plant::{N_PLANTS, type_sums};
use aq_core::pollen_day::PollenCounts;
use aq_core::{
    AirSample, CleanlinessIndex, Concentration, Concentrations, EaqiBands, Plant, PollenType,
    Pollutant,
};

/// A quantity held on the grid: one of the six pollutants (µg/m³) or one plant's pollen
/// (grains/m³). A pollen type is read as the sum of its plants ([`type_sums`]), so a type's
/// count and its plants' always agree.
///
/// Batches written before the store kept plants hold the tree and weed totals instead
/// ([`Quantity::Total`]); ingest reads them and never writes them, and a type with plants held at an hour
/// is read from its plants. Grass has no total of its own: its one plant is its total, and a
/// `grass` layer of any batch is [`Quantity::Plant`]`(`[`Plant::Grass`]`)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quantity {
    /// A pollutant's mass concentration in µg/m³.
    Pollutant(Pollutant),
    /// A plant's pollen count in grains/m³.
    Plant(Plant),
    /// A pollen type's count in grains/m³, as older batches hold it (tree and weed).
    Total(PollenType),
}

/// How many quantities there are.
pub const N_QUANTITIES: usize = 14;

/// How many quantities ingest writes and a model gives: the pollutants and the plants, which
/// lead [`Quantity::ALL`].
pub const N_WRITTEN: usize = 12;

impl Quantity {
    /// Every quantity, in [`Quantity::index`] order: the pollutants in [`Pollutant::ALL`]
    /// order, the plants in [`Plant::ALL`] order, then the older batches' tree and weed totals.
    pub const ALL: [Quantity; N_QUANTITIES] = [
        Quantity::Pollutant(Pollutant::Pm25),
        Quantity::Pollutant(Pollutant::Pm10),
        Quantity::Pollutant(Pollutant::No2),
        Quantity::Pollutant(Pollutant::O3),
        Quantity::Pollutant(Pollutant::So2),
        Quantity::Pollutant(Pollutant::Co),
        Quantity::Plant(Plant::Alder),
        Quantity::Plant(Plant::Birch),
        Quantity::Plant(Plant::Olive),
        Quantity::Plant(Plant::Grass),
        Quantity::Plant(Plant::Mugwort),
        Quantity::Plant(Plant::Ragweed),
        Quantity::Total(PollenType::Tree),
        Quantity::Total(PollenType::Weed),
    ];

    /// The quantity's name in the grid store's keys and manifests: `pm25`, `pm10`, `no2`, `o3`,
    /// `so2`, `co`, the plant's code (`alder`, `birch`, `olive`, `grass`, `mugwort`,
    /// `ragweed`), `tree` or `weed`.
    #[must_use]
    pub fn name(self) -> &'static str {
        const NAMES: [&str; N_QUANTITIES] = [
            "pm25", "pm10", "no2", "o3", "so2", "co", "alder", "birch", "olive", "grass",
            "mugwort", "ragweed", "tree", "weed",
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
    /// assert_eq!(Quantity::from_name("tree"), Some(Quantity::Total(PollenType::Tree)));
    /// // Grass's total is its one plant.
    /// assert_eq!(Quantity::from_name("grass"), Some(Quantity::Plant(Plant::Grass)));
    /// assert_eq!(Quantity::from_name("pm1"), None);
    /// ```
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|q| q.name() == name)
    }

    /// Position in [`Quantity::ALL`]. `Total(Grass)`, which no batch holds, is the grass
    /// plant's.
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Quantity::Pollutant(p) => Pollutant::ALL
                .iter()
                .position(|&q| q == p)
                .unwrap_or_default(),
            Quantity::Plant(p) => 6 + p.index(),
            Quantity::Total(PollenType::Tree) => N_WRITTEN,
            Quantity::Total(PollenType::Weed) => N_WRITTEN + 1,
            Quantity::Total(PollenType::Grass) => Quantity::Plant(Plant::Grass).index(),
        }
    }

    /// Whether the quantity is pollen, of a plant or a type.
    #[must_use]
    pub fn is_pollen(self) -> bool {
        !matches!(self, Quantity::Pollutant(_))
    }
}

/// Which quantities a sample reads, by [`Quantity::index`]: the others are left missing.
pub(crate) type Wanted = [bool; N_QUANTITIES];

/// The six pollutants: what the index and the concentrations are made of.
pub(crate) const POLLUTANTS: Wanted = wanted(false);

/// The plants and the older batches' pollen totals.
pub(crate) const POLLEN: Wanted = wanted(true);

/// The pollen quantities when `pollen`, else the pollutants.
const fn wanted(pollen: bool) -> Wanted {
    let mut set = [!pollen; N_QUANTITIES];
    let mut k = 6;
    while k < N_QUANTITIES {
        set[k] = pollen;
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

    /// Grains/m³ of `plant`, when held.
    pub(crate) fn plant(&self, plant: Plant) -> Option<f64> {
        let v = self.0[Quantity::Plant(plant).index()];
        (!v.is_nan()).then_some(v)
    }

    /// Grains/m³ of `kind`, when held: the sum of its plants held, or else an older batch's
    /// total.
    pub(crate) fn pollen(&self, kind: PollenType) -> Option<f64> {
        self.pollen_counts().types[kind as usize]
    }

    /// The pollen counts of every plant held and of every type (see [`Quantity`]).
    pub(crate) fn pollen_counts(&self) -> PollenCounts {
        counts(Plant::ALL.map(|p| self.plant(p)), |kind| {
            let v = self.0[Quantity::Total(kind).index()];
            (!v.is_nan()).then_some(v)
        })
    }
}

/// The counts of `plants` ([`Plant::ALL`] order), each type the sum of its plants held, or
/// else `total` of it: the one rule by which the grid reads a pollen type.
pub(crate) fn counts(
    plants: [Option<f64>; N_PLANTS],
    total: impl Fn(PollenType) -> Option<f64>,
) -> PollenCounts {
    let sums = type_sums(plants);
    let types = PollenType::ALL.map(|kind| {
        let held = Plant::of_type(kind).any(|p| plants[p.index()].is_some());
        if held {
            sums[kind as usize]
        } else {
            total(kind)
        }
    });
    PollenCounts { types, plants }
}
