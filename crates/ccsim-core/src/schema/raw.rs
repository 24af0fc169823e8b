//! Schemas of the keys the engine reads untyped (`Tab::raw`, with its own
//! parsing next to the read), and the few cross-key rules a schema can state.
//! Each entry names the key by the end of its table path pattern (`queue.min_th`
//! matches every queue's `min_th`); the reading code is cited. A test checks
//! that every key read untyped has an entry or a recorded table/typed read.

use super::{rate_schema, size_schema, time_schema};
use serde_json::{json, Value};

fn auto_or(number: Value) -> Value {
    json!({"anyOf": [{"const": "auto"}, number]})
}

fn unit_interval() -> Value {
    json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1})
}

fn names(non_empty: bool) -> Value {
    let min = if non_empty { 1 } else { 0 };
    json!({"type": "array", "items": {"type": "string"}, "minItems": min})
}

fn all_or_names(non_empty: bool) -> Value {
    json!({"anyOf": [{"const": "all"}, names(non_empty)]})
}

/// The declared schema of an untyped key at `path` (a table pattern and key).
pub fn schema(path: &str) -> Option<Value> {
    let ends = |s: &str| path == s || path.ends_with(&format!(".{s}"));
    let queue = path.contains("queue.") || path.contains("inner.") || path.contains("ared.");
    Some(
        if ends("topology.access.delay") || ends("topology.receiver_access.delay") || path == "flows[].start" {
            // scenario/topology.rs read_spread: a time, a list of times, or {uniform = [min, max]}
            json!({"anyOf": [time_schema(), {"type": "array", "items": time_schema()}]})
        } else if ends("topology.access.rate") || ends("topology.receiver_access.rate") {
            // scenario/topology.rs read_rates: a rate or a list of rates (one per pair)
            json!({"anyOf": [rate_schema(), {"type": "array", "items": rate_schema()}]})
        } else if path == "topology.bdp_rtt" {
            time_schema()
        } else if path == "topology.bdp_packet" {
            size_schema()
        } else if path == "flows[].pairs" || path == "workloads[].pairs" {
            // scenario/flows.rs, workload/read.rs: "all" or pair indices
            json!({"anyOf": [{"const": "all"}, {"type": "array", "items": {"type": "integer", "minimum": 0}}]})
        } else if path == "flows[].src" || path == "flows[].dst" {
            json!({"type": "string"})
        } else if path == "workloads[].sources"
            || path == "workloads[].destinations"
            || path == "flows[].matrix.hosts"
            || path == "collectives[].hosts"
            || path == "flows[].after"
        {
            // workload/read.rs Nodes::list: node names of the topology
            names(true)
        } else if path == "workloads[].size.cdf" {
            // workload/cdf.rs Cdf::read: a shipped CDF's name, a file, or [size in bytes, P(X ≤ size)] points
            json!({"anyOf": [
                {"type": "string"},
                {"type": "array", "minItems": 1, "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number", "minimum": 0}}}
            ]})
        } else if ends("rate") && (path.starts_with("flows[]") || path.starts_with("workloads[].transport")) {
            // transport/blt.rs: "access" (the first link's rate) or a rate
            json!({"anyOf": [{"const": "access"}, rate_schema()]})
        } else if ends("w_ai") {
            // transport/roce.rs read_hpcc: "auto" or a size
            auto_or(size_schema())
        } else if ends("base_rtt") {
            // transport/roce.rs read_hpcc: "auto" or a time
            auto_or(time_schema())
        } else if path == "workloads[].size" {
            // workload/read.rs FileSize::read: a size string (not a number), or a distribution table
            json!({"type": "string", "pattern": super::size_pattern()})
        } else if path == "workloads[].arrival_rate" {
            // workload/read.rs: connections per second, > 0
            json!({"type": "number", "exclusiveMinimum": 0})
        } else if ends("min_th") || ends("max_th") {
            // qdisc/red/spec.rs threshold: packets >= 0 (0 = auto) or "auto"
            auto_or(json!({"type": "number", "minimum": 0}))
        } else if queue && (ends("beta")) {
            // qdisc/red/spec.rs: Adaptive RED's decrease factor, (0, 1)
            json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1})
        } else if queue && (ends("mark_p") || ends("alpha") || ends("gamma")) {
            // qdisc/red/spec.rs open_closed, qdisc/bmcc.rs open_unit: (0, 1]
            unit_interval()
        } else if ends("max_p") || ends("top") {
            // qdisc/red/spec.rs open_closed: (0, 1]
            unit_interval()
        } else if ends("q_weight") {
            // qdisc/red/spec.rs: (0, 1], 0 (from the link rate) or -1 (ns-2's RTT rule)
            json!({"anyOf": [unit_interval(), {"enum": [0, -1]}]})
        } else if ends("bottom") {
            // qdisc/red/spec.rs: (0, top] or "auto"
            auto_or(unit_interval())
        } else if ends("trace.ns2") {
            // trace.rs: true, false, or a file name ending in .tr
            json!({"anyOf": [{"type": "boolean"}, {"type": "string", "pattern": "\\.tr$"}]})
        } else if path == "components[].flows" {
            // components/token_gate: "all" or flow names
            all_or_names(false)
        } else if path == "components[].ports" {
            // components/buc_gateway: "all" or a non-empty list of output link names
            all_or_names(true)
        } else {
            return None;
        },
    )
}

