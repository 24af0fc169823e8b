//! The BLT (bandwidth–latency tradeoff) sender, and the burst machine it shares
//! with Bully-Tyrant ([`super::bully_tyrant`]).
//!
//! Source: H. Kim and D. J. Farber, "Congestion control by bandwidth-delay
//! tradeoff in very high-speed networks: the case of window-based control",
//! Univ. of Pennsylvania MS-CIS-94-55, 1994, §3.3 (the sender), with §4
//! footnote 5 ("1 duplicate ACK is a non-ambiguous sign that a packet has been
//! dropped"). Model page: docs/models/blt.md; its section "Modelling decisions"
//! holds the choices labelled L1–L15 below.
//!
//! * **Stream structure (paper §3.3.1, Figs. 1–2).** A burst starting at packet
//!   `base` labels packet `s` with priority `floor(log2(s − base + 1))` (γ = 2;
//!   for a growth factor γ, the smallest k with Σ_{j≤k} γ^j > s − base): one
//!   packet of priority 0, two of 1, four of 2, ... Larger numbers are less
//!   important; a priority-discard switch (`qdisc/prio.rs`) keeps the largest
//!   window it can.
//! * **Transmission (paper §3.3.3).** At its start the sender sends the whole
//!   file as one burst, in sequence order, paced at its access rate (`rate`,
//!   default the rate of its first link), with no window of any kind.
//! * **Reset on loss (paper §3.3.3; L5).** On a loss signal for packet n the
//!   burst in progress is abandoned and a new one starts at n (`base = n`),
//!   re-sending everything from n to the end of the file. Packets cumulatively
//!   acknowledged during a burst are skipped: when the cumulative ACK passes
//!   the transmission pointer, the pointer jumps to it and the remaining
//!   packets keep their offsets from the burst's base (L4).
//! * **Loss signal (L3).** Every data packet carries its send time and every
//!   ACK echoes the time of the packet that triggered it. A duplicate ACK for
//!   `a` is a loss signal for packet a iff its echoed time is later than the
//!   most recent transmission of a: a packet sent after a's latest copy has
//!   arrived, so under FIFO delivery that copy was lost. Stale duplicates (from
//!   the abandoned burst, or re-sent copies of data the receiver holds) never
//!   reset. A single such duplicate ACK suffices (L7, after the paper's
//!   footnote 5).
//! * **Timeout (L3).** An RFC 6298 timer on every ACK's timestamp sample (§5.1
//!   start when sending with the timer off, §5.3 restart on new data
//!   acknowledged, §5.5 back off on expiry): on expiry the sender resets at the
//!   first unacknowledged packet.
//! * **Receiver (paper §3.3.3 footnote 4, §4.1.1).** The ACK scheme is TCP's:
//!   the receiver is [`super::tcp::plain_receiver`] (infinite buffer,
//!   out-of-order data kept, one immediate cumulative ACK per data packet
//!   echoing its timestamp).
//!
//! Deviations and choices: byte sequence numbers with a fixed payload per
//! packet (`mss`; the last packet of a file may be shorter), so "packet s" is
//! the s-th segment. The sender paces at its rate instead of handing the whole
//! burst to its interface at once, which is equivalent on a link of that rate
//! (each packet leaves when the previous one has been serialized) and lets a
//! reset abandon the rest of a burst; a new burst starts when the interface is
//! free. The interactive-data extension of §3.3.3 (new user data as a new
//! priority-0 burst) is not modelled: a flow is one file. The additive variant
//! of the window growth (§3.3.1) is not offered. Results: the flow table's
//! `fast_retransmits` counts resets on a duplicate ACK, `timeouts` resets on
//! expiry; `cwnd_bytes` is 0 (there is no window); the `flow` time series'
//! `cc_state` is the priority of the next packet to send (NaN between bursts).

use super::tcp::plain_receiver;
use super::{EndpointCtx, Env, Receiver, Sender, SenderReport, SenderSample, TransportSpec};
use crate::cfg::{time_str, Res, Tab};
use crate::packet::{FlowId, Kind, NodeId, Packet};
use crate::tcp::{Estimator, RttEstimator, RttParams, INFINITE};
use crate::units::{Rate, Time};
use serde_json::Value;
use std::any::Any;
use std::collections::VecDeque;

/// How a burst labels its packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Labels {
    /// BLT: windows growing by the factor `gamma` (paper §3.3.1).
    Blt { gamma: u32 },
    /// Bully-Tyrant: every packet priority 0 (paper §4.2.6).
    Flat,
}

