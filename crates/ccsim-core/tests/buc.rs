//! The BUC gateway with RFCN (Ziegler & Clausen, IEEE IPCCC 1997, §2–§4; model
//! page docs/models/buc-rfcn.md) through `ccsim_core::run`: the windows the
//! gateway writes into ACKs reach the TCP sender and bound its flight, with no
//! special case in TCP or in the queue.
//!
//! One TCP Tahoe connection, packet mode (960 B + 40 B = 1000-B packets),
//! receiver window 300 packets: s —10 Mbps/1 ms— G —2 Mbps/30 ms— R —10 Mbps/1 ms— d
//! (2 Mbps · 64 ms = 16 packets in the pipe, as the paper's §5 footnote 11).
//! G's port to R is fair-queued with a 1000-packet shared buffer, so nothing is
//! lost and, without BUC, Tahoe's window (not capped by the receiver's, as in
//! ns) grows to the 300-packet receiver window. With BUC (TBU 10 packets) the window
//! converges to about TQL + pipe = 26 packets.

mod common;

use ccsim_core::output::Output;
use common::{col, f64s, queue_value, strs};
use serde_json::{json, Value};

const MSS: f64 = 960.0;

fn scenario(buc: bool) -> Value {
    let mut s = json!({
        "duration": "30s",
        "topology": {"kind": "graph", "nodes": ["s", "G", "R", "d"], "links": [
            {"from": "s", "to": "G", "rate": "10Mbps", "delay": "1ms"},
            {"from": "G", "to": "R", "rate": "2Mbps", "delay": "30ms",
             "queue": {"kind": "fq", "limit": "1000pkt"},
             "reverse_queue": {"kind": "fq", "limit": "1000pkt"}},
            {"from": "R", "to": "d", "rate": "10Mbps", "delay": "1ms"}]},
        "flows": [{"name": "f", "src": "s", "dst": "d", "cc": "tahoe", "mss": 960, "header": 40,
                   "init_cwnd": 1, "rwnd": "288000B", "conventions": "ns2", "rtt_tick": "100ms",
                   "init_rto": "3s", "min_rto": "200ms"}],
        "monitor": {"interval": "5ms", "queues": ["G->R"], "flows": "all"}
    });
    if buc {
        s["components"] = json!([{"node": "G", "kind": "buc", "ports": ["G->R"], "tbu": "10pkt",
                                  "events": true}]);
    }
    s
}

