//! Heatmap tiles of the cleanliness index: which part of the world a Web Mercator XYZ tile
//! covers, the coarse grid of places a tile asks its source about, and how the answers become
//! 256 × 256 pixels coloured along the category palette.
//!
//! A tile asks for [`GRID_NODES`] × [`GRID_NODES`] places (every [`GRID_STEP`] pixels, edges
//! included) in one batch, whatever its zoom, so a tile costs one bounded query to a remote
//! source; the pixels between are interpolated. Encoding the pixels as PNG is the HTTP
//! adapter's business.

use std::f64::consts::PI;

use thiserror::Error;

use crate::index::{CiCategory, CleanlinessIndex};
use crate::pollen::PollenLevel;
use crate::position::Position;

/// The width and height of a tile, in pixels.
pub const TILE_SIZE: u32 = 256;
/// The highest zoom served: at zoom 16 a tile is about 600 m across at the equator, finer than
/// any air-quality source resolves.
pub const MAX_ZOOM: u8 = 16;
/// Pixels between two grid nodes.
pub const GRID_STEP: u32 = 16;
/// Grid nodes along each side of a tile, both edges included.
pub const GRID_NODES: u32 = TILE_SIZE / GRID_STEP + 1;
/// The Web Mercator projection stops at this latitude (north and south), where the world
/// becomes a square.
pub const MAX_MERCATOR_LAT: f64 = 85.051_128_779_806_59;

/// A tile's coordinates that are outside the tiling: which one, and its range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{field}: {value} is outside 0..={max}")]
pub struct TileError {
    /// `z`, `x` or `y`.
    pub field: &'static str,
    /// The value given.
    pub value: u64,
    /// The largest value allowed.
    pub max: u64,
}

/// A tile of the XYZ tiling: zoom `z`, column `x` from the antimeridian eastward, row `y`
/// from the north.
///
/// ```
/// use aq_core::tile::TileId;
///
/// let tile = TileId::new(1, 1, 0).unwrap();
/// assert_eq!(tile.to_string(), "1/1/0");
/// // Zoom 1 has two columns and two rows.
/// assert_eq!(TileId::new(1, 2, 0).unwrap_err().to_string(), "x: 2 is outside 0..=1");
/// assert_eq!(TileId::new(17, 0, 0).unwrap_err().to_string(), "z: 17 is outside 0..=16");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileId {
    z: u8,
    x: u32,
    y: u32,
}

impl TileId {
    /// The tile, when `z` is in `0..=16` and `x` and `y` in `0..2^z`.
    ///
    /// # Errors
    /// [`TileError`] naming the first coordinate out of range.
    pub fn new(z: u64, x: u64, y: u64) -> Result<Self, TileError> {
        let zoom = u8::try_from(z)
            .ok()
            .filter(|z| *z <= MAX_ZOOM)
            .ok_or(TileError {
                field: "z",
                value: z,
                max: u64::from(MAX_ZOOM),
            })?;
        let max = (1u64 << zoom) - 1;
        let check = |field, value: u64| {
            u32::try_from(value)
                .ok()
                .filter(|_| value <= max)
                .ok_or(TileError { field, value, max })
        };
        Ok(Self {
            z: zoom,
            x: check("x", x)?,
            y: check("y", y)?,
        })
    }

    /// The zoom.
    #[must_use]
    pub fn z(self) -> u8 {
        self.z
    }

    /// The column.
    #[must_use]
    pub fn x(self) -> u32 {
        self.x
    }

    /// The row.
    #[must_use]
    pub fn y(self) -> u32 {
        self.y
    }

    /// The place at pixel (`px`, `py`) of this tile, counted from its north-west corner;
    /// pixels may be fractional and run from 0 to [`TILE_SIZE`] (the far edges).
    ///
    /// ```
    /// use aq_core::tile::TileId;
    ///
    /// let world = TileId::new(0, 0, 0).unwrap();
    /// let centre = world.position(128.0, 128.0);
    /// assert_eq!((centre.lon(), centre.lat()), (0.0, 0.0));
    /// let corner = world.position(0.0, 0.0);
    /// assert_eq!(corner.lon(), -180.0);
    /// assert!((corner.lat() - aq_core::tile::MAX_MERCATOR_LAT).abs() < 1e-9);
    /// ```
    #[must_use]
    pub fn position(self, px: f64, py: f64) -> Position {
        let n = f64::from(1u32 << self.z);
        let size = f64::from(TILE_SIZE);
        let lon = ((f64::from(self.x) + px / size) / n * 360.0 - 180.0).clamp(-180.0, 180.0);
        let lat = (PI * (1.0 - 2.0 * (f64::from(self.y) + py / size) / n))
            .sinh()
            .atan()
            .to_degrees()
            .clamp(-90.0, 90.0);
        // Both are clamped into range, so the position is always valid.
        Position::new(lon, lat).unwrap_or_else(|_| unreachable_position())
    }

