//! Whole-engine checks against hand-worked behaviour and invariants.

mod common;

use ccsim_core::packet::{Kind, LinkId, Packet};
use ccsim_core::router::{CompCtx, Component, Verdict};
use ccsim_core::scenario::build;
use ccsim_core::units::Time;
use common::{fingerprint, queue_value, run_paths, without_event_counts};
use proptest::prelude::*;
use serde_json::{json, Value};

/// One flow on a fast, loss-free path with a 100 ms RTT.
fn long_fat(init_ssthresh: &str) -> Value {
    json!({
        "seed": 1, "duration": "30s",
        "topology": {"kind": "dumbbell", "pairs": 1,
            "bottleneck": {"rate": "10Gbps", "delay": "49ms", "queue": {"kind": "droptail", "limit": "inf"}},
            "access": {"rate": "10Gbps", "delay": "500us", "queue": {"kind": "droptail", "limit": "inf"}}},
        "flows": [{"pairs": "all", "cc": "newreno", "mss": 1000, "init_cwnd": 1, "init_ssthresh": init_ssthresh}]
    })
}

fn sender_stat(sim: &ccsim_core::Sim) -> (u64, u64) {
    match sim.flows[0].tcp_sender() {
        Some(snd) => (snd.stats.segments_sent, snd.cwnd()),
        None => unreachable!(),
    }
}

#[test]
fn slow_start_doubles_every_rtt() {
    // Slow start (RFC 5681 §3.1) with one ACK per segment: 1, 2, 4, 8, ...
    // packets per RTT from IW = 1, exact (hand-worked).
    let (mut sim, _) = build(&long_fat("inf").to_string()).unwrap();
    let rtt = 0.1;
    let mut prev = 0;
    for k in 0..12 {
        sim.run_until(Time::from_secs_f64((k as f64 + 0.5) * rtt));
        let (sent, _) = sender_stat(&sim);
        assert_eq!(sent - prev, 1 << k, "round {k}");
        prev = sent;
    }
}

#[test]
fn congestion_avoidance_adds_one_segment_per_rtt() {
    // Congestion avoidance (RFC 5681 §3.1, cwnd += SMSS·SMSS/cwnd per ACK):
    // +1 packet per RTT without delayed ACKs, checked to ±2 % over 100 RTTs.
    let (mut sim, _) = build(&long_fat("8000B").to_string()).unwrap();
    sim.run_until(Time::from_secs(2));
    let (_, w0) = sender_stat(&sim);
    sim.run_until(Time::from_secs(12));
    let (_, w1) = sender_stat(&sim);
    let per_rtt = (w1 - w0) as f64 / 1000.0 / 100.0;
    assert!((per_rtt - 1.0).abs() <= 0.02, "{per_rtt} segments per RTT");
}

/// A test component that holds every ACK for `delay` and then releases it.
struct AckDelay {
    delay: Time,
    held: std::collections::VecDeque<(Time, Packet, LinkId)>,
}

impl Component for AckDelay {
    fn kind(&self) -> &'static str {
        "ack_delay"
    }
    fn on_forward(&mut self, cx: &mut CompCtx, _in: Option<LinkId>, out: LinkId, pkt: Packet) -> Verdict {
        if pkt.kind != Kind::Ack {
            return Verdict::Forward(pkt);
        }
        let due = cx.now + self.delay;
        self.held.push_back((due, pkt, out));
        cx.wake_at(self.held.front().unwrap().0);
        Verdict::Hold
    }
    fn on_wake(&mut self, cx: &mut CompCtx) {
        while self.held.front().is_some_and(|h| h.0 <= cx.now) {
            let (_, p, l) = self.held.pop_front().unwrap();
            cx.release(p, l);
        }
        if let Some(h) = self.held.front() {
            cx.wake_at(h.0);
        }
    }
    fn held(&self) -> u64 {
        self.held.len() as u64
    }
}

#[test]
fn component_holds_and_releases_packets_without_loss() {
    let s = json!({
        "seed": 1, "duration": "3s",
        "topology": {"kind": "dumbbell", "pairs": 1,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
            "access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"pairs": "all", "size": "200KB", "mss": 1000}]
    });
    let run = |delay_ms: u64, until: Time| {
        let (mut sim, _) = build(&s.to_string()).unwrap();
        let r1 = sim.nodes.iter().position(|n| n.name == "R1").unwrap();
        if delay_ms > 0 {
            let c = AckDelay {
                delay: Time::from_millis(delay_ms),
                held: Default::default(),
            };
            sim.add_component(ccsim_core::packet::NodeId(r1 as u32), Box::new(c));
            // Components may hold or create packets anywhere: nothing is folded.
            assert!(sim.links.iter().all(|l| l.feeder.is_none()));
        }
        sim.run_until(until);
        sim.check_invariants().expect("conservation counts held packets");
        let held: u64 = sim.nodes[r1].comps.iter().map(|c| c.held()).sum();
        let done = sim.flows[0].tcp_sender().and_then(|snd| snd.completed());
        (held, done)
    };
    // Mid-run, ACKs are being held and conservation still holds.
    let (held, _) = run(50, Time::from_millis(300));
    assert!(held > 0);
    // Each ACK waits 50 ms more: the transfer completes, later than without the component.
    let (_, plain) = run(0, Time::from_secs(3));
    let (_, delayed) = run(50, Time::from_secs(3));
    let (plain, delayed) = (plain.unwrap(), delayed.unwrap());
    assert!(delayed > plain + Time::from_millis(50), "{delayed} vs {plain}");
}

/// Records (flow, kind, ip id) of every packet its node forwards.
struct IpIds(std::sync::Arc<std::sync::Mutex<Vec<(u32, Kind, u16)>>>);

impl Component for IpIds {
    fn kind(&self) -> &'static str {
        "ip_ids"
    }
    fn on_forward(&mut self, _cx: &mut CompCtx, _in: Option<LinkId>, _out: LinkId, pkt: Packet) -> Verdict {
        self.0.lock().unwrap().push((pkt.flow.0, pkt.kind, pkt.ip_id));
        Verdict::Forward(pkt)
    }
    fn held(&self) -> u64 {
        0
    }
}

