//! The event queue: a binary min-heap ordered by time, then by when each event
//! was (or, in a simulator with an event per packet per hop, would have been)
//! scheduled, then by insertion.
//!
//! Events at one nanosecond are taken in the order they were scheduled, as in
//! ns-2's and ns-3's schedulers, so runs are deterministic and phase effects
//! follow the same rule as theirs. An event's `lead` is how long before its
//! time it was scheduled: `at - now` for a timer, but for a packet's arrival at
//! the end of a link the time since the packet started across it (ns-2
//! schedules the arrival then) although this engine inserts the event later
//! (one pending arrival per link) or earlier (a link folded behind its feeder);
//! the larger lead comes first. Ties of both are broken by insertion order (a
//! 32-bit sequence, which can only misorder two events scheduled for one
//! instant with one lead four billion insertions apart). Components keep at
//! most one pending wakeup each (as in htsim: docs/architecture.md, "Decisions
//! taken so far"), which keeps the heap small: at most 17–464 entries in the
//! benchmark scenarios (`benches/engine.rs`, docs/performance.md), where a
//! pop+push costs 23–33 ns. Entries compare as one 128-bit (time, seq) number.
//! A pop does not remove its entry at once: the next schedule overwrites it and
//! sifts it down (one sift instead of a pop and a push, since handling an event
//! usually schedules another). A 4-ary heap was tried and was no faster. So was
//! a calendar queue (Brown 1988, with the bucket width adapted to the time
//! between pops): more instructions on the 8- and 200-flow dumbbells and a
//! third slower on 10 000 flows, where its buckets are scattered in memory
//! while the heap's top levels stay in cache (docs/performance.md, "Tried and
//! dropped"). Timers are cancelled lazily: the owner remembers the time of its
//! live wakeup and ignores stale ones.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    /// The lead, complemented (a larger lead orders first), then the
    /// insertion sequence: `(!lead) << 32 | seq`.
    order: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.order == o.order
    }
}
impl<E> Eq for Entry<E> {}
impl<E> Entry<E> {
    /// (time, order) as one number: compared without branches.
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time.0 as u128) << 64) | self.order as u128
    }
}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
    // Reversed (BinaryHeap is a max-heap); the comparisons the heap uses, spelled
    // out so that they compile to a 128-bit compare.
    #[inline(always)]
    fn lt(&self, o: &Self) -> bool {
        o.key() < self.key()
    }
    #[inline(always)]
    fn le(&self, o: &Self) -> bool {
        o.key() <= self.key()
    }
    #[inline(always)]
    fn gt(&self, o: &Self) -> bool {
        o.key() > self.key()
    }
    #[inline(always)]
    fn ge(&self, o: &Self) -> bool {
        o.key() >= self.key()
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        o.key().cmp(&self.key())
    }
}

