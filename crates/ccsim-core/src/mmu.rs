//! A switch's packet memory: one buffer shared by its output queues, with
//! dynamic thresholds, and priority flow control (PFC) on its input ports.
//! docs/models/switch-buffers.md tells the model and its sources.
//!
//! * **Shared buffer, dynamic thresholds** (Choudhury & Hahne, "Dynamic
//!   queue length thresholds for shared-memory packet switches", IEEE/ACM
//!   ToN 6(2), 1998, §II): the switch has `buffer` bytes for all its output
//!   queues. An arrival for output queue i is admitted when that queue, with
//!   the packet, stays within α times the buffer not in use:
//!   `q_i + size ≤ α · (B − Q)`, Q the bytes held by all the queues. One
//!   overloaded queue then settles at `α·B/(1+α)` and leaves the rest to the
//!   others; n of them at `α·B/(1+n·α)` each.
//! * **PFC** (IEEE 802.1Qbb; the ingress accounting of the switch model of
//!   Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, in
//!   their public ns-3 code, `SwitchMmu`): with PFC every packet in the
//!   switch is counted against the input port it came in by. Up to the
//!   port's XOFF threshold the bytes are in the shared pool; beyond it in
//!   the port's own headroom. The port sends a pause frame upstream when it
//!   uses headroom or its shared bytes reach the threshold, and a resume
//!   when its headroom is empty and its shared bytes are `xon_offset` below
//!   the threshold (or none). The threshold is a fixed size, or dynamic:
//!   `α_pfc · (B − headroom of all ports − shared bytes in use)`. Nothing is
//!   dropped for want of room at the output queues (the class is lossless);
//!   an arrival is dropped only when the port's headroom cannot hold it
//!   (`drops_headroom`): its headroom was too small for the link.
//!
//! The engine (sim/switches.rs) calls [`Mmu::admit`] before a packet enters an
//! output queue, [`Mmu::enqueued`] once it is in, and [`Mmu::left`] when it
//! leaves the queue (for the transmitter, or dropped by the discipline); the
//! latter two say when a port must pause or resume its upstream.

use crate::cfg::{Res, Tab};
use crate::qdisc::DropReason;
use crate::units::Time;

/// No input port: the packet was sent by the switch itself (a host's
/// packets enter at the host, which keeps no such memory).
pub const NO_PORT: u16 = u16::MAX;

/// The size of a PFC frame on the wire (an Ethernet MAC control frame, 64
/// bytes, IEEE 802.1Qbb / 802.3 Annex 31D).
pub const PAUSE_FRAME: u64 = 64;

/// The XOFF threshold of an input port.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Xoff {
    /// A fixed number of bytes of the shared buffer per port.
    Static(u64),
    /// This fraction of the shared buffer not in use (HPCC's `pfc_a_shift`:
    /// 1/8 for a shift of 3).
    Dynamic(f64),
}

/// PFC's settings on a switch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PfcSpec {
    pub xoff: Xoff,
    /// Resume when the port's shared bytes are this far below XOFF.
    pub xon_offset: u64,
    /// Headroom per input port in bytes; `None`: sized for each port's link
    /// ([`auto_headroom`]).
    pub headroom: Option<u64>,
}

/// The headroom a port needs so that nothing it receives after deciding
/// to pause is lost: the pause frame's trip upstream (one propagation
/// delay, and its own serialization), the packet the upstream is
/// serializing when the frame arrives, the bytes already on the wire
/// towards the switch (a second propagation delay at the link rate), and
/// the packet the port is receiving as it decides (the usual PFC headroom
/// budget, e.g. Cisco's "Priority Flow Control: Build Reliable Layer 2
/// Infrastructure", 2009, and IEEE 802.1Qbb Annex N).
pub fn auto_headroom(rate_bps: u64, delay_ns: u64, max_packet: u64) -> u64 {
    let wire = (rate_bps as u128 * delay_ns as u128).div_ceil(8_000_000_000) as u64;
    2 * wire + 2 * max_packet + PAUSE_FRAME
}

/// The `[switches]` section as read: which switches have a shared buffer,
/// its size and dynamic-threshold factor, and PFC's settings.
#[derive(Clone, Debug)]
pub struct SwitchesSpec {
    /// The switches (node indices).
    pub nodes: Vec<usize>,
    pub buffer: u64,
    pub alpha: f64,
    pub pfc: Option<PfcSpec>,
    /// How long a set of ports may stay paused, each waiting on the next,
    /// before the run ends as deadlocked (PFC only).
    pub deadlock_check: Time,
    /// The switches stamp in-band telemetry into the packets that carry a
    /// record ([`crate::int`]; HPCC's senders ask for it).
    pub int: bool,
}