impl Labels {
    /// Priority of the packet `k` places after the burst's base.
    pub fn priority(self, k: u64) -> u8 {
        match self {
            Labels::Flat => 0,
            // floor(log2(k + 1)).
            Labels::Blt { gamma: 2 } => (63 - (k + 1).leading_zeros()) as u8,
            Labels::Blt { gamma } => {
                // Smallest j with 1 + γ + … + γ^j > k.
                let (mut j, mut sum, mut pow) = (0u8, 1u64, 1u64);
                while sum <= k {
                    pow = pow.saturating_mul(gamma as u64);
                    sum = sum.saturating_add(pow);
                    j += 1;
                }
                j
            }
        }
    }
}

/// A BLT or Bully-Tyrant flow's parameters.
#[derive(Clone, Debug)]
pub struct BurstParams {
    /// Payload bytes per packet.
    pub mss: u32,
    /// Header bytes added on the wire to each packet.
    pub header: u32,
    /// Size of an ACK on the wire.
    pub ack_size: u32,
    /// Bytes to transfer (finite).
    pub size: u64,
    /// Pacing rate; `None`: the rate of the source's first link.
    pub rate: Option<Rate>,
    pub labels: Labels,
    /// The retransmission timer (RFC 6298 estimator, exact).
    pub rtt: RttParams,
}

impl Default for BurstParams {
    fn default() -> Self {
        BurstParams {
            mss: 1460,
            header: 40,
            ack_size: 40,
            size: 100_000,
            rate: None,
            labels: Labels::Blt { gamma: 2 },
            rtt: RttParams::default(),
        }
    }
}

/// The keys of a `blt` or `bully-tyrant` flow.
#[derive(Clone, Debug)]
pub struct BltSpec {
    pub p: BurstParams,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "size",
        "BLT / Bully-Tyrant: bytes of the file (finite; the sender sends it as one burst)",
    ),
    (
        "rate",
        "BLT / Bully-Tyrant pacing rate: \"access\" (the rate of the source's first link) or a rate",
    ),
    (
        "gamma",
        "BLT: growth factor of the priority classes: 1, γ, γ², … packets",
    ),
];

impl BltSpec {
    /// Reads `mss`, `header`, `ack_size`, `size` (unless `in_workload`: the
    /// workload draws it), `rate`, `init_rto`, `min_rto`, `max_rto`, and for BLT
    /// `gamma`.
    pub fn read(t: &mut Tab, flat: bool, in_workload: bool) -> Res<BltSpec> {
        t.docs(DOCS);
        let mss = t.uint("mss", Some(1460), 1, 65_495)? as u32;
        let header = t.uint("header", Some(40), 0, 1000)? as u32;
        let ack_size = t.uint("ack_size", Some(40), 1, 1500)? as u32;
        let size = if in_workload {
            INFINITE
        } else {
            let s = t.size_or_inf("size", "inf")?;
            match s {
                Some(b) if b > 0 => b,
                _ => {
                    let v = t.get("size").cloned().unwrap_or(Value::String("inf".into()));
                    return Err(t.error(
                        "size",
                        &v,
                        "a positive, finite size such as \"100KB\" (the sender sends the whole file at once)",
                    ));
                }
            }
        };
        let rate = match t.get("rate") {
            None => {
                t.raw("rate");
                t.put("rate", Value::String("access".into()));
                None
            }
            Some(Value::String(s)) if s == "access" => {
                t.raw("rate");
                t.put("rate", Value::String("access".into()));
                None
            }
            Some(_) => Some(t.rate("rate", None)?),
        };
        let labels = if flat {
            Labels::Flat
        } else {
            Labels::Blt {
                gamma: t.uint("gamma", Some(2), 2, 16)? as u32,
            }
        };
        let rtt = RttParams {
            init_rto: t.time("init_rto", Some("1s"))?,
            min_rto: t.time("min_rto", Some("200ms"))?,
            max_rto: t.time("max_rto", Some("60s"))?,
            granularity: Time::ZERO,
            tick: Time::ZERO,
            estimator: Estimator::Rfc6298,
        };
        if rtt.max_rto < rtt.min_rto || rtt.init_rto == Time::ZERO {
            return Err(t.error(
                "max_rto",
                &Value::String(time_str(rtt.max_rto)),
                "max_rto ≥ min_rto and a positive init_rto",
            ));
        }
        Ok(BltSpec {
            p: BurstParams {
                mss,
                header,
                ack_size,
                size,
                rate,
                labels,
                rtt,
            },
        })
    }
}

