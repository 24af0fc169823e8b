//! TCP Vegas (L. S. Brakmo, L. L. Peterson, "TCP Vegas: End to End
//! Congestion Avoidance on a Global Internet", IEEE JSAC 13(8), 1995, §3.2
//! and §3.3), as ns-3's `TcpVegas` (src/internet/model/tcp-vegas.cc, after
//! Linux `tcp_vegas.c`) runs it.
//!
//! * BaseRTT: the minimum RTT seen by the flow; per round (until the
//!   cumulative ACK reaches SND.NXT as it was when the round began, ns-3's
//!   `m_lastAckedSeq >= m_begSndNxt`; Linux waits for the ACK that passes
//!   it, `after(ack, beg_snd_nxt)`, one ACK later) the minimum RTT of the
//!   round's samples (`minRtt`) and their number.
//! * Once per round, with more than two samples (fewer: Reno's growth):
//!   `Diff = cwnd − ⌊cwnd·BaseRTT/minRtt⌋` (whole segments, as ns-3's
//!   truncated `targetCwnd`; the paper's `(Expected − Actual)·BaseRTT`). In
//!   slow start, if `Diff > γ` (1): cwnd =
//!   min(cwnd, cwnd·BaseRTT/minRtt + 1) and ssthresh = max(min(ssthresh,
//!   cwnd − 1), 2) — leave slow start (§3.3, "modified slow start"); else
//!   slow start continues. In congestion avoidance, `Diff > β` (4): cwnd −=
//!   1 segment, then ssthresh = max(min(ssthresh, cwnd − 1), 2) of the
//!   decreased window (ns-3 decrements `m_cWnd` before `GetSsThresh`);
//!   `Diff < α` (2): cwnd += 1 segment; else unchanged. Then ssthresh =
//!   max(ssthresh, 3/4·cwnd).
//! * Between round ends: slow start grows as Reno's; congestion avoidance
//!   does not grow.
//! * Losses: Reno's halving and NewReno recovery. Vegas is off from a
//!   recovery's or a timeout's start until the sender is open again (the
//!   cumulative ACK past `recover`; Linux `tcp_vegas_state`, ns-3
//!   `DisableVegas` outside `CA_OPEN`): the go-back-N slow start after a
//!   timeout is Reno's. The round restarts when it is on again. With `loss =
//!   "one_segment"`, ns-3's `TcpVegas::GetSsThresh` instead: ssthresh =
//!   max(min(ssthresh, cwnd − 1), 2) segments, at a loss and at a timeout.
//!
//! Deviations: halving is the default (Linux `tcp_vegas` uses
//! `tcp_reno_ssthresh`, and the paper keeps Reno's reaction to a
//! retransmission by dupacks — its §3.1 retransmission and ¾ decrease are
//! not implemented); ns-3's one-segment reduction is the option. Vegas
//! needs several RTT samples per round: the module asks for timestamp RTT
//! samples (`Needs::timestamps`), as ns-3 and Linux measure every ACK. Slow start doubles each RTT (the paper's "every other
//! RTT" is not implemented, nor is ns-3).

use super::hystart::RoundCounter;
use super::{halve_flight, reno_cong_avoid, slow_start, AckSample, CaEvent, CcSpec, CcState, CongestionOps, Needs};
use crate::cfg::{Res, Tab};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// α, segments: below, cwnd grows by one per round (2).
    pub alpha: u64,
    /// β, segments: above, cwnd shrinks by one per round (4); α < β.
    pub beta: u64,
    /// γ, segments: above, slow start ends (1).
    pub gamma: u64,
    /// The reduction at a loss: Reno's halving (false, default) or ns-3's
    /// one segment below cwnd (true, `loss = "one_segment"`).
    pub one_segment_loss: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            alpha: 2,
            beta: 4,
            gamma: 1,
            one_segment_loss: false,
        }
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("alpha", "Vegas: below this Diff (segments) cwnd grows by one segment per RTT"),
    ("beta", "Vegas: above this Diff (segments) cwnd shrinks by one segment per RTT"),
    ("gamma", "Vegas: above this Diff (segments) slow start ends"),
    (
        "loss",
        "Vegas: the reduction at a loss, \"halve\" (Reno, Linux) or \"one_segment\" (ns-3's TcpVegas: ssthresh = cwnd - 1 segment)",
    ),
];

