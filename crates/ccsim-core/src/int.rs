//! In-band network telemetry (INT): what each telemetry-capable switch
//! stamps into a data packet at dequeue, for HPCC's sender to read from the
//! ACK (docs/models/hpcc.md, "Telemetry").
//!
//! Source: Y. Li, R. Miao, H. H. Liu, Y. Zhuang, F. Feng, L. Tang, Z. Cao,
//! M. Zhang, F. Kelly, M. Alizadeh, M. Yu, "HPCC: High Precision Congestion
//! Control", SIGCOMM 2019, §3.2 (each egress port pushes its `qLen`,
//! `txBytes`, `ts` and link bandwidth `B`) and §4.1 (at most 5 hops); the
//! authors' ns-3 fork stamps at dequeue, with `txBytes` counting the bytes
//! sent before this packet (`SwitchNode::SwitchNotifyDequeue`).
//!
//! The records are not in the packet: a packet carries a 16-bit slot
//! ([`Packet::int`], in what was padding), and the record lives in the
//! table owned by the run's switches, one ring of slots per flow, grown on
//! first use and then reused, so stamping allocates nothing per packet and a
//! run without telemetry has no table at all. The sender picks the slot (its
//! count of data packets sent, modulo its ring); a record is claimed by the
//! data packet's send time (`ts_val`), which its ACK echoes (`ts_ecr`): a
//! record overwritten by a later packet of the flow before the ACK of the
//! earlier one came back is seen as stale and not read.

use crate::packet::{FlowId, Kind, Packet, NO_INT};
use crate::units::{Rate, Time};

/// The most hops a packet records (the paper's §4.1 and the fork's
/// `IntHeader::maxHop`); hops past it are not recorded.
pub const MAX_HOPS: usize = 5;

/// What one egress port stamps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The port's link (to tell the hops of a changed path apart).
    pub link: u32,
    /// When the packet left the queue.
    pub ts: Time,
    /// Bytes the port had sent before this packet (cumulative).
    pub tx_bytes: u64,
    /// Bytes left in the port's queue as the packet left it.
    pub qlen: u64,
    /// The port's line rate.
    pub rate: Rate,
}

impl Default for Hop {
    fn default() -> Hop {
        Hop {
            link: 0,
            ts: Time::ZERO,
            tx_bytes: 0,
            qlen: 0,
            rate: Rate(0),
        }
    }
}

/// The telemetry a data packet gathered along its path.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct IntStack {
    /// The send time of the data packet the record belongs to.
    pub owner: Time,
    pub n: u8,
    pub hops: [Hop; MAX_HOPS],
}

impl IntStack {
    pub fn hops(&self) -> &[Hop] {
        &self.hops[..self.n as usize]
    }
}

/// The records of every flow that asks for telemetry, and the bytes each
/// stamping port has sent.
#[derive(Default)]
pub struct IntTable {
    flows: Vec<Vec<IntStack>>,
    /// Per link: bytes sent (only the links of telemetry-capable switches
    /// count).
    tx: Vec<u64>,
    /// Records read whose slot had been taken by a later packet.
    pub stale: u64,
}

impl IntTable {
    pub fn new(links: usize) -> IntTable {
        IntTable {
            flows: Vec::new(),
            tx: vec![0; links],
            stale: 0,
        }
    }

    /// `pkt` leaves the queue of telemetry-capable `link` (`rate`) at `now`,
    /// with `qlen` bytes left behind it: if it is a data packet with a
    /// record, the port
    /// pushes its hop (the first port it meets starts the record afresh);
    /// then the port counts its bytes.
    #[inline]
    pub fn depart(&mut self, link: u32, rate: Rate, now: Time, qlen: u64, pkt: &Packet) {
        let tx = &mut self.tx[link as usize];
        let before = *tx;
        *tx += pkt.size as u64;
        if pkt.int == NO_INT || pkt.kind != Kind::Data {
            return; // (an ACK carries its data packet's slot, not a record of its own)
        }
        let (f, slot) = (pkt.flow.idx(), pkt.int as usize);
        if self.flows.len() <= f {
            self.flows.resize_with(f + 1, Vec::new);
        }
        let ring = &mut self.flows[f];
        if ring.len() <= slot {
            ring.resize(slot + 1, IntStack::default());
        }
        let r = &mut ring[slot];
        if r.owner != pkt.ts_val || r.n == 0 {
            r.owner = pkt.ts_val;
            r.n = 0;
        }
        if (r.n as usize) < MAX_HOPS {
            r.hops[r.n as usize] = Hop {
                link,
                ts: now,
                tx_bytes: before,
                qlen,
                rate,
            };
            r.n += 1;
        }
    }

    /// The record an ACK (`pkt`, with the slot and the echoed send time of
    /// its data packet) points to; `None` if it carries none, or the slot
    /// now belongs to a later packet, or no port stamped it.
    pub fn read(&mut self, pkt: &Packet) -> Option<&IntStack> {
        if pkt.int == NO_INT {
            return None;
        }
        let r = self
            .flows
            .get(pkt.flow.idx())
            .and_then(|ring| ring.get(pkt.int as usize));
        match r {
            Some(r) if r.owner == pkt.ts_ecr && r.n > 0 => Some(r),
            _ => {
                self.stale += 1;
                None
            }
        }
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> u64 {
        let recs: usize = self.flows.iter().map(|r| r.capacity()).sum();
        (recs * std::mem::size_of::<IntStack>() + self.tx.len() * 8) as u64
    }

    /// The flow's ring, for tests.
    pub fn ring(&self, f: FlowId) -> &[IntStack] {
        self.flows.get(f.idx()).map_or(&[], |r| r.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::NodeId;

    #[test]
    fn the_packet_is_no_larger_for_its_slot() {
        assert_eq!(std::mem::size_of::<Packet>(), 128);
    }

    /// Two ports stamp in order; the second packet in the same slot starts
    /// afresh; an ACK echoing the first packet's send time then finds the
    /// record stale; a sixth hop is not recorded.
    #[test]
    fn stamps_in_order_and_refuses_a_stale_record() {
        let mut t = IntTable::new(8);
        let r = Rate(100_000_000_000);
        let mut p = Packet::segment(FlowId(2), NodeId(0), NodeId(1), 0, 1000, 48, Time(10));
        p.int = 3;
        let other = Packet::segment(FlowId(2), NodeId(0), NodeId(1), 0, 1000, 48, Time(10));
        t.depart(4, r, Time(100), 0, &other); // counted, not stamped
        t.depart(4, r, Time(200), 5000, &p);
        t.depart(6, r, Time(300), 0, &p);
        let mut ack = Packet::new(0, FlowId(2), NodeId(1), NodeId(0), 60, Kind::Ack, Time(400));
        (ack.int, ack.ts_ecr) = (3, Time(10));
        let s = *t.read(&ack).unwrap();
        assert_eq!(s.n, 2);
        assert_eq!(
            s.hops[0],
            Hop {
                link: 4,
                ts: Time(200),
                tx_bytes: 1048,
                qlen: 5000,
                rate: r
            }
        );
        assert_eq!((s.hops[1].link, s.hops[1].tx_bytes), (6, 0));
        let mut q = p.clone();
        q.ts_val = Time(20);
        for k in 0..6 {
            t.depart(k, r, Time(500), 0, &q);
        }
        assert!(t.read(&ack).is_none());
        assert_eq!(t.stale, 1);
        ack.ts_ecr = Time(20);
        assert_eq!(t.read(&ack).unwrap().n as usize, MAX_HOPS);
        assert_eq!(t.ring(FlowId(2)).len(), 4);
    }
}
