//! The VCP sender (Y. Xia, L. Subramanian, I. Stoica, S. Kalyanaraman, "One
//! more bit is enough", ACM SIGCOMM 2005 (MI/AI/MD by the load code, the MD
//! freeze, the parameters' scaling with the RTT); IEEE/ACM ToN 16(6), 2008), as the authors' ns-2 code runs it (VCP 0.1, 2006:
//! `vcp/vcp-src.cc`, `vcp-src.h`, `vcp-cmn.cc`, `vcp-cmn.h`, defaults in their
//! `tcl/lib/ns-default.tcl`). Model page: docs/models/vcp.md ("Sender"; where
//! the paper and the code differ: "Modelling decisions").
//!
//! On every ACK of new data (`recv_newack_helper`) the window w (packets, a
//! real number: [`Window`]) follows the load code the receiver echoes
//! ([`crate::feedback::vcp`]), T being the smoothed RTT (`rtt_`):
//!
//! | code | law per RTT | per ACK (`opencwnd`, `slowdown(0)`) |
//! |---|---|---|
//! | `01` low load (or none) | MI: w·(1 + ξ)^{T/t_ρ} | w += (1 + ξ)^{min(T/t_ρ, 2.5)} − 1, ξ = min(0.0625, ξ(w)) |
//! | `10` high load | AI: w + α·s(T) | w += min(α·s(T)/w, a(w)) |
//! | `11` overload | MD: w·β, β = 0.875 | once, then the freeze |
//!
//! * ξ = 0.0625 is the code's `k_·(100/LF_0 − 1)` with `k_` = 0.25 and
//!   `LF_0` = 80 (%); ξ(w) and a(w) are the code's window-dependent limiters
//!   ([`limiter`], `g_mimwai`, `vcp-cmn.cc`): ξ(w) falls below 0.0625 only
//!   above ≈ 11 900 packets, a(w) caps AI's step for small windows on long
//!   paths (`limiters = false`: the paper's laws without them).
//! * s(T) = (T/t_d)² with t_d = 100 ms (`TYPICAL_RTT`), linear below 20 ms and
//!   above 500 ms (`rtt_update`), α = 1 (`alpha_`·`w_`). The paper scales AI
//!   by (T/t_ρ)²; the code by (T/t_d)² — four times more at the same T.
//! * T is the sender's smoothed RTT truncated to whole 10-ms ticks, at least
//!   one (`rtt_update`: `t_srtt_ >> T_SRTT_BITS` ticks of `tcpTick_`), t_d
//!   before the first sample.
//! * **MD and the freeze** (`md_wait_timer_`, [`after_md`] shared with BMCC):
//!   the first `11` multiplies w by β (at least one packet); further `11`s are
//!   ignored for t_ρ (the first timer), treated as AI for one RTT (the second),
//!   then MD is possible again. `01` and `10` apply their law meanwhile. Both
//!   timers are rounded as ns-2 sets them (`round_timeout_value`, 10 ms:
//!   [`round_timer`]).
//! * **Loss** (VCP is `Agent/TCP/Reno`): Reno's halving and fast recovery, no
//!   change to the MD timers; the ACK that ends the recovery applies its code
//!   to the halved window; after a timeout the window restarts from one
//!   segment and regrows by the laws above (no slow start: `opencwnd` ignores
//!   ssthresh).
//!
//! Choices and deviations (docs/models/vcp.md, "Modelling decisions"):
//! * an ACK counts at most two packets ([`acked_packets`]): VCP's sink
//!   acknowledges every packet and its sender adds one increment per ACK, so
//!   with one ACK per packet the two agree; with delayed ACKs the growth per
//!   packet is kept;
//! * the second timer takes the RTT at the overload signal, where ns-2 reads
//!   it when the first timer expires;
//! * VCP never answers RFC 3168's ECN-Echo ([`CongestionOps::ecn_echo`] is
//!   `None`): its overload code is CE, which an RFC 3168 receiver echoes until
//!   CWR, and VCP reads the code from the feedback option instead;
//! * not modelled: the pacing of windows of 2–64 packets when T/window
//!   exceeds t_ρ/2 (`send_much`, paths above 200 ms only).

