//! A RoCEv2 NIC as a transport (`kind = "roce"`): a rate-paced sender with no
//! window, go-back-N loss recovery, and a pluggable rate controller (`rate_control`:
//! DCQCN, [`super::dcqcn`], TIMELY, [`super::timely`], or HPCC, [`super::hpcc`], which
//! also limits the bytes in flight to its window and reads the in-band telemetry each
//! ACK points to, docs/models/hpcc.md); the receiver NIC acknowledges in order,
//! NACKs the first packet past a gap and, as DCQCN's notification point,
//! answers CE marks with CNPs.
//!
//! Sources: RoCEv2 (InfiniBand Trade Association, Annex A17, 2014) as modelled
//! by the HPCC authors' ns-3 fork (alibaba-edu/High-Precision-Congestion-
//! Control, simulation/src/point-to-point/model/rdma-hw.cc: `ReceiverCheckSeq`,
//! `ReceiveAck`) and by htsim (Broadcom/csg-htsim, sim/roce.cpp: `RoceSrc`,
//! `RoceSink`); DCQCN (Zhu et al., SIGCOMM 2015, §3.1); TIMELY (Mittal et
//! al., SIGCOMM 2015, §4). Model pages: docs/models/dcqcn.md,
//! docs/models/timely.md.
//!
//! * **Sender.** Sends the flow's bytes in order, one packet of `mtu`
//!   payload bytes (+ `header`) at a time, spaced by the packet's
//!   serialization time at the controller's rate Rc (a rate change moves the
//!   next departure as the fork's `ChangeRate` does). Data packets are ECT(0);
//!   the last one carries FIN so that it is acknowledged at once. Optional
//!   `window`: at most this many bytes unacknowledged (off by default, as
//!   DCQCN's NICs; the fork's `HAS_WIN`).
//! * **Receiver (go-back-N).** An in-order packet advances the expected
//!   sequence; a cumulative ACK goes back every `ack_every` packets (and for
//!   FIN). A packet past the expected sequence is discarded and NACKed with
//!   the expected sequence, once per gap, again only after `nack_interval`
//!   (the fork's `m_nackTimer`, `m_lastNACK`). A duplicate is acknowledged
//!   (htsim's sink; the fork stays silent, which would strand a sender whose
//!   last ACK was lost).
//! * **Go-back-N.** A NACK for `a` sets the transmission pointer back to `a`
//!   (everything from `a` is sent again); a fixed retransmission timeout
//!   `rto`, restarted on every ACK that acknowledges new data, does the same
//!   from the first unacknowledged byte (htsim's RTO; the fork has none).
//! * **CNP.** A CE-marked data packet makes the receiver send a CNP (a
//!   control packet of `ack_size` bytes with the CNP flag) unless it sent one
//!   for the flow in the last `cnp_interval` (DCQCN NP, §3.1).
//!
//! Results: the flow table's `retransmits` counts packets sent again,
//! `fast_retransmits` go-backs on a NACK, `timeouts` go-backs on the timer,
//! `ecn_reductions` rate decreases (CNPs acted upon; TIMELY's decreases),
//! `cwnd_bytes` 0; `summary["cc"]` has the controller's counters (DCQCN:
//! `cnps`, `fast_recovery`, `additive`, `hyper`; TIMELY: `completions`,
//! `below_t_low`, `above_t_high`, `additive`, `hyper`, `gradient_decreases`; HPCC:
//! `updates`, `fast_reacts`, `multiplicative`, `additive`)
//! and the NIC's (`nacks`, `go_back_n`, `timeouts`).

use super::dcqcn::{CnpPacer, Rp, RpParams};
use super::hpcc::{Hpcc, HpccParams};
use super::timely::{Timely, TimelyParams};
use super::{EndpointCtx, Env, ReadCtx, Receiver, Sender, SenderReport, SenderSample, TransportSpec};
use crate::cfg::{Res, Tab};
use crate::int::IntStack;
use crate::packet::{flags, Ecn, FlowId, Kind, NodeId, Packet};
use crate::tcp::INFINITE;
use crate::units::{Rate, Time};
use serde_json::Value;
use std::any::Any;

/// The NIC's parameters (besides its rate controller's).
#[derive(Clone, Debug)]
pub struct RoceParams {
    pub mtu: u32,
    pub header: u32,
    pub ack_size: u32,
    /// Bytes to transfer ([`INFINITE`]: until the run ends).
    pub size: u64,
    /// Line rate; `None`: the rate of the source's first link.
    pub rate: Option<Rate>,
    pub window: Option<u64>,
    pub rto: Time,
    pub ack_every: u32,
    pub nack_interval: Time,
    pub cnp_interval: Time,
}

/// The rate controller a RoCE NIC runs (`cc`).
#[derive(Clone, Debug)]
pub enum RateCc {
    Dcqcn(RpParams),
    Timely(TimelyParams),
    Hpcc(HpccParams),
}

/// A rate controller's state in one sender NIC.
#[derive(Clone, Debug)]
pub enum RateCtl {
    Dcqcn(Rp),
    Timely(Timely),
    Hpcc(Box<Hpcc>),
}

