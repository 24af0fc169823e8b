//! Runs one scenario (JSON, or TOML by extension) through the engine alone, for
//! profiling and for checking that an optimization leaves results unchanged.
//!
//! ```text
//! cargo run --release -p ccsim-core --example run -- scenario.json [--dump]
//! perf record -g target/release/examples/run scenario.json
//! ```
//!
//! Prints the engine's wall time, events and events/s on stderr. `--events`
//! serves every link by events (no event-free FIFOs, no folding: `Sim::fast_links`
//! off), to compare the two. With `--dump`
//! it prints every result table, column by column, on stdout (floats as their
//! exact bit patterns), so that two builds can be compared byte for byte; the
//! summary's wall-clock fields are left out.

use ccsim_core::output::Column;
use std::time::Instant;

/// The allocator of the Python extension (crates/ccsim-py), so that engine
/// timings here are those of `ccsim.run`.
#[global_allocator]
static ALLOC: ccsim_core::alloc::Allocator = ccsim_core::alloc::Allocator;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: run SCENARIO.json|.toml [--events] [--dump]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let text = if path.ends_with(".toml") {
        toml::from_str::<serde_json::Value>(&text)
            .unwrap_or_else(|e| {
                eprintln!("{path}: {e}");
                std::process::exit(2)
            })
            .to_string()
    } else {
        text
    };
    let t0 = Instant::now();
    let out = if args.iter().any(|a| a == "--events") {
        run_by_events(&text)
    } else {
        ccsim_core::run(&text)
    }
    .unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let wall = t0.elapsed().as_secs_f64();
    let events = out.summary["events"].as_u64().unwrap_or(0);
    eprintln!(
        "{path}: {wall:.3} s wall, {events} events, {:.2} M events/s, peak pending {}",
        events as f64 / wall / 1e6,
        out.summary["peak_pending_events"]
    );
    if args.iter().any(|a| a == "--dump") {
        let mut summary = out.summary.clone();
        if let Some(m) = summary.as_object_mut() {
            m.retain(|k, _| !k.contains("wall"));
        }
        println!("summary {summary}");
        for t in &out.tables {
            for (name, col) in &t.columns {
                let cells: Vec<String> = match col {
                    Column::F64(v) => v.iter().map(|x| format!("{:016x}", x.to_bits())).collect(),
                    Column::I64(v) => v.iter().map(|x| x.to_string()).collect(),
                    Column::Str(v) => v.clone(),
                    Column::Cat(codes, labels) => codes.iter().map(|&c| labels[c as usize].clone()).collect(),
                };
                println!("{}.{} {}", t.name, name, cells.join(" "));
            }
        }
        for (name, bytes) in &out.files {
            // a digest, so that a change inside a capture shows
            let hash = ccsim_core::rng::fnv1a(bytes);
            println!("file {name} {} bytes {hash:016x}", bytes.len());
        }
    }
}

/// `ccsim_core::run` with every link served by events.
fn run_by_events(text: &str) -> Result<ccsim_core::Output, ccsim_core::Error> {
    let (mut sim, resolved) = ccsim_core::scenario::build(text)?;
    sim.serve_links_by_events();
    let events = sim.run_until(sim.end);
    sim.close();
    sim.check_invariants()?;
    Ok(ccsim_core::output::collect(sim, resolved.to_string(), events))
}
