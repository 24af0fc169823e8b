//! The TCP receiver: cumulative ACKs, out-of-order buffering, advertised
//! window from a finite receive buffer, optional delayed ACKs, ECN echo.
//!
//! * One ACK per data segment by default (ns-2 `TCPSink`); out-of-order and
//!   duplicate segments are acknowledged immediately (RFC 5681 §4.2).
//! * Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2): ACK every second
//!   full-sized segment or when the delayed-ACK timer expires; a segment that
//!   fills a hole is acknowledged at once, and so are the first `quickack`
//!   data segments of the connection (ns-3 ACKs the first one at once,
//!   `TcpSocketBase::ProcessSynRcvd`: "Always respond to first data packet";
//!   Linux's quick-ACK mode, `tcp_incr_quickack`, up to 16).
//! * Window field: free space of the receive buffer; in-order data is consumed
//!   by the application at once, so only out-of-order bytes occupy it.
//! * ECN (RFC 3168 §6.1.3): after a CE segment, set ECE on every ACK until a
//!   segment with CWR arrives. DCTCP's receiver ([`CeEcho::Dctcp`], RFC 8257
//!   §3.2) instead echoes the CE state of the segments each ACK covers: ECE
//!   iff the last segment was CE, and when the state changes with a delayed
//!   ACK pending, that ACK is sent at once with the old state (the two-state
//!   machine of RFC 8257 Figure 1); CWR is ignored.
//! * SACK blocks (RFC 2018 §4) when enabled: the block holding the most
//!   recently received segment first, then the other blocks, highest first.
//! * Timestamp echo (RFC 7323): the ACK echoes the triggering segment's ts_val.
//! * A receiver-side feedback mechanism ([`crate::feedback`]) sees every data
//!   segment's IP fields and fills each ACK's feedback option.
//! * A SYN (the sender's `handshake`) is answered with a SYN-ACK, each time it
//!   comes (the sender's timer sends it again when either is lost).

use super::{EndpointCtx, INFINITE};
use crate::feedback::{FeedbackSpec, ReceiverFeedback};
use crate::packet::{flags, Feedback, FlowId, Kind, NodeId, Packet, MAX_SACK};
use crate::units::Time;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct RecvParams {
    /// Receive buffer in bytes ([`INFINITE`] = never limits).
    pub buffer: u64,
    /// Delayed-ACK timeout; `None` = ACK every segment.
    pub delack: Option<Time>,
    /// With delayed ACKs, the first this many data segments are acknowledged
    /// at once (ns-3: 1).
    pub quickack: u32,
    /// Size of an ACK on the wire.
    pub ack_size: u32,
    /// Number of SACK blocks to send (0 = SACK off).
    pub sack_blocks: u8,
    /// A receiver-side feedback mechanism writing into the ACKs' option.
    pub feedback: Option<Arc<dyn FeedbackSpec>>,
    /// How CE marks are echoed.
    pub ce_echo: CeEcho,
    /// Report in each ACK how long the acknowledged segment was held: its
    /// timestamp value is the echoed one plus the hold
    /// ([`crate::cc::Needs::ack_hold`], Swift's endpoint delay).
    pub ack_hold: bool,
}

/// How the receiver echoes CE marks in the ECE flag.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CeEcho {
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE segment until a CWR.
    #[default]
    Rfc3168,
    /// RFC 8257 §3.2: ECE = the CE state of the segments acknowledged.
    Dctcp,
}

