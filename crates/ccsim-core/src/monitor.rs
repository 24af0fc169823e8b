//! Time series sampled at a fixed interval: queue backlog per selected link,
//! the queue discipline's named state values (RED's average and max_p, fair
//! queueing's per-flow backlog), sender state per selected flow (cwnd, ssthresh,
//! SRTT, delivered bytes, highest sequence sent, bytes in flight, the
//! algorithm's traced state: what the transport's `Sender::sample` reports;
//! for datagram flows the bytes received and sent, with a zero window and no
//! RTT) and router component state. Off unless an interval is set; when off it costs one
//! `Option` check at build time and nothing per packet.

use crate::link::Link;
use crate::qdisc::TraceValue;
use crate::units::Time;
use crate::world::{Flow, Node};

#[derive(Default)]
pub struct Monitor {
    pub interval: Option<Time>,
    pub queues: Vec<usize>,
    pub flows: Vec<usize>,
    pub queue_ts: QueueSeries,
    pub qdisc_ts: QdiscSeries,
    pub flow_ts: FlowSeries,
    pub comp_ts: CompSeries,
}

#[derive(Default)]
pub struct QueueSeries {
    pub time: Vec<f64>,
    pub link: Vec<u32>,
    pub packets: Vec<i64>,
    pub bytes: Vec<i64>,
}

/// Named values of queue disciplines (long format: one row per value).
#[derive(Default)]
pub struct QdiscSeries {
    pub time: Vec<f64>,
    pub link: Vec<u32>,
    pub name: Vec<&'static str>,
    /// Flow index for per-flow values, -1 otherwise.
    pub flow: Vec<i64>,
    pub value: Vec<f64>,
    buf: Vec<TraceValue>,
}

#[derive(Default)]
pub struct FlowSeries {
    pub time: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<i64>,
    pub ssthresh: Vec<i64>,
    pub srtt: Vec<f64>,
    pub delivered: Vec<i64>,
    pub sent_seq: Vec<i64>,
    pub inflight: Vec<i64>,
    /// 1 while the sender is in fast recovery, else 0.
    pub in_recovery: Vec<i64>,
    pub cc_state: Vec<f64>,
}

#[derive(Default)]
pub struct CompSeries {
    pub time: Vec<f64>,
    pub node: Vec<u32>,
    /// Index of the component among its node's components.
    pub comp: Vec<u32>,
    pub name: Vec<&'static str>,
    pub value: Vec<f64>,
}

impl Monitor {
    pub fn sample(&mut self, now: Time, links: &[Link], flows: &[Flow], nodes: &[Node]) {
        let t = now.secs();
        for &i in &self.queues {
            let l = &links[i];
            let q = &mut self.queue_ts;
            q.time.push(t);
            q.link.push(i as u32);
            q.packets.push(l.qdisc.backlog_packets() as i64);
            q.bytes.push(l.qdisc.backlog_bytes() as i64);
            let d = &mut self.qdisc_ts;
            d.buf.clear();
            l.qdisc.trace(&mut d.buf);
            for v in &d.buf {
                d.time.push(t);
                d.link.push(i as u32);
                d.name.push(v.name);
                d.flow.push(v.flow.map_or(-1, |f| f.0 as i64));
                d.value.push(v.value);
            }
        }
        for &i in &self.flows {
            let f = &flows[i];
            let Some(x) = f.snd.sample() else { continue };
            let s = &mut self.flow_ts;
            s.time.push(t);
            s.flow.push(i as u32);
            s.cwnd.push(x.cwnd as i64);
            s.ssthresh.push(x.ssthresh.min(i64::MAX as u64) as i64);
            s.srtt.push(x.srtt.map_or(f64::NAN, |x| x.as_secs_f64()));
            s.delivered.push(f.rcv.delivered() as i64);
            s.sent_seq.push(x.sent_seq as i64);
            s.inflight.push(x.inflight as i64);
            s.in_recovery.push(x.in_recovery as i64);
            s.cc_state.push(x.cc_state);
        }
        for (i, n) in nodes.iter().enumerate() {
            for (k, c) in n.comps.iter().enumerate() {
                for (name, v) in c.trace() {
                    let s = &mut self.comp_ts;
                    s.time.push(t);
                    s.node.push(i as u32);
                    s.comp.push(k as u32);
                    s.name.push(name);
                    s.value.push(v);
                }
            }
        }
    }
}
