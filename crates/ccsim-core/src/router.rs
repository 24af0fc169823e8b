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
//! * may release held packets at any later callback through [`CompCtx::release`],
//!   and may ask to be woken at a time ([`CompCtx::wake_at`]).
//!
//! Held packets stay counted as "in flight" by the conservation check via
//! [`Component::held`]. Components never touch the event queue themselves.

use crate::packet::{LinkId, NodeId, Packet};
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
    Dropped,
}

/// Read-only view of an output queue at the moment of an event.
#[derive(Copy, Clone, Debug)]
pub struct QueueView {
    pub link: LinkId,
    pub backlog_packets: usize,
    pub backlog_bytes: u64,
}

/// What a component may do during a callback.
pub struct CompCtx<'a> {
    pub now: Time,
    pub node: NodeId,
    pub(crate) released: &'a mut Vec<(Packet, LinkId)>,
    pub(crate) wake: &'a mut Option<Time>,
}

impl<'a> CompCtx<'a> {
    pub fn new(now: Time, node: NodeId, released: &'a mut Vec<(Packet, LinkId)>, wake: &'a mut Option<Time>) -> Self {
        CompCtx {
            now,
            node,
            released,
            wake,
        }
    }
    /// Sends a held packet on to output `link` (enqueued after the callback returns).
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
    /// A packet arriving on `in_link` (None if it originated at this node) is
    /// about to be enqueued at `out_link`.
    fn on_forward(&mut self, cx: &mut CompCtx, in_link: Option<LinkId>, out_link: LinkId, pkt: Packet) -> Verdict;
    /// A queue event at output `q.link` of this node concerning `pkt`.
    fn on_queue(&mut self, _cx: &mut CompCtx, _ev: QueueEvent, _pkt: &Packet, _q: QueueView) {}
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
}
