//! `GET /insights/v1/tiles/{z}/{x}/{y}.png`: heatmap tiles, 256 × 256 PNG in the Web Mercator
//! XYZ tiling, of one [`Layer`]: the cleanliness index from the configured air-quality source
//! at one hour (the default), or one pollen type's level from the forecast source on the day
//! that holds that hour (`layer=pollen-tree`, `pollen-grass`, `pollen-weed`).
//!
//! Each tile asks its source once, for the coarse grid of [`aq_core::tile::TileId::grid`];
//! [`aq_core::tile::render`] and [`aq_core::tile::render_pollen`] interpolate the pixels
//! between. The same rendering serves the dashboard's map, which signs in with the session
//! instead of a key.

use std::time::Duration;

use aq_core::air_hour::hour_of;
use aq_core::tile::{TILE_SIZE, TileId, render, render_pollen};
use aq_core::{PollenLevel, PollenType, SampleQuery};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};

use crate::error::{ApiError, source_unavailable};
use crate::extract::{Authenticated, RequestId};
use crate::headers::DATA_SOURCE_HEADER;
use crate::params::Params;
use crate::state::AppState;

/// What a tile shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layer {
    /// The cleanliness index of the hour (`layer=ci`, the default).
    #[default]
    Ci,
    /// One pollen type's level on the day (`layer=pollen-tree`, `pollen-grass`, `pollen-weed`).
    Pollen(PollenType),
}

impl Layer {
    /// Every layer, as `layer=` names them.
    pub const ALL: [Layer; 4] = [
        Layer::Ci,
        Layer::Pollen(PollenType::Tree),
        Layer::Pollen(PollenType::Grass),
        Layer::Pollen(PollenType::Weed),
    ];

    /// The layer's name in `layer=` and in the tile's entity tag.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Ci => "ci",
            Layer::Pollen(PollenType::Tree) => "pollen-tree",
            Layer::Pollen(PollenType::Grass) => "pollen-grass",
            Layer::Pollen(PollenType::Weed) => "pollen-weed",
        }
    }
}

/// What the query string of a tile may hold besides the key.
#[derive(Debug, Default)]
pub struct TileQuery {
    /// The hour asked for, when `time` was given.
    pub time: Option<DateTime<Utc>>,
    /// What the tile shows.
    pub layer: Layer,
}

impl TileQuery {
    /// The query string's `time`, an RFC 3339 instant, and `layer`; any parameter but these
    /// and `key` is refused.
    ///
    /// # Errors
    /// 400 `invalid_request` naming `time` or `layer` when it is given twice or is not such an
    /// instant or layer, or naming a parameter a tile does not take.
    pub fn from_uri(uri: &Uri) -> Result<Self, ApiError> {
        let params = Params::parse(uri, &["key", "time", "layer"])?;
        let layer = match params.get("layer") {
            None => Layer::Ci,
            Some(name) => Layer::ALL
                .into_iter()
                .find(|l| l.as_str() == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = Layer::ALL.iter().map(|l| l.as_str()).collect();
                    ApiError::invalid(format!(
                        "layer: `{name}` is not a tile layer; use one of {}",
                        names.join(", ")
                    ))
                })?,
        };
        let time = params
            .get("time")
            .map(|value| {
                DateTime::parse_from_rfc3339(value).map_err(|e| {
                    ApiError::invalid(format!(
                        "time: `{value}` is not an RFC 3339 instant ({e}); write it as 2026-05-01T08:00:00Z"
                    ))
                })
            })
            .transpose()?
            .map(|t| t.with_timezone(&Utc));
        Ok(Self { time, layer })
    }
}

