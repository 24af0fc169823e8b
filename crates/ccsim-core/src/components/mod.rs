//! Registry of router components a scenario can place on a node
//! (`[[components]] node = "R1", kind = "..."`). See [`crate::router`].

use crate::cfg::{Res, Tab};
use crate::packet::NodeId;
use crate::router::Component;
use crate::sim::Sim;

/// Component kinds a scenario may name.
pub const KINDS: &[&str] = &[];

/// Reads the component's parameters from `t` and builds it for `node`.
pub fn build(t: &mut Tab, _sim: &Sim, _node: NodeId) -> Res<Box<dyn Component>> {
    let kind = t.raw("kind").cloned().unwrap_or_default();
    Err(t.error("kind", &kind, "a component kind (none is available in this version)"))
}
