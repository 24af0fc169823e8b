//! Runs with the engine's fast paths on or off, readers for the result tables
//! and output fingerprints, shared by the engine test files.
#![allow(dead_code)] // each test binary uses a subset

use ccsim_core::output::{Column, Output};
use serde_json::Value;

/// Runs `s` to its end with the engine's fast paths as given: `fast_links`
/// (event-free FIFOs and folding, `Sim::fast_links`; off: every link served
/// by events) and `cut_through` (`Sim::cut_through`), checking the invariants.
pub fn run_paths(s: &Value, fast_links: bool, cut_through: bool) -> Output {
    let (mut sim, resolved) = ccsim_core::scenario::build(&s.to_string()).unwrap();
    if !fast_links {
        sim.serve_links_by_events();
    }
    sim.cut_through = cut_through;
    let events = sim.run_until(sim.end);
    sim.close();
    sim.check_invariants().unwrap();
    ccsim_core::output::collect(sim, resolved.to_string(), events)
}

/// `o` without the summary's event counts: what serving links by events
/// changes is their number, not what they do.
pub fn without_event_counts(mut o: Output) -> Output {
    o.summary.as_object_mut().unwrap().retain(|k, _| !k.contains("events"));
    o
}

pub fn col<'a>(o: &'a Output, table: &str, name: &str) -> &'a Column {
    let t = o.tables.iter().find(|t| t.name == table).expect("table");
    &t.columns
        .iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("column {name}"))
        .1
}

/// A numeric column as f64 values.
pub fn f64s(c: &Column) -> Vec<f64> {
    match c {
        Column::F64(v) => v.clone(),
        Column::I64(v) => v.iter().map(|&x| x as f64).collect(),
        Column::Str(_) | Column::Cat(..) => panic!("text column"),
    }
}

/// A text column.
pub fn strs(c: &Column) -> Vec<String> {
    match c {
        Column::Str(v) => v.clone(),
        Column::Cat(codes, labels) => codes.iter().map(|&c| labels[c as usize].clone()).collect(),
        _ => panic!("not a text column"),
    }
}

/// One value of the queues table, by queue name (`"R1->R2"`) and column.
pub fn queue_value(o: &Output, queue: &str, name: &str) -> f64 {
    let i = strs(col(o, "queues", "queue"))
        .iter()
        .position(|n| n == queue)
        .expect("queue");
    f64s(col(o, "queues", name))[i]
}

/// A numeric column of the flows table, one value per flow.
pub fn flow_values(o: &Output, name: &str) -> Vec<f64> {
    f64s(col(o, "flows", name))
}

/// Every table and the summary as text, floats by their bits.
pub fn fingerprint(o: &Output) -> String {
    let mut s = o.summary.to_string();
    for t in &o.tables {
        for (name, c) in &t.columns {
            s.push_str(name);
            match c {
                Column::F64(v) => v.iter().for_each(|x| s.push_str(&format!("{:x},", x.to_bits()))),
                Column::I64(v) => v.iter().for_each(|x| s.push_str(&format!("{x},"))),
                Column::Str(v) => v.iter().for_each(|x| s.push_str(x)),
                Column::Cat(..) => strs(c).iter().for_each(|x| s.push_str(x)),
            }
        }
    }
    for (name, bytes) in &o.files {
        s.push_str(&format!("{name}:{}:{:x},", bytes.len(), ccsim_core::rng::fnv1a(bytes)));
    }
    s
}
