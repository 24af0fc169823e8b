//! Unit tests of the BMCC sender (Qazi, Znati & Andrew, PFLDNeT 2009 §3.3,
//! §5.2, §5.3; docs/models/bmcc.md, "Sender" and "Modelling decisions"): the
//! model page's table of derived values, MI (eq. 3) over one window of ACKs
//! and at most two packets counted per ACK, AI (eq. 4) per ACK, MD (eq. 5)
//! with the freeze and `md_rule = "once-per-rtt"`, the loss response once per
//! RTT, CE in the original design and in the modified scheme, the
//! SACK-compatibility heuristic's switches, and following the sender's
//! timeout.

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
        srtt: Some(ms(rtt_ms)),
        min_rtt: Some(ms(rtt_ms)),
        ..CcState::for_test(MSS, (w * MSS as f64) as u64, u64::MAX)
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

/// The table of derived values of eqs. 2–6 (docs/models/bmcc.md, "Sender"),
/// and the analytic rows of its "Reproduction targets": the MI
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

/// The loss response (§3.3; docs/models/bmcc.md, "Modelling decisions: Loss
/// response"): a loss halves the window once per RTT and leaves f̂; an overload
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
