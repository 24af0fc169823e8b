//! DCQCN's reaction point (the sender NIC's rate controller) and its
//! notification point's CNP pacing, as pure state driven with explicit
//! times; the NIC that carries them is [`super::roce`].
//!
//! Source: Y. Zhu, H. Eran, D. Firestone, C. Guo, M. Lipshteyn, Y. Liron,
//! J. Padhye, S. Raindel, M. H. Yahia, M. Zhang, "Congestion Control for
//! Large-Scale RDMA Deployments", SIGCOMM 2015, §3.1 (NP and RP algorithms,
//! Fig. 7's rate-increase state machine) and §5 (parameter values). Checked
//! against the HPCC authors' ns-3 fork (alibaba-edu/High-Precision-Congestion-
//! Control, simulation/src/point-to-point/model/rdma-hw.cc, "Mellanox's
//! version of DCQCN": `cnp_received_mlx`, `CheckRateDecreaseMlx`,
//! `UpdateAlphaMlx`, `RateIncEventMlx`, `FastRecoveryMlx`, `ActiveIncreaseMlx`,
//! `HyperIncreaseMlx`). Model page: docs/models/dcqcn.md.
//!
//! * **Decrease (§3.1, RP).** On a CNP: `Rt = Rc`, `Rc = max(Rmin, Rc·(1 − α/2))`,
//!   then `α = (1 − g)·α + g`; the timer and byte-counter stages restart.
//! * **α decay (§3.1).** Each `K` without a CNP: `α = (1 − g)·α`. Computed
//!   lazily from the time of the last CNP (`α·(1 − g)^⌊Δt/K⌋`), so α costs
//!   no event; α starts at 1.
//! * **Increase (§3.1, Fig. 7).** A rate-increase event happens each time the
//!   timer `T` expires (stage `t += 1`) or the byte counter has counted `B`
//!   more bytes sent (stage `bc += 1`). Fast recovery while `max(t, bc) ≤ F`:
//!   `Rc = (Rt + Rc)/2`; hyper increase once `min(t, bc) > F`:
//!   `Rt += i·R_HAI` with `i = min(t, bc) − F`; additive increase otherwise:
//!   `Rt += R_AI`; after either, `Rc = (Rt + Rc)/2`. `Rt` and `Rc` never
//!   exceed the line rate.
//! * **CNP pacing (§3.1, NP).** At most one CNP per flow per `N`
//!   ([`CnpPacer`]).
//!
//! Differences from the ns-3 fork, and why: the fork applies a CNP's decrease
//! at the next 4 µs `RateDecreaseInterval` tick and updates α only on its
//! `K` ticks (a CNP sets a bit); we follow the paper and act on the CNP at
//! once (with N = 50 µs between CNPs the two differ by < 4 µs of timing). The
//! fork has no byte counter (timer only) and its hyper increase adds R_HAI
//! once per event (`i = 1`); we keep the paper's byte counter and `i`.
//! The stages count so that the first `F` events after a CNP are fast
//! recovery, as in the fork (`m_rpTimeStage < F` before its increment).

use crate::units::Time;

/// The reaction point's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct RpParams {
    /// EWMA gain of α (paper §5: g = 1/256).
    pub g: f64,
    /// α decay period without CNPs (paper: K = 55 µs).
    pub alpha_timer: Time,
    /// Rate-increase timer (T).
    pub rate_timer: Time,
    /// Byte counter (B), bytes sent per increase stage.
    pub byte_counter: u64,
    /// Fast-recovery stages (F = 5).
    pub f: u32,
    /// Additive increase of Rt, bit/s (R_AI).
    pub rai: f64,
    /// Hyper increase step of Rt, bit/s (R_HAI).
    pub rhai: f64,
    /// Lowest Rc, bit/s.
    pub min_rate: f64,
}

impl Default for RpParams {
    fn default() -> Self {
        RpParams {
            g: 1.0 / 256.0,
            alpha_timer: Time::from_micros(55),
            rate_timer: Time::from_micros(55),
            byte_counter: 10_000_000,
            f: 5,
            rai: 40e6,
            rhai: 400e6,
            min_rate: 100e6,
        }
    }
}

/// Counters of a reaction point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RpStats {
    pub cnps: u64,
    pub fast_recovery: u64,
    pub additive: u64,
    pub hyper: u64,
}

/// DCQCN's reaction point: Rc, Rt, α and the increase stages of one flow.
#[derive(Clone, Debug)]
pub struct Rp {
    p: RpParams,
    line: f64,
    /// Current rate Rc and target rate Rt, bit/s.
    rc: f64,
    rt: f64,
    /// α as set by the last CNP, and that CNP's time (None: none yet, α = 1).
    alpha: f64,
    last_cnp: Option<Time>,
    /// Timer and byte-counter stages since the last CNP.
    t: u32,
    bc: u32,
    /// Bytes sent towards the next byte-counter stage.
    bytes: u64,
    /// Next expiry of the rate-increase timer, while there is a rate to regain.
    inc_at: Option<Time>,
    pub stats: RpStats,
}

