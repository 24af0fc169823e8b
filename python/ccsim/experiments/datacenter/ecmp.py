"""ECMP collisions: long flows of a random permutation on a fat-tree, one path per flow
by hashing, get less than full bisection (``ccsim reproduce dc-ecmp``).

Sources: Al-Fares, Loukissas & Vahdat, "A scalable, commodity data center network
architecture", SIGCOMM 2008, §2.3 and §3 (the k-ary fat-tree has full bisection, but
static per-flow path choice lets flows collide on an uplink); Al-Fares et al., "Hedera",
NSDI 2010, and Raiciu et al., "Improving datacenter performance and robustness with
multipath TCP", SIGCOMM 2011, §4 (single-path TCP with ECMP on a permutation reaches
roughly half of the bisection on large fat-trees).

The setup: a k-ary fat-tree (quick k = 4, 16 hosts; full k = 8, 128 hosts), 1-Gb/s
links of 5 µs with 100-packet drop-tail buffers, ECMP per flow; every host sends one
long-lived NewReno + SACK flow to its partner in a random permutation without fixed
points (``matrix = {kind = "permutation"}``, one per seed). Throughput is the flows'
goodput after a warm-up, as a fraction of full bisection (every host at its link's
goodput, C·1460/1500).

Two hand-worked expectations, both independent of ccsim's transport:

1. On the paths the hash chose (read from the run's packet trace), the max-min fair
   allocation (``ccsim.theory.max_min_fair``: progressive filling) is what fair
   transports on those paths would get; TCP's sharing is close to it but not equal (a
   flow over two bottlenecks gets less than its max-min share, and the aggregate can be
   a little above or below), so the measured aggregate is checked within ±10 % of it.
2. Over random permutations and uniform independent hashing, the expected max-min
   throughput (``ccsim.theory.ecmp_permutation_throughput``, Monte Carlo): 0.59 of
   bisection at k = 4 (σ = 0.08 from one permutation to the next) and 0.475 at k = 8
   (σ = 0.02); the realized paths' mean over the seeds must agree within three standard
   errors, which checks that ccsim's hash spreads flows as uniform hashing would.
"""

from __future__ import annotations

import math
from pathlib import Path

from ccsim import theory
from ccsim.experiments.framework import Check, Data, Experiment, Run, save_figure

from .common import BUFFER, MSS, PKT, RATE, RATE_BPS, fabric_links, host_links

#: The goodput of a full link (payload of full-size segments).
GOODPUT_BPS = RATE_BPS * MSS / PKT
#: Monte-Carlo draws of the expectation (ecmp_permutation_throughput), per k.
TRIALS = {4: 2000, 8: 300}


def scenario(k: int, seed: int, duration: float, warmup: float) -> dict:
    """A permutation of long NewReno + SACK flows on a k-ary fat-tree, with the fabric
    links traced for the first 0.3 ms (each flow's first packets show its path)."""
    link = {"rate": RATE, "delay": "5us", "queue": {"kind": "droptail", "limit": f"{BUFFER}pkt"}}
    return {
        "name": f"ecmp-k{k}",
        "seed": seed,
        "duration": f"{duration}s",
        "warmup": f"{warmup}s",
        "topology": {"kind": "fat_tree", "k": k, "host_link": link, "fabric_link": link},
        "flows": [
            {
                "matrix": {"kind": "permutation"},
                "cc": "newreno",
                "sack": True,
                "init_cwnd": 10,
                "send_jitter": "12us",
            }
        ],
        "trace": {"links": fabric_links(k), "stop": "0.3ms"},
    }


def runs(quick: bool) -> list[Run]:
    k, seeds, duration, warmup = (
        (4, range(1, 7), 1.0, 0.4) if quick else (8, range(1, 11), 1.5, 0.5)
    )
    return [Run({"k": k, "seed_": s}, scenario(k, s, duration, warmup)) for s in seeds]


def paths(r) -> dict[str, list[str]]:
    """Each flow's directed links: its host links, and the fabric links its data
    packets were enqueued on in the traced start of the run."""
    tr = r.trace
    data = tr[(tr["event"] == "enqueue") & (tr["kind"] == "data")]
    seen = data.groupby("flow", observed=True)["link"].unique()
    out = {}
    for _, f in r.flows.iterrows():
        up, _ = host_links(f["src"])
        _, down = host_links(f["dst"])
        out[f["name"]] = [up, down, *(str(x) for x in seen.get(f["name"], []))]
    return out


