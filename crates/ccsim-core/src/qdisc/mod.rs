//! Queue disciplines, shaped like Linux `Qdisc_ops` (enqueue → verdict,
//! dequeue, peek, backlog). Statistics are kept by the link that owns the
//! qdisc ([`crate::link::QueueStats`]), so an implementation cannot forget
//! them; a qdisc only reports *why* it dropped or marked, through [`QdiscCtx`].

pub mod droptail;

use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Time;

pub use droptail::DropTail;

/// Why a packet was dropped. One counter per reason (Linux-style).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was physically full.
    Overflow,
    /// AQM probabilistic ("unforced") drop.
    Early,
    /// AQM forced drop (e.g. RED average above max_th).
    Forced,
    /// Lost on the wire (random link loss model).
    LinkLoss,
    /// Dropped by a router component.
    Component,
}

impl DropReason {
    pub const ALL: [DropReason; 5] = [
        DropReason::Overflow,
        DropReason::Early,
        DropReason::Forced,
        DropReason::LinkLoss,
        DropReason::Component,
    ];
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::LinkLoss => "link_loss",
            DropReason::Component => "component",
        }
    }
}

/// Why a packet was ECN-marked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MarkReason {
    Early,
    Forced,
}

/// A queue limit. ns-2 convention (baseline.md §0): the limit counts packets
/// waiting, not the one being serialized.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

impl Limit {
    /// Would a queue holding `pkts`/`bytes` still fit one more packet of `size`?
    pub fn admits(self, pkts: usize, bytes: u64, size: u32) -> bool {
        match self {
            Limit::Packets(n) => (pkts as u64) < n,
            Limit::Bytes(n) => bytes + size as u64 <= n,
            Limit::Unlimited => true,
        }
    }
    /// Is a backlog of `pkts`/`bytes` within the limit?
    pub fn holds(self, pkts: usize, bytes: u64) -> bool {
        match self {
            Limit::Packets(n) => pkts as u64 <= n,
            Limit::Bytes(n) => bytes <= n,
            Limit::Unlimited => true,
        }
    }
}

/// What a qdisc may use and report during one operation.
pub struct QdiscCtx<'a> {
    pub now: Time,
    pub rng: &'a mut Rng,
    /// Packets the operation dropped (the arriving one or others), with reasons.
    pub drops: &'a mut Vec<(Packet, DropReason)>,
    /// Marks applied during the operation.
    pub marks: &'a mut Vec<MarkReason>,
}

/// A queue discipline (Linux `Qdisc_ops` shape).
pub trait Qdisc: Send {
    /// Short kind name ("droptail", "red", ...).
    fn kind(&self) -> &'static str;
    /// Accept `pkt` or drop it (or another packet) by pushing onto `cx.drops`.
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx);
    /// Next packet to transmit, if any.
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet>;
    fn peek(&self) -> Option<&Packet>;
    /// Packets waiting (excluding the one in transmission).
    fn backlog_packets(&self) -> usize;
    fn backlog_bytes(&self) -> u64;
    fn limit(&self) -> Limit;
    /// Mechanism state worth tracing (e.g. RED's average queue), by name.
    fn trace(&self) -> Option<(&'static str, f64)> {
        None
    }
}

/// Queue kinds a scenario may name.
pub const KINDS: &[&str] = &["droptail"];

/// Builds a queue discipline of a validated kind.
pub fn build(kind: &str, limit: Limit) -> Box<dyn Qdisc> {
    match kind {
        "droptail" => Box::new(DropTail::new(limit)),
        other => unreachable!("unvalidated qdisc kind {other}"),
    }
}
