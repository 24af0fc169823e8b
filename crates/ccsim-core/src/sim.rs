//! The world and its event loop.
//!
//! Everything lives in arenas addressed by typed ids (`NodeId`, `LinkId`,
//! `FlowId`); events carry ids. The simulator is a value: several can run in
//! one process. Python never enters this loop.

use crate::link::{Link, QueueStats};
use crate::monitor::Monitor;
use crate::packet::{FlowId, Kind, LinkId, NodeId, Packet};
use crate::qdisc::{DropReason, MarkReason, QdiscCtx};
use crate::rng::Rng;
use crate::router::{call_each, call_one, Component, QueueEvent, QueueView, Requests, Verdict};
use crate::sched::Scheduler;
use crate::transport::{EndpointCtx, Receiver, Sender};
use crate::units::Time;
use crate::workload::{Conn, Workloads};
use std::fmt;

/// No route marker in forwarding tables.
pub const NO_ROUTE: u32 = u32::MAX;

/// RNG stream of the IP id counters of flow `i` (`STREAM_IP_ID + i`, see rng.rs).
pub const STREAM_IP_ID: u64 = 3 << 20;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The link's transmitter is free and packets wait in its queue: dequeue
    /// the next one. (A link that does not queue needs no such event.)
    TxReady(LinkId),
    /// The head of the link's propagation pipe reaches the far end.
    Arrive(LinkId),
    /// A timer of the flow's endpoints may be due.
    Endpoint(FlowId),
    /// The flow starts.
    FlowStart(FlowId),
    /// The next connection of a workload's arrival process (workload.rs).
    Arrival(u32),
    /// A router component asked to be woken.
    CompWake(NodeId),
    /// Time-series sampling tick.
    Sample,
    /// Start of the measurement window.
    Warmup,
}

/// How a node chooses the output link of a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// No output link at all.
    Nowhere,
    /// A node with one output link (a host) sends everything through it.
    Only(LinkId),
    /// A router: next link towards each destination node (`NO_ROUTE` if unreachable).
    Table(Vec<u32>),
}

pub struct Node {
    pub name: String,
    pub route: Route,
    /// Router components, in the order the scenario lists them.
    pub comps: Vec<Box<dyn Component>>,
    /// Wakeup each component asked for.
    pub comp_wakes: Vec<Option<Time>>,
    /// Time of the live `CompWake` event, if any (lazy cancellation).
    pub wake_ev: Option<Time>,
}

impl Node {
    pub fn new(name: String, route: Route) -> Node {
        Node {
            name,
            route,
            comps: Vec::new(),
            comp_wakes: Vec::new(),
            wake_ev: None,
        }
    }
    /// The output link towards `dst` (None if unreachable or `dst` is this node).
    #[inline]
    pub fn next_hop(&self, dst: NodeId) -> Option<LinkId> {
        match &self.route {
            Route::Nowhere => None,
            Route::Only(l) => Some(*l),
            Route::Table(t) => Some(t[dst.idx()]).filter(|&l| l != NO_ROUTE).map(LinkId),
        }
    }
}

