//! Collectives (`[[collectives]]`, `algorithm = …`): an all-reduce over a set of hosts, expanded
//! into flows whose steps wait for the transfers they depend on (`after`), so
//! that the collective's completion time emerges from the network (the flows'
//! transport, its losses and the fabric's contention), not from a formula.
//!
//! - `ring_allreduce` (Patarasuk & Yuan, "Bandwidth optimal all-reduce
//!   algorithms for clusters of workstations", JPDC 69(2), 2009): the buffer of
//!   `size` bytes in n chunks of ⌈size/n⌉; 2(n−1) steps, n−1 of reduce-scatter
//!   and n−1 of all-gather; in each, host i sends one chunk to host i+1 (mod
//!   n), and its step-k send waits for the chunk host i−1 sent it in step k−1.
//! - `butterfly_allreduce` (Thakur, Rabenseifner & Gropp, "Optimization of
//!   collective communication operations in MPICH", IJHPCA 19(1), 2005, §4.4:
//!   recursive halving then recursive doubling; n a power of two): log₂ n steps
//!   of reduce-scatter, in step k host i exchanges ⌈size/2^(k+1)⌉ bytes with
//!   host i XOR n/2^(k+1); then log₂ n steps of all-gather, in step k with host
//!   i XOR 2^k, ⌈size·2^k/n⌉ bytes; each step's send waits for what the partner
//!   of the step before sent.
//!
//! Flow `<name>/<step>/<i>` is host i's send of that step; the collective's
//! completion is its last flow's (`Results.collectives`). Keys:
//! docs/user-guide.md "Collectives".

use super::flows::FlowPlan;
use super::topology::Net;
use crate::budget::{self, Limits};
use crate::cfg::{Res, Tab};
use crate::transport::{self, ReadCtx};
use crate::units::Time;
use serde_json::Value;

/// The collective table's keys, for the scenario schema.
const DOCS: &[(&str, &str)] = &[
    ("algorithm", "\"ring_allreduce\" or \"butterfly_allreduce\" (hosts a power of two); the other keys are the flows' transport's (kind = \"tcp\" by default)"),
    ("name", "the collective's name; its flows are <name>/<step>/<host index> (default c<index>)"),
    ("hosts", "the hosts taking part, in ring order (node names, each once; default every node with one link out)"),
    ("size", "bytes each host contributes (the buffer being reduced)"),
    ("start", "when the first step starts"),
];

