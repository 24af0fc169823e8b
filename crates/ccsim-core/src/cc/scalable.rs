//! Scalable TCP (T. Kelly, "Scalable TCP: improving performance in highspeed
//! wide area networks", ACM SIGCOMM Computer Communication Review 33(2),
//! 2003, §2), as Linux's `tcp_scalable.c` runs it (`TCP_SCALABLE_AI_CNT`
//! 100, `TCP_SCALABLE_MD_SCALE` 3), with the paper's legacy window. Model
//! page: docs/models/scalable.md.
//!
//! * Congestion avoidance: one segment per `ai_cnt` segments acknowledged
//!   once cwnd exceeds `ai_cnt` segments — the paper's a = 0.01 per ACK, a
//!   growth of cwnd/100 segments per RTT: the time to regain a reduction no
//!   longer depends on the window. Below, one segment per cwnd segments
//!   acknowledged, Reno's rate (Linux: `tcp_cong_avoid_ai(tp, min(cwnd,
//!   TCP_SCALABLE_AI_CNT), acked)`, whole segments, the count in the
//!   sender's `cwnd_cnt`, which every reduction clears as Linux's
//!   `snd_cwnd_cnt`).
//! * Loss or ECN echo: ssthresh = max(W − ⌊W / 2^md_scale⌋, 2) segments,
//!   W the window the sender's `loss_window` names in whole segments — the
//!   paper's b = 0.125 (Linux `tcp_scalable_ssthresh`, which reduces cwnd;
//!   the module asks for `loss_window = "cwnd"` where the conventions would
//!   hand it the pipe, [`Needs::reduces_cwnd`]).
//! * Legacy window (the paper's lwnd = 16): below `low_window` segments
//!   (W, or cwnd while it grows) the module is Reno: one segment per cwnd
//!   segments acknowledged and a halving (RFC 5681 eq. 4), so Scalable flows
//!   share a small window as standard TCP does. `low_window = 0` is Linux's
//!   module, which has no legacy window.
//! * Slow start below ssthresh: Linux's `tcp_slow_start`, cwnd + the data
//!   the ACK delivered, not past ssthresh, the rest to congestion avoidance;
//!   the module counts delivered data itself
//!   ([`CongestionOps::counts_acked`], as Linux passes `acked`), so delayed
//!   ACKs do not slow it.
//!
//! Not modelled: Linux's `tcp_is_cwnd_limited` test (a bulk sender always is)
//! and `snd_cwnd_clamp`.

use super::{cong_avoid_ai_w, halve_flight, CcSpec, CcState, CongestionOps, Needs};
use crate::cfg::{Res, Tab};
use std::sync::Arc;

/// Configuration (the scenario's `cc = {kind = "scalable", ...}` keys).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Segments acknowledged per segment of growth above this window (100).
    pub ai_cnt: u64,
    /// A reduction takes W / 2^md_scale (3: one eighth).
    pub md_scale: u32,
    /// Below this window (segments) the module is Reno (16; 0: never).
    pub low_window: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            ai_cnt: 100,
            md_scale: 3,
            low_window: 16,
        }
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "ai_cnt",
        "Scalable TCP: above this window (segments) cwnd grows one segment per ai_cnt segments acknowledged, 1/ai_cnt of cwnd per RTT (Linux TCP_SCALABLE_AI_CNT: 100; the paper's a = 0.01)",
    ),
    (
        "md_scale",
        "Scalable TCP: a loss or ECN echo takes W / 2^md_scale from the window W (Linux TCP_SCALABLE_MD_SCALE: 3, one eighth; the paper's b = 0.125)",
    ),
    (
        "low_window",
        "Scalable TCP: below this window (segments) grow and halve as Reno (the paper's legacy window lwnd: 16; 0: never, as Linux's tcp_scalable)",
    ),
];

