//! Taps: where packet captures ([`crate::capture`]) and the per-packet event
//! trace ([`crate::trace`]) attach to the event loop. `Sim` holds an
//! `Option<Box<Taps>>`; when neither is configured it is `None` and each hook
//! in the event loop costs one check of it. When one is, a per-link flag tells in one
//! load whether anything watches that link.
//!
//! **Flows and connections.** The taps name what a packet belongs to by a
//! *tap flow*: a static flow is tap flow `i`, its flow index; a workload
//! connection gets the next tap flow when it starts in its slot
//! ([`Taps::conn_started`], called by sim/arrivals.rs only when taps exist). A
//! slot is reused by later connections, and packets of a finished one may
//! still be in the network when the next starts there, so a packet's slot
//! does not tell its connection: each slot keeps the list of its occupants
//! with the last packet uid given out when each started, and a packet
//! belongs to the last occupant that started before it was created (uids
//! grow with creation, as `Flow::uid_floor` uses them).

use crate::capture::{self, Capture, Side, TapFlow};
use crate::cfg::{Res, Tab};
use crate::link::Link;
use crate::packet::{FlowId, LinkId, Packet};
use crate::qdisc::{DropReason, MarkReason};
use crate::trace::{self, Event, Trace};
use crate::units::Time;
use crate::world::{Flow, Node, WorldRef};

const TRACED: u8 = 1;
const EGRESS: u8 = 2;
const INGRESS: u8 = 4;

pub struct Taps {
    /// Per link: [`TRACED`] | [`EGRESS`] | [`INGRESS`].
    mask: Vec<u8>,
    pub captures: Vec<Capture>,
    pub trace: Option<Trace>,
    /// By tap flow: the static flows, then the connections in order of start.
    pub flows: Vec<TapFlow>,
    /// Flow index of the first connection slot (the number of static flows).
    first_slot: usize,
    /// Per connection slot: its occupants so far, as (the last packet uid
    /// given out when it started, tap flow), in order of start.
    slots: Vec<Vec<(u64, u32)>>,
}

impl Taps {
    /// Does anything watch `link`?
    #[inline]
    pub fn on(&self, link: LinkId) -> bool {
        self.mask[link.idx()] != 0
    }

    /// Bytes held (captured files, trace rows, what is known of each flow and
    /// connection), for the memory budget.
    pub fn bytes(&self) -> u64 {
        let caps: usize = self.captures.iter().map(|c| c.bytes()).sum();
        let trace = self.trace.as_ref().map_or(0, |t| t.len() as u64 * trace::ROW_BYTES);
        let flows = self.flows.len() * (std::mem::size_of::<TapFlow>() + 16 + 1 + self.captures.len());
        caps as u64 + trace + flows as u64
    }

    /// Connection `id` of workload `workload` started in slot `fid` (whose
    /// ends `f` holds); `last_uid` is the last packet uid given out, so its
    /// packets have greater ones.
    pub fn conn_started(&mut self, fid: FlowId, f: &Flow, workload: u32, id: u64, last_uid: u64) {
        let key = self.flows.len() as u32;
        let number = self.first_slot + id as usize;
        self.flows.push(TapFlow::of(f, number, Some((workload, id))));
        let k = fid.idx() - self.first_slot;
        if k >= self.slots.len() {
            self.slots.resize_with(k + 1, Vec::new);
        }
        self.slots[k].push((last_uid, key));
        if let Some(t) = &mut self.trace {
            t.conn_started(workload);
        }
    }

    /// The tap flow `pkt` belongs to.
    #[inline]
    fn key(&self, pkt: &Packet) -> u32 {
        let f = pkt.flow.idx();
        if f < self.first_slot {
            return f as u32;
        }
        occupant(&self.slots[f - self.first_slot], pkt.uid)
    }