impl Default for RecvParams {
    fn default() -> Self {
        RecvParams {
            buffer: INFINITE,
            delack: None,
            quickack: 0,
            ack_size: 40,
            sack_blocks: 0,
            feedback: None,
            ce_echo: CeEcho::Rfc3168,
            ack_hold: false,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct RecvStats {
    pub segments: u64,
    pub duplicate_segments: u64,
    pub ce_received: u64,
    pub acks_sent: u64,
}

pub struct TcpReceiver {
    p: RecvParams,
    flow: FlowId,
    me: NodeId,
    peer: NodeId,
    rcv_nxt: u64,
    ooo: BTreeMap<u64, u64>,
    ooo_bytes: u64,
    ce_echo: bool,
    pending_segs: u32,
    /// Data segments still to be acknowledged at once (`quickack`).
    quick_left: u32,
    delack_at: Option<Time>,
    /// When the segment whose timestamp the ACKs echo arrived (`ack_hold`).
    last_arrival: Time,
    last_ts: Time,
    /// The stamp of the last data segment received, echoed in each ACK.
    last_stamp: f32,
    feedback: Option<Box<dyn ReceiverFeedback>>,
    pub stats: RecvStats,
}

impl TcpReceiver {
    pub fn new(p: RecvParams, flow: FlowId, me: NodeId, peer: NodeId) -> Self {
        TcpReceiver {
            quick_left: p.quickack,
            feedback: p.feedback.as_ref().map(|f| f.build()),
            p,
            flow,
            me,
            peer,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            ooo_bytes: 0,
            ce_echo: false,
            pending_segs: 0,
            delack_at: None,
            last_arrival: Time::ZERO,
            last_ts: Time::ZERO,
            last_stamp: 0.0,
            stats: RecvStats::default(),
        }
    }

    /// The receiver's parameters.
    pub fn params(&self) -> &RecvParams {
        &self.p
    }
    /// Bytes delivered in order to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn next_wake(&self) -> Option<Time> {
        self.delack_at
    }
    /// The feedback mechanism's traced state, if any.
    pub fn feedback_trace(&self) -> Option<(&'static str, f64)> {
        self.feedback.as_ref().and_then(|f| f.trace())
    }
    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    /// Inserts [s, e) into the out-of-order set, merging overlaps.
    fn insert_ooo(&mut self, mut s: u64, mut e: u64) {
        if let Some((&ps, &pe)) = self.ooo.range(..=s).next_back() {
            if pe >= s {
                s = ps;
                e = e.max(pe);
                self.ooo.remove(&ps);
                self.ooo_bytes -= pe - ps;
            }
        }
        while let Some((&ns, &ne)) = self.ooo.range(s..).next() {
            if ns > e {
                break;
            }
            e = e.max(ne);
            self.ooo.remove(&ns);
            self.ooo_bytes -= ne - ns;
        }
        self.ooo.insert(s, e);
        self.ooo_bytes += e - s;
    }

    pub fn on_data(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if pkt.has(flags::SYN) {
            // A SYN (the sender's `handshake`), first or again: the SYN-ACK.
            let mut a = Packet::new(0, self.flow, self.me, self.peer, self.p.ack_size, Kind::Ack, cx.now);
            a.flags = flags::SYN | flags::ACK;
            a.set_wnd(self.advertised_window());
            a.ts_ecr = pkt.ts_val;
            cx.out.push(a);
            return;
        }
        self.stats.segments += 1;
        let ce = pkt.ecn == crate::packet::Ecn::Ce;
        self.stats.ce_received += ce as u64;
        match self.p.ce_echo {
            CeEcho::Rfc3168 => {
                if pkt.has(flags::CWR) {
                    self.ce_echo = false;
                }
                self.ce_echo |= ce;
            }
            CeEcho::Dctcp => {
                // RFC 8257 §3.2: on a change of the CE state, the pending
                // delayed ACK goes out at once with the old state.
                if ce != self.ce_echo && self.pending_segs > 0 {
                    self.send_ack(cx, None);
                }
                self.ce_echo = ce;
            }
        }
        self.last_ts = pkt.ts_val;
        if self.p.ack_hold {
            self.last_arrival = cx.now;
        }
        self.last_stamp = pkt.stamp;
        if let Some(f) = self.feedback.as_mut() {
            f.on_data(pkt);
        }
        let (s, e) = (pkt.seq, pkt.end_seq());
        let mut immediate = self.p.delack.is_none() || self.quick_left > 0;
        self.quick_left = self.quick_left.saturating_sub(1);
        if e <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            immediate = true;
        } else if s <= self.rcv_nxt {
            self.rcv_nxt = e;
            let had_holes = !self.ooo.is_empty();
            while let Some((&os, &oe)) = self.ooo.iter().next() {
                if os > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(oe);
                self.ooo.remove(&os);
                self.ooo_bytes -= oe - os;
            }
            immediate |= had_holes;
        } else {
            self.insert_ooo(s, e);
            immediate = true;
        }
        if immediate {
            self.send_ack(cx, Some((s, e)));
            return;
        }
        self.pending_segs += 1;
        if self.pending_segs >= 2 {
            self.send_ack(cx, None);
        } else if self.delack_at.is_none() {
            self.delack_at = Some(cx.now + self.p.delack.unwrap_or(Time::ZERO));
        }
    }

    pub fn on_timer(&mut self, cx: &mut EndpointCtx) {
        if let Some(t) = self.delack_at {
            if t <= cx.now && self.pending_segs > 0 {
                self.send_ack(cx, None);
            }
        }
    }

    /// Builds and emits the ACK. The feedback option and the SACK blocks are
    /// gathered first, so the packet is written once, into the output.
    fn send_ack(&mut self, cx: &mut EndpointCtx, latest: Option<(u64, u64)>) {
        self.pending_segs = 0;
        self.delack_at = None;
        let mut fb = Feedback::default();
        if let Some(f) = self.feedback.as_mut() {
            f.fill(&mut fb);
        }
        let sack = (self.p.sack_blocks > 0 && !self.ooo.is_empty()).then(|| self.sack_blocks(latest));
        let mut a = Packet::new(0, self.flow, self.me, self.peer, self.p.ack_size, Kind::Ack, cx.now);
        a.ack = self.rcv_nxt;
        a.flags = flags::ACK;
        if self.ce_echo {
            a.flags |= flags::ECE;
        }
        a.set_wnd(self.advertised_window());
        a.ts_ecr = self.last_ts;
        if self.p.ack_hold {
            a.ts_val = self.last_ts + cx.now.saturating_sub(self.last_arrival);
        }
        a.stamp = self.last_stamp;
        a.fb = fb;
        if let Some((blocks, n)) = sack {
            a.set_sack(&blocks[..n]);
        }
        self.stats.acks_sent += 1;
        cx.out.push(a);
    }

    /// The window field: the receive buffer's free space (in-order data is
    /// consumed at once, so only out-of-order bytes hold it), or [`INFINITE`].
    fn advertised_window(&self) -> u64 {
        if self.p.buffer >= INFINITE {
            INFINITE
        } else {
            self.p.buffer.saturating_sub(self.ooo_bytes)
        }
    }

    /// The SACK blocks for the next ACK (RFC 2018 §4) and their number: the
    /// block holding the segment `latest` first, then the others, highest
    /// first.
    #[inline(never)]
    fn sack_blocks(&self, latest: Option<(u64, u64)>) -> ([(u64, u64); MAX_SACK], usize) {
        let max = (self.p.sack_blocks as usize).min(MAX_SACK);
        let mut n = 0;
        let mut blocks = [(0, 0); MAX_SACK];
        let first = latest.and_then(|(s, _)| {
            self.ooo
                .range(..=s)
                .next_back()
                .filter(|&(_, &e)| e > s)
                .map(|(&bs, &be)| (bs, be))
        });
        if let Some(b) = first {
            blocks[0] = b;
            n = 1;
        }
        for (&bs, &be) in self.ooo.iter().rev() {
            if n >= max {
                break;
            }
            if Some((bs, be)) != first {
                blocks[n] = (bs, be);
                n += 1;
            }
        }
        (blocks, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;

    fn seg(seq: u64, len: u32) -> Packet {
        let mut p = Packet::new(0, FlowId(0), NodeId(0), NodeId(1), len + 40, Kind::Data, Time::ZERO);
        p.seq = seq;
        p.len = len;
        p
    }

    fn feed(r: &mut TcpReceiver, segs: &[(u64, u32)]) -> Vec<Packet> {
        let mut out = Vec::new();
        for &(s, l) in segs {
            let mut cx = EndpointCtx {
                now: Time::ZERO,
                out: &mut out,
            };
            r.on_data(&seg(s, l), &mut cx);
        }
        out
    }

    #[test]
    fn cumulative_acks_with_hole_and_fill() {
        let mut r = TcpReceiver::new(
            RecvParams {
                buffer: 10_000,
                ..Default::default()
            },
            FlowId(0),
            NodeId(1),
            NodeId(0),
        );
        let acks = feed(&mut r, &[(0, 1000), (2000, 1000), (3000, 1000), (1000, 1000)]);
        let a: Vec<u64> = acks.iter().map(|p| p.ack).collect();
        assert_eq!(a, vec![1000, 1000, 1000, 4000]);
        // window shrinks by the out-of-order bytes held
        let w: Vec<u64> = acks.iter().map(|p| p.wnd()).collect();
        assert_eq!(w, vec![10_000, 9_000, 8_000, 10_000]);
        assert_eq!(r.delivered(), 4000);
    }

    #[test]
    fn sack_blocks_rfc2018_order() {
        let p = RecvParams {
            sack_blocks: 3,
            ..Default::default()
        };
        let mut r = TcpReceiver::new(p, FlowId(0), NodeId(1), NodeId(0));
        let acks = feed(&mut r, &[(0, 100), (200, 100), (400, 100), (600, 100)]);
        let last = acks.last().unwrap();
        assert_eq!(*last.sack_blocks(), [(600, 700), (400, 500), (200, 300)]);
        assert_eq!(*acks[1].sack_blocks(), [(200, 300)]);
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let p = RecvParams {
            delack: Some(Time::from_millis(100)),
            ..Default::default()
        };
        let mut r = TcpReceiver::new(p, FlowId(0), NodeId(1), NodeId(0));
        let acks = feed(&mut r, &[(0, 100), (100, 100), (200, 100)]);
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].ack, 200);
        assert_eq!(r.next_wake(), Some(Time::from_millis(100)));
        let mut out = Vec::new();
        let mut cx = EndpointCtx {
            now: Time::from_millis(100),
            out: &mut out,
        };
        r.on_timer(&mut cx);
        assert_eq!(out[0].ack, 300);
    }

    /// `ack_hold` (Swift's endpoint delay): a segment sent at 5 µs arrives
    /// at 10 µs and waits for the delayed-ACK timer (100 µs): the ACK
    /// echoes 5 µs and carries 5 + 100 µs; the second of a pair is
    /// acknowledged on arrival, hold 0.
    #[test]
    fn ack_hold_reports_the_delayed_ack_wait() {
        let p = RecvParams {
            delack: Some(Time::from_micros(100)),
            ack_hold: true,
            ..Default::default()
        };
        let mut r = TcpReceiver::new(p, FlowId(0), NodeId(1), NodeId(0));
        let us = Time::from_micros;
        let mut out = Vec::new();
        let mut d = seg(0, 100);
        d.ts_val = us(5);
        r.on_data(
            &d,
            &mut EndpointCtx {
                now: us(10),
                out: &mut out,
            },
        );
        assert!(out.is_empty());
        r.on_timer(&mut EndpointCtx {
            now: us(110),
            out: &mut out,
        });
        assert_eq!((out[0].ts_ecr, out[0].ts_val), (us(5), us(105)));
        for (k, at) in [(1u64, 200u64), (2, 203)] {
            let mut d = seg(100 * k, 100);
            d.ts_val = us(at - 4);
            r.on_data(
                &d,
                &mut EndpointCtx {
                    now: us(at),
                    out: &mut out,
                },
            );
        }
        assert_eq!((out[1].ts_ecr, out[1].ts_val), (us(199), us(199)));
    }

    /// ns-3's first data segment acknowledged at once (`quickack = 1`): the
    /// pairs that follow start from the second segment (ACKs of 1, 3, 5
    /// segments), where without it they start from the first (2, 4).
    #[test]
    fn quickack_acknowledges_the_first_segments_at_once() {
        let segs: Vec<(u64, u32)> = (0..5).map(|i| (100 * i, 100)).collect();
        for (quickack, want) in [(0, vec![200, 400]), (1, vec![100, 300, 500]), (2, vec![100, 200, 400])] {
            let p = RecvParams {
                delack: Some(Time::from_millis(100)),
                quickack,
                ..Default::default()
            };
            let mut r = TcpReceiver::new(p, FlowId(0), NodeId(1), NodeId(0));
            let a: Vec<u64> = feed(&mut r, &segs).iter().map(|p| p.ack).collect();
            assert_eq!(a, want, "quickack = {quickack}");
        }
    }

    /// A SYN gets a SYN-ACK, every time (a lost SYN-ACK is answered by the
    /// sender's SYN again), and counts as no data.
    #[test]
    fn syn_is_answered_with_syn_ack() {
        let mut r = TcpReceiver::new(RecvParams::default(), FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        let mut syn = seg(0, 0);
        syn.flags = flags::SYN;
        for _ in 0..2 {
            let mut cx = EndpointCtx {
                now: Time::ZERO,
                out: &mut out,
            };
            r.on_data(&syn, &mut cx);
        }
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|a| a.has(flags::SYN) && a.has(flags::ACK) && a.ack == 0));
        assert_eq!((r.stats.segments, r.delivered()), (0, 0));
    }

