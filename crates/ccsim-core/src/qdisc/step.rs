//! Step marking at a threshold K (`kind = "step"`): the queue DCTCP is run
//! over (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1: "a
//! very simple active queue management scheme [...] an arriving packet is
//! marked with the CE codepoint if the queue occupancy is greater than K upon
//! its arrival"; RFC 8257 §3.1).
//!
//! A FIFO with the link's limit; an arrival that finds `threshold` packets or
//! more waiting (the instantaneous queue, not an average) is marked CE if it
//! is ECN-capable, and dropped if not (`non_ect = "drop"`, as RED with ECN
//! treats a packet it would mark; `"pass"` lets it in).
//!
//! Why a discipline of its own and not RED with `min_th = max_th = K` and
//! `q_weight = 1` (how ns-3's DCTCP example and Linux configure it): our RED
//! is ns-2's, which refuses `min_th ≥ max_th` (its drop probability divides
//! by `max_th − min_th`), lets the first arrival above `min_th` through
//! (`old == 0`), skips `q ≤ 1`, and with `use_mark_p` turns marks into drops
//! above `mark_p`; each of those would need an exception. The step queue is
//! the function those settings approximate. The comparison is with the
//! waiting packets (ns-2 convention, the one being serialized not counted),
//! ≥ K as ns-3's RED (`m_qAvg >= m_maxTh`) with `q_weight = 1`.

use super::PacketFifo;
use super::{DropReason, Limit, LinkInfo, MarkReason, Qdisc, QdiscCtx, QdiscSpec};
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use std::sync::Arc;

#[derive(Debug)]
pub struct Spec {
    /// K, packets waiting (≥ 1).
    threshold: usize,
    /// Drop non-ECN-capable arrivals above K (else let them in).
    drop_non_ect: bool,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "threshold",
        "step: mark ECN-capable arrivals finding at least this many packets waiting (DCTCP's K)",
    ),
    (
        "non_ect",
        "step: a Not-ECT arrival above the threshold is dropped or let in",
    ),
];

pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let threshold = t.uint("threshold", Some(20), 1, 1_000_000)? as usize;
    let drop_non_ect = t.choice("non_ect", Some("drop"), &["drop", "pass"])? == "drop";
    Ok(Arc::new(Spec {
        threshold,
        drop_non_ect,
    }))
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        if let Limit::Packets(n) = link.limit {
            if (n as usize) < self.threshold {
                return Err(link.error(
                    "limit",
                    link.limit_str(),
                    format!("a buffer of at least threshold = {} packets", self.threshold),
                ));
            }
        }
        Ok(Box::new(Step {
            q: PacketFifo::default(),
            limit: link.limit,
            threshold: self.threshold,
            drop_non_ect: self.drop_non_ect,
        }))
    }
}

pub struct Step {
    q: PacketFifo,
    limit: Limit,
    threshold: usize,
    drop_non_ect: bool,
}

impl Qdisc for Step {
    fn kind(&self) -> &'static str {
        "step"
    }
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        if !self.q.admits(self.limit, pkt.size) {
            cx.drop(pkt, DropReason::Overflow);
            return None;
        }
        if self.q.len() >= self.threshold {
            pkt = cx.mark_or_drop(pkt, MarkReason::Forced, self.drop_non_ect)?;
        }
        Some(self.q.push(pkt))
    }
    fifo_methods!(plain);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use crate::packet::Ecn;

    fn ect(uid: u64) -> Packet {
        let mut p = pkt(uid, 0, 1000);
        p.ecn = Ecn::Ect0;
        p
    }

    /// K = 3: the fourth arrival finds 3 waiting and is marked, and so is
    /// every later one while 3 or more wait; after the queue drains below K
    /// an arrival passes unmarked. A Not-ECT packet above K is dropped.
    #[test]
    fn marks_every_ect_arrival_at_or_above_k() {
        let mut d = Drive::new(
            build(
                serde_json::json!({"kind": "step", "threshold": 3}),
                &link("10Mbps", Limit::Packets(10)),
            )
            .unwrap(),
        );
        for i in 0..5 {
            assert!(d.enq(ect(i)));
        }
        assert_eq!(d.marks, vec![MarkReason::Forced; 2]);
        assert!(!d.enq(pkt(9, 0, 1000)), "Not-ECT above K: dropped");
        assert_eq!(d.dropped(), vec![(9, DropReason::Forced)]);
        let out: Vec<_> = (0..3).map(|_| d.deq().unwrap()).collect();
        assert_eq!(
            out.iter().filter(|p| p.ecn == Ecn::Ce).count(),
            0,
            "the first three went in below K"
        );
        assert!(d.enq(ect(10)), "2 waiting: below K");
        assert_eq!(d.marks.len(), 2);
        let rest = d.drain();
        assert_eq!(rest, vec![3, 4, 10]);
    }

    #[test]
    fn pass_lets_not_ect_in_and_overflow_still_drops() {
        let mut d = Drive::new(
            build(
                serde_json::json!({"kind": "step", "threshold": 1, "non_ect": "pass"}),
                &link("10Mbps", Limit::Packets(2)),
            )
            .unwrap(),
        );
        assert!(d.enq(pkt(0, 0, 1000)));
        assert!(d.enq(pkt(1, 0, 1000)));
        assert!(!d.enq(ect(2)));
        assert_eq!(d.dropped(), vec![(2, DropReason::Overflow)]);
        assert!(d.marks.is_empty());
    }

    #[test]
    fn a_buffer_below_k_is_refused() {
        let e = build(
            serde_json::json!({"kind": "step", "threshold": 30}),
            &link("10Mbps", Limit::Packets(20)),
        );
        let e = e.err().unwrap().to_string();
        assert!(e.contains("threshold = 30"), "{e}");
    }
}
