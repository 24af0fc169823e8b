//! PIE, Proportional Integral controller Enhanced (RFC 8033, R. Pan, P.
//! Natarajan, F. Baker, G. White, 2017), as RFC 8033 §4–5 describe it and
//! Linux `net/sched/sch_pie.c` / `include/net/pie.h` run it by default.
//! Model page: docs/models/pie.md.
//!
//! * Queue delay (§4.3): from timestamps, Linux's default
//!   (`dq_rate_estimator` off): the sojourn time of the packet last
//!   dequeued, 0 once the queue is empty. (The RFC's departure-rate estimate
//!   of §5.2 is not modelled.)
//! * Every `t_update` (§4.2) the drop probability moves by
//!   `alpha·(qdelay − target) + beta·(qdelay − qdelay_old)`, with alpha and
//!   beta scaled down while p is small (§4.2 auto-tuning: ÷2 below 10 %, ÷8
//!   below 1 %, ÷32 below 0.1 %, ÷128, ÷512, ÷2048 below 10⁻⁶); an increase
//!   is capped at 2 % once p ≥ 10 %; p gains 2 % while qdelay > 250 ms; p
//!   decays by 1/64 (Linux; the RFC: ×0.98) after two updates with zero delay;
//!   p stays in [0, 1].
//! * Burst tolerance (§4.4): no early drop while `burst_allowance` > 0; it
//!   starts at `max_burst`, loses `t_update` per update, and is restored
//!   when p = 0 and both qdelay and qdelay_old are below target/2 (Linux
//!   `pie_vars_init` at such an update). With `burst = "ns3"`, ns-3's
//!   `PieQueueDisc`: the allowance is armed by the first early-drop test of a
//!   burst period (the first arrival, then the first after a period ends), p
//!   is held at 0 while it lasts, and a period ends only after
//!   `BURST_RESET_TIMEOUT` = 1.5 s of such light updates once it has run out
//!   (`IN_BURST_PROTECTING` → `IN_BURST` → `NO_BURST`). A queue that builds
//!   less than 1.5 s after the last light spell (a slow start's overshoot)
//!   is then not protected, where the RFC's rule gives it 150 ms.
//! * Early drop at enqueue (§4.1, §5.1 with Linux's choices): none while the
//!   delay is below target/2 and p < 20 %, or while the queue holds less
//!   than two `mtu`; otherwise de-randomized (§5.1: no drop while the
//!   accumulated probability is below 0.85, always at 8.5) and else with
//!   probability p. De-randomization is on by default, as Linux always runs
//!   it; `derandomize = false` drops with probability p alone (the RFC's
//!   option left out, as ns-3's `PieQueueDisc` does by default). With `ecn`, an ECN-capable packet is marked instead
//!   while p ≤ 10 % (§5.1).
//!
//! The periodic update needs no timer: the inputs of an update (the delay
//! of the last departure, the backlog) change only at enqueue and dequeue,
//! so the updates due since the last event are run, in order, before each
//! enqueue and dequeue, exactly as a timer would have run them; after an
//! update that changes nothing (an idle queue at p = 0) the rest are skipped.
//!
//! Deviations: p is a float (Linux: a 64-bit fixed-point fraction); the
//! burst allowance is decremented per update as in RFC 8033 §4.4 (Linux:
//! by the time between dequeues); the buffer is the link's `limit` (Linux
//! default 1000 packets); byte mode is not modelled.

use super::{DropReason, Limit, LinkInfo, MarkReason, PacketFifo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{time_str, Res, Tab};
use crate::packet::{Ecn, Packet};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// PIE's parameters (RFC 8033 §4.1 defaults).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PieParams {
    /// Target queue delay (QDELAY_REF), default 15 ms.
    pub target: Time,
    /// Period of the probability update, default 15 ms.
    pub t_update: Time,
    /// Weight of the delay error, 1/s (default 0.125).
    pub alpha: f64,
    /// Weight of the delay trend, 1/s (default 1.25).
    pub beta: f64,
    /// Burst allowance, default 150 ms.
    pub max_burst: Time,
    /// Mark ECN-capable packets instead of dropping them while p ≤ 10 %.
    pub ecn: bool,
    /// No early drop while the queue holds less than 2 · mtu bytes.
    pub mtu: u64,
    /// De-randomized early drops (§5.1; Linux), else with probability p alone.
    pub derandomize: bool,
    /// ns-3's burst periods (`burst = "ns3"`, module docs) instead of the
    /// RFC's allowance restored at every light update (`"rfc8033"`).
    pub ns3_burst: bool,
}

