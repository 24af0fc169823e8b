//! DCQCN's switch marking (`kind = "kmin_kmax"`): a RED-like probability on
//! the instantaneous egress queue in bytes (Zhu et al., "Congestion Control
//! for Large-Scale RDMA Deployments", SIGCOMM 2015, §3 "CP Algorithm" and
//! Fig. 5: "if the egress queue length is greater than Kmin, packets are
//! marked with probability rising linearly to Pmax at Kmax, and every packet
//! is marked above Kmax"; §5's settings Kmin = 5 KB, Kmax = 200 KB,
//! Pmax = 1 %). The HPCC authors' ns-3 fork computes the same function
//! (`SwitchMmu::ShouldSendCN`, simulation/src/point-to-point/model/switch-mmu.cc).
//!
//! p(q) = 0 for q ≤ Kmin, Pmax·(q − Kmin)/(Kmax − Kmin) for Kmin < q ≤ Kmax,
//! 1 for q > Kmax, with q the bytes waiting when the packet arrives (our RED
//! cannot express this: ns-2's `count` spreading of marks roughly doubles the
//! marking rate at a given p_b, and its average needs `q_weight = 1`).
//!
//! Deviation from the ns-3 fork: it decides at dequeue on the bytes left
//! behind; we decide at enqueue on the bytes found (as `step`), one packet's
//! serialization earlier. A Not-ECT packet the function selects is let in
//! (`non_ect = "pass"`, the default: RoCE over a lossless class must not
//! lose packets to marking) or dropped (`"drop"`, as RED with ECN).

use super::PacketFifo;
use super::{DropReason, Limit, LinkInfo, MarkReason, Qdisc, QdiscCtx, QdiscSpec};
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use serde_json::Value;
use std::sync::Arc;

#[derive(Clone, Copy, Debug)]
pub struct Spec {
    kmin: u64,
    kmax: u64,
    pmax: f64,
    drop_non_ect: bool,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "kmin",
        "kmin_kmax: bytes waiting above which arrivals are marked with a rising probability (DCQCN's Kmin, default 5KB)",
    ),
    (
        "kmax",
        "kmin_kmax: bytes waiting at which the probability reaches pmax; above it every arrival is marked (DCQCN's Kmax, default 200KB)",
    ),
    ("pmax", "kmin_kmax: marking probability at kmax, in (0, 1] (DCQCN's Pmax, default 0.01)"),
    (
        "non_ect",
        "kmin_kmax: a Not-ECT arrival selected for marking is dropped or let in (default pass)",
    ),
];

pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    let kmin = t.size("kmin", Some("5KB"))?;
    let kmax = t.size("kmax", Some("200KB"))?;
    let pmax = t.float("pmax", Some(0.01), 0.0, 1.0)?;
    if pmax <= 0.0 {
        return Err(t.error("pmax", &Value::from(pmax), "a probability in (0, 1]"));
    }
    if kmax <= kmin {
        return Err(t.error("kmax", &Value::from(kmax), format!("kmax > kmin = {kmin} B")));
    }
    let drop_non_ect = t.choice("non_ect", Some("pass"), &["drop", "pass"])? == "drop";
    Ok(Arc::new(Spec {
        kmin,
        kmax,
        pmax,
        drop_non_ect,
    }))
}

impl Spec {
    /// The marking probability with `q` bytes waiting.
    pub fn p(&self, q: u64) -> f64 {
        if q <= self.kmin {
            0.0
        } else if q > self.kmax {
            1.0
        } else {
            self.pmax * (q - self.kmin) as f64 / (self.kmax - self.kmin) as f64
        }
    }
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        if let Limit::Bytes(n) = link.limit {
            if n < self.kmax {
                return Err(link.error(
                    "limit",
                    link.limit_str(),
                    format!("a buffer of at least kmax = {} B", self.kmax),
                ));
            }
        }
        Ok(Box::new(KminKmax {
            q: PacketFifo::default(),
            limit: link.limit,
            spec: *self,
        }))
    }
}

pub struct KminKmax {
    q: PacketFifo,
    limit: Limit,
    spec: Spec,
}

impl Qdisc for KminKmax {
    fn kind(&self) -> &'static str {
        "kmin_kmax"
    }
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        if !self.q.admits(self.limit, pkt.size) {
            cx.drop(pkt, DropReason::Overflow);
            return None;
        }
        let q = self.q.bytes();
        let p = self.spec.p(q);
        let hit = p >= 1.0 || (p > 0.0 && cx.rng.uniform() < p);
        if hit {
            let why = if p >= 1.0 {
                MarkReason::Forced
            } else {
                MarkReason::Early
            };
            pkt = cx.mark_or_drop(pkt, why, self.spec.drop_non_ect)?;
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

    /// Zhu et al. Fig. 5: 0 up to Kmin, linear to Pmax at Kmax, 1 above.
    #[test]
    fn the_marking_function_of_the_paper() {
        let s = Spec {
            kmin: 5000,
            kmax: 200_000,
            pmax: 0.01,
            drop_non_ect: false,
        };
        assert_eq!(s.p(5000), 0.0);
        assert!((s.p(102_500) - 0.005).abs() < 1e-12);
        assert!((s.p(200_000) - 0.01).abs() < 1e-12);
        assert_eq!(s.p(200_001), 1.0);
    }

    /// With 10 KB of 1000-byte packets waiting and Kmin = 5 KB, Kmax = 15 KB,
    /// Pmax = 1: arrivals at q = 6..=15 KB are marked with p = (q − 5)/10;
    /// above 15 KB all are. Over many fills the mean count matches.
    #[test]
    fn marks_at_the_rate_of_the_function() {
        let mut total = 0usize;
        let runs = 2000;
        let mut d = Drive::new(
            build(
                serde_json::json!({"kind": "kmin_kmax", "kmin": "5KB", "kmax": "15KB", "pmax": 1.0}),
                &link("10Gbps", Limit::Bytes(100_000)),
            )
            .unwrap(),
        );
        for _ in 0..runs {
            for i in 0..20 {
                assert!(d.enq(ect(i)));
            }
            total += d.marks.len();
            d.marks.clear();
            d.drain();
        }
        // q found = 0..19 KB: p = 0 for ≤5, (q-5)/10 for 6..=15 (sum 5.5), 1 for 16..=19 (4).
        let mean = total as f64 / runs as f64;
        assert!((mean - 9.5).abs() < 0.1, "{mean}");
    }

    #[test]
    fn kmax_not_above_kmin_and_a_small_buffer_are_refused() {
        let e = build(
            serde_json::json!({"kind": "kmin_kmax", "kmin": "10KB", "kmax": "10KB"}),
            &link("10Gbps", Limit::Bytes(1_000_000)),
        );
        assert!(e.err().unwrap().to_string().contains("kmax"));
        let e = build(
            serde_json::json!({"kind": "kmin_kmax"}),
            &link("10Gbps", Limit::Bytes(100_000)),
        );
        assert!(e.err().unwrap().to_string().contains("kmax = 200000"));
    }
}
