//! A drop-tail FIFO link served without events of its own.
//!
//! In a FIFO whose only decision is to drop an arrival that does not fit
//! (drop-tail, with a limit in packets or bytes that counts the packets
//! waiting, not the one being serialized), a packet's whole passage is known
//! the moment it arrives: it starts serializing when the transmitter frees up
//! from the packets ahead of it, `start = max(arrival, busy_until)`, ends
//! `tx = size / rate` later and reaches the far end `delay` (plus jitter)
//! after that. Such a link therefore needs no wakeup to dequeue its next
//! packet (the engine's `TxReady`): the packet goes into the propagation pipe
//! at its arrival, with its arrival time at the far end, and the queue is the
//! set of admitted packets whose service has not started yet. Whether an
//! arrival fits is the number (and bytes) of those at its arrival time.
//!
//! An arrival and a start of service at the same nanosecond come in the
//! order an event-driven simulator would take them, ns-2's: by when each
//! event was scheduled, earlier first. An arrival over a link was scheduled
//! when the packet started across it, its `lead` (that link's delay and
//! serialization time) ahead; a start of service when the packet ahead
//! started, its serialization time ahead; a packet its host sends now has no
//! lead. So behind a long propagation delay arrivals come first, behind a
//! slow transmitter starts do (and a packet that finds the queue holding one
//! starting then may be dropped or not accordingly).
//!
//! The link can even be told of an arrival before it happens, when the packet
//! is still on the wire of the one link that feeds it (the engine's folding,
//! `Link::feeder`): the arrivals come in the order they happen, and what an
//! arrival finds depends only on the arrivals before it.
//!
//! The queue's statistics (arrivals, drops, departures, busy time, the
//! backlog integrals and maximum, sojourn times) are what the same arrivals
//! would have produced event by event: each admitted packet is an [`Entry`]
//! (arrival, start and end of service) and each refused one a drop record.
//! An arrival now is accounted at once, with the starts and ends of service
//! due by then; an arrival told in advance, and whatever is due later, when
//! [`Fifo::settle`] brings the accounts up to the instant they are read. An
//! observer at time `t` sees what happened before `t`, and what of `t` the
//! engine had already done (the order of events at one instant).
//!
//! An arrival's draws from the link's stream (loss on the wire, then
//! jitter) are made in arrival order, which for a FIFO is the order of the
//! service starts at which an event-driven link draws them: the same numbers
//! for the same packets.

use super::QueueStats;
use crate::qdisc::{DropReason, Limit};
use crate::units::Time;

/// An admitted packet's passage through the link.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Entry {
    /// Arrival at the queue, start and end of serialization.
    arrive: Time,
    start: Time,
    done: Time,
    size: u32,
    /// How far ahead the arrival and the start would have been scheduled,
    /// in ns (see the module doc; saturated at 4.29 s).
    arrive_lead: u32,
    start_lead: u32,
    /// Lost on the wire (counted as a drop when its serialization ends).
    lost: bool,
}

impl Entry {
    /// Whether this packet's start of service comes before an arrival at
    /// `at` with `lead` (see the module doc).
    #[inline]
    fn starts_before(&self, at: Time, lead: u32) -> bool {
        self.start < at || (self.start == at && self.start_lead > lead)
    }
}

/// A duration as a lead: nanoseconds, saturated.
#[inline]
pub fn lead(d: Time) -> u32 {
    d.0.min(u32::MAX as u64) as u32
}

/// The packet being serialized: what its end of service accounts.
#[derive(Copy, Clone, Debug)]
struct Serving {
    done: Time,
    size: u32,
    lost: bool,
}

impl From<Entry> for Serving {
    #[inline]
    fn from(e: Entry) -> Serving {
        Serving {
            done: e.done,
            size: e.size,
            lost: e.lost,
        }
    }
}

/// A ring of entries with a power-of-two capacity: indexing is a mask, not
/// a branch (the accounting reads three positions per packet).
#[derive(Debug, Default)]
struct Ring {
    buf: Vec<Entry>,
    head: usize,
    len: usize,
}

