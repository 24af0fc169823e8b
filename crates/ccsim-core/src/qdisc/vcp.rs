//! The VCP router (Y. Xia, L. Subramanian, I. Stoica, S. Kalyanaraman, "One
//! more bit is enough", ACM SIGCOMM 2005 (the router's load factor and its
//! 2-bit encoding); IEEE/ACM ToN 16(6), 2008), as the authors' ns-2
//! code runs it (VCP 0.1, 2006: `vcp/vcp-queue.cc`, `vcp-queue.h`,
//! `vcp-cmn.h`, defaults in their `tcl/lib/ns-default.tcl`). Model page:
//! docs/models/vcp.md ("Router"; where the paper and the code differ:
//! "Modelling decisions").
//!
//! A marker that sits on any queue discipline (`inner`, drop-tail by default):
//! the discipline decides what is queued, dropped and sent; the marker measures
//! the link's load factor ρ and writes its 2-bit code into the ECN field of
//! departing packets.
//!
//! * **Load factor** ([`crate::qdisc::load_factor`], shared with BMCC), every
//!   t_ρ = 200 ms: ρ = (λ + κ_q·q_av)/(γ·C·t_ρ), λ the bytes arrived (before
//!   the drop decision, `enque`), κ_q = 0.5 (`queue_weight_`), the backlog
//!   sampled every t_q = 10 ms (`queue_sampling_interval_`) and averaged over
//!   the interval; q_av is that average ⌊q̄⌋/16 as the code computes it
//!   (`moving_avg_int`, [`QueueFilter::VcpShift`]; `queue_filter = "ewma"`:
//!   the EWMA of weight ¼ its comment intends). γ starts at 0.95
//!   (`dynamic_target_utilization_`) and, every ten intervals, moves by a step
//!   towards the utilization target of the link's capacity class
//!   ([`capacity_target`], `set_target_utilization`; `gamma_adapt = false`:
//!   γ fixed, the paper's γ = 0.98 is then `gamma = 0.98`).
//! * **Encoding** (`encode`): the load in integer percent, ⌊100·ρ⌋ + 1 (the
//!   code's "round up", `(unsigned short)(lfd + 1.0)`), below 80 (`LF_0`) is
//!   low load `01`, below 100 (`LF_1`) high load `10`, else overload `11`; so
//!   ρ < 0.79 is low load and ρ ≥ 0.99 overload (`quantize = "none"`: the
//!   paper's ρ < 80 % and ρ ≥ 100 %).
//! * **Marking at dequeue** (`deque`): a departing packet's code is raised
//!   to the router's if lower, never lowered, so behind several VCP routers
//!   the packet carries the largest code on its path. Only ECN-capable packets
//!   are touched (VCP's senders send `01`, ECT(1)); a Not-ECT packet (ACKs,
//!   other transports) keeps its codepoint, where ns-2 tags every TCP data
//!   packet in a field of its own. Raising a code to `11` (CE) counts as a
//!   forced mark (`marks`, `marks_forced`): an RFC 3168 receiver reads it as
//!   congestion.
//!
//! * **ACKs first** (`ack_priority`, VCP's `DropTail2` with `two_queue_
//!   true`, `drop-tail2.cc`): pure ACKs wait in a FIFO of their own that is
//!   served before the inner discipline; the buffer (`limit`) counts both, an
//!   arrival that would overflow it is dropped, and the load factor's queue
//!   samples count both (`byteLength()`). With two-way traffic this keeps the
//!   reverse flows' ACKs from queueing behind data (docs/validation.md, `ccsim
//!   validate vcp`: without it VCP's ns-2 code queues 20 times more).
//!
//! Deviations: intervals and samples are measured lazily, at the queue's
//! events ([`crate::qdisc::load_factor`]); with `ack_priority` the inner
//! discipline sees only the data, and a data packet is refused when the ACKs
//! and the inner backlog together fill the buffer (DropTail2's rule; an inner
//! AQM decides only on what it holds).

