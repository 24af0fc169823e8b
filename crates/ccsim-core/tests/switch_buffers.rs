//! Switches with a shared buffer and PFC (crate::mmu, sim/switches.rs,
//! docs/models/switch-buffers.md), through whole scenarios: the dynamic
//! threshold's bound on one overloaded queue (Choudhury & Hahne 1998), a
//! lossless incast under PFC, headroom too small for the link, congestion
//! spreading to a flow that shares no bottleneck with the incast, and a PFC
//! deadlock on a ring, which ends the run naming its ports.

mod common;

use common::{flow_values, queue_value};
use serde_json::{json, Value};

/// Two leaves under `spines` spines, 4 hosts each; hosts at 10 Gb/s, fabric
/// at `fabric`, 1 µs links; `switches` as given.
fn leaf_spine(spines: u64, fabric: &str, switches: Value, flows: Value, duration: &str) -> Value {
    json!({
        "seed": 1, "duration": duration,
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": spines, "hosts_per_leaf": 4,
                     "host_link": {"rate": "10Gbps", "delay": "1us", "queue": {"limit": "10000pkt"}},
                     "fabric_link": {"rate": fabric, "delay": "1us"}},
        "switches": switches,
        "flows": flows,
    })
}

fn incast(senders: u64, size: &str) -> Value {
    json!([{"matrix": {"kind": "incast", "receiver": "h0_0", "senders": senders}, "size": size, "cc": "newreno"}])
}

fn run(s: &Value) -> ccsim_core::output::Output {
    ccsim_core::run(&s.to_string()).expect("runs")
}

/// Switch queues (from a leaf or spine) of a leaf-spine run.
fn switch_queues(o: &ccsim_core::output::Output) -> Vec<String> {
    common::strs(common::col(o, "queues", "queue"))
        .into_iter()
        .filter(|q| q.starts_with("leaf") || q.starts_with("spine"))
        .collect()
}

/// One overloaded output queue of a lossy shared buffer settles at the
/// dynamic threshold's fixed point α·B/(1+α) (Choudhury & Hahne §III).
/// With the arrival counted (q + s ≤ α·(B − q)), the largest queue is
/// α·(B + s)/(1+α): B = 300 KB, s = 1 500 B, α = 1 and 1/2: 150 750 B and
/// 100 500 B, reached to within two packets; the switch drops at the
/// threshold, not at a static limit.
#[test]
fn one_overloaded_queue_holds_alpha_b_over_one_plus_alpha() {
    for alpha in [1.0, 0.5] {
        let want = alpha * (300_000.0 + 1_500.0) / (1.0 + alpha);
        let s = leaf_spine(
            1,
            "40Gbps",
            json!({"buffer": "300KB", "alpha": alpha}),
            incast(6, "3MB"),
            "10ms",
        );
        let o = run(&s);
        let max = queue_value(&o, "leaf0->h0_0", "max_len_bytes");
        assert!(
            max <= want && max > want - 3_000.0,
            "α {alpha}: max queue {max} vs {want}"
        );
        assert!(queue_value(&o, "leaf0->h0_0", "drops_shared_buffer") > 0.0);
        assert_eq!(queue_value(&o, "leaf0->h0_0", "drops_overflow"), 0.0);
    }
}

/// PFC makes the incast lossless: no switch drops a packet, the incast's
/// input ports pause their senders, every flow completes, and the 7 × 2 MB
/// take within 5 % of the 11.2 ms the receiver's 10 Gb/s link needs.
#[test]
fn pfc_incast_is_lossless() {
    let s = leaf_spine(
        2,
        "10Gbps",
        json!({"buffer": "200KB", "pfc": {}}),
        incast(7, "2MB"),
        "30ms",
    );
    let o = run(&s);
    for q in switch_queues(&o) {
        assert_eq!(queue_value(&o, &q, "drops"), 0.0, "{q} drops");
    }
    let pauses: f64 = ["h0_1->leaf0", "spine0->leaf0", "spine1->leaf0"]
        .iter()
        .map(|q| queue_value(&o, q, "pfc_pauses"))
        .sum();
    assert!(pauses > 0.0);
    assert!(queue_value(&o, "h0_1->leaf0", "pfc_paused_s") > 0.0);
    let fct = flow_values(&o, "fct_s");
    let last = fct.iter().cloned().fold(0.0, f64::max);
    assert!(fct.iter().all(|f| f.is_finite()), "every flow completes: {fct:?}");
    assert!(last < 11.2e-3 * 1.05, "last completion {last}");
}

