//! Fair queueing with bid numbers (Demers, Keshav & Shenker, "Analysis and
//! Simulation of a Fair Queueing Algorithm", SIGCOMM 1989) in one shared
//! buffer with longest-queue drop, the BUC paper's gateway discipline
//! (Ziegler & Clausen, IPCCC 1997, §3.1–3.2 and §4: per-conversation queues,
//! a shared buffer per output port, drop from the longest queue). Model page:
//! docs/models/fair-queueing.md.
//!
//! * Conversations are flows (flow id). Packet i of conversation α arriving at
//!   t with P bits gets `S = max(F_α, R(t))`, `F = S + P`, `F_α ← F`.
//! * `R(t)` is the round number of bit-by-bit round robin, computed exactly by
//!   iterated deletion: R grows at `C / N_ac` with N_ac the conversations with
//!   `F_α > R` (the fluid system's active set); whenever R reaches the smallest
//!   such `F_α`, that conversation leaves and the rate changes. A min-heap of the
//!   `F_α` makes each deletion O(log n); a raised `F_α` is re-keyed only when R
//!   reaches its old key (keys never exceed the true `F_α`, so no deletion is
//!   late), about once per queue-full of the conversation's packets.
//! * The link sends the queued packet with the smallest F (ties: lower flow id;
//!   FIFO within a conversation); non-preemptive.
//! * Shared buffer (`limit`, packets or bytes): the arrival is queued, then
//!   while the buffer is over its limit a packet is dropped from the
//!   conversation holding the most bytes (ties: the arrival's, else the lowest
//!   flow id), from its tail (default: the BUC paper does not say which end;
//!   docs/models/fair-queueing.md, "Head or tail") or head (`drop = "head"`,
//!   ns-2 DRR's choice).
//!
//! Choices where the sources are silent:
//! * A dropped packet's bid is withdrawn: the conversation's later tags are
//!   those it would have had if the packet had never arrived (tail drop: `F_α`
//!   returns to the dropped packet's start tag; head drop: the remaining tags
//!   are recomputed from their arrival rounds, O(queue of that conversation)).
//!   So a greedy conversation is charged only for what it gets through and
//!   conversations of unequal greed get max-min shares of the link.
//! * Arithmetic is `f64` in bits; R jumps exactly to `F_α` at each deletion.
//! * DKS's promptness term δ is 0.
//! * A conversation's state is no longer needed when it has nothing queued and
//!   `F_α ≤ R` (its old `F_α` could not matter); such states are kept for the
//!   conversation's next packet and swept when they outnumber the busy ones.

use super::conv::{Fifo, Fifos, IndexedHeap, LongestQueue, Num, Slab};
use super::{DropReason, Limit, LinkInfo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use crate::units::Time;
use std::sync::Arc;

/// A queued packet with its tags (bits) and the round number at its arrival.
#[derive(Clone, Debug)]
struct Tagged {
    pkt: Packet,
    start: f64,
    finish: f64,
    r_arrival: f64,
}

#[derive(Clone, Debug, Default)]
struct Conv {
    /// The conversation's packets, in the shared pool.
    q: Fifo,
    bytes: u64,
    /// Largest finish number assigned (F_α).
    last: f64,
}

/// Drop from the longest queue's head or tail.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropEnd {
    Head,
    Tail,
}

pub struct Fq {
    convs: Slab<Conv>,
    pool: Fifos<Tagged>,
    /// Conversations with packets, keyed by their head's finish number.
    heads: IndexedHeap<(Num, u32)>,
    /// The fluid system's active set, keyed by F_α.
    fluid: IndexedHeap<(Num, u32)>,
    longest: LongestQueue,
    /// Round number (bits) at time `t` (ns, fractional).
    r: f64,
    t: f64,
    /// Link rate, bit/ns.
    rate: f64,
    pkts: usize,
    bytes: u64,
    limit: Limit,
    drop_end: DropEnd,
}

impl Fq {
    pub fn new(rate_bps: u64, limit: Limit, drop_end: DropEnd) -> Fq {
        Fq {
            convs: Slab::default(),
            pool: Fifos::default(),
            heads: IndexedHeap::new(),
            fluid: IndexedHeap::new(),
            longest: LongestQueue::new(),
            r: 0.0,
            t: 0.0,
            rate: rate_bps as f64 / 1e9,
            pkts: 0,
            bytes: 0,
            limit,
            drop_end,
        }
    }

