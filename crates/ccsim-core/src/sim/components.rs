//! Router components in the event loop: a packet offered to the components
//! of its node in order (each may forward, hold or drop it), their wakeups and
//! releases, and the queue events of the outputs they watch (docs/models/router.md).

use super::{Ev, Sim};
use crate::packet::{LinkId, NodeId, Packet};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::router::{Component, QueueEvent, QueueView, Verdict};
use crate::world::{call_each, call_one, Requests};

impl Sim {
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
        if self.fast_links {
            self.plan_links(); // (a watched queue is served by events; nothing is folded)
        }
    }

    /// Offers `pkt` to components `first..` of `node` in order, then enqueues it
    /// at `out` unless one of them held or dropped it.
    pub(super) fn through_components(
        &mut self,
        node: NodeId,
        first: usize,
        in_link: Option<LinkId>,
        out: LinkId,
        pkt: Packet,
    ) {
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
                    self.links[out.idx()].stats.count_drop(DropReason::Component);
                    if self.taps.is_some() {
                        self.tap_dropped(out, &p, DropReason::Component);
                    }
                    return;
                }
            }
        }
        let h = self.slab.put(pkt);
        // (A packet a component passes on or releases has no lead: it
        // arrives at the queue in this event.)
        if self.taps.is_some() {
            self.enqueue::<true>(out, h, None);
        } else {
            self.enqueue::<false>(out, h, None);
        }
    }

    /// Applies what components asked for during callbacks: wakeups, then
    /// releases (each continues with the components after its releaser).
    pub(super) fn apply(&mut self, node: NodeId, req: Requests) {
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

    pub(super) fn comp_wake(&mut self, node: NodeId) {
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

    /// `enqueue` at an output of a node hosting components: keeps the queue
    /// view and reports the drops, then the arrival, to the components.
    pub(super) fn enqueue_watched(&mut self, link: LinkId, mut pkt: Packet) {
        let now = self.now();
        pkt.enq = now;
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
        l.count_arrival(now);
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
            l.stats.count_drop(*r);
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

    /// Reports the drops of a dequeue, then the start of transmission of
    /// `started` (if any), to the node's components.
    pub(super) fn notify_dequeue(&mut self, link: LinkId, started: Option<&Packet>) {
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
}
