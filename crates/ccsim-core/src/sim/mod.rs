//! The event loop: the world's arenas, the scheduler and what watches them.
//!
//! Everything lives in arenas addressed by typed ids (`NodeId`, `LinkId`,
//! `FlowId`); events carry ids. The simulator is a value: several can run in
//! one process. Python never enters this loop. By concern: this file (the
//! simulator, its loop, budgets and invariants), `path.rs` (a packet from link
//! to link), `components.rs` (router components on the path), `endpoints.rs`
//! (delivery and timers), `arrivals.rs` (workload connections in flow slots),
//! `measure.rs` (warm-up, sampling, closing). The life of a packet is told in
//! docs/architecture.md.

mod arrivals;
pub use deps::Deps;
mod components;
mod deps;
mod endpoints;
mod measure;
mod path;
mod plan;
mod switches;
pub use switches::Switches;

use crate::error::SimError;
use crate::link::{Link, QueueStats};
use crate::monitor::Monitor;
use crate::packet::{FlowId, LinkId, NodeId, Packet};
use crate::qdisc::{DropReason, MarkReason};
use crate::router::QueueView;
use crate::sched::Scheduler;
use crate::units::Time;
use crate::workload::Workloads;
use crate::world::{Flow, Node, WorldRef};

/// Events per link between two tidies of the links' memory ([`Sim::tidy`]),
/// and the fewest events between two.
pub const TIDY_EVENTS_PER_LINK: u64 = 16;
pub const TIDY_EVENTS_MIN: u64 = 1 << 18;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The link's transmitter is free and packets wait in its queue: dequeue
    /// the next one. (A link that does not queue needs no such event.)
    TxReady(LinkId),
    /// The head of the link's propagation pipe reaches the far end.
    Arrive(LinkId),
    /// A timer of the flow's endpoints may be due.
    Endpoint(FlowId),
    /// The flow's sender may send (pacing, send jitter): a second wakeup slot.
    EndpointSend(FlowId),
    /// The flow starts.
    FlowStart(FlowId),
    /// The next connection of a workload's arrival process (sim/arrivals.rs).
    Arrival(u32),
    /// A router component asked to be woken.
    CompWake(NodeId),
    /// Time-series sampling tick.
    Sample,
    /// Start of the measurement window.
    Warmup,
    /// A PFC pause (`true`) or resume frame reaches the link's transmitter
    /// (sim/switches.rs).
    Pfc(LinkId, bool),
    /// The PFC deadlock check (sim/switches.rs).
    PfcCheck,
}

/// Packet accounting for the conservation invariant.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    /// TCP data segments that reached their receiver (retransmissions included).
    pub data_delivered: u64,
}

pub struct Sim {
    pub sched: Scheduler<Ev>,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    pub end: Time,
    pub warmup: Time,
    pub seed: u64,
    pub counters: Counters,
    pub monitor: Monitor,
    /// Link statistics at the start of the measurement window (empty until
    /// it starts: a window from 0 subtracts nothing).
    pub link_base: Vec<QueueStats>,
    /// Views of the output queues of nodes hosting components, by link id.
    pub views: Vec<Option<Box<QueueView>>>,
    /// Open-loop workloads, their connections and the connection table.
    pub workloads: Workloads,
    /// Bytes this run may hold (see [`crate::budget`]); checked by [`Sim::step`].
    pub memory_limit: u64,
    /// Packet captures and the event trace, if the scenario asks for them.
    pub taps: Option<Box<crate::tap::Taps>>,
    /// Flows that start when others complete (`after`), if any.
    pub deps: Option<Box<Deps>>,
    /// Switches with a shared buffer or PFC (`[switches]`), if any.
    pub switches: Option<Box<Switches>>,
    /// An error met inside the loop (a PFC deadlock): the run ends at it
    /// and [`Sim::step`] returns it.
    fault: Option<SimError>,
    /// Hand a packet that finds its queue empty and the transmitter idle
    /// straight to the transmitter when the discipline allows it
    /// ([`crate::qdisc::Qdisc::passes_idle`]). On by default; results are the
    /// same either way (tests/engine.rs checks it), only the speed differs.
    pub cut_through: bool,
    /// Serve drop-tail links nothing watches as event-free FIFOs, and fold
    /// those fed by one link only behind it (sim/plan.rs). On by default;
    /// results are the same either way (tests/engine.rs), only the speed
    /// differs.
    pub fast_links: bool,
    /// The current instant and the events processed at it (zero-time loop guard).
    instant: (Time, u64),
    next_uid: u64,
    out_buf: Vec<Packet>,
    drop_buf: Vec<(Packet, DropReason)>,
    mark_buf: Vec<MarkReason>,
    /// The packets in the links' pipes.
    slab: crate::link::Slab,
    /// Events since the links were last tidied ([`Sim::tidy`]).
    since_tidy: u64,
}

