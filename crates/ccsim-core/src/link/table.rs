//! The `queues` result table, from the links' statistics.

use super::{Link, QueueStats};
use crate::packet::NodeId;
use crate::qdisc::{DropReason, MarkReason};
use crate::table::{Column, Table};
use crate::units::Time;

/// The `queues` table: one row per link, its queue's counters over the
/// measurement window (`warmup` to `end`; `base` are the statistics at its
/// start, none for a window from 0) and its utilization; `pfc`, where
/// switches run PFC, each link's pause frames and paused time (ns) over the
/// window. Each link is dropped once its row is written (the table replaces
/// them).
pub fn queues_table(
    links: Vec<Link>,
    base: &[QueueStats],
    pfc: Option<Vec<(u64, u64)>>,
    node_name: &dyn Fn(NodeId) -> String,
    warmup: Time,
    end: Time,
) -> Table {
    let window = (end - warmup).as_secs_f64();
    let mut q = QueueCols::with_rows(links.len());
    let zero = QueueStats::default();
    for (i, l) in links.into_iter().enumerate() {
        let s = l.stats.since(base.get(i).unwrap_or(&zero));
        q.from.push(node_name(l.from));
        q.to.push(node_name(l.to));
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
        let w_ns = (end - warmup).0 as f64;
        q.mean_pkts.push(s.len_pkt_ns as f64 / w_ns);
        q.mean_bytes.push(s.len_byte_ns as f64 / w_ns);
        q.max_pkts.push(s.max_pkts as i64);
        q.max_bytes.push(s.max_bytes as i64);
        let (pauses, paused_ns) = pfc.as_ref().map_or((0, 0), |p| p[i]);
        q.pauses.push(pauses as i64);
        q.paused.push(paused_ns as f64 * 1e-9);
        let h = &s.sojourn;
        for (col, v) in q.sojourn.iter_mut().zip([
            h.mean_s(),
            h.quantile_s(0.5),
            h.quantile_s(0.95),
            h.quantile_s(0.99),
            if h.count > 0 { h.max_ns as f64 * 1e-9 } else { f64::NAN },
        ]) {
            col.push(v);
        }
        q.loss.push(if s.arrivals > 0 {
            s.total_drops() as f64 / s.arrivals as f64
        } else {
            0.0
        });
        q.name.push(l.name);
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
        ("pfc_pauses", Column::I64(q.pauses)),
        ("pfc_paused_s", Column::F64(q.paused)),
    ]);
    for (name, col) in SOJOURN_COLUMNS.iter().zip(q.sojourn) {
        qcols.push((name, Column::F64(col)));
    }
    Table {
        name: "queues",
        columns: qcols,
    }
}

/// The sojourn-time columns of the queue table, in the order of `QueueCols::sojourn`.
const SOJOURN_COLUMNS: [&str; 5] = [
    "sojourn_mean_s",
    "sojourn_p50_s",
    "sojourn_p95_s",
    "sojourn_p99_s",
    "sojourn_max_s",
];

#[derive(Default)]
/// The columns being built, one entry per link.
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
    pauses: Vec<i64>,
    paused: Vec<f64>,
    loss: Vec<f64>,
    sojourn: [Vec<f64>; 5],
}

impl QueueCols {
    /// Columns with room for `n` rows (exactly: with thousands of links,
    /// the slack of growing by doubling would be a third of the table).
    fn with_rows(n: usize) -> QueueCols {
        let mut q = QueueCols::default();
        for v in [&mut q.name, &mut q.from, &mut q.to, &mut q.kind, &mut q.limit] {
            v.reserve_exact(n);
        }
        let ints = [
            &mut q.arrivals,
            &mut q.departures,
            &mut q.departure_bytes,
            &mut q.drops,
            &mut q.marks,
            &mut q.max_pkts,
            &mut q.max_bytes,
            &mut q.pauses,
        ];
        for v in ints.into_iter().chain(&mut q.by_reason).chain(&mut q.marks_by_reason) {
            v.reserve_exact(n);
        }
        let floats = [
            &mut q.rate,
            &mut q.delay,
            &mut q.util,
            &mut q.mean_pkts,
            &mut q.mean_bytes,
            &mut q.loss,
            &mut q.paused,
        ];
        for v in floats.into_iter().chain(&mut q.sojourn) {
            v.reserve_exact(n);
        }
        q
    }
}
