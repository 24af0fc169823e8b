//! Switches with a shared buffer, and PFC, on the packet path. The model is
//! [`crate::mmu`] (docs/models/switch-buffers.md); this file wires it in:
//!
//! * an arrival at an output queue of such a switch is first offered to the
//!   switch's memory ([`Mmu::admit`]), then to the queue's discipline (which
//!   still marks, and may drop); what enters and leaves the queue is
//!   accounted against the switch ([`Mmu::enqueued`], [`Mmu::left`]);
//! * with PFC a packet carries the input port it came in by
//!   ([`Packet::in_port`]); when a port must pause or resume, a frame is sent
//!   to the transmitter of the link feeding it: it arrives after the reverse
//!   link's propagation delay and the frame's own serialization
//!   ([`Ev::Pfc`]); a paused transmitter finishes its packet and starts no
//!   other ([`crate::link::Link::pause`]);
//! * while ports are paused, a check every `deadlock_check` looks for ports
//!   each waiting on the next: a paused port whose switch holds its bytes
//!   only in queues that are themselves paused waiting. Found twice in a
//!   row, unchanged (the same ports, no pause lifted in between), the run
//!   ends with an error naming a cycle of them.
//!
//! The links of these switches are served by events (no cut-through, no
//! event-free FIFO): a run without `[switches]` has no trace of any of it
//! beyond a flag per link.

use super::{Ev, Sim};
use crate::cfg::{size_str, Res, ScenarioError};
use crate::error::SimError;
use crate::int::IntTable;
use crate::mmu::{auto_headroom, Mmu, SwitchesSpec, Xoff, NO_PORT, PAUSE_FRAME};
use crate::packet::{LinkId, Packet};
use crate::units::Time;

const NONE: u32 = u32::MAX;

/// The switches with a memory of their own, and where each link meets them.
pub struct Switches {
    mmus: Vec<Mmu>,
    /// Per link: (switch at its near end, output port there), or `NONE`.
    out_port: Vec<(u32, u16)>,
    /// Per link: (PFC switch at its far end, input port there), or `NONE`.
    in_port: Vec<(u32, u16)>,
    /// Per switch: the link of each output port, and of each input port
    /// (with PFC; empty without).
    out_links: Vec<Vec<LinkId>>,
    in_links: Vec<Vec<LinkId>>,
    /// Per link into a PFC switch: how long a pause frame takes to reach
    /// its transmitter.
    pause_delay: Vec<Time>,
    /// Per link: the pause frames its transmitter received, the time it
    /// was paused (ns) up to `paused_since`, when the pause in force began
    /// or was last accounted; their values at the start of the measurement
    /// window (empty before it).
    pauses: Vec<u64>,
    paused_ns: Vec<u64>,
    paused_since: Vec<Time>,
    base: Vec<(u64, u64)>,
    /// Per link: its cut-through limit while a pause is in force (a paused
    /// link lets nothing cut through: `Link::pass_limit` is `None` then).
    pass_limit: Vec<Option<crate::units::Limit>>,
    deadlock_check: Time,
    check_pending: bool,
    /// The ports found waiting on each other at the last check, with their
    /// pause counts then.
    stuck: Vec<(LinkId, u64)>,
    /// In-band telemetry, when the switches stamp it (`switches.int`).
    pub int: Option<Box<IntTable>>,
}