#[test]
fn ip_ids_count_up_per_flow_and_direction_like_a_host_counter() {
    // Two TCP flows and a datagram source through R1: each direction of each
    // flow numbers its packets consecutively (retransmissions included),
    // from its own start value, whatever the other flows send in between.
    let s = json!({
        "seed": 4, "duration": "2s",
        "topology": {"kind": "dumbbell", "pairs": 2,
            "bottleneck": {"rate": "5Mbps", "delay": "10ms", "queue": {"limit": "8pkt"}},
            "access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"pairs": "all", "mss": 1000}, {"kind": "poisson", "pairs": [0], "rate": "1Mbps"}]
    });
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (mut sim, _) = build(&s.to_string()).unwrap();
    let r1 = sim.nodes.iter().position(|n| n.name == "R1").unwrap();
    sim.add_component(ccsim_core::packet::NodeId(r1 as u32), Box::new(IpIds(seen.clone())));
    sim.run_until(Time::from_secs(2));
    let seen = seen.lock().unwrap();
    let mut starts = Vec::new();
    for (flow, kind) in [
        (0, Kind::Data),
        (0, Kind::Ack),
        (1, Kind::Data),
        (1, Kind::Ack),
        (2, Kind::Datagram),
    ] {
        let ids: Vec<u16> = seen
            .iter()
            .filter(|x| x.0 == flow && x.1 == kind)
            .map(|x| x.2)
            .collect();
        assert!(ids.len() > 100, "flow {flow} {kind:?}: {} packets", ids.len());
        for w in ids.windows(2) {
            assert_eq!(w[1], w[0].wrapping_add(1), "flow {flow} {kind:?}");
        }
        starts.push(ids[0]);
    }
    let retx: u64 = sim
        .flows
        .iter()
        .filter_map(|f| f.tcp_sender().map(|snd| snd.stats.retransmits))
        .sum();
    assert!(retx > 0, "the 8-packet buffer makes retransmissions");
    starts.sort();
    starts.dedup();
    assert_eq!(starts.len(), 5, "each direction starts at its own value");
}

#[test]
fn one_bdp_buffer_keeps_a_single_newreno_flow_at_full_utilization() {
    // Rule of thumb (Villamizar & Song, CCR 1994; Mascolo & Vacirca, CDC-ECC
    // 2005, eq. (1)): B = BDP ⇒ ≈ 100 %.
    let s = json!({
        "seed": 1, "duration": "120s", "warmup": "20s",
        "topology": {"kind": "dumbbell", "pairs": 1,
            "bottleneck": {"rate": "40Mbps", "delay": "48ms", "queue": {"kind": "droptail", "limit": "1bdp"}},
            "access": {"rate": "1Gbps", "delay": "1ms"}},
        "flows": [{"pairs": "all", "cc": "newreno", "mss": 960, "header": 40}]
    });
    let out = ccsim_core::run(&s.to_string()).unwrap();
    let u = queue_value(&out, "R1->R2", "utilization");
    assert!(u >= 0.98, "utilization {u}");
}

fn scenario_strategy() -> impl Strategy<Value = Value> {
    (
        1u32..4,
        prop::sample::select(vec!["1Mbps", "10Mbps", "45Mbps"]),
        prop::sample::select(vec!["1ms", "10ms", "40ms"]),
        prop::sample::select(vec!["2pkt", "10pkt", "50pkt", "20KB", "0.5bdp"]),
        prop::sample::select(vec![0.0, 0.001, 0.05]),
        prop::sample::select(vec!["tahoe", "reno", "newreno"]),
        prop::sample::select(vec!["inf", "30KB", "300KB"]),
        any::<u64>(),
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
        (
            // ns3: PRR, the pipe loss window, CWR hold, per-ACK RTT samples
            prop::sample::select(vec!["ccsim", "ns2", "ns3"]),
            // the access links' jitter (FIFO: it delays, never reorders)
            prop::sample::select(vec!["0s", "2ms"]),
        ),
    )
        .prop_map(
            |(pairs, rate, delay, limit, loss, cc, size, seed, udp, delack, sack, (conv, jitter))| {
                let mut flows = vec![json!({"pairs": "all", "cc": cc, "size": size, "mss": 1000,
                "delayed_ack": delack, "start": {"uniform": ["0s", "0.5s"]}, "rwnd": "64KB",
                "sack": sack, "conventions": conv})];
                if udp {
                    flows.push(json!({"kind": "poisson", "pairs": [0], "rate": "500kbps", "size_dist": "exponential"}));
                }
                json!({
                    "seed": seed, "duration": "3s", "warmup": "0.5s",
                    "topology": {"kind": "dumbbell", "pairs": pairs,
                        "bottleneck": {"rate": rate, "delay": delay, "loss": loss,
                            "queue": {"kind": "droptail", "limit": limit}},
                        "access": {"rate": "100Mbps", "delay": {"uniform": ["0ms", "5ms"]},
                            "jitter": jitter}},
                    "flows": flows,
                    "monitor": {"interval": "50ms"}
                })
            },
        )
}

/// A run with the fast paths for links (`Sim::fast_links`) on or off, its
/// event counts left out.
fn run_links(s: &Value, fast: bool) -> ccsim_core::output::Output {
    without_event_counts(run_paths(s, fast, true))
}

/// A case `fast_links_change_no_result` found (tahoe, ns3 conventions, SACK,
/// two pairs, 10 Mb/s bottleneck with a 2-packet queue): at 1.958442338 s
/// two packets reach the bottleneck's queue at once, over links 3.35 and
/// 1.89 ms long, while the packet waiting there starts its service (an event
/// scheduled one 0.84-ms serialization ahead). In ns-2's order the two
/// arrivals come first and the second finds the queue full; the event-free
/// FIFO once took the start right after the first arrival, so the second
/// fitted and the runs parted (link/fifo.rs, `Fifo::admit`).
#[test]
fn fast_links_a_start_between_two_arrivals() {
    let s = json!({
        "seed": 15079837609459573281u64, "duration": "3s", "warmup": "0.5s",
        "topology": {"kind": "dumbbell", "pairs": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "1ms", "loss": 0.0,
                "queue": {"kind": "droptail", "limit": "2pkt"}},
            "access": {"rate": "100Mbps", "delay": {"uniform": ["0ms", "5ms"]}, "jitter": "0s"}},
        "flows": [{"pairs": "all", "cc": "tahoe", "size": "inf", "mss": 1000,
            "delayed_ack": false, "start": {"uniform": ["0s", "0.5s"]}, "rwnd": "64KB",
            "sack": true, "conventions": "ns3"}],
        "monitor": {"interval": "50ms"}
    });
    assert_eq!(fingerprint(&run_links(&s, true)), fingerprint(&run_links(&s, false)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Conservation and queue bounds are checked by the engine at the end of
    /// every run (an error if violated); check them from the outputs too.
    #[test]
    fn conservation_and_queue_bounds(s in scenario_strategy()) {
        let out = ccsim_core::run(&s.to_string()).expect("run succeeds and invariants hold");
        let sum = &out.summary;
        let created = sum["packets_created"].as_u64().unwrap();
        let rest = sum["packets_delivered"].as_u64().unwrap() + sum["packets_dropped"].as_u64().unwrap()
            + sum["packets_in_flight"].as_u64().unwrap();
        prop_assert_eq!(created, rest);
        let limit = s["topology"]["bottleneck"]["queue"]["limit"].as_str().unwrap();
        if let Some(n) = limit.strip_suffix("pkt") {
            prop_assert!(queue_value(&out, "R1->R2", "max_len_pkts") <= n.parse::<f64>().unwrap());
        }
    }

    /// Handing packets that find an empty queue and an idle transmitter
    /// straight to the transmitter (`Sim::cut_through`) is an optimization:
    /// byte-identical results with it off.
    #[test]
    fn cut_through_changes_no_result(s in scenario_strategy()) {
        prop_assert_eq!(fingerprint(&run_paths(&s, true, true)), fingerprint(&run_paths(&s, true, false)));
    }

    /// Serving drop-tail links as event-free FIFOs and folding them behind
    /// their one feeder (`Sim::fast_links`, sim/plan.rs) is an optimization:
    /// byte-identical results with it off, ties at one instant included
    /// (both take them in the order they were, or would have been, scheduled:
    /// sched.rs, link/fifo.rs).
    #[test]
    fn fast_links_change_no_result(s in scenario_strategy()) {
        prop_assert_eq!(fingerprint(&run_links(&s, true)), fingerprint(&run_links(&s, false)));
    }

    /// Same scenario and seed: byte-identical results.
    #[test]
    fn determinism(s in scenario_strategy()) {
        let a = ccsim_core::run(&s.to_string()).unwrap();
        let b = ccsim_core::run(&s.to_string()).unwrap();
        prop_assert_eq!(fingerprint(&a), fingerprint(&b));
    }
}
