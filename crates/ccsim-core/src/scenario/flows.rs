//! The `[[flows]]` section: each table names its ends (`src`/`dst`, or
//! dumbbell `pairs`), a `count`, `start` times and its transport (`kind` and
//! that transport's keys, read by [`crate::transport`]); read into flow plans,
//! then built into the world's flows. Keys: docs/user-guide.md "Flows".

use super::matrix::{Conn, Pairs};
use super::topology::{read_spread, FlowEnds, Net};
use crate::budget::{self, Limits};
use crate::cfg::{self, Res, ScenarioError, Tab};
use crate::endpoint::{Env, TransportSpec};
use crate::network::Network;
use crate::packet::{FlowId, NodeId};
use crate::rng::Rng;
use crate::sim::{Deps, Sim};
use crate::transport::{self, ReadCtx};
use crate::units::Time;
use crate::world::Flow;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// RNG stream numbers of the flows (per object, see rng.rs).
const STREAM_FLOW: u64 = 2 << 20;

pub(super) struct FlowPlan {
    pub(super) name: String,
    pub(super) src: usize,
    pub(super) dst: usize,
    /// The start time, or with `after` the delay after the last of them completes.
    pub(super) start: Time,
    pub(super) spec: Arc<dyn TransportSpec>,
    /// The flows (indices) that must complete before this one starts.
    pub(super) after: Vec<usize>,
    /// The bytes to transfer when the plan sets them (a collective's step),
    /// else the transport's own `size`.
    pub(super) size: Option<u64>,
    /// The `[[flows]]` table it came from (`None`: a collective's).
    pub(super) table: Option<u32>,
}

impl FlowPlan {
    /// What the routing check needs of the flow.
    pub(super) fn ends(&self) -> FlowEnds<'_> {
        FlowEnds {
            name: &self.name,
            src: self.src,
            dst: self.dst,
            back: self.spec.needs_return_path(),
        }
    }
}

pub(super) fn read(root: &mut Tab, net: &Net, rng: &mut Rng, duration: Time, limits: &Limits) -> Res<Vec<FlowPlan>> {
    let arr = match root.array("flows")? {
        Some(a) => a,
        // A scenario of workloads alone needs no flows.
        None if root.has("workloads") || root.has("collectives") => return Ok(Vec::new()),
        None => return Err(root.missing("flows", "a list of flows ([[flows]] tables) or [[workloads]]")),
    };
    let fpath = root.key_path("flows");
    let mut plans = Vec::new();
    let mut out = Vec::new();
    // per table: its `after` names (as written) and the range of its flows
    let mut waits: Vec<(Vec<String>, std::ops::Range<usize>)> = Vec::new();
    let mut finite: Vec<bool> = Vec::new();
    for (i, v) in arr.iter().enumerate() {
        let mut t = Tab::new(format!("{fpath}[{i}]"), v)?;
        let base_name = t.string("name")?;
        let after = read_after(&mut t)?;
        let (ends, conns) = read_ends(&mut t, net, rng)?;
        if conns.is_some() {
            refuse_with_file(&t)?;
        }
        let count = t.uint("count", Some(1), 1, 1_000_000)? as usize;
        let start = read_spread(&mut t, "start", "0s", None)?;
        let cx = ReadCtx {
            duration,
            in_workload: false,
        };
        let spec = transport::read(&mut t, &cx)?;
        if conns.is_some() && !spec.transfers() {
            return Err(t.error(
                "kind",
                &Value::String(spec.kind().to_string()),
                "a transport that transfers a size (a `file` matrix gives every flow its size)",
            ));
        }
        let total = (plans.len() + ends.len() * count) as u64;
        limits.check(
            &t.key_path("count"),
            count.to_string(),
            &format!("{total} flows"),
            total.saturating_mul(budget::FLOW_BYTES),
            "use fewer flows",
        )?;
        let mut resolved = t.finish()?;
        if let (Some(_), Some(table)) = (&conns, resolved.as_object_mut()) {
            // (the file gives each flow's size, and one flow a line)
            table.remove("size");
            table.remove("count");
        }
        let first = plans.len();
        let mut k = 0;
        for (j, &(s, d)) in ends.iter().enumerate() {
            let conn = conns.as_ref().map(|c| c[j]);
            for _ in 0..count {
                let idx = plans.len();
                let name = match (&base_name, ends.len() * count) {
                    (Some(b), 1) => b.clone(),
                    (Some(b), _) => format!("{b}.{k}"),
                    (None, _) => format!("f{idx}"),
                };
                plans.push(FlowPlan {
                    name,
                    src: s,
                    dst: d,
                    start: start.draw(k, rng) + conn.map_or(Time::ZERO, |c| c.start),
                    spec: spec.clone(),
                    after: Vec::new(),
                    size: conn.map(|c| c.size),
                    table: Some(i as u32),
                });
                k += 1;
            }
        }
        let is_finite = spec.transfers() && (conns.is_some() || resolved.get("size").is_some_and(|v| v != "inf"));
        finite.resize(plans.len(), is_finite);
        waits.push((after, first..plans.len()));
        out.push(resolved);
    }
    root.put("flows", Value::Array(out));
    check_unique_names(&plans, &fpath)?;
    resolve_after(&mut plans, &waits, &finite, &fpath)?;
    Ok(plans)
}

