//! The failure of a conformance check: a message for a person reading test output.

use std::fmt;

/// A failed conformance check. Its `Debug` form is the plain message, so a test that
/// returns `Err(failure)` prints it readably.
pub struct Failure(String);

/// What a conformance rule returns.
pub type Outcome = Result<(), Failure>;

impl Failure {
    /// A failure with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Failure(message.into())
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }

    /// The same failure with `context` in front (`context: message`).
    #[must_use]
    pub fn context(self, context: impl fmt::Display) -> Self {
        Failure(format!("{context}: {}", self.0))
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl From<cmem_core::Error> for Failure {
    fn from(e: cmem_core::Error) -> Self {
        Failure(format!("unexpected error ({:?}): {}", e.kind(), e.message_and_causes()))
    }
}

/// Fails with a formatted message unless the condition holds.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::Failure::new(format!($($fmt)+)));
        }
    };
}

/// Fails unless the two values are equal, showing both.
macro_rules! ensure_eq {
    ($left:expr, $right:expr, $($fmt:tt)+) => {
        match (&$left, &$right) {
            (left, right) => {
                if left != right {
                    return Err($crate::Failure::new(format!(
                        "{}\n  actual:   {:?}\n  expected: {:?}",
                        format!($($fmt)+),
                        left,
                        right
                    )));
                }
            }
        }
    };
}

pub(crate) use {ensure, ensure_eq};
