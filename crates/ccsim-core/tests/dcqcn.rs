//! RoCEv2 with DCQCN (`kind = "roce"`, transport/roce.rs, transport/dcqcn.rs;
//! docs/models/dcqcn.md) through whole scenarios: flows on a 40 Gb/s
//! dumbbell whose switches run PFC and mark with DCQCN's Kmin/Kmax function
//! (`kmin_kmax`), checked against the DCQCN fluid model's fixed point (Zhu
//! et al., "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY",
//! CoNEXT 2016, §3); finite flows completing; go-back-N recovering losses
//! when the network is lossy.

mod common;

use common::{flow_values, queue_value};
use serde_json::{json, Value};

/// `n` RoCE flows on a dumbbell of 40 Gb/s links (1 µs each), PFC switches
/// with a 12 MB buffer, the bottleneck marking with Kmin = 5 KB, Kmax =
/// 200 KB, Pmax = 1 % (Zhu et al. 2015 §5); tables over the second half.
fn dumbbell(seed: u64, n: u64, duration_ms: u64) -> Value {
    json!({
        "seed": seed, "duration": format!("{duration_ms}ms"), "warmup": format!("{}ms", duration_ms / 2),
        "topology": {"kind": "dumbbell", "pairs": n,
            "bottleneck": {"rate": "40Gbps", "delay": "1us", "queue": {"kind": "kmin_kmax", "limit": "10MB"}},
            "access": {"rate": "40Gbps", "delay": "1us", "queue": {"limit": "10MB"}}},
        "switches": {"buffer": "12MB", "pfc": {}},
        "flows": [{"pairs": "all", "kind": "roce", "start": {"uniform": ["0s", "10us"]}}],
    })
}

fn run(s: &Value) -> ccsim_core::output::Output {
    ccsim_core::run(&s.to_string()).expect("runs")
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// The fixed point of the DCQCN fluid model (CoNEXT 2016 §3, eqs. for α,
/// R_T and R_C with the hyper-increase phase left out, as the paper does):
/// for `n` flows sharing `c` bit/s, R_C = c/n and the marking probability p*
/// balances the decrease (one CNP per τ with probability 1 − (1−p)^{τR_C},
/// α* = 1 − (1−p)^{τ'R_C}) against fast recovery and additive increase driven
/// by the timer (T) and the byte counter (B). Returns (p*, the queue at which
/// the Kmin/Kmax function gives p*). Rates in packets of 1048 B per second.
fn fluid_fixed_point(c: f64, n: f64) -> (f64, f64) {
    let pkt = 1048.0;
    let (tau, tau_a, t, f) = (50e-6, 55e-6, 55e-6, 5.0);
    let (rc, b, rai) = (c / n / (8.0 * pkt), 10e6 / pkt, 40e6 / (8.0 * pkt));
    let resid = |p: f64| {
        let q1 = 1.0 - (1.0 - p).powf(tau * rc);
        let alpha = 1.0 - (1.0 - p).powf(tau_a * rc);
        let sb = p / ((1.0 - p).powf(-b) - 1.0);
        let st = p / ((1.0 - p).powf(-t * rc) - 1.0);
        let gap = alpha * q1 / (tau * (sb + st)); // dR_C/dt = 0
        let inc = rai * rc * ((1.0 - p).powf(f * b) * sb + (1.0 - p).powf(f * t * rc) * st);
        gap * q1 / tau - inc // dR_T/dt
    };
    let (mut lo, mut hi) = (1e-9f64, 0.5f64);
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if resid(mid) > 0.0 {
            hi = mid
        } else {
            lo = mid
        }
    }
    (lo, 5e3 + lo / 0.01 * 195e3)
}

/// Two flows, three seeds, 200 ms: over the last 100 ms the bottleneck is
/// ≥ 99 % busy (measured 0.9958–0.9968 over seeds 1–5), nothing is lost
/// under PFC, the flows share it fairly (Jain ≥ 0.95; measured ≥ 0.9968),
/// and the queue stays between Kmin and Kmax on average and below Kmax.
#[test]
fn two_flows_fill_a_40g_bottleneck_fairly_without_loss() {
    for seed in 1..=3 {
        let o = run(&dumbbell(seed, 2, 200));
        let util = queue_value(&o, "R1->R2", "utilization");
        let qmean = queue_value(&o, "R1->R2", "mean_len_bytes");
        let qmax = queue_value(&o, "R1->R2", "max_len_bytes");
        let drops: f64 = flow_values(&o, "retransmits").iter().sum();
        let x = flow_values(&o, "bytes_delivered_window");
        assert!(util > 0.99, "seed {seed}: utilization {util}");
        assert_eq!(drops, 0.0, "seed {seed}: retransmissions under PFC");
        assert_eq!(queue_value(&o, "R1->R2", "drops"), 0.0);
        assert!(jain(&x) > 0.95, "seed {seed}: Jain {} of {x:?}", jain(&x));
        assert!(
            (5e3..200e3).contains(&qmean) && qmax < 200e3,
            "seed {seed}: queue {qmean} (max {qmax})"
        );
    }
}

