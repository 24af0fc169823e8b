//! Static routing computed at build time (DESIGN.md "Routing"): shortest
//! paths by hop count, ties to the lower link id, as forwarding state per node.
//!
//! Memory grows with routers × nodes, not nodes²: hosts (one output link)
//! keep no table, so a dumbbell of 100 000 pairs needs two tables.

use crate::packet::{LinkId, NodeId};
use std::collections::VecDeque;

/// No route marker in forwarding tables.
pub const NO_ROUTE: u32 = u32::MAX;

/// How a node chooses the output link of a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// No output link at all.
    Nowhere,
    /// A node with one output link (a host) sends everything through it.
    Only(LinkId),
    /// A router: next link towards each destination node (`NO_ROUTE` if unreachable).
    Table(Vec<u32>),
}

impl Route {
    /// The output link towards `dst` (None if unreachable).
    #[inline]
    pub fn next_hop(&self, dst: NodeId) -> Option<LinkId> {
        match self {
            Route::Nowhere => None,
            Route::Only(l) => Some(*l),
            Route::Table(t) => Some(t[dst.idx()]).filter(|&l| l != NO_ROUTE).map(LinkId),
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
pub fn route(n: usize, links: &[(usize, usize)]) -> Vec<Route> {
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
            }
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
    let mut tables = tables.into_iter();
    (0..n)
        .map(|u| match outgoing[u].as_slice() {
            [] => Route::Nowhere,
            [only] => Route::Only(LinkId(*only as u32)),
            _ => Route::Table(tables.next().expect("one table per router")),
        })
        .collect()
}

/// The links a packet from `src` to `dst` crosses, or None if it cannot arrive.
pub fn path(routes: &[Route], links: &[(usize, usize)], src: usize, dst: usize) -> Option<Vec<usize>> {
    let mut hops = Vec::new();
    let mut u = src;
    while u != dst {
        let l = match &routes[u] {
            Route::Nowhere => return None,
            Route::Only(l) => l.idx(),
            Route::Table(t) if t[dst] == NO_ROUTE => return None,
            Route::Table(t) => t[dst] as usize,
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
            let routes = route(n, &links);
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
        let routes = route(2 + 2 * pairs, &links);
        assert_eq!(routers(2 + 2 * pairs, &links), 2);
        let entries: usize = routes
            .iter()
            .map(|r| match r {
                Route::Table(t) => t.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(entries, 2 * (2 + 2 * pairs));
        assert_eq!(path(&routes, &links, 2, 3 + 2 * 99_999).unwrap().len(), 3);
        assert_eq!(path(&routes, &links, 3, 2).unwrap().len(), 3);
    }
}
