//! What the dashboard shows of the API beside it. The playground scores a request (or plans
//! one), and the
//! maps draw heatmap tiles, exactly as the API answers them; the pages say when the API's data
//! is synthetic. The dashboard says here what it asks, and the server wires the API's own
//! answers in, so that neither adapter imports the other and each rule stays with the API.

use std::time::Duration;

use aq_core::SourceError;
use async_trait::async_trait;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use racs_core::journey_request::{JourneyRequest, PlannedRoutes};
use racs_core::{Limits, ScoreReport, ScoreRequest};

/// Why the API refused a request, as a page shows it: the status and the API's detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The status the API answered with.
    pub status: StatusCode,
    /// What the API said, naming the member at fault.
    pub detail: String,
}

/// The API's answers, as the dashboard asks for them.
#[async_trait]
pub trait ApiAnswers: Send + Sync {
    /// Scores `request` as `POST /insights/v1/cleanest-route` does, with each route's outcome
    /// (its dose among them) beside the response; `headers` are the request's, which carry its
    /// id.
    ///
    /// # Errors
    /// The API's error response.
    async fn score(
        &self,
        headers: &HeaderMap,
        request: ScoreRequest,
    ) -> Result<ScoreReport, Response>;

    /// Plans and scores the routes of `request` as the API does for a planned-route body;
    /// `headers` are the request's, which carry its id.
    ///
    /// # Errors
    /// The API's refusal, for the page to show at the form (among them, 400 when the server
    /// has no streets or a place is off them, 503 when it is busy).
    async fn plan(
        &self,
        headers: &HeaderMap,
        request: JourneyRequest,
    ) -> Result<PlannedRoutes, Refusal>;

    /// The heatmap tile of the path's `z`, `x` and `y.png` (`None` when the path did not
    /// parse) as the API's tile path answers it: `time` from `uri`'s query, the client's copy
    /// from `headers` (`If-None-Match`), and the PNG, 304 or the API's error.
    async fn tile(
        &self,
        path: Option<(String, String, String)>,
        uri: &Uri,
        headers: &HeaderMap,
    ) -> Response;

    /// The API's answer to a client over a limit: 429 with `detail`, and `retry_after` in
    /// `Retry-After`.
    fn rate_limited(&self, detail: String, retry_after: Duration) -> Response;

    /// The API's answer when the air-quality source cannot answer.
    fn source_unavailable(&self, error: &SourceError) -> Response;

    /// Whether the API's air-quality or forecast source is synthetic demo data.
    fn synthetic(&self) -> bool;

    /// The limits the API applies to route-scoring requests.
    fn route_limits(&self) -> &Limits;
}
