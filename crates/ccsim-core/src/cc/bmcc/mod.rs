//! The BMCC sender (I. A. Qazi, T. Znati, L. L. H. Andrew, "Incremental
//! deployment of new ECN-compatible congestion control", PFLDNeT 2009, §3.3,
//! the modified scheme of §5.2 and the SACK-compatibility heuristic of §5.3;
//! BMCC: Qazi, Andrew & Znati, INFOCOM 2009; control laws and timers inherited
//! from VCP, Xia et al., SIGCOMM 2005, ns-2 `vcp-src.cc`). Model page:
//! docs/models/bmcc.md ("Sender"; what the paper leaves open: "Modelling
//! decisions", Sender and Modified router).
//!
//! The window w (packets, a real number) follows the echoed estimate f̂ of the
//! bottleneck's load factor ([`crate::feedback::bmcc`] fills it into every
//! ACK; the sender uses the latest; a new flow assumes f̂ = η₀ = 0.15), with T
//! the flow's smoothed RTT (as VCP's sender; `rtt = "min"`: the minimum RTT) and
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
//! The real-valued window, these steps and the MD freeze below are VCP's and
//! shared with [`crate::cc::vcp`] ([`crate::cc::load_factor`]).
//!
//! * **MD and the freeze** (VCP's `md_wait_timer_`; docs/models/bmcc.md,
//!   "Modelling decisions: MD freeze"): the first
//!   overload signal multiplies w by β(f̂); further overload signals are then
//!   ignored for one t_p (the freeze), and treated as high load (AI) for one
//!   RTT after it; then MD is possible again. `md_rule = "once-per-rtt"`: after
//!   an MD, overload signals are ignored and the window held for one RTT.
//!   Signals of low or high load apply their law during the freeze (as VCP).
//!   Increases apply only to ACKs of new data outside loss recovery; signals
//!   are read from every ACK.
//! * **Packet loss** (§3.3; docs/models/bmcc.md, "Modelling decisions: Loss
//!   response"): like a CE mark but the factor is ½: the
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

use super::load_factor::{acked_packets, after_md, ai_step, mi_step, Overload, Window};
pub use super::load_factor::{MdRule, MAX_ACKED_PER_ACK};
use super::{reno_cong_avoid, AckSample, CcSpec, CcState, CongestionOps, Needs, Recovery};
use crate::adpm::{ETA, ETA0, U};
use crate::cfg::{Res, Tab};
use crate::feedback::FeedbackSpec;
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// Which RTT stands for T in the laws (docs/models/bmcc.md, "Modelling
/// decisions: T in the laws").
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

/// BMCC as a configured module: what it asks of its TCP (ECN-capable packets,
/// SACK recovery, the receiver's load-factor estimate: paper §3) and the scheme
/// its receiver's `on_ce` selects for both ends (the modified scheme of §5.2).
impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "bmcc"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Bmcc::new(*self))
    }
    fn needs(&self) -> Needs {
        Needs {
            ecn: Some("BMCC's packets are ECN-capable: routers mark the load in their ECN bits"),
            sack: true,
            feedback: Some(("bmcc", "the BMCC sender needs its receiver's load-factor estimate")),
            ..Needs::default()
        }
    }
    fn with_feedback(&self, feedback: &dyn FeedbackSpec) -> Option<Arc<dyn CcSpec>> {
        let f = feedback.as_any().downcast_ref::<crate::feedback::bmcc::Params>()?;
        Some(Arc::new(Params {
            flagged_md: f.ce_flag_only,
            ..*self
        }))
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "interval",
        "BMCC: the routers' measurement interval t_p (their interval), in (0, 60 s]: T/t_p in the MI and AI laws, the length of the MD freeze",
    ),
    ("kappa2", "BMCC constant κ2"),
    ("beta_max", "BMCC largest multiplicative decrease factor"),
    ("beta_min", "BMCC smallest multiplicative decrease factor"),
    ("md_rule", "BMCC multiplicative decrease rule"),
    (
        "rtt",
        "BMCC: the RTT that scales the MI/AI/MD updates: the smoothed RTT (srtt) or the minimum (min)",
    ),
    ("sack_fallback", "BMCC: fall back to SACK recovery"),
    (
        "unflagged_overload",
        "BMCC: on overload without a flag, additive increase or hold",
    ),
];

