//! The load factor of an output link, measured per interval: the estimator of
//! VCP's routers (Y. Xia, L. Subramanian, I. Stoica, S. Kalyanaraman, "One more
//! bit is enough", ACM SIGCOMM 2005; IEEE/ACM ToN 16(6), 2008;
//! ns-2 `vcp-queue.cc`, `VcpQueueLoadMeasurementTimer::expire`), which BMCC's
//! routers inherit (Qazi, Znati & Andrew, PFLDNeT 2009, §3.1, eq. 1). Shared by
//! [`crate::qdisc::bmcc`] and [`crate::qdisc::vcp`]; model pages:
//! docs/models/bmcc.md ("Router"), docs/models/vcp.md ("Router").
//!
//! At the end of every interval t_p (VCP's t_ρ, 200 ms in both):
//!
//! `f = (λ + κ·q_av) / (γ·C·t_p)`
//!
//! with λ the bytes that *arrived* at the queue during the interval, counted
//! before the discipline's drop decision (VCP `enque`), C the link rate in
//! bytes/s, γ the target utilization and κ the queue-drain coefficient (BMCC's
//! κ₁, VCP's κ_q). The queue term is the backlog (bytes waiting, not the packet
//! in transmission) averaged over the interval by a [`QueueMeter`] (over time,
//! BMCC; or sampled every t_q, VCP's `VcpQueueSamplingTimer`) and smoothed by a
//! [`QueueFilter`]. The new f holds for the whole next interval; it is 0 until
//! the first interval ends.
//!
//! VCP's code also adapts γ (`dynamic_target_utilization_`, [`Adapt`]): every
//! ten intervals the measured utilization is compared with a target chosen by
//! the link's capacity, and γ moves one step towards it. BMCC has no such loop.
//!
//! Intervals are measured lazily, at the queue's arrivals and departures: when
//! an event comes after one or more interval ends, each ended interval is
//! closed in order with what happened in it (an interval without events has
//! λ = 0 and a constant queue). Interval boundaries are multiples of t_p from
//! time 0 (VCP starts each router's timer when it is built, at time 0 too).

use super::{Qdisc, QdiscSpec};
use crate::cfg::{Res, Tab};
use crate::units::{Rate, Time};
use serde_json::{json, Value};
use std::sync::Arc;

/// How the backlog of one interval is averaged.
pub trait QueueMeter {
    /// The backlog was `backlog` bytes from `from` up to `to`.
    fn hold(&mut self, from: Time, to: Time, backlog: u64);
    /// The mean backlog of the interval (of length `interval`) just ended,
    /// bytes; starts the next interval.
    fn take(&mut self, interval: Time) -> f64;
}

/// The backlog averaged over time (BMCC: the limit of VCP's sampling as t_q → 0).
#[derive(Clone, Debug, Default)]
pub struct TimeAverage {
    /// ∫ backlog dt over the interval so far, byte·ns.
    integral: u128,
}

impl QueueMeter for TimeAverage {
    #[inline]
    fn hold(&mut self, from: Time, to: Time, backlog: u64) {
        self.integral += (to - from).0 as u128 * backlog as u128;
    }
    fn take(&mut self, interval: Time) -> f64 {
        let q = self.integral as f64 / interval.0 as f64;
        self.integral = 0;
        q
    }
}

/// The backlog sampled every `every` (VCP's `queue_sampling_interval_` t_q =
/// 10 ms, from time t_q on) and averaged over the samples of the interval in
/// whole bytes (`last_queue_sum_ / last_queue_times_`, integer division). A
/// sample at an interval's end belongs to the next interval (ns-2 fires the
/// load timer, scheduled first, before the sampling timer of the same instant).
#[derive(Clone, Debug)]
pub struct Samples {
    every: Time,
    /// Time of the next sample.
    next: Time,
    sum: u64,
    n: u64,
}

impl Samples {
    pub fn new(every: Time) -> Samples {
        Samples {
            every,
            next: every,
            sum: 0,
            n: 0,
        }
    }
}

impl QueueMeter for Samples {
    fn hold(&mut self, _from: Time, to: Time, backlog: u64) {
        if self.next < to {
            // The samples at next, next + t_q, ... before `to`.
            let k = (to - self.next).0.div_ceil(self.every.0);
            self.sum += k * backlog;
            self.n += k;
            self.next += Time(k * self.every.0);
        }
    }
    fn take(&mut self, _interval: Time) -> f64 {
        let q = self.sum.checked_div(self.n).unwrap_or(0);
        self.sum = 0;
        self.n = 0;
        q as f64
    }
}

