//! Per-packet event trace: one row per event (enqueue, dequeue, drop with its
//! reason, mark with its reason, receive) on chosen links, optionally only for
//! chosen flows, in a time window. Returned as the `trace` table (Parquet when
//! saved); `ns2 = true` also renders ns-2's `trace-all` text format
//! (`trace.tr`, the format of *The ns Manual*, "Trace and Monitoring Support")
//! for people porting ns-2 scripts.
//!
//! Events, in the order they happen at one instant (ns-2's trace points):
//! `enqueue` (ns-2 `+`): a packet arrives at a link's queue, whether or not it
//! is then dropped; `mark` (no ns-2 line: its `E` flag shows CE): the queue set
//! CE on it; `drop` (`d`): the queue, a router component or the link's loss
//! model discarded it; `dequeue` (`-`): it starts serialization; `receive`
//! (`r`): it reaches the link's far end. `queue_pkts`/`queue_bytes` are the
//! queue's backlog just after the event. Cost when off: one `Option` check per
//! link event.
//!
//! Workload connections are traced as flows: a row's `flow` is
//! `<workload>#<connection id>` (the `conn` column of the `connections`
//! table), found from the packet as [`crate::tap`] describes (not from its
//! flow slot, which later connections reuse). `flows` selects static flows
//! by name and a workload's connections by the workload's name.

use crate::capture::TapFlow;
use crate::cfg::{self, Res, Tab};
use crate::link::Link;
use crate::packet::{flags, Ecn, Kind, Packet};
use crate::qdisc::{DropReason, MarkReason};
use crate::table::{Column, Table};
use crate::units::Time;
use serde_json::Value;
use std::fmt::Write as _;

/// What happened to a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Enqueue,
    Dequeue,
    Drop(DropReason),
    Mark(MarkReason),
    Receive,
}

const EVENTS: [&str; 5] = ["enqueue", "dequeue", "drop", "mark", "receive"];
const KINDS: [&str; 3] = ["data", "ack", "datagram"];
const ECNS: [&str; 4] = ["not-ect", "ect1", "ect0", "ce"];

/// The recorded events, as columns.
#[derive(Default)]
struct Rows {
    time: Vec<u64>,
    event: Vec<u8>,
    /// 0: none; 1 + drop reason index; 1 + mark reason index (by event).
    reason: Vec<u8>,
    link: Vec<u32>,
    /// The tap flow (see [`crate::tap`]).
    flow: Vec<u32>,
    uid: Vec<u64>,
    kind: Vec<u8>,
    size: Vec<u32>,
    seq: Vec<u64>,
    ack: Vec<u64>,
    ecn: Vec<u8>,
    flags: Vec<u8>,
    ip_id: Vec<u16>,
    priority: Vec<u32>,
    retx: Vec<bool>,
    qpkts: Vec<u32>,
    qbytes: Vec<u64>,
}

/// Bytes one recorded event takes.
pub const ROW_BYTES: u64 = 72;

pub struct Trace {
    /// Selected links (by index).
    pub links: Vec<bool>,
    /// Selected tap flows: the static flows, then one per connection started.
    flows: Vec<bool>,
    /// Workloads whose connections are selected.
    workloads: Vec<bool>,
    start: Time,
    stop: Time,
    /// File name of the ns-2 text trace, if asked for.
    pub ns2: Option<String>,
    rows: Rows,
}

impl Trace {
    pub fn len(&self) -> usize {
        self.rows.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.time.is_empty()
    }

    /// A connection of workload `workload` started: it is the next tap flow.
    pub fn conn_started(&mut self, workload: u32) {
        self.flows.push(self.workloads[workload as usize]);
    }