fn run(s: &Value) -> Output {
    ccsim_core::run(&s.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// (time, value) of the component event log rows called `name`.
fn events(o: &Output, name: &str) -> Vec<(f64, f64)> {
    let names = strs(col(o, "ts_component_events", "name"));
    let t = f64s(col(o, "ts_component_events", "time_s"));
    let v = f64s(col(o, "ts_component_events", "value"));
    (0..names.len())
        .filter(|&i| names[i] == name)
        .map(|i| (t[i], v[i]))
        .collect()
}

/// (time, in-flight packets, cwnd packets) of the sender, sampled.
fn flight(o: &Output) -> Vec<(f64, f64, f64)> {
    let t = f64s(col(o, "ts_flow", "time_s"));
    let inflight = f64s(col(o, "ts_flow", "inflight_bytes"));
    let cwnd = f64s(col(o, "ts_flow", "cwnd_bytes"));
    (0..t.len()).map(|i| (t[i], inflight[i] / MSS, cwnd[i] / MSS)).collect()
}

/// RFCN (paper §2.1): every ACK of a controlled conversation leaves G with
/// min(field, W_cur); the sender's send window is min(cwnd, advertised), so
/// once the rewritten ACKs arrive its flight never exceeds the largest window
/// written in the last round trip (the rewrite can shrink the window; packets
/// already sent stay in flight), and it fills that window (RFCN, not cwnd, binds).
#[test]
fn rfcn_windows_reach_the_sender_and_bound_its_flight() {
    let with = run(&scenario(true));
    let without = run(&scenario(false));

    let written = events(&with, "rfcn_window");
    assert!(!written.is_empty(), "RFCN wrote windows");
    let windows = events(&with, "window");
    let first = windows[0].0;
    // The last window a packet's ACK could have brought by time t: written at
    // G in (t − 1 s, t] (RTT ≤ 64 ms + queueing < 1 s), plus the one in force at t − 1 s.
    let in_force = |t: f64| {
        let before = written.iter().rev().find(|w| w.0 <= t - 1.0).map_or(0.0, |w| w.1);
        written
            .iter()
            .filter(|w| w.0 > t - 1.0 && w.0 <= t)
            .fold(before, |m, w| m.max(w.1))
    };
    let mut checked = 0;
    let mut binding = 0;
    for &(t, inflight, cwnd) in flight(&with).iter().filter(|s| s.0 > first + 1.0) {
        let w = in_force(t);
        assert!(
            inflight <= w + 1e-9,
            "t = {t:.3} s: {inflight} packets in flight > window {w}"
        );
        checked += 1;
        binding += (cwnd > w + 1.0 && inflight >= w - 1.0) as usize;
    }
    eprintln!(
        "controlled from {first:.3} s; {checked} samples, window binding in {binding}; {} windows written",
        written.len()
    );
    assert!(checked > 4000, "{checked} samples");
    // In steady state the rewritten window, not cwnd, limits the sender.
    assert!(
        binding * 2 > checked,
        "window binding in only {binding} of {checked} samples"
    );

    // The window converges to TQL + pipe ≈ 10 + 16 packets (paper §3.4; model
    // page docs/models/buc-rfcn.md, "What the analysis predicts").
    let last = written.last().unwrap().1;
    assert!((23.0..=29.0).contains(&last), "final window {last}");
    let max_late = flight(&with)
        .iter()
        .filter(|s| s.0 > 20.0)
        .fold(0.0f64, |m, s| m.max(s.1));
    let max_plain = flight(&without)
        .iter()
        .filter(|s| s.0 > 20.0)
        .fold(0.0f64, |m, s| m.max(s.1));
    eprintln!("final window {last}; max flight after 20 s: {max_late} with BUC, {max_plain} without");
    assert!(
        max_late <= 30.0,
        "BUC: at most {max_late} packets in flight late in the run"
    );
    assert!(
        max_plain >= 250.0,
        "without BUC the flight reaches the receiver window: {max_plain}"
    );
    // The queue follows: ≈ TQL with BUC, hundreds of packets without; no loss either way.
    assert!(queue_value(&with, "G->R", "max_len_pkts") < queue_value(&without, "G->R", "max_len_pkts") / 5.0);
    assert_eq!(queue_value(&with, "G->R", "drops"), 0.0);
    assert_eq!(queue_value(&without, "G->R", "drops"), 0.0);
}

/// The same scenario twice gives the same bytes (the event log included).
#[test]
fn buc_runs_are_deterministic() {
    let a = run(&scenario(true));
    let b = run(&scenario(true));
    assert_eq!(common::fingerprint(&a), common::fingerprint(&b));
}

/// A scenario whose ACKs do not come back through the BUC node is rejected
/// with one line naming the key and the flow (RFCN could not signal it).
#[test]
fn buc_needs_the_acks_through_the_gateway() {
    let mut s = scenario(true);
    // A second path back: d → s directly, cheaper than through G.
    s["topology"]["links"][2] = json!({"from": "R", "to": "d", "rate": "10Mbps", "delay": "1ms",
                                        "duplex": false});
    s["topology"]["links"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "d", "to": "s", "rate": "10Mbps", "delay": "1ms", "duplex": false}));
    let err = ccsim_core::run(&s.to_string()).err().expect("rejected").to_string();
    assert!(err.contains("ports") && err.contains("\"f\""), "{err}");
    assert!(!err.contains('\n'), "{err}");
}
