//! The `[topology]` section: a dumbbell (`pairs`, `bottleneck`, `access`,
//! `receiver_access`), a graph (`nodes`, `links`), a leaf-spine fabric
//! (`leaves`, `spines`, `hosts_per_leaf`, `host_link`, `fabric_link`) or a
//! k-ary fat-tree (`k`, `oversubscription`, `host_link`, `fabric_link`,
//! `core_link`), read into a [`Net`] of
//! named nodes and links with their queues; then routed, checked against the
//! run's budget, and built into the world's nodes and links once the flows'
//! packet sizes are known (a `"bdp"` buffer needs them). Keys:
//! docs/user-guide.md "Topology".

use crate::budget::{self, Limits};
use crate::cfg::{self, show, time_str, Res, ScenarioError, Tab};
use crate::endpoint::TransportSpec;
use crate::link::Link;
use crate::packet::{LinkId, NodeId};
use crate::qdisc::{self, Limit, LinkInfo, QdiscSpec};
use crate::rng::Rng;
use crate::routing::{self, Route};
use crate::sim::Sim;
use crate::units::{BufferSize, Rate, Time};
use crate::workload::{self, PairEnds};
use crate::world::Node;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// RNG stream numbers of links and their queues (per object, see rng.rs).
const STREAM_LINK: u64 = 1 << 20;
const STREAM_QDISC: u64 = 4 << 20;
/// Salt of the nodes' ECMP hashes (not a random stream: nothing is drawn).
const STREAM_ECMP: u64 = 8 << 20;

/// A flow's ends for the routing check: its name, source and destination
/// nodes, and whether its transport needs a path back.
pub(super) struct FlowEnds<'a> {
    pub(super) name: &'a str,
    pub(super) src: usize,
    pub(super) dst: usize,
    pub(super) back: bool,
}

/// A queue as written: the discipline's parameters and the buffer; the buffer
/// is resolved (and the discipline built) per link once flows are known.
#[derive(Clone, Debug)]
struct QueueSpec {
    pub(super) path: String,
    pub(super) spec: Arc<dyn QdiscSpec>,
    pub(super) limit: BufferSize,
    /// Shared by every link built from this spec (a dumbbell's access links
    /// are many: one copy, not one per link).
    pub(super) resolved: Arc<Value>,
}

struct LinkSpec {
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) rate: Rate,
    pub(super) delay: Time,
    pub(super) loss: f64,
    pub(super) jitter: Time,
    pub(super) queue: QueueSpec,
}

pub(super) struct Net {
    /// The key that sets the network's size, named when it is over the budget:
    /// `topology.pairs`, `topology.nodes`, `topology.hosts_per_leaf` or `topology.k`.
    size_key: &'static str,
    pub(super) names: Vec<String>,
    pub(super) index: HashMap<String, usize>,
    links: Vec<LinkSpec>,
    /// RTT used for "bdp" buffer sizes.
    bdp_rtt: Option<Time>,
    /// Packet size used for "bdp" buffer sizes (`topology.bdp_packet`).
    bdp_packet: Option<u64>,
    /// Dumbbell pairs (sender, receiver) node indices.
    pub(super) pairs: Vec<(usize, usize)>,
    /// Equal-cost multipath: routers spread flows over equal-cost next hops
    /// (`topology.ecmp`; [`crate::routing`]).
    ecmp: bool,
}

impl Net {
    fn add_node(&mut self, name: String) -> usize {
        let i = self.names.len();
        self.index.insert(name.clone(), i);
        self.names.push(name);
        i
    }
}

fn read_queue(t: &mut Tab, key: &'static str, default_limit: &str) -> Res<QueueSpec> {
    let path = t.key_path(key);
    let empty = json!({});
    let v = t.raw(key).unwrap_or(&empty);
    let mut q = Tab::new(path.clone(), v)?;
    let spec = qdisc::read(&mut q)?;
    let limit = q.buffer("limit", Some(default_limit))?;
    let resolved = q.finish()?;
    t.put(key, resolved.clone());
    Ok(QueueSpec {
        path,
        spec,
        limit,
        resolved: Arc::new(resolved),
    })
}

