//! Data-centre fabrics built from a scenario: the k-ary fat-tree's wiring
//! against Al-Fares, Loukissas & Vahdat (SIGCOMM 2008, §3) counted by hand —
//! switches, hosts, links, hop counts and the number of equal-cost shortest
//! paths between hosts under one edge switch, in one pod and in different pods —
//! and the oversubscribed variant's hosts per edge switch.

use ccsim_core::scenario::build;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};

fn fat_tree(k: u64, oversubscription: f64) -> Value {
    let link = json!({"rate": "10Gbps", "delay": "1us"});
    json!({
        "seed": 1, "duration": "1ms",
        "topology": {"kind": "fat_tree", "k": k, "oversubscription": oversubscription,
                     "host_link": link, "fabric_link": link},
        "flows": [{"src": "h0_0_0", "dst": "h1_0_0", "cc": "newreno"}]
    })
}

/// Node names and directed links (by name) of the built network.
fn wiring(sc: &Value) -> (Vec<String>, Vec<(String, String)>) {
    let (sim, _) = build(&sc.to_string()).expect("builds");
    let names: Vec<String> = sim.nodes.iter().map(|n| n.name.clone()).collect();
    let links = sim
        .links
        .iter()
        .map(|l| (names[l.from.0 as usize].clone(), names[l.to.0 as usize].clone()))
        .collect();
    (names, links)
}

/// Hop count and number of distinct shortest paths from `src` to `dst`
/// (breadth-first search counting paths).
fn shortest_paths(links: &[(String, String)], src: &str, dst: &str) -> (usize, u64) {
    let mut out: HashMap<&str, Vec<&str>> = HashMap::new();
    for (a, b) in links {
        out.entry(a).or_default().push(b);
    }
    let mut dist: HashMap<&str, usize> = HashMap::from([(src, 0)]);
    let mut count: HashMap<&str, u64> = HashMap::from([(src, 1)]);
    let mut queue = VecDeque::from([src]);
    while let Some(n) = queue.pop_front() {
        for &m in out.get(n).map(Vec::as_slice).unwrap_or(&[]) {
            let d = dist[n] + 1;
            match dist.get(m) {
                None => {
                    dist.insert(m, d);
                    count.insert(m, count[n]);
                    queue.push_back(m);
                }
                Some(&e) if e == d => *count.get_mut(m).unwrap() += count[n],
                _ => {}
            }
        }
    }
    (dist[dst], count[dst])
}

#[test]
fn a_k4_fat_tree_has_the_papers_switches_hosts_and_links() {
    let (names, links) = wiring(&fat_tree(4, 1.0));
    let count = |prefix: &str| names.iter().filter(|n| n.starts_with(prefix)).count();
    // k = 4: (k/2)² = 4 core, k·k/2 = 8 aggregation and 8 edge switches, k³/4 = 16 hosts
    assert_eq!((count("core"), count("agg"), count("edge"), count("h")), (4, 8, 8, 16));
    // host–edge 16, edge–aggregation k·(k/2)² = 16, aggregation–core 16; both directions
    assert_eq!(links.len(), 2 * (16 + 16 + 16));
    // every switch has k ports, every host one
    let mut degree: HashMap<&str, usize> = HashMap::new();
    for (a, _) in &links {
        *degree.entry(a).or_default() += 1;
    }
    for n in &names {
        assert_eq!(degree[n.as_str()], if n.starts_with('h') { 1 } else { 4 }, "{n}");
    }
    // aggregation switch a of every pod reaches cores a·k/2 .. a·k/2 + k/2 - 1
    assert!(links.contains(&("agg3_1".into(), "core2".into())));
    assert!(links.contains(&("agg3_1".into(), "core3".into())));
    assert!(!links.contains(&("agg3_1".into(), "core0".into())));
}

#[test]
fn hosts_are_two_four_or_six_hops_apart_over_one_k_over_2_or_k2_over_4_paths() {
    for k in [4u64, 6, 8] {
        let (_, links) = wiring(&fat_tree(k, 1.0));
        let half = k / 2;
        assert_eq!(shortest_paths(&links, "h0_0_0", "h0_0_1"), (2, 1), "k = {k}, same edge");
        assert_eq!(
            shortest_paths(&links, "h0_0_0", "h0_1_0"),
            (4, half),
            "k = {k}, same pod"
        );
        let last = format!("h{}_{}_{}", k - 1, half - 1, half - 1);
        assert_eq!(
            shortest_paths(&links, "h0_0_0", &last),
            (6, half * half),
            "k = {k}, other pod"
        );
    }
}

#[test]
fn oversubscription_puts_r_times_k_over_2_hosts_under_each_edge_switch() {
    let (names, links) = wiring(&fat_tree(4, 2.0));
    assert_eq!(names.iter().filter(|n| n.starts_with('h')).count(), 4 * 2 * 4);
    assert!(names.contains(&"h3_1_3".to_string()) && !names.contains(&"h3_1_4".to_string()));
    // edge0_0: 4 hosts and 2 uplinks
    assert_eq!(links.iter().filter(|(a, _)| a == "edge0_0").count(), 6);
}

#[test]
fn bad_fat_trees_are_refused_at_their_key() {
    for (k, r, key, words) in [
        (5, 1.0, "topology.k", "an even number"),
        (0, 1.0, "topology.k", "[2, 64]"),
        (4, 0.5, "topology.oversubscription", "[1, 1000]"),
        (4, 1.3, "topology.oversubscription", "whole number of hosts"),
    ] {
        let e = build(&fat_tree(k, r).to_string()).err().expect("refused");
        assert_eq!(e.path, key, "{e}");
        assert!(e.to_string().contains(words), "{e}");
    }
}