/// `after`: names of flows that must complete before this table's flows start
/// (their `start` is then the delay after the last completion).
fn read_after(t: &mut Tab) -> Res<Vec<String>> {
    let Some(v) = t.raw("after") else {
        return Ok(Vec::new());
    };
    let names = v
        .as_array()
        .filter(|a| !a.is_empty())
        .and_then(|a| {
            a.iter()
                .map(|x| x.as_str().map(String::from))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| t.error("after", v, "a non-empty list of flow names"))?;
    t.put("after", v.clone());
    Ok(names)
}

/// Resolves each table's `after` names to flow indices: a name is a flow's, or
/// a table's `name` standing for every flow it made (`<name>.<k>`). Refuses an
/// unknown name, a flow that never completes (no finite `size`), and cycles.
fn resolve_after(
    plans: &mut [FlowPlan],
    waits: &[(Vec<String>, std::ops::Range<usize>)],
    finite: &[bool],
    fpath: &str,
) -> Res<()> {
    let index: HashMap<&str, usize> = plans.iter().enumerate().map(|(i, p)| (p.name.as_str(), i)).collect();
    let mut resolved: Vec<(Vec<usize>, std::ops::Range<usize>)> = Vec::new();
    for (ti, (names, range)) in waits.iter().enumerate() {
        let path = format!("{fpath}[{ti}].after");
        let mut deps = Vec::new();
        for name in names {
            let prefix = format!("{name}.");
            let found: Vec<usize> = match index.get(name.as_str()) {
                Some(&i) => vec![i],
                None => (0..plans.len())
                    .filter(|&i| plans[i].name.starts_with(&prefix))
                    .collect(),
            };
            if found.is_empty() {
                return Err(ScenarioError {
                    path,
                    value: format!("{name:?}"),
                    expected: "names of flows of the scenario (or a flow table's `name`)".into(),
                });
            }
            if let Some(&i) = found.iter().find(|&&i| !finite[i]) {
                return Err(ScenarioError {
                    path,
                    value: format!("{name:?}"),
                    expected: format!("flows that complete (flow {:?} has no finite `size`)", plans[i].name),
                });
            }
            deps.extend(found);
        }
        resolved.push((deps, range.clone()));
    }
    for (deps, range) in resolved {
        for i in range {
            plans[i].after = deps.clone();
        }
    }
    // a cycle leaves its flows waiting for ever: Kahn's algorithm finds them
    let mut waiting: Vec<usize> = plans.iter().map(|p| p.after.len()).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); plans.len()];
    for (j, p) in plans.iter().enumerate() {
        for &i in &p.after {
            dependents[i].push(j);
        }
    }
    let mut ready: Vec<usize> = (0..plans.len()).filter(|&i| waiting[i] == 0).collect();
    let mut seen = 0;
    while let Some(i) = ready.pop() {
        seen += 1;
        for &j in &dependents[i] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.push(j);
            }
        }
    }
    if seen < plans.len() {
        let stuck = (0..plans.len()).find(|&i| waiting[i] > 0).expect("a flow in a cycle");
        return Err(ScenarioError {
            path: fpath.to_string(),
            value: format!("{:?}", plans[stuck].name),
            expected: "`after` without cycles (this flow waits, through `after`, for itself)".into(),
        });
    }
    Ok(())
}

