//! A queue discipline of the user's, written in Python (`queue = {kind =
//! "python", class = "module:Class", ...}`; docs/extending.md), and what
//! the congestion-control side ([`crate::cc::foreign`]) shares with it.
//!
//! The engine reads the `kind` and hands the rest of the table to a loader
//! that the embedding registered ([`register`]; the Python extension does so
//! when it is imported). The loader checks the table (the class it names,
//! the class's hooks, its constructor's parameters) and returns a spec that
//! the engine builds like any other: the modules it builds call back into
//! the embedding. Without a loader (the engine alone: `examples/run`, the
//! Rust tests) the kind is refused, with the reason. While the schema
//! recorder is on ([`crate::cfg::record`]), the table is read for its form
//! only (a `class` string and any other keys) and stands in as drop-tail
//! (NewReno for a congestion control), so that the schema learns the kind
//! without importing anything.

use super::{LinkInfo, Qdisc, QdiscSpec};
use crate::cfg::{record, Res, ScenarioError, Tab};
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// Reads a `kind = "python"` queue table.
pub type Loader = fn(&mut Tab) -> Res<Arc<dyn QdiscSpec>>;

static LOADER: OnceLock<Loader> = OnceLock::new();

/// Registers the loader of `kind = "python"` queues; the first registration
/// in a process stands. Returns whether this one did.
pub fn register(l: Loader) -> bool {
    LOADER.set(l).is_ok()
}

/// Why the engine alone refuses the kind.
const NO_HOST: &str = "a kind the Python package runs (ccsim.run, `ccsim run`): the engine alone \
     (examples/run, the Rust tests) cannot load a class";

pub(crate) fn refused(t: &Tab) -> ScenarioError {
    t.error("kind", &Value::from("python"), NO_HOST)
}

/// The keys of a queue table that the topology reads after the discipline's
/// reader: not parameters of the class.
pub const LATER: &[&str] = &["limit"];

/// Reads the form of a table for the schema: a required `class` and any
/// other keys but `later`.
pub(crate) fn form(t: &mut Tab, later: &[&str]) -> Res<()> {
    if t.string("class")?.is_none() {
        return Err(t.missing("class", "\"module:Class\" (the class to load)"));
    }
    t.rest(later);
    Ok(())
}

/// `queue = {kind = "python", class = "module:Class", ...}` (the queue's
/// `limit` is read after, by the topology: [`LATER`]).
pub(crate) fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    if record::on() {
        form(t, LATER)?;
        return Ok(Arc::new(Stand));
    }
    match LOADER.get() {
        Some(l) => l(t),
        None => Err(refused(t)),
    }
}

/// What a `kind = "python"` table stands for while its form is recorded.
#[derive(Debug)]
struct Stand;

impl QdiscSpec for Stand {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(super::droptail::DropTail::new(link.limit)))
    }
}
