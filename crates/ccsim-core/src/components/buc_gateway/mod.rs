//! The BUC gateway with RFCN, as a router component: per output port, it keeps
//! a BUC state for every TCP conversation whose data leave by that port, drives
//! it with the port's data arrivals and the conversation's ACKs passing the
//! node the other way, and writes the computed window into those ACKs.
//!
//! Source: Ziegler & Clausen, "Congestion avoidance with BUC (buffer utilization
//! control) gateways and RFCN (reverse feedback congestion notification)", IEEE
//! IPCCC 1997: §2.1 (forward and backward queue of a conversation,
//! `min(field, window)` at every gateway), §2.2 (RFCN: silly-window avoidance,
//! the MSS learnt from the data, window scaling, shrinking), §3.2 (TBU and
//! `TQL = TBU / N`, updated at conversation setup and release), §4 (only TCP
//! conversations are controlled; a conversation idle for "some seconds" is
//! terminated). The state machine and
//! window law are in [`super::buc`]. Model page `docs/models/buc-rfcn.md`; the
//! labels A3, A5, A9, A12, A13, A17 below are its "Modelling decisions".
//!
//! The per-conversation queues, their fair-queueing service and the shared
//! buffer with longest-queue drop are the port's queue discipline (`kind =
//! "fq"`, [`crate::qdisc::fq`]); this component only reads the per-flow backlog
//! of the port through the node's queue view, so it works over any discipline
//! (a FIFO under BUC is an ablation the paper did not run).
//!
//! Where this implementation decides what the paper leaves open:
//!
//! * A conversation is a flow id (both directions of a TCP connection share it:
//!   its data make the forward queue at the port they leave by, its ACKs the
//!   backward queue at theirs). Only TCP data packets drive BUC; datagrams and
//!   ACKs queued at a port are other conversations, never controlled.
//! * An *arrival* at a controlled port is a data packet's `Enqueued` event, or
//!   its drop by the discipline on arrival (reasons `overflow`, `early`,
//!   `forced`); a queued packet pushed out later (`pushout`) is a departure, not
//!   an arrival (A5: dropped arrivals count). The queue length `Q` is the
//!   conversation's backlog after the whole queue operation, not counting the
//!   packet in transmission (A3); `measure = "before"` subtracts the arrival.
//! * `N` counts, per port, the TCP conversations that have a BUC state there,
//!   controlled or not, from their first data arrival (A12, A17); `TQL = TBU / N`
//!   packets, real-valued, used from the next arrival on (it never restarts an
//!   epoch). TBU given in bytes is converted with `packet_size`.
//! * Termination (§4, A9): a conversation whose forward queue has stayed empty,
//!   with no arrival, for `idle` seconds loses its state; `N` drops. A later
//!   packet starts a new conversation (uncontrolled, max_adv forgotten).
//! * RFCN acts on every ACK of a controlled conversation the node forwards, on
//!   whichever port it leaves (the backward queue is wherever the ACK goes), at
//!   the moment it arrives there (ACKs already queued keep their value, so the
//!   first ACK after t_e^i carries W_i; model page, "Modelling decisions"). The
//!   field becomes `min(field, W_cur · MSS)` bytes, MSS being the largest
//!   payload seen in the conversation's data; `max_adv` is the receiver's field
//!   over MSS, before the rewrite. `W_cur ≥ 1`, so the value written is at
//!   least one MSS (silly-window avoidance). ccsim's window field is an unscaled
//!   byte count (no SYN, no window-scale option), so there is no scale to apply;
//!   shrinking is the sender's matter (it honours every ACK).
//! * The ACK's path is checked at build time: a TCP flow whose data cross a
//!   controlled port but whose ACKs do not pass the node cannot be signalled,
//!   and the scenario is rejected.

