"""VCP's dumbbells, written for VCP's own ns-2 code and for ccsim, run in both and read
back the same way.

A :class:`Case` is a dumbbell as VCP's ns-2 programs build it (``programs/vcp/``,
``vcp-lib.tcl``): a bottleneck of ``bw_mbps`` in each direction with a VCP router on
both (ns-2 ``Queue/DropTail2/VcpQueue``, ccsim ``{kind = "vcp"}`` as ``queue`` and
``reverse_queue``), its one-way delay 0.4 of the smallest propagation RTT, each flow's
two access links at 10·C with the rest of its RTT split between them, so every flow's
round-trip propagation delay is exactly its RTT; a buffer of one BDP at the mean RTT in
1000-byte packets (at least two per flow); long-lived flows of 1000-byte payloads (1040
bytes on the wire, ACKs 40), forward and, optionally, reverse (data r1 → r0). Each
flow starts at its base time plus an offset drawn from the case and the seed
(:meth:`Case.draw`, uniform in [0, ``jitter_s``]); both simulators get the same starts
(ns-2 ``start=`` with ``jitter=0``).

ns-2 runs the shipped Tcl program (``dumbbell.tcl``, or ``convergence.tcl`` for the
staggered joins) with the VCP-enabled binary named by ``CCSIM_NS2_VCP``; ccsim runs
:func:`ccsim_scenario` (``cc = "vcp"``, ``feedback = {kind = "vcp"}``, ``conventions =
"ns2"``: VCP's sender is ns-2's Reno). Both are read into an :class:`Outcome`: the
bottleneck's utilization, its queue (time average, and the 95th percentile and maximum
of samples every 10 ms), drops, each forward flow's goodput over the measurement window
and window cuts, and with ``series`` every flow's delivered bytes each second.
``protocol = "bmcc"`` runs BMCC in ccsim on the same dumbbell (a BMCC router, ``cc =
"bmcc"``), for docs/models/bmcc.md's Fig. 1 verdict.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import math
import os
import shutil
import subprocess
import time
from pathlib import Path

from ccsim.api import run
from ccsim.validation.framework import draw_pairs

#: The environment variable naming the VCP-enabled ns-2.35 binary.
ENV = "CCSIM_NS2_VCP"
#: How to get it, for the one-line message where it is missing.
INSTALL = (
    f"build ns-2.35 with VCP 0.1 by tools/ns2-vcp/build.sh, then export {ENV}=/path/to/ns-2.35/ns"
)
#: The reference, as the report names it, and its version.
REFERENCE = "ns-2.35 + VCP"
VERSION = "0.1 (2006)"
#: The Tcl programs (package data).
PROGRAMS = Path(str(importlib.resources.files("ccsim.validation.ns2") / "programs" / "vcp"))

PAYLOAD = 1000
WIRE = PAYLOAD + 40
#: Queue samples every 10 ms in both simulators (ns-2 ``qdt``, ccsim ``[monitor]``).
SAMPLE_S = 0.01


def vcp_ns() -> str | None:
    """The VCP-enabled ns-2 binary ``$CCSIM_NS2_VCP`` if it is an executable, else None."""
    path = os.environ.get(ENV, "")
    return shutil.which(path) if path else None


def have_vcp_ns() -> bool:
    return vcp_ns() is not None


def version() -> str:
    return VERSION if have_vcp_ns() else ""


@dataclasses.dataclass(frozen=True)
class Case:
    """A VCP dumbbell: forward flows of RTTs ``rtts_ms`` starting at ``starts_s`` (plus
    the drawn offsets), ``nrev`` reverse flows of RTT ``rev_rtt_ms`` starting with the
    first."""

    name: str
    bw_mbps: float
    rtts_ms: tuple[float, ...]
    starts_s: tuple[float, ...]
    nrev: int = 0
    rev_rtt_ms: float = 0.0
    #: Start offsets uniform in [0, jitter_s] (VCP's sample script: 1–300 ms).
    jitter_s: float = 0.3
    duration_s: float = 60.0
    warmup_s: float = 20.0
    #: ``"dumbbell"`` or ``"convergence"`` (the Tcl program; the same dumbbell).
    program: str = "dumbbell"
    #: Per-flow delivered bytes every second (for convergence).
    series: bool = False
    #: ``"vcp"``, or ``"bmcc"`` (ccsim only: BMCC on the same dumbbell).
    protocol: str = "vcp"
    #: VCP's AI constant α (ns-2 ``alpha_``, ccsim ``cc.alpha``).
    alpha: float = 1.0
    #: VCP's routers serve ACKs first (ns-2 ``two_queue_``, ccsim ``ack_priority``).
    ack_priority: bool = True

    @property
    def n(self) -> int:
        return len(self.rtts_ms)

    def all_rtts(self) -> list[float]:
        return list(self.rtts_ms) + [self.rev_rtt_ms] * self.nrev

    def bdelay_ms(self) -> float:
        """The bottleneck's one-way delay: 0.4 of the smallest RTT (``vcp-lib.tcl``)."""
        return 0.4 * min(self.all_rtts())

    def access_ms(self) -> list[float]:
        """Each flow's access delay, each side: (RTT/2 − bottleneck delay)/2."""
        return [(r / 2 - self.bdelay_ms()) / 2 for r in self.all_rtts()]

    def buffer_pkts(self) -> int:
        """ns-2's ``queue-limit``: one BDP at the mean RTT in 1000-byte packets, at
        least two per flow (``vcp_build``)."""
        rtts = self.all_rtts()
        bdp = int(self.bw_mbps * 1e6 * (sum(rtts) / len(rtts)) / 1000 / 8000 + 0.5)
        return max(bdp, 2 * len(rtts))

    def draw(self, seed: int) -> list[float]:
        """Every flow's start (s; forward then reverse) for ``seed``: its base time plus
        an offset uniform in [0, ``jitter_s``], rounded to the microsecond."""
        offsets, _ = draw_pairs(f"{self.name}/{seed}", len(self.all_rtts()), self.jitter_s, (0, 0))
        bases = list(self.starts_s) + [self.starts_s[0]] * self.nrev
        return [round(b + o, 6) for b, o in zip(bases, offsets)]