impl TransportSpec for BltSpec {
    fn kind(&self) -> &'static str {
        match self.p.labels {
            Labels::Blt { .. } => "blt",
            Labels::Flat => "bully-tyrant",
        }
    }
    fn build(&self, env: Env) -> (Box<dyn Sender>, Box<dyn Receiver>) {
        let mut p = self.p.clone();
        if let Some(size) = env.size {
            p.size = size;
        }
        let r = plain_receiver(p.ack_size, &env);
        let rate = p.rate.unwrap_or(env.first_hop);
        (
            Box::new(BurstSender::new(p, rate, env.flow, env.src, env.dst)),
            Box::new(r),
        )
    }
    fn max_packet(&self) -> u64 {
        (self.p.mss + self.p.header) as u64
    }
    fn bdp_packet(&self) -> Option<u64> {
        Some(self.max_packet())
    }
    fn needs_return_path(&self) -> bool {
        true
    }
    fn transfers(&self) -> bool {
        true
    }
}

/// Counters of a burst sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BurstStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets sent that had been sent before.
    pub retransmits: u64,
    /// Bursts restarted on a duplicate ACK / on a timeout.
    pub dupack_resets: u64,
    pub timeouts: u64,
}

/// The sender of the paper's §3.3 (BLT) and §4.2.6 (Bully-Tyrant): one burst
/// of the whole remaining file, restarted from the lost packet on every loss
/// signal.
pub struct BurstSender {
    p: BurstParams,
    rate: Rate,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    snd_una: u64,
    /// Next byte the burst sends.
    next: u64,
    snd_max: u64,
    /// First packet (segment index) of the current burst.
    base: u64,
    /// Time of the next paced transmission, while a burst is under way.
    send_at: Option<Time>,
    /// When the last packet sent has left at the pacing rate.
    free_at: Time,
    /// Most recent transmission time of each packet from `snd_una`'s on.
    last_tx: VecDeque<Time>,
    rtt: RttEstimator,
    rto_at: Option<Time>,
    started: bool,
    completed: Option<Time>,
    pub stats: BurstStats,
}

impl BurstSender {
    pub fn new(p: BurstParams, rate: Rate, flow: FlowId, src: NodeId, dst: NodeId) -> BurstSender {
        BurstSender {
            rtt: RttEstimator::new(p.rtt.clone(), 0.0),
            p,
            rate,
            flow,
            src,
            dst,
            snd_una: 0,
            next: 0,
            snd_max: 0,
            base: 0,
            send_at: None,
            free_at: Time::ZERO,
            last_tx: VecDeque::new(),
            rto_at: None,
            started: false,
            completed: None,
            stats: BurstStats::default(),
        }
    }

