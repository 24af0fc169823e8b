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
/// be set (inserted or changed) or removed in O(log n). Keys sit in the heap
/// array itself, so a sift compares neighbouring entries (cache-friendly).
#[derive(Clone, Debug)]
pub struct IndexedHeap<K: Ord + Copy> {
    heap: Vec<(K, u32)>,
    /// Position of each slot in `heap` (ABSENT when not in the heap).
    pos: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

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
        }
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// The slot with the smallest key.
    #[inline]
    pub fn peek(&self) -> Option<(usize, K)> {
        self.heap.first().map(|&(k, s)| (s as usize, k))
    }
    pub fn get(&self, slot: usize) -> Option<K> {
        match self.pos.get(slot) {
            Some(&i) if i != ABSENT => Some(self.heap[i as usize].0),
            _ => None,
        }
    }
    pub fn contains(&self, slot: usize) -> bool {
        self.pos.get(slot).is_some_and(|&i| i != ABSENT)
    }
    /// Inserts `slot` with `key`, or changes its key.
    pub fn set(&mut self, slot: usize, key: K) {
        if slot >= self.pos.len() {
            self.pos.resize(slot + 1, ABSENT);
        }
        let i = self.pos[slot];
        if i == ABSENT {
            self.heap.push((key, slot as u32));
            let last = self.heap.len() - 1;
            self.pos[slot] = last as u32;
            self.up(last);
        } else {
            let i = i as usize;
            let old = std::mem::replace(&mut self.heap[i].0, key);
            match key.cmp(&old) {
                Ordering::Less => self.up(i),
                Ordering::Greater => self.down(i),
                Ordering::Equal => {}
            }
        }
    }
    /// Removes `slot` if present.
    pub fn remove(&mut self, slot: usize) {
        if !self.contains(slot) {
            return;
        }
        let i = self.pos[slot] as usize;
        let last = self.heap.len() - 1;
        self.swap(i, last);
        self.heap.pop();
        self.pos[slot] = ABSENT;
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
    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1 as usize] = a as u32;
        self.pos[self.heap[b].1 as usize] = b as u32;
    }
    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[i].0 >= self.heap[parent].0 {
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
            if l < n && self.heap[l].0 < self.heap[m].0 {
                m = l;
            }
            if r < n && self.heap[r].0 < self.heap[m].0 {
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

/// Finds the longest queue of a shared buffer (the BUC gateway's overflow rule,
/// Ziegler & Clausen, IPCCC 1997, §4; ns-2's `queue/drr.cc`) from the
/// per-conversation byte counts kept by the discipline. A change is only noted
/// (`touch`, O(1)); the indexed heap is brought up to date when a victim is
/// asked for, so a buffer that rarely overflows costs no heap work per packet,
/// and one that overflows at every arrival O(log n) per change.
#[derive(Clone, Debug, Default)]
pub struct LongestQueue {
    heap: IndexedHeap<Longest>,
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
}

impl LongestQueue {
    pub fn new() -> Self {
        Self::default()
    }
    /// Notes that the byte count of conversation `slot` changed.
    #[inline]
    pub fn touch(&mut self, slot: usize) {
        if slot >= self.is_dirty.len() {
            self.is_dirty.resize(slot + 1, false);
        }
        if !self.is_dirty[slot] {
            self.is_dirty[slot] = true;
            self.dirty.push(slot);
        }
    }
    /// The conversation to drop from: the one holding the most bytes; on a tie
    /// the arriving packet's conversation `arrival` loses, otherwise the lowest
    /// flow id (docs/models/fair-queueing.md, "Shared buffer"). `current(slot)`
    /// gives a slot's flow and bytes now (None for a freed slot).
    pub fn victim(
        &mut self,
        arrival: Option<(usize, u64)>,
        current: impl Fn(usize) -> Option<(FlowId, u64)>,
    ) -> Option<usize> {
        for slot in self.dirty.drain(..) {
            self.is_dirty[slot] = false;
            match current(slot) {
                Some((flow, bytes)) if bytes > 0 => self.heap.set(slot, Longest(std::cmp::Reverse(bytes), flow.0)),
                _ => self.heap.remove(slot),
            }
        }
        let (slot, Longest(std::cmp::Reverse(max), _)) = self.heap.peek()?;
        match arrival {
            Some((a, bytes)) if bytes == max => Some(a),
            _ => Some(slot),
        }
    }
}

/// The FIFOs of many conversations kept in one pool of slots, as a shared
/// buffer: each conversation's queue is a doubly linked list through the pool,
/// and freed slots are reused last-in first-out, so the memory a busy buffer
/// touches stays as small (and as warm in cache) as one FIFO's.
#[derive(Clone, Debug)]
pub struct Fifos<T> {
    nodes: Vec<Node<T>>,
    free: Vec<u32>,
}

#[derive(Clone, Debug)]
struct Node<T> {
    item: Option<T>,
    prev: u32,
    next: u32,
}

const NIL: u32 = u32::MAX;

/// One conversation's queue in a [`Fifos`] pool.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Fifo {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

impl Fifo {
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> Default for Fifos<T> {
    fn default() -> Self {
        Fifos {
            nodes: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Fifos<T> {
    #[inline]
    pub fn push_back(&mut self, f: &mut Fifo, item: T) {
        let i = match self.free.pop() {
            Some(i) => {
                // Written in place: one copy of the item.
                let n = &mut self.nodes[i as usize];
                n.item = Some(item);
                (n.prev, n.next) = (f.tail, NIL);
                i
            }
            None => {
                self.nodes.push(Node {
                    item: Some(item),
                    prev: f.tail,
                    next: NIL,
                });
                (self.nodes.len() - 1) as u32
            }
        };
        if f.tail == NIL {
            f.head = i;
        } else {
            self.nodes[f.tail as usize].next = i;
        }
        f.tail = i;
        f.len += 1;
    }
    #[inline]
    pub fn pop_front(&mut self, f: &mut Fifo) -> Option<T> {
        let i = f.head;
        if i == NIL {
            return None;
        }
        let n = &mut self.nodes[i as usize];
        let (item, next) = (n.item.take(), n.next);
        f.head = next;
        if next == NIL {
            f.tail = NIL;
        } else {
            self.nodes[next as usize].prev = NIL;
        }
        f.len -= 1;
        self.free.push(i);
        item
    }
    pub fn pop_back(&mut self, f: &mut Fifo) -> Option<T> {
        let i = f.tail;
        if i == NIL {
            return None;
        }
        let n = &mut self.nodes[i as usize];
        let (item, prev) = (n.item.take(), n.prev);
        f.tail = prev;
        if prev == NIL {
            f.head = NIL;
        } else {
            self.nodes[prev as usize].next = NIL;
        }
        f.len -= 1;
        self.free.push(i);
        item
    }
    #[inline]
    pub fn front(&self, f: &Fifo) -> Option<&T> {
        (f.head != NIL)
            .then(|| self.nodes[f.head as usize].item.as_ref())
            .flatten()
    }
    pub fn back(&self, f: &Fifo) -> Option<&T> {
        (f.tail != NIL)
            .then(|| self.nodes[f.tail as usize].item.as_ref())
            .flatten()
    }
    /// Calls `each` on the items of `f`, head to tail.
    pub fn for_each_mut(&mut self, f: &Fifo, mut each: impl FnMut(&mut T)) {
        let mut i = f.head;
        while i != NIL {
            let n = &mut self.nodes[i as usize];
            if let Some(x) = n.item.as_mut() {
                each(x);
            }
            i = n.next;
        }
    }
}

/// A slab of per-conversation states addressed by flow id, reusing slots of
/// conversations that went away (slot numbers index the heaps above).
#[derive(Clone, Debug)]
pub struct Slab<T> {
    /// Slots of flows with small ids, indexed directly (NO_SLOT if none).
    small: Vec<u32>,
    /// Slots of the other flows.
    index: FlowMap<usize>,
    items: Vec<Option<(FlowId, T)>>,
    free: Vec<usize>,
    live: usize,
}

/// Flow ids below this are looked up in a plain array (4 bytes each).
const SMALL_IDS: u32 = 4096;
const NO_SLOT: u32 = u32::MAX;

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            small: Vec::new(),
            index: FlowMap::default(),
            items: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }
}

impl<T> Slab<T> {
    #[inline]
    pub fn slot(&self, flow: FlowId) -> Option<usize> {
        if flow.0 < SMALL_IDS {
            self.small
                .get(flow.idx())
                .copied()
                .filter(|&s| s != NO_SLOT)
                .map(|s| s as usize)
        } else {
            self.index.get(&flow).copied()
        }
    }
    /// The slot of `flow`, created with `make` if absent.
    #[inline]
    pub fn slot_or_insert(&mut self, flow: FlowId, make: impl FnOnce() -> T) -> usize {
        if let Some(s) = self.slot(flow) {
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
        if flow.0 < SMALL_IDS {
            if flow.idx() >= self.small.len() {
                self.small.resize(flow.idx() + 1, NO_SLOT);
            }
            self.small[flow.idx()] = s as u32;
        } else {
            self.index.insert(flow, s);
        }
        self.live += 1;
        s
    }
    #[inline]
    pub fn get(&self, slot: usize) -> &T {
        &self.items[slot].as_ref().expect("live slot").1
    }
    /// The flow and state of `slot`, if it is live.
    pub fn entry(&self, slot: usize) -> Option<(FlowId, &T)> {
        self.items.get(slot)?.as_ref().map(|(f, t)| (*f, t))
    }
    #[inline]
    pub fn get_mut(&mut self, slot: usize) -> &mut T {
        &mut self.items[slot].as_mut().expect("live slot").1
    }
    pub fn flow(&self, slot: usize) -> FlowId {
        self.items[slot].as_ref().expect("live slot").0
    }
    /// Frees `slot` (its flow gets a new state next time it appears).
    pub fn remove(&mut self, slot: usize) {
        if let Some((flow, _)) = self.items[slot].take() {
            if flow.0 < SMALL_IDS {
                self.small[flow.idx()] = NO_SLOT;
            } else {
                self.index.remove(&flow);
            }
            self.free.push(slot);
            self.live -= 1;
        }
    }
    /// Live conversations.
    pub fn len(&self) -> usize {
        self.live
    }
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }
    /// Frees every slot whose state `idle` says is no longer needed, once the
    /// slab holds more than `64 + 2·busy` states (so keeping the states of
    /// conversations that come and go costs no allocation per packet, and
    /// memory stays proportional to the busy ones). Amortized O(1).
    /// Returns true if it freed any.
    pub fn sweep(&mut self, busy: usize, idle: impl Fn(usize, &T) -> bool) -> bool {
        if self.live <= 64 + 2 * busy {
            return false;
        }
        let gone: Vec<usize> = self.iter().filter(|(s, _, t)| idle(*s, t)).map(|(s, _, _)| s).collect();
        for &s in &gone {
            self.remove(s);
        }
        !gone.is_empty()
    }

    /// Appends `backlogged_flows` and one `backlog_bytes` value per flow with
    /// bytes queued (in flow order) for the time series.
    pub fn trace_backlogs(&self, bytes: impl Fn(&T) -> u64, out: &mut Vec<super::TraceValue>) {
        let mut flows: Vec<(FlowId, u64)> = self.iter().map(|(_, f, t)| (f, bytes(t))).filter(|x| x.1 > 0).collect();
        flows.sort_unstable();
        out.push(super::TraceValue::new("backlogged_flows", flows.len() as f64));
        for (f, b) in flows {
            out.push(super::TraceValue::flow("backlog_bytes", f, b as f64));
        }
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
        let mut bytes = vec![(FlowId(7), 3000), (FlowId(2), 3000), (FlowId(5), 1000)];
        (0..3).for_each(|s| l.touch(s));
        let now = |b: &Vec<(FlowId, u64)>| {
            let b = b.clone();
            move |s: usize| b.get(s).copied()
        };
        assert_eq!(l.victim(None, now(&bytes)), Some(1), "lowest flow id among the longest");
        assert_eq!(
            l.victim(Some((0, 3000)), now(&bytes)),
            Some(0),
            "the arrival's queue loses a tie"
        );
        assert_eq!(
            l.victim(Some((2, 1000)), now(&bytes)),
            Some(1),
            "a shorter arrival queue does not"
        );
        bytes[1].1 = 0;
        l.touch(1);
        assert_eq!(l.victim(None, now(&bytes)), Some(0));
        // Changes not yet noted are not seen; noted ones are.
        bytes[2].1 = 9000;
        assert_eq!(l.victim(None, now(&bytes)), Some(0));
        l.touch(2);
        assert_eq!(l.victim(None, now(&bytes)), Some(2));
    }

    #[test]
    fn fifos_behave_like_deques_and_reuse_slots() {
        let mut pool: Fifos<u32> = Fifos::default();
        let (mut a, mut b) = (Fifo::default(), Fifo::default());
        let mut da = std::collections::VecDeque::new();
        let mut db = std::collections::VecDeque::new();
        let mut rng = Rng::new(4, 0);
        for x in 0..20_000u32 {
            let (f, d) = if rng.next_u64().is_multiple_of(2) {
                (&mut a, &mut da)
            } else {
                (&mut b, &mut db)
            };
            match rng.next_u64() % 4 {
                0 | 1 => {
                    pool.push_back(f, x);
                    d.push_back(x);
                }
                2 => assert_eq!(pool.pop_front(f), d.pop_front()),
                _ => assert_eq!(pool.pop_back(f), d.pop_back()),
            }
            assert_eq!((pool.front(f), pool.back(f), f.len()), (d.front(), d.back(), d.len()));
        }
        let mut seen = Vec::new();
        pool.for_each_mut(&a, |x| seen.push(*x));
        assert_eq!(seen, da.iter().copied().collect::<Vec<_>>());
        assert!(pool.nodes.len() <= 20_000 / 2, "freed slots are reused");
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
        // Large flow ids go through the map, the same way.
        let big = s.slot_or_insert(FlowId(1 << 30), || 7);
        assert_eq!(s.slot(FlowId(1 << 30)), Some(big));
        s.remove(big);
        assert_eq!((s.slot(FlowId(1 << 30)), s.len()), (None, 2));
    }
}
