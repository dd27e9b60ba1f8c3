//! One delivery's alerts, as its file holds them: the point, the type and the message of each
//! line, so that a user sees what their webhook was sent without fetching the file. A file may
//! be large; the page reads its first part only and says so.

use alerts_core::ids::Token;
use alerts_core::ndjson::NdjsonDecoder;
use alerts_core::ports::{FileError, FileKey};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use futures::StreamExt;
use identity_core::ids::KeyId;
use maud::html;
use serde::Deserialize;
use uuid::Uuid;

use super::SignedIn;
use super::extract::ChosenKey;
use super::pages::{self, layout, manage_error, unknown_key};
use crate::DashboardState;

/// The most of a file the page reads.
const MOST_BYTES: usize = 256 * 1024;
/// The most lines it shows.
const MOST_LINES: usize = 200;
/// How far back in a key's requests a delivery may be looked up: the deliveries page's list.
const LISTED: usize = 50;

/// The request asked for.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Asked {
    #[serde(default)]
    token: String,
}

/// `GET /dashboard/deliveries/alerts?key=&token=`.
pub(crate) async fn page(
    State(state): State<DashboardState>,
    user: SignedIn,
    ChosenKey(chosen): ChosenKey,
    Query(asked): Query<Asked>,
) -> Response {
    let dashboard = state.dashboard();
    let keys = match dashboard
        .ports
        .manager
        .identity()
        .list_keys(user.account)
        .await
    {
        Ok(keys) => keys,
        Err(e) => return manage_error(&e.into()),
    };
    let Some(key) = chosen.filter(|k| keys.iter().any(|owned| owned.id == *k)) else {
        return unknown_key();
    };
    let Some(token) = Uuid::parse_str(asked.token.trim()).ok().map(Token) else {
        return no_such_request();
    };
    // Only a request of this key's, as the deliveries page lists them.
    let listed = match dashboard.ports.deliveries.list_requests(key, LISTED).await {
        Ok(requests) => requests,
        Err(e) => return pages::store_error(&e),
    };
    let Some(request) = listed.into_iter().find(|r| r.token == token) else {
        return no_such_request();
    };
    let (bytes, whole) = match first_bytes(&state, token).await {
        Ok(read) => read,
        Err(FileError::NotFound) => {
            return page_of(
                &user,
                key,
                html! { p { "This request has no file: it has not been evaluated yet, or its file has expired and been removed." } },
            );
        }
        Err(e) => {
            tracing::warn!(error = %e, "dashboard: an alert file could not be read");
            return pages::error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The file store is unavailable",
                "Nothing was changed. Wait a few seconds and try again.",
            );
        }
    };
    let read: Vec<_> = NdjsonDecoder::new(&bytes[..]).take(MOST_LINES).collect();
    let unreadable = read.iter().filter(|line| line.is_err()).count();
    let lines: Vec<_> = read.into_iter().filter_map(Result::ok).collect();
    let total = request.alerts;
    let body = html! {
        p { "Request " code { (token) } ", received " (request.received_at.format("%Y-%m-%d %H:%M:%S UTC"))
            ": " (counted(request.points, "point")) ", " (counted(total.unwrap_or(lines.len() as u64), "alert")) "." }
        @if unreadable > 0 {
            p.error { (unreadable) " lines of the file could not be read as alerts." }
        }
        @if lines.is_empty() && unreadable == 0 && whole {
            p { "No alert: nothing changed at these points within the rules' horizons." }
        } @else if lines.is_empty() {
            p { "No alert could be shown from the first part of the file; the webhook's file URL holds it whole." }
        } @else {
            table #delivery-alerts {
                thead { tr { th { "Point" } th { "Type" } th { "Alert" } th { "Advice" } } }
                tbody {
                    @for line in &lines {
                        tr {
                            td data-label="Point" { (line.id) }
                            td data-label="Type" { (line.data_type.label()) }
                            td data-label="Alert" { (line.description) }
                            td data-label="Advice" { (line.recommendation) }
                        }
                    }
                }
            }
            @if !whole || total.is_some_and(|t| t > lines.len() as u64) {
                p.hint { "The first " (lines.len()) " alerts of the file; the webhook's file URL holds them all." }
            }
        }
    };
    page_of(&user, key, body)
}

/// Up to [`MOST_BYTES`] of the request's file, cut after its last whole line, and whether that
/// is the whole file.
async fn first_bytes(state: &DashboardState, token: Token) -> Result<(Vec<u8>, bool), FileError> {
    let mut stream = state
        .alerts()
        .files()
        .open(&FileKey::for_token(token))
        .await?;
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.chunks.next().await {
        let chunk = chunk?;
        // A store that cannot stream hands the whole file over as one chunk: keep only what
        // the page reads of it.
        let room = MOST_BYTES - bytes.len();
        bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if chunk.len() >= room {
            let end = bytes
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |at| at + 1);
            bytes.truncate(end);
            return Ok((bytes, false));
        }
    }
    Ok((bytes, true))
}

fn page_of(user: &SignedIn, key: KeyId, body: maud::Markup) -> Response {
    let body = html! {
        p { a href=(format!("/dashboard/deliveries?key={}", key.0)) { "Back to the deliveries" } }
        (body)
    };
    pages::page(
        StatusCode::OK,
        layout("A delivery's alerts", Some(user), &body),
    )
}

fn no_such_request() -> Response {
    pages::error_page(
        StatusCode::NOT_FOUND,
        "No such delivery",
        "This request is not among the key's latest requests. Pick one from the deliveries list.",
    )
}

/// `n` and the noun, in the plural but for one: "1 point", "2 points".
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "point"), "1 point");
        assert_eq!(counted(0, "alert"), "0 alerts");
        assert_eq!(counted(2, "point"), "2 points");
    }
}