impl Params {
    /// Reads `cc = {kind = "scalable", ai_cnt, md_scale, low_window}`.
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        Ok(Params {
            ai_cnt: t.uint("ai_cnt", Some(d.ai_cnt), 1, 1_000_000)?,
            md_scale: t.uint("md_scale", Some(d.md_scale as u64), 1, 16)? as u32,
            low_window: t.uint("low_window", Some(d.low_window), 0, 1_000_000)?,
        })
    }
}

impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Scalable { p: *self })
    }
    fn needs(&self) -> Needs {
        Needs {
            // SACK recovery by default, as Linux runs it
            sack: true,
            reduces_cwnd: true,
            ..Needs::default()
        }
    }
}

pub struct Scalable {
    p: Params,
}

impl Scalable {
    pub fn new(p: Params) -> Scalable {
        Scalable { p }
    }
}

impl CongestionOps for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        let w = s.flight / s.mss;
        if w < self.p.low_window {
            return halve_flight(s);
        }
        (w - (w >> self.p.md_scale)).max(2) * s.mss
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let mut acked = acked;
        if s.cwnd < s.ssthresh {
            // tcp_slow_start: cwnd + acked up to ssthresh, the rest goes on
            let grown = (s.cwnd + acked).min(s.ssthresh);
            acked -= grown - s.cwnd;
            s.cwnd = grown;
            if acked == 0 {
                return;
            }
        }
        let segs = s.cwnd / s.mss;
        let w = if segs < self.p.low_window {
            segs
        } else {
            segs.min(self.p.ai_cnt)
        };
        cong_avoid_ai_w(&mut s.cwnd, &mut s.cwnd_cnt, s.mss, w, acked);
    }
    /// Neither `pkts_acked` nor `cong_control`.
    fn per_ack_hooks(&self) -> bool {
        false
    }
    fn counts_acked(&self) -> bool {
        true
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

    fn st(cwnd_segs: u64, ssthresh_segs: u64) -> CcState {
        CcState::for_test(MSS, cwnd_segs * MSS, ssthresh_segs * MSS)
    }

    fn with(j: serde_json::Value) -> Scalable {
        Scalable::new(Params::read(&mut Tab::new("cc".into(), &j).unwrap()).unwrap())
    }

    /// `n` ACKs of one segment each; cwnd in segments after them.
    fn feed(c: &mut Scalable, s: &mut CcState, n: u64) -> u64 {
        for _ in 0..n {
            c.cong_avoid(s, MSS);
        }
        s.cwnd / MSS
    }

    /// Above ai_cnt = 100 segments: one segment per 100 acknowledged, so a
    /// window of 1000 segments gains 10 per round trip (1 %), one of 200
    /// gains 2: the growth per RTT is proportional to the window.
    #[test]
    fn above_ai_cnt_one_segment_per_hundred_acknowledged() {
        let mut c = Scalable::new(Params::default());
        let mut s = st(200, 100);
        assert_eq!(feed(&mut c, &mut s, 99), 200);
        assert_eq!(feed(&mut c, &mut s, 1), 201);
        let mut s = st(1000, 100);
        assert_eq!(feed(&mut c, &mut s, 1000), 1010, "a round trip of ACKs: +1 %");
        let mut s = st(200, 100);
        assert_eq!(feed(&mut c, &mut s, 200), 202);
    }

    /// Between low_window and ai_cnt, min(cwnd, ai_cnt) = cwnd: Reno's one
    /// segment per window acknowledged (50 → 51 after 50 ACKs); below
    /// low_window the same by the legacy rule. An ACK of 3 segments counts 3
    /// (Linux's `acked`).
    #[test]
    fn below_ai_cnt_grows_as_reno() {
        let mut c = Scalable::new(Params::default());
        let mut s = st(50, 10);
        assert_eq!(feed(&mut c, &mut s, 49), 50);
        assert_eq!(feed(&mut c, &mut s, 1), 51);
        let mut s = st(10, 5);
        c.cong_avoid(&mut s, 3 * MSS);
        c.cong_avoid(&mut s, 3 * MSS);
        assert_eq!(s.cwnd / MSS, 10);
        c.cong_avoid(&mut s, 4 * MSS);
        assert_eq!((s.cwnd / MSS, s.cwnd_cnt), (11, 0));
        // a legacy window larger than ai_cnt keeps Reno's rate up to it
        let mut c = with(serde_json::json!({"ai_cnt": 20, "low_window": 50}));
        let mut s = st(40, 10);
        assert_eq!(feed(&mut c, &mut s, 39), 40);
        assert_eq!(feed(&mut c, &mut s, 1), 41);
        let mut s = st(60, 10);
        assert_eq!(feed(&mut c, &mut s, 20), 61, "above it, one per ai_cnt = 20");
    }

    /// W − ⌊W/8⌋: 100 → 88, 17 → 15, 1000 → 875; at the legacy window and
    /// below, Reno's halving (15 → 7.5 segments of flight); never below two
    /// segments. `md_scale = 1` halves; `low_window = 0` (Linux) reduces 15
    /// → 14 and 2 → 2.
    #[test]
    fn a_loss_takes_an_eighth_above_the_legacy_window() {
        let mut c = Scalable::new(Params::default());
        assert_eq!(c.ssthresh(&st(100, 200)), 88 * MSS);
        assert_eq!(c.ssthresh(&st(17, 200)), 15 * MSS);
        assert_eq!(c.ssthresh(&st(16, 200)), 14 * MSS);
        assert_eq!(c.ssthresh(&st(1000, 2000)), 875 * MSS);
        assert_eq!(c.ssthresh(&st(15, 200)), 7500);
        assert_eq!(c.ssthresh(&st(3, 200)), 2 * MSS);
        // the flight the sender's loss_window names, in whole segments
        let mut s = st(100, 200);
        s.flight = 80 * MSS + 999;
        assert_eq!(c.ssthresh(&s), 70 * MSS);
        assert_eq!(
            with(serde_json::json!({"md_scale": 1})).ssthresh(&st(100, 200)),
            50 * MSS
        );
        let mut linux = with(serde_json::json!({"low_window": 0}));
        assert_eq!(linux.ssthresh(&st(15, 200)), 14 * MSS);
        assert_eq!(linux.ssthresh(&st(2, 200)), 2 * MSS);
        assert_eq!(linux.ssthresh(&st(1, 200)), 2 * MSS);
        // an ECN echo reduces as a loss does (RFC 3168 §6.1.2)
        assert_eq!(c.ecn_echo(&st(100, 200)), Some(88 * MSS));
    }

    /// Linux's `tcp_slow_start`: cwnd 10, ssthresh 12, an ACK of 4 segments:
    /// cwnd 12, the other 2 counted towards congestion avoidance (w = 12).
    #[test]
    fn slow_start_adds_what_was_acknowledged_up_to_ssthresh() {
        let mut c = Scalable::new(Params::default());
        let mut s = st(10, 12);
        c.cong_avoid(&mut s, 4 * MSS);
        assert_eq!((s.cwnd, s.cwnd_cnt), (12 * MSS, 2 * MSS));
        let mut s = st(10, 100);
        c.cong_avoid(&mut s, 4 * MSS);
        assert_eq!((s.cwnd, s.cwnd_cnt), (14 * MSS, 0));
    }

    #[test]
    fn keys_have_defaults_and_bounds() {
        let j = serde_json::json!({});
        assert_eq!(
            Params::read(&mut Tab::new("cc".into(), &j).unwrap()).unwrap(),
            Params::default()
        );
        for (key, v) in [("ai_cnt", 0), ("md_scale", 0), ("md_scale", 17)] {
            let j = serde_json::json!({ key: v });
            let e = Params::read(&mut Tab::new("flows[0].cc".into(), &j).unwrap()).unwrap_err();
            assert_eq!(e.path, format!("flows[0].cc.{key}"));
        }
        let spec = Params::default();
        assert!(spec.needs().sack && spec.needs().reduces_cwnd);
        assert_eq!(spec.build().name(), "scalable");
    }
}
