//! Router components: mechanisms that live in a router and couple its ports.
//!
//! Two of the papers need a router that acts on both directions of a
//! conversation: RFCN (Ziegler & Clausen 1997, the BUC gateway writes a window
//! computed from the forward queue into ACKs on the reverse path) and the
//! token-based Fast-TCP gateway (ACKs on the reverse path are held until the
//! forward buffer has spare room). A [`Component`] hosted by a node therefore
//!
//! * sees every packet the node forwards, after routing, and may rewrite its
//!   header fields, let it pass, hold it, or drop it ([`Component::on_forward`]);
//! * sees every queue event at every output port of the node
//!   ([`Component::on_queue`]): enqueue, dequeue (start of transmission), drop;
//! * reads a view of each output queue of the node at any callback
//!   ([`CompCtx::queue`]): total backlog and backlog per flow;
//! * may release held packets at any later callback through [`CompCtx::release`],
//!   and may ask to be woken at a time ([`CompCtx::wake_at`]).
//!
//! A node may host several components; they are applied in the order the
//! scenario lists them. A forwarded packet passes them in that order until one
//! holds or drops it; a packet released by component `k` continues with
//! component `k + 1` (seeing `in_link = None`) and is then enqueued. Queue
//! events and wakeups are delivered to each component in order.
//!
//! Queue events of one queue operation are reported after the operation, with
//! the view showing the queue after it: first the packets the operation dropped
//! (victims pushed out to make room, or the arrival itself), then the arrival's
//! `Enqueued`; at the start of a transmission, drops made by the dequeue, then
//! `Dequeued`. Components see the stored packet by reference (no copy).
//!
//! Held packets stay counted as "in flight" by the conservation check via
//! [`Component::held`]. Components never touch the event queue themselves.

use crate::packet::{FlowId, LinkId, NodeId, Packet};
use crate::qdisc::conv::FlowMap;
use crate::qdisc::DropReason;
use crate::units::Time;

/// What happens to a forwarded packet.
pub enum Verdict {
    /// Continue to the chosen output queue (possibly rewritten).
    Forward(Packet),
    /// The component keeps the packet; it must release it later or report it in `held()`.
    Hold,
    /// The component discards the packet (counted as a drop, reason `component`).
    Drop(Packet),
}

/// A queue event at one of the node's output ports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueEvent {
    Enqueued,
    /// Left the queue and started transmission.
    Dequeued,
    /// Dropped by the queue discipline (the arrival or a queued victim).
    Dropped(DropReason),
}

/// Packets and bytes one flow has waiting in a queue.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowBacklog {
    pub packets: u32,
    pub bytes: u64,
}

/// Read-only view of an output queue of a node hosting components: the
/// backlog in total and per flow (packets waiting, not the one in
/// transmission). Kept by the engine from the packets it hands to the queue
/// discipline and gets back from it, so every discipline offers it.
#[derive(Clone, Debug)]
pub struct QueueView {
    node: NodeId,
    link: LinkId,
    packets: usize,
    bytes: u64,
    flows: FlowMap<FlowBacklog>,
}

impl QueueView {
    /// An empty view of output `link` of `node`.
    pub fn new(node: NodeId, link: LinkId) -> QueueView {
        QueueView {
            node,
            link,
            packets: 0,
            bytes: 0,
            flows: FlowMap::default(),
        }
    }
    /// A view with a given total backlog and no per-flow detail (for unit
    /// tests of components driven without a simulator).
    pub fn with_backlog(node: NodeId, link: LinkId, packets: usize, bytes: u64) -> QueueView {
        QueueView {
            packets,
            bytes,
            ..QueueView::new(node, link)
        }
    }
    pub fn link(&self) -> LinkId {
        self.link
    }
    pub fn node(&self) -> NodeId {
        self.node
    }
    pub fn backlog_packets(&self) -> usize {
        self.packets
    }
    pub fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
    /// Backlog of one flow (zero if it has nothing queued).
    pub fn flow(&self, f: FlowId) -> FlowBacklog {
        self.flows.get(&f).copied().unwrap_or_default()
    }
    /// Number of flows with packets queued.
    pub fn active_flows(&self) -> usize {
        self.flows.len()
    }
    /// Flows with packets queued, in increasing flow id.
    pub fn flows(&self) -> Vec<(FlowId, FlowBacklog)> {
        let mut v: Vec<_> = self.flows.iter().map(|(f, b)| (*f, *b)).collect();
        v.sort_unstable_by_key(|x| x.0);
        v
    }
    /// A packet joined the queue.
    pub fn add(&mut self, p: &Packet) {
        self.packets += 1;
        self.bytes += p.size as u64;
        let e = self.flows.entry(p.flow).or_default();
        e.packets += 1;
        e.bytes += p.size as u64;
    }
    /// A packet left the queue (dequeued or dropped).
    pub fn remove(&mut self, p: &Packet) {
        self.packets -= 1;
        self.bytes -= p.size as u64;
        let e = self.flows.get_mut(&p.flow).expect("flow has a backlog");
        e.packets -= 1;
        e.bytes -= p.size as u64;
        if e.packets == 0 {
            self.flows.remove(&p.flow);
        }
    }
}

