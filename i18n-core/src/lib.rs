//! The languages the insights engine speaks, and the one catalogue every text people read
//! comes from: the names of categories, indexes, pollen levels and plants, the advice per
//! audience, and the default descriptions of alert messages.
//!
//! The catalogue is a set of [Project Fluent](https://projectfluent.org) files, one per
//! language, compiled into the crate (`locales/*.ftl`): English is the source, and every other
//! file translates the same ids. The lookups answer in it, alert messages are written in it, and
//! the dashboard lists its languages, so that a name is translated once for all three.
//!
//! A text the catalogue does not have in a language falls back to English; a language the
//! catalogue does not have is refused by [`Language::from_tag`] and left to the caller, which
//! answers in English and says so.
//!
//! ```
//! use i18n_core::{Arg, Language};
//!
//! let de = Language::from_tag("de-CH").unwrap();
//! assert_eq!(de, Language::German);
//! assert_eq!(Language::English.text("ci-extremely-poor"), "Extremely poor");
//! // Plurals follow each language's rules: Polish has three forms for whole numbers.
//! let hours = |n| Language::Polish.format("duration-hours", &[("n", Arg::Number(n))]);
//! assert_ne!(hours(2), hours(5));
//! assert_eq!(
//!     Language::English.format("duration-hours", &[("n", Arg::Number(1))]),
//!     "1 hour"
//! );
//! ```
//!
//! The crate reads no files at run time and keeps no state but the catalogue, parsed once.

mod catalogue;
mod language;

pub use catalogue::{Arg, label_id};
pub use language::{Language, UnknownLanguage};
