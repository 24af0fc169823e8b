//! The TCP sender machine (byte sequence numbers, one MSS per flow).
//!
//! Implements, with RFC clauses next to the code:
//! * slow start / congestion avoidance through the [`CongestionOps`] plug-in
//!   (RFC 5681 §3.1);
//! * loss recovery as one explicit state machine, [`LossState`] (Linux
//!   `tcp_ca_state` names), driven by three recovery mechanics chosen by the
//!   congestion-control module ([`Recovery`]): Tahoe (go-back-N from one
//!   segment), Reno fast recovery (RFC 5681 §3.2) and NewReno partial ACKs
//!   (RFC 6582 §3.2, "careful" entry, Impatient or Slow-but-Steady timer);
//! * RFC 3042 limited transmit (option);
//! * the retransmission timer of RFC 6298 §5 with Karn's rule (RFC 6298 §3:
//!   one timed segment at a time, no sample if that segment is retransmitted;
//!   timing also restarts when fast retransmit or a timeout begins a
//!   recovery, as ns-2's `reset_rtx_timer` and BSD do);
//! * ECN reaction of RFC 3168 §6.1.2 (at most once per window, CWR on the next
//!   new segment, retransmissions sent Not-ECT as §6.1.5 says, or ECT(0) as
//!   ns-2 sends them: `ect_retransmissions`);
//! * the receiver's advertised window (every ACK's window field is honoured; a
//!   shrinking window only stops new transmissions) and a persist probe when
//!   the window is closed with nothing outstanding;
//! * ns-2's `overhead_` (option `send_jitter`): a random delay before each
//!   window-driven burst, which breaks the phase effects of a deterministic
//!   simulation with drop-tail queues (Floyd & Jacobson 1992, "On traffic
//!   phase effects in packet-switched gateways");
//! * finite or infinite data, completion time.
//!
//! ```text
//!          dupthresh-th dupack            full ACK (ack ≥ recover; Reno: any new ACK)
//!   Open ───────────────────► FastRecovery ─────────────────────────────────► Open
//!    │ ▲    (Reno, NewReno)        │
//!    │ │                           │ RTO (ssthresh held: this window's
//!    │ │ ack ≥ recover             ▼  reduction was already made)
//!    │ └──────────────────────── Loss ◄─┐ RTO again (held while no ACK
//!    └── RTO, Tahoe dupthresh ────►  └──┘  progress, RFC 5681 §3.1)
//! ```
//!
//! **Timeouts during recovery.** RFC 5681 eq. 4 sets ssthresh from FlightSize at
//! every loss indication, but a FlightSize taken during fast recovery is
//! inflated by the recovery itself (new data clocked out by duplicate ACKs),
//! and halving it can leave ssthresh above what the path holds: the next slow
//! start overshoots, loses a large part of a window, NewReno repairs one loss
//! per RTT, the repair ends in another timeout, and the cycle repeats. The
//! sender therefore reduces ssthresh on a timeout only if no reduction has
//! been made for this window yet, as Linux `tcp_enter_loss` does: not during
//! an unfinished fast recovery (the recovery's ssthresh is kept), and not on a
//! repeated timeout of the same data without ACK progress (RFC 5681 §3.1:
//! "the value of ssthresh is held constant"). After a timeout the segments
//! above the go-back-N point are treated as lost, not in flight (RFC 6675
//! §5.1; Linux `tcp_timeout_mark_lost`), so FlightSize is `snd_nxt − snd_una`.
//! A timeout records `recover = snd_max` and blocks fast retransmit until the
//! cumulative ACK passes it (RFC 6582 §4 "bugfix"; ns-2 `bugFix_`, for all
//! three variants).
//!
//! Deviations: no SYN/FIN exchange (as ns-2 one-way TCP); a segment is sent only
//! if it fits entirely in the window (packet-mode behaviour); cwnd is not
//! capped by the receiver's window (as ns-2; FlightSize, and so every
//! ssthresh computed from it, is bounded by the window actually used).
//!
//! Files, by concern: this one holds the parameters, the loss-recovery states
//! ([`LossState`]), the sender's state and the algorithm's view of it
//! (`CcState`); `send.rs` the transmissions (segments, ECN codepoints, Karn's
//! rule, `send_jitter` bursts) and the retransmission and persist timers;
//! `ack.rs` the processing of an ACK (RTT samples, the cumulative ACK and what
//! it does in each state, window growth); `recovery.rs` the loss-recovery
//! state machine (duplicate ACKs, limited transmit, fast retransmit, NewReno
//! partial ACKs, SACK recovery, the window reductions for loss and ECN, the
//! timeout response); `tests.rs` the unit tests.