    /// The places of the coarse grid, row by row from the north-west corner:
    /// [`GRID_NODES`]² of them, [`GRID_STEP`] pixels apart, edges included.
    #[must_use]
    pub fn grid(self) -> Vec<Position> {
        let step = f64::from(GRID_STEP);
        (0..GRID_NODES)
            .flat_map(|row| {
                (0..GRID_NODES)
                    .map(move |col| self.position(f64::from(col) * step, f64::from(row) * step))
            })
            .collect()
    }
}

/// Never reached: [`TileId::position`] clamps both coordinates into range first.
fn unreachable_position() -> Position {
    Position::new(0.0, 0.0).unwrap_or_else(|_| unreachable!("0, 0 is a valid position"))
}

impl std::fmt::Display for TileId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.z, self.x, self.y)
    }
}

/// The colour of a CI on the heatmap, as red, green and blue: the category palette
/// ([`CiCategory::colour`]) placed at the middle of each band (10, 30, 50, 70, 90), blended
/// linearly in between and held beyond the outer two, and the floor (0, Extremely poor) in its
/// own colour.
///
/// ```
/// use aq_core::tile::ramp;
///
/// assert_eq!(ramp(90.0), [0x00, 0x9e, 0x3a]); // Excellent's green
/// assert_eq!(ramp(100.0), [0x00, 0x9e, 0x3a]);
/// assert_eq!(ramp(50.0), [0xff, 0xd5, 0x00]); // Moderate's yellow
/// assert_eq!(ramp(5.0), [0xe0, 0x00, 0x1b]); // Poor's red
/// assert_eq!(ramp(0.0), [0x7d, 0x21, 0x81]); // the floor, Extremely poor, in its own purple
/// // Halfway between Low (orange, 30) and Moderate (yellow, 50).
/// assert_eq!(ramp(40.0), [0xff, 0xb1, 0x00]);
/// ```
#[must_use]
pub fn ramp(ci: f64) -> [u8; 3] {
    colour_along(&stops(), ci)
}

/// The ramp's colour, except at the floor: 0 is a category of its own (Extremely poor), not
/// the end of Poor's red, and is drawn in its own colour.
fn colour_along(stops: &Stops, ci: f64) -> [u8; 3] {
    if ci <= 0.0 {
        rgb(CiCategory::ExtremelyPoor.colour())
    } else {
        ramp_along(stops, ci)
    }
}

/// The palette's colours at the middle of each band, dirtiest first.
type Stops = [(f64, [u8; 3]); 5];

fn stops() -> Stops {
    CiCategory::BANDS.map(|c| (c.lower_bound() + 10.0, rgb(c.colour())))
}

fn ramp_along(stops: &Stops, ci: f64) -> [u8; 3] {
    let ci = if ci.is_nan() { 0.0 } else { ci };
    let (first, last) = (stops[0], stops[stops.len() - 1]);
    if ci <= first.0 {
        return first.1;
    }
    if ci >= last.0 {
        return last.1;
    }
    let upper = stops.iter().position(|(at, _)| ci < *at).unwrap_or(1);
    let (a, b) = (stops[upper - 1], stops[upper]);
    let t = (ci - a.0) / (b.0 - a.0);
    let mix = |i: usize| {
        let v = f64::from(a.1[i]) + (f64::from(b.1[i]) - f64::from(a.1[i])) * t;
        // Between two byte values, so in 0..=255.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let byte = v.round() as u8;
        byte
    };
    [mix(0), mix(1), mix(2)]
}

/// `#rrggbb` as bytes; the palette is written that way in one place.
fn rgb(hex: &str) -> [u8; 3] {
    let byte = |i: usize| {
        hex.get(1 + 2 * i..3 + 2 * i)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0)
    };
    [byte(0), byte(1), byte(2)]
}

