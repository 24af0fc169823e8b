//! Unidirectional channels: an egress queue discipline, a transmitter that
//! serializes one packet at a time at the link rate, and a propagation pipe.
//!
//! Store-and-forward (docs/models/links-and-queues.md, "Conventions"): a
//! packet of L bits on a link of rate C takes L/C to serialize, then `delay`
//! to propagate. Following htsim, each link keeps at most one pending wakeup
//! per stage, so the event queue grows with the number of links, not of
//! packets:
//!
//! * the transmitter knows when it is next free (`busy_until`). A packet that
//!   starts its serialization goes straight into the propagation pipe with its
//!   arrival time (end of serialization + delay); the end of a serialization
//!   needs a wakeup only when packets are waiting behind it, to dequeue the next
//!   one at that instant. On a link that does not queue, a packet costs one
//!   event (its arrival), not two.
//! * the pipe's head has one pending arrival event.
//! * a packet that finds the queue empty and the transmitter idle goes straight
//!   to the transmitter when the discipline says it would only pass through
//!   (`Qdisc::passes_idle`, DropTail and priority discard): the engine counts
//!   its arrival and a backlog of one packet itself (`Sim::cut_through`).
//! * the packets on the wires live in one [`Slab`] of the engine; a pipe holds
//!   (arrival time, slot) pairs. A packet enters the slab when it is created
//!   or leaves a queue, and stays in its slot from hop to hop while it cuts
//!   through the next queue; it leaves the slab when it is queued (disciplines
//!   hold packets by value), shown to a node's components, or delivered.
//!
//! What happens at the end of a serialization (the departure counters, busy
//! time, a loss on the wire) is accounted lazily by [`Link::settle`], at the next
//! start of service or when the statistics are read, exactly as if it had been
//! done at that instant. Optional Bernoulli loss drops a packet at the end of
//! its serialization ("lost on the wire"); the draw is made when the
//! serialization starts, from the link's own stream, in the same order.

use crate::hist::LogHist;
use crate::packet::{LinkId, NodeId};
use crate::qdisc::{DropReason, MarkReason, Qdisc};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use std::collections::VecDeque;

mod fifo;
mod slab;
mod table;
pub use fifo::{lead, Accounts, Admitted, Fifo, Serve};
pub use slab::Slab;
pub use table::queues_table;

/// Per-queue counters kept by the link wrapper around the qdisc.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub arrivals: u64,
    /// Packets whose serialization completed (sent onto the wire).
    pub departures: u64,
    pub departure_bytes: u64,
    /// Drops by reason, indexed by [`DropReason::index`].
    pub drops: [u64; DropReason::COUNT],
    /// Marks by reason, indexed by [`MarkReason::index`].
    pub marks: [u64; MarkReason::COUNT],
    /// Integrals of the backlog over time (packet·ns, byte·ns).
    pub len_pkt_ns: u128,
    pub len_byte_ns: u128,
    pub max_pkts: u64,
    pub max_bytes: u64,
    /// Sojourn times (dequeue − enqueue) of the packets that left the queue
    /// for the transmitter; a packet that cut through an idle link counts 0.
    pub sojourn: LogHist,
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
    /// CE marks (ADPM's ECT(1) load marks are counted apart, as `Adpm`).
    pub fn total_marks(&self) -> u64 {
        MarkReason::ALL
            .iter()
            .filter(|r| r.is_ce())
            .map(|r| self.marks[r.index()])
            .sum()
    }
    #[inline]
    pub(crate) fn count_drop(&mut self, r: DropReason) {
        self.drops[r.index()] += 1;
    }
    #[inline]
    pub(crate) fn count_mark(&mut self, r: MarkReason) {
        self.marks[r.index()] += 1;
    }
    /// Counters accumulated since `earlier` (for a measurement window).
    pub fn since(&self, earlier: &QueueStats) -> QueueStats {
        let mut d = self.clone();
        d.arrivals -= earlier.arrivals;
        d.departures -= earlier.departures;
        d.departure_bytes -= earlier.departure_bytes;
        for (x, e) in d.drops.iter_mut().zip(earlier.drops) {
            *x -= e;
        }
        for (x, e) in d.marks.iter_mut().zip(earlier.marks) {
            *x -= e;
        }
        d.len_pkt_ns -= earlier.len_pkt_ns;
        d.len_byte_ns -= earlier.len_byte_ns;
        d.sojourn = self.sojourn.since(&earlier.sojourn);
        d
    }
}

