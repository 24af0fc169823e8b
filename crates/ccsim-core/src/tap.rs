//! Taps: where packet captures ([`crate::capture`]) and the per-packet event
//! trace ([`crate::trace`]) attach to the event loop. `Sim` holds an
//! `Option<Box<Taps>>`; when neither is configured it is `None` and each hook
//! in sim.rs costs one check of it. When one is, a per-link flag tells in one
//! load whether anything watches that link.

use crate::capture::wire::FlowWire;
use crate::capture::{self, Capture, Side};
use crate::cfg::{Res, Tab};
use crate::link::Link;
use crate::packet::{LinkId, Packet};
use crate::qdisc::{DropReason, MarkReason};
use crate::sim::{Flow, Node, Sim};
use crate::trace::{self, Event, Trace};
use crate::units::Time;

const TRACED: u8 = 1;
const EGRESS: u8 = 2;
const INGRESS: u8 = 4;

pub struct Taps {
    /// Per link: [`TRACED`] | [`EGRESS`] | [`INGRESS`].
    mask: Vec<u8>,
    pub captures: Vec<Capture>,
    pub trace: Option<Trace>,
    pub wires: Vec<FlowWire>,
}

impl Taps {
    /// Does anything watch `link`?
    #[inline]
    pub fn on(&self, link: LinkId) -> bool {
        self.mask[link.idx()] != 0
    }

    /// Bytes held (captured files and trace rows), for the memory budget.
    pub fn bytes(&self) -> u64 {
        let caps: usize = self.captures.iter().map(|c| c.bytes()).sum();
        caps as u64 + self.trace.as_ref().map_or(0, |t| t.len() as u64 * trace::ROW_BYTES)
    }

    fn trace(&mut self, now: Time, link: &Link, ev: Event, pkt: &Packet) {
        if self.mask[link.id.idx()] & TRACED != 0 {
            if let Some(t) = &mut self.trace {
                t.record(now, link, ev, pkt);
            }
        }
    }

    fn capture(&mut self, now: Time, side: Side, pkt: &Packet, w: World) {
        let link = &w.links[w.link.idx()];
        let bit = if side == Side::Egress { EGRESS } else { INGRESS };
        if self.mask[w.link.idx()] & bit == 0 {
            return;
        }
        let ttl = capture::ttl(pkt, link, w.nodes, w.links);
        let fw = &self.wires[pkt.flow.idx()];
        let flow = &w.flows[pkt.flow.idx()];
        for c in &mut self.captures {
            if let Some(&(_, _, iface)) = c.points.iter().find(|p| p.0 == w.link && p.1 == side) {
                c.record(now, iface, pkt, fw, flow, ttl);
            }
        }
    }

    /// A packet arrived at `link`'s queue: `arrival` as it came, then what the
    /// queue marked (the arrival, if stored) and dropped.
    pub fn enqueued(
        &mut self,
        now: Time,
        link: &Link,
        arrival: &Packet,
        stored: Option<&Packet>,
        marks: &[MarkReason],
        drops: &[(Packet, DropReason)],
    ) {
        self.trace(now, link, Event::Enqueue, arrival);
        if let Some(p) = stored {
            for &m in marks {
                self.trace(now, link, Event::Mark(m), p);
            }
        }
        for (p, r) in drops {
            self.trace(now, link, Event::Drop(*r), p);
        }
    }

    /// `link` started sending `sent` (if any), after the queue marked it or
    /// dropped others during the dequeue.
    pub fn dequeued(
        &mut self,
        now: Time,
        sent: Option<&Packet>,
        marks: &[MarkReason],
        drops: &[(Packet, DropReason)],
        w: World,
    ) {
        let link = &w.links[w.link.idx()];
        for (p, r) in drops {
            self.trace(now, link, Event::Drop(*r), p);
        }
        if let Some(p) = sent {
            for &m in marks {
                self.trace(now, link, Event::Mark(m), p);
            }
            self.trace(now, link, Event::Dequeue, p);
            self.capture(now, Side::Egress, p, w);
        }
    }

    /// `pkt` was dropped at `link` outside its queue (lost on the wire, or by
    /// a router component before the queue).
    pub fn dropped(&mut self, now: Time, link: &Link, pkt: &Packet, why: DropReason) {
        self.trace(now, link, Event::Drop(why), pkt);
    }

    /// `pkt` reached the far end of `link`.
    pub fn received(&mut self, now: Time, pkt: &Packet, w: World) {
        self.trace(now, &w.links[w.link.idx()], Event::Receive, pkt);
        self.capture(now, Side::Ingress, pkt, w);
    }

    /// The files (captures, ns-2 text trace) and the trace table.
    pub fn finish(self, sim: &Sim) -> (Vec<(String, Vec<u8>)>, Option<crate::output::Table>) {
        let mut files: Vec<(String, Vec<u8>)> = self.captures.into_iter().map(|c| c.into_file()).collect();
        if !files.is_empty() {
            files.push(("hosts".into(), capture::hosts(&sim.nodes)));
        }
        let table = self.trace.map(|t| {
            if let Some(name) = &t.ns2 {
                let flows: Vec<_> = sim.flows.iter().map(|f| (f.src.idx(), f.dst.idx(), f.kind)).collect();
                files.push((
                    name.clone(),
                    t.ns2_text(&sim.links, &flows, &self.wires, sim.nodes.len()),
                ));
            }
            let links: Vec<String> = sim.links.iter().map(|l| l.name.clone()).collect();
            let flows: Vec<String> = sim.flows.iter().map(|f| f.name.clone()).collect();
            t.table(&links, &flows)
        });
        (files, table)
    }
}

/// The parts of the world a capture reads, and the link of the event.
#[derive(Copy, Clone)]
pub struct World<'a> {
    pub link: LinkId,
    pub links: &'a [Link],
    pub nodes: &'a [Node],
    pub flows: &'a [Flow],
}

/// Reads `[[capture]]` and `[trace]` and attaches what they ask for to `sim`.
pub fn read(root: &mut Tab, sim: &mut Sim, link_names: &[String], flow_names: &[String]) -> Res<()> {
    let mut taken = Vec::new();
    let captures = capture::read(root, &sim.nodes, &sim.links, sim.flows.len(), sim.end, &mut taken)?;
    let trace = trace::read(root, link_names, flow_names, sim.end, &mut taken)?;
    if captures.is_empty() && trace.is_none() {
        return Ok(());
    }
    let mut mask = vec![0u8; sim.links.len()];
    if let Some(t) = &trace {
        for (m, &on) in mask.iter_mut().zip(&t.links) {
            if on {
                *m |= TRACED;
            }
        }
    }
    for c in &captures {
        for &(l, side, _) in &c.points {
            mask[l.idx()] |= if side == Side::Egress { EGRESS } else { INGRESS };
        }
    }
    sim.taps = Some(Box::new(Taps {
        mask,
        captures,
        trace,
        wires: capture::flow_wires(&sim.flows),
    }));
    Ok(())
}
