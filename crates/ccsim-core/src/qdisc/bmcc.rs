//! The BMCC router (I. A. Qazi, T. Znati, L. L. H. Andrew, "Incremental
//! deployment of new ECN-compatible congestion control", PFLDNeT 2009, §3.1–3.2
//! and the modified router of §5.2; load-factor measurement inherited from
//! VCP, Xia et al., SIGCOMM 2005, ns-2 `vcp-queue.cc`; RED and Adaptive RED as
//! ns-2 ran them, `queue/red.cc`, `tcl/lib/ns-default.tcl`). Model page:
//! docs/models/bmcc.md ("Router"; what the paper leaves open: "Modelling
//! decisions", Router and Modified router).
//!
//! A marker that sits on any queue discipline (`inner`, drop-tail by default):
//! the discipline decides what is queued, dropped and sent; the marker measures
//! the link's load and writes it into the ECN bits of departing packets.
//!
//! * **Load factor** (eq. 1), recomputed at the end of every interval
//!   t_p = 200 ms: `f = (λ + κ₁·q_av) / (γ·C·t_p)`, with λ the bytes that
//!   *arrived* at the queue during the interval, counted before the
//!   discipline's drop decision (as VCP's `enque`), C the link rate in bytes/s,
//!   γ = 0.98 the target utilization (VCP's code uses 0.95: the sensitivity
//!   value) and κ₁ = 0.75. `q_av` is an EWMA of the queue with time constant
//!   8·t_p (docs/models/bmcc.md, "Modelling decisions: Queue average"): the
//!   backlog (bytes waiting, not the one in transmission) is
//!   averaged over time within each interval, `q_int`, and
//!   `q_av ← q_av + w·(q_int − q_av)` with `w = 1 − e^{−1/8}` per interval.
//!   The new f is used for marking during the whole next interval; it is 0
//!   until the first interval ends. The estimator is VCP's, shared with
//!   [`crate::qdisc::vcp`] ([`crate::qdisc::load_factor`]; BMCC averages the
//!   backlog over time, [`TimeAverage`](load::TimeAverage), and has no
//!   adaptation of γ).
//! * **Marking at dequeue** (§3.2, as VCP marks in `deque`), every
//!   ECN-capable packet ([`crate::adpm::mark`]): CE if f ≥ u = 1.2, else
//!   ECT(0) → ECT(1) if f exceeds the packet's threshold h(IP id). A marker
//!   only raises the signal, so behind several BMCC routers the receiver sees
//!   the largest load on the path. Not-ECT packets (ACKs, non-ECN flows) are
//!   never marked: a link carrying no ECN-capable traffic is its discipline.
//! * **Modified router** (`overload = "ared"`, §5.2; docs/models/bmcc.md,
//!   "Modelling decisions": ARED only in overload, ARED's parameters): the CE
//!   rule above is replaced in overload by Adaptive RED. ARED's average and max_p
//!   are updated at every arrival whatever the load (so they are warm when
//!   overload begins); while the current f ≥ 1 an arrival is subjected to
//!   ARED's decision, which marks an ECN-capable packet CE or drops it (a
//!   Not-ECT packet, or any packet above `mark_p` with ns-2's `use_mark_p`).
//!   While f < 1 ARED signals nothing and its inter-signal count restarts
//!   (as when its average is below min_th), so a signal does not fire at once
//!   when overload begins. ADPM's ECT(1) marks run unchanged. ARED's
//!   parameters are ns-2's automatic ones, with ns-2's lower bound of max_p
//!   (min(0.01, 80000 / C[bit/s]), `REDQueue::initialize_params`) and RED's
//!   2008–09 defaults (byte mode, `use_mark_p`; docs/models/bmcc.md,
//!   "Modelling decisions"): the keys of `kind = "ared"` in an `ared` table,
//!   with `ecn` on by default.
//!
//! Deviations and choices:
//! * Intervals are measured lazily ([`crate::qdisc::load_factor`]): marks and
//!   the load are exact; the `flow` of time series samples (`load_factor` in
//!   `timeseries["qdisc"]`) shows the value of the last interval closed, which
//!   on a link silent for longer than t_p is older than the current one.
//! * Interval boundaries are multiples of t_p from time 0 on every BMCC link
//!   (VCP starts each router's timer when it is built, i.e. at time 0 too).
//! * VCP quantizes f to integer percent for its 2-bit code; BMCC's ADPM needs
//!   the real value, which is kept.

