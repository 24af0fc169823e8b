//! The SACK scoreboard of RFC 6675 §3–4 (with RFC 2018 SACK blocks).
//!
//! Holds what the receiver has selectively acknowledged above the cumulative
//! ACK (`HighACK`, the sender's `snd_una`) as merged byte ranges, plus the
//! recovery's retransmission marks `HighRxt` and `RescueRxt`. Byte-exact, with
//! the RFC's per-octet definitions evaluated range by range:
//!
//! * `IsLost(s)`: at least `DupThresh` discontiguous SACKed ranges lie above
//!   `s`, or more than `(DupThresh − 1)·SMSS` SACKed bytes do. Both counts only
//!   grow as `s` falls, so every un-SACKed byte below a *lost boundary* is
//!   lost and none above it ([`Scoreboard::lost_boundary`]).
//! * `SetPipe()`: every un-SACKed byte in [HighACK, HighData) counts once if
//!   not lost and once more if retransmitted (at or below HighRxt).
//! * `NextSeg()`: (1) the lowest lost un-SACKed segment not yet retransmitted,
//!   (2) new data, (3) the lowest un-SACKed segment below the highest SACKed
//!   byte not yet retransmitted, (4) one rescue retransmission per recovery of
//!   the highest un-SACKed segment.
//!
//! After a retransmission timeout the sender marks every un-SACKed byte below
//! the recovery point lost (RFC 6675 §5.1, keeping the SACK information) by
//! passing that point as the boundary.
//!
//! Deviations: HighRxt and RescueRxt are exclusive ends here (the RFC's are
//! the highest octets), and a "segment" is the un-SACKed run starting at the
//! chosen byte, at most one SMSS long.

use std::collections::BTreeMap;

