//! The API's answers that the dashboard shows: its scores, its tiles, its refusals. The two
//! adapters never import each other; they meet here, where the server wires them.

use std::time::Duration;

use aq_core::SourceError;
use async_trait::async_trait;
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use insights_dashboard::{ApiAnswers, Refusal};
use insights_http::{ApiError, AppState, ErrorCode, RequestId};
use racs_core::journey_request::{JourneyRequest, PlannedRoutes};
use racs_core::{Limits, ScoreReport, ScoreRequest};

/// The API of a state, answering the dashboard beside it.
pub(crate) struct ApiBeside(pub(crate) AppState);

#[async_trait]
impl ApiAnswers for ApiBeside {
    async fn score(
        &self,
        headers: &HeaderMap,
        request: ScoreRequest,
    ) -> Result<ScoreReport, Response> {
        insights_http::score_report(&self.0, &RequestId::of(headers), request)
            .await
            .map_err(IntoResponse::into_response)
    }

    async fn plan(
        &self,
        headers: &HeaderMap,
        request: JourneyRequest,
    ) -> Result<PlannedRoutes, Refusal> {
        insights_http::planned(&self.0, &RequestId::of(headers), request)
            .await
            .map_err(|e| Refusal {
                status: e.code.status(),
                detail: e.detail,
            })
    }

    async fn tile(
        &self,
        path: Option<(String, String, String)>,
        uri: &Uri,
        headers: &HeaderMap,
    ) -> Response {
        insights_http::tile(&self.0, &RequestId::of(headers), path, uri, headers)
            .await
            .into_response()
    }

    fn rate_limited(&self, detail: String, retry_after: Duration) -> Response {
        ApiError {
            code: ErrorCode::RateLimited,
            detail,
            retry_after: Some(retry_after),
        }
        .into_response()
    }

    fn source_unavailable(&self, error: &SourceError) -> Response {
        insights_http::source_unavailable(error).into_response()
    }

    fn synthetic(&self) -> bool {
        self.0.demo_data()
    }

    fn route_limits(&self) -> &Limits {
        &self.0.config().route_limits
    }
}