/// What a component may do during a callback.
pub struct CompCtx<'a> {
    pub now: Time,
    pub node: NodeId,
    views: &'a [Option<Box<QueueView>>],
    pub(crate) released: &'a mut Vec<(Packet, LinkId)>,
    pub(crate) wake: &'a mut Option<Time>,
}

impl<'a> CompCtx<'a> {
    /// A context at `now` for a component of `node`; `views` are the output
    /// queue views indexed by link id (empty in unit tests that need none).
    pub fn new(
        now: Time,
        node: NodeId,
        views: &'a [Option<Box<QueueView>>],
        released: &'a mut Vec<(Packet, LinkId)>,
        wake: &'a mut Option<Time>,
    ) -> Self {
        CompCtx {
            now,
            node,
            views,
            released,
            wake,
        }
    }
    /// The view of output queue `link` of this node (None for other links).
    pub fn queue(&self, link: LinkId) -> Option<&QueueView> {
        self.views
            .get(link.idx())
            .and_then(|v| v.as_deref())
            .filter(|v| v.node == self.node)
    }
    /// Sends a held packet on to output `link` (after the callback returns, it
    /// passes the node's later components and is enqueued).
    pub fn release(&mut self, pkt: Packet, link: LinkId) {
        self.released.push((pkt, link));
    }
    /// Asks for an `on_wake` call at `t` (the earliest request wins).
    pub fn wake_at(&mut self, t: Time) {
        if self.wake.is_none_or(|w| t < w) {
            *self.wake = Some(t);
        }
    }
}

/// A router-level mechanism hosted by one node.
pub trait Component: Send {
    fn kind(&self) -> &'static str;
    /// A packet arriving on `in_link` (None if it originated at this node, or
    /// was released by an earlier component) is about to be enqueued at `out_link`.
    fn on_forward(&mut self, cx: &mut CompCtx, in_link: Option<LinkId>, out_link: LinkId, pkt: Packet) -> Verdict;
    /// A queue event at output `q.link()` of this node concerning `pkt`.
    fn on_queue(&mut self, _cx: &mut CompCtx, _ev: QueueEvent, _pkt: &Packet, _q: &QueueView) {}
    /// Called at a time requested with [`CompCtx::wake_at`].
    fn on_wake(&mut self, _cx: &mut CompCtx) {}
    /// Packets currently held (for the conservation check).
    fn held(&self) -> u64;
    /// Named state for time series (e.g. tokens, held ACKs).
    fn trace(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Named end-of-run statistics for the summary.
    fn stats(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// The component's event log, if it keeps one: values recorded when they
    /// change (not sampled), in time order; `timeseries["component_events"]`.
    fn log(&self) -> &[LogRow] {
        &[]
    }
}

/// One row of a component's event log: a named value at a time, optionally of
/// one output queue and one flow.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LogRow {
    pub time: Time,
    pub name: &'static str,
    pub link: Option<LinkId>,
    pub flow: Option<FlowId>,
    pub value: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;

    #[test]
    fn view_tracks_total_and_per_flow_backlog() {
        let mut v = QueueView::new(NodeId(0), LinkId(3));
        let p = |f: u32, size| Packet::new(0, FlowId(f), NodeId(0), NodeId(1), size, Kind::Data, Time::ZERO);
        v.add(&p(2, 1000));
        v.add(&p(1, 40));
        v.add(&p(2, 500));
        assert_eq!((v.backlog_packets(), v.backlog_bytes()), (3, 1540));
        assert_eq!(
            v.flow(FlowId(2)),
            FlowBacklog {
                packets: 2,
                bytes: 1500
            }
        );
        assert_eq!(v.flows().iter().map(|x| x.0 .0).collect::<Vec<_>>(), vec![1, 2]);
        v.remove(&p(1, 40));
        assert_eq!(v.active_flows(), 1);
        assert_eq!(v.flow(FlowId(1)), FlowBacklog::default());
    }
}
