//! Time series sampled at a fixed interval: queue backlog per selected link,
//! the queue discipline's named state values (RED's average and max_p, fair
//! queueing's per-flow backlog), sender state per selected flow (cwnd, ssthresh,
//! SRTT, delivered bytes, highest sequence sent, bytes in flight, the
//! algorithm's traced state: what the transport's `Sender::sample` reports;
//! for datagram flows the bytes received and sent, with a zero window and no
//! RTT) and router component state. Off unless an interval is set; when off it costs one
//! `Option` check at build time and nothing per packet.

use crate::budget::{self, Limits};
use crate::cfg::{show, Res, Tab};
use crate::link::Link;
use crate::qdisc::TraceValue;
use crate::table::{Column, Table};
use crate::units::Time;
use crate::world::{component_key, Flow, Node, WorldRef};

/// Reads `[monitor]`: the sampling interval (`"0s"`, the default, samples
/// nothing) and the queues and flows to sample (`"all"` or lists of names), and
/// checks that the series fit the run's memory budget.
pub fn read(root: &mut Tab, world: WorldRef, duration: Time, limits: &Limits) -> Res<Monitor> {
    let mut monitor = Monitor::default();
    let Some(mut m) = root.table("monitor")? else {
        return Ok(monitor);
    };
    let link_names: Vec<String> = world.links.iter().map(|l| l.name.clone()).collect();
    let flow_names: Vec<String> = world.flows.iter().map(|f| f.name.clone()).collect();
    let iv = m.time("interval", Some("0s"))?;
    let queues = m.select("queues", &link_names)?;
    let flows = m.select("flows", &flow_names)?;
    if iv > Time::ZERO {
        let samples = duration.0 / iv.0 + 1;
        // Flows whose sender reports a sample (datagram sources do too).
        let tcp = flows.iter().filter(|&&i| world.flows[i].snd.sample().is_some()).count() as u64;
        let comps = world.nodes.iter().map(|n| n.comps.len()).sum::<usize>() as u64;
        // Queue disciplines' named values: those they trace now, plus one per
        // flow for the per-flow backlog of per-conversation disciplines.
        let qdisc_values: u64 = queues
            .iter()
            .map(|&i| {
                let q = &world.links[i].qdisc;
                let mut v = Vec::new();
                q.trace(&mut v);
                v.len() as u64
                    + if matches!(q.kind(), "fq" | "drr") {
                        world.flows.len() as u64
                    } else {
                        0
                    }
            })
            .sum();
        let bytes = budget::monitor_bytes(samples, queues.len() as u64, tcp, 8 * comps + qdisc_values);
        let what = format!("{samples} samples of {} queues and {tcp} flows", queues.len());
        let fix = "sample less often or select fewer queues and flows (monitor.queues, monitor.flows)";
        let written = m.raw("interval").map_or_else(String::new, show);
        limits.check(&m.key_path("interval"), written, &what, bytes, fix)?;
    }
    root.put("monitor", m.finish()?);
    if iv > Time::ZERO {
        monitor.interval = Some(iv);
        monitor.queues = queues;
        monitor.flows = flows;
    }
    Ok(monitor)
}

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
    /// Mean sojourn time of the packets that left the queue since the
    /// previous sample (NaN if none did), s.
    pub sojourn: Vec<f64>,
    /// Per selected queue: its sojourn count and sum at the previous sample.
    last: Vec<(u64, u128)>,
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
        self.queue_ts.last.resize(self.queues.len(), (0, 0));
        for (k, &i) in self.queues.iter().enumerate() {
            let l = &links[i];
            let q = &mut self.queue_ts;
            let h = &l.stats.sojourn;
            let (n0, s0) = std::mem::replace(&mut q.last[k], (h.count, h.sum_ns));
            q.sojourn.push(if h.count > n0 {
                (h.sum_ns - s0) as f64 / (h.count - n0) as f64 * 1e-9
            } else {
                f64::NAN
            });
            q.time.push(t);
            q.link.push(i as u32);
            let (packets, bytes) = l.backlog();
            q.packets.push(packets as i64);
            q.bytes.push(bytes as i64);
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
impl Monitor {
    /// The time series as tables (`ts_queue`, `ts_qdisc`, `ts_flow`,
    /// `ts_component`), none if the monitor was off.
    pub fn tables(&self, world: WorldRef) -> Vec<Table> {
        let m = self;
        let mut tables = Vec::new();
        if m.interval.is_some() {
            let qt = &m.queue_ts;
            tables.push(Table {
                name: "ts_queue",
                columns: vec![
                    ("time_s", Column::F64(qt.time.clone())),
                    (
                        "queue",
                        Column::Str(qt.link.iter().map(|&i| world.links[i as usize].name.clone()).collect()),
                    ),
                    ("packets", Column::I64(qt.packets.clone())),
                    ("bytes", Column::I64(qt.bytes.clone())),
                    ("sojourn_mean_s", Column::F64(qt.sojourn.clone())),
                ],
            });
            let dt = &m.qdisc_ts;
            tables.push(Table {
                name: "ts_qdisc",
                columns: vec![
                    ("time_s", Column::F64(dt.time.clone())),
                    (
                        "queue",
                        Column::Str(dt.link.iter().map(|&i| world.links[i as usize].name.clone()).collect()),
                    ),
                    ("name", Column::Str(dt.name.iter().map(|s| s.to_string()).collect())),
                    (
                        "flow",
                        Column::Str(
                            dt.flow
                                .iter()
                                .map(|&f| {
                                    if f < 0 {
                                        String::new()
                                    } else {
                                        world.flows[f as usize].name.clone()
                                    }
                                })
                                .collect(),
                        ),
                    ),
                    ("value", Column::F64(dt.value.clone())),
                ],
            });
            let ft = &m.flow_ts;
            tables.push(Table {
                name: "ts_flow",
                columns: vec![
                    ("time_s", Column::F64(ft.time.clone())),
                    (
                        "flow",
                        Column::Str(ft.flow.iter().map(|&i| world.flows[i as usize].name.clone()).collect()),
                    ),
                    ("cwnd_bytes", Column::I64(ft.cwnd.clone())),
                    ("ssthresh_bytes", Column::I64(ft.ssthresh.clone())),
                    ("srtt_s", Column::F64(ft.srtt.clone())),
                    ("delivered_bytes", Column::I64(ft.delivered.clone())),
                    ("sent_seq", Column::I64(ft.sent_seq.clone())),
                    ("inflight_bytes", Column::I64(ft.inflight.clone())),
                    ("in_recovery", Column::I64(ft.in_recovery.clone())),
                    ("cc_state", Column::F64(ft.cc_state.clone())),
                ],
            });
            let ct = &m.comp_ts;
            tables.push(Table {
                name: "ts_component",
                columns: vec![
                    ("time_s", Column::F64(ct.time.clone())),
                    (
                        "node",
                        Column::Str(ct.node.iter().map(|&i| world.nodes[i as usize].name.clone()).collect()),
                    ),
                    (
                        "component",
                        Column::Str(
                            ct.node
                                .iter()
                                .zip(&ct.comp)
                                .map(|(&i, &k)| component_key(&world.nodes[i as usize].name, k as usize))
                                .collect(),
                        ),
                    ),
                    ("name", Column::Str(ct.name.iter().map(|s| s.to_string()).collect())),
                    ("value", Column::F64(ct.value.clone())),
                ],
            });
        }
        tables
    }
}
