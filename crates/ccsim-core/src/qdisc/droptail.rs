//! Drop-tail FIFO (baseline.md §5): an arriving packet that does not fit is
//! dropped. The limit is in packets or bytes and counts packets waiting, not
//! the one being serialized (ns-2 convention).

use super::{DropReason, Limit, Qdisc, QdiscCtx};
use crate::packet::Packet;
use std::collections::VecDeque;

pub struct DropTail {
    q: VecDeque<Packet>,
    bytes: u64,
    limit: Limit,
}

impl DropTail {
    pub fn new(limit: Limit) -> DropTail {
        DropTail {
            q: VecDeque::new(),
            bytes: 0,
            limit,
        }
    }
}

impl Qdisc for DropTail {
    fn kind(&self) -> &'static str {
        "droptail"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) {
        if self.limit.admits(self.q.len(), self.bytes, pkt.size) {
            self.bytes += pkt.size as u64;
            self.q.push_back(pkt);
        } else {
            cx.drops.push((pkt, DropReason::Overflow));
        }
    }
    fn dequeue(&mut self, _cx: &mut QdiscCtx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    fn peek(&self) -> Option<&Packet> {
        self.q.front()
    }
    fn backlog_packets(&self) -> usize {
        self.q.len()
    }
    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
    fn limit(&self) -> Limit {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowId, Kind, NodeId};
    use crate::rng::Rng;
    use crate::units::Time;

    fn pkt(uid: u64, size: u32) -> Packet {
        Packet::new(uid, FlowId(0), NodeId(0), NodeId(1), size, Kind::Data, Time::ZERO)
    }

    fn run(limit: Limit, sizes: &[u32]) -> (Vec<u64>, Vec<u64>) {
        let mut q = DropTail::new(limit);
        let mut rng = Rng::new(0, 0);
        let mut drops = Vec::new();
        let mut marks = Vec::new();
        let mut cx = QdiscCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
            marks: &mut marks,
        };
        for (i, &s) in sizes.iter().enumerate() {
            q.enqueue(pkt(i as u64, s), &mut cx);
        }
        let mut out = Vec::new();
        while let Some(p) = q.dequeue(&mut cx) {
            out.push(p.uid);
        }
        assert_eq!(q.backlog_bytes(), 0);
        (out, drops.iter().map(|d| d.0.uid).collect())
    }

    #[test]
    fn packet_limit_drops_tail_in_fifo_order() {
        let (out, dropped) = run(Limit::Packets(3), &[100; 5]);
        assert_eq!(out, vec![0, 1, 2]);
        assert_eq!(dropped, vec![3, 4]);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        // 1000 + 1000 fit in 2500; the third 1000 does not, a 40 B ACK still does.
        let (out, dropped) = run(Limit::Bytes(2500), &[1000, 1000, 1000, 40]);
        assert_eq!(out, vec![0, 1, 3]);
        assert_eq!(dropped, vec![2]);
    }

    #[test]
    fn zero_limit_drops_everything() {
        let (out, dropped) = run(Limit::Packets(0), &[100, 100]);
        assert!(out.is_empty());
        assert_eq!(dropped.len(), 2);
    }
}