/// The tile of the path's `z`, `x` and `y.png` (`None` when the path did not parse).
///
/// # Errors
/// 400 `invalid_request` naming the coordinate at fault, or giving the path's form.
pub fn tile_of(path: Option<(String, String, String)>) -> Result<TileId, ApiError> {
    let Some((z, x, y)) = path else {
        return Err(ApiError::invalid(
            "the tile path is /insights/v1/tiles/{z}/{x}/{y}.png",
        ));
    };
    let Some(y) = y.strip_suffix(".png") else {
        return Err(ApiError::invalid(format!(
            "y: `{y}` must end in .png, as in /insights/v1/tiles/{z}/{x}/0.png"
        )));
    };
    let number = |field: &str, text: &str| {
        text.parse::<u64>().map_err(|_| {
            ApiError::invalid(format!(
                "{field}: `{text}` is not a whole number of 0 or more"
            ))
        })
    };
    TileId::new(number("z", &z)?, number("x", &x)?, number("y", y)?)
        .map_err(|e| ApiError::invalid(e.to_string()))
}

/// The PNG of `layer` on `tile` at `hour`: one batch query to the layer's source, then the
/// pixels in between.
///
/// # Errors
/// 503 when the source cannot answer; 500 if the PNG cannot be written.
pub(crate) async fn render_png(
    state: &AppState,
    request_id: &RequestId,
    tile: TileId,
    hour: DateTime<Utc>,
    layer: Layer,
) -> Result<Vec<u8>, ApiError> {
    let pixels = match layer {
        Layer::Ci => ci_pixels(state, tile, hour).await?,
        Layer::Pollen(kind) => pollen_pixels(state, tile, hour, kind).await?,
    };
    encode(&pixels).map_err(|e| ApiError::internal(&request_id.0, &e))
}

/// The lowest zoom whose tiles read the street-level air, when the server has streets: at
/// zoom 14 a tile spans about 2.4 km at the equator (1.2 km at 60°), its grid nodes about
/// 150 m apart or less, so a main road's increment shows as a band; below it, the nodes lie so far
/// apart that those falling near a road would make speckles, and the background is drawn.
pub const STREET_ZOOM: u8 = 14;

/// The CI at the tile's grid nodes at `hour`, drawn.
async fn ci_pixels(
    state: &AppState,
    tile: TileId,
    hour: DateTime<Utc>,
) -> Result<Vec<u8>, ApiError> {
    let queries: Vec<SampleQuery> = tile
        .grid()
        .into_iter()
        .map(|position| SampleQuery {
            position,
            time: hour,
        })
        .collect();
    let source = if tile.z() >= STREET_ZOOM {
        state.scorer().source()
    } else {
        state.coarse_tiles()
    };
    let answers = source
        .sample_ci(&queries)
        .await
        .map_err(|e| source_unavailable(&e))?;
    let answers =
        aq_core::check_batch_len(queries.len(), answers).map_err(|e| source_unavailable(&e))?;
    Ok(render(&answers))
}

/// `kind`'s level at the tile's grid nodes on the day holding `hour` at each, drawn.
async fn pollen_pixels(
    state: &AppState,
    tile: TileId,
    hour: DateTime<Utc>,
    kind: PollenType,
) -> Result<Vec<u8>, ApiError> {
    let grid = tile.grid();
    let answers = state
        .alerts()
        .forecast_source()
        .pollen_days(&grid, hour, 1)
        .await
        .map_err(|e| source_unavailable(&e))?;
    let answers =
        aq_core::check_batch_len(grid.len(), answers).map_err(|e| source_unavailable(&e))?;
    let levels: Vec<Option<PollenLevel>> = answers
        .iter()
        .map(|days| {
            days.as_ref()
                .and_then(|d| d.days.first())
                .and_then(|day| day.get(kind))
                .map(|v| v.level)
        })
        .collect();
    Ok(render_pollen(&levels))
}

/// RGBA pixels of a tile as a PNG. Fast compression: a tile is mostly smooth colour, which
/// compresses well anyway, and the time goes to every request.
fn encode(pixels: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::with_capacity(8 * 1024);
    let mut encoder = png::Encoder::new(&mut out, TILE_SIZE, TILE_SIZE);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(pixels)?;
    writer.finish()?;
    Ok(out)
}

