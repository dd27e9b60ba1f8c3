//! Why a score-routes request was refused: the one error type that reading, the limits and the
//! departure window all report, so that each can name the field at fault.

use aq_core::FieldError;
use aq_core::json::ReadError;
use thiserror::Error;

/// Why a request body was refused. Both kinds carry a [`FieldError`] whose text is the
/// `detail` of the HTTP error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// Malformed or out-of-range input.
    #[error("{0}")]
    Invalid(FieldError),
    /// More routes or vertices than the [`Limits`] allow. The text names the limit.
    #[error("{0}")]
    TooLarge(FieldError),
    /// The body could not be read from where it was kept, through no fault of the client's.
    #[error("the request could not be read: {0}")]
    Unreadable(String),
}

impl RequestError {
    pub(crate) fn invalid(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::Invalid(FieldError::new(path, problem))
    }

    pub(crate) fn too_large(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::TooLarge(FieldError::new(path, problem))
    }
}

impl From<ReadError> for RequestError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Invalid(field) => Self::Invalid(field),
            ReadError::Io(e) => Self::Unreadable(e.to_string()),
        }
    }
}