/// A flow: its two ends (any transport, see [`crate::transport`]) and what the
/// engine keeps for it. Workload connections occupy flows too, in slots reused
/// once a connection is over (workload.rs).
pub struct Flow {
    pub name: String,
    /// The transport's kind (`"tcp"`, `"cbr"`, `"blt"`, ...).
    pub kind: &'static str,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    /// The sending end, at `src`; gets the packets of the flow that reach `src`.
    pub snd: Box<dyn Sender>,
    /// The receiving end, at `dst`; gets the packets of the flow that reach `dst`.
    pub rcv: Box<dyn Receiver>,
    /// Time of the live `Endpoint` event, if any (lazy cancellation).
    pub wake: Option<Time>,
    /// In-order bytes delivered at the start of the measurement window.
    pub delivered_at_warmup: u64,
    /// Next IP id of each direction: `[0]` for packets sent by `src`, `[1]`
    /// for packets sent by `dst` (each end's own per-flow counter).
    pub ip_id: [u16; 2],
    /// Packets with a uid up to this one belong to an earlier occupant of the
    /// slot and are discarded on arrival (uids grow with creation).
    pub uid_floor: u64,
    /// The workload connection occupying this flow, if any.
    pub conn: Option<Box<Conn>>,
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        kind: &'static str,
        src: NodeId,
        dst: NodeId,
        start: Time,
        snd: Box<dyn Sender>,
        rcv: Box<dyn Receiver>,
        ip_id: [u16; 2],
    ) -> Flow {
        Flow {
            name,
            kind,
            src,
            dst,
            start,
            snd,
            rcv,
            wake: None,
            delivered_at_warmup: 0,
            ip_id,
            uid_floor: 0,
            conn: None,
        }
    }

    /// Initial IP ids for flow `index`: a random 16-bit start per direction, as
    /// a host's counter (bmcc.md §2.3), from the flow's own stream.
    pub fn initial_ip_ids(seed: u64, index: usize) -> [u16; 2] {
        let mut r = Rng::new(seed, STREAM_IP_ID + index as u64);
        [r.next_u64() as u16, r.next_u64() as u16]
    }
    /// Stamps the next IP id of the direction `pkt` travels (consecutive per
    /// flow and direction, wrapping mod 2^16).
    #[inline]
    fn stamp_ip_id(&mut self, pkt: &mut Packet) {
        let d = (pkt.src != self.src) as usize;
        pkt.ip_id = self.ip_id[d];
        self.ip_id[d] = self.ip_id[d].wrapping_add(1);
    }

    /// The TCP sender of a TCP flow (for tests and tools).
    pub fn tcp_sender(&self) -> Option<&crate::tcp::TcpSender> {
        self.snd.as_any().downcast_ref()
    }

    /// Bytes delivered to the receiving application.
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv.delivered()
    }
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