impl Params {
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        let alpha = t.uint("alpha", Some(d.alpha), 0, 10_000)?;
        let beta = t.uint("beta", Some(d.beta), 0, 10_000)?;
        let gamma = t.uint("gamma", Some(d.gamma), 0, 10_000)?;
        if alpha >= beta {
            return Err(t.error(
                "beta",
                &Value::from(beta),
                format!("a number of segments above alpha = {alpha} (Vegas needs α < β)"),
            ));
        }
        let one_segment_loss = t.choice("loss", Some("halve"), &["halve", "one_segment"])? == "one_segment";
        Ok(Params {
            alpha,
            beta,
            gamma,
            one_segment_loss,
        })
    }
}

impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Vegas::new(*self))
    }
    fn needs(&self) -> Needs {
        Needs {
            // SACK recovery by default, as Linux and ns-3 (TcpSocketBase::Sack) run it
            sack: true,
            timestamps: true,
            ..Needs::default()
        }
    }
}

pub struct Vegas {
    p: Params,
    base_rtt: Option<Time>,
    round_min: Option<Time>,
    samples: u32,
    round: RoundCounter,
    /// A round ended with the last ACK: adjust in `cong_avoid`.
    round_end: bool,
    /// The last Diff computed, segments.
    diff: f64,
    /// Off from a recovery's or a timeout's start until the sender is open
    /// again (Linux `vegas_disable` outside `TCP_CA_Open`, ns-3
    /// `DisableVegas`): Reno's growth meanwhile.
    off: bool,
}

impl Vegas {
    pub fn new(p: Params) -> Vegas {
        Vegas {
            p,
            base_rtt: None,
            round_min: None,
            samples: 0,
            round: RoundCounter::default(),
            round_end: false,
            diff: 0.0,
            off: false,
        }
    }

    /// The once-per-round adjustment (ns-3 `TcpVegas::IncreaseWindow`);
    /// `acked` is used if slow start continues.
    fn adjust(&mut self, s: &mut CcState, acked: u64, base: Time, min: Time) {
        let mss = s.mss;
        let seg = s.cwnd / mss;
        // whole segments, as ns-3 (`targetCwnd` is truncated, so Diff rounds up)
        let target = (seg as f64 * base.as_secs_f64() / min.as_secs_f64()).floor();
        let diff = seg as f64 - target;
        self.diff = diff;
        if diff > self.p.gamma as f64 && s.cwnd < s.ssthresh {
            // §3.3: slow start is too fast; leave it.
            let seg = seg.min(target as u64 + 1);
            s.cwnd = seg * mss;
            s.ssthresh = one_segment_below(s);
        } else if s.cwnd < s.ssthresh {
            slow_start(s, acked);
        } else {
            if diff > self.p.beta as f64 {
                // ssthresh from the decreased window (ns-3 decrements m_cWnd,
                // then calls GetSsThresh)
                s.cwnd = seg.saturating_sub(1).max(2) * mss;
                s.ssthresh = one_segment_below(s);
            } else if diff < self.p.alpha as f64 {
                s.cwnd = (seg + 1) * mss;
            } else {
                s.cwnd = seg * mss;
            }
        }
        s.ssthresh = s.ssthresh.max(3 * s.cwnd / 4);
    }
}

