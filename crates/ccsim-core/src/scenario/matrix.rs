//! Connection matrices (`[[flows]] matrix = {kind = …}`): the traffic patterns of
//! data-centre studies, each a list of (source, destination) host pairs that the
//! flow table's `count`, `start` and transport keys then apply to, as to `src`
//! and `dst`.
//!
//! - `permutation`: every host sends to one other host and receives from one, a
//!   permutation without fixed points drawn uniformly from the run's seed (the
//!   permutation traffic of Al-Fares et al., SIGCOMM 2008, §5, and of htsim's
//!   `ConnectionMatrix::setPermutation`; Raiciu et al., "Improving datacenter
//!   performance and robustness with multipath TCP", SIGCOMM 2011, §4);
//! - `incast`: `senders` hosts (drawn, or every other host) to one `receiver`
//!   (Vasudevan et al., "Safe and effective fine-grained TCP retransmissions for
//!   datacenter communication", SIGCOMM 2009; Alizadeh et al., DCTCP, SIGCOMM
//!   2010, §4.2);
//! - `outcast`: one `sender` to `receivers` hosts;
//! - `all_to_all`: every ordered pair of distinct hosts.
//!
//! The hosts are `hosts` (node names) or, by default, every node of the topology
//! with one link out. Keys: docs/user-guide.md "Connection matrices".

use super::topology::Net;
use crate::cfg::{Res, Tab};
use crate::rng::Rng;
use serde_json::Value;

/// The matrix table's keys, for the scenario schema.
const DOCS: &[(&str, &str)] = &[
    (
        "kind",
        "\"permutation\" (each host sends to one and receives from one), \"incast\" (senders to one receiver), \"outcast\" (one sender to receivers) or \"all_to_all\"",
    ),
    ("hosts", "the hosts (node names, each once; default: every node with one link out)"),
    ("receiver", "incast: the receiving host (default: the first host)"),
    ("senders", "incast: how many hosts send, drawn at random (default: every other host)"),
    ("sender", "outcast: the sending host (default: the first host)"),
    ("receivers", "outcast: how many hosts receive, drawn at random (default: every other host)"),
];

/// Reads the `matrix` table `m` (of a flow table) into (source, destination)
/// node indices; draws from `rng`.
pub(super) fn read(m: &mut Tab, net: &Net, rng: &mut Rng) -> Res<Vec<(usize, usize)>> {
    m.docs(DOCS);
    let kind = m.choice("kind", None, &["permutation", "incast", "outcast", "all_to_all"])?;
    let hosts = hosts(m, net)?;
    if hosts.len() < 2 {
        let v = m.get("hosts").cloned().unwrap_or(Value::from(hosts.len()));
        return Err(m.error(
            "hosts",
            &v,
            "at least two hosts (nodes with one link out, or names listed)",
        ));
    }
    let n = hosts.len();
    Ok(match kind.as_str() {
        "permutation" => derangement(n, rng)
            .into_iter()
            .enumerate()
            .map(|(i, j)| (hosts[i], hosts[j]))
            .collect(),
        "all_to_all" => hosts
            .iter()
            .flat_map(|&s| hosts.iter().filter(move |&&d| d != s).map(move |&d| (s, d)))
            .collect(),
        "incast" => {
            let (one, many) = fan(m, net, &hosts, "receiver", "senders", rng)?;
            many.into_iter().map(|s| (s, one)).collect()
        }
        _ => {
            let (one, many) = fan(m, net, &hosts, "sender", "receivers", rng)?;
            many.into_iter().map(|d| (one, d)).collect()
        }
    })
}

/// The `hosts` of a matrix or a collective (`t`): node names, each listed once (a name
/// twice would pair a host with itself), or, absent, every node with one link out.
pub(super) fn hosts(t: &mut Tab, net: &Net) -> Res<Vec<usize>> {
    if !t.has("hosts") {
        t.raw("hosts");
        return Ok(net.hosts());
    }
    let ids = net.nodes().list(t, "hosts", "a list of host names")?;
    let mut seen = vec![false; net.names.len()];
    for &id in &ids {
        if std::mem::replace(&mut seen[id], true) {
            let name = &net.names[id];
            return Err(t.error(
                "hosts",
                &Value::String(name.clone()),
                format!("distinct host names ({name} is listed twice)"),
            ));
        }
    }
    Ok(ids)
}

/// Incast's and outcast's ends: the one host (`one_key`, a node name; default the
/// first host) and `many_key` others (a count, drawn without replacement from
/// the other hosts in random order; default all of them, in host order).
fn fan(
    m: &mut Tab,
    net: &Net,
    hosts: &[usize],
    one_key: &'static str,
    many_key: &'static str,
    rng: &mut Rng,
) -> Res<(usize, Vec<usize>)> {
    let one = match m.string(one_key)? {
        None => hosts[0],
        Some(name) => match net.index.get(&name) {
            Some(&i) if hosts.contains(&i) => i,
            _ => return Err(m.error(one_key, &Value::String(name), "one of the matrix's hosts")),
        },
    };
    let mut others: Vec<usize> = hosts.iter().copied().filter(|&h| h != one).collect();
    // (the default and the bound depend on the hosts: not in the schema)
    let k = if m.has(many_key) {
        let k = m.uint(many_key, None, 1, 1_000_000)? as usize;
        if k > others.len() {
            let n = others.len();
            return Err(m.error(
                many_key,
                &Value::from(k),
                format!("at most the {n} other hosts of the matrix"),
            ));
        }
        k
    } else {
        m.raw(many_key);
        others.len()
    };
    if k < others.len() {
        shuffle(&mut others, rng);
        others.truncate(k);
    }
    Ok((one, others))
}

/// Fisher–Yates: a uniformly random order of `v` (Knuth, TAOCP vol. 2,
/// §3.4.2, Algorithm P).
fn shuffle(v: &mut [usize], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = ((rng.uniform() * (i + 1) as f64) as usize).min(i);
        v.swap(i, j);
    }
}

/// A permutation of 0..n (n ≥ 2) without fixed points, uniform over such
/// permutations: uniform shuffles until one has none (on average e ≈ 2.7 tries).
fn derangement(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    loop {
        shuffle(&mut p, rng);
        if p.iter().enumerate().all(|(i, &j)| i != j) {
            return p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derangements_have_no_fixed_point_and_cover_all_of_them() {
        // n = 3 has exactly two derangements, (1 2 0) and (2 0 1): both appear,
        // about equally often, and nothing else does
        let mut rng = Rng::new(7, 0);
        let mut seen = std::collections::HashMap::new();
        for _ in 0..4000 {
            *seen.entry(derangement(3, &mut rng)).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 2, "{seen:?}");
        for (p, c) in seen {
            assert!(p == vec![1, 2, 0] || p == vec![2, 0, 1]);
            assert!((1800..2200).contains(&c), "{c}");
        }
        for n in [2, 5, 64] {
            let p = derangement(n, &mut rng);
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            assert!(p.iter().enumerate().all(|(i, &j)| i != j));
        }
    }

    #[test]
    fn shuffles_are_uniform_over_orders() {
        // 3 items: 6 orders, each about 1/6 of 6000 draws
        let mut rng = Rng::new(1, 0);
        let mut seen = std::collections::HashMap::new();
        for _ in 0..6000 {
            let mut v = vec![0, 1, 2];
            shuffle(&mut v, &mut rng);
            *seen.entry(v).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 6);
        assert!(seen.values().all(|&c| (850..1150).contains(&c)), "{seen:?}");
    }
}
