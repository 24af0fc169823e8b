//! The BMCC sender (I. A. Qazi, L. L. H. Andrew, T. Znati, "Incremental
//! deployment of new ECN-compatible congestion control", PFLDNeT 2009, §3.3,
//! the modified scheme of §5.2 and the SACK-compatibility heuristic of §5.3;
//! BMCC: Qazi, Andrew & Znati, INFOCOM 2009; control laws and timers inherited
//! from VCP, Xia et al., SIGCOMM 2005, ns-2 `vcp-src.cc`). Spec:
//! `specs/bmcc.md` §4, §6, B6–B9; `corrections.md` (BMCC).
//!
//! The window w (packets, a real number) follows the echoed estimate f̂ of the
//! bottleneck's load factor ([`crate::feedback::bmcc`] fills it into every
//! ACK; the sender uses the latest; a new flow assumes f̂ = η₀ = 0.15), with T
//! the flow's smoothed RTT (B7; `rtt = "min"`: the minimum RTT) and
//! t_p = 200 ms the routers' measurement interval:
//!
//! | load | law per RTT (eqs. 2–6) | per ACK newly acknowledging k packets |
//! |---|---|---|
//! | f̂ < η = 0.75 | MI: w ← w·(1 + ξ(f̂))^{T/t_p}, ξ = κ₂(1 − f̂)/f̂, κ₂ = 0.35 | w += k·((1 + ξ)^{T/t_p} − 1) |
//! | η ≤ f̂ < 1 | AI: w ← w + α, α = (T/t_p)² | w += k·α/w |
//! | f̂ ≥ 1 | MD: w ← w·β(f̂), β = β_max − Δβ·(f̂ − 1)/(u − 1) | once, see below |
//!
//! with β_max = 0.875, β_min = 0.65, u = 1.2 (β = 0.65 for f̂ ≥ u). The per-ACK
//! increments are VCP's (`opencwnd`): one window of ACKs multiplies or adds
//! what the per-RTT law says. VCP adds one increment per new ACK whatever it
//! acknowledges; here an ACK counts the packets it acknowledges, at most two
//! ([`MAX_ACKED_PER_ACK`], RFC 3465's limit), so that delayed ACKs do not halve
//! the growth and the ACK that ends a loss recovery (covering a whole window
//! of SACKed data) does not multiply the window by what it covers.
//!
//! * **MD and the freeze** (corrections.md, VCP's `md_wait_timer_`): the first
//!   overload signal multiplies w by β(f̂); further overload signals are then
//!   ignored for one t_p (the freeze), and treated as high load (AI) for one
//!   RTT after it; then MD is possible again. `md_rule = "once-per-rtt"`: after
//!   an MD, overload signals are ignored and the window held for one RTT.
//!   Signals of low or high load apply their law during the freeze (as VCP).
//!   Increases apply only to ACKs of new data outside loss recovery; signals
//!   are read from every ACK.
//! * **Packet loss** (§3.3, B9): like a CE mark but the factor is ½: the
//!   window is halved once per RTT (not again if a reduction was made within
//!   the last RTT), f̂ is unchanged, SACK recovers (the sender's RFC 6675
//!   machinery, with BMCC's window as cwnd); a loss response starts the freeze
//!   like an MD. After a timeout the sender restarts from one segment and MI
//!   (no slow start) regrows the window.
//! * **CE**: in the original design the receiver turns a CE packet into
//!   f̂ = u, so the next ACK asks for MD by β(u) = 0.65. In the **modified
//!   scheme** (§5.2; the receiver's `on_ce = "flag"`, which selects it for
//!   both ends) the receiver keeps f̂ and flags the ACK (`ce_seen`), and the
//!   sender backs off by β(f̂) only on a flagged ACK with f̂ ≥ 1. Overload
//!   without a flag (f̂ ≥ 1, no CE): the paper does not say; the default is
//!   AI (the law VCP applies to overload outside an MD), `unflagged_overload =
//!   "hold"` keeps the window.
//! * **SACK-compatibility heuristic** (§5.3, `sack_fallback = true`): a loss,
//!   or a CE mark while f̂ < 1 (f̂ as it was before the mark's ACK: the
//!   original receiver's f̂ = u on CE would hide it), means the bottleneck is
//!   not a BMCC router: the sender switches to SACK mode without treating that
//!   signal as congestion (no halving; the lost packet is retransmitted). In
//!   SACK mode the window is standard TCP's (Reno growth through the shared
//!   helpers, ssthresh = the window at the switch, halving on loss and on CE at
//!   most once per RTT); f̂ is still tracked, and f̂ > 1 switches back to BMCC.
//!
//! Choices and deviations:
//! * BMCC reads CE from the feedback option (`ce_seen` per packet, or
//!   f̂ = u), never from RFC 3168's ECN-Echo: [`CongestionOps::ecn_echo`]
//!   answers `None`, so no CWR is sent and the receiver's ECE stays set after
//!   the first CE, which the sender ignores.
//! * The window is kept as a real number here and written into the sender's
//!   byte cwnd (floor(w·MSS), at least one MSS), so increments smaller than a
//!   byte per ACK (AI at T = 40 ms is 0.04 packet per RTT) are not lost. When
//!   the sender sets cwnd itself (a timeout), w follows it.
//! * VCP caps T/t_p at 2.5 and paces windows of 2–64 packets when the RTT is
//!   large; BMCC's papers mention neither, and neither is done here.

