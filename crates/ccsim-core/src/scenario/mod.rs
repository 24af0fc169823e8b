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
    sim.monitor = crate::monitor::read(&mut root, sim.world(), duration, limits)?;
    let first_slot = sim.workloads.first_slot.unwrap_or(sim.flows.len());
    let workload_names = sim.workloads.names();
    sim.taps = crate::tap::read(&mut root, sim.world(), first_slot, &workload_names, sim.end)?;
    let resolved = root.finish()?;
    sim.memory_limit = limits.memory;
    sim.prime();
    Ok((sim, resolved))
}