impl CongestionOps for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        if self.p.one_segment_loss {
            one_segment_below(s)
        } else {
            halve_flight(s)
        }
    }
    fn pkts_acked(&mut self, s: &CcState, a: &AckSample) {
        // The sample first: the ACK that ends a round counts in it (ns-3
        // `PktsAcked` before `IncreaseWindow`).
        if let Some(r) = a.rtt.filter(|r| *r > Time::ZERO) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        if a.acked > 0 && !a.in_recovery && self.round.on_ack(a.acked, s.flight) {
            self.round_end = true;
        }
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        if self.off {
            // the go-back-N slow start after a timeout, and Reno's growth
            if s.cwnd < s.ssthresh {
                slow_start(s, acked);
            } else {
                reno_cong_avoid(s, acked);
            }
            return;
        }
        if !std::mem::take(&mut self.round_end) {
            if s.cwnd < s.ssthresh {
                slow_start(s, acked);
            }
            return;
        }
        match (self.samples > 2, self.base_rtt, self.round_min) {
            (true, Some(base), Some(min)) => self.adjust(s, acked, base, min),
            _ => reno_cong_avoid(s, acked),
        }
        self.samples = 0;
        self.round_min = None;
    }
    fn cwnd_event(&mut self, _s: &mut CcState, ev: CaEvent) {
        // Linux `tcp_vegas_state`, ns-3 `CongestionStateSet`: Vegas is off
        // outside the open state (a fast recovery and a timeout's recovery,
        // until the cumulative ACK passes `recover`) and restarts its round
        // when it is on again.
        self.off = match ev {
            CaEvent::EnterRecovery | CaEvent::Timeout => true,
            CaEvent::ExitRecovery | CaEvent::ExitLoss => false,
            CaEvent::EcnReduce => return,
        };
        self.round.restart();
        self.round_end = false;
        self.samples = 0;
        self.round_min = None;
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("diff", self.diff))
    }
}

/// ns-3's `TcpVegas::GetSsThresh`: max(min(ssthresh, cwnd − 1), 2)
/// segments. Vegas sets ssthresh so when it leaves slow start or shrinks
/// the window, and, with `loss = "one_segment"`, at a loss.
fn one_segment_below(s: &CcState) -> u64 {
    (s.ssthresh.min(s.cwnd.saturating_sub(s.mss))).max(2 * s.mss)
}

pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Params::read(t)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn st(cwnd_segs: u64, ssthresh_segs: u64) -> CcState {
        CcState::for_test(MSS, cwnd_segs * MSS, ssthresh_segs * MSS)
    }

    /// `n` ACKs of one segment with RTT `rtt_ms`; the flight stays as `s`
    /// has it, so rounds are `s.flight / MSS` ACKs long. Returns cwnd in segments.
    fn feed(v: &mut Vegas, s: &mut CcState, n: u64, rtt_ms: u64) -> u64 {
        for _ in 0..n {
            let a = AckSample {
                acked: MSS,
                rtt: Some(Time::from_millis(rtt_ms)),
                ..AckSample::default()
            };
            v.pkts_acked(s, &a);
            v.cong_avoid(s, MSS);
        }
        s.cwnd / MSS
    }

    /// Brakmo & Peterson §3.2 by hand, with ns-3's whole-segment expected
    /// window: BaseRTT 100 ms, cwnd 20 (rounds of 20 ACKs). A round at 105
    /// ms: target ⌊20·100/105⌋ = 19, Diff = 1 < α: +1. 115 ms: ⌊17.4⌋ = 17,
    /// Diff = 3, in [α, β]: unchanged. 130 ms: ⌊15.4⌋ = 15, Diff = 5 > β:
    /// −1. At 110 ms the truncation decides: ⌊18.2⌋ = 18, Diff = 2 = α,
    /// unchanged (unrounded, 1.8 < α would grow the window).
    #[test]
    fn diff_moves_the_window_by_one_segment_per_round() {
        let mut v = Vegas::new(Params::default());
        let mut s = st(20, 10);
        feed(&mut v, &mut s, 1, 100); // the first ACK begins a round; BaseRTT
        assert_eq!(feed(&mut v, &mut s, 20, 105), 21);
        s.cwnd = 20 * MSS;
        assert_eq!(feed(&mut v, &mut s, 20, 115), 20);
        assert_eq!(v.diff, 3.0);
        assert_eq!(feed(&mut v, &mut s, 20, 110), 20);
        assert_eq!(v.diff, 2.0);
        assert_eq!(feed(&mut v, &mut s, 20, 130), 19);
        // ssthresh: raised to ¾·21 = 15.75 at the first round's end (≥ ¾·cwnd
        // after every adjustment), then max(min(15.75, 20 − 1), 2) = 15.75
        assert_eq!(s.ssthresh, 15_750);
    }

    /// ns-3's order at a decrease: cwnd first, then ssthresh from the
    /// decreased window. BaseRTT 100 ms, cwnd 20 = ssthresh (congestion
    /// avoidance), a round at 130 ms: Diff = 20 − ⌊15.4⌋ = 5 > β, cwnd 19,
    /// ssthresh = max(min(20, 19 − 1), 2) = 18, then max(18, ¾·19 = 14.25) =
    /// 18 (from the window before the decrease it would be 19).
    #[test]
    fn a_decrease_takes_ssthresh_from_the_decreased_window() {
        let mut v = Vegas::new(Params::default());
        let mut s = st(20, 20);
        feed(&mut v, &mut s, 1, 100);
        assert_eq!(feed(&mut v, &mut s, 20, 130), 19);
        assert_eq!(v.diff, 5.0);
        assert_eq!(s.ssthresh, 18 * MSS);
    }

    /// §3.3: in slow start, Diff > γ ends it with cwnd ≈ the expected window.
    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma() {
        let mut v = Vegas::new(Params::default());
        let mut s = st(4, 1_000_000);
        // the first ACK (too few samples: Reno's slow start) 4 → 5
        assert_eq!(feed(&mut v, &mut s, 1, 100), 5);
        // a round of 4 ACKs at the base RTT: slow start goes on (+1 per ACK)
        assert_eq!(feed(&mut v, &mut s, 4, 100), 9);
        // at 200 ms: 12 segments at the round's end, Diff = 6 > γ: cwnd =
        // min(12, 6 + 1) = 7, ssthresh = max(min(ssthresh, cwnd − 1), 2) = 6
        assert_eq!(feed(&mut v, &mut s, 4, 200), 7);
        assert_eq!(s.ssthresh, 6 * MSS);
    }

    /// The loss response: Reno's halving of the flight by default; ns-3's
    /// one segment below cwnd (bounded by ssthresh and two segments) as the
    /// option. cwnd 40, flight 40, ssthresh 100: 20 against 39 segments.
    #[test]
    fn a_loss_halves_or_takes_one_segment() {
        let s = st(40, 100);
        let j = serde_json::json!({"loss": "one_segment"});
        let ns3 = Params::read(&mut Tab::new("cc".into(), &j).unwrap()).unwrap();
        assert_eq!(Vegas::new(Params::default()).ssthresh(&s), 20 * MSS);
        assert_eq!(Vegas::new(ns3).ssthresh(&s), 39 * MSS);
        // bounded by ssthresh, and by two segments
        assert_eq!(Vegas::new(ns3).ssthresh(&st(40, 30)), 30 * MSS);
        assert_eq!(Vegas::new(ns3).ssthresh(&st(2, 100)), 2 * MSS);
        let bad = serde_json::json!({"loss": "third"});
        let e = Params::read(&mut Tab::new("flows[0].cc".into(), &bad).unwrap()).unwrap_err();
        assert_eq!(e.path, "flows[0].cc.loss");
    }

    /// Off from a timeout until the loss state ends (Linux, ns-3): the
    /// go-back-N slow start is Reno's even where a round's Diff would end
    /// it (cwnd 4 → 12 over 8 ACKs at twice BaseRTT; on, it stops at 7 as
    /// above); on again after `ExitLoss`, with a fresh round.
    #[test]
    fn off_through_a_timeouts_recovery() {
        let mut v = Vegas::new(Params::default());
        let mut s = st(4, 1_000_000);
        feed(&mut v, &mut s, 1, 100);
        v.cwnd_event(&mut s, CaEvent::Timeout);
        s.cwnd = 4 * MSS;
        assert_eq!(feed(&mut v, &mut s, 8, 200), 12, "Reno's slow start");
        v.cwnd_event(&mut s, CaEvent::ExitLoss);
        assert!(!v.off && v.samples == 0);
        // on again: the first ACK begins a round of the 4-segment flight
        // (slow start 12 → 16 meanwhile), whose end at 16 segments decides:
        // Diff = 16 − ⌊16·100/200⌋ = 8 > γ, cwnd = 8 + 1
        s.flight = 4 * MSS;
        feed(&mut v, &mut s, 5, 200);
        assert_eq!(s.cwnd / MSS, 9, "Vegas ends slow start again");
    }

    #[test]
    fn alpha_must_be_below_beta() {
        let j = serde_json::json!({"alpha": 4, "beta": 4});
        let mut t = Tab::new("flows[0].cc".into(), &j).unwrap();
        let e = Params::read(&mut t).unwrap_err();
        assert_eq!(e.path, "flows[0].cc.beta");
    }
}
