//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023; Ha,
//! Rhee & Xu, "CUBIC: a new TCP-friendly high-speed TCP variant", SIGOPS OSR
//! 42(5), 2008), with HyStart++ (RFC 9406, [`super::hystart`]) as an option.
//!
//! * Window (§4.2, eq. 1–2): in congestion avoidance, `W_cubic(t) = C·(t −
//!   K)³ + W_max`, t the time since the epoch began (the first ACK of
//!   congestion avoidance after slow start or a reduction), `K = ∛((W_max −
//!   cwnd_epoch)/C)` with `cwnd_epoch` the window when the epoch began (0
//!   when `cwnd_epoch ≥ W_max`, with `W_max = cwnd_epoch`: after the initial
//!   slow start there is no W_max). Windows in segments, t and K in seconds.
//! * Reno-friendly region (§4.3): `W_est` starts at `cwnd_epoch` and grows by
//!   `α_cubic · segments_acked / cwnd` per ACK, `α_cubic = 3(1 − β)/(1 + β)`
//!   until `W_est ≥ cwnd_prior` (the window before the last reduction), 1
//!   after; when `W_cubic(t) < W_est`, cwnd = W_est.
//! * Concave and convex regions (§4.4–4.5): `target = W_cubic(t + RTT)`
//!   clamped to [cwnd, 1.5·cwnd], and cwnd grows by `(target − cwnd)/cwnd`
//!   per segment acknowledged (byte counting: per `acked/SMSS`; the fraction
//!   of a byte is carried). RTT is the smoothed RTT (§4.1 "RTT: smoothed
//!   round-trip time", RFC 6298), the minimum before the first sample of srtt.
//! * Multiplicative decrease (§4.6) on a loss by duplicate ACKs and an ECN
//!   echo: `cwnd_prior = W`, `ssthresh = max(β·W, 2 segments)`, with W the
//!   window the sender's `loss_window` names (FlightSize, which §4.6 allows;
//!   with `loss_window = "cwnd"`, cwnd as Linux and ns-3 use).
//! * Fast convergence (§4.7): if `W < W_max` (the previous one), `W_max =
//!   W·(1 + β)/2`, else `W_max = W`.
//! * Timeout (§4.8): ssthresh as §4.6; the first congestion avoidance after it
//!   starts with `K = 0` and `W_max = cwnd_epoch` (Linux: `bictcp_reset` at
//!   `TCP_CA_Loss`). With `timeout_w_max = "keep"`, as ns-3's `TcpCubic`
//!   (whose `CubicReset` leaves `m_lastMaxCwnd`), the W_max that the
//!   timeout's §4.6–4.7 reduction set stays: the window plateaus there first.
//! * Slow start below ssthresh: the sender's (RFC 5681, RFC 3465 L = 1), or
//!   HyStart++ with `hystart = "hystart++"` (initial slow start only).
//!
//! `variant = "linux"` runs Linux's `tcp_cubic.c` instead (`bictcp_update`,
//! `cubictcp_recalc_ssthresh`, `cubictcp_acked`): windows in whole segments,
//! the target `W_cubic(t + delay_min)` in whole segments (its cube
//! truncated), growth as one segment per `cnt` ACKs (`cnt = cwnd / (target −
//! cwnd)`, at least 2, at most 20 before the first loss), the Reno-friendly
//! window counted in whole segments at Linux's fixed rate (one per
//! `⌊15·cwnd/8⌋` ACKs for β = 0.7: `beta_scale`, no switch to 1 at
//! cwnd_prior), `delay_min` the minimum RTT since the last timeout (samples in
//! the epoch's first second ignored), β and C as Linux's 1/1024 fractions (717,
//! 410), slow start up to ssthresh with the rest to congestion avoidance
//! (`tcp_slow_start`). The module counts the data each ACK delivered itself
//! ([`CongestionOps::counts_acked`]). At small windows the truncations
//! matter: with W_max = 15 and cwnd 10 the target is 11 at once (the RFC's
//! 10.1), so cwnd gains a segment in the first RTT. Not modelled: Linux
//! recomputes `cnt` at most once per jiffy (and not within HZ/32 while cwnd
//! is unchanged), measures t in jiffies and finds K by a table and one Newton
//! step (here: exact time, the exact integer cube root).
//!
//! `variant = "ns3"` runs ns-3.44's `TcpCubic`, which copies Linux's
//! arithmetic, with its own details: its ACK count (`m_cWndCnt`) is never
//! cleared and keeps what is left above cnt; the ACK that ends a recovery
//! counts every segment it acknowledges (`TcpSocketBase` passes `ackNumber −
//! oldHeadSequence`, SACKed data included); slow start adds all the ACK
//! delivered, past ssthresh too; `delay_min` is the minimum of the smoothed
//! RTT (ns-3 passes `m_srtt` as the sample) outside an epoch's first 10 ms
//! (`CubicDelta`).
//!
//! Not implemented: spurious congestion events (§4.9, undo; the sender has no
//! spurious-loss detection, F-RTO or Eifel).