use super::rtt::{RttEstimator, RttParams};
use super::scoreboard::Scoreboard;
use super::INFINITE;
use crate::cc::{CaEvent, CcState, CongestionOps, RateEstimator, Recovery};
use crate::packet::{Ecn, FlowId, NodeId};
use crate::rng::Rng;
use crate::units::Time;

mod ack;
mod recovery;
mod send;
#[cfg(test)]
mod tests;

#[derive(Clone, Debug)]
pub struct SendParams {
    /// Maximum segment size (payload bytes).
    pub mss: u32,
    /// Header bytes added on the wire to each segment (IP + TCP).
    pub header: u32,
    /// Initial window in segments (RFC 5681 §3.1).
    pub init_cwnd: u32,
    /// Initial slow-start threshold in bytes ([`INFINITE`] for "arbitrarily high").
    pub init_ssthresh: u64,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupthresh: u32,
    pub rtt: RttParams,
    /// RTT samples from the timestamp echo of every ACK that acknowledges new
    /// data (RFC 7323 §4.1, "RTTM"; the Vegas-like timestamps of the BLT
    /// paper's TCP) instead of one timed segment per RTT with Karn's rule.
    pub rtt_timestamps: bool,
    /// Bytes to send ([`INFINITE`] for a bulk source).
    pub size: u64,
    /// Negotiate ECN (RFC 3168): data sent ECT(0), reacts to ECE.
    pub ecn: bool,
    /// Retransmitted segments are ECT(0) too (ns-2's one-way TCP, whose
    /// `output` sets ECT on every segment; BMCC, whose ECN bits carry the
    /// load). Off: RFC 3168 §6.1.5, retransmissions are Not-ECT.
    pub ect_retransmissions: bool,
    /// The codepoint of ECN-capable segments: ECT(0), or ECT(1) for a module
    /// that asks for it ([`crate::cc::Needs::ect1`]: VCP's low-load code `01`).
    pub ect: Ecn,
    /// The window on leaving fast recovery (NewReno's full ACK, Reno's first
    /// new ACK).
    pub full_ack: FullAck,
    /// NewReno: restart the retransmission timer on every partial ACK
    /// ("Slow-but-Steady", RFC 6582 §4; ns-2 `newreno_changes1_ 0`) instead of
    /// on the first one only ("Impatient", RFC 6582 §3.2 step 4; ns-2.35's
    /// default `newreno_changes1_ 1`).
    pub partial_timer_every: bool,
    /// Congestion avoidance credits the bytes an ACK acknowledges (RFC 3465
    /// byte counting: +1 segment per RTT with or without delayed ACKs); off,
    /// each ACK credits at most one segment (RFC 5681 eq. 3, ns-2's
    /// `cwnd_ += 1/cwnd_` per ACK: +½ segment per RTT with delayed ACKs).
    /// Slow start credits at most one segment per ACK either way (RFC 3465 L = 1).
    pub byte_counting: bool,
    /// SACK-based loss recovery (RFC 6675) instead of the module's dupack
    /// mechanics; set only when both ends are willing (the receiver sends
    /// SACK blocks, RFC 2018).
    pub sack: bool,
    /// RFC 3042 limited transmit: one new segment on each of the first
    /// `dupthresh − 1` duplicate ACKs (ns-2.35 `singledup_ 1`, its default).
    pub limited_transmit: bool,
    /// What a retransmission timeout reduces ssthresh from (see the module docs).
    pub rto_ssthresh: RtoSsthresh,
    /// The window fast retransmit and ECN halve.
    pub loss_window: LossWindow,
    /// ns-2 `overhead_`: before each window-driven burst the sender waits a
    /// uniform random time in [0, send_jitter) (zero = off). Retransmissions on
    /// duplicate and partial ACKs are not delayed (as ns-2). Not applied
    /// while the sender is paced.
    pub send_jitter: Time,
    /// Pace a module that sets no pacing rate itself at cwnd/srtt × 200 % in
    /// slow start (cwnd < ssthresh/2), × 120 % after (Linux
    /// `tcp_update_pacing_rate`, `sysctl_tcp_pacing_ss_ratio` /
    /// `_ca_ratio`). Modules that pace (BBR) always do.
    pub pacing: bool,
    /// Hold the window for the round trip after an ECN reduction: no growth
    /// until the cumulative ACK passes what was sent when the echo arrived
    /// (Linux's and ns-3's CWR state: `tcp_cong_control` calls no
    /// `cong_avoid` while `tcp_in_cwnd_reduction`). Off: RFC 3168 §6.1.2
    /// only forbids growth on the ECN-Echo ACKs themselves (ns-2 too).
    pub cwr_hold: bool,
    /// Proportional Rate Reduction (RFC 9937, which obsoletes RFC 6937: the
    /// conservative reduction bound, and the slow-start bound on a safe ACK
    /// only, as Linux `tcp_cwnd_reduction`): in a SACK recovery and in
    /// the round trip after an ECN reduction, cwnd is set on every ACK to
    /// pipe + what the reduction lets out, so the window falls to ssthresh
    /// over the round trip instead of at once. Without SACK, NewReno's fast
    /// recovery is unchanged; a module that sets the window itself (BBR)
    /// keeps it.
    pub prr: bool,
    /// When PRR's bound lets one segment more out (below ssthresh).
    pub prr_bound: PrrBound,
    /// A fast retransmit restarts the retransmission timer, giving the
    /// recovery a full RTO (ns-2 `reset_rtx_timer` in `dupack_action`; Linux
    /// re-arms it when it retransmits the head). Off, as ns-3's
    /// `TcpSocketBase` (RFC 6298 (5.1) starts the timer only if it is not
    /// running): the timer runs on from the last new ACK, and where the RTO is
    /// close to the RTT (one flow over a standing queue) it expires just
    /// before the retransmission's ACK returns.
    pub rearm_rto: bool,
    /// With a sample from every ACK (`rtt_timestamps`), RFC 7323 Appendix G's
    /// gains: RFC 6298's divided by ⌈FlightSize / (2·SMSS)⌉.
    pub rtt_scaled_gains: bool,
    /// Open the connection with a SYN and its SYN-ACK before any data (RFC
    /// 9293 §3.5's three-way handshake, the third segment riding on the first
    /// data segment as ns-3 and Linux send it): data starts a round trip after
    /// the flow's start, the SYN's round trip is the first RTT sample (RFC 6298
    /// §2, so SRTT and the minimum RTT a module such as BBR starts from; Linux
    /// `bbr_init` takes `tcp_min_rtt`, ns-3's `TcpBbr` the SRTT at the first
    /// `CA_OPEN`), a lost SYN is sent again after the RTO with backoff, and
    /// then data starts with a 3-s RTO (RFC 6298 §5.7) and a one-segment
    /// window (RFC 5681 §3.1). Off (ns-2's one-way agents with `syn_ false`):
    /// data leaves at the start time and the first data segment gives the first
    /// sample.
    pub handshake: bool,
    /// What cwnd limits outside a loss recovery, with SACK.
    pub send_limit: SendLimit,
    /// ACKs report the receiver's hold of the acknowledged segment in their
    /// timestamp value (echo + hold; [`crate::cc::Needs::ack_hold`]).
    pub ack_hold: bool,
}

