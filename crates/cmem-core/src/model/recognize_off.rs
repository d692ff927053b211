//! Inline-code recognition in a build without the `recognize` feature (the `regex`
//! dependency): the [`Recognizer`] type, so code that only passes a recognizer along
//! (an options field, a query's recognizer) compiles unchanged, but no value of it can
//! be made, and plain text stays text. Asking for a recognizer by its rule names
//! ([`Recognizer::from_names`], as a memory's recorded rule set is read) fails with
//! [`ErrorKind::Unsupported`], naming the feature to turn on. User rules (`add_rule`,
//! `RuleRole`) exist only with the feature: code that writes rules uses recognition
//! itself, and fails to compile where it does so.

use crate::error::{Error, ErrorKind, Result};
use crate::model::run::Run;

/// A recognizer, which this build cannot make: it has no value, so every
/// `Option<Recognizer>` is `None` and every method is unreachable.
#[derive(Debug, Clone)]
pub enum Recognizer {}

impl Recognizer {
    /// Always fails: this build has no recognizer.
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`], naming the rule sets asked for and the feature.
    pub fn from_names(names: &str) -> Result<Self> {
        Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "recognizer rules {names:?}: inline-code recognition needs the `recognize` feature of cmem \
                 (or cmem-core)"
            ),
        ))
    }

    /// Unreachable: no recognizer exists in this build.
    pub fn rule_names(&self) -> Vec<&str> {
        match *self {}
    }

    /// Unreachable: no recognizer exists in this build.
    pub fn recognize(&self, _text: &str) -> Vec<Run> {
        match *self {}
    }

    /// Unreachable: no recognizer exists in this build.
    pub fn recognize_pair(&self, _source: &str, _target: &str) -> (Vec<Run>, Vec<Run>) {
        match *self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_for_rules_names_the_feature() {
        let err = Recognizer::from_names("printf").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        assert!(err.to_string().contains("`recognize` feature"), "{err}");
    }
}