    /// The round number now (after bringing it up to `now`).
    pub fn round(&mut self, now: Time) -> f64 {
        self.advance(now);
        self.r
    }

    /// Conversations active in the fluid system.
    pub fn fluid_active(&self) -> usize {
        self.fluid.len()
    }

    /// Brings R up to `now` by iterated deletion.
    fn advance(&mut self, now: Time) {
        let now = now.0 as f64;
        while self.t < now {
            let Some((slot, (Num(f_min), _))) = self.fluid.peek() else {
                self.t = now; // nobody active: R stands still
                return;
            };
            let n = self.fluid.len() as f64;
            let reach = self.t + (f_min - self.r) * n / self.rate;
            if reach <= now {
                self.t = reach;
                self.r = f_min;
                let last = self.convs.get(slot).last;
                if last > f_min {
                    // A key raised lazily by later arrivals: still active.
                    self.fluid.set(slot, (Num(last), self.convs.flow(slot).0));
                } else {
                    self.fluid.remove(slot);
                    self.free_if_idle(slot);
                }
            } else {
                self.r += (now - self.t) * self.rate / n;
                self.t = now;
            }
        }
    }

    /// Conversations with nothing queued and `F_α ≤ R` need no state; it is
    /// kept for their next packet and swept when idle states pile up.
    fn free_if_idle(&mut self, _slot: usize) {
        let (heads, fluid) = (&self.heads, &self.fluid);
        let busy = heads.len().max(fluid.len());
        // A freed slot's last change (to 0 bytes) was noted, so the
        // longest-queue heap drops it at its next update.
        self.convs.sweep(busy, |s, c| c.q.is_empty() && !fluid.contains(s));
    }

    /// Refreshes the heaps after conversation `slot` changed. The fluid set's
    /// key may lag behind a raised `F_α` (it is corrected when R reaches it,
    /// which keeps deletions exact) but never exceeds it.
    fn refresh(&mut self, slot: usize) {
        let flow = self.convs.flow(slot);
        let c = self.convs.get(slot);
        match self.pool.front(&c.q) {
            Some(h) => self.heads.set(slot, (Num(h.finish), flow.0)),
            None => self.heads.remove(slot),
        }
        if c.last <= self.r {
            self.fluid.remove(slot);
        } else if self.fluid.get(slot).is_none_or(|(Num(k), _)| k > c.last) {
            self.fluid.set(slot, (Num(c.last), flow.0));
        }
        self.longest.touch(slot);
    }

    /// Drops one packet of conversation `slot` (its head or tail) and withdraws
    /// its bid; returns the packet.
    fn drop_from(&mut self, slot: usize) -> Packet {
        let c = self.convs.get_mut(slot);
        let gone = match self.drop_end {
            DropEnd::Tail => self.pool.pop_back(&mut c.q),
            DropEnd::Head => self.pool.pop_front(&mut c.q),
        }
        .expect("the longest queue is not empty");
        c.bytes -= gone.pkt.size as u64;
        // Tags as if `gone` had never arrived: max(start, R at arrival) of the
        // next packet equals max(F before `gone`, its R at arrival). After a
        // tail drop no packet follows it.
        let mut prev = gone.start;
        if self.drop_end == DropEnd::Head {
            self.pool.for_each_mut(&c.q, |t| {
                t.start = prev.max(t.r_arrival);
                t.finish = t.start + t.pkt.size as f64 * 8.0;
                prev = t.finish;
            });
        }
        c.last = prev;
        self.pkts -= 1;
        self.bytes -= gone.pkt.size as u64;
        self.refresh(slot);
        gone.pkt
    }
}