    /// Records `ev` of `pkt` (of tap flow `key`) at `link` (whose queue state
    /// is read after the event).
    #[inline]
    pub fn record(&mut self, now: Time, link: &Link, ev: Event, pkt: &Packet, key: u32) {
        if now < self.start || now > self.stop || !self.flows[key as usize] {
            return;
        }
        let r = &mut self.rows;
        let (e, reason) = match ev {
            Event::Enqueue => (0, 0),
            Event::Dequeue => (1, 0),
            Event::Drop(d) => (2, 1 + d.index() as u8),
            Event::Mark(m) => (3, 1 + m.index() as u8),
            Event::Receive => (4, 0),
        };
        r.time.push(now.0);
        r.event.push(e);
        r.reason.push(reason);
        r.link.push(link.id.0);
        r.flow.push(key);
        r.uid.push(pkt.uid);
        r.kind.push(match pkt.kind {
            Kind::Data => 0,
            Kind::Ack => 1,
            Kind::Datagram => 2,
        });
        r.size.push(pkt.size);
        r.seq.push(pkt.seq);
        r.ack.push(pkt.ack);
        r.ecn.push(pkt.ecn.bits());
        r.flags.push(pkt.flags);
        r.ip_id.push(pkt.ip_id);
        r.priority.push(pkt.priority as u32);
        r.retx.push(pkt.retx);
        r.qpkts.push(link.qdisc.backlog_packets() as u32);
        r.qbytes.push(link.qdisc.backlog_bytes());
    }

    /// The `trace` table (names of links and flows resolved). The `flow`
    /// categories are every static flow (tap flows below `statics`, as
    /// `flow_name` names them), then the connections that have rows, in order
    /// of start.
    pub fn table(&self, link_names: &[String], statics: usize, flow_name: impl Fn(usize) -> String) -> Table {
        let r = &self.rows;
        let mut flow_names: Vec<String> = (0..statics).map(&flow_name).collect();
        let mut used = vec![false; self.flows.len()];
        for &k in &r.flow {
            used[k as usize] = true;
        }
        let code: Vec<u32> = (0..self.flows.len())
            .map(|k| {
                if k < statics {
                    k as u32
                } else if used[k] {
                    flow_names.push(flow_name(k));
                    flow_names.len() as u32 - 1
                } else {
                    u32::MAX // (no row)
                }
            })
            .collect();
        let flow_codes: Vec<u32> = r.flow.iter().map(|&k| code[k as usize]).collect();
        // Reason labels depend on the event: drops and marks have separate enums,
        // so the category list holds both, by name.
        let mut labels: Vec<String> = vec![String::new()];
        labels.extend(DropReason::ALL.iter().map(|d| d.name().to_string()));
        for m in MarkReason::ALL {
            if !labels.iter().any(|l| l == m.name()) {
                labels.push(m.name().to_string());
            }
        }
        let reason_codes: Vec<u32> = r
            .event
            .iter()
            .zip(&r.reason)
            .map(|(&e, &x)| match (e, x) {
                (_, 0) => 0,
                (2, x) => x as u32,
                (_, x) => {
                    let name = MarkReason::ALL[x as usize - 1].name();
                    labels.iter().position(|l| l == name).unwrap_or(0) as u32
                }
            })
            .collect();
        let cat = |codes: Vec<u32>, names: Vec<String>| Column::Cat(codes, names);
        let strs = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let i64s = |v: Vec<i64>| Column::I64(v);
        Table {
            name: "trace",
            columns: vec![
                ("time_s", Column::F64(r.time.iter().map(|&t| Time(t).secs()).collect())),
                ("time_ns", i64s(r.time.iter().map(|&t| t as i64).collect())),
                ("event", cat(r.event.iter().map(|&e| e as u32).collect(), strs(&EVENTS))),
                ("reason", cat(reason_codes, labels)),
                ("link", cat(r.link.clone(), link_names.to_vec())),
                ("flow", cat(flow_codes, flow_names)),
                ("uid", i64s(r.uid.iter().map(|&x| x as i64).collect())),
                ("kind", cat(r.kind.iter().map(|&k| k as u32).collect(), strs(&KINDS))),
                ("size_bytes", i64s(r.size.iter().map(|&x| x as i64).collect())),
                ("seq", i64s(r.seq.iter().map(|&x| x as i64).collect())),
                ("ack", i64s(r.ack.iter().map(|&x| x as i64).collect())),
                ("ecn", cat(r.ecn.iter().map(|&x| x as u32).collect(), strs(&ECNS))),
                (
                    "ece",
                    i64s(r.flags.iter().map(|&f| (f & flags::ECE != 0) as i64).collect()),
                ),
                (
                    "cwr",
                    i64s(r.flags.iter().map(|&f| (f & flags::CWR != 0) as i64).collect()),
                ),
                ("ip_id", i64s(r.ip_id.iter().map(|&x| x as i64).collect())),
                ("retransmit", i64s(r.retx.iter().map(|&x| x as i64).collect())),
                ("queue_pkts", i64s(r.qpkts.iter().map(|&x| x as i64).collect())),
                ("queue_bytes", i64s(r.qbytes.iter().map(|&x| x as i64).collect())),
            ],
        }
    }

