//! Packets: plain structs moved by value through the network.
//!
//! Fields are the ones the five papers need (docs/architecture.md, "Decisions
//! taken so far": packets are plain values): the 2-bit ECN codepoint of RFC
//! 3168 §5, a 16-bit IP id (BMCC's ADPM hashes it), a priority (BLT), TCP byte
//! sequence/ack numbers, flags including ECE/CWR, the advertised-window field
//! (rewritten by RFCN), up to four SACK blocks (RFC 2018) and ccsim's typed
//! feedback option (an echoed load factor or load code).

use crate::units::Time;

/// Index types for the arenas. Plain `u32` newtypes.
macro_rules! id_type {
    ($name:ident) => {
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}
id_type!(NodeId);
id_type!(LinkId);
id_type!(FlowId);

/// The 2-bit ECN field of the IP header (RFC 3168 §5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    pub fn bits(self) -> u8 {
        self as u8
    }
    pub fn from_bits(b: u8) -> Ecn {
        match b & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
    /// ECN-capable transport (ECT(0), ECT(1) or CE).
    pub fn is_ect(self) -> bool {
        self != Ecn::NotEct
    }
}

/// What a packet is, for dispatch at its destination.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// TCP segment carrying data (goes to the flow's receiver).
    Data,
    /// Pure TCP acknowledgement (goes to the flow's sender).
    Ack,
    /// Datagram of an unreliable source (CBR/Poisson).
    Datagram,
}

/// TCP header flags (subset).
pub mod flags {
    pub const ACK: u8 = 1 << 0;
    pub const ECE: u8 = 1 << 1;
    pub const CWR: u8 = 1 << 2;
    pub const FIN: u8 = 1 << 3;
    pub const SYN: u8 = 1 << 4;
    /// Route this packet on its own over the equal-cost paths of ECMP
    /// routers (per-packet spraying, NDP: docs/models/ndp.md), instead of
    /// the one path its flow hashes to. (Bits 5 and 6 are transports' own:
    /// RoCE's NAK/CNP, NDP's NACK/PULL.)
    pub const SPRAY: u8 = 1 << 7;
}

/// Maximum number of SACK blocks a packet carries (RFC 2018 allows 4 without
/// timestamps, 3 with; ns-2 `maxSackBlocks_` is 3).
pub const MAX_SACK: usize = 4;

/// ccsim's feedback option: fields a receiver-side mechanism
/// ([`crate::feedback`]) attaches to an ACK for its sender, with the
/// widths they have on the wire. In pcap captures it is a TCP experimental
/// option (RFC 6994: kind 254, ExID 0xCC51, then a flags byte and the 16-bit
/// load factor, network order).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Feedback {
    /// An echoed load-factor estimate in units of 2⁻¹⁴ (so [0, 4) in steps of
    /// 6.1·10⁻⁵), if the mechanism sends one (BMCC's f̂: Qazi, Znati & Andrew,
    /// PFLDNeT 2009, §3.2; docs/models/bmcc.md, "Receiver").
    pub load: Option<u16>,
    /// The data packet that triggered this ACK carried CE (BMCC's `ce_seen`,
    /// docs/models/bmcc.md, "Receiver").
    pub ce_seen: bool,
    /// An echoed 2-bit ECN codepoint (its [`Ecn::bits`]; 0: none): VCP's load
    /// code, `01` low load, `10` high load, `11` overload (Xia et al.,
    /// SIGCOMM 2005, §3.2; docs/models/vcp.md, "Receiver").
    pub code: u8,
}

impl Feedback {
    /// Units of [`Feedback::load`] per unit of load factor.
    pub const LOAD_SCALE: f64 = 16384.0;

    /// The load factor as a real number, if present.
    pub fn load_factor(&self) -> Option<f64> {
        self.load.map(|q| q as f64 / Self::LOAD_SCALE)
    }

    /// Sets the load factor, rounded to the field's resolution and clamped to
    /// its range.
    pub fn set_load_factor(&mut self, f: f64) {
        let q = (f * Self::LOAD_SCALE).round().clamp(0.0, u16::MAX as f64);
        self.load = Some(q as u16);
    }
}

/// A packet's SACK blocks as absolute sequence numbers (see
/// [`Packet::sack_blocks`]); derefs to a slice.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u64, u64); MAX_SACK],
    n: u8,
}