const DOCS: &[(&str, &str)] = &[
    (
        "nodes",
        "the switches with a shared buffer: \"all\" (every node with more than one link out) or a list of node names",
    ),
    (
        "buffer",
        "bytes of packet memory each switch shares among its output queues, e.g. \"12MB\"; the queues' own limits give way to it",
    ),
    (
        "alpha",
        "dynamic threshold α (Choudhury & Hahne 1998): an output queue may hold up to α × the buffer not in use",
    ),
    (
        "int",
        "the switches stamp in-band network telemetry (queue length, bytes sent, time, line rate) into the data packets of the flows that ask for it (HPCC: Li et al., SIGCOMM 2019); false by default",
    ),
    (
        "pfc",
        "priority flow control (IEEE 802.1Qbb) on the switches' input ports, which makes them lossless: a table (may be empty)",
    ),
];

const PFC_DOCS: &[(&str, &str)] = &[
    (
        "xoff",
        "a fixed XOFF threshold per input port, in shared bytes; without it the threshold is dynamic (alpha)",
    ),
    (
        "alpha",
        "dynamic XOFF: this fraction of the buffer not in use or reserved as headroom (HPCC's ns-3 switch: 1/8)",
    ),
    (
        "xon_offset",
        "a paused port resumes when its shared bytes are this far below XOFF and its headroom is empty",
    ),
    (
        "headroom",
        "headroom per input port; without it each port's is sized for its link (2 × rate × delay + 2 packets + a pause frame)",
    ),
    (
        "deadlock_check",
        "a set of paused ports each waiting on the next, unchanged for this long, ends the run as a PFC deadlock naming them",
    ),
];

/// Reads `[switches]`, if present; `routers` are the nodes it may name
/// (indices into `names`).
pub fn read(root: &mut Tab, names: &[String], routers: &[usize]) -> Res<Option<SwitchesSpec>> {
    let Some(mut t) = root.table("switches")? else {
        return Ok(None);
    };
    t.docs(DOCS);
    let router_names: Vec<String> = routers.iter().map(|&i| names[i].clone()).collect();
    let nodes = t
        .select("nodes", &router_names)?
        .into_iter()
        .map(|i| routers[i])
        .collect();
    let buffer = t.size("buffer", None)?;
    if buffer == 0 {
        return Err(t.error(
            "buffer",
            &serde_json::Value::from(0),
            "a positive size such as \"12MB\"",
        ));
    }
    let alpha = t.float("alpha", Some(1.0), 1.0 / 1024.0, 1024.0)?;
    let int = t.boolean("int", false)?;
    let (pfc, deadlock_check) = match t.table("pfc")? {
        None => (None, Time::ZERO),
        Some(mut p) => {
            p.docs(PFC_DOCS);
            let xoff = if p.has("xoff") {
                let x = p.size("xoff", None)?;
                if x >= buffer {
                    return Err(p.error(
                        "xoff",
                        &serde_json::Value::String(crate::cfg::size_str(x)),
                        format!("a threshold below the switch buffer ({})", crate::cfg::size_str(buffer)),
                    ));
                }
                if p.has("alpha") {
                    return Err(p.error(
                        "alpha",
                        p.get("alpha").expect("present"),
                        "no alpha with a fixed xoff (alpha sets the dynamic threshold)",
                    ));
                }
                Xoff::Static(x)
            } else {
                p.raw("xoff");
                Xoff::Dynamic(p.float("alpha", Some(0.125), 1.0 / 1024.0, 64.0)?)
            };
            let xon_offset = p.size("xon_offset", Some("3KB"))?;
            let headroom = if p.has("headroom") {
                Some(p.size("headroom", None)?)
            } else {
                p.raw("headroom");
                None
            };
            let check = p.time("deadlock_check", Some("5ms"))?;
            if check == Time::ZERO {
                return Err(p.error(
                    "deadlock_check",
                    &serde_json::Value::from("0s"),
                    "a positive time such as \"5ms\"",
                ));
            }
            t.put("pfc", p.finish()?);
            let spec = PfcSpec {
                xoff,
                xon_offset,
                headroom,
            };
            (Some(spec), check)
        }
    };
    root.put("switches", t.finish()?);
    Ok(Some(SwitchesSpec {
        nodes,
        buffer,
        alpha,
        pfc,
        deadlock_check,
        int,
    }))
}