/// Either meter, chosen by a scenario key (VCP's `q_sample`).
#[derive(Clone, Debug)]
pub enum Meter {
    Time(TimeAverage),
    Samples(Samples),
}

impl Meter {
    /// Samples every `every`, or the time average if `every` is 0.
    pub fn new(every: Time) -> Meter {
        if every == Time::ZERO {
            Meter::Time(TimeAverage::default())
        } else {
            Meter::Samples(Samples::new(every))
        }
    }
}

impl QueueMeter for Meter {
    fn hold(&mut self, from: Time, to: Time, backlog: u64) {
        match self {
            Meter::Time(m) => m.hold(from, to, backlog),
            Meter::Samples(m) => m.hold(from, to, backlog),
        }
    }
    fn take(&mut self, interval: Time) -> f64 {
        match self {
            Meter::Time(m) => m.take(interval),
            Meter::Samples(m) => m.take(interval),
        }
    }
}

/// How an interval's mean backlog q̄ becomes the queue term q_av.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum QueueFilter {
    /// `q_av ← q_av + w·(q̄ − q_av)`: an EWMA of weight w per interval (BMCC:
    /// 1 − e^(−1/8), time constant 8·t_p; VCP's comment: 0.25).
    Ewma(f64),
    /// `q_av = ⌊q̄⌋ >> 4`: what VCP's `moving_avg_int(q̄, q_av, 2)` computes as
    /// compiled, `current_sample >> bits + last_avg - last_avg >> bits`, where
    /// `+` and `-` bind before `>>`: q̄/16 in whole bytes, no memory.
    VcpShift,
}

/// VCP's adaptation of γ (`dynamic_target_utilization_`): every
/// [`ADAPT_EVERY`] intervals the mean utilization u = (λ + κ·q_av)/(C·t_p) of
/// those intervals, in units of 10⁻⁴ rounded, is compared with `target`
/// (truncated to 10⁻⁴), and γ moves by `step` towards more load if u is
/// below, less if above, within [0.1, 0.999].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Adapt {
    pub target: f64,
    pub step: f64,
}

/// Intervals per adaptation of γ (VCP's `NUM_T_RHO`).
pub const ADAPT_EVERY: u32 = 10;
/// Bounds of the adapted γ (VCP's `MIN_TARGET_UTILIZATION`, `MAX_TARGET_UTILIZATION`).
pub const ADAPT_RANGE: (f64, f64) = (0.100, 0.999);

/// The load-factor measurement's configuration.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LoadParams {
    /// Measurement interval t_p (> 0).
    pub interval: Time,
    /// Target utilization γ, in (0, 1] (the initial γ with [`Adapt`]).
    pub gamma: f64,
    /// Queue-drain coefficient κ ≥ 0 (BMCC's κ₁, VCP's κ_q).
    pub kappa: f64,
    pub filter: QueueFilter,
    /// VCP's adaptation of γ, if any.
    pub adapt: Option<Adapt>,
}

/// The load factor of one output link, measured per interval (eq. 1).
#[derive(Clone, Debug)]
pub struct LoadFactor<M = TimeAverage> {
    p: LoadParams,
    meter: M,
    /// γ·C·t_p in bytes: the denominator of eq. 1 (without adaptation).
    target_bytes: f64,
    /// C·t_p in bytes (with adaptation).
    capacity_bytes: f64,
    /// The current γ (adapted).
    gamma: f64,
    /// Sum and count of the utilizations since the last adaptation.
    u_sum: f64,
    u_n: u32,
    /// End of the interval in progress.
    end: Time,
    /// Bytes arrived in the interval in progress (λ so far).
    arrived: u64,
    /// Time up to which the meter is accounted.
    last: Time,
    /// The queue term (bytes).
    q_av: f64,
    /// The load factor of the last closed interval.
    f: f64,
    /// λ of the last closed interval (bytes), for tracing.
    last_arrived: u64,
}

impl<M: QueueMeter> LoadFactor<M> {
    pub fn new(p: LoadParams, rate: Rate, meter: M) -> LoadFactor<M> {
        LoadFactor {
            target_bytes: p.gamma * rate.0 as f64 / 8.0 * p.interval.as_secs_f64(),
            capacity_bytes: rate.0 as f64 / 8.0 * p.interval.as_secs_f64(),
            gamma: p.gamma,
            u_sum: 0.0,
            u_n: 0,
            p,
            meter,
            end: p.interval,
            arrived: 0,
            last: Time::ZERO,
            q_av: 0.0,
            f: 0.0,
            last_arrived: 0,
        }
    }

