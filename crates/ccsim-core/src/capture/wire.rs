//! Wire images of ccsim packets: IPv4 + TCP/UDP headers with the packet's real
//! field values, built with `etherparse` (checksums included). Sources: IPv4
//! RFC 791, ECN field RFC 3168 §5 and ECE/CWR §6.1, TCP RFC 9293, timestamps
//! and window scale RFC 7323, SACK RFC 2018, experimental options RFC 6994,
//! UDP RFC 768. Conventions
//! (documented for users in docs/capture.md):
//!
//! * **Addresses**: node `i` (its index in the topology, as `Results.nodes`
//!   lists them) is `10.0.0.0 + i + 1`, so node 0 is 10.0.0.1.
//! * **Ports**: flow `i`'s sender uses port `49152 + i mod 16384`, its receiver
//!   the same number (the dynamic range, where Wireshark has few dissectors).
//!   A workload connection is numbered after the flows: number of flows + its
//!   connection id ([`crate::capture::TapFlow::number`]).
//! * **Sequence numbers**: ccsim numbers bytes from 0; both ends' initial
//!   sequence number (ISN) is 0, so byte `s` is wire sequence `s + 1` (mod 2³²)
//!   and Wireshark's relative numbers equal ccsim's plus one. ACK numbers and
//!   SACK edges likewise.
//! * **IP total length** is 20 + the TCP header with its options + the payload
//!   (ccsim's `len`), which may exceed ccsim's size on the wire (its `header`
//!   key, 40 B, counts no options) by the options' bytes; the pcap original
//!   length is the IP total length. UDP datagrams keep ccsim's size.
//! * **TTL** 64 at the sender, one less after each router.
//! * **Window**: ACKs carry the receiver's advertised window shifted right by
//!   the receiver's window-scale shift (the smallest that fits its buffer, 14
//!   for `rwnd = "inf"`); data segments advertise 65535 (ccsim's senders have
//!   no receive buffer).
//! * **Options**: timestamps (RFC 7323, TSval/TSecr in microseconds of
//!   simulated time) on every segment; SACK blocks (RFC 2018) as many as fit
//!   in the 40 option bytes; ccsim's feedback option (see
//!   [`crate::packet::Feedback`]) when the ACK carries feedback.
//! * **Payload** is zeros (ccsim carries no data).

use crate::packet::{flags, Feedback, Kind, Packet};
use etherparse::{IpNumber, Ipv4Ecn, Ipv4Header, TcpHeader, UdpHeader};

/// TTL of a packet at its sender.
pub const INITIAL_TTL: u8 = 64;
/// First port of the flows (the IANA dynamic range).
pub const PORT_BASE: u16 = 49152;
/// RFC 6994 experimental option kind of ccsim's feedback option.
pub const FEEDBACK_KIND: u8 = 254;
/// RFC 6994 experiment id of ccsim's feedback option.
pub const FEEDBACK_EXID: u16 = 0xCC51;
/// Feedback option flag: the load factor field is present.
pub const FB_LOAD: u8 = 0x01;
/// Feedback option flag: the data packet that triggered the ACK carried CE.
pub const FB_CE_SEEN: u8 = 0x02;
/// Feedback option: the echoed 2-bit code (VCP's load code) sits in these
/// bits of the flags byte (`code << 2`; 0: none).
pub const FB_CODE: u8 = 0x0C;

static ZEROS: [u8; 65536] = [0; 65536];

/// IPv4 address of node `i`.
pub fn node_addr(i: usize) -> [u8; 4] {
    (0x0A00_0000u32 + i as u32 + 1).to_be_bytes()
}

/// Port of flow number `i` (both ends; see [`crate::capture::TapFlow::number`]).
pub fn flow_port(i: usize) -> u16 {
    PORT_BASE + (i % 16384) as u16
}

/// What the headers of one flow need beyond the packet itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowWire {
    pub port: u16,
    pub tcp: bool,
    pub ecn: bool,
    pub mss: u16,
    /// The sender does SACK (SACK-permitted on its SYN).
    pub sack: bool,
    /// The receiver sends SACK blocks (SACK-permitted on its SYN-ACK).
    pub sack_rcv: bool,
    /// The receiver's window-scale shift.
    pub wscale: u8,
}

