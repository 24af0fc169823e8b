//! ccsim-core: a deterministic packet-level discrete-event network simulator
//! for congestion-control and router-buffer research.
//!
//! The engine is pure Rust and usable on its own: [`run`] takes a scenario
//! (JSON text, schema in docs/user-guide.md) and returns result tables.
//!
//! Modules in layers, each using only those below it (docs/architecture.md,
//! checked by tests/layers.rs):
//! * data: `units`, `rng`, `packet`, `cfg`, `error`, `table`, `sched`,
//!   `budget`, `routing`, `network` (the view models get of the network);
//! * models: `adpm`, `qdisc`, `link`, `router`, `endpoint`, `feedback`, `cc`,
//!   `tcp`, `transport`, `workload`, `components`;
//! * world: `world` (nodes and flows, holding models);
//! * observers: `monitor`, `capture`, `trace`, `tap`;
//! * engine: `sim` (the event loop);
//! * edges: `scenario` (reading), `output` (collecting), `session` (a run
//!   stopped at decision points), and this root.

pub mod adpm;
pub mod alloc;
pub mod budget;
pub mod capture;
pub mod cc;
pub mod cfg;
pub mod components;
pub mod endpoint;
pub mod error;
pub mod feedback;
pub mod hist;
pub mod int;
pub mod link;
pub mod mmu;
pub mod monitor;
pub mod network;
pub mod output;
pub mod packet;
pub mod qdisc;
pub mod rng;
pub mod router;
pub mod routing;
pub mod scenario;
pub mod sched;
pub mod schema;
pub mod session;
pub mod sim;
pub mod table;
pub mod tap;
pub mod tcp;
pub mod trace;
pub mod transport;
pub mod units;
pub mod workload;
pub mod world;

pub use cfg::ScenarioError;
pub use error::SimError;
pub use output::Output;
pub use sim::Sim;

/// Engine version (recorded in every result).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Any failure of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    Scenario(ScenarioError),
    Sim(SimError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Scenario(e) => e.fmt(f),
            Error::Sim(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for Error {}
impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Scenario(e)
    }
}
impl From<SimError> for Error {
    fn from(e: SimError) -> Self {
        Error::Sim(e)
    }
}

/// Events processed between two looks at the clock, signals, progress and memory
/// (a few milliseconds of work), so that a run can be interrupted whatever its length.
pub const STEP_EVENTS: u64 = 1 << 16;

/// Builds and runs a scenario to its end, calling `progress(now)` roughly
/// every `slice` of simulated time; `progress` returning false aborts.
pub fn run_with_progress(
    text: &str,
    slice: Option<units::Time>,
    mut progress: impl FnMut(units::Time) -> bool,
) -> Result<Output, Error> {
    // (The resolved tree is dropped here: only its text is kept.)
    let (mut sim, resolved) = scenario::build(text).map(|(sim, r)| (sim, r.to_string()))?;
    let slice = slice.unwrap_or(sim.end);
    let mut events = 0;
    let mut t = units::Time::ZERO;
    while !sim.done() {
        t = (t + slice).min(sim.end);
        while !sim.reached(t) {
            events += sim.step(t, STEP_EVENTS)?;
        }
        if !progress(t) {
            return Err(Error::Sim(SimError("interrupted".into())));
        }
    }
    sim.close();
    sim.check_invariants()?;
    Ok(output::collect(sim, resolved, events))
}

/// Builds and runs a scenario to its end.
pub fn run(text: &str) -> Result<Output, Error> {
    run_with_progress(text, None, |_| true)
}

/// Validates a scenario and returns its fully resolved form.
pub fn resolve(text: &str) -> Result<serde_json::Value, ScenarioError> {
    resolve_limited(text, &budget::Limits::default())
}

/// [`resolve`] within `limits` (a scenario that would not fit is an error).
pub fn resolve_limited(text: &str, limits: &budget::Limits) -> Result<serde_json::Value, ScenarioError> {
    scenario::build_limited(text, limits).map(|(_, r)| r)
}
