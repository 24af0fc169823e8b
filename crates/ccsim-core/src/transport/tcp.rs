//! TCP through the transport interface: [`TcpSender`] and [`TcpReceiver`] as a
//! [`Sender`] and a [`Receiver`], and the spec that reads a TCP flow's keys
//! (`tcp/params.rs`) and builds both ends. The model itself is in
//! [`crate::tcp`] (docs/models/tcp.md).

use super::{EndpointCtx, Env, Receiver, Sender, SenderReport, SenderSample, TransportSpec};
use crate::cc;
use crate::cfg::{Res, Tab};
use crate::packet::Packet;
use crate::tcp::{RecvParams, SendParams, TcpReceiver, TcpSender, INFINITE};
use crate::units::Time;
use std::any::Any;
use std::sync::Arc;

/// A TCP flow's parameters: both ends and the congestion control.
#[derive(Clone, Debug)]
pub struct TcpSpec {
    pub snd: SendParams,
    pub rcv: RecvParams,
    pub cc: Arc<dyn cc::CcSpec>,
}

impl TcpSpec {
    /// Reads a TCP flow's keys (`in_workload`: a workload's transport, whose
    /// `size` the workload gives).
    pub fn read(t: &mut Tab, in_workload: bool) -> Res<TcpSpec> {
        let (snd, rcv, cc) = crate::tcp::params::read(t, in_workload)?;
        Ok(TcpSpec { snd, rcv, cc })
    }
}

impl TransportSpec for TcpSpec {
    fn kind(&self) -> &'static str {
        "tcp"
    }
    fn build(&self, env: Env) -> (Box<dyn Sender>, Box<dyn Receiver>) {
        let mut algo = self.cc.build();
        algo.set_hops(env.hops);
        let mut p = self.snd.clone();
        if let Some(size) = env.size {
            p.size = size;
        }
        let s = TcpSender::new(p, algo, env.flow, env.src, env.dst, env.rng);
        let r = TcpReceiver::new(self.rcv.clone(), env.flow, env.dst, env.src);
        (Box::new(s), Box::new(r))
    }
    fn max_packet(&self) -> u64 {
        (self.snd.mss + self.snd.header) as u64
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
    fn wants_hops(&self) -> bool {
        self.cc.needs().hops
    }
}

impl Sender for TcpSender {
    fn start(&mut self, cx: &mut EndpointCtx) {
        TcpSender::start(self, cx)
    }
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        self.on_ack(pkt, cx)
    }
    fn on_timer(&mut self, cx: &mut EndpointCtx) {
        TcpSender::on_timer(self, cx)
    }
    fn next_wake(&self) -> Option<Time> {
        TcpSender::next_wake(self)
    }
    fn next_send(&self) -> Option<Time> {
        self.send_at()
    }
    fn next_timer(&self) -> Option<Time> {
        self.rto_at()
    }
    fn completed(&self) -> Option<Time> {
        TcpSender::completed(self)
    }
    fn cc_name(&self) -> &'static str {
        TcpSender::cc_name(self)
    }
    fn cc_stats(&self) -> Vec<(&'static str, f64)> {
        TcpSender::cc_stats(self)
    }
    fn report(&self) -> SenderReport {
        let s = &self.stats;
        SenderReport {
            bytes_sent: s.bytes_sent,
            packets_sent: s.segments_sent,
            retransmits: s.retransmits,
            timeouts: s.timeouts,
            fast_retransmits: s.fast_retransmits,
            ecn_reductions: s.ecn_reductions,
            cwnd: self.cwnd(),
            srtt: self.rtt().srtt(),
            min_rtt: self.rtt().min_rtt(),
        }
    }
    fn sample(&self) -> Option<SenderSample> {
        Some(SenderSample {
            cwnd: self.cwnd(),
            ssthresh: self.ssthresh(),
            srtt: self.rtt().srtt(),
            sent_seq: self.snd_max(),
            inflight: self.snd_max() - self.snd_una(),
            in_recovery: self.in_recovery(),
            cc_state: self.cc_trace().map_or(f64::NAN, |x| x.1),
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Receiver for TcpReceiver {
    fn on_packet(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        self.on_data(pkt, cx)
    }
    fn on_timer(&mut self, cx: &mut EndpointCtx) {
        TcpReceiver::on_timer(self, cx)
    }
    fn next_wake(&self) -> Option<Time> {
        TcpReceiver::next_wake(self)
    }
    fn delivered(&self) -> u64 {
        TcpReceiver::delivered(self)
    }
    fn ce_received(&self) -> u64 {
        self.stats.ce_received
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A receiver with the ACK scheme BLT and Bully-Tyrant share with TCP
/// (Kim & Farber 1994, §3.3.3 and §4.1.1): infinite buffer, out-of-order data kept, duplicates discarded,
/// one immediate cumulative ACK per data packet echoing its timestamp, no SACK.
pub fn plain_receiver(ack_size: u32, env: &Env) -> TcpReceiver {
    let p = RecvParams {
        buffer: INFINITE,
        delack: None,
        quickack: 0,
        ack_size,
        sack_blocks: 0,
        feedback: None,
        ce_echo: Default::default(),
        ack_hold: false,
    };
    TcpReceiver::new(p, env.flow, env.dst, env.src)
}
