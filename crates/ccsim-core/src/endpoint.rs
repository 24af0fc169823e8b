//! The transport interface: what the engine needs from the two ends of a flow.
//!
//! A flow is a [`Sender`] at its source node and a [`Receiver`] at its
//! destination. Both are plain state machines in the smoltcp manner: they never
//! read a clock or touch the event queue. The engine calls them with the current
//! time and an [`EndpointCtx`] into which they push the packets they emit; after
//! each call it asks each end for its next wakeup ([`Sender::next_wake`],
//! [`Receiver::next_wake`]) and keeps one pending event per flow for the earlier
//! of the two (lazily cancelled). Packets of the flow that reach the destination
//! node go to the receiver, those that reach the source node to the sender.
//!
//! What results need is reported through the traits too ([`SenderReport`] for the
//! flow and connection tables, [`SenderSample`] for the `flow` time series). The
//! transports themselves and their registry are in [`crate::transport`].

use crate::packet::{FlowId, NodeId, Packet};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use std::any::Any;
use std::collections::HashMap;
use std::fmt::Debug;

/// What an endpoint may do during a callback: emit packets (the engine assigns
/// uids and IP ids and routes them) and report its next wakeup through its own
/// accessor.
pub struct EndpointCtx<'a> {
    pub now: Time,
    pub out: &'a mut Vec<Packet>,
}

/// A sender's counters for the flow and connection tables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderReport {
    /// Payload bytes and data packets put on the wire, retransmissions included.
    pub bytes_sent: u64,
    pub packets_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// Congestion window in bytes (0 for transports without one).
    pub cwnd: u64,
    pub srtt: Option<Time>,
    pub min_rtt: Option<Time>,
}

/// A sender's state for the `flow` time series (transports without a window
/// report 0 where they have nothing to say; see each transport's docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderSample {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub srtt: Option<Time>,
    /// Highest sequence number sent.
    pub sent_seq: u64,
    /// Bytes sent and not yet cumulatively acknowledged.
    pub inflight: u64,
    pub in_recovery: bool,
    /// The algorithm's traced value (NaN if none).
    pub cc_state: f64,
}

/// The sending end of a flow.
pub trait Sender: Send {
    /// The flow's start time has come.
    fn start(&mut self, cx: &mut EndpointCtx);
    /// A packet of this flow reached the sending node (an ACK).
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx);
    /// An ACK that points to in-band telemetry reached the sending node:
    /// `int` is the record its data packet gathered (`None` if it is gone:
    /// [`crate::int::IntTable::read`]). Only senders that ask for
    /// telemetry (HPCC) get this call, and only in runs whose switches
    /// stamp it.
    fn on_int(&mut self, pkt: &Packet, _int: Option<&crate::int::IntStack>, cx: &mut EndpointCtx) {
        self.on_packet(pkt, cx)
    }
    /// A wakeup is due; the sender checks which of its timers expired (the
    /// engine calls this at the time of [`Sender::next_wake`] or of the
    /// receiver's, whichever is earlier).
    fn on_timer(&mut self, cx: &mut EndpointCtx);
    /// When the sender next needs [`Sender::on_timer`], if ever.
    fn next_wake(&self) -> Option<Time>;
    /// The part of [`Sender::next_wake`] that is a paced or jittered
    /// transmission. The engine wakes it in a slot of its own: a send due
    /// soon then never strands the pending wakeup of a far timer (the RTO)
    /// in the event heap, one per paced packet.
    fn next_send(&self) -> Option<Time> {
        None
    }
    /// The rest of [`Sender::next_wake`]: its timers other than
    /// [`Sender::next_send`].
    fn next_timer(&self) -> Option<Time> {
        self.next_wake()
    }
    /// When the last byte was acknowledged (finite transfers).
    fn completed(&self) -> Option<Time>;
    /// Name of the congestion control in results (`""` for none).
    fn cc_name(&self) -> &'static str;
    /// The congestion control's own counters, for `summary["cc"]` (none by default).
    fn cc_stats(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    fn report(&self) -> SenderReport;
    /// State for the `flow` time series; `None` if the transport keeps none.
    fn sample(&self) -> Option<SenderSample>;
    /// For tests and tools that need the concrete type.
    fn as_any(&self) -> &dyn Any;
}

