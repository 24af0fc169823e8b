//! NDP's trimming switch queue (Handley et al., "Re-architecting datacenter
//! networks and stacks for low latency and high performance", SIGCOMM 2017,
//! §3.1 and Fig. 2; as htsim's `CompositeQueue`). Model page:
//! docs/models/ndp.md.
//!
//! Two FIFOs: a small data queue (the link's `limit`, 8 packets in the
//! paper) and a header queue served at priority. A data packet (kind `Data`
//! with payload) that does not fit in the data queue is trimmed: its payload
//! is cut (`len` = 0, `size` = `header` bytes) and it joins the header queue.
//! As htsim does, the victim is the arrival with probability ½, else the
//! packet at the tail of the data queue, whose place the arrival then takes
//! (so a flow arriving late is not the one always trimmed). Headers, ACKs,
//! NACKs and PULLs (every packet of kind `Ack`, and a data packet without
//! payload) go to the header queue; a packet that does not fit in it
//! (`header_limit`, htsim: twice the data queue in bytes) is dropped.
//!
//! Service: when both queues hold packets, the header queue is served
//! `ratio_high` times for every `ratio_low` data packet (htsim's weighted
//! round: 100 000 to 1, priority in effect, with a data packet let through
//! now and then so the data queue cannot starve for ever); otherwise
//! whichever holds packets. A trim is counted as a mark of reason `Trim`
//! (the `trims` column of the queues table; not a CE mark).

use super::{DropReason, Limit, LinkInfo, MarkReason, PacketFifo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{Res, Tab};
use crate::packet::{Kind, Packet};
use std::sync::Arc;

/// Goes to the header (priority) queue: control packets and trimmed headers.
#[inline]
pub fn is_header(p: &Packet) -> bool {
    p.kind == Kind::Ack || (p.kind == Kind::Data && p.len == 0)
}

pub struct NdpQueue {
    data: PacketFifo,
    hdr: PacketFifo,
    /// The data queue's limit (the link's).
    limit: Limit,
    /// The header queue's limit, packets.
    hdr_limit: usize,
    /// Bytes a trimmed packet keeps.
    header: u32,
    ratio_high: u64,
    ratio_low: u64,
    /// Position in the weighted round (htsim's `_crt`).
    crt: u64,
    /// Which trim rule: the arrival always (false), or htsim's coin (true).
    coin: bool,
    trims: u64,
}

impl NdpQueue {
    pub fn new(limit: Limit, hdr_limit: usize, header: u32, ratio: (u64, u64), coin: bool) -> NdpQueue {
        NdpQueue {
            data: PacketFifo::default(),
            hdr: PacketFifo::default(),
            limit,
            hdr_limit,
            header,
            ratio_high: ratio.0,
            ratio_low: ratio.1,
            crt: 0,
            coin,
            trims: 0,
        }
    }

    fn trim(&mut self, mut p: Packet, cx: &mut QdiscCtx) -> Packet {
        p.len = 0;
        p.size = self.header;
        self.trims += 1;
        cx.mark(MarkReason::Trim);
        p
    }

    /// Serves the header queue next? (Both non-empty: the weighted round,
    /// whose position `crt` would move to `next`.)
    fn high_next(&self) -> (bool, u64) {
        match (self.hdr.is_empty(), self.data.is_empty()) {
            (false, false) => {
                let next = (self.crt + 1) % (self.ratio_high + self.ratio_low);
                (next < self.ratio_high, next)
            }
            (false, true) => (true, self.crt),
            _ => (false, self.crt),
        }
    }
}

impl Qdisc for NdpQueue {
    fn kind(&self) -> &'static str {
        "ndp"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        let mut pkt = pkt;
        if !is_header(&pkt) {
            if self.data.admits(self.limit, pkt.size) {
                return Some(self.data.push(pkt));
            }
            // Trim the arrival, or (htsim's coin) the tail, if that makes room.
            let tail_fits = !self.data.is_empty()
                && self.limit.admits(
                    self.data.len() - 1,
                    self.data.bytes() - self.data[self.data.len() - 1].size as u64,
                    pkt.size,
                );
            if self.coin && tail_fits && cx.rng.uniform() < 0.5 {
                let victim = self.data.remove(self.data.len() - 1).expect("tail");
                let v = self.trim(victim, cx);
                if self.hdr.len() < self.hdr_limit {
                    self.hdr.push(v);
                } else {
                    cx.drop(v, DropReason::Overflow);
                }
                return Some(self.data.push(pkt));
            }
            pkt = self.trim(pkt, cx);
        }
        if self.hdr.len() < self.hdr_limit {
            Some(self.hdr.push(pkt))
        } else {
            cx.drop(pkt, DropReason::Overflow);
            None
        }
    }
    fn dequeue(&mut self, _cx: &mut QdiscCtx) -> Option<Packet> {
        let (high, next) = self.high_next();
        self.crt = next;
        if high {
            self.hdr.pop()
        } else {
            self.data.pop()
        }
    }
    fn peek(&self) -> Option<&Packet> {
        if self.high_next().0 {
            self.hdr.front()
        } else {
            self.data.front()
        }
    }
    /// An arrival to an empty queue fits and changes no state (the round's
    /// counter moves only while both queues hold packets).
    fn passes_idle(&self) -> bool {
        true
    }
    fn backlog_packets(&self) -> usize {
        self.data.len() + self.hdr.len()
    }
    fn backlog_bytes(&self) -> u64 {
        self.data.bytes() + self.hdr.bytes()
    }
    /// The data queue's limit plus the header queue's: what both may hold.
    fn limit(&self) -> Limit {
        match self.limit {
            Limit::Packets(n) => Limit::Packets(n + self.hdr_limit as u64),
            Limit::Bytes(b) => Limit::Bytes(b + self.hdr_limit as u64 * self.header as u64),
            Limit::Unlimited => Limit::Unlimited,
        }
    }
    fn trace(&self, out: &mut Vec<TraceValue>) {
        out.push(TraceValue::new("data_pkts", self.data.len() as f64));
        out.push(TraceValue::new("header_pkts", self.hdr.len() as f64));
        out.push(TraceValue::new("trims", self.trims as f64));
    }
}

