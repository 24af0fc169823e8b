//! NDP, the receiver-driven transport of Handley et al., "Re-architecting
//! datacenter networks and stacks for low latency and high performance"
//! (SIGCOMM 2017, §3), as htsim models it (`NdpSrc`, `NdpSink`,
//! `NdpPullPacer`). Model page: docs/models/ndp.md. It needs trimming
//! switches ([`crate::qdisc::ndp`]); the scenario refuses NDP flows whose
//! paths cross a switch queue of another kind.
//!
//! * **Sender.** Sends its first window (`iw` packets, htsim's 15) at once,
//!   then one packet per pull: a NACKed packet first (lowest sequence),
//!   else new data. Pulls are cumulative numbers (the receiver's count for
//!   the flow), so a lost pull is made up by the next; a pull that finds
//!   nothing to send is kept for a later NACK (htsim's `_last_pull <
//!   _max_pull`). Every data packet carries the `SPRAY` flag (unless
//!   `spray = false`): ECMP routers pick its path by its own hash.
//! * **Receiver.** ACKs every full data packet and NACKs every header
//!   (`ack_size` bytes each, echoing the sequence and the cumulative ACK),
//!   and for each asks the host's **pull pacer** for a pull: the pacer,
//!   shared by all NDP flows into the host, sends at most one pull per
//!   `(mtu + header)·8 / rate / pull_rate` (the receiver's link rate, as
//!   htsim's `NdpPullPacer`). A pull due at once rides on the ACK (PULL
//!   bit); otherwise a PULL packet waits in the pacer's FIFO. A flow whose
//!   last byte has arrived takes its pulls out of the queue (htsim's
//!   `release_pulls`).
//! * **Timeout.** A packet neither ACKed nor NACKed `rto` after it was sent
//!   is sent again (htsim's per-packet `_sent_times` scan; its RTO is
//!   SRTT + 4·MDEV from ACK samples, at least `min_rto`).
//!
//! Engine fit: the pacer is one object per receiving host in the run's
//! [`crate::endpoint::Shared`] state; the engine wakes one flow's receiver
//! for it (the one that queued a pull into an idle pacer), which sends the
//! pull at the head of the FIFO whatever its flow (a packet carries its own
//! flow, source and destination).

use super::{EndpointCtx, Env, ReadCtx, Receiver, Sender, SenderReport, SenderSample, TransportSpec};
use crate::cfg::{Res, Tab};
use crate::packet::{flags, FlowId, Kind, NodeId, Packet};
use crate::tcp::INFINITE;
use crate::units::{Rate, Time};
use serde_json::Value;
use std::any::Any;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};

/// NDP's own flags on its control packets (bits 5 and 6 are transports' own:
/// [`flags::SPRAY`]).
pub mod ndp_flags {
    /// A NACK: the header of packet `seq` arrived (its payload was trimmed).
    pub const NACK: u8 = 1 << 5;
    /// Carries a pull: the flow's cumulative pull number is in `wnd`.
    pub const PULL: u8 = 1 << 6;
}

/// NDP's parameters.
#[derive(Clone, Debug)]
pub struct NdpParams {
    /// Payload bytes per data packet.
    pub mss: u32,
    /// Header bytes of a data packet (and what a trimmed one keeps).
    pub header: u32,
    /// Size of an ACK, NACK or PULL.
    pub ack_size: u32,
    /// Bytes to transfer ([`INFINITE`]: until the run ends).
    pub size: u64,
    /// Packets sent before the first pull.
    pub iw: u32,
    pub init_rto: Time,
    pub min_rto: Time,
    /// Pull rate as a fraction of the receiver's link rate.
    pub pull_rate: f64,
    /// Per-packet path choice.
    pub spray: bool,
}

/// The NDP transport (`kind = "ndp"`).
#[derive(Debug)]
pub struct NdpSpec {
    pub p: NdpParams,
}

