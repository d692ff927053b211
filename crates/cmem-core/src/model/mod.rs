//! What a memory holds: segments as runs of text and codes, their notation and keys,
//! locales, entries and their variants, points in a product's history, version chains,
//! the context of a segment, and the recognizer that finds codes in plain text.

pub mod context;
pub mod diff;
pub mod entry;
pub mod key;
pub mod locale;
pub mod notation;
pub mod point;
#[cfg(feature = "recognize")]
pub mod recognize;
#[cfg(not(feature = "recognize"))]
#[doc(hidden)]
pub mod recognize_off;
pub mod run;
pub mod version;
/// Inline-code recognition; without the `recognize` feature, a stand-in whose
/// `Recognizer` cannot be made and whose `Recognizer::from_names` says so.
#[cfg(not(feature = "recognize"))]
pub use recognize_off as recognize;
