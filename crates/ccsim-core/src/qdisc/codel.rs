//! CoDel, Controlled Delay (RFC 8289, K. Nichols, V. Jacobson, A. McGregor,
//! J. Iyengar, 2018), as the pseudocode of RFC 8289 §5 and Linux
//! `include/net/codel_impl.h` run it. Model page: docs/models/codel.md.
//!
//! * Each packet is timestamped as it enters the queue ([`Packet::enq`]); at
//!   dequeue its sojourn time is compared with `target` (§5.2 `dodequeue`).
//!   When the sojourn has stayed at or above `target` for `interval`
//!   (`first_above_time`), and the queue still holds more than one `mtu` of
//!   bytes after the packet left it (§5.2, Linux `codel_should_drop`), CoDel
//!   enters the dropping state.
//! * In the dropping state it drops (or, with `ecn`, marks an ECN-capable
//!   packet: Linux `INET_ECN_set_ce`) at times spaced by the control law
//!   `interval / √count` (§5.5), until a packet's sojourn falls below `target`
//!   or the queue is nearly empty (§5.4).
//! * On entering the dropping state soon after leaving it (`now − drop_next <
//!   16 · interval`), `count` restarts from the number of drops of the last
//!   cycle, `count − lastcount`, when that is above 1 (§5.3: "this is the Linux
//!   version").
//!
//! * `interval / √count` is computed in floating point, exactly rounded, as
//!   RFC 8289 §5.5 writes it (`inv_sqrt = "exact"`, the default), or as
//!   Linux and ns-3 compute it (`"newton"`): a 16-bit fixed-point reciprocal
//!   square root updated by one Newton step per change of `count`
//!   (`codel_Newton_step`, `codel_control_law`), reset to 1 when `count`
//!   restarts at 1. One step is close for `count` + 1, not for the jump to
//!   `count − lastcount` on re-entering the dropping state: from 1/√10 to
//!   `count` = 3 it gives 0.43 where 1/√3 is 0.58, so Linux marks a third
//!   sooner there.
//!
//! Deviations from Linux:
//! * The buffer is the link's `limit` (Linux `limit`, default 1000 packets);
//!   an arrival that does not fit is dropped (`drops_overflow`). CoDel's drops
//!   are counted as `drops_early`, its marks as `marks_early`.
//! * `ce_threshold` (Linux's DCTCP-style marking option) is not modelled.
//!
//! [`CodelVars::dequeue`] is the per-queue state machine, reused by FQ-CoDel
//! (RFC 8290 §4.2: "CoDel per queue") over any [`CodelSource`].

use super::{DropReason, Limit, LinkInfo, MarkReason, PacketFifo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use crate::cfg::{time_str, Res, Tab};
use crate::packet::{Ecn, Packet};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// CoDel's parameters (RFC 8289 §4.3, §4.4; Linux defaults).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing queue delay (default 5 ms).
    pub target: Time,
    /// Window over which the sojourn must stay above target (default 100 ms).
    pub interval: Time,
    /// No drop while the queue holds at most this many bytes (RFC 8289's
    /// `maxpacket`, Linux `mtu`; default 1500 B).
    pub mtu: u64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// `interval / √count` by Linux's one Newton step per change of `count`
    /// (`inv_sqrt = "newton"`) instead of exactly (`"exact"`).
    pub newton: bool,
}

/// CoDel's state of one queue (RFC 8289 §5.1 class variables; Linux `codel_vars`).
#[derive(Clone, Debug, Default)]
pub struct CodelVars {
    /// Drops (marks) since entering the dropping state (plus the carry-over).
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    pub dropping: bool,
    /// When the sojourn will have been above target for `interval`; `None`
    /// while it is below.
    pub first_above_time: Option<Time>,
    /// Time of the next drop in the dropping state.
    pub drop_next: Time,
    /// Sojourn of the last packet dequeued.
    pub ldelay: Time,
    /// Linux's `rec_inv_sqrt`: 1/√count in Q0.16 (with `newton`).
    pub rec_inv_sqrt: u16,
}

