//! Queueing delay as a measured quantity (the queue table's sojourn columns)
//! against hand-worked cases and M/D/1 theory, and the AQM disciplines
//! (CoDel, FQ-CoDel, PIE) through the whole engine.

mod common;

use common::{col, f64s, fingerprint, queue_value, strs};
use serde_json::{json, Value};

/// A dumbbell of `pairs` around a 10 Mbps / 10 ms bottleneck with `queue`.
fn dumbbell(pairs: usize, queue: Value, flows: Value, duration: &str, warmup: &str) -> Value {
    json!({
        "seed": 3, "duration": duration, "warmup": warmup,
        "topology": {"kind": "dumbbell", "pairs": pairs,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": queue,
                "reverse_queue": {"kind": "droptail", "limit": "1000pkt"}},
            "access": {"rate": "1Gbps", "delay": "1ms"}},
        "flows": flows,
    })
}

fn sojourn(out: &ccsim_core::output::Output, what: &str) -> f64 {
    queue_value(out, "R1->R2", &format!("sojourn_{what}_s"))
}

#[test]
fn cbr_into_a_slower_link_waits_linearly_longer() {
    // Hand-worked: 1500-B packets at 12 Mbps (one per 1 ms) into 10 Mbps (one
    // served per 1.2 ms), unlimited buffer. The first packet finds the link
    // idle (sojourn 0); packet k starts service at 1.2·k ms after it and
    // arrived at 1·k ms, so it waited 0.2·k ms. With n packets served the
    // sojourns are 0, 0.2, ..., 0.2·(n − 1) ms: mean = max / 2, and the
    // nearest-rank p-quantile is 0.2·(⌈p·n⌉ − 1) ms.
    for kind in ["droptail", "drr"] {
        let q = if kind == "droptail" {
            json!({"kind": "droptail", "limit": "unlimited"})
        } else {
            // A discipline that does not cut through (same sojourns).
            json!({"kind": "drr", "limit": "100000pkt", "quantum": "1500B"})
        };
        let flows = json!([{"kind": "cbr", "pairs": [0], "rate": "12Mbps", "packet_size": "1500B"}]);
        let out = ccsim_core::run(&dumbbell(1, q, flows, "1s", "0s").to_string()).unwrap();
        let max = sojourn(&out, "max");
        let n = (max / 0.2e-3).round() + 1.0;
        assert!(
            (max / 0.2e-3 - (n - 1.0)).abs() < 1e-6,
            "{kind}: max {max} is 0.2 ms × k"
        );
        assert!(n > 800.0 && n < 840.0, "{kind}: about 1 s / 1.2 ms served, {n}");
        let mean = sojourn(&out, "mean");
        assert!(
            (mean - max / 2.0).abs() < 1e-9,
            "{kind}: mean {mean} vs max/2 {}",
            max / 2.0
        );
        for (p, what) in [(0.5, "p50"), (0.95, "p95"), (0.99, "p99")] {
            let want = 0.2e-3 * ((p * n).ceil() - 1.0);
            let got = sojourn(&out, what);
            assert!(
                (got - want).abs() <= want * ccsim_core::hist::REL_ERROR,
                "{kind} {what}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn poisson_into_a_link_waits_as_m_d_1() {
    // M/D/1: Poisson arrivals of 1000-B packets (four sources, superposed:
    // still Poisson) at 8 Mbps into 10 Mbps: service 0.8 ms, ρ = 0.8. The mean
    // waiting time in queue is ρ / (2μ(1 − ρ)) = 0.8 / (2 · 1250 · 0.2) = 1.6 ms
    // (Pollaczek–Khinchine); the packets that find the link idle (1 − ρ of
    // them) wait 0, so the median is below the mean.
    let flows = json!([{"kind": "poisson", "pairs": "all", "rate": "2Mbps", "packet_size": "1000B"}]);
    let q = json!({"kind": "droptail", "limit": "unlimited"});
    let out = ccsim_core::run(&dumbbell(4, q, flows, "202s", "2s").to_string()).unwrap();
    let mean = sojourn(&out, "mean");
    eprintln!(
        "M/D/1 rho 0.8: mean {mean} s (theory 1.6 ms), p50 {}, p95 {}, util {}",
        sojourn(&out, "p50"),
        sojourn(&out, "p95"),
        queue_value(&out, "R1->R2", "utilization")
    );
    assert!((mean / 1.6e-3 - 1.0).abs() < 0.05, "mean {mean}");
    assert!(sojourn(&out, "p50") < mean);
    // Little's law: mean backlog = λ · W (λ = 1000 packets/s).
    let backlog = queue_value(&out, "R1->R2", "mean_len_pkts");
    assert!(
        (backlog / (1000.0 * mean) - 1.0).abs() < 0.01,
        "{backlog} vs λW {}",
        1000.0 * mean
    );
}

#[test]
fn monitor_reports_the_mean_sojourn_per_interval() {
    // The CBR ramp above sampled every 100 ms: in the interval (t − 0.1, t]
    // the packets served started at 1.2·k ms ∈ (t − 0.1, t], and waited
    // 0.2·k ms, so the interval mean is about 0.2/1.2 · (t − 0.05) s.
    let flows = json!([{"kind": "cbr", "pairs": [0], "rate": "12Mbps", "packet_size": "1500B"}]);
    let mut sc = dumbbell(1, json!({"kind": "droptail", "limit": "unlimited"}), flows, "1s", "0s");
    sc["monitor"] = json!({"interval": "100ms", "queues": ["R1->R2"]});
    let out = ccsim_core::run(&sc.to_string()).unwrap();
    let t = f64s(col(&out, "ts_queue", "time_s"));
    let s = f64s(col(&out, "ts_queue", "sojourn_mean_s"));
    let mut checked = 0;
    for (t, s) in t.iter().zip(&s) {
        if *t >= 0.2 {
            let want = 0.2 / 1.2 * (t - 0.05);
            assert!((s - want).abs() < 1.5e-3, "t {t}: {s} vs {want}");
            checked += 1;
        }
    }
    assert!(checked >= 8);
    assert_eq!(strs(col(&out, "ts_queue", "queue"))[0], "R1->R2");
}

/// Four NewReno flows (ECN-capable if `ecn`) on the 10 Mbps / 10 ms
/// dumbbell through `queue` with a 1000-packet buffer.
fn greedy(queue: Value, ecn: bool) -> ccsim_core::output::Output {
    let flows = json!([{"pairs": "all", "cc": "newreno", "ecn": ecn, "start": {"uniform": ["0s", "1s"]}}]);
    let mut q = queue;
    q["limit"] = json!("1000pkt");
    ccsim_core::run(&dumbbell(4, q, flows, "40s", "10s").to_string()).unwrap()
}

#[test]
fn aqms_keep_the_queueing_delay_near_their_target_at_full_utilization() {
    // A 1000-packet drop-tail buffer (1.2 s at 10 Mbps) fills up: NewReno
    // keeps hundreds of ms of queue. CoDel (target 5 ms) and PIE (target
    // 15 ms) keep the standing delay near their targets, FQ-CoDel too (per
    // queue); all at > 90 % utilization.
    let dt = greedy(json!({"kind": "droptail"}), false);
    let dt_mean = sojourn(&dt, "mean");
    eprintln!("droptail: mean {dt_mean} p95 {}", sojourn(&dt, "p95"));
    assert!(dt_mean > 0.2, "{dt_mean}");
    for (kind, ecn, mean_max) in [
        ("codel", false, 0.02),
        ("codel", true, 0.02),
        ("fq_codel", true, 0.02),
        ("fq_codel", false, 0.02),
        ("pie", false, 0.05),
        ("pie", true, 0.05),
    ] {
        let out = greedy(json!({"kind": kind, "ecn": ecn}), ecn);
        let (mean, p50, p95) = (sojourn(&out, "mean"), sojourn(&out, "p50"), sojourn(&out, "p95"));
        let util = queue_value(&out, "R1->R2", "utilization");
        let (early, marks) = (
            queue_value(&out, "R1->R2", "drops_early"),
            queue_value(&out, "R1->R2", "marks_early"),
        );
        eprintln!("{kind} ecn={ecn}: mean {mean:.4} p50 {p50:.4} p95 {p95:.4} util {util:.4} early drops {early} marks {marks}");
        assert!(mean < mean_max, "{kind} ecn={ecn}: mean sojourn {mean}");
        assert!(util > 0.9, "{kind} ecn={ecn}: utilization {util}");
        assert_eq!(queue_value(&out, "R1->R2", "drops_overflow"), 0.0, "{kind}");
        if ecn {
            assert!(marks > 0.0 && early == 0.0, "{kind}: ECN flows are marked, not dropped");
        } else {
            assert!(early > 0.0 && marks == 0.0, "{kind}: not-ECT flows are dropped");
        }
    }
}

#[test]
fn aqm_runs_are_deterministic() {
    for kind in ["codel", "fq_codel", "pie"] {
        let a = fingerprint(&greedy(json!({"kind": kind}), false));
        let b = fingerprint(&greedy(json!({"kind": kind}), false));
        assert_eq!(a, b, "{kind}");
    }
}
