//! Token-based Fast-TCP ACK gate ("Token F-TCP"): a router holds the ACKs of the
//! connections it bottlenecks and lets one leave per token, tokens being the
//! spare room of its forward data buffer counted in average packets.
//!
//! Source: the token-based Fast-TCP paper, an OPNET study of ACK delaying at the
//! bottleneck whose surviving text lacks title and authors (the model page
//! `docs/models/token-gate.md`, "Source", identifies it): the pseudo-code of its
//! introduction, §1.2 and §3.1, as reconstructed on the model page ("What it
//! implements" and "Modelling decisions", whose labels T2–T5 are cited below).
//!
//! ```text
//! init:      P_c = 0; L_p = packet_length; B_T = N_T = floor(Bf / L_p)
//! data in:   P_c += 1; L_p += (len − L_p)/P_c; B_T = floor(Bf / L_p);
//!            N_T = min(B_T, floor(spare / L_p))          spare = Bf − bits queued
//! data out:  N_T = min(B_T, floor(spare / L_p))
//! ACKs:      while ACK FIFO non-empty and N_T > Th: release head; N_T −= 1
//! ```
//!
//! Where this implementation decides what the paper leaves open:
//!
//! * "Data packet" = any packet that is not a pure ACK (TCP segments and
//!   datagrams), of any flow, entering (`Enqueued`) or leaving (`Dequeued`, start
//!   of transmission) the queue of the `forward` link. "Bits queued" is that
//!   queue's backlog (all packets waiting, not the one in service — the engine's
//!   queue convention), so the 27 648-bit cap of the paper is a backlog of 6.
//! * L_p is kept as an exact rational (sum of lengths / count) instead of a
//!   floating running mean, so `floor` is exact (T2/T3); the default length
//!   only matters before the first data packet, as in the running-mean formula.
//! * The release rule is evaluated on ACK arrival and after every token
//!   recomputation (T5), with the strict comparison `N_T > Th` (T4). An ACK
//!   arriving at an empty FIFO with `N_T > Th` passes at once (and takes a token).
//! * Only ACKs of *governed* flows are held: TCP flows selected by `flows` whose
//!   data path crosses the forward link. Everything else passes untouched.
//! * The gate never drops and does not enforce `Bf` itself: the physical buffer is
//!   the forward queue's own limit. `build` rejects a forward queue limit smaller
//!   than `Bf` (tokens would promise room the queue does not have); a larger or
//!   infinite limit is allowed (the backlog may then exceed `Bf` through
//!   ungoverned traffic or the overshoot described below; tokens saturate at 0).
//! * The ACK buffer is unbounded (the paper: "large enough never to drop ACKs").
//! * If L_p grows so much that `B_T ≤ Th`, no ACK is released until it shrinks:
//!   that is the algorithm as written; `build` only checks `Th < B_T` for the
//!   default length.
//! * With the paper's rule (`in_transit = "ignore"`, the default) tokens do not
//!   count packets still on their way: the cap of `B − Th + 1` packets
//!   (27 648 bits) assumes the packets clocked out by a released ACK reach the
//!   gate before the next departure (§3.1, eq. 16). When the round trip from the
//!   gate to the sender and back is longer than one service time (the paper's
//!   own Fig. 2 with 1 ms access links: 2.49 ms > 2.304 ms) the next departure
//!   hands out the same room again and the backlog overshoots.
//! * `in_transit = "count"` is ccsim's extension for that case (not in the
//!   paper). Every ACK let through *promises* the packets it will clock out, and
//!   tokens are `min(B_T, floor(spare / L_p)) − promised`. An ACK newly
//!   acknowledging `m` segments clocks out `m` packets, plus one while the
//!   sender's window grows by a segment per ACK (slow start, RFC 5681 §3.1):
//!   the gate promises `max(1, m + g)`, where `g` is learnt per flow: 1 after a data
//!   packet arrives that no promise covered, 0 after a promise lapses unkept.
//!   A governed data arrival keeps one packet of its flow's oldest promise. A
//!   promise lapses one forward service time after the unloaded arrival time of
//!   its last packet, computed from the path: the ACK's trip from the gate to
//!   the sender, the sender's link serializing the flow's promised packets in
//!   order, the data's trip back. With correct promises, releasing only while
//!   `N_T > Th` keeps backlog + promised ≤ `B − Th + 1` packets — the paper's
//!   cap — whatever the delay behind the gate. When that delay is short the two
//!   rules hold the same ACKs and give the same flows (a release made at a data
//!   arrival may wait one departure longer with promises).