/// What a switch's memory keeps for one input port under PFC.
#[derive(Clone, Debug, Default)]
pub struct Ingress {
    /// Bytes of this port's packets in the shared pool.
    pub shared: u64,
    /// Bytes of this port's packets in its headroom.
    pub hdrm: u64,
    /// The headroom's size.
    pub headroom: u64,
    /// A pause is in force (sent, not yet resumed).
    pub paused: bool,
}

/// PFC's state on one switch.
#[derive(Clone, Debug)]
struct Pfc {
    spec: PfcSpec,
    headroom_total: u64,
    /// Shared bytes of all input ports.
    shared_used: u64,
    ports: Vec<Ingress>,
    /// Bytes of input port i waiting at output queue o, at `i * outputs + o`
    /// (what a deadlock check follows: whose bytes wait behind whom).
    cross: Vec<u64>,
    outputs: usize,
}

/// One switch's memory (see the module doc).
#[derive(Clone, Debug)]
pub struct Mmu {
    buffer: u64,
    alpha: f64,
    /// Bytes held by all output queues.
    used: u64,
    /// Bytes held by each output queue.
    egress: Vec<u64>,
    pfc: Option<Pfc>,
}

impl Mmu {
    /// A switch of `buffer` bytes and dynamic-threshold factor `alpha` for
    /// its `outputs` queues; with `pfc`, its input ports' headrooms are
    /// `headrooms` (one per input port).
    pub fn new(buffer: u64, alpha: f64, outputs: usize, pfc: Option<(PfcSpec, Vec<u64>)>) -> Mmu {
        let pfc = pfc.map(|(spec, headrooms)| Pfc {
            spec,
            headroom_total: headrooms.iter().sum(),
            shared_used: 0,
            cross: vec![0; headrooms.len() * outputs],
            ports: headrooms
                .into_iter()
                .map(|headroom| Ingress {
                    headroom,
                    ..Ingress::default()
                })
                .collect(),
            outputs,
        });
        Mmu {
            buffer,
            alpha,
            used: 0,
            egress: vec![0; outputs],
            pfc,
        }
    }

    /// Bytes held by all the output queues.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Bytes held by output queue `out`.
    pub fn egress(&self, out: u16) -> u64 {
        self.egress[out as usize]
    }

    /// Whether the switch runs PFC.
    pub fn lossless(&self) -> bool {
        self.pfc.is_some()
    }

    /// Input port `inp`'s state (PFC only).
    pub fn ingress(&self, inp: u16) -> Option<&Ingress> {
        self.pfc.as_ref().map(|p| &p.ports[inp as usize])
    }

    /// Bytes of input port `inp` waiting at output `out` (PFC only; 0 without).
    pub fn waiting(&self, inp: u16, out: u16) -> u64 {
        self.pfc
            .as_ref()
            .map_or(0, |p| p.cross[inp as usize * p.outputs + out as usize])
    }

    /// The output ports.
    pub fn outputs(&self) -> usize {
        self.egress.len()
    }

    /// The XOFF threshold now, in shared bytes per port (PFC only).
    pub fn xoff(&self) -> Option<u64> {
        self.pfc.as_ref().map(|p| self.threshold(p))
    }

    fn threshold(&self, p: &Pfc) -> u64 {
        match p.spec.xoff {
            Xoff::Static(b) => b,
            Xoff::Dynamic(a) => {
                let free = self.buffer.saturating_sub(p.headroom_total + p.shared_used);
                (a * free as f64) as u64
            }
        }
    }

    /// Whether a `size`-byte packet from input `inp` may enter output queue
    /// `out`: `None` if so, else why it is dropped. Lossless (PFC): only a
    /// port whose headroom cannot take it drops it; else the dynamic
    /// threshold of the output queue decides.
    pub fn admit(&self, inp: u16, out: u16, size: u32) -> Option<DropReason> {
        let size = size as u64;
        if self.used + size > self.buffer {
            return Some(DropReason::Overflow);
        }
        match &self.pfc {
            Some(p) if inp != NO_PORT => {
                let port = &p.ports[inp as usize];
                let over = port.shared + size > self.threshold(p);
                (over && port.hdrm + size > port.headroom).then_some(DropReason::Headroom)
            }
            _ => {
                let limit = self.alpha * (self.buffer - self.used) as f64;
                ((self.egress[out as usize] + size) as f64 > limit).then_some(DropReason::SharedBuffer)
            }
        }
    }