impl Rp {
    /// A flow starting at the line rate `line` (bit/s), α = 1.
    pub fn new(p: RpParams, line: f64) -> Rp {
        Rp {
            p,
            line,
            rc: line,
            rt: line,
            alpha: 1.0,
            last_cnp: None,
            t: 0,
            bc: 0,
            bytes: 0,
            inc_at: None,
            stats: RpStats::default(),
        }
    }
    /// Rc, bit/s.
    pub fn rate(&self) -> f64 {
        self.rc
    }
    /// Rt, bit/s.
    pub fn target(&self) -> f64 {
        self.rt
    }
    /// α at `now`: decayed once per whole `K` since the last CNP.
    pub fn alpha(&self, now: Time) -> f64 {
        match self.last_cnp {
            None => self.alpha,
            Some(t0) => {
                let n = (now.saturating_sub(t0).0 / self.p.alpha_timer.0.max(1)) as i32;
                self.alpha * (1.0 - self.p.g).powi(n)
            }
        }
    }
    /// The rate-increase timer's next expiry, if running.
    pub fn next_wake(&self) -> Option<Time> {
        self.inc_at
    }

    /// A CNP arrived (paper §3.1, RP: cut, then α's EWMA; stages restart).
    pub fn on_cnp(&mut self, now: Time) {
        let a = self.alpha(now);
        self.stats.cnps += 1;
        self.rt = self.rc;
        self.rc = (self.rc * (1.0 - a / 2.0)).max(self.p.min_rate).min(self.line);
        self.alpha = (1.0 - self.p.g) * a + self.p.g;
        self.last_cnp = Some(now);
        self.t = 0;
        self.bc = 0;
        self.bytes = 0;
        self.inc_at = Some(now + self.p.rate_timer);
    }

    /// `n` bytes were sent: the byte counter's stages.
    pub fn on_sent(&mut self, n: u64) {
        if self.inc_at.is_none() {
            return; // at line rate since the last recovery: nothing to count
        }
        self.bytes += n;
        while self.bytes >= self.p.byte_counter && self.inc_at.is_some() {
            self.bytes -= self.p.byte_counter;
            self.bc += 1;
            self.increase();
        }
    }

    /// The rate-increase timer, if due at `now`.
    pub fn on_timer(&mut self, now: Time) {
        while let Some(at) = self.inc_at.filter(|&at| at <= now) {
            self.t += 1;
            self.inc_at = Some(at + self.p.rate_timer);
            self.increase();
        }
    }

    /// One rate-increase event (Fig. 7): fast recovery, additive or hyper.
    fn increase(&mut self) {
        let f = self.p.f;
        if self.t.max(self.bc) <= f {
            self.stats.fast_recovery += 1;
        } else if self.t.min(self.bc) > f {
            self.stats.hyper += 1;
            self.rt += (self.t.min(self.bc) - f) as f64 * self.p.rhai;
        } else {
            self.stats.additive += 1;
            self.rt += self.p.rai;
        }
        self.rt = self.rt.min(self.line);
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line);
        if self.rc >= self.line * (1.0 - 1e-12) {
            // Back at line rate: the timer stops until the next CNP.
            self.rc = self.line;
            self.inc_at = None;
        }
    }
}

/// The notification point's CNP pacing (paper §3.1, NP): a CE-marked packet
/// triggers a CNP unless one was sent for the flow within the last `N`.
#[derive(Clone, Debug)]
pub struct CnpPacer {
    pub interval: Time,
    last: Option<Time>,
}

