//! HyStart++ (RFC 9406, "HyStart++: Modified Slow Start for TCP"): slow
//! start that watches the RTT of each round and, when it grows by more than
//! a threshold, continues in Conservative Slow Start (CSS, a quarter of slow
//! start's growth) for a few rounds before congestion avoidance. A helper any
//! module can hold: it counts rounds from the ACKs it is shown
//! ([`RoundCounter`]) and says by how much slow start grows ([`HyStart::divisor`])
//! and when slow start is over ([`HyStart::take_exit`]).
//!
//! * Rounds (§4.2): a round ends when the cumulative ACK passes `windowEnd`,
//!   the highest sequence sent when the round began (SND.NXT). The algorithm
//!   has no sequence numbers here: it counts the bytes acknowledged, and a
//!   round ends once those reach the count at its start plus the bytes then
//!   in flight (SND.NXT − SND.UNA), which is the same boundary.
//! * RTT samples (§4.2): the minimum of the round's RTT samples; the test
//!   runs once `N_RTT_SAMPLE` = 8 samples were taken in the round, with
//!   `RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)`: if
//!   `currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh`, CSS begins with
//!   `cssBaselineMinRtt = currentRoundMinRTT`.
//! * CSS (§4.2): growth divided by `CSS_GROWTH_DIVISOR` = 4; if a round's
//!   minimum (after 8 samples) falls below the baseline, the increase was
//!   spurious and slow start resumes; after `CSS_ROUNDS` = 5 rounds of CSS,
//!   ssthresh = cwnd and congestion avoidance begins.
//! * A loss or ECN echo in slow start or CSS ends HyStart++ (§4.2: the
//!   sender reacts as its congestion control says and enters congestion
//!   avoidance); [`HyStart::stop`].
//!
//! Choices: HyStart++ runs in the initial slow start only (§4.3 leaves its
//! use after a timeout to the implementation; Linux's HyStart also runs only
//! while ssthresh is infinite at first). Slow start's own growth is the
//! sender's (RFC 3465 L = 1 segment per ACK, not §4.2's L = 8 for unpaced
//! senders). RTT samples are those the sender takes: with the default timed
//! segment (one sample per RTT) the 8-sample test never runs, so modules
//! using HyStart++ ask for timestamp RTT samples (`Needs::timestamps`).

use crate::units::Time;

/// N_RTT_SAMPLE: RTT samples per round before the delay test.
pub const N_RTT_SAMPLE: u32 = 8;
/// MIN_RTT_THRESH and MAX_RTT_THRESH.
pub const MIN_RTT_THRESH: Time = Time::from_millis(4);
pub const MAX_RTT_THRESH: Time = Time::from_millis(16);
/// MIN_RTT_DIVISOR.
pub const MIN_RTT_DIVISOR: u64 = 8;
/// CSS_GROWTH_DIVISOR.
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// CSS_ROUNDS.
pub const CSS_ROUNDS: u32 = 5;

/// Round boundaries from the bytes acknowledged: a round ends when the bytes
/// acknowledged since it began reach what was in flight when it began
/// (SND.NXT at its start), as Linux's `tcp_cong_control` rounds and RFC
/// 9406's `windowEnd`.
#[derive(Clone, Debug, Default)]
pub struct RoundCounter {
    delivered: u64,
    end: Option<u64>,
}

impl RoundCounter {
    /// Counts an ACK of `acked` new bytes with `flight` bytes outstanding
    /// after it; true when it ends a round (a new one then begins, also on
    /// the first ACK).
    pub fn on_ack(&mut self, acked: u64, flight: u64) -> bool {
        self.delivered += acked;
        match self.end {
            Some(e) if self.delivered < e => false,
            _ => {
                self.end = Some(self.delivered + flight.max(1));
                true
            }
        }
    }
    /// Starts a new round at the next ACK.
    pub fn restart(&mut self) {
        self.end = None;
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start, watching the RTT.
    SlowStart,
    /// Conservative slow start, in its `rounds`-th round (from 1).
    Css { rounds: u32, baseline: Time },
    /// HyStart++ is over (CSS ended, a loss, or not the initial slow start).
    Done,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    pub phase: Phase,
    rounds: RoundCounter,
    last_round_min: Option<Time>,
    round_min: Option<Time>,
    samples: u32,
    exit: bool,
    /// Times CSS was entered, and left for slow start again.
    pub css_entries: u32,
    pub css_spurious: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart::new()
    }
}

impl HyStart {
    pub fn new() -> HyStart {
        HyStart {
            phase: Phase::SlowStart,
            rounds: RoundCounter::default(),
            last_round_min: None,
            round_min: None,
            samples: 0,
            exit: false,
            css_entries: 0,
            css_spurious: 0,
        }
    }