use super::{reno_cong_avoid, AckSample, CcState, CongestionOps, Recovery};
use crate::adpm::{ETA, ETA0, U};
use crate::cfg::{Res, Tab};
use crate::units::Time;
use serde_json::Value;

/// The most packets one ACK's increase counts (RFC 3465's L = 2 for slow
/// start): an ACK that covers a repaired hole acknowledges data sent long ago,
/// and counting all of it would multiply the window by what it covers.
pub const MAX_ACKED_PER_ACK: f64 = 2.0;

/// When MD may happen again after an MD (corrections.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MdRule {
    /// MD, then freeze for t_p, then AI on overload for one RTT (VCP).
    Vcp,
    /// MD at most once per RTT, overload ignored in between.
    OncePerRtt,
}

/// Which RTT stands for T in the laws (B7).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RttSource {
    Smoothed,
    Min,
}

/// The sender's configuration.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// The routers' measurement interval t_p (> 0).
    pub interval: Time,
    /// κ₂, the MI gain (> 0).
    pub kappa2: f64,
    /// β_max and β_min, the MD factors at f̂ = 1 and f̂ ≥ u (0 < β_min ≤ β_max < 1).
    pub beta_max: f64,
    pub beta_min: f64,
    pub md_rule: MdRule,
    pub rtt: RttSource,
    /// The SACK-compatibility heuristic of §5.3.
    pub sack_fallback: bool,
    /// The modified scheme (§5.2): MD only on an ACK flagging CE with f̂ ≥ 1.
    /// Set from the receiver's `on_ce = "flag"`.
    pub flagged_md: bool,
    /// In the modified scheme, overload without a CE flag holds the window
    /// (else AI).
    pub hold_unflagged_overload: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            interval: Time::from_millis(200),
            kappa2: 0.35,
            beta_max: 0.875,
            beta_min: 0.65,
            md_rule: MdRule::Vcp,
            rtt: RttSource::Smoothed,
            sack_fallback: false,
            flagged_md: false,
            hold_unflagged_overload: false,
        }
    }
}

impl Params {
    /// Reads the keys of `cc = {kind = "bmcc", ...}` (`kind` already read).
    pub fn read(t: &mut Tab) -> Res<Params> {
        let d = Params::default();
        let interval = t.time("interval", Some("200ms"))?;
        if interval == Time::ZERO || interval > Time::from_secs(60) {
            return Err(t.error(
                "interval",
                &Value::from(crate::cfg::time_str(interval)),
                "the routers' measurement interval t_p in (0, 60 s], such as \"200ms\"",
            ));
        }
        let kappa2 = t.float("kappa2", Some(d.kappa2), 1e-6, 100.0)?;
        let beta_max = t.float("beta_max", Some(d.beta_max), 0.0, 1.0)?;
        let beta_min = t.float("beta_min", Some(d.beta_min), 0.0, 1.0)?;
        if !(beta_min > 0.0 && beta_min <= beta_max && beta_max < 1.0) {
            return Err(t.error(
                "beta_min",
                &Value::from(beta_min),
                format!("0 < beta_min ≤ beta_max < 1 (beta_max = {beta_max})"),
            ));
        }
        let md_rule = match t.choice("md_rule", Some("vcp"), &["vcp", "once-per-rtt"])?.as_str() {
            "once-per-rtt" => MdRule::OncePerRtt,
            _ => MdRule::Vcp,
        };
        let rtt = match t.choice("rtt", Some("srtt"), &["srtt", "min"])?.as_str() {
            "min" => RttSource::Min,
            _ => RttSource::Smoothed,
        };
        let sack_fallback = t.boolean("sack_fallback", false)?;
        let hold = t.choice("unflagged_overload", Some("ai"), &["ai", "hold"])? == "hold";
        Ok(Params {
            interval,
            kappa2,
            beta_max,
            beta_min,
            md_rule,
            rtt,
            sack_fallback,
            flagged_md: false,
            hold_unflagged_overload: hold,
        })
    }