const DOCS: &[(&str, &str)] = &[
    ("size", "ndp: bytes to transfer, or \"inf\""),
    ("mtu", "ndp: payload bytes per data packet (htsim's -mtu: 9000)"),
    ("header", "ndp: header bytes of a data packet (64, what trimming keeps)"),
    ("ack_size", "ndp: bytes of an ACK, NACK or PULL (64)"),
    ("iw", "ndp: packets sent at line rate before the first pull (htsim: 15)"),
    (
        "init_rto",
        "ndp: retransmission timeout before an RTT sample (htsim: 20ms)",
    ),
    ("min_rto", "ndp: least retransmission timeout (htsim: 5ms)"),
    (
        "pull_rate",
        "ndp: pulls per full-packet time of the receiver's link (1: its line rate)",
    ),
    (
        "spray",
        "ndp: each packet takes its own equal-cost path (true), or the flow's one ECMP path",
    ),
];

impl NdpSpec {
    pub fn read(t: &mut Tab, cx: &ReadCtx) -> Res<NdpSpec> {
        t.docs(DOCS);
        if cx.in_workload {
            return Err(t.error(
                "kind",
                &Value::from("ndp"),
                "a transport a workload can open: NDP's pull pacer is shared by the flows of [[flows]] tables only",
            ));
        }
        let size = match t.size_or_inf("size", "inf")? {
            Some(0) => return Err(t.error("size", &Value::from(0), "a positive size or \"inf\"")),
            Some(b) => b,
            None => INFINITE,
        };
        let mss = t.uint("mtu", Some(9000), 1, 65_000)? as u32;
        let header = t.uint("header", Some(64), 1, 1000)? as u32;
        let ack_size = t.uint("ack_size", Some(64), 1, 1500)? as u32;
        let iw = t.uint("iw", Some(15), 1, 100_000)? as u32;
        let init_rto = t.time("init_rto", Some("20ms"))?;
        let min_rto = t.time("min_rto", Some("5ms"))?;
        for (k, v) in [("init_rto", init_rto), ("min_rto", min_rto)] {
            if v < Time::from_micros(1) {
                return Err(t.error(k, &Value::from(crate::cfg::time_str(v)), "at least 1us"));
            }
        }
        let pull_rate = t.float("pull_rate", Some(1.0), 0.0, 100.0)?;
        if pull_rate <= 0.0 {
            return Err(t.error(
                "pull_rate",
                &Value::from(pull_rate),
                "a positive fraction of the link rate",
            ));
        }
        let spray = t.boolean("spray", true)?;
        Ok(NdpSpec {
            p: NdpParams {
                mss,
                header,
                ack_size,
                size,
                iw,
                init_rto,
                min_rto,
                pull_rate,
                spray,
            },
        })
    }
}

impl TransportSpec for NdpSpec {
    fn kind(&self) -> &'static str {
        "ndp"
    }
    fn build(&self, env: Env) -> (Box<dyn Sender>, Box<dyn Receiver>) {
        let mut p = self.p.clone();
        if let Some(s) = env.size {
            p.size = s;
        }
        let interval = pull_interval(&p, env.last_hop);
        let pacer = match &env.shared {
            Some(shared) => {
                let mut m = shared.lock().expect("shared state");
                let e = m
                    .entry(("ndp", env.dst))
                    .or_insert_with(|| Box::new(Arc::new(Mutex::new(PullPacer::new(interval)))));
                e.downcast_ref::<Arc<Mutex<PullPacer>>>().expect("ndp's pacer").clone()
            }
            None => Arc::new(Mutex::new(PullPacer::new(interval))),
        };
        let snd = NdpSender::new(p.clone(), env.flow, env.src, env.dst);
        let rcv = NdpReceiver::new(p, env.flow, env.dst, env.src, pacer);
        (Box::new(snd), Box::new(rcv))
    }
    fn max_packet(&self) -> u64 {
        (self.p.mss + self.p.header) as u64
    }
    fn bdp_packet(&self) -> Option<u64> {
        Some((self.p.mss + self.p.header) as u64)
    }
    fn needs_return_path(&self) -> bool {
        true
    }
    fn transfers(&self) -> bool {
        true
    }
    fn switch_queue(&self) -> Option<&'static str> {
        Some("ndp")
    }
}

/// Time between pulls: a full data packet at `pull_rate` of the link rate
/// (htsim: `(data_packet_size + ACKSIZE)·8 / linkspeed / pull_rate_modifier`).
fn pull_interval(p: &NdpParams, rate: Rate) -> Time {
    if rate.0 == 0 {
        return Time::ZERO;
    }
    let bits = (p.mss + p.header) as f64 * 8.0;
    Time((bits * 1e9 / rate.0 as f64 / p.pull_rate).round() as u64)
}