def metrics(r) -> dict:
    """Measured and max-min throughputs (fractions of bisection) and the collisions."""
    p = paths(r)
    fair = theory.max_min_fair(p, {link: 1.0 for ls in p.values() for link in ls})
    gp = r.flows.set_index("name")["goodput_bps"] / GOODPUT_BPS
    n = len(p)
    load: dict[str, int] = {}
    for ls in p.values():
        for link in ls:
            load[link] = load.get(link, 0) + 1
    per_flow = [abs(gp[f] - fair[f]) for f in p]
    return {
        "flows": float(n),
        "measured": float(gp.sum()) / n,
        "maxmin": math.fsum(fair.values()) / n,
        "flow_abs_error": math.fsum(per_flow) / n,
        "collided_flows": float(sum(1 for f in p if fair[f] < 0.99)) / n,
        "max_link_flows": float(max(load.values())),
    }


def _k(d: Data) -> int:
    return int(d.table["k"].iloc[0])


def _expected(d: Data) -> tuple[float, float]:
    k = _k(d)
    return theory.ecmp_permutation_throughput(k, TRIALS.get(k, 200), seed=1)


def _z_hash(d: Data) -> float:
    """(mean max-min on the realized paths − the Monte-Carlo expectation) / its SE."""
    m, s = _expected(d)
    vals = d.table["maxmin"].dropna()
    return (float(vals.mean()) - m) / (s / math.sqrt(len(vals)))


def _why(d: Data) -> str:
    m, s = _expected(d)
    t = d.table
    seeds = ", ".join(
        f"seed {int(r['seed'])}: measured {r['measured']:.3f}, max-min {r['maxmin']:.3f}"
        for _, r in t.iterrows()
    )
    return (
        f"k = {_k(d)}: {seeds}; expected max-min under uniform hashing {m:.3f} (σ {s:.3f} "
        f"per permutation)."
    )


CHECKS = [
    Check(
        "Aggregate throughput / full bisection (mean over permutations)",
        "below full bisection: per-flow ECMP collides (Al-Fares et al. 2008 §2.3; ≈ 0.4-0.6 "
        "on large fat-trees, Raiciu et al. 2011 §4)",
        lambda d: d.one("measured"),
        0.0,
        0.9,
        "≤ 0.9",
        "{:.3f}",
        why=_why,
    ),
    Check(
        "Measured aggregate / max-min fair aggregate on the realized paths (mean over seeds)",
        "1 (hand-worked: max-min by progressive filling; TCP is not exactly max-min)",
        lambda d: float((d.table["measured"] / d.table["maxmin"]).mean()),
        0.9,
        1.1,
        "±10 %",
        "{:.3f}",
        why=_why,
    ),
    Check(
        "Realized paths' max-min throughput against uniform random hashing (z-score)",
        "0 (Monte Carlo over permutations and hash choices: 0.59 at k = 4, 0.475 at k = 8)",
        _z_hash,
        -3.0,
        3.0,
        "within 3 SE",
        "{:+.2f}",
        why=_why,
    ),
]


def plot(d: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    t = d.table.sort_values("seed")
    m, s = _expected(d)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    x = range(len(t))
    ax.bar([i - 0.2 for i in x], t["measured"], 0.4, label="measured (TCP)")
    ax.bar([i + 0.2 for i in x], t["maxmin"], 0.4, label="max-min on the realized paths")
    ax.axhline(1.0, color="k", lw=0.8, label="full bisection")
    ax.axhspan(m - s, m + s, color="gray", alpha=0.25, label=f"uniform hashing: {m:.2f} ± σ")
    ax.set_xticks(list(x), [str(int(v)) for v in t["seed"]])
    ax.set_xlabel("seed (one permutation each)")
    ax.set_ylabel("throughput / bisection")
    ax.set_ylim(0, 1.1)
    ax.set_title(f"ECMP on a k = {_k(d)} fat-tree, permutation of long flows", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, outdir, "ecmp_permutation")


def findings(d: Data) -> list[str]:
    t = d.table
    return [
        f"Mean over seeds: measured {t['measured'].mean():.3f} of bisection, max-min on the "
        f"realized paths {t['maxmin'].mean():.3f}; flows below their full rate under max-min: "
        f"{t['collided_flows'].mean():.2f}; most flows on one link: {t['max_link_flows'].max():.0f}.",
        f"Mean |measured − max-min| per flow: {t['flow_abs_error'].mean():.3f} of a link "
        "(TCP's per-flow shares spread around max-min more than its aggregate).",
    ]


EXPERIMENT = Experiment(
    name="dc-ecmp",
    title="ECMP collisions: a permutation of long flows on a fat-tree below full bisection",
    paper="Al-Fares et al., SIGCOMM 2008 §2.3, §3; Raiciu et al. (MPTCP), SIGCOMM 2011 §4",
    runs=runs,
    metrics=metrics,
    checks=CHECKS,
    plot=plot,
    findings=findings,
    notes=[
        "Quick: k = 4, six permutations (seeds), 1-s runs measured after 0.4 s; full: k = 8, "
        "ten permutations, 1.5-s runs after 0.5 s.",
        "Each flow's path is read from the packet trace of the fabric links over the first "
        "0.3 ms; ACKs take paths of their own (their bytes, 40 per 1500, are not in the "
        "max-min model).",
    ],
)