impl Qdisc for Fq {
    fn kind(&self) -> &'static str {
        "fq"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        self.advance(cx.now);
        let (flow, uid, size) = (pkt.flow, pkt.uid, pkt.size);
        let r = self.r;
        let slot = self.convs.slot_or_insert(flow, || Conv {
            last: f64::NEG_INFINITY,
            ..Conv::default()
        });
        let c = self.convs.get_mut(slot);
        let start = c.last.max(r);
        let finish = start + size as f64 * 8.0;
        c.last = finish;
        c.bytes += size as u64;
        self.pool.push_back(
            &mut c.q,
            Tagged {
                pkt,
                start,
                finish,
                r_arrival: r,
            },
        );
        self.pkts += 1;
        self.bytes += size as u64;
        self.refresh(slot);
        let mut arrival_dropped = false;
        while !self.limit.holds(self.pkts, self.bytes) {
            let mine = (!arrival_dropped).then(|| (slot, self.convs.get(slot).bytes));
            let convs = &self.convs;
            let current = |s: usize| convs.entry(s).map(|(f, c)| (f, c.bytes));
            let victim = self.longest.victim(mine, current).expect("a queue holds packets");
            let p = self.drop_from(victim);
            if p.uid == uid {
                arrival_dropped = true;
                cx.drop(p, DropReason::Overflow);
            } else {
                cx.drop(p, DropReason::PushOut);
            }
            self.free_if_idle(victim);
        }
        if arrival_dropped {
            return None;
        }
        self.pool.back(&self.convs.get(slot).q).map(|t| &t.pkt)
    }
    fn dequeue(&mut self, _cx: &mut QdiscCtx) -> Option<Packet> {
        let (slot, _) = self.heads.peek()?;
        let c = self.convs.get_mut(slot);
        let t = self
            .pool
            .pop_front(&mut c.q)
            .expect("heads holds non-empty conversations");
        c.bytes -= t.pkt.size as u64;
        self.pkts -= 1;
        self.bytes -= t.pkt.size as u64;
        self.refresh(slot);
        self.free_if_idle(slot);
        Some(t.pkt)
    }
    fn peek(&self) -> Option<&Packet> {
        let (slot, _) = self.heads.peek()?;
        self.pool.front(&self.convs.get(slot).q).map(|t| &t.pkt)
    }
    fn backlog_packets(&self) -> usize {
        self.pkts
    }
    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
    fn limit(&self) -> Limit {
        self.limit
    }
    fn trace(&self, out: &mut Vec<TraceValue>) {
        out.push(TraceValue::new("round", self.r));
        out.push(TraceValue::new("fluid_active", self.fluid.len() as f64));
        self.convs.trace_backlogs(|c| c.bytes, out);
    }
}

// ----- scenario

/// Reads the end of the longest queue to drop from (`drop`), shared with DRR.
pub fn read_drop_end(t: &mut Tab, default: &str) -> Res<DropEnd> {
    Ok(match t.choice("drop", Some(default), &["tail", "head"])?.as_str() {
        "head" => DropEnd::Head,
        _ => DropEnd::Tail,
    })
}

/// Rejects an infinite buffer for a shared-buffer discipline.
pub fn finite_buffer(link: &LinkInfo, kind: &str) -> Res<()> {
    if link.limit == Limit::Unlimited {
        return Err(link.error(
            "limit",
            link.limit_str(),
            format!("a finite shared buffer for {kind} (packets or bytes, e.g. \"100pkt\" or \"300KB\")"),
        ));
    }
    Ok(())
}

#[derive(Debug)]
struct Spec {
    drop_end: DropEnd,
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        finite_buffer(link, "fair queueing")?;
        Ok(Box::new(Fq::new(link.rate.0, link.limit, self.drop_end)))
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[(
    "drop",
    "fair queueing: drop from the tail (default) or the head of the longest queue",
)];

/// `kind = "fq"`: `drop = "tail"` (default) or `"head"`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    Ok(Arc::new(Spec {
        drop_end: read_drop_end(t, "tail")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use crate::packet::FlowId;
    use serde_json::json;
    use std::collections::VecDeque;

    fn us(x: u64) -> Time {
        Time::from_micros(x)
    }

    /// 1 Mbps: one bit per microsecond.
    fn fq(limit: Limit, end: DropEnd) -> Drive<Fq> {
        Drive::new(Box::new(Fq::new(1_000_000, limit, end)))
    }

