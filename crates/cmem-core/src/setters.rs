//! The setter macro every options type of the workspace uses.

/// Implements `pub fn FIELD(mut self, value: T) -> Self` (`#[must_use]`, documented
/// "Sets [`FIELD`](Self::FIELD).") for each listed field of a type, so callers chain
/// `X::default().a(1).b(true)`: the one way the workspace writes a setter that only
/// assigns its value to the field of its name. Doc lines written above a field are
/// added to its setter's doc:
///
/// ```
/// #[derive(Debug, Default)]
/// #[non_exhaustive]
/// pub struct Options {
///     /// How many at most.
///     pub limit: usize,
///     /// Whether to fail at once.
///     pub strict: bool,
/// }
///
/// cmem_core::setters!(Options {
///     /// `usize::MAX`: no limit.
///     limit: usize,
///     strict: bool,
/// });
///
/// let o = Options::default().limit(3).strict(true);
/// assert_eq!((o.limit, o.strict), (3, true));
/// ```
///
/// A setter that does more than assign stays written by hand beside the macro's: one that
/// validates or clamps (`PgOptions::pool_size`), converts (`impl Into<String>`, a value
/// wrapped in `Some`), sets several fields, or is named otherwise than its field. Crates
/// that reach core only through the `cmem` facade name it `cmem::setters!`.
#[doc(hidden)]
#[macro_export]
macro_rules! setters {
    ($ty:ident { $($(#[doc = $doc:expr])* $field:ident : $fty:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("Sets [`", stringify!($field), "`](Self::", stringify!($field), ").")]
                $(#[doc = $doc])*
                #[must_use]
                pub fn $field(mut self, value: $fty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}