impl RateCtl {
    /// The current rate, bit/s.
    pub fn rate(&self) -> f64 {
        match self {
            RateCtl::Dcqcn(r) => r.rate(),
            RateCtl::Timely(t) => t.rate(),
            RateCtl::Hpcc(h) => h.rate(),
        }
    }
    fn next_wake(&self) -> Option<Time> {
        match self {
            RateCtl::Dcqcn(r) => r.next_wake(),
            RateCtl::Timely(_) | RateCtl::Hpcc(_) => None,
        }
    }
    fn name(&self) -> &'static str {
        match self {
            RateCtl::Dcqcn(_) => "dcqcn",
            RateCtl::Timely(_) => "timely",
            RateCtl::Hpcc(_) => "hpcc",
        }
    }
    /// Rate decreases, for the flow table's `ecn_reductions`.
    fn decreases(&self) -> u64 {
        match self {
            RateCtl::Dcqcn(r) => r.stats.cnps,
            RateCtl::Timely(t) => t.stats.above_t_high + t.stats.gradient_decreases,
            RateCtl::Hpcc(h) => h.stats.multiplicative,
        }
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        match self {
            RateCtl::Dcqcn(r) => {
                let r = &r.stats;
                vec![
                    ("cnps", r.cnps as f64),
                    ("fast_recovery", r.fast_recovery as f64),
                    ("additive", r.additive as f64),
                    ("hyper", r.hyper as f64),
                ]
            }
            RateCtl::Timely(t) => {
                let t = &t.stats;
                vec![
                    ("completions", t.completions as f64),
                    ("below_t_low", t.below_t_low as f64),
                    ("above_t_high", t.above_t_high as f64),
                    ("additive", t.additive as f64),
                    ("hyper", t.hyper as f64),
                    ("gradient_decreases", t.gradient_decreases as f64),
                ]
            }
            RateCtl::Hpcc(h) => {
                let r = &h.stats;
                vec![
                    ("updates", r.updates as f64),
                    ("fast_reacts", r.fast_reacts as f64),
                    ("multiplicative", r.multiplicative as f64),
                    ("additive", r.additive as f64),
                ]
            }
        }
    }
}

/// A `roce` flow as read from a scenario.
#[derive(Clone, Debug)]
pub struct RoceSpec {
    pub p: RoceParams,
    pub cc: RateCc,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "rate_control",
        "roce: the NIC's rate controller (dcqcn: Zhu et al., SIGCOMM 2015; timely: Mittal et al., SIGCOMM 2015; hpcc: Li et al., SIGCOMM 2019, which needs [switches] int = true)",
    ),
    ("eta", "hpcc: target utilization η of the most loaded link, in (0, 1] (0.95)"),
    (
        "max_stage",
        "hpcc: additive-increase stages before a multiplicative update (maxStage = 5)",
    ),
    (
        "w_ai",
        "hpcc: additive increase of the window W_AI, or \"auto\" (the fork's R_AI·T, R_AI = line rate/2500)",
    ),
    (
        "base_rtt",
        "hpcc: base RTT T, or \"auto\" (the flow's path: delays and serializations of a data packet and its ACK)",
    ),
    ("size", "roce: bytes to transfer, or \"inf\" (until the run ends)"),
    ("mtu", "roce: payload bytes per data packet (the ns-3 fork's 1000)"),
    ("header", "roce: header bytes added on the wire to each data packet"),
    ("ack_size", "roce: bytes on the wire of an ACK, NACK or CNP"),
    (
        "rate",
        "roce: line rate, \"access\" (the rate of the source's first link) or a rate",
    ),
    (
        "window",
        "roce: cap on unacknowledged bytes, or \"inf\" (none: DCQCN NICs have no window)",
    ),
    (
        "rto",
        "roce: fixed retransmission timeout (go back to the first unacknowledged byte)",
    ),
    (
        "ack_every",
        "roce: the receiver acknowledges every this many in-order packets",
    ),
    (
        "nack_interval",
        "roce: the receiver repeats a NACK for the same gap only after this long (the fork's 500us)",
    ),
    (
        "cnp_interval",
        "roce / dcqcn NP: at most one CNP per flow per this interval (N = 50us)",
    ),
    ("g", "dcqcn: EWMA gain of alpha, in (0, 1] (1/256)"),
    (
        "alpha_timer",
        "dcqcn: alpha decays by (1 - g) each such period without a CNP (K = 55us)",
    ),
    ("rate_timer", "dcqcn: rate-increase timer T (55us)"),
    ("byte_counter", "dcqcn: bytes sent per byte-counter stage B (10MB)"),
    ("fast_recovery", "dcqcn: stages of fast recovery F after a CNP (5)"),
    ("rate_ai", "dcqcn: additive increase of the target rate R_AI (40Mbps)"),
    (
        "rate_hai",
        "dcqcn: hyper increase step of the target rate R_HAI (400Mbps)",
    ),
    (
        "min_rate",
        "dcqcn, timely, hpcc: lowest current rate (the fork's 100Mbps)",
    ),
    (
        "seg",
        "timely: bytes acknowledged per completion event (one RTT sample and rate update), at least mtu (16KB; paper 16-64KB)",
    ),
    (
        "alpha",
        "timely: EWMA weight of a new RTT difference, in (0, 1] (0.875)",
    ),
    ("beta", "timely: multiplicative decrease factor, in (0, 1] (0.8)"),
    ("t_low", "timely: below this RTT the rate grows by delta (50us)"),
    (
        "t_high",
        "timely: above this RTT the rate is cut by beta·(1 − t_high/rtt); above t_low (500us)",
    ),
    ("min_rtt", "timely: the RTT normalizing the gradient, positive (20us)"),
    ("delta", "timely: additive increment δ, positive (10Mbps)"),
    (
        "hai_after",
        "timely: completions with gradient ≤ 0 in a row before the step is hai_n·δ (5)",
    ),
    ("hai_n", "timely: hyperactive increase multiplier N, at least 1 (5)"),
];