impl Params {
    /// Reads the keys of `cc = {kind = "bmcc", ...}` (`kind` already read).
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        let interval = crate::qdisc::load_factor::read_interval(
            t,
            "the routers' measurement interval t_p in (0, 60 s], such as \"200ms\"",
        )?;
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

    /// T/t_p, the exponent of eq. 3.
    fn ratio(&self, rtt: Time) -> f64 {
        rtt.as_secs_f64() / self.interval.as_secs_f64()
    }

    /// The MI factor per RTT T: (1 + ξ(f̂))^{T/t_p} (eq. 3).
    pub fn mi_factor(&self, f: f64, rtt: Time) -> f64 {
        (1.0 + self.xi(f)).powf(self.ratio(rtt))
    }

    /// α = (T/t_p)² packets per RTT (eq. 4).
    pub fn alpha(&self, rtt: Time) -> f64 {
        let r = self.ratio(rtt);
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
    win: Window,
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
            win: Window::default(),
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
        self.win.w
    }

    /// T for the laws: SRTT (or the minimum RTT), t_p before any sample.
    fn rtt(&self, s: &CcState) -> Time {
        let r = match self.p.rtt {
            RttSource::Smoothed => s.srtt,
            RttSource::Min => s.min_rtt,
        };
        r.filter(|r| *r > Time::ZERO).unwrap_or(self.p.interval)
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
        after_md(self.reduced_at, now, self.p.md_rule, self.p.interval, rtt)
    }

    /// Increase laws for an ACK newly acknowledging `k` packets at load `f`.
    fn increase(&mut self, f: f64, k: f64, rtt: Time) {
        if f < ETA {
            self.win.w += k * mi_step(self.p.xi(f), self.p.ratio(rtt));
        } else {
            self.ai(k, rtt);
        }
    }

    fn ai(&mut self, k: f64, rtt: Time) {
        self.win.w += ai_step(k, self.p.alpha(rtt), self.win.w);
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
        let k = acked_packets(a, s.mss);
        let signalled = if self.p.flagged_md { ce && f >= 1.0 } else { f >= 1.0 };
        if signalled {
            match self.overload(s.now, rtt) {
                Overload::Md => {
                    let b = self.p.beta(f);
                    self.win.w *= b;
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
            self.win.w = (self.win.w / 2.0).max(1.0);
            self.reduced_at = Some(s.now);
            self.stats.ce_halvings += 1;
            self.win.write(s);
            s.ssthresh = s.cwnd.max(2 * s.mss);
            s.cwnd_cnt = 0;
        } else if a.acked > 0 && !a.in_recovery && !a.feedback.ce_seen {
            reno_cong_avoid(s, a.acked);
            self.win.w = s.cwnd as f64 / s.mss as f64;
        }
    }

    /// The loss response (§3.3; docs/models/bmcc.md, "Modelling decisions:
    /// Loss response"), or the switch to SACK mode (§5.3).
    fn on_loss(&mut self, s: &CcState) -> u64 {
        self.win.sync(s);
        let rtt = self.rtt(s);
        if self.mode == Mode::Bmcc && self.p.sack_fallback && self.f_hat < 1.0 {
            // Not a congestion signal: the window stays (the packet is resent).
            self.enter_sack_mode(s.now);
            self.win.written(s.cwnd);
            return s.cwnd;
        }
        if !self.reduced_within(s.now, rtt) {
            let before = self.win.w;
            self.win.w = (self.win.w / 2.0).max(1.0);
            self.reduced_at = Some(s.now);
            self.stats.loss_halvings += 1;
            widen(&mut self.stats.loss_factor, self.win.w / before);
        }
        let bytes = ((self.win.w * s.mss as f64) as u64).max(s.mss);
        self.win.written(bytes);
        bytes
    }
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
        self.win.sync(s);
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
                self.win.written(s.cwnd);
                return true;
            }
        }
        self.bmcc_ack(s, a, prev);
        if self.mode == Mode::Sack {
            self.win.written(s.cwnd);
        } else {
            self.win.write(s);
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
mod tests;
