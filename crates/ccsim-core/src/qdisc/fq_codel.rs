//! FQ-CoDel, the Flow Queue CoDel packet scheduler (RFC 8290, T.
//! Høiland-Jørgensen, P. McKenney, D. Taht, J. Gettys, E. Dumazet, 2018), as
//! Linux `net/sched/sch_fq_codel.c` runs it. Model page: docs/models/fq-codel.md.
//!
//! * Classification (§4.1.1): a packet goes to one of `flows` queues by a
//!   hash of its flow, perturbed by a random value drawn once per queue from
//!   the discipline's stream (Linux hashes the 5-tuple with a random
//!   perturbation; here the flow id stands for the 5-tuple, so two flows
//!   share a queue only on a hash collision, which depends on the seed).
//! * Scheduling (§4.2, DRR with new and old lists): a queue that becomes
//!   active and is on neither list joins the tail of `new_flows` with a
//!   deficit of one `quantum`. Dequeue looks at the head of `new_flows`, else
//!   of `old_flows`; a queue whose deficit is spent gains a quantum and moves
//!   to the tail of `old_flows`; otherwise CoDel dequeues from it (§4.2:
//!   "CoDel per queue") and its deficit is charged the packet's size. CoDel's
//!   one-MTU rule tests the discipline's total backlog, as Linux passes
//!   `sch->qstats.backlog` (`mtu_backlog = "total"`, the default), or the
//!   queue's own (`"queue"`, as ns-3's `FqCoDelQueueDisc`, whose per-flow
//!   `CoDelQueueDisc` children test their own bytes against `MinBytes`). With
//!   many flows the two differ: the total is always above one MTU, so Linux
//!   drops from a queue with nothing behind its head, ns-3 does not. A queue
//!   found empty moves to the tail of `old_flows` if it came from `new_flows`
//!   and `old_flows` is not empty (§4.2: this prevents starvation), else
//!   leaves the lists.
//! * Overflow (§4.1.2, Linux `fq_codel_drop`): when the buffer (`limit`) is
//!   exceeded after an arrival, the queue with the most bytes (a linear
//!   search, as Linux) loses packets from its head, at least one and at most
//!   `drop_batch` (Linux default 64), until half of its bytes are gone (Linux's
//!   batch drop). Those are counted as `drops_pushout`, or `drops_overflow`
//!   when the arrival itself was among them.
//! * ECN (§5.2.7): CoDel marks ECN-capable packets instead of dropping them;
//!   on by default, as in Linux's fq_codel.
//!
//! Deviations from Linux: CoDel's control law as in [`super::codel`]; the
//! buffer is the link's `limit` (packets or bytes; Linux: `limit` packets,
//! default 10240, and a `memory_limit` of 32 MB, not modelled); no
//! `ce_threshold`.

use super::codel::{read_params, CodelParams, CodelSource, CodelVars};
use super::conv::{Fifo, Fifos};
use super::fq::finite_buffer;
use super::{DropReason, Limit, LinkInfo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use crate::rng::splitmix64;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;

/// Which list a queue is on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
enum List {
    #[default]
    None,
    New,
    Old,
}

#[derive(Clone, Debug, Default)]
struct Bucket {
    q: Fifo,
    bytes: u64,
    deficit: i64,
    list: List,
}

/// FQ-CoDel's parameters.
#[derive(Copy, Clone, Debug)]
pub struct FqCodelParams {
    pub codel: CodelParams,
    /// Number of queues (hash buckets), default 1024.
    pub flows: usize,
    /// Bytes a queue may send per round, default 1514.
    pub quantum: u64,
    /// Most packets dropped at one overflow, default 64.
    pub drop_batch: u64,
    /// Whose backlog CoDel's one-MTU rule tests.
    pub mtu_backlog: MtuBacklog,
}

/// The backlog CoDel's "at most one MTU queued: no drop" rule tests in
/// FQ-CoDel (`mtu_backlog`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MtuBacklog {
    /// The discipline's total (Linux `sch_fq_codel.c`).
    Total,
    /// The packet's own queue (ns-3 `FqCoDelQueueDisc`).
    Queue,
}

