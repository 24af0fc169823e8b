//! Packet capture: pcap / pcapng files of the packets crossing chosen links or
//! leaving and reaching chosen nodes, as Wireshark, tshark and tcptrace read
//! them. Headers are synthesized from each packet's real fields
//! ([`wire`]); the file format (pcap: tcpdump.org's libpcap format with
//! nanosecond stamps; pcapng: draft-ietf-opsawg-pcapng; link type
//! `LINKTYPE_RAW`, see [`link_type`]) is written by `pcap-file`.
//!
//! Scenario: `[[capture]] link = "R1->R2"` (packets as they start onto the
//! link: an egress capture, timestamps at the start of serialization) or
//! `node = "s0"` (packets leaving on each of its links, at the start of
//! serialization, and reaching it on each, at arrival: tcpdump on every
//! interface), with `file` (`"<name>.pcap"` or `".pcapng"`), `snaplen`, `start`,
//! `stop` and `handshake`. Files are held in memory (counted in the run's memory
//! budget) and returned with the results; `Results.save` writes them. Workload
//! connections are captured each with its own header facts and ports, though
//! they reuse flow slots ([`crate::tap`] tells a packet's connection).

pub mod wire;

use crate::cfg::{self, Res, ScenarioError, Tab};
use crate::link::Link;
use crate::packet::{LinkId, NodeId, Packet};
use crate::units::Time;
use crate::world::{Flow, Node};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::blocks::name_resolution::{Ipv4Record, NameResolutionBlock, Record};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, TsResolution};
use serde_json::Value;
use std::borrow::Cow;
use std::time::Duration;
use wire::FlowWire;

/// Link type of a capture file: `LINKTYPE_RAW` (101, records start at the IP
/// header), which tcpdump, Wireshark and tcptrace 6.6.7 read (tcptrace refuses
/// `LINKTYPE_IPV4`, 228: "did not understand link format (228)"). A pcapng file
/// with several interfaces (a node capture) uses `LINKTYPE_IPV4` instead:
/// libpcap (1.10.3 tested) maps the first interface's 101 to its `DLT_RAW` (12)
/// and then refuses the second interface ("an interface has a type 101
/// different from the type of the first interface"), so tcpdump could not read
/// such a file; with 228 (the same number in both) it can. tcptrace reads
/// neither: capture a node into a `.pcap` file for it.
pub fn link_type(pcapng: bool, interfaces: usize) -> DataLink {
    if pcapng && interfaces > 1 {
        DataLink::IPV4
    } else {
        DataLink::RAW
    }
}

/// Largest snap length (Wireshark's); `snaplen = "inf"` means this.
pub const MAX_SNAPLEN: u64 = 262_144;

/// Where a capture sees packets on one link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// Leaving on the link (start of serialization).
    Egress,
    /// Reaching the link's far end (arrival).
    Ingress,
}

enum Writer {
    Pcap(PcapWriter<Vec<u8>>),
    Ng(PcapNgWriter<Vec<u8>>),
}

/// One capture file being written.
pub struct Capture {
    pub file: String,
    /// (link, side, pcapng interface id).
    pub points: Vec<(LinkId, Side, u32)>,
    snaplen: u32,
    start: Time,
    stop: Time,
    handshake: bool,
    /// Tap flows (see [`crate::tap`]) whose handshake was written.
    seen: Vec<bool>,
    writer: Writer,
    pub packets: u64,
    /// Bytes of packet records written.
    size: usize,
    buf: Vec<u8>,
}

impl Capture {
    /// Bytes of the file so far.
    pub fn bytes(&self) -> usize {
        self.size
    }

    /// The finished file.
    pub fn into_file(self) -> (String, Vec<u8>) {
        let bytes = match self.writer {
            Writer::Pcap(w) => w.into_writer(),
            Writer::Ng(w) => w.into_inner(),
        };
        (self.file, bytes)
    }

    fn write(&mut self, now: Time, iface: u32, len: u32) {
        let ts = Duration::from_nanos(now.0);
        let r = match &mut self.writer {
            Writer::Pcap(w) => w.write_packet(&PcapPacket::new(ts, len, &self.buf)),
            Writer::Ng(w) => w.write_pcapng_block(EnhancedPacketBlock {
                interface_id: iface,
                timestamp: ts,
                original_len: len,
                data: Cow::Borrowed(&self.buf),
                options: vec![],
            }),
        };
        self.size += r.expect("writing into memory cannot fail");
        self.packets += 1;
    }

