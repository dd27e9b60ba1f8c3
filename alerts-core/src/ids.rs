//! Typed identifiers of the alert pipeline, so that a rule id can never be passed where a
//! token is expected. Account and key ids are [`identity_core`]'s.

identity_core::typed_id!(
    /// An alert rule.
    RuleId
);
identity_core::typed_id!(
    /// The token of one alert request: returned by the POST, repeated in the webhook delivery.
    Token
);
