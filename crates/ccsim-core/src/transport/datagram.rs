//! Unreliable packet sources for cross traffic and queueing tests: constant
//! bit rate (CBR) and Poisson (exponential inter-departure times), with fixed
//! or exponentially distributed packet sizes (docs/user-guide.md, "Flows":
//! datagram sources). The mean bit rate is the configured rate in both cases. With `ecn` the packets are sent
//! ECN-capable (ECT(0), RFC 3168 §5) and the receiver counts those arriving
//! with CE; the source does not react (an unresponsive ECN-capable flow).
//!
//! Through the transport interface the source is a [`Sender`] that wakes once
//! per packet (its timer is the next departure) and the sink a [`Receiver`]
//! that counts what arrives and never answers.

use super::{EndpointCtx, Env, ReadCtx, Receiver, Sender, SenderReport, SenderSample, TransportSpec};
use crate::cfg::{time_str, Res, Tab};
use crate::packet::{Ecn, FlowId, Kind, NodeId, Packet};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use serde_json::Value;
use std::any::Any;

#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every packet has this size on the wire (bytes).
    Fixed(u32),
    /// Exponential with this mean (bytes), rounded to whole bytes, at least 1.
    Exponential(f64),
}

impl SizeDist {
    pub fn mean(&self) -> f64 {
        match *self {
            SizeDist::Fixed(s) => s as f64,
            SizeDist::Exponential(m) => m,
        }
    }
    pub fn draw(&self, rng: &mut Rng) -> u32 {
        match *self {
            SizeDist::Fixed(s) => s,
            SizeDist::Exponential(m) => (rng.exp(m).round() as u32).max(1),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    Cbr,
    Poisson,
}

/// A CBR or Poisson source as read from a flow table.
#[derive(Clone, Debug)]
pub struct DatagramSpec {
    pub pattern: Pattern,
    pub rate: Rate,
    pub size: SizeDist,
    /// No packet leaves at or after this time.
    pub stop: Time,
    pub ecn: bool,
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("rate", "cbr / poisson: mean sending rate"),
    (
        "packet_size",
        "cbr / poisson: packet size (the mean with size_dist = \"exponential\")",
    ),
    ("size_dist", "datagram sizes: fixed or exponential"),
    (
        "stop",
        "cbr / poisson: no packet leaves at or after this time (default: the end of the run)",
    ),
    (
        "ecn",
        "cbr / poisson: send ECT(0) packets and count CE arrivals (ce_received); the source does not react",
    ),
];

impl DatagramSpec {
    /// Reads `rate`, `packet_size`, `size_dist`, `stop`, `ecn`.
    pub fn read(kind: &str, t: &mut Tab, cx: &ReadCtx) -> Res<DatagramSpec> {
        t.docs(DOCS);
        let rate = t.rate("rate", None)?;
        let psize = t.size("packet_size", Some("1000B"))?;
        if psize == 0 || psize > 65_535 {
            return Err(t.error("packet_size", &Value::from(psize), "a size between 1 B and 65535 B"));
        }
        let dist = t.choice("size_dist", Some("fixed"), &["fixed", "exponential"])?;
        let stop = t.time("stop", Some(&time_str(cx.duration)))?;
        let ecn = t.boolean("ecn", false)?;
        let size = if dist == "fixed" {
            SizeDist::Fixed(psize as u32)
        } else {
            SizeDist::Exponential(psize as f64)
        };
        let pattern = if kind == "cbr" { Pattern::Cbr } else { Pattern::Poisson };
        Ok(DatagramSpec {
            pattern,
            rate,
            size,
            stop,
            ecn,
        })
    }
}

impl TransportSpec for DatagramSpec {
    fn kind(&self) -> &'static str {
        match self.pattern {
            Pattern::Cbr => "cbr",
            Pattern::Poisson => "poisson",
        }
    }
    fn build(&self, env: Env) -> (Box<dyn Sender>, Box<dyn Receiver>) {
        let s = DatagramSource {
            spec: self.clone(),
            rate_bps: self.rate.0 as f64,
            flow: env.flow,
            src: env.src,
            dst: env.dst,
            rng: env.rng,
            next_at: None,
            sent_packets: 0,
            sent_bytes: 0,
        };
        (Box::new(s), Box::new(DatagramSink::default()))
    }
    fn max_packet(&self) -> u64 {
        match self.size {
            SizeDist::Fixed(s) => s as u64,
            SizeDist::Exponential(_) => 0,
        }
    }
    fn bdp_packet(&self) -> Option<u64> {
        None
    }
    fn needs_return_path(&self) -> bool {
        false
    }
    fn transfers(&self) -> bool {
        false
    }
}

pub struct DatagramSource {
    spec: DatagramSpec,
    /// Mean rate in bit/s.
    rate_bps: f64,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    rng: Rng,
    /// Departure time of the next packet, while the source is on.
    next_at: Option<Time>,
    pub sent_packets: u64,
    pub sent_bytes: u64,
}

impl DatagramSource {
    /// Size of the next packet.
    fn next_size(&mut self) -> u32 {
        self.spec.size.draw(&mut self.rng)
    }
    /// Gap until the next packet.
    fn next_gap(&mut self) -> Time {
        let mean = self.spec.size.mean() * 8.0 / self.rate_bps;
        match self.spec.pattern {
            Pattern::Cbr => Time::from_secs_f64(mean),
            Pattern::Poisson => Time::from_secs_f64(self.rng.exp(mean)),
        }
        .max(Time(1))
    }
    /// Sends one packet and sets the next departure (none at or after `stop`).
    fn emit(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        if now >= self.spec.stop {
            self.next_at = None;
            return;
        }
        let size = self.next_size();
        self.sent_packets += 1;
        self.sent_bytes += size as u64;
        let gap = self.next_gap();
        let mut p = Packet::new(0, self.flow, self.src, self.dst, size, Kind::Datagram, now);
        p.seq = self.sent_packets - 1; // the datagram's number in its flow (traces show it)
        if self.spec.ecn {
            p.ecn = Ecn::Ect0;
        }
        self.next_at = Some(now + gap);
        cx.out.push(p);
    }
}

impl Sender for DatagramSource {
    fn start(&mut self, cx: &mut EndpointCtx) {
        self.emit(cx);
    }
    fn on_packet(&mut self, _: &Packet, _: &mut EndpointCtx) {}
    fn on_timer(&mut self, cx: &mut EndpointCtx) {
        if self.next_at.is_some_and(|t| t <= cx.now) {
            self.emit(cx);
        }
    }
    fn next_wake(&self) -> Option<Time> {
        self.next_at
    }
    fn completed(&self) -> Option<Time> {
        None
    }
    fn cc_name(&self) -> &'static str {
        ""
    }
    fn report(&self) -> SenderReport {
        SenderReport {
            bytes_sent: self.sent_bytes,
            packets_sent: self.sent_packets,
            ..SenderReport::default()
        }
    }
    /// Datagram sources keep no window and measure no RTT: what they have sent
    /// (`sent_seq`, in bytes), zeros and NaN for the rest.
    fn sample(&self) -> Option<SenderSample> {
        Some(SenderSample {
            sent_seq: self.sent_bytes,
            srtt: None,
            cc_state: f64::NAN,
            ..SenderSample::default()
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Counts the datagrams that arrive.
#[derive(Default)]
pub struct DatagramSink {
    pub received_packets: u64,
    pub received_bytes: u64,
    /// Packets received with CE set.
    pub received_ce: u64,
}

impl Receiver for DatagramSink {
    fn on_packet(&mut self, pkt: &Packet, _: &mut EndpointCtx) {
        self.received_packets += 1;
        self.received_bytes += pkt.size as u64;
        self.received_ce += (pkt.ecn == Ecn::Ce) as u64;
    }
    fn on_timer(&mut self, _: &mut EndpointCtx) {}
    fn next_wake(&self) -> Option<Time> {
        None
    }
    fn delivered(&self) -> u64 {
        self.received_bytes
    }
    fn ce_received(&self) -> u64 {
        self.received_ce
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