use super::load_factor::{acked_packets, after_md, ai_step, mi_step, MdRule, Overload, Window, MAX_ACKED_PER_ACK};
use super::{halve_flight, AckSample, CcSpec, CcState, CongestionOps, Needs, Recovery};
use crate::cfg::{Res, Tab};
use crate::units::Time;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// The codes (the ECN field's bits, `vcp-cmn.h`).
pub const LOW_LOAD: u8 = 0b01;
pub const HIGH_LOAD: u8 = 0b10;
pub const OVER_LOAD: u8 = 0b11;

/// AI's RTT scaling is linear below this RTT and above [`RTT_RIGHT`]
/// (`RTT_LEFT`, `RTT_RIGHT` in `vcp-src.h`).
pub const RTT_LEFT: Time = Time::from_millis(20);
pub const RTT_RIGHT: Time = Time::from_millis(500);

/// The sender's configuration (`cc = {kind = "vcp", ...}`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// The routers' measurement interval t_ρ (`router_load_measurement_interval_`).
    pub interval: Time,
    /// ξ, the MI gain per t_ρ (0.0625).
    pub xi: f64,
    /// α, AI's packets per RTT at T = t_d (`alpha_`·`w_` = 1).
    pub alpha: f64,
    /// β, the MD factor (0.875).
    pub beta: f64,
    /// t_d, the RTT AI's scaling refers to (`TYPICAL_RTT`, 100 ms).
    pub rtt_ref: Time,
    /// The largest T/t_ρ MI's scaling uses (`MAX_RTT_BY_TRHO`, 2.5).
    pub max_rtt_ratio: f64,
    /// The code's window-dependent limiters of ξ and of AI's step.
    pub limiters: bool,
    /// Granularity of the MD timers (`TIMER_GRANUNARITY`, 10 ms; 0: exact).
    pub timer_tick: Time,
    /// T is the SRTT in whole ticks of this, at least one (`rtt_update`:
    /// `t_srtt_ >> T_SRTT_BITS` ticks of `tcpTick_`, 10 ms; 0: the SRTT as is).
    pub srtt_tick: Time,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            interval: Time::from_millis(200),
            xi: 0.0625,
            alpha: 1.0,
            beta: 0.875,
            rtt_ref: Time::from_millis(100),
            max_rtt_ratio: 2.5,
            limiters: true,
            timer_tick: Time::from_millis(10),
            srtt_tick: Time::from_millis(10),
        }
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "interval",
        "VCP: the routers' measurement interval t_ρ, in (0, 60 s]: MI's RTT scaling T/t_ρ and the MD freeze (router_load_measurement_interval_: 200 ms)",
    ),
    (
        "xi",
        "VCP: ξ, the MI gain per t_ρ on low load, in (0, 10] (the code's k_·(100/LF_0 − 1) = 0.25·0.25 = 0.0625)",
    ),
    (
        "alpha",
        "VCP: α, the AI packets per RTT at T = rtt_ref on high load, in (0, 1000] (alpha_·w_ = 1)",
    ),
    ("beta", "VCP: β, the MD factor on overload, in (0, 1) (beta_: 0.875)"),
    (
        "rtt_ref",
        "VCP: t_d, AI adds α·(T/t_d)² per RTT (TYPICAL_RTT: 100 ms; the paper's scaling is t_ρ)",
    ),
    (
        "max_rtt_ratio",
        "VCP: the largest T/t_ρ in MI's scaling (MAX_RTT_BY_TRHO: 2.5)",
    ),
    (
        "limiters",
        "VCP: cap ξ and AI's step by the code's window-dependent tables (g_mimwai)",
    ),
    (
        "timer_tick",
        "VCP: the MD timers are rounded to this tick as ns-2 sets them (TIMER_GRANUNARITY: 10 ms; 0: exact), at most 1 s, whole ms",
    ),
    (
        "srtt_tick",
        "VCP: the RTT T of the laws is the smoothed RTT truncated to whole ticks of srtt_tick, at least one (ns-2's rtt_ in ticks of tcpTick_: 10 ms; 0: the smoothed RTT as is), at most 1 s",
    ),
];

