//! Results of a run as column tables (flows, queues, time series) and a JSON
//! summary. The Python layer turns the columns into pandas DataFrames.

use crate::qdisc::{DropReason, MarkReason};
use crate::sim::Sim;
pub use crate::table::{Column, Table};
use serde_json::{json, Value};

pub struct Output {
    pub summary: Value,
    pub resolved: Value,
    pub tables: Vec<Table>,
    /// Result files by name: packet captures, the ns-2 text trace.
    pub files: Vec<(String, Vec<u8>)>,
}

fn nan_or(x: Option<f64>) -> f64 {
    x.unwrap_or(f64::NAN)
}

/// Builds the result tables from a finished simulation.
pub fn collect(sim: &mut Sim, resolved: Value, events: u64) -> Output {
    let (files, trace) = match sim.taps.take() {
        Some(t) => t.finish(sim.world(), &sim.workloads.names()),
        None => (Vec::new(), None),
    };
    let sim = &*sim;
    let end = sim.end;
    let window = (end - sim.warmup).as_secs_f64();

    // Flows.
    let n = sim.flows.len();
    let mut c_flow = Vec::with_capacity(n);
    let mut c_name = Vec::with_capacity(n);
    let mut c_kind = Vec::with_capacity(n);
    let mut c_cc = Vec::with_capacity(n);
    let mut c_src = Vec::with_capacity(n);
    let mut c_dst = Vec::with_capacity(n);
    let mut c_start = Vec::with_capacity(n);
    let (mut c_sent, mut c_segs, mut c_deliv, mut c_deliv_w) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut c_goodput, mut c_retx, mut c_to, mut c_fr, mut c_ecn) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut c_done, mut c_fct, mut c_cwnd, mut c_srtt, mut c_minrtt, mut c_ce) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sim.flows[..sim.workloads.first_slot.unwrap_or(n)].iter().enumerate() {
        c_flow.push(i as i64);
        c_name.push(f.name.clone());
        c_kind.push(f.kind.to_string());
        c_src.push(sim.nodes[f.src.idx()].name.clone());
        c_dst.push(sim.nodes[f.dst.idx()].name.clone());
        c_start.push(f.start.as_secs_f64());
        let delivered = f.delivered_bytes();
        let in_window = delivered - f.delivered_at_warmup;
        c_deliv.push(delivered as i64);
        c_deliv_w.push(in_window as i64);
        let begin = f.start.max(sim.warmup);
        let r = f.snd.report();
        let completed = f.snd.completed();
        c_cc.push(f.snd.cc_name().to_string());
        c_sent.push(r.bytes_sent as i64);
        c_segs.push(r.packets_sent as i64);
        c_retx.push(r.retransmits as i64);
        c_to.push(r.timeouts as i64);
        c_fr.push(r.fast_retransmits as i64);
        c_ecn.push(r.ecn_reductions as i64);
        let stop = completed.unwrap_or(end);
        let active = if stop > begin {
            (stop - begin).as_secs_f64()
        } else {
            0.0
        };
        c_goodput.push(if active > 0.0 {
            in_window as f64 * 8.0 / active
        } else {
            f64::NAN
        });
        c_done.push(nan_or(completed.map(|t| t.as_secs_f64())));
        c_fct.push(nan_or(completed.map(|t| (t - f.start).as_secs_f64())));
        c_cwnd.push(r.cwnd as i64);
        c_srtt.push(nan_or(r.srtt.map(|t| t.as_secs_f64())));
        c_minrtt.push(nan_or(r.min_rtt.map(|t| t.as_secs_f64())));
        c_ce.push(f.rcv.ce_received() as i64);
    }
    let flows = Table {
        name: "flows",
        columns: vec![
            ("flow", Column::I64(c_flow)),
            ("name", Column::Str(c_name)),
            ("kind", Column::Str(c_kind)),
            ("cc", Column::Str(c_cc)),
            ("src", Column::Str(c_src)),
            ("dst", Column::Str(c_dst)),
            ("start_s", Column::F64(c_start)),
            ("bytes_sent", Column::I64(c_sent)),
            ("packets_sent", Column::I64(c_segs)),
            ("bytes_delivered", Column::I64(c_deliv)),
            ("bytes_delivered_window", Column::I64(c_deliv_w)),
            ("goodput_bps", Column::F64(c_goodput)),
            ("retransmits", Column::I64(c_retx)),
            ("timeouts", Column::I64(c_to)),
            ("fast_retransmits", Column::I64(c_fr)),
            ("ecn_reductions", Column::I64(c_ecn)),
            ("ce_received", Column::I64(c_ce)),
            ("completion_s", Column::F64(c_done)),
            ("fct_s", Column::F64(c_fct)),
            ("cwnd_bytes", Column::I64(c_cwnd)),
            ("srtt_s", Column::F64(c_srtt)),
            ("min_rtt_s", Column::F64(c_minrtt)),
        ],
    };

    // Queues (measurement window).
    let mut q = QueueCols::default();
    for (i, l) in sim.links.iter().enumerate() {
        let s = l.stats.since(&sim.link_base[i]);
        q.name.push(l.name.clone());
        q.from.push(sim.nodes[l.from.idx()].name.clone());
        q.to.push(sim.nodes[l.to.idx()].name.clone());
        q.kind.push(l.qdisc.kind().to_string());
        q.limit.push(l.qdisc.limit().label());
        q.rate.push(l.rate.0 as f64);
        q.delay.push(l.delay.as_secs_f64());
        q.arrivals.push(s.arrivals as i64);
        q.departures.push(s.departures as i64);
        q.departure_bytes.push(s.departure_bytes as i64);
        q.drops.push(s.total_drops() as i64);
        for r in DropReason::ALL {
            q.by_reason[r.index()].push(s.drop_count(*r) as i64);
        }
        q.marks.push(s.total_marks() as i64);
        for r in MarkReason::ALL {
            q.marks_by_reason[r.index()].push(s.mark_count(*r) as i64);
        }
        q.util.push(if window > 0.0 {
            s.departure_bytes as f64 * 8.0 / (l.rate.0 as f64 * window)
        } else {
            f64::NAN
        });
        let w_ns = (end - sim.warmup).0 as f64;
        q.mean_pkts.push(s.len_pkt_ns as f64 / w_ns);
        q.mean_bytes.push(s.len_byte_ns as f64 / w_ns);
        q.max_pkts.push(s.max_pkts as i64);
        q.max_bytes.push(s.max_bytes as i64);
        q.loss.push(if s.arrivals > 0 {
            s.total_drops() as f64 / s.arrivals as f64
        } else {
            0.0
        });
    }
    let mut qcols = vec![
        ("queue", Column::Str(q.name)),
        ("from", Column::Str(q.from)),
        ("to", Column::Str(q.to)),
        ("kind", Column::Str(q.kind)),
        ("limit", Column::Str(q.limit)),
        ("rate_bps", Column::F64(q.rate)),
        ("delay_s", Column::F64(q.delay)),
        ("arrivals", Column::I64(q.arrivals)),
        ("departures", Column::I64(q.departures)),
        ("departure_bytes", Column::I64(q.departure_bytes)),
        ("drops", Column::I64(q.drops)),
    ];
    for (r, col) in DropReason::ALL.iter().zip(q.by_reason) {
        qcols.push((r.column(), Column::I64(col)));
    }
    qcols.push(("marks", Column::I64(q.marks)));
    for (r, col) in MarkReason::ALL.iter().zip(q.marks_by_reason) {
        qcols.push((r.column(), Column::I64(col)));
    }
    qcols.extend([
        ("loss_rate", Column::F64(q.loss)),
        ("utilization", Column::F64(q.util)),
        ("mean_len_pkts", Column::F64(q.mean_pkts)),
        ("mean_len_bytes", Column::F64(q.mean_bytes)),
        ("max_len_pkts", Column::I64(q.max_pkts)),
        ("max_len_bytes", Column::I64(q.max_bytes)),
    ]);
    let queues = Table {
        name: "queues",
        columns: qcols,
    };

    let mut tables = vec![flows, queues];
    let node_name = |n: crate::packet::NodeId| sim.nodes[n.idx()].name.clone();
    tables.extend(crate::workload::tables(
        &sim.workloads,
        &sim.connection_rows(),
        &node_name,
        sim.end,
    ));
    tables.extend(trace);
    let m = &sim.monitor;
    if m.interval.is_some() {
        let qt = &m.queue_ts;
        tables.push(Table {
            name: "ts_queue",
            columns: vec![
                ("time_s", Column::F64(qt.time.clone())),
                (
                    "queue",
                    Column::Str(qt.link.iter().map(|&i| sim.links[i as usize].name.clone()).collect()),
                ),
                ("packets", Column::I64(qt.packets.clone())),
                ("bytes", Column::I64(qt.bytes.clone())),
            ],
        });
        let dt = &m.qdisc_ts;
        tables.push(Table {
            name: "ts_qdisc",
            columns: vec![
                ("time_s", Column::F64(dt.time.clone())),
                (
                    "queue",
                    Column::Str(dt.link.iter().map(|&i| sim.links[i as usize].name.clone()).collect()),
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
                                    sim.flows[f as usize].name.clone()
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
                    Column::Str(ft.flow.iter().map(|&i| sim.flows[i as usize].name.clone()).collect()),
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
                    Column::Str(ct.node.iter().map(|&i| sim.nodes[i as usize].name.clone()).collect()),
                ),
                (
                    "component",
                    Column::Str(
                        ct.node
                            .iter()
                            .zip(&ct.comp)
                            .map(|(&i, &k)| component_key(&sim.nodes[i as usize].name, k as usize))
                            .collect(),
                    ),
                ),
                ("name", Column::Str(ct.name.iter().map(|s| s.to_string()).collect())),
                ("value", Column::F64(ct.value.clone())),
            ],
        });
    }

    if let Some(t) = component_events(sim) {
        tables.push(t);
    }

    let mut comps = serde_json::Map::new();
    for node in &sim.nodes {
        for (k, c) in node.comps.iter().enumerate() {
            let stats: serde_json::Map<String, Value> =
                c.stats().into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
            comps.insert(component_key(&node.name, k), json!({"kind": c.kind(), "stats": stats}));
        }
    }
    // The congestion controls' own counters, by flow name (flows that have any).
    let mut cc = serde_json::Map::new();
    for f in &sim.flows[..sim.workloads.first_slot.unwrap_or(n)] {
        let stats = f.snd.cc_stats();
        if !stats.is_empty() {
            let m: serde_json::Map<String, Value> = stats.into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
            cc.insert(f.name.clone(), Value::Object(m));
        }
    }
    let c = &sim.counters;
    let summary = json!({
        "ccsim_version": crate::VERSION,
        "seed": sim.seed,
        "duration_s": end.secs(),
        "warmup_s": sim.warmup.secs(),
        "events": events,
        "peak_pending_events": sim.sched.peak_len(),
        "flows": sim.workloads.first_slot.unwrap_or(sim.flows.len()),
        "links": sim.links.len(),
        "packets_created": c.created,
        "packets_delivered": c.delivered,
        "packets_dropped": c.dropped,
        "packets_in_flight": sim.in_flight(),
        "data_packets_delivered": c.data_delivered,
        "components": comps,
        "cc": cc,
    });
    let mut summary = summary;
    let ws = &sim.workloads;
    if !ws.list.is_empty() {
        let extra = json!({
            "connections_started": ws.rows.len() as u64 + ws.alive,
            "connections_completed": ws.rows.len(),
            "connections_peak_alive": ws.peak_alive,
            "connection_slots": sim.flows.len() - ws.first_slot.unwrap_or(sim.flows.len()),
            "stale_packets": ws.stale_packets,
            "stopped_by": ws.stopped_by,
        });
        summary
            .as_object_mut()
            .expect("object")
            .extend(extra.as_object().expect("object").clone());
    }
    Output {
        summary,
        resolved,
        tables,
        files,
    }
}

