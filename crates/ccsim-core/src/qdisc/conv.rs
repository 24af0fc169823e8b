//! Building blocks for per-conversation disciplines (fair queueing, DRR) and
//! for per-flow views: a map keyed by flow id with a fast deterministic hash,
//! an indexed binary heap (keys of slots can be changed or removed in
//! O(log n), so no stale entries), and the longest-queue choice of a shared
//! buffer.

use crate::packet::FlowId;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hasher for small integer keys (flow ids): one multiplication (Fibonacci
/// hashing). Deterministic, so iteration orders are the same on every run.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (i as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (i ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by flow id.
pub type FlowMap<V> = HashMap<FlowId, V, BuildHasherDefault<IdHasher>>;

/// A total order on `f64` (finish numbers); NaN never occurs.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Num(pub f64);

impl Eq for Num {}
impl PartialOrd for Num {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Num {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// A binary min-heap over slots `0..n` with one key per slot; a slot's key can
/// be set (inserted or changed) or removed in O(log n).
#[derive(Clone, Debug)]
pub struct IndexedHeap<K: Ord + Copy> {
    heap: Vec<usize>,
    /// Position of each slot in `heap` (usize::MAX when absent).
    pos: Vec<usize>,
    key: Vec<Option<K>>,
}

impl<K: Ord + Copy> Default for IndexedHeap<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Ord + Copy> IndexedHeap<K> {
    pub fn new() -> Self {
        IndexedHeap {
            heap: Vec::new(),
            pos: Vec::new(),
            key: Vec::new(),
        }
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// The slot with the smallest key.
    pub fn peek(&self) -> Option<(usize, K)> {
        self.heap.first().map(|&s| (s, self.key[s].expect("present")))
    }
    pub fn get(&self, slot: usize) -> Option<K> {
        self.key.get(slot).copied().flatten()
    }
    pub fn contains(&self, slot: usize) -> bool {
        self.get(slot).is_some()
    }
    /// Inserts `slot` with `key`, or changes its key.
    pub fn set(&mut self, slot: usize, key: K) {
        if slot >= self.pos.len() {
            self.pos.resize(slot + 1, usize::MAX);
            self.key.resize(slot + 1, None);
        }
        match self.key[slot].replace(key) {
            None => {
                self.pos[slot] = self.heap.len();
                self.heap.push(slot);
                self.up(self.heap.len() - 1);
            }
            Some(old) => {
                let i = self.pos[slot];
                match key.cmp(&old) {
                    Ordering::Less => self.up(i),
                    Ordering::Greater => self.down(i),
                    Ordering::Equal => {}
                }
            }
        }
    }
    /// Removes `slot` if present.
    pub fn remove(&mut self, slot: usize) {
        if !self.contains(slot) {
            return;
        }
        let i = self.pos[slot];
        let last = self.heap.len() - 1;
        self.swap(i, last);
        self.heap.pop();
        self.key[slot] = None;
        self.pos[slot] = usize::MAX;
        if i < self.heap.len() {
            self.down(i);
            self.up(i);
        }
    }
    pub fn pop(&mut self) -> Option<(usize, K)> {
        let top = self.peek()?;
        self.remove(top.0);
        Some(top)
    }
    fn less(&self, a: usize, b: usize) -> bool {
        self.key[self.heap[a]] < self.key[self.heap[b]]
    }
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a]] = a;
        self.pos[self.heap[b]] = b;
    }
    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.less(i, parent) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }
    fn down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.less(l, m) {
                m = l;
            }
            if r < n && self.less(r, m) {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap(i, m);
            i = m;
        }
    }
}

/// Key of the longest-queue heap: most bytes first, then the lowest flow id.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Longest(std::cmp::Reverse<u64>, u32);

/// Tracks the per-conversation backlog in bytes to find the longest queue of a
/// shared buffer in O(log n) (buc_rfcn.md §3.4, baseline.md §7.2).
#[derive(Clone, Debug, Default)]
pub struct LongestQueue {
    heap: IndexedHeap<Longest>,
}

impl LongestQueue {
    pub fn new() -> Self {
        Self::default()
    }
    /// Records that conversation `slot` (flow `flow`) now holds `bytes`.
    pub fn update(&mut self, slot: usize, flow: FlowId, bytes: u64) {
        if bytes == 0 {
            self.heap.remove(slot);
        } else {
            self.heap.set(slot, Longest(std::cmp::Reverse(bytes), flow.0));
        }
    }
    /// The conversation to drop from: the one holding the most bytes; on a tie
    /// the arriving packet's conversation `arrival` loses, otherwise the lowest
    /// flow id (buc_rfcn.md §3.4).
    pub fn victim(&self, arrival: Option<(usize, u64)>) -> Option<usize> {
        let (slot, Longest(std::cmp::Reverse(max), _)) = self.heap.peek()?;
        match arrival {
            Some((a, bytes)) if bytes == max => Some(a),
            _ => Some(slot),
        }
    }
}

