//! The integration tests of `cmem-core`, one binary (STYLE: tests).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod code_placement;
mod key_props;
mod keys;
mod recognize;
mod score_floors;
mod word_repair_props;
