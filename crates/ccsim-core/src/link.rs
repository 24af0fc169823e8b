//! Unidirectional channels: an egress queue discipline, a transmitter that
//! serializes one packet at a time at the link rate, and a propagation pipe.
//!
//! Store-and-forward model of baseline.md §0: a packet of L bits on a link of
//! rate C takes L/C to serialize, then `delay` to propagate. Following htsim,
//! each link keeps at most one pending wakeup per stage (end of the current
//! transmission; arrival of the head of the pipe), so the event queue grows
//! with the number of links, not of packets. Optional Bernoulli loss drops a
//! packet at the end of its serialization ("lost on the wire").

use crate::packet::{LinkId, NodeId, Packet};
use crate::qdisc::{DropReason, MarkReason, Qdisc};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// Per-queue counters kept by the link wrapper around the qdisc.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    /// Packets whose serialization completed (sent onto the wire).
    pub departures: u64,
    pub departure_bytes: u64,
    /// Drops by reason, indexed by [`DropReason::index`].
    pub drops: [u64; DropReason::COUNT],
    pub drop_bytes: u64,
    /// Marks by reason, indexed by [`MarkReason::index`].
    pub marks: [u64; MarkReason::COUNT],
    /// Time the transmitter spent serializing, in ns.
    pub busy_ns: u64,
    /// Integrals of the backlog over time (packet·ns, byte·ns).
    pub len_pkt_ns: u128,
    pub len_byte_ns: u128,
    pub max_pkts: u64,
    pub max_bytes: u64,
}

impl QueueStats {
    pub fn drop_count(&self, r: DropReason) -> u64 {
        self.drops[r.index()]
    }
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }
    pub fn mark_count(&self, r: MarkReason) -> u64 {
        self.marks[r.index()]
    }
    pub fn total_marks(&self) -> u64 {
        self.marks.iter().sum()
    }
    #[inline]
    pub(crate) fn count_drop(&mut self, r: DropReason, bytes: u32) {
        self.drops[r.index()] += 1;
        self.drop_bytes += bytes as u64;
    }
    #[inline]
    pub(crate) fn count_mark(&mut self, r: MarkReason) {
        self.marks[r.index()] += 1;
    }
    /// Counters accumulated since `earlier` (for a measurement window).
    pub fn since(&self, earlier: &QueueStats) -> QueueStats {
        let mut d = self.clone();
        d.arrivals -= earlier.arrivals;
        d.arrival_bytes -= earlier.arrival_bytes;
        d.departures -= earlier.departures;
        d.departure_bytes -= earlier.departure_bytes;
        for (x, e) in d.drops.iter_mut().zip(earlier.drops) {
            *x -= e;
        }
        d.drop_bytes -= earlier.drop_bytes;
        for (x, e) in d.marks.iter_mut().zip(earlier.marks) {
            *x -= e;
        }
        d.busy_ns -= earlier.busy_ns;
        d.len_pkt_ns -= earlier.len_pkt_ns;
        d.len_byte_ns -= earlier.len_byte_ns;
        d
    }
}

pub struct Link {
    pub id: LinkId,
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    /// Probability that a packet is lost on the wire.
    pub loss: f64,
    pub qdisc: Box<dyn Qdisc>,
    /// The packet being serialized and the time its serialization ends.
    pub tx: Option<(Packet, Time)>,
    /// Packets propagating, with their arrival times (non-decreasing).
    pub pipe: VecDeque<(Time, Packet)>,
    /// The loss model's random stream.
    pub rng: Rng,
    /// The queue discipline's random stream (RED's drop decisions).
    pub qrng: Rng,
    pub stats: QueueStats,
    /// Last time the backlog integrals were brought up to date.
    pub last_change: Time,
}

impl Link {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: LinkId,
        name: String,
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: Time,
        loss: f64,
        qdisc: Box<dyn Qdisc>,
        rng: Rng,
        qrng: Rng,
    ) -> Link {
        Link {
            id,
            name,
            from,
            to,
            rate,
            delay,
            loss,
            qdisc,
            tx: None,
            pipe: VecDeque::new(),
            rng,
            qrng,
            stats: QueueStats::default(),
            last_change: Time::ZERO,
        }
    }

    /// Brings the backlog-time integrals up to `now` (call before the backlog changes).
    #[inline]
    pub fn integrate(&mut self, now: Time) {
        let dt = (now - self.last_change).0 as u128;
        if dt > 0 {
            self.stats.len_pkt_ns += dt * self.qdisc.backlog_packets() as u128;
            self.stats.len_byte_ns += dt * self.qdisc.backlog_bytes() as u128;
            self.last_change = now;
        }
    }

    /// Records the backlog maximum (call after the backlog grows).
    #[inline]
    pub fn note_backlog(&mut self) {
        let p = self.qdisc.backlog_packets() as u64;
        let b = self.qdisc.backlog_bytes();
        if p > self.stats.max_pkts {
            self.stats.max_pkts = p;
        }
        if b > self.stats.max_bytes {
            self.stats.max_bytes = b;
        }
    }

    /// Packets inside this link: queued, in transmission, propagating.
    pub fn packets_inside(&self) -> u64 {
        self.qdisc.backlog_packets() as u64 + self.tx.is_some() as u64 + self.pipe.len() as u64
    }
}