/// A FIFO CoDel dequeues from: its packets and the bytes the whole
/// discipline holds (Linux passes `sch->qstats.backlog`, for FQ-CoDel too).
pub trait CodelSource {
    fn pop(&mut self) -> Option<Packet>;
    /// Bytes still queued, after the last `pop`.
    fn backlog_bytes(&self) -> u64;
}

impl CodelSource for PacketFifo {
    fn pop(&mut self) -> Option<Packet> {
        PacketFifo::pop(self)
    }
    fn backlog_bytes(&self) -> u64 {
        self.bytes()
    }
}

/// `t + interval / √count` (RFC 8289 §5.5 `control_law`).
fn control_law(t: Time, interval: Time, count: u32) -> Time {
    t + Time((interval.0 as f64 / (count.max(1) as f64).sqrt()) as u64)
}

/// Linux `codel_Newton_step`: one Newton iteration of 1/√count from the
/// previous estimate, in Q0.32 arithmetic, kept in 16 bits.
fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u64) << 16;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let val = ((3u64 << 32).wrapping_sub(count as u64 * invsqrt2)) >> 2;
    let val = (val.wrapping_mul(invsqrt)) >> (32 - 2 + 1);
    (val >> 16) as u16
}

/// Linux `codel_control_law`: `t + interval · rec_inv_sqrt` (Q0.16).
fn control_law_fixed(t: Time, interval: Time, rec_inv_sqrt: u16) -> Time {
    t + Time(((interval.0 as u128 * ((rec_inv_sqrt as u128) << 16)) >> 32) as u64)
}

/// Sets CE on an ECN-capable packet; false if it is not ECN-capable (Linux
/// `INET_ECN_set_ce`: a packet already CE counts as marked).
fn set_ce(p: &mut Packet) -> bool {
    if p.ecn.is_ect() {
        p.ecn = Ecn::Ce;
        true
    } else {
        false
    }
}

impl CodelVars {
    /// Is it time to drop `p` (RFC 8289 §5.2 `dodequeue`'s `ok_to_drop`)?
    fn should_drop(&mut self, p: Option<&Packet>, backlog: u64, prm: &CodelParams, now: Time) -> bool {
        let Some(p) = p else {
            self.first_above_time = None;
            return false;
        };
        self.ldelay = now - p.enq;
        if self.ldelay < prm.target || backlog <= prm.mtu {
            // Went below, or the queue holds at most one packet's worth: stay
            // out of (or leave) the dropping state (§5.2).
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + prm.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// One dequeue (RFC 8289 §5.3–5.4, Linux `codel_dequeue`): returns the
    /// packet to send, reporting drops and marks through `cx`.
    pub fn dequeue(&mut self, prm: &CodelParams, q: &mut impl CodelSource, cx: &mut QdiscCtx) -> Option<Packet> {
        let now = cx.now;
        let Some(first) = q.pop() else {
            self.dropping = false;
            return None;
        };
        let drop = self.should_drop(Some(&first), q.backlog_bytes(), prm, now);
        let mut p = Some(first);
        if self.dropping {
            if !drop {
                // Sojourn below target: leave the dropping state (§5.4).
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                let mut head = p.take().expect("a packet while dropping");
                self.count += 1;
                self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
                if prm.ecn && set_ce(&mut head) {
                    cx.mark(MarkReason::Early);
                    self.drop_next = self.law(self.drop_next, prm);
                    return Some(head);
                }
                cx.drop(head, DropReason::Early);
                p = q.pop();
                if !self.should_drop(p.as_ref(), q.backlog_bytes(), prm, now) {
                    self.dropping = false;
                } else {
                    self.drop_next = self.law(self.drop_next, prm);
                }
            }
        } else if drop {
            // Enter the dropping state (§5.3): drop (or mark) this packet.
            let head = p.as_mut().expect("just dequeued");
            if prm.ecn && set_ce(head) {
                cx.mark(MarkReason::Early);
            } else {
                cx.drop(p.take().expect("just dequeued"), DropReason::Early);
                p = q.pop();
                // (Linux evaluates this for its side effects on
                // first_above_time and ignores the verdict.)
                self.should_drop(p.as_ref(), q.backlog_bytes(), prm, now);
            }
            self.dropping = true;
            // §5.3: reuse the last cycle's drop rate if it ended recently.
            let delta = self.count.wrapping_sub(self.lastcount);
            if delta > 1 && now < self.drop_next + Time(16 * prm.interval.0) {
                self.count = delta;
                self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = u16::MAX;
            }
            self.lastcount = self.count;
            self.drop_next = self.law(now, prm);
        }
        p
    }

    /// The next drop time after `t`: exact, or Linux's fixed point.
    fn law(&self, t: Time, prm: &CodelParams) -> Time {
        if prm.newton {
            control_law_fixed(t, prm.interval, self.rec_inv_sqrt)
        } else {
            control_law(t, prm.interval, self.count)
        }
    }

    /// The state worth tracing.
    pub fn trace(&self, out: &mut Vec<TraceValue>) {
        out.push(TraceValue::new("count", self.count as f64));
        out.push(TraceValue::new("dropping", self.dropping as u8 as f64));
        out.push(TraceValue::new("ldelay_s", self.ldelay.as_secs_f64()));
    }
}

/// A CoDel queue: one FIFO under [`CodelVars`].
pub struct Codel {
    q: PacketFifo,
    limit: Limit,
    prm: CodelParams,
    vars: CodelVars,
}

impl Codel {
    pub fn new(prm: CodelParams, limit: Limit) -> Codel {
        Codel {
            q: PacketFifo::default(),
            limit,
            prm,
            vars: CodelVars::default(),
        }
    }
}

impl Qdisc for Codel {
    fn kind(&self) -> &'static str {
        "codel"
    }
    fn enqueue(&mut self, pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        if self.q.admits(self.limit, pkt.size) {
            Some(self.q.push(pkt))
        } else {
            cx.drop(pkt, DropReason::Overflow);
            None
        }
    }
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet> {
        self.vars.dequeue(&self.prm, &mut self.q, cx)
    }
    // peek: the head; CoDel may drop it at dequeue (the engine does not peek).
    fifo_methods!();
    fn trace(&self, out: &mut Vec<TraceValue>) {
        self.vars.trace(out);
    }
}

// ----- scenario

#[derive(Debug)]
struct Spec(CodelParams);

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(Codel::new(self.0, link.limit)))
    }
}

