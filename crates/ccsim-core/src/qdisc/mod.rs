//! Queue disciplines, shaped like Linux `Qdisc_ops` (enqueue → verdict,
//! dequeue, peek, backlog). Statistics are kept by the link that owns the
//! qdisc ([`crate::link::QueueStats`]), so an implementation cannot forget
//! them; a qdisc only reports *why* it dropped or marked, through [`QdiscCtx`].
//!
//! Each discipline reads its own parameter table (`queue = {kind = "red",
//! min_th = 5, ...}`) through [`crate::cfg::Tab`] into a [`QdiscSpec`], so a new
//! discipline brings its keys with it; the spec is then built once per link with
//! what the discipline needs to know of that link ([`LinkInfo`]: rate, delay,
//! resolved limit). Errors found only then (thresholds above the buffer, an
//! infinite buffer for fair queueing) still name the key path.

/// The [`Qdisc`] methods of a discipline that holds its packets in one
/// [`PacketFifo`] field `q` under a [`Limit`] field `limit`: `peek` (the
/// head), the backlog and the limit. `fifo_methods!(plain)` adds a plain
/// FIFO's `dequeue` (the head, no decision) and `passes_idle` (an arrival to
/// an idle link only passes through), for disciplines that decide everything
/// at enqueue.
macro_rules! fifo_methods {
    () => {
        fn peek(&self) -> Option<&Packet> {
            self.q.front()
        }
        fn backlog_packets(&self) -> usize {
            self.q.len()
        }
        fn backlog_bytes(&self) -> u64 {
            self.q.bytes()
        }
        fn limit(&self) -> Limit {
            self.limit
        }
    };
    (plain) => {
        fifo_methods!();
        fn dequeue(&mut self, _cx: &mut QdiscCtx) -> Option<Packet> {
            self.q.pop()
        }
        fn passes_idle(&self) -> bool {
            true
        }
    };
}

pub mod bmcc;
pub mod codel;
pub mod conv;
pub mod droptail;
pub mod drr;
pub mod foreign;
pub mod fq;
pub mod fq_codel;
pub mod kmin_kmax;
pub mod load_factor;
pub mod ndp;
pub mod pie;
pub mod prio;
pub mod red;
pub mod step;
pub mod vcp;

use crate::cfg::{Res, ScenarioError, Tab};
use crate::packet::{FlowId, Packet};
use crate::rng::Rng;
pub use crate::units::Limit;
use crate::units::{Rate, Time};
use std::sync::Arc;

pub use droptail::DropTail;

/// Defines a reason enum with its list, names and result-column names from one
/// table, so a counter array sized by `COUNT` and indexed by `r as usize` can
/// never disagree with the list of reasons.
macro_rules! reasons {
    ($(#[$m:meta])* $name:ident, $prefix:literal { $($(#[$vm:meta])* $v:ident => $s:literal $(as $col:literal)?),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $v),+ }
        impl $name {
            /// Every reason, in counter (and result column) order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            /// Number of reasons: the length of a counter array.
            pub const COUNT: usize = Self::ALL.len();
            /// Short name ("overflow", "early", ...).
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
            /// Result column of this reason's counter.
            pub fn column(self) -> &'static str {
                match self { $($name::$v => reasons!(@col $prefix, $s $(, $col)?)),+ }
            }
            /// Index into a counter array of length `COUNT`.
            #[inline]
            pub fn index(self) -> usize {
                self as usize
            }
        }
    };
    (@col $prefix:literal, $s:literal) => { concat!($prefix, $s) };
    (@col $prefix:literal, $s:literal, $col:literal) => { $col };
}

reasons! {
    /// Why a packet was dropped. One counter per reason (Linux-style).
    DropReason, "drops_" {
        /// The arriving packet did not fit: the buffer was physically full.
        Overflow => "overflow",
        /// A queued packet was discarded to make room for an arrival (longest-queue
        /// drop of fair queueing, priority discard).
        PushOut => "pushout",
        /// AQM probabilistic ("unforced") drop.
        Early => "early",
        /// AQM forced drop (e.g. RED average above max_th).
        Forced => "forced",
        /// Lost on the wire (random link loss model).
        LinkLoss => "link_loss",
        /// Dropped by a router component.
        Component => "component",
        /// Refused by a switch's shared buffer: the output queue was at its
        /// dynamic threshold (crate::mmu).
        SharedBuffer => "shared_buffer",
        /// Refused by a PFC switch: the input port's headroom was full
        /// (crate::mmu).
        Headroom => "headroom",
    }
}

