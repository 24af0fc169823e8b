//! What the load-factor senders share: VCP's window laws and timers (Y. Xia,
//! L. Subramanian, I. Stoica, S. Kalyanaraman, "One more bit is enough", ACM
//! SIGCOMM 2005, the end-host laws and their scaling with the RTT; ns-2
//! `vcp/vcp-src.cc`),
//! which BMCC inherits (Qazi, Znati & Andrew, PFLDNeT 2009, §3.3). Used by
//! [`crate::cc::vcp`] and [`crate::cc::bmcc`]; model pages docs/models/vcp.md
//! and docs/models/bmcc.md ("Sender").
//!
//! * The window is a real number of packets ([`Window`]), as ns-2's `cwnd_`,
//!   written into the sender's byte cwnd as floor(w·MSS);
//! * MI per ACK: w += (1 + ξ)^{T/t} − 1 ([`mi_step`]), so that one window of
//!   ACKs multiplies w by (1 + ξ)^{T/t}: ξ per interval t whatever the RTT T
//!   (VCP `opencwnd`: the MI parameter scaled with the RTT);
//! * AI per ACK: w += α/w ([`ai_step`]): α per RTT;
//! * MD once, then the freeze ([`after_md`], VCP's `md_wait_timer_`);
//! * at most [`MAX_ACKED_PER_ACK`] packets counted per ACK ([`acked_packets`]).

use super::{AckSample, CcState};
use crate::units::Time;

/// The most packets one ACK's increase counts (RFC 3465's L = 2 for slow
/// start): an ACK that covers a repaired hole acknowledges data sent long ago,
/// and counting all of it would multiply the window by what it covers. (VCP's
/// code adds one increment per ACK; its sink acknowledges every packet, so one
/// packet per ACK is what it counts.)
pub const MAX_ACKED_PER_ACK: f64 = 2.0;

/// The packets an ACK newly acknowledges, for the increase laws (at most
/// [`MAX_ACKED_PER_ACK`]).
pub fn acked_packets(a: &AckSample, mss: u64) -> f64 {
    (a.acked as f64 / mss as f64).min(MAX_ACKED_PER_ACK)
}

/// MI: what one ACK adds so that a window of ACKs multiplies the window by
/// (1 + ξ)^ratio, ratio = T/t (VCP `opencwnd`: `pow(1.0 + xi_, rtt_by_trho_) - 1.0`).
pub fn mi_step(xi: f64, ratio: f64) -> f64 {
    (1.0 + xi).powf(ratio) - 1.0
}

/// AI: what an ACK counting `k` packets adds so that a window of ACKs adds α
/// packets.
pub fn ai_step(k: f64, alpha: f64, w: f64) -> f64 {
    k * alpha / w.max(1.0)
}

/// A window kept as a real number of packets and written into the sender's
/// byte cwnd (floor(w·MSS), at least one MSS), so increments smaller than a
/// byte per ACK are not lost; where the sender set cwnd itself (a loss
/// response, a timeout) w follows it.
#[derive(Clone, Debug)]
pub struct Window {
    /// The window in packets.
    pub w: f64,
    /// The cwnd (bytes) last written, to notice the sender's own changes.
    written: u64,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            w: 0.0,
            written: u64::MAX,
        }
    }
}

impl Window {
    /// Follows the sender's cwnd where the sender set it.
    pub fn sync(&mut self, s: &CcState) {
        if s.cwnd != self.written {
            self.w = s.cwnd as f64 / s.mss as f64;
        }
    }
    /// Writes w (at least one packet) into the sender's cwnd.
    pub fn write(&mut self, s: &mut CcState) {
        self.w = self.w.max(1.0);
        s.cwnd = ((self.w * s.mss as f64) as u64).max(s.mss);
        self.written = s.cwnd;
    }
    /// The sender's cwnd is `cwnd` now and w stays as it is (a module that
    /// set cwnd another way).
    pub fn written(&mut self, cwnd: u64) {
        self.written = cwnd;
    }
}

/// When MD may happen again after an MD.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MdRule {
    /// VCP's `md_wait_timer_`: MD, then overload ignored for one t (the
    /// freeze), then treated as AI for one RTT, then MD again.
    Vcp,
    /// MD at most once per RTT, overload ignored in between.
    OncePerRtt,
}

/// What an overload signal does under the MD rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Overload {
    Md,
    Freeze,
    Ai,
}

/// An overload signal at `now`, the last MD (or reduction) at `last`:
/// `freeze` is VCP's first timer (t_ρ), `rtt` its second (one RTT).
pub fn after_md(last: Option<Time>, now: Time, rule: MdRule, freeze: Time, rtt: Time) -> Overload {
    let Some(t) = last else { return Overload::Md };
    match rule {
        MdRule::Vcp if now < t + freeze => Overload::Freeze,
        MdRule::Vcp if now < t + freeze + rtt => Overload::Ai,
        MdRule::OncePerRtt if now < t + rtt => Overload::Freeze,
        _ => Overload::Md,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// VCP's timers after an MD at 1 s with t_ρ = 200 ms and an RTT of 60 ms:
    /// frozen in [1, 1.2) s, AI in [1.2, 1.26) s, MD again from 1.26 s.
    #[test]
    fn md_then_freeze_then_ai_for_one_rtt() {
        let at = |now| after_md(Some(ms(1000)), ms(now), MdRule::Vcp, ms(200), ms(60));
        assert_eq!(after_md(None, ms(5), MdRule::Vcp, ms(200), ms(60)), Overload::Md);
        assert_eq!(at(1000), Overload::Freeze);
        assert_eq!(at(1199), Overload::Freeze);
        assert_eq!(at(1200), Overload::Ai);
        assert_eq!(at(1259), Overload::Ai);
        assert_eq!(at(1260), Overload::Md);
        let once = |now| after_md(Some(ms(1000)), ms(now), MdRule::OncePerRtt, ms(200), ms(60));
        assert_eq!((once(1059), once(1060)), (Overload::Freeze, Overload::Md));
    }

    /// (1.0625)^{0.3} − 1 = 0.0183538 per ACK.
    #[test]
    fn mi_and_ai_steps() {
        assert!((mi_step(0.0625, 0.3) - 0.018_353_8).abs() < 1e-7);
        assert!((mi_step(0.0625, 1.0) - 0.0625).abs() < 1e-15);
        assert_eq!(ai_step(1.0, 0.36, 90.0), 0.004);
        assert_eq!(ai_step(2.0, 0.36, 90.0), 0.008);
        assert_eq!(ai_step(1.0, 0.36, 0.5), 0.36, "w counted as at least one packet");
    }
}
