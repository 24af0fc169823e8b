//! Adaptive deterministic packet marking (ADPM) as BMCC uses it: the codepoints,
//! the per-packet threshold h and the marking rule, shared by the three parts
//! of BMCC (the router [`crate::qdisc::bmcc`], the receiver's estimator
//! [`crate::feedback::bmcc`] and the sender [`crate::cc::bmcc`]).
//!
//! Sources: L. L. H. Andrew, S. V. Hanly, S. Chan, T. Cui, "Adaptive
//! deterministic packet marking", IEEE Comm. Letters 10(11), 2006; I. A. Qazi,
//! T. Znati, L. L. H. Andrew, "Incremental deployment of new ECN-compatible
//! congestion control", PFLDNeT 2009, §3.1–3.2; the codepoints of RFC 3168 §5.
//! Model page: docs/models/bmcc.md ("Router", "Modelling decisions").
//!
//! Codepoints (2-bit ECN field): `10` ECT(0) is an unmarked BMCC packet, `01`
//! ECT(1) says "some router on the path has load factor f > h(packet)", `11` CE
//! is severe overload (f ≥ u at a BMCC router, or an AQM's congestion mark).
//!
//! Each packet's threshold h is a deterministic hash of its 16-bit IP id whose
//! distribution over packets is the paper's: ¼ in (η₀, η), ¼ in (η, 1), ½ in
//! (1, u) (§3.2), so resolution is finest in overload. The exact hash of
//! BMCC's reference \[11\] (Qazi, Andrew & Znati, INFOCOM 2009) is not
//! available (docs/models/bmcc.md, "Modelling decisions: Hash"): the IP id is
//! bit-reversed (van der Corput order, so consecutive packets probe
//! well-spread thresholds) and mapped piecewise-linearly onto the three
//! ranges; plain IP id / 65536 is the alternative ([`Hash::Plain`]).

use crate::cfg::{Res, Tab};
use crate::packet::Ecn;

/// η₀: the lowest signalled load (lower loads read as η₀), and a new flow's
/// estimate (§3.2; §4.1.1: "new BMCC flows assume the initial value of f to
/// be 15%").
pub const ETA0: f64 = 0.15;
/// η: the boundary between low load (MI) and high load (AI) (§3.3).
pub const ETA: f64 = 0.75;
/// u: the largest load ADPM signals; f ≥ u is signalled by CE (§3.2).
pub const U: f64 = 1.2;

/// How the IP id maps to a threshold (docs/models/bmcc.md, "Modelling
/// decisions: Hash").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Hash {
    /// bitreverse16(IP id) / 65536: consecutive packets probe well-spread
    /// thresholds (van der Corput order).
    BitReverse,
    /// IP id / 65536.
    Plain,
}

impl Hash {
    /// Reads a `hash = "bitreverse" | "plain"` key (default bit reversal).
    pub fn read(t: &mut Tab) -> Res<Hash> {
        Ok(
            match t.choice("hash", Some("bitreverse"), &["bitreverse", "plain"])?.as_str() {
                "plain" => Hash::Plain,
                _ => Hash::BitReverse,
            },
        )
    }
}

/// The ADPM threshold h ∈ [η₀, u) of a packet (§3.2's distribution, mapped
/// as docs/models/bmcc.md, "Modelling decisions: Hash", says); routers and
/// receivers compute the same value.
pub fn threshold(ip_id: u16, hash: Hash) -> f64 {
    let x = match hash {
        Hash::BitReverse => ip_id.reverse_bits(),
        Hash::Plain => ip_id,
    };
    let r = x as f64 / 65536.0;
    if r < 0.25 {
        ETA0 + (r / 0.25) * (ETA - ETA0)
    } else if r < 0.5 {
        ETA + ((r - 0.25) / 0.25) * (1.0 - ETA)
    } else {
        1.0 + ((r - 0.5) / 0.5) * (U - 1.0)
    }
}

/// What a BMCC router's marking did to one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Marked {
    /// Left as it was (Not-ECT, or f ≤ h, or already `01`/`11`).
    Unchanged,
    /// `10` → `01`: this link's load factor exceeds the packet's threshold.
    Adpm,
    /// ECT → `11`: severe overload, f ≥ u.
    Ce,
}

