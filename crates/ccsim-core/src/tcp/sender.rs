//! The TCP sender machine (byte sequence numbers, one MSS per flow).
//!
//! Implements, with RFC clauses next to the code:
//! * slow start / congestion avoidance through the [`CongestionOps`] plug-in
//!   (RFC 5681 §3.1);
//! * fast retransmit on the `dupthresh`-th duplicate ACK and the three recovery
//!   mechanics of [`Recovery`]: Tahoe, Reno fast recovery (RFC 5681 §3.2) and
//!   NewReno partial ACKs (RFC 6582 §3.2, "careful" entry, impatient timer);
//! * the retransmission timer of RFC 6298 §5 with Karn's rule (one timed
//!   segment at a time, timing abandoned when anything is retransmitted);
//! * ECN reaction of RFC 3168 §6.1.2 (at most once per window, CWR on the next
//!   new segment, retransmissions sent Not-ECT);
//! * the receiver's advertised window (every ACK's window field is honoured; a
//!   shrinking window only stops new transmissions) and a persist probe when
//!   the window is closed with nothing outstanding;
//! * finite or infinite data, completion time.
//!
//! Deviations: no SYN/FIN exchange (as ns-2 one-way TCP); a segment is sent only
//! if it fits entirely in the window (packet-mode behaviour).

use super::rtt::{RttEstimator, RttParams};
use super::{EndpointCtx, INFINITE};
use crate::cc::{AckSample, CaEvent, CcState, CongestionOps, Recovery};
use crate::packet::{flags, Ecn, FlowId, Kind, NodeId, Packet};
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
    /// Bytes to send ([`INFINITE`] for a bulk source).
    pub size: u64,
    /// Negotiate ECN (RFC 3168): data sent ECT(0), reacts to ECE.
    pub ecn: bool,
    /// NewReno full ACK: cwnd = min(ssthresh, FlightSize + MSS) instead of ssthresh
    /// (RFC 6582 §3.2 step 3 option 1; off = ns-2 default).
    pub full_ack_flight: bool,
    /// NewReno: restart the retransmission timer on every partial ACK
    /// ("Slow-but-Steady", RFC 6582 §4; ns-2's default, `newreno_changes1_ 0`)
    /// instead of on the first one only ("Impatient", RFC 6582 §3.2 step 4).
    pub partial_timer_every: bool,
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
            size: INFINITE,
            ecn: false,
            full_ack_flight: false,
            partial_timer_every: false,
        }
    }
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

pub struct TcpSender {
    p: SendParams,
    cc: Box<dyn CongestionOps>,
    recovery: Recovery,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    cwnd: u64,
    ssthresh: u64,
    cwnd_cnt: u64,
    rwnd: u64,
    dupacks: u32,
    in_recovery: bool,
    recover: Option<u64>,
    partial_seen: bool,
    rtt: RttEstimator,
    timed: Option<(u64, Time)>,
    rto_at: Option<Time>,
    ecn_recover: Option<u64>,
    cwr_pending: bool,
    started: bool,
    completed: Option<Time>,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(p: SendParams, cc: Box<dyn CongestionOps>, flow: FlowId, src: NodeId, dst: NodeId) -> Self {
        let recovery = cc.recovery();
        let mss = p.mss as u64;
        TcpSender {
            cwnd: p.init_cwnd.max(1) as u64 * mss,
            ssthresh: p.init_ssthresh,
            rtt: RttEstimator::new(p.rtt.clone()),
            p,
            cc,
            recovery,
            flow,
            src,
            dst,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd_cnt: 0,
            rwnd: INFINITE,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            partial_seen: false,
            timed: None,
            rto_at: None,
            ecn_recover: None,
            cwr_pending: false,
            started: false,
            completed: None,
            stats: SenderStats::default(),
        }
    }