/// What [`Scoreboard::next_seg`] chose to send.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit [seq, seq + len) by rule 1 or 3.
    Retransmit { seq: u64, len: u64 },
    /// Send new data from HighData (rule 2).
    New,
    /// The rescue retransmission of rule 4.
    Rescue { seq: u64, len: u64 },
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges [start, end) above HighACK, merged and disjoint.
    sacked: BTreeMap<u64, u64>,
    sacked_bytes: u64,
    /// Exclusive end of the highest byte retransmitted in this recovery.
    high_rxt: u64,
    /// SACKed bytes below `high_rxt`, kept up to date so that `SetPipe()`
    /// costs the few ranges above the lost boundary, not every hole.
    sacked_below_rxt: u64,
    /// Exclusive end of the rescue retransmission's recovery point, if sent.
    rescue_rxt: Option<u64>,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    /// Exclusive end of the highest SACKed byte (HighACK if nothing is SACKed).
    pub fn highest_sacked(&self, una: u64) -> u64 {
        self.sacked.values().next_back().copied().unwrap_or(una).max(una)
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        self.sacked.range(..=seq).next_back().is_some_and(|(_, &e)| e > seq)
    }

    /// `Update()`: records SACK blocks and drops what the cumulative ACK `una`
    /// covers. Returns the bytes newly SACKed above `una`.
    pub fn update(&mut self, una: u64, blocks: &[(u64, u64)]) -> u64 {
        let before = self.sacked_bytes;
        self.advance(una);
        for &(s, e) in blocks {
            let s = s.max(una);
            if e > s {
                self.insert(s, e);
            }
        }
        self.sacked_bytes.saturating_sub(before)
    }

    /// Forgets ranges the cumulative ACK `una` covers.
    fn advance(&mut self, una: u64) {
        while let Some((&s, &e)) = self.sacked.iter().next() {
            if s >= una {
                break;
            }
            self.sacked.remove(&s);
            self.sacked_bytes -= e - s;
            self.sacked_below_rxt -= overlap(s, e.min(una), 0, self.high_rxt);
            if e > una {
                self.sacked.insert(una, e);
                self.sacked_bytes += e - una;
                break;
            }
        }
    }

    fn insert(&mut self, mut s: u64, mut e: u64) {
        let h = self.high_rxt;
        // SACKed bytes below HighRxt of the ranges the new one absorbs.
        let mut absorbed = 0;
        if let Some((&ps, &pe)) = self.sacked.range(..=s).next_back() {
            if pe >= s {
                absorbed += overlap(ps, pe, 0, h);
                s = ps;
                e = e.max(pe);
                self.sacked.remove(&ps);
                self.sacked_bytes -= pe - ps;
            }
        }
        while let Some((&ns, &ne)) = self.sacked.range(s..).next() {
            if ns > e {
                break;
            }
            absorbed += overlap(ns, ne, 0, h);
            e = e.max(ne);
            self.sacked.remove(&ns);
            self.sacked_bytes -= ne - ns;
        }
        self.sacked.insert(s, e);
        self.sacked_bytes += e - s;
        self.sacked_below_rxt = self.sacked_below_rxt - absorbed + overlap(s, e, 0, h);
    }

    /// SACKed bytes at or above `x` (cheap for `x` near the top).
    fn sacked_above(&self, x: u64) -> u64 {
        let mut n = 0;
        for (&s, &e) in self.sacked.iter().rev() {
            if e <= x {
                break;
            }
            n += e - s.max(x);
        }
        n
    }

    /// Moves HighRxt to `h`, keeping the SACKed bytes below it.
    fn set_high_rxt(&mut self, h: u64) {
        let old = self.high_rxt;
        if h >= old {
            let first = self.sacked.range(..=old).next_back().map_or(old, |(&s, _)| s);
            for (&s, &e) in self.sacked.range(first..h) {
                self.sacked_below_rxt += overlap(s, e, old, h);
            }
        } else {
            self.sacked_below_rxt = self.sacked.range(..h).map(|(&s, &e)| overlap(s, e, 0, h)).sum();
        }
        self.high_rxt = h;
    }

    /// The lowest byte not lost: every un-SACKed byte below it is lost by
    /// `IsLost` (`dupthresh` ranges, or more than (dupthresh − 1)·`mss` SACKed
    /// bytes, above it), none above. HighACK when nothing is lost.
    pub fn lost_boundary(&self, una: u64, dupthresh: u32, mss: u64) -> u64 {
        let byte_limit = (dupthresh as u64).saturating_sub(1) * mss;
        let mut bytes = 0;
        for (k, (&s, &e)) in self.sacked.iter().rev().enumerate() {
            bytes += e - s;
            if k + 1 >= dupthresh as usize || bytes > byte_limit {
                return s.max(una);
            }
        }
        una
    }

    /// `IsLost(seq)`.
    pub fn is_lost(&self, seq: u64, una: u64, dupthresh: u32, mss: u64) -> bool {
        !self.is_sacked(seq) && seq < self.lost_boundary(una, dupthresh, mss)
    }

    /// The next un-SACKed byte at or above `from`, below `limit`, and the end
    /// of its un-SACKed run (capped at `limit`).
    fn hole_at_or_after(&self, from: u64, limit: u64) -> Option<(u64, u64)> {
        let mut s = from;
        if let Some((_, &e)) = self.sacked.range(..=s).next_back() {
            s = s.max(e);
        }
        if s >= limit {
            return None;
        }
        let end = self.sacked.range(s..).next().map_or(limit, |(&ns, _)| ns).min(limit);
        Some((s, end))
    }

    /// HighRxt: the end of the highest retransmitted range (RFC 6675).
    pub fn high_rxt(&self) -> u64 {
        self.high_rxt
    }

    /// Calls `f(start, end)` for each un-SACKed run inside [from, to): what a
    /// SACK block for [from, to) would newly SACK (costs the runs, not the
    /// bytes).
    pub fn each_unsacked(&self, from: u64, to: u64, mut f: impl FnMut(u64, u64)) {
        let mut at = from;
        while let Some((s, e)) = self.hole_at_or_after(at, to) {
            f(s, e);
            at = e;
        }
    }

    /// `SetPipe()`: bytes in the network estimated for [una, high_data),
    /// un-SACKed bytes below `lost` counting as lost. With U(a, b) the
    /// un-SACKed bytes of [a, b): pipe = U(una, high_data) − U(una, lost) +
    /// U(una, HighRxt) (each un-SACKed byte counts once if not lost, once more
    /// if retransmitted), computed from the SACKed bytes above `lost` and
    /// below HighRxt, not hole by hole: a recovery with thousands of holes
    /// costs the same per ACK as one with a few.
    pub fn pipe(&self, una: u64, high_data: u64, lost: u64) -> u64 {
        let below = |x: u64| self.sacked_bytes - self.sacked_above(x);
        let hd = high_data.max(una);
        let lost = lost.clamp(una, hd);
        let rxt = self.high_rxt.clamp(una, hd);
        let sacked_rxt = if self.high_rxt <= hd {
            self.sacked_below_rxt
        } else {
            below(hd)
        };
        let unsacked = |x: u64, sacked: u64| (x - una) - sacked;
        let p = unsacked(hd, below(hd)) - unsacked(lost, below(lost)) + unsacked(rxt, sacked_rxt);
        debug_assert_eq!(p, self.pipe_by_holes(una, high_data, lost), "SetPipe");
        p
    }

    /// `SetPipe()` hole by hole, as the RFC states it (the reference of
    /// [`Scoreboard::pipe`]).
    pub fn pipe_by_holes(&self, una: u64, high_data: u64, lost: u64) -> u64 {
        let mut pipe = 0;
        let mut at = una;
        while let Some((s, e)) = self.hole_at_or_after(at, high_data) {
            let not_lost = e - s.max(lost).min(e);
            let rxt = self.high_rxt.clamp(s, e) - s;
            pipe += not_lost + rxt;
            at = e;
        }
        pipe
    }

    /// `NextSeg()` for a segment of at most `mss` bytes; `lost` is the lost
    /// boundary (below the highest SACKed byte during a recovery, so rule 1's
    /// condition 1.b holds; the recovery point after a timeout), `new_data`
    /// whether rule 2 may send (data ready, window open).
    /// `rescue` allows rule 4 (during a SACK recovery; not after a timeout,
    /// when rule 1 already covers every un-SACKed byte).
    pub fn next_seg(
        &self,
        una: u64,
        high_data: u64,
        lost: u64,
        mss: u64,
        new_data: bool,
        rescue: bool,
    ) -> Option<NextSeg> {
        let highest = self.highest_sacked(una);
        let from = self.high_rxt.max(una);
        // (1) lowest un-SACKed byte above HighRxt that IsLost.
        if let Some((s, e)) = self.hole_at_or_after(from, lost) {
            return Some(NextSeg::Retransmit {
                seq: s,
                len: (e - s).min(mss),
            });
        }
        // (2) new data.
        if new_data {
            return Some(NextSeg::New);
        }
        // (3) lowest un-SACKed byte above HighRxt below the highest SACK.
        if let Some((s, e)) = self.hole_at_or_after(from, highest) {
            return Some(NextSeg::Retransmit {
                seq: s,
                len: (e - s).min(mss),
            });
        }
        // (4) rescue: once per recovery, the highest un-SACKed segment.
        if rescue && self.rescue_rxt.is_none_or(|r| una > r) {
            let mut last = None;
            let mut at = una;
            while let Some((s, e)) = self.hole_at_or_after(at, high_data) {
                last = Some((s, e));
                at = e;
            }
            if let Some((s, e)) = last {
                let start = s.max(e.saturating_sub(mss));
                return Some(NextSeg::Rescue {
                    seq: start,
                    len: e - start,
                });
            }
        }
        None
    }

    /// Records a retransmission chosen by rule 1 or 3 (step C.2).
    pub fn retransmitted(&mut self, end: u64) {
        if end > self.high_rxt {
            self.set_high_rxt(end);
        }
    }

    /// Records the rescue retransmission (rule 4): RescueRxt = RecoveryPoint
    /// (exclusive end); no other rescue until the cumulative ACK passes it.
    pub fn rescued(&mut self, recovery_point: u64) {
        self.rescue_rxt = Some(recovery_point);
    }

    /// Starts a recovery (RFC 6675 step 4.3): the first retransmission ends at
    /// `end`, and both HighRxt and RescueRxt are set to it. A HighRxt above
    /// `end` stays: a recovery that begins as soon as the last one ended
    /// (its cumulative ACK passed the recovery point, not the retransmissions
    /// above it) would otherwise send again, in a burst, the segments the last
    /// one retransmitted that are still in flight. Linux (`TCPCB_SACKED_RETRANS`)
    /// and ns-3 (`TcpTxItem::m_retrans`) mark retransmissions per segment and
    /// clear the marks at a timeout only, as [`Scoreboard::clear_retransmissions`].
    pub fn begin_recovery(&mut self, end: u64) {
        if end > self.high_rxt {
            self.set_high_rxt(end);
        }
        self.rescue_rxt = Some(end);
    }

    /// After a retransmission timeout: retransmission marks cleared, SACK
    /// information kept (RFC 6675 §5.1).
    pub fn clear_retransmissions(&mut self, una: u64) {
        self.set_high_rxt(una);
        self.rescue_rxt = None;
    }
}