    /// The load factor used now.
    pub fn f(&self) -> f64 {
        self.f
    }

    /// The queue term (bytes).
    pub fn q_av(&self) -> f64 {
        self.q_av
    }

    /// λ of the last closed interval (bytes).
    pub fn last_arrived(&self) -> u64 {
        self.last_arrived
    }

    /// The current target utilization γ (VCP adapts it).
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// Brings the measurement up to `now`, the queue having held `backlog`
    /// bytes since the last call: closes every interval that ended by `now`.
    /// Call before each change of the backlog and before each arrival.
    #[inline]
    pub fn advance(&mut self, now: Time, backlog: u64) {
        while now >= self.end {
            self.meter.hold(self.last, self.end, backlog);
            self.close();
            self.last = self.end;
            self.end += self.p.interval;
        }
        self.meter.hold(self.last, now, backlog);
        self.last = now;
    }

    /// A packet of `bytes` arrived (before the drop decision; call after
    /// [`LoadFactor::advance`]).
    #[inline]
    pub fn arrival(&mut self, bytes: u32) {
        self.arrived += bytes as u64;
    }

    /// Ends the interval in progress: eq. 1, then (VCP) the adaptation of γ.
    fn close(&mut self) {
        let q_int = self.meter.take(self.p.interval);
        match self.p.filter {
            QueueFilter::Ewma(w) => self.q_av += w * (q_int - self.q_av),
            QueueFilter::VcpShift => self.q_av = ((q_int as u64) >> 4) as f64,
        }
        let load = self.arrived as f64 + self.p.kappa * self.q_av;
        self.f = match self.p.adapt {
            None => load / self.target_bytes,
            Some(a) => {
                let u = load / self.capacity_bytes;
                let f = u / self.gamma;
                self.adapt(a, u);
                f
            }
        };
        self.last_arrived = self.arrived;
        self.arrived = 0;
    }

    /// VCP's adaptation of γ (`VcpQueueLoadMeasurementTimer::expire`).
    fn adapt(&mut self, a: Adapt, u: f64) {
        self.u_sum += u;
        self.u_n += 1;
        if self.u_n == ADAPT_EVERY {
            let target = (10000.0 * a.target) as u32;
            let mean = (10000.0 * self.u_sum / ADAPT_EVERY as f64 + 0.5) as u32;
            if mean < target {
                self.gamma += a.step;
            } else if mean > target {
                self.gamma -= a.step;
            }
            self.gamma = self.gamma.clamp(ADAPT_RANGE.0, ADAPT_RANGE.1);
            self.u_sum = 0.0;
            self.u_n = 0;
        }
    }
}

// ----- scenario: the keys both routers read (each under its own DOCS)

/// Reads a marker's `inner` discipline (drop-tail by default), refusing the
/// kinds in `refused` (markers do not nest) with `expected`.
pub fn read_inner(t: &mut Tab, refused: &[&str], expected: &str) -> Res<Arc<dyn QdiscSpec>> {
    Ok(match t.table("inner")? {
        Some(mut it) => {
            if let Some(k) = it.get("kind").and_then(Value::as_str) {
                if refused.contains(&k) {
                    return Err(it.error("kind", &Value::from(k), expected));
                }
            }
            let s = super::read(&mut it)?;
            t.put("inner", it.finish()?);
            s
        }
        None => {
            t.put("inner", json!({"kind": "droptail"}));
            Arc::new(super::droptail::Spec) as Arc<dyn QdiscSpec>
        }
    })
}

/// Reads the measurement interval `interval` (default 200 ms), in (0, 60 s].
pub fn read_interval(t: &mut Tab, expected: &str) -> Res<Time> {
    let interval = t.time("interval", Some("200ms"))?;
    if interval == Time::ZERO || interval > Time::from_secs(60) {
        return Err(t.error("interval", &Value::from(crate::cfg::time_str(interval)), expected));
    }
    Ok(interval)
}

/// A number in (0, 1].
pub fn open_unit(t: &mut Tab, key: &'static str, default: f64, expected: &str) -> Res<f64> {
    let x = match t.raw(key) {
        None => default,
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && *x > 0.0 && *x <= 1.0)
            .ok_or_else(|| t.error(key, v, expected))?,
    };
    t.put(key, Value::from(x));
    Ok(x)
}