impl CnpPacer {
    pub fn new(interval: Time) -> CnpPacer {
        CnpPacer { interval, last: None }
    }
    /// A CE-marked packet arrived at `now`: true if a CNP goes out.
    pub fn on_ce(&mut self, now: Time) -> bool {
        if self.last.is_some_and(|t| now < t + self.interval) {
            return false;
        }
        self.last = Some(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: f64 = 1.0 / 256.0;
    fn us(x: u64) -> Time {
        Time::from_micros(x)
    }
    fn rp() -> Rp {
        Rp::new(
            RpParams {
                byte_counter: u64::MAX,
                ..RpParams::default()
            },
            40e9,
        )
    }

    /// From line rate with α = 1, one CNP halves Rc and sets Rt to the old Rc.
    #[test]
    fn one_cnp_from_line_rate_halves_the_rate() {
        let mut r = rp();
        r.on_cnp(us(0));
        assert_eq!((r.rate(), r.target()), (20e9, 40e9));
        assert!((r.alpha(us(0)) - 1.0).abs() < 1e-15, "(1−g)·1 + g = 1");
    }

    /// n CNPs within K of each other (no decay): α stays 1 and Rc halves n
    /// times; with decay first, α follows the EWMA exactly.
    #[test]
    fn alpha_follows_its_ewma_and_decays_per_k() {
        let mut r = rp();
        r.on_cnp(us(0));
        // 3 periods K without CNP: α = (1 − g)^3.
        assert!((r.alpha(us(165)) - (1.0 - G).powi(3)).abs() < 1e-15);
        assert!((r.alpha(us(164)) - (1.0 - G).powi(2)).abs() < 1e-15);
        let rc = r.rate();
        r.on_cnp(us(165));
        let a = (1.0 - G).powi(3);
        assert!((r.rate() - rc * (1.0 - a / 2.0)).abs() < 1e-3);
        assert!((r.alpha(us(165)) - ((1.0 - G) * a + G)).abs() < 1e-15);
    }

    /// F = 5 fast-recovery steps halve the gap to Rt each time: 20 → 30 →
    /// 35 → 37.5 → 38.75 → 39.375 Gb/s; then additive increase raises Rt by
    /// R_AI first, capped at the line rate here (Rt = 40 Gb/s already).
    #[test]
    fn fast_recovery_halves_the_gap_to_the_target() {
        let mut r = rp();
        r.on_cnp(us(0));
        let want = [30e9, 35e9, 37.5e9, 38.75e9, 39.375e9];
        for (k, w) in want.iter().enumerate() {
            r.on_timer(us(55 * (k as u64 + 1)));
            assert_eq!(r.rate(), *w, "stage {}", k + 1);
        }
        assert_eq!(r.stats.fast_recovery, 5);
        r.on_timer(us(330));
        assert_eq!(r.stats.additive, 1);
        assert_eq!(r.rate(), (40e9 + 39.375e9) / 2.0);
    }

    /// Additive increase below the line rate: after a CNP at 10 Gb/s on a
    /// 40 Gb/s line, Rt = 10, Rc = 5; five FR steps bring Rc to
    /// 10 − 5/32 = 9.84375; the sixth event adds R_AI = 40 Mb/s to Rt.
    #[test]
    fn additive_increase_after_f_stages() {
        let mut r = rp();
        r.rc = 10e9;
        r.on_cnp(us(0));
        assert_eq!(r.rate(), 5e9);
        r.on_timer(us(275));
        assert_eq!(r.rate(), 10e9 - 5e9 / 32.0);
        r.on_timer(us(330));
        assert_eq!(r.target(), 10e9 + 40e6);
        assert_eq!(r.rate(), (10e9 + 40e6 + 10e9 - 5e9 / 32.0) / 2.0);
    }

    /// Hyper increase once both the timer and the byte counter have passed F:
    /// with B = 1 MB, 7 MB sent and 7 timer events, min(t, bc) = 7 > 5.
    #[test]
    fn hyper_increase_when_both_counters_pass_f() {
        let mut r = Rp::new(
            RpParams {
                byte_counter: 1_000_000,
                ..RpParams::default()
            },
            40e9,
        );
        r.rc = 4e9;
        r.on_cnp(us(0)); // Rt = 4, Rc = 2 Gb/s
                         // Timer events 1..=6 (t = 6 > F, bc = 0): 5 FR then 1 AI.
        r.on_timer(us(330));
        assert_eq!((r.stats.fast_recovery, r.stats.additive), (5, 1));
        // Byte counter stages 1..=5: max(t, bc) = 6 > F, min ≤ F: additive.
        r.on_sent(5_000_000);
        assert_eq!((r.stats.additive, r.stats.hyper), (6, 0));
        let rt = r.target();
        // bc = 6: min(6, 6) = 6 > 5: hyper with i = 1.
        r.on_sent(1_000_000);
        assert_eq!(r.stats.hyper, 1);
        assert_eq!(r.target(), rt + 400e6);
        // t = 7, bc = 6: i = 1 again; then bc = 7: i = 2.
        r.on_timer(us(385));
        r.on_sent(1_000_000);
        assert_eq!(r.stats.hyper, 3);
        assert_eq!(r.target(), rt + 4.0 * 400e6);
    }

    /// The timer stops once Rc is back at the line rate, and the byte
    /// counter does not count at line rate.
    #[test]
    fn recovery_to_line_rate_stops_the_timer() {
        let mut r = rp();
        r.on_cnp(us(0));
        r.on_timer(us(100_000));
        assert_eq!(r.rate(), 40e9);
        assert_eq!(r.next_wake(), None);
        r.on_sent(u64::MAX / 2);
        assert_eq!(r.rate(), 40e9);
    }

    #[test]
    fn the_rate_never_goes_below_the_minimum() {
        let mut r = rp();
        for i in 0..100 {
            r.on_cnp(us(i));
        }
        assert_eq!(r.rate(), 100e6);
    }

    /// One CNP per 50 µs per flow however many CE packets arrive.
    #[test]
    fn the_np_sends_one_cnp_per_interval() {
        let mut np = CnpPacer::new(us(50));
        // A CE packet every 1 µs for 200 µs: CNPs at 0, 50, 100, 150.
        let sent: Vec<u64> = (0..200).filter(|&t| np.on_ce(us(t))).collect();
        assert_eq!(sent, vec![0, 50, 100, 150]);
    }
}
