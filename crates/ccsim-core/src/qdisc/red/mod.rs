//! RED (Floyd & Jacobson 1993) as ns-2.35 runs it (`queue/red.cc`,
//! `tcl/lib/ns-default.tcl`), with gentle RED (Floyd 2000), ECN marking
//! (RFC 3168 §5, ns-2 `setbit_`), and Adaptive RED (Floyd, Gummadi & Shenker
//! 2001, ns-2 `adaptive_ 1`), with ns-2.35's defaults (`use_mark_p_`, byte
//! mode, automatic parameters, gentle) and ARED's lower bound of max_p
//! (`REDQueue::initialize_params`). Model pages: docs/models/red.md,
//! docs/models/adaptive-red.md.
//!
//! The algorithm is [`Red`], a reusable helper (average, count, adaptation and
//! the per-arrival decision, Params separate from Vars) that other disciplines
//! can embed; [`RedQueue`] is RED on a FIFO.
//!
//! The scenario keys (`kind = "red"`, `"ared"`) and ns-2's automatic
//! parameters are read and resolved in `spec.rs`; the unit tests are in
//! `tests.rs`.
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
use super::{DropReason, Limit, MarkReason, Qdisc, QdiscCtx, TraceValue};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::units::{Rate, Time};

mod spec;
pub use spec::{read_ared, read_red, resolve};
pub(crate) use spec::{read_spec, Spec};

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
    fifo_methods!();
    fn trace(&self, out: &mut Vec<TraceValue>) {
        let r = &self.red;
        let p_b = if r.v.avg >= r.p.min_th { r.p_b(r.v.avg) } else { 0.0 };
        out.push(TraceValue::new("avg", r.v.avg));
        out.push(TraceValue::new("max_p", r.v.max_p));
        out.push(TraceValue::new("p_b", p_b));
    }
}

#[cfg(test)]
mod tests;
