//! The sender's transmissions and timers: segments put on the wire (ECT(0)
//! or Not-ECT and CWR, RFC 3168 §6.1.2 and §6.1.5), the timed segment and
//! Karn's rule (RFC 6298 §3), the window-driven sending loop with ns-2's
//! `overhead_` jitter (`send_jitter`; Floyd & Jacobson 1992), the
//! retransmission timer (RFC 6298 §5) and the persist probe of a closed
//! receiver window. What a timeout does to the window is the loss-recovery
//! state machine's (`recovery.rs`, `on_rto`).

use super::{SendLimit, TcpSender};
use crate::packet::{flags, Packet};
use crate::tcp::EndpointCtx;
use crate::units::Time;

impl TcpSender {
    pub(super) fn arm_rto(&mut self, now: Time) {
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Starts transmitting (the flow's start time has come): the SYN with
    /// `handshake`, else data.
    pub fn start(&mut self, cx: &mut EndpointCtx) {
        self.started = true;
        if !self.established {
            self.syn_sent = Some(cx.now);
            self.send_syn(cx);
            return;
        }
        self.try_send(cx);
    }

    /// The SYN (header only, Not-ECT: RFC 3168 §6.1.1), under the
    /// retransmission timer.
    fn send_syn(&mut self, cx: &mut EndpointCtx) {
        let mut p = Packet::segment(self.flow, self.src, self.dst, 0, 0, self.p.header, cx.now);
        p.flags = flags::SYN;
        cx.out.push(p);
        self.arm_rto(cx.now);
    }

    /// The SYN-ACK: the connection is open and data may go. Its round trip
    /// is the first RTT sample unless the SYN was sent again; then RFC 6298
    /// §5.7 starts data with a 3-s RTO (if the RTO was below) and RFC 5681
    /// §3.1 with a one-segment window.
    pub(super) fn on_syn_ack(&mut self, cx: &mut EndpointCtx) {
        self.established = true;
        self.rto_at = None;
        match self.syn_sent {
            Some(t) => self.rtt.sample(t, cx.now),
            None => {
                self.rtt.restart(Time::from_secs(3));
                self.cwnd = self.mss();
            }
        }
        self.try_send(cx);
    }

    pub(super) fn emit(&mut self, cx: &mut EndpointCtx, seq: u64, retx: bool) {
        let len = (self.p.size - seq).min(self.mss()) as u32;
        let mut p = Packet::segment(self.flow, self.src, self.dst, seq, len, self.p.header, cx.now);
        p.retx = retx;
        p.stamp = self.stamp;
        if self.p.ecn && (!retx || self.p.ect_retransmissions) {
            p.ecn = self.p.ect;
        }
        if self.p.ecn && !retx && self.cwr_pending {
            p.flags |= flags::CWR;
            self.cwr_pending = false;
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if let Some(prr) = self.prr.as_mut() {
            prr.out += len as u64;
        }
        // Delivery-rate snapshot (draft-cheng-iccrg-delivery-rate-estimation §3.2).
        if let Some(rate) = self.rate.as_deref_mut() {
            rate.on_send(seq, len as u64, cx.now, self.snd_max - self.snd_una, retx);
        }
        // Pacing (Linux `tcp_update_skb_after_send`): the next departure is
        // len/rate after this one, or after now if the sender was idle.
        if self.pacing_rate > 0 {
            let gap = len as u128 * 1_000_000_000 / self.pacing_rate as u128;
            self.next_send = self.next_send.max(cx.now) + Time::from_nanos(gap as u64);
        }
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
    pub(super) fn next_fits(&self, limit: u64) -> Option<u64> {
        let len = (self.p.size - self.snd_nxt).min(self.mss());
        (self.snd_nxt < self.p.size && self.snd_nxt + len <= limit).then_some(len)
    }

    /// Sends the segment at `snd_nxt` (new data, or go-back-N retransmission).
    pub(super) fn send_next(&mut self, cx: &mut EndpointCtx, len: u64) {
        let seq = self.snd_nxt;
        self.emit(cx, seq, seq < self.snd_max);
        self.snd_nxt += len;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    /// Whether pacing lets a segment leave now; if not, the sending timer is
    /// set for the next departure (one pending wakeup per flow, as Linux's
    /// pacing hrtimer).
    pub(super) fn paced_out(&mut self, now: Time) -> bool {
        if self.pacing_rate == 0 || self.next_send <= now {
            return false;
        }
        self.send_at = Some(self.next_send);
        true
    }

    /// §3.4 of the delivery-rate draft: nothing left to send and room in the
    /// window marks an application-limited phase.
    pub(super) fn check_app_limited(&mut self) {
        if self.rate.is_some() && self.snd_max >= self.p.size && self.snd_max - self.snd_una < self.window() {
            let pipe = self.pipe();
            if let Some(rate) = self.rate.as_deref_mut() {
                rate.mark_app_limited(pipe);
            }
        }
    }

    /// Sends whatever the window allows, now or after the jitter delay.
    pub(super) fn try_send(&mut self, cx: &mut EndpointCtx) {
        if !self.started || !self.established || self.completed.is_some() {
            return;
        }
        if self.sack_driven() {
            // ACK-clocked recovery transmissions are not delayed (as ns-2's).
            self.sack_send(cx);
            return;
        }
        if self.p.send_jitter > Time::ZERO && self.pacing_rate == 0 {
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

    fn send_window(&mut self, cx: &mut EndpointCtx) {
        if self.sack_driven() {
            self.sack_send(cx);
            return;
        }
        let limit = match (&self.board, self.p.send_limit) {
            (Some(b), SendLimit::Pipe) => {
                // cwnd − pipe more bytes (within the receiver's window)
                let room = self.snd_nxt.saturating_add(self.cwnd.saturating_sub(self.sack_pipe(b)));
                room.min(self.snd_una.saturating_add(self.rwnd))
            }
            _ => self.snd_una.saturating_add(self.window()),
        };
        while let Some(len) = self.next_fits(limit) {
            if self.paced_out(cx.now) {
                return;
            }
            self.send_next(cx, len);
        }
        self.check_app_limited();
        // Closed receiver window with nothing outstanding: arm a persist probe.
        if self.snd_una == self.snd_max && self.snd_nxt < self.p.size && self.rto_at.is_none() {
            self.arm_rto(cx.now);
        }
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
        if !self.established {
            // The SYN or its SYN-ACK was lost (RFC 6298 §5.5–5.6).
            self.rtt.back_off();
            self.syn_sent = None;
            self.send_syn(cx);
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
}
