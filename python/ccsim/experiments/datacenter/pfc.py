"""PFC's congestion spreading: an incast's pause frames stop a victim flow that shares
no bottleneck with it (``ccsim reproduce dc-pfc``).

Sources: Zhu et al., "Congestion Control for Large-Scale RDMA Deployments" (DCQCN),
SIGCOMM 2015, §2.2 ("Victim flow": PFC pauses propagate up the fabric and slow a flow
whose own path is not congested, the more so as the incast grows); Guo et al., "RDMA
over Commodity Ethernet at Scale", SIGCOMM 2016, §4 (pause propagation, head-of-line
blocking); the switch model: docs/models/switch-buffers.md.

The setup: a k = 4 fat-tree, hosts at 10 Gb/s and a fabric of 40 Gb/s links (1 µs),
so that no fabric link is a bottleneck: the incast carries at most its receiver's
10 Gb/s over any link, the victim 10 Gb/s more. Every switch has a shared buffer of
500 KB (dynamic threshold α = 1). N hosts of pods 1-3 each send a long-lived NewReno +
SACK flow to ``h0_0_0``; the victim ``h1_1_1`` → ``h0_1_0`` ends on another edge switch
of the same pod. Lossy (the shared buffer drops at its threshold) against lossless (PFC
with the dynamic XOFF of HPCC's switch, headroom sized per link). The paths are ECMP's
hash of each flow, one draw per seed. Goodput after a 5-ms warm-up, as a fraction of a
10-Gb/s link's (payload of full segments).

Expectations: lossy, the victim gets its whole link (its max-min share: no link it
crosses is oversubscribed) and the incast its receiver's; with PFC nothing is dropped,
the incast still fills its receiver, and the victim loses most of its throughput to the
pauses the incast's ports send up the tree: nothing in the scenario or the model names
the victim (DCQCN §2.2).
"""

from __future__ import annotations

from pathlib import Path

from ccsim.experiments.framework import Check, Data, Experiment, Run, save_figure

from .common import MSS, PKT, fat_tree_hosts

RATE = "10Gbps"
#: A full 10-Gb/s link's goodput (payload of full-size segments).
GOODPUT_BPS = 10e9 * MSS / PKT
RECEIVER = "h0_0_0"
VICTIM = ("h1_1_1", "h0_1_0")
#: Incast senders, in the order they are added: hosts of pods 1-3, not the victim's.
SENDERS = [h for h in fat_tree_hosts(4) if not h.startswith("h0_") and h != VICTIM[0]]


def scenario(n: int, pfc: bool, seed: int, duration: float, warmup: float) -> dict:
    """N incast senders and the victim on a k = 4 fat-tree with shared-buffer switches."""
    host = {"rate": RATE, "delay": "1us", "queue": {"limit": "20000pkt"}}
    fabric = {"rate": "40Gbps", "delay": "1us"}
    tcp = {"cc": "newreno", "sack": True, "send_jitter": "2us"}
    flows = [
        {"name": f"incast{i}", "src": s, "dst": RECEIVER, **tcp} for i, s in enumerate(SENDERS[:n])
    ]
    flows.append({"name": "victim", "src": VICTIM[0], "dst": VICTIM[1], **tcp})
    switches: dict = {"buffer": "500KB", "alpha": 1.0}
    if pfc:
        switches["pfc"] = {}
    return {
        "name": f"pfc-{'lossless' if pfc else 'lossy'}-{n}",
        "seed": seed,
        "duration": f"{duration}s",
        "warmup": f"{warmup}s",
        "topology": {"kind": "fat_tree", "k": 4, "host_link": host, "fabric_link": fabric},
        "switches": switches,
        "flows": flows,
    }


def runs(quick: bool) -> list[Run]:
    ns, seeds, duration = (
        ((2, 4, 8), range(1, 4), 0.03) if quick else ((1, 2, 4, 6, 8, 11), range(1, 9), 0.1)
    )
    return [
        Run({"n": n, "pfc": pfc, "seed_": s}, scenario(n, pfc, s, duration, 0.005))
        for n in ns
        for pfc in (False, True)
        for s in seeds
    ]


def metrics(r) -> dict:
    f = r.flows.set_index("name")
    q = r.queues
    switch = q["from"].str.startswith(("edge", "agg", "core"))
    incast = f.index.str.startswith("incast")
    return {
        "victim": float(f.loc["victim", "goodput_bps"]) / GOODPUT_BPS,
        "incast": float(f.loc[incast, "goodput_bps"].sum()) / GOODPUT_BPS,
        "switch_drops": float(q.loc[switch, "drops"].sum()),
        "pauses": float(q["pfc_pauses"].sum()),
        "paused_s": float(q["pfc_paused_s"].sum()),
    }


def _mean(d: Data, metric: str, n: int, pfc: bool) -> float:
    return d.one(metric, n=n, pfc=pfc)