use super::load_factor::{self as load, LoadFactor, LoadParams, QueueFilter};
use super::{DropReason, Limit, LinkInfo, MarkReason, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::adpm::{self, Hash, Marked};
use crate::cfg::{Res, Tab};
use crate::packet::{Ecn, Packet};
use crate::qdisc::red::{self, Decision, Red};
use crate::units::{Rate, Time};
use serde_json::{json, Value};
use std::sync::Arc;

/// BMCC's load-factor measurement (eq. 1, §3.1; docs/models/bmcc.md,
/// "Router"): t_p = 200 ms, γ = 0.98, κ₁ = 0.75, the backlog averaged over
/// time and smoothed by an EWMA of weight 1 − e^{−1/8} per interval.
pub fn load_defaults() -> LoadParams {
    LoadParams {
        interval: Time::from_millis(200),
        gamma: 0.98,
        kappa: 0.75,
        filter: QueueFilter::Ewma(1.0 - (-1.0f64 / 8.0).exp()),
        adapt: None,
    }
}

/// What the router does in overload.
#[derive(Clone, Debug)]
enum Overload {
    /// §3.2: every ECN-capable packet leaves CE while f ≥ u.
    Ce,
    /// §5.2: Adaptive RED decides marks and drops while f ≥ 1.
    Ared(Box<Red>),
}

/// A BMCC marker on a queue discipline.
pub struct BmccQueue {
    inner: Box<dyn Qdisc>,
    load: LoadFactor,
    /// The link's rate (ARED's idle period starts when the last packet is serialized).
    rate: Rate,
    hash: Hash,
    overload: Overload,
}

impl BmccQueue {
    /// The marker of §3.1–3.2 on `inner` (with `ared`, the modified router of §5.2).
    pub fn new(inner: Box<dyn Qdisc>, load: LoadParams, rate: Rate, hash: Hash, ared: Option<Red>) -> BmccQueue {
        BmccQueue {
            inner,
            load: LoadFactor::new(load, rate, Default::default()),
            rate,
            hash,
            overload: ared.map_or(Overload::Ce, |r| Overload::Ared(Box::new(r))),
        }
    }
    pub fn load(&self) -> &LoadFactor {
        &self.load
    }
}

impl Qdisc for BmccQueue {
    fn kind(&self) -> &'static str {
        "bmcc"
    }

    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        let now = cx.now;
        // λ counts every arrival, before the drop decision (VCP `enque`).
        self.load.advance(now, self.inner.backlog_bytes());
        self.load.arrival(pkt.size);
        let Overload::Ared(red) = &mut self.overload else {
            return self.inner.enqueue(pkt, cx);
        };
        let q = red.measure(self.inner.backlog_packets(), self.inner.backlog_bytes());
        let mut marked = false;
        if self.load.f() >= 1.0 {
            match red.arrival(now, q, pkt.size, pkt.ecn.is_ect(), cx.rng) {
                Decision::Pass => {}
                Decision::Mark => {
                    pkt.ecn = Ecn::Ce;
                    marked = true;
                }
                Decision::EarlyDrop => {
                    cx.drop(pkt, DropReason::Early);
                    return None;
                }
                Decision::ForcedDrop => {
                    cx.drop(pkt, DropReason::Forced);
                    return None;
                }
            }
        } else {
            // Not in overload: ARED keeps its average and max_p up to date and
            // signals nothing; its count restarts when overload begins.
            red.update_avg(now, q);
            red.v.old = false;
        }
        let stored = self.inner.enqueue(pkt, cx);
        match stored {
            Some(_) if marked => cx.mark(MarkReason::Early),
            Some(_) => {}
            // A full buffer resets RED's count, as every ns-2 forced drop.
            None => red.signalled(),
        }
        stored
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet> {
        let now = cx.now;
        self.load.advance(now, self.inner.backlog_bytes());
        let mut p = self.inner.dequeue(cx);
        let ce_at_u = match &mut self.overload {
            Overload::Ce => true,
            Overload::Ared(red) => {
                if self.inner.backlog_packets() == 0 {
                    // As RED's own queue: idle once this packet is serialized.
                    red.idle(p.as_ref().map_or(now, |p| now + self.rate.tx_time(p.size as u64)));
                }
                false
            }
        };
        if let Some(pkt) = p.as_mut() {
            let (ecn, what) = adpm::mark(pkt.ecn, pkt.ip_id, self.load.f(), self.hash, ce_at_u);
            pkt.ecn = ecn;
            match what {
                Marked::Unchanged => {}
                Marked::Adpm => cx.mark(MarkReason::Adpm),
                Marked::Ce => cx.mark(MarkReason::Forced),
            }
        }
        p
    }

    fn peek(&self) -> Option<&Packet> {
        self.inner.peek()
    }
    fn backlog_packets(&self) -> usize {
        self.inner.backlog_packets()
    }
    fn backlog_bytes(&self) -> u64 {
        self.inner.backlog_bytes()
    }
    fn limit(&self) -> Limit {
        self.inner.limit()
    }
    fn trace(&self, out: &mut Vec<TraceValue>) {
        out.push(TraceValue::new("load_factor", self.load.f()));
        out.push(TraceValue::new("q_av", self.load.q_av()));
        out.push(TraceValue::new("arrived_bytes", self.load.last_arrived() as f64));
        if let Overload::Ared(r) = &self.overload {
            out.push(TraceValue::new("avg", r.v.avg));
            out.push(TraceValue::new("max_p", r.v.max_p));
        }
        self.inner.trace(out);
    }
}