    fn mss(&self) -> u64 {
        self.p.mss as u64
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
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
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
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
    /// Time of the pending retransmission (or persist) timer.
    pub fn next_wake(&self) -> Option<Time> {
        self.rto_at
    }

    fn state(&self, now: Time) -> CcState {
        CcState {
            now,
            mss: self.mss(),
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            flight: self.snd_max - self.snd_una,
            cwnd_cnt: self.cwnd_cnt,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
        }
    }

    fn apply(&mut self, s: &CcState) {
        self.cwnd = s.cwnd.max(self.mss());
        self.ssthresh = s.ssthresh;
        self.cwnd_cnt = s.cwnd_cnt;
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
        let mut p = Packet::new(
            0,
            self.flow,
            self.src,
            self.dst,
            len + self.p.header,
            Kind::Data,
            cx.now,
        );
        p.seq = seq;
        p.len = len;
        p.retx = retx;
        p.flags = flags::ACK;
        if self.p.ecn && !retx {
            p.ecn = Ecn::Ect0;
            if self.cwr_pending {
                p.flags |= flags::CWR;
                self.cwr_pending = false;
            }
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retx {
            self.stats.retransmits += 1;
            // Karn: abandon the measurement once anything is retransmitted.
            self.timed = None;
        } else if self.timed.is_none() {
            self.timed = Some((seq + len as u64, cx.now));
        }
        cx.out.push(p);
        // RFC 6298 §5.1: start the timer when sending data if it is not running.
        if self.rto_at.is_none() {
            self.arm_rto(cx.now);
        }
    }

    /// Sends whatever the window allows.
    fn try_send(&mut self, cx: &mut EndpointCtx) {
        if !self.started || self.completed.is_some() {
            return;
        }
        let wnd = self.cwnd.min(self.rwnd);
        let limit = self.snd_una.saturating_add(wnd);
        while self.snd_nxt < self.p.size {
            let len = (self.p.size - self.snd_nxt).min(self.mss());
            if self.snd_nxt + len > limit {
                break;
            }
            let seq = self.snd_nxt;
            self.emit(cx, seq, seq < self.snd_max);
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
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
        if pkt.ack > self.snd_una {
            self.on_new_ack(pkt.ack.min(self.snd_max), ece, cx);
            if self.completed.is_some() {
                return;
            }
        } else if pkt.ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack(cx);
        }
        self.try_send(cx);
    }

    fn on_new_ack(&mut self, ack: u64, ece: bool, cx: &mut EndpointCtx) {
        let now = cx.now;
        let acked = ack - self.snd_una;
        let mut rtt = None;
        if let Some((end, t0)) = self.timed {
            if ack >= end {
                let r = now - t0;
                self.rtt.sample(r);
                rtt = Some(r);
                self.timed = None;
            }
        }
        self.snd_una = ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        self.dupacks = 0;
        let sample = AckSample {
            acked,
            dup: false,
            rtt,
            in_recovery: self.in_recovery,
        };
        let st = self.state(now);
        self.cc.pkts_acked(&st, &sample);

        let mut restart_timer = true;
        if self.in_recovery {
            let full = self.recover.is_none_or(|r| ack >= r);
            if full || self.recovery == Recovery::Reno {
                // RFC 6582 §3.2 step 3 (full ACK) / RFC 5681 §3.2 step 6: deflate.
                self.cwnd = if self.p.full_ack_flight {
                    self.ssthresh
                        .min((self.snd_max - self.snd_una).max(self.mss()) + self.mss())
                } else {
                    self.ssthresh
                };
                self.in_recovery = false;
                self.cwnd_cnt = 0;
                let mut st = self.state(now);
                self.cc.cwnd_event(&mut st, CaEvent::ExitRecovery);
                self.apply(&st);
            } else {
                // RFC 6582 §3.2 step 4 (partial ACK): retransmit the first
                // unacknowledged segment, deflate by the amount acked, add back
                // one MSS if that amount was at least one MSS.
                let una = self.snd_una;
                self.emit(cx, una, true);
                self.cwnd = self.cwnd.saturating_sub(acked);
                if acked >= self.mss() {
                    self.cwnd += self.mss();
                }
                self.cwnd = self.cwnd.max(self.mss());
                // Reset the timer on the first partial ACK only ("Impatient"),
                // or on each ("Slow-but-Steady").
                restart_timer = !self.partial_seen || self.p.partial_timer_every;
                self.partial_seen = true;
            }
        } else if ece && self.ecn_recover.is_none_or(|r| ack > r) {
            self.ecn_reduce(now);
        } else {
            let mut st = self.state(now);
            self.cc.cong_avoid(&mut st, acked);
            self.apply(&st);
        }

        if self.snd_una >= self.p.size {
            self.completed = Some(now);
            self.rto_at = None;
            return;
        }
        // RFC 6298 §5.2 / §5.3.
        if self.snd_una >= self.snd_max {
            self.rto_at = None;
        } else if restart_timer {
            self.arm_rto(now);
        }
    }

    /// RFC 3168 §6.1.2: halve once per window, no retransmission, CWR next.
    fn ecn_reduce(&mut self, now: Time) {
        let st = self.state(now);
        self.ssthresh = self.cc.ssthresh(&st);
        self.cwnd = self.ssthresh.max(self.mss());
        self.cwnd_cnt = 0;
        self.ecn_recover = Some(self.snd_max);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
        let mut st = self.state(now);
        self.cc.cwnd_event(&mut st, CaEvent::EcnReduce);
        self.apply(&st);
    }

    fn on_dupack(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.dupacks += 1;
        let sample = AckSample {
            acked: 0,
            dup: true,
            rtt: None,
            in_recovery: self.in_recovery,
        };
        let st = self.state(now);
        self.cc.pkts_acked(&st, &sample);
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate by one segment per further dupack.
            self.cwnd += self.mss();
            return;
        }
        if self.dupacks != self.p.dupthresh {
            return;
        }
        // RFC 6582 §3.2 step 1 ("careful" variant, also used for Tahoe): no new
        // fast retransmit until the ACK covers more than `recover`.
        if self.recovery != Recovery::Reno && self.recover.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        self.stats.fast_retransmits += 1;
        let st = self.state(now);
        self.ssthresh = self.cc.ssthresh(&st);
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.cwnd_cnt = 0;
        match self.recovery {
            Recovery::Tahoe => {
                // Tahoe: loss window of one segment, go back to snd_una.
                self.cwnd = self.mss();
                self.snd_nxt = self.snd_una;
                self.timed = None;
                let mut st = self.state(now);
                self.cc.cwnd_event(&mut st, CaEvent::EnterRecovery);
                self.apply(&st);
            }
            Recovery::Reno | Recovery::NewReno => {
                // RFC 5681 §3.2 steps 2–3: retransmit, cwnd = ssthresh + 3·SMSS.
                let una = self.snd_una;
                self.emit(cx, una, true);
                self.in_recovery = true;
                self.partial_seen = false;
                let mut st = self.state(now);
                st.cwnd = self.ssthresh;
                self.cc.cwnd_event(&mut st, CaEvent::EnterRecovery);
                self.apply(&st);
                self.cwnd = self.ssthresh + self.p.dupthresh as u64 * self.mss();
            }
        }
    }

    /// The retransmission (or persist) timer fired at `cx.now`.
    pub fn on_timer(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
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
            if self.snd_nxt < self.p.size {
                let seq = self.snd_nxt;
                let len = (self.p.size - seq).min(self.mss());
                self.emit(cx, seq, false);
                self.snd_nxt += len;
                self.snd_max = self.snd_max.max(self.snd_nxt);
            }
            return;
        }
        // RFC 6298 §5.4–5.7 and RFC 5681 §3.1 eq. 4: ssthresh from FlightSize,
        // loss window of one segment, back off, go back to snd_una.
        self.stats.timeouts += 1;
        let st = self.state(now);
        self.ssthresh = self.cc.ssthresh_timeout(&st);
        self.cwnd = self.mss();
        self.cwnd_cnt = 0;
        self.in_recovery = false;
        self.dupacks = 0;
        // RFC 6582 §4: after a timeout, recover = highest sequence sent.
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.snd_nxt = self.snd_una;
        self.timed = None;
        self.rtt.back_off();
        let mut st = self.state(now);
        self.cc.cwnd_event(&mut st, CaEvent::Timeout);
        self.apply(&st);
        self.try_send(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::by_name;

    const MSS: u64 = 1000;

    struct Harness {
        s: TcpSender,
        now: Time,
        sent: Vec<Packet>,
    }

    impl Harness {
        fn new(cc: &str, init_cwnd: u32, p: impl FnOnce(&mut SendParams)) -> Harness {
            let mut params = SendParams {
                mss: MSS as u32,
                init_cwnd,
                ..SendParams::default()
            };
            p(&mut params);
            let mut s = TcpSender::new(params, by_name(cc).unwrap(), FlowId(0), NodeId(0), NodeId(1));
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
        assert_eq!(h.s.cwnd(), 8 * MSS, "ssthresh + 3 MSS");
        // Further dupacks inflate by one MSS; the 11th segment goes out when cwnd allows.
        h.ack(0, |_| ());
        h.ack(0, |_| ());
        let out = h.ack(0, |_| ());
        assert_eq!(h.s.cwnd(), 11 * MSS);
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
        let cwnd_before = h.s.cwnd();
        let out = h.ack(5000, |_| ());
        assert_eq!(out.first().map(|p| p.seq), Some(5000));
        assert!(out[0].retx);
        assert!(h.s.in_recovery());
        assert_eq!(h.s.cwnd(), cwnd_before - 3000 + MSS);
        // Full ACK: exit with cwnd = ssthresh.
        h.ack(recover, |_| ());
        assert!(!h.s.in_recovery());
        assert_eq!(h.s.cwnd(), h.s.ssthresh());
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

    #[test]
    fn finite_transfer_completes() {
        let mut h = Harness::new("newreno", 4, |p| p.size = 2500);
        assert_eq!(h.sent.iter().map(|p| p.len).collect::<Vec<_>>(), vec![1000, 1000, 500]);
        h.at(80);
        h.ack(2500, |_| ());
        assert_eq!(h.s.completed(), Some(Time::from_millis(80)));
        assert_eq!(h.s.next_wake(), None);
    }
}
