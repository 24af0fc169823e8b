//! RED (Floyd & Jacobson 1993) as ns-2.35 runs it (`queue/red.cc`,
//! `tcl/lib/ns-default.tcl`), with gentle RED (Floyd 2000), ECN marking
//! (RFC 3168 §5, ns-2 `setbit_`), and Adaptive RED (Floyd, Gummadi & Shenker
//! 2001, ns-2 `adaptive_ 1`). Specs: baseline.md §3, §6; corrections.md (ns-2
//! `use_mark_p_`, byte mode, automatic parameters, ARED's lower bound).
//! Model page: docs/models/red.md.
//!
//! The algorithm is [`Red`], a reusable helper (average, count, adaptation and
//! the per-arrival decision, Params separate from Vars) that other disciplines
//! can embed; [`RedQueue`] is RED on a FIFO.
//!
//! Per arrival, in ns-2's order (`REDQueue::enque`):
//! 1. if the queue went idle (its transmitter finished the last queued packet
//!    at `idle_since`, before this arrival), pretend
//!    `m = floor(ptc·(now − idle_since))` packets arrived to the empty queue:
//!    `avg ← (1−w)^m·avg`; then `avg ← (1−w)·avg + w·q`, `q` the backlog before
//!    the arrival (packets, or bytes with `queue_in_bytes`); with ARED, adapt
//!    max_p if more than `interval` passed since it last changed;
//! 2. `count += 1` (`count_bytes += size`);
//! 3. if `avg ≥ min_th` and `q > 1`: a forced drop if `avg ≥ max_th` (gentle:
//!    `2·max_th`) and `use_mark_p` is off; else, the first time the average is
//!    above `min_th` (`old == 0`), no drop and `count = 1`; else a random
//!    decision with `p_b` = `max_p·(avg−min_th)/(max_th−min_th)` (gentle above
//!    `max_th`: from max_p to 1 at `2·max_th`; non-gentle: 1), spread by
//!    `count` (`wait`: `0` below `count·p_b = 1`, `p_b/(2−count·p_b)` below 2,
//!    else 1; otherwise F&J's `p_b/(1−count·p_b)`), byte mode scaling
//!    `p·size/mean_pktsize`; a signal marks an ECN-capable packet (when `ecn`,
//!    and with `use_mark_p` only while `p_b ≤ mark_p`) or drops it, and resets
//!    `count`; otherwise (`avg < min_th` or `q ≤ 1`) `old = 0`;
//! 4. a full buffer drops the arrival whatever the decision (and resets count).
//!
//! Deviations from ns-2.35 and choices:
//! * The buffer is the queue's `limit` (packets or bytes) and is never
//!   exceeded. ns-2 in `queue_in_bytes_` mode admits an arrival while the byte
//!   backlog is below `limit_ · mean_pktsize_` (overshooting by up to one
//!   packet); with packets of `mean_pktsize` and a byte limit of a whole number
//!   of them, the two agree.
//! * The victim of a forced drop is always the arrival (ns-2 `drop_tail_`, the
//!   default); `drop_front_`, `drop_rand_`, `cautious_`, `feng_adaptive_` and
//!   `idle_pktsize_` are not offered.
//! * `(1−w)^m` is computed with `powi`, not m multiplications (differences in
//!   the last bits only).
//! * As in ns-2, the gentle slope is fixed when the queue is built from the
//!   initial max_p, so under ARED the probability jumps at `max_th` once max_p
//!   has moved (ns-2 computes `v_c`, `v_d` in `reset()` only).

use super::PacketFifo;
use super::{DropReason, Limit, LinkInfo, MarkReason, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{Res, ScenarioError, Tab};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use serde_json::Value;
use std::sync::Arc;

/// Adaptive RED's settings (ns-2 names in brackets).
#[derive(Clone, Debug, PartialEq)]
pub struct Adaptive {
    /// Additive increase bound of max_p (`alpha_`, 0.01); the step is `min(alpha, max_p/4)`.
    pub alpha: f64,
    /// Multiplicative decrease factor of max_p (`beta_`, 0.9), in (0, 1).
    pub beta: f64,
    /// Least time between changes of max_p (`interval_`, 0.5 s).
    pub interval: Time,
    /// Upper bound of max_p (`top_`, 0.5).
    pub top: f64,
    /// Lower bound of max_p (`bottom_`; automatic: min(0.01, 80000 / C[bit/s])).
    pub bottom: f64,
}

/// RED's configuration, resolved for one link (thresholds in queue units).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Thresholds in packets (`thresh_`, `maxthresh_`).
    pub min_th_pkts: f64,
    pub max_th_pkts: f64,
    /// Thresholds in the unit of the average (bytes with `queue_in_bytes`).
    pub min_th: f64,
    pub max_th: f64,
    /// Initial max_p (`1 / linterm_`).
    pub max_p: f64,
    /// EWMA weight of the average (`q_weight_`, resolved).
    pub q_weight: f64,
    /// Mean packet size, bytes (`mean_pktsize_`).
    pub mean_pktsize: u32,
    /// Packets of mean size the link sends per second (`ptc`).
    pub ptc: f64,
    /// ns-2's inter-drop spreading (`wait_`) instead of F&J's.
    pub wait: bool,
    pub gentle: bool,
    /// Byte-mode probability: scale by `size / mean_pktsize` (`bytes_`).
    pub byte_mode: bool,
    /// Measure the queue, average and thresholds in bytes (`queue_in_bytes_`).
    pub queue_in_bytes: bool,
    /// Mark ECN-capable packets instead of dropping them (`setbit_`).
    pub ecn: bool,
    /// No forced drops by the average; mark only while `p_b ≤ mark_p` (`use_mark_p_`).
    pub use_mark_p: bool,
    pub mark_p: f64,
    pub adaptive: Option<Adaptive>,
}