/// A delay or start time: fixed, per-index list, or uniform random.
pub(super) enum Spread {
    Fixed(Time),
    List(Vec<Time>),
    Uniform(Time, Time),
}

impl Spread {
    pub(super) fn draw(&self, i: usize, rng: &mut Rng) -> Time {
        match self {
            Spread::Fixed(t) => *t,
            Spread::List(v) => v[i % v.len()],
            Spread::Uniform(a, b) => Time::from_secs_f64(rng.range(a.as_secs_f64(), b.as_secs_f64())),
        }
    }
    fn mean(&self) -> Time {
        match self {
            Spread::Fixed(t) => *t,
            Spread::List(v) => Time(v.iter().map(|t| t.0).sum::<u64>() / v.len().max(1) as u64),
            Spread::Uniform(a, b) => Time((a.0 + b.0) / 2),
        }
    }
}

const SPREAD_EXPECTED: &str = "a time such as \"1ms\", a list of times, or {uniform = [\"0ms\", \"10ms\"]}";

pub(super) fn read_spread(t: &mut Tab, key: &'static str, default: &str, len: Option<usize>) -> Res<Spread> {
    let path = t.key_path(key);
    let parse = |v: &Value| v.as_str().and_then(|s| crate::units::parse_time(s).ok());
    let bad = |v: &Value| ScenarioError {
        path: path.clone(),
        value: show(v),
        expected: SPREAD_EXPECTED.into(),
    };
    let (spread, canon) = match t.raw(key) {
        None => {
            let d = crate::units::parse_time(default).expect("valid default");
            (Spread::Fixed(d), Value::String(time_str(d)))
        }
        Some(v @ Value::String(_)) => {
            let d = parse(v).ok_or_else(|| bad(v))?;
            (Spread::Fixed(d), Value::String(time_str(d)))
        }
        Some(v @ Value::Array(a)) => {
            let ts = a
                .iter()
                .map(|x| parse(x).ok_or_else(|| bad(v)))
                .collect::<Res<Vec<_>>>()?;
            if ts.is_empty() {
                return Err(bad(v));
            }
            if let Some(n) = len {
                if ts.len() != n {
                    return Err(ScenarioError {
                        path,
                        value: show(v),
                        expected: format!("a list of exactly {n} times (one per pair)"),
                    });
                }
            }
            let canon = Value::Array(ts.iter().map(|t| Value::String(time_str(*t))).collect());
            (Spread::List(ts), canon)
        }
        Some(v @ Value::Object(_)) => {
            let mut u = Tab::new(path.clone(), v)?;
            let arr = u.array("uniform")?.ok_or_else(|| u.missing("uniform", "[min, max]"))?;
            let lo_hi: Vec<Time> = arr.iter().filter_map(parse).collect();
            if arr.len() != 2 || lo_hi.len() != 2 || lo_hi[0] > lo_hi[1] {
                return Err(bad(v));
            }
            u.finish()?;
            let canon = json!({"uniform": [time_str(lo_hi[0]), time_str(lo_hi[1])]});
            (Spread::Uniform(lo_hi[0], lo_hi[1]), canon)
        }
        Some(v) => return Err(bad(v)),
    };
    t.put(key, canon);
    Ok(spread)
}

/// One side of a dumbbell's access links (`access` or `receiver_access`).
struct Access {
    /// One rate for every pair, or one per pair.
    rate: Vec<Rate>,
    delay: Spread,
    loss: f64,
    jitter: Time,
    queue: QueueSpec,
}

