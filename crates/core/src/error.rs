//! Errors a caller can provoke with bad values.

/// What can go wrong when asking a [`Shuffler`](crate::Shuffler) for something impossible.
///
/// ```
/// use fairdeal_core::ShuffleError;
/// let err = ShuffleError::SampleTooLarge { requested: 8, available: 5 };
/// assert_eq!(err.to_string(), "cannot take 8 elements from 5");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShuffleError {
    /// More elements were requested than the input holds (k > N).
    #[error("cannot take {requested} elements from {available}")]
    SampleTooLarge {
        /// How many elements were asked for (k).
        requested: usize,
        /// How many there are (N).
        available: usize,
    },
}
