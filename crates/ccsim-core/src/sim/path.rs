//! The packet path: a packet created by an endpoint enters the network,
//! is routed at each node, offered to the output queue (or cuts through an
//! empty one), serialized, carried down the link's propagation pipe and
//! forwarded at the far end; the taps' hooks sit on this path.

use super::{Ev, Sim};
use crate::packet::{LinkId, NodeId, Packet};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::units::Time;

/// A sprayed packet's own ECMP hash key (its uid), read only at ECMP nodes
/// ([`crate::world::Node::next_hop_for`]).
#[inline]
fn spray_key(p: &Packet) -> Option<u64> {
    p.has(crate::packet::flags::SPRAY).then_some(p.uid)
}

impl Sim {
    /// The last packet uid given out (uids grow with creation).
    pub(crate) fn next_uid(&self) -> u64 {
        self.next_uid
    }

    pub(super) fn alloc_uid(&mut self) -> u64 {
        self.next_uid += 1;
        self.next_uid
    }

    /// A packet created by an endpoint enters the network at its source node
    /// (copied into the slab from the endpoint's output). (Its IP id is the
    /// sending end's, stamped by the flow; the uid is global.)
    pub(super) fn inject<const T: bool>(&mut self, pkt: &mut Packet) {
        pkt.uid = self.alloc_uid();
        self.counters.created += 1;
        let h = self.slab.put_copy(pkt);
        self.forward::<T>(pkt.src, None, h);
    }

    /// Routes the packet in slab slot `h` at `node`: deliver locally or hand it
    /// to the output queue (through the node's components, if any). The packet
    /// leaves the slab only where it is delivered, seen by components or
    /// queued; one that cuts through the next queue keeps its slot.
    /// `from`: the link the packet arrived over and how long before now it
    /// started across it (`None`: its host sends it now).
    pub(super) fn forward<const T: bool>(&mut self, node: NodeId, from: Option<(LinkId, Time)>, h: u32) {
        let (dst, flow) = {
            let p = self.slab.get(h);
            (p.dst, p.flow)
        };
        if dst == node {
            self.deliver::<T>(h);
            return;
        }
        let slab = &self.slab;
        let Some(out) = self.nodes[node.idx()].next_hop_for(dst, flow, || spray_key(slab.get(h))) else {
            debug_assert!(false, "routes are validated at build time");
            self.slab.release(h);
            self.counters.dropped += 1;
            return;
        };
        if self.nodes[node.idx()].comps.is_empty() {
            self.enqueue::<T>(out, h, from);
        } else {
            let pkt = self.slab.take(h);
            self.through_components(node, 0, from.map(|f| f.0), out, pkt);
        }
    }