    /// RFC 8257 §3.2 (Figure 1) with delayed ACKs: segments CE-state 0 0 1 1
    /// 1 0 with CWR on the third. ACK of 2 (ECE 0, two segments); the CE
    /// segment 3 pends; 4 completes the pair (ECE 1); 5 pends; 6 (not CE)
    /// changes the state: the pending ACK of 5 goes at once with ECE 1, then
    /// 6 pends (its timer). CWR changes nothing.
    #[test]
    fn rfc8257_dctcp_echo_with_delayed_acks() {
        let p = RecvParams {
            delack: Some(Time::from_millis(100)),
            ce_echo: CeEcho::Dctcp,
            ..Default::default()
        };
        let mut r = TcpReceiver::new(p, FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        for (i, ce) in [false, false, true, true, true, false].into_iter().enumerate() {
            let mut s = seg(i as u64 * 100, 100);
            s.ecn = if ce { Ecn::Ce } else { Ecn::Ect0 };
            if i == 2 {
                s.flags |= flags::CWR;
            }
            let mut cx = EndpointCtx {
                now: Time::ZERO,
                out: &mut out,
            };
            r.on_data(&s, &mut cx);
        }
        let got: Vec<(u64, bool)> = out.iter().map(|a| (a.ack, a.has(flags::ECE))).collect();
        assert_eq!(got, vec![(200, false), (400, true), (500, true)]);
        assert_eq!(r.next_wake(), Some(Time::from_millis(100)));
        // Without delayed ACKs each ACK carries its own segment's state.
        let mut r = TcpReceiver::new(
            RecvParams {
                ce_echo: CeEcho::Dctcp,
                ..Default::default()
            },
            FlowId(0),
            NodeId(1),
            NodeId(0),
        );
        let mut out = Vec::new();
        for (i, ce) in [true, false, true].into_iter().enumerate() {
            let mut s = seg(i as u64 * 100, 100);
            s.ecn = if ce { Ecn::Ce } else { Ecn::Ect0 };
            r.on_data(
                &s,
                &mut EndpointCtx {
                    now: Time::ZERO,
                    out: &mut out,
                },
            );
        }
        let ece: Vec<bool> = out.iter().map(|a| a.has(flags::ECE)).collect();
        assert_eq!(ece, vec![true, false, true]);
    }

    #[test]
    fn ecn_echo_until_cwr() {
        let mut r = TcpReceiver::new(RecvParams::default(), FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        let mut s = seg(0, 100);
        s.ecn = crate::packet::Ecn::Ce;
        r.on_data(
            &s,
            &mut EndpointCtx {
                now: Time::ZERO,
                out: &mut out,
            },
        );
        r.on_data(
            &seg(100, 100),
            &mut EndpointCtx {
                now: Time::ZERO,
                out: &mut out,
            },
        );
        let mut c = seg(200, 100);
        c.flags |= flags::CWR;
        r.on_data(
            &c,
            &mut EndpointCtx {
                now: Time::ZERO,
                out: &mut out,
            },
        );
        let ece: Vec<bool> = out.iter().map(|p| p.has(flags::ECE)).collect();
        assert_eq!(ece, vec![true, true, false]);
    }

    /// A receiver-side mechanism sees each data packet's IP fields and fills
    /// the ACK's feedback option (BMCC, docs/models/bmcc.md, "Receiver"): IP id 1 hashes to h =
    /// 1.0, marked ECT(1) raises f̂ from 0.15 to 1.0; a CE packet sets f̂ = u
    /// and `ce_seen`.
    #[test]
    fn feedback_mechanism_fills_each_ack() {
        use crate::feedback::bmcc;
        let p = RecvParams {
            feedback: Some(Arc::new(bmcc::Params {
                hash: bmcc::Hash::BitReverse,
                ce_flag_only: false,
            })),
            ..Default::default()
        };
        let mut r = TcpReceiver::new(p, FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        for (seq, ip_id, ecn) in [(0, 1, Ecn::Ect1), (100, 5, Ecn::Ce)] {
            let mut s = seg(seq, 100);
            s.ip_id = ip_id;
            s.ecn = ecn;
            r.on_data(
                &s,
                &mut EndpointCtx {
                    now: Time::ZERO,
                    out: &mut out,
                },
            );
        }
        assert_eq!(out[0].fb.load_factor(), Some(1.0));
        assert!(!out[0].fb.ce_seen);
        assert_eq!(out[1].fb.load, Some((1.2 * 16384.0f64).round() as u16));
        assert!(out[1].fb.ce_seen);
        assert_eq!(r.feedback_trace(), Some(("load_estimate", 1.2)));
    }
}
