//! The `[[workloads]]` section: each workload's transport, pairs, direction,
//! arrival process, size distribution, rate (or offered load) and stop rules,
//! read into [`Workloads`] (keys: docs/user-guide.md "Workloads"; the model is
//! described in [`super`]).

use super::{Cdf, FileSize, Process, Workload, Workloads, STREAM_PROCESS};
use crate::cfg::{show, time_str, Res, ScenarioError, Tab};
use crate::endpoint::TransportSpec;
use crate::packet::NodeId;
use crate::rng::Rng;
use crate::transport::{self, ReadCtx};
use crate::units::Time;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

impl FileSize {
    /// Reads `size`: a size string (fixed) or a table `{dist, mean | shape + min | shape + mean | cdf}`.
    pub(super) fn read(t: &mut Tab) -> Res<FileSize> {
        let Some(v) = t.get("size") else {
            return Err(t.missing(
                "size",
                "a file size such as \"100KB\" or a table {dist = \"pareto\", ...}",
            ));
        };
        if v.is_string() {
            let b = t.size("size", None)?;
            if b == 0 {
                return Err(t.error("size", v, "a positive size such as \"100KB\""));
            }
            return Ok(FileSize::Fixed(b));
        }
        let mut s = t
            .table("size")?
            .ok_or_else(|| t.error("size", v, "a size string or a table"))?;
        let dist = s.choice("dist", None, &["fixed", "exponential", "pareto", "empirical"])?;
        let positive = |s: &mut Tab, key: &'static str| -> Res<f64> {
            let b = s.size(key, None)?;
            if b == 0 {
                return Err(s.error(key, &Value::String("0B".into()), "a positive size such as \"30KB\""));
            }
            Ok(b as f64)
        };
        let f = match dist.as_str() {
            "fixed" => FileSize::Fixed(positive(&mut s, "mean")? as u64),
            "exponential" => FileSize::Exponential {
                mean: positive(&mut s, "mean")?,
            },
            "empirical" => FileSize::Empirical(Arc::new(Cdf::read(&mut s)?)),
            _ => {
                let shape = s.float("shape", None, 0.01, 100.0)?;
                match (s.has("min"), s.has("mean")) {
                    (true, false) => FileSize::Pareto {
                        shape,
                        min: positive(&mut s, "min")?,
                    },
                    (false, true) => {
                        if shape <= 1.0 {
                            return Err(s.error(
                                "shape",
                                &Value::from(shape),
                                "a shape > 1 when a mean is given (the mean of a Pareto with shape ≤ 1 is infinite; give `min` instead)",
                            ));
                        }
                        let mean = positive(&mut s, "mean")?;
                        FileSize::Pareto {
                            shape,
                            min: mean * (shape - 1.0) / shape,
                        }
                    }
                    _ => {
                        let v = s.get("min").or(s.get("mean")).cloned().unwrap_or(Value::Null);
                        return Err(s.error("min", &v, "exactly one of `min` and `mean` with a Pareto shape"));
                    }
                }
            }
        };
        let resolved = s.finish()?;
        t.put("size", resolved);
        Ok(f)
    }
}

/// Where the workloads' endpoints come from.
pub struct Nodes<'a> {
    pub names: &'a [String],
    pub index: &'a HashMap<String, usize>,
    /// A dumbbell's (left, right) pairs; empty on a graph.
    pub pairs: &'a [(usize, usize)],
    /// The rates of every link added together (bit/s): no network carries more, so a
    /// workload offering [`RUNAWAY`] times this grows without bound.
    pub capacity_bps: f64,
    /// Each node's links out, their rates added (bit/s): a host's access rate.
    pub out_bps: Vec<f64>,
}

impl Nodes<'_> {
    /// Reads `key` of `t` as a non-empty list of the topology's node names
    /// (`missing`: what to say when it is absent); their indices, in order.
    pub fn list(&self, t: &mut Tab, key: &'static str, missing: &str) -> Res<Vec<usize>> {
        let v = t.raw(key).ok_or_else(|| t.missing(key, missing))?;
        let bad = |t: &Tab| t.error(key, v, "a non-empty list of node names of the topology");
        let a = v.as_array().filter(|a| !a.is_empty()).ok_or_else(|| bad(t))?;
        let ids = a
            .iter()
            .map(|x| {
                x.as_str()
                    .and_then(|s| self.index.get(s).copied())
                    .ok_or_else(|| ScenarioError {
                        path: t.key_path(key),
                        value: show(x),
                        expected: format!("node names of the topology (such as {:?})", self.names[0]),
                    })
            })
            .collect::<Res<Vec<usize>>>()?;
        t.put(key, v.clone());
        Ok(ids)
    }
}

