//! ACK processing: the receiver's window and SACK blocks (RFC 6675 Update()),
//! RTT samples (one timed segment with Karn's rule, RFC 6298 §3, or the
//! timestamp echo of every new ACK, RFC 7323 §4.1), the cumulative ACK and
//! what it does in each [`LossState`] (leaving fast recovery on a full ACK,
//! RFC 6582 §3.2 step 3 / RFC 5681 §3.2 step 6, or a partial ACK, step 4;
//! leaving SACK recovery, RFC 6675 step (A); go-back-N after a timeout), no
//! growth on ECN-Echo ACKs (RFC 3168 §6.1.2), window growth through the
//! congestion-control module (RFC 5681 §3.1, RFC 3465) and the timer restart
//! of RFC 6298 §5.2–5.3.

use super::{LossState, PrrBound, TcpSender};
use crate::cc::{AckSample, CaEvent, Recovery};
use crate::packet::{flags, Feedback, Packet};
use crate::tcp::EndpointCtx;
use crate::units::Time;

impl TcpSender {
    /// Processes an ACK from the receiver.
    pub fn on_ack(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if self.completed.is_some() || !self.started {
            return;
        }
        if !self.established {
            if pkt.has(flags::SYN) {
                self.on_syn_ack(cx);
            }
            return;
        }
        self.rwnd = pkt.wnd();
        let ece = self.p.ecn && pkt.has(flags::ECE);
        let una = pkt.ack.min(self.snd_max).max(self.snd_una);
        let advanced = pkt.ack > self.snd_una;
        let Sacked {
            delivered,
            newly_sacked,
            newly_lost,
            retx_acked,
        } = if self.board.is_some() {
            self.sack_update(pkt, una, cx.now)
        } else {
            if let Some(rate) = self.rate.as_deref_mut() {
                if advanced {
                    rate.on_cum_ack(una, cx.now);
                } else if pkt.ack == self.snd_una && self.snd_max > self.snd_una {
                    rate.on_dupack(cx.now);
                }
            }
            // RFC 9937 DeliveredData without SACK: the cumulative ACK's advance.
            Sacked {
                delivered: una - self.snd_una,
                ..Sacked::default()
            }
        };
        self.echoed = pkt.stamp;
        if self.p.ack_hold {
            self.hold = pkt.ts_val.saturating_sub(pkt.ts_ecr);
        }
        if pkt.ack > self.snd_una {
            let echo = self.p.rtt_timestamps.then_some(pkt.ts_ecr);
            self.on_new_ack(pkt.ack.min(self.snd_max), delivered, ece, pkt.fb, echo, cx);
            if self.completed.is_some() {
                return;
            }
        } else if pkt.ack == self.snd_una && self.snd_max > self.snd_una {
            // With SACK, a duplicate ACK is one that SACKs new data (RFC 6675 §2).
            if self.board.is_none() || newly_sacked > 0 {
                self.on_dupack(ece, pkt.fb, cx);
            }
        }
        if self.prr.is_some() {
            let one_more = match self.p.prr_bound {
                PrrBound::SafeAck => advanced && newly_lost == 0,
                PrrBound::Retransmitted => retx_acked,
                PrrBound::SlowStart => true,
            };
            self.prr_ack(delivered, one_more);
        }
        // An ACK that was neither new nor duplicate leaves no sample behind.
        if let Some(rate) = self.rate.as_deref_mut() {
            rate.sample(cx.now, None);
        }
        self.update_pacing_rate();
        self.try_send(cx);
    }

    /// RFC 6675 Update() with the ACK's SACK blocks, and what it tells the
    /// rest of the ACK's processing (SACK in use).
    fn sack_update(&mut self, pkt: &Packet, una: u64, now: Time) -> Sacked {
        let Some(b) = self.board.as_mut() else {
            unreachable!("called with a scoreboard")
        };
        let blocks = pkt.sack_blocks();
        let advanced = pkt.ack > self.snd_una;
        if let Some(rate) = self.rate.as_deref_mut() {
            // Delivery-rate estimation (§3.3): the segments these blocks
            // newly SACK are delivered (before the scoreboard records them).
            for &(s, e) in blocks.iter() {
                b.each_unsacked(s.max(una), e.min(self.snd_max), |s, e| rate.on_sacked(s, e, now));
            }
            if advanced {
                rate.on_cum_ack(una, now);
            }
        }
        // For PRR's extra segment (`prr_bound`): RFC 9937's safe ACK advances
        // snd.una and marks nothing newly lost (IsLost moves its boundary past
        // no hole it had not passed); ns-3's acknowledges retransmitted data.
        let retx_acked = advanced && self.snd_una < b.high_rxt();
        let (dupthresh, mss) = (self.p.dupthresh, self.p.mss as u64);
        let lost_before = b.lost_boundary(self.snd_una, dupthresh, mss);
        let sacked_before = b.sacked_bytes();
        let newly_sacked = b.update(una, &blocks);
        // The bytes this ACK marks newly lost: the un-SACKed ones its SACK
        // information moved below the lost boundary (the rate sample's `lost`,
        // Linux `rs->losses`; PRR's safe ACK marks none).
        let mut newly_lost = 0;
        let to = b.lost_boundary(una, dupthresh, mss);
        b.each_unsacked(lost_before.max(una), to, |s, e| newly_lost += e - s);
        if let Some(rate) = self.rate.as_deref_mut() {
            rate.on_lost(newly_lost);
        }
        // RFC 9937 DeliveredData: the change in snd.una plus the change in
        // SACKed bytes.
        let delivered = (una - self.snd_una + b.sacked_bytes()).saturating_sub(sacked_before);
        Sacked {
            delivered,
            newly_sacked,
            newly_lost,
            retx_acked,
        }
    }