def ns2_args(case: Case, seed: int) -> list[str]:
    """The key=value arguments of the Tcl program for ``case`` under ``seed``."""
    starts = case.draw(seed)
    return [
        f"bw={case.bw_mbps:g}",
        "rtt=" + ",".join(f"{r:g}" for r in case.all_rtts()),
        f"n={case.n}",
        f"nrev={case.nrev}",
        "start=" + ",".join(f"{s:.6f}" for s in starts),
        "jitter=0",
        f"buf={case.buffer_pkts()}",
        f"dur={case.duration_s:g}",
        f"warmup={case.warmup_s:g}",
        f"seed={seed}",
        f"tick={1 if case.series else 0}",
        f"qdt={SAMPLE_S}",
        "qts=1",
        f"alpha={case.alpha:g}",
        f"ackprio={int(case.ack_priority)}",
    ]


def _flow(case: Case, i: int, start: float) -> dict:
    if case.protocol == "bmcc":
        cc: dict = {"cc": "bmcc", "feedback": {"kind": "bmcc"}}
    else:
        vcp = {"kind": "vcp", "alpha": case.alpha} if case.alpha != 1.0 else "vcp"
        cc = {"cc": vcp, "feedback": {"kind": "vcp"}}
    f = {"name": f"f{i}", **cc, "mss": PAYLOAD, "conventions": "ns2", "start": f"{start}s"}
    if i < case.n:
        f["pairs"] = [i]
    else:  # a reverse flow: data over R2 -> R1
        f.update(src=f"d{i}", dst=f"s{i}")
    return f


def ccsim_scenario(case: Case, seed: int) -> dict:
    """The ccsim scenario of ``case`` under ``seed``: the same dumbbell, starts and
    buffer. ns-2's ``queue-limit`` L holds L − 1 waiting packets; ccsim's limit counts
    the waiting ones."""
    starts = case.draw(seed)
    queue = {"kind": case.protocol, "limit": f"{case.buffer_pkts() - 1}pkt"}
    if case.protocol == "vcp" and not case.ack_priority:
        queue["ack_priority"] = False
    access = {
        "rate": f"{case.bw_mbps * 10:g}Mbps",
        "delay": [f"{a:.6f}ms" for a in case.access_ms()],
        "queue": {"limit": f"{max(10 * case.buffer_pkts(), 10000)}pkt"},
    }
    monitor = {"interval": f"{SAMPLE_S}s", "queues": ["R1->R2"]}
    if case.series:
        monitor["flows"] = "all"
    return {
        "name": case.name,
        "seed": seed,
        "duration": f"{case.duration_s}s",
        "warmup": f"{case.warmup_s}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": len(starts),
            "bottleneck": {
                "rate": f"{case.bw_mbps:g}Mbps",
                "delay": f"{case.bdelay_ms():.6f}ms",
                "queue": queue,
                "reverse_queue": queue,
            },
            "access": access,
        },
        "flows": [_flow(case, i, s) for i, s in enumerate(starts)],
        "monitor": monitor,
    }