use super::load_factor::{self as load, Adapt, LoadFactor, LoadParams, Meter, QueueFilter};
use super::{DropReason, PacketFifo};
use super::{Limit, LinkInfo, MarkReason, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{Res, Tab};
use crate::packet::{Ecn, Kind, Packet};
use crate::units::{Rate, Time};
use serde_json::Value;
use std::sync::Arc;

/// VCP's codes in the ECN field (`vcp-cmn.h`): `LOW_LOAD` 01, `HIGH_LOAD` 10,
/// `OVER_LOAD` 11. `00` (Not-ECT) is no code.
pub const LOW_LOAD: Ecn = Ecn::Ect1;
pub const HIGH_LOAD: Ecn = Ecn::Ect0;
pub const OVER_LOAD: Ecn = Ecn::Ce;

/// How ρ is compared with the thresholds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quantize {
    /// The code's: ⌊100·ρ⌋ + 1 in integer percent against the thresholds in
    /// percent.
    Percent,
    /// The paper's: ρ against the thresholds.
    Exact,
}

/// The router's encoding of ρ (`VcpQueue::encode`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Encoding {
    /// Below this ρ: low load (`LF_0` = 80 %).
    pub low: f64,
    /// Below this ρ: high load, else overload (`LF_1` = 100 %).
    pub high: f64,
    pub quantize: Quantize,
}

impl Default for Encoding {
    fn default() -> Self {
        Encoding {
            low: 0.8,
            high: 1.0,
            quantize: Quantize::Percent,
        }
    }
}

impl Encoding {
    /// The 2-bit code of load factor `rho`.
    pub fn code(&self, rho: f64) -> Ecn {
        let (x, low, high) = match self.quantize {
            // `lfi = (unsigned short)(lfd + 1.0)`, `lfi < lf_[0]`, `lfi < lf_[1]`.
            Quantize::Percent => (
                (100.0 * rho + 1.0).floor(),
                (100.0 * self.low).round(),
                (100.0 * self.high).round(),
            ),
            Quantize::Exact => (rho, self.low, self.high),
        };
        if x < low {
            LOW_LOAD
        } else if x < high {
            HIGH_LOAD
        } else {
            OVER_LOAD
        }
    }
}

/// The utilization target and the adaptation step VCP's code gives a link of
/// `rate` (`VcpQueue::set_target_utilization`): a link counts in the class of
/// the largest power of ten X with rate/X + 0.34 ≥ 1 (1 Tb/s down to 1 kb/s).
pub fn capacity_target(rate: Rate) -> Adapt {
    const CLASSES: [(f64, f64, f64); 10] = [
        (1e12, 0.993, 0.001),
        (1e11, 0.992, 0.001),
        (1e10, 0.990, 0.001),
        (1e9, 0.985, 0.002),
        (1e8, 0.975, 0.003),
        (1e7, 0.960, 0.004),
        (1e6, 0.940, 0.005),
        (1e5, 0.920, 0.006),
        (1e4, 0.890, 0.008),
        (1e3, 0.850, 0.010),
    ];
    let bps = rate.0 as f64;
    let (target, step) = CLASSES
        .iter()
        .find(|(x, _, _)| (bps / x + 0.34) as i64 != 0)
        .map_or((0.800, 0.020), |&(_, t, s)| (t, s));
    Adapt { target, step }
}

/// A VCP marker on a queue discipline.
pub struct VcpQueue {
    inner: Box<dyn Qdisc>,
    /// With `ack_priority`: the pure ACKs, served before `inner`.
    acks: Option<PacketFifo>,
    load: LoadFactor<Meter>,
    enc: Encoding,
}

impl VcpQueue {
    pub fn new(inner: Box<dyn Qdisc>, load: LoadParams, q_sample: Time, enc: Encoding, rate: Rate) -> VcpQueue {
        VcpQueue {
            inner,
            acks: None,
            load: LoadFactor::new(load, rate, Meter::new(q_sample)),
            enc,
        }
    }
    /// Serves pure ACKs from a FIFO of their own ahead of the inner discipline
    /// (`DropTail2`, `two_queue_ true`).
    pub fn with_ack_priority(mut self) -> VcpQueue {
        self.acks = Some(PacketFifo::default());
        self
    }
    /// The code departing packets are raised to now.
    pub fn code(&self) -> Ecn {
        self.enc.code(self.load.f())
    }
}

