//! Token-based Fast-TCP ACK gate ("Token F-TCP"): a router holds the ACKs of the
//! connections it bottlenecks and lets one leave per token, tokens being the
//! spare room of its forward data buffer counted in average packets.
//!
//! Source: the token F-TCP paper (`papers/token-fast-tcp.txt`, §1 pseudo-code and
//! §3.1) as reconstructed in `specs/token_ftcp.md` §2; model page
//! `docs/models/token-gate.md`.
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
//!   floating running mean, so `floor` is exact (spec T2/T3); the default length
//!   only matters before the first data packet, as in the running-mean formula.
//! * The release rule is evaluated on ACK arrival and after every token
//!   recomputation (spec T5), with the strict comparison `N_T > Th` (T4). An ACK
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
use crate::network::Network;
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

    // Governed flows: TCP, selected, data path across the forward link.
    let crosses = |i: usize| {
        let f = net.flow(FlowId(i as u32));
        f.kind == "tcp" && net.path(f.src, f.dst).contains(&forward.id)
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
                        format!("\"all\" or a list of flow names from: {}", list(&shown)),
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
    let count = t.choice("in_transit", Some("ignore"), &["ignore", "count"])? == "count";
    let hops = |from: NodeId, to: NodeId| -> Vec<(Rate, Time)> {
        net.path(from, to)
            .iter()
            .map(|&l| (net.link(l).rate, net.link(l).delay))
            .collect()
    };
    let promise_paths = count.then(|| {
        (0..net.flow_count())
            .map(|i| match governed[i] {
                true => SenderPath {
                    to_sender: hops(node, net.flow(FlowId(i as u32)).src),
                    from_sender: hops(net.flow(FlowId(i as u32)).src, node),
                },
                false => SenderPath::default(),
            })
            .collect()
    });
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

#[cfg(test)]
mod tests {
    use super::*;

    const FWD: LinkId = LinkId(1);
    const REV: LinkId = LinkId(0);
    const L: u64 = 576; // bytes on the wire, 4608 bits
    const MSS: u64 = 536;

    /// The gate with promises on the paper's Fig. 2 path: 10 Mbps/1 ms to the
    /// sender and back, 2 Mbps forward link (service time 2.304 ms).
    fn promising(flows: usize) -> TokenGate {
        let hop = vec![(Rate::mbps(10), Time::from_millis(1))];
        TokenGate::new(Params {
            promise_paths: Some(vec![
                SenderPath {
                    to_sender: hop.clone(),
                    from_sender: hop,
                };
                flows
            ]),
            ..gate(3, flows).p
        })
    }

    fn gate(threshold: u64, flows: usize) -> TokenGate {
        TokenGate::new(Params {
            forward_rate: Rate::mbps(2), // Fig. 2's bottleneck
            promise_paths: None,
            forward: FWD,
            buffer_bits: 40_000,
            threshold,
            packet_bits: L * 8,
            governed: vec![true; flows],
        })
    }

    /// Drives a gate with explicit times and a forward queue of `q` packets.
    struct Bench {
        g: TokenGate,
        now: Time,
        q: usize,
        /// ACKs let through (passed or released), in order, with their link.
        out: Vec<(Packet, LinkId)>,
        uid: u64,
        /// Cumulative ACK number of the next ACK (one 536-B segment per ACK).
        next_ack: u64,
        /// Last wakeup the gate asked for.
        wake: Option<Time>,
    }

    impl Bench {
        fn new(g: TokenGate) -> Bench {
            Bench {
                g,
                now: Time::ZERO,
                q: 0,
                out: Vec::new(),
                uid: 0,
                next_ack: 0,
                wake: None,
            }
        }
        fn pkt(&mut self, kind: Kind, flow: u32, size: u64) -> Packet {
            self.uid += 1;
            Packet::new(
                self.uid,
                FlowId(flow),
                NodeId(0),
                NodeId(3),
                size as u32,
                kind,
                self.now,
            )
        }
        fn view(&self) -> QueueView {
            QueueView::with_backlog(NodeId(1), FWD, self.q, self.q as u64 * L)
        }
        /// Runs `f` with a context and returns what it released.
        fn with(&mut self, f: impl FnOnce(&mut TokenGate, &mut CompCtx) -> Option<Packet>) -> usize {
            let (mut rel, mut wake) = (Vec::new(), None);
            let passed = {
                let mut cx = CompCtx::new(self.now, NodeId(1), &[], &mut rel, &mut wake);
                f(&mut self.g, &mut cx)
            };
            if self.g.promises.is_empty() {
                assert!(wake.is_none(), "the paper's rule never asks for timers");
            }
            self.wake = wake.or(self.wake);
            let n = rel.len() + passed.is_some() as usize;
            self.out.extend(passed.map(|p| (p, REV)));
            self.out.extend(rel);
            n
        }
        /// A governed ACK of flow 0 arrives; returns 1 if it left at once.
        fn ack(&mut self) -> usize {
            self.ack_of(0)
        }
        fn ack_of(&mut self, flow: u32) -> usize {
            self.next_ack += MSS;
            self.ack_numbered(flow, self.next_ack)
        }
        fn ack_numbered(&mut self, flow: u32, ack: u64) -> usize {
            let mut p = self.pkt(Kind::Ack, flow, 40);
            p.ack = ack;
            self.with(|g, cx| match g.on_forward(cx, Some(LinkId(5)), REV, p) {
                Verdict::Forward(p) => Some(p),
                Verdict::Hold => None,
                Verdict::Drop(_) => panic!("the gate never drops"),
            })
        }
        /// A data packet enters the forward queue; returns ACKs released.
        fn arrive(&mut self) -> usize {
            self.q += 1;
            let (mut p, v) = (self.pkt(Kind::Data, 0, L), self.view());
            p.len = MSS as u32;
            self.with(|g, cx| {
                g.on_queue(cx, QueueEvent::Enqueued, &p, &v);
                None
            })
        }
        /// The gate's timer fires; returns ACKs released.
        fn wake(&mut self) -> usize {
            self.now = self.wake.take().expect("a wakeup was asked for");
            self.with(|g, cx| {
                g.on_wake(cx);
                None
            })
        }
        /// The head data packet leaves the forward queue; returns ACKs released.
        fn depart(&mut self) -> usize {
            self.q -= 1;
            let (p, v) = (self.pkt(Kind::Data, 0, L), self.view());
            self.with(|g, cx| {
                g.on_queue(cx, QueueEvent::Dequeued, &p, &v);
                None
            })
        }
    }

    #[test]
    fn token_capacity_is_floor_of_40000_over_4608() {
        let g = gate(3, 1);
        assert_eq!((g.capacity(), g.tokens()), (8, 8)); // 40 000 / 4608 = 8.68
    }

    #[test]
    fn tokens_are_spare_room_in_whole_mean_packets() {
        let mut b = Bench::new(gate(3, 1));
        for (q, n) in [(1, 7), (2, 6), (4, 4), (5, 3), (8, 0)] {
            while b.q < q {
                b.arrive();
            }
            // spare = 40 000 − 4608·q bits; N = floor(spare / 4608)
            assert_eq!(b.g.tokens(), n, "q = {q}");
        }
        b.depart();
        assert_eq!(b.g.tokens(), 1);
    }

    #[test]
    fn mean_packet_length_is_a_running_mean() {
        let mut b = Bench::new(gate(3, 1));
        // First packet 4608 bits, second 4000 bits (500 B): L_p = 4304, B_T = 9.
        b.arrive();
        b.q += 1;
        let (p, v) = (b.pkt(Kind::Data, 0, 500), b.view());
        b.with(|g, cx| {
            g.on_queue(cx, QueueEvent::Enqueued, &p, &v);
            None
        });
        assert_eq!(b.g.capacity(), 9); // floor(40 000 / 4304)
                                       // backlog 2·576 B = 9216 bits: floor(30 784 / 4304) = 7
        assert_eq!(b.g.tokens(), 7);
        // The default length counts only until the first packet.
        let mut g = TokenGate::new(Params {
            packet_bits: 8000,
            ..gate(3, 1).p
        });
        assert_eq!(g.capacity(), 5);
        let (mut rel, mut wake) = (Vec::new(), None);
        let mut cx = CompCtx::new(Time::ZERO, NodeId(1), &[], &mut rel, &mut wake);
        let p = Packet::new(1, FlowId(0), NodeId(0), NodeId(3), 576, Kind::Data, Time::ZERO);
        let v = QueueView::with_backlog(NodeId(1), FWD, 1, 576);
        g.on_queue(&mut cx, QueueEvent::Enqueued, &p, &v);
        assert_eq!((g.capacity(), g.tokens()), (8, 7));
    }

    #[test]
    fn threshold_comparison_is_strict() {
        let mut b = Bench::new(gate(3, 1));
        for _ in 0..4 {
            b.arrive(); // N = 4
        }
        assert_eq!(b.ack(), 1, "N = 4 > 3: the ACK passes and takes a token");
        assert_eq!(b.g.tokens(), 3);
        assert_eq!(b.ack(), 0, "N = 3 = Th: held");
        assert_eq!(b.g.held(), 1);
        assert_eq!(b.depart(), 1, "q = 3, N = 5 > 3: released, N = 4");
        assert_eq!(b.g.tokens(), 4);
        assert_eq!(b.ack(), 1);
        assert_eq!(b.g.tokens(), 3);
    }

    /// Spec §2 / paper §3.1 eqs. (18)–(20), B = 8, Th = 3, one step at a time.
    #[test]
    fn section_3_1_release_at_4_hold_at_5_release_at_4() {
        let mut b = Bench::new(gate(3, 1));
        for _ in 0..4 {
            b.arrive();
        }
        b.ack(); // N 4 → 3
        b.arrive();
        b.arrive(); // its two packets: q = 6, N = 2
        assert_eq!((b.q, b.g.tokens()), (6, 2));
        assert_eq!(b.ack(), 0, "next ACK waits");
        assert_eq!(b.depart(), 0, "q = 5, N = 3 = Th: hold");
        assert_eq!(b.g.tokens(), 3);
        assert_eq!(b.depart(), 1, "q = 4, N = 4 > Th: release");
        assert_eq!((b.g.tokens(), b.g.held()), (3, 0));
        b.arrive();
        b.arrive();
        assert_eq!((b.q, b.g.tokens()), (6, 2), "q = B − Th + 1 = 6 again");
    }

    /// Spec §2: in slow start (each ACK brings two packets before the next
    /// departure; ACKs arrive at the service rate) q oscillates between
    /// B − Th − 1 = 4 and B − Th + 1 = 6, N between Th − 1 and Th + 1, and the
    /// held ACKs pile up.
    #[test]
    fn section_3_1_slow_start_oscillates_between_4_and_6_packets() {
        let mut b = Bench::new(gate(3, 1));
        // (q, N) after every event once the first ACK has been held; N as
        // recomputed, before the releases it allows.
        let mut seen: Vec<(usize, u64)> = Vec::new();
        // Each ACK let out brings two packets at once (slow start, before the
        // next departure); every arrival may let further ACKs out.
        fn inject(b: &mut Bench, mut acks: usize, seen: &mut Vec<(usize, u64)>) {
            while acks > 0 {
                acks -= 1;
                for _ in 0..2 {
                    let n = b.arrive();
                    acks += n;
                    if b.g.stats.held > 0 {
                        seen.push((b.q, b.g.tokens() + n as u64));
                    }
                }
            }
        }
        for step in 0..200 {
            b.now = Time::from_micros(2304 * step);
            let sent = b.ack(); // ACKs arrive at the service rate u
            inject(&mut b, sent, &mut seen);
            if b.q > 0 {
                let sent = b.depart();
                if b.g.stats.held > 0 {
                    seen.push((b.q, b.g.tokens() + sent as u64));
                }
                inject(&mut b, sent, &mut seen);
            }
        }
        let q: Vec<usize> = seen.iter().map(|x| x.0).collect();
        let n: Vec<u64> = seen.iter().map(|x| x.1).collect();
        assert_eq!((*q.iter().min().unwrap(), *q.iter().max().unwrap()), (4, 6));
        assert_eq!((*n.iter().min().unwrap(), *n.iter().max().unwrap()), (2, 4));
        assert!(b.g.held() > 50, "ACKs accumulate in slow start: {}", b.g.held());
        assert_eq!(b.g.stats.max_forward_bits, 6 * 4608); // 27 648 bits
    }

    #[test]
    fn held_acks_leave_in_order_on_their_own_links() {
        let mut b = Bench::new(gate(3, 1));
        for _ in 0..5 {
            b.arrive(); // N = 3
        }
        let mut links = Vec::new();
        for (i, out) in [LinkId(0), LinkId(7), LinkId(0)].into_iter().enumerate() {
            let p = b.pkt(Kind::Ack, 0, 40);
            b.now = Time::from_millis(i as u64);
            b.with(|g, cx| match g.on_forward(cx, None, out, p) {
                Verdict::Hold => None,
                _ => panic!("must hold"),
            });
            links.push(out);
        }
        assert_eq!(b.g.held(), 3);
        b.now = Time::from_millis(10);
        b.depart();
        b.depart();
        b.depart(); // q = 2, N = 6: releases three
        let got: Vec<(u64, LinkId)> = b.out.iter().map(|(p, l)| (p.uid, *l)).collect();
        let uids: Vec<u64> = got.iter().map(|x| x.0).collect();
        assert!(uids.windows(2).all(|w| w[0] < w[1]), "FIFO order: {uids:?}");
        assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>(), links);
        let st: std::collections::HashMap<_, _> = b.g.stats().into_iter().collect();
        assert_eq!(st["acks_held"], 3.0);
        assert_eq!(st["acks_released"], 3.0);
        assert_eq!(st["max_held_acks"], 3.0);
        assert_eq!(st["max_hold_s"], 0.010);
        assert_eq!(st["first_hold_s"], 0.0);
    }

    #[test]
    fn ungoverned_flows_acks_and_other_links_pass_untouched() {
        let mut g = gate(3, 2);
        g.p.governed[1] = false;
        let mut b = Bench::new(g);
        for _ in 0..8 {
            b.arrive(); // N = 0
        }
        assert_eq!(b.ack_of(1), 1, "flow 1 is not governed");
        assert_eq!(b.ack_of(9), 1, "unknown flows are not governed");
        assert_eq!(b.ack_of(0), 0, "flow 0 is");
        // Events on another output link and ACKs in the forward queue leave
        // the tokens alone.
        let (p, a) = (b.pkt(Kind::Data, 0, L), b.pkt(Kind::Ack, 1, 40));
        let other = QueueView::with_backlog(NodeId(1), LinkId(4), 0, 0);
        let v = b.view();
        b.with(|g, cx| {
            g.on_queue(cx, QueueEvent::Dequeued, &p, &other);
            g.on_queue(cx, QueueEvent::Dequeued, &a, &v);
            None
        });
        assert_eq!((b.g.tokens(), b.g.held()), (0, 1));
        assert_eq!(b.g.held(), 1);
    }

    /// Hand-worked on Fig. 2's timing (1 ms access hops). An ACK released at
    /// t = 0 reaches the sender at 1.032 ms (40 B at 10 Mbps + 1 ms); its two
    /// slow-start packets leave the sender at 1.4928 and 1.9536 ms and reach
    /// the gate at 2.4928 and 2.9536 ms; the promise lapses one 2 Mbps service
    /// time later, at 5.2576 ms. The next departure (2.304 ms) comes before
    /// them: the paper's rule would hand the room out again (N = 5 > Th), the
    /// promise keeps it (N = 5 − 2 = 3), and backlog + promised stays at
    /// B − Th + 1 = 6.
    #[test]
    fn promises_hold_the_room_a_released_ack_will_fill() {
        let mut b = Bench::new(promising(1));
        for _ in 0..4 {
            b.arrive(); // the initial window: no promise covered it, so g = 1
        }
        assert_eq!(b.g.stats.unpromised, 4);
        assert_eq!(b.ack(), 1, "N = 4 > 3: passes");
        assert_eq!((b.g.tokens(), b.g.promised), (2, 2), "promised m + g = 1 + 1");
        assert_eq!(b.wake, Some(Time::from_nanos(5_257_600)));
        assert_eq!(b.ack(), 0, "N = 2: held");
        b.now = Time::from_micros(2304);
        assert_eq!(b.depart(), 0, "q = 3, N = 5 − 2 = 3 = Th: still held");
        b.now = Time::from_nanos(2_492_800);
        assert_eq!(b.arrive(), 0);
        assert_eq!((b.q, b.g.promised, b.g.tokens()), (4, 1, 3));
        b.now = Time::from_nanos(2_953_600);
        assert_eq!(b.arrive(), 0);
        assert_eq!((b.q, b.g.promised, b.g.tokens()), (5, 0, 3));
        b.now = Time::from_micros(4608);
        assert_eq!(b.depart(), 1, "q = 4, N = 4 > 3: the held ACK leaves");
        assert_eq!((b.q, b.g.promised, b.g.tokens()), (4, 2, 2));
        assert_eq!(b.q as u64 + b.g.promised, 6, "B − Th + 1");
        // The paper's rule on the same events releases at the first departure.
        let mut p = Bench::new(gate(3, 1));
        for _ in 0..4 {
            p.arrive();
        }
        p.ack();
        p.ack();
        assert_eq!(
            p.depart(),
            1,
            "q = 3, N = 5: released before the first ACK's packets arrive"
        );
    }

    /// A promise not kept by its lapse time gives its tokens back (the gate
    /// asks to be woken then) and tells the gate the sender's window stopped
    /// growing per ACK: later ACKs promise m packets, until data arrive that no
    /// promise covered.
    #[test]
    fn lapsed_promises_return_their_tokens_and_stop_growth() {
        let mut b = Bench::new(promising(1));
        for _ in 0..4 {
            b.arrive();
        }
        b.ack(); // promise 2, N = 2
        b.ack(); // held
        b.arrive(); // one of the two packets: q = 5, promised 1, N = 2
        assert_eq!((b.g.promised, b.g.tokens()), (1, 2));
        b.depart(); // q = 4: N = 4 − 1 = 3, held
        assert_eq!(b.g.held(), 1);
        assert_eq!(b.wake(), 1, "at 5.2576 ms the lapsed packet's token returns: N = 4");
        assert_eq!(b.now, Time::from_nanos(5_257_600));
        assert_eq!(b.g.stats.promised_lapsed, 1);
        assert!(!b.g.promises[0].growing);
        assert_eq!(b.g.promised, 1, "the released ACK promised m + 0 = 1");
        b.arrive();
        assert_eq!(b.g.promised, 0);
        b.arrive(); // nobody promised this one: the window grows again
        assert!(b.g.promises[0].growing);
        assert_eq!(b.g.stats.unpromised, 5);
    }

    /// An ACK acknowledging m segments promises m + g; a duplicate ACK (m = 0)
    /// promises one (it clocks one packet out in fast recovery). Back-to-back
    /// promises queue at the sender's link: the second lapses two packet times
    /// (2 × 460.8 µs) after the first.
    #[test]
    fn promise_size_and_sender_link_serialization() {
        // Th = 0, so that every ACK below finds a token.
        let mut b = Bench::new(TokenGate::new(Params {
            threshold: 0,
            ..promising(1).p
        }));
        b.arrive(); // segment size 536 B learnt, g = 1
        b.ack_numbered(0, 536);
        assert_eq!(b.g.promised, 2);
        b.ack_numbered(0, 3 * 536); // a stretch ACK of two segments: 2 + 1
        assert_eq!(b.g.promised, 5);
        let lapses: Vec<Time> = b.g.promises[0].open.iter().map(|p| p.lapses).collect();
        // First: ACK at the sender 1.032 ms, 2 packets until 1.9536, +1 ms, +2.304.
        // Second: its 3 packets follow: + 3 × 0.4608 ms.
        assert_eq!(lapses, [Time::from_nanos(5_257_600), Time::from_nanos(6_640_000)]);
        b.g.promises[0].growing = false;
        b.ack_numbered(0, 3 * 536); // duplicate
        assert_eq!(b.g.promised, 6, "a duplicate ACK promises one packet");
        b.ack_numbered(0, 2 * 536); // older than the last: also one
        assert_eq!(b.g.promised, 7);
        assert_eq!((b.q, b.g.tokens()), (1, 0), "N = 7 − 7");
    }
}
