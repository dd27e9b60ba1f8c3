//! Errors in request input that name where the problem is, as a JSON path.

use std::fmt;

use thiserror::Error;

/// A problem with one member of a request: where it is (a JSON path such as
/// `routes[1].polyline[7]`, empty for the whole body) and what is wrong with it.
///
/// Both request types of the API report their validation failures this way, and the HTTP layer
/// shows the [`Display`](fmt::Display) text as the error's `detail`.
///
/// ```
/// use aq_core::FieldError;
///
/// let e = FieldError::new("routes[1].polyline[7]", "latitude 91 is outside [-90, 90]");
/// assert_eq!(e.to_string(), "routes[1].polyline[7]: latitude 91 is outside [-90, 90]");
/// assert_eq!(FieldError::new("", "expected a JSON object").to_string(), "expected a JSON object");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct FieldError {
    /// The JSON path of the offending member; empty for the body as a whole.
    pub path: String,
    /// What is wrong, in words a client developer can act on.
    pub problem: String,
}

impl FieldError {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            problem: problem.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{}: {}", self.path, self.problem)
        }
    }
}