impl RoceSpec {
    /// Reads the NIC's keys and the rate controller's ([`read_dcqcn`]), with
    /// the range checks that name each key.
    pub fn read(t: &mut Tab, cx: &ReadCtx) -> Res<RoceSpec> {
        t.docs(DOCS);
        let control = t.choice("rate_control", Some("dcqcn"), &["dcqcn", "timely", "hpcc"])?;
        let size = if cx.in_workload {
            INFINITE
        } else {
            match t.size_or_inf("size", "inf")? {
                Some(0) => return Err(t.error("size", &Value::from(0), "a positive size or \"inf\"")),
                Some(b) => b,
                None => INFINITE,
            }
        };
        let mtu = t.uint("mtu", Some(1000), 1, 65_000)? as u32;
        let header = t.uint("header", Some(48), 0, 1000)? as u32;
        let ack_size = t.uint("ack_size", Some(60), 1, 1500)? as u32;
        let rate = match t.get("rate") {
            None | Some(Value::String(_)) if t.get("rate").is_none_or(|v| v == "access") => {
                t.raw("rate");
                t.put("rate", Value::String("access".into()));
                None
            }
            _ => Some(t.rate("rate", None)?),
        };
        let window = match t.size_or_inf("window", "inf")? {
            Some(0) => return Err(t.error("window", &Value::from(0), "a positive size or \"inf\"")),
            w => w,
        };
        let rto = t.time("rto", Some("4ms"))?;
        if rto < Time::from_micros(1) {
            return Err(t.error("rto", &Value::from(crate::cfg::time_str(rto)), "at least 1us"));
        }
        let ack_every = t.uint("ack_every", Some(1), 1, 1_000_000)? as u32;
        let nack_interval = t.time("nack_interval", Some("500us"))?;
        let cnp_interval = t.time("cnp_interval", Some("50us"))?;
        let cc = if control == "timely" {
            RateCc::Timely(read_timely(t, mtu)?)
        } else if control == "hpcc" {
            RateCc::Hpcc(read_hpcc(t)?)
        } else {
            RateCc::Dcqcn(read_dcqcn(t)?)
        };
        Ok(RoceSpec {
            p: RoceParams {
                mtu,
                header,
                ack_size,
                size,
                rate,
                window,
                rto,
                ack_every,
                nack_interval,
                cnp_interval,
            },
            cc,
        })
    }
}

/// HPCC's keys (paper §5 and Algorithm 1; docs/models/hpcc.md).
fn read_hpcc(t: &mut Tab) -> Res<HpccParams> {
    let eta = t.float("eta", Some(0.95), 0.0, 1.0)?;
    if eta <= 0.0 {
        return Err(t.error("eta", &Value::from(eta), "a target utilization in (0, 1]"));
    }
    let max_stage = t.uint("max_stage", Some(5), 0, 1000)? as u32;
    let w_ai = match t.get("w_ai") {
        None => {
            t.raw("w_ai");
            t.put("w_ai", Value::String("auto".into()));
            None
        }
        Some(v) if v == "auto" => {
            t.raw("w_ai");
            None
        }
        Some(_) => Some(t.size("w_ai", None)?),
    };
    let base_rtt = match t.get("base_rtt") {
        None => {
            t.raw("base_rtt");
            t.put("base_rtt", Value::String("auto".into()));
            None
        }
        Some(v) if v == "auto" => {
            t.raw("base_rtt");
            None
        }
        Some(_) => {
            let b = t.time("base_rtt", None)?;
            if b == Time::ZERO {
                return Err(t.error("base_rtt", &Value::from("0s"), "a positive time or \"auto\""));
            }
            Some(b)
        }
    };
    let min_rate = t.rate("min_rate", Some("100Mbps"))?.0 as f64;
    Ok(HpccParams {
        eta,
        max_stage,
        w_ai,
        base_rtt,
        min_rate,
    })
}

/// DCQCN's reaction-point keys (paper §5 defaults; docs/models/dcqcn.md).
fn read_dcqcn(t: &mut Tab) -> Res<RpParams> {
    let g = t.float("g", Some(1.0 / 256.0), 0.0, 1.0)?;
    if g <= 0.0 {
        return Err(t.error("g", &Value::from(g), "a gain in (0, 1]"));
    }
    let positive = |t: &mut Tab, key: &'static str, d: &str| -> Res<Time> {
        let v = t.time(key, Some(d))?;
        if v == Time::ZERO {
            return Err(t.error(key, &Value::from("0s"), "a positive time"));
        }
        Ok(v)
    };
    let alpha_timer = positive(t, "alpha_timer", "55us")?;
    let rate_timer = positive(t, "rate_timer", "55us")?;
    let byte_counter = t.size("byte_counter", Some("10MB"))?;
    if byte_counter == 0 {
        return Err(t.error("byte_counter", &Value::from(0), "a positive size"));
    }
    let f = t.uint("fast_recovery", Some(5), 0, 1000)? as u32;
    let rai = t.rate("rate_ai", Some("40Mbps"))?.0 as f64;
    let rhai = t.rate("rate_hai", Some("400Mbps"))?.0 as f64;
    let min_rate = t.rate("min_rate", Some("100Mbps"))?.0 as f64;
    Ok(RpParams {
        g,
        alpha_timer,
        rate_timer,
        byte_counter,
        f,
        rai,
        rhai,
        min_rate,
    })
}