/// A workload whose offered load exceeds the capacity of every link together this many
/// times, with more than [`RUNAWAY_ARRIVALS`] connections expected and no `max_alive`,
/// is refused before the run: its connections would pile up (each with its state and
/// queued packets) until the memory budget stops the run, minutes and gigabytes later.
pub const RUNAWAY: f64 = 10.0;
/// See [`RUNAWAY`]: below this many expected arrivals a short overload is allowed.
pub const RUNAWAY_ARRIVALS: f64 = 1e5;

/// A pair's (src, dst, needs a path back), for the builder's routing check.
pub type PairEnds = (usize, usize, bool);

/// Reads `workloads` (an array of tables); returns them and the ends of every
/// pair they use.
pub fn read(root: &mut Tab, nodes: &Nodes, duration: Time, seed: u64) -> Res<(Workloads, Vec<PairEnds>)> {
    let mut w = Workloads::default();
    let mut ends = Vec::new();
    let Some(arr) = root.array("workloads")? else {
        return Ok((w, ends));
    };
    let wpath = root.key_path("workloads");
    let mut out = Vec::new();
    for (i, v) in arr.iter().enumerate() {
        let mut t = Tab::new(format!("{wpath}[{i}]"), v)?;
        let name = t.string("name")?.unwrap_or_else(|| format!("w{i}"));
        let spec = read_transport(&mut t, duration)?;
        let pairs = read_pairs(&mut t, nodes)?;
        let direction = t.choice("direction", Some("forward"), &["forward", "reverse", "both"])?;
        let process = t.choice("process", Some("shared"), &["shared", "per_pair"])?;
        let size = FileSize::read(&mut t)?;
        let rate = read_rate(
            &mut t,
            &size,
            &pairs,
            nodes,
            process == "shared" && direction == "forward",
        )?;
        let (start, stop) = read_span(&mut t, duration)?;
        let completions = t.opt_uint("completions", 1, u64::MAX)?;
        let complete_first = t.opt_uint("complete_first", 1, u64::MAX)?;
        let pick_idle = t.choice("pick", Some("uniform"), &["uniform", "idle"])? == "idle";
        let max_alive = t.opt_uint("max_alive", 1, u64::MAX)?;
        let first_proc = w.procs.len();
        let arrival = Arrival {
            workload: w.list.len() as u32,
            per_pair: process == "per_pair",
            pick_idle,
            seed,
            needs_return_path: spec.needs_return_path(),
        };
        push_processes(&mut w, &mut ends, &pairs, &direction, &arrival);
        let processes = w.procs.len() - first_proc;
        check_runaway(
            &t,
            &name,
            rate * processes as f64,
            size.mean(),
            stop - start,
            max_alive,
            nodes,
        )?;
        w.list.push(Workload {
            name,
            spec,
            size,
            rate,
            start,
            stop,
            completions,
            complete_first,
            completed: 0,
            first_completed: 0,
            arrivals: 0,
            pick_idle,
            max_alive,
            alive: 0,
        });
        out.push(t.finish()?);
    }
    check_unique_names(&w, wpath)?;
    root.put("workloads", Value::Array(out));
    Ok((w, ends))
}

