//! Hostile input and resource guards: every scenario gives a result or a one-line
//! error, never a panic, a hang, or an allocation the machine cannot make.

use ccsim_core::budget::Limits;
use ccsim_core::scenario::{build, build_limited};
use ccsim_core::units::Time;
use ccsim_core::STEP_EVENTS;
use proptest::prelude::*;
use serde_json::{json, Value};

fn dumbbell(pairs: u64) -> Value {
    json!({"duration": "1s",
        "topology": {"kind": "dumbbell", "pairs": pairs,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
            "access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"pairs": "all"}]})
}

fn two_nodes(rate: &str, delay: &str) -> Value {
    json!({"duration": "1s",
        "topology": {"kind": "graph", "nodes": ["a", "b"],
            "links": [{"from": "a", "to": "b", "rate": rate, "delay": delay}]},
        "flows": [{"src": "a", "dst": "b", "mss": 1, "header": 0, "ack_size": 1}]})
}

fn error(s: &Value, limits: &Limits) -> String {
    match build_limited(&s.to_string(), limits) {
        Ok(_) => panic!("accepted: {s}"),
        Err(e) => e.to_string(),
    }
}

/// Runs to the end in steps, as the Python layer does.
fn run_steps(s: &Value, limits: &Limits) -> Result<u64, String> {
    let (mut sim, _) = build_limited(&s.to_string(), limits).map_err(|e| e.to_string())?;
    let mut events = 0;
    while !sim.done() {
        events += sim.step(Time::MAX, STEP_EVENTS).map_err(|e| e.to_string())?;
    }
    Ok(events)
}

#[test]
fn rates_above_the_maximum_are_refused_not_capped() {
    for rate in [json!("100Tbps"), json!("1e30Gbps"), json!(1e30)] {
        let mut s = two_nodes("1Gbps", "0s");
        s["topology"]["links"][0]["rate"] = rate;
        let e = error(&s, &Limits::default());
        assert!(
            e.starts_with("topology.links[0].rate") && e.contains("at most 10Tbps"),
            "{e}"
        );
    }
}

#[test]
fn a_zero_time_loop_stops_with_a_clear_error() {
    // At 10 Tbps a 1-byte segment serializes in 0.8 ps: with no delay every packet
    // arrives at the instant it was sent, and the window grows without time moving.
    let e = run_steps(&two_nodes("10Tbps", "0s"), &Limits::default()).unwrap_err();
    assert!(
        e.contains("simulated time stopped advancing") && e.contains("a->b"),
        "{e}"
    );
    // The same link with a propagation delay and packets that take time to
    // serialize (1.2 ns) is an ordinary (fast) run. (With 1-byte packets the
    // link would be infinitely fast: each serialization rounds to 0 ns.)
    let mut s = two_nodes("10Tbps", "1us");
    s["duration"] = json!("1ms");
    s["flows"][0]["mss"] = json!(1460);
    s["flows"][0]["header"] = json!(40);
    s["flows"][0]["ack_size"] = json!(40);
    let r = run_steps(&s, &Limits::default());
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn an_unbounded_queue_stops_at_the_memory_budget() {
    let mut s = dumbbell(1);
    s["duration"] = json!("100s");
    s["topology"]["bottleneck"]["queue"] = json!({"limit": "inf"});
    s["flows"] = json!([{"pairs": "all", "kind": "cbr", "rate": "50Mbps"}]);
    let e = run_steps(&s, &Limits { memory: 20_000_000 }).unwrap_err();
    assert!(
        e.contains("memory budget exceeded") && e.contains("R1->R2") && e.contains("limit inf"),
        "{e}"
    );
}

#[test]
fn what_cannot_fit_is_refused_before_it_is_built() {
    let small = Limits { memory: 1 << 30 };
    let e = error(&dumbbell(100_000), &small);
    assert!(e.starts_with("topology.pairs: got 100000") && e.contains("GB"), "{e}");
    let mut s = dumbbell(2);
    s["duration"] = json!("1000s");
    s["monitor"] = json!({"interval": "1ns"});
    let e = error(&s, &small);
    assert!(
        e.starts_with("monitor.interval: got \"1ns\"") && e.contains("TB"),
        "{e}"
    );
    let mut s = dumbbell(100);
    s["flows"][0]["count"] = json!(1_000_000);
    let e = error(&s, &small);
    assert!(e.starts_with("flows[0].count") && e.contains("100000000 flows"), "{e}");
}

#[test]
fn a_workload_far_beyond_every_link_is_refused_before_the_run() {
    // 8 links of 100 Mb/s (4 access links, each way) and 2 of 10 Mb/s: 820 Mb/s in all.
    // 1e12 connections/s of 100 KB offer 8e17 bit/s.
    let mut s = dumbbell(2);
    s["flows"] = json!([]);
    s["workloads"] = json!([{"name": "flood", "pairs": "all", "arrival_rate": 1e12, "size": "100KB"}]);
    let e = error(&s, &Limits::default());
    assert!(e.starts_with("workloads[0].arrival_rate: got 1000000000000"), "{e}");
    assert!(
        e.contains("\"flood\"") && e.contains("times the capacity of every link") && e.contains("max_alive"),
        "{e}"
    );
    // The same load set as offered_load names that key.
    s["workloads"][0] =
        json!({"name": "flood", "pairs": "all", "offered_load": "1000Gbps", "size": "100KB", "process": "per_pair"});
    let e = error(&s, &Limits::default());
    assert!(e.starts_with("workloads[0].offered_load"), "{e}");
    // Allowed: a bound on live connections, an overload of a few arrivals, and a heavy
    // but carriable load (2x the bottleneck: the users of overload studies).
    for ok in [
        json!({"pairs": "all", "arrival_rate": 1e12, "size": "100KB", "max_alive": 100}),
        json!({"pairs": "all", "arrival_rate": 1e12, "size": "100KB", "stop": "50ns"}),
        json!({"pairs": "all", "offered_load": "20Mbps", "size": "100KB"}),
        json!({"pairs": "all", "arrival_rate": 1e12, "size": {"dist": "pareto", "shape": 0.9, "min": "1KB"}, "max_alive": 10}),
    ] {
        s["workloads"] = json!([ok]);
        assert!(build(&s.to_string()).is_ok(), "{s}");
    }
    // Just past the line: 11x every link with > 1e5 arrivals in the second.
    let rate = 11.0 * 820e6 / (8.0 * 1000.0);
    s["workloads"] = json!([{"pairs": "all", "arrival_rate": rate, "size": "1KB"}]);
    assert!(error(&s, &Limits::default()).contains("11 times"));
    s["workloads"] = json!([{"pairs": "all", "arrival_rate": 9.0 * 820e6 / 8000.0, "size": "1KB"}]);
    assert!(build(&s.to_string()).is_ok());
}

#[test]
fn degenerate_sizes_and_times_are_errors() {
    let mut s = dumbbell(1);
    s["topology"]["bdp_packet"] = json!("0B");
    let e = error(&s, &Limits::default());
    assert!(e.starts_with("topology.bdp_packet") && e.contains("positive"), "{e}");
    let mut s = dumbbell(1);
    s["monitor"] = json!({"interval": "0.4ns"});
    let e = error(&s, &Limits::default());
    assert!(
        e.starts_with("monitor.interval: got \"0.4ns\"") && e.contains("at least 1ns"),
        "{e}"
    );
}

/// Any JSON value: scalars of every kind (huge, negative, fractional numbers; unit
/// strings), nested up to a few levels.
fn any_json() -> impl Strategy<Value = Value> {
    let words = prop::sample::select(vec![
        "1s",
        "0s",
        "0.4ns",
        "1e9s",
        "-1ms",
        "10Mbps",
        "100Tbps",
        "1e30Gbps",
        "0B",
        "1500B",
        "3EB",
        "inf",
        "0bdp",
        "1bdp",
        "1e300bdp",
        "100pkt",
        "1e13pkt",
        "all",
        "dumbbell",
        "graph",
        "droptail",
        "tcp",
        "cbr",
        "poisson",
        "token_gate",
        "R1",
        "R2",
        "s0",
        "d0",
        "R1->R2",
        "",
        "nan",
        "1e-320s",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        (0u64..5).prop_map(Value::from),
        words.prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every key path of a valid scenario, to replace one of them with anything.
fn paths(v: &Value, prefix: Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let mut p = prefix.clone();
                p.push(Value::from(k.as_str()));
                out.push(p.clone());
                paths(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let mut p = prefix.clone();
                p.push(Value::from(i));
                out.push(p.clone());
                paths(x, p, out);
            }
        }
        _ => {}
    }
}

fn replace(v: &mut Value, path: &[Value], new: Value) {
    let mut cur = v;
    for k in path {
        cur = match k {
            Value::String(s) => &mut cur[s.as_str()],
            _ => &mut cur[k.as_u64().unwrap() as usize],
        };
    }
    *cur = new;
}

fn rich() -> Value {
    json!({"seed": 3, "duration": "200ms", "warmup": "10ms",
        "topology": {"kind": "dumbbell", "pairs": 2, "bdp_packet": "1500B",
            "bottleneck": {"rate": "10Mbps", "delay": "5ms", "loss": 0.01,
                           "queue": {"kind": "droptail", "limit": "0.5bdp"}},
            "access": {"rate": "100Mbps", "delay": {"uniform": ["0ms", "2ms"]}}},
        "flows": [{"pairs": "all", "cc": "reno", "size": "100KB", "start": ["0s", "1ms"]},
                  {"pairs": [1], "kind": "cbr", "rate": "1Mbps", "packet_size": "500B"}],
        "components": [{"node": "R1", "kind": "token_gate", "forward": "R1->R2", "buffer": "20000B"}],
        "monitor": {"interval": "10ms", "queues": ["R1->R2"]}})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// Whatever replaces one key of a valid scenario, building gives a simulator or a
    /// `ScenarioError` (a panic fails the test), and a built one runs to its end or
    /// stops with a `SimError` within the budgets.
    #[test]
    fn any_value_at_any_key_is_a_result_or_an_error(pick in any::<prop::sample::Index>(), new in any_json()) {
        let mut s = rich();
        let mut all = Vec::new();
        paths(&s, Vec::new(), &mut all);
        let path = pick.get(&all).clone();
        replace(&mut s, &path, new);
        let small = Limits { memory: 256 << 20 };
        if let Ok((sim, _)) = build_limited(&s.to_string(), &small) {
            // Keep each case short: runs of at most a simulated second.
            if sim.end <= Time::from_secs(1) {
                let _ = run_steps(&s, &small);
            }
        }
    }

    /// Arbitrary JSON as a whole scenario (or a non-object) is a `ScenarioError`.
    #[test]
    fn any_json_document_is_a_result_or_an_error(v in any_json()) {
        let _ = build(&v.to_string());
    }

    /// Arbitrary text never panics the unit parsers.
    #[test]
    fn unit_parsers_never_panic(s in "\\PC{0,12}", n in any::<f64>()) {
        use ccsim_core::units::*;
        let _ = (parse_rate(&s), parse_time(&s), parse_size(&s), parse_buffer(&s));
        let t = format!("{n}{s}");
        let _ = (parse_rate(&t), parse_time(&t), parse_size(&t), parse_buffer(&t));
    }
}
