//! BMCC (docs/models/bmcc.md; Qazi, Znati & Andrew, PFLDNeT 2009) through
//! `ccsim_core::run`: the router's marks, the
//! receiver's estimate and the sender's laws working together, over seeds.
//!
//! Dumbbell of the paper (§4): 45 Mbps bottleneck, 450 Mbps access links,
//! 1000-byte packets (960 B + 40 B), buffers of one BDP.

mod common;

use ccsim_core::output::Output;
use common::{col, f64s, flow_values, queue_value, strs};
use serde_json::{json, Value};

/// `n` BMCC flows over a dumbbell of round-trip propagation `rtt_ms` with the
/// bottleneck queue `q`; flows start within the first 100 ms (seeded).
fn dumbbell(n: usize, rtt_ms: f64, q: Value, seed: u64, duration: &str, cc: Value) -> Value {
    let bdp = (45e6 * rtt_ms / 1000.0 / 8.0 / 1000.0).round() as u64;
    let mut q = q;
    q["limit"] = json!(format!("{bdp}pkt"));
    json!({
        "seed": seed,
        "duration": duration,
        "topology": {"kind": "dumbbell", "pairs": n,
            "bottleneck": {"rate": "45Mbps", "delay": format!("{}ms", rtt_ms / 4.0), "queue": q,
                           "reverse_queue": {"limit": format!("{bdp}pkt")}},
            "access": {"rate": "450Mbps", "delay": format!("{}ms", rtt_ms / 8.0),
                       "queue": {"limit": format!("{bdp}pkt")}}},
        "flows": [{"pairs": "all", "cc": cc, "mss": 960, "feedback": {"kind": "bmcc"},
                   "start": {"uniform": ["0s", "0.1s"]}}],
        "monitor": {"interval": "50ms", "queues": ["R1->R2"], "flows": "all"}
    })
}

