//! Engine benchmarks: whole scenarios, the event queue and queue disciplines.
//!
//! `cargo bench -p ccsim-core [-- FILTER]` (release build; FILTER is a part of a
//! name, or `=name` for exactly one). Each scenario is run
//! `REPEAT` times and the best wall time is reported with events/s, delivered
//! data packets per wall second, simulated seconds per wall second and the
//! largest number of events pending at once. The event-queue benchmark is the
//! classic "hold" model (pop the earliest event, push one a random
//! exponential time later) at a fixed number of pending events, in ns per hold.
//! The queue-discipline benchmark keeps n flows backlogged in one discipline
//! (dequeue a packet, enqueue one for the same flow, time advancing by its
//! transmission) and reports ns per packet (one enqueue and one dequeue).
//! The Parquet benchmark writes a trace-shaped table (a million rows: times,
//! counters, sequence numbers, a categorical event and link) and reports MB/s
//! and ns per row.
//! Results are machine-dependent; docs/performance.md records ours.

use ccsim_core::packet::{FlowId, Kind, NodeId, Packet};
use ccsim_core::qdisc::{self, Limit, LinkInfo, Qdisc, QdiscCtx};
use ccsim_core::rng::Rng;
use ccsim_core::sched::Scheduler;
use ccsim_core::units::{Rate, Time};
use serde_json::{json, Value};
use std::time::Instant;

/// The allocator of the Python extension (crates/ccsim-py), so that the
/// scenario timings are those of `ccsim.run`.
#[global_allocator]
static ALLOC: ccsim_core::alloc::Allocator = ccsim_core::alloc::Allocator;

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

/// The dumbbell-8 benchmark with another bottleneck queue.
fn dumbbell_8_with(queue: Value) -> String {
    let mut v: Value = serde_json::from_str(&from_toml(DUMBBELL_8)).expect("json");
    v["topology"]["bottleneck"]["queue"] = queue;
    v.to_string()
}

/// The dumbbell-8 topology with 8 Poisson sources of 1500-B packets (1.2 C in
/// all) instead of TCP: every discipline sees the same arrivals and delivers
/// the same number of packets, so only its own cost differs.
fn poisson_8(queue: Value) -> String {
    let mut v: Value = serde_json::from_str(&from_toml(DUMBBELL_8)).expect("json");
    v["topology"]["bottleneck"]["queue"] = queue;
    v["flows"] = json!([{"kind": "poisson", "pairs": "all", "rate": "15Mbps", "packet_size": "1500B"}]);
    v.to_string()
}

