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
//! - `all_to_all`: every ordered pair of distinct hosts;
//! - `file`: the connections of a file in htsim's connection-matrix format
//!   (Broadcom/csg-htsim, `datacenter/connection_matrix.cpp`, the loader its
//!   `main_*` programs and `connection_matrices/gen_*.py` generators share):
//!   `Nodes N` and `Connections C` headers, then one line per connection,
//!   `SRC->DST [id I] start T size B` with host indices, the start in
//!   picoseconds and the size in bytes — each line one flow with its own start
//!   and size, so that a trace (or htsim's own matrices) runs as written.
//!
//! The hosts are `hosts` (node names) or, by default, every node of the topology
//! with one link out. Keys: docs/user-guide.md "Connection matrices".

use super::topology::Net;
use crate::cfg::{record, Res, Tab};
use crate::rng::Rng;
use crate::units::Time;
use serde_json::Value;

/// The matrix table's keys, for the scenario schema.
const DOCS: &[(&str, &str)] = &[
    (
        "kind",
        "\"permutation\" (each host sends to one and receives from one), \"incast\" (senders to one receiver), \"outcast\" (one sender to receivers), \"all_to_all\", or \"file\" (htsim's connection-matrix format: one flow a line with its start and size)",
    ),
    ("path", "file: the connection-matrix file (`Nodes N`, `Connections C`, then `SRC->DST [id I] start PICOSECONDS size BYTES` lines; SRC and DST index the hosts)"),
    ("digest", "file: the file's FNV-1a 64-bit digest, recorded by the resolved scenario; a run given one refuses a file that no longer matches it"),
    ("hosts", "the hosts (node names, each once; default: every node with one link out)"),
    ("receiver", "incast: the receiving host (default: the first host)"),
    ("senders", "incast: how many hosts send, drawn at random (default: every other host)"),
    ("sender", "outcast: the sending host (default: the first host)"),
    ("receivers", "outcast: how many hosts receive, drawn at random (default: every other host)"),
];

/// (source, destination) node indices, one pair per flow (times `count`).
pub(super) type Pairs = Vec<(usize, usize)>;

/// A connection of a `file` matrix: its own start (after the flow table's) and size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Conn {
    pub(super) start: Time,
    pub(super) size: u64,
}

/// Reads the `matrix` table `m` (of a flow table) into (source, destination)
/// node indices, and for a `file` matrix each pair's [`Conn`]; draws from `rng`.
pub(super) fn read(m: &mut Tab, net: &Net, rng: &mut Rng) -> Res<(Pairs, Option<Vec<Conn>>)> {
    m.docs(DOCS);
    let kind = m.choice(
        "kind",
        None,
        &["permutation", "incast", "outcast", "all_to_all", "file"],
    )?;
    let hosts = hosts(m, net)?;
    if kind == "file" {
        let (ends, conns) = read_file(m, &hosts)?;
        return Ok((ends, Some(conns)));
    }
    if hosts.len() < 2 {
        let v = m.get("hosts").cloned().unwrap_or(Value::from(hosts.len()));
        return Err(m.error(
            "hosts",
            &v,
            "at least two hosts (nodes with one link out, or names listed)",
        ));
    }
    let n = hosts.len();
    Ok((
        match kind.as_str() {
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
        },
        None,
    ))
}

/// A `file` matrix: reads `path`, checks it against `digest` if given, and
/// parses it ([`parse_cm`]) over `hosts`.
fn read_file(m: &mut Tab, hosts: &[usize]) -> Res<(Pairs, Vec<Conn>)> {
    let expected =
        "a connection-matrix file (`Nodes N`, `Connections C`, then `SRC->DST start PICOSECONDS size BYTES` lines)";
    let path = m.string("path")?.ok_or_else(|| m.missing("path", expected))?;
    if record::on() {
        // While the scenario's form is recorded (the schema), the file is not
        // read: one connection between the first two hosts stands for it.
        m.string("digest")?;
        return Ok((
            vec![(hosts[0], hosts[1])],
            vec![Conn {
                start: Time::ZERO,
                size: 1,
            }],
        ));
    }
    let pv = Value::String(path.clone());
    let text =
        std::fs::read_to_string(&path).map_err(|e| m.error("path", &pv, format!("{expected} (reading it: {e})")))?;
    let digest = format!("{:016x}", crate::rng::fnv1a(text.as_bytes()));
    if let Some(d) = m.string("digest")? {
        if d != digest {
            return Err(m.error(
                "digest",
                &Value::String(d),
                format!(
                    "the digest of {path} as it is now ({digest}): the file changed since this scenario was resolved"
                ),
            ));
        }
    }
    m.put("digest", Value::String(digest));
    let conns = parse_cm(&text, hosts.len()).map_err(|why| m.error("path", &pv, format!("{expected}: {why}")))?;
    if conns.is_empty() {
        return Err(m.error("path", &pv, "a connection-matrix file with at least one connection"));
    }
    Ok(conns.into_iter().map(|(s, d, c)| ((hosts[s], hosts[d]), c)).unzip())
}