use super::buc::{Conv, Law, Rounding, State};
use crate::cfg::{Res, Tab};
use crate::network::Network;
use crate::packet::{FlowId, Kind, LinkId, NodeId, Packet};
use crate::qdisc::DropReason;
use crate::router::{CompCtx, Component, LogRow, QueueEvent, QueueView, Verdict};
use crate::tcp::INFINITE;
use crate::units::{BufferSize, Time};
use serde_json::Value;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Configuration (fixed for the run).
#[derive(Clone, Debug)]
pub struct Params {
    /// Output links of the node where BUC runs (each with its own N and TQL).
    pub ports: Vec<LinkId>,
    /// Target buffer utilization TBU of each port, packets (> 0).
    pub tbu: f64,
    /// `W_init`, packets (≥ 1).
    pub w_init: u64,
    pub law: Law,
    /// A conversation whose queue stays empty this long is terminated.
    pub idle: Time,
    /// Measure Q before the arrival is queued (A3 sensitivity).
    pub measure_before: bool,
    /// While uncontrolled, W_init follows each ACK's window field (§4 footnote 10).
    pub w_init_from_ack: bool,
    /// Keep the event log (queue lengths, windows, states, TQL).
    pub events: bool,
    /// Which flows are TCP, indexed by `FlowId`.
    pub tcp: Vec<bool>,
}

/// A conversation's state at its forward port.
#[derive(Clone, Debug)]
struct Entry {
    /// Index into `ports`.
    port: usize,
    buc: Conv,
    /// Largest data payload seen, bytes (the segment size RFCN writes in).
    mss: u64,
    /// Since when the forward queue has been empty with no arrival.
    empty_since: Option<Time>,
    /// An idle check for this conversation is in the heap.
    armed: bool,
    /// Last window written into an ACK, packets (for the log).
    written: Option<f64>,
}

#[derive(Clone, Debug, Default)]
struct Stats {
    arrivals: u64,
    acks: u64,
    acks_rewritten: u64,
    initialized: u64,
    windows: u64,
    terminated: u64,
    max_conversations: u64,
    /// TCP data packets dropped at controlled ports (arrivals and victims).
    drops: u64,
    last_drop: Option<Time>,
}

/// The gateway: parameters, per-port counts and per-conversation states.
pub struct BucGateway {
    p: Params,
    /// Port index of each link id (None: not controlled).
    port_of: Vec<Option<usize>>,
    /// N per port.
    n: Vec<usize>,
    /// Per flow id.
    convs: Vec<Option<Entry>>,
    /// Idle checks: (deadline, flow), earliest first.
    idle: BinaryHeap<Reverse<(Time, u32)>>,
    log: Vec<LogRow>,
    stats: Stats,
}

