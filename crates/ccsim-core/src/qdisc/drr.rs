//! Deficit Round Robin (Shreedhar & Varghese, "Efficient Fair Queuing using
//! Deficit Round Robin", SIGCOMM 1995) as ns-2.35's `queue/drr.cc` runs it, in
//! one shared buffer with longest-queue drop (ns-2's `blimit_` overflow rule).
//! Model page: docs/models/drr.md.
//!
//! * Conversations are flows (flow id), each a FIFO with a deficit counter.
//!   A conversation that becomes non-empty joins the end of the round (ns-2
//!   inserts it before the current one) with deficit 0.
//! * Each dequeue serves the current conversation: on the first look of its
//!   turn it gains `quantum`; if its head fits in the deficit it is sent (one
//!   packet per dequeue, the turn continues at the next dequeue), else the turn
//!   ends and the next conversation is looked at. A conversation that empties
//!   leaves the round and its deficit is reset.
//! * Shared buffer (`limit`): the arrival is queued, then while the buffer is
//!   over its limit the conversation holding the most bytes loses its head
//!   (ns-2; `drop = "tail"` for the tail).
//!
//! Deviations from ns-2.35:
//! * Conversations are flows, not ns-2's hash of the source address into
//!   `buckets_` (which merges the flows of one host).
//! * Ties for the longest queue go to the arrival's conversation, then the
//!   lowest flow id, as in `fq.rs`; ns-2 takes the first in round order
//!   from the current conversation.
//! * A conversation emptied by a drop leaves with its state reset (ns-2 keeps
//!   its deficit and turn flag until it is next activated, then zeroes the
//!   deficit only).
//! * The default quantum is 1500 B (ns-2: 250 B, smaller than most packets,
//!   which makes flows wait several rounds; S&V ask for at least the largest
//!   packet).
//!
//! Cost: O(1) per packet (a ring of conversations, packets in one shared
//! pool); the longest queue comes from an indexed heap of byte counts brought
//! up to date only when the buffer overflows.