/// Whether a queue of `len` entries with room for `cap` should give back
/// most of its memory: it holds less than an eighth of what it has room
/// for, and room for more than `keep`.
///
/// A link's pipe, and a FIFO link's record of its packets, grow to the most
/// packets the link ever held, and a flow's access link holds its whole
/// window in slow start. With thousands of flows the windows of the past
/// would otherwise be kept for the rest of the run, many times the packets
/// in flight at any one time. So a queue with room for more than
/// [`KEEP_BUSY`] gives back three quarters as it drains ([`shrink`], checked
/// at each departure), and every queue is cut to twice what it holds, at
/// least [`KEEP`], at the engine's periodic tidy ([`Link::tidy`]): a queue
/// whose length swings by a few dozen packets every round trip would
/// otherwise be reallocated every round trip.
#[inline]
pub fn too_roomy(len: usize, cap: usize, keep: usize) -> bool {
    cap > keep && len * 8 < cap
}

/// The room a queue keeps at the engine's tidy: twice what it holds (a
/// power of two), at least [`KEEP`].
#[inline]
pub fn room_for(len: usize) -> usize {
    (2 * len).next_power_of_two().max(KEEP)
}

/// The least room a queue keeps: back-to-back pairs (slow start sends two
/// packets per ACK) need no allocation.
pub const KEEP: usize = 4;

/// Above this room a queue gives memory back as it drains.
pub const KEEP_BUSY: usize = 64;

/// Gives back three quarters of a queue's memory ([`too_roomy`]; the caller checks).
#[cold]
pub fn shrink<T>(q: &mut VecDeque<T>) {
    q.shrink_to(q.capacity() / 4);
}

/// A link's transmitter as a FIFO link serves with it ([`Serve`]).
struct Wire<'a> {
    rate: Rate,
    tx_memo: &'a mut (u32, Time),
    loss: f64,
    rng: &'a mut Rng,
}

impl Wire<'_> {
    /// The serialization time of `size` bytes at `rate`, remembered for the
    /// last size: most packets on a link have the size of the one before,
    /// and this saves a 128-bit division.
    #[inline]
    fn memo(memo: &mut (u32, Time), rate: Rate, size: u32) -> Time {
        if memo.0 != size {
            *memo = (size, rate.tx_time(size as u64));
        }
        memo.1
    }
}

impl Serve for Wire<'_> {
    #[inline]
    fn tx(&mut self, size: u32) -> Time {
        Wire::memo(self.tx_memo, self.rate, size)
    }
    #[inline]
    fn lost(&mut self) -> bool {
        self.loss > 0.0 && self.rng.bernoulli(self.loss)
    }
}