    /// ξ(f̂) = κ₂(1 − f̂)/f̂ (eq. 2), with f̂ no lower than η₀.
    pub fn xi(&self, f: f64) -> f64 {
        let f = f.max(ETA0);
        self.kappa2 * (1.0 - f) / f
    }

    /// The MI factor per RTT T: (1 + ξ(f̂))^{T/t_p} (eq. 3).
    pub fn mi_factor(&self, f: f64, rtt: Time) -> f64 {
        (1.0 + self.xi(f)).powf(rtt.as_secs_f64() / self.interval.as_secs_f64())
    }

    /// α = (T/t_p)² packets per RTT (eq. 4).
    pub fn alpha(&self, rtt: Time) -> f64 {
        let r = rtt.as_secs_f64() / self.interval.as_secs_f64();
        r * r
    }

    /// β(f̂) = β_max − Δβ·(f̂ − 1)/(u − 1), within [β_min, β_max] (eqs. 5–6).
    pub fn beta(&self, f: f64) -> f64 {
        let x = ((f - 1.0) / (U - 1.0)).clamp(0.0, 1.0);
        self.beta_max - (self.beta_max - self.beta_min) * x
    }
}

/// Which congestion control the sender runs (§5.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Bmcc,
    Sack,
}

#[derive(Clone, Debug)]
struct Stats {
    md: u64,
    loss_halvings: u64,
    ce_halvings: u64,
    to_sack: u64,
    to_bmcc: u64,
    first_sack_s: Option<f64>,
    /// Smallest and largest factor an MD applied (β(f̂)), and of those made
    /// on an ACK of a CE packet.
    md_factor: (f64, f64),
    ce_md_factor: (f64, f64),
    /// Smallest and largest factor a loss response applied to the window.
    loss_factor: (f64, f64),
    /// Time spent in SACK mode up to the last mode switch, s.
    sack_s: f64,
    /// When SACK mode was last entered, and the last ACK's time, s.
    sack_since: f64,
    last_ack_s: f64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            md: 0,
            loss_halvings: 0,
            ce_halvings: 0,
            to_sack: 0,
            to_bmcc: 0,
            first_sack_s: None,
            md_factor: (f64::NAN, f64::NAN),
            ce_md_factor: (f64::NAN, f64::NAN),
            loss_factor: (f64::NAN, f64::NAN),
            sack_s: 0.0,
            sack_since: 0.0,
            last_ack_s: 0.0,
        }
    }
}

/// Widens the range `r` to include `x` (NaN: empty).
fn widen(r: &mut (f64, f64), x: f64) {
    *r = (r.0.min(x), r.1.max(x)); // f64::min/max ignore a NaN side
}

/// The BMCC congestion-control module.
pub struct Bmcc {
    p: Params,
    /// The latest echoed estimate.
    f_hat: f64,
    /// The window in packets.
    w: f64,
    /// The cwnd (bytes) last written, to notice the sender's own changes.
    written: u64,
    /// Time of the last reduction (MD, loss or CE halving): the freeze.
    reduced_at: Option<Time>,
    mode: Mode,
    stats: Stats,
}