/// A flow table's endpoints as (source, destination) node indices: dumbbell
/// `pairs` ("all" or pair indices), `src` and `dst` node names, or a connection
/// `matrix` ([`super::matrix`]).
/// A `file` matrix gives each flow its start (after the table's `start`) and
/// size, one flow a line: the table's `size` and a `count` above one would
/// contradict it, and a `start` list or draw has no flow to go to.
fn refuse_with_file(t: &Tab) -> Res<()> {
    for (key, why) in [
        (
            "size",
            "no `size` with a `file` matrix (each connection's size is in the file)",
        ),
        ("count", "no `count` with a `file` matrix (each line is one flow)"),
    ] {
        if let Some(v) = t.get(key) {
            return Err(t.error(key, v, why));
        }
    }
    match t.get("start") {
        Some(v) if !v.is_string() => Err(t.error(
            "start",
            v,
            "one time with a `file` matrix (added to each connection's own start)",
        )),
        _ => Ok(()),
    }
}

/// The flow table's (source, destination) pairs, and a `file` matrix's
/// connections (one per pair).
fn read_ends(t: &mut Tab, net: &Net, rng: &mut Rng) -> Res<(Pairs, Option<Vec<Conn>>)> {
    let mut ends: Vec<(usize, usize)> = Vec::new();
    if let Some(mut m) = t.table("matrix")? {
        for key in ["pairs", "src", "dst"] {
            if t.has(key) {
                return Err(t.error(
                    key,
                    t.get(key).expect("present"),
                    "either `matrix` or `pairs` / `src` and `dst`, not both",
                ));
            }
        }
        t.raw("pairs");
        t.raw("src");
        t.raw("dst");
        let read = super::matrix::read(&mut m, net, rng)?;
        t.put("matrix", m.finish()?);
        return Ok(read);
    }
    t.raw("matrix");
    if let Some(p) = t.raw("pairs") {
        if net.pairs.is_empty() {
            return Err(t.error("pairs", p, "`pairs` only with a dumbbell topology; use src and dst"));
        }
        let expected = format!("\"all\" or a list of pair indices in [0, {}]", net.pairs.len() - 1);
        match p {
            Value::String(s) if s == "all" => ends.extend(net.pairs.iter().copied()),
            Value::Array(a) => {
                for x in a {
                    let k = x
                        .as_u64()
                        .filter(|k| (*k as usize) < net.pairs.len())
                        .ok_or_else(|| t.error("pairs", p, expected.clone()))?;
                    ends.push(net.pairs[k as usize]);
                }
            }
            _ => return Err(t.error("pairs", p, expected)),
        }
        t.put("pairs", p.clone());
        t.raw("src");
        t.raw("dst");
        if t.has("src") || t.has("dst") {
            return Err(t.error("src", &Value::Null, "either `pairs` or `src`/`dst`, not both"));
        }
    } else {
        let node = |t: &mut Tab, key: &'static str| -> Res<usize> {
            let name = t
                .string(key)?
                .ok_or_else(|| t.missing(key, "a node name (or `pairs` on a dumbbell, or a `matrix`)"))?;
            net.index.get(&name).copied().ok_or_else(|| ScenarioError {
                path: t.key_path(key),
                value: format!("{name:?}"),
                expected: format!("one of the topology's nodes: {}", cfg::names_hint(&name, &net.names)),
            })
        };
        let s = node(t, "src")?;
        let d = node(t, "dst")?;
        if s == d {
            return Err(t.error("dst", &Value::String(net.names[d].clone()), "a node different from src"));
        }
        ends.push((s, d));
    }
    Ok((ends, None))
}