    /// Records `pkt` (of tap flow `key`, described by `tf`) seen at `now` on
    /// interface `iface`.
    pub fn record(&mut self, now: Time, iface: u32, pkt: &Packet, key: u32, tf: &TapFlow, ttl: u8) {
        if now < self.start || now > self.stop {
            return;
        }
        let snap = self.snaplen as usize;
        let fw = &tf.wire;
        let k = key as usize;
        if self.handshake && fw.tcp && !self.seen.get(k).copied().unwrap_or(false) {
            if k >= self.seen.len() {
                self.seen.resize(k + 1, false);
            }
            self.seen[k] = true;
            // (a flow with a handshake of its own, the `handshake` key, shows its SYN)
            if !pkt.has(crate::packet::flags::SYN) {
                let (s, d) = (tf.src.idx(), tf.dst.idx());
                let ts = pkt.ts_val.min(now);
                let len = wire::handshake(fw, s, d, false, ts, ttl, snap, &mut self.buf);
                self.write(now, iface, len);
                let len = wire::handshake(fw, d, s, true, ts, ttl, snap, &mut self.buf);
                self.write(now, iface, len);
            }
        }
        let len = wire::packet(pkt, fw, ttl, snap, &mut self.buf);
        self.write(now, iface, len);
    }
}

/// A static flow or a workload connection, as the taps know it.
#[derive(Clone, Debug)]
pub struct TapFlow {
    pub src: NodeId,
    pub dst: NodeId,
    /// The transport's kind (`"tcp"`, `"cbr"`, ...).
    pub kind: &'static str,
    /// Header facts of its packets in captures.
    pub wire: FlowWire,
    /// Its number in the files: the flow index of a static flow, the number
    /// of static flows + the connection id (the `conn` column) of a
    /// connection. The ns-2 trace's `fid` and the capture's ports derive from it.
    pub number: usize,
    /// A connection's (workload index, connection id).
    pub conn: Option<(u32, u64)>,
}

impl TapFlow {
    /// Tap flow of `f` numbered `number`.
    pub fn of(f: &Flow, number: usize, conn: Option<(u32, u64)>) -> TapFlow {
        TapFlow {
            src: f.src,
            dst: f.dst,
            kind: f.kind,
            wire: flow_wire(f, number),
            number,
            conn,
        }
    }
}

/// Header facts of flow `f` (ports from `number`, the flow's number in the
/// files, [`TapFlow::number`]; MSS, SACK, window scale and ECN
/// from its ends).
pub fn flow_wire(f: &Flow, number: usize) -> FlowWire {
    let tcp_rcv = f.rcv.as_any().downcast_ref::<crate::tcp::TcpReceiver>();
    match (f.tcp_sender(), tcp_rcv) {
        (Some(snd), Some(rcv)) => FlowWire {
            port: wire::flow_port(number),
            tcp: true,
            ecn: snd.params().ecn,
            mss: snd.params().mss.min(65535) as u16,
            sack: snd.sack(),
            sack_rcv: rcv.params().sack_blocks > 0,
            wscale: wire::wscale_for(rcv.params().buffer),
        },
        // Other transports: data and ACK packets as TCP segments without
        // options (BLT's), datagrams as UDP.
        _ => FlowWire {
            port: wire::flow_port(number),
            tcp: f.kind != "cbr" && f.kind != "poisson",
            ecn: false,
            mss: 0,
            sack: false,
            sack_rcv: false,
            wscale: 0,
        },
    }
}

/// TTL of `pkt` on `link` (sent by `link.from`): 64 less one for each router
/// it passed, found by following the static routes from its source.
pub fn ttl(pkt: &Packet, link: &Link, nodes: &[Node], links: &[Link]) -> u8 {
    let mut at = pkt.src;
    let mut hops = 0u32;
    while at != link.from && hops < 255 {
        match nodes[at.idx()].next_hop(pkt.dst) {
            Some(l) => at = links[l.idx()].to,
            None => break,
        }
        hops += 1;
    }
    wire::INITIAL_TTL.saturating_sub(hops.min(64) as u8)
}

/// The `hosts` file of the captures: one `address<TAB>node name` line per node
/// (the format of /etc/hosts and of Wireshark's name resolution `hosts` file).
pub fn hosts(nodes: &[Node]) -> Vec<u8> {
    let mut s = String::new();
    for (i, n) in nodes.iter().enumerate() {
        let a = wire::node_addr(i);
        s.push_str(&format!("{}.{}.{}.{}\t{}\n", a[0], a[1], a[2], a[3], n.name));
    }
    s.into_bytes()
}