    /// A cumulative ACK of new data up to `ack`, which delivered `delivered`
    /// bytes (RFC 9937 DeliveredData); `echo`: its timestamp echo, when RTT
    /// samples come from timestamps.
    fn on_new_ack(
        &mut self,
        ack: u64,
        delivered: u64,
        ece: bool,
        fb: Feedback,
        echo: Option<Time>,
        cx: &mut EndpointCtx,
    ) {
        let now = cx.now;
        let acked = ack - self.snd_una;
        // What the window grows by: the bytes cumulatively acknowledged, or,
        // for a module that counts them itself, those this ACK delivered
        // (Linux's `acked_sacked`: SACKed data counts once, when SACKed).
        let grown = if self.cc_counts { delivered } else { acked };
        let rtt = self.sample_rtt(ack, echo, now);
        self.snd_una = ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        self.dupacks = 0;
        self.limited_bytes = 0;
        let controlled = self.observe(now, |s| AckSample {
            acked,
            dup: false,
            rtt,
            in_recovery: s.in_recovery(),
            ece,
            feedback: fb,
            stamp: s.echoed,
            rate: s.rate_sample(now),
            hold: s.hold,
        });

        let restart_timer = self.new_ack_in_loss_state(cx, ack, acked, grown, ece, controlled);

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

    /// The RTT sample of a new cumulative ACK up to `ack` (before snd.una
    /// moves): from its timestamp `echo`, or from the timed segment once the
    /// ACK covers it; fed to the estimator.
    fn sample_rtt(&mut self, ack: u64, echo: Option<Time>, now: Time) -> Option<Time> {
        if let Some(t0) = echo.filter(|&t| t <= now) {
            // RFC 7323 §4.1: every ACK that acknowledges new data gives a
            // sample; the echo of a retransmission times that retransmission.
            // Appendix G (`rtt_gains = "rfc7323"`): one of ExpectedSamples.
            let expected = if self.p.rtt_scaled_gains {
                (self.snd_max - self.snd_una).div_ceil(2 * self.mss())
            } else {
                1
            };
            self.rtt.sample_weighted(t0, now, expected);
            return Some(now - t0);
        } else if let Some((_, end, t0)) = self.timed {
            if ack >= end {
                self.rtt.sample(t0, now);
                self.timed = None;
                return Some(now - t0);
            }
        }
        None
    }

    /// What a new cumulative ACK up to `ack` (`acked` bytes, the window to
    /// grow by `grown` unless the module set it itself, `controlled`) does in
    /// each loss state: ends or continues a recovery, grows the window, or
    /// reduces it on an ECN echo. Returns whether the retransmission timer
    /// restarts (a partial ACK may leave it running).
    fn new_ack_in_loss_state(
        &mut self,
        cx: &mut EndpointCtx,
        ack: u64,
        acked: u64,
        grown: u64,
        ece: bool,
        controlled: bool,
    ) -> bool {
        let now = cx.now;
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
                        self.grow(now, grown);
                    }
                } else {
                    restart_timer = !partial_seen || self.p.partial_timer_every;
                    self.partial_ack(cx, acked, inflation);
                }
            }
            LossState::SackRecovery => {
                if full {
                    // RFC 6675 step (A): the recovery ends; cwnd stays at
                    // ssthresh (set on entry, or where PRR ends), and this
                    // ACK grows it.
                    self.end_prr();
                    self.state = LossState::Open;
                    self.cwnd_cnt = 0;
                    self.ca_event(now, CaEvent::ExitRecovery);
                    if !controlled {
                        self.grow(now, grown);
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
                if full {
                    self.ca_event(now, CaEvent::ExitLoss);
                }
                if !controlled {
                    self.grow(now, grown);
                }
            }
            LossState::Open => {
                // `cwr_hold`: no growth in the round trip after an ECN reduction.
                let held = self.cwr_until.is_some_and(|r| ack <= r);
                if !held {
                    self.cwr_until = None;
                    self.end_prr();
                }
                if ece && self.ecn_recover.is_none_or(|r| ack > r) {
                    self.ecn_reduce(now);
                } else if !controlled && !held && (!ece || self.grow_on_ece) {
                    // RFC 3168 §6.1.2: "The sender SHOULD NOT increase the
                    // congestion window in response to the receipt of an
                    // ECN-Echo ACK packet" (ns-2 `recv_newack_helper` too).
                    self.grow(now, grown);
                }
            }
        }
        restart_timer
    }

    /// Shows the ACK (its `sample`, built only here) to the algorithm
    /// (`pkts_acked`, then `cong_control`) if it has these hooks; returns
    /// whether it set the window itself.
    pub(super) fn observe(&mut self, now: Time, sample: impl FnOnce(&mut Self) -> AckSample) -> bool {
        if !self.per_ack_hooks {
            return false;
        }
        let sample = &sample(self);
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
        let acked = if self.p.byte_counting || self.cc_counts {
            acked
        } else {
            acked.min(self.mss())
        };
        let mut st = self.state(now);
        self.cc.cong_avoid(&mut st, acked);
        self.apply(&st);
    }
}

/// What an ACK's SACK information changed ([`TcpSender::sack_update`]).
#[derive(Default)]
struct Sacked {
    /// RFC 9937 DeliveredData.
    delivered: u64,
    /// Bytes newly SACKed (0 without SACK).
    newly_sacked: u64,
    /// Bytes newly marked lost.
    newly_lost: u64,
    /// The cumulative ACK acknowledges retransmitted data.
    retx_acked: bool,
}