reasons! {
    /// Why a packet was ECN-marked: CE set instead of a drop (`Early`,
    /// `Forced`), or BMCC's ADPM load signal ECT(0) → ECT(1) (`Adpm`).
    MarkReason, "marks_" {
        /// AQM probabilistic mark (RED `setbit_` on an unforced decision).
        Early => "early",
        /// Deterministic mark (a mechanism's overload signal).
        Forced => "forced",
        /// ADPM load mark (BMCC router, `10` → `01`): not a congestion mark.
        Adpm => "adpm",
        /// A data packet's payload cut to its header by a trimming queue
        /// (NDP, [`ndp`]): not a congestion mark; column `trims`.
        Trim => "trim" as "trims",
    }
}

impl MarkReason {
    /// The mark sets CE (RFC 3168 congestion experienced).
    #[inline]
    pub fn is_ce(self) -> bool {
        !matches!(self, MarkReason::Adpm | MarkReason::Trim)
    }
}

/// A first-in first-out store of packets that keeps its byte count: the queue
/// of DropTail, RED and priority discard (the disciplines decide what enters
/// and leaves; this keeps `len`/`bytes` consistent with the packets held).
#[derive(Default)]
pub struct PacketFifo {
    q: std::collections::VecDeque<Packet>,
    bytes: u64,
}

impl PacketFifo {
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    /// Bytes of the packets held.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Would `limit` admit one more packet of `size`?
    #[inline]
    pub fn admits(&self, limit: Limit, size: u32) -> bool {
        limit.admits(self.q.len(), self.bytes, size)
    }
    /// Appends `pkt`; returns it as stored.
    #[inline]
    pub fn push(&mut self, pkt: Packet) -> &Packet {
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
        self.q.back().expect("just pushed")
    }
    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    /// Removes the packet at position `i` (0 = head).
    pub fn remove(&mut self, i: usize) -> Option<Packet> {
        let p = self.q.remove(i)?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    #[inline]
    pub fn front(&self) -> Option<&Packet> {
        self.q.front()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.q.iter()
    }
}

impl std::ops::Index<usize> for PacketFifo {
    type Output = Packet;
    fn index(&self, i: usize) -> &Packet {
        &self.q[i]
    }
}

/// What a queue discipline may use and report during one operation.
pub struct QdiscCtx<'a> {
    pub now: Time,
    /// The discipline's own random stream (one per queue, see rng.rs).
    pub rng: &'a mut Rng,
    /// Packets the operation dropped (the arriving one or others), with reasons.
    pub drops: &'a mut Vec<(Packet, DropReason)>,
    /// Marks applied during the operation.
    pub marks: &'a mut Vec<MarkReason>,
}

impl QdiscCtx<'_> {
    /// Reports a dropped packet (the wrapper counts it and frees it).
    #[inline]
    pub fn drop(&mut self, pkt: Packet, why: DropReason) {
        self.drops.push((pkt, why));
    }
    /// Reports a mark applied to a packet that stays queued.
    #[inline]
    pub fn mark(&mut self, why: MarkReason) {
        self.marks.push(why);
    }
    /// The congestion signal of a marking queue (DCTCP's step, DCQCN's
    /// Kmin–Kmax) to an arrival: CE on an ECN-capable packet, counted as
    /// `why`; a Not-ECT packet dropped (`Forced`) if `drop_non_ect`, else
    /// let through, as is one already CE. Returns the packet to queue, or
    /// `None` if it was dropped.
    #[inline]
    pub fn mark_or_drop(&mut self, mut pkt: Packet, why: MarkReason, drop_non_ect: bool) -> Option<Packet> {
        if pkt.ecn.is_ect() {
            pkt.ecn = crate::packet::Ecn::Ce;
            self.mark(why);
        } else if pkt.ecn != crate::packet::Ecn::Ce && drop_non_ect {
            self.drop(pkt, DropReason::Forced);
            return None;
        }
        Some(pkt)
    }
}

