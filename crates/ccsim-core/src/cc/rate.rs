//! Delivery-rate estimation (Y. Cheng, N. Cardwell, S. Hassas Yeganeh,
//! V. Jacobson, draft-cheng-iccrg-delivery-rate-estimation-02, §3; Linux
//! `tcp_rate.c`), a general part of the sender that any congestion-control
//! module reads through [`crate::cc::AckSample::rate`].
//!
//! * §3.2 "Transmitting a data packet": each transmission records a snapshot
//!   of the connection's `C.delivered`, `C.delivered_time`,
//!   `C.first_sent_time` and whether the connection was application-limited;
//!   when nothing is in flight, `first_sent_time = delivered_time = now`.
//! * §3.3 "Upon receiving an ACK": every packet the ACK newly delivers
//!   (cumulatively or by SACK) adds its length to `C.delivered` and sets
//!   `C.delivered_time = now`; the most recently sent of them, P, gives the
//!   sample: `delivered = C.delivered − P.delivered`, `send_elapsed =
//!   P.sent_time − P.first_sent_time`, `ack_elapsed = C.delivered_time −
//!   P.delivered_time`, `interval = max(send_elapsed, ack_elapsed)`, rate =
//!   delivered / interval; an interval shorter than the minimum RTT gives no
//!   rate (§3.3 "... < MinRTT ... invalid").
//! * §3.4 application-limited phases: `C.app_limited = max(C.delivered +
//!   inflight, 1)` when the sender has nothing to send and the window is not
//!   full; samples from packets sent while it was set are marked
//!   `is_app_limited`; it clears once `C.delivered` passes the mark.
//!
//! * The sample also carries the bytes the ACK newly marked lost (`lost`,
//!   Linux `rs->losses`): the sender's scoreboard reports them
//!   ([`RateEstimator::on_lost`]); BBR ends its probing phase on them.
//!
//! Per-packet state sits in a ring indexed by segment number (sequence /
//! MSS): O(1) per transmission, and an ACK costs the segments it delivers.
//! Amounts are payload bytes (acknowledged sequence space), so a rate is in
//! payload bytes per second.
//!
//! Deviations: without SACK a duplicate ACK credits one MSS to `C.delivered`
//! (as Linux's `tcp_add_reno_sack` counts one segment) but gives no rate
//! sample; the following cumulative ACK credits only the rest.

use crate::units::Time;
use std::collections::VecDeque;

/// The snapshot taken when a segment is sent (draft §3.2, "P.*").
#[derive(Clone, Copy, Debug, Default)]
struct Tx {
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    sent_time: Time,
    app_limited: bool,
    retx: bool,
    len: u32,
    /// Delivered already (SACKed, or counted by this ACK).
    done: bool,
}

/// One rate sample (draft §3.3, "rs.*"), for an ACK that delivered data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered between P's transmission and this ACK.
    pub delivered: u64,
    /// max(send_elapsed, ack_elapsed); `None` when shorter than the minimum
    /// RTT (no valid rate), as the draft says.
    pub interval: Option<Time>,
    pub send_elapsed: Time,
    pub ack_elapsed: Time,
    /// `P.delivered`: the connection's delivered count when P was sent
    /// (round-trip counting: a round ends when it reaches the count at the
    /// round's start).
    pub prior_delivered: u64,
    /// P was sent in an application-limited phase.
    pub is_app_limited: bool,
    /// RTT of P, if P was not a retransmission.
    pub rtt: Option<Time>,
    /// Bytes newly delivered by this ACK (cumulatively or selectively).
    pub newly_delivered: u64,
    /// Bytes this ACK newly marked lost (Linux `rs->losses`, there in
    /// packets): the un-SACKed bytes its SACK information moved below the
    /// scoreboard's lost boundary (RFC 6675 IsLost). 0 without SACK.
    pub lost: u64,
}

impl RateSample {
    /// The delivery rate in payload bytes per second, if the sample is valid.
    pub fn rate(&self) -> Option<f64> {
        self.interval
            .filter(|i| *i > Time::ZERO)
            .map(|i| self.delivered as f64 / i.as_secs_f64())
    }
}

/// The packet P chosen while an ACK is processed.
#[derive(Clone, Copy, Debug)]
struct Pick {
    tx: Tx,
}