/// `arrival_rate`, `offered_load` or `load` (exactly one): a workload's
/// connections per second and process (a load divided by the mean `size`).
/// `load` is a fraction of the sources' capacity (each distinct source's links
/// out, added), as data-centre studies set "50 % load" (Alizadeh et al.,
/// pFabric, SIGCOMM 2013, §5; Li et al., HPCC, SIGCOMM 2019, §5.1): only with
/// one shared process in the forward direction (`shared_forward`), where it
/// means one arrival rate.
fn read_rate(t: &mut Tab, size: &FileSize, pairs: &[(usize, usize)], nodes: &Nodes, shared_forward: bool) -> Res<f64> {
    let given = [t.has("arrival_rate"), t.has("offered_load"), t.has("load")];
    if given == [false, false, true] {
        let load = t.float("load", None, 0.0, 1e6)?;
        if load <= 0.0 || !shared_forward {
            let why = if load <= 0.0 {
                "a positive fraction of the sources' capacity, such as 0.5"
            } else {
                "`arrival_rate` or `offered_load` unless process = \"shared\" and direction = \"forward\" (a load of the sources' links is one process's)"
            };
            return Err(t.error("load", &Value::from(load), why));
        }
        if !size.mean().is_finite() {
            return Err(t.error(
                "load",
                &Value::from(load),
                "an `arrival_rate`: the mean size is infinite (Pareto shape ≤ 1), so a load fixes no rate",
            ));
        }
        let mut sources: Vec<usize> = pairs.iter().map(|&(s, _)| s).collect();
        sources.sort_unstable();
        sources.dedup();
        let capacity: f64 = sources.iter().map(|&s| nodes.out_bps[s]).sum();
        return Ok(load * capacity / (8.0 * size.mean()));
    }
    if given[2] {
        let v = t.raw("load").expect("present");
        return Err(t.error(
            "load",
            v,
            "exactly one of `arrival_rate`, `offered_load` and `load`, not two",
        ));
    }
    t.raw("load");
    let rate = match (given[0], given[1]) {
        (true, false) => {
            let v = t.raw("arrival_rate").expect("present");
            let x = v
                .as_f64()
                .filter(|x| x.is_finite() && *x > 0.0)
                .ok_or_else(|| t.error("arrival_rate", v, "a positive number of connections per second"))?;
            t.put("arrival_rate", Value::from(x));
            x
        }
        (false, true) => {
            let v = t.get("offered_load").expect("present");
            let load = t.rate("offered_load", None)?;
            if load.0 == 0 {
                return Err(t.error("offered_load", v, "a positive rate such as \"4.5Mbps\""));
            }
            load.0 as f64 / (8.0 * size.mean())
        }
        _ => {
            let v = t.get("offered_load").cloned().unwrap_or(Value::Null);
            return Err(t.error(
                "arrival_rate",
                &v,
                "exactly one of `arrival_rate` (connections/s per process), `offered_load` (bit/s per process) and `load` (a fraction of the sources' capacity)",
            ));
        }
    };
    if !size.mean().is_finite() && t.has("offered_load") {
        return Err(t.error(
            "offered_load",
            t.get("offered_load").expect("present"),
            "an `arrival_rate`: the mean size is infinite (Pareto shape ≤ 1), so a load fixes no rate",
        ));
    }
    Ok(rate)
}

/// `start` and `stop`: when a workload's arrivals begin and end (`stop` after
/// `start`; by default the whole run).
fn read_span(t: &mut Tab, duration: Time) -> Res<(Time, Time)> {
    let start = t.time("start", Some("0s"))?;
    let stop = t.time("stop", Some(&time_str(duration)))?;
    if stop <= start {
        return Err(t.error("stop", &Value::String(time_str(stop)), "a time after `start`"));
    }
    Ok((start, stop))
}

/// What a workload's arrival processes share.
struct Arrival {
    /// The workload's index.
    workload: u32,
    /// One process per pair (`process = "per_pair"`), else one for all.
    per_pair: bool,
    /// Connections go to idle pairs first (`pick = "idle"`).
    pick_idle: bool,
    seed: u64,
    /// The transport needs a path back (for the routing check of `ends`).
    needs_return_path: bool,
}

/// Adds a workload's arrival processes to `w`, for each of its directions
/// (`direction`: "forward", "reverse" or "both"), and the ends of every pair
/// they use to `ends`.
fn push_processes(w: &mut Workloads, ends: &mut Vec<PairEnds>, pairs: &[(usize, usize)], direction: &str, a: &Arrival) {
    let dirs: &[&'static str] = match direction {
        "forward" => &["forward"],
        "reverse" => &["reverse"],
        _ => &["forward", "reverse"],
    };
    for &d in dirs {
        let ps: Vec<(NodeId, NodeId)> = pairs
            .iter()
            .map(|&(s, t)| if d == "forward" { (s, t) } else { (t, s) })
            .map(|(s, t)| (NodeId(s as u32), NodeId(t as u32)))
            .collect();
        for &(s, t) in &ps {
            ends.push((s.idx(), t.idx(), a.needs_return_path));
        }
        let groups: Vec<Vec<(NodeId, NodeId)>> = if a.per_pair {
            ps.iter().map(|&p| vec![p]).collect()
        } else {
            vec![ps]
        };
        for g in groups {
            let k = w.procs.len() as u64;
            let idle = if a.pick_idle {
                (0..g.len() as u32).collect()
            } else {
                Default::default()
            };
            let live = if a.pick_idle { vec![0; g.len()] } else { Vec::new() };
            w.procs.push(Process {
                workload: a.workload,
                direction: d,
                pairs: g,
                rng: Rng::new(a.seed, STREAM_PROCESS + k),
                arrivals: 0,
                bytes: 0,
                idle,
                live,
                busy_picks: 0,
            });
        }
    }
}

/// Refuses two workloads of one name (`wpath`: the `workloads` key's path).
fn check_unique_names(w: &Workloads, wpath: String) -> Res<()> {
    let mut seen = HashMap::new();
    for (i, x) in w.list.iter().enumerate() {
        if let Some(j) = seen.insert(x.name.clone(), i) {
            return Err(ScenarioError {
                path: wpath,
                value: format!("{:?}", x.name),
                expected: format!("unique workload names (workloads {j} and {i} share one)"),
            });
        }
    }
    Ok(())
}

