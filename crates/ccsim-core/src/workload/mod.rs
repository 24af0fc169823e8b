//! Open-loop workloads: connections arriving as a Poisson process, each
//! transferring a file of random size over any transport that transfers
//! ([`TransportSpec::transfers`]), and the connection table of a run.
//!
//! Sources: the Poisson arrival and exponential/Pareto file sizes of web and
//! cross-traffic models (Paxson & Floyd, "Wide area traffic: the failure of
//! Poisson modeling", IEEE/ACM ToN 3(3), 1995, §§3, 7: Poisson session
//! arrivals, heavy-tailed sizes); BLT's workload (Kim & Farber 1994, §4.1.3: Poisson
//! connection arrivals, fixed F bytes, complete on the last ACK) and BMCC's
//! cross traffic (docs/models/bmcc.md, "Experiment settings": Pareto sizes, shape 1.2, mean 30 kB, offered load
//! 10 % of C in each direction). Model page: docs/models/workloads.md.
//!
//! * **Arrival processes.** A workload has one process per direction
//!   (`process = "shared"`: each arrival picks a pair uniformly from the
//!   direction's pairs) or one per pair and direction (`"per_pair"`). Gaps are
//!   exponential with mean 1/λ from the process's own random stream; the first
//!   arrival is one gap after `start`; none at or after `stop`.
//! * **Sizes.** Fixed, exponential (mean), or Pareto with shape α and minimum
//!   x_m, or shape and mean (x_m = mean·(α−1)/α, needs α > 1). Drawn in bytes,
//!   rounded to the nearest byte, at least 1.
//! * **Connections.** No handshake is modelled: a connection's sender starts
//!   at its arrival time (add one round trip for TCP's SYN exchange). A
//!   connection completes when its sender has the ACK of the last byte
//!   ([`crate::endpoint::Sender::completed`]); its row is then written to the connection table
//!   and its state freed: its flow slot takes the [`crate::endpoint::Closed`] ends (which hold
//!   nothing) and is reused by a later arrival, so memory follows the
//!   connections alive, not those ever started. Packets of a closed connection
//!   still in the network are discarded on arrival (counted as
//!   `stale_packets`).
//! * **Pairs.** `pick = "uniform"` (default): each arrival picks a pair
//!   uniformly; `"idle"`: the pair idle longest (no live connection of the
//!   process), so that with more pairs than connections alive at once every
//!   connection has its own hosts and access links, as "a new pair per
//!   connection" (BLT's model, docs/models/blt.md, L2); when every pair is busy, a
//!   uniform pick (counted as `busy_picks`).
//! * **Stop rules.** Arrivals end at `stop`; with `completions = K` the run
//!   ends at the K-th completion of that workload; with `complete_first = K`
//!   it ends once the first K connections to arrive have all completed
//!   (arrivals go on meanwhile, so those K see a steady load to the end: the
//!   measurement of Kim & Farber §4.1.3 without the bias of stopping at the K-th
//!   completion, which leaves the slowest out); with `max_alive = N` it ends
//!   when an arrival finds N connections of the workload alive (a diverging
//!   system: the summary's `stopped_by` says so). `duration` bounds them all.

mod cdf;
mod read;

pub use cdf::{shipped, shipped_points, Cdf};
pub use read::{read, Nodes, PairEnds};

use crate::cfg::time_str;
use crate::endpoint::{SenderReport, TransportSpec};
use crate::packet::NodeId;
use crate::rng::Rng;
use crate::table::{Column, Table};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// Random stream numbers: one per arrival process, one per connection (its
/// sender's), and one per connection for its IP ids (as flows, see
/// [`Flow::initial_ip_ids`], at an index that meets no flow's).
const STREAM_PROCESS: u64 = 8 << 20;
pub const STREAM_CONN: u64 = 1 << 40;
pub const CONN_IP_ID_INDEX: u64 = 2 << 40;

/// The file size of a connection.
#[derive(Clone, Debug, PartialEq)]
pub enum FileSize {
    Fixed(u64),
    Exponential {
        mean: f64,
    },
    /// P(X > x) = (x_m/x)^α for x ≥ x_m.
    Pareto {
        shape: f64,
        min: f64,
    },
    /// An empirical CDF ([`Cdf`]), shared by the workload's processes.
    Empirical(Arc<Cdf>),
}

impl FileSize {
    /// Mean size in bytes (infinite for a Pareto shape ≤ 1).
    pub fn mean(&self) -> f64 {
        match *self {
            FileSize::Fixed(b) => b as f64,
            FileSize::Exponential { mean } => mean,
            FileSize::Pareto { shape, min } if shape > 1.0 => shape * min / (shape - 1.0),
            FileSize::Pareto { .. } => f64::INFINITY,
            FileSize::Empirical(ref c) => c.mean(),
        }
    }