impl Qdisc for VcpQueue {
    fn kind(&self) -> &'static str {
        "vcp"
    }

    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        // λ counts every arrival, before the drop decision (`enque`).
        self.load.advance(cx.now, self.backlog_bytes());
        self.load.arrival(pkt.size);
        let Some(acks) = self.acks.as_mut() else {
            return self.inner.enqueue(pkt, cx);
        };
        // DropTail2::enque: the buffer holds both FIFOs.
        let (pkts, bytes) = (
            acks.len() + self.inner.backlog_packets(),
            acks.bytes() + self.inner.backlog_bytes(),
        );
        if !self.inner.limit().admits(pkts, bytes, pkt.size) {
            cx.drop(pkt, DropReason::Overflow);
            return None;
        }
        if pkt.kind == Kind::Ack {
            return Some(acks.push(pkt));
        }
        self.inner.enqueue(pkt, cx)
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet> {
        self.load.advance(cx.now, self.backlog_bytes());
        if let Some(ack) = self.acks.as_mut().and_then(PacketFifo::pop) {
            return Some(ack); // Not-ECT: no code to raise
        }
        let mut p = self.inner.dequeue(cx);
        if let Some(pkt) = p.as_mut() {
            // `deque`: raise the code if this router is more loaded than the
            // routers before it; the ECN bits order the codes 01 < 10 < 11.
            let code = self.code();
            if pkt.ecn.is_ect() && pkt.ecn.bits() < code.bits() {
                pkt.ecn = code;
                if code == OVER_LOAD {
                    cx.mark(MarkReason::Forced);
                }
            }
        }
        p
    }

    fn peek(&self) -> Option<&Packet> {
        self.acks
            .as_ref()
            .and_then(PacketFifo::front)
            .or_else(|| self.inner.peek())
    }
    fn backlog_packets(&self) -> usize {
        self.acks.as_ref().map_or(0, PacketFifo::len) + self.inner.backlog_packets()
    }
    fn backlog_bytes(&self) -> u64 {
        self.acks.as_ref().map_or(0, PacketFifo::bytes) + self.inner.backlog_bytes()
    }
    fn limit(&self) -> Limit {
        self.inner.limit()
    }
    fn trace(&self, out: &mut Vec<TraceValue>) {
        out.push(TraceValue::new("load_factor", self.load.f()));
        out.push(TraceValue::new("load_code", self.code().bits() as f64));
        out.push(TraceValue::new("q_av", self.load.q_av()));
        out.push(TraceValue::new("arrived_bytes", self.load.last_arrived() as f64));
        out.push(TraceValue::new("gamma", self.load.gamma()));
        self.inner.trace(out);
    }
}

// ----- scenario

/// `kind = "vcp"` as read (the adaptation's target is resolved per link).
#[derive(Debug)]
struct Spec {
    inner: Arc<dyn QdiscSpec>,
    load: LoadParams,
    adapt: bool,
    q_sample: Time,
    enc: Encoding,
    ack_priority: bool,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("inner", "vcp router: the queue discipline it marks for"),
    (
        "interval",
        "vcp router: the load factor's measurement interval t_ρ, in (0, 60 s] (VCP's load_measurement_interval_: 200 ms)",
    ),
    (
        "gamma",
        "vcp router: the target utilization γ, in (0, 1]; with gamma_adapt its initial value (VCP's code: 0.95; the paper: 0.98)",
    ),
    (
        "gamma_adapt",
        "vcp router: every ten intervals move γ one step towards the utilization target of the link's capacity class, as VCP's code (false: γ fixed)",
    ),
    (
        "kappa_q",
        "vcp router: the queue-drain coefficient κ_q of the load factor (VCP's queue_weight_: 0.5)",
    ),
    (
        "q_sample",
        "vcp router: the queue is sampled every q_sample and averaged over each interval (VCP's queue_sampling_interval_: 10 ms; 0: averaged over time)",
    ),
    (
        "queue_filter",
        "vcp router: the queue term from an interval's mean queue q̄: \"vcp\" ⌊q̄⌋/16 as VCP's moving_avg_int computes it, or \"ewma\" of weight q_weight as its comment intends",
    ),
    (
        "q_weight",
        "vcp router: with queue_filter = \"ewma\", the EWMA's weight per interval, in (0, 1] (VCP's comment: 0.25)",
    ),
    (
        "low",
        "vcp router: below this load factor the code is low load 01 (VCP's LF_0: 0.8)",
    ),
    (
        "high",
        "vcp router: below this load factor the code is high load 10, else overload 11 (VCP's LF_1: 1.0)",
    ),
    (
        "quantize",
        "vcp router: compare ⌊100·ρ⌋ + 1 in percent with the thresholds (\"percent\", VCP's code) or ρ itself (\"none\", the paper)",
    ),
    (
        "ack_priority",
        "vcp router: pure ACKs wait in a FIFO of their own served before the inner discipline, the buffer counting both (VCP's DropTail2, two_queue_: true)",
    ),
];