/// The connection's delivery-rate state ("C.*") and the per-segment snapshots.
#[derive(Clone, Debug)]
pub struct RateEstimator {
    mss: u64,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// 0: not application-limited; else the `C.delivered` mark (§3.4).
    app_limited: u64,
    /// Segment index of `ring[0]`.
    base: u64,
    ring: VecDeque<Tx>,
    /// Bytes credited by duplicate ACKs without SACK, not yet acknowledged.
    credited: u64,
    pick: Option<Pick>,
    newly: u64,
    lost: u64,
}

impl RateEstimator {
    pub fn new(mss: u64) -> RateEstimator {
        RateEstimator {
            mss: mss.max(1),
            delivered: 0,
            delivered_time: Time::ZERO,
            first_sent_time: Time::ZERO,
            app_limited: 0,
            base: 0,
            ring: VecDeque::new(),
            credited: 0,
            pick: None,
            newly: 0,
            lost: 0,
        }
    }

    /// `C.delivered`: payload bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Whether the connection is in an application-limited phase.
    pub fn app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// §3.2: a segment [seq, seq + len) leaves now; `in_flight`: bytes
    /// outstanding before it.
    pub fn on_send(&mut self, seq: u64, len: u64, now: Time, in_flight: u64, retx: bool) {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let tx = Tx {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            app_limited: self.app_limited != 0,
            retx,
            len: len as u32,
            done: false,
        };
        let idx = seq / self.mss;
        if idx < self.base {
            return;
        }
        let i = (idx - self.base) as usize;
        if i >= self.ring.len() {
            self.ring.resize(i + 1, Tx::default());
        }
        self.ring[i] = tx;
    }

    /// §3.4: the sender has no data to send and room in its window.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// §3.3 UpdateRateSample(P) for the segment at ring position `i`.
    fn deliver(&mut self, i: usize, now: Time) {
        let tx = &mut self.ring[i];
        if tx.done || tx.len == 0 {
            return;
        }
        tx.done = true;
        let tx = *tx;
        self.delivered += tx.len as u64;
        self.newly += tx.len as u64;
        self.delivered_time = now;
        // P is the most recently sent of the packets this ACK delivers.
        if self.pick.is_none_or(|p| tx.sent_time >= p.tx.sent_time) {
            self.pick = Some(Pick { tx });
            self.first_sent_time = tx.sent_time;
        }
    }

    /// The segments in [start, end) are delivered by SACK (only those whose
    /// whole length lies inside count).
    pub fn on_sacked(&mut self, start: u64, end: u64, now: Time) {
        let first = start.div_ceil(self.mss).max(self.base);
        let mut idx = first;
        while idx * self.mss < end {
            let Some(i) = idx.checked_sub(self.base).map(|i| i as usize) else {
                break;
            };
            if i >= self.ring.len() {
                break;
            }
            if idx * self.mss + self.ring[i].len as u64 <= end {
                self.deliver(i, now);
            }
            idx += 1;
        }
    }

    /// The cumulative ACK reached `una`: every segment below it is delivered
    /// and forgotten.
    pub fn on_cum_ack(&mut self, una: u64, now: Time) {
        let before = self.newly;
        while let Some(tx) = self.ring.front() {
            // An empty slot (never sent) spans one MSS.
            let len = if tx.len == 0 { self.mss } else { tx.len as u64 };
            if self.base * self.mss + len > una {
                break;
            }
            self.deliver(0, now);
            self.ring.pop_front();
            self.base += 1;
        }
        // Bytes a duplicate ACK credited are not counted twice.
        let counted = self.newly - before;
        let again = self.credited.min(counted);
        self.credited -= again;
        self.delivered -= again;
        self.newly -= again;
    }

    /// The ACK being processed marked `bytes` newly lost (the sample's `lost`).
    pub fn on_lost(&mut self, bytes: u64) {
        self.lost += bytes;
    }

    /// A duplicate ACK without SACK: one segment left the network.
    pub fn on_dupack(&mut self, now: Time) {
        self.delivered += self.mss;
        self.credited += self.mss;
        self.delivered_time = now;
    }