/// The fluid model's fixed point against the simulation, N = 2 and 4 flows
/// at 40 Gb/s, seeds 1–3, the second half of 200 ms. Measured over seeds
/// 1–5 (docs/models/dcqcn.md): N = 2, p = 0.104–0.110 % vs p* = 0.081 %,
/// mean queue 24–27 KB vs q* = 20.9 KB; N = 4, p = 0.262–0.265 % vs
/// p* = 0.198 %, queue 55–60 KB vs 43.6 KB. The simulation marks about a
/// third more than the model predicts (the model has no queue oscillation:
/// the marking function is convex in time, so the mean of p(q) exceeds
/// p(mean q)); the test holds it to within a factor 1.6 and the queue to
/// within 1.5.
#[test]
fn marking_matches_the_fluid_models_fixed_point() {
    for n in [2u64, 4] {
        let (p_star, q_star) = fluid_fixed_point(40e9, n as f64);
        for seed in 1..=3 {
            let o = run(&dumbbell(seed, n, 200));
            let p = queue_value(&o, "R1->R2", "marks") / queue_value(&o, "R1->R2", "arrivals");
            let q = queue_value(&o, "R1->R2", "mean_len_bytes");
            assert!(
                p > p_star / 1.6 && p < p_star * 1.6,
                "N {n} seed {seed}: p {p} vs p* {p_star}"
            );
            assert!(
                q > q_star / 1.5 && q < q_star * 1.5,
                "N {n} seed {seed}: queue {q} vs q* {q_star}"
            );
        }
    }
}

/// Sized flows complete and report their FCT; with PFC nothing is resent.
/// Two 4 MB flows from line rate: their 8 MB need at least 1.68 ms on
/// 40 Gb/s (1048-byte packets of 1000 payload bytes). Measured: 4.70 and
/// 4.72 ms, 2.8× that: both start at 40 Gb/s into a 40 Gb/s bottleneck,
/// the first CNPs come with α ≈ 1 and halve the rates several times within
/// a few hundred µs, and additive increase (40 Mb/s per 55 µs) takes
/// milliseconds to climb back: DCQCN's known slow start-up with the paper's
/// parameters, which the test pins between 1× and 4× the ideal.
#[test]
fn sized_flows_complete_with_an_fct() {
    let mut s = dumbbell(1, 2, 20);
    s["warmup"] = json!("0s");
    s["flows"][0]["size"] = json!("4MB");
    let o = run(&s);
    let fct = flow_values(&o, "fct_s");
    let ideal = 8e6 * 1048.0 / 1000.0 * 8.0 / 40e9;
    assert!(fct.iter().all(|&f| f >= ideal && f < ideal * 4.0), "{fct:?} vs {ideal}");
    assert_eq!(flow_values(&o, "retransmits").iter().sum::<f64>(), 0.0);
}

/// Without PFC and with a 50-packet bottleneck buffer the start from line
/// rate overflows it: the receivers NACK, the senders go back N, and both
/// flows still deliver every byte.
#[test]
fn go_back_n_recovers_losses_on_a_lossy_path() {
    let s = json!({
        "seed": 1, "duration": "20ms",
        "topology": {"kind": "dumbbell", "pairs": 2,
            "bottleneck": {"rate": "10Gbps", "delay": "1us", "queue": {"kind": "kmin_kmax", "kmin": "5KB", "kmax": "40KB", "limit": "50KB"}},
            "access": {"rate": "10Gbps", "delay": "1us"}},
        "flows": [{"pairs": "all", "kind": "roce", "size": "2MB"}],
    });
    let o = run(&s);
    assert!(queue_value(&o, "R1->R2", "drops") > 0.0);
    assert!(
        flow_values(&o, "fast_retransmits").iter().sum::<f64>() > 0.0,
        "go-back-N on NACKs"
    );
    assert!(flow_values(&o, "fct_s").iter().all(|f| f.is_finite()));
    assert!(flow_values(&o, "bytes_delivered").iter().all(|&b| b == 2e6));
}