/// The smallest window-scale shift (RFC 7323 §2.3, at most 14) that carries
/// `buffer` bytes in the 16-bit window field.
pub fn wscale_for(buffer: u64) -> u8 {
    (0..14).find(|&s| buffer >> s <= 0xFFFF).unwrap_or(14)
}

fn micros(t: crate::units::Time) -> u32 {
    (t.0 / 1000) as u32
}

/// Appends the timestamp option (preceded by two NOPs).
fn opt_ts(o: &mut Vec<u8>, val: u32, ecr: u32) {
    o.extend_from_slice(&[1, 1, 8, 10]);
    o.extend_from_slice(&val.to_be_bytes());
    o.extend_from_slice(&ecr.to_be_bytes());
}

/// ccsim's feedback option: kind 254, length 7, ExID 0xCC51, a flags byte
/// ([`FB_LOAD`], [`FB_CE_SEEN`], the echoed code in [`FB_CODE`]) and the
/// 16-bit load factor (zero when absent), then one NOP to keep the header a
/// multiple of four bytes.
fn opt_feedback(o: &mut Vec<u8>, fb: &Feedback) {
    let f = if fb.load.is_some() { FB_LOAD } else { 0 }
        | if fb.ce_seen { FB_CE_SEEN } else { 0 }
        | (fb.code << 2) & FB_CODE;
    o.extend_from_slice(&[FEEDBACK_KIND, 7]);
    o.extend_from_slice(&FEEDBACK_EXID.to_be_bytes());
    o.push(f);
    o.extend_from_slice(&fb.load.unwrap_or(0).to_be_bytes());
    o.push(1);
}

fn ipv4(src: usize, dst: usize, payload: usize, proto: IpNumber, ttl: u8, id: u16, ecn: u8) -> Ipv4Header {
    let mut ip = Ipv4Header::new(payload as u16, ttl, proto, node_addr(src), node_addr(dst)).expect("fits");
    ip.identification = id;
    ip.ecn = Ipv4Ecn::try_new(ecn & 3).expect("two bits");
    ip.header_checksum = ip.calc_header_checksum();
    ip
}

/// Writes the wire image of `pkt` (at most `snap` bytes) into `out` and
/// returns its full length. `ttl` is the packet's TTL where it is seen.
pub fn packet(pkt: &Packet, fw: &FlowWire, ttl: u8, snap: usize, out: &mut Vec<u8>) -> u32 {
    let (src, dst) = (pkt.src.idx(), pkt.dst.idx());
    out.clear();
    if !fw.tcp || pkt.kind == Kind::Datagram {
        let payload = (pkt.size as usize).clamp(28, 65535) - 28;
        let udp = UdpHeader {
            source_port: fw.port,
            destination_port: fw.port,
            length: (8 + payload) as u16,
            checksum: 0,
        };
        let ip = ipv4(src, dst, 8 + payload, IpNumber::UDP, ttl, pkt.ip_id, pkt.ecn.bits());
        let mut udp = udp;
        udp.checksum = udp.calc_checksum_ipv4(&ip, &ZEROS[..payload]).expect("fits");
        return finish(out, &ip.to_bytes(), &udp.to_bytes(), payload, snap);
    }
    if pkt.has(flags::SYN) {
        // The SYN or SYN-ACK of a flow with `handshake`: as the synthetic ones.
        return handshake(fw, src, dst, pkt.kind == Kind::Ack, pkt.ts_val, ttl, snap, out);
    }
    let data = pkt.kind == Kind::Data;
    let mut t = TcpHeader::new(fw.port, fw.port, 0, 0);
    t.ack = true;
    t.ece = pkt.has(flags::ECE);
    t.cwr = pkt.has(flags::CWR);
    t.fin = pkt.has(flags::FIN);
    if data {
        t.sequence_number = (pkt.seq as u32).wrapping_add(1);
        t.acknowledgment_number = 1;
        t.window_size = 0xFFFF;
    } else {
        t.sequence_number = 1;
        t.acknowledgment_number = (pkt.ack as u32).wrapping_add(1);
        t.window_size = (pkt.wnd() >> fw.wscale).min(0xFFFF) as u16;
    }
    let mut o = Vec::with_capacity(40);
    opt_ts(&mut o, micros(pkt.ts_val), micros(pkt.ts_ecr));
    let fb = pkt.fb != Feedback::default();
    if fb {
        opt_feedback(&mut o, &pkt.fb);
    }
    let room = (40 - o.len()).saturating_sub(4) / 8;
    let n = pkt.sack_blocks().len().min(room);
    if n > 0 {
        o.extend_from_slice(&[1, 1, 5, (2 + 8 * n) as u8]);
        for &(l, r) in &pkt.sack_blocks()[..n] {
            o.extend_from_slice(&(l as u32).wrapping_add(1).to_be_bytes());
            o.extend_from_slice(&(r as u32).wrapping_add(1).to_be_bytes());
        }
    }
    t.set_options_raw(&o).expect("40 option bytes at most");
    let payload = if data { pkt.len as usize } else { 0 }.min(65495 - t.header_len());
    let ip = ipv4(
        src,
        dst,
        t.header_len() + payload,
        IpNumber::TCP,
        ttl,
        pkt.ip_id,
        pkt.ecn.bits(),
    );
    t.checksum = t.calc_checksum_ipv4(&ip, &ZEROS[..payload]).expect("fits");
    finish(out, &ip.to_bytes(), &t.to_bytes(), payload, snap)
}