/// Keys the engine reports missing only when another key is absent too, so
/// not required by themselves: (table pattern, key). The rule that replaces
/// each is in [`rules`].
pub const NOT_REQUIRED: &[(&str, &str)] = &[
    // flows are required unless workloads are given (scenario/flows.rs)
    ("", "flows"),
    // arrival_rate, offered_load or load (workload/read.rs)
    ("workloads[]", "arrival_rate"),
    ("workloads[]", "offered_load"),
    ("workloads[]", "load"),
    // endpoints: pairs, or src and dst / sources and destinations
    ("flows[]", "src"),
    ("flows[]", "dst"),
    ("workloads[]", "sources"),
    ("workloads[]", "destinations"),
    // a Pareto size takes `min` or `mean` (workload/read.rs FileSize::read)
    ("workloads[].size", "mean"),
    ("workloads[].size", "min"),
    // feedback only with a cc that needs it (tcp/params.rs; the rule below)
    ("flows[]", "feedback"),
    ("workloads[].transport", "feedback"),
];

/// `cc = "bmcc"` (or `{kind = "bmcc"}`) needs `feedback = {kind = "bmcc"}` (tcp/params.rs).
fn bmcc_needs_feedback() -> Value {
    json!({
        "if": {
            "properties": {"cc": {"anyOf": [
                {"const": "bmcc"},
                {"type": "object", "properties": {"kind": {"const": "bmcc"}}, "required": ["kind"]},
            ]}},
            "required": ["cc"],
        },
        "then": {"required": ["feedback"]},
    })
}

/// Cross-key rules of `table` that a schema can state.
pub fn rules(table: &str) -> Vec<Value> {
    match table {
        "" => vec![json!({"anyOf": [{"required": ["flows"]}, {"required": ["workloads"]}]})],
        "flows[]" => vec![
            bmcc_needs_feedback(),
            // pairs, src and dst, or a connection matrix (scenario/flows.rs, matrix.rs)
            json!({"anyOf": [{"required": ["pairs"]}, {"required": ["src", "dst"]}, {"required": ["matrix"]}]}),
        ],
        "workloads[].transport" => vec![bmcc_needs_feedback()],
        "workloads[]" => vec![
            // one of the three rates (workload/read.rs)
            json!({"oneOf": [{"required": ["arrival_rate"]}, {"required": ["offered_load"]}, {"required": ["load"]}]}),
            json!({"anyOf": [{"required": ["pairs"]}, {"required": ["sources", "destinations"]}]}),
        ],
        _ => vec![],
    }
}
