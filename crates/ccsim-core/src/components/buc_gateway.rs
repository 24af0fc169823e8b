//! The BUC gateway with RFCN, as a router component: per output port, it keeps
//! a BUC state for every TCP conversation whose data leave by that port, drives
//! it with the port's data arrivals and the conversation's ACKs passing the
//! node the other way, and writes the computed window into those ACKs.
//!
//! Source: Ziegler & Clausen, IPCCC 1997 (`papers/buc-rfcn-gateway.txt`): §2.1
//! (forward and backward queue of a conversation, `min(field, window)` at every
//! gateway), §2.2 (RFCN: silly-window avoidance, the MSS learnt from the data,
//! window scaling, shrinking), §3.2 (TBU and `TQL = TBU / N`, updated at
//! conversation setup and release), §4 (only TCP conversations are controlled;
//! a conversation idle for "some seconds" is terminated). Spec:
//! `specs/buc_rfcn.md` §2–§6 and A3, A5, A9, A12, A13, A17; the state machine and
//! window law are in [`super::buc`]; model page `docs/models/buc-rfcn.md`.
//!
//! The per-conversation queues, their fair-queueing service and the shared
//! buffer with longest-queue drop are the port's queue discipline (`kind =
//! "fq"`, [`crate::qdisc::fq`]); this component only reads the per-flow backlog
//! of the port through the node's queue view, so it works over any discipline
//! (a FIFO under BUC is an ablation the paper did not run).
//!
//! Where this implementation decides what the paper and spec leave open:
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
//!   the moment it arrives there (spec §6.4: ACKs already queued keep their
//!   value). The field becomes `min(field, W_cur · MSS)` bytes, MSS being the
//!   largest payload seen in the conversation's data; `max_adv` is the
//!   receiver's field over MSS, before the rewrite. `W_cur ≥ 1`, so the value
//!   written is at least one MSS (silly-window avoidance). ccsim's window field is
//!   an unscaled byte count (no SYN, no window-scale option), so there is no
//!   scale to apply; shrinking is the sender's matter (it honours every ACK).
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

    /// RFCN (§2.1, §6): an ACK of `f` about to be queued at the node; returns it
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
        let field = if pkt.wnd >= INFINITE {
            f64::INFINITY
        } else {
            pkt.wnd as f64 / mss as f64
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
            if bytes < pkt.wnd {
                pkt.wnd = bytes;
                self.stats.acks_rewritten += 1;
            }
            let now_pkts = pkt.wnd.min(INFINITE) as f64 / mss as f64;
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

/// Reads `[[components]] kind = "buc"` for `node`: `ports` ("all" output links
/// of the node, default, or a list of their names), `tbu` (packets "60pkt" or a
/// size, default "60000B"), `packet_size` (converts a TBU in bytes, default
/// "1000B"), `w_init` (packets, default 64), `up` (1.25), `down` (0.5), `idle`
/// ("5s"), `rounding` ("half_up" or "floor"), `measure` ("after" or "before"),
/// `w_init_from_ack` (false), `events` (false: keep the event log).
pub fn build(t: &mut Tab, net: &dyn Network, node: NodeId) -> Res<BucGateway> {
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

    let packet_size = t.size("packet_size", Some("1000B"))?;
    if packet_size == 0 {
        return Err(t.error(
            "packet_size",
            &Value::from(0),
            "a positive packet size such as \"1000B\"",
        ));
    }
    let tbu = match t.buffer("tbu", Some("60000B"))? {
        BufferSize::Packets(n) if n > 0 => n as f64,
        BufferSize::Bytes(b) if b > 0 => b as f64 / packet_size as f64,
        _ => {
            return Err(t.error(
                "tbu",
                &t.out["tbu"].clone(),
                "a positive target in packets (\"60pkt\") or bytes (\"60000B\")",
            ))
        }
    };
    let w_init = t.uint("w_init", Some(64), 1, u32::MAX as u64)?;
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
    let measure_before = t.choice("measure", Some("after"), &["after", "before"])? == "before";
    let w_init_from_ack = t.boolean("w_init_from_ack", false)?;
    let events = t.boolean("events", false)?;

    // RFCN needs the ACKs of every TCP flow whose data BUC controls.
    let tcp: Vec<bool> = (0..net.flow_count())
        .map(|i| net.flow(FlowId(i as u32)).kind == "tcp")
        .collect();
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
    Ok(BucGateway::new(Params {
        ports,
        tbu,
        w_init,
        law: Law { up, down, rounding },
        idle,
        measure_before,
        w_init_from_ack,
        events,
        tcp,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REV: LinkId = LinkId(0);
    const FWD: LinkId = LinkId(1);
    const MSS: u64 = 960;
    const NODE: NodeId = NodeId(0);

    fn gateway(flows: usize, tbu: f64) -> BucGateway {
        BucGateway::new(Params {
            ports: vec![FWD],
            tbu,
            w_init: 64,
            law: Law::PAPER,
            idle: Time::from_secs(5),
            measure_before: false,
            w_init_from_ack: false,
            events: true,
            tcp: vec![true; flows],
        })
    }

    /// Drives a gateway with explicit times and real queue views of the
    /// forward port (link 1) and the backward port (link 0).
    struct Bench {
        g: BucGateway,
        now: Time,
        views: Vec<Option<Box<QueueView>>>,
        uid: u64,
        wake: Option<Time>,
    }

    impl Bench {
        fn new(g: BucGateway) -> Bench {
            Bench {
                g,
                now: Time::ZERO,
                views: vec![
                    Some(Box::new(QueueView::new(NODE, REV))),
                    Some(Box::new(QueueView::new(NODE, FWD))),
                ],
                uid: 0,
                wake: None,
            }
        }
        fn data(&mut self, flow: u32) -> Packet {
            self.uid += 1;
            let mut p = Packet::new(self.uid, FlowId(flow), NodeId(5), NodeId(6), 1000, Kind::Data, self.now);
            p.len = MSS as u32;
            p
        }
        fn with<R>(&mut self, f: impl FnOnce(&mut BucGateway, &mut CompCtx, &QueueView) -> R) -> R {
            let (mut rel, mut wake) = (Vec::new(), None);
            let view = (**self.views[FWD.idx()].as_ref().unwrap()).clone();
            let r = {
                let mut cx = CompCtx::new(self.now, NODE, &self.views, &mut rel, &mut wake);
                f(&mut self.g, &mut cx, &view)
            };
            assert!(rel.is_empty(), "BUC never holds");
            if wake.is_some() {
                self.wake = wake;
            }
            r
        }
        /// A data packet of `flow` is queued at the forward port.
        fn arrive(&mut self, flow: u32) -> Packet {
            let p = self.data(flow);
            self.views[FWD.idx()].as_mut().unwrap().add(&p);
            self.with(|g, cx, v| g.on_queue(cx, QueueEvent::Enqueued, &p, v));
            p
        }
        /// The oldest packet `p` of its flow leaves (`ev`: dequeue or push-out).
        fn leave(&mut self, p: &Packet, ev: QueueEvent) {
            self.views[FWD.idx()].as_mut().unwrap().remove(p);
            self.with(|g, cx, v| g.on_queue(cx, ev, p, v));
        }
        /// A data packet of `flow` is dropped on arrival (`why`).
        fn drop_arrival(&mut self, flow: u32, why: DropReason) {
            let p = self.data(flow);
            self.with(|g, cx, v| g.on_queue(cx, QueueEvent::Dropped(why), &p, v));
        }
        /// An ACK of `flow` advertising `wnd` bytes passes; returns the field after.
        fn ack(&mut self, flow: u32, wnd: u64) -> u64 {
            self.uid += 1;
            let mut a = Packet::new(self.uid, FlowId(flow), NodeId(6), NodeId(5), 40, Kind::Ack, self.now);
            a.wnd = wnd;
            self.with(|g, cx, _| match g.on_forward(cx, Some(LinkId(7)), REV, a) {
                Verdict::Forward(p) => p.wnd,
                _ => panic!("BUC forwards every ACK"),
            })
        }
        fn state(&self, flow: u32) -> Option<State> {
            self.g.conv(FlowId(flow)).map(|c| c.state)
        }
        fn fire(&mut self) {
            self.now = self.wake.take().expect("a wakeup was asked for");
            self.with(|g, cx, _| g.on_wake(cx));
        }
        fn logged(&self, name: &str, flow: Option<u32>) -> Vec<f64> {
            self.g
                .log()
                .iter()
                .filter(|r| r.name == name && r.flow.map(|f| f.0) == flow)
                .map(|r| r.value)
                .collect()
        }
    }

    /// Puts flow 0 under control: 61 packets queued with TQL 60 (one flow).
    fn controlled_bench() -> (Bench, Vec<Packet>) {
        let mut b = Bench::new(gateway(3, 60.0));
        let queued: Vec<Packet> = (0..61).map(|_| b.arrive(0)).collect();
        assert_eq!(b.state(0), Some(State::WaitAck));
        (b, queued)
    }

    #[test]
    fn tql_is_tbu_over_the_conversations_at_the_port() {
        // §3.2 / spec §4: 60 → 30 → 20 as conversations join; from their first packet (A17).
        let mut b = Bench::new(gateway(3, 60.0));
        b.arrive(0);
        assert_eq!((b.g.conversations(0), b.g.tql(0)), (1, 60.0));
        b.arrive(1);
        assert_eq!(b.g.tql(0), 30.0);
        b.arrive(1);
        b.arrive(2);
        assert_eq!((b.g.conversations(0), b.g.tql(0)), (3, 20.0));
        assert_eq!(b.logged("tql", None), vec![60.0, 30.0, 20.0]);
        assert_eq!(b.logged("tbu", None), vec![60.0]);
    }

    #[test]
    fn rfcn_writes_min_of_field_and_window_and_never_raises_it() {
        let (mut b, _) = controlled_bench();
        // W_cur = W_init = 64 packets of the learnt MSS.
        assert_eq!(b.ack(0, 300 * MSS), 64 * MSS, "lowered to the window");
        assert_eq!(b.ack(0, 20 * MSS), 20 * MSS, "a smaller field is kept");
        assert_eq!(b.ack(0, 20 * MSS + 7), 20 * MSS + 7, "not rounded either");
        assert_eq!(b.ack(0, INFINITE), 64 * MSS, "an unlimited receiver is bounded too");
        assert_eq!(b.ack(0, 0), 0, "a closed window stays closed");
        assert_eq!(b.g.stats.acks_rewritten, 2);
        assert_eq!(b.logged("rfcn_window", Some(0)).first(), Some(&64.0));
    }

    /// Spec §6: the field after RFCN is exactly min(field, W_cur · MSS), for
    /// every window the law can produce and fields on both sides of it.
    #[test]
    fn rfcn_never_raises_any_field_for_any_window() {
        let (mut b, _) = controlled_bench();
        for w in [1u64, 2, 7, 25, 38, 64, 300] {
            b.g.convs[0].as_mut().unwrap().buc.w_cur = w;
            for field in [0, 1, MSS - 1, MSS, w * MSS - 1, w * MSS, w * MSS + 1, 1 << 40, INFINITE] {
                let out = b.ack(0, field);
                assert_eq!(out, field.min(w * MSS), "W = {w}, field = {field}");
                assert!(out <= field);
            }
        }
    }

    #[test]
    fn rfcn_leaves_uncontrolled_and_unknown_conversations_alone() {
        let mut b = Bench::new(gateway(3, 60.0));
        b.arrive(1); // flow 1 known but uncontrolled (1 ≤ 60)
        assert_eq!(b.ack(1, 300 * MSS), 300 * MSS);
        assert_eq!(b.ack(2, 300 * MSS), 300 * MSS, "no state: untouched");
        assert_eq!(b.g.stats.acks_rewritten, 0);
    }

    #[test]
    fn waiting_period_uses_the_forward_queue_at_the_first_ack() {
        let (mut b, queued) = controlled_bench();
        // Serve 13 packets: Q_forward = 48 when A^w arrives → 64 − 48 = 16.
        for p in &queued[..13] {
            b.leave(p, QueueEvent::Dequeued);
        }
        b.ack(0, 64 * MSS);
        assert_eq!(b.state(0), Some(State::Waiting));
        assert_eq!(b.g.conv(FlowId(0)).unwrap().wait_left, 16);
        assert_eq!(b.logged("state", Some(0)), vec![1.0, 2.0]);
    }

    #[test]
    fn pushed_out_packets_are_not_arrivals_but_dropped_arrivals_are() {
        let (mut b, queued) = controlled_bench();
        b.ack(0, 64 * MSS); // Q = 61: waiting for 64 − 61 = 3 arrivals
        assert_eq!(b.g.conv(FlowId(0)).unwrap().wait_left, 3);
        b.leave(&queued[60], QueueEvent::Dropped(DropReason::PushOut));
        assert_eq!(b.g.conv(FlowId(0)).unwrap().wait_left, 3, "a victim is no arrival");
        b.drop_arrival(0, DropReason::Overflow);
        assert_eq!(
            b.g.conv(FlowId(0)).unwrap().wait_left,
            2,
            "A5: a dropped arrival counts"
        );
        assert_eq!(b.g.stats.drops, 2);
        assert_eq!(*b.logged("queue", Some(0)).last().unwrap(), 60.0);
    }

    #[test]
    fn q_at_the_epoch_boundary_is_after_the_arrival_or_before_with_measure_before() {
        // P^l arrives at a queue of 64: Q = 65 after it (A3), 64 before; TQL 60,
        // W_i = 64 + (60 − Q).
        for (before, w) in [(false, 59), (true, 60)] {
            let mut g = gateway(1, 60.0);
            g.p.measure_before = before;
            let mut b = Bench::new(g);
            b.arrive(0);
            b.g.convs[0].as_mut().unwrap().buc = Conv {
                state: State::Converging,
                w_prev: 64,
                w_cur: 64,
                conv_left: 1,
                max_adv: 64.0,
                epochs: 1,
                ..Conv::new(64)
            };
            let p = b.data(0);
            (0..63).for_each(|_| b.views[FWD.idx()].as_mut().unwrap().add(&p));
            b.arrive(0);
            let c = b.g.conv(FlowId(0)).unwrap();
            assert_eq!((c.state, c.w_cur), (State::WaitAck, w), "measure_before = {before}");
        }
    }

    #[test]
    fn idle_conversation_terminates_and_tql_grows_back() {
        let mut b = Bench::new(gateway(3, 60.0));
        let p0 = b.arrive(0);
        let p1 = b.arrive(1);
        assert_eq!(b.g.tql(0), 30.0);
        b.now = Time::from_secs(1);
        b.leave(&p0, QueueEvent::Dequeued); // flow 0 empty from 1 s
        assert_eq!(b.wake, Some(Time::from_secs(6)));
        b.now = Time::from_secs(3);
        let p0 = b.arrive(0); // an arrival before the deadline: not idle
        b.now = Time::from_secs(4);
        b.leave(&p0, QueueEvent::Dequeued); // empty again from 4 s
        b.fire(); // at 6 s: re-armed for 9 s
        assert_eq!((b.now, b.state(0)), (Time::from_secs(6), Some(State::Uncontrolled)));
        assert_eq!(b.wake, Some(Time::from_secs(9)));
        b.fire();
        assert_eq!(b.now, Time::from_secs(9));
        assert_eq!(b.state(0), None, "terminated after 5 s empty");
        assert_eq!((b.g.conversations(0), b.g.tql(0)), (1, 60.0));
        assert_eq!(b.g.stats.terminated, 1);
        assert_eq!(
            b.ack(0, 300 * MSS),
            300 * MSS,
            "a terminated conversation is not rewritten"
        );
        // Flow 1 still has its packet queued: never idle.
        assert_eq!(b.state(1), Some(State::Uncontrolled));
        b.leave(&p1, QueueEvent::Dequeued);
        b.arrive(0); // flow 0 comes back as a new conversation
        assert_eq!(b.g.conversations(0), 2);
        assert_eq!(b.logged("conversations", None), vec![1.0, 2.0, 1.0, 2.0]);
    }

    #[test]
    fn a_leaving_controlled_conversation_stops_being_rewritten() {
        let (mut b, queued) = controlled_bench();
        assert_eq!(b.ack(0, 300 * MSS), 64 * MSS);
        for p in &queued {
            b.leave(p, QueueEvent::Dequeued);
        }
        b.fire();
        assert_eq!(b.state(0), None);
        assert_eq!(b.logged("state", Some(0)).last(), Some(&-1.0));
        assert_eq!(b.ack(0, 300 * MSS), 300 * MSS);
    }

    #[test]
    fn non_tcp_data_and_other_ports_are_ignored() {
        let mut g = gateway(2, 60.0);
        g.p.tcp[1] = false;
        let mut b = Bench::new(g);
        b.arrive(1);
        assert_eq!(b.g.conversations(0), 0, "datagram flows get no BUC state");
        let p = b.data(0);
        let v = QueueView::new(NODE, REV);
        b.with(|g, cx, _| g.on_queue(cx, QueueEvent::Enqueued, &p, &v));
        assert_eq!(b.g.conversations(0), 0, "not a controlled port");
    }

    #[test]
    fn w_init_from_ack_follows_the_field_while_uncontrolled() {
        let mut g = gateway(1, 10.0);
        g.p.w_init_from_ack = true;
        let mut b = Bench::new(g);
        b.arrive(0);
        b.ack(0, 40 * MSS);
        (0..10).for_each(|_| {
            b.arrive(0);
        });
        let c = b.g.conv(FlowId(0)).unwrap();
        assert_eq!((c.state, c.w_cur), (State::WaitAck, 40));
    }
}