/// The pixels of a tile, RGBA row by row from the north-west corner (`TILE_SIZE`² × 4 bytes),
/// from the CI at the grid nodes of [`TileId::grid`] (in its order; `None` where the source has
/// no value).
///
/// Each pixel's CI is interpolated bilinearly from the four nodes around its centre, weighing
/// only those that have a value; a pixel whose nearest node has none is transparent, so the
/// coverage's edge is drawn within half a grid step of where it is. Covered pixels are opaque:
/// a map sets the layer's opacity.
///
/// ```
/// use aq_core::tile::{GRID_NODES, TILE_SIZE, render};
/// use aq_core::CleanlinessIndex;
///
/// let nodes = (GRID_NODES * GRID_NODES) as usize;
/// let constant = vec![CleanlinessIndex::new(90.0).ok(); nodes];
/// let pixels = render(&constant);
/// assert_eq!(pixels.len(), (TILE_SIZE * TILE_SIZE * 4) as usize);
/// assert_eq!(&pixels[..4], &[0x00, 0x9e, 0x3a, 0xff]);
/// assert!(render(&vec![None; nodes]).iter().all(|b| *b == 0));
/// // The floor, Extremely poor, in its own purple.
/// let floor = render(&vec![CleanlinessIndex::new(0.0).ok(); nodes]);
/// assert_eq!(&floor[..4], &[0x7d, 0x21, 0x81, 0xff]);
/// ```
#[must_use]
pub fn render(nodes: &[Option<CleanlinessIndex>]) -> Vec<u8> {
    let values: Vec<Option<f64>> = nodes
        .iter()
        .map(|n| n.map(CleanlinessIndex::value))
        .collect();
    let stops = stops();
    paint(&values, |ci| {
        let [r, g, b] = colour_along(&stops, ci);
        [r, g, b, 0xff]
    })
}

/// The pixels of a pollen tile, as [`render`] lays them out, from one pollen type's level at
/// the grid nodes (`None` where the source has no value).
///
/// Levels are interpolated as [`render`] interpolates the CI, then drawn in the colour of the
/// nearest level ([`PollenLevel::colour`]), so that the map shows the level's bands; where the
/// level is None (0) the pixel is transparent, as where the source has no value: a map of a
/// season's end shows only where pollen still flies.
///
/// ```
/// use aq_core::tile::{GRID_NODES, render_pollen};
/// use aq_core::PollenLevel;
///
/// let nodes = (GRID_NODES * GRID_NODES) as usize;
/// let high = render_pollen(&vec![PollenLevel::new(4).ok(); nodes]);
/// assert_eq!(&high[..4], &[0xff, 0x8c, 0x00, 0xff]);
/// assert!(render_pollen(&vec![Some(PollenLevel::NONE); nodes]).iter().all(|b| *b == 0));
/// ```
#[must_use]
pub fn render_pollen(nodes: &[Option<PollenLevel>]) -> Vec<u8> {
    let values: Vec<Option<f64>> = nodes
        .iter()
        .map(|n| n.map(|l| f64::from(l.value())))
        .collect();
    paint(&values, |level| {
        // Between 0 and 5: whole levels round to themselves.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let nearest = level.round().clamp(0.0, 5.0) as u8;
        match PollenLevel::new(nearest) {
            Ok(l) if l != PollenLevel::NONE => {
                let [r, g, b] = rgb(l.colour());
                [r, g, b, 0xff]
            }
            _ => [0, 0, 0, 0],
        }
    })
}

/// Every pixel of a tile from values at the grid nodes: each pixel's value interpolated
/// bilinearly from the four nodes around its centre, weighing only those that have a value, and
/// coloured by `colour`; a pixel whose nearest node has none is transparent, so the coverage's
/// edge is drawn within half a grid step of where it is.
fn paint(nodes: &[Option<f64>], colour: impl Fn(f64) -> [u8; 4]) -> Vec<u8> {
    let side = GRID_NODES as usize;
    let node = |col: usize, row: usize| nodes.get(row * side + col).copied().flatten();
    let size = TILE_SIZE as usize;
    let mut pixels = vec![0u8; size * size * 4];
    let step = f64::from(GRID_STEP);
    for (py, row) in pixels.chunks_exact_mut(size * 4).enumerate() {
        let gy = (py as f64 + 0.5) / step;
        let (r0, fy) = split(gy, side);
        for (px, pixel) in row.chunks_exact_mut(4).enumerate() {
            let gx = (px as f64 + 0.5) / step;
            let (c0, fx) = split(gx, side);
            let nearest = node(c0 + usize::from(fx >= 0.5), r0 + usize::from(fy >= 0.5));
            if nearest.is_none() {
                continue;
            }
            let corners = [
                (node(c0, r0), (1.0 - fx) * (1.0 - fy)),
                (node(c0 + 1, r0), fx * (1.0 - fy)),
                (node(c0, r0 + 1), (1.0 - fx) * fy),
                (node(c0 + 1, r0 + 1), fx * fy),
            ];
            let (sum, weight) = corners
                .iter()
                .filter_map(|(v, w)| v.map(|v| (v * w, *w)))
                .fold((0.0, 0.0), |(s, t), (v, w)| (s + v, t + w));
            let value = if weight > 0.0 {
                sum / weight
            } else {
                nearest.unwrap_or(0.0)
            };
            pixel.copy_from_slice(&colour(value));
        }
    }
    pixels
}

