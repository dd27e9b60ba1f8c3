//! What became of each route: scored, or failed for a reason, and the per-route result code the
//! response reports for it (`racss[].error`).
//!
//! The scorer makes outcomes, the departure search compares them and the response reports them;
//! they live here, below all three.

use std::fmt;

use aq_core::SourceError;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::plan::GranularityProblem;
use crate::score::{InsufficientCoverage, RouteScore};

/// The per-route result code of the spec, serialised as `{"code": ..., "text": ...}` with the
/// spec's texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "ErrorBody")]
pub enum ErrorCode {
    /// 0, `EMPTY`: the RACS was calculated.
    Empty,
    /// 100: not enough air-quality data along the route.
    InsufficientData,
    /// 101: the route's calculation ran out of time.
    TimedOut,
    /// 102: the route is not granular enough (too few vertices, too long a segment).
    NotGranular,
}

impl ErrorCode {
    /// The numeric code: 0, 100, 101 or 102.
    #[must_use]
    pub fn code(self) -> u16 {
        match self {
            Self::Empty => 0,
            Self::InsufficientData => 100,
            Self::TimedOut => 101,
            Self::NotGranular => 102,
        }
    }

    /// The spec's text for the code.
    #[must_use]
    pub fn text(self) -> &'static str {
        match self {
            Self::Empty => "EMPTY",
            Self::InsufficientData => {
                "Insufficient data to calculate RACS for the provided route information"
            }
            Self::TimedOut => "RACS calculation timed out",
            Self::NotGranular => {
                "Provided route information is not sufficient for accurate RACS calculation"
            }
        }
    }

    /// The code with the number `code`, if the spec defines one.
    #[must_use]
    pub fn from_code(code: u16) -> Option<Self> {
        match code {
            0 => Some(Self::Empty),
            100 => Some(Self::InsufficientData),
            101 => Some(Self::TimedOut),
            102 => Some(Self::NotGranular),
            _ => None,
        }
    }
}

/// A route's outcome: `0` and `EMPTY` when it was scored, else the error's code and text.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = RacsError))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ErrorBody {
    code: u16,
    text: String,
}

impl Serialize for ErrorCode {
    // The wire shape of `ErrorBody`, without copying the text into one.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut body = serializer.serialize_struct("ErrorBody", 2)?;
        body.serialize_field("code", &self.code())?;
        body.serialize_field("text", self.text())?;
        body.end()
    }
}

impl TryFrom<ErrorBody> for ErrorCode {
    type Error = String;

    fn try_from(body: ErrorBody) -> Result<Self, Self::Error> {
        Self::from_code(body.code).ok_or_else(|| format!("unknown RACS error code {}", body.code))
    }
}

/// Why a route has no RACS.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteFailure {
    /// The route is not granular enough (error 102).
    NotGranular(GranularityProblem),
    /// The source covers too little of the route's time (error 100).
    InsufficientCoverage(InsufficientCoverage),
    /// The source could not answer. Reported as error 100 (no data to score with), or as 101
    /// when the source itself timed out; the cause is kept here for logs and for a service that
    /// prefers to answer 503 when every route failed this way.
    Source(SourceError),
    /// The route's deadline ([`RacsConfig::route_deadline_ms`]) passed (error 101).
    TimedOut,
}

impl RouteFailure {
    /// The code reported in `racss[].error`.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotGranular(_) => ErrorCode::NotGranular,
            Self::InsufficientCoverage(_) => ErrorCode::InsufficientData,
            Self::Source(SourceError::Timeout) | Self::TimedOut => ErrorCode::TimedOut,
            Self::Source(_) => ErrorCode::InsufficientData,
        }
    }
}

impl fmt::Display for RouteFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotGranular(p) => write!(f, "not granular enough: {p}"),
            Self::InsufficientCoverage(c) => write!(f, "insufficient data: {c}"),
            Self::Source(e) => e.fmt(f),
            Self::TimedOut => f.write_str("the route's deadline passed"),
        }
    }
}

impl std::error::Error for RouteFailure {}

/// What became of one route.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteOutcome {
    /// It has a RACS.
    Scored(RouteScore),
    /// It has none, for this reason.
    Failed(RouteFailure),
}

impl RouteOutcome {
    /// The code reported in `racss[].error`.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Scored(_) => ErrorCode::Empty,
            Self::Failed(f) => f.code(),
        }
    }

    /// The score, if the route has one.
    #[must_use]
    pub fn score(&self) -> Option<&RouteScore> {
        match self {
            Self::Scored(s) => Some(s),
            Self::Failed(_) => None,
        }
    }

    /// The share of the route's time with data, when the source answered.
    #[must_use]
    pub fn coverage(&self) -> Option<f64> {
        match self {
            Self::Scored(s) => Some(s.coverage),
            Self::Failed(RouteFailure::InsufficientCoverage(c)) => Some(c.coverage),
            Self::Failed(_) => None,
        }
    }
}

impl From<Result<RouteScore, RouteFailure>> for RouteOutcome {
    fn from(r: Result<RouteScore, RouteFailure>) -> Self {
        match r {
            Ok(s) => Self::Scored(s),
            Err(f) => Self::Failed(f),
        }
    }
}