impl Params {
    /// Reads the keys of `cc = {kind = "vcp", ...}` (`kind` already read).
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        let interval = crate::qdisc::load_factor::read_interval(
            t,
            "the routers' measurement interval t_ρ in (0, 60 s], such as \"200ms\"",
        )?;
        let xi = number(t, "xi", d.xi, 10.0, |x| x > 0.0 && x <= 10.0, "a gain ξ in (0, 10]")?;
        let alpha = number(
            t,
            "alpha",
            d.alpha,
            1000.0,
            |x| x > 0.0 && x <= 1000.0,
            "α in (0, 1000]",
        )?;
        let beta = number(
            t,
            "beta",
            d.beta,
            1.0,
            |x| x > 0.0 && x < 1.0,
            "an MD factor β in (0, 1)",
        )?;
        let rtt_ref = t.time("rtt_ref", Some("100ms"))?;
        if rtt_ref == Time::ZERO || rtt_ref > Time::from_secs(10) {
            return Err(t.error(
                "rtt_ref",
                &Value::from(crate::cfg::time_str(rtt_ref)),
                "a reference RTT t_d in (0, 10 s], such as \"100ms\"",
            ));
        }
        let max_rtt_ratio = t.float("max_rtt_ratio", Some(d.max_rtt_ratio), 0.01, 1000.0)?;
        let limiters = t.boolean("limiters", d.limiters)?;
        let timer_tick = t.time("timer_tick", Some("10ms"))?;
        if timer_tick > Time::from_secs(1) || timer_tick.0 % 1_000_000 != 0 {
            return Err(t.error(
                "timer_tick",
                &Value::from(crate::cfg::time_str(timer_tick)),
                "a timer granularity in whole milliseconds up to 1 s, or 0 for exact timers",
            ));
        }
        let srtt_tick = t.time("srtt_tick", Some("10ms"))?;
        if srtt_tick > Time::from_secs(1) {
            return Err(t.error(
                "srtt_tick",
                &Value::from(crate::cfg::time_str(srtt_tick)),
                "a tick of the RTT up to 1 s, or 0 for the smoothed RTT as is",
            ));
        }
        Ok(Params {
            interval,
            xi,
            alpha,
            beta,
            rtt_ref,
            max_rtt_ratio,
            limiters,
            timer_tick,
            srtt_tick,
        })
    }

    /// The RTT scalings at `rtt` (`rtt_update`): MI's exponent
    /// min(T/t_ρ, max_rtt_ratio) and AI's packets per RTT α·s(T).
    pub fn scales(&self, rtt: Time) -> (f64, f64) {
        let t = rtt.as_secs_f64();
        let ratio = (t / self.interval.as_secs_f64()).min(self.max_rtt_ratio);
        let td = self.rtt_ref.as_secs_f64();
        let (r, left, right) = (t / td, RTT_LEFT.as_secs_f64() / td, RTT_RIGHT.as_secs_f64() / td);
        let s = if r <= left {
            r * left
        } else if r <= right {
            r * r
        } else {
            (r - right) + right * right
        };
        (ratio, s * self.alpha)
    }
}

/// A number in [0, `max`] (the schema's range) that `ok` accepts; a number
/// `ok` refuses is refused with `expected`.
fn number(t: &mut Tab, key: &'static str, default: f64, max: f64, ok: fn(f64) -> bool, expected: &str) -> Res<f64> {
    if let Some(v) = t.get(key).filter(|v| v.as_f64().is_some_and(|x| !ok(x))) {
        return Err(t.error(key, v, expected));
    }
    t.float(key, Some(default), 0.0, max)
}

/// `cc = "vcp"` or `{kind = "vcp", ...}`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Params::read(t)?))
}

/// VCP as a configured module: ECN-capable packets that start as `01`
/// (ECT(1), the code's `hf->lf() = LOW_LOAD` in `output`) and the receiver's
/// echo of the code.
impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "vcp"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Vcp::new(*self))
    }
    fn needs(&self) -> Needs {
        Needs {
            ecn: Some("VCP's routers write the load code into the ECN field"),
            ect1: true,
            feedback: Some(("vcp", "the VCP sender reads the load code its receiver echoes")),
            ..Needs::default()
        }
    }
}