/// 1000 Poisson sources of 1000-B packets offering 1.2 Gbps to a 1 Gbps
/// bottleneck with `queue`: every flow stays backlogged under fair queueing.
fn poisson_1000(queue: Value) -> String {
    json!({"name": "bench-poisson-1000", "duration": "2s",
        "topology": {"kind": "dumbbell", "pairs": 1000,
            "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": queue},
            "access": {"rate": "10Gbps", "delay": "1ms"}},
        "flows": [{"kind": "poisson", "pairs": "all", "rate": "1.2Mbps"}]})
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
    // TCP data packets; for datagram-only scenarios, every packet delivered.
    let data = match n("data_packets_delivered") {
        x if x > 0.0 => x,
        _ => n("packets_delivered"),
    };
    println!(
        "{name:<22} {wall:>8.3} s  {:>7.2} M events/s  {:>7.0} k data pkts/s  {:>7.1} sim s/s  peak queue {:>5}",
        n("events") / wall / 1e6,
        data / wall / 1e3,
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

/// n flows kept backlogged (4 packets each, sizes 40–1500 B) in a discipline;
/// ns per packet for `packets` enqueue+dequeue pairs. RED's thresholds (2n, 8n
/// packets of 1000 B) put its average in the early-drop region.
fn qdisc_hold(kind: &str, n: usize, packets: usize) {
    let link = LinkInfo {
        rate: Rate(1_000_000_000),
        delay: Time::from_millis(10),
        limit: Limit::Packets(8 * n as u64 + 1),
        max_packet: 1500,
        path: "bench".into(),
        name: "A->B".into(),
    };
    let spec = match kind {
        "red" => json!({"kind": "red", "min_th": 2 * n, "max_th": 8 * n, "mean_pktsize": "1000B",
            "queue_in_bytes": false, "byte_mode": false}),
        _ => json!({"kind": kind}),
    };
    let mut t = ccsim_core::cfg::Tab::new("bench".into(), &spec).expect("table");
    let mut q: Box<dyn Qdisc> = qdisc::read(&mut t).and_then(|s| s.build(&link)).expect("builds");
    let mut rng = Rng::new(1, 0);
    let sizes: Vec<u32> = (0..1024).map(|_| 40 + (rng.next_u64() % 1461) as u32).collect();
    let pkt = |flow: u32, uid: u64| {
        Packet::new(
            uid,
            FlowId(flow),
            NodeId(0),
            NodeId(1),
            sizes[uid as usize & 1023],
            Kind::Data,
            Time::ZERO,
        )
    };
    let (mut drops, mut marks) = (Vec::new(), Vec::new());
    let mut cx = QdiscCtx {
        now: Time::ZERO,
        rng: &mut rng,
        drops: &mut drops,
        marks: &mut marks,
    };
    let mut uid = 0u64;
    for f in 0..n as u32 {
        for _ in 0..4 {
            uid += 1;
            q.enqueue(pkt(f, uid), &mut cx);
        }
    }
    let start = Instant::now();
    let mut sink = 0u64;
    for _ in 0..packets {
        let p = q.dequeue(&mut cx).expect("backlogged");
        cx.now += Time(p.size as u64 * 8); // 1 Gbps: 8 ns per byte
        sink = sink.wrapping_add(p.uid);
        uid += 1;
        q.enqueue(pkt(p.flow.0, uid), &mut cx);
        cx.drops.clear();
    }
    let ns = start.elapsed().as_nanos() as f64 / packets as f64;
    println!("qdisc {kind:<9} {n:>6} flows backlogged: {ns:>6.1} ns per packet (checksum {sink})");
}

/// `rows` rows of a trace-like table to Parquet (`ccsim_core::table::parquet`).
fn parquet_write(rows: usize) {
    use ccsim_core::table::{parquet, Column, Table};
    let mut rng = Rng::new(7, 0);
    let t = Table {
        name: "trace",
        columns: vec![
            ("time_s", Column::F64((0..rows).map(|i| i as f64 * 1e-6).collect())),
            (
                "event",
                Column::Cat(
                    (0..rows).map(|_| (rng.uniform() * 4.0) as u32).collect(),
                    ["+", "-", "r", "d"].map(String::from).to_vec(),
                ),
            ),
            ("link", Column::Cat(vec![0; rows], vec!["R1->R2".into()])),
            ("flow", Column::I64((0..rows).map(|i| (i % 8) as i64).collect())),
            ("seq", Column::I64((0..rows).map(|i| (i * 1448) as i64).collect())),
            ("bytes", Column::I64(vec![1500; rows])),
        ],
    };
    let mut best = f64::INFINITY;
    let mut len = 0;
    for _ in 0..REPEAT {
        let t0 = Instant::now();
        len = parquet::to_parquet(&t, &[]).len();
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!(
        "parquet-{rows}: {:.1} MB in {:.1} ms, {:.0} MB/s, {:.1} ns per row",
        len as f64 / 1e6,
        best * 1e3,
        len as f64 / 1e6 / best,
        best * 1e9 / rows as f64
    );
}

fn main() {
    // `cargo bench` passes `--bench`; anything else is a name filter (a part of
    // the name, or `=name` for exactly that one).
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let want = |name: &str| {
        filter.is_empty()
            || filter.iter().any(|f| {
                f.strip_prefix('=')
                    .map_or(name.contains(f.as_str()), |exact| name == exact)
            })
    };
    let red_8 = || json!({"kind": "red", "limit": "100pkt", "mean_pktsize": "1500B"});
    let runs: [(&str, String); 15] = [
        ("dumbbell-8", from_toml(DUMBBELL_8)),
        // RED with ns-2.35's defaults (automatic thresholds 20.8/62.5 packets of 1500 B).
        (
            "dumbbell-8-red",
            dumbbell_8_with(json!({"kind": "red", "limit": "100pkt", "mean_pktsize": "1500B"})),
        ),
        (
            "dumbbell-8-drr",
            dumbbell_8_with(json!({"kind": "drr", "limit": "100pkt"})),
        ),
        (
            "dumbbell-8-fq",
            dumbbell_8_with(json!({"kind": "fq", "limit": "100pkt"})),
        ),
        (
            "poisson-8-droptail",
            poisson_8(json!({"kind": "droptail", "limit": "100pkt"})),
        ),
        ("poisson-8-red", poisson_8(red_8())),
        ("poisson-8-drr", poisson_8(json!({"kind": "drr", "limit": "100pkt"}))),
        ("poisson-8-fq", poisson_8(json!({"kind": "fq", "limit": "100pkt"}))),
        ("dumbbell-200", dumbbell_200()),
        ("parking-lot", from_toml(PARKING_LOT)),
        ("token-gate-5", token_gate_5()),
        (
            "poisson-1000-droptail",
            poisson_1000(json!({"kind": "droptail", "limit": "4000pkt"})),
        ),
        (
            "poisson-1000-red",
            poisson_1000(json!({"kind": "red", "limit": "4000pkt", "mean_pktsize": "1000B"})),
        ),
        (
            "poisson-1000-drr",
            poisson_1000(json!({"kind": "drr", "limit": "4000pkt"})),
        ),
        (
            "poisson-1000-fq",
            poisson_1000(json!({"kind": "fq", "limit": "4000pkt"})),
        ),
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
    if want("parquet") {
        parquet_write(1_000_000);
    }
    for kind in ["droptail", "red", "drr", "fq"] {
        for n in [10, 100, 1000, 10_000, 100_000] {
            if want(&format!("qdisc-{kind}-{n}")) {
                qdisc_hold(kind, n, 2_000_000);
            }
        }
    }
}