/// The SYN (`syn_ack` false, from the sender at node `src`) or SYN-ACK (from
/// the receiver) of a flow: the flow's own with `handshake`, else synthetic
/// ones written before its first packet. They carry what a real one negotiates (MSS, window scale, SACK-permitted,
/// timestamps, ECN setup per RFC 3168 §6.1.1), so that Wireshark scales windows
/// and tcptrace numbers sequences. IP id 0; TSval `ts` (the first captured
/// segment's, so that timestamps do not go backwards).
#[allow(clippy::too_many_arguments)]
pub fn handshake(
    fw: &FlowWire,
    src: usize,
    dst: usize,
    syn_ack: bool,
    ts: crate::units::Time,
    ttl: u8,
    snap: usize,
    out: &mut Vec<u8>,
) -> u32 {
    out.clear();
    let mut t = TcpHeader::new(fw.port, fw.port, 0, 0xFFFF);
    t.syn = true;
    if syn_ack {
        t.ack = true;
        t.acknowledgment_number = 1;
        t.ece = fw.ecn;
    } else {
        t.ece = fw.ecn;
        t.cwr = fw.ecn;
    }
    let mut o = Vec::with_capacity(40);
    o.extend_from_slice(&[2, 4]);
    o.extend_from_slice(&fw.mss.to_be_bytes());
    if (syn_ack && fw.sack_rcv) || (!syn_ack && fw.sack) {
        o.extend_from_slice(&[1, 1, 4, 2]);
    }
    opt_ts(&mut o, micros(ts), 0);
    o.extend_from_slice(&[1, 3, 3, if syn_ack { fw.wscale } else { 0 }]);
    t.set_options_raw(&o).expect("fits");
    let ip = ipv4(src, dst, t.header_len(), IpNumber::TCP, ttl, 0, 0);
    t.checksum = t.calc_checksum_ipv4(&ip, &[]).expect("fits");
    finish(out, &ip.to_bytes(), &t.to_bytes(), 0, snap)
}

