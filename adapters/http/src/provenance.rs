//! Where the data comes from, said wherever results are read.
//!
//! - Every response of `POST /insights/v1/cleanest-route`, every heatmap tile (API and
//!   dashboard) and every file download carries
//!   `Insights-Data-Source`: the source's name, and `; synthetic` for made-up data (the demo
//!   field), such as `Insights-Data-Source: demo; synthetic`. Route scores name the
//!   air-quality source; alert acceptances and alert files name the forecast source the alerts
//!   are evaluated from (with `--aq-source openaq`, alerts read Open-Meteo's forecasts).
//! - A route response computed from synthetic data also says so in its JSON, in the extension
//!   member `dataSource` ([`DataSourceMember`]).
//! - Every answer of the lookups (`conditions`, `forecast`, `history`, `pollen`) carries the
//!   header of the forecast source they read, and says the same in `metadata.dataSource`.
//! - Every dashboard page shows a banner while the server runs on synthetic data
//!   ([`crate::AppState::demo_data`], which the dashboard asks).

use aq_core::SourceInfo;
use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;

pub use crate::headers::DATA_SOURCE_HEADER;

/// The header value for `info`: its name, then `; synthetic` when the data is made up.
///
/// ```
/// use aq_core::SourceInfo;
/// use insights_http::provenance::header_value;
///
/// assert_eq!(header_value(&SourceInfo::demo("demo")), "demo; synthetic");
/// assert_eq!(header_value(&SourceInfo::real("open-meteo")), "open-meteo");
/// ```
#[must_use]
pub fn header_value(info: &SourceInfo) -> HeaderValue {
    HeaderValue::from_str(&info.label()).unwrap_or(HeaderValue::from_static("unknown"))
}

/// The extension member `dataSource` of a route response scored on synthetic data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct DataSourceMember {
    /// The source's name, such as `demo`.
    pub name: String,
    /// Always `true`: the member is only sent for synthetic data.
    pub synthetic: bool,
    /// What the data is, for showing to people.
    pub notice: String,
}

impl DataSourceMember {
    /// The member for `info`, or `None` for real data.
    #[must_use]
    pub fn of(info: &SourceInfo) -> Option<Self> {
        info.demo.then(|| Self {
            name: info.name.clone(),
            synthetic: true,
            notice: info.attribution.clone().unwrap_or_else(|| {
                "Synthetic demo data: not measurements, not a forecast.".to_owned()
            }),
        })
    }
}

/// What the server tells about its sources, computed once when the state is built.
#[derive(Debug, Clone)]
pub(crate) struct Provenance {
    /// The header of route scores.
    pub(crate) routes: HeaderValue,
    /// The header of alert acceptances and files.
    pub(crate) alerts: HeaderValue,
    /// The point lookups' source (the forecast source, at street level when there are streets).
    pub(crate) lookups: HeaderValue,
    /// The source of the index tiles below street zoom.
    pub(crate) coarse_tiles: HeaderValue,
    /// The JSON member of route responses, when the route source is synthetic.
    pub(crate) member: Option<DataSourceMember>,
    /// Whether any source is synthetic: the dashboard's banner.
    pub(crate) synthetic: bool,
}

impl Provenance {
    pub(crate) fn new(
        routes: &SourceInfo,
        alerts: &SourceInfo,
        lookups: &SourceInfo,
        coarse_tiles: &SourceInfo,
    ) -> Self {
        Self {
            routes: header_value(routes),
            alerts: header_value(alerts),
            lookups: header_value(lookups),
            coarse_tiles: header_value(coarse_tiles),
            member: DataSourceMember::of(routes),
            synthetic: routes.demo || alerts.demo,
        }
    }
}

/// Adds the route source's header to a response of the shared API path that has none yet: a
/// handler that knows better (an alert acceptance) sets its own first.
pub(crate) async fn label_api(
    State(routes): State<HeaderValue>,
    req: Request,
    next: Next,
) -> Response {
    let mut response = next.run(req).await;
    let headers = response.headers_mut();
    if !headers.contains_key(&DATA_SOURCE_HEADER) {
        headers.insert(DATA_SOURCE_HEADER, routes);
    }
    response
}

/// Adds the forecast source's header to every answer of the file path: files hold alerts.
pub(crate) async fn label_files(
    State(alerts): State<HeaderValue>,
    req: Request,
    next: Next,
) -> Response {
    let mut response = next.run(req).await;
    response.headers_mut().insert(DATA_SOURCE_HEADER, alerts);
    response
}

/// Adds the forecast source's header to every answer of the lookups: they read the source
/// alerts are evaluated from.
pub(crate) async fn label_lookups(
    State(alerts): State<HeaderValue>,
    req: Request,
    next: Next,
) -> Response {
    let mut response = next.run(req).await;
    response.headers_mut().insert(DATA_SOURCE_HEADER, alerts);
    response
}
