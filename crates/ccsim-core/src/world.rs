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
use crate::table::{Column, Table};
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
    /// This node's ECMP hash seed (from the run's seed and the node's index),
    /// so that switches in a row do not all pick the same member (hash
    /// polarization).
    pub salt: u64,
}

impl Node {
    pub fn new(name: String, route: Route) -> Node {
        Node {
            name,
            route,
            comps: Vec::new(),
            comp_wakes: Vec::new(),
            wake_ev: None,
            salt: 0,
        }
    }
    /// The output link towards `dst` (None if unreachable or `dst` is this node);
    /// of an ECMP group, its lowest link.
    #[inline]
    pub fn next_hop(&self, dst: NodeId) -> Option<LinkId> {
        self.route.next_hop(dst)
    }
    /// The output link towards `dst` for a packet of `flow`: through an ECMP
    /// group, the member the flow's hash picks at this node (one path per flow
    /// and direction, [`crate::routing`]).
    /// (Hosts and plain routers, the common case, take no hash: the match
    /// is inlined into the packet path and only an ECMP node calls out.)
    /// A packet with [`crate::packet::flags::SPRAY`] (NDP) is hashed by its
    /// uid instead: each packet picks its own member (per-packet spraying);
    /// `spray` is read only at an ECMP node.
    #[inline(always)]
    pub fn next_hop_for(&self, dst: NodeId, flow: FlowId, spray: impl FnOnce() -> Option<u64>) -> Option<LinkId> {
        match &self.route {
            Route::Only(l) => Some(*l),
            Route::Table(t) => Route::table_entry(t, dst),
            r => {
                let key = spray().unwrap_or(flow.0 as u64);
                r.next_hop_hashed(dst, crate::routing::mix64(key ^ self.salt))
            }
        }
    }
}

/// A flow: its two ends (any transport, see [`crate::transport`]) and what the
/// engine keeps for it. Workload connections occupy flows too, in slots reused
/// once a connection is over ([`crate::workload`], sim/arrivals.rs).
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
    /// Time of the live `EndpointSend` event (the sender's paced or jittered
    /// send, [`crate::endpoint::Sender::next_send`]), if any.
    pub wake_send: Option<Time>,
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
            wake_send: None,
            delivered_at_warmup: 0,
            ip_id,
            uid_floor: 0,
            conn: None,
        }
    }

    /// Initial IP ids for flow `index`: a random 16-bit start per direction, as
    /// a host's counter (docs/models/bmcc.md, "Modelling decisions": IP ids), from the flow's own stream.
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

// ----- results

/// The `flows` table: one row per static flow (not the workloads'
/// connection slots) with what its ends report, over the measurement window
/// (`warmup` to `end`).
pub fn flows_table(nodes: &[Node], flows: &[Flow], warmup: Time, end: Time) -> Table {
    let n = flows.len();
    let mut c_flow = Vec::with_capacity(n);
    let mut c_name = Vec::with_capacity(n);
    let mut c_kind = Vec::with_capacity(n);
    let mut c_cc = Vec::with_capacity(n);
    let mut c_src = Vec::with_capacity(n);
    let mut c_dst = Vec::with_capacity(n);
    let mut c_start = Vec::with_capacity(n);
    let (mut c_sent, mut c_segs, mut c_deliv, mut c_deliv_w) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut c_goodput, mut c_retx, mut c_to, mut c_fr, mut c_ecn) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut c_done, mut c_fct, mut c_cwnd, mut c_srtt, mut c_minrtt, mut c_ce) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in flows.iter().enumerate() {
        c_flow.push(i as i64);
        c_name.push(f.name.clone());
        c_kind.push(f.kind.to_string());
        c_src.push(nodes[f.src.idx()].name.clone());
        c_dst.push(nodes[f.dst.idx()].name.clone());
        c_start.push(f.start.as_secs_f64());
        let delivered = f.delivered_bytes();
        let in_window = delivered - f.delivered_at_warmup;
        c_deliv.push(delivered as i64);
        c_deliv_w.push(in_window as i64);
        let begin = f.start.max(warmup);
        let r = f.snd.report();
        let completed = f.snd.completed();
        c_cc.push(f.snd.cc_name().to_string());
        c_sent.push(r.bytes_sent as i64);
        c_segs.push(r.packets_sent as i64);
        c_retx.push(r.retransmits as i64);
        c_to.push(r.timeouts as i64);
        c_fr.push(r.fast_retransmits as i64);
        c_ecn.push(r.ecn_reductions as i64);
        let stop = completed.unwrap_or(end);
        let active = if stop > begin {
            (stop - begin).as_secs_f64()
        } else {
            0.0
        };
        c_goodput.push(if active > 0.0 {
            in_window as f64 * 8.0 / active
        } else {
            f64::NAN
        });
        c_done.push(nan_or(completed.map(|t| t.as_secs_f64())));
        c_fct.push(nan_or(completed.map(|t| (t - f.start).as_secs_f64())));
        c_cwnd.push(r.cwnd as i64);
        c_srtt.push(nan_or(r.srtt.map(|t| t.as_secs_f64())));
        c_minrtt.push(nan_or(r.min_rtt.map(|t| t.as_secs_f64())));
        c_ce.push(f.rcv.ce_received() as i64);
    }
    Table {
        name: "flows",
        columns: vec![
            ("flow", Column::I64(c_flow)),
            ("name", Column::Str(c_name)),
            ("kind", Column::Str(c_kind)),
            ("cc", Column::Str(c_cc)),
            ("src", Column::Str(c_src)),
            ("dst", Column::Str(c_dst)),
            ("start_s", Column::F64(c_start)),
            ("bytes_sent", Column::I64(c_sent)),
            ("packets_sent", Column::I64(c_segs)),
            ("bytes_delivered", Column::I64(c_deliv)),
            ("bytes_delivered_window", Column::I64(c_deliv_w)),
            ("goodput_bps", Column::F64(c_goodput)),
            ("retransmits", Column::I64(c_retx)),
            ("timeouts", Column::I64(c_to)),
            ("fast_retransmits", Column::I64(c_fr)),
            ("ecn_reductions", Column::I64(c_ecn)),
            ("ce_received", Column::I64(c_ce)),
            ("completion_s", Column::F64(c_done)),
            ("fct_s", Column::F64(c_fct)),
            ("cwnd_bytes", Column::I64(c_cwnd)),
            ("srtt_s", Column::F64(c_srtt)),
            ("min_rtt_s", Column::F64(c_minrtt)),
        ],
    }
}

