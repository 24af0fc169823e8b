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

use super::rtt::{RttEstimator, RttParams};
use super::scoreboard::{NextSeg, Scoreboard};
use super::{EndpointCtx, INFINITE};
use crate::cc::{AckSample, CaEvent, CcState, CongestionOps, Recovery};
use crate::packet::{flags, Ecn, Feedback, FlowId, NodeId, Packet};
use crate::rng::Rng;
use crate::units::Time;

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
    /// duplicate and partial ACKs are not delayed (as ns-2).
    pub send_jitter: Time,
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
            full_ack: FullAck::Ssthresh,
            partial_timer_every: false,
            byte_counting: true,
            sack: false,
            limited_transmit: false,
            rto_ssthresh: RtoSsthresh::Window,
            loss_window: LossWindow::Flight,
            send_jitter: Time::ZERO,
        }
    }
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
    /// Time of a pending jittered burst (`send_jitter`).
    send_at: Option<Time>,
    jitter_rng: Rng,
    ecn_recover: Option<u64>,
    /// Highest sequence sent when an ECN echo last reduced the window, until a
    /// loss response: a loss within that window is not answered again.
    ecn_reduced: Option<u64>,
    cwr_pending: bool,
    started: bool,
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
        let mss = p.mss as u64;
        let board = p.sack.then(Scoreboard::new);
        // The clock phase of a tick-based estimator (ns-2 `boot_time_`).
        let phase = rng.uniform();
        TcpSender {
            cwnd: p.init_cwnd.max(1) as u64 * mss,
            ssthresh: p.init_ssthresh,
            rtt: RttEstimator::new(p.rtt.clone(), phase),
            p,
            cc,
            recovery,
            per_ack_hooks,
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
            jitter_rng: rng,
            ecn_recover: None,
            ecn_reduced: None,
            cwr_pending: false,
            started: false,
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
    pub fn cc_trace(&self) -> Option<(&'static str, f64)> {
        self.cc.trace()
    }
    /// The algorithm's own counters ([`CongestionOps::stats`]).
    pub fn cc_stats(&self) -> Vec<(&'static str, f64)> {
        self.cc.stats()
    }
    /// Time of the next timer: retransmission (or persist), or a jittered burst.
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
        }
    }

    fn apply(&mut self, s: &CcState) {
        self.cwnd = s.cwnd.max(self.mss());
        self.ssthresh = s.ssthresh;
        self.cwnd_cnt = s.cwnd_cnt;
    }

    /// Runs the algorithm's event hook and applies what it changed.
    fn ca_event(&mut self, now: Time, ev: CaEvent) {
        let mut st = self.state(now);
        self.cc.cwnd_event(&mut st, ev);
        self.apply(&st);
    }

    fn arm_rto(&mut self, now: Time) {
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Starts transmitting (the flow's start time has come).
    pub fn start(&mut self, cx: &mut EndpointCtx) {
        self.started = true;
        self.try_send(cx);
    }

    fn emit(&mut self, cx: &mut EndpointCtx, seq: u64, retx: bool) {
        let len = (self.p.size - seq).min(self.mss()) as u32;
        let mut p = Packet::segment(self.flow, self.src, self.dst, seq, len, self.p.header, cx.now);
        p.retx = retx;
        if self.p.ecn && (!retx || self.p.ect_retransmissions) {
            p.ecn = Ecn::Ect0;
        }
        if self.p.ecn && !retx && self.cwr_pending {
            p.flags |= flags::CWR;
            self.cwr_pending = false;
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retx {
            self.stats.retransmits += 1;
            // Karn (RFC 6298 §3): the timed segment's ACK would be ambiguous.
            if self.timed.is_some_and(|(s, _, _)| s == seq) {
                self.timed = None;
            }
        } else if self.timed.is_none() {
            self.timed = Some((seq, seq + len as u64, cx.now));
        }
        cx.out.push(p);
        // RFC 6298 §5.1: start the timer when sending data if it is not running.
        if self.rto_at.is_none() {
            self.arm_rto(cx.now);
        }
    }

    /// Length of the segment starting at `snd_nxt`, if it fits below `limit`.
    fn next_fits(&self, limit: u64) -> Option<u64> {
        let len = (self.p.size - self.snd_nxt).min(self.mss());
        (self.snd_nxt < self.p.size && self.snd_nxt + len <= limit).then_some(len)
    }

    /// Sends the segment at `snd_nxt` (new data, or go-back-N retransmission).
    fn send_next(&mut self, cx: &mut EndpointCtx, len: u64) {
        let seq = self.snd_nxt;
        self.emit(cx, seq, seq < self.snd_max);
        self.snd_nxt += len;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    /// Sends whatever the window allows, now or after the jitter delay.
    fn try_send(&mut self, cx: &mut EndpointCtx) {
        if !self.started || self.completed.is_some() {
            return;
        }
        if self.sack_driven() {
            // ACK-clocked recovery transmissions are not delayed (as ns-2's).
            self.sack_send(cx);
            return;
        }
        if self.p.send_jitter > Time::ZERO {
            // ns-2 `send_much` with `overhead_`: nothing goes out while a
            // delayed burst is pending; a new opportunity schedules one.
            if self.send_at.is_none() && self.next_fits(self.snd_una.saturating_add(self.window())).is_some() {
                let d = self.jitter_rng.range(0.0, self.p.send_jitter.as_secs_f64());
                self.send_at = Some(cx.now + Time::from_secs_f64(d));
                return;
            }
            if self.send_at.is_some() {
                return;
            }
        }
        self.send_window(cx);
    }

    /// Whether transmissions follow RFC 6675's pipe and NextSeg() (a SACK
    /// recovery, or the retransmissions after a timeout with SACK).
    fn sack_driven(&self) -> bool {
        self.board.is_some() && matches!(self.state, LossState::SackRecovery | LossState::Loss { .. })
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 SMSS, send NextSeg().
    /// After a timeout every un-SACKed byte below the recovery point counts
    /// as lost (§5.1) and no rescue retransmission is made.
    fn sack_send(&mut self, cx: &mut EndpointCtx) {
        let Some(board) = self.board.as_ref() else { return };
        let mss = self.mss();
        let after_rto = matches!(self.state, LossState::Loss { .. });
        let lost = if after_rto {
            self.recover_point()
        } else {
            board.lost_boundary(self.snd_una, self.p.dupthresh, mss)
        };
        let mut pipe = board.pipe(self.snd_una, self.snd_max, lost);
        while self.cwnd >= pipe + mss {
            let new_len = (self.p.size - self.snd_max).min(mss);
            let new_ok = self.snd_max < self.p.size && self.snd_max + new_len <= self.snd_una.saturating_add(self.rwnd);
            let board = self.board.as_mut().expect("SACK in use");
            match board.next_seg(self.snd_una, self.snd_max, lost, mss, new_ok, !after_rto) {
                None => break,
                Some(NextSeg::New) => {
                    self.send_next(cx, new_len);
                    pipe += new_len;
                }
                Some(NextSeg::Retransmit { seq, len }) => {
                    board.retransmitted(seq + len);
                    self.emit(cx, seq, true);
                    pipe += len;
                }
                Some(NextSeg::Rescue { seq, len }) => {
                    board.rescued(self.recover.unwrap_or(self.snd_max));
                    self.emit(cx, seq, true);
                    pipe += len;
                }
            }
        }
    }

    fn send_window(&mut self, cx: &mut EndpointCtx) {
        if self.sack_driven() {
            self.sack_send(cx);
            return;
        }
        let limit = self.snd_una.saturating_add(self.window());
        while let Some(len) = self.next_fits(limit) {
            self.send_next(cx, len);
        }
        // Closed receiver window with nothing outstanding: arm a persist probe.
        if self.snd_una == self.snd_max && self.snd_nxt < self.p.size && self.rto_at.is_none() {
            self.arm_rto(cx.now);
        }
    }

    /// Processes an ACK from the receiver.
    pub fn on_ack(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if self.completed.is_some() || !self.started {
            return;
        }
        self.rwnd = pkt.wnd;
        let ece = self.p.ecn && pkt.has(flags::ECE);
        // RFC 6675 Update(): record the SACK blocks.
        let una = pkt.ack.min(self.snd_max).max(self.snd_una);
        let newly_sacked = self.board.as_mut().map(|b| b.update(una, &pkt.sack_blocks()));
        if pkt.ack > self.snd_una {
            let echo = self.p.rtt_timestamps.then_some(pkt.ts_ecr);
            self.on_new_ack(pkt.ack.min(self.snd_max), ece, pkt.fb, echo, cx);
            if self.completed.is_some() {
                return;
            }
        } else if pkt.ack == self.snd_una && self.snd_max > self.snd_una {
            // With SACK, a duplicate ACK is one that SACKs new data (RFC 6675 §2).
            if newly_sacked.is_none_or(|n| n > 0) {
                self.on_dupack(ece, pkt.fb, cx);
            }
        }
        self.try_send(cx);
    }

    /// A cumulative ACK of new data up to `ack`; `echo`: its timestamp echo,
    /// when RTT samples come from timestamps.
    fn on_new_ack(&mut self, ack: u64, ece: bool, fb: Feedback, echo: Option<Time>, cx: &mut EndpointCtx) {
        let now = cx.now;
        let acked = ack - self.snd_una;
        let mut rtt = None;
        if let Some(t0) = echo.filter(|&t| t <= now) {
            // RFC 7323 §4.1: every ACK that acknowledges new data gives a
            // sample; the echo of a retransmission times that retransmission.
            self.rtt.sample(t0, now);
            rtt = Some(now - t0);
        } else if let Some((_, end, t0)) = self.timed {
            if ack >= end {
                self.rtt.sample(t0, now);
                rtt = Some(now - t0);
                self.timed = None;
            }
        }
        self.snd_una = ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        self.dupacks = 0;
        self.limited_bytes = 0;
        let sample = AckSample {
            acked,
            dup: false,
            rtt,
            in_recovery: self.in_recovery(),
            ece,
            feedback: fb,
        };
        let controlled = self.observe(now, &sample);

        let full = self.recover.is_none_or(|r| ack >= r);
        let mut restart_timer = true;
        match self.state {
            LossState::FastRecovery {
                inflation,
                partial_seen,
            } => {
                if full || self.recovery == Recovery::Reno {
                    self.exit_fast_recovery(now);
                    // The ACK that ends recovery also grows the window, as an
                    // ACK in the open state does (ns-2 `recv_newack_helper` →
                    // `opencwnd`; Linux `tcp_cong_control` after leaving Recovery).
                    if !controlled {
                        self.grow(now, acked);
                    }
                } else {
                    restart_timer = !partial_seen || self.p.partial_timer_every;
                    self.partial_ack(cx, acked, inflation);
                }
            }
            LossState::SackRecovery => {
                if full {
                    // RFC 6675 step (A): the recovery ends; cwnd stays at
                    // ssthresh (set on entry), and this ACK grows it.
                    self.state = LossState::Open;
                    self.cwnd_cnt = 0;
                    self.ca_event(now, CaEvent::ExitRecovery);
                    if !controlled {
                        self.grow(now, acked);
                    }
                }
                // Otherwise step (B): the sending loop runs after this ACK.
            }
            LossState::Loss { .. } => {
                // Go-back-N slow start; the timeout's recovery ends once the
                // cumulative ACK covers `recover` (Linux leaves TCP_CA_Loss).
                self.state = if full {
                    LossState::Open
                } else {
                    LossState::Loss { rto_streak: 0 }
                };
                if !controlled {
                    self.grow(now, acked);
                }
            }
            LossState::Open => {
                if ece && self.ecn_recover.is_none_or(|r| ack > r) {
                    self.ecn_reduce(now);
                } else if !controlled && !ece {
                    // RFC 3168 §6.1.2: "The sender SHOULD NOT increase the
                    // congestion window in response to the receipt of an
                    // ECN-Echo ACK packet" (ns-2 `recv_newack_helper` too).
                    self.grow(now, acked);
                }
            }
        }

        if self.snd_una >= self.p.size {
            self.completed = Some(now);
            self.rto_at = None;
            self.send_at = None;
            return;
        }
        // RFC 6298 §5.2 / §5.3.
        if self.snd_una >= self.snd_max {
            self.rto_at = None;
        } else if restart_timer {
            self.arm_rto(now);
        }
    }

    /// Shows the ACK to the algorithm (`pkts_acked`, then `cong_control`)
    /// if it has these hooks; returns whether it set the window itself.
    fn observe(&mut self, now: Time, sample: &AckSample) -> bool {
        if !self.per_ack_hooks {
            return false;
        }
        // One view serves both hooks: `pkts_acked` reads it and changes
        // nothing the sender holds.
        let mut st = self.state(now);
        self.cc.pkts_acked(&st, sample);
        let controlled = self.cc.cong_control(&mut st, sample);
        if controlled {
            self.apply(&st);
        }
        controlled
    }

    /// Window growth through the algorithm (slow start / congestion avoidance).
    fn grow(&mut self, now: Time, acked: u64) {
        let acked = if self.p.byte_counting {
            acked
        } else {
            acked.min(self.mss())
        };
        let mut st = self.state(now);
        self.cc.cong_avoid(&mut st, acked);
        self.apply(&st);
    }

    /// RFC 6582 §3.2 step 3 (full ACK) / RFC 5681 §3.2 step 6: deflate and leave.
    fn exit_fast_recovery(&mut self, now: Time) {
        self.cwnd = match self.p.full_ack {
            FullAck::Flight => self
                .ssthresh
                .min((self.snd_max - self.snd_una).max(self.mss()) + self.mss()),
            FullAck::Ssthresh => self.ssthresh,
            FullAck::Keep => self.cwnd,
        };
        self.state = LossState::Open;
        self.cwnd_cnt = 0;
        self.ca_event(now, CaEvent::ExitRecovery);
    }

    /// RFC 6582 §3.2 step 4 (partial ACK): retransmit the first unacknowledged
    /// segment, deflate the window by the amount acked, add back one MSS if
    /// that amount was at least one MSS. The deflation takes the inflation
    /// first, then cwnd (ns-2 `partialnewack`, same total as the RFC).
    fn partial_ack(&mut self, cx: &mut EndpointCtx, acked: u64, inflation: u64) {
        let una = self.snd_una;
        self.emit(cx, una, true);
        let mut total = (self.cwnd + inflation).saturating_sub(acked);
        if acked >= self.mss() {
            total += self.mss();
        }
        let inflation = if total >= self.cwnd {
            total - self.cwnd
        } else {
            self.cwnd = total.max(self.mss());
            0
        };
        self.state = LossState::FastRecovery {
            inflation,
            partial_seen: true,
        };
    }

    /// The algorithm's view for a loss response: `flight` is the window that
    /// `loss_window` names; RFC 5681 §3.2 step 2: data sent by limited
    /// transmit is not counted.
    fn loss_state_for(&self, now: Time) -> CcState {
        let mut st = self.state(now);
        st.flight = match self.p.loss_window {
            LossWindow::Flight => st.flight - self.limited_bytes,
            LossWindow::Cwnd => self.cwnd.min(self.rwnd),
        };
        st
    }

    /// Sets ssthresh from the algorithm's value `w` and returns the window a
    /// reduction leaves cwnd at. With packet-counted windows (`loss_window =
    /// "cwnd"`, ns-2 `slowdown`) ssthresh is whole segments, at least two
    /// (`ssthresh_ = (int) halfwin`), while cwnd keeps the fraction and is
    /// not held at two segments (`cwnd_ = halfwin`, at least one): when `w`
    /// is only the two-segment floor, cwnd is half the window. Otherwise both
    /// are `w` (RFC 5681, bytes).
    fn set_ssthresh(&mut self, w: u64) -> u64 {
        let mss = self.mss();
        match self.p.loss_window {
            LossWindow::Flight => {
                self.ssthresh = w;
                w
            }
            LossWindow::Cwnd => {
                self.ssthresh = (w / mss * mss).max(2 * mss);
                let half = self.cwnd.min(self.rwnd) / 2;
                if w == 2 * mss && half < w {
                    half.max(mss)
                } else {
                    w
                }
            }
        }
    }

    /// The window a fast retransmit leaves: the algorithm's ssthresh, unless
    /// an ECN echo already reduced the window for this window of data (RFC
    /// 3168 §6.1.2: "the congestion window should be reduced only once in
    /// response to a series of dropped and/or CE packets from a single window
    /// of data"; ns-2 `dupack_action` after `CWND_ACTION_ECN`), when cwnd and
    /// ssthresh stay as they are.
    fn loss_reduction(&mut self, now: Time) -> u64 {
        if self.ecn_reduced.take().is_some_and(|r| self.snd_una <= r) {
            return self.cwnd;
        }
        let st = self.loss_state_for(now);
        let w = self.cc.ssthresh(&st);
        self.set_ssthresh(w)
    }

    /// RFC 3168 §6.1.2: reduce once per window as the algorithm says (by
    /// default as for a loss), no retransmission, CWR on the next segment.
    fn ecn_reduce(&mut self, now: Time) {
        let st = self.loss_state_for(now);
        let Some(w) = self.cc.ecn_echo(&st) else { return };
        self.cwnd = self.set_ssthresh(w).max(self.mss());
        self.ecn_reduced = Some(self.snd_max);
        self.cwnd_cnt = 0;
        self.ecn_recover = Some(self.snd_max);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
        self.ca_event(now, CaEvent::EcnReduce);
    }

    fn on_dupack(&mut self, ece: bool, fb: Feedback, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.dupacks += 1;
        let sample = AckSample {
            acked: 0,
            dup: true,
            rtt: None,
            in_recovery: self.in_recovery(),
            ece,
            feedback: fb,
        };
        self.observe(now, &sample);
        match self.state {
            // RFC 6675 (B)–(C): the sending loop runs after this ACK.
            LossState::SackRecovery => {}
            LossState::Open
                if self
                    .board
                    .as_ref()
                    .is_some_and(|b| b.is_lost(self.snd_una, self.snd_una, self.p.dupthresh, self.mss())) =>
            {
                // RFC 6675 §5 step 3: IsLost(HighACK + 1) enters recovery
                // before DupThresh duplicate ACKs.
                self.fast_retransmit(cx)
            }
            LossState::FastRecovery {
                inflation,
                partial_seen,
            } => {
                // RFC 5681 §3.2 step 4: inflate by one segment per further dupack.
                self.state = LossState::FastRecovery {
                    inflation: inflation + self.mss(),
                    partial_seen,
                };
            }
            _ if self.dupacks < self.p.dupthresh => {
                if self.p.limited_transmit && !self.sack_driven() {
                    self.limited_transmit(cx);
                }
            }
            LossState::Open if self.dupacks == self.p.dupthresh || self.board.is_some() => self.fast_retransmit(cx),
            // Go-back-N after a timeout resends segments the receiver may hold:
            // their duplicate ACKs are no loss signal (RFC 6582 §4).
            LossState::Open | LossState::Loss { .. } => {}
        }
    }

    /// RFC 3042 §2: on each of the first dupthresh − 1 duplicate ACKs, send one
    /// segment if the receiver's window allows and the data outstanding stays
    /// within cwnd + (duplicate ACKs)·SMSS; cwnd is not changed. As ns-2's
    /// `send_one` (`singledup_`), this also applies in the go-back-N phase
    /// after a timeout, where the next segment is a retransmission (RFC 3042
    /// speaks of new data only): a duplicate ACK there reports a duplicate
    /// segment that left the network.
    fn limited_transmit(&mut self, cx: &mut EndpointCtx) {
        let allowance = (self.cwnd + self.dupacks as u64 * self.mss()).min(self.rwnd);
        if let Some(len) = self.next_fits(self.snd_una.saturating_add(allowance)) {
            self.send_next(cx, len);
            self.limited_bytes += len;
        }
    }

    /// The dupthresh-th duplicate ACK (RFC 5681 §3.2 steps 2–3; RFC 6582 §3.2).
    fn fast_retransmit(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        // RFC 6582 §3.2 step 1 ("careful" variant) and §4: no new fast
        // retransmit until the cumulative ACK covers more than `recover`. ns-2
        // applies it to Tahoe and Reno as well (`bugFix_ true`, its default):
        // a Reno that left recovery on a partial ACK does not halve again for
        // further losses of the same window.
        if self.recover.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        self.stats.fast_retransmits += 1;
        if self.board.is_some() {
            self.enter_sack_recovery(cx);
            return;
        }
        let w = self.loss_reduction(now);
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.cwnd_cnt = 0;
        // The retransmission timer restarts with the retransmission (ns-2
        // `reset_rtx_timer` in `dupack_action`; Linux re-arms it when the head
        // segment is retransmitted), giving the recovery a full RTO.
        self.arm_rto(now);
        self.timed = None;
        match self.recovery {
            Recovery::Tahoe => {
                // Tahoe: loss window of one segment, go back to snd_una.
                self.cwnd = self.mss();
                self.snd_nxt = self.snd_una;
                self.state = LossState::Loss { rto_streak: 0 };
                self.ca_event(now, CaEvent::EnterRecovery);
            }
            Recovery::Reno | Recovery::NewReno => {
                // RFC 5681 §3.2 steps 2–3: retransmit, cwnd = ssthresh + 3·SMSS.
                let una = self.snd_una;
                self.emit(cx, una, true);
                self.cwnd = w.max(self.mss());
                self.ca_event(now, CaEvent::EnterRecovery);
                self.state = LossState::FastRecovery {
                    inflation: self.p.dupthresh as u64 * self.mss(),
                    partial_seen: false,
                };
            }
        }
    }

    /// RFC 6675 §5 step 4: RecoveryPoint = HighData, ssthresh = cwnd from the
    /// algorithm (FlightSize/2 for Reno), retransmit the first segment with
    /// HighRxt = RescueRxt at its end, then send what pipe allows (step C).
    fn enter_sack_recovery(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        let w = self.loss_reduction(now);
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.cwnd_cnt = 0;
        self.cwnd = w.max(self.mss());
        self.arm_rto(now);
        self.timed = None;
        let una = self.snd_una;
        let len = (self.p.size - una).min(self.mss());
        self.board.as_mut().expect("SACK in use").begin_recovery(una + len);
        self.emit(cx, una, true);
        self.state = LossState::SackRecovery;
        self.ca_event(now, CaEvent::EnterRecovery);
    }

    /// A timer fired at `cx.now`: a jittered burst, the retransmission timer,
    /// or the persist timer.
    pub fn on_timer(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        if self.send_at.is_some_and(|t| t <= now) {
            self.send_at = None;
            if self.completed.is_none() {
                self.send_window(cx);
            }
        }
        match self.rto_at {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.rto_at = None;
        if self.completed.is_some() {
            return;
        }
        if self.snd_una == self.snd_max {
            // Persist: probe a closed window with one segment.
            if let Some(len) = self.next_fits(u64::MAX) {
                self.send_next(cx, len);
            }
            return;
        }
        self.on_rto(cx);
    }

    /// RFC 6298 §5.4–5.7 and RFC 5681 §3.1: loss window of one segment, back
    /// off, go back to snd_una; ssthresh as described in the module docs.
    fn on_rto(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.stats.timeouts += 1;
        let (reduce, streak) = match self.state {
            // Linux `tcp_enter_loss`: this window's reduction was made when
            // fast recovery began; keep the recovery's ssthresh.
            LossState::FastRecovery { .. } | LossState::SackRecovery => (false, 1),
            // RFC 5681 §3.1: the same data timed out again, hold ssthresh.
            LossState::Loss { rto_streak } => (rto_streak == 0, rto_streak + 1),
            LossState::Open => (true, 1),
        };
        let mut st = self.state(now);
        match self.p.rto_ssthresh {
            RtoSsthresh::OncePerWindow if reduce => {
                let w = self.cc.ssthresh_timeout(&st);
                self.set_ssthresh(w);
            }
            RtoSsthresh::OncePerWindow => {}
            RtoSsthresh::Window => {
                st.flight = self.cwnd.min(self.rwnd);
                let w = self.cc.ssthresh_timeout(&st);
                self.set_ssthresh(w);
            }
        }
        self.cwnd = self.mss();
        self.cwnd_cnt = 0;
        self.ecn_reduced = None;
        self.state = LossState::Loss { rto_streak: streak };
        self.dupacks = 0;
        // RFC 6582 §4: after a timeout, recover = highest sequence sent.
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        match self.board.as_mut() {
            // RFC 6675 §5.1: keep the SACK information, retransmit every
            // un-SACKed byte below the recovery point.
            Some(b) => b.clear_retransmissions(self.snd_una),
            None => self.snd_nxt = self.snd_una,
        }
        self.timed = None;
        self.rtt.back_off();
        self.ca_event(now, CaEvent::Timeout);
        self.try_send(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::by_name;
    use crate::packet::Kind;

    const MSS: u64 = 1000;

    struct Harness {
        s: TcpSender,
        now: Time,
        sent: Vec<Packet>,
    }

    impl Harness {
        fn new(cc: &str, init_cwnd: u32, p: impl FnOnce(&mut SendParams)) -> Harness {
            Harness::with_cc(by_name(cc).unwrap(), init_cwnd, p)
        }
        fn with_cc(cc: Box<dyn CongestionOps>, init_cwnd: u32, p: impl FnOnce(&mut SendParams)) -> Harness {
            let mut params = SendParams {
                mss: MSS as u32,
                init_cwnd,
                ..SendParams::default()
            };
            p(&mut params);
            let mut s = TcpSender::new(params, cc, FlowId(0), NodeId(0), NodeId(1), Rng::new(7, 0));
            let mut sent = Vec::new();
            s.start(&mut EndpointCtx {
                now: Time::ZERO,
                out: &mut sent,
            });
            Harness {
                s,
                now: Time::ZERO,
                sent,
            }
        }
        fn at(&mut self, ms: u64) -> &mut Self {
            self.now = Time::from_millis(ms);
            self
        }
        fn ack(&mut self, ack: u64, f: impl FnOnce(&mut Packet)) -> Vec<Packet> {
            let mut a = Packet::new(0, FlowId(0), NodeId(1), NodeId(0), 40, Kind::Ack, self.now);
            a.ack = ack;
            a.wnd = INFINITE;
            f(&mut a);
            let mut out = Vec::new();
            self.s.on_ack(
                &a,
                &mut EndpointCtx {
                    now: self.now,
                    out: &mut out,
                },
            );
            self.sent.extend(out.iter().cloned());
            out
        }
        fn timer(&mut self) -> Vec<Packet> {
            let mut out = Vec::new();
            self.s.on_timer(&mut EndpointCtx {
                now: self.now,
                out: &mut out,
            });
            out
        }
    }

    fn seqs(p: &[Packet]) -> Vec<u64> {
        p.iter().map(|p| p.seq).collect()
    }

    #[test]
    fn rfc5681_slow_start_then_congestion_avoidance() {
        let mut h = Harness::new("newreno", 1, |p| p.init_ssthresh = 4 * MSS);
        assert_eq!(seqs(&h.sent), vec![0]);
        h.at(100);
        assert_eq!(seqs(&h.ack(1000, |_| ())), vec![1000, 2000], "cwnd 2");
        h.ack(2000, |_| ());
        h.ack(3000, |_| ());
        assert_eq!(h.s.cwnd(), 4 * MSS, "slow start stops at ssthresh");
        // Congestion avoidance: one MSS per cwnd of acknowledged bytes.
        for k in 4..8 {
            h.ack(k * MSS, |_| ());
        }
        assert_eq!(h.s.cwnd(), 5 * MSS);
    }

    #[test]
    fn rfc5681_fast_retransmit_and_reno_recovery() {
        let mut h = Harness::new("reno", 10, |_| ());
        assert_eq!(h.sent.len(), 10);
        h.at(100);
        assert!(h.ack(0, |_| ()).is_empty());
        h.ack(0, |_| ());
        let out = h.ack(0, |_| ());
        assert_eq!(seqs(&out), vec![0], "3rd dupack retransmits snd_una");
        assert!(out[0].retx);
        assert_eq!(h.s.ssthresh(), 5 * MSS, "FlightSize/2");
        assert_eq!(h.s.window(), 8 * MSS, "ssthresh + 3 MSS");
        assert_eq!(h.s.cwnd(), 5 * MSS, "cwnd itself is not inflated");
        // Further dupacks inflate by one MSS; the 11th segment goes out when cwnd allows.
        h.ack(0, |_| ());
        h.ack(0, |_| ());
        let out = h.ack(0, |_| ());
        assert_eq!(h.s.window(), 11 * MSS);
        assert_eq!(seqs(&out), vec![10_000]);
        // Reno leaves recovery on the first new ACK, even a partial one.
        h.ack(3000, |_| ());
        assert!(!h.s.in_recovery());
        assert_eq!(h.s.cwnd(), 5 * MSS);
    }

    #[test]
    fn rfc6582_newreno_partial_and_full_ack() {
        let mut h = Harness::new("newreno", 10, |_| ());
        h.at(100);
        // Segment 2000 is lost: a new ACK of 2000, then duplicates.
        for _ in 0..3 {
            h.ack(2000, |_| ());
        }
        let out = h.ack(2000, |_| ());
        assert_eq!(seqs(&out), vec![2000], "fast retransmit on the 3rd dupack");
        assert!(h.s.in_recovery());
        let recover = h.s.snd_max();
        // Partial ACK: retransmit the next hole, deflate, stay in recovery.
        let cwnd_before = h.s.window();
        let out = h.ack(5000, |_| ());
        assert_eq!(out.first().map(|p| p.seq), Some(5000));
        assert!(out[0].retx);
        assert!(h.s.in_recovery());
        assert_eq!(h.s.window(), cwnd_before - 3000 + MSS);
        // Full ACK: exit with cwnd = ssthresh (5.5 MSS), and the ACK itself
        // counts for congestion avoidance: it acknowledges 8 MSS ≥ cwnd, one
        // more MSS (RFC 3465 byte counting; ns-2 and Linux grow on it too).
        assert_eq!((h.s.ssthresh(), recover - 5000), (5500, 8000));
        h.ack(recover, |_| ());
        assert!(!h.s.in_recovery());
        assert_eq!(h.s.cwnd(), h.s.ssthresh() + MSS);
    }

    /// RFC 6582 §3.2 step 4 resets the retransmission timer on the first partial
    /// ACK only ("Impatient"); §4's "Slow-but-Steady" variant (ns-2's default,
    /// `newreno_changes1_ 0`) resets it on every partial ACK.
    #[test]
    fn rfc6582_partial_ack_timer_impatient_and_slow_but_steady() {
        for every in [false, true] {
            let mut h = Harness::new("newreno", 10, |p| p.partial_timer_every = every);
            h.at(100);
            for _ in 0..4 {
                h.ack(2000, |_| ());
            }
            assert!(h.s.in_recovery());
            h.at(200);
            h.ack(4000, |_| ()); // first partial ACK: both restart the timer
            let first = h.s.next_wake().expect("timer armed");
            h.at(300);
            h.ack(6000, |_| ()); // second partial ACK
            assert!(h.s.in_recovery());
            let second = h.s.next_wake().expect("timer armed");
            if every {
                assert_eq!(second, first + Time::from_millis(100), "restarted at 300 ms");
            } else {
                assert_eq!(second, first, "left running from 200 ms");
            }
        }
    }

    #[test]
    fn tahoe_goes_back_to_one_segment() {
        let mut h = Harness::new("tahoe", 8, |_| ());
        h.at(100);
        for _ in 0..2 {
            h.ack(0, |_| ());
        }
        let out = h.ack(0, |_| ());
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(h.s.cwnd(), MSS);
        assert_eq!(h.s.ssthresh(), 4 * MSS);
        // The next ACK slow-starts from one segment and re-sends from snd_una (go-back-N).
        let out = h.ack(1000, |_| ());
        assert_eq!(seqs(&out), vec![1000, 2000]);
        assert!(out.iter().all(|p| p.retx));
    }

    #[test]
    fn rfc6298_timeout_backoff_and_loss_window() {
        let mut h = Harness::new("newreno", 4, |p| p.rtt.init_rto = Time::from_secs(1));
        assert_eq!(h.s.next_wake(), Some(Time::from_secs(1)), "RTO armed on first send");
        h.at(1000);
        let out = h.timer();
        assert_eq!(seqs(&out), vec![0], "retransmit snd_una");
        assert_eq!(h.s.cwnd(), MSS, "loss window");
        assert_eq!(h.s.ssthresh(), 2 * MSS, "max(FlightSize/2, 2 MSS)");
        assert_eq!(h.s.stats.timeouts, 1);
        assert_eq!(h.s.next_wake(), Some(Time::from_secs(3)), "backed off to 2 s");
        // Karn: the ACK of a retransmitted segment gives no RTT sample.
        h.at(1100);
        h.ack(1000, |_| ());
        assert!(h.s.rtt().srtt().is_none());
    }

    #[test]
    fn advertised_window_limits_and_shrinks() {
        let mut h = Harness::new("newreno", 10, |_| ());
        h.at(50);
        // Window field of 3 MSS: only 3 segments may be outstanding.
        let out = h.ack(1000, |a| a.wnd = 3 * MSS);
        assert!(
            out.is_empty(),
            "10 outstanding > window: send nothing, no retransmission"
        );
        let out = h.ack(9000, |a| a.wnd = 3 * MSS);
        assert_eq!(seqs(&out), vec![10_000, 11_000]);
    }

    #[test]
    fn rfc3168_ecn_halves_once_per_window_and_sets_cwr() {
        let mut h = Harness::new("newreno", 10, |p| p.ecn = true);
        assert!(h.sent.iter().all(|p| p.ecn == Ecn::Ect0));
        h.at(100);
        let out = h.ack(1000, |a| a.flags |= flags::ECE);
        assert_eq!(h.s.cwnd(), 4500, "FlightSize (9 segments) / 2");
        assert_eq!(h.s.stats.ecn_reductions, 1);
        assert!(out.is_empty() || out[0].has(flags::CWR));
        // A second ECE within the same window does not reduce again.
        h.ack(2000, |a| a.flags |= flags::ECE);
        assert_eq!(h.s.stats.ecn_reductions, 1);
    }

    /// RFC 7323 §4.1 (RTTM): with timestamps every ACK of new data is a
    /// sample (100 ms, then 150 ms: SRTT 106.25 ms), where one timed segment
    /// per window gives one (the second ACK covers no timed segment).
    #[test]
    fn rfc7323_rtt_sample_on_every_ack_with_timestamps() {
        for ts in [false, true] {
            let mut h = Harness::new("newreno", 4, |p| p.rtt_timestamps = ts);
            h.at(100).ack(1000, |a| a.ts_ecr = Time::ZERO);
            h.at(150).ack(2000, |a| a.ts_ecr = Time::ZERO);
            let srtt = h.s.rtt().srtt().unwrap().as_secs_f64();
            let want = if ts { 0.10625 } else { 0.1 };
            assert!((srtt - want).abs() < 1e-12, "timestamps {ts}: {srtt}");
        }
    }

    /// RFC 3168 §6.1.5: a retransmission is Not-ECT; with
    /// `ect_retransmissions` (ns-2's `output`, BMCC) it is ECT(0) too. CWR
    /// rides on new data only, in both.
    #[test]
    fn retransmissions_are_not_ect_unless_asked() {
        for ect_rtx in [false, true] {
            let mut h = Harness::new("newreno", 4, |p| {
                p.ecn = true;
                p.ect_retransmissions = ect_rtx;
            });
            h.at(100);
            for _ in 0..3 {
                h.ack(0, |a| a.flags |= flags::ECE);
            }
            let rtx: Vec<&Packet> = h.sent.iter().filter(|p| p.retx).collect();
            assert_eq!(rtx.len(), 1, "the fast retransmission");
            let want = if ect_rtx { Ecn::Ect0 } else { Ecn::NotEct };
            assert_eq!(rtx[0].ecn, want);
            assert!(!rtx[0].has(flags::CWR));
        }
    }

    #[test]
    fn finite_transfer_completes() {
        let mut h = Harness::new("newreno", 4, |p| p.size = 2500);
        assert_eq!(h.sent.iter().map(|p| p.len).collect::<Vec<_>>(), vec![1000, 1000, 500]);
        h.at(80);
        h.ack(2500, |_| ());
        assert_eq!(h.s.completed(), Some(Time::from_millis(80)));
        assert_eq!(h.s.next_wake(), None);
    }

    /// Fast recovery entered from a 10-segment window (ssthresh 5), inflated
    /// by two more dupacks; then the retransmission timer fires.
    fn timeout_in_fast_recovery(rule: RtoSsthresh) -> Harness {
        let mut h = Harness::new("newreno", 10, |p| p.rto_ssthresh = rule);
        h.at(100);
        for _ in 0..5 {
            h.ack(0, |_| ());
        }
        assert!(h.s.in_recovery());
        assert_eq!((h.s.cwnd(), h.s.window()), (5 * MSS, 10 * MSS));
        h.at(1500);
        let out = h.timer();
        assert_eq!(seqs(&out), vec![0], "go-back-N from snd_una with cwnd = 1");
        assert_eq!(h.s.loss_state(), LossState::Loss { rto_streak: 1 });
        h
    }

    /// RFC 5681 §3.1 bounds ssthresh by FlightSize/2; FlightSize inflated by
    /// fast recovery is not used. ns-2 halves the window in use (cwnd without
    /// the inflation: 5 → 2 segments); Linux keeps the recovery's ssthresh.
    #[test]
    fn rfc5681_3_1_timeout_during_fast_recovery_uses_uninflated_window() {
        let h = timeout_in_fast_recovery(RtoSsthresh::Window);
        assert_eq!(h.s.ssthresh(), 2500, "ns-2: 5 / 2 segments (ns-2 truncates to 2)");
        let h = timeout_in_fast_recovery(RtoSsthresh::OncePerWindow);
        assert_eq!(h.s.ssthresh(), 5 * MSS, "Linux tcp_enter_loss: held");
    }

    /// RFC 5681 §3.1: "the value of ssthresh is held constant" when the same
    /// segment times out again; ns-2 halves the one-segment window (floor 2).
    #[test]
    fn rfc5681_3_1_repeated_timeout_of_the_same_segment() {
        for (rule, second) in [(RtoSsthresh::OncePerWindow, 4 * MSS), (RtoSsthresh::Window, 2 * MSS)] {
            let mut h = Harness::new("newreno", 8, |p| {
                p.rto_ssthresh = rule;
                p.rtt.init_rto = Time::from_secs(1);
            });
            h.at(1000);
            h.timer();
            assert_eq!(h.s.ssthresh(), 4 * MSS, "first timeout: FlightSize 8 / 2");
            h.at(3000);
            let out = h.timer();
            assert_eq!(seqs(&out), vec![0]);
            assert_eq!(h.s.ssthresh(), second, "{rule:?}");
            assert_eq!(h.s.loss_state(), LossState::Loss { rto_streak: 2 });
            assert_eq!(h.s.stats.timeouts, 2);
        }
    }

    /// After a timeout, FlightSize counts from the go-back-N point: the 12
    /// segments sent before the timeout are not in flight any more.
    #[test]
    fn timeout_after_progress_reduces_from_go_back_n_flight() {
        let mut h = Harness::new("newreno", 12, |p| {
            p.rto_ssthresh = RtoSsthresh::OncePerWindow;
            p.rtt.init_rto = Time::from_secs(1);
        });
        h.at(1000);
        h.timer();
        assert_eq!(h.s.ssthresh(), 6 * MSS);
        // Segments 0-3 retransmitted and acknowledged one by one: slow start
        // from 1 segment sends 1000, 2000+3000, ... (go-back-N, retransmissions).
        h.at(1100);
        let out = h.ack(1000, |_| ());
        assert_eq!(seqs(&out), vec![1000, 2000]);
        assert!(out.iter().all(|p| p.retx));
        assert_eq!(h.s.loss_state(), LossState::Loss { rto_streak: 0 }, "progress");
        // The ACK restarted the backed-off timer (2 s): it fires at 3.1 s.
        h.at(3100);
        h.timer();
        assert_eq!(h.s.stats.timeouts, 2);
        assert_eq!(h.s.ssthresh(), 2 * MSS, "FlightSize 2 segments (3000 - 1000), floor 2");
    }

    /// RFC 6582 §4 "bugfix": after a timeout, duplicate ACKs below `recover`
    /// (here caused by go-back-N retransmissions of data the receiver holds)
    /// do not trigger fast retransmit, for NewReno, Reno and Tahoe (ns-2 `bugFix_`).
    #[test]
    fn rfc6582_4_no_fast_retransmit_after_timeout_until_recover() {
        for cc in ["newreno", "reno", "tahoe"] {
            let mut h = Harness::new(cc, 10, |p| p.rtt.init_rto = Time::from_secs(1));
            h.at(1000);
            h.timer();
            h.at(1100);
            h.ack(5000, |_| ());
            for _ in 0..4 {
                h.ack(5000, |_| ());
            }
            assert_eq!(h.s.stats.fast_retransmits, 0, "{cc}");
            assert!(matches!(h.s.loss_state(), LossState::Loss { .. }), "{cc}");
            // The cumulative ACK reaches recover (10 000): the timeout's
            // recovery is over; once it covers more than recover, a new loss
            // may be fast-retransmitted.
            h.ack(10_000, |_| ());
            assert_eq!(h.s.loss_state(), LossState::Open, "{cc}");
            for _ in 0..3 {
                h.ack(10_000, |_| ());
            }
            assert_eq!(h.s.stats.fast_retransmits, 0, "{cc}: ack = recover is not above it");
            h.ack(11_000, |_| ());
            for _ in 0..3 {
                h.ack(11_000, |_| ());
            }
            assert_eq!(h.s.stats.fast_retransmits, 1, "{cc}");
        }
    }

    /// ns-2 applies the careful check to Reno too: after leaving fast recovery
    /// on a partial ACK, more losses of the same window do not halve again.
    #[test]
    fn reno_does_not_halve_twice_for_one_window() {
        let mut h = Harness::new("reno", 10, |_| ());
        h.at(100);
        for _ in 0..3 {
            h.ack(0, |_| ());
        }
        assert_eq!(h.s.ssthresh(), 5 * MSS);
        h.ack(3000, |_| ()); // partial ACK: Reno leaves recovery
        assert!(!h.s.in_recovery());
        for _ in 0..3 {
            h.ack(3000, |_| ());
        }
        assert_eq!(h.s.stats.fast_retransmits, 1);
        assert_eq!(h.s.ssthresh(), 5 * MSS);
    }

    /// RFC 3042 §2: one new segment per each of the first two duplicate ACKs,
    /// cwnd unchanged; RFC 5681 §3.2 step 2: they do not count in FlightSize
    /// when ssthresh is set on the third.
    #[test]
    fn rfc3042_limited_transmit() {
        let mut h = Harness::new("newreno", 10, |p| p.limited_transmit = true);
        h.at(100);
        assert_eq!(seqs(&h.ack(0, |_| ())), vec![10_000]);
        assert_eq!(seqs(&h.ack(0, |_| ())), vec![11_000]);
        assert_eq!(h.s.cwnd(), 10 * MSS);
        let out = h.ack(0, |_| ());
        assert_eq!(seqs(&out), vec![0], "fast retransmit");
        assert_eq!(
            h.s.ssthresh(),
            5 * MSS,
            "FlightSize 12 − 2 limited-transmit segments, halved"
        );
        // Off (the default): duplicate ACKs below the threshold send nothing.
        let mut h = Harness::new("newreno", 10, |_| ());
        h.at(100);
        assert!(h.ack(0, |_| ()).is_empty());
    }

    /// ns-2 (`reset_rtx_timer` in `dupack_action`) and Linux restart the
    /// retransmission timer when fast retransmit sends the lost segment.
    #[test]
    fn fast_retransmit_restarts_the_retransmission_timer() {
        let mut h = Harness::new("newreno", 10, |p| p.rtt.init_rto = Time::from_secs(1));
        assert_eq!(h.s.next_wake(), Some(Time::from_secs(1)));
        h.at(400);
        for _ in 0..3 {
            h.ack(0, |_| ());
        }
        assert_eq!(h.s.next_wake(), Some(Time::from_millis(1400)));
    }

    /// Congestion avoidance with delayed ACKs (each ACK covers 2 segments)
    /// from cwnd = 10 MSS. Byte counting (RFC 3465): +1 MSS once a window of
    /// bytes is acknowledged, on the 5th ACK. Per ACK (RFC 5681 eq. 3, ns-2):
    /// MSS²/cwnd on each ACK, 100 B then 99 B, … : +½ segment per window.
    #[test]
    fn byte_counting_and_per_ack_counting_in_congestion_avoidance() {
        let run = |byte_counting: bool| {
            let mut h = Harness::new("newreno", 10, |p| {
                p.init_ssthresh = 10 * MSS;
                p.byte_counting = byte_counting;
            });
            h.at(100);
            (1..=10)
                .map(|n| {
                    h.ack(2 * n * MSS, |_| ());
                    h.s.cwnd()
                })
                .collect::<Vec<u64>>()
        };
        assert_eq!(
            run(true),
            [10_000, 10_000, 10_000, 10_000, 11_000, 11_000, 11_000, 11_000, 11_000, 11_000]
        );
        let per_ack = run(false);
        assert_eq!(per_ack[..3], [10_100, 10_199, 10_297]);
        // Exactly 10⁴ + Σ 10⁶/cwnd = 10 958.6 (the fractions of a byte carried).
        assert_eq!(per_ack[9], 10_958, "≈ +½ segment for 10 segments acknowledged");
    }

    /// The window after recovery (NewReno, dupthresh 3, cwnd 9 MSS halved as
    /// ns-2 does to 4.5 segments, ssthresh 4): `ssthresh` gives 4 segments,
    /// `keep` the 4.5 the loss response left (ns-2.35), `flight` min(ssthresh,
    /// max(FlightSize, MSS) + MSS) = 2 segments, nothing being left in flight.
    /// The full ACK then grows each: by MSS²/cwnd, or by one MSS in slow start
    /// (2 segments < ssthresh).
    #[test]
    fn window_on_leaving_fast_recovery() {
        for (full_ack, expect) in [
            (FullAck::Ssthresh, 4000 + 250),
            (FullAck::Keep, 4500 + 222),
            (FullAck::Flight, 2000 + 1000),
        ] {
            let mut h = Harness::new("newreno", 9, |p| {
                p.init_ssthresh = 5 * MSS;
                p.byte_counting = false;
                p.loss_window = LossWindow::Cwnd;
                p.full_ack = full_ack;
            });
            h.at(100);
            for _ in 0..3 {
                h.ack(0, |_| ());
            }
            assert_eq!((h.s.ssthresh(), h.s.cwnd()), (4000, 4500), "{full_ack:?}");
            h.ack(9000, |_| ());
            assert_eq!(h.s.cwnd(), expect, "{full_ack:?}");
        }
    }

    /// Packet-counted windows (ns-2 `slowdown(CLOSE_SSTHRESH_HALF |
    /// CLOSE_CWND_HALF)`): a loss halves cwnd, 9.111 segments → ssthresh 4
    /// whole segments, cwnd 4.555 (the fraction kept); by FlightSize (RFC 5681),
    /// 9 segments → 4.5 for both.
    #[test]
    fn loss_window_cwnd_is_ns2_packet_counted_halving() {
        for (window, ssthresh, cwnd) in [(LossWindow::Cwnd, 4000, 4555), (LossWindow::Flight, 4500, 4500)] {
            let mut h = Harness::new("newreno", 9, |p| {
                p.init_ssthresh = 5 * MSS;
                p.byte_counting = false;
                p.loss_window = window;
            });
            h.at(100);
            h.ack(1000, |_| ());
            assert_eq!(h.s.cwnd(), 9111, "MSS²/cwnd = 111 B");
            for _ in 0..3 {
                h.ack(1000, |_| ());
            }
            assert_eq!((h.s.ssthresh(), h.s.cwnd()), (ssthresh, cwnd), "{window:?}");
        }
    }

    /// An ACK of `ack` carrying SACK blocks (RFC 2018), most recent first.
    fn with_sack(blocks: &'static [(u64, u64)]) -> impl FnOnce(&mut Packet) {
        move |a: &mut Packet| a.set_sack(blocks)
    }

    /// RFC 6675 §5, one loss: segment 0 of 10 is lost; the third ACK that
    /// SACKs new data enters recovery (RecoveryPoint 10 000, ssthresh = cwnd =
    /// 5 MSS) and retransmits segment 0. pipe = 1000 (the retransmission) +
    /// 6000 (segments 4–9, not lost) = 7000: nothing more until pipe ≤ cwnd −
    /// MSS. Each further SACK takes 1000 off pipe; the third sends segment 10.
    #[test]
    fn rfc6675_one_loss_pipe_and_exit() {
        let mut h = Harness::new("newreno", 10, |p| p.sack = true);
        h.at(100);
        assert!(h.ack(0, with_sack(&[(1000, 2000)])).is_empty());
        assert!(h.ack(0, with_sack(&[(1000, 3000)])).is_empty());
        let out = h.ack(0, with_sack(&[(1000, 4000)]));
        assert_eq!(seqs(&out), vec![0], "retransmit HighACK + 1");
        assert_eq!(h.s.loss_state(), LossState::SackRecovery);
        assert_eq!((h.s.ssthresh(), h.s.cwnd()), (5 * MSS, 5 * MSS));
        assert!(h.ack(0, with_sack(&[(1000, 5000)])).is_empty(), "pipe 6000");
        assert!(h.ack(0, with_sack(&[(1000, 6000)])).is_empty(), "pipe 5000");
        assert_eq!(seqs(&h.ack(0, with_sack(&[(1000, 7000)]))), vec![10_000], "pipe 4000");
        // An ACK with no new SACK information is not a duplicate ACK.
        assert!(h.ack(0, with_sack(&[(1000, 7000)])).is_empty());
        // The retransmission arrives: the cumulative ACK passes RecoveryPoint.
        h.ack(10_000, |_| ());
        assert_eq!(h.s.loss_state(), LossState::Open);
        assert_eq!(h.s.stats.fast_retransmits, 1);
        assert_eq!(h.s.stats.retransmits, 1);
    }

    /// Several losses in one window (0, 3 and 6 of 10) are all retransmitted
    /// within one RTT as IsLost marks them, without waiting for partial ACKs
    /// (NewReno would need three RTTs).
    #[test]
    fn rfc6675_several_losses_repaired_in_one_rtt() {
        let mut h = Harness::new("newreno", 10, |p| p.sack = true);
        h.at(100);
        h.ack(0, with_sack(&[(1000, 2000)]));
        h.ack(0, with_sack(&[(1000, 3000)]));
        h.ack(0, with_sack(&[(4000, 5000), (1000, 3000)]));
        // Segments 1, 2 and 4 SACKed: 3000 B (more than 2·SMSS) above 0.
        assert_eq!(h.s.loss_state(), LossState::SackRecovery);
        h.ack(0, with_sack(&[(4000, 6000), (1000, 3000)]));
        let out = h.ack(0, with_sack(&[(7000, 8000), (4000, 6000), (1000, 3000)]));
        // Segment 3 has 3 ranges / 3000 B SACKed above it: lost, retransmitted.
        assert!(seqs(&out).contains(&3000), "{:?}", seqs(&out));
        h.ack(0, with_sack(&[(7000, 9000), (4000, 6000), (1000, 3000)]));
        let out = h.ack(0, with_sack(&[(7000, 10_000), (4000, 6000), (1000, 3000)]));
        let all: Vec<u64> = h.sent.iter().filter(|p| p.retx).map(|p| p.seq).collect();
        assert_eq!(
            all,
            vec![0, 3000, 6000],
            "each hole once; last ACK sent {:?}",
            seqs(&out)
        );
        assert_eq!(h.s.stats.timeouts, 0);
    }

    /// RFC 6675 §5.1: a timeout during SACK recovery keeps the SACK
    /// information; the retransmissions after it skip SACKed segments.
    #[test]
    fn rfc6675_5_1_timeout_retransmits_only_unsacked() {
        let mut h = Harness::new("newreno", 6, |p| {
            p.sack = true;
            p.rtt.init_rto = Time::from_secs(1);
        });
        h.at(100);
        h.ack(0, with_sack(&[(1000, 2000)]));
        h.ack(0, with_sack(&[(3000, 4000), (1000, 2000)]));
        h.ack(0, with_sack(&[(5000, 6000), (3000, 4000), (1000, 2000)]));
        assert_eq!(h.s.loss_state(), LossState::SackRecovery);
        h.at(1200);
        let out = h.timer();
        assert_eq!(seqs(&out), vec![0], "cwnd = 1 MSS");
        h.at(1300);
        // Segment 0 arrives; cwnd 2: segments 2 and 4 (not 1, 3 or 5).
        let out = h.ack(1000, with_sack(&[(5000, 6000), (3000, 4000), (1000, 2000)]));
        assert_eq!(seqs(&out), vec![2000, 4000]);
        assert!(out.iter().all(|p| p.retx));
    }

    /// Both ends must be willing: without the receiver's SACK blocks the
    /// sender keeps its module's recovery (NewReno here).
    #[test]
    fn sack_needs_both_ends() {
        let v = serde_json::json!({"sack": true, "sack_blocks": 0});
        let mut t = crate::cfg::Tab::new("flows[0]".into(), &v).unwrap();
        let (snd, rcv, _) = super::super::params::read(&mut t).unwrap();
        assert!(!snd.sack && rcv.sack_blocks == 0);
        let v = serde_json::json!({"sack": true});
        let mut t = crate::cfg::Tab::new("flows[0]".into(), &v).unwrap();
        let (snd, rcv, _) = super::super::params::read(&mut t).unwrap();
        assert!(snd.sack && rcv.sack_blocks == 3);
    }

    /// A model-based test algorithm: records what each ACK showed it, sets
    /// cwnd to 100·(echoed load factor) segments per ACK (`cong_control`), and
    /// ignores ECN echoes.
    struct Echo {
        seen: Seen,
    }

    /// (ECE, load field, ce_seen) of each ACK.
    type Seen = std::sync::Arc<std::sync::Mutex<Vec<(bool, Option<u16>, bool)>>>;

    impl CongestionOps for Echo {
        fn name(&self) -> &'static str {
            "echo"
        }
        fn ssthresh(&mut self, s: &CcState) -> u64 {
            s.cwnd / 2
        }
        fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {
            unreachable!("cong_control takes over");
        }
        fn pkts_acked(&mut self, _s: &CcState, a: &AckSample) {
            self.seen
                .lock()
                .unwrap()
                .push((a.ece, a.feedback.load, a.feedback.ce_seen));
        }
        fn cong_control(&mut self, s: &mut CcState, a: &AckSample) -> bool {
            if let Some(f) = a.feedback.load_factor() {
                s.cwnd = (100.0 * f) as u64 * s.mss;
            }
            true
        }
        fn ecn_echo(&mut self, _s: &CcState) -> Option<u64> {
            None
        }
    }

    /// The algorithm sees each ACK's ECN echo and the receiver's feedback
    /// option; `cong_control` sets the window directly; `ecn_echo` returning
    /// `None` overrides RFC 3168's halving (no reduction, no CWR).
    #[test]
    fn feedback_reaches_the_algorithm_which_sets_the_window() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let cc = Box::new(Echo { seen: seen.clone() });
        let mut h = Harness::with_cc(cc, 4, |p| p.ecn = true);
        h.at(50);
        h.ack(1000, |a| a.fb.set_load_factor(0.08));
        assert_eq!(h.s.cwnd(), 8 * MSS);
        let out = h.ack(2000, |a| {
            a.flags |= flags::ECE;
            a.fb.set_load_factor(0.125);
            a.fb.ce_seen = true;
        });
        assert_eq!(h.s.cwnd(), 12 * MSS, "no RFC 3168 halving");
        assert_eq!(h.s.stats.ecn_reductions, 0);
        assert!(out.iter().all(|p| !p.has(flags::CWR)));
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0], (false, Some(1311), false));
        assert_eq!(seen[1], (true, Some(2048), true));
    }

    /// RFC 3168 §6.1.2: an ECN echo halves the window (10 → 5 segments); a
    /// loss in that same window is retransmitted without halving again; a loss
    /// in a later window halves as usual.
    #[test]
    fn rfc3168_ecn_then_loss_in_the_same_window_reduces_once() {
        let mut h = Harness::new("newreno", 10, |p| p.ecn = true);
        h.at(100);
        h.ack(1000, |a| a.flags |= flags::ECE);
        assert_eq!(h.s.stats.ecn_reductions, 1);
        let (ssthresh, cwnd) = (h.s.ssthresh(), h.s.cwnd());
        for _ in 0..3 {
            h.ack(1000, |_| ());
        }
        assert!(h.s.in_recovery());
        assert_eq!(h.s.stats.fast_retransmits, 1);
        assert_eq!((h.s.ssthresh(), h.s.cwnd()), (ssthresh, cwnd), "no second reduction");
    }

    /// RFC 3168 §6.1.2: no window growth on any ACK carrying ECN-Echo, also
    /// after the once-per-window reduction.
    #[test]
    fn rfc3168_no_growth_on_ecn_echo_acks() {
        let mut h = Harness::new("newreno", 10, |p| {
            p.ecn = true;
            p.init_ssthresh = 100 * MSS;
        });
        h.at(100);
        h.ack(1000, |a| a.flags |= flags::ECE);
        let cwnd = h.s.cwnd();
        h.ack(2000, |a| a.flags |= flags::ECE);
        h.ack(3000, |a| a.flags |= flags::ECE);
        assert_eq!(h.s.cwnd(), cwnd, "echoes within the window neither reduce nor grow");
        for k in 4..9 {
            h.ack(k * MSS, |_| ());
        }
        assert_eq!(h.s.cwnd(), cwnd + MSS, "congestion avoidance resumes without the echo");
    }

    /// ns-2 `overhead_`: a window-driven burst waits U(0, send_jitter), then
    /// goes out whole and in order; the draw is deterministic per seed.
    #[test]
    fn send_jitter_delays_bursts_in_order() {
        let mut h = Harness::new("newreno", 3, |p| p.send_jitter = Time::from_millis(10));
        assert!(h.sent.is_empty(), "the first burst waits");
        let t = h.s.next_wake().expect("burst scheduled");
        assert!(t < Time::from_millis(10), "{t}");
        h.now = t;
        let out = h.timer();
        assert_eq!(seqs(&out), vec![0, 1000, 2000]);
        let again = Harness::new("newreno", 3, |p| p.send_jitter = Time::from_millis(10));
        assert_eq!(again.s.next_wake(), Some(t), "same seed, same delay");
    }
}