/// ns-2's `round_timeout_value(tv, granularity, true)`: `tv` in whole ms,
/// down to the tick, plus one tick unless the remainder is under a fifth of
/// a tick (a value under one tick becomes one tick).
pub fn round_timer(tv: Time, tick: Time) -> Time {
    if tick == Time::ZERO {
        return tv;
    }
    let tv_ms = (tv.as_secs_f64() * 1000.0 + 0.5) as u64;
    let g = tick.0 / 1_000_000;
    let r = (g as f64 * 0.2) as u64;
    let up = tv_ms < g || tv_ms % g >= r;
    Time::from_millis((tv_ms / g + up as u64) * g)
}

/// The code's window-dependent limiters (`vcp-cmn.cc`): ξ's cap (`XI[0]`,
/// interpolated linearly in log₁₀ w between decades) and AI's per-ACK cap
/// (`XI[2]`, a power law between decades), looked up as `opencwnd` does
/// (`lookup_mimwai_para_index`: the table's window of 0.1 steps below 10
/// packets, then of two significant digits; 10⁷ packets and above take the
/// last entry, where ns-2 exits).
pub fn limiter(ai: bool, w: f64) -> f64 {
    static TABLES: OnceLock<[[f64; ENTRIES]; 2]> = OnceLock::new();
    let t = TABLES.get_or_init(|| {
        let mi = std::array::from_fn(|i| mimwai(false, 0, bin_window(i)));
        let ai = std::array::from_fn(|i| mimwai(true, 2, bin_window(i)));
        [mi, ai]
    });
    t[ai as usize][index(w)]
}

/// Windows of the tables (`WIN`) and the tables (`XI`: ξ, the unused MW
/// limiter, the AI limiter).
const WIN: [f64; 8] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7];
const XI: [[f64; 8]; 3] = [
    [1.0, 0.5, 0.2, 0.1, 0.064, 0.044, 0.032, 0.024],
    [1.0, 0.6, 0.25, 0.15, 0.100, 0.077, 0.060, 0.050],
    [0.1, 0.06, 0.04, 0.02, 0.01, 0.006, 0.004, 0.002],
];
/// Entries per table (`NUM_XI_INDEX`), 90 per decade (`BIN_SIZE`).
const ENTRIES: usize = 7 * 90;

/// `compute_mimwai_para(mode, level, win)`.
fn mimwai(linear: bool, level: usize, win: f64) -> f64 {
    let x = &XI[level];
    let wi = win as i64;
    if wi < 1 {
        return x[0];
    }
    let Some(i) = (1..8).find(|&i| wi < WIN[i] as i64) else {
        return x[7];
    };
    let logbase = (i - 1) as f64;
    if linear {
        let amp2 = (x[i - 1] / x[i]).ln() / 10f64.ln();
        x[i - 1] * (win / 10f64.powf(logbase)).powf(-amp2)
    } else {
        x[i - 1] - (x[i - 1] - x[i]) * (win.log10() - logbase)
    }
}

/// The window of table entry `i` (`init_mimwai_para_table`).
fn bin_window(i: usize) -> f64 {
    let (bin, offset) = (i / 90, i % 90);
    let mut base = 1.0;
    let mut step = 0.1;
    for _ in 0..bin {
        base *= 10.0;
        step *= 10.0;
    }
    base + step * offset as f64
}

/// `lookup_mimwai_para_index(w)`.
fn index(w: f64) -> usize {
    let wi = w as i64;
    let i = if wi < 1 {
        0
    } else if wi < 10 {
        (w * 10.0 + 0.5) as i64 - 10
    } else if wi < 100 {
        80 + (w + 0.5) as i64
    } else if wi < 1000 {
        170 + wi / 10
    } else if wi < 10_000 {
        260 + wi / 100
    } else if wi < 100_000 {
        350 + wi / 1000
    } else if wi < 1_000_000 {
        440 + wi / 10_000
    } else {
        530 + wi / 100_000
    };
    (i as usize).min(ENTRIES - 1)
}

