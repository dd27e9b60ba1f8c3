//! The alert request (operation 1): the points to evaluate.

use aq_core::Position;
use serde::{Deserialize, Serialize};

/// One point of an alert request: where, the customer's label, and the customer's own data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertPoint {
    /// Where the point is.
    pub position: Position,
    /// The customer's label, echoed in the output file (a JSON number is kept as its text).
    pub id: String,
    /// The customer's `custom_data` object as JSON text, echoed in the output file; `{}` when
    /// none was given.
    pub custom_data: String,
}