impl Bmcc {
    pub fn new(p: Params) -> Bmcc {
        Bmcc {
            p,
            f_hat: ETA0,
            w: 0.0,
            written: u64::MAX,
            reduced_at: None,
            mode: Mode::Bmcc,
            stats: Stats::default(),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    pub fn estimate(&self) -> f64 {
        self.f_hat
    }
    /// The window in packets (as a real number).
    pub fn window(&self) -> f64 {
        self.w
    }

    /// T for the laws: SRTT (or the minimum RTT), t_p before any sample.
    fn rtt(&self, s: &CcState) -> Time {
        let r = match self.p.rtt {
            RttSource::Smoothed => s.srtt,
            RttSource::Min => s.min_rtt,
        };
        r.filter(|r| *r > Time::ZERO).unwrap_or(self.p.interval)
    }

    /// Follows the sender's cwnd where the sender set it (timeout, recovery).
    fn sync(&mut self, s: &CcState) {
        if s.cwnd != self.written {
            self.w = s.cwnd as f64 / s.mss as f64;
        }
    }

    fn write(&mut self, s: &mut CcState) {
        self.w = self.w.max(1.0);
        s.cwnd = ((self.w * s.mss as f64) as u64).max(s.mss);
        self.written = s.cwnd;
    }

    /// A reduction was made less than one RTT ago (the same window of data).
    fn reduced_within(&self, now: Time, rtt: Time) -> bool {
        self.reduced_at.is_some_and(|t| now < t + rtt)
    }

    /// §5.3: the bottleneck is not a BMCC router; standard TCP from here.
    fn enter_sack_mode(&mut self, now: Time) {
        self.mode = Mode::Sack;
        self.stats.to_sack += 1;
        self.stats.first_sack_s.get_or_insert(now.as_secs_f64());
        self.stats.sack_since = now.as_secs_f64();
    }

    /// What an overload signal does now (`rtt` = T).
    fn overload(&mut self, now: Time, rtt: Time) -> Overload {
        let Some(t) = self.reduced_at else { return Overload::Md };
        match self.p.md_rule {
            MdRule::Vcp if now < t + self.p.interval => Overload::Freeze,
            MdRule::Vcp if now < t + self.p.interval + rtt => Overload::Ai,
            MdRule::OncePerRtt if now < t + rtt => Overload::Freeze,
            _ => Overload::Md,
        }
    }

    /// Increase laws for an ACK newly acknowledging `k` packets at load `f`.
    fn increase(&mut self, f: f64, k: f64, rtt: Time) {
        if f < ETA {
            self.w += k * (self.p.mi_factor(f, rtt) - 1.0);
        } else {
            self.ai(k, rtt);
        }
    }

    fn ai(&mut self, k: f64, rtt: Time) {
        self.w += k * self.p.alpha(rtt) / self.w.max(1.0);
    }

    /// BMCC's laws for one ACK (`prev`: f̂ before this ACK).
    fn bmcc_ack(&mut self, s: &mut CcState, a: &AckSample, prev: f64) {
        let rtt = self.rtt(s);
        let f = self.f_hat;
        let ce = a.feedback.ce_seen;
        // §5.3: CE while the estimate says no overload: not a BMCC bottleneck.
        // (The original receiver sets f̂ = u on CE: the estimate before it counts.)
        let before = if self.p.flagged_md { f } else { prev };
        if self.p.sack_fallback && ce && before < 1.0 {
            self.enter_sack_mode(s.now);
            // Congestion avoidance on the current window.
            s.ssthresh = s.cwnd;
            s.cwnd_cnt = 0;
            return;
        }
        let grow = a.acked > 0 && !a.in_recovery;
        let k = (a.acked as f64 / s.mss as f64).min(MAX_ACKED_PER_ACK);
        let signalled = if self.p.flagged_md { ce && f >= 1.0 } else { f >= 1.0 };
        if signalled {
            match self.overload(s.now, rtt) {
                Overload::Md => {
                    let b = self.p.beta(f);
                    self.w *= b;
                    self.reduced_at = Some(s.now);
                    self.stats.md += 1;
                    widen(&mut self.stats.md_factor, b);
                    if ce {
                        widen(&mut self.stats.ce_md_factor, b);
                    }
                }
                Overload::Ai if grow => self.ai(k, rtt),
                _ => {}
            }
        } else if f >= 1.0 {
            // The modified scheme: overload without a CE flag.
            if grow && !self.p.hold_unflagged_overload {
                self.ai(k, rtt);
            }
        } else if grow {
            self.increase(f, k, rtt);
        }
    }

    /// Standard SACK TCP's window for one ACK (§5.3's SACK mode).
    fn sack_ack(&mut self, s: &mut CcState, a: &AckSample) {
        let rtt = self.rtt(s);
        if a.feedback.ce_seen && !a.in_recovery && !self.reduced_within(s.now, rtt) {
            // RFC 3168: halve once per window on CE.
            self.w = (self.w / 2.0).max(1.0);
            self.reduced_at = Some(s.now);
            self.stats.ce_halvings += 1;
            self.write(s);
            s.ssthresh = s.cwnd.max(2 * s.mss);
            s.cwnd_cnt = 0;
        } else if a.acked > 0 && !a.in_recovery && !a.feedback.ce_seen {
            reno_cong_avoid(s, a.acked);
            self.w = s.cwnd as f64 / s.mss as f64;
        }
    }

    /// The loss response (§3.3, B9), or the switch to SACK mode (§5.3).
    fn on_loss(&mut self, s: &CcState) -> u64 {
        self.sync(s);
        let rtt = self.rtt(s);
        if self.mode == Mode::Bmcc && self.p.sack_fallback && self.f_hat < 1.0 {
            // Not a congestion signal: the window stays (the packet is resent).
            self.enter_sack_mode(s.now);
            self.written = s.cwnd;
            return s.cwnd;
        }
        if !self.reduced_within(s.now, rtt) {
            let before = self.w;
            self.w = (self.w / 2.0).max(1.0);
            self.reduced_at = Some(s.now);
            self.stats.loss_halvings += 1;
            widen(&mut self.stats.loss_factor, self.w / before);
        }
        let bytes = ((self.w * s.mss as f64) as u64).max(s.mss);
        self.written = bytes;
        bytes
    }
}

/// What an overload signal does under the MD rule.
enum Overload {
    Md,
    Freeze,
    Ai,
}

impl CongestionOps for Bmcc {
    fn name(&self) -> &'static str {
        "bmcc"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        self.on_loss(s)
    }
    fn ssthresh_timeout(&mut self, s: &CcState) -> u64 {
        // The sender restarts from one segment: BMCC regrows by MI, SACK mode
        // slow-starts up to this threshold. (With the heuristic, a timeout
        // while f̂ < 1 is a loss like any other: SACK mode, no halving.)
        self.on_loss(s).max(2 * s.mss)
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        // Only reached if cong_control declined (it never does).
        reno_cong_avoid(s, acked);
    }
    fn cong_control(&mut self, s: &mut CcState, a: &AckSample) -> bool {
        self.sync(s);
        let prev = self.f_hat;
        if let Some(f) = a.feedback.load_factor() {
            self.f_hat = f;
        }
        self.stats.last_ack_s = s.now.as_secs_f64();
        if self.mode == Mode::Sack {
            if self.f_hat > 1.0 {
                // §5.3: a BMCC router reports overload; resume BMCC.
                self.mode = Mode::Bmcc;
                self.stats.to_bmcc += 1;
                self.stats.sack_s += self.stats.last_ack_s - self.stats.sack_since;
            } else {
                self.sack_ack(s, a);
                self.written = s.cwnd;
                return true;
            }
        }
        self.bmcc_ack(s, a, prev);
        if self.mode == Mode::Sack {
            self.written = s.cwnd;
        } else {
            self.write(s);
        }
        true
    }
    fn ecn_echo(&mut self, _s: &CcState) -> Option<u64> {
        None
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("load_estimate", self.f_hat))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        let s = &self.stats;
        let in_sack = self.mode == Mode::Sack;
        let sack_s = s.sack_s + if in_sack { s.last_ack_s - s.sack_since } else { 0.0 };
        vec![
            ("md", s.md as f64),
            ("md_factor_min", s.md_factor.0),
            ("md_factor_max", s.md_factor.1),
            ("ce_md_factor_min", s.ce_md_factor.0),
            ("ce_md_factor_max", s.ce_md_factor.1),
            ("loss_halvings", s.loss_halvings as f64),
            ("loss_factor_min", s.loss_factor.0),
            ("loss_factor_max", s.loss_factor.1),
            ("ce_halvings", s.ce_halvings as f64),
            ("to_sack_mode", s.to_sack as f64),
            ("to_bmcc_mode", s.to_bmcc as f64),
            ("first_sack_mode_s", s.first_sack_s.unwrap_or(f64::NAN)),
            ("sack_mode_s", sack_s),
            ("sack_mode_at_end", in_sack as u64 as f64),
            ("load_estimate", self.f_hat),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Feedback;

    const MSS: u64 = 1000;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// A sender's view with `w` packets and SRTT `rtt_ms`.
    fn st(w: f64, rtt_ms: u64, now_ms: u64) -> CcState {
        CcState {
            now: ms(now_ms),
            mss: MSS,
            cwnd: (w * MSS as f64) as u64,
            ssthresh: u64::MAX,
            flight: (w * MSS as f64) as u64,
            cwnd_cnt: 0,
            byte_counting: true,
            srtt: Some(ms(rtt_ms)),
            min_rtt: Some(ms(rtt_ms)),
        }
    }

    /// `f` as the feedback option carries it (units of 2⁻¹⁴).
    fn q(f: f64) -> f64 {
        (f * Feedback::LOAD_SCALE).round() / Feedback::LOAD_SCALE
    }

    /// The window as the sender holds it: floor(w · MSS) bytes, in packets.
    fn bytes(w: f64) -> f64 {
        (w * MSS as f64).floor() / MSS as f64
    }

    fn ack(f: f64, ce: bool, acked: u64) -> AckSample {
        let mut fb = Feedback::default();
        fb.set_load_factor(f);
        fb.ce_seen = ce;
        AckSample {
            acked,
            feedback: fb,
            ..AckSample::default()
        }
    }

    /// Drives one module: ACKs at given times, the window after each.
    struct Drive {
        cc: Bmcc,
        s: CcState,
    }

    impl Drive {
        fn new(p: Params, w: f64, rtt_ms: u64) -> Drive {
            Drive {
                cc: Bmcc::new(p),
                s: st(w, rtt_ms, 0),
            }
        }
        fn at(&mut self, now_ms: u64) -> &mut Self {
            self.s.now = ms(now_ms);
            self
        }
        fn ack(&mut self, f: f64, ce: bool, acked: u64) -> f64 {
            assert!(self.cc.cong_control(&mut self.s, &ack(f, ce, acked)));
            self.cc.window()
        }
        fn loss(&mut self) -> f64 {
            let w = self.cc.ssthresh(&self.s);
            self.s.cwnd = w; // the sender sets cwnd to it on recovery entry
            w as f64 / MSS as f64
        }
    }

    /// Spec §4's table of derived values, and §10's analytic rows: the MI
    /// factor per t_p at η₀ is 2.983; per RTT 1.244 at 40 ms and 5.153 at
    /// 300 ms; α = 0.04 and 2.25; β from 0.875 at f̂ = 1 to 0.65 at u.
    #[test]
    fn spec_4_derived_values() {
        let p = Params::default();
        let close = |a: f64, b: f64, tol: f64| assert!((a - b).abs() < tol, "{a} vs {b}");
        close(p.mi_factor(0.15, ms(200)), 1.0 + 0.35 * 0.85 / 0.15, 1e-12);
        close(p.mi_factor(0.15, ms(200)), 2.983, 5e-4);
        for (f, per_tp, t40, t300) in [
            (0.15, 2.983, 1.244, 5.153),
            (0.2, 2.400, 1.191, 3.718),
            (0.3, 1.817, 1.127, 2.449),
            (0.5, 1.350, 1.062, 1.569),
            (0.7, 1.150, 1.028, 1.233),
            (0.75, 1.117, 1.022, 1.180),
        ] {
            close(p.mi_factor(f, ms(200)), per_tp, 5e-4);
            close(p.mi_factor(f, ms(40)), t40, 5e-4);
            close(p.mi_factor(f, ms(300)), t300, 5e-4);
        }
        for (t, a) in [(40, 0.04), (150, 0.5625), (200, 1.0), (250, 1.5625), (300, 2.25)] {
            close(p.alpha(ms(t)), a, 1e-12);
        }
        for (f, b) in [(1.0, 0.875), (1.1, 0.7625), (1.2, 0.65), (1.5, 0.65), (0.9, 0.875)] {
            close(p.beta(f), b, 1e-12);
        }
    }

    /// MI (eqs. 2–3 per ACK): ten ACKs of one packet each at f̂ = 0.15 and
    /// T = t_p multiply a window of 10 by 2.983.
    #[test]
    fn eq3_mi_over_one_window_of_acks() {
        let mut d = Drive::new(Params::default(), 10.0, 200);
        for _ in 0..10 {
            d.ack(0.15, false, MSS);
        }
        let f = q(0.15);
        assert!((d.cc.window() - 10.0 * (1.0 + 0.35 * (1.0 - f) / f)).abs() < 1e-9);
        assert_eq!(d.s.cwnd, 29_829, "floor(w · MSS) bytes (f̂ = 0.150024 as echoed)");
    }

    /// An ACK covering many packets (the end of a loss recovery) counts two.
    #[test]
    fn an_ack_counts_at_most_two_packets() {
        let mut d = Drive::new(Params::default(), 10.0, 200);
        d.ack(0.5, false, 50 * MSS);
        let f = q(0.5);
        assert!((d.cc.window() - (10.0 + 2.0 * 0.35 * (1.0 - f) / f)).abs() < 1e-9);
    }

    /// AI (eq. 4): α = (T/t_p)² = 2.25 at T = 300 ms; per ACK α/w.
    #[test]
    fn eq4_ai_per_ack() {
        let mut d = Drive::new(Params::default(), 10.0, 300);
        let mut want = 10.0f64;
        for _ in 0..10 {
            want += 2.25 / want; // (α does not depend on f̂)
            d.ack(0.8, false, MSS);
        }
        assert!((d.cc.window() - want).abs() < 1e-9);
        assert!((want - 12.059).abs() < 1e-3, "≈ +α·10/11 over ten ACKs: {want}");
        // Duplicate ACKs (nothing newly acknowledged) change nothing.
        d.ack(0.8, false, 0);
        assert!((d.cc.window() - want).abs() < 1e-9);
    }

    /// MD (eqs. 5–6) with VCP's rule: MD by β(1.1) = 0.7625, frozen for
    /// t_p = 200 ms, AI on overload for one RTT (T = 100 ms, α = 0.25), then
    /// MD again.
    #[test]
    fn eq5_md_then_freeze_then_ai_then_md() {
        let mut d = Drive::new(Params::default(), 40.0, 100);
        let md = 40.0 * Params::default().beta(q(1.1));
        assert!((md - 30.5).abs() < 2e-3);
        assert!((d.at(1000).ack(1.1, false, MSS) - md).abs() < 1e-9);
        assert!((d.at(1100).ack(1.1, false, MSS) - md).abs() < 1e-9, "frozen");
        assert!((d.at(1199).ack(1.15, false, MSS) - md).abs() < 1e-9, "frozen");
        let w = d.at(1200).ack(1.1, false, MSS);
        assert!((w - (md + 0.25 / md)).abs() < 1e-9, "AI for one RTT: {w}");
        let w2 = d.at(1299).ack(1.1, false, MSS);
        assert!((w2 - (w + 0.25 / w)).abs() < 1e-9);
        assert!(
            (d.at(1300).ack(1.2, false, MSS) - w2 * 0.65).abs() < 1e-9,
            "MD again (β(u))"
        );
        // Low load during a freeze applies its own law (as VCP).
        let w3 = d.cc.window();
        assert!(d.at(1310).ack(0.15, false, MSS) > w3);
    }

    #[test]
    fn once_per_rtt_rule_holds_the_window_for_one_rtt() {
        let p = Params {
            md_rule: MdRule::OncePerRtt,
            ..Params::default()
        };
        let mut d = Drive::new(p, 40.0, 100);
        assert!((d.at(1000).ack(1.0, false, MSS) - 35.0).abs() < 1e-9);
        assert!((d.at(1099).ack(1.0, false, MSS) - 35.0).abs() < 1e-9, "held");
        assert!((d.at(1100).ack(1.0, false, MSS) - 35.0 * 0.875).abs() < 1e-9);
    }

    /// B9: a loss halves the window once per RTT and leaves f̂; an overload
    /// signal within the freeze that follows does not reduce again.
    #[test]
    fn b9_loss_halves_once_per_rtt() {
        let mut d = Drive::new(Params::default(), 40.0, 100);
        d.at(1000).ack(0.5, false, MSS);
        let w = d.cc.window();
        assert_eq!(d.loss(), bytes(w / 2.0));
        assert!((d.cc.window() - w / 2.0).abs() < 1e-9);
        assert_eq!(d.cc.estimate(), 0.5, "f̂ unchanged");
        d.at(1050);
        assert_eq!(d.loss(), bytes(w / 2.0), "same RTT: no second halving");
        assert!(
            (d.at(1100).ack(1.1, false, MSS) - w / 2.0).abs() < 1e-9,
            "frozen after a loss"
        );
        d.at(1400);
        d.loss();
        assert!((d.cc.window() - w / 4.0).abs() < 1e-9);
        assert_eq!(d.cc.stats.loss_halvings, 2);
        assert_eq!(d.cc.stats.loss_factor, (0.5, 0.5));
    }

    /// The original receiver turns CE into f̂ = u: MD by β(u) = 0.65.
    #[test]
    fn ce_in_the_original_design_is_md_by_beta_u() {
        let mut d = Drive::new(Params::default(), 20.0, 40);
        assert!((d.at(500).ack(1.2, true, MSS) - 13.0).abs() < 1e-9);
        assert_eq!(d.cc.stats.ce_md_factor, (0.65, 0.65));
    }

    /// §5.2's modified scheme: MD only on a flagged ACK with f̂ ≥ 1, by β(f̂);
    /// overload without a flag is AI (or a held window); a flag with f̂ < 1
    /// is no back-off.
    #[test]
    fn modified_scheme_backs_off_only_on_flagged_overload() {
        let p = Params {
            flagged_md: true,
            ..Params::default()
        };
        let mut d = Drive::new(p, 20.0, 200);
        let w = d.at(100).ack(1.1, false, MSS);
        assert!((w - (20.0 + 1.0 / 20.0)).abs() < 1e-9, "unflagged overload: AI");
        let w = d.at(200).ack(0.9, true, MSS);
        assert!(w > 20.05, "flag with f̂ < 1: no back-off");
        let before = d.cc.window();
        let b = Params::default().beta(q(1.1));
        assert!((d.at(300).ack(1.1, true, MSS) - before * b).abs() < 1e-9);
        let mut h = Drive::new(
            Params {
                flagged_md: true,
                hold_unflagged_overload: true,
                ..Params::default()
            },
            20.0,
            200,
        );
        assert_eq!(h.at(100).ack(1.1, false, MSS), 20.0, "held");
    }

    /// §5.3: over a drop-tail bottleneck f̂ stays at 0.15, so the first loss
    /// switches to SACK mode without halving; from then on Reno's +1 MSS per
    /// window; f̂ > 1 from a BMCC router switches back (with MD).
    #[test]
    fn heuristic_switches_on_loss_with_low_estimate_and_back_on_overload() {
        let p = Params {
            sack_fallback: true,
            ..Params::default()
        };
        let mut d = Drive::new(p, 10.0, 100);
        d.at(100).ack(0.15, false, MSS);
        let w = d.cc.window();
        assert_eq!(d.loss(), bytes(w), "no halving on the switch");
        assert_eq!(d.cc.mode(), Mode::Sack);
        assert_eq!(
            d.s.ssthresh,
            u64::MAX,
            "the sender sets ssthresh from the returned window"
        );
        d.s.ssthresh = d.s.cwnd;
        let c0 = d.s.cwnd;
        for _ in 0..11 {
            d.at(150).ack(0.15, false, MSS);
        }
        assert_eq!(d.s.cwnd, c0 + MSS, "Reno: one MSS per window of ACKs");
        // A loss in SACK mode halves.
        d.at(400);
        let half = d.loss();
        assert!((half - (c0 + MSS) as f64 / MSS as f64 / 2.0).abs() < 1e-3);
        // A BMCC router reports overload: back to BMCC, MD.
        let before = d.cc.window();
        let w = d.at(800).ack(1.1, false, MSS);
        assert_eq!(d.cc.mode(), Mode::Bmcc);
        assert!((w - before * Params::default().beta(q(1.1))).abs() < 1e-9);
        assert_eq!((d.cc.stats.to_sack, d.cc.stats.to_bmcc), (1, 1));
    }

    /// §5.3 with a RED/ECN bottleneck: the original receiver reports CE as
    /// f̂ = u; the estimate before the mark (0.15) says no BMCC overload, so
    /// the sender switches to SACK mode, without backing off. Without the
    /// heuristic the same ACK is an MD by 0.65.
    #[test]
    fn heuristic_switches_on_ce_with_low_estimate() {
        let p = Params {
            sack_fallback: true,
            ..Params::default()
        };
        let mut d = Drive::new(p, 10.0, 100);
        d.at(100).ack(0.15, false, MSS);
        let w = d.cc.window();
        assert_eq!(d.at(150).ack(1.2, true, MSS), w);
        assert_eq!(d.cc.mode(), Mode::Sack);
        // In SACK mode a CE halves (once per RTT).
        d.s.ssthresh = d.s.cwnd;
        assert!((d.at(200).ack(0.15, true, MSS) - w / 2.0).abs() < 1e-9);
        assert!((d.at(250).ack(0.15, true, MSS) - w / 2.0).abs() < 1e-9, "same RTT");
        // Over a real BMCC router in overload the estimate was already ≥ 1: MD, no switch.
        let mut b = Drive::new(p, 10.0, 100);
        b.at(100).ack(1.05, false, MSS);
        let w = b.cc.window();
        b.at(400).ack(1.2, true, MSS);
        assert_eq!(b.cc.mode(), Mode::Bmcc);
        assert!((b.cc.window() - w * 0.65).abs() < 1e-9);
    }

    /// The window follows the sender where it set cwnd itself (a timeout:
    /// one segment), and MI regrows it from there.
    #[test]
    fn follows_the_senders_timeout() {
        let mut d = Drive::new(Params::default(), 20.0, 100);
        d.at(100).ack(0.5, false, MSS);
        d.cc.ssthresh_timeout(&d.s);
        d.s.cwnd = MSS;
        let w = d.at(200).ack(0.5, false, MSS);
        assert!((w - (1.0 + (Params::default().mi_factor(0.5, ms(100)) - 1.0))).abs() < 1e-9);
    }
}