use super::conv::{Fifo, Fifos, LongestQueue, Slab};
use super::fq::{finite_buffer, read_drop_end, DropEnd};
use super::{DropReason, Limit, LinkInfo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use serde_json::Value;
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
struct Conv {
    /// The conversation's packets, in the shared pool.
    q: Fifo,
    bytes: u64,
    deficit: u64,
    /// The conversation got its quantum for the current turn.
    turn: bool,
    /// Neighbours in the round (a ring of slots).
    prev: usize,
    next: usize,
}

pub struct Drr {
    convs: Slab<Conv>,
    pool: Fifos<Packet>,
    /// The conversation being served (head of the round).
    curr: Option<usize>,
    /// Conversations in the round.
    active: usize,
    longest: LongestQueue,
    quantum: u64,
    pkts: usize,
    bytes: u64,
    limit: Limit,
    drop_end: DropEnd,
}

impl Drr {
    pub fn new(quantum: u64, limit: Limit, drop_end: DropEnd) -> Drr {
        Drr {
            convs: Slab::default(),
            pool: Fifos::default(),
            curr: None,
            active: 0,
            longest: LongestQueue::new(),
            quantum,
            pkts: 0,
            bytes: 0,
            limit,
            drop_end,
        }
    }

    /// Appends `s` to the end of the round (before the current conversation).
    fn activate(&mut self, s: usize) {
        match self.curr {
            None => {
                let c = self.convs.get_mut(s);
                (c.prev, c.next) = (s, s);
                self.curr = Some(s);
            }
            Some(h) => {
                let tail = self.convs.get(h).prev;
                (self.convs.get_mut(s).prev, self.convs.get_mut(s).next) = (tail, h);
                self.convs.get_mut(tail).next = s;
                self.convs.get_mut(h).prev = s;
            }
        }
    }

    /// Takes `s` out of the round (its state stays for the next time the
    /// conversation is active; idle states are swept from time to time).
    fn retire(&mut self, s: usize) {
        let (prev, next) = (self.convs.get(s).prev, self.convs.get(s).next);
        if next == s {
            self.curr = None;
        } else {
            self.convs.get_mut(prev).next = next;
            self.convs.get_mut(next).prev = prev;
            if self.curr == Some(s) {
                self.curr = Some(next);
            }
        }
        self.longest.touch(s);
        let c = self.convs.get_mut(s);
        (c.deficit, c.turn) = (0, false);
        self.active -= 1;
    }

    fn victim(&mut self, arrival: Option<(usize, u64)>) -> usize {
        let convs = &self.convs;
        let current = |s: usize| convs.entry(s).map(|(f, c)| (f, c.bytes));
        self.longest.victim(arrival, current).expect("a queue holds packets")
    }

    fn take(&mut self, s: usize, end: DropEnd) -> Packet {
        let c = self.convs.get_mut(s);
        let p = match end {
            DropEnd::Head => self.pool.pop_front(&mut c.q),
            DropEnd::Tail => self.pool.pop_back(&mut c.q),
        }
        .expect("a non-empty conversation");
        c.bytes -= p.size as u64;
        let empty = c.q.is_empty();
        self.pkts -= 1;
        self.bytes -= p.size as u64;
        if empty {
            self.retire(s);
        } else {
            self.longest.touch(s);
        }
        p
    }
}

impl Qdisc for Drr {
    fn kind(&self) -> &'static str {
        "drr"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        let (flow, uid, size) = (pkt.flow, pkt.uid, pkt.size as u64);
        let s = self.convs.slot_or_insert(flow, Conv::default);
        let c = self.convs.get_mut(s);
        self.pool.push_back(&mut c.q, pkt);
        c.bytes += size;
        let fresh = c.q.len() == 1;
        self.pkts += 1;
        self.bytes += size;
        if fresh {
            self.activate(s);
            self.active += 1;
            self.convs.sweep(self.active, |_, c| c.q.is_empty());
        }
        self.longest.touch(s);
        let mut arrival_dropped = false;
        while !self.limit.holds(self.pkts, self.bytes) {
            let mine = (!arrival_dropped).then(|| (s, self.convs.get(s).bytes));
            let victim = self.victim(mine);
            let p = self.take(victim, self.drop_end);
            if p.uid == uid {
                arrival_dropped = true;
                cx.drop(p, DropReason::Overflow);
            } else {
                cx.drop(p, DropReason::PushOut);
            }
        }
        if arrival_dropped {
            return None;
        }
        self.pool.back(&self.convs.get(s).q)
    }
    fn dequeue(&mut self, _cx: &mut QdiscCtx) -> Option<Packet> {
        loop {
            let s = self.curr?;
            let quantum = self.quantum;
            let c = self.convs.get_mut(s);
            if !c.turn {
                c.deficit += quantum;
                c.turn = true;
            }
            let head = self
                .pool
                .front(&c.q)
                .expect("conversations in the round hold packets")
                .size as u64;
            if c.deficit >= head {
                c.deficit -= head;
                c.bytes -= head;
                let p = self.pool.pop_front(&mut c.q);
                let empty = c.q.is_empty();
                self.pkts -= 1;
                self.bytes -= head;
                if empty {
                    self.retire(s);
                } else {
                    self.longest.touch(s);
                }
                return p;
            }
            c.turn = false;
            self.curr = Some(c.next);
        }
    }
    fn peek(&self) -> Option<&Packet> {
        // Replays `dequeue` without changing state: on its j-th look a
        // conversation has gained j quanta (the current one j − 1 if its turn
        // has begun); the first whose deficit then covers its head sends.
        let start = self.curr?;
        let (mut s, mut passes) = (start, 0u64);
        loop {
            let c = self.convs.get(s);
            let head = self.pool.front(&c.q).expect("conversations in the round hold packets");
            let grants = if s == start {
                passes + !c.turn as u64
            } else {
                passes + 1
            };
            if c.deficit + grants * self.quantum >= head.size as u64 {
                return Some(head);
            }
            s = c.next;
            if s == start {
                passes += 1;
            }
        }
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
        self.convs.trace_backlogs(|c| c.bytes, out);
    }
}

// ----- scenario

#[derive(Debug)]
struct Spec {
    quantum: u64,
    drop_end: DropEnd,
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        finite_buffer(link, "DRR")?;
        Ok(Box::new(Drr::new(self.quantum, link.limit, self.drop_end)))
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("quantum", "DRR quantum: bytes a queue sends per round"),
    (
        "drop",
        "DRR: drop from the head (default, ns-2) or the tail of the longest queue",
    ),
];