    fn trace(&mut self, now: Time, link: &Link, ev: Event, pkt: &Packet) {
        if self.mask[link.id.idx()] & TRACED != 0 {
            let key = self.key(pkt);
            if let Some(t) = &mut self.trace {
                t.record(now, link, ev, pkt, key);
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
        let key = self.key(pkt);
        let tf = &self.flows[key as usize];
        for c in &mut self.captures {
            if let Some(&(_, _, iface)) = c.points.iter().find(|p| p.0 == w.link && p.1 == side) {
                c.record(now, iface, pkt, key, tf, ttl);
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

    /// The name of tap flow `key` in the trace: a static flow's name, or
    /// `<workload>#<connection id>` for a connection.
    fn name(&self, flows: &[Flow], workloads: &[String], key: usize) -> String {
        match self.flows[key].conn {
            None => flows[key].name.clone(),
            Some((w, id)) => conn_name(&workloads[w as usize], id),
        }
    }

    /// The files (captures, ns-2 text trace) and the trace table; `workloads`
    /// are the workloads' names.
    pub fn finish(
        self,
        world: WorldRef,
        workloads: &[String],
    ) -> (Vec<(String, Vec<u8>)>, Option<crate::table::Table>) {
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let table = self.trace.as_ref().map(|t| {
            if let Some(name) = &t.ns2 {
                files.push((name.clone(), t.ns2_text(world.links, &self.flows, world.nodes.len())));
            }
            let links: Vec<String> = world.links.iter().map(|l| l.name.clone()).collect();
            t.table(&links, self.first_slot, |k| self.name(world.flows, workloads, k))
        });
        let mut caps: Vec<(String, Vec<u8>)> = self.captures.into_iter().map(|c| c.into_file()).collect();
        if !caps.is_empty() {
            caps.push(("hosts".into(), capture::hosts(world.nodes)));
        }
        caps.append(&mut files);
        (caps, table)
    }
}

/// The trace's name of connection `id` of workload `workload`.
pub fn conn_name(workload: &str, id: u64) -> String {
    format!("{workload}#{id}")
}

/// The tap flow of a packet created after the `uid`-th among a slot's
/// occupants (`(last uid when it started, tap flow)`, in order of start):
/// the last that started before the packet was created. Usually the newest;
/// an older one for a packet of a finished connection still in the network.
fn occupant(occupants: &[(u64, u32)], uid: u64) -> u32 {
    match occupants.iter().rev().find(|o| o.0 < uid) {
        Some(o) => o.1,
        None => panic!("packet {uid} is older than every connection of its slot"),
    }
}

/// The parts of the world a capture reads, and the link of the event.
#[derive(Copy, Clone)]
pub struct World<'a> {
    pub link: LinkId,
    pub links: &'a [Link],
    pub nodes: &'a [Node],
}

/// Reads `[[capture]]` and `[trace]`: the taps they ask for, if any, over the
/// world's static flows (`first_slot` of them; connection slots follow) and
/// the workloads named `workloads`, for a run ending at `end`.
pub fn read(
    root: &mut Tab,
    world: WorldRef,
    first_slot: usize,
    workloads: &[String],
    end: Time,
) -> Res<Option<Box<Taps>>> {
    let mut taken = Vec::new();
    let captures = capture::read(root, world.nodes, world.links, first_slot, end, &mut taken)?;
    let link_names: Vec<String> = world.links.iter().map(|l| l.name.clone()).collect();
    let flow_names: Vec<String> = world.flows[..first_slot].iter().map(|f| f.name.clone()).collect();
    let trace = trace::read(root, &link_names, &flow_names, workloads, end, &mut taken)?;
    if captures.is_empty() && trace.is_none() {
        return Ok(None);
    }
    let mut mask = vec![0u8; world.links.len()];
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
    let flows = world.flows[..first_slot]
        .iter()
        .enumerate()
        .map(|(i, f)| TapFlow::of(f, i, None))
        .collect();
    Ok(Some(Box::new(Taps {
        mask,
        captures,
        trace,
        flows,
        first_slot,
        slots: Vec::new(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slot's packets belong to the connection that occupied it when they
    /// were created: a packet of a finished connection still in the network
    /// after the next one started there keeps its own connection.
    #[test]
    fn a_packet_belongs_to_the_occupant_of_its_slot_when_it_was_created() {
        // Tap flows 7, 9 and 12 started in one slot when the last uid given
        // out was 0, 40 and 41.
        let occ = [(0, 7), (40, 9), (41, 12)];
        assert_eq!(occupant(&occ, 1), 7);
        assert_eq!(occupant(&occ, 40), 7);
        assert_eq!(occupant(&occ, 41), 9);
        assert_eq!(occupant(&occ, 42), 12);
        assert_eq!(occupant(&occ, u64::MAX), 12);
    }

    /// Connections that reuse a flow slot are traced and captured as separate
    /// flows: their own tap flow, trace name, ns-2 fid and ports.
    #[test]
    fn connections_reusing_a_slot_get_their_own_names_and_ports() {
        let s = serde_json::json!({
            "seed": 2,
            "duration": "3s",
            "topology": {
                "kind": "dumbbell",
                "pairs": 2,
                "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
                "access": {"rate": "100Mbps", "delay": "1ms"},
            },
            "flows": [{"pairs": [0], "size": "50KB", "name": "bulk"}],
            "workloads": [{"name": "web", "pairs": "all", "arrival_rate": 20, "size": "20KB", "stop": "2s"}],
            "trace": {"links": ["R1->R2"], "ns2": true},
            "capture": [{"link": "R1->R2"}],
        });
        let (mut sim, _) = crate::scenario::build(&s.to_string()).unwrap();
        sim.run_until(sim.end);
        let taps = sim.taps.take().unwrap();
        let wl: Vec<String> = sim.workloads.list.iter().map(|w| w.name.clone()).collect();
        assert_eq!(taps.first_slot, 1);
        let occ = taps.slots.iter().find(|o| o.len() >= 2).expect("a slot was reused");
        let (ka, kb) = (occ[0].1 as usize, occ[1].1 as usize);
        let (a, b) = (&taps.flows[ka], &taps.flows[kb]);
        let (ida, idb) = (a.conn.unwrap().1, b.conn.unwrap().1);
        assert!(ida < idb);
        assert_eq!((a.number, b.number), (1 + ida as usize, 1 + idb as usize));
        assert_ne!(a.wire.port, b.wire.port);
        assert_eq!(taps.name(&sim.flows, &wl, ka), format!("web#{ida}"));
        assert_eq!(taps.name(&sim.flows, &wl, kb), format!("web#{idb}"));
        assert_eq!(taps.name(&sim.flows, &wl, 0), "bulk");
        let started = sim.workloads.procs.iter().map(|p| p.arrivals).sum::<u64>() as usize;
        assert_eq!(taps.flows.len(), 1 + started);
        let (files, table) = taps.finish(sim.world(), &wl);
        assert!(files.iter().any(|(n, _)| n == "trace.tr") && files.iter().any(|(n, _)| n == "R1-R2.pcap"));
        let table = table.unwrap();
        let Some((_, crate::table::Column::Cat(codes, names))) = table.columns.iter().find(|c| c.0 == "flow") else {
            panic!("a categorical flow column")
        };
        // Every connection crossed the bottleneck: all are named, once.
        assert_eq!(names.len(), 1 + started);
        assert_eq!(names[0], "bulk");
        let ids: Vec<u64> = names[1..]
            .iter()
            .map(|n| n.strip_prefix("web#").unwrap().parse().unwrap())
            .collect();
        assert_eq!(ids, (0..started as u64).collect::<Vec<_>>());
        assert!(codes.iter().all(|&c| (c as usize) < names.len()));
    }
}