/// Reads `[[collectives]]` and appends their flows to `plans`.
pub(super) fn read(root: &mut Tab, net: &Net, duration: Time, limits: &Limits, plans: &mut Vec<FlowPlan>) -> Res<()> {
    let Some(arr) = root.array("collectives")? else {
        return Ok(());
    };
    let cpath = root.key_path("collectives");
    let mut out = Vec::new();
    for (ci, v) in arr.iter().enumerate() {
        let mut t = Tab::new(format!("{cpath}[{ci}]"), v)?;
        t.docs(DOCS);
        let kind = t.choice("algorithm", None, &["ring_allreduce", "butterfly_allreduce"])?;
        let name = t.string("name")?.unwrap_or_else(|| format!("c{ci}"));
        let hosts = super::matrix::hosts(&mut t, net)?;
        let n = hosts.len();
        if n < 2 || (kind == "butterfly_allreduce" && !n.is_power_of_two()) {
            let v = t.get("hosts").cloned().unwrap_or(Value::from(n));
            let want = if n < 2 {
                "at least two hosts".to_string()
            } else {
                format!("a power of two of hosts for a butterfly ({n} given)")
            };
            return Err(t.error("hosts", &v, want));
        }
        let size = t.size("size", None)?;
        if size == 0 {
            return Err(t.error("size", &Value::from(0), "a positive size such as \"1MB\""));
        }
        let start = t.time("start", Some("0s"))?;
        let cx = ReadCtx {
            duration,
            in_workload: true,
        };
        let spec = transport::read(&mut t, &cx)?;
        if !spec.transfers() {
            return Err(t.error(
                "kind",
                &Value::String(spec.kind().into()),
                "a transport that transfers bytes (tcp, blt, bully-tyrant)",
            ));
        }
        let count = n * if kind == "ring_allreduce" {
            2 * (n - 1)
        } else {
            2 * n.trailing_zeros() as usize
        };
        let total = (plans.len() + count) as u64;
        limits.check(
            &t.key_path("hosts"),
            format!("{n} hosts"),
            &format!("{total} flows"),
            total.saturating_mul(budget::FLOW_BYTES),
            "use fewer hosts",
        )?;
        let steps = if kind == "ring_allreduce" {
            ring(n, size)
        } else {
            butterfly(n, size)
        };
        // index of host i's flow in step k: base + k·n + i
        let base = plans.len();
        for (k, step) in steps.iter().enumerate() {
            for (i, &(to, bytes)) in step.iter().enumerate() {
                let after = if k == 0 {
                    Vec::new()
                } else {
                    // the flow that reached host i in the step before
                    let from = steps[k - 1]
                        .iter()
                        .position(|&(d, _)| d == i)
                        .expect("every host receives");
                    vec![base + (k - 1) * n + from]
                };
                plans.push(FlowPlan {
                    name: format!("{name}/{k}/{i}"),
                    src: hosts[i],
                    dst: hosts[to],
                    start: if k == 0 { start } else { Time::ZERO },
                    spec: spec.clone(),
                    after,
                    size: Some(bytes),
                    table: None,
                });
            }
        }
        out.push(t.finish()?);
    }
    root.put("collectives", Value::Array(out));
    Ok(())
}

/// Ring all-reduce: per step, each host's (destination index, bytes).
fn ring(n: usize, size: u64) -> Vec<Vec<(usize, u64)>> {
    let chunk = size.div_ceil(n as u64);
    (0..2 * (n - 1))
        .map(|_| (0..n).map(|i| ((i + 1) % n, chunk)).collect())
        .collect()
}

/// Butterfly all-reduce (recursive halving, then doubling): per step, each
/// host's (partner index, bytes).
fn butterfly(n: usize, size: u64) -> Vec<Vec<(usize, u64)>> {
    let m = n.trailing_zeros() as usize;
    let halving = (0..m).map(|k| {
        let d = n >> (k + 1);
        (0..n).map(|i| (i ^ d, size.div_ceil(1 << (k + 1)))).collect()
    });
    let doubling = (0..m).map(|k| {
        let d = 1 << k;
        (0..n).map(|i| (i ^ d, (size << k).div_ceil(n as u64))).collect()
    });
    halving.chain(doubling).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_has_2n_minus_2_steps_of_one_chunk_to_the_next_host() {
        let s = ring(4, 1000);
        assert_eq!(s.len(), 6);
        assert!(s
            .iter()
            .all(|step| step == &vec![(1, 250), (2, 250), (3, 250), (0, 250)]));
        // n·(2n−2)·⌈S/n⌉ bytes in all: each host sends 2(n−1)/n of its buffer
        assert_eq!(ring(3, 1000).iter().flatten().map(|x| x.1).sum::<u64>(), 3 * 4 * 334);
    }

    #[test]
    fn a_butterfly_halves_then_doubles_with_xor_partners() {
        // n = 8, S = 800: reduce-scatter 400, 200, 100 bytes at distances 4, 2, 1;
        // all-gather 100, 200, 400 at distances 1, 2, 4
        let s = butterfly(8, 800);
        let first: Vec<(usize, u64)> = s.iter().map(|step| step[0]).collect();
        assert_eq!(first, vec![(4, 400), (2, 200), (1, 100), (1, 100), (2, 200), (4, 400)]);
        for step in &s {
            for (i, &(p, _)) in step.iter().enumerate() {
                assert_eq!(step[p].0, i, "partners exchange");
            }
        }
    }
}