def _ns(d: Data) -> list[int]:
    return sorted(int(n) for n in d.table["n"].unique())


def _why(d: Data) -> str:
    rows = []
    for n in _ns(d):
        rows.append(
            f"N = {n}: victim {_mean(d, 'victim', n, False):.3f} lossy, {_mean(d, 'victim', n, True):.3f} "
            f"with PFC; incast {_mean(d, 'incast', n, False):.3f} / {_mean(d, 'incast', n, True):.3f}; "
            f"PFC pauses {_mean(d, 'pauses', n, True):.0f}, switch drops lossy "
            f"{_mean(d, 'switch_drops', n, False):.0f}"
        )
    return "Means over seeds: " + "; ".join(rows) + "."


CHECKS = [
    Check(
        "Lossy: the victim's goodput / its link (lowest mean over N)",
        "≈ 1: its max-min share (no link it crosses is oversubscribed: hand-worked)",
        lambda d: min(_mean(d, "victim", n, False) for n in _ns(d)),
        0.95,
        1.01,
        "≥ 0.95",
        "{:.3f}",
        why=_why,
    ),
    Check(
        "PFC: packets dropped by the switches (all runs)",
        "0: the class is lossless (IEEE 802.1Qbb; headroom sized per link)",
        lambda d: float(d.rows(pfc=True)["switch_drops"].sum()),
        0.0,
        0.0,
        "= 0",
        "{:.0f}",
        why=_why,
    ),
    Check(
        "PFC: the incast's goodput / its receiver's link (lowest mean over N)",
        "≈ 1: pauses keep the receiver's port busy (DCQCN §2.2)",
        lambda d: min(_mean(d, "incast", n, True) for n in _ns(d)),
        0.95,
        1.01,
        "≥ 0.95",
        "{:.3f}",
        why=_why,
    ),
    Check(
        "PFC against lossy: the victim's goodput at the largest incast",
        "far below: the victim is paused with the incast's port (DCQCN §2.2, victim flow)",
        lambda d: _mean(d, "victim", _ns(d)[-1], True) / _mean(d, "victim", _ns(d)[-1], False),
        0.0,
        0.5,
        "< 0.5",
        "{:.3f}",
        why=_why,
    ),
    Check(
        "PFC: the victim's goodput, largest incast over smallest",
        "< 1: the more senders, the more its path is paused (DCQCN §2.2)",
        lambda d: _mean(d, "victim", _ns(d)[-1], True) / _mean(d, "victim", _ns(d)[0], True),
        0.0,
        0.8,
        "< 0.8",
        "{:.3f}",
        why=_why,
    ),
]


def plot(d: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    ns = _ns(d)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for pfc, style, label in ((False, "o-", "lossy shared buffer"), (True, "s-", "PFC (lossless)")):
        for metric, ls in (("victim", "-"), ("incast", ":")):
            g = d.rows(pfc=pfc).groupby("n")[metric]
            mean, lo, hi = g.mean(), g.min(), g.max()
            ax.errorbar(
                ns,
                [mean[n] for n in ns],
                yerr=[[mean[n] - lo[n] for n in ns], [hi[n] - mean[n] for n in ns]],
                marker=style[0],
                ls=ls,
                capsize=3,
                label=f"{metric}, {label}",
            )
    ax.set_xlabel("incast senders N")
    ax.set_ylabel("goodput / 10-Gb/s link")
    ax.set_ylim(0, 1.1)
    ax.set_title("Victim flow under PFC (k = 4 fat-tree; mean, min-max over seeds)", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return save_figure(fig, outdir, "pfc_victim")


def findings(d: Data) -> list[str]:
    out = [_why(d)]
    lossy = d.rows(pfc=False)
    out.append(
        f"Lossy, the incast itself loses packets at its receiver's port (up to "
        f"{lossy['switch_drops'].max():.0f} drops in a run) and some runs spend their length in a "
        f"retransmission timeout (lowest incast goodput {lossy['incast'].min():.3f}): the incast "
        "collapse PFC avoids, at the victim's expense."
    )
    return out


EXPERIMENT = Experiment(
    name="dc-pfc",
    title="PFC's congestion spreading: an incast's pauses slow a victim flow on an uncongested path",
    paper="Zhu et al. (DCQCN), SIGCOMM 2015 §2.2; Guo et al., SIGCOMM 2016 §4",
    runs=runs,
    metrics=metrics,
    checks=CHECKS,
    plot=plot,
    findings=findings,
    notes=[
        "Quick: N = 2, 4, 8 incast senders, three seeds (ECMP draws), 30-ms runs measured after "
        "5 ms; full: N = 1, 2, 4, 6, 8, 11, eight seeds, 100-ms runs.",
        "TCP (NewReno + SACK) rather than RDMA: the spreading is PFC's, whatever the transport; "
        "DCQCN, which reduces it, is issue 47's.",
        "One lossless class: a pause stops the whole link (docs/models/switch-buffers.md).",
    ],
)
