//! Results of a run as column tables (flows, queues, time series) and a JSON
//! summary. The Python layer turns the columns into pandas DataFrames.

use crate::link;
use crate::packet::NodeId;
use crate::sim::Sim;
pub use crate::table::{Column, Table};
use crate::workload;
use crate::world;
use serde_json::{json, Value};

pub struct Output {
    pub summary: Value,
    /// The fully resolved scenario as JSON text (kept as text during the run:
    /// a tree of every flow's keys would take several times the memory).
    pub resolved: String,
    pub tables: Vec<Table>,
    /// Result files by name: packet captures, the ns-2 text trace.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Builds the result tables from a finished simulation: each part of the
/// world reports its own (flows, queues, workloads, trace, time series,
/// components' event logs), then the run's summary.
pub fn collect(sim: &mut Sim, resolved: String, events: u64) -> Output {
    let workload_names = sim.workloads.names();
    let (files, trace) = match sim.taps.take() {
        Some(t) => t.finish(sim.world(), &workload_names),
        None => (Vec::new(), None),
    };
    let sim = &*sim;
    let world = sim.world();
    let statics = &sim.flows[..sim.static_flows()];
    let node_name = |n: NodeId| sim.nodes[n.idx()].name.clone();
    let mut tables = vec![
        world::flows_table(&sim.nodes, statics, sim.warmup, sim.end),
        link::queues_table(&sim.links, &sim.link_base, &node_name, sim.warmup, sim.end),
    ];
    tables.extend(workload::tables(
        &sim.workloads,
        &sim.connection_rows(),
        &node_name,
        sim.end,
    ));
    tables.extend(trace);
    tables.extend(sim.monitor.tables(world));
    tables.extend(world::component_events(world));
    let c = &sim.counters;
    let mut summary = json!({
        "ccsim_version": crate::VERSION,
        "seed": sim.seed,
        "duration_s": sim.end.secs(),
        "warmup_s": sim.warmup.secs(),
        "events": events,
        "peak_pending_events": sim.sched.peak_len(),
        "flows": statics.len(),
        "links": sim.links.len(),
        "packets_created": c.created,
        "packets_delivered": c.delivered,
        "packets_dropped": c.dropped,
        "packets_in_flight": sim.in_flight(),
        "data_packets_delivered": c.data_delivered,
        "components": world::component_stats(&sim.nodes),
        "cc": world::cc_stats(statics),
    });
    let slots = sim.flows.len() - statics.len();
    if let Some(extra) = sim.workloads.summary(slots) {
        summary.as_object_mut().expect("object").extend(extra);
    }
    Output {
        summary,
        resolved,
        tables,
        files,
    }
}