/// Refuses a workload of `rate` connections/s in all (its processes together) of mean
/// size `mean` bytes over `span` whose offered load the network cannot carry by far
/// ([`RUNAWAY`]); the error names the key that set the rate and says why.
fn check_runaway(
    t: &Tab,
    name: &str,
    rate: f64,
    mean: f64,
    span: Time,
    max_alive: Option<u64>,
    nodes: &Nodes,
) -> Res<()> {
    let offered = rate * mean * 8.0;
    let arrivals = rate * span.secs();
    if max_alive.is_some()
        || !offered.is_finite()
        || nodes.capacity_bps <= 0.0
        || offered <= RUNAWAY * nodes.capacity_bps
        || arrivals <= RUNAWAY_ARRIVALS
    {
        return Ok(());
    }
    let key = if t.has("offered_load") {
        "offered_load"
    } else {
        "arrival_rate"
    };
    let v = t.get(key).cloned().unwrap_or(Value::Null);
    Err(t.error(
        key,
        &v,
        format!(
            "an offered load the network can carry: workload {name:?} offers {offered:.3e} bit/s \
             ({rate:.3e} connections/s of {mean:.0} B on average), {:.0} times the capacity of \
             every link together ({:.3e} bit/s), so its {arrivals:.2e} connections would pile up \
             until the memory budget stops the run; lower the rate, or bound the live \
             connections with `max_alive`",
            offered / nodes.capacity_bps,
            nodes.capacity_bps
        ),
    ))
}

/// Reads the `transport` table (default: TCP with its defaults).
fn read_transport(t: &mut Tab, duration: Time) -> Res<Arc<dyn TransportSpec>> {
    let empty = Value::Object(Default::default());
    let mut tt = match t.table("transport")? {
        Some(x) => x,
        None => Tab::new(t.key_path("transport"), &empty)?,
    };
    if tt.has("size") {
        let v = tt.get("size").expect("present").clone();
        return Err(tt.error(
            "size",
            &v,
            "no `size` here: the workload's `size` gives each connection's",
        ));
    }
    let cx = ReadCtx {
        duration,
        in_workload: true,
    };
    let spec = transport::read(&mut tt, &cx)?;
    if !spec.transfers() {
        return Err(tt.error(
            "kind",
            &Value::String(spec.kind().into()),
            "a transport that transfers files and completes: \"tcp\", \"blt\" or \"bully-tyrant\"",
        ));
    }
    let resolved = tt.finish()?;
    t.put("transport", resolved);
    Ok(spec)
}

/// Reads the pairs: `pairs` (dumbbell pair indices or "all") or `sources`
/// and `destinations` (node names; every source-destination combination of
/// distinct nodes).
fn read_pairs(t: &mut Tab, nodes: &Nodes) -> Res<Vec<(usize, usize)>> {
    if let Some(p) = t.raw("pairs") {
        if nodes.pairs.is_empty() {
            return Err(t.error(
                "pairs",
                p,
                "`pairs` only with a dumbbell topology; use sources and destinations",
            ));
        }
        let expected = format!("\"all\" or a list of pair indices in [0, {}]", nodes.pairs.len() - 1);
        let out: Vec<(usize, usize)> = match p {
            Value::String(s) if s == "all" => nodes.pairs.to_vec(),
            Value::Array(a) if !a.is_empty() => a
                .iter()
                .map(|x| {
                    x.as_u64()
                        .filter(|k| (*k as usize) < nodes.pairs.len())
                        .map(|k| nodes.pairs[k as usize])
                        .ok_or_else(|| t.error("pairs", p, expected.clone()))
                })
                .collect::<Res<_>>()?,
            _ => return Err(t.error("pairs", p, expected)),
        };
        t.put("pairs", p.clone());
        t.raw("sources");
        t.raw("destinations");
        if t.has("sources") || t.has("destinations") {
            return Err(t.error(
                "sources",
                &Value::Null,
                "either `pairs` or `sources`/`destinations`, not both",
            ));
        }
        return Ok(out);
    }
    let src = nodes.list(t, "sources", "a list of node names (or `pairs` on a dumbbell)")?;
    let dst = nodes.list(t, "destinations", "a list of node names (or `pairs` on a dumbbell)")?;
    let pairs: Vec<(usize, usize)> = src
        .iter()
        .flat_map(|&s| dst.iter().filter(move |&&d| d != s).map(move |&d| (s, d)))
        .collect();
    if pairs.is_empty() {
        return Err(t.error(
            "destinations",
            t.get("destinations").expect("read"),
            "at least one destination different from a source",
        ));
    }
    Ok(pairs)
}