/// The event logs of every component that keeps one, as one long table
/// (`ts_component_events`), or `None` if no component logged anything.
fn component_events(sim: &Sim) -> Option<Table> {
    let (mut time, mut node, mut comp, mut name, mut queue, mut flow, mut value) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for n in &sim.nodes {
        for (k, c) in n.comps.iter().enumerate() {
            let key = component_key(&n.name, k);
            for r in c.log() {
                time.push(r.time.as_secs_f64());
                node.push(n.name.clone());
                comp.push(key.clone());
                name.push(r.name.to_string());
                queue.push(r.link.map_or_else(String::new, |l| sim.links[l.idx()].name.clone()));
                flow.push(r.flow.map_or_else(String::new, |f| sim.flows[f.idx()].name.clone()));
                value.push(r.value);
            }
        }
    }
    (!time.is_empty()).then(|| Table {
        name: "ts_component_events",
        columns: vec![
            ("time_s", Column::F64(time)),
            ("node", Column::Str(node)),
            ("component", Column::Str(comp)),
            ("name", Column::Str(name)),
            ("queue", Column::Str(queue)),
            ("flow", Column::Str(flow)),
            ("value", Column::F64(value)),
        ],
    })
}

/// Name of the `k`-th component of a node in results: the node's name for the
/// first, `"<node>#<k>"` for later ones (scenario order).
pub fn component_key(node: &str, k: usize) -> String {
    if k == 0 {
        node.to_string()
    } else {
        format!("{node}#{k}")
    }
}

#[derive(Default)]
struct QueueCols {
    name: Vec<String>,
    from: Vec<String>,
    to: Vec<String>,
    kind: Vec<String>,
    limit: Vec<String>,
    rate: Vec<f64>,
    delay: Vec<f64>,
    arrivals: Vec<i64>,
    departures: Vec<i64>,
    departure_bytes: Vec<i64>,
    drops: Vec<i64>,
    by_reason: [Vec<i64>; DropReason::COUNT],
    marks: Vec<i64>,
    marks_by_reason: [Vec<i64>; MarkReason::COUNT],
    util: Vec<f64>,
    mean_pkts: Vec<f64>,
    mean_bytes: Vec<f64>,
    max_pkts: Vec<i64>,
    max_bytes: Vec<i64>,
    loss: Vec<f64>,
}
