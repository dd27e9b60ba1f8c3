//! The extractors every dashboard handler starts with, so that no handler checks a session,
//! a CSRF token or a key's owner by itself:
//!
//! - [`SignedIn`]: the account of the session cookie (pages redirect to sign in without one);
//! - [`Action`]: a signed-in form whose CSRF token is the session's;
//! - [`KeyAction`]: the same, for a form that names one of the account's own live keys;
//! - [`LoginForm`]: the sign-up and sign-in form, with the login CSRF token checked;
//! - [`ChosenKey`]: the key a page is asked to show (`?key=`), well-formed.
//!
//! Forms are read only up to the dashboard's size limit ([`super::MAX_FORM_BYTES`], more for
//! the playground).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use identity_core::ids::KeyId;
use identity_core::ports::ApiKeyInfo;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::form::{self, Common, parse_key};
use super::pages::manage_error;
use super::{cookie, csrf_refused, pages, same_token, session_hash};
use crate::DashboardState;
use crate::signed_in::SignedIn;

impl FromRequestParts<DashboardState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &DashboardState,
    ) -> Result<Self, Response> {
        let dashboard = state.dashboard();
        let to_sign_in = || Redirect::to("/dashboard/signin").into_response();
        let Some(id) = cookie(&parts.headers, dashboard.session_cookie()) else {
            return Err(to_sign_in());
        };
        let id_hash = session_hash(&id);
        let session = dashboard
            .ports
            .sessions
            .session(&id_hash, state.clock().now())
            .await
            .map_err(|e| pages::store_error(&e))?;
        let Some(session) = session else {
            return Err(to_sign_in());
        };
        let email = dashboard
            .ports
            .manager
            .identity()
            .account(session.account_id)
            .await
            .ok()
            .map(|a| a.email)
            .unwrap_or_default();
        Ok(SignedIn {
            account: session.account_id,
            email,
            csrf: session.csrf_secret,
            id_hash,
        })
    }
}

/// A form's body read within the size limit, its common fields and its own.
async fn read_form<F: DeserializeOwned + Send>(
    request: Request,
    state: &DashboardState,
) -> Result<(Common, F), Response> {
    let body = Bytes::from_request(request, state).await.map_err(|e| {
        let status = e.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            pages::error_page(
                status,
                "This form is too large",
                "Shorten what you typed and send it again.",
            )
        } else {
            pages::error_page(
                status,
                "This form could not be read",
                "Go back, reload the page and send the form again.",
            )
        }
    })?;
    form::read(&body).map_err(|_| {
        pages::error_page(
            StatusCode::BAD_REQUEST,
            "This form could not be read",
            "Go back, reload the page and send the form again.",
        )
    })
}

/// The fields of a form that has none besides the common ones.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct NoFields {}

/// A form sent by a signed-in account with its session's CSRF token.
pub(crate) struct Action<F> {
    pub(crate) user: SignedIn,
    pub(crate) form: F,
}

impl<F: DeserializeOwned + Send> FromRequest<DashboardState> for Action<F> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &DashboardState) -> Result<Self, Response> {
        let (mut parts, body) = request.into_parts();
        let user = SignedIn::from_request_parts(&mut parts, state).await?;
        let (common, form) = read_form(Request::from_parts(parts, body), state).await?;
        if !same_token(&common.csrf, &user.csrf) {
            return Err(csrf_refused());
        }
        Ok(Self { user, form })
    }
}

/// A form like [`Action`]'s whose `key` field names a key of the signed-in account. Someone
/// else's key answers exactly like a key that does not exist. Every such form changes the key
/// or sends on its behalf, so a revoked key is refused (409) before the handler runs: nothing
/// is renamed, tested or redelivered for it.
pub(crate) struct KeyAction<F> {
    pub(crate) user: SignedIn,
    pub(crate) key: ApiKeyInfo,
    pub(crate) form: F,
}

impl<F: DeserializeOwned + Send> FromRequest<DashboardState> for KeyAction<F> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &DashboardState) -> Result<Self, Response> {
        let dashboard = state.dashboard();
        let (mut parts, body) = request.into_parts();
        let user = SignedIn::from_request_parts(&mut parts, state).await?;
        let (common, form) = read_form(Request::from_parts(parts, body), state).await?;
        if !same_token(&common.csrf, &user.csrf) {
            return Err(csrf_refused());
        }
        let Some(id) = parse_key(&common.key) else {
            return Err(super::pages::unknown_key());
        };
        let key = dashboard
            .ports
            .manager
            .identity()
            .live_key(user.account, id)
            .await
            .map_err(|e| manage_error(&e.into()))?;
        Ok(Self { user, key, form })
    }
}

/// The key a page is asked to show, from its query string's `key`; `None` when there is none.
/// A malformed key answers like someone else's.
pub(crate) struct ChosenKey(pub(crate) Option<KeyId>);

impl FromRequestParts<DashboardState> for ChosenKey {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &DashboardState) -> Result<Self, Response> {
        let text = form_urlencoded::parse(parts.uri.query().unwrap_or_default().as_bytes())
            .find(|(name, _)| name == "key")
            .map(|(_, value)| value.into_owned())
            .filter(|value| !value.is_empty());
        match text {
            None => Ok(Self(None)),
            Some(text) => parse_key(&text)
                .map(|key| Self(Some(key)))
                .ok_or_else(super::pages::unknown_key),
        }
    }
}

/// The sign-up or sign-in form, sent with the login CSRF token of its page: the token in the
/// form must be the one in the cookie, and the cookie one the server made.
pub(crate) struct LoginForm<F> {
    pub(crate) headers: HeaderMap,
    pub(crate) form: F,
}

impl<F: DeserializeOwned + Send> FromRequest<DashboardState> for LoginForm<F> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &DashboardState) -> Result<Self, Response> {
        let dashboard = state.dashboard();
        let headers = request.headers().clone();
        let (common, form) = read_form(request, state).await?;
        let genuine = cookie(&headers, dashboard.login_cookie())
            .is_some_and(|c| dashboard.ports.csrf_key.genuine(&c) && same_token(&common.csrf, &c));
        if !genuine {
            return Err(csrf_refused());
        }
        Ok(Self { headers, form })
    }
}