/// Headroom absorbs what arrives after a pause is decided: sized for the
/// link (2 × rate × delay + 2 packets + the frame) nothing is lost on
/// 100 Gb/s links of 10 µs; one packet of headroom is too little there,
/// and the incast loses packets at the input ports' headroom.
#[test]
fn headroom_sized_for_the_link() {
    let sc = |pfc: Value| {
        let mut s = leaf_spine(
            1,
            "100Gbps",
            json!({"buffer": "2MB", "pfc": pfc}),
            incast(7, "1MB"),
            "20ms",
        );
        s["topology"]["host_link"] = json!({"rate": "100Gbps", "delay": "10us", "queue": {"limit": "10000pkt"}});
        s["topology"]["fabric_link"]["delay"] = json!("10us");
        s
    };
    let auto = run(&sc(json!({})));
    let lost: f64 = switch_queues(&auto)
        .iter()
        .map(|q| queue_value(&auto, q, "drops"))
        .sum();
    assert_eq!(lost, 0.0);
    let small = run(&sc(json!({"headroom": "1500B"})));
    let lost: f64 = switch_queues(&small)
        .iter()
        .map(|q| queue_value(&small, q, "drops_headroom"))
        .sum();
    assert!(lost > 0.0, "one packet of headroom cannot hold 10 µs of 100 Gb/s");
}

/// Congestion spreading (head-of-line blocking): an incast from three hosts
/// of leaf 1 to h0_0 and a victim flow h1_3 → h0_1. With 40 Gb/s fabric
/// links the victim shares no bottleneck with the incast (whose bottleneck
/// is leaf0 → h0_0): lossy, it runs near 10 Gb/s. With PFC, leaf 0's port
/// from the spine pauses for the incast's bytes and the victim's packets
/// wait behind it: its goodput falls by more than half. Nothing scripts it:
/// the same switches, only PFC on.
#[test]
fn pfc_spreads_congestion_to_a_victim() {
    let flows = json!([
        {"src": "h1_0", "dst": "h0_0", "cc": "newreno"},
        {"src": "h1_1", "dst": "h0_0", "cc": "newreno"},
        {"src": "h1_2", "dst": "h0_0", "cc": "newreno"},
        {"src": "h1_3", "dst": "h0_1", "cc": "newreno"},
    ]);
    let victim = |switches: Value| {
        let o = run(&leaf_spine(1, "40Gbps", switches, flows.clone(), "20ms"));
        flow_values(&o, "goodput_bps")[3]
    };
    let lossy = victim(json!({"buffer": "200KB"}));
    let pfc = victim(json!({"buffer": "200KB", "pfc": {}}));
    assert!(lossy > 8e9, "lossy victim {lossy}");
    assert!(pfc < 0.5 * lossy, "PFC victim {pfc} against lossy {lossy}");
}

/// A ring of four switches with one-way links S0 → S1 → S2 → S3 → S0 and a
/// host on each; every host sends at line rate to the host two switches
/// on, so each ring link is offered twice its rate and every ring port's
/// bytes wait at the next ring link: a cyclic buffer dependency. Under PFC
/// the run ends with a deadlock error naming the ring's ports instead of
/// running on with nothing moving.
#[test]
fn pfc_deadlock_on_a_ring_is_named() {
    let mut nodes = vec![];
    let mut links = vec![];
    for i in 0..4 {
        nodes.push(format!("S{i}"));
        nodes.push(format!("h{i}"));
        links.push(json!({"from": format!("h{i}"), "to": format!("S{i}"), "rate": "10Gbps", "delay": "1us"}));
        links.push(
            json!({"from": format!("S{i}"), "to": format!("S{}", (i + 1) % 4), "rate": "10Gbps",
                          "delay": "1us", "duplex": false}),
        );
    }
    let flows: Vec<Value> = (0..4)
        .map(|i| json!({"kind": "cbr", "src": format!("h{i}"), "dst": format!("h{}", (i + 2) % 4), "rate": "10Gbps"}))
        .collect();
    let s = json!({
        "seed": 1, "duration": "100ms",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "switches": {"nodes": ["S0", "S1", "S2", "S3"], "buffer": "100KB", "pfc": {"deadlock_check": "1ms"}},
        "flows": flows,
    });
    let Err(e) = ccsim_core::run(&s.to_string()) else {
        panic!("the ring deadlocks")
    };
    let e = e.to_string();
    assert!(e.contains("PFC deadlock"), "{e}");
    for l in ["S0->S1", "S1->S2", "S2->S3", "S3->S0"] {
        assert!(e.contains(l), "names {l}: {e}");
    }
    // lossy, the same ring drops and runs to its end
    let mut lossy = s.clone();
    lossy["switches"] = json!({"nodes": ["S0", "S1", "S2", "S3"], "buffer": "100KB"});
    let o = run(&lossy);
    assert!(queue_value(&o, "S0->S1", "drops_shared_buffer") > 0.0);
}