impl std::ops::Deref for SackBlocks {
    type Target = [(u64, u64)];
    fn deref(&self) -> &[(u64, u64)] {
        &self.blocks[..self.n as usize]
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    /// Unique id, assigned at creation in creation order.
    pub uid: u64,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Size on the wire in bytes (what links serialize and queues count).
    pub size: u32,
    pub kind: Kind,
    // --- IP part
    pub ecn: Ecn,
    pub ip_id: u16,
    /// Priority class (BLT; 0 = default).
    pub priority: u8,
    // --- TCP part (bytes)
    pub seq: u64,
    /// Payload bytes (0 for a pure ACK).
    pub len: u32,
    pub ack: u64,
    pub flags: u8,
    /// Advertised receive window in bytes (the window field, unscaled):
    /// read and write it with [`Packet::wnd`] and [`Packet::set_wnd`]. 32
    /// bits, as TCP's scaled window is at most 1 GiB (RFC 7323 §2.3);
    /// `u32::MAX` stands for an unlimited window.
    wnd: u32,
    /// SACK blocks (RFC 2018) as offsets above `ack`, which keeps them to 32
    /// bits each on the wire's model as in the real option; read and write
    /// them with [`Packet::sack_blocks`] and [`Packet::set_sack`].
    sack: [(u32, u32); MAX_SACK],
    nsack: u8,
    /// Timestamp option (RFC 7323): sender's clock and the echoed value.
    pub ts_val: Time,
    pub ts_ecr: Time,
    /// ccsim's feedback option: what a receiver-side mechanism tells the
    /// sender in an ACK (see [`Feedback`]).
    pub fb: Feedback,
    /// True for a retransmitted segment.
    pub retx: bool,
    /// When the packet entered the queue it is in (or last left): set by the
    /// link as it offers the packet to its discipline, so that the sojourn
    /// time is `dequeue time − enq` (RFC 8289 §5.1 timestamps; CoDel reads it).
    pub enq: Time,
    /// A number any hop may read and write, for explicit-feedback schemes
    /// prototyped outside the engine (XCP, RCP): a data segment carries the
    /// sender's (`CcState::stamp`), queue disciplines may rewrite it on the
    /// way, and the receiver echoes the last one it received in its ACKs
    /// (`AckSample::stamp`). 0 unless something sets it.
    pub stamp: f32,
    /// The input port of the switch whose queue holds the packet, where that
    /// switch runs PFC (`crate::mmu`; [`crate::mmu::NO_PORT`] elsewhere).
    pub in_port: u16,
    /// The slot of the packet's in-band telemetry record
    /// ([`crate::int::IntTable`]) among its flow's, or [`NO_INT`]: a data
    /// packet of a sender that asks for telemetry (HPCC) carries one, and
    /// its receiver echoes it in the ACK. (It fills what was padding: the
    /// packet is no larger for it.)
    pub int: u16,
}

/// [`Packet::wnd`] of an unlimited window (the value of `tcp::INFINITE`).
pub const WND_UNLIMITED: u64 = u64::MAX / 4;

/// [`Packet::int`] of a packet that carries no telemetry.
pub const NO_INT: u16 = u16::MAX;

impl Packet {
    pub fn new(uid: u64, flow: FlowId, src: NodeId, dst: NodeId, size: u32, kind: Kind, now: Time) -> Packet {
        Packet {
            uid,
            flow,
            src,
            dst,
            size,
            kind,
            ecn: Ecn::NotEct,
            ip_id: uid as u16,
            priority: 0,
            seq: 0,
            len: 0,
            ack: 0,
            flags: 0,
            wnd: 0,
            sack: [(0, 0); MAX_SACK],
            nsack: 0,
            ts_val: now,
            ts_ecr: Time::ZERO,
            fb: Feedback::default(),
            retx: false,
            enq: now,
            stamp: 0.0,
            in_port: u16::MAX,
            int: NO_INT,
        }
    }
    /// A data segment of `len` payload bytes from `seq`, with `header` bytes of
    /// headers and the ACK flag set (every segment after the handshake carries
    /// it, RFC 9293 §3.10.7.4); the engine assigns the uid.
    pub fn segment(flow: FlowId, src: NodeId, dst: NodeId, seq: u64, len: u32, header: u32, now: Time) -> Packet {
        let mut p = Packet::new(0, flow, src, dst, len + header, Kind::Data, now);
        p.seq = seq;
        p.len = len;
        p.flags = flags::ACK;
        p
    }
    /// The advertised window, bytes ([`WND_UNLIMITED`] for none).
    #[inline]
    pub fn wnd(&self) -> u64 {
        if self.wnd == u32::MAX {
            WND_UNLIMITED
        } else {
            self.wnd as u64
        }
    }
    /// Sets the advertised window; 4 GiB and more (beyond TCP's 1 GiB)
    /// reads back as [`WND_UNLIMITED`].
    #[inline]
    pub fn set_wnd(&mut self, w: u64) {
        self.wnd = w.min(u32::MAX as u64) as u32;
    }
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// The SACK blocks, most recent first (RFC 2018 §4), as absolute
    /// sequence numbers.
    pub fn sack_blocks(&self) -> SackBlocks {
        let mut blocks = [(0, 0); MAX_SACK];
        for (b, &(s, e)) in blocks.iter_mut().zip(&self.sack[..self.nsack as usize]) {
            *b = (self.ack + s as u64, self.ack + e as u64);
        }
        SackBlocks { blocks, n: self.nsack }
    }
    /// Sets the SACK blocks (at most [`MAX_SACK`]; set `ack` first). Every
    /// block lies above the cumulative ACK (no D-SACK), within 4 GiB of it.
    pub fn set_sack(&mut self, blocks: &[(u64, u64)]) {
        assert!(blocks.len() <= MAX_SACK, "{} SACK blocks", blocks.len());
        for (b, &(s, e)) in self.sack.iter_mut().zip(blocks) {
            debug_assert!(
                self.ack <= s && s <= e && e - self.ack <= u32::MAX as u64,
                "SACK block {s}-{e} above {}",
                self.ack
            );
            *b = ((s - self.ack) as u32, (e - self.ack) as u32);
        }
        self.nsack = blocks.len() as u8;
    }
    /// Sequence number just past this segment's payload.
    pub fn end_seq(&self) -> u64 {
        self.seq + self.len as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_round_trip_as_offsets_above_the_ack() {
        let mut p = Packet::new(1, FlowId(0), NodeId(1), NodeId(0), 40, Kind::Ack, Time::ZERO);
        p.ack = 5_000_000_000; // above 2^32: the offsets, not the numbers, are 32-bit
        let blocks = [(5_000_003_000, 5_000_004_000), (5_000_001_000, 5_000_002_000)];
        p.set_sack(&blocks);
        assert_eq!(*p.sack_blocks(), blocks);
        p.set_sack(&[]);
        assert!(p.sack_blocks().is_empty());
    }

    #[test]
    fn a_packet_stays_within_two_cache_lines() {
        // Queues hold packets by value, and a packet is copied into and out of
        // the engine's slab around a queue: keep them small.
        assert!(
            std::mem::size_of::<Packet>() <= 128,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }
}