/// The inner discipline of a marker, built for the marker's link.
pub fn build_inner(inner: &dyn QdiscSpec, link: &super::LinkInfo) -> Res<Box<dyn Qdisc>> {
    inner.build(&super::LinkInfo {
        path: crate::cfg::join(&link.path, "inner"),
        ..link.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    fn params(filter: QueueFilter, adapt: Option<Adapt>) -> LoadParams {
        LoadParams {
            interval: ms(200),
            gamma: 0.95,
            kappa: 0.5,
            filter,
            adapt,
        }
    }

    /// VCP's meter and filter over one hand-worked interval: C = 8 Mb/s
    /// (10⁶ B/s), t_ρ = 0.2 s, γ = 0.95 ⇒ γ·C·t_ρ = 190 000 B. The backlog is
    /// 0 until 55 ms, then 16 000 B: the samples at 10, 20, ..., 190 ms (19 of
    /// them: the one at 200 ms belongs to the next interval) are 5 × 0 and
    /// 14 × 16 000 ⇒ q̄ = ⌊224 000 / 19⌋ = 11 789 B, q_av = ⌊11 789 / 16⌋ =
    /// 736 B; 95 000 B arrived ⇒ f = (95 000 + 0.5 · 736) / 190 000 = 0.501937.
    #[test]
    fn vcp_samples_and_shift_over_a_hand_worked_interval() {
        let mut lf = LoadFactor::new(
            params(QueueFilter::VcpShift, None),
            Rate(8_000_000),
            Samples::new(ms(10)),
        );
        lf.advance(ms(55), 0);
        for _ in 0..95 {
            lf.arrival(1000);
        }
        lf.advance(ms(200), 16_000);
        assert_eq!(lf.q_av(), 736.0);
        assert!((lf.f() - 95_368.0 / 190_000.0).abs() < 1e-12, "{}", lf.f());
        // The next interval: the samples at 200..390 ms (20) all see 16 000 B.
        lf.advance(ms(400), 16_000);
        assert_eq!(lf.q_av(), 1000.0);
        assert!((lf.f() - 500.0 / 190_000.0).abs() < 1e-12);
        // With the EWMA of weight ¼ instead: q_av = ¼·q̄ of the first interval.
        let mut e = LoadFactor::new(
            params(QueueFilter::Ewma(0.25), None),
            Rate(8_000_000),
            Samples::new(ms(10)),
        );
        e.advance(ms(55), 0);
        e.advance(ms(200), 16_000);
        assert_eq!(e.q_av(), 0.25 * 11_789.0);
    }

    /// The time average is the limit of sampling: a backlog of 16 000 B for
    /// the last 145 ms of 200 gives q̄ = 11 600 B.
    #[test]
    fn time_average_weighs_the_backlog_by_time() {
        let mut lf = LoadFactor::new(
            params(QueueFilter::Ewma(1.0), None),
            Rate(8_000_000),
            Meter::new(Time::ZERO),
        );
        lf.advance(ms(55), 0);
        lf.advance(ms(200), 16_000);
        assert!((lf.q_av() - 11_600.0).abs() < 1e-9);
    }

    /// VCP's adaptation of γ: ten intervals at u = 0.9 (below a target of
    /// 0.96) raise γ by one step, 0.95 → 0.954; ten at u = 0.99 lower it; the
    /// f of each interval uses the γ before the change.
    #[test]
    fn adapt_moves_gamma_one_step_per_ten_intervals() {
        let a = Adapt {
            target: 0.96,
            step: 0.004,
        };
        let mut lf = LoadFactor::new(
            params(QueueFilter::VcpShift, Some(a)),
            Rate(8_000_000),
            Samples::new(ms(10)),
        );
        // 180 000 B per interval: u = 0.9 (C·t_ρ = 200 000 B).
        for i in 1..=10u64 {
            for _ in 0..180 {
                lf.arrival(1000);
            }
            lf.advance(ms(200 * i), 0);
            assert!((lf.f() - 0.9 / 0.95).abs() < 1e-12, "interval {i}: {}", lf.f());
        }
        assert!((lf.gamma() - 0.954).abs() < 1e-12);
        for i in 11..=20u64 {
            for _ in 0..198 {
                lf.arrival(1000);
            }
            lf.advance(ms(200 * i), 0);
        }
        assert!((lf.f() - 0.99 / 0.954).abs() < 1e-12);
        assert!((lf.gamma() - 0.95).abs() < 1e-12);
        // At the target exactly (0.96 = 9600 in units of 10⁻⁴): no change.
        for i in 21..=30u64 {
            for _ in 0..192 {
                lf.arrival(1000);
            }
            lf.advance(ms(200 * i), 0);
        }
        assert!((lf.gamma() - 0.95).abs() < 1e-12);
    }
}