/// RED's mutable state.
#[derive(Clone, Debug, PartialEq)]
pub struct Vars {
    /// Average queue (packets or bytes).
    pub avg: f64,
    /// Arrivals since the last mark or drop (and their bytes).
    pub count: u64,
    pub count_bytes: u64,
    /// ns-2's `old`: the average was already above min_th at the last arrival.
    pub old: bool,
    /// Current max_p (adapted by ARED).
    pub max_p: f64,
    /// Last time ARED changed max_p.
    pub lastset: Time,
    /// When the queue went (or goes) idle: the end of the serialization of
    /// the last packet dequeued, if no packet arrived since (ns-2 sets
    /// `idle_` when the link, free again, finds the queue empty).
    pub idle_since: Option<Time>,
    /// Last unmodified probability `p_b` computed (ns-2 `prob1_`).
    pub p_b: f64,
}

/// The decision for one arrival.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Pass,
    /// Set CE and queue the packet.
    Mark,
    /// Probabilistic ("unforced") drop.
    EarlyDrop,
    /// Forced drop (average above max_th, or 2·max_th when gentle).
    ForcedDrop,
}

/// The RED algorithm (reusable helper).
#[derive(Clone, Debug)]
pub struct Red {
    pub p: Params,
    pub v: Vars,
    /// Gentle line `p = v_c·avg + v_d`, fixed at build time (ns-2 `reset()`).
    v_c: f64,
    v_d: f64,
}

impl Red {
    pub fn new(p: Params) -> Red {
        let v_c = (1.0 - p.max_p) / p.max_th;
        let v_d = 2.0 * p.max_p - 1.0;
        let v = Vars {
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            max_p: p.max_p,
            lastset: Time::ZERO,
            idle_since: Some(Time::ZERO),
            p_b: 0.0,
        };
        Red { p, v, v_c, v_d }
    }

    /// The queue is empty and its transmitter free from `at` on (the end of
    /// the serialization of the packet just dequeued, or now if a dequeue
    /// found nothing).
    pub fn idle(&mut self, at: Time) {
        self.v.idle_since = Some(at);
    }

    /// Updates the average for an arrival that finds `q` waiting (in queue
    /// units), including the idle-time decay and ARED's adaptation.
    pub fn update_avg(&mut self, now: Time, q: f64) {
        let w = self.p.q_weight;
        // An arrival before the last serialization ended finds the link busy:
        // the queue was never idle (ns-2 had not yet seen it empty).
        if let Some(since) = self.v.idle_since.take().filter(|&s| now > s) {
            let m = (self.p.ptc * (now - since).as_secs_f64()) as u64;
            self.v.avg *= (1.0 - w).powi(m.min(i32::MAX as u64) as i32);
        }
        self.v.avg = self.v.avg * (1.0 - w) + w * q;
        if let Some(a) = &self.p.adaptive {
            if now > self.v.lastset + a.interval {
                self.adapt(now);
            }
        }
    }

    /// ARED's AIMD step of max_p towards the target band (ns-2 `updateMaxP`).
    fn adapt(&mut self, now: Time) {
        let a = self.p.adaptive.as_ref().expect("adaptive");
        let part = 0.4 * (self.p.max_th - self.p.min_th);
        let avg = self.v.avg;
        if avg < self.p.min_th + part && self.v.max_p > a.bottom {
            self.v.max_p *= a.beta;
            self.v.lastset = now;
        } else if avg > self.p.max_th - part && a.top > self.v.max_p {
            self.v.max_p += a.alpha.min(0.25 * self.v.max_p);
            self.v.lastset = now;
        }
    }

    /// The unmodified probability `p_b` at average `avg` (ns-2 `calculate_p_new`).
    pub fn p_b(&self, avg: f64) -> f64 {
        let p = if avg >= self.p.max_th {
            if self.p.gentle {
                self.v_c * avg + self.v_d
            } else {
                1.0
            }
        } else {
            (avg - self.p.min_th) / (self.p.max_th - self.p.min_th) * self.v.max_p
        };
        p.min(1.0)
    }

    /// `p_b` spread over the arrivals since the last signal (ns-2 `modify_p`).
    pub fn spread(&self, p_b: f64, size: u32) -> f64 {
        let count = if self.p.byte_mode {
            (self.v.count_bytes / self.p.mean_pktsize as u64) as f64
        } else {
            self.v.count as f64
        };
        let cp = count * p_b;
        let mut p = if self.p.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        if self.p.byte_mode && p < 1.0 {
            p = p * size as f64 / self.p.mean_pktsize as f64;
        }
        p.min(1.0)
    }

    /// RED's decision for an arrival of `size` bytes finding `q` waiting (queue
    /// units); `ect` if the packet is ECN-capable. Updates the average first.
    pub fn arrival(&mut self, now: Time, q: f64, size: u32, ect: bool, rng: &mut Rng) -> Decision {
        self.update_avg(now, q);
        self.v.count += 1;
        self.v.count_bytes += size as u64;
        let avg = self.v.avg;
        if !(avg >= self.p.min_th && q > 1.0) {
            self.v.old = false;
            return Decision::Pass;
        }
        let forced_at = if self.p.gentle {
            2.0 * self.p.max_th
        } else {
            self.p.max_th
        };
        if !self.p.use_mark_p && avg >= forced_at {
            self.signalled();
            return Decision::ForcedDrop;
        }
        if !self.v.old {
            // The average just crossed min_th: no drop, start counting.
            self.v.count = 1;
            self.v.count_bytes = size as u64;
            self.v.old = true;
            return Decision::Pass;
        }
        self.v.p_b = self.p_b(avg);
        let p = self.spread(self.v.p_b, size);
        if rng.uniform() > p {
            return Decision::Pass;
        }
        self.signalled();
        if self.p.ecn && ect && (!self.p.use_mark_p || self.v.p_b <= self.p.mark_p) {
            Decision::Mark
        } else {
            Decision::EarlyDrop
        }
    }

    /// Resets the count after a mark or drop (also for buffer overflow drops,
    /// as ns-2 does for every forced drop).
    pub fn signalled(&mut self) {
        self.v.count = 0;
        self.v.count_bytes = 0;
    }