use super::quoted;
use crate::cfg::{Res, Tab};
use crate::network::{LinkFacts, Network};
use crate::packet::{FlowId, Kind, LinkId, NodeId, Packet};
use crate::qdisc::Limit;
use crate::router::{CompCtx, Component, QueueEvent, QueueView, Verdict};
use crate::units::{Rate, Time};
use serde_json::Value;
use std::collections::VecDeque;

/// Configuration (fixed for the run).
#[derive(Clone, Debug)]
pub struct Params {
    /// The output link whose queue is the forward data buffer.
    pub forward: LinkId,
    /// Forward buffer capacity `Bf`, bits (> 0).
    pub buffer_bits: u64,
    /// Token threshold `Th`, tokens (packets); ACKs leave only while `N_T > Th`.
    pub threshold: u64,
    /// Default data packet length (initial `L_p`), bits (> 0).
    pub packet_bits: u64,
    /// Governed flows, indexed by `FlowId` (missing = not governed).
    pub governed: Vec<bool>,
    /// Rate of the forward link (promises lapse one service time late).
    pub forward_rate: Rate,
    /// ccsim extension (`in_transit = "count"`): the unloaded path of each governed
    /// flow between the gate and its sender, for promises (module docs). `None`
    /// is the paper's rule (`"ignore"`).
    pub promise_paths: Option<Vec<SenderPath>>,
}

/// The links between the gate and a flow's sender: `to_sender` from the gate to
/// the sender (the ACK's way), `from_sender` back (the data's way), each as
/// (rate, propagation delay) in path order.
#[derive(Clone, Debug, Default)]
pub struct SenderPath {
    pub to_sender: Vec<(Rate, Time)>,
    pub from_sender: Vec<(Rate, Time)>,
}

/// Packets an ACK let through will clock out, until `lapses`.
#[derive(Clone, Debug)]
struct Promise {
    packets: u64,
    lapses: Time,
}

/// Per-flow promise state (`in_transit = "count"`).
#[derive(Clone, Debug, Default)]
struct FlowPromises {
    /// Oldest first.
    open: VecDeque<Promise>,
    /// Highest cumulative ACK let through.
    last_ack: Option<u64>,
    /// Largest data payload seen, bytes (the segment size).
    seg: u64,
    /// The window grows by one segment per ACK (g = 1); starts true (slow start).
    growing: bool,
    /// When the sender's link finishes the packets promised so far (unloaded).
    sender_free: Time,
}

/// An ACK waiting in the ACK buffer, with its output link and arrival time.
struct HeldAck {
    pkt: Packet,
    out: LinkId,
    since: Time,
}

#[derive(Default, Debug, Clone)]
struct Stats {
    max_held: u64,
    /// ACKs that had to wait in the ACK buffer.
    held: u64,
    /// ACKs released from the ACK buffer.
    released: u64,
    /// Governed ACKs that passed without waiting.
    passed: u64,
    max_forward_bits: u64,
    max_hold: Time,
    total_hold: Time,
    /// When the first ACK had to wait.
    first_hold: Option<Time>,
    /// Promised packets that arrived / that lapsed unkept; data that no promise covered.
    promised_kept: u64,
    promised_lapsed: u64,
    unpromised: u64,
    max_promised: u64,
}

/// The gate: parameters plus the mutable token state.
pub struct TokenGate {
    p: Params,
    /// `P_c`: data packets seen entering the forward buffer.
    count: u64,
    /// Sum of their lengths, bits (L_p = sum / count once count > 0).
    sum_bits: u128,
    /// `B_T`, token capacity.
    capacity: u64,
    /// `N_T`, tokens.
    tokens: u64,
    fifo: VecDeque<HeldAck>,
    held_bytes: u64,
    /// Forward backlog at the last queue event, bytes.
    forward_bytes: u64,
    /// Per governed flow (with promises), indexed by `FlowId`.
    promises: Vec<FlowPromises>,
    /// Packets promised and not yet arrived, all flows.
    promised: u64,
    /// No promise lapses before this (a lower bound: scans happen only from then).
    next_lapse: Option<Time>,
    stats: Stats,
}