// ----- scenario

/// `kind = "bmcc"` as read (the ARED thresholds are resolved per link).
#[derive(Debug)]
struct Spec {
    inner: Arc<dyn QdiscSpec>,
    load: LoadParams,
    hash: Hash,
    ared: Option<red::Spec>,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("inner", "bmcc router: the queue discipline it marks for"),
    (
        "interval",
        "bmcc router: the measurement interval t_p of the load factor, in (0, 60 s]",
    ),
    ("gamma", "bmcc router: the target utilization γ, in (0, 1]"),
    ("kappa1", "BMCC router constant κ1 (queue drain)"),
    (
        "q_weight",
        "bmcc router: the queue average's weight per interval, in (0, 1] (1 − e^(−1/8): time constant 8·t_p)",
    ),
    (
        "hash",
        "bmcc router: ADPM hash of the IP id (\"plain\": IP id / 65536); the receivers' must match",
    ),
    (
        "overload",
        "bmcc router: on overload set CE (\"ce\") or run Adaptive RED (\"ared\")",
    ),
    (
        "ared",
        "bmcc router: the Adaptive RED table used with overload = \"ared\"",
    ),
];

/// Reads `queue = {kind = "bmcc", inner = {...}, interval, gamma, kappa1,
/// q_weight, hash, overload = "ce" | "ared", ared = {...}}`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let inner = load::read_inner(
        t,
        &["bmcc"],
        "a queue discipline other than \"bmcc\" (the marker sits on it)",
    )?;
    let interval = load::read_interval(t, "a measurement interval t_p in (0, 60 s], such as \"200ms\"")?;
    let d = load_defaults();
    let gamma = load::open_unit(t, "gamma", d.gamma, "the target utilization γ, a number in (0, 1]")?;
    let kappa1 = t.float("kappa1", Some(d.kappa), 0.0, 100.0)?;
    let QueueFilter::Ewma(w) = d.filter else {
        unreachable!("BMCC's filter is an EWMA")
    };
    let q_weight = load::open_unit(
        t,
        "q_weight",
        w,
        "the queue average's weight per interval, a number in (0, 1] (1 − e^(−1/8): time constant 8·t_p)",
    )?;
    let hash = Hash::read(t)?;
    let overload = t.choice("overload", Some("ce"), &["ce", "ared"])?;
    let ared = if overload == "ared" {
        let mut v = t.raw("ared").cloned().unwrap_or_else(|| json!({}));
        if let Value::Object(m) = &mut v {
            // The modified router marks ECN-capable packets (§5.2).
            m.entry("ecn").or_insert(Value::Bool(true));
        }
        let mut at = Tab::new(t.key_path("ared"), &v)?;
        let spec = red::read_spec(&mut at, "ared", true)?;
        t.put("ared", at.finish()?);
        Some(spec)
    } else {
        if let Some(v) = t.raw("ared") {
            return Err(t.error(
                "ared",
                v,
                "no ARED table with overload = \"ce\" (only the modified router, overload = \"ared\", runs ARED)",
            ));
        }
        None
    };
    Ok(Arc::new(Spec {
        inner,
        load: LoadParams {
            interval,
            gamma,
            kappa: kappa1,
            filter: QueueFilter::Ewma(q_weight),
            adapt: None,
        },
        hash,
        ared,
    }))
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        let sub = |key: &str| LinkInfo {
            path: crate::cfg::join(&link.path, key),
            ..link.clone()
        };
        let inner = load::build_inner(self.inner.as_ref(), link)?;
        let ared = match &self.ared {
            Some(s) => Some(Red::new(s.params(&sub("ared"))?)),
            None => None,
        };
        Ok(Box::new(BmccQueue::new(inner, self.load, link.rate, self.hash, ared)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use crate::adpm::threshold;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// Eq. (1) over one hand-worked interval: C = 8 Mb/s (10⁶ B/s), t_p = 0.2 s,
    /// γ = 0.98 ⇒ γ·C·t_p = 196 000 B. 100 arrivals of 1000 B; backlog 0 for
    /// 0.1 s, then 5000 B for 0.1 s ⇒ q_int = 2500 B, q_av = w·2500 with
    /// w = 1 − e^(−1/8) = 0.117503, f = (100 000 + 0.75·q_av)/196 000.
    #[test]
    fn eq1_load_factor_over_a_hand_worked_interval() {
        let mut lf = LoadFactor::new(load_defaults(), Rate(8_000_000), load::TimeAverage::default());
        lf.advance(ms(0), 0);
        for _ in 0..100 {
            lf.arrival(1000);
        }
        lf.advance(ms(100), 0);
        assert_eq!(lf.f(), 0.0, "no interval has ended");
        lf.advance(ms(200), 5000);
        let w = 1.0 - (-0.125f64).exp();
        assert!((lf.q_av() - w * 2500.0).abs() < 1e-9, "{}", lf.q_av());
        let want = (100_000.0 + 0.75 * w * 2500.0) / 196_000.0;
        assert!((lf.f() - want).abs() < 1e-12, "{} vs {want}", lf.f());
        assert!((want - 0.511328).abs() < 1e-6);
        // Two silent intervals with a constant backlog of 5000 B, closed at once
        // by the next event: λ = 0, q_int = 5000 each time.
        lf.advance(ms(650), 5000);
        let q2 = w * 2500.0 + w * (5000.0 - w * 2500.0);
        let q3 = q2 + w * (5000.0 - q2);
        assert!((lf.q_av() - q3).abs() < 1e-9);
        assert!((lf.f() - 0.75 * q3 / 196_000.0).abs() < 1e-12);
    }

    /// Arrivals count before the drop decision (docs/models/bmcc.md,
    /// "Modelling decisions: Load counted before drops"): a full drop-tail queue
    /// that drops half of them still counts them all in λ.
    #[test]
    fn b4_dropped_arrivals_count_in_the_load() {
        let l = link("8Mbps", Limit::Packets(10));
        let mut d = Drive::new(build(json!({"kind": "bmcc"}), &l).unwrap());
        for i in 0..20 {
            d.enq(pkt(i, 0, 1000));
        }
        assert_eq!(d.dropped().len(), 10);
        d.now = ms(200);
        d.deq();
        // λ = 20 000 B; the queue held 10 000 B for the whole interval.
        let w = 1.0 - (-0.125f64).exp();
        let want = (20_000.0 + 0.75 * w * 10_000.0) / 196_000.0;
        assert!((d.trace("load_factor") - want).abs() < 1e-12);
        assert_eq!(d.trace("arrived_bytes"), 20_000.0);
    }

    fn ect(uid: u64, ip_id: u16) -> Packet {
        let mut p = pkt(uid, 0, 1000);
        p.ecn = Ecn::Ect0;
        p.ip_id = ip_id;
        p
    }

    /// Loads f ≈ 0.87 then f ≥ u on one link: departing packets carry ADPM
    /// marks by their IP id (§3.2), CE in severe overload; Not-ECT never.
    #[test]
    fn departures_carry_the_links_load() {
        let l = link("8Mbps", Limit::Packets(1000));
        let mut d = Drive::new(build(json!({"kind": "bmcc"}), &l).unwrap());
        // 170 000 B in the first interval, queue drained at once: f = 0.867.
        for i in 0..170 {
            d.enq(pkt(i, 0, 1000));
            d.deq();
        }
        d.now = ms(200);
        d.enq(ect(1000, 2)); // h = 0.75
        d.enq(ect(1001, 1)); // h = 1.0
        d.enq(pkt(1002, 0, 1000)); // Not-ECT
        let f = d.trace("load_factor");
        assert!((f - 170_000.0 / 196_000.0).abs() < 1e-12, "{f}");
        let out: Vec<Ecn> = (0..3).map(|_| d.deq().unwrap().ecn).collect();
        assert_eq!(out, vec![Ecn::Ect1, Ecn::Ect0, Ecn::NotEct]);
        assert_eq!(d.marks, vec![MarkReason::Adpm]);
        // Severe overload in the next interval: 250 000 B arrive (f > 1.2).
        for i in 0..250 {
            d.enq(pkt(2000 + i, 0, 1000));
            d.deq();
        }
        d.now = ms(400);
        d.enq(ect(3000, 1));
        d.enq(ect(3001, 0));
        assert!(d.trace("load_factor") >= 1.2);
        assert_eq!(d.deq().unwrap().ecn, Ecn::Ce);
        assert_eq!(d.deq().unwrap().ecn, Ecn::Ce);
        assert_eq!(&d.marks[1..], &[MarkReason::Forced, MarkReason::Forced]);
    }

    /// The modified router (§5.2): no CE from the load, ARED signals only
    /// while f ≥ 1, and ADPM marks every ECT(0) packet in severe overload.
    #[test]
    fn modified_router_leaves_ce_to_ared_in_overload() {
        let l = link("8Mbps", Limit::Packets(1000));
        let q = json!({"kind": "bmcc", "overload": "ared", "ared": {"min_th": 5, "max_th": 15,
            "q_weight": 0.5, "queue_in_bytes": false, "byte_mode": false}});
        let mut d = Drive::new(build(q, &l).unwrap());
        // Keep ten packets waiting (ARED's average ≈ 10, between the
        // thresholds) while `n` packets arrive in the interval starting at `t`.
        let mut uid = 0;
        let mut interval = |d: &mut Drive, t: u64, n: u64| {
            d.now = ms(t);
            for _ in 0..n {
                d.enq(ect(uid, uid as u16));
                uid += 1;
                if d.q.backlog_packets() > 10 {
                    let p = d.deq().unwrap();
                    assert!(matches!(p.ecn, Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce));
                }
            }
        };
        interval(&mut d, 0, 100);
        interval(&mut d, 200, 300);
        let f = d.trace("load_factor");
        assert!(f > 0.5 && f < 0.52, "{f}");
        assert!((d.trace("avg") - 10.0).abs() < 1.0);
        assert!(d.dropped().is_empty(), "f < 1: ARED signals nothing");
        assert!(!d.marks.iter().any(|m| m.is_ce()), "f < 1: no CE at all");
        interval(&mut d, 400, 200);
        let f = d.trace("load_factor");
        assert!(f >= 1.2, "{f}");
        let ared = d.marks.iter().filter(|m| **m == MarkReason::Early).count();
        assert!(ared > 2 && ared < 40, "ARED marks at p_b ≈ 0.05: {ared}");
        assert!(!d.marks.contains(&MarkReason::Forced), "no CE from the load");
        assert!(d.dropped().is_empty());
        // Departures in severe overload: ECT(1) on every packet not CE (all h < u ≤ f).
        let before = d.marks.len();
        let mut adpm = 0;
        while let Some(p) = d.deq() {
            assert!(matches!(p.ecn, Ecn::Ect1 | Ecn::Ce), "{:?}", p.ecn);
            adpm += (p.ecn == Ecn::Ect1) as usize;
        }
        assert_eq!(d.marks[before..].len(), adpm);
        assert!(d.marks[before..].iter().all(|m| *m == MarkReason::Adpm));
    }

    /// Two BMCC links in a row (0.95 then 0.5, and the reverse): the receiver
    /// sees the larger load in either order.
    #[test]
    fn two_routers_in_a_row_signal_the_larger_load() {
        let at_load = |f_target: f64| {
            let l = link("8Mbps", Limit::Packets(1000));
            let mut d = Drive::new(build(json!({"kind": "bmcc", "kappa1": 0}), &l).unwrap());
            let n = (f_target * 196.0).ceil() as u64;
            for i in 0..n {
                d.enq(pkt(i, 0, 1000));
                d.deq();
            }
            d.now = ms(200);
            d.enq(pkt(n, 0, 40)); // the event that closes the interval
            d.deq();
            d
        };
        for (f1, f2) in [(0.95, 0.5), (0.5, 0.95)] {
            let (mut a, mut b) = (at_load(f1), at_load(f2));
            let larger = a.trace("load_factor").max(b.trace("load_factor"));
            assert!((larger - 0.95).abs() < 0.006);
            let mut marked = 0;
            for id in 0..4096u16 {
                a.enq(ect(10_000 + id as u64, id));
                let p = a.deq().unwrap();
                b.enq(p);
                let out = b.deq().unwrap();
                let want = if larger > threshold(id, Hash::BitReverse) {
                    Ecn::Ect1
                } else {
                    Ecn::Ect0
                };
                assert_eq!(out.ecn, want, "id {id}");
                marked += (out.ecn == Ecn::Ect1) as usize;
            }
            // ¼ below 0.75 plus 0.2/0.25 of the next quarter: 0.45 of the ids.
            assert!((marked as f64 / 4096.0 - 0.45).abs() < 0.01, "{marked}");
        }
    }

    #[test]
    fn bad_keys_name_the_key_and_what_is_accepted() {
        let l = link("8Mbps", Limit::Packets(100));
        let err = |v| build(v, &l).err().expect("refused");
        let e = err(json!({"kind": "bmcc", "gamma": 1.5}));
        assert_eq!(e.path, "q.gamma");
        assert!(e.expected.contains("(0, 1]"), "{e}");
        assert_eq!(err(json!({"kind": "bmcc", "gamma": 0})).path, "q.gamma");
        assert_eq!(err(json!({"kind": "bmcc", "interval": "0s"})).path, "q.interval");
        assert_eq!(err(json!({"kind": "bmcc", "overload": "red"})).path, "q.overload");
        assert_eq!(err(json!({"kind": "bmcc", "ared": {}})).path, "q.ared");
        assert_eq!(
            err(json!({"kind": "bmcc", "inner": {"kind": "bmcc"}})).path,
            "q.inner.kind"
        );
        assert_eq!(
            err(json!({"kind": "bmcc", "inner": {"kind": "red", "max_th": 500}})).path,
            "q.inner.limit"
        );
        assert_eq!(
            err(json!({"kind": "bmcc", "overload": "ared", "ared": {"min_th": 50}})).path,
            "q.ared.limit"
        );
        assert_eq!(err(json!({"kind": "bmcc", "hash": "md5"})).path, "q.hash");
    }

    /// Any discipline underneath: on RED the marker counts arrivals RED drops.
    #[test]
    fn sits_on_any_discipline() {
        let l = link("8Mbps", Limit::Packets(100));
        let q = json!({"kind": "bmcc", "inner": {"kind": "red", "min_th": 2, "max_th": 6,
            "q_weight": 1, "queue_in_bytes": false, "byte_mode": false, "gentle": false,
            "use_mark_p": false}});
        let mut d = Drive::new(build(q, &l).unwrap());
        for i in 0..50 {
            d.enq(pkt(i, 0, 1000));
        }
        assert!(!d.dropped().is_empty(), "RED dropped");
        d.now = ms(200);
        d.deq();
        assert!(d.trace("load_factor") > 50_000.0 / 196_000.0 - 1e-12);
        assert!(d.trace("avg") > 0.0, "the inner discipline's trace follows");
    }
}