fn read_access(t: &mut Tab, key: &'static str, pairs: usize) -> Res<Access> {
    let mut a = t
        .table(key)?
        .ok_or_else(|| t.missing(key, "a table with rate and delay"))?;
    let access = Access {
        rate: read_rates(&mut a, "rate", pairs)?,
        delay: read_spread(&mut a, "delay", "0s", Some(pairs))?,
        loss: a.float("loss", Some(0.0), 0.0, 1.0)?,
        jitter: a.time("jitter", Some("0s"))?,
        queue: read_queue(&mut a, "queue", "1000pkt")?,
    };
    t.put(key, a.finish()?);
    Ok(access)
}

/// A rate, or a list of exactly `pairs` rates (one per dumbbell pair).
fn read_rates(t: &mut Tab, key: &'static str, pairs: usize) -> Res<Vec<Rate>> {
    let Some(v @ Value::Array(a)) = t.raw(key) else {
        return Ok(vec![t.rate(key, None)?]);
    };
    let expected = format!("a rate such as \"10Mbps\", or a list of exactly {pairs} rates (one per pair)");
    let one = |x: &Value| match x {
        Value::String(s) => crate::units::parse_rate(s).ok(),
        Value::Number(n) => n
            .as_f64()
            .filter(|&b| b >= 1.0)
            .and_then(|b| crate::units::rate_from_bps(b).ok()),
        _ => None,
    };
    let rates: Option<Vec<Rate>> = a.iter().map(one).collect();
    match rates {
        Some(r) if r.len() == pairs => {
            t.put(
                key,
                Value::Array(r.iter().map(|&x| Value::String(cfg::rate_str(x))).collect()),
            );
            Ok(r)
        }
        _ => Err(t.error(key, v, expected)),
    }
}

/// `reverse_queue` if given, else the forward queue's settings (recorded as resolved).
fn read_reverse_queue(t: &mut Tab, forward: &QueueSpec, default_limit: &str) -> Res<QueueSpec> {
    if t.has("reverse_queue") {
        return read_queue(t, "reverse_queue", default_limit);
    }
    t.raw("reverse_queue");
    let mut q = forward.clone();
    q.path = t.key_path("reverse_queue");
    t.put("reverse_queue", Value::clone(&q.resolved));
    Ok(q)
}

fn read_dumbbell(t: &mut Tab, rng: &mut Rng, net: &mut Net) -> Res<()> {
    let n = t.uint("pairs", None, 1, 100_000)? as usize;
    let mut bt = t
        .table("bottleneck")?
        .ok_or_else(|| t.missing("bottleneck", "a table with rate, delay, queue"))?;
    let b_rate = bt.rate("rate", None)?;
    let b_delay = bt.time("delay", None)?;
    let b_loss = bt.float("loss", Some(0.0), 0.0, 1.0)?;
    let b_jitter = bt.time("jitter", Some("0s"))?;
    let b_q = read_queue(&mut bt, "queue", "100pkt")?;
    let b_rq = read_reverse_queue(&mut bt, &b_q, "100pkt")?;
    t.put("bottleneck", bt.finish()?);

    let send = read_access(t, "access", n)?;
    let recv = if t.has("receiver_access") {
        Some(read_access(t, "receiver_access", n)?)
    } else {
        t.raw("receiver_access");
        None
    };
    let recv_side = recv.as_ref().unwrap_or(&send);

    let r1 = net.add_node("R1".into());
    let r2 = net.add_node("R2".into());
    let mean_access = send.delay.mean() + recv_side.delay.mean();
    let add = |net: &mut Net, from, to, rate, delay, (loss, jitter), queue: &QueueSpec| {
        net.links.push(LinkSpec {
            from,
            to,
            rate,
            delay,
            loss,
            jitter,
            queue: queue.clone(),
        })
    };
    for i in 0..n {
        let s = net.add_node(format!("s{i}"));
        let d = net.add_node(format!("d{i}"));
        net.pairs.push((s, d));
        for (side, a, b) in [(&send, s, r1), (recv_side, r2, d)] {
            let delay = side.delay.draw(i, rng);
            let rate = side.rate[i.min(side.rate.len() - 1)];
            let wire = (side.loss, side.jitter);
            add(net, a, b, rate, delay, wire, &side.queue);
            add(net, b, a, rate, delay, wire, &side.queue);
        }
    }
    add(net, r1, r2, b_rate, b_delay, (b_loss, b_jitter), &b_q);
    add(net, r2, r1, b_rate, b_delay, (b_loss, b_jitter), &b_rq);
    if net.bdp_rtt.is_none() {
        // Two-way propagation: 2·(bottleneck + mean sender access + mean receiver access).
        net.bdp_rtt = Some(Time(2 * (b_delay.0 + mean_access.0)));
    }
    Ok(())
}