    /// ns-2's `trace-all` lines for the events ns-2 has (`+ - d r`):
    /// `<ev> <time> <from> <to> <type> <size> <flags> <fid> <src>.<port>
    /// <dst>.<port> <seq> <uid>`. Nodes are ccsim's node indices; `fid` the flow
    /// index (a connection's: the number of static flows + its id, see
    /// [`TapFlow::number`]); ports number each node's flow ends in order
    /// (sender, then receiver; static flows, then connections in order of
    /// start), as ns-2 numbers the agents attached to a node; TCP `seq` is
    /// the segment number (byte / MSS) and an ACK's the last in-order segment
    /// (ack / MSS − 1), as ns-2's; a datagram's its number in its flow. Flags:
    /// `C` ECN-echo, `P` priority, `A` CWR, `E` CE, `N` ECN-capable.
    pub fn ns2_text(&self, links: &[Link], flows: &[TapFlow], nodes: usize) -> Vec<u8> {
        let mut next_port = vec![0u32; nodes];
        let ports: Vec<(u32, u32)> = flows
            .iter()
            .map(|f| {
                let (s, d) = (f.src.idx(), f.dst.idx());
                let a = next_port[s];
                next_port[s] += 1;
                let b = next_port[d];
                next_port[d] += 1;
                (a, b)
            })
            .collect();
        let r = &self.rows;
        let mut s = String::with_capacity(r.time.len() * 64);
        for i in 0..r.time.len() {
            let c = match r.event[i] {
                0 => '+',
                1 => '-',
                2 => 'd',
                3 => continue,
                _ => 'r',
            };
            let l = &links[r.link[i] as usize];
            let k = r.flow[i] as usize;
            let tf = &flows[k];
            let (f, fkind) = (tf.number, tf.kind);
            let (mut sp, mut dp) = ports[k];
            let (mut sn, mut dn) = (tf.src.idx(), tf.dst.idx());
            let mss = (tf.wire.mss as u64).max(1);
            let (ty, seq) = match r.kind[i] {
                0 => ("tcp", (r.seq[i] / mss) as i64),
                1 => {
                    std::mem::swap(&mut sn, &mut dn);
                    std::mem::swap(&mut sp, &mut dp);
                    ("ack", (r.ack[i] / mss) as i64 - 1)
                }
                _ => (if fkind == "cbr" { "cbr" } else { "udp" }, r.seq[i] as i64),
            };
            let fl = r.flags[i];
            let ecn = Ecn::from_bits(r.ecn[i]);
            let fs = [
                if fl & flags::ECE != 0 { 'C' } else { '-' },
                if r.priority[i] > 0 { 'P' } else { '-' },
                '-',
                if fl & flags::CWR != 0 { 'A' } else { '-' },
                if ecn == Ecn::Ce { 'E' } else { '-' },
                '-',
                if ecn.is_ect() { 'N' } else { '-' },
            ];
            let fs: String = fs.iter().collect();
            let _ = writeln!(
                s,
                "{c} {} {} {} {ty} {} {fs} {f} {sn}.{sp} {dn}.{dp} {seq} {}",
                cfg::secs_str(Time(r.time[i])),
                l.from.0,
                l.to.0,
                r.size[i],
                r.uid[i]
            );
        }
        s.into_bytes()
    }
}

