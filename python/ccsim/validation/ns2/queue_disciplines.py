"""The ``queues`` suite: ccsim's queue disciplines against ns-2.35 on small scenarios
(``programs/queues/README.md``).

    ccsim validate queues
    python -m ccsim.validation.ns2.queue_disciplines [--cases red_cbr,drr]

Each case is an ns-2 program (``programs/queues/<case>.tcl``, sharing ``common.tcl``)
and its ccsim twin beside it (``<case>.toml``): the same dumbbell, traffic and
discipline settings. Both are run, their bottleneck queues measured the same way, and each
metric is checked against a stated tolerance. Sample paths differ (the random
numbers differ), so averages over seconds are compared, not packets. Exit status:
0 all within tolerance, 1 some metric outside, 0 with a one-line message when
``ns`` is not installed (nothing to compare).
"""

from __future__ import annotations

import argparse
import importlib.resources
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ccsim.validation.framework import SuiteResult, Verdict
from ccsim.validation.mdblock import replace_block

#: The cases: each ``<case>.tcl`` and its ccsim twin ``<case>.toml`` (package data, on
#: the file system: ``ns`` runs a script from a path, and the scripts source
#: ``common.tcl`` beside them).
CASE_FILES = Path(str(importlib.resources.files("ccsim.validation.ns2") / "programs" / "queues"))

MARK_BEGIN = "<!-- ns2-queues:begin -->"
MARK_END = "<!-- ns2-queues:end -->"


@dataclass
class Check:
    case: str
    metric: str
    ns2: float
    ccsim: float
    tol: float
    relative: bool = True

    @property
    def diff(self) -> float:
        d = self.ccsim - self.ns2
        return d / self.ns2 if self.relative and self.ns2 else d

    @property
    def ok(self) -> bool:
        return abs(self.diff) <= self.tol

    def verdict(self) -> Verdict:
        """As the framework reports it (a relative tolerance as an absolute one)."""
        tol = self.tol * abs(self.ns2) if self.relative else self.tol
        return Verdict(self.case, self.metric, self.ns2, self.ccsim, tol, fmt="{:.5g}")

    def row(self) -> str:
        fmt = (lambda x: f"{100 * x:+.1f} %") if self.relative else (lambda x: f"{x:+.3g}")
        tol = f"±{100 * self.tol:.0f} %" if self.relative else f"±{self.tol:g}"
        mark = "ok" if self.ok else "**outside**"
        return (
            f"| {self.case} | {self.metric} | {self.ns2:.5g} | {self.ccsim:.5g} | "
            f"{fmt(self.diff)} | {tol} | {mark} |"
        )


# ----- ns-2 side


@dataclass
class Ns2Run:
    samples: dict[str, tuple[np.ndarray, np.ndarray]]
    events: np.ndarray  # structured: ev, t, size, flags, fid


