//! HPCC's sender (the window and rate a RoCE NIC runs with
//! `rate_control = "hpcc"`), as pure state driven by the telemetry each ACK
//! brings back; the NIC that carries it is [`super::roce`], the telemetry
//! [`crate::int`].
//!
//! Source: Y. Li, R. Miao, H. H. Liu, Y. Zhuang, F. Feng, L. Tang, Z. Cao,
//! M. Zhang, F. Kelly, M. Alizadeh, M. Yu, "HPCC: High Precision Congestion
//! Control", SIGCOMM 2019, §3.2–3.3 and Algorithm 1; checked against the
//! authors' ns-3 fork (alibaba-edu/High-Precision-Congestion-Control,
//! simulation/src/point-to-point/model/rdma-hw.cc: `HandleAckHp`,
//! `UpdateRateHp`, `FastReactHp`). Model page: docs/models/hpcc.md.
//!
//! * **MeasureInflight.** For each hop `i` of the ACK's telemetry against the
//!   last ACK's: `txRate = Δtx_bytes/Δts`, `u_i = min(qlen, qlen_prev)/(B·T)
//!   + txRate/B`; the most loaded hop gives `u` and its `τ = Δts`; then
//!   `U = (1 − τ/T)·U + (τ/T)·u` with `τ ≤ T`.
//! * **ComputeWind.** If `U ≥ η` or `incStage ≥ maxStage`:
//!   `W = Wc/(U/η) + W_AI` (and `incStage = 0`); else `W = Wc + W_AI`
//!   (and `incStage += 1`). `Wc` and `incStage` are updated only by the
//!   first ACK past `lastUpdateSeq` (once per RTT), which then sets
//!   `lastUpdateSeq = snd_nxt`; every other ACK reacts from the same `Wc`.
//! * **Rate.** The NIC paces at `R = W/T` and keeps at most `W` bytes in
//!   flight. `W` stays within `[min_rate·T, W_init]` (the fork bounds the
//!   rate by its minimum rate and the line rate), `W_init = B_nic·T`.
//!
//! The first ACK with telemetry only stores it (the fork's first RTT); U
//! starts at 1 (the fork's `hp.u = 1`).

use crate::int::{Hop, IntStack, MAX_HOPS};
use crate::units::Time;

/// HPCC's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct HpccParams {
    /// Target utilization η (paper: 0.95).
    pub eta: f64,
    /// Additive-increase stages before a multiplicative update (paper: 5).
    pub max_stage: u32,
    /// Additive increase W_AI, bytes (`None`: the fork's R_AI·T with
    /// R_AI = line rate / 2500, its 10 Mb/s per 25 Gb/s).
    pub w_ai: Option<u64>,
    /// Base RTT T (`None`: the flow's path, given to [`Hpcc::new`]).
    pub base_rtt: Option<Time>,
    /// Lowest rate, bit/s (W ≥ min_rate·T).
    pub min_rate: f64,
}

impl Default for HpccParams {
    fn default() -> HpccParams {
        HpccParams {
            eta: 0.95,
            max_stage: 5,
            w_ai: None,
            base_rtt: None,
            min_rate: 100e6,
        }
    }
}

/// HPCC's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HpccStats {
    /// ACKs that updated Wc (once per RTT).
    pub updates: u64,
    /// ACKs that reacted from Wc without updating it.
    pub fast_reacts: u64,
    /// Windows computed by the multiplicative branch, and by the additive one.
    pub multiplicative: u64,
    pub additive: u64,
}

/// The sender's HPCC state.
#[derive(Clone, Debug)]
pub struct Hpcc {
    p: HpccParams,
    /// T, in seconds and as a time.
    t: f64,
    base_rtt: Time,
    w_init: f64,
    w_min: f64,
    w_ai: f64,
    w: f64,
    wc: f64,
    u: f64,
    inc_stage: u32,
    /// 0: no telemetry seen yet.
    last_update_seq: u64,
    last: [Hop; MAX_HOPS],
    nhop: usize,
    pub stats: HpccStats,
}

