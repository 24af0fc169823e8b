//! DCTCP (RFC 8257, "Data Center TCP (DCTCP): TCP Congestion Control for
//! Data Centers", 2017; Alizadeh et al., SIGCOMM 2010), the sender side.
//!
//! * §3.3: per window of data (a round: until the cumulative ACK passes
//!   SND.NXT as it was when the window began, [`RoundCounter`]) the sender
//!   counts the bytes acknowledged (`DCTCP.BytesAcked`) and those acknowledged
//!   by ACKs with ECE (`DCTCP.BytesMarked`); at the window's end `M =
//!   BytesMarked / BytesAcked` and `α ← (1 − g)·α + g·M`, g = 1/16.
//! * §3.3: on an ECE, at most once per window of data (the sender's RFC 3168
//!   gate, [`CongestionOps::ecn_echo`]): `cwnd ← cwnd·(1 − α/2)`, ssthresh
//!   the same, at least two segments (Linux `dctcp_ssthresh`).
//! * §3.4: a loss is answered as by standard TCP (Reno's halving).
//! * The receiver echoes the CE state of each segment exactly (§3.2): the
//!   module asks for it ([`Needs::accurate_ce`], `tcp/receiver.rs`), with ECN.
//! * Window growth is Reno's (RFC 5681), as the sender counts it
//!   (`byte_counting`).
//!
//! Choices: α starts at 1 (`alpha_init`), as Linux (`dctcp_alpha_on_init` =
//! 1024/1024) and ns-3 (`TcpDctcp::InitialAlpha` = 1); §3.3 leaves it open.
//! An ACK carrying ECE may grow cwnd ([`CongestionOps::grow_on_ece`]): the
//! echo reports the marking fraction, and Linux grows on every ACK in the
//! Open state before its once-per-window reduction (with `cwr_hold` the
//! sender holds growth for the round trip after a reduction, as ns-3's
//! `CA_CWR`).
//! No §3.5 ECN for SYN/ACK.
//!
//! `variant = "ns3"` grows the window as ns-3.44's `TcpDctcp` does: it
//! inherits `TcpLinuxReno`, whose congestion avoidance adds a segment per
//! ⌊cwnd/SMSS⌋ segments acknowledged and keeps its ACK count (`m_cWndCnt`)
//! through every reduction, where Linux clears `snd_cwnd_cnt` on entering
//! CWR or recovery (`tcp_init_cwnd_reduction`). Its slow start adds whole
//! segments up to ssthresh (`TcpLinuxReno::SlowStart`). The kept count
//! matters: eight flows over step marking at 100 Mb/s with round trips of
//! 19.3-20.8 ms share with Jain's index 0.88-0.92 under it (ns-3:
//! 0.87-0.92), 0.98 with the count cleared at each reduction and 0.93-0.95
//! under Reno's per-ACK growth (docs/validation.md). Not modelled: the
//! growth `TcpLinuxReno` skips when the flow is not cwnd-limited (a bulk
//! sender always is).

use super::hystart::RoundCounter;
use super::{cong_avoid_ai_w, halve_flight, reno_cong_avoid, AckSample, CcSpec, CcState, CongestionOps, Needs};
use crate::cfg::{Res, Tab};
use serde_json::Value;
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// Estimation gain g in (0, 1] (RFC 8257 §4.2: 1/16).
    pub g: f64,
    /// Initial α in [0, 1] (1, as Linux and ns-3).
    pub alpha_init: f64,
    /// Whose window growth (`variant`, module docs).
    pub variant: Variant,
}

/// Whose DCTCP window growth: Reno's as the sender counts it (RFC 8257 §3.3
/// leaves growth to standard TCP), or ns-3's `TcpDctcp`, which inherits
/// `TcpLinuxReno`'s count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    Rfc8257,
    Ns3,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            variant: Variant::Rfc8257,
        }
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("g", "DCTCP: the gain g of the α estimate, in (0, 1] (RFC 8257: 1/16)"),
    ("alpha_init", "DCTCP: the initial α, in [0, 1] (Linux and ns-3: 1)"),
    (
        "variant",
        "DCTCP's growth: \"rfc8257\" (Reno's, as the sender counts) or \"ns3\" (TcpDctcp: TcpLinuxReno's count, kept through reductions)",
    ),
];

impl Params {
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        let g = t.float("g", Some(d.g), 0.0, 1.0)?;
        if g <= 0.0 {
            return Err(t.error(
                "g",
                &Value::from(g),
                "a number in the open interval (0, 1] (RFC 8257 §3.3: the estimation gain)",
            ));
        }
        let alpha_init = t.float("alpha_init", Some(d.alpha_init), 0.0, 1.0)?;
        let variant = match t.choice("variant", Some("rfc8257"), &["rfc8257", "ns3"])?.as_str() {
            "ns3" => Variant::Ns3,
            _ => Variant::Rfc8257,
        };
        Ok(Params { g, alpha_init, variant })
    }
}

impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Dctcp::new(*self))
    }
    fn needs(&self) -> Needs {
        Needs {
            // SACK recovery by default, as Linux and ns-3 (TcpSocketBase::Sack) run it
            sack: true,
            ecn: Some("DCTCP reacts to the fraction of CE-marked bytes (RFC 8257 §3)"),
            accurate_ce: true,
            ..Needs::default()
        }
    }
}

pub struct Dctcp {
    p: Params,
    /// DCTCP.Alpha.
    pub alpha: f64,
    window: RoundCounter,
    acked: u64,
    marked: u64,
    reductions: u64,
    /// `variant = "ns3"`: `TcpLinuxReno`'s ACK count (`m_cWndCnt`, bytes
    /// here), which no reduction clears.
    ns3_cnt: u64,
}

impl Dctcp {
    pub fn new(p: Params) -> Dctcp {
        Dctcp {
            alpha: p.alpha_init,
            p,
            window: RoundCounter::default(),
            acked: 0,
            marked: 0,
            reductions: 0,
            ns3_cnt: 0,
        }
    }
}

impl CongestionOps for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        halve_flight(s)
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        match self.p.variant {
            Variant::Rfc8257 => reno_cong_avoid(s, acked),
            Variant::Ns3 => {
                // TcpLinuxReno::IncreaseWindow: slow start in whole segments,
                // then one segment per ⌊cwnd/SMSS⌋ segments acknowledged
                let acked = if s.cwnd < s.ssthresh {
                    let room = s.ssthresh - s.cwnd;
                    let inc = (acked / s.mss * s.mss).min(room);
                    s.cwnd += inc;
                    acked - inc
                } else {
                    acked
                };
                if acked > 0 && s.cwnd >= s.ssthresh {
                    let w = s.cwnd / s.mss;
                    cong_avoid_ai_w(&mut s.cwnd, &mut self.ns3_cnt, s.mss, w, acked);
                }
            }
        }
    }
    fn pkts_acked(&mut self, s: &CcState, a: &AckSample) {
        if a.acked == 0 {
            return;
        }
        // §3.3: the window's end is checked before this ACK's bytes are counted
        // into the next window (the ACK that passes SND.NXT closes it).
        if self.window.on_ack(a.acked, s.flight) && self.acked > 0 {
            let m = self.marked as f64 / self.acked as f64;
            self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * m;
            self.acked = 0;
            self.marked = 0;
        }
        self.acked += a.acked;
        if a.ece {
            self.marked += a.acked;
        }
    }
    fn grow_on_ece(&self) -> bool {
        true
    }

    /// RFC 8257 §3.5: a loss reduces as a conventional TCP's would, even in a
    /// window the echo already cut by α/2 (Linux `dctcp_react_to_loss`). The
    /// `ns3` variant keeps RFC 3168's once per window, as before.
    fn loss_after_ecn_reduces(&self) -> bool {
        self.p.variant == Variant::Rfc8257
    }

    fn ecn_echo(&mut self, s: &CcState) -> Option<u64> {
        self.reductions += 1;
        let w = s.cwnd as f64 * (1.0 - self.alpha / 2.0);
        Some((w as u64).max(2 * s.mss))
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("alpha", self.alpha))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("ecn_reductions", self.reductions as f64), ("alpha", self.alpha)]
    }
}

pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Params::read(t)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;

    fn st(cwnd: u64) -> CcState {
        CcState::for_test(MSS, cwnd, u64::MAX)
    }

    fn ack(ece: bool) -> AckSample {
        AckSample {
            acked: MSS,
            ece,
            ..AckSample::default()
        }
    }

    /// Under a fixed marking probability p (each segment's ECE drawn
    /// independently), α converges to p: α is an EWMA of the per-window
    /// fractions, whose mean is p. With windows of 50 segments and g = 1/16,
    /// after 400 windows α is within a few hundredths of p whatever α_0.
    #[test]
    fn alpha_converges_to_the_marking_fraction() {
        for p in [0.0, 0.05, 0.3, 1.0] {
            let mut d = Dctcp::new(Params::default());
            let mut rng = Rng::new(7, 1);
            let s = st(50 * MSS);
            let mut alphas = Vec::new();
            for w in 0..400 {
                for _ in 0..50 {
                    d.pkts_acked(&s, &ack(rng.uniform() < p));
                }
                if w >= 300 {
                    alphas.push(d.alpha);
                }
            }
            let mean = alphas.iter().sum::<f64>() / alphas.len() as f64;
            assert!(
                (mean - p).abs() < 0.02,
                "p = {p}: mean α over the last 100 windows {mean}"
            );
        }
    }

    /// A hand-worked window: α_0 = 1, a window of 10 segments with 4 marked:
    /// α = 15/16 + 4/10/16 = 0.9625 (computed when the next window begins).
    #[test]
    fn rfc8257_alpha_update_by_hand() {
        let mut d = Dctcp::new(Params::default());
        let s = st(10 * MSS);
        for i in 0..10 {
            d.pkts_acked(&s, &ack(i < 4));
        }
        assert_eq!(d.alpha, 1.0, "the window is not over yet");
        d.pkts_acked(&s, &ack(false));
        assert!((d.alpha - 0.9625).abs() < 1e-12, "{}", d.alpha);
    }

    /// α = 1: the window halves (as Reno on a loss); α = 0.2: it loses 10 %.
    #[test]
    fn window_halves_at_alpha_one() {
        let mut d = Dctcp::new(Params::default());
        assert_eq!(d.ecn_echo(&st(40 * MSS)), Some(20 * MSS));
        d.alpha = 0.2;
        assert_eq!(d.ecn_echo(&st(40 * MSS)), Some(36 * MSS));
        d.alpha = 1.0;
        assert_eq!(d.ecn_echo(&st(3 * MSS)), Some(2 * MSS), "at least two segments");
    }

    /// ns-3's `TcpLinuxReno` count, by hand (MSS 1000, congestion
    /// avoidance): at 10 segments the 10th ACK adds a segment. Five more ACKs
    /// are counted; a reduction at α = 1 leaves 5.5 segments and the sender
    /// clears its own count, but ns-3's is kept: the first ACK after it finds
    /// 5 ≥ ⌊5.5⌋ and adds a segment at once, then counts itself. Reno's
    /// growth (`"rfc8257"`, SMSS²/cwnd per ACK from a cleared count) adds
    /// 1000²/5500 = 181 bytes on that ACK.
    #[test]
    fn ns3_variant_keeps_its_count_through_a_reduction() {
        let p = |v| Params {
            variant: v,
            ..Params::default()
        };
        let mut d = Dctcp::new(p(Variant::Ns3));
        let mut s = st(10 * MSS);
        s.ssthresh = 5 * MSS;
        for i in 1..=10 {
            d.cong_avoid(&mut s, MSS);
            assert_eq!(s.cwnd, if i < 10 { 10 } else { 11 } * MSS, "ACK {i}");
        }
        for _ in 0..5 {
            d.cong_avoid(&mut s, MSS);
        }
        assert_eq!((s.cwnd, d.ns3_cnt), (11 * MSS, 5 * MSS));
        s.cwnd = d.ecn_echo(&st(11 * MSS)).unwrap();
        assert_eq!(s.cwnd, 5500);
        s.cwnd_cnt = 0; // the sender's reduction
        s.ssthresh = s.cwnd;
        d.cong_avoid(&mut s, MSS);
        assert_eq!((s.cwnd, d.ns3_cnt), (6500, MSS));
        assert_eq!(s.cwnd_cnt, 0, "the sender's count is not ns-3's");

        let mut r = Dctcp::new(p(Variant::Rfc8257));
        let mut s = st(5500);
        s.ssthresh = 5500;
        s.byte_counting = false;
        r.cong_avoid(&mut s, MSS);
        assert_eq!(s.cwnd, 5500 + 181);
    }

    /// Slow start under `"ns3"` adds whole segments up to ssthresh and passes
    /// what is left to congestion avoidance (`TcpLinuxReno::SlowStart`).
    #[test]
    fn ns3_variant_slow_start_stops_at_ssthresh() {
        let mut d = Dctcp::new(Params {
            variant: Variant::Ns3,
            ..Params::default()
        });
        let mut s = st(4 * MSS);
        s.ssthresh = 5 * MSS;
        d.cong_avoid(&mut s, 2 * MSS);
        assert_eq!((s.cwnd, d.ns3_cnt), (5 * MSS, MSS));
    }

    #[test]
    fn g_out_of_range_is_refused() {
        let j = serde_json::json!({"g": 0.0});
        let mut t = Tab::new("flows[0].cc".into(), &j).unwrap();
        let e = Params::read(&mut t).unwrap_err();
        assert_eq!(e.path, "flows[0].cc.g");
        let p = Params {
            g: 0.5,
            alpha_init: 0.0,
            variant: Variant::Rfc8257,
        };
        let j = serde_json::json!({"variant": "linux"});
        let mut t = Tab::new("flows[0].cc".into(), &j).unwrap();
        let e = Params::read(&mut t).unwrap_err();
        assert_eq!(e.path, "flows[0].cc.variant");
        assert_eq!(p.needs().ecn.is_some(), p.needs().accurate_ce);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// α stays in [0, 1] and the ECN response keeps cwnd·(1 − α/2) ∈
            /// [cwnd/2, cwnd] (at least two segments), for any ACK sequence.
            #[test]
            fn alpha_stays_a_fraction(
                acks in proptest::collection::vec((1u64..3, any::<bool>(), 1u64..60), 1..500),
                g in 0.001f64..1.0,
                alpha_init in 0.0f64..=1.0,
            ) {
                let mut d = Dctcp::new(Params { g, alpha_init, variant: Variant::Rfc8257 });
                for (segs, ece, flight) in acks {
                    let s = st(flight * MSS);
                    d.pkts_acked(&s, &AckSample { acked: segs * MSS, ece, ..AckSample::default() });
                    prop_assert!((0.0..=1.0).contains(&d.alpha));
                    let w = d.ecn_echo(&s).unwrap();
                    prop_assert!(w <= s.cwnd.max(2 * MSS));
                    prop_assert!(2 * w + 2 >= s.cwnd);
                }
            }
        }
    }
}