    pub fn draw(&self, rng: &mut Rng) -> u64 {
        let x = match *self {
            FileSize::Fixed(b) => return b,
            FileSize::Exponential { mean } => rng.exp(mean),
            // Inverse transform: x_m / U^(1/α), U in (0, 1].
            FileSize::Pareto { shape, min } => min / rng.uniform_pos().powf(1.0 / shape),
            FileSize::Empirical(ref c) => c.draw(rng),
        };
        (x.round().min(u64::MAX as f64) as u64).max(1)
    }
}

/// A workload as read from a `[[workloads]]` table.
#[derive(Debug)]
pub struct Workload {
    pub name: String,
    pub spec: Arc<dyn TransportSpec>,
    pub size: FileSize,
    /// Arrivals per second of each process.
    pub rate: f64,
    pub start: Time,
    pub stop: Time,
    /// End the run at this many completions.
    pub completions: Option<u64>,
    /// End the run when the first K arrivals have all completed.
    pub complete_first: Option<u64>,
    /// Connections completed so far, and of those among the first K arrivals.
    pub completed: u64,
    pub first_completed: u64,
    /// Arrivals so far (over the workload's processes).
    pub arrivals: u64,
    /// Pick the pair idle longest.
    pub pick_idle: bool,
    /// End the run when an arrival finds this many connections alive.
    pub max_alive: Option<u64>,
    /// Connections of this workload alive now.
    pub alive: u64,
}

/// One Poisson arrival process.
#[derive(Debug)]
pub struct Process {
    pub workload: u32,
    /// `"forward"` (src → dst as written) or `"reverse"`.
    pub direction: &'static str,
    /// Pairs an arrival picks from (one for a per-pair process).
    pub pairs: Vec<(NodeId, NodeId)>,
    rng: Rng,
    pub arrivals: u64,
    pub bytes: u64,
    /// With `pick = "idle"`: the idle pairs (indices), least recently freed
    /// first, and the live connections on each pair.
    idle: std::collections::VecDeque<u32>,
    live: Vec<u32>,
    /// Arrivals that found every pair busy.
    pub busy_picks: u64,
}

/// A live connection (the flow slot it occupies holds its ends).
#[derive(Debug)]
pub struct Conn {
    pub process: u32,
    pub id: u64,
    /// Arrival index within its workload.
    pub index: u64,
    /// The pair it uses (index into its process's pairs).
    pub pair: u32,
    pub size: u64,
    pub first_byte: Option<Time>,
    pub last_byte: Option<Time>,
}

/// A row of the connection table.
#[derive(Clone, Debug)]
pub struct ConnRow {
    pub process: u32,
    pub id: u64,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub size: u64,
    pub first_byte: Option<Time>,
    pub last_byte: Option<Time>,
    pub last_ack: Option<Time>,
    pub retransmits: u64,
    pub timeouts: u64,
}

impl ConnRow {
    /// The row of connection `c` from `src` to `dst`, started at `start`,
    /// whose sender reports `r`.
    pub fn new(
        c: &Conn,
        (src, dst, start): (NodeId, NodeId, Time),
        r: &SenderReport,
        last_ack: Option<Time>,
    ) -> ConnRow {
        ConnRow {
            process: c.process,
            id: c.id,
            src,
            dst,
            start,
            size: c.size,
            first_byte: c.first_byte,
            last_byte: c.last_byte,
            last_ack,
            retransmits: r.retransmits,
            timeouts: r.timeouts,
        }
    }
}

/// A connection drawn by an arrival ([`Workloads::arrive`]), for the event
/// loop to start in a flow slot.
pub struct NewConn {
    pub spec: Arc<dyn TransportSpec>,
    pub src: NodeId,
    pub dst: NodeId,
    /// The slot of a finished connection to reuse, if one is free.
    pub slot: Option<u32>,
    pub conn: Conn,
}

/// The workloads of a run and their connection table.
#[derive(Default)]
pub struct Workloads {
    pub list: Vec<Workload>,
    pub procs: Vec<Process>,
    /// Flows from this index on are connection slots (`None`: no workloads).
    pub first_slot: Option<usize>,
    free: Vec<u32>,
    next_conn: u64,
    /// Completed connections (live ones are added when results are collected).
    pub rows: Vec<ConnRow>,
    pub alive: u64,
    pub peak_alive: u64,
    /// Packets of closed connections discarded on arrival.
    pub stale_packets: u64,
    /// Why a stop rule other than the end of `duration` ended the run.
    pub stopped_by: Option<String>,
}