#[derive(Clone, Debug, Default)]
struct Stats {
    md: u64,
    frozen: u64,
    acks: [u64; 3],
}

/// The VCP congestion-control module.
pub struct Vcp {
    p: Params,
    win: Window,
    /// The last MD (`md_wait_timer_`'s start).
    md_at: Option<Time>,
    /// The code of the ACK that ended a loss recovery, applied when the
    /// sender hands the window back ([`CongestionOps::cong_avoid`]).
    pending: Option<u8>,
    /// The last code echoed.
    code: u8,
    stats: Stats,
}

impl Vcp {
    pub fn new(p: Params) -> Vcp {
        Vcp {
            p,
            win: Window::default(),
            md_at: None,
            pending: None,
            code: LOW_LOAD,
            stats: Stats::default(),
        }
    }

    /// The window in packets (as a real number).
    pub fn window(&self) -> f64 {
        self.win.w
    }

    /// T: the smoothed RTT in whole ticks (at least one), t_d before any
    /// sample (`rtt_update`; `TYPICAL_RTT`).
    fn rtt(&self, s: &CcState) -> Time {
        let Some(srtt) = s.srtt.filter(|r| *r > Time::ZERO) else {
            return self.p.rtt_ref;
        };
        let tick = self.p.srtt_tick.0;
        if tick == 0 {
            return srtt;
        }
        Time((srtt.0 / tick).max(1) * tick)
    }

    /// The law of `code` for an ACK counting `k` packets (`recv_newack_helper`).
    fn react(&mut self, s: &CcState, code: u8, k: f64) {
        let rtt = self.rtt(s);
        let (ratio, alpha) = self.p.scales(rtt);
        let slot = match code {
            OVER_LOAD => 2,
            HIGH_LOAD => 1,
            _ => 0,
        };
        self.stats.acks[slot] += 1;
        match code {
            OVER_LOAD => {
                let freeze = round_timer(self.p.interval, self.p.timer_tick);
                let ai_for = round_timer(rtt, self.p.timer_tick);
                match after_md(self.md_at, s.now, MdRule::Vcp, freeze, ai_for) {
                    Overload::Md => {
                        // `slowdown(0)`: cwnd_ *= beta_, at least one packet.
                        self.win.w *= self.p.beta;
                        if self.win.w < 1.0 {
                            self.win.w = 1.0;
                        }
                        self.md_at = Some(s.now);
                        self.stats.md += 1;
                    }
                    Overload::Freeze => self.stats.frozen += 1,
                    Overload::Ai => self.ai(k, alpha),
                }
            }
            HIGH_LOAD => self.ai(k, alpha),
            // `01`, and anything else (the code's `else`): MI.
            _ => {
                let xi = if self.p.limiters {
                    self.p.xi.min(limiter(false, self.win.w))
                } else {
                    self.p.xi
                };
                self.win.w += k * mi_step(xi, ratio);
            }
        }
    }

    fn ai(&mut self, k: f64, alpha: f64) {
        let mut step = ai_step(k, alpha, self.win.w);
        if self.p.limiters {
            step = step.min(k * limiter(true, self.win.w));
        }
        self.win.w += step;
    }
}