/// What a link table gives: rate, delay, loss, jitter, its queue and its
/// reverse direction's queue (a graph's `links[i]`, a leaf-spine's
/// `host_link` and `fabric_link`, a fat-tree's also `core_link`).
#[derive(Clone)]
struct LinkKind {
    rate: Rate,
    delay: Time,
    loss: f64,
    jitter: Time,
    queue: QueueSpec,
    reverse: QueueSpec,
}

impl LinkKind {
    /// Reads `rate`, `delay`, `loss`, `jitter`, `queue` and `reverse_queue` of
    /// the link table `l`.
    fn read(l: &mut Tab, default_limit: &str) -> Res<LinkKind> {
        let rate = l.rate("rate", None)?;
        let delay = l.time("delay", None)?;
        let loss = l.float("loss", Some(0.0), 0.0, 1.0)?;
        let jitter = l.time("jitter", Some("0s"))?;
        let queue = read_queue(l, "queue", default_limit)?;
        let reverse = read_reverse_queue(l, &queue, default_limit)?;
        Ok(LinkKind {
            rate,
            delay,
            loss,
            jitter,
            queue,
            reverse,
        })
    }

    /// Adds `from -> to` with the queue, and, if `duplex`, `to -> from` with the
    /// reverse queue.
    fn add(&self, net: &mut Net, from: usize, to: usize, duplex: bool) {
        let dirs = [(from, to, &self.queue), (to, from, &self.reverse)];
        for (a, b, q) in dirs.into_iter().take(if duplex { 2 } else { 1 }) {
            net.links.push(LinkSpec {
                from: a,
                to: b,
                rate: self.rate,
                delay: self.delay,
                loss: self.loss,
                jitter: self.jitter,
                queue: q.clone(),
            });
        }
    }
}

fn read_link_kind(t: &mut Tab, key: &'static str, default_limit: &str) -> Res<LinkKind> {
    let mut l = t
        .table(key)?
        .ok_or_else(|| t.missing(key, "a table with rate, delay and optionally queue, loss"))?;
    let kind = LinkKind::read(&mut l, default_limit)?;
    t.put(key, l.finish()?);
    Ok(kind)
}

/// A two-tier leaf-spine (folded Clos) fabric, the data-centre topology DCTCP
/// was built for (Alizadeh et al., SIGCOMM 2010; Al-Fares et al., SIGCOMM
/// 2008): `leaves` top-of-rack switches `leaf<i>`, each with `hosts_per_leaf`
/// hosts `h<i>_<k>` on `host_link`s, and every leaf joined to each of `spines`
/// switches `spine<j>` by a `fabric_link`. A host's queue toward its leaf is the
/// `host_link` queue; a leaf's queue toward a host its `reverse_queue`. Hosts
/// under different leaves are 4 hops apart through any spine, so with `ecmp`
/// (the default here) each leaf spreads flows over its `spines` uplinks.
fn read_leaf_spine(t: &mut Tab, net: &mut Net) -> Res<()> {
    let leaves = t.uint("leaves", None, 1, 10_000)? as usize;
    let spines = t.uint("spines", None, 1, 1_000)? as usize;
    let hosts = t.uint("hosts_per_leaf", None, 1, 100_000)? as usize;
    if leaves.saturating_mul(hosts) > 1_000_000 {
        return Err(t.error(
            "hosts_per_leaf",
            &Value::from(hosts),
            format!("at most 1 000 000 hosts in all ({leaves} leaves × {hosts} hosts)"),
        ));
    }
    let host = read_link_kind(t, "host_link", "1000pkt")?;
    let fabric = read_link_kind(t, "fabric_link", "1000pkt")?;
    let spine_ids: Vec<usize> = (0..spines).map(|j| net.add_node(format!("spine{j}"))).collect();
    for i in 0..leaves {
        let leaf = net.add_node(format!("leaf{i}"));
        for k in 0..hosts {
            let h = net.add_node(format!("h{i}_{k}"));
            host.add(net, h, leaf, true);
        }
        for &sp in &spine_ids {
            fabric.add(net, leaf, sp, true);
        }
    }
    if net.bdp_rtt.is_none() {
        // Two-way propagation between hosts under different leaves.
        net.bdp_rtt = Some(Time(2 * 2 * (host.delay.0 + fabric.delay.0)));
    }
    Ok(())
}