/// ns-3's `BURST_RESET_TIMEOUT`: light updates that end a burst period.
const BURST_RESET_TIMEOUT: Time = Time::from_millis(1500);

/// ns-3's burst state (`PieQueueDisc::BurstStateT`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum BurstState {
    #[default]
    NoBurst,
    InBurst,
    InBurstProtecting,
}

/// PIE's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PieVars {
    /// Drop probability.
    pub prob: f64,
    /// Queue delay now (sojourn of the last departure) and at the last update.
    pub qdelay: Time,
    pub qdelay_old: Time,
    pub burst: Time,
    /// `burst = "ns3"`: the burst period's state and its count of light
    /// updates since the allowance ran out.
    pub burst_state: BurstState,
    pub burst_reset: u64,
    pub accu_prob: f64,
    /// Time of the next update.
    pub next_update: Time,
}

pub struct Pie {
    q: PacketFifo,
    limit: Limit,
    prm: PieParams,
    pub vars: PieVars,
}

impl Pie {
    pub fn new(prm: PieParams, limit: Limit) -> Pie {
        Pie {
            q: PacketFifo::default(),
            limit,
            prm,
            vars: PieVars {
                // ns-3 arms the allowance at the first early-drop test
                burst: if prm.ns3_burst { Time::ZERO } else { prm.max_burst },
                next_update: prm.t_update,
                ..PieVars::default()
            },
        }
    }

    /// One probability update (RFC 8033 §4.2, §4.4; Linux `pie_calculate_probability`).
    fn update(&mut self) {
        let (prm, v) = (&self.prm, &mut self.vars);
        let qd = v.qdelay.as_secs_f64();
        let qd_old = v.qdelay_old.as_secs_f64();
        let target = prm.target.as_secs_f64();
        // (Linux: a zero delay with packets queued means a tiny backlog: no update.)
        let update = v.qdelay != Time::ZERO || self.q.is_empty();
        let scale = match v.prob {
            p if p < 1e-6 => 1.0 / 2048.0,
            p if p < 1e-5 => 1.0 / 512.0,
            p if p < 1e-4 => 1.0 / 128.0,
            p if p < 1e-3 => 1.0 / 32.0,
            p if p < 1e-2 => 1.0 / 8.0,
            p if p < 0.1 => 1.0 / 2.0,
            _ => 1.0,
        };
        let mut delta = scale * (prm.alpha * (qd - target) + prm.beta * (qd - qd_old));
        if delta > 0.02 && v.prob >= 0.1 {
            delta = 0.02;
        }
        if qd > 0.25 {
            delta += 0.02;
        }
        if prm.ns3_burst && v.burst > Time::ZERO {
            // ns-3: p is held at zero while the allowance lasts
            v.prob = 0.0;
        } else if update {
            v.prob = (v.prob + delta).clamp(0.0, 1.0);
            if v.qdelay == Time::ZERO && v.qdelay_old == Time::ZERO {
                v.prob -= v.prob / 64.0;
            }
        }
        v.burst = v.burst.saturating_sub(prm.t_update);
        let half = Time(prm.target.0 / 2);
        let light = v.qdelay < half && v.qdelay_old < half && v.prob == 0.0;
        if !prm.ns3_burst {
            if light {
                v.burst = prm.max_burst;
                v.accu_prob = 0.0;
            }
        } else if light && v.burst == Time::ZERO {
            match v.burst_state {
                BurstState::InBurstProtecting => {
                    v.burst_state = BurstState::InBurst;
                    v.burst_reset = 0;
                }
                BurstState::InBurst => {
                    v.burst_reset += 1;
                    if v.burst_reset > BURST_RESET_TIMEOUT.0 / prm.t_update.0 {
                        v.burst_reset = 0;
                        v.burst_state = BurstState::NoBurst;
                    }
                }
                BurstState::NoBurst => {}
            }
        } else if v.burst_state == BurstState::InBurst {
            v.burst_reset = 0;
        }
        v.qdelay_old = v.qdelay;
    }