impl BucGateway {
    pub fn new(p: Params) -> BucGateway {
        assert!(p.tbu > 0.0 && p.w_init >= 1, "validated by build");
        let links = p.ports.iter().map(|l| l.idx() + 1).max().unwrap_or(0);
        let mut port_of = vec![None; links];
        for (i, l) in p.ports.iter().enumerate() {
            port_of[l.idx()] = Some(i);
        }
        BucGateway {
            n: vec![0; p.ports.len()],
            convs: vec![None; p.tcp.len()],
            port_of,
            p,
            idle: BinaryHeap::new(),
            log: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// TQL of port `i` now, packets (TBU if nobody is there).
    pub fn tql(&self, i: usize) -> f64 {
        self.p.tbu / self.n[i].max(1) as f64
    }

    /// N of port `i`.
    pub fn conversations(&self, i: usize) -> usize {
        self.n[i]
    }

    /// The BUC state of flow `f`, if it has one.
    pub fn conv(&self, f: FlowId) -> Option<&Conv> {
        self.convs.get(f.idx())?.as_ref().map(|e| &e.buc)
    }

    fn port(&self, link: LinkId) -> Option<usize> {
        self.port_of.get(link.idx()).copied().flatten()
    }

    fn record(&mut self, time: Time, name: &'static str, link: Option<LinkId>, flow: Option<FlowId>, value: f64) {
        if self.p.events {
            self.log.push(LogRow {
                time,
                name,
                link,
                flow,
                value,
            });
        }
    }

    /// N of port `i` changed: log N and the new TQL.
    fn targets_changed(&mut self, now: Time, i: usize) {
        let link = Some(self.p.ports[i]);
        self.record(now, "conversations", link, None, self.n[i] as f64);
        self.record(now, "tql", link, None, self.tql(i));
    }

    /// Logs what a state-machine step changed.
    fn changes(&mut self, now: Time, f: FlowId, before: (State, u64, u64)) {
        let Some(e) = self.convs[f.idx()].as_ref() else { return };
        let (state, w, epochs) = (e.buc.state, e.buc.w_cur, e.buc.epochs);
        let link = Some(self.p.ports[e.port]);
        if epochs != before.2 {
            if before.0 == State::Uncontrolled {
                self.stats.initialized += 1;
            } else {
                self.stats.windows += 1;
            }
            self.record(now, "window", link, Some(f), w as f64);
            self.record(now, "epoch", link, Some(f), epochs as f64);
        } else if w != before.1 {
            self.record(now, "window", link, Some(f), w as f64);
        }
        if state != before.0 {
            self.record(now, "state", link, Some(f), state.code() as f64);
        }
    }

    /// A TCP data packet of `f` arrived at port `i` (queued or dropped on
    /// arrival); `q` is the flow's backlog after the queue operation.
    fn arrival(&mut self, now: Time, i: usize, f: FlowId, pkt: &Packet, q: u32, queued: bool) {
        self.stats.arrivals += 1;
        if self.convs[f.idx()].as_ref().is_some_and(|e| e.port != i) {
            return; // static routes: a flow's data leave by one port (never reached)
        }
        if self.convs[f.idx()].is_none() {
            self.convs[f.idx()] = Some(Entry {
                port: i,
                buc: Conv::new(self.p.w_init),
                mss: 0,
                empty_since: None,
                armed: false,
                written: None,
            });
            self.n[i] += 1;
            let total: usize = self.n.iter().sum();
            self.stats.max_conversations = self.stats.max_conversations.max(total as u64);
            if self.n[i] == 1 {
                self.record(now, "tbu", Some(self.p.ports[i]), None, self.p.tbu);
            }
            self.targets_changed(now, i);
        }
        let tql = self.tql(i);
        let law = self.p.law;
        let q_meas = q as f64 - (self.p.measure_before && queued) as u8 as f64;
        let e = self.convs[f.idx()].as_mut().expect("just made");
        e.mss = e.mss.max(pkt.len as u64);
        let before = (e.buc.state, e.buc.w_cur, e.buc.epochs);
        e.buc.on_data(q_meas, tql, &law);
        self.changes(now, f, before);
        self.queue_changed(now, i, f, q);
    }

    /// The backlog of `f` at port `i` is now `q` (after any queue event).
    fn queue_changed(&mut self, now: Time, i: usize, f: FlowId, q: u32) {
        let idle = self.p.idle;
        let Some(e) = self.convs[f.idx()].as_mut() else { return };
        if e.port != i {
            return;
        }
        e.empty_since = (q == 0).then_some(now);
        if q == 0 && !e.armed {
            e.armed = true;
            self.idle.push(Reverse((now + idle, f.0)));
        }
        self.record(now, "queue", Some(self.p.ports[i]), Some(f), q as f64);
    }

    /// Terminates conversations idle for `idle` (§4); re-arms the others.
    fn expire(&mut self, now: Time, cx: &CompCtx) {
        while let Some(&Reverse((deadline, flow))) = self.idle.peek() {
            if deadline > now {
                break;
            }
            self.idle.pop();
            let f = FlowId(flow);
            let Some(e) = self.convs[f.idx()].as_mut() else {
                continue;
            };
            let Some(since) = e.empty_since else {
                e.armed = false; // busy again; re-armed when it next empties
                continue;
            };
            let empty = cx.queue(self.p.ports[e.port]).is_none_or(|v| v.flow(f).packets == 0);
            if since + self.p.idle <= now && empty {
                let i = e.port;
                let link = Some(self.p.ports[i]);
                self.convs[f.idx()] = None;
                self.n[i] -= 1;
                self.stats.terminated += 1;
                self.record(now, "state", link, Some(f), -1.0);
                self.targets_changed(now, i);
            } else {
                self.idle.push(Reverse((since + self.p.idle, flow)));
            }
        }
    }

    fn arm(&self, cx: &mut CompCtx) {
        if let Some(&Reverse((t, _))) = self.idle.peek() {
            cx.wake_at(t);
        }
    }

    /// RFCN (§2.1, §2.2): an ACK of `f` about to be queued at the node; returns it
    /// with its window field lowered to the conversation's window.
    fn on_ack(&mut self, cx: &CompCtx, mut pkt: Packet) -> Packet {
        let f = pkt.flow;
        let Some(e) = self.convs.get(f.idx()).and_then(|e| e.as_ref()) else {
            return pkt;
        };
        self.stats.acks += 1;
        let link = self.p.ports[e.port];
        let q_fwd = cx.queue(link).map_or(0, |v| v.flow(f).packets);
        let mss = e.mss.max(1);
        let field = if pkt.wnd() >= INFINITE {
            f64::INFINITY
        } else {
            pkt.wnd() as f64 / mss as f64
        };
        let from_ack = self.p.w_init_from_ack;
        let e = self.convs[f.idx()].as_mut().expect("checked");
        let before = (e.buc.state, e.buc.w_cur, e.buc.epochs);
        if from_ack && e.buc.state == State::Uncontrolled && field.is_finite() {
            // §4 footnote 10: W_init = the window field of each passing ACK.
            e.buc.w_init = (field.floor() as u64).max(1);
        }
        let write = e.buc.on_ack(field, q_fwd as f64);
        let mut written = None;
        if let Some(w) = write {
            let bytes = w.saturating_mul(mss);
            if bytes < pkt.wnd() {
                pkt.set_wnd(bytes);
                self.stats.acks_rewritten += 1;
            }
            let now_pkts = pkt.wnd().min(INFINITE) as f64 / mss as f64;
            if e.written != Some(now_pkts) {
                e.written = Some(now_pkts);
                written = Some(now_pkts);
            }
        }
        self.changes(cx.now, f, before);
        if let Some(v) = written {
            self.record(cx.now, "rfcn_window", Some(link), Some(f), v);
        }
        pkt
    }
}

impl Component for BucGateway {
    fn kind(&self) -> &'static str {
        "buc"
    }

    fn on_forward(&mut self, cx: &mut CompCtx, _in_link: Option<LinkId>, _out: LinkId, pkt: Packet) -> Verdict {
        if pkt.kind != Kind::Ack {
            return Verdict::Forward(pkt);
        }
        Verdict::Forward(self.on_ack(cx, pkt))
    }

    fn on_queue(&mut self, cx: &mut CompCtx, ev: QueueEvent, pkt: &Packet, q: &QueueView) {
        let Some(i) = self.port(q.link()) else { return };
        let f = pkt.flow;
        if pkt.kind != Kind::Data || !self.p.tcp.get(f.idx()).copied().unwrap_or(false) {
            return;
        }
        let backlog = q.flow(f).packets;
        if let QueueEvent::Dropped(_) = ev {
            self.stats.drops += 1;
            self.stats.last_drop = Some(cx.now);
        }
        match ev {
            QueueEvent::Enqueued => self.arrival(cx.now, i, f, pkt, backlog, true),
            QueueEvent::Dropped(DropReason::PushOut) | QueueEvent::Dequeued => {
                self.queue_changed(cx.now, i, f, backlog)
            }
            QueueEvent::Dropped(_) => self.arrival(cx.now, i, f, pkt, backlog, false),
        }
        self.arm(cx);
    }

    fn on_wake(&mut self, cx: &mut CompCtx) {
        self.expire(cx.now, cx);
        self.arm(cx);
    }

    fn held(&self) -> u64 {
        0
    }

    fn trace(&self) -> Vec<(&'static str, f64)> {
        let controlled = self.convs.iter().flatten().filter(|e| e.buc.controlled()).count();
        vec![
            ("conversations", self.n.iter().sum::<usize>() as f64),
            ("controlled", controlled as f64),
        ]
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        let s = &self.stats;
        vec![
            ("arrivals", s.arrivals as f64),
            ("acks_seen", s.acks as f64),
            ("acks_rewritten", s.acks_rewritten as f64),
            ("initialized", s.initialized as f64),
            ("windows_computed", s.windows as f64),
            ("terminated", s.terminated as f64),
            ("max_conversations", s.max_conversations as f64),
            ("conversations_at_end", self.n.iter().sum::<usize>() as f64),
            ("data_drops", s.drops as f64),
            ("last_drop_s", s.last_drop.map_or(f64::NAN, |t| t.as_secs_f64())),
        ]
    }

    fn log(&self) -> &[LogRow] {
        &self.log
    }
}

// ----- scenario

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("ports", "BUC: \"all\" or output link names"),
    ("packet_size", "BUC: packet size converting a tbu in bytes to packets"),
    ("tbu", "BUC: the buffer"),
    ("w_init", "BUC: initial window"),
    ("up", "BUC: window increase factor"),
    ("down", "BUC: window decrease factor"),
    ("idle", "BUC: idle time before a window is dropped"),
    ("rounding", "BUC: rounding of windows"),
    ("measure", "BUC: measure before or after the queue"),
    ("w_init_from_ack", "BUC: take the initial window from the ACK"),
    ("events", "BUC: keep an event log (timeseries component_events)"),
];

