//! Resource guards: refuse early what cannot fit, stop what cannot progress.
//!
//! A Rust allocation failure aborts the whole process (it is not a panic and cannot
//! be caught), which would take a Python session down with it. So the builder
//! estimates the memory a scenario will need *before* allocating it and refuses
//! with a [`ScenarioError`] naming the key to change and the estimate; during the
//! run, [`crate::sim::Sim::step`] compares what the run holds (packets inside the
//! network, time series, pending events) with the same budget and stops with a
//! [`SimError`] instead of growing without limit (an `"inf"` queue under overload).
//!
//! Each estimate is one function below, so that a new structure that grows with the
//! scenario (say a routing scheme) brings its term here. The estimates are upper
//! bounds of the engine's own allocations (and, for time series, of the copies the
//! Python layer makes of them).
//!
//! Time must also advance: [`INSTANT_EVENTS`] bounds the events processed at one
//! simulated instant, which turns a zero-time loop (say a link whose serialization
//! rounds to 0 ns with no propagation delay) into a clear error instead of a hang.

use crate::cfg::{Res, ScenarioError};
use crate::error::SimError;
use crate::packet::Packet;
use crate::units::Time;

/// Limits of one run, chosen by the caller (the Python layer passes half of the
/// machine's memory unless told otherwise).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Limits {
    /// Bytes the engine may hold for one run.
    pub memory: u64,
}

/// Memory budget when the caller gives none: 8 GiB.
pub const DEFAULT_MEMORY: u64 = 8 << 30;

impl Default for Limits {
    fn default() -> Self {
        Limits { memory: DEFAULT_MEMORY }
    }
}

/// Events allowed at one simulated instant, plus [`INSTANT_EVENTS_PER_OBJECT`] per
/// node, link and flow (a legitimate instant, such as every flow starting at 0 s,
/// has a few events per object; a zero-time loop has no end).
pub const INSTANT_EVENTS: u64 = 10_000_000;
pub const INSTANT_EVENTS_PER_OBJECT: u64 = 64;

/// Engine bytes per packet held inside the network (a queue entry or a slab slot
/// with its pipe entry, with the slack of a growing `VecDeque` or `Vec`).
pub const PACKET_BYTES: u64 = 2 * (std::mem::size_of::<Packet>() as u64 + 8);

/// Engine bytes per flow (sender, receiver, scoreboard, tables), generous.
pub const FLOW_BYTES: u64 = 4096;

/// Engine bytes per link (the link, its queue discipline, statistics twice, name,
/// queue view), generous: measured about 1.8 KB per link on a 100 000-pair dumbbell.
pub const LINK_BYTES: u64 = 2048;

/// Engine bytes per node (name, route, components), generous.
pub const NODE_BYTES: u64 = 256;

/// The network: its links and nodes, and the forwarding tables.
pub fn network_bytes(routers: u64, nodes: u64, links: u64) -> u64 {
    links
        .saturating_mul(LINK_BYTES)
        .saturating_add(nodes.saturating_mul(NODE_BYTES))
        .saturating_add(routing_bytes(routers, nodes))
}

/// Forwarding tables: one `u32` next hop per (router, destination) — only nodes
/// with several output links keep a table (`routing::route`) — plus the search's
/// per-node work space (link lists, distances: 64 B per node).
pub fn routing_bytes(routers: u64, nodes: u64) -> u64 {
    routers
        .saturating_mul(nodes)
        .saturating_mul(4)
        .saturating_add(nodes.saturating_mul(64))
}

/// Time series: `samples` rows for each monitored queue (40 B), flow (80 B) and
/// component or queue-discipline value (32 B), counted four times: the engine's vectors with the slack
/// of growing them, and the two copies the Python layer makes (bytes, DataFrame).
pub fn monitor_bytes(samples: u64, queues: u64, flows: u64, component_values: u64) -> u64 {
    let per_sample = queues * 48 + flows * 80 + component_values * 32;
    samples.saturating_mul(per_sample).saturating_mul(4)
}

/// `1.5 GB`, `320 MB`: a byte count for messages.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    for (unit, scale) in [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)] {
        if b >= scale {
            return format!("{:.1} {unit}", b / scale);
        }
    }
    format!("{bytes} B")
}

impl Limits {
    /// Refuses an estimate above the budget: `path` is the key to change, `value` its
    /// value as written, `what` says what grows, `fix` how to shrink it.
    pub fn check(&self, path: &str, value: String, what: &str, bytes: u64, fix: &str) -> Res<()> {
        if bytes <= self.memory {
            return Ok(());
        }
        Err(ScenarioError {
            path: path.into(),
            value,
            expected: format!(
                "a scenario that fits the memory budget: {what} would take about {} (budget {}); \
                 {fix}, or raise the budget (memory_limit=..., or the CCSIM_MEMORY_LIMIT \
                 environment variable)",
                human(bytes),
                human(self.memory)
            ),
        })
    }
}

/// The error for an instant at which too many events happened.
pub fn stalled(now: Time, events: u64, suspects: &[String]) -> SimError {
    let hint = if suspects.is_empty() {
        "a source or timer that fires again at the same instant".to_string()
    } else {
        format!(
            "links that send packets in 0 ns (no delay, serialization under 1 ns): {}",
            suspects.join(", ")
        )
    };
    SimError(format!(
        "simulated time stopped advancing: {events} events at t = {now} without time moving \
         on (a zero-time loop; look for {hint}); give such links a delay or a lower rate"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_saturate_instead_of_overflowing() {
        assert_eq!(routing_bytes(2, 200_002), 2 * 200_002 * 4 + 200_002 * 64);
        assert_eq!(routing_bytes(u64::MAX, 2), u64::MAX);
        assert_eq!(
            network_bytes(2, 200_002, 400_002),
            400_002 * 2048 + 200_002 * 256 + routing_bytes(2, 200_002)
        );
        assert_eq!(monitor_bytes(u64::MAX, 1, 1, 0), u64::MAX);
    }

    #[test]
    fn check_names_key_estimate_and_budget() {
        let l = Limits { memory: 1 << 30 };
        assert!(l.check("topology.pairs", "5".into(), "x", 1 << 29, "fix").is_ok());
        let e = l
            .check(
                "topology.nodes",
                "200002 nodes".into(),
                "routing",
                routing_bytes(200_002, 200_002),
                "use fewer routers",
            )
            .unwrap_err();
        assert_eq!(e.path, "topology.nodes");
        assert!(
            e.expected.contains("160.0 GB") && e.expected.contains("budget 1.1 GB"),
            "{e}"
        );
    }
}
