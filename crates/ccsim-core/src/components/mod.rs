//! Registry of router components a scenario can place on a node
//! (`[[components]] node = "R1", kind = "..."`). See [`crate::router`].

pub mod buc;
pub mod buc_gateway;
pub mod token_gate;

use crate::cfg::{Res, Tab};
use crate::network::Network;
use crate::packet::NodeId;
use crate::router::Component;

/// Component kinds a scenario may name.
pub const KINDS: &[&str] = &["token_gate", "buc"];

/// Reads the component's parameters from `t` and builds it for `node`.
pub fn build(t: &mut Tab, net: &dyn Network, node: NodeId) -> Res<Box<dyn Component>> {
    let kind = t.choice("kind", None, KINDS)?;
    match kind.as_str() {
        "token_gate" => Ok(Box::new(token_gate::build(t, net, node)?)),
        "buc" => Ok(Box::new(buc_gateway::build(t, net, node)?)),
        other => unreachable!("unvalidated component kind {other}"),
    }
}

/// Names quoted and separated by commas, for error messages.
pub(crate) fn quoted<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names
        .into_iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