impl Workloads {
    /// The first arrival time of process `p` (one exponential gap after its
    /// workload's `start`), if before its `stop`.
    pub fn first_arrival(&mut self, p: usize) -> Option<Time> {
        let pr = &mut self.procs[p];
        let w = &self.list[pr.workload as usize];
        let t = w.start + gap(&mut pr.rng, w.rate);
        (t < w.stop).then_some(t)
    }

    /// A connection of process `p` arrives at `now` (the run ending at
    /// `end`): draws the next arrival (returned if before `stop`), the pair
    /// and the size. The connection is `Err(why)` if it finds `max_alive`
    /// connections of its workload alive before the end: the system diverges
    /// and the run should end (`stopped_by` says why).
    pub fn arrive(&mut self, p: u32, now: Time, end: Time) -> (Option<Time>, Result<NewConn, String>) {
        let pr = &mut self.procs[p as usize];
        let w = &self.list[pr.workload as usize];
        let next = now + gap(&mut pr.rng, w.rate);
        let next = (next < w.stop).then_some(next);
        let uniform = |pr: &mut Process| match pr.pairs.len() {
            1 => 0,
            n => ((pr.rng.uniform() * n as f64) as usize).min(n - 1) as u32,
        };
        let pair = match (w.pick_idle, pr.idle.pop_front()) {
            (true, Some(k)) => k,
            (true, None) => {
                pr.busy_picks += 1;
                uniform(pr)
            }
            (false, _) => uniform(pr),
        };
        if w.pick_idle {
            pr.live[pair as usize] += 1;
        }
        let (src, dst) = pr.pairs[pair as usize];
        let size = w.size.draw(&mut pr.rng);
        pr.arrivals += 1;
        pr.bytes += size;
        let w = &mut self.list[pr.workload as usize];
        let index = w.arrivals;
        w.arrivals += 1;
        if w.max_alive.is_some_and(|m| w.alive >= m) && now < end {
            let why = format!("max_alive: {} connections alive at {}", w.alive, time_str(now));
            self.stopped_by = Some(why.clone());
            return (next, Err(why));
        }
        w.alive += 1;
        let spec = w.spec.clone();
        let id = self.next_conn;
        self.next_conn += 1;
        self.alive += 1;
        self.peak_alive = self.peak_alive.max(self.alive);
        let conn = Conn {
            process: p,
            id,
            index,
            pair,
            size,
            first_byte: None,
            last_byte: None,
        };
        let slot = self.free.pop();
        (
            next,
            Ok(NewConn {
                spec,
                src,
                dst,
                slot,
                conn,
            }),
        )
    }

    /// Connection `c`, in flow slot `slot`, completed at `now` (its table row
    /// is `row`): frees its slot and pair. True if a stop rule ends the run
    /// now (before `end`; `stopped_by` says which).
    pub fn complete(&mut self, slot: u32, c: &Conn, row: ConnRow, now: Time, end: Time) -> bool {
        self.rows.push(row);
        self.free.push(slot);
        self.alive -= 1;
        let pr = &mut self.procs[c.process as usize];
        let w = &mut self.list[pr.workload as usize];
        if w.pick_idle {
            let live = &mut pr.live[c.pair as usize];
            *live -= 1;
            if *live == 0 {
                pr.idle.push_back(c.pair);
            }
        }
        w.completed += 1;
        w.alive -= 1;
        if w.complete_first.is_some_and(|k| c.index < k) {
            w.first_completed += 1;
        }
        let stop =
            w.completions.is_some_and(|k| w.completed >= k) || w.complete_first.is_some_and(|k| w.first_completed >= k);
        if !(stop && now < end) {
            return false;
        }
        let rule = if w.complete_first.is_some_and(|k| w.first_completed >= k) {
            "complete_first"
        } else {
            "completions"
        };
        self.stopped_by = Some(format!("{rule}: workload {:?} at {}", w.name, time_str(now)));
        true
    }

    /// The summary's workload fields (`None` without workloads); `slots` is
    /// the number of connection slots the run used.
    pub fn summary(&self, slots: usize) -> Option<serde_json::Map<String, Value>> {
        if self.list.is_empty() {
            return None;
        }
        let v = serde_json::json!({
            "connections_started": self.rows.len() as u64 + self.alive,
            "connections_completed": self.rows.len(),
            "connections_peak_alive": self.peak_alive,
            "connection_slots": slots,
            "stale_packets": self.stale_packets,
            "stopped_by": self.stopped_by,
        });
        v.as_object().cloned()
    }

    /// The workloads' names, in scenario order.
    pub fn names(&self) -> Vec<String> {
        self.list.iter().map(|w| w.name.clone()).collect()
    }
    /// Bytes held: connection slots and table rows.
    pub fn memory(&self) -> u64 {
        let slots = (self.alive + self.free.len() as u64) * crate::budget::FLOW_BYTES;
        slots + self.rows.len() as u64 * std::mem::size_of::<ConnRow>() as u64
    }
}