/// A k-ary fat-tree (Al-Fares, Loukissas & Vahdat, "A scalable, commodity data
/// center network architecture", SIGCOMM 2008, §3): `k` pods, each of k/2 edge
/// (top-of-rack) switches `edge<p>_<e>` and k/2 aggregation switches
/// `agg<p>_<a>`, every edge switch linked to every aggregation switch of its pod
/// (`fabric_link`); (k/2)² core switches `core<j>`, aggregation switch a of
/// every pod linked to cores a·k/2 … a·k/2 + k/2 − 1 (`core_link`, default
/// `fabric_link`); k/2 hosts `h<p>_<e>_<i>` per edge switch (`host_link`), k³/4
/// in all. `oversubscription` r puts r·k/2 hosts under each edge switch (an
/// integer) over its k/2 uplinks: the edge's host capacity over its uplink
/// capacity is r at equal link rates. Hosts in other pods are 6 hops apart over
/// (k/2)² equal-cost paths, so `ecmp` is on by default.
fn read_fat_tree(t: &mut Tab, net: &mut Net) -> Res<()> {
    let k = t.uint("k", None, 2, 64)? as usize;
    if k % 2 == 1 {
        return Err(t.error("k", &Value::from(k), "an even number of ports per switch (2, 4, …, 64)"));
    }
    let half = k / 2;
    let r = t.float("oversubscription", Some(1.0), 1.0, 1_000.0)?;
    let per_edge = r * half as f64;
    if (per_edge - per_edge.round()).abs() > 1e-9 {
        return Err(t.error(
            "oversubscription",
            &Value::from(r),
            format!("a ratio r ≥ 1 that puts a whole number of hosts, r·k/2 = r·{half}, under each edge switch"),
        ));
    }
    let per_edge = per_edge.round() as usize;
    let host = read_link_kind(t, "host_link", "1000pkt")?;
    let fabric = read_link_kind(t, "fabric_link", "1000pkt")?;
    let core = if t.has("core_link") {
        read_link_kind(t, "core_link", "1000pkt")?
    } else {
        t.raw("core_link");
        LinkKind { ..fabric.clone() }
    };
    let cores: Vec<usize> = (0..half * half).map(|j| net.add_node(format!("core{j}"))).collect();
    for p in 0..k {
        let aggs: Vec<usize> = (0..half).map(|a| net.add_node(format!("agg{p}_{a}"))).collect();
        for e in 0..half {
            let edge = net.add_node(format!("edge{p}_{e}"));
            for i in 0..per_edge {
                let h = net.add_node(format!("h{p}_{e}_{i}"));
                host.add(net, h, edge, true);
            }
            for &agg in &aggs {
                fabric.add(net, edge, agg, true);
            }
        }
        for (a, &agg) in aggs.iter().enumerate() {
            for &c in &cores[a * half..(a + 1) * half] {
                core.add(net, agg, c, true);
            }
        }
    }
    if net.bdp_rtt.is_none() {
        // Two-way propagation between hosts in different pods.
        net.bdp_rtt = Some(Time(2 * 2 * (host.delay.0 + fabric.delay.0 + core.delay.0)));
    }
    Ok(())
}

