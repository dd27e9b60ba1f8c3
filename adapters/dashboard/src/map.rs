//! The dashboard's maps: the vendored Leaflet library and the page script that drives it, the
//! heatmap tiles for signed-in users (the API's tiles, with the session in place of a key), the
//! vendored Natural Earth land and borders and GeoNames' major cities drawn on every map, and
//! the optional basemap an operator may configure.
//!
//! Nothing is fetched from outside unless an operator sets a basemap; only then, and only on
//! the pages with a map, does the Content-Security-Policy name the basemap's origin.

use std::sync::LazyLock;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::Response;
use maud::{Markup, html};

use super::limits::{MAP_TILES_PER_ACCOUNT_PER_MINUTE, Verdict};
use super::{CSP, SignedIn};
use crate::DashboardState;

const LEAFLET_JS: &str = include_str!("../vendor/leaflet/leaflet.js");
const LEAFLET_CSS: &str = include_str!("../vendor/leaflet/leaflet.css");
const MAP_JS: &str = include_str!("../assets/map.js");
const TOPOJSON_JS: &str = include_str!("../vendor/topojson-client/topojson-client.min.js");
/// GeoNames' cities of a million people or more (CC BY 4.0), `[name, lat, lon, population]`,
/// the most populous first.
pub(crate) const CITIES_JSON: &str = include_str!("../vendor/geonames-cities/cities.json");

/// Natural Earth's 1:110m countries and land (public domain) and the cities above, as a script
/// that sets `window.insightsWorld` and `window.insightsCities`: the page's policy runs scripts
/// from the server and fetches nothing.
static WORLD_JS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "window.insightsWorld = {};\nwindow.insightsCities = {CITIES_JSON};\n",
        include_str!("../vendor/natural-earth/countries-110m.json"),
    )
});

/// A map background of an operator's choosing (OpenStreetMap's tiles, say), drawn under the
/// heatmap. Off by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Basemap {
    template: String,
    origin: String,
    attribution: String,
}

impl Basemap {
    /// A basemap from a tile URL template over https (or http, for a tile server on the same
    /// network) that names one host and has `{z}`, `{x}` and `{y}`, with the attribution the
    /// tiles' licence asks for.
    ///
    /// ```
    /// use insights_dashboard::Basemap;
    ///
    /// let osm = Basemap::parse(
    ///     "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
    ///     "© OpenStreetMap contributors",
    /// )
    /// .unwrap();
    /// assert_eq!(osm.origin(), "https://tile.openstreetmap.org");
    /// assert!(Basemap::parse("https://tiles.example.org/{z}/{x}.png", "").is_err());
    /// assert!(Basemap::parse("ftp://tiles.example.org/{z}/{x}/{y}.png", "").is_err());
    /// ```
    ///
    /// # Errors
    /// What is wrong with the template, in words for the operator.
    pub fn parse(template: &str, attribution: &str) -> Result<Self, String> {
        let template = template.trim();
        let (scheme, rest) = template
            .split_once("://")
            .ok_or_else(|| format!("basemap_url `{template}` is not an absolute URL"))?;
        if scheme != "https" && scheme != "http" {
            return Err(format!(
                "basemap_url `{template}` must start with https:// (or http://)"
            ));
        }
        let host = rest.split('/').next().unwrap_or_default();
        let host_ok = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
        if !host_ok {
            return Err(format!(
                "basemap_url `{template}` must name one host (letters, digits, dots, hyphens and a port)"
            ));
        }
        for placeholder in ["{z}", "{x}", "{y}"] {
            if !rest.contains(placeholder) {
                return Err(format!(
                    "basemap_url `{template}` has no {placeholder}: write it as https://host/{{z}}/{{x}}/{{y}}.png"
                ));
            }
        }
        if template
            .chars()
            .any(|c| c.is_whitespace() || c == '\'' || c == '"' || c == ';')
        {
            return Err(format!(
                "basemap_url `{template}` has spaces, quotes or semicolons"
            ));
        }
        Ok(Self {
            origin: format!("{scheme}://{host}"),
            template: template.to_owned(),
            attribution: attribution.trim().to_owned(),
        })
    }

