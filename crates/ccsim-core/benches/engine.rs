//! Engine benchmarks: whole scenarios and the event queue.
//!
//! `cargo bench -p ccsim-core [-- FILTER]` (release build). Each scenario is run
//! `REPEAT` times and the best wall time is reported with events/s, delivered
//! data packets per wall second, simulated seconds per wall second and the
//! largest number of events pending at once. The event-queue benchmark is the
//! classic "hold" model (pop the earliest event, push one a random
//! exponential time later) at a fixed number of pending events, in ns per hold.
//! Results are machine-dependent; docs/performance.md records ours.

use ccsim_core::rng::Rng;
use ccsim_core::sched::Scheduler;
use ccsim_core::units::Time;
use serde_json::json;
use std::time::Instant;

const REPEAT: usize = 3;

/// The speed benchmark of the issue (8 NewReno flows, 100 Mbps / 20 ms), the
/// same file `ccsim bench` runs; and the parking-lot example.
const DUMBBELL_8: &str = include_str!("../../../scenarios/bench-dumbbell-8.toml");
const PARKING_LOT: &str = include_str!("../../../scenarios/graph-parking-lot.toml");

/// The engine reads JSON; the Python layer converts TOML, here the `toml` crate does.
fn from_toml(text: &str) -> String {
    toml::from_str::<serde_json::Value>(text)
        .expect("valid TOML")
        .to_string()
}

/// Westwood+ paper Fig. 8 shape: 200 NewReno flows, 100 Mbps / 100 ms RTT,
/// buffer 0.2 BDP, 20 s.
fn dumbbell_200() -> String {
    json!({"name": "bench-dumbbell-200", "duration": "20s",
        "topology": {"kind": "dumbbell", "pairs": 200,
            "bottleneck": {"rate": "100Mbps", "delay": "48ms", "queue": {"limit": "0.2bdp"}},
            "access": {"rate": "1Gbps", "delay": "0.5ms"}},
        "flows": [{"pairs": "all", "cc": "newreno", "mss": 1460, "start": {"uniform": ["0s", "1s"]}}]})
    .to_string()
}

/// Token F-TCP, five connections at 5x rates with the gate (promise accounting).
fn token_gate_5() -> String {
    let mut nodes = vec!["router_1".to_string(), "router_2".to_string()];
    let mut links = vec![
        json!({"from": "router_1", "to": "router_2", "rate": "10Mbps", "delay": "140ms",
        "queue": {"limit": "40000bit"}, "reverse_queue": {"limit": "inf"}}),
    ];
    let mut flows = Vec::new();
    for i in 0..5 {
        let (s, c) = (format!("server{i}"), format!("client{i}"));
        links.push(json!({"from": s, "to": "router_1", "rate": "50Mbps", "delay": "1ms"}));
        links.push(json!({"from": "router_2", "to": c, "rate": "50Mbps", "delay": "1ms"}));
        flows.push(
            json!({"name": format!("conn{i}"), "src": s, "dst": c, "cc": "reno", "mss": 536,
            "header": 40, "init_cwnd": 1, "init_ssthresh": "30493B", "rwnd": "60985B",
            "start": format!("{}s", 2.2 * i as f64)}),
        );
        nodes.push(s);
        nodes.push(c);
    }
    json!({"name": "bench-token-gate-5", "duration": "60s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links}, "flows": flows,
        "components": [{"node": "router_1", "kind": "token_gate", "forward": "router_1->router_2",
            "buffer": "40000bit", "in_transit": "count"}]})
    .to_string()
}

fn scenario(name: &str, text: &str) {
    let mut best: Option<(f64, ccsim_core::output::Output)> = None;
    for _ in 0..REPEAT {
        let t = Instant::now();
        let out = ccsim_core::run(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let wall = t.elapsed().as_secs_f64();
        if best.as_ref().is_none_or(|b| wall < b.0) {
            best = Some((wall, out));
        }
    }
    let (wall, out) = best.expect("REPEAT > 0");
    let s = &out.summary;
    let n = |k: &str| s[k].as_f64().unwrap_or(f64::NAN);
    println!(
        "{name:<22} {wall:>8.3} s  {:>7.2} M events/s  {:>7.0} k data pkts/s  {:>7.1} sim s/s  peak queue {:>5}",
        n("events") / wall / 1e6,
        n("data_packets_delivered") / wall / 1e3,
        n("duration_s") / wall,
        s["peak_pending_events"],
    );
}

/// Hold model: `n` pending events, `holds` pop+push pairs; ns per hold. The
/// exponential increments are drawn beforehand, so only the queue is timed.
fn hold(n: usize, holds: usize) {
    let mut rng = Rng::new(1, 0);
    let mean = 1e-3; // 1 ms between an event and the one it schedules
    let steps: Vec<Time> = (0..1 << 16).map(|_| Time::from_secs_f64(rng.exp(mean))).collect();
    let mut q: Scheduler<u32> = Scheduler::new();
    for i in 0..n {
        q.schedule(steps[i % steps.len()], i as u32);
    }
    let t = Instant::now();
    let mut sink = 0u64;
    for i in 0..holds {
        let (now, ev) = q.pop().expect("never empty");
        sink = sink.wrapping_add(ev as u64);
        q.schedule(now + steps[i & (steps.len() - 1)], ev);
    }
    let ns = t.elapsed().as_nanos() as f64 / holds as f64;
    println!("event queue hold, {n:>6} pending: {ns:>6.1} ns per pop+push (checksum {sink})");
}

fn main() {
    // `cargo bench` passes `--bench`; anything else is a name filter.
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let want = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    let runs: [(&str, String); 4] = [
        ("dumbbell-8", from_toml(DUMBBELL_8)),
        ("dumbbell-200", dumbbell_200()),
        ("parking-lot", from_toml(PARKING_LOT)),
        ("token-gate-5", token_gate_5()),
    ];
    for (name, text) in &runs {
        if want(name) {
            scenario(name, text);
        }
    }
    if want("hold") {
        for n in [16, 256, 4096, 65536] {
            hold(n, 2_000_000);
        }
    }
}