fn read_graph(t: &mut Tab, net: &mut Net) -> Res<()> {
    let nodes = t
        .array("nodes")?
        .ok_or_else(|| t.missing("nodes", "a list of node names"))?;
    let npath = t.key_path("nodes");
    let mut canon = Vec::new();
    for (i, v) in nodes.iter().enumerate() {
        let name = v.as_str().filter(|s| !s.is_empty()).ok_or_else(|| ScenarioError {
            path: format!("{npath}[{i}]"),
            value: show(v),
            expected: "a non-empty node name".into(),
        })?;
        if net.index.contains_key(name) {
            return Err(ScenarioError {
                path: format!("{npath}[{i}]"),
                value: show(v),
                expected: "a node name not used before".into(),
            });
        }
        net.add_node(name.to_string());
        canon.push(Value::String(name.to_string()));
    }
    t.put("nodes", Value::Array(canon));
    let links = t.array("links")?.ok_or_else(|| t.missing("links", "a list of links"))?;
    let lpath = t.key_path("links");
    let mut out = Vec::new();
    for (i, v) in links.iter().enumerate() {
        let mut l = Tab::new(format!("{lpath}[{i}]"), v)?;
        let end = |l: &mut Tab, key: &'static str| -> Res<usize> {
            let name = l.string(key)?.ok_or_else(|| l.missing(key, "a node name"))?;
            net.index.get(&name).copied().ok_or_else(|| ScenarioError {
                path: l.key_path(key),
                value: format!("{name:?}"),
                expected: "the name of a node listed in topology.nodes".into(),
            })
        };
        let from = end(&mut l, "from")?;
        let to = end(&mut l, "to")?;
        if from == to {
            return Err(l.error("to", &Value::String(net.names[to].clone()), "a node other than `from`"));
        }
        let kind = LinkKind::read(&mut l, "1000pkt")?;
        let duplex = l.boolean("duplex", true)?;
        kind.add(net, from, to, duplex);
        out.push(l.finish()?);
    }
    t.put("links", Value::Array(out));
    Ok(())
}

fn resolve_limit(q: &QueueSpec, rate: Rate, net: &Net, pkt: u64) -> Res<Limit> {
    let bad = |expected: String| ScenarioError {
        path: format!("{}.limit", q.path),
        value: q.resolved["limit"].to_string(),
        expected,
    };
    let lim = match q.limit {
        BufferSize::Unlimited => Limit::Unlimited,
        BufferSize::Packets(0) | BufferSize::Bytes(0) => {
            return Err(bad("a positive buffer (at least one packet)".into()))
        }
        BufferSize::Packets(n) => Limit::Packets(n),
        BufferSize::Bytes(b) => Limit::Bytes(b),
        BufferSize::Bdp(x) => {
            let rtt = net.bdp_rtt.ok_or_else(|| {
                bad("a buffer in packets or bytes; \"bdp\" needs topology.bdp_rtt on a graph topology".into())
            })?;
            let bdp_pkts = rate.bytes_in(rtt) / pkt as f64;
            let n = (x * bdp_pkts).round();
            if n > crate::units::MAX_PACKETS as f64 {
                return Err(bad(format!(
                    "a buffer of at most 1e12 packets ({x} × BDP = {n:e} packets of {pkt} B)"
                )));
            }
            if n < 1.0 {
                return Err(bad(format!(
                    "a buffer of at least one packet ({x} × BDP = {:.3} packets of {pkt} B, BDP at {} over {})",
                    x * bdp_pkts,
                    crate::cfg::rate_str(rate),
                    time_str(rtt)
                )));
            }
            Limit::Packets(n as u64)
        }
    };
    Ok(lim)
}

