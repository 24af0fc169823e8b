//! BMCC's receiver: the load-factor estimate f̂ built from ADPM marks and
//! echoed in every ACK (Qazi, Znati & Andrew, "Incremental deployment of new
//! ECN-compatible congestion control", PFLDNeT 2009, §3.2 (the estimator) and
//! §5.2 (the modified scheme); ADPM: Andrew, Hanly, Chan & Cui, IEEE Comm.
//! Letters 10(11), 2006). Model page: docs/models/bmcc.md ("Receiver";
//! "Modelling decisions": Hash, Returning f̂, CE in the modified scheme).
//!
//! Each data packet carries a threshold h, a deterministic hash of its IP id
//! ([`crate::adpm`]); routers set ECT(1) when their load factor exceeds h and
//! CE in severe overload. On each packet:
//!
//! * `11` (CE): f̂ = u (unmodified design), or, with the modified router of
//!   §5.2, f̂ unchanged and `ce_seen` reported (docs/models/bmcc.md,
//!   "Modelling decisions: CE in the modified scheme");
//! * `10` (ECT(0), unmarked) and h < f̂: f̂ = h (the load is at most h);
//! * `01` (ECT(1), marked) and h > f̂: f̂ = h (the load exceeds h);
//! * `00`: ignored.
//!
//! The ACK carries f̂ in the feedback option's 16-bit load field (resolution
//! 2⁻¹⁴ ≈ 6.1·10⁻⁵, coarser than the hash's own steps of 6.1·10⁻⁶ to
//! 3.7·10⁻⁵) and `ce_seen` when the packet that triggered it was CE (the
//! paper does not say how f̂ returns: docs/models/bmcc.md, "Modelling
//! decisions: Returning f̂").

use super::{FeedbackSpec, ReceiverFeedback};
pub use crate::adpm::{threshold, Hash, ETA0, U};
use crate::cfg::{Res, Tab};
use crate::packet::{Ecn, Feedback, Packet};

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    pub hash: Hash,
    /// A CE packet only sets `ce_seen` and leaves f̂ (the modified BMCC router
    /// of §5.2); otherwise it sets f̂ = u.
    pub ce_flag_only: bool,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "hash",
        "BMCC feedback: ADPM hash of the IP id (\"plain\": IP id / 65536); the routers' must match",
    ),
    ("on_ce", "BMCC feedback: a CE mark sets the estimate or a flag"),
];

impl Params {
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let hash = Hash::read(t)?;
        let on_ce = t.choice("on_ce", Some("estimate"), &["estimate", "flag"])?;
        Ok(Params {
            hash,
            ce_flag_only: on_ce == "flag",
        })
    }
}

impl FeedbackSpec for Params {
    fn kind(&self) -> &'static str {
        "bmcc"
    }
    fn build(&self) -> Box<dyn ReceiverFeedback> {
        Box::new(Estimator::new(*self))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

pub struct Estimator {
    p: Params,
    f_hat: f64,
    /// The last data packet was CE.
    last_ce: bool,
}

impl Estimator {
    pub fn new(p: Params) -> Estimator {
        Estimator {
            p,
            f_hat: ETA0,
            last_ce: false,
        }
    }
    pub fn estimate(&self) -> f64 {
        self.f_hat
    }
}

impl ReceiverFeedback for Estimator {
    fn name(&self) -> &'static str {
        "bmcc"
    }
    fn on_data(&mut self, pkt: &Packet) {
        self.last_ce = pkt.ecn == Ecn::Ce;
        let h = threshold(pkt.ip_id, self.p.hash);
        match pkt.ecn {
            Ecn::Ce if !self.p.ce_flag_only => self.f_hat = U,
            Ecn::Ect0 if h < self.f_hat => self.f_hat = h,
            Ecn::Ect1 if h > self.f_hat => self.f_hat = h,
            _ => {}
        }
    }
    fn fill(&mut self, fb: &mut Feedback) {
        fb.set_load_factor(self.f_hat);
        fb.ce_seen = self.last_ce;
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("load_estimate", self.f_hat))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowId, Kind, NodeId};
    use crate::units::Time;

    fn data(ip_id: u16, ecn: Ecn) -> Packet {
        let mut p = Packet::new(0, FlowId(0), NodeId(0), NodeId(1), 1040, Kind::Data, Time::ZERO);
        p.ip_id = ip_id;
        p.ecn = ecn;
        p
    }

    /// §3.2's estimator by hand: from f̂ = 0.15, a marked packet with h = 1.0 raises
    /// f̂ to 1.0; an unmarked one with h = 0.75 lowers it to 0.75; a marked one
    /// with h = 0.75 changes nothing; CE sets u (or only the flag, §5.2).
    #[test]
    fn spec_3_estimator_follows_marks() {
        let mut e = Estimator::new(Params {
            hash: Hash::BitReverse,
            ce_flag_only: false,
        });
        e.on_data(&data(1, Ecn::Ect1));
        assert_eq!(e.estimate(), 1.0);
        e.on_data(&data(2, Ecn::Ect0));
        assert_eq!(e.estimate(), threshold(2, Hash::BitReverse));
        e.on_data(&data(2, Ecn::Ect1));
        assert_eq!(e.estimate(), threshold(2, Hash::BitReverse), "h not above f̂");
        e.on_data(&data(0, Ecn::NotEct));
        assert_eq!(e.estimate(), threshold(2, Hash::BitReverse), "00 ignored");
        e.on_data(&data(3, Ecn::Ce));
        assert_eq!(e.estimate(), U);
        let mut fb = Feedback::default();
        e.fill(&mut fb);
        assert!(fb.ce_seen);
        assert!((fb.load_factor().unwrap() - 1.2).abs() < 1e-4);
        let mut m = Estimator::new(Params {
            hash: Hash::BitReverse,
            ce_flag_only: true,
        });
        m.on_data(&data(3, Ecn::Ce));
        assert_eq!(m.estimate(), ETA0, "modified router: the estimate stays");
        m.fill(&mut fb);
        assert!(fb.ce_seen && fb.load_factor() == Some(2458.0 / 16384.0));
    }
}