    /// Long-run fraction of arrivals signalled (marked or dropped) while the
    /// average stays at `avg` in the early region, for packets of `size` bytes:
    /// `1 / E[X]`, X the arrivals from one signal to the next, with
    /// `P(X > n) = Π_{k=1..n} (1 − p_a(k))` and `p_a(k)` the spread probability
    /// at count k (ns-2's count restarts at 1 after a signal).
    pub fn signal_fraction(&self, avg: f64, size: u32) -> f64 {
        let p_b = self.p_b(avg);
        let mut probe = self.clone();
        let (mut survive, mut mean) = (1.0, 0.0);
        for k in 1..10_000_000u64 {
            mean += survive;
            probe.v.count = k;
            probe.v.count_bytes = k * size as u64;
            let p = probe.spread(p_b, size);
            survive *= 1.0 - p;
            if survive < 1e-15 {
                break;
            }
        }
        1.0 / mean
    }

    /// Queue measure in RED's unit.
    #[inline]
    pub fn measure(&self, pkts: usize, bytes: u64) -> f64 {
        if self.p.queue_in_bytes {
            bytes as f64
        } else {
            pkts as f64
        }
    }
}

/// RED on a FIFO.
pub struct RedQueue {
    q: PacketFifo,
    limit: Limit,
    /// The link's rate: the queue is idle once the packet dequeued last has
    /// been serialized.
    rate: Rate,
    kind: &'static str,
    red: Red,
}

impl RedQueue {
    pub fn new(kind: &'static str, limit: Limit, rate: Rate, p: Params) -> RedQueue {
        RedQueue {
            q: PacketFifo::default(),
            limit,
            rate,
            kind,
            red: Red::new(p),
        }
    }
    pub fn red(&self) -> &Red {
        &self.red
    }
}

impl Qdisc for RedQueue {
    fn kind(&self) -> &'static str {
        self.kind
    }
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        let q = self.red.measure(self.q.len(), self.q.bytes());
        let d = self.red.arrival(cx.now, q, pkt.size, pkt.ecn.is_ect(), cx.rng);
        if !self.q.admits(self.limit, pkt.size) {
            self.red.signalled();
            cx.drop(pkt, DropReason::Overflow);
            return None;
        }
        match d {
            Decision::EarlyDrop => {
                cx.drop(pkt, DropReason::Early);
                return None;
            }
            Decision::ForcedDrop => {
                cx.drop(pkt, DropReason::Forced);
                return None;
            }
            Decision::Mark => {
                pkt.ecn = Ecn::Ce;
                cx.mark(MarkReason::Early);
            }
            Decision::Pass => {}
        }
        Some(self.q.push(pkt))
    }
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet> {
        let p = self.q.pop();
        match &p {
            // The last packet leaves: the link is idle once it is serialized,
            // unless another arrives first (the engine does not dequeue an
            // empty queue, so this is where RED learns of the idle period).
            Some(last) if self.q.is_empty() => self.red.idle(cx.now + self.rate.tx_time(last.size as u64)),
            Some(_) => {}
            // Found empty: idle from now, unless already known to be.
            None if self.red.v.idle_since.is_none() => self.red.idle(cx.now),
            None => {}
        }
        p
    }
    fn peek(&self) -> Option<&Packet> {
        self.q.front()
    }
    fn backlog_packets(&self) -> usize {
        self.q.len()
    }
    fn backlog_bytes(&self) -> u64 {
        self.q.bytes()
    }
    fn limit(&self) -> Limit {
        self.limit
    }
    fn trace(&self, out: &mut Vec<TraceValue>) {
        let r = &self.red;
        let p_b = if r.v.avg >= r.p.min_th { r.p_b(r.v.avg) } else { 0.0 };
        out.push(TraceValue::new("avg", r.v.avg));
        out.push(TraceValue::new("max_p", r.v.max_p));
        out.push(TraceValue::new("p_b", p_b));
    }
}

// ----- scenario

/// A threshold or weight given as a number or left to ns-2's automatic rule.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Auto {
    Auto,
    Value(f64),
}

/// RED's keys as read (automatic values resolved per link in `build`).
#[derive(Debug)]
pub(crate) struct Spec {
    kind: &'static str,
    min_th: Auto,
    max_th: Auto,
    max_p: f64,
    /// A weight in (0, 1], or ns-2's automatic codes 0 and -1.
    q_weight: f64,
    mean_pktsize: u64,
    target_delay: Time,
    wait: bool,
    gentle: bool,
    byte_mode: bool,
    queue_in_bytes: bool,
    ecn: bool,
    use_mark_p: bool,
    mark_p: f64,
    adaptive: Option<(f64, f64, Time, f64, Auto)>,
}

/// A number in (lo, hi] (`lo` excluded).
fn open_closed(t: &mut Tab, key: &'static str, default: f64, lo: f64, hi: f64) -> Res<f64> {
    let bad = |t: &Tab, v: &Value| t.error(key, v, format!("a number in ({lo}, {hi}]"));
    let x = match t.raw(key) {
        None => default,
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && *x > lo && *x <= hi)
            .ok_or_else(|| bad(t, v))?,
    };
    t.put(key, Value::from(x));
    Ok(x)
}

/// A threshold in packets (> 0), or "auto" (also ns-2's 0).
fn threshold(t: &mut Tab, key: &'static str) -> Res<Auto> {
    let expected = "a number of packets > 0, or \"auto\" (also 0, ns-2's automatic setting)";
    let a = match t.raw(key) {
        None => Auto::Auto,
        Some(Value::String(s)) if s == "auto" => Auto::Auto,
        Some(v) => match v.as_f64().filter(|x| x.is_finite() && *x >= 0.0) {
            Some(0.0) => Auto::Auto,
            Some(x) => Auto::Value(x),
            None => return Err(t.error(key, v, expected)),
        },
    };
    t.put(key, auto_value(a));
    Ok(a)
}

