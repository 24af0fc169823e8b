//! How each link is served: which drop-tail links run as event-free FIFOs
//! and which are folded behind the one link that feeds them.
//!
//! * A link whose discipline is a plain drop-tail FIFO
//!   ([`crate::qdisc::Qdisc::fifo_limit`]) and whose queue nothing watches
//!   (no router component, no capture or trace on it) is served as a
//!   [`Fifo`]: a packet's whole passage is computed when it arrives, so the
//!   link schedules no wakeup to dequeue the next one.
//! * Such a link whose every packet comes from one other link, its feeder
//!   (on the dumbbell: each receiver's access link behind the bottleneck, and
//!   each sender's behind the reverse bottleneck), is told of an arrival as
//!   soon as the packet starts across the feeder: the packet goes straight
//!   into this link's pipe and the event of its arrival at the feeder's far
//!   end is never needed. A data packet's round trip on a dumbbell then costs
//!   four events instead of six or seven.
//!
//! The feeders come from the paths of every pair of hosts that can exchange
//! packets (the flows, in both directions, and the workloads' pairs), over
//! every member of an ECMP group. A run with router components folds
//! nothing: components may create packets at any node.
//!
//! Neither changes a result: events at one nanosecond are taken in the order
//! they would have been scheduled with an event per packet per hop (sched.rs,
//! link/fifo.rs), so a run gives the same bytes with the fast paths off
//! (`Sim::serve_links_by_events`; tests/engine.rs checks it on random
//! scenarios).

use super::Sim;
use crate::link::Fifo;
use crate::packet::{LinkId, NodeId};

/// What feeds a link, as found so far.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Input {
    Nothing,
    /// One link, or `None`: the endpoints of its `from` node.
    One(Option<LinkId>),
    Several,
}

impl Input {
    fn add(&mut self, from: Option<LinkId>) {
        *self = match *self {
            Input::Nothing => Input::One(from),
            Input::One(f) if f == from => Input::One(f),
            _ => Input::Several,
        };
    }
}

impl Sim {
    /// Serves the links as the module doc says (called by [`Sim::prime`]
    /// when [`Sim::fast_links`] is on).
    pub(super) fn plan_links(&mut self) {
        debug_assert_eq!(self.counters.created, 0, "links are planned before the run");
        self.serve_links_by_events();
        let tapped = |l: LinkId| self.taps.as_deref().is_some_and(|t| t.on(l));
        let fifo: Vec<bool> = self
            .links
            .iter()
            .map(|l| !l.watched && !l.buffered && !l.pausable && !tapped(l.id) && l.qdisc.fifo_limit().is_some())
            .collect();
        let untapped: Vec<bool> = self.links.iter().map(|l| !tapped(l.id)).collect();
        let inputs = if self.nodes.iter().any(|n| !n.comps.is_empty()) {
            Vec::new()
        } else {
            self.link_inputs()
        };
        for (m, _) in fifo.iter().enumerate().filter(|(_, &f)| f) {
            let feeder = match inputs.get(m) {
                Some(Input::One(Some(f))) if untapped[f.idx()] && f.idx() != m => Some(*f),
                _ => None,
            };
            let l = &mut self.links[m];
            l.fifo = l.qdisc.fifo_limit().map(|lim| Fifo::new(lim, feeder.is_some()));
            l.feeder = feeder;
            if let Some(f) = feeder {
                self.links[f.idx()].feeds = true;
            }
        }
    }

    /// Every link back to its own service: events for all ([`Sim::fast_links`]
    /// off; before the run starts).
    pub fn serve_links_by_events(&mut self) {
        for l in &mut self.links {
            l.fifo = None;
            l.feeder = None;
            l.feeds = false;
        }
    }

