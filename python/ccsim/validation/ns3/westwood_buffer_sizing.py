"""The ``westwood`` suite: Westwood+ and NewReno on the buffer-sizing paper's settings
(Mascolo & Vacirca's Figs. 4 and 8) in ccsim, ns-2.35 and ns-3.

    ccsim validate westwood            # one flow (3 seeds) and 200 flows (see run_suite)
    ccsim validate westwood --quick    # one flow, 1 seed (about 3 min)
    python -m ccsim.validation.ns3.westwood_buffer_sizing            # 200 flows, RTT 300 ms
    python -m ccsim.validation.ns3.westwood_buffer_sizing --rtt 100  # the RTT-100 ms row
    python -m ccsim.validation.ns3.westwood_buffer_sizing --single   # the one-flow check
    python -m ccsim.validation.ns3.westwood_buffer_sizing --seeds 2 --only ns-3 --results runs.json

(The first runs every variant over 3 seeds.)

Issue 25, discrepancy 2: ``experiments/westwood.py``'s Fig. 8 gives Westwood+
93.5 % utilization with 200 flows at RTT 300 ms and B = 0.05 BDP, short of the
paper's "≥ 95 %" and of NewReno. This compares the row with two references:
ns-2.35 (its NewReno, and Linux's own ``reno`` and ``westwood`` modules run by
``Agent/TCP/Linux``, ``tcp_linux.py``) and ns-3 3.44 (``TcpNewReno`` and
``TcpWestwoodPlus``, ``bulk_tcp.py``), on one scenario written once here
(:func:`scenario`): the start times and access delays are drawn from the seed
by ``tcp_scenario.Case.draw`` and given to all three simulators.

:func:`run_case` runs one protocol for one seed in every simulator variant and
returns a dict of metrics per variant (for a future ``ccsim validate``); the
``__main__`` prints the tables of docs/notes/westwood-200-flows.md; :func:`run_suite`
is the ``westwood`` suite of ``ccsim validate``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import functools
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ccsim.theory import confidence_interval, jain_index
from ccsim.validation import framework
from ccsim.validation.framework import SuiteResult
from ccsim.validation.ns2.tcp_linux import run_ns2_linux, run_ns2_plain
from ccsim.validation.ns2.reference import have_ns
from ccsim.validation.ns2.tcp_scenario import Case, ccsim_scenario
from ccsim.validation.ns3.bulk_tcp import Ns3Options, run_ns3
from ccsim.validation.ns3.reference import have_ns3

MARK_BEGIN = "<!-- ns3-westwood:begin -->"
MARK_END = "<!-- ns3-westwood:end -->"

PROTOCOLS = ("newreno", "westwood")


def scenario(rtt_ms: int = 300, b: float = 0.05, quick: bool = False) -> Case:
    """Fig. 8 (``experiments/westwood.py`` ``many_flows``; docs/models/westwood.md W11): 200 flows,
    200 Mb/s bottleneck with one-way delay RTT/2, access links of 2 Gb/s whose delay
    (the same on both sides of a pair) is uniform in [0, 10] ms, starts uniform in
    [0, 10] s, 1000-byte packets (MSS 960 + 40), no delayed ACKs, IW 2, minimum RTO
    200 ms, a drop-tail buffer of b·BDP packets with BDP = C·RTT (2500 / 7500
    packets). Measured over [60, 90] s at RTT 300 ms and [25, 50] s at 100 ms (the
    ``docs/validation.md`` Fig. 8 rows); quick: 60 / 40 s at 300 ms."""
    bdp = 200e6 * rtt_ms / 1000 / 8 / 1000
    if rtt_ms >= 300:
        duration, warmup = (60.0, 40.0) if quick else (90.0, 60.0)
    else:
        duration, warmup = (40.0, 25.0) if quick else (50.0, 25.0)
    return Case(
        f"Fig. 8: 200 flows RTT {rtt_ms}ms B={b}BDP",
        pairs=200,
        rate_mbps=200.0,
        delay_ms=rtt_ms / 2,
        access_mbps=2000.0,
        access_ms=(0.0, 10.0),
        start_max_s=10.0,
        buffer_pkts=round(b * bdp),
        mss=960,
        duration_s=duration,
        warmup_s=warmup,
        # One set of draws per RTT and seed, whatever the protocol.
        draw_key=f"westwood-200/rtt{rtt_ms}",
    )


def single_flow(quick: bool = False) -> Case:
    """Fig. 4's setting at B = 0.1 BDP, as ``experiments/westwood.py`` ``single_flow``
    and the whole-engine test run it: one flow, 40 Mb/s, 100 ms two-way propagation
    (bottleneck 48 ms, 1 ms access links at 1 Gb/s), a 50-packet drop-tail buffer,
    measured over [60, 120] s. One loss per congestion episode: the estimator and
    the window rule alone decide, not the loss recovery."""
    return Case(
        "Fig. 4: 1 flow 40Mbps RTT 100ms B=0.1BDP",
        pairs=1,
        rate_mbps=40.0,
        delay_ms=48.0,
        access_mbps=1000.0,
        access_ms=(1.0, 1.0),
        buffer_pkts=50,
        mss=960,
        duration_s=90.0 if quick else 120.0,
        warmup_s=60.0,
    )


# ----- ccsim


#: ccsim's flow keys per conventions. "ns2": docs/validation.md's matched
#: conventions (tcp_scenario.ccsim_scenario). "fig8": the experiment's own (RFC defaults,
#: no limited transmit, byte counting, timeout ssthresh once per window).
#: "ns3": ns-3's choices where ccsim has them (limited transmit, per-ACK MSS²/cwnd,
#: 1 ms clock granularity, an RTT sample from every ACK of new data, ssthresh
#: recomputed at a timeout in recovery). Not available in ccsim: ns-3 does not
#: restart the retransmission timer at a fast retransmit, and restarts it on the
#: first partial ACK only in SACK recovery as well.
CCSIM_CONVENTIONS = {
    "ns2": {},
    "ns2-every": {"partial_ack_timer": "every"},
    "fig8": {"conventions": "ccsim", "rto_ssthresh": "once-per-window"},
    "ns3": {
        "conventions": "ccsim",
        "limited_transmit": True,
        "byte_counting": False,
        "clock_granularity": "1ms",
        "rtt_samples": "timestamps",
        "rto_ssthresh": "window",
    },
}


def ccsim_run(case: Case, seed: int, cc: str, conv: str, sack: bool) -> dict:
    """One ccsim run of ``case`` with congestion control ``cc`` under ``conv``."""
    import ccsim

    s = ccsim_scenario(dataclasses.replace(case, sack=sack), seed)
    keys = CCSIM_CONVENTIONS[conv]
    for f in s["flows"]:
        f["cc"] = cc
        f["min_rto"] = "200ms"
        if "conventions" in keys:
            for k in ("conventions", "rtt_tick"):
                f.pop(k, None)
        f.update(keys)
    t0 = time.time()
    r = ccsim.run(s)
    wall = time.time() - t0
    # The flow table counts over the whole run; a run that ends at the warm-up
    # has the same history up to there (the simulation is deterministic).
    w = ccsim.run(dict(s, duration=f"{case.warmup_s}s", warmup="0s")).flows
    f = r.flows
    q = r.queue("R1->R2")
    window = case.duration_s - case.warmup_s
    return {
        "utilization": float(q["utilization"]),
        "drops": int(q["drops"]),
        "retransmits": int(f["retransmits"].sum()),
        "timeouts": int(f["timeouts"].sum()),
        "window_retransmits": int(f["retransmits"].sum() - w["retransmits"].sum()),
        "window_timeouts": int(f["timeouts"].sum() - w["timeouts"].sum()),
        "goodputs": [float(b) * 8 / case.duration_s for b in f["bytes_delivered"]],
        "window_goodputs": [float(b) * 8 / window for b in f["bytes_delivered_window"]],
        "mean_queue": float(q["mean_len_pkts"]),
        # the run itself, without the second run up to the warm-up
        "wall_main_s": wall,
    }


# ----- the variants compared


@dataclasses.dataclass(frozen=True)
class Variant:
    """One simulator with its conventions, running one protocol."""

    label: str
    simulator: str  # "ccsim", "ns-2", "ns-3"
    run: Callable[[Case, int], dict]
    #: Which run this one is paired with for Westwood+ − NewReno.
    family: str


#: ccsim's variants beside the experiment's: (label, conventions, SACK, family).
CCSIM_VARIANTS = (
    ("ccsim, ns-2 conventions", "ns2", False, "ccsim ns2"),
    ("ccsim, ns-2 conventions, Slow-but-Steady", "ns2-every", False, "ccsim ns2 every"),
    ("ccsim, ns-2 conventions, SACK", "ns2", True, "ccsim ns2 sack"),
    ("ccsim, ns-3 conventions, SACK", "ns3", True, "ccsim ns3 sack"),
    ("ccsim, ns-3 conventions", "ns3", False, "ccsim ns3"),
)


def variants(protocol: str) -> list[Variant]:
    """Every simulator variant of ``protocol`` ("newreno" or "westwood")."""
    ww = protocol == "westwood"
    out = [
        Variant(
            "ccsim, Fig. 8 experiment's conventions",
            "ccsim",
            lambda c, s: ccsim_run(c, s, protocol, "fig8", False),
            "ccsim fig8",
        ),
    ]
    if ww:
        out.append(
            Variant(
                "ccsim westwood-linux, Fig. 8 experiment's conventions",
                "ccsim",
                lambda c, s: ccsim_run(c, s, "westwood-linux", "fig8", False),
                "ccsim fig8",
            )
        )
    out += [
        Variant(
            label, "ccsim", functools.partial(ccsim_run, cc=protocol, conv=conv, sack=sack), fam
        )
        for label, conv, sack, fam in CCSIM_VARIANTS
    ]
    if have_ns():
        if not ww:
            out.append(
                Variant("ns-2 Agent/TCP/Newreno", "ns-2", run_ns2_plain, "ns-2 own"),
            )
            out.append(
                Variant(
                    "ns-2 Agent/TCP/Newreno, Slow-but-Steady",
                    "ns-2",
                    lambda c, s: run_ns2_plain(c, s, slow_but_steady=True),
                    "ns-2 own every",
                ),
            )
        out.append(
            Variant(
                f"ns-2 Agent/TCP/Linux select_ca {'westwood' if ww else 'reno'} (SACK)",
                "ns-2",
                lambda c, s: run_ns2_linux(c, s, "westwood" if ww else "reno"),
                "ns-2 linux",
            )
        )
    if have_ns3():
        name = "TcpWestwoodPlus" if ww else "TcpNewReno"
        for sack, rec in ((True, "prr"), (False, "classic"), (False, "prr")):
            opt = Ns3Options(cc=protocol, recovery=rec, sack=sack)
            tag = ("SACK" if sack else "no SACK") + (", PRR" if rec == "prr" else ", classic")
            out.append(
                Variant(
                    f"ns-3 {name}, {tag}",
                    "ns-3",
                    lambda c, s, opt=opt: run_ns3(c, s, opt),
                    f"ns-3 {tag}",
                )
            )
        # Diagnostic, not a convention: RTO ≥ srtt + 100 ms. ns-3 does not restart
        # the timer at a fast retransmit and takes an RTT sample from every ACK, so
        # its RTO (srtt + max(1 ms, 4·rttvar)) often expires before the
        # retransmission's ACK returns.
        opt = Ns3Options(cc=protocol, recovery="prr", sack=True, granularity_ms=100.0)
        out.append(
            Variant(
                f"ns-3 {name}, SACK, PRR; diagnostic clock granularity 100 ms",
                "ns-3",
                lambda c, s, opt=opt: run_ns3(c, s, opt),
                "ns-3 SACK, PRR, G 100 ms",
            )
        )
    return out


def the_case(rtt_ms: int, quick: bool, single: bool, duration_s: float | None) -> Case:
    case = single_flow(quick) if single else scenario(rtt_ms, quick=quick)
    return dataclasses.replace(case, duration_s=duration_s) if duration_s else case


def run_case(
    protocol: str,
    seed: int,
    rtt_ms: int = 300,
    quick: bool = False,
    only: str | None = None,
    simulators: tuple[str, ...] = ("ccsim", "ns-2", "ns-3"),
    single: bool = False,
    duration_s: float | None = None,
) -> dict[str, dict]:
    """Runs ``protocol`` on the Fig. 8 scenario (``single``: the one-flow check,
    :func:`single_flow`) for ``seed`` in every simulator variant (of
    ``simulators``, and whose label contains ``only``); returns {label: metrics},
    each with its wall time in ``wall_s``. ``duration_s`` lengthens the runs (the
    warm-up stays)."""
    case = the_case(rtt_ms, quick, single, duration_s)
    out = {}
    vs = variants(protocol)
    exact = only in [v.label for v in vs]
    for v in vs:
        if v.simulator not in simulators:
            continue
        if only and (v.label != only if exact else only not in v.label):
            continue
        t = time.time()
        m = v.run(case, seed)
        m["wall_s"] = m.pop("wall_main_s", time.time() - t)
        finish(case, m)
        out[v.label] = m
    return out


def finish(case: Case, m: dict) -> dict:
    """Adds the derived metrics: Jain's index of the goodputs (whole run and
    window) and the goodput as a fraction of the bottleneck, counting each
    delivered payload byte with its share of the header (``goodput``: 1.0 when
    the link carries new data only, at line rate)."""
    m["jain"] = jain_index(m["goodputs"])
    m["window_jain"] = jain_index(m["window_goodputs"])
    wire = (case.mss + 40) / case.mss
    m["goodput"] = sum(m["window_goodputs"]) * wire / (case.rate_mbps * 1e6)
    return m


# ----- tables


METRICS = [
    ("utilization", "utilization", "{:.4f}"),
    ("goodput", "goodput", "{:.4f}"),
    ("drops", "drops", "{:.0f}"),
    ("window_retransmits", "retransmits", "{:.0f}"),
    ("window_timeouts", "timeouts", "{:.0f}"),
    ("window_jain", "Jain", "{:.3f}"),
    ("retransmits", "retransmits, whole run", "{:.0f}"),
    ("timeouts", "timeouts, whole run", "{:.0f}"),
    ("wall_s", "wall s", "{:.0f}"),
]


def cell(values: list[float], fmt: str) -> str:
    if len(values) == 1:
        return fmt.format(values[0])
    m, h = confidence_interval(values, 0.95)
    return f"{fmt.format(m)} ± {fmt.format(h)}"


def tables(results: dict[str, dict[int, dict[str, dict]]]) -> str:
    """results[protocol][seed][label] = metrics → the two markdown tables."""
    head = "| protocol | simulator, conventions | " + " | ".join(t for _, t, _ in METRICS) + " |"
    lines = [head, "|" + "---|" * (len(METRICS) + 2)]
    for p, by_seed in results.items():
        for lab in [v.label for v in variants(p)]:
            seeds = [s for s in sorted(by_seed) if lab in by_seed[s]]
            if not seeds:
                continue
            row = [cell([by_seed[s][lab][k] for s in seeds], f) for k, _, f in METRICS]
            name = "Westwood+" if p == "westwood" else "NewReno"
            lines.append(f"| {name} | {lab} ({len(seeds)}) | " + " | ".join(row) + " |")
    lines += [
        "",
        "Westwood+ − NewReno, same simulator and conventions, same seed (paired):",
        "",
        "| Westwood+ | NewReno | Δ utilization (points) | Δ goodput (points) | drops ratio | timeouts ratio |",
        "|---|---|---|---|---|---|",
    ]
    if "westwood" in results and "newreno" in results:
        fam = {}
        for p in PROTOCOLS:
            for v in variants(p):
                fam[(p, v.label)] = v.family
        W, N = results["westwood"], results["newreno"]
        for wl in [v.label for v in variants("westwood")]:
            f = fam.get(("westwood", wl))
            nls = [v.label for v in variants("newreno") if v.family == f]
            for nl in nls:
                seeds = [s for s in sorted(set(W) & set(N)) if wl in W[s] and nl in N[s]]
                if not seeds:
                    continue
                w = [W[s][wl] for s in seeds]
                n = [N[s][nl] for s in seeds]
                du = [100 * (a["utilization"] - b["utilization"]) for a, b in zip(w, n)]
                dg = [100 * (a["goodput"] - b["goodput"]) for a, b in zip(w, n)]
                dr = [a["drops"] / max(b["drops"], 1) for a, b in zip(w, n)]
                tr = [a["window_timeouts"] / max(b["window_timeouts"], 1) for a, b in zip(w, n)]
                lines.append(
                    f"| {wl} | {nl} | {cell(du, '{:+.2f}')} | {cell(dg, '{:+.2f}')} "
                    f"| {cell(dr, '{:.2f}')} | {cell(tr, '{:.2f}')} |"
                )
    return "\n".join(lines)


# ----- the suite of ``ccsim validate``

#: The variants the suite runs: ccsim under each reference's conventions, the paper's
#: experiment, and the references (ns-3 without SACK is shown, not compared: see
#: ``NOT_A_REFERENCE``).
SUITE_CCSIM = (
    "ccsim, Fig. 8 experiment's conventions",
    "ccsim, ns-2 conventions, SACK",
    "ccsim, ns-3 conventions, SACK",
    "ccsim, ns-3 conventions",
)


def reference_labels(protocol: str) -> dict[str, str]:
    """The reference variants of ``protocol``, by the ccsim variant each is compared
    with (``None`` for a reference shown beside the experiment, not compared)."""
    ww = protocol == "westwood"
    name = "TcpWestwoodPlus" if ww else "TcpNewReno"
    return {
        f"ns-2 Agent/TCP/Linux select_ca {'westwood' if ww else 'reno'} (SACK)": (
            "ccsim, ns-2 conventions, SACK"
        ),
        f"ns-3 {name}, SACK, PRR": "ccsim, ns-3 conventions, SACK",
        f"ns-3 {name}, no SACK, PRR": "ccsim, ns-3 conventions",
    }


#: ns-3's recovery without SACK is not a reference: on one NewReno flow (Fig. 4) it
#: retransmits 127 911 segments for 33 drops and delivers half of what it sends,
#: and on 200 flows its classic recovery loses a quarter of the link
#: (docs/notes/westwood-200-flows.md). Its rows are shown, not checked.
NOT_A_REFERENCE = "no SACK"

#: Quantities checked: (key of the metrics, label, format, absolute floor, relative
#: floor) per case kind. On 200 flows only the link's use is compared: drops, timeouts
#: and shares follow each reference's own loss recovery (Linux 2.6.22's FACK and rate
#: halving in ns-2's TCP-Linux, PRR in ns-3), which ccsim does not model.
QUANTITIES = {
    "single": (
        ("utilization", "utilization", "{:.4f}", 0.01, 0.0),
        ("goodput", "goodput", "{:.4f}", 0.01, 0.0),
        ("drops", "drops", "{:.1f}", 3.0, 0.25),
        ("timeouts", "timeouts, whole run", "{:.2f}", 1.0, 0.0),
    ),
    "200": (
        ("utilization", "utilization", "{:.4f}", 0.01, 0.0),
        ("goodput", "goodput", "{:.4f}", 0.02, 0.0),
        ("drops", "drops", "{:.0f}", math.nan, 0.0),
        ("window_timeouts", "timeouts", "{:.0f}", math.nan, 0.0),
        ("window_jain", "Jain index", "{:.3f}", math.nan, 0.0),
    ),
}

#: Known differences outside tolerance: (text of the case, reference label, quantity)
#: -> cause.
_NS3_CA = (
    "ns-3's TcpNewReno adds MSS²/cwnd per ACK truncated to whole bytes (1 byte instead of "
    "1.92 at 500 segments of 960 B), so its saw-tooth is 38 s long instead of 28 and "
    "stays longer near the top; a fluid model of both gives 0.8370 and 0.8167, 600-s "
    "runs 0.8365 (14 losses) and 0.8170 (19); over the 60-s window the phase decides"
)
_NS3_RTO = (
    "ns-3's retransmission timer expires during recoveries (RTO = srtt + max(G, 4·rttvar) "
    "with G = 1 ms and an RTT sample per ACK; 1456 timeouts in the window against ccsim's "
    "95): with G = 100 ms (a diagnostic run, `--only diagnostic`) ns-3 has 77 timeouts "
    "and 0.9515 utilization, 0.9481 goodput, within tolerance of ccsim"
)
EXPLAINED: dict[tuple[str, str, str], str] = {
    ("1 flow", "ns-3 TcpNewReno, SACK, PRR", "utilization"): _NS3_CA,
    ("1 flow", "ns-3 TcpNewReno, SACK, PRR", "goodput"): _NS3_CA,
    ("200 flows", "ns-3 TcpNewReno, SACK, PRR", "utilization"): _NS3_RTO,
    ("200 flows", "ns-3 TcpNewReno, SACK, PRR", "goodput"): _NS3_RTO,
}

#: Quantities shown but not checked against ns-3: the drops and timeouts of a flow follow
#: its recovery, and ns-3.44's PRR (`TcpPrrRecovery`) counts DeliveredData twice with SACK
#: and overflows its 32-bit prr_delivered·ssthresh: on one Westwood+ flow it sends three
#: segments too many at the start of each recovery, 4 drops per loss episode where ccsim
#: and TCP-Linux have one (docs/validation.md, the Westwood+ section).
NS3_UNCHECKED = ("drops", "timeouts, whole run")


def suite_runs(quick: bool, only: str | None) -> list[tuple[str, str, int, str]]:
    """(case kind, protocol, seed, variant label) of every run of the suite: the one
    flow of Fig. 4 (1 seed quick, 3 full) and, in full runs, 200 flows at RTT 300 ms
    (60-s runs; ccsim and ns-2 over 3 seeds, ns-3 over 1: 10–20 min a run)."""
    plan = [("single", s) for s in range(1, (1 if quick else 3) + 1)]
    if not quick:
        plan += [("200", s) for s in (1, 2, 3)]
    out = []
    for kind, seed in plan:
        for p in PROTOCOLS:
            labels = list(SUITE_CCSIM) + list(reference_labels(p))
            for lab in labels:
                ref = lab.startswith("ns-")
                if ref and lab.startswith("ns-2") and not have_ns():
                    continue
                if ref and lab.startswith("ns-3") and not have_ns3():
                    continue
                if kind == "200" and lab.startswith("ns-3") and seed > 1:
                    continue
                name = f"{case_name(kind)} {p}"
                if only and only not in name and only not in lab:
                    continue
                out.append((kind, p, seed, lab))
    return out


def case_name(kind: str) -> str:
    return "Fig. 4: 1 flow" if kind == "single" else "Fig. 8: 200 flows RTT 300ms"


def _suite_one(job: tuple[str, str, int, str]) -> tuple[tuple[str, str, int, str], dict]:
    kind, p, seed, lab = job
    res = run_case(p, seed, 300, quick=kind == "200", only=lab, single=kind == "single")
    return job, res[lab]


def suite_verdicts(
    results: dict[tuple[str, str], dict[int, dict[str, dict]]],
) -> list[framework.Verdict]:
    """results[(kind, protocol)][seed][label] -> one verdict per compared pair and
    quantity, means over the seeds both have."""
    out = []
    for (kind, p), by_seed in results.items():
        for ref, cc in reference_labels(p).items():
            seeds = [s for s in sorted(by_seed) if ref in by_seed[s] and cc in by_seed[s]]
            if not seeds:
                continue
            case = f"{case_name(kind)}, {'Westwood+' if p == 'westwood' else 'NewReno'}: {ref}"
            for key, label, fmt, floor, rel in QUANTITIES[kind]:
                a = [by_seed[s][ref][key] for s in seeds]
                b = [by_seed[s][cc][key] for s in seeds]
                tol = framework.paired_tolerance(a, b, floor, rel)
                if math.isnan(floor) or NOT_A_REFERENCE in ref:
                    tol = math.nan
                if ref.startswith("ns-3") and label in NS3_UNCHECKED:
                    tol = math.nan
                why = next(
                    (
                        w
                        for (c, r, q), w in EXPLAINED.items()
                        if c in case and r == ref and q == label
                    ),
                    "",
                )
                out.append(
                    framework.Verdict(
                        f"{case} vs {cc}",
                        label,
                        statistics.fmean(a),
                        statistics.fmean(b),
                        tol,
                        why,
                        fmt,
                    )
                )
    return out


def run_suite(
    quick: bool, only: str | None = None, jobs: int = 1, seeds: int | None = None
) -> SuiteResult:
    """The ``westwood`` suite of ``ccsim validate`` (:func:`suite_runs`)."""
    t = time.perf_counter()
    jobs_ = suite_runs(quick, only)
    if seeds:
        jobs_ = [j for j in jobs_ if j[2] <= seeds]
    # The longest runs first, so that two cores finish together.
    jobs_.sort(key=lambda j: (not j[3].startswith("ns-3"), j[0] != "200"))
    results: dict[tuple[str, str], dict[int, dict[str, dict]]] = {}
    with concurrent.futures.ProcessPoolExecutor(max(1, jobs)) as ex:
        for (kind, p, seed, lab), m in ex.map(_suite_one, jobs_):
            results.setdefault((kind, p), {}).setdefault(seed, {})[lab] = m
    blocks = []
    for kind in ("single", "200"):
        sub = {p: by for (k, p), by in results.items() if k == kind}
        if sub:
            blocks.append(f"**{case_name(kind)}**\n\n" + tables(sub))
    n = max((j[2] for j in jobs_), default=0)
    return SuiteResult("\n\n".join(blocks), suite_verdicts(results), n, time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rtt", type=int, default=300, help="100 or 300 ms")
    ap.add_argument(
        "--single", action="store_true", help="the one-flow check (Fig. 4, B = 0.1 BDP)"
    )
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="shorter runs")
    ap.add_argument("--duration", type=float, help="run length in s (the warm-up stays)")
    ap.add_argument("--only", help="only variants whose label contains this text")
    ap.add_argument("--exclude", help="no variant whose label contains this text")
    ap.add_argument("--protocols", default=",".join(PROTOCOLS))
    ap.add_argument("--simulators", default="ccsim,ns-2,ns-3")
    ap.add_argument("--jobs", type=int, default=1, help="runs in parallel")
    ap.add_argument(
        "--results",
        type=Path,
        help="JSON file of results: runs found there are not repeated, new ones are added",
    )
    ap.add_argument("--table-only", action="store_true", help="print the table of --results")
    a = ap.parse_args(argv)
    protocols = a.protocols.split(",")
    sims = tuple(a.simulators.split(","))
    store: dict = {}
    if a.results and a.results.exists():
        store = json.loads(a.results.read_text())
    key = (
        ("single" if a.single else f"rtt{a.rtt}")
        + ("-quick" if a.quick else "")
        + (f"-{a.duration:g}s" if a.duration else "")
    )
    res = store.setdefault(key, {})
    if not a.table_only:
        todo = []
        for p in protocols:
            for s in range(1, a.seeds + 1):
                have = res.get(p, {}).get(str(s), {})
                for v in variants(p):
                    if (
                        v.simulator in sims
                        and (not a.only or a.only in v.label)
                        and (not a.exclude or a.exclude not in v.label)
                        and v.label not in have
                    ):
                        todo.append((p, s, v.label))
        with concurrent.futures.ProcessPoolExecutor(a.jobs) as ex:
            futs = {
                ex.submit(run_case, p, s, a.rtt, a.quick, label, sims, a.single, a.duration): (
                    p,
                    s,
                )
                for p, s, label in todo
            }
            for fut in concurrent.futures.as_completed(futs):
                p, s = futs[fut]
                for label, m in fut.result().items():
                    res.setdefault(p, {}).setdefault(str(s), {})[label] = m
                    print(
                        f"done: {p} seed {s} {label} ({m['wall_s']:.0f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
                if a.results:
                    a.results.write_text(json.dumps(store, indent=1))
    case = the_case(a.rtt, a.quick, a.single, a.duration)
    results = {
        p: {
            int(s): {lab: finish(case, m) for lab, m in r.items()}
            for s, r in sorted(res[p].items(), key=lambda x: int(x[0]))
            if int(s) <= a.seeds
        }
        for p in protocols
        if p in res
    }
    print(tables(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