impl Ring {
    #[inline]
    fn get(&self, i: usize) -> &Entry {
        debug_assert!(i < self.len);
        &self.buf[(self.head + i) & (self.buf.len() - 1)]
    }
    #[inline]
    fn push(&mut self, e: Entry) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let mask = self.buf.len() - 1;
        self.buf[(self.head + self.len) & mask] = e;
        self.len += 1;
    }
    #[inline]
    fn pop(&mut self) {
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        if super::too_roomy(self.len, self.buf.len(), super::KEEP_BUSY) {
            self.resize(self.buf.len() / 4); // (see super::too_roomy)
        }
    }
    #[cold]
    fn grow(&mut self) {
        self.resize((self.buf.len() * 2).max(4));
    }
    /// See [`Fifo::tidy`].
    fn tidy(&mut self) {
        if super::too_roomy(self.len, self.buf.len(), super::KEEP) {
            self.resize(super::room_for(self.len));
        }
    }
    #[cold]
    fn resize(&mut self, cap: usize) {
        let mut buf = vec![Entry::default(); cap];
        for (i, b) in buf.iter_mut().take(self.len).enumerate() {
            *b = *self.get(i);
        }
        (self.buf, self.head) = (buf, 0);
    }
}

/// The FIFO state of a link (see the module doc).
#[derive(Debug)]
pub struct Fifo {
    pub limit: Limit,
    /// Told of arrivals in advance (folded behind its feeder).
    folded: bool,
    /// Admitted packets whose start of service is not accounted yet, in
    /// order; the first `arrived` have their arrival accounted (all of them
    /// but on a folded link).
    q: Ring,
    arrived: usize,
    /// The packet whose service started last, its end not accounted yet.
    in_service: Option<Serving>,
    /// Admission told in advance: `q[waiting..]` had not started at the last
    /// arrival; their bytes.
    waiting: usize,
    waiting_bytes: u64,
    /// Arrivals told in advance that did not fit, not accounted yet: their times.
    drops: std::collections::VecDeque<Time>,
    /// The serialization time of the last packet admitted (the lead of the
    /// start of the next one, if it waits).
    last_tx: Time,
    /// Arrivals told in advance until the accounts are next brought up to
    /// the engine's time (a few at a time: the work per packet is the same,
    /// the calls fewer).
    until_settle: u8,
    /// The backlog as accounted: packets and bytes waiting.
    backlog: (u64, u64),
}

/// What became of an arrival ([`Fifo::admit`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admitted {
    /// Serialization from `start` to `done`; `lost` on the wire.
    Sent { start: Time, done: Time, lost: bool },
    /// It did not fit.
    Dropped,
}

/// How a link serializes a packet: its serialization time, and whether it
/// is lost on the wire (drawn per admitted packet).
pub trait Serve {
    fn tx(&mut self, size: u32) -> Time;
    fn lost(&mut self) -> bool;
}

/// Where a FIFO link keeps its accounts: its queue statistics, the time
/// of the last change of its backlog, and the drops accounted (at the limit
/// or on the wire) for the engine's packet count.
pub struct Accounts<'a> {
    pub stats: &'a mut QueueStats,
    pub last_change: &'a mut Time,
    pub dropped: u64,
}

impl Accounts<'_> {
    /// The backlog integrals up to `t` (with the backlog since the last change).
    #[inline]
    fn integrate(&mut self, t: Time, backlog: (u64, u64)) {
        if t > *self.last_change {
            let dt = (t - *self.last_change).0 as u128;
            self.stats.len_pkt_ns += dt * backlog.0 as u128;
            self.stats.len_byte_ns += dt * backlog.1 as u128;
            *self.last_change = t;
        }
    }
    #[inline]
    fn drop(&mut self, why: DropReason) {
        self.stats.count_drop(why);
        self.dropped += 1;
    }
}

impl Fifo {
    pub fn new(limit: Limit, folded: bool) -> Fifo {
        Fifo {
            limit,
            folded,
            q: Ring::default(),
            arrived: 0,
            in_service: None,
            waiting: 0,
            waiting_bytes: 0,
            drops: Default::default(),
            last_tx: Time::ZERO,
            until_settle: 0,
            backlog: (0, 0),
        }
    }

    /// Gives back the room of its record beyond twice what it holds
    /// ([`super::Link::tidy`]).
    pub fn tidy(&mut self) {
        self.q.tidy();
        if super::too_roomy(self.drops.len(), self.drops.capacity(), super::KEEP) {
            self.drops.shrink_to(super::room_for(self.drops.len()));
        }
    }

