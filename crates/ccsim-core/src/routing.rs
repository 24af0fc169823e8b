//! Static routing computed at build time (docs/architecture.md, "Decisions
//! taken so far": static routing): shortest paths by hop count, as forwarding
//! state per node. Ties go to the lower link id, or, with equal-cost multipath
//! (`ecmp`), to one of the equal-cost links chosen per flow by a hash, as
//! data-centre switches spread flows (RFC 2992, "hash-threshold"; here modulo-N
//! on a seeded 64-bit mix of the flow id and the node): every packet of a flow,
//! in one direction, takes one path, so ECMP never reorders a flow.
//!
//! Memory grows with routers × nodes, not nodes²: hosts (one output link)
//! keep no table, so a dumbbell of 100 000 pairs needs two tables.

use crate::packet::{LinkId, NodeId};
use std::collections::VecDeque;

/// No route marker in forwarding tables.
pub const NO_ROUTE: u32 = u32::MAX;
/// A table entry with this bit set (and not [`NO_ROUTE`]) names an ECMP group.
const GROUP: u32 = 1 << 31;

/// SplitMix64's finalizer: a fixed, well-mixed 64-bit hash (Steele, Lea &
/// Flood, OOPSLA 2014).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// How a node chooses the output link of a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// No output link at all.
    Nowhere,
    /// A node with one output link (a host) sends everything through it.
    Only(LinkId),
    /// A router: next link towards each destination node (`NO_ROUTE` if
    /// unreachable, or an ECMP group's index with the [`GROUP`] bit).
    Table(Vec<u32>),
    /// A router with equal-cost groups: the table, and each group's links.
    Ecmp(Vec<u32>, Vec<Box<[u32]>>),
}

impl Route {
    /// The output link towards `dst` (None if unreachable); of an ECMP group,
    /// its first (lowest) link.
    #[inline]
    pub fn next_hop(&self, dst: NodeId) -> Option<LinkId> {
        self.next_hop_hashed(dst, 0)
    }

    /// The output link towards `dst` for a packet whose flow hashes to `h`: of
    /// an ECMP group of n links, link `h mod n` (RFC 2992's modulo-N).
    #[inline]
    pub fn next_hop_hashed(&self, dst: NodeId, h: u64) -> Option<LinkId> {
        match self {
            Route::Nowhere => None,
            Route::Only(l) => Some(*l),
            Route::Table(t) => Route::table_entry(t, dst),
            Route::Ecmp(t, groups) => match t[dst.idx()] {
                NO_ROUTE => None,
                e if e & GROUP != 0 => {
                    let g = &groups[(e & !GROUP) as usize];
                    Some(LinkId(g[(h % g.len() as u64) as usize]))
                }
                l => Some(LinkId(l)),
            },
        }
    }

    /// A plain table's link towards `dst`, if it has one.
    #[inline(always)]
    pub fn table_entry(t: &[u32], dst: NodeId) -> Option<LinkId> {
        Some(t[dst.idx()]).filter(|&l| l != NO_ROUTE).map(LinkId)
    }

    /// Every link a packet towards `dst` may leave by: the one link, or each
    /// member of an ECMP group.
    pub fn each_hop(&self, dst: NodeId, mut f: impl FnMut(LinkId)) {
        match self {
            Route::Nowhere => {}
            Route::Only(l) => f(*l),
            Route::Table(t) => Route::table_entry(t, dst).into_iter().for_each(f),
            Route::Ecmp(t, groups) => match t[dst.idx()] {
                NO_ROUTE => {}
                e if e & GROUP != 0 => groups[(e & !GROUP) as usize].iter().for_each(|&l| f(LinkId(l))),
                l => f(LinkId(l)),
            },
        }
    }

    /// The table entry towards `dst` as the lowest link (routers only).
    fn first(&self, dst: usize) -> Option<u32> {
        match self {
            Route::Table(t) => Some(t[dst]),
            Route::Ecmp(t, g) => Some(match t[dst] {
                e if e != NO_ROUTE && e & GROUP != 0 => g[(e & !GROUP) as usize][0],
                e => e,
            }),
            _ => None,
        }
    }
}

/// Nodes that will keep a forwarding table: those with several output links.
pub fn routers(n: usize, links: &[(usize, usize)]) -> usize {
    let mut out = vec![0u8; n];
    for &(from, _) in links {
        out[from] = out[from].saturating_add(1);
    }
    out.iter().filter(|&&k| k > 1).count()
}