    /// §3.3 GenerateRateSample, once per ACK after the deliveries: the
    /// sample, if a packet was delivered; `min_rtt`: the sender's minimum RTT.
    pub fn sample(&mut self, now: Time, min_rtt: Option<Time>) -> Option<RateSample> {
        // §3.4: the application-limited phase ends once its data is delivered.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let newly = std::mem::take(&mut self.newly);
        let lost = std::mem::take(&mut self.lost);
        let Pick { tx } = self.pick.take()?;
        let send_elapsed = tx.sent_time.saturating_sub(tx.first_sent_time);
        let ack_elapsed = self.delivered_time.saturating_sub(tx.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        Some(RateSample {
            delivered: self.delivered - tx.delivered,
            interval: (interval > Time::ZERO && min_rtt.is_none_or(|m| interval >= m)).then_some(interval),
            send_elapsed,
            ack_elapsed,
            prior_delivered: tx.delivered,
            is_app_limited: tx.app_limited,
            rtt: (!tx.retx).then(|| now.saturating_sub(tx.sent_time)),
            newly_delivered: newly,
            lost,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// A bottleneck of 1 segment per ms, RTT 10 ms (propagation): ten
    /// segments sent back to back at t = 0; the bottleneck spaces them 1 ms
    /// apart, so their ACKs arrive at 11, 12, ..., 20 ms. Each ACK's sample
    /// of the first flight: P = segment k, sent at 0 with first_sent_time 0
    /// (send_elapsed 0), delivered_time 0 (ack_elapsed = 11 + k ms): rate =
    /// (k+1) segments / (11 + k) ms, below the bottleneck (the first RTT
    /// only sees a fraction). Once sends are ACK-clocked, every sample is
    /// exactly the bottleneck rate: 10 segments in 10 ms.
    #[test]
    fn steady_state_rate_is_the_bottleneck_rate() {
        let mut r = RateEstimator::new(MSS);
        for k in 0..10 {
            r.on_send(k * MSS, MSS, ms(0), k * MSS, false);
        }
        let mut next = 10;
        for k in 0..10u64 {
            let now = ms(11 + k);
            r.on_cum_ack((k + 1) * MSS, now);
            let s = r.sample(now, Some(ms(10))).unwrap();
            assert_eq!(s.delivered, (k + 1) * MSS);
            assert_eq!(s.ack_elapsed, now);
            assert_eq!(s.rtt, Some(now));
            // ACK clocking: one new segment per ACK.
            r.on_send(next * MSS, MSS, now, 10 * MSS - MSS, false);
            next += 1;
        }
        // Second flight: segment 10 + k sent at 11 + k ms, ACKed at 21 + k ms
        // (1 ms spacing kept). Its snapshot's first_sent_time is the send
        // time of the last delivered segment, 0 (the first flight left in
        // one burst): send_elapsed = 11 + k ms exceeds ack_elapsed = 10 ms,
        // and the max rule keeps the burst from inflating the rate.
        for k in 0..10u64 {
            let now = ms(21 + k);
            r.on_cum_ack((11 + k) * MSS, now);
            let s = r.sample(now, Some(ms(10))).unwrap();
            assert_eq!((s.send_elapsed, s.ack_elapsed), (ms(11 + k), ms(10)));
            assert_eq!(s.interval, Some(ms(11 + k)));
            r.on_send(next * MSS, MSS, now, 9 * MSS, false);
            next += 1;
        }
        // Third flight, steady state: 10 segments in 10 ms both ways: the
        // bottleneck's 10⁶ B/s exactly.
        for k in 0..10u64 {
            let now = ms(31 + k);
            r.on_cum_ack((21 + k) * MSS, now);
            let s = r.sample(now, Some(ms(10))).unwrap();
            assert_eq!(s.delivered, 10 * MSS);
            assert_eq!((s.send_elapsed, s.ack_elapsed), (ms(10), ms(10)));
            assert_eq!(s.rate(), Some(1e6));
        }
    }

    /// The max rule (§3.3). Segments 0–3 leave at 0, 1, 2, 3 ms from idle;
    /// the ACK of segment 0 arrives at 10 ms and segment 4 leaves then
    /// (snapshot: delivered 1 segment, delivered_time 10 ms, first_sent_time
    /// 0, the send time of the last delivered segment). The ACKs of 1–4 come
    /// compressed, one stretch ACK at 15 ms: P = segment 4, send_elapsed =
    /// 10 − 0 = 10 ms, ack_elapsed = 15 − 10 = 5 ms: the rate is 4 segments
    /// per 10 ms, not the 4 per 5 ms the compressed ACKs suggest.
    #[test]
    fn interval_is_the_longer_of_send_and_ack_elapsed() {
        let mut r = RateEstimator::new(MSS);
        for k in 0..4 {
            r.on_send(k * MSS, MSS, ms(k), k * MSS, false);
        }
        r.on_cum_ack(MSS, ms(10));
        let s = r.sample(ms(10), None).unwrap();
        assert_eq!((s.send_elapsed, s.ack_elapsed), (ms(0), ms(10)));
        r.on_send(4 * MSS, MSS, ms(10), 3 * MSS, false);
        r.on_cum_ack(5 * MSS, ms(15));
        let s = r.sample(ms(15), None).unwrap();
        assert_eq!((s.send_elapsed, s.ack_elapsed), (ms(10), ms(5)));
        assert_eq!(s.interval, Some(ms(10)));
        assert_eq!(s.delivered, 4 * MSS);
        assert_eq!(s.rate(), Some(4e5));
        // The other way round: ACKs spread by the bottleneck, sends bunched.
        // Segments 5–6 leave together at 15 ms with nothing in flight
        // (first_sent_time = delivered_time = 15 ms); their ACKs at 25 and
        // 27 ms: P = segment 6, send_elapsed 0, ack_elapsed 12 ms.
        r.on_send(5 * MSS, MSS, ms(15), 0, false);
        r.on_send(6 * MSS, MSS, ms(15), MSS, false);
        r.on_cum_ack(6 * MSS, ms(25));
        r.sample(ms(25), None);
        r.on_cum_ack(7 * MSS, ms(27));
        let s = r.sample(ms(27), None).unwrap();
        assert_eq!((s.send_elapsed, s.ack_elapsed), (ms(0), ms(12)));
        assert_eq!(s.interval, Some(ms(12)));
        // An ACK whose interval is below the minimum RTT gives no rate.
        let mut r = RateEstimator::new(MSS);
        r.on_send(0, MSS, ms(0), 0, false);
        r.on_cum_ack(MSS, ms(5));
        assert_eq!(r.sample(ms(5), Some(ms(10))).unwrap().interval, None);
    }

    /// §3.4: with nothing to send, the phase is marked; samples of packets
    /// sent during it are app-limited; the mark clears once delivered passes it.
    #[test]
    fn app_limited_marking() {
        let mut r = RateEstimator::new(MSS);
        r.on_send(0, MSS, ms(0), 0, false);
        r.mark_app_limited(MSS);
        assert!(r.app_limited());
        r.on_send(MSS, MSS, ms(1), MSS, false);
        r.on_cum_ack(MSS, ms(10));
        let s = r.sample(ms(10), None).unwrap();
        assert!(!s.is_app_limited, "segment 0 was sent before the mark");
        assert!(r.app_limited(), "delivered (1000) has not passed the mark (1000)");
        r.on_cum_ack(2 * MSS, ms(11));
        let s = r.sample(ms(11), None).unwrap();
        assert!(s.is_app_limited);
        assert!(!r.app_limited(), "delivered 2000 > mark 1000: phase over");
    }

    /// SACKed segments are delivered once; the cumulative ACK that covers
    /// them later adds only the hole; a retransmission's sample has no RTT.
    #[test]
    fn sacked_segments_count_once() {
        let mut r = RateEstimator::new(MSS);
        for k in 0..4 {
            r.on_send(k * MSS, MSS, ms(k), k * MSS, false);
        }
        r.on_sacked(MSS, 4 * MSS, ms(10));
        let s = r.sample(ms(10), None).unwrap();
        assert_eq!((s.newly_delivered, r.delivered()), (3 * MSS, 3 * MSS));
        r.on_sacked(MSS, 4 * MSS, ms(11));
        assert!(r.sample(ms(11), None).is_none(), "nothing new");
        r.on_send(0, MSS, ms(12), 3 * MSS, true);
        r.on_cum_ack(4 * MSS, ms(22));
        let s = r.sample(ms(22), None).unwrap();
        assert_eq!((s.newly_delivered, r.delivered()), (MSS, 4 * MSS));
        assert_eq!(s.rtt, None);
        assert_eq!(s.delivered, MSS, "delivered since the retransmission");
    }

    /// Without SACK a duplicate ACK credits one segment; the cumulative ACK
    /// then counts only the rest.
    #[test]
    fn dupack_credit_is_not_counted_twice() {
        let mut r = RateEstimator::new(MSS);
        for k in 0..3 {
            r.on_send(k * MSS, MSS, ms(0), k * MSS, false);
        }
        r.on_dupack(ms(10));
        r.on_dupack(ms(11));
        assert_eq!(r.delivered(), 2 * MSS);
        r.on_cum_ack(3 * MSS, ms(20));
        r.sample(ms(20), None);
        assert_eq!(r.delivered(), 3 * MSS);
    }
}