impl TokenGate {
    pub fn new(p: Params) -> TokenGate {
        assert!(p.buffer_bits > 0 && p.packet_bits > 0, "validated by build");
        let mut g = TokenGate {
            p,
            count: 0,
            sum_bits: 0,
            capacity: 0,
            tokens: 0,
            fifo: VecDeque::new(),
            held_bytes: 0,
            forward_bytes: 0,
            promises: Vec::new(),
            promised: 0,
            next_lapse: None,
            stats: Stats::default(),
        };
        if let Some(paths) = &g.p.promise_paths {
            g.promises = vec![
                FlowPromises {
                    growing: true,
                    ..FlowPromises::default()
                };
                paths.len()
            ];
        }
        g.capacity = g.packets_in(g.p.buffer_bits);
        g.tokens = g.capacity;
        g
    }

    /// `L_p` as an exact fraction (numerator, denominator) in bits.
    fn mean_len(&self) -> (u128, u128) {
        if self.count == 0 {
            (self.p.packet_bits as u128, 1)
        } else {
            (self.sum_bits, self.count as u128)
        }
    }

    /// `floor(bits / L_p)`.
    fn packets_in(&self, bits: u64) -> u64 {
        let (num, den) = self.mean_len();
        (bits as u128 * den / num) as u64
    }

    /// `N_T = min(B_T, floor(spare / L_p))`, spare = Bf − bits queued (≥ 0).
    fn recompute_tokens(&mut self) {
        let spare = self.p.buffer_bits.saturating_sub(self.forward_bytes * 8);
        self.tokens = self.capacity.min(self.packets_in(spare)).saturating_sub(self.promised);
    }

    /// A token leaves with `ack`; with promises, the packets it will clock out are
    /// promised too (module docs).
    fn take_token(&mut self, now: Time, ack: &Packet) {
        self.tokens -= 1;
        let Some(paths) = &self.p.promise_paths else { return };
        let path = &paths[ack.flow.idx()];
        let (num, den) = self.mean_len();
        let data_bytes = (num / den / 8) as u64;
        let service = self.p.forward_rate.tx_time(data_bytes);
        let f = &mut self.promises[ack.flow.idx()];
        let newly = match f.last_ack {
            Some(prev) if ack.ack <= prev => 0,
            Some(prev) if f.seg > 0 => (ack.ack - prev).div_ceil(f.seg),
            _ => 1,
        };
        f.last_ack = Some(f.last_ack.map_or(ack.ack, |a| a.max(ack.ack)));
        // At least one, as every ACK takes a token (a duplicate ACK in fast
        // recovery clocks out one packet).
        let packets = (newly + f.growing as u64).max(1);
        // Unloaded timing: the ACK to the sender, its packets serialized behind
        // the ones promised before, then back to the gate.
        let mut t = now;
        for &(rate, delay) in &path.to_sender {
            t += rate.tx_time(ack.size as u64) + delay;
        }
        let mut back = path.from_sender.iter();
        if let Some(&(rate, delay)) = back.next() {
            f.sender_free = f.sender_free.max(t) + Time(rate.tx_time(data_bytes).0 * packets);
            t = f.sender_free + delay;
        }
        for &(rate, delay) in back {
            t += rate.tx_time(data_bytes) + delay;
        }
        let lapses = t + service;
        f.open.push_back(Promise { packets, lapses });
        self.next_lapse = Some(self.next_lapse.map_or(lapses, |n| n.min(lapses)));
        self.promised += packets;
        self.tokens = self.tokens.saturating_sub(packets - 1);
        self.stats.max_promised = self.stats.max_promised.max(self.promised);
    }

    /// A governed data packet arrived: it keeps one packet of its flow's oldest promise.
    fn keep_promise(&mut self, flow: FlowId, len: u32) {
        if self.promises.is_empty() {
            return;
        }
        let f = &mut self.promises[flow.idx()];
        f.seg = f.seg.max(len as u64);
        match f.open.front_mut() {
            Some(p) => {
                p.packets -= 1;
                if p.packets == 0 {
                    f.open.pop_front();
                }
                self.promised -= 1;
                self.stats.promised_kept += 1;
            }
            None => {
                f.growing = true;
                self.stats.unpromised += 1;
            }
        }
    }

    /// Drops the promises that lapsed by `now`.
    fn lapse_promises(&mut self, now: Time) {
        if self.next_lapse.is_none_or(|t| now < t) {
            return;
        }
        for f in &mut self.promises {
            while let Some(p) = f.open.front() {
                if p.lapses > now {
                    break;
                }
                self.promised -= p.packets;
                self.stats.promised_lapsed += p.packets;
                f.growing = false;
                f.open.pop_front();
            }
        }
        self.next_lapse = self
            .promises
            .iter()
            .filter_map(|f| f.open.front())
            .map(|p| p.lapses)
            .min();
    }