impl Default for SendParams {
    fn default() -> Self {
        SendParams {
            mss: 1460,
            header: 40,
            init_cwnd: 2,
            init_ssthresh: INFINITE,
            dupthresh: 3,
            rtt: RttParams::default(),
            rtt_timestamps: false,
            size: INFINITE,
            ecn: false,
            ect_retransmissions: false,
            ect: Ecn::Ect0,
            full_ack: FullAck::Ssthresh,
            partial_timer_every: false,
            byte_counting: true,
            sack: false,
            limited_transmit: false,
            rto_ssthresh: RtoSsthresh::Window,
            loss_window: LossWindow::Flight,
            send_jitter: Time::ZERO,
            pacing: false,
            cwr_hold: false,
            prr: false,
            prr_bound: PrrBound::SafeAck,
            rearm_rto: true,
            rtt_scaled_gains: false,
            handshake: false,
            send_limit: SendLimit::Flight,
            ack_hold: false,
        }
    }
}

/// When PRR, with pipe at or below ssthresh, adds one segment to what the
/// ACK lets out (`prr_bound`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrrBound {
    /// On a safe ACK: it advances snd.una and marks nothing newly lost (RFC
    /// 9937; Linux `tcp_cwnd_reduction`).
    SafeAck,
    /// When the ACK acknowledges retransmitted data cumulatively (ns-3.44
    /// `TcpPrrRecovery`, `m_isRetransDataAcked`; Linux's rule from 2015 until
    /// its safe-ACK rule).
    Retransmitted,
    /// On every ACK (RFC 6937's slow-start reduction bound, PRR-SSRB).
    SlowStart,
}

