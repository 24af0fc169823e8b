//! Transports: the registry of a flow's `kind`s and the transports that are not
//! TCP. The interface they implement is [`crate::endpoint`]; a new transport is
//! one module (its two ends and a [`TransportSpec`] that reads its keys and
//! builds them) and one line in [`READERS`]. Transports:
//!
//! | `kind` | module | source |
//! |---|---|---|
//! | `tcp` | [`crate::tcp`] (adapters in [`tcp`]) | RFC 5681, 6582, 6675, 6298, 3168 |
//! | `cbr`, `poisson` | [`datagram`] | docs/user-guide.md, "Flows" |
//! | `blt` | [`blt`] | Kim & Farber 1994, §3.3; docs/models/blt.md |
//! | `bully-tyrant` | [`bully_tyrant`] | Kim & Farber 1994, §4.2.6; docs/models/blt.md |
//! | `roce` (`rate_control = "dcqcn"`) | [`roce`], [`dcqcn`] | RoCEv2 (IBTA Annex A17); Zhu et al., SIGCOMM 2015; docs/models/dcqcn.md |
//! | `ndp` | [`ndp`] (its switch queue: [`crate::qdisc::ndp`]) | Handley et al., SIGCOMM 2017, §3; docs/models/ndp.md |

pub mod blt;
pub mod bully_tyrant;
pub mod datagram;
pub mod dcqcn;
pub mod hpcc;
pub mod ndp;
pub mod roce;
pub mod tcp;
pub mod timely;

use crate::cfg::{show, Res, ScenarioError, Tab};
pub use crate::endpoint::{Closed, EndpointCtx, Env, Receiver, Sender, SenderReport, SenderSample, TransportSpec};
use crate::units::Time;
use std::sync::Arc;

/// What a flow table's keys are read against.
pub struct ReadCtx {
    /// The run's duration (default stop of datagram sources).
    pub duration: Time,
    /// Reading a workload's `transport` table: the size of each transfer comes
    /// from the workload, not from a `size` key.
    pub in_workload: bool,
}

type Reader = fn(&str, &mut Tab, &ReadCtx) -> Res<Arc<dyn TransportSpec>>;

/// The values of `kind` in a flow or a workload's `transport` table, each with
/// the reader of its keys.
pub const READERS: &[(&str, Reader)] = &[
    ("tcp", |_, t, cx| Ok(Arc::new(tcp::TcpSpec::read(t, cx.in_workload)?))),
    ("cbr", |k, t, cx| Ok(Arc::new(datagram::DatagramSpec::read(k, t, cx)?))),
    ("poisson", |k, t, cx| {
        Ok(Arc::new(datagram::DatagramSpec::read(k, t, cx)?))
    }),
    ("blt", |_, t, cx| {
        Ok(Arc::new(blt::BltSpec::read(t, false, cx.in_workload)?))
    }),
    ("bully-tyrant", |_, t, cx| {
        Ok(Arc::new(bully_tyrant::read(t, cx.in_workload)?))
    }),
    ("roce", |_, t, cx| Ok(Arc::new(roce::RoceSpec::read(t, cx)?))),
    ("ndp", |_, t, cx| Ok(Arc::new(ndp::NdpSpec::read(t, cx)?))),
];

/// Reads `kind` (default `"tcp"`) and that transport's keys from `t` (a
/// `[[flows]]` table or a workload's `transport` table).
pub fn read(t: &mut Tab, cx: &ReadCtx) -> Res<Arc<dyn TransportSpec>> {
    let (kind, reader) = t.pick("kind", Some("tcp"), READERS)?;
    let spec = reader(kind, t, cx)?;
    if kind != "tcp" {
        refuse_tcp_keys(kind, t)?;
    }
    Ok(spec)
}

/// A TCP key on a transport that cannot use it is an error naming the key and
/// what that transport accepts (rather than the generic unknown-key error).
fn refuse_tcp_keys(kind: &str, t: &Tab) -> Res<()> {
    for key in t.unread() {
        if crate::tcp::params::KEYS.contains(&key.as_str()) {
            let what = match key.as_str() {
                "sack" | "sack_blocks" => "SACK is a TCP option",
                "cc" if kind == "roce" => "a RoCE NIC's rate controller is `rate_control` (dcqcn)",
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
    use crate::packet::{FlowId, NodeId};
    use crate::rng::Rng;
    use crate::units::Rate;
    use serde_json::json;

    fn read_kind(kind: &str, mut v: serde_json::Value) -> Res<Arc<dyn TransportSpec>> {
        v["kind"] = json!(kind);
        let mut t = Tab::new("flows[0]".into(), &v)?;
        let cx = ReadCtx {
            duration: Time::from_secs(10),
            in_workload: false,
        };
        let s = read(&mut t, &cx)?;
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
            ("roce", json!({"size": "10KB"}), true),
            ("ndp", json!({"size": "10KB"}), true),
        ];
        assert_eq!(cases.len(), READERS.len());
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
                hops: 0,
                last_hop: Rate(8_000_000),
                shared: None,
                base_rtt: None,
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
            hops: 0,
            last_hop: Rate(0),
            shared: None,
            base_rtt: None,
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