    /// The origin the pages with a map may load images from.
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

/// The stylesheet and scripts of a page with a map, and the settings the script reads: where
/// the heatmap tiles are, and the basemap when there is one. Script elements in the body run
/// in order once the elements above them exist.
pub(crate) fn assets(state: &DashboardState) -> Markup {
    let basemap = state.dashboard().ports.basemap.as_ref();
    let streets = state.dashboard().ports.roads.is_some();
    html! {
        link rel="stylesheet" href="/dashboard/assets/leaflet.css";
        div #map-settings hidden
            data-tiles="/dashboard/tiles/{z}/{x}/{y}.png"
            data-streets=[streets.then_some("/dashboard/streets")]
            data-streets-zoom=(super::streets::STREET_ZOOM)
            data-streets-radius=(super::streets::MAX_RADIUS_M)
            data-walk-m-per-s=(racs_core::journey_request::WALK_M_PER_S)
            data-basemap=[basemap.map(|b| b.template.as_str())]
            data-basemap-attribution=[basemap.map(|b| b.attribution.as_str())] {}
        script src="/dashboard/assets/leaflet.js" {}
        script src="/dashboard/assets/topojson-client.js" {}
        script src="/dashboard/assets/world.js" {}
        script src="/dashboard/assets/map.js" {}
    }
}

/// The page's policy with the basemap's origin added to the images it may load, when an
/// operator configured one.
pub(crate) fn allow_basemap(state: &DashboardState, mut response: Response) -> Response {
    let Some(basemap) = state.dashboard().ports.basemap.as_ref() else {
        return response;
    };
    let policy = CSP.replace(
        "img-src 'self' data:",
        &format!("img-src 'self' data: {}", basemap.origin),
    );
    if let Ok(value) = HeaderValue::from_str(&policy) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
    response
}

pub(crate) async fn leaflet_js() -> Response {
    super::pages::asset(LEAFLET_JS, "text/javascript; charset=utf-8")
}

pub(crate) async fn leaflet_css() -> Response {
    super::pages::asset(LEAFLET_CSS, "text/css; charset=utf-8")
}

pub(crate) async fn map_js() -> Response {
    super::pages::asset(MAP_JS, "text/javascript; charset=utf-8")
}

pub(crate) async fn topojson_js() -> Response {
    super::pages::asset(TOPOJSON_JS, "text/javascript; charset=utf-8")
}

pub(crate) async fn world_js() -> Response {
    super::pages::asset(WORLD_JS.as_str(), "text/javascript; charset=utf-8")
}

/// Counts one answer of the maps (a tile, the streets of a view) against the account's
/// allowance; `Err` is the refusal to send instead.
pub(crate) async fn tile_allowance(
    state: &DashboardState,
    user: &SignedIn,
) -> Result<(), Response> {
    let verdict = state
        .dashboard()
        .account_limits
        .map_tile(user.account, state.clock().now())
        .await;
    match verdict {
        Verdict::Allowed => Ok(()),
        Verdict::Unavailable => Err(crate::limits_unavailable()),
        _ => Err(state.api().rate_limited(
            format!(
                "the dashboard's maps may load {MAP_TILES_PER_ACCOUNT_PER_MINUTE} tiles a \
                 minute per account; wait a minute"
            ),
            std::time::Duration::from_secs(60),
        )),
    }
}

/// `GET /dashboard/tiles/{z}/{x}/{y}.png[?time=]`: the API's tile for a signed-in user.
pub(crate) async fn tile(
    State(state): State<DashboardState>,
    user: SignedIn,
    path: Result<Path<(String, String, String)>, PathRejection>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = tile_allowance(&state, &user).await {
        return refused;
    }
    let path = path.ok().map(|Path(path)| path);
    state.api().tile(path, &uri, &headers).await
}