/// The marking rule of a BMCC router for a link of load factor `f` (§3.2;
/// docs/models/bmcc.md, "Router"): Not-ECT packets are left alone; an
/// ECN-capable packet becomes CE if `f ≥ u` and `ce_at_u` (the original
/// router; the modified router of §5.2 leaves CE to its AQM); otherwise
/// ECT(1) if `f > h`. A router only ever raises the signal (`10` → `01` →
/// `11`), never clears it, so after several BMCC routers the codepoint
/// reflects the largest load factor on the path.
/// Returns the new codepoint and what changed.
pub fn mark(ecn: Ecn, ip_id: u16, f: f64, hash: Hash, ce_at_u: bool) -> (Ecn, Marked) {
    match ecn {
        Ecn::NotEct | Ecn::Ce => (ecn, Marked::Unchanged),
        _ if ce_at_u && f >= U => (Ecn::Ce, Marked::Ce),
        Ecn::Ect0 if f > threshold(ip_id, hash) => (Ecn::Ect1, Marked::Adpm),
        _ => (ecn, Marked::Unchanged),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §3.2's distribution: ¼ of IP ids in (η₀, η), ¼ in (η, 1), ½ in (1, u); the
    /// bit reversal makes ids 0, 1, 2, 3 probe 0.15, 1.0, 0.75, 1.1.
    #[test]
    fn spec_2_3_threshold_distribution_and_order() {
        let hs: Vec<f64> = (0..=u16::MAX).map(|i| threshold(i, Hash::BitReverse)).collect();
        let low = hs.iter().filter(|&&h| h < ETA).count();
        let mid = hs.iter().filter(|&&h| (ETA..1.0).contains(&h)).count();
        assert_eq!((low, mid, hs.len() - low - mid), (16384, 16384, 32768));
        assert!(hs.iter().all(|&h| (ETA0..U).contains(&h)));
        for (id, want) in [(0, 0.15), (1, 1.0), (2, 0.75), (3, 1.1)] {
            assert!((threshold(id, Hash::BitReverse) - want).abs() < 1e-12, "IP id {id}");
        }
        assert_eq!(threshold(1, Hash::Plain), 0.15 + 0.6 / 16384.0);
        // The plain hash has the same distribution.
        let plain_low = (0..=u16::MAX).filter(|&i| threshold(i, Hash::Plain) < ETA).count();
        assert_eq!(plain_low, 16384);
    }

    /// §3.2 by hand, f = 0.9: IP id 2 (h = 0.75) is marked 01, IP id 1
    /// (h = 1.0) is not; Not-ECT and CE pass unchanged; 01 stays 01.
    #[test]
    fn adpm_marks_for_given_ip_ids_and_loads() {
        let h = Hash::BitReverse;
        assert_eq!(mark(Ecn::Ect0, 2, 0.9, h, true), (Ecn::Ect1, Marked::Adpm));
        assert_eq!(mark(Ecn::Ect0, 1, 0.9, h, true), (Ecn::Ect0, Marked::Unchanged));
        assert_eq!(
            mark(Ecn::Ect0, 1, 1.0, h, true),
            (Ecn::Ect0, Marked::Unchanged),
            "f = h: not above"
        );
        assert_eq!(mark(Ecn::Ect0, 1, 1.0001, h, true), (Ecn::Ect1, Marked::Adpm));
        assert_eq!(mark(Ecn::NotEct, 2, 0.9, h, true), (Ecn::NotEct, Marked::Unchanged));
        assert_eq!(
            mark(Ecn::Ect1, 1, 0.2, h, true),
            (Ecn::Ect1, Marked::Unchanged),
            "never cleared"
        );
        assert_eq!(mark(Ecn::Ce, 0, 0.2, h, true), (Ecn::Ce, Marked::Unchanged));
        // Severe overload: every ECN-capable packet becomes CE, whatever h.
        assert_eq!(mark(Ecn::Ect0, 1, 1.2, h, true), (Ecn::Ce, Marked::Ce));
        assert_eq!(mark(Ecn::Ect1, 3, 1.5, h, true), (Ecn::Ce, Marked::Ce));
        assert_eq!(mark(Ecn::NotEct, 3, 1.5, h, true), (Ecn::NotEct, Marked::Unchanged));
        // The modified router (§5.2): no CE from ADPM; every threshold is below u.
        assert_eq!(mark(Ecn::Ect0, 1, 1.5, h, false), (Ecn::Ect1, Marked::Adpm));
        assert!((0..=u16::MAX).all(|i| mark(Ecn::Ect0, i, U, h, false).1 == Marked::Adpm));
        // Load below η₀: no threshold is below it, nothing is marked.
        assert!((0..=u16::MAX).all(|i| mark(Ecn::Ect0, i, 0.1499, h, true).1 == Marked::Unchanged));
    }

    /// Two routers in a row: the codepoint after both is what the more loaded
    /// one alone would give (in either order), for every IP id.
    #[test]
    fn two_routers_signal_the_larger_load() {
        for (f1, f2) in [(0.5, 0.95), (0.95, 0.5), (1.1, 0.3), (0.3, 1.25)] {
            for id in 0..=u16::MAX {
                let (a, _) = mark(Ecn::Ect0, id, f1, Hash::BitReverse, true);
                let (both, _) = mark(a, id, f2, Hash::BitReverse, true);
                let (alone, _) = mark(Ecn::Ect0, id, f64::max(f1, f2), Hash::BitReverse, true);
                assert_eq!(both, alone, "id {id}, f {f1} then {f2}");
            }
        }
    }
}