@dataclasses.dataclass
class Outcome:
    """What one simulator reported for one run (measurement window [warm-up, end] unless
    said)."""

    #: Bits leaving the bottleneck R1 -> R2 (headers and reverse ACKs included) / C.
    utilization: float
    #: Time-average backlog (packets waiting).
    queue_mean_pkts: float
    #: 95th percentile and maximum of the backlog sampled every 10 ms.
    queue_p95_pkts: float
    queue_max_pkts: float
    drops: int
    #: Each forward flow's goodput (bit/s).
    goodputs: list[float]
    #: Each forward flow's window cuts over the whole run (MDs, fast retransmits and
    #: timeouts: ns-2's ``ncwndcuts_``).
    cuts: list[float]
    retransmits: int
    timeouts: int
    #: With ``Case.series``: each forward flow's payload bytes delivered by 1, 2, … s.
    delivered: list[list[float]] = dataclasses.field(default_factory=list)
    wall_s: float = 0.0


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` by nearest rank (NaN if empty).

    >>> percentile([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 0.95)
    9
    """
    if not xs:
        return math.nan
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def parse_ns2(text: str, case: Case) -> Outcome:
    """Reads a Tcl program's records (``sum``, ``flowsum``, ``q``, ``flow``)."""
    sums: dict[str, float] = {}
    flows: dict[int, dict[str, str]] = {}
    samples: list[float] = []
    series: dict[int, dict[int, float]] = {}
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "sum" and len(w) == 3:
            sums[w[1]] = float(w[2])
        elif w[0] == "flowsum":
            flows[int(w[1])] = dict(zip(w[2::2], w[3::2]))
        elif w[0] == "q" and float(w[1]) >= case.warmup_s - 1e-9:
            samples.append(float(w[2]))
        elif w[0] == "flow":
            series.setdefault(int(w[1]), {})[round(float(w[2]))] = float(w[3])
    fwd = [flows[i] for i in range(case.n)]
    if series:  # the last tick falls at the end, where the program stops first
        for i, f in enumerate(fwd):
            series.setdefault(i, {})[round(case.duration_s)] = float(f["bytes_total"])
    return Outcome(
        utilization=sums["util"],
        queue_mean_pkts=sums["queue_mean_pkts"],
        queue_p95_pkts=percentile(samples, 0.95),
        queue_max_pkts=max(samples, default=math.nan),
        drops=int(sums["drops_pkts"]),
        goodputs=[float(f["goodput_bps"]) for f in fwd],
        cuts=[float(f["cwnd_cuts"]) for f in fwd],
        retransmits=sum(int(f["retx_pkts"]) for f in flows.values()),
        timeouts=sum(int(f["timeouts"]) for f in flows.values()),
        delivered=_seconds(series, case),
    )


def _seconds(series: dict[int, dict[int, float]], case: Case) -> list[list[float]]:
    """Forward flows' bytes delivered by 1, 2, …, duration s (empty without series)."""
    if not series:
        return []
    last = int(case.duration_s)
    return [[series.get(i, {}).get(t, 0.0) for t in range(1, last + 1)] for i in range(case.n)]


def run_ns2(case: Case, seed: int, timeout_s: float = 3600) -> Outcome:
    """Runs ``case`` in VCP's ns-2 code (``$CCSIM_NS2_VCP``)."""
    ns = vcp_ns()
    if ns is None:
        raise RuntimeError(f"no VCP-enabled ns-2 binary: {INSTALL}")
    program = PROGRAMS / f"{case.program}.tcl"
    t = time.perf_counter()
    out = subprocess.run(
        [ns, str(program), *ns2_args(case, seed)],
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout_s,
    ).stdout
    o = parse_ns2(out, case)
    o.wall_s = time.perf_counter() - t
    return o


def run_ccsim(case: Case, seed: int) -> Outcome:
    """Runs ``case`` in ccsim."""
    t = time.perf_counter()
    r = run(ccsim_scenario(case, seed))
    o = read_ccsim(r, case)
    o.wall_s = time.perf_counter() - t
    return o


def read_ccsim(r, case: Case) -> Outcome:
    """The :class:`Outcome` of a ccsim run's results ``r``."""
    q = r.queues.set_index("queue").loc["R1->R2"]
    ts = r.timeseries["queue"]
    late = ts[(ts.queue == "R1->R2") & (ts.time_s >= case.warmup_s - 1e-9)]
    samples = [float(x) for x in late.packets]
    flows = r.flows.set_index("name")
    fwd = [flows.loc[f"f{i}"] for i in range(case.n)]
    cc = r.summary.get("cc", {})
    cuts = [
        float(cc.get(f"f{i}", {}).get("md", 0)) + float(f.fast_retransmits) + float(f.timeouts)
        for i, f in enumerate(fwd)
    ]
    delivered = []
    if case.series:
        fl = r.timeseries["flow"]
        for i in range(case.n):
            s = fl[fl.flow == f"f{i}"].set_index("time_s").delivered_bytes
            by_second = {round(t): float(v) for t, v in s.items() if abs(t - round(t)) < 1e-6}
            delivered.append([by_second.get(t, 0.0) for t in range(1, int(case.duration_s) + 1)])
    return Outcome(
        utilization=float(q.utilization),
        queue_mean_pkts=float(q.mean_len_pkts),
        queue_p95_pkts=percentile(samples, 0.95),
        queue_max_pkts=max(samples, default=math.nan),
        drops=int(q.drops),
        goodputs=[float(f.goodput_bps) for f in fwd],
        cuts=cuts,
        retransmits=int(r.flows.retransmits.sum()),
        timeouts=int(r.flows.timeouts.sum()),
        delivered=delivered,
    )
