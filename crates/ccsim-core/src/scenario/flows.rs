//! The `[[flows]]` section: each table names its ends (`src`/`dst`, or
//! dumbbell `pairs`), a `count`, `start` times and its transport (`kind` and
//! that transport's keys, read by [`crate::transport`]); read into flow plans,
//! then built into the world's flows. Keys: docs/user-guide.md "Flows".

use super::topology::{read_spread, FlowEnds, Net};
use crate::budget::{self, Limits};
use crate::cfg::{self, Res, ScenarioError, Tab};
use crate::endpoint::{Env, TransportSpec};
use crate::network::Network;
use crate::packet::{FlowId, NodeId};
use crate::rng::Rng;
use crate::sim::Sim;
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
    pub(super) start: Time,
    pub(super) spec: Arc<dyn TransportSpec>,
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
        None if root.has("workloads") => return Ok(Vec::new()),
        None => return Err(root.missing("flows", "a list of flows ([[flows]] tables) or [[workloads]]")),
    };
    let fpath = root.key_path("flows");
    let mut plans = Vec::new();
    let mut out = Vec::new();
    for (i, v) in arr.iter().enumerate() {
        let mut t = Tab::new(format!("{fpath}[{i}]"), v)?;
        let base_name = t.string("name")?;
        let ends = read_ends(&mut t, net, rng)?;
        let count = t.uint("count", Some(1), 1, 1_000_000)? as usize;
        let start = read_spread(&mut t, "start", "0s", None)?;
        let cx = ReadCtx {
            duration,
            in_workload: false,
        };
        let spec = transport::read(&mut t, &cx)?;
        let total = (plans.len() + ends.len() * count) as u64;
        limits.check(
            &t.key_path("count"),
            count.to_string(),
            &format!("{total} flows"),
            total.saturating_mul(budget::FLOW_BYTES),
            "use fewer flows",
        )?;
        let resolved = t.finish()?;
        let mut k = 0;
        for &(s, d) in &ends {
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
                    start: start.draw(k, rng),
                    spec: spec.clone(),
                });
                k += 1;
            }
        }
        out.push(resolved);
    }
    root.put("flows", Value::Array(out));
    check_unique_names(&plans, &fpath)?;
    Ok(plans)
}

/// A flow table's endpoints as (source, destination) node indices: dumbbell
/// `pairs` ("all" or pair indices), `src` and `dst` node names, or a connection
/// `matrix` ([`super::matrix`]).
fn read_ends(t: &mut Tab, net: &Net, rng: &mut Rng) -> Res<Vec<(usize, usize)>> {
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
        let ends = super::matrix::read(&mut m, net, rng)?;
        t.put("matrix", m.finish()?);
        return Ok(ends);
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
    Ok(ends)
}

/// Refuses two flows of one name (`fpath`: the `flows` key's path).
fn check_unique_names(plans: &[FlowPlan], fpath: &str) -> Res<()> {
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

/// Builds the planned flows into `sim` (after its nodes and links).
pub(super) fn build(sim: &mut Sim, plans: Vec<FlowPlan>) {
    sim.flows.reserve_exact(plans.len());
    for (i, p) in plans.into_iter().enumerate() {
        let fid = FlowId(i as u32);
        let (src, dst) = (NodeId(p.src as u32), NodeId(p.dst as u32));
        let env = Env {
            flow: fid,
            src,
            dst,
            first_hop: sim.world().first_hop_rate(src, dst),
            size: None,
            rng: Rng::new(sim.seed, STREAM_FLOW + i as u64),
        };
        let (snd, rcv) = p.spec.build(env);
        let ip_id = Flow::initial_ip_ids(sim.seed, i);
        sim.flows
            .push(Flow::new(p.name, p.spec.kind(), src, dst, p.start, snd, rcv, ip_id));
    }
}