/// One named value of a discipline's state for the time series, optionally
/// per flow (e.g. fair queueing's per-flow backlog).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TraceValue {
    pub name: &'static str,
    pub flow: Option<FlowId>,
    pub value: f64,
}

impl TraceValue {
    pub fn new(name: &'static str, value: f64) -> TraceValue {
        TraceValue {
            name,
            flow: None,
            value,
        }
    }
    pub fn flow(name: &'static str, flow: FlowId, value: f64) -> TraceValue {
        TraceValue {
            name,
            flow: Some(flow),
            value,
        }
    }
}

/// A queue discipline (Linux `Qdisc_ops` shape).
pub trait Qdisc: Send {
    /// Short kind name ("droptail", "red", ...).
    fn kind(&self) -> &'static str;
    /// Offers `pkt`. Returns the arriving packet as stored if it is queued, or
    /// `None` if it was dropped (pushed onto `cx.drops`). Queued packets dropped
    /// to make room (victims) are pushed onto `cx.drops` too.
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet>;
    /// Next packet to transmit, if any.
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet>;
    /// The packet `dequeue` would return now.
    fn peek(&self) -> Option<&Packet>;
    /// Packets waiting (excluding the one in transmission).
    fn backlog_packets(&self) -> usize;
    fn backlog_bytes(&self) -> u64;
    fn limit(&self) -> Limit;
    /// True if a packet that finds this discipline empty and the transmitter
    /// idle, and that its [`Qdisc::limit`] admits, would be enqueued and dequeued
    /// at once with no other effect: no drop, mark, random draw or change of the
    /// discipline's state beyond the packet's passage. The engine then hands such
    /// a packet straight to the transmitter and counts its passage itself
    /// (arrival, a backlog of one packet, departure), with the same results
    /// (`Sim::cut_through`). Asked once, when the link is built. The default,
    /// `false`, always goes through `enqueue` and `dequeue`; a discipline that
    /// keeps state per arrival (RED's average, DRR's deficits, fair queueing's
    /// round number) keeps it.
    fn passes_idle(&self) -> bool {
        false
    }
    /// `Some(limit)` if this discipline is a plain FIFO whose only decision
    /// is to drop an arrival that does not fit within `limit` (drop-tail):
    /// then where nothing watches the queue the engine serves it as an
    /// event-free FIFO on the link itself (crate::link::Fifo) and this
    /// discipline holds nothing. Asked once, when the run is planned.
    fn fifo_limit(&self) -> Option<Limit> {
        None
    }
    /// Named mechanism state worth tracing (e.g. RED's average queue and
    /// max_p, fair queueing's per-flow backlog), appended to `out`.
    fn trace(&self, _out: &mut Vec<TraceValue>) {}
}

/// What a discipline knows of its link when it is built.
#[derive(Clone, Debug)]
pub struct LinkInfo {
    pub rate: Rate,
    /// Propagation delay of the link.
    pub delay: Time,
    /// The resolved buffer (`limit` key of the queue table).
    pub limit: Limit,
    /// Largest packet the scenario's sources send, bytes (0 if none is known).
    pub max_packet: u64,
    /// Key path of the queue table, for errors found at build time.
    pub path: String,
    /// The link's name (`"R1->R2"`), for errors found while it runs.
    pub name: String,
}

impl LinkInfo {
    /// An error about `key` of this queue table, found when building for this link.
    pub fn error(&self, key: &str, value: impl Into<String>, expected: impl Into<String>) -> ScenarioError {
        ScenarioError {
            path: crate::cfg::join(&self.path, key),
            value: value.into(),
            expected: expected.into(),
        }
    }
    /// The buffer as written, for error messages.
    pub fn limit_str(&self) -> String {
        format!("{:?}", self.limit.label())
    }
}

/// A discipline's validated parameters; instantiated once per link.
pub trait QdiscSpec: Send + Sync + std::fmt::Debug {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>>;
}

type Reader = fn(&mut Tab) -> Res<Arc<dyn QdiscSpec>>;

