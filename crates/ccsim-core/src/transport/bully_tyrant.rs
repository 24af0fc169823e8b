//! Bully-Tyrant: a sender with no congestion control.
//!
//! Source: H. Kim and D. J. Farber, "Congestion control by bandwidth-delay
//! tradeoff in very high-speed networks: the case of window-based control",
//! Univ. of Pennsylvania MS-CIS-94-55, 1994, §4.2.6 (Figs. 28–29). Model
//! page: docs/models/blt.md (its "Bully-Tyrant" paragraph).
//!
//! The sender is BLT's ([`super::blt::BurstSender`]): the whole remaining file
//! as one burst at the access rate, restarted from the lost packet on every loss
//! signal (the duplicate-ACK timestamp rule L3 of docs/models/blt.md, section
//! "Modelling decisions", or the RFC 6298 timer), skipping what is cumulatively
//! acknowledged, with the same receiver and ACK format — but its packets carry
//! **no priority information** (all priority 0), so a priority-discard switch
//! behaves as a drop-tail FIFO for it. It stands for "aggressive, with no
//! congestion control" in the paper's comparison.
//!
//! Keys: those of a `blt` flow without `gamma`. Deviations: those of BLT
//! (blt.rs).

use super::blt::BltSpec;
use crate::cfg::{Res, Tab};

/// Reads a `bully-tyrant` flow's keys.
pub fn read(t: &mut Tab, in_workload: bool) -> Res<BltSpec> {
    BltSpec::read(t, true, in_workload)
}

#[cfg(test)]
mod tests {
    use super::super::blt::tests::{labels, Harness};
    use super::super::blt::Labels;
    use super::super::{Sender, TransportSpec};

    #[test]
    fn blt_5_same_burst_without_priorities() {
        let mut h = Harness::new(200, Labels::Flat);
        h.run_to(500.0);
        assert_eq!(h.sent.len(), 200, "the whole file in one burst");
        assert!(h.sent.iter().all(|p| p.priority == 0));
    }

    #[test]
    fn blt_5_restarts_from_the_lost_packet_like_blt() {
        let mut h = Harness::new(20, Labels::Flat);
        h.run_to(10.5);
        h.ack(3, 2);
        h.ack(3, 4); // packet 3 lost
        assert!(h.ack(3, 5).is_empty(), "stale duplicate");
        let out = h.run_to(14.0);
        assert_eq!(labels(&out), vec![(3, 0), (4, 0), (5, 0), (6, 0)]);
        assert_eq!(h.s.stats.dupack_resets, 1);
        assert_eq!(h.s.cc_name(), "");
    }

    #[test]
    fn reads_as_its_own_kind_without_gamma() {
        let v = serde_json::json!({"size": "100KB", "gamma": 3});
        let mut t = crate::cfg::Tab::new("flows[0]".into(), &v).unwrap();
        let spec = super::read(&mut t, false).unwrap();
        assert_eq!(spec.kind(), "bully-tyrant");
        let e = t.finish().unwrap_err();
        assert_eq!(e.path, "flows[0].gamma");
    }
}
