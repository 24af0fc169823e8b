//! The world's objects that hold models: nodes (forwarding state and router
//! components) and flows (a transport's two ends and what the engine keeps for
//! them). Links are in [`crate::link`]. The event loop ([`crate::sim`]) owns
//! them in arenas addressed by typed ids; [`WorldRef`] lends them to models
//! being built through the narrow [`Network`] view.

use crate::endpoint::{Receiver, Sender};
use crate::link::Link;
use crate::network::{FlowFacts, LinkFacts, Network};
use crate::packet::{FlowId, LinkId, NodeId, Packet};
use crate::rng::Rng;
use crate::router::{CompCtx, Component, QueueView};
use crate::routing::Route;
use crate::units::Time;
use crate::workload::Conn;

/// RNG stream of the IP id counters of flow `i` (`STREAM_IP_ID + i`, see rng.rs).
pub const STREAM_IP_ID: u64 = 3 << 20;

/// A node: its forwarding state and the router components placed on it.
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
        self.route.next_hop(dst)
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
    pub(crate) fn stamp_ip_id(&mut self, pkt: &mut Packet) {
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

// ----- calling the components of a node (for the event loop)

/// What components asked for during callbacks, applied afterwards.
#[derive(Default)]
pub(crate) struct Requests {
    /// (component index, packet, output link)
    pub(crate) released: Vec<(usize, Packet, LinkId)>,
    /// (component index, wake time)
    pub(crate) wakes: Vec<(usize, Time)>,
}

impl Requests {
    pub(crate) fn is_empty(&self) -> bool {
        self.released.is_empty() && self.wakes.is_empty()
    }
}

/// Calls `f` on component `k` of `node` and collects its requests.
pub(crate) fn call_one<R>(
    nodes: &mut [Node],
    views: &[Option<Box<QueueView>>],
    now: Time,
    node: NodeId,
    k: usize,
    req: &mut Requests,
    f: impl FnOnce(&mut dyn Component, &mut CompCtx) -> R,
) -> R {
    let mut released = Vec::new();
    let mut wake = None;
    let r = {
        let mut cx = CompCtx::new(now, node, views, &mut released, &mut wake);
        f(nodes[node.idx()].comps[k].as_mut(), &mut cx)
    };
    req.released.extend(released.into_iter().map(|(p, l)| (k, p, l)));
    if let Some(t) = wake {
        req.wakes.push((k, t));
    }
    r
}

/// Calls `f` on every component of `node`, in order.
pub(crate) fn call_each(
    nodes: &mut [Node],
    views: &[Option<Box<QueueView>>],
    now: Time,
    node: NodeId,
    req: &mut Requests,
    mut f: impl FnMut(&mut dyn Component, &mut CompCtx),
) {
    for k in 0..nodes[node.idx()].comps.len() {
        call_one(nodes, views, now, node, k, req, &mut f);
    }
}

/// The world's arenas lent to models being built ([`Network`]).
#[derive(Clone, Copy)]
pub struct WorldRef<'a> {
    pub nodes: &'a [Node],
    pub links: &'a [Link],
    pub flows: &'a [Flow],
}

impl Network for WorldRef<'_> {
    fn node_name(&self, node: NodeId) -> &str {
        &self.nodes[node.idx()].name
    }
    fn link_count(&self) -> usize {
        self.links.len()
    }
    fn link(&self, link: LinkId) -> LinkFacts<'_> {
        let l = &self.links[link.idx()];
        LinkFacts {
            id: l.id,
            name: &l.name,
            from: l.from,
            to: l.to,
            rate: l.rate,
            delay: l.delay,
            limit: l.qdisc.limit(),
        }
    }
    fn flow_count(&self) -> usize {
        self.flows.len()
    }
    fn flow(&self, flow: FlowId) -> FlowFacts<'_> {
        let f = &self.flows[flow.idx()];
        FlowFacts {
            name: &f.name,
            kind: f.kind,
            src: f.src,
            dst: f.dst,
        }
    }
    fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        self.nodes[node.idx()].next_hop(dst)
    }
}