pub struct FqCodel {
    prm: FqCodelParams,
    limit: Limit,
    buckets: Vec<Bucket>,
    cvars: Vec<CodelVars>,
    pool: Fifos<Packet>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    /// The hash perturbation, drawn at the first arrival.
    perturb: Option<u64>,
    pkts: usize,
    bytes: u64,
}

/// One queue as CoDel sees it: its FIFO, and the discipline's totals.
struct Source<'a> {
    pool: &'a mut Fifos<Packet>,
    b: &'a mut Bucket,
    pkts: &'a mut usize,
    bytes: &'a mut u64,
    mtu_backlog: MtuBacklog,
}

impl CodelSource for Source<'_> {
    fn pop(&mut self) -> Option<Packet> {
        let p = self.pool.pop_front(&mut self.b.q)?;
        self.b.bytes -= p.size as u64;
        *self.pkts -= 1;
        *self.bytes -= p.size as u64;
        Some(p)
    }
    fn backlog_bytes(&self) -> u64 {
        match self.mtu_backlog {
            MtuBacklog::Total => *self.bytes,
            MtuBacklog::Queue => self.b.bytes,
        }
    }
}

impl FqCodel {
    pub fn new(prm: FqCodelParams, limit: Limit) -> FqCodel {
        FqCodel {
            prm,
            limit,
            buckets: vec![Bucket::default(); prm.flows],
            cvars: vec![CodelVars::default(); prm.flows],
            pool: Fifos::default(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            perturb: None,
            pkts: 0,
            bytes: 0,
        }
    }

    /// The queue of `pkt` (§4.1.1): a seeded hash of the flow, scaled to
    /// `flows` as Linux's `reciprocal_scale`.
    fn classify(&self, pkt: &Packet) -> usize {
        let mut x = pkt.flow.0 as u64 ^ self.perturb.unwrap_or(0);
        let h = splitmix64(&mut x) >> 32;
        ((h * self.prm.flows as u64) >> 32) as usize
    }

    /// Linux `fq_codel_drop`: drops from the head of the fattest queue until
    /// half its bytes are gone (at least one packet, at most `drop_batch`).
    /// Returns the queue.
    fn drop_fattest(&mut self, cx: &mut QdiscCtx, arrival: u64) -> (usize, bool) {
        let (fat, b) = self
            .buckets
            .iter()
            .enumerate()
            .max_by_key(|(i, b)| (b.bytes, std::cmp::Reverse(*i)))
            .expect("at least one queue");
        let threshold = b.bytes / 2;
        let mut src = Source {
            pool: &mut self.pool,
            b: &mut self.buckets[fat],
            pkts: &mut self.pkts,
            bytes: &mut self.bytes,
            mtu_backlog: self.prm.mtu_backlog,
        };
        let (mut n, mut len, mut arrival_dropped) = (0, 0, false);
        while let Some(p) = src.pop() {
            len += p.size as u64;
            n += 1;
            if p.uid == arrival {
                arrival_dropped = true;
                cx.drop(p, DropReason::Overflow);
            } else {
                cx.drop(p, DropReason::PushOut);
            }
            if n >= self.prm.drop_batch || len >= threshold {
                break;
            }
        }
        (fat, arrival_dropped)
    }
}

impl Qdisc for FqCodel {
    fn kind(&self) -> &'static str {
        "fq_codel"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        if self.perturb.is_none() {
            self.perturb = Some(cx.rng.next_u64());
        }
        let i = self.classify(&pkt);
        let (uid, size) = (pkt.uid, pkt.size as u64);
        let b = &mut self.buckets[i];
        self.pool.push_back(&mut b.q, pkt);
        b.bytes += size;
        self.pkts += 1;
        self.bytes += size;
        if b.list == List::None {
            b.list = List::New;
            b.deficit = self.prm.quantum as i64;
            self.new_flows.push_back(i);
        }
        let mut arrival_dropped = false;
        while !self.limit.holds(self.pkts, self.bytes) {
            // (Linux drops one batch per arrival; a byte limit may need more.)
            arrival_dropped |= self.drop_fattest(cx, uid).1;
        }
        if arrival_dropped {
            return None;
        }
        self.pool.back(&self.buckets[i].q)
    }
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet> {
        loop {
            let (i, from_new) = match self.new_flows.front() {
                Some(&i) => (i, true),
                None => (*self.old_flows.front()?, false),
            };
            let pop = |s: &mut Self| {
                if from_new {
                    s.new_flows.pop_front()
                } else {
                    s.old_flows.pop_front()
                }
            };
            if self.buckets[i].deficit <= 0 {
                // §4.2: a new round for this queue, at the tail of old_flows.
                self.buckets[i].deficit += self.prm.quantum as i64;
                pop(self);
                self.buckets[i].list = List::Old;
                self.old_flows.push_back(i);
                continue;
            }
            let mut src = Source {
                pool: &mut self.pool,
                b: &mut self.buckets[i],
                pkts: &mut self.pkts,
                bytes: &mut self.bytes,
                mtu_backlog: self.prm.mtu_backlog,
            };
            match self.cvars[i].dequeue(&self.prm.codel, &mut src, cx) {
                Some(p) => {
                    self.buckets[i].deficit -= p.size as i64;
                    return Some(p);
                }
                None => {
                    pop(self);
                    if from_new && !self.old_flows.is_empty() {
                        self.buckets[i].list = List::Old;
                        self.old_flows.push_back(i);
                    } else {
                        self.buckets[i].list = List::None;
                    }
                }
            }
        }
    }
    fn peek(&self) -> Option<&Packet> {
        // Replays the scheduler's choice without CoDel (which may drop the
        // packet it would send: see `Drive::deq`).
        let mut new: VecDeque<(usize, i64)> = self.new_flows.iter().map(|&i| (i, self.buckets[i].deficit)).collect();
        let mut old: VecDeque<(usize, i64)> = self.old_flows.iter().map(|&i| (i, self.buckets[i].deficit)).collect();
        loop {
            let from_new = !new.is_empty();
            let (i, d) = if from_new { new.pop_front()? } else { old.pop_front()? };
            if d <= 0 {
                old.push_back((i, d + self.prm.quantum as i64));
                continue;
            }
            if let Some(p) = self.pool.front(&self.buckets[i].q) {
                return Some(p);
            }
            if from_new && !old.is_empty() {
                old.push_back((i, d));
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
        out.push(TraceValue::new("new_flows", self.new_flows.len() as f64));
        out.push(TraceValue::new("old_flows", self.old_flows.len() as f64));
    }
}

// ----- scenario

#[derive(Debug)]
struct Spec(FqCodelParams);

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        finite_buffer(link, "FQ-CoDel")?;
        Ok(Box::new(FqCodel::new(self.0, link.limit)))
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "target",
        "FQ-CoDel: acceptable standing queue delay of each flow queue (RFC 8289, default 5 ms, below interval)",
    ),
    (
        "interval",
        "FQ-CoDel: window the sojourn must stay above target before drops start (default 100 ms)",
    ),
    (
        "mtu",
        "FQ-CoDel: no drop while the backlog mtu_backlog names holds at most this many bytes",
    ),
    (
        "ecn",
        "FQ-CoDel: mark ECN-capable packets instead of dropping them (on by default)",
    ),
    (
        "inv_sqrt",
        "CoDel: interval/sqrt(count) \"exact\" (RFC 8289) or by Linux's and ns-3's one Newton step per count (\"newton\")",
    ),
    ("flows", "FQ-CoDel: number of flow queues (hash buckets), default 1024"),
    ("quantum", "FQ-CoDel quantum: bytes a queue sends per round"),
    (
        "drop_batch",
        "FQ-CoDel: most packets dropped from the fattest queue at one overflow (Linux: 64)",
    ),
    (
        "mtu_backlog",
        "FQ-CoDel: whose backlog CoDel's one-MTU rule tests: \"total\" (Linux) or the flow's \"queue\" (ns-3)",
    ),
];