/// The tile's answer: the PNG, or 304 when the client holds this hour's tile already.
/// `Cache-Control` lets it be kept until the end of the current hour (a minute at least), and
/// the `ETag` names the source and the hour shown, which is all a tile's pixels depend on.
pub(crate) fn tile_response(
    state: &AppState,
    hour: DateTime<Utc>,
    layer: Layer,
    tile: TileId,
    png: Option<Vec<u8>>,
) -> Response {
    let street = tile.z() >= STREET_ZOOM;
    let etag = etag(state, hour, layer, street);
    let now = state.clock().now();
    let left = 3600 - now.timestamp().rem_euclid(3600);
    let max_age = Duration::from_secs(u64::try_from(left).unwrap_or(60).max(60));
    let mut response = match png {
        Some(png) => (StatusCode::OK, png).into_response(),
        None => StatusCode::NOT_MODIFIED.into_response(),
    };
    let ok = response.status() == StatusCode::OK;
    let h = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&format!("private, max-age={}", max_age.as_secs())) {
        h.insert(header::CACHE_CONTROL, v);
    }
    if ok {
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    }
    // A CI tile is the route source's index, so it names that source as route scores do; a
    // pollen tile names the forecast source, as the pollen lookup does.
    let source = match layer {
        Layer::Ci if street => state.provenance().routes.clone(),
        Layer::Ci => state.provenance().coarse_tiles.clone(),
        Layer::Pollen(_) => state.provenance().alerts.clone(),
    };
    h.insert(DATA_SOURCE_HEADER, source);
    response
}

/// The entity tag of every tile of `layer` at `hour`, at street zoom or below it.
fn etag(state: &AppState, hour: DateTime<Utc>, layer: Layer, street: bool) -> String {
    let source = match layer {
        Layer::Ci if street => state.scorer().source_info().name,
        Layer::Ci => state.coarse_tiles().info().name,
        Layer::Pollen(_) => state.alerts().forecast_source().info().name,
    };
    let source: String = source
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    format!(
        "\"{}-{source}-{}\"",
        layer.as_str(),
        hour.format("%Y%m%dT%H")
    )
}

/// True when the client's `If-None-Match` holds the tag of `tile` of `layer` at `hour`.
pub(crate) fn unchanged(
    state: &AppState,
    headers: &HeaderMap,
    hour: DateTime<Utc>,
    layer: Layer,
    tile: TileId,
) -> bool {
    let etag = etag(state, hour, layer, tile.z() >= STREET_ZOOM);
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == etag || t == "*")
}

/// The API's tile handler: key and rate (checked by [`Authenticated`]), coordinates, time,
/// then the picture.
pub(crate) async fn tile(
    State(state): State<AppState>,
    request_id: RequestId,
    _key: Authenticated,
    path: Result<Path<(String, String, String)>, PathRejection>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let path = path.ok().map(|Path(path)| path);
    answer(&state, &request_id, path, &uri, &headers).await
}

/// A tile for a caller who may have it (checked by the route, or by the dashboard's session):
/// its coordinates (the path's `z`, `x` and `y.png`; `None` when the path did not parse) and
/// hour from the request, 304 when the client's copy is current, else the rendered PNG.
///
/// # Errors
/// 400 naming the coordinate or `time` at fault, 503 when the source cannot answer.
pub async fn answer(
    state: &AppState,
    request_id: &RequestId,
    path: Option<(String, String, String)>,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let tile = tile_of(path)?;
    let query = TileQuery::from_uri(uri)?;
    let hour = hour_of(query.time.unwrap_or_else(|| state.clock().now()));
    if unchanged(state, headers, hour, query.layer, tile) {
        return Ok(tile_response(state, hour, query.layer, tile, None));
    }
    let png = render_png(state, request_id, tile, hour, query.layer).await?;
    Ok(tile_response(state, hour, query.layer, tile, Some(png)))
}
