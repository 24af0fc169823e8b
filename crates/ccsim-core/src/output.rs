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

/// Builds the result tables from a finished simulation, which it consumes:
/// each part of the world reports its own (flows, queues, workloads, trace,
/// time series, components' event logs), and the run's summary.
///
/// The summary is taken first; then the packets still inside the network
/// and the pending events, which no table reads, are let go, and each link
/// is dropped as soon as its row of the `queues` table is written (the
/// table built last), so that the tables take the place of the run's state
/// rather than adding to it: with thousands of flows they are as large as
/// the state they describe.
pub fn collect(mut sim: Sim, resolved: String, events: u64) -> Output {
    let workload_names = sim.workloads.names();
    let (files, trace) = match sim.taps.take() {
        Some(t) => t.finish(sim.world(), &workload_names),
        None => (Vec::new(), None),
    };
    let summary = summary(&sim, events);
    sim.release_packets();
    let mut tables = Vec::new();
    {
        let sim = &sim;
        let world = sim.world();
        let node_name = |n: NodeId| sim.nodes[n.idx()].name.clone();
        tables.push(world::flows_table(
            &sim.nodes,
            &sim.flows[..sim.static_flows()],
            sim.warmup,
            sim.end,
        ));
        tables.extend(workload::tables(
            &sim.workloads,
            &sim.connection_rows(),
            &node_name,
            sim.end,
        ));
        tables.extend(trace);
        tables.extend(sim.monitor.tables(world));
        tables.extend(world::component_events(world));
    }
    drop(std::mem::take(&mut sim.flows));
    let pfc = sim.pause_counts();
    let links = std::mem::take(&mut sim.links);
    let nodes = &sim.nodes;
    let queues = link::queues_table(
        links,
        &sim.link_base,
        pfc,
        &|n: NodeId| nodes[n.idx()].name.clone(),
        sim.warmup,
        sim.end,
    );
    tables.insert(1, queues); // (flows, queues, then the rest)
    Output {
        summary,
        resolved,
        tables,
        files,
    }
}

/// The run's summary: its counts, and what components, congestion control
/// modules and workloads report.
fn summary(sim: &Sim, events: u64) -> Value {
    let statics = &sim.flows[..sim.static_flows()];
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
    summary
}