    /// What feeds each link: for every destination, a walk from all the
    /// nodes that send to it along every next hop towards it (each link
    /// walked once per destination).
    fn link_inputs(&self) -> Vec<Input> {
        let mut pairs: Vec<(NodeId, NodeId)> = Vec::new();
        let flows = self.flows.iter().map(|f| (f.src, f.dst));
        for (a, b) in flows.chain(self.workloads.procs.iter().flat_map(|p| p.pairs.iter().copied())) {
            pairs.extend([(b, a), (a, b)]); // (destination, source), both ways
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut inputs = vec![Input::Nothing; self.links.len()];
        let mut walked = vec![usize::MAX; self.links.len()];
        let mut todo: Vec<(NodeId, Option<LinkId>)> = Vec::new();
        for (k, by_dst) in pairs.chunk_by(|a, b| a.0 == b.0).enumerate() {
            let dst = by_dst[0].0;
            todo.extend(by_dst.iter().filter(|p| p.1 != dst).map(|&(_, src)| (src, None)));
            while let Some((node, from)) = todo.pop() {
                self.nodes[node.idx()].route.each_hop(dst, |l| {
                    inputs[l.idx()].add(from);
                    let to = self.links[l.idx()].to;
                    if walked[l.idx()] != k && to != dst {
                        walked[l.idx()] = k;
                        todo.push((to, Some(l)));
                    }
                });
            }
        }
        inputs
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::build;
    use serde_json::json;

    /// (link name, FIFO, folded behind) for every link of a built scenario.
    fn plan(s: serde_json::Value) -> Vec<(String, bool, Option<String>)> {
        let (sim, _) = build(&s.to_string()).unwrap();
        sim.links
            .iter()
            .map(|l| {
                let feeder = l.feeder.map(|f| sim.links[f.idx()].name.clone());
                (l.name.clone(), l.fifo.is_some(), feeder)
            })
            .collect()
    }

    fn dumbbell(extra: serde_json::Value) -> serde_json::Value {
        let mut s = json!({
            "duration": "1s",
            "topology": {"kind": "dumbbell", "pairs": 2,
                "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                "access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"pairs": "all"}]
        });
        for (k, v) in extra.as_object().unwrap() {
            s[k] = v.clone();
        }
        s
    }

    fn folded(p: &[(String, bool, Option<String>)], name: &str) -> Option<String> {
        p.iter().find(|l| l.0 == name).unwrap().2.clone()
    }

    /// On a dumbbell every drop-tail link is a FIFO; each receiver's access
    /// link is folded behind the bottleneck (its only input), each sender's
    /// behind the reverse bottleneck (the ACKs), and the bottleneck, fed by
    /// every sender, behind nothing.
    #[test]
    fn dumbbell_access_links_fold_behind_the_bottleneck() {
        let p = plan(dumbbell(json!({})));
        assert!(p.iter().all(|l| l.1), "every link drop-tail: {p:?}");
        assert_eq!(folded(&p, "R2->d0").as_deref(), Some("R1->R2"));
        assert_eq!(folded(&p, "R2->d1").as_deref(), Some("R1->R2"));
        assert_eq!(folded(&p, "R1->s0").as_deref(), Some("R2->R1"));
        assert_eq!(folded(&p, "R1->R2"), None, "two senders feed it");
        assert_eq!(folded(&p, "s0->R1"), None, "its host feeds it");
    }

    /// A queue that is not drop-tail is served by events, and can still feed
    /// folded links; a captured link folds nothing behind it; a node with
    /// router components folds nothing at all.
    #[test]
    fn what_keeps_a_link_on_events() {
        let mut red = dumbbell(json!({}));
        red["topology"]["bottleneck"]["queue"] = json!({"kind": "red", "limit": "50pkt"});
        let p = plan(red);
        assert!(!p.iter().find(|l| l.0 == "R1->R2").unwrap().1);
        assert_eq!(folded(&p, "R2->d0").as_deref(), Some("R1->R2"));
        let p = plan(dumbbell(json!({"capture": [{"link": "R1->R2"}]})));
        assert!(!p.iter().find(|l| l.0 == "R1->R2").unwrap().1, "a captured link");
        assert_eq!(folded(&p, "R2->d0"), None, "nothing folds behind a captured link");
        assert_eq!(folded(&p, "R1->s0").as_deref(), Some("R2->R1"));
    }
}