/// A serialization whose end has not been accounted yet.
#[derive(Copy, Clone, Debug)]
struct InService {
    size: u32,
    start: Time,
    done: Time,
    lost: bool,
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
    /// Each packet propagates a uniform random time in [0, jitter) longer,
    /// never overtaking the one before ([`Link::arrival`]).
    pub jitter: Time,
    pub qdisc: Box<dyn Qdisc>,
    /// End of the current (or last) serialization: the transmitter is free from then on.
    pub busy_until: Time,
    /// A wakeup at `busy_until` is pending to dequeue the next packet. Unless
    /// one is, the queue is empty: every discipline is work-conserving, and the
    /// engine schedules a wakeup whenever a serialization starts with packets
    /// waiting.
    pub wake_pending: bool,
    /// The discipline's limit if a packet it admits to its empty queue passes
    /// straight through ([`Qdisc::passes_idle`]; kept here so that the check
    /// does not reach into the discipline). `None` also where components watch
    /// the queue ([`Link::watched`]): they see every arrival.
    pub pass_limit: Option<crate::qdisc::Limit>,
    /// Router components keep a view of this queue (the engine's `views`): they
    /// are told of its arrivals, dequeues and drops. Kept here, beside the
    /// fields every hop reads, rather than looked up per packet.
    pub watched: bool,
    /// The serialization not yet accounted (see [`Link::settle`]).
    in_service: Option<InService>,
    /// A drop-tail FIFO served without events ([`fifo`]): set by the engine
    /// where nothing watches the queue; its discipline then holds nothing.
    pub fifo: Option<Fifo>,
    /// The one link whose packets, and only whose, this link carries: it is
    /// told of each arrival as the packet starts across that link (the
    /// engine's folding, sim/plan.rs). Only for a [`Link::fifo`] link.
    pub feeder: Option<LinkId>,
    /// Some link has this one as its [`Link::feeder`].
    pub feeds: bool,
    /// Its queue is an output queue of a switch with a shared buffer
    /// (crate::mmu): the engine admits and accounts each packet there
    /// (sim/switches.rs), so it never cuts through or runs as a FIFO.
    pub buffered: bool,
    /// The switch at its far end runs PFC and may pause it: served by
    /// events, never cut through.
    pub pausable: bool,
    /// A PFC pause is in force: the transmitter starts nothing new (its
    /// counters are the switches': sim/switches.rs).
    pub paused: bool,
    /// Arrival time at the far end of the last packet sent on this link with
    /// jitter, which the next may not overtake.
    last_arrival: Time,
    /// Packets in serialization or propagating, with their arrival times at the
    /// far end (non-decreasing), as slots of the engine's [`Slab`], with the
    /// time from the packet's start across the link to its arrival (its
    /// [`lead`], which orders an arrival among events at one instant:
    /// sched.rs). A packet lost on the wire is not here.
    pub pipe: VecDeque<(Time, u32, u32)>,
    /// The loss and jitter models' random stream.
    pub rng: Rng,
    /// The queue discipline's random stream (RED's drop decisions).
    pub qrng: Rng,
    pub stats: QueueStats,
    /// Last time the backlog integrals were brought up to date.
    pub last_change: Time,
    /// The last serialized size and its serialization time: most packets on a
    /// link have the size of the one before, and this saves a 128-bit division.
    tx_memo: (u32, Time),
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
        jitter: Time,
        qdisc: Box<dyn Qdisc>,
        rng: Rng,
        qrng: Rng,
    ) -> Link {
        let pass_limit = qdisc.passes_idle().then(|| qdisc.limit());
        Link {
            id,
            name,
            from,
            to,
            rate,
            delay,
            loss,
            jitter,
            qdisc,
            busy_until: Time::ZERO,
            wake_pending: false,
            pass_limit,
            watched: false,
            in_service: None,
            fifo: None,
            feeder: None,
            feeds: false,
            buffered: false,
            pausable: false,
            paused: false,
            last_arrival: Time::ZERO,
            pipe: VecDeque::new(),
            rng,
            qrng,
            stats: QueueStats::default(),
            last_change: Time::ZERO,
            tx_memo: (0, Time::ZERO),
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

    /// An arrival at the queue: brings the integrals up to `now` and counts it.
    #[inline]
    pub fn count_arrival(&mut self, now: Time) {
        self.integrate(now);
        self.stats.arrivals += 1;
    }

    /// Can a `size`-byte packet arriving at `now` skip the queue: the
    /// transmitter is idle, no wakeup is pending (so the queue is empty), and
    /// the discipline passes such a packet straight through
    /// ([`Qdisc::passes_idle`], [`Link::pass_limit`])?
    #[inline]
    pub fn passes(&self, now: Time, size: u32) -> bool {
        !self.wake_pending && now >= self.busy_until && self.pass_limit.is_some_and(|lim| lim.admits(0, 0, size))
    }

    /// Counts what enqueueing and at once dequeueing a `size`-byte packet would
    /// have counted (see [`Link::passes`]): its arrival and a backlog of one packet.
    #[inline]
    pub fn count_passage(&mut self, now: Time, size: u32) {
        debug_assert_eq!(self.qdisc.backlog_packets(), 0, "no wakeup pending: the queue is empty");
        self.last_change = now; // (the integrals gain nothing over an empty queue)
        self.stats.arrivals += 1;
        self.stats.max_pkts = self.stats.max_pkts.max(1);
        self.stats.max_bytes = self.stats.max_bytes.max(size as u64);
        self.stats.sojourn.record_zero();
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

    /// Starts serializing a `size`-byte packet at `now` (the transmitter is
    /// free and the previous serialization settled): draws the loss on the
    /// wire, and returns the end of this serialization and whether the packet
    /// is lost. A lost packet is counted as dropped when its serialization ends.
    pub fn begin_service(&mut self, now: Time, size: u32) -> (Time, bool) {
        debug_assert!(
            now >= self.busy_until && self.in_service.is_none(),
            "the transmitter is busy"
        );
        let tx = self.serialization(size);
        let done = now + tx;
        let lost = self.loss > 0.0 && self.rng.bernoulli(self.loss);
        self.busy_until = done;
        self.in_service = Some(InService {
            size,
            start: now,
            done,
            lost,
        });
        (done, lost)
    }

    /// When the serialization in progress (or the last) started.
    pub fn service_start(&self) -> Time {
        self.in_service.map_or(self.busy_until, |s| s.start)
    }

    /// When a packet whose serialization ends at `done` reaches the far end:
    /// after `delay`, plus with `jitter` a uniform draw in [0, jitter) from the
    /// link's stream (after the loss draw), but not before the packet ahead
    /// of it. The jitter breaks the phase effects of deterministic runs (Floyd
    /// & Jacobson, "On traffic phase effects in packet-switched gateways",
    /// 1992) without reordering; without it the link draws nothing.
    pub fn arrival(&mut self, done: Time) -> Time {
        let at = done + self.delay;
        if self.jitter == Time::ZERO {
            return at;
        }
        let extra = Time::from_secs_f64(self.rng.range(0.0, self.jitter.as_secs_f64()));
        self.last_arrival = (at + extra).max(self.last_arrival);
        self.last_arrival
    }

    /// The serialization time of a `size`-byte packet.
    #[inline]
    pub fn serialization(&mut self, size: u32) -> Time {
        Wire::memo(&mut self.tx_memo, self.rate, size)
    }

    /// A `size`-byte packet reaches the queue of this [`Link::fifo`] link at
    /// `at` (now, or later for a folded link; known `lead` ahead): its start
    /// of service and arrival time at the far end, or `None` if it is
    /// dropped (at the limit, or on the wire: the loss is drawn as an
    /// event-driven link draws it at the start of service, then the jitter);
    /// and the drops this accounted.
    #[inline(always)]
    pub fn admit(&mut self, now: Time, at: Time, lead: Time, size: u32) -> (Option<(Time, Time)>, u64) {
        let f = self.fifo.as_mut().expect("a FIFO link");
        let mut wire = Wire {
            rate: self.rate,
            tx_memo: &mut self.tx_memo,
            loss: self.loss,
            rng: &mut self.rng,
        };
        let mut acc = Accounts {
            stats: &mut self.stats,
            last_change: &mut self.last_change,
            dropped: 0,
        };
        match f.admit(now, at, fifo::lead(lead), size, self.busy_until, &mut wire, &mut acc) {
            Admitted::Sent { start, done, lost } => {
                let dropped = acc.dropped;
                self.busy_until = done;
                ((!lost).then(|| (start, self.arrival(done))), dropped)
            }
            Admitted::Dropped => (None, acc.dropped),
        }
    }

    /// Accounts what happened on this link before `t` (at `t` too when
    /// `inclusive`): the end of the serialization in service, and a FIFO
    /// link's arrivals, starts and drops ([`Fifo::settle`]); the backlog
    /// integrals are brought up to `t`. Returns the packets dropped.
    pub fn account(&mut self, t: Time, inclusive: bool) -> u64 {
        match self.fifo.as_mut() {
            Some(f) => {
                let mut acc = Accounts {
                    stats: &mut self.stats,
                    last_change: &mut self.last_change,
                    dropped: 0,
                };
                f.settle(t, inclusive, &mut acc);
                acc.dropped
            }
            None => {
                let dropped = self.settle(t, inclusive);
                self.integrate(t);
                dropped
            }
        }
    }

    /// Gives back the room its pipe and FIFO record have beyond twice what
    /// they hold ([`too_roomy`]); the engine calls it every so many events.
    pub fn tidy(&mut self) {
        if too_roomy(self.pipe.len(), self.pipe.capacity(), KEEP) {
            self.pipe.shrink_to(room_for(self.pipe.len()));
        }
        if let Some(f) = &mut self.fifo {
            f.tidy();
        }
    }

    /// Packets waiting in the queue (and their bytes): the discipline's, or
    /// a FIFO link's as accounted.
    pub fn backlog(&self) -> (u64, u64) {
        match &self.fifo {
            Some(f) => f.backlog(),
            None => (self.qdisc.backlog_packets() as u64, self.qdisc.backlog_bytes()),
        }
    }

    /// Accounts the serialization in service if it ended before `t` (at `t`
    /// too when `inclusive`): departure counters, busy time, and a loss on the
    /// wire. Returns 1 if that packet was lost (for the engine's drop counter),
    /// else 0. The engine calls it when a new serialization starts, before
    /// statistics are read at the start of the measurement window (exclusive:
    /// events at that instant come after it) and at the end (inclusive).
    pub fn settle(&mut self, t: Time, inclusive: bool) -> u64 {
        let Some(s) = self.in_service else { return 0 };
        if s.done > t || (!inclusive && s.done == t) {
            return 0;
        }
        self.in_service = None;
        self.stats.departures += 1;
        self.stats.departure_bytes += s.size as u64;
        if s.lost {
            self.stats.count_drop(DropReason::LinkLoss);
        }
        s.lost as u64
    }

    /// Packets inside this link: queued, in transmission, propagating.
    pub fn packets_inside(&self) -> u64 {
        if let Some(f) = &self.fifo {
            return self.pipe.len() as u64 + f.unaccounted_drops();
        }
        let lost_in_service = self.in_service.is_some_and(|s| s.lost) as u64;
        self.qdisc.backlog_packets() as u64 + self.pipe.len() as u64 + lost_in_service
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jittery(jitter: Time) -> Link {
        use crate::qdisc::testutil::{build, link};
        let q = build(
            serde_json::json!({"kind": "droptail"}),
            &link("10Mbps", crate::qdisc::Limit::Packets(100)),
        );
        Link::new(
            LinkId(0),
            "a->b".into(),
            NodeId(0),
            NodeId(1),
            crate::units::parse_rate("10Mbps").unwrap(),
            Time::from_millis(10),
            0.0,
            jitter,
            q.unwrap(),
            Rng::new(1, 7),
            Rng::new(1, 8),
        )
    }

    /// Jitter: each arrival is `delay` plus U[0, jitter) after the end of its
    /// serialization, never before the one ahead. Serializations 1.2 ms apart
    /// (one 1500-byte packet at 10 Mb/s) with 5 ms of jitter: the extra delay
    /// stays in [0, 5 ms) and averages 2.93 ms over 20 000 packets, above the
    /// draws' 2.5 ms because a packet whose draw lands before the arrival of
    /// the one ahead waits for it (2.93 ms: the same recurrence simulated
    /// apart); arrivals never go backwards. Without jitter nothing is drawn:
    /// the stream is where it was.
    #[test]
    fn jitter_delays_without_reordering() {
        let mut l = jittery(Time::from_millis(5));
        let tx = Time::from_micros(1200);
        let (mut last, mut extra, mut waited, n) = (Time::ZERO, 0.0, 0, 20_000u64);
        for i in 0..n {
            let done = Time(tx.0 * (i + 1));
            let at = l.arrival(done);
            assert!(at >= last, "packet {i} overtook the one ahead");
            let e = (at - done - l.delay).as_secs_f64();
            assert!((0.0..0.005).contains(&e), "extra delay {e}");
            waited += (at == last) as u32;
            extra += e;
            last = at;
            l.pipe.push_back((at, 0, 0));
        }
        let mean = extra / n as f64;
        assert!((0.0028..0.0030).contains(&mean), "mean extra delay {mean}");
        assert!(waited > 0, "some packets wait for the one ahead");
        let mut quiet = jittery(Time::ZERO);
        assert_eq!(quiet.arrival(Time::from_millis(1)), Time::from_millis(11));
        assert_eq!(quiet.rng.next_u64(), jittery(Time::ZERO).rng.next_u64());
    }
}