fn run(s: &Value) -> Output {
    ccsim_core::run(&s.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// The mean of a qdisc trace value over [t0, end).
fn qdisc_mean(o: &Output, name: &str, t0: f64) -> f64 {
    let names = strs(col(o, "ts_qdisc", "name"));
    let t = f64s(col(o, "ts_qdisc", "time_s"));
    let v = f64s(col(o, "ts_qdisc", "value"));
    let xs: Vec<f64> = (0..t.len())
        .filter(|&i| names[i] == name && t[i] >= t0)
        .map(|i| v[i])
        .collect();
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn summary_cc(o: &Output, flow: &str, key: &str) -> f64 {
    o.summary["cc"][flow][key].as_f64().unwrap_or(f64::NAN)
}

/// Over a BMCC bottleneck, on every seed: no loss, the load factor held just
/// below one (the flows back off at f̂ ≥ 1), a standing queue of a few
/// packets, and equal shares among flows of one RTT (the paper's §4.1 and
/// Fig. 3: "BMCC introduces little variations in the flows' rates").
#[test]
fn bmcc_router_no_loss_small_queue_fair_shares_over_seeds() {
    for seed in 1..=4 {
        let o = run(&dumbbell(4, 40.0, json!({"kind": "bmcc"}), seed, "40s", json!("bmcc")));
        let q = |c| queue_value(&o, "R1->R2", c);
        assert_eq!(q("drops"), 0.0, "seed {seed}: no loss");
        assert_eq!(q("marks"), 0.0, "seed {seed}: never severe overload");
        assert!(q("marks_adpm") > 0.0);
        assert!(q("mean_len_pkts") < 5.0, "seed {seed}: {}", q("mean_len_pkts"));
        let util = q("utilization");
        assert!(util > 0.85 && util < 0.99, "seed {seed}: utilization {util}");
        let f = qdisc_mean(&o, "load_factor", 10.0);
        assert!(f > 0.85 && f < 1.0, "seed {seed}: mean load factor {f}");
        let g = flow_values(&o, "goodput_bps");
        assert!(jain(&g) > 0.98, "seed {seed}: Jain {} of {g:?}", jain(&g));
        assert_eq!(flow_values(&o, "retransmits").iter().sum::<f64>(), 0.0);
    }
}

/// Fig. 4's mechanism: over drop-tail no packet is marked, f̂ stays at η₀ =
/// 0.15 and BMCC is MIMD: MI until a loss, halving on loss.
#[test]
fn over_droptail_the_estimate_stays_at_eta0_and_losses_halve() {
    let o = run(&dumbbell(2, 40.0, json!({"kind": "droptail"}), 1, "20s", json!("bmcc")));
    assert_eq!(queue_value(&o, "R1->R2", "marks_adpm"), 0.0);
    assert!(queue_value(&o, "R1->R2", "drops") > 0.0);
    for f in ["f0", "f1"] {
        assert!((summary_cc(&o, f, "load_estimate") - 0.15).abs() < 1e-3);
        assert!(summary_cc(&o, f, "loss_halvings") > 3.0);
        assert_eq!(summary_cc(&o, f, "md"), 0.0, "no overload signal ever");
    }
}

/// §5.3's heuristic: over drop-tail the first loss (f̂ = 0.15 < 1) switches
/// each sender to SACK mode, for good; over a BMCC router, where no loss
/// happens, it never switches. On every seed.
#[test]
fn heuristic_switches_on_droptail_and_not_on_a_bmcc_router() {
    let cc = json!({"kind": "bmcc", "sack_fallback": true});
    for seed in 1..=3 {
        let dt = run(&dumbbell(2, 40.0, json!({"kind": "droptail"}), seed, "20s", cc.clone()));
        let bm = run(&dumbbell(2, 40.0, json!({"kind": "bmcc"}), seed, "20s", cc.clone()));
        for f in ["f0", "f1"] {
            assert_eq!(summary_cc(&dt, f, "to_sack_mode"), 1.0, "seed {seed} {f}");
            assert_eq!(summary_cc(&dt, f, "sack_mode_at_end"), 1.0);
            assert!(summary_cc(&dt, f, "first_sack_mode_s") < 2.0, "detected quickly");
            assert_eq!(summary_cc(&bm, f, "to_sack_mode"), 0.0, "seed {seed} {f}");
        }
        // Without MIMD cycles the flows lose far fewer packets than without
        // the heuristic (Fig. 12 against Fig. 4).
        let plain = run(&dumbbell(
            2,
            40.0,
            json!({"kind": "droptail"}),
            seed,
            "20s",
            json!("bmcc"),
        ));
        let drops = |o: &Output| queue_value(o, "R1->R2", "drops");
        assert!(drops(&dt) * 5.0 < drops(&plain), "{} vs {}", drops(&dt), drops(&plain));
    }
}

/// Two BMCC links in a row (s → R1 → R2 → R3 → d, both 45 Mbps) with 20 Mbps
/// of Poisson cross traffic on one of them: the receiver's estimate (echoed to
/// the sender) follows the more loaded link, whichever comes first (§3.2:
/// "the ECN bits will reflect the state of the most congested router on the
/// path"; a router only raises the signal).
#[test]
fn two_bmcc_routers_in_a_row_signal_the_larger_load() {
    for loaded in ["R1->R2", "R2->R3"] {
        let (xs, xd) = if loaded == "R1->R2" { ("x1", "x2") } else { ("x2", "x3") };
        let link = |from: &str, to: &str, rate: &str, q: Value| json!({"from": from, "to": to, "rate": rate, "delay": "5ms", "queue": q});
        let bmcc = json!({"kind": "bmcc", "limit": "225pkt"});
        let s = json!({
            "duration": "30s",
            "topology": {"kind": "graph", "nodes": ["s", "R1", "R2", "R3", "d", "x1", "x2", "x3"],
                "links": [link("s", "R1", "450Mbps", json!({"limit": "225pkt"})),
                          link("R1", "R2", "45Mbps", bmcc.clone()),
                          link("R2", "R3", "45Mbps", bmcc.clone()),
                          link("R3", "d", "450Mbps", json!({"limit": "225pkt"})),
                          link("x1", "R1", "450Mbps", json!({"limit": "225pkt"})),
                          link("R2", "x2", "450Mbps", json!({"limit": "225pkt"})),
                          link("x2", "R2", "450Mbps", json!({"limit": "225pkt"})),
                          link("R3", "x3", "450Mbps", json!({"limit": "225pkt"}))]},
            "flows": [{"name": "probe", "src": "s", "dst": "d", "cc": "bmcc", "mss": 960,
                       "feedback": {"kind": "bmcc"}},
                      {"name": "cross", "kind": "poisson", "src": xs, "dst": xd, "rate": "20Mbps",
                       "packet_size": "1000B"}],
            "monitor": {"interval": "20ms", "queues": ["R1->R2", "R2->R3"], "flows": ["probe"]}
        });
        let o = run(&s);
        let names = strs(col(&o, "ts_qdisc", "name"));
        let queues = strs(col(&o, "ts_qdisc", "queue"));
        let t = f64s(col(&o, "ts_qdisc", "time_s"));
        let v = f64s(col(&o, "ts_qdisc", "value"));
        let mean_f = |q: &str| {
            let xs: Vec<f64> = (0..t.len())
                .filter(|&i| names[i] == "load_factor" && queues[i] == q && t[i] >= 10.0)
                .map(|i| v[i])
                .collect();
            xs.iter().sum::<f64>() / xs.len() as f64
        };
        let other = if loaded == "R1->R2" { "R2->R3" } else { "R1->R2" };
        let (f_hi, f_lo) = (mean_f(loaded), mean_f(other));
        assert!(f_hi > f_lo + 0.3, "{loaded}: {f_hi} vs {f_lo}");
        let ft = f64s(col(&o, "ts_flow", "time_s"));
        let est = f64s(col(&o, "ts_flow", "cc_state"));
        let e: Vec<f64> = (0..ft.len()).filter(|&i| ft[i] >= 10.0).map(|i| est[i]).collect();
        let mean_est = e.iter().sum::<f64>() / e.len() as f64;
        assert!(
            (mean_est - f_hi).abs() < 0.06,
            "{loaded} loaded: estimate {mean_est}, load factors {f_hi} (loaded), {f_lo}"
        );
    }
}

/// Same scenario and seed, identical results (with the modified router, whose
/// ARED draws random numbers).
#[test]
fn bmcc_runs_are_deterministic() {
    let q = json!({"kind": "bmcc", "overload": "ared"});
    let s = dumbbell(3, 40.0, q, 7, "10s", json!({"kind": "bmcc", "sack_fallback": true}));
    assert_eq!(common::fingerprint(&run(&s)), common::fingerprint(&run(&s)));
}

/// Bad input: a one-line error naming the key and what is accepted.
#[test]
fn bmcc_configuration_errors_name_the_key() {
    let err = |s: Value| ccsim_core::run(&s.to_string()).err().expect("refused").to_string();
    let mut s = dumbbell(1, 40.0, json!({"kind": "bmcc"}), 1, "1s", json!("bmcc"));
    s["flows"][0].as_object_mut().unwrap().remove("feedback");
    let e = err(s);
    assert!(e.starts_with("flows[0].feedback: required key missing"), "{e}");
    assert!(e.contains("kind = \"bmcc\""), "{e}");
    let mut s = dumbbell(1, 40.0, json!({"kind": "bmcc"}), 1, "1s", json!("bmcc"));
    s["flows"][0]["ecn"] = json!(false);
    assert!(err(s).starts_with("flows[0].ecn: got false, expected true with cc = \"bmcc\""));
    let s = dumbbell(
        1,
        40.0,
        json!({"kind": "bmcc"}),
        1,
        "1s",
        json!({"kind": "bmcc", "md_rule": "twice"}),
    );
    let e = err(s);
    assert!(e.starts_with("flows[0].cc.md_rule: got \"twice\""), "{e}");
    assert!(e.contains("\"vcp\", \"once-per-rtt\""), "{e}");
    let s = dumbbell(1, 40.0, json!({"kind": "bmcc", "gamma": 1.2}), 1, "1s", json!("bmcc"));
    assert!(err(s).starts_with("topology.bottleneck.queue.gamma: got 1.2, expected the target utilization"));
    let s = dumbbell(
        1,
        40.0,
        json!({"kind": "bmcc"}),
        1,
        "1s",
        json!({"kind": "bmcc", "interval": "0s"}),
    );
    assert!(err(s).starts_with("flows[0].cc.interval: got \"0s\""));
    // A BMCC sender without a BMCC router (Fig. 4) and a BMCC router without
    // ECN-capable traffic (its discipline alone) are valid.
    run(&dumbbell(1, 40.0, json!({"kind": "droptail"}), 1, "1s", json!("bmcc")));
    let mut s = dumbbell(1, 40.0, json!({"kind": "bmcc"}), 1, "5s", json!("newreno"));
    s["flows"][0].as_object_mut().unwrap().remove("feedback");
    let o = run(&s);
    assert_eq!(
        queue_value(&o, "R1->R2", "marks_adpm") + queue_value(&o, "R1->R2", "marks"),
        0.0
    );
}