/// Deterministic priority queue of events.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    /// The heap's top is the event last popped, not yet removed: the next
    /// [`Scheduler::schedule`] overwrites it (one sift instead of a pop and a
    /// push: an event usually schedules the next one), or the next look at the
    /// queue removes it.
    spent_top: bool,
    seq: u64,
    now: Time,
    popped: u64,
    /// Most events ever pending at once.
    peak: usize,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler {
            heap: BinaryHeap::with_capacity(1024),
            spent_top: false,
            seq: 0,
            now: Time::ZERO,
            popped: 0,
            peak: 0,
        }
    }

    /// Current simulated time (time of the last popped event).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `ev` at `at` (its lead: `at - now`); scheduling in the past
    /// is a logic error and is clamped to `now` so time never goes backwards.
    #[inline]
    pub fn schedule(&mut self, at: Time, ev: E) {
        let lead = at.saturating_sub(self.now);
        self.schedule_led(at, lead, ev);
    }

    /// Schedules `ev` at `at` as if it had been scheduled `lead` before `at`
    /// (see the module doc).
    pub fn schedule_led(&mut self, at: Time, lead: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = if at < self.now { self.now } else { at };
        self.seq += 1;
        let lead = lead.0.min(u32::MAX as u64);
        let e = Entry {
            time,
            order: ((!lead & u32::MAX as u64) << 32) | (self.seq & u32::MAX as u64),
            ev,
        };
        if self.spent_top {
            self.spent_top = false;
            *self.heap.peek_mut().expect("the spent top is there") = e;
        } else {
            self.heap.push(e);
        }
        self.peak = self.peak.max(self.heap.len());
    }

    /// Removes the spent top, if any.
    #[inline]
    fn settle(&mut self) {
        if self.spent_top {
            self.spent_top = false;
            self.heap.pop();
        }
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        if self.spent_top {
            // The next event is the earlier of the spent top's children.
            let h = self.heap.as_slice();
            h.get(1..h.len().min(3)).and_then(|c| c.iter().max()).map(|e| e.time)
        } else {
            self.heap.peek().map(|e| e.time)
        }
    }

    /// Pops the earliest event and advances `now` to its time.
    pub fn pop(&mut self) -> Option<(Time, E)>
    where
        E: Copy,
    {
        self.pop_until(Time::MAX)
    }

    /// Pops the earliest event if it is at or before `limit` (a peek and a pop
    /// in one look at the queue), and advances `now` to its time.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)>
    where
        E: Copy,
    {
        self.settle();
        let e = self.heap.peek().filter(|e| e.time <= limit)?;
        self.spent_top = true;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.ev))
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len() - self.spent_top as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
    /// Most events pending at once so far (stale timer entries included).
    pub fn peak_len(&self) -> usize {
        self.peak
    }
    /// Drops every pending event and the memory that held them (the counts
    /// and the peak stay).
    pub fn clear(&mut self) {
        self.heap = BinaryHeap::new();
        self.spent_top = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut s = Scheduler::new();
        s.schedule(Time(5), 'a');
        s.schedule(Time(1), 'b');
        s.schedule(Time(5), 'c');
        s.schedule(Time(1), 'd');
        let order: Vec<char> = std::iter::from_fn(|| s.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(s.now(), Time(5));
    }

    use proptest::prelude::*;

    proptest! {
        /// Any interleaving of pops and schedules (an event scheduling 0–3 more,
        /// often at the same instant) comes out in (time, insertion) order, and
        /// `peek_time`, `pop_until` and `len` agree with a sorted reference at
        /// every step, whether or not the last popped entry was overwritten.
        #[test]
        fn pops_in_time_then_insertion_order(
            first in prop::collection::vec(0u64..50, 1..40),
            steps in prop::collection::vec(prop::collection::vec(0u64..4, 0..4), 1..200),
        ) {
            let mut s = Scheduler::new();
            let mut reference: Vec<(u64, u64)> = Vec::new(); // (time, id), kept sorted
            let mut id = 0u64;
            let mut add = |s: &mut Scheduler<u64>, r: &mut Vec<(u64, u64)>, t: u64| {
                s.schedule(Time(t), id);
                let at = r.partition_point(|&(rt, _)| rt <= t);
                r.insert(at, (t, id));
                id += 1;
            };
            for &t in &first {
                add(&mut s, &mut reference, t);
            }
            for dts in &steps {
                prop_assert_eq!(s.len(), reference.len());
                prop_assert_eq!(s.peek_time().map(|t| t.0), reference.first().map(|e| e.0));
                // Nothing comes out before the earliest time, and looking changes nothing.
                if let Some(&(rt, _)) = reference.first().filter(|e| e.0 > 0) {
                    prop_assert!(s.pop_until(Time(rt - 1)).is_none());
                    prop_assert_eq!(s.len(), reference.len());
                }
                let Some((t, ev)) = s.pop() else { break };
                let (rt, rid) = reference.remove(0);
                prop_assert_eq!((t.0, ev), (rt, rid));
                for &dt in dts {
                    add(&mut s, &mut reference, t.0 + dt);
                }
            }
        }
    }
}