/// Reads `[[components]] kind = "buc"` for `node`: `ports` ("all" output links
/// of the node, default, or a list of their names), `tbu` (packets "60pkt" or a
/// size, default "60000B"), `packet_size` (converts a TBU in bytes, default
/// "1000B"), `w_init` (packets, default 64), `up` (1.25), `down` (0.5), `idle`
/// ("5s"), `rounding` ("half_up" or "floor"), `measure` ("after" or "before"),
/// `w_init_from_ack` (false), `events` (false: keep the event log).
pub fn build(t: &mut Tab, net: &dyn Network, node: NodeId) -> Res<BucGateway> {
    t.docs(DOCS);
    let ports = read_ports(t, net, node)?;
    let tbu = read_tbu(t)?;
    let w_init = t.uint("w_init", Some(64), 1, u32::MAX as u64)?;
    let (law, idle) = read_law(t)?;
    let measure_before = t.choice("measure", Some("after"), &["after", "before"])? == "before";
    let w_init_from_ack = t.boolean("w_init_from_ack", false)?;
    let events = t.boolean("events", false)?;
    let tcp: Vec<bool> = (0..net.flow_count())
        .map(|i| net.flow(FlowId(i as u32)).kind == "tcp")
        .collect();
    check_ack_paths(t, net, node, &ports)?;
    Ok(BucGateway::new(Params {
        ports,
        tbu,
        w_init,
        law,
        idle,
        measure_before,
        w_init_from_ack,
        events,
        tcp,
    }))
}