/// Reads `queue = {kind = "vcp", inner = {...}, interval, gamma, gamma_adapt,
/// kappa_q, q_sample, queue_filter, q_weight, low, high, quantize,
/// ack_priority}`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let inner = load::read_inner(
        t,
        &["vcp", "bmcc"],
        "a queue discipline other than \"vcp\" or \"bmcc\" (the marker sits on it)",
    )?;
    let interval = load::read_interval(t, "a measurement interval t_ρ in (0, 60 s], such as \"200ms\"")?;
    let gamma = load::open_unit(t, "gamma", 0.95, "the target utilization γ, a number in (0, 1]")?;
    let adapt = t.boolean("gamma_adapt", true)?;
    let kappa = t.float("kappa_q", Some(0.5), 0.0, 100.0)?;
    let q_sample = t.time("q_sample", Some("10ms"))?;
    if q_sample > interval {
        return Err(t.error(
            "q_sample",
            &Value::from(crate::cfg::time_str(q_sample)),
            format!(
                "a sampling interval t_q no longer than the measurement interval ({}), or 0 for the time average",
                crate::cfg::time_str(interval)
            ),
        ));
    }
    let filter = t.choice("queue_filter", Some("vcp"), &["vcp", "ewma"])?;
    let q_weight = load::open_unit(
        t,
        "q_weight",
        0.25,
        "the EWMA's weight per interval, a number in (0, 1]",
    )?;
    let filter = match filter.as_str() {
        "ewma" => QueueFilter::Ewma(q_weight),
        _ => QueueFilter::VcpShift,
    };
    let enc = read_encoding(t)?;
    let ack_priority = t.boolean("ack_priority", true)?;
    Ok(Arc::new(Spec {
        inner,
        load: LoadParams {
            interval,
            gamma,
            kappa,
            filter,
            adapt: None,
        },
        adapt,
        q_sample,
        enc,
        ack_priority,
    }))
}