/// Reads `[topology]` (its random delays from `rng`).
pub(super) fn read(root: &mut Tab, rng: &mut Rng) -> Res<Net> {
    let mut topo = root
        .table("topology")?
        .ok_or_else(|| root.missing("topology", "a [topology] table"))?;
    let kind = topo.choice("kind", None, &["dumbbell", "graph", "leaf_spine", "fat_tree"])?;
    let ecmp = topo.boolean("ecmp", kind == "leaf_spine" || kind == "fat_tree")?;
    let mut net = Net {
        ecmp,
        size_key: match kind.as_str() {
            "dumbbell" => "topology.pairs",
            "leaf_spine" => "topology.hosts_per_leaf",
            "fat_tree" => "topology.k",
            _ => "topology.nodes",
        },
        names: Vec::new(),
        index: HashMap::new(),
        links: Vec::new(),
        bdp_rtt: None,
        bdp_packet: None,
        pairs: Vec::new(),
    };
    if topo.has("bdp_rtt") {
        net.bdp_rtt = Some(topo.time("bdp_rtt", None)?);
    } else {
        topo.raw("bdp_rtt");
    }
    net.bdp_packet = if topo.has("bdp_packet") {
        let b = topo.size("bdp_packet", None)?;
        if b == 0 {
            return Err(topo.error(
                "bdp_packet",
                &Value::String("0B".into()),
                "a positive packet size such as \"1500B\"",
            ));
        }
        Some(b)
    } else {
        topo.raw("bdp_packet");
        None
    };
    match kind.as_str() {
        "dumbbell" => read_dumbbell(&mut topo, rng, &mut net)?,
        "leaf_spine" => read_leaf_spine(&mut topo, &mut net)?,
        "fat_tree" => read_fat_tree(&mut topo, &mut net)?,
        _ => read_graph(&mut topo, &mut net)?,
    }
    if let Some(r) = net.bdp_rtt {
        topo.put("bdp_rtt", Value::String(time_str(r)));
    }
    root.put("topology", topo.finish()?);
    Ok(net)
}

impl Net {
    /// The hosts: nodes with one link out (a router has several), in the
    /// order the topology made them.
    pub(super) fn hosts(&self) -> Vec<usize> {
        let mut out_links = vec![0u32; self.names.len()];
        for l in &self.links {
            out_links[l.from] += 1;
        }
        (0..self.names.len()).filter(|&i| out_links[i] == 1).collect()
    }

    /// The routers: nodes with other than one link out.
    pub(super) fn routers(&self) -> Vec<usize> {
        let hosts = self.hosts();
        (0..self.names.len())
            .filter(|i| hosts.binary_search(i).is_err())
            .collect()
    }