    /// Runs the updates due by `now` (see the module doc).
    fn catch_up(&mut self, now: Time) {
        let step = self.prm.t_update;
        while self.vars.next_update <= now {
            let before = self.vars.clone();
            self.update();
            self.vars.next_update = before.next_update + step;
            let same = PieVars {
                next_update: before.next_update,
                ..self.vars.clone()
            } == before;
            if same && self.vars.next_update <= now {
                // A fixed point: the remaining updates change nothing either.
                let k = (now - self.vars.next_update).0 / step.0 + 1;
                self.vars.next_update += Time(k * step.0);
            }
        }
    }

    /// Early drop decision for an arrival (RFC 8033 §5.1, Linux `pie_drop_early`).
    fn drop_early(&mut self, cx: &mut QdiscCtx) -> bool {
        let v = &mut self.vars;
        if v.burst > Time::ZERO {
            return false;
        }
        if self.prm.ns3_burst && v.burst_state == BurstState::NoBurst {
            // ns-3 arms the allowance here and goes on to the test
            v.burst_state = BurstState::InBurstProtecting;
            v.burst = self.prm.max_burst;
        }
        if v.qdelay < Time(self.prm.target.0 / 2) && v.prob < 0.2 {
            return false;
        }
        if self.q.bytes() < 2 * self.prm.mtu {
            return false;
        }
        if self.prm.derandomize {
            if v.prob == 0.0 {
                v.accu_prob = 0.0;
            }
            v.accu_prob += v.prob;
            if v.accu_prob < 0.85 {
                return false;
            }
            if v.accu_prob >= 8.5 {
                return true;
            }
        }
        if cx.rng.uniform() < v.prob {
            v.accu_prob = 0.0;
            return true;
        }
        false
    }
}

impl Qdisc for Pie {
    fn kind(&self) -> &'static str {
        "pie"
    }
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        self.catch_up(cx.now);
        if !self.q.admits(self.limit, pkt.size) {
            self.vars.accu_prob = 0.0;
            cx.drop(pkt, DropReason::Overflow);
            return None;
        }
        if self.drop_early(cx) {
            if self.prm.ecn && self.vars.prob <= 0.1 && pkt.ecn.is_ect() {
                pkt.ecn = Ecn::Ce;
                cx.mark(MarkReason::Early);
            } else {
                self.vars.accu_prob = 0.0;
                cx.drop(pkt, DropReason::Early);
                return None;
            }
        }
        Some(self.q.push(pkt))
    }
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet> {
        self.catch_up(cx.now);
        let p = self.q.pop()?;
        self.vars.qdelay = if self.q.is_empty() { Time::ZERO } else { cx.now - p.enq };
        Some(p)
    }
    fifo_methods!();
    fn trace(&self, out: &mut Vec<TraceValue>) {
        out.push(TraceValue::new("prob", self.vars.prob));
        out.push(TraceValue::new("qdelay_s", self.vars.qdelay.as_secs_f64()));
        out.push(TraceValue::new("burst_s", self.vars.burst.as_secs_f64()));
    }
}

// ----- scenario

#[derive(Debug)]
struct Spec(PieParams);

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(Pie::new(self.0, link.limit)))
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("target", "PIE: target queue delay (RFC 8033, default 15 ms)"),
    ("t_update", "PIE: period of the drop-probability update (default 15 ms)"),
    ("alpha", "PIE: weight of the delay error, 1/s (default 0.125)"),
    ("beta", "PIE: weight of the delay trend, 1/s (default 1.25)"),
    ("max_burst", "PIE: burst allowance before early drops (default 150 ms)"),
    (
        "ecn",
        "PIE: mark ECN-capable packets instead of dropping them while the drop probability is at most 10 % (RFC 8033 §5.1)",
    ),
    ("mtu", "PIE: no early drop below twice this"),
    (
        "derandomize",
        "PIE: de-randomized early drops (RFC 8033 §5.1, Linux; default true); false: with probability p alone (ns-3)",
    ),
    (
        "burst",
        "PIE: when the burst allowance is restored: \"rfc8033\" (at every light update, Linux) or \"ns3\" (ns-3's burst periods)",
    ),
];

