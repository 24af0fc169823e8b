//! Priority discard, the BLT switch discipline (docs/models/blt.md, L13–L15; the BLT paper's
//! §4 switch and its "future work" fix). Model page: docs/models/priority-discard.md.
//!
//! A FIFO (priorities never reorder service) whose overflow rule looks at the
//! packets' priority numbers `P` (the `priority` field; larger = less
//! important, 0 the default). When an arrival does not fit:
//!
//! * `variant = "paper"` (§4.1, used for all the paper's BLT results): if
//!   `P(arrival) ≥ P(q)` for every queued `q`, the arrival is dropped; else the
//!   packet nearest the tail with `P(q) > P(arrival)` is removed and the
//!   arrival appended. The victim is not necessarily the least important
//!   packet (the authors call this a flaw);
//! * `variant = "fixed"` (§4.2): with `m` the largest queued priority number,
//!   the arrival is dropped if `P(arrival) ≥ m`, else the packet with `P = m`
//!   nearest the tail is removed and the arrival appended.
//!
//! With all priorities equal (TCP runs, §4.3) both are drop-tail.
//!
//! Choices: the packet in transmission is not in the queue and is never a
//! victim (§4). With a byte limit the rule is applied repeatedly (the next
//! candidate toward the head, resp. the next largest number) until the arrival
//! fits; if the candidates cannot make room, only the arrival is dropped. ACKs
//! get no special treatment: give them priority 0 or their own queue (blt.md
//! L13 uses infinite reverse buffers). Cost: O(queue length) per overflow.

use super::PacketFifo;
use super::{DropReason, Limit, LinkInfo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use std::sync::Arc;

/// Which overflow rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The paper's: the first packet found from the tail that is less important than the arrival.
    Paper,
    /// The fix: the least important packet (nearest the tail among equals).
    Fixed,
}

pub struct PrioDiscard {
    q: PacketFifo,
    limit: Limit,
    variant: Variant,
}

impl PrioDiscard {
    pub fn new(limit: Limit, variant: Variant) -> PrioDiscard {
        PrioDiscard {
            q: PacketFifo::default(),
            limit,
            variant,
        }
    }

    /// Indices of the packets to remove so that `arrival` fits (descending), or
    /// None if the rule finds no way to make room.
    fn victims(&self, arrival: &Packet) -> Option<Vec<usize>> {
        let mut chosen: Vec<usize> = Vec::new();
        let (mut pkts, mut bytes) = (self.q.len(), self.q.bytes());
        let p = arrival.priority;
        while !self.limit.admits(pkts, bytes, arrival.size) {
            let next = match self.variant {
                // Nearest the tail with a larger number, below the last victim.
                Variant::Paper => {
                    let below = chosen.last().copied().unwrap_or(self.q.len());
                    (0..below).rev().find(|&j| self.q[j].priority > p)
                }
                // The largest number, nearest the tail, among those not chosen.
                Variant::Fixed => (0..self.q.len())
                    .rev()
                    .filter(|j| !chosen.contains(j))
                    .filter(|&j| self.q[j].priority > p)
                    .max_by_key(|&j| (self.q[j].priority, j)),
            }?;
            pkts -= 1;
            bytes -= self.q[next].size as u64;
            chosen.push(next);
        }
        chosen.sort_unstable_by(|a, b| b.cmp(a));
        Some(chosen)
    }
}

impl Qdisc for PrioDiscard {
    fn kind(&self) -> &'static str {
        "prio_discard"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        match self.victims(&pkt) {
            None => {
                cx.drop(pkt, DropReason::Overflow);
                None
            }
            Some(vs) => {
                for j in vs {
                    let v = self.q.remove(j).expect("victim index in range");
                    cx.drop(v, DropReason::PushOut);
                }
                Some(self.q.push(pkt))
            }
        }
    }
    fifo_methods!(plain);
    fn trace(&self, out: &mut Vec<TraceValue>) {
        let max = self.q.iter().map(|p| p.priority).max();
        out.push(TraceValue::new("max_priority", max.map_or(f64::NAN, |m| m as f64)));
    }
}

// ----- scenario

#[derive(Debug)]
struct Spec {
    variant: Variant,
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(PrioDiscard::new(link.limit, self.variant)))
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[(
    "variant",
    "priority discard: \"paper\" or \"fixed\" (docs/models/priority-discard.md)",
)];