    #[test]
    fn round_number_by_iterated_deletion_hand_worked() {
        // A (1000 bits) and B (2000 bits) arrive at 0: F = 1000, 2000. R grows
        // at C/2 until it reaches 1000 (t = 2 ms, A leaves), then at C. C (1000
        // bits) arrives at 2.5 ms: R = 1500, so S = 1500, F = 2500; with B and C
        // active R reaches 2000 at 3.5 ms and 2500 at 4 ms, then stands still.
        let mut d = fq(Limit::Packets(10), DropEnd::Tail);
        d.enq(pkt(1, 0, 125));
        d.enq(pkt(2, 1, 250));
        for (t, r, n) in [(1000, 500.0, 2), (2000, 1000.0, 1), (2500, 1500.0, 1)] {
            assert_eq!((d.q.round(us(t)), d.q.fluid_active()), (r, n), "t = {t} us");
        }
        d.now = us(2500);
        d.enq(pkt(3, 2, 125));
        for (t, r, n) in [
            (3000, 1750.0, 2),
            (3500, 2000.0, 1),
            (4000, 2500.0, 0),
            (5000, 2500.0, 0),
        ] {
            assert_eq!((d.q.round(us(t)), d.q.fluid_active()), (r, n), "t = {t} us");
        }
        // Smallest finish number first: A (1000), B (2000), C (2500).
        assert_eq!(d.drain(), vec![1, 2, 3]);
    }

    #[test]
    fn finish_tags_chain_within_a_conversation_and_ties_go_to_the_lower_flow() {
        // Flow 5 sends three 1000-bit packets at 0 (F = 1000, 2000, 3000), flow 2
        // one 2000-bit packet (F = 2000, tie with flow 5's second): flow 2 first.
        let mut d = fq(Limit::Packets(10), DropEnd::Tail);
        for uid in 1..=3 {
            d.enq(pkt(uid, 5, 125));
        }
        d.enq(pkt(9, 2, 250));
        assert_eq!(d.drain(), vec![1, 9, 2, 3]);
    }

    #[test]
    fn overflow_drops_the_tail_of_the_longest_queue() {
        let mut d = fq(Limit::Packets(4), DropEnd::Tail);
        for uid in 1..=3 {
            d.enq(pkt(uid, 0, 100)); // flow 0 holds 3
        }
        d.enq(pkt(4, 1, 100)); // full
                               // A new conversation pushes out flow 0's tail.
        assert!(d.enq(pkt(5, 2, 100)));
        assert_eq!(d.dropped(), vec![(3, DropReason::PushOut)]);
        // Flow 0 (2 packets) now ties with nobody; its own arrival is its tail.
        assert!(!d.enq(pkt(6, 0, 100)));
        assert_eq!(d.dropped()[1], (6, DropReason::Overflow));
        // Flow 1 arrives: flows 0 and 1 tie at 2 packets and the arrival's loses.
        assert!(!d.enq(pkt(7, 1, 100)));
        assert_eq!(d.dropped()[2], (7, DropReason::Overflow));
        // Flow 3 arrives: flows 0 (2 packets) and 1, 2 (1 each): flow 0's tail goes.
        assert!(d.enq(pkt(8, 3, 100)));
        assert_eq!(d.dropped()[3], (2, DropReason::PushOut));
        // Bytes, not packets, make a queue long: a 1500-B packet outweighs two of 100.
        let mut d = fq(Limit::Bytes(2000), DropEnd::Tail);
        d.enq(pkt(1, 0, 100));
        d.enq(pkt(2, 0, 100));
        d.enq(pkt(3, 1, 1500));
        assert!(d.enq(pkt(4, 2, 400)));
        assert_eq!(d.dropped(), vec![(3, DropReason::PushOut)]);
    }

    #[test]
    fn head_drop_takes_the_oldest_packet_of_the_longest_queue() {
        let mut d = fq(Limit::Packets(3), DropEnd::Head);
        for uid in 1..=3 {
            d.enq(pkt(uid, 0, 125));
        }
        assert!(d.enq(pkt(4, 1, 125)));
        assert_eq!(d.dropped(), vec![(1, DropReason::PushOut)]);
        // Flow 0's tags are recomputed without the dropped packet: its packets
        // now finish at 1000 and 2000, flow 1's at 1000 (tie: flow 0 first).
        assert_eq!(d.drain(), vec![2, 4, 3]);
    }