/// How a retransmission timeout sets ssthresh.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RtoSsthresh {
    /// Reduce once per window of data, from FlightSize (Linux
    /// `tcp_enter_loss`; RFC 5681 §3.1): not during an unfinished fast
    /// recovery, not on a repeated timeout without ACK progress.
    OncePerWindow,
    /// At every timeout, from the window in use, min(cwnd, rwnd) with cwnd
    /// not inflated by fast recovery (ns-2.35 `TcpAgent::timeout` →
    /// `slowdown(CLOSE_SSTHRESH_HALF)`, which halves `window()`).
    Window,
    /// At every timeout but one during a timeout's recovery, from the loss
    /// window a fast retransmit would use (`loss_window`): ns-3.44
    /// `TcpSocketBase::ReTxTimeout` calls `GetSsThresh(tcb,
    /// inFlightBeforeRto)` unless it is in `CA_LOSS` with the head already
    /// retransmitted (after a timeout every segment below the go-back-N
    /// point is). It also reduces again during a fast recovery.
    ExceptInLoss,
}

/// The congestion window on leaving fast recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FullAck {
    /// ssthresh (RFC 6582 §3.2 step 3 option 2; RFC 5681 §3.2 step 6).
    Ssthresh,
    /// min(ssthresh, max(FlightSize, SMSS) + SMSS) (RFC 6582 §3.2 step 3
    /// option 1, against a burst after recovery).
    Flight,
    /// The window the loss response and any partial ACKs left, fraction of a
    /// segment included: ns-2.35 (`dupwnd_ = 0` on the ACK that ends recovery,
    /// `cwnd_` untouched; NewReno's `exit_recovery_fix_ 0`). With
    /// `loss_window = "cwnd"` that window is the halved cwnd, up to one segment
    /// above the whole-segment ssthresh: one RTT of growth per loss.
    Keep,
}

/// What cwnd is compared with when new data is sent outside a loss recovery,
/// with SACK in use. In a recovery, and after a timeout, RFC 6675's pipe
/// always limits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SendLimit {
    /// FlightSize, snd.nxt − snd.una (RFC 5681 §3.1; ns-2): SACKed data above
    /// a hole counts as in flight until the cumulative ACK covers it.
    Flight,
    /// RFC 6675's pipe (SACKed and lost bytes out, retransmissions in), as
    /// Linux's `tcp_packets_in_flight` and ns-3's `BytesInFlight` everywhere:
    /// each SACKed segment frees room for a new one before a recovery begins
    /// (limited transmit without its two-segment bound), and when a recovery
    /// ends with SACKed data above the cumulative ACK, cwnd − pipe can go out
    /// at once.
    Pipe,
}

/// The window a loss indication by duplicate ACKs or ECN halves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossWindow {
    /// FlightSize (RFC 5681 eq. 4); limited-transmit data excluded (§3.2).
    Flight,
    /// The congestion window, min(cwnd, rwnd): ns-2's `window()` halved by
    /// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`, as Linux
    /// `tcp_reno_ssthresh` (cwnd / 2). ns-2 counts windows in packets with a
    /// fraction: ssthresh becomes whole segments, cwnd keeps the fraction
    /// (at timeouts too).
    Cwnd,
    /// RFC 6675's pipe when the reduction is made: FlightSize less the bytes
    /// SACKed and those deemed lost (IsLost), or without SACK less one segment
    /// per duplicate ACK. ns-3's convention (`TcpSocketBase` passes
    /// `BytesInFlight()` to `GetSsThresh`), a segment per SACKed or lost
    /// segment below FlightSize: about four segments lower at a fast
    /// retransmit, which matters at the small windows AQMs leave.
    Pipe,
}

/// RFC 6937 §3: the state of one Proportional Rate Reduction.
#[derive(Copy, Clone, Debug)]
struct Prr {
    /// RecoverFS: FlightSize when the reduction began.
    recover_fs: u64,
    /// prr_delivered: bytes delivered to the receiver since then.
    delivered: u64,
    /// prr_out: bytes sent since then.
    out: u64,
}