impl Hpcc {
    /// HPCC at a NIC of line rate `line` (bit/s) on a path of base RTT
    /// `path_rtt` (used unless the parameters give T).
    pub fn new(p: HpccParams, line: f64, path_rtt: Time) -> Hpcc {
        let base_rtt = p.base_rtt.unwrap_or(path_rtt).max(Time(1));
        let t = base_rtt.as_secs_f64();
        let w_init = line * t / 8.0;
        let w_ai = p.w_ai.map_or(line / 2500.0 * t / 8.0, |b| b as f64);
        let w_min = (p.min_rate.min(line) * t / 8.0).min(w_init);
        Hpcc {
            t,
            base_rtt,
            w_init,
            w_min,
            w_ai,
            w: w_init,
            wc: w_init,
            u: 1.0,
            inc_stage: 0,
            last_update_seq: 0,
            last: [Hop::default(); MAX_HOPS],
            nhop: 0,
            stats: HpccStats::default(),
            p,
        }
    }
    /// The window W, bytes.
    pub fn window(&self) -> f64 {
        self.w
    }
    /// Wc, bytes.
    pub fn wc(&self) -> f64 {
        self.wc
    }
    /// The normalized inflight estimate U.
    pub fn u(&self) -> f64 {
        self.u
    }
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }
    pub fn base_rtt(&self) -> Time {
        self.base_rtt
    }
    pub fn w_ai(&self) -> f64 {
        self.w_ai
    }
    /// The pacing rate W/T, bit/s.
    pub fn rate(&self) -> f64 {
        self.w * 8.0 / self.t
    }

    /// An ACK of `ack` bytes with telemetry `int` arrives while the sender's
    /// next sequence is `snd_nxt` (Algorithm 1's NewAck).
    pub fn on_ack(&mut self, ack: u64, snd_nxt: u64, int: &IntStack) {
        let hops = int.hops();
        let same_path = hops.len() == self.nhop && hops.iter().zip(&self.last).all(|(a, b)| a.link == b.link);
        if self.last_update_seq == 0 || !same_path {
            // First telemetry (or a new path): only remember it.
            self.last_update_seq = self.last_update_seq.max(snd_nxt);
            self.remember(hops);
            return;
        }
        let Some(u) = self.measure_inflight(hops) else {
            return;
        };
        let update = ack > self.last_update_seq;
        self.compute_wind(u, update);
        if update {
            self.last_update_seq = snd_nxt;
        }
        self.remember(hops);
    }

    fn remember(&mut self, hops: &[Hop]) {
        self.last[..hops.len()].copy_from_slice(hops);
        self.nhop = hops.len();
    }

    /// Algorithm 1's MeasureInflight: updates U from the hops against the
    /// last ones and returns it (`None` if no time passed at any hop).
    pub fn measure_inflight(&mut self, hops: &[Hop]) -> Option<f64> {
        let mut best: Option<(f64, f64)> = None;
        for (h, l) in hops.iter().zip(&self.last) {
            let tau = h.ts.saturating_sub(l.ts).as_secs_f64();
            if tau <= 0.0 {
                continue;
            }
            let b = h.rate.0 as f64;
            let tx_rate = h.tx_bytes.saturating_sub(l.tx_bytes) as f64 * 8.0 / tau;
            let u = h.qlen.min(l.qlen) as f64 * 8.0 / (b * self.t) + tx_rate / b;
            if best.is_none_or(|(bu, _)| u > bu) {
                best = Some((u, tau));
            }
        }
        let (u, tau) = best?;
        let tau = tau.min(self.t);
        self.u = (1.0 - tau / self.t) * self.u + tau / self.t * u;
        Some(self.u)
    }

    /// Algorithm 1's ComputeWind (`update`: this ACK updates Wc).
    pub fn compute_wind(&mut self, u: f64, update: bool) {
        let eta = self.p.eta;
        let (w, stage) = if u >= eta || self.inc_stage >= self.p.max_stage {
            self.stats.multiplicative += 1;
            (self.wc / (u.max(1e-9) / eta) + self.w_ai, 0)
        } else {
            self.stats.additive += 1;
            (self.wc + self.w_ai, self.inc_stage + 1)
        };
        self.w = w.clamp(self.w_min, self.w_init);
        if update {
            self.stats.updates += 1;
            self.inc_stage = stage;
            self.wc = self.w;
        } else {
            self.stats.fast_reacts += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    const G100: f64 = 100e9;

    /// 100 Gb/s, T = 10 µs: W_init = 125 000 bytes, W_AI = 50 bytes.
    fn hpcc() -> Hpcc {
        Hpcc::new(HpccParams::default(), G100, Time::from_micros(10))
    }
    fn hop(ts_us: u64, tx: u64, qlen: u64) -> Hop {
        Hop {
            link: 7,
            ts: Time::from_micros(ts_us),
            tx_bytes: tx,
            qlen,
            rate: Rate(100_000_000_000),
        }
    }
    fn stack(h: Hop) -> IntStack {
        let mut s = IntStack {
            n: 1,
            ..Default::default()
        };
        s.hops[0] = h;
        s
    }

    #[test]
    fn defaults_follow_the_paper_and_the_fork() {
        let h = hpcc();
        assert!((h.window() - 125_000.0).abs() < 1e-6, "{}", h.window());
        assert!((h.w_ai() - 50.0).abs() < 1e-9, "{}", h.w_ai());
        assert!((h.rate() - G100).abs() < 1.0);
    }

    /// One hop, τ = 5 µs of a 10 µs T: the link sent 62 500 bytes (the
    /// full 100 Gb/s) with 25 000 bytes queued at both samples: u = 25 000 /
    /// (12.5 GB/s · 10 µs) + 1 = 1.2, and from U = 1, U = ½·1 + ½·1.2 = 1.1.
    #[test]
    fn measure_inflight_from_one_hop() {
        let mut h = hpcc();
        h.on_ack(1000, 10_000, &stack(hop(0, 0, 25_000)));
        let u = h.measure_inflight(&[hop(5, 62_500, 25_000)]).unwrap();
        assert!((u - 1.1).abs() < 1e-12, "{u}");
        // Against the same stored sample, τ = T: the smaller of the two
        // queue samples counts (a queue that drained counts as drained), so
        // u = 0 + 1.0, and U = 0·1.1 + 1·1.0.
        let u = h.measure_inflight(&[hop(10, 125_000, 0)]).unwrap();
        assert!((u - 1.0).abs() < 1e-12, "{u}");
    }

    /// The most loaded of two hops sets u and τ.
    #[test]
    fn the_most_loaded_hop_counts() {
        let mut h = hpcc();
        let mut first = stack(hop(0, 0, 0));
        first.hops[1] = Hop {
            link: 8,
            ..hop(0, 0, 0)
        };
        first.n = 2;
        h.on_ack(1000, 5000, &first);
        // Hop 0: a quarter of the rate over 10 µs (u = 0.25); hop 1: half
        // of it over 4 µs (u = 0.5), which counts, with its τ.
        let u = h
            .measure_inflight(&[
                hop(10, 31_250, 0),
                Hop {
                    link: 8,
                    ..hop(4, 25_000, 0)
                },
            ])
            .unwrap();
        assert!((u - 0.8).abs() < 1e-12, "{u}"); // 0.6·1 + 0.4·0.5
    }

    /// The branches of ComputeWind and the once-per-RTT update of Wc.
    #[test]
    fn compute_wind_branches_and_wc_once_per_rtt() {
        let mut h = hpcc();
        let w0 = h.wc();
        // Below η: additive, incStage counts up only on updates.
        h.compute_wind(0.5, false);
        assert_eq!((h.window(), h.wc(), h.inc_stage()), (w0, w0, 0)); // clamped at W_init
        h.wc = 50_000.0;
        h.compute_wind(0.5, false);
        assert_eq!((h.window(), h.wc(), h.inc_stage()), (50_050.0, 50_000.0, 0));
        for k in 1..=5 {
            h.compute_wind(0.5, true);
            assert_eq!((h.wc(), h.inc_stage()), (50_000.0 + 50.0 * k as f64, k));
        }
        // incStage = maxStage: multiplicative even below η: W = Wc/(U/η) + W_AI.
        h.compute_wind(0.5, true);
        let expect = 50_250.0 / (0.5 / 0.95) + 50.0;
        assert!((h.wc() - expect).abs() < 1e-9 && h.inc_stage() == 0, "{}", h.wc());
        // Above η: multiplicative decrease.
        h.wc = 100_000.0;
        h.compute_wind(1.9, true);
        assert!((h.wc() - (50_000.0 + 50.0)).abs() < 1e-9, "{}", h.wc());
        assert_eq!(h.stats.updates + h.stats.fast_reacts, 9);
    }

    /// Wc moves on the first ACK past lastUpdateSeq only: the ACKs of the
    /// same RTT react from the same Wc.
    #[test]
    fn wc_is_updated_once_per_rtt_by_the_acks() {
        let mut h = hpcc();
        h.on_ack(1000, 100_000, &stack(hop(0, 0, 125_000))); // stores; lastUpdateSeq = 100 000
                                                             // Overloaded link (u = 2 with a full queue of one BDP): τ = T.
        h.on_ack(2000, 101_000, &stack(hop(10, 125_000, 125_000)));
        assert_eq!((h.stats.updates, h.stats.fast_reacts), (0, 1));
        let w1 = h.window();
        assert!(w1 < 125_000.0 * 0.95 / 1.5, "{w1}");
        assert!((h.wc() - 125_000.0).abs() < 1e-6, "{}", h.wc());
        h.on_ack(100_500, 102_000, &stack(hop(20, 250_000, 125_000)));
        assert_eq!((h.stats.updates, h.stats.fast_reacts), (1, 1));
        // U is 2 now; W = Wc·η/2 + W_AI.
        assert!((h.wc() - (125_000.0 * 0.95 / 2.0 + 50.0)).abs() < 1e-6, "{}", h.wc());
        h.on_ack(101_000, 103_000, &stack(hop(30, 375_000, 125_000)));
        assert_eq!((h.stats.updates, h.stats.fast_reacts), (1, 2));
    }
}
