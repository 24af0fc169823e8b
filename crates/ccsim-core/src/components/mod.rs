//! Registry of router components a scenario can place on a node
//! (`[[components]] node = "R1", kind = "..."`). See [`crate::router`].

pub mod token_gate;

use crate::cfg::{Res, Tab};
use crate::packet::NodeId;
use crate::router::Component;
use crate::sim::Sim;

/// Component kinds a scenario may name.
pub const KINDS: &[&str] = &["token_gate"];

/// Reads the component's parameters from `t` and builds it for `node`.
pub fn build(t: &mut Tab, sim: &Sim, node: NodeId) -> Res<Box<dyn Component>> {
    let kind = t.choice("kind", None, KINDS)?;
    match kind.as_str() {
        "token_gate" => Ok(Box::new(token_gate::build(t, sim, node)?)),
        other => unreachable!("unvalidated component kind {other}"),
    }
}
