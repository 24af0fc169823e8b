//! Registry of router components a scenario can place on a node
//! (`[[components]] node = "R1", kind = "..."`). See [`crate::router`].

pub mod buc;
pub mod buc_gateway;
pub mod token_gate;

use crate::cfg::{names_hint, Res, ScenarioError, Tab};
use crate::network::Network;
use crate::packet::NodeId;
use crate::router::Component;

type Builder = fn(&mut Tab, &dyn Network, NodeId) -> Res<Box<dyn Component>>;

/// Component kinds a scenario may name, each with the reader of its keys
/// that builds it for its node.
pub const BUILDERS: &[(&str, Builder)] = &[
    ("token_gate", |t, net, node| {
        Ok(Box::new(token_gate::build(t, net, node)?))
    }),
    ("buc", |t, net, node| Ok(Box::new(buc_gateway::build(t, net, node)?))),
];

/// Reads the component's `kind` and parameters from `t` and builds it for `node`.
pub fn build(t: &mut Tab, net: &dyn Network, node: NodeId) -> Res<Box<dyn Component>> {
    let (_, builder) = t.pick("kind", None, BUILDERS)?;
    builder(t, net, node)
}

/// Reads `[[components]]`: each names the node hosting it (`node`) and its
/// `kind`, with that kind's own keys. Returns them in scenario order.
pub fn read(root: &mut Tab, net: &dyn Network) -> Res<Vec<(NodeId, Box<dyn Component>)>> {
    let Some(arr) = root.array("components")? else {
        return Ok(Vec::new());
    };
    let names: Vec<String> = (0..net.node_count())
        .map(|i| net.node_name(NodeId(i as u32)).to_string())
        .collect();
    let cpath = root.key_path("components");
    let (mut out, mut resolved) = (Vec::new(), Vec::new());
    for (i, v) in arr.iter().enumerate() {
        let mut t = Tab::new(format!("{cpath}[{i}]"), v)?;
        let node_name = t
            .string("node")?
            .ok_or_else(|| t.missing("node", "the name of the node hosting the component"))?;
        let node = names
            .iter()
            .position(|n| *n == node_name)
            .ok_or_else(|| ScenarioError {
                path: t.key_path("node"),
                value: format!("{node_name:?}"),
                expected: format!("one of the topology's nodes: {}", names_hint(&node_name, &names)),
            })?;
        let node = NodeId(node as u32);
        out.push((node, build(&mut t, net, node)?));
        resolved.push(t.finish()?);
    }
    root.put("components", serde_json::Value::Array(resolved));
    Ok(out)
}

/// Names quoted and separated by commas, for error messages.
pub(crate) fn quoted<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names
        .into_iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