impl CongestionOps for Vcp {
    fn name(&self) -> &'static str {
        "vcp"
    }
    /// `Agent/TCP/Reno`.
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        halve_flight(s)
    }
    fn cong_control(&mut self, s: &mut CcState, a: &AckSample) -> bool {
        self.win.sync(s);
        if a.feedback.code != 0 {
            self.code = a.feedback.code;
        }
        if a.acked == 0 {
            // A duplicate ACK: Reno's (the code reacts to new ACKs only).
            return false;
        }
        if a.in_recovery {
            // The sender ends or continues its recovery; the ACK that ends
            // it applies its code to the deflated window (`cong_avoid`).
            self.pending = Some(a.feedback.code);
            return false;
        }
        self.react(s, a.feedback.code, acked_packets(a, s.mss));
        self.win.write(s);
        true
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        // The ACK that ended a recovery (the only new ACK `cong_control`
        // leaves to the sender).
        self.win.sync(s);
        let code = self.pending.take().unwrap_or(LOW_LOAD);
        let k = (acked as f64 / s.mss as f64).min(MAX_ACKED_PER_ACK);
        self.react(s, code, k);
        self.win.write(s);
    }
    fn ecn_echo(&mut self, _s: &CcState) -> Option<u64> {
        None
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("load_code", self.code as f64))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        let s = &self.stats;
        vec![
            ("md", s.md as f64),
            ("md_frozen", s.frozen as f64),
            ("acks_low_load", s.acks[0] as f64),
            ("acks_high_load", s.acks[1] as f64),
            ("acks_overload", s.acks[2] as f64),
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

    /// A sender's view with `w` packets and SRTT `rtt_ms`, at `now_ms`.
    fn st(w: f64, rtt_ms: u64, now_ms: u64) -> CcState {
        CcState {
            now: ms(now_ms),
            srtt: Some(ms(rtt_ms)),
            min_rtt: Some(ms(rtt_ms)),
            ..CcState::for_test(MSS, (w * MSS as f64) as u64, u64::MAX)
        }
    }

    fn ack(code: u8) -> AckSample {
        AckSample {
            acked: MSS,
            feedback: Feedback {
                code,
                ..Feedback::default()
            },
            ..AckSample::default()
        }
    }

    /// One module driven by ACKs at given times; the window after each.
    struct Drive {
        cc: Vcp,
        s: CcState,
    }

    impl Drive {
        fn new(p: Params, w: f64, rtt_ms: u64) -> Drive {
            Drive {
                cc: Vcp::new(p),
                s: st(w, rtt_ms, 0),
            }
        }
        fn ack(&mut self, now_ms: u64, code: u8) -> f64 {
            self.s.now = ms(now_ms);
            assert!(self.cc.cong_control(&mut self.s, &ack(code)));
            self.cc.window()
        }
    }

    /// `rtt_update`: T/t_ρ capped at 2.5; AI's s(T) = (T/t_d)², linear below
    /// 20 ms and above 500 ms.
    #[test]
    fn rtt_update_scalings() {
        let p = Params::default();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let (r, a) = p.scales(ms(60));
        assert!(close(r, 0.3) && close(a, 0.36), "{r} {a}");
        let (r, a) = p.scales(ms(10));
        assert!(close(r, 0.05) && close(a, 0.1 * 0.2), "{r} {a}");
        let (r, a) = p.scales(ms(300));
        assert!(close(r, 1.5) && close(a, 9.0), "{r} {a}");
        let (r, a) = p.scales(ms(600));
        assert!(close(r, 2.5) && close(a, 26.0), "{r} {a}");
    }

    /// Each code's law per ACK at w = 10, T = 60 ms: `01` MI, w += 1.0625^0.3
    /// − 1 = 0.0183538; `10` AI, w += 0.36/10 (under the limiter's 0.06);
    /// `11` MD, w·0.875; no code (`00`) is the code's `else`: MI.
    #[test]
    fn each_code_applies_its_law() {
        let mi = 1.0625f64.powf(0.3) - 1.0;
        assert!((mi - 0.018_353_8).abs() < 1e-7);
        let mut d = Drive::new(Params::default(), 10.0, 60);
        assert!((d.ack(1, LOW_LOAD) - (10.0 + mi)).abs() < 1e-12);
        let mut d = Drive::new(Params::default(), 10.0, 60);
        assert!((d.ack(1, HIGH_LOAD) - 10.036).abs() < 1e-12);
        let mut d = Drive::new(Params::default(), 10.0, 60);
        assert_eq!(d.ack(1, OVER_LOAD), 8.75);
        assert_eq!(d.s.cwnd, 8750);
        let mut d = Drive::new(Params::default(), 10.0, 60);
        assert!((d.ack(1, 0) - (10.0 + mi)).abs() < 1e-12);
        assert_eq!(d.cc.stats.acks, [1, 0, 0]);
    }

    /// One window of low-load ACKs at T = t_ρ multiplies w by 1 + ξ = 1.0625:
    /// each ACK adds (1 + ξ)^1 − 1 = ξ, so the 100 ACKs of a window of 100
    /// packets add 6.25.
    #[test]
    fn mi_per_round_at_t_rho() {
        let mut d = Drive::new(Params::default(), 100.0, 200);
        let mut w = 0.0;
        for i in 0..100 {
            w = d.ack(i, LOW_LOAD);
        }
        assert!((w - 106.25).abs() < 1e-9, "{w}");
    }

    /// MD at 1 s (w 100 → 87.5), then `11` ignored for t_ρ = 200 ms, treated
    /// as AI for one RTT (60 ms: w += 0.36/87.5), then MD again from 1.26 s;
    /// `01` applies MI during the freeze.
    #[test]
    fn md_freeze_then_ai_for_one_rtt_then_md() {
        let mut d = Drive::new(Params::default(), 100.0, 60);
        assert_eq!(d.ack(1000, OVER_LOAD), 87.5);
        assert_eq!(d.ack(1100, OVER_LOAD), 87.5);
        assert_eq!(d.ack(1199, OVER_LOAD), 87.5);
        let w = d.ack(1200, OVER_LOAD);
        assert!((w - (87.5 + 0.36 / 87.5)).abs() < 1e-12, "{w}");
        let w2 = d.ack(1259, OVER_LOAD);
        assert!(w2 > w);
        assert!((d.ack(1260, OVER_LOAD) - 0.875 * w2).abs() < 1e-12);
        let before = d.cc.window();
        let w = d.ack(1300, LOW_LOAD);
        assert!(w > before, "MI during the freeze");
        assert_eq!((d.cc.stats.md, d.cc.stats.frozen), (2, 2));
    }

    /// `rtt_update`: T is the SRTT in whole 10-ms ticks, at least one (68.75
    /// ms → 60 ms, 4 ms → 10 ms), the SRTT itself with `srtt_tick = 0`, and
    /// t_d = 100 ms before any sample. AI at w = 10 from a 68.75-ms SRTT adds
    /// 0.36/10, as at 60 ms.
    #[test]
    fn rtt_is_the_srtt_in_whole_ticks() {
        let cc = Vcp::new(Params::default());
        let mut s = st(10.0, 0, 0);
        s.srtt = Some(Time::from_micros(68_750));
        assert_eq!(cc.rtt(&s), ms(60));
        s.srtt = Some(ms(4));
        assert_eq!(cc.rtt(&s), ms(10));
        s.srtt = None;
        assert_eq!(cc.rtt(&s), ms(100));
        let exact = Vcp::new(Params {
            srtt_tick: Time::ZERO,
            ..Params::default()
        });
        s.srtt = Some(Time::from_micros(68_750));
        assert_eq!(exact.rtt(&s), Time::from_micros(68_750));
        let mut d = Drive::new(Params::default(), 10.0, 0);
        d.s.srtt = Some(Time::from_micros(68_750));
        assert!((d.ack(1, HIGH_LOAD) - 10.036).abs() < 1e-12);
    }

    /// `round_timeout_value(tv, 10 ms, true)`: whole ms, down to the tick,
    /// plus a tick unless the remainder is under 2 ms.
    #[test]
    fn ns2_timer_rounding() {
        let r = |us: u64| round_timer(Time::from_micros(us), ms(10)).0 / 1_000_000;
        assert_eq!(r(200_000), 200);
        assert_eq!(r(60_000), 60);
        assert_eq!(r(61_000), 60);
        assert_eq!(r(62_000), 70);
        assert_eq!(r(61_500), 70, "61.5 ms is 62 ms");
        assert_eq!(r(5_000), 10);
        assert_eq!(round_timer(ms(61), Time::ZERO), ms(61));
    }

    /// The limiters (`vcp-cmn.cc`): ξ(w) = 0.1 − 0.036·(log₁₀ w − 3) between
    /// 10³ and 10⁴, 0.064 − 0.02·(log₁₀ w − 4) above, so ξ stays 0.0625 up to
    /// ≈ 11 900 packets; AI's cap 0.1·w^(−log₁₀(0.1/0.06)) below 10 packets
    /// (0.0857 at w = 2), 0.06 at w = 10.
    #[test]
    fn window_limiters_of_the_code() {
        assert!((limiter(false, 5000.0) - (0.1 - 0.036 * (5000f64.log10() - 3.0))).abs() < 1e-12);
        assert!(limiter(false, 11_000.0) > 0.0625);
        let x = limiter(false, 20_000.0);
        assert!((x - (0.064 - 0.02 * (20_000f64.log10() - 4.0))).abs() < 1e-12, "{x}");
        assert!(x < 0.0625);
        let a = limiter(true, 2.0);
        assert!((a - 0.1 * 2f64.powf(-(0.1f64 / 0.06).log10())).abs() < 1e-12, "{a}");
        assert!((limiter(true, 10.0) - 0.06).abs() < 1e-12);
        // The table's bins: 2.04 packets looks up the entry of 2.0.
        assert_eq!(limiter(true, 2.04), limiter(true, 2.0));
        assert_eq!(limiter(true, 1e9), limiter(true, 9.9e6), "the last entry");
        // AI at w = 2, T = 300 ms: (0.3/0.1)²/2 = 4.5 per ACK, capped at 0.0857.
        let mut d = Drive::new(Params::default(), 2.0, 300);
        assert!((d.ack(1, HIGH_LOAD) - (2.0 + a)).abs() < 1e-12);
        let mut d = Drive::new(
            Params {
                limiters: false,
                ..Params::default()
            },
            2.0,
            300,
        );
        assert!((d.ack(1, HIGH_LOAD) - 6.5).abs() < 1e-12);
    }

    /// Duplicate ACKs are Reno's; the ACK that ends a recovery applies its
    /// code to the window the sender deflated (here `11`: MD on 50 packets).
    /// A loss halves as Reno and leaves the MD timers alone.
    #[test]
    fn loss_recovery_is_renos_and_the_exit_ack_applies_its_code() {
        let mut cc = Vcp::new(Params::default());
        let mut s = st(100.0, 60, 1000);
        let dup = AckSample {
            acked: 0,
            dup: true,
            ..ack(LOW_LOAD)
        };
        assert!(!cc.cong_control(&mut s, &dup));
        assert_eq!(cc.ssthresh(&s), 50_000);
        assert_eq!(cc.recovery(), Recovery::Reno);
        let exit = AckSample {
            in_recovery: true,
            ..ack(OVER_LOAD)
        };
        assert!(!cc.cong_control(&mut s, &exit));
        s.cwnd = 50_000; // deflated by the sender
        cc.cong_avoid(&mut s, MSS);
        assert_eq!(s.cwnd, 43_750);
        assert_eq!(cc.stats.md, 1);
        assert_eq!(cc.ecn_echo(&s), None);
    }

    #[test]
    fn keys_defaults_and_bad_values() {
        let v = serde_json::json!({});
        let mut t = Tab::new("cc".into(), &v).unwrap();
        assert_eq!(Params::read(&mut t).unwrap(), Params::default());
        let bad = |v: Value| {
            let mut t = Tab::new("cc".into(), &v).unwrap();
            Params::read(&mut t).expect_err("refused")
        };
        for (v, key) in [
            (serde_json::json!({"beta": 1.0}), "cc.beta"),
            (serde_json::json!({"beta": 0}), "cc.beta"),
            (serde_json::json!({"xi": 0}), "cc.xi"),
            (serde_json::json!({"alpha": -1}), "cc.alpha"),
            (serde_json::json!({"interval": "0s"}), "cc.interval"),
            (serde_json::json!({"rtt_ref": "0s"}), "cc.rtt_ref"),
            (serde_json::json!({"timer_tick": "1.5ms"}), "cc.timer_tick"),
            (serde_json::json!({"srtt_tick": "2s"}), "cc.srtt_tick"),
            (serde_json::json!({"limiters": "yes"}), "cc.limiters"),
        ] {
            let e = bad(v.clone());
            assert_eq!(e.path, key, "{v}: {e}");
        }
        for beta in [1.0, 1.5, -0.5] {
            let e = bad(serde_json::json!({ "beta": beta }));
            assert_eq!(e.expected, "an MD factor β in (0, 1)", "{e}");
        }
        assert_eq!(bad(serde_json::json!({"xi": -1})).expected, "a gain ξ in (0, 10]");
    }
}