    /// Where the workloads' endpoints come from.
    pub(super) fn nodes(&self) -> workload::Nodes<'_> {
        let mut out_bps = vec![0.0; self.names.len()];
        for l in &self.links {
            out_bps[l.from] += l.rate.0 as f64;
        }
        workload::Nodes {
            names: &self.names,
            index: &self.index,
            pairs: &self.pairs,
            // (whole bit/s: the sums are exact in either order)
            capacity_bps: out_bps.iter().sum(),
            out_bps,
        }
    }

    /// Checks that the network and its flows fit `limits` (routing needs
    /// routers × nodes entries), routes it, and checks that every flow and
    /// workload pair has a path (and one back where its transport answers).
    pub(super) fn route(&self, flows: &[FlowEnds], pairs: &[PairEnds], limits: &Limits) -> Res<Vec<Route>> {
        let size_key = self.size_key;
        let size = match size_key {
            "topology.pairs" => self.pairs.len().to_string(),
            _ => format!("{} nodes", self.names.len()),
        };
        let nodes = self.names.len() as u64;
        let ends: Vec<(usize, usize)> = self.links.iter().map(|l| (l.from, l.to)).collect();
        let routers = routing::routers(self.names.len(), &ends) as u64;
        let (links, nflows) = (self.links.len() as u64, flows.len() as u64);
        let what = format!(
            "the network of {nodes} nodes and {links} links (forwarding tables of {routers} routers) with {nflows} flows"
        );
        let bytes =
            budget::network_bytes(routers, nodes, links).saturating_add(nflows.saturating_mul(budget::FLOW_BYTES));
        limits.check(size_key, size, &what, bytes, "use fewer nodes, links or flows")?;
        let routes = routing::route(self.names.len(), &ends, self.ecmp);
        let unreachable = |path: String, s: usize, d: usize| ScenarioError {
            path,
            value: format!("{:?} -> {:?}", self.names[s], self.names[d]),
            expected: "nodes connected by links in both directions (no path found)".into(),
        };
        for (i, p) in flows.iter().enumerate() {
            let there = routing::path(&routes, &ends, p.src, p.dst).is_some();
            if !there || (p.back && routing::path(&routes, &ends, p.dst, p.src).is_none()) {
                return Err(unreachable(format!("flows (flow {i}, {:?})", p.name), p.src, p.dst));
            }
        }
        for (i, &(s, d, back)) in pairs.iter().enumerate() {
            if routing::path(&routes, &ends, s, d).is_none() || (back && routing::path(&routes, &ends, d, s).is_none())
            {
                return Err(unreachable(format!("workloads (pair {i})"), s, d));
            }
        }
        Ok(routes)
    }

    /// Puts the nodes (with their `routes`) and the links (with their queues,
    /// buffers resolved for the packets of `specs`, the transports of every
    /// flow and workload) into `sim`. The output queues of `switches` hold
    /// up to the switch's buffer, which admits their packets (crate::mmu).
    pub(super) fn build(
        &self,
        sim: &mut Sim,
        routes: Vec<Route>,
        specs: &[&Arc<dyn TransportSpec>],
        switches: Option<&crate::mmu::SwitchesSpec>,
    ) -> Res<()> {
        let mut shared = vec![None; self.names.len()];
        if let Some(s) = switches {
            for &n in &s.nodes {
                shared[n] = Some(Limit::Bytes(s.buffer));
            }
        }
        // Packet size used to express "bdp" buffers in packets.
        let pkt = self
            .bdp_packet
            .unwrap_or_else(|| specs.iter().filter_map(|p| p.bdp_packet()).max().unwrap_or(1500));
        sim.nodes.reserve_exact(self.names.len());
        sim.links.reserve_exact(self.links.len());
        for (i, (name, r)) in self.names.iter().zip(routes).enumerate() {
            let mut node = Node::new(name.clone(), r);
            node.salt = routing::mix64(sim.seed ^ routing::mix64(STREAM_ECMP + i as u64));
            sim.nodes.push(node);
        }
        let max_pkt = specs.iter().map(|p| p.max_packet()).max().unwrap_or(0);
        for (i, l) in self.links.iter().enumerate() {
            let limit = match shared[l.from] {
                Some(buffer) => buffer,
                None => resolve_limit(&l.queue, l.rate, self, pkt)?,
            };
            if let Limit::Bytes(b) = limit {
                if b < max_pkt {
                    return Err(ScenarioError {
                        path: format!("{}.limit", l.queue.path),
                        value: l.queue.resolved["limit"].to_string(),
                        expected: format!("a byte limit that holds at least one packet ({max_pkt} B)"),
                    });
                }
            }
            let name = format!("{}->{}", self.names[l.from], self.names[l.to]);
            let info = LinkInfo {
                rate: l.rate,
                delay: l.delay,
                limit,
                max_packet: max_pkt,
                path: l.queue.path.clone(),
                name: name.clone(),
            };
            let q = l.queue.spec.build(&info)?;
            sim.links.push(Link::new(
                LinkId(i as u32),
                name,
                NodeId(l.from as u32),
                NodeId(l.to as u32),
                l.rate,
                l.delay,
                l.loss,
                l.jitter,
                q,
                Rng::new(sim.seed, STREAM_LINK + i as u64),
                Rng::new(sim.seed, STREAM_QDISC + i as u64),
            ));
        }
        Ok(())
    }
}