/// A grid coordinate as the cell's first node and the fraction into the cell, the last cell
/// taking the far edge.
fn split(g: f64, side: usize) -> (usize, f64) {
    // Pixel centres lie in 0..TILE_SIZE, so `g` is non-negative and below the last node.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let cell = (g.floor() as usize).min(side - 2);
    (cell, g - cell as f64)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn grid_nodes_lie_on_the_tile_edges() {
        let tile = TileId::new(2, 1, 1).unwrap();
        let grid = tile.grid();
        assert_eq!(grid.len(), (GRID_NODES * GRID_NODES) as usize);
        // Zoom 2, column 1: from -90° to 0°; row 1: from 66.5° N to the equator.
        assert!((grid[0].lon() + 90.0).abs() < 1e-9);
        assert!((grid[0].lat() - 66.513_260_443_111_86).abs() < 1e-9);
        let last = grid[grid.len() - 1];
        assert!(last.lon().abs() < 1e-9 && last.lat().abs() < 1e-9);
    }

    #[test]
    fn a_tile_with_half_its_grid_covered_is_half_transparent() {
        let side = GRID_NODES as usize;
        // The western half of the nodes (columns 0..=8) has a value.
        let nodes: Vec<_> = (0..side * side)
            .map(|i| (i % side <= 8).then(|| CleanlinessIndex::new(30.0).unwrap()))
            .collect();
        let pixels = render(&nodes);
        let alpha = |x: usize, y: usize| pixels[(y * TILE_SIZE as usize + x) * 4 + 3];
        assert_eq!(alpha(10, 100), 0xff);
        assert_eq!(
            alpha(135, 100),
            0xff,
            "within half a step of the last covered node"
        );
        assert_eq!(alpha(137, 100), 0, "nearer an uncovered node");
        assert_eq!(alpha(250, 100), 0);
    }

    proptest! {
        #[test]
        fn every_tile_in_range_is_accepted_and_beyond_it_refused(z in 0u64..=16, fx in 0.0f64..1.0, fy in 0.0f64..1.0) {
            let n = 1u64 << z;
            let (x, y) = ((fx * n as f64) as u64, (fy * n as f64) as u64);
            prop_assert!(TileId::new(z, x, y).is_ok());
            prop_assert_eq!(TileId::new(z, n, y).unwrap_err().field, "x");
            prop_assert_eq!(TileId::new(z, x, n).unwrap_err().field, "y");
            prop_assert_eq!(TileId::new(z + 17, x, y).unwrap_err().field, "z");
        }

        #[test]
        fn the_ramp_is_the_palette_at_band_middles_and_between_neighbours_elsewhere(ci in 0.0f64..=100.0) {
            let colour = ramp(ci);
            let below = CiCategory::of((ci - 10.0).max(0.0));
            let above = CiCategory::of((ci + 10.0).min(100.0));
            let (lo, hi) = (rgb(below.colour()), rgb(above.colour()));
            for i in 0..3 {
                prop_assert!(colour[i] >= lo[i].min(hi[i]) && colour[i] <= lo[i].max(hi[i]));
            }
        }

        #[test]
        fn a_constant_field_renders_one_colour(ci in 0.0f64..=100.0) {
            let nodes = vec![CleanlinessIndex::new(ci).ok(); (GRID_NODES * GRID_NODES) as usize];
            let pixels = render(&nodes);
            let [r, g, b] = ramp(ci);
            prop_assert!(pixels.chunks_exact(4).all(|p| p == [r, g, b, 0xff]));
        }
    }
}