/// Shortest-path (hop count) routes; ties go to the lower link id.
///
/// Only routers (nodes with several output links) get a table, indexed by
/// destination node; a node with one output link sends everything through it.
/// Tables are filled by one backward BFS per destination, except for a
/// destination `h` entered by a single link `p -> h`: every path to `h` ends
/// with that link, so its entries are those of `p` (and `p -> h` at `p`). A
/// dumbbell of n pairs thus costs 2 tables of 2n + 2 entries and 2 searches.
/// The memory (routers × nodes entries) is checked beforehand against the
/// run's budget (`budget::routing_bytes`).
///
/// With `ecmp`, a router with several equal-cost next hops towards a
/// destination gets them all, as a group shared by every destination with the
/// same set (a leaf's uplinks serve every remote host through one group).
pub fn route(n: usize, links: &[(usize, usize)], ecmp: bool) -> Vec<Route> {
    assert!(links.len() < GROUP as usize, "link ids fit below the group bit");
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &(from, to)) in links.iter().enumerate() {
        incoming[to].push(i);
        outgoing[from].push(i);
    }
    let routers: Vec<usize> = (0..n).filter(|&u| outgoing[u].len() > 1).collect();
    let mut row = vec![usize::MAX; n];
    for (k, &u) in routers.iter().enumerate() {
        row[u] = k;
    }
    let mut tables = vec![vec![NO_ROUTE; n]; routers.len()];
    // ECMP: each router's equal-cost links towards the destination being
    // searched, and the groups interned so far (per router).
    let mut cand: Vec<Vec<u32>> = vec![Vec::new(); if ecmp { routers.len() } else { 0 }];
    let mut touched: Vec<usize> = Vec::new();
    let mut groups: Vec<Vec<Box<[u32]>>> = vec![Vec::new(); cand.len()];
    let mut interned: Vec<std::collections::HashMap<Box<[u32]>, u32>> = vec![Default::default(); cand.len()];
    // Destinations reached through a single link from a node that is searched.
    // (p itself is searched: it is not entered by a single link.)
    let parent = |h: usize| -> Option<usize> {
        match incoming[h].as_slice() {
            [only] if incoming[links[*only].0].len() != 1 => Some(*only),
            _ => None,
        }
    };
    let mut dist = vec![usize::MAX; n];
    let mut q = VecDeque::new();
    for dst in 0..n {
        if parent(dst).is_some() || routers.is_empty() {
            continue;
        }
        // BFS backwards from dst: the first link found from a node is its next hop.
        dist.iter_mut().for_each(|d| *d = usize::MAX);
        dist[dst] = 0;
        q.push_back(dst);
        while let Some(v) = q.pop_front() {
            for &li in &incoming[v] {
                let u = links[li].0;
                let cell = (row[u] != usize::MAX).then(|| &mut tables[row[u]][dst]);
                let equal = dist[u] == usize::MAX || dist[u] == dist[v] + 1;
                if dist[u] == usize::MAX {
                    dist[u] = dist[v] + 1;
                    if let Some(c) = cell {
                        *c = li as u32;
                    }
                    q.push_back(u);
                } else if dist[u] == dist[v] + 1 {
                    if let Some(c) = cell {
                        *c = (*c).min(li as u32);
                    }
                }
                if ecmp && equal && row[u] != usize::MAX {
                    let c = &mut cand[row[u]];
                    if c.is_empty() {
                        touched.push(row[u]);
                    }
                    c.push(li as u32);
                }
            }
        }
        for k in touched.drain(..) {
            let c = &mut cand[k];
            if let Some(g) = intern_group(c, &mut groups[k], &mut interned[k]) {
                tables[k][dst] = GROUP | g;
            }
            c.clear();
        }
    }
    for h in 0..n {
        if let Some(li) = parent(h) {
            let p = links[li].0;
            for (k, &u) in routers.iter().enumerate() {
                tables[k][h] = if u == p {
                    li as u32
                } else if u == h {
                    NO_ROUTE
                } else {
                    tables[k][p]
                };
            }
        }
    }
    assemble(&outgoing, tables, groups)
}

/// A router's equal-cost links towards one destination (`c`, unsorted, with
/// repeats) as the number of its group, interned among the router's groups;
/// `None` for a single link (no group).
fn intern_group(
    c: &mut Vec<u32>,
    groups: &mut Vec<Box<[u32]>>,
    interned: &mut std::collections::HashMap<Box<[u32]>, u32>,
) -> Option<u32> {
    c.sort_unstable();
    c.dedup();
    if c.len() < 2 {
        return None;
    }
    let key: Box<[u32]> = c.as_slice().into();
    let next = groups.len() as u32;
    Some(*interned.entry(key.clone()).or_insert_with(|| {
        groups.push(key);
        next
    }))
}