/// `ports`: the output links of `node` BUC controls ("all", or a list of
/// their names; at least one), written back as given or as "all".
fn read_ports(t: &mut Tab, net: &dyn Network, node: NodeId) -> Res<Vec<LinkId>> {
    let node_name = net.node_name(node);
    let outputs: Vec<LinkId> = net.outputs(node);
    let names = super::quoted(outputs.iter().map(|&l| net.link(l).name));
    let ports = match t.raw("ports") {
        None => outputs.clone(),
        Some(Value::String(s)) if s == "all" => outputs.clone(),
        Some(v @ Value::Array(a)) if !a.is_empty() => {
            let mut ports = Vec::new();
            for x in a {
                let l = outputs
                    .iter()
                    .find(|&&l| Some(net.link(l).name) == x.as_str())
                    .ok_or_else(|| {
                        t.error(
                            "ports",
                            v,
                            format!("\"all\" or a list of output links of {node_name:?}: {names}"),
                        )
                    })?;
                if !ports.contains(l) {
                    ports.push(*l);
                }
            }
            ports
        }
        Some(v) => {
            return Err(t.error(
                "ports",
                v,
                format!("\"all\" or a list of output links of {node_name:?}: {names}"),
            ))
        }
    };
    if ports.is_empty() {
        return Err(t.error(
            "ports",
            &Value::String("all".into()),
            format!("a node with output links ({node_name:?} has none)"),
        ));
    }
    let canon = match t.raw("ports") {
        Some(v @ Value::Array(_)) => v.clone(),
        _ => Value::String("all".into()),
    };
    t.put("ports", canon);
    Ok(ports)
}

