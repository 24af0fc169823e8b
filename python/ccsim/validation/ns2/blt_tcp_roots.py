"""Where ccsim and ns-2 first part ways in the BLT TCP comparison, connection by connection.

    python -m ccsim.validation.ns2.blt_tcp_roots              # λ = 15, seed 1, 200 + 2000 conns
    python -m ccsim.validation.ns2.blt_tcp_roots --lam 10 --seed 2

The closest pairing of ``blt_tcp.py`` (per-pair offsets, so no exact arrival/departure
ties; ccsim with ns-2's conventions; ns-2 with ``ts_resetRTO_ true``, ccsim's backoff
rule) with the bottleneck's events recorded in both. ccsim's ``[trace]`` does not take
workload connections, so its side is the same connections replayed as flows, each on a
pair of its own with the access delay of the pair the workload gave it (the replay's
response times are checked against the workload run's). For every connection the first
of its packets whose enqueue or drop differs (event, packet, or time by more than 2 µs;
ns-2's trace prints microseconds) is found; a connection whose divergence has no other
within the 0.5 s before it is a root (the others follow through the shared queue).
Roots are classed by how ccsim's packet moved against ns-2's: by one ACK spacing (the
packet left on the next ACK: the window reached the next whole packet one ACK later or
earlier), by whole milliseconds (a retransmission timer of another length: RTT samples
in 1-ms ticks), or otherwise.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from ccsim.validation.ns2 import blt_tcp as b


def events(p: b.Point):
    """(ccsim events, ns-2 events, workload-vs-replay agreement): bottleneck enqueue
    (``+``) and drop (``d``) events as DataFrames of t, e, k (connection), pk (packet)."""
    import ccsim
    import pandas as pd

    run, sc = b.run_ccsim(p, b.VARIANTS["ns2"])
    c = run.conns
    tx = dict(sc["workloads"][0]["transport"])
    tx.pop("kind")
    delays = sc["topology"]["access"]["delay"]
    rep = copy.deepcopy(sc)
    del rep["workloads"]
    rep["topology"]["pairs"] = len(c)
    rep["topology"]["access"]["delay"] = [delays[int(q)] for q in c["pair"]]
    rep["flows"] = [
        dict(name=f"c{k}", pairs=[k], start=f"{s!r}s", size=f"{b.PKTS * 500}B", **tx)
        for k, s in zip(c["conn"], c["start_s"])
    ]
    rep["trace"] = {"links": ["R1->R2"], "flows": "all"}
    r = ccsim.run(rep)
    same = np.abs(r.flows["completion_s"].to_numpy() - c["last_ack_s"].to_numpy()) < 1e-6
    t = r.trace
    t = t[t["event"].isin(["enqueue", "drop"])]
    cc = pd.DataFrame(
        {
            "t": t["time_ns"].to_numpy() / 1e9,
            "e": np.where(t["event"] == "drop", "d", "+"),
            "k": [int(x[1:]) for x in t["flow"]],
            "pk": t["seq"].to_numpy() // 500,
        }
    )
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bottleneck.tr"
        conns = list(zip(c["start_s"], c["pair"]))
        b.run_ns2(p, conns, sc["topology"]["pairs"], {"ts_resetRTO_": "true"}, str(path))
        rows = [
            (float(f[1]), f[0], int(f[7]), int(f[10]))
            for f in (line.split() for line in path.read_text().splitlines())
            if f[0] in "+d" and f[2] == "0"  # node 0 = r1: the bottleneck's queue
        ]
    ns = pd.DataFrame(rows, columns=["t", "e", "k", "pk"])
    return cc, ns, float(np.mean(same))


def roots(cc, ns, gap_s: float = 0.5):
    """First divergence per connection, and the roots among them, classified."""
    a = {k: v.reset_index(drop=True) for k, v in cc.groupby("k")}
    n = {k: v.reset_index(drop=True) for k, v in ns.groupby("k")}
    first = {}
    for k, x in a.items():
        y = n.get(k)
        if y is None:
            continue
        m = min(len(x), len(y))
        bad = np.flatnonzero(
            (x["e"].to_numpy()[:m] != y["e"].to_numpy()[:m])
            | (x["pk"].to_numpy()[:m] != y["pk"].to_numpy()[:m])
            | (np.abs(x["t"].to_numpy()[:m] - y["t"].to_numpy()[:m]) > 2e-6)
        )
        if len(bad):
            i = int(bad[0])
            first[k] = (min(x["t"][i], y["t"][i]), i)
        elif len(x) != len(y):
            first[k] = (min(x["t"][m - 1], y["t"][m - 1]), m)
    ks = sorted(first, key=lambda k: first[k][0])
    times = [first[k][0] for k in ks]
    rs = [k for j, k in enumerate(ks) if j == 0 or times[j] - times[j - 1] > gap_s]
    classes: dict = {}
    for k in rs:
        i = first[k][1]
        x, y = a[k], n[k]
        if i >= len(x) or i >= len(y):
            kind, dt = "one sent more packets", float("nan")
        elif x["pk"][i] != y["pk"][i] or x["e"][i] != y["e"][i]:
            kind, dt = "another packet, or a drop in one only", float("nan")
        else:
            dt = (x["t"][i] - y["t"][i]) * 1e6
            if 95 < abs(dt) < 115 or 20 < abs(dt) < 30:
                kind = "one ACK later (+) or earlier (-) in ccsim"
            elif abs(dt) > 400 and abs(dt / 1000 - round(dt / 1000)) < 0.05:
                kind = "whole milliseconds (timer)"
            else:
                kind = "other"
        classes.setdefault(kind, []).append((k, dt))
    return len(first), rs, classes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lam", type=float, default=15.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="100 + 500 connections")
    a = ap.parse_args(argv)
    if not b.have_ns():
        print("ns-2 BLT TCP root analysis skipped: the `ns` binary is not installed")
        return 0
    w, m = (100, 500) if a.quick else (200, 2000)
    p = b.Point(a.lam, a.seed, w, m, offset_us=50.0)
    cc, ns, same = events(p)
    n, rs, classes = roots(cc, ns)
    print(f"λ = {a.lam:g}, seed {a.seed}: the flow replay has the workload run's response time")
    print(
        f"for {100 * same:.1f} % of the connections; {n} connections diverge from ns-2, {len(rs)} roots:"
    )
    for kind, xs in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        shifts = Counter(round(dt) for _, dt in xs if dt == dt)
        common = ", ".join(f"{s:+d} µs ×{c}" for s, c in shifts.most_common(3))
        eg = ", ".join(str(k) for k, _ in xs[:5])
        print(f"  {len(xs):3d}  {kind}" + (f" ({common})" if common else "") + f"; e.g. {eg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
