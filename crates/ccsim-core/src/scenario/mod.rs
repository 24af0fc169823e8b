//! Scenarios: the one schema shared by TOML files, Python dicts and the CLI.
//!
//! A scenario arrives as JSON text (Python converts TOML and dicts), is read
//! with [`crate::cfg::Tab`] so that every error names its key path, and is
//! built into a [`Sim`]. The same pass produces the fully resolved scenario
//! (every default filled in, units canonical), which identifies a run.
//! The keys are documented in docs/user-guide.md.
//!
//! Building is a driver: each section goes to the code that owns it, in an
//! order where each finds what it needs: `[topology]` (`topology.rs`),
//! `[switches]` ([`crate::mmu`]), `[[flows]]` (`flows.rs`), `[[workloads]]`
//! ([`crate::workload`]), routing and the budget, the world's nodes, links and
//! flows, `[[components]]` ([`crate::components`]), the switches' memory
//! (`Sim::install_switches`), `[monitor]` ([`crate::monitor`]), `[[capture]]`
//! and `[trace]` ([`crate::tap`]). The random draws of the build (delays,
//! start times) come from one stream in that order.

mod collective;
mod flows;
mod matrix;
mod topology;

use crate::budget::Limits;
use crate::cfg::{time_str, Res, ScenarioError, Tab};
use crate::components;
use crate::endpoint::TransportSpec;
use crate::rng::Rng;
use crate::sim::Sim;
use crate::units::Time;
use crate::workload;
use serde_json::Value;
use std::sync::Arc;

/// RNG stream of the build's own draws (see rng.rs).
const STREAM_BUILD: u64 = 1;

/// Reads, validates and builds a scenario. Returns the simulator, ready to
/// run, and the fully resolved scenario.
pub fn build(text: &str) -> Res<(Sim, Value)> {
    build_limited(text, &Limits::default())
}

/// [`build`] within `limits`: refuses, before allocating, what would not fit.
pub fn build_limited(text: &str, limits: &Limits) -> Res<(Sim, Value)> {
    let v: Value = serde_json::from_str(text).map_err(|e| ScenarioError {
        path: String::new(),
        value: String::new(),
        expected: format!("a scenario table (could not parse: {e})"),
    })?;
    let mut root = Tab::new(String::new(), &v)?;
    root.string("name")?;
    root.string("description")?;
    let seed = root.uint("seed", Some(1), 0, u64::MAX)?;
    let duration = root.time("duration", None)?;
    if duration == Time::ZERO {
        return Err(root.error(
            "duration",
            &Value::String("0s".into()),
            "a positive time such as \"20s\"",
        ));
    }
    let warmup = root.time("warmup", Some("0s"))?;
    if warmup >= duration {
        return Err(root.error(
            "warmup",
            &Value::String(time_str(warmup)),
            format!("a time shorter than duration ({})", time_str(duration)),
        ));
    }
    let mut rng = Rng::new(seed, STREAM_BUILD);
    let net = topology::read(&mut root, &mut rng)?;
    let switches = crate::mmu::read(&mut root, &net.names, &net.routers())?;
    let mut plans = flows::read(&mut root, &net, &mut rng, duration, limits)?;
    let authored = plans.len();
    collective::read(&mut root, &net, duration, limits, &mut plans)?;
    if plans.len() > authored {
        flows::check_unique_names(&plans, "collectives")?;
    }
    let (mut workloads, pairs) = workload::read(&mut root, &net.nodes(), duration, seed)?;
    let ends: Vec<topology::FlowEnds> = plans.iter().map(flows::FlowPlan::ends).collect();
    let routes = net.route(&ends, &pairs, limits)?;
    drop(ends);

    let mut sim = Sim::new(seed, duration, warmup);
    let specs: Vec<&Arc<dyn TransportSpec>> = plans
        .iter()
        .map(|p| &p.spec)
        .chain(workloads.list.iter().map(|w| &w.spec))
        .collect();
    net.build(&mut sim, routes, &specs, switches.as_ref())?;
    let max_packet = specs.iter().map(|p| p.max_packet()).max().unwrap_or(0);
    drop(specs);
    flows::check_switch_queues(&sim, &plans, "flows")?;
    let int_users = telemetry_users(&plans, &workloads);
    flows::build(&mut sim, plans);
    if !workloads.list.is_empty() {
        workloads.first_slot = Some(sim.flows.len());
    }
    sim.workloads = workloads;
    for (node, comp) in components::read(&mut root, &sim.world())? {
        sim.add_component(node, comp);
    }
    if let Some(spec) = &switches {
        sim.install_switches(spec, max_packet)?;
    }
    check_telemetry(&sim, switches.as_ref(), &int_users, &net.routers())?;
    sim.monitor = crate::monitor::read(&mut root, sim.world(), duration, limits)?;
    let first_slot = sim.workloads.first_slot.unwrap_or(sim.flows.len());
    let workload_names = sim.workloads.names();
    sim.taps = crate::tap::read(&mut root, sim.world(), first_slot, &workload_names, sim.end)?;
    let resolved = root.finish()?;
    sim.memory_limit = limits.memory;
    sim.prime();
    Ok((sim, resolved))
}