/// Reads CoDel's keys (`target`, `interval`, `mtu`, `ecn`) with their RFC 8289
/// defaults; shared with FQ-CoDel. Errors: zero `target` or `interval`,
/// `target ≥ interval` (§4.3: target is a few per cent of interval).
/// `ecn_default`: off for CoDel, on for FQ-CoDel (Linux).
pub fn read_params(t: &mut Tab, ecn_default: bool) -> Res<CodelParams> {
    let target = t.time("target", Some("5ms"))?;
    let interval = t.time("interval", Some("100ms"))?;
    let mtu = t.size("mtu", Some("1500B"))?;
    let ecn = t.boolean("ecn", ecn_default)?;
    let newton = t.choice("inv_sqrt", Some("exact"), &["exact", "newton"])? == "newton";
    if target == Time::ZERO {
        return Err(t.error(
            "target",
            &Value::from(time_str(target)),
            "a positive time below interval",
        ));
    }
    if interval == Time::ZERO {
        return Err(t.error("interval", &Value::from(time_str(interval)), "a positive time"));
    }
    if target >= interval {
        return Err(t.error(
            "target",
            &Value::from(time_str(target)),
            format!(
                "a time below interval ({}; RFC 8289 §4.3: target is 5-10 % of interval)",
                time_str(interval)
            ),
        ));
    }
    Ok(CodelParams {
        target,
        interval,
        mtu,
        ecn,
        newton,
    })
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "target",
        "CoDel: acceptable standing queue delay (RFC 8289, default 5 ms, below interval)",
    ),
    (
        "interval",
        "CoDel: window the sojourn must stay above target before drops start (default 100 ms)",
    ),
    ("mtu", "CoDel: no drop while the queue holds at most this many bytes"),
    ("ecn", "CoDel: mark ECN-capable packets instead of dropping them"),
    (
        "inv_sqrt",
        "CoDel: interval/sqrt(count) \"exact\" (RFC 8289) or by Linux's and ns-3's one Newton step per count (\"newton\")",
    ),
];