use super::hystart::HyStart;
use super::{cong_avoid_ai_w, slow_start, AckSample, CaEvent, CcSpec, CcState, CongestionOps, Needs};
use crate::cfg::{Res, Tab};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// Configuration.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// C, in segments/s³ (RFC 9438 §5: 0.4); > 0.
    pub c: f64,
    /// β_cubic, the window kept at a reduction (§4.6: 0.7); in (0, 1).
    pub beta: f64,
    /// Fast convergence (§4.7; on by default, SHOULD).
    pub fast_convergence: bool,
    /// HyStart++ (RFC 9406) in the initial slow start.
    pub hystart: bool,
    /// After a timeout the first epoch starts with K = 0 and W_max =
    /// cwnd_epoch (§4.8; Linux `bictcp_reset` zeroes `last_max_cwnd`): true,
    /// `timeout_w_max = "reset"`. False, `"keep"`: the W_max of the timeout's
    /// reduction stays, and the window climbs back to it as after any loss
    /// (ns-3's `TcpCubic::CubicReset` leaves `m_lastMaxCwnd`).
    pub timeout_reset: bool,
    /// The window's arithmetic (`variant`, module docs).
    pub variant: Variant,
}

/// Whose CUBIC: the RFC's real-valued window, Linux's `tcp_cubic.c`, or ns-3's
/// `TcpCubic` (Linux's arithmetic with its own ACK counter and delay input).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    Rfc9438,
    Linux,
    Ns3,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            hystart: false,
            timeout_reset: true,
            variant: Variant::Rfc9438,
        }
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "c",
        "CUBIC: the constant C of W_cubic(t) = C(t − K)³ + W_max, segments/s³, > 0 (RFC 9438: 0.4)",
    ),
    (
        "beta",
        "CUBIC: β_cubic, the window kept at a reduction, in the open interval (0, 1) (RFC 9438: 0.7)",
    ),
    ("fast_convergence", "CUBIC: fast convergence (RFC 9438 §4.7)"),
    (
        "hystart",
        "CUBIC: slow start \"off\" (RFC 5681) or \"hystart++\" (RFC 9406) in the initial slow start",
    ),
    (
        "timeout_w_max",
        "CUBIC after a timeout: \"reset\" (K = 0, RFC 9438 §4.8, Linux) or \"keep\" the timeout's W_max (ns-3)",
    ),
    (
        "variant",
        "CUBIC's arithmetic: \"rfc9438\" (real-valued window), \"linux\" (tcp_cubic.c: whole segments, one segment per cnt ACKs) or \"ns3\" (TcpCubic: Linux's, with ns-3's ACK count)",
    ),
];

impl Params {
    /// Reads `cc = {kind = "cubic", c, beta, fast_convergence, hystart,
    /// timeout_w_max, variant}`.
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        let c = t.float("c", Some(d.c), 0.0, 1000.0)?;
        if c <= 0.0 {
            return Err(t.error(
                "c",
                &Value::from(c),
                "a number in the open interval (0, 1000] (RFC 9438 §5: C > 0)",
            ));
        }
        let beta = t.float("beta", Some(d.beta), 0.0, 1.0)?;
        if beta <= 0.0 || beta >= 1.0 {
            return Err(t.error(
                "beta",
                &Value::from(beta),
                "a number in the open interval (0, 1) (RFC 9438 §4.6: β_cubic)",
            ));
        }
        let fast_convergence = t.boolean("fast_convergence", d.fast_convergence)?;
        let hystart = t.choice("hystart", Some("off"), &["off", "hystart++"])? == "hystart++";
        let timeout_reset = t.choice("timeout_w_max", Some("reset"), &["reset", "keep"])? == "reset";
        let variant = match t
            .choice("variant", Some("rfc9438"), &["rfc9438", "linux", "ns3"])?
            .as_str()
        {
            "linux" => Variant::Linux,
            "ns3" => Variant::Ns3,
            _ => Variant::Rfc9438,
        };
        Ok(Params {
            c,
            beta,
            fast_convergence,
            hystart,
            timeout_reset,
            variant,
        })
    }

    /// α_cubic = 3(1 − β)/(1 + β) (§4.3).
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// K = ∛((W_max − cwnd_epoch)/C) in seconds (eq. 2), 0 if cwnd_epoch ≥ W_max.
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / self.c).cbrt()
    }
}

impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Cubic::new(*self))
    }
    fn needs(&self) -> Needs {
        Needs {
            // SACK recovery by default, as Linux and ns-3 (TcpSocketBase::Sack) run it
            sack: true,
            timestamps: self.hystart,
            reduces_cwnd: true,
            ..Needs::default()
        }
    }
}

/// The current epoch (§4.2).
#[derive(Copy, Clone, Debug)]
struct Epoch {
    start: Time,
    /// K, seconds.
    k: f64,
    /// The W_max of eq. 1 for this epoch, segments.
    w_max: f64,
    /// W_est, segments.
    w_est: f64,
}

pub struct Cubic {
    p: Params,
    alpha: f64,
    /// W_max (segments) from the last reduction; 0 before any.
    w_max: f64,
    /// cwnd_prior (segments): the window before the last reduction.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// The first epoch after a timeout starts with K = 0 (§4.8).
    after_timeout: bool,
    /// Fraction of a byte of cwnd carried to the next ACK.
    frac: f64,
    hystart: Option<HyStart>,
    reductions: u64,
    /// `variant = "linux"` or `"ns3"`: Linux's state (then `epoch` and `frac`
    /// are unused).
    bic: Option<Bictcp>,
}

/// 1/1024 fractions and the time scale of Linux's `tcp_cubic.c`.
const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: t and K in 1/2^10 s.
const BICTCP_HZ: u32 = 10;