/// Who reads in-band telemetry: the static flows (index, name) and the
/// first workload whose transport does (HPCC).
struct IntUsers {
    flows: Vec<(usize, String)>,
    workload: Option<String>,
}

fn telemetry_users(plans: &[flows::FlowPlan], workloads: &workload::Workloads) -> IntUsers {
    IntUsers {
        flows: plans
            .iter()
            .enumerate()
            .filter(|(_, p)| p.spec.needs_int())
            .map(|(i, p)| (i, p.name.clone()))
            .collect(),
        workload: workloads
            .list
            .iter()
            .find(|w| w.spec.needs_int())
            .map(|w| w.name.clone()),
    }
}

/// Refuses a flow that reads in-band telemetry (HPCC) unless the switches
/// stamp it (`switches.int`) and every node that forwards its packets is one
/// of them, within [`crate::int::MAX_HOPS`] of them (a workload's
/// connections: every router).
fn check_telemetry(sim: &Sim, spec: Option<&crate::mmu::SwitchesSpec>, users: &IntUsers, routers: &[usize]) -> Res<()> {
    let who = match (users.flows.first(), &users.workload) {
        (Some((_, f)), _) => format!("flow {f:?}"),
        (None, Some(w)) => format!("workload {w:?}"),
        (None, None) => return Ok(()),
    };
    let stamping = match spec {
        Some(s) if s.int => &s.nodes,
        _ => {
            return Err(ScenarioError {
                path: "switches.int".into(),
                value: spec.map_or("absent".into(), |_| "false".into()),
                expected: format!(
                    "true, with every switch listed in switches.nodes: {who} runs rate_control = \"hpcc\", \
                     which reads the in-band telemetry the switches stamp"
                ),
            })
        }
    };
    let refuse = |node: usize, who: &str| ScenarioError {
        path: "switches.nodes".into(),
        value: format!("{:?}", sim.nodes[node].name),
        expected: format!(
            "a list that includes node {:?}: {who} crosses it and runs rate_control = \"hpcc\", \
             which needs in-band telemetry at every switch (switches.int = true)",
            sim.nodes[node].name
        ),
    };
    for (i, name) in &users.flows {
        let f = &sim.flows[*i];
        let (mut n, mut hops) = (f.src, 0);
        while n != f.dst {
            if n != f.src {
                if !stamping.contains(&n.idx()) {
                    return Err(refuse(n.idx(), &format!("flow {name:?}")));
                }
                hops += 1;
            }
            let Some(l) = sim.nodes[n.idx()].next_hop_for(f.dst, crate::packet::FlowId(*i as u32), || None) else {
                break;
            };
            n = sim.links[l.idx()].to;
        }
        if hops > crate::int::MAX_HOPS {
            return Err(ScenarioError {
                path: "flows".into(),
                value: format!("{name:?}"),
                expected: format!(
                    "an HPCC flow crossing at most {} switches (in-band telemetry records {} hops; it crosses {hops})",
                    crate::int::MAX_HOPS,
                    crate::int::MAX_HOPS
                ),
            });
        }
    }
    if let Some(w) = &users.workload {
        if let Some(&r) = routers.iter().find(|r| !stamping.contains(r)) {
            return Err(refuse(
                r,
                &format!("workload {w:?} (its connections may cross any switch)"),
            ));
        }
    }
    Ok(())
}