impl Sim {
    /// Gives the switches of `spec` their memory (after the links and the
    /// routers' components are built): the queues of their output links
    /// become buffered, with PFC their input links pausable. `max_packet`:
    /// the largest packet of the run (for the headroom).
    pub fn install_switches(&mut self, spec: &SwitchesSpec, max_packet: u64) -> Res<()> {
        let n = self.links.len();
        let mut sw = Switches {
            mmus: Vec::with_capacity(spec.nodes.len()),
            out_port: vec![(NONE, 0); n],
            in_port: vec![(NONE, 0); n],
            out_links: Vec::with_capacity(spec.nodes.len()),
            in_links: Vec::with_capacity(spec.nodes.len()),
            pause_delay: vec![Time::ZERO; n],
            pass_limit: vec![None; n],
            pauses: vec![0; n],
            paused_ns: vec![0; n],
            paused_since: vec![Time::ZERO; n],
            base: Vec::new(),
            deadlock_check: spec.deadlock_check,
            check_pending: false,
            stuck: Vec::new(),
            int: spec.int.then(|| Box::new(IntTable::new(n))),
        };
        let (mut outs_of, mut ins_of) = (vec![Vec::new(); self.nodes.len()], vec![Vec::new(); self.nodes.len()]);
        for l in &self.links {
            outs_of[l.from.idx()].push(l.id);
            ins_of[l.to.idx()].push(l.id);
        }
        for &node in &spec.nodes {
            let m = sw.mmus.len() as u32;
            let outs = std::mem::take(&mut outs_of[node]);
            let ins = std::mem::take(&mut ins_of[node]);
            let name = &self.nodes[node].name;
            if outs.len().max(ins.len()) >= NO_PORT as usize {
                return Err(ScenarioError {
                    path: "switches.nodes".into(),
                    value: format!("{name:?}"),
                    expected: format!("a switch of fewer than {NO_PORT} ports"),
                });
            }
            if !self.nodes[node].comps.is_empty() {
                return Err(ScenarioError {
                    path: "switches.nodes".into(),
                    value: format!("{name:?}"),
                    expected: "switches without router components (components hold and release packets \
                               outside the switch's memory)"
                        .into(),
                });
            }
            for (p, &l) in outs.iter().enumerate() {
                sw.out_port[l.idx()] = (m, p as u16);
                self.links[l.idx()].buffered = true;
            }
            let pfc = match spec.pfc {
                None => None,
                Some(pfc) => {
                    let mut headrooms = Vec::with_capacity(ins.len());
                    for (p, &l) in ins.iter().enumerate() {
                        sw.in_port[l.idx()] = (m, p as u16);
                        sw.pause_delay[l.idx()] = self.pause_delay(l, &outs);
                        let link = &mut self.links[l.idx()];
                        link.pausable = true;
                        headrooms.push(
                            pfc.headroom
                                .unwrap_or_else(|| auto_headroom(link.rate.0, link.delay.0, max_packet)),
                        );
                    }
                    check_room(spec, name, &headrooms)?;
                    Some((pfc, headrooms))
                }
            };
            sw.mmus.push(Mmu::new(spec.buffer, spec.alpha, outs.len(), pfc));
            sw.out_links.push(outs);
            sw.in_links.push(if spec.pfc.is_some() { ins } else { Vec::new() });
        }
        self.switches = Some(Box::new(sw));
        Ok(())
    }

    /// How long a pause frame for `link` takes from the switch at its far
    /// end to its transmitter: the reverse link's propagation delay and the
    /// frame's serialization at its rate (the forward link's, if the link
    /// has no reverse). `outs`: the links out of that switch.
    fn pause_delay(&self, link: LinkId, outs: &[LinkId]) -> Time {
        let l = &self.links[link.idx()];
        let back = outs
            .iter()
            .map(|r| &self.links[r.idx()])
            .find(|r| r.to == l.from)
            .unwrap_or(l);
        back.delay + back.rate.tx_time(PAUSE_FRAME)
    }

    /// An arrival (in slab slot `h`) at an output queue of a switch with a
    /// memory: admitted by the memory (else dropped, counted at the queue),
    /// then cut through where that changes nothing ([`Mmu::passes`]), or
    /// offered to the discipline and accounted. `from`: the link it came in
    /// by.
    #[inline(never)]
    pub(super) fn enqueue_buffered<const T: bool>(&mut self, link: LinkId, h: u32, from: Option<LinkId>) {
        let sw = self.switches.as_deref().expect("a buffered link has its switch");
        let (m, out) = sw.out_port[link.idx()];
        let inp = from
            .map(|f| sw.in_port[f.idx()])
            .filter(|&(im, _)| im == m)
            .map_or(NO_PORT, |(_, p)| p);
        let size = self.slab.get(h).size;
        let mmu = &sw.mmus[m as usize];
        let refused = mmu.admit(inp, out, size);
        if refused.is_none() && mmu.passes(inp, size) && self.passes::<T>(link, size) {
            if sw.int.is_some() {
                self.stamp_int(link, h);
            }
            self.pass::<T>(link, h, size);
            return;
        }
        let mut pkt = self.slab.take(h);
        pkt.in_port = inp;
        if let Some(why) = refused {
            if T {
                self.tap_dropped(link, &pkt, why);
            }
            let now = self.now();
            let l = &mut self.links[link.idx()];
            l.count_arrival(now);
            l.stats.count_drop(why);
            self.counters.dropped += 1;
            return;
        }
        if T && self.taps.as_deref().is_some_and(|t| t.on(link)) {
            self.offer::<true, true>(link, pkt);
        } else {
            self.offer::<false, true>(link, pkt);
        }
        self.kick::<T>(link);
    }

