//! A form's body as the dashboard reads it (`application/x-www-form-urlencoded`): the fields
//! every form carries and the form's own, read from the same bytes. Public so that what any
//! bytes give can be checked apart from a request.

use identity_core::ids::KeyId;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

/// The fields every form carries besides its own.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
pub struct Common {
    /// The CSRF token: the session's once signed in, the login cookie's on the sign-up and
    /// sign-in forms.
    #[serde(default)]
    pub csrf: String,
    /// The key a form acts on, for the forms that name one (see [`parse_key`]).
    #[serde(default)]
    pub key: String,
}

/// Why a form's body cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the form cannot be read: {0}")]
pub struct FormError(String);

/// Reads a form's body: its common fields, and its own as `F`. A field given twice, or a body
/// that is not URL-encoded, is refused.
///
/// ```
/// use insights_dashboard::form::{parse_key, read};
///
/// #[derive(serde::Deserialize)]
/// struct Label {
///     label: String,
/// }
///
/// let body = b"csrf=t0k&key=1b4e28ba-2fa1-11d2-883f-0016d3cca427&label=Fleet+app";
/// let (common, form) = read::<Label>(body).unwrap();
/// assert_eq!((common.csrf.as_str(), form.label.as_str()), ("t0k", "Fleet app"));
/// assert!(parse_key(&common.key).is_some());
/// assert!(read::<Label>(b"csrf=a&csrf=b&label=x").is_err());
/// ```
///
/// # Errors
/// [`FormError`] saying what is wrong.
pub fn read<F: DeserializeOwned>(body: &[u8]) -> Result<(Common, F), FormError> {
    let malformed = |e: serde_urlencoded::de::Error| FormError(e.to_string());
    let common = serde_urlencoded::from_bytes(body).map_err(malformed)?;
    let form = serde_urlencoded::from_bytes(body).map_err(malformed)?;
    Ok((common, form))
}

/// A key id as forms and query strings carry it: a UUID, white space around it ignored.
#[must_use]
pub fn parse_key(text: &str) -> Option<KeyId> {
    Uuid::parse_str(text.trim()).ok().map(KeyId)
}
