//! HPCC (`kind = "roce"`, `rate_control = "hpcc"`; transport/hpcc.rs, int.rs;
//! docs/models/hpcc.md) through whole scenarios: flows into one 100 Gb/s
//! port of PFC switches that stamp in-band telemetry (Li et al., SIGCOMM
//! 2019: near-full utilization with a near-empty queue, fair shares); the
//! telemetry stack of a packet across a 3-tier fat-tree; determinism; the
//! scenario errors of a flow whose switches stamp no telemetry.

mod common;

use ccsim_core::packet::FlowId;
use ccsim_core::units::Time;
use common::{fingerprint, flow_values, queue_value};
use serde_json::{json, Value};

/// `n` HPCC flows on a dumbbell of 100 Gb/s links (1 µs each), PFC
/// switches stamping INT; tables over the second half.
fn dumbbell(seed: u64, n: u64, duration_ms: u64) -> Value {
    json!({
        "seed": seed, "duration": format!("{duration_ms}ms"), "warmup": format!("{}ms", duration_ms / 2),
        "topology": {"kind": "dumbbell", "pairs": n,
            "bottleneck": {"rate": "100Gbps", "delay": "1us", "queue": {"limit": "10MB"}},
            "access": {"rate": "100Gbps", "delay": "1us", "queue": {"limit": "10MB"}}},
        "switches": {"buffer": "12MB", "pfc": {}, "int": true},
        "flows": [{"pairs": "all", "kind": "roce", "rate_control": "hpcc", "start": {"uniform": ["0s", "10us"]}}],
    })
}

