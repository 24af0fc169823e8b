//! TCP: byte-based sender and receiver with one segment size per flow.
//!
//! No connection set-up or tear-down is modelled (as ns-2's one-way agents):
//! the sender starts transmitting at its start time, the receiver answers every
//! data segment. See docs/models/tcp.md for the RFC clauses implemented; the
//! engine drives both ends through [`crate::transport`] (adapters in
//! `transport/tcp.rs`).

pub mod params;
mod receiver;
mod rtt;
pub mod scoreboard;
mod sender;

pub use receiver::{CeEcho, RecvParams, TcpReceiver};
pub use rtt::{Estimator, RttEstimator, RttParams};
pub use sender::{FullAck, LossState, LossWindow, PrrBound, RtoSsthresh, SendLimit, SendParams, TcpSender};

pub use crate::endpoint::EndpointCtx;

/// Sequence number meaning "no data limit".
pub const INFINITE: u64 = crate::packet::WND_UNLIMITED;