/// `kind = "fq_codel"`: CoDel's keys (with `ecn` on by default), `flows`,
/// `quantum`, `drop_batch`, `mtu_backlog`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let codel = read_params(t, true)?;
    let flows = t.uint("flows", Some(1024), 1, 65536)? as usize;
    let quantum = t.size("quantum", Some("1514B"))?;
    if quantum == 0 {
        return Err(t.error("quantum", &Value::from("0B"), "a positive size such as \"1514B\""));
    }
    let drop_batch = t.uint("drop_batch", Some(64), 1, 1_000_000)?;
    let mtu_backlog = match t.choice("mtu_backlog", Some("total"), &["total", "queue"])?.as_str() {
        "queue" => MtuBacklog::Queue,
        _ => MtuBacklog::Total,
    };
    Ok(Arc::new(Spec(FqCodelParams {
        codel,
        flows,
        quantum,
        drop_batch,
        mtu_backlog,
    })))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use crate::packet::Ecn;
    use crate::units::Time;
    use serde_json::json;

    fn prm(flows: usize, quantum: u64) -> FqCodelParams {
        FqCodelParams {
            codel: CodelParams {
                target: Time::from_millis(5),
                interval: Time::from_millis(100),
                mtu: 1500,
                ecn: true,
                newton: false,
            },
            flows,
            quantum,
            drop_batch: 64,
            mtu_backlog: MtuBacklog::Total,
        }
    }

    fn fqc(flows: usize, quantum: u64, limit: Limit) -> Drive<FqCodel> {
        Drive::new(Box::new(FqCodel::new(prm(flows, quantum), limit)))
    }

    /// Two flows each keep one 1000-B packet behind the one being sent (a
    /// quantum of one packet: the flows alternate), and every packet waits
    /// 10 ms, above the 5-ms target. Returns CoDel's drops in 600 ms.
    fn drops_with_one_packet_behind(mtu_backlog: MtuBacklog) -> Vec<(u64, DropReason)> {
        let mut d = Drive::new(Box::new(FqCodel::new(
            FqCodelParams {
                mtu_backlog,
                ..prm(65536, 1000)
            },
            Limit::Packets(1000),
        )));
        let mut uid = 0;
        for step in 0..=60u64 {
            d.now = Time::from_millis(10 * step);
            for flow in 0..2 {
                d.enq(pkt(uid, flow, 1000));
                uid += 1;
            }
            if step > 0 {
                d.deq();
                d.deq();
            }
        }
        d.dropped()
    }

    #[test]
    fn the_one_mtu_rule_tests_the_total_or_the_queues_backlog() {
        // Linux: after flow 0's head leaves, the total is three packets, above
        // one MTU; the sojourn has been above target since 10 ms, so at 110 ms
        // CoDel drops flow 0's packet of 100 ms (uid 20). Flow 0 then sends
        // its packet of 110 ms at once and is left empty, so from then on the
        // total after a head leaves is one packet: no more drops.
        assert_eq!(
            drops_with_one_packet_behind(MtuBacklog::Total),
            vec![(20, DropReason::Early)]
        );
        // ns-3: each queue holds one packet (1000 B ≤ 1500 B) after its head
        // leaves: CoDel never drops.
        assert_eq!(drops_with_one_packet_behind(MtuBacklog::Queue), vec![]);
    }

    #[test]
    fn backlogged_flows_share_by_quantum_in_bytes() {
        // Quantum 1500 B: flow 0 sends 1500-B packets, flow 1 500-B packets;
        // per round flow 0 sends one packet, flow 1 three (deficit 1500 →
        // 1000 → 500 → 0). Flow 0 arrived first: it is served first.
        let mut d = fqc(65536, 1500, Limit::Packets(1000));
        for i in 0..3 {
            d.enq(pkt(i, 0, 1500));
        }
        for i in 0..9 {
            d.enq(pkt(100 + i, 1, 500));
        }
        assert_ne!(d.q.classify(&pkt(0, 0, 1)), d.q.classify(&pkt(0, 1, 1)));
        assert_eq!(d.drain(), vec![0, 100, 101, 102, 1, 103, 104, 105, 2, 106, 107, 108]);
    }

    #[test]
    fn rfc8290_a_sparse_flow_goes_ahead_of_the_old_flows() {
        // Flow 0 is backlogged (an old flow once it spent its first quantum);
        // a single packet of flow 1 arriving later joins new_flows and is sent
        // next, ahead of flow 0's remaining packets (§4.2, §1.3 sparse flows).
        let mut d = fqc(65536, 1500, Limit::Packets(1000));
        for i in 0..5 {
            d.enq(pkt(i, 0, 1500));
        }
        assert_eq!(d.deq().unwrap().uid, 0);
        assert_eq!(
            d.deq().unwrap().uid,
            1,
            "deficit spent: moves to old_flows, gets a quantum"
        );
        d.enq(pkt(50, 1, 100));
        assert_eq!(d.deq().unwrap().uid, 50);
        assert_eq!(d.drain(), vec![2, 3, 4]);
    }

    #[test]
    fn overflow_drops_half_of_the_fattest_queue_from_its_head() {
        // limit 10 packets: flow 0 holds 8 × 1000 B, flow 1 two. The 11th
        // packet (flow 1) overflows: flow 0 (8000 B, the fattest) loses packets
        // from its head until 4000 B are gone: 4 packets.
        let mut d = fqc(65536, 1500, Limit::Packets(10));
        for i in 0..8 {
            d.enq(pkt(i, 0, 1000));
        }
        d.enq(pkt(100, 1, 1000));
        d.enq(pkt(101, 1, 1000));
        assert!(d.enq(pkt(102, 1, 1000)));
        assert_eq!(
            d.dropped(),
            vec![
                (0, DropReason::PushOut),
                (1, DropReason::PushOut),
                (2, DropReason::PushOut),
                (3, DropReason::PushOut)
            ]
        );
        assert_eq!(d.q.backlog_packets(), 7);
        // The arrival is dropped when it is in the queue that empties.
        let mut d = fqc(65536, 1500, Limit::Packets(0));
        assert!(!d.enq(pkt(7, 0, 1000)));
        assert_eq!(d.dropped(), vec![(7, DropReason::Overflow)]);
    }

    #[test]
    fn codel_runs_per_queue() {
        // Flow 0 keeps a standing queue (all its packets enqueued at 0), flow
        // 1 sends one packet per 2 ms that never waits long: CoDel drops (or
        // marks) only flow 0's packets.
        let mut d = fqc(65536, 1500, Limit::Packets(100_000));
        for i in 0..3000 {
            d.enq(pkt(i, 0, 1000));
        }
        let mut marked_1 = 0;
        for ms in 0..600u64 {
            d.now = Time::from_millis(ms);
            if ms % 2 == 0 {
                let mut p = pkt(10_000 + ms, 1, 1000);
                p.ecn = Ecn::Ect0;
                d.enq(p);
            }
            if let Some(p) = d.deq() {
                marked_1 += (p.flow.0 == 1 && p.ecn == Ecn::Ce) as u32;
            }
        }
        assert!(
            d.drops.len() >= 5,
            "flow 0 (not ECN-capable) is dropped: {}",
            d.drops.len()
        );
        assert!(d.drops.iter().all(|(p, r)| p.flow.0 == 0 && *r == DropReason::Early));
        assert_eq!(marked_1, 0);
    }

    #[test]
    fn hash_collisions_depend_on_the_perturbation() {
        // 8 buckets, 64 flows: every bucket is used, and a different
        // perturbation gives a different mapping.
        let mut q = FqCodel::new(prm(8, 1514), Limit::Packets(10));
        let map = |q: &FqCodel| (0..64).map(|f| q.classify(&pkt(0, f, 1))).collect::<Vec<_>>();
        q.perturb = Some(1);
        let a = map(&q);
        q.perturb = Some(2);
        let b = map(&q);
        assert_ne!(a, b);
        for k in 0..8 {
            assert!(a.contains(&k));
        }
    }

    #[test]
    fn reads_defaults_and_names_bad_keys() {
        let l = link("10Mbps", Limit::Packets(10240));
        let q = build(json!({"kind": "fq_codel"}), &l).unwrap();
        assert_eq!(q.kind(), "fq_codel");
        let e = build(json!({"kind": "fq_codel", "flows": 0}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.flows: got 0"), "{e}");
        let e = build(json!({"kind": "fq_codel", "quantum": "0B"}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.quantum: "), "{e}");
        let e = build(json!({"kind": "fq_codel", "mtu_backlog": "flow"}), &l)
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("q.mtu_backlog: "), "{e}");
        let e = build(json!({"kind": "fq_codel", "target": "1s"}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.target: "), "{e}");
        let e = build(json!({"kind": "fq_codel"}), &link("10Mbps", Limit::Unlimited))
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("q.limit: "), "{e}");
    }
}