/// Bytes of [s, e) within [lo, hi).
fn overlap(s: u64, e: u64, lo: u64, hi: u64) -> u64 {
    e.min(hi).saturating_sub(s.max(lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A window of segments 0..10 (1000 B each); `sacked` lists SACKed segments.
    fn board(sacked: &[u64]) -> Scoreboard {
        let mut b = Scoreboard::new();
        let blocks: Vec<(u64, u64)> = sacked.iter().map(|&k| (k * MSS, (k + 1) * MSS)).collect();
        b.update(0, &blocks);
        b
    }

    #[test]
    fn update_merges_and_forgets_below_the_cumulative_ack() {
        let mut b = board(&[2, 3, 5]);
        assert_eq!(b.sacked_bytes(), 3000);
        assert_eq!(b.update(0, &[(3000, 4000)]), 0, "nothing new");
        assert_eq!(b.update(0, &[(4000, 5000)]), 1000, "fills 4: one range 2000..6000");
        assert_eq!(b.sacked.len(), 1);
        assert_eq!(b.update(3000, &[]), 0);
        assert_eq!(b.sacked.iter().next(), Some((&3000, &6000)));
        assert_eq!(b.sacked_bytes(), 3000);
        assert!(b.is_sacked(5999) && !b.is_sacked(6000) && !b.is_sacked(2999));
    }

    /// RFC 6675 §4 IsLost with DupThresh 3: one loss (segment 0) and three
    /// segments SACKed above it: lost. Two SACKed segments above (2000 B, not
    /// more than 2·SMSS, in one range): not lost yet.
    #[test]
    fn one_loss_is_lost_after_three_sacked_segments() {
        let b = board(&[1, 2]);
        assert!(!b.is_lost(0, 0, 3, MSS));
        let b = board(&[1, 2, 3]);
        assert!(b.is_lost(0, 0, 3, MSS));
        assert_eq!(b.lost_boundary(0, 3, MSS), 1000);
        // Reordering below DupThresh: two discontiguous segments SACKed.
        let b = board(&[2, 4]);
        assert!(!b.is_lost(0, 0, 3, MSS) && !b.is_lost(1000, 0, 3, MSS));
    }

    /// Several losses in one window: 0, 2, 5 lost, 1, 3, 4, 6, 7 SACKed.
    /// Lost boundary: 3 ranges above 2000 (3–4, 6–7 and… 1 is below) — the
    /// byte count above 5000 is 2000 (not lost), above 2000 it is 4000 (lost).
    #[test]
    fn several_losses_in_one_window() {
        let b = board(&[1, 3, 4, 6, 7]);
        let l = b.lost_boundary(0, 3, MSS);
        assert_eq!(l, 3000, "holes 0 and 2 lost, 5 not yet");
        assert!(b.is_lost(0, 0, 3, MSS) && b.is_lost(2000, 0, 3, MSS));
        assert!(!b.is_lost(5000, 0, 3, MSS));
        // SetPipe over [0, 8000): holes 0, 2 lost (0), hole 5 in flight (1000).
        assert_eq!(b.pipe(0, 8000, l), 1000);
        // NextSeg: rule 1 gives 0, then (after retransmitting it) 2.
        let mut b = b;
        assert_eq!(
            b.next_seg(0, 8000, l, MSS, true, true),
            Some(NextSeg::Retransmit { seq: 0, len: 1000 })
        );
        b.retransmitted(1000);
        assert_eq!(b.pipe(0, 8000, l), 2000, "the retransmission is in flight");
        assert_eq!(
            b.next_seg(0, 8000, l, MSS, true, true),
            Some(NextSeg::Retransmit { seq: 2000, len: 1000 })
        );
        b.retransmitted(3000);
        // Rule 2 before rule 3: new data first, then hole 5 by rule 3.
        assert_eq!(b.next_seg(0, 8000, l, MSS, true, true), Some(NextSeg::New));
        assert_eq!(
            b.next_seg(0, 8000, l, MSS, false, true),
            Some(NextSeg::Retransmit { seq: 5000, len: 1000 })
        );
    }

    /// A lost retransmission: after segment 0 is retransmitted (HighRxt =
    /// 1000) rule 1 does not pick it again; with nothing else to send the
    /// rescue (rule 4) sends the highest un-SACKed segment, once per recovery.
    #[test]
    fn rescue_retransmission_once_per_recovery() {
        let mut b = board(&[1, 2, 3]);
        b.begin_recovery(1000);
        let l = b.lost_boundary(0, 3, MSS);
        assert_eq!(
            b.next_seg(0, 5000, l, MSS, false, true),
            None,
            "HighACK not above RescueRxt"
        );
        // The retransmission arrives, the cumulative ACK passes RescueRxt:
        // the rescue sends the highest un-SACKed segment, 4 (4000..5000).
        b.update(4000, &[]);
        assert_eq!(
            b.next_seg(4000, 5000, 4000, MSS, false, true),
            Some(NextSeg::Rescue { seq: 4000, len: 1000 })
        );
        b.rescued(5000);
        assert_eq!(b.next_seg(4000, 5000, 4000, MSS, false, true), None);
    }

    /// A recovery that begins as soon as the last one ends keeps the last
    /// one's retransmissions: segments 0..8 out, 1, 3, 5, 7 SACKed, holes 0,
    /// 2, 4, 6 retransmitted (HighRxt 7000). The retransmission of 0 arrives
    /// (cumulative ACK 2000, past the recovery point) and a new recovery
    /// begins at once with its fast retransmit of the head, 2000..3000. Holes
    /// 4 and 6, retransmitted and in flight, are not sent again, and pipe
    /// counts each retransmitted hole once and the two not deemed lost once
    /// more (RFC 6675 SetPipe): 5 segments. With HighRxt put back at 3000, 4
    /// would go again, and pipe would be 3.
    #[test]
    fn back_to_back_recoveries_do_not_resend_what_is_in_flight() {
        let mut b = board(&[1, 3, 5, 7]);
        b.begin_recovery(1000);
        for end in [3000, 5000, 7000] {
            b.retransmitted(end);
        }
        b.update(2000, &[(3000, 4000), (5000, 6000), (7000, 8000)]);
        b.begin_recovery(3000);
        assert_eq!(b.high_rxt(), 7000);
        let l = b.lost_boundary(2000, 3, MSS);
        assert_eq!(b.next_seg(2000, 8000, l, MSS, false, false), None);
        assert_eq!(b.pipe(2000, 8000, l), 5 * MSS);
    }

    /// SACK blocks lost with an ACK: the next ACK repeats the older blocks
    /// (RFC 2018 §4), so the scoreboard ends up the same.
    #[test]
    fn sack_blocks_of_a_lost_ack_are_recovered_from_later_ones() {
        let mut a = Scoreboard::new();
        a.update(0, &[(1000, 2000)]);
        a.update(0, &[(3000, 4000), (1000, 2000)]);
        a.update(0, &[(5000, 6000), (3000, 4000), (1000, 2000)]);
        let mut b = Scoreboard::new();
        b.update(0, &[(1000, 2000)]);
        // The ACK carrying [3000, 4000) first is lost.
        b.update(0, &[(5000, 6000), (3000, 4000), (1000, 2000)]);
        assert_eq!(a.sacked, b.sacked);
        assert_eq!(a.lost_boundary(0, 3, MSS), 1000);
    }

    /// RFC 6675 §5.1: after a timeout every un-SACKed byte below the recovery
    /// point is lost and retransmissions start again from HighACK.
    #[test]
    fn timeout_marks_every_unsacked_byte_lost() {
        let mut b = board(&[3, 6]);
        b.begin_recovery(1000);
        b.clear_retransmissions(0);
        assert_eq!(b.pipe(0, 8000, 8000), 0, "all lost, none retransmitted");
        assert_eq!(
            b.next_seg(0, 8000, 8000, MSS, true, true),
            Some(NextSeg::Retransmit { seq: 0, len: 1000 })
        );
        // Lost data above the highest SACK goes before new data too.
        b.retransmitted(6000);
        assert_eq!(
            b.next_seg(0, 8000, 8000, MSS, true, true),
            Some(NextSeg::Retransmit { seq: 7000, len: 1000 })
        );
    }

    /// The incremental `SetPipe()` equals the hole-by-hole one, and the
    /// SACKed bytes below HighRxt their recount, under any sequence of SACK
    /// updates, cumulative ACKs, retransmissions, recoveries and timeouts.
    mod props {
        use super::*;
        use proptest::prelude::*;

        #[derive(Debug, Clone)]
        enum Op {
            Sack(u64, u64),
            Ack(u64),
            Rxt(u64),
            Begin(u64),
            Timeout,
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                4 => (0u64..60, 1u64..6).prop_map(|(s, l)| Op::Sack(s, l)),
                1 => (0u64..60).prop_map(Op::Ack),
                2 => (0u64..60).prop_map(Op::Rxt),
                1 => (0u64..60).prop_map(Op::Begin),
                1 => Just(Op::Timeout),
            ]
        }

        proptest! {
            #[test]
            fn pipe_matches_the_hole_by_hole_count(ops in proptest::collection::vec(op(), 1..80)) {
                let mut b = Scoreboard::new();
                let mut una = 0;
                let high = 64 * MSS;
                for o in ops {
                    match o {
                        Op::Sack(s, l) => {
                            b.update(una, &[(s * MSS, ((s + l) * MSS).min(high))]);
                        }
                        Op::Ack(a) => {
                            una = una.max(a * MSS);
                            b.update(una, &[]);
                        }
                        Op::Rxt(e) => b.retransmitted(e * MSS),
                        Op::Begin(e) => b.begin_recovery(e * MSS),
                        Op::Timeout => b.clear_retransmissions(una),
                    }
                    let recount: u64 = b.sacked.iter().map(|(&s, &e)| overlap(s, e, 0, b.high_rxt)).sum();
                    prop_assert_eq!(b.sacked_below_rxt, recount);
                    for lost in [una, una + 7 * MSS, b.lost_boundary(una, 3, MSS), high] {
                        prop_assert_eq!(b.pipe(una, high, lost), b.pipe_by_holes(una, high, lost));
                    }
                }
            }
        }
    }
}
