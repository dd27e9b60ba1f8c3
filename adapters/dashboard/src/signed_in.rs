//! The signed-in account of a request. The extractor that reads it from the session cookie
//! lives in [`crate::extract`]; the type lives apart so that the page layout, which shows who
//! is signed in, and the extractors, which answer with error pages, need not import each other.

use identity_core::ids::AccountId;

/// The signed-in account of a request, from its session cookie. Pages that need one redirect
/// to the sign-in page without it.
#[derive(Debug, Clone)]
pub(crate) struct SignedIn {
    pub(crate) account: AccountId,
    pub(crate) email: String,
    pub(crate) csrf: String,
    pub(crate) id_hash: String,
}