/// Refuses two flows of one name (`fpath`: the `flows` key's path).
pub(super) fn check_unique_names(plans: &[FlowPlan], fpath: &str) -> Res<()> {
    let mut seen = HashMap::new();
    for (i, p) in plans.iter().enumerate() {
        if let Some(j) = seen.insert(p.name.clone(), i) {
            return Err(ScenarioError {
                path: fpath.to_string(),
                value: format!("{:?}", p.name),
                expected: format!("unique flow names (flows {j} and {i} share one)"),
            });
        }
    }
    Ok(())
}

/// Refuses a flow whose transport needs a queue kind at every switch
/// ([`TransportSpec::switch_queue`], NDP's trimming) on a path with a switch
/// queue of another kind: every equal-cost path from `src` to `dst`, each
/// link out of a router (a host's own queue is the sender's NIC).
pub(super) fn check_switch_queues(sim: &Sim, plans: &[FlowPlan], fpath: &str) -> Res<()> {
    let mut checked = std::collections::HashSet::new();
    for p in plans {
        let Some(kind) = p.spec.switch_queue() else { continue };
        if !checked.insert((p.src, p.dst, kind)) {
            continue;
        }
        let dst = NodeId(p.dst as u32);
        let mut seen = vec![false; sim.nodes.len()];
        let mut todo = vec![p.src];
        while let Some(n) = todo.pop() {
            if n == p.dst || std::mem::replace(&mut seen[n], true) {
                continue;
            }
            let route = &sim.nodes[n].route;
            let router = !matches!(route, crate::routing::Route::Only(_));
            let mut bad = None;
            route.each_hop(dst, |l| {
                let link = &sim.links[l.idx()];
                if router && link.qdisc.kind() != kind && bad.is_none() {
                    bad = Some(l);
                }
                todo.push(link.to.idx());
            });
            if let Some(l) = bad {
                let link = &sim.links[l.idx()];
                let key = match p.table {
                    Some(i) => format!("{fpath}[{i}].kind"),
                    None => "collectives".to_string(),
                };
                return Err(ScenarioError {
                    path: key,
                    value: format!("{:?}", p.spec.kind()),
                    expected: format!(
                        "queues of kind {kind:?} at every switch on its paths (flow {:?} crosses {} whose queue is {:?}): set that link's queue (or reverse_queue) to {{kind = {kind:?}}}",
                        p.name,
                        link.name,
                        link.qdisc.kind()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Builds the planned flows into `sim` (after its nodes and links).
pub(super) fn build(sim: &mut Sim, plans: Vec<FlowPlan>) {
    let n = plans.len();
    sim.flows.reserve_exact(n);
    let shared = crate::endpoint::Shared::default();
    for (i, p) in plans.into_iter().enumerate() {
        let fid = FlowId(i as u32);
        let (src, dst) = (NodeId(p.src as u32), NodeId(p.dst as u32));
        let env = Env {
            flow: fid,
            src,
            dst,
            first_hop: sim.world().first_hop_rate(src, dst),
            size: p.size,
            rng: Rng::new(sim.seed, STREAM_FLOW + i as u64),
            hops: if p.spec.wants_hops() {
                sim.world().hops(src, dst)
            } else {
                0
            },
            last_hop: sim.world().first_hop_rate(dst, src),
            shared: Some(shared.clone()),
            base_rtt: p
                .spec
                .base_rtt_sizes()
                .map(|(d, a)| sim.world().base_rtt(src, dst, d, a)),
        };
        let (snd, rcv) = p.spec.build(env);
        let ip_id = Flow::initial_ip_ids(sim.seed, i);
        if !p.after.is_empty() {
            sim.deps
                .get_or_insert_with(|| Box::new(Deps::new(n)))
                .wait(i, &p.after, p.start);
        }
        sim.flows
            .push(Flow::new(p.name, p.spec.kind(), src, dst, p.start, snd, rcv, ip_id));
    }
}
