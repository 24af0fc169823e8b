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
//! flow and connection tables, [`SenderSample`] for the `flow` time series), so a
//! new transport is one module: its two ends, a [`TransportSpec`] that reads its
//! scenario keys and builds them, and one line in [`read`]. Transports:
//!
//! | `kind` | module | source |
//! |---|---|---|
//! | `tcp` | [`crate::tcp`] (adapters in [`tcp`]) | RFC 5681, 6582, 6675, 6298, 3168 |
//! | `cbr`, `poisson` | [`datagram`] | baseline.md §9 |
//! | `blt` | [`blt`] | Kim & Farber 1994; blt.md §2–3 |
//! | `bully-tyrant` | [`bully_tyrant`] | Kim & Farber 1994 §5; blt.md §5 |

pub mod blt;
pub mod bully_tyrant;
pub mod datagram;
pub mod tcp;

use crate::cfg::{show, Res, ScenarioError, Tab};
use crate::packet::{FlowId, NodeId, Packet};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

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
    /// A wakeup is due; the sender checks which of its timers expired (the
    /// engine calls this at the time of [`Sender::next_wake`] or of the
    /// receiver's, whichever is earlier).
    fn on_timer(&mut self, cx: &mut EndpointCtx);
    /// When the sender next needs [`Sender::on_timer`], if ever.
    fn next_wake(&self) -> Option<Time>;
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
}

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
}

/// The values of `kind` in a flow or a workload's `transport` table.
pub const KINDS: &[&str] = &["tcp", "cbr", "poisson", "blt", "bully-tyrant"];

/// What a flow table's keys are read against.
pub struct ReadCtx {
    /// The run's duration (default stop of datagram sources).
    pub duration: Time,
    /// Reading a workload's `transport` table: the size of each transfer comes
    /// from the workload, not from a `size` key.
    pub in_workload: bool,
}

/// Reads the keys of transport `kind` from `t` (a `[[flows]]` table or a
/// workload's `transport` table).
pub fn read(kind: &str, t: &mut Tab, cx: &ReadCtx) -> Res<Arc<dyn TransportSpec>> {
    let spec: Arc<dyn TransportSpec> = match kind {
        "tcp" => return Ok(Arc::new(tcp::TcpSpec::read(t)?)),
        "cbr" | "poisson" => Arc::new(datagram::DatagramSpec::read(kind, t, cx)?),
        "blt" => Arc::new(blt::BltSpec::read(t, false, cx.in_workload)?),
        "bully-tyrant" => Arc::new(bully_tyrant::read(t, cx.in_workload)?),
        other => unreachable!("kind {other} was validated against KINDS"),
    };
    refuse_tcp_keys(kind, t)?;
    Ok(spec)
}

/// A TCP key on a transport that cannot use it is an error naming the key and
/// what that transport accepts (rather than the generic unknown-key error).
fn refuse_tcp_keys(kind: &str, t: &Tab) -> Res<()> {
    for key in t.unread() {
        if crate::tcp::params::KEYS.contains(&key.as_str()) {
            let what = match key.as_str() {
                "sack" | "sack_blocks" => "SACK is a TCP option",
                "cc" => "congestion control is TCP's (a blt or bully-tyrant sender has none)",
                _ => "it is a TCP key",
            };
            return Err(ScenarioError {
                path: t.key_path(&key),
                value: t.get(&key).map(show).unwrap_or_default(),
                expected: format!(
                    "no `{key}` on a {kind:?} flow: {what} (kind = \"tcp\"); keys accepted here: {}",
                    t.known().join(", ")
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_kind(kind: &str, v: serde_json::Value) -> Res<Arc<dyn TransportSpec>> {
        let mut t = Tab::new("flows[0]".into(), &v)?;
        let cx = ReadCtx {
            duration: Time::from_secs(10),
            in_workload: false,
        };
        let s = read(kind, &mut t, &cx)?;
        t.finish()?;
        Ok(s)
    }

    #[test]
    fn every_kind_reads_and_builds_its_own_ends() {
        let cases = [
            ("tcp", json!({}), true),
            ("cbr", json!({"rate": "1Mbps"}), false),
            ("poisson", json!({"rate": "1Mbps"}), false),
            ("blt", json!({"size": "10KB"}), true),
            ("bully-tyrant", json!({"size": "10KB"}), true),
        ];
        assert_eq!(cases.len(), KINDS.len());
        for (kind, v, transfers) in cases {
            let s = read_kind(kind, v).unwrap();
            assert_eq!(
                (s.kind(), s.transfers(), s.needs_return_path()),
                (kind, transfers, transfers)
            );
            let env = Env {
                flow: FlowId(0),
                src: NodeId(0),
                dst: NodeId(1),
                first_hop: Rate(8_000_000),
                size: Some(5000),
                rng: Rng::new(1, 1),
            };
            let (mut snd, rcv) = s.build(env);
            let mut out = Vec::new();
            snd.start(&mut EndpointCtx {
                now: Time::ZERO,
                out: &mut out,
            });
            assert!(!out.is_empty(), "{kind} sends at its start");
            assert!(out.iter().all(|p| (p.src, p.dst) == (NodeId(0), NodeId(1))));
            assert_eq!(rcv.delivered(), 0);
        }
    }

    #[test]
    fn tcp_keys_on_other_transports_are_refused_by_name() {
        let e = read_kind("blt", json!({"size": "10KB", "sack": true})).unwrap_err();
        assert_eq!(e.path, "flows[0].sack");
        assert!(e.expected.contains("SACK is a TCP option"), "{e}");
        assert!(e.expected.contains("gamma"), "lists what blt accepts: {e}");
        let e = read_kind("cbr", json!({"rate": "1Mbps", "cc": "reno"})).unwrap_err();
        assert_eq!(e.path, "flows[0].cc");
        let e = read_kind("bully-tyrant", json!({"size": "10KB", "colour": 1})).unwrap_err();
        assert!(e.expected.starts_with("unknown key"), "{e}");
    }

    #[test]
    fn a_cbr_source_wakes_for_each_departure_and_stops() {
        // 1000-byte packets at 1 Mbps: one every 8 ms, none at or after 20 ms.
        let s = read_kind("cbr", json!({"rate": "1Mbps", "stop": "20ms"})).unwrap();
        let env = Env {
            flow: FlowId(3),
            src: NodeId(0),
            dst: NodeId(1),
            first_hop: Rate(0),
            size: None,
            rng: Rng::new(1, 1),
        };
        let (mut snd, _) = s.build(env);
        let mut out = Vec::new();
        snd.start(&mut EndpointCtx {
            now: Time::ZERO,
            out: &mut out,
        });
        while let Some(t) = snd.next_wake() {
            snd.on_timer(&mut EndpointCtx { now: t, out: &mut out });
        }
        let at: Vec<u64> = out.iter().map(|p| p.ts_val.0 / 1_000_000).collect();
        assert_eq!(at, vec![0, 8, 16]);
        assert_eq!(snd.report().bytes_sent, 3000);
    }
}