impl Sim {
    pub fn new(seed: u64, end: Time, warmup: Time) -> Sim {
        Sim {
            sched: Scheduler::new(),
            nodes: Vec::new(),
            links: Vec::new(),
            flows: Vec::new(),
            end,
            warmup,
            seed,
            counters: Counters::default(),
            monitor: Monitor::default(),
            link_base: Vec::new(),
            views: Vec::new(),
            workloads: Workloads::default(),
            memory_limit: crate::budget::DEFAULT_MEMORY,
            taps: None,
            deps: None,
            switches: None,
            fault: None,
            cut_through: true,
            fast_links: true,
            instant: (Time::ZERO, 0),
            next_uid: 0,
            out_buf: Vec::new(),
            drop_buf: Vec::new(),
            mark_buf: Vec::new(),
            slab: crate::link::Slab::default(),
            since_tidy: 0,
        }
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    /// The number of static flows (the workloads' connection slots follow them).
    pub fn static_flows(&self) -> usize {
        self.workloads.first_slot.unwrap_or(self.flows.len())
    }

    /// The world's arenas, as models being built see them ([`crate::network::Network`]).
    pub fn world(&self) -> WorldRef<'_> {
        WorldRef {
            nodes: &self.nodes,
            links: &self.links,
            flows: &self.flows,
        }
    }