/// Parses htsim's connection-matrix text over `n` hosts into (source index,
/// destination index, connection), in file order. Blank lines and `#` comments
/// are skipped; `Nodes` must be `n` and `Connections` the number of
/// connection lines. Triggers and failures (htsim's dependent starts and link
/// failures) are refused: `after` is ccsim's way to chain flows. The error
/// names the line.
fn parse_cm(text: &str, n: usize) -> Result<Vec<(usize, usize, Conn)>, String> {
    let mut out = Vec::new();
    let mut declared: Option<(usize, usize)> = None; // (line, count)
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let at = |why: String| format!("line {line_no} ({:?}): {why}", line.trim());
        let toks: Vec<&str> = line.split_whitespace().collect();
        let Some(&first) = toks.first() else { continue };
        if first.starts_with('#') {
            continue;
        }
        let count = |toks: &[&str]| -> Result<usize, String> {
            match toks {
                [_, c] => c
                    .parse::<usize>()
                    .map_err(|_| at("a count expected after the word".into())),
                _ => Err(at("one count expected after the word".into())),
            }
        };
        match first {
            "Nodes" => {
                let k = count(&toks)?;
                if k != n {
                    return Err(at(format!("the matrix has {n} hosts")));
                }
            }
            "Connections" => declared = Some((line_no, count(&toks)?)),
            "Triggers" | "Failures" => {
                if count(&toks)? != 0 {
                    return Err(at(
                        "triggers and failures are not supported (chain flows with `after`)".into()
                    ));
                }
            }
            "trigger" | "failure" => {
                return Err(at(
                    "triggers and failures are not supported (chain flows with `after`)".into()
                ))
            }
            _ => out.push(parse_conn(&toks, n).map_err(at)?),
        }
    }
    if let Some((line_no, c)) = declared {
        if c != out.len() {
            return Err(format!(
                "line {line_no}: `Connections {c}` but the file lists {} connections",
                out.len()
            ));
        }
    }
    Ok(out)
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

/// One connection line of a connection-matrix file (its words `toks`) over
/// `n` hosts: `SRC->DST` and the `id`, `start` and `size` words.
fn parse_conn(toks: &[&str], n: usize) -> Result<(usize, usize, Conn), String> {
    let first = toks[0];
    let (s, d) = first
        .split_once("->")
        .ok_or_else(|| String::from("`SRC->DST`, `Nodes`, `Connections` or a `#` comment expected"))?;
    let host = |x: &str| -> Result<usize, String> {
        x.parse::<usize>()
            .ok()
            .filter(|&h| h < n)
            .ok_or_else(|| format!("host {x:?} is not an index in [0, {}]", n - 1))
    };
    let (s, d) = (host(s)?, host(d)?);
    if s == d {
        return Err("a connection from a host to itself".into());
    }
    let (mut start, mut size) = (None, None);
    let mut rest = toks[1..].iter();
    while let Some(&word) = rest.next() {
        let value = rest.next().ok_or_else(|| format!("a value expected after {word:?}"))?;
        match word {
                "start" => {
                    let ps = value
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && *x >= 0.0)
                        .ok_or_else(|| format!("start {value:?}: picoseconds (≥ 0) expected"))?;
                    start = Some(Time((ps / 1000.0).round() as u64));
                }
                "size" => {
                    size = Some(
                        value
                            .parse::<u64>()
                            .ok()
                            .filter(|&b| b > 0)
                            .ok_or_else(|| format!("size {value:?}: bytes (> 0) expected"))?,
                    )
                }
                "id" => {
                    value.parse::<u64>().ok().filter(|&i| i > 0).ok_or_else(|| format!("id {value:?}: a positive integer expected"))?;
                }
                _ => {
                    return Err(format!(
                        "unknown word {word:?} (a connection takes `id`, `start` and `size`; triggers, priorities and failures are not supported)"
                    ))
                }
            }
    }
    let start = start.ok_or_else(|| String::from("`start PICOSECONDS` missing"))?;
    let size = size.ok_or_else(|| String::from("`size BYTES` missing"))?;
    Ok((s, d, Conn { start, size }))
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
    fn htsim_matrix_lines_give_ends_starts_and_sizes() {
        // htsim's generators write starts in picoseconds: 5 000 000 ps is 5 us
        let text = "Nodes 4\nConnections 2\n# c\n\n0->3 id 1 start 5000000 size 1000\n2->1 size 7 start 1499\n";
        let got = parse_cm(text, 4).unwrap();
        assert_eq!(
            got,
            vec![
                (
                    0,
                    3,
                    Conn {
                        start: Time(5000),
                        size: 1000
                    }
                ),
                (
                    2,
                    1,
                    Conn {
                        start: Time(1),
                        size: 7
                    }
                ) // 1.499 ns to the ns
            ]
        );
        // the headers are optional; what they say must hold
        assert_eq!(parse_cm("1->0 start 0 size 1", 2).unwrap().len(), 1);
        let e = parse_cm("Nodes 4\nConnections 3\n0->1 start 0 size 1\n", 4).unwrap_err();
        assert_eq!(e, "line 2: `Connections 3` but the file lists 1 connections");
        assert!(parse_cm("Nodes 5\n", 4)
            .unwrap_err()
            .starts_with("line 1 (\"Nodes 5\"): the matrix has 4"));
        for (bad, why) in [
            ("0->4 start 0 size 1", "host \"4\" is not an index in [0, 3]"),
            ("x->1 start 0 size 1", "host \"x\""),
            ("0-1 start 0 size 1", "`SRC->DST`"),
            ("0->1 start -5 size 1", "picoseconds (≥ 0)"),
            ("0->1 start 0 size", "a value expected after \"size\""),
            ("0->1 start 0", "`size BYTES` missing"),
            ("0->1 id 0 start 0 size 1", "id \"0\""),
            ("Triggers 1", "triggers and failures"),
            ("failure 1 2", "triggers and failures"),
        ] {
            let e = parse_cm(bad, 4).unwrap_err();
            assert!(e.starts_with("line 1 (") && e.contains(why), "{bad}: {e}");
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