    /// Whether a `size`-byte packet from input `inp`, admitted
    /// ([`Mmu::admit`]) for the empty output queue of an idle transmitter,
    /// may cut through: entering and leaving the queue at once would change
    /// nothing: its port is not paused and stays below XOFF (so that
    /// [`Mmu::enqueued`] would not pause it, nor [`Mmu::left`] resume it).
    pub fn passes(&self, inp: u16, size: u32) -> bool {
        match &self.pfc {
            Some(p) if inp != NO_PORT => {
                let port = &p.ports[inp as usize];
                !port.paused && port.shared + (size as u64) < self.threshold(p)
            }
            _ => true,
        }
    }

    /// A `size`-byte packet from input `inp` entered output queue `out`
    /// (after [`Mmu::admit`]). Returns `true` if input `inp` must now pause
    /// its upstream.
    pub fn enqueued(&mut self, inp: u16, out: u16, size: u32) -> bool {
        let size = size as u64;
        self.used += size;
        self.egress[out as usize] += size;
        let Some(thresh) = self.pfc.as_ref().filter(|_| inp != NO_PORT).map(|p| self.threshold(p)) else {
            return false;
        };
        let p = self.pfc.as_mut().expect("PFC");
        p.cross[inp as usize * p.outputs + out as usize] += size;
        let port = &mut p.ports[inp as usize];
        if port.shared + size > thresh {
            port.hdrm += size;
        } else {
            port.shared += size;
            p.shared_used += size;
        }
        let port = &mut p.ports[inp as usize];
        if !port.paused && (port.hdrm > 0 || port.shared >= thresh) {
            port.paused = true;
            return true;
        }
        false
    }