    /// A data packet of `len_bits` entered the forward buffer: `P_c`, `L_p`, `B_T`.
    fn data_arrival(&mut self, len_bits: u64) {
        self.count += 1;
        self.sum_bits += len_bits as u128;
        self.capacity = self.packets_in(self.p.buffer_bits);
    }

    /// Tokens at `now`: lapsed promises dropped, `N_T` recomputed.
    fn refresh_tokens(&mut self, now: Time) {
        self.lapse_promises(now);
        self.recompute_tokens();
    }

    /// Release rule: while the ACK buffer is non-empty and `N_T > Th`, the head
    /// ACK is served and takes a token.
    fn serve(&mut self, cx: &mut CompCtx) {
        while self.tokens > self.p.threshold {
            let Some(h) = self.fifo.pop_front() else { break };
            self.take_token(cx.now, &h.pkt);
            self.held_bytes -= h.pkt.size as u64;
            let waited = cx.now.saturating_sub(h.since);
            self.stats.released += 1;
            self.stats.total_hold += waited;
            self.stats.max_hold = self.stats.max_hold.max(waited);
            cx.release(h.pkt, h.out);
        }
    }

    /// Asks to be woken when the next promise lapses (its tokens come back).
    fn arm(&self, cx: &mut CompCtx) {
        if let Some(t) = self
            .promises
            .iter()
            .filter_map(|f| f.open.front())
            .map(|p| p.lapses)
            .min()
        {
            cx.wake_at(t);
        }
    }

    fn governs(&self, f: FlowId) -> bool {
        self.p.governed.get(f.idx()).copied().unwrap_or(false)
    }

    /// Current token count `N_T`.
    pub fn tokens(&self) -> u64 {
        self.tokens
    }
    /// Current token capacity `B_T`.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
    /// ACKs in the ACK buffer.
    pub fn held_acks(&self) -> usize {
        self.fifo.len()
    }
}

impl Component for TokenGate {
    fn kind(&self) -> &'static str {
        "token_gate"
    }

    fn on_forward(&mut self, cx: &mut CompCtx, _in_link: Option<LinkId>, out: LinkId, pkt: Packet) -> Verdict {
        if pkt.kind != Kind::Ack || !self.governs(pkt.flow) {
            return Verdict::Forward(pkt);
        }
        if !self.promises.is_empty() {
            self.refresh_tokens(cx.now); // the paper's rule only decrements here
        }
        // FIFO: an ACK may only overtake nobody.
        if self.fifo.is_empty() && self.tokens > self.p.threshold {
            self.take_token(cx.now, &pkt);
            self.stats.passed += 1;
            self.arm(cx);
            return Verdict::Forward(pkt);
        }
        self.held_bytes += pkt.size as u64;
        self.fifo.push_back(HeldAck {
            pkt,
            out,
            since: cx.now,
        });
        self.stats.held += 1;
        self.stats.first_hold.get_or_insert(cx.now);
        self.stats.max_held = self.stats.max_held.max(self.fifo.len() as u64);
        Verdict::Hold
    }

    fn on_queue(&mut self, cx: &mut CompCtx, ev: QueueEvent, pkt: &Packet, q: &QueueView) {
        if q.link() != self.p.forward {
            return;
        }
        self.forward_bytes = q.backlog_bytes();
        self.stats.max_forward_bits = self.stats.max_forward_bits.max(q.backlog_bytes() * 8);
        if pkt.kind == Kind::Ack {
            return; // tokens follow data packets only
        }
        match ev {
            QueueEvent::Enqueued => {
                if self.governs(pkt.flow) {
                    self.keep_promise(pkt.flow, pkt.len);
                }
                self.data_arrival(pkt.size as u64 * 8)
            }
            QueueEvent::Dequeued => {}
            QueueEvent::Dropped(_) => return,
        }
        self.refresh_tokens(cx.now);
        self.serve(cx);
        self.arm(cx);
    }

    /// A promise lapsed: its tokens come back (ccsim extension; the paper's rule
    /// never asks for timers).
    fn on_wake(&mut self, cx: &mut CompCtx) {
        self.refresh_tokens(cx.now);
        self.serve(cx);
        self.arm(cx);
    }

    fn held(&self) -> u64 {
        self.fifo.len() as u64
    }

    fn trace(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("tokens", self.tokens as f64),
            ("token_capacity", self.capacity as f64),
            ("held_acks", self.fifo.len() as f64),
            ("held_ack_bytes", self.held_bytes as f64),
            ("forward_bits", (self.forward_bytes * 8) as f64),
            ("promised", self.promised as f64),
        ]
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        let s = &self.stats;
        let mean_hold = if s.released > 0 {
            s.total_hold.as_secs_f64() / s.released as f64
        } else {
            0.0
        };
        vec![
            ("max_held_acks", s.max_held as f64),
            ("acks_held", s.held as f64),
            ("acks_released", s.released as f64),
            ("acks_passed", s.passed as f64),
            ("max_forward_bits", s.max_forward_bits as f64),
            ("max_hold_s", s.max_hold.as_secs_f64()),
            ("mean_hold_s", mean_hold),
            ("held_at_end", self.fifo.len() as f64),
            ("first_hold_s", s.first_hold.map_or(f64::NAN, |t| t.as_secs_f64())),
            ("promised_kept", s.promised_kept as f64),
            ("promised_lapsed", s.promised_lapsed as f64),
            ("unpromised_arrivals", s.unpromised as f64),
            ("max_promised", s.max_promised as f64),
        ]
    }
}