fn default_file(name: &str) -> String {
    let s: String = name
        .replace("->", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{s}.pcap")
}

/// Checks a result file name given in the scenario: a plain name (no
/// directories) ending in one of `exts`.
pub fn check_file(t: &Tab, key: &str, file: &str, exts: &[&str]) -> Res<()> {
    let plain = !file.is_empty()
        && !file.starts_with('.')
        && file.chars().all(|c| c.is_ascii_alphanumeric() || "-_.+=@".contains(c));
    if !plain || !exts.iter().any(|e| file.ends_with(e) && file.len() > e.len()) {
        return Err(t.error(
            key,
            &Value::String(file.into()),
            format!(
                "a file name without directories (letters, digits, - _ . + = @) ending in {}: \
                 it is written into the run's results directory",
                exts.join(" or ")
            ),
        ));
    }
    Ok(())
}

/// Reads `[[capture]]`: returns the captures, with their file names checked
/// against `taken` (other result files).
pub fn read(
    root: &mut Tab,
    nodes: &[Node],
    links: &[Link],
    flows: usize,
    end: Time,
    taken: &mut Vec<String>,
) -> Res<Vec<Capture>> {
    let Some(arr) = root.array("capture")? else {
        return Ok(Vec::new());
    };
    let path = root.key_path("capture");
    if nodes.len() >= (1 << 24) - 2 {
        return Err(ScenarioError {
            path,
            value: String::new(),
            expected: format!(
                "at most 16777213 nodes for IPv4 addresses in 10.0.0.0/8 (the topology has {})",
                nodes.len()
            ),
        });
    }
    let mut caps = Vec::new();
    let mut out = Vec::new();
    for (i, v) in arr.iter().enumerate() {
        let mut t = Tab::new(format!("{path}[{i}]"), v)?;
        let (points, name) = read_points(&mut t, nodes, links)?;
        let file = read_file(&mut t, &name, taken)?;
        let snap = read_snaplen(&mut t)?;
        let (start, stop) = t.time_window(end)?;
        let handshake = t.boolean("handshake", true)?;
        out.push(t.finish()?);
        let (writer, iface) = if file.ends_with(".pcapng") {
            pcapng_writer(&points, snap, nodes, links)
        } else {
            pcap_writer(&points, snap)
        };
        caps.push(Capture {
            file,
            points: points.iter().zip(iface).map(|(&(l, s), k)| (l, s, k)).collect(),
            snaplen: snap,
            start,
            stop,
            handshake,
            seen: vec![false; flows],
            writer,
            packets: 0,
            size: 0,
            buf: Vec::with_capacity(snap.min(2048) as usize),
        });
    }
    root.put("capture", Value::Array(out));
    Ok(caps)
}

/// A capture's `link` or `node` (exactly one): the points it records (a link's
/// egress; a node's links, leaving and reaching it) and the name its default
/// file is named after.
fn read_points(t: &mut Tab, nodes: &[Node], links: &[Link]) -> Res<(Vec<(LinkId, Side)>, String)> {
    let link = t.string("link")?;
    let node = t.string("node")?;
    match (&link, &node) {
        (Some(l), None) => {
            let li = links.iter().position(|x| &x.name == l).ok_or_else(|| {
                let names: Vec<String> = links.iter().map(|x| x.name.clone()).collect();
                t.error(
                    "link",
                    &Value::String(l.clone()),
                    format!("one of the links: {}", cfg::names_hint(l, &names)),
                )
            })?;
            Ok((vec![(LinkId(li as u32), Side::Egress)], l.clone()))
        }
        (None, Some(n)) => {
            let ni = nodes.iter().position(|x| &x.name == n).ok_or_else(|| {
                let names: Vec<String> = nodes.iter().map(|x| x.name.clone()).collect();
                t.error(
                    "node",
                    &Value::String(n.clone()),
                    format!("one of the nodes: {}", cfg::names_hint(n, &names)),
                )
            })?;
            let id = NodeId(ni as u32);
            let mut p = Vec::new();
            for l in links {
                if l.from == id {
                    p.push((l.id, Side::Egress));
                }
                if l.to == id {
                    p.push((l.id, Side::Ingress));
                }
            }
            Ok((p, n.clone()))
        }
        _ => Err(ScenarioError {
            path: t.path.clone(),
            value: String::new(),
            expected: "exactly one of link = \"R1->R2\" (a link's name) or node = \"s0\" (a node's name)".into(),
        }),
    }
}

/// A capture's `file` (by default named after its link or node), checked and
/// added to `taken`.
fn read_file(t: &mut Tab, name: &str, taken: &mut Vec<String>) -> Res<String> {
    let file = match t.string("file")? {
        Some(f) => f,
        None => {
            let f = default_file(name);
            t.put("file", Value::String(f.clone()));
            f
        }
    };
    check_file(t, "file", &file, &[".pcap", ".pcapng"])?;
    if taken.contains(&file) {
        return Err(t.error(
            "file",
            &Value::String(file),
            "a file name no other capture or trace of the scenario uses",
        ));
    }
    taken.push(file.clone());
    Ok(file)
}

/// A capture's `snaplen`: the bytes kept of each packet.
fn read_snaplen(t: &mut Tab) -> Res<u32> {
    Ok(match t.size_or_inf("snaplen", "inf")? {
        None => MAX_SNAPLEN,
        Some(b) if (20..=MAX_SNAPLEN).contains(&b) => b,
        Some(b) => {
            return Err(t.error(
                "snaplen",
                &Value::from(b),
                "a size from 20B (the IP header) to 262144B, or \"inf\" (whole packets)",
            ))
        }
    } as u32)
}

/// A `.pcapng` file's writer, its header written: an interface per point
/// (named after the link, described by its direction) and the nodes' names;
/// returns the interface of each point.
fn pcapng_writer(points: &[(LinkId, Side)], snap: u32, nodes: &[Node], links: &[Link]) -> (Writer, Vec<u32>) {
    let mut iface = Vec::new();
    let mut w = PcapNgWriter::new(Vec::new()).expect("in memory");
    for (k, &(l, side)) in points.iter().enumerate() {
        let link = &links[l.idx()];
        let desc = match side {
            Side::Egress => format!("ccsim link {} leaving {}", link.name, nodes[link.from.idx()].name),
            Side::Ingress => format!("ccsim link {} reaching {}", link.name, nodes[link.to.idx()].name),
        };
        let mut b = InterfaceDescriptionBlock::new(link_type(true, points.len()), snap);
        b.options = vec![
            InterfaceDescriptionOption::IfName(Cow::Owned(link.name.clone())),
            InterfaceDescriptionOption::IfDescription(Cow::Owned(desc)),
            InterfaceDescriptionOption::IfTsResol(9),
        ];
        w.write_pcapng_block(b).expect("in memory");
        iface.push(k as u32);
    }
    let addrs: Vec<[u8; 4]> = (0..nodes.len()).map(wire::node_addr).collect();
    let records = nodes
        .iter()
        .zip(&addrs)
        .map(|(n, a)| {
            Record::Ipv4(Ipv4Record {
                ip_addr: Cow::Borrowed(&a[..]),
                names: vec![Cow::Borrowed(n.name.as_str())],
            })
        })
        .collect();
    w.write_pcapng_block(NameResolutionBlock {
        records,
        options: vec![],
    })
    .expect("in memory");
    (Writer::Ng(w), iface)
}

/// A `.pcap` file's writer, its header written (one interface: every point's
/// is 0).
fn pcap_writer(points: &[(LinkId, Side)], snap: u32) -> (Writer, Vec<u32>) {
    let h = PcapHeader {
        snaplen: snap,
        datalink: link_type(false, points.len()),
        ts_resolution: TsResolution::NanoSecond,
        ..PcapHeader::default()
    };
    let writer = Writer::Pcap(PcapWriter::with_header(Vec::new(), h).expect("in memory"));
    (writer, vec![0; points.len()])
}

#[cfg(test)]
mod tests {
    use pcap_file::pcap::PcapReader;
    use pcap_file::pcapng::{Block, PcapNgReader};

    /// Link captures and `.pcap` files declare `LINKTYPE_RAW` (101), which
    /// tcptrace reads (it refused `LINKTYPE_IPV4`, 228); a pcapng node capture
    /// (several interfaces) keeps 228, the one libpcap reads there.
    #[test]
    fn captures_declare_linktype_raw_where_libpcap_allows() {
        let s = serde_json::json!({
            "duration": "100ms",
            "topology": {
                "kind": "dumbbell",
                "pairs": 1,
                "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
                "access": {"rate": "100Mbps", "delay": "1ms"},
            },
            "flows": [{"pairs": [0]}],
            "capture": [
                {"link": "R1->R2", "file": "a.pcap"},
                {"node": "s0", "file": "b.pcap"},
                {"link": "R1->R2", "file": "c.pcapng"},
                {"node": "s0", "file": "d.pcapng"},
            ],
        });
        let out = crate::run(&s.to_string()).unwrap();
        let file = |name: &str| &out.files.iter().find(|(n, _)| n == name).unwrap().1;
        for name in ["a.pcap", "b.pcap"] {
            let mut r = PcapReader::new(&file(name)[..]).unwrap();
            assert_eq!(u32::from(r.header().datalink), 101, "{name}");
            assert!(r.next_packet().is_some());
        }
        for (name, ifaces, linktype) in [("c.pcapng", 1, 101), ("d.pcapng", 2, 228)] {
            let mut r = PcapNgReader::new(&file(name)[..]).unwrap();
            let mut seen = Vec::new();
            while let Some(b) = r.next_block() {
                if let Block::InterfaceDescription(i) = b.unwrap() {
                    seen.push(u32::from(i.linktype));
                }
            }
            assert_eq!(seen, vec![linktype; ifaces], "{name}");
        }
    }
}