/// `kind = "codel"`.
pub fn read(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    t.docs(DOCS);
    Ok(Arc::new(Spec(read_params(t, false)?)))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{build, link, pkt, Drive};
    use super::*;
    use serde_json::json;

    fn prm(ecn: bool) -> CodelParams {
        CodelParams {
            target: Time::from_millis(5),
            interval: Time::from_millis(100),
            mtu: 1500,
            ecn,
            newton: false,
        }
    }

    /// `n` 1000-B packets queued at t = 0, then one dequeue per ms from t = 0
    /// until the queue is empty or `until` ms; returns the ms of each drop or
    /// mark and the driver.
    fn drain_backlog(n: u64, ecn: bool, until: u64) -> (Vec<u64>, Drive<Codel>) {
        let mut d = Drive::new(Box::new(Codel::new(prm(ecn), Limit::Unlimited)));
        for i in 0..n {
            let mut p = pkt(i, 0, 1000);
            if ecn {
                p.ecn = Ecn::Ect0;
            }
            d.enq(p);
        }
        let mut signals = Vec::new();
        for ms in 0..until {
            d.now = Time::from_millis(ms);
            let before = d.drops.len() + d.marks.len();
            if d.deq().is_none() {
                break;
            }
            for _ in before..d.drops.len() + d.marks.len() {
                signals.push(ms);
            }
        }
        (signals, d)
    }

    #[test]
    fn rfc8289_control_law_spaces_drops_by_interval_over_sqrt_count() {
        // All packets enqueued at 0, one dequeue per ms: the sojourn at t is t.
        // It reaches target (5 ms) at t = 5: first_above_time = 105 ms. At 105
        // CoDel enters the dropping state (drops that packet, count 1,
        // drop_next = 205); then drops at 205 (count 2, next 205 + 100/√2 =
        // 275.7), 276 (count 3, next 275.7 + 57.7 = 333.4), 334 (count 4,
        // next 383.4), 384 (count 5, next 383.4 + 44.7 = 428.2), 429.
        let (drops, d) = drain_backlog(2000, false, 430);
        assert_eq!(drops, vec![105, 205, 276, 334, 384, 429]);
        assert!(d.drops.iter().all(|(_, r)| *r == DropReason::Early));
        assert_eq!(d.q.vars.count, 6);
    }

    /// `inv_sqrt = "newton"` (Linux, ns-3): 1/√count by one Newton step per
    /// change of count from the last estimate. From 1 (0xFFFF), count 2 gives
    /// 1·(3 − 2·1)/2 = 0.5 (exact 0.707), count 3 gives 0.5·(3 − 3/4)/2 =
    /// 0.5625, count 4 0.4878, count 5 0.4415. The same backlog as above is
    /// then dropped at 105, 205, 255 (205 + 50), 312 (255 + 56.25), 361 and
    /// 405, sooner than with the exact law.
    #[test]
    fn newton_inv_sqrt_is_linux_fixed_point() {
        let mut r = u16::MAX;
        let mut got = Vec::new();
        for count in 2..=5 {
            r = newton_step(r, count);
            got.push(r as f64 / 65536.0);
        }
        for (g, want) in got.iter().zip([0.5, 0.5625, 0.4878, 0.4415]) {
            assert!((g - want).abs() < 2e-3, "{got:?}");
        }
        let mut d = Drive::new(Box::new(Codel::new(
            CodelParams {
                newton: true,
                ..prm(false)
            },
            Limit::Unlimited,
        )));
        for i in 0..2000 {
            d.enq(pkt(i, 0, 1000));
        }
        let mut drops = Vec::new();
        for ms in 0..410 {
            d.now = Time::from_millis(ms);
            let before = d.drops.len();
            d.deq();
            drops.extend(std::iter::repeat_n(ms, d.drops.len() - before));
        }
        assert_eq!(drops, vec![105, 205, 255, 312, 361, 405]);
    }

    #[test]
    fn ecn_capable_packets_are_marked_at_the_same_times() {
        let (marks, d) = drain_backlog(2000, true, 430);
        assert_eq!(marks, vec![105, 205, 276, 334, 384, 429]);
        assert!(d.drops.is_empty());
        assert!(d.marks.iter().all(|m| *m == MarkReason::Early));
    }

    #[test]
    fn no_drop_below_target_or_with_at_most_one_mtu_queued() {
        // Sojourn always 4 ms < target: never drops.
        let mut d = Drive::new(Box::new(Codel::new(prm(false), Limit::Unlimited)));
        for i in 0..500u64 {
            d.now = Time::from_millis(i);
            d.enq(pkt(2 * i, 0, 1000));
            d.enq(pkt(2 * i + 1, 0, 1000));
            if i >= 4 {
                d.deq();
                d.deq();
            }
        }
        assert!(d.drops.is_empty());
        // Sojourns of seconds, but never more than one 1000-B packet left
        // behind the one dequeued (≤ mtu): never drops.
        let mut d = Drive::new(Box::new(Codel::new(prm(false), Limit::Unlimited)));
        for i in 0..100u64 {
            d.now = Time::from_secs(i);
            d.enq(pkt(i, 0, 1000));
            d.enq(pkt(1000 + i, 0, 1000));
            d.now = Time::from_secs(i) + Time::from_millis(999);
            d.deq();
            d.deq();
        }
        assert!(d.drops.is_empty());
    }

    #[test]
    fn leaves_the_dropping_state_when_the_sojourn_falls_below_target() {
        let (drops, mut d) = drain_backlog(2000, false, 300);
        assert_eq!(drops, vec![105, 205, 276]);
        assert!(d.q.vars.dropping);
        // A fresh packet (sojourn 0) at the head: CoDel leaves the dropping state.
        d.q.q = PacketFifo::default();
        d.now = Time::from_millis(300);
        for i in 0..5 {
            d.enq(pkt(5000 + i, 0, 1000));
        }
        d.deq();
        assert!(!d.q.vars.dropping && d.q.vars.first_above_time.is_none());
        assert_eq!(d.drops.len(), 3);
    }

    #[test]
    fn re_entering_soon_reuses_the_last_cycles_count() {
        // RFC 8289 §5.3 (Linux): a cycle of 3 drops ends at 300 ms (sojourn
        // below target). The queue builds again: the sojourn passes target at
        // 305 ms (first_above_time 405). At 405, 405 − drop_next < 16 intervals
        // and count − lastcount = 3 − 1 = 2 > 1: count restarts at 2, and the
        // next drop comes interval/√2 = 70.7 ms later, at 476 (not 505).
        let (_, mut d) = drain_backlog(2000, false, 300);
        assert_eq!((d.q.vars.count, d.q.vars.lastcount), (3, 1));
        d.q.q = PacketFifo::default();
        d.now = Time::from_millis(300);
        for i in 0..2000 {
            d.enq(pkt(5000 + i, 0, 1000));
        }
        let mut drops = Vec::new();
        for ms in 300..480 {
            d.now = Time::from_millis(ms);
            let before = d.drops.len();
            d.deq();
            if d.drops.len() > before {
                drops.push(ms);
            }
        }
        assert_eq!(drops, vec![405, 476]);
        assert_eq!(d.q.vars.lastcount, 2);
    }

    #[test]
    fn reads_rfc_defaults_and_rejects_target_at_or_above_interval() {
        let l = link("10Mbps", Limit::Packets(1000));
        let q = build(json!({"kind": "codel"}), &l).unwrap();
        assert_eq!((q.kind(), q.limit()), ("codel", Limit::Packets(1000)));
        let e = build(json!({"kind": "codel", "target": "100ms"}), &l).err().unwrap();
        assert_eq!(
            e.to_string(),
            "q.target: got \"0.1s\", expected a time below interval (0.1s; RFC 8289 §4.3: target is 5-10 % of interval)"
        );
        let e = build(json!({"kind": "codel", "interval": "0s"}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.interval: "), "{e}");
        let e = build(json!({"kind": "codel", "target": "0ms"}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.target: "), "{e}");
        let e = build(json!({"kind": "codel", "ecn": 1}), &l).err().unwrap();
        assert!(e.to_string().starts_with("q.ecn: "), "{e}");
    }
}