/// Counters for the flow table.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Data segments and payload bytes put on the wire, retransmissions included.
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
}

/// The loss-recovery state (Linux `tcp_ca_state`: Open, Recovery, Loss).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossState {
    /// No loss episode under way; duplicate ACKs are counted.
    Open,
    /// Fast recovery (RFC 5681 §3.2; RFC 6582 §3.2 for NewReno) until the
    /// cumulative ACK reaches `recover`. `inflation`: bytes duplicate ACKs
    /// added to the window (the window in use is cwnd + inflation);
    /// `partial_seen`: a partial ACK has arrived (Impatient timer).
    FastRecovery { inflation: u64, partial_seen: bool },
    /// SACK-based loss recovery (RFC 6675 §5) until the cumulative ACK reaches
    /// `recover` (RecoveryPoint): cwnd = ssthresh, and segments go out while
    /// cwnd − pipe ≥ 1 SMSS, chosen by the scoreboard's NextSeg().
    SackRecovery,
    /// After a retransmission timeout, or Tahoe's fast retransmit: go-back-N
    /// slow start from `snd_una` until the cumulative ACK reaches `recover`
    /// (with SACK: every un-SACKed byte below `recover` is retransmitted,
    /// SACKed ones are not, RFC 6675 §5.1).
    /// `rto_streak`: timeouts since the last ACK that advanced `snd_una`.
    Loss { rto_streak: u32 },
}

pub struct TcpSender {
    p: SendParams,
    cc: Box<dyn CongestionOps>,
    recovery: Recovery,
    /// The algorithm's `per_ack_hooks()`: whether `observe` calls it.
    per_ack_hooks: bool,
    /// The algorithm's `grow_on_ece()`: whether an ECN-Echo ACK may grow cwnd.
    grow_on_ece: bool,
    /// The algorithm's `loss_after_ecn_reduces()`.
    loss_after_ecn: bool,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Congestion window in bytes, without fast-recovery inflation.
    cwnd: u64,
    ssthresh: u64,
    cwnd_cnt: u64,
    rwnd: u64,
    dupacks: u32,
    /// Bytes sent by limited transmit since the last new ACK.
    limited_bytes: u64,
    /// The SACK scoreboard, when SACK is in use.
    board: Option<Scoreboard>,
    state: LossState,
    /// RFC 6582 `recover`: highest sequence sent at the last loss indication.
    recover: Option<u64>,
    rtt: RttEstimator,
    /// The timed segment: its first and past-the-end sequence numbers, send time.
    timed: Option<(u64, u64, Time)>,
    rto_at: Option<Time>,
    /// Time of a pending jittered burst (`send_jitter`), or of the next paced
    /// departure: the sender's one sending timer.
    send_at: Option<Time>,
    /// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation),
    /// kept only for a module that reads it ([`CongestionOps::rate_samples`]).
    rate: Option<Box<RateEstimator>>,
    /// Pacing rate in payload bytes/s (0: unpaced); `next_send`: earliest
    /// time of the next paced departure (Linux `tcp_wstamp_ns`).
    pacing_rate: u64,
    next_send: Time,
    /// The number this flow's data segments carry (`CcState::stamp`, set by
    /// the module), and the one the last ACK echoed (`AckSample::stamp`).
    stamp: f32,
    echoed: f32,
    /// The module sets its own pacing rate ([`CongestionOps::paces`]).
    cc_paces: bool,
    /// The module sets the window on every ACK, so PRR stays out
    /// ([`CongestionOps::controls_window`]).
    cc_window: bool,
    /// The module counts the bytes each ACK acknowledges itself
    /// ([`CongestionOps::counts_acked`]).
    cc_counts: bool,
    jitter_rng: Rng,
    ecn_recover: Option<u64>,
    /// Highest sequence sent when an ECN echo last reduced the window, until a
    /// loss response: a loss within that window is not answered again.
    ecn_reduced: Option<u64>,
    cwr_pending: bool,
    /// The receiver's hold reported by the last ACK (`ack_hold`).
    hold: Time,
    /// With `cwr_hold`: the window is held until the cumulative ACK passes this.
    cwr_until: Option<u64>,
    /// The reduction in progress with `prr`.
    prr: Option<Prr>,
    started: bool,
    /// The handshake is over (from the start without `handshake`).
    established: bool,
    /// When the SYN went out, for its RTT sample; `None` once it has been
    /// sent again (Karn, RFC 6298 §3).
    syn_sent: Option<Time>,
    completed: Option<Time>,
    pub stats: SenderStats,
}