fn run(s: &Value) -> ccsim_core::output::Output {
    ccsim_core::run(&s.to_string()).expect("runs")
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Two, four and eight flows, three seeds, 20 ms: over the last 10 ms the
/// port is busy within 3 points of η = 0.95 (measured 0.947–0.950: HPCC
/// aims its most loaded link at η, not at 1), its queue stays near empty
/// (mean ≤ 2 KB, max ≤ 10 KB; measured means 237–1087 B, max 6.3 KB: a few
/// packets), nothing is resent under PFC, and the flows share fairly (Jain
/// ≥ 0.95; measured ≥ 0.955, the lowest with 8 flows).
#[test]
fn flows_hold_one_100g_port_near_eta_with_a_near_empty_queue() {
    for n in [2u64, 4, 8] {
        for seed in 1..=3 {
            let o = run(&dumbbell(seed, n, 20));
            let util = queue_value(&o, "R1->R2", "utilization");
            let qmean = queue_value(&o, "R1->R2", "mean_len_bytes");
            let qmax = queue_value(&o, "R1->R2", "max_len_bytes");
            let x = flow_values(&o, "bytes_delivered_window");
            let why = format!("n {n} seed {seed}: util {util} queue {qmean} (max {qmax}) shares {x:?}");
            assert!((0.92..0.98).contains(&util), "{why}");
            assert!(qmean < 2e3 && qmax < 10e3, "{why}");
            assert!(jain(&x) > 0.95, "{why}");
            assert_eq!(flow_values(&o, "retransmits").iter().sum::<f64>(), 0.0, "{why}");
            let cc = &o.summary["cc"]["f0"];
            assert!(cc["updates"].as_f64().unwrap() > 1000.0, "{why}: {cc}");
        }
    }
}

/// η sets the utilization: with η = 0.8 the port is about 80 % busy.
#[test]
fn eta_sets_the_utilization() {
    let mut s = dumbbell(1, 4, 20);
    s["flows"][0]["eta"] = json!(0.8);
    let util = queue_value(&run(&s), "R1->R2", "utilization");
    assert!((0.77..0.83).contains(&util), "{util}");
}

/// A k = 4 fat-tree at 100 Gb/s: a packet's telemetry has one hop per
/// switch it crosses (the host's own link stamps nothing): 5 between pods
/// (edge, aggregation, core, aggregation, edge), 3 within a pod, 1 under
/// one edge switch; the hops are the links of the flow's path after the
/// first, in order, with their times increasing.
#[test]
fn the_telemetry_stack_has_one_hop_per_switch_crossed() {
    let link = json!({"rate": "100Gbps", "delay": "1us"});
    let sc = json!({
        "seed": 1, "duration": "1ms",
        "topology": {"kind": "fat_tree", "k": 4, "host_link": link, "fabric_link": link},
        "switches": {"buffer": "12MB", "pfc": {}, "int": true},
        "flows": [
            {"src": "h0_0_0", "dst": "h1_0_0", "kind": "roce", "rate_control": "hpcc", "size": "100KB"},
            {"src": "h0_0_1", "dst": "h0_1_0", "kind": "roce", "rate_control": "hpcc", "size": "100KB"},
            {"src": "h2_0_0", "dst": "h2_0_1", "kind": "roce", "rate_control": "hpcc", "size": "100KB"},
        ],
    });
    let (mut sim, _) = ccsim_core::scenario::build(&sc.to_string()).expect("builds");
    sim.run_until(Time::from_micros(200));
    let int = sim.switches.as_ref().unwrap().int.as_ref().unwrap();
    for (f, switches) in [(0u32, 5usize), (1, 3), (2, 1)] {
        let fl = &sim.flows[f as usize];
        let mut path = Vec::new();
        let mut n = fl.src;
        while n != fl.dst {
            let l = sim.nodes[n.idx()].next_hop_for(fl.dst, FlowId(f), || None).unwrap();
            path.push(l.0);
            n = sim.links[l.idx()].to;
        }
        assert_eq!(path.len(), switches + 1);
        let ring = int.ring(FlowId(f));
        let recs: Vec<_> = ring.iter().filter(|r| r.n > 0).collect();
        assert!(recs.len() >= 50, "flow {f}: {} records", recs.len());
        for r in recs {
            let links: Vec<u32> = r.hops().iter().map(|h| h.link).collect();
            assert_eq!(links, path[1..], "flow {f}");
            assert!(r.hops().windows(2).all(|w| w[0].ts < w[1].ts));
            assert!(r.owner < r.hops()[0].ts);
        }
    }
    let done: Vec<u64> = sim.flows.iter().map(|f| f.rcv.delivered()).collect();
    assert_eq!(done, vec![100_000; 3]);
}

/// Same seed, same bytes; another seed, other start times.
#[test]
fn runs_are_deterministic() {
    let a = fingerprint(&run(&dumbbell(7, 4, 2)));
    assert_eq!(a, fingerprint(&run(&dumbbell(7, 4, 2))));
    assert_ne!(a, fingerprint(&run(&dumbbell(8, 4, 2))));
}

fn error(s: &Value) -> ccsim_core::cfg::ScenarioError {
    match ccsim_core::scenario::build(&s.to_string()) {
        Ok(_) => panic!("builds"),
        Err(e) => e,
    }
}

/// HPCC without switches that stamp telemetry is refused by a one-line
/// error naming the key: no `[switches]`, `int` left false, a switch of the
/// path missing from `nodes`; so are HPCC's own bad values.
#[test]
fn hpcc_without_telemetry_is_refused_naming_the_key() {
    let mut s = dumbbell(1, 2, 2);
    s.as_object_mut().unwrap().remove("switches");
    let e = error(&s);
    assert_eq!((e.path.as_str(), e.value.as_str()), ("switches.int", "absent"), "{e}");
    assert!(!e.to_string().contains('\n'), "{e}");
    assert!(e.expected.contains("flow \"f0\"") && e.expected.contains("hpcc"), "{e}");
    let mut s = dumbbell(1, 2, 2);
    s["switches"]["int"] = json!(false);
    let e = error(&s);
    assert_eq!((e.path.as_str(), e.value.as_str()), ("switches.int", "false"), "{e}");
    let mut s = dumbbell(1, 2, 2);
    s["switches"]["nodes"] = json!(["R1"]);
    let e = error(&s);
    assert_eq!((e.path.as_str(), e.value.as_str()), ("switches.nodes", "\"R2\""), "{e}");
    let mut s = dumbbell(1, 2, 2);
    s["flows"][0]["eta"] = json!(1.5);
    assert_eq!(error(&s).path, "flows[0].eta");
    let mut s = dumbbell(1, 2, 2);
    s["flows"][0]["rate_control"] = json!("dcqcn");
    s["flows"][0]["max_stage"] = json!(3);
    assert_eq!(error(&s).path, "flows[0].max_stage", "an HPCC key on DCQCN");
    // Telemetry on, DCQCN flows: builds (the switches stamp nothing for them).
    let mut s = dumbbell(1, 2, 2);
    s["flows"][0]["rate_control"] = json!("dcqcn");
    assert!(ccsim_core::scenario::build(&s.to_string()).is_ok());
}
