//! Typed identifiers, so that a key id can never be passed where an account id is expected.
//!
//! [`typed_id!`](crate::typed_id) makes such a type; the cores above this one use it for their
//! own ids (rules, alert tokens).
//!
//! ```
//! use identity_core::ids::{AccountId, KeyId};
//!
//! let id: KeyId = "6f1f4a5e-0c59-4a44-9d55-1c5bb8b1b1a4".parse().unwrap();
//! assert_eq!(id.to_string(), "6f1f4a5e-0c59-4a44-9d55-1c5bb8b1b1a4");
//! let account = AccountId(id.uuid());
//! assert_eq!(account.uuid(), id.uuid());
//! ```

/// Declares a typed identifier: a `Copy` newtype over a UUID that prints and parses as the
/// hyphenated UUID and serialises as it (`#[serde(transparent)]`).
///
/// The crate that uses it must depend on `uuid` and `serde` (with `derive`).
///
/// ```
/// identity_core::typed_id!(
///     /// An order.
///     OrderId
/// );
/// let id = OrderId(uuid::Uuid::nil());
/// assert_eq!(id.to_string(), "00000000-0000-0000-0000-000000000000");
/// assert_eq!(id.to_string().parse::<OrderId>().unwrap(), id);
/// ```
#[macro_export]
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub uuid::Uuid);

        impl $name {
            /// The underlying UUID.
            #[must_use]
            pub fn uuid(self) -> uuid::Uuid {
                self.0
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Display::fmt(&self.0.hyphenated(), f)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = uuid::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                uuid::Uuid::parse_str(s).map(Self)
            }
        }

        impl From<uuid::Uuid> for $name {
            fn from(u: uuid::Uuid) -> Self {
                Self(u)
            }
        }
    };
}

typed_id!(
    /// A developer account of the dashboard.
    AccountId
);
typed_id!(
    /// An API key's identity (not the secret key itself, which is never stored).
    KeyId
);