fn auto_value(a: Auto) -> Value {
    match a {
        Auto::Auto => Value::String("auto".into()),
        Auto::Value(x) => Value::from(x),
    }
}

/// Reads RED's keys (with ARED's when `adaptive`) from `t`; other disciplines
/// that embed [`Red`] read their RED table with it.
pub(crate) fn read_spec(t: &mut Tab, kind: &'static str, adaptive: bool) -> Res<Spec> {
    let min_th = threshold(t, "min_th")?;
    let max_th = threshold(t, "max_th")?;
    let max_p = open_closed(t, "max_p", 0.1, 0.0, 1.0)?;
    let qw_default = if adaptive { 0.0 } else { -1.0 };
    let q_weight = match t.raw("q_weight") {
        None => qw_default,
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && ((*x > 0.0 && *x <= 1.0) || *x == 0.0 || *x == -1.0))
            .ok_or_else(|| {
                t.error(
                    "q_weight",
                    v,
                    "a number in (0, 1], or 0 (1 − exp(−1/C), C in packets/s) or -1 (ns-2's RTT-based rule)",
                )
            })?,
    };
    t.put("q_weight", Value::from(q_weight));
    let mean_pktsize = t.size("mean_pktsize", Some("500B"))?;
    if mean_pktsize == 0 || mean_pktsize > 65_535 {
        return Err(t.error(
            "mean_pktsize",
            &Value::from(mean_pktsize),
            "a size between 1 B and 65535 B",
        ));
    }
    let target_delay = t.time("target_delay", Some("5ms"))?;
    if target_delay == Time::ZERO {
        return Err(t.error("target_delay", &Value::from("0s"), "a positive time such as \"5ms\""));
    }
    let wait = t.boolean("wait", true)?;
    let gentle = t.boolean("gentle", true)?;
    let byte_mode = t.boolean("byte_mode", true)?;
    let queue_in_bytes = t.boolean("queue_in_bytes", true)?;
    let ecn = t.boolean("ecn", false)?;
    let use_mark_p = t.boolean("use_mark_p", true)?;
    let mark_p = open_closed(t, "mark_p", 0.1, 0.0, 1.0)?;
    let adaptive = if adaptive {
        let alpha = open_closed(t, "alpha", 0.01, 0.0, 1.0)?;
        let beta = open_closed(t, "beta", 0.9, 0.0, 1.0)?;
        if beta == 1.0 {
            return Err(t.error("beta", &Value::from(1.0), "a number in (0, 1)"));
        }
        let interval = t.time("interval", Some("0.5s"))?;
        if interval == Time::ZERO {
            return Err(t.error("interval", &Value::from("0s"), "a positive time such as \"0.5s\""));
        }
        let top = open_closed(t, "top", 0.5, 0.0, 1.0)?;
        let bottom = match t.raw("bottom") {
            None => Auto::Auto,
            Some(Value::String(s)) if s == "auto" => Auto::Auto,
            Some(v) => match v.as_f64().filter(|x| x.is_finite() && *x > 0.0 && *x <= top) {
                Some(x) => Auto::Value(x),
                None => {
                    return Err(t.error(
                        "bottom",
                        v,
                        format!("a number in (0, top = {top}], or \"auto\" (min(0.01, 80000 / C[bit/s]))"),
                    ))
                }
            },
        };
        t.put("bottom", auto_value(bottom));
        Some((alpha, beta, interval, top, bottom))
    } else {
        None
    };
    Ok(Spec {
        kind,
        min_th,
        max_th,
        max_p,
        q_weight,
        mean_pktsize,
        target_delay,
        wait,
        gentle,
        byte_mode,
        queue_in_bytes,
        ecn,
        use_mark_p,
        mark_p,
        adaptive,
    })
}

/// `kind = "red"`: RED with ns-2.35's defaults.
pub fn read_red(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    Ok(Arc::new(read_spec(t, "red", false)?))
}

/// `kind = "ared"`: Adaptive RED (RED keys plus alpha, beta, interval, top, bottom).
pub fn read_ared(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    Ok(Arc::new(read_spec(t, "ared", true)?))
}

impl Spec {
    /// Resolves the automatic settings for `link` (ns-2 `initialize_params`).
    pub(crate) fn params(&self, link: &LinkInfo) -> Res<Params> {
        let bw = link.rate.0 as f64;
        let ptc = bw / (8.0 * self.mean_pktsize as f64);
        let min_pkts = match self.min_th {
            Auto::Value(x) => x,
            Auto::Auto => (self.target_delay.as_secs_f64() * ptc / 2.0).max(5.0),
        };
        let max_pkts = match self.max_th {
            Auto::Value(x) => x,
            Auto::Auto => 3.0 * min_pkts,
        };
        if min_pkts >= max_pkts {
            return Err(link.error(
                "max_th",
                format!("{max_pkts}"),
                format!("a threshold above min_th ({min_pkts} packets)"),
            ));
        }
        let room = match link.limit {
            Limit::Packets(n) => Some(n as f64),
            Limit::Bytes(b) => Some(b as f64 / self.mean_pktsize as f64),
            Limit::Unlimited => None,
        };
        if room.is_some_and(|r| r < max_pkts) {
            return Err(link.error(
                "limit",
                link.limit_str(),
                format!(
                    "a buffer of at least max_th = {max_pkts} packets of mean_pktsize {} B (min_th {min_pkts})",
                    self.mean_pktsize
                ),
            ));
        }
        let q_weight = if self.q_weight == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if self.q_weight == -1.0 {
            let rtt = (3.0 * (link.delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        } else {
            self.q_weight
        };
        let unit = if self.queue_in_bytes {
            self.mean_pktsize as f64
        } else {
            1.0
        };
        let adaptive = self.adaptive.map(|(alpha, beta, interval, top, bottom)| Adaptive {
            alpha,
            beta,
            interval,
            top,
            bottom: match bottom {
                Auto::Value(x) => x,
                Auto::Auto => 0.01f64.min(80_000.0 / bw),
            },
        });
        Ok(Params {
            min_th_pkts: min_pkts,
            max_th_pkts: max_pkts,
            min_th: min_pkts * unit,
            max_th: max_pkts * unit,
            max_p: self.max_p,
            q_weight,
            mean_pktsize: self.mean_pktsize as u32,
            ptc,
            wait: self.wait,
            gentle: self.gentle,
            byte_mode: self.byte_mode,
            queue_in_bytes: self.queue_in_bytes,
            ecn: self.ecn,
            use_mark_p: self.use_mark_p,
            mark_p: self.mark_p,
            adaptive,
        })
    }
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(RedQueue::new(
            self.kind,
            link.limit,
            link.rate,
            self.params(link)?,
        )))
    }
}