// ----- the pull pacer

/// One receiving host's pull pacer (htsim's `NdpPullPacer`): at most one pull
/// per `interval`, in the order they were asked for.
pub struct PullPacer {
    interval: Time,
    /// When the last pull left.
    last: Option<Time>,
    /// Pulls waiting, in order.
    queue: VecDeque<Packet>,
    /// The flow whose receiver the engine wakes for the next pull.
    waker: Option<FlowId>,
    /// Pulls sent (on ACKs or on their own).
    pub sent: u64,
}

impl PullPacer {
    pub fn new(interval: Time) -> PullPacer {
        PullPacer {
            interval,
            last: None,
            queue: VecDeque::new(),
            waker: None,
            sent: 0,
        }
    }

    /// A pull is asked for with `ack` (an ACK or NACK of flow `flow`): set on
    /// the ACK if the pacer is idle and a full interval has passed since the
    /// last, else queued as a PULL packet of its own. Returns the ACK to send.
    fn request(&mut self, mut ack: Packet, pull_no: u64, flow: FlowId, now: Time) -> Packet {
        let due = self.last.is_none_or(|l| now >= l + self.interval);
        if self.queue.is_empty() && due {
            ack.flags |= ndp_flags::PULL;
            ack.set_wnd(pull_no);
            self.last = Some(now);
            self.sent += 1;
            return ack;
        }
        let mut pull = ack.clone();
        pull.flags = ndp_flags::PULL | (ack.flags & flags::SPRAY);
        pull.set_wnd(pull_no);
        self.queue.push_back(pull);
        if self.waker.is_none() {
            self.waker = Some(flow);
        }
        ack
    }

    /// When the next queued pull is due, if this flow's receiver is to send it.
    fn wake_for(&self, flow: FlowId) -> Option<Time> {
        if self.waker != Some(flow) || self.queue.is_empty() {
            return None;
        }
        Some(self.last.map_or(Time::ZERO, |l| l + self.interval))
    }

    /// The pull due at `now`, if `flow` is the waker and one is due.
    fn serve(&mut self, flow: FlowId, now: Time) -> Option<Packet> {
        let at = self.wake_for(flow)?;
        if now < at {
            return None;
        }
        let mut p = self.queue.pop_front()?;
        p.ts_val = now;
        self.last = Some(now);
        self.sent += 1;
        if self.queue.is_empty() {
            self.waker = None;
        }
        Some(p)
    }

    /// Drops the queued pulls of a flow that has all its data.
    fn release(&mut self, flow: FlowId) {
        self.queue.retain(|p| p.flow != flow);
        if self.queue.is_empty() {
            self.waker = None;
        }
    }

    pub fn queued(&self) -> usize {
        self.queue.len()
    }
}

// ----- sender

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NdpStats {
    pub bytes_sent: u64,
    pub packets_sent: u64,
    /// Packets sent again after a NACK.
    pub nack_retransmits: u64,
    /// Packets sent again on the timer.
    pub rto_retransmits: u64,
    /// Timer expiries.
    pub timeouts: u64,
    pub nacks: u64,
    pub acks: u64,
}

pub struct NdpSender {
    p: NdpParams,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    /// Next new byte to send.
    next: u64,
    /// The receiver's cumulative ACK.
    una: u64,
    /// NACKed packets waiting for a pull.
    rtx: BTreeSet<u64>,
    /// Packets sent and neither ACKed nor NACKed: sequence → send time, and
    /// the same ordered by time (the timer's).
    sent: BTreeMap<u64, Time>,
    by_time: BTreeSet<(Time, u64)>,
    /// Pulls used, and the highest pull number received.
    last_pull: u64,
    max_pull: u64,
    srtt: Option<Time>,
    mdev: Time,
    min_rtt: Option<Time>,
    rto: Time,
    done: Option<Time>,
    pub stats: NdpStats,
}

impl NdpSender {
    pub fn new(p: NdpParams, flow: FlowId, src: NodeId, dst: NodeId) -> NdpSender {
        let rto = p.init_rto;
        NdpSender {
            p,
            flow,
            src,
            dst,
            next: 0,
            una: 0,
            rtx: BTreeSet::new(),
            sent: BTreeMap::new(),
            by_time: BTreeSet::new(),
            last_pull: 0,
            max_pull: 0,
            srtt: None,
            mdev: Time::ZERO,
            min_rtt: None,
            rto,
            done: None,
            stats: NdpStats::default(),
        }
    }

