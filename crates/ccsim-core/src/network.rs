//! The narrow view of the network that a model gets while it is built: node
//! and link facts, the flows placed so far, and the routes. Router components
//! read it to check where they sit (which outputs, which flows cross them);
//! transports read a path's first hop. The world ([`crate::world::WorldRef`])
//! implements it; models never see the event loop.

use crate::packet::{FlowId, LinkId, NodeId};
use crate::units::{Limit, Rate, Time};

/// What a model may know of one link.
#[derive(Clone, Copy, Debug)]
pub struct LinkFacts<'a> {
    pub id: LinkId,
    pub name: &'a str,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    /// The limit of the link's output queue.
    pub limit: Limit,
}

/// What a model may know of one flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowFacts<'a> {
    pub name: &'a str,
    /// The transport's kind (`"tcp"`, `"cbr"`, ...).
    pub kind: &'static str,
    pub src: NodeId,
    pub dst: NodeId,
}

/// The network as models see it while they are built.
pub trait Network {
    fn node_count(&self) -> usize;
    fn node_name(&self, node: NodeId) -> &str;
    fn link_count(&self) -> usize;
    fn link(&self, link: LinkId) -> LinkFacts<'_>;
    fn flow_count(&self) -> usize;
    fn flow(&self, flow: FlowId) -> FlowFacts<'_>;
    /// The output link `node` uses towards `dst` (None if unreachable).
    fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<LinkId>;

    /// The output links of `node`, in id order.
    fn outputs(&self, node: NodeId) -> Vec<LinkId> {
        (0..self.link_count() as u32)
            .map(LinkId)
            .filter(|&l| self.link(l).from == node)
            .collect()
    }
    /// Links crossed from `from` to `to` along the forwarding tables.
    fn path(&self, from: NodeId, to: NodeId) -> Vec<LinkId> {
        let mut links = Vec::new();
        let mut n = from;
        while n != to && links.len() <= self.link_count() {
            let Some(l) = self.next_hop(n, to) else { break };
            links.push(l);
            n = self.link(l).to;
        }
        links
    }
    /// Routers (switches) crossed from `from` to `to`: the links of the
    /// path less one (0 if there is no path).
    fn hops(&self, from: NodeId, to: NodeId) -> u32 {
        let (mut n, mut links) = (from, 0u32);
        while n != to && links as usize <= self.link_count() {
            let Some(l) = self.next_hop(n, to) else { break };
            links += 1;
            n = self.link(l).to;
        }
        links.saturating_sub(1)
    }

    /// The base round-trip time from `src` to `dst` and back for a
    /// `data`-byte packet answered by an `ack`-byte one: each link's
    /// propagation delay and serialization, both ways, no queueing.
    fn base_rtt(&self, src: NodeId, dst: NodeId, data: u64, ack: u64) -> Time {
        let way = |a, b, bytes| {
            self.path(a, b)
                .into_iter()
                .map(|l| {
                    let f = self.link(l);
                    f.delay + f.rate.tx_time(bytes)
                })
                .fold(Time::ZERO, |x, y| x + y)
        };
        way(src, dst, data) + way(dst, src, ack)
    }
    /// Rate of the first link on the route from `src` to `dst` (a paced
    /// sender's default rate), 0 if there is none.
    fn first_hop_rate(&self, src: NodeId, dst: NodeId) -> Rate {
        self.next_hop(src, dst).map_or(Rate(0), |l| self.link(l).rate)
    }
}