    /// After the discipline of buffered `link` took (`kept`) or refused the
    /// arrival `uid` (`size` bytes from input `inp`), with the drops it made
    /// in the engine's drop buffer: the switch's accounts, and the pause or
    /// resume frames they call for.
    pub(super) fn buffered_in(&mut self, link: LinkId, uid: u64, inp: u16, size: u32, kept: bool) {
        let sw = self.switches.as_deref_mut().expect("a buffered link has its switch");
        let (m, out) = sw.out_port[link.idx()];
        let mmu = &mut sw.mmus[m as usize];
        let pause = kept && mmu.enqueued(inp, out, size);
        let mut resume = Vec::new();
        for (p, _) in &self.drop_buf {
            if (kept || p.uid != uid) && mmu.left(p.in_port, out, p.size) {
                resume.push(p.in_port);
            }
        }
        if pause {
            self.send_pfc(m, inp, true);
        }
        for p in resume {
            self.send_pfc(m, p, false);
        }
    }

    /// After buffered `link`'s discipline gave up `sent` (if any) for the
    /// transmitter and dropped what is in the engine's drop buffer.
    pub(super) fn buffered_out(&mut self, link: LinkId, sent: Option<&Packet>) {
        let sw = self.switches.as_deref_mut().expect("a buffered link has its switch");
        let (m, out) = sw.out_port[link.idx()];
        let mmu = &mut sw.mmus[m as usize];
        let mut resume = Vec::new();
        for p in self.drop_buf.iter().map(|d| &d.0).chain(sent) {
            if mmu.left(p.in_port, out, p.size) {
                resume.push(p.in_port);
            }
        }
        for p in resume {
            self.send_pfc(m, p, false);
        }
        let sw = self.switches.as_deref_mut().expect("switches");
        if let (Some(int), Some(p)) = (sw.int.as_deref_mut(), sent) {
            let l = &self.links[link.idx()];
            int.depart(link.0, l.rate, self.sched.now(), l.qdisc.backlog_bytes(), p);
        }
    }

    /// The packet in slot `h` cuts through telemetry-capable `link`'s
    /// empty queue: the port stamps it as it would at a dequeue.
    #[cold]
    fn stamp_int(&mut self, link: LinkId, h: u32) {
        let sw = self.switches.as_deref_mut().expect("switches");
        let int = sw.int.as_deref_mut().expect("telemetry");
        let l = &self.links[link.idx()];
        int.depart(link.0, l.rate, self.sched.now(), 0, self.slab.get(h));
    }

    /// Switch `m`'s input port `port` sends a pause (`on`) or resume frame
    /// to the transmitter feeding it.
    fn send_pfc(&mut self, m: u32, port: u16, on: bool) {
        let sw = self.switches.as_deref().expect("switches");
        let link = sw.in_links[m as usize][port as usize];
        let at = self.now() + sw.pause_delay[link.idx()];
        self.sched.schedule(at, Ev::Pfc(link, on));
    }

    /// A PFC frame reaches `link`'s transmitter.
    pub(super) fn pfc_frame<const T: bool>(&mut self, link: LinkId, on: bool) {
        let now = self.now();
        let sw = self.switches.as_deref_mut().expect("switches");
        let (l, i) = (&mut self.links[link.idx()], link.idx());
        if on && !l.paused {
            sw.pass_limit[i] = l.pass_limit.take();
            sw.pauses[i] += 1;
            sw.paused_since[i] = now;
        } else if !on && l.paused {
            l.pass_limit = sw.pass_limit[i].take();
            sw.paused_ns[i] += (now - sw.paused_since[i]).0;
        }
        l.paused = on;
        if on {
            if !sw.check_pending {
                sw.check_pending = true;
                let at = now + sw.deadlock_check;
                self.sched.schedule(at, Ev::PfcCheck);
            }
        } else {
            self.kick::<T>(link);
        }
    }

    /// The periodic deadlock check (see the module doc).
    pub(super) fn pfc_check(&mut self) {
        let now = self.now();
        let stuck = self.stuck_ports();
        let sw = self.switches.as_deref_mut().expect("switches");
        let snapshot: Vec<(LinkId, u64)> = stuck.iter().map(|&l| (l, sw.pauses[l.idx()])).collect();
        sw.check_pending = false;
        if !snapshot.is_empty() && snapshot == sw.stuck {
            let e = self.deadlock(&stuck);
            self.fault = Some(e);
            self.end = now;
            return;
        }
        sw.stuck = snapshot;
        if self.links.iter().any(|l| l.paused) {
            sw.check_pending = true;
            self.sched.schedule(now + sw.deadlock_check, Ev::PfcCheck);
        }
    }

    /// Brings the paused time of the links paused now up to `t` (at the
    /// start of the measurement window, `window`: then the counters are its
    /// base).
    pub(super) fn settle_pauses(&mut self, t: Time, window: bool) {
        let Some(sw) = self.switches.as_deref_mut() else {
            return;
        };
        for i in (0..self.links.len()).filter(|&i| self.links[i].paused) {
            sw.paused_ns[i] += (t - sw.paused_since[i]).0;
            sw.paused_since[i] = t;
        }
        if window {
            sw.base = sw.pauses.iter().copied().zip(sw.paused_ns.iter().copied()).collect();
        }
    }