// ----- scenario

#[derive(Debug)]
struct Spec {
    header: u32,
    header_limit: Option<u64>,
    ratio: (u64, u64),
    coin: bool,
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        if link.limit == Limit::Unlimited {
            return Err(link.error(
                "limit",
                "\"inf\"",
                "a finite data queue for a trimming queue (NDP: 8pkt in the paper)",
            ));
        }
        // htsim: the header queue holds twice the data queue's bytes.
        let data_bytes = match link.limit {
            Limit::Packets(n) => n * link.max_packet.max(self.header as u64),
            Limit::Bytes(b) => b,
            Limit::Unlimited => 0,
        };
        let hdr = self
            .header_limit
            .unwrap_or((2 * data_bytes / self.header as u64).max(1));
        Ok(Box::new(NdpQueue::new(
            link.limit,
            hdr as usize,
            self.header,
            self.ratio,
            self.coin,
        )))
    }
}

const DOCS: &[(&str, &str)] = &[
    ("header", "bytes a trimmed packet keeps (NDP: 64)"),
    (
        "header_limit",
        "header queue size in packets (default: twice the data queue's bytes in headers, as htsim)",
    ),
    ("ratio_high", "header-queue services per round when both queues hold packets (htsim: 100000)"),
    ("ratio_low", "data-queue services per round when both queues hold packets (htsim: 1)"),
    (
        "trim",
        "which packet is trimmed when the data queue is full: \"coin\" (htsim: the arrival or the tail, ½ each) or \"arrival\"",
    ),
];