/// `kind = "drr"`: `quantum` (bytes per turn, default 1500 B), `drop = "head"`
/// (default, ns-2) or `"tail"`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let quantum = t.size("quantum", Some("1500B"))?;
    if quantum == 0 {
        return Err(t.error("quantum", &Value::from(0), "a positive size such as \"1500B\""));
    }
    Ok(Arc::new(Spec {
        quantum,
        drop_end: read_drop_end(t, "head")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use serde_json::json;

    fn drr(quantum: u64, limit: Limit, end: DropEnd) -> Drive<Drr> {
        Drive::new(Box::new(Drr::new(quantum, limit, end)))
    }

    #[test]
    fn quantum_of_one_packet_alternates_two_backlogged_flows() {
        // Hand-worked from Shreedhar & Varghese's algorithm: with Q = 1000 B each
        // turn sends one 1000-B packet, so two backlogged flows alternate.
        let mut d = drr(1000, Limit::Packets(100), DropEnd::Head);
        for i in 0..5 {
            d.enq(pkt(10 + i, 0, 1000));
            d.enq(pkt(20 + i, 1, 1000));
        }
        assert_eq!(d.drain(), vec![10, 20, 11, 21, 12, 22, 13, 23, 14, 24]);
    }

    #[test]
    fn deficit_rounds_hand_worked() {
        // Quantum 500 B. Flow 0 sends 300-B packets, flow 1 one 1200-B packet,
        // flow 2 200-B packets.
        //  round 1: f0 deficit 500: sends 300 (200 left; the next 300 does not fit);
        //           f1 500 < 1200; f2 500: sends 200, 200 (100 left).
        //  round 2: f0 700: 300, 300 (100 left); f1 1000 < 1200; f2 600: 200, 200.
        //  round 3: f0 600: 300 (queue empty, deficit reset); f1 1500: 1200 (empty).
        let mut d = drr(500, Limit::Packets(100), DropEnd::Head);
        for i in 0..4 {
            d.enq(pkt(i, 0, 300));
        }
        d.enq(pkt(10, 1, 1200));
        for i in 0..4 {
            d.enq(pkt(20 + i, 2, 200));
        }
        assert_eq!(d.drain(), vec![0, 20, 21, 1, 2, 22, 23, 3, 10]);
    }

    #[test]
    fn a_new_flow_joins_the_end_of_the_round_with_no_deficit() {
        let mut d = drr(1000, Limit::Packets(100), DropEnd::Head);
        for i in 0..3 {
            d.enq(pkt(i, 0, 1000));
            d.enq(pkt(10 + i, 1, 1000));
        }
        assert_eq!(d.deq().unwrap().uid, 0);
        d.enq(pkt(30, 3, 1000)); // behind flow 1 in the round
        assert_eq!(d.drain(), vec![10, 30, 1, 11, 2, 12]);
    }

    #[test]
    fn overflow_drops_the_head_of_the_longest_queue_as_ns2() {
        let mut d = drr(1500, Limit::Bytes(3000), DropEnd::Head);
        d.enq(pkt(1, 0, 1000));
        d.enq(pkt(2, 0, 1000));
        d.enq(pkt(3, 1, 500));
        assert!(d.enq(pkt(4, 1, 1000)));
        assert_eq!(d.dropped(), vec![(1, DropReason::PushOut)], "flow 0 holds 2000 B");
        // Tail mode: the longest queue's newest packet; the arrival itself if it is the longest's.
        let mut d = drr(1500, Limit::Packets(3), DropEnd::Tail);
        d.enq(pkt(1, 0, 1000));
        d.enq(pkt(2, 0, 1000));
        d.enq(pkt(3, 1, 1000));
        assert!(!d.enq(pkt(4, 0, 1000)));
        assert!(d.enq(pkt(5, 2, 1000)));
        assert_eq!(d.dropped(), vec![(4, DropReason::Overflow), (2, DropReason::PushOut)]);
        assert_eq!(d.drain(), vec![1, 3, 5]);
    }

    #[test]
    fn peek_agrees_with_dequeue_under_random_traffic() {
        // The driver asserts peek == dequeue on every dequeue.
        let mut d = drr(700, Limit::Packets(30), DropEnd::Head);
        let mut rng = crate::rng::Rng::new(5, 0);
        for uid in 0..20_000u64 {
            if rng.uniform() < 0.55 {
                let f = (rng.next_u64() % 6) as u32;
                d.enq(pkt(uid, f, 40 + (rng.next_u64() % 1460) as u32));
            } else {
                d.deq();
            }
        }
        d.drain();
    }

    #[test]
    fn reads_quantum_and_drop_end_and_needs_a_buffer() {
        assert!(build(
            json!({"kind": "drr", "quantum": "1000B", "drop": "tail"}),
            &link("1Mbps", Limit::Packets(5))
        )
        .is_ok());
        let e = build(json!({"kind": "drr"}), &link("1Mbps", Limit::Unlimited))
            .err()
            .unwrap();
        assert!(e
            .to_string()
            .starts_with("q.limit: got \"inf\", expected a finite shared buffer for DRR"));
        let e = build(json!({"kind": "drr", "quantum": 0}), &link("1Mbps", Limit::Packets(5)))
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "q.quantum: got 0, expected a positive size such as \"1500B\""
        );
    }
}