impl TcpSender {
    /// A sender; `rng` draws the `send_jitter` delays (one stream per flow).
    pub fn new(
        p: SendParams,
        cc: Box<dyn CongestionOps>,
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        mut rng: Rng,
    ) -> Self {
        let recovery = cc.recovery();
        let per_ack_hooks = cc.per_ack_hooks();
        let grow_on_ece = cc.grow_on_ece();
        let loss_after_ecn = cc.loss_after_ecn_reduces();
        let cc_paces = cc.paces();
        let cc_window = cc.controls_window();
        let cc_counts = cc.counts_acked();
        let rate = cc.rate_samples().then(|| Box::new(RateEstimator::new(p.mss as u64)));
        let mss = p.mss as u64;
        let established = !p.handshake;
        let board = p.sack.then(Scoreboard::new);
        // The clock phase of a tick-based estimator (ns-2 `boot_time_`).
        let phase = rng.uniform();
        // The algorithm's seed: a draw of a copy of the stream, so the
        // stream itself (the `send_jitter` delays) is as without it.
        let mut cc = cc;
        cc.init(rng.clone().next_u64(), flow);
        TcpSender {
            cwnd: p.init_cwnd.max(1) as u64 * mss,
            ssthresh: p.init_ssthresh,
            rtt: RttEstimator::new(p.rtt.clone(), phase),
            p,
            cc,
            recovery,
            per_ack_hooks,
            grow_on_ece,
            loss_after_ecn,
            flow,
            src,
            dst,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd_cnt: 0,
            rwnd: INFINITE,
            dupacks: 0,
            limited_bytes: 0,
            board,
            state: LossState::Open,
            recover: None,
            timed: None,
            rto_at: None,
            send_at: None,
            rate,
            pacing_rate: 0,
            next_send: Time::ZERO,
            stamp: 0.0,
            echoed: 0.0,
            cc_paces,
            cc_window,
            cc_counts,
            jitter_rng: rng,
            ecn_recover: None,
            ecn_reduced: None,
            cwr_until: None,
            prr: None,
            cwr_pending: false,
            hold: Time::ZERO,
            started: false,
            established,
            syn_sent: None,
            completed: None,
            stats: SenderStats::default(),
        }
    }

    fn mss(&self) -> u64 {
        self.p.mss as u64
    }