/// TIMELY's keys (docs/models/timely.md), with their range checks.
fn read_timely(t: &mut Tab, mtu: u32) -> Res<TimelyParams> {
    let d = TimelyParams::default();
    let seg = t.size("seg", Some("16KB"))?;
    if seg < mtu as u64 || seg > 1 << 30 {
        return Err(t.error("seg", &Value::from(seg), format!("a size from mtu ({mtu} B) to 1GB")));
    }
    let unit = |t: &mut Tab, key: &'static str, d: f64| -> Res<f64> {
        let v = t.float(key, Some(d), 0.0, 1.0)?;
        if v <= 0.0 {
            return Err(t.error(key, &Value::from(v), "a number in (0, 1]"));
        }
        Ok(v)
    };
    let alpha = unit(t, "alpha", d.alpha)?;
    let beta = unit(t, "beta", d.beta)?;
    let t_low = t.time("t_low", Some("50us"))?;
    let t_high = t.time("t_high", Some("500us"))?;
    if t_high <= t_low {
        let v = Value::from(crate::cfg::time_str(t_high));
        return Err(t.error(
            "t_high",
            &v,
            format!("a time above t_low ({})", crate::cfg::time_str(t_low)),
        ));
    }
    let min_rtt = t.time("min_rtt", Some("20us"))?;
    if min_rtt == Time::ZERO {
        return Err(t.error("min_rtt", &Value::from("0s"), "a positive time"));
    }
    let delta = t.rate("delta", Some("10Mbps"))?.0 as f64;
    if delta <= 0.0 {
        return Err(t.error("delta", &Value::from("0bps"), "a positive rate"));
    }
    let hai_after = t.uint("hai_after", Some(5), 1, 1_000_000)? as u32;
    let hai_n = t.float("hai_n", Some(d.hai_n), 1.0, 1e6)?;
    let min_rate = t.rate("min_rate", Some("100Mbps"))?.0 as f64;
    Ok(TimelyParams {
        seg,
        alpha,
        beta,
        t_low,
        t_high,
        min_rtt,
        delta,
        hai_after,
        hai_n,
        min_rate,
    })
}

impl TransportSpec for RoceSpec {
    fn kind(&self) -> &'static str {
        "roce"
    }
    fn build(&self, env: Env) -> (Box<dyn Sender>, Box<dyn Receiver>) {
        let mut p = self.p.clone();
        if let Some(size) = env.size {
            p.size = size;
        }
        let line = p.rate.unwrap_or(env.first_hop);
        let rp = match &self.cc {
            RateCc::Dcqcn(rp) => {
                let min = rp.min_rate.min(line.0 as f64);
                RateCtl::Dcqcn(Rp::new(
                    RpParams {
                        min_rate: min,
                        ..rp.clone()
                    },
                    line.0 as f64,
                ))
            }
            RateCc::Timely(tp) => RateCtl::Timely(Timely::new(tp.clone(), line.0 as f64)),
            RateCc::Hpcc(hp) => {
                let rtt = env.base_rtt.unwrap_or(Time::from_micros(10));
                RateCtl::Hpcc(Box::new(Hpcc::new(hp.clone(), line.0 as f64, rtt)))
            }
        };
        let r = RoceReceiver::new(&p, env.flow, env.dst, env.src);
        (
            Box::new(RoceSender::new(p, rp, env.flow, env.src, env.dst)),
            Box::new(r),
        )
    }
    fn max_packet(&self) -> u64 {
        (self.p.mtu + self.p.header) as u64
    }
    fn bdp_packet(&self) -> Option<u64> {
        Some(self.max_packet())
    }
    fn needs_return_path(&self) -> bool {
        true
    }
    fn transfers(&self) -> bool {
        true
    }
    fn base_rtt_sizes(&self) -> Option<(u64, u64)> {
        match &self.cc {
            RateCc::Hpcc(h) if h.base_rtt.is_none() => Some((self.max_packet(), self.p.ack_size as u64)),
            _ => None,
        }
    }
    fn needs_int(&self) -> bool {
        matches!(self.cc, RateCc::Hpcc(_))
    }
}

/// Flag bits of RoCE control packets (in the TCP flags byte, above TCP's).
pub mod roce_flags {
    /// A NACK: `ack` is the sequence the receiver expects (go back to it).
    pub const NAK: u8 = 1 << 5;
    /// A DCQCN congestion notification packet.
    pub const CNP: u8 = 1 << 6;
}

/// Counters of a RoCE sender NIC.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoceStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub retransmits: u64,
    pub nacks: u64,
    pub go_back_n: u64,
    pub timeouts: u64,
}