    #[test]
    fn a_dropped_packet_bid_is_withdrawn() {
        // Flow 0 fills the buffer and loses its last arrival: its next packet
        // gets the tag it would have had (F = 3000 after 1000, 2000), so it
        // still ties with flow 1's third packet and the lower flow goes first.
        let mut d = fq(Limit::Packets(2), DropEnd::Tail);
        d.enq(pkt(1, 0, 125));
        d.enq(pkt(2, 0, 125));
        assert!(!d.enq(pkt(3, 0, 125)));
        assert_eq!(d.deq().unwrap().uid, 1);
        assert_eq!(d.deq().unwrap().uid, 2);
        d.enq(pkt(4, 0, 125)); // R = 0 still (time has not moved): F = 2000 + 1000
        d.enq(pkt(5, 1, 375)); // F = 3000
        assert_eq!(d.drain(), vec![4, 5]);
    }

    #[test]
    fn equal_bit_rates_for_500_and_1000_byte_packets() {
        // Bit-by-bit round robin gives backlogged conversations equal bit rates
        // whatever their packet sizes (Demers, Keshav & Shenker 1989); checked to
        // ±1 % over 1000 packets.
        let mut d = fq(Limit::Packets(100), DropEnd::Tail);
        let mut uid = 0;
        let mut sent = [0u64; 2];
        let size = [500, 1000];
        for _ in 0..1000 {
            for (f, &s) in size.iter().enumerate() {
                let flow = FlowId(f as u32);
                while d.q.convs.slot(flow).is_none_or(|c| d.q.convs.get(c).q.len() < 3) {
                    uid += 1;
                    d.enq(pkt(uid, flow.0, s));
                }
            }
            let p = d.deq().unwrap();
            sent[p.flow.idx()] += p.size as u64;
            d.now += Time(p.size as u64 * 8 * 1000); // 1 bit per µs
        }
        let ratio = sent[0] as f64 / sent[1] as f64;
        assert!((ratio - 1.0).abs() < 0.01, "{sent:?}");
    }

    /// A queued packet of the reference: (uid, size, S, F, R at arrival).
    type NaivePkt = (u64, u32, f64, f64, f64);
    /// A conversation of the reference: (flow, packets, F_α).
    type NaiveConv = (u32, VecDeque<NaivePkt>, f64);

    /// DKS written the slow, obvious way: scans instead of heaps.
    struct Naive {
        q: Vec<NaiveConv>,
        r: f64,
        t: f64,
        limit: usize,
        head: bool,
    }

    impl Naive {
        fn advance(&mut self, now: f64) {
            loop {
                let active: Vec<f64> = self.q.iter().map(|c| c.2).filter(|&f| f > self.r).collect();
                if active.is_empty() {
                    self.t = now;
                    return;
                }
                let n = active.len() as f64;
                let f_min = active.iter().cloned().fold(f64::INFINITY, f64::min);
                let reach = self.t + (f_min - self.r) * n / 1e-3; // 1 Mbps = 1e-3 bit/ns
                if reach > now {
                    self.r += (now - self.t) * 1e-3 / n;
                    self.t = now;
                    return;
                }
                self.t = reach;
                self.r = f_min;
            }
        }
        fn conv(&mut self, flow: u32) -> usize {
            match self.q.iter().position(|c| c.0 == flow) {
                Some(i) => i,
                None => {
                    self.q.push((flow, VecDeque::new(), f64::NEG_INFINITY));
                    self.q.len() - 1
                }
            }
        }
        /// Returns the uids dropped.
        fn enq(&mut self, now: f64, uid: u64, flow: u32, size: u32) -> Vec<u64> {
            self.advance(now);
            let i = self.conv(flow);
            let s = self.q[i].2.max(self.r);
            let f = s + size as f64 * 8.0;
            let r = self.r;
            self.q[i].1.push_back((uid, size, s, f, r));
            self.q[i].2 = f;
            let mut dropped = Vec::new();
            while self.q.iter().map(|c| c.1.len()).sum::<usize>() > self.limit {
                let bytes = |c: &NaiveConv| c.1.iter().map(|p| p.1 as u64).sum::<u64>();
                let max = self.q.iter().map(bytes).max().unwrap();
                let arrival = self.q.iter().position(|c| c.0 == flow).unwrap();
                let v = if bytes(&self.q[arrival]) == max {
                    arrival
                } else {
                    (0..self.q.len())
                        .filter(|&j| bytes(&self.q[j]) == max)
                        .min_by_key(|&j| self.q[j].0)
                        .unwrap()
                };
                let gone = if self.head {
                    self.q[v].1.pop_front()
                } else {
                    self.q[v].1.pop_back()
                }
                .unwrap();
                // Tags as if `gone` had never arrived.
                let mut prev = gone.2;
                if self.head {
                    for p in self.q[v].1.iter_mut() {
                        p.2 = prev.max(p.4);
                        p.3 = p.2 + p.1 as f64 * 8.0;
                        prev = p.3;
                    }
                }
                self.q[v].2 = prev;
                dropped.push(gone.0);
            }
            dropped
        }
        fn deq(&mut self) -> Option<u64> {
            let i = (0..self.q.len())
                .filter(|&i| !self.q[i].1.is_empty())
                .min_by(|&a, &b| {
                    let (fa, fb) = (self.q[a].1[0].3, self.q[b].1[0].3);
                    fa.total_cmp(&fb).then(self.q[a].0.cmp(&self.q[b].0))
                })?;
            self.q[i].1.pop_front().map(|p| p.0)
        }
    }