/// Each node's route: nowhere, its only link, or (routers, in order) its
/// table with its ECMP groups if it has any.
fn assemble(outgoing: &[Vec<usize>], tables: Vec<Vec<u32>>, groups: Vec<Vec<Box<[u32]>>>) -> Vec<Route> {
    let mut tables = tables
        .into_iter()
        .zip(groups.into_iter().map(Some).chain(std::iter::repeat_with(|| None)));
    outgoing
        .iter()
        .map(|out| match out.as_slice() {
            [] => Route::Nowhere,
            [only] => Route::Only(LinkId(*only as u32)),
            _ => match tables.next().expect("one table per router") {
                (t, Some(g)) if !g.is_empty() => Route::Ecmp(t, g),
                (t, _) => Route::Table(t),
            },
        })
        .collect()
}

/// The links a packet from `src` to `dst` crosses, or None if it cannot arrive
/// (through an ECMP group, its lowest link: every member is a shortest path).
pub fn path(routes: &[Route], links: &[(usize, usize)], src: usize, dst: usize) -> Option<Vec<usize>> {
    let mut hops = Vec::new();
    let mut u = src;
    while u != dst {
        let l = match &routes[u] {
            Route::Nowhere => return None,
            Route::Only(l) => l.idx(),
            r => match r.first(dst) {
                Some(NO_ROUTE) | None => return None,
                Some(l) => l as usize,
            },
        };
        if hops.len() > links.len() {
            return None; // a loop: dst unreachable behind a host's only link
        }
        hops.push(l);
        u = links[l].1;
    }
    Some(hops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The previous all-pairs tables (one backward BFS per destination for
    /// every node), kept as the reference.
    fn reference(n: usize, links: &[(usize, usize)]) -> Vec<Vec<u32>> {
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, l) in links.iter().enumerate() {
            incoming[l.1].push(i);
        }
        let mut fwd = vec![vec![NO_ROUTE; n]; n];
        for dst in 0..n {
            let mut dist = vec![usize::MAX; n];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst]);
            while let Some(v) = q.pop_front() {
                for &li in &incoming[v] {
                    let u = links[li].0;
                    if dist[u] == usize::MAX {
                        dist[u] = dist[v] + 1;
                        fwd[u][dst] = li as u32;
                        q.push_back(u);
                    } else if dist[u] == dist[v] + 1 && (li as u32) < fwd[u][dst] {
                        fwd[u][dst] = li as u32;
                    }
                }
            }
        }
        fwd
    }

    #[test]
    fn same_next_hops_as_all_pairs_tables_on_random_graphs() {
        let mut rng = Rng::new(7, 0);
        for _ in 0..300 {
            let n = 2 + (rng.next_u64() % 12) as usize;
            let mut links = Vec::new();
            for _ in 0..(rng.next_u64() % (2 * n as u64 + 1)) {
                let (a, b) = (
                    (rng.next_u64() % n as u64) as usize,
                    (rng.next_u64() % n as u64) as usize,
                );
                if a != b {
                    links.push((a, b));
                    if !rng.next_u64().is_multiple_of(3) {
                        links.push((b, a)); // mostly duplex, as scenarios write them
                    }
                }
            }
            let routes = route(n, &links, false);
            let want = reference(n, &links);
            for (src, row) in want.iter().enumerate() {
                for (dst, &hop) in row.iter().enumerate() {
                    if src == dst {
                        continue;
                    }
                    let got = path(&routes, &links, src, dst).map(|p| p[0] as u32).unwrap_or(NO_ROUTE);
                    assert_eq!(got, hop, "{src} -> {dst} in {links:?}");
                    if hop != NO_ROUTE {
                        // Following the hops gives a shortest path.
                        let mut len = 0;
                        let mut u = src;
                        while u != dst {
                            u = links[want[u][dst] as usize].1;
                            len += 1;
                        }
                        assert_eq!(path(&routes, &links, src, dst).unwrap().len(), len);
                    }
                }
            }
        }
    }

    #[test]
    fn a_dumbbell_of_100k_pairs_needs_two_small_tables() {
        // R1 = 0, R2 = 1, then s_i, d_i; duplex access links, then the bottleneck.
        let pairs = 100_000;
        let mut links = Vec::new();
        for i in 0..pairs {
            let (s, d) = (2 + 2 * i, 3 + 2 * i);
            links.extend([(s, 0), (0, s), (1, d), (d, 1)]);
        }
        links.extend([(0, 1), (1, 0)]);
        let routes = route(2 + 2 * pairs, &links, false);
        assert_eq!(routers(2 + 2 * pairs, &links), 2);
        let entries: usize = routes
            .iter()
            .map(|r| match r {
                Route::Table(t) | Route::Ecmp(t, _) => t.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(entries, 2 * (2 + 2 * pairs));
        assert_eq!(path(&routes, &links, 2, 3 + 2 * 99_999).unwrap().len(), 3);
        assert_eq!(path(&routes, &links, 3, 2).unwrap().len(), 3);
    }

    /// A leaf-spine fabric as topology.rs builds it: spines first, then per
    /// leaf the leaf, its hosts (host<->leaf links) and its uplinks.
    fn leaf_spine(leaves: usize, spines: usize, hosts: usize) -> (usize, Vec<(usize, usize)>) {
        let mut n = spines;
        let mut links = Vec::new();
        for _ in 0..leaves {
            let leaf = n;
            n += 1;
            for _ in 0..hosts {
                links.extend([(n, leaf), (leaf, n)]);
                n += 1;
            }
            for sp in 0..spines {
                links.extend([(leaf, sp), (sp, leaf)]);
            }
        }
        (n, links)
    }

    #[test]
    fn ecmp_gives_a_leaf_every_uplink_towards_other_leaves() {
        let (n, links) = leaf_spine(2, 3, 2);
        // spines 0..3, leaf0 = 3 with hosts 4, 5; leaf1 = 6 with hosts 7, 8.
        let routes = route(n, &links, true);
        let uplinks: Vec<u32> = (0..links.len() as u32)
            .filter(|&l| links[l as usize].0 == 3 && links[l as usize].1 < 3)
            .collect();
        assert_eq!(uplinks.len(), 3);
        let Route::Ecmp(t, g) = &routes[3] else {
            panic!("leaf0 has an ECMP table")
        };
        assert_eq!(g.len(), 1, "one group serves every remote host");
        for remote in [6, 7, 8] {
            assert_eq!(t[remote], GROUP, "towards {remote}");
        }
        assert_eq!(&*g[0], uplinks.as_slice());
        // Its own hosts: the direct link, not a group.
        let down = links.iter().position(|&l| l == (3, 4)).unwrap() as u32;
        assert_eq!(t[4], down);
        // A spine reaches each leaf, and so each host, by one link (spine to
        // spine goes through any leaf: a group).
        let spine_down = links.iter().position(|&l| l == (0, 6)).unwrap() as u32;
        for h in 0..50 {
            assert_eq!(routes[0].next_hop_hashed(NodeId(7), h), Some(LinkId(spine_down)));
        }
        // Without ECMP: the lowest uplink, as before.
        let plain = route(n, &links, false);
        assert_eq!(plain[3].next_hop(NodeId(7)), Some(LinkId(uplinks[0])));
        assert!(matches!(plain[3], Route::Table(_)));
    }

    #[test]
    fn ecmp_spreads_flows_evenly_and_keeps_each_on_one_link() {
        let (n, links) = leaf_spine(2, 4, 1);
        let routes = route(n, &links, true);
        let leaf0 = 4;
        let dst = NodeId(7); // the host of leaf1
        let mut count = [0usize; 4];
        let flows = 40_000u64;
        for f in 0..flows {
            let h = mix64(f ^ 0x5eed);
            let l = routes[leaf0].next_hop_hashed(dst, h).unwrap();
            assert_eq!(
                routes[leaf0].next_hop_hashed(dst, h),
                Some(l),
                "the same link for the same flow"
            );
            count[links[l.idx()].1] += 1;
        }
        for c in count {
            // Binomial(40 000, 1/4): sd ≈ 87; allow 5 sd.
            assert!((c as i64 - 10_000).abs() < 450, "{count:?}");
        }
    }

    #[test]
    fn every_ecmp_choice_is_a_shortest_path_on_random_graphs() {
        let mut rng = Rng::new(11, 0);
        for _ in 0..200 {
            let n = 2 + (rng.next_u64() % 12) as usize;
            let mut links = Vec::new();
            for _ in 0..(rng.next_u64() % (3 * n as u64 + 1)) {
                let (a, b) = (
                    (rng.next_u64() % n as u64) as usize,
                    (rng.next_u64() % n as u64) as usize,
                );
                if a != b {
                    links.extend([(a, b), (b, a)]);
                }
            }
            let plain = route(n, &links, false);
            let ecmp = route(n, &links, true);
            for src in 0..n {
                for dst in 0..n {
                    if src == dst {
                        continue;
                    }
                    let shortest = path(&plain, &links, src, dst).map(|p| p.len());
                    for h in [0, 1, 2, 3, 0xdead_beef] {
                        let mut u = src;
                        let mut hops = 0;
                        let mut reached = true;
                        while u != dst {
                            match ecmp[u].next_hop_hashed(NodeId(dst as u32), mix64(h ^ u as u64)) {
                                Some(l) => u = links[l.idx()].1,
                                None => {
                                    reached = false;
                                    break;
                                }
                            }
                            hops += 1;
                            if hops > links.len() {
                                reached = false; // round a host's only link: unreachable, as path() says
                                break;
                            }
                        }
                        assert_eq!(reached.then_some(hops), shortest, "{src} -> {dst} hash {h}");
                    }
                }
            }
        }
    }
}