/// The receiving end of a flow.
pub trait Receiver: Send {
    /// A packet of this flow reached the destination node.
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx);
    fn on_timer(&mut self, cx: &mut EndpointCtx);
    fn next_wake(&self) -> Option<Time>;
    /// Bytes delivered to the application (in order, for reliable transports).
    fn delivered(&self) -> u64;
    /// Data packets received with CE set.
    fn ce_received(&self) -> u64;
    fn as_any(&self) -> &dyn Any;
}

/// The ends of a finished connection whose slot waits for reuse: ignores
/// everything, holds nothing (a zero-sized box does not allocate).
pub struct Closed;

impl Sender for Closed {
    fn start(&mut self, _: &mut EndpointCtx) {}
    fn on_packet(&mut self, _: &Packet, _: &mut EndpointCtx) {}
    fn on_timer(&mut self, _: &mut EndpointCtx) {}
    fn next_wake(&self) -> Option<Time> {
        None
    }
    fn completed(&self) -> Option<Time> {
        None
    }
    fn cc_name(&self) -> &'static str {
        ""
    }
    fn report(&self) -> SenderReport {
        SenderReport::default()
    }
    fn sample(&self) -> Option<SenderSample> {
        None
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Receiver for Closed {
    fn on_packet(&mut self, _: &Packet, _: &mut EndpointCtx) {}
    fn on_timer(&mut self, _: &mut EndpointCtx) {}
    fn next_wake(&self) -> Option<Time> {
        None
    }
    fn delivered(&self) -> u64 {
        0
    }
    fn ce_received(&self) -> u64 {
        0
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Where a flow's ends live, given to [`TransportSpec::build`].
pub struct Env {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Rate of the source's first link (a paced sender's default rate).
    pub first_hop: Rate,
    /// Bytes to transfer, overriding the spec's own size (workload connections).
    pub size: Option<u64>,
    /// The flow's own random stream.
    pub rng: Rng,
    /// Switches the data crosses from `src` to `dst` (routers on the path),
    /// if the spec [`TransportSpec::wants_hops`]; 0 otherwise.
    pub hops: u32,
    /// Rate of the destination's own link out (the receiver's link rate,
    /// for a symmetric NIC: NDP's pull pacing); 0 where not known.
    pub last_hop: Rate,
    /// State that the ends of one run's flows at one host share (NDP's pull
    /// pacer: one per receiving host), keyed by the transport's kind and the
    /// node; `None` where flows are built one at a time (workloads).
    pub shared: Option<Shared>,
    /// The path's base round-trip time, if the transport asks for it
    /// ([`TransportSpec::base_rtt_sizes`]).
    pub base_rtt: Option<Time>,
}

/// One run's state shared among flows, by (transport kind, node)
/// ([`Env::shared`]): made once per run, given to every flow of the
/// `[[flows]]` tables.
pub type Shared = std::sync::Arc<std::sync::Mutex<HashMap<(&'static str, NodeId), Box<dyn Any + Send>>>>;

/// A transport as read from a scenario: builds the ends of each of its flows.
pub trait TransportSpec: Debug + Send + Sync {
    /// The `kind` it was read from (`"tcp"`, `"blt"`, ...).
    fn kind(&self) -> &'static str;
    fn build(&self, env: Env) -> (Box<dyn Sender>, Box<dyn Receiver>);
    /// Largest packet it puts on the wire, bytes (0 if not bounded).
    fn max_packet(&self) -> u64;
    /// Data packet size used to express `"bdp"` buffers in packets, if it has one.
    fn bdp_packet(&self) -> Option<u64>;
    /// True if the receiver answers (the flow needs a path back).
    fn needs_return_path(&self) -> bool;
    /// True if it transfers a finite number of bytes and reports completion
    /// (what a workload's connections need).
    fn transfers(&self) -> bool;
    /// True if its ends want `Env::hops` (else the builder leaves it 0 and
    /// spares the walk along the path).
    fn wants_hops(&self) -> bool {
        false
    }
    /// The queue `kind` every switch queue on its paths must run, if it
    /// needs one (NDP: trimming queues); the scenario refuses other paths.
    fn switch_queue(&self) -> Option<&'static str> {
        None
    }
    /// The sizes of a data packet and of its acknowledgement, bytes on the
    /// wire, if the transport needs its path's base RTT ([`Env::base_rtt`]).
    fn base_rtt_sizes(&self) -> Option<(u64, u64)> {
        None
    }
    /// True if its senders read in-band telemetry, which every switch on
    /// their paths must stamp ([`crate::int`]).
    fn needs_int(&self) -> bool {
        false
    }
}