// ----- scenario

/// Reads `[[components]] kind = "token_gate"` for `node`:
/// `forward` (output link name, required), `buffer` (Bf, size, required),
/// `threshold` (Th, packets, default 3), `packet_length` (default L_p, size,
/// default "576B"), `flows` ("all" or a list of flow names, default "all"),
/// `in_transit` ("ignore", the paper's rule, default; or "count", promises).
pub fn build(t: &mut Tab, net: &dyn Network, node: NodeId) -> Res<TokenGate> {
    let (forward, fwd_name) = read_forward(t, net, node)?;
    let (buffer_bits, packet_bits, threshold) = read_sizes(t, &forward, &fwd_name)?;
    let governed = read_governed(t, net, node, forward.id, &fwd_name)?;
    let promise_paths = read_in_transit(t, net, node, &governed)?;
    Ok(TokenGate::new(Params {
        forward: forward.id,
        buffer_bits,
        threshold,
        packet_bits,
        governed,
        forward_rate: forward.rate,
        promise_paths,
    }))
}

/// `forward`: the output link of `node` the gate watches (its facts and name).
fn read_forward<'n>(t: &mut Tab, net: &'n dyn Network, node: NodeId) -> Res<(LinkFacts<'n>, String)> {
    let node_name = net.node_name(node);
    let outputs: Vec<&str> = net.outputs(node).into_iter().map(|l| net.link(l).name).collect();
    let list = |v: &[&str]| quoted(v.iter().copied());

    let fwd_name = t.string("forward")?.ok_or_else(|| {
        t.missing(
            "forward",
            &format!("an output link of {node_name:?}: {}", list(&outputs)),
        )
    })?;
    let forward = net
        .outputs(node)
        .into_iter()
        .map(|l| net.link(l))
        .find(|l| l.name == fwd_name)
        .ok_or_else(|| {
            t.error(
                "forward",
                &Value::String(fwd_name.clone()),
                format!("an output link of {node_name:?}: {}", list(&outputs)),
            )
        })?;
    Ok((forward, fwd_name))
}

/// `buffer` (Bf), `packet_length` (L_p) and `threshold` (Th), in bits, bits and
/// packets: the token capacity B_T = floor(Bf / L_p) must exceed Th, and the
/// forward link's queue must hold Bf (the gate does not drop).
fn read_sizes(t: &mut Tab, forward: &LinkFacts, fwd_name: &str) -> Res<(u64, u64, u64)> {
    let buffer_bytes = t.size("buffer", None)?;
    let packet_bytes = t.size("packet_length", Some("576B"))?;
    if packet_bytes == 0 {
        return Err(t.error(
            "packet_length",
            &Value::from(0),
            "a positive packet length such as \"576B\"",
        ));
    }
    let (buffer_bits, packet_bits) = (buffer_bytes * 8, packet_bytes * 8);
    let capacity = buffer_bits / packet_bits;
    if capacity == 0 {
        return Err(t.error(
            "buffer",
            &Value::String(format!("{buffer_bits}bit")),
            format!("a forward buffer of at least one packet_length ({packet_bits} bit)"),
        ));
    }
    let threshold = t.uint("threshold", Some(3), 0, u32::MAX as u64)?;
    if threshold >= capacity {
        return Err(t.error(
            "threshold",
            &Value::from(threshold),
            format!(
                "a threshold below the token capacity B_T = floor(buffer / packet_length) = \
                 floor({buffer_bits} / {packet_bits}) = {capacity}, else no ACK is ever released"
            ),
        ));
    }
    let short = match forward.limit {
        Limit::Bytes(b) => (b * 8 < buffer_bits).then(|| format!("{} bit", b * 8)),
        Limit::Packets(n) => (n.saturating_mul(packet_bits) < buffer_bits).then(|| format!("{n} packets")),
        Limit::Unlimited => None,
    };
    if let Some(lim) = short {
        return Err(t.error(
            "buffer",
            &Value::String(format!("{buffer_bits}bit")),
            format!(
                "at most the queue limit of {fwd_name:?} ({lim}); the gate does not drop, \
                 so set that link's queue limit to at least the gate's buffer (or \"inf\")"
            ),
        ));
    }
    Ok((buffer_bits, packet_bits, threshold))
}