/// `kind = "pie"`: `target`, `t_update`, `alpha`, `beta`, `max_burst`, `ecn`,
/// `mtu`, `derandomize`, `burst`. Ranges: positive target and t_update; alpha and beta in [0, 32]
/// (Linux accepts 0–32 in steps of 1/16, i.e. the RFC's "between 0 and 2");
/// max_burst may be 0.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let target = t.time("target", Some("15ms"))?;
    let t_update = t.time("t_update", Some("15ms"))?;
    let alpha = t.float("alpha", Some(0.125), 0.0, 32.0)?;
    let beta = t.float("beta", Some(1.25), 0.0, 32.0)?;
    let max_burst = t.time("max_burst", Some("150ms"))?;
    let ecn = t.boolean("ecn", false)?;
    let mtu = t.size("mtu", Some("1500B"))?;
    let derandomize = t.boolean("derandomize", true)?;
    let ns3_burst = t.choice("burst", Some("rfc8033"), &["rfc8033", "ns3"])? == "ns3";
    for (key, v) in [("target", target), ("t_update", t_update)] {
        if v == Time::ZERO {
            return Err(t.error(key, &Value::from(time_str(v)), "a positive time (RFC 8033 §4.1)"));
        }
    }
    Ok(Arc::new(Spec(PieParams {
        target,
        t_update,
        alpha,
        beta,
        max_burst,
        ecn,
        mtu,
        derandomize,
        ns3_burst,
    })))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use serde_json::json;

    fn prm() -> PieParams {
        PieParams {
            target: Time::from_millis(15),
            t_update: Time::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Time::from_millis(150),
            ecn: false,
            mtu: 1500,
            derandomize: true,
            ns3_burst: false,
        }
    }

    #[test]
    fn rfc8033_update_hand_worked() {
        // p = 0, qdelay 30 ms, qdelay_old 0 (§4.2): Δ = 0.125·(0.030 − 0.015)
        // + 1.25·(0.030 − 0) = 0.039375, scaled ÷2048 (p < 10⁻⁶) → 1.9226e-5.
        let mut q = Pie::new(prm(), Limit::Unlimited);
        q.q.push(pkt(0, 0, 1000));
        q.vars.qdelay = Time::from_millis(30);
        q.update();
        assert!((q.vars.prob - 0.039375 / 2048.0).abs() < 1e-15, "{}", q.vars.prob);
        // Second update, same delay: Δ = 0.125 · 0.015 = 0.001875, p ∈ [1e-5,
        // 1e-4) → ÷128.
        let p1 = q.vars.prob;
        q.update();
        assert!((q.vars.prob - (p1 + 0.001875 / 128.0)).abs() < 1e-15);
        // At p = 0.5, qdelay 300 ms (old 30 ms): Δ capped at 0.02, plus 0.02
        // for a delay above 250 ms.
        q.vars.prob = 0.5;
        q.vars.qdelay = Time::from_millis(300);
        q.update();
        assert!((q.vars.prob - 0.54).abs() < 1e-12, "{}", q.vars.prob);
        assert_eq!(q.vars.burst, Time::from_millis(105), "15 ms of allowance per update");
    }

    /// ns-3's burst periods (`burst = "ns3"`): the first arrival arms 150 ms
    /// of allowance; ten updates (15…150 ms) use it up, and the tenth, light,
    /// moves the period to `IN_BURST`; it ends (`NO_BURST`) at the 101st light
    /// update after that, 150 + 101·15 = 1665 ms, and the next arrival arms
    /// the allowance again.
    #[test]
    fn ns3_burst_periods_arm_at_an_arrival_and_end_after_1_5_s_of_light_updates() {
        let ns3 = PieParams {
            ns3_burst: true,
            ..prm()
        };
        let mut d: Drive<Pie> = Drive::new(Box::new(Pie::new(ns3, Limit::Unlimited)));
        let state = |d: &Drive<Pie>| (d.q.vars.burst, d.q.vars.burst_state);
        assert_eq!(state(&d), (Time::ZERO, BurstState::NoBurst));
        d.now = Time::from_millis(1);
        d.enq(pkt(0, 0, 1000));
        assert_eq!(state(&d), (Time::from_millis(150), BurstState::InBurstProtecting));
        d.deq();
        for (ms, want) in [
            (149, (Time::from_millis(15), BurstState::InBurstProtecting)),
            (150, (Time::ZERO, BurstState::InBurst)),
            (1650, (Time::ZERO, BurstState::InBurst)),
            (1665, (Time::ZERO, BurstState::NoBurst)),
        ] {
            d.now = Time::from_millis(ms);
            d.deq();
            assert_eq!(state(&d), want, "at {ms} ms");
        }
        d.enq(pkt(1, 0, 1000));
        assert_eq!(state(&d), (Time::from_millis(150), BurstState::InBurstProtecting));
    }

    /// A queue that builds 0.5 s after light traffic began: the RFC's rule
    /// has restored the allowance at every light update, so no early drop
    /// comes before 150 ms of queue; ns-3's period is still running (it ends
    /// only after 1.5 s of light updates) and protects nothing, so its
    /// drops start sooner.
    #[test]
    fn ns3_burst_leaves_a_queue_that_builds_within_1_5_s_unprotected() {
        let first_drop = |ns3_burst: bool| {
            let p = PieParams { ns3_burst, ..prm() };
            let mut d = Drive::new(Box::new(Pie::new(p, Limit::Unlimited)));
            for ms in 0..500u64 {
                d.now = Time::from_millis(ms);
                d.enq(pkt(ms, 0, 1000));
                d.deq();
            }
            for i in 0..200 {
                d.enq(pkt(1000 + i, 0, 1000));
            }
            for ms in 500..5000u64 {
                d.now = Time::from_millis(ms);
                d.deq();
                d.enq(pkt(10_000 + ms, 0, 1000));
                if !d.drops.is_empty() {
                    return ms;
                }
            }
            panic!("no early drop");
        };
        let (rfc, ns3) = (first_drop(false), first_drop(true));
        assert!(rfc >= 650, "RFC 8033: first drop at {rfc} ms");
        assert!(ns3 < rfc, "ns-3: first drop at {ns3} ms, RFC at {rfc} ms");
    }

    #[test]
    fn burst_allowance_lasts_max_burst_then_early_drops_start() {
        // A standing queue of 100 ms delay from t = 0: no early drop in the
        // first 150 ms (10 updates), whatever p is.
        let mut d = Drive::new(Box::new(Pie::new(prm(), Limit::Unlimited)));
        for i in 0..200 {
            d.enq(pkt(i, 0, 1000));
        }
        let mut first_drop = None;
        for ms in 100..3000u64 {
            d.now = Time::from_millis(ms);
            d.deq();
            d.enq(pkt(1000 + ms, 0, 1000));
            if first_drop.is_none() && !d.drops.is_empty() {
                first_drop = Some(ms);
            }
        }
        let first = first_drop.expect("PIE drops under a standing queue");
        assert!(first >= 150, "{first}");
        assert!(d.drops.iter().all(|(_, r)| *r == DropReason::Early));
        assert!(d.q.vars.prob > 0.0);
    }

    #[test]
    fn lazy_updates_equal_a_timer() {
        // Running catch_up at every 15 ms tick, or only at the events, gives
        // the same state at each event.
        let mut a = Pie::new(prm(), Limit::Unlimited);
        let mut b = Pie::new(prm(), Limit::Unlimited);
        let mut rng = crate::rng::Rng::new(1, 0);
        let (mut drops, mut marks) = (Vec::new(), Vec::new());
        let mut t = Time::ZERO;
        for i in 0..5000u64 {
            t += Time::from_micros((rng.exp(1.0) * 900.0) as u64);
            if i % 700 == 0 {
                t += Time::from_secs(2); // idle: updates skipped at a fixed point
            }
            // the timer: every tick up to t
            while a.vars.next_update <= t {
                let tick = a.vars.next_update;
                a.catch_up(tick);
            }
            for q in [&mut a, &mut b] {
                let mut r2 = crate::rng::Rng::new(2, i);
                let mut cx = QdiscCtx {
                    now: t,
                    rng: &mut r2,
                    drops: &mut drops,
                    marks: &mut marks,
                };
                let mut p = pkt(i, 0, 1000);
                p.enq = t;
                q.enqueue(p, &mut cx);
                if i % 10 != 0 {
                    q.dequeue(&mut cx);
                }
            }
            assert_eq!(a.vars, b.vars, "at {t:?}");
        }
        assert!(b.vars.prob > 0.0 || !drops.is_empty());
    }

    #[test]
    fn ecn_marks_below_ten_percent_and_drops_above() {
        let mut d = Drive::new(Box::new(Pie::new(PieParams { ecn: true, ..prm() }, Limit::Unlimited)));
        for (prob, marked) in [(0.05, true), (0.5, false)] {
            d.q.vars = PieVars {
                prob,
                qdelay: Time::from_millis(50),
                accu_prob: 100.0, // de-randomization: the next arrival is dropped
                next_update: Time::from_secs(1000),
                ..PieVars::default()
            };
            for i in 0..3 {
                let mut p = pkt(i, 0, 1500);
                p.ecn = Ecn::Ect0;
                d.q.q.push(p);
            }
            let (m, dr) = (d.marks.len(), d.drops.len());
            let mut p = pkt(9, 0, 1500);
            p.ecn = Ecn::Ect0;
            d.enq(p);
            assert_eq!(
                (d.marks.len() - m, d.drops.len() - dr),
                (marked as usize, !marked as usize),
                "p {prob}"
            );
        }
    }

    /// Early-drop decisions at p = 0.2 over a standing queue: `trials` runs
    /// of four arrivals, each run from a fresh accumulated probability.
    fn early_drops_in_fours(derandomize: bool, trials: u64) -> usize {
        let mut q = Pie::new(PieParams { derandomize, ..prm() }, Limit::Unlimited);
        for i in 0..3 {
            q.q.push(pkt(i, 0, 1500));
        }
        let mut rng = crate::rng::Rng::new(7, 0);
        let (mut drops, mut marks) = (Vec::new(), Vec::new());
        let mut n = 0;
        for _ in 0..trials {
            q.vars = PieVars {
                prob: 0.2,
                qdelay: Time::from_millis(50),
                ..PieVars::default()
            };
            for _ in 0..4 {
                let mut cx = QdiscCtx {
                    now: Time::ZERO,
                    rng: &mut rng,
                    drops: &mut drops,
                    marks: &mut marks,
                };
                n += q.drop_early(&mut cx) as usize;
            }
        }
        n
    }

    #[test]
    fn derandomization_holds_drops_until_the_probability_adds_up() {
        // §5.1: with p = 0.2 the accumulated probability after four arrivals
        // is 0.8 < 0.85: none is dropped.
        assert_eq!(early_drops_in_fours(true, 2000), 0);
        // Without it each arrival is dropped with probability 0.2: 1600 of
        // 8000 expected, σ = √(8000·0.2·0.8) ≈ 36; within 5σ.
        let n = early_drops_in_fours(false, 2000);
        assert!((1420..=1780).contains(&n), "{n}");
    }

    #[test]
    fn reads_rfc_defaults_and_names_bad_values() {
        let l = link("10Mbps", Limit::Packets(1000));
        assert_eq!(build(json!({"kind": "pie"}), &l).unwrap().kind(), "pie");
        let e = build(json!({"kind": "pie", "alpha": 40}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.alpha: got 40"), "{e}");
        let e = build(json!({"kind": "pie", "derandomize": "no"}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.derandomize: "), "{e}");
        let e = build(json!({"kind": "pie", "t_update": "0s"}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.t_update: "), "{e}");
    }
}