    fn len_at(&self, seq: u64) -> u32 {
        (self.p.size - seq).min(self.p.mss as u64) as u32
    }

    fn emit(&mut self, seq: u64, retx: bool, cx: &mut EndpointCtx) {
        let len = self.len_at(seq);
        let mut pkt = Packet::segment(self.flow, self.src, self.dst, seq, len, self.p.header, cx.now);
        pkt.flags = if self.p.spray { flags::SPRAY } else { 0 };
        pkt.retx = retx;
        self.stats.bytes_sent += len as u64;
        self.stats.packets_sent += 1;
        self.unsent(seq);
        self.sent.insert(seq, cx.now);
        self.by_time.insert((cx.now, seq));
        cx.out.push(pkt);
    }

    /// Forgets `seq` as in flight.
    fn unsent(&mut self, seq: u64) {
        if let Some(t) = self.sent.remove(&seq) {
            self.by_time.remove(&(t, seq));
        }
    }

    /// Sends one packet (a NACKed one first); false if there is none.
    fn send_one(&mut self, cx: &mut EndpointCtx) -> bool {
        if let Some(seq) = self.rtx.pop_first() {
            self.stats.nack_retransmits += 1;
            self.emit(seq, true, cx);
            return true;
        }
        if self.next >= self.p.size {
            return false;
        }
        let seq = self.next;
        self.next += self.len_at(seq) as u64;
        self.emit(seq, false, cx);
        true
    }

    /// A pull numbered `pull_no` (htsim's `pull_packets`).
    fn pull(&mut self, pull_no: u64, cx: &mut EndpointCtx) {
        self.max_pull = self.max_pull.max(pull_no);
        while self.last_pull < self.max_pull && self.send_one(cx) {
            self.last_pull += 1;
        }
    }

