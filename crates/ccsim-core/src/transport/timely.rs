//! TIMELY's rate computation (the sender NIC's rate controller driven by RTT
//! gradients), as pure state driven with explicit times; the NIC that carries
//! it is [`super::roce`] (`rate_control = "timely"`).
//!
//! Source: R. Mittal, V. T. Lam, N. Dukkipati, E. Blem, H. Wassel,
//! M. Ghobadi, A. Vahdat, Y. Wang, D. Wetherall, D. Zats, "TIMELY: RTT-based
//! Congestion Control for the Datacenter", SIGCOMM 2015, §4 (Algorithm 1:
//! the gradient-based rate computation; §4.1 the RTT measurement per
//! completion event of a segment of 16–64 KB; §4.3 hyperactive increase).
//! Checked against the HPCC authors' ns-3 fork (alibaba-edu/High-Precision-
//! Congestion-Control, simulation/src/point-to-point/model/rdma-hw.cc:
//! `HandleAckTimely`, `UpdateRateTimely`). Model page: docs/models/timely.md.
//!
//! Per completion event (the cumulative ACK passes the end of a segment of
//! `seg` bytes) with the RTT sample `new_rtt` of that ACK:
//!
//! * `new_rtt_diff = new_rtt − prev_rtt`, `prev_rtt = new_rtt`;
//!   `rtt_diff = (1 − α)·rtt_diff + α·new_rtt_diff`;
//!   `normalized_gradient = rtt_diff / minRTT`.
//! * `new_rtt < T_low`: `rate += δ` (additive, whatever the gradient).
//! * `new_rtt > T_high`: `rate ·= 1 − β·(1 − T_high/new_rtt)`.
//! * `normalized_gradient ≤ 0`: `rate += N·δ`, N = 5 once this is the
//!   `hai_after`-th (5th) such completion in a row, else 1 (§4.3, HAI).
//! * otherwise `rate ·= 1 − β·normalized_gradient` (at least 0).
//! * The rate stays within [min_rate, line rate]. The first completion only
//!   records `prev_rtt`. Any decrease ends a run of negative gradients.

use crate::units::Time;

/// TIMELY's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelyParams {
    /// Bytes per completion event (`seg`, §4.1: 16–64 KB).
    pub seg: u64,
    /// EWMA weight of a new RTT difference (α).
    pub alpha: f64,
    /// Multiplicative decrease factor (β).
    pub beta: f64,
    /// Below this RTT the rate grows whatever the gradient (T_low).
    pub t_low: Time,
    /// Above this RTT the rate is cut in proportion (T_high).
    pub t_high: Time,
    /// The RTT that normalizes the gradient (minRTT).
    pub min_rtt: Time,
    /// Additive increment δ, bit/s.
    pub delta: f64,
    /// Completions with gradient ≤ 0 in a row before the step is N·δ.
    pub hai_after: u32,
    /// N, the hyperactive increase multiplier.
    pub hai_n: f64,
    /// Lowest rate, bit/s.
    pub min_rate: f64,
}

impl Default for TimelyParams {
    fn default() -> Self {
        TimelyParams {
            seg: 16_000,
            alpha: 0.875,
            beta: 0.8,
            t_low: Time::from_micros(50),
            t_high: Time::from_micros(500),
            min_rtt: Time::from_micros(20),
            delta: 10e6,
            hai_after: 5,
            hai_n: 5.0,
            min_rate: 100e6,
        }
    }
}

/// Counters of the rate computation, one per branch of Algorithm 1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimelyStats {
    pub completions: u64,
    pub below_t_low: u64,
    pub above_t_high: u64,
    pub additive: u64,
    pub hyper: u64,
    pub gradient_decreases: u64,
}

/// TIMELY's state for one flow.
#[derive(Clone, Debug)]
pub struct Timely {
    p: TimelyParams,
    line: f64,
    rate: f64,
    prev_rtt: Option<Time>,
    rtt_diff: f64,
    /// Completions with gradient ≤ 0 in a row.
    negative: u32,
    /// The cumulative ACK that ends the current segment.
    next_completion: u64,
    pub stats: TimelyStats,
}

impl Timely {
    /// A flow starting at the line rate `line` (bit/s).
    pub fn new(p: TimelyParams, line: f64) -> Timely {
        Timely {
            next_completion: p.seg,
            p,
            line,
            rate: line,
            prev_rtt: None,
            rtt_diff: 0.0,
            negative: 0,
            stats: TimelyStats::default(),
        }
    }
    /// The current rate, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }
    /// The smoothed RTT difference, ns.
    pub fn rtt_diff(&self) -> f64 {
        self.rtt_diff
    }

    /// An ACK of new data up to `ack` with RTT sample `rtt`: a completion
    /// event if it passes the end of the current segment. Returns whether the
    /// rate was recomputed.
    pub fn on_ack(&mut self, ack: u64, rtt: Time) -> bool {
        if ack < self.next_completion {
            return false;
        }
        self.next_completion = ack + self.p.seg;
        self.on_completion(rtt);
        true
    }