/// The sending NIC: paced at the controller's rate, go-back-N.
pub struct RoceSender {
    p: RoceParams,
    rp: RateCtl,
    /// Data packets sent with a telemetry slot (HPCC), and the slots of
    /// the ring less one (a power of two less one).
    int_sent: u64,
    int_mask: u64,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    una: u64,
    next: u64,
    snd_max: u64,
    /// The next paced departure, while there is something to send.
    send_at: Option<Time>,
    /// The last departure and its size on the wire (to move `send_at` when
    /// the rate changes).
    last_tx: Option<(Time, u64)>,
    rto_at: Option<Time>,
    started: bool,
    completed: Option<Time>,
    srtt: Option<Time>,
    min_rtt: Option<Time>,
    pub stats: RoceStats,
}

impl RoceSender {
    /// A sender running `rp`. With HPCC its ring of telemetry slots holds
    /// four windows of packets (and at least 64), up to 2^15 slots.
    pub fn new(p: RoceParams, rp: RateCtl, flow: FlowId, src: NodeId, dst: NodeId) -> RoceSender {
        let int_mask = match &rp {
            RateCtl::Hpcc(h) => {
                let pkts = (h.window() / p.mtu as f64).ceil() as u64;
                (4 * pkts).clamp(64, 1 << 15).next_power_of_two() - 1
            }
            _ => 0,
        };
        RoceSender {
            p,
            rp,
            int_sent: 0,
            int_mask,
            flow,
            src,
            dst,
            una: 0,
            next: 0,
            snd_max: 0,
            send_at: None,
            last_tx: None,
            rto_at: None,
            started: false,
            completed: None,
            srtt: None,
            min_rtt: None,
            stats: RoceStats::default(),
        }
    }
    pub fn rate_ctl(&self) -> &RateCtl {
        &self.rp
    }
    /// HPCC's state, if it runs HPCC.
    pub fn hpcc(&self) -> Option<&Hpcc> {
        match &self.rp {
            RateCtl::Hpcc(h) => Some(h),
            _ => None,
        }
    }
    /// The bytes it may have unacknowledged: the NIC's `window` and HPCC's W.
    fn window(&self) -> Option<u64> {
        let cc = self.hpcc().map(|h| (h.window() as u64).max(1));
        match (self.p.window, cc) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn rate(&self) -> Rate {
        Rate((self.rp.rate().round() as u64).max(1))
    }
    fn can_send(&self) -> bool {
        self.next < self.p.size && self.window().is_none_or(|w| self.next - self.una < w)
    }
    /// When the next packet may leave: the last departure plus its
    /// serialization at the current rate (not before now).
    fn schedule(&mut self, now: Time) {
        self.send_at = if self.can_send() {
            Some(match self.last_tx {
                Some((t, b)) => (t + self.rate().tx_time(b)).max(now),
                None => now,
            })
        } else {
            None
        };
    }
    fn send_one(&mut self, cx: &mut EndpointCtx) {
        let seq = self.next;
        let len = (self.p.size - seq).min(self.p.mtu as u64) as u32;
        let mut p = Packet::segment(self.flow, self.src, self.dst, seq, len, self.p.header, cx.now);
        match self.rp {
            RateCtl::Hpcc(_) => {
                p.int = (self.int_sent & self.int_mask) as u16;
                self.int_sent += 1;
            }
            _ => p.ecn = Ecn::Ect0,
        }
        p.retx = seq < self.snd_max;
        if seq + len as u64 >= self.p.size {
            p.flags |= flags::FIN;
        }
        let wire = (len + self.p.header) as u64;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        self.stats.retransmits += p.retx as u64;
        cx.out.push(p);
        self.next = seq + len as u64;
        self.snd_max = self.snd_max.max(self.next);
        self.last_tx = Some((cx.now, wire));
        if let RateCtl::Dcqcn(rp) = &mut self.rp {
            rp.on_sent(wire);
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(cx.now + self.p.rto);
        }
    }
    /// Go-back-N to `seq`.
    fn go_back(&mut self, seq: u64, now: Time) {
        self.next = seq.max(self.una);
        self.schedule(now);
    }
    fn on_ack(&mut self, pkt: &Packet, now: Time) {
        let rtt = now.saturating_sub(pkt.ts_ecr);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.srtt = Some(self.srtt.map_or(rtt, |s| Time((s.0 * 7 + rtt.0) / 8)));
        let a = pkt.ack.min(self.snd_max);
        if a > self.una {
            self.una = a;
            if let RateCtl::Timely(t) = &mut self.rp {
                // A completion event: TIMELY's RTT sample is this ACK's, the
                // send time of the packet it acknowledges (echoed) to now.
                if t.on_ack(a, rtt) && self.send_at.is_some() {
                    self.schedule(now);
                }
            }
            if a >= self.p.size {
                self.completed = Some(now);
                self.send_at = None;
                self.rto_at = None;
                return;
            }
            self.rto_at = (self.una < self.snd_max).then(|| now + self.p.rto);
        }
        if pkt.has(roce_flags::NAK) {
            self.stats.nacks += 1;
            if a < self.next {
                self.stats.go_back_n += 1;
                self.go_back(a, now);
            }
        } else if self.send_at.is_none() {
            self.schedule(now); // a window may have opened
        }
    }
}

impl Sender for RoceSender {
    fn start(&mut self, cx: &mut EndpointCtx) {
        self.started = true;
        self.schedule(cx.now);
        self.on_timer(cx);
    }
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if !self.started || self.completed.is_some() || pkt.kind != Kind::Ack {
            return;
        }
        if let (true, RateCtl::Dcqcn(rp)) = (pkt.has(roce_flags::CNP), &mut self.rp) {
            rp.on_cnp(cx.now);
            if self.send_at.is_some() {
                self.schedule(cx.now);
            }
        }
        if pkt.has(flags::ACK) {
            self.on_ack(pkt, cx.now);
        }
    }
    fn on_int(&mut self, pkt: &Packet, int: Option<&IntStack>, cx: &mut EndpointCtx) {
        if !self.started || self.completed.is_some() || pkt.kind != Kind::Ack {
            return;
        }
        if let (RateCtl::Hpcc(h), Some(int)) = (&mut self.rp, int) {
            h.on_ack(pkt.ack, self.next, int);
        }
        self.on_packet(pkt, cx);
        if self.send_at.is_some() {
            self.schedule(cx.now); // the rate moved
        }
    }
    fn on_timer(&mut self, cx: &mut EndpointCtx) {
        if self.completed.is_some() {
            return;
        }
        if let Some(rp) = match &mut self.rp {
            RateCtl::Dcqcn(rp) => rp.next_wake().is_some_and(|t| t <= cx.now).then_some(rp),
            RateCtl::Timely(_) | RateCtl::Hpcc(_) => None,
        } {
            rp.on_timer(cx.now);
            if self.send_at.is_some() {
                self.schedule(cx.now);
            }
        }
        if self.rto_at.is_some_and(|t| t <= cx.now) {
            self.rto_at = None;
            if self.una < self.snd_max {
                self.stats.timeouts += 1;
                self.rto_at = Some(cx.now + self.p.rto);
                let una = self.una;
                self.go_back(una, cx.now);
            }
        }
        if self.send_at.is_some_and(|t| t <= cx.now) {
            self.send_one(cx);
            self.schedule(cx.now);
        }
    }
    fn next_wake(&self) -> Option<Time> {
        [self.send_at, self.next_timer()].into_iter().flatten().min()
    }
    fn next_send(&self) -> Option<Time> {
        self.send_at
    }
    fn next_timer(&self) -> Option<Time> {
        if self.completed.is_some() {
            return None;
        }
        [self.rto_at, self.rp.next_wake()].into_iter().flatten().min()
    }
    fn completed(&self) -> Option<Time> {
        self.completed
    }
    fn cc_name(&self) -> &'static str {
        self.rp.name()
    }
    fn cc_stats(&self) -> Vec<(&'static str, f64)> {
        let mut v = self.rp.stats();
        v.extend([
            ("nacks", self.stats.nacks as f64),
            ("go_back_n", self.stats.go_back_n as f64),
            ("timeouts", self.stats.timeouts as f64),
        ]);
        v
    }
    fn report(&self) -> SenderReport {
        SenderReport {
            bytes_sent: self.stats.bytes_sent,
            packets_sent: self.stats.packets_sent,
            retransmits: self.stats.retransmits,
            timeouts: self.stats.timeouts,
            fast_retransmits: self.stats.go_back_n,
            ecn_reductions: self.rp.decreases(),
            cwnd: self.hpcc().map_or(0, |h| h.window() as u64),
            srtt: self.srtt,
            min_rtt: self.min_rtt,
        }
    }
    fn sample(&self) -> Option<SenderSample> {
        Some(SenderSample {
            cwnd: self.hpcc().map_or(0, |h| h.window() as u64),
            ssthresh: 0,
            srtt: self.srtt,
            sent_seq: self.snd_max,
            inflight: self.snd_max - self.una,
            in_recovery: self.next < self.snd_max,
            cc_state: self.rp.rate() / 8.0,
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Counters of a RoCE receiver NIC.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoceRecvStats {
    pub ce_received: u64,
    pub cnps_sent: u64,
    pub nacks_sent: u64,
    pub out_of_order: u64,
}

/// The receiving NIC: in-order delivery, NACK per gap, CNPs (DCQCN's NP).
pub struct RoceReceiver {
    flow: FlowId,
    /// This end (the flow's destination) and the sender's node.
    me: NodeId,
    peer: NodeId,
    ack_size: u32,
    ack_every: u32,
    nack_interval: Time,
    expected: u64,
    unacked: u32,
    last_nack: Option<(u64, Time)>,
    np: CnpPacer,
    pub stats: RoceRecvStats,
}

impl RoceReceiver {
    pub fn new(p: &RoceParams, flow: FlowId, me: NodeId, peer: NodeId) -> RoceReceiver {
        RoceReceiver {
            flow,
            me,
            peer,
            ack_size: p.ack_size,
            ack_every: p.ack_every,
            nack_interval: p.nack_interval,
            expected: 0,
            unacked: 0,
            last_nack: None,
            np: CnpPacer::new(p.cnp_interval),
            stats: RoceRecvStats::default(),
        }
    }
    fn control(&self, f: u8, echo: Time, now: Time) -> Packet {
        let mut a = Packet::new(0, self.flow, self.me, self.peer, self.ack_size, Kind::Ack, now);
        a.ack = self.expected;
        a.flags = f;
        a.ts_ecr = echo;
        a
    }
    /// An ACK or NACK for `data`, echoing its telemetry slot (HPCC's
    /// receiver copies the INT header into the ACK).
    fn answer(&self, f: u8, data: &Packet, now: Time) -> Packet {
        let mut a = self.control(f, data.ts_val, now);
        a.int = data.int;
        a
    }
}

impl Receiver for RoceReceiver {
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if pkt.kind != Kind::Data {
            return;
        }
        if pkt.ecn == Ecn::Ce {
            self.stats.ce_received += 1;
            if self.np.on_ce(cx.now) {
                self.stats.cnps_sent += 1;
                let c = self.control(roce_flags::CNP, pkt.ts_val, cx.now);
                cx.out.push(c);
            }
        }
        if pkt.seq == self.expected {
            self.expected = pkt.end_seq();
            self.unacked += 1;
            if self.unacked >= self.ack_every || pkt.has(flags::FIN) {
                self.unacked = 0;
                let a = self.answer(flags::ACK, pkt, cx.now);
                cx.out.push(a);
            }
        } else if pkt.seq > self.expected {
            // Go-back-N: discard; NACK once per gap, again after nack_interval.
            self.stats.out_of_order += 1;
            let again = match self.last_nack {
                Some((e, t)) => e != self.expected || cx.now >= t + self.nack_interval,
                None => true,
            };
            if again {
                self.last_nack = Some((self.expected, cx.now));
                self.stats.nacks_sent += 1;
                let n = self.answer(flags::ACK | roce_flags::NAK, pkt, cx.now);
                cx.out.push(n);
            }
        } else {
            let a = self.answer(flags::ACK, pkt, cx.now);
            cx.out.push(a);
        }
    }
    fn on_timer(&mut self, _: &mut EndpointCtx) {}
    fn next_wake(&self) -> Option<Time> {
        None
    }
    fn delivered(&self) -> u64 {
        self.expected
    }
    fn ce_received(&self) -> u64 {
        self.stats.ce_received
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(size: u64) -> RoceParams {
        RoceParams {
            mtu: 1000,
            header: 0,
            ack_size: 60,
            size,
            rate: None,
            window: None,
            rto: Time::from_millis(1),
            ack_every: 1,
            nack_interval: Time::from_micros(500),
            cnp_interval: Time::from_micros(50),
        }
    }
    /// A sender of `size` bytes at 8 Gb/s (one 1000-byte packet per µs).
    fn sender(size: u64) -> RoceSender {
        let rp = RateCtl::Dcqcn(Rp::new(RpParams::default(), 8e9));
        RoceSender::new(params(size), rp, FlowId(0), NodeId(0), NodeId(1))
    }
    fn run(s: &mut RoceSender, until: Time, out: &mut Vec<Packet>) {
        while let Some(t) = s.next_wake().filter(|&t| t <= until) {
            s.on_timer(&mut EndpointCtx { now: t, out });
        }
    }
    fn us(x: u64) -> Time {
        Time::from_micros(x)
    }

    #[test]
    fn paces_at_line_rate_and_halves_on_a_cnp() {
        let mut s = sender(100_000);
        let mut out = Vec::new();
        s.start(&mut EndpointCtx {
            now: Time::ZERO,
            out: &mut out,
        });
        run(&mut s, us(9), &mut out);
        let at: Vec<u64> = out.iter().map(|p| p.ts_val.0).collect();
        assert_eq!(at, (0..10).map(|k| k * 1000).collect::<Vec<_>>());
        let mut cnp = Packet::new(0, FlowId(0), NodeId(1), NodeId(0), 60, Kind::Ack, us(9));
        cnp.flags = roce_flags::CNP;
        s.on_packet(
            &cnp,
            &mut EndpointCtx {
                now: us(9) + Time(500),
                out: &mut out,
            },
        );
        out.clear();
        run(&mut s, us(20), &mut out);
        // At 4 Gb/s: the packet after the one sent at 9 µs leaves at 11 µs.
        assert_eq!(out[0].ts_val, us(11));
        assert_eq!(out[1].ts_val, us(13));
    }

    /// The receiver NACKs the first packet past a gap once, discards the rest
    /// of the gap's packets; the sender goes back to the NACKed sequence.
    #[test]
    fn go_back_n_on_a_nack() {
        let p = params(10_000);
        let mut r = RoceReceiver::new(&p, FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        let seg = |seq: u64| Packet::segment(FlowId(0), NodeId(0), NodeId(1), seq, 1000, 0, Time::ZERO);
        for seq in [0, 2000, 3000, 4000] {
            r.on_packet(
                &seg(seq),
                &mut EndpointCtx {
                    now: us(seq / 1000),
                    out: &mut out,
                },
            );
        }
        let kinds: Vec<(u64, bool)> = out.iter().map(|a| (a.ack, a.has(roce_flags::NAK))).collect();
        assert_eq!(kinds, vec![(1000, false), (1000, true)]);
        assert_eq!(r.delivered(), 1000);
        let mut s = sender(10_000);
        let mut sent = Vec::new();
        s.start(&mut EndpointCtx {
            now: Time::ZERO,
            out: &mut sent,
        });
        run(&mut s, us(4), &mut sent);
        s.on_packet(
            &out[1],
            &mut EndpointCtx {
                now: us(4) + Time(500),
                out: &mut sent,
            },
        );
        let before = sent.len();
        run(&mut s, us(6), &mut sent);
        let seqs: Vec<u64> = sent[before..].iter().map(|p| p.seq).collect();
        assert_eq!(seqs, vec![1000, 2000]);
        assert!(sent[before].retx);
        assert_eq!((s.stats.go_back_n, s.stats.nacks), (1, 1));
    }

    /// CE marks on every packet: one CNP per 50 µs.
    #[test]
    fn cnps_are_paced_per_flow() {
        let p = params(INFINITE);
        let mut r = RoceReceiver::new(&p, FlowId(0), NodeId(1), NodeId(0));
        let mut out = Vec::new();
        for k in 0..120u64 {
            let mut d = Packet::segment(FlowId(0), NodeId(0), NodeId(1), k * 1000, 1000, 0, Time::ZERO);
            d.ecn = Ecn::Ce;
            r.on_packet(
                &d,
                &mut EndpointCtx {
                    now: us(k),
                    out: &mut out,
                },
            );
        }
        let cnps = out.iter().filter(|p| p.has(roce_flags::CNP)).count();
        assert_eq!((cnps, r.stats.ce_received), (3, 120));
    }

    /// A finite flow completes on the ACK of its last byte; a lost tail is
    /// recovered by the timeout.
    #[test]
    fn completes_and_recovers_a_lost_tail_by_timeout() {
        let mut s = sender(3000);
        let mut out = Vec::new();
        s.start(&mut EndpointCtx {
            now: Time::ZERO,
            out: &mut out,
        });
        run(&mut s, us(100), &mut out);
        assert_eq!(out.len(), 3);
        assert!(out[2].has(flags::FIN));
        let mut a = Packet::new(0, FlowId(0), NodeId(1), NodeId(0), 60, Kind::Ack, us(5));
        a.flags = flags::ACK;
        a.ack = 2000;
        s.on_packet(
            &a,
            &mut EndpointCtx {
                now: us(5),
                out: &mut out,
            },
        );
        run(&mut s, us(1006), &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(out.last().unwrap().seq, 2000);
        a.ack = 3000;
        s.on_packet(
            &a,
            &mut EndpointCtx {
                now: us(1010),
                out: &mut out,
            },
        );
        assert_eq!(s.completed(), Some(us(1010)));
        assert_eq!(s.next_wake(), None);
    }

    /// HPCC at 8 Gb/s with T = 10 µs: W = 10 000 bytes, so ten packets go
    /// out (paced at W/T = 8 Gb/s), each with the next telemetry slot, and
    /// the window stops the eleventh; the receiver echoes the slot. An ACK
    /// whose telemetry shows one hop at twice its capacity (a full link and
    /// one BDP queued) halves the window: W = Wc·η/U + W_AI.
    #[test]
    fn hpcc_windows_paces_and_tags_its_packets() {
        use crate::int::{Hop, IntStack};
        let hp = HpccParams {
            base_rtt: Some(us(10)),
            ..HpccParams::default()
        };
        let ctl = RateCtl::Hpcc(Box::new(Hpcc::new(hp, 8e9, us(10))));
        let mut s = RoceSender::new(params(INFINITE), ctl, FlowId(0), NodeId(0), NodeId(1));
        let mut out = Vec::new();
        s.start(&mut EndpointCtx {
            now: Time::ZERO,
            out: &mut out,
        });
        run(&mut s, us(50), &mut out);
        let at: Vec<(u64, u16)> = out.iter().map(|p| (p.ts_val.0, p.int)).collect();
        assert_eq!(at, (0..10).map(|k| (k * 1000, k as u16)).collect::<Vec<_>>());
        assert!(out.iter().all(|p| p.ecn == Ecn::NotEct));
        let mut r = RoceReceiver::new(&params(INFINITE), FlowId(0), NodeId(1), NodeId(0));
        let mut acks = Vec::new();
        for p in &out[..2] {
            r.on_packet(
                p,
                &mut EndpointCtx {
                    now: us(12),
                    out: &mut acks,
                },
            );
        }
        assert_eq!((acks[1].int, acks[1].ts_ecr), (1, us(1)));
        let hop = |ts: u64, tx: u64, q: u64| Hop {
            link: 3,
            ts: us(ts),
            tx_bytes: tx,
            qlen: q,
            rate: Rate(8_000_000_000),
        };
        let stack = |h: Hop| {
            let mut st = IntStack {
                n: 1,
                ..Default::default()
            };
            st.hops[0] = h;
            st
        };
        let mut sent = Vec::new();
        let mut cx = EndpointCtx {
            now: us(12),
            out: &mut sent,
        };
        s.on_int(&acks[0], Some(&stack(hop(2, 0, 10_000))), &mut cx);
        s.on_int(&acks[1], Some(&stack(hop(12, 10_000, 10_000))), &mut cx);
        let h = s.hpcc().unwrap();
        assert!((h.u() - 2.0).abs() < 1e-9, "{}", h.u());
        let w = 10_000.0 * 0.95 / 2.0 + h.w_ai();
        assert!((h.window() - w).abs() < 1e-6, "{}", h.window());
        assert_eq!(s.cc_name(), "hpcc");
    }
}