/// NaN where a value is missing.
fn nan_or(x: Option<f64>) -> f64 {
    x.unwrap_or(f64::NAN)
}

/// Each component's kind and counters, by [`component_key`], for the summary.
pub fn component_stats(nodes: &[Node]) -> serde_json::Map<String, serde_json::Value> {
    let mut comps = serde_json::Map::new();
    for node in nodes {
        for (k, c) in node.comps.iter().enumerate() {
            let stats: serde_json::Map<String, serde_json::Value> = c
                .stats()
                .into_iter()
                .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
                .collect();
            comps.insert(
                component_key(&node.name, k),
                serde_json::json!({"kind": c.kind(), "stats": stats}),
            );
        }
    }
    comps
}

/// The congestion controls' own counters, by flow name (flows that have any).
pub fn cc_stats(flows: &[Flow]) -> serde_json::Map<String, serde_json::Value> {
    let mut cc = serde_json::Map::new();
    for f in flows {
        let stats = f.snd.cc_stats();
        if !stats.is_empty() {
            let m: serde_json::Map<String, serde_json::Value> = stats
                .into_iter()
                .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
                .collect();
            cc.insert(f.name.clone(), serde_json::Value::Object(m));
        }
    }
    cc
}

/// The event logs of every component that keeps one, as one long table
/// (`ts_component_events`), or `None` if no component logged anything.
pub fn component_events(world: WorldRef) -> Option<Table> {
    let (mut time, mut node, mut comp, mut name, mut queue, mut flow, mut value) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for n in world.nodes {
        for (k, c) in n.comps.iter().enumerate() {
            let key = component_key(&n.name, k);
            for r in c.log() {
                time.push(r.time.as_secs_f64());
                node.push(n.name.clone());
                comp.push(key.clone());
                name.push(r.name.to_string());
                queue.push(r.link.map_or_else(String::new, |l| world.links[l.idx()].name.clone()));
                flow.push(r.flow.map_or_else(String::new, |f| world.flows[f.idx()].name.clone()));
                value.push(r.value);
            }
        }
    }
    (!time.is_empty()).then(|| Table {
        name: "ts_component_events",
        columns: vec![
            ("time_s", Column::F64(time)),
            ("node", Column::Str(node)),
            ("component", Column::Str(comp)),
            ("name", Column::Str(name)),
            ("queue", Column::Str(queue)),
            ("flow", Column::Str(flow)),
            ("value", Column::F64(value)),
        ],
    })
}

/// Name of the `k`-th component of a node in results: the node's name for the
/// first, `"<node>#<k>"` for later ones (scenario order).
pub fn component_key(node: &str, k: usize) -> String {
    if k == 0 {
        node.to_string()
    } else {
        format!("{node}#{k}")
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
    fn node_count(&self) -> usize {
        self.nodes.len()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::route;

    #[test]
    fn a_sprayed_packet_picks_its_own_uplink_and_a_flow_keeps_one() {
        // Leaf 4 (hosts 5, 6) and leaf 7 (hosts 8, 9) over spines 0..4: the
        // leaf's ECMP group towards host 8 has its 4 uplinks.
        let mut links = Vec::new();
        for (leaf, hosts) in [(4, [5, 6]), (7, [8, 9])] {
            for h in hosts {
                links.extend([(h, leaf), (leaf, h)]);
            }
            for sp in 0..4 {
                links.extend([(leaf, sp), (sp, leaf)]);
            }
        }
        let routes = route(10, &links, true);
        let mut leaf = Node::new("leaf0".into(), routes[4].clone());
        leaf.salt = 12345;
        let (dst, flow) = (NodeId(8), FlowId(3));
        let per_flow: std::collections::BTreeSet<LinkId> = (0..200u64)
            .map(|_| leaf.next_hop_for(dst, flow, || None).unwrap())
            .collect();
        assert_eq!(per_flow.len(), 1, "one path per flow");
        let mut count = std::collections::BTreeMap::new();
        for uid in 0..4000u64 {
            *count
                .entry(leaf.next_hop_for(dst, flow, || Some(uid)).unwrap())
                .or_insert(0) += 1;
        }
        // every uplink, each with about a quarter (binomial: sd 27 of 1000)
        assert_eq!(count.len(), 4);
        assert!(count.values().all(|&c| (c as i64 - 1000).abs() < 150), "{count:?}");
    }
}