    /// Offers the packet in slab slot `h` to the link's queue discipline (the
    /// link wrapper keeps the stats), or passes it straight to the transmitter
    /// (cut-through, [`Sim::passes`]) in its slot. `from`: the link it came
    /// in by, and how far ahead its arrival was known (a FIFO link orders
    /// ties by it: link/fifo.rs); `None` for a packet its node sends.
    pub(super) fn enqueue<const T: bool>(&mut self, link: LinkId, h: u32, from: Option<(LinkId, Time)>) {
        let l = &self.links[link.idx()];
        if l.fifo.is_some() {
            self.admit(link, h, self.now(), from.map_or(Time::ZERO, |f| f.1));
            return;
        }
        if l.buffered {
            self.enqueue_buffered::<T>(link, h, from.map(|f| f.0));
            return;
        }
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
            self.offer::<false, false>(link, pkt);
        }
        self.kick::<T>(link);
    }

    /// The packet in slot `h` reaches the queue of FIFO link `link` at `at`
    /// (now, or later when the link is folded behind its feeder): if it is
    /// admitted and not lost on the wire, it goes on to the far end
    /// ([`Sim::propagate`]); else its slot is freed (the link accounts the
    /// drop when its time comes).
    ///
    /// An arrival now is accounted at once, with whatever else of the link is
    /// due by now, as an event-driven link counts it at its arrival event; a
    /// folded one when its time has passed (the link accounts what is due
    /// before now at each arrival it is told of, so it holds only the packets
    /// still in flight towards or through it).
    #[inline]
    pub(super) fn admit(&mut self, mut link: LinkId, h: u32, mut at: Time, mut lead: Time) {
        let now = self.now();
        let size = self.slab.get(h).size;
        loop {
            let (sent, dropped) = self.links[link.idx()].admit(now, at, lead, size);
            self.counters.dropped += dropped;
            let Some((start, arrive)) = sent else {
                self.slab.release(h);
                return;
            };
            match self.folded_next(link, h) {
                Some(next) => (link, at, lead) = (next, arrive, arrive - start),
                None => return self.enter_pipe(link, h, arrive, arrive - start),
            }
        }
    }

    /// The packet in slot `h`, whose serialization on `link` starts now,
    /// will reach the far end at `at`: it enters the link's pipe, unless the
    /// next link there is folded behind this one
    /// ([`crate::link::Link::feeder`]); then that link is told of its arrival
    /// now.
    #[inline]
    pub(super) fn propagate(&mut self, link: LinkId, h: u32, at: Time) {
        let lead = at - self.now();
        match self.folded_next(link, h) {
            Some(next) => self.admit(next, h, at, lead),
            None => self.enter_pipe(link, h, at, lead),
        }
    }

    /// The link the packet in slot `h` takes next at the far end of `link`,
    /// if it is folded behind `link`.
    #[inline(always)]
    fn folded_next(&self, link: LinkId, h: u32) -> Option<LinkId> {
        let l = &self.links[link.idx()];
        if !l.feeds {
            return None;
        }
        let p = self.slab.get(h);
        if p.dst == l.to {
            return None;
        }
        let next = self.nodes[l.to.idx()].next_hop_for(p.dst, p.flow, || spray_key(p))?;
        (self.links[next.idx()].feeder == Some(link)).then_some(next)
    }

    /// The packet in slot `h` enters `link`'s pipe, reaching the far end at
    /// `at`, `lead` after it started across the link (when its arrival event
    /// counts as scheduled: sched.rs).
    #[inline(always)]
    fn enter_pipe(&mut self, link: LinkId, h: u32, at: Time, lead: Time) {
        let l = &mut self.links[link.idx()];
        let lead = crate::link::lead(lead);
        l.pipe.push_back((at, h, lead));
        if l.pipe.len() == 1 {
            self.sched.schedule_led(at, Time(lead as u64), Ev::Arrive(link));
        }
    }

    /// Can a `size`-byte packet arriving now at `link`'s queue skip it
    /// (cut-through, [`Link::passes`]): no component watches the queue and no
    /// tap records it, the queue is empty, the transmitter idle, and the
    /// discipline would only pass the packet through?
    #[inline(always)]
    pub(super) fn passes<const T: bool>(&self, link: LinkId, size: u32) -> bool {
        self.cut_through
            && !(T && self.taps.as_deref().is_some_and(|t| t.on(link)))
            && self.links[link.idx()].passes(self.now(), size)
    }

    /// Cut-through of the packet in slot `h` (see [`Sim::passes`]): what
    /// `offer` and `start_tx` would do with an empty queue and an idle
    /// transmitter, without the queue.
    #[inline(always)]
    pub(super) fn pass<const T: bool>(&mut self, link: LinkId, h: u32, size: u32) {
        let now = self.now();
        self.links[link.idx()].count_passage(now, size);
        self.transmit::<T, false>(link, h);
    }

    /// An arrival at a queue no component watches (`TAP`: and the taps record
    /// it; `BUF`: the queue is a switch's with a shared buffer, which accounts
    /// it: sim/switches.rs; constants, so that the plain path has no trace
    /// of either).
    #[inline(always)]
    pub(super) fn offer<const TAP: bool, const BUF: bool>(&mut self, link: LinkId, mut pkt: Packet) {
        let now = self.now();
        pkt.enq = now;
        let (uid, inp, size) = (pkt.uid, pkt.in_port, pkt.size);
        let arrival = if TAP { Some(pkt.clone()) } else { None };
        let l = &mut self.links[link.idx()];
        l.count_arrival(now);
        let stored = {
            let mut cx = QdiscCtx {
                now,
                rng: &mut l.qrng,
                drops: &mut self.drop_buf,
                marks: &mut self.mark_buf,
            };
            let s = l.qdisc.enqueue(pkt, &mut cx);
            let kept = BUF && s.is_some();
            (if TAP { s.cloned() } else { None }, kept)
        };
        let (stored, kept) = stored;
        if TAP {
            if let (Some(a), Some(t)) = (&arrival, self.taps.as_deref_mut()) {
                t.enqueued(now, l, a, stored.as_ref(), &self.mark_buf, &self.drop_buf);
            }
        }
        l.note_backlog();
        for m in self.mark_buf.drain(..) {
            l.stats.count_mark(m);
        }
        if BUF {
            self.buffered_in(link, uid, inp, size, kept);
        }
        let l = &mut self.links[link.idx()];
        for (_, r) in self.drop_buf.drain(..) {
            l.stats.count_drop(r);
            self.counters.dropped += 1;
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn enqueue_tapped(&mut self, link: LinkId, pkt: Packet) {
        self.offer::<true, false>(link, pkt);
    }

    /// The taps' record of a dequeue at `link` (`sent`: the packet that starts
    /// serialization, if any; the queue's marks and drops are in the buffers).
    #[cold]
    #[inline(never)]
    pub(super) fn tap_dequeued(&mut self, link: LinkId, sent: Option<Packet>) {
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
    pub(super) fn tap_dropped(&mut self, link: LinkId, pkt: &Packet, why: DropReason) {
        if let Some(t) = self.taps.as_deref_mut().filter(|t| t.on(link)) {
            t.dropped(self.sched.now(), &self.links[link.idx()], pkt, why);
        }
    }

    /// The taps' record of `pkt` reaching the far end of `link`.
    #[cold]
    #[inline(never)]
    pub(super) fn tap_received(&mut self, link: LinkId, pkt: Packet) {
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
    pub(super) fn kick<const T: bool>(&mut self, link: LinkId) {
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
    pub(super) fn wake_when_free(&mut self, link: LinkId) {
        let l = &mut self.links[link.idx()];
        if l.qdisc.backlog_packets() > 0 {
            l.wake_pending = true;
            // (as if scheduled when the serialization in progress started)
            let lead = l.busy_until - l.service_start();
            self.sched.schedule_led(l.busy_until, lead, Ev::TxReady(link));
        }
    }

    pub(super) fn start_tx<const T: bool>(&mut self, link: LinkId) {
        let now = self.now();
        let li = link.idx();
        let l = &mut self.links[li];
        if l.paused {
            return; // (a resume frame kicks it)
        }
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
        if let Some(p) = &pkt {
            l.stats.sojourn.record((now - p.enq).0);
        }
        for m in self.mark_buf.drain(..) {
            l.stats.count_mark(m);
        }
        for (_, r) in &self.drop_buf {
            l.stats.count_drop(*r);
            self.counters.dropped += 1;
        }
        if l.buffered {
            self.buffered_out(link, pkt.as_ref());
        }
        let l = &self.links[li];
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
    pub(super) fn transmit<const T: bool, const QUEUED: bool>(&mut self, link: LinkId, h: u32) {
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
            let at = self.links[link.idx()].arrival(done);
            self.propagate(link, h, at);
        }
    }

    pub(super) fn tx_ready<const T: bool>(&mut self, link: LinkId) {
        let l = &mut self.links[link.idx()];
        debug_assert!(l.wake_pending && l.busy_until == self.sched.now());
        l.wake_pending = false;
        self.start_tx::<T>(link);
    }

    /// The head of `link`'s pipe reaches the far end and is forwarded there.
    pub(super) fn arrive<const T: bool>(&mut self, link: LinkId) {
        let l = &mut self.links[link.idx()];
        let (_, h, lead) = l.pipe.pop_front().expect("Arrive with an empty pipe");
        if let Some(&(next, next_h, next_lead)) = l.pipe.front() {
            self.sched.schedule_led(next, Time(next_lead as u64), Ev::Arrive(link));
            self.slab.prefetch(next_h);
        }
        if crate::link::too_roomy(l.pipe.len(), l.pipe.capacity(), crate::link::KEEP_BUSY) {
            crate::link::shrink(&mut l.pipe);
        }
        let to = l.to;
        if T {
            self.tap_received(link, self.slab.get(h).clone());
        }
        self.forward::<T>(to, Some((link, Time(lead as u64))), h);
    }
}