    /// A `size`-byte packet arrives at `at` (not before any earlier arrival;
    /// `now` is the engine's time, `at > now` only on a folded link); the
    /// transmitter is free from `busy_until`. Admits it if the packets still
    /// waiting at `at` leave room. An arrival now is accounted at once, after
    /// the starts and ends of service due by now (see the module doc).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn admit(
        &mut self,
        now: Time,
        at: Time,
        lead: u32,
        size: u32,
        busy_until: Time,
        serve: &mut impl Serve,
        acc: &mut Accounts,
    ) -> Admitted {
        if self.folded {
            return self.admit_ahead(now, at, lead, size, busy_until, serve, acc);
        }
        debug_assert_eq!(at, now, "only a folded link is told of arrivals in advance");
        if self.q.len == 0 && busy_until <= now {
            // It finds the queue empty and the transmitter free.
            let tx = serve.tx(size);
            self.last_tx = tx;
            let s = Serving {
                done: now + tx,
                size,
                lost: serve.lost(),
            };
            self.pass(now, s, acc);
            return Admitted::Sent {
                start: now,
                done: s.done,
                lost: s.lost,
            };
        }
        while self.q.len > 0 && self.q.get(0).starts_before(now, lead) {
            self.start_front(acc);
        }
        self.depart(now, true, acc);
        let (pkts, bytes) = self.backlog;
        if !self.limit.admits(pkts as usize, bytes, size) {
            acc.stats.arrivals += 1;
            acc.drop(DropReason::Overflow);
            return Admitted::Dropped;
        }
        let e = self.serve(at, lead, size, busy_until, serve);
        self.q.push(e);
        self.arrived += 1;
        self.arrive(e, acc);
        // The starts at this instant that come before any later arrival at
        // this instant (whose lead is at most this one's: arrivals come in
        // the order of their events) are accounted now: this packet's own,
        // if it finds the transmitter free as the packet ahead leaves. A
        // start known less far ahead than this arrival waits for the next
        // arrival or `settle`, since a later arrival at this instant known
        // further ahead than it comes first.
        while self.q.get(0).starts_before(now, lead) {
            self.start_front(acc);
            if self.q.len == 0 {
                break;
            }
        }
        Admitted::Sent {
            start: e.start,
            done: e.done,
            lost: e.lost,
        }
    }

    /// [`Fifo::admit`] of a packet that finds the queue empty and the
    /// transmitter idle: it starts at once (a backlog of one packet for no
    /// time, a sojourn of 0).
    #[inline]
    fn pass(&mut self, at: Time, e: Serving, acc: &mut Accounts) {
        debug_assert!(self.backlog == (0, 0));
        if let Some(prev) = self.in_service.take() {
            Self::end(prev, acc);
        }
        *acc.last_change = at; // (the integrals gain nothing over an empty queue)
        let s = &mut *acc.stats;
        s.arrivals += 1;
        s.max_pkts = s.max_pkts.max(1);
        s.max_bytes = s.max_bytes.max(e.size as u64);
        s.sojourn.record_zero();
        self.in_service = Some(e);
    }

    /// [`Fifo::admit`] of an arrival told in advance: the accounts are kept up
    /// to now only, and what the arrival finds is counted from the packets
    /// not yet started at `at`.
    #[allow(clippy::too_many_arguments)]
    fn admit_ahead(
        &mut self,
        now: Time,
        at: Time,
        lead: u32,
        size: u32,
        busy_until: Time,
        serve: &mut impl Serve,
        acc: &mut Accounts,
    ) -> Admitted {
        match self.until_settle.checked_sub(1) {
            Some(n) => self.until_settle = n,
            None => {
                self.settle(now, false, acc);
                self.until_settle = 7;
            }
        }
        while self.waiting < self.q.len && self.q.get(self.waiting).starts_before(at, lead) {
            self.waiting_bytes -= self.q.get(self.waiting).size as u64;
            self.waiting += 1;
        }
        if !self.limit.admits(self.q.len - self.waiting, self.waiting_bytes, size) {
            self.drops.push_back(at);
            return Admitted::Dropped;
        }
        let e = self.serve(at, lead, size, busy_until, serve);
        self.q.push(e);
        self.waiting_bytes += size as u64;
        Admitted::Sent {
            start: e.start,
            done: e.done,
            lost: e.lost,
        }
    }

    /// The passage of a packet arriving at `at`.
    #[inline]
    fn serve(&mut self, at: Time, lead: u32, size: u32, busy_until: Time, serve: &mut impl Serve) -> Entry {
        let start = at.max(busy_until);
        // A packet that waits starts when the one ahead (served last) ends;
        // one that finds the transmitter free starts with its own arrival,
        // before any later arrival at that instant.
        let start_lead = if start > at { self::lead(self.last_tx) } else { u32::MAX };
        let tx = serve.tx(size);
        self.last_tx = tx;
        Entry {
            arrive: at,
            start,
            done: start + tx,
            size,
            arrive_lead: lead,
            start_lead,
            lost: serve.lost(),
        }
    }

    /// Accounts the arrival of `e`.
    #[inline]
    fn arrive(&mut self, e: Entry, acc: &mut Accounts) {
        acc.integrate(e.arrive, self.backlog);
        self.backlog = (self.backlog.0 + 1, self.backlog.1 + e.size as u64);
        let s = &mut *acc.stats;
        s.arrivals += 1;
        s.max_pkts = s.max_pkts.max(self.backlog.0);
        s.max_bytes = s.max_bytes.max(self.backlog.1);
    }

    /// Accounts the start of service of the first packet waiting (which has
    /// arrived): the end of the one before it, the backlog, its sojourn.
    #[inline]
    fn start_front(&mut self, acc: &mut Accounts) {
        let e = *self.q.get(0);
        self.q.pop();
        self.arrived -= 1;
        self.leave_waiting(e.size);
        if let Some(prev) = self.in_service.take() {
            Self::end(prev, acc);
        }
        acc.integrate(e.start, self.backlog);
        self.backlog = (self.backlog.0 - 1, self.backlog.1 - e.size as u64);
        acc.stats.sojourn.record((e.start - e.arrive).0);
        self.in_service = Some(e.into());
    }

    /// The first packet of `q` (of `size` bytes) leaves it: the admission
    /// cursor of a folded link follows.
    #[inline]
    fn leave_waiting(&mut self, size: u32) {
        if self.folded {
            match self.waiting.checked_sub(1) {
                Some(w) => self.waiting = w,
                None => self.waiting_bytes -= size as u64,
            }
        }
    }

    /// Accounts the end of the service in progress if it ended before `t`
    /// (at `t` too when `inclusive`).
    #[inline]
    fn depart(&mut self, t: Time, inclusive: bool, acc: &mut Accounts) {
        if let Some(e) = self.in_service.filter(|e| e.done < t || (inclusive && e.done == t)) {
            self.in_service = None;
            Self::end(e, acc);
        }
    }

    /// Accounts the end of `e`'s service.
    #[inline]
    fn end(e: Serving, acc: &mut Accounts) {
        let s = &mut *acc.stats;
        s.departures += 1;
        s.departure_bytes += e.size as u64;
        if e.lost {
            acc.drop(DropReason::LinkLoss);
        }
    }

    /// Accounts what happened before `t` (at `t` too when `inclusive`):
    /// arrivals and service starts in time order (at one instant in the order
    /// their events were scheduled, see the module doc; a packet that starts
    /// as it arrives counts a backlog of one), drops, and the end of the
    /// service in progress; the backlog integrals are brought up to `t`.
    pub fn settle(&mut self, t: Time, inclusive: bool, acc: &mut Accounts) {
        let due = |x: Time| x < t || (inclusive && x == t);
        while self.arrived < self.q.len {
            let e = *self.q.get(self.arrived);
            if !due(e.arrive) {
                break;
            }
            while self.arrived > 0 && self.q.get(0).starts_before(e.arrive, e.arrive_lead) {
                self.start_front(acc);
            }
            if self.arrived == 0 && e.start == e.arrive {
                // It finds the queue empty and the transmitter free.
                self.q.pop();
                self.leave_waiting(e.size);
                self.pass(e.arrive, e.into(), acc);
            } else {
                self.arrived += 1;
                self.arrive(e, acc);
            }
        }
        while self.arrived > 0 && due(self.q.get(0).start) {
            self.start_front(acc);
        }
        acc.integrate(t, self.backlog);
        while self.drops.front().is_some_and(|&d| due(d)) {
            self.drops.pop_front();
            acc.stats.arrivals += 1;
            acc.drop(DropReason::Overflow);
        }
        self.depart(t, inclusive, acc);
    }

    /// Packets waiting now, as accounted (after [`Fifo::settle`]): packets and bytes.
    pub fn backlog(&self) -> (u64, u64) {
        self.backlog
    }

    /// Packets this link holds that are in no pipe: those it will drop (at
    /// the limit or on the wire) whose drop is not accounted yet.
    pub fn unaccounted_drops(&self) -> u64 {
        let lost = (0..self.q.len).filter(|&i| self.q.get(i).lost).count();
        let in_service = self.in_service.is_some_and(|e| e.lost);
        self.drops.len() as u64 + lost as u64 + in_service as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1000-byte packets at 10 Mb/s: 800 µs each; nothing lost.
    struct TenMbps;
    impl Serve for TenMbps {
        fn tx(&mut self, size: u32) -> Time {
            Time::from_micros(size as u64 * 8 / 10)
        }
        fn lost(&mut self) -> bool {
            false
        }
    }

    fn us(x: u64) -> Time {
        Time::from_micros(x)
    }

    /// Drives a FIFO as the engine does: arrivals now, or told in advance.
    struct Drive {
        f: Fifo,
        stats: QueueStats,
        last_change: Time,
        busy_until: Time,
        dropped: u64,
    }

    impl Drive {
        fn new(limit: Limit, folded: bool) -> Drive {
            Drive {
                f: Fifo::new(limit, folded),
                stats: QueueStats::default(),
                last_change: Time::ZERO,
                busy_until: Time::ZERO,
                dropped: 0,
            }
        }
        fn admit(&mut self, now: Time, at: Time) -> Admitted {
            self.admit_led(now, at, 0)
        }
        fn admit_led(&mut self, now: Time, at: Time, lead: u32) -> Admitted {
            let mut acc = Accounts {
                stats: &mut self.stats,
                last_change: &mut self.last_change,
                dropped: 0,
            };
            let a = self
                .f
                .admit(now, at, lead, 1000, self.busy_until, &mut TenMbps, &mut acc);
            self.dropped += acc.dropped;
            if let Admitted::Sent { done, .. } = a {
                self.busy_until = done;
            }
            a
        }
        fn settle(&mut self, t: Time, inclusive: bool) {
            let mut acc = Accounts {
                stats: &mut self.stats,
                last_change: &mut self.last_change,
                dropped: 0,
            };
            self.f.settle(t, inclusive, &mut acc);
            self.dropped += acc.dropped;
        }
    }

    /// Four arrivals 100 µs apart into a 2-packet queue: the first starts at
    /// once, the second and third wait (starting at 800 and 1600 µs), the
    /// fourth finds two waiting and is dropped. By hand at 2000 µs: 4
    /// arrivals, 1 drop, 2 departures (ends at 800, 1600), 1 packet in
    /// service and none waiting; the backlog was 1 packet over [100, 200),
    /// 2 over [200, 800), 1 over [800, 1600): 2 100 packet·µs; sojourns 0,
    /// 700 and 1400 µs; at most 2 waiting.
    #[test]
    fn drop_tail_by_hand() {
        let mut d = Drive::new(Limit::Packets(2), false);
        let mut starts = vec![];
        for k in 0..4 {
            let t = us(100 * k);
            starts.push(match d.admit(t, t) {
                Admitted::Sent { start, .. } => Some(start),
                Admitted::Dropped => None,
            });
        }
        assert_eq!(starts, vec![Some(us(0)), Some(us(800)), Some(us(1600)), None]);
        d.settle(us(2000), false);
        let s = &d.stats;
        assert_eq!(
            (s.arrivals, s.drop_count(DropReason::Overflow), s.departures),
            (4, 1, 2)
        );
        assert_eq!((d.f.backlog(), d.dropped), ((0, 0), 1));
        assert_eq!(s.len_pkt_ns, 2_100 * 1_000);
        assert_eq!(s.len_byte_ns, 2_100 * 1_000 * 1000);
        assert_eq!(s.max_pkts, 2);
        assert_eq!(s.departure_bytes, 2_000);
        assert_eq!(s.sojourn.count, 3);
        assert_eq!(s.sojourn.sum_ns, 2_100_000);
        // The third ends at 2400 µs: accounted once its time is passed.
        d.settle(us(2400), false);
        assert_eq!(d.stats.departures, 2, "an end at t is after an observer at t");
        d.settle(us(2400), true);
        assert_eq!(d.stats.departures, 3);
    }

    /// An arrival at the instant the transmitter frees up, in ns-2's order
    /// of the two events: the start of service (scheduled one 800-µs
    /// serialization ahead) comes first when the arrival was known less far
    /// ahead (its host sent it now: it fits in the one-packet queue), after
    /// an arrival known further ahead (over a link 1 ms long: the packet about
    /// to start still waits, and the arrival is dropped).
    #[test]
    fn ties_in_the_order_their_events_were_scheduled() {
        for folded in [false, true] {
            for (lead_us, fits) in [(0, true), (1_000, false)] {
                let mut d = Drive::new(Limit::Packets(1), folded);
                let ahead = |t: u64| us(t.saturating_sub(lead_us * folded as u64));
                d.admit_led(ahead(0), us(0), 0); // in service until 800
                d.admit_led(ahead(10), us(10), 0); // waits, starts at 800
                assert_eq!(
                    d.admit_led(ahead(20), us(20), 0),
                    Admitted::Dropped,
                    "one waiting: full"
                );
                let a = d.admit_led(ahead(800), us(800), lead_us as u32 * 1000);
                assert_eq!(
                    a != Admitted::Dropped,
                    fits,
                    "folded {folded}, lead {lead_us} µs: {a:?}"
                );
                d.settle(us(2000), false);
                assert_eq!((d.stats.max_pkts, d.stats.total_drops()), (1, 1 + !fits as u64));
            }
        }
    }

    /// Two arrivals and a start of service at one instant, in ns-2's order
    /// of their events (by lead): at 800 µs the packet waiting since 10 µs
    /// starts (its event scheduled one 800-µs serialization ahead), and two
    /// packets arrive over links, known 2 ms and then `lead_us` ahead. The
    /// first finds one packet waiting and is admitted (the start comes after
    /// it); the second comes before the start when known more than 800 µs
    /// ahead and finds the 2-packet queue full, else after it and fits.
    /// (Taking the start right after the first arrival, as the engine once
    /// did, admitted the second in both cases.)
    #[test]
    fn a_start_between_two_arrivals_at_one_instant() {
        for folded in [false, true] {
            for (lead_us, fits) in [(1_000, false), (500, true)] {
                let mut d = Drive::new(Limit::Packets(2), folded);
                let ahead = |t: u64, lead: u64| us(t.saturating_sub(lead * folded as u64));
                d.admit_led(ahead(0, 0), us(0), 0); // in service until 800
                d.admit_led(ahead(10, 0), us(10), 0); // waits, starts at 800
                let first = d.admit_led(ahead(800, 2_000), us(800), 2_000_000);
                assert_eq!(
                    first,
                    Admitted::Sent {
                        start: us(1600),
                        done: us(2400),
                        lost: false
                    }
                );
                let second = d.admit_led(ahead(800, lead_us), us(800), lead_us as u32 * 1000);
                assert_eq!(
                    second != Admitted::Dropped,
                    fits,
                    "folded {folded}, lead {lead_us} µs: {second:?}"
                );
                d.settle(us(5000), false);
                let s = &d.stats;
                assert_eq!((s.arrivals, s.total_drops(), s.max_pkts), (4, !fits as u64, 2));
                assert_eq!(s.departures, 3 + fits as u64);
            }
        }
    }

    /// A folded link told of its arrivals in advance reaches the same
    /// decisions and, once its accounts are brought up to date, the same
    /// statistics as one whose arrivals come when they happen.
    #[test]
    fn told_in_advance_or_on_time_the_same() {
        let arrivals: Vec<u64> = vec![0, 50, 120, 130, 900, 905, 910, 3000, 3001, 3002, 3003];
        let mut now = Drive::new(Limit::Packets(2), false);
        let mut ahead = Drive::new(Limit::Packets(2), true);
        for &a in &arrivals {
            let on_time = now.admit(us(a), us(a));
            // Told 400 µs early (the engine's time is then 400 µs before).
            let early = ahead.admit(us(a.saturating_sub(400)), us(a));
            assert_eq!(on_time, early, "arrival at {a} µs");
            // An observer half-way (not at an arrival's instant) sees the
            // same on both.
            if a == 905 {
                now.settle(us(907), false);
                ahead.settle(us(907), false);
                assert_eq!(now.f.backlog(), ahead.f.backlog());
                assert_eq!(now.stats.arrivals, ahead.stats.arrivals);
            }
        }
        now.settle(us(10_000), true);
        ahead.settle(us(10_000), true);
        let (a, b) = (&now.stats, &ahead.stats);
        assert_eq!(
            (a.arrivals, a.departures, a.total_drops()),
            (b.arrivals, b.departures, b.total_drops())
        );
        assert_eq!(
            (a.len_pkt_ns, a.max_pkts, a.departure_bytes),
            (b.len_pkt_ns, b.max_pkts, b.departure_bytes)
        );
        assert_eq!((a.sojourn.count, a.sojourn.sum_ns), (b.sojourn.count, b.sojourn.sum_ns));
        assert_eq!((now.dropped, ahead.dropped), (a.total_drops(), a.total_drops()));
        assert!(a.total_drops() > 0 && a.max_pkts == 2);
    }
}