/// Resolved RED parameters of a queue table (`kind` "red" or "ared"; a
/// `limit` key is ignored, the link's is used) for a link: the automatic
/// settings ns-2 would pick (for tests and tools).
pub fn resolve(v: &Value, link: &LinkInfo) -> Result<Params, ScenarioError> {
    let mut t = Tab::new(link.path.clone(), v)?;
    t.raw("limit");
    let kind = t.choice("kind", None, &["red", "ared"])?;
    let spec = if kind == "ared" {
        read_spec(&mut t, "ared", true)?
    } else {
        read_spec(&mut t, "red", false)?
    };
    t.finish()?;
    spec.params(link)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use serde_json::json;

    /// Classic early-era settings: thresholds 5/15 packets, max_p 0.1, w 0.002,
    /// packet mode, 10 Mbps with 1000-B mean packets (ptc 1250/s).
    fn classic() -> Params {
        Params {
            min_th_pkts: 5.0,
            max_th_pkts: 15.0,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            q_weight: 0.002,
            mean_pktsize: 1000,
            ptc: 1250.0,
            wait: true,
            gentle: false,
            byte_mode: false,
            queue_in_bytes: false,
            ecn: false,
            use_mark_p: false,
            mark_p: 0.1,
            adaptive: None,
        }
    }

    fn at(ms: f64) -> Time {
        Time::from_secs_f64(ms / 1000.0)
    }

    #[test]
    fn average_is_the_ewma_of_the_backlog_before_each_arrival() {
        let mut r = Red::new(classic());
        let mut rng = Rng::new(1, 0);
        let mut want = 0.0f64;
        for (i, q) in [0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0].iter().enumerate() {
            r.arrival(at(i as f64 * 0.1), *q, 1000, false, &mut rng);
            want = 0.998 * want + 0.002 * q;
            assert!((r.v.avg - want).abs() < 1e-15, "{} vs {want}", r.v.avg);
        }
        assert!((r.v.avg - 0.105_712_607_088_895).abs() < 1e-14);
    }

    /// The engine never dequeues an empty queue, so RED learns of an idle
    /// link from the dequeue of its last packet: idle from the end of that
    /// packet's serialization (ns-2: the link, free again, finds the queue
    /// empty). 10 Mb/s, 1000-B packets: 0.8 ms each; ptc = 1250/s.
    #[test]
    fn the_link_is_idle_from_the_end_of_the_last_serialization() {
        let keys = json!({"kind": "red", "min_th": 5, "max_th": 15, "q_weight": 0.002,
            "mean_pktsize": "1000B", "queue_in_bytes": false, "byte_mode": false});
        let run = |later: Time| {
            let mut d = Drive::new(build(keys.clone(), &link("10Mbps", Limit::Packets(100))).unwrap());
            for uid in 0..3 {
                d.enq(pkt(uid, 0, 1000));
            }
            d.drain();
            let before = d.trace("avg");
            d.now = later;
            d.enq(pkt(9, 0, 1000));
            (before, d.trace("avg"))
        };
        // Arrival while the last packet is still being serialized: no decay.
        let (avg, busy) = run(at(0.5));
        assert!((avg - (0.002 * 0.998 + 0.002 * 2.0)).abs() < 1e-15);
        assert!((busy - 0.998 * avg).abs() < 1e-15, "{busy}");
        // One second later: m = floor(1250 · (1 − 0.0008)) = 1249 empty arrivals.
        let (avg, idle) = run(Time::from_secs(1));
        assert!((idle - avg * 0.998f64.powi(1250)).abs() < 1e-15, "{idle}");
    }

    #[test]
    fn an_idle_period_decays_the_average_by_m_plus_one_factors() {
        // Idle from 1 s to 1.0123 s at ptc = 1250/s: m = floor(15.375) = 15,
        // avg = 10·0.998^15 then one more update with q = 0.
        let mut r = Red::new(classic());
        r.v.avg = 10.0;
        r.v.idle_since = None;
        r.idle(Time::from_secs(1));
        r.update_avg(Time::from_secs_f64(1.0123), 0.0);
        assert!((r.v.avg - 10.0 * 0.998f64.powi(16)).abs() < 1e-12, "{}", r.v.avg);
        // Not idle any more: the next arrival applies one factor only.
        r.update_avg(Time::from_secs(2), 4.0);
        assert!((r.v.avg - (10.0 * 0.998f64.powi(17) + 0.002 * 4.0)).abs() < 1e-12);
    }

    #[test]
    fn first_crossing_of_min_th_never_drops_and_restarts_the_count() {
        let mut r = Red::new(classic());
        let mut rng = Rng::new(1, 0);
        r.v.avg = 14.0;
        r.v.idle_since = None;
        r.v.count = 40;
        r.p.q_weight = 1e-12; // hold the average
        assert_eq!(r.arrival(at(1.0), 14.0, 1000, false, &mut rng), Decision::Pass);
        assert_eq!((r.v.count, r.v.old), (1, true));
        // At most one packet waiting: never an early drop, and `old` resets.
        assert_eq!(r.arrival(at(2.0), 1.0, 1000, false, &mut rng), Decision::Pass);
        assert!(!r.v.old);
    }

    #[test]
    fn wait_spreading_keeps_at_least_one_over_p_b_arrivals_between_drops() {
        // ns-2 wait_: 0 while count·p_b < 1, p_b/(2 − count·p_b) below 2, then 1.
        let mut r = Red::new(classic());
        for (count, want) in [
            (5, 0.0),
            (9, 0.0),
            (10, 0.1),
            (15, 0.2),
            (19, 0.1 / 0.1),
            (20, 1.0),
            (25, 1.0),
        ] {
            r.v.count = count;
            assert!((r.spread(0.1, 1000) - want).abs() < 1e-12, "count {count}");
        }
        // Floyd & Jacobson: p_b/(1 − count·p_b), 1 from count·p_b = 1 on.
        r.p.wait = false;
        for (count, want) in [(0, 0.1), (5, 0.2), (8, 0.5), (10, 1.0)] {
            r.v.count = count;
            assert!((r.spread(0.1, 1000) - want).abs() < 1e-12, "count {count}");
        }
    }

    #[test]
    fn drop_probability_function_hand_worked() {
        // baseline.md: linterm 50, min_th 40, max_th 80, avg 60 ⇒ p_b = 0.01.
        let mut p = classic();
        (p.min_th, p.max_th, p.max_p) = (40.0, 80.0, 0.02);
        assert!((Red::new(p).p_b(60.0) - 0.01).abs() < 1e-15);
        // Gentle: from max_p at max_th to 1 at 2·max_th, 1 beyond.
        let mut g = classic();
        g.gentle = true;
        let r = Red::new(g);
        for (avg, want) in [(10.0, 0.05), (15.0, 0.1), (22.5, 0.55), (30.0, 1.0), (40.0, 1.0)] {
            assert!((r.p_b(avg) - want).abs() < 1e-12, "avg {avg}: {}", r.p_b(avg));
        }
        assert_eq!(Red::new(classic()).p_b(15.0), 1.0, "not gentle: 1 from max_th on");
    }

    fn decide(p: Params, avg: f64, ect: bool) -> Decision {
        let mut r = Red::new(p);
        r.v.avg = avg;
        r.v.idle_since = None;
        r.v.old = true;
        r.v.count = 1000; // past any spreading: p = 1 when p_b > 0
        r.p.q_weight = 1e-12;
        r.arrival(at(1.0), avg, 1000, ect, &mut Rng::new(1, 0))
    }

    #[test]
    fn forced_drops_above_max_th_or_twice_it_when_gentle() {
        assert_eq!(decide(classic(), 15.0, true), Decision::ForcedDrop);
        let mut g = classic();
        g.gentle = true;
        assert_eq!(decide(g.clone(), 29.9, false), Decision::EarlyDrop);
        assert_eq!(decide(g.clone(), 30.0, false), Decision::ForcedDrop);
        // setbit_: unforced decisions mark ECN-capable packets, forced ones drop them.
        g.ecn = true;
        assert_eq!(decide(g.clone(), 20.0, true), Decision::Mark);
        assert_eq!(decide(g.clone(), 20.0, false), Decision::EarlyDrop);
        assert_eq!(decide(g, 30.0, true), Decision::ForcedDrop);
    }

    #[test]
    fn use_mark_p_marks_below_mark_p_drops_above_and_never_forces() {
        let mut p = classic();
        (p.gentle, p.ecn, p.use_mark_p) = (true, true, true);
        assert_eq!(decide(p.clone(), 14.0, true), Decision::Mark, "p_b 0.09 ≤ mark_p");
        assert_eq!(decide(p.clone(), 15.0, true), Decision::Mark, "p_b = mark_p");
        assert_eq!(decide(p.clone(), 16.0, true), Decision::EarlyDrop, "p_b 0.16 > mark_p");
        assert_eq!(decide(p.clone(), 45.0, true), Decision::EarlyDrop, "no forced drop");
        assert_eq!(decide(p, 45.0, false), Decision::EarlyDrop);
    }

    #[test]
    fn byte_mode_counts_bytes_and_scales_by_size() {
        let mut p = classic();
        p.byte_mode = true;
        let mut r = Red::new(p);
        // count_bytes / mean_pktsize is an integer division (ns-2 ints).
        r.v.count_bytes = 14_999;
        assert!((r.spread(0.1, 500) - 0.1 / (2.0 - 1.4) * 0.5).abs() < 1e-12);
        r.v.count_bytes = 9_999;
        assert_eq!(r.spread(0.1, 1000), 0.0);
    }

    #[test]
    fn adaptive_red_automatic_parameters_at_45_mbps() {
        // baseline.md: 45 Mbps, 1000-B packets: min_th = max(5, 0.005·5625/2)
        // = 14.0625, max_th = 42.1875, w_q = 1 − e^(−1/5625); bottom = 80000/C.
        let l = link("45Mbps", Limit::Packets(100));
        let p = resolve(
            &json!({"kind": "ared", "mean_pktsize": 1000, "queue_in_bytes": false}),
            &l,
        )
        .unwrap();
        assert_eq!((p.min_th, p.max_th), (14.0625, 42.1875));
        assert!((p.q_weight - (1.0 - (-1.0f64 / 5625.0).exp())).abs() < 1e-18);
        let a = p.adaptive.unwrap();
        assert!((a.bottom - 80_000.0 / 45e6).abs() < 1e-15, "{}", a.bottom);
        assert_eq!(
            (a.alpha, a.beta, a.interval, a.top),
            (0.01, 0.9, Time::from_millis(500), 0.5)
        );
        // In bytes (ns-2.35 default), thresholds scale by mean_pktsize.
        let b = resolve(&json!({"kind": "ared", "mean_pktsize": 1000}), &l).unwrap();
        assert_eq!((b.min_th, b.max_th), (14_062.5, 42_187.5));
    }

    #[test]
    fn q_weight_automatic_rules_of_ns2() {
        // -1 (ns-2.35 default): RTT = max(0.1 s, 3·(delay + 1/ptc)), w = 1 − exp(−1/(10·RTT·ptc)).
        let l = link("10Mbps", Limit::Packets(100)); // 10 ms delay, ptc = 2500 with 500-B packets
        let p = resolve(&json!({"kind": "red"}), &l).unwrap();
        assert!((p.q_weight - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
        let mut slow = link("1Mbps", Limit::Packets(100));
        slow.delay = Time::from_millis(100); // RTT 3·(0.1 + 0.004) = 0.312 s, ptc 250
        let p = resolve(&json!({"kind": "red"}), &slow).unwrap();
        assert!((p.q_weight - (1.0 - (-1.0f64 / (10.0 * 0.312 * 250.0)).exp())).abs() < 1e-15);
        // 0: 1 − exp(−1/ptc); explicit values are kept.
        let p = resolve(&json!({"kind": "red", "q_weight": 0}), &l).unwrap();
        assert!((p.q_weight - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
        assert_eq!(
            resolve(&json!({"kind": "red", "q_weight": 0.002}), &l)
                .unwrap()
                .q_weight,
            0.002
        );
        // Automatic thresholds: max(5, 5 ms · 2500 / 2 = 6.25), max_th = 3·min_th.
        let p = resolve(&json!({"kind": "red", "queue_in_bytes": false}), &l).unwrap();
        assert_eq!((p.min_th, p.max_th, p.max_p), (6.25, 18.75, 0.1));
    }

    /// ARED with thresholds 5/15: target band [9, 11].
    fn ared() -> Red {
        let mut p = classic();
        p.gentle = true;
        p.q_weight = 1e-12;
        p.adaptive = Some(Adaptive {
            alpha: 0.01,
            beta: 0.9,
            interval: Time::from_millis(500),
            top: 0.5,
            bottom: 0.01,
        });
        let mut r = Red::new(p);
        r.v.idle_since = None;
        r
    }

    #[test]
    fn adaptive_red_steps_max_p_at_most_every_interval() {
        let mut r = ared();
        r.v.avg = 12.0; // above the band
        r.update_avg(at(400.0), 12.0);
        assert_eq!(r.v.max_p, 0.1, "not before 0.5 s");
        r.update_avg(at(501.0), 12.0);
        assert!((r.v.max_p - 0.11).abs() < 1e-15, "+ min(0.01, max_p/4)");
        r.update_avg(at(900.0), 12.0);
        assert!((r.v.max_p - 0.11).abs() < 1e-15, "0.5 s after the last change");
        r.update_avg(at(1002.0), 12.0);
        assert!((r.v.max_p - 0.12).abs() < 1e-15);
        // Inside the band nothing changes, and the clock of the last change stays.
        r.v.avg = 10.0;
        r.update_avg(at(2000.0), 10.0);
        assert!((r.v.max_p - 0.12).abs() < 1e-15);
        // Below the band: × 0.9 at the next arrival (no new wait: the last change is old).
        r.v.avg = 8.0;
        r.update_avg(at(2001.0), 8.0);
        assert!((r.v.max_p - 0.108).abs() < 1e-15);
        // Small max_p: the increase is max_p / 4.
        r.v.max_p = 0.02;
        r.v.avg = 12.0;
        r.update_avg(at(3000.0), 12.0);
        assert!((r.v.max_p - 0.025).abs() < 1e-15);
    }

    #[test]
    fn adaptive_red_bounds_are_checked_before_a_step_as_in_ns2() {
        let mut r = ared();
        r.v.avg = 12.0;
        r.v.max_p = 0.495;
        r.update_avg(at(600.0), 12.0);
        assert!((r.v.max_p - 0.505).abs() < 1e-15, "top > max_p allows one last step");
        r.update_avg(at(1200.0), 12.0);
        assert!((r.v.max_p - 0.505).abs() < 1e-15, "then no more");
        r.v.avg = 6.0;
        r.v.max_p = 0.0105;
        r.update_avg(at(1800.0), 6.0);
        assert!(
            (r.v.max_p - 0.00945).abs() < 1e-15,
            "max_p > bottom allows one step below"
        );
        r.update_avg(at(2400.0), 6.0);
        assert!((r.v.max_p - 0.00945).abs() < 1e-15);
    }

    fn red_queue(extra: Value, limit: Limit) -> Drive {
        let mut v = json!({"kind": "red", "min_th": 5, "max_th": 15, "q_weight": 0.002,
            "mean_pktsize": 1000, "queue_in_bytes": false, "byte_mode": false, "gentle": false,
            "use_mark_p": false});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        Drive::new(build(v, &link("10Mbps", limit)).unwrap())
    }

    #[test]
    fn queue_drops_by_reason_and_traces_its_state() {
        // w = 1: the average is the backlog found by each arrival. Arrivals
        // 0..4 find less than min_th, arrival 5 is the first crossing (no drop),
        // 6..14 have count·p_b < 1 (wait_: no drop), 15 and 16 find avg = 15 =
        // max_th: forced drops, even though they are ECN-capable.
        let mut d = red_queue(json!({"q_weight": 1.0, "ecn": true}), Limit::Packets(20));
        for i in 0..17 {
            let mut p = pkt(i, 0, 1000);
            p.ecn = Ecn::Ect0;
            d.enq(p);
        }
        assert_eq!(d.dropped(), vec![(15, DropReason::Forced), (16, DropReason::Forced)]);
        assert!(d.marks.is_empty());
        assert_eq!((d.trace("avg"), d.trace("max_p"), d.trace("p_b")), (15.0, 0.1, 1.0));
        // With w = 0.002 the average stays low: only the full buffer drops.
        let mut d = red_queue(json!({}), Limit::Packets(15));
        for i in 0..16 {
            d.enq(pkt(i, 0, 1000));
        }
        assert_eq!(d.dropped(), vec![(15, DropReason::Overflow)]);
        assert_eq!(d.drain(), (0..15).collect::<Vec<_>>());
    }

    #[test]
    fn queue_marks_set_ce_and_count() {
        let mut d = red_queue(
            json!({"q_weight": 1.0, "ecn": true, "gentle": true}),
            Limit::Packets(40),
        );
        for i in 0..40 {
            let mut p = pkt(i, 0, 1000);
            p.ecn = Ecn::Ect0;
            d.enq(p);
        }
        assert!(!d.marks.is_empty(), "the gentle region marks ECN-capable arrivals");
        assert!(d.marks.iter().all(|m| *m == MarkReason::Early));
        let ce = std::iter::from_fn(|| d.deq()).filter(|p| p.ecn == Ecn::Ce).count();
        assert_eq!(ce, d.marks.len());
        assert!(
            d.dropped().iter().all(|x| x.1 == DropReason::Forced),
            "no early drops of ECT packets"
        );
    }

    #[test]
    fn marks_replace_drops_one_for_one_for_ecn_capable_packets() {
        // The same arrivals and random stream with and without ECT: every early
        // drop of the plain run is a mark in the ECN run, on the same packet.
        let run = |ect: bool| {
            let mut r = Red::new(Params {
                ecn: true,
                q_weight: 1e-12,
                ..classic()
            });
            (r.v.avg, r.v.idle_since, r.v.old) = (10.0, None, true);
            let mut rng = Rng::new(9, 0);
            (0..20_000)
                .map(|i| r.arrival(at(i as f64), 10.0, 1000, ect, &mut rng))
                .collect::<Vec<_>>()
        };
        let (plain, ecn) = (run(false), run(true));
        let drops: Vec<usize> = (0..plain.len()).filter(|&i| plain[i] == Decision::EarlyDrop).collect();
        let marks: Vec<usize> = (0..ecn.len()).filter(|&i| ecn[i] == Decision::Mark).collect();
        assert_eq!(drops, marks);
        assert!(drops.len() > 500, "{}", drops.len());
        assert!(!ecn.contains(&Decision::EarlyDrop));
    }

    #[test]
    fn signalled_fraction_at_a_fixed_average_matches_the_probability_function() {
        // Exponential packet sizes and Poisson arrival times (which RED ignores
        // while the average is fixed), 400 000 arrivals per case; theory is
        // 1/E[X] from the spread probability (exact sum), checked within
        // 4 standard errors (binomial, with the spacing's variance below it).
        for (wait, gentle, avg) in [
            (true, false, 7.0),
            (true, false, 12.0),
            (false, false, 10.0),
            (true, true, 20.0),
        ] {
            let mut p = Params {
                wait,
                gentle,
                q_weight: 1e-12,
                ..classic()
            };
            p.ecn = false;
            let mut r = Red::new(p);
            (r.v.avg, r.v.idle_since, r.v.old) = (avg, None, true);
            let theory = r.signal_fraction(avg, 1000);
            let mut rng = Rng::new(11, 0);
            let (n, mut t, mut signals) = (400_000, 0.0, 0u64);
            for _ in 0..n {
                t += rng.exp(1e-3);
                if r.arrival(Time::from_secs_f64(t), avg, 1000, false, &mut rng) != Decision::Pass {
                    signals += 1;
                }
            }
            let got = signals as f64 / n as f64;
            let se = (theory * (1.0 - theory) / n as f64).sqrt();
            assert!(
                (got - theory).abs() < 4.0 * se,
                "wait {wait} gentle {gentle} avg {avg}: {got} vs {theory}"
            );
        }
    }

    fn err(v: Value, limit: Limit) -> String {
        build(v, &link("10Mbps", limit)).err().expect("an error").to_string()
    }

    #[test]
    fn bad_parameters_are_one_line_errors_naming_the_key() {
        let l = Limit::Packets(100);
        assert_eq!(
            err(json!({"kind": "red", "min_th": 20, "max_th": 10}), l),
            "q.max_th: got 10, expected a threshold above min_th (20 packets)"
        );
        assert_eq!(
            err(json!({"kind": "red", "max_p": 0}), l),
            "q.max_p: got 0, expected a number in (0, 1]"
        );
        assert_eq!(
            err(json!({"kind": "red", "max_p": 1.5}), l),
            "q.max_p: got 1.5, expected a number in (0, 1]"
        );
        assert!(err(json!({"kind": "red", "q_weight": 1.5}), l)
            .starts_with("q.q_weight: got 1.5, expected a number in (0, 1], or 0"));
        assert!(err(json!({"kind": "red", "q_weight": -0.5}), l).starts_with("q.q_weight: got -0.5"));
        assert_eq!(
            err(json!({"kind": "red", "min_th": 5, "max_th": 15}), Limit::Packets(10)),
            "q.limit: got \"10pkt\", expected a buffer of at least max_th = 15 packets of mean_pktsize 500 B (min_th 5)"
        );
        assert!(
            err(json!({"kind": "red", "min_th": 5, "max_th": 15}), Limit::Bytes(7000))
                .starts_with("q.limit: got \"7000B\"")
        );
        assert_eq!(
            err(json!({"kind": "red", "mean_pktsize": 0}), l),
            "q.mean_pktsize: got 0, expected a size between 1 B and 65535 B"
        );
        assert!(err(json!({"kind": "red", "minth": 5}), l)
            .starts_with("q.minth: unknown key; did you mean \"min_th\"? accepted keys here:"));
        assert!(err(json!({"kind": "ared", "beta": 1}), l).starts_with("q.beta: got 1"));
        assert!(err(json!({"kind": "ared", "bottom": 0.7}), l)
            .starts_with("q.bottom: got 0.7, expected a number in (0, top = 0.5]"));
        assert!(
            err(json!({"kind": "red", "alpha": 0.1}), l).starts_with("q.alpha: unknown key"),
            "ARED keys only for ared"
        );
        // ns-2's 0 means automatic for the thresholds and the weight.
        assert!(build(
            json!({"kind": "red", "min_th": 0, "max_th": 0, "q_weight": 0}),
            &link("10Mbps", l)
        )
        .is_ok());
    }
}