/// Runs `s` with all the engine's fast paths on or off, its event counts
/// left out.
fn run_paths(s: &Value, fast: bool) -> ccsim_core::output::Output {
    common::without_event_counts(common::run_paths(s, fast, fast))
}

/// The switches' path changes nothing it should not: the same results
/// with the engine's fast paths off (lossy and PFC), and a shared buffer
/// that never binds (1 GB, α = 1 000) gives the results of static queues
/// that never fill, byte for byte.
#[test]
fn switches_change_only_what_they_model() {
    for sw in [json!({"buffer": "200KB"}), json!({"buffer": "200KB", "pfc": {}})] {
        let s = leaf_spine(2, "10Gbps", sw, incast(5, "1MB"), "10ms");
        let a = common::fingerprint(&run_paths(&s, true));
        assert_eq!(a, common::fingerprint(&run_paths(&s, false)));
        assert_eq!(a, common::fingerprint(&run_paths(&s, true)), "deterministic");
    }
    let mut plain = leaf_spine(2, "10Gbps", json!(null), incast(5, "1MB"), "10ms");
    plain.as_object_mut().unwrap().remove("switches");
    plain["topology"]["fabric_link"]["queue"] = json!({"limit": "10000pkt"});
    let mut roomy = plain.clone();
    roomy["switches"] = json!({"buffer": "1GB", "alpha": 1000.0});
    let (a, b) = (run_paths(&plain, true), run_paths(&roomy, true));
    let strip = |o: &ccsim_core::output::Output| {
        // (the queues' `limit` column says what each was given)
        common::fingerprint(o).replace("1000000000B", "10000pkt")
    };
    assert_eq!(strip(&a), strip(&b));
}

/// Bad `[switches]` values: one error naming the key, the value and what
/// is accepted.
#[test]
fn bad_switch_settings_name_their_key() {
    let cases = [
        (json!({"buffer": "0B"}), "switches.buffer", "positive size"),
        (
            json!({"buffer": "1MB", "alpha": 0.0}),
            "switches.alpha",
            "[0.0009765625, 1024]",
        ),
        (json!({"buffer": "1MB", "nodes": ["h0_0"]}), "switches.nodes", "leaf0"),
        (
            json!({"buffer": "1MB", "pfc": {"xoff": "2MB"}}),
            "switches.pfc.xoff",
            "below the switch buffer",
        ),
        (
            json!({"buffer": "1MB", "pfc": {"xoff": "990KB"}}),
            "switches.pfc.xoff",
            "below the buffer (1000000B) less the headroom of spine0's 2 input ports",
        ),
        (
            json!({"buffer": "30KB", "pfc": {}}),
            "switches.buffer",
            "larger than the headroom",
        ),
        (
            json!({"buffer": "1MB", "pfc": {"xoff": "100KB", "alpha": 0.5}}),
            "switches.pfc.alpha",
            "no alpha with a fixed xoff",
        ),
        (
            json!({"buffer": "1MB", "pfc": {"deadlock_check": "0s"}}),
            "switches.pfc.deadlock_check",
            "positive",
        ),
        (
            json!({"buffer": "1MB", "pfc": {"xof": "1KB"}}),
            "switches.pfc.xof",
            "xoff",
        ),
    ];
    for (sw, key, says) in cases {
        let s = leaf_spine(2, "10Gbps", sw.clone(), incast(2, "1MB"), "1ms");
        let Err(e) = ccsim_core::scenario::build(&s.to_string()) else {
            panic!("{sw} builds")
        };
        assert_eq!(e.path, key, "{sw}: {e}");
        assert!(e.to_string().contains(says), "{sw}: {e}");
        assert!(!e.to_string().contains('\n'), "one line: {e}");
    }
}