    /// A `size`-byte packet from input `inp` left output queue `out` (for
    /// the transmitter, or dropped there). Returns `true` if input `inp`
    /// may now resume its upstream.
    pub fn left(&mut self, inp: u16, out: u16, size: u32) -> bool {
        let size = size as u64;
        debug_assert!(self.egress[out as usize] >= size && self.used >= size);
        self.used -= size;
        self.egress[out as usize] -= size;
        let Some(p) = self.pfc.as_mut().filter(|_| inp != NO_PORT) else {
            return false;
        };
        p.cross[inp as usize * p.outputs + out as usize] -= size;
        let port = &mut p.ports[inp as usize];
        let from_hdrm = port.hdrm.min(size);
        port.hdrm -= from_hdrm;
        port.shared -= size - from_hdrm;
        p.shared_used -= size - from_hdrm;
        if !p.ports[inp as usize].paused || p.ports[inp as usize].hdrm > 0 {
            return false;
        }
        let p = self.pfc.as_ref().expect("PFC");
        let (shared, offset) = (p.ports[inp as usize].shared, p.spec.xon_offset);
        if shared == 0 || shared + offset <= self.threshold(p) {
            self.pfc.as_mut().expect("PFC").ports[inp as usize].paused = false;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One overloaded queue of a shared buffer with dynamic thresholds
    /// settles where `q = α·(B − q)`: α·B/(1+α) (Choudhury & Hahne §III);
    /// a second overloaded queue brings both to α·B/(1+2α), and a queue
    /// that was empty still gets in.
    #[test]
    fn dynamic_thresholds_settle_at_alpha_b_over_one_plus_alpha() {
        let (b, size) = (1_000_000u64, 1_000u32);
        for alpha in [0.5, 1.0, 2.0] {
            let mut m = Mmu::new(b, alpha, 3, None);
            while m.admit(NO_PORT, 0, size).is_none() {
                m.enqueued(NO_PORT, 0, size);
            }
            let q = m.egress(0) as f64;
            let want = alpha * b as f64 / (1.0 + alpha);
            assert!((q - want).abs() <= size as f64, "α {alpha}: {q} vs {want}");
            assert_eq!(m.admit(NO_PORT, 0, size), Some(DropReason::SharedBuffer));
            assert_eq!(m.admit(NO_PORT, 1, size), None, "an empty queue still gets in");
            // two overloaded queues, taking turns
            let mut m = Mmu::new(b, alpha, 3, None);
            loop {
                let a = m.admit(NO_PORT, 0, size).is_none();
                if a {
                    m.enqueued(NO_PORT, 0, size);
                }
                let c = m.admit(NO_PORT, 1, size).is_none();
                if c {
                    m.enqueued(NO_PORT, 1, size);
                }
                if !a && !c {
                    break;
                }
            }
            let want = alpha * b as f64 / (1.0 + 2.0 * alpha);
            for o in [0, 1] {
                let q = m.egress(o) as f64;
                assert!(
                    (q - want).abs() <= 2.0 * size as f64,
                    "α {alpha}, queue {o}: {q} vs {want}"
                );
            }
        }
    }

    /// The buffer is the physical bound whatever α says.
    #[test]
    fn never_more_than_the_buffer() {
        let mut m = Mmu::new(10_000, 1_000.0, 4, None);
        let mut o = 0;
        while m.admit(NO_PORT, o, 1_500).is_none() {
            m.enqueued(NO_PORT, o, 1_500);
            o = (o + 1) % 4;
        }
        assert_eq!(m.used(), 9_000);
        assert_eq!(m.admit(NO_PORT, o, 1_500), Some(DropReason::Overflow));
    }

    /// A static XOFF of 10 000 B, 3 000 B offset, 5 000 B of headroom: the
    /// port pauses when its shared bytes reach 10 000, the next arrivals go
    /// to headroom, a sixth 1 000-byte packet beyond it is dropped; it
    /// resumes only once the headroom is empty and the shared bytes are at
    /// 7 000 or below. Bytes leave headroom first (HPCC's `SwitchMmu`).
    #[test]
    fn static_xoff_headroom_and_xon() {
        let spec = PfcSpec {
            xoff: Xoff::Static(10_000),
            xon_offset: 3_000,
            headroom: None,
        };
        let mut m = Mmu::new(1_000_000, 1.0, 2, Some((spec, vec![5_000, 5_000])));
        let mut paused_at = None;
        for i in 1..=10 {
            assert_eq!(m.admit(0, 1, 1_000), None);
            if m.enqueued(0, 1, 1_000) {
                paused_at = Some(i);
            }
        }
        assert_eq!(paused_at, Some(10), "pauses as shared reaches XOFF");
        for _ in 0..5 {
            assert_eq!(m.admit(0, 1, 1_000), None);
            assert!(!m.enqueued(0, 1, 1_000), "one pause, not one per packet");
        }
        let port = m.ingress(0).unwrap();
        assert_eq!((port.shared, port.hdrm, port.paused), (10_000, 5_000, true));
        assert_eq!(m.admit(0, 1, 1_000), Some(DropReason::Headroom));
        assert_eq!(m.admit(1, 1, 1_000), None, "other ports have their own headroom");
        assert_eq!(m.waiting(0, 1), 15_000);
        let mut resumed_after = None;
        for i in 1..=10 {
            if m.left(0, 1, 1_000) {
                resumed_after = Some(i);
                break;
            }
        }
        // 5 packets empty the headroom, then 3 more bring shared to 7 000
        assert_eq!(resumed_after, Some(8));
        let port = m.ingress(0).unwrap();
        assert_eq!((port.shared, port.hdrm, port.paused), (7_000, 0, false));
    }

    /// Dynamic XOFF: α_pfc of the buffer left after all headroom and the
    /// shared bytes in use. B = 100 000, two ports with 10 000 of headroom
    /// each, α = 1/4: with nothing held, XOFF = 20 000; as port 0 fills,
    /// its threshold falls to meet it where s = (80 000 − s)/4: 16 000.
    #[test]
    fn dynamic_xoff_shrinks_as_the_buffer_fills() {
        let spec = PfcSpec {
            xoff: Xoff::Dynamic(0.25),
            xon_offset: 0,
            headroom: None,
        };
        let mut m = Mmu::new(100_000, 1.0, 2, Some((spec, vec![10_000, 10_000])));
        assert_eq!(m.xoff(), Some(20_000));
        let mut n = 0;
        while !m.enqueued(0, 1, 1_000) {
            n += 1;
        }
        // the 17th packet finds XOFF at (80 000 − 16 000)/4 = 16 000 and
        // goes to headroom: the port pauses
        assert_eq!(n, 16);
        let port = m.ingress(0).unwrap();
        assert_eq!((port.shared, port.hdrm), (16_000, 1_000));
        assert_eq!(m.xoff(), Some(16_000));
    }

    /// The headroom for a 100 Gb/s link of 1 µs with 1 500-byte packets:
    /// 2 · 12 500 B on the wire + 2 · 1 500 + 64.
    #[test]
    fn headroom_for_the_link() {
        assert_eq!(auto_headroom(100_000_000_000, 1_000, 1_500), 25_000 + 3_000 + 64);
    }
}