    /// RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms).
    pub fn rtt_thresh(last_round_min: Time) -> Time {
        Time(last_round_min.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
    }

    /// An ACK of `acked` new bytes in slow start (cwnd < ssthresh), with its
    /// RTT sample and the bytes in flight after it.
    pub fn on_ack(&mut self, acked: u64, rtt: Option<Time>, flight: u64) {
        if self.phase == Phase::Done || acked == 0 {
            return;
        }
        if self.rounds.on_ack(acked, flight) {
            // A round ended (§4.2: "At the start of each round").
            if let Phase::Css { rounds, baseline } = self.phase {
                if rounds >= CSS_ROUNDS {
                    // "If CSS_ROUNDS rounds are complete, enter congestion
                    // avoidance by setting the ssthresh to the current cwnd."
                    self.phase = Phase::Done;
                    self.exit = true;
                    return;
                }
                self.phase = Phase::Css {
                    rounds: rounds + 1,
                    baseline,
                };
            }
            self.last_round_min = self.round_min;
            self.round_min = None;
            self.samples = 0;
        }
        let Some(r) = rtt else { return };
        self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
        self.samples += 1;
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        let (Some(cur), Some(last)) = (self.round_min, self.last_round_min) else {
            return;
        };
        match self.phase {
            Phase::SlowStart => {
                if cur >= last + Self::rtt_thresh(last) {
                    self.phase = Phase::Css {
                        rounds: 1,
                        baseline: cur,
                    };
                    self.css_entries += 1;
                }
            }
            Phase::Css { baseline, .. } => {
                // "If currentRoundMinRTT < cssBaselineMinRtt, [...] the
                // sender SHOULD return to slow start."
                if cur < baseline {
                    self.phase = Phase::SlowStart;
                    self.css_spurious += 1;
                }
            }
            Phase::Done => {}
        }
    }

    /// What slow start's increase is divided by: 1, or 4 in CSS.
    pub fn divisor(&self) -> u64 {
        match self.phase {
            Phase::Css { .. } => CSS_GROWTH_DIVISOR,
            _ => 1,
        }
    }

    /// True once, when CSS has run its rounds: the caller sets ssthresh = cwnd.
    pub fn take_exit(&mut self) -> bool {
        std::mem::take(&mut self.exit)
    }

    /// A loss or ECN echo, or any slow start after the first: HyStart++ ends.
    pub fn stop(&mut self) {
        self.phase = Phase::Done;
        self.exit = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// Feeds one round of `n` ACKs of one segment each, all with RTT `rtt`,
    /// `n` segments in flight: the first ACK of the next call ends the round.
    fn round(h: &mut HyStart, n: u64, rtt: Time) {
        for _ in 0..n {
            h.on_ack(MSS, Some(rtt), n * MSS);
        }
    }

    #[test]
    fn rtt_thresh_is_an_eighth_clamped_to_4_16_ms() {
        assert_eq!(HyStart::rtt_thresh(ms(20)), ms(4));
        assert_eq!(HyStart::rtt_thresh(ms(80)), ms(10));
        assert_eq!(HyStart::rtt_thresh(ms(200)), ms(16));
    }

    #[test]
    fn rounds_end_when_the_flight_at_their_start_is_acknowledged() {
        let mut r = RoundCounter::default();
        assert!(r.on_ack(MSS, 4 * MSS), "the first ACK starts a round");
        // 4 segments were in flight: the round ends with the 4th ACK after it
        assert!(!r.on_ack(MSS, 5 * MSS));
        assert!(!r.on_ack(MSS, 6 * MSS));
        assert!(!r.on_ack(MSS, 7 * MSS));
        assert!(r.on_ack(MSS, 8 * MSS));
    }

    /// RFC 9406 §4.2 replayed: rounds at 100 ms, then a round whose minimum
    /// is 100 + 12.5 = 112.5 ms ≥ 100 + RttThresh (12.5 ms): CSS; five CSS
    /// rounds, then the exit that sets ssthresh = cwnd.
    #[test]
    fn rfc9406_delay_increase_enters_css_and_five_rounds_end_it() {
        let mut h = HyStart::new();
        // The first round has no lastRoundMinRTT: no test.
        round(&mut h, 16, ms(100));
        assert_eq!(h.phase, Phase::SlowStart);
        round(&mut h, 16, ms(105));
        assert_eq!(h.phase, Phase::SlowStart, "5 ms < RttThresh of 12.5 ms");
        // lastRoundMinRTT is now 105 ms: threshold 13.125 ms; 7 samples are not enough
        for i in 0..7 {
            h.on_ack(MSS, Some(ms(120)), (17 + i) * MSS);
        }
        assert_eq!(h.phase, Phase::SlowStart);
        h.on_ack(MSS, Some(ms(120)), 24 * MSS);
        assert_eq!(
            h.phase,
            Phase::Css {
                rounds: 1,
                baseline: ms(120)
            }
        );
        assert_eq!(h.divisor(), 4);
        // finish this round, then CSS rounds 2..5 at the same delay
        let mut exits = 0;
        for _ in 0..200 {
            h.on_ack(MSS, Some(ms(120)), 16 * MSS);
            if h.take_exit() {
                exits += 1;
            }
        }
        assert_eq!(exits, 1);
        assert_eq!(h.phase, Phase::Done);
        assert_eq!(h.divisor(), 1);
    }

    #[test]
    fn rfc9406_css_returns_to_slow_start_below_the_baseline() {
        let mut h = HyStart::new();
        round(&mut h, 16, ms(40));
        round(&mut h, 16, ms(50)); // 50 ≥ 40 + 5: CSS, baseline 50
        assert!(matches!(h.phase, Phase::Css { rounds: 1, .. }), "{:?}", h.phase);
        round(&mut h, 16, ms(45)); // next round's minimum below the baseline
        assert_eq!(h.phase, Phase::SlowStart);
        assert_eq!((h.css_entries, h.css_spurious), (1, 1));
    }

    #[test]
    fn a_loss_stops_it() {
        let mut h = HyStart::new();
        h.stop();
        round(&mut h, 16, ms(10));
        round(&mut h, 16, ms(100));
        assert_eq!(h.phase, Phase::Done);
        assert!(!h.take_exit());
    }
}