    fn rtt_sample(&mut self, m: Time) {
        if m == Time::ZERO {
            return;
        }
        match self.srtt {
            None => {
                self.srtt = Some(m);
                self.mdev = Time(m.0 / 2);
            }
            Some(s) => {
                let abs = if m > s { m - s } else { s - m };
                self.mdev = Time(3 * self.mdev.0 / 4 + abs.0 / 4);
                self.srtt = Some(Time(7 * s.0 / 8 + m.0 / 8));
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(m, |x| x.min(m)));
        let s = self.srtt.expect("set");
        self.rto = Time(s.0 + 4 * self.mdev.0).max(self.p.min_rto);
    }
}

impl Sender for NdpSender {
    fn start(&mut self, cx: &mut EndpointCtx) {
        for _ in 0..self.p.iw {
            if !self.send_one(cx) {
                break;
            }
        }
    }
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if pkt.kind != Kind::Ack || self.done.is_some() {
            return;
        }
        let pulled = pkt.has(ndp_flags::PULL);
        if pkt.has(flags::ACK) {
            self.stats.acks += 1;
            self.unsent(pkt.seq);
            self.rtt_sample(cx.now - pkt.ts_ecr);
            if pkt.ack > self.una {
                self.una = pkt.ack;
                while let Some((&s, _)) = self.sent.first_key_value() {
                    if s >= self.una {
                        break;
                    }
                    self.unsent(s);
                }
                self.rtx = self.rtx.split_off(&self.una);
            }
            if self.una >= self.p.size {
                self.done = Some(cx.now);
                return;
            }
            if pulled {
                self.pull(pkt.wnd(), cx);
            }
        } else if pkt.has(ndp_flags::NACK) {
            self.stats.nacks += 1;
            self.unsent(pkt.seq);
            if pkt.seq >= self.una {
                self.rtx.insert(pkt.seq);
            }
            if pulled || self.last_pull < self.max_pull {
                self.pull(if pulled { pkt.wnd() } else { 0 }, cx);
            }
        } else if pulled {
            self.pull(pkt.wnd(), cx);
        }
    }
    fn on_timer(&mut self, cx: &mut EndpointCtx) {
        if self.done.is_some() {
            return;
        }
        let mut due = Vec::new();
        while let Some(&(t, seq)) = self.by_time.first() {
            if t + self.rto > cx.now {
                break;
            }
            due.push(seq);
            self.unsent(seq);
        }
        if due.is_empty() {
            return;
        }
        self.stats.timeouts += 1;
        for seq in due {
            self.rtx.remove(&seq);
            self.stats.rto_retransmits += 1;
            self.emit(seq, true, cx);
        }
    }
    fn next_wake(&self) -> Option<Time> {
        if self.done.is_some() {
            return None;
        }
        self.by_time.first().map(|&(t, _)| t + self.rto)
    }
    fn completed(&self) -> Option<Time> {
        self.done
    }
    fn cc_name(&self) -> &'static str {
        ""
    }
    fn report(&self) -> SenderReport {
        SenderReport {
            bytes_sent: self.stats.bytes_sent,
            packets_sent: self.stats.packets_sent,
            retransmits: self.stats.nack_retransmits + self.stats.rto_retransmits,
            timeouts: self.stats.timeouts,
            fast_retransmits: self.stats.nack_retransmits,
            ecn_reductions: 0,
            cwnd: 0,
            srtt: self.srtt,
            min_rtt: self.min_rtt,
        }
    }
    fn sample(&self) -> Option<SenderSample> {
        Some(SenderSample {
            cwnd: 0,
            ssthresh: 0,
            srtt: self.srtt,
            sent_seq: self.next,
            inflight: self.sent.len() as u64 * self.p.mss as u64,
            in_recovery: !self.rtx.is_empty(),
            cc_state: f64::NAN,
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

// ----- receiver

pub struct NdpReceiver {
    p: NdpParams,
    flow: FlowId,
    /// This host (the flow's destination) and the sender's.
    me: NodeId,
    peer: NodeId,
    /// Next in-order byte expected (the cumulative ACK).
    cum: u64,
    /// Packets received above `cum`: sequence → payload length.
    ooo: BTreeMap<u64, u32>,
    pull_no: u64,
    pacer: Arc<Mutex<PullPacer>>,
    pub headers: u64,
    pub data: u64,
}

impl NdpReceiver {
    pub fn new(p: NdpParams, flow: FlowId, me: NodeId, peer: NodeId, pacer: Arc<Mutex<PullPacer>>) -> NdpReceiver {
        NdpReceiver {
            p,
            flow,
            me,
            peer,
            cum: 0,
            ooo: BTreeMap::new(),
            pull_no: 0,
            pacer,
            headers: 0,
            data: 0,
        }
    }

    pub fn pacer(&self) -> &Arc<Mutex<PullPacer>> {
        &self.pacer
    }

    fn control(&self, f: u8, of: &Packet, now: Time) -> Packet {
        let mut a = Packet::new(0, self.flow, self.me, self.peer, self.p.ack_size, Kind::Ack, now);
        a.flags = f | (of.flags & flags::SPRAY);
        a.seq = of.seq;
        a.ack = self.cum;
        a.ts_ecr = of.ts_val;
        a
    }

    fn complete(&self) -> bool {
        self.cum >= self.p.size
    }
}

impl Receiver for NdpReceiver {
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if pkt.kind != Kind::Data {
            return;
        }
        let ack = if pkt.len == 0 {
            self.headers += 1;
            self.control(ndp_flags::NACK, pkt, cx.now)
        } else {
            self.data += 1;
            if pkt.seq == self.cum {
                self.cum += pkt.len as u64;
                while let Some(e) = self.ooo.first_entry() {
                    if *e.key() != self.cum {
                        break;
                    }
                    self.cum += e.remove() as u64;
                }
            } else if pkt.seq > self.cum {
                self.ooo.insert(pkt.seq, pkt.len);
            }
            self.control(flags::ACK, pkt, cx.now)
        };
        let mut pacer = self.pacer.lock().expect("pacer");
        if self.complete() {
            pacer.release(self.flow);
            cx.out.push(ack);
            return;
        }
        self.pull_no += 1;
        let ack = pacer.request(ack, self.pull_no, self.flow, cx.now);
        cx.out.push(ack);
    }
    fn on_timer(&mut self, cx: &mut EndpointCtx) {
        let mut pacer = self.pacer.lock().expect("pacer");
        if let Some(p) = pacer.serve(self.flow, cx.now) {
            cx.out.push(p);
        }
    }
    fn next_wake(&self) -> Option<Time> {
        self.pacer.lock().expect("pacer").wake_for(self.flow)
    }
    fn delivered(&self) -> u64 {
        self.cum
    }
    fn ce_received(&self) -> u64 {
        0
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(mss: u32, size: u64, iw: u32) -> NdpParams {
        NdpParams {
            mss,
            header: 64,
            ack_size: 64,
            size,
            iw,
            init_rto: Time::from_millis(20),
            min_rto: Time::from_millis(5),
            pull_rate: 1.0,
            spray: true,
        }
    }

    fn data(flow: u32, seq: u64, len: u32, now: Time) -> Packet {
        let mut p = Packet::segment(FlowId(flow), NodeId(flow + 1), NodeId(0), seq, len, 64, now);
        p.flags = flags::SPRAY;
        p
    }

    fn ctl(f: u8, seq: u64, ack: u64, pull: u64) -> Packet {
        let mut a = Packet::new(0, FlowId(0), NodeId(1), NodeId(0), 64, Kind::Ack, Time::ZERO);
        (a.flags, a.seq, a.ack) = (f, seq, ack);
        a.set_wnd(pull);
        a
    }

    fn cx(now: Time, out: &mut Vec<Packet>) -> EndpointCtx<'_> {
        EndpointCtx { now, out }
    }

    #[test]
    fn the_pull_interval_is_a_full_packet_at_the_receivers_line_rate() {
        // (9000 + 64) B · 8 / 10 Gb/s = 7.2512 us; at half the rate, twice that.
        let mut p = params(9000, 1 << 20, 15);
        assert_eq!(pull_interval(&p, Rate(10_000_000_000)), Time(7251));
        p.pull_rate = 0.5;
        assert_eq!(pull_interval(&p, Rate(10_000_000_000)), Time(14502));
        assert_eq!(pull_interval(&p, Rate(0)), Time::ZERO);
    }

    #[test]
    fn two_flows_into_one_host_share_its_pacer_one_pull_per_interval() {
        let p = params(9000, 1 << 30, 15);
        let gap = pull_interval(&p, Rate(10_000_000_000));
        let pacer = Arc::new(Mutex::new(PullPacer::new(gap)));
        let mut rx: Vec<NdpReceiver> = (0..2)
            .map(|f| NdpReceiver::new(p.clone(), FlowId(f), NodeId(0), NodeId(f + 1), pacer.clone()))
            .collect();
        // Six data packets at t = 0, alternating flows 0 and 1.
        let mut out = Vec::new();
        for i in 0..6u64 {
            let f = (i % 2) as usize;
            rx[f].on_packet(
                &data(f as u32, i / 2 * 9000, 9000, Time::ZERO),
                &mut cx(Time::ZERO, &mut out),
            );
        }
        // Six ACKs at once; only the first carries a pull (flow 0's first).
        assert_eq!(out.len(), 6);
        assert!(out.iter().all(|a| a.has(flags::ACK) && a.has(flags::SPRAY)));
        let pulled: Vec<(u32, u64)> = out
            .iter()
            .filter(|a| a.has(ndp_flags::PULL))
            .map(|a| (a.flow.0, a.wnd()))
            .collect();
        assert_eq!(pulled, vec![(0, 1)]);
        assert_eq!(pacer.lock().unwrap().queued(), 5);
        // Flow 1 queued the first waiting pull: its receiver wakes for all five.
        assert_eq!(rx[0].next_wake(), None);
        let mut pulls = Vec::new();
        while let Some(t) = rx[1].next_wake() {
            let mut o = Vec::new();
            rx[1].on_timer(&mut cx(t, &mut o));
            assert_eq!(o.len(), 1);
            pulls.push((t, o[0].flow.0, o[0].wnd(), o[0].src, o[0].dst));
        }
        let want: Vec<(Time, u32, u64, NodeId, NodeId)> = [(1, 1), (0, 2), (1, 2), (0, 3), (1, 3)]
            .iter()
            .enumerate()
            .map(|(k, &(f, n))| (Time(gap.0 * (k as u64 + 1)), f, n, NodeId(0), NodeId(f + 1)))
            .collect();
        assert_eq!(
            pulls, want,
            "one pull per {gap:?}, in the order asked, each to its own sender"
        );
        assert_eq!(pacer.lock().unwrap().sent, 6);
    }

    #[test]
    fn headers_are_nacked_and_a_complete_flow_releases_its_pulls() {
        let p = params(1000, 3000, 3);
        let pacer = Arc::new(Mutex::new(PullPacer::new(Time::from_micros(1))));
        let mut r0 = NdpReceiver::new(p.clone(), FlowId(0), NodeId(0), NodeId(1), pacer.clone());
        let mut r1 = NdpReceiver::new(p, FlowId(1), NodeId(0), NodeId(2), pacer.clone());
        let mut out = Vec::new();
        let now = Time::ZERO;
        r1.on_packet(&data(1, 0, 1000, now), &mut cx(now, &mut out)); // pull on the ACK
        r0.on_packet(&data(0, 0, 1000, now), &mut cx(now, &mut out)); // queued
        r0.on_packet(&data(0, 2000, 1000, now), &mut cx(now, &mut out)); // out of order
        let mut hdr = data(0, 1000, 1000, now);
        (hdr.len, hdr.size) = (0, 64);
        r0.on_packet(&hdr, &mut cx(now, &mut out));
        let nack = out.last().unwrap();
        assert!(nack.has(ndp_flags::NACK) && !nack.has(flags::ACK));
        assert_eq!((nack.seq, nack.ack, r0.headers), (1000, 1000, 1));
        assert_eq!(pacer.lock().unwrap().queued(), 3);
        // The retransmission completes flow 0: its two queued pulls go.
        r0.on_packet(&data(0, 1000, 1000, now), &mut cx(now, &mut out));
        assert_eq!((r0.delivered(), out.last().unwrap().ack), (3000, 3000));
        assert!(!out.last().unwrap().has(ndp_flags::PULL));
        assert_eq!(pacer.lock().unwrap().queued(), 0);
        assert_eq!(r0.next_wake(), None);
    }

    #[test]
    fn a_nack_is_resent_on_the_next_pull_before_new_data() {
        let mut s = NdpSender::new(params(1000, 10_000, 3), FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        s.start(&mut cx(Time::ZERO, &mut out));
        let seqs = |o: &[Packet]| o.iter().map(|p| (p.seq, p.len, p.retx)).collect::<Vec<_>>();
        assert_eq!(
            seqs(&out),
            vec![(0, 1000, false), (1000, 1000, false), (2000, 1000, false)]
        );
        assert!(out.iter().all(|p| p.has(flags::SPRAY) && p.size == 1064));
        let t = Time::from_micros(10);
        // A NACK of 1000 with no pull: nothing is sent (no pull to spend).
        let mut o = Vec::new();
        s.on_packet(&ctl(ndp_flags::NACK, 1000, 0, 0), &mut cx(t, &mut o));
        assert!(o.is_empty());
        // The ACK of 0 brings pull 1: the NACKed packet goes first.
        s.on_packet(&ctl(flags::ACK | ndp_flags::PULL, 0, 1000, 1), &mut cx(t, &mut o));
        assert_eq!(seqs(&o), vec![(1000, 1000, true)]);
        // Pull 3 (pull 2 was lost): two packets of new data.
        o.clear();
        s.on_packet(&ctl(ndp_flags::PULL, 0, 0, 3), &mut cx(t, &mut o));
        assert_eq!(o.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![3000, 4000]);
        let r = s.report();
        assert_eq!(
            (r.retransmits, r.fast_retransmits, r.timeouts, r.packets_sent),
            (1, 1, 0, 6)
        );
    }

    #[test]
    fn a_packet_neither_acked_nor_nacked_is_resent_after_the_timeout() {
        let mut s = NdpSender::new(params(1000, 2000, 2), FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        s.start(&mut cx(Time::ZERO, &mut out));
        // 0 is ACKed at 10 us (an RTT sample of 10 us: RTO = max(5ms, 10 + 4·5 us)).
        s.on_packet(&ctl(flags::ACK, 0, 1000, 0), &mut cx(Time::from_micros(10), &mut out));
        assert_eq!(s.next_wake(), Some(Time::from_millis(5)));
        let mut o = Vec::new();
        s.on_timer(&mut cx(Time::from_millis(5), &mut o));
        assert_eq!(o.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![1000]);
        assert_eq!(s.report().timeouts, 1);
        s.on_packet(&ctl(flags::ACK, 1000, 2000, 0), &mut cx(Time::from_millis(6), &mut o));
        assert_eq!((s.completed(), s.next_wake()), (Some(Time::from_millis(6)), None));
    }
}