/// `kind = "prio_discard"`: `variant = "paper"` (default) or `"fixed"`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let variant = match t.choice("variant", Some("paper"), &["paper", "fixed"])?.as_str() {
        "fixed" => Variant::Fixed,
        _ => Variant::Paper,
    };
    Ok(Arc::new(Spec { variant }))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use serde_json::json;

    fn prio(uid: u64, priority: u8) -> Packet {
        let mut p = pkt(uid, 0, 1000);
        p.priority = priority;
        p
    }

    /// A full 5-packet queue with priority numbers [2, 7, 3, 9, 4] (head to tail).
    fn full(variant: Variant) -> Drive<PrioDiscard> {
        let mut d = Drive::new(Box::new(PrioDiscard::new(Limit::Packets(5), variant)));
        for (uid, p) in [(1, 2), (2, 7), (3, 3), (4, 9), (5, 4)] {
            assert!(d.enq(prio(uid, p)), "room: priorities ignored until full");
        }
        d
    }

    #[test]
    fn paper_variant_removes_the_first_less_important_packet_from_the_tail() {
        // Arrival P = 5: from the tail, 4 (not > 5), then 9 > 5: uid 4 goes.
        // Then arrival P = 3: the tail packet (P = 5 > 3) goes, although the
        // packet with P = 7 is less important.
        let mut d = full(Variant::Paper);
        assert!(d.enq(prio(6, 5)));
        assert_eq!(d.dropped(), vec![(4, DropReason::PushOut)]);
        assert!(d.enq(prio(7, 3)));
        assert_eq!(d.dropped()[1], (6, DropReason::PushOut), "P = 5 > 3, nearest the tail");
        assert_eq!(d.drain(), vec![1, 2, 3, 5, 7], "FIFO order is kept");
    }

    #[test]
    fn paper_variant_drops_an_arrival_no_more_important_than_all() {
        let mut d = full(Variant::Paper);
        assert!(!d.enq(prio(6, 9)));
        assert!(!d.enq(prio(7, 12)));
        assert_eq!(d.dropped(), vec![(6, DropReason::Overflow), (7, DropReason::Overflow)]);
    }

    #[test]
    fn fixed_variant_removes_the_least_important_nearest_the_tail() {
        let mut d = full(Variant::Fixed);
        assert!(d.enq(prio(6, 3)));
        assert_eq!(d.dropped(), vec![(4, DropReason::PushOut)], "P = 9 is the largest");
        // Now [2, 7, 3, 4, 3]: arrival 1 removes 7 (uid 2).
        assert!(d.enq(prio(7, 1)));
        assert_eq!(d.dropped()[1], (2, DropReason::PushOut));
        // Now [2, 3, 4, 3, 1]: arrival 0 removes 4 (uid 5).
        assert!(d.enq(prio(8, 0)));
        assert_eq!(d.dropped()[2], (5, DropReason::PushOut));
        assert!(!d.enq(prio(9, 3)), "3 ≥ the largest number left (3)");
        assert_eq!(d.drain(), vec![1, 3, 6, 7, 8]);
    }

    #[test]
    fn fixed_variant_ties_go_to_the_packet_nearest_the_tail() {
        let mut d = Drive::new(Box::new(PrioDiscard::new(Limit::Packets(3), Variant::Fixed)));
        for (uid, p) in [(1, 5), (2, 5), (3, 1)] {
            d.enq(prio(uid, p));
        }
        assert!(d.enq(prio(4, 0)));
        assert_eq!(d.dropped(), vec![(2, DropReason::PushOut)]);
    }

    #[test]
    fn equal_priorities_make_it_drop_tail() {
        for v in [Variant::Paper, Variant::Fixed] {
            let mut d = Drive::new(Box::new(PrioDiscard::new(Limit::Packets(3), v)));
            for uid in 0..6 {
                d.enq(prio(uid, 0));
            }
            assert_eq!(d.dropped().iter().map(|x| x.0).collect::<Vec<_>>(), vec![3, 4, 5]);
            assert_eq!(d.drain(), vec![0, 1, 2]);
        }
    }

    #[test]
    fn byte_limit_removes_as_many_as_needed_or_none() {
        // 3000 B buffer with 1000, 500, 500, 1000 B at P = 5, 6, 7, 1.
        let mut d = Drive::new(Box::new(PrioDiscard::new(Limit::Bytes(3000), Variant::Fixed)));
        for (uid, size, p) in [(1, 1000, 5), (2, 500, 6), (3, 500, 7), (4, 1000, 1)] {
            let mut x = pkt(uid, 0, size);
            x.priority = p;
            d.enq(x);
        }
        // A 1000-B arrival at P = 2 needs two 500-B victims: 7 then 6.
        let mut a = pkt(5, 0, 1000);
        a.priority = 2;
        assert!(d.enq(a));
        assert_eq!(d.dropped(), vec![(3, DropReason::PushOut), (2, DropReason::PushOut)]);
        // A 1500-B arrival at P = 3: only uid 1 (1000 B, P = 5) is less important: not enough.
        let mut b = pkt(6, 0, 1500);
        b.priority = 3;
        assert!(!d.enq(b));
        assert_eq!(d.dropped()[2], (6, DropReason::Overflow));
        assert_eq!(d.drain(), vec![1, 4, 5]);
    }

    #[test]
    fn reads_the_variant() {
        let q = build(
            json!({"kind": "prio_discard", "variant": "fixed"}),
            &link("1Mbps", Limit::Packets(4)),
        )
        .unwrap();
        assert_eq!(q.kind(), "prio_discard");
        let e = build(
            json!({"kind": "prio_discard", "variant": "best"}),
            &link("1Mbps", Limit::Packets(4)),
        );
        assert_eq!(
            e.err().unwrap().to_string(),
            "q.variant: got \"best\", expected one of \"paper\", \"fixed\""
        );
    }
}
