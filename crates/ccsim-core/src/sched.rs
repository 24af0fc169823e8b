//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Ties are broken by insertion order, so runs are deterministic. Components
//! keep at most one pending wakeup each (htsim style, see STYLE.md), which keeps
//! the heap small: at most 17–464 entries in the benchmark scenarios
//! (`benches/engine.rs`, docs/performance.md), where a pop+push costs 40–55 ns.
//! A 4-ary heap was tried and was no faster. A calendar queue has not been
//! built: the heap's own code is under 9 % of a 200-flow run's instructions
//! (docs/performance.md, "Where the time goes"), which bounds what it could
//! save. Timers are cancelled lazily: the owner remembers the time of its live
//! wakeup and ignores stale ones.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> Entry<E> {
    /// (time, seq) as one number: compared without branches.
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time.0 as u128) << 64) | self.seq as u128
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

    /// Schedules `ev` at `at`; scheduling in the past is a logic error and is
    /// clamped to `now` so time never goes backwards.
    pub fn schedule(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = if at < self.now { self.now } else { at };
        self.seq += 1;
        self.heap.push(Entry {
            time,
            seq: self.seq,
            ev,
        });
        self.peak = self.peak.max(self.heap.len());
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pops the earliest event and advances `now` to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.ev))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
    /// Most events pending at once so far (stale timer entries included).
    pub fn peak_len(&self) -> usize {
        self.peak
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
}