/// `kind = "ndp"`: the data queue is the link's `limit`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let header = t.uint("header", Some(64), 1, 65_535)? as u32;
    let header_limit = t.opt_uint("header_limit", 1, 1 << 32)?;
    let high = t.uint("ratio_high", Some(100_000), 1, 1 << 32)?;
    let low = t.uint("ratio_low", Some(1), 0, 1 << 32)?;
    let coin = t.choice("trim", Some("coin"), &["coin", "arrival"])? == "coin";
    Ok(Arc::new(Spec {
        header,
        header_limit,
        ratio: (high, low),
        coin,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use serde_json::json;

    fn data(uid: u64) -> Packet {
        let mut p = pkt(uid, 0, 9064);
        p.len = 9000;
        p
    }
    fn ack(uid: u64) -> Packet {
        let mut p = pkt(uid, 0, 64);
        p.kind = Kind::Ack;
        p
    }
    fn queue(ratio: (u64, u64), coin: bool) -> Drive<NdpQueue> {
        Drive::new(Box::new(NdpQueue::new(Limit::Packets(2), 3, 64, ratio, coin)))
    }

    #[test]
    fn a_full_data_queue_trims_the_arrival_and_serves_headers_first() {
        // Data queue of 2: packets 0, 1 queue; 2 and 3 are trimmed to 64 B
        // headers; the ACK 4 joins them; every header leaves before the data.
        let mut d = queue((100_000, 1), false);
        for i in 0..4 {
            assert!(d.enq(data(i)));
        }
        assert!(d.enq(ack(4)));
        assert_eq!(d.marks, vec![MarkReason::Trim; 2]);
        assert_eq!(d.q.backlog_bytes(), 2 * 9064 + 3 * 64);
        let out: Vec<(u64, u32, u32)> = std::iter::from_fn(|| d.deq()).map(|p| (p.uid, p.size, p.len)).collect();
        assert_eq!(
            out,
            vec![(2, 64, 0), (3, 64, 0), (4, 64, 0), (0, 9064, 9000), (1, 9064, 9000)]
        );
        assert_eq!(d.trace("trims"), 2.0);
    }

    #[test]
    fn a_full_header_queue_drops() {
        // 2 data + 3 headers fit; the sixth packet (a header) is dropped.
        let mut d = queue((100_000, 1), false);
        for i in 0..5 {
            assert!(d.enq(data(i)));
        }
        assert!(!d.enq(data(5)));
        assert_eq!(d.dropped(), vec![(5, DropReason::Overflow)]);
        assert_eq!(d.marks.len(), 4, "the dropped one was trimmed first");
    }

    #[test]
    fn the_weighted_round_lets_one_data_packet_through_per_ratio() {
        // ratio 2:1 with both queues busy: high, low, high, high, low, ...
        // (htsim's counter starts at 0 and is incremented before the choice).
        let mut d = queue((2, 1), false);
        d.q.hdr_limit = 10;
        d.enq(data(0));
        d.enq(data(1));
        for i in 10..16 {
            d.enq(ack(i));
        }
        let out: Vec<u64> = d.drain();
        assert_eq!(out, vec![10, 0, 11, 12, 1, 13, 14, 15]);
    }

    #[test]
    fn the_coin_trims_the_tail_about_half_the_time() {
        let mut d = queue((100_000, 1), true);
        let (mut tail, n) = (0, 2000);
        for r in 0..n {
            d.enq(data(3 * r));
            d.enq(data(3 * r + 1));
            d.enq(data(3 * r + 2)); // does not fit
            let trimmed = d.deq().unwrap();
            assert_eq!(trimmed.len, 0);
            // the tail (3r+1) was trimmed and 3r+2 queued, or 3r+2 itself
            if trimmed.uid == 3 * r + 1 {
                tail += 1;
            } else {
                assert_eq!(trimmed.uid, 3 * r + 2);
            }
            assert_eq!(d.drain().len(), 2);
        }
        // Binomial(2000, ½): within 4.5 standard deviations (±100).
        assert!((tail as i64 - 1000).abs() < 100, "{tail}");
    }

    #[test]
    fn reads_its_keys_and_sizes_the_header_queue_as_htsim() {
        let q = build(json!({"kind": "ndp"}), &link("10Gbps", Limit::Packets(8))).unwrap();
        // 2 · 8 · 1500 B / 64 B = 375 headers besides the 8 data packets.
        assert_eq!((q.kind(), q.limit()), ("ndp", Limit::Packets(8 + 375)));
        let e = build(json!({"kind": "ndp"}), &link("10Gbps", Limit::Unlimited))
            .err()
            .unwrap();
        assert_eq!(e.path, "q.limit");
        let e = build(
            json!({"kind": "ndp", "trim": "head"}),
            &link("10Gbps", Limit::Packets(8)),
        )
        .err()
        .unwrap();
        assert_eq!(e.path, "q.trim");
    }
}