/// Linux's `struct bictcp` (net/ipv4/tcp_cubic.c): windows in segments, times
/// in 1/1024 s, ACK counts in bytes (Linux counts packets; a full-sized
/// segment is one).
#[derive(Clone, Debug)]
struct Bictcp {
    /// β·1024 (`beta`, 717 for 0.7).
    beta: u64,
    /// C·1024 (`cube_rtt_scale = bic_scale·10`, 410 for 0.4).
    cube_rtt_scale: u64,
    /// `beta_scale = 8(1024 + β)/3/(1024 − β)`: the Reno-friendly window grows
    /// by one segment per `⌊beta_scale·cwnd/8⌋` segments acknowledged.
    beta_scale: u64,
    /// ACKs (segments) per one-segment increase.
    cnt: u64,
    last_max_cwnd: u64,
    bic_origin_point: u64,
    bic_k: u64,
    /// Minimum RTT since the last timeout.
    delay_min: Option<Time>,
    epoch_start: Option<Time>,
    /// Bytes acknowledged since the Reno-friendly window last grew.
    ack_cnt: u64,
    /// The Reno-friendly window (segments).
    tcp_cwnd: u64,
    /// `variant = "ns3"`: ns-3's ACK counter (`m_cWndCnt`, bytes here).
    ns3_cnt: Option<u64>,
    /// `variant = "ns3"`: the cumulative advance of the last ACK seen in a
    /// recovery, and, once that ACK ended it, what ns-3 counts for it: ns-3
    /// passes the ACK that leaves `CA_RECOVERY` every segment it
    /// acknowledges, the ones SACKed before included (Linux: those it
    /// delivered).
    recovery_ack: u64,
    exit_ack: Option<u64>,
}

impl Bictcp {
    fn new(p: &Params) -> Bictcp {
        let beta = ((p.beta * BETA_SCALE as f64).round() as u64).clamp(1, BETA_SCALE - 1);
        Bictcp {
            beta,
            cube_rtt_scale: ((p.c * BETA_SCALE as f64).round() as u64).max(1),
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            cnt: 0,
            last_max_cwnd: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min: None,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            ns3_cnt: (p.variant == Variant::Ns3).then_some(0),
            recovery_ack: 0,
            exit_ack: None,
        }
    }

    /// `bictcp_reset` at a timeout (Linux's `TCP_CA_Loss`); `keep_w_max` leaves
    /// `last_max_cwnd` (ns-3).
    fn reset(&mut self, keep_w_max: bool) {
        if !keep_w_max {
            self.last_max_cwnd = 0;
        }
        self.cnt = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min = None;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
    }

    /// `cubictcp_recalc_ssthresh`: W_max with fast convergence, and ssthresh
    /// `max(β·W, 2)` in whole segments, for a loss at `w` segments.
    fn recalc_ssthresh(&mut self, w: u64, fast_convergence: bool) -> u64 {
        self.epoch_start = None;
        self.last_max_cwnd = if w < self.last_max_cwnd && fast_convergence {
            w * (BETA_SCALE + self.beta) / (2 * BETA_SCALE)
        } else {
            w
        };
        (w * self.beta / BETA_SCALE).max(2)
    }

    /// `bictcp_update`: `cnt` for an ACK of `acked` bytes at `cwnd` segments.
    fn update(&mut self, now: Time, cwnd: u64, acked: u64, mss: u64) {
        self.ack_cnt += acked;
        let epoch_start = match self.epoch_start {
            Some(t) => t,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.bic_k = 0;
                    self.bic_origin_point = cwnd;
                } else {
                    // K = ∛((W_max − cwnd)/C) in 1/1024 s: cube_factor =
                    // 2^(10 + 3·BICTCP_HZ)/cube_rtt_scale.
                    let cube_factor = (1u128 << (10 + 3 * BICTCP_HZ)) / self.cube_rtt_scale as u128;
                    self.bic_k = icbrt(cube_factor * (self.last_max_cwnd - cwnd) as u128) as u64;
                    self.bic_origin_point = self.last_max_cwnd;
                }
                now
            }
        };
        let since = (now - epoch_start) + self.delay_min.unwrap_or(Time::ZERO);
        let t = ((since.0 as u128) << BICTCP_HZ) / 1_000_000_000;
        let k = self.bic_k as u128;
        let offs = t.abs_diff(k);
        // C·(t − K)³ in segments, truncated
        let delta =
            ((self.cube_rtt_scale as u128 * offs * offs * offs) >> (10 + 3 * BICTCP_HZ)).min(u64::MAX as u128) as u64;
        let bic_target = if t < k {
            self.bic_origin_point.saturating_sub(delta)
        } else {
            self.bic_origin_point.saturating_add(delta)
        };
        self.cnt = if bic_target > cwnd {
            cwnd / (bic_target - cwnd)
        } else {
            100 * cwnd
        };
        // the initial growth: at least 5 % per RTT before the first loss
        if self.last_max_cwnd == 0 {
            self.cnt = self.cnt.min(20);
        }
        // tcp_friendliness
        let per = ((cwnd * self.beta_scale) >> 3).max(1) * mss;
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        // at most one segment per two acknowledged (1.5·cwnd per RTT)
        self.cnt = self.cnt.max(2);
    }
}