/// A run-time error: an invariant of the model was violated.
#[derive(Debug, Clone, PartialEq)]
pub struct SimError(pub String);

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SimError {}

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
    /// Link statistics at the start of the measurement window.
    pub link_base: Vec<QueueStats>,
    /// Views of the output queues of nodes hosting components, by link id.
    pub views: Vec<Option<Box<QueueView>>>,
    /// Open-loop workloads, their connections and the connection table.
    pub workloads: Workloads,
    /// Bytes this run may hold (see [`crate::budget`]); checked by [`Sim::step`].
    pub memory_limit: u64,
    /// Packet captures and the event trace, if the scenario asks for them.
    pub taps: Option<Box<crate::tap::Taps>>,
    /// Hand a packet that finds its queue empty and the transmitter idle
    /// straight to the transmitter when the discipline allows it
    /// ([`crate::qdisc::Qdisc::passes_idle`]). On by default; results are the
    /// same either way (tests/engine.rs checks it), only the speed differs.
    pub cut_through: bool,
    /// The current instant and the events processed at it (zero-time loop guard).
    instant: (Time, u64),
    next_uid: u64,
    out_buf: Vec<Packet>,
    drop_buf: Vec<(Packet, DropReason)>,
    mark_buf: Vec<MarkReason>,
    /// The packets in the links' pipes.
    slab: crate::link::Slab,
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
            cut_through: true,
            instant: (Time::ZERO, 0),
            next_uid: 0,
            out_buf: Vec::new(),
            drop_buf: Vec::new(),
            mark_buf: Vec::new(),
            slab: crate::link::Slab::default(),
        }
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    /// Places a router component on `node`, after those already there. Call
    /// before the run starts (the queue views begin empty).
    pub fn add_component(&mut self, node: NodeId, comp: Box<dyn Component>) {
        let n = &mut self.nodes[node.idx()];
        n.comps.push(comp);
        n.comp_wakes.push(None);
        self.views.resize_with(self.links.len(), || None);
        for l in &mut self.links {
            if l.from == node && !l.watched {
                l.watched = true;
                l.pass_limit = None; // (components see every arrival)
                self.views[l.id.idx()] = Some(Box::new(QueueView::new(node, l.id)));
            }
        }
    }

    /// The output link `node` uses towards `dst`.
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        self.nodes[node.idx()].next_hop(dst)
    }

    /// Schedules the initial events; call once after building the world.
    pub fn prime(&mut self) {
        self.views.resize_with(self.links.len(), || None);
        for i in 0..self.flows.len() {
            let f = &self.flows[i];
            self.sched.schedule(f.start, Ev::FlowStart(FlowId(i as u32)));
        }
        self.link_base = vec![QueueStats::default(); self.links.len()];
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
        self.check_memory()?;
        Ok(n)
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
        let big = self.links.iter().max_by_key(|l| l.qdisc.backlog_packets());
        let culprit = match big {
            Some(l) => format!(
                "; the longest queue is {} with {} packets (limit {}): give it a finite limit",
                l.name,
                l.qdisc.backlog_packets(),
                match l.qdisc.limit() {
                    crate::qdisc::Limit::Packets(n) => format!("{n}pkt"),
                    crate::qdisc::Limit::Bytes(b) => format!("{b}B"),
                    crate::qdisc::Limit::Unlimited => "inf".into(),
                }
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
            Ev::Endpoint(f) => self.endpoint_timer::<T>(f),
            Ev::FlowStart(f) => self.flow_start(f),
            Ev::Arrival(p) => self.arrival(p),
            Ev::CompWake(n) => self.comp_wake(n),
            Ev::Sample => self.sample(),
            Ev::Warmup => self.begin_measurement(),
        }
    }

    // ----- packets through links

    /// The last packet uid given out (uids grow with creation).
    pub(crate) fn next_uid(&self) -> u64 {
        self.next_uid
    }

    fn alloc_uid(&mut self) -> u64 {
        self.next_uid += 1;
        self.next_uid
    }

    /// A packet created by an endpoint at `node` enters the network. (Its IP id
    /// is the sending end's, stamped by the flow; the uid is global.)
    fn inject<const T: bool>(&mut self, node: NodeId, mut pkt: Packet) {
        pkt.uid = self.alloc_uid();
        self.counters.created += 1;
        let h = self.slab.put(pkt);
        self.forward::<T>(node, None, h);
    }

    /// Routes the packet in slab slot `h` at `node`: deliver locally or hand it
    /// to the output queue (through the node's components, if any). The packet
    /// leaves the slab only where it is delivered, seen by components or
    /// queued; one that cuts through the next queue keeps its slot.
    fn forward<const T: bool>(&mut self, node: NodeId, in_link: Option<LinkId>, h: u32) {
        let dst = self.slab.get(h).dst;
        if dst == node {
            let pkt = self.slab.take(h);
            self.deliver::<T>(pkt);
            return;
        }
        let Some(out) = self.nodes[node.idx()].next_hop(dst) else {
            debug_assert!(false, "routes are validated at build time");
            self.slab.release(h);
            self.counters.dropped += 1;
            return;
        };
        if self.nodes[node.idx()].comps.is_empty() {
            self.enqueue::<T>(out, h);
        } else {
            let pkt = self.slab.take(h);
            self.through_components(node, 0, in_link, out, pkt);
        }
    }

    /// Offers `pkt` to components `first..` of `node` in order, then enqueues it
    /// at `out` unless one of them held or dropped it.
    fn through_components(&mut self, node: NodeId, first: usize, in_link: Option<LinkId>, out: LinkId, pkt: Packet) {
        let mut pkt = pkt;
        for k in first..self.nodes[node.idx()].comps.len() {
            let mut req = Requests::default();
            let verdict = call_one(
                &mut self.nodes,
                &self.views,
                self.sched.now(),
                node,
                k,
                &mut req,
                |c, cx| c.on_forward(cx, in_link, out, pkt),
            );
            self.apply(node, req);
            match verdict {
                Verdict::Forward(p) => pkt = p,
                Verdict::Hold => return,
                Verdict::Drop(p) => {
                    self.counters.dropped += 1;
                    self.links[out.idx()].stats.count_drop(DropReason::Component, p.size);
                    if self.taps.is_some() {
                        self.tap_dropped(out, &p, DropReason::Component);
                    }
                    return;
                }
            }
        }
        let h = self.slab.put(pkt);
        if self.taps.is_some() {
            self.enqueue::<true>(out, h);
        } else {
            self.enqueue::<false>(out, h);
        }
    }

    /// Applies what components asked for during callbacks: wakeups, then
    /// releases (each continues with the components after its releaser).
    fn apply(&mut self, node: NodeId, req: Requests) {
        if req.is_empty() {
            return;
        }
        let now = self.now();
        for (k, t) in req.wakes {
            let t = t.max(now);
            let n = &mut self.nodes[node.idx()];
            if n.comp_wakes[k].is_none_or(|w| t < w || w < now) {
                n.comp_wakes[k] = Some(t);
            }
            if n.wake_ev.is_none_or(|w| t < w || w < now) {
                n.wake_ev = Some(t);
                self.sched.schedule(t, Ev::CompWake(node));
            }
        }
        for (k, p, link) in req.released {
            self.through_components(node, k + 1, None, link, p);
        }
    }

    fn comp_wake(&mut self, node: NodeId) {
        let now = self.now();
        if self.nodes[node.idx()].wake_ev != Some(now) {
            return;
        }
        self.nodes[node.idx()].wake_ev = None;
        for k in 0..self.nodes[node.idx()].comps.len() {
            if self.nodes[node.idx()].comp_wakes[k].is_none_or(|w| w > now) {
                continue;
            }
            self.nodes[node.idx()].comp_wakes[k] = None;
            let mut req = Requests::default();
            call_one(&mut self.nodes, &self.views, now, node, k, &mut req, |c, cx| {
                c.on_wake(cx)
            });
            self.apply(node, req);
        }
        // Components whose wakeups are still ahead keep one live event.
        let n = &mut self.nodes[node.idx()];
        if let Some(t) = n.comp_wakes.iter().flatten().copied().min() {
            if n.wake_ev.is_none_or(|w| t < w || w < now) {
                n.wake_ev = Some(t);
                self.sched.schedule(t, Ev::CompWake(node));
            }
        }
    }

    /// Offers the packet in slab slot `h` to the link's queue discipline (the
    /// link wrapper keeps the stats), or passes it straight to the transmitter
    /// (cut-through, [`Sim::passes`]) in its slot.
    fn enqueue<const T: bool>(&mut self, link: LinkId, h: u32) {
        let size = self.slab.get(h).size;
        if self.passes::<T>(link, size) {
            self.pass::<T>(link, h, size);
            return;
        }
        let pkt = self.slab.take(h);
        if self.links[link.idx()].watched {
            self.enqueue_watched(link, pkt);
        } else if T && self.taps.as_deref().is_some_and(|t| t.on(link)) {
            self.enqueue_tapped(link, pkt);
        } else {
            self.offer::<false>(link, pkt);
        }
        self.kick::<T>(link);
    }

    /// Can a `size`-byte packet arriving now at `link`'s queue skip it
    /// (cut-through, [`Link::passes`]): no component watches the queue and no
    /// tap records it, the queue is empty, the transmitter idle, and the
    /// discipline would only pass the packet through?
    #[inline(always)]
    fn passes<const T: bool>(&self, link: LinkId, size: u32) -> bool {
        self.cut_through
            && !(T && self.taps.as_deref().is_some_and(|t| t.on(link)))
            && self.links[link.idx()].passes(self.now(), size)
    }

    /// Cut-through of the packet in slot `h` (see [`Sim::passes`]): what
    /// `offer` and `start_tx` would do with an empty queue and an idle
    /// transmitter, without the queue.
    #[inline(always)]
    fn pass<const T: bool>(&mut self, link: LinkId, h: u32, size: u32) {
        let now = self.now();
        self.links[link.idx()].count_passage(now, size);
        self.transmit::<T, false>(link, h);
    }

    /// An arrival at a queue no component watches (`TAP`: and the taps record
    /// it; a constant, so that the untapped path has no trace of them).
    #[inline(always)]
    fn offer<const TAP: bool>(&mut self, link: LinkId, pkt: Packet) {
        let now = self.now();
        let arrival = if TAP { Some(pkt.clone()) } else { None };
        let l = &mut self.links[link.idx()];
        l.count_arrival(now, pkt.size);
        let stored = {
            let mut cx = QdiscCtx {
                now,
                rng: &mut l.qrng,
                drops: &mut self.drop_buf,
                marks: &mut self.mark_buf,
            };
            let s = l.qdisc.enqueue(pkt, &mut cx);
            if TAP {
                s.cloned()
            } else {
                None
            }
        };
        if TAP {
            if let (Some(a), Some(t)) = (&arrival, self.taps.as_deref_mut()) {
                t.enqueued(now, l, a, stored.as_ref(), &self.mark_buf, &self.drop_buf);
            }
        }
        l.note_backlog();
        for m in self.mark_buf.drain(..) {
            l.stats.count_mark(m);
        }
        for (p, r) in self.drop_buf.drain(..) {
            l.stats.count_drop(r, p.size);
            self.counters.dropped += 1;
        }
    }

    #[cold]
    #[inline(never)]
    fn enqueue_tapped(&mut self, link: LinkId, pkt: Packet) {
        self.offer::<true>(link, pkt);
    }

    /// The taps' record of a dequeue at `link` (`sent`: the packet that starts
    /// serialization, if any; the queue's marks and drops are in the buffers).
    #[cold]
    #[inline(never)]
    fn tap_dequeued(&mut self, link: LinkId, sent: Option<Packet>) {
        if let Some(t) = self.taps.as_deref_mut().filter(|t| t.on(link)) {
            let w = crate::tap::World {
                link,
                links: &self.links,
                nodes: &self.nodes,
            };
            t.dequeued(self.sched.now(), sent.as_ref(), &self.mark_buf, &self.drop_buf, w);
        }
    }

    /// The taps' record of `pkt` dropped at `link` outside its queue (lost on
    /// the wire, or by a router component).
    #[cold]
    #[inline(never)]
    fn tap_dropped(&mut self, link: LinkId, pkt: &Packet, why: DropReason) {
        if let Some(t) = self.taps.as_deref_mut().filter(|t| t.on(link)) {
            t.dropped(self.sched.now(), &self.links[link.idx()], pkt, why);
        }
    }

    /// The taps' record of `pkt` reaching the far end of `link`.
    #[cold]
    #[inline(never)]
    fn tap_received(&mut self, link: LinkId, pkt: Packet) {
        if let Some(t) = self.taps.as_deref_mut().filter(|t| t.on(link)) {
            let w = crate::tap::World {
                link,
                links: &self.links,
                nodes: &self.nodes,
            };
            t.received(self.sched.now(), &pkt, w);
        }
    }

    /// After an arrival at `link`'s queue: serve it now if the transmitter is
    /// free, else make sure a wakeup dequeues it when the transmitter frees up.
    #[inline]
    fn kick<const T: bool>(&mut self, link: LinkId) {
        let l = &mut self.links[link.idx()];
        if l.wake_pending {
            return;
        }
        if self.sched.now() >= l.busy_until {
            self.start_tx::<T>(link);
        } else {
            self.wake_when_free(link);
        }
    }

    /// If packets wait at `link`, schedules the wakeup that dequeues the next
    /// one when the transmitter is free (`busy_until`).
    #[inline]
    fn wake_when_free(&mut self, link: LinkId) {
        let l = &mut self.links[link.idx()];
        if l.qdisc.backlog_packets() > 0 {
            l.wake_pending = true;
            self.sched.schedule(l.busy_until, Ev::TxReady(link));
        }
    }

    /// `enqueue` at an output of a node hosting components: keeps the queue
    /// view and reports the drops, then the arrival, to the components.
    fn enqueue_watched(&mut self, link: LinkId, pkt: Packet) {
        let now = self.now();
        let li = link.idx();
        let uid = pkt.uid;
        let mut req = Requests::default();
        let Sim {
            links,
            nodes,
            views,
            drop_buf,
            mark_buf,
            counters,
            taps,
            ..
        } = self;
        let l = &mut links[li];
        l.count_arrival(now, pkt.size);
        let mut view = views[li].take().expect("watched link");
        view.add(&pkt);
        let arrival = taps.as_deref().is_some_and(|t| t.on(link)).then(|| pkt.clone());
        let stored = {
            let mut cx = QdiscCtx {
                now,
                rng: &mut l.qrng,
                drops: drop_buf,
                marks: mark_buf,
            };
            l.qdisc.enqueue(pkt, &mut cx)
        };
        // The tap reads the stored arrival after the components (it needs the link).
        let tapped = arrival.map(|a| (a, stored.cloned(), mark_buf.clone(), drop_buf.clone()));
        debug_assert!(stored.is_none_or(|p| p.uid == uid), "enqueue returns the arrival");
        for m in mark_buf.drain(..) {
            l.stats.count_mark(m);
        }
        for (p, r) in drop_buf.iter() {
            l.stats.count_drop(*r, p.size);
            counters.dropped += 1;
            view.remove(p);
        }
        l.stats.max_pkts = l.stats.max_pkts.max(view.backlog_packets() as u64);
        l.stats.max_bytes = l.stats.max_bytes.max(view.backlog_bytes());
        views[li] = Some(view);
        let node = l.from;
        let q = views[li].as_deref().expect("just put back");
        for (p, r) in drop_buf.iter() {
            call_each(nodes, views, now, node, &mut req, |c, cx| {
                c.on_queue(cx, QueueEvent::Dropped(*r), p, q)
            });
        }
        if let Some(p) = stored {
            call_each(nodes, views, now, node, &mut req, |c, cx| {
                c.on_queue(cx, QueueEvent::Enqueued, p, q)
            });
        }
        drop_buf.clear();
        debug_assert_eq!(l.qdisc.backlog_bytes(), q.backlog_bytes(), "view agrees with the qdisc");
        if let (Some((a, s, m, d)), Some(t)) = (tapped, taps.as_deref_mut()) {
            t.enqueued(now, l, &a, s.as_ref(), &m, &d);
        }
        self.apply(node, req);
    }

    fn start_tx<const T: bool>(&mut self, link: LinkId) {
        let now = self.now();
        let li = link.idx();
        let l = &mut self.links[li];
        l.integrate(now);
        let pkt = {
            let mut cx = QdiscCtx {
                now,
                rng: &mut l.qrng,
                drops: &mut self.drop_buf,
                marks: &mut self.mark_buf,
            };
            l.qdisc.dequeue(&mut cx)
        };
        if T {
            // (a copy: a reference would keep the packet from moving straight on)
            self.tap_dequeued(link, pkt.clone());
        }
        let l = &mut self.links[li];
        for m in self.mark_buf.drain(..) {
            l.stats.count_mark(m);
        }
        for (p, r) in &self.drop_buf {
            l.stats.count_drop(*r, p.size);
            self.counters.dropped += 1;
        }
        let watched = l.watched;
        if !watched {
            self.drop_buf.clear();
        }
        let Some(pkt) = pkt else {
            if watched && !self.drop_buf.is_empty() {
                self.notify_dequeue(link, None);
            }
            return;
        };
        let h = self.slab.put(pkt);
        self.transmit::<T, true>(link, h);
    }

    /// Starts serializing the packet in slot `h` on `link`, whose transmitter
    /// is free: settles the previous serialization, draws the loss on the wire,
    /// schedules the next dequeue if packets wait (`QUEUED`: the packet came out
    /// of the queue; otherwise it cut through, which a watched queue never
    /// lets it do), tells the components of a watched queue, and puts the
    /// packet into the propagation pipe with its arrival time.
    #[inline(always)]
    fn transmit<const T: bool, const QUEUED: bool>(&mut self, link: LinkId, h: u32) {
        let now = self.now();
        let size = self.slab.get(h).size;
        let l = &mut self.links[link.idx()];
        debug_assert!(QUEUED || !l.watched, "a watched queue has no cut-through");
        let watched = QUEUED && l.watched;
        self.counters.dropped += l.settle(now, true);
        let (done, lost) = l.begin_service(now, size);
        if T && lost {
            // The loss on the wire is drawn as serialization starts; the trace
            // records it then (the drop counters when serialization ends).
            let p = self.slab.get(h).clone();
            self.tap_dropped(link, &p, DropReason::LinkLoss);
        }
        if QUEUED {
            self.wake_when_free(link);
        }
        if watched {
            let p = self.slab.get(h).clone();
            self.notify_dequeue(link, Some(&p));
        }
        if lost {
            self.slab.release(h);
        } else {
            let l = &mut self.links[link.idx()];
            let at = done + l.delay;
            l.pipe.push_back((at, h));
            if l.pipe.len() == 1 {
                self.sched.schedule(at, Ev::Arrive(link));
            }
        }
    }

    /// Reports the drops of a dequeue, then the start of transmission of
    /// `started` (if any), to the node's components.
    fn notify_dequeue(&mut self, link: LinkId, started: Option<&Packet>) {
        let now = self.now();
        let li = link.idx();
        let mut req = Requests::default();
        let Sim {
            links,
            nodes,
            views,
            drop_buf,
            ..
        } = self;
        let l = &links[li];
        let mut view = views[li].take().expect("watched link");
        for (p, _) in drop_buf.iter() {
            view.remove(p);
        }
        let sent = started;
        if let Some(p) = sent {
            view.remove(p);
        }
        views[li] = Some(view);
        let q = views[li].as_deref().expect("just put back");
        for (p, r) in drop_buf.iter() {
            call_each(nodes, views, now, l.from, &mut req, |c, cx| {
                c.on_queue(cx, QueueEvent::Dropped(*r), p, q)
            });
        }
        if let Some(p) = sent {
            call_each(nodes, views, now, l.from, &mut req, |c, cx| {
                c.on_queue(cx, QueueEvent::Dequeued, p, q)
            });
        }
        drop_buf.clear();
        let node = l.from;
        self.apply(node, req);
    }

    fn tx_ready<const T: bool>(&mut self, link: LinkId) {
        let l = &mut self.links[link.idx()];
        debug_assert!(l.wake_pending && l.busy_until == self.sched.now());
        l.wake_pending = false;
        self.start_tx::<T>(link);
    }

    /// The head of `link`'s pipe reaches the far end and is forwarded there.
    fn arrive<const T: bool>(&mut self, link: LinkId) {
        let l = &mut self.links[link.idx()];
        let (_, h) = l.pipe.pop_front().expect("Arrive with an empty pipe");
        if let Some(&(next, _)) = l.pipe.front() {
            self.sched.schedule(next, Ev::Arrive(link));
        }
        let to = l.to;
        if T {
            self.tap_received(link, self.slab.get(h).clone());
        }
        self.forward::<T>(to, Some(link), h);
    }

    // ----- endpoints

    fn deliver<const T: bool>(&mut self, pkt: Packet) {
        self.counters.delivered += 1;
        let fid = pkt.flow;
        let now = self.now();
        let f = &mut self.flows[fid.idx()];
        if pkt.uid <= f.uid_floor {
            self.workloads.stale_packets += 1; // of a connection that is over
            return;
        }
        if pkt.kind == Kind::Data {
            self.counters.data_delivered += 1;
        }
        let mut out = std::mem::take(&mut self.out_buf);
        {
            let mut cx = EndpointCtx { now, out: &mut out };
            if pkt.dst == f.dst {
                f.rcv.on_packet(&pkt, &mut cx)
            } else {
                f.snd.on_packet(&pkt, &mut cx)
            }
        }
        self.flush_endpoint::<T>(fid, &mut out);
        self.out_buf = out;
    }

    /// Re-arms the flow's wakeup, then injects what its ends emitted; then
    /// follows a workload connection's progress (which may close it).
    fn flush_endpoint<const T: bool>(&mut self, fid: FlowId, out: &mut Vec<Packet>) {
        self.rearm(fid);
        for mut p in out.drain(..) {
            self.flows[fid.idx()].stamp_ip_id(&mut p);
            // A packet leaves from the node of the endpoint that emitted it.
            self.inject::<T>(p.src, p);
        }
        if self.flows[fid.idx()].conn.is_some() {
            self.conn_progress(fid);
        }
    }

    fn rearm(&mut self, fid: FlowId) {
        let f = &mut self.flows[fid.idx()];
        let want = match (f.snd.next_wake(), f.rcv.next_wake()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(t) = want {
            let now = self.sched.now();
            let t = t.max(now);
            if f.wake.is_none_or(|w| t < w) {
                f.wake = Some(t);
                self.sched.schedule(t, Ev::Endpoint(fid));
            }
        }
    }

    fn endpoint_timer<const T: bool>(&mut self, fid: FlowId) {
        let now = self.now();
        if self.flows[fid.idx()].wake != Some(now) {
            return; // stale wakeup
        }
        let f = &mut self.flows[fid.idx()];
        f.wake = None;
        let mut out = std::mem::take(&mut self.out_buf);
        {
            let mut cx = EndpointCtx { now, out: &mut out };
            f.snd.on_timer(&mut cx);
            f.rcv.on_timer(&mut cx);
        }
        self.flush_endpoint::<T>(fid, &mut out);
        self.out_buf = out;
    }

    pub(crate) fn flow_start(&mut self, fid: FlowId) {
        let now = self.now();
        let mut out = std::mem::take(&mut self.out_buf);
        self.flows[fid.idx()].snd.start(&mut EndpointCtx { now, out: &mut out });
        if self.taps.is_some() {
            self.flush_endpoint::<true>(fid, &mut out);
        } else {
            self.flush_endpoint::<false>(fid, &mut out);
        }
        self.out_buf = out;
    }

    // ----- measurement

    fn begin_measurement(&mut self) {
        let now = self.now();
        for l in &mut self.links {
            // Serializations ending at this instant end after it (their events
            // were scheduled after this one): exclusive.
            self.counters.dropped += l.settle(now, false);
            l.integrate(now);
            l.stats.max_pkts = l.qdisc.backlog_packets() as u64;
            l.stats.max_bytes = l.qdisc.backlog_bytes();
        }
        self.link_base = self.links.iter().map(|l| l.stats.clone()).collect();
        for f in &mut self.flows {
            f.delivered_at_warmup = f.delivered_bytes();
        }
    }

    fn sample(&mut self) {
        let now = self.now();
        let Some(iv) = self.monitor.interval else { return };
        self.monitor.sample(now, &self.links, &self.flows, &self.nodes);
        let next = now + iv;
        if next <= self.end {
            self.sched.schedule(next, Ev::Sample);
        }
    }

    /// Brings queue integrals up to the end time; call once when the run is over.
    pub fn close(&mut self) {
        let end = self.end;
        for l in &mut self.links {
            self.counters.dropped += l.settle(end, true);
            l.integrate(end);
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
