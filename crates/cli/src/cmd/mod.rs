//! One module per subcommand, each with `Args` (clap) and `run`.

pub(crate) mod audit;
pub(crate) mod blackjack;
pub(crate) mod compare;
pub(crate) mod fairness;
pub(crate) mod heatmap;
pub(crate) mod listing;
pub(crate) mod merge;
pub(crate) mod poker;
pub(crate) mod shard;
pub(crate) mod shuf;
pub(crate) mod shuffle;