/// `flows`: the governed flows, by flow index: TCP, selected, data path across
/// the forward link (and, for a flow named, ACKs through `node`); at least one.
fn read_governed(t: &mut Tab, net: &dyn Network, node: NodeId, forward: LinkId, fwd_name: &str) -> Res<Vec<bool>> {
    let node_name = net.node_name(node);
    let crosses = |i: usize| {
        let f = net.flow(FlowId(i as u32));
        f.kind == "tcp" && net.path(f.src, f.dst).contains(&forward)
    };
    let mut governed = vec![false; net.flow_count()];
    let names: Vec<&str> = (0..net.flow_count()).map(|i| net.flow(FlowId(i as u32)).name).collect();
    match t.raw("flows") {
        None => governed.iter_mut().enumerate().for_each(|(i, g)| *g = crosses(i)),
        Some(Value::String(s)) if s == "all" => governed.iter_mut().enumerate().for_each(|(i, g)| *g = crosses(i)),
        Some(v @ Value::Array(a)) => {
            for x in a {
                let name = x.as_str().unwrap_or_default();
                let i = names.iter().position(|n| *n == name).ok_or_else(|| {
                    let shown: Vec<&str> = names.iter().take(8).copied().collect();
                    t.error(
                        "flows",
                        v,
                        format!(
                            "\"all\" or a list of flow names from: {}",
                            quoted(shown.iter().copied())
                        ),
                    )
                })?;
                if !crosses(i) {
                    return Err(t.error(
                        "flows",
                        x,
                        format!("TCP flows whose data cross {fwd_name:?} (flow {name:?} does not)"),
                    ));
                }
                let f = net.flow(FlowId(i as u32));
                if !net.path(f.dst, f.src).iter().any(|&l| net.link(l).from == node) {
                    return Err(t.error(
                        "flows",
                        x,
                        format!("flows whose ACKs pass through {node_name:?} (those of {name:?} do not)"),
                    ));
                }
                governed[i] = true;
            }
        }
        Some(v) => return Err(t.error("flows", v, "\"all\" or a list of flow names")),
    }
    let canon = match t.raw("flows") {
        Some(v @ Value::Array(_)) => v.clone(),
        _ => Value::String("all".into()),
    };
    t.put("flows", canon);
    if !governed.contains(&true) {
        return Err(t.error(
            "flows",
            &t.out["flows"].clone(),
            format!("at least one TCP flow whose data cross {fwd_name:?} (the gate would govern nothing)"),
        ));
    }
    Ok(governed)
}

/// `in_transit`: with "count", each governed flow's path to and from its
/// sender (for the promises of tokens in transit); None with "ignore".
fn read_in_transit(t: &mut Tab, net: &dyn Network, node: NodeId, governed: &[bool]) -> Res<Option<Vec<SenderPath>>> {
    let count = t.choice("in_transit", Some("ignore"), &["ignore", "count"])? == "count";
    let hops = |from: NodeId, to: NodeId| -> Vec<(Rate, Time)> {
        net.path(from, to)
            .iter()
            .map(|&l| (net.link(l).rate, net.link(l).delay))
            .collect()
    };
    Ok(count.then(|| {
        (0..net.flow_count())
            .map(|i| match governed[i] {
                true => SenderPath {
                    to_sender: hops(node, net.flow(FlowId(i as u32)).src),
                    from_sender: hops(net.flow(FlowId(i as u32)).src, node),
                },
                false => SenderPath::default(),
            })
            .collect()
    }))
}

#[cfg(test)]
mod tests;