def run_ns2(case: str, tmp: Path) -> Ns2Run:
    samples_f, trace_f = tmp / f"{case}.samples", tmp / f"{case}.tr"
    subprocess.run(
        ["ns", str(CASE_FILES / f"{case}.tcl"), str(samples_f), str(trace_f)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    by_name: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for line in samples_f.read_text().splitlines():
        _, t, name, v = line.split()
        by_name[name].append((float(t), float(v)))
    samples = {
        k: (np.array([x[0] for x in v]), np.array([x[1] for x in v])) for k, v in by_name.items()
    }
    rows = []
    for line in trace_f.read_text().splitlines():
        f = line.split()
        rows.append((f[0], float(f[1]), int(f[5]), f[6], int(f[7]), int(f[10])))
    events = np.array(
        rows,
        dtype=[
            ("ev", "U1"),
            ("t", "f8"),
            ("size", "i8"),
            ("flags", "U7"),
            ("fid", "i8"),
            ("seq", "i8"),
        ],
    )
    return Ns2Run(samples, events)


def ns2_count(
    run: Ns2Run, ev: str, t0: float, t1: float, fid: int | None = None, flag: str = ""
) -> int:
    e = run.events
    m = (e["ev"] == ev) & (e["t"] >= t0) & (e["t"] < t1)
    if fid is not None:
        m &= e["fid"] == fid
    if flag:
        m &= np.char.find(e["flags"], flag) >= 0
    return int(m.sum())


def ns2_bytes(run: Ns2Run, t0: float, t1: float, fid: int) -> int:
    e = run.events
    m = (e["ev"] == "r") & (e["t"] >= t0) & (e["t"] < t1) & (e["fid"] == fid)
    return int(e["size"][m].sum())


def ns2_goodput(run: Ns2Run, t0: float, t1: float, fid: int, header: int = 40) -> float:
    """TCP payload bytes of distinct segments through the bottleneck over [t0, t1), Mb/s."""
    e = run.events
    m = (e["ev"] == "r") & (e["t"] >= t0) & (e["t"] < t1) & (e["fid"] == fid) & (e["size"] > header)
    seqs, first = np.unique(e["seq"][m], return_index=True)
    return float((e["size"][m][first] - header).sum()) * 8 / (t1 - t0) / 1e6


def ns2_mean(run: Ns2Run, name: str, t0: float, t1: float) -> float:
    t, v = run.samples[name]
    m = (t >= t0 - 1e-9) & (t < t1 - 1e-9)
    return float(v[m].mean())


# ----- ccsim side


def run_ccsim(case: str, **overrides):
    import ccsim

    return ccsim.run(str(CASE_FILES / f"{case}.toml"), overrides=overrides or None)


def cc_series(r, name: str) -> tuple[np.ndarray, np.ndarray]:
    ts = r.timeseries["qdisc"]
    s = ts[(ts["name"] == name) & (ts["queue"] == "R1->R2")]
    return s["time_s"].to_numpy(), s["value"].to_numpy()


def cc_mean(r, name: str, t0: float, t1: float) -> float:
    t, v = cc_series(r, name)
    m = (t >= t0 - 1e-9) & (t < t1 - 1e-9)
    return float(v[m].mean())


def cc_window(case: str, t0: float, t1: float):
    """A run measured over [t0, t1) (deterministic: the history up to t1 is the full run's)."""
    return run_ccsim(case, **{"warmup": f"{t0}s", "duration": f"{t1}s"})


def bottleneck(r):
    return r.queues.set_index("queue").loc["R1->R2"]


def phase_means(case: str, ns: Ns2Run, r, phases, unit: str = "pkts") -> list[Check]:
    """The RED average's mean over each (t0, t1, label, tolerance) phase."""
    return [
        Check(
            case,
            f"mean avg {t0}-{t1} s{f' ({label})' if label else ''}, {unit}",
            ns2_mean(ns, "ave_", t0, t1),
            cc_mean(r, "avg", t0, t1),
            tol,
        )
        for t0, t1, label, tol in phases
    ]


def binned_gap(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray], t1: float
) -> float:
    """Mean absolute difference of two trajectories averaged over 1-second bins."""
    bins = np.arange(0.0, t1 + 1e-9, 1.0)

    def per_bin(x):
        t, v = x
        idx = np.digitize(t, bins) - 1
        return np.array([v[idx == i].mean() for i in range(len(bins) - 1)])

    return float(np.abs(per_bin(a) - per_bin(b)).mean())


def signal_fraction(
    avg: float, min_th: float, max_th: float, max_p: float, gentle: bool, wait: bool
) -> float:
    """RED's long-run fraction of arrivals signalled at a fixed average (packet
    mode): 1 / E[spacing], with ns-2's probability (`calculate_p_new`) and
    spreading (`modify_p`) written out here from ns-2.35's red.cc."""
    if avg < min_th:
        return 0.0
    if avg < max_th:
        p_b = (avg - min_th) / (max_th - min_th) * max_p
    else:
        p_b = min(1.0, (1 - max_p) / max_th * avg + 2 * max_p - 1) if gentle else 1.0
    survive, mean = 1.0, 0.0
    for k in range(1, 1_000_000):
        mean += survive
        c = k * p_b
        if wait:
            p = 0.0 if c < 1 else (p_b / (2 - c) if c < 2 else 1.0)
        else:
            p = p_b / (1 - c) if c < 1 else 1.0
        survive *= 1 - min(p, 1.0)
        if survive < 1e-15:
            break
    return 1 / mean


# ----- cases


def red_cbr(ns: Ns2Run) -> list[Check]:
    c = "RED (CBR)"
    out = []
    r = run_ccsim("red_cbr")
    out += phase_means(
        c, ns, r, [(0, 10, "1.05 C", 0.1), (10, 20, "0.8 C", 0.1), (20, 30, "1.3 C", 0.05)]
    )
    for t0, t1, label, tol in [(0, 10, "1.05 C", 0.1), (20, 30, "1.3 C", 0.03)]:
        w = bottleneck(cc_window("red_cbr", t0, t1))
        out.append(
            Check(c, f"drops {t0}-{t1} s ({label})", ns2_count(ns, "d", t0, t1), w["drops"], tol)
        )
    gap = binned_gap(ns.samples["ave_"], cc_series(r, "avg"), 30.0)
    out.append(
        Check(c, "avg trajectory: mean abs. gap of 1-s bins, pkts", 0.0, gap, 0.5, relative=False)
    )
    return out


def red_idle(ns: Ns2Run) -> list[Check]:
    """RED's average after the link went idle: aged from the end of the last
    serialization (both silences), not left where the last arrival put it."""
    c = "RED after idle periods (CBR)"
    r = run_ccsim("red_idle")
    out = phase_means(
        c,
        ns,
        r,
        [(5, 10, "1.2 C", 0.05), (12, 15, "0.3 C after 2 s idle", 0.1), (17, 20, "again", 0.1)],
    )
    # The first samples after each silence: the aged average (ns-2 ≈ 0.0x packets).
    for t0 in (12.0, 17.0):
        out.append(
            Check(
                c,
                f"avg at {t0:g}-{t0 + 0.2:g} s, pkts (was ~30 before the silence)",
                ns2_mean(ns, "ave_", t0, t0 + 0.2),
                cc_mean(r, "avg", t0, t0 + 0.2),
                0.1,
                relative=False,
            )
        )
    gap = binned_gap(ns.samples["ave_"], cc_series(r, "avg"), 20.0)
    out.append(
        Check(c, "avg trajectory: mean abs. gap of 1-s bins, pkts", 0.0, gap, 0.5, relative=False)
    )
    return out


def red_default(ns: Ns2Run) -> list[Check]:
    c = "RED (ns-2.35 defaults, bytes)"
    r = run_ccsim("red_default", warmup="5s")
    out = [
        Check(
            c, "mean avg 5-30 s, bytes", ns2_mean(ns, "ave_", 5, 30), cc_mean(r, "avg", 5, 30), 0.05
        )
    ]
    gap = binned_gap(ns.samples["ave_"], cc_series(r, "avg"), 30.0)
    out.append(
        Check(c, "avg trajectory: mean abs. gap of 1-s bins, bytes", 0.0, gap, 250, relative=False)
    )
    full = run_ccsim("red_default")
    sent_all = full.flows["packets_sent"].to_numpy()
    got_all = full.flows["bytes_delivered"].to_numpy() / np.array([500, 1500])
    for fid, size in [(0, 500), (1, 1500)]:
        ns_frac = ns2_count(ns, "d", 0, 30, fid) / ns2_count(ns, "+", 0, 30, fid)
        cc_frac = (sent_all[fid] - got_all[fid]) / sent_all[fid]
        out.append(Check(c, f"drop fraction, {size}-B flow", ns_frac, cc_frac, 0.1))
    return out


def red_ecn_tcp(ns: Ns2Run) -> list[Check]:
    c = "RED + ECN (4 NewReno)"
    r = run_ccsim("red_ecn_tcp", warmup="10s")
    q = bottleneck(r)
    t0, t1 = 10.0, 60.0
    marks, drops = ns2_count(ns, "r", t0, t1, flag="E"), ns2_count(ns, "d", t0, t1)

    def relative_to_red(avgs: np.ndarray, arrivals: float, signals: float) -> float:
        predicted = np.mean([signal_fraction(a, 5, 15, 0.1, True, True) for a in avgs]) * arrivals
        return signals / predicted

    tn, vn = ns.samples["ave_"]
    tc, vc = cc_series(r, "avg")
    in_n, in_c = (tn >= t0) & (tn < t1), (tc >= t0) & (tc < t1)
    return [
        Check(
            c,
            "throughput 10-60 s, Mb/s",
            ns2_bytes_all(ns, t0, t1),
            q["departure_bytes"] * 8 / (t1 - t0) / 1e6,
            0.02,
        ),
        Check(c, "mean avg 10-60 s, pkts", float(vn[in_n].mean()), float(vc[in_c].mean()), 0.1),
        Check(c, "drops 10-60 s", drops, q["drops"], 0.0, relative=False),
        Check(c, "marks 10-60 s (TCP-driven, see README)", marks, q["marks"], 0.25),
        Check(
            c,
            "marks / RED's function at the sampled avg",
            relative_to_red(vn[in_n], ns2_count(ns, "+", t0, t1), marks + drops),
            relative_to_red(vc[in_c], q["arrivals"], q["marks"] + q["drops"]),
            0.1,
        ),
    ]


def ns2_bytes_all(ns: Ns2Run, t0: float, t1: float) -> float:
    """Throughput of the bottleneck over [t0, t1), Mb/s."""
    e = ns.events
    m = (e["ev"] == "r") & (e["t"] >= t0) & (e["t"] < t1)
    return float(e["size"][m].sum()) * 8 / (t1 - t0) / 1e6


def ared(ns: Ns2Run) -> list[Check]:
    c = "Adaptive RED (CBR)"
    r = run_ccsim("ared")
    out = []
    tn, pn = ns.samples["cur_max_p_"]
    tc, pc = cc_series(r, "max_p")
    for t in [14.9, 29.9, 44.9]:
        a = float(pn[np.argmin(np.abs(tn - t))])
        b = float(pc[np.argmin(np.abs(tc - t))])
        out.append(Check(c, f"max_p at {t:g} s (one step: 11 %)", a, b, 0.11))
    out += phase_means(c, ns, r, [(5, 15, "", 0.1), (20, 30, "", 0.1), (35, 45, "", 0.1)])
    gap = binned_gap(ns.samples["ave_"], cc_series(r, "avg"), 45.0)
    out.append(
        Check(c, "avg trajectory: mean abs. gap of 1-s bins, pkts", 0.0, gap, 0.5, relative=False)
    )
    w = bottleneck(r)
    out.append(Check(c, "drops 0-45 s", ns2_count(ns, "d", 0, 45), w["drops"], 0.03))
    return out


def shares(case: str, label: str, ns: Ns2Run) -> list[Check]:
    r = run_ccsim(case, warmup="2s")
    got = r.flows["bytes_delivered_window"].to_numpy() * 8 / 18.0 / 1e6
    out = []
    for fid in range(4):
        want = ns2_bytes(ns, 2.0, 20.0, fid) * 8 / 18.0 / 1e6
        out.append(
            Check(
                label,
                f"throughput of flow {fid}, Mb/s (max-min {[1, 3, 3, 3][fid]})",
                want,
                got[fid],
                0.02,
            )
        )
    return out


def drr_tcp(ns: Ns2Run) -> list[Check]:
    c = "DRR (4 NewReno, RTT 24-100 ms)"
    t0, t1 = 10.0, 60.0
    r = run_ccsim("drr_tcp", warmup=f"{t0}s")
    got = r.flows["bytes_delivered_window"].to_numpy() * 8 / (t1 - t0) / 1e6
    want = [ns2_goodput(ns, t0, t1, fid) for fid in range(4)]
    rtts = [24, 32, 42, 62]
    out = [
        Check(c, f"goodput of flow {i} (RTT {rtt} ms), Mb/s (TCP-driven)", want[i], got[i], 0.08)
        for i, rtt in enumerate(rtts)
    ]

    def jain(x):
        x = np.asarray(x)
        return float(x.sum() ** 2 / (len(x) * (x**2).sum()))

    out.append(Check(c, "Jain's index of the four", jain(want), jain(got), 0.01))
    out.append(
        Check(
            c,
            "drops 10-60 s (TCP-driven)",
            ns2_count(ns, "d", t0, t1),
            bottleneck(r)["drops"],
            0.25,
        )
    )
    return out


CASES = {
    "red_cbr": red_cbr,
    "red_idle": red_idle,
    "red_default": red_default,
    "red_ecn_tcp": red_ecn_tcp,
    "ared": ared,
    "drr": lambda ns: shares("drr", "DRR (CBR)", ns),
    "drr_tcp": drr_tcp,
    "fq": lambda ns: shares("fq", "FQ (CBR; ns-2 FQ link)", ns),
}


def run_suite(quick: bool, only: str | None = None, jobs: int = 1) -> SuiteResult:
    """The suite for ``ccsim validate``: every case whose name contains ``only`` (the
    cases are short: ``quick`` and ``jobs`` change nothing)."""
    t = time.perf_counter()
    checks: list[Check] = []
    with tempfile.TemporaryDirectory() as d:
        for case in CASES:
            if only and only not in case:
                continue
            checks += CASES[case](run_ns2(case, Path(d)))
    bad = [ch for ch in checks if not ch.ok]
    table = "\n".join(
        [
            "| case | metric | ns-2.35 | ccsim | difference | tolerance | |",
            "|---|---|---|---|---|---|---|",
        ]
        + [ch.row() for ch in checks]
        + ["", f"{len(checks) - len(bad)} of {len(checks)} within tolerance"]
    )
    return SuiteResult(table, [ch.verdict() for ch in checks], 1, time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", help="comma-separated subset of: " + ", ".join(CASES))
    p.add_argument("--write", type=Path, help="replace the queue table in this markdown file")
    args = p.parse_args(argv)
    if shutil.which("ns") is None:
        print(
            "ns-2 comparison skipped: `ns` (ns-2.35) is not installed (Debian: apt-get install ns2)"
        )
        return 0
    blocks = []
    verdicts: list[Verdict] = []
    for case in args.cases.split(",") if args.cases else [None]:
        r = run_suite(False, case)
        blocks.append(r.block)
        verdicts += r.verdicts
    print("\n\n".join(blocks))
    if args.write:
        replace_block(args.write, blocks[0], MARK_BEGIN, MARK_END)
    return 1 if any(not v.ok for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