/// Reads `[trace]`. `flows` selects among the static flows (`flow_names`)
/// and the workloads (`workload_names`: a workload's name selects all its
/// connections; a name that is a flow's and a workload's selects both);
/// `"all"`, the default, selects every flow and connection.
pub fn read(
    root: &mut Tab,
    link_names: &[String],
    flow_names: &[String],
    workload_names: &[String],
    end: Time,
    taken: &mut Vec<String>,
) -> Res<Option<Trace>> {
    let Some(mut t) = root.table("trace")? else {
        return Ok(None);
    };
    let links = t.select("links", link_names)?;
    let names: Vec<String> = flow_names.iter().chain(workload_names).cloned().collect();
    let flows = t.select("flows", &names).map_err(|mut e| {
        if !workload_names.is_empty() {
            e.expected
                .push_str(" (flow names, or workload names for all their connections)");
        }
        e
    })?;
    let (start, stop) = t.time_window(end)?;
    let ns2 = match t.raw("ns2") {
        None | Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some("trace.tr".to_string()),
        Some(Value::String(f)) => {
            crate::capture::check_file(&t, "ns2", f, &[".tr"])?;
            Some(f.clone())
        }
        Some(v) => return Err(t.error("ns2", v, "true, false or a file name ending in .tr")),
    };
    t.put("ns2", ns2.clone().map_or(Value::Bool(false), Value::String));
    if let Some(f) = &ns2 {
        if taken.contains(f) {
            return Err(t.error("ns2", &Value::String(f.clone()), "a file name no capture uses"));
        }
        taken.push(f.clone());
    }
    root.put("trace", t.finish()?);
    let mut lmask = vec![false; link_names.len()];
    for i in links {
        lmask[i] = true;
    }
    // A name selects whatever bears it: a flow and a workload may share one.
    let chosen: std::collections::HashSet<&str> = flows.iter().map(|&i| names[i].as_str()).collect();
    let mut fmask: Vec<bool> = names.iter().map(|n| chosen.contains(n.as_str())).collect();
    let workloads = fmask.split_off(flow_names.len());
    Ok(Some(Trace {
        links: lmask,
        flows: fmask,
        workloads,
        start,
        stop,
        ns2,
        rows: Rows::default(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// Reads `[trace] flows = sel` with static flows f0, f1 and workloads
    /// `workloads`; returns (static flows selected, workloads selected).
    fn select(sel: Value, workloads: &[&str]) -> Res<(Vec<bool>, Vec<bool>)> {
        let v = json!({"trace": {"flows": sel}});
        let mut root = Tab::new(String::new(), &v)?;
        let t = read(
            &mut root,
            &names(&["R1->R2"]),
            &names(&["f0", "f1"]),
            &names(workloads),
            Time(1_000_000_000),
            &mut Vec::new(),
        )?
        .expect("a trace");
        Ok((t.flows, t.workloads))
    }

    #[test]
    fn a_workload_name_selects_its_connections() {
        let all = (vec![true, true], vec![true, true]);
        assert_eq!(select(json!("all"), &["web", "bulk"]).unwrap(), all);
        assert_eq!(
            select(json!(["f1", "bulk"]), &["web", "bulk"]).unwrap(),
            (vec![false, true], vec![false, true])
        );
        assert_eq!(select(json!(["f0"]), &[]).unwrap(), (vec![true, false], vec![]));
    }

    #[test]
    fn a_bad_selection_names_the_key() {
        let e = select(json!(["wbe"]), &["web"]).unwrap_err();
        assert_eq!(e.path, "trace.flows");
        assert!(
            e.expected.contains("did you mean \"web\"") && e.expected.contains("workload names"),
            "{e}"
        );
        let e = select(json!(["f9"]), &[]).unwrap_err();
        assert!(!e.expected.contains("workload"), "{e}");
        // A flow and a workload of one name: the name selects both.
        assert_eq!(
            select(json!(["f1"]), &["f1", "web"]).unwrap(),
            (vec![false, true], vec![true, false])
        );
    }
}
