//! Drop-tail FIFO (docs/models/links-and-queues.md, "DropTail"): an arriving
//! packet that does not fit is dropped. The limit is in packets or bytes and
//! counts packets waiting, not the one being serialized (ns-2's convention:
//! docs/models/links-and-queues.md, "Conventions").

use super::PacketFifo;
use super::{DropReason, Limit, LinkInfo, Qdisc, QdiscCtx, QdiscSpec};
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use std::sync::Arc;

/// DropTail has no parameters besides the common `limit`.
#[derive(Debug)]
pub struct Spec;

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(DropTail::new(link.limit)))
    }
}

pub fn read(_t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    Ok(Arc::new(Spec))
}

pub struct DropTail {
    q: PacketFifo,
    limit: Limit,
}

impl DropTail {
    pub fn new(limit: Limit) -> DropTail {
        DropTail {
            q: PacketFifo::default(),
            limit,
        }
    }
}

impl Qdisc for DropTail {
    fn kind(&self) -> &'static str {
        "droptail"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        if self.q.admits(self.limit, pkt.size) {
            Some(self.q.push(pkt))
        } else {
            cx.drop(pkt, DropReason::Overflow);
            None
        }
    }
    fifo_methods!(plain);
    fn fifo_limit(&self) -> Option<Limit> {
        Some(self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{pkt, Drive};
    use super::*;

    fn run(limit: Limit, sizes: &[u32]) -> (Vec<u64>, Vec<u64>) {
        let mut d = Drive::new(Box::new(DropTail::new(limit)));
        for (i, &s) in sizes.iter().enumerate() {
            d.enq(pkt(i as u64, 0, s));
        }
        let out = d.drain();
        (out, d.dropped().iter().map(|x| x.0).collect())
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
    fn reads_no_keys_besides_kind() {
        use super::super::testutil::{build, link};
        let q = build(
            serde_json::json!({"kind": "droptail"}),
            &link("10Mbps", Limit::Packets(5)),
        )
        .unwrap();
        assert_eq!((q.kind(), q.limit()), ("droptail", Limit::Packets(5)));
        let e = build(
            serde_json::json!({"kind": "droptail", "min_th": 5}),
            &link("10Mbps", Limit::Unlimited),
        );
        assert_eq!(
            e.err().unwrap().to_string(),
            "q.min_th: unknown key; accepted keys here: kind"
        );
    }

    #[test]
    fn zero_limit_drops_everything() {
        let (out, dropped) = run(Limit::Packets(0), &[100, 100]);
        assert!(out.is_empty());
        assert_eq!(dropped.len(), 2);
    }
}
