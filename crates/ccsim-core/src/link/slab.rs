//! The packets on the wires, in one arena of the engine.

use crate::packet::Packet;

/// Where the packets on the wires are kept: the pipes hold slot numbers.
///
/// A packet that is created or leaves a queue is written into the slot freed
/// last (LIFO), usually the one a packet just delivered or queued was read
/// from, so the write goes to a cache line in use rather than to a slot of a
/// per-link ring that was last touched a round trip ago. With 10 000 flows
/// the packets on the wires are far more than the cache holds, and that write
/// was a cache miss at every hop (docs/performance.md, fourth round).
#[derive(Default)]
pub struct Slab {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl Slab {
    /// Stores `pkt`; returns its slot.
    #[inline]
    pub fn put(&mut self, pkt: Packet) -> u32 {
        match self.free.pop() {
            Some(h) => {
                self.slots[h as usize] = pkt;
                h
            }
            None => {
                self.slots.push(pkt);
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 packets on the wires")
            }
        }
    }
    /// Stores a copy of `pkt` (one copy, straight into its slot); returns the slot.
    #[inline]
    pub fn put_copy(&mut self, pkt: &Packet) -> u32 {
        match self.free.pop() {
            Some(h) => {
                self.slots[h as usize].clone_from(pkt);
                h
            }
            None => self.put(pkt.clone()),
        }
    }
    /// Takes the packet out of slot `h`, which becomes free.
    #[inline]
    pub fn take(&mut self, h: u32) -> Packet {
        self.free.push(h);
        self.slots[h as usize].clone()
    }
    /// Frees slot `h` without reading it (a packet lost on the wire).
    #[inline]
    pub fn release(&mut self, h: u32) {
        self.free.push(h);
    }
    /// The packet in slot `h`.
    #[inline]
    pub fn get(&self, h: u32) -> &Packet {
        &self.slots[h as usize]
    }
    /// Asks the processor to bring the packet in slot `h` into its caches
    /// (its first line, where the routing fields are), without waiting for it.
    #[inline]
    pub fn prefetch(&self, h: u32) {
        #[cfg(target_arch = "x86_64")]
        if let Some(p) = self.slots.get(h as usize) {
            // SAFETY: a prefetch has no architectural effect; the pointer is valid.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const Packet as *const i8)
            }
        }
    }
    /// Slots in use.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowId, Kind, NodeId};
    use crate::units::Time;

    fn pkt(uid: u64) -> Packet {
        Packet::new(uid, FlowId(0), NodeId(0), NodeId(1), 1500, Kind::Data, Time::ZERO)
    }

    #[test]
    fn slab_reuses_the_slot_freed_last() {
        let mut s = Slab::default();
        let (a, b, c) = (s.put(pkt(1)), s.put(pkt(2)), s.put(pkt(3)));
        assert_eq!((a, b, c, s.len()), (0, 1, 2, 3));
        assert_eq!(s.take(b).uid, 2);
        s.release(a);
        assert_eq!(s.len(), 1);
        // Last in, first out: the slot released last (a), then the one taken before (b).
        assert_eq!(s.put(pkt(4)), a);
        assert_eq!(s.put(pkt(5)), b);
        assert_eq!(s.put(pkt(6)), 3, "no free slot left: the slab grows");
        let uids: Vec<u64> = [a, b, c, 3].iter().map(|&h| s.get(h).uid).collect();
        assert_eq!(uids, vec![4, 5, 3, 6]);
        assert_eq!(s.len(), 4);
    }
}