/// A slab of per-conversation states addressed by flow id, reusing slots of
/// conversations that went away (slot numbers index the heaps above).
#[derive(Clone, Debug)]
pub struct Slab<T> {
    index: FlowMap<usize>,
    items: Vec<Option<(FlowId, T)>>,
    free: Vec<usize>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            index: FlowMap::default(),
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    pub fn slot(&self, flow: FlowId) -> Option<usize> {
        self.index.get(&flow).copied()
    }
    /// The slot of `flow`, created with `make` if absent.
    pub fn slot_or_insert(&mut self, flow: FlowId, make: impl FnOnce() -> T) -> usize {
        if let Some(&s) = self.index.get(&flow) {
            return s;
        }
        let s = match self.free.pop() {
            Some(s) => {
                self.items[s] = Some((flow, make()));
                s
            }
            None => {
                self.items.push(Some((flow, make())));
                self.items.len() - 1
            }
        };
        self.index.insert(flow, s);
        s
    }
    pub fn get(&self, slot: usize) -> &T {
        &self.items[slot].as_ref().expect("live slot").1
    }
    pub fn get_mut(&mut self, slot: usize) -> &mut T {
        &mut self.items[slot].as_mut().expect("live slot").1
    }
    pub fn flow(&self, slot: usize) -> FlowId {
        self.items[slot].as_ref().expect("live slot").0
    }
    /// Frees `slot` (its flow gets a new state next time it appears).
    pub fn remove(&mut self, slot: usize) {
        if let Some((flow, _)) = self.items[slot].take() {
            self.index.remove(&flow);
            self.free.push(slot);
        }
    }
    /// Live conversations.
    pub fn len(&self) -> usize {
        self.index.len()
    }
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
    /// Live conversations in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, FlowId, &T)> {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(i, x)| x.as_ref().map(|(f, t)| (i, *f, t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn indexed_heap_matches_a_sorted_reference_under_random_updates() {
        let mut h = IndexedHeap::new();
        let mut reference: Vec<Option<(u64, usize)>> = vec![None; 50];
        let mut rng = Rng::new(3, 0);
        for _ in 0..20_000 {
            let slot = (rng.next_u64() % 50) as usize;
            match rng.next_u64() % 4 {
                0 => {
                    h.remove(slot);
                    reference[slot] = None;
                }
                1 => {
                    let p = h.pop();
                    let want = reference.iter().flatten().min().copied();
                    assert_eq!(p.map(|(_, key)| key), want);
                    if let Some((_, s)) = want {
                        reference[s] = None;
                    }
                }
                _ => {
                    let k = rng.next_u64() % 100;
                    h.set(slot, (k, slot));
                    reference[slot] = Some((k, slot));
                }
            }
            let want = reference.iter().flatten().min().copied();
            assert_eq!(h.peek().map(|x| x.1), want);
            assert_eq!(h.len(), reference.iter().flatten().count());
        }
    }

    #[test]
    fn longest_queue_ties_go_to_the_arrival_then_to_the_lowest_flow() {
        let mut l = LongestQueue::new();
        l.update(0, FlowId(7), 3000);
        l.update(1, FlowId(2), 3000);
        l.update(2, FlowId(5), 1000);
        assert_eq!(l.victim(None), Some(1), "lowest flow id among the longest");
        assert_eq!(l.victim(Some((0, 3000))), Some(0), "the arrival's queue loses a tie");
        assert_eq!(l.victim(Some((2, 1000))), Some(1), "a shorter arrival queue does not");
        l.update(1, FlowId(2), 0);
        assert_eq!(l.victim(None), Some(0));
    }

    #[test]
    fn slab_reuses_freed_slots() {
        let mut s: Slab<u32> = Slab::default();
        let a = s.slot_or_insert(FlowId(10), || 1);
        let b = s.slot_or_insert(FlowId(11), || 2);
        assert_eq!(s.slot_or_insert(FlowId(10), || 9), a);
        s.remove(a);
        assert_eq!(s.slot(FlowId(10)), None);
        let c = s.slot_or_insert(FlowId(12), || 3);
        assert_eq!(c, a);
        assert_eq!((*s.get(b), *s.get(c), s.flow(c)), (2, 3, FlowId(12)));
        assert_eq!(s.len(), 2);
    }
}