/// `packet_size` and `tbu`: the target buffer use in packets (a `tbu` in bytes
/// divided by `packet_size`).
fn read_tbu(t: &mut Tab) -> Res<f64> {
    let packet_size = t.size("packet_size", Some("1000B"))?;
    if packet_size == 0 {
        return Err(t.error(
            "packet_size",
            &Value::from(0),
            "a positive packet size such as \"1000B\"",
        ));
    }
    Ok(match t.buffer("tbu", Some("60000B"))? {
        BufferSize::Packets(n) if n > 0 => n as f64,
        BufferSize::Bytes(b) if b > 0 => b as f64 / packet_size as f64,
        _ => {
            return Err(t.error(
                "tbu",
                &t.out["tbu"].clone(),
                "a positive target in packets (\"60pkt\") or bytes (\"60000B\")",
            ))
        }
    })
}

/// `up`, `down`, `idle` and `rounding`: the window law and the idle time after
/// which a window is dropped.
fn read_law(t: &mut Tab) -> Res<(Law, Time)> {
    let up = t.float("up", Some(1.25), 1.0, 1e6)?;
    let down = t.float("down", Some(0.5), 1e-6, 1.0)?;
    let idle = t.time("idle", Some("5s"))?;
    if idle == Time::ZERO {
        return Err(t.error("idle", &Value::from("0s"), "a positive time such as \"5s\""));
    }
    let rounding = match t.choice("rounding", Some("half_up"), &["half_up", "floor"])?.as_str() {
        "floor" => Rounding::Floor,
        _ => Rounding::HalfUp,
    };
    Ok((Law { up, down, rounding }, idle))
}

/// RFCN needs the ACKs of every TCP flow whose data BUC controls: each such
/// flow's ACKs must pass through `node`.
fn check_ack_paths(t: &Tab, net: &dyn Network, node: NodeId, ports: &[LinkId]) -> Res<()> {
    let node_name = net.node_name(node);
    for f in (0..net.flow_count()).map(|i| net.flow(FlowId(i as u32))) {
        if f.kind != "tcp" {
            continue;
        }
        let data = net.path(f.src, f.dst);
        if let Some(&l) = data.iter().find(|l| ports.contains(l)) {
            let acks = net.path(f.dst, f.src);
            if !acks.iter().any(|&a| net.link(a).from == node) {
                return Err(t.error(
                    "ports",
                    &t.out["ports"].clone(),
                    format!(
                        "ports whose TCP flows send their ACKs back through {node_name:?} (RFCN rewrites \
                         them there): the data of flow {:?} leave by {:?} but its ACKs do not pass {node_name:?}",
                        f.name,
                        net.link(l).name
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