/// The `connections` table (one row per connection, by arrival) and the
/// `workloads` table (one row per arrival process: requested and realised
/// arrival rate, mean size and offered load over the process's active time,
/// `start` to the earlier of `stop` and the end of the run).
pub fn tables(ws: &Workloads, rows: &[ConnRow], node_name: &dyn Fn(NodeId) -> String, end: Time) -> Vec<Table> {
    if ws.list.is_empty() {
        return Vec::new();
    }
    let secs = |t: Option<Time>| t.map_or(f64::NAN, |t| t.as_secs_f64());
    let name = |n: NodeId| node_name(n);
    let wname = |r: &ConnRow| ws.list[ws.procs[r.process as usize].workload as usize].name.clone();
    let resp = |r: &ConnRow| r.last_ack.map_or(f64::NAN, |t| (t - r.start).as_secs_f64());
    let conns = Table {
        name: "connections",
        columns: vec![
            ("conn", Column::I64(rows.iter().map(|r| r.id as i64).collect())),
            ("workload", Column::Str(rows.iter().map(wname).collect())),
            ("src", Column::Str(rows.iter().map(|r| name(r.src)).collect())),
            ("dst", Column::Str(rows.iter().map(|r| name(r.dst)).collect())),
            (
                "start_s",
                Column::F64(rows.iter().map(|r| r.start.as_secs_f64()).collect()),
            ),
            ("size_bytes", Column::I64(rows.iter().map(|r| r.size as i64).collect())),
            (
                "first_byte_s",
                Column::F64(rows.iter().map(|r| secs(r.first_byte)).collect()),
            ),
            (
                "last_byte_s",
                Column::F64(rows.iter().map(|r| secs(r.last_byte)).collect()),
            ),
            (
                "last_ack_s",
                Column::F64(rows.iter().map(|r| secs(r.last_ack)).collect()),
            ),
            ("response_time_s", Column::F64(rows.iter().map(resp).collect())),
            (
                "retransmits",
                Column::I64(rows.iter().map(|r| r.retransmits as i64).collect()),
            ),
            (
                "timeouts",
                Column::I64(rows.iter().map(|r| r.timeouts as i64).collect()),
            ),
        ],
    };
    let mut done = vec![0i64; ws.procs.len()];
    for r in rows.iter().filter(|r| r.last_ack.is_some()) {
        done[r.process as usize] += 1;
    }
    let ps = &ws.procs;
    let w = |p: &Process| &ws.list[p.workload as usize];
    let active = |p: &Process| {
        let w = w(p);
        (w.stop.min(end).max(w.start) - w.start).as_secs_f64()
    };
    let per_s = |x: f64, p: &Process| if active(p) > 0.0 { x / active(p) } else { f64::NAN };
    let procs = Table {
        name: "workloads",
        columns: vec![
            ("workload", Column::Str(ps.iter().map(|p| w(p).name.clone()).collect())),
            (
                "kind",
                Column::Str(ps.iter().map(|p| w(p).spec.kind().to_string()).collect()),
            ),
            (
                "direction",
                Column::Str(ps.iter().map(|p| p.direction.to_string()).collect()),
            ),
            ("pairs", Column::I64(ps.iter().map(|p| p.pairs.len() as i64).collect())),
            (
                "busy_picks",
                Column::I64(ps.iter().map(|p| p.busy_picks as i64).collect()),
            ),
            ("active_s", Column::F64(ps.iter().map(active).collect())),
            ("arrivals", Column::I64(ps.iter().map(|p| p.arrivals as i64).collect())),
            ("completed", Column::I64(done)),
            ("rate_requested", Column::F64(ps.iter().map(|p| w(p).rate).collect())),
            (
                "rate_realised",
                Column::F64(ps.iter().map(|p| per_s(p.arrivals as f64, p)).collect()),
            ),
            (
                "mean_size_requested",
                Column::F64(ps.iter().map(|p| w(p).size.mean()).collect()),
            ),
            (
                "mean_size_realised",
                Column::F64(ps.iter().map(|p| p.bytes as f64 / p.arrivals as f64).collect()),
            ),
            (
                "load_requested_bps",
                Column::F64(ps.iter().map(|p| 8.0 * w(p).rate * w(p).size.mean()).collect()),
            ),
            (
                "load_realised_bps",
                Column::F64(ps.iter().map(|p| per_s(8.0 * p.bytes as f64, p)).collect()),
            ),
        ],
    };
    vec![conns, procs]
}

/// An exponential gap with rate `rate` per second (at least 1 ns).
fn gap(rng: &mut Rng, rate: f64) -> Time {
    Time::from_secs_f64(rng.exp(1.0 / rate)).max(Time(1))
}

#[cfg(test)]
mod tests;