    /// Algorithm 1 for one completion event with RTT `new_rtt`.
    pub fn on_completion(&mut self, new_rtt: Time) {
        self.stats.completions += 1;
        let Some(prev) = self.prev_rtt.replace(new_rtt) else {
            return;
        };
        let p = &self.p;
        let new_diff = new_rtt.0 as f64 - prev.0 as f64;
        self.rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * new_diff;
        let gradient = self.rtt_diff / p.min_rtt.0 as f64;
        let rate = if new_rtt < p.t_low {
            self.stats.below_t_low += 1;
            self.rate + p.delta
        } else if new_rtt > p.t_high {
            self.stats.above_t_high += 1;
            self.negative = 0;
            self.rate * (1.0 - p.beta * (1.0 - p.t_high.0 as f64 / new_rtt.0 as f64))
        } else if gradient <= 0.0 {
            self.negative += 1;
            if self.negative >= p.hai_after {
                self.stats.hyper += 1;
                self.rate + p.hai_n * p.delta
            } else {
                self.stats.additive += 1;
                self.rate + p.delta
            }
        } else {
            self.stats.gradient_decreases += 1;
            self.negative = 0;
            self.rate * (1.0 - p.beta * gradient).max(0.0)
        };
        self.rate = rate.clamp(p.min_rate.min(self.line), self.line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time::from_micros(x)
    }
    /// At 5 Gb/s on a 10 Gb/s line (room to grow), first sample 100 µs.
    fn at_5g() -> Timely {
        let mut t = Timely::new(TimelyParams::default(), 10e9);
        t.rate = 5e9;
        t.on_completion(us(100));
        t
    }

    /// The first completion only records the RTT; completion events come
    /// once per `seg` bytes acknowledged.
    #[test]
    fn completions_come_once_per_segment() {
        let mut t = Timely::new(TimelyParams::default(), 10e9);
        assert!(!t.on_ack(15_999, us(100)));
        assert!(t.on_ack(16_000, us(100)));
        assert_eq!(t.rate(), 10e9, "first sample: no update");
        assert!(!t.on_ack(31_999, us(100)));
        assert!(t.on_ack(40_000, us(100)), "next ends at 32 000");
        assert!(!t.on_ack(55_999, us(100)), "then at 40 000 + 16 000");
        assert_eq!(t.stats.completions, 2);
    }

    /// Rising RTT between T_low and T_high: 100 → 110 µs gives rtt_diff =
    /// 0.875 · 10 µs = 8.75 µs, gradient 8.75/20 = 0.4375, rate ·=
    /// 1 − 0.8·0.4375 = 0.65: 5 → 3.25 Gb/s.
    #[test]
    fn positive_gradient_decreases_in_proportion() {
        let mut t = at_5g();
        t.on_completion(us(110));
        assert!((t.rtt_diff() - 8750.0).abs() < 1e-9);
        assert!((t.rate() - 3.25e9).abs() < 1.0, "{}", t.rate());
        // Next 110 µs again: new diff 0, rtt_diff = 0.125·8750 = 1093.75 ns,
        // gradient 0.0546875, factor 1 − 0.04375.
        t.on_completion(us(110));
        assert!((t.rate() - 3.25e9 * (1.0 - 0.8 * 1093.75 / 20_000.0)).abs() < 1.0);
        assert_eq!(t.stats.gradient_decreases, 2);
    }

    /// Falling or flat RTT: +δ four times, then N·δ from the fifth
    /// completion in a row; a decrease ends the run.
    #[test]
    fn negative_gradient_adds_delta_then_hyperactive_increase() {
        let mut t = at_5g();
        let mut rtt = 100;
        let mut want = 5e9;
        for k in 1..=7 {
            rtt -= 1;
            t.on_completion(us(rtt));
            want += if k >= 5 { 50e6 } else { 10e6 };
            assert!((t.rate() - want).abs() < 1e-3, "step {k}: {}", t.rate());
        }
        assert_eq!((t.stats.additive, t.stats.hyper), (4, 3));
        t.on_completion(us(150)); // gradient > 0: decrease, run ends
        t.on_completion(us(140));
        assert_eq!(t.stats.additive, 5, "back to +δ");
    }

    /// Below T_low the rate grows by δ even with a rising RTT; above T_high
    /// it is cut by β·(1 − T_high/rtt) even with a falling one.
    #[test]
    fn t_low_and_t_high_override_the_gradient() {
        let mut t = Timely::new(TimelyParams::default(), 10e9);
        t.rate = 5e9;
        t.on_completion(us(20));
        t.on_completion(us(45)); // rising, but 45 < 50 µs
        assert_eq!(t.rate(), 5e9 + 10e6);
        let mut t = at_5g();
        t.on_completion(us(1000));
        t.on_completion(us(800)); // falling, but above 500 µs: 1 − 0.8·(1 − 5/8) = 0.7
        let after_first = 5e9 * (1.0 - 0.8 * 0.5);
        assert!((t.rate() - after_first * 0.7).abs() < 1.0, "{}", t.rate());
        assert_eq!((t.stats.below_t_low, t.stats.above_t_high), (0, 2));
    }

    /// The rate stays within [min_rate, line rate].
    #[test]
    fn the_rate_stays_between_min_rate_and_line_rate() {
        let mut t = Timely::new(TimelyParams::default(), 10e9);
        t.on_completion(us(20));
        for _ in 0..10 {
            t.on_completion(us(30));
        }
        assert_eq!(t.rate(), 10e9);
        for k in 0..50 {
            t.on_completion(us(1000 + 500 * k));
        }
        assert_eq!(t.rate(), 100e6);
    }
}