/// Queue kinds a scenario may name, each with the reader of its parameters.
const READERS: &[(&str, Reader)] = &[
    ("droptail", droptail::read),
    ("red", red::read_red),
    ("ared", red::read_ared),
    ("fq", fq::read),
    ("drr", drr::read),
    ("prio_discard", prio::read),
    ("bmcc", bmcc::read),
    ("step", step::read),
    ("kmin_kmax", kmin_kmax::read),
    ("codel", codel::read),
    ("fq_codel", fq_codel::read),
    ("pie", pie::read),
    ("vcp", vcp::read),
    ("ndp", ndp::read),
    ("python", foreign::read),
];

/// Reads `kind` (default "droptail") and that kind's own keys from a queue table.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    let (_, reader) = t.pick("kind", Some("droptail"), READERS)?;
    reader(t)
}

#[cfg(test)]
pub(crate) mod testutil {
    //! A tiny driver for unit tests: explicit times, captured drops and marks.
    use super::*;
    use crate::packet::{Kind, NodeId};

    pub fn pkt(uid: u64, flow: u32, size: u32) -> Packet {
        Packet::new(uid, FlowId(flow), NodeId(0), NodeId(1), size, Kind::Data, Time::ZERO)
    }

    pub struct Drive<Q: Qdisc + ?Sized = dyn Qdisc> {
        pub q: Box<Q>,
        pub now: Time,
        pub rng: Rng,
        pub drops: Vec<(Packet, DropReason)>,
        pub marks: Vec<MarkReason>,
    }

    impl<Q: Qdisc + ?Sized> Drive<Q> {
        pub fn new(q: Box<Q>) -> Drive<Q> {
            Drive {
                q,
                now: Time::ZERO,
                rng: Rng::new(1, 0),
                drops: Vec::new(),
                marks: Vec::new(),
            }
        }
        /// Enqueues; returns true if the arrival stayed queued.
        pub fn enq(&mut self, mut p: Packet) -> bool {
            p.enq = self.now; // (as the link does)
            let uid = p.uid;
            let mut cx = QdiscCtx {
                now: self.now,
                rng: &mut self.rng,
                drops: &mut self.drops,
                marks: &mut self.marks,
            };
            let stored = self.q.enqueue(p, &mut cx).map(|s| s.uid);
            if let Some(s) = stored {
                assert_eq!(s, uid, "enqueue returns the arriving packet");
            }
            assert!(self.q.limit().holds(self.q.backlog_packets(), self.q.backlog_bytes()));
            stored.is_some()
        }
        pub fn deq(&mut self) -> Option<Packet> {
            let peeked = self.q.peek().map(|p| p.uid);
            let drops = self.drops.len();
            let mut cx = QdiscCtx {
                now: self.now,
                rng: &mut self.rng,
                drops: &mut self.drops,
                marks: &mut self.marks,
            };
            let p = self.q.dequeue(&mut cx);
            if self.drops.len() == drops {
                // (AQMs that drop at dequeue, CoDel, cannot tell which packet
                // will leave before they decide)
                assert_eq!(p.as_ref().map(|p| p.uid), peeked, "peek agrees with dequeue");
            }
            p
        }
        /// Dequeues everything; returns the uids in order.
        pub fn drain(&mut self) -> Vec<u64> {
            let mut out = Vec::new();
            while let Some(p) = self.deq() {
                out.push(p.uid);
            }
            assert_eq!(self.q.backlog_bytes(), 0);
            assert_eq!(self.q.backlog_packets(), 0);
            out
        }
        pub fn dropped(&self) -> Vec<(u64, DropReason)> {
            self.drops.iter().map(|(p, r)| (p.uid, *r)).collect()
        }
        pub fn trace(&self, name: &str) -> f64 {
            let mut v = Vec::new();
            self.q.trace(&mut v);
            v.iter()
                .find(|t| t.name == name && t.flow.is_none())
                .expect("traced")
                .value
        }
    }

    pub fn link(rate: &str, limit: Limit) -> LinkInfo {
        LinkInfo {
            rate: crate::units::parse_rate(rate).unwrap(),
            delay: Time::from_millis(10),
            limit,
            max_packet: 1500,
            path: "q".into(),
            name: "A->B".into(),
        }
    }

    /// Reads a queue table and builds it for `link`.
    pub fn build(v: serde_json::Value, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        let mut t = Tab::new("q".into(), &v)?;
        let spec = read(&mut t)?;
        t.finish()?;
        spec.build(link)
    }
}