    /// The output link `node` uses towards `dst`.
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        self.nodes[node.idx()].next_hop(dst)
    }

    /// Schedules the initial events; call once after building the world.
    pub fn prime(&mut self) {
        self.views.resize_with(self.links.len(), || None);
        if self.fast_links {
            self.plan_links();
        }
        for i in 0..self.flows.len() {
            if self.deps.as_ref().is_some_and(|d| d.waits(i)) {
                continue; // started by the completions it waits for
            }
            let f = &self.flows[i];
            self.sched.schedule(f.start, Ev::FlowStart(FlowId(i as u32)));
        }
        if self.warmup > Time::ZERO {
            self.sched.schedule(self.warmup, Ev::Warmup);
        }
        if self.monitor.interval.is_some() {
            self.sched.schedule(Time::ZERO, Ev::Sample);
        }
        self.prime_workloads();
    }

    /// Processes every event with time ≤ `until` (and ≤ the end of the run).
    /// Returns the number of events processed. Panics where [`Sim::step`] fails.
    pub fn run_until(&mut self, until: Time) -> u64 {
        self.step(until, u64::MAX).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Processes events with time ≤ `until` (and ≤ the end of the run), at most
    /// `max_events` of them, so that a caller can look at the clock, signals and
    /// progress between steps; [`Sim::reached`] tells whether `until` was reached.
    /// Fails if simulated time stops advancing or the run outgrows its memory budget
    /// (see [`crate::budget`]).
    pub fn step(&mut self, until: Time, max_events: u64) -> Result<u64, SimError> {
        let mut n = 0;
        while n < max_events {
            // (A workload's completion rule may end the run early: `end` moves.)
            let Some((t, ev)) = self.sched.pop_until(until.min(self.end)) else {
                break;
            };
            if t == self.instant.0 {
                self.instant.1 += 1;
                if self.instant.1 > crate::budget::INSTANT_EVENTS && self.instant.1 > self.instant_budget() {
                    return Err(crate::budget::stalled(t, self.instant.1, &self.zero_time_links()));
                }
            } else {
                self.instant = (t, 1);
            }
            // Runs without packet captures or trace use the instantiation with
            // no trace of the taps in it.
            if self.taps.is_some() {
                self.dispatch::<true>(ev);
            } else {
                self.dispatch::<false>(ev);
            }
            n += 1;
        }
        self.between_steps(n)?;
        Ok(n)
    }

    /// After `n` events of a step: the periodic tidy, the memory check.
    #[inline(never)]
    fn between_steps(&mut self, n: u64) -> Result<(), SimError> {
        if let Some(e) = self.fault.take() {
            return Err(e);
        }
        self.since_tidy += n;
        if self.since_tidy >= (TIDY_EVENTS_PER_LINK * self.links.len() as u64).max(TIDY_EVENTS_MIN) {
            self.tidy();
        }
        self.check_memory()
    }

    /// Gives back the memory the links' queues and pipes hold beyond twice
    /// their packets ([`Link::tidy`]): every [`TIDY_EVENTS_PER_LINK`] events
    /// per link (at least [`TIDY_EVENTS_MIN`]), so that it costs a fraction
    /// of a percent however many links there are (a queue cut back to what
    /// it holds may have to grow again), and at the end of the run, before
    /// the results are built. Results do not depend on it.
    pub fn tidy(&mut self) {
        for l in &mut self.links {
            l.tidy();
        }
        self.since_tidy = 0;
    }

    /// Lets go of what only the run itself needs, once it is over: the
    /// packets inside the network and the pending events (their counts stay
    /// in the counters; [`crate::output::collect`] reads no more).
    pub fn release_packets(&mut self) {
        self.slab = crate::link::Slab::default();
        self.sched.clear();
        for l in &mut self.links {
            l.pipe = Default::default();
        }
    }

    /// True once every event at or before `t` has been processed.
    pub fn reached(&self, t: Time) -> bool {
        self.sched.peek_time().is_none_or(|next| next > t.min(self.end))
    }

    fn instant_budget(&self) -> u64 {
        let objects = (self.nodes.len() + self.links.len() + self.flows.len()) as u64;
        crate::budget::INSTANT_EVENTS + crate::budget::INSTANT_EVENTS_PER_OBJECT * objects
    }

    /// Links that can carry a small packet in zero time (no delay, serialization of
    /// 40 bytes rounding to 0 ns): the usual cause of a zero-time loop.
    fn zero_time_links(&self) -> Vec<String> {
        self.links
            .iter()
            .filter(|l| l.delay == Time::ZERO && l.rate.tx_time(40) == Time::ZERO)
            .take(5)
            .map(|l| format!("{} ({}, delay 0s)", l.name, crate::cfg::rate_str(l.rate)))
            .collect()
    }

    /// Bytes the engine holds for this run that grow with it: packets inside the
    /// network, pending events and time series (an upper-bound estimate).
    pub fn memory_in_use(&self) -> u64 {
        let c = &self.counters;
        let packets = c.created.saturating_sub(c.delivered + c.dropped);
        let m = &self.monitor;
        let rows = m.queue_ts.time.len() as u64 * 40
            + m.flow_ts.time.len() as u64 * 80
            + (m.comp_ts.time.len() + m.qdisc_ts.time.len()) as u64 * 32;
        let taps = self.taps.as_ref().map_or(0, |t| t.bytes());
        packets * crate::budget::PACKET_BYTES + self.sched.len() as u64 * 64 + rows * 2 + self.workloads.memory() + taps
    }

    fn check_memory(&self) -> Result<(), SimError> {
        let used = self.memory_in_use();
        if used <= self.memory_limit {
            return Ok(());
        }
        let big = self.links.iter().max_by_key(|l| l.backlog().0);
        let culprit = match big {
            Some(l) => format!(
                "; the longest queue is {} with {} packets (limit {}): give it a finite limit",
                l.name,
                l.backlog().0,
                l.qdisc.limit().label()
            ),
            None => String::new(),
        };
        Err(SimError(format!(
            "memory budget exceeded at t = {}: the run holds about {} (budget {}; {} packets \
             inside the network){culprit}, or raise the budget (memory_limit=..., or the \
             CCSIM_MEMORY_LIMIT environment variable)",
            self.now(),
            crate::budget::human(used),
            crate::budget::human(self.memory_limit),
            self.in_flight(),
        )))
    }

    /// True once no event at or before the end time remains.
    pub fn done(&self) -> bool {
        self.sched.peek_time().is_none_or(|t| t > self.end)
    }

    /// Handles one event (`T`: whether the run has taps; the packet path below
    /// takes it as a constant).
    fn dispatch<const T: bool>(&mut self, ev: Ev) {
        match ev {
            Ev::TxReady(l) => self.tx_ready::<T>(l),
            Ev::Arrive(l) => self.arrive::<T>(l),
            Ev::Endpoint(f) => self.endpoint_timer::<T>(f, false),
            Ev::EndpointSend(f) => self.endpoint_timer::<T>(f, true),
            Ev::FlowStart(f) => self.flow_start(f),
            Ev::Arrival(p) => self.arrival(p),
            Ev::CompWake(n) => self.comp_wake(n),
            Ev::Sample => self.sample(),
            Ev::Warmup => self.begin_measurement(),
            Ev::Pfc(l, on) => self.pfc_frame::<T>(l, on),
            Ev::PfcCheck => self.pfc_check(),
        }
    }

    /// Packets inside the network now: queues, transmitters, pipes, components.
    pub fn in_flight(&self) -> u64 {
        let links: u64 = self.links.iter().map(|l| l.packets_inside()).sum();
        let held: u64 = self.nodes.iter().flat_map(|n| &n.comps).map(|c| c.held()).sum();
        links + held
    }

    /// Checks the end-of-run invariants: packet conservation, queue views
    /// agreeing with their disciplines, and queue bounds.
    pub fn check_invariants(&self) -> Result<(), SimError> {
        let c = &self.counters;
        let inside = self.in_flight();
        if c.created != c.delivered + c.dropped + inside {
            return Err(SimError(format!(
                "packet conservation violated: created {} != delivered {} + dropped {} + in flight {}",
                c.created, c.delivered, c.dropped, inside
            )));
        }
        let piped: usize = self.links.iter().map(|l| l.pipe.len()).sum();
        if piped != self.slab.len() {
            return Err(SimError(format!(
                "the slab holds {} packets but the pipes {piped}",
                self.slab.len()
            )));
        }
        for (l, v) in self.links.iter().zip(&self.views) {
            if l.watched != v.is_some() {
                return Err(SimError(format!(
                    "{}: watched is {} but the link {} a queue view",
                    l.name,
                    l.watched,
                    if v.is_some() { "has" } else { "has no" }
                )));
            }
            if let Some(v) = v {
                let q = (l.qdisc.backlog_packets(), l.qdisc.backlog_bytes());
                if q != (v.backlog_packets(), v.backlog_bytes()) {
                    return Err(SimError(format!(
                        "queue view of {} disagrees with its discipline: {:?} vs {:?}",
                        l.name,
                        (v.backlog_packets(), v.backlog_bytes()),
                        q
                    )));
                }
            }
        }
        for l in &self.links {
            let lim = l.qdisc.limit();
            let max_all = l
                .stats
                .max_pkts
                .max(self.link_base.get(l.id.idx()).map_or(0, |b| b.max_pkts));
            let max_b = l
                .stats
                .max_bytes
                .max(self.link_base.get(l.id.idx()).map_or(0, |b| b.max_bytes));
            if !lim.holds(max_all as usize, max_b) {
                return Err(SimError(format!(
                    "queue bound violated on {}: max backlog {} packets / {} bytes exceeds limit {:?}",
                    l.name, max_all, max_b, lim
                )));
            }
        }
        Ok(())
    }
}