/// ⌊∛x⌋.
fn icbrt(x: u128) -> u128 {
    let mut r = (x as f64).cbrt() as u128;
    while r * r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

impl Cubic {
    pub fn new(p: Params) -> Cubic {
        Cubic {
            bic: (p.variant != Variant::Rfc9438).then(|| Bictcp::new(&p)),
            alpha: p.alpha(),
            p,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            after_timeout: false,
            frac: 0.0,
            hystart: p.hystart.then(HyStart::new),
            reductions: 0,
        }
    }

    /// W_cubic(t) in segments (eq. 1).
    fn w_cubic(&self, e: &Epoch, t: f64) -> f64 {
        self.p.c * (t - e.k).powi(3) + e.w_max
    }

    /// Congestion avoidance for an ACK of `acked` bytes (§4.2–4.5).
    fn cubic_update(&mut self, s: &mut CcState, acked: u64) {
        let mss = s.mss as f64;
        let cwnd = s.cwnd as f64 / mss;
        let e = match self.epoch {
            Some(e) => e,
            None => {
                let mut w_max = self.w_max;
                if self.after_timeout || w_max <= cwnd {
                    w_max = cwnd;
                }
                self.after_timeout = false;
                let e = Epoch {
                    start: s.now,
                    k: self.p.k(w_max, cwnd),
                    w_max,
                    w_est: cwnd,
                };
                self.epoch = Some(e);
                e
            }
        };
        let t = (s.now - e.start).as_secs_f64();
        let segs = acked as f64 / mss;
        // §4.3: W_est grows at Reno's rate scaled by α_cubic (1 once it
        // reaches cwnd_prior).
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { self.alpha };
        let w_est = e.w_est + alpha * segs / cwnd;
        self.epoch = Some(Epoch { w_est, ..e });
        let next = if self.w_cubic(&e, t) < w_est {
            // Reno-friendly region: cwnd = W_est.
            w_est.max(cwnd)
        } else {
            // §4.4–4.5: target = W_cubic(t + RTT) in [cwnd, 1.5 cwnd].
            let rtt = s.srtt.or(s.min_rtt).unwrap_or(Time::ZERO).as_secs_f64();
            let target = self.w_cubic(&e, t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * segs
        };
        let bytes = next * mss - s.cwnd as f64 + self.frac;
        let whole = bytes.floor().max(0.0);
        self.frac = if bytes > 0.0 { bytes - whole } else { 0.0 };
        s.cwnd += whole as u64;
    }

    /// Slow start for an ACK of `acked` bytes; returns the bytes left for
    /// congestion avoidance. The RFC's: the sender's rule (RFC 3465, L = 1).
    /// Linux's `tcp_slow_start`: cwnd + acked, not past ssthresh, the rest
    /// left over. ns-3's `TcpCubic`: cwnd + acked, past ssthresh too, nothing
    /// left over.
    fn slow_start(&self, s: &mut CcState, acked: u64) -> u64 {
        match self.p.variant {
            Variant::Rfc9438 => slow_start(s, acked),
            Variant::Linux => {
                let grown = (s.cwnd + acked).min(s.ssthresh.max(s.cwnd));
                let left = acked - (grown - s.cwnd);
                s.cwnd = grown;
                left
            }
            Variant::Ns3 => {
                s.cwnd += acked;
                0
            }
        }
    }

    /// W_max and ssthresh after a congestion event (§4.6–4.7).
    fn reduce(&mut self, s: &CcState) -> u64 {
        if let Some(h) = self.hystart.as_mut() {
            h.stop();
        }
        if let Some(b) = self.bic.as_mut() {
            self.reductions += 1;
            let ssthresh = b.recalc_ssthresh(s.flight / s.mss, self.p.fast_convergence);
            self.w_max = b.last_max_cwnd as f64;
            return ssthresh * s.mss;
        }
        let w = s.flight as f64 / s.mss as f64;
        self.w_max = if self.p.fast_convergence && w < self.w_max {
            w * (1.0 + self.p.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.epoch = None;
        self.frac = 0.0;
        self.reductions += 1;
        ((w * self.p.beta * s.mss as f64) as u64).max(2 * s.mss)
    }
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        self.reduce(s)
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let mut acked = self.bic.as_mut().and_then(|b| b.exit_ack.take()).unwrap_or(acked);
        if s.cwnd < s.ssthresh {
            let exit = self.hystart.as_mut().is_some_and(|h| h.take_exit());
            let divisor = match &self.hystart {
                // RFC 9406 §4.2: CSS_ROUNDS done, ssthresh = cwnd.
                _ if exit => {
                    s.ssthresh = s.cwnd;
                    0
                }
                Some(h) => h.divisor(),
                None => 1,
            };
            match divisor {
                0 => {}
                1 => acked = self.slow_start(s, acked),
                d => {
                    // CSS: a quarter of slow start's increase.
                    s.cwnd = (s.cwnd + acked.min(s.mss) / d).min(s.ssthresh);
                    acked = 0;
                }
            }
        }
        if acked > 0 && s.cwnd >= s.ssthresh {
            match self.bic.as_mut() {
                Some(b) => {
                    b.update(s.now, s.cwnd / s.mss, acked, s.mss);
                    match b.ns3_cnt.as_mut() {
                        // ns-3: one segment when the count reaches cnt, the
                        // rest kept, never cleared (not even by a reduction)
                        Some(n) => {
                            *n += acked;
                            if *n >= b.cnt * s.mss {
                                *n -= b.cnt * s.mss;
                                s.cwnd += s.mss;
                            }
                        }
                        None => cong_avoid_ai_w(&mut s.cwnd, &mut s.cwnd_cnt, s.mss, b.cnt, acked),
                    }
                }
                None => self.cubic_update(s, acked),
            }
        }
    }
    fn pkts_acked(&mut self, s: &CcState, a: &AckSample) {
        let ns3 = self.p.variant == Variant::Ns3;
        if let Some(b) = self.bic.as_mut() {
            if ns3 && a.in_recovery && !a.dup {
                b.recovery_ack = a.acked;
            }
            // cubictcp_acked: no delay sample in an epoch's first second;
            // ns-3: its first 10 ms (`CubicDelta`), and the sample is srtt
            let (rtt, quiet) = if ns3 {
                (s.srtt, Time::from_millis(10))
            } else {
                (a.rtt, Time::from_secs(1))
            };
            let fresh = b.epoch_start.is_some_and(|e| s.now - e < quiet);
            if let Some(rtt) = rtt.filter(|_| !fresh) {
                if b.delay_min.is_none_or(|d| rtt < d) {
                    b.delay_min = Some(rtt);
                }
            }
        }
        if let Some(h) = self.hystart.as_mut() {
            if s.cwnd < s.ssthresh && !a.dup && !a.in_recovery {
                h.on_ack(a.acked, a.rtt, s.flight);
            }
        }
    }
    fn per_ack_hooks(&self) -> bool {
        self.hystart.is_some() || self.bic.is_some()
    }
    fn counts_acked(&self) -> bool {
        self.bic.is_some()
    }
    fn cwnd_event(&mut self, _s: &mut CcState, ev: CaEvent) {
        if let Some(b) = self.bic.as_mut().filter(|_| self.p.variant == Variant::Ns3) {
            b.exit_ack = (ev == CaEvent::ExitRecovery).then_some(b.recovery_ack);
        }
        if ev == CaEvent::Timeout {
            self.epoch = None;
            self.after_timeout = self.p.timeout_reset;
            if let Some(b) = self.bic.as_mut() {
                b.reset(!self.p.timeout_reset);
                self.w_max = b.last_max_cwnd as f64;
            }
            if let Some(h) = self.hystart.as_mut() {
                h.stop();
            }
        }
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("w_max", self.w_max))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        let mut v = vec![("reductions", self.reductions as f64)];
        if let Some(h) = &self.hystart {
            v.push(("css_entries", h.css_entries as f64));
            v.push(("css_spurious", h.css_spurious as f64));
        }
        v
    }
}

/// The registry's reader.
pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Params::read(t)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn st(cwnd_segs: u64, ssthresh_segs: u64, now: Time, srtt: Time) -> CcState {
        CcState {
            now,
            mss: MSS,
            cwnd: cwnd_segs * MSS,
            ssthresh: ssthresh_segs * MSS,
            flight: cwnd_segs * MSS,
            cwnd_cnt: 0,
            byte_counting: true,
            srtt: Some(srtt),
            min_rtt: Some(srtt),
            pipe: 0,
            delivered: 0,
            pacing_rate: 0,
            stamp: 0.0,
        }
    }

    #[test]
    fn k_for_a_given_w_max() {
        // RFC 9438 eq. 2 with W_max = 100, cwnd_epoch = 70 (β = 0.7), C = 0.4:
        // K = ∛(30/0.4) = ∛75 = 4.2172 s.
        let p = Params::default();
        assert!((p.k(100.0, 70.0) - 4.217_163).abs() < 1e-5);
        assert_eq!(p.k(50.0, 70.0), 0.0);
        // α_cubic = 3·0.3/1.7 = 0.5294
        assert!((p.alpha() - 0.529_411_8).abs() < 1e-6);
    }

    /// Drives `c` with one ACK per segment of the window, spread evenly over
    /// each RTT, from `s.now` to `until`; returns cwnd (segments) at the end
    /// of each RTT.
    fn drive(c: &mut Cubic, s: &mut CcState, until: Time, rtt: Time) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        while s.now < until {
            let n = s.cwnd / MSS;
            for _ in 0..n {
                s.now += Time(rtt.0 / n);
                c.cong_avoid(s, MSS);
            }
            out.push((s.now.as_secs_f64(), s.cwnd as f64 / MSS as f64));
        }
        out
    }

    fn at(series: &[(f64, f64)], t: f64) -> f64 {
        series.iter().find(|p| p.0 >= t).expect("sampled").1
    }

    /// After a loss at W = 1000 segments (RTT 100 ms, where the cubic curve
    /// is far above Reno's line) cwnd follows W_cubic: at t = K = ∛(300/0.4)
    /// = 9.09 s it is back at W_max (the plateau), and at 14 s, 0.4·(14 −
    /// K)³ = 47.5 segments above it; halfway to K, 1000 − 0.4·(K/2)³.
    #[test]
    fn window_after_t_seconds_follows_w_cubic() {
        let mut c = Cubic::new(Params::default());
        let rtt = Time::from_millis(100);
        assert_eq!(c.ssthresh(&st(1000, 10_000, Time::ZERO, rtt)), 700 * MSS);
        let mut s = st(700, 700, Time::ZERO, rtt);
        let k = Params::default().k(1000.0, 700.0);
        assert!((k - 9.0856).abs() < 1e-3);
        let series = drive(&mut c, &mut s, Time::from_secs(14), rtt);
        for t in [k / 2.0, k, 14.0] {
            let want = 0.4 * (t - k).powi(3) + 1000.0;
            let got = at(&series, t);
            assert!(
                (got - want).abs() / want < 0.01,
                "cwnd at {t} s: {got}, W_cubic: {want}"
            );
        }
    }

    /// With a small W_max and a long RTT the cubic curve is slower than
    /// Reno's: W_est takes over (§4.3). W_max = 10, cwnd_epoch = 7: K =
    /// ∛7.5 = 1.96 s, while at RTT 100 ms W_est grows by α ≈ 0.53 segment per
    /// RTT to 10 (cwnd_prior), then 1 per RTT: 10 is reached after ~5.7 RTTs,
    /// and by 1 s W_est ≈ 14.3, while W_cubic(1 s) = 10 − 0.4·0.96³ ≈ 9.65.
    #[test]
    fn reno_friendly_region_takes_over_at_small_rtt_times_w() {
        let mut c = Cubic::new(Params::default());
        let rtt = Time::from_millis(100);
        c.ssthresh(&st(10, 1000, Time::ZERO, rtt));
        let mut s = st(7, 7, Time::ZERO, rtt);
        drive(&mut c, &mut s, Time::from_secs(1), rtt);
        let e = c.epoch.unwrap();
        let cwnd = s.cwnd as f64 / MSS as f64;
        assert!(c.w_cubic(&e, 1.0) < 9.7);
        assert!((cwnd - e.w_est).abs() < 0.01, "cwnd {cwnd} is W_est {}", e.w_est);
        assert!(cwnd > 13.0 && cwnd < 15.0, "{cwnd}");
    }

    #[test]
    fn fast_convergence_releases_bandwidth() {
        let mut c = Cubic::new(Params::default());
        let rtt = Time::from_millis(10);
        c.ssthresh(&st(100, 1000, Time::ZERO, rtt));
        assert_eq!(c.w_max, 100.0);
        // the next loss at 80 < W_max: W_max = 80·1.7/2 = 68
        assert_eq!(c.ssthresh(&st(80, 70, Time::ZERO, rtt)), 56 * MSS);
        assert!((c.w_max - 68.0).abs() < 1e-9);
        let mut off = Cubic::new(Params {
            fast_convergence: false,
            ..Params::default()
        });
        off.ssthresh(&st(100, 1000, Time::ZERO, rtt));
        off.ssthresh(&st(80, 70, Time::ZERO, rtt));
        assert_eq!(off.w_max, 80.0);
    }

    /// The epoch that begins at the first congestion avoidance after a
    /// timeout at cwnd 100 (no earlier W_max), slow start having reached 70.
    fn epoch_after_a_timeout(p: Params) -> Epoch {
        let mut c = Cubic::new(p);
        let rtt = Time::from_millis(10);
        let mut s = st(100, 1000, Time::ZERO, rtt);
        c.ssthresh_timeout(&s);
        c.cwnd_event(&mut s, CaEvent::Timeout);
        let mut s = st(70, 70, Time::from_secs(1), rtt);
        c.cong_avoid(&mut s, MSS);
        c.epoch.unwrap()
    }

    /// §4.8: the first congestion avoidance after a timeout starts at K = 0.
    #[test]
    fn after_a_timeout_k_is_zero() {
        let e = epoch_after_a_timeout(Params::default());
        assert_eq!((e.k, e.w_max), (0.0, 70.0));
    }

    /// `timeout_w_max = "keep"` (ns-3): the timeout's reduction sets W_max as
    /// any loss (here 100, no earlier W_max) and the epoch after slow start
    /// climbs back to it: K = ∛((100 − 70)/0.4) = ∛75 ≈ 4.22 s.
    #[test]
    fn keep_leaves_the_timeouts_w_max() {
        let j = serde_json::json!({"timeout_w_max": "keep"});
        let e = epoch_after_a_timeout(Params::read(&mut Tab::new("cc".into(), &j).unwrap()).unwrap());
        assert_eq!(e.w_max, 100.0);
        assert!((e.k - 75f64.cbrt()).abs() < 1e-12, "K {}", e.k);
        let bad = serde_json::json!({"timeout_w_max": "zero"});
        let err = Params::read(&mut Tab::new("flows[0].cc".into(), &bad).unwrap()).unwrap_err();
        assert_eq!(err.path, "flows[0].cc.timeout_w_max");
    }

    #[test]
    fn bad_parameters_are_refused_with_the_key() {
        for (k, v) in [("beta", 1.0), ("beta", 0.0), ("c", 0.0)] {
            let j = serde_json::json!({ k: v });
            let mut t = Tab::new("flows[0].cc".into(), &j).unwrap();
            let e = Params::read(&mut t).unwrap_err();
            assert_eq!(e.path, format!("flows[0].cc.{k}"));
            assert!(e.expected.contains("open interval"), "{e}");
        }
        let j = serde_json::json!({"hystart": "hystart++", "beta": 0.5});
        let mut t = Tab::new("cc".into(), &j).unwrap();
        let p = Params::read(&mut t).unwrap();
        assert!(p.hystart && p.needs().timestamps);
        assert_eq!(p.beta, 0.5);
    }

    fn variant(v: &str) -> Params {
        let j = serde_json::json!({ "variant": v });
        Params::read(&mut Tab::new("cc".into(), &j).unwrap()).unwrap()
    }

    /// `p`'s CUBIC after a loss at 15 segments (RTT 20 ms), and the sender at
    /// cwnd = ssthresh = 10 segments one second later.
    fn after_loss_at_15(p: Params) -> (Cubic, CcState) {
        let rtt = Time::from_millis(20);
        let mut c = Cubic::new(p);
        c.ssthresh(&st(15, 100, Time::ZERO, rtt));
        (c, st(10, 10, Time::from_secs(1), rtt))
    }

    /// `n` ACKs of one segment each at `s.now` (time stands still, so the
    /// cubic target stays where it is).
    fn acks(c: &mut Cubic, s: &mut CcState, n: usize) {
        for _ in 0..n {
            c.cong_avoid(s, MSS);
        }
    }

    /// Linux's constants: β = 717/1024, C = 410/1024, beta_scale = 15 (one
    /// Reno-friendly segment per ⌊15·cwnd/8⌋ ACKs); ssthresh and W_max in
    /// whole segments: a loss at 15 keeps ⌊15·717/1024⌋ = 10; the next at 14
    /// (below W_max) sets W_max = ⌊14·1741/2048⌋ = 11.
    #[test]
    fn linux_reduces_in_whole_segments() {
        let mut c = Cubic::new(variant("linux"));
        let b = c.bic.as_ref().unwrap();
        assert_eq!((b.beta, b.cube_rtt_scale, b.beta_scale), (717, 410, 15));
        let rtt = Time::from_millis(20);
        assert_eq!(c.ssthresh(&st(15, 100, Time::ZERO, rtt)), 10 * MSS);
        assert_eq!(c.bic.as_ref().unwrap().last_max_cwnd, 15);
        assert_eq!(c.ssthresh(&st(14, 100, Time::ZERO, rtt)), 9 * MSS);
        assert_eq!(c.bic.as_ref().unwrap().last_max_cwnd, 11);
        assert_eq!(c.ssthresh(&st(2, 100, Time::ZERO, rtt)), 2 * MSS);
    }

    /// After a loss at W_max = 15, cwnd 10: K = ⌊∛(2^40/410 · 5)⌋ = 2375/1024
    /// s, and at t = 0 C·K³ = 4.99 segments, truncated to 4: the target is 11
    /// where the RFC's real-valued W_cubic(RTT) is 10.1. So cwnd gains a
    /// segment after cnt = 10/(11 − 10) = 10 ACKs, where the RFC variant has
    /// grown by about half of one (W_est: α_cubic = 0.53 per window).
    #[test]
    fn linux_truncates_the_cubic_target_to_whole_segments() {
        let (mut c, mut s) = after_loss_at_15(variant("linux"));
        acks(&mut c, &mut s, 9);
        assert_eq!(s.cwnd, 10 * MSS);
        assert_eq!(c.bic.as_ref().unwrap().bic_k, 2375);
        acks(&mut c, &mut s, 1);
        assert_eq!(s.cwnd, 11 * MSS);
        let (mut r, mut s) = after_loss_at_15(Params::default());
        acks(&mut r, &mut s, 10);
        assert!(
            s.cwnd > 10 * MSS + MSS / 2 && s.cwnd < 10 * MSS + 6 * MSS / 10,
            "{}",
            s.cwnd
        );
    }

    /// Where the cubic curve is flat (K = 0 at cwnd 20, time standing
    /// still) the Reno-friendly window leads: it gains a segment once more
    /// than ⌊15·20/8⌋ = 37 segments are acknowledged, and cwnd follows it on
    /// that ACK (`tcp_cong_avoid_ai` with the count already past cnt = 20).
    #[test]
    fn linux_reno_friendly_window_grows_every_37_acks_at_20() {
        let rtt = Time::from_millis(20);
        for v in ["linux", "ns3"] {
            let mut c = Cubic::new(variant(v));
            c.ssthresh(&st(20, 100, Time::ZERO, rtt));
            c.bic.as_mut().unwrap().last_max_cwnd = 20;
            let mut s = st(20, 20, Time::from_secs(1), rtt);
            acks(&mut c, &mut s, 37);
            assert_eq!(s.cwnd, 20 * MSS, "{v}");
            acks(&mut c, &mut s, 1);
            assert_eq!(s.cwnd, 21 * MSS, "{v}");
        }
    }

    /// ns-3's `TcpCubic` keeps its ACK count across reductions (Linux's
    /// `snd_cwnd_cnt` is cleared), and counts the ACK that ends a recovery
    /// with all it acknowledges (here 14 segments, SACKed before). After a
    /// loss at 15, cwnd 10 (target 11, cnt 10, as above): the count of 14
    /// grows cwnd to 11 at once and starts the Reno-friendly window's count at
    /// 14; that window reaches 11 after 7 more ACKs (count > ⌊15·11/8⌋ = 20),
    /// 12 after 20 more, and cwnd follows it (cnt = 11, the count at 31).
    /// Linux (delivered: one segment) needs the ten ACKs.
    #[test]
    fn ns3_counts_the_recovery_exit_ack_whole_and_keeps_its_count() {
        let (mut c, mut s) = after_loss_at_15(variant("ns3"));
        let exit = AckSample {
            acked: 14 * MSS,
            in_recovery: true,
            ..AckSample::default()
        };
        c.pkts_acked(&s, &exit);
        c.cwnd_event(&mut s, CaEvent::ExitRecovery);
        c.cong_avoid(&mut s, MSS);
        assert_eq!(s.cwnd, 11 * MSS);
        acks(&mut c, &mut s, 26);
        assert_eq!(s.cwnd, 11 * MSS);
        acks(&mut c, &mut s, 1);
        assert_eq!(s.cwnd, 12 * MSS);

        let (mut l, mut s) = after_loss_at_15(variant("linux"));
        l.pkts_acked(&s, &exit);
        l.cwnd_event(&mut s, CaEvent::ExitRecovery);
        acks(&mut l, &mut s, 9);
        assert_eq!(s.cwnd, 10 * MSS);
    }

    /// Slow start: the RFC variant the sender's rule (one segment per ACK),
    /// Linux up to ssthresh with the rest to congestion avoidance, ns-3 all
    /// of it, past ssthresh too.
    #[test]
    fn slow_start_by_variant() {
        let rtt = Time::from_millis(20);
        for (v, want) in [("rfc9438", 11), ("linux", 14), ("ns3", 16)] {
            let mut c = Cubic::new(variant(v));
            let mut s = st(10, 14, Time::ZERO, rtt);
            c.cong_avoid(&mut s, 6 * MSS);
            assert_eq!(s.cwnd / MSS, want, "{v}");
        }
    }

    #[test]
    fn integer_cube_root() {
        for x in [0u128, 1, 7, 8, 26, 27, 13_408_678_385, u64::MAX as u128] {
            let r = icbrt(x);
            assert!(r * r * r <= x && (r + 1) * (r + 1) * (r + 1) > x, "{x}: {r}");
        }
        assert_eq!(icbrt(2681735677 * 5), 2375);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Whatever the ACK times, sizes, RTTs and losses: congestion
            /// avoidance never shrinks cwnd and grows it by at most half a
            /// segment per segment acknowledged (the 1.5·cwnd clamp of §4.4)
            /// unless the Reno-friendly W_est (which grows by at most one
            /// segment per window) is above it; a reduction keeps
            /// max(β·W, 2 segments) and W_max is positive.
            #[test]
            fn window_stays_within_the_rfc_bounds(
                events in proptest::collection::vec((0u64..50, 1u64..4, 1u64..300, 0u8..20), 1..400),
                beta in 0.05f64..0.95,
                c in 0.01f64..4.0,
            ) {
                let p = Params { c, beta, ..Params::default() };
                let mut cc = Cubic::new(p);
                let mut s = st(10, 10, Time::ZERO, Time::from_millis(50));
                for (dt, segs, rtt, loss) in events {
                    s.now += Time::from_millis(dt);
                    s.srtt = Some(Time::from_millis(rtt));
                    if loss == 0 {
                        s.flight = s.cwnd;
                        let w = cc.ssthresh(&s);
                        prop_assert_eq!(w, ((s.cwnd as f64 * beta) as u64).max(2 * MSS));
                        prop_assert!(cc.w_max > 0.0);
                        s.cwnd = w;
                        s.ssthresh = w;
                        continue;
                    }
                    let before = s.cwnd;
                    cc.cong_avoid(&mut s, segs * MSS);
                    prop_assert!(s.cwnd >= before);
                    let est = cc.epoch.map_or(0.0, |e| e.w_est * MSS as f64);
                    let bound = (before + segs * MSS / 2 + 1) as f64;
                    prop_assert!(s.cwnd as f64 <= bound.max(est + 1.0), "{} -> {} (W_est {})", before, s.cwnd, est);
                }
            }

            /// Linux's and ns-3's arithmetic, whatever the ACK times, RTTs
            /// and losses: from a window of whole segments, congestion
            /// avoidance on one-segment ACKs keeps it whole, never shrinks
            /// it and grows it by at most one segment per ACK (cnt ≥ 2, one
            /// count carried); a reduction keeps max(⌊W·717/1024⌋, 2)
            /// whole segments.
            #[test]
            fn linux_windows_stay_whole_segments(
                events in proptest::collection::vec((0u64..50, 1u64..300, 0u8..20), 1..400),
                ns3 in any::<bool>(),
            ) {
                let mut cc = Cubic::new(variant(if ns3 { "ns3" } else { "linux" }));
                let mut s = st(10, 10, Time::ZERO, Time::from_millis(50));
                for (dt, rtt, loss) in events {
                    s.now += Time::from_millis(dt);
                    s.srtt = Some(Time::from_millis(rtt));
                    let a = AckSample { acked: MSS, rtt: s.srtt, ..AckSample::default() };
                    cc.pkts_acked(&s, &a);
                    if loss == 0 {
                        s.flight = s.cwnd;
                        let w = cc.ssthresh(&s);
                        prop_assert_eq!(w, (s.cwnd / MSS * 717 / 1024).max(2) * MSS);
                        s.cwnd = w;
                        s.ssthresh = w;
                        s.cwnd_cnt = 0;
                        continue;
                    }
                    let before = s.cwnd;
                    cc.cong_avoid(&mut s, MSS);
                    prop_assert_eq!(s.cwnd % MSS, 0);
                    prop_assert!(s.cwnd >= before && s.cwnd <= before + MSS, "{} -> {}", before, s.cwnd);
                }
            }
        }
    }
}