    #[test]
    fn matches_a_naive_reference_under_random_traffic() {
        for head in [false, true] {
            let end = if head { DropEnd::Head } else { DropEnd::Tail };
            let mut d = fq(Limit::Packets(12), end);
            let mut n = Naive {
                q: Vec::new(),
                r: 0.0,
                t: 0.0,
                limit: 12,
                head,
            };
            let mut rng = crate::rng::Rng::new(17, 0);
            let mut busy_until = 0.0;
            for uid in 1..20_000u64 {
                d.now += Time(rng.next_u64() % 2_000_000); // up to 2 ms
                let now = d.now.0 as f64;
                if now >= busy_until {
                    // The link is free: send the next packet (as the engine would).
                    let got = d.deq().map(|p| (p.uid, p.size));
                    assert_eq!(got.map(|g| g.0), n.deq(), "uid {uid}");
                    if let Some((_, size)) = got {
                        busy_until = now + size as f64 * 8000.0;
                    }
                }
                let (flow, size) = ((rng.next_u64() % 5) as u32, 40 + (rng.next_u64() % 1461) as u32);
                let before = d.drops.len();
                d.enq(pkt(uid, flow, size));
                let dropped: Vec<u64> = d.drops[before..].iter().map(|x| x.0.uid).collect();
                assert_eq!(dropped, n.enq(now, uid, flow, size), "uid {uid}");
                assert!((d.q.round(d.now) - n.r).abs() <= 1e-6 * n.r.max(1.0), "R at uid {uid}");
            }
        }
    }

    #[test]
    fn traces_round_and_per_flow_backlog() {
        let mut d = fq(Limit::Packets(10), DropEnd::Tail);
        d.enq(pkt(1, 4, 100));
        d.enq(pkt(2, 1, 300));
        d.enq(pkt(3, 4, 100));
        let mut v = Vec::new();
        d.q.trace(&mut v);
        let per: Vec<(u32, f64)> = v.iter().filter_map(|t| t.flow.map(|f| (f.0, t.value))).collect();
        assert_eq!(per, vec![(1, 300.0), (4, 200.0)]);
        assert_eq!(d.trace("backlogged_flows"), 2.0);
        assert_eq!(d.trace("fluid_active"), 2.0);
    }

    #[test]
    fn needs_a_finite_buffer() {
        let e = build(json!({"kind": "fq"}), &link("10Mbps", Limit::Unlimited))
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "q.limit: got \"inf\", expected a finite shared buffer for fair queueing (packets or bytes, e.g. \"100pkt\" or \"300KB\")"
        );
        let e = build(
            json!({"kind": "fq", "drop": "front"}),
            &link("10Mbps", Limit::Packets(5)),
        )
        .err()
        .unwrap();
        assert_eq!(
            e.to_string(),
            "q.drop: got \"front\", expected one of \"tail\", \"head\""
        );
    }
}