fn finish(out: &mut Vec<u8>, ip: &[u8], l4: &[u8], payload: usize, snap: usize) -> u32 {
    out.extend_from_slice(ip);
    out.extend_from_slice(l4);
    let total = out.len() + payload;
    if snap > out.len() {
        out.extend_from_slice(&ZEROS[..(snap.min(total) - out.len())]);
    }
    out.truncate(snap);
    total as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, FlowId, NodeId};
    use crate::units::Time;
    use etherparse::{SlicedPacket, TransportSlice};

    fn fw() -> FlowWire {
        FlowWire {
            port: flow_port(3),
            tcp: true,
            ecn: true,
            mss: 1460,
            sack: true,
            sack_rcv: true,
            wscale: wscale_for(u64::MAX),
        }
    }

    #[test]
    fn addresses_ports_and_scale() {
        assert_eq!(node_addr(0), [10, 0, 0, 1]);
        assert_eq!(node_addr(300), [10, 0, 1, 45]);
        assert_eq!(flow_port(0), 49152);
        assert_eq!(flow_port(16384), 49152);
        assert_eq!(wscale_for(65535), 0);
        assert_eq!(wscale_for(65536), 1);
        assert_eq!(wscale_for(1 << 40), 14);
    }

    #[test]
    fn data_segment_round_trips_through_a_parser() {
        let mut p = Packet::new(
            7,
            FlowId(3),
            NodeId(0),
            NodeId(5),
            1500,
            Kind::Data,
            Time(2_000_123_000),
        );
        p.seq = 14600;
        p.len = 1460;
        p.ecn = Ecn::Ce;
        p.ip_id = 4321;
        p.flags = flags::CWR;
        let mut out = Vec::new();
        let len = packet(&p, &fw(), 63, 65535, &mut out);
        assert_eq!(len as usize, 20 + 32 + 1460);
        let s = SlicedPacket::from_ip(&out).unwrap();
        let ip = match s.net.unwrap() {
            etherparse::NetSlice::Ipv4(ip) => ip.header().to_header(),
            _ => unreachable!(),
        };
        assert_eq!(ip.identification, 4321);
        assert_eq!(ip.ecn.value(), 3);
        assert_eq!(ip.time_to_live, 63);
        assert_eq!(ip.header_checksum, ip.calc_header_checksum());
        let TransportSlice::Tcp(t) = s.transport.unwrap() else {
            panic!()
        };
        assert_eq!(t.sequence_number(), 14601);
        assert!(t.cwr() && t.ack() && !t.ece());
        let h = t.to_header();
        assert_eq!(h.checksum, h.calc_checksum_ipv4(&ip, t.payload()).unwrap());
    }

    #[test]
    fn ack_carries_window_sack_and_feedback_within_40_option_bytes() {
        let mut a = Packet::new(8, FlowId(3), NodeId(5), NodeId(0), 40, Kind::Ack, Time(1_000_000));
        a.ack = 1000;
        a.set_wnd(1 << 30);
        a.set_sack(&[(2000, 3000), (4000, 5000), (6000, 7000), (8000, 9000)]);
        a.fb.set_load_factor(0.5);
        a.fb.ce_seen = true;
        let mut out = Vec::new();
        packet(&a, &fw(), 64, 65535, &mut out);
        let s = SlicedPacket::from_ip(&out).unwrap();
        let TransportSlice::Tcp(t) = s.transport.unwrap() else {
            panic!()
        };
        assert_eq!(t.acknowledgment_number(), 1001);
        assert_eq!(t.window_size(), 0xFFFF);
        let o = t.options();
        assert_eq!(o.len(), 40);
        // timestamps, then the feedback option, then 2 SACK blocks (what fits)
        assert_eq!(&o[12..19], &[254, 7, 0xCC, 0x51, FB_LOAD | FB_CE_SEEN, 0x20, 0x00]);
        assert_eq!(&o[22..24], &[5, 18]);
        assert_eq!(&o[24..28], &2001u32.to_be_bytes());
        // VCP's echoed code (`11`, overload) in bits 2-3 of the flags byte.
        a.fb = Feedback {
            code: 0b11,
            ..Feedback::default()
        };
        out.clear();
        packet(&a, &fw(), 64, 65535, &mut out);
        let s = SlicedPacket::from_ip(&out).unwrap();
        let TransportSlice::Tcp(t) = s.transport.unwrap() else {
            panic!()
        };
        assert_eq!(&t.options()[12..19], &[254, 7, 0xCC, 0x51, FB_CODE, 0, 0]);
    }
}