    fn mss(&self) -> u64 {
        self.p.mss as u64
    }
    fn seg(&self, seq: u64) -> u64 {
        seq / self.mss()
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// First packet of the current burst.
    pub fn base(&self) -> u64 {
        self.base
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// Priority of the packet the burst sends next, if a burst is under way.
    pub fn next_priority(&self) -> Option<u8> {
        self.send_at.map(|_| {
            self.p
                .labels
                .priority(self.seg(self.next.max(self.snd_una)) - self.base)
        })
    }

    /// Most recent transmission of the packet starting at `seq`, if it was sent.
    fn last_sent(&self, seq: u64) -> Option<Time> {
        let k = self.seg(seq).checked_sub(self.seg(self.snd_una))?;
        self.last_tx.get(k as usize).copied()
    }

    /// Sends the packet at the transmission pointer (skipping what is
    /// acknowledged) and schedules the next one of the burst.
    fn send_one(&mut self, cx: &mut EndpointCtx) {
        self.send_at = None;
        self.next = self.next.max(self.snd_una);
        if self.next >= self.p.size {
            return;
        }
        let seq = self.next;
        let s = self.seg(seq);
        let len = (self.p.size - seq).min(self.mss()) as u32;
        let mut p = Packet::segment(self.flow, self.src, self.dst, seq, len, self.p.header, cx.now);
        p.priority = self.p.labels.priority(s - self.base);
        p.retx = seq < self.snd_max;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        let k = (s - self.seg(self.snd_una)) as usize;
        if k < self.last_tx.len() {
            self.last_tx[k] = cx.now;
        } else {
            debug_assert_eq!(k, self.last_tx.len(), "packets are first sent in order");
            self.last_tx.push_back(cx.now);
        }
        if p.retx {
            self.stats.retransmits += 1;
        }
        cx.out.push(p);
        self.next = seq + len as u64;
        self.snd_max = self.snd_max.max(self.next);
        self.free_at = cx.now + self.rate.tx_time((len + self.p.header) as u64);
        if self.next < self.p.size {
            self.send_at = Some(self.free_at);
        }
        // RFC 6298 §5.1: start the timer when sending data if it is not running.
        if self.rto_at.is_none() {
            self.rto_at = Some(cx.now + self.rtt.rto());
        }
    }

    /// Paper §3.3.3: abandon the burst under way, start a new one at `seq` as
    /// soon as the interface is free.
    /// The new copy of `seq` is committed now: only it leaves before it, so a
    /// duplicate ACK echoing an earlier time is stale (the loss rule L3 of
    /// docs/models/blt.md stays exact while the copy waits for the interface).
    fn reset(&mut self, seq: u64, cx: &mut EndpointCtx) {
        self.base = self.seg(seq);
        self.next = seq;
        if let Some(t) = self.last_tx.front_mut().filter(|_| seq == self.snd_una) {
            *t = cx.now;
        }
        if self.free_at <= cx.now {
            self.send_one(cx);
        } else {
            self.send_at = Some(self.free_at);
        }
    }

    fn on_rto(&mut self, cx: &mut EndpointCtx) {
        self.rto_at = None;
        if self.snd_una >= self.snd_max {
            return; // nothing outstanding (RFC 6298 §5.2)
        }
        self.stats.timeouts += 1;
        // RFC 6298 §5.5–5.6: back off, restart the timer with the retransmission.
        self.rtt.back_off();
        self.rto_at = Some(cx.now + self.rtt.rto());
        let una = self.snd_una;
        self.reset(una, cx);
    }
}

impl Sender for BurstSender {
    fn start(&mut self, cx: &mut EndpointCtx) {
        self.started = true;
        self.reset(0, cx);
    }

    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if !self.started || self.completed.is_some() || pkt.kind != Kind::Ack {
            return;
        }
        // Timestamps give a sample on every ACK (L3, RFC 7323 §4).
        self.rtt.sample(pkt.ts_ecr, cx.now);
        let a = pkt.ack.min(self.snd_max);
        if a > self.snd_una {
            let acked = (self.seg(a) - self.seg(self.snd_una)) as usize;
            self.last_tx.drain(..acked.min(self.last_tx.len()));
            self.snd_una = a;
            if a >= self.p.size {
                self.completed = Some(cx.now);
                self.send_at = None;
                self.rto_at = None;
                return;
            }
            // RFC 6298 §5.3: restart the timer on new data acknowledged.
            self.rto_at = Some(cx.now + self.rtt.rto());
            // L4: skip what is acknowledged (send_one moves the pointer).
        } else if a == self.snd_una && self.last_sent(a).is_some_and(|t| pkt.ts_ecr > t) {
            // L3: a packet sent after a's latest copy got there first.
            self.stats.dupack_resets += 1;
            self.reset(a, cx);
        }
    }

    fn on_timer(&mut self, cx: &mut EndpointCtx) {
        if self.completed.is_some() {
            return;
        }
        if self.rto_at.is_some_and(|t| t <= cx.now) {
            self.on_rto(cx);
        }
        if self.send_at.is_some_and(|t| t <= cx.now) {
            self.send_one(cx);
        }
    }

    fn next_wake(&self) -> Option<Time> {
        match (self.send_at, self.rto_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn completed(&self) -> Option<Time> {
        self.completed
    }
    fn cc_name(&self) -> &'static str {
        ""
    }
    fn report(&self) -> SenderReport {
        SenderReport {
            bytes_sent: self.stats.bytes_sent,
            packets_sent: self.stats.packets_sent,
            retransmits: self.stats.retransmits,
            timeouts: self.stats.timeouts,
            fast_retransmits: self.stats.dupack_resets,
            ecn_reductions: 0,
            cwnd: 0,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
        }
    }
    fn sample(&self) -> Option<SenderSample> {
        Some(SenderSample {
            cwnd: 0,
            ssthresh: 0,
            srtt: self.rtt.srtt(),
            sent_seq: self.snd_max,
            inflight: self.snd_max - self.snd_una,
            in_recovery: false,
            cc_state: self.next_priority().map_or(f64::NAN, |p| p as f64),
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub const MSS: u64 = 1000;

    /// A sender of `packets` packets of 1000 B (no header) paced at 8 Mbps:
    /// one packet per millisecond.
    pub struct Harness {
        pub s: BurstSender,
        pub now: Time,
        pub sent: Vec<Packet>,
    }

    impl Harness {
        pub fn new(packets: u64, labels: Labels) -> Harness {
            let p = BurstParams {
                mss: MSS as u32,
                header: 0,
                size: packets * MSS,
                labels,
                ..BurstParams::default()
            };
            let mut s = BurstSender::new(p, Rate(8_000_000), FlowId(0), NodeId(0), NodeId(1));
            let mut sent = Vec::new();
            s.start(&mut EndpointCtx {
                now: Time::ZERO,
                out: &mut sent,
            });
            Harness {
                s,
                now: Time::ZERO,
                sent,
            }
        }
        /// Runs the sender's timers up to `ms`; returns what it sent meanwhile.
        pub fn run_to(&mut self, ms: f64) -> Vec<Packet> {
            self.run_until(Time((ms * 1e6).round() as u64))
        }
        pub fn run_until(&mut self, until: Time) -> Vec<Packet> {
            let mut out = Vec::new();
            while let Some(t) = self.s.next_wake().filter(|&t| t <= until) {
                self.now = t;
                self.s.on_timer(&mut EndpointCtx { now: t, out: &mut out });
            }
            self.now = until;
            self.sent.extend(out.iter().cloned());
            out
        }
        /// An ACK of `ack` packets echoing the send time of packet `echo`'s latest copy.
        pub fn ack(&mut self, ack: u64, echo: u64) -> Vec<Packet> {
            let ts = self
                .sent
                .iter()
                .rev()
                .find(|p| p.seq == echo * MSS)
                .expect("echoed packet was sent")
                .ts_val;
            self.ack_ts(ack, ts)
        }
        pub fn ack_ts(&mut self, ack: u64, ts: Time) -> Vec<Packet> {
            let mut a = Packet::new(0, FlowId(0), NodeId(1), NodeId(0), 40, Kind::Ack, self.now);
            a.ack = ack * MSS;
            a.ts_ecr = ts;
            let mut out = Vec::new();
            self.s.on_packet(
                &a,
                &mut EndpointCtx {
                    now: self.now,
                    out: &mut out,
                },
            );
            self.sent.extend(out.iter().cloned());
            out
        }
    }

    /// (packet index, priority) of each packet.
    pub fn labels(p: &[Packet]) -> Vec<(u64, u32)> {
        p.iter().map(|p| (p.seq / MSS, p.priority as u32)).collect()
    }

    #[test]
    fn blt_2_1_priorities_of_a_200_packet_file() {
        // Paper §3.3.1 (docs/models/blt.md): F = 200 packets ⇒ priorities 0…7 with
        // 1, 2, 4, …, 64, 73 packets.
        let mut h = Harness::new(200, Labels::Blt { gamma: 2 });
        h.run_to(500.0);
        assert_eq!(h.sent.len(), 200, "the whole file in one burst");
        let mut count = [0; 8];
        for p in &h.sent {
            count[p.priority as usize] += 1;
        }
        assert_eq!(count, [1, 2, 4, 8, 16, 32, 64, 73]);
        // In sequence order, one per packet time (8 Mbps, 1000 B: 1 ms).
        for (i, p) in h.sent.iter().enumerate() {
            assert_eq!((p.seq, p.ts_val), (i as u64 * MSS, Time::from_millis(i as u64)));
        }
        assert_eq!(
            labels(&h.sent[..7]),
            vec![(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 2), (6, 2)]
        );
        assert_eq!(h.s.next_wake(), h.s.rto_at, "only the timer is left");
    }

    #[test]
    fn blt_2_1_growth_factor_three() {
        // 1 + 3 + 9: packets 0 | 1..3 | 4..12 | 13..
        let l = Labels::Blt { gamma: 3 };
        let got: Vec<u8> = [0, 1, 3, 4, 12, 13, 39, 40].iter().map(|&k| l.priority(k)).collect();
        assert_eq!(got, vec![0, 1, 1, 2, 2, 3, 3, 4]);
        assert_eq!(Labels::Blt { gamma: 2 }.priority(u64::MAX - 1), 63);
    }

    #[test]
    fn blt_2_4_duplicate_ack_with_later_echo_resets_at_the_hole() {
        let mut h = Harness::new(20, Labels::Blt { gamma: 2 });
        h.run_to(10.5); // packets 0..=10 sent at 0..=10 ms
        h.ack(3, 2); // 0..2 arrived
        assert!(
            h.ack(3, 2).is_empty(),
            "echo of packet 2 (sent before 3): not a loss signal"
        );
        assert_eq!(h.s.stats.dupack_resets, 0);
        // Packet 3 was lost: packet 4's arrival echoes 4 ms > 3 ms.
        assert!(
            h.ack(3, 4).is_empty(),
            "the interface is busy with packet 10 until 11 ms"
        );
        assert_eq!((h.s.base(), h.s.stats.dupack_resets), (3, 1));
        // The new burst starts when the interface is free, re-based: 3 → 0; 4,5 → 1; 6.. → 2.
        let out = h.run_to(15.0);
        assert_eq!(labels(&out), vec![(3, 0), (4, 1), (5, 1), (6, 2), (7, 2)]);
        assert_eq!(out[0].ts_val, Time::from_millis(11));
        assert!(out.iter().all(|p| p.retx));
    }

    #[test]
    fn blt_2_4_stale_duplicates_do_not_reset_again() {
        let mut h = Harness::new(20, Labels::Blt { gamma: 2 });
        h.run_to(10.5);
        h.ack(3, 2);
        h.ack(3, 4); // loss of 3 signalled at 10.5 ms; its new copy leaves at 11 ms
                     // Duplicates triggered by packets 5..10 of the abandoned burst were sent
                     // before the new copy of 3: no new reset, before or after it leaves.
        for echo in 5..=7 {
            assert!(h.ack(3, echo).is_empty(), "stale duplicate echoing {echo}");
        }
        h.run_to(12.0); // 3 (11 ms), 4 (12 ms)
        for echo in 8..=10 {
            assert!(h.ack(3, echo).is_empty(), "stale duplicate echoing {echo}");
        }
        assert_eq!((h.s.stats.dupack_resets, h.s.base()), (1, 3));
        // The new copy of 3 is lost too: the copy of 4 sent after it arrives.
        h.ack(3, 4);
        assert_eq!(h.s.stats.dupack_resets, 2);
        assert_eq!(labels(&h.run_to(13.0)), vec![(3, 0)]);
    }

    #[test]
    fn rfc6298_timeout_resets_at_snd_una_and_backs_off() {
        let mut h = Harness::new(5, Labels::Blt { gamma: 2 });
        h.run_to(4.5);
        assert_eq!(h.sent.len(), 5);
        h.ack(2, 1);
        let rto = h.s.rtt().rto();
        let fire = h.s.next_wake().unwrap();
        assert_eq!(fire, h.now + rto, "RFC 6298 §5.3: restarted by the new ACK");
        let out = h.run_until(fire);
        assert_eq!(labels(&out), vec![(2, 0)], "reset at snd_una with priority 0");
        assert_eq!(h.s.stats.timeouts, 1);
        assert_eq!(h.s.rtt().rto(), Time(2 * rto.0), "RFC 6298 §5.5: backed off");
        assert_eq!(h.s.next_wake(), Some(fire + Time::from_millis(1)), "the burst goes on");
        let rest = h.run_until(fire + Time::from_millis(5));
        assert_eq!(labels(&rest), vec![(3, 1), (4, 1)]);
    }

    #[test]
    fn blt_2_3_cumulatively_acked_packets_are_skipped() {
        let mut h = Harness::new(30, Labels::Blt { gamma: 2 });
        h.run_to(15.5); // 0..=15 sent
        h.ack(3, 2);
        h.ack(3, 4); // reset at 3: its copy leaves at 16 ms
        h.run_to(17.5); // 3, 4 sent again
                        // The receiver held 5..11: the new copies of 3 and 4 fill the hole, the ACK jumps to 12.
        h.ack(12, 4);
        let out = h.run_to(20.5);
        // The pointer jumps from 5 to 12; priorities keep their offsets from base 3.
        assert_eq!(labels(&out), vec![(12, 3), (13, 3), (14, 3)]);
        assert_eq!(h.s.base(), 3);
    }

    #[test]
    fn completes_on_the_last_ack_and_stops() {
        let mut h = Harness::new(3, Labels::Blt { gamma: 2 });
        h.run_to(5.0);
        h.ack(3, 2);
        assert_eq!(h.s.completed(), Some(h.now));
        assert_eq!(h.s.next_wake(), None);
        assert!(h.ack(3, 2).is_empty());
    }
}