    /// Each link's pause frames and paused time (ns) over the measurement
    /// window, where switches run PFC.
    pub fn pause_counts(&self) -> Option<Vec<(u64, u64)>> {
        let sw = self.switches.as_deref().filter(|s| s.mmus.iter().any(Mmu::lossless))?;
        let now = sw.pauses.iter().copied().zip(sw.paused_ns.iter().copied());
        Some(match sw.base.is_empty() {
            true => now.collect(),
            false => now.zip(&sw.base).map(|((p, t), &(bp, bt))| (p - bp, t - bt)).collect(),
        })
    }

    /// The paused links whose switch holds their bytes only in output
    /// queues that are themselves paused and in the same plight: the
    /// largest such set (in link order). Nothing in it can move unless a
    /// threshold moves.
    fn stuck_ports(&self) -> Vec<LinkId> {
        let sw = self.switches.as_deref().expect("switches");
        let mut inside: Vec<bool> = self
            .links
            .iter()
            .map(|l| l.paused && sw.in_port[l.id.idx()].0 != NONE)
            .collect();
        loop {
            let mut changed = false;
            for i in 0..inside.len() {
                if inside[i] && !self.waits_only_on(LinkId(i as u32), &inside) {
                    inside[i] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        (0..inside.len())
            .filter(|&i| inside[i])
            .map(|i| LinkId(i as u32))
            .collect()
    }

    /// Whether the bytes paused `link` has in its switch all wait at output
    /// links in `inside` (and there are some).
    fn waits_only_on(&self, link: LinkId, inside: &[bool]) -> bool {
        let sw = self.switches.as_deref().expect("switches");
        let (m, p) = sw.in_port[link.idx()];
        let mmu = &sw.mmus[m as usize];
        let mut some = false;
        for (o, out) in sw.out_links[m as usize].iter().enumerate() {
            if mmu.waiting(p, o as u16) > 0 {
                if !inside[out.idx()] {
                    return false;
                }
                some = true;
            }
        }
        some
    }

    /// The error that ends a deadlocked run: a cycle of the stuck ports,
    /// each waiting on the next.
    fn deadlock(&self, stuck: &[LinkId]) -> SimError {
        let sw = self.switches.as_deref().expect("switches");
        let mut inside = vec![false; self.links.len()];
        for l in stuck {
            inside[l.idx()] = true;
        }
        let next = |l: LinkId| {
            let (m, p) = sw.in_port[l.idx()];
            let mmu = &sw.mmus[m as usize];
            sw.out_links[m as usize]
                .iter()
                .enumerate()
                .find(|(o, out)| inside[out.idx()] && mmu.waiting(p, *o as u16) > 0)
                .map(|(_, &out)| out)
                .expect("a stuck port waits on another")
        };
        let mut path = vec![stuck[0]];
        let cycle = loop {
            let n = next(*path.last().expect("non-empty"));
            if let Some(at) = path.iter().position(|&l| l == n) {
                break &path[at..];
            }
            path.push(n);
        };
        let names: Vec<String> = cycle
            .iter()
            .map(|l| {
                let link = &self.links[l.idx()];
                format!("{} (paused since t = {})", link.name, sw.paused_since[l.idx()])
            })
            .collect();
        SimError(format!(
            "PFC deadlock at t = {}: a cycle of {} paused ports, each waiting for the next to move: {} -> back to \
             the first ({} ports stuck in all, unchanged for {}); break the cycle of routes or give the switches \
             more headroom or buffer",
            self.now(),
            cycle.len(),
            names.join(" -> "),
            stuck.len(),
            sw.deadlock_check,
        ))
    }
}

/// Refuses a buffer that the headroom of the switch's input ports (and a
/// fixed XOFF per port) would not leave room in.
fn check_room(spec: &SwitchesSpec, name: &str, headrooms: &[u64]) -> Res<()> {
    let total: u64 = headrooms.iter().sum();
    let ports = format!(
        "the headroom of {name}'s {} input ports ({})",
        headrooms.len(),
        size_str(total)
    );
    let err = match spec.pfc.expect("PFC").xoff {
        Xoff::Static(x) if total + x >= spec.buffer => ScenarioError {
            path: "switches.pfc.xoff".into(),
            value: format!("{:?}", size_str(x)),
            expected: format!("an xoff below the buffer ({}) less {ports}", size_str(spec.buffer)),
        },
        Xoff::Dynamic(_) if total >= spec.buffer => ScenarioError {
            path: "switches.buffer".into(),
            value: format!("{:?}", size_str(spec.buffer)),
            expected: format!("a buffer larger than {ports}"),
        },
        _ => return Ok(()),
    };
    Err(err)
}
