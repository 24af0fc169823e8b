//! The loss-recovery state machine (the transitions of [`LossState`], see the
//! diagram in the parent module): duplicate ACKs and RFC 3042 limited
//! transmit; fast retransmit and fast recovery (RFC 5681 §3.2), Tahoe's
//! go-back-N, NewReno's partial ACKs and `recover` (RFC 6582 §3.2, §4); SACK
//! recovery with pipe and NextSeg() (RFC 6675 §5, §5.1 after a timeout); the
//! window reductions for loss and for ECN echoes, once per window of data
//! (RFC 5681 eq. 4; RFC 3168 §6.1.2; ns-2 `slowdown`); and the response to a
//! retransmission timeout (RFC 6298 §5.4–5.7, RFC 5681 §3.1; Linux
//! `tcp_enter_loss`).

use super::{FullAck, LossState, LossWindow, Prr, RtoSsthresh, TcpSender};
use crate::cc::{AckSample, CaEvent, CcState, Recovery};
use crate::packet::Feedback;
use crate::tcp::scoreboard::NextSeg;
use crate::tcp::EndpointCtx;
use crate::units::Time;

impl TcpSender {
    /// Whether transmissions follow RFC 6675's pipe and NextSeg() (a SACK
    /// recovery, or the retransmissions after a timeout with SACK).
    pub(super) fn sack_driven(&self) -> bool {
        self.board.is_some() && matches!(self.state, LossState::SackRecovery | LossState::Loss { .. })
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 SMSS, send NextSeg().
    /// After a timeout every un-SACKed byte below the recovery point counts
    /// as lost (§5.1) and no rescue retransmission is made.
    pub(super) fn sack_send(&mut self, cx: &mut EndpointCtx) {
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
            if self.paced_out(cx.now) {
                return;
            }
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

    /// RFC 6582 §3.2 step 3 (full ACK) / RFC 5681 §3.2 step 6: deflate and leave.
    pub(super) fn exit_fast_recovery(&mut self, now: Time) {
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
    /// first, then cwnd, as ns-2's `partialnewack` (`dupwnd_` and `cwnd_`):
    /// while the inflation exceeds the amount acked it alone shrinks (and
    /// takes the MSS back); otherwise cwnd loses the rest (at least one MSS
    /// left) and the inflation is the MSS added back (ns-2 `dupwnd_ = 1`).
    /// The window in use is the RFC's either way (unless cwnd reaches its floor
    /// of one MSS); the split shows in cwnd
    /// when recovery ends with `full_ack = "keep"` (the MSS of inflation goes,
    /// as `dupwnd_ = 0` does in ns-2) and in what a timeout during recovery
    /// halves.
    pub(super) fn partial_ack(&mut self, cx: &mut EndpointCtx, acked: u64, inflation: u64) {
        let una = self.snd_una;
        self.emit(cx, una, true);
        let back = if acked >= self.mss() { self.mss() } else { 0 };
        let inflation = if inflation > acked {
            inflation - acked + back
        } else {
            self.cwnd = (self.cwnd + inflation).saturating_sub(acked).max(self.mss());
            back
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
            LossWindow::Pipe => match &self.board {
                Some(b) => b.pipe(
                    self.snd_una,
                    self.snd_max,
                    b.lost_boundary(self.snd_una, self.p.dupthresh, self.mss()),
                ),
                None => st.flight.saturating_sub(self.dupacks as u64 * self.mss()),
            },
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
            LossWindow::Flight | LossWindow::Pipe => {
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
    /// ssthresh stay as they are; unless the algorithm reduces again
    /// (`loss_after_ecn_reduces`: DCTCP, RFC 8257 §3.5).
    fn loss_reduction(&mut self, now: Time) -> u64 {
        let echoed = self.ecn_reduced.take().is_some_and(|r| self.snd_una <= r);
        if echoed && !self.loss_after_ecn {
            return self.cwnd;
        }
        let st = self.loss_state_for(now);
        let w = self.cc.ssthresh(&st);
        self.set_ssthresh(w)
    }

    /// RFC 3168 §6.1.2: reduce once per window as the algorithm says (by
    /// default as for a loss), no retransmission, CWR on the next segment.
    pub(super) fn ecn_reduce(&mut self, now: Time) {
        let st = self.loss_state_for(now);
        let Some(w) = self.cc.ecn_echo(&st) else { return };
        let reduced = self.set_ssthresh(w).max(self.mss());
        // With PRR cwnd falls to ssthresh over the round trip ([`Self::prr_ack`]).
        self.begin_prr();
        if self.prr.is_none() {
            self.cwnd = reduced;
        }
        self.ecn_reduced = Some(self.snd_max);
        self.cwnd_cnt = 0;
        self.ecn_recover = Some(self.snd_max);
        self.cwr_pending = true;
        if self.p.cwr_hold || self.p.prr {
            self.cwr_until = Some(self.snd_max);
        }
        self.stats.ecn_reductions += 1;
        self.ca_event(now, CaEvent::EcnReduce);
    }

    pub(super) fn on_dupack(&mut self, ece: bool, fb: Feedback, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.dupacks += 1;
        self.observe(now, |s| AckSample {
            acked: 0,
            dup: true,
            rtt: None,
            in_recovery: s.in_recovery(),
            ece,
            feedback: fb,
            stamp: s.echoed,
            rate: s.rate_sample(now),
            hold: s.hold,
        });
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
        self.rearm_rto_at_fast_retransmit(now);
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

    /// The retransmission timer restarts with a fast retransmit (ns-2
    /// `reset_rtx_timer` in `dupack_action`; Linux re-arms it when the head
    /// segment is retransmitted), giving the recovery a full RTO; with
    /// `rearm_rto` off (ns-3) it runs on from the last new ACK.
    fn rearm_rto_at_fast_retransmit(&mut self, now: Time) {
        if self.p.rearm_rto {
            self.arm_rto(now);
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
        self.begin_prr();
        self.cwnd = w.max(self.mss());
        self.rearm_rto_at_fast_retransmit(now);
        self.timed = None;
        let una = self.snd_una;
        let len = (self.p.size - una).min(self.mss());
        self.board.as_mut().expect("SACK in use").begin_recovery(una + len);
        // The fast retransmit goes whatever PRR allows (RFC 6937 §3: "at
        // least one segment"), and counts in prr_out.
        self.emit(cx, una, true);
        self.state = LossState::SackRecovery;
        self.ca_event(now, CaEvent::EnterRecovery);
    }

    /// PRR (RFC 9937 §3, which obsoletes RFC 6937; Linux
    /// `tcp_cwnd_reduction`) on an ACK that delivered `delivered` bytes (the
    /// change in snd.una plus the change in SACKed bytes) during a
    /// reduction: cwnd = pipe + sndcnt, sndcnt = ⌈prr_delivered · ssthresh /
    /// RecoverFS⌉ − prr_out while pipe > ssthresh; else the conservative
    /// bound max(prr_delivered − prr_out, DeliveredData), one segment more
    /// when `one_more` (by `prr_bound`: RFC 9937's safe ACK, one that advanced
    /// snd.una and marked nothing newly lost, where the recovery is making
    /// progress and may grow toward ssthresh as slow start), and at most
    /// ssthresh − pipe. An ACK that delivers nothing changes nothing.
    pub(super) fn prr_ack(&mut self, delivered: u64, one_more: bool) {
        let Some(mut prr) = self.prr else { return };
        if delivered == 0 {
            return;
        }
        prr.delivered += delivered;
        let pipe = self.pipe();
        let sndcnt = if pipe > self.ssthresh {
            let share = (prr.delivered as u128 * self.ssthresh as u128).div_ceil(prr.recover_fs as u128);
            (share as u64).saturating_sub(prr.out)
        } else {
            let mut limit = prr.delivered.saturating_sub(prr.out).max(delivered);
            if one_more {
                limit += self.mss();
            }
            (self.ssthresh - pipe).min(limit)
        };
        self.cwnd = (pipe + sndcnt).max(self.mss());
        self.prr = Some(prr);
    }

    /// With `prr`, a reduction begins now: RecoverFS is FlightSize (RFC 9937
    /// §3). Not for a module that sets the window itself (BBR).
    fn begin_prr(&mut self) {
        self.prr = (self.p.prr && !self.cc_window).then_some(Prr {
            recover_fs: (self.snd_max - self.snd_una).max(1),
            delivered: 0,
            out: 0,
        });
    }

    /// The end of a reduction (recovery left, the CWR round trip over):
    /// cwnd = ssthresh (RFC 6937 §3, Linux `tcp_end_cwnd_reduction`).
    pub(super) fn end_prr(&mut self) {
        if self.prr.take().is_some() {
            self.cwnd = self.ssthresh.max(self.mss());
        }
    }

    /// RFC 6298 §5.4–5.7 and RFC 5681 §3.1: loss window of one segment, back
    /// off, go back to snd_una; ssthresh as described in the module docs.
    pub(super) fn on_rto(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.stats.timeouts += 1;
        self.prr = None;
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
            RtoSsthresh::ExceptInLoss if !matches!(self.state, LossState::Loss { .. }) => {
                let st = self.loss_state_for(now);
                let w = self.cc.ssthresh_timeout(&st);
                self.set_ssthresh(w);
            }
            RtoSsthresh::ExceptInLoss => {}
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