    /// Congestion window in bytes (without fast-recovery inflation).
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    /// The window transmissions use: min(cwnd + inflation, advertised window).
    pub fn window(&self) -> u64 {
        (self.cwnd + self.inflation()).min(self.rwnd)
    }
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn loss_state(&self) -> LossState {
        self.state
    }
    /// True during fast recovery (with or without SACK).
    pub fn in_recovery(&self) -> bool {
        matches!(self.state, LossState::FastRecovery { .. } | LossState::SackRecovery)
    }
    /// The sender's parameters.
    pub fn params(&self) -> &SendParams {
        &self.p
    }
    /// True when SACK-based recovery is in use (negotiated by both ends).
    pub fn sack(&self) -> bool {
        self.board.is_some()
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn completed(&self) -> Option<Time> {
        self.completed
    }
    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }
    /// The algorithm's state shared with a controller outside the run
    /// ([`CongestionOps::external`]).
    pub fn cc_external(&self) -> Option<crate::cc::agent::Handle> {
        self.cc.external()
    }
    pub fn cc_trace(&self) -> Option<(&'static str, f64)> {
        self.cc.trace()
    }
    /// The algorithm's own counters ([`CongestionOps::stats`]).
    pub fn cc_stats(&self) -> Vec<(&'static str, f64)> {
        self.cc.stats()
    }
    /// The pacing rate in payload bytes/s (0: unpaced).
    pub fn pacing_rate(&self) -> u64 {
        self.pacing_rate
    }
    /// Payload bytes delivered (the delivery-rate estimator's `C.delivered`;
    /// 0 unless the module asks for rate samples).
    pub fn delivered(&self) -> u64 {
        self.rate.as_ref().map_or(0, |r| r.delivered())
    }
    /// The next paced or jittered burst, if one waits.
    pub fn send_at(&self) -> Option<Time> {
        self.send_at
    }
    /// The retransmission (or persist) timer, if armed.
    pub fn rto_at(&self) -> Option<Time> {
        self.rto_at
    }
    /// Time of the next timer: retransmission (or persist), or a jittered
    /// burst or paced departure.
    pub fn next_wake(&self) -> Option<Time> {
        match (self.rto_at, self.send_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn inflation(&self) -> u64 {
        match self.state {
            LossState::FastRecovery { inflation, .. } => inflation,
            _ => 0,
        }
    }

    /// FlightSize (RFC 5681 §2): bytes sent and not yet acknowledged, counted
    /// from the go-back-N point after a timeout (RFC 6675 §5.1).
    fn flight(&self) -> u64 {
        match (&self.board, self.state) {
            // After a timeout with SACK, what has been sent since (RFC 6675 §5.1).
            (Some(b), LossState::Loss { .. }) => b.pipe(self.snd_una, self.snd_max, self.recover_point()),
            _ => self.snd_nxt - self.snd_una,
        }
    }

    /// Bytes in the network (see [`CcState::pipe`]).
    fn pipe(&self) -> u64 {
        match (&self.board, self.state) {
            (Some(b), LossState::Loss { .. }) => b.pipe(self.snd_una, self.snd_max, self.recover_point()),
            (Some(b), LossState::SackRecovery) => self.sack_pipe(b),
            // Before recovery nothing counts as lost yet: SACKed bytes are out.
            (Some(b), _) => self.flight().saturating_sub(b.sacked_bytes()),
            (None, _) => self.flight().saturating_sub(self.dupacks as u64 * self.mss()),
        }
    }

    /// RFC 6675 `SetPipe()` with `IsLost` from `dupthresh` SACKs: what a SACK
    /// recovery, and `send_limit = "pipe"` outside one, count in flight.
    fn sack_pipe(&self, b: &Scoreboard) -> u64 {
        b.pipe(
            self.snd_una,
            self.snd_max,
            b.lost_boundary(self.snd_una, self.p.dupthresh, self.mss()),
        )
    }

    fn recover_point(&self) -> u64 {
        self.recover.unwrap_or(self.snd_una)
    }

    fn state(&self, now: Time) -> CcState {
        CcState {
            now,
            mss: self.mss(),
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            flight: self.flight(),
            cwnd_cnt: self.cwnd_cnt,
            byte_counting: self.p.byte_counting,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            pipe: self.pipe(),
            delivered: self.delivered(),
            pacing_rate: self.pacing_rate,
            stamp: self.stamp,
        }
    }

    fn apply(&mut self, s: &CcState) {
        self.cwnd = s.cwnd.max(self.mss());
        self.ssthresh = s.ssthresh;
        self.cwnd_cnt = s.cwnd_cnt;
        self.stamp = s.stamp;
        if self.cc_paces {
            self.pacing_rate = s.pacing_rate;
        }
    }

    /// Linux `tcp_update_pacing_rate` for a module that does not pace itself
    /// (`pacing = true`): max(cwnd, in flight)/srtt × 200 % while cwnd <
    /// ssthresh/2, else × 120 %.
    fn update_pacing_rate(&mut self) {
        if !self.p.pacing || self.cc_paces {
            return;
        }
        let Some(srtt) = self.rtt.srtt().filter(|t| *t > Time::ZERO) else {
            return;
        };
        let ratio = if self.cwnd < self.ssthresh / 2 { 200 } else { 120 };
        let w = self.cwnd.max(self.snd_max - self.snd_una) as u128;
        self.pacing_rate = (w * ratio * 1_000_000_000 / 100 / srtt.as_nanos() as u128) as u64;
    }

    /// This ACK's delivery-rate sample (§3.3 GenerateRateSample), for a
    /// module that reads them.
    fn rate_sample(&mut self, now: Time) -> Option<crate::cc::RateSample> {
        let min_rtt = self.rtt.min_rtt();
        self.rate.as_deref_mut().and_then(|r| r.sample(now, min_rtt))
    }

    /// Runs the algorithm's event hook and applies what it changed.
    fn ca_event(&mut self, now: Time, ev: CaEvent) {
        let mut st = self.state(now);
        self.cc.cwnd_event(&mut st, ev);
        self.apply(&st);
    }
}
