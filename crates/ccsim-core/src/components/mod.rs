//! Registry of router components a scenario can place on a node
//! (`[[components]] node = "R1", kind = "..."`). See [`crate::router`].

pub mod buc;
pub mod buc_gateway;
pub mod token_gate;

use crate::cfg::{Res, Tab};
use crate::packet::{LinkId, NodeId};
use crate::router::Component;
use crate::sim::Sim;

/// Component kinds a scenario may name.
pub const KINDS: &[&str] = &["token_gate", "buc"];

/// Reads the component's parameters from `t` and builds it for `node`.
pub fn build(t: &mut Tab, sim: &Sim, node: NodeId) -> Res<Box<dyn Component>> {
    let kind = t.choice("kind", None, KINDS)?;
    match kind.as_str() {
        "token_gate" => Ok(Box::new(token_gate::build(t, sim, node)?)),
        "buc" => Ok(Box::new(buc_gateway::build(t, sim, node)?)),
        other => unreachable!("unvalidated component kind {other}"),
    }
}

/// Links crossed from `from` to `to` along the forwarding tables.
pub(crate) fn path(sim: &Sim, from: NodeId, to: NodeId) -> Vec<LinkId> {
    let mut links = Vec::new();
    let mut n = from;
    while n != to && links.len() <= sim.links.len() {
        let Some(l) = sim.next_hop(n, to) else { break };
        links.push(l);
        n = sim.links[l.idx()].to;
    }
    links
}

/// Names quoted and separated by commas, for error messages.
pub(crate) fn quoted<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names
        .into_iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