/// The thresholds `low` < `high` and `quantize`.
fn read_encoding(t: &mut Tab) -> Res<Encoding> {
    let d = Encoding::default();
    let low = t.float("low", Some(d.low), 0.01, 10.0)?;
    let high = t.float("high", Some(d.high), 0.01, 10.0)?;
    if high <= low {
        return Err(t.error(
            "high",
            &Value::from(high),
            format!("a load factor above low = {low} (high load lies between the two)"),
        ));
    }
    let quantize = match t.choice("quantize", Some("percent"), &["percent", "none"])?.as_str() {
        "none" => Quantize::Exact,
        _ => Quantize::Percent,
    };
    Ok(Encoding { low, high, quantize })
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        let inner = load::build_inner(self.inner.as_ref(), link)?;
        let load = LoadParams {
            adapt: self.adapt.then(|| capacity_target(link.rate)),
            ..self.load
        };
        let q = VcpQueue::new(inner, load, self.q_sample, self.enc, link.rate);
        Ok(Box::new(if self.ack_priority { q.with_ack_priority() } else { q }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use serde_json::json;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    fn ect(uid: u64, ecn: Ecn) -> Packet {
        let mut p = pkt(uid, 0, 1000);
        p.ecn = ecn;
        p
    }

    /// The load regions as the code draws them: ⌊100ρ⌋ + 1 against 80 and 100,
    /// so 0.789 is low load, 0.79 high, 0.989 high, 0.99 overload; with
    /// `quantize = "none"` the paper's 0.8 and 1.0.
    #[test]
    fn encode_quantization_thresholds() {
        let code = Encoding::default();
        for (rho, want) in [
            (0.0, LOW_LOAD),
            (0.5, LOW_LOAD),
            (0.789, LOW_LOAD),
            (0.79, HIGH_LOAD),
            (0.795, HIGH_LOAD),
            (0.989, HIGH_LOAD),
            (0.99, OVER_LOAD),
            (1.0, OVER_LOAD),
            (3.0, OVER_LOAD),
        ] {
            assert_eq!(code.code(rho), want, "ρ = {rho}");
        }
        let paper = Encoding {
            quantize: Quantize::Exact,
            ..Encoding::default()
        };
        for (rho, want) in [
            (0.79, LOW_LOAD),
            (0.7999, LOW_LOAD),
            (0.8, HIGH_LOAD),
            (0.99, HIGH_LOAD),
            (1.0, OVER_LOAD),
        ] {
            assert_eq!(paper.code(rho), want, "ρ = {rho}");
        }
    }

    /// `set_target_utilization`: 45 Mb/s is in the 10-Mb/s class (0.96, step
    /// 0.004), 100 Mb/s and 66 Mb/s in the 100-Mb/s class, 65 Mb/s not.
    #[test]
    fn capacity_classes_of_the_code() {
        let t = |bps: u64| {
            let a = capacity_target(Rate(bps));
            (a.target, a.step)
        };
        assert_eq!(t(45_000_000), (0.960, 0.004));
        assert_eq!(t(100_000_000), (0.975, 0.003));
        assert_eq!(t(66_000_000), (0.975, 0.003));
        assert_eq!(t(65_000_000), (0.960, 0.004));
        assert_eq!(t(1_000_000_000), (0.985, 0.002));
        assert_eq!(t(500), (0.800, 0.020));
    }

    /// Drives a VCP router on 8 Mb/s (C·t_ρ = 200 000 B) to load factor
    /// `n`·1000 B / 190 000 B (γ = 0.95 fixed, κ_q = 0): `n` arrivals served at
    /// once in the first interval, then the interval closed.
    fn at_load(n: u64) -> Drive {
        let l = link("8Mbps", Limit::Packets(1000));
        let q = json!({"kind": "vcp", "kappa_q": 0, "gamma_adapt": false});
        let mut d = Drive::new(build(q, &l).unwrap());
        for i in 0..n {
            d.enq(pkt(i, 0, 1000));
            d.deq();
        }
        d.now = ms(200);
        d
    }

    /// Departures carry the router's code (raised, never lowered); Not-ECT
    /// packets are left alone; raising to `11` counts as a forced mark.
    #[test]
    fn departures_carry_the_links_code() {
        // 170 packets: ρ = 0.8947 ⇒ ⌊89.47⌋ + 1 = 90: high load.
        let mut d = at_load(170);
        for (i, e) in [LOW_LOAD, HIGH_LOAD, OVER_LOAD, Ecn::NotEct].into_iter().enumerate() {
            d.enq(ect(1000 + i as u64, e));
        }
        let out: Vec<Ecn> = (0..4).map(|_| d.deq().unwrap().ecn).collect();
        assert_eq!(out, vec![HIGH_LOAD, HIGH_LOAD, OVER_LOAD, Ecn::NotEct]);
        assert!(d.marks.is_empty());
        assert_eq!(d.trace("load_code"), 2.0);
        // 189 packets: ρ = 0.99474 ⇒ 100: overload.
        let mut d = at_load(189);
        d.enq(ect(2000, LOW_LOAD));
        assert_eq!(d.deq().unwrap().ecn, OVER_LOAD);
        assert_eq!(d.marks, vec![MarkReason::Forced]);
        // 150 packets: ρ = 0.7895 ⇒ 79: low load, nothing raised.
        let mut d = at_load(150);
        d.enq(ect(3000, LOW_LOAD));
        assert_eq!(d.deq().unwrap().ecn, LOW_LOAD);
    }

    /// Two VCP routers in a row, loaded 0.5 / 0.9 / 1.0 in every order: the
    /// packet leaves the second with the larger code of the two.
    #[test]
    fn two_routers_in_a_row_carry_the_larger_code() {
        let loads = [(95, LOW_LOAD), (171, HIGH_LOAD), (190, OVER_LOAD)];
        for (n1, c1) in loads {
            for (n2, c2) in loads {
                let (mut a, mut b) = (at_load(n1), at_load(n2));
                a.enq(ect(9000, LOW_LOAD));
                let p = a.deq().unwrap();
                assert_eq!(p.ecn, c1);
                b.enq(p);
                let out = b.deq().unwrap().ecn;
                assert_eq!(out, if c1.bits() > c2.bits() { c1 } else { c2 }, "{n1} then {n2}");
            }
        }
    }

    /// Arrivals count before the drop decision, as VCP's `enque`: a full
    /// 10-packet queue that drops half of 20 arrivals reports all 20 000 B.
    #[test]
    fn dropped_arrivals_count_in_the_load() {
        let l = link("8Mbps", Limit::Packets(10));
        let mut d = Drive::new(build(json!({"kind": "vcp", "kappa_q": 0}), &l).unwrap());
        for i in 0..20 {
            d.enq(pkt(i, 0, 1000));
        }
        assert_eq!(d.dropped().len(), 10);
        d.now = ms(200);
        d.deq();
        assert_eq!(d.trace("arrived_bytes"), 20_000.0);
        assert!((d.trace("load_factor") - 20_000.0 / 190_000.0).abs() < 1e-12);
        assert_eq!(d.trace("gamma"), 0.95);
    }

    fn ack(uid: u64) -> Packet {
        let mut p = pkt(uid, 1, 40);
        p.kind = Kind::Ack;
        p
    }

    /// `DropTail2` with `two_queue_ true` (`drop-tail2.cc`): ACKs leave before
    /// data queued ahead of them, in their own order; the buffer of 4 holds
    /// both FIFOs (a data packet or an ACK finding 4 waiting is dropped); the
    /// backlog and the load factor's queue samples count the ACKs. With
    /// `ack_priority = false` one FIFO.
    #[test]
    fn acks_are_served_first_and_share_the_buffer() {
        let l = link("8Mbps", Limit::Packets(4));
        let mut d = Drive::new(build(json!({"kind": "vcp"}), &l).unwrap());
        assert!(d.enq(pkt(1, 0, 1000)));
        assert!(d.enq(pkt(2, 0, 1000)));
        assert!(d.enq(ack(3)));
        assert!(d.enq(ack(4)));
        assert_eq!((d.q.backlog_packets(), d.q.backlog_bytes()), (4, 2080));
        assert!(!d.enq(pkt(5, 0, 1000)));
        assert!(!d.enq(ack(6)));
        assert_eq!(d.dropped(), vec![(5, DropReason::Overflow), (6, DropReason::Overflow)]);
        assert_eq!(d.drain(), vec![3, 4, 1, 2]);
        // The load counts every arrival, dropped or not, ACKs included.
        d.now = ms(200);
        d.deq();
        assert_eq!(d.trace("arrived_bytes"), 3.0 * 1000.0 + 3.0 * 40.0);

        let one = json!({"kind": "vcp", "ack_priority": false});
        let mut d = Drive::new(build(one, &l).unwrap());
        for p in [pkt(1, 0, 1000), ack(2), pkt(3, 0, 1000), ack(4)] {
            assert!(d.enq(p));
        }
        assert_eq!(d.drain(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn bad_keys_name_the_key_and_what_is_accepted() {
        let l = link("8Mbps", Limit::Packets(100));
        let err = |v| build(v, &l).err().expect("refused");
        let e = err(json!({"kind": "vcp", "gamma": 1.5}));
        assert_eq!(e.path, "q.gamma");
        assert!(e.expected.contains("(0, 1]"), "{e}");
        assert_eq!(err(json!({"kind": "vcp", "interval": "0s"})).path, "q.interval");
        let e = err(json!({"kind": "vcp", "q_sample": "1s"}));
        assert_eq!(e.path, "q.q_sample");
        assert!(e.expected.contains("(0.2s)"), "{e}");
        let e = err(json!({"kind": "vcp", "low": 1.1}));
        assert_eq!(e.path, "q.high");
        assert!(e.expected.contains("low = 1.1"), "{e}");
        assert_eq!(err(json!({"kind": "vcp", "quantize": "round"})).path, "q.quantize");
        assert_eq!(
            err(json!({"kind": "vcp", "queue_filter": "red"})).path,
            "q.queue_filter"
        );
        assert_eq!(err(json!({"kind": "vcp", "kappa_q": -1})).path, "q.kappa_q");
        assert_eq!(err(json!({"kind": "vcp", "ack_priority": 1})).path, "q.ack_priority");
        for nested in ["vcp", "bmcc"] {
            let e = err(json!({"kind": "vcp", "inner": {"kind": nested}}));
            assert_eq!(e.path, "q.inner.kind");
            assert!(e.value.contains(nested), "{e}");
        }
        assert_eq!(
            err(json!({"kind": "vcp", "inner": {"kind": "red", "max_th": 500}})).path,
            "q.inner.limit"
        );
    }
}
